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
//! Replicas follow their master over the engine's replication stream
//! (`take_repl_stream` → a link delay → `apply_repl`, acks back), so reads
//! on a replica lag and writes not yet shipped die with their master.
//!
//! Time: each node serves one command at a time. A request sent at the
//! cluster's `now` starts when its node is free (`busy_until`), so a big
//! key's MIGRATE, which keeps source and target busy, delays what is sent
//! to either meanwhile; the delay shows in [`Sent::latency_us`].

use crate::seeds;
use std::collections::{BTreeMap, BTreeSet};

use redsim_engine::cluster::{key_hash_slot, ManualFailover, Node, SLOTS};
use redsim_engine::engine::{ClientId, Engine, Options};
use redsim_engine::proto::resp::Frame;
use redsim_engine::repl::ReplOp;
use redsim_engine::server::config::Config;

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
    /// Node `i` listens on `127.0.0.1:base_port + i` (bus port + 10000).
    pub base_port: u16,
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
    /// The master whose stream this node receives (a live, synced link).
    pub attached_to: Option<usize>,
    /// When the last stream bytes queued to this replica arrive (links are FIFO).
    last_arrival_us: u64,
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

/// A message in flight between nodes.
enum Ev {
    /// Replication stream from a master to a replica.
    Deliver {
        from: usize,
        to: usize,
        ops: Vec<ReplOp>,
    },
    /// `REPLCONF ACK` from a replica to its master.
    Ack { from: usize, to: usize, offset: u64 },
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

/// The whole simulated cluster.
pub struct Cluster {
    pub nodes: Vec<SimNode>,
    pub opts: SimOptions,
    now_us: u64,
    next_client: u64,
    /// Messages in flight, by (arrival µs, sequence).
    queue: BTreeMap<(u64, u64), Ev>,
    seq: u64,
    /// When the next cron step runs, µs.
    next_cron_us: u64,
    cron_iteration: u64,
    /// The bus' randomness (ping targets, election delays), from the seed.
    rng: fastrand::Rng,
    /// Unix ms at virtual time 0.
    base_ms: i64,
    /// What the bus did, in order.
    pub events: Vec<BusEvent>,
    /// The time of what the bus is doing (a cron step, a message, a command), µs.
    bus_us: u64,
}

/// `127.0.0.1:port` of node `i`.
fn addr_of(opts: &SimOptions, i: usize) -> (String, u16) {
    let port = opts.base_port.wrapping_add(i as u16);
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
            let mut engine = Engine::with_options(o);
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
                attached_to: None,
                last_arrival_us: 0,
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
        let rng = fastrand::Rng::with_seed(seeds::salted(opts.seed, seeds::CLUSTER_BUS));
        let mut cluster = Cluster {
            nodes,
            opts,
            now_us: 0,
            // Above any id a caller of `send` would pick for its own connections.
            next_client: 1 << 32,
            queue: BTreeMap::new(),
            seq: 0,
            next_cron_us: CRON_US,
            cron_iteration: 0,
            rng,
            base_ms,
            events: Vec::new(),
            bus_us: 0,
        };
        cluster.refresh_states();
        cluster.reconcile_replication();
        cluster.advance_to(2_000_000);
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
            .is_some_and(|c| c.has_flag("write"));
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

    /// The cluster bus, played instantly: every live master's slot claims
    /// reach every other node and win where their config epoch is higher
    /// than the current owner's (`clusterUpdateSlotsConfigWith`), skipping
    /// slots a node is importing. A master left with no slot after losing
    /// some becomes a replica of the winner. Equal epochs between masters
    /// are resolved as `clusterHandleConfigEpochCollision` does.
    pub fn gossip(&mut self) {
        let count = self.nodes.len();
        // Config epoch collisions: the node with the smaller id takes a new epoch.
        loop {
            let mut collided = None;
            'scan: for a in 0..count {
                for b in 0..count {
                    let (va, vb) = (self.view(a), self.view(b));
                    if a != b
                        && va.is_master()
                        && vb.is_master()
                        && va.me().config_epoch == vb.me().config_epoch
                        && va.me().id < vb.me().id
                        && !self.nodes[a].down
                        && !self.nodes[b].down
                    {
                        collided = Some(a);
                        break 'scan;
                    }
                }
            }
            let Some(a) = collided else { break };
            let top = (0..count)
                .map(|i| self.view(i).current_epoch)
                .max()
                .unwrap_or(0);
            let v = self.view_mut(a);
            v.current_epoch = top + 1;
            let me = v.myself;
            v.nodes[me].config_epoch = top + 1;
        }
        for a in 0..count {
            if self.nodes[a].down {
                continue;
            }
            let (claims, epoch, replica_of, current) = {
                let v = self.view(a);
                let claims: Vec<u16> = (0..SLOTS as u16)
                    .filter(|&s| v.owner(s) == Some(a))
                    .collect();
                (
                    claims,
                    v.me().config_epoch,
                    v.me().replica_of,
                    v.current_epoch,
                )
            };
            for b in 0..count {
                if b == a || self.nodes[b].down {
                    continue;
                }
                let mut lost_keys: Vec<u16> = Vec::new();
                {
                    let v = self.view_mut(b);
                    v.current_epoch = v.current_epoch.max(current);
                    v.nodes[a].config_epoch = epoch;
                    v.nodes[a].replica_of = replica_of;
                    if replica_of.is_some() {
                        continue;
                    }
                    // The master whose slots b serves: itself, or its master.
                    let mine = v.me().replica_of.unwrap_or(b);
                    let mut lost = false;
                    for &s in &claims {
                        if v.importing.contains_key(&s) {
                            continue;
                        }
                        let cur = v.owner(s);
                        if cur == Some(a) {
                            continue;
                        }
                        let wins = cur.is_none_or(|o| v.nodes[o].config_epoch < epoch);
                        if wins {
                            if cur == Some(mine) {
                                lost = true;
                                if mine == b {
                                    lost_keys.push(s);
                                }
                            }
                            v.slots[s as usize] = Some(a as u16);
                        }
                    }
                    // Left without slots, b (or its master) follows the
                    // winner (`clusterUpdateSlotsConfigWith`).
                    // Its data is then the new master's business (a resync).
                    if lost && v.slot_count(mine) == 0 {
                        let me_b = v.myself;
                        v.nodes[me_b].replica_of = Some(a);
                        lost_keys.clear();
                    }
                }
                // A master keeping other slots deletes the keys left in the
                // ones it lost (dirty slots).
                for s in lost_keys {
                    self.nodes[b].engine.del_keys_in_slot(s);
                }
            }
        }
        self.refresh_states();
    }

    /// Node `i` as if every other node had already flagged it FAIL (after
    /// `cluster-node-timeout` and the failure reports): the shortcut for
    /// what happens once a failure is known. [`Cluster::kill_node`] lets the
    /// bus find it out on the clock instead.
    pub fn fail_node(&mut self, i: usize) {
        self.kill_node(i);
        let now_ms = self.now_ms();
        for b in 0..self.nodes.len() {
            if b != i {
                let n = &mut self.view_mut(b).nodes[i];
                n.failed = true;
                n.pfail = false;
                n.fail_time_ms = now_ms;
            }
        }
        self.refresh_states();
    }

    /// Brings node `i` back and clears its FAIL flag everywhere at once (an
    /// operator's shortcut; [`Cluster::restart_node`] waits for the bus).
    pub fn recover_node(&mut self, i: usize) {
        self.restart_node(i);
        for b in 0..self.nodes.len() {
            if b != i {
                let n = &mut self.view_mut(b).nodes[i];
                n.failed = false;
                n.pfail = false;
            }
        }
        self.refresh_states();
    }

    /// Node `i` stops (a crashed process, a dead host): it answers nothing,
    /// its replication links drop, and its stream still on the wire is lost.
    /// The others find out through the bus' pings.
    pub fn kill_node(&mut self, i: usize) {
        self.run_due(self.now_us);
        if self.nodes[i].down {
            return;
        }
        self.nodes[i].down = true;
        self.event(i, BusWhat::Down);
        let addr = self.nodes[i].addr.clone();
        for r in 0..self.nodes.len() {
            if self.nodes[r].attached_to == Some(i) {
                self.nodes[r].attached_to = None;
                self.nodes[r].engine.master_link_down();
            }
        }
        if let Some(m) = self.nodes[i].attached_to.take() {
            self.nodes[m].engine.replica_gone(&addr);
        }
        self.refresh_states();
    }

    /// Node `i` comes back with the data it had (a resumed process, a healed
    /// link). It learns the current slot owners by gossip: a master whose
    /// slots were taken over becomes a replica of the winner and resyncs.
    pub fn restart_node(&mut self, i: usize) {
        self.run_due(self.now_us);
        if !self.nodes[i].down {
            return;
        }
        self.nodes[i].down = false;
        let now = self.now_us;
        let now_ms = self.now_ms();
        self.nodes[i].engine.advance_to(now);
        self.nodes[i].busy_until_us = now;
        // Its links are new: nothing is pending, everyone just answered.
        let me = self.view(i).myself;
        for (j, n) in self.view_mut(i).nodes.iter_mut().enumerate() {
            if j != me {
                n.ping_sent_ms = 0;
                n.pong_ms = now_ms;
            }
        }
        self.event(i, BusWhat::Up);
        // Twice: its own claims go out first, then it hears the winners'
        // and everyone hears its new role.
        self.gossip();
        self.gossip();
        self.reconcile_replication();
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

    fn run_until(&mut self, t_us: u64) {
        loop {
            let msg = self.queue.keys().next().map(|&(at, _)| at);
            let cron = self.next_cron_us;
            match msg {
                Some(at) if at <= t_us && at < cron => {
                    let Some((_, ev)) = self.queue.pop_first() else {
                        return;
                    };
                    self.bus_us = self.bus_us.max(at);
                    self.handle(at, ev);
                }
                _ if cron <= t_us => {
                    self.next_cron_us += CRON_US;
                    self.bus_us = self.bus_us.max(cron);
                    self.cron(cron);
                }
                _ => return,
            }
        }
    }

    fn push(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        self.queue.insert((at, self.seq), ev);
    }

    fn handle(&mut self, at: u64, ev: Ev) {
        match ev {
            Ev::Deliver { from, to, ops } => {
                // Stream of a dead master, or for a link since rebuilt, is lost.
                if self.nodes[from].down
                    || self.nodes[to].down
                    || self.nodes[to].attached_to != Some(from)
                {
                    return;
                }
                let r = &mut self.nodes[to].engine;
                r.advance_to(at);
                r.apply_repl(&ops);
                let offset = r.repl().offset;
                let link = self.opts.repl_link_us;
                self.push(
                    at + link,
                    Ev::Ack {
                        from: to,
                        to: from,
                        offset,
                    },
                );
            }
            Ev::Ack { from, to, offset } => {
                if self.nodes[to].down {
                    return;
                }
                let addr = self.nodes[from].addr.clone();
                let m = &mut self.nodes[to].engine;
                m.advance_to(at);
                m.replica_ack(&addr, offset);
            }
        }
    }

    /// Puts what node `from` wrote on the links to its attached replicas,
    /// leaving at `at` (FIFO per link).
    fn ship(&mut self, from: usize, at: u64) {
        if self.nodes[from].down {
            return;
        }
        let ops = self.nodes[from].engine.take_repl_stream();
        if ops.is_empty() {
            return;
        }
        let link = self.opts.repl_link_us;
        for to in 0..self.nodes.len() {
            if self.nodes[to].attached_to != Some(from) || self.nodes[to].down {
                continue;
            }
            let arrive = (at + link).max(self.nodes[to].last_arrival_us);
            self.nodes[to].last_arrival_us = arrive;
            self.push(
                arrive,
                Ev::Deliver {
                    from,
                    to,
                    ops: ops.clone(),
                },
            );
        }
    }

    /// Makes each live engine's replication role follow its view: a master
    /// in its view is promoted, a replica follows (PSYNC) the master its
    /// view names once that master is up.
    fn reconcile_replication(&mut self) {
        for i in 0..self.nodes.len() {
            if self.nodes[i].down {
                continue;
            }
            let want = self.view(i).me().replica_of;
            let is_replica = self.nodes[i].engine.repl().is_replica();
            match want {
                None => {
                    if is_replica {
                        self.nodes[i].engine.promote();
                    }
                    self.nodes[i].attached_to = None;
                }
                Some(m) => {
                    let (host, port) = {
                        let n = &self.view(i).nodes[m];
                        (n.ip.clone(), n.port)
                    };
                    let following = matches!(&self.nodes[i].engine.repl().role,
                        redsim_engine::repl::Role::Replica { host: h, port: p, .. } if *h == host && *p == port);
                    if !following {
                        if !is_replica {
                            // A master turned replica: clients paused by a
                            // manual failover are released (they get MOVED).
                            self.nodes[i].paused_until_us = 0;
                            self.event(i, BusWhat::Demoted { master: m });
                        }
                        self.nodes[i].engine.follow(&host, port);
                        self.nodes[i].attached_to = None;
                    }
                    if self.nodes[i].attached_to != Some(m) && !self.nodes[m].down {
                        self.attach(i, m);
                    }
                }
            }
        }
    }

    /// Replica `r` connects to `m`: PSYNC, then the partial or full sync
    /// (played instantly), and its first ack.
    fn attach(&mut self, r: usize, m: usize) {
        let at = self.bus_us;
        // What `m` wrote before belongs to the stream this sync covers.
        self.ship(m, at);
        self.nodes[m].engine.advance_to(at);
        self.nodes[r].engine.advance_to(at);
        let (id, off) = self.nodes[r].engine.psync_request();
        let addr = self.nodes[r].addr.clone();
        let sync = self.nodes[m].engine.psync(&addr, &id, off);
        let full = matches!(sync, redsim_engine::repl::Sync::Full { .. });
        self.nodes[r].engine.finish_sync(&sync);
        let offset = self.nodes[r].engine.repl().offset;
        self.nodes[m].engine.replica_ack(&addr, offset);
        self.nodes[r].attached_to = Some(m);
        self.nodes[r].last_arrival_us = at;
        self.event(r, BusWhat::Synced { master: m, full });
    }

    /// `clusterCron` for every live node at `t_us`, then the replication
    /// cron (periodic acks), then what changed spreads.
    fn cron(&mut self, t_us: u64) {
        self.cron_iteration += 1;
        let count = self.nodes.len();
        for n in &mut self.nodes {
            if !n.down {
                n.engine.advance_to(t_us);
            }
        }
        for i in 0..count {
            self.ship(i, t_us);
        }
        let now_ms = self.ms_at(t_us);
        let mut changed = false;
        let mut topology = false;
        for a in 0..count {
            if self.nodes[a].down {
                continue;
            }
            changed |= self.cron_pings(a, now_ms);
        }
        for r in 0..count {
            if self.nodes[r].down {
                continue;
            }
            topology |= self.manual_failover_step(r, t_us, now_ms);
            topology |= self.replica_failover(r, now_ms);
        }
        // `replicationCron`: replicas ack once a second.
        if self.cron_iteration.is_multiple_of(10) {
            for r in 0..count {
                if let (Some(m), false) = (self.nodes[r].attached_to, self.nodes[r].down) {
                    let offset = self.nodes[r].engine.repl().offset;
                    let link = self.opts.repl_link_us;
                    self.push(
                        t_us + link,
                        Ev::Ack {
                            from: r,
                            to: m,
                            offset,
                        },
                    );
                }
            }
        }
        if topology {
            self.gossip();
            self.reconcile_replication();
        } else if changed {
            self.refresh_states();
        }
    }

    /// One node's pings (`clusterCron`): every second a ping to the node
    /// with the oldest pong among five random ones, and a ping to any node
    /// whose pong is older than half the node timeout; a pending ping older
    /// than the node timeout flags its node PFAIL. A live node answers at
    /// once; ping and pong carry the sender's PFAIL/FAIL opinions (gossip).
    fn cron_pings(&mut self, a: usize, now_ms: i64) -> bool {
        let count = self.nodes.len();
        let timeout = self.timeout_ms(a);
        let mut targets = BTreeSet::new();
        if self.cron_iteration.is_multiple_of(10) && count > 1 {
            let mut best: Option<(i64, usize)> = None;
            for _ in 0..5 {
                let b = self.rng.usize(..count);
                let n = &self.view(a).nodes[b];
                if b == a || n.ping_sent_ms != 0 {
                    continue;
                }
                if best.is_none_or(|(p, _)| n.pong_ms < p) {
                    best = Some((n.pong_ms, b));
                }
            }
            targets.extend(best.map(|(_, b)| b));
        }
        for b in 0..count {
            let n = &self.view(a).nodes[b];
            // A pong older than half the timeout asks for a ping; a ping
            // pending that long drops the link, and each cron reconnects it
            // and pings again (the pending ping's time is kept).
            let due = if n.ping_sent_ms == 0 {
                now_ms - n.pong_ms > timeout / 2
            } else {
                now_ms - n.ping_sent_ms > timeout / 2
            };
            if b != a && due {
                targets.insert(b);
            }
        }
        let mut changed = false;
        for b in targets {
            changed |= self.ping(a, b, now_ms);
        }
        for b in 0..count {
            let n = &mut self.view_mut(a).nodes[b];
            if b != a
                && n.ping_sent_ms != 0
                && now_ms - n.ping_sent_ms > timeout
                && !n.pfail
                && !n.failed
            {
                n.pfail = true;
                changed = true;
                self.event(a, BusWhat::Pfail { of: b });
            }
        }
        changed
    }

    /// `a` pings `b`: a dead `b` leaves the ping pending; a live one answers,
    /// and each side learns the other's failure opinions.
    fn ping(&mut self, a: usize, b: usize, now_ms: i64) -> bool {
        if self.nodes[b].down {
            let n = &mut self.view_mut(a).nodes[b];
            if n.ping_sent_ms == 0 {
                n.ping_sent_ms = now_ms;
            }
            return false;
        }
        let mut changed = false;
        {
            let n = &mut self.view_mut(a).nodes[b];
            n.ping_sent_ms = 0;
            n.pong_ms = now_ms;
            if n.pfail {
                n.pfail = false;
                changed = true;
            }
        }
        changed |= self.clear_failure_if_needed(a, b, now_ms);
        changed |= self.receive_gossip(b, a, now_ms);
        changed |= self.receive_gossip(a, b, now_ms);
        changed
    }

    /// `clearNodeFailureIfNeeded`: `a` heard from `b`, flagged FAIL. A
    /// replica or a master without slots is cleared at once; a master with
    /// slots only after twice the node timeout (nobody took them over).
    fn clear_failure_if_needed(&mut self, a: usize, b: usize, now_ms: i64) -> bool {
        let timeout = self.timeout_ms(a);
        let v = self.view(a);
        let n = &v.nodes[b];
        if !n.failed {
            return false;
        }
        let serving = n.replica_of.is_none() && v.slot_count(b) > 0;
        if serving && now_ms - n.fail_time_ms <= timeout * FAIL_UNDO_TIME_MULT {
            return false;
        }
        self.view_mut(a).nodes[b].failed = false;
        self.event(a, BusWhat::FailCleared { of: b });
        true
    }

    /// `to` receives a packet from `from` whose gossip names every node
    /// `from` flags PFAIL or FAIL (7.2 adds all PFAIL nodes to each ping).
    /// A master's word adds or refreshes a failure report; its silence
    /// about a node removes its report (`clusterProcessGossipSection`).
    fn receive_gossip(&mut self, to: usize, from: usize, now_ms: i64) -> bool {
        if self.view(to).nodes[from].replica_of.is_some() {
            return false;
        }
        let count = self.nodes.len();
        let mut changed = false;
        for x in 0..count {
            if x == to || x == from {
                continue;
            }
            let suspects = {
                let n = &self.view(from).nodes[x];
                n.pfail || n.failed
            };
            let reports = &mut self.view_mut(to).nodes[x].fail_reports;
            if suspects {
                match reports.iter_mut().find(|(r, _)| *r == from) {
                    Some(r) => r.1 = now_ms,
                    None => reports.push((from, now_ms)),
                }
                changed |= self.mark_failing_if_needed(to, x, now_ms);
            } else {
                reports.retain(|(r, _)| *r != from);
            }
        }
        changed
    }

    /// `markNodeAsFailingIfNeeded`: `me` flags `x` FAIL when it sees it
    /// PFAIL and a majority of the masters (itself included if a master)
    /// reported it within the validity window, then broadcasts FAIL.
    fn mark_failing_if_needed(&mut self, me: usize, x: usize, now_ms: i64) -> bool {
        let validity = self.timeout_ms(me) * FAIL_REPORT_VALIDITY_MULT;
        let v = self.view_mut(me);
        let quorum = v.size / 2 + 1;
        let n = &mut v.nodes[x];
        if !n.pfail || n.failed {
            return false;
        }
        n.fail_reports.retain(|&(_, t)| now_ms - t <= validity);
        let mut failures = n.fail_reports.len();
        if v.is_master() {
            failures += 1;
        }
        if failures < quorum {
            return false;
        }
        self.event(
            me,
            BusWhat::Fail {
                of: x,
                reports: failures,
            },
        );
        // `clusterSendFail`: every node reachable flags it too.
        for b in 0..self.nodes.len() {
            if b == x || self.nodes[b].down {
                continue;
            }
            let n = &mut self.view_mut(b).nodes[x];
            if !n.failed {
                n.failed = true;
                n.pfail = false;
                n.fail_time_ms = now_ms;
            }
        }
        true
    }

    /// A replica's rank (`clusterGetSlaveRank`): replicas of the same master
    /// with a larger replication offset go first.
    fn rank(&self, r: usize, m: usize) -> usize {
        let mine = self.nodes[r].engine.repl().offset;
        self.view(r)
            .replicas_of(m)
            .into_iter()
            .filter(|&j| {
                j != r && !self.view(r).nodes[j].failed && self.nodes[j].engine.repl().offset > mine
            })
            .count()
    }

    /// `clusterHandleSlaveFailover` for node `r`; true when it was promoted.
    fn replica_failover(&mut self, r: usize, now_ms: i64) -> bool {
        let Some(m) = self.view(r).me().replica_of else {
            return false;
        };
        let manual = self.nodes[r].mf_can_start;
        let master_failed = self.view(r).nodes[m].failed;
        if (!master_failed && !manual) || self.view(r).slot_count(m) == 0 {
            return false;
        }
        let timeout = self.timeout_ms(r);
        let auth_timeout = (timeout * 2).max(2000);
        let auth_retry = auth_timeout * 2;
        let auth_age = now_ms - self.nodes[r].election.auth_time_ms;
        if auth_age > auth_retry {
            let (rank, delay) = if manual {
                (0, 0)
            } else {
                let rank = self.rank(r, m);
                (rank, 500 + self.rng.i64(0..500) + rank as i64 * 1000)
            };
            self.nodes[r].election = Election {
                auth_time_ms: now_ms + delay,
                sent: false,
                rank,
                epoch: 0,
                votes: BTreeSet::new(),
            };
            self.event(
                r,
                BusWhat::ElectionScheduled {
                    rank,
                    delay_ms: delay,
                },
            );
            return false;
        }
        if !self.nodes[r].election.sent && !manual {
            let rank = self.rank(r, m);
            let e = &mut self.nodes[r].election;
            if rank > e.rank {
                e.auth_time_ms += (rank - e.rank) as i64 * 1000;
                e.rank = rank;
            }
        }
        if now_ms < self.nodes[r].election.auth_time_ms {
            return false;
        }
        if auth_age > auth_timeout {
            if self.nodes[r].election.sent {
                let e = &mut self.nodes[r].election;
                let (epoch, votes) = (e.epoch, e.votes.len());
                e.sent = false;
                e.epoch = 0;
                self.event(r, BusWhat::ElectionExpired { epoch, votes });
            }
            return false;
        }
        if !self.nodes[r].election.sent {
            let v = self.view_mut(r);
            v.current_epoch += 1;
            let epoch = v.current_epoch;
            self.nodes[r].election.sent = true;
            self.nodes[r].election.epoch = epoch;
            self.event(r, BusWhat::VoteRequested { epoch });
            self.request_votes(r, m, now_ms, manual);
        }
        let needed = self.view(r).size / 2 + 1;
        if self.nodes[r].election.votes.len() >= needed {
            let votes = self.nodes[r].election.votes.len();
            let epoch = self.nodes[r].election.epoch;
            self.replace_master(r, m, Some(epoch));
            self.event(r, BusWhat::Promoted { epoch, votes });
            return true;
        }
        false
    }

    /// `clusterRequestFailoverAuth` and each master's
    /// `clusterSendFailoverAuthIfNeeded`.
    fn request_votes(&mut self, r: usize, m: usize, now_ms: i64, force_ack: bool) {
        let req_epoch = self.view(r).current_epoch;
        let req_config = self.view(r).nodes[m].config_epoch;
        let claimed: Vec<u16> = (0..SLOTS as u16)
            .filter(|&s| self.view(r).owner(s) == Some(m))
            .collect();
        for v in 0..self.nodes.len() {
            if v == r || self.nodes[v].down {
                continue;
            }
            let timeout = self.timeout_ms(v);
            let view = self.view_mut(v);
            // Any packet with a greater epoch updates the receiver's.
            view.current_epoch = view.current_epoch.max(req_epoch);
            if !view.is_master() || view.slot_count(view.myself) == 0 {
                continue;
            }
            if req_epoch < view.current_epoch || view.last_vote_epoch == view.current_epoch {
                continue;
            }
            let Some(vm) = view.nodes[r].replica_of else {
                continue;
            };
            if !view.nodes[vm].failed && !force_ack {
                continue;
            }
            if now_ms - view.nodes[vm].voted_ms < timeout * 2 {
                continue;
            }
            if claimed.iter().any(|&s| {
                view.owner(s)
                    .is_some_and(|o| view.nodes[o].config_epoch > req_config)
            }) {
                continue;
            }
            view.last_vote_epoch = view.current_epoch;
            view.nodes[vm].voted_ms = now_ms;
            self.nodes[r].election.votes.insert(v);
            self.event(
                v,
                BusWhat::Voted {
                    replica: r,
                    epoch: req_epoch,
                },
            );
        }
    }

    /// `clusterFailoverReplaceYourMaster`: `r` becomes a master holding
    /// `m`'s slots under `epoch` (or a new epoch taken without consensus).
    fn replace_master(&mut self, r: usize, m: usize, epoch: Option<u64>) {
        let v = self.view_mut(r);
        let me = v.myself;
        v.nodes[me].replica_of = None;
        match epoch {
            Some(e) => {
                if v.nodes[me].config_epoch < e {
                    v.nodes[me].config_epoch = e;
                }
            }
            None => {
                v.bump_epoch();
            }
        }
        for s in v.slots.iter_mut() {
            if *s == Some(m as u16) {
                *s = Some(me as u16);
            }
        }
        v.manual_failover = None;
        v.dirty = true;
        let n = &mut self.nodes[r];
        n.election = Election::default();
        n.mf_can_start = false;
        n.mf_master_offset = None;
        n.engine.promote();
        n.attached_to = None;
    }

    /// Starts a manual failover `CLUSTER FAILOVER` just accepted on `r`:
    /// TAKEOVER replaces the master at once; FORCE may start its election;
    /// the default asks the master to pause writes and report its offset.
    fn take_manual_failover(&mut self, r: usize) {
        let Some((kind, _)) = self.view(r).manual_failover else {
            return;
        };
        if self.nodes[r].mf_can_start || self.nodes[r].mf_master_offset.is_some() {
            return;
        }
        let Some(m) = self.view(r).me().replica_of else {
            return;
        };
        self.event(r, BusWhat::ManualFailover { kind });
        match kind {
            ManualFailover::Takeover => {
                self.replace_master(r, m, None);
                self.gossip();
                self.reconcile_replication();
            }
            ManualFailover::Force => self.nodes[r].mf_can_start = true,
            ManualFailover::Coordinated => {
                let at = self.bus_us;
                self.ship(m, at);
                let mf_ms = redsim_engine::cmd::cluster::MF_TIMEOUT_MS as u64;
                self.nodes[m].paused_until_us = at + mf_ms * 1000;
                let offset = self.nodes[m].engine.repl().offset;
                self.nodes[r].mf_master_offset = Some(offset);
            }
        }
    }

    /// The manual failover's part of the cron: it gives up at its deadline;
    /// a coordinated one may start once the replica has the master's offset.
    fn manual_failover_step(&mut self, r: usize, t_us: u64, now_ms: i64) -> bool {
        let Some((_, deadline)) = self.view(r).manual_failover else {
            return false;
        };
        if now_ms > deadline {
            self.view_mut(r).manual_failover = None;
            let n = &mut self.nodes[r];
            n.mf_can_start = false;
            n.mf_master_offset = None;
            n.election = Election::default();
            if let Some(m) = self.view(r).me().replica_of {
                if self.nodes[m].paused_until_us > t_us {
                    self.nodes[m].paused_until_us = t_us;
                }
            }
            return false;
        }
        if let Some(off) = self.nodes[r].mf_master_offset {
            if self.nodes[r].engine.repl().offset == off {
                self.nodes[r].mf_can_start = true;
            }
        }
        false
    }

    /// Starts moving `slot` to master `to` (`redis-cli --cluster reshard`'s
    /// first steps): SETSLOT IMPORTING on the target, MIGRATING on the source.
    pub fn begin_migration(&mut self, slot: u16, to: usize) -> Result<usize, Frame> {
        let from = self
            .view(to)
            .owner(slot)
            .ok_or_else(|| Frame::err("ERR slot has no owner"))?;
        let (from_id, to_id) = (self.node_id(from), self.node_id(to));
        let r = self.admin(to, &format!("CLUSTER SETSLOT {slot} IMPORTING {from_id}"));
        if r.is_error() {
            return Err(r);
        }
        let r = self.admin(from, &format!("CLUSTER SETSLOT {slot} MIGRATING {to_id}"));
        if r.is_error() {
            return Err(r);
        }
        Ok(from)
    }

    /// Moves up to `count` keys of `slot` from its migrating source to the
    /// importing target, one modelled MIGRATE each, in GETKEYSINSLOT order.
    pub fn migrate_keys(&mut self, slot: u16, count: usize) -> Vec<MigratedKey> {
        let Some((from, to)) = self.migration_of(slot) else {
            return Vec::new();
        };
        let keys = self.nodes[from].engine.keys_in_slot(slot);
        keys.into_iter()
            .take(count)
            .filter_map(|k| self.migrate_key(from, to, &k))
            .collect()
    }

    /// `(source, target)` of a slot being migrated.
    pub fn migration_of(&self, slot: u16) -> Option<(usize, usize)> {
        (0..self.nodes.len()).find_map(|i| self.view(i).migrating.get(&slot).map(|&to| (i, to)))
    }

    /// The modelled MIGRATE of one key: from the moment both nodes are
    /// free, both are busy for the key's transfer time; the key leaves the
    /// source and lands on the target (TTL kept) when it ends.
    pub fn migrate_key(&mut self, from: usize, to: usize, key: &[u8]) -> Option<MigratedKey> {
        let start = self
            .now_us
            .max(self.nodes[from].busy_until_us)
            .max(self.nodes[to].busy_until_us);
        for i in [from, to] {
            self.nodes[i].engine.advance_to(start);
        }
        let dump = self.nodes[from].engine.dump_key(0, key)?;
        let bytes = dump.bytes;
        let end = start + self.opts.migrate.of(bytes);
        for i in [from, to] {
            let n = &mut self.nodes[i];
            n.busy_until_us = end;
            n.load.migrating_us += end - start;
            n.engine.advance_to(end);
        }
        self.nodes[from].engine.delete_key(0, key);
        self.nodes[to].engine.restore_key(0, key, dump);
        self.nodes[from].load.keys_migrated_out += 1;
        self.nodes[to].load.keys_migrated_in += 1;
        Some(MigratedKey {
            key: key.to_vec(),
            bytes,
            start_us: start,
            end_us: end,
        })
    }

    /// Ends a slot's migration as `redis-cli` does: SETSLOT NODE on the
    /// target (which takes a new epoch), then the source, then every other
    /// master; gossip spreads the new owner.
    pub fn finish_migration(&mut self, slot: u16) -> Result<(), Frame> {
        let Some((from, to)) = self.migration_of(slot) else {
            return Err(Frame::err("ERR slot is not being migrated"));
        };
        let to_id = self.node_id(to);
        let line = format!("CLUSTER SETSLOT {slot} NODE {to_id}");
        for i in [to, from] {
            let r = self.admin(i, &line);
            if r.is_error() {
                return Err(r);
            }
        }
        for i in 0..self.opts.masters {
            if i != to && i != from && !self.nodes[i].down {
                self.admin(i, &line);
            }
        }
        Ok(())
    }

    /// Moves a whole slot to master `to`; returns what each key cost.
    pub fn migrate_slot(&mut self, slot: u16, to: usize) -> Result<Vec<MigratedKey>, Frame> {
        self.begin_migration(slot, to)?;
        let mut moved = Vec::new();
        loop {
            let batch = self.migrate_keys(slot, 10);
            if batch.is_empty() {
                break;
            }
            moved.extend(batch);
        }
        self.finish_migration(slot)?;
        Ok(moved)
    }

    /// Keys per slot on node `i` (database 0), for a heat map.
    pub fn keys_per_slot(&self, i: usize) -> BTreeMap<u16, usize> {
        let mut out = BTreeMap::new();
        for k in self.nodes[i].engine.keys(0) {
            *out.entry(key_hash_slot(k)).or_insert(0) += 1;
        }
        out
    }

    /// Keyed commands served per slot on node `i`.
    pub fn slot_hits(&self, i: usize) -> &BTreeMap<u16, u64> {
        &self.view(i).slot_hits
    }

    /// A new cluster-aware client with an empty slot map.
    pub fn client(&mut self) -> SimClient {
        SimClient {
            conn: self.new_client_id(),
            slots: vec![None; SLOTS],
            stats: ClientStats::default(),
            max_redirects: 16,
        }
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

/// `redis-cli --cluster create`'s split of the slots among `masters`.
pub fn even_ranges(masters: usize) -> Vec<(u16, u16)> {
    if masters == 0 {
        return Vec::new();
    }
    let per = SLOTS as f64 / masters as f64;
    let mut out = Vec::with_capacity(masters);
    let mut first = 0usize;
    let mut cursor = 0f64;
    for m in 0..masters {
        let mut last = (cursor + per - 1.0).round() as usize;
        if last >= SLOTS || m == masters - 1 {
            last = SLOTS - 1;
        }
        out.push((first as u16, last as u16));
        first = last + 1;
        cursor += per;
    }
    out
}

/// What a [`SimClient`] went through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    pub commands: u64,
    pub moved: u64,
    pub ask: u64,
    pub tryagain: u64,
    /// Slot map reloads (CLUSTER SLOTS).
    pub refreshes: u64,
    /// Commands sent to a node that was down.
    pub refused: u64,
}

/// A cluster-aware client, as redis-py's or Jedis': it caches the slot map
/// from CLUSTER SLOTS, sends each command to the slot's owner, reloads the
/// map on MOVED and follows ASK with ASKING once.
pub struct SimClient {
    conn: u64,
    /// Owner of each slot as last learned.
    pub slots: Vec<Option<usize>>,
    pub stats: ClientStats,
    pub max_redirects: usize,
}

/// A command's outcome through a [`SimClient`].
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub reply: Frame,
    /// The node that gave the final reply.
    pub node: usize,
    /// MOVED and ASK followed for this command.
    pub redirects: u32,
    /// From the first send to the final reply.
    pub latency_us: u64,
}

impl SimClient {
    /// Loads the slot map from node `from` (CLUSTER SLOTS).
    pub fn refresh(&mut self, cluster: &mut Cluster, from: usize) {
        self.stats.refreshes += 1;
        let sent = cluster.send(from, self.conn, &[b"CLUSTER".to_vec(), b"SLOTS".to_vec()]);
        let Frame::Array(ranges) = sent.reply else {
            return;
        };
        self.slots.iter_mut().for_each(|s| *s = None);
        for r in ranges {
            let Frame::Array(parts) = r else { continue };
            let (Some(Frame::Integer(a)), Some(Frame::Integer(b)), Some(Frame::Array(master))) =
                (parts.first(), parts.get(1), parts.get(2))
            else {
                continue;
            };
            let (Some(Frame::Bulk(ip)), Some(Frame::Integer(port))) =
                (master.first(), master.get(1))
            else {
                continue;
            };
            let addr = format!("{}:{port}", String::from_utf8_lossy(ip));
            let Some(node) = cluster.node_at(&addr) else {
                continue;
            };
            for s in (*a).max(0)..=(*b).min(SLOTS as i64 - 1) {
                self.slots[s as usize] = Some(node);
            }
        }
    }

    /// Runs one command: to the owner of its first key's slot (node 0 for
    /// keyless commands or unknown slots), following redirections.
    pub fn run(&mut self, cluster: &mut Cluster, args: &[Vec<u8>]) -> Outcome {
        self.stats.commands += 1;
        let slot = args
            .first()
            .and_then(|a| redsim_engine::cmd::lookup(a))
            .map(|cmd| {
                let cmd = match args.get(1) {
                    Some(w) if !cmd.subcommands.is_empty() => cmd.subcommand(w).unwrap_or(cmd),
                    _ => cmd,
                };
                redsim_engine::cmd::cluster::key_positions(cmd, args)
            })
            .and_then(|keys| keys.first().map(|&p| key_hash_slot(&args[p])));
        let mut node = slot.and_then(|s| self.slots[s as usize]).unwrap_or(0);
        let mut asking = false;
        let mut redirects = 0;
        let start = cluster.now_us();
        loop {
            if asking {
                cluster.send(node, self.conn, &[b"ASKING".to_vec()]);
            }
            let sent = cluster.send(node, self.conn, args);
            let outcome = |reply: Frame, redirects| Outcome {
                reply,
                node,
                redirects,
                latency_us: sent.end_us - start,
            };
            let Frame::Error(msg) = &sent.reply else {
                return outcome(sent.reply, redirects);
            };
            let mut words = msg.split(' ');
            let (kind, slot_word, addr) = (words.next(), words.next(), words.next());
            let target = addr.and_then(|a| cluster.node_at(a));
            let slot_no = slot_word.and_then(|w| w.parse::<usize>().ok());
            match (kind, target, slot_no) {
                (Some("MOVED"), Some(t), Some(s)) if redirects < self.max_redirects as u32 => {
                    self.stats.moved += 1;
                    redirects += 1;
                    if let Some(slot) = self.slots.get_mut(s) {
                        *slot = Some(t);
                    }
                    self.refresh(cluster, t);
                    node = t;
                    asking = false;
                }
                (Some("ASK"), Some(t), Some(_)) if redirects < self.max_redirects as u32 => {
                    self.stats.ask += 1;
                    redirects += 1;
                    node = t;
                    asking = true;
                }
                (Some("TRYAGAIN"), _, _) => {
                    self.stats.tryagain += 1;
                    return outcome(sent.reply.clone(), redirects);
                }
                _ if msg.ends_with("(connection refused)") => {
                    // As redis-py and Jedis do: reload the slot map from
                    // another node, so a failover is found once it happened.
                    self.stats.refused += 1;
                    let other = (node + 1) % cluster.nodes.len();
                    self.refresh(cluster, other);
                    return outcome(sent.reply.clone(), redirects);
                }
                _ => return outcome(sent.reply.clone(), redirects),
            }
        }
    }

    /// [`SimClient::run`] for a redis-cli style line.
    pub fn run_line(&mut self, cluster: &mut Cluster, line: &str) -> Outcome {
        let args = redsim_engine::proto::resp::split_args(line.as_bytes()).unwrap_or_default();
        self.run(cluster, &args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `masters` masters with `replicas` replicas each, a `timeout_ms` node timeout.
    fn cluster(seed: u64, masters: usize, replicas: usize, timeout_ms: i64) -> Cluster {
        let mut o = SimOptions::new(seed, masters);
        o.replicas_per_master = replicas;
        o.config.cluster_node_timeout = timeout_ms;
        Cluster::new(o)
    }

    /// Advances in cron steps until `done` holds or `limit_us` passes.
    fn run_until(c: &mut Cluster, limit_us: u64, done: impl Fn(&Cluster) -> bool) -> bool {
        let end = c.now_us() + limit_us;
        while c.now_us() < end {
            if done(c) {
                return true;
            }
            c.advance_by(CRON_US);
        }
        done(c)
    }

    fn first(c: &Cluster, f: impl Fn(&BusWhat) -> bool) -> Option<&BusEvent> {
        c.events.iter().find(|e| f(&e.what))
    }

    fn promoted(c: &Cluster) -> Option<usize> {
        first(c, |w| matches!(w, BusWhat::Promoted { .. })).map(|e| e.node)
    }

    /// A key owned by master `m` at creation.
    fn key_of(m: usize, masters: usize, tag: &str) -> String {
        let (a, b) = even_ranges(masters)[m];
        (0..)
            .map(|i| format!("{tag}{i}"))
            .find(|k| (a..=b).contains(&key_hash_slot(k.as_bytes())))
            .expect("a key in the range")
    }

    fn line(c: &mut Cluster, node: usize, l: &str) -> Frame {
        let args = redsim_engine::proto::resp::split_args(l.as_bytes()).expect("args");
        c.send(node, 1, &args).reply
    }

    #[test]
    fn pfail_comes_before_fail_and_then_the_replica_takes_over() {
        let mut c = cluster(3, 3, 1, 2000);
        let t0 = c.now_us();
        c.kill_node(0);
        let pfail = run_until(&mut c, 10_000_000, |c| c.view(1).nodes[0].pfail);
        assert!(pfail, "node 1 never suspected node 0");
        let t_pfail = c.now_us() - t0;
        // A pending ping must be older than the node timeout.
        assert!(t_pfail > 2_000_000, "PFAIL after {t_pfail} µs");
        let text = c.view(1).nodes_text();
        assert!(text.contains(" master,fail? - "), "{text}");
        assert!(text.contains(" disconnected 0-5460"), "{text}");
        let info = c.view(1).info_text();
        assert!(info.contains("cluster_slots_pfail:5461\r\n"), "{info}");
        assert!(
            info.starts_with("cluster_state:ok"),
            "PFAIL alone keeps the state"
        );
        assert!(run_until(&mut c, 10_000_000, |c| c.view(1).nodes[0].failed));
        let fail = first(&c, |w| matches!(w, BusWhat::Fail { of: 0, .. })).expect("FAIL");
        let first_pfail = first(&c, |w| matches!(w, BusWhat::Pfail { of: 0 })).expect("PFAIL");
        assert!(first_pfail.at_us < fail.at_us);
        assert!(matches!(fail.what, BusWhat::Fail { reports, .. } if reports >= 2));
        let text = c.view(2).nodes_text();
        assert!(text.contains(" master,fail - "), "{text}");
        assert!(run_until(&mut c, 10_000_000, |c| promoted(c).is_some()));
        assert_eq!(promoted(&c), Some(3));
        let scheduled = first(&c, |w| matches!(w, BusWhat::ElectionScheduled { .. })).unwrap();
        let BusWhat::ElectionScheduled { rank, delay_ms } = scheduled.what else {
            unreachable!()
        };
        assert_eq!(rank, 0);
        assert!((500..1000).contains(&delay_ms), "{delay_ms}");
        c.advance_by(1_000_000);
        for i in 1..6 {
            assert_eq!(c.view(i).owner(0), Some(3), "node {i}'s view");
            assert!(c.view(i).ok, "node {i} is OK again");
        }
        let me = c.view(3).nodes_text();
        assert!(
            me.contains(" myself,master - 0 0 4 connected 0-5460"),
            "{me}"
        );
    }

    #[test]
    fn fail_needs_a_majority_of_masters() {
        // Five masters: three dead leave two reporters, short of three.
        let mut c = cluster(5, 5, 0, 1000);
        for i in 0..3 {
            c.kill_node(i);
        }
        run_until(&mut c, 20_000_000, |_| false);
        assert!(first(&c, |w| matches!(w, BusWhat::Fail { .. })).is_none());
        assert!(c.view(3).nodes[0].pfail && !c.view(3).nodes[0].failed);
        assert!(c.view(4).nodes_text().contains(" master,fail? - "));
        assert!(!c.view(3).ok, "a minority partition is down");
        // Two dead of five: three masters agree.
        let mut c = cluster(5, 5, 0, 1000);
        c.kill_node(0);
        c.kill_node(1);
        assert!(run_until(&mut c, 20_000_000, |c| c.view(4).nodes[0].failed
            && c.view(4).nodes[1].failed));
    }

    #[test]
    fn the_replica_with_the_larger_offset_is_elected_first() {
        let mut c = cluster(7, 3, 2, 1000);
        // Replicas of master 0 are nodes 3 and 6; 6's link is cut first.
        assert_eq!(c.view(0).replicas_of(0), vec![3, 6]);
        let key = key_of(0, 3, "r");
        assert_eq!(line(&mut c, 0, &format!("SET {key} a")), Frame::ok());
        c.advance_by(10_000);
        c.nodes[6].attached_to = None;
        assert_eq!(line(&mut c, 0, &format!("SET {key} b")), Frame::ok());
        c.advance_by(10_000);
        assert!(c.nodes[3].engine.repl().offset > c.nodes[6].engine.repl().offset);
        c.kill_node(0);
        assert!(run_until(&mut c, 20_000_000, |c| promoted(c).is_some()));
        assert_eq!(promoted(&c), Some(3));
        let ranks: Vec<(usize, usize)> = c
            .events
            .iter()
            .filter_map(|e| match e.what {
                BusWhat::ElectionScheduled { rank, .. } => Some((e.node, rank)),
                _ => None,
            })
            .collect();
        assert!(
            ranks.contains(&(3, 0)) && ranks.contains(&(6, 1)),
            "{ranks:?}"
        );
        // The other replica follows the winner and catches up.
        c.advance_by(1_000_000);
        assert_eq!(c.view(6).me().replica_of, Some(3));
        assert!(c
            .events
            .iter()
            .any(|e| e.node == 6 && matches!(e.what, BusWhat::Synced { master: 3, .. })));
        assert_eq!(
            c.nodes[6].engine.repl().offset,
            c.nodes[3].engine.repl().offset
        );
    }

    #[test]
    fn no_failover_without_a_majority_of_masters() {
        let mut c = cluster(11, 3, 1, 1000);
        // Both flagged FAIL at once; one master is left to vote.
        c.fail_node(0);
        c.fail_node(1);
        run_until(&mut c, 30_000_000, |_| false);
        assert!(promoted(&c).is_none());
        let expired = c
            .events
            .iter()
            .filter(|e| matches!(e.what, BusWhat::ElectionExpired { votes: 1, .. }))
            .count();
        assert!(expired >= 2, "{:?}", c.events);
        assert!(!c.view(2).ok);
        // Votes are one per master per epoch: no master voted twice.
        let mut votes: Vec<(usize, u64)> = c
            .events
            .iter()
            .filter_map(|e| match e.what {
                BusWhat::Voted { epoch, .. } => Some((e.node, epoch)),
                _ => None,
            })
            .collect();
        let n = votes.len();
        votes.dedup();
        assert_eq!(votes.len(), n);
    }

    /// Writes to master 0 every 2 ms over a 150 ms replication link, with
    /// `CLUSTER FAILOVER <how>` sent to its replica midway: the acknowledged
    /// writes the new master lacks, and the cluster.
    fn manual_failover_run(how: &str) -> (usize, Cluster) {
        let mut o = SimOptions::new(13, 3);
        o.replicas_per_master = 1;
        o.repl_link_us = 150_000;
        let mut c = Cluster::new(o);
        let mut client = c.client();
        let mut acked = Vec::new();
        let tag = key_of(0, 3, "m");
        for i in 0..400 {
            if i == 200 {
                // Writes are on the link when it is asked.
                let r = c.admin(3, &format!("CLUSTER FAILOVER {how}"));
                assert_eq!(r, Frame::ok());
            }
            let key = format!("{{{tag}}}:{i}");
            let out = client.run_line(&mut c, &format!("SET {key} {i}"));
            if out.reply == Frame::ok() {
                acked.push(key);
            }
            c.set_now(c.now_us() + 2_000);
        }
        c.advance_by(1_000_000);
        assert_eq!(promoted(&c), Some(3), "{how}");
        assert_eq!(acked.len(), 400, "every write succeeded (after MOVED)");
        let missing = acked
            .iter()
            .filter(|k| !c.nodes[3].engine.holds_key(0, k.as_bytes()))
            .count();
        assert!(client.stats.moved >= 1);
        (missing, c)
    }

    #[test]
    fn manual_failover_loses_no_write() {
        let (missing, c) = manual_failover_run("");
        assert_eq!(missing, 0);
        // The old master follows, with the same data.
        assert_eq!(c.view(0).me().replica_of, Some(3));
        assert_eq!(
            c.nodes[0].engine.repl().offset,
            c.nodes[3].engine.repl().offset
        );
        assert!(c.view(0).nodes_text().contains("myself,slave"));
        // FORCE does not wait for the offsets: what was on the link is lost.
        let (missing, _) = manual_failover_run("FORCE");
        assert!(missing > 10, "{missing} writes lost");
    }

    #[test]
    fn manual_failover_checks_and_variants() {
        let mut c = cluster(17, 3, 1, 2000);
        assert_eq!(
            c.admin(0, "CLUSTER FAILOVER"),
            Frame::err("ERR You should send CLUSTER FAILOVER to a replica")
        );
        assert_eq!(
            c.admin(3, "CLUSTER FAILOVER now"),
            Frame::err("ERR syntax error")
        );
        c.fail_node(1);
        assert_eq!(
            c.admin(4, "CLUSTER FAILOVER"),
            Frame::err("ERR Master is down or failed, please use CLUSTER FAILOVER FORCE")
        );
        assert_eq!(c.admin(4, "CLUSTER FAILOVER FORCE"), Frame::ok());
        assert!(run_until(&mut c, 1_000_000, |c| promoted(c) == Some(4)));
        // TAKEOVER: no votes, a new epoch at once.
        let before = c.events.len();
        assert_eq!(c.admin(5, "CLUSTER FAILOVER TAKEOVER"), Frame::ok());
        assert_eq!(c.view(5).me().replica_of, None);
        assert_eq!(c.view(0).owner(16383), Some(5));
        assert_eq!(c.view(2).me().replica_of, Some(5));
        assert!(!c.events[before..]
            .iter()
            .any(|e| matches!(e.what, BusWhat::Voted { .. })));
    }

    #[test]
    fn the_old_master_rejoins_as_a_replica_and_loses_unreplicated_writes() {
        let mut c = cluster(19, 3, 1, 1000);
        let key = key_of(0, 3, "x");
        assert_eq!(line(&mut c, 0, &format!("SET {key} 1")), Frame::ok());
        // Acknowledged, then the master dies before the stream arrives.
        c.kill_node(0);
        assert!(run_until(&mut c, 20_000_000, |c| promoted(c).is_some()));
        assert_eq!(line(&mut c, 3, &format!("GET {key}")), Frame::Null);
        c.restart_node(0);
        c.advance_by(3_000_000);
        assert_eq!(c.view(0).me().replica_of, Some(3));
        assert!(c.events.iter().any(|e| e.node == 0
            && e.what
                == BusWhat::Synced {
                    master: 3,
                    full: true
                }));
        assert!(!c.nodes[0].engine.holds_key(0, key.as_bytes()));
        for i in 1..6 {
            assert!(!c.view(i).nodes[0].failed, "node {i} cleared FAIL");
        }
    }

    /// Everything observable about one failover run.
    fn failover_run(seed: u64) -> String {
        let mut c = cluster(seed, 3, 1, 1000);
        let mut client = c.client();
        let mut out = String::new();
        for i in 0..300 {
            if i == 50 {
                c.kill_node(1);
            }
            let o = client.run_line(&mut c, &format!("INCR k{}", i % 40));
            out.push_str(&format!("{:?} {}\n", o.reply, o.node));
            c.advance_by(50_000);
        }
        for e in &c.events {
            out.push_str(&format!("{e:?}\n"));
        }
        for i in 0..c.nodes.len() {
            out.push_str(&c.view(i).nodes_text());
        }
        out
    }

    #[test]
    fn failover_is_deterministic() {
        let a = failover_run(5);
        assert_eq!(a, failover_run(5));
        assert!(a.contains("Promoted"));
        assert_ne!(a, failover_run(6));
    }

    #[test]
    fn even_ranges_match_redis_cli() {
        assert_eq!(
            even_ranges(3),
            vec![(0, 5460), (5461, 10922), (10923, 16383)]
        );
        assert_eq!(even_ranges(1), vec![(0, 16383)]);
    }
}
