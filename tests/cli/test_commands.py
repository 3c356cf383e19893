#!/usr/bin/env python3
"""End-to-end tests of `tdbf plan` against what tdbf_open builds, and of
the exit status every command of tdbf and tdbf-lab gives (0 ok, 1 bad
input data, 2 usage, 3 I/O, 130/143 on SIGINT/SIGTERM).

Usage: python3 tests/cli/test_commands.py [PATH/TO/tdbf]   (default build/tdbf)

Runs on test_dedup.py's runner: "ok NAME" or "FAIL NAME: why" per test,
and the last line is "cli: N passed, N failed".
"""

import json
import os
import signal
import subprocess
import sys

from test_dedup import LAB, TDBF, check, main, run, send_when_caught, tmp

# (plan options, the same filter made by `tdbf dedup`): the plan's "built"
# shape must be what `tdbf info` reports for the saved filter
PLANS = [
    (["--design", "apbf", "--error", "0.001", "--window", "1000000"],
     ["--design", "apbf", "--error", "0.001", "--last", "1000000"]),
    (["--design", "apbf", "--error", "0.01", "--window", "1000000"],
     ["--design", "apbf", "--error", "0.01", "--last", "1000000"]),
    (["--error", "0.01", "--last", "1000000"],
     ["--error", "0.01", "--last", "1000000"]),
    (["--error", "0.001", "--window", "10m"],
     ["--error", "0.001", "--window", "10m", "--capacity", "1024"]),
    (["--design", "clock", "--error", "0.01", "--window", "10m"],
     ["--design", "clock", "--error", "0.01", "--window", "10m"]),
    (["--design", "apbbf", "--error", "0.01", "--window", "100000"],
     ["--design", "apbbf", "--error", "0.01", "--last", "100000"]),
    (["--design", "apbf-line", "--error", "0.01", "--window", "1000000"],
     ["--error", "0.01", "--last", "1000000"]),
    (["--design", "apbf-line", "--error", "0.001", "--window", "100000"],
     ["--design", "apbf-line", "--error", "0.001", "--last", "100000"]),
    (["--design", "sqf", "--error", "0.01", "--window", "1000000"],
     ["--design", "sqf", "--error", "0.01", "--last", "1000000"]),
    (["--design", "sqf", "--error", "0.001", "--last", "100000", "--block-bits", "512"],
     ["--design", "sqf", "--error", "0.001", "--last", "100000"]),
    (["--design", "tlbf", "--error", "0.001", "--time", "60s", "--capacity", "100000"],
     ["--design", "tlbf", "--error", "0.001", "--window", "60s", "--capacity", "100000"]),
    (["--design", "tlbf", "--error", "0.01", "--time", "10m"],
     ["--design", "tlbf", "--error", "0.01", "--window", "10m"]),
    (["--design", "tlbf-line", "--error", "0.01", "--time", "60s", "--capacity", "10000"],
     ["--error", "0.01", "--window", "60s", "--capacity", "10000"]),
    (["--design", "clock", "--error", "0.01", "--time", "60s", "--capacity", "5000"],
     ["--design", "clock", "--error", "0.01", "--window", "60s", "--capacity", "5000"]),
    (["--design", "rotating", "--error", "0.01", "--window", "10000"],
     ["--design", "rotating", "--error", "0.01", "--last", "10000"]),
    (["--design", "rotating", "--error", "0.001", "--time", "1h"],
     ["--design", "rotating", "--error", "0.001", "--window", "1h"]),
    (["--design", "fpdecay", "--error", "0.01", "--window", "10000"],
     ["--design", "fpdecay", "--error", "0.01", "--last", "10000"]),
    (["--design", "stable", "--error", "0.01", "--window", "10000"],
     ["--design", "stable", "--error", "0.01", "--last", "10000"]),
]


def test_plan_shows_what_tdbf_open_builds():
    for plan_options, dedup_options in PLANS:
        doc = json.loads(run(["plan", "--json"] + plan_options).stdout)
        state = tmp("built.tdbf")
        if os.path.exists(state):
            os.unlink(state)
        run(["dedup", "--state", state] + dedup_options, b"a\nb\n")
        info = json.loads(run(["info", "--json", state]).stdout)
        built = doc["built"]
        have = {name: info[name] for name in ("k", "l", "window_items", "window_ns")}
        check(built == have, "%s: plan says it builds %r, dedup built %r" % (
            " ".join(plan_options), built, have))


def test_plan_marks_built_and_least_memory():
    # the case users met: the least-memory (16, 139) and the built (15, 61)
    doc = json.loads(run(["plan", "--json", "--design", "apbf", "--error", "0.001",
                          "--window", "1000000"]).stdout)
    check((doc["k"], doc["l"]) == (16, 139), "least memory %r" % ((doc["k"], doc["l"]),))
    check((doc["built"]["k"], doc["built"]["l"]) == (15, 61), "built %r" % doc["built"])
    check(doc["built_is_least_memory"] is False, "flag")
    text = run(["plan", "--design", "apbf", "--error", "0.001", "--window",
                "1000000"]).stdout.decode()
    rows = [row.split() for row in text.splitlines()]
    check(["least", "memory", "16", "139"] in [r[:4] for r in rows], "no least row:\n" + text)
    check(["built", "15", "61"] in [r[:3] for r in rows], "no built row:\n" + text)
    check("tdbf dedup --design apbf" in text, "legend:\n" + text)
    text = run(["plan", "--design", "apbbf", "--error", "0.01", "--window", "1e6"]).stdout
    check(b"built " in text and b"least memory" in text, "apbbf:\n%s" % text)


def test_exit_codes_usage():
    for args in ([], ["nosuch"], ["--bogus"], ["help", "nosuch"],
                 ["plan"], ["plan", "--window", "10", "--last", "10"], ["plan", "--bogus"],
                 ["plan", "--design", "apbf", "--window", "10m"],
                 ["plan", "--design", "clock", "--last", "1000"],
                 ["plan", "--window", "10 parsecs"], ["plan", "--k", "4", "--window", "100"],
                 ["plan", "--error", "0.01", "--window", "1e30"],
                 ["plan", "--design", "clock", "--error", "0.01", "--time", "1e30"],
                 ["info"], ["info", "a", "b"], ["demo"], ["bench", "--quick"],
                 ["eval"], ["eval", "nosuch"], ["eval", "table2", "--bogus"],
                 ["dedup", "--bogus"], ["dedup"], ["dedup", "--last", "5", "--window", "1m"],
                 ["dedup", "--window", "1m", "--design", "apbf"],
                 ["dedup", "--last", "1e9", "--max-memory", "1M"],
                 ["version", "--bogus"]):
        proc = run(args, b"a\n", expect=2)
        check(proc.stdout == b"", "%s printed %r" % (args, proc.stdout[:80]))
    # the developers' program: its own usage errors; its commands named
    # to whoever tries them in tdbf
    for args in ([], ["nosuch"], ["demo", "--bogus"], ["bench", "--bogus"],
                 ["bench", "--windows", "0"], ["eval"], ["version", "--bogus"]):
        proc = run(args, b"a\n", expect=2, program=LAB)
        check(proc.stdout == b"", "tdbf-lab %s printed %r" % (args, proc.stdout[:80]))
    proc = run(["bench"], expect=2)
    check(b"tdbf-lab" in proc.stderr, "tdbf bench: %r" % proc.stderr)


def test_exit_codes_io():
    missing = tmp("no/such/dir/file")
    for args in (["info", tmp("absent.tdbf")],
                 ["dedup", "--last", "5", tmp("absent.txt")],
                 ["dedup", "--last", "5", "--state", missing],
                 ["dedup", "--last", "5", "--seed-file", tmp("absent.seed")],
                 ["eval", "table2", "--csv", missing]):
        proc = run(args, b"a\n", expect=3)
        check(b"tdbf " in proc.stderr, "%s: %r" % (args, proc.stderr))
    proc = run(["bench", "--quick", "--designs", "bloom", "--csv", missing], expect=3,
               program=LAB)
    check(b"tdbf-lab bench: " in proc.stderr, "tdbf-lab bench: %r" % proc.stderr)
    # a full output device
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            proc = subprocess.run([TDBF, "plan", "--error", "0.01", "--window", "1000"],
                                  stdout=full, stderr=subprocess.PIPE, timeout=60)
        check(proc.returncode == 3, "plan > /dev/full: exit %d" % proc.returncode)


def test_exit_codes_data():
    bad = tmp("corrupt.tdbf")
    with open(bad, "wb") as f:
        f.write(b"not a filter at all\n")
    run(["info", bad], expect=1)
    run(["dedup", "--state", bad], b"a\n", expect=1)
    good = tmp("good-state.tdbf")
    if os.path.exists(good):
        os.unlink(good)
    run(["dedup", "--last", "100", "--state", good], b"a\n")
    run(["dedup", "--state", good, "--last", "200"], b"a\n", expect=1)
    run(["dedup", "--state", good, "--field", "2"], b"a\n", expect=1)
    run(["dedup", "--window", "1m", "--time-field", "1"], b"noon a\n", expect=1)


def test_exit_codes_ok_and_help():
    for program, args in [(TDBF, a) for a in (
                              ["--help"], ["help"], ["--version"], ["version"],
                              ["plan", "--help"], ["dedup", "--help"], ["info", "--help"],
                              ["eval", "--help"], ["help", "eval"])] + \
                         [(LAB, a) for a in (
                              ["--help"], ["help"], ["--version"], ["version"],
                              ["demo", "--help"], ["bench", "--help"], ["help", "bench"])]:
        proc = run(args, program=program)
        check(b"Exit status: 0 success; 1 bad input data" in proc.stdout and
              b"3 I/O error" in proc.stdout and b"130 / 143" in proc.stdout
              or args in (["--version"], ["version"]),
              "%s: no exit status paragraph" % args)


def stopped(program, args, sig):
    proc = subprocess.Popen([program] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    send_when_caught(proc, sig, 0.2)
    proc.communicate(timeout=60)
    return proc.returncode


def test_exit_codes_signals():
    # long runs stopped by a signal end with 128 + the signal
    for program, args in ((LAB, ["bench", "--quiet"]), (LAB, ["demo"]),
                          (TDBF, ["eval", "compare"])):
        for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            got = stopped(program, args, sig)
            check(got == status, "%s %s, %s: exit %d" % (
                os.path.basename(program), args, sig.name, got))


if __name__ == "__main__":
    sys.exit(main(globals()))
