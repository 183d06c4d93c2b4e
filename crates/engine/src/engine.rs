//! The engine's public face: connect clients, execute commands, move virtual time (running Redis' cron and active expiry on the way), and read the trace and keyspace.

use std::collections::BTreeMap;

use crate::cmd;
use crate::expire::{active_expire_cycle, CycleKind};
use crate::proto::resp::Frame;
pub use crate::server::client::{Client, ClientId};
use crate::server::config::Config;
use crate::server::trace::{Actor, Event, Trace, UnblockHow};
use crate::server::{lossy, Server};

/// How to build an engine. Only the seed is required.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    pub config: Config,
    /// Events the trace keeps; 0 turns tracing off (benchmarks, the native server).
    pub trace_capacity: usize,
}

impl Options {
    /// Defaults for `seed`: Redis' default config and a 100k-event trace.
    pub fn new(seed: u64) -> Options {
        Options {
            seed,
            config: Config::default(),
            trace_capacity: 100_000,
        }
    }
}

/// One key as the keyspace panel shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct KeyInfo {
    pub key: String,
    pub kind: &'static str,
    pub encoding: &'static str,
    /// Milliseconds left, if the key has a TTL (≤ 0 when expired but not yet reclaimed).
    pub ttl_ms: Option<i64>,
    /// Logically expired, still in memory until lazy or active expiry reclaims it.
    pub expired_pending: bool,
}

/// A deterministic Redis: same seed and inputs, same replies and trace.
pub struct Engine {
    srv: Server,
    clients: BTreeMap<ClientId, Client>,
    next_client: ClientId,
    /// The client that ran the last command, whose CLIENT LIST entry is
    /// brought up to date only when another client runs one (until then no
    /// other client can look at it).
    unsynced: Option<ClientId>,
}

impl Engine {
    /// An engine with default options for `seed`.
    pub fn new(seed: u64) -> Engine {
        Engine::with_options(Options::new(seed))
    }

    /// An engine built from `opts`.
    pub fn with_options(opts: Options) -> Engine {
        let mut srv = Server::new(opts.seed, opts.config, opts.trace_capacity);
        srv.next_cron_us = cron_period_us(&srv);
        Engine {
            srv,
            clients: BTreeMap::new(),
            next_client: 1,
            unsynced: None,
        }
    }

    /// The server state (read-only).
    pub fn server(&self) -> &Server {
        &self.srv
    }

    /// The server state, for drivers that set the clock base or config.
    pub fn server_mut(&mut self) -> &mut Server {
        &mut self.srv
    }

    /// Sets what virtual instant 0 means in Unix time (the native server
    /// passes the wall clock), refreshing the LRU clock derived from it so
    /// keys created before the first cron tick get a current LRU field.
    pub fn set_unix_base_us(&mut self, base_us: u64) {
        self.srv.clock.set_unix_base_us(base_us);
        self.srv.lruclock = self.srv.lru_clock_now();
    }

    /// Connects a client; `name` labels it in the trace.
    pub fn connect(&mut self, name: &str) -> ClientId {
        let id = self.next_client;
        self.next_client += 1;
        let now = self.srv.clock.now_us();
        self.clients.insert(
            id,
            Client {
                id,
                db: 0,
                resp: 2,
                name: None,
                created_us: now,
                last_interaction_us: now,
                close_after_reply: false,
                multi: None,
                subs: Default::default(),
                repl_woff: 0,
            },
        );
        self.srv.connected_clients = self.clients.len();
        cmd::server::client_connected(&mut self.srv, &self.clients[&id]);
        self.srv.stats.total_connections_received += 1;
        self.srv.actor = Actor::Client(id);
        self.srv.emit_with(|| Event::Connected {
            name: name.to_string(),
        });
        self.srv.actor = Actor::Server;
        id
    }

    /// Disconnects a client.
    pub fn disconnect(&mut self, id: ClientId) {
        if self.srv.blocking.unblock(id).is_some() {
            self.srv.actor = Actor::Client(id);
            self.srv.emit(Event::Unblocked {
                how: UnblockHow::Disconnected,
                key: None,
            });
            self.srv.actor = Actor::Server;
        }
        if self.unsynced == Some(id) {
            self.unsynced = None;
        }
        if let Some(mut c) = self.clients.remove(&id) {
            // Its subscriptions go with it: what is published from now on
            // is lost to it, even if it reconnects.
            self.srv.actor = Actor::Client(id);
            crate::pubsub::disconnected(&mut self.srv, &mut c);
            self.srv.watches.reset(id);
            self.srv.connected_clients = self.clients.len();
            self.srv.client_list.remove(&id);
            self.srv.actor = Actor::Client(id);
            self.srv.emit(Event::Disconnected);
            self.srv.actor = Actor::Server;
        }
    }

    /// A connected client's state.
    pub fn client(&self, id: ClientId) -> Option<&Client> {
        self.clients.get(&id)
    }

    /// Executes one command for `client` and returns its reply. Never panics
    /// on bad input: every malformed command gets Redis' error reply. The
    /// command never blocks: a blocking command with nothing to serve it
    /// replies at once as on a timeout, as Redis does inside MULTI/EXEC and
    /// scripts. Clients blocked (through [`Engine::submit`]) on keys this
    /// command fills are served; their replies wait in [`Engine::take_unblocked`].
    pub fn execute(&mut self, client: ClientId, args: &[Vec<u8>]) -> Frame {
        if self.srv.blocking.is_blocked(client) {
            return Frame::err(
                "ERR this client is blocked: its next commands run once it is served or times out (use submit)",
            );
        }
        let reply = self.run(client, args, false, true);
        crate::pubsub::after_reply(&mut self.srv, client);
        self.handle_blocked_clients();
        // Lazily: an eager `Frame::NullArray` is built and dropped (a call
        // into `Frame`'s drop glue) on every command that did not block.
        #[allow(clippy::unnecessary_lazy_evaluations)]
        reply.unwrap_or_else(|| Frame::NullArray)
    }

    /// Executes one command for `client` as a connection would send it:
    /// `None` means the command blocked (BLPOP & co.) and the client waits;
    /// its reply comes later from [`Engine::take_unblocked`], once a write
    /// serves it, its timeout passes in [`Engine::advance_to`], or never if
    /// it disconnects. Commands submitted for a blocked client wait behind
    /// it (as in a Redis query buffer) and their replies come the same way.
    pub fn submit(&mut self, client: ClientId, args: &[Vec<u8>]) -> Option<Frame> {
        if self.srv.blocking.is_blocked(client) {
            self.srv.blocking.queue(client, args.to_vec());
            return None;
        }
        let reply = self.run(client, args, true, true);
        crate::pubsub::after_reply(&mut self.srv, client);
        self.handle_blocked_clients();
        reply
    }

    /// Like [`Engine::execute_line`], but the command may block (see [`Engine::submit`]).
    pub fn submit_line(&mut self, client: ClientId, line: &str) -> Option<Frame> {
        let Some(args) = crate::proto::resp::split_args(line.as_bytes()) else {
            return Some(Frame::err("Invalid argument(s)"));
        };
        if args.is_empty() {
            return Some(Frame::err("ERR empty command"));
        }
        let reply = self.submit(client, &args);
        self.before_sleep();
        reply
    }

    /// Replies of clients unblocked since the last call, in the order they
    /// were produced: served after another client's write, timed out, or
    /// commands that had waited behind a blocked one. Pub/Sub frames come
    /// the same way, in the same order as the rest: messages for
    /// subscribers, and the caller's own frames that follow its reply
    /// (further SUBSCRIBE confirmations, messages it published to itself).
    pub fn take_unblocked(&mut self) -> Vec<(ClientId, Frame)> {
        self.srv.blocking.take_outbox()
    }

    /// True while `client` waits in a blocking command.
    pub fn is_blocked(&self, client: ClientId) -> bool {
        self.srv.blocking.is_blocked(client)
    }

    /// Every blocked client: what it waits on, since and until when.
    pub fn blocked_clients(&self) -> Vec<crate::blocking::BlockedInfo> {
        let base = self.srv.clock.unix_us() - self.srv.clock.now_us();
        self.srv.blocking.info(base)
    }

    /// The virtual µs at which the soonest blocked client times out, if any
    /// waits with a timeout: drivers wake then to deliver the null reply.
    pub fn next_block_deadline_us(&self) -> Option<u64> {
        let base = self.srv.clock.unix_us() - self.srv.clock.now_us();
        self.srv
            .blocking
            .next_deadline_ms()
            .map(|t| crate::blocking::deadline_us(t, base))
    }

    /// Runs one command: `None` if it blocked. `may_block` is false for
    /// [`Engine::execute`]; `announce` records the command in the trace
    /// (a served client's re-run is recorded as its unblocking instead).
    fn run(
        &mut self,
        client: ClientId,
        args: &[Vec<u8>],
        may_block: bool,
        announce: bool,
    ) -> Option<Frame> {
        if let Some(prev) = self.unsynced.take() {
            if prev != client {
                if let Some(p) = self.clients.get(&prev) {
                    cmd::server::sync_client(&mut self.srv, p);
                }
            }
        }
        let Some(c) = self.clients.get_mut(&client) else {
            return Some(Frame::err("ERR unknown client"));
        };
        if args.is_empty() {
            return Some(Frame::err("ERR empty command"));
        }
        self.unsynced = Some(client);
        self.srv.actor = Actor::Client(client);
        let srv = &mut self.srv;
        if announce {
            srv.emit_with(|| Event::Command {
                db: c.db as u32,
                args: args.iter().map(|a| lossy(a)).collect(),
            });
        }
        c.last_interaction_us = srv.clock.now_us();
        srv.lazyfree_drain();
        srv.blocking.deny = !may_block;
        let reply = cmd::dispatch(srv, c, args);
        srv.blocking.deny = false;
        crate::persist::sync_config(srv);
        if srv.repl.capturing() {
            // A read-only command's only writes are lazy expirations, which
            // Redis propagates as DELs of its own.
            let readonly = cmd::resolve(args).is_ok_and(|(_, c)| c.has_flag("readonly"));
            crate::repl::propagate(srv, (!readonly).then_some(args));
        }
        c.repl_woff = srv.repl.offset;
        // Synchronous freeing kept the server busy: the command completes
        // (and the next one starts) that much later.
        srv.settle_stall();
        if let Some(mut req) = srv.blocking.take_request() {
            // Counted once, when it completes (served or timed out).
            srv.stats.total_commands_processed =
                srv.stats.total_commands_processed.saturating_sub(1);
            let mut since = srv.clock.now_us();
            if let Some(r) = srv.blocking.reprocessing {
                req.timeout_ms = r.timeout_ms;
                since = r.since_us;
            }
            let base = srv.clock.unix_us() - srv.clock.now_us();
            srv.emit_with(|| Event::Blocked {
                db: c.db as u32,
                keys: req.keys.iter().map(|k| lossy(k)).collect(),
                deadline_us: (req.timeout_ms != 0)
                    .then(|| crate::blocking::deadline_us(req.timeout_ms, base)),
            });
            srv.blocking.block(client, c.db, args, req, since);
            srv.actor = Actor::Server;
            return None;
        }
        srv.emit_with(|| reply_event(&reply));
        self.srv.actor = Actor::Server;
        Some(reply)
    }

    /// `handleClientsBlockedOnKeys`: for every key made ready, serve the
    /// clients waiting on it in the order they blocked, while the key holds
    /// the type they wait for. A served command may make more keys ready
    /// (BLMOVE's push); the loop runs until none is left. Called after
    /// every command, so the usual case (no key ready) is checked inline.
    #[inline]
    fn handle_blocked_clients(&mut self) {
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
        self.srv.actor = Actor::Client(id);
        self.srv.emit_with(|| Event::Unblocked {
            how: UnblockHow::Served,
            key: Some(lossy(key)),
        });
        self.srv.blocking.reprocessing = Some(crate::blocking::Reprocessing {
            timeout_ms: w.timeout_ms,
            since_us: w.since_us,
        });
        let reply = self.run(id, &w.args, true, false);
        self.srv.blocking.reprocessing = None;
        if let Some(reply) = reply {
            self.srv.blocking.deliver(id, reply);
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
            if let Some(reply) = self.run(id, &args, true, true) {
                self.srv.blocking.deliver(id, reply);
            }
            crate::pubsub::after_reply(&mut self.srv, id);
        }
    }

    /// `handleBlockedClientsTimeout`: clients whose deadline has passed get
    /// the null reply (`*-1`, or `_` in RESP3) and go on with their queue.
    fn handle_block_timeouts(&mut self) {
        let now_ms = self.srv.now_ms();
        for id in self.srv.blocking.timed_out(now_ms) {
            let Some(w) = self.srv.blocking.unblock(id) else {
                continue;
            };
            // WAIT answers how many replicas did acknowledge.
            let reply = if w.kind == crate::blocking::BlockKind::Replicas {
                let woff = self.clients.get(&id).map_or(0, |c| c.repl_woff);
                Frame::Integer(self.srv.repl.acked(woff) as i64)
            } else {
                Frame::NullArray
            };
            self.complete_blocked(id, w.queued, UnblockHow::Timeout, reply);
        }
    }

    /// Answers a blocked client without re-running its command (a timeout,
    /// or WAIT's acknowledgements): the reply is its command's, which
    /// completes now (`updateStatsOnUnblock`); then what it queued runs.
    fn complete_blocked(
        &mut self,
        id: ClientId,
        queued: std::collections::VecDeque<Vec<Vec<u8>>>,
        how: UnblockHow,
        reply: Frame,
    ) {
        self.srv.actor = Actor::Client(id);
        self.srv.emit(Event::Unblocked { how, key: None });
        self.srv.emit_with(|| reply_event(&reply));
        self.srv.actor = Actor::Server;
        self.srv.stats.total_commands_processed += 1;
        self.srv.blocking.deliver(id, reply);
        self.run_queued(id, queued);
    }

    /// Splits `line` like redis-cli, executes it, then lets the event loop
    /// run `beforeSleep`. Unbalanced quotes give redis-cli's message.
    pub fn execute_line(&mut self, client: ClientId, line: &str) -> Frame {
        let Some(args) = crate::proto::resp::split_args(line.as_bytes()) else {
            return Frame::err("Invalid argument(s)");
        };
        if args.is_empty() {
            return Frame::err("ERR empty command");
        }
        let reply = self.execute(client, &args);
        self.before_sleep();
        reply
    }

    /// What Redis does before waiting for events again: blocked clients'
    /// timeouts and ready keys (`blockedBeforeSleep`), then a fast active
    /// expire cycle when due.
    pub fn before_sleep(&mut self) {
        // Expirations and evictions since the last command go out as DELs.
        crate::repl::propagate(&mut self.srv, None);
        self.handle_block_timeouts();
        self.handle_blocked_clients();
        active_expire_cycle(&mut self.srv, CycleKind::Fast);
        if self.srv.evict.proc_running {
            // Redis' eviction timer proc: finish what a command ran out of time for.
            crate::evict::perform_evictions(&mut self.srv);
        }
        self.srv.settle_stall();
    }

    /// Virtual microseconds since the start.
    pub fn now_us(&self) -> u64 {
        self.srv.clock.now_us()
    }

    /// Moves time to `t_us`, running every cron tick due on the way (LRU
    /// clock, slow active expire cycle, table resizing) and `beforeSleep`
    /// after each. Earlier times are ignored: time never goes back.
    pub fn advance_to(&mut self, t_us: u64) {
        loop {
            // A blocked client's deadline between two ticks wakes the loop
            // then, as a driver's timer would (Redis itself only notices at
            // the next event-loop iteration, within 1000/hz ms).
            if let Some(wake) = self.next_block_deadline_us() {
                if wake < self.srv.next_cron_us && wake <= t_us {
                    let now = self.srv.clock.now_us();
                    self.srv.clock.set(wake.max(now));
                    self.handle_block_timeouts();
                    self.handle_blocked_clients();
                    continue;
                }
            }
            if self.srv.next_cron_us > t_us {
                break;
            }
            // A stall (synchronous freeing) may have carried the clock past
            // the tick: it runs late, once, and the next one is a period
            // after it ends, as Redis' timer reschedules after its proc.
            let at = self.srv.next_cron_us.max(self.srv.clock.now_us());
            self.srv.clock.set(at);
            self.cron();
            self.before_sleep();
            self.srv.next_cron_us = self.srv.clock.now_us().max(at) + cron_period_us(&self.srv);
        }
        if t_us > self.srv.clock.now_us() {
            self.srv.clock.set(t_us);
        }
    }

    /// Moves time forward by `d_us`, recording the jump in the trace.
    pub fn advance_by(&mut self, d_us: u64) {
        self.srv.emit(Event::ClockAdvanced { by_us: d_us });
        let t = self.now_us() + d_us;
        self.advance_to(t);
    }

    /// `serverCron`, minus what later features add.
    fn cron(&mut self) {
        let srv = &mut self.srv;
        srv.lruclock = srv.lru_clock_now();
        srv.cronloops += 1;
        cmd::server::cron_update_memory_stats(srv);
        active_expire_cycle(srv, CycleKind::Slow);
        for db in &mut srv.dbs {
            db.shrink_tables();
        }
        crate::repl::propagate(srv, None);
        crate::persist::cron(srv);
        cmd::server::cron_memory_sample(srv);
        srv.settle_stall();
    }

    /// Stream ops produced since the last call (master side): the driver
    /// carries them to replicas with its links' delays.
    pub fn take_repl_stream(&mut self) -> Vec<crate::repl::ReplOp> {
        crate::repl::propagate(&mut self.srv, None);
        self.srv.repl.take_outbox()
    }

    /// A replica applies ops from its master, in order.
    pub fn apply_repl(&mut self, ops: &[crate::repl::ReplOp]) {
        self.srv.actor = Actor::Server;
        if let crate::repl::Role::Replica {
            last_io_ms, state, ..
        } = &mut self.srv.repl.role
        {
            *last_io_ms = self.srv.clock.unix_us() as i64 / 1000;
            *state = crate::repl::LinkState::Connected;
        }
        for op in ops {
            crate::repl::apply(&mut self.srv, op);
        }
        self.handle_blocked_clients();
    }

    /// The master side of `PSYNC`: registers replica `addr` (its announced
    /// `ip:port`) and answers with a partial or full resync.
    pub fn psync(&mut self, addr: &str, replid: &str, offset: u64) -> crate::repl::Sync {
        crate::repl::psync(&mut self.srv, addr, replid, offset)
    }

    /// The replica side of a resync: loads a snapshot (full) or applies the
    /// missing ops (partial), and marks the link up.
    pub fn finish_sync(&mut self, sync: &crate::repl::Sync) {
        match sync {
            crate::repl::Sync::Full {
                replid,
                offset,
                snapshot,
            } => crate::repl::load_full(&mut self.srv, replid, *offset, snapshot),
            crate::repl::Sync::Partial(ops) => self.apply_repl(ops),
        }
    }

    /// What a replica sends in PSYNC: its history's ID and the next byte it needs.
    pub fn psync_request(&self) -> (String, u64) {
        (self.srv.repl.replid.clone(), self.srv.repl.offset + 1)
    }

    /// Marks a replica's link to its master down (a cut link, a dead master).
    pub fn master_link_down(&mut self) {
        let now_ms = self.srv.now_ms();
        if let crate::repl::Role::Replica {
            state,
            down_since_ms,
            ..
        } = &mut self.srv.repl.role
        {
            if *state != crate::repl::LinkState::Connect {
                *state = crate::repl::LinkState::Connect;
                *down_since_ms = now_ms;
            }
        }
    }

    /// The master forgets replica `addr` (its link dropped).
    pub fn replica_gone(&mut self, addr: &str) {
        for r in &mut self.srv.repl.replicas {
            if r.addr == addr {
                r.online = false;
            }
        }
    }

    /// `REPLCONF ACK offset` from replica `addr`: records it, and answers
    /// every WAIT that now has enough acknowledgements.
    pub fn replica_ack(&mut self, addr: &str, offset: u64) {
        let now_ms = self.srv.now_ms();
        if let Some(r) = self.srv.repl.replicas.iter_mut().find(|r| r.addr == addr) {
            r.ack_offset = r.ack_offset.max(offset);
            r.last_ack_ms = now_ms;
            r.online = true;
        }
        for (id, args) in self.srv.blocking.waiting_for_replicas() {
            let want = args
                .get(1)
                .and_then(|a| crate::proto::resp::parse_i64(a))
                .unwrap_or(0);
            let woff = self.clients.get(&id).map_or(0, |c| c.repl_woff);
            let acked = self.srv.repl.acked(woff) as i64;
            if acked < want {
                continue;
            }
            let Some(w) = self.srv.blocking.unblock(id) else {
                continue;
            };
            self.complete_blocked(id, w.queued, UnblockHow::Served, Frame::Integer(acked));
        }
    }

    /// True once since a WAIT blocked: the driver should ask replicas for an
    /// ACK (`REPLCONF GETACK`) instead of waiting for their next periodic one.
    pub fn take_ack_request(&mut self) -> bool {
        std::mem::take(&mut self.srv.repl.ack_requested)
    }

    /// A crash and restart: a new engine with the same seed and config,
    /// its clock where this one's is, loaded from what the files held after
    /// `crash` (the AOF when on, else the last RDB file). Clients are gone.
    pub fn crash_restart(&self, crash: crate::persist::Crash) -> Engine {
        let (snapshot, ops) = crate::persist::recover(&self.srv, crash);
        let opts = Options {
            seed: self.srv.seed,
            config: self.srv.config.clone(),
            trace_capacity: self.srv.trace.capacity(),
        };
        let mut e = Engine::with_options(opts);
        let base = self.srv.clock.unix_us() - self.srv.clock.now_us();
        e.set_unix_base_us(base);
        e.srv.clock.set(self.srv.clock.now_us());
        e.srv.next_cron_us = self.srv.clock.now_us() + cron_period_us(&e.srv);
        e.srv.lruclock = e.srv.lru_clock_now();
        crate::persist::load(&mut e.srv, snapshot.as_ref(), &ops);
        // The loaded files are the new AOF's base / the last RDB.
        e.srv.persist.rdb = self.srv.persist.rdb.clone();
        crate::persist::sync_config(&mut e.srv);
        e
    }

    /// This node's replication state (role, offsets, replicas).
    pub fn repl(&self) -> &crate::repl::Repl {
        &self.srv.repl
    }

    /// The trace of everything that happened.
    pub fn trace(&self) -> &Trace {
        &self.srv.trace
    }

    /// The inspector's view of `key` in database `db`, read without side
    /// effects (no lazy expiry, stats or LRU update); `None` if absent.
    pub fn inspect(&self, db: usize, key: &[u8]) -> Option<crate::inspect::KeyView> {
        let d = self.srv.dbs.get(db)?;
        let obj = d.get(key)?;
        let ttl_ms = d.expire_at(key).map(|w| w - self.srv.now_ms());
        Some(crate::inspect::KeyView::of(
            db,
            key,
            obj,
            ttl_ms,
            &self.srv.config,
        ))
    }

    /// Keys of database `db` for display, sorted by name, at most `limit`.
    pub fn keys_snapshot(&self, db: usize, limit: usize) -> Vec<KeyInfo> {
        let Some(d) = self.srv.dbs.get(db) else {
            return Vec::new();
        };
        let now = self.srv.now_ms();
        let mut keys: Vec<KeyInfo> = d
            .dict
            .iter()
            .map(|(k, o)| {
                let ttl_ms = d.expire_at(k).map(|w| w - now);
                KeyInfo {
                    key: lossy(k),
                    kind: o.value.type_name(),
                    encoding: o.value.encoding(),
                    ttl_ms,
                    expired_pending: ttl_ms.is_some_and(|t| t < 0),
                }
            })
            .collect();
        keys.sort_by(|a, b| a.key.cmp(&b.key));
        keys.truncate(limit);
        keys
    }
}

/// The trace event for a reply: as redis-cli prints it, capped at 300 bytes.
fn reply_event(reply: &Frame) -> Event {
    let mut text = crate::proto::clifmt::format_reply(reply);
    if text.len() > 300 {
        let mut cut = 300;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    Event::Reply {
        text,
        error: reply.is_error(),
    }
}

/// Microseconds between cron ticks at the configured `hz` (clamped to 1..=500 as Redis does).
fn cron_period_us(srv: &Server) -> u64 {
    1_000_000 / srv.config.hz.clamp(1, 500) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_of(list: &Frame, id: ClientId) -> String {
        let Frame::Verbatim(_, text) = list else {
            panic!("CLIENT LIST answered {list:?}")
        };
        String::from_utf8_lossy(text)
            .lines()
            .find(|l| l.starts_with(&format!("id={id} ")))
            .unwrap_or_else(|| panic!("no line for client {id}"))
            .to_string()
    }

    /// A client's CLIENT LIST entry is brought up to date lazily, when
    /// another client runs a command: what the other one sees is still its
    /// last command, database and name.
    #[test]
    fn client_list_shows_another_clients_last_command() {
        let mut e = Engine::new(1);
        let a = e.connect("a");
        let b = e.connect("b");
        e.execute_line(a, "CLIENT SETNAME alpha");
        e.execute_line(a, "SELECT 3");
        e.execute_line(a, "GET k");
        let seen = line_of(&e.execute_line(b, "CLIENT LIST"), a);
        assert!(seen.contains(" name=alpha "), "{seen}");
        assert!(seen.contains(" db=3 "), "{seen}");
        assert!(seen.contains(" cmd=get "), "{seen}");
        e.execute_line(a, "SET k v");
        let seen = line_of(&e.execute_line(b, "CLIENT LIST"), a);
        assert!(seen.contains(" cmd=set "), "{seen}");
        // Its own line shows the command it is running.
        let own = line_of(&e.execute_line(b, "CLIENT LIST"), b);
        assert!(own.contains(" cmd=client|list "), "{own}");
        // A client that leaves with its entry unsynced is gone from the list.
        e.execute_line(a, "PING");
        e.disconnect(a);
        let Frame::Verbatim(_, text) = e.execute_line(b, "CLIENT LIST") else {
            panic!()
        };
        assert!(!String::from_utf8_lossy(&text).contains(&format!("id={a} ")));
    }

    /// `addReplyVerbatim`: a script's verbatim format is its first three
    /// bytes, padded with spaces.
    #[test]
    fn script_verbatim_formats_are_three_bytes() {
        let mut e = Engine::new(1);
        let c = e.connect("c");
        e.execute_line(c, "HELLO 3");
        for (fmt, want) in [("markdown", *b"mar"), ("t", *b"t  "), ("txt", *b"txt")] {
            let script =
                format!("EVAL \"return {{verbatim_string={{format='{fmt}', string='x'}}}}\" 0");
            assert_eq!(
                e.execute_line(c, &script),
                Frame::Verbatim(want, b"x".to_vec()),
                "{fmt}"
            );
        }
    }
}
