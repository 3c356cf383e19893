"""Integration tests of the tdbf Redis module against a real redis-server.

Covers every command's happy path and error paths, WRONGTYPE, time windows
under the real clock, persistence (SAVE + restart, DEBUG RELOAD, AOF
restart, BGREWRITEAOF), chunked dump/restore, a corrupted DUMP payload,
replication determinism, memory accounting, the module arguments,
TDBF.PROB on the inferential designs, and README.md's redis-cli examples.
"""
import os
import socket
import struct
import time

import pytest
import redis

from conftest import Server


def err(excinfo):
    return str(excinfo.value)


def assert_refused(c, command, key, args, message):
    """command fails with `message` and leaves no key behind."""
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command(command, key, *args)
    assert message in err(e)
    assert c.exists(key) == 0


def digest(c, key):
    return c.execute_command("DEBUG", "DIGEST-VALUE", key)[0]


def info(c, key):
    flat = c.execute_command("TDBF.INFO", key)
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


# ---------------------------------------------------------------------------
# TDBF.RESERVE

def test_reserve_count_window_defaults_to_sqf(r):
    # sqf: the least memory, at TDBF.ADD's requests/s (make bench-redis)
    assert r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "1000") == b"OK"
    i = info(r, "f")
    assert i["design"] == b"sqf"
    assert float(i["error"]) == 0.01
    assert i["window_items"] >= 1000
    assert i["window_ms"] == 0


def test_reserve_time_window_defaults_to_sqf(r):
    assert r.execute_command("TDBF.RESERVE", "t", "0.001", "EX", "60") == b"OK"
    i = info(r, "t")
    assert i["design"] == b"sqf"
    assert i["window_ms"] == 60000
    assert r.execute_command("TDBF.RESERVE", "p", "0.01", "PX", "250", "CAPACITY", "1000") == b"OK"
    assert info(r, "p")["window_ms"] == 250


def test_reserve_reads_the_parameter_language(r):
    """WINDOW takes a count or a duration, ERROR a percentage, as the tool
    and the Python package read them."""
    assert r.execute_command("TDBF.RESERVE", "c", "1%", "WINDOW", "1e3") == b"OK"
    assert r.execute_command("TDBF.RESERVE", "c2", "0.01", "WINDOW", "1000") == b"OK"
    i = info(r, "c")
    assert i["window_items"] == info(r, "c2")["window_items"] >= 1000
    assert float(i["error"]) == 0.01
    assert r.execute_command("TDBF.RESERVE", "t", "0.5%", "WINDOW", "1m30s", "CAPACITY", "2k") == b"OK"
    i = info(r, "t")
    assert i["window_ms"] == 90000 and i["design"] == b"sqf"
    assert float(i["error"]) == 0.005
    assert r.execute_command("TDBF.INSERT", "d", "WINDOW", "64Ki", "DESIGN", "APBF_LINE",
                             "ITEMS", "a") == [1]
    assert info(r, "d")["window_items"] >= 65536 and info(r, "d")["design"] == b"apbf-line"


def test_reserve_design_and_seed(r):
    r.execute_command("TDBF.RESERVE", "b", "0.01", "WINDOW", "5000", "DESIGN", "APBBF",
                      "SEED", "18446744073709551615")
    i = info(r, "b")
    assert i["design"] == b"apbbf"
    assert i["seed"] == b"18446744073709551615"
    assert r.execute_command("TDBF.INFO", "b", "seed") == [b"18446744073709551615"]


@pytest.mark.parametrize("args, message", [
    (["0", "WINDOW", "10"], "bad error rate"),
    (["1", "WINDOW", "10"], "bad error rate"),
    (["abc", "WINDOW", "10"], "bad error rate"),
    (["0.01", "CAPACITY", "10"], "a window is required"),
    (["0.01", "WINDOW", "0"], "bad WINDOW"),
    (["0.01", "WINDOW", "-5"], "bad WINDOW"),
    (["0.01", "WINDOW", "1.5e3"], "bad WINDOW"),
    (["0.01", "WINDOW", "10x"], "neither a count"),
    (["0.01", "WINDOW", "10", "CAPACITY", "5"], "capacity applies to a time window"),
    (["0.01", "WINDOW", "10", "SEED", "0"], "leave the seed out"),
    (["200%", "WINDOW", "10"], "bad error rate"),
    (["0.01", "EX", "ten"], "bad EX"),
    (["0.01", "PX", "0"], "bad PX"),
    (["0.01", "WINDOW", "10", "EX", "5"], "window given twice"),
    (["0.01", "WINDOW", "10", "DESIGN", "apbf", "DESIGN", "apbbf"], "DESIGN given twice"),
    (["0.01", "WINDOW", "10", "SEED", "1", "SEED", "2"], "SEED given twice"),
    (["0.01", "EX", "10", "CAPACITY", "9", "CAPACITY", "9"], "CAPACITY given twice"),
    (["0.01", "WINDOW", "10", "DESIGN", "apbf\0x"], "NUL byte"),
    (["0.01", "WINDOW", "10", "DESIGN", "cuckoo"], "unknown design"),
    (["0.01", "WINDOW", "10", "CAPACITY", "0"], "bad CAPACITY"),
    (["0.01", "WINDOW", "10", "SEED", "-1"], "bad SEED"),
    (["0.01", "WINDOW", "10", "FROB", "1"], "unknown argument"),
    (["0.01", "WINDOW"], "wrong number of arguments"),
    (["0.01", "WINDOW", "10", "DESIGN"], "DESIGN needs a value"),
    (["0.01", "WINDOW", "10", "DESIGN", "tlbf"], "does not take a count"),
    (["0.01", "EX", "10", "DESIGN", "apbf"], "does not take a time"),
])
def test_reserve_errors(r, args, message):
    assert_refused(r, "TDBF.RESERVE", "f", args, message)


def test_reserve_refuses_an_existing_key(r):
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "100")
    with pytest.raises(redis.ResponseError, match="exists"):
        r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "100")
    r.set("s", "x")
    with pytest.raises(redis.ResponseError, match="exists"):
        r.execute_command("TDBF.RESERVE", "s", "0.01", "WINDOW", "100")


# ---------------------------------------------------------------------------
# TDBF.ADD, TDBF.MADD, TDBF.EXISTS, TDBF.MEXISTS

def test_add_reports_new_then_present(r):
    r.execute_command("TDBF.RESERVE", "f", "0.001", "WINDOW", "1000", "SEED", "7")
    assert r.execute_command("TDBF.ADD", "f", "a") == 1
    assert r.execute_command("TDBF.ADD", "f", "a") == 0
    assert r.execute_command("TDBF.ADD", "f", "") == 1        # empty item
    assert r.execute_command("TDBF.ADD", "f", b"x\x00y") == 1  # binary item
    assert r.execute_command("TDBF.EXISTS", "f", b"x\x00y") == 1
    assert r.execute_command("TDBF.EXISTS", "f", "a") == 1
    assert r.execute_command("TDBF.EXISTS", "f", "never-added") == 0


def test_madd_and_mexists(r):
    r.execute_command("TDBF.RESERVE", "f", "0.001", "WINDOW", "1000", "SEED", "7")
    assert r.execute_command("TDBF.MADD", "f", "a", "b", "a", "c") == [1, 1, 0, 1]
    assert r.execute_command("TDBF.MEXISTS", "f", "a", "zz", "c") == [1, 0, 1]
    assert r.execute_command("TDBF.MEXISTS", "missing", "a", "b") == [0, 0]
    assert r.execute_command("TDBF.EXISTS", "missing", "a") == 0


def test_add_errors(make_server):
    r = make_server(module_args=["AUTOCREATE", "no"]).client()
    with pytest.raises(redis.ResponseError, match="not found"):
        r.execute_command("TDBF.ADD", "nope", "a")
    with pytest.raises(redis.ResponseError, match="not found"):
        r.execute_command("TDBF.MADD", "nope", "a", "b")
    with pytest.raises(redis.ResponseError, match="AUTOCREATE no"):
        r.execute_command("TDBF.INSERT", "nope", "ITEMS", "a")
    assert r.exists("nope") == 0
    for cmd, args in [("TDBF.ADD", ["f"]), ("TDBF.ADD", ["f", "a", "b"]),
                      ("TDBF.MADD", ["f"]), ("TDBF.EXISTS", ["f"]),
                      ("TDBF.EXISTS", ["f", "a", "b"]), ("TDBF.MEXISTS", ["f"])]:
        with pytest.raises(redis.ResponseError, match="wrong number of arguments"):
            r.execute_command(cmd, *args)


def test_count_window_forgets(r):
    r.execute_command("TDBF.RESERVE", "f", "0.001", "WINDOW", "100", "SEED", "3")
    r.execute_command("TDBF.ADD", "f", "old")
    w = info(r, "f")
    # Far past the window plus its slack, "old" answers at the FP rate only.
    r.execute_command("TDBF.MADD", "f", *[f"k{i}" for i in range(20 * w["window_items"])])
    assert r.execute_command("TDBF.EXISTS", "f", "old") == 0


# ---------------------------------------------------------------------------
# TDBF.INSERT

def test_insert_creates_and_adds(r):
    assert r.execute_command("TDBF.INSERT", "f", "ERROR", "0.001", "WINDOW", "500",
                             "SEED", "9", "ITEMS", "a", "b", "a") == [1, 1, 0]
    i = info(r, "f")
    assert i["design"] == b"sqf" and float(i["error"]) == 0.001
    # Existing filter: creation options are ignored, items added.
    assert r.execute_command("TDBF.INSERT", "f", "WINDOW", "7", "ITEMS", "c", "a") == [1, 0]
    assert r.execute_command("TDBF.INSERT", "f", "NOCREATE", "ITEMS", "d") == [1]
    assert r.execute_command("TDBF.INSERT", "t", "PX", "1000", "DESIGN", "tlbf",
                             "CAPACITY", "100", "ITEMS", "x") == [1]
    assert info(r, "t")["design"] == b"tlbf"


@pytest.mark.parametrize("args, message", [
    (["NOCREATE", "ITEMS", "a"], "not found"),
    (["WINDOW", "10"], "ITEMS and at least one item"),
    (["WINDOW", "10", "ITEMS"], "ITEMS and at least one item"),
    (["ERROR", "0.1", "ERROR", "0.2", "ITEMS", "a"], "ERROR given twice"),
    (["ERROR", "2", "WINDOW", "10", "ITEMS", "a"], "bad error rate"),
    (["WINDOW", "10", "BOGUS", "ITEMS", "a"], "unknown argument"),
    (["NOCREATE", "WINDOW", "10", "ITEMS", "a"], "NOCREATE cannot be combined"),
    (["EX", "1", "DESIGN", "nope", "ITEMS", "a"], "unknown design"),
    (["CAPACITY", "1000", "ITEMS", "a"], "capacity applies to a time window"),
    (["WINDOW", "1k", "WINDOW", "1k", "ITEMS", "a"], "window given twice"),
])
def test_insert_errors(r, args, message):
    assert_refused(r, "TDBF.INSERT", "f", args, message)


# ---------------------------------------------------------------------------
# TDBF.INFO, TDBF.CARD

def test_info_fields(r):
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "1000", "SEED", "5")
    r.execute_command("TDBF.MADD", "f", "a", "b", "c")
    i = info(r, "f")
    for field in ["design", "error", "error_planned", "error_estimated", "window_items",
                  "window_ms", "items", "card", "memory_bytes", "bits_per_item", "k", "l",
                  "slices", "generation_size", "generations", "seed", "now_ms", "cap_hits"]:
        assert field in i, field
    assert i["items"] == 3 and i["card"] == 3
    assert 0 < float(i["error_planned"]) <= 0.01
    # One field: an array of one value, as RedisBloom's BF.INFO key ITEMS.
    assert r.execute_command("TDBF.INFO", "f", "ITEMS") == [3]
    assert r.execute_command("TDBF.INFO", "f", "memory_bytes") == [i["memory_bytes"]]
    with pytest.raises(redis.ResponseError, match="unknown INFO field"):
        r.execute_command("TDBF.INFO", "f", "colour")
    with pytest.raises(redis.ResponseError, match="not found"):
        r.execute_command("TDBF.INFO", "nope")
    with pytest.raises(redis.ResponseError, match="wrong number"):
        r.execute_command("TDBF.INFO", "f", "a", "b")


def test_card(r):
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "100", "SEED", "5")
    assert r.execute_command("TDBF.CARD", "f") == 0
    r.execute_command("TDBF.MADD", "f", *[str(i) for i in range(10)])
    assert abs(r.execute_command("TDBF.CARD", "f") - 10) <= 1    # 9: two share a register
    r.execute_command("TDBF.MADD", "f", *[str(i) for i in range(10, 1000)])
    # Distinct items of the last w to 1.25 w adds (the sketch's buckets are
    # a quarter window), within the sketch's error.
    w = r.execute_command("TDBF.INFO", "f", "window_items")[0]
    assert 0.85 * w <= r.execute_command("TDBF.CARD", "f") <= 1.15 * 1.25 * w
    assert r.execute_command("TDBF.INFO", "f", "card") == [r.execute_command("TDBF.CARD", "f")]
    assert r.execute_command("TDBF.CARD", "missing") == 0
    r.execute_command("TDBF.RESERVE", "t", "0.01", "EX", "60")
    r.execute_command("TDBF.MADD", "t", "a", "b")
    assert r.execute_command("TDBF.CARD", "t") == 2


# ---------------------------------------------------------------------------
# WRONGTYPE

def test_wrongtype(r):
    r.set("s", "x")
    r.lpush("l", "x")
    for key in ["s", "l"]:
        for cmd, args in [("TDBF.ADD", ["a"]), ("TDBF.MADD", ["a"]), ("TDBF.EXISTS", ["a"]),
                          ("TDBF.MEXISTS", ["a"]), ("TDBF.INFO", []), ("TDBF.CARD", []),
                          ("TDBF.INSERT", ["ITEMS", "a"]), ("TDBF.SCANDUMP", ["0"]),
                          ("TDBF.LOADCHUNK", ["57", "x" * 56])]:
            with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
                r.execute_command(cmd, key, *args)
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "10")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.get("f")
    assert r.type("f") == b"tdbf-filt"


# ---------------------------------------------------------------------------
# Time windows under the real clock

def test_time_window_expires(r):
    r.execute_command("TDBF.RESERVE", "t", "0.01", "PX", "300")
    assert r.execute_command("TDBF.MADD", "t", "a", "b") == [1, 1]
    assert r.execute_command("TDBF.MEXISTS", "t", "a", "b") == [1, 1]
    assert r.execute_command("TDBF.ADD", "t", "a") == 0
    time.sleep(1.0)
    # Queries see the clock without a write; then a write retires the old.
    assert r.execute_command("TDBF.MEXISTS", "t", "a", "b") == [0, 0]
    assert r.execute_command("TDBF.ADD", "t", "c") == 1
    assert r.execute_command("TDBF.MEXISTS", "t", "a", "b", "c") == [0, 0, 1]
    assert r.execute_command("TDBF.ADD", "t", "a") == 1


def test_time_window_refresh_keeps_a_busy_item(r):
    r.execute_command("TDBF.RESERVE", "t", "0.01", "PX", "400")
    deadline = time.monotonic() + 1.2
    r.execute_command("TDBF.ADD", "t", "hot")
    while time.monotonic() < deadline:     # re-added every 100 ms: never expires
        time.sleep(0.1)
        assert r.execute_command("TDBF.ADD", "t", "hot") == 0
    assert r.execute_command("TDBF.EXISTS", "t", "hot") == 1


def test_addat_uses_the_given_time(make_server):
    r = make_server(module_args=["ALLOW_ADDAT", "yes"]).client()   # backfilling
    r.execute_command("TDBF.RESERVE", "t", "0.01", "PX", "1000")
    assert r.execute_command("TDBF.ADDAT", "t", "5000", "a") == [1]
    assert r.execute_command("TDBF.INFO", "t", "now_ms") == [5000]
    # Time never rewinds: an older stamp is clamped to the filter's time.
    assert r.execute_command("TDBF.ADDAT", "t", "10", "b") == [1]
    assert r.execute_command("TDBF.INFO", "t", "now_ms") == [5000]
    with pytest.raises(redis.ResponseError, match="bad timestamp"):
        r.execute_command("TDBF.ADDAT", "t", "-1", "a")
    with pytest.raises(redis.ResponseError, match="not found"):
        r.execute_command("TDBF.ADDAT", "nope", "1", "a")


# ---------------------------------------------------------------------------
# Persistence

PERSISTED = ["count", "time", "blocked", "sqf"]


def fill(c):
    """A count filter, a time filter, an APBBF and an SQF one, with content."""
    c.execute_command("TDBF.RESERVE", "count", "0.01", "WINDOW", "2000")
    c.execute_command("TDBF.RESERVE", "time", "0.001", "EX", "3600", "CAPACITY", "5000")
    c.execute_command("TDBF.INSERT", "blocked", "WINDOW", "3000", "DESIGN", "apbbf",
                      "ITEMS", "z")
    c.execute_command("TDBF.RESERVE", "sqf", "0.01", "WINDOW", "2000", "DESIGN", "sqf")
    items = [f"item{i}" for i in range(3000)]
    for key in PERSISTED:
        c.execute_command("TDBF.MADD", key, *items)
        c.execute_command("TDBF.ADD", key, "solo")


def snapshot(c):
    probe = [f"item{i}" for i in range(0, 3000, 7)] + [f"other{i}" for i in range(300)]
    out = {}
    for key in PERSISTED:
        out[key] = (digest(c, key), c.execute_command("TDBF.MEXISTS", key, *probe),
                    c.execute_command("TDBF.INFO", key))
    return out


def test_debug_reload_keeps_everything(make_server):
    s = make_server()
    c = s.client()
    fill(c)
    before = snapshot(c)
    assert c.execute_command("DEBUG", "RELOAD") == b"OK"
    assert snapshot(c) == before


def test_save_and_restart(make_server):
    s = make_server()
    c = s.client()
    fill(c)
    before = snapshot(c)
    assert c.save()
    s.restart()
    assert snapshot(s.client()) == before


@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_restart_and_rewrite(make_server, preamble):
    s = make_server(config=["--appendonly", "yes", "--appendfsync", "always",
                            "--aof-use-rdb-preamble", preamble])
    c = s.client()
    fill(c)
    before = snapshot(c)
    s.restart()                          # replays the commands (ADDAT for time)
    assert snapshot(s.client()) == before
    c = s.client()
    c.bgrewriteaof()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        p = c.info("persistence")
        if not p["aof_rewrite_in_progress"] and not p["aof_rewrite_scheduled"]:
            break
        time.sleep(0.05)
    assert c.info("persistence")["aof_last_bgrewrite_status"] == "ok"
    s.restart()                          # loads the rewrite (LOADCHUNK or RDB preamble)
    assert snapshot(s.client()) == before


def crc64_jones(data):
    poly = 0x95AC9329AC4BC9B5                # reflected 0xad93d23594c935a9
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
    return crc


def test_dump_restore_and_corrupt_payload_refused(shared_server, r):
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "1000", "SEED", "11")
    r.execute_command("TDBF.MADD", "f", *[f"k{i}" for i in range(200)])
    payload = r.dump("f")
    body, crc = payload[:-8], struct.unpack("<Q", payload[-8:])[0]
    assert crc64_jones(body) == crc      # our CRC matches the server's
    assert r.restore("g", 0, payload)
    assert digest(r, "g") == digest(r, "f")
    # Flip a byte in the middle of the filter's bytes, with a valid CRC: the
    # library's checksum must refuse it, and the server must stay up.
    bad = bytearray(body)
    bad[len(bad) // 2] ^= 0x40
    bad = bytes(bad) + struct.pack("<Q", crc64_jones(bytes(bad)))
    with pytest.raises(redis.ResponseError, match="Bad data format"):
        r.restore("h", 0, bad)
    assert r.exists("h") == 0
    assert r.ping()
    assert "tdbf: refusing a corrupt filter value" in shared_server.log_text()
    # A truncated value fails too.
    short = body[: len(body) // 3]
    with pytest.raises(redis.ResponseError):
        r.restore("h", 0, short + struct.pack("<Q", crc64_jones(short)))
    assert r.ping()


def test_corrupt_rdb_file_is_refused_at_start(make_server):
    # Uncompressed, so the flipped byte lands in the filter's bytes, not LZF.
    s = make_server(config=["--rdbcompression", "no"])
    c = s.client()
    c.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "100000", "SEED", "4")
    c.execute_command("TDBF.MADD", "f", *[f"k{i}" for i in range(5000)])
    assert c.save()
    s.stop()
    path = os.path.join(s.dir, "dump.rdb")
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        data[len(data) // 2] ^= 0x10      # inside the filter's bits
        f.seek(0)
        f.write(data)
    s.start(wait=False)
    s.proc.wait(timeout=20)
    # The server refuses the file and exits cleanly: no signal, a log line.
    assert s.proc.returncode == 1, s.proc.returncode
    assert "tdbf: refusing a corrupt filter value" in s.log_text()
    s.proc = None


def test_copy(r):
    r.execute_command("TDBF.RESERVE", "f", "0.01", "EX", "100")
    r.execute_command("TDBF.MADD", "f", "a", "b")
    assert r.copy("f", "g")
    assert digest(r, "g") == digest(r, "f")
    assert r.execute_command("TDBF.ADD", "g", "c") == 1
    assert r.execute_command("TDBF.EXISTS", "f", "c") == 0


# ---------------------------------------------------------------------------
# TDBF.SCANDUMP / TDBF.LOADCHUNK

def scandump(c, key):
    chunks, cursor = [], 0
    for _ in range(10000):
        cursor, data = c.execute_command("TDBF.SCANDUMP", key, cursor)
        if cursor == 0:
            return chunks
        chunks.append((cursor, data))
    raise AssertionError("SCANDUMP did not finish")


def test_scandump_loadchunk_roundtrip(r):
    # Large enough for several 1 MiB chunks.
    r.execute_command("TDBF.RESERVE", "big", "0.0001", "WINDOW", "1500000", "SEED", "1")
    r.execute_command("TDBF.MADD", "big", *[f"k{i}" for i in range(1000)])
    chunks = scandump(r, "big")
    assert len(chunks) >= 2
    for cursor, data in chunks:
        assert r.execute_command("TDBF.LOADCHUNK", "copy", cursor, data) == b"OK"
    assert digest(r, "copy") == digest(r, "big")
    assert r.execute_command("TDBF.MEXISTS", "copy", "k1", "k999") == [1, 1]


def test_loadchunk_errors(r):
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "1000", "SEED", "2")
    r.execute_command("TDBF.MADD", "f", "a", "b")
    [(cursor, data)] = scandump(r, "f")
    # Corrupted bytes: refused at the end by the checksum; the key is gone.
    bad = bytearray(data)
    bad[len(bad) // 2] ^= 1
    with pytest.raises(redis.ResponseError, match="invalid"):
        r.execute_command("TDBF.LOADCHUNK", "g", cursor, bytes(bad))
    assert r.exists("g") == 0
    # Not a dump at all.
    with pytest.raises(redis.ResponseError, match="bad magic"):
        r.execute_command("TDBF.LOADCHUNK", "g", 101, b"x" * 100)
    with pytest.raises(redis.ResponseError, match="header"):
        r.execute_command("TDBF.LOADCHUNK", "g", 11, b"x" * 10)
    # A chunk that does not start the dump, on an empty key.
    with pytest.raises(redis.ResponseError, match="out of order"):
        r.execute_command("TDBF.LOADCHUNK", "g", cursor + 5, data)
    with pytest.raises(redis.ResponseError, match="bad cursor"):
        r.execute_command("TDBF.LOADCHUNK", "g", 0, data)
    # A partial restore blocks other commands until it completes.
    half = len(data) // 2
    assert r.execute_command("TDBF.LOADCHUNK", "g", half + 1, data[:half]) == b"OK"
    with pytest.raises(redis.ResponseError, match="being restored"):
        r.execute_command("TDBF.ADD", "g", "a")
    with pytest.raises(redis.ResponseError, match="out of order"):
        r.execute_command("TDBF.LOADCHUNK", "g", half + 1, data[:half])
    assert r.execute_command("TDBF.LOADCHUNK", "g", cursor, data[half:]) == b"OK"
    assert digest(r, "g") == digest(r, "f")
    with pytest.raises(redis.ResponseError, match="complete filter"):
        r.execute_command("TDBF.LOADCHUNK", "g", cursor, data[half:])
    with pytest.raises(redis.ResponseError, match="not found"):
        r.execute_command("TDBF.SCANDUMP", "nope", 0)
    with pytest.raises(redis.ResponseError, match="bad cursor"):
        r.execute_command("TDBF.SCANDUMP", "f", "x")
    r.set("s", "x")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.execute_command("TDBF.LOADCHUNK", "s", cursor, data)


def test_partial_restore_survives_reload(make_server):
    s = make_server()
    c = s.client()
    c.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "1000")
    [(cursor, data)] = scandump(c, "f")
    half = len(data) // 2
    c.execute_command("TDBF.LOADCHUNK", "g", half + 1, data[:half])
    c.execute_command("DEBUG", "RELOAD")
    assert c.execute_command("TDBF.LOADCHUNK", "g", cursor, data[half:]) == b"OK"
    assert digest(c, "g") == digest(c, "f")


# ---------------------------------------------------------------------------
# Replication: replicas hold byte-identical filters

def test_replication_is_deterministic(make_server):
    primary = make_server(name="primary")
    replica = make_server(name="replica")
    rc = replica.client()
    rc.replicaof("127.0.0.1", primary.port)
    pc = primary.client()
    deadline = time.monotonic() + 10
    while rc.info("replication")["master_link_status"] != "up":
        assert time.monotonic() < deadline, "replica did not connect"
        time.sleep(0.05)
    pc.execute_command("TDBF.RESERVE", "count", "0.01", "WINDOW", "1000")
    pc.execute_command("TDBF.RESERVE", "time", "0.01", "PX", "800")
    pc.execute_command("TDBF.INSERT", "created", "EX", "60", "ITEMS", "a", "b")
    pc.execute_command("TDBF.INSERT", "created2", "WINDOW", "100", "ITEMS", "a", "b")
    pc.execute_command("TDBF.INSERT", "sqf", "WINDOW", "100", "DESIGN", "sqf", "ITEMS", "a")
    keys = ["count", "time", "created", "created2", "sqf"]
    for i in range(40):
        for key in keys:
            pc.execute_command("TDBF.MADD", key, f"x{i}", f"y{i}")
            pc.execute_command("TDBF.ADD", key, f"z{i}")
        time.sleep(0.01)
    pc.execute_command("TDBF.INSERT", "time", "ITEMS", "last")
    assert pc.wait(1, 5000) == 1
    deadline = time.monotonic() + 10
    while rc.info("replication")["master_repl_offset"] < pc.info("replication")["master_repl_offset"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    for key in keys:
        assert digest(rc, key) == digest(pc, key), key
    with pytest.raises(redis.ResponseError, match="read only"):
        rc.execute_command("TDBF.ADD", "count", "q")


# ---------------------------------------------------------------------------
# Memory accounting, RESP3, module arguments

def test_memory_goes_through_redis(r):
    before = r.info("memory")["used_memory"]
    r.execute_command("TDBF.RESERVE", "big", "0.001", "WINDOW", "1000000")
    size = r.execute_command("TDBF.INFO", "big", "memory_bytes")[0]
    assert size > 1_000_000
    assert r.info("memory")["used_memory"] - before >= 0.9 * size
    assert r.memory_usage("big") >= size


def resp3(port, *commands):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"HELLO 3\r\n")
        replies = []
        buf = b""
        for cmd in commands:
            parts = cmd.split()
            s.sendall(b"*%d\r\n" % len(parts) + b"".join(
                b"$%d\r\n%s\r\n" % (len(p), p.encode()) for p in parts))
        deadline = time.monotonic() + 5
        while buf.count(b"\r\n") < 60 and time.monotonic() < deadline:
            s.settimeout(0.2)
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            buf += chunk
        return buf


def test_resp3_booleans_and_doubles(shared_server, r):
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "100")
    out = resp3(shared_server.port, "TDBF.ADD f a", "TDBF.EXISTS f a",
                "TDBF.INFO f error")
    assert b"#t\r\n" in out
    assert b",0.01\r\n" in out


def test_module_arguments(make_server):
    s = make_server(module_args=["DEFAULT_ERROR", "0.05", "DEFAULT_DESIGN", "apbbf",
                                 "DEFAULT_TIME_DESIGN", "tlbf"])
    c = s.client()
    c.execute_command("TDBF.INSERT", "f", "WINDOW", "100", "ITEMS", "a")
    assert c.execute_command("TDBF.INFO", "f", "design") == [b"apbbf"]
    assert float(c.execute_command("TDBF.INFO", "f", "error")[0]) == 0.05


@pytest.mark.parametrize("args", [["DEFAULT_ERROR", "2"], ["DEFAULT_DESIGN", "nope"],
                                  ["BOGUS", "1"], ["DEFAULT_ERROR"]])
def test_bad_module_arguments_refuse_to_load(make_server, args):
    s = make_server(module_args=args, start=False)
    s.start(wait=False)
    try:
        s.proc.wait(timeout=10)
    except Exception:
        pytest.fail("redis-server started with bad module arguments")
    assert s.proc.returncode != 0
    s.proc = None


# ---------------------------------------------------------------------------
# Every design: usable and persistent, or refused with a clear reason

DESIGNS = ["apbf", "apbbf", "apbf-line", "sqf", "tlbf", "tlbf-line", "tbf", "btbf", "clock",
           "rotating", "fpdecay", "stable", "bloom", "exact"]


@pytest.mark.parametrize("design", DESIGNS)
def test_every_design_works_or_is_refused_clearly(r, design):
    created = []
    for window in (["WINDOW", "1000"], ["PX", "60000"]):
        key = f"{design}:{window[0]}"
        try:
            r.execute_command("TDBF.RESERVE", key, "0.01", *window, "DESIGN", design)
        except redis.ResponseError as e:
            assert ("does not take a" in str(e) or "cannot be saved" in str(e)), str(e)
            continue
        created.append(key)
        assert r.execute_command("TDBF.MADD", key, "a", "b", "a") == [1, 1, 0]
        assert r.execute_command("TDBF.INFO", key, "design") == [design.encode()]
    before = {k: (digest(r, k), r.execute_command("TDBF.MEXISTS", k, "a", "b")) for k in created}
    r.execute_command("DEBUG", "RELOAD")
    assert {k: (digest(r, k), r.execute_command("TDBF.MEXISTS", k, "a", "b"))
            for k in created} == before
    for k in created:
        assert before[k][1] == [1, 1]


@pytest.mark.parametrize("design", DESIGNS)
def test_mexists_answers_as_exists(r, design):
    """TDBF.MEXISTS asks the library in batches of 64 (which prefetch): its
    answers are TDBF.EXISTS's item by item, across the batches' edges, for
    items present, absent and false positives alike."""
    try:
        r.execute_command("TDBF.RESERVE", "m", "0.2", "WINDOW", "2000", "DESIGN", design,
                          "SEED", "11")
    except redis.ResponseError as e:          # a time-window design
        assert "does not take a" in str(e), str(e)
        r.execute_command("TDBF.RESERVE", "m", "0.2", "PX", "60000", "DESIGN", design,
                          "SEED", "11")
    r.execute_command("TDBF.MADD", "m", *[f"in{i}" for i in range(1500)])
    probe = [f"in{i}" for i in range(0, 1500, 7)] + [f"out{i}" for i in range(400)]
    for n in (1, 63, 64, 65, 129, len(probe)):
        got = r.execute_command("TDBF.MEXISTS", "m", *probe[:n])
        assert got == [r.execute_command("TDBF.EXISTS", "m", x) for x in probe[:n]], n
    got = r.execute_command("TDBF.MEXISTS", "m", *probe)
    if design not in ("fpdecay", "stable"):   # (these forget at random)
        assert got[:215] == [1] * 215         # no false negatives
    if design != "exact":
        assert 0 < sum(got[215:]) < 400       # error 0.2: some false positives


# ---------------------------------------------------------------------------
# SQF, the count design of least memory, through every command

def wilson_low(hits, n, z=1.96):
    """Lower end of the 95 % Wilson interval of hits / n."""
    p = hits / n
    centre = p + z * z / (2 * n)
    spread = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return (centre - spread) / (1 + z * z / n)


def test_sqf_reserve_info_and_memory(r):
    r.execute_command("TDBF.RESERVE", "q", "0.01", "WINDOW", "100k", "DESIGN", "sqf",
                      "SEED", "36")
    i = info(r, "q")
    g = i["generation_size"]
    assert i["design"] == b"sqf" and (i["k"], i["l"]) == (1, 7)
    assert g == -(-100000 // 7) and i["window_items"] == 7 * g and i["window_ms"] == 0
    assert i["slices"] > 0 and 0 < float(i["error_planned"]) <= 0.01
    # RedisBloom's names: the guaranteed window is the capacity
    assert r.execute_command("TDBF.INFO", "q", "Capacity") == [i["window_items"]]
    # every byte allocated up front, through Redis's allocator
    assert r.memory_usage("q") >= i["memory_bytes"] >= i["slices"] * 64
    r.execute_command("TDBF.RESERVE", "line", "0.01", "WINDOW", "100k", "DESIGN", "apbf-line")
    assert i["memory_bytes"] < info(r, "line")["memory_bytes"]     # the least memory
    assert r.execute_command("TDBF.INSERT", "made", "WINDOW", "500", "DESIGN", "sqf",
                             "ITEMS", "a", "b", "a") == [1, 1, 0]
    assert info(r, "made")["design"] == b"sqf"


def test_sqf_no_false_negatives_and_fp_before_a_turn(r):
    window, error = 5000, 0.01
    r.execute_command("TDBF.RESERVE", "q", str(error), "WINDOW", str(window), "DESIGN", "sqf",
                      "SEED", "37")
    g = info(r, "q")["generation_size"]
    # every item re-added within the window is reported present
    r.execute_command("TDBF.MADD", "q", *[f"k{j}" for j in range(1000)])
    for start in range(1000, 4 * window, 1000):
        batch = [f"k{j}" for j in range(start, start + 1000)]
        again = [f"k{j}" for j in range(max(0, start - window + 1000), start, 97)]
        assert r.execute_command("TDBF.MEXISTS", "q", *again) == [1] * len(again), start
        r.execute_command("TDBF.MADD", "q", *batch)
    # the worst moment: the current generation one add short of its turn
    left = g - 1 - r.execute_command("TDBF.INFO", "q", "items")[0] % g
    r.execute_command("TDBF.MADD", "q", *[f"late{j}" for j in range(left)])
    assert r.execute_command("TDBF.INFO", "q", "items")[0] % g == g - 1
    probes = 40000
    hits = 0
    for start in range(0, probes, 2000):
        hits += sum(r.execute_command("TDBF.MEXISTS", "q",
                                      *[f"absent{j}" for j in range(start, start + 2000)]))
    assert wilson_low(hits, probes) <= error, (hits, probes)
    assert hits > 0                       # a filter answering no to all would pass


def test_sqf_dump_restore_copy_and_chunks(r):
    r.execute_command("TDBF.RESERVE", "q", "0.001", "WINDOW", "300k", "DESIGN", "sqf",
                      "SEED", "38")
    r.execute_command("TDBF.MADD", "q", *[f"k{i}" for i in range(3000)])
    items = [f"k{i}" for i in range(0, 3000, 11)] + [f"o{i}" for i in range(500)]
    want = (digest(r, "q"), r.execute_command("TDBF.MEXISTS", "q", *items))
    assert want[1][:273] == [1] * 273
    assert r.restore("restored", 0, r.dump("q"))
    assert r.copy("q", "copied")
    chunks = scandump(r, "q")
    for cursor, data in chunks:
        assert r.execute_command("TDBF.LOADCHUNK", "chunked", cursor, data) == b"OK"
    for key in ["restored", "copied", "chunked"]:
        assert (digest(r, key), r.execute_command("TDBF.MEXISTS", key, *items)) == want, key
        assert info(r, key)["design"] == b"sqf"
    # copies are independent
    assert r.execute_command("TDBF.ADD", "copied", "new") == 1
    assert r.execute_command("TDBF.EXISTS", "q", "new") == 0


# ---------------------------------------------------------------------------
# TDBF.PROB: the posterior of the inferential designs (TBF, BTBF)

def prob(c, key, item, *options):
    return float(c.execute_command("TDBF.PROB", key, item, *options))


def test_prob_on_a_btbf_filter(r):
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "1000", "DESIGN", "btbf",
                      "SEED", "5")
    r.execute_command("TDBF.MADD", "f", *[f"old{i}" for i in range(500)])
    assert r.execute_command("TDBF.ADD", "f", "a") == 1
    assert prob(r, "f", "a") > 0.95                     # just added
    assert prob(r, "f", "a", "MODEL", "uniform", "UNIVERSE", "50000") > 0.95
    assert prob(r, "f", "a", "MODEL", "powerlaw", "UNIVERSE", "100000") > 0.9
    assert prob(r, "f", "a", "MODEL", "powerlaw", "UNIVERSE", "1e5", "EXPONENT", "1.2",
                "RANK", "3") > 0.9
    # Never added: 0 exactly when the standard query says no, and an honest
    # (mostly small) value for the false positives.
    never = [f"never{i}" for i in range(300)]
    present = r.execute_command("TDBF.MEXISTS", "f", *never)
    ps = [prob(r, "f", x) for x in never]
    assert all(0.0 <= p <= 1.0 for p in ps)
    assert all(p == 0.0 for p, yes in zip(ps, present) if not yes)
    assert sum(ps) / len(ps) < 0.05
    # Two windows of other items later, "a" is out of the window.
    for start in (0, 1000):
        r.execute_command("TDBF.MADD", "f", *[f"new{i}" for i in range(start, start + 1000)])
    assert prob(r, "f", "a") < 0.2
    assert prob(r, "f", "new1999") > 0.95


def test_prob_on_a_tbf_filter(r):
    r.execute_command("TDBF.RESERVE", "t", "0.01", "WINDOW", "200", "DESIGN", "tbf")
    r.execute_command("TDBF.ADD", "t", "x")
    assert prob(r, "t", "x") > 0.95
    assert prob(r, "t", "not-there") == 0.0 or r.execute_command("TDBF.EXISTS", "t",
                                                                 "not-there") == 1


@pytest.mark.parametrize("args, message", [
    (["MODEL", "zipf"], "unknown MODEL"),
    (["MODEL"], "MODEL needs a value"),
    (["UNIVERSE", "0"], "bad UNIVERSE"),
    (["UNIVERSE", "lots"], "bad UNIVERSE"),
    (["UNIVERSE", "inf"], "bad UNIVERSE"),
    (["MODEL", "powerlaw", "EXPONENT", "0"], "bad EXPONENT"),
    (["MODEL", "powerlaw", "EXPONENT", "-1"], "bad EXPONENT"),
    (["EXPONENT", "1.5"], "need MODEL powerlaw"),
    (["MODEL", "uniform", "RANK", "2"], "need MODEL powerlaw"),
    (["MODEL", "powerlaw", "UNIVERSE", "10", "RANK", "11"], "beyond the UNIVERSE"),
    (["MODEL", "powerlaw", "RANK", "0.5"], "bad RANK"),
    (["FROB", "1"], "unknown argument"),
])
def test_prob_errors(r, args, message):
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "1000", "DESIGN", "btbf")
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command("TDBF.PROB", "f", "a", *args)
    assert message in err(e)


def test_prob_answers_apbf_refuses_time_windows(r):
    # APBF, APBBF and apbf-line answer (docs/apbf_posterior.md); time
    # windows and sqf (the default) do not.
    r.execute_command("TDBF.RESERVE", "a", "0.01", "WINDOW", "1000", "DESIGN", "apbf-line")
    r.execute_command("TDBF.ADD", "a", "x")
    assert float(r.execute_command("TDBF.PROB", "a", "x")) > 0.9
    assert float(r.execute_command("TDBF.PROB", "a", "never-added")) == 0.0
    r.execute_command("TDBF.RESERVE", "t", "0.01", "EX", "60", "DESIGN", "tlbf-line")
    with pytest.raises(redis.ResponseError, match="tlbf-line has no inference"):
        r.execute_command("TDBF.PROB", "t", "x")
    r.execute_command("TDBF.RESERVE", "q", "0.01", "WINDOW", "1000")
    with pytest.raises(redis.ResponseError, match="sqf has no inference"):
        r.execute_command("TDBF.PROB", "q", "x")
    with pytest.raises(redis.ResponseError, match="not found"):
        r.execute_command("TDBF.PROB", "missing", "x")
    with pytest.raises(redis.ResponseError, match="wrong number of arguments"):
        r.execute_command("TDBF.PROB", "a")
    r.set("s", "x")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.execute_command("TDBF.PROB", "s", "x")


def test_prob_command_flags_and_resp3_double(shared_server, r):
    doc = r.execute_command("COMMAND", "INFO", "tdbf.prob")["tdbf.prob"]
    assert {"readonly", "fast"} <= set(doc["flags"])
    assert (doc["first_key_pos"], doc["last_key_pos"], doc["step_count"]) == (1, 1, 1)
    r.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "100", "DESIGN", "btbf")
    r.execute_command("TDBF.ADD", "f", "a")
    assert isinstance(r.execute_command("TDBF.PROB", "f", "a"), bytes)  # RESP2: bulk
    out = resp3(shared_server.port, "TDBF.PROB f a", "TDBF.PROB f zzz")
    assert out.count(b"\r\n,") == 2                                    # RESP3: doubles


def test_btbf_survives_debug_reload(make_server):
    s = make_server()
    c = s.client()
    c.execute_command("TDBF.RESERVE", "b", "0.01", "WINDOW", "2000", "DESIGN", "btbf")
    c.execute_command("TDBF.RESERVE", "t", "0.01", "WINDOW", "500", "DESIGN", "tbf")
    for key in ("b", "t"):
        c.execute_command("TDBF.MADD", key, *[f"item{i}" for i in range(3000)])
    probe = [f"item{i}" for i in range(0, 3000, 7)] + [f"other{i}" for i in range(200)]

    def state():
        return {key: (digest(c, key), c.execute_command("TDBF.MEXISTS", key, *probe),
                      [c.execute_command("TDBF.PROB", key, x) for x in probe[::5]],
                      c.execute_command("TDBF.INFO", key))
                for key in ("b", "t")}
    before = state()
    assert c.execute_command("DEBUG", "RELOAD") == b"OK"
    assert state() == before
    # And it goes on identically: the same adds give the same answers.
    assert c.execute_command("TDBF.MADD", "b", "item2999", "fresh") == [0, 1]


# ---------------------------------------------------------------------------
# README.md: the redis-cli examples of the "### Redis" block run as shown

def readme_redis_cli_lines():
    import shlex
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        text = f.read()
    block = text.split("\n### Redis\n", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.startswith("redis-cli ")]
    return [(line, shlex.split(line, comments=True)[1:]) for line in lines]


def test_readme_redis_examples_run(shared_server, r):
    examples = readme_redis_cli_lines()
    assert len(examples) >= 5, examples
    adds = []
    for line, argv in examples:
        try:
            reply = r.execute_command(*argv)
        except redis.ResponseError as e:
            pytest.fail(f"README example failed: {line}\n  -> {e}")
        if argv[0].upper() == "TDBF.ADD":
            adds.append(reply)
    assert adds == [1, 0]   # "1: new in the window", "0: seen"
    # The same lines through redis-cli itself, on a fresh key space.
    import shutil
    import subprocess
    cli = shutil.which("redis-cli")
    if cli is None:
        return
    r.flushall()
    for line, argv in examples:
        out = subprocess.run([cli, "-p", str(shared_server.port), *argv],
                             capture_output=True, text=True, timeout=20)
        assert out.returncode == 0 and not out.stdout.startswith("(error)") \
            and "ERR" not in out.stdout, f"{line}\n{out.stdout}{out.stderr}"
