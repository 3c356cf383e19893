"""Shared fixtures for the Redis module tests: real redis-server processes.

Every server runs on 127.0.0.1, on a free port, in its own temporary
directory, with build/tdbf.so loaded and DEBUG enabled for local clients.
It is stopped by its own PID (SIGTERM, then SIGKILL after 10 s).
"""
import os
import random
import shutil
import signal
import socket
import subprocess
import time

import pytest
import redis

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE = os.environ.get("TDBF_MODULE", os.path.join(ROOT, "build", "tdbf.so"))
REDIS_SERVER = os.environ.get("REDIS_SERVER") or shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One redis-server with the module; restartable on the same dir and port."""

    def __init__(self, directory, module_args=(), config=(), env=None, port=None):
        self.dir = str(directory)
        self.env = env
        self.port = port or free_port()
        self.module_args = list(module_args)
        self.config = list(config)
        self.proc = None
        self.log = os.path.join(self.dir, "server.log")

    def argv(self):
        return [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(self.port),
                "--dir", self.dir, "--logfile", self.log, "--save", "",
                "--enable-debug-command", "local", "--daemonize", "no",
                "--loadmodule", MODULE, *self.module_args, *self.config]

    def start(self, wait=True):
        assert os.path.exists(MODULE), f"{MODULE} is missing: run make module"
        env = dict(os.environ, **self.env) if self.env else None
        self.proc = subprocess.Popen(self.argv(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, env=env)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}:\n"
                                   + self.log_text())
            try:
                if self.client().ping():
                    # Wait out start-up loading (RDB/AOF).
                    if self.client().info("persistence").get("loading", 0) == 0:
                        return
            except (redis.ConnectionError, redis.BusyLoadingError):
                pass
            time.sleep(0.02)
        raise RuntimeError("redis-server did not become ready:\n" + self.log_text())

    def client(self, **kw):
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=20, **kw)

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None

    def restart(self):
        self.stop()
        return self.start()

    def log_text(self):
        try:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""


@pytest.fixture
def make_server(tmp_path):
    """Factory: make_server(module_args=..., config=...) -> started Server."""
    servers = []

    def make(module_args=(), config=(), start=True, name=None, env=None):
        d = tmp_path / (name or f"server{len(servers)}")
        d.mkdir()
        s = Server(d, module_args, config, env)
        servers.append(s)
        if start:
            s.start()
        return s

    yield make
    for s in servers:
        s.stop()


def wait_replica_up(replica, timeout=10):
    """Wait (bounded) until replica reports master_link_status:up."""
    rc = replica.client()
    deadline = time.monotonic() + timeout
    while rc.info("replication").get("master_link_status") != "up":
        assert time.monotonic() < deadline, "replica did not connect:\n" + replica.log_text()
        time.sleep(0.05)


def wait_caught_up(primary, replicas, timeout=10):
    """Wait (bounded) until every replica has processed the primary's stream."""
    pc = primary.client()
    assert pc.wait(len(replicas), timeout * 1000) >= len(replicas)
    target = pc.info("replication")["master_repl_offset"]
    deadline = time.monotonic() + timeout
    for rep in replicas:
        rc = rep.client()
        while rc.info("replication").get("master_repl_offset", -1) < target:
            assert time.monotonic() < deadline, "replica lagging:\n" + rep.log_text()
            time.sleep(0.02)


@pytest.fixture(scope="session")
def clockshift(tmp_path_factory):
    """env for Server(env=...) shifting its wall clock: clockshift(seconds).

    An LD_PRELOAD shim built from tests/redis/clockshift.c (libfaketime
    hangs in redis-server's jemalloc)."""
    out = tmp_path_factory.mktemp("clockshift") / "clockshift.so"
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clockshift.c")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(out), src], check=True)
    return lambda seconds: {"LD_PRELOAD": str(out), "TDBF_CLOCK_SHIFT_S": str(int(seconds))}


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("shared")).start()
    yield s
    s.stop()


@pytest.fixture
def r(shared_server):
    c = shared_server.client()
    c.flushall()
    return c


# ---------------------------------------------------------------------------
# Redis Cluster: 3 primaries + 3 replicas of Server, on loopback ports
# ---------------------------------------------------------------------------

REDIS_CLI = os.environ.get("REDIS_CLI") or shutil.which("redis-cli") or "/usr/bin/redis-cli"
SCRIPTS = os.path.join(ROOT, "scripts")
CLUSTER_BUS_OFFSET = 10000    # redis-server's cluster bus: port + 10000
# Log lines redis-server writes when it crashes (its bug report), never
# for a SIGKILL, a SIGTERM or a clean exit.
CRASH_MARKERS = ("crashed by signal", "REDIS BUG REPORT", "ASSERTION FAILED")


def _port_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port_block(count):
    """A base port b with b .. b+count-1 and their cluster bus ports free
    (chosen at random in 20000-29999, away from the ephemeral range)."""
    rng = random.Random(os.getpid() ^ time.time_ns())
    for _ in range(500):
        base = rng.randrange(20000, 30000 - count)
        ports = range(base, base + count)
        if all(_port_free(p) and _port_free(p + CLUSTER_BUS_OFFSET) for p in ports):
            return base
    raise RuntimeError(f"no block of {count} free loopback ports")


def pid_alive(pid):
    """True while the process runs. A daemonized server that exited stays a
    zombie until PID 1 reaps it (seconds, in some containers): gone too."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def crash_lines(text):
    return [line for line in text.splitlines() if any(m in line for m in CRASH_MARKERS)]


def cluster_nodes(client):
    """CLUSTER NODES as [{id, port, flags, master, slots}] (slots: count)."""
    # Two words: redis-py parses "CLUSTER NODES" into a dict, not "CLUSTER".
    raw = client.execute_command("CLUSTER", "NODES")
    out = []
    for line in raw.decode().splitlines():
        f = line.split()
        slots = 0
        for r in f[8:]:
            if r.startswith("["):
                continue     # a slot being migrated or imported
            lo, _, hi = r.partition("-")
            slots += int(hi or lo) - int(lo) + 1
        out.append({"id": f[0], "port": int(f[1].split("@")[0].rsplit(":", 1)[1]),
                    "flags": set(f[2].split(",")), "master": f[3], "slots": slots})
    return out


class Cluster:
    """A 3-primary / 3-replica Redis Cluster of Server processes.

    Every node runs on 127.0.0.1 in its own directory (nodes.conf kept
    there, so a restarted node rejoins with its identity), is stopped by
    its PID, and can be killed (SIGKILL) and restarted on the same port.
    The cluster is created with redis-cli --cluster create, as
    scripts/redis-cluster.sh does. node-timeout 2 s: a killed primary is
    failed over in about 3-5 s."""

    NODES = 6
    PRIMARIES = 3

    def __init__(self, directory, config=()):
        self.base = free_port_block(self.NODES)
        self.nodes = []
        for i in range(self.NODES):
            d = os.path.join(str(directory), f"node{i}")
            os.makedirs(d, exist_ok=True)
            self.nodes.append(Server(d, port=self.base + i, config=[
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "2000", "--repl-diskless-sync-delay", "0",
                *config]))
        self.killed = []     # ports killed on purpose (SIGKILL)

    def start(self):
        for n in self.nodes:
            n.start()
        addrs = [f"127.0.0.1:{n.port}" for n in self.nodes]
        r = subprocess.run([REDIS_CLI, "--cluster", "create", *addrs, "--cluster-replicas",
                            "1", "--cluster-yes"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, "cluster create failed:\n" + r.stdout + r.stderr
        self.wait_healthy()
        return self

    def stop(self):
        # Replicas first, so no primary waits on shutdown for a lagging one.
        for n in sorted(self.nodes, key=lambda n: not self.is_replica(n)):
            n.stop()

    def alive(self):
        return [n for n in self.nodes if n.proc is not None and n.proc.poll() is None]

    def node(self, port):
        return next(n for n in self.nodes if n.port == port)

    def is_replica(self, node):
        if node.proc is None or node.proc.poll() is not None:
            return False
        try:
            return node.client().info("replication")["role"] == "slave"
        except redis.RedisError:
            return False

    def client(self, **kw):
        from redis.cluster import ClusterNode, RedisCluster
        seeds = [ClusterNode("127.0.0.1", n.port) for n in self.alive()]
        return RedisCluster(startup_nodes=seeds, socket_timeout=20, **kw)

    def table(self):
        """CLUSTER NODES as seen by the first live node."""
        return cluster_nodes(self.alive()[0].client())

    def primaries(self):
        """Servers that serve slots now (by the first live node's view)."""
        return [self.node(e["port"]) for e in self.table()
                if "master" in e["flags"] and e["slots"] and "fail" not in e["flags"]]

    def replica_of(self, primary):
        ids = {e["port"]: e["id"] for e in self.table()}
        return next(self.node(e["port"]) for e in self.table()
                    if e["master"] == ids[primary.port])

    def kill(self, node):
        """SIGKILL by PID, wait for the process to end."""
        os.kill(node.proc.pid, signal.SIGKILL)
        node.proc.wait(timeout=10)
        node.proc = None
        self.killed.append(node.port)

    def restart(self, node):
        node.start()

    def _healthy(self, live):
        for n in live:
            c = n.client()
            if c.execute_command("CLUSTER INFO").get("cluster_state") != "ok":
                return False
            t = cluster_nodes(c)
            serving = [e for e in t if "master" in e["flags"] and e["slots"]
                       and "fail" not in e["flags"] and "fail?" not in e["flags"]]
            if len(serving) != self.PRIMARIES or sum(e["slots"] for e in serving) != 16384:
                return False
            live_ports = {m.port for m in live}
            if any(e["port"] in live_ports and ("fail" in e["flags"] or "fail?" in e["flags"])
                   for e in t):
                return False
            # Gossip has told this node which live nodes are replicas.
            if sum("slave" in e["flags"] for e in t if e["port"] in live_ports) != \
                    len(live) - self.PRIMARIES:
                return False
            repl = c.info("replication")
            if repl["role"] == "slave" and repl.get("master_link_status") != "up":
                return False
            if repl["role"] == "master" and len(live) == self.NODES and \
                    repl.get("connected_slaves", 0) < 1:
                return False
        # Every live node agrees on who serves which slots, and on who
        # replicates whom.
        views = [sorted((e["id"], e["slots"], e["master"]) for e in cluster_nodes(n.client())
                        if e["port"] in {m.port for m in live}) for n in live]
        return all(v == views[0] for v in views)

    def wait_healthy(self, timeout=40):
        """Wait (bounded) until every live node reports cluster_state:ok, all
        agree on 3 primaries serving the 16384 slots, no live node is
        flagged failing, and every replica's link is up."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self._healthy(self.alive()):
                    return
            except redis.RedisError:
                pass
            assert time.monotonic() < deadline, "cluster not healthy:\n" + "\n".join(
                f"--- node {n.port}\n" + n.log_text()[-3000:] for n in self.nodes)
            time.sleep(0.1)

    def crashes(self):
        """{port: crash log lines} for every node whose log shows a crash."""
        out = {}
        for n in self.nodes:
            lines = crash_lines(n.log_text())
            if lines:
                out[n.port] = lines
        return out


@pytest.fixture
def make_cluster(tmp_path):
    """Factory: make_cluster(config=...) -> a started, healthy Cluster;
    every node is stopped afterwards, whatever happened."""
    clusters = []

    def make(config=(), name="cluster"):
        c = Cluster(tmp_path / name, config)
        clusters.append(c)
        return c.start()

    yield make
    for c in clusters:
        c.stop()
