"""A broken by-value pickler, the negative control of callable.by-value.

``dumps`` pickles a function or class by reference, as plain pickle does: it
registers the object's module under its name in this process first, so the
dump succeeds here, and a process where that module does not exist cannot
load it.
"""

import pickle
import sys
import types


def dumps(obj, protocol=None):
    name = obj.__module__
    module = sys.modules.get(name)
    if module is None:
        module = sys.modules[name] = types.ModuleType(name)
    setattr(module, obj.__qualname__, obj)
    return pickle.dumps(obj, protocol=protocol)


loads = pickle.loads
