"""Every filter option takes a str in the parameter language the CLI and
the Redis module read (the library's tdbf_config_set), and reads back what
was built."""
import datetime

import pytest

import tdbf


@pytest.mark.parametrize("text, native", [
    (dict(window="1M"), dict(window=1_000_000)),
    (dict(window="1e6"), dict(window_items=1_000_000)),
    (dict(window="64Ki"), dict(window=65536)),
    (dict(window="10m"), dict(window_seconds=600)),
    (dict(window="1h30m"), dict(window=datetime.timedelta(hours=1, minutes=30))),
    (dict(window="250ms"), dict(window_seconds=0.25)),
    (dict(window="10m", error="1%"), dict(window="10m", error=0.01)),
    (dict(window="1M", error="1e-3"), dict(window=10**6, error=0.001)),
    (dict(window="10m", capacity="10k"), dict(window="10m", capacity=10_000)),
    (dict(window=1000, seed="0x2a"), dict(window=1000, seed=42)),
    (dict(window=1000, seed="1M"), dict(window=1000, seed=10**6)),
    (dict(window=1000, design="APBF_LINE"), dict(window=1000, design="apbf-line")),
    (dict(window="1M", max_memory="512M"), dict(window=10**6, max_memory=512 * 2**20)),
    (dict(window="1M", max_memory="1GB"), dict(window=10**6, max_memory=10**9)),
])
def test_str_options_build_what_native_values_build(text, native):
    a, b = tdbf.Filter(**text), tdbf.Filter(**native)
    for name in ["design", "window_items", "window_ns", "error", "capacity", "max_memory"]:
        assert getattr(a, name) == getattr(b, name), name
    if "seed" in native:
        assert a.seed == b.seed == native["seed"]


def test_built_values_read_back():
    f = tdbf.Filter(window="10m", error="0.1%", capacity="50k", seed="7", design="tlbf-line",
                    max_memory="64M")
    assert (f.design, f.window_items, f.window_ns, f.error, f.capacity, f.seed,
            f.max_memory) == ("tlbf-line", 0, 600 * 10**9, 0.001, 50_000, 7, 64 * 2**20)
    g = tdbf.Filter(window="1M", error=0.01)
    assert g.window_items >= 10**6 and g.window_ns == 0 and g.capacity is None
    assert g.max_memory == 4 * 2**30                       # the default in force
    loaded = tdbf.Filter.from_bytes(f.to_bytes())
    assert (loaded.capacity, loaded.max_memory) == (None, None)   # not in the file
    assert (loaded.window_ns, loaded.error, loaded.seed) == (f.window_ns, f.error, f.seed)


def test_a_float_error_reaches_the_library_exactly():
    # every bit: the float travels as a hex float, which the library reads exactly
    for rate in (0.0123456789012345678, 0.1 + 0.2, 1 / 3, 1e-9, 0.7):
        assert tdbf.Filter(1000, rate).error == rate


def test_plan_and_dedup_take_the_same_options():
    assert tdbf.plan("1M", "1%")["built"]["window_items"] == \
        tdbf.Filter("1M", "1%").window_items
    assert tdbf.plan(window_seconds=90, capacity="1k")["window_ns"] == 90 * 10**9
    assert list(tdbf.dedup(["a", "a", "b"], "1k", "1%", seed="3")) == ["a", "b"]
    with pytest.raises(ValueError, match="window: 'ten' is neither"):
        tdbf.plan("ten")
