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
import subprocess
import threading
import time

import pytest
import redis

from conftest import (MODULE, SCRIPTS, free_port_block, pid_alive, wait_caught_up,
                      wait_replica_up)

SHIFT_S = 5 * 3600
# Start a full sync at once rather than after the default 5 s delay.
FAST_SYNC = ["--repl-diskless-sync-delay", "0"]

# (key, creation args) for every design the module can create.
COUNT_DESIGNS = ["apbf", "apbbf", "apbf-line", "sqf", "tbf", "btbf", "rotating", "fpdecay", "stable",
                 "bloom", "exact"]
TIME_DESIGNS = ["tlbf", "tlbf-line", "clock", "rotating", "exact"]
PROB_DESIGNS = {"tbf", "btbf"}


def filters():
    out = []
    for d in COUNT_DESIGNS:
        # A Bloom filter never forgets: sized for all the workload adds, or
        # the module refuses adds once its estimated FP passes 1.5x target.
        window = "3000" if d == "bloom" else "300"
        out.append((f"c:{d}", ["WINDOW", window, "DESIGN", d], d))
    for d in TIME_DESIGNS:
        out.append((f"t:{d}", ["PX", "400", "DESIGN", d], d))
        out.append((f"T:{d}", ["EX", "36000", "DESIGN", d], d))
    return out


def digest(c, key):
    return c.execute_command("DEBUG", "DIGEST-VALUE", key)[0]


def create_filters(pc):
    """RESERVE (or INSERT-create) every filter."""
    for n, (key, args, _) in enumerate(filters()):
        if n % 2:
            pc.execute_command("TDBF.RESERVE", key, "0.01", *args)
        else:
            pc.execute_command("TDBF.INSERT", key, "ERROR", "0.01", *args, "ITEMS", "first")


def write_rounds(pc, start, stop):
    """MADD/ADD/INSERT rounds start .. stop-1 on every filter."""
    for i in range(start, stop):
        p = pc.pipeline(transaction=False)
        for key, _, _ in filters():
            p.execute_command("TDBF.MADD", key, *[f"m{i}:{j}" for j in range(10)])
            p.execute_command("TDBF.ADD", key, f"a{i}")
            p.execute_command("TDBF.INSERT", key, "NOCREATE", "ITEMS", f"i{i}", f"a{i // 2}")
        p.execute()
        time.sleep(0.02)


def written_items(rounds):
    """The items write_rounds(0, rounds) added, and 3 it did not."""
    return [f"m{i}:{j}" for i in range(rounds) for j in range(10)] + \
           [f"a{i}" for i in range(rounds)] + [f"i{i}" for i in range(rounds)] + \
           ["first", "never", "other"]


def workload(pc, rounds=30):
    """Create every filter, then `rounds` rounds of writes."""
    create_filters(pc)
    write_rounds(pc, 0, rounds)
    return written_items(rounds)


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


def assert_identical(want, got, who):
    """Digests match for every filter; answers too, except on the PX 400
    windows, which expire between two queries (their digests still match)."""
    for key, _, _ in filters():
        assert got[key][0] == want[key][0], f"digest {key} on {who}"
        if not key.startswith("t:"):
            assert got[key] == want[key], f"answers {key} on {who}"


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
    # The long time windows still hold what the rounds added, on the
    # primary ("first" only went into the filters INSERT created).
    for d in TIME_DESIGNS:
        assert want[f"T:{d}"][1][:len(items) - 3].count(1) == len(items) - 3, d


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


def replica_ports(primary):
    """Listening ports of the replicas the primary has a live link to."""
    info = primary.client().info("replication")
    return {v["port"] for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)}


def wait_stat(server, field, value, timeout=10):
    """Wait (bounded) until INFO stats `field` reaches value."""
    c = server.client()
    deadline = time.monotonic() + timeout
    while c.info("stats")[field] < value:
        assert time.monotonic() < deadline, f"{field} stays below {value}:\n" + server.log_text()
        time.sleep(0.05)


def test_partial_resync_after_broken_link(trio):
    """Both replicas lose their link while the primary writes every design;
    they come back with a partial resync (PSYNC from the backlog, no RDB)
    and end identical."""
    primary, normal, skewed = trio
    pc = primary.client()
    create_filters(pc)
    write_rounds(pc, 0, 10)
    wait_caught_up(primary, [normal, skewed])
    before = pc.info("stats")
    # Freeze the skewed replica so that it cannot reconnect while the
    # primary writes; a PING that times out proves it is asleep.
    sleeper = threading.Thread(
        target=lambda: skewed.client().execute_command("DEBUG", "SLEEP", "3"))
    sleeper.start()
    probe = redis.Redis(host="127.0.0.1", port=skewed.port, socket_timeout=0.2)
    deadline = time.monotonic() + 5
    while True:
        assert time.monotonic() < deadline, "DEBUG SLEEP did not freeze the replica"
        try:
            probe.ping()
            time.sleep(0.02)
        except redis.TimeoutError:
            break
    assert pc.execute_command("CLIENT", "KILL", "TYPE", "replica") == 2
    write_rounds(pc, 10, 25)
    # The writes happened while the skewed replica had no link.
    assert skewed.port not in replica_ports(primary)
    sleeper.join(timeout=10)
    wait_stat(primary, "sync_partial_ok", before["sync_partial_ok"] + 2)
    wait_caught_up(primary, [normal, skewed])
    after = pc.info("stats")
    assert after["sync_full"] == before["sync_full"], "a replica full-synced"
    assert after["sync_partial_ok"] == before["sync_partial_ok"] + 2
    assert replica_ports(primary) == {normal.port, skewed.port}
    items = written_items(25)
    want = answers(pc, items)
    assert_identical(want, answers(normal.client(), items), "replica")
    assert_identical(want, answers(skewed.client(), items), "skewed replica")
    # The writes made while the link was cut are there.
    for d in COUNT_DESIGNS:
        if d not in ("fpdecay", "stable"):   # they forget at random
            got = normal.client().execute_command("TDBF.MEXISTS", f"c:{d}", "m24:9", "i24")
            assert got == [1, 1], d


BIG = ["0.001", "WINDOW", "100000000"]      # about 337 MB
MEDIUM = ["0.001", "WINDOW", "10000000"]    # about 34 MB


def test_maxmemory_refuses_a_filter_too_big_and_replicas_follow(make_server):
    """At maxmemory (noeviction) a filter that does not fit is an OOM error
    and nothing is left behind; the server keeps serving; a replica with a
    lower maxmemory still applies what its primary accepted."""
    primary = make_server(name="primary", config=FAST_SYNC + [
        "--maxmemory", "60mb", "--maxmemory-policy", "noeviction"])
    replica = make_server(name="replica", config=[
        "--maxmemory", "20mb", "--maxmemory-policy", "noeviction"])
    replica.client().replicaof("127.0.0.1", primary.port)
    wait_replica_up(replica)
    pc = primary.client()
    with pytest.raises(redis.ResponseError) as e:
        pc.execute_command("TDBF.RESERVE", "big", *BIG)
    assert str(e.value).startswith("OOM the new filter needs "), str(e.value)
    with pytest.raises(redis.ResponseError) as e:
        pc.execute_command("TDBF.INSERT", "big", "ERROR", *BIG[:1], *BIG[1:], "ITEMS", "x")
    assert str(e.value).startswith("OOM "), str(e.value)
    assert pc.exists("big") == 0
    assert pc.info("memory")["used_memory"] < 60 * 2**20
    # It fits the primary's 60 MB, not the replica's 20 MB: replicas ignore
    # maxmemory, so the replica holds it too.
    assert pc.execute_command("TDBF.RESERVE", "medium", *MEDIUM) == b"OK"
    assert pc.execute_command("TDBF.MADD", "medium", "a", "b") == [1, 1]
    wait_caught_up(primary, [replica])
    rc = replica.client()
    assert rc.execute_command("TDBF.MEXISTS", "medium", "a", "b") == [1, 1]
    assert digest(rc, "medium") == digest(pc, "medium")
    assert rc.exists("big") == 0
    assert pc.ping() and rc.ping()


def test_replicas_script_starts_and_stops(tmp_path):
    """scripts/redis-replicas.sh: a primary and 2 synced replicas on the
    given ports, identical after a write; stop ends every process."""
    base = free_port_block(3)
    script = os.path.join(SCRIPTS, "redis-replicas.sh")
    env = dict(os.environ, TDBF_MODULE=MODULE)
    d = tmp_path / "replicas"
    run = subprocess.run([script, "start", str(d), str(base)], env=env, capture_output=True,
                         text=True, timeout=60)
    pids = [int((d / n / "redis.pid").read_text()) for n in ("primary", "replica1", "replica2")
            if (d / n / "redis.pid").exists()]
    try:
        assert run.returncode == 0, run.stdout + run.stderr
        assert len(pids) == 3
        pc = redis.Redis(host="127.0.0.1", port=base)
        assert pc.info("replication")["connected_slaves"] == 2
        pc.execute_command("TDBF.RESERVE", "k", "0.01", "EX", "60")
        pc.execute_command("TDBF.MADD", "k", "a", "b")
        assert pc.wait(2, 5000) == 2
        for port in (base + 1, base + 2):
            rc = redis.Redis(host="127.0.0.1", port=port)
            assert rc.info("replication")["master_link_status"] == "up"
            assert digest(rc, "k") == digest(pc, "k")
    finally:
        stop = subprocess.run([script, "stop", str(d)], env=env, capture_output=True,
                              text=True, timeout=60)
    assert stop.returncode == 0, stop.stdout + stop.stderr
    assert not [p for p in pids if pid_alive(p)]
