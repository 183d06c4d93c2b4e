//! [`TestCluster`]: a simulated Redis Cluster served to real cluster clients, each node an engine on its own loopback port, with the test holding the failures and the slot moves.

use std::net::SocketAddr;
use std::time::Duration;

use redsim_cli::RunningServer;
pub use redsim_engine::cluster::key_hash_slot;
use redsim_engine::Engine;
pub use redsim_sim::cluster::Cluster;

use crate::Clock;

/// How to start a [`TestCluster`].
#[derive(Clone, Debug)]
pub struct ClusterBuilder {
    masters: usize,
    replicas: usize,
    seed: u64,
    clock: Clock,
    config: Vec<(String, String)>,
}

impl ClusterBuilder {
    pub fn masters(mut self, n: usize) -> ClusterBuilder {
        self.masters = n;
        self
    }

    pub fn replicas_per_master(mut self, n: usize) -> ClusterBuilder {
        self.replicas = n;
        self
    }

    /// Seeds every node's engine and the cluster bus (election delays, ids).
    pub fn seed(mut self, seed: u64) -> ClusterBuilder {
        self.seed = seed;
        self
    }

    pub fn clock(mut self, clock: Clock) -> ClusterBuilder {
        self.clock = clock;
        self
    }

    /// A CONFIG parameter every node starts with, by its Redis name
    /// (`cluster-node-timeout`, `"1000"` makes failovers quick on the wall clock).
    pub fn config(mut self, name: &str, value: &str) -> ClusterBuilder {
        self.config.push((name.to_string(), value.to_string()));
        self
    }

    /// Starts the cluster, or says why it cannot.
    pub fn try_start(self) -> Result<TestCluster, String> {
        if self.masters == 0 {
            return Err("a cluster needs at least one master".into());
        }
        let opts = crate::server_options(self.seed, self.clock, None, &self.config)?;
        let server = redsim_cli::spawn_cluster(opts, self.masters, self.replicas)
            .map_err(|e| format!("redsim cluster: {e}"))?;
        Ok(TestCluster { server })
    }

    /// Starts the cluster; panics with the reason if it cannot.
    pub fn start(self) -> TestCluster {
        self.try_start().unwrap_or_else(|e| panic!("{e}"))
    }
}

/// A Redis Cluster for one test, stopped when dropped. Node `i` listens on
/// `addrs()[i]`: masters `0..masters`, then replicas, replica `masters + k`
/// following master `k % masters`. Slots are split evenly among the
/// masters, as `redis-cli --cluster create` splits them, and the cluster is
/// ready (state ok) when `start` returns.
///
/// The nodes are full engines in cluster mode: CLUSTER SLOTS, SHARDS and
/// NODES, MOVED, ASK, TRYAGAIN, CROSSSLOT and CLUSTERDOWN are what a real
/// cluster answers. The cluster bus is the simulation's (pings, PFAIL,
/// failure reports, FAIL, replica elections, gossip of slot owners), run on
/// the server's clock: a killed master fails over after
/// `cluster-node-timeout` plus the election delay, by wall time or at once
/// with a manual clock and [`TestCluster::advance`].
pub struct TestCluster {
    server: RunningServer,
}

impl TestCluster {
    /// `masters` masters with `replicas_per_master` replicas each, Redis'
    /// defaults, seed 0, the wall clock.
    pub fn start(masters: usize, replicas_per_master: usize) -> TestCluster {
        Self::builder()
            .masters(masters)
            .replicas_per_master(replicas_per_master)
            .start()
    }

    pub fn builder() -> ClusterBuilder {
        ClusterBuilder {
            masters: 3,
            replicas: 0,
            seed: 0,
            clock: Clock::Wall,
            config: Vec::new(),
        }
    }

    /// Every node's address, by node index.
    pub fn addrs(&self) -> &[SocketAddr] {
        self.server.addrs()
    }

    /// `redis://127.0.0.1:PORT` of every node, as cluster clients take seeds.
    pub fn urls(&self) -> Vec<String> {
        self.addrs()
            .iter()
            .map(|a| format!("redis://{a}"))
            .collect()
    }

    /// Runs `f` on the simulated cluster (its clock brought to now): the
    /// escape hatch for what the methods below don't cover.
    pub fn with_cluster<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Cluster) -> R + Send + 'static,
    ) -> R {
        self.server
            .with_cluster(f)
            .expect("the test cluster is running")
    }

    /// Runs `f` on node `node`'s engine as it is.
    pub fn inspect_node<R: Send + 'static>(
        &self,
        node: usize,
        f: impl FnOnce(&Engine) -> R + Send + 'static,
    ) -> R {
        self.server
            .inspect_node(node, f)
            .expect("no such node, or the cluster stopped")
    }

    /// The node serving `slot`, as the first live node sees it.
    pub fn master_of_slot(&self, slot: u16) -> Option<usize> {
        self.with_cluster(move |c| {
            let live = (0..c.nodes.len()).find(|&i| !c.is_down(i))?;
            c.view(live).owner(slot)
        })
    }

    /// The node serving `key`'s slot.
    pub fn master_of_key(&self, key: &str) -> Option<usize> {
        self.master_of_slot(key_hash_slot(key.as_bytes()))
    }

    /// The nodes that are masters with slots now, as the first live node sees it.
    pub fn masters(&self) -> Vec<usize> {
        self.with_cluster(|c| {
            let Some(live) = (0..c.nodes.len()).find(|&i| !c.is_down(i)) else {
                return Vec::new();
            };
            let view = c.view(live);
            (0..view.nodes.len())
                .filter(|&n| view.nodes[n].replica_of.is_none() && view.slot_count(n) > 0)
                .collect()
        })
    }

    /// Stops node `i` as a crashed process would: its port refuses
    /// connections and its clients are cut off. The other nodes find out
    /// through the bus; a master with replicas fails over.
    pub fn kill_node(&self, i: usize) {
        self.with_cluster(move |c| c.kill_node(i));
    }

    /// Brings node `i` back with its data; a master whose slots were taken
    /// over meanwhile comes back as a replica of the winner.
    pub fn restart_node(&self, i: usize) {
        self.with_cluster(move |c| c.restart_node(i));
    }

    /// Moves `slot` and its keys to master `to` (MIGRATING/IMPORTING, the
    /// keys, then SETSLOT NODE on both, as `redis-cli --cluster reshard`
    /// does); how many keys moved, or the error a node answered.
    pub fn migrate_slot(&self, slot: u16, to: usize) -> Result<usize, String> {
        self.with_cluster(move |c| {
            c.migrate_slot(slot, to)
                .map(|moved| moved.len())
                .map_err(|e| redsim_sim::kernel::reply_text(&e))
        })
    }

    /// Moves the clock ahead by `by`, running the bus' cron steps and every
    /// node's cron on the way (with a manual clock, the only way time passes).
    pub fn advance(&self, by: Duration) {
        self.server.advance(by);
    }

    /// Waits until `f` holds of the cluster, checking every 10 ms of wall
    /// time (with a manual clock nothing changes by itself: advance instead).
    /// False if `timeout` passed first.
    pub fn wait_until(
        &self,
        timeout: Duration,
        f: impl Fn(&Cluster) -> bool + Send + Clone + 'static,
    ) -> bool {
        crate::poll(timeout, || {
            let check = f.clone();
            self.with_cluster(move |c| check(c))
        })
    }
}
