#!/usr/bin/env python3
"""End-to-end tests of `tdbf dedup` as a Unix filter: output that flows
through a quiet pipe, no line lost on any exit (signals, a closed pipe, a
full disk), the capacity stop, bad and skewed times, NUL-ended records,
--invert and --count.

Usage: python3 tests/cli/test_dedup_stream.py [PATH/TO/tdbf]   (default build/tdbf)

Runs on test_dedup.py's runner: "ok NAME" or "FAIL NAME: why" per test,
and the last line is "cli: N passed, N failed".  Every process a test
starts is killed by its own pid if the test fails, and every wait is
bounded.

The invariant checked after each stop: every line read is either written
to the output or read again by the resumed run.  So the outputs of the
stopped run and of the run resumed with the command it printed hold,
together, every distinct key of the input, and the state file loads.
"""

import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from test_dedup import (SEED, TDBF, Failure, check, handles_signal, joined,
                        lines_of, main, run, send_when_caught, tmp,
                        wait_for_output)

STOP_STATUS = {signal.SIGHUP: 129, signal.SIGINT: 130, signal.SIGTERM: 143}

# The filter of the no-loss tests: a false positive (a new key dropped as
# a repeat) would look like a lost line, so the error is set far below
# one expected false positive over all these tests' keys (about 10^6).
WINDOW = ["--window", "1h", "--error", "1e-9", "--seed", SEED]


def keys(count, distinct):
    """`count` lines over `distinct` keys, each key first seen in order."""
    return ["key-%d" % (i % distinct) for i in range(count)]


def write_lines(name, lines):
    path = tmp(name)
    with open(path, "wb") as f:
        f.write(joined(lines))
    return path


def kill(proc):
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def read_line_within(stream, seconds):
    """One line from a pipe, or None if none comes within `seconds`."""
    deadline = time.time() + seconds
    line = b""
    while not line.endswith(b"\n"):
        left = deadline - time.time()
        if left <= 0 or not select.select([stream], [], [], left)[0]:
            return None
        chunk = os.read(stream.fileno(), 1)
        if chunk == b"":
            return None
        line += chunk
    return line


# ---- resuming with the printed command -------------------------------------

def resume_command(err):
    """The resume instructions of a stopped run's stderr: (first line to
    feed, the tdbf words, the input file or None for standard input)."""
    text = err.decode(errors="replace")
    fed = re.search(r"feed it from line (\d+) on to:\n  (.*)\n", text)
    if fed:
        return int(fed.group(1)), shlex.split(fed.group(2)), None
    tailed = re.search(r"to resume:\n  tail -n \+(\d+) (.*?) \| (tdbf dedup .*)\n", text)
    check(tailed is not None, "no resume instructions: %r" % text)
    return (int(tailed.group(1)), shlex.split(tailed.group(3)),
            shlex.split(tailed.group(2))[0])


def resume(err, lines, replace_state=None):
    """Run the resume command `err` prints on the rest of `lines` (the
    whole input, stdin or the file it names); returns its stdout."""
    first, words, source = resume_command(err)
    check(words[:2] == ["tdbf", "dedup"], "resume command %r" % words)
    if source is not None:
        with open(source, "rb") as f:
            lines = lines_of(f.read())
    if replace_state is not None:
        words = [replace_state[1] if w == replace_state[0] else w for w in words]
    return run(words[1:], joined(lines[first - 1:])).stdout


def check_nothing_lost(lines, outputs, state):
    printed = set()
    for out in outputs:
        printed.update(lines_of(out))
    missing = set(lines) - printed
    check(not missing, "%d keys lost, e.g. %r" % (len(missing), sorted(missing)[:3]))
    run(["info", state])   # the state loads


def fresh_state(name):
    path = tmp(name)
    if os.path.exists(path):
        os.unlink(path)
    return path


# ---- output that flows ------------------------------------------------------

def flows_through_fifo(extra):
    fifo = tmp("fifo-%d" % len(extra))
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    proc = subprocess.Popen([TDBF, "dedup", "--window", "10m"] + extra + [fifo],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with open(fifo, "wb", buffering=0) as writer:   # opens when dedup does
            writer.write(b"first\n")
            got = read_line_within(proc.stdout, 5)
            check(got == b"first\n", "%s: first line %r while the writer waits" % (extra, got))
            writer.write(b"first\nsecond\n")
            got = read_line_within(proc.stdout, 5)
            check(got == b"second\n", "%s: second line %r" % (extra, got))
        rest = proc.stdout.read()
        proc.wait(timeout=30)
        check(proc.returncode == 0 and rest == b"", "exit %d, rest %r" % (proc.returncode, rest))
    finally:
        kill(proc)


def test_output_flows_through_a_quiet_fifo():
    flows_through_fifo([])


def test_line_buffered_flows_too():
    flows_through_fifo(["--line-buffered"])
    data = joined(keys(5000, 1000))
    check(run(["dedup", "--last", "2000", "--line-buffered", "--seed", SEED], data).stdout ==
          run(["dedup", "--last", "2000", "--seed", SEED], data).stdout,
          "--line-buffered changes the output")


# ---- no line lost: signals --------------------------------------------------

def signal_stop_resumes(sig):
    state = fresh_state("stream-signal-%d.tdbf" % sig)
    lines = keys(3000, 1000)
    args = [TDBF, "dedup"] + WINDOW + ["--state", state]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        proc.stdin.write(joined(lines[:1700]))
        proc.stdin.flush()
        first = wait_for_output(proc)
        send_when_caught(proc, sig, 0.1)
        out, err = proc.communicate(timeout=30)
        out = first + out
    finally:
        kill(proc)
    check(proc.returncode == STOP_STATUS[sig], "%s: exit %d: %r" % (
        sig.name, proc.returncode, err))
    check(b"stopped by %s after 1,700 input lines" % sig.name.encode() in err,
          "%s: message %r" % (sig.name, err))
    check_nothing_lost(lines, [out, resume(err, lines)], state)


def test_sighup_saves_and_resumes():
    signal_stop_resumes(signal.SIGHUP)


def test_sigint_saves_and_resumes():
    signal_stop_resumes(signal.SIGINT)


def test_sigterm_saves_and_resumes():
    signal_stop_resumes(signal.SIGTERM)


def test_second_signal_gives_up_a_stalled_output():
    # the reader stops reading: dedup blocks in write(2).  One SIGTERM
    # leaves it writing (those lines are in the filter); a second gives
    # the output up without saving, exit 143, and the resume command reads
    # again every line whose output was not written
    state = fresh_state("stream-stalled.tdbf")
    lines = ["stalled-%d" % i for i in range(200000)]   # far beyond a pipe's 64 KiB
    path = write_lines("stalled.txt", lines)
    proc = subprocess.Popen([TDBF, "dedup"] + WINDOW + ["--state", state, path],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        send_when_caught_twice(proc, signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        kill(proc)
    check(proc.returncode == 143, "exit %d: %r" % (proc.returncode, err))
    check(b"a second SIGTERM while the output was blocked" in err and
          b"stopped by SIGTERM with the output blocked" in err, "message %r" % err)
    check(not os.path.exists(state), "a state was saved past unwritten lines")
    check_nothing_lost(lines, [out, resume(err, lines)], state)


def send_when_caught_twice(proc, sig):
    """Send `sig` once proc catches it and has had time to fill its output
    pipe (were it still reading, it would block at its last write all the
    same), then again; the process must then end (bounded wait)."""
    deadline = time.time() + 20
    while not handles_signal(proc.pid, sig) and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.5)
    os.kill(proc.pid, sig)
    time.sleep(0.3)
    check(proc.poll() is None, "one signal ended a run whose output was blocked")
    os.kill(proc.pid, sig)
    proc.wait(timeout=30)


# ---- no line lost: a closed pipe ----------------------------------------------

def test_closed_pipe_keeps_the_last_good_save():
    # a first run saves; the second one's reader leaves after one line
    # (as `| head -1` does): EPIPE, exit 141, the state as the first run
    # left it, and the command that resumes from there
    state = fresh_state("stream-epipe.tdbf")
    first = keys(1000, 1000)
    second = ["late-%d" % i for i in range(150000)]   # > 1 MiB + a pipe's 64 KiB
    path = write_lines("epipe-second.txt", second)
    out1 = run(["dedup"] + WINDOW + ["--state", state], joined(first)).stdout
    with open(state, "rb") as f:
        saved = f.read()
    proc = subprocess.Popen([TDBF, "dedup"] + WINDOW + ["--state", state, path],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        head = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        proc.wait(timeout=60)
    finally:
        kill(proc)
    check(proc.returncode == 141, "exit %d: %r" % (proc.returncode, err))
    check(head == b"late-0\n", "first line %r" % head)
    check(b"output was closed (EPIPE)" in err and b"Broken pipe" not in err,
          "message %r" % err)
    with open(state, "rb") as f:
        check(f.read() == saved, "the state changed after the output was lost")
    check_nothing_lost(first + second, [out1, head, resume(err, second)], state)


# ---- no line lost: a full disk ------------------------------------------------

def test_full_output_disk_saves_nothing_more():
    # /dev/full: every write fails with ENOSPC.  Exit 3, the state keeps
    # the first run's save, and the resumed run prints the lost lines.
    state = fresh_state("stream-devfull.tdbf")
    first, second = keys(500, 500), ["full-%d" % i for i in range(2000)]
    out1 = run(["dedup"] + WINDOW + ["--state", state], joined(first)).stdout
    with open(state, "rb") as f:
        saved = f.read()
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([TDBF, "dedup"] + WINDOW + ["--state", state],
                              input=joined(second), stdout=full,
                              stderr=subprocess.PIPE, timeout=60)
    check(proc.returncode == 3, "exit %d: %r" % (proc.returncode, proc.stderr))
    check(b"cannot write the output: No space left" in proc.stderr and
          b"nothing was saved in this run" in proc.stderr, "message %r" % proc.stderr)
    with open(state, "rb") as f:
        check(f.read() == saved, "the state was saved after the output was lost")
    check_nothing_lost(first + second, [out1, resume(proc.stderr, second)], state)


def test_full_state_disk_keeps_the_previous_state():
    # a 64 KiB tmpfs holds the first, small state; the second run's grows
    # past it: the save fails, the old file stays, and the command printed
    # resumes from it (run here on a copy beside the other files)
    mount = tempfile.mkdtemp(prefix="tdbf-tmpfs-")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mount],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if mounted.returncode != 0:
        os.rmdir(mount)
        print("skip test_full_state_disk_keeps_the_previous_state: cannot mount a "
              "tmpfs (%s)" % mounted.stderr.decode(errors="replace").strip())
        return
    try:
        state = os.path.join(mount, "state.tdbf")
        first, second = keys(100, 100), ["grow-%d" % i for i in range(200000)]
        out1 = run(["dedup"] + WINDOW + ["--state", state], joined(first)).stdout
        with open(state, "rb") as f:
            saved = f.read()
        proc = run(["dedup"] + WINDOW + ["--state", state], joined(second), expect=3)
        check(b"cannot save the state: No space left on device; the file keeps its "
              b"previous contents" in proc.stderr, "message %r" % proc.stderr)
        with open(state, "rb") as f:
            check(f.read() == saved, "the previous state did not stay")
        check(os.listdir(mount) == ["state.tdbf"], "left behind: %r" % os.listdir(mount))
        copy = tmp("state-copy.tdbf")
        shutil.copyfile(state, copy)
        again = resume(proc.stderr, second, replace_state=(state, copy))
        check_nothing_lost(first + second, [out1, proc.stdout, again], copy)
    finally:
        subprocess.run(["umount", mount], timeout=30)
        os.rmdir(mount)


def test_state_file_that_cannot_grow():
    # the same without root: a file-size limit (RLIMIT_FSIZE, SIGXFSZ
    # ignored) makes every save fail with EFBIG
    import resource
    state = fresh_state("stream-fsize.tdbf")
    lines = keys(4000, 4000)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    proc = subprocess.run([TDBF, "dedup"] + WINDOW + ["--state", state],
                          input=joined(lines), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, preexec_fn=limit, timeout=60)
    check(proc.returncode == 3, "exit %d: %r" % (proc.returncode, proc.stderr))
    check(b"cannot save the state: File too large" in proc.stderr and
          not os.path.exists(state), "message %r" % proc.stderr)
    check_nothing_lost(lines, [proc.stdout, resume(proc.stderr, lines)], state)


# ---- nothing silent past capacity ------------------------------------------------

def test_capacity_stop_names_the_fix_and_resumes():
    state = fresh_state("stream-capacity.tdbf")
    lines = [str(i) for i in range(1, 100001)]
    proc = run(["dedup", "--last", "10", "--design", "bloom", "--error", "1e-6",
                "--seed", SEED, "--state", state, "--stats"], joined(lines), expect=1)
    found = re.search(rb"\(stdin\):(\d+): the filter is past its capacity", proc.stderr)
    check(found is not None and b"--last N" in proc.stderr, "message %r" % proc.stderr)
    stopped = int(found.group(1))
    check(b"capacity stop           yes" in proc.stderr, "stats %r" % proc.stderr)
    # every line before the stop was decided and written: these are all new
    check(lines_of(proc.stdout) == lines[:stopped - 1],
          "output before the stop: %d lines for %d" % (len(lines_of(proc.stdout)), stopped - 1))
    first, _, _ = resume_command(proc.stderr)
    check(first == stopped, "resume from %d, stopped at %d" % (first, stopped))
    check(b'"items":%d,' % (stopped - 1) in run(["info", "--json", state]).stdout,
          "the state does not hold the lines before the stop")
    # time windows of fixed size: the fix is --capacity; they stop long
    # before dropping most new lines (they dropped 97 % and 94 % silently)
    for design in ("clock", "rotating"):
        proc = run(["dedup", "--window", "10m", "--design", design],
                   joined(lines), expect=1)
        check(b"--capacity N" in proc.stderr, "%s: %r" % (design, proc.stderr))
        check(len(lines_of(proc.stdout)) < 10000, "%s: %d lines before the stop" % (
            design, len(lines_of(proc.stdout))))


def peak_ratio(stderr):
    found = re.search(rb"error: peak estimate +[0-9.e-]+ \(([0-9.e+-]+)x", stderr)
    check(found is not None, "no peak estimate: %r" % stderr)
    return float(found.group(1))


def test_defaults_never_stop_at_capacity():
    # a burst through a pipe (every line at one arrival time), a count
    # window far shorter than the input, and bursts of stamped lines: the
    # default designs' estimates stay within --error itself, well under
    # the stop at 1.5x
    burst = ("\n".join(str(i) for i in range(1, 1000001)) + "\n").encode()
    proc = run(["dedup", "--window", "10m", "--stats"], burst)
    check(peak_ratio(proc.stderr) <= 1, "tlbf-line burst: %r" % proc.stderr)
    proc = run(["dedup", "--last", "100000", "--stats"], burst + burst)
    check(peak_ratio(proc.stderr) <= 1, "apbf-line: %r" % proc.stderr)
    stamped = []
    for second in range(0, 3600 * 4, 600):
        stamped += ["%d k%d" % (1700000000 + second, i) for i in range(50000)]
    proc = run(["dedup", "--window", "1h", "--time-field", "1", "--field", "2",
                "--stats"], joined(stamped))
    check(peak_ratio(proc.stderr) <= 1, "stamped bursts: %r" % proc.stderr)


# ---- time that cannot poison ------------------------------------------------------

# a key seen at 01:00 and again a day later, after a line stamped 2099
POISON = [b"2024-05-01T00:00:00Z b", b"2099-01-01T00:00:00Z x",
          b"2024-05-01T01:00:00Z a", b"2024-05-02T01:00:00Z a"]
STAMPED = ["dedup", "--window", "1h", "--time-field", "1", "--time-format",
           "iso8601", "--field", "2"]


def poison_lines(*numbers):
    return b"".join(POISON[n - 1] + b"\n" for n in numbers)


def test_far_future_time_cannot_poison_the_window():
    data = poison_lines(1, 2, 3, 4)
    # default: stop at the line, with the lines before it saved
    state = fresh_state("stream-poison.tdbf")
    proc = run(STAMPED + ["--state", state], data, expect=1)
    check(re.search(rb"\(stdin\):2: time field 1 '2099-01-01T00:00:00Z' is more than "
                    rb"[^']* ahead of the clock \(--max-skew\)", proc.stderr) is not None,
          "message %r" % proc.stderr)
    check(proc.stdout == poison_lines(1), "stop: %r" % proc.stdout)
    first, words, _ = resume_command(proc.stderr)
    check(first == 2, "resume from line %d" % first)
    again = run(words[1:], poison_lines(3, 4)).stdout   # the bad line mended away
    check(again == poison_lines(3, 4), "resumed: %r" % again)
    # --skip-bad: passed through, not taken; the key a day later passes
    proc = run(STAMPED + ["--skip-bad", "--stats"], data)
    check(proc.stdout == data, "skip: %r" % proc.stdout)
    check(b"1 ahead of the clock" in proc.stderr and b"(stdin):2:" in proc.stderr,
          "skip summary %r" % proc.stderr)
    # --drop-bad: dropped; the key a day later passes
    proc = run(STAMPED + ["--drop-bad"], data)
    check(proc.stdout == poison_lines(1, 3, 4), "drop: %r" % proc.stdout)
    # without the check the stamp is taken, every later line is clamped to
    # 2099, the window stops moving and the key a day later is lost: what
    # the default guards against
    proc = run(STAMPED + ["--max-skew", "off", "--stats"], data)
    check(proc.stdout == poison_lines(1, 2, 3), "off: %r" % proc.stdout)
    check(b"2 lines had a time before an earlier line's" in proc.stderr,
          "clamp summary %r" % proc.stderr)


def test_backward_times_are_clamped_and_counted():
    data = b"100 a\n50 b\n40 c\n200 a\n"
    proc = run(["dedup", "--window", "60s", "--time-field", "1", "--field", "2",
                "--stats"], data)
    check(proc.stdout == b"100 a\n50 b\n40 c\n200 a\n", "output %r" % proc.stdout)
    check(re.search(rb"times clamped back +2\n", proc.stderr) is not None and
          b"2 lines had a time before" in proc.stderr, "stats %r" % proc.stderr)
    proc = run(["dedup", "--window", "60s", "--max-skew", "1h"], b"a\n", expect=2)
    check(b"--max-skew applies to --time-field" in proc.stderr, "%r" % proc.stderr)
    run(["dedup", "--window", "60s", "--time-field", "1", "--skip-bad",
         "--drop-bad"], b"", expect=2)


# ---- records, --invert, --count -----------------------------------------------------

def test_a_resumed_run_without_options_keeps_the_window():
    # a run that names no window takes the state's: it reads the clock for
    # it (keys expire) and saves it, so a later run naming it is accepted
    state = fresh_state("resumed-window.tdbf")
    run(["dedup", "--window", "1s", "--seed", SEED, "--state", state], b"a\n")
    again = run(["dedup", "--state", state], b"a\nb\n")
    check(again.stdout == b"b\n", "resumed at once: %r" % again.stdout)
    named = run(["dedup", "--window", "1s", "--state", state], b"c\n")
    check(named.stdout == b"c\n", "named window refused or wrong: %r" % named.stdout)
    time.sleep(2.5)            # past the window and its slack (a quarter of it)
    later = run(["dedup", "--state", state], b"a\nb\nc\n")
    check(later.stdout == b"a\nb\nc\n", "keys did not expire: %r" % later.stdout)


def test_null_data_records():
    proc = run(["dedup", "--last", "100", "--null-data"], b"a\0x\ny\0a\0x\ny\0last")
    check(proc.stdout == b"a\0x\ny\0last\0", "output %r" % proc.stdout)


def test_invert_prints_only_the_repeats():
    proc = run(["dedup", "--last", "100", "--invert"], b"a\nb\na\nc\nb\na\n")
    check(proc.stdout == b"a\nb\na\n", "output %r" % proc.stdout)


def test_count_prefixes_every_line():
    proc = run(["dedup", "--last", "100", "--count"], b"a\nb\na\n")
    check(proc.stdout == b"0\ta\n0\tb\n1\ta\n", "output %r" % proc.stdout)


if __name__ == "__main__":
    try:
        sys.exit(main(globals()))
    except Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)
