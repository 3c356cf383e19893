#!/usr/bin/python3
"""make bench-redis: the tdbf Redis module against plain Redis keys.

Throughput (one redis-benchmark run per command, same -n, -c, -r, all in one
invocation of this script, so the ratios compare like with like on a shared
machine):
    TDBF.ADD / TDBF.EXISTS on a count filter (WINDOW 10^6) and a time filter
    (EX 60), vs SET key:__rand_int__ 1 NX EX 60 and EXISTS key:__rand_int__,
    at -P 1 and -P 16, -r 10^6.
Memory (used_memory deltas), 10^6 distinct items, error 0.001, window 60 s:
    (a) paced: TDBF.ADDAT with timestamps spread evenly over the 59 s
        before now (the stamped form the module replicates: a paced load
        without the 60 s wait), (b) burst: TDBF.MADD as fast as a pipeline goes,
    vs 10^6 SET ... EX 60 keys; and each filter's measured FP rate.

Designs: the module's default count design against sqf (and, for EX 60,
the default time design against sqf where the module has it): TDBF.ADD
and TDBF.EXISTS throughput at -P 1 and -P 16, in alternating rounds so
that the machine's drift falls on both, and bytes per item and FP of a
filter holding 10^6 distinct items at 0.001: what the choice of default
weighs (memory against command throughput).

Creation: BENCH_CREATED (5000) new keys by TDBF.RESERVE of a small count
filter (WINDOW 1000) and a small time filter (EX 60 CAPACITY 1000), vs SET of
new keys, pipelined 50 deep: what a filter per user or tenant costs the server.

Environment: BENCH_N (requests per test, default 200000), BENCH_ITEMS
(default 1000000), BENCH_CREATED (default 5000).  Prints a table and ratios; CSV rows go to
bench/redis-results.csv.
"""
import csv
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = os.environ.get("TDBF_MODULE", os.path.join(ROOT, "build", "tdbf.so"))
N = int(os.environ.get("BENCH_N", "200000"))
ITEMS = int(os.environ.get("BENCH_ITEMS", "1000000"))
# More module arguments, e.g. "DEFAULT_TIME_DESIGN tlbf-line" to try another default.
MODULE_ARGS = os.environ.get("TDBF_MODULE_ARGS", "").split()
RANGE = 1000000


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(directory):
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--dir", directory,
         "--save", "", "--appendonly", "no", "--logfile", os.path.join(directory, "log"),
         # ALLOW_ADDAT: the paced load backfills stamped adds, as an operator would.
         "--loadmodule", MODULE, "ALLOW_ADDAT", "yes", *MODULE_ARGS],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    c = redis.Redis(host="127.0.0.1", port=port, socket_timeout=120)
    for _ in range(500):
        try:
            c.ping()
            return proc, port, c
        except redis.ConnectionError:
            time.sleep(0.02)
    proc.kill()
    sys.exit("redis-server did not start")


def stop_server(proc):
    os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def benchmark(port, pipeline, *command):
    out = subprocess.run(
        ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-n", str(N),
         "-r", str(RANGE), "-P", str(pipeline), "-q", "--csv", *command],
        capture_output=True, text=True, check=True).stdout
    rows = [row for row in csv.reader(out.splitlines()) if row and row[0] != "test"]
    return float(rows[-1][1])


# Keys created one by one: a filter per key (a user, a tenant) is a common
# use, and each creation plans and allocates a filter in the server's one
# thread.  Small filters, so that the planning, not the memory, is timed.
CREATED = int(os.environ.get("BENCH_CREATED", "5000"))
CREATION = (
    ("set", lambda i: ("SET", f"new:set:{i}", "1")),
    ("reserve_count", lambda i: ("TDBF.RESERVE", f"new:count:{i}", "0.01", "WINDOW", "1000")),
    ("reserve_time", lambda i: ("TDBF.RESERVE", f"new:time:{i}", "0.01", "EX", "60",
                                "CAPACITY", "1000")),
)


def create_keys(c, command):
    """CREATED new keys by `command`, 50 to a pipeline; keys per second."""
    start = time.perf_counter()
    pipe = c.pipeline(transaction=False)
    for i in range(CREATED):
        pipe.execute_command(*command(i))
        if len(pipe) >= 50:
            pipe.execute()
    pipe.execute()
    return CREATED / (time.perf_counter() - start)


def used_memory(c):
    return c.info("memory")["used_memory"]


def load(c, key, items, stamped):
    """Add items; stamped: ADDAT with times spread over the 59 s before now
    (so the filter is full, and still current when it is probed)."""
    seconds, micros = c.time()
    now_ms = seconds * 1000 + micros // 1000
    batch = 1000
    pipe = c.pipeline(transaction=False)
    for start in range(0, items, batch):
        chunk = [f"item:{i}" for i in range(start, min(items, start + batch))]
        if stamped:
            pipe.execute_command("TDBF.ADDAT", key, now_ms - 59000 + start * 59000 // items,
                                     *chunk)
        else:
            pipe.execute_command("TDBF.MADD", key, *chunk)
        if len(pipe) >= 50:
            pipe.execute()
    pipe.execute()


ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def reserve_design(c, key, error, window, design):
    """RESERVE with a window (a count, or "EX 60"); design None: the default.
    False when the module refuses the design for that window."""
    args = ["TDBF.RESERVE", key, error]
    args += ["EX", "60", "CAPACITY", RANGE] if window == "time" else ["WINDOW", RANGE]
    if design:
        args += ["DESIGN", design]
    try:
        c.execute_command(*args)
    except redis.ResponseError:
        return False
    return True


# The fastest design of each window, against which sqf is weighed.
FASTEST = {"count": "apbf-line", "time": "tlbf-line"}


def compare_designs(c, port, window, results):
    """sqf against the fastest design for `window` ("count" or "time"),
    whichever the module's default is."""
    if not reserve_design(c, "d:default", "0.01", window, None):
        return
    default = c.execute_command("TDBF.INFO", "d:default", "design")[0]
    default = default.decode() if isinstance(default, bytes) else default
    c.delete("d:default")
    other = FASTEST[window] if default == "sqf" else default
    if not reserve_design(c, "d:default", "0.01", window, other) or \
            not reserve_design(c, "d:sqf", "0.01", window, "sqf"):
        c.flushall()
        return
    names = {"default": other, "sqf": "sqf"}
    print(f"designs, {window} window: {other} against sqf (the module's default:"
          f" {default}), requests/s (median of {ROUNDS} alternating rounds)")
    default = other
    for p in (1, 16):
        runs = {(d, cmd): [] for d in names for cmd in ("ADD", "EXISTS")}
        for _ in range(ROUNDS):
            for d in names:
                for cmd in ("ADD", "EXISTS"):
                    runs[(d, cmd)].append(benchmark(port, p, f"TDBF.{cmd}", f"d:{d}",
                                                    "__rand_int__"))
        row = {k: median(v) for k, v in runs.items()}
        for cmd in ("ADD", "EXISTS"):
            ratio = row[("sqf", cmd)] / row[("default", cmd)]
            print(f"  -P {p:<2}  {cmd:<6} {default} {row[('default', cmd)]:,.0f}"
                  f"  sqf {row[('sqf', cmd)]:,.0f}  sqf/{default} {ratio:.3f}")
            results.append(("designs", f"{window}_P{p}", f"{cmd.lower()}_sqf_over_default", ratio))
    c.flushall()
    for d, design in names.items():
        base = used_memory(c)
        reserve_design(c, d, "0.001", window, design)
        load(c, d, ITEMS, window == "time")
        used = used_memory(c) - base
        fp = fp_rate(c, d)
        print(f"  {design:<10} {used / ITEMS:6.2f} bytes/item  FP {fp:.5f}"
              f"  ({ITEMS} distinct items, error 0.001)")
        results.append(("designs", f"{window}_{design}", "bytes_per_item", used / ITEMS))
        results.append(("designs", f"{window}_{design}", "fp", fp))
        names[d] = (design, used)
        c.flushall()
    print(f"  memory sqf/{default} {names['sqf'][1] / max(names['default'][1], 1):.3f}")


def fp_rate(c, key, probes=100000):
    hits = 0
    pipe = c.pipeline(transaction=False)
    for start in range(0, probes, 1000):
        pipe.execute_command("TDBF.MEXISTS", key,
                             *[f"absent:{i}" for i in range(start, start + 1000)])
    for reply in pipe.execute():
        hits += sum(reply)
    return hits / probes


def main():
    if not os.path.exists(MODULE):
        sys.exit(f"{MODULE} is missing: run make module")
    results = []
    with tempfile.TemporaryDirectory(prefix="tdbf-bench-") as d:
        proc, port, c = start_server(d)
        try:
            c.execute_command("TDBF.RESERVE", "cf", "0.01", "WINDOW", RANGE)
            c.execute_command("TDBF.RESERVE", "tf", "0.01", "EX", "60", "CAPACITY", RANGE)
            print(f"throughput: -n {N} -r {RANGE}, requests/s")
            for p in (1, 16):
                row = {
                    "set_nx_ex": benchmark(port, p, "SET", "key:__rand_int__", "1", "NX",
                                           "EX", "60"),
                    "exists": benchmark(port, p, "EXISTS", "key:__rand_int__"),
                    "add_count": benchmark(port, p, "TDBF.ADD", "cf", "__rand_int__"),
                    "add_time": benchmark(port, p, "TDBF.ADD", "tf", "__rand_int__"),
                    "exists_count": benchmark(port, p, "TDBF.EXISTS", "cf", "__rand_int__"),
                    "exists_time": benchmark(port, p, "TDBF.EXISTS", "tf", "__rand_int__"),
                }
                print(f"  -P {p:<2}  " + "  ".join(f"{k} {v:,.0f}" for k, v in row.items()))
                print(f"  -P {p:<2}  ratios: ADD count {row['add_count'] / row['set_nx_ex']:.2f}x"
                      f"  ADD time {row['add_time'] / row['set_nx_ex']:.2f}x"
                      f"  EXISTS count {row['exists_count'] / row['exists']:.2f}x"
                      f"  EXISTS time {row['exists_time'] / row['exists']:.2f}x"
                      f"  (vs SET NX EX / EXISTS)")
                for k, v in row.items():
                    results.append(("throughput", f"P{p}", k, v))
            c.flushall()

            for window in ("count", "time"):
                compare_designs(c, port, window, results)

            print(f"creation: {CREATED} new keys each, pipelined, keys/s")
            row = {name: create_keys(c, command) for name, command in CREATION}
            print("  " + "  ".join(f"{k} {v:,.0f}" for k, v in row.items()))
            print(f"  ratios: RESERVE count {row['reserve_count'] / row['set']:.2f}x"
                  f"  RESERVE time {row['reserve_time'] / row['set']:.2f}x  (vs SET)")
            for k, v in row.items():
                results.append(("creation", "pipeline50", k, v))
            c.flushall()

            print(f"memory: {ITEMS} distinct items, error 0.001, 60 s window, the default"
                  f" time design; with CAPACITY {ITEMS} and without (the hint left out:"
                  f" a burst must not need one)")
            mem = {}
            for name, stamped, hinted in (("paced", True, True), ("burst", False, True),
                                          ("paced_nohint", True, False),
                                          ("burst_nohint", False, False)):
                base = used_memory(c)
                hint = ["CAPACITY", ITEMS] if hinted else []
                c.execute_command("TDBF.RESERVE", name, "0.001", "EX", "60", *hint)
                load(c, name, ITEMS, stamped)
                mem[name] = used_memory(c) - base
                fp = fp_rate(c, name)
                slices = c.execute_command("TDBF.INFO", name, "slices")[0]
                print(f"  tdbf {name:<12}  {mem[name] / ITEMS:6.2f} bytes/item  "
                      f"FP {fp:.5f}  slices {slices}")
                results.append(("memory", name, "bytes_per_item", mem[name] / ITEMS))
                results.append(("memory", name, "fp", fp))
                c.flushall()
            base = used_memory(c)
            pipe = c.pipeline(transaction=False)
            for i in range(ITEMS):
                pipe.set(f"item:{i}", 1, ex=60)
                if len(pipe) >= 5000:
                    pipe.execute()
            pipe.execute()
            mem["set"] = used_memory(c) - base
            print(f"  SET EX 60    {mem['set'] / ITEMS:6.2f} bytes/item")
            print(f"  ratios: paced {mem['set'] / max(mem['paced'], 1):.1f}x smaller than SET EX,"
                  f" burst/paced {mem['burst'] / max(mem['paced'], 1):.2f},"
                  f" without CAPACITY burst/paced"
                  f" {mem['burst_nohint'] / max(mem['paced_nohint'], 1):.2f}"
                  f" (burst without / paced with {mem['burst_nohint'] / max(mem['paced'], 1):.2f})")
            results.append(("memory", "set_ex", "bytes_per_item", mem["set"] / ITEMS))
        finally:
            stop_server(proc)
    with open(os.path.join(ROOT, "bench", "redis-results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kind", "case", "metric", "value"])
        w.writerows(results)


if __name__ == "__main__":
    main()
