#!/usr/bin/env python3
"""Markdown tables of `tdbf-lab bench --csv` results, for docs/results.md's speed section.

Usage: scripts/bench_table.py RESULTS.csv [--error 0.01]

One table per window: bits per element, single-call and batch ns per
insert / query with the ratio to the inline Bloom filter measured in the
same run, and the single-call latency percentiles (p99.9, max) of adds.
Standard library only, any python3.
"""
import csv
import sys

ORDER = ["inline-bloom", "bloom", "apbf", "apbbf-512", "apbbf-64", "apbf-fast",
         "apbf-line", "apbf-line-64", "apbf-line-128", "sqf", "sqf-64", "sqf-128"]
NAMES = {
    "inline-bloom": "classic Bloom, inline (test-and-set)",
    "bloom": "classic Bloom (library)",
    "apbf": "APBF",
    "apbbf-512": "APBBF, 64-byte blocks",
    "apbbf-64": "APBBF, 8-byte blocks",
    "apbf-fast": "APBF, fast plan",
    "apbf-line": "apbf-line (the planner's unit)",
    "apbf-line-64": "apbf-line, 64-byte units",
    "apbf-line-128": "apbf-line, 128-byte units",
    "sqf": "sqf (the planner's bin)",
    "sqf-64": "sqf, 64-byte bins",
    "sqf-128": "sqf, 128-byte bins",
}


def number(text):
    return float(text) if text not in ("", None) else None


def window_label(window):
    exponent = len(str(window)) - 1
    if window == 10 ** exponent:
        return "10^%d" % exponent
    return "{:,}".format(window)


def cell(ns, base):
    if ns is None:
        return "–"
    if base:
        return "%.0f (%.2f×)" % (ns, ns / base)
    return "%.0f" % ns


def table(rows, window, error):
    pick = {}
    for r in rows:
        if int(r["window"]) == window and abs(float(r["error"]) - error) < 1e-12:
            pick[(r["design"], r["variant"])] = r
    single_base = pick.get(("inline-bloom", "single"))
    batch_base = pick.get(("inline-bloom", "batch"))
    out = ["| window %s, error %g | bits/elem | single insert | single query | "
           "batch insert | batch query | add p99.9 / max (µs) |" % (window_label(window), error),
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for design in ORDER:
        single = pick.get((design, "single"))
        batch = pick.get((design, "batch"))
        if not single:
            continue
        sb = single_base if design != "inline-bloom" else None
        bb = batch_base if design != "inline-bloom" else None
        p999, worst = number(single.get("insert_p999_ns")), number(single.get("insert_max_ns"))
        latency = "–" if p999 is None else "%.2f / %.0f" % (p999 / 1000, worst / 1000)
        out.append("| %s | %.1f | %s | %s | %s | %s | %s |" % (
            NAMES.get(design, design), float(single["bits_per_element"]),
            cell(number(single["ns_insert"]), sb and number(sb["ns_insert"])),
            cell(number(single["ns_query"]), sb and number(sb["ns_query"])),
            cell(batch and number(batch["ns_insert"]), bb and number(bb["ns_insert"])),
            cell(batch and number(batch["ns_query"]), bb and number(bb["ns_query"])),
            latency))
    return "\n".join(out)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    error = 0.01
    if "--error" in argv:
        error = float(argv[argv.index("--error") + 1])
    with open(argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    windows = sorted({int(r["window"]) for r in rows})
    print("\n\n".join(table(rows, w, error) for w in windows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
