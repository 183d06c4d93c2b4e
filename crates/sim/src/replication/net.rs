//! The network as the sentinels of a replicated world see it, built from the host's engines and links: who is alive, which side of a partition each node and sentinel is on, and each node's `INFO replication`.

use super::link::ReplLinks;
use super::sentinel::{NodeInfo, SentinelNet};
use crate::kernel::Micros;
use redsim_engine::Engine;

/// One node as sentinels see it.
struct Seen {
    alive: bool,
    /// The side of a partition it is on (`None`: the main side).
    zone: Option<usize>,
    info: NodeInfo,
}

/// A snapshot of the network for one call into [`super::sentinel::Sentinels`].
pub struct NetView {
    nodes: Vec<Seen>,
    /// Sentinel `s` runs on node `s`'s machine (when there is one) and
    /// shares its side of a partition; otherwise every sentinel is on the
    /// main side.
    colocated: bool,
}

impl NetView {
    pub fn new(colocated: bool) -> NetView {
        NetView {
            nodes: Vec::new(),
            colocated,
        }
    }

    /// Adds the next node: whether it runs, whether it is cut off on its
    /// own, and what its engine reports. `follows` is the master it is
    /// configured to replicate from, `run_id` its run ID.
    #[allow(clippy::too_many_arguments)]
    pub fn node(
        &mut self,
        e: &Engine,
        links: &ReplLinks,
        now: Micros,
        alive: bool,
        isolated: bool,
        follows: Option<usize>,
        run_id: &str,
    ) {
        let n = self.nodes.len();
        let r = e.repl();
        let info = NodeInfo {
            is_master: !r.is_replica(),
            master: if r.is_replica() { follows } else { None },
            offset: r.offset,
            priority: e.config().replica_priority,
            link_down_us: links.down_for(n, now),
            run_id: run_id.to_string(),
        };
        self.nodes.push(Seen {
            alive,
            zone: isolated.then_some(n),
            info,
        });
    }

    /// The side of a partition sentinel `s` is on.
    pub fn sentinel_zone(&self, s: usize) -> Option<usize> {
        if self.colocated {
            self.nodes.get(s).and_then(|n| n.zone)
        } else {
            None
        }
    }
}

impl SentinelNet for NetView {
    fn nodes(&self) -> usize {
        self.nodes.len()
    }

    fn reaches_node(&self, s: usize, n: usize) -> bool {
        let nd = &self.nodes[n];
        nd.alive && nd.zone == self.sentinel_zone(s)
    }

    fn reaches_sentinel(&self, a: usize, b: usize) -> bool {
        self.sentinel_zone(a) == self.sentinel_zone(b)
    }

    fn info(&self, n: usize) -> NodeInfo {
        self.nodes[n].info.clone()
    }
}
