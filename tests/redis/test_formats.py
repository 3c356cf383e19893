"""One file format across every front, the Redis module included.

Each front saves a filter of known keys -- `tdbf dedup --state`, Python's
`Filter.save`, the module's TDBF.SCANDUMP chunks concatenated into a file
-- and each front loads it: `tdbf dedup --state` (one run per probe on a
copy), `tdbf.load`, TDBF.LOADCHUNK fed the file, and `tdbf info` (the
library's tdbf_load_file).  Every key added is found by every loader,
never-added probes get the same answers from every loader (and from the
saver's own live filter), and a time filter's clock is Unix-epoch
nanoseconds whoever saved it.  The savers and loaders other than Redis
live in python/tests/fronts.py, shared with python/tests/test_formats.py.

Needs the Python package and the tdbf binary (make test-redis builds
both and sets PYTHONPATH and TDBF_CLI); a missing one fails the test.
"""
import os
import sys
import time

import pytest
import redis

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python", "tests"))
from fronts import (CAPACITY, COUNT_WINDOW, ERROR, KEYS, PROBES, SEED,  # noqa: E402
                    TIME_WINDOW_S, CliFront, PythonFront, disagreements)

NS = 1_000_000_000
HEADER_BYTES = 56
BATCH = 200


class RedisFront:
    """TDBF.RESERVE + MADD, then SCANDUMP into a file; files come back in
    through TDBF.LOADCHUNK in small chunks counted from the file's end, so
    the chunk that ends the filter also holds the sections after it."""
    name = "redis"
    CHUNK = 700

    def __init__(self, client):
        self.r = client
        self.loads = 0
        self.live_key = None

    def save(self, timed, keys, path, design=None):
        self.live_key = "made-%s" % ("time" if timed else "count")
        shape = (["EX", TIME_WINDOW_S, "CAPACITY", CAPACITY] if timed
                 else ["WINDOW", COUNT_WINDOW])
        named = ["DESIGN", design] if design else []
        self.r.execute_command("TDBF.RESERVE", self.live_key, ERROR, *shape, *named,
                               "SEED", SEED)
        for i in range(0, len(keys), BATCH):
            self.r.execute_command("TDBF.MADD", self.live_key, *keys[i:i + BATCH])
        with open(path, "wb") as out:
            out.write(scandump(self.r, self.live_key))

    def load(self, path):
        with open(path, "rb") as fh:
            data = fh.read()
        self.loads += 1
        key = "loaded-%d" % self.loads
        for cursor, chunk in chunks_from_end(data, self.CHUNK):
            assert self.r.execute_command("TDBF.LOADCHUNK", key, cursor, chunk) == b"OK"
        return key

    def mexists(self, key, items):
        found = []
        for i in range(0, len(items), BATCH):
            found += self.r.execute_command("TDBF.MEXISTS", key, *items[i:i + BATCH])
        return [bool(x) for x in found]

    def missing(self, path, keys):
        return [k for k, ok in zip(keys, self.mexists(self.load(path), keys)) if not ok]

    def answers(self, path, probes):
        return self.mexists(self.load(path), probes)

    def live_answers(self, probes):
        return self.mexists(self.live_key, probes)


def scandump(c, key):
    data, cursor = b"", 0
    while True:
        cursor, chunk = c.execute_command("TDBF.SCANDUMP", key, cursor)
        if cursor == 0:
            return data
        data += chunk


def chunks_from_end(data, size):
    """[(cursor, chunk)] cutting data every `size` bytes counted from its end
    (the first chunk holds at least the 56-byte header)."""
    cuts = [c for c in range(len(data) - size, 0, -size) if c >= HEADER_BYTES][::-1]
    bounds = [0, *cuts, len(data)]
    return [(hi + 1, data[lo:hi]) for lo, hi in zip(bounds, bounds[1:])]


@pytest.fixture
def fronts(r, tmp_path):
    return {"cli": CliFront(tmp_path), "python": PythonFront(tmp_path),
            "redis": RedisFront(r)}


# (timed, design): each front's default design for either kind of window,
# and the sqf, the count design of least memory
FILTERS = {"count": (False, None), "time": (True, None), "sqf": (False, "sqf")}


@pytest.mark.parametrize("kind", sorted(FILTERS))
@pytest.mark.parametrize("saver", ["cli", "python", "redis"])
def test_saved_on_one_front_loads_on_every_other(fronts, saver, kind, tmp_path):
    timed, design = FILTERS[kind]
    maker = fronts[saver]
    path = str(tmp_path / ("%s-%s.tdbf" % (saver, kind)))
    before = time.time_ns()
    maker.save(timed, KEYS, path, design)
    after = time.time_ns()

    doc = fronts["cli"].info(path)     # tdbf_load_file
    assert doc["items"] == len(KEYS), doc
    assert design is None or doc["design"] == design, doc
    assert (doc["window_ns"] != 0) == timed, doc
    assert (doc["dedup_keys"] is not None) == (saver == "cli"), doc
    if timed:
        assert doc["window_ns"] == TIME_WINDOW_S * NS, doc
        # Unix-epoch ns on every front (Redis: the server's ms x 10^6)
        assert before - NS <= doc["now_ns"] <= after + NS, (saver, before, doc["now_ns"])

    answers = {}
    for name, loader in fronts.items():
        assert loader.missing(path, KEYS) == [], "%s lost keys of a %s file" % (name, saver)
        answers[name] = loader.answers(path, PROBES)
    if saver != "cli":
        answers[saver + " live"] = maker.live_answers(PROBES)
    reference = answers["python"]
    for name, got in answers.items():
        assert disagreements(reference, got, PROBES) == [], (name, saver)
    print("\n  %s %s file: %d keys found by %s; %d of %d probes present on every loader"
          % (saver, kind, len(KEYS), ", ".join(answers), sum(reference), len(PROBES)))


def test_dedup_resumes_a_redis_dump(fronts, tmp_path):
    """A SCANDUMP'd filter is a state: dedup takes its window and design."""
    r = fronts["redis"].r
    r.execute_command("TDBF.RESERVE", "src", "0.01", "EX", "3600", "DESIGN", "tlbf",
                      "SEED", "9")
    r.execute_command("TDBF.MADD", "src", "a", "b")
    path = str(tmp_path / "redis.tdbf")
    with open(path, "wb") as out:
        out.write(scandump(r, "src"))
    cli = fronts["cli"]
    assert cli.run(["dedup", "--state", path], b"a\nc\nb\n").stdout == b"c\n"
    doc = cli.info(path)
    assert doc["design"] == "tlbf" and doc["dedup_keys"]["window_ns"] == 3600 * NS, doc
    # the state, key section and all, goes back into Redis
    key = fronts["redis"].load(path)
    assert r.execute_command("TDBF.MEXISTS", key, "a", "b", "c", "d") == [1, 1, 1, 0]


def test_loadchunk_refuses_sections_cut_across_chunks(fronts, tmp_path):
    """The chunk that ends the filter must hold what follows it: a section
    split over two chunks is refused, the key deleted, never half-read."""
    r = fronts["redis"].r
    path = str(tmp_path / "state.tdbf")
    fronts["cli"].save(False, KEYS[:50], path)
    with open(path, "rb") as fh:
        data = fh.read()
    section = data.rindex(b"TDBFKEYS")
    # a chunk that ends the filter and only part of its key section
    cut = section + 20
    with pytest.raises(redis.ResponseError, match="^the dump is invalid: corrupt"):
        r.execute_command("TDBF.LOADCHUNK", "k", cut + 1, data[:cut])
    assert r.exists("k") == 0
    # cut inside the filter instead: the second chunk holds all the rest
    cut = section - 100
    assert r.execute_command("TDBF.LOADCHUNK", "k", cut + 1, data[:cut]) == b"OK"
    assert r.execute_command("TDBF.LOADCHUNK", "k", len(data) + 1, data[cut:]) == b"OK"
    assert r.execute_command("TDBF.MEXISTS", "k", *KEYS[:50]) == [1] * 50
    r.delete("k")
    # stray bytes after the sections, and a damaged section, likewise
    for bad in (data + b"\n", data[:-1] + bytes([data[-1] ^ 1])):
        with pytest.raises(redis.ResponseError, match="invalid: corrupt"):
            r.execute_command("TDBF.LOADCHUNK", "k", len(bad) + 1, bad)
        assert r.exists("k") == 0
    # whole, in one chunk, it loads
    assert r.execute_command("TDBF.LOADCHUNK", "k", len(data) + 1, data) == b"OK"
    assert r.execute_command("TDBF.MEXISTS", "k", *KEYS[:50]) == [1] * 50
