//! Nodes dying and coming back, and the replication links between them: a node killed answers nothing and its links drop; a restarted one learns the slot owners by gossip; each live engine's role follows its view, a replica attached to its master over a link that carries the stream and the acks.

use super::{BusWhat, Cluster};
use crate::replication::link::LinkMsg;

impl Cluster {
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
        let now = self.bus_us;
        for r in 0..self.nodes.len() {
            if self.links.master(r) == Some(i) {
                self.links.break_link(&mut self.nodes[..], r, now);
            }
        }
        if self.links.master(i).is_some() {
            self.links.break_link(&mut self.nodes[..], i, now);
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

    /// A message of the replication links arrives at `at`. One sent on a
    /// link broken since (a dead peer) or rebuilt is lost.
    pub(super) fn carry(&mut self, at: u64, msg: LinkMsg) {
        match msg {
            LinkMsg::Stream { to, gen, ops, .. } => {
                if !self.links.current(to, gen) {
                    return;
                }
                self.nodes[to].engine.advance_to(at);
                self.links.receive(&mut self.nodes[..], to, gen, &ops);
                let offset = self.nodes[to].engine.repl().offset;
                self.links.send_ack(&mut self.bus, to, at, offset);
            }
            LinkMsg::Ack { from, gen, offset } => {
                if let Some(m) = self.links.ack_target(from, gen) {
                    self.nodes[m].engine.advance_to(at);
                    self.links.ack(&mut self.nodes[..], m, from, offset);
                }
            }
            // Replicas attach at once and WAIT is not modelled here.
            LinkMsg::GetAck { .. } | LinkMsg::Connected { .. } => {}
        }
    }

    /// Puts what node `from` wrote on the links to its attached replicas,
    /// leaving at `at` (a dead node's replicas are detached already).
    pub(super) fn ship(&mut self, from: usize, at: u64) {
        if self.nodes[from].down {
            return;
        }
        self.links
            .ship(&mut self.bus, &mut self.nodes[..], from, at, |_| true);
    }

    /// Makes each live engine's replication role follow its view: a master
    /// in its view is promoted, a replica follows (PSYNC) the master its
    /// view names once that master is up.
    pub(super) fn reconcile_replication(&mut self) {
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
                    if self.links.master(i).is_some() {
                        self.links.drop_link(i, self.bus_us);
                    }
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
                        if self.links.master(i).is_some() {
                            self.links.drop_link(i, self.bus_us);
                        }
                    }
                    if self.links.master(i) != Some(m) && !self.nodes[m].down {
                        self.attach(i, m);
                    }
                }
            }
        }
    }

    /// Replica `r` connects to `m`: PSYNC, then the partial or full sync
    /// (played instantly), and its first ack.
    pub(super) fn attach(&mut self, r: usize, m: usize) {
        let at = self.bus_us;
        // What `m` wrote before belongs to the stream this sync covers.
        self.ship(m, at);
        self.nodes[m].engine.advance_to(at);
        self.nodes[r].engine.advance_to(at);
        let full = self.links.attach(&mut self.nodes[..], r, m, at).full;
        self.event(r, BusWhat::Synced { master: m, full });
    }
}
