#!/usr/bin/env python3
"""Rewrite docs/results.md's `tdbf-lab demo` paragraph from what `tdbf-lab demo` prints.

Usage: python3 scripts/readme_figures.py [PATH/TO/tdbf-lab] [docs/results.md]
       (make readme-figures; any python3 >= 3.6)

The paragraph lies between the lines `<!-- demo figures: begin -->` and
`<!-- demo figures: end -->`; everything else is left as it is.  The demo
runs with its fixed seed (about a minute), so the figures are the ones a
reader gets from `tdbf-lab demo` with this build.
"""

import re
import subprocess
import sys

BEGIN = "<!-- demo figures: begin -->"
END = "<!-- demo figures: end -->"


def field(pattern, text, what):
    match = re.search(pattern, text, re.M)
    if match is None:
        sys.exit("readme_figures: `tdbf-lab demo` printed no %s" % what)
    return match.groups()


def paragraph(out):
    count, time = out.split("\nTime window:", 1)
    time = "Time window:" + time
    events, keys = field(r"^tdbf-lab demo: ([0-9,]+) events, Zipf s=1 over ([0-9,]+) keys",
                         count, "header")
    window, = field(r"^Count window: the last ([0-9,]+) insertions", count, "window")
    fn_apbf, fn_line = field(r"^  false negatives +([0-9,]+) +([0-9,]+)", count,
                             "false negatives")
    apbf, line, exact = field(r"^  memory +([0-9.]+ \w+) +([0-9.]+ \w+) +([0-9.]+ \w+)",
                              count, "APBF memory")
    bits, line_bits = field(r"^  bits per window item +([0-9.]+) +([0-9.]+)", count,
                            "bits per item")
    ratio, line_ratio = field(r"^  exact/filter memory +([0-9.]+)x +([0-9.]+)x", count,
                              "memory ratios")
    span, = field(r"^Time window: the last (\S+ \S+),", time, "TLBF header")
    fn_time, = field(r"^  false negatives +([0-9,]+)", time, "TLBF false negatives")
    tlbf, texact = field(r"^  memory at the end +([0-9.]+ \w+) +([0-9.]+ \w+)", time,
                         "TLBF memory")
    tratio, = field(r"^  exact/filter memory +([0-9.]+)x", time, "TLBF memory ratio")
    return ("**`tdbf-lab demo`** (%s Zipf events over %s keys, window %s, error 0.01;\n"
            "fixed seed, figures written by `make readme-figures`): %s and %s false negatives;\n"
            "APBF %s (%s bits per window item) and apbf-line %s (%s)\n"
            "vs %s for the exact window (%s× and %s×).\n"
            "Time window (TLBF, %s, 20 000/s with a 10× burst): %s false negatives,\n"
            "%s vs %s exact (%s×).\n" % (events, keys, window, fn_apbf, fn_line, apbf, bits,
                                         line, line_bits, exact, ratio, line_ratio, span,
                                         fn_time, tlbf, texact, tratio))


def main():
    tdbf = sys.argv[1] if len(sys.argv) > 1 else "build/tdbf-lab"
    readme = sys.argv[2] if len(sys.argv) > 2 else "docs/results.md"
    out = subprocess.run([tdbf, "demo", "--quiet"], stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    with open(readme) as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        sys.exit("readme_figures: %s has no %s ... %s block" % (readme, BEGIN, END))
    text = text[:start + len(BEGIN)] + "\n" + paragraph(out) + text[end:]
    with open(readme, "w") as f:
        f.write(text)
    print("readme_figures: %s updated from `%s demo`" % (readme, tdbf))


if __name__ == "__main__":
    main()
