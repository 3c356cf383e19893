"""tdbf.dedup: the generator over an iterable, count and time windows,
keys and times taken from the items, and a log file replayed."""
import datetime

import pytest

import tdbf
from conftest import ExactCountWindow, repeating_stream


def test_dedup_count_window_matches_exact_windows():
    items = repeating_stream(20_000, 5000, seed=41)
    f = tdbf.Filter(1000, 0.001, seed=5)
    got = list(tdbf.dedup(items, filter=f))
    # No repeat inside the window passes: what dedup keeps, in order, is a
    # subsequence of what the exact window keeps.
    exact = ExactCountWindow(1000)
    want = iter([k for k in items if not exact.add(k)])
    assert all(any(item == candidate for candidate in want) for item in got)
    # What it drops beyond that: keys within the design's slack, (k+l+1)
    # generations, and false positives.
    st = f.stats()
    exact_slack = ExactCountWindow((st["k"] + st["l"] + 1) * st["generation_size"])
    fewest = sum(1 for k in items if not exact_slack.add(k))
    assert fewest - 0.002 * len(items) <= len(got)


def test_dedup_is_lazy_and_takes_a_key_function():
    seen = []

    def source():
        for i in range(10):
            seen.append(i)
            yield {"id": i % 3, "n": i}
    out = tdbf.dedup(source(), window=100, key=lambda item: str(item["id"]), seed=1)
    assert seen == []                       # nothing read before asked
    assert next(out) == {"id": 0, "n": 0}
    assert seen == [0]
    assert [item["n"] for item in out] == [1, 2]


def test_dedup_time_window_with_item_times():
    log = [(0.0, "a"), (1.0, "b"), (5.0, "a"), (12.0, "a"), (13.0, "b"), (40.0, "a")]
    out = tdbf.dedup(log, window="10s", key=lambda e: e[1], time=lambda e: e[0], seed=2)
    # a at 5 is within 10 s of a at 0; a at 12 within 10 s of a at 5 (re-adding
    # refreshes); b at 13 is 12 s after b at 1; a at 40 long after
    assert [t for t, _ in out] == [0.0, 1.0, 13.0, 40.0]


def test_dedup_keeps_state_in_a_given_filter(tmp_path):
    f = tdbf.Filter(1000, 0.01, seed=3)
    assert list(tdbf.dedup(["x", "y", "x"], filter=f)) == ["x", "y"]
    f.save(tmp_path / "seen.tdbf")
    again = tdbf.load(tmp_path / "seen.tdbf")
    assert list(tdbf.dedup(["y", "z"], filter=again)) == ["z"]


def test_dedup_replays_a_log_file(tmp_path):
    log = tmp_path / "app.log"
    start = datetime.datetime(2024, 5, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)
    lines = []
    for i in range(600):                    # one line a second, 20 users
        stamp = (start + datetime.timedelta(seconds=i)).isoformat()
        lines.append("%s user=%d GET /\n" % (stamp, i % 20))
    log.write_text("".join(lines))
    with open(log) as handle:
        fresh = list(tdbf.dedup(
            handle, window="1m", seed=4,
            key=lambda line: line.split()[1],
            time=lambda line: datetime.datetime.fromisoformat(line.split()[0])))
    # each user returns every 20 s, inside the minute: seen once only
    assert len(fresh) == 20


def test_dedup_argument_errors():
    with pytest.raises(ValueError, match="window"):
        tdbf.dedup([1])
    with pytest.raises(ValueError, match="not both"):
        tdbf.dedup([], window=10, filter=tdbf.Filter(10))
    with pytest.raises(ValueError, match="time windows"):
        tdbf.dedup([], window=10, time=lambda x: 0)
    with pytest.raises(TypeError, match="key"):
        list(tdbf.dedup([1, 2], window=10))


def test_a_time_function_returning_no_time_names_the_line():
    # 31 lines, one without a timestamp: it used to switch that line, and
    # the filter with it, to the wall clock (9 of 31 kept instead of 31)
    lines = ["2024-05-01T12:%02d:00 user=%d GET /" % (i, i) for i in range(31)]
    lines[17] = "garbage without a time, and long enough to be cut short " * 2

    def stamp(line):
        try:
            return datetime.datetime.fromisoformat(line.split()[0])
        except ValueError:
            return None
    out = tdbf.dedup(lines, window="10m", key=lambda line: line.split()[1], time=stamp,
                     seed=3)
    with pytest.raises(TypeError) as info:
        list(out)
    message = str(info.value)
    assert "item 18" in message and "None" in message
    assert "'garbage without a time" in message and "..." in message
    assert len(message) < 300
    good = [line for i, line in enumerate(lines) if i != 17]
    assert len(list(tdbf.dedup(good, window="10m", key=lambda line: line.split()[1],
                               time=stamp, seed=3))) == 30


@pytest.mark.parametrize("bad", [None, "12:00", True, [1.0], b"5"])
def test_anything_not_a_time_is_refused(bad):
    out = tdbf.dedup(["a", "b"], window="10s", time=lambda item: 1.0 if item == "a" else bad)
    assert next(out) == "a"
    with pytest.raises(TypeError, match=r"time: returned .* for item 2 \('b'\)"):
        next(out)


def test_bad_keys_and_times_name_the_item():
    with pytest.raises(TypeError, match=r"item 3 \(\"\{'id': 3\}\"\): key: expected bytes"):
        list(tdbf.dedup([b"a", b"b", {"id": 3}], window=10))
    with pytest.raises(ValueError, match=r"item 2 \('y'\): now: .*out of range"):
        list(tdbf.dedup(["x", "y"], window="10s", time=lambda item: 1 if item == "x" else -1))


def test_naive_datetimes_are_utc_as_in_the_cli():
    lines = [("2024-05-01T12:00:00", "a"), ("2024-05-01T12:00:00+00:00", "b")]
    f = tdbf.Filter("10m", seed=4)
    list(tdbf.dedup(lines, key=lambda e: e[1],
                    time=lambda e: datetime.datetime.fromisoformat(e[0]), filter=f))
    assert f.now_ns == 1714564800 * 10**9
