#!/usr/bin/python3
"""`serialcheck campaign --scheduler` on a real dask cluster on loopback.

A `dask scheduler` and two `dask worker` processes are started here; a
short campaign of 6 units runs on them against the fake testee, which
answers every loads one off (so each unit fails, or passes over a failure
found before); one worker is killed (SIGKILL) while it runs a unit. Dask
runs that unit again on the other worker, and the test checks that no
unit's result is lost or counted twice: 6 units, one cell a seed, and the
same findings with the same hits and first seeds as the same campaign on
this machine's cores. Control: the same campaign again counts nothing
(every cell is in the database already), so a result delivered twice
could not add hits.

Usage: campaign_dask_test.py SERIALCHECK SOURCE_DIR
Exit status 77 (skipped) when distributed or the dask command is missing.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def fail(why, *logs):
    print("FAIL: " + why)
    for log in logs:
        print(log)
    sys.exit(1)


def main():
    serialcheck, source = sys.argv[1], sys.argv[2]
    try:
        from distributed import Client
    except ImportError as e:
        print("skipped: distributed is not installed (%s); scripts/setup installs "
              "python3-distributed" % e)
        return 77
    dask = shutil.which("dask")
    if dask is None:
        print("skipped: no dask command on PATH (it comes with python3-distributed)")
        return 77
    tmp = tempfile.mkdtemp(prefix="serialcheck-dask-test-")
    procs = {}
    try:
        log = open(os.path.join(tmp, "cluster.log"), "wb")
        scheduler_file = os.path.join(tmp, "scheduler.json")
        procs["scheduler"] = subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", scheduler_file], stdout=log, stderr=log)
        deadline = time.time() + 60
        while not os.path.exists(scheduler_file) and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(0.2)
        address = json.load(open(scheduler_file))["address"]
        for name in ("w1", "w2"):
            # No nanny: the killed worker stays dead, as a lost machine does.
            procs[name] = subprocess.Popen(
                [dask, "worker", address, "--name", name, "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--host", "127.0.0.1"], stdout=log, stderr=log)
        client = Client(address, timeout=60)
        client.wait_for_workers(2, timeout=60)

        db = os.path.join(tmp, "db")
        known = os.path.join(tmp, "known-failures.txt")
        open(known, "w").close()
        fake = ("fake=/usr/bin/python3 %s/suite/tests/testees/fake_testee.py --wrong-value "
                "--delay 0.02" % source)
        argv = [serialcheck, "campaign", "--scheduler", address, "--db", db,
                "--known-failures", known, "--no-subjects-file", "--no-interpreters",
                "--subjects", "fake", "--testee", fake, "--properties", "roundtrip.equal",
                "--cases", "20", "--max-size", "10", "--seed", "1000", "--max-units", "6",
                "--no-replay"]
        campaign = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
        killed = None
        deadline = time.time() + 120
        while killed is None and time.time() < deadline and campaign.poll() is None:
            workers = client.scheduler_info()["workers"]
            for addr, keys in client.processing().items():
                if keys and addr in workers:
                    time.sleep(0.5)  # well inside the unit
                    killed = workers[addr]["name"]
                    procs[killed].send_signal(signal.SIGKILL)
                    procs[killed].wait()
                    break
            time.sleep(0.05)
        t0 = time.time()
        out, err = campaign.communicate(timeout=300)
        print("the campaign ended %.1f s after the kill" % (time.time() - t0))
        if killed is None:
            fail("no worker was seen running a unit, so none was killed", out, err)
        print("killed worker %s mid-unit" % killed)
        if campaign.returncode != 1:
            fail("the campaign should fail on its unlisted finding (exit %s)"
                 % campaign.returncode, out, err)
        if "campaign: 6 units" not in out:
            fail("not every unit's result came back", out, err)
        def findings(where):
            listing = subprocess.run([serialcheck, "findings", "--json", "--db", where,
                                      "--known-failures", known], capture_output=True, text=True)
            return {f["fingerprint"]: (f["hits"], f["first_seed"])
                    for f in json.loads(listing.stdout)}

        found = findings(db)
        # The same seeds on this machine's cores find the same.
        local_db = os.path.join(tmp, "local-db")
        local_argv = [a if a != db else local_db for a in argv]
        at = local_argv.index("--scheduler")
        del local_argv[at:at + 2]
        local = subprocess.run(local_argv + ["-j", "2"], capture_output=True, text=True,
                               timeout=300)
        if "campaign: 6 units" not in local.stdout:
            fail("the local campaign did not run its 6 units", local.stdout, local.stderr)
        if findings(local_db) != found:
            fail("the cluster and this machine's cores found differently",
                 json.dumps(found, indent=2), json.dumps(findings(local_db), indent=2))
        if not found or sum(hits for hits, _ in found.values()) < 6:
            fail("every unit fails or passes over a failure: 6 hits at least",
                 json.dumps(found, indent=2))
        for seed in range(1000, 1006):
            lines = open(os.path.join(db, "seeds", "%d.tsv" % seed)).read().splitlines()
            if lines != ["fake\troundtrip.equal\t20\t10"]:
                fail("seed %d's cells were merged as %r" % (seed, lines))

        # Control: the same units again add nothing.
        again = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        if "6 cells were in the database already" not in again.stdout:
            fail("a repeated unit was not recognised", again.stdout, again.stderr)
        if findings(db) != found:
            fail("a repeated unit was counted again", json.dumps(findings(db), indent=2))
        client.close()
        print("ok: 6 units merged once each across a killed worker")
        return 0
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs.values():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
