//! Stream commands (t_stream.c): the family's table and what its modules share; IDs, entry commands (XADD XTRIM XRANGE XREVRANGE XLEN XDEL XSETID), XREAD / XREADGROUP, consumer groups (XGROUP XACK XPENDING XCLAIM XAUTOCLAIM) and XINFO each have a module, with Redis 7.2's parsing, error order, keyspace lookups and consumer-group bookkeeping.
//!
//! What is observable is followed closely: the order in which arguments
//! are parsed and keys looked up decides which error wins and how many
//! keyspace hits and misses INFO counts (XREAD looks each key up twice,
//! XACK and XCLAIM look the key up before parsing their IDs). Only XADD,
//! XDEL, XTRIM and XGROUP CREATE MKSTREAM signal the key as modified
//! (WATCH); consumer-group commands change the value without doing so, as
//! in Redis. Times (`*` IDs, delivery times, idle times) come from the
//! virtual clock, fixed for the duration of a command as
//! `commandTimeSnapshot()` is.
//!
//! XREAD and XREADGROUP block through [`crate::blocking`]: the command is
//! run again when XADD (or the creation of the key, or XGROUP DESTROY)
//! signals one of its keys; `$` is rewritten to the ID it stood for when
//! the client blocked, and a blocked XREADGROUP is also woken when its key
//! is deleted or overwritten (7.2), so the re-run answers NOGROUP or
//! WRONGTYPE.

mod entries;
mod groups;
mod id;
mod info;
mod propagate;
mod read;

use crate::cmd::args::preview;
use crate::cmd::table::{commands, container, Command};
use crate::cmd::typed;
use crate::keyspace::types::stream::{Entry, Group, NodeLimits, Stream, StreamId};
use crate::proto::resp::Frame;
use crate::server::keyspace_events as ev;
use crate::server::Server;

pub(in crate::cmd) static COMMANDS: &[Command] = commands! { heavy; group: "stream";
    "xadd" => entries::xadd, arity: -5, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STREAM, FAST], since: "5.0.0",
        syntax: "XADD key [NOMKSTREAM] [<MAXLEN | MINID> [= | ~] threshold [LIMIT count]] <* | id> field value [field value ...]", summary: "Appends an entry to a stream (creating it), optionally trimming it; replies with the entry's ID.";
    "xrange" => entries::xrange, arity: -4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, STREAM, SLOW], since: "5.0.0",
        syntax: "XRANGE key start end [COUNT count]", summary: "Replies with the entries whose IDs are in a range (`-` and `+` for the ends, `(` to exclude).";
    "xrevrange" => entries::xrevrange, arity: -4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, STREAM, SLOW], since: "5.0.0",
        syntax: "XREVRANGE key end start [COUNT count]", summary: "Like XRANGE, from the end of the range down.";
    "xlen" => entries::xlen, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, STREAM, FAST], since: "5.0.0",
        syntax: "XLEN key", summary: "Replies with the number of entries in a stream.";
    "xdel" => entries::xdel, arity: -3, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, STREAM, FAST], since: "5.0.0",
        syntax: "XDEL key id [id ...]", summary: "Deletes entries by ID; replies with how many existed.";
    "xtrim" => entries::xtrim, arity: -4, flags: [WRITE], keys: (1, 1, 1), acl: [WRITE, STREAM, SLOW], since: "5.0.0",
        syntax: "XTRIM key <MAXLEN | MINID> [= | ~] threshold [LIMIT count]", summary: "Removes the oldest entries (whole nodes only with `~`); replies with how many.";
    "xread" => read::xread, arity: -4, flags: [READONLY, BLOCKING, MOVABLEKEYS], acl: [READ, STREAM, SLOW, BLOCKING], since: "5.0.0",
        syntax: "XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]", summary: "Reads entries newer than the given IDs from several streams, waiting for some with BLOCK (`$`: only new ones).";
    "xreadgroup" => read::xread, arity: -7, flags: [WRITE, BLOCKING, MOVABLEKEYS], acl: [WRITE, STREAM, SLOW, BLOCKING], since: "5.0.0",
        syntax: "XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]", summary: "Reads entries for a consumer of a group: new ones with `>` (recorded as pending), or its own pending history.";
    "xack" => groups::xack, arity: -4, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, STREAM, FAST], since: "5.0.0",
        syntax: "XACK key group id [id ...]", summary: "Acknowledges pending entries of a group; replies with how many were pending.";
    "xpending" => groups::xpending, arity: -3, flags: [READONLY], keys: (1, 1, 1), acl: [READ, STREAM, SLOW], since: "5.0.0",
        syntax: "XPENDING key group [[IDLE min-idle-time] start end count [consumer]]", summary: "Summarises a group's pending entries, or lists them with owner, idle time and deliveries.";
    "xclaim" => groups::xclaim, arity: -6, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, STREAM, FAST], since: "5.0.0",
        syntax: "XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]", summary: "Gives pending entries idle long enough to another consumer.";
    "xautoclaim" => groups::xautoclaim, arity: -6, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, STREAM, FAST], since: "6.2.0",
        syntax: "XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]", summary: "Scans a group's pending entries from an ID and claims those idle long enough; replies with a cursor, the claimed and the vanished entries.";
    "xsetid" => entries::xsetid, arity: -3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STREAM, FAST], since: "5.0.0",
        syntax: "XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]", summary: "Sets a stream's last ID and counters (for replication).";
    "xgroup" => container, arity: -2, flags: [], acl: [SLOW], since: "5.0.0",
        syntax: "XGROUP <subcommand>", summary: "Manages consumer groups and their consumers.", subcommands: groups::SUBCOMMANDS;
    "xinfo" => container, arity: -2, flags: [], acl: [SLOW], since: "5.0.0",
        syntax: "XINFO <subcommand>", summary: "Describes a stream, its consumer groups or a group's consumers.", subcommands: info::SUBCOMMANDS;
};

pub(super) fn id_frame(id: StreamId) -> Frame {
    Frame::Bulk(id.to_string().into_bytes())
}

/// An entry as replies carry it: `[id, [field, value, ...]]`.
pub(super) fn entry_frame(e: &Entry) -> Frame {
    let mut fv = Vec::with_capacity(e.fields.len() * 2);
    for (f, v) in &e.fields {
        fv.push(Frame::bulk(f));
        fv.push(Frame::bulk(v));
    }
    Frame::Array(vec![id_frame(e.id), Frame::Array(fv)])
}

/// A name as `%s` prints it in an error: up to the first NUL.
pub(super) fn c_name(b: &[u8]) -> String {
    preview(b, usize::MAX)
}

/// Changes the stream under `key` in place with memory accounted, without
/// signalling the key: Redis signals (WATCH) only XADD, XDEL and XTRIM,
/// which do it themselves, not consumer-group changes.
pub(super) fn update<R>(
    srv: &mut Server,
    db: usize,
    key: &[u8],
    f: impl FnOnce(&mut Stream) -> R,
) -> Option<R> {
    typed::update::<Stream, _>(srv, db, key, |s, _| (f(s), false))
}

/// `signalKeyAsReady(key, OBJ_STREAM)`: clients blocked on the key run again.
pub(super) fn signal_ready(srv: &mut Server, db: usize, key: &[u8]) {
    let Server { dbs, blocking, .. } = srv;
    if let Some(o) = dbs[db].get(key) {
        blocking.signal_ready(db, key, &o.value);
    }
}

pub(super) fn limits(srv: &Server) -> NodeLimits {
    NodeLimits {
        max_bytes: srv.config.stream_node_max_bytes,
        max_entries: srv.config.stream_node_max_entries,
    }
}

/// Creates the consumer if needed and marks it seen now (XREADGROUP,
/// XCLAIM and XAUTOCLAIM do it before anything else); true if it was
/// created, which raises `xgroup-createconsumer` as in Redis.
pub(super) fn seen_consumer(g: &mut Group, cname: &[u8], now: i64) -> bool {
    let created = g.create_consumer(cname, now);
    if let Some(c) = g.consumer_mut(cname) {
        c.seen_time = now;
    }
    created
}

/// `streamCreateConsumer`'s event, for a consumer just created.
pub(super) fn consumer_created(ctx: &mut crate::cmd::table::Ctx, key: &[u8], created: bool) {
    if created {
        ctx.notify(ev::STREAM, "xgroup-createconsumer", key);
    }
}
