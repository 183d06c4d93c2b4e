//! A simulated Redis Cluster: N master engines (and optional replicas fed by the real replication stream) on one virtual clock, each owning slot ranges, with a cluster bus cron (pings, PFAIL, failure reports, FAIL, replica elections and promotion), gossip of slot claims played instantly, slot migration by a modelled MIGRATE that stalls both nodes, load counters for a heat map, and a cluster-aware client that follows MOVED and ASK.
//!
//! Every node is a full [`Engine`] in cluster mode, so a node answers
//! exactly as the single-node server does: `-MOVED`, `-ASK`, `-TRYAGAIN`,
//! `-CROSSSLOT` and `-CLUSTERDOWN` come from the same `getNodeByQuery`.
//! What the real cluster does over its bus is done here by [`Cluster`]:
//! slot claims spread by config epoch between commands (as
//! `clusterUpdateSlotsConfigWith` does), and every 100 ms of virtual time a
//! cron step plays `clusterCron` for each live node: pings, PFAIL after
//! `cluster-node-timeout` without a pong, failure reports carried by the
//! gossip of pings, FAIL once a majority of masters reported it, and the
//! election of `clusterHandleSlaveFailover` (a delay of 500 ms, plus up to
//! 500 ms at random, plus 1 s per rank; one vote per master per epoch; a
//! majority of masters).
//! Replicas follow their master over the shared replication links
//! ([`crate::replication::link`]: the stream with a link delay, acks
//! back), so reads on a replica lag and writes not yet shipped die with
//! their master. The bus' cron steps and the links' messages run in time
//! order on the kernel's [`Queue`] (a cron step first at its instant).
//!
//! Time: each node serves one command at a time. A request sent at the
//! cluster's `now` starts when its node is free (`busy_until`), so a big
//! key's MIGRATE, which keeps source and target busy, delays what is sent
//! to either meanwhile; the delay shows in [`Sent::latency_us`].

mod bus;
mod client;
mod election;
mod migrate;
mod nodes;
mod served;
#[cfg(test)]
mod tests;

pub use client::{ClientStats, Hop, Outcome, SimClient};
pub use migrate::even_ranges;

use std::collections::{BTreeMap, BTreeSet};

use crate::kernel::{Dist, Micros, Queue};
use crate::replication::link::{Engines, LinkMsg, ReplLinks, Wire};
use crate::seeds;
use redsim_engine::cluster::{ManualFailover, Node};
use redsim_engine::engine::{ClientId, Engine, Options};
use redsim_engine::proto::resp::Frame;
use redsim_engine::server::config::Config;

/// Virtual time at which [`Cluster::new`] returns the cluster: booted, past
/// Redis' writable delay, its state OK.
pub const READY_US: u64 = 2_000_000;
/// `clusterCron` runs every 100 ms.
pub const CRON_US: u64 = 100_000;
/// `CLUSTER_FAIL_REPORT_VALIDITY_MULT`: a failure report lasts twice the node timeout.
const FAIL_REPORT_VALIDITY_MULT: i64 = 2;
/// `CLUSTER_FAIL_UNDO_TIME_MULT`: a master with slots stays FAIL at least this many node timeouts.
const FAIL_UNDO_TIME_MULT: i64 = 2;

/// What a modelled MIGRATE costs: a fixed round trip plus a time per byte
/// of the key's size, spent by both the source (DUMP, send, wait) and the
/// target (RESTORE) since MIGRATE is synchronous.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MigrateCost {
    pub base_us: u64,
    /// Nanoseconds per byte (10 ns: 100 MB/s).
    pub ns_per_byte: u64,
}

impl MigrateCost {
    /// Microseconds to move a key of `bytes`.
    pub fn of(&self, bytes: u64) -> u64 {
        self.base_us + bytes.saturating_mul(self.ns_per_byte) / 1000
    }
}

/// How to build a [`Cluster`].
#[derive(Clone, Debug)]
pub struct SimOptions {
    pub seed: u64,
    pub masters: usize,
    pub replicas_per_master: usize,
    /// Node `i` listens on `127.0.0.1:base_port + i` (bus port + 10000)...
    pub base_port: u16,
    /// ...unless ports are given here, one per node: a test cluster serves
    /// its nodes on free ports, which need not be consecutive.
    pub ports: Vec<u16>,
    /// What virtual instant 0 is in Unix µs (`None`: the engine's fixed
    /// epoch, for deterministic views; a served cluster passes the wall clock).
    pub unix_base_us: Option<u64>,
    /// Trace events each node keeps (0: off, as a served cluster runs).
    pub trace_capacity: usize,
    /// Configuration every node starts with (`cluster-enabled` is forced on).
    pub config: Config,
    pub migrate: MigrateCost,
    /// Service time of one command on a node, in µs.
    pub command_us: u64,
    /// One-way delay of a replication link (stream and acks), µs.
    pub repl_link_us: u64,
}

impl SimOptions {
    /// `masters` masters without replicas, Redis' default configuration.
    pub fn new(seed: u64, masters: usize) -> SimOptions {
        SimOptions {
            seed,
            masters,
            replicas_per_master: 0,
            base_port: 7000,
            ports: Vec::new(),
            unix_base_us: None,
            trace_capacity: Options::new(0).trace_capacity,
            config: Config::default(),
            migrate: MigrateCost {
                base_us: 200,
                ns_per_byte: 10,
            },
            command_us: 5,
            repl_link_us: 100,
        }
    }
}

/// Per-node counters for a heat map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeLoad {
    /// Commands the node executed.
    pub commands: u64,
    /// Microseconds requests waited for the node to be free.
    pub waited_us: u64,
    /// Microseconds the node spent in MIGRATE (as source or target).
    pub migrating_us: u64,
    pub keys_migrated_out: u64,
    pub keys_migrated_in: u64,
}

/// One node of the simulation.
pub struct SimNode {
    pub engine: Engine,
    /// `127.0.0.1:port`.
    pub addr: String,
    /// When the node is free again, in virtual µs.
    pub busy_until_us: u64,
    /// Down: requests to it fail as a refused connection would.
    pub down: bool,
    pub load: NodeLoad,
    /// The engine connection of each simulated client.
    conns: BTreeMap<u64, ClientId>,
    /// The connection the cluster's own administration uses.
    admin: ClientId,
    /// This replica's election (`failover_auth_*`).
    pub election: Election,
    /// A coordinated manual failover: the master's offset to reach.
    mf_master_offset: Option<u64>,
    /// A manual failover may start its election (`mf_can_start`).
    mf_can_start: bool,
    /// A master paused for a manual failover: writes wait until then (µs).
    pub paused_until_us: u64,
}

/// A replica's election state (`failover_auth_time`, `_sent`, `_rank`, `_epoch`, `_count`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Election {
    /// Unix ms when the vote request goes out (0: never scheduled).
    pub auth_time_ms: i64,
    pub sent: bool,
    pub rank: usize,
    pub epoch: u64,
    /// Masters that voted for it in `epoch`.
    pub votes: BTreeSet<usize>,
}

/// What the cluster bus did, for timelines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BusWhat {
    /// The node stopped (killed) or came back.
    Down,
    Up,
    /// This node's view flagged `of` PFAIL.
    Pfail {
        of: usize,
    },
    /// This node collected a majority of reports and broadcast FAIL about `of`.
    Fail {
        of: usize,
        reports: usize,
    },
    /// This node cleared `of`'s FAIL flag (it answered again).
    FailCleared {
        of: usize,
    },
    /// A replica scheduled its election.
    ElectionScheduled {
        rank: usize,
        delay_ms: i64,
    },
    /// A replica bumped the epoch and asked the masters for votes.
    VoteRequested {
        epoch: u64,
    },
    /// A master voted for `replica`.
    Voted {
        replica: usize,
        epoch: u64,
    },
    /// A replica won and took its master's slots.
    Promoted {
        epoch: u64,
        votes: usize,
    },
    /// An election gave up without a majority.
    ElectionExpired {
        epoch: u64,
        votes: usize,
    },
    /// The node became a replica of `master`.
    Demoted {
        master: usize,
    },
    /// A replica (re)synced from `master`.
    Synced {
        master: usize,
        full: bool,
    },
    /// `CLUSTER FAILOVER` accepted on this replica.
    ManualFailover {
        kind: ManualFailover,
    },
}

/// One event of the cluster bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusEvent {
    pub at_us: u64,
    pub node: usize,
    pub what: BusWhat,
}

/// A reply and when it was served.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    pub reply: Frame,
    pub node: usize,
    /// When the node started on it, and when it answered.
    pub start_us: u64,
    pub end_us: u64,
    /// From sending (the cluster's `now`) to the answer.
    pub latency_us: u64,
}

/// What moving one key cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigratedKey {
    pub key: Vec<u8>,
    pub bytes: u64,
    pub start_us: u64,
    pub end_us: u64,
}

/// What the bus schedules: its cron, and what the replication links carry.
enum BusEv {
    Cron,
    Link(LinkMsg),
}

/// The bus' queue and its randomness (ping targets, election delays).
struct Bus {
    queue: Queue<BusEv>,
    rng: fastrand::Rng,
}

impl Wire for Bus {
    fn post(&mut self, at: Micros, msg: LinkMsg) {
        self.queue.push(at, BusEv::Link(msg));
    }

    fn rng(&mut self) -> &mut fastrand::Rng {
        &mut self.rng
    }
}

impl Engines for [SimNode] {
    fn engine(&mut self, i: usize) -> &mut Engine {
        &mut self[i].engine
    }

    fn runs(&self, i: usize) -> bool {
        !self[i].down
    }
}

/// The whole simulated cluster.
pub struct Cluster {
    pub nodes: Vec<SimNode>,
    pub opts: SimOptions,
    now_us: u64,
    next_client: u64,
    /// Cron steps and messages in flight, in time order.
    bus: Bus,
    /// The replication link into each node.
    links: ReplLinks,
    /// When the next cron step runs, µs.
    next_cron_us: u64,
    cron_iteration: u64,
    /// Unix ms at virtual time 0.
    base_ms: i64,
    /// What the bus did, in order.
    pub events: Vec<BusEvent>,
    /// The time of what the bus is doing (a cron step, a message, a command), µs.
    bus_us: u64,
}

/// `127.0.0.1:port` of node `i`.
fn addr_of(opts: &SimOptions, i: usize) -> (String, u16) {
    let port = match opts.ports.get(i) {
        Some(&p) => p,
        None => opts.base_port.wrapping_add(i as u16),
    };
    ("127.0.0.1".to_string(), port)
}

impl Cluster {
    /// Builds the cluster as `redis-cli --cluster create` would: slots split
    /// evenly among the masters, config epochs 1..=masters, replicas
    /// assigned in order, every node knowing every other. Nodes boot at 0;
    /// the cluster is returned at 2 s, once Redis' writable delay has passed
    /// and the state is OK.
    pub fn new(opts: SimOptions) -> Cluster {
        let total = opts.masters * (1 + opts.replicas_per_master);
        let mut nodes = Vec::with_capacity(total);
        let mut config = opts.config.clone();
        config.cluster_enabled = true;
        for i in 0..total {
            let mut c = config.clone();
            let (_, port) = addr_of(&opts, i);
            c.port = port;
            let mut o = Options::new(seeds::cluster_node(opts.seed, i));
            o.config = c;
            o.trace_capacity = opts.trace_capacity;
            let mut engine = Engine::with_options(o);
            if let Some(base) = opts.unix_base_us {
                engine.set_unix_base_us(base);
            }
            let admin = engine.connect("cluster-admin");
            let (ip, port) = addr_of(&opts, i);
            nodes.push(SimNode {
                engine,
                addr: format!("{ip}:{port}"),
                busy_until_us: 0,
                down: false,
                load: NodeLoad::default(),
                conns: BTreeMap::new(),
                admin,
                election: Election::default(),
                mf_master_offset: None,
                mf_can_start: false,
                paused_until_us: 0,
            });
        }
        // The shared node table: each node's own id, the address it was met at.
        let mut table: Vec<Node> = nodes
            .iter()
            .map(|n| {
                let me = n.engine.cluster().expect("cluster mode");
                me.me().clone()
            })
            .collect();
        for (i, node) in table.iter_mut().enumerate() {
            let (ip, port) = addr_of(&opts, i);
            node.ip = ip;
            node.port = port;
            node.cport = port.wrapping_add(10000);
            if i < opts.masters {
                node.config_epoch = i as u64 + 1;
            } else {
                node.replica_of = Some((i - opts.masters) % opts.masters.max(1));
            }
        }
        // Replicas share their master's shard id.
        for i in opts.masters..total {
            if let Some(m) = table[i].replica_of {
                table[i].shard_id = table[m].shard_id.clone();
            }
        }
        let ranges = even_ranges(opts.masters);
        let base_ms = nodes.first().map_or(0, |n| {
            n.engine.unix_ms() - (n.engine.now_us() / 1000) as i64
        });
        for (i, n) in nodes.iter_mut().enumerate() {
            let cl = n.engine.cluster_bus().expect("cluster mode");
            cl.nodes = table.clone();
            cl.myself = i;
            cl.current_epoch = opts.masters as u64;
            for (m, (a, b)) in ranges.iter().enumerate() {
                for s in *a..=*b {
                    cl.slots[s as usize] = Some(m as u16);
                }
            }
            for node in &mut cl.nodes {
                node.pong_ms = base_ms;
            }
            cl.nodes[i].pong_ms = 0;
        }
        let link = Dist::fixed(opts.repl_link_us);
        let links = ReplLinks::new(nodes.iter().map(|n| (n.addr.clone(), link)));
        let mut queue = Queue::default();
        queue.timer(CRON_US, BusEv::Cron);
        let bus = Bus {
            queue,
            rng: fastrand::Rng::with_seed(seeds::salted(opts.seed, seeds::CLUSTER_BUS)),
        };
        let mut cluster = Cluster {
            nodes,
            opts,
            now_us: 0,
            // Above any id a caller of `send` would pick for its own connections.
            next_client: 1 << 32,
            bus,
            links,
            next_cron_us: CRON_US,
            cron_iteration: 0,
            base_ms,
            events: Vec::new(),
            bus_us: 0,
        };
        cluster.refresh_states();
        cluster.reconcile_replication();
        cluster.advance_to(READY_US);
        // Replicas attaching at boot are not news.
        cluster.events.clear();
        cluster
    }

    /// The cluster's virtual time, µs.
    pub fn now_us(&self) -> u64 {
        self.now_us
    }

    /// Moves every node's clock to `t_us`: the bus cron steps and the
    /// messages due on the way run in time order, then every engine's clock
    /// (and its own cron) catches up.
    pub fn advance_to(&mut self, t_us: u64) {
        self.now_us = self.now_us.max(t_us);
        self.run_due(self.now_us);
        for n in &mut self.nodes {
            n.engine.advance_to(self.now_us);
        }
        for i in 0..self.nodes.len() {
            self.ship(i, self.now_us);
        }
        self.refresh_states();
    }

    /// Moves only the cluster's own time (when the next request is sent);
    /// each node's clock catches up when it serves that request, and the bus
    /// cron steps due meanwhile run before it. Load loops sending thousands
    /// of requests use it because a full [`Cluster::advance_to`] re-checks
    /// every node's 16384-slot state.
    pub fn set_now(&mut self, t_us: u64) {
        self.now_us = self.now_us.max(t_us);
    }

    /// Moves time forward by `d_us`.
    pub fn advance_by(&mut self, d_us: u64) {
        self.advance_to(self.now_us + d_us);
    }

    /// Brings every node's `cluster_state` up to date.
    fn refresh_states(&mut self) {
        for n in &mut self.nodes {
            // The cluster's own changes (gossip, failures) bypass the commands.
            n.engine.cluster_refresh();
        }
    }

    /// Node `i`'s view of the cluster.
    pub fn view(&self, i: usize) -> &redsim_engine::cluster::ClusterState {
        self.nodes[i].engine.cluster().expect("cluster mode")
    }

    fn view_mut(&mut self, i: usize) -> &mut redsim_engine::cluster::ClusterState {
        self.nodes[i].engine.cluster_bus().expect("cluster mode")
    }

    /// The node listening on `addr` (`ip:port`).
    pub fn node_at(&self, addr: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.addr == addr)
    }

    /// Node `i`'s id.
    pub fn node_id(&self, i: usize) -> String {
        self.view(i).me().id.clone()
    }

    /// A new simulated connection identity, used by [`SimClient`].
    fn new_client_id(&mut self) -> u64 {
        let id = self.next_client;
        self.next_client += 1;
        id
    }

    /// Sends `args` to node `node` on simulated connection `conn` at the
    /// cluster's `now`: it waits for the node to be free (and, for a write,
    /// for a manual failover's pause to end), runs, and the node is busy for
    /// `command_us` more. What the command wrote leaves on the replication
    /// links when it answers; gossip runs afterwards if the command changed
    /// the topology.
    pub fn send(&mut self, node: usize, conn: u64, args: &[Vec<u8>]) -> Sent {
        let now = self.now_us;
        self.run_due(now);
        let cost = self.opts.command_us;
        if self.nodes[node].down {
            return Sent {
                reply: Frame::err(format!(
                    "ERR redsim: {} is down (connection refused)",
                    self.nodes[node].addr
                )),
                node,
                start_us: now,
                end_us: now,
                latency_us: 0,
            };
        }
        let write = args
            .first()
            .and_then(|a| redsim_engine::cmd::lookup(a))
            .is_some_and(|c| c.flags.contains(redsim_engine::cmd::Flags::WRITE));
        let mut start = now.max(self.nodes[node].busy_until_us);
        if write {
            start = self.wait_for_unpause(node, start);
        }
        let n = &mut self.nodes[node];
        let cid = match n.conns.get(&conn) {
            Some(&c) => c,
            None => {
                let c = n.engine.connect(&format!("sim-client-{conn}"));
                n.conns.insert(conn, c);
                c
            }
        };
        n.load.waited_us += start - now;
        n.engine.advance_to(start);
        let reply = n.engine.execute(cid, args);
        n.engine.before_sleep();
        n.load.commands += 1;
        let end = start + cost;
        n.busy_until_us = end;
        self.ship(node, end);
        if is_cluster_command(args) {
            self.gossip();
            self.take_manual_failover(node);
        }
        Sent {
            reply,
            node,
            start_us: start,
            end_us: end,
            latency_us: end - now,
        }
    }

    /// Runs a redis-cli style line on node `node` through its admin connection.
    pub fn admin(&mut self, node: usize, line: &str) -> Frame {
        let args = redsim_engine::proto::resp::split_args(line.as_bytes()).unwrap_or_default();
        self.run_due(self.now_us);
        let conn = self.nodes[node].admin;
        let n = &mut self.nodes[node];
        let at = self.now_us.max(n.busy_until_us);
        n.engine.advance_to(at);
        let reply = n.engine.execute(conn, &args);
        self.ship(node, at);
        if is_cluster_command(&args) {
            self.gossip();
            self.take_manual_failover(node);
        }
        reply
    }

    /// A write to a master paused by a manual failover waits: the bus runs
    /// until the pause ends (the failover completed or timed out). Returns
    /// when the command may start.
    fn wait_for_unpause(&mut self, node: usize, mut start: u64) -> u64 {
        while self.nodes[node].paused_until_us > start {
            let step = self.next_cron_us.min(self.nodes[node].paused_until_us);
            self.run_due(step);
            start = start.max(step);
        }
        start
    }

    /// Unix ms at the cluster's `now` (the clock every view's times use).
    pub fn now_ms(&self) -> i64 {
        self.ms_at(self.now_us)
    }

    fn ms_at(&self, t_us: u64) -> i64 {
        self.base_ms + (t_us / 1000) as i64
    }

    fn event(&mut self, node: usize, what: BusWhat) {
        self.events.push(BusEvent {
            at_us: self.bus_us,
            node,
            what,
        });
    }

    fn timeout_ms(&self, i: usize) -> i64 {
        self.nodes[i].engine.config().cluster_node_timeout
    }

    /// Runs, in time order, every cron step and every message due by `t_us`;
    /// the bus is then at `t_us` (or later, if a paused write ran it ahead).
    fn run_due(&mut self, t_us: u64) {
        self.run_until(t_us);
        self.bus_us = self.bus_us.max(t_us);
    }

    /// Runs the bus' events due by `t_us` in time order: cron steps (first
    /// at their instant) and the messages on the replication links.
    fn run_until(&mut self, t_us: u64) {
        while let Some((at, ev)) = self.bus.queue.pop_until(t_us) {
            self.bus_us = self.bus_us.max(at);
            match ev {
                BusEv::Cron => {
                    self.next_cron_us = at + CRON_US;
                    self.bus.queue.timer(self.next_cron_us, BusEv::Cron);
                    self.cron(at);
                }
                BusEv::Link(msg) => self.carry(at, msg),
            }
        }
    }

    /// The master whose stream node `i` receives over a live link.
    pub fn attached_to(&self, i: usize) -> Option<usize> {
        self.links.master(i)
    }
}

/// True for a `CLUSTER` subcommand that may change the topology (reads
/// such as CLUSTER SLOTS, which clients send often, need no gossip).
fn is_cluster_command(args: &[Vec<u8>]) -> bool {
    const CHANGES: [&[u8]; 13] = [
        b"addslots",
        b"addslotsrange",
        b"delslots",
        b"delslotsrange",
        b"flushslots",
        b"setslot",
        b"replicate",
        b"failover",
        b"bumpepoch",
        b"set-config-epoch",
        b"forget",
        b"meet",
        b"reset",
    ];
    args.first()
        .is_some_and(|a| a.eq_ignore_ascii_case(b"cluster"))
        && args
            .get(1)
            .is_some_and(|s| CHANGES.iter().any(|c| s.eq_ignore_ascii_case(c)))
}
