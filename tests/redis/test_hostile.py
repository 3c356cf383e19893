"""The tdbf Redis module under hostile clients and bad defaults.

Covers, on real redis-server processes:
- forged TDBF.LOADCHUNK headers: memory grows only with the bytes really
  received (no eviction, no jump after DEBUG RELOAD), claims above
  MAX_MEMORY refused, restores in progress block other commands and a bad
  ending deletes the key and frees its memory;
- DUMP payloads whose framing claims more bytes than they hold;
- TDBF.RESERVE / TDBF.INSERT of huge filters under maxmemory and under
  MAX_MEMORY: refused before anything is allocated (peak RSS, VmHWM);
- TDBF.ADDAT from clients (plain, MULTI/EXEC, EVAL) refused unless
  ALLOW_ADDAT; replication and AOF replay still carry stamped writes; a
  refused stamp never moves a filter's clock;
- bursts into time filters created without CAPACITY: no false negatives,
  a bounded false-positive rate, "filter is full" refusals instead;
- auto-creation (AUTOCREATE, DEFAULT_WINDOW, DEFAULT_EX), RedisBloom's
  TDBF.INFO names, small argument defects, quiet refusals with INFO
  counters, keyspace notifications;
- a seeded fuzz of DUMP payloads and LOADCHUNK chunks: every mutation is
  refused, or restores exactly the original; the server stays up and
  memory returns to its baseline.
"""
import random
import time

import pytest
import redis
import redis.connection

from test_module import assert_refused, crc64_jones, digest, info, scandump
from test_replication import FAST_SYNC
from conftest import wait_caught_up, wait_replica_up

KB = 1 << 10
MB = 1 << 20
GIB = 1 << 30
DAY_MS = 86_400_000
HEADER_BYTES = 56          # docs/format.md: the header of a dump
PAYLOAD_LEN_AT = 48        # its little-endian payload length P
DEFAULT_CAP = 4 * GIB      # the library's cap: with maxmemory, or for loading
CLIENT_CAP = 64 * MB       # a client's cap on a server without maxmemory
TIME_DESIGNS = ["tlbf", "tlbf-line", "clock", "rotating", "exact"]
BURST_DESIGNS = ["tlbf", "tlbf-line", "clock", "rotating"]


# ---------------------------------------------------------------------------
# Helpers

class FullErrors(redis.connection.PythonParser):
    """redis-py strips "ERR " from error messages; this parser keeps every
    error as the server sent it, so tests can check its first word."""
    EXCEPTION_CLASSES = {}


def client(server):
    c = server.client()
    c.connection_pool.connection_kwargs["parser_class"] = FullErrors
    return c


@pytest.fixture
def r(shared_server):
    """conftest's r, with full error messages."""
    c = client(shared_server)
    c.flushall()
    return c


def used_memory(c):
    return c.info("memory")["used_memory"]


def peak_rss(server):
    """The server process's peak resident set (VmHWM), in bytes."""
    with open(f"/proc/{server.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * KB
    raise AssertionError("no VmHWM in /proc status")


def peaks(server):
    """(peak RSS, used_memory_peak) of a server."""
    return peak_rss(server), server.client().info("memory")["used_memory_peak"]


def assert_no_peak_growth(server, before, limit=32 * MB):
    rss, peak = peaks(server)
    assert rss - before[0] < limit, f"peak RSS grew by {(rss - before[0]) // MB} MB"
    assert peak - before[1] < limit, f"used_memory_peak grew by {(peak - before[1]) // MB} MB"


def refused(c, *args):
    """The error message of a command that must fail."""
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command(*args)
    return str(e.value)


def server_ms(c):
    sec, usec = c.time()
    return sec * 1000 + usec // 1000


def real_header(c, key="hdr:src"):
    """The 56-byte header of a real dump (of a small filter made for it)."""
    if not c.exists(key):
        c.execute_command("TDBF.RESERVE", key, "0.01", "WINDOW", "100", "SEED", "1")
    _, chunk = c.execute_command("TDBF.SCANDUMP", key, 0)
    return chunk[:HEADER_BYTES]


def forged(header, payload_len):
    """header with its payload length P replaced."""
    return header[:PAYLOAD_LEN_AT] + payload_len.to_bytes(8, "little")


def send_forged(c, key, header, payload_len):
    """LOADCHUNK of a lone forged header: b"OK" or the error it got."""
    try:
        return c.execute_command("TDBF.LOADCHUNK", key, HEADER_BYTES + 1,
                                 forged(header, payload_len))
    except redis.ResponseError as e:
        return e


def load_pieces(c, key, data, cuts):
    """LOADCHUNK data cut at the offsets `cuts`; stops at the first error.
    Returns the replies (the last one an exception if it failed)."""
    replies = []
    bounds = [0, *cuts, len(data)]
    for lo, hi in zip(bounds, bounds[1:]):
        try:
            replies.append(c.execute_command("TDBF.LOADCHUNK", key, hi + 1, data[lo:hi]))
        except redis.ResponseError as e:
            replies.append(e)
            break
    return replies


def dump_bytes(c, key):
    """The whole serialized filter, from SCANDUMP."""
    return b"".join(chunk for _, chunk in scandump(c, key))


def is_complete_filter(c, key):
    """True for a key holding a usable filter, False for a restore in progress."""
    try:
        c.execute_command("TDBF.EXISTS", key, "probe")
        return True
    except redis.ResponseError:
        return False


# ---- DUMP payloads (uncompressed: --rdbcompression no) ----------------------
#
# A tdbf DUMP payload is: the RDB type byte (7, module value v2), the module
# type id as an RDB length (0x81 + 8 bytes), then the module's own items as
# RDB opcodes (2 + length: an unsigned; 5 + length + bytes: a string
# buffer), the EOF opcode 0, the 2-byte RDB version and the 8-byte CRC64.
# The items are ours (src/redis/type.c): kind, total bytes, [received,]
# the filter's bytes in pieces of at most 1 MiB, and (encoding version 2)
# the module's record: the CAPACITY and TDBF.CARD's sketch.

OP_EOF, OP_UINT, OP_STRING = 0, 2, 5
HEAD_BYTES = 10            # type byte + 0x81 + 8-byte module type id
TAIL_BYTES = 10            # RDB version + CRC64


def rdb_len(n):
    if n < 1 << 6:
        return bytes([n])
    if n < 1 << 14:
        return bytes([0x40 | n >> 8, n & 0xFF])
    if n < 1 << 32:
        return b"\x80" + n.to_bytes(4, "big")
    return b"\x81" + n.to_bytes(8, "big")


def read_rdb_len(buf, i):
    t = buf[i] >> 6
    if t == 0:
        return buf[i] & 0x3F, i + 1
    if t == 1:
        return (buf[i] & 0x3F) << 8 | buf[i + 1], i + 2
    assert buf[i] in (0x80, 0x81), f"unexpected RDB length byte {buf[i]:#x}"
    n = 4 if buf[i] == 0x80 else 8
    return int.from_bytes(buf[i + 1:i + 1 + n], "big"), i + 1 + n


def parse_dump(payload):
    """(head, items, tail): items are ("u", int) and ("s", bytes)."""
    head, items, i = payload[:HEAD_BYTES], [], HEAD_BYTES
    while True:
        op, i = read_rdb_len(payload, i)
        if op == OP_EOF:
            break
        value, i = read_rdb_len(payload, i)
        if op == OP_UINT:
            items.append(("u", value))
        else:
            assert op == OP_STRING, op
            items.append(("s", payload[i:i + value]))
            i += value
    assert len(payload) - i == TAIL_BYTES
    return head, items, payload[i:]


def build_dump(head, items, tail, crc=True):
    """A payload from parts; crc: recompute Redis' CRC64 (else keep tail's)."""
    body = bytearray(head)
    for kind, value in items:
        if kind == "u":
            body += bytes([OP_UINT]) + rdb_len(value)
        else:
            body += bytes([OP_STRING]) + rdb_len(len(value)) + value
    body += bytes([OP_EOF]) + tail[:2]
    if crc:
        return bytes(body) + crc64_jones(bytes(body)).to_bytes(8, "little")
    return bytes(body) + tail[2:]


def uncompressed_dump(c, key):
    """DUMP key with RDB compression off (our bytes appear as they are)."""
    old = c.config_get("rdbcompression")["rdbcompression"]
    c.config_set("rdbcompression", "no")
    try:
        return c.dump(key)
    finally:
        c.config_set("rdbcompression", old)


def source_dump(c, seed):
    """Make "src", a small count filter holding 2 items; its DUMP parsed."""
    c.execute_command("TDBF.RESERVE", "src", "0.01", "WINDOW", "1000", "SEED", seed)
    c.execute_command("TDBF.MADD", "src", "a", "b")
    return parse_dump(uncompressed_dump(c, "src"))


def try_restore(c, key, payload):
    try:
        return c.execute_command("RESTORE", key, 0, payload, "REPLACE")
    except redis.ResponseError as e:
        return e


# ---------------------------------------------------------------------------
# Forged LOADCHUNK headers: memory grows only with the bytes received

def test_forged_40mib_header_costs_its_bytes_and_evicts_nothing(make_server):
    s = make_server()
    c = client(s)
    header = real_header(c)
    p = c.pipeline(transaction=False)
    for i in range(3000):
        p.set(f"other:{i}", "v" * 100)
    p.execute()
    c.config_set("maxmemory", "64mb")
    c.config_set("maxmemory-policy", "allkeys-lru")
    before = used_memory(c)
    reply = send_forged(c, "forged", header, 40 * MB)
    assert reply == b"OK" or str(reply).startswith("ERR"), reply
    assert used_memory(c) - before < MB
    others = [f"other:{i}" for i in range(3000)]
    assert c.exists(*others) == 3000
    assert c.info("stats")["evicted_keys"] == 0
    # A restore in progress is persisted; reloading it must not allocate the
    # size its header claims either.
    assert c.execute_command("DEBUG", "RELOAD") == b"OK"
    assert used_memory(c) - before < MB
    assert c.exists(*others) == 3000


def test_forged_headers_just_under_the_cap_cost_nothing(make_server):
    s = make_server()
    c = client(s)
    header = real_header(c)
    before = used_memory(c)
    for n in range(3):
        reply = send_forged(c, f"huge{n}", header, CLIENT_CAP - MB)
        assert reply == b"OK" or str(reply).startswith("ERR"), reply
    assert used_memory(c) - before < MB
    # Above the cap: refused, nothing left behind.
    for claim in (CLIENT_CAP + 1, DEFAULT_CAP + 1, 1 << 63, (1 << 64) - 1):
        reply = send_forged(c, "over", header, claim)
        assert isinstance(reply, redis.ResponseError) and str(reply).startswith("ERR"), reply
        assert c.exists("over") == 0
    assert used_memory(c) - before < MB
    assert c.ping()


def test_restore_in_progress_blocks_other_commands(r):
    r.execute_command("TDBF.RESERVE", "src", "0.01", "WINDOW", "1000", "SEED", "3")
    r.execute_command("TDBF.MADD", "src", "a", "b", "c")
    data = dump_bytes(r, "src")
    assert r.execute_command("TDBF.LOADCHUNK", "dst", 101, data[:100]) == b"OK"
    for args in (["TDBF.ADD", "dst", "a"], ["TDBF.MADD", "dst", "a", "b"],
                 ["TDBF.EXISTS", "dst", "a"], ["TDBF.MEXISTS", "dst", "a"],
                 ["TDBF.INFO", "dst"], ["TDBF.CARD", "dst"], ["TDBF.PROB", "dst", "a"],
                 ["TDBF.SCANDUMP", "dst", 0], ["TDBF.INSERT", "dst", "ITEMS", "a"],
                 ["TDBF.RESERVE", "dst", "0.01", "WINDOW", "100"]):
        assert refused(r, *args).startswith("ERR"), args
    # The restore completes with the real bytes only: the result is the source.
    assert r.execute_command("TDBF.LOADCHUNK", "dst", len(data) + 1, data[100:]) == b"OK"
    assert digest(r, "dst") == digest(r, "src")
    assert r.execute_command("TDBF.MEXISTS", "dst", "a", "b", "c") == [1, 1, 1]


def test_bad_endings_delete_the_restore_and_free_its_memory(r):
    # A dump of about 1.2 MB, so that a restore in progress holds a
    # measurable amount.
    r.execute_command("TDBF.RESERVE", "src", "0.01", "WINDOW", "1000000", "SEED", "4")
    r.execute_command("TDBF.MADD", "src", *[f"k{i}" for i in range(1000)])
    data = dump_bytes(r, "src")
    assert len(data) > MB
    baseline = used_memory(r)
    corrupt = bytearray(data)
    corrupt[-100] ^= 0x08
    forged_longer = forged(data, int.from_bytes(data[48:56], "little") + 1000) + data[56:]
    cases = {
        "last chunk corrupted": bytes(corrupt),
        "runs past the end": data + b"\x00",
        "header claims 1000 more bytes, given garbage": forged_longer + b"\x5a" * 1000,
    }
    # Pieces of 16 KB: a 1 MiB argument would leave the client's query
    # buffer that large for a while, and used_memory with it.
    cuts = list(range(16 * KB, len(data), 16 * KB))
    for name, payload in cases.items():
        replies = load_pieces(r, "dst", payload, cuts)
        assert replies[:-1] == [b"OK"] * (len(replies) - 1), name
        assert isinstance(replies[-1], redis.ResponseError), (name, replies)
        assert str(replies[-1]).startswith("ERR"), (name, replies[-1])
        assert r.exists("dst") == 0, name
        assert abs(used_memory(r) - baseline) < 256 * KB, name
    # And the real bytes still restore the real filter.
    assert set(load_pieces(r, "dst", data, cuts)) == {b"OK"}
    assert digest(r, "dst") == digest(r, "src")


def test_loadchunk_on_a_string_key_is_wrongtype(r):
    header = real_header(r)
    r.set("s", "x")
    assert refused(r, "TDBF.LOADCHUNK", "s", HEADER_BYTES + 1, header).startswith("WRONGTYPE")
    assert r.get("s") == b"x"


# ---------------------------------------------------------------------------
# DUMP payloads whose framing claims more than they hold

def test_restore_refuses_framing_that_claims_more_bytes(make_server):
    s = make_server()
    c = client(s)
    head, items, tail = source_dump(c, 5)
    assert [k for k, _ in items[:2]] == ["u", "u"] and items[0][1] == 0   # kind, total
    data = b"".join(v for k, v in items[2:-1] if k == "s")   # the last: the record
    assert items[1][1] == len(data)
    # The unmodified rebuild is accepted: the helpers frame payloads right.
    assert c.restore("same", 0, build_dump(head, items, tail)) in (True, b"OK")
    assert digest(c, "same") == digest(c, "src")
    before_peaks = peaks(s)
    baseline = used_memory(c)
    for claim in (3 * GIB, DEFAULT_CAP, len(data) + 1):
        payload = build_dump(head, [items[0], ("u", claim), *items[2:]], tail)
        reply = try_restore(c, "claim", payload)
        assert isinstance(reply, redis.ResponseError), (claim, reply)
        assert c.exists("claim") == 0
    assert_no_peak_growth(s, before_peaks)
    assert abs(used_memory(c) - baseline) < 256 * KB
    # A restore in progress (kind 1) claiming 3 GiB with only its header
    # received: refused, or accepted at the cost of the bytes it holds.
    partial = build_dump(head, [("u", 1), ("u", 3 * GIB), ("u", HEADER_BYTES),
                                ("s", data[:HEADER_BYTES]), items[-1]], tail)
    reply = try_restore(c, "partial", partial)
    assert reply in (True, b"OK") or isinstance(reply, redis.ResponseError), reply
    assert used_memory(c) - baseline < MB
    assert_no_peak_growth(s, before_peaks)
    # More bytes received than the total: refused.
    inverted = build_dump(head, [("u", 1), ("u", HEADER_BYTES), ("u", HEADER_BYTES + 8),
                                 ("s", data[:HEADER_BYTES + 8]), items[-1]], tail)
    assert isinstance(try_restore(c, "inverted", inverted), redis.ResponseError)
    assert c.exists("inverted") == 0
    assert c.ping()


# ---------------------------------------------------------------------------
# Huge filters: refused before anything is allocated

def test_maxmemory_refuses_huge_filters_without_allocating(make_server):
    s = make_server()
    c = client(s)
    c.config_set("maxmemory", "64mb")
    before = peaks(s)
    msg = refused(c, "TDBF.RESERVE", "big", "0.01", "WINDOW", "300000000")
    assert msg.startswith("OOM"), msg
    msg = refused(c, "TDBF.INSERT", "big2", "WINDOW", "300000000", "ITEMS", "a")
    assert msg.startswith("OOM"), msg
    assert c.exists("big", "big2") == 0
    assert_no_peak_growth(s, before)
    # A filter that fits is still created.
    assert c.execute_command("TDBF.RESERVE", "fits", "0.01", "WINDOW", "100000") == b"OK"
    assert c.execute_command("TDBF.ADD", "fits", "a") == 1


def test_max_memory_argument_refuses_huge_filters_and_claims(make_server):
    s = make_server(module_args=["MAX_MEMORY", "1000000"])
    c = client(s)
    before = peaks(s)
    msg = refused(c, "TDBF.RESERVE", "big", "0.01", "WINDOW", "300000000")
    assert msg.startswith("ERR") and "MAX_MEMORY" in msg, msg
    assert c.exists("big") == 0
    assert_no_peak_growth(s, before)
    assert c.execute_command("TDBF.RESERVE", "small", "0.01", "WINDOW", "1000") == b"OK"
    header = real_header(c, "small")
    reply = send_forged(c, "over", header, 2_000_000)
    assert isinstance(reply, redis.ResponseError) and str(reply).startswith("ERR"), reply
    assert c.exists("over") == 0


# ---------------------------------------------------------------------------
# TDBF.ADDAT: internal unless ALLOW_ADDAT

def assert_addat_refused(reply):
    assert isinstance(reply, redis.ResponseError), reply
    assert str(reply).startswith("ERR") and "ALLOW_ADDAT" in str(reply), str(reply)


def test_addat_from_clients_is_refused(r):
    r.execute_command("TDBF.RESERVE", "t", "0.01", "EX", "60")
    r.execute_command("TDBF.RESERVE", "c", "0.01", "WINDOW", "100")
    ahead = server_ms(r) + DAY_MS
    for key, at in (("t", ahead), ("t", server_ms(r)), ("c", 1)):
        with pytest.raises(redis.ResponseError) as e:
            r.execute_command("TDBF.ADDAT", key, at, "x")
        assert_addat_refused(e.value)
    tx = r.pipeline(transaction=True)
    tx.execute_command("TDBF.ADDAT", "t", ahead, "x")
    tx.execute_command("TDBF.EXISTS", "t", "x")
    addat, exists = tx.execute(raise_on_error=False)
    assert_addat_refused(addat)
    assert exists == 0
    with pytest.raises(redis.ResponseError) as e:
        r.eval("return redis.call('TDBF.ADDAT', KEYS[1], ARGV[1], 'x')", 1, "t", ahead)
    assert_addat_refused(e.value)
    assert r.execute_command("TDBF.MEXISTS", "t", "x") == [0]
    assert info(r, "t")["now_ms"] < server_ms(r) + 60_000


def test_replica_receives_stamped_writes(make_server):
    primary = make_server(name="primary", config=FAST_SYNC)
    replica = make_server(name="replica")
    replica.client().replicaof("127.0.0.1", primary.port)
    wait_replica_up(replica)
    pc, rc = client(primary), client(replica)
    pc.execute_command("TDBF.RESERVE", "t", "0.01", "EX", "60")
    items = [f"i{n}" for n in range(200)]
    for n in range(0, 200, 20):
        pc.execute_command("TDBF.MADD", "t", *items[n:n + 20])
        pc.execute_command("TDBF.ADD", "t", f"solo{n}")
    wait_caught_up(primary, [replica])
    assert digest(rc, "t") == digest(pc, "t")
    probe = items + [f"solo{n}" for n in range(0, 200, 20)] + [f"never{n}" for n in range(50)]
    want = pc.execute_command("TDBF.MEXISTS", "t", *probe)
    assert rc.execute_command("TDBF.MEXISTS", "t", *probe) == want
    assert want[:210] == [1] * 210


def test_aof_replays_stamped_writes(make_server):
    s = make_server(config=["--appendonly", "yes", "--appendfsync", "always"])
    c = client(s)
    c.execute_command("TDBF.RESERVE", "t", "0.01", "EX", "60")
    c.execute_command("TDBF.MADD", "t", *[f"i{n}" for n in range(300)])
    c.execute_command("TDBF.ADD", "t", "last")
    c.execute_command("TDBF.INSERT", "t", "ITEMS", "ins")
    before = digest(c, "t")
    s.restart()
    c = client(s)
    assert digest(c, "t") == before
    assert c.execute_command("TDBF.MEXISTS", "t", "i0", "i299", "last", "ins") == [1, 1, 1, 1]


def test_allow_addat_backfills_but_refuses_the_future(make_server):
    s = make_server(module_args=["ALLOW_ADDAT", "yes"])
    c = client(s)
    c.execute_command("TDBF.RESERVE", "t", "0.01", "EX", "60")
    now = server_ms(c)
    assert c.execute_command("TDBF.ADDAT", "t", now - 10_000, "past") == [1]
    msg = refused(c, "TDBF.ADDAT", "t", now + DAY_MS, "future")
    assert msg.startswith("ERR") and "ahead" in msg, msg
    assert info(c, "t")["now_ms"] < now + 60_000
    assert c.execute_command("TDBF.ADDAT", "t", server_ms(c) + 30_000, "soon") == [1]
    assert c.execute_command("TDBF.MEXISTS", "t", "past", "soon", "future") == [1, 1, 0]


@pytest.mark.parametrize("module_args", [[], ["ALLOW_ADDAT", "yes"]],
                         ids=["default", "allow_addat"])
def test_refused_addat_leaves_the_clock_alone(make_server, module_args):
    s = make_server(module_args=module_args)
    c = client(s)
    for d in TIME_DESIGNS:
        c.execute_command("TDBF.RESERVE", d, "0.01", "PX", "1500", "DESIGN", d)
        msg = refused(c, "TDBF.ADDAT", d, server_ms(c) + DAY_MS, "future")
        assert msg.startswith("ERR"), msg
        assert c.execute_command("TDBF.ADD", d, "item") == 1
    time.sleep(2.8)
    for d in TIME_DESIGNS:
        assert c.execute_command("TDBF.EXISTS", d, "item") == 0, d
        assert info(c, d)["now_ms"] < server_ms(c) + 60_000, d


# ---------------------------------------------------------------------------
# Bursts into time filters sized by default

FULL = "ERR filter is full"


def burst(c, key, count, batch=1000, prefix="burst"):
    """MADD count distinct items in pipelined batches. Returns
    (accepted items, number refused); any other error fails."""
    accepted, refusals = [], 0
    p = c.pipeline(transaction=False)
    batches = [[f"{prefix}:{n}" for n in range(lo, min(lo + batch, count))]
               for lo in range(0, count, batch)]
    for items in batches:
        p.execute_command("TDBF.MADD", key, *items)
    for items, replies in zip(batches, p.execute()):
        assert len(replies) == len(items)
        for item, reply in zip(items, replies):
            if isinstance(reply, redis.ResponseError):
                assert str(reply).startswith(FULL), str(reply)
                refusals += 1
            else:
                assert reply in (0, 1), reply
                accepted.append(item)
    return accepted, refusals


def mexists_all(c, key, items, batch=1000):
    p = c.pipeline(transaction=False)
    for lo in range(0, len(items), batch):
        p.execute_command("TDBF.MEXISTS", key, *items[lo:lo + batch])
    return [a for replies in p.execute() for a in replies]


@pytest.mark.parametrize("design", BURST_DESIGNS)
def test_burst_without_capacity_keeps_answers_right(r, design):
    r.execute_command("TDBF.RESERVE", "k", "0.01", "EX", "60", "DESIGN", design)
    accepted, refusals = burst(r, "k", 200_000)
    present = mexists_all(r, "k", accepted)
    false_negatives = present.count(0)
    never = [f"never:{n}" for n in range(20_000)]
    fp = sum(mexists_all(r, "k", never)) / len(never)
    print(f"\n{design}: accepted {len(accepted)}, refused {refusals}, "
          f"false negatives {false_negatives}, FP {fp:.4f}")
    assert false_negatives == 0
    if design == "tlbf-line":
        # the growing default keeps its rings' sum within the error: not
        # above it beyond the probes' noise (3 sigma)
        assert fp <= 0.01 + 3 * (0.01 * 0.99 / len(never)) ** 0.5, f"FP {fp}"
    else:
        # the others are refused adds at 1.5x (tdbf.max-error-ratio)
        assert fp <= 2 * 0.01, f"FP {fp} with {refusals} refusals"


def test_max_error_ratio_zero_disables_refusals(make_server):
    s = make_server(module_args=["MAX_ERROR_RATIO", "0"])
    c = client(s)
    c.execute_command("TDBF.RESERVE", "k", "0.01", "EX", "60", "DESIGN", "clock")
    accepted, refusals = burst(c, "k", 200_000)
    assert refusals == 0 and len(accepted) == 200_000


# ---------------------------------------------------------------------------
# Auto-creation

def reference_window(c, window):
    """window_items of an explicit TDBF.RESERVE with that count window."""
    c.execute_command("TDBF.RESERVE", "ref:window", "0.01", "WINDOW", str(window))
    w = info(c, "ref:window")["window_items"]
    c.delete("ref:window")
    return w


def test_add_autocreates_with_the_default_window(r):
    want = reference_window(r, 1000)
    assert r.execute_command("TDBF.ADD", "new1", "a") == 1
    assert r.execute_command("TDBF.MADD", "new2", "a", "b", "a") == [1, 1, 0]
    assert r.execute_command("TDBF.INSERT", "new3", "ITEMS", "a") == [1]
    for key in ("new1", "new2", "new3"):
        i = info(r, key)
        assert i["window_items"] == want and i["window_ms"] == 0, (key, i)
        assert r.execute_command("TDBF.EXISTS", key, "a") == 1


def test_default_window_argument(make_server):
    c = client(make_server(module_args=["DEFAULT_WINDOW", "5000"]))
    want = reference_window(c, 5000)
    assert c.execute_command("TDBF.ADD", "new", "a") == 1
    assert info(c, "new")["window_items"] == want


def test_default_ex_argument_autocreates_time_filters(make_server):
    c = client(make_server(module_args=["DEFAULT_EX", "30"]))
    assert c.execute_command("TDBF.ADD", "new", "a") == 1
    assert c.execute_command("TDBF.MADD", "new2", "a") == [1]
    for key in ("new", "new2"):
        assert info(c, key)["window_ms"] == 30000


def test_autocreate_no(make_server):
    c = client(make_server(module_args=["AUTOCREATE", "no"]))
    for args in (["TDBF.ADD", "nope", "a"], ["TDBF.MADD", "nope", "a", "b"]):
        assert refused(c, *args).startswith("ERR not found"), args
    assert c.exists("nope") == 0


# ---------------------------------------------------------------------------
# TDBF.INFO: RedisBloom's names

def test_info_has_redisbloom_names(r):
    r.execute_command("TDBF.RESERVE", "k", "0.01", "WINDOW", "100000")
    r.execute_command("TDBF.MADD", "k", "a", "b", "c")
    i = info(r, "k")
    assert i["Size"] == i["memory_bytes"]
    assert i["Number of items inserted"] == i["items"] == 3
    # Capacity is the guaranteed window: at least the WINDOW asked (APBF
    # rounds it up to whole generations), exactly window_items.
    assert r.execute_command("TDBF.INFO", "k", "capacity") == [i["window_items"]]
    assert i["Capacity"] == i["window_items"] >= 100000
    r.execute_command("TDBF.RESERVE", "t", "0.01", "EX", "60", "DESIGN", "clock",
                      "CAPACITY", "5000")
    assert r.execute_command("TDBF.INFO", "t", "capacity") == [5000]
    assert r.execute_command("TDBF.INFO", "k", "items") == [3]
    assert r.execute_command("TDBF.INFO", "k", "size") == [i["memory_bytes"]]
    assert refused(r, "TDBF.INFO", "k", "colour").startswith("ERR")


# ---------------------------------------------------------------------------
# Small defects

@pytest.mark.parametrize("design", ["apbf", "apbbf"])
def test_prob_with_universe_one(r, design):
    r.execute_command("TDBF.RESERVE", "k", "0.01", "WINDOW", "1000", "DESIGN", design,
                      "SEED", "6")
    r.execute_command("TDBF.MADD", "k", *[f"i{n}" for n in range(300)])
    assert r.execute_command("TDBF.EXISTS", "k", "i299") == 1
    assert float(r.execute_command("TDBF.PROB", "k", "i299", "UNIVERSE", "1")) > 0
    never = [f"never{n}" for n in range(50)]
    for item, present in zip(never, r.execute_command("TDBF.MEXISTS", "k", *never)):
        if not present:
            assert float(r.execute_command("TDBF.PROB", "k", item, "UNIVERSE", "1")) == 0


def test_prob_on_tlbf_names_the_designs_with_inference(r):
    r.execute_command("TDBF.RESERVE", "t", "0.01", "EX", "60")
    msg = refused(r, "TDBF.PROB", "t", "x")
    assert msg.startswith("ERR") and "apbf" in msg, msg


@pytest.mark.parametrize("command, args", [
    ("TDBF.RESERVE", ["0.01", "WINDOW", "100", "DESIGN", "apbf", "DESIGN", "apbbf"]),
    ("TDBF.RESERVE", ["0.01", "WINDOW", "100", "SEED", "1", "SEED", "2"]),
    ("TDBF.RESERVE", ["0.01", "EX", "60", "CAPACITY", "10", "CAPACITY", "20"]),
    ("TDBF.RESERVE", ["0.01", "WINDOW", "100", "WINDOW", "200"]),
    ("TDBF.RESERVE", ["0.01", "EX", "60", "EX", "30"]),
    ("TDBF.RESERVE", ["0.01", "PX", "600", "PX", "300"]),
    ("TDBF.INSERT", ["ERROR", "0.01", "ERROR", "0.02", "WINDOW", "100", "ITEMS", "a"]),
    ("TDBF.INSERT", ["WINDOW", "100", "DESIGN", "apbf", "DESIGN", "apbf", "ITEMS", "a"]),
    ("TDBF.INSERT", ["WINDOW", "100", "SEED", "1", "SEED", "1", "ITEMS", "a"]),
    ("TDBF.INSERT", ["EX", "60", "CAPACITY", "5", "CAPACITY", "5", "ITEMS", "a"]),
    ("TDBF.INSERT", ["WINDOW", "100", "WINDOW", "100", "ITEMS", "a"]),
], ids=lambda v: v if isinstance(v, str) else "-".join(v[:-1]))
def test_repeated_options_are_errors(r, command, args):
    assert_refused(r, command, "k", args, "twice")


def test_design_with_a_nul_is_an_error(r):
    assert_refused(r, "TDBF.RESERVE", "k", ["0.01", "WINDOW", "100", "DESIGN", b"apbf\x00x"],
                   "ERR")


# ---------------------------------------------------------------------------
# Refusals are counted, not logged one line each

def refusal_counters(c):
    """{field: value} of the tdbf INFO section's fields named refused_*
    (a "tdbf_" prefix that Redis adds to module fields is dropped)."""
    c.set_response_callback("INFO", lambda reply, **kw: reply)      # the raw text
    try:
        text = c.execute_command("INFO", "everything").decode()
    finally:
        c.set_response_callback("INFO", redis.client.parse_info)
    out, section = {}, ""
    for line in text.splitlines():
        if line.startswith("#"):
            section = line[1:].strip().lower()
        elif ":" in line and section.startswith("tdbf"):
            name, value = line.split(":", 1)
            bare = name[len("tdbf_"):] if name.startswith("tdbf_") else name
            if bare.startswith("refused_"):
                out[name] = int(value)
    return out


def test_refusals_are_counted_not_logged(make_server):
    s = make_server()
    c = client(s)
    head, items, tail = source_dump(c, 7)
    data = bytearray(items[2][1])
    data[len(data) // 2] ^= 0x40               # our checksum fails; Redis' CRC is right
    corrupt = build_dump(head, [*items[:2], ("s", bytes(data))], tail)
    lines_before = len(s.log_text().splitlines())
    p = c.pipeline(transaction=False)
    for n in range(2000):
        p.execute_command("TDBF.LOADCHUNK", f"bad{n}", HEADER_BYTES + 1, b"x" * HEADER_BYTES)
        p.execute_command("RESTORE", f"bad{n}", 0, corrupt)
    replies = p.execute(raise_on_error=False)
    assert all(isinstance(x, redis.ResponseError) for x in replies)
    assert c.dbsize() == 1
    grown = len(s.log_text().splitlines()) - lines_before
    counters = refusal_counters(c)
    print("\nrefusal counters:", counters, f"log lines added: {grown}")
    assert grown < 50, s.log_text()[-3000:]
    assert counters and max(counters.values()) >= 2000, counters


# ---------------------------------------------------------------------------
# Keyspace notifications

class KeyspaceEvents:
    """Keyspace events of db 0 in order; a SET on a marker key after each
    command tells where its events end."""

    def __init__(self, c):
        self.c = c
        c.config_set("notify-keyspace-events", "Kd$")
        self.ps = c.pubsub()
        self.ps.psubscribe("__keyspace@0__:*")
        confirm = self.ps.get_message(timeout=5)    # subscribed before any command
        assert confirm and confirm["type"] == "psubscribe", confirm
        self.marks = 0

    def after(self, *args):
        """Run a command; return [(key, event)] it caused."""
        reply = self.c.execute_command(*args)
        self.marks += 1
        marker = f"marker:{self.marks}"
        self.c.set(marker, "x")
        out = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            m = self.ps.get_message(timeout=1)
            if m is None or m["type"] != "pmessage":
                continue
            key = m["channel"].decode().split(":", 1)[1]
            if key == marker:
                return reply, out
            out.append((key, m["data"].decode()))
        raise AssertionError(f"no marker event after {args}: {out}")

    def close(self):
        self.ps.close()


def test_keyspace_notifications(make_server):
    c = client(make_server())
    ev = KeyspaceEvents(c)
    try:
        assert ev.after("TDBF.RESERVE", "k", "0.01", "WINDOW", "100")[1] == \
            [("k", "tdbf.reserve")]
        assert ev.after("TDBF.ADD", "k", "a")[1] == [("k", "tdbf.add")]
        assert ev.after("TDBF.MADD", "k", "a", "b")[1] == [("k", "tdbf.add")]
        assert ev.after("TDBF.INSERT", "k", "ITEMS", "c")[1] == [("k", "tdbf.add")]
        assert ev.after("TDBF.ADD", "new", "a")[1] == [("new", "tdbf.reserve"),
                                                      ("new", "tdbf.add")]
        data = dump_bytes(c, "k")
        half = len(data) // 2
        _, first = ev.after("TDBF.LOADCHUNK", "copy", half + 1, data[:half])
        reply, last = ev.after("TDBF.LOADCHUNK", "copy", len(data) + 1, data[half:])
        assert reply == b"OK"
        assert ("copy", "tdbf.loadchunk") in last, last
        assert set(first) <= {("copy", "tdbf.loadchunk")}, first
    finally:
        ev.close()


# ---------------------------------------------------------------------------
# Fuzz: mutated DUMP payloads and LOADCHUNK chunks

FUZZ_SEED = 20240611
FUZZ_ITERATIONS = 10_000
FUZZ_FILTERS = [
    ("apbf", ["WINDOW", "300"]), ("apbbf", ["WINDOW", "300"]), ("btbf", ["WINDOW", "300"]),
    ("tlbf", ["EX", "3600", "CAPACITY", "300"]), ("clock", ["EX", "3600", "CAPACITY", "300"]),
    ("rotating", ["EX", "3600", "CAPACITY", "300"]), ("exact", ["EX", "3600"]),
]
U64 = (1 << 64) - 1


def field_value(rng, old, width):
    top = (1 << (8 * width)) - 1
    return rng.choice([0, 1, top, top >> 1, (top >> 1) + 1, rng.randrange(top + 1),
                       old * 1000 & top, (old + 1) & top, (old - 1) & top, old * 2 & top])


def mutate(rng, data, fields_at=0):
    """One random mutation of data; offsets in the 256 bytes from fields_at
    (where the format's fields are) are picked more often, unless it is
    None."""
    b = bytearray(data)
    if not b:
        return bytes([rng.randrange(256)])

    def offset(span=1):
        limit = max(1, len(b) - span + 1)
        if fields_at is not None and rng.random() < 0.6:
            return min(limit - 1, fields_at + rng.randrange(min(limit, 256)))
        return rng.randrange(limit)

    op = rng.randrange(8)
    if op == 0:
        b[offset()] ^= 1 << rng.randrange(8)
    elif op == 1:
        b[offset()] = rng.randrange(256)
    elif op == 2:
        at = offset()
        b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif op == 3:
        at = offset()
        del b[at:at + rng.randint(1, 16)]
    elif op == 4:
        del b[rng.randrange(len(b)):]
    else:
        width = 8 if op < 7 else 4
        if len(b) >= width:
            at = offset(width)
            if rng.random() < 0.7:
                at -= at % width
            old = int.from_bytes(b[at:at + width], "little")
            b[at:at + width] = field_value(rng, old, width).to_bytes(width, "little")
    return bytes(b)


class FuzzSource:
    """One original filter: its digest, DUMP parts and serialized bytes."""

    def __init__(self, c, design, window):
        self.key = f"orig:{design}"
        c.execute_command("TDBF.RESERVE", self.key, "0.01", *window, "DESIGN", design,
                          "SEED", "12345")
        c.execute_command("TDBF.MADD", self.key, *[f"{design}{n}" for n in range(100)])
        self.digest = digest(c, self.key)
        self.payload = c.dump(self.key)          # the server runs rdbcompression no
        self.head, self.items, self.tail = parse_dump(self.payload)
        self.data = dump_bytes(c, self.key)
        self.record = self.items[-1]
        assert self.data == b"".join(v for k, v in self.items[2:-1] if k == "s")
        assert len(self.data) < 16 * KB, (design, len(self.data))

    def framed(self, rng):
        """Our bytes mutated, then framed right (mostly) or with a bad total."""
        data = self.data
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            data = mutate(rng, data)
        kind, total = self.items[0][1], len(data)
        roll = rng.random()
        if roll < 0.1:
            total = self.items[1][1]
        elif roll < 0.2:
            total = field_value(rng, len(data), 8)
        elif roll < 0.23:
            kind = rng.choice([1, 2, 255, U64])
        items = [("u", kind), ("u", total), ("s", data), self.record]
        return build_dump(self.head, items, self.tail, crc=False)

    def raw(self, rng):
        """The payload between Redis' head and tail mutated as plain bytes."""
        middle = self.payload[HEAD_BYTES:-TAIL_BYTES]
        return self.payload[:HEAD_BYTES] + mutate(rng, middle) + self.payload[-TAIL_BYTES:]

    def chunks(self, rng):
        """A LOADCHUNK sequence [(cursor, bytes)], one piece or cursor broken."""
        cuts = sorted(rng.sample(range(1, len(self.data)), rng.randint(0, 2)))
        bounds = [0, *cuts, len(self.data)]
        seq = [[hi + 1, self.data[lo:hi]] for lo, hi in zip(bounds, bounds[1:])]
        victim = seq[rng.randrange(len(seq))]
        roll = rng.random()
        if roll < 0.6:
            piece = mutate(rng, victim[1], fields_at=0 if victim is seq[0] else None)
            if rng.random() < 0.5:      # keep the cursor consistent with the new length
                victim[0] += len(piece) - len(victim[1])
            victim[1] = piece
        elif roll < 0.85:
            victim[0] = rng.choice([0, 1, victim[0] - 1, victim[0] + 1, victim[0] * 1000,
                                    U64, rng.randrange(U64), "-1", "x"])
        elif len(seq) > 1:
            i, j = rng.sample(range(len(seq)), 2)
            seq[i], seq[j] = seq[j], seq[i]
        else:
            seq.append(list(seq[0]))
        return seq


def fuzz_one(c, rng, src, baseline):
    """One mutated RESTORE or LOADCHUNK sequence into key "k2". Returns the
    outcome: "refused", "restored" (equal to the original) or "partial" (a
    restore in progress, never a filter that differs, costing no more than
    the bytes it was given)."""
    mode = rng.random()
    if mode < 0.7:
        payload = src.framed(rng) if mode < 0.45 else src.raw(rng)
        reply = try_restore(c, "k2", payload)
        if isinstance(reply, redis.ResponseError):
            assert c.exists("k2") == 0, "a refused RESTORE left k2"
            return "refused"
        assert reply in (True, b"OK"), reply
    else:
        for cursor, piece in src.chunks(rng):
            try:
                c.execute_command("TDBF.LOADCHUNK", "k2", cursor, piece)
            except redis.ResponseError:
                break
    if not c.exists("k2"):
        return "refused"
    if is_complete_filter(c, "k2"):
        assert digest(c, "k2") == src.digest, "an accepted value differs from the original"
        outcome = "restored"
    else:
        outcome = "partial"
        assert used_memory(c) - baseline < MB, "a restore in progress costs more than its bytes"
    c.delete("k2")
    return outcome


def test_fuzz_dump_and_loadchunk(make_server):
    s = make_server(config=["--rdbcompression", "no"])
    c = client(s)
    assert c.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1") == b"OK"
    sources = [FuzzSource(c, d, w) for d, w in FUZZ_FILTERS]
    for src in sources:                       # the unmutated forms round-trip
        assert c.restore("k2", 0, src.payload, replace=True)
        assert digest(c, "k2") == src.digest
        assert load_pieces(c, "k3", src.data, []) == [b"OK"]
        assert digest(c, "k3") == src.digest
        c.delete("k2", "k3")
    rng = random.Random(FUZZ_SEED)
    baseline = used_memory(c)
    before_peaks = peaks(s)
    outcomes = {"refused": 0, "restored": 0, "partial": 0}
    deadline = time.monotonic() + 90
    for n in range(1, FUZZ_ITERATIONS + 1):
        src = rng.choice(sources)
        state = rng.getstate()
        try:
            outcomes[fuzz_one(c, rng, src, baseline)] += 1
            assert c.ping()
        except (redis.ConnectionError, AssertionError) as e:
            rng.setstate(state)
            raise AssertionError(f"iteration {n} ({src.key}): {e}\n"
                                 + s.log_text()[-3000:]) from e
        if n % 100 == 0 or n == FUZZ_ITERATIONS:
            grown = used_memory(c) - baseline
            assert abs(grown) < 256 * KB, f"used_memory {grown:+} bytes after {n} iterations"
            assert time.monotonic() < deadline, f"fuzz too slow: {n} iterations in 90 s"
    print(f"\nfuzz: {outcomes}")
    assert c.dbsize() == len(sources)
    # No mutation made the server touch the sizes it claims.
    assert_no_peak_growth(s, before_peaks, limit=64 * MB)
