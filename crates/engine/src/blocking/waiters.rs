//! Who is blocked on what (blocked.c's state): waiting clients with their keys, kinds and deadlines, the keys made ready, and the replies waiting for the driver.

use crate::keyspace::object::Value;
use crate::ordmap::{OrdMap, OrdSet};
use crate::proto::resp::Frame;
use crate::server::client::ClientId;
use crate::server::trace::lossy;
use std::collections::VecDeque;

/// What a client waits for (`BLOCKED_LIST`, `BLOCKED_ZSET`, `BLOCKED_STREAM`):
/// only a key of the matching type serves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    List,
    ZSet,
    Stream,
    /// WAIT (`BLOCKED_WAIT`): no key serves it; replicas' acknowledgements do.
    Replicas,
    /// The caller of a script past `busy-reply-threshold`: not blocked in
    /// Redis' sense (CLIENT UNBLOCK, INFO and CLIENT LIST do not see it),
    /// it waits for the script to end.
    Script,
    /// A command held by CLIENT PAUSE (`BLOCKED_POSTPONE`): it runs, from
    /// the start, once the pause ends.
    Postponed,
}

impl BlockKind {
    /// `getBlockedTypeByType`: the waiters a value of this type can serve.
    pub fn of(value: &Value) -> Option<BlockKind> {
        match value {
            Value::List(_) => Some(BlockKind::List),
            Value::ZSet(_) => Some(BlockKind::ZSet),
            Value::Stream(_) => Some(BlockKind::Stream),
            _ => None,
        }
    }
}

/// What a command asks for when it blocks.
#[derive(Clone, Debug)]
pub struct Request {
    pub kind: BlockKind,
    pub keys: Vec<Vec<u8>>,
    /// Absolute Unix ms; 0 waits forever.
    pub timeout_ms: i64,
    /// The command to run again when served, if not the one as sent
    /// (XREAD's `$` rewritten to the ID it stood for).
    pub args: Option<Vec<Vec<u8>>>,
    /// Also served when a key is deleted or overwritten (`unblock_on_nokey`:
    /// XREADGROUP, whose group goes with the key).
    pub nokey: bool,
}

/// A waiting client as the UI shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BlockedInfo {
    pub client: ClientId,
    pub db: u32,
    pub kind: BlockKind,
    pub keys: Vec<String>,
    /// The command waiting to run, e.g. `BLPOP q 5`.
    pub command: Vec<String>,
    /// Virtual µs when it first blocked.
    pub since_us: u64,
    /// Virtual µs at which it times out, if it has a timeout.
    pub deadline_us: Option<u64>,
}

/// One waiting client.
#[derive(Clone, Debug)]
pub(crate) struct Waiter {
    pub db: usize,
    pub kind: BlockKind,
    /// Distinct keys, in the order given.
    pub keys: Vec<Vec<u8>>,
    /// The command to run again once served.
    pub args: Vec<Vec<u8>>,
    pub since_us: u64,
    pub timeout_ms: i64,
    /// Commands that arrived while it waited, run once it is unblocked.
    pub queued: VecDeque<Vec<Vec<u8>>>,
    /// Served when a key it waits on is deleted (see [`Request::nokey`]).
    pub nokey: bool,
    /// Order of blocking, for clients that blocked at the same instant.
    pub seq: u64,
}

/// Kept across a served command's re-run: a command that blocks again
/// keeps its original deadline (7.2.6's `CLIENT_REPROCESSING_COMMAND`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reprocessing {
    pub timeout_ms: i64,
    pub since_us: u64,
}

/// Every blocked client and ready key (`server.blocked_clients`,
/// `db->blocking_keys`, `server.ready_keys`, the timeout table).
#[derive(Debug, Default)]
pub struct Blocking {
    waiters: crate::idmap::IdMap<Waiter>,
    /// (db, key) to the clients waiting on it, in the order they blocked.
    by_key: OrdMap<(usize, Vec<u8>), VecDeque<ClientId>>,
    ready: VecDeque<(usize, Vec<u8>)>,
    ready_set: OrdSet<(usize, Vec<u8>)>,
    /// (deadline Unix ms, client), soonest first.
    timeouts: OrdSet<(i64, ClientId)>,
    /// Set by a command that blocks; the engine takes it after the call.
    request: Option<Request>,
    /// Nesting of `call`: only a top-level command may block (EXEC's
    /// commands run nested, as Redis' `CLIENT_DENY_BLOCKING` arranges).
    pub(crate) depth: u32,
    /// The top-level command may not block (`Engine::execute`).
    pub(crate) deny: bool,
    pub(crate) reprocessing: Option<Reprocessing>,
    /// Replies of clients unblocked since the engine's driver last asked.
    outbox: Vec<(ClientId, Frame)>,
    /// Clients blocked so far (each waiter's [`Waiter::seq`]).
    blocked_count: u64,
}

impl Blocking {
    /// `scanDatabaseForDeletedKeys(db, NULL)`: before database `db` is
    /// emptied, every key a client waits on that exists is signalled deleted.
    pub fn signal_emptied(&mut self, db: usize, d: &crate::keyspace::db::Db) {
        if self.waiters.is_empty() {
            return;
        }
        for k in crate::keyspace::db::keys_in_db(&self.by_key, db) {
            if let Some(o) = d.get(&k) {
                self.signal_deleted(db, &k, &o.value);
            }
        }
    }

    /// `scanDatabaseForDeletedKeys(emptied, replaced_with)` for SWAPDB:
    /// a waited-on key of database `db` that exists in `emptied` is
    /// signalled deleted unless `replaced_with` holds one of the same type.
    pub fn signal_swapped(
        &mut self,
        db: usize,
        emptied: &crate::keyspace::db::Db,
        replaced_with: &crate::keyspace::db::Db,
    ) {
        if self.waiters.is_empty() {
            return;
        }
        for k in crate::keyspace::db::keys_in_db(&self.by_key, db) {
            let Some(old) = emptied.get(&k) else {
                continue;
            };
            let same_type = replaced_with
                .get(&k)
                .is_some_and(|new| new.value.type_name() == old.value.type_name());
            if !same_type {
                self.signal_deleted(db, &k, &old.value);
            }
        }
    }

    /// `scanDatabaseForReadyKeys`: every waited-on key of database `db`
    /// that exists in `d` is signalled ready (SWAPDB brought it in).
    pub fn signal_present(&mut self, db: usize, d: &crate::keyspace::db::Db) {
        if self.waiters.is_empty() {
            return;
        }
        for k in crate::keyspace::db::keys_in_db(&self.by_key, db) {
            if let Some(o) = d.get(&k) {
                self.signal_ready(db, &k, &o.value);
            }
        }
    }

    /// `signalKeyAsReady`: `key` was created holding `value`; if a client
    /// waits on it and the type can serve anyone, queue it for serving.
    pub fn signal_ready(&mut self, db: usize, key: &[u8], value: &Value) {
        if BlockKind::of(value).is_none() || self.waiters.is_empty() {
            return;
        }
        let k = (db, key.to_vec());
        if !self.by_key.contains_key(&k) || self.ready_set.contains(&k) {
            return;
        }
        self.ready_set.insert(k.clone());
        self.ready.push_back(k);
    }

    /// `signalDeletedKeyAsReady`: `key`, which held `old`, was deleted or
    /// overwritten. Queued for serving only if a client waiting on it is to
    /// be woken by that (XREADGROUP) and, as Redis checks, some client
    /// waits for the old value's type.
    pub fn signal_deleted(&mut self, db: usize, key: &[u8], old: &Value) {
        if self.waiters.is_empty() {
            return;
        }
        let Some(kind) = BlockKind::of(old) else {
            return;
        };
        if !self.waiters.values().any(|w| w.kind == kind) {
            return;
        }
        let k = (db, key.to_vec());
        let nokey = self.by_key.get(&k).is_some_and(|q| {
            q.iter()
                .any(|c| self.waiters.get(c).is_some_and(|w| w.nokey))
        });
        if !nokey || self.ready_set.contains(&k) {
            return;
        }
        self.ready_set.insert(k.clone());
        self.ready.push_back(k);
    }

    /// True if `client` is woken by the deletion of a key it waits on.
    pub fn unblocks_on_nokey(&self, client: ClientId) -> bool {
        self.waiters.get(&client).is_some_and(|w| w.nokey)
    }

    /// Clients CLIENT PAUSE holds, in the order it held them.
    pub(crate) fn postponed(&self) -> Vec<ClientId> {
        let mut v: Vec<(u64, ClientId)> = self
            .waiters
            .iter()
            .filter(|(_, w)| w.kind == BlockKind::Postponed)
            .map(|(id, w)| (w.seq, *id))
            .collect();
        crate::sort::sort_by_key(&mut v, |&(seq, _)| seq);
        v.into_iter().map(|(_, id)| id).collect()
    }

    /// Clients blocked in WAIT, oldest first, with the command they sent.
    pub(crate) fn waiting_for_replicas(&self) -> Vec<(ClientId, Vec<Vec<u8>>)> {
        let mut v: Vec<(u64, ClientId, Vec<Vec<u8>>)> = self
            .waiters
            .iter()
            .filter(|(_, w)| w.kind == BlockKind::Replicas)
            .map(|(id, w)| (w.since_us, *id, w.args.clone()))
            .collect();
        crate::sort::sort_by_key(&mut v, |(since, id, _)| (*since, *id));
        v.into_iter().map(|(_, id, a)| (id, a)).collect()
    }

    /// True when some key was made ready since the last [`Self::pop_ready`]
    /// drained them (checked after every command; usually false).
    #[inline]
    pub(crate) fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// The next ready key, if any.
    pub(crate) fn pop_ready(&mut self) -> Option<(usize, Vec<u8>)> {
        let k = self.ready.pop_front()?;
        self.ready_set.remove(&k);
        Some(k)
    }

    /// Clients waiting on `key`, oldest first.
    pub(crate) fn waiting_on(&self, db: usize, key: &[u8]) -> Vec<ClientId> {
        self.by_key
            .get(&(db, key.to_vec()))
            .map(|q| q.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Records a block request from the running command.
    /// Whether the command running asked to block.
    pub(crate) fn has_request(&self) -> bool {
        self.request.is_some()
    }

    pub(crate) fn set_request(&mut self, req: Request) {
        self.request = Some(req);
    }

    /// The block request the last command made, if it blocked.
    pub(crate) fn take_request(&mut self) -> Option<Request> {
        self.request.take()
    }

    /// `blockForKeys`: parks `client` until a key is served or time runs out.
    pub(crate) fn block(
        &mut self,
        client: ClientId,
        db: usize,
        args: &[Vec<u8>],
        req: Request,
        since_us: u64,
    ) {
        let mut keys: Vec<Vec<u8>> = Vec::with_capacity(req.keys.len());
        for k in req.keys {
            if !keys.contains(&k) {
                self.by_key
                    .entry((db, k.clone()))
                    .or_default()
                    .push_back(client);
                keys.push(k);
            }
        }
        if req.timeout_ms != 0 {
            self.timeouts.insert((req.timeout_ms, client));
        }
        self.blocked_count += 1;
        self.waiters.insert(
            client,
            Waiter {
                db,
                kind: req.kind,
                keys,
                args: req.args.unwrap_or_else(|| args.to_vec()),
                since_us,
                timeout_ms: req.timeout_ms,
                queued: VecDeque::new(),
                nokey: req.nokey,
                seq: self.blocked_count,
            },
        );
    }

    /// `unblockClient`: forgets everything `client` waits on.
    pub(crate) fn unblock(&mut self, client: ClientId) -> Option<Waiter> {
        let w = self.waiters.remove(&client)?;
        for k in &w.keys {
            let slot = (w.db, k.clone());
            if let Some(q) = self.by_key.get_mut(&slot) {
                q.retain(|&c| c != client);
                if q.is_empty() {
                    self.by_key.remove(&slot);
                }
            }
        }
        self.timeouts.remove(&(w.timeout_ms, client));
        Some(w)
    }

    /// Queues a command `client` sent while blocked.
    pub(crate) fn queue(&mut self, client: ClientId, args: Vec<Vec<u8>>) {
        if let Some(w) = self.waiters.get_mut(&client) {
            w.queued.push_back(args);
        }
    }

    /// Puts back commands still to run behind a command that blocked again.
    pub(crate) fn requeue(&mut self, client: ClientId, rest: VecDeque<Vec<Vec<u8>>>) {
        if let Some(w) = self.waiters.get_mut(&client) {
            w.queued.extend(rest);
        }
    }

    /// The wait of `client`: the command it waits in and what it sent
    /// meanwhile (CLIENT LIST's `argv-mem` and `qbuf`).
    pub(crate) fn waiter(&self, client: ClientId) -> Option<&Waiter> {
        self.waiters.get(&client)
    }

    /// True while `client` waits.
    pub fn is_blocked(&self, client: ClientId) -> bool {
        self.waiters.contains_key(&client)
    }

    /// True while `client` waits in a blocking command (Redis'
    /// `CLIENT_BLOCKED`), not for a busy script's reply.
    pub fn in_blocking_command(&self, client: ClientId) -> bool {
        self.waiters
            .get(&client)
            .is_some_and(|w| w.kind != BlockKind::Script)
    }

    /// What `client` waits for.
    pub fn kind_of(&self, client: ClientId) -> Option<BlockKind> {
        self.waiters.get(&client).map(|w| w.kind)
    }

    /// The soonest deadline (Unix ms), if any client has one.
    pub fn next_deadline_ms(&self) -> Option<i64> {
        self.timeouts.first().map(|&(t, _)| t)
    }

    /// Clients whose deadline is strictly before `now_ms`, soonest first.
    pub(crate) fn timed_out(&self, now_ms: i64) -> Vec<ClientId> {
        self.timeouts
            .iter()
            .take_while(|&&(t, _)| t < now_ms)
            .map(|&(_, c)| c)
            .collect()
    }

    /// Number of blocked clients (INFO's `blocked_clients`).
    pub fn blocked_clients(&self) -> usize {
        self.waiters
            .values()
            .filter(|w| w.kind != BlockKind::Script)
            .count()
    }

    /// Number of keys some client waits on (`total_blocking_keys`).
    pub fn blocking_keys(&self) -> usize {
        self.by_key.len()
    }

    /// Keys some client waits on that also wake it when deleted
    /// (`total_blocking_keys_on_nokey`: keys with a blocked XREADGROUP).
    pub fn blocking_keys_on_nokey(&self) -> usize {
        self.by_key
            .values()
            .filter(|q| {
                q.iter()
                    .any(|c| self.waiters.get(c).is_some_and(|w| w.nokey))
            })
            .count()
    }

    /// Blocked clients with a deadline (`clients_in_timeout_table`).
    pub fn clients_in_timeout_table(&self) -> usize {
        self.timeouts.len()
    }

    /// Hands a reply to the driver of an unblocked client.
    pub(crate) fn deliver(&mut self, client: ClientId, reply: Frame) {
        self.outbox.push((client, reply));
    }

    /// Drops what waits for `client` (closed for its output buffer: its
    /// queued output is lost with the connection).
    pub(crate) fn drop_outbox_of(&mut self, client: ClientId) {
        self.outbox.retain(|(id, _)| *id != client);
    }

    /// Replies for unblocked clients since the last call, in order.
    pub(crate) fn take_outbox(&mut self) -> Vec<(ClientId, Frame)> {
        std::mem::take(&mut self.outbox)
    }

    /// Every waiting client, in client id order; deadlines converted to
    /// virtual µs with the clock's Unix base.
    pub fn info(&self, unix_base_us: u64) -> Vec<BlockedInfo> {
        self.waiters
            .iter()
            .map(|(&client, w)| BlockedInfo {
                client,
                db: w.db as u32,
                kind: w.kind,
                keys: w.keys.iter().map(|k| lossy(k)).collect(),
                command: w.args.iter().map(|a| lossy(a)).collect(),
                since_us: w.since_us,
                deadline_us: (w.timeout_ms != 0).then(|| deadline_us(w.timeout_ms, unix_base_us)),
            })
            .collect()
    }
}

/// The first virtual µs at which a deadline of `timeout_ms` (Unix ms) has
/// passed: when `mstime()` first exceeds it.
pub fn deadline_us(timeout_ms: i64, unix_base_us: u64) -> u64 {
    (timeout_ms.max(0) as u64)
        .saturating_add(1)
        .saturating_mul(1000)
        .saturating_sub(unix_base_us)
}
