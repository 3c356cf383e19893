"""Every error the package raises, and no crash whatever the input:
ValueError naming the parameter and its range, TypeError for keys, OSError
for I/O, tdbf.Error for corrupt or mismatched data."""
import datetime
import random

import pytest

import tdbf


@pytest.mark.parametrize("kwargs, words", [
    (dict(window=0), ["window: '0' is not a positive integer"]),
    (dict(window=-5), ["window: '-5' is neither a count", "nor a duration"]),
    (dict(window=2**64), ["window: '18446744073709551616' is too large"]),
    (dict(window="0"), ["window: '0' is not a positive integer"]),
    (dict(window_seconds=0.0), ["window_seconds", "out of range"]),
    (dict(window_seconds=float("nan")), ["window_seconds", "out of range"]),
    (dict(window_seconds=-1.5), ["window_seconds", "out of range"]),
    (dict(window_seconds=1e300), ["window_seconds", "out of range"]),
    (dict(window_seconds=0), ["window_seconds", "out of range"]),
    (dict(window_items=0), ["window_items: '0' is not a positive integer"]),
    (dict(), ["window", "required", "window_items", "window_seconds"]),
    (dict(window=None), ["window", "required"]),
    (dict(window=10, window_items=10), ["window_items", "one of them"]),
    (dict(window="10m", window_seconds=600), ["window_seconds", "one of them"]),
    (dict(window="10x"), ["window: '10x' is neither a count", "nor a duration"]),
    (dict(window="m"), ["window", "neither"]),
    (dict(window="1.2.3s"), ["window", "neither"]),
    (dict(window=" 2d "), ["window", "neither"]),
    (dict(window="0s"), ["window", "out of range"]),
    (dict(window="999999999d"), ["window", "out of range"]),
    (dict(window=datetime.timedelta(0)), ["window", "out of range"]),
    (dict(window=datetime.timedelta(days=-1)), ["window", "out of range"]),
    (dict(window=datetime.timedelta(days=300000)), ["window", "out of range"]),
    (dict(window=100, error=0), ["error", "strictly between 0"]),
    (dict(window=100, error=1), ["error", "strictly between 0"]),
    (dict(window=100, error=float("nan")), ["error: 'nan'", "strictly between 0 and 1"]),
    (dict(window=100, error="2%%"), ["error"]),
    (dict(window=100, error="150%"), ["error", "strictly between 0 and 1"]),
    (dict(window=100, error=-0.1), ["error"]),
    (dict(window=100, design="nope"), ["design", "unknown design", "apbf-line"]),
    (dict(window=100, seed=0), ["seed: 0", "leave the seed out"]),
    (dict(window=100, seed=2**64), ["seed: '18446744073709551616' is too large"]),
    (dict(window=100, seed=-1), ["seed: '-1' is not a count"]),
    (dict(window=100, capacity=10), ["capacity: capacity applies to a time window"]),
    (dict(window=100, capacity="1k"), ["capacity: capacity applies to a time window"]),
    (dict(window="1m", capacity=0), ["capacity: '0' is not a positive integer"]),
    (dict(window=100, max_memory="12 parsecs"), ["max_memory: '12 parsecs'"]),
    (dict(window=100, k=3), ["k, l", "both"]),
    (dict(window=100, design="apbf", k=65, l=3), ["k", "1 .. 64"]),
    (dict(window=100, design="apbf", k=3, l=513), ["l", "1 .. 512"]),
    (dict(window="10m", design="apbf"), ["window", "no time window", "count"]),
    (dict(window=1000, design="tlbf"), ["window", "no count window", "duration"]),
    (dict(window=10**12, max_memory=10**6), ["max_memory", "1000000 bytes"]),
    (dict(window=10**6, error=1e-300, design="apbf"), ["error", "no shape", "apbf"]),
])
def test_bad_parameters_raise_value_error(kwargs, words):
    with pytest.raises(ValueError) as info:
        tdbf.Filter(**kwargs)
    for word in words:
        assert word in str(info.value), (kwargs, str(info.value))


@pytest.mark.parametrize("kwargs", [
    dict(window=1e6), dict(window=1000.0), dict(window_items=1000.0),
    dict(window_items="1000"), dict(window_seconds="10m"), dict(window=[1]), dict(window=True), dict(window=b"10m"),
    dict(window=100, error=b"0.01"), dict(window=100, design=3), dict(window=100, seed=1.5),
    dict(window=100, capacity=1e3), dict(window=100, max_memory=1e9),
    dict(window=100, k="3", l=3),
])
def test_wrong_parameter_types_raise_type_error(kwargs):
    with pytest.raises(TypeError):
        tdbf.Filter(**kwargs)


def test_bad_times_raise_value_or_type_error():
    t = tdbf.Filter("1s", 0.01)
    for now, error in [(-1, ValueError), (-0.5, ValueError), (float("inf"), ValueError),
                       (2**64, ValueError), ("now", TypeError), ([], TypeError)]:
        with pytest.raises(error, match="now"):
            t.add("k", now=now)
    with pytest.raises(ValueError, match="now_ns"):
        t.add("k", now_ns=-1)
    with pytest.raises(ValueError, match="now_ns"):
        t.contains("k", now_ns=2**64)
    with pytest.raises(TypeError, match="now_ns"):
        t.contains("k", now_ns=1.5)
    with pytest.raises(ValueError, match="not both"):
        t.add("k", 1.0, now_ns=1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        t.add("k", when=1)
    with pytest.raises(TypeError, match="repeated"):
        t.add("k", 1, now=2)
    with pytest.raises(TypeError):
        t.add()
    with pytest.raises(TypeError):
        t.add("k", 1, 2)


@pytest.mark.parametrize("key", [1, 1.5, None, ["a"], {"a": 1}, object(),
                                 memoryview(b"abcdef")[::2]])
def test_bad_keys_raise_type_error(key, count_filter):
    with pytest.raises(TypeError, match="key"):
        count_filter.add(key)
    with pytest.raises(TypeError, match="key"):
        count_filter.contains(key)
    with pytest.raises(TypeError, match="key"):
        key in count_filter
    with pytest.raises(TypeError, match="key"):
        count_filter.add_many([b"fine", key])
    with pytest.raises(TypeError, match="key"):
        count_filter.contains_many([key])


def test_batches_want_an_iterable_of_keys(count_filter):
    for keys in ["abc", b"abc", bytearray(b"abc")]:
        with pytest.raises(TypeError, match="iterable of keys"):
            count_filter.add_many(keys)
    with pytest.raises(TypeError):
        count_filter.add_many(5)

    def failing():
        yield b"a"
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        count_filter.add_many(failing())
    assert b"a" in count_filter or True            # the first block may or may not run


def test_surrogates_are_not_utf8(count_filter):
    with pytest.raises(UnicodeEncodeError):
        count_filter.add("\udc80")


def test_io_errors_raise_os_error(tmp_path, count_filter):
    with pytest.raises(FileNotFoundError):
        tdbf.load(tmp_path / "missing.tdbf")
    with pytest.raises(OSError):
        count_filter.save(tmp_path / "no" / "such" / "dir" / "f.tdbf")
    with pytest.raises(OSError):
        tdbf.load(tmp_path)                          # a directory
    with pytest.raises(TypeError):
        count_filter.save(42)


def test_corrupt_data_raises_tdbf_error(tmp_path, count_filter):
    count_filter.add_many(b"k%d" % i for i in range(1000))
    data = count_filter.to_bytes()
    bad = [b"", b"tdbf", data[:-1], data[:len(data) // 2], data + b"\0",
           b"x" + data[1:], data[:20] + bytes([data[20] ^ 1]) + data[21:]]
    for blob in bad:
        with pytest.raises(tdbf.Error) as info:
            tdbf.Filter.from_bytes(blob)
        assert isinstance(info.value.code, int) and info.value.code < 0
        path = tmp_path / "bad.tdbf"
        path.write_bytes(blob)
        with pytest.raises(tdbf.Error):
            tdbf.load(path)
    assert issubclass(tdbf.Error, Exception)
    with pytest.raises(TypeError):
        tdbf.Filter.from_bytes("text is not bytes")


def test_fuzzed_bytes_never_crash(count_filter):
    small = tdbf.Filter(200, 0.01, seed=3)
    small.add_many(b"%d" % i for i in range(300))
    data = bytearray(small.to_bytes())
    rng = random.Random(19)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(2000):
        blob = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            blob[rng.randrange(len(blob))] = rng.randrange(256)
        if rng.random() < 0.2:
            blob = blob[:rng.randrange(len(blob))]
        try:
            f = tdbf.Filter.from_bytes(bytes(blob))
            f.add(b"x")
            f.contains_many([b"y", b"z"])
            outcomes["ok"] += 1
        except (tdbf.Error, ValueError, MemoryError):
            outcomes["error"] += 1
    assert outcomes["error"] > 1600              # the checksum catches nearly all


def test_unsupported_operations_raise_tdbf_error():
    t = tdbf.Filter("1m", 0.01)
    with pytest.raises(tdbf.Error, match="no inference"):
        t.posterior("k", 1000)
    f = tdbf.Filter(1000, 0.01)
    with pytest.raises(ValueError, match="universe"):
        f.posterior("k", 0)
    with pytest.raises(ValueError, match="model"):
        f.posterior("k", 1000, model="gauss")


def test_unopened_filter_raises_value_error():
    f = tdbf.Filter.__new__(tdbf.Filter)
    assert "not open" in repr(f)
    for call in [lambda: f.add("k"), lambda: f.contains("k"), lambda: "k" in f,
                 lambda: f.add_many(["k"]), lambda: f.stats(), lambda: f.to_bytes(),
                 lambda: f.design, lambda: f.advance(now=1)]:
        with pytest.raises(ValueError, match="not open"):
            call()


def test_plan_errors():
    with pytest.raises(ValueError, match="window"):
        tdbf.plan(0)
    with pytest.raises(ValueError, match="no time window"):
        tdbf.plan("1m", design="apbf")
    with pytest.raises(ValueError, match="error"):
        tdbf.plan(100, 2.0)
    with pytest.raises(ValueError, match="capacity"):
        tdbf.plan(100, capacity=5)
    with pytest.raises(ValueError, match="design"):
        tdbf.plan(100, design="bogus")


# ---- past the error bound: refused, never silent ----------------------------

@pytest.mark.parametrize("design, window", [("bloom", 100), ("clock", "10m"),
                                            ("rotating", "10m")])
def test_a_full_fixed_size_filter_refuses_adds(design, window):
    f = tdbf.Filter(window, 0.01, design=design, seed=5, capacity=None
                    if isinstance(window, int) else 100)
    added = 0
    with pytest.raises(tdbf.FullError) as caught:
        for i in range(100_000):
            f.add("key%d" % i, now=1.0)
            added += 1
    assert isinstance(caught.value, tdbf.Error)
    assert caught.value.answers is None
    assert "full" in str(caught.value) and "0.01" in str(caught.value)
    # refused past what it was sized for (a rotating filter spreads a burst
    # over its sub-filters first), long before it answers "present" for all
    assert 100 <= added < 1000, added
    assert f.current_error(now=1.0) > 1.5 * 0.01
    # the refused key was not added: the filter is no fuller than before
    estimate = f.current_error(now=1.0)
    with pytest.raises(tdbf.FullError):
        f.add("one more", now=1.0)
    assert f.current_error(now=1.0) == estimate


def test_add_many_refuses_by_block_and_keeps_the_answers():
    f = tdbf.Filter(3000, 0.01, design="bloom", seed=6)
    with pytest.raises(tdbf.FullError) as caught:
        f.add_many("k%d" % i for i in range(100_000))
    answers = caught.value.answers
    # whole blocks of 1024 went in until the estimate passed 1.5x
    assert len(answers) % 1024 == 0 and 3000 <= len(answers) <= 5 * 1024
    assert sum(answers) > 0.9 * len(answers)


def test_max_error_ratio_can_be_changed_or_turned_off():
    f = tdbf.Filter(50, 0.01, design="bloom", seed=7, max_error_ratio=2.0)
    assert f.max_error_ratio == 2.0
    with pytest.raises(tdbf.FullError):
        f.add_many("k%d" % i for i in range(5000))
    f.max_error_ratio = 0
    assert len(f.add_many("x%d" % i for i in range(5000))) == 5000
    with pytest.raises(ValueError):
        f.max_error_ratio = 0.5
    with pytest.raises(ValueError):
        tdbf.Filter(50, design="bloom", max_error_ratio=float("nan"))


def test_default_designs_never_refuse_a_burst():
    # the growing designs take a burst of 300 000 keys at one time, and the
    # time default keeps its error promise through it: a key answered "not
    # new" is a false positive (all keys are distinct), at most 1 % of them
    # plus 5 sigma of binomial noise
    n = 300_000
    f = tdbf.Filter("10m", 0.01, seed=8)
    dropped = n - sum(f.add_many(("b%d" % i for i in range(n)), now=1.0))
    assert dropped <= n * 0.01 + 5 * (n * 0.01) ** 0.5, dropped
    g = tdbf.Filter(10_000, 0.01, seed=9)
    g.add_many("c%d" % i for i in range(300_000))
