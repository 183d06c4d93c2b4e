//! A real Redis Cluster for tests: N `redis-server --cluster-enabled yes` masters on private ports, each with its own nodes.conf, the slots split evenly, joined with CLUSTER MEET, and ready once every node says `cluster_state:ok`.

use std::time::{Duration, Instant};

use crate::{free_port, Frame, RedisServer, TempDir};

/// A running real cluster of masters; stopped on drop.
pub struct RedisCluster {
    pub nodes: Vec<RedisServer>,
    _dir: TempDir,
}

impl RedisCluster {
    /// Starts `masters` nodes, gives each an even share of the 16384 slots
    /// and waits (up to 20 s) until all of them report the cluster ok.
    pub fn start(masters: usize) -> RedisCluster {
        let dir = TempDir::new("cluster");
        let mut buses = Vec::new();
        let nodes: Vec<RedisServer> = (0..masters)
            .map(|i| {
                let conf = dir.file(&format!("nodes-{i}.conf"));
                // An explicit bus port: port + 10000 may not exist for a
                // high ephemeral port.
                let bus = free_port().to_string();
                buses.push(bus.clone());
                RedisServer::start(&[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    &conf,
                    "--cluster-port",
                    &bus,
                    "--cluster-node-timeout",
                    "5000",
                ])
            })
            .collect();
        let share = 16384 / masters;
        for (i, node) in nodes.iter().enumerate() {
            let first = i * share;
            let last = if i + 1 == masters {
                16383
            } else {
                first + share - 1
            };
            let mut c = node.conn();
            let reply = c.cmd(&[
                "CLUSTER",
                "ADDSLOTSRANGE",
                &first.to_string(),
                &last.to_string(),
            ]);
            assert_eq!(reply, Frame::ok(), "ADDSLOTSRANGE on node {i}");
        }
        let mut first = nodes[0].conn();
        for (node, bus) in nodes.iter().zip(&buses).skip(1) {
            let port = node.port.to_string();
            let met = first.cmd(&["CLUSTER", "MEET", "127.0.0.1", &port, bus]);
            assert_eq!(met, Frame::ok());
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        for node in &nodes {
            let mut c = node.conn();
            loop {
                let info = match c.cmd(&["CLUSTER", "INFO"]) {
                    Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
                    other => panic!("CLUSTER INFO: {other:?}"),
                };
                if info.contains("cluster_state:ok")
                    && info.contains(&format!("cluster_known_nodes:{masters}"))
                {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "cluster not ok after 20 s:\n{info}"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        RedisCluster { nodes, _dir: dir }
    }

    /// `redis://127.0.0.1:PORT?cluster=1` of the first node.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}?cluster=1", self.nodes[0].port)
    }
}
