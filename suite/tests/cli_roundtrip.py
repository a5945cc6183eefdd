"""End-to-end check of the `serialcheck` command against CPython.

Builds values that are not in the repository (fresh random ones each run,
seeded from the clock unless SERIALCHECK_SEED is set, and printed), pickles
them with CPython's C pickler at every protocol, and requires that
`serialcheck decode` then `serialcheck encode` at the same protocol gives
back CPython's exact bytes. Then feeds every file of corpus/malformed to
`serialcheck decode` and requires exit status 1 with exactly one line on
stderr, within 2 seconds and 1 GiB of address space.

Under the sanitizers (SERIALCHECK_SANITIZED=1, scripts/test-sanitized) each
value goes through two of the six protocols, i % 6 and (i + 3) % 6, so every
value and every protocol is still taken: a sanitized process takes a fifth of
a second to start, and the whole square is 384 of them. The malformed inputs
all run either way.

Usage: cli_roundtrip.py SERIALCHECK_BINARY SOURCE_DIR
Run with Debian's /usr/bin/python3 (numpy lives there).
"""

import collections
import datetime
import math
import os
import pickle
import random
import resource
import struct
import subprocess
import sys
import tempfile
import time

import numpy

CLI, SOURCE = sys.argv[1], sys.argv[2]
SANITIZED = os.environ.get("SERIALCHECK_SANITIZED") == "1"
SEED = int(os.environ.get("SERIALCHECK_SEED", time.time_ns() % 2**32))
rng = random.Random(SEED)
print(f"seed {SEED} (set SERIALCHECK_SEED={SEED} to repeat)")


def rand_str(n):
    pools = [(0x20, 0x7E), (0xA0, 0xFF), (0x100, 0xD7FF), (0xE000, 0xFFFD), (0x10000, 0x10FFFF)]
    out = []
    for _ in range(n):
        lo, hi = rng.choice(pools)
        out.append(chr(rng.randint(lo, hi)))
    if rng.random() < 0.3:
        out.insert(rng.randint(0, len(out)), chr(rng.randint(0xD800, 0xDFFF)))  # lone surrogate
    if rng.random() < 0.3:
        out.insert(rng.randint(0, len(out)), rng.choice("\\\n\r\x00\x1a"))
    return "".join(out)


def rand_scalar():
    k = rng.randrange(9)
    if k == 0:
        return rng.randint(-(2**31), 2**31)
    if k == 1:
        return rng.randint(-(2**2000), 2**2000)  # big ints
    if k == 2:
        return rng.choice([math.nan, -0.0, math.inf, -math.inf, 5e-324, rng.uniform(-1e300, 1e300)])
    if k == 3:
        return struct.unpack("<d", rng.randbytes(8))[0]
    if k == 4:
        return rand_str(rng.randint(0, 40))
    if k == 5:
        return rng.randbytes(rng.randint(0, 40))
    if k == 6:
        return bytearray(rng.randbytes(rng.randint(0, 10)))
    if k == 7:
        return rng.choice([None, True, False])
    return datetime.datetime(2000 + rng.randrange(50), 1 + rng.randrange(12), 1 + rng.randrange(28),
                             rng.randrange(24), rng.randrange(60), rng.randrange(60), rng.randrange(10**6))


def rand_key():
    return rng.choice([lambda: rng.randint(-10**6, 10**6), lambda: rand_str(rng.randint(1, 8)),
                       lambda: rng.randbytes(4), lambda: (rng.randint(0, 9), rand_str(3))])()


def rand_value(depth, pool):
    if depth == 0 or rng.random() < 0.3:
        v = rand_scalar()
    else:
        n = rng.randint(0, 6)
        k = rng.randrange(7)
        if k == 0:
            v = [rand_value(depth - 1, pool) for _ in range(n)]
        elif k == 1:
            v = tuple(rand_value(depth - 1, pool) for _ in range(n))
        elif k == 2:
            v = {rand_key(): rand_value(depth - 1, pool) for _ in range(n)}
        elif k == 3:
            v = {rand_key() for _ in range(n)}
        elif k == 4:
            v = frozenset(rand_key() for _ in range(n))
        elif k == 5:
            v = collections.OrderedDict((rand_key(), rand_value(depth - 1, pool)) for _ in range(n))
        else:
            v = numpy.arange(n * 3, dtype=rng.choice(["<f8", ">i4", "u1", "c8"])).reshape(n, 3)
    if not isinstance(v, (int, float, bool, type(None))) and rng.random() < 0.2 and pool:
        return rng.choice(pool)  # shared reference
    if isinstance(v, (list, dict, tuple)):
        pool.append(v)
    return v


def recursive():
    a = [1, "x"]
    a.append(a)
    d = {"self": None}
    d["self"] = d
    t = ([],)
    t[0].append(t)
    return [a, d, t, a]


def values():
    for _ in range(25):
        yield rand_value(4, [])
    yield recursive()
    n = 2500 + rng.randrange(100)
    yield [rng.randint(0, 10**9) for _ in range(n)]
    yield {rand_str(6) + str(i): i for i in range(n)}
    yield {rng.randint(0, 10**12) for _ in range(n)}
    yield frozenset(rng.randint(0, 10**12) for _ in range(n))
    yield rand_str(70_000)
    yield rng.randbytes(70_000 + rng.randrange(1000))
    yield [rng.randbytes(30_000) for _ in range(5)]
    yield numpy.linspace(0, 1, 1000 + rng.randrange(1000))


def run(args, data):
    return subprocess.run([CLI] + args, input=data, capture_output=True, timeout=60)


failures = 0
checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for i, value in enumerate(values()):
        protocols = (i % 6, (i + 3) % 6) if SANITIZED else range(6)
        for proto in protocols:
            expected = pickle.dumps(value, protocol=proto)
            path = os.path.join(tmp, "v.pickle")
            with open(path, "wb") as f:
                f.write(expected)
            dec = run(["decode", path], b"")
            if dec.returncode != 0:
                failures += 1
                print(f"value {i} protocol {proto}: decode failed: {dec.stderr.decode().strip()}")
                continue
            enc = run(["encode", "--protocol", str(proto)], dec.stdout)
            checked += 1
            if enc.returncode != 0 or enc.stdout != expected:
                failures += 1
                where = next((k for k, (x, y) in enumerate(zip(enc.stdout, expected)) if x != y),
                             min(len(enc.stdout), len(expected)))
                print(f"value {i} protocol {proto}: bytes differ at offset {where} "
                      f"({len(enc.stdout)} vs {len(expected)} bytes) {enc.stderr.decode().strip()}")

malformed_dir = os.path.join(SOURCE, "corpus", "malformed")
bad = 0


def limit_memory():
    # Under AddressSanitizer (scripts/test-sanitized) the cap cannot apply:
    # the sanitizer reserves terabytes of address space for its shadow.
    if SANITIZED:
        return
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


FLAGS = {"max_protocol": "--max-protocol", "max_depth": "--max-depth", "max_memo": "--max-memo",
         "alloc_constant": "--alloc-constant", "alloc_per_input_byte": "--alloc-per-byte"}
with open(os.path.join(malformed_dir, "MANIFEST.tsv"), encoding="utf-8") as f:
    rows = [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
with tempfile.TemporaryDirectory() as tmp:
    for name, kind, offset, options, *_ in rows:
        args = [CLI, "decode", os.path.join(malformed_dir, name + ".pickle")]
        for opt in ([] if options == "-" else options.split(",")):
            key, val = opt.split("=")
            if key == "buffers":
                for b in range(int(val)):
                    buf = os.path.join(tmp, f"buf{b}")
                    open(buf, "wb").close()
                    args += ["--buffer", buf]
            else:
                args += [FLAGS[key], val]
        try:
            r = subprocess.run(args, capture_output=True, timeout=2, preexec_fn=limit_memory)
        except subprocess.TimeoutExpired:
            failures += 1
            print(f"malformed {name}: took longer than 2 s")
            continue
        bad += 1
        lines = r.stderr.decode(errors="replace").strip().splitlines()
        if r.returncode != 1 or len(lines) != 1 or not lines[0].startswith(f"serialcheck: {kind} at byte"):
            failures += 1
            print(f"malformed {name}: want exit 1 and one '{kind}' line, got exit {r.returncode}: {lines!r}")

print(f"{checked} decode+encode round trips against CPython, {bad} malformed inputs")
print(f"{checked + bad - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
