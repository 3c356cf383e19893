#!/usr/bin/env python3
"""De-duplicating a stream in Python: tdbf against what people write by hand.

One run, one stream: 10^6 short keys (b"k1234567", drawn with repeats from
300 000 distinct ones) and a window of the last 10^5 keys, error 0.01.

  dict window   pure Python: a dict of each key's last position, and a
                deque of keys in order to evict those that left the window
  set           `key in s; s.add(key)`: no window at all (memory only grows)
  Filter.add    one tdbf call per key
  add_many      tdbf batches of 4096 keys (the GIL released in each)

keys/s is the best of three passes; memory is measured in a separate pass
under tracemalloc (which slows Python down): the Python objects' peak, plus
for tdbf the filter's own bytes (stats()['memory_bytes'], allocated by
libtdbf outside tracemalloc's sight).  Ratios are against the dict window
of the same run.  Nothing here asserts a time: it reports.

    make bench-python        (or: PYTHONPATH=build/python python3 python/bench/bench_dedup.py)
"""
import collections
import random
import sys
import time
import tracemalloc

import tdbf

KEYS = 1_000_000
DISTINCT = 300_000
WINDOW = 100_000
ERROR = 0.01
BATCH = 4096
PASSES = 3


def dict_window(keys):
    """The exact window: new if unseen or last seen more than WINDOW keys ago."""
    last, order = {}, collections.deque()
    new = 0
    for i, key in enumerate(keys):
        seen_at = last.get(key)
        if seen_at is None or i - seen_at > WINDOW:
            new += 1
        last[key] = i
        order.append(key)
        if len(order) > WINDOW:
            old = order.popleft()
            if last[old] == i - WINDOW:        # not re-added since: it leaves
                del last[old]
    return new


def set_no_window(keys):
    seen, new = set(), 0
    for key in keys:
        if key not in seen:
            seen.add(key)
            new += 1
    return new


def make_filter():
    return tdbf.Filter(WINDOW, ERROR, seed=1)


def filter_add(keys, f):
    add, new = f.add, 0
    for key in keys:
        if add(key):
            new += 1
    return new


def filter_add_many(keys, f):
    new = 0
    for start in range(0, len(keys), BATCH):
        new += sum(f.add_many(keys[start:start + BATCH]))
    return new


CONTENDERS = [
    ("dict window (pure Python)", dict_window, None),
    ("set, no window", set_no_window, None),
    ("tdbf Filter.add", filter_add, make_filter),
    ("tdbf Filter.add_many (%d a call)" % BATCH, filter_add_many, make_filter),
]


def run(fn, factory, keys):
    f = factory() if factory else None
    args = (keys, f) if f is not None else (keys,)
    start = time.perf_counter()
    new = fn(*args)
    return time.perf_counter() - start, new, f


def peak_memory(fn, factory, keys):
    tracemalloc.start()
    try:
        f = factory() if factory else None
        fn(*((keys, f) if f is not None else (keys,)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak + (f.stats()["memory_bytes"] if f is not None else 0)


def mib(n):
    return "%.2f MiB" % (n / 2**20)


def main():
    rng = random.Random(7)
    keys = [b"k%07d" % rng.randrange(DISTINCT) for _ in range(KEYS)]
    print("tdbf %s, Python %s, SIMD path %s" % (tdbf.__version__,
                                                sys.version.split()[0], tdbf.simd))
    print("%d keys (%d distinct, %d bytes each), window %d keys, error %g\n"
          % (KEYS, DISTINCT, len(keys[0]), WINDOW, ERROR))
    rows = []
    for name, fn, factory in CONTENDERS:
        best, new = min(run(fn, factory, keys)[:2] for _ in range(PASSES))
        rows.append((name, KEYS / best, peak_memory(fn, factory, keys), new))
    base_rate, base_memory = rows[0][1], rows[0][2]
    print("%-36s %12s %8s %12s %9s %10s" % ("", "keys/s", "vs dict", "peak memory",
                                            "dict/this", "new keys"))
    for name, rate, memory, new in rows:
        print("%-36s %10.2f M %7.2fx %12s %8.1fx %10d"
              % (name, rate / 1e6, rate / base_rate, mib(memory), base_memory / memory, new))
    _, add_rate, add_memory, _ = rows[2]
    many_rate = rows[3][1]
    print("\nadd_many vs the dict window: %.1fx the keys/s (target >= 5x)" % (many_rate / base_rate))
    print("add vs the dict window: %.2fx the keys/s (target >= 1x)" % (add_rate / base_rate))
    print("dict window vs tdbf memory: %.1fx (target >= 20x)" % (base_memory / add_memory))
    print("new keys: tdbf counts a few fewer than the exact window (false positives at "
          "<= %g, and keys\njust past the window that its slack still holds); the set "
          "forgets nothing." % ERROR)


if __name__ == "__main__":
    main()
