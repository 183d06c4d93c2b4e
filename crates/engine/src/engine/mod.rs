//! The engine's public face: connect clients, execute commands, move virtual time (running Redis' cron and active expiry on the way), and read the trace and keyspace.

mod blocked;
mod drivers;
mod views;

pub use drivers::{ClientOrigin, KeyDump};

use crate::cmd;
use crate::expire::{active_expire_cycle, CycleKind};
use crate::proto::resp::Frame;
pub use crate::server::client::{Client, ClientEntry, ClientId};
use crate::server::client_bufs::{reply_len_upto, CommandBytes};
use crate::server::config::Config;
use crate::server::trace::{Actor, Event, UnblockHow};
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
    clients: crate::idmap::IdMap<Client>,
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
        // `replicaof host port` given at start: a replica from the outset, as
        // REPLICAOF would make it (the link starts down).
        let master = srv.config.replicaof.clone();
        let mut words = master.split_ascii_whitespace();
        if let (Some(host), Some(port), None) = (words.next(), words.next(), words.next()) {
            if let Ok(port) = port.parse::<u16>() {
                crate::repl::demote(&mut srv, host, port);
            }
        }
        Engine {
            srv,
            clients: crate::idmap::IdMap::new(),
            next_client: 1,
            unsynced: None,
        }
    }

    /// The server state, for the crate's own tests.
    #[cfg(test)]
    pub(crate) fn server(&self) -> &Server {
        &self.srv
    }

    /// The server state, for the crate's own tests.
    #[cfg(test)]
    pub(crate) fn server_mut(&mut self) -> &mut Server {
        &mut self.srv
    }

    /// Sets what virtual instant 0 means in Unix time (the native server
    /// passes the wall clock), refreshing the LRU clock derived from it so
    /// keys created before the first cron tick get a current LRU field.
    pub fn set_unix_base_us(&mut self, base_us: u64) {
        self.srv.clock.set_unix_base_us(base_us);
        self.srv.lruclock = self.srv.lru_clock_now();
    }

    /// Keeps the server log's lines (DEBUG LOG, `redis.log`) for
    /// [`Engine::take_log`]; off by default, when nothing is kept.
    pub fn keep_log(&mut self, on: bool) {
        self.srv.log.keep = on;
    }

    /// The log lines written since the last call, oldest first.
    pub fn take_log(&mut self) -> Vec<crate::server::log::Line> {
        self.srv.log.take()
    }

    /// Connects a client; `name` labels it in the trace.
    pub fn connect(&mut self, name: &str) -> ClientId {
        let id = self.next_client;
        self.next_client += 1;
        let now = self.srv.clock.now_us();
        let authenticated = !self.srv.acl.auth_required;
        self.clients.insert(id, Client::new(id, now, authenticated));
        self.srv.connected_clients = self.clients.len();
        let entry = ClientEntry::of(&self.clients[&id]);
        self.srv.client_list.insert(id, entry);
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
            crate::tracking::disconnected(&mut self.srv, id);
            crate::output::forget(&mut self.srv, id);
            self.srv.watches.reset(id);
            self.srv.monitors.retain(|&m| m != id);
            crate::repl::socket::gone(&mut self.srv, id);
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
        self.free_killed();
        crate::pubsub::after_reply(&mut self.srv, client);
        self.handle_client_ops();
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
        self.free_killed();
        crate::pubsub::after_reply(&mut self.srv, client);
        self.handle_client_ops();
        self.handle_blocked_clients();
        reply
    }

    /// `freeClient` for the clients a command killed: gone at once (CLIENT
    /// LIST no longer shows them), their connections closed by the driver.
    fn free_killed(&mut self) {
        if self.srv.killed.is_empty() {
            return;
        }
        for id in std::mem::take(&mut self.srv.killed) {
            if self.clients.contains_key(&id) {
                self.disconnect(id);
                self.srv.killed_out.push(id);
            }
        }
    }

    /// True once SHUTDOWN ran: a driver closes every connection (and a
    /// standalone server process exits).
    pub fn is_shut_down(&self) -> bool {
        self.srv.shut_down
    }

    /// Carries out what CLIENT UNBLOCK asked for.
    fn handle_client_ops(&mut self) {
        if self.srv.client_ops.is_empty() {
            return;
        }
        for op in std::mem::take(&mut self.srv.client_ops) {
            match op {
                crate::server::ClientOp::Unblock(id, error) => self.unblock_now(id, error),
                crate::server::ClientOp::Reply(id, reply) => self.end_script_wait(id, reply),
                crate::server::ClientOp::Unpause => self.release_postponed(),
                crate::server::ClientOp::ReplicaAck(addr, offset) => {
                    self.replica_ack(&addr, offset)
                }
            }
        }
    }

    /// Clients killed since the last call (CLIENT KILL, ACL DELUSER of
    /// their user, `client-output-buffer-limit`), already disconnected: a driver closes their connections.
    pub fn take_killed(&mut self) -> Vec<ClientId> {
        std::mem::take(&mut self.srv.killed_out)
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
        crate::output::taken_all(&mut self.srv);
        self.srv.blocking.take_outbox()
    }

    /// Makes the driver read `client`'s output itself, `max_bytes` at a
    /// time through [`Engine::read_output`] (a slow reader), instead of
    /// with everyone else's in [`Engine::take_unblocked`]; `false` hands
    /// back what it had not read yet to `take_unblocked`. What waits counts
    /// against `client-output-buffer-limit` (see `output/`).
    pub fn hold_output(&mut self, client: ClientId, held: bool) {
        if self.clients.contains_key(&client) {
            crate::output::hold(&mut self.srv, client, held);
        }
    }

    /// A held client reads up to `max_bytes` of its output: the frames
    /// whose last byte it read, in order.
    pub fn read_output(&mut self, client: ClientId, max_bytes: usize) -> Vec<Frame> {
        crate::output::read(&mut self.srv, client, max_bytes)
    }

    /// `client`'s output buffer (zero for one with nothing queued).
    pub fn output_info(&self, client: ClientId) -> crate::output::OutputInfo {
        crate::output::info(&self.srv, client)
    }

    /// Clients closed so far for overcoming `client-output-buffer-limit`.
    pub fn output_limit_disconnections(&self) -> u64 {
        self.srv.output.disconnections
    }

    /// Clients `client-output-buffer-limit` closed since the last call,
    /// with their output buffer at that moment (its frames were dropped).
    pub fn take_output_closures(&mut self) -> Vec<(ClientId, crate::output::OutputInfo)> {
        std::mem::take(&mut self.srv.output.closed)
    }

    /// Frames that precede the reply `client`'s last command just returned
    /// (client-side caching invalidations of keys evicted before it ran),
    /// to write ahead of it. Those not taken go out with
    /// [`Engine::take_unblocked`] at the next command or `before_sleep`.
    pub fn take_before_reply(&mut self, client: ClientId) -> Vec<Frame> {
        if self.srv.tracking.before_reply.is_empty() {
            return Vec::new();
        }
        let (mine, rest) = std::mem::take(&mut self.srv.tracking.before_reply)
            .into_iter()
            .partition(|(id, _)| *id == client);
        self.srv.tracking.before_reply = rest;
        mine.into_iter().map(|(_, f)| f).collect()
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
        let deadline = self
            .srv
            .blocking
            .next_deadline_ms()
            .map(|t| crate::blocking::deadline_us(t, base));
        // A CLIENT PAUSE's end, once the clock reaches it, releases the
        // clients it held.
        let pause_end = self
            .srv
            .pause
            .filter(|_| !cfg!(feature = "light"))
            .map(|p| (p.end_ms.max(0) as u64 * 1000).saturating_sub(base));
        // A busy script's end is due like a deadline.
        let busy_end = self.srv.scripts.busy_ends_at();
        [deadline, pause_end, busy_end].into_iter().flatten().min()
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
        if self.unsynced.is_some_and(|prev| prev != client) {
            self.sync_entry();
        }
        if !self.srv.tracking.before_reply.is_empty() {
            crate::tracking::flush_before_reply(&mut self.srv);
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
        c.current = CommandBytes::of(args);
        // A pipeline's rest sits in the query buffer behind this command.
        c.current.query += srv.client_list.get(&client).map_or(0, |e| e.pending_input);
        srv.lazyfree_drain();
        srv.blocking.deny = !may_block;
        srv.tracking.current = Some(client);
        // `resetClient` after CLIENT REPLY SKIP: this command's reply is dropped.
        c.modes.reply_skip = std::mem::take(&mut c.modes.reply_skip_next);
        srv.no_touch = c.modes.no_touch;
        let reply = cmd::dispatch(srv, c, args);
        srv.no_touch = false;
        // (UN)SUBSCRIBE's confirmations are pushes (`CLIENT_PUSHING`), which
        // CLIENT REPLY OFF does not silence.
        let pushed = matches!(
            srv.last_cmd.0,
            "subscribe"
                | "unsubscribe"
                | "psubscribe"
                | "punsubscribe"
                | "ssubscribe"
                | "sunsubscribe"
        );
        c.modes.silenced =
            !pushed && (c.modes.reply_off || c.modes.reply_skip || c.modes.reply_skip_next);
        c.modes.reply_skip = false;
        srv.blocking.deny = false;
        // Tracking reads any client's protocol and Pub/Sub state: keep them current.
        if let Some(e) = srv.client_list.get_mut(&client) {
            e.sync_proto(c);
            e.bufs.read(&c.current);
            if !c.modes.silenced {
                let cap = e.bufs.rbs;
                e.bufs.wrote(reply_len_upto(&reply, c.resp, cap));
            }
        }
        // `afterCommand` and `resetClient`: what became due to the client
        // follows its reply; CLIENT CACHING lasts one command (or transaction).
        let keep_caching = c.multi.is_some() || srv.last_cmd.0 == "client";
        crate::tracking::after_command(srv, client, keep_caching);
        srv.tracking.current = None;
        crate::persist::sync_config(srv);
        if srv.repl.capturing() {
            // A read-only command's only writes are lazy expirations, which
            // Redis propagates as DELs of its own.
            let readonly =
                cmd::resolve_command(args).is_some_and(|c| c.flags.contains(cmd::Flags::READONLY));
            crate::repl::propagate(srv, (!readonly).then_some(args));
        }
        c.repl_woff = srv.repl.offset;
        c.aof_woff = srv.persist.aof_appended;
        // Synchronous freeing kept the server busy: the command completes
        // (and the next one starts) that much later.
        srv.settle_stall();
        if let Some(mut req) = srv.blocking.take_request() {
            let paused = req.kind == crate::blocking::BlockKind::Postponed;
            // Counted once, when it completes (served or timed out); a
            // command CLIENT PAUSE held has not run at all.
            if !paused {
                srv.stats.total_commands_processed =
                    srv.stats.total_commands_processed.saturating_sub(1);
            }
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
                paused,
            });
            srv.blocking.block(client, c.db, args, req, since);
            srv.actor = Actor::Server;
            return None;
        }
        srv.emit_with(|| reply_event(&reply));
        self.srv.actor = Actor::Server;
        Some(reply)
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
        if self.srv.scripts.busy.is_some() {
            self.finish_busy_script();
            // While a script is busy Redis only reads and writes clients
            // (`processEventsWhileBlocked`).
            if self.srv.scripts.busy.is_some() {
                self.srv.settle_stall();
                return;
            }
        }
        crate::tracking::flush_before_reply(&mut self.srv);
        // Expirations and evictions since the last command go out as DELs.
        crate::repl::propagate(&mut self.srv, None);
        self.end_pause_if_due();
        self.handle_block_timeouts();
        self.handle_blocked_clients();
        active_expire_cycle(&mut self.srv, CycleKind::Fast);
        // BCAST invalidations collected since the last time, per prefix.
        crate::tracking::broadcast(&mut self.srv);
        if self.srv.evict.proc_running {
            // Redis' eviction timer proc: finish what a command ran out of time for.
            crate::evict::perform_evictions(&mut self.srv);
        }
        self.srv.settle_stall();
        // Clients a delivery on the way put over their output limits.
        self.free_killed();
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
            // A busy script: no cron and no timeouts until it ends (its
            // caller then gets its reply), as Redis serves only clients.
            if self.srv.scripts.busy.is_some() {
                match self.srv.scripts.busy_ends_at() {
                    Some(end) if end <= t_us => {
                        let now = self.srv.clock.now_us();
                        self.srv.clock.set(end.max(now));
                        self.finish_busy_script();
                        continue;
                    }
                    _ => break,
                }
            }
            // A blocked client's deadline between two ticks wakes the loop
            // then, as a driver's timer would (Redis itself only notices at
            // the next event-loop iteration, within 1000/hz ms).
            if let Some(wake) = self.next_block_deadline_us() {
                if wake < self.srv.next_cron_us && wake <= t_us {
                    let now = self.srv.clock.now_us();
                    self.srv.clock.set(wake.max(now));
                    self.end_pause_if_due();
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
            // The once-a-second fsync may be what a WAITAOF waits for.
            if self.srv.config.appendonly {
                self.serve_replica_waits();
            }
            self.free_killed();
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

    /// Brings the CLIENT LIST entry of the client that ran the last command
    /// up to date (done lazily: a client running command after command
    /// does not pay for it each time).
    fn sync_entry(&mut self) {
        if let Some(prev) = self.unsynced.take() {
            if let (Some(p), Some(e)) =
                (self.clients.get(&prev), self.srv.client_list.get_mut(&prev))
            {
                e.sync(p, self.srv.last_cmd);
            }
        }
    }

    /// `serverCron`, minus what later features add.
    fn cron(&mut self) {
        // The idle timeout reads every client's last interaction.
        self.sync_entry();
        let srv = &mut self.srv;
        if srv.debug.pause_cron {
            return;
        }
        srv.lruclock = srv.lru_clock_now();
        srv.cronloops += 1;
        cmd::server::cron_update_memory_stats(srv);
        active_expire_cycle(srv, CycleKind::Slow);
        for db in &mut srv.dbs {
            db.shrink_tables();
        }
        // Even when idle, the tracking table shrinks to a lowered limit.
        if srv.tracking.tracking_clients() > 0 {
            crate::tracking::limit_used_slots(srv);
        }
        crate::repl::propagate(srv, None);
        crate::persist::cron(srv);
        crate::output::cron(srv);
        crate::server::idle::close_idle_clients(srv);
        crate::server::client_bufs::clients_cron(srv);
        cmd::server::cron_memory_sample(srv);
        srv.settle_stall();
    }
}

/// The trace event for a reply: as redis-cli prints it, capped at 300 bytes.
pub(super) fn reply_event(reply: &Frame) -> Event {
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

    #[test]
    fn cron_samples_memory_when_it_changes() {
        let mut e = Engine::with_options(Options::new(7));
        let c = e.connect("c1");
        e.advance_by(1_000_000);
        let samples = |e: &Engine| {
            e.trace()
                .events()
                .filter_map(|ev| match ev.event {
                    Event::Memory { used, keys, .. } => Some((used, keys)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        // Ten ticks, nothing changed after the first: one sample.
        assert_eq!(samples(&e).len(), 1);
        e.execute_line(c, "SET k v");
        e.advance_by(1_000_000);
        let s = samples(&e);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].1, 1);
        assert!(s[1].0 > s[0].0);
        assert_eq!(
            Some(s[1].0),
            Some(e.used_memory()),
            "the sample is used_memory"
        );
        // No trace, no samples (and no cost).
        let mut opts = Options::new(1);
        opts.trace_capacity = 0;
        let mut quiet = Engine::with_options(opts);
        quiet.advance_by(1_000_000);
        assert!(quiet.srv.memory_sample.is_none());
    }
}
