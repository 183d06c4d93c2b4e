//! A cluster client test: redis-rs' `ClusterClient` against `TestCluster`, writes spread over three masters, then a master killed and its replica promoted while the client keeps working.
//!
//! Run it with `cargo run -p redsim-testing --example cluster_client`; the
//! test suite runs it too (`tests/examples.rs`).

use std::time::Duration;

use redis::cluster::ClusterClient;
use redis::Commands;
use redsim_testing::{Clock, TestCluster};

pub fn main() {
    // Three masters, one replica each; a manual clock makes the failover
    // a matter of `advance`, not of sleeping through cluster-node-timeout.
    let cluster = TestCluster::builder()
        .masters(3)
        .replicas_per_master(1)
        .clock(Clock::Manual)
        .start();
    let client = ClusterClient::new(cluster.urls()).expect("seed nodes");
    let mut con = client.get_connection().expect("connect to the cluster");

    // The client routes each key to its slot's master (learned from
    // CLUSTER SLOTS, corrected by MOVED).
    for i in 0..300 {
        let _: () = con.set(format!("user:{i}"), i).unwrap();
    }
    let mut per_master = [0usize; 3];
    for i in 0..300 {
        per_master[cluster.master_of_key(&format!("user:{i}")).unwrap()] += 1;
    }
    assert!(per_master.iter().all(|&n| n > 50), "spread: {per_master:?}");
    for (node, &n) in per_master.iter().enumerate() {
        assert_eq!(cluster.inspect_node(node, |e| e.dbsize(0)), n);
    }
    // Hash tags keep related keys in one slot, so a multi-key command works.
    let _: () = con
        .mset(&[("{cart:7}:items", "3"), ("{cart:7}:total", "42")])
        .unwrap();
    let both: Vec<String> = con.mget(&["{cart:7}:items", "{cart:7}:total"]).unwrap();
    assert_eq!(both, ["3", "42"]);

    // Let the replication stream reach the replicas, then kill the master
    // of user:0. Some time after cluster-node-timeout (15 s by default: a
    // ping must go unanswered that long, then failure reports spread) the
    // others mark it FAIL, and its replica wins the election after its
    // random delay.
    cluster.advance(Duration::from_millis(100));
    let dead = cluster.master_of_key("user:0").unwrap();
    cluster.kill_node(dead);
    cluster.advance(Duration::from_secs(30));
    let promoted = cluster.master_of_key("user:0").unwrap();
    assert_ne!(promoted, dead);
    assert!(promoted >= 3, "a replica (nodes 3..6) took over");

    // redis-rs' synchronous cluster connection reconnects to a dead node
    // but re-reads the slot map only on MOVED, so after a failover an app
    // opens a new connection (it reads CLUSTER SLOTS from a live seed),
    // exactly as it must against a real cluster. The write acknowledged
    // before the crash had reached the replica.
    let v: i64 = match con.get("user:0") {
        Ok(v) => v,
        Err(_) => {
            con = client.get_connection().expect("reconnect to the cluster");
            con.get("user:0").unwrap()
        }
    };
    assert_eq!(v, 0);
    let _: () = con.set("user:0", "after failover").unwrap();
    let v: String = con.get("user:0").unwrap();
    assert_eq!(v, "after failover");
    println!("cluster client: node {dead} died, node {promoted} took its slots, no write lost");
}
