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

import copy
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


def define_module(source):
    name = "sc_byvalue_%d_%d" % (os.getpid(), next(_names))
    module = types.ModuleType(name)
    exec(compile(source, "<%s>" % name, "exec"), module.__dict__)
    if sys.version_info[0] == 2:
        # Python 2 empties a module's globals (all None) when the module
        # object goes: keep it while the subject may run.
        _PY2_MODULES.append(module)
    return module


def define(source):
    return define_module(source).subject


def _state(obj):
    """The instance's attributes: its __dict__, or with __slots__ and no
    __dict__ the slots that are set."""
    if hasattr(obj, "__dict__"):
        return sorted(vars(obj).items())
    names = []
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return sorted((n, getattr(obj, n)) for n in set(names) if hasattr(obj, n))


def _call(subject, args, kwargs):
    if isinstance(subject, type):
        obj = subject(*args, **kwargs)
        return (_state(obj), obj.run(*args, **kwargs))
    return subject(*args, **kwargs)


def _outcomes(call, inputs):
    out = []
    for args, kwargs in inputs:
        try:
            out.append(["value", repr(call(args, kwargs))])
        except _RecursionError:
            out.append(["raises", "RecursionError"])
        except Exception as e:  # the type is the result
            out.append(["raises", type(e).__name__])
    return out


def results(subject, inputs):
    return _outcomes(lambda args, kwargs: _call(subject, args, kwargs), inputs)


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
    """check() on a JSON request {"pickler", "source", "inputs", "protocol"},
    or life_check() when it names a "situation"; the answer as JSON text."""
    r = json.loads(request)
    if "situation" in r:
        return json.dumps(life_check(r["pickler"], r["source"], r["situation"], r["inputs"],
                                     r["protocol"]))
    return json.dumps(check(r["pickler"], r["source"], r["inputs"], r["protocol"]))


# ---------------------------------------------------------------------------
# callable.class-life (docs/conformance.md): what happens to a function or
# class pickled by value after the pickle is written. The source also
# defines _change(), which changes what `subject` is or reads (a class
# attribute, a method, a global, a base's attribute, a function's defaults).
# A situation runs in two halves: life_here in the process that defines and
# pickles, life_fresh in a fresh process given the pickles. Each half fills
# "expect" (what the same code does when nothing is pickled: a function is
# a value, loaded as it was when pickled; a class is a definition, one per
# process) and "observed" (what the pickler gave) under the same check
# names; the harness compares them.

LIFE_SITUATIONS = ("changed-fresh", "changed-here", "loaded-twice", "two-pickles",
                   "older-definition")
# Situations about an instance and its class: a function has none.
_CLASS_ONLY = ("two-pickles", "older-definition")


class LifeStop(Exception):
    """A half stopped at a stage ("dumps", "load", "no-instance")."""

    def __init__(self, stage, error):
        Exception.__init__(self, error)
        self.stage = stage
        self.error = error


def _staged(stage, f, *args):
    try:
        return f(*args)
    except Exception as e:
        raise LifeStop(stage, "%s: %s" % (type(e).__name__, e))


def _instance_results(obj, inputs):
    return _outcomes(lambda args, kwargs: obj.run(*args, **kwargs), inputs)


def class_facts(cls):
    """What a class says of itself beside its behaviour: its names, module
    and docstring, and the names in its own namespace."""
    return {"__name__": cls.__name__,
            "__qualname__": getattr(cls, "__qualname__", None),
            "__module__": repr(cls.__module__),
            "__doc__": repr(cls.__doc__),
            "namespace": sorted(vars(cls))}


def _copied_results(obj, inputs):
    """What an instance gives after the round trip its own reduce makes
    when nothing is pickled by value: a deep copy (a fixtures base whose
    __getstate__ keeps only its own attributes loses the subclass's)."""
    try:
        twin = copy.deepcopy(obj)
    except Exception as e:
        raise LifeStop("no-instance", "the instance does not copy: %s: %s" % (type(e).__name__, e))
    return _instance_results(twin, inputs)


def _first_instance(cls, inputs, protocol):
    """An instance built from the first input that builds one, which
    reduces at `protocol` (else the object refuses the protocol itself:
    __slots__ without __getstate__ below 2)."""
    for args, kwargs in inputs:
        try:
            obj = cls(*args, **kwargs)
        except Exception:
            continue
        try:
            obj.__reduce_ex__(protocol)
        except Exception as e:
            raise LifeStop("no-instance", "the instance does not reduce at protocol %d: %s: %s"
                           % (protocol, type(e).__name__, e))
        return obj
    raise LifeStop("no-instance", "no input builds an instance of the class")


def life_here(dumps, loads, source, situation, inputs, protocol):
    """The pickling process's half: {"expect", "observed", "pickles"}.
    Raises LifeStop, or what defining the source raised."""
    if situation not in LIFE_SITUATIONS:
        raise ValueError("no situation %r (there are %s)" % (situation, ", ".join(LIFE_SITUATIONS)))
    module = define_module(source)
    subject = module.subject
    is_class = isinstance(subject, type)
    if situation in _CLASS_ONLY and not is_class:
        raise ValueError("situation %s needs a class, and the source binds a function" % situation)
    expect, observed, pickles = {}, {}, []
    if situation in ("changed-fresh", "changed-here", "loaded-twice"):
        before = results(subject, inputs)
        pickles.append(_staged("dumps", dumps, subject))
        facts = class_facts(subject) if is_class else None
        if situation == "loaded-twice":
            expect["result"] = [before, before]
            if is_class:
                expect["identity"] = True
                expect["class"] = [facts, facts]
        elif situation == "changed-fresh":
            module._change()
            expect["result"] = before
            if is_class:
                expect["class"] = facts
        else:
            module._change()
            after = results(subject, inputs)
            loaded = _staged("load", loads, pickles[0])
            now = results(subject, inputs)
            expect["original"], observed["original"] = after, now
            if is_class:
                # The live class itself, so what it gives is the original's;
                # a new class gives the pickled one's, and identity says so.
                expect["identity"], observed["identity"] = True, loaded is subject
            else:
                expect["result"], observed["result"] = before, results(loaded, inputs)
    elif situation == "two-pickles":
        obj = _first_instance(subject, inputs, protocol)
        expect["result"] = _copied_results(obj, inputs)
        expect["instance-class"] = True
        expect["class"] = class_facts(subject)
        pickles.append(_staged("dumps", dumps, subject))
        pickles.append(_staged("dumps", dumps, obj))
    else:  # older-definition
        pickles.append(_staged("dumps", dumps, subject))
        module._change()
        obj = _first_instance(subject, inputs, protocol)
        expect["result"] = _copied_results(obj, inputs)
        expect["class"] = class_facts(subject)
        pickles.append(_staged("dumps", dumps, obj))
    return {"expect": expect, "observed": observed, "pickles": pickles}


def life_needs_fresh(situation):
    return situation != "changed-here"


def life_fresh(loads, situation, pickles, inputs):
    """The fresh process's half: {"observed"}. Raises LifeStop."""
    observed = {}
    if situation in ("changed-fresh", "loaded-twice"):
        first = _staged("load", loads, pickles[0])
        if situation == "changed-fresh":
            observed["result"] = results(first, inputs)
            if isinstance(first, type):
                observed["class"] = class_facts(first)
        else:
            second = _staged("load", loads, pickles[0])
            if isinstance(first, type):
                observed["identity"] = first is second
                observed["class"] = [class_facts(first), class_facts(second)]
            observed["result"] = [results(first, inputs), results(second, inputs)]
    elif situation == "two-pickles":
        cls = _staged("load", loads, pickles[0])
        obj = _staged("load", loads, pickles[1])
        observed["instance-class"] = type(obj) is cls
        observed["class"] = class_facts(type(obj))
        observed["result"] = _instance_results(obj, inputs)
    elif situation == "older-definition":
        _staged("load", loads, pickles[0])
        obj = _staged("load", loads, pickles[1])
        observed["class"] = class_facts(type(obj))
        observed["result"] = _instance_results(obj, inputs)
    else:
        raise ValueError("situation %s has no fresh half" % situation)
    return {"observed": observed}


def life_check(pickler, source, situation, inputs, protocol, timeout=30):
    """Both halves, the second in a fresh interpreter: {"expect",
    "observed"} or {"stage", "error"} as check() answers."""
    p = _pickler(pickler)
    dumps = lambda obj: p.dumps(obj, protocol=protocol)
    try:
        here = life_here(dumps, p.loads, source, situation, inputs, protocol)
    except LifeStop as e:
        return {"stage": e.stage, "error": e.error}
    except Exception as e:
        return {"stage": "define", "error": "%s: %s" % (type(e).__name__, e)}
    answer = {"expect": here["expect"], "observed": here["observed"]}
    if not life_needs_fresh(situation):
        return answer
    job = json.dumps({"pickler": pickler, "situation": situation, "inputs": inputs,
                      "pickles": [bytes(x).hex() for x in here["pickles"]]})
    fresh = _run_fresh(job, timeout)
    if "stage" in fresh:
        return fresh
    answer["observed"].update(fresh["observed"])
    return answer


def _run_fresh(job, timeout):
    try:
        done = subprocess.run([_python(), os.path.abspath(__file__)], input=job,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"stage": "process", "error": "the fresh process ran past %d s" % timeout}
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"stage": "process", "error": "the fresh process exited with %d: %s"
                % (done.returncode, tail)}
    return json.loads(done.stdout)


def _main():
    job = json.load(sys.stdin)
    if "situation" in job:
        loads = _pickler(job["pickler"]).loads
        pickles = [bytes.fromhex(x) for x in job["pickles"]]
        try:
            json.dump(life_fresh(loads, job["situation"], pickles, job["inputs"]), sys.stdout)
        except LifeStop as e:
            json.dump({"stage": e.stage, "error": e.error}, sys.stdout)
        return
    try:
        subject = _pickler(job["pickler"]).loads(bytes.fromhex(job["pickle"]))
    except Exception as e:
        json.dump({"stage": "load", "error": "%s: %s" % (type(e).__name__, e)}, sys.stdout)
        return
    json.dump({"loaded": results(subject, job["inputs"])}, sys.stdout)


if __name__ == "__main__":
    _main()
