//! `TestCluster` from real cluster clients (redis-rs and redis-py): the topology replies name the served ports, MOVED and ASK, a failover on the wall clock and on a manual one, a killed node refusing connections, slot migration, CLUSTER FAILOVER, blocking commands and seeded node ids.

use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use redis::cluster::ClusterClient;
use redis::{Commands, Connection, Value};
use redsim_testing::{key_hash_slot, Clock, TestCluster};

fn node(cluster: &TestCluster, i: usize) -> Connection {
    redis::Client::open(cluster.urls()[i].as_str())
        .and_then(|c| c.get_connection())
        .expect("connect to a node")
}

fn text(v: &Value) -> String {
    match v {
        Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
        Value::SimpleString(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        other => format!("{other:?}"),
    }
}

#[test]
fn topology_replies_name_the_ports_served() {
    let cluster = TestCluster::start(3, 1);
    let ports: Vec<u16> = cluster.addrs().iter().map(|a| a.port()).collect();
    assert_eq!(ports.len(), 6);
    let mut c = node(&cluster, 4);
    // CLUSTER SLOTS: three ranges, each with its master and its replica.
    let slots: Vec<Value> = redis::cmd("CLUSTER").arg("SLOTS").query(&mut c).unwrap();
    assert_eq!(slots.len(), 3);
    let mut covered = 0;
    for range in &slots {
        let Value::Array(r) = range else {
            panic!("{range:?}")
        };
        let (from, to) = (
            text(&r[0]).parse::<u32>().unwrap(),
            text(&r[1]).parse::<u32>().unwrap(),
        );
        covered += to - from + 1;
        let addr = |v: &Value| match v {
            Value::Array(a) => (text(&a[0]), text(&a[1]).parse::<u16>().unwrap()),
            other => panic!("{other:?}"),
        };
        let (ip, master_port) = addr(&r[2]);
        let (_, replica_port) = addr(&r[3]);
        assert_eq!(ip, "127.0.0.1");
        let m = ports.iter().position(|&p| p == master_port).unwrap();
        let rep = ports.iter().position(|&p| p == replica_port).unwrap();
        assert!(m < 3 && rep == m + 3, "master {m} replica {rep}");
        assert_eq!(cluster.master_of_slot(from as u16), Some(m));
    }
    assert_eq!(covered, 16384);
    // CLUSTER NODES: one line per node, its real port, myself flagged.
    let nodes: String = redis::cmd("CLUSTER").arg("NODES").query(&mut c).unwrap();
    assert_eq!(nodes.lines().count(), 6);
    for (i, port) in ports.iter().enumerate() {
        let line = nodes
            .lines()
            .find(|l| l.contains(&format!("127.0.0.1:{port}@")))
            .unwrap_or_else(|| panic!("no line for port {port}:\n{nodes}"));
        assert_eq!(line.contains("myself"), i == 4, "{line}");
        assert_eq!(line.contains("slave"), i >= 3, "{line}");
    }
    // CLUSTER SHARDS: three shards of two nodes.
    let shards: Vec<Value> = redis::cmd("CLUSTER").arg("SHARDS").query(&mut c).unwrap();
    assert_eq!(shards.len(), 3);
    // A key another master serves is MOVED there, with its port.
    let key = (0..)
        .map(|i| format!("k{i}"))
        .find(|k| cluster.master_of_key(k) == Some(1))
        .unwrap();
    let mut n0 = node(&cluster, 0);
    let err = n0.get::<_, Option<String>>(&key).unwrap_err();
    assert_eq!(err.code(), Some("MOVED"));
    assert_eq!(
        err.redirect_node(),
        Some((
            format!("127.0.0.1:{}", ports[1]).as_str(),
            key_hash_slot(key.as_bytes())
        ))
    );
    // INFO says cluster mode, as redis-cli --cluster checks.
    let info: String = redis::cmd("INFO").arg("cluster").query(&mut c).unwrap();
    assert!(info.contains("cluster_enabled:1"), "{info}");
}

#[test]
fn redis_py_cluster_client_reads_and_writes_across_masters() {
    let cluster = TestCluster::start(3, 1);
    let port = cluster.addrs()[2].port();
    let script = r#"
import sys
from redis.cluster import RedisCluster
rc = RedisCluster(host="127.0.0.1", port=int(sys.argv[1]), decode_responses=True)
for i in range(200):
    rc.set(f"user:{i}", i)
assert [rc.get(f"user:{i}") for i in range(200)] == [str(i) for i in range(200)]
assert rc.incr("{acct:1}:n") == 1
pipe = rc.pipeline()
pipe.set("{acct:1}:a", "x").get("{acct:1}:a")
assert pipe.execute() == [True, "x"]
masters = {n.port for n in rc.get_primaries()}
replicas = {n.port for n in rc.get_replicas()}
print(len(masters), len(replicas), rc.dbsize(target_nodes=RedisCluster.PRIMARIES))
"#;
    let out = Command::new("python3")
        .args(["-c", script, &port.to_string()])
        .output()
        .expect("python3 with redis-py (installed by the test command)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "redis-py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // redis-py sums DBSIZE over the masters: 200 users and two accounts' keys.
    assert_eq!(stdout.trim(), "3 3 202");
    let per_node: usize = (0..3)
        .map(|n| cluster.inspect_node(n, |e| e.dbsize(0)))
        .sum();
    assert_eq!(per_node, 202);
}

#[test]
fn a_killed_master_fails_over_on_the_wall_clock_and_comes_back_a_replica() {
    let cluster = TestCluster::builder()
        .masters(3)
        .replicas_per_master(1)
        .config("cluster-node-timeout", "300")
        .start();
    let key = (0..)
        .map(|i| format!("k{i}"))
        .find(|k| cluster.master_of_key(k) == Some(0))
        .unwrap();
    let slot = key_hash_slot(key.as_bytes());
    let mut c = node(&cluster, 0);
    let _: () = c.set(&key, "before").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    cluster.kill_node(0);
    // The dead node's port refuses, and its clients are cut off.
    assert!(TcpStream::connect(cluster.addrs()[0]).is_err());
    assert!(c.get::<_, Option<String>>(&key).is_err());
    let promoted = cluster.wait_until(Duration::from_secs(10), move |cl| {
        (1..cl.nodes.len()).any(|i| cl.view(i).owner(slot) == Some(3))
    });
    assert!(promoted, "replica 3 did not take over within 10 s");
    let mut r = node(&cluster, 3);
    let v: Option<String> = r.get(&key).unwrap();
    assert_eq!(v.as_deref(), Some("before"));
    // Back up, the old master learns it lost its slots and follows node 3.
    cluster.restart_node(0);
    let follows = cluster.wait_until(Duration::from_secs(10), |cl| {
        cl.view(0).me().replica_of == Some(3)
    });
    assert!(follows, "node 0 did not become a replica of node 3");
    let mut c = node(&cluster, 0);
    let err = c.get::<_, Option<String>>(&key).unwrap_err();
    assert_eq!(err.code(), Some("MOVED"));
}

#[test]
fn a_manual_clock_fails_over_only_when_advanced() {
    let cluster = TestCluster::builder()
        .masters(3)
        .replicas_per_master(1)
        .clock(Clock::Manual)
        .start();
    cluster.kill_node(1);
    std::thread::sleep(Duration::from_millis(200));
    assert!(!cluster.masters().contains(&4), "no time passed");
    cluster.advance(Duration::from_secs(30));
    let masters = cluster.masters();
    assert_eq!(masters, vec![0, 2, 4]);
    // Deterministic: the same seed, the same run of the bus.
    let events = cluster.with_cluster(|c| c.events.len());
    let again = TestCluster::builder()
        .masters(3)
        .replicas_per_master(1)
        .clock(Clock::Manual)
        .start();
    again.kill_node(1);
    again.advance(Duration::from_secs(30));
    assert_eq!(again.with_cluster(|c| c.events.len()), events);
    let ids =
        |cl: &TestCluster| cl.with_cluster(|c| (0..6).map(|i| c.node_id(i)).collect::<Vec<_>>());
    assert_eq!(ids(&cluster), ids(&again));
}

#[test]
fn migrating_a_slot_moves_its_keys_and_redirects_clients() {
    let cluster = TestCluster::start(2, 0);
    let client = ClusterClient::new(cluster.urls()).unwrap();
    let mut con = client.get_connection().unwrap();
    let slot = key_hash_slot(b"{m}");
    let from = cluster.master_of_slot(slot).unwrap();
    let to = 1 - from;
    for i in 0..20 {
        let _: () = con.set(format!("{{m}}:{i}"), i).unwrap();
    }
    // Halfway: the slot is MIGRATING on the source and IMPORTING on the
    // target, and a key already moved is answered with ASK.
    let moved = cluster.with_cluster(move |c| {
        c.begin_migration(slot, to).unwrap();
        c.migrate_keys(slot, 5).len()
    });
    assert_eq!(moved, 5);
    let mut src = node(&cluster, from);
    let gone = (0..20)
        .map(|i| format!("{{m}}:{i}"))
        .find(|k| {
            cluster.inspect_node(to, {
                let k = k.clone();
                move |e| e.holds_key(0, k.as_bytes())
            })
        })
        .unwrap();
    let err = src.get::<_, Option<String>>(&gone).unwrap_err();
    assert_eq!(err.code(), Some("ASK"));
    // The client follows ASK by itself.
    let v: String = con.get(&gone).unwrap();
    assert!(!v.is_empty());
    let rest = cluster.with_cluster(move |c| {
        let n = c.migrate_keys(slot, 100).len();
        c.finish_migration(slot).unwrap();
        n
    });
    assert_eq!(rest, 15);
    assert_eq!(cluster.master_of_slot(slot), Some(to));
    let err = src.get::<_, Option<String>>("{m}:0").unwrap_err();
    assert_eq!(err.code(), Some("MOVED"));
    let vals: Vec<i64> = (0..20)
        .map(|i| con.get(format!("{{m}}:{i}")).unwrap())
        .collect();
    assert_eq!(vals, (0..20).collect::<Vec<i64>>());
    // And the one-call form.
    let back = cluster.migrate_slot(slot, from).unwrap();
    assert_eq!(back, 20);
    assert_eq!(cluster.master_of_slot(slot), Some(from));
}

#[test]
fn cluster_failover_from_a_client_promotes_the_replica() {
    let cluster = TestCluster::start(3, 1);
    let mut r = node(&cluster, 5);
    let ok: String = redis::cmd("CLUSTER").arg("FAILOVER").query(&mut r).unwrap();
    assert_eq!(ok, "OK");
    let done = cluster.wait_until(Duration::from_secs(10), |c| {
        c.view(5).is_master() && c.view(2).me().replica_of == Some(5)
    });
    assert!(done, "the manual failover did not complete");
    let role: Vec<Value> = redis::cmd("ROLE").query(&mut r).unwrap();
    assert_eq!(text(&role[0]), "master");
}

#[test]
fn a_blocked_client_is_served_by_another_connection() {
    let cluster = TestCluster::start(3, 0);
    let n = cluster.master_of_key("jobs").unwrap();
    let url = cluster.urls()[n].clone();
    let waiter = std::thread::spawn(move || {
        let mut c = redis::Client::open(url.as_str())
            .unwrap()
            .get_connection()
            .unwrap();
        let got: Option<(String, String)> = c.blpop("jobs", 5.0).unwrap();
        got
    });
    std::thread::sleep(Duration::from_millis(100));
    let mut p = node(&cluster, n);
    let _: () = p.rpush("jobs", "job-1").unwrap();
    let got = waiter.join().unwrap();
    assert_eq!(got, Some(("jobs".into(), "job-1".into())));
    // A blocked client's timeout is kept by the ticker too.
    let mut c = node(&cluster, n);
    let none: Option<(String, String)> = c.blpop("empty", 0.2).unwrap();
    assert_eq!(none, None);
}
