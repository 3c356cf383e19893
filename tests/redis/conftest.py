"""Shared fixtures for the Redis module tests: real redis-server processes.

Every server runs on 127.0.0.1, on a free port, in its own temporary
directory, with build/tdbf.so loaded and DEBUG enabled for local clients.
It is stopped by its own PID (SIGTERM, then SIGKILL after 10 s).
"""
import os
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

    def __init__(self, directory, module_args=(), config=(), env=None):
        self.dir = str(directory)
        self.env = env
        self.port = free_port()
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
