"""Replication tests of the tdbf Redis module on real redis-servers.

A primary and two replicas, one of them with its wall clock hours off
(tests/redis/clockshift.c): after a mixed workload on every design, count
and time windows, DEBUG DIGEST-VALUE and every TDBF.EXISTS / TDBF.PROB
answer match. Also a replica that full-syncs after the writes (RDB
transfer), and a failover (REPLICAOF NO ONE) that keeps every item
acknowledged with WAIT.
"""
import os
import signal
import time

import pytest

from conftest import wait_caught_up, wait_replica_up

SHIFT_S = 5 * 3600
# Start a full sync at once rather than after the default 5 s delay.
FAST_SYNC = ["--repl-diskless-sync-delay", "0"]

# (key, creation args) for every design the module can create.
COUNT_DESIGNS = ["apbf", "apbbf", "tbf", "btbf", "rotating", "fpdecay", "stable",
                 "bloom", "exact"]
TIME_DESIGNS = ["tlbf", "clock", "rotating", "exact"]
PROB_DESIGNS = {"tbf", "btbf"}


def filters():
    out = []
    for d in COUNT_DESIGNS:
        out.append((f"c:{d}", ["WINDOW", "300", "DESIGN", d], d))
    for d in TIME_DESIGNS:
        out.append((f"t:{d}", ["PX", "400", "DESIGN", d], d))
        out.append((f"T:{d}", ["EX", "36000", "DESIGN", d], d))
    return out


def digest(c, key):
    return c.execute_command("DEBUG", "DIGEST-VALUE", key)[0]


def workload(pc, rounds=30):
    """RESERVE (or INSERT-create) every filter, then MADD/ADD/INSERT rounds."""
    for n, (key, args, _) in enumerate(filters()):
        if n % 2:
            pc.execute_command("TDBF.RESERVE", key, "0.01", *args)
        else:
            pc.execute_command("TDBF.INSERT", key, "ERROR", "0.01", *args, "ITEMS", "first")
    for i in range(rounds):
        p = pc.pipeline(transaction=False)
        for key, _, _ in filters():
            p.execute_command("TDBF.MADD", key, *[f"m{i}:{j}" for j in range(10)])
            p.execute_command("TDBF.ADD", key, f"a{i}")
            p.execute_command("TDBF.INSERT", key, "NOCREATE", "ITEMS", f"i{i}", f"a{i // 2}")
        p.execute()
        time.sleep(0.02)
    return [f"m{i}:{j}" for i in range(rounds) for j in range(10)] + \
           [f"a{i}" for i in range(rounds)] + [f"i{i}" for i in range(rounds)] + \
           ["first", "never", "other"]


def answers(c, items, keys=None):
    """{key: (digest, MEXISTS answers, PROB answers or None)} for every filter."""
    out = {}
    for key, _, design in filters():
        if keys is not None and key not in keys:
            continue
        p = c.pipeline(transaction=False)
        p.execute_command("DEBUG", "DIGEST-VALUE", key)
        p.execute_command("TDBF.MEXISTS", key, *items)
        if design in PROB_DESIGNS and key.startswith("c:"):
            for it in items:
                p.execute_command("TDBF.PROB", key, it)
        r = p.execute()
        out[key] = (r[0][0], r[1], r[2:] or None)
    return out


@pytest.fixture
def trio(make_server, clockshift):
    primary = make_server(name="primary", config=FAST_SYNC)
    normal = make_server(name="replica")
    skewed = make_server(name="skewed", env=clockshift(SHIFT_S))
    for rep in (normal, skewed):
        rep.client().replicaof("127.0.0.1", primary.port)
    for rep in (normal, skewed):
        wait_replica_up(rep)
    return primary, normal, skewed


def test_skewed_replica_clock_is_really_off(trio):
    primary, _, skewed = trio
    t_primary = primary.client().time()[0]
    t_skewed = skewed.client().time()[0]
    assert abs(t_skewed - t_primary - SHIFT_S) < 60


def test_replicas_identical_after_mixed_workload(trio):
    primary, normal, skewed = trio
    pc = primary.client()
    items = workload(pc)
    wait_caught_up(primary, [normal, skewed])
    # Digests match everywhere. Count windows answer the same everywhere;
    # long time windows (EX 36000) the same where the clock agrees (queries
    # evaluate expiry at the server's own time); short ones (PX 400) expire
    # between two queries, so only their digests are compared.
    want = answers(pc, items)
    got_normal = answers(normal.client(), items)
    got_skewed = answers(skewed.client(), items)
    for key, _, _ in filters():
        assert got_normal[key][0] == want[key][0], f"digest {key} replica"
        assert got_skewed[key][0] == want[key][0], f"digest {key} skewed replica"
        if not key.startswith("t:"):
            assert got_normal[key] == want[key], f"answers {key} replica"
        if not key.startswith("t:"):
            # EX 36000 outlasts the skewed clock's 5 hours.
            assert got_skewed[key] == want[key], f"answers {key} skewed replica"
    # The long time windows still hold what was added, on the primary.
    for d in TIME_DESIGNS:
        assert want[f"T:{d}"][1][:len(items) - 2].count(1) == len(items) - 2, d


def test_full_sync_replica_is_identical(make_server, clockshift):
    primary = make_server(name="primary", config=FAST_SYNC)
    pc = primary.client()
    items = workload(pc, rounds=15)
    late = make_server(name="late", env=clockshift(SHIFT_S))
    late.client().replicaof("127.0.0.1", primary.port)
    wait_replica_up(late)
    wait_caught_up(primary, [late])
    assert late.client().info("replication")["master_link_status"] == "up"
    want = answers(pc, items)
    got = answers(late.client(), items)
    for key, _, _ in filters():
        assert got[key][0] == want[key][0], f"digest {key}"
        if not key.startswith("t:"):
            assert got[key] == want[key], key
    # The RDB transfer is logged as a full sync on the primary.
    assert pc.info("stats")["sync_full"] >= 1


def test_failover_keeps_acknowledged_items(trio):
    primary, normal, skewed = trio
    pc = primary.client()
    acked = {key: [] for key, _, _ in filters()}
    for key, args, _ in filters():
        pc.execute_command("TDBF.RESERVE", key, "0.01", *[a if a != "400" else "60000"
                                                          for a in args])
    for i in range(20):
        for key in acked:
            pc.execute_command("TDBF.MADD", key, f"k{i}", f"l{i}")
        if pc.wait(1, 5000) >= 1:
            for key in acked:
                acked[key] += [f"k{i}", f"l{i}"]
    assert all(len(v) == 40 for v in acked.values())
    wait_caught_up(primary, [normal, skewed])
    before = {key: digest(pc, key) for key in acked}
    os.kill(primary.proc.pid, signal.SIGKILL)
    primary.proc.wait(timeout=10)
    primary.proc = None
    nc = normal.client()
    nc.execute_command("REPLICAOF", "NO", "ONE")
    assert nc.info("replication")["role"] == "master"
    for key, items in acked.items():
        assert nc.execute_command("TDBF.MEXISTS", key, *items) == [1] * len(items), key
    # Nothing else changed: the promoted replica holds the primary's bytes.
    assert {key: digest(nc, key) for key in acked} == before
    # The promoted replica accepts writes, and they replicate to the other.
    skewed.client().replicaof("127.0.0.1", normal.port)
    wait_replica_up(skewed)
    nc.execute_command("TDBF.MADD", "c:apbf", "after")
    wait_caught_up(normal, [skewed])
    for key, _, _ in filters():
        assert digest(skewed.client(), key) == digest(nc, key), key
