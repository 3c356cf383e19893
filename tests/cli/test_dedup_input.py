#!/usr/bin/env python3
"""End-to-end tests of how `tdbf dedup` reads its input: times that cannot
be misread (a date alone is not midnight), times from several fields and
strptime-style patterns, keys from field lists, empty keys, --ignore-case,
one-letter options, repeated options, and the key spec a state file keeps.

Usage: python3 tests/cli/test_dedup_input.py [PATH/TO/tdbf]   (default build/tdbf)

Runs on test_dedup.py's runner: "ok NAME" or "FAIL NAME: why" per test,
and the last line is "cli: N passed, N failed".  Streams come from a
fixed random seed; runs that compare keys use the exact design, so the
expected output is exact (no false positives to allow for).
"""

import calendar
import json
import os
import random
import struct
import sys
import time

from test_dedup import check, main, run, tmp

SECONDS = 1000000000


def rows_of(output):
    """The lines of an output, as bytes without their newlines."""
    return output.split(b"\n")[:-1]


def as_input(lines):
    """Byte lines as an input, each with its newline."""
    return b"".join(line + b"\n" for line in lines)


def line_time_ns(line, options):
    """The time tdbf dedup gives one line: the filter's clock after it,
    read back with tdbf info from a state file."""
    state = tmp("time-%d.tdbf" % random.getrandbits(48))
    run(["dedup", "--window", "1h", "--state", state] + options, line + b"\n")
    info = json.loads(run(["info", "--json", state]).stdout)
    os.unlink(state)
    return info["now_ns"]


def utc_ns(*fields):
    """ns since 1970 of a UTC date and time (year, month, day, h, m, s)."""
    return calendar.timegm(fields + (0, 0, 0)) * SECONDS


# ---- times ------------------------------------------------------------------

DPKG = [b"2025-06-24 10:11:12 status installed libc6",
        b"2025-06-24 12:11:12 status installed libc6"]


def test_date_alone_is_a_bad_time_not_midnight():
    # field 1 of dpkg.log is the date alone: it used to be midnight, so
    # two lines two hours apart were one instant and the second dropped
    data = as_input(DPKG)
    args = ["dedup", "--window", "1h", "--time-field", "1", "--time-format",
            "iso8601", "--field", "5"]
    proc = run(args, data, expect=1)
    check(b"(stdin):1:" in proc.stderr and b"'2025-06-24'" in proc.stderr and
          b"iso8601" in proc.stderr, "message %r" % proc.stderr)
    check(proc.stdout == b"", "printed %r" % proc.stdout)
    proc = run(args + ["--skip-bad"], data)
    check(proc.stdout == data and b"passed through, unfiltered, 2 lines" in proc.stderr,
          "--skip-bad: %r %r" % (proc.stdout, proc.stderr))
    proc = run(args + ["--drop-bad"], data)
    check(proc.stdout == b"" and b"dropped 2 lines" in proc.stderr,
          "--drop-bad: %r %r" % (proc.stdout, proc.stderr))


def test_iso8601_needs_seconds_and_reads_zones():
    base = ["--time-field", "1", "--time-format", "iso8601"]
    for text in (b"2025-06-24", b"2025-06-24T10:11", b"2025-06-24T10:11Z",
                 b"2025-06-24T", b"2025-06-24T10:11:12+", b"2025-06-24T10:11:12+1",
                 b"2025-02-29T00:00:00", b"2025-06-24T24:00:00",
                 b"2025-06-24T10:60:00", b"2025-06-24T10:11:61"):
        run(["dedup", "--window", "1h"] + base, text + b" k\n", expect=1)
    expected = utc_ns(2025, 6, 24, 10, 11, 12)
    for text, offset_ns in ((b"2025-06-24T10:11:12", 0),
                            (b"2025-06-24t10:11:12z", 0),
                            (b"2025-06-24T10:11:12.25Z", SECONDS // 4),
                            (b"2025-06-24T12:11:12+02:00", 0),
                            (b"2025-06-24T12:11:12+0200", 0),
                            (b"2025-06-24T05:11:12-05", 0),
                            (b"2024-02-29T10:11:12,5", None),
                            (b"2025-06-24T10:11:60Z", 48 * SECONDS)):
        got = line_time_ns(text + b" k", base)
        if offset_ns is None:
            want = utc_ns(2024, 2, 29, 10, 11, 12) + SECONDS // 2
        else:
            want = expected + offset_ns
        check(got == want, "%r: %d, expected %d" % (text, got, want))


def test_time_from_two_fields():
    # dpkg.log: date and time in fields 1 and 2, joined by one blank
    for fmt in ("iso8601", "%Y-%m-%d %H:%M:%S"):
        args = ["dedup", "--window", "1h", "--time-field", "1,2", "--time-format",
                fmt, "--field", "5", "--count"]
        out = run(args, as_input(DPKG + [b"2025-06-24 12:41:12 status installed libc6"])).stdout
        flags = [row.split(b"\t")[0] for row in rows_of(out)]
        check(flags == [b"0", b"0", b"1"], "%s: flags %r" % (fmt, flags))
        check(line_time_ns(DPKG[0], ["--time-field", "1-2", "--time-format", fmt]) ==
              utc_ns(2025, 6, 24, 10, 11, 12), "%s: the time of a line" % fmt)
    # a line without the second field has a bad time
    proc = run(["dedup", "--window", "1h", "--time-field", "1,2", "--time-format",
                "iso8601"], b"2025-06-24 10:11:12 a\n2025-06-24\n", expect=1)
    check(b"(stdin):2:" in proc.stderr and b"no field 1,2" in proc.stderr,
          "missing field message %r" % proc.stderr)
    # with another delimiter the fields are still joined by a blank
    got = line_time_ns(b"2025-06-24;10:11:12;x", ["--time-field", "1,2", "--delimiter", ";",
                                                   "--time-format", "iso8601"])
    check(got == utc_ns(2025, 6, 24, 10, 11, 12), "';' fields: %d" % got)


def syslog_year(month, day, clock, reference):
    """The year the rule gives a syslog date: the reference's year, or the
    one before if that puts it more than a day after the reference."""
    year = time.gmtime(reference).tm_year
    when = calendar.timegm((year, month, day) + clock + (0, 0, 0))
    return year - 1 if when > reference + 86400 else year


def test_syslog_pattern_takes_the_year_from_the_clock():
    args = ["--time-field", "1-3", "--time-format", "%b %e %H:%M:%S"]
    now = time.time()
    # three days ahead is the year before (a December log read in January);
    # two days ago, and an hour ahead (inside the day of grace), this year
    for shift in (3 * 86400, -2 * 86400, 3600):
        when = time.gmtime(now + shift)
        text = time.strftime("%b %e %H:%M:%S", when).encode() + b" host sshd: x"
        got = line_time_ns(text, args)
        reference = time.time()
        years = {syslog_year(when.tm_mon, when.tm_mday, when[3:6], r)
                 for r in (now, reference)}
        want = {utc_ns(y, when.tm_mon, when.tm_mday, *when[3:6]) for y in years}
        check(got in want, "%r: %d, expected one of %s" % (text, got, sorted(want)))
    # "Jun  4" (blank-padded day), "Jun 14", lower case, the full name
    for text in (b"Jun  4 10:11:12 h", b"jun 4 10:11:12 h", b"June 14 10:11:12 h",
                 b"JUN 14 10:11:12 h"):
        got = line_time_ns(text, args)
        day = 14 if b"14" in text else 4
        check(time.gmtime(got // SECONDS)[1:6] == (6, day, 10, 11, 12),
              "%r read as %s" % (text, time.gmtime(got // SECONDS)))


APACHE = [
    b'127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a.gif HTTP/1.0" 200 2326',
    b'127.0.0.1 - - [10/Oct/2000:22:55:37 +0200] "GET /a.gif HTTP/1.0" 200 2326',
    b'10.0.0.2 - - [10/Oct/2000:20:55:38 Z] "GET /a.gif HTTP/1.0" 200 2326',
    b'127.0.0.1 - - [10/Oct/2000:21:25:37 +00:00] "GET /a.gif HTTP/1.0" 200 2326',
]


def test_apache_common_log_pattern():
    fmt = "[%d/%b/%Y:%H:%M:%S %z]"
    got = line_time_ns(APACHE[0], ["--time-field", "4,5", "--time-format", fmt])
    check(got == utc_ns(2000, 10, 10, 20, 55, 36), "Apache time %d" % got)
    # the first two are one second apart in different zones (a repeat of
    # the client inside 30 min); the fourth is 30 min after the second
    out = run(["dedup", "--window", "30m", "--time-field", "4,5", "--time-format", fmt,
               "--field", "1", "-c"], as_input(APACHE)).stdout
    flags = [row.split(b"\t")[0] for row in rows_of(out)]
    check(flags == [b"0", b"1", b"0", b"1"], "flags %r" % flags)


def test_pattern_conversions():
    cases = [
        (b"1750759872.5", "%s.%f", utc_ns(2025, 6, 24, 10, 11, 12) + SECONDS // 2),
        (b"@1750759872", "@%s", utc_ns(2025, 6, 24, 10, 11, 12)),
        (b"20250624T101112Z", "%Y%m%dT%H%M%S%z", utc_ns(2025, 6, 24, 10, 11, 12)),
        (b"24.6.2025 10:11:12.000000001", "%d.%m.%Y %T.%f",
         utc_ns(2025, 6, 24, 10, 11, 12) + 1),
        (b"100%-2025-06-24-10:11:12", "100%%-%Y-%m-%d-%T", utc_ns(2025, 6, 24, 10, 11, 12)),
        (b"2025-06-24T10:11:12-01:30", "%Y-%m-%dT%T%z", utc_ns(2025, 6, 24, 11, 41, 12)),
        (b"2024-02-29 23:59:60", "%Y-%m-%d %H:%M:%S", utc_ns(2024, 3, 1, 0, 0, 0)),
    ]
    for text, fmt, want in cases:
        fields = str(len(text.split()))
        got = line_time_ns(text + b" k", ["--time-field", "1-" + fields if fields != "1"
                                          else "1", "--time-format", fmt])
        check(got == want, "%r with %r: %d, expected %d" % (text, fmt, got, want))
    # a run of blanks in the pattern matches a run of blanks (tab included)
    got = line_time_ns(b"2025-06-24\t \t10:11:12;x", ["--time-field", "1", "--delimiter",
                                                      ";", "--time-format",
                                                      "%Y-%m-%d %H:%M:%S"])
    check(got == utc_ns(2025, 6, 24, 10, 11, 12), "blank run: %d" % got)


def test_impossible_or_unmatched_times_are_bad():
    fmt = ["--time-format", "%Y-%m-%d %H:%M:%S"]
    for text in (b"2025-02-30 10:11:12", b"2025-02-29 10:11:12", b"2025-04-31 00:00:00",
                 b"2025-13-01 00:00:00", b"2025-00-10 00:00:00", b"2025-06-24 24:00:00",
                 b"2025-06-24 10:60:00", b"2025-06-24 10:11:61", b"2025-06-24 10:11:12x",
                 b"1969-12-31 23:59:59", b"2025-06-24 10:11"):
        fields = "1-%d" % len(text.split())
        proc = run(["dedup", "--window", "1h", "--time-field", fields] + fmt,
                   text + b" k\n", expect=1)
        check(b"(stdin):1:" in proc.stderr and b"not match" in proc.stderr,
              "%r: %r" % (text, proc.stderr))
    proc = run(["dedup", "--window", "1h", "--time-field", "1,2"] + fmt,
               b"2025-02-30 10:11:12 k\n", expect=1)
    check(b"time fields 1,2 '2025-02-30 10:11:12' do not match '%Y-%m-%d %H:%M:%S'"
          in proc.stderr, "message %r" % proc.stderr)
    # syslog's February 29th exists only in leap years
    proc = run(["dedup", "--window", "1h", "--time-field", "1-3", "--time-format",
                "%b %e %T", "--drop-bad"], b"Feb 30 00:00:00 k\n")
    check(b"dropped 1 line" in proc.stderr, "Feb 30: %r" % proc.stderr)


def test_pattern_usage_errors():
    for fmt, why in (("%Y-%m-%d", b"full time"), ("%H:%M:%S", b"full time"),
                     ("%m-%d %H:%M", b"full time"),
                     ("%Y-%m-%d %H:%M:%S %Q", b"%Q is a conversion this tdbf does not read"),
                     ("%Y-%m-%d %H:%M:%", b"ends in a lone %"),
                     ("%b %e %T %S", b"%S gives a part of the time a second time"),
                     ("%s %Y", b"mixes %s"), ("%s %z", b"mixes %s"),
                     ("%Y-%m-%d %H:%M:%S %Y", b"%Y gives"), ("unix_s", b"not unix")):
        proc = run(["dedup", "--window", "1h", "--time-field", "1", "--time-format", fmt],
                   expect=2)
        check(b"--time-format" in proc.stderr and why in proc.stderr,
              "%r: %r" % (fmt, proc.stderr))
    for value, why in (("0", b"list"), ("1-", b"range"), ("3-1", b"range"), ("1,1", b"twice"),
                       ("1,,2", b"list"), ("a", b"list"), ("1-17", b"more than 16"),
                       ("1000001", b"list"), ("2,", b"list")):
        for option in ("--field", "--time-field"):
            proc = run(["dedup", "--window", "1h", option, value], expect=2)
            check(option.encode() in proc.stderr and why in proc.stderr,
                  "%s %r: %r" % (option, value, proc.stderr))


# ---- keys -------------------------------------------------------------------

def exact_dedup(lines, key):
    """Lines whose key was not seen before (a window larger than the input)."""
    seen, out = set(), []
    for line in lines:
        k = key(line)
        if k not in seen:
            seen.add(k)
            out.append(line)
    return out


def test_empty_capture_or_field_keys_by_the_line():
    # the empty capture of 'id=([0-9]*)' used to be the key of both lines
    out = run(["dedup", "--last", "100", "--key-regex", "id=([0-9]*)"],
              b"id= 1\nid= 2\nid= 1\nid=7 a\nid=7 b\n").stdout
    check(out == b"id= 1\nid= 2\nid=7 a\n", "empty capture: %r" % out)
    # 'x*' matches the empty string at the start of every line
    out = run(["dedup", "--last", "100", "--key-regex", "x*"], b"a\nb\na\nxx1\nxx2\n").stdout
    check(out == b"a\nb\nxx1\n", "empty match: %r" % out)
    # an empty field, alone or in a list, is no key either
    out = run(["dedup", "--last", "100", "--field", "2", "--delimiter", ","],
              b"a,,1\nb,,2\na,,1\nc,k\nd,k\n").stdout
    check(out == b"a,,1\nb,,2\nc,k\n", "empty field: %r" % out)
    out = run(["dedup", "--last", "100", "--field", "1,2", "--delimiter", ","],
              b"a,\nb,\nk,1,x\nk,1,y\n").stdout
    check(out == b"a,\nb,\nk,1,x\n", "empty field of a list: %r" % out)


def random_rows(rng, n, delimiter):
    words = ["a", "b", "c", "ab", "A", "B"]
    rows = []
    for _ in range(n):
        fields = [rng.choice(words) for _ in range(rng.choice([1, 3, 5, 5, 6]))]
        rows.append(delimiter.join(fields).encode())
    return rows


def test_field_lists_match_a_reference():
    rng = random.Random(11)
    for delimiter, option in ((" ", []), (",", ["--delimiter", ","]),
                              ("\t", ["--delimiter", "\\t"])):
        rows = random_rows(rng, 3000, delimiter)
        for spec, fields in (("2,5", [2, 5]), ("5,2", [5, 2]), ("1-3", [1, 2, 3]),
                             ("1-2,4", [1, 2, 4])):
            def key(row, fields=fields):
                # the fields joined by the delimiter, or the whole line
                # when one is missing or empty (the two may meet: "a b a"
                # is fields 1,2,4 of "a b c a" and all of itself)
                sep = delimiter.encode()
                parts = row.split(sep)
                if any(f > len(parts) or parts[f - 1] == b"" for f in fields):
                    return row
                return sep.join(parts[f - 1] for f in fields)
            for fold in (False, True):
                args = ["dedup", "--last", "100000", "--design", "exact", "--field",
                        spec] + option + (["-i"] if fold else [])
                want = exact_dedup(rows, (lambda r: key(r.lower())) if fold else key)
                got = rows_of(run(args, as_input(rows)).stdout)
                check(got == want, "--field %s %r fold=%s: %d lines, expected %d" % (
                    spec, delimiter, fold, len(got), len(want)))


def test_joined_fields_are_unambiguous():
    # "a,b" + "c" and "a" + "b,c" would be one key if joined by ','
    # inside a field; with ';' fields no field holds the joining byte
    out = run(["dedup", "--last", "9", "--design", "exact", "--field", "1,2",
               "--delimiter", ";"], b"a,b;c\na;b,c\na,b;c\n").stdout
    check(out == b"a,b;c\na;b,c\n", "joined: %r" % out)
    out = run(["dedup", "--last", "9", "--design", "exact", "--field", "2,1"],
              b"x y\ny x\nx  y\n").stdout
    check(out == b"x y\ny x\n", "blank-separated: %r" % out)


def test_ignore_case_folds_ascii_only():
    data = "Hello\nhello\nHELLO\nÉcole\nécole\nSTRASSE\nstraße\n".encode()
    for flag in ("-i", "--ignore-case"):
        out = run(["dedup", "--last", "9", "--design", "exact", flag], data).stdout
        check(out == "Hello\nÉcole\nécole\nSTRASSE\nstraße\n".encode(),
              "%s: %r" % (flag, out))
    # the regex matches as written; the key it cuts is folded
    out = run(["dedup", "--last", "9", "--design", "exact", "-i", "--key-regex",
               "user=([a-zA-Z]+)"], b"user=Bob 1\nuser=bob 2\nUSER=bob 3\n").stdout
    check(out == b"user=Bob 1\nUSER=bob 3\n", "regex: %r" % out)


# ---- options ----------------------------------------------------------------

def test_short_options():
    data = b"a\nA\nb\na\n"
    base = ["dedup", "--last", "9", "--design", "exact"]
    check(run(base + ["-i", "-c"], data).stdout == b"0\ta\n1\tA\n0\tb\n1\ta\n", "-i -c")
    check(run(base + ["-ic"], data).stdout == b"0\ta\n1\tA\n0\tb\n1\ta\n", "-ic")
    check(run(base + ["-v"], data).stdout == b"a\n", "-v")
    check(run(base + ["-iv"], data).stdout == b"A\na\n", "-iv")
    check(b"-i, --ignore-case" in run(["dedup", "-h"]).stdout, "-h")
    check(b"Usage" in run(["dedup", "-ih"]).stdout, "-ih")
    for args, why in ((["-x"], b"unknown option '-x'"), (["-ix"], b"unknown option '-x'"),
                      (["-cv"], b"exclude"), (["-"], None)):
        proc = run(base + args, data, expect=2 if why else 0)
        check(why is None or why in proc.stderr, "%s: %r" % (args, proc.stderr))


def test_value_options_given_twice():
    for args, name in ((["--field", "2", "--field", "3"], b"--field"),
                       (["--field=2", "--field", "2"], b"--field"),
                       (["--time-field", "1", "--time-field=2"], b"--time-field"),
                       (["--last", "5"], b"--last"),
                       (["--time-format", "unix", "--time-format", "unix_ms",
                         "--time-field", "1"], b"--time-format")):
        first = ["--window", "1h"] if args[0] != "--last" else ["--last", "9"]
        proc = run(["dedup"] + first + args, expect=2)
        check(name + b" given twice" in proc.stderr, "%s: %r" % (args, proc.stderr))
    # flags may repeat
    run(["dedup", "--last", "9", "-c", "--count", "-ii"], b"a\n")
    proc = run(["plan", "--error", "0.01", "--error", "0.02", "--window", "100"], expect=2)
    check(b"--error given twice" in proc.stderr, "plan: %r" % proc.stderr)


# ---- state files ------------------------------------------------------------

def section_of(path):
    data = open(path, "rb").read()
    at = data.rindex(b"TDBFKEYS")
    return data[:at], data[at:]


def fnv1a(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return h


def test_state_keeps_every_key_and_time_option():
    state = tmp("spec-v2.tdbf")
    options = ["--time-field", "1-3", "--time-format", "%b %e %H:%M:%S", "--field", "5,7",
               "-i"]
    today = time.strftime("%b %e", time.gmtime(time.time() - 86400))
    rows = ["%s 10:00:%02d host %s x %s" % (today, i, w, v)
            for i, (w, v) in enumerate([("A", "1"), ("a", "1"), ("b", "1")])]
    out = run(["dedup", "--window", "1h", "--state", state] + options,
              "\n".join(rows[:1]).encode() + b"\n").stdout
    check(out == rows[0].encode() + b"\n", "first run: %r" % out)
    _, section = section_of(state)
    check(struct.unpack("<I", section[8:12])[0] == 2, "section version 2")
    # no options: the state's are taken (case folded, fields 4 and 6)
    out = run(["dedup", "--state", state], as_input([r.encode() for r in rows[1:]])).stdout
    check(out == rows[2].encode() + b"\n", "resumed with the state's options: %r" % out)
    # the same options: accepted; any other: refused
    run(["dedup", "--state", state] + options, b"")
    for other in (options[:-1],
                  options[:5] + ["5,6", "-i"],
                  options[:5] + ["7,5", "-i"],
                  ["--time-field", "1-3", "--time-format", "%b %d %H:%M:%S"] + options[4:],
                  ["--time-field", "1,2,4", "--time-format", "%b %e %H:%M:%S"] + options[4:],
                  options + ["--delimiter", ","]):
        proc = run(["dedup", "--state", state] + other, b"", expect=1)
        check(b"was made with keys from --field 5,7 --ignore-case --time-field 1,2,3 "
              b"--time-format '%b %e %H:%M:%S'" in proc.stderr, "%s: %r" % (other, proc.stderr))
    info = run(["info", state]).stdout
    check(b"--field 5,7 --ignore-case --time-field 1,2,3 --time-format '%b %e %H:%M:%S'"
          in info, "info: %r" % info)
    keys = json.loads(run(["info", "--json", state]).stdout)["dedup_keys"]
    check(keys["fields"] == [5, 7] and keys["field"] == 5 and keys["ignore_case"] is True and
          keys["time_fields"] == [1, 2, 3] and keys["time_format"] == "pattern" and
          keys["time_pattern"] == "%b %e %H:%M:%S", "info --json: %r" % keys)


def v1_section(window_items, window_ns, field, delimiter, time_field, time_format, regex):
    """A key section as tdbf wrote it before field lists (version 1)."""
    body = struct.pack("<QQIIIII", window_items, window_ns, field, delimiter, time_field,
                       time_format, len(regex)) + regex
    return b"TDBFKEYS" + struct.pack("<II", 1, len(body)) + body + \
        struct.pack("<Q", fnv1a(body))


def test_version_1_state_still_loads():
    state = tmp("spec-v1.tdbf")
    first = run(["dedup", "--last", "100", "--field", "2", "--delimiter", ",", "--state",
                 state, "--seed", "5"], b"a,1\nb,1\n").stdout
    check(first == b"a,1\n", "first run %r" % first)
    filter_bytes, _ = section_of(state)
    with open(state, "wb") as f:
        f.write(filter_bytes + v1_section(100, 0, 2, ord(","), 0, 0, b""))
    check(b"--field 2 --delimiter ','" in run(["info", state]).stdout, "info of v1")
    # no options: the v1 spec is taken; then the save rewrites it as v2
    out = run(["dedup", "--state", state], b"c,1\nd,2\n").stdout
    check(out == b"d,2\n", "resumed from v1: %r" % out)
    _, section = section_of(state)
    check(struct.unpack("<I", section[8:12])[0] == 2, "saved again as version 2")
    run(["dedup", "--state", state, "--field", "2", "--delimiter", ","], b"")
    run(["dedup", "--state", state, "--field", "2,3", "--delimiter", ","], b"", expect=1)
    # a v1 time spec with a regex, then a damaged v1 section
    with open(state, "wb") as f:
        f.write(filter_bytes + v1_section(100, 0, 0, 0xffffffff, 0, 0, b"id=([0-9]+)"))
    out = run(["dedup", "--state", state], b"id=7 x\nid=7 y\nid=8\n").stdout
    check(out == b"id=7 x\nid=8\n", "v1 regex: %r" % out)
    broken = bytearray(filter_bytes + v1_section(100, 0, 2, ord(","), 0, 0, b""))
    broken[-12] ^= 1
    with open(state, "wb") as f:
        f.write(bytes(broken))
    proc = run(["dedup", "--state", state], b"", expect=1)
    check(b"key section" in proc.stderr, "damaged v1: %r" % proc.stderr)


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def test_state_written_by_tdbf_before_field_lists():
    # fixtures/dedup-state-v1.tdbf: written by the tdbf of the release
    # before field lists, as
    #   printf 'a,1\nb,1\nc,2\n' | tdbf dedup --last 100 --field 2 \
    #       --delimiter , --state dedup-state-v1.tdbf --seed 7
    state = tmp("fixture-v1.tdbf")
    with open(os.path.join(FIXTURES, "dedup-state-v1.tdbf"), "rb") as f:
        original = f.read()
    check(struct.unpack("<I", original[original.rindex(b"TDBFKEYS") + 8:][:4])[0] == 1,
          "the fixture holds a version 1 section")
    with open(state, "wb") as f:
        f.write(original)
    check(b"--field 2 --delimiter ','" in run(["info", state]).stdout, "info")
    run(["dedup", "--state", state, "--field", "2"], b"", expect=1)
    out = run(["dedup", "--state", state], b"x,1\ny,2\nz,3\n").stdout
    check(out == b"z,3\n", "keys 1 and 2 were seen: %r" % out)


def test_damaged_version_2_sections_are_refused():
    state = tmp("spec-bad.tdbf")
    run(["dedup", "--window", "1h", "--state", state, "--time-field", "1,2", "--time-format",
         "%Y-%m-%d %H:%M:%S", "--field", "3"], b"2025-06-24 10:11:12 a\n")
    filter_bytes, section = section_of(state)
    body = section[16:-8]

    def write(new_body, version=2):
        with open(state, "wb") as f:
            f.write(filter_bytes + b"TDBFKEYS" + struct.pack("<II", version, len(new_body)) +
                    new_body + struct.pack("<Q", fnv1a(new_body)))

    write(body)
    run(["dedup", "--state", state], b"")   # the rewrite itself is sound
    # flags with an unknown bit; a field list with a 0; the pattern cut
    # short ("%Y-%m-%d %H:%M:" is not a full time); version 3
    bad_flags = body[:24] + struct.pack("<I", 2) + body[28:]
    zero_field = body[:32] + struct.pack("<I", 0) + body[36:]
    pattern_len = struct.unpack("<I", body[-21:-17])[0]
    check(pattern_len == 17 and body[-17:] == b"%Y-%m-%d %H:%M:%S", "layout as documented")
    short_pattern = body[:-21] + struct.pack("<I", 15) + body[-17:-2]
    for damaged, version in ((bad_flags, 2), (zero_field, 2), (short_pattern, 2), (body, 3)):
        write(damaged, version)
        proc = run(["dedup", "--state", state], b"", expect=1)
        check(b"key section" in proc.stderr, "damaged v2: %r" % proc.stderr)


def section(tag, version, body):
    """A section after the filter (docs/format.md, Sections)."""
    return tag + struct.pack("<II", version, len(body)) + body + struct.pack("<Q", fnv1a(body))


def test_sections_of_other_tags_are_listed_and_kept():
    state = tmp("sections.tdbf")
    run(["dedup", "--last", "100", "--field", "2", "--delimiter", ",", "--state", state],
        b"a,1\nb,2\n")
    filter_bytes, keys = section_of(state)
    note = section(b"TDBFNOTE", 3, b"kept by a later tdbf")
    # an unknown section before and after the key section: both load
    for layout in (note + keys, keys + note):
        with open(state, "wb") as f:
            f.write(filter_bytes + layout)
        doc = json.loads(run(["info", "--json", state]).stdout)
        tags = [(x["tag"], x["version"], x["bytes"], x["read"]) for x in doc["sections"]]
        check(doc["section_count"] == 2 and ("TDBFNOTE", 3, 20, False) in tags and
              doc["dedup_keys"]["fields"] == [2], "info --json: %r" % doc)
        text = run(["info", state]).stdout
        check(b"TDBFNOTE v3, 20 bytes (not read by this tdbf)" in text, "info: %r" % text)
        proc = run(["dedup", "--state", state], b"c,1\nd,3\n")
        check(proc.stdout == b"d,3\n", "keys of the state: %r" % proc.stdout)
        check(proc.stderr == b"", "stderr: %r" % proc.stderr)
        saved = open(state, "rb").read()
        check(saved.endswith(note), "the save kept the section, after the key section")
        check(json.loads(run(["info", "--json", state]).stdout)["section_count"] == 2,
              "sections after the save")
    # two key sections, stray bytes, a tag of another shape: refused
    for bad in (keys + keys, keys + b"\n", keys + section(b"TDBFnote", 1, b"x")):
        with open(state, "wb") as f:
            f.write(filter_bytes + bad)
        proc = run(["info", state], expect=1)
        check(b"not a usable" in proc.stderr, "info took %r: %r" % (bad[-20:], proc.stderr))
        run(["dedup", "--state", state], b"", expect=1)


def test_window_mismatch_names_both_windows():
    state = tmp("windows.tdbf")
    for first, second in ((["--last", "100"], ["--last", "200"]),
                          (["--window", "10m"], ["--window", "5m"])):
        if os.path.exists(state):
            os.unlink(state)
        run(["dedup", "--state", state] + first, b"a\n")
        proc = run(["dedup", "--state", state] + second, b"a\n", expect=1)
        check(b"was made with the window %s" % first[0].encode() in proc.stderr and
              b"not %s" % second[0].encode() in proc.stderr and b"--last 0" not in proc.stderr,
              "mismatch: %r" % proc.stderr)


if __name__ == "__main__":
    sys.exit(main(globals()))
