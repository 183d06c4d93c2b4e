//! An interactive replication topology: a master, replicas and sentinels made of real engines on the discrete-event kernel, steppable in virtual time and poked live (kill, partition, pause a link, change appendfsync, fail over), with per-node timelines and the acknowledged writes each fault loses.
//!
//! Everything is deterministic: the same [`TopoOptions`] and the same
//! controls at the same virtual instants give the same state, so a share link
//! only needs the options and [`Topology::script`] ([`Topology::replay`]).
//!
//! The world, as modelled:
//! - nodes `0..=replicas` at `10.0.0.<id+1>:6379`; node 0 starts as master.
//!   Replication links ([`crate::replication::link`]) carry the stream with
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

mod client;
mod control;
mod nodes;
mod options;
mod records;
mod served;
#[cfg(test)]
mod tests;

pub use control::Control;
pub use options::{
    options_query, set_option, Field, Range, TopoOption, TopoOptions, FSYNC_MODES, OPTIONS,
};
pub use records::{
    LinkView, NodeEvent, NodeEventKind, NodeView, SentinelView, SyncRecord, TopoView, WriteRecord,
};

use crate::kernel::{Dist, Kernel, Micros, MS, SEC};
use crate::replication::link::{Engines, LinkMsg, LinkState, ReplLinks};
use crate::replication::net::NetView;
use crate::replication::sentinel::{SentinelConfig, SentinelEvent, Sentinels, TICK_US};
use crate::seeds;
use redsim_engine::persist::Crash;
use redsim_engine::{ClientId, Engine, Options};

/// Most events kept (the oldest are dropped beyond twice this).
pub const EVENTS_CAP: usize = 5_000;
/// Most write records kept (the oldest are dropped beyond twice this).
pub const WRITES_CAP: usize = 50_000;
/// Trace events each engine keeps between two polls (persistence events are read from it).
const TRACE_CAP: usize = 512;
/// Replicas send `REPLCONF ACK` this often.
const ACK_PERIOD_US: Micros = SEC;

enum Ev {
    Write {
        gen: u64,
    },
    /// The stream, acks and reconnections on the replication links.
    Link(LinkMsg),
    AckTick,
    SentinelTick,
    WaitTimeout,
}

impl From<LinkMsg> for Ev {
    fn from(m: LinkMsg) -> Ev {
        Ev::Link(m)
    }
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
    /// The link into it is held (a paused link breaks its connection).
    paused: bool,
    trace_seq: u64,
    bgsave: bool,
    fsync: String,
    run_id: String,
}

impl Engines for [Node] {
    fn engine(&mut self, i: usize) -> &mut Engine {
        &mut self[i].e
    }

    fn runs(&self, i: usize) -> bool {
        self[i].alive
    }
}

/// The interactive world.
pub struct Topology {
    opts: TopoOptions,
    k: Kernel<Ev>,
    nodes: Vec<Node>,
    sentinels: Sentinels,
    /// The replication link into each node (when it is a replica).
    links: ReplLinks,
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
    /// Node `i`'s `ip:port` ([`addr`] unless served on real ports).
    addrs: Vec<String>,
    /// What the sentinels did, kept for a host that publishes it (a served
    /// topology's sentinel endpoints); `None`: not kept.
    sentinel_log: Option<Vec<(Micros, SentinelEvent)>>,
}

/// Node `n`'s address.
pub fn addr(n: usize) -> String {
    format!("10.0.0.{}:6379", n + 1)
}

impl Topology {
    /// Builds the world at time 0 (out-of-range options are clamped).
    pub fn new(opts: TopoOptions) -> Topology {
        let n = opts.replicas.clamp(1, 4) + 1;
        Topology::build(opts, (0..n).map(addr).collect(), false)
    }

    /// Builds the world with node `i` at `addrs[i]` (missing ones at
    /// [`addr`]); `log_sentinels` keeps what the sentinels do for
    /// [`Topology::take_sentinel_events`].
    pub(super) fn build(opts: TopoOptions, addrs: Vec<String>, log_sentinels: bool) -> Topology {
        let mut opts = opts;
        opts.replicas = opts.replicas.clamp(1, 4);
        opts.sentinels = opts.sentinels.clamp(1, 7);
        opts.quorum = opts.quorum.clamp(1, opts.sentinels);
        if !FSYNC_MODES.contains(&opts.appendfsync.as_str()) {
            opts.appendfsync = "everysec".into();
        }
        let n = opts.replicas + 1;
        let links = ReplLinks::new((0..n).map(|i| {
            let ms = opts
                .latencies_ms
                .get(i)
                .copied()
                .unwrap_or(opts.link_latency_ms);
            let lat = (ms.clamp(0.0, 10_000.0) * MS as f64) as Micros;
            (
                addrs.get(i).cloned().unwrap_or_else(|| addr(i)),
                Dist::jittered(lat, lat / 2),
            )
        }));
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
                paused: false,
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
            links,
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
            addrs: (0..n)
                .map(|i| addrs.get(i).cloned().unwrap_or_else(|| addr(i)))
                .collect(),
            sentinel_log: log_sentinels.then(Vec::new),
        };
        for i in 0..n {
            t.configure(i);
            if i > 0 {
                let line = t.replicaof_line(0);
                t.admin(i, &line);
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
                switch(&mut self.nodes[*node].isolated, true, || {
                    format!("node {node} is already partitioned")
                })?;
                if self.client_master == *node && self.client_zone.is_none() {
                    self.client_zone = Some(*node);
                }
                self.event(*node, NodeEventKind::Partitioned);
            }
            Control::Heal { node } => {
                check(*node)?;
                switch(&mut self.nodes[*node].isolated, false, || {
                    format!("node {node} is not partitioned")
                })?;
                if self.client_zone == Some(*node) {
                    self.client_zone = None;
                }
                self.lost_dirty = true;
                self.event(*node, NodeEventKind::Healed);
            }
            Control::PauseLink { replica } => {
                check(*replica)?;
                switch(&mut self.nodes[*replica].paused, true, || {
                    format!("link into node {replica} is already paused")
                })?;
                self.event(*replica, NodeEventKind::LinkPaused);
            }
            Control::ResumeLink { replica } => {
                check(*replica)?;
                switch(&mut self.nodes[*replica].paused, false, || {
                    format!("link into node {replica} is not paused")
                })?;
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
                let net = sentinel_net(&self.nodes, &self.links, now);
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
                    addr: self.addrs[i].clone(),
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
                        match self.links.get(i).state {
                            LinkState::Up => "up",
                            LinkState::Connecting => "syncing",
                            LinkState::Down => "down",
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
                    latency_ms: self.links.get(i).latency.mean() / MS as f64,
                    paused: n.paused,
                    in_flight_bytes: self.links.get(i).in_flight,
                    behind_bytes: self.nodes[m]
                        .e
                        .repl()
                        .offset
                        .saturating_sub(n.e.repl().offset),
                })
            })
            .collect();
        let net = sentinel_net(&self.nodes, &self.links, now);
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

    /// How many nodes there are (the master and its replicas).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Whether node `n` holds the client's write `id` now.
    pub fn holds(&self, n: usize, id: u64) -> bool {
        holds(&self.nodes[n].e, id)
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

/// Turns `flag` to `on`; a flag already there is the error `already` says.
fn switch(flag: &mut bool, on: bool, already: impl FnOnce() -> String) -> Result<(), String> {
    if *flag == on {
        return Err(already());
    }
    *flag = on;
    Ok(())
}

/// The network as the sentinels see it at `now`: sentinel `i` runs on node
/// `i`'s machine and is cut off with it.
fn sentinel_net<'a>(nodes: &'a [Node], links: &ReplLinks, now: Micros) -> NetView<'a> {
    let mut net = NetView::new(true);
    for n in nodes {
        let (follows, run_id) = (n.master_of, n.run_id.as_str());
        net.node(&n.e, links, now, n.alive, n.isolated, follows, run_id);
    }
    net
}
