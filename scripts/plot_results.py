#!/usr/bin/env python3
"""Render the CSVs of `tdbf eval` into PNG plots.

Usage: python3 scripts/plot_results.py [DIR]   (default docs/results)

Reads each DIR/NAME.csv of PLOTS below that exists and writes DIR/NAME.png
(fig6, tlbf_slices, table2, tlbf_bits, tlbf_fp, tlbf_faults, clock_rotating,
fpdecay_survival, stable, ...).
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


def _finish(fig, axes, out, title=None, legend_size=None):
    """Grid every axis (and its legend if legend_size), title, save, close."""
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        if legend_size:
            ax.legend(fontsize=legend_size)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def _capacity_label(capacity, window_keys):
    return "capacity %d (%s-dimensioned)" % (
        capacity, "under" if capacity < window_keys else "over")


def plot_tlbf(rows, out):
    fig, (top, middle, bottom) = plt.subplots(3, 1, figsize=(9, 10),
                                             sharex=True)
    runs = group(rows, "k", "l", "capacity")
    styles = {}
    for i, ((k, l, capacity), series) in enumerate(runs.items()):
        # one color per capacity, one line style per (k, l) family
        color = "C0" if capacity < 6000 else "C1"
        style = styles.setdefault(k > 7, "-" if k > 7 else "--")
        t = [r["t_s"] for r in series]
        label = "(k, l) = (%d, %d), %s" % (k, l,
                                           _capacity_label(capacity, 6000))
        for ax, column in ((top, "slices"), (middle, "slice0_bits"),
                           (bottom, "fp_estimated")):
            ax.plot(t, [r[column] for r in series], color=color,
                    linestyle=style, label=label)
    top.set_ylabel("slices")
    middle.set_ylabel("slice 0 size (bits)")
    middle.set_yscale("log")
    bottom.set_ylabel("estimated FP (from slice fills)")
    bottom.axhline(0.01, color="gray", linestyle=":", label="target 0.01")
    bottom.set_xlabel("simulated time (s); T = 60 s, 100 distinct keys/s")
    top.legend(fontsize=8)
    bottom.legend(fontsize=8, loc="upper right")
    top.set_title("TLBF slices and slice-0 size over time "
                  "(paper 001, Figures 1-2)")
    _finish(fig, (top, middle, bottom), out)


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


# paper 001 Table 2: bits per element (min, max) per error rate
TLBF_TABLE2 = {0.1: (10, 13), 0.01: (19, 24), 0.001: (26, 35),
               0.0001: (32, 45), 0.00001: (41, 56)}


def plot_tlbf_bits(rows, out):
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 5))
    runs = group(rows, "error", "capacity")
    capacities = sorted({r["capacity"] for r in rows})
    steady = {}
    for i, ((error, capacity), series) in enumerate(runs.items()):
        color = "C%d" % sorted(TLBF_TABLE2).index(error)
        under = capacity == capacities[0]
        left.plot([r["t_s"] for r in series],
                  [r["bits_per_key"] for r in series], color=color,
                  linestyle="-" if under else "--",
                  label="error %g, %s" % (error, "under" if under else "over"))
        probed = [r for r in series if r["probes"] > 0]
        bits = sum(r["bits_per_key"] for r in probed) / len(probed)
        fp = (sum(r["fp_measured"] * r["probes"] for r in probed)
              / sum(r["probes"] for r in probed))
        steady[(error, under)] = (bits, fp)
    left.set_yscale("log")
    left.set_ylim(8, 2000)
    left.set_xlabel("simulated time (s); T = 60 s")
    left.set_ylabel("bits per element in the window (all memory)")
    left.set_title("Figure 3: bits per element over time\n"
                   "(solid: under-, dashed: over-dimensioned)", fontsize=10)
    left.legend(fontsize=7, ncol=2)

    errors = sorted(TLBF_TABLE2)
    low = [TLBF_TABLE2[e][0] for e in errors]
    high = [TLBF_TABLE2[e][1] for e in errors]
    middle.vlines(errors, low, high, color="gray", linewidth=6, alpha=0.4,
                  label="paper 001 Table 2 (min-max)")
    right.plot(errors, errors, color="gray", linestyle=":", label="= target")
    # steady[...][0]: bits per element; [1]: measured FP
    for ax, which, label in ((middle, 0, "tdbf, last T"), (right, 1,
                                                           "measured")):
        for under, marker in ((True, "o"), (False, "x")):
            ax.plot(errors, [steady[(e, under)][which] for e in errors],
                    marker=marker, linestyle="none", markersize=8,
                    label="%s, %s-dimensioned" % (
                        label, "under" if under else "over"))
    middle.set_xscale("log")
    middle.set_xlabel("target false-positive rate")
    middle.set_ylabel("bits per element (steady state)")
    middle.set_title("Table 2: bits per element per error rate", fontsize=10)
    middle.legend(fontsize=8)

    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("target false-positive rate")
    right.set_ylabel("measured FP, fresh keys, last T")
    right.set_title("FP at the same steady state", fontsize=10)
    right.legend(fontsize=8)
    _finish(fig, (left, middle, right), out, "TLBF memory per element at "
            "10^4 keys/s (paper 001, Figure 3 and Table 2)")


def plot_tlbf_fp(rows, out):
    capacities = sorted({r["capacity"] for r in rows})
    fig, axes = plt.subplots(1, len(capacities), figsize=(14, 5),
                             sharey=True)
    for ax, capacity, figure in zip(axes, capacities, ("4", "5")):
        series_of = group([r for r in rows if r["capacity"] == capacity],
                          "error")
        for i, ((error,), series) in enumerate(series_of.items()):
            color = "C%d" % i
            t = [r["t_s"] for r in series]
            measured = [r["fp_measured"] if r["fp_measured"] > 0
                        else float("nan") for r in series]
            ax.plot(t, measured, color=color, linewidth=0.8,
                    label="measured, error %g (k, l) = (%d, %d)" % (
                        error, series[-1]["k"], series[-1]["l"]))
            ax.plot(t, [r["fp_estimated"] for r in series], color=color,
                    linestyle="--", linewidth=1.2,
                    label="estimated from fills, %g" % error)
            ax.axhline(error, color=color, linestyle=":", linewidth=1)
        ax.set_yscale("log")
        ax.set_ylim(1e-5, 0.5)
        ax.set_xlabel("simulated time (s); T = 60 s, 100 distinct keys/s")
        ax.set_title("Figure %s: initial capacity %d (%s-dimensioned)" % (
            figure, capacity, "under" if capacity < 6000 else "over"),
            fontsize=10)
        ax.legend(fontsize=7, loc="lower right")
    axes[0].set_ylabel("false-positive rate (dotted: target)")
    _finish(fig, axes, out, "TLBF false positives over time on fresh keys "
            "(paper 001, Figures 4-5)")


def plot_tlbf_faults(rows, out):
    fig, axes = plt.subplots(4, 1, figsize=(9, 12), sharex=True)
    added, slices, memory, fp = axes
    misses = sum(r["false_negatives"] for r in rows)
    checked = sum(r["window_checked"] for r in rows)
    for i, ((name,), series) in enumerate(group(rows, "scenario").items()):
        color = "C%d" % i
        t = [r["t_s"] for r in series]
        added.plot(t, [r["added"] for r in series], color=color, label=name)
        slices.plot(t, [r["slices"] for r in series], color=color, label=name)
        memory.plot(t, [r["memory_bytes"] / 1024.0 for r in series],
                    color=color, label=name)
        fp.plot(t, [r["fp_measured"] if r["fp_measured"] > 0
                    else float("nan") for r in series], color=color,
                linewidth=0.8, label=name)
    added.set_yscale("symlog", linthresh=10)
    added.set_ylabel("keys added per second")
    slices.set_ylabel("slices (cap 2(k+l)+32 = 230)")
    slices.axhline(230, color="gray", linestyle=":")
    memory.set_ylabel("memory (KiB)")
    memory.set_yscale("log")
    fp.set_ylabel("measured FP, fresh keys")
    fp.set_yscale("log")
    fp.axhline(0.01, color="gray", linestyle=":", label="target 0.01")
    fp.set_xlabel("simulated time (s); T = 60 s")
    added.legend(fontsize=8, ncol=3)
    added.set_title("TLBF under the reference module's failure cases "
                    "(paper 001)\nfalse negatives: %d of %d keys of the last T "
                    "asked" % (misses, checked))
    _finish(fig, axes, out)


def plot_clock_rotating(rows, out):
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5))
    for i, ((design,), series) in enumerate(group(rows, "design").items()):
        color = "C%d" % i
        fp = [r for r in series if r["series"] == "fp"]
        t = [r["x"] for r in fp]
        left.plot(t, [r["measured"] if r["measured"] > 0 else float("nan")
                      for r in fp], color=color, linewidth=0.8,
                  label="%s: measured" % design)
        left.plot(t, [r["model"] for r in fp], color=color, linestyle="--",
                  label="%s: from the fill (stats)" % design)
        left.axhline(fp[0]["bound"], color=color, linestyle=":",
                     label="%s: planned worst case" % design)
        yes = [r for r in series if r["series"] == "yes"]
        right.plot([r["x"] for r in yes], [r["measured"] for r in yes],
                   color=color, marker=".", linestyle="none",
                   label="%s: measured" % design)
        right.plot([r["x"] for r in yes], [r["model"] for r in yes],
                   color=color, label="%s: paper 000's rule" % design)
    left.set_yscale("log")
    left.set_ylim(1e-4, 0.1)
    left.set_xlabel("simulated time (s); T = 60 s, 100 distinct keys/s")
    left.set_ylabel("false-positive rate")
    left.set_title("FP over time (fresh keys)", fontsize=10)
    right.axvline(60, color="gray", linestyle=":", label="window T")
    right.set_xlabel("key age (s)")
    right.set_ylabel("share of keys still answering yes")
    right.set_title("keys kept by age (no false negatives before T)",
                    fontsize=10)
    _finish(fig, (left, right), out, "Continuous clock filter and rotating "
            "filters, error 0.01 (paper 000)", legend_size=8)


def plot_fpdecay(rows, out):
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5), sharey=True)
    for ax, b in ((left, 32), (right, 8)):
        for i, ((n,), series) in enumerate(
                group([r for r in rows if r["b"] == b], "n").items()):
            color = "C%d" % i
            t = [r["t"] for r in series]
            ax.plot(t, [r["phi_measured"] for r in series], color=color,
                    marker=".", linestyle="none",
                    label="n = %d (s = %d), measured" % (n, series[0]["cells"]))
            ax.plot(t, [r["phi_model"] for r in series], color=color,
                    label="n = %d, model b = %d" % (n, b))
            if b == 8:
                ax.plot(t, [r["phi_exact"] for r in series], color=color,
                        linestyle=":", linewidth=1)
        ax.set_xlabel("t: adds since the key's own (s ~ 1000 cells)")
    left.set_ylabel("phi(t): P(key still answers yes)")
    left.set_title("b = 32: exact matching (the post's first figure)",
                   fontsize=10)
    right.set_title("b = 8 fingerprints (dotted: exact); floor 1-(1-1/255)^n",
                    fontsize=10)
    _finish(fig, (left, right), out, "Fingerprint decay array survival "
            "curves (paper 003)", legend_size=7)


def plot_stable(rows, out):
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5))
    for i, ((d,), series) in enumerate(group(rows, "d").items()):
        color = "C%d" % i
        first = series[0]
        name = "d = %d (Max %d), K = %d, P = %d" % (
            d, 2 ** d - 1, first["K"], first["P"])
        fp = [r for r in series if r["series"] == "fp"]
        left.plot([r["x"] for r in fp], [r["measured"] for r in fp],
                  color=color, marker=".", linestyle="none",
                  label="%s: measured" % name)
        left.plot([r["x"] for r in fp], [r["model"] for r in fp], color=color,
                  label="(1 - zeros(N))^K")
        left.axhline(fp[0]["bound"], color=color, linestyle=":",
                     label="stable point")
        fn = [r for r in series if r["series"] == "fn"]
        right.plot([r["x"] for r in fn],
                   [r["measured"] if r["measured"] > 0 else float("nan")
                    for r in fn], color=color, marker=".", linestyle="none",
                   label="%s: measured" % name)
        right.plot([r["x"] for r in fn], [r["model"] for r in fn],
                   color=color, label="FN(t) = 1 - (1 - z(t))^K")
    left.set_xscale("log")
    left.set_xlabel("adds since empty (distinct keys)")
    left.set_ylabel("false-positive rate (fresh keys)")
    left.set_title("FP while filling, to the stable point", fontsize=10)
    right.axvline(10000, color="gray", linestyle=":", label="w = 10^4")
    right.axhline(0.01, color="gray", linestyle="--", linewidth=0.8,
                  label="1 - survival target 0.99")
    right.set_yscale("log")
    right.set_ylim(1e-5, 2)
    right.set_xlabel("t: adds since the key's own")
    right.set_ylabel("false-negative rate")
    right.set_title("FN by age (sized: FN(w) <= 0.01)", fontsize=10)
    _finish(fig, (left, right), out, "Stable Bloom filter, error 0.01, "
            "w = 10^4 (Deng & Rafiei 2006 formulas)", legend_size=7)


def plot_compare(rows, out):
    # exact has no false positives: a log axis cannot show it
    shown = [r for r in rows if not r["design"].startswith("exact")]
    designs = list(dict.fromkeys(r["design"] for r in shown))
    streams = list(dict.fromkeys(r["stream"] for r in shown))
    markers = "osD^v<>phH*X"
    fig, axes = plt.subplots(1, len(streams), figsize=(13, 6), sharey=True,
                             squeeze=False)
    for ax, stream in zip(axes[0], streams):
        for i, design in enumerate(designs):
            series = sorted((r for r in shown if r["stream"] == stream
                             and r["design"] == design),
                            key=lambda r: -r["error"])
            time_window = series[0]["window_kind"] == "time"
            ax.plot([r["bits_per_element"] for r in series],
                    [r["fp"] if r["fp"] > 0 else float("nan") for r in series],
                    color="C%d" % i if i < 10 else "black",
                    marker=markers[i % len(markers)],
                    markersize=7, linestyle=":" if time_window else "-",
                    linewidth=1,
                    label=design + (" (60 s)" if time_window else "")
                    + (" (no window)" if design == "bloom" else ""))
        for error in sorted({r["error"] for r in shown}):
            ax.axhline(error, color="gray", linestyle="--", linewidth=0.8)
            ax.annotate("target %g" % error, (0.99, error),
                        xycoords=("axes fraction", "data"), ha="right",
                        va="bottom", fontsize=8, color="gray")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("memory, bits per element of the window")
        ax.set_title("%s stream" % stream)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("measured false-positive rate (fresh keys)")
    axes[0][-1].legend(fontsize=8, loc="lower left", ncol=2,
                       title="design (line: error 0.01 to 0.001)",
                       title_fontsize=8)
    window = int(shown[0]["window_items"])
    fig.suptitle("All designs at one setting: window %s keys or 60 s, "
                 "error 0.01 and 0.001 (papers 000-004)"
                 % format(window, ","))
    exact = [r["bits_per_element"] for r in rows
             if r["design"].startswith("exact")]
    if exact:
        fig.text(0.01, 0.01, "not drawn: the exact window (fp 0, %.0f-%.0f "
                 "bits/element)" % (min(exact), max(exact)), fontsize=8,
                 color="gray")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(out, dpi=110)
    plt.close(fig)


PLOTS = [
    ("fig6.csv", "fig6.png", plot_fig6),
    ("tlbf_slices.csv", "tlbf_slices.png", plot_tlbf),
    ("table2.csv", "table2.png", plot_table2),
    ("tlbf_bits.csv", "tlbf_bits.png", plot_tlbf_bits),
    ("tlbf_fp.csv", "tlbf_fp.png", plot_tlbf_fp),
    ("tlbf_faults.csv", "tlbf_faults.png", plot_tlbf_faults),
    ("clock_rotating.csv", "clock_rotating.png", plot_clock_rotating),
    ("fpdecay_survival.csv", "fpdecay_survival.png", plot_fpdecay),
    ("stable.csv", "stable.png", plot_stable),
    ("compare.csv", "compare.png", plot_compare),
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
