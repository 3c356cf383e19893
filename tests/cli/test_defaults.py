#!/usr/bin/env python3
"""Every text that names a default design, checked against the code.

The defaults come from the programs themselves: `tdbf plan --json` for a
count and a time window (the design tdbf dedup builds, cli_default_design)
and the library's tdbf_config_init (through ctypes).  Then `tdbf dedup
--help`, `tdbf plan --help`, man/tdbf.1, man/libtdbf.3, include/tdbf.h, README.md and
docs/*.md must name those defaults where they claim one, and no sentence
of theirs may call another design the default: a drift fails here.  Also
checked: what plan shows is what dedup builds, and plan, info and dedup
--stats give the same expiry bound (tdbf_slack).

Usage: python3 tests/cli/test_defaults.py [PATH/TO/tdbf]   (default build/tdbf)
Runs on test_dedup.py's runner ("ok NAME" / "FAIL NAME: why").
"""

import ctypes
import glob
import json
import os
import random
import re
import sys

from test_dedup import TDBF, check, main, run, tmp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DESIGN_NAMES = ("apbf-line", "tlbf-line", "apbf", "apbbf", "tlbf", "tbf", "btbf",
                "clock", "rotating", "fpdecay", "stable", "bloom", "exact")


def plan_json(args):
    return json.loads(run(["plan", "--json"] + args).stdout)


def dedup_defaults():
    """(count design, time design) as tdbf plan reports dedup's choice."""
    count = plan_json(["--last", "10000"])
    time = plan_json(["--window", "10m"])
    check(count["dedup_default"] is True and time["dedup_default"] is True,
          "plan without --design is not marked dedup_default: %r %r" % (count, time))
    return count["design"], time["design"]


def library_default():
    """The design name tdbf_config_init sets, from the shared library."""
    found = sorted(glob.glob(os.path.join(os.path.dirname(TDBF), "libtdbf.so*")))
    check(found, "no libtdbf.so beside %s (make lib)" % TDBF)
    lib = ctypes.CDLL(found[0])
    lib.tdbf_design_name.restype = ctypes.c_char_p
    lib.tdbf_design_name.argtypes = [ctypes.c_int]
    config = ctypes.create_string_buffer(4096)   # larger than any tdbf_config
    lib.tdbf_config_init(config)
    design = ctypes.c_int.from_buffer(config).value   # the first field
    return lib.tdbf_design_name(design).decode()


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def plain_troff(text):
    """A man page as words: macros dropped, escapes undone, one line."""
    words = []
    for line in text.splitlines():
        if line.startswith('.\\"'):
            continue
        if line.startswith("."):
            parts = line.split(None, 1)
            line = parts[1] if len(parts) > 1 else ""
            line = line.replace('"', "")
        words.append(line)
    flat = " ".join(words)
    for escape, plain in (("\\-", "-"), ("\\(em", "-"), ("\\(dq", '"'), ("\\fI", ""),
                          ("\\fP", ""), ("\\fB", ""), ("\\fR", "")):
        flat = flat.replace(escape, plain)
    flat = re.sub(r"\s+", " ", flat)
    # ".BR tdbf_config_init ()," reads "tdbf_config_init(),"
    flat = re.sub(r"(\w) \(\)", r"\1()", flat)
    return re.sub(r" ([,;:)])", r"\1", flat)


def plain(text):
    """C comments, help text and Markdown as words on one line."""
    text = re.sub(r"[*`]", "", text).replace("//", " ")
    return re.sub(r"\s+", " ", text)


def design_word(name):
    """A regex for a design as the texts write it: apbf-line, APBF_LINE,
    TDBF_APBF_LINE."""
    spelled = re.escape(name).replace("\\-", "[-_]")
    return r"(?<![\w-])(?:TDBF_)?%s(?![\w-])" % spelled


def check_claims(label, text, claims):
    for claim in claims:
        check(re.search(claim, text, re.I), "%s does not say %r" % (label, claim))


# sentences that call a design the default; group 1 names it, group 2 (if
# any) the kind of window
DEFAULT_PATTERNS = [
    r"([\w-]+) \((?:the )?default\)",
    r"([\w-]+) \(default(?:, (count|time))?\)",
    r"default design (?:is )?([\w-]+)",
    r"([\w-]+),? the default(?:;| |,)",
    r"defaults \(design ([\w-]+)",
]


def check_no_other_default(label, text, count, time, library):
    allowed = {count.lower(), time.lower(), library.lower()}
    for pattern in DEFAULT_PATTERNS:
        for match in re.finditer(pattern, text, re.I):
            name = match.group(1).lower().replace("_", "-")
            if name.startswith("tdbf-"):
                name = name[len("tdbf-"):]
            if name not in DESIGN_NAMES:
                continue
            check(name in allowed, "%s calls %s the default: ...%s..." % (
                label, name, text[max(0, match.start() - 60):match.end() + 40]))


def test_dedup_builds_the_defaults_plan_shows():
    count, time = dedup_defaults()
    for args, design in ((["--last", "10000"], count), (["--window", "10m"], time)):
        state = tmp("default.tdbf")
        if os.path.exists(state):
            os.unlink(state)
        run(["dedup", "--state", state] + args, b"a\nb\n")
        info = json.loads(run(["info", "--json", state]).stdout)
        check(info["design"] == design, "dedup %s built %s, plan shows %s" % (
            " ".join(args), info["design"], design))
    # an explicit design is marked only when it is dedup's own
    check(plan_json(["--design", "apbf", "--last", "10000"])["dedup_default"] is False,
          "apbf marked as dedup's default")
    check(plan_json(["--design", count, "--last", "10000"])["dedup_default"] is True,
          "%s not marked as dedup's default" % count)


def test_plan_takes_windows_as_dedup_does():
    # a time window with --window, no --design, no --time
    doc = plan_json(["--error", "0.01", "--window", "10m"])
    check(doc["built"]["window_ns"] == 600 * 10**9, "window 10m: %r" % doc["built"])
    doc = plan_json(["--design", "clock", "--window", "10m"])
    check(doc["design"] == "clock" and doc["window_ns"] == 600 * 10**9, "clock: %r" % doc)
    doc = plan_json(["--design", "rotating", "--window", "100k"])
    check(doc["window"] == 100000 and doc["window_ns"] == 0, "rotating count: %r" % doc)
    run(["plan", "--design", "apbf-line", "--window", "10m"], expect=2)
    run(["plan", "--design", "tlbf", "--last", "1000"], expect=2)


def test_texts_name_the_defaults():
    count, time = dedup_defaults()
    library = library_default()
    c, t, lib = design_word(count), design_word(time), design_word(library)
    dedup_help = plain(run(["dedup", "--help"]).stdout.decode())
    plan_help = plain(run(["plan", "--help"]).stdout.decode())
    manual = plain_troff(read("man/tdbf.1"))
    library_manual = plain_troff(read("man/libtdbf.3"))
    header = plain(read("include/tdbf.h"))
    readme = plain(read("README.md"))
    texts = [
        ("tdbf dedup --help", dedup_help, [
            r"last T \(10m, 30s; default design %s\)" % t,
            r"last N lines' \(default design %s\)" % c,
            r"--window uses %s by default, --last %s" % (t, c)]),
        ("tdbf plan --help", plan_help, [
            r"%s for a count window" % c, r"%s for a time window" % t,
            r"default: what tdbf dedup builds, %s for a count window, %s for a time window"
            % (c, t)]),
        ("man/tdbf.1", manual, [
            r"--window T.{0,6}Time window: .{0,80}The default design is %s" % t,
            r"--last N Count window: .{0,80}The default design is %s" % c,
            r"when none is named: %s for a count window .{0,80}, %s for a time window" % (c, t)]),
        ("man/libtdbf.3", library_manual, [
            r"tdbf_config_init\(\), which sets the defaults \(design %s" % lib,
            r"%s \(\"[\w-]+\"\) The default" % lib]),
        ("include/tdbf.h", header, [
            r"tdbf_config_init\(&cfg\); %s, error 0\.01" % lib,
            r"design; /\s*default %s" % lib,
            r"Fill \s*cfg with defaults: design %s" % lib]),
        ("README.md", readme, [
            r"%s line-local APBF \| count .{0,40}the default count design" % c,
            r"%s line-local APBF rings \| time .{0,400}the default time design" % t,
            r"%s for a count window \(--last N\), %s for a time window" % (c, t)]),
        ("docs/papers.md", plain(read("docs/papers.md")), [
            r"%s line-local APBF \| count .{0,40}the default count design" % c,
            r"%s line-local APBF rings \| time .{0,400}the default time design" % t]),
    ]
    # the other pages README's facts moved to claim no other default
    for path in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
        name = os.path.relpath(path, ROOT)
        if name != "docs/papers.md":
            texts.append((name, plain(read(name)), []))
    for label, text, claims in texts:
        check_claims(label, text, claims)
        check_no_other_default(label, text, count, time, library)


def test_plan_info_and_stats_give_one_slack():
    for args in (["--last", "100000"], ["--window", "10m", "--capacity", "1024"],
                 ["--design", "clock", "--window", "1m", "--capacity", "1000"],
                 ["--design", "rotating", "--last", "5000"]):
        expiry = plan_json(args)["expiry"]
        state = tmp("slack.tdbf")
        if os.path.exists(state):
            os.unlink(state)
        proc = run(["dedup", "--stats", "--state", state] + args, b"a\nb\n")
        info = json.loads(run(["info", "--json", state]).stdout)
        for field in ("window_items", "window_ns", "slack_items", "slack_ns"):
            check(info[field] == expiry[field], "%s: %s is %r in info, %r in plan" % (
                " ".join(args), field, info[field], expiry[field]))
        check(expiry["slack_items"] + expiry["slack_ns"] > 0, "no slack: %r" % expiry)
        stats = proc.stderr.decode()
        check(re.search(r"^\s*slack\s+\S.* ago may still be dropped$", stats, re.M),
              "dedup --stats has no slack line:\n" + stats)
        text = run(["plan"] + args).stdout.decode()
        check(re.search(r"^window .+, slack .+: a key last seen .+ ago may still be "
                        r"dropped\.$", text, re.M), "plan has no bound line:\n" + text)
        check("--error E bounds how often a key never seen" in text,
              "plan does not say what --error bounds:\n" + text)


def wilson_low(hits, n, z=1.96):
    """Lower end of the 95 % Wilson interval of hits / n."""
    p = hits / n
    centre = p + z * z / (2 * n)
    spread = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return (centre - spread) / (1 + z * z / n)


def kept_lines(args, data, lines):
    """Which input lines dedup keeps (each line ends with its number)."""
    kept = [False] * lines
    for line in run(["dedup", "--seed", "1", "--field", "1"] + args, data).stdout.split(b"\n"):
        if line:
            kept[int(line.split()[1])] = True
    return kept


def test_error_bounds_keys_past_the_slack():
    # dedup --last W against the exact window: the lines the filter drops
    # that exact keeps are mostly keys last seen inside the slack; of keys
    # never seen or older than window + slack, at most --error are dropped
    # (keys uniform over 4 W ids: plenty of every age)
    window, lines, error = 20000, 400000, 0.01
    ids = random.Random(7)
    keys = ["k%d" % ids.randrange(4 * window) for _ in range(lines)]
    data = "".join("%s %d\n" % (k, i) for i, k in enumerate(keys)).encode()
    args = ["--last", str(window), "--error", str(error)]
    exact = kept_lines(args + ["--design", "exact"], data, lines)
    kept = kept_lines(args, data, lines)
    expiry = plan_json(args)["expiry"]
    oldest = expiry["window_items"] + expiry["slack_items"]
    last, slack, past = {}, [0, 0], [0, 0]    # [new lines, wrongly dropped]
    for i, key in enumerate(keys):
        if exact[i]:
            count = slack if key in last and i - last[key] <= oldest else past
            count[0] += 1
            count[1] += not kept[i]
        check(exact[i] or not kept[i], "line %d kept inside the window" % i)
        last[key] = i
    check(past[0] > 100000, "too few keys past the slack: %d" % past[0])
    check(wilson_low(past[1], past[0]) <= error,
          "%d of %d keys never seen or older than window + slack dropped (%.4f > --error)"
          % (past[1], past[0], past[1] / past[0]))
    check(slack[1] > past[1], "drops inside the slack %d, past it %d" % (slack[1], past[1]))


if __name__ == "__main__":
    sys.exit(main(globals()))
