"""One filter shared by several threads: every key a thread has added is
found by every thread (no false negative), while batches, saves and stats
run with the GIL released beside single calls."""
import threading

import pytest

import tdbf

ROUNDS = 400


def adder(f, name, added, errors, barrier):
    """Adds keys one by one and in batches, checking each right away."""
    try:
        barrier.wait()
        for r in range(ROUNDS):
            single = b"%s:s%d" % (name, r)
            f.add(single)
            batch = [b"%s:b%d:%d" % (name, r, i) for i in range(50)]
            f.add_many(batch)
            if not f.contains(single) or not all(f.contains_many(batch)):
                errors.append("%s: own key missing in round %d" % (name, r))
            added.extend(batch)
            added.append(single)
    except Exception as exc:                     # reported by the test
        errors.append(repr(exc))


def checker(f, lists, errors, stop):
    """Queries what the adders have reported, and saves and reads stats."""
    try:
        while not stop.is_set():
            for added in lists:
                known = added[-300:]                 # list slices are atomic
                if known and not all(f.contains_many(known)):
                    errors.append("checker: a reported key is missing")
                if known and not all(k in f for k in known[-20:]):
                    errors.append("checker: a reported key is missing (in)")
            f.to_bytes()
            f.stats()
    except Exception as exc:
        errors.append(repr(exc))


@pytest.mark.parametrize("window", [1_000_000, "1h"])
def test_threads_share_one_filter(window):
    # the window outlasts the run: nothing may expire, so every added key
    # must answer yes to everyone
    f = tdbf.Filter(window, 0.01, seed=21, capacity=100_000 if isinstance(window, str) else None)
    errors, stop = [], threading.Event()
    lists = [[], []]
    barrier = threading.Barrier(2)
    adders = [threading.Thread(target=adder, args=(f, name, lists[i], errors, barrier))
              for i, name in enumerate([b"one", b"two"])]
    check = threading.Thread(target=checker, args=(f, lists, errors, stop))
    check.start()
    for t in adders:
        t.start()
    for t in adders:
        t.join()
    stop.set()
    check.join()
    assert errors == []
    everything = lists[0] + lists[1]
    assert len(everything) == 2 * ROUNDS * 51
    assert all(f.contains_many(everything))
    assert f.stats()["items"] == len(everything)


def test_generator_may_use_the_filter_it_feeds():
    # Python code run while add_many gathers keys may call the same filter:
    # keys are gathered outside the filter's lock, so this cannot deadlock.
    f = tdbf.Filter(10_000, 0.01, seed=22)

    def keys():
        for i in range(3000):
            f.add(b"inner:%d" % i)
            yield b"outer:%d" % i
    answers = f.add_many(keys())
    assert len(answers) == 3000 and sum(answers) > 0.95 * 3000    # a few FPs
    assert all(f.contains_many([b"inner:%d" % i for i in range(3000)]))
