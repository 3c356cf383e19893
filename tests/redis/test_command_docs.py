"""COMMAND DOCS / COMMAND INFO for the TDBF.* commands (command_info.c).

The module describes every command with RedisModule_SetCommandInfo: the
summary, complexity, since and argument tree that COMMAND DOCS returns, the
arity with which the server itself refuses a wrong number of arguments, and
a key spec at argv[1] flagged for what the command does with the key.
"""
import pytest
import redis

# name -> (arity, top-level argument names)
COMMANDS = {
    "tdbf.reserve": (-5, ["key", "error_rate", "window", "capacity", "design", "seed"]),
    "tdbf.add": (3, ["key", "item"]),
    "tdbf.madd": (-3, ["key", "item"]),
    "tdbf.insert": (-4, ["key", "error", "window", "capacity", "design", "seed", "nocreate",
                         "item"]),
    "tdbf.addat": (-4, ["key", "timestamp_ms", "item"]),
    "tdbf.exists": (3, ["key", "item"]),
    "tdbf.mexists": (-3, ["key", "item"]),
    "tdbf.prob": (-3, ["key", "item", "model", "universe", "exponent", "rank"]),
    "tdbf.card": (2, ["key"]),
    "tdbf.info": (-2, ["key", "field"]),
    "tdbf.scandump": (3, ["key", "cursor"]),
    "tdbf.loadchunk": (4, ["key", "cursor", "chunk"]),
}

READS = {"tdbf.exists", "tdbf.mexists", "tdbf.prob", "tdbf.card", "tdbf.info",
         "tdbf.scandump"}

# A valid call of each command on key k (for COMMAND GETKEYS).
SAMPLE_CALLS = {
    "tdbf.reserve": ["k", "0.01", "WINDOW", "100"],
    "tdbf.add": ["k", "a"],
    "tdbf.madd": ["k", "a", "b"],
    "tdbf.insert": ["k", "WINDOW", "100", "ITEMS", "a", "b"],
    "tdbf.addat": ["k", "1000", "a"],
    "tdbf.exists": ["k", "a"],
    "tdbf.mexists": ["k", "a", "b"],
    "tdbf.prob": ["k", "a", "MODEL", "uniform"],
    "tdbf.card": ["k"],
    "tdbf.info": ["k", "card"],
    "tdbf.scandump": ["k", "0"],
    "tdbf.loadchunk": ["k", "10", "chunk"],
}


def text(x):
    return x.decode() if isinstance(x, bytes) else x


def as_dict(pairs):
    """A RESP2 flat [key, value, ...] list as a dict (argument lists nested)."""
    d = {}
    for k, v in zip(pairs[::2], pairs[1::2]):
        k = text(k)
        if k == "arguments":
            v = [as_dict(a) for a in v]
        elif k == "flags":
            v = [text(f) for f in v]
        else:
            v = text(v)
        d[k] = v
    return d


def docs(client, *names):
    # Two words: redis-py would parse plain "COMMAND" replies as COMMAND INFO.
    raw = client.execute_command("COMMAND DOCS", *names)
    return {text(n): as_dict(d) for n, d in zip(raw[::2], raw[1::2])}


def info(client, *names):
    return {text(e[0]): e for e in client.execute_command("COMMAND INFO", *names)}


@pytest.fixture
def server(make_server):
    return make_server()


def test_every_module_command_is_documented(server):
    c = server.client()
    listed = {text(n) for n in c.execute_command("COMMAND LIST", "FILTERBY", "MODULE", "tdbf")}
    assert listed == set(COMMANDS)
    d = docs(c, *COMMANDS)
    assert set(d) == set(COMMANDS)
    for name, (_, arg_names) in COMMANDS.items():
        doc = d[name]
        assert doc["summary"].endswith(".") and len(doc["summary"]) > 30, name
        assert doc["complexity"].startswith("O("), name
        assert doc["since"] == "0.1.0", name
        assert doc["group"] == "module" and doc["module"] == "tdbf", name
        assert [a["name"] for a in doc["arguments"]] == arg_names, name
        key = doc["arguments"][0]
        assert key["type"] == "key" and key["key_spec_index"] == 0, name


def test_argument_details(server):
    d = docs(server.client(), *COMMANDS)

    def arg(command, name):
        return next(a for a in d[command]["arguments"] if a["name"] == name)

    # The window: exactly one of WINDOW n|T, EX s, PX ms; optional for INSERT.
    for command, flags in (("tdbf.reserve", []), ("tdbf.insert", ["optional"])):
        window = arg(command, "window")
        assert window["type"] == "oneof" and window.get("flags", []) == flags
        assert [(a["name"], a["token"], a["type"]) for a in window["arguments"]] == [
            ("count_or_duration", "WINDOW", "string"), ("seconds", "EX", "integer"),
            ("milliseconds", "PX", "integer")]
        for option, token, kind in (("capacity", "CAPACITY", "integer"),
                                    ("design", "DESIGN", "string"),
                                    ("seed", "SEED", "integer")):
            a = arg(command, option)
            assert (a["token"], a["type"], a["flags"]) == (token, kind, ["optional"])
    assert arg("tdbf.reserve", "error_rate")["type"] == "double"
    assert arg("tdbf.insert", "error")["token"] == "ERROR"
    nocreate = arg("tdbf.insert", "nocreate")
    assert (nocreate["type"], nocreate["token"]) == ("pure-token", "NOCREATE")
    items = arg("tdbf.insert", "item")
    assert (items["token"], items["flags"]) == ("ITEMS", ["multiple"])

    for command in ("tdbf.madd", "tdbf.mexists", "tdbf.addat"):
        assert arg(command, "item")["flags"] == ["multiple"], command
    for command in ("tdbf.add", "tdbf.exists", "tdbf.prob"):
        assert "flags" not in arg(command, "item"), command
    assert arg("tdbf.addat", "timestamp_ms")["type"] == "unix-time"

    model = arg("tdbf.prob", "model")
    assert (model["type"], model["token"], model["flags"]) == ("oneof", "MODEL", ["optional"])
    assert [(a["type"], a["token"]) for a in model["arguments"]] == [
        ("pure-token", "UNIFORM"), ("pure-token", "POWERLAW")]
    for option in ("universe", "exponent", "rank"):
        a = arg("tdbf.prob", option)
        assert (a["type"], a["token"], a["flags"]) == ("double", option.upper(), ["optional"])

    assert arg("tdbf.info", "field")["flags"] == ["optional"]
    assert arg("tdbf.scandump", "cursor")["type"] == "integer"
    assert arg("tdbf.loadchunk", "chunk")["type"] == "string"


def test_command_info_arity_and_key(server):
    got = info(server.client(), *COMMANDS)
    for name, (arity, _) in COMMANDS.items():
        entry = got[name]
        assert entry[1] == arity, name
        assert entry[3:6] == [1, 1, 1], name           # first key, last key, step
        specs = entry[8]
        assert len(specs) == 1, name
        spec = as_dict(specs[0])
        flags = set(spec["flags"])
        assert flags == ({"RO", "access"} if name in READS else
                         {"OW", "insert"} if name == "tdbf.reserve" else
                         {"RW", "update"} if name == "tdbf.loadchunk" else
                         {"RW", "access", "update"}), name
        assert [text(x) for x in spec["begin_search"]][:2] == ["type", "index"], name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_getkeys_finds_the_key(server, name):
    c = server.client()
    assert c.execute_command("COMMAND GETKEYS", name.upper(), *SAMPLE_CALLS[name]) == ["k"]


def test_getkeys_madd(server):
    assert server.client().execute_command("COMMAND GETKEYS", "TDBF.MADD", "k", "a", "b") \
        == ["k"]


@pytest.mark.parametrize("call", [
    ["TDBF.ADD", "k"],
    ["TDBF.ADD", "k", "a", "b"],
    ["TDBF.CARD", "k", "x"],
    ["TDBF.EXISTS", "k"],
    ["TDBF.RESERVE", "k", "0.01", "WINDOW"],
    ["TDBF.INSERT", "k", "ITEMS"],
    ["TDBF.ADDAT", "k", "1000"],
    ["TDBF.MADD", "k"],
    ["TDBF.SCANDUMP", "k"],
    ["TDBF.LOADCHUNK", "k", "1", "x", "y"],
    ["TDBF.INFO"],
    ["TDBF.PROB", "k"],
])
def test_wrong_arity_is_refused_by_the_server(server, call):
    c = server.client()
    with pytest.raises(redis.ResponseError, match="wrong number of arguments for '"
                       + call[0].lower() + "' command"):
        c.execute_command(*call)
    # Refused before the module ran: a rejected call, not a call.
    stats = c.info("commandstats")["cmdstat_" + call[0].lower()]
    assert stats["rejected_calls"] == 1 and stats["calls"] == 0, stats
    # Inside MULTI the server refuses to queue it (a command that checked
    # its own arity would answer QUEUED), and EXEC then aborts.
    one = server.client(single_connection_client=True)
    one.execute_command("MULTI")
    with pytest.raises(redis.ResponseError, match="wrong number of arguments"):
        one.execute_command(*call)
    with pytest.raises(redis.exceptions.ExecAbortError):
        one.execute_command("EXEC")


def test_read_only_key_permission_allows_the_queries(server):
    c = server.client()
    c.execute_command("TDBF.RESERVE", "f", "0.01", "WINDOW", "100")
    c.execute_command("TDBF.ADD", "f", "a")
    c.execute_command("ACL SETUSER", "reader", "on", ">pw", "%R~*", "+@all")
    r = server.client(username="reader", password="pw")
    assert r.execute_command("TDBF.EXISTS", "f", "a") == 1
    assert r.execute_command("TDBF.MEXISTS", "f", "a", "b")[0] == 1
    assert r.execute_command("TDBF.CARD", "f") == 1
    assert r.execute_command("TDBF.INFO", "f", "items") == [1]
    assert r.execute_command("TDBF.SCANDUMP", "f", "0")[0] > 0
    for write in (["TDBF.ADD", "f", "b"], ["TDBF.MADD", "f", "b"],
                  ["TDBF.INSERT", "f", "ITEMS", "b"], ["TDBF.RESERVE", "g", "0.01", "WINDOW", "9"],
                  ["TDBF.LOADCHUNK", "g", "2", "x"]):
        with pytest.raises(redis.exceptions.NoPermissionError):
            r.execute_command(*write)
