//! The nodes' side of a topology: events dispatched, replication links kept as the nodes' state allows, restarts from files, the sentinels' orders carried out, and persistence events read from each engine's trace.

use super::{
    holds, run_id, sentinel_net, zone_of, Ev, NodeEvent, NodeEventKind, SyncRecord, Topology,
    ACK_PERIOD_US, EVENTS_CAP,
};
use crate::kernel::SEC;
use crate::replication::link::{LinkMsg, LinkState};
use crate::replication::sentinel::{Order, SentinelEvent, TICK_US};
use redsim_engine::repl::Effect;
use redsim_engine::Frame;

impl Topology {
    pub(super) fn client_reaches(&self, n: usize) -> bool {
        let nd = &self.nodes[n];
        nd.alive && zone_of(nd, n) == self.client_zone
    }

    pub(super) fn event(&mut self, node: usize, kind: NodeEventKind) {
        let at_us = self.k.now();
        self.events.push(NodeEvent { at_us, node, kind });
        if self.events.len() > 2 * EVENTS_CAP {
            let cut = self.events.len() - EVENTS_CAP;
            self.events.drain(..cut);
        }
    }

    pub(super) fn admin(&mut self, n: usize, line: &str) -> Frame {
        let nd = &mut self.nodes[n];
        nd.e.execute_line(nd.admin, line)
    }

    pub(super) fn handle(&mut self, ev: Ev) {
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
            Ev::Link(LinkMsg::Stream { to, gen, ops, .. }) => {
                if !self.nodes[to].alive {
                    return;
                }
                let Some((_, offset)) = self.links.receive(&mut self.nodes[..], to, gen, &ops)
                else {
                    return;
                };
                let writes = ops
                    .iter()
                    .filter(
                        |o| matches!(&o.effect, Effect::Put { key, .. } if key.starts_with(b"w:")),
                    )
                    .count() as u64;
                self.event(to, NodeEventKind::Arrived { offset, writes });
            }
            Ev::Link(LinkMsg::GetAck { to, gen }) => {
                if self.links.current(to, gen) && self.nodes[to].alive {
                    self.send_ack(to);
                }
            }
            Ev::Link(LinkMsg::Ack { from, gen, offset }) => {
                let Some(m) = self.links.ack_target(from, gen) else {
                    return;
                };
                if !self.nodes[m].alive {
                    return;
                }
                self.links.ack(&mut self.nodes[..], m, from, offset);
                self.event(from, NodeEventKind::Ack { offset });
            }
            Ev::Link(LinkMsg::Connected { to, gen }) => {
                if self.links.current(to, gen) && self.link_wanted(to) {
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
                    if self.links.master(r).is_some() && self.nodes[r].alive {
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
    pub(super) fn settle(&mut self) {
        self.collect_wait();
        self.ship_all();
        self.reconcile();
        self.poll_persistence();
        if self.lost_dirty {
            self.check_lost();
        }
    }

    /// The master's REPLCONF GETACK, behind the stream on every live link.
    pub(super) fn get_acks(&mut self, m: usize) {
        let now = self.k.now();
        self.links.get_acks(&mut self.k, m, now);
    }

    /// `REPLCONF ACK <offset>` from replica `r`, over the link.
    pub(super) fn send_ack(&mut self, r: usize) {
        let offset = self.nodes[r].e.repl().offset;
        let now = self.k.now();
        self.links.send_ack(&mut self.k, r, now, offset);
    }

    pub(super) fn ship_all(&mut self) {
        for m in 0..self.nodes.len() {
            if self.nodes[m].alive && !self.nodes[m].e.repl().is_replica() {
                self.ship(m);
            }
        }
    }

    /// Sends what master `m` produced down its working links.
    pub(super) fn ship(&mut self, m: usize) {
        let now = self.k.now();
        self.links
            .ship(&mut self.k, &mut self.nodes[..], m, now, |_| true);
    }

    /// Whether replica `r`'s link to its master can work now.
    pub(super) fn link_wanted(&self, r: usize) -> bool {
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
    pub(super) fn reconcile(&mut self) {
        let now = self.k.now();
        for r in 0..self.nodes.len() {
            let want = self.link_wanted(r);
            let state = self.links.get(r).state;
            if state != LinkState::Down && !want {
                let was_up = self.links.break_link(&mut self.nodes[..], r, now);
                if was_up {
                    self.event(r, NodeEventKind::LinkDown);
                }
            } else if let (LinkState::Down, true, Some(m)) = (state, want, self.nodes[r].master_of)
            {
                self.links.connect(&mut self.k, r, m, now);
            }
        }
    }

    /// Replica `r` (re)connects to its master: PSYNC, then a partial or
    /// full sync. Returns true when it was a full sync.
    pub(super) fn attach(&mut self, r: usize) -> bool {
        let Some(m) = self.nodes[r].master_of else {
            return false;
        };
        let now = self.k.now();
        let a = self.links.attach(&mut self.nodes[..], r, m, now);
        if now > 0 {
            self.syncs.push(SyncRecord {
                at_us: now,
                replica: r,
                master: m,
                full: a.full,
                replica_offset: a.asked.saturating_sub(1),
                master_offset: a.master_offset,
            });
            if self.syncs.len() > 2 * EVENTS_CAP {
                self.syncs.drain(..EVENTS_CAP);
            }
        }
        if r == self.client_master {
            self.lost_dirty = true;
        }
        a.full
    }

    pub(super) fn restart(&mut self, n: usize) {
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
        nd.run_id = run_id(&mut self.k.rng);
        self.links.drop_link(n, self.k.now());
        if let Some(m) = nd.master_of {
            // A replica's config file still says replicaof.
            let line = self.replicaof_line(m);
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

    pub(super) fn sentinel_tick(&mut self) {
        let now = self.k.now();
        let mut orders = Vec::new();
        let mut evs = Vec::new();
        let net = sentinel_net(&self.nodes, &self.links, now);
        self.sentinels.tick(now, &net, &mut orders, &mut evs);
        for ev in evs {
            self.sentinel_event(ev);
        }
        for o in orders {
            let Order::ReplicaOf { node, to } = o;
            self.replicaof(node, to);
        }
        // The client asks the sentinels it can reach (and hears +switch-master).
        let zone = self.client_zone;
        let net = sentinel_net(&self.nodes, &self.links, now);
        let announced = self.sentinels.announced(|s| net.sentinel_zone(s) == zone);
        if let Some(m) = announced {
            if m != self.client_master {
                self.client_master = m;
                self.lost_dirty = true;
                self.event(m, NodeEventKind::ClientSwitched);
            }
        }
    }

    pub(super) fn sentinel_event(&mut self, ev: SentinelEvent) {
        let now = self.k.now();
        if let Some(log) = &mut self.sentinel_log {
            log.push((now, ev.clone()));
        }
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
    pub(super) fn replicaof(&mut self, n: usize, to: Option<usize>) {
        let is_replica = self.nodes[n].e.repl().is_replica();
        match to {
            None => {
                if !is_replica {
                    return;
                }
                self.admin(n, "REPLICAOF NO ONE");
                self.nodes[n].master_of = None;
                self.links.drop_link(n, self.k.now());
                self.event(n, NodeEventKind::Promoted);
            }
            Some(m) => {
                if is_replica && self.nodes[n].master_of == Some(m) {
                    return;
                }
                let line = self.replicaof_line(m);
                self.admin(n, &line);
                self.nodes[n].master_of = Some(m);
                self.links.drop_link(n, self.k.now());
                self.event(n, NodeEventKind::Repointed { to: m });
            }
        }
        if n == self.client_master {
            self.lost_dirty = true;
        }
    }

    /// Fsyncs and snapshots, from each engine's trace since the last look.
    pub(super) fn poll_persistence(&mut self) {
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

    pub(super) fn event_at(&mut self, at_us: u64, node: usize, kind: NodeEventKind) {
        // Engine instants never run ahead of the kernel's; keep the timeline ordered.
        let at_us = at_us
            .min(self.k.now())
            .max(self.events.last().map_or(0, |e| e.at_us));
        self.events.push(NodeEvent { at_us, node, kind });
    }
}
