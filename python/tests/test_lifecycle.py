"""A filter's life: copies that stay clearable, close and `with`,
tdbf.open over a file, what count and sys.getsizeof say."""
import copy
import os
import sys

import pytest

import tdbf


class Tagged(tdbf.Filter):
    pass


@pytest.mark.parametrize("make", [copy.copy, copy.deepcopy, lambda f: f.copy()])
def test_every_copy_is_independent_and_clearable(make):
    f = tdbf.Filter(1000, seed=1)
    f.add("k")
    twin = make(f)
    twin.clear()                     # copy.copy(f).clear() used to raise tdbf.Error
    assert "k" not in twin and twin.count == 0
    assert "k" in f and f.count == 1
    twin.add("only in the twin")
    assert "only in the twin" not in f
    assert (twin.seed, twin.window_items, twin.max_error_ratio) == \
        (f.seed, f.window_items, f.max_error_ratio)


def test_copies_keep_a_subclass_and_its_attributes():
    f = Tagged(100, seed=2)
    f.tags = ["a"]
    shallow, deep = copy.copy(f), copy.deepcopy(f)
    assert type(shallow) is Tagged and type(deep) is Tagged
    assert shallow.tags is f.tags
    assert deep.tags == ["a"] and deep.tags is not f.tags


def test_count_is_the_adds_since_open_or_clear(tmp_path):
    f = tdbf.Filter(100, seed=3)
    assert not hasattr(f, "__len__")          # not the keys in the window: see .count
    for i in range(150):
        f.add("k%d" % (i % 10))             # repeats count, expired adds count
    f.add_many(["x", "y", "x"])
    assert f.count == 153 == f.stats()["items"]
    path = str(tmp_path / "f.tdbf")
    f.save(path)
    assert tdbf.load(path).count == 153
    f.clear()
    assert f.count == 0 == f.stats()["items"]


def test_sizeof_counts_the_filter_memory():
    small, large = tdbf.Filter(1000, seed=4), tdbf.Filter(1_000_000, seed=4)
    assert sys.getsizeof(small) >= small.stats()["memory_bytes"] > 1000
    assert sys.getsizeof(large) >= large.stats()["memory_bytes"] > 10**6
    small.close()
    assert sys.getsizeof(small) < 1000


def test_close_and_with():
    with tdbf.Filter(1000, seed=5) as f:
        f.add("k")
        assert "k" in f
    with pytest.raises(ValueError, match="closed"):
        f.add("k")
    f.close()                                 # twice is fine
    with pytest.raises(ValueError, match="closed"):
        with f:
            pass
    g = tdbf.Filter(1000, seed=5)
    with pytest.raises(KeyError):
        with g:
            raise KeyError("not swallowed")
    with pytest.raises(ValueError):
        g.contains("k")


def test_open_creates_loads_and_saves(tmp_path):
    path = str(tmp_path / "seen.tdbf")
    with tdbf.open(path, "10m", 0.001, seed=6) as f:
        f.add("k", now=100.0)
    assert os.path.exists(path)
    with tdbf.open(path) as f:               # loaded as it was
        assert (f.window_ns, f.error, f.seed, f.count) == (600 * 10**9, 0.001, 6, 1)
        assert f.clock == "filter" and "k" in f
        f.add("k2", now=101.0)
    with tdbf.open(path, "10m", 0.001, seed=6) as f:    # options that describe it
        assert "k2" in f and f.count == 2
    assert tdbf.load(path).count == 2


def test_open_leaves_the_file_alone_when_the_block_raises(tmp_path):
    path = str(tmp_path / "seen.tdbf")
    with tdbf.open(path, 1000, seed=7) as f:
        f.add("kept")
    with pytest.raises(RuntimeError):
        with tdbf.open(path) as f:
            f.add("lost")
            raise RuntimeError("interrupted")
    with pytest.raises(ValueError):
        f.add("x")                            # closed all the same
    g = tdbf.load(path)
    assert "kept" in g and "lost" not in g and g.count == 1


@pytest.mark.parametrize("options, word", [
    (dict(window=5000), "window"), (dict(window="10m"), "window"),
    (dict(design="apbf"), "design"), (dict(error=0.05), "error"), (dict(seed=99), "seed"),
])
def test_open_refuses_options_that_do_not_describe_the_file(tmp_path, options, word):
    path = str(tmp_path / "seen.tdbf")
    with tdbf.open(path, 1000, 0.01, seed=8):
        pass
    with pytest.raises(ValueError, match=word) as info:
        with tdbf.open(path, **options):
            pass
    assert path in str(info.value)


def test_open_needs_a_window_to_create(tmp_path):
    path = str(tmp_path / "new.tdbf")
    with pytest.raises(ValueError, match="window: required"):
        with tdbf.open(path):
            pass
    assert not os.path.exists(path)


@pytest.mark.parametrize("window, design", [(5000, "apbf"), (1000, "bloom"), ("10m", "clock")])
def test_open_takes_what_is_left_out_from_the_file(tmp_path, window, design):
    path = str(tmp_path / "seen.tdbf")
    with tdbf.open(path, window, 0.01, design=design, seed=9):
        pass
    for options in [dict(error=0.01), dict(error="1%"), dict(design=design), dict(seed=9),
                    dict(window=window, design=design)]:
        with tdbf.open(path, **options) as f:
            assert f.design == design
