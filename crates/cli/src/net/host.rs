//! What a server serves: one engine (`redsim server`), or a simulated cluster (`redsim cluster`, `TestCluster`) whose every node is an engine on its own port, with the cluster bus and replication links between them.

use redsim_engine::Engine;
use redsim_sim::cluster::Cluster;

/// The engines behind a server's listeners; node `i` answers on its own
/// addresses. A single server is node 0.
pub(crate) enum Host {
    Single(Box<Engine>),
    Cluster(Box<Cluster>),
}

impl Host {
    pub fn engine(&self, node: usize) -> &Engine {
        match self {
            Host::Single(e) => e,
            Host::Cluster(c) => &c.nodes[node].engine,
        }
    }

    pub fn engine_mut(&mut self, node: usize) -> &mut Engine {
        match self {
            Host::Single(e) => e,
            Host::Cluster(c) => &mut c.nodes[node].engine,
        }
    }

    pub fn nodes(&self) -> usize {
        match self {
            Host::Single(_) => 1,
            Host::Cluster(c) => c.nodes.len(),
        }
    }

    /// A killed cluster node: its listeners close and clients are refused.
    pub fn is_down(&self, node: usize) -> bool {
        match self {
            Host::Single(_) => false,
            Host::Cluster(c) => c.is_down(node),
        }
    }

    /// Virtual time now, µs.
    pub fn now_us(&self) -> u64 {
        match self {
            Host::Single(e) => e.now_us(),
            Host::Cluster(c) => c.now_us(),
        }
    }

    /// Brings `node` (and whatever drives it) to `now_us` before a command.
    pub fn catch_up(&mut self, node: usize, now_us: u64) {
        match self {
            Host::Single(e) => e.advance_to(now_us),
            Host::Cluster(c) => c.catch_up(node, now_us),
        }
    }

    /// After a command ran on `node`: a cluster ships its writes to the
    /// node's replicas and gossips topology changes.
    pub fn served(&mut self, node: usize, args: &[Vec<u8>]) {
        if let Host::Cluster(c) = self {
            c.served(node, args);
        }
    }

    /// Moves everything to `now_us`, running what comes due on the way.
    pub fn advance_to(&mut self, now_us: u64) {
        match self {
            Host::Single(e) => e.advance_to(now_us),
            Host::Cluster(c) => c.advance_to(now_us),
        }
    }

    /// When something next happens by itself (a cron tick, a blocked
    /// client's deadline, a bus message), µs.
    pub fn next_due_us(&self) -> u64 {
        match self {
            Host::Single(e) => {
                let cron = e.next_cron_us();
                e.next_block_deadline_us().map_or(cron, |d| d.min(cron))
            }
            Host::Cluster(c) => c.next_event_us(),
        }
    }
}
