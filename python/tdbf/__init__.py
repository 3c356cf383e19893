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

    with tdbf.open("seen.tdbf", window="10m") as f:    # loaded, saved at the end
        ...

Contents: Filter, load, open, plan, dedup, designs, parse_duration, Error,
FullError.
"""
import contextlib
import datetime as _datetime
import os as _os

from ._tdbf import Error, Filter, FullError, __version__, designs, parse_duration, plan, simd

__all__ = ["Error", "Filter", "FullError", "dedup", "designs", "load", "open",
           "parse_duration", "plan", "__version__"]


def load(path, clock=None):
    """Load a filter saved with Filter.save(), `tdbf dedup --state` or the
    Redis module's TDBF.SCANDUMP (its chunks joined in a file).

    clock: 'wall' or 'filter', where calls without a time take it (see
    Filter.load); None guesses from the saved clock.  Raises OSError if the
    file cannot be read and tdbf.Error if it is not a valid filter
    (corrupt, truncated, another format version).
    """
    return Filter.load(path, clock)


@contextlib.contextmanager
def open(path, window=None, error=None, *, clock=None, **options):
    """`with tdbf.open(path, window, ...) as f:` -- a filter kept in a file.

    Loads `path` if it exists (clock as load()), else creates a filter with
    `window`, `error` and the keyword options of Filter (window_items,
    window_seconds, design, seed, capacity, max_memory, k, l,
    max_error_ratio).  When the file exists, the options given must
    describe it (design, window, error, seed): ValueError otherwise, rather
    than running with a filter other than the one asked for; leave them out
    to take the file as it is.  At the end of the block the filter is saved
    (atomically: a temporary file, fsync, rename) and closed.  If the block
    raises, the file is left as it was (the keys of an interrupted run are
    not recorded as seen: call f.save(path) to keep a checkpoint).
    """
    if _os.path.exists(path):
        f = Filter.load(path, clock)
        try:
            _check_describes(f, path, window, error, options)
        except BaseException:
            f.close()
            raise
    else:
        f = Filter(window, error, **options)
        if clock is not None:
            f.clock = clock
    try:
        yield f
        f.save(path)
    finally:
        f.close()


def _check_describes(f, path, window, error, options):
    # The options given, planned as Filter would build them (plan() builds
    # nothing), must match the loaded filter: design, window, error, seed.
    # What is left out is taken from the file.
    planned = {name: options[name] for name in
               ("window_items", "window_seconds", "design", "capacity")
               if options.get(name) is not None}
    window_given = window is not None or "window_items" in planned or \
        "window_seconds" in planned
    wrong = []
    if window_given or planned or error is not None:
        if not window_given:
            window = f.window_items or "%dns" % f.window_ns
            planned.setdefault("design", f.design)
        asked = plan(window, error, **planned)
        built = asked["built"]
        if asked["design"] != f.design:
            wrong.append("design %s" % asked["design"])
        if window_given and (built["window_items"], built["window_ns"]) != \
                (f.window_items, f.window_ns):
            wrong.append("window %s" % asked["window"])
        if error is not None and asked["target_error"] != f.error:
            wrong.append("error %s" % error)
    if options.get("seed") is not None and options["seed"] != f.seed:
        wrong.append("seed %s" % options["seed"])
    if wrong:
        raise ValueError("%s: holds %r, not the %s asked for (leave the options out to "
                         "use the file as it is, or remove it)" % (path, f, ", ".join(wrong)))


def dedup(iterable, window=None, error=0.01, key=None, *, time=None, design=None,
          seed=None, capacity=None, filter=None, window_items=None, window_seconds=None):
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

    window    as Filter's: an int (the last N items), a str count or
              duration ('1M', '10m'), a timedelta; or window_items=N /
              window_seconds=S.  A float is refused (count or seconds?).
    key       a function item -> key (bytes, str or buffer); default: the
              item itself.
    time      time windows: a function item -> its time (seconds as int or
              float, or a datetime; naive datetimes are UTC), to replay a
              log by its own timestamps.  It must return a time for every
              item: anything else (None included) raises TypeError naming
              the item (line) number and its start.  Without it, each item
              takes the filter's default time: the wall clock when it is
              read, or the filter's own clock if it was given times before
              (Filter.clock).
    filter    an existing Filter to use (and keep, e.g. to save it after);
              then window, error, design, seed and capacity must be left out.
    design, seed, capacity: as Filter's.

    A key that is not bytes, str or a buffer raises TypeError naming the
    item (line) number, as does a time out of range (ValueError).
    """
    windows = (window, window_items, window_seconds)
    if filter is None:
        filter = Filter(window, error, window_items=window_items,
                        window_seconds=window_seconds, design=design, seed=seed,
                        capacity=capacity)
    elif any(w is not None for w in windows) or design is not None or seed is not None or \
            capacity is not None:
        raise ValueError("filter: give a filter or the parameters of a new one, not both")
    if time is not None and not filter.time_window:
        raise ValueError("time: applies to time windows; this filter counts items")
    return _dedup(iterable, filter, key, time)


_TIMES = (int, float, _datetime.datetime)


def _dedup(iterable, f, key, time):
    # A separate generator, so that dedup() checks its arguments at once.
    # One loop per case: a per-item test of key and time would slow the
    # plain loop down.
    add = f.add
    if key is None and time is None:
        for number, item in enumerate(iterable, 1):
            try:
                new = add(item)
            except (TypeError, ValueError) as exc:
                raise _at_item(exc, number, item) from exc
            if new:
                yield item
        return
    if time is None:
        for number, item in enumerate(iterable, 1):
            try:
                new = add(key(item))
            except (TypeError, ValueError) as exc:
                raise _at_item(exc, number, item) from exc
            if new:
                yield item
        return
    for number, item in enumerate(iterable, 1):
        when = time(item)
        if when.__class__ not in _TIMES and (isinstance(when, bool) or
                                             not isinstance(when, _TIMES)):
            raise TypeError("time: returned %r for item %d (%s): expected seconds (int "
                            "or float) or a datetime" % (when, number, _start(item)))
        try:
            new = add(item if key is None else key(item), when)
        except (TypeError, ValueError) as exc:
            raise _at_item(exc, number, item) from exc
        if new:
            yield item


def _start(item, width=40):
    # The first characters of an item (a line), to find it in the input.
    text = item if isinstance(item, (str, bytes)) else repr(item)
    text = text.rstrip("\r\n" if isinstance(text, str) else b"\r\n")
    return repr(text[:width]) + ("..." if len(text) > width else "")


def _at_item(exc, number, item):
    return type(exc)("item %d (%s): %s" % (number, _start(item), exc))
