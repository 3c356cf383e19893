"""tdbf: time-decaying Bloom filters -- "have I seen this key recently?"

A filter remembers the keys of a sliding window, the last N insertions
(count window) or the last T of time (time window), in a few bits per key:
no false negatives inside the window, false positives at the rate you ask
for.  The C library libtdbf does the work; it is compiled into this
package.

    >>> import tdbf
    >>> f = tdbf.Filter(window=1_000_000, error=0.01)   # the last 10^6 keys
    >>> f.add("user:42")            # True: new in the window
    True
    >>> f.add("user:42")            # False: seen
    False
    >>> "user:42" in f
    True

    t = tdbf.Filter(window="10m", error=0.001)          # the last 10 minutes
    t.add(key, now=event_time)                          # seconds, from the log

    for line in tdbf.dedup(open("app.log"), window="10m"):
        ...                                             # lines not seen lately

Contents: Filter, load, plan, dedup, designs, parse_duration, Error, FullError.
"""
from ._tdbf import Error, Filter, FullError, __version__, designs, parse_duration, plan, simd

__all__ = ["Error", "Filter", "FullError", "dedup", "designs", "load", "parse_duration", "plan",
           "__version__"]


def load(path):
    """Load a filter saved with Filter.save(), `tdbf dedup --state` or the
    Redis module's TDBF.SCANDUMP (its chunks joined in a file).

    Raises OSError if the file cannot be read and tdbf.Error if it is not a
    valid filter (corrupt, truncated, another format version).
    """
    return Filter.load(path)


def dedup(iterable, window=None, error=0.01, key=None, *, time=None, design=None,
          seed=None, capacity=None, filter=None):
    """Yield the items of `iterable` whose key was not seen within the window.

    A generator: it reads one item, adds its key to the filter (one
    test-and-set) and yields the item if the key was new, so it works on
    endless streams (a socket, `tail -f`) as on lists.  A repeat inside the
    window is always dropped; an item whose key was never seen, or last seen
    longer ago than the window plus the design's slack (Filter.stats()), is
    wrongly dropped with probability `error` at most.  A key seen between
    the window and the end of its slack may still be dropped.  A fixed-size
    design fed past what it was sized for raises tdbf.FullError instead of
    dropping new items silently (Filter's max_error_ratio).

    window    as Filter's: an int (the last N items) or a duration ('10m',
              seconds as float, timedelta).
    key       a function item -> key (bytes, str or buffer); default: the
              item itself.
    time      time windows: a function item -> its time (seconds as int or
              float, or a datetime), to replay a log by its own timestamps;
              default: the wall clock when the item is read.
    filter    an existing Filter to use (and keep, e.g. to save it after);
              then window, error, design, seed and capacity must be left out.
    design, seed, capacity: as Filter's.
    """
    if filter is None:
        if window is None:
            raise ValueError("window: required (a count such as 1000000, or a duration "
                             "such as '10m'), unless a filter is given")
        filter = Filter(window, error, design=design, seed=seed, capacity=capacity)
    elif window is not None or design is not None or seed is not None or \
            capacity is not None:
        raise ValueError("filter: give a filter or the parameters of a new one, not both")
    if time is not None and not filter.time_window:
        raise ValueError("time: applies to time windows; this filter counts items")
    return _dedup(iterable, filter, key, time)


def _dedup(iterable, f, key, time):
    # A separate generator, so that dedup() checks its arguments at once.
    add = f.add
    if key is None and time is None:
        for item in iterable:
            if add(item):
                yield item
    elif time is None:
        for item in iterable:
            if add(key(item)):
                yield item
    else:
        for item in iterable:
            if add(item if key is None else key(item), time(item)):
                yield item
