#!/usr/bin/env python3
"""End-to-end tests of `tdbf eval` (CI-sized: the tbf experiment in --quick).

Usage: python3 tests/cli/test_eval.py [PATH/TO/tdbf]   (default build/tdbf)

Runs on test_dedup.py's runner and helpers: "ok NAME" or "FAIL NAME: why"
per test, and the last line is "cli: N passed, N failed".  Each experiment
must exit 0 and write a well-formed CSV: one header, the expected number of
columns in every row, numbers where numbers belong, and the expected row
count (25 for Table 2, 16 for Table 3, 2 streams x 4 bits-per-item points
for tbf, 4 (k, l) pairs x 100 samples for fig6, 2 capacities x 90 s for
tlbf-slices --quick).
"""

import csv
import math
import sys

from test_dedup import Failure, check, main, run, tmp

# Columns that hold text; every other column must parse as a number.
TEXT_COLUMNS = {"differs", "stream"}


def read_csv(path, rows, columns):
    """Parse the CSV at path; check its shape and numeric fields."""
    with open(path, newline="") as f:
        table = list(csv.reader(f))
    check(len(table) == rows + 1, "%s: %d lines, expected header + %d" % (
        path, len(table), rows))
    header = table[0]
    check(len(header) == columns, "%s: %d columns, expected %d: %s" % (
        path, len(header), columns, header))
    check(len(set(header)) == len(header), "%s: duplicate column names" % path)
    records = []
    for n, row in enumerate(table[1:], 2):
        check(len(row) == columns, "%s line %d: %d fields, expected %d" % (
            path, n, len(row), columns))
        record = {}
        for name, field in zip(header, row):
            if name in TEXT_COLUMNS:
                check(field != "", "%s line %d: empty %s" % (path, n, name))
                record[name] = field
                continue
            try:
                record[name] = float(field)
            except ValueError:
                raise Failure("%s line %d: %s = %r is not a number" % (
                    path, n, name, field))
            check(math.isfinite(record[name]) or name.startswith("ratio"),
                  "%s line %d: %s = %r" % (path, n, name, field))
        records.append(record)
    return records


def eval_csv(experiment, rows, columns, *options):
    path = tmp("eval_%s.csv" % experiment)
    proc = run(["eval", experiment, "--csv", path] + list(options))
    check(proc.stdout.strip() != b"", "eval %s printed no table" % experiment)
    return read_csv(path, rows, columns), proc.stdout.decode()


def test_eval_table2():
    records, _ = eval_csv("table2", 25, 13)
    by_pair = {(int(r["k"]), int(r["l"])): r for r in records}
    check(len(by_pair) == 25, "table2: repeated (k, l) pairs")
    fp = by_pair[(4, 3)]["fp_paper"]
    check("%.6f" % fp == "0.100586", "table2: fp_paper(4, 3) = %r" % fp)
    for r in records:
        check(0.0 < r["fp_paper"] < 0.2 and 0.0 < r["fp_exact"] < 0.2,
              "table2: fp out of range: %r" % r)


def test_eval_table3():
    records, _ = eval_csv("table3", 16, 20)
    for r in records:
        check(r["block_bits"] in (64.0, 512.0), "table3: B = %r" % r["block_bits"])
        check(0.0 < r["fp_apbbf"] < 0.1, "table3: APBBF fp %r" % r["fp_apbbf"])
        check(0.9 < r["capacity"] <= 1.0, "table3: capacity %r" % r["capacity"])


def test_eval_tbf_quick():
    records, out = eval_csv("tbf", 8, 16, "--quick")
    check("QUICK RUN" in out, "tbf --quick does not say it is quick")
    check(sorted({r["stream"] for r in records}) == ["power_law", "uniform"],
          "tbf: streams %r" % [r["stream"] for r in records])
    for r in records:
        check(r["penalty_standard"] > 0 and r["penalty_inferential"] > 0,
              "tbf: zero penalty: %r" % r)
        check(0.0 <= r["posterior_error"] <= 0.5,
              "tbf: posterior error %r" % r["posterior_error"])
        # the stream generators: Pos/Neg near the paper's Table 3
        check(abs(r["pos_neg"] - r["paper_pos_neg"]) < 0.1,
              "tbf: Pos/Neg %r, paper %r" % (r["pos_neg"], r["paper_pos_neg"]))


def test_eval_fig6_quick():
    # 4 (k, l) pairs x 10^4 inserts sampled every 100
    records, out = eval_csv("fig6", 400, 5, "--quick")
    check("QUICK RUN" in out, "fig6 --quick does not say it is quick")
    pairs = sorted({(int(r["k"]), int(r["l"])) for r in records})
    check(pairs == [(4, 3), (7, 5), (10, 7), (14, 11)], "fig6: pairs %r" % pairs)
    for r in records:
        check(0.0 <= r["fp_measured"] <= 1.0, "fig6: fp_measured %r" % r)
        check(0.0 < r["fp_analytic"] < 0.2, "fig6: fp_analytic %r" % r)
        check(1 <= r["inserts"] <= 10000 and r["inserts"] % 100 == 0,
              "fig6: inserts %r" % r["inserts"])
    # the analytic worst case is ordered by the aimed error
    analytic = {(int(r["k"]), int(r["l"])): r["fp_analytic"] for r in records}
    check(analytic[(4, 3)] > analytic[(7, 5)] > analytic[(10, 7)]
          > analytic[(14, 11)], "fig6: analytic fp not decreasing: %r" % analytic)
    # over all samples the mean measured fp of (4, 3) is near its worst case
    mean = [r["fp_measured"] for r in records if int(r["k"]) == 4]
    mean = sum(mean) / len(mean)
    check(0.02 < mean < 0.2, "fig6: mean measured fp of (4, 3) = %r" % mean)


def test_eval_tlbf_slices_quick():
    # 2 capacities x 90 simulated seconds
    records, out = eval_csv("tlbf-slices", 180, 6, "--quick")
    check("QUICK RUN" in out, "tlbf-slices --quick does not say it is quick")
    check(sorted({int(r["capacity"]) for r in records}) == [100, 100000],
          "tlbf-slices: capacities")
    for r in records:
        check(r["slices"] >= 2 and r["slice0_bits"] > 0,
              "tlbf-slices: slices %r" % r)
        check(r["bits_per_item"] > 0, "tlbf-slices: bits/item %r" % r)
        check(0.0 <= r["fp_estimated"] <= 0.02,
              "tlbf-slices: fp_estimated %r" % r)
    seconds = sorted(int(r["t_s"]) for r in records if r["capacity"] == 100)
    check(seconds == list(range(1, 91)), "tlbf-slices: seconds %r" % seconds[:5])


def test_eval_list_and_usage():
    out = run(["eval", "--list"]).stdout.decode()
    for name in ("table2", "table3", "tbf", "fig6", "tlbf-slices"):
        check(name in out, "eval --list lacks %s" % name)
    run(["eval"], expect=2)
    run(["eval", "nosuch"], expect=2)
    run(["eval", "table2", "--csv", tmp("no/such/dir.csv")], expect=1)


if __name__ == "__main__":
    sys.exit(main(globals()))
