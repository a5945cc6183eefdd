"""A broken by-value pickler, a negative control of callable.by-value.

cloudpickle, except that a function loses its defaults and keyword-only
defaults on the way: a call that relies on one raises TypeError where the
original returned a value. Everything goes through serialcheck_live_classes
(cloudpickle with its defects about classes put right), so that the
properties see this one defect and not cloudpickle's.
"""

import types


import serialcheck_live_classes


def dumps(obj, protocol=None):
    if isinstance(obj, types.FunctionType):
        copy = types.FunctionType(obj.__code__, obj.__globals__, obj.__name__, None,
                                  obj.__closure__)
        copy.__qualname__ = obj.__qualname__
        copy.__module__ = obj.__module__
        copy.__annotations__ = obj.__annotations__
        obj = copy
    return serialcheck_live_classes.dumps(obj, protocol=protocol)


loads = serialcheck_live_classes.loads
