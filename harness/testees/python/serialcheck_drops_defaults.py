"""A broken by-value pickler, a negative control of callable.by-value.

cloudpickle, except that a function loses its defaults and keyword-only
defaults on the way: a call that relies on one raises TypeError where the
original returned a value. A class goes through serialcheck_live_classes
(cloudpickle, except that it loads as the live class where it was pickled),
so that callable.class-life sees this one defect and not cloudpickle's.
"""

import types

import cloudpickle

import serialcheck_live_classes


def dumps(obj, protocol=None):
    if isinstance(obj, types.FunctionType):
        copy = types.FunctionType(obj.__code__, obj.__globals__, obj.__name__, None,
                                  obj.__closure__)
        copy.__qualname__ = obj.__qualname__
        copy.__module__ = obj.__module__
        copy.__annotations__ = obj.__annotations__
        obj = copy
    elif isinstance(obj, type):
        return serialcheck_live_classes.dumps(obj, protocol=protocol)
    return cloudpickle.dumps(obj, protocol=protocol)


loads = cloudpickle.loads
