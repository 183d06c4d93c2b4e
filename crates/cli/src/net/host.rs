//! What a server serves: one engine (`redsim server`), a simulated cluster (`redsim cluster`, `TestCluster`) whose every node is an engine on its own port with the cluster bus and replication links between them, or a replicated topology with its sentinels (`TestSentinel`).

use redsim_engine::proto::resp::Frame;
use redsim_engine::Engine;
use redsim_sim::cluster::Cluster;

use super::sentinel::SentinelHost;

/// The engines behind a server's listeners; node `i` answers on its own
/// addresses. A single server is node 0.
pub(crate) enum Host {
    Single(Box<Engine>),
    Cluster(Box<Cluster>),
    Sentinel(Box<SentinelHost>),
}

impl Host {
    pub fn engine(&self, node: usize) -> &Engine {
        match self {
            Host::Single(e) => e,
            Host::Cluster(c) => &c.nodes[node].engine,
            Host::Sentinel(h) => h.engine(node),
        }
    }

    pub fn engine_mut(&mut self, node: usize) -> &mut Engine {
        match self {
            Host::Single(e) => e,
            Host::Cluster(c) => &mut c.nodes[node].engine,
            Host::Sentinel(h) => h.engine_mut(node),
        }
    }

    pub fn nodes(&self) -> usize {
        match self {
            Host::Single(_) => 1,
            Host::Cluster(c) => c.nodes.len(),
            Host::Sentinel(h) => h.nodes(),
        }
    }

    /// A killed cluster node: its listeners close and clients are refused.
    pub fn is_down(&self, node: usize) -> bool {
        match self {
            Host::Single(e) => e.is_shut_down(),
            Host::Cluster(c) => c.is_down(node),
            Host::Sentinel(h) => h.is_down(node),
        }
    }

    /// Virtual time now, µs.
    pub fn now_us(&self) -> u64 {
        match self {
            Host::Single(e) => e.now_us(),
            Host::Cluster(c) => c.now_us(),
            Host::Sentinel(h) => h.now_us(),
        }
    }

    /// Brings `node` (and whatever drives it) to `now_us` before a command.
    pub fn catch_up(&mut self, node: usize, now_us: u64) {
        match self {
            Host::Single(e) => e.advance_to(now_us),
            Host::Cluster(c) => c.catch_up(node, now_us),
            Host::Sentinel(h) => h.advance_to(now_us),
        }
    }

    /// After a command ran on `node`: a cluster ships its writes to the
    /// node's replicas and gossips topology changes.
    pub fn served(&mut self, node: usize, args: &[Vec<u8>]) {
        match self {
            Host::Single(_) => {}
            Host::Cluster(c) => c.served(node, args),
            Host::Sentinel(h) => h.served(node),
        }
    }

    /// A reply the host gives instead of the node's engine (a sentinel
    /// endpoint's own commands); `None`: the engine runs the command.
    pub fn intercept(&mut self, node: usize, args: &[Vec<u8>]) -> Option<Frame> {
        if self.nodes() > 1 && args[0].eq_ignore_ascii_case(b"shutdown") {
            return Some(self.shutdown(node, args));
        }
        match self {
            Host::Sentinel(h) => h.intercept(node, args),
            _ => None,
        }
    }

    /// SHUTDOWN on a node of a served cluster or topology stops that node,
    /// as the process would exit: its port then refuses connections and the
    /// others find out (a test's way to kill a node from any client).
    /// Sentinels have no SHUTDOWN here. The caller closes the connection
    /// once it sees the node down; the reply is only for a refusal.
    fn shutdown(&mut self, node: usize, args: &[Vec<u8>]) -> Frame {
        let opts = args[1..]
            .iter()
            .map(|a| String::from_utf8_lossy(a).to_ascii_lowercase());
        for o in opts {
            if !matches!(o.as_str(), "nosave" | "save" | "now" | "force") {
                return Frame::err("ERR syntax error");
            }
        }
        match self {
            Host::Cluster(c) => c.kill_node(node),
            Host::Sentinel(h) => {
                if !h.kill_node(node) {
                    return redsim_engine::cmd::unknown_command(args);
                }
            }
            Host::Single(_) => {}
        }
        Frame::ok()
    }

    /// Moves everything to `now_us`, running what comes due on the way.
    pub fn advance_to(&mut self, now_us: u64) {
        match self {
            Host::Single(e) => e.advance_to(now_us),
            Host::Cluster(c) => c.advance_to(now_us),
            Host::Sentinel(h) => h.advance_to(now_us),
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
            Host::Sentinel(h) => h.next_due_us(),
        }
    }
}
