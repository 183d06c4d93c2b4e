"""A redis-py Sentinel failover against `redsim sentinel`: the client finds the
master through the sentinels, the master is shut down, the sentinels elect a
leader and promote a replica, and the same client object keeps working.

Run `redsim sentinel --port 6379 --sentinel-port 26379`, then
`python3 sentinel_failover.py 26379 26380 26381`. The test suite runs it
against the binary it builds (crates/cli/tests/sentinel_bin.rs).
"""

import json
import sys
import time

import redis
from redis.sentinel import Sentinel

sentinel_ports = [int(p) for p in sys.argv[1:]]
sentinel = Sentinel([("127.0.0.1", p) for p in sentinel_ports], socket_timeout=1.0)

# The client asks the sentinels where the master is, and writes there.
before = sentinel.discover_master("mymaster")
master = sentinel.master_for("mymaster", socket_timeout=1.0, decode_responses=True)
master.set("greeting", "hello")
replicas = sentinel.discover_slaves("mymaster")

# Watch one sentinel's events while the master dies.
events = redis.Redis(port=sentinel_ports[0], decode_responses=True).pubsub()
events.psubscribe("*")
time.sleep(0.2)  # the write reaches the replicas (1 ms links)
redis.Redis(host=before[0], port=before[1]).shutdown(nosave=True)

deadline = time.time() + 20
after = before
while after == before and time.time() < deadline:
    time.sleep(0.1)
    try:
        after = sentinel.discover_master("mymaster")
    except redis.sentinel.MasterNotFoundError:
        pass

seen = []
while True:
    m = events.get_message(timeout=0.5)
    if m is None:
        break
    if m["type"] == "pmessage":
        seen.append([m["channel"], m["data"]])

# The same client object reconnects to the new master by itself.
greeting = None
for _ in range(50):
    try:
        greeting = master.get("greeting")
        master.set("after", "failover")
        break
    except (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError):
        time.sleep(0.1)

print(json.dumps({
    "before": list(before),
    "after": list(after),
    "replicas": [list(r) for r in replicas],
    "greeting": greeting,
    "after_write": master.get("after"),
    "events": seen,
}))
