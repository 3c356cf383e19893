#!/usr/bin/python3
"""make bench-hostile: what a hostile client can do to a server running tdbf.so.

Runs each attack against a fresh redis-server (loopback, own directory,
stopped by its PID) with the module given, and prints one row per attack:

    forged    3 TDBF.LOADCHUNK first chunks whose header claims 4 GiB - 1 MiB
              each: used_memory growth, and after DEBUG RELOAD
    evict     maxmemory 64mb + allkeys-lru, 3000 keys of 15 KB, one forged
              chunk claiming 40 MiB: keys evicted
    reserve   TDBF.RESERVE big 0.01 WINDOW 300000000 at maxmemory 64mb: the
              reply, and the server's peak RSS (VmHWM) before and after
    addat     TDBF.ADDAT <now + 1 day> from an ordinary client, then an item
              added to an EX 2 filter: still present 3.2 s later?
    burst     200 000 distinct items (MADD of 1000) into clock, rotating and
              tlbf filters created with EX 60 and no CAPACITY: items answered
              "already present", adds refused, FP over 20 000 new items
    log       2000 forged chunks + 2000 corrupt RESTOREs: server log lines
    autocreate  1000 TDBF.ADD of new keys from an ACL user limited to TDBF
              data commands on alice:*, no maxmemory: used_memory growth
    huge      TDBF.RESERVE alice:big 0.01 WINDOW 1000000000 from that user,
              no maxmemory: the reply, its time, the worst PING of another
              client meanwhile
    clock     TDBF.LOADCHUNK of a time filter SCANDUMPed from a server whose
              clock runs a day ahead (tests/redis/clockshift.c), then an item
              added to it (EX 2): still present 2.5 s later?

Usage: bench/redis_hostile.py [MODULE ...]  (default build/tdbf.so).  Give
two modules (say an older build first) to compare them side by side.
The regression tests asserting the fixed behaviour are in
tests/redis/test_hostile.py; this script only measures.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KB, MB = 1 << 10, 1 << 20
DAY_MS = 86_400_000


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One redis-server with the module, in a temporary directory."""

    def __init__(self, module, *config, env=None):
        self.dir = tempfile.mkdtemp(prefix="tdbf-hostile-")
        self.log = os.path.join(self.dir, "log")
        port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--save", "", "--logfile", self.log, "--enable-debug-command", "local",
             "--loadmodule", module, *config], stdout=subprocess.DEVNULL,
            env=dict(os.environ, **env) if env else None)
        self.c = redis.Redis(port=port, socket_timeout=60)
        for _ in range(500):
            try:
                self.c.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.02)
        self.stop()
        sys.exit("redis-server did not start")

    def peak_rss(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * KB
        return 0

    def used(self):
        return self.c.info("memory")["used_memory"]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=20)
        shutil.rmtree(self.dir, ignore_errors=True)


def attempt(call):
    """A command's reply, or its error as a short string."""
    try:
        return call()
    except redis.ResponseError as e:
        return f"error: {str(e)[:48]}"


def forged_chunk(c, claim):
    """A real dump's 56-byte header with its payload length set to claim."""
    if not c.exists("small"):
        c.execute_command("TDBF.RESERVE", "small", "0.01", "WINDOW", "100", "SEED", "1")
    header = c.execute_command("TDBF.SCANDUMP", "small", 0)[1][:56]
    return header[:48] + claim.to_bytes(8, "little")


def forged(module):
    s = Server(module)
    chunk, before = forged_chunk(s.c, 4 * 2**30 - MB), s.used()
    for i in range(3):
        attempt(lambda: s.c.execute_command("TDBF.LOADCHUNK", f"k{i}", 57, chunk))
    grown = s.used() - before
    s.c.execute_command("DEBUG", "RELOAD")
    reloaded = s.used() - before
    s.stop()
    return f"used_memory +{grown / MB:.2f} MB, after DEBUG RELOAD +{reloaded / MB:.2f} MB"


def evict(module):
    s = Server(module, "--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru")
    pipe = s.c.pipeline(transaction=False)
    for i in range(3000):
        pipe.set(f"key:{i}", "x" * 15000)
    pipe.execute()
    chunk = forged_chunk(s.c, 40 * MB)
    reply = attempt(lambda: s.c.execute_command("TDBF.LOADCHUNK", "forged", 57, chunk))
    s.c.set("next", "write")      # eviction runs before a command
    alive = sum(s.c.exists(*[f"key:{i}" for i in range(j, j + 500)]) for j in range(0, 3000, 500))
    s.stop()
    return f"{reply!r}: {3000 - alive} of 3000 keys evicted"


def reserve(module):
    s = Server(module, "--maxmemory", "64mb")
    before = s.peak_rss()
    reply = attempt(lambda: s.c.execute_command("TDBF.RESERVE", "big", "0.01", "WINDOW",
                                                "300000000"))
    after = s.peak_rss()
    s.stop()
    return f"{reply!r}; peak RSS {before / MB:.0f} -> {after / MB:.0f} MB"


def addat(module):
    s = Server(module)
    s.c.execute_command("TDBF.RESERVE", "p", "0.01", "EX", "2")
    now_ms = int(s.c.time()[0]) * 1000
    reply = attempt(lambda: s.c.execute_command("TDBF.ADDAT", "p", now_ms + DAY_MS, "x"))
    s.c.execute_command("TDBF.ADD", "p", "later")
    time.sleep(3.2)
    present = s.c.execute_command("TDBF.EXISTS", "p", "later")
    s.stop()
    return f"{reply!r}; an item added next, 3.2 s later in an EX 2 filter: present={present}"


def burst_one(c, design):
    c.execute_command("TDBF.RESERVE", design, "0.01", "EX", "60", "DESIGN", design)
    present = refused = 0
    for batch in range(200):
        pipe = c.pipeline(transaction=False)
        pipe.execute_command("TDBF.MADD", design, *[f"{design}:{batch}:{i}" for i in range(1000)])
        for answer in pipe.execute(raise_on_error=False)[0]:
            if isinstance(answer, Exception):
                refused += 1
            elif answer == 0:
                present += 1
    hits = sum(c.execute_command("TDBF.MEXISTS", design,
                                 *[f"never:{j}:{i}" for i in range(1000)]).count(1)
               for j in range(20))
    return f"{design}: {present} 'present', {refused} refused, FP {hits / 20000:.4f}"


def burst(module):
    s = Server(module)
    out = "; ".join(burst_one(s.c, d) for d in ["clock", "rotating", "tlbf"])
    s.stop()
    return out


def log(module):
    s = Server(module)
    with open(s.log) as f:
        before = sum(1 for _ in f)
    for _ in range(2000):
        attempt(lambda: s.c.execute_command("TDBF.LOADCHUNK", "x", 57, b"\0" * 56))
    s.c.execute_command("TDBF.RESERVE", "small", "0.01", "WINDOW", "100")
    payload = bytearray(s.c.dump("small"))
    payload[20] ^= 1
    s.c.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", 1)
    for _ in range(2000):
        attempt(lambda: s.c.restore("y", 0, bytes(payload), replace=True))
    with open(s.log) as f:
        lines = sum(1 for _ in f) - before
    size = os.path.getsize(s.log)
    s.stop()
    return f"{lines} log lines, log {size} bytes"


def limited_user(s):
    """A client logged in as alice: the TDBF data commands on alice:*."""
    s.c.execute_command("ACL", "SETUSER", "alice", "on", ">pw", "~alice:*", "-@all", "+ping",
                        *[f"+tdbf.{c}" for c in ("reserve", "add", "madd", "insert", "exists",
                                                 "mexists", "prob", "info", "card",
                                                 "scandump")])
    return redis.Redis(port=s.c.connection_pool.connection_kwargs["port"], username="alice",
                       password="pw", socket_timeout=60)


def autocreate(module):
    s = Server(module)
    alice, before = limited_user(s), s.used()
    for i in range(1000):
        alice.execute_command("TDBF.ADD", f"alice:k{i}", "x")
    grown = s.used() - before
    s.stop()
    return f"used_memory +{grown / MB:.1f} MB ({grown / 1000:.0f} bytes a key)"


def huge(module):
    s = Server(module)
    alice, latencies, done = limited_user(s), [], threading.Event()
    other = redis.Redis(port=s.c.connection_pool.connection_kwargs["port"], socket_timeout=60)

    def ping():
        while not done.is_set():
            t = time.monotonic()
            other.ping()
            latencies.append(time.monotonic() - t)
            time.sleep(0.001)

    thread = threading.Thread(target=ping)
    thread.start()
    time.sleep(0.05)
    t = time.monotonic()
    reply = attempt(lambda: alice.execute_command("TDBF.RESERVE", "alice:big", "0.01", "WINDOW",
                                                  "1000000000"))
    took = time.monotonic() - t
    time.sleep(0.05)
    done.set()
    thread.join()
    s.stop()
    return f"{reply!r} in {took * 1000:.0f} ms; worst PING {max(latencies) * 1000:.1f} ms"


def clock(module):
    shim = os.path.join(tempfile.mkdtemp(prefix="tdbf-shim-"), "clockshift.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", shim,
                    os.path.join(ROOT, "tests", "redis", "clockshift.c")], check=True)
    ahead = Server(module, env={"LD_PRELOAD": shim, "TDBF_CLOCK_SHIFT_S": "86400"})
    ahead.c.execute_command("TDBF.RESERVE", "t", "0.01", "EX", "2")
    ahead.c.execute_command("TDBF.ADD", "t", "x")
    cursor, chunk = ahead.c.execute_command("TDBF.SCANDUMP", "t", 0)
    ahead.stop()
    shutil.rmtree(os.path.dirname(shim), ignore_errors=True)
    s = Server(module)
    reply = attempt(lambda: s.c.execute_command("TDBF.LOADCHUNK", "t", cursor, chunk))
    present = "-"
    if reply == b"OK":
        s.c.execute_command("TDBF.ADD", "t", "later")
        time.sleep(2.5)
        present = s.c.execute_command("TDBF.EXISTS", "t", "later")
    s.stop()
    return f"{reply!r}; an item added next, 2.5 s later in the EX 2 filter: present={present}"


ATTACKS = [("forged", forged), ("evict", evict), ("reserve", reserve), ("addat", addat),
           ("burst", burst), ("log", log), ("autocreate", autocreate), ("huge", huge),
           ("clock", clock)]


def main():
    modules = sys.argv[1:] or [os.path.join(ROOT, "build", "tdbf.so")]
    for name, attack in ATTACKS:
        for module in modules:
            label = f" [{module}]" if len(modules) > 1 else ""
            print(f"{name:10s}{label} {attack(module)}", flush=True)


if __name__ == "__main__":
    main()
