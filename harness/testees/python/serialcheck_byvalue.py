"""Functions and classes pickled by value, for serialcheck's callable.by-value.

In the harness's process, ``check`` defines what a generated source binds to
``subject`` in a fresh module object (its name is unique to this process and
importable nowhere), calls it on each input, dumps it with the pickler under
test, and runs this file as a script in a fresh interpreter, which loads the
pickle with that pickler's loads and calls what it got on the same inputs.
Nothing is found by reference there except this folder's fixtures module and
the pickler's own library.

An input is ``[positional_args, keyword_args]``. Calling a function gives its
result; calling a class builds an instance ``obj`` and gives
``(sorted(vars(obj).items()), obj.run(*args, **kwargs))``. A result is
``["value", repr(result)]`` or ``["raises", exception type name]``.
"""

import importlib
import itertools
import json
import os
import pickle
import subprocess
import sys
import types

_names = itertools.count()
_PY2_MODULES = []
try:
    _RecursionError = RecursionError
except NameError:  # Python 2 says RuntimeError
    _RecursionError = RuntimeError


def define(source):
    name = "sc_byvalue_%d_%d" % (os.getpid(), next(_names))
    module = types.ModuleType(name)
    exec(compile(source, "<%s>" % name, "exec"), module.__dict__)
    if sys.version_info[0] == 2:
        # Python 2 empties a module's globals (all None) when the module
        # object goes: keep it while the subject may run.
        _PY2_MODULES.append(module)
    return module.subject


def _call(subject, args, kwargs):
    if isinstance(subject, type):
        obj = subject(*args, **kwargs)
        return (sorted(vars(obj).items()), obj.run(*args, **kwargs))
    return subject(*args, **kwargs)


def results(subject, inputs):
    out = []
    for args, kwargs in inputs:
        try:
            out.append(["value", repr(_call(subject, args, kwargs))])
        except _RecursionError:
            out.append(["raises", "RecursionError"])
        except Exception as e:  # the type is the result
            out.append(["raises", type(e).__name__])
    return out


def _pickler(name):
    return importlib.import_module(name)


def _python():
    return os.path.join(sys.base_exec_prefix, "bin",
                        "python%d.%d" % sys.version_info[:2])


def check(pickler, source, inputs, protocol, timeout=30):
    """What the harness compares: {"original", "pickle", "loaded"} or an
    error at a stage ({"stage": "define"|"dumps"|"load"|"process", "error"})."""
    try:
        subject = define(source)
    except Exception as e:
        return {"stage": "define", "error": "%s: %s" % (type(e).__name__, e)}
    original = results(subject, inputs)
    try:
        data = _pickler(pickler).dumps(subject, protocol=protocol)
    except Exception as e:
        return {"stage": "dumps", "error": "%s: %s" % (type(e).__name__, e),
                "original": original}
    job = json.dumps({"pickler": pickler, "pickle": data.hex(), "inputs": inputs})
    try:
        done = subprocess.run([_python(), os.path.abspath(__file__)], input=job,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"stage": "process", "error": "the fresh process ran past %d s" % timeout,
                "original": original, "pickle": data.hex()}
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"stage": "process", "error": "the fresh process exited with %d: %s"
                % (done.returncode, tail), "original": original, "pickle": data.hex()}
    answer = json.loads(done.stdout)
    answer["original"] = original
    answer["pickle"] = data.hex()
    return answer


def check_json(request):
    """check() on a JSON request {"pickler", "source", "inputs", "protocol"};
    the answer as JSON text."""
    r = json.loads(request)
    return json.dumps(check(r["pickler"], r["source"], r["inputs"], r["protocol"]))


def _main():
    job = json.load(sys.stdin)
    try:
        subject = _pickler(job["pickler"]).loads(bytes.fromhex(job["pickle"]))
    except Exception as e:
        json.dump({"stage": "load", "error": "%s: %s" % (type(e).__name__, e)}, sys.stdout)
        return
    json.dump({"loaded": results(subject, job["inputs"])}, sys.stdout)


if __name__ == "__main__":
    _main()
