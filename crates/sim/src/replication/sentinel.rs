//! Redis Sentinel as a reusable component: pings, SDOWN/ODOWN, leader election by epochs, replica selection, promotion, repointing and config propagation, driven by a host that owns the network.
//!
//! The host (a scenario, the interactive [`crate::topology::Topology`]) calls
//! [`Sentinels::tick`] every [`TICK_US`] of virtual time with a [`SentinelNet`]
//! that answers who can reach whom and what each node's `INFO replication`
//! says. Sentinels never touch engines: they return [`Order`]s
//! (`REPLICAOF NO ONE`, `REPLICAOF host port`) that the host carries out when
//! the sentinel can reach the node, and [`SentinelEvent`]s for timelines.
//!
//! The rules follow sentinel.c (7.2):
//! - every sentinel pings the master every `min(1 s, down-after)`; the master
//!   is SDOWN once the oldest unanswered ping is older than
//!   `down-after-milliseconds`;
//! - it is ODOWN for a sentinel when that sentinel and enough others it can
//!   reach (`is-master-down-by-addr`) agree: `quorum` in all;
//! - an ODOWN sentinel with no recent attempt (`2 × failover-timeout`) starts
//!   a failover in a new epoch after a random delay of up to 1 s
//!   (`SENTINEL_MAX_DESYNC`) and asks for votes; a sentinel votes once per
//!   epoch, for the first to ask; the winner needs `max(voters/2+1, quorum)`
//!   votes of every sentinel known, reachable or not, so a minority side of a
//!   partition can never fail over. No winner within the election timeout
//!   (`min(10 s, failover-timeout)`): the attempt is abandoned;
//! - the leader picks a replica as `sentinelSelectSlave` does (skip
//!   unreachable ones, priority 0, and links down for longer than
//!   `(now - SDOWN since) + 10 × down-after`; then lowest
//!   `replica-priority`, greatest offset, smallest run ID), sends it
//!   `REPLICAOF NO ONE`, waits to see it report the master role, repoints
//!   the other replicas and switches its config (`+switch-master`) with the
//!   failover epoch as config epoch;
//! - sentinels adopt the config with the highest epoch from the sentinels
//!   they can reach (hello messages); any sentinel that sees a node
//!   disagreeing with its config fixes it: a stale master is converted to a
//!   replica once it has reported the master role for 8 s
//!   (`SENTINEL_PUBLISH_PERIOD × 4`), a replica of the wrong master is
//!   repointed.
//!
//! Simplifications, stated: messages between sentinels and to nodes take no
//! time (a tick is 100 ms, like the sentinel timer); the leader repoints
//! every replica at once (`parallel-syncs` as large as needed); TILT mode
//! and scripts are not modelled.

use crate::seeds;
use serde::Serialize;

/// How often the host calls [`Sentinels::tick`] (the sentinel timer runs at 10 Hz).
pub const TICK_US: u64 = 100_000;
const PING_PERIOD_US: u64 = 1_000_000;
/// `SENTINEL_MAX_DESYNC`: random delay before a failover attempt and after a vote.
const MAX_DESYNC_US: u64 = 1_000_000;
/// `sentinel_election_timeout`.
const ELECTION_TIMEOUT_US: u64 = 10_000_000;
/// `SENTINEL_PUBLISH_PERIOD * 4`: how long a node must report the wrong role before it is converted.
const CONVERT_WAIT_US: u64 = 8_000_000;

/// Sentinel settings for the one monitored master.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SentinelConfig {
    pub count: usize,
    pub quorum: usize,
    pub down_after_us: u64,
    pub failover_timeout_us: u64,
}

/// What `INFO replication` on a node tells a sentinel.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeInfo {
    /// `role:master`.
    pub is_master: bool,
    /// The node it replicates from (replicas).
    pub master: Option<usize>,
    /// `master_repl_offset` (replicas: `slave_repl_offset`).
    pub offset: u64,
    /// `replica-priority` (0: never promote).
    pub priority: i64,
    /// How long its link to its master has been down (0 when up).
    pub link_down_us: u64,
    /// The node's run ID, the last tie-breaker.
    pub run_id: String,
}

/// The host's network as sentinels see it.
pub trait SentinelNet {
    /// Number of Redis nodes (ids `0..nodes()`).
    fn nodes(&self) -> usize;
    /// Sentinel `s` can exchange messages with node `n` (alive, same side of any partition).
    fn reaches_node(&self, s: usize, n: usize) -> bool;
    /// Sentinels `a` and `b` can talk.
    fn reaches_sentinel(&self, a: usize, b: usize) -> bool;
    /// What node `n` reports (asked only when reachable).
    fn info(&self, n: usize) -> NodeInfo;
}

/// A command a sentinel sends to a node; the host applies it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Order {
    /// `REPLICAOF NO ONE` (`to: None`) or `REPLICAOF <node to>`.
    ReplicaOf { node: usize, to: Option<usize> },
}

/// Something sentinels did, for timelines (`+sdown`, `+odown`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum SentinelEvent {
    Sdown {
        sentinel: usize,
        node: usize,
    },
    SdownCleared {
        sentinel: usize,
        node: usize,
    },
    Odown {
        sentinel: usize,
        node: usize,
        agree: usize,
    },
    TryFailover {
        sentinel: usize,
        epoch: u64,
    },
    Vote {
        sentinel: usize,
        for_sentinel: usize,
        epoch: u64,
    },
    Elected {
        sentinel: usize,
        epoch: u64,
        votes: usize,
    },
    ElectionFailed {
        sentinel: usize,
        epoch: u64,
    },
    NoGoodReplica {
        sentinel: usize,
    },
    Promoted {
        sentinel: usize,
        node: usize,
    },
    SwitchMaster {
        sentinel: usize,
        from: usize,
        to: usize,
        epoch: u64,
    },
    ConfigUpdate {
        sentinel: usize,
        master: usize,
        epoch: u64,
    },
    Repoint {
        sentinel: usize,
        node: usize,
        to: usize,
    },
    ConvertToReplica {
        sentinel: usize,
        node: usize,
        to: usize,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    None,
    /// Asking for votes until `failover_start_us`, then counting them.
    WaitStart,
    /// Elected: pick a replica next tick.
    SelectReplica,
    /// `REPLICAOF NO ONE` sent to this node.
    WaitPromotion(usize),
}

/// One sentinel's state about the monitored master.
#[derive(Clone, Debug)]
pub struct Sentinel {
    /// The node this sentinel believes is master, and the epoch of that config.
    pub master: usize,
    pub config_epoch: u64,
    pub current_epoch: u64,
    /// Its vote: for whom, in which epoch.
    pub leader: Option<usize>,
    pub leader_epoch: u64,
    pub sdown_since: Option<u64>,
    pub odown: bool,
    last_ok_us: u64,
    /// The oldest ping without a reply (0: none).
    act_ping_us: u64,
    next_ping_us: u64,
    phase: Phase,
    failover_epoch: u64,
    failover_start_us: Option<u64>,
    phase_since_us: u64,
    forced: bool,
    /// The votes other sentinels reported in answers: (leader, epoch).
    heard: Vec<Option<(usize, u64)>>,
    /// Since when each node has reported a role or master this sentinel disagrees with.
    wrong_since: Vec<Option<u64>>,
}

/// Plain data about one sentinel, for views.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SentinelView {
    pub id: usize,
    pub master: usize,
    pub sdown: bool,
    pub odown: bool,
    /// Won the election and is running the failover.
    pub leader: bool,
    pub epoch: u64,
    pub voted_for: Option<usize>,
    pub reaches_master: bool,
}

/// The sentinels monitoring one master.
#[derive(Clone, Debug)]
pub struct Sentinels {
    pub cfg: SentinelConfig,
    pub s: Vec<Sentinel>,
    rng: fastrand::Rng,
}

impl Sentinels {
    /// `cfg.count` sentinels monitoring `master`, with ping phases spread by `seed`.
    pub fn new(cfg: SentinelConfig, master: usize, seed: u64) -> Sentinels {
        let mut rng = fastrand::Rng::with_seed(seeds::salted(seed, seeds::SENTINELS));
        let n = cfg.count;
        let s = (0..n)
            .map(|_| Sentinel {
                master,
                config_epoch: 0,
                current_epoch: 0,
                leader: None,
                leader_epoch: 0,
                sdown_since: None,
                odown: false,
                last_ok_us: 0,
                act_ping_us: 0,
                next_ping_us: rng.u64(0..PING_PERIOD_US / TICK_US) * TICK_US,
                phase: Phase::None,
                failover_epoch: 0,
                failover_start_us: None,
                phase_since_us: 0,
                forced: false,
                heard: vec![None; n],
                wrong_since: Vec::new(),
            })
            .collect();
        Sentinels { cfg, s, rng }
    }

    /// The master according to the reachable sentinel (from `reachable`) with
    /// the newest config: what a client asking `SENTINEL
    /// get-master-addr-by-name` gets. `None` when it reaches none.
    pub fn announced(&self, reachable: impl Fn(usize) -> bool) -> Option<usize> {
        (0..self.s.len())
            .filter(|&i| reachable(i))
            .max_by_key(|&i| (self.s[i].config_epoch, std::cmp::Reverse(i)))
            .map(|i| self.s[i].master)
    }

    /// A human description of a failover in progress, if any.
    pub fn phase_text(&self) -> Option<String> {
        let mut text = None;
        for (i, s) in self.s.iter().enumerate() {
            let t = match &s.phase {
                Phase::None => continue,
                Phase::WaitStart => format!(
                    "sentinel {i} asks for votes in epoch {} (needs {})",
                    s.failover_epoch,
                    self.needed()
                ),
                Phase::SelectReplica => {
                    format!(
                        "sentinel {i} won epoch {} and selects a replica",
                        s.failover_epoch
                    )
                }
                Phase::WaitPromotion(n) => format!(
                    "sentinel {i} sent REPLICAOF NO ONE to node {n}, waits for it to report master"
                ),
            };
            text = Some(t);
        }
        if text.is_none() {
            if let Some((i, s)) = self.s.iter().enumerate().find(|(_, s)| s.odown) {
                text = Some(format!("sentinel {i}: master node {} is ODOWN", s.master));
            } else if let Some((i, s)) = self
                .s
                .iter()
                .enumerate()
                .find(|(_, s)| s.sdown_since.is_some())
            {
                text = Some(format!("sentinel {i}: master node {} is SDOWN", s.master));
            }
        }
        text
    }

    /// Votes a leader needs: a majority of all sentinels, and at least the quorum.
    pub fn needed(&self) -> usize {
        (self.s.len() / 2 + 1).max(self.cfg.quorum)
    }

    /// Views of every sentinel.
    pub fn views(&self, net: &impl SentinelNet) -> Vec<SentinelView> {
        self.s
            .iter()
            .enumerate()
            .map(|(i, s)| SentinelView {
                id: i,
                master: s.master,
                sdown: s.sdown_since.is_some(),
                odown: s.odown,
                leader: matches!(s.phase, Phase::SelectReplica | Phase::WaitPromotion(_)),
                epoch: s.current_epoch,
                voted_for: (s.leader_epoch == s.current_epoch && s.current_epoch > 0)
                    .then_some(s.leader)
                    .flatten(),
                reaches_master: net.reaches_node(i, s.master),
            })
            .collect()
    }

    /// `SENTINEL FAILOVER`: the first sentinel that reaches the master's
    /// replicas fails over at once, without agreement. Errors as Redis words them.
    pub fn force_failover(&mut self, now: u64, net: &impl SentinelNet) -> Result<usize, String> {
        if self.s.iter().any(|s| s.phase != Phase::None) {
            return Err("INPROG Failover already in progress".into());
        }
        let Some(i) = (0..self.s.len()).find(|&i| self.select(i, now, net).is_some()) else {
            return Err("NOGOODSLAVE No suitable replica to promote".into());
        };
        let s = &mut self.s[i];
        s.current_epoch += 1;
        s.failover_epoch = s.current_epoch;
        s.forced = true;
        s.phase = Phase::SelectReplica;
        s.phase_since_us = now;
        s.failover_start_us = Some(now);
        Ok(i)
    }

    /// One timer tick of every sentinel at `now`.
    pub fn tick(
        &mut self,
        now: u64,
        net: &impl SentinelNet,
        orders: &mut Vec<Order>,
        events: &mut Vec<SentinelEvent>,
    ) {
        let n = self.s.len();
        for i in 0..n {
            self.hello(i, now, net, events);
            self.ping(i, now, net, events);
            self.check_odown(i, net, events);
            self.start_failover_if_needed(i, now, net, events);
            self.failover_step(i, now, net, orders, events);
            for (order, event) in self.fix_config(i, now, net) {
                orders.push(order);
                events.push(event);
            }
        }
    }

    /// Hello messages: adopt a newer config from reachable sentinels.
    fn hello(
        &mut self,
        i: usize,
        now: u64,
        net: &impl SentinelNet,
        events: &mut Vec<SentinelEvent>,
    ) {
        let best = (0..self.s.len())
            .filter(|&j| j != i && net.reaches_sentinel(i, j))
            .max_by_key(|&j| (self.s[j].config_epoch, std::cmp::Reverse(j)));
        let Some(j) = best else { return };
        let (m, e) = (self.s[j].master, self.s[j].config_epoch);
        let s = &mut self.s[i];
        if e > s.config_epoch {
            s.config_epoch = e;
            s.current_epoch = s.current_epoch.max(e);
            if s.master != m {
                s.master = m;
                // sentinelResetMasterAndChangeAddress: a fresh instance.
                s.sdown_since = None;
                s.odown = false;
                s.act_ping_us = 0;
                s.last_ok_us = now;
                s.phase = Phase::None;
                events.push(SentinelEvent::ConfigUpdate {
                    sentinel: i,
                    master: m,
                    epoch: e,
                });
            }
        }
    }

    fn ping(
        &mut self,
        i: usize,
        now: u64,
        net: &impl SentinelNet,
        events: &mut Vec<SentinelEvent>,
    ) {
        let period = PING_PERIOD_US.min(self.cfg.down_after_us).max(TICK_US);
        let down_after = self.cfg.down_after_us;
        let s = &mut self.s[i];
        let reaches = net.reaches_node(i, s.master);
        if now >= s.next_ping_us {
            s.next_ping_us = now + period;
            if s.act_ping_us == 0 {
                s.act_ping_us = now.max(1);
            }
            if reaches {
                s.last_ok_us = now;
                s.act_ping_us = 0;
            }
        }
        let elapsed = if s.act_ping_us != 0 {
            now.saturating_sub(s.act_ping_us)
        } else {
            now.saturating_sub(s.last_ok_us)
        };
        if elapsed > down_after {
            if s.sdown_since.is_none() {
                s.sdown_since = Some(now);
                events.push(SentinelEvent::Sdown {
                    sentinel: i,
                    node: s.master,
                });
            }
        } else if s.sdown_since.is_some() {
            s.sdown_since = None;
            s.odown = false;
            events.push(SentinelEvent::SdownCleared {
                sentinel: i,
                node: s.master,
            });
        }
    }

    fn check_odown(&mut self, i: usize, net: &impl SentinelNet, events: &mut Vec<SentinelEvent>) {
        let me = &self.s[i];
        if me.sdown_since.is_none() {
            self.s[i].odown = false;
            return;
        }
        let agree = 1
            + (0..self.s.len())
                .filter(|&j| {
                    j != i
                        && net.reaches_sentinel(i, j)
                        && self.s[j].master == me.master
                        && self.s[j].sdown_since.is_some()
                })
                .count();
        let odown = agree >= self.cfg.quorum;
        let s = &mut self.s[i];
        if odown && !s.odown {
            events.push(SentinelEvent::Odown {
                sentinel: i,
                node: s.master,
                agree,
            });
        }
        s.odown = odown;
    }

    fn start_failover_if_needed(
        &mut self,
        i: usize,
        now: u64,
        net: &impl SentinelNet,
        events: &mut Vec<SentinelEvent>,
    ) {
        let timeout = self.cfg.failover_timeout_us;
        let s = &mut self.s[i];
        if s.odown
            && s.phase == Phase::None
            && s.failover_start_us
                .is_none_or(|t| now.saturating_sub(t) >= 2 * timeout)
        {
            s.current_epoch += 1;
            s.failover_epoch = s.current_epoch;
            s.phase = Phase::WaitStart;
            s.forced = false;
            s.phase_since_us = now;
            s.failover_start_us = Some(now + self.rng.u64(0..MAX_DESYNC_US / TICK_US) * TICK_US);
            events.push(SentinelEvent::TryFailover {
                sentinel: i,
                epoch: s.failover_epoch,
            });
        }
        if self.s[i].phase == Phase::WaitStart {
            self.ask_votes(i, now, net, events);
        }
    }

    /// `is-master-down-by-addr` with our run ID: every reachable sentinel
    /// votes (once per epoch) and tells us whom it voted for.
    fn ask_votes(
        &mut self,
        i: usize,
        now: u64,
        net: &impl SentinelNet,
        events: &mut Vec<SentinelEvent>,
    ) {
        let epoch = self.s[i].failover_epoch;
        for j in 0..self.s.len() {
            if j == i || !net.reaches_sentinel(i, j) {
                continue;
            }
            let voted = self.vote(j, epoch, i, now, events);
            self.s[i].heard[j] = voted;
        }
    }

    /// `sentinelVoteLeader`: sentinel `j` asked by `candidate` in `epoch`.
    fn vote(
        &mut self,
        j: usize,
        epoch: u64,
        candidate: usize,
        now: u64,
        events: &mut Vec<SentinelEvent>,
    ) -> Option<(usize, u64)> {
        let delay = self.rng.u64(0..MAX_DESYNC_US / TICK_US) * TICK_US;
        let t = &mut self.s[j];
        if epoch > t.current_epoch {
            t.current_epoch = epoch;
        }
        if t.leader_epoch < epoch && t.current_epoch <= epoch {
            t.leader = Some(candidate);
            t.leader_epoch = t.current_epoch;
            events.push(SentinelEvent::Vote {
                sentinel: j,
                for_sentinel: candidate,
                epoch,
            });
            if candidate != j {
                // Voting for another delays our own attempt.
                t.failover_start_us = Some(now + delay);
            }
        }
        t.leader.map(|l| (l, t.leader_epoch))
    }

    fn failover_step(
        &mut self,
        i: usize,
        now: u64,
        net: &impl SentinelNet,
        orders: &mut Vec<Order>,
        events: &mut Vec<SentinelEvent>,
    ) {
        let timeout = self.cfg.failover_timeout_us;
        match self.s[i].phase.clone() {
            Phase::None => {}
            Phase::WaitStart => {
                if self.s[i].failover_start_us.is_some_and(|t| now < t) {
                    return;
                }
                let epoch = self.s[i].failover_epoch;
                // sentinelGetLeader: count the votes heard for this epoch.
                let mut counts = vec![0usize; self.s.len()];
                for j in 0..self.s.len() {
                    if let Some((l, e)) = self.s[i].heard[j] {
                        if j != i && e == self.s[i].current_epoch {
                            counts[l] += 1;
                        }
                    }
                }
                let winner = (0..counts.len())
                    .filter(|&c| counts[c] > 0)
                    .max_by_key(|&c| (counts[c], std::cmp::Reverse(c)));
                let mine = self.vote(i, epoch, winner.unwrap_or(i), now, events);
                if let Some((l, e)) = mine {
                    if e == epoch {
                        counts[l] += 1;
                    }
                }
                let best = (0..counts.len()).max_by_key(|&c| (counts[c], std::cmp::Reverse(c)));
                let elected = best.filter(|&b| b == i && counts[b] >= self.needed());
                if elected.is_some() {
                    events.push(SentinelEvent::Elected {
                        sentinel: i,
                        epoch,
                        votes: counts[i],
                    });
                    let s = &mut self.s[i];
                    s.phase = Phase::SelectReplica;
                    s.phase_since_us = now;
                } else if now.saturating_sub(self.s[i].phase_since_us)
                    > ELECTION_TIMEOUT_US.min(timeout)
                {
                    events.push(SentinelEvent::ElectionFailed { sentinel: i, epoch });
                    self.s[i].phase = Phase::None;
                }
            }
            Phase::SelectReplica => match self.select(i, now, net) {
                Some(n) => {
                    orders.push(Order::ReplicaOf { node: n, to: None });
                    let s = &mut self.s[i];
                    s.phase = Phase::WaitPromotion(n);
                    s.phase_since_us = now;
                }
                None => {
                    events.push(SentinelEvent::NoGoodReplica { sentinel: i });
                    self.s[i].phase = Phase::None;
                }
            },
            Phase::WaitPromotion(n) => {
                if net.reaches_node(i, n) && net.info(n).is_master {
                    let epoch = self.s[i].failover_epoch;
                    let old = self.s[i].master;
                    events.push(SentinelEvent::Promoted {
                        sentinel: i,
                        node: n,
                    });
                    // Repoint every other replica it can reach, then switch.
                    for r in 0..net.nodes() {
                        if r != n && r != old && net.reaches_node(i, r) {
                            orders.push(Order::ReplicaOf {
                                node: r,
                                to: Some(n),
                            });
                            events.push(SentinelEvent::Repoint {
                                sentinel: i,
                                node: r,
                                to: n,
                            });
                        }
                    }
                    events.push(SentinelEvent::SwitchMaster {
                        sentinel: i,
                        from: old,
                        to: n,
                        epoch,
                    });
                    let s = &mut self.s[i];
                    s.master = n;
                    s.config_epoch = epoch;
                    s.phase = Phase::None;
                    s.sdown_since = None;
                    s.odown = false;
                    s.act_ping_us = 0;
                    s.last_ok_us = now;
                } else if now.saturating_sub(self.s[i].phase_since_us) > timeout {
                    events.push(SentinelEvent::ElectionFailed {
                        sentinel: i,
                        epoch: self.s[i].failover_epoch,
                    });
                    self.s[i].phase = Phase::None;
                }
            }
        }
    }

    /// `sentinelSelectSlave` as sentinel `i` sees the replicas now.
    pub fn select(&self, i: usize, now: u64, net: &impl SentinelNet) -> Option<usize> {
        let s = &self.s[i];
        let max_down =
            s.sdown_since.map_or(0, |t| now.saturating_sub(t)) + self.cfg.down_after_us * 10;
        (0..net.nodes())
            .filter(|&n| n != s.master && net.reaches_node(i, n))
            .map(|n| (n, net.info(n)))
            .filter(|(_, inf)| {
                !inf.is_master
                    && inf.master == Some(s.master)
                    && inf.priority > 0
                    && inf.link_down_us <= max_down
            })
            .min_by(|(_, a), (_, b)| {
                a.priority
                    .cmp(&b.priority)
                    .then(b.offset.cmp(&a.offset))
                    .then(a.run_id.cmp(&b.run_id))
            })
            .map(|(n, _)| n)
    }

    /// Nodes that disagree with this sentinel's config get fixed: a stale
    /// master is converted to a replica, a replica of the wrong master
    /// repointed. Each fix is an order and the event that announces it.
    fn fix_config(
        &mut self,
        i: usize,
        now: u64,
        net: &impl SentinelNet,
    ) -> Vec<(Order, SentinelEvent)> {
        let mut fixes = Vec::new();
        let nodes = net.nodes();
        let s = &mut self.s[i];
        s.wrong_since.resize(nodes, None);
        if s.phase != Phase::None || s.sdown_since.is_some() {
            return fixes;
        }
        let m = s.master;
        if !net.reaches_node(i, m) || !net.info(m).is_master {
            return fixes;
        }
        for n in 0..nodes {
            if n == m || !net.reaches_node(i, n) {
                s.wrong_since[n] = None;
                continue;
            }
            let inf = net.info(n);
            let wrong = inf.is_master || inf.master != Some(m);
            if !wrong {
                s.wrong_since[n] = None;
                continue;
            }
            let since = *s.wrong_since[n].get_or_insert(now);
            let wait = if inf.is_master { CONVERT_WAIT_US } else { 0 };
            if now.saturating_sub(since) >= wait {
                let order = Order::ReplicaOf {
                    node: n,
                    to: Some(m),
                };
                let event = if inf.is_master {
                    SentinelEvent::ConvertToReplica {
                        sentinel: i,
                        node: n,
                        to: m,
                    }
                } else {
                    SentinelEvent::Repoint {
                        sentinel: i,
                        node: n,
                        to: m,
                    }
                };
                fixes.push((order, event));
                s.wrong_since[n] = None;
            }
        }
        fixes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nodes 0..n: node 0 the master; `side[s]` groups sentinels and `node_side[n]` nodes.
    struct Fake {
        alive: Vec<bool>,
        node_side: Vec<u8>,
        side: Vec<u8>,
        infos: Vec<NodeInfo>,
    }

    impl SentinelNet for Fake {
        fn nodes(&self) -> usize {
            self.infos.len()
        }
        fn reaches_node(&self, s: usize, n: usize) -> bool {
            self.alive[n] && self.side[s] == self.node_side[n]
        }
        fn reaches_sentinel(&self, a: usize, b: usize) -> bool {
            self.side[a] == self.side[b]
        }
        fn info(&self, n: usize) -> NodeInfo {
            self.infos[n].clone()
        }
    }

    fn replica(offset: u64, priority: i64, run_id: &str) -> NodeInfo {
        NodeInfo {
            is_master: false,
            master: Some(0),
            offset,
            priority,
            link_down_us: 0,
            run_id: run_id.into(),
        }
    }

    fn world(sentinels: usize, replicas: Vec<NodeInfo>) -> Fake {
        let mut infos = vec![NodeInfo {
            is_master: true,
            master: None,
            offset: 0,
            priority: 100,
            link_down_us: 0,
            run_id: "m".into(),
        }];
        infos.extend(replicas);
        Fake {
            alive: vec![true; infos.len()],
            node_side: vec![0; infos.len()],
            side: vec![0; sentinels],
            infos,
        }
    }

    fn cfg(count: usize, quorum: usize) -> SentinelConfig {
        SentinelConfig {
            count,
            quorum,
            down_after_us: 1_000_000,
            failover_timeout_us: 5_000_000,
        }
    }

    /// Ticks until the first order; returns the time, the order and the events so far.
    fn until_order(s: &mut Sentinels, net: &Fake, from: u64) -> (u64, Order, Vec<SentinelEvent>) {
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let mut t = from;
        while o.is_empty() {
            assert!(t < from + 60_000_000, "no order in a minute");
            s.tick(t, net, &mut o, &mut e);
            t += TICK_US;
        }
        (t, o.remove(0), e)
    }

    /// Ticks until `until`; returns every order and event.
    fn run(
        s: &mut Sentinels,
        net: &Fake,
        from: u64,
        until: u64,
    ) -> (Vec<Order>, Vec<SentinelEvent>) {
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let mut t = from;
        while t <= until {
            s.tick(t, net, &mut o, &mut e);
            t += TICK_US;
        }
        (o, e)
    }

    #[test]
    fn selection_prefers_priority_then_offset_then_run_id_and_skips_priority_zero() {
        let net = world(
            3,
            vec![
                replica(900, 100, "b"),
                replica(500, 50, "z"),
                replica(999, 0, "a"),
                replica(500, 50, "y"),
            ],
        );
        let s = Sentinels::new(cfg(3, 2), 0, 1);
        // Priority 50 beats 100 whatever the offset; equal offsets: smaller run ID.
        assert_eq!(s.select(0, 0, &net), Some(4));
        let net = world(3, vec![replica(10, 100, "b"), replica(20, 100, "c")]);
        assert_eq!(s.select(0, 0, &net), Some(2), "greater offset");
        let mut net = world(3, vec![replica(10, 0, "b"), replica(20, 100, "c")]);
        net.alive[2] = false;
        assert_eq!(s.select(0, 0, &net), None, "priority 0 never, dead never");
        let mut net = world(3, vec![replica(10, 100, "b")]);
        net.infos[1].link_down_us = 60_000_000;
        assert_eq!(s.select(0, 0, &net), None, "disconnected too long");
    }

    #[test]
    fn a_down_master_is_failed_over_by_a_majority_leader() {
        let mut net = world(3, vec![replica(10, 100, "b"), replica(20, 100, "c")]);
        let mut s = Sentinels::new(cfg(3, 2), 0, 9);
        let (o, _) = run(&mut s, &net, 0, 3_000_000);
        assert!(o.is_empty(), "healthy master");
        net.alive[0] = false;
        let (t, order, e) = until_order(&mut s, &net, 3_100_000);
        assert!(t > 4_000_000, "down-after 1 s after the last reply");
        assert!(e.iter().any(|e| matches!(e, SentinelEvent::Odown { .. })));
        let elected: Vec<_> = e
            .iter()
            .filter_map(|e| match e {
                SentinelEvent::Elected { votes, epoch, .. } => Some((*votes, *epoch)),
                _ => None,
            })
            .collect();
        assert_eq!(elected.len(), 1);
        assert!(elected[0].0 >= 2);
        assert_eq!(order, Order::ReplicaOf { node: 2, to: None });
        // Until node 2 reports master, nothing is switched.
        let (o, e) = run(&mut s, &net, t, t + 1_000_000);
        assert!(o.is_empty());
        assert!(!e
            .iter()
            .any(|e| matches!(e, SentinelEvent::SwitchMaster { .. })));
        net.infos[2].is_master = true;
        net.infos[2].master = None;
        let (o, e) = run(&mut s, &net, t + 1_100_000, t + 2_000_000);
        assert!(o.contains(&Order::ReplicaOf {
            node: 1,
            to: Some(2)
        }));
        assert!(e
            .iter()
            .any(|e| matches!(e, SentinelEvent::SwitchMaster { to: 2, .. })));
        // Every sentinel adopts the new config; a client asking any gets node 2.
        assert!(s.s.iter().all(|x| x.master == 2));
        assert_eq!(s.announced(|_| true), Some(2));
    }

    #[test]
    fn without_a_majority_there_is_no_failover_and_it_retries_after_the_timeout() {
        // Quorum 1: every sentinel alone reaches ODOWN, but none gets 2 votes.
        let mut net = world(3, vec![replica(10, 100, "b")]);
        net.alive[0] = false;
        net.side = vec![0, 1, 2];
        net.node_side = vec![0, 0];
        let mut s = Sentinels::new(cfg(3, 1), 0, 3);
        let (o, e) = run(&mut s, &net, 0, 20_000_000);
        assert!(o.is_empty(), "{o:?}");
        assert!(e
            .iter()
            .any(|e| matches!(e, SentinelEvent::TryFailover { .. })));
        let failed = e
            .iter()
            .filter(|e| matches!(e, SentinelEvent::ElectionFailed { sentinel: 0, .. }))
            .count();
        // Election timeout min(10 s, 5 s), retries every 2 × 5 s.
        assert!(failed >= 2, "{failed}");
        // Reconnect the sentinels: the next attempt wins.
        net.side = vec![0, 0, 0];
        let (o, _) = run(&mut s, &net, 20_100_000, 40_000_000);
        assert_eq!(o.first(), Some(&Order::ReplicaOf { node: 1, to: None }));
    }

    #[test]
    fn a_sentinel_cut_off_with_the_master_cannot_reach_a_majority() {
        // Sentinel 0 sits with the master on side 1; sentinels 1 and 2 and
        // the replica on side 0 fail over without it.
        let mut net = world(3, vec![replica(10, 100, "b")]);
        net.node_side = vec![1, 0];
        net.side = vec![1, 0, 0];
        let mut s = Sentinels::new(cfg(3, 2), 0, 5);
        let (t, order, e) = until_order(&mut s, &net, 0);
        assert_eq!(order, Order::ReplicaOf { node: 1, to: None });
        assert!(!e.iter().any(|e| matches!(
            e,
            SentinelEvent::Sdown { sentinel: 0, .. } | SentinelEvent::Vote { sentinel: 0, .. }
        )));
        net.infos[1].is_master = true;
        net.infos[1].master = None;
        run(&mut s, &net, t, t + 1_000_000);
        // The isolated sentinel still names the old master to its side.
        assert_eq!(s.announced(|i| i == 0), Some(0));
        assert_eq!(s.announced(|i| i != 0), Some(1));
        // Healed, it learns the newer config from the others.
        net.side = vec![0, 0, 0];
        run(&mut s, &net, t + 1_100_000, t + 1_500_000);
        assert_eq!(s.announced(|i| i == 0), Some(1));
    }
}
