#!/usr/bin/env python3
"""Render the CSVs of `tdbf eval` into PNG plots.

Usage: python3 scripts/plot_results.py [DIR]   (default docs/results)

Reads DIR/fig6.csv, DIR/tlbf_slices.csv and DIR/table2.csv (each one that
exists) and writes DIR/fig6.png, DIR/tlbf_slices.png and DIR/table2.png.
Needs matplotlib (Debian python3-matplotlib: scripts/deps.sh plot).
"""

import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)


def read_rows(path):
    """The CSV at path as a list of dicts, numbers as floats."""
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            parsed = {}
            for name, field in row.items():
                try:
                    parsed[name] = float(field)
                except ValueError:
                    parsed[name] = field
            rows.append(parsed)
    return rows


def group(rows, *keys):
    """Rows grouped by the values of keys, in order of first appearance."""
    groups = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    return groups


def plot_fig6(rows, out):
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, ((k, l), series) in enumerate(group(rows, "k", "l").items()):
        color = "C%d" % i
        x = [r["inserts"] for r in series]
        # a sample of 0 false positives cannot be drawn on a log axis
        measured = [r["fp_measured"] if r["fp_measured"] > 0 else float("nan")
                    for r in series]
        ax.plot(x, measured, color=color, marker=".", linewidth=1,
                label="measured, (k, l) = (%d, %d)" % (k, l))
        ax.plot(x, [r["fp_analytic"] for r in series], color=color,
                linestyle="--", linewidth=1.5,
                label="analytic worst case, (%d, %d)" % (k, l))
    ax.set_yscale("log")
    ax.set_xlabel("insertions (distinct keys; window = 1000)")
    ax.set_ylabel("false-positive rate")
    ax.set_title("APBF measured FP vs insertions (paper 004, Figure 6)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_tlbf(rows, out):
    fig, (top, middle, bottom) = plt.subplots(3, 1, figsize=(8, 9),
                                             sharex=True)
    for i, ((capacity,), series) in enumerate(group(rows, "capacity").items()):
        color = "C%d" % i
        t = [r["t_s"] for r in series]
        label = "initial capacity %d (%s-dimensioned)" % (
            capacity, "under" if capacity < 6000 else "over")
        top.plot(t, [r["slices"] for r in series], color=color, label=label)
        middle.plot(t, [r["slice0_bits"] for r in series], color=color,
                    label=label)
        bottom.plot(t, [r["fp_estimated"] for r in series], color=color,
                    label=label)
    top.set_ylabel("slices")
    middle.set_ylabel("slice 0 size (bits)")
    bottom.set_ylabel("estimated FP")
    bottom.axhline(0.01, color="gray", linestyle=":", label="target 0.01")
    bottom.set_xlabel("simulated time (s); T = 60 s, 100 distinct keys/s")
    for ax in (top, middle, bottom):
        ax.grid(True, alpha=0.3)
    top.legend(fontsize=8)
    bottom.legend(fontsize=8)
    top.set_title("TLBF slices and slice-0 size over time "
                  "(paper 001, Figures 1-2)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_table2(rows, out):
    fig, ax = plt.subplots(figsize=(9, 5))
    x = list(range(len(rows)))
    ax.scatter(x, [r["paper_fp"] for r in rows], marker="o", s=60,
               facecolors="none", edgecolors="C0", label="paper's Table 2")
    ax.scatter(x, [r["fp_paper"] for r in rows], marker="x", color="C1",
               label="tdbf, the paper's linear fills")
    ax.scatter(x, [r["fp_exact"] for r in rows], marker="+", color="C2",
               label="tdbf, exact fills (window 10^6)")
    ax.set_xticks(x)
    ax.set_xticklabels(["%d,%d" % (r["k"], r["l"]) for r in rows],
                       rotation=90, fontsize=8)
    ax.set_yscale("log")
    ax.set_xlabel("(k, l)")
    ax.set_ylabel("false-positive rate")
    ax.set_title("APBF false-positive rate per (k, l) "
                 "(paper 004, Table 2)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


PLOTS = [
    ("fig6.csv", "fig6.png", plot_fig6),
    ("tlbf_slices.csv", "tlbf_slices.png", plot_tlbf),
    ("table2.csv", "table2.png", plot_table2),
]


def main(argv):
    directory = argv[1] if len(argv) > 1 else "docs/results"
    made = 0
    for source, target, plot in PLOTS:
        path = os.path.join(directory, source)
        if not os.path.exists(path):
            print("plot_results: no %s, skipped" % path, file=sys.stderr)
            continue
        plot(read_rows(path), os.path.join(directory, target))
        print("plot_results: wrote %s" % os.path.join(directory, target))
        made += 1
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
