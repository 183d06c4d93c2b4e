//! The cluster bus, played by the simulation: slot claims spread by gossip (`clusterUpdateSlotsConfigWith`), and `clusterCron` every 100 ms for each live node: pings, PFAIL after `cluster-node-timeout` without a pong, failure reports carried by gossip, FAIL once a majority of masters reported it.

use super::{BusWhat, Cluster, FAIL_REPORT_VALIDITY_MULT, FAIL_UNDO_TIME_MULT};
use redsim_engine::cluster::SLOTS;
use redsim_engine::rng::Pick;
use std::collections::BTreeSet;

impl Cluster {
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

    /// `clusterCron` for every live node at `t_us`, then the replication
    /// cron (periodic acks), then what changed spreads.
    pub(super) fn cron(&mut self, t_us: u64) {
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
                if self.links.master(r).is_some() && !self.nodes[r].down {
                    let offset = self.nodes[r].engine.repl().offset;
                    self.links.send_ack(&mut self.bus, r, t_us, offset);
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
                let b = self.bus.rng.pick(..count);
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
}
