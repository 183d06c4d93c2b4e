//! An interactive replication topology: a master, replicas and sentinels made of real engines on the discrete-event kernel, steppable in virtual time and poked live (kill, partition, pause a link, change appendfsync, fail over), with per-node timelines and the acknowledged writes each fault loses.
//!
//! Everything is deterministic: the same [`TopoOptions`] and the same
//! controls at the same virtual instants give the same state, so a share link
//! only needs the options and [`Topology::script`] ([`Topology::replay`]).
//!
//! The world, as modelled:
//! - nodes `0..=replicas` at `10.0.0.<id+1>:6379`; node 0 starts as master.
//!   Replication links carry [`redsim_engine::Engine::take_repl_stream`] ops with
//!   `link_latency_ms` plus up to 50% jitter, in order. A link that breaks (a
//!   kill, a partition, a pause) drops what was on the wire; when it can work
//!   again the replica reconnects after one round trip with PSYNC, partial
//!   when the master's backlog still holds its offset, full otherwise.
//!   Breaking is immediate (as if `repl-timeout` were short);
//! - sentinel `i` runs on the machine of node `i` (when there is one), so
//!   partitioning that node cuts the sentinel off with it; see
//!   [`crate::replication::sentinel`] for the rules they follow;
//! - one client writes `SET w:<n> <value>` at `writes_per_sec`, one at a time,
//!   optionally followed by `WAIT wait wait_timeout_ms`, to the master the
//!   newest sentinel config it can reach names. It lives next to the node it
//!   writes to: partitioning that node takes the client along (the classic
//!   split brain), partitioning another one does not. A write is
//!   *acknowledged* when SET answered OK (and WAIT reached `wait`);
//! - an acknowledged write is *lost* once the node the client treats as
//!   master no longer holds it (after a failover, a crash and restart, a
//!   healed partition). Writes refused (errors, unreachable master, WAIT
//!   short of its count) are never acknowledged.
//!
//! Controls are applied at the current instant and logged; a restarted node
//! loads what its files held after its crash ([`redsim_engine::persist::Crash`]): a
//! replica comes back as a replica (its `replicaof` is in its config) and
//! full-syncs (Redis 7 could continue from the replication ID kept in its
//! RDB; the engine's restart starts a new history), a master comes back as a
//! master until sentinels convert it.
//!
//! Replicas keep their own AOF: the engine appends the stream a replica
//! applies and rewrites it after a full sync, as Redis' replicas do.

use crate::kernel::{Dist, Kernel, Micros, MS, SEC};
pub use crate::replication::sentinel::SentinelView;
use crate::replication::sentinel::{
    NodeInfo, Order, SentinelConfig, SentinelEvent, SentinelNet, Sentinels, TICK_US,
};
use crate::seeds;
use redsim_engine::persist::Crash;
use redsim_engine::repl::{Effect, ReplOp, Sync};
use redsim_engine::{ClientId, Engine, Frame, Options};
use serde::Serialize;

/// Most events kept (the oldest are dropped beyond twice this).
pub const EVENTS_CAP: usize = 5_000;
/// Most write records kept (the oldest are dropped beyond twice this).
pub const WRITES_CAP: usize = 50_000;
/// Trace events each engine keeps between two polls (persistence events are read from it).
const TRACE_CAP: usize = 512;
/// Replicas send `REPLCONF ACK` this often.
const ACK_PERIOD_US: Micros = SEC;

/// How the world is built.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TopoOptions {
    pub seed: u64,
    /// Replicas of the first master, 1..=4.
    pub replicas: usize,
    /// Sentinels, 1..=7 (3 or 5 in practice).
    pub sentinels: usize,
    /// Sentinels that must agree the master is down (1..=sentinels).
    pub quorum: usize,
    /// `down-after-milliseconds`.
    pub down_after_ms: u64,
    /// `failover-timeout` (Redis' default is 180 s; shorter here so a failed
    /// election is retried while one watches).
    pub failover_timeout_ms: u64,
    /// One-way latency of replication links (plus up to 50% jitter).
    pub link_latency_ms: f64,
    /// Per node: the latency of its link when it is a replica (missing entries: `link_latency_ms`).
    pub latencies_ms: Vec<f64>,
    /// The client's write rate (0: no writes).
    pub writes_per_sec: f64,
    /// `WAIT <wait> <wait_timeout_ms>` after each write (0: no WAIT).
    pub wait: i64,
    pub wait_timeout_ms: i64,
    /// Every node's AOF: `always | everysec | no`, or `off` (`appendonly no`).
    pub appendfsync: String,
    /// Every node's `save` rules (`""`: none).
    pub save: String,
    /// Every node's `min-replicas-to-write` and `min-replicas-max-lag`.
    pub min_replicas_to_write: i64,
    pub min_replicas_max_lag: i64,
    /// Every node's `repl-backlog-size` in bytes.
    pub repl_backlog_size: u64,
    /// Bytes in each written value.
    pub value_bytes: usize,
    /// `replica-priority` per node (missing entries: 100).
    pub priorities: Vec<i64>,
}

impl Default for TopoOptions {
    fn default() -> TopoOptions {
        TopoOptions {
            seed: 1,
            replicas: 2,
            sentinels: 3,
            quorum: 2,
            down_after_ms: 2_000,
            failover_timeout_ms: 10_000,
            link_latency_ms: 20.0,
            latencies_ms: Vec::new(),
            writes_per_sec: 50.0,
            wait: 0,
            wait_timeout_ms: 500,
            appendfsync: "everysec".into(),
            save: "30 100".into(),
            min_replicas_to_write: 0,
            min_replicas_max_lag: 10,
            repl_backlog_size: 1 << 20,
            value_bytes: 16,
            priorities: Vec::new(),
        }
    }
}

/// What the user can do to the running world.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Control {
    /// The node's process dies (or its machine loses power).
    Kill {
        node: usize,
        power_loss: bool,
    },
    /// A killed node starts again from its files.
    Restart {
        node: usize,
    },
    /// Cuts the node (and the sentinel on its machine, and the client if it
    /// writes there) from everyone else.
    Partition {
        node: usize,
    },
    Heal {
        node: usize,
    },
    /// Stops the link into a replica (its connection breaks).
    PauseLink {
        replica: usize,
    },
    ResumeLink {
        replica: usize,
    },
    /// `always | everysec | no | off`.
    SetAppendfsync {
        node: usize,
        mode: String,
    },
    /// `SENTINEL FAILOVER`: a failover without agreement.
    Failover,
    SetWait(i64),
    SetWriteRate(f64),
}

impl Control {
    /// A compact, URL-safe token: `kill.0`, `kill.0.power`, `restart.0`,
    /// `part.1`, `heal.1`, `pause.2`, `resume.2`, `fsync.0.always`,
    /// `failover`, `wait.1`, `rate.200`. [`Control::parse`] reads it back.
    pub fn token(&self) -> String {
        match self {
            Control::Kill { node, power_loss } => {
                format!("kill.{node}{}", if *power_loss { ".power" } else { "" })
            }
            Control::Restart { node } => format!("restart.{node}"),
            Control::Partition { node } => format!("part.{node}"),
            Control::Heal { node } => format!("heal.{node}"),
            Control::PauseLink { replica } => format!("pause.{replica}"),
            Control::ResumeLink { replica } => format!("resume.{replica}"),
            Control::SetAppendfsync { node, mode } => format!("fsync.{node}.{mode}"),
            Control::Failover => "failover".into(),
            Control::SetWait(n) => format!("wait.{n}"),
            Control::SetWriteRate(r) => format!("rate.{r}"),
        }
    }

    /// Reads a token written by [`Control::token`].
    pub fn parse(s: &str) -> Result<Control, String> {
        let bad = || format!("bad control '{s}'");
        let (head, rest) = s.split_once('.').unwrap_or((s, ""));
        let node = |t: &str| t.parse::<usize>().map_err(|_| bad());
        let parts: Vec<&str> = rest.split('.').collect();
        let c = match (head, parts.as_slice()) {
            ("kill", [n]) => Control::Kill {
                node: node(n)?,
                power_loss: false,
            },
            ("kill", [n, "power"]) => Control::Kill {
                node: node(n)?,
                power_loss: true,
            },
            ("restart", [n]) => Control::Restart { node: node(n)? },
            ("part", [n]) => Control::Partition { node: node(n)? },
            ("heal", [n]) => Control::Heal { node: node(n)? },
            ("pause", [n]) => Control::PauseLink { replica: node(n)? },
            ("resume", [n]) => Control::ResumeLink { replica: node(n)? },
            ("fsync", [n, m]) if FSYNC_MODES.contains(m) => Control::SetAppendfsync {
                node: node(n)?,
                mode: m.to_string(),
            },
            ("failover", [""]) => Control::Failover,
            ("wait", _) => Control::SetWait(rest.parse().map_err(|_| bad())?),
            ("rate", _) => {
                let r: f64 = rest.parse().map_err(|_| bad())?;
                if !r.is_finite() || r < 0.0 {
                    return Err(bad());
                }
                Control::SetWriteRate(r)
            }
            _ => return Err(bad()),
        };
        Ok(c)
    }
}

const FSYNC_MODES: &[&str] = &["always", "everysec", "no", "off"];

/// One write the client made.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WriteRecord {
    pub id: u64,
    pub sent_us: u64,
    /// When the client was told it succeeded (None: refused or pending).
    pub acked_us: Option<u64>,
    /// The node it was sent to.
    pub node: usize,
    /// When the node the client treats as master stopped holding it.
    pub lost_us: Option<u64>,
    /// Why it was not acknowledged.
    pub error: Option<String>,
}

/// One resync of a replica: PSYNC's outcome and the offsets it bridged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SyncRecord {
    pub at_us: u64,
    pub replica: usize,
    pub master: usize,
    pub full: bool,
    /// The replica's offset when it asked, and its master's.
    pub replica_offset: u64,
    pub master_offset: u64,
}

/// Something that happened on one node, for its timeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeEvent {
    pub at_us: u64,
    pub node: usize,
    pub kind: NodeEventKind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum NodeEventKind {
    /// The client sent write `id` here.
    Write {
        id: u64,
    },
    Acked {
        id: u64,
    },
    Refused {
        id: u64,
        error: String,
    },
    /// Replication stream arrived: the replica's offset after it and how many client writes it carried.
    Arrived {
        offset: u64,
        writes: u64,
    },
    /// The replica acknowledged `offset` to its master.
    Ack {
        offset: u64,
    },
    /// AOF records fsynced.
    Fsync {
        records: u64,
    },
    SnapshotStart,
    SnapshotEnd {
        cow_bytes: u64,
    },
    Crash {
        power_loss: bool,
    },
    /// Back from its files, missing this many writes it had acknowledged.
    Restart {
        lost_writes: u64,
    },
    /// Sentinel `sentinel` considers this master subjectively down.
    Sdown {
        sentinel: usize,
    },
    Odown {
        sentinel: usize,
        agree: usize,
    },
    TryFailover {
        sentinel: usize,
        epoch: u64,
    },
    Elected {
        sentinel: usize,
        epoch: u64,
    },
    ElectionFailed {
        sentinel: usize,
        epoch: u64,
    },
    NoGoodReplica {
        sentinel: usize,
    },
    /// `REPLICAOF NO ONE`.
    Promoted,
    /// `REPLICAOF` node `to`.
    Repointed {
        to: usize,
    },
    /// Sentinels now name this node master (`+switch-master`).
    SwitchMaster {
        epoch: u64,
    },
    /// The client now writes here.
    ClientSwitched,
    FullSync,
    PartialSync,
    LinkDown,
    Partitioned,
    Healed,
    LinkPaused,
    LinkResumed,
    Appendfsync {
        mode: String,
    },
    /// Acknowledged writes this node (the client's master) does not hold.
    Lost {
        ids: Vec<u64>,
    },
}

/// Plain data about the world now, for drawing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TopoView {
    pub now_us: u64,
    pub nodes: Vec<NodeView>,
    pub links: Vec<LinkView>,
    pub sentinels: Vec<SentinelView>,
    /// The node the client writes to.
    pub client_master: usize,
    /// The client is cut off with this node.
    pub client_isolated_with: Option<usize>,
    /// What the sentinels are doing, in words.
    pub failover: Option<String>,
    /// The last completed failover, in words.
    pub last_failover: Option<String>,
    pub writes: u64,
    pub acked: u64,
    pub refused: u64,
    pub lost: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeView {
    pub id: usize,
    pub addr: String,
    /// `master | replica`.
    pub role: String,
    /// The node it replicates from.
    pub master_of: Option<usize>,
    pub alive: bool,
    pub isolated: bool,
    pub offset: u64,
    pub keys: u64,
    /// `always | everysec | no | off`.
    pub appendfsync: String,
    pub aof_records: u64,
    pub aof_fsynced_records: u64,
    pub bgsave_in_progress: bool,
    /// Replicas: `up | down | syncing`; masters: `none`.
    pub link_status: String,
    pub priority: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkView {
    pub from: usize,
    pub to: usize,
    pub latency_ms: f64,
    pub paused: bool,
    /// Stream bytes on the wire towards the replica.
    pub in_flight_bytes: u64,
    /// Master offset minus replica offset.
    pub behind_bytes: u64,
}

#[derive(Clone, Debug)]
enum Ev {
    Write {
        gen: u64,
    },
    Deliver {
        to: usize,
        gen: u64,
        ops: Vec<ReplOp>,
        bytes: u64,
    },
    GetAck {
        to: usize,
        gen: u64,
    },
    Ack {
        from: usize,
        gen: u64,
        offset: u64,
    },
    SyncDone {
        to: usize,
        gen: u64,
    },
    AckTick,
    SentinelTick,
    WaitTimeout,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LinkSt {
    Down,
    Syncing,
    Up,
}

struct Node {
    e: Engine,
    app: ClientId,
    admin: ClientId,
    alive: bool,
    isolated: bool,
    crash: Crash,
    /// The node it replicates from, as configured.
    master_of: Option<usize>,
    link: LinkSt,
    /// Bumped whenever the incoming link breaks or reconnects: older messages are dropped.
    gen: u64,
    paused: bool,
    in_flight: u64,
    last_arrival: Micros,
    down_since: Micros,
    trace_seq: u64,
    bgsave: bool,
    fsync: String,
    run_id: String,
}

/// The interactive world.
pub struct Topology {
    opts: TopoOptions,
    k: Kernel<Ev>,
    nodes: Vec<Node>,
    sentinels: Sentinels,
    /// Latency of the replication link into each node (when it is a replica).
    latency: Vec<Dist>,
    client_master: usize,
    client_zone: Option<usize>,
    write_gen: u64,
    rate: f64,
    wait: i64,
    /// A WAIT in progress: (write id, node, replicas wanted).
    waiting: Option<(u64, usize, i64)>,
    next_id: u64,
    value: String,
    writes: Vec<WriteRecord>,
    events: Vec<NodeEvent>,
    syncs: Vec<SyncRecord>,
    script: Vec<(u64, Control)>,
    acked: u64,
    refused: u64,
    lost: u64,
    lost_dirty: bool,
    last_failover: Option<String>,
}

fn addr(n: usize) -> String {
    format!("10.0.0.{}:6379", n + 1)
}

impl Topology {
    /// Builds the world at time 0 (out-of-range options are clamped).
    pub fn new(opts: TopoOptions) -> Topology {
        let mut opts = opts;
        opts.replicas = opts.replicas.clamp(1, 4);
        opts.sentinels = opts.sentinels.clamp(1, 7);
        opts.quorum = opts.quorum.clamp(1, opts.sentinels);
        if !FSYNC_MODES.contains(&opts.appendfsync.as_str()) {
            opts.appendfsync = "everysec".into();
        }
        let n = opts.replicas + 1;
        let latency = (0..n)
            .map(|i| {
                let ms = opts
                    .latencies_ms
                    .get(i)
                    .copied()
                    .unwrap_or(opts.link_latency_ms);
                let lat = (ms.clamp(0.0, 10_000.0) * MS as f64) as Micros;
                Dist::jittered(lat, lat / 2)
            })
            .collect();
        let mut k: Kernel<Ev> = Kernel::new(opts.seed);
        let mut nodes = Vec::with_capacity(n);
        for i in 0..n {
            let mut o = Options::new(seeds::node(opts.seed, i));
            o.trace_capacity = TRACE_CAP;
            let e = Engine::with_options(o);
            let run_id = run_id(&mut k.rng);
            let mut node = Node {
                e,
                app: ClientId::default(),
                admin: ClientId::default(),
                alive: true,
                isolated: false,
                crash: Crash::Process,
                master_of: (i > 0).then_some(0),
                link: LinkSt::Down,
                gen: 0,
                paused: false,
                in_flight: 0,
                last_arrival: 0,
                down_since: 0,
                trace_seq: 0,
                bgsave: false,
                fsync: opts.appendfsync.clone(),
                run_id,
            };
            node.app = node.e.connect("app");
            node.admin = node.e.connect("admin");
            nodes.push(node);
        }
        let sentinels = Sentinels::new(
            SentinelConfig {
                count: opts.sentinels,
                quorum: opts.quorum,
                down_after_us: opts.down_after_ms.max(1) * MS,
                failover_timeout_us: opts.failover_timeout_ms.max(1) * MS,
            },
            0,
            opts.seed,
        );
        let mut t = Topology {
            value: "x".repeat(opts.value_bytes.clamp(1, 1 << 20)),
            rate: opts.writes_per_sec.max(0.0),
            wait: opts.wait.max(0),
            opts,
            k,
            nodes,
            sentinels,
            latency,
            client_master: 0,
            client_zone: None,
            write_gen: 0,
            waiting: None,
            next_id: 1,
            writes: Vec::new(),
            events: Vec::new(),
            syncs: Vec::new(),
            script: Vec::new(),
            acked: 0,
            refused: 0,
            lost: 0,
            lost_dirty: false,
            last_failover: None,
        };
        for i in 0..n {
            t.configure(i);
            if i > 0 {
                t.admin(i, "REPLICAOF 10.0.0.1 6379");
                // The initial sync happens before time starts.
                t.attach(i);
            }
        }
        for i in 0..n {
            t.nodes[i].trace_seq = t.nodes[i].e.trace().next_seq();
        }
        t.k.at(ACK_PERIOD_US, Ev::AckTick);
        t.k.at(TICK_US, Ev::SentinelTick);
        if t.rate > 0.0 {
            t.k.at(0, Ev::Write { gen: 0 });
        }
        // Like every control, construction leaves nothing due at `now`, so
        // calling `advance_to(now)` again (a paused clock) changes nothing.
        t.advance_to(0);
        t
    }

    /// Persistence, replication and priority settings of node `i`.
    fn configure(&mut self, i: usize) {
        let o = &self.opts;
        let mut lines = vec![
            format!("CONFIG SET save \"{}\"", o.save),
            format!(
                "CONFIG SET repl-backlog-size {}",
                o.repl_backlog_size.max(1)
            ),
            format!(
                "CONFIG SET min-replicas-to-write {}",
                o.min_replicas_to_write.max(0)
            ),
            format!(
                "CONFIG SET min-replicas-max-lag {}",
                o.min_replicas_max_lag.max(0)
            ),
            format!(
                "CONFIG SET replica-priority {}",
                o.priorities.get(i).copied().unwrap_or(100).max(0)
            ),
        ];
        lines.extend(fsync_lines(&self.nodes[i].fsync));
        for l in lines {
            self.admin(i, &l);
        }
    }

    /// Replays `script` from the start: the state [`Topology::script`] describes.
    pub fn replay(opts: TopoOptions, script: &[(u64, Control)], until_us: u64) -> Topology {
        let mut t = Topology::new(opts);
        for (at, c) in script {
            t.advance_to(*at);
            // A control that failed live was not logged, so this one succeeds.
            let _ = t.control(c.clone());
        }
        t.advance_to(until_us);
        t
    }

    pub fn options(&self) -> &TopoOptions {
        &self.opts
    }

    pub fn now_us(&self) -> u64 {
        self.k.now()
    }

    /// Runs every event due up to `t_us` and moves the clock there.
    pub fn advance_to(&mut self, t_us: u64) {
        while let Some(ev) = self.k.next(t_us) {
            self.handle(ev);
            self.settle();
        }
        self.k.finish_at(t_us);
        let now = self.k.now();
        for n in self.nodes.iter_mut().filter(|n| n.alive) {
            n.e.advance_to(now);
        }
    }

    /// The controls applied so far, with their instants.
    pub fn script(&self) -> &[(u64, Control)] {
        &self.script
    }

    /// Per-node timeline, oldest first (bounded).
    pub fn events(&self) -> &[NodeEvent] {
        &self.events
    }

    /// Every write the client made (bounded), oldest first.
    pub fn writes(&self) -> &[WriteRecord] {
        &self.writes
    }

    /// Every resync after the start (bounded), oldest first.
    pub fn syncs(&self) -> &[SyncRecord] {
        &self.syncs
    }

    /// Applies `c` now and logs it; errors leave the world unchanged.
    pub fn control(&mut self, c: Control) -> Result<(), String> {
        let now = self.k.now();
        let n = self.nodes.len();
        let check = |node: usize| {
            if node < n {
                Ok(())
            } else {
                Err(format!("no node {node} (nodes are 0..{})", n - 1))
            }
        };
        match &c {
            Control::Kill { node, power_loss } => {
                check(*node)?;
                if !self.nodes[*node].alive {
                    return Err(format!("node {node} is already down"));
                }
                let nd = &mut self.nodes[*node];
                nd.alive = false;
                nd.crash = if *power_loss {
                    Crash::PowerLoss
                } else {
                    Crash::Process
                };
                self.event(
                    *node,
                    NodeEventKind::Crash {
                        power_loss: *power_loss,
                    },
                );
            }
            Control::Restart { node } => {
                check(*node)?;
                if self.nodes[*node].alive {
                    return Err(format!("node {node} is running"));
                }
                self.restart(*node);
            }
            Control::Partition { node } => {
                check(*node)?;
                if self.nodes[*node].isolated {
                    return Err(format!("node {node} is already partitioned"));
                }
                self.nodes[*node].isolated = true;
                if self.client_master == *node && self.client_zone.is_none() {
                    self.client_zone = Some(*node);
                }
                self.event(*node, NodeEventKind::Partitioned);
            }
            Control::Heal { node } => {
                check(*node)?;
                if !self.nodes[*node].isolated {
                    return Err(format!("node {node} is not partitioned"));
                }
                self.nodes[*node].isolated = false;
                if self.client_zone == Some(*node) {
                    self.client_zone = None;
                }
                self.lost_dirty = true;
                self.event(*node, NodeEventKind::Healed);
            }
            Control::PauseLink { replica } => {
                check(*replica)?;
                if self.nodes[*replica].paused {
                    return Err(format!("link into node {replica} is already paused"));
                }
                self.nodes[*replica].paused = true;
                self.event(*replica, NodeEventKind::LinkPaused);
            }
            Control::ResumeLink { replica } => {
                check(*replica)?;
                if !self.nodes[*replica].paused {
                    return Err(format!("link into node {replica} is not paused"));
                }
                self.nodes[*replica].paused = false;
                self.event(*replica, NodeEventKind::LinkResumed);
            }
            Control::SetAppendfsync { node, mode } => {
                check(*node)?;
                if !FSYNC_MODES.contains(&mode.as_str()) {
                    return Err(format!(
                        "appendfsync must be one of {}",
                        FSYNC_MODES.join(", ")
                    ));
                }
                if !self.nodes[*node].alive {
                    return Err(format!("node {node} is down"));
                }
                self.nodes[*node].fsync = mode.clone();
                for l in fsync_lines(mode) {
                    self.admin(*node, &l);
                }
                self.event(*node, NodeEventKind::Appendfsync { mode: mode.clone() });
            }
            Control::Failover => {
                let net = Net {
                    nodes: &self.nodes,
                    now,
                };
                self.sentinels
                    .force_failover(now, &net)
                    .map_err(|e| format!("-{e}"))?;
            }
            Control::SetWait(w) => {
                if *w < 0 {
                    return Err("ERR timeout is negative".into());
                }
                self.wait = *w;
            }
            Control::SetWriteRate(r) => {
                if !r.is_finite() || *r < 0.0 {
                    return Err("write rate must be a finite number >= 0".into());
                }
                self.rate = *r;
                self.write_gen += 1;
                if *r > 0.0 && self.waiting.is_none() {
                    let gen = self.write_gen;
                    self.k.at(now, Ev::Write { gen });
                }
            }
        }
        self.script.push((now, c));
        self.settle();
        // Run what the control made due now (a write, a resync), so two
        // controls at one instant see the same world live and in replay.
        self.advance_to(now);
        Ok(())
    }

    /// Plain data about now (cheap: a few nodes, links and sentinels).
    pub fn view(&self) -> TopoView {
        let now = self.k.now();
        let nodes = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let e = &n.e;
                let replica = n.e.repl().is_replica();
                NodeView {
                    id: i,
                    addr: addr(i),
                    role: if replica { "replica" } else { "master" }.into(),
                    master_of: if replica { n.master_of } else { None },
                    alive: n.alive,
                    isolated: n.isolated,
                    offset: n.e.repl().offset,
                    keys: (0..e.config().databases as usize)
                        .map(|db| e.dbsize(db) as u64)
                        .sum(),
                    appendfsync: n.fsync.clone(),
                    aof_records: e.persistence().aof.len() as u64,
                    aof_fsynced_records: e.persistence().aof_fsynced as u64,
                    bgsave_in_progress: n.bgsave,
                    link_status: if !replica {
                        "none"
                    } else {
                        match n.link {
                            LinkSt::Up => "up",
                            LinkSt::Syncing => "syncing",
                            LinkSt::Down => "down",
                        }
                    }
                    .into(),
                    priority: e.config().replica_priority,
                }
            })
            .collect();
        let links = self
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                let m = n.master_of?;
                n.e.repl().is_replica().then(|| LinkView {
                    from: m,
                    to: i,
                    latency_ms: self.latency[i].mean() / MS as f64,
                    paused: n.paused,
                    in_flight_bytes: n.in_flight,
                    behind_bytes: self.nodes[m]
                        .e
                        .repl()
                        .offset
                        .saturating_sub(n.e.repl().offset),
                })
            })
            .collect();
        let net = self.net();
        TopoView {
            now_us: now,
            nodes,
            links,
            sentinels: self.sentinels.views(&net),
            client_master: self.client_master,
            client_isolated_with: self.client_zone,
            failover: self.sentinels.phase_text(),
            last_failover: self.last_failover.clone(),
            writes: self.next_id - 1,
            acked: self.acked,
            refused: self.refused,
            lost: self.lost,
        }
    }

    // ---- the world's rules ----

    fn net(&self) -> Net<'_> {
        Net {
            nodes: &self.nodes,
            now: self.k.now(),
        }
    }

    fn client_reaches(&self, n: usize) -> bool {
        let nd = &self.nodes[n];
        nd.alive && zone_of(nd, n) == self.client_zone
    }

    fn event(&mut self, node: usize, kind: NodeEventKind) {
        let at_us = self.k.now();
        self.events.push(NodeEvent { at_us, node, kind });
        if self.events.len() > 2 * EVENTS_CAP {
            let cut = self.events.len() - EVENTS_CAP;
            self.events.drain(..cut);
        }
    }

    fn admin(&mut self, n: usize, line: &str) -> Frame {
        let nd = &mut self.nodes[n];
        nd.e.execute_line(nd.admin, line)
    }

    fn handle(&mut self, ev: Ev) {
        let now = self.k.now();
        for n in self.nodes.iter_mut().filter(|n| n.alive) {
            n.e.advance_to(now);
        }
        match ev {
            Ev::Write { gen } => {
                if gen == self.write_gen && self.waiting.is_none() {
                    self.write();
                }
            }
            Ev::Deliver {
                to,
                gen,
                ops,
                bytes,
            } => {
                let nd = &mut self.nodes[to];
                if nd.gen != gen || !nd.alive {
                    return;
                }
                nd.in_flight = nd.in_flight.saturating_sub(bytes);
                nd.e.apply_repl(&ops);
                let offset = nd.e.repl().offset;
                let writes = ops
                    .iter()
                    .filter(
                        |o| matches!(&o.effect, Effect::Put { key, .. } if key.starts_with(b"w:")),
                    )
                    .count() as u64;
                self.event(to, NodeEventKind::Arrived { offset, writes });
            }
            Ev::GetAck { to, gen } => {
                if self.nodes[to].gen == gen && self.nodes[to].alive {
                    self.send_ack(to);
                }
            }
            Ev::Ack { from, gen, offset } => {
                let Some(m) = self.nodes[from].master_of else {
                    return;
                };
                if self.nodes[from].gen != gen || !self.nodes[m].alive {
                    return;
                }
                self.nodes[m].e.replica_ack(&addr(from), offset);
                self.event(from, NodeEventKind::Ack { offset });
            }
            Ev::SyncDone { to, gen } => {
                if self.nodes[to].gen == gen && self.link_wanted(to) {
                    self.ship_all();
                    let full = self.attach(to);
                    self.event(
                        to,
                        if full {
                            NodeEventKind::FullSync
                        } else {
                            NodeEventKind::PartialSync
                        },
                    );
                }
            }
            Ev::AckTick => {
                for r in 0..self.nodes.len() {
                    if self.nodes[r].link == LinkSt::Up && self.nodes[r].alive {
                        self.send_ack(r);
                    }
                }
                self.k.after(ACK_PERIOD_US, Ev::AckTick);
            }
            Ev::SentinelTick => {
                self.sentinel_tick();
                self.k.after(TICK_US, Ev::SentinelTick);
            }
            Ev::WaitTimeout => {}
        }
    }

    /// After every event and control: WAIT replies, shipping, links,
    /// persistence events and lost writes.
    fn settle(&mut self) {
        self.collect_wait();
        self.ship_all();
        self.reconcile();
        self.poll_persistence();
        if self.lost_dirty {
            self.check_lost();
        }
    }

    fn write(&mut self) {
        let now = self.k.now();
        let id = self.next_id;
        self.next_id += 1;
        let m = self.client_master;
        self.push_write(WriteRecord {
            id,
            sent_us: now,
            acked_us: None,
            node: m,
            lost_us: None,
            error: None,
        });
        self.event(m, NodeEventKind::Write { id });
        if !self.client_reaches(m) {
            let why = if self.nodes[m].alive {
                "timeout: master unreachable"
            } else {
                "connection refused"
            };
            self.refuse(id, m, why.into());
            self.schedule_write(now);
            return;
        }
        let line = format!("SET w:{id} {}", self.value);
        let nd = &mut self.nodes[m];
        let reply = nd.e.execute_line(nd.app, &line);
        self.ship(m);
        if reply.is_error() {
            self.refuse(id, m, redsim_engine::proto::clifmt::format_reply(&reply));
            self.schedule_write(now);
            return;
        }
        if self.wait <= 0 {
            self.ack(id, m);
            self.schedule_write(now);
            return;
        }
        let want = self.wait;
        let line = format!("WAIT {want} {}", self.opts.wait_timeout_ms.max(0));
        let nd = &mut self.nodes[m];
        match nd.e.submit_line(nd.app, &line) {
            Some(f) => self.finish_wait(id, m, want, &f),
            None => {
                self.waiting = Some((id, m, want));
                if self.nodes[m].e.take_ack_request() {
                    self.get_acks(m);
                }
                let t = (self.opts.wait_timeout_ms.max(0) as u64) * MS + MS;
                self.k.after(t, Ev::WaitTimeout);
            }
        }
    }

    fn schedule_write(&mut self, sent: Micros) {
        if self.rate <= 0.0 {
            return;
        }
        let gen = self.write_gen;
        self.k.at(sent + self.gap(), Ev::Write { gen });
    }

    /// Time between two writes at the current rate.
    fn gap(&self) -> Micros {
        if self.rate <= 0.0 {
            return Micros::MAX / 4;
        }
        ((SEC as f64 / self.rate) as Micros).max(1)
    }

    fn push_write(&mut self, w: WriteRecord) {
        self.writes.push(w);
        if self.writes.len() > 2 * WRITES_CAP {
            let cut = self.writes.len() - WRITES_CAP;
            self.writes.drain(..cut);
        }
    }

    fn record(&mut self, id: u64) -> Option<&mut WriteRecord> {
        let first = self.writes.first()?.id;
        let i = id.checked_sub(first)? as usize;
        self.writes.get_mut(i)
    }

    fn refuse(&mut self, id: u64, node: usize, error: String) {
        self.refused += 1;
        if let Some(w) = self.record(id) {
            w.error = Some(error.clone());
        }
        self.event(node, NodeEventKind::Refused { id, error });
    }

    fn ack(&mut self, id: u64, node: usize) {
        let now = self.k.now();
        self.acked += 1;
        if let Some(w) = self.record(id) {
            w.acked_us = Some(now);
        }
        self.event(node, NodeEventKind::Acked { id });
    }

    fn finish_wait(&mut self, id: u64, node: usize, want: i64, f: &Frame) {
        match f {
            Frame::Integer(k) if *k >= want => self.ack(id, node),
            Frame::Integer(k) => {
                self.refuse(id, node, format!("WAIT reached {k} of {want} replicas"))
            }
            other => self.refuse(id, node, redsim_engine::proto::clifmt::format_reply(other)),
        }
    }

    /// WAIT replies, and WAITs whose connection is gone.
    fn collect_wait(&mut self) {
        let mut replies = Vec::new();
        for (i, n) in self.nodes.iter_mut().enumerate() {
            if n.alive {
                for (c, f) in n.e.take_unblocked() {
                    if c == n.app {
                        replies.push((i, f));
                    }
                }
            }
        }
        let Some((id, node, want)) = self.waiting else {
            return;
        };
        let now = self.k.now();
        if let Some((_, f)) = replies.into_iter().find(|(i, _)| *i == node) {
            self.waiting = None;
            self.finish_wait(id, node, want, &f);
            // Paced from when the write was sent, never before now.
            let sent = self
                .record(id)
                .map_or(now, |w| w.sent_us)
                .max(now.saturating_sub(self.gap()));
            self.schedule_write(sent);
        } else if !self.client_reaches(node) || self.nodes[node].e.repl().is_replica() {
            self.waiting = None;
            self.refuse(id, node, "connection lost before WAIT returned".into());
            self.schedule_write(now);
        }
    }

    /// The master's REPLCONF GETACK, behind the stream on every live link.
    fn get_acks(&mut self, m: usize) {
        for r in 0..self.nodes.len() {
            if let Some((at, gen)) = self.next_arrival(m, r) {
                self.k.at(at, Ev::GetAck { to: r, gen });
            }
        }
    }

    /// When a message master `m` sends replica `r` now arrives, in order
    /// behind what is already on the link (and the link's generation), or
    /// none when `r` has no working link to `m`.
    fn next_arrival(&mut self, m: usize, r: usize) -> Option<(Micros, u64)> {
        if self.nodes[r].master_of != Some(m) || self.nodes[r].link != LinkSt::Up {
            return None;
        }
        let d = self.latency[r].sample(&mut self.k.rng);
        let now = self.k.now();
        let nd = &mut self.nodes[r];
        let at = (now + d).max(nd.last_arrival);
        nd.last_arrival = at;
        Some((at, nd.gen))
    }

    /// `REPLCONF ACK <offset>` from replica `r`, over the link.
    fn send_ack(&mut self, r: usize) {
        let d = self.latency[r].sample(&mut self.k.rng);
        let nd = &self.nodes[r];
        let ev = Ev::Ack {
            from: r,
            gen: nd.gen,
            offset: nd.e.repl().offset,
        };
        self.k.after(d, ev);
    }

    fn ship_all(&mut self) {
        for m in 0..self.nodes.len() {
            if self.nodes[m].alive && !self.nodes[m].e.repl().is_replica() {
                self.ship(m);
            }
        }
    }

    /// Sends what master `m` produced down its working links.
    fn ship(&mut self, m: usize) {
        let ops = self.nodes[m].e.take_repl_stream();
        if ops.is_empty() {
            return;
        }
        let bytes: u64 = ops.iter().map(|o| o.end - o.start).sum();
        for r in 0..self.nodes.len() {
            let Some((at, gen)) = self.next_arrival(m, r) else {
                continue;
            };
            self.nodes[r].in_flight += bytes;
            self.k.at(
                at,
                Ev::Deliver {
                    to: r,
                    gen,
                    ops: ops.clone(),
                    bytes,
                },
            );
        }
    }

    /// Whether replica `r`'s link to its master can work now.
    fn link_wanted(&self, r: usize) -> bool {
        let nd = &self.nodes[r];
        let Some(m) = nd.master_of else { return false };
        let ms = &self.nodes[m];
        nd.alive
            && ms.alive
            && !nd.paused
            && nd.e.repl().is_replica()
            && !ms.e.repl().is_replica()
            && zone_of(nd, r) == zone_of(ms, m)
    }

    /// Breaks links that cannot work and starts reconnecting those that can.
    fn reconcile(&mut self) {
        let now = self.k.now();
        for r in 0..self.nodes.len() {
            let want = self.link_wanted(r);
            let st = self.nodes[r].link;
            match (st, want) {
                (LinkSt::Up | LinkSt::Syncing, false) => {
                    let nd = &mut self.nodes[r];
                    nd.gen += 1;
                    nd.link = LinkSt::Down;
                    nd.in_flight = 0;
                    nd.down_since = now;
                    if nd.alive {
                        nd.e.master_link_down();
                    }
                    if let Some(m) = nd.master_of {
                        if self.nodes[m].alive && st == LinkSt::Up {
                            self.nodes[m].e.replica_gone(&addr(r));
                        }
                    }
                    if st == LinkSt::Up {
                        self.event(r, NodeEventKind::LinkDown);
                    }
                }
                (LinkSt::Down, true) => {
                    let rtt = 2 * self.latency[r].sample(&mut self.k.rng);
                    let nd = &mut self.nodes[r];
                    nd.gen += 1;
                    nd.link = LinkSt::Syncing;
                    let gen = nd.gen;
                    self.k.after(rtt.max(1), Ev::SyncDone { to: r, gen });
                }
                _ => {}
            }
        }
    }

    /// Replica `r` (re)connects to its master: PSYNC, then a partial or
    /// full sync. Returns true when it was a full sync.
    fn attach(&mut self, r: usize) -> bool {
        let Some(m) = self.nodes[r].master_of else {
            return false;
        };
        let (id, off) = self.nodes[r].e.psync_request();
        let s = self.nodes[m].e.psync(&addr(r), &id, off);
        let full = matches!(s, Sync::Full { .. });
        let now = self.k.now();
        if now > 0 {
            self.syncs.push(SyncRecord {
                at_us: now,
                replica: r,
                master: m,
                full,
                replica_offset: off.saturating_sub(1),
                master_offset: self.nodes[m].e.repl().offset,
            });
            if self.syncs.len() > 2 * EVENTS_CAP {
                self.syncs.drain(..EVENTS_CAP);
            }
        }
        let nd = &mut self.nodes[r];
        nd.e.finish_sync(&s);
        nd.link = LinkSt::Up;
        nd.in_flight = 0;
        nd.last_arrival = now;
        let off = nd.e.repl().offset;
        self.nodes[m].e.replica_ack(&addr(r), off);
        if r == self.client_master {
            self.lost_dirty = true;
        }
        full
    }

    fn restart(&mut self, n: usize) {
        let crash = self.nodes[n].crash;
        let mut e = self.nodes[n].e.crash_restart(crash);
        e.advance_to(self.k.now());
        let nd = &mut self.nodes[n];
        nd.app = e.connect("app");
        nd.admin = e.connect("admin");
        nd.trace_seq = e.trace().next_seq();
        nd.e = e;
        nd.alive = true;
        nd.bgsave = false;
        nd.link = LinkSt::Down;
        nd.gen += 1;
        nd.in_flight = 0;
        nd.down_since = self.k.now();
        nd.run_id = run_id(&mut self.k.rng);
        if let Some(m) = nd.master_of {
            // A replica's config file still says replicaof.
            let line = format!("REPLICAOF 10.0.0.{} 6379", m + 1);
            self.admin(n, &line);
        }
        // Acknowledged writes this node answered that it no longer holds.
        let lost_writes = self
            .writes
            .iter()
            .filter(|w| w.node == n && w.acked_us.is_some() && w.lost_us.is_none())
            .filter(|w| !holds(&self.nodes[n].e, w.id))
            .count() as u64;
        self.event(n, NodeEventKind::Restart { lost_writes });
        if n == self.client_master {
            self.lost_dirty = true;
        }
    }

    fn sentinel_tick(&mut self) {
        let now = self.k.now();
        let mut orders = Vec::new();
        let mut evs = Vec::new();
        {
            let net = Net {
                nodes: &self.nodes,
                now,
            };
            self.sentinels.tick(now, &net, &mut orders, &mut evs);
        }
        for ev in evs {
            self.sentinel_event(ev);
        }
        for o in orders {
            let Order::ReplicaOf { node, to } = o;
            self.replicaof(node, to);
        }
        // The client asks the sentinels it can reach (and hears +switch-master).
        let zone = self.client_zone;
        let nodes = self.nodes.len();
        let isolated: Vec<bool> = self.nodes.iter().map(|n| n.isolated).collect();
        let announced = self
            .sentinels
            .announced(|s| sentinel_zone(&isolated, nodes, s) == zone);
        if let Some(m) = announced {
            if m != self.client_master {
                self.client_master = m;
                self.lost_dirty = true;
                self.event(m, NodeEventKind::ClientSwitched);
            }
        }
    }

    fn sentinel_event(&mut self, ev: SentinelEvent) {
        let master = |s: usize, t: &Topology| t.sentinels.s[s].master;
        match ev {
            SentinelEvent::Sdown { sentinel, node } => {
                self.event(node, NodeEventKind::Sdown { sentinel })
            }
            SentinelEvent::Odown {
                sentinel,
                node,
                agree,
            } => self.event(node, NodeEventKind::Odown { sentinel, agree }),
            SentinelEvent::TryFailover { sentinel, epoch } => {
                let m = master(sentinel, self);
                self.event(m, NodeEventKind::TryFailover { sentinel, epoch })
            }
            SentinelEvent::Elected {
                sentinel, epoch, ..
            } => {
                let m = master(sentinel, self);
                self.event(m, NodeEventKind::Elected { sentinel, epoch })
            }
            SentinelEvent::ElectionFailed { sentinel, epoch } => {
                let m = master(sentinel, self);
                self.event(m, NodeEventKind::ElectionFailed { sentinel, epoch })
            }
            SentinelEvent::NoGoodReplica { sentinel } => {
                let m = master(sentinel, self);
                self.event(m, NodeEventKind::NoGoodReplica { sentinel })
            }
            SentinelEvent::SwitchMaster {
                sentinel,
                from,
                to,
                epoch,
            } => {
                self.last_failover = Some(format!(
                    "at {:.1} s sentinel {sentinel} (epoch {epoch}) moved the master from node {from} to node {to}",
                    self.k.now() as f64 / SEC as f64
                ));
                self.event(to, NodeEventKind::SwitchMaster { epoch })
            }
            SentinelEvent::SdownCleared { .. }
            | SentinelEvent::Vote { .. }
            | SentinelEvent::Promoted { .. }
            | SentinelEvent::ConfigUpdate { .. }
            | SentinelEvent::Repoint { .. }
            | SentinelEvent::ConvertToReplica { .. } => {}
        }
    }

    /// A sentinel's `REPLICAOF` reaches node `n`.
    fn replicaof(&mut self, n: usize, to: Option<usize>) {
        let is_replica = self.nodes[n].e.repl().is_replica();
        match to {
            None => {
                if !is_replica {
                    return;
                }
                self.admin(n, "REPLICAOF NO ONE");
                let nd = &mut self.nodes[n];
                nd.master_of = None;
                nd.link = LinkSt::Down;
                nd.gen += 1;
                nd.in_flight = 0;
                self.event(n, NodeEventKind::Promoted);
            }
            Some(m) => {
                if is_replica && self.nodes[n].master_of == Some(m) {
                    return;
                }
                self.admin(n, &format!("REPLICAOF 10.0.0.{} 6379", m + 1));
                let now = self.k.now();
                let nd = &mut self.nodes[n];
                nd.master_of = Some(m);
                nd.link = LinkSt::Down;
                nd.gen += 1;
                nd.in_flight = 0;
                nd.down_since = now;
                self.event(n, NodeEventKind::Repointed { to: m });
            }
        }
        if n == self.client_master {
            self.lost_dirty = true;
        }
    }

    /// Fsyncs and snapshots, from each engine's trace since the last look.
    fn poll_persistence(&mut self) {
        for i in 0..self.nodes.len() {
            if !self.nodes[i].alive {
                continue;
            }
            let mut found = Vec::new();
            let nd = &self.nodes[i];
            for ev in nd.e.trace().since(nd.trace_seq) {
                if let redsim_engine::server::trace::Event::Persisted { what, records } = &ev.event
                {
                    found.push((ev.at_us, what.clone(), *records));
                }
            }
            self.nodes[i].trace_seq = self.nodes[i].e.trace().next_seq();
            let mut fsynced = 0;
            let mut fsync_at = 0;
            for (at, what, records) in found {
                let kind = match what.as_str() {
                    "fsync" => {
                        fsynced += records;
                        fsync_at = at;
                        continue;
                    }
                    "bgsave-start" => {
                        self.nodes[i].bgsave = true;
                        NodeEventKind::SnapshotStart
                    }
                    "rdb" if self.nodes[i].bgsave => {
                        self.nodes[i].bgsave = false;
                        NodeEventKind::SnapshotEnd { cow_bytes: records }
                    }
                    _ => continue,
                };
                self.event_at(at, i, kind);
            }
            if fsynced > 0 {
                self.event_at(fsync_at, i, NodeEventKind::Fsync { records: fsynced });
            }
        }
    }

    fn event_at(&mut self, at_us: u64, node: usize, kind: NodeEventKind) {
        // Engine instants never run ahead of the kernel's; keep the timeline ordered.
        let at_us = at_us
            .min(self.k.now())
            .max(self.events.last().map_or(0, |e| e.at_us));
        self.events.push(NodeEvent { at_us, node, kind });
    }

    /// Marks acknowledged writes the client's master no longer holds.
    fn check_lost(&mut self) {
        let m = self.client_master;
        if !self.nodes[m].alive {
            return;
        }
        self.lost_dirty = false;
        let now = self.k.now();
        let mut ids = Vec::new();
        let e = &self.nodes[m].e;
        for w in self.writes.iter_mut() {
            if w.acked_us.is_some() && w.lost_us.is_none() && !holds(e, w.id) {
                w.lost_us = Some(now);
                ids.push(w.id);
            }
        }
        if !ids.is_empty() {
            self.lost += ids.len() as u64;
            self.event(m, NodeEventKind::Lost { ids });
        }
    }
}

fn holds(e: &Engine, id: u64) -> bool {
    let key = format!("w:{id}");
    e.holds_key(0, key.as_bytes())
}

fn run_id(rng: &mut fastrand::Rng) -> String {
    (0..40)
        .map(|_| char::from_digit(rng.u32(0..16), 16).unwrap_or('0'))
        .collect()
}

fn fsync_lines(mode: &str) -> Vec<String> {
    if mode == "off" {
        vec!["CONFIG SET appendonly no".into()]
    } else {
        vec![
            format!("CONFIG SET appendfsync {mode}"),
            "CONFIG SET appendonly yes".into(),
        ]
    }
}

/// Which side of a partition a node is on (None: the main side).
fn zone_of(n: &Node, id: usize) -> Option<usize> {
    n.isolated.then_some(id)
}

/// Sentinel `s` runs on node `s`'s machine when there is one.
fn sentinel_zone(isolated: &[bool], nodes: usize, s: usize) -> Option<usize> {
    (s < nodes && isolated[s]).then_some(s)
}

struct Net<'a> {
    nodes: &'a [Node],
    now: Micros,
}

impl Net<'_> {
    fn szone(&self, s: usize) -> Option<usize> {
        (s < self.nodes.len() && self.nodes[s].isolated).then_some(s)
    }
}

impl SentinelNet for Net<'_> {
    fn nodes(&self) -> usize {
        self.nodes.len()
    }

    fn reaches_node(&self, s: usize, n: usize) -> bool {
        let nd = &self.nodes[n];
        nd.alive && zone_of(nd, n) == self.szone(s)
    }

    fn reaches_sentinel(&self, a: usize, b: usize) -> bool {
        self.szone(a) == self.szone(b)
    }

    fn info(&self, n: usize) -> NodeInfo {
        let nd = &self.nodes[n];
        let r = nd.e.repl();
        NodeInfo {
            is_master: !r.is_replica(),
            master: if r.is_replica() { nd.master_of } else { None },
            offset: r.offset,
            priority: nd.e.config().replica_priority,
            link_down_us: if nd.link == LinkSt::Up {
                0
            } else {
                self.now.saturating_sub(nd.down_since)
            },
            run_id: nd.run_id.clone(),
        }
    }
}

// ---- the catalogue scenario ----

use crate::outcome::{Chart, Outcome, Series, Strip, StripRow};
use crate::{ParamSpec, Params, Scenario, ScenarioInfo};

pub const REPLICATION_TOPOLOGY: Scenario = Scenario {
    info: topo_info,
    run: topo_run,
};

const SCRIPTS: &[&str] = &[
    "kill-master",
    "partition-master",
    "pause-replica",
    "power-loss",
];
const KILL: usize = 0;
const PARTITION: usize = 1;
/// Index 3 is power-loss.
const PAUSE: usize = 2;

fn topo_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "replication-topology",
        group: "topology",
        title: "A replication topology under faults",
        claim: "With asynchronous replication a failover or a crash throws away acknowledged writes unless the client waited for replicas or the disk; a master cut off with its clients keeps acknowledging writes that vanish when it rejoins (min-replicas-to-write bounds them); a replica that falls further behind than the backlog holds needs a full resync.",
        look_for: "One lane per node plus the client and the sentinels. Kill the master: sentinels mark it SDOWN, agree on ODOWN, elect a leader in a new epoch and promote the replica with the best priority and offset; the client is refused until +switch-master. Partition it instead: the sentinels on the majority side fail over while the client, cut off with the old master, keeps writing to it; at the heal those writes are marked lost. Pause a replica's link briefly and it continues from the backlog; pause it long and it full-syncs. Power loss: the master restarts from its files before any failover and only appendfsync always keeps every acknowledged write.",
        params: vec![
            ParamSpec::choice("script", 0, SCRIPTS, "kill-master: the master dies at 4 s and restarts at 14 s; partition-master: the master and its client are cut off from 4 s to 14 s; pause-replica: replica 1's link stops for 1 s, replica 2's for 10 s; power-loss: the master's machine loses power at 4.7 s and restarts half a second later"),
            ParamSpec::choice("appendfsync", 1, FSYNC_MODES, "every node's AOF fsync policy (off: no AOF, RDB snapshots only)"),
            ParamSpec::num("wait", 0.0, (0.0, 4.0, 1.0), "replicas", "WAIT for this many replicas after each write (0: no WAIT)"),
            ParamSpec::num("replicas", 2.0, (1.0, 4.0, 1.0), "", "replicas of the master"),
            ParamSpec::num("writes_per_sec", 50.0, (5.0, 500.0, 5.0), "writes/s", "the client's write rate"),
            ParamSpec::num("link_latency_ms", 20.0, (1.0, 500.0, 1.0), "ms", "one-way latency of replication links (plus up to 50% jitter)"),
            ParamSpec::num("down_after_ms", 2_000.0, (500.0, 10_000.0, 100.0), "ms", "Sentinel's down-after-milliseconds (3 sentinels, quorum 2)"),
        ],
    }
}

/// The canned control script for `which`, and how long to run.
fn canned(which: usize) -> (Vec<(u64, Control)>, u64) {
    let kill = |power_loss| Control::Kill {
        node: 0,
        power_loss,
    };
    match which {
        KILL => (
            vec![
                (4 * SEC, kill(false)),
                (14 * SEC, Control::Restart { node: 0 }),
            ],
            26 * SEC,
        ),
        PARTITION => (
            vec![
                (4 * SEC, Control::Partition { node: 0 }),
                (14 * SEC, Control::Heal { node: 0 }),
            ],
            26 * SEC,
        ),
        PAUSE => (
            vec![
                (3 * SEC, Control::PauseLink { replica: 1 }),
                (4 * SEC, Control::ResumeLink { replica: 1 }),
                (6 * SEC, Control::PauseLink { replica: 2 }),
                (16 * SEC, Control::ResumeLink { replica: 2 }),
            ],
            20 * SEC,
        ),
        _ => (
            vec![
                (4_700_000, kill(true)),
                (5_200_000, Control::Restart { node: 0 }),
            ],
            8 * SEC,
        ),
    }
}

fn topo_options(p: &Params, seed: u64, which: usize) -> TopoOptions {
    let replicas = p.count("replicas").clamp(1, 4) as usize;
    TopoOptions {
        seed,
        // The pause script needs a second replica to pause for long.
        replicas: if which == PAUSE {
            replicas.max(2)
        } else {
            replicas
        },
        sentinels: 3,
        quorum: 2,
        down_after_ms: p.count("down_after_ms"),
        link_latency_ms: p.get("link_latency_ms"),
        writes_per_sec: p.get("writes_per_sec"),
        wait: p.count("wait") as i64,
        appendfsync: FSYNC_MODES[p.choice("appendfsync").min(FSYNC_MODES.len() - 1)].into(),
        // A small backlog and larger values, so a pause outgrows it in seconds.
        repl_backlog_size: if which == PAUSE { 32 * 1024 } else { 1 << 20 },
        value_bytes: if which == PAUSE { 100 } else { 16 },
        ..TopoOptions::default()
    }
}

fn topo_run(p: &Params, seed: u64) -> Outcome {
    let which = p.choice("script").min(SCRIPTS.len() - 1);
    let opts = topo_options(p, seed, which);
    let (script, until) = canned(which);
    let (t, lag) = play(&opts, &script, until);
    let mut out = Outcome::new("replication-topology", seed, p);
    out.duration_us = until;
    let v = t.view();
    let fault = script[0].0;
    out.metric("acknowledged writes", v.acked as f64, "writes");
    out.metric("refused writes", v.refused as f64, "writes");
    out.metric("acknowledged then lost", v.lost as f64, "writes");
    let gap = unavailability(&t, fault);
    out.metric(
        "longest gap between acknowledged writes",
        gap as f64 / MS as f64,
        "ms",
    );
    let (full, partial) = syncs(&t);
    out.metric("full resyncs", full as f64, "");
    out.metric("partial resyncs", partial as f64, "");
    consistency_check(&mut out, &t);
    match which {
        KILL => {
            let waited = TopoOptions {
                wait: opts.replicas as i64,
                ..opts.clone()
            };
            let w = play(&waited, &script, until).0.view();
            out.check(
                "WAIT for every replica: no acknowledged write is lost in the failover",
                w.lost == 0,
                format!(
                    "{} lost with WAIT {} ({} acknowledged); {} lost here",
                    w.lost, opts.replicas, w.acked, v.lost
                ),
            );
            out.check(
                "the client cannot write from the crash until the sentinels switch masters (at least down-after)",
                gap >= opts.down_after_ms * MS,
                format!("{} ms without an acknowledged write; down-after {} ms", gap / MS, opts.down_after_ms),
            );
        }
        PARTITION => {
            let plain = TopoOptions {
                wait: 0,
                ..opts.clone()
            };
            let guarded = TopoOptions {
                wait: 0,
                min_replicas_to_write: 1,
                min_replicas_max_lag: 2,
                ..opts.clone()
            };
            let a = play(&plain, &script, until).0.view();
            let b = play(&guarded, &script, until).0.view();
            out.check(
                "writes the isolated master acknowledged are lost when the partition heals; min-replicas-to-write 1 (max lag 2 s) bounds them",
                a.lost > 0 && b.lost < a.lost,
                format!("no WAIT: {} lost; with min-replicas-to-write: {}", a.lost, b.lost),
            );
        }
        PAUSE => {
            let expected = pause_expectations(&t, &script);
            let ok = expected.iter().all(|(_, want, got)| Some(*want) == *got);
            out.check(
                "a replica resyncs partially when the backlog still holds its offset, fully when it does not",
                ok && expected.iter().any(|(_, f, _)| *f) && expected.iter().any(|(_, f, _)| !*f),
                expected
                    .iter()
                    .map(|(r, want, got)| {
                        format!(
                            "replica {r}: backlog says {}, saw {}",
                            if *want { "full" } else { "partial" },
                            match got {
                                Some(true) => "full",
                                Some(false) => "partial",
                                None => "none",
                            }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            );
        }
        _ => {
            let mut lost = Vec::new();
            for mode in FSYNC_MODES {
                let o = TopoOptions {
                    appendfsync: mode.to_string(),
                    wait: 0,
                    ..opts.clone()
                };
                lost.push(play(&o, &script, until).0.view().lost);
            }
            out.charts.push(
                Chart::bars(
                    "Acknowledged writes lost to a power loss, by appendfsync",
                    "writes",
                    FSYNC_MODES,
                )
                .with(Series::new(
                    "lost",
                    lost.iter()
                        .enumerate()
                        .map(|(i, l)| (i as f64, *l as f64))
                        .collect(),
                )),
            );
            let per_sec = opts.writes_per_sec;
            out.check(
                "after a power loss appendfsync always loses nothing acknowledged, everysec about a second, no and RDB-only far more",
                lost[0] == 0 && (lost[1] as f64) <= per_sec * 2.0 + 2.0 && lost[2] > lost[1] && lost[3] > lost[1],
                format!("always {}, everysec {}, no {}, off {}", lost[0], lost[1], lost[2], lost[3]),
            );
        }
    }
    let mut chart = Chart::line(
        "Replica lag: bytes behind its master",
        "virtual time (s)",
        "bytes",
    );
    chart.series = lag;
    out.charts.push(chart);
    out.strips.push(write_strip(&t, fault));
    out.diagram = Some(diagram(&t));
    out.note(format!(
        "{} writes sent, {} acknowledged, {} refused, {} acknowledged and later lost; the client ends on node {} ({}).",
        v.writes, v.acked, v.refused, v.lost, v.client_master, addr(v.client_master)
    ));
    out
}

/// Replays `script` to `until`, sampling each replica's lag every 100 ms.
fn play(opts: &TopoOptions, script: &[(u64, Control)], until: u64) -> (Topology, Vec<Series>) {
    let mut t = Topology::new(opts.clone());
    let n = t.nodes.len();
    let mut lag: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
    let mut next = 0;
    let mut now = 0;
    while now <= until {
        while next < script.len() && script[next].0 <= now {
            t.advance_to(script[next].0);
            let _ = t.control(script[next].1.clone());
            next += 1;
        }
        t.advance_to(now);
        for l in t.view().links {
            lag[l.to].push((now as f64 / SEC as f64, l.behind_bytes as f64));
        }
        now += TICK_US;
    }
    let series = lag
        .into_iter()
        .enumerate()
        .filter(|(_, pts)| !pts.is_empty())
        .map(|(i, pts)| Series::new(&format!("node {i}"), pts))
        .collect();
    (t, series)
}

/// The longest stretch after `from` without an acknowledged write.
fn unavailability(t: &Topology, from: u64) -> u64 {
    let mut last = from;
    let mut worst = 0;
    for w in t.writes() {
        if let Some(a) = w.acked_us {
            if a >= from {
                worst = worst.max(a - last);
                last = a;
            }
        }
    }
    worst.max(t.now_us().saturating_sub(last))
}

fn syncs(t: &Topology) -> (u64, u64) {
    let mut full = 0;
    let mut partial = 0;
    for e in t.events() {
        match e.kind {
            NodeEventKind::FullSync => full += 1,
            NodeEventKind::PartialSync => partial += 1,
            _ => {}
        }
    }
    (full, partial)
}

/// For each paused replica: whether the stream it missed outgrew the
/// backlog (so a full resync is due), and whether its resync was full.
fn pause_expectations(t: &Topology, script: &[(u64, Control)]) -> Vec<(usize, bool, Option<bool>)> {
    let mut out = Vec::new();
    for (at, c) in script {
        let Control::PauseLink { replica } = c else {
            continue;
        };
        let sync = t
            .syncs()
            .iter()
            .find(|s| s.replica == *replica && s.at_us > *at);
        let want_full = sync.is_some_and(|s| {
            s.master_offset.saturating_sub(s.replica_offset) > t.opts.repl_backlog_size
        });
        out.push((*replica, want_full, sync.map(|s| s.full)));
    }
    out
}

/// Every acknowledged write is either held by the client's master or marked lost.
fn consistency_check(out: &mut Outcome, t: &Topology) {
    let m = t.view().client_master;
    let e = &t.nodes[m].e;
    let bad = t
        .writes()
        .iter()
        .filter(|w| w.acked_us.is_some())
        .filter(|w| holds(e, w.id) == w.lost_us.is_some())
        .count();
    out.check(
        "every acknowledged write is either on the client's final master or marked lost",
        bad == 0 && t.nodes[m].alive,
        format!("{bad} writes contradict their marking (final master node {m})"),
    );
}

const STRIP_LEGEND: &[&str] = &[
    "refused",
    "acknowledged",
    "acknowledged, then lost",
    "absent",
    "held",
];

/// One cell per write from 2 s before the first control: the client's
/// verdict, then which nodes hold each write at the end.
fn write_strip(t: &Topology, fault: u64) -> Strip {
    let ws: Vec<&WriteRecord> = t
        .writes()
        .iter()
        .filter(|w| w.sent_us + 2 * SEC >= fault)
        .take(800)
        .collect();
    let mut rows = vec![StripRow {
        label: "client".into(),
        cells: ws
            .iter()
            .map(|w| match (w.acked_us, w.lost_us) {
                (None, _) => 0,
                (Some(_), None) => 1,
                (Some(_), Some(_)) => 2,
            })
            .collect(),
    }];
    for (i, n) in t.nodes.iter().enumerate() {
        rows.push(StripRow {
            label: format!("node {i}{}", if n.alive { "" } else { " (down)" }),
            cells: ws
                .iter()
                .map(|w| if holds(&n.e, w.id) { 4 } else { 3 })
                .collect(),
        });
    }
    Strip {
        title: "Each write from 2 s before the first fault: the client's verdict, and which nodes hold it at the end".into(),
        legend: STRIP_LEGEND.iter().map(|s| s.to_string()).collect(),
        rows,
    }
}

/// The race diagram: a lane per node, the client and the sentinels.
fn diagram(t: &Topology) -> crate::Diagram {
    let mut rec = crate::Recorder {
        step_cap: 240,
        ..Default::default()
    };
    let client = rec.lane("client", "client");
    let n = t.nodes.len();
    let lanes: Vec<usize> = (0..n)
        .map(|i| rec.lane(&format!("node {i} {}", addr(i)), "redis"))
        .collect();
    let sent = rec.lane("sentinels", "sentinel");
    let mut refused_streak = false;
    let mut lost_ids = std::collections::BTreeSet::new();
    for e in t.events() {
        if let NodeEventKind::Lost { ids } = &e.kind {
            lost_ids.extend(ids.iter().copied());
        }
    }
    let step = MS * 5;
    for e in t.events() {
        let (at, lane) = (e.at_us, lanes[e.node]);
        match &e.kind {
            NodeEventKind::Acked { id } => {
                refused_streak = false;
                if lost_ids.contains(id) && lost_ids.range(..id).count() < 12 {
                    rec.msg(
                        at,
                        at + step,
                        client,
                        lane,
                        format!("SET w:{id} → OK (later lost)"),
                    );
                }
            }
            NodeEventKind::Refused { id, error } => {
                if !refused_streak {
                    rec.err(at, at + step, client, lane, format!("w:{id}: {error}"));
                }
                refused_streak = true;
            }
            NodeEventKind::Crash { power_loss } => rec.local(
                at,
                at + step,
                lane,
                if *power_loss {
                    "power loss"
                } else {
                    "process killed"
                },
            ),
            NodeEventKind::Restart { lost_writes } => {
                rec.local(at, at + step, lane, "restart from its files");
                let tone = if *lost_writes > 0 { "bad" } else { "good" };
                rec.mark(
                    at,
                    lane,
                    tone,
                    format!("Restarted missing {lost_writes} writes it had acknowledged."),
                );
            }
            NodeEventKind::Partitioned => rec.local(at, at + step, lane, "partitioned"),
            NodeEventKind::Healed => rec.local(at, at + step, lane, "partition heals"),
            NodeEventKind::LinkPaused => rec.local(at, at + step, lane, "link paused"),
            NodeEventKind::LinkResumed => rec.local(at, at + step, lane, "link resumed"),
            NodeEventKind::Appendfsync { mode } => {
                rec.local(at, at + step, lane, format!("appendfsync {mode}"))
            }
            NodeEventKind::Sdown { sentinel } => rec.local(
                at,
                at + step,
                sent,
                format!("sentinel {sentinel} +sdown node {}", e.node),
            ),
            NodeEventKind::Odown { sentinel, agree } => rec.mark(
                at,
                sent,
                "info",
                format!(
                    "sentinel {sentinel}: +odown node {} ({agree} agree)",
                    e.node
                ),
            ),
            NodeEventKind::TryFailover { sentinel, epoch } => rec.local(
                at,
                at + step,
                sent,
                format!("sentinel {sentinel} +try-failover epoch {epoch}"),
            ),
            NodeEventKind::Elected { sentinel, epoch } => rec.local(
                at,
                at + step,
                sent,
                format!("sentinel {sentinel} elected leader of epoch {epoch}"),
            ),
            NodeEventKind::ElectionFailed { sentinel, epoch } => rec.mark(
                at,
                sent,
                "info",
                format!("sentinel {sentinel}: no majority in epoch {epoch}"),
            ),
            NodeEventKind::NoGoodReplica { sentinel } => rec.mark(
                at,
                sent,
                "bad",
                format!("sentinel {sentinel}: no replica fit for promotion"),
            ),
            NodeEventKind::Promoted => rec.msg(at, at + step, sent, lane, "REPLICAOF NO ONE"),
            NodeEventKind::Repointed { to } => rec.msg(
                at,
                at + step,
                sent,
                lane,
                format!("REPLICAOF {}", addr(*to)),
            ),
            NodeEventKind::SwitchMaster { epoch } => rec.msg(
                at,
                at + step,
                sent,
                client,
                format!("+switch-master {} (epoch {epoch})", addr(e.node)),
            ),
            NodeEventKind::ClientSwitched => rec.local(
                at,
                at + step,
                client,
                format!("writes go to node {}", e.node),
            ),
            NodeEventKind::FullSync | NodeEventKind::PartialSync => {
                let full = e.kind == NodeEventKind::FullSync;
                let master = t
                    .syncs()
                    .iter()
                    .find(|s| s.at_us == at && s.replica == e.node)
                    .map_or(e.node, |s| s.master);
                let label = if full {
                    "full resync (RDB)"
                } else {
                    "partial resync (backlog)"
                };
                rec.msg(at.saturating_sub(step), at, lanes[master], lane, label);
                if full {
                    rec.mark(at, lane, "info", "Full resync: the master's backlog no longer holds this replica's offset (or the history changed), so it loads a snapshot of the whole dataset.");
                } else {
                    rec.mark(
                        at,
                        lane,
                        "good",
                        "Partial resync: the backlog still holds everything this replica missed.",
                    );
                }
            }
            NodeEventKind::LinkDown => rec.local(at, at + step, lane, "link to master down"),
            NodeEventKind::Lost { ids } => rec.mark(
                at,
                lane,
                "bad",
                format!(
                    "{} acknowledged writes are not on the client's master (w:{}…w:{})",
                    ids.len(),
                    ids.first().copied().unwrap_or(0),
                    ids.last().copied().unwrap_or(0)
                ),
            ),
            NodeEventKind::SnapshotStart => rec.local(at, at + step, lane, "BGSAVE fork"),
            NodeEventKind::Write { .. }
            | NodeEventKind::Arrived { .. }
            | NodeEventKind::Ack { .. }
            | NodeEventKind::Fsync { .. }
            | NodeEventKind::SnapshotEnd { .. } => {}
        }
    }
    rec.take_diagram()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(t: &Topology, node: usize) -> Vec<&NodeEventKind> {
        t.events()
            .iter()
            .filter(|e| e.node == node)
            .map(|e| &e.kind)
            .collect()
    }

    #[test]
    fn killing_the_master_fails_over_and_the_client_follows() {
        let mut t = Topology::new(TopoOptions::default());
        t.advance_to(5 * SEC);
        assert_eq!(t.view().client_master, 0);
        t.control(Control::Kill {
            node: 0,
            power_loss: false,
        })
        .unwrap();
        t.advance_to(15 * SEC);
        let v = t.view();
        assert_ne!(v.client_master, 0);
        assert_eq!(v.nodes[v.client_master].role, "master");
        assert!(kinds(&t, v.client_master).contains(&&NodeEventKind::Promoted));
        assert!(v.failover.is_none());
        let last = v.last_failover.unwrap();
        assert!(
            last.contains(&format!("from node 0 to node {}", v.client_master)),
            "{last}"
        );
        assert!(v.acked > 0 && v.refused > 0);
        // The other replica follows the new master.
        let other = 3 - v.client_master;
        assert_eq!(v.nodes[other].master_of, Some(v.client_master));
        // Writes are refused only between the crash and the switch.
        let first_ok_after = t
            .writes()
            .iter()
            .find(|w| w.sent_us > 5 * SEC && w.acked_us.is_some())
            .unwrap();
        assert!(
            first_ok_after.sent_us >= 5 * SEC + 2 * SEC,
            "down-after is 2 s"
        );
        assert!(first_ok_after.sent_us < 5 * SEC + 6 * SEC);
    }

    fn session() -> (TopoOptions, Vec<(u64, Control)>) {
        let o = TopoOptions {
            seed: 7,
            ..TopoOptions::default()
        };
        let script = vec![
            (0, Control::SetWriteRate(40.0)),
            (1_500_000, Control::SetWriteRate(60.0)),
            (1_500_000, Control::SetWait(1)),
            (3_000_000, Control::PauseLink { replica: 2 }),
            (3_700_000, Control::ResumeLink { replica: 2 }),
            (3_900_000, Control::SetWait(0)),
            (4_000_000, Control::Partition { node: 0 }),
            (9_000_000, Control::Heal { node: 0 }),
            (9_000_000, Control::SetWriteRate(80.0)),
            (
                12_000_000,
                Control::Kill {
                    node: 1,
                    power_loss: true,
                },
            ),
            (14_250_000, Control::Restart { node: 1 }),
            (
                15_000_000,
                Control::SetAppendfsync {
                    node: 2,
                    mode: "always".into(),
                },
            ),
        ];
        (o, script)
    }

    #[test]
    fn same_seed_and_script_give_the_same_events_and_replay_reproduces_the_state() {
        let (o, script) = session();
        // Live: uneven steps, as animation frames would be.
        let mut live = Topology::new(o.clone());
        let mut t = 0;
        let mut next = script.iter().peekable();
        while t < 20 * SEC {
            t += 16_667;
            while let Some((at, c)) = next.peek() {
                if *at > t {
                    break;
                }
                // Controls at one instant come without a step between
                // them, as two clicks on a paused clock do.
                if *at > live.now_us() {
                    live.advance_to(*at);
                }
                live.control(c.clone()).unwrap();
                next.next();
            }
            live.advance_to(t);
        }
        assert_eq!(live.script(), &script[..]);
        let again = Topology::replay(o.clone(), live.script(), live.now_us());
        let json =
            |t: &Topology| serde_json::to_string(&(t.view(), t.events(), t.writes())).unwrap();
        assert_eq!(json(&live), json(&again));
        let other = Topology::replay(TopoOptions { seed: 8, ..o }, &script, live.now_us());
        assert_ne!(json(&live), json(&other), "the seed matters");
        assert!(live.view().lost > 0, "the healed partition lost writes");
    }

    #[test]
    fn a_short_pause_resyncs_partially_a_long_one_fully() {
        let o = TopoOptions {
            repl_backlog_size: 16 * 1024,
            value_bytes: 100,
            writes_per_sec: 100.0,
            ..TopoOptions::default()
        };
        // About 13 KB of stream a second: 0.5 s fits in 16 KB, 5 s does not.
        let script = [
            (SEC, Control::PauseLink { replica: 1 }),
            (1_500_000, Control::ResumeLink { replica: 1 }),
            (2 * SEC, Control::PauseLink { replica: 2 }),
            (7 * SEC, Control::ResumeLink { replica: 2 }),
        ];
        let t = Topology::replay(o, &script, 8 * SEC);
        let syncs = |n| {
            t.events()
                .iter()
                .filter(|e| e.node == n && e.at_us > SEC)
                .filter_map(|e| match e.kind {
                    NodeEventKind::FullSync => Some("full"),
                    NodeEventKind::PartialSync => Some("partial"),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(syncs(1), ["partial"]);
        assert_eq!(syncs(2), ["full"]);
        let v = t.view();
        assert!(
            v.links.iter().all(|l| l.behind_bytes < 2_000),
            "{:?}",
            v.links
        );
    }

    fn power_loss(mode: &str) -> (u64, u64) {
        let o = TopoOptions {
            appendfsync: mode.into(),
            save: "".into(),
            down_after_ms: 5_000,
            ..TopoOptions::default()
        };
        let script = [
            (
                3_500_000,
                Control::Kill {
                    node: 0,
                    power_loss: true,
                },
            ),
            (4 * SEC, Control::Restart { node: 0 }),
        ];
        let t = Topology::replay(o, &script, 6 * SEC);
        let v = t.view();
        assert_eq!(v.client_master, 0, "{mode}: restarted before any failover");
        let restart_lost = t
            .events()
            .iter()
            .find_map(|e| match e.kind {
                NodeEventKind::Restart { lost_writes } => Some(lost_writes),
                _ => None,
            })
            .unwrap();
        assert_eq!(restart_lost, v.lost, "{mode}");
        (v.lost, v.acked)
    }

    #[test]
    fn power_loss_with_appendfsync_always_loses_nothing_acknowledged() {
        let (always, acked) = power_loss("always");
        assert_eq!(always, 0);
        assert!(acked > 150);
        let (everysec, _) = power_loss("everysec");
        assert!(
            (1..=60).contains(&everysec),
            "about the last second: {everysec}"
        );
        let (no, _) = power_loss("no");
        let (off, _) = power_loss("off");
        assert!(no > everysec && off > everysec, "{no} {off}");
    }

    #[test]
    fn replica_priority_beats_offset_in_the_election() {
        let o = TopoOptions {
            replicas: 3,
            priorities: vec![100, 100, 50, 0],
            ..TopoOptions::default()
        };
        let t = Topology::replay(
            o,
            &[(
                2 * SEC,
                Control::Kill {
                    node: 0,
                    power_loss: false,
                },
            )],
            10 * SEC,
        );
        assert_eq!(t.view().client_master, 2);
    }

    #[test]
    fn a_partitioned_master_keeps_its_client_until_the_heal_unless_min_replicas_stops_it() {
        let run = |min: i64| {
            let o = TopoOptions {
                min_replicas_to_write: min,
                min_replicas_max_lag: 2,
                ..TopoOptions::default()
            };
            let script = [
                (2 * SEC, Control::Partition { node: 0 }),
                (12 * SEC, Control::Heal { node: 0 }),
            ];
            let t = Topology::replay(o, &script, 25 * SEC);
            let v = t.view();
            assert_ne!(v.client_master, 0);
            // The old master was converted to a replica of the new one.
            assert_eq!(v.nodes[0].master_of, Some(v.client_master));
            assert_eq!(v.nodes[0].link_status, "up");
            v.lost
        };
        let plain = run(0);
        let guarded = run(1);
        assert!(
            plain > 300,
            "ten seconds of writes to the isolated master: {plain}"
        );
        assert!(guarded < plain / 3, "{guarded} vs {plain}");
    }

    #[test]
    fn controls_round_trip_as_tokens_and_bad_ones_are_refused() {
        let all = [
            Control::Kill {
                node: 0,
                power_loss: false,
            },
            Control::Kill {
                node: 3,
                power_loss: true,
            },
            Control::Restart { node: 1 },
            Control::Partition { node: 1 },
            Control::Heal { node: 1 },
            Control::PauseLink { replica: 2 },
            Control::ResumeLink { replica: 2 },
            Control::SetAppendfsync {
                node: 0,
                mode: "off".into(),
            },
            Control::Failover,
            Control::SetWait(2),
            Control::SetWriteRate(200.0),
            Control::SetWriteRate(0.25),
        ];
        for c in all {
            let tok = c.token();
            assert!(tok.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.'));
            assert_eq!(Control::parse(&tok), Ok(c), "{tok}");
        }
        assert_eq!(
            Control::Kill {
                node: 0,
                power_loss: true
            }
            .token(),
            "kill.0.power"
        );
        for bad in [
            "",
            "kill",
            "kill.x",
            "fsync.0.sometimes",
            "rate.-1",
            "rate.inf",
            "failover.1",
            "wait.a",
            "part.1.2",
        ] {
            assert!(Control::parse(bad).is_err(), "{bad}");
        }
        let mut t = Topology::new(TopoOptions::default());
        assert!(t.control(Control::Restart { node: 0 }).is_err());
        assert!(t.control(Control::Heal { node: 1 }).is_err());
        assert!(t
            .control(Control::Kill {
                node: 9,
                power_loss: false
            })
            .is_err());
        assert!(t.control(Control::SetWait(-1)).is_err());
        assert!(t.script().is_empty(), "refused controls are not logged");
    }

    #[test]
    fn a_forced_failover_promotes_a_replica_while_the_master_lives() {
        let mut t = Topology::new(TopoOptions::default());
        t.advance_to(2 * SEC);
        t.control(Control::Failover).unwrap();
        assert!(t.control(Control::Failover).unwrap_err().contains("INPROG"));
        t.advance_to(15 * SEC);
        let v = t.view();
        assert_ne!(v.client_master, 0);
        // The old master, alive, is converted to a replica (after 8 s).
        assert_eq!(v.nodes[0].role, "replica");
        assert_eq!(v.nodes[0].master_of, Some(v.client_master));
    }

    #[test]
    fn events_and_writes_stay_bounded() {
        let o = TopoOptions {
            writes_per_sec: 1_000.0,
            ..TopoOptions::default()
        };
        let mut t = Topology::new(o);
        t.advance_to(20 * SEC);
        assert!(t.events().len() <= 2 * EVENTS_CAP);
        assert!(t.events().windows(2).all(|w| w[0].at_us <= w[1].at_us));
        assert!(t.view().acked > 19_000);
    }

    #[test]
    fn every_canned_script_passes_its_checks() {
        for script in SCRIPTS {
            for seed in [1, 2, 3] {
                let out =
                    crate::run_with("replication-topology", seed, &[("script", script)]).unwrap();
                assert!(out.checks.len() >= 2, "{script}");
                for c in &out.checks {
                    assert!(c.passed, "{script} seed {seed}: {} ({})", c.claim, c.detail);
                }
                let d = out.diagram.as_ref().unwrap();
                assert!(!d.marks.is_empty() && !d.steps.is_empty(), "{script}");
                assert_eq!(out.strips[0].rows.len(), 4, "client + 3 nodes");
            }
        }
    }

    #[test]
    fn wait_one_is_not_enough_when_sentinel_promotes_the_slow_replica() {
        let run = |seed, wait| {
            let o = TopoOptions {
                seed,
                wait,
                writes_per_sec: 100.0,
                // Node 1 is fast but less preferred; node 2 is slow.
                latencies_ms: vec![20.0, 2.0, 80.0],
                priorities: vec![100, 200, 100],
                ..TopoOptions::default()
            };
            let kill = Control::Kill {
                node: 0,
                power_loss: false,
            };
            let t = Topology::replay(o, &[(3 * SEC, kill)], 10 * SEC);
            let v = t.view();
            assert_eq!(v.client_master, 2, "priority beats offset");
            // Link latencies belong to the replica: 2 ms plus half the jitter's 1 ms.
            let into1 = v.links.iter().find(|l| l.to == 1).unwrap();
            assert_eq!((into1.from, into1.latency_ms), (2, 2.5));
            v.lost
        };
        let one: u64 = (1..=3).map(|s| run(s, 1)).sum();
        let all: u64 = (1..=3).map(|s| run(s, 2)).sum();
        assert!(
            one > 0,
            "WAIT 1 answered by the fast replica, then it was not promoted"
        );
        assert_eq!(all, 0);
    }
}
