#!/usr/bin/python3
"""Runs the units of `serialcheck campaign` on a dask.distributed cluster.

serialcheck starts this driver and speaks to it in JSON lines
(harness/campaign/units.h):

  driver -> serialcheck  {"t": "hello", "slots": N, "cluster": ADDRESS}
  serialcheck -> driver  {"t": "unit", "id": ID, "argv": [...], "unit_dir": PLACEHOLDER,
                          "files": {NAME: TEXT, ...}}
  driver -> serialcheck  {"t": "result", "doc": UNIT-DOCUMENT}   one per unit, as each ends

Each unit is a dask task that runs the unit's `serialcheck run` command in a
fresh folder on whichever worker dask chose, and returns its report and
saved cases as one document. Dask does the scheduling; a task whose worker
dies is run again on another worker, and the driver sends each unit's
result once. The end of standard input means "no more units": the driver
waits for the ones under way, then exits. SIGTERM stops it at once.

  --scheduler ADDRESS   a running scheduler (tcp://HOST:PORT)
  --workers N           start a LocalCluster of N one-thread workers instead
  --unit-timeout S      kill a unit's run after S seconds (0: never)
"""

import argparse
import json
import os
import queue
import signal
import sys
import threading


def run_unit(unit_id, argv, placeholder, timeout, files=None):
    """Runs one unit where dask put it; its document as JSON text. `files`
    (name -> text) are written into the unit's folder first."""
    import json as json_
    import os as os_
    import shutil
    import signal as signal_
    import subprocess
    import tempfile
    import time

    folder = tempfile.mkdtemp(prefix="serialcheck-unit-")
    try:
        args = [a.replace(placeholder, folder) for a in argv]
        for name, text in (files or {}).items():
            with open(os_.path.join(folder, os_.path.basename(name)), "w", encoding="utf-8") as f:
                f.write(text)
        log_path = os_.path.join(folder, "log.txt")
        started = time.monotonic()
        status, why = -1, ""
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as e:
                why = "cannot run %s on this worker: %s" % (args[0], e)
            else:
                try:
                    status = proc.wait(timeout=timeout or None)
                except subprocess.TimeoutExpired:
                    os_.killpg(proc.pid, signal_.SIGKILL)
                    proc.wait()
                    why = "the unit ran past its %g-s timeout and was killed" % timeout
                else:
                    try:
                        os_.killpg(proc.pid, signal_.SIGKILL)  # what the run left behind
                    except ProcessLookupError:
                        pass
                    if status < 0:
                        why = "the run was killed by signal %d" % -status
                        status = -1
                    elif status > 1:
                        why = "the run ended with exit status %d" % status
        doc = {"id": unit_id, "status": status, "seconds": time.monotonic() - started,
               "report": None, "cases": {}, "why": why}
        report_path = os_.path.join(folder, "report", "conformance.json")
        try:
            with open(report_path, encoding="utf-8") as f:
                doc["report"] = json_.load(f)
        except (OSError, ValueError):
            pass
        if doc["report"] is not None:
            for cell in doc["report"].get("cells", []):
                case_file = cell.get("case_file")
                if case_file and os_.path.exists(case_file):
                    try:
                        with open(case_file, encoding="utf-8") as f:
                            doc["cases"][case_file] = json_.load(f)
                    except (OSError, ValueError):
                        pass
        else:
            with open(log_path, "rb") as f:
                doc["log_tail"] = f.read()[-4000:].decode("utf-8", "replace")
        return json_.dumps(doc)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def emit(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="address of a running dask scheduler")
    where.add_argument("--workers", type=int, help="start a LocalCluster of N workers")
    ap.add_argument("--unit-timeout", type=float, default=0)
    args = ap.parse_args()

    def on_term(signum, frame):
        raise SystemExit(1)

    signal.signal(signal.SIGTERM, on_term)

    # A stray print of dask's must not reach serialcheck's pipe.
    out = sys.stdout
    sys.stdout = sys.stderr
    from distributed import Client, LocalCluster, wait

    sys.stdout = out
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler, timeout=60)
    else:
        cluster = LocalCluster(n_workers=max(1, args.workers), threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        client.wait_for_workers(1, timeout=120)
        info = client.scheduler_info()
        slots = sum(w.get("nthreads", 1) for w in info["workers"].values()) or 1
        emit(json.dumps({"t": "hello", "slots": slots, "cluster": info.get("address", "")}))

        units = queue.Queue()

        def read_units():
            for line in sys.stdin:
                line = line.strip()
                if line:
                    units.put(json.loads(line))
            units.put(None)

        threading.Thread(target=read_units, daemon=True).start()
        pending = {}
        more = True
        while more or pending:
            while True:
                try:
                    unit = units.get(timeout=0 if pending or not more else 0.5)
                except queue.Empty:
                    break
                if unit is None:
                    more = False
                    break
                future = client.submit(run_unit, unit["id"], unit["argv"], unit["unit_dir"],
                                       args.unit_timeout, unit.get("files"), pure=False)
                pending[future] = unit["id"]
            if not pending:
                continue
            try:
                done, _ = wait(list(pending), timeout=0.5, return_when="FIRST_COMPLETED")
            except TimeoutError:  # none ended within the half second
                continue
            for future in done:
                unit_id = pending.pop(future)
                try:
                    text = future.result()
                except Exception as e:  # noqa: BLE001 - any failure is the unit's
                    text = json.dumps({"id": unit_id, "status": -1, "seconds": 0, "report": None,
                                       "cases": {}, "why": "dask: %s: %s" % (type(e).__name__, e)})
                emit('{"t": "result", "doc": %s}' % text)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    main()
