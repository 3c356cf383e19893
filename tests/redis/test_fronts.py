"""One parameter language, every front.

tests/fronts/options.tsv is a table of option texts (window, error,
capacity, seed, design) and the outcome every front must reach.  Each row
goes through

  the tool      tdbf dedup --window W --error E ... --state F < /dev/null,
                then tdbf info --json --show-seed F
  Python        tdbf.Filter(window=W, error=E, ...), every value a str
  Redis         TDBF.RESERVE key E WINDOW W [CAPACITY C] [SEED S] [DESIGN D]

and the three must agree: the same filter (design, window, error, seed and,
where the options fix it, the planned shape), or the same refusal (the
library's reason in each message).  The module's own defaults differ from
the library's by choice (sqf for both windows: in Redis the filter is a
small part of a command's time, and memory is what users pay for), so its
server here is given the library's (DEFAULT_DESIGN apbf-line,
DEFAULT_TIME_DESIGN tlbf-line): a row without a design then names the
same design on every front.

Needs the tool (TDBF_CLI, default build/tdbf), the Python package
(PYTHONPATH with build/python: `make python`) and the module; `make
test-fronts` sets all three.  Nothing here is skipped: a missing front
fails.
"""
import os
import subprocess
import json

import pytest
import redis

import tdbf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("TDBF_CLI", os.path.join(ROOT, "build", "tdbf"))
TABLE = os.path.join(ROOT, "tests", "fronts", "options.tsv")
COLUMNS = ("window", "error", "capacity", "seed", "design")


def read_table():
    rows = []
    with open(TABLE, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.rstrip("\n").split("\t")
            assert len(cells) == len(COLUMNS) + 1, "%s:%d: %r" % (TABLE, n, line)
            options = {k: v for k, v in zip(COLUMNS, cells) if v != "-"}
            rows.append(pytest.param(options, cells[-1], id="%d:%s" % (n, "|".join(cells[:-1]))))
    return rows


# ---- each front: build, then report the filter as one dict, or refuse ------------

class Refused(Exception):
    pass


def via_cli(options, tmp_path):
    state = str(tmp_path / "state.tdbf")
    args = [CLI, "dedup", "--quiet", "--state", state]
    for name in COLUMNS:
        if name in options:
            args += ["--" + name, options[name]]
    proc = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    if proc.returncode == 2:
        raise Refused(proc.stderr.decode(errors="replace"))
    assert proc.returncode == 0, proc.stderr
    info = subprocess.run([CLI, "info", "--json", "--show-seed", state], capture_output=True,
                          timeout=60, check=True)
    j = json.loads(info.stdout)
    return {"design": j["design"], "window_items": j["window_items"],
            "window_ns": j["window_ns"], "error": j["error_configured"],
            "seed": int(j["seed"]), "k": j["k"], "l": j["l"], "slices": j["slices"],
            "memory_bytes": j["memory_bytes"]}


def via_python(options):
    try:
        f = tdbf.Filter(**options)
    except (ValueError, TypeError) as e:
        raise Refused(str(e))
    s = f.stats()
    return {"design": s["design"], "window_items": s["window_items"],
            "window_ns": s["window_ns"], "error": s["error_configured"], "seed": s["seed"],
            "k": s["k"], "l": s["l"], "slices": s["slices"], "memory_bytes": s["memory_bytes"]}


def via_redis(options, r):
    args = ["TDBF.RESERVE", "f", options.get("error", "0.01"), "WINDOW", options["window"]]
    for name in ("capacity", "seed", "design"):
        if name in options:
            args += [name.upper(), options[name]]
    r.delete("f")
    try:
        r.execute_command(*args)
    except redis.ResponseError as e:
        raise Refused(str(e))
    flat = r.execute_command("TDBF.INFO", "f")
    i = {flat[n].decode(): flat[n + 1] for n in range(0, len(flat), 2)}
    text = lambda v: v.decode() if isinstance(v, bytes) else v
    return {"design": text(i["design"]), "window_items": int(i["window_items"]),
            "window_ns": int(i["window_ms"]) * 1000000, "error": float(text(i["error"])),
            "seed": int(i["seed"]), "k": int(i["k"]), "l": int(i["l"]),
            "slices": int(i["slices"]), "memory_bytes": int(i["memory_bytes"])}


def outcome(build):
    try:
        return "ok", build()
    except Refused as e:
        return "refused", str(e)


# ---- the test ---------------------------------------------------------------------

# The library's defaults (tdbf_config_init, the tool, the Python package).
LIBRARY_DEFAULTS = ("DEFAULT_DESIGN", "apbf-line", "DEFAULT_TIME_DESIGN", "tlbf-line")


@pytest.fixture(scope="module")
def library_defaults_server(tmp_path_factory):
    from conftest import Server
    s = Server(str(tmp_path_factory.mktemp("fronts")), LIBRARY_DEFAULTS)
    s.start()
    yield s
    s.stop()


@pytest.fixture
def r(library_defaults_server):
    c = library_defaults_server.client()
    c.flushall()
    return c


@pytest.mark.parametrize("options, expected", read_table())
def test_every_front_reads_options_alike(options, expected, r, tmp_path):
    results = {
        "cli": outcome(lambda: via_cli(options, tmp_path)),
        "python": outcome(lambda: via_python(options)),
        "redis": outcome(lambda: via_redis(options, r)),
    }
    want, _, reason = expected.partition(":")
    reason = reason.strip()
    for front, (got, detail) in results.items():
        assert got == want, "%s: %s, not %s (%s)" % (front, got, want, detail)
        if got == "refused" and reason:
            assert reason in detail, "%s refused without %r: %s" % (front, reason, detail)
    if want != "ok":
        return
    built = {front: detail for front, (_, detail) in results.items()}
    fields = ["design", "window_items", "window_ns", "error"]
    if "seed" in options:
        fields.append("seed")
        assert built["cli"]["seed"] == int(options["seed"], 0)
    # a time window's shape follows its capacity; without one each front
    # may size it its own way (the tool learns the input's rate)
    if "capacity" in options or built["cli"]["window_items"]:
        fields += ["k", "l", "slices", "memory_bytes"]
    for field in fields:
        values = {front: b[field] for front, b in built.items()}
        assert len(set(values.values())) == 1, "%s differs: %s" % (field, values)
