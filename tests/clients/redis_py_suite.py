#!/usr/bin/env python3
"""redis_py_suite: redis-py's own test suite (5.2.1, from its PyPI source archive) against `redsim server`.

Usage: redis_py_suite.py --redsim PATH --work DIR

A client library's suite is how its authors check it against a real server,
so a server that passes it serves that library as Redis does. The suite
expects a server on localhost:6379 (a few tests hard-code it) and another on
6380 (PSYNC's test), so Redsim serves both ports; the run stops at once if
either port is taken. Tests for Redis Stack modules, Sentinel, Cluster and
TLS need servers this run does not start and are left out by file or marker;
every other test must pass or be listed in EXPECTED_FAILURES with a reason.
pytest and its plugins are installed, pinned, under DIR (not in the system's
Python), and the archive is fetched once.
"""

import argparse
import os
import socket
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET

REDIS_PY = "5.2.1"
PYTEST = ["pytest==8.4.2", "pytest-asyncio==0.23.8", "pytest-timeout==2.4.0", "mock==5.2.0"]

# Files whose tests need servers this run does not start: Redis Stack's
# modules (search, JSON, time series, bloom, graph), Sentinel and Cluster.
LEFT_OUT_FILES = [
    "tests/test_cluster.py",
    "tests/test_asyncio/test_cluster.py",
    "tests/test_search.py",
    "tests/test_asyncio/test_search.py",
    "tests/test_graph.py",
    "tests/test_asyncio/test_graph.py",
    "tests/test_json.py",
    "tests/test_asyncio/test_json.py",
    "tests/test_timeseries.py",
    "tests/test_asyncio/test_timeseries.py",
    "tests/test_bloom.py",
    "tests/test_asyncio/test_bloom.py",
    "tests/test_sentinel.py",
    "tests/test_asyncio/test_sentinel.py",
    "tests/test_asyncio/test_sentinel_managed_connection.py",
]
# Single tests that need a module server (Redis Stack's triggers and
# functions, on port 6479) but carry no `redismod` marker.
LEFT_OUT_TESTS = [
    "tests/test_commands.py::TestRedisCommands::test_tfunction_load_delete",
    "tests/test_commands.py::TestRedisCommands::test_tfunction_list",
    "tests/test_commands.py::TestRedisCommands::test_tfcall",
]
MARKERS = "not redismod and not onlycluster and not ssl"

# Test id -> why it fails against Redsim. Empty: every test run passes.
EXPECTED_FAILURES = {}


def port_free(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def wait_port(port, proc, what):
    deadline = time.time() + 20
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{what} exited with {proc.returncode}")
        if not port_free(port):
            return
        time.sleep(0.05)
    sys.exit(f"{what} did not listen on {port}")


def setup(work):
    """pytest and its plugins under WORK/site, and redis-py's source under WORK."""
    os.environ.setdefault("PIP_ROOT_USER_ACTION", "ignore")
    site = os.path.join(work, "site")
    stamp = os.path.join(site, ".pinned")
    want = " ".join(PYTEST)
    if not os.path.exists(stamp) or open(stamp).read() != want:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--target", site, "--upgrade", *PYTEST],
            check=True,
        )
        with open(stamp, "w") as f:
            f.write(want)
    src = os.path.join(work, f"redis-{REDIS_PY}")
    if not os.path.isdir(os.path.join(src, "tests")):
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--no-binary", ":all:", "--dest", work, f"redis=={REDIS_PY}"],
            check=True,
        )
        with tarfile.open(os.path.join(work, f"redis-{REDIS_PY}.tar.gz")) as t:
            t.extractall(work, filter="data")
    return site, src


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--redsim", required=True)
    ap.add_argument("--work", required=True)
    opts = ap.parse_args()
    opts.redsim = os.path.abspath(opts.redsim)
    opts.work = os.path.abspath(opts.work)
    os.makedirs(opts.work, exist_ok=True)
    site, src = setup(opts.work)

    for port in (6379, 6380):
        if not port_free(port):
            sys.exit(f"port {port} is taken: the suite needs it for redsim server")
    servers = []
    try:
        for port, extra in ((6379, ["--enable-debug-command", "yes"]), (6380, [])):
            p = subprocess.Popen(
                [opts.redsim, "server", "--port", str(port), "--bind", "127.0.0.1", *extra],
                cwd=opts.work,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            servers.append(p)
            wait_port(port, p, f"redsim server on {port}")

        junit = os.path.join(opts.work, "results.xml")
        cmd = [
            sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider",
            "-o", "asyncio_mode=auto", "--timeout", "60", "-W", "ignore",
            "-m", MARKERS, "--junitxml", junit, "--redis-url", "redis://localhost:6379/0",
        ]
        cmd += [f"--ignore={f}" for f in LEFT_OUT_FILES]
        cmd += [f"--deselect={t}" for t in LEFT_OUT_TESTS]
        env = dict(os.environ, PYTHONPATH=site, PYTHONDONTWRITEBYTECODE="1")
        started = time.time()
        run = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True)
        secs = time.time() - started
    finally:
        for p in servers:
            p.terminate()
        for p in servers:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()

    if not os.path.exists(junit):
        print(run.stdout[-4000:], run.stderr[-4000:])
        sys.exit("pytest wrote no results")
    counts = {"passed": 0, "skipped": 0, "failed": 0}
    failed = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = "%s::%s" % (case.get("classname", ""), case.get("name"))
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            counts["failed"] += 1
            failed[name] = (bad.get("message") or "").strip()[:300]
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    print(f"redis-py {REDIS_PY}'s suite against redsim server: {counts['passed']} passed, "
          f"{counts['skipped']} skipped (server version, marks), {counts['failed']} failed, "
          f"in {secs:.0f} s")
    unexpected = {k: v for k, v in failed.items() if k not in EXPECTED_FAILURES}
    for name, msg in sorted(unexpected.items()):
        print(f"FAIL {name}: {msg}")
    fixed = [k for k in EXPECTED_FAILURES if k not in failed]
    for name in fixed:
        print(f"now passes (take it off EXPECTED_FAILURES): {name}")
    if counts["passed"] < 1000:
        print(run.stdout[-4000:], run.stderr[-4000:])
        sys.exit("fewer tests ran than the suite holds: the run is broken")
    if unexpected:
        sys.exit(f"{len(unexpected)} test(s) failed")


if __name__ == "__main__":
    main()
