#!/usr/bin/env python3
"""End-to-end tests of `tdbf dedup` and `tdbf info`.

Usage: python3 tests/cli/test_dedup.py [PATH/TO/tdbf]   (default build/tdbf)

Plain python3, no pytest: each test_* function runs in turn, "ok NAME" or
"FAIL NAME: why" per test, and the last line is always

    cli: N passed, N failed

with a non-zero exit status if anything failed.  The streams are built
here with a fixed random seed, and each is checked against a reference
computed here too: awk '!seen[$0]++' (a window larger than every repeat
distance), or an exact sliding-window dedup by line count or by time.
A filter may drop a new key (a false positive) but never pass a repeat
inside the window; the tests allow the first at the planned rate, with a
generous bound, and none of the second.
"""

import json
import math
import os
import random
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TDBF = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/tdbf")
# the developers' program (bench, demo), built beside tdbf
LAB = os.path.join(os.path.dirname(TDBF), "tdbf-lab")
SEED = "12345"
TMP = tempfile.mkdtemp(prefix="tdbf-cli-")


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def tmp(name):
    return os.path.join(TMP, name)


def run(args, data=b"", expect=0, program=None):
    """Run tdbf (or `program`, e.g. LAB) with args on stdin `data`; check
    the exit status."""
    program = program or TDBF
    proc = subprocess.run([program] + args, input=data, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=120)
    if expect is not None and proc.returncode != expect:
        raise Failure("%s %s: exit %d, expected %d; stderr: %s" % (
            os.path.basename(program), " ".join(args), proc.returncode, expect,
            proc.stderr.decode(errors="replace").strip()[:400]))
    return proc


def lines_of(output):
    return output.decode().splitlines()


def joined(lines):
    return ("\n".join(lines) + "\n").encode()


def fp_bound(trials, rate):
    """A count of false positives that `trials` Bernoulli(rate) trials
    exceed with negligible probability: mean + 5 sigma + 3."""
    mean = trials * rate
    return mean + 5.0 * math.sqrt(max(mean, 1.0)) + 3.0


# ---- references ---------------------------------------------------------

def awk_dedup(lines):
    seen = set()
    out = []
    for line in lines:
        if line not in seen:
            seen.add(line)
            out.append(line)
    return out


def exact_count_window(keys, window):
    """For each line: True if its key occurred within the previous
    `window` lines (the line itself excluded)."""
    last = {}
    repeats = []
    for i, key in enumerate(keys):
        j = last.get(key)
        repeats.append(j is not None and i - j <= window)
        last[key] = i
    return repeats


def exact_time_window(keys, times, window):
    """True if the key occurred at a time within `window` before."""
    last = {}
    repeats = []
    for key, t in zip(keys, times):
        j = last.get(key)
        repeats.append(j is not None and t - j <= window)
        last[key] = t
    return repeats


def compare(answers, exact, fp_rate, what):
    """answers: the filter's repeat flags; exact: the reference's.
    Returns the number of false positives; fails on a false negative or
    on too many false positives."""
    check(len(answers) == len(exact), "%s: %d answers for %d lines" % (
        what, len(answers), len(exact)))
    false_neg = sum(1 for a, e in zip(answers, exact) if e and not a)
    false_pos = sum(1 for a, e in zip(answers, exact) if a and not e)
    new = sum(1 for e in exact if not e)
    check(false_neg == 0, "%s: %d repeats inside the window were printed"
          % (what, false_neg))
    bound = fp_bound(new, fp_rate)
    check(false_pos <= bound, "%s: %d false positives among %d new keys "
          "(bound %.0f at rate %g)" % (what, false_pos, new, bound, fp_rate))
    return false_pos


def flags_from_count(output):
    """--count output -> (repeat flags, lines)."""
    flags, lines = [], []
    for row in lines_of(output):
        flag, _, line = row.partition("\t")
        flags.append(flag == "1")
        lines.append(line)
    return flags, lines


# ---- streams --------------------------------------------------------------

def near_repeat_stream(n, max_distance, rng, prefix="k"):
    """n lines; each is a new key or a repeat of one of the last
    max_distance lines (so no repeat is farther apart than that)."""
    lines = []
    fresh = 0
    for i in range(n):
        if i > 0 and rng.random() < 0.4:
            back = rng.randint(1, min(max_distance, i))
            lines.append(lines[i - back])
        else:
            lines.append("%s%d" % (prefix, fresh))
            fresh += 1
    return lines


def mixed_stream(n, window, rng):
    """Repeats well inside the count window (<= window/2 back) and far
    outside it (>= 10 windows back: past any design's slack)."""
    lines = []
    fresh = 0
    for i in range(n):
        r = rng.random()
        if r < 0.3 and i > 0:
            lines.append(lines[i - rng.randint(1, min(window // 2, i))])
        elif r < 0.45 and i > 10 * window:
            lines.append(lines[i - rng.randint(10 * window, i)])
        else:
            lines.append("key-%d" % fresh)
            fresh += 1
    return lines


def timed_stream(n, window_ms, rng):
    """(unix_ms time, key) pairs: a few events per ms on average, repeats
    inside the window (<= window/2 earlier) and far outside (>= 10
    windows earlier)."""
    events = []
    t = 1700000000000
    fresh = 0
    for i in range(n):
        t += rng.choice((0, 0, 1, 1, 2, 5))
        r = rng.random()
        key = None
        if r < 0.3 and events:
            # a key seen at most window/2 ago
            for _ in range(8):
                back = events[rng.randint(max(0, i - 200), i - 1)]
                if t - back[0] <= window_ms // 2:
                    key = back[1]
                    break
        elif r < 0.45:
            for _ in range(8):
                back = events[rng.randint(0, i - 1)] if events else None
                if back and t - back[0] >= 10 * window_ms:
                    key = back[1]
                    break
        if key is None:
            key = "ev%d" % fresh
            fresh += 1
        events.append((t, key))
    return events


# ---- tests: output against references -------------------------------------

def test_equals_awk_count_window():
    rng = random.Random(1)
    lines = near_repeat_stream(20000, 500, rng)
    data = joined(lines)
    out = run(["dedup", "--last", "1000", "--error", "1e-6", "--seed", SEED],
              data).stdout
    check(lines_of(out) == awk_dedup(lines), "differs from the reference")
    if shutil.which("awk"):
        awk = subprocess.run(["awk", "!seen[$0]++"], input=data,
                             stdout=subprocess.PIPE, check=True).stdout
        check(out == awk, "differs from awk '!seen[$0]++'")


def test_equals_awk_time_window():
    rng = random.Random(2)
    lines = near_repeat_stream(20000, 5000, rng, prefix="t")
    out = run(["dedup", "--window", "1h", "--error", "1e-6", "--seed", SEED],
              joined(lines)).stdout
    check(lines_of(out) == awk_dedup(lines), "differs from awk")


def test_exact_design_equals_awk():
    rng = random.Random(3)
    lines = near_repeat_stream(5000, 300, rng)
    for window in (["--last", "400"], ["--window", "1h"]):
        out = run(["dedup", "--design", "exact"] + window, joined(lines)).stdout
        check(lines_of(out) == awk_dedup(lines), "exact %s differs" % window)


def test_count_window_vs_exact():
    rng = random.Random(4)
    window = 1000
    lines = mixed_stream(40000, window, rng)
    exact = exact_count_window(lines, window)
    check(any(exact) and not all(exact), "the stream has no mix")
    for design in ("apbf", "apbbf", "sqf", "exact"):
        out = run(["dedup", "--last", str(window), "--design", design,
                   "--count", "--seed", SEED], joined(lines)).stdout
        flags, printed = flags_from_count(out)
        check(printed == lines, "%s: --count did not print every line" % design)
        fps = compare(flags, exact, 0.01, design)
        if design == "exact":
            check(fps == 0, "exact design had %d false positives" % fps)


def test_time_field_replay():
    rng = random.Random(5)
    window_ms = 2000
    events = timed_stream(30000, window_ms, rng)
    data = joined(["%d %s" % e for e in events])
    args = ["dedup", "--window", "%dms" % window_ms, "--time-field", "1",
            "--time-format", "unix_ms", "--field", "2", "--seed", SEED]
    first = run(args + ["--count"], data).stdout
    second = run(args + ["--count"], data).stdout
    check(first == second, "two replays differ")
    flags, _ = flags_from_count(first)
    exact = exact_time_window([k for _, k in events], [t for t, _ in events],
                              window_ms)
    check(sum(exact) > 1000, "too few repeats in the stream")
    compare(flags, exact, 0.01, "tlbf")
    plain = run(args, data).stdout
    check(lines_of(plain) == ["%d %s" % e for e, f in zip(events, flags)
                              if not f], "plain output != lines marked new")


def test_iso8601_and_offsets():
    # the same instants written in different zones; a 1 s window
    lines = [
        "2024-05-01T12:00:00Z a",
        "2024-05-01T14:00:00.500+02:00 a",   # 0.5 s later: a repeat
        "2024-05-01T12:00:02Z a",            # 1.5 s after the last: new
        "2024-05-01T07:00:02.9-0500 a",      # 0.9 s later: a repeat
        "2024-05-01T12:00:05,25z b",
    ]
    out = run(["dedup", "--window", "1s", "--time-field", "1", "--time-format",
               "iso8601", "--field", "2", "--count"], joined(lines)).stdout
    flags = [row.split("\t")[0] for row in lines_of(out)]
    check(flags == ["0", "1", "0", "1", "0"], "flags %s" % flags)


def test_invert_and_count_agree():
    rng = random.Random(6)
    lines = near_repeat_stream(3000, 100, rng)
    base = ["dedup", "--last", "200", "--seed", SEED]
    kept = lines_of(run(base, joined(lines)).stdout)
    repeats = lines_of(run(base + ["--invert"], joined(lines)).stdout)
    flags, _ = flags_from_count(run(base + ["--count"], joined(lines)).stdout)
    check(kept == [l for l, f in zip(lines, flags) if not f], "kept lines")
    check(repeats == [l for l, f in zip(lines, flags) if f], "--invert lines")


def test_fields_regex_and_odd_lines():
    data = b"a,1\nb,2\nc,1\nno-comma\nno-comma\nx,\ny,\nx,\n"
    out = run(["dedup", "--last", "100", "--field", "2", "--delimiter", ","],
              data).stdout
    # key 1, 2, then a line without field 2, or with it empty, is keyed by
    # itself
    check(out == b"a,1\nb,2\nno-comma\nx,\ny,\n", "field: %r" % out)
    data = b"  a   1\nb\t1\n"
    out = run(["dedup", "--last", "9", "--field", "2"], data).stdout
    check(out == b"  a   1\n", "blank-separated fields: %r" % out)
    data = b"GET /x?id=7 a\nGET /y?id=8\nPOST id=7\nnothing\nnothing\n"
    out = run(["dedup", "--last", "9", "--key-regex", "id=([0-9]+)"],
              data).stdout
    check(out == b"GET /x?id=7 a\nGET /y?id=8\nnothing\n", "regex: %r" % out)
    out = run(["dedup", "--last", "9", "--key-regex", "[0-9]+"],
              b"a7\nb7\nc8\n").stdout
    check(out == b"a7\nc8\n", "regex without group: %r" % out)
    # empty lines, NUL bytes, CRLF, a last line without a newline
    data = b"\n\nx\x00y\nx\x00z\nx\x00y\r\nend"
    out = run(["dedup", "--last", "9"], data).stdout
    check(out == b"\nx\x00y\nx\x00z\nx\x00y\r\nend\n", "odd lines: %r" % out)
    # lines longer than the 1 MiB buffers
    big = b"z" * (3 << 20)
    out = run(["dedup", "--last", "9"], big + b"\n" + big + b"1\n" + big).stdout
    check(out == big + b"\n" + big + b"1\n", "long lines (%d bytes)" % len(out))


def test_files_and_stdin():
    with open(tmp("f1"), "wb") as f:
        f.write(b"a\nb\n")
    with open(tmp("f2"), "wb") as f:
        f.write(b"b\nc")
    out = run(["dedup", "--last", "9", tmp("f1"), "-", tmp("f2")],
              b"a\nd\n").stdout
    check(out == b"a\nb\nd\nc\n", "files: %r" % out)
    proc = run(["dedup", "--last", "9", tmp("missing")], expect=3)
    check(b"cannot open" in proc.stderr, "missing file message")


def test_window_sized_for_input_files():
    # Read on arrival, files are one burst inside the window: their lines
    # size the filter (one ring); a pipe's are unknown (rings grow).
    n = 30000
    rng = random.Random(7)
    data = joined(["key-%d-%d" % (i, rng.randrange(10**9)) for i in range(n)])
    path = tmp("sized.txt")
    with open(path, "wb") as f:
        f.write(data)
    docs = {}
    for how in ("file", "redirect", "pipe"):
        state = tmp("sized-%s.tdbf" % how)
        if os.path.exists(state):
            os.unlink(state)
        args = [TDBF, "dedup", "--window", "10m", "--seed", SEED, "--state", state]
        if how == "file":
            proc = subprocess.run(args + [path], stdout=subprocess.PIPE, timeout=120)
        else:
            with open(path, "rb") as f:
                proc = subprocess.run(args, stdin=f if how == "redirect" else None,
                                      input=None if how == "redirect" else data,
                                      stdout=subprocess.PIPE, timeout=120)
        check(proc.returncode == 0, "%s: exit %d" % (how, proc.returncode))
        printed = len(lines_of(proc.stdout))
        # a burst past the rings' hint too: its rings share the error
        check(n - fp_bound(n, 0.01) <= printed <= n,
              "%s: %d of %d new lines printed" % (how, printed, n))
        docs[how] = json.loads(run(["info", "--json", state]).stdout)
    for how in ("file", "redirect"):
        d = docs[how]
        check(d["design"] == "tlbf-line" and d["slices"] == d["k"] + d["l"] + 1,
              "%s: not one ring: %r" % (how, d))
        check(d["generation_size"] * d["l"] >= n, "%s: sized for %d keys a window" % (
            how, d["generation_size"] * d["l"]))
    check(docs["pipe"]["slices"] > docs["pipe"]["k"] + docs["pipe"]["l"] + 1,
          "pipe: one ring for %d keys at once" % n)
    check(docs["file"]["memory_bytes"] < docs["pipe"]["memory_bytes"],
          "file %d bytes, pipe %d" % (docs["file"]["memory_bytes"],
                                      docs["pipe"]["memory_bytes"]))


# ---- tests: state --------------------------------------------------------

def test_state_resume_equals_one_run():
    rng = random.Random(7)
    count_lines = mixed_stream(30000, 1000, rng)
    timed_lines = ["%d %s" % e for e in timed_stream(20000, 2000, rng)]
    time_key = ["--time-field", "1", "--time-format", "unix_ms", "--field", "2"]
    # (options of the first run, options of the resumed run, stream): the
    # resumed run takes the window from the state file
    cases = [(["--last", "1000"], [], count_lines),
             (["--window", "2s"] + time_key, time_key, timed_lines)]
    for first, resumed, stream in cases:
        half = len(stream) // 2
        state = tmp("resume.tdbf")
        if os.path.exists(state):
            os.unlink(state)
        whole = run(["dedup", "--seed", SEED] + first, joined(stream)).stdout
        part1 = run(["dedup", "--seed", SEED, "--state", state] + first,
                    joined(stream[:half])).stdout
        part2 = run(["dedup", "--state", state] + resumed,
                    joined(stream[half:])).stdout
        check(part1 + part2 == whole, "%s: split run differs" % first[:2])
        check(0 < len(part2) < len(joined(stream[half:])), "trivial stream")


def test_state_checkpoint():
    state = tmp("checkpoint.tdbf")
    proc = subprocess.Popen([TDBF, "dedup", "--window", "1h", "--state", state,
                             "--checkpoint", "100ms"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    written = 0
    try:
        # a line every 50 ms: a read after the period saves the state
        deadline = time.time() + 20
        while not os.path.exists(state) and time.time() < deadline:
            proc.stdin.write(b"line-%d\n" % written)
            proc.stdin.flush()
            written += 1
            time.sleep(0.05)
        check(os.path.exists(state), "no checkpoint while running")
        info = json.loads(run(["info", "--json", state]).stdout)
        check(1 <= info["items"] <= written, "checkpoint holds %d adds of %d"
              % (info["items"], written))
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    check(proc.returncode == 0, "exit %d" % proc.returncode)
    info = json.loads(run(["info", "--json", state]).stdout)
    check(info["items"] == written, "final state holds %d adds of %d" % (
        info["items"], written))


def handles_signal(pid, sig):
    """True once /proc says the process catches `sig` (Linux)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for row in f:
                if row.startswith("SigCgt:"):
                    return int(row.split()[1], 16) >> (int(sig) - 1) & 1
    except OSError:
        pass
    return False


def send_when_caught(proc, sig, settle):
    """Send `sig` to proc once it catches it, after `settle` seconds more
    (time to read what it was given); then wait for it to end."""
    deadline = time.time() + 20
    while not handles_signal(proc.pid, sig) and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(settle)
    proc.send_signal(sig)
    proc.wait(timeout=30)      # before closing stdin: EOF would race it


def wait_for_output(proc, seconds=20):
    """The first output of proc, once it comes.  dedup writes its output
    out when its next read would wait, so by then it has taken everything
    it was given, and its own signal handlers are in place."""
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    check(ready, "no output within %d s" % seconds)
    return os.read(proc.stdout.fileno(), 1 << 20)


def signal_case(sig, expected_status):
    state = tmp("signal-%d.tdbf" % sig)
    proc = subprocess.Popen([TDBF, "dedup", "--window", "1h", "--state", state,
                             "--error", "1e-6", "--seed", SEED],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    lines = ["line-%d" % (i % 700) for i in range(2000)]
    proc.stdin.write(joined(lines))
    proc.stdin.flush()
    first = wait_for_output(proc)      # it has read them, and blocks in read(2)
    send_when_caught(proc, sig, 0.1)
    out, err = proc.communicate(timeout=30)
    out = first + out
    check(proc.returncode == expected_status, "exit %d, expected %d (%s)" % (
        proc.returncode, expected_status, err.decode(errors="replace")))
    doc = json.loads(run(["info", "--json", state]).stdout)
    taken = doc["items"]
    check(doc["design"] == "tlbf-line", "design %s" % doc["design"])
    name = "SIGINT" if sig == signal.SIGINT else "SIGTERM"
    said = re.search(rb"stopped by %s after ([0-9,]+) input lines; the state in "
                     rb"\S+ holds them" % name.encode(), err)
    check(said is not None and int(said.group(1).replace(b",", b"")) == taken,
          "the message does not say the %d lines taken: %r" % (taken, err))
    check(b"feed it from line %d on to:\n  tdbf dedup --window 1h --state " % (taken + 1)
          in err, "no resume command: %r" % err)
    check(0 < taken <= len(lines), "state holds %d adds" % taken)
    # what was printed is exactly what the saved lines call for
    check(lines_of(out) == awk_dedup(lines[:taken]), "output before the signal")
    # and it resumes: keys it took are repeats within the hour
    again = run(["dedup", "--state", state], joined(lines[:min(taken, 50)]))
    check(again.stdout == b"", "resumed run printed %r" % again.stdout[:80])


def test_sigterm_saves_state():
    signal_case(signal.SIGTERM, 143)


def test_sigint_saves_state():
    signal_case(signal.SIGINT, 130)


def stop_on_stdin(args, first_lines, sig=signal.SIGINT):
    """Run tdbf with args; write first_lines on its stdin, then send `sig`
    once it has taken them (it then blocks in read).  Returns the
    finished process's (status, stdout, stderr)."""
    proc = subprocess.Popen([TDBF] + args, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(joined(first_lines))
    proc.stdin.flush()
    first = wait_for_output(proc)
    send_when_caught(proc, sig, 0.1)
    out, err = proc.communicate(timeout=30)
    return proc.returncode, first + out, err


def test_resume_command_continues_the_run():
    # file, then standard input (stopped there), then another file: the
    # command printed at the stop, fed the rest of the input, gives what
    # one uninterrupted run gives
    rng = random.Random(11)
    stream = mixed_stream(3000, 300, rng)
    first, middle, rest, last = stream[:1000], stream[1000:1400], stream[1400:2000], stream[2000:]
    with open(tmp("first.txt"), "wb") as f:
        f.write(joined(first))
    with open(tmp("last part.txt"), "wb") as f:
        f.write(joined(last))
    whole = run(["dedup", "--last", "700", "--seed", SEED], joined(stream)).stdout
    state = tmp("resumable.tdbf")
    if os.path.exists(state):
        os.unlink(state)
    status, out, err = stop_on_stdin(["dedup", "--last", "700", "--seed", SEED, "--state",
                                      state, tmp("first.txt"), "-", tmp("last part.txt")],
                                     middle)
    check(status == 130, "exit %d: %r" % (status, err))
    check(b"stopped by SIGINT after 1,400 input lines" in err, "count: %r" % err)
    said = re.search(rb"400 lines of standard input were taken; to resume, feed it from "
                     rb"line 401 on to:\n(.*)\n", err)
    check(said is not None, "no resume command: %r" % err)
    words = shlex.split(said.group(1).decode())
    check(words[:2] == ["tdbf", "dedup"] and "--state" in words and words[-2:] ==
          ["-", tmp("last part.txt")], "resume command %r" % words)
    again = run(words[1:], joined(rest))
    check(out + again.stdout == whole, "interrupted and resumed output differs")


def test_state_not_writable_stops_before_reading():
    proc = subprocess.Popen([TDBF, "dedup", "--last", "10", "--state",
                             tmp("no-such-dir/state.tdbf")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # the check comes first: it exits without waiting for any input
    out, err = proc.communicate(timeout=30)
    check(proc.returncode == 3, "exit %d: %r" % (proc.returncode, err))
    check(out == b"" and b"cannot write there" in err and b"nothing was read" in err,
          "message %r" % err)
    # a directory as --state
    proc = run(["dedup", "--last", "10", "--state", TMP], b"a\n", expect=3)
    check(b"is a directory" in proc.stderr, "directory: %r" % proc.stderr)


def test_max_memory():
    proc = run(["dedup", "--last", "1M", "--max-memory", "1M"], b"a\n", expect=2)
    # the refusal states the size the plan needs and a --max-memory that fits it
    plan = json.loads(run(["plan", "--design", "apbf-line", "--window", "1M", "--error", "0.01", "--json"]).stdout)
    found = re.search(rb"needs ([0-9.]+) MiB.*--max-memory ([0-9]+)M", proc.stderr)
    check(found is not None, "refusal %r" % proc.stderr)
    needs, suggested = float(found.group(1)), int(found.group(2))
    check(abs(needs - plan["bytes"] / 2**20) < 0.05 and suggested >= needs,
          "needs %g MiB, suggests %dM, plan %d bytes" % (needs, suggested, plan["bytes"]))
    run(["dedup", "--last", "1M", "--max-memory", "%dM" % suggested], b"a\n")
    run(["dedup", "--last", "1M", "--max-memory", "0.003GiB"], b"a\n")
    proc = run(["dedup", "--window", "1m", "--capacity", "1e9", "--max-memory", "64M"],
               b"a\n", expect=2)
    check(b"the tlbf-line filter for --window 60 s" in proc.stderr and b"needs " in proc.stderr,
          "tlbf-line refusal %r" % proc.stderr)
    # a saved state larger than the cap is refused when loaded
    state = tmp("big.tdbf")
    if os.path.exists(state):
        os.unlink(state)
    run(["dedup", "--last", "1M", "--state", state], b"a\n")
    proc = run(["dedup", "--state", state, "--max-memory", "1M"], b"a\n", expect=2)
    check(b"larger than" in proc.stderr, "load over the cap: %r" % proc.stderr)


def test_key_spec_is_kept():
    state = tmp("keys.tdbf")
    if os.path.exists(state):
        os.unlink(state)
    data = joined(["%d,user%d,%d" % (i, i % 7, i % 3) for i in range(40)])
    first = run(["dedup", "--last", "100", "--field", "2", "--delimiter", ",", "--state",
                 state], data)
    check(len(lines_of(first.stdout)) == 7, "7 users: %r" % first.stdout)
    doc = json.loads(run(["info", "--json", state]).stdout)
    check(doc["dedup_keys"] == {"last": 100, "window_ns": 0, "field": 2, "fields": [2],
                                "delimiter": ",", "key_regex": None, "ignore_case": False,
                                "time_field": 0, "time_fields": [], "time_format": None,
                                "time_pattern": None},
          "info: %r" % doc["dedup_keys"])
    check(b"--field 2 --delimiter ','" in run(["info", state]).stdout, "info text")
    # other keys: refused, the state untouched
    with open(state, "rb") as f:
        saved = f.read()
    for options in (["--field", "3", "--delimiter", ","], ["--field", "2"],
                    ["--key-regex", "user[0-9]"], ["--delimiter", ";", "--field", "2"]):
        proc = run(["dedup", "--state", state] + options, data, expect=1)
        check(b"was made with keys from --field 2 --delimiter ','" in proc.stderr and
              proc.stdout == b"", "%s: %r" % (options, proc.stderr))
    with open(state, "rb") as f:
        check(f.read() == saved, "a refused run changed the state")
    # the same keys, or none given: the state's are used
    check(run(["dedup", "--state", state, "--field", "2", "--delimiter", ","],
              data).stdout == b"", "same keys: repeats")
    check(run(["dedup", "--state", state], data).stdout == b"", "adopted keys: repeats")
    # a regex and a time field are kept too
    state = tmp("keys-re.tdbf")
    if os.path.exists(state):
        os.unlink(state)
    timed = joined(["%d id=%d" % (1000 * i, i % 5) for i in range(20)])
    base = ["--time-field", "1", "--time-format", "unix_ms"]
    run(["dedup", "--window", "1h", "--key-regex", "id=([0-9]+)", "--state", state] + base,
        timed)
    run(["dedup", "--state", state, "--key-regex", "id=([0-9])"] + base, timed, expect=1)
    run(["dedup", "--state", state, "--key-regex", "id=([0-9]+)"], timed, expect=1)
    check(run(["dedup", "--state", state], timed).stdout == b"", "adopted regex")


def test_state_without_key_section_loads():
    # a filter file saved without the key section (older states,
    # tdbf_save_file) resumes and gets the section at its next save
    state = tmp("old.tdbf")
    if os.path.exists(state):
        os.unlink(state)
    run(["dedup", "--last", "100", "--seed", SEED, "--state", state], b"a\nb\n")
    with open(state, "rb") as f:
        data = f.read()
    cut = data.rfind(b"TDBFKEYS")
    check(cut > 0, "no key section")
    with open(state, "wb") as f:
        f.write(data[:cut])
    check(json.loads(run(["info", "--json", state]).stdout)["dedup_keys"] is None,
          "old state has keys")
    check(run(["dedup", "--state", state, "--field", "1"], b"a\nc\n").stdout == b"c\n",
          "old state resumed")
    doc = json.loads(run(["info", "--json", state]).stdout)
    check(doc["dedup_keys"]["field"] == 1, "section not written: %r" % doc)
    # a damaged section is refused like a damaged filter
    with open(state, "rb") as f:
        data = bytearray(f.read())
    data[-3] ^= 1
    with open(state, "wb") as f:
        f.write(data)
    proc = run(["dedup", "--state", state], b"a\n", expect=1)
    check(b"not a usable state" in proc.stderr and b"key section" in proc.stderr,
          "damaged section: %r" % proc.stderr)


def test_state_mismatch():
    state = tmp("mismatch.tdbf")
    run(["dedup", "--last", "100", "--seed", SEED, "--state", state], b"a\n")
    cases = [
        (["--last", "5000"], b"window"),
        (["--window", "1m"], b"count-window"),
        (["--design", "exact"], b"apbf-line filter"),
        (["--error", "0.001"], b"--error"),
        (["--seed", "99"], b"seed"),
    ]
    for options, message in cases:
        proc = run(["dedup", "--state", state] + options, b"a\n", expect=1)
        check(message in proc.stderr, "%s: message %r" % (options, proc.stderr))
    # the same options are accepted
    run(["dedup", "--state", state, "--last", "100", "--seed", SEED], b"a\n")


def test_seed_file():
    seed = tmp("seed")
    with open(seed, "wb") as f:
        f.write(bytes([7, 1, 2, 3, 4, 5, 6, 9]))
    os.chmod(seed, 0o600)
    state = tmp("seeded.tdbf")
    run(["dedup", "--last", "50", "--seed-file", seed, "--state", state], b"x\n")
    info = json.loads(run(["info", "--json", "--show-seed", state]).stdout)
    check(info["seed"] == 0x0906050403020107, "seed %x" % info["seed"])
    hidden = json.loads(run(["info", "--json", state]).stdout)
    check(hidden["seed"] is None, "the seed is shown without --show-seed")
    with open(tmp("seed2"), "w") as f:
        f.write("0x1234\n")
    os.chmod(tmp("seed2"), 0o644)
    proc = run(["dedup", "--state", state, "--seed-file", tmp("seed2")],
               b"x\n", expect=1)
    check(b"another hash seed" in proc.stderr, "other seed accepted")
    check(b"other users" in proc.stderr, "no warning on a readable seed file")
    with open(tmp("seed3"), "w") as f:
        f.write("secret-xyz")
    os.chmod(tmp("seed3"), 0o600)
    proc = run(["dedup", "--last", "5", "--seed-file", tmp("seed3")], expect=1)
    check(b"--seed-file" in proc.stderr and b"secret-xyz" not in proc.stderr,
          "seed file message %r" % proc.stderr)


# ---- tests: errors ---------------------------------------------------------

def test_bad_options():
    cases = [
        ([], b"give a window"),
        (["--window", "10x"], b"nor a duration"),
        (["--window", "0s"], b"out of range"),
        (["--window", "1m", "--seed", "0"], b"leave the seed out"),
        (["--last", "1m"], b"not a count"),
        (["--last", "0"], b"not a positive integer"),
        (["--window", "1m", "--last", "5"], b"exclude each other"),
        (["--last", "5", "--design", "nope"], b"unknown design"),
        (["--window", "1m", "--design", "apbf"], b"no time window"),
        (["--last", "5", "--design", "tlbf"], b"no count window"),
        (["--last", "5", "--field", "1", "--key-regex", "x"], b"exclude"),
        (["--last", "5", "--key-regex", "("], b"--key-regex"),
        (["--last", "5", "--time-format", "unix"], b"needs --time-field"),
        (["--last", "5", "--time-field", "1"], b"time window"),
        (["--last", "5", "--error", "2"], b"probability"),
        (["--last", "5", "--checkpoint", "1s"], b"needs --state"),
        (["--last", "5", "--invert", "--count"], b"exclude"),
        (["--last", "5", "--delimiter", "ab", "--field", "1"], b"one byte"),
        (["--last", "5", "--bogus"], b"unknown option"),
        (["--window", "1e30"], b"too large (at most 2^64 - 1)"),
        (["--window", "213504d"], b"out of range (1ns .. 213503d"),
        (["--last", "5", "--max-memory", "4X"], b"not a size"),
        (["--last", "1000000", "--max-memory", "1M"], b"MiB, more than the 1.00 MiB"),
    ]
    for options, message in cases:
        proc = run(["dedup"] + options, b"a\n", expect=2)
        check(message in proc.stderr, "%s: %r lacks %r" % (
            options, proc.stderr, message))
        check(proc.stderr.startswith(b"tdbf dedup: "), "%s: prefix" % options)


def test_state_of_every_design():
    # each design with a window of that kind either keeps a state that
    # `tdbf info` reads and a second run resumes, or is refused up front
    lines = ["k%d" % (i % 40) for i in range(100)]
    for design in ("apbf", "apbbf", "tlbf", "tbf", "btbf", "clock",
                   "rotating", "fpdecay", "stable", "bloom", "exact",
                   "apbf-line", "tlbf-line", "sqf"):
        for window in (["--last", "1000"], ["--window", "1h"]):
            state = tmp("every-%s.tdbf" % design)
            if os.path.exists(state):
                os.unlink(state)
            proc = run(["dedup", "--design", design, "--state", state,
                        "--seed", SEED] + window, joined(lines), expect=None)
            if proc.returncode == 2 and (b"cannot be saved" in proc.stderr or
                                         b"window (" in proc.stderr):
                continue
            check(proc.returncode == 0, "%s %s: exit %d %r" % (
                design, window, proc.returncode, proc.stderr))
            doc = json.loads(run(["info", "--json", state]).stdout)
            check(doc["design"] == design and doc["items"] == 100,
                  "%s: info %r" % (design, doc))
            again = run(["dedup", "--state", state], joined(lines[:40]))
            check(again.stdout == b"", "%s %s: resumed run printed %r" % (
                design, window, again.stdout[:60]))


def test_time_field_defaults_to_unix_seconds():
    data = b"100 a\n130 a\n200 a\n"
    proc = run(["dedup", "--window", "60s", "--time-field", "1", "--field", "2"], data)
    check(proc.stdout == b"100 a\n200 a\n", "unix seconds by default: %r" % proc.stdout)


def test_bad_time_stops_or_skips():
    data = b"1000 a\n2000 b\nnope c\n3000 d\n"
    args = ["dedup", "--window", "1m", "--time-field", "1", "--time-format",
            "unix_ms"]
    proc = run(args, data, expect=1)
    check(b"(stdin):3:" in proc.stderr and b"'nope'" in proc.stderr,
          "message %r" % proc.stderr)
    check(proc.stdout == b"1000 a\n2000 b\n", "lines before the bad one")
    # --skip-bad passes the bad line through, unfiltered; --drop-bad drops it
    proc = run(args + ["--skip-bad", "--stats"], data + b"4000\n")
    check(proc.stdout == b"1000 a\n2000 b\nnope c\n3000 d\n4000\n",
          "skip: %r" % proc.stdout)
    check(b"passed through, unfiltered, 1 line" in proc.stderr and
          b"bad times refused" in proc.stderr, "skip message %r" % proc.stderr)
    proc = run(args + ["--drop-bad"], data + b"4000\n")
    check(proc.stdout == b"1000 a\n2000 b\n3000 d\n4000\n",
          "drop: %r" % proc.stdout)
    check(b"dropped 1 line" in proc.stderr, "drop message %r" % proc.stderr)


def test_help():
    proc = run(["dedup", "--help"])
    for word in (b"--seed-file", b"--state", b"collide", b"Exit status"):
        check(word in proc.stdout, "help lacks %r" % word)
    run(["help", "info"])


# ---- tests: info ------------------------------------------------------------

def saved_filter(name, options, data):
    path = tmp(name)
    if os.path.exists(path):
        os.unlink(path)
    run(["dedup", "--state", path] + options, data)
    return path


def test_info_describes():
    path = saved_filter("info.tdbf", ["--last", "1000", "--seed", SEED],
                        b"a\nb\n")
    text = run(["info", path]).stdout.decode()
    for word in ("apbf", "window", "k, l", "memory", "hidden"):
        check(word in text, "info lacks %r:\n%s" % (word, text))
    doc = json.loads(run(["info", "--json", path]).stdout)
    check(doc["design"] == "apbf-line" and doc["items"] == 2, "json %r" % doc)
    check(doc["window_items"] >= 1000, "window %d" % doc["window_items"])
    check(doc["file_bytes"] == os.path.getsize(path), "file size")
    path = saved_filter("info-t.tdbf", ["--window", "90s"], b"a\n")
    doc = json.loads(run(["info", "--json", path]).stdout)
    check(doc["window_ns"] == 90 * 10**9 and doc["design"] == "tlbf-line",
          "tlbf-line json %r" % doc)


def test_info_rejects_bad_files():
    good = saved_filter("good.tdbf", ["--last", "300"], b"a\nb\nc\n")
    with open(good, "rb") as f:
        data = f.read()
    variants = {
        "flipped": data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 1]) +
                   data[len(data) // 2 + 1:],
        "truncated": data[:-9],
        "trailing": data + b"\0",
        "empty": b"",
        "text": b"hello\n",
        "version": data[:8] + b"\x07" + data[9:],
    }
    for name, content in variants.items():
        path = tmp("bad-" + name)
        with open(path, "wb") as f:
            f.write(content)
        proc = run(["info", path], expect=1)
        check(proc.stderr.startswith(b"tdbf info: ") and b"not a usable" in
              proc.stderr, "%s: %r" % (name, proc.stderr))
        proc = run(["dedup", "--state", path], b"a\n", expect=1)
        check(b"not a usable state" in proc.stderr, "dedup %s" % name)
    proc = run(["info", tmp("nonexistent")], expect=3)
    check(b"cannot read" in proc.stderr, "missing: %r" % proc.stderr)
    run(["info"], expect=2)


# ---- valgrind ----------------------------------------------------------------

def test_valgrind_clean():
    if not shutil.which("valgrind"):
        print("   (valgrind not installed: skipped)")
        return
    vg = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
          "--errors-for-leak-kinds=definite,indirect"]
    rng = random.Random(8)
    events = timed_stream(3000, 500, rng)
    data = joined(["%d %s id=%d" % (t, k, i % 50)
                   for i, (t, k) in enumerate(events)])
    state = tmp("vg.tdbf")
    for args in (["--last", "500", "--state", state, "--stats"],
                 ["--window", "500ms", "--time-field", "1", "--time-format",
                  "unix_ms", "--key-regex", "id=([0-9]+)", "--count"],
                 ["--window", "1h", "--field", "2", "--invert"]):
        proc = subprocess.run(vg + [TDBF, "dedup"] + args, input=data,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=300)
        check(proc.returncode == 0, "valgrind %s: exit %d\n%s" % (
            args, proc.returncode, proc.stderr.decode(errors="replace")[-2000:]))
    proc = subprocess.run(vg + [TDBF, "info", state], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=300)
    check(proc.returncode == 0, "valgrind info: %s" % proc.stderr[-2000:])


def main(namespace=None):
    """Run every test_* function of `namespace` (default: this module's);
    other scripts in tests/cli pass their globals() to share the runner."""
    if not os.access(TDBF, os.X_OK):
        print("test_dedup: %s is not an executable (make cli)" % TDBF,
              file=sys.stderr)
        print("cli: 0 passed, 1 failed")
        return 1
    tests = [(name, fn) for name, fn in (namespace or globals()).items()
             if name.startswith("test_") and callable(fn)]
    passed = failed = 0
    for name, fn in tests:
        started = time.time()
        try:
            fn()
        except (Failure, subprocess.SubprocessError, OSError, ValueError,
                KeyError) as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
            continue
        passed += 1
        print("ok   %s (%.1f s)" % (name, time.time() - started))
    shutil.rmtree(TMP, ignore_errors=True)
    print("cli: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
