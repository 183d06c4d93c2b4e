//! The network as the sentinels of a replicated world see it, built from the host's engines and links: who is alive, which side of a partition each node and sentinel is on, and each node's `INFO replication`.

use super::link::ReplLinks;
use super::sentinel::{NodeInfo, SentinelNet};
use crate::kernel::Micros;
use redsim_engine::Engine;

/// One node as sentinels see it; its INFO is read from the engine when asked.
struct Seen<'a> {
    e: &'a Engine,
    alive: bool,
    /// The side of a partition it is on (`None`: the main side).
    zone: Option<usize>,
    /// The master it is configured to follow.
    follows: Option<usize>,
    link_down_us: u64,
    run_id: &'a str,
}

/// The network for one call into [`super::sentinel::Sentinels`].
pub struct NetView<'a> {
    nodes: Vec<Seen<'a>>,
    /// Sentinel `s` runs on node `s`'s machine (when there is one) and
    /// shares its side of a partition; otherwise every sentinel is on the
    /// main side.
    colocated: bool,
}

impl<'a> NetView<'a> {
    pub fn new(colocated: bool) -> NetView<'a> {
        NetView {
            nodes: Vec::new(),
            colocated,
        }
    }

    /// Adds the next node: its engine, whether it runs, whether it is cut
    /// off on its own, the master it is configured to follow and its run
    /// ID; `links` tells how long its link has been down at `now`.
    #[allow(clippy::too_many_arguments)]
    pub fn node(
        &mut self,
        e: &'a Engine,
        links: &ReplLinks,
        now: Micros,
        alive: bool,
        isolated: bool,
        follows: Option<usize>,
        run_id: &'a str,
    ) {
        let n = self.nodes.len();
        self.nodes.push(Seen {
            e,
            alive,
            zone: isolated.then_some(n),
            follows,
            link_down_us: links.down_for(n, now),
            run_id,
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

impl SentinelNet for NetView<'_> {
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
        let nd = &self.nodes[n];
        let r = nd.e.repl();
        NodeInfo {
            is_master: !r.is_replica(),
            master: if r.is_replica() { nd.follows } else { None },
            offset: r.offset,
            priority: nd.e.config().replica_priority,
            link_down_us: nd.link_down_us,
            run_id: nd.run_id.to_string(),
        }
    }
}
