"""Where a call without a time takes its time: the wall clock until the
filter is given a time, its own clock from then on; saved and loaded
filters; datetimes (naive ones are UTC)."""
import copy
import datetime
import pickle
import time

import pytest

import tdbf

UTC = datetime.timezone.utc


def test_explicit_times_make_queries_use_the_filter_clock():
    f = tdbf.Filter("10m", seed=1)
    assert f.clock == "wall"
    f.add("k", now=5.0)
    # the wall clock is ~1.7e9 s: read there, "k" (added at 5 s) would be
    # long expired
    assert f.clock == "filter" and f.now_ns == 5 * 10**9
    assert "k" in f and f.contains("k") and f.contains_many(["k"]) == [True]
    assert f.current_error() == f.current_error(now=5.0)
    assert not f.add("k")                       # at 5 s too: a repeat
    f.advance(now=5.0 + 10 * 600)
    assert "k" not in f                         # the filter's clock moved past it


def test_any_call_given_a_time_switches_the_clock():
    for call in [lambda f: f.contains("x", now=1.0), lambda f: f.advance(now_ns=1),
                 lambda f: f.add_many(["x"], now=1), lambda f: f.current_error(now=1.0),
                 lambda f: f.contains_many(["x"], now_ns=1)]:
        f = tdbf.Filter("1m", seed=2)
        call(f)
        assert f.clock == "filter"


def test_a_filter_never_given_a_time_reads_the_wall_clock():
    f = tdbf.Filter("10m", seed=3)
    before = time.time_ns()
    f.add("k")
    assert f.clock == "wall" and before <= f.now_ns <= time.time_ns()
    assert "k" in f
    # a query an hour ahead (explicit) does not move the clock, but makes
    # later calls use the filter's own clock
    assert not f.contains("k", now=time.time() + 3600)
    assert f.clock == "filter" and "k" in f


def test_clock_is_writable_and_checked():
    f = tdbf.Filter("10m", seed=4)
    f.add("k", now=5.0)
    f.clock = "wall"
    assert "k" not in f                         # at today's date: expired
    f.clock = "filter"
    assert "k" in f
    with pytest.raises(ValueError, match="clock.*'wall'.*'filter'"):
        f.clock = "monotonic"
    with pytest.raises(AttributeError):
        del f.clock


def test_count_windows_never_read_a_clock():
    f = tdbf.Filter(100, seed=5)
    f.add("k")
    assert f.now_ns == 0 and "k" in f


@pytest.mark.parametrize("make", [
    lambda f: tdbf.Filter.from_bytes(f.to_bytes()),
    lambda f: pickle.loads(pickle.dumps(f)),
    lambda f: copy.copy(f), lambda f: copy.deepcopy(f), lambda f: f.copy(),
])
def test_copies_and_pickles_keep_the_clock(make):
    f = tdbf.Filter("10m", seed=6)
    f.add("k", now=5.0)
    g = make(f)
    assert g.clock == "filter" and g.now_ns == 5 * 10**9 and "k" in g


def test_load_guesses_the_clock_from_the_saved_one(tmp_path):
    path = str(tmp_path / "f.tdbf")
    simulated = tdbf.Filter("10m", seed=7)
    simulated.add("k", now=5.0)
    simulated.save(path)
    loaded = tdbf.load(path)
    assert loaded.clock == "filter" and "k" in loaded          # far from the wall clock

    live = tdbf.Filter("10m", seed=7)
    live.add("k")
    live.save(path)
    loaded = tdbf.load(path)
    assert loaded.clock == "wall" and "k" in loaded            # a wall-clock filter
    assert tdbf.load(path, clock="filter").clock == "filter"
    assert tdbf.Filter.load(path, clock="wall").clock == "wall"

    future = tdbf.Filter("10m", seed=7)
    future.add("k", now=time.time() + 86400 * 365)
    assert tdbf.Filter.from_bytes(future.to_bytes()).clock == "filter"
    fresh = tdbf.Filter("10m", seed=7)
    assert tdbf.Filter.from_bytes(fresh.to_bytes()).clock == "wall"
    with pytest.raises(ValueError, match="clock"):
        tdbf.load(path, clock="utc")


def test_naive_datetime_is_utc():
    naive = datetime.datetime(2024, 5, 1, 12, 0, 0, 250000)
    aware = naive.replace(tzinfo=UTC)
    paris = aware.astimezone(datetime.timezone(datetime.timedelta(hours=2)))
    stamps = []
    for when in [naive, aware, paris]:
        f = tdbf.Filter("10m", seed=8)
        f.add("k", now=when)
        stamps.append(f.now_ns)
    expected = (int(aware.replace(microsecond=0).timestamp()) * 10**9 + 250_000_000)
    assert stamps == [expected] * 3
    # exact to the microsecond, where a float of seconds would round
    f = tdbf.Filter("10m", seed=8)
    f.add("k", now=datetime.datetime(2262, 1, 1, 0, 0, 0, 999999))
    assert f.now_ns % 10**9 == 999_999_000


def test_datetime_out_of_range():
    f = tdbf.Filter("10m", seed=9)
    for when in [datetime.datetime(1969, 12, 31, 23, 59, 59), datetime.datetime(9999, 1, 1),
                 datetime.datetime(1970, 1, 1, 0, 30, tzinfo=datetime.timezone(
                     datetime.timedelta(hours=1)))]:
        with pytest.raises(ValueError, match="now.*1970"):
            f.add("k", now=when)
