"""A broken by-value pickler, a negative control of callable.class-life.

serialcheck_live_classes (an honest pickler), except that loads() forgets
every class cloudpickle has loaded before, so that each load of a pickled
class makes a new class: loaded twice in one process, one pickle of a class
gives two classes, and an instance pickled apart from its class is not an
instance of the class loaded beside it.
"""

import cloudpickle

import serialcheck_live_classes as _honest

try:  # where cloudpickle keeps the classes it made or loaded, by its own id
    from cloudpickle import cloudpickle as _tracking
    _tracking._DYNAMIC_CLASS_TRACKER_BY_ID
except (ImportError, AttributeError):
    _tracking = None

dumps = _honest.dumps


def loads(data):
    if _tracking is None:
        raise RuntimeError("this cloudpickle keeps no class tracker to forget")
    with _tracking._DYNAMIC_CLASS_TRACKER_LOCK:
        _tracking._DYNAMIC_CLASS_TRACKER_BY_ID.clear()
    return _honest.loads(data)
