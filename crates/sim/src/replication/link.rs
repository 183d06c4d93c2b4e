//! The replication link between a master and its replicas, as every world with replicas wires it: PSYNC to attach, the stream shipped in order with a link delay, acks carried back, links broken and rebuilt.
//!
//! The engines hold the replication state (offsets, backlog, the master's
//! list of replicas); a link is what sits between two of them: which
//! master a replica's live connection goes to, its latency, the bytes on
//! the wire and when the last message queued on it arrives (a link is
//! FIFO, as TCP is). Every message carries the link's generation: a link
//! broken or rebuilt since it was sent drops it, as a closed connection
//! loses what was in its buffers.
//!
//! Hosts (the failover scenario, the interactive topology, the cluster)
//! keep their engines their own way ([`Engines`]), schedule messages on
//! their own queue ([`Wire`]) and decide when a link should exist; this
//! module does the wiring they share.

use crate::kernel::{Dist, Kernel, Micros};
use redsim_engine::repl::{ReplOp, Sync};
use redsim_engine::Engine;
use std::rc::Rc;

/// A host's engines, by node index.
pub trait Engines {
    fn engine(&mut self, i: usize) -> &mut Engine;

    /// Whether node `i`'s process runs: a dead one is told nothing.
    fn runs(&self, _i: usize) -> bool {
        true
    }
}

impl Engines for [Engine] {
    fn engine(&mut self, i: usize) -> &mut Engine {
        &mut self[i]
    }
}

impl Engines for Vec<Engine> {
    fn engine(&mut self, i: usize) -> &mut Engine {
        &mut self[i]
    }
}

/// Where a host's link messages go: its event queue, and the randomness
/// link delays draw from.
pub trait Wire {
    /// Delivers `msg` back to the host at `at`.
    fn post(&mut self, at: Micros, msg: LinkMsg);
    fn rng(&mut self) -> &mut fastrand::Rng;
}

impl<E: From<LinkMsg>> Wire for Kernel<E> {
    fn post(&mut self, at: Micros, msg: LinkMsg) {
        self.at(at, E::from(msg));
    }

    fn rng(&mut self) -> &mut fastrand::Rng {
        &mut self.rng
    }
}

/// What travels on a replication link; a host hands it back to
/// [`ReplLinks`] when it arrives.
#[derive(Clone, Debug)]
pub enum LinkMsg {
    /// Stream ops from master `from` for replica `to` (shared by every
    /// replica they were shipped to).
    Stream {
        from: usize,
        to: usize,
        gen: u64,
        ops: Rc<[ReplOp]>,
    },
    /// `REPLCONF ACK <offset>` from replica `from` to its master.
    Ack { from: usize, gen: u64, offset: u64 },
    /// `REPLCONF GETACK` reaching replica `to`.
    GetAck { to: usize, gen: u64 },
    /// A reconnecting replica's handshake is done: it may PSYNC.
    Connected { to: usize, gen: u64 },
}

/// A link's state, seen from the replica.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkState {
    Down,
    /// Reconnecting: the handshake is under way.
    Connecting,
    Up,
}

/// The link into one node, while it is a replica.
#[derive(Clone, Debug)]
pub struct Inbound {
    /// The replica's announced `ip:port`, under which its master lists it.
    pub addr: String,
    pub latency: Dist,
    pub state: LinkState,
    /// The master at the other end (while connecting or up).
    pub master: Option<usize>,
    /// Bumped whenever the link is rebuilt or broken.
    pub gen: u64,
    /// When the last message queued on it arrives.
    last_arrival: Micros,
    /// Stream bytes on the wire.
    pub in_flight: u64,
    /// Since when it has been down.
    down_since: Micros,
}

/// What attaching a replica did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attached {
    /// A full resync (a snapshot), not a partial one from the backlog.
    pub full: bool,
    /// The offset the replica asked to continue from (PSYNC's, one past its last byte).
    pub asked: u64,
    /// The master's offset when it answered.
    pub master_offset: u64,
}

/// The links into every node of a world.
#[derive(Clone, Debug)]
pub struct ReplLinks {
    links: Vec<Inbound>,
}

impl ReplLinks {
    /// One link per node: its address and the latency of the link into it.
    pub fn new(nodes: impl IntoIterator<Item = (String, Dist)>) -> ReplLinks {
        let links = nodes
            .into_iter()
            .map(|(addr, latency)| Inbound {
                addr,
                latency,
                state: LinkState::Down,
                master: None,
                gen: 0,
                last_arrival: 0,
                in_flight: 0,
                down_since: 0,
            })
            .collect();
        ReplLinks { links }
    }

    /// The link into node `r`.
    pub fn get(&self, r: usize) -> &Inbound {
        &self.links[r]
    }

    /// The master whose stream `r` receives over a working link.
    pub fn master(&self, r: usize) -> Option<usize> {
        let l = &self.links[r];
        l.master.filter(|_| l.state == LinkState::Up)
    }

    /// How long `r`'s link has been down at `now` (0 while it is up).
    pub fn down_for(&self, r: usize, now: Micros) -> Micros {
        let l = &self.links[r];
        if l.state == LinkState::Up {
            0
        } else {
            now.saturating_sub(l.down_since)
        }
    }

    /// Replica `r` connects to `m` at `now`: PSYNC, the partial or full
    /// sync played at once, and its first ack.
    pub fn attach<N: Engines + ?Sized>(
        &mut self,
        nodes: &mut N,
        r: usize,
        m: usize,
        now: Micros,
    ) -> Attached {
        let addr = self.links[r].addr.clone();
        let (id, asked) = nodes.engine(r).psync_request();
        let sync = nodes.engine(m).psync(&addr, &id, asked);
        let full = matches!(sync, Sync::Full { .. });
        let master_offset = nodes.engine(m).repl().offset;
        nodes.engine(r).finish_sync(&sync);
        let l = &mut self.links[r];
        l.state = LinkState::Up;
        l.master = Some(m);
        l.gen += 1;
        l.last_arrival = now;
        l.in_flight = 0;
        let offset = nodes.engine(r).repl().offset;
        nodes.engine(m).replica_ack(&addr, offset);
        Attached {
            full,
            asked,
            master_offset,
        }
    }

    /// Starts reconnecting `r` to `m`: the handshake takes a round trip,
    /// then [`LinkMsg::Connected`] arrives and the host attaches it.
    pub fn connect(&mut self, wire: &mut impl Wire, r: usize, m: usize, now: Micros) {
        let rtt = 2 * self.links[r].latency.sample(wire.rng());
        let l = &mut self.links[r];
        l.state = LinkState::Connecting;
        l.master = Some(m);
        l.gen += 1;
        let gen = l.gen;
        wire.post(now + rtt.max(1), LinkMsg::Connected { to: r, gen });
    }

    /// Whether a message of generation `gen` on `r`'s link still stands.
    pub fn current(&self, r: usize, gen: u64) -> bool {
        self.links[r].gen == gen
    }

    /// Forgets `r`'s link at `now` (a promotion, a new master, a restart):
    /// what is on the wire is lost. The engines are not told.
    pub fn drop_link(&mut self, r: usize, now: Micros) {
        let l = &mut self.links[r];
        l.gen += 1;
        l.state = LinkState::Down;
        l.master = None;
        l.in_flight = 0;
        l.down_since = now;
    }

    /// Breaks `r`'s link at `now` (a dead peer, a partition): the replica
    /// sees its master link down and its master, if the link was up,
    /// stops counting it; only engines that run are told. Returns whether
    /// the link was up.
    pub fn break_link<N: Engines + ?Sized>(
        &mut self,
        nodes: &mut N,
        r: usize,
        now: Micros,
    ) -> bool {
        let (up, master) = {
            let l = &self.links[r];
            (l.state == LinkState::Up, l.master)
        };
        self.drop_link(r, now);
        if nodes.runs(r) {
            nodes.engine(r).master_link_down();
        }
        if let (true, Some(m)) = (up, master) {
            if nodes.runs(m) {
                let addr = self.links[r].addr.clone();
                nodes.engine(m).replica_gone(&addr);
            }
        }
        up
    }

    /// When a message sent at `at` on `r`'s link arrives, behind what is
    /// already on it.
    fn arrival(&mut self, wire: &mut impl Wire, r: usize, at: Micros) -> Micros {
        let l = &mut self.links[r];
        let arrive = (at + l.latency.sample(wire.rng())).max(l.last_arrival);
        l.last_arrival = arrive;
        arrive
    }

    /// Ships what master `m` wrote since the last call, sent at `at`, to
    /// every replica with a working link from it that `reaches` allows.
    pub fn ship<N: Engines + ?Sized>(
        &mut self,
        wire: &mut impl Wire,
        nodes: &mut N,
        m: usize,
        at: Micros,
        reaches: impl Fn(usize) -> bool,
    ) {
        let ops = nodes.engine(m).take_repl_stream();
        if ops.is_empty() {
            return;
        }
        let bytes = stream_bytes(&ops);
        let ops: Rc<[ReplOp]> = ops.into();
        for r in 0..self.links.len() {
            if self.master(r) != Some(m) || !reaches(r) {
                continue;
            }
            let arrive = self.arrival(wire, r, at);
            let l = &mut self.links[r];
            l.in_flight += bytes;
            let msg = LinkMsg::Stream {
                from: m,
                to: r,
                gen: l.gen,
                ops: ops.clone(),
            };
            wire.post(arrive, msg);
        }
    }

    /// A stream message reached `to`: applied if its link still stands
    /// (the host has moved the replica's clock to the arrival). Returns the
    /// replica's offset before and after.
    pub fn receive<N: Engines + ?Sized>(
        &mut self,
        nodes: &mut N,
        to: usize,
        gen: u64,
        ops: &[ReplOp],
    ) -> Option<(u64, u64)> {
        if !self.current(to, gen) {
            return None;
        }
        let l = &mut self.links[to];
        l.in_flight = l.in_flight.saturating_sub(stream_bytes(ops));
        let e = nodes.engine(to);
        let before = e.repl().offset;
        e.apply_repl(ops);
        Some((before, e.repl().offset))
    }

    /// Replica `r` acknowledges `offset` to its master at `at`, over the
    /// link (acks are not queued behind the stream).
    pub fn send_ack(&mut self, wire: &mut impl Wire, r: usize, at: Micros, offset: u64) {
        if self.master(r).is_none() {
            return;
        }
        let l = &self.links[r];
        let gen = l.gen;
        let d = l.latency.sample(wire.rng());
        wire.post(
            at.saturating_add(d),
            LinkMsg::Ack {
                from: r,
                gen,
                offset,
            },
        );
    }

    /// The master an ack from `from` of generation `gen` reaches: the
    /// link's, if it still stands.
    pub fn ack_target(&self, from: usize, gen: u64) -> Option<usize> {
        self.master(from).filter(|_| self.current(from, gen))
    }

    /// An ack from `from` reaches its master `m`: it records the replica's
    /// offset (and answers the WAITs that now have enough).
    pub fn ack<N: Engines + ?Sized>(&self, nodes: &mut N, m: usize, from: usize, offset: u64) {
        nodes.engine(m).replica_ack(&self.links[from].addr, offset);
    }

    /// Master `m`'s `REPLCONF GETACK`, sent at `at` behind the stream on
    /// every working link from it.
    pub fn get_acks(&mut self, wire: &mut impl Wire, m: usize, at: Micros) {
        for r in 0..self.links.len() {
            if self.master(r) == Some(m) {
                let arrive = self.arrival(wire, r, at);
                let gen = self.links[r].gen;
                wire.post(arrive, LinkMsg::GetAck { to: r, gen });
            }
        }
    }
}

/// Bytes of replication stream `ops` cover.
fn stream_bytes(ops: &[ReplOp]) -> u64 {
    ops.iter().map(|o| o.end - o.start).sum()
}
