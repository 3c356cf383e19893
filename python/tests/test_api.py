"""The API's shape: constructors, windows of every spelling, key types,
attributes, stats, plan for every design, help texts, subclassing."""
import copy
import datetime
import inspect
import pickle
import pydoc
import weakref

import pytest

import tdbf


def test_add_is_test_and_set():
    f = tdbf.Filter(window=1_000_000, error=0.01, seed=42)
    assert f.add(b"a") is True
    assert f.add(b"a") is False
    assert f.contains(b"a") is True and (b"a" in f) is True
    assert f.contains(b"never") is False and (b"never" in f) is False


def test_key_types_hash_alike():
    f = tdbf.Filter(1000, 0.001, seed=1)
    f.add("héllo")
    for same in ["héllo", "héllo".encode(), bytearray("héllo".encode()),
                 memoryview("héllo".encode()), memoryview(b"xx" + "héllo".encode())[2:]]:
        assert same in f
    assert f.add(b"") and not f.add("") and b"" in f          # empty keys are keys
    assert f.add(b"a\0b") and b"a\0b" in f and b"a" not in f   # NUL bytes too
    import array
    assert f.add(array.array("I", [1, 2, 3]))
    assert array.array("I", [1, 2, 3]) in f


@pytest.mark.parametrize("window, time_window, seconds", [
    (1000, False, None), ("10m", True, 600.0), ("1h30m", True, 5400.0),
    ("250ms", True, 0.25), ("1.5s", True, 1.5), ("2d", True, 172800.0),
    ("1000", False, None), ("1e6", False, None), ("1M", False, None), ("64Ki", False, None),
    (datetime.timedelta(minutes=2, microseconds=5), True, 120.000005),
])
def test_window_spellings(window, time_window, seconds):
    f = tdbf.Filter(window, 0.01)
    assert f.time_window is time_window
    if time_window:
        assert f.design == "tlbf-line"
        assert f.window == pytest.approx(seconds)
        assert f.stats()["window_ns"] == round(seconds * 1e9)
    else:
        asked = window if isinstance(window, int) else \
            {"1000": 1000, "1e6": 10**6, "1M": 10**6, "64Ki": 65536}[window]
        assert f.design == "apbf-line" and f.window_items >= asked
        assert repr(f).startswith("tdbf.Filter(window=%d" % asked)


@pytest.mark.parametrize("kwargs, items, ns", [
    (dict(window_items=1000), 1000, 0), (dict(window_seconds=90), 0, 90 * 10**9),
    (dict(window_seconds=1.5), 0, 1_500_000_000), (dict(window_seconds=0.25), 0, 250_000_000),
])
def test_window_keywords(kwargs, items, ns):
    f = tdbf.Filter(**kwargs)
    assert f.window_ns == ns and (f.window_items >= items if items else f.window_items == 0)
    assert tdbf.plan(**kwargs)["window_ns"] == ns


@pytest.mark.parametrize("call", [
    lambda w: tdbf.Filter(w), lambda w: tdbf.Filter(window=w), lambda w: tdbf.plan(w),
    lambda w: tdbf.dedup([], w),
])
def test_a_float_window_is_refused_with_both_spellings(call):
    # tdbf.Filter(1e6) used to build an 11.6-day time window
    for window in [1e6, 1000.0]:
        with pytest.raises(TypeError) as info:
            call(window)
        message = str(info.value)
        assert "window_items=" in message and "window_seconds=" in message
        assert "'10m'" in message


def test_parse_duration():
    assert tdbf.parse_duration("10m") == 600.0
    assert tdbf.parse_duration("1h30m15s") == 5415.0
    assert tdbf.parse_duration("1us") == 1e-6
    assert tdbf.parse_duration("3ns") == pytest.approx(3e-9)
    assert tdbf.parse_duration("1e3s") == 1000.0        # the library's language
    for bad in ["", "5", "5 m", "-5s", "5mm", "s5"]:
        with pytest.raises(ValueError):
            tdbf.parse_duration(bad)


def test_attributes_and_repr():
    f = tdbf.Filter(5000, 0.001, design="apbf_line", seed=9)
    assert (f.design, f.error, f.seed, f.time_window) == ("apbf-line", 0.001, 9, False)
    # the request and the window built, and why they differ
    assert repr(f) == ("tdbf.Filter(window=5000 (built 5004: 12 generations of 417 adds), "
                       "error=0.001, design='apbf-line')")
    assert (f.window, f.window_items, f.window_ns) == (5004, 5004, 0)
    assert repr(tdbf.Filter(5004, 0.001, seed=9)) == \
        "tdbf.Filter(window=5004, error=0.001, design='apbf-line')"
    t = tdbf.Filter("1h30m", design="TLBF-LINE")
    assert repr(t) == "tdbf.Filter(window='1h30m', error=0.01, design='tlbf-line')"
    assert (t.window, t.window_items, t.window_ns) == (5400.0, 0, 5400 * 10**9)
    assert "'1s500ms'" in repr(tdbf.Filter(window_seconds=1.5))
    loaded = tdbf.Filter.from_bytes(f.to_bytes())
    assert repr(loaded) == "tdbf.Filter(window=5004, error=0.001, design='apbf-line')"
    assert tdbf.Filter(10).seed != 0                        # random, read back


def test_stats_has_the_documented_fields():
    f = tdbf.Filter(10_000, 0.01, design="apbf", seed=3)
    f.add_many(b"%d" % i for i in range(500))
    st = f.stats()
    for field in ["design", "k", "l", "memory_bytes", "bits_per_item", "error_planned",
                  "error_estimated", "error_configured", "window", "window_items",
                  "window_ns", "items", "seed", "generation_size", "simd"]:
        assert field in st
    assert st["design"] == "apbf" and st["items"] == 500 and st["seed"] == 3
    assert st["window"] >= 10_000 and 0 < st["error_planned"] <= 0.01
    assert st["memory_bytes"] * 8 == pytest.approx(st["bits_per_item"] * st["window"], rel=0.05)
    assert 0.0 <= f.current_error() <= 0.01


@pytest.mark.parametrize("design", tdbf.designs())
def test_every_design_opens_and_plans(design):
    time_only = {"tlbf", "tlbf-line", "clock"}
    window = "30s" if design in time_only else 5000
    p = tdbf.plan(window, 0.01, design)
    assert p["design"] == design and p["target_error"] == 0.01
    assert p["bytes"] > 0 and p["fp"] >= 0
    f = tdbf.Filter(window, 0.01, design=design, seed=5)
    assert f.design == design
    assert f.add(b"k", now=1.0)
    assert f.contains(b"k", now=1.0) and f.contains_many([b"k"], now=1.0) == [True]


def test_plan_matches_what_filter_builds():
    p = tdbf.plan(1_000_000, 0.01)
    st = tdbf.Filter(1_000_000, 0.01).stats()
    assert p["design"] == st["design"] == "apbf-line"
    assert (p["k"], p["l"], p["window"]) == (st["k"], st["l"], st["window_items"])
    assert p["fp"] == pytest.approx(st["error_planned"])
    # "built" is what Filter builds, for every design and kind of window
    for design in tdbf.designs():
        for window in ["10m", 10**5]:
            try:
                st = tdbf.Filter(window, 0.01, design=design).stats()
            except ValueError:
                continue                            # not this kind of window
            built = tdbf.plan(window, 0.01, design)["built"]
            want = {key: st[key] for key in ("k", "l", "window_items", "window_ns")}
            assert built == want, (design, window)
    apbf = tdbf.plan(1_000_000, 0.001, "apbf")
    assert apbf["fp"] <= 0.001 and len(apbf["alternatives"]) > 0
    assert apbf["requested_window"] == 1_000_000
    assert all(alt["k"] != apbf["k"] for alt in apbf["alternatives"])
    timed = tdbf.plan("10m", 0.01)
    assert timed["design"] == "tlbf-line" and timed["window"] == 600.0
    assert timed["window_ns"] == 600 * 10**9
    ring = tdbf.plan("10m", 0.01, "tlbf-line", capacity=10_000)
    assert ring["capacity"] == 10_000 and ring["generation_ns"] * ring["l"] >= 600 * 10**9
    blocked = tdbf.plan(10**5, 0.01, "apbbf", block_bits=64)
    assert blocked["block_bits"] == 64


def test_plan_sqf_is_the_least_memory_count_design():
    sqf = tdbf.plan(1_000_000, 0.01, "sqf")
    st = tdbf.Filter(1_000_000, 0.01, design="sqf", seed=36).stats()
    assert (sqf["k"], sqf["l"], sqf["window"]) == (st["k"], st["l"], st["window_items"]) == \
        (1, 7, 7 * sqf["g"])
    assert sqf["g"] == st["generation_size"] and sqf["unit_bits"] == st["slice_bits"]
    assert sqf["bytes"] == st["memory_bytes"] and sqf["fp"] == pytest.approx(st["error_planned"])
    assert 0 < sqf["fp"] <= 0.01
    # block_bits forces the bin (cfg.unit_bits); the planner's is the smaller
    forced = {bits: tdbf.plan(1_000_000, 0.01, "sqf", block_bits=bits) for bits in (512, 1024)}
    assert [forced[bits]["unit_bits"] for bits in (512, 1024)] == [512, 1024]
    assert sqf["bytes"] == min(p["bytes"] for p in forced.values())
    with pytest.raises(ValueError):
        tdbf.plan(1_000_000, 0.01, "sqf", block_bits=64)
    # apbf-line, the default and the fastest, names it as the least memory
    line = tdbf.plan(1_000_000, 0.01)
    assert line["design"] == "apbf-line" and line["least_memory"]["design"] == "sqf"
    assert {key: line["least_memory"][key] for key in ("unit_bits", "g", "bytes", "fp")} == \
        {key: sqf[key] for key in ("unit_bits", "g", "bytes", "fp")}
    assert line["least_memory"]["bits_per_item"] < line["bits_per_item"]


def test_plan_sqf_over_a_time_window():
    sqf = tdbf.plan("1m", 0.001, "sqf", capacity=10**6)
    assert (sqf["design"], sqf["k"], sqf["l"], sqf["capacity"]) == ("sqf", 1, 7, 10**6)
    assert sqf["generation_ns"] == -(-60 * 10**9 // 7) and 0 < sqf["fp"] <= 0.001
    st = tdbf.Filter("1m", 0.001, design="sqf", capacity=10**6, seed=36).stats()
    assert sqf["bytes"] == st["memory_bytes"]
    assert sqf["bits_per_item"] == pytest.approx(8 * sqf["bytes"] / 10**6)
    ring = tdbf.plan("1m", 0.001, "tlbf-line", capacity=10**6)
    assert ring["least_memory"]["design"] == "sqf"
    assert ring["least_memory"]["bytes"] == sqf["bytes"] < ring["bytes"]


def test_help_reads_like_the_header():
    text = pydoc.render_doc(tdbf.Filter, renderer=pydoc.plaintext)
    for phrase in ["no false negatives", "Test and insert", "window", "now_ns",
                   "Thread safety", "GIL"]:
        assert phrase in text
    assert str(inspect.signature(tdbf.Filter.add)) == "(self, key, /, now=None, *, now_ns=None)"
    assert "window" in str(inspect.signature(tdbf.Filter))
    assert tdbf.dedup.__doc__ and tdbf.load.__doc__ and tdbf.plan.__doc__


class Tagged(tdbf.Filter):
    """A user subclass: keeps its class through pickling."""


def test_subclasses_round_trip():
    f = Tagged(100, 0.01, seed=2)
    f.add("x")
    f.label = "clicks"
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        g = pickle.loads(pickle.dumps(f, protocol))
        assert type(g) is Tagged and "x" in g and g.label == "clicks"
    assert copy.deepcopy(f).label == "clicks"
    assert type(Tagged.from_bytes(f.to_bytes())) is Tagged
    plain = tdbf.Filter(100, seed=2)
    assert pickle.loads(pickle.dumps(plain, 0)).seed == 2
    ref = weakref.ref(plain)
    assert ref() is plain
    del plain
    assert ref() is None


def test_posterior_and_expected_age():
    f = tdbf.Filter(10_000, 0.01, design="apbf", seed=8)
    for i in range(20_000):
        f.add(b"%d" % i)
    recent = f.posterior(b"19999", universe=10**6)
    assert 0.9 < recent <= 1.0
    assert f.posterior(b"never added", universe=10**6) == 0.0 or \
        f.contains(b"never added")
    assert f.expected_age(b"19990", 10**6) < f.expected_age(b"12000", 10**6)
    assert 0 <= f.posterior(b"5", 10**6, model="power_law", key_probability=1e-6) <= 1


def test_stubs_match_the_module():
    import ast
    import os
    stub = os.path.join(os.path.dirname(tdbf.__file__), "__init__.pyi")
    tree = ast.parse(open(stub).read())
    names = {node.name for node in tree.body
             if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert set(tdbf.__all__) - {"__version__"} <= names
    methods = {node.name for cls in tree.body if isinstance(cls, ast.ClassDef)
               and cls.name == "Filter" for node in cls.body
               if isinstance(node, ast.FunctionDef)}
    public = {name for name in dir(tdbf.Filter) if not name.startswith("_")}
    dunders = {"__init__", "__contains__", "__copy__", "__deepcopy__", "__enter__",
               "__exit__", "__sizeof__"}
    assert public == methods - dunders
    assert dunders <= methods
    # the stub's constructor takes the keywords the type's signature lists
    init = next(node for cls in tree.body if isinstance(cls, ast.ClassDef)
                and cls.name == "Filter" for node in cls.body
                if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    stub_params = [a.arg for a in init.args.args[1:] + init.args.kwonlyargs]
    assert stub_params == list(inspect.signature(tdbf.Filter).parameters)
    assert os.path.exists(os.path.join(os.path.dirname(tdbf.__file__), "py.typed"))


def test_copy_and_clear():
    f = tdbf.Filter(1000, 0.01, seed=4)
    f.add_many([b"a", b"b"])
    twin = f.copy()
    assert type(twin) is tdbf.Filter and twin.to_bytes() == f.to_bytes()
    twin.add(b"c")
    assert b"c" in twin and b"c" not in f            # independent
    f.clear()
    assert b"a" not in f and f.stats()["items"] == 0 and f.seed == 4
    assert f.add(b"a")
    with pytest.raises(tdbf.Error, match="open a new"):
        tdbf.Filter.from_bytes(f.to_bytes()).clear()  # a loaded one has no config
    t = tdbf.Filter("1m", seed=5)
    t.add(b"x", now=100.0)
    t.clear()
    assert not t.contains(b"x", now=100.0) and t.stats()["now_ns"] == 100 * 10**9
    assert type(Tagged(10).copy()) is Tagged
