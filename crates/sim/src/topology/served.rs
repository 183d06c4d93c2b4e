//! The topology served to real clients (a test's Sentinel setup on loopback ports): nodes at real addresses, no simulated writer, commands from outside run on a node's engine in wall-clock order, and what the sentinels do is kept for the host to publish.

use super::{Micros, TopoOptions, Topology};
use crate::replication::sentinel::{SentinelEvent, Sentinels};
use redsim_engine::Engine;

impl Topology {
    /// A topology whose node `i` announces `addrs[i]` (`ip:port`), without
    /// the simulated writing client: real clients do the writing. Sentinel
    /// events are kept for [`Topology::take_sentinel_events`].
    pub fn served(mut opts: TopoOptions, addrs: Vec<String>) -> Topology {
        opts.writes_per_sec = 0.0;
        Topology::build(opts, addrs, true)
    }

    /// `REPLICAOF <ip> <port>` naming node `m`.
    pub(super) fn replicaof_line(&self, m: usize) -> String {
        let (ip, port) = self.addrs[m]
            .rsplit_once(':')
            .unwrap_or(("127.0.0.1", "6379"));
        format!("REPLICAOF {ip} {port}")
    }

    /// Node `i`'s `ip:port`.
    pub fn addr_of(&self, i: usize) -> &str {
        &self.addrs[i]
    }

    pub fn engine(&self, i: usize) -> &Engine {
        &self.nodes[i].e
    }

    /// Node `i`'s engine, for a real client's command; call
    /// [`Topology::served_command`] after it.
    pub fn engine_mut(&mut self, i: usize) -> &mut Engine {
        &mut self.nodes[i].e
    }

    /// Whether node `i`'s process runs.
    pub fn is_alive(&self, i: usize) -> bool {
        self.nodes[i].alive
    }

    /// Node `i`'s run ID, as sentinels report it.
    pub fn run_id(&self, i: usize) -> &str {
        &self.nodes[i].run_id
    }

    pub fn sentinels(&self) -> &Sentinels {
        &self.sentinels
    }

    /// A command from outside ran on a node: its writes leave on the links
    /// and roles are reconciled, as after any event.
    pub fn served_command(&mut self) {
        self.settle();
    }

    /// When something next happens by itself: a queued event (sentinel
    /// tick, link message, ack) or a live node's cron or client deadline.
    pub fn next_event_us(&self) -> Micros {
        let nodes = self.nodes.iter().filter(|n| n.alive).map(|n| {
            let cron = n.e.next_cron_us();
            n.e.next_block_deadline_us().map_or(cron, |d| d.min(cron))
        });
        nodes
            .chain(self.k.peek_at())
            .min()
            .unwrap_or(self.k.now() + crate::replication::sentinel::TICK_US)
    }

    /// What the sentinels did since the last call, with when.
    pub fn take_sentinel_events(&mut self) -> Vec<(Micros, SentinelEvent)> {
        self.sentinel_log
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }
}
