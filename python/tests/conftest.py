"""Shared helpers of the tdbf package tests: exact windows to compare
against, and deterministic key streams."""
import random

import pytest

import tdbf


class ExactCountWindow:
    """The last `window` insertions, exactly: a key is in the window while
    at most `window` adds (its own included) have happened since its latest
    add -- the guarantee libtdbf's count designs give."""

    def __init__(self, window):
        self.window = window
        self.last = {}
        self.adds = 0

    def contains(self, key):
        at = self.last.get(key)
        return at is not None and self.adds - at <= self.window

    def add(self, key):
        present = self.contains(key)
        self.last[key] = self.adds
        self.adds += 1
        return present


class ExactTimeWindow:
    """Keys added at t are in the window at `now` while now - t < window_ns."""

    def __init__(self, window_ns):
        self.window_ns = window_ns
        self.last = {}

    def contains(self, key, now_ns):
        at = self.last.get(key)
        return at is not None and now_ns - at < self.window_ns

    def add(self, key, now_ns):
        present = self.contains(key, now_ns)
        self.last[key] = max(now_ns, self.last.get(key, 0))
        return present


def repeating_stream(n, universe, seed):
    """n keys drawn from `universe` distinct ones, many repeats."""
    rng = random.Random(seed)
    return [b"key:%d" % rng.randrange(universe) for _ in range(n)]


def fp_band(planned, probes, z=3.29):
    """The most a measured FP may exceed the planned worst case: a 99.9 %
    binomial band plus 10 % for the model (as the C suite allows)."""
    return planned + z * (planned * (1 - planned) / probes) ** 0.5 + 0.10 * planned


@pytest.fixture
def count_filter():
    return tdbf.Filter(10_000, 0.01, seed=7)
