//! [`TestSentinel`]: a master, its replicas and its Sentinels served on loopback ports, so sentinel-aware clients (redis-py's `Sentinel`, redis-rs' sentinel client...) discover the master and follow a failover the test causes.

use std::net::SocketAddr;
use std::time::Duration;

use redsim_cli::{RunningServer, SentinelSetup};
use redsim_engine::Engine;
pub use redsim_sim::topology::{Control, TopoOptions, Topology};

use crate::Clock;

/// How to start a [`TestSentinel`].
#[derive(Clone, Debug)]
pub struct SentinelBuilder {
    master_name: String,
    topology: TopoOptions,
    seed: u64,
    clock: Clock,
}

impl SentinelBuilder {
    /// The name clients ask sentinels for (default `mymaster`).
    pub fn master_name(mut self, name: &str) -> SentinelBuilder {
        self.master_name = name.to_string();
        self
    }

    /// Replicas of the master, 1 to 4 (default 2).
    pub fn replicas(mut self, n: usize) -> SentinelBuilder {
        self.topology.replicas = n;
        self
    }

    /// Sentinels, 1 to 7 (default 3), and how many must agree the master
    /// is down (default 2).
    pub fn sentinels(mut self, n: usize, quorum: usize) -> SentinelBuilder {
        self.topology.sentinels = n;
        self.topology.quorum = quorum;
        self
    }

    /// `down-after-milliseconds` (default 2 s; Redis' own default, 30 s,
    /// makes for slow tests on the wall clock).
    pub fn down_after(mut self, d: Duration) -> SentinelBuilder {
        self.topology.down_after_ms = d.as_millis() as u64;
        self
    }

    /// `failover-timeout` (default 10 s).
    pub fn failover_timeout(mut self, d: Duration) -> SentinelBuilder {
        self.topology.failover_timeout_ms = d.as_millis() as u64;
        self
    }

    /// One-way delay of the replication links (default 1 ms).
    pub fn link_latency(mut self, d: Duration) -> SentinelBuilder {
        self.topology.link_latency_ms = d.as_secs_f64() * 1000.0;
        self
    }

    /// Seeds the engines and the sentinels' timers and elections.
    pub fn seed(mut self, seed: u64) -> SentinelBuilder {
        self.seed = seed;
        self
    }

    pub fn clock(mut self, clock: Clock) -> SentinelBuilder {
        self.clock = clock;
        self
    }

    /// Every other setting of the simulated topology (persistence,
    /// `min-replicas-to-write`, replica priorities...).
    pub fn topology(mut self, f: impl FnOnce(&mut TopoOptions)) -> SentinelBuilder {
        f(&mut self.topology);
        self
    }

    /// Starts the nodes and the sentinels, or says why it cannot.
    pub fn try_start(self) -> Result<TestSentinel, String> {
        let opts = crate::server_options(self.seed, self.clock, None, &[])?;
        let nodes = self.topology.replicas.clamp(1, 4) + 1;
        let setup = SentinelSetup {
            master_name: self.master_name.clone(),
            topology: self.topology,
            sentinel_port: 0,
        };
        let server =
            redsim_cli::spawn_sentinel(opts, setup).map_err(|e| format!("redsim sentinel: {e}"))?;
        Ok(TestSentinel {
            server,
            nodes,
            master_name: self.master_name,
        })
    }

    /// Starts them; panics with the reason if it cannot.
    pub fn start(self) -> TestSentinel {
        self.try_start().unwrap_or_else(|e| panic!("{e}"))
    }
}

/// A master (node 0 at first), its replicas and its Sentinels for one
/// test, stopped when dropped. The Redis nodes are full engines linked by
/// the replication stream; the sentinels follow sentinel.c's rules (pings,
/// SDOWN, ODOWN by quorum, leader election by epochs, replica selection,
/// promotion, repointing) on the server's clock. Each sentinel endpoint
/// answers `SENTINEL get-master-addr-by-name / masters / master / replicas
/// / sentinels / failover / ckquorum / myid`, `INFO`, `ROLE`, `PING` and
/// Pub/Sub, and publishes `+sdown`, `+odown`, `+try-failover`,
/// `+elected-leader`, `+promoted-slave`, `+switch-master`... as Redis'
/// sentinels do.
pub struct TestSentinel {
    server: RunningServer,
    nodes: usize,
    master_name: String,
}

impl TestSentinel {
    /// A master with two replicas watched by three sentinels (quorum 2).
    pub fn start() -> TestSentinel {
        Self::builder().start()
    }

    pub fn builder() -> SentinelBuilder {
        SentinelBuilder {
            master_name: "mymaster".into(),
            topology: TopoOptions {
                link_latency_ms: 1.0,
                ..TopoOptions::default()
            },
            seed: 0,
            clock: Clock::Wall,
        }
    }

    pub fn master_name(&self) -> &str {
        &self.master_name
    }

    /// The Redis nodes' addresses (node 0 is the first master).
    pub fn node_addrs(&self) -> &[SocketAddr] {
        &self.server.addrs()[..self.nodes]
    }

    /// The sentinels' addresses, what clients are given.
    pub fn sentinel_addrs(&self) -> &[SocketAddr] {
        &self.server.addrs()[self.nodes..]
    }

    /// Runs `f` on the simulated topology (its clock brought to now).
    pub fn with_topology<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Topology) -> R + Send + 'static,
    ) -> R {
        self.server
            .with_topology(f)
            .expect("the test sentinel setup is running")
    }

    /// Runs `f` on node `node`'s engine as it is.
    pub fn inspect_node<R: Send + 'static>(
        &self,
        node: usize,
        f: impl FnOnce(&Engine) -> R + Send + 'static,
    ) -> R {
        self.server
            .inspect_node(node, f)
            .expect("no such node, or the setup stopped")
    }

    /// The node the newest sentinel config names master.
    pub fn master(&self) -> usize {
        self.with_topology(|t| t.sentinels().announced(|_| true).unwrap_or(0))
    }

    /// Applies a topology control (kill, restart, partition, heal, pause a
    /// link, appendfsync, failover); the error says why it cannot.
    pub fn control(&self, c: Control) -> Result<(), String> {
        self.with_topology(move |t| t.control(c))
    }

    /// Node `i`'s process dies: its port refuses connections, its clients
    /// are cut off, and the sentinels find out by their pings.
    pub fn kill_node(&self, i: usize) {
        let _ = self.control(Control::Kill {
            node: i,
            power_loss: false,
        });
    }

    /// Node `i` starts again from what its files held.
    pub fn restart_node(&self, i: usize) {
        let _ = self.control(Control::Restart { node: i });
    }

    /// Moves the clock ahead by `by` (with a manual clock, the only way
    /// time passes).
    pub fn advance(&self, by: Duration) {
        self.server.advance(by);
    }

    /// Waits until `f` holds of the topology, checking every 10 ms of wall
    /// time; false if `timeout` passed first.
    pub fn wait_until(
        &self,
        timeout: Duration,
        f: impl Fn(&Topology) -> bool + Send + Clone + 'static,
    ) -> bool {
        crate::poll(timeout, || {
            let check = f.clone();
            self.with_topology(move |t| check(t))
        })
    }
}
