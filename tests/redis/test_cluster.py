"""Redis Cluster tests of the tdbf module, on real redis-servers.

A 3-primary / 3-replica cluster (conftest.Cluster: loopback ports, its own
temporary directory, every node stopped by its PID afterwards), driven with
redis-py's RedisCluster client:

- 1000 filters spread over the slots of all three primaries: MADD/MEXISTS
  per filter through the cluster client, every added item present, false
  positives of never-added items within each design's planned rate;
- resharding (redis-cli --cluster reshard) under a bounded write workload
  that follows MOVED/ASK: MIGRATE moves the filters through the module's
  RDB path, every acknowledged item is present on the new owner, and the
  filters not written meanwhile keep their DEBUG DIGEST-VALUE;
- automatic failover: a primary killed by PID, its replica promoted, every
  item acknowledged with WAIT 1 before the kill present, nothing changed;
- load and faults: 8 client threads, random SIGKILLs and restarts of
  primaries; zero acknowledged items lost, no crash, memory within plan;
- scripts/redis-cluster.sh start and stop.
"""
import logging
import os
import random
import subprocess
import threading
import time

import pytest
import redis
from redis.exceptions import (AskError, BusyLoadingError, ClusterDownError, MovedError,
                              ReadOnlyError, RedisClusterException, TryAgainError)

from conftest import (MODULE, REDIS_CLI, SCRIPTS, Cluster, cluster_nodes, crash_lines,
                      free_port_block, pid_alive)

# RedisCluster logs a traceback for every redirection and retry it handles.
logging.getLogger("redis.cluster").setLevel(logging.CRITICAL)

# Designs without false negatives inside their window. APBBF is left to
# the load test: planning it for a window of 200 takes about 0.1 s per
# TDBF.RESERVE (its planner searches longer for small windows).
SPREAD_DESIGNS = ["apbf", "apbf-line", "tbf", "btbf", "rotating", "bloom"]
SPREAD_FILTERS = 1000
SPREAD_WINDOW = 200        # items added per filter: exactly one window
NEVER_PER_FILTER = 100     # never-added items queried per filter

# Errors after which a command is retried (bounded) on the re-read owner of
# its slot: a slot moved or moving, a failover in progress, a node loading
# or demoted. redis-py 4.3 also raises RedisClusterException or IndexError
# while it re-reads a topology in flux (a node just restarted answers
# CLUSTER SLOTS before it knows the cluster again).
RETRY_ERRORS = (redis.ConnectionError, redis.TimeoutError, MovedError, AskError,
                TryAgainError, ClusterDownError, BusyLoadingError, ReadOnlyError,
                RedisClusterException, IndexError)
RETRY_MESSAGES = ("CLUSTERDOWN", "MASTERDOWN", "TRYAGAIN", "LOADING", "READONLY")

# redis-py's ClusterNode.__del__ fails on nodes it dropped half-made while
# re-reading the topology; that is its noise, not a test result.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


def retryable(e):
    return isinstance(e, RETRY_ERRORS) or str(e).startswith(RETRY_MESSAGES)


def refresh(rc):
    """Re-read the slot map (after a redirection, failover or resharding)."""
    try:
        rc.nodes_manager.initialize()
    except (redis.RedisError, RedisClusterException, IndexError):
        pass   # the topology is in flux: the caller retries


def owner(rc, key):
    return rc.get_redis_connection(rc.get_node_from_key(key))


def retrying(rc, attempt, what, timeout=60):
    """attempt(), retried (bounded) after errors a redirection, failover or
    restart causes, re-reading the slot map each time."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return attempt()
        except (redis.RedisError, RedisClusterException, IndexError) as e:
            if not retryable(e):
                raise
            assert time.monotonic() < deadline, f"{what} kept failing: {e!r}"
            time.sleep(0.05)
            refresh(rc)


def write_acked(rc, key, items):
    """TDBF.MADD key items on the key's primary, then WAIT 1 on the same
    connection (WAIT covers only that connection's writes). True when the
    write and at least one replica's copy are acknowledged, False if WAIT
    timed out without a replica (the write may or may not survive a
    failover)."""
    def attempt():
        p = owner(rc, key).pipeline(transaction=False)
        p.execute_command("TDBF.MADD", key, *items)
        p.execute_command("WAIT", 1, 500)
        added, replicas = p.execute(raise_on_error=False)
        if isinstance(added, Exception):
            raise added
        assert len(added) == len(items), added
        return not isinstance(replicas, Exception) and replicas >= 1
    return retrying(rc, attempt, f"a write to {key}")


def call(rc, *args):
    """rc.execute_command, retried (bounded) across failovers."""
    return retrying(rc, lambda: rc.execute_command(*args), " ".join(map(str, args[:2])))


def missing(rc, key, items):
    """The items TDBF.MEXISTS reports absent, asked through the cluster client."""
    out = []
    for i in range(0, len(items), 500):
        chunk = items[i:i + 500]
        got = call(rc, "TDBF.MEXISTS", key, *chunk)
        out += [it for it, present in zip(chunk, got) if present != 1]
    return out


def digests(rc, keys):
    """{key: DEBUG DIGEST-VALUE} read on each key's current owner."""
    refresh(rc)
    by_node = {}
    for key in keys:
        by_node.setdefault(rc.get_node_from_key(key).name, []).append(key)
    out = {}
    for name, ks in by_node.items():
        p = rc.get_redis_connection(rc.get_node(node_name=name)).pipeline(transaction=False)
        for key in ks:
            p.execute_command("DEBUG", "DIGEST-VALUE", key)
        out.update({key: d[0] for key, d in zip(ks, p.execute())})
    return out


def node_ids(cluster):
    return {e["port"]: e["id"] for e in cluster.table()}


def wait_in_sync(primary, replica, timeout=20):
    """Wait (bounded) until the replica has processed all of the primary's
    replication stream."""
    pc, rc = primary.client(), replica.client()
    deadline = time.monotonic() + timeout
    while rc.info("replication")["master_repl_offset"] < \
            pc.info("replication")["master_repl_offset"]:
        assert time.monotonic() < deadline, "replica lagging:\n" + replica.log_text()[-2000:]
        time.sleep(0.05)


# ---------------------------------------------------------------------------
# One cluster for the spread, resharding and failover tests
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        yield c.start()
    finally:
        c.stop()
    assert not c.crashes(), c.crashes()


@pytest.fixture(scope="module")
def spread(cluster):
    """1000 filters f:0 .. f:999 (designs in turn, fixed seeds), each given
    exactly one window of items through the cluster client."""
    rc = cluster.client()
    keys = [f"f:{i}" for i in range(SPREAD_FILTERS)]
    added = {}
    for i, key in enumerate(keys):
        design = SPREAD_DESIGNS[i % len(SPREAD_DESIGNS)]
        assert rc.execute_command("TDBF.RESERVE", key, "0.01", "WINDOW", SPREAD_WINDOW,
                                  "DESIGN", design, "SEED", i + 1) == b"OK"
        added[key] = [f"{i}:{j}" for j in range(SPREAD_WINDOW)]
        assert rc.execute_command("TDBF.MADD", key, *added[key]).count(1) >= \
            SPREAD_WINDOW * 0.9, key   # fresh items: almost all new
    return rc, keys, added


def test_filters_spread_over_every_primary(cluster, spread):
    rc, keys, added = spread
    primaries = cluster.primaries()
    held = [p.client().dbsize() for p in primaries]
    assert len(primaries) == 3 and sum(held) == SPREAD_FILTERS, held
    assert min(held) > SPREAD_FILTERS // 5, held
    slots = {rc.keyslot(k) for k in keys}
    assert len({s * 16 // 16384 for s in slots}) == 16, "keys miss a sixteenth of the slots"
    false_positives = {d: 0 for d in SPREAD_DESIGNS}
    planned = {d: 0.0 for d in SPREAD_DESIGNS}
    for i, key in enumerate(keys):
        design = SPREAD_DESIGNS[i % len(SPREAD_DESIGNS)]
        assert rc.execute_command("TDBF.MEXISTS", key, *added[key]) == [1] * SPREAD_WINDOW, key
        never = [f"never:{i}:{j}" for j in range(NEVER_PER_FILTER)]
        false_positives[design] += rc.execute_command("TDBF.MEXISTS", key, *never).count(1)
        planned[design] = max(planned[design],
                              float(rc.execute_command("TDBF.INFO", key, "error_planned")[0]))
    for d in SPREAD_DESIGNS:
        queries = SPREAD_FILTERS // len(SPREAD_DESIGNS) * NEVER_PER_FILTER
        p = planned[d]
        bound = queries * p + 5 * (queries * p * (1 - p)) ** 0.5 + 1
        print(f"{d}: {false_positives[d]} false positives in {queries} queries "
              f"(planned rate {p:.4f}, bound {bound:.0f})")
        assert false_positives[d] <= bound, (d, false_positives[d], bound)


def test_resharding_under_writes_keeps_every_filter(cluster, spread):
    rc, keys, added = spread
    refresh(rc)
    ids = node_ids(cluster)
    source, target = sorted(cluster.primaries(), key=lambda n: n.port)[:2]
    owner_before = {k: rc.get_node_from_key(k).port for k in keys}
    before = digests(rc, keys)
    # Hot filters, written while slots move; the spread filters are not.
    hot = [f"h:{i}" for i in range(200)]
    for i, key in enumerate(hot):
        rc.execute_command("TDBF.RESERVE", key, "0.01", "WINDOW", 100000, "SEED", i + 1)
    acked = {key: [] for key in hot}
    stop = threading.Event()
    first_round = threading.Event()
    failures = []

    def writer():
        wc = cluster.client()
        try:
            for r in range(60):          # bounded: at most 12 000 writes
                for key in hot:
                    if stop.is_set():
                        return
                    item = f"w{r}"
                    assert call(wc, "TDBF.MADD", key, item) in ([0], [1])
                    acked[key].append(item)
                first_round.set()
        except Exception as e:   # reported by the test thread
            failures.append(e)
        finally:
            first_round.set()

    t = threading.Thread(target=writer)
    t.start()
    try:
        assert first_round.wait(timeout=60)
        run = subprocess.run(
            [REDIS_CLI, "--cluster", "reshard", f"127.0.0.1:{source.port}", "--cluster-from",
             ids[source.port], "--cluster-to", ids[target.port], "--cluster-slots", "1500",
             "--cluster-yes"], capture_output=True, text=True, timeout=120)
    finally:
        stop.set()
        t.join(timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    assert not failures, failures
    cluster.wait_healthy()
    refresh(rc)
    moved = [k for k in keys if rc.get_node_from_key(k).port != owner_before[k]]
    writes = sum(len(v) for v in acked.values())
    print(f"\nresharding: 1500 slots moved {len(moved)} of {len(keys)} idle filters "
          f"({len(keys)} digests compared); {writes} writes acknowledged on "
          f"{len(hot)} hot filters meanwhile")
    assert moved and all(owner_before[k] == source.port for k in moved)
    assert all(rc.get_node_from_key(k).port == target.port for k in moved)
    after = digests(rc, keys)
    changed = [k for k in keys if after[k] != before[k]]
    assert not changed, f"digests changed: {changed[:5]}"
    for key in moved:
        assert not missing(rc, key, added[key]), key
    for key in hot:
        assert not missing(rc, key, acked[key]), key
    assert writes >= len(hot)


def test_failover_keeps_items_acknowledged_with_wait(cluster, spread):
    rc, keys, _ = spread
    refresh(rc)
    victim = sorted(cluster.primaries(), key=lambda n: n.port)[-1]
    heir = cluster.replica_of(victim)
    fo = [f"fo:{i}" for i in range(60)]
    for i, key in enumerate(fo):
        rc.execute_command("TDBF.RESERVE", key, "0.01", "WINDOW", 10000, "SEED", i + 1)
    acked = {key: [] for key in fo}
    for r in range(10):
        for key in fo:
            items = [f"{r}:{j}" for j in range(5)]
            if write_acked(rc, key, items):
                acked[key] += items
    on_victim = [k for k in keys + fo if rc.get_node_from_key(k).port == victim.port]
    assert any(k in fo for k in on_victim) and len(on_victim) > 100
    assert sum(len(v) for v in acked.values()) > 0
    # The replica holds all of it (acknowledged or not) before the kill, so
    # after the failover nothing at all may differ.
    wait_in_sync(victim, heir)
    before = digests(rc, on_victim)
    cluster.kill(victim)
    cluster.wait_healthy(timeout=30)
    refresh(rc)
    assert {e["port"] for e in cluster.table()
            if "master" in e["flags"] and e["slots"]} >= {heir.port}
    assert all(rc.get_node_from_key(k).port == heir.port for k in on_victim)
    lost = {k: missing(rc, k, v) for k, v in acked.items()}
    assert not any(lost.values()), lost
    assert digests(rc, on_victim) == before
    # The killed node comes back as a replica of its heir.
    cluster.restart(victim)
    cluster.wait_healthy(timeout=30)
    assert cluster.is_replica(victim)


# ---------------------------------------------------------------------------
# Load and faults
# ---------------------------------------------------------------------------

CLIENTS = 8
# 8 x 12 500 = 10^5 operations in all, about 25 s on 2 cores; the full
# load of 8 x 10^5 takes about 2 minutes: TDBF_LOAD_OPS_PER_CLIENT=100000.
OPS_PER_CLIENT = int(os.environ.get("TDBF_LOAD_OPS_PER_CLIENT", "12500"))
KILLS = 3                     # at 20 %, 45 % and 70 % of the operations
ITEMS_PER_WRITE = 4
WRITE_SHARE = 0.8             # the rest are MEXISTS of acknowledged items
# Designs whose memory is fixed at creation (TLBF grows slices as items
# arrive, so its creation-time memory is no bound); windows that hold every
# item the test adds, so any item missing was lost, not forgotten.
LOAD_DESIGNS = [(d, ["WINDOW", "200000"]) for d in ("apbf", "apbbf", "btbf", "bloom",
                                                    "rotating")] + \
               [(d, ["EX", "3600", "CAPACITY", "200000"]) for d in ("clock", "rotating")]
LOAD_FILTERS = [(f"load:{i}", *LOAD_DESIGNS[i % len(LOAD_DESIGNS)]) for i in range(28)]
CARD_SKETCH = 40 + 5 * 512    # TDBF.CARD's sketch (src/redis/card.c), in MEMORY USAGE
KEY_OVERHEAD = 256 + CARD_SKETCH  # MEMORY USAGE beyond the filter: key, robj, dict entry


class LoadState:
    """What the client threads share: acknowledged items, counters, gates."""

    def __init__(self, keys):
        self.lock = threading.Lock()
        self.acked = {k: [] for k in keys}
        self.ops = 0
        self.unacked = 0
        self.lost_seen = []
        self.errors = []
        self.kill_done = [threading.Event() for _ in range(KILLS)]

    def gate(self, done_ops):
        """Block a client that is 15 % past a kill's trigger until that kill
        and its recovery are over, so every kill happens under load."""
        for k in range(KILLS):
            if done_ops >= (kill_fraction(k) + 0.15) * OPS_PER_CLIENT:
                self.kill_done[k].wait(timeout=120)


def kill_fraction(k):
    return 0.2 + 0.25 * k


def client_thread(cluster, state, tid, keys):
    rng = random.Random(1000 + tid)
    rc = cluster.client()
    mine = {k: [] for k in keys}
    try:
        for op in range(OPS_PER_CLIENT):
            state.gate(op)
            key = rng.choice(keys)
            if rng.random() < WRITE_SHARE or not mine[key]:
                items = [f"{tid}:{op}:{j}" for j in range(ITEMS_PER_WRITE)]
                if write_acked(rc, key, items):
                    mine[key] += items
                    with state.lock:
                        state.acked[key] += items
                else:
                    with state.lock:
                        state.unacked += 1
            else:
                sample = rng.sample(mine[key], min(8, len(mine[key])))
                gone = missing(rc, key, sample)
                if gone:
                    with state.lock:
                        state.lost_seen += [(key, it) for it in gone]
            with state.lock:
                state.ops += 1
    except Exception as e:   # reported by the test thread
        with state.lock:
            state.errors.append((tid, repr(e)))
        for ev in state.kill_done:
            ev.set()


def test_load_with_primary_kills_loses_nothing_acknowledged(make_cluster):
    cluster = make_cluster(name="load")
    rc = cluster.client()
    keys = [k for k, _, _ in LOAD_FILTERS]
    planned = {}
    for i, (key, design, window) in enumerate(LOAD_FILTERS):
        rc.execute_command("TDBF.RESERVE", key, "0.01", *window, "DESIGN", design,
                           "SEED", i + 1)
        planned[key] = int(rc.execute_command("TDBF.INFO", key, "memory_bytes")[0])
    assert len({rc.get_node_from_key(k).port for k in keys}) == 3, "a primary holds none"
    state = LoadState(keys)
    total = CLIENTS * OPS_PER_CLIENT
    threads = [threading.Thread(target=client_thread, args=(cluster, state, t, keys))
               for t in range(CLIENTS)]
    started = time.monotonic()
    for t in threads:
        t.start()
    rng = random.Random(7)
    kills = 0
    try:
        for k in range(KILLS):
            while state.ops < kill_fraction(k) * total and not state.errors:
                time.sleep(0.05)
            if state.errors:
                break
            victim = rng.choice(cluster.primaries())
            cluster.kill(victim)
            cluster.wait_healthy(timeout=40)      # its replica took over
            cluster.restart(victim)
            cluster.wait_healthy(timeout=40)      # it is back, as a synced replica
            kills += 1
            state.kill_done[k].set()
    finally:
        for ev in state.kill_done:
            ev.set()
        for t in threads:
            t.join(timeout=300)
    elapsed = time.monotonic() - started
    assert not state.errors, state.errors
    assert not any(t.is_alive() for t in threads)
    assert state.ops == total and kills == KILLS
    # Every acknowledged item, asked through the cluster client.
    refresh(rc)
    acked = sum(len(v) for v in state.acked.values())
    lost = {k: missing(rc, k, v) for k, v in state.acked.items()}
    lost_count = sum(len(v) for v in lost.values()) + len(state.lost_seen)
    # Replicas identical to their primaries, filter by filter.
    cluster.wait_healthy()
    compared = 0
    for key in keys:
        primary = cluster.node(rc.get_node_from_key(key).port)
        replica = cluster.replica_of(primary)
        wait_in_sync(primary, replica)
        assert replica.client().execute_command("DEBUG", "DIGEST-VALUE", key) == \
            primary.client().execute_command("DEBUG", "DIGEST-VALUE", key), key
        compared += 1
    # Memory within the plan: the filter's memory never grew, and MEMORY
    # USAGE adds only the key's own overhead.
    for key in keys:
        assert int(call(rc, "TDBF.INFO", key, "memory_bytes")[0]) == planned[key], key
        usage = call(rc, "MEMORY", "USAGE", key)
        assert usage <= planned[key] + KEY_OVERHEAD, (key, usage, planned[key])
    # No crash: every node runs, and no log holds a crash report.
    assert len(cluster.alive()) == Cluster.NODES
    assert not cluster.crashes(), cluster.crashes()
    print(f"\nload: {state.ops} operations by {CLIENTS} clients in {elapsed:.1f} s, "
          f"{kills} primary kills survived, {acked} items acknowledged "
          f"({state.unacked} writes unacknowledged), {lost_count} acknowledged items lost, "
          f"{compared} digests compared")
    assert lost_count == 0, (lost, state.lost_seen[:10])


# ---------------------------------------------------------------------------
# scripts/redis-cluster.sh
# ---------------------------------------------------------------------------

def test_cluster_script_starts_and_stops(tmp_path):
    from redis.cluster import RedisCluster
    base = free_port_block(Cluster.NODES)
    script = os.path.join(SCRIPTS, "redis-cluster.sh")
    env = dict(os.environ, TDBF_MODULE=MODULE, REDIS_CLI=REDIS_CLI)
    d = tmp_path / "cluster"
    run = subprocess.run([script, "start", str(d), str(base)], env=env, capture_output=True,
                         text=True, timeout=120)
    pidfiles = [d / f"node{i}" / "redis.pid" for i in range(Cluster.NODES)]
    pids = [int(p.read_text()) for p in pidfiles if p.exists()]
    try:
        assert run.returncode == 0, run.stdout + run.stderr
        assert len(pids) == Cluster.NODES
        table = cluster_nodes(redis.Redis(host="127.0.0.1", port=base))
        assert sum("master" in e["flags"] and e["slots"] > 0 for e in table) == 3
        assert sum("slave" in e["flags"] for e in table) == 3
        rc = RedisCluster(host="127.0.0.1", port=base)
        keys = [f"s:{i}" for i in range(30)]
        for key in keys:
            rc.execute_command("TDBF.RESERVE", key, "0.01", "EX", "60")
            assert rc.execute_command("TDBF.MADD", key, "a", "b") == [1, 1]
        assert len({rc.get_node_from_key(k).port for k in keys}) == 3
        assert all(rc.execute_command("TDBF.MEXISTS", k, "a", "b", "c") == [1, 1, 0]
                   for k in keys)
        rc.close()
    finally:
        stop = subprocess.run([script, "stop", str(d)], env=env, capture_output=True,
                              text=True, timeout=120)
        logs = "".join((d / f"node{i}" / "redis.log").read_text(errors="replace")
                       for i in range(Cluster.NODES) if (d / f"node{i}" / "redis.log").exists())
    assert stop.returncode == 0, stop.stdout + stop.stderr
    assert not [p for p in pids if pid_alive(p)]
    assert not crash_lines(logs)
