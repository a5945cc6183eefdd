"""A broken by-value pickler, a negative control of callable.class-life.

serialcheck_live_classes (an honest pickler: a class loaded where it was
pickled is the live class, untouched), except that dumps() keeps the
class's attributes as they were when it was pickled and loads() in that
process writes them back over the live class: a class changed after
pickling is changed back by the load.
"""

import serialcheck_live_classes as _honest

_pickled = {}


def dumps(obj, protocol=None):
    if isinstance(obj, type):
        _pickled[id(obj)] = (obj, dict(vars(obj)))
    return _honest.dumps(obj, protocol=protocol)


def loads(data):
    obj = _honest.loads(data)
    kept = _pickled.get(id(obj))
    if kept is not None and kept[0] is obj:
        for name, value in kept[1].items():
            if name in ("__dict__", "__weakref__", "__doc__"):
                continue
            try:
                setattr(obj, name, value)
            except (AttributeError, TypeError):
                pass
    return obj
