#!/usr/bin/env python3
"""End-to-end tests of the sliding quotient filter (sqf) in tdbf: its plan
(the count design of least memory, shown beside apbf-line, the fastest),
dedup with --design sqf against an exact window, its saved state in
`tdbf info` and a resumed run.

Usage: python3 tests/cli/test_sqf.py [PATH/TO/tdbf]   (default build/tdbf)

Runs on test_dedup.py's runner: "ok NAME" or "FAIL NAME: why" per test,
and the last line is "cli: N passed, N failed".
"""

import json
import os
import random
import sys

from test_dedup import (SEED, check, compare, exact_count_window, flags_from_count, joined,
                        main, mixed_stream, run, tmp)
from test_defaults import wilson_low


def plan_json(args):
    return json.loads(run(["plan", "--json"] + args).stdout)


def saved_state(name, options, data):
    path = tmp(name)
    if os.path.exists(path):
        os.unlink(path)
    run(["dedup", "--state", path, "--seed", SEED] + options, data)
    return path


# ---- plan ---------------------------------------------------------------

def test_plan_sqf_is_what_dedup_builds():
    for window, error in ((1000, 0.01), (100000, 0.01), (1000000, 0.001), (50000, 1e-4)):
        args = ["--last", str(window), "--error", str(error)]
        doc = plan_json(["--design", "sqf"] + args)
        what = "sqf %d %g" % (window, error)
        check(doc["design"] == "sqf" and doc["dedup_default"] is False, "%s: %r" % (what, doc))
        g = -(-window // 7)
        check((doc["k"], doc["l"], doc["g"], doc["window"]) == (1, 7, g, 7 * g),
              "%s: k, l, g, window %r" % (what, doc))
        check(doc["built"] == {"k": 1, "l": 7, "window_items": 7 * g, "window_ns": 0},
              "%s: built %r" % (what, doc["built"]))
        check(doc["expiry"]["slack_items"] == g, "%s: slack %r" % (what, doc["expiry"]))
        check(0 < doc["fp"] <= error, "%s: fp %g" % (what, doc["fp"]))
        check(doc["unit_bits"] in (512, 1024), "%s: bin %r" % (what, doc["unit_bits"]))
        check(abs(doc["bits_per_item"] - 8.0 * doc["bytes"] / window) < 1e-6,
              "%s: bits/item %r" % (what, doc))
        info = json.loads(run(["info", "--json", saved_state(
            "plan.tdbf", ["--design", "sqf"] + args, b"a\nb\n")]).stdout)
        have = {name: info[name] for name in ("k", "l", "window_items", "window_ns")}
        check(have == doc["built"], "%s: plan %r, dedup built %r" % (what, doc["built"], have))
        check(info["memory_bytes"] == doc["bytes"] and info["generation_size"] == g,
              "%s: info %r" % (what, info))
        check(info["slice_bits"] == doc["unit_bits"], "%s: bins of %d bits, plan %d" % (
            what, info["slice_bits"], doc["unit_bits"]))


def test_plan_sqf_bin_sizes():
    # --block-bits forces the bin (cfg.unit_bits); without it the planner
    # takes the least memory of the two
    args = ["--design", "sqf", "--last", "200000", "--error", "0.01"]
    auto = plan_json(args)
    forced = {bits: plan_json(args + ["--block-bits", str(bits)]) for bits in (512, 1024)}
    for bits, doc in forced.items():
        check(doc["unit_bits"] == bits and doc["fp"] <= 0.01, "%d: %r" % (bits, doc))
    least = min(forced.values(), key=lambda doc: doc["bytes"])
    check(auto["bytes"] == least["bytes"] and auto["unit_bits"] == least["unit_bits"],
          "auto %r, forced %r" % (auto, forced))
    text = run(["plan"] + args).stdout.decode()
    rows = [line.split() for line in text.splitlines()]
    check(["built", str(auto["unit_bits"] // 8)] in [r[:2] for r in rows], "built:\n" + text)
    other = 64 if auto["unit_bits"] == 1024 else 128
    check(["%d-byte" % other, "bins"] in [r[:2] for r in rows], "other bins:\n" + text)
    check("apbf-line" in text and "least memory" in text and "fastest" in text,
          "no apbf-line beside it:\n" + text)


def test_default_plan_shows_sqf_as_least_memory():
    for window, error in (("1M", "0.01"), ("100k", "0.001")):
        args = ["--last", window, "--error", error]
        doc = plan_json(args)
        sqf = plan_json(["--design", "sqf"] + args)
        check(doc["design"] == "apbf-line" and doc["dedup_default"] is True,
              "default %r" % doc)
        least = doc["least_memory"]
        check(least["design"] == "sqf", "least_memory %r" % least)
        for field in ("unit_bits", "g", "window", "bytes", "bits_per_item", "fp"):
            check(least[field] == sqf[field], "%s: %r, plan --design sqf %r" % (
                field, least[field], sqf[field]))
        check(least["bytes"] < doc["bytes"], "sqf %d bytes, apbf-line %d" % (
            least["bytes"], doc["bytes"]))
        text = run(["plan"] + args).stdout.decode()
        rows = {line.split()[0]: line.split() for line in text.splitlines() if line.strip()}
        check("sqf" in rows and rows["sqf"][1:3] == ["1", "7"], "no sqf row:\n" + text)
        check("fastest" in text and "least memory" in text, "legend:\n" + text)


def test_plan_sqf_refusals():
    for args in (["--design", "sqf", "--last", "1000", "--block-bits", "64"],
                 ["--design", "sqf", "--last", "1000", "--k", "1", "--l", "7"],
                 ["--design", "sqf", "--last", "1000", "--capacity", "10"]):
        proc = run(["plan"] + args, expect=2)
        check(proc.stdout == b"" and proc.stderr.startswith(b"tdbf plan: "),
              "%s: %r %r" % (args, proc.stdout, proc.stderr))
    proc = run(["plan", "--design", "sqf", "--last", "1000", "--block-bits", "64"], expect=2)
    check(b"sqf" in proc.stderr, "--block-bits message %r" % proc.stderr)
    check(b"sqf" in run(["plan", "--help"]).stdout, "plan --help does not name sqf")


def test_plan_sqf_time_window():
    # a time window: the first core at the capacity, beside tlbf-line's
    plan = json.loads(run(["plan", "--design", "sqf", "--window", "1m", "--capacity", "1M",
                           "--error", "0.001", "--json"]).stdout)
    check(plan["design"] == "sqf" and plan["window_ns"] == 60 * 10**9, "time plan %r" % plan)
    check(plan["capacity"] == 10**6 and plan["fp"] <= 0.001, "time plan %r" % plan)
    check(plan["generation_ns"] == -(-60 * 10**9 // 7), "generation %r" % plan)
    line = json.loads(run(["plan", "--design", "tlbf-line", "--window", "1m", "--capacity",
                           "1M", "--error", "0.001", "--json"]).stdout)
    check(plan["bits_per_item"] < line["bits_per_item"],
          "sqf %.2f bits/item, tlbf-line %.2f" % (plan["bits_per_item"], line["bits_per_item"]))
    text = run(["plan", "--design", "sqf", "--window", "1m"]).stdout.decode()
    check("tlbf-line" in text and "generation" in text, text)


# ---- dedup --------------------------------------------------------------

def test_dedup_sqf_vs_exact_window():
    # repeats inside the window are all dropped; new keys (and keys far
    # past window + slack) dropped at most at the planned rate
    rng = random.Random(36)
    window = 1000
    lines = mixed_stream(40000, window, rng)
    exact = exact_count_window(lines, window)
    out = run(["dedup", "--last", str(window), "--design", "sqf", "--count",
               "--seed", SEED], joined(lines)).stdout
    flags, printed = flags_from_count(out)
    check(printed == lines, "--count did not print every line")
    compare(flags, exact, 0.01, "sqf")


def test_dedup_sqf_fp_just_before_a_turn():
    # distinct keys only: every dropped line is a false positive.  The
    # promise is checked where it is weakest, the last tenth of each
    # generation (the newest tag holds nearly g keys, seven full ones
    # behind it), once the filter holds a full window
    window, error, lines = 20000, 0.01, 300000
    g = plan_json(["--design", "sqf", "--last", str(window), "--error", str(error)])["g"]
    data = "".join("d%d %d\n" % (i, i) for i in range(lines)).encode()
    kept = [False] * lines
    out = run(["dedup", "--design", "sqf", "--last", str(window), "--error", str(error),
               "--seed", SEED, "--field", "2"], data).stdout
    for line in out.split(b"\n"):
        if line:
            kept[int(line.split()[1])] = True
    late = [i for i in range(8 * g, lines) if i % g >= g - g // 10]
    dropped = sum(1 for i in late if not kept[i])
    check(len(late) > 25000, "too few probes: %d" % len(late))
    check(wilson_low(dropped, len(late)) <= error,
          "%d of %d new keys dropped late in a generation (%.4f > %g)"
          % (dropped, len(late), dropped / len(late), error))
    everywhere = lines - sum(kept)
    check(wilson_low(everywhere, lines) <= error,
          "%d of %d new keys dropped" % (everywhere, lines))


def test_sqf_state_resumes_and_info_shows_bins():
    rng = random.Random(37)
    lines = mixed_stream(30000, 1000, rng)
    half = len(lines) // 2
    options = ["--design", "sqf", "--last", "1000", "--seed", SEED]
    whole = run(["dedup"] + options, joined(lines)).stdout
    state = saved_state("resume.tdbf", options[:-2], joined(lines[:half]))
    part1 = run(["dedup"] + options, joined(lines[:half])).stdout
    part2 = run(["dedup", "--state", state], joined(lines[half:])).stdout
    check(part1 + part2 == whole, "split run differs from one run")
    doc = json.loads(run(["info", "--json", state]).stdout)
    check(doc["design"] == "sqf" and doc["items"] == len(lines), "info %r" % doc)
    check((doc["k"], doc["l"]) == (1, 7) and doc["slice_bits"] in (512, 1024), "shape %r" % doc)
    check(doc["slices"] * doc["slice_bits"] // 8 <= doc["memory_bytes"], "bins %r" % doc)
    check(doc["generation_fill"] == len(lines) % doc["generation_size"],
          "generation fill %d after %d adds of %d" % (
              doc["generation_fill"], len(lines), doc["generation_size"]))
    text = run(["info", state]).stdout.decode()
    bins = "bins         %d of %s bits" % (doc["slices"], format(doc["slice_bits"], ","))
    check(bins in text and "k, l         1, 7" in text, "info text:\n" + text)
    # the resumed filter still holds the window: repeats of the last lines go
    again = run(["dedup", "--state", state], joined(lines[-200:]))
    check(again.stdout == b"", "a third run printed %r" % again.stdout[:80])


if __name__ == "__main__":
    sys.exit(main(globals()))
