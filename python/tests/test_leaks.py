"""Reference counts and memory stay flat over 10^5 calls, on success and
on error paths."""
import gc
import sys
import tracemalloc

import tdbf

CALLS = 100_000


def flat(run, slack=64 * 1024):
    """Run three times under tracemalloc; the third run must not grow the
    traced memory.  (The first two may: caches and interned strings grow
    once, a leak grows every time.)"""
    tracemalloc.start()
    try:
        run()
        run()
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        run()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert after - before < slack, "grew by %d bytes" % (after - before)


def test_single_calls_do_not_leak():
    f = tdbf.Filter(1000, 0.01, seed=31)
    t = tdbf.Filter("1m", 0.01, seed=31)
    key_bytes, key_str, key_buf = b"bytes-key", "str-key", bytearray(b"buffer-key")
    counts = [sys.getrefcount(k) for k in (key_bytes, key_str, key_buf)]

    def run():
        for i in range(CALLS // 4):
            f.add(key_bytes)
            f.contains(key_str)
            key_buf in f
            t.add(key_str, now=1.5 + i)
    flat(run)
    assert [sys.getrefcount(k) for k in (key_bytes, key_str, key_buf)] == counts


def test_batches_do_not_leak():
    f = tdbf.Filter(1000, 0.01, seed=32)
    keys = [b"k%d" % i for i in range(100)] + ["s%d" % i for i in range(100)]
    counts = [sys.getrefcount(k) for k in keys]

    def run():
        for _ in range(CALLS // 200):
            f.add_many(keys)
            f.contains_many(iter(keys))
    flat(run)
    assert [sys.getrefcount(k) for k in keys] == counts


def test_error_paths_do_not_leak():
    f = tdbf.Filter(1000, 0.01, seed=33)
    good, bad = b"good", 12345
    data = f.to_bytes()
    counts = [sys.getrefcount(o) for o in (good, data)]

    cheap = (lambda: f.add(bad), lambda: f.add_many([good, bad]),
             lambda: f.add(good, now_ns=-1), lambda: tdbf.Filter(0))

    def run():
        for i in range(CALLS // len(cheap)):
            for call in cheap:
                try:
                    call()
                except (TypeError, ValueError):
                    pass
            if i % 100 == 0:          # a load plans the filter again: ~1 ms
                try:
                    tdbf.Filter.from_bytes(data[:-1])
                except tdbf.Error:
                    pass
    flat(run)
    assert [sys.getrefcount(o) for o in (good, data)] == counts


def test_filters_and_saves_do_not_leak():
    def run():
        for i in range(150):          # opening and loading plan: ~1.5 ms each
            f = tdbf.Filter(100, 0.01, seed=i + 1)
            f.add(b"x")
            g = tdbf.Filter.from_bytes(f.to_bytes())
            g.stats()
            f.stats()
            del f, g
    flat(run)


class Tagged(tdbf.Filter):
    pass


def test_copies_options_and_clock_paths_do_not_leak():
    when = __import__("datetime").datetime(2024, 5, 1, 12, 0)
    attributes = ["tag"]
    count = sys.getrefcount(attributes)

    def run():
        for i in range(300):
            f = Tagged(window="1k", error="1%", seed=i + 1)
            f.tags = attributes
            g, h = __import__("copy").copy(f), __import__("copy").deepcopy(f)
            repr(g), sys.getsizeof(h), g.count, h.clock
            with g:
                g.add("k")
            t = tdbf.Filter(window_seconds=60, seed=i + 1)
            t.add("k", now=when)
            "k" in t
            tdbf.Filter.from_bytes(t.to_bytes(), clock="filter")
            for bad in (dict(window=1.5), dict(window="1x"), dict(window=10, seed="x")):
                try:
                    tdbf.Filter(**bad)
                except (TypeError, ValueError):
                    pass
            del f, g, h, t
    flat(run)
    assert sys.getrefcount(attributes) == count
