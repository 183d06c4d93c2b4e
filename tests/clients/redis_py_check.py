#!/usr/bin/env python3
"""redis_py_check: drives a server with redis-py over RESP2 and RESP3 and asserts every reply.

Usage: redis_py_check.py PORT. Exits non-zero (with the failing check) on any
mismatch; tests/clients.rs runs it against the in-process redsim server.
"""

import sys
import time

import redis


def check_protocol(port, proto):
    r = redis.Redis(host="127.0.0.1", port=port, protocol=proto)
    k = f"py{proto}:"

    assert r.ping() is True
    hello = r.execute_command("HELLO", proto)
    if isinstance(hello, list):  # RESP2: a flat list of field, value
        hello = dict(zip(hello[::2], hello[1::2]))
    fields = {(f.decode() if isinstance(f, bytes) else f): v for f, v in hello.items()}
    assert fields["proto"] == proto, f"HELLO {proto} replied {hello!r}"
    assert fields["server"] in (b"redis", "redis"), hello

    assert r.set(k + "a", "1") is True
    assert r.get(k + "a") == b"1"
    assert r.get(k + "missing") is None
    assert r.set(k + "a", "2", nx=True) is None
    assert r.set(k + "a", "3", xx=True, get=True) == b"1"

    assert r.incr(k + "n") == 1
    assert r.incr(k + "n", 41) == 42
    assert r.decr(k + "n") == 41
    assert r.incrbyfloat(k + "a", 1.5) == 4.5
    assert r.get(k + "a") == b"4.5", r.get(k + "a")

    assert r.expire(k + "n", 100) is True
    assert r.ttl(k + "n") in (99, 100), r.ttl(k + "n")
    assert 0 < r.pttl(k + "n") <= 100_000
    assert r.ttl(k + "missing") == -2
    assert r.persist(k + "n") is True
    assert r.ttl(k + "n") == -1

    assert r.mget([k + "a", k + "missing", k + "n"]) == [b"4.5", None, b"41"]
    assert r.mset({k + "x": "1", k + "y": "2"}) is True
    assert r.exists(k + "x", k + "y", k + "missing") == 2

    # Binary-safe values, both ways.
    blob = bytes(range(256)) * 4
    assert r.set(k + "bin", blob) is True
    assert r.get(k + "bin") == blob
    assert r.strlen(k + "bin") == len(blob)

    # A pipeline without MULTI: one write, replies in order.
    p = r.pipeline(transaction=False)
    p.set(k + "p", "x")
    p.get(k + "p")
    p.incr(k + "pc")
    p.append(k + "p", "yz")
    p.delete(k + "p")
    p.exists(k + "p")
    assert p.execute() == [True, b"x", 1, 3, 1, 0]

    # A long pipeline: the server must keep reading while replies queue up.
    p = r.pipeline(transaction=False)
    for i in range(5000):
        p.incr(k + "many")
    replies = p.execute()
    assert replies == list(range(1, 5001)), replies[:5]

    # Errors come back as exceptions carrying Redis' text.
    try:
        r.execute_command("NOSUCHCOMMAND", "x")
        raise AssertionError("unknown command accepted")
    except redis.ResponseError as e:
        assert str(e).startswith("unknown command 'NOSUCHCOMMAND'"), str(e)
    try:
        r.incr(k + "bin")
        raise AssertionError("INCR of a non-number accepted")
    except redis.ResponseError as e:
        assert str(e) == "value is not an integer or out of range", str(e)

    # The clock follows real time: a 100 ms TTL is gone after 300 ms.
    assert r.set(k + "short", "v", px=100) is True
    time.sleep(0.3)
    assert r.get(k + "short") is None

    r.close()


def main():
    port = int(sys.argv[1])
    for proto in (2, 3):
        check_protocol(port, proto)
    print("redis-py checks passed (RESP2 and RESP3)")


if __name__ == "__main__":
    main()
