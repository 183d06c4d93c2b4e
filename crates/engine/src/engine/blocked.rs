//! Serving blocked clients: keys made ready wake their waiters in FIFO order by running their command again, timeouts answer with the null reply, and whatever a client sent while it waited runs after it.
//!
//! This sits in the engine, above the command table, because serving a
//! client means dispatching its command again (`unblockClientOnKey`).

use super::{reply_event, Engine};
use crate::blocking::{Reprocessing, Waiter};
use crate::proto::resp::Frame;
use crate::server::client::ClientId;
use crate::server::lossy;
use crate::server::trace::{Actor, Event, UnblockHow};

impl Engine {
    /// `handleClientsBlockedOnKeys`: for every key made ready, serve the
    /// clients waiting on it in the order they blocked, while the key holds
    /// the type they wait for. A served command may make more keys ready
    /// (BLMOVE's push); the loop runs until none is left. Called after
    /// every command, so the usual case (no key ready) is checked inline.
    #[inline]
    pub(super) fn handle_blocked_clients(&mut self) {
        if self.srv.blocking.has_ready() {
            self.serve_ready_keys();
        }
    }

    fn serve_ready_keys(&mut self) {
        while let Some((db, key)) = self.srv.blocking.pop_ready() {
            for id in self.srv.blocking.waiting_on(db, &key) {
                // `lookupKeyReadWithFlags(LOOKUP_NOEFFECTS)`: an expired key
                // serves no one, and is not reclaimed here.
                let kind = match self.srv.dbs[db].get(&key) {
                    Some(o) if !self.srv.key_is_expired(db, &key) => {
                        crate::blocking::BlockKind::of(&o.value)
                    }
                    _ => None,
                };
                // XREADGROUP also runs again when its key is gone or of
                // another type (7.2's `unblock_on_nokey`), to answer the error.
                let nokey = self.srv.blocking.unblocks_on_nokey(id);
                if !nokey && (kind.is_none() || kind != self.srv.blocking.kind_of(id)) {
                    continue;
                }
                self.serve(id, &key);
            }
        }
    }

    /// `unblockClientOnKey`: runs a waiting client's command again now that
    /// `key` has data, then whatever it sent while it waited.
    fn serve(&mut self, id: ClientId, key: &[u8]) {
        let Some(w) = self.srv.blocking.unblock(id) else {
            return;
        };
        let again = Reprocessing {
            timeout_ms: w.timeout_ms,
            since_us: w.since_us,
        };
        self.rerun(id, w, UnblockHow::Served, Some(key), Some(again));
    }

    /// Runs a released client's command (`w.args`) and then what it sent
    /// while it waited: the part `serve` and `release_postponed` share.
    /// `again` is set for a command that blocked and runs once more, so it
    /// keeps its first timeout; a command CLIENT PAUSE held runs as new.
    fn rerun(
        &mut self,
        id: ClientId,
        w: Waiter,
        how: UnblockHow,
        key: Option<&[u8]>,
        again: Option<Reprocessing>,
    ) {
        self.srv.actor = Actor::Client(id);
        self.srv.emit_with(|| Event::Unblocked {
            how,
            key: key.map(lossy),
        });
        self.srv.blocking.reprocessing = again;
        let reply = self.run(id, &w.args, true, false);
        self.srv.blocking.reprocessing = None;
        // What is due ahead of its reply (evictions before it ran) goes first.
        crate::tracking::flush_before_reply(&mut self.srv);
        if let Some(reply) = reply {
            crate::output::deliver(&mut self.srv, id, reply);
        }
        crate::pubsub::after_reply(&mut self.srv, id);
        self.run_queued(id, w.queued);
    }

    /// `processUnblockedClients`: commands that arrived while `id` waited,
    /// until one blocks again (the rest keep waiting behind it).
    fn run_queued(&mut self, id: ClientId, mut queue: std::collections::VecDeque<Vec<Vec<u8>>>) {
        while let Some(args) = queue.pop_front() {
            if self.srv.blocking.is_blocked(id) {
                queue.push_front(args);
                self.srv.blocking.requeue(id, queue);
                return;
            }
            if self.clients.get(&id).is_none_or(|c| c.close_after_reply) {
                return;
            }
            let reply = self.run(id, &args, true, true);
            crate::tracking::flush_before_reply(&mut self.srv);
            if let Some(reply) = reply {
                crate::output::deliver(&mut self.srv, id, reply);
            }
            crate::pubsub::after_reply(&mut self.srv, id);
        }
    }

    /// `checkClientPauseTimeoutAndReturnIfPaused`: a CLIENT PAUSE whose
    /// end the clock has reached is over, and the clients it held run.
    pub(super) fn end_pause_if_due(&mut self) {
        if !cfg!(feature = "light")
            && self
                .srv
                .pause
                .is_some_and(|p| self.srv.now_ms() >= p.end_ms)
        {
            self.srv.pause = None;
            self.release_postponed();
        }
    }

    /// `unblockPostponedClients`: the clients CLIENT PAUSE held, in the
    /// order it held them, process their commands from the start (a pause
    /// one of them sets again holds the rest anew), then what they sent
    /// meanwhile.
    pub(super) fn release_postponed(&mut self) {
        if cfg!(feature = "light") {
            return;
        }
        for id in self.srv.blocking.postponed() {
            let Some(w) = self.srv.blocking.unblock(id) else {
                continue;
            };
            self.rerun(id, w, UnblockHow::Unpaused, None, None);
            self.handle_client_ops();
            self.handle_blocked_clients();
        }
    }

    /// `handleBlockedClientsTimeout`: clients whose deadline has passed get
    /// the null reply (`*-1`, or `_` in RESP3) and go on with their queue.
    pub(super) fn handle_block_timeouts(&mut self) {
        let now_ms = self.srv.now_ms();
        for id in self.srv.blocking.timed_out(now_ms) {
            let Some(w) = self.srv.blocking.unblock(id) else {
                continue;
            };
            // WAIT answers how many replicas did acknowledge.
            let reply = if w.kind == crate::blocking::BlockKind::Replicas {
                self.replica_wait(id, &w.args).0
            } else {
                Frame::NullArray
            };
            self.complete_blocked(id, &w.args, w.queued, UnblockHow::Timeout, reply);
        }
    }

    /// A busy script's end when its time has come (`script::busy`).
    pub(super) fn finish_busy_script(&mut self) {
        if let Some((id, reply)) = self.srv.scripts.take_finished(self.srv.clock.now_us()) {
            self.end_script_wait(id, reply);
        }
    }

    /// The caller of a busy script gets `reply` (its result, or the kill
    /// error) and goes on with what it sent meanwhile.
    pub(super) fn end_script_wait(&mut self, id: ClientId, reply: Frame) {
        let Some(w) = self.srv.blocking.unblock(id) else {
            return;
        };
        self.complete_blocked(id, &w.args, w.queued, UnblockHow::ScriptEnded, reply);
    }

    /// CLIENT UNBLOCK: answers a blocked client at once, as its timeout
    /// would (`unblockClientOnTimeout`) or with the UNBLOCKED error.
    pub(super) fn unblock_now(&mut self, id: ClientId, error: bool) {
        let Some(w) = self.srv.blocking.unblock(id) else {
            return;
        };
        let reply = if error {
            Frame::err("UNBLOCKED client unblocked via CLIENT UNBLOCK")
        } else if w.kind == crate::blocking::BlockKind::Replicas {
            self.replica_wait(id, &w.args).0
        } else {
            Frame::NullArray
        };
        self.complete_blocked(id, &w.args, w.queued, UnblockHow::Timeout, reply);
    }

    /// Where a client blocked in WAIT or WAITAOF stands: the reply it would
    /// get now, and whether that is what it waits for.
    fn replica_wait(&self, id: ClientId, args: &[Vec<u8>]) -> (Frame, bool) {
        let woff = self.clients.get(&id).map_or(0, |c| c.repl_woff);
        let want = |i: usize| {
            args.get(i)
                .and_then(|a| crate::proto::resp::parse_i64(a))
                .unwrap_or(0)
        };
        if args
            .first()
            .is_some_and(|a| a.eq_ignore_ascii_case(b"waitaof"))
        {
            let aof_woff = self.clients.get(&id).map_or(0, |c| c.aof_woff);
            let acks = crate::cmd::repl::waitaof_acks(&self.srv, aof_woff);
            let done = acks.0 >= want(1) && acks.1 >= want(2);
            return (crate::cmd::repl::waitaof_reply(acks), done);
        }
        let acked = self.srv.repl.acked(woff) as i64;
        (Frame::Integer(acked), acked >= want(1))
    }

    /// Answers every WAIT and WAITAOF whose acknowledgements (replicas'
    /// acks, the local AOF's fsync) are now there.
    pub(super) fn serve_replica_waits(&mut self) {
        for (id, args) in self.srv.blocking.waiting_for_replicas() {
            let (reply, done) = self.replica_wait(id, &args);
            if !done {
                continue;
            }
            let Some(w) = self.srv.blocking.unblock(id) else {
                continue;
            };
            self.complete_blocked(id, &w.args, w.queued, UnblockHow::Served, reply);
        }
    }

    /// Answers a blocked client without re-running its command (a timeout,
    /// or WAIT's acknowledgements): the reply is its command's, which
    /// completes now (`updateStatsOnUnblock`); then what it queued runs.
    pub(super) fn complete_blocked(
        &mut self,
        id: ClientId,
        args: &[Vec<u8>],
        queued: std::collections::VecDeque<Vec<Vec<u8>>>,
        how: UnblockHow,
        reply: Frame,
    ) {
        self.srv.actor = Actor::Client(id);
        self.srv.emit(Event::Unblocked { how, key: None });
        self.srv.emit_with(|| reply_event(&reply));
        self.srv.actor = Actor::Server;
        self.srv.stats.total_commands_processed += 1;
        if let Some(cmd) = crate::cmd::resolve_command(args) {
            self.srv
                .stats
                .command(cmd as *const crate::cmd::Command as usize)
                .calls += 1;
        }
        crate::output::deliver(&mut self.srv, id, reply);
        self.run_queued(id, queued);
    }
}
