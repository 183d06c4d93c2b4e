//! Replica elections (`clusterHandleSlaveFailover`: a delay of 500 ms, up to 500 ms at random and 1 s per rank; one vote per master per epoch; a majority of masters), the promotion that follows, and manual failovers (`CLUSTER FAILOVER`, FORCE, TAKEOVER).

use super::{BusWhat, Cluster, Election};
use redsim_engine::cluster::{ManualFailover, SLOTS};
use std::collections::BTreeSet;

impl Cluster {
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
    pub(super) fn replica_failover(&mut self, r: usize, now_ms: i64) -> bool {
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
                (rank, 500 + self.bus.rng.i64(0..500) + rank as i64 * 1000)
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
        self.links.drop_link(r, self.bus_us);
    }

    /// Starts a manual failover `CLUSTER FAILOVER` just accepted on `r`:
    /// TAKEOVER replaces the master at once; FORCE may start its election;
    /// the default asks the master to pause writes and report its offset.
    pub(super) fn take_manual_failover(&mut self, r: usize) {
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
    pub(super) fn manual_failover_step(&mut self, r: usize, t_us: u64, now_ms: i64) -> bool {
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
}
