"""The Python half of host.js: serialcheck_testee's own machinery, one message
at a time.

host.js loads Pyodide, puts the Python adapter's folder
(harness/testees/python) and this folder on sys.path, and calls:

    start(argv)           -> "" when ready, else JSON {"exit": N, "message": ...}
    read_document(doc)    -> JSON {"op", "lengths"}: the op and frame sizes a
                             request document names; only used when
                             JavaScript's JSON.parse refuses a document that
                             Python's json module may read (a NaN literal)
    handle(message)       -> the response message, as bytes

`message` is one whole request as it came on the wire (u32 length, document,
frames). handle() runs it through the adapter's unchanged _serve_loop on
in-memory streams: the loop answers the one request, finds the end of its
input and returns, so every request is parsed, dispatched and answered (errors
included) exactly as `python3 serialcheck_testee.py` does on a pipe.

What differs from serve(): there are no threads in Pyodide, so requests run on
the one stack WebAssembly has, under a recursion limit that it can hold (a
deep document or value gets a RecursionError answer rather than a crash), and
the real standard input and output are the host's, not Python's.
"""

import io
import json
import os
import sys

import serialcheck_testee as st

# The adapter parses documents under a recursion limit of 200000, which
# serve() makes safe with a 512 MiB thread stack. Before 3.12 that limit also
# bounds the json parser's C recursion, and WebAssembly's stack cannot hold
# it: the interpreter's own default is what Pyodide is built to hold. From
# 3.12 on C recursion has its own bound (3.14: the stack pointer), which
# host.js's large worker stack leaves in charge.
if sys.version_info < (3, 12):
    st._DeepRecursion.LIMIT = sys.getrecursionlimit()

_testee = None


def _exit(code, message=""):
    return json.dumps({"exit": code, "message": message})


def start(argv):
    """Parses the adapter's command line and builds its Testee, as main()
    does; "" on success."""
    global _testee
    argv = [str(a) for a in argv]
    sys.argv = ["serialcheck_testee.py"] + argv
    # Nothing in Python may read the host's standard input (the protocol's).
    sys.stdin = open(os.devnull, "r")
    try:
        args = st._parser().parse_args(argv)
        try:
            dumps, loads, claims = st._setup(args)
        except ValueError as e:
            raise SystemExit("serialcheck_testee: %s" % e)
        # serve() imports the fixtures module first: it registers extension
        # codes that dumps and loads rely on.
        st.fixtures_module()
        _testee = st.Testee(dumps, loads, **claims)
    except SystemExit as e:
        code = e.code
        if code is None or isinstance(code, int):
            return _exit(code or 0)
        return _exit(1, str(code))
    return ""


def read_document(doc):
    """JSON {"op", "lengths"}: the request's op and the frame sizes its
    document names, as _serve_loop reads them (no frames when the document
    does not parse or names no sizes)."""
    doc = doc.to_bytes() if hasattr(doc, "to_bytes") else bytes(doc)
    op, lengths = None, []
    try:
        with st._DeepRecursion(), st._NoIntLimit():
            req = json.loads(doc.decode("utf-8"))
        if isinstance(req, dict):
            op = req.get("op")
            lengths = req.get("frame_lengths", [])
    except Exception:
        pass
    if not isinstance(lengths, list) or not all(st._is_int(v) and v >= 0 for v in lengths):
        lengths = []
    return json.dumps({"op": op if isinstance(op, str) else None, "lengths": lengths})


def handle(message):
    """The response to one whole request message (bytes or a JS Uint8Array)."""
    data = message.to_bytes() if hasattr(message, "to_bytes") else bytes(message)
    out = io.BytesIO()
    st._serve_loop(_testee, st._Stream(io.BytesIO(data), out))
    sys.stdout.flush()
    sys.stderr.flush()
    return out.getvalue()
