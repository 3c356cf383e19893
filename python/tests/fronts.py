"""The fronts of tdbf as savers and loaders of one file format.

A front makes a filter, adds keys and saves it to a file; a front loads a
file and says, for each of a list of keys, whether the filter holds it.
The cross-front tests (python/tests/test_formats.py: the command-line tool
and Python; tests/redis/test_formats.py: every front, the Redis module
included) save on each front, load on each other and compare the answers.

Every key added must be found by every loader (no false negatives across
fronts), and never-added probes must get the same answers everywhere: the
answers are membership queries that do not change the filter, so every
loader answers about the same state -- Python's `contains`, Redis's
TDBF.MEXISTS, and for `tdbf dedup` (which adds each line it reads) one run
per probe on a fresh copy of the file, the probe printed when absent.

Every filter is made with the same parameters (SEED, ERROR; a count
window of COUNT_WINDOW or a time window of TIME_WINDOW sized for
CAPACITY keys; the front's default design unless one is named), but the
answers compared are always those of one file.
"""
import json
import os
import shutil
import subprocess

import tdbf

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SEED = 7
ERROR = 0.05
COUNT_WINDOW = 1000
TIME_WINDOW_S = 86400        # a day: generations of hours, so answers do
CAPACITY = 1000              # not move while a test runs
KEYS = [b"key-%d" % i for i in range(1000)]
PROBES = [b"probe-%d" % i for i in range(200)]


def cli_path():
    """The tdbf binary under test: TDBF_CLI, else build/tdbf.  Missing is a
    failure, not a skip: the cross-front tests must run wherever they are
    collected."""
    path = os.environ.get("TDBF_CLI") or os.path.join(ROOT, "build", "tdbf")
    assert os.access(path, os.X_OK), "no tdbf binary at %s (make all, or set TDBF_CLI)" % path
    return path


def lines(keys):
    return b"".join(k + b"\n" for k in keys)


class CliFront:
    """tdbf dedup --state saves; tdbf dedup --state on copies loads."""
    name = "cli"

    def __init__(self, tmp_path):
        self.binary = cli_path()
        self.tmp = str(tmp_path)

    def run(self, args, data=b""):
        proc = subprocess.run([self.binary] + args, input=data, capture_output=True,
                              timeout=120)
        assert proc.returncode == 0, (args, proc.returncode, proc.stderr)
        return proc

    def save(self, timed, keys, path, design=None):
        shape = (["--window", "%ds" % TIME_WINDOW_S, "--capacity", str(CAPACITY)]
                 if timed else ["--last", str(COUNT_WINDOW)])
        named = ["--design", design] if design else []
        self.run(["dedup", "--state", path, "--seed", str(SEED), "--error", str(ERROR)] +
                 shape + named, lines(keys))

    def fresh_copy(self, path):
        copy = os.path.join(self.tmp, "cli-copy.tdbf")
        shutil.copyfile(path, copy)
        return copy

    def missing(self, path, keys):
        """The keys a run over all of them prints.  Keys are distinct, and
        re-added in the order they were added (so none ages past a count
        window during the run): a key is printed only if it was absent."""
        out = self.run(["dedup", "--state", self.fresh_copy(path)], lines(keys)).stdout
        return out.splitlines()

    def answers(self, path, probes):
        """One run per probe on a fresh copy: dropped = present."""
        return [self.run(["dedup", "--state", self.fresh_copy(path)], probe + b"\n").stdout
                == b"" for probe in probes]

    def info(self, path):
        return json.loads(self.run(["info", "--json", path]).stdout)


class PythonFront:
    """Filter.save saves; tdbf.load loads."""
    name = "python"

    def __init__(self, tmp_path):
        self.live = None

    def save(self, timed, keys, path, design=None):
        if timed:
            f = tdbf.Filter("%ds" % TIME_WINDOW_S, error=ERROR, seed=SEED, capacity=CAPACITY,
                            design=design)
        else:
            f = tdbf.Filter(COUNT_WINDOW, error=ERROR, seed=SEED, design=design)
        for key in keys:
            f.add(key)
        f.save(path)
        self.live = f

    def missing(self, path, keys):
        f = tdbf.load(path)
        return [key for key in keys if not f.contains(key)]

    def answers(self, path, probes):
        f = tdbf.load(path)
        return [f.contains(probe) for probe in probes]

    def live_answers(self, probes):
        """The saver's own answers, from the filter it saved."""
        return [self.live.contains(probe) for probe in probes]


def disagreements(reference, got, probes):
    """The probes on which two answer lists differ (empty: they agree)."""
    assert len(reference) == len(got) == len(probes)
    return [p for p, a, b in zip(probes, reference, got) if a != b]
