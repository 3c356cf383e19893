"""One file format across fronts: the command-line tool and Python.

A filter saved by `tdbf dedup --state` loads in Python (its key section
after the filter is skipped) and a filter saved by `Filter.save` resumes
in `tdbf dedup --state` (no key section: the filter's own window and
design, the whole line as key); both load in `tdbf info` (the library's
tdbf_load_file).  Every key added is found by every loader, and
never-added probes get the same answers from every loader of one file.
The Redis module joins the matrix in tests/redis/test_formats.py.
"""
import time

import pytest

import tdbf
from fronts import (COUNT_WINDOW, KEYS, PROBES, SEED, TIME_WINDOW_S, CliFront, PythonFront,
                    disagreements)

NS = 1_000_000_000
FRONTS = {"cli": CliFront, "python": PythonFront}


def saved(front, timed, tmp_path):
    path = str(tmp_path / ("%s-%s.tdbf" % (front.name, "time" if timed else "count")))
    before = time.time_ns()
    front.save(timed, KEYS, path)
    return path, before, time.time_ns()


@pytest.mark.parametrize("timed", [False, True], ids=["count", "time"])
@pytest.mark.parametrize("saver", sorted(FRONTS))
def test_saved_on_one_front_loads_on_every_other(saver, timed, tmp_path):
    cli = CliFront(tmp_path)
    fronts = {"cli": cli, "python": PythonFront(tmp_path)}
    maker = fronts[saver]
    path, before, after = saved(maker, timed, tmp_path)

    # the library (tdbf info = tdbf_load_file) reads the filter as made
    doc = cli.info(path)
    assert doc["items"] == len(KEYS), doc
    assert doc["seed"] is None and (doc["window_ns"] != 0) == timed, doc
    if timed:
        assert doc["window_ns"] == TIME_WINDOW_S * NS, doc
        # every front stamps Unix-epoch nanoseconds
        assert before - NS <= doc["now_ns"] <= after + NS, (before, doc["now_ns"], after)
    else:
        assert COUNT_WINDOW <= doc["window_items"] < COUNT_WINDOW * 1.01, doc
    assert (doc["dedup_keys"] is not None) == (saver == "cli"), doc

    answers = {}
    for name, loader in fronts.items():
        assert loader.missing(path, KEYS) == [], "%s lost keys of a %s file" % (name, saver)
        answers[name] = loader.answers(path, PROBES)
    if saver == "python":
        answers["python live"] = fronts["python"].live_answers(PROBES)
    reference = answers["python"]
    for name, got in answers.items():
        assert disagreements(reference, got, PROBES) == [], (name, saver)
    found = sum(reference)
    print("\n  %s %s file: %d keys found by %s; %d of %d probes present on every loader"
          % (saver, "time" if timed else "count", len(KEYS), ", ".join(answers), found,
             len(PROBES)))


def test_dedup_adopts_a_python_filter_window_and_design(tmp_path):
    cli = CliFront(tmp_path)
    for timed, design in ((False, "apbf"), (True, "tlbf")):
        path = str(tmp_path / ("adopt-%s.tdbf" % design))
        window = "%ds" % TIME_WINDOW_S if timed else COUNT_WINDOW
        f = tdbf.Filter(window, error=0.01, seed=SEED, design=design)
        f.add_many([b"a", b"b"])
        f.save(path)
        # only --state: the whole line is the key; a and b were seen
        assert cli.run(["dedup", "--state", path], b"a\nc\nb\n").stdout == b"c\n"
        doc = cli.info(path)
        assert doc["design"] == design and doc["items"] == 5, doc   # a, b re-added
        keys = doc["dedup_keys"]
        assert keys["fields"] == [] and keys["key_regex"] is None, keys
        if timed:
            assert keys["window_ns"] == TIME_WINDOW_S * NS and keys["last"] == 0, keys
        # options that contradict the file are refused, naming both
        wrong = ["--last", "500"] if not timed else ["--window", "1h"]
        proc = cli_refused(cli, path, wrong)
        assert b"window" in proc.stderr, proc.stderr
        proc = cli_refused(cli, path, ["--design", "exact"])
        assert b"holds a %s filter" % design.encode() in proc.stderr, proc.stderr
        proc = cli_refused(cli, path, ["--error", "0.02"])
        assert b"--error 0.01, not 0.02" in proc.stderr, proc.stderr
        # and what it saved loads in Python again, keys and all
        g = tdbf.load(path)
        assert all(g.contains(k) for k in (b"a", b"b", b"c"))


def cli_refused(cli, path, options):
    import subprocess
    proc = subprocess.run([cli.binary, "dedup", "--state", path] + options, input=b"x\n",
                          capture_output=True, timeout=60)
    assert proc.returncode == 1, (options, proc.returncode, proc.stderr)
    assert proc.stdout == b"", proc.stdout
    return proc


def test_damaged_key_section_is_refused_by_every_loader(tmp_path):
    cli = CliFront(tmp_path)
    path = str(tmp_path / "state.tdbf")
    cli.save(False, KEYS[:10], path)
    with open(path, "rb") as fh:
        data = bytearray(fh.read())
    data[-12] ^= 0x01             # a body byte of the key section
    with open(path, "wb") as fh:
        fh.write(data)
    with pytest.raises(tdbf.Error, match="corrupt"):
        tdbf.load(path)
    with pytest.raises(tdbf.Error, match="corrupt"):
        tdbf.Filter.from_bytes(bytes(data))
    proc = cli_refused(cli, path, [])
    assert b"key section" in proc.stderr, proc.stderr
