//! XINFO's subcommands: STREAM (with FULL), GROUPS, CONSUMERS and HELP, with 7.2's fields (entries-read, lag, active and inactive times).

use super::{c_name, entry_frame, id_frame};
use crate::cmd::args::{arg_i64, opt_is, NOT_INTEGER};
use crate::cmd::replies::{help_reply, subcommand_syntax_error};
use crate::cmd::table::{commands, Command, Ctx};
use crate::cmd::typed::peek;
use crate::keyspace::types::stream::{Consumer, Group, Log, Nack, Stream, StreamId};
use crate::proto::resp::Frame;

/// XINFO's subcommands, in the order Redis lists them.
pub(super) static SUBCOMMANDS: &[Command] = commands! { heavy; group: "stream";
    "consumers" => xinfo, arity: 4, flags: [READONLY], keys: (2, 2, 1), acl: [READ, STREAM, SLOW], since: "5.0.0",
        syntax: "XINFO CONSUMERS key group", summary: "Lists a group's consumers with their pending count, idle and inactive times.";
    "groups" => xinfo, arity: 3, flags: [READONLY], keys: (2, 2, 1), acl: [READ, STREAM, SLOW], since: "5.0.0",
        syntax: "XINFO GROUPS key", summary: "Lists a stream's consumer groups.";
    "help" => xinfo_help, arity: 2, flags: [LOADING, STALE], acl: [STREAM, SLOW], since: "5.0.0",
        syntax: "XINFO HELP", summary: "Lists XINFO's subcommands.";
    "stream" => xinfo, arity: -3, flags: [READONLY], keys: (2, 2, 1), acl: [READ, STREAM, SLOW], since: "5.0.0",
        syntax: "XINFO STREAM key [FULL [COUNT count]]", summary: "Describes a stream: length, tree, IDs, first and last entries; FULL adds entries, groups and consumers.";
};

pub(super) fn xinfo_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(
        args,
        &[
            "CONSUMERS <key> <groupname>",
            "    Show consumers of <groupname>.",
            "GROUPS <key>",
            "    Show the stream consumer groups.",
            "STREAM <key> [FULL [COUNT <count>]",
            "    Show information about the stream.",
        ],
    )
}

fn field(name: &str, v: Frame) -> (Frame, Frame) {
    (Frame::bulk(name), v)
}

/// `streamReplyWithCGLag`: entries not yet delivered to the group, or nil
/// when tombstones make that unknowable.
fn lag_frame(log: &Log, last_id: StreamId, entries_read: i64) -> Frame {
    if log.entries_added() == 0 {
        return Frame::Integer(0);
    }
    if entries_read != -1 && !log.range_has_tombstones(Some(last_id), None) {
        return Frame::Integer((log.entries_added() as i64).wrapping_sub(entries_read));
    }
    match log.estimate_distance(last_id) {
        -1 => Frame::Null,
        read => Frame::Integer((log.entries_added() as i64).wrapping_sub(read)),
    }
}

fn entries_read_frame(n: i64) -> Frame {
    if n == -1 {
        Frame::Null
    } else {
        Frame::Integer(n)
    }
}

/// XINFO CONSUMERS, GROUPS and STREAM (`xinfoCommand`).
pub(super) fn xinfo(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let opt = &args[1];
    let key = &args[2];
    if let Err(reply) = ctx.read_or::<Stream>(key, || Frame::err("ERR no such key")) {
        return reply;
    }
    let db = ctx.db();
    let now = ctx.srv.now_ms();
    let Some(s) = peek::<Stream>(ctx.srv, db, key) else {
        return Frame::err("ERR no such key");
    };
    let log = s.log();
    if opt_is(opt, "CONSUMERS") && args.len() == 4 {
        let Some(g) = s.groups().get(&args[3]) else {
            return Frame::err(format!(
                "NOGROUP No such consumer group '{}' for key name '{}'",
                c_name(&args[3]),
                c_name(key)
            ));
        };
        let list = g
            .consumers()
            .iter()
            .map(|(name, c)| {
                let inactive = if c.active_time != -1 {
                    now.wrapping_sub(c.active_time)
                } else {
                    -1
                };
                Frame::Map(vec![
                    field("name", Frame::bulk(name)),
                    field("pending", Frame::Integer(c.pel().len() as i64)),
                    field("idle", Frame::Integer(now.wrapping_sub(c.seen_time).max(0))),
                    field("inactive", Frame::Integer(inactive)),
                ])
            })
            .collect();
        Frame::Array(list)
    } else if opt_is(opt, "GROUPS") && args.len() == 3 {
        let list = s
            .groups()
            .iter()
            .map(|(name, g)| {
                Frame::Map(vec![
                    field("name", Frame::bulk(name)),
                    field("consumers", Frame::Integer(g.consumers().len() as i64)),
                    field("pending", Frame::Integer(g.pel().len() as i64)),
                    field("last-delivered-id", id_frame(g.last_id)),
                    field("entries-read", entries_read_frame(g.entries_read)),
                    field("lag", lag_frame(log, g.last_id, g.entries_read)),
                ])
            })
            .collect();
        Frame::Array(list)
    } else if opt_is(opt, "STREAM") {
        xinfo_stream(s, args)
    } else {
        subcommand_syntax_error(args)
    }
}

/// XINFO STREAM [FULL [COUNT n]].
fn xinfo_stream(s: &Stream, args: &[Vec<u8>]) -> Frame {
    let optv = &args[3..];
    let mut count: i64 = 10;
    let full = !optv.is_empty();
    if full {
        if optv.len() != 1 && optv.len() != 3 {
            return subcommand_syntax_error(args);
        }
        if !opt_is(&optv[0], "full") {
            return subcommand_syntax_error(args);
        }
        if optv.len() == 3 {
            if !opt_is(&optv[1], "count") {
                return subcommand_syntax_error(args);
            }
            count = match arg_i64(&optv[2]) {
                Ok(n) if n < 0 => 10,
                Ok(n) => n,
                Err(_) => return Frame::err(NOT_INTEGER),
            };
        }
    }
    let log = s.log();
    let mut m = vec![
        field("length", Frame::Integer(log.len() as i64)),
        field("radix-tree-keys", Frame::Integer(log.rax_keys() as i64)),
        field("radix-tree-nodes", Frame::Integer(log.rax_nodes() as i64)),
        field("last-generated-id", id_frame(log.last_id())),
        field("max-deleted-entry-id", id_frame(log.max_deleted_entry_id())),
        field("entries-added", Frame::Integer(log.entries_added() as i64)),
        field("recorded-first-entry-id", id_frame(log.first_id())),
    ];
    if !full {
        m.push(field("groups", Frame::Integer(s.groups().len() as i64)));
        let first = log.range(StreamId::MIN, StreamId::MAX).next();
        let last = log.range_rev(StreamId::MIN, StreamId::MAX).next();
        m.push(field("first-entry", first.map_or(Frame::Null, entry_frame)));
        m.push(field("last-entry", last.map_or(Frame::Null, entry_frame)));
        return Frame::Map(m);
    }
    let limit = if count == 0 {
        usize::MAX
    } else {
        count as usize
    };
    m.push(field(
        "entries",
        Frame::Array(
            log.range(StreamId::MIN, StreamId::MAX)
                .take(limit)
                .map(entry_frame)
                .collect(),
        ),
    ));
    let groups = s
        .groups()
        .iter()
        .map(|(name, g)| {
            let pending = g.pel().iter().take(limit);
            let pending = pending.map(|(id, n)| nack_frame(*id, n, true)).collect();
            let consumers = g
                .consumers()
                .iter()
                .map(|(cname, c)| consumer_full(g, cname, c, limit))
                .collect();
            Frame::Map(vec![
                field("name", Frame::bulk(name)),
                field("last-delivered-id", id_frame(g.last_id)),
                field("entries-read", entries_read_frame(g.entries_read)),
                field("lag", lag_frame(log, g.last_id, g.entries_read)),
                field("pel-count", Frame::Integer(g.pel().len() as i64)),
                field("pending", Frame::Array(pending)),
                field("consumers", Frame::Array(consumers)),
            ])
        })
        .collect();
    m.push(field("groups", Frame::Array(groups)));
    Frame::Map(m)
}

/// A pending entry in XINFO STREAM FULL: its ID, its consumer (in the
/// group's list only), its delivery time and count.
fn nack_frame(id: StreamId, n: &Nack, with_consumer: bool) -> Frame {
    let mut item = vec![id_frame(id)];
    if with_consumer {
        item.push(Frame::bulk(&n.consumer));
    }
    item.push(Frame::Integer(n.delivery_time));
    item.push(Frame::Integer(n.delivery_count as i64));
    Frame::Array(item)
}

/// A consumer in XINFO STREAM FULL, with up to `limit` of its pending entries.
fn consumer_full(g: &Group, cname: &[u8], c: &Consumer, limit: usize) -> Frame {
    let pending = c
        .pel()
        .iter()
        .take(limit)
        .filter_map(|id| g.pel().get(id).map(|n| nack_frame(*id, n, false)))
        .collect();
    Frame::Map(vec![
        field("name", Frame::bulk(cname)),
        field("seen-time", Frame::Integer(c.seen_time)),
        field("active-time", Frame::Integer(c.active_time)),
        field("pel-count", Frame::Integer(c.pel().len() as i64)),
        field("pending", Frame::Array(pending)),
    ])
}
