//! The writing client: one `SET w:<n>` at a time at its rate, to the master the sentinels it reaches name, optionally followed by WAIT; and which acknowledged writes the master it ends on lost.

use super::{holds, Ev, NodeEventKind, Topology, WriteRecord, WRITES_CAP};
use crate::kernel::{Micros, MS, SEC};
use redsim_engine::Frame;

impl Topology {
    pub(super) fn write(&mut self) {
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

    pub(super) fn schedule_write(&mut self, sent: Micros) {
        if self.rate <= 0.0 {
            return;
        }
        let gen = self.write_gen;
        self.k.at(sent + self.gap(), Ev::Write { gen });
    }

    /// Time between two writes at the current rate.
    pub(super) fn gap(&self) -> Micros {
        if self.rate <= 0.0 {
            return Micros::MAX / 4;
        }
        ((SEC as f64 / self.rate) as Micros).max(1)
    }

    pub(super) fn push_write(&mut self, w: WriteRecord) {
        self.writes.push(w);
        if self.writes.len() > 2 * WRITES_CAP {
            let cut = self.writes.len() - WRITES_CAP;
            self.writes.drain(..cut);
        }
    }

    pub(super) fn record(&mut self, id: u64) -> Option<&mut WriteRecord> {
        let first = self.writes.first()?.id;
        let i = id.checked_sub(first)? as usize;
        self.writes.get_mut(i)
    }

    pub(super) fn refuse(&mut self, id: u64, node: usize, error: String) {
        self.refused += 1;
        if let Some(w) = self.record(id) {
            w.error = Some(error.clone());
        }
        self.event(node, NodeEventKind::Refused { id, error });
    }

    pub(super) fn ack(&mut self, id: u64, node: usize) {
        let now = self.k.now();
        self.acked += 1;
        if let Some(w) = self.record(id) {
            w.acked_us = Some(now);
        }
        self.event(node, NodeEventKind::Acked { id });
    }

    pub(super) fn finish_wait(&mut self, id: u64, node: usize, want: i64, f: &Frame) {
        match f {
            Frame::Integer(k) if *k >= want => self.ack(id, node),
            Frame::Integer(k) => {
                self.refuse(id, node, format!("WAIT reached {k} of {want} replicas"))
            }
            other => self.refuse(id, node, redsim_engine::proto::clifmt::format_reply(other)),
        }
    }

    /// WAIT replies, and WAITs whose connection is gone.
    pub(super) fn collect_wait(&mut self) {
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

    /// Marks acknowledged writes the client's master no longer holds.
    pub(super) fn check_lost(&mut self) {
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
