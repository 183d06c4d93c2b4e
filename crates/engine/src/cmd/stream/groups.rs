//! Consumer groups: XGROUP's subcommands, XACK, XPENDING, XCLAIM and XAUTOCLAIM; group changes are not signalled (WATCH), as in Redis.

use super::id::{interval_id, parse_id, range_ends, strict_id};
use super::propagate::{self, Prop};
use super::{c_name, consumer_created, entry_frame, id_frame, seen_consumer, signal_ready, update};
use crate::cmd::args::{arg_i64, cstr, opt_is, SYNTAX};
use crate::cmd::replies::{help_reply, subcommand_syntax_error};
use crate::cmd::table::{commands, Command, Ctx};
use crate::cmd::typed::peek;
use crate::keyspace::object::Value;
use crate::keyspace::types::stream::{Entry, Group, Nack, Stream, StreamId};
use crate::ordmap::OrdMap;
use crate::proto::resp::{parse_i64, Frame};
use crate::server::keyspace_events as ev;

/// XGROUP's subcommands, in the order Redis lists them.
pub(super) static SUBCOMMANDS: &[Command] = commands! { heavy; group: "stream";
    "create" => xgroup, arity: -5, flags: [WRITE, DENYOOM], keys: (2, 2, 1), acl: [WRITE, STREAM, SLOW], since: "5.0.0",
        syntax: "XGROUP CREATE key group <id | $> [MKSTREAM] [ENTRIESREAD entries-read]", summary: "Creates a consumer group reading after an ID (`$`: the last one).";
    "createconsumer" => xgroup, arity: 5, flags: [WRITE, DENYOOM], keys: (2, 2, 1), acl: [WRITE, STREAM, SLOW], since: "6.2.0",
        syntax: "XGROUP CREATECONSUMER key group consumer", summary: "Creates a consumer in a group; replies 1 if it is new.";
    "delconsumer" => xgroup, arity: 5, flags: [WRITE], keys: (2, 2, 1), acl: [WRITE, STREAM, SLOW], since: "5.0.0",
        syntax: "XGROUP DELCONSUMER key group consumer", summary: "Deletes a consumer and its pending entries; replies with how many it had.";
    "destroy" => xgroup, arity: 4, flags: [WRITE], keys: (2, 2, 1), acl: [WRITE, STREAM, SLOW], since: "5.0.0",
        syntax: "XGROUP DESTROY key group", summary: "Deletes a consumer group.";
    "help" => xgroup, arity: 2, flags: [LOADING, STALE], acl: [STREAM, SLOW], since: "5.0.0",
        syntax: "XGROUP HELP", summary: "Lists XGROUP's subcommands.";
    "setid" => xgroup, arity: -5, flags: [WRITE], keys: (2, 2, 1), acl: [WRITE, STREAM, SLOW], since: "5.0.0",
        syntax: "XGROUP SETID key group <id | $> [ENTRIESREAD entries-read]", summary: "Moves a group's last delivered ID.";
};

const XGROUP_HELP: &[&str] = &[
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
];

/// Every XGROUP subcommand (`xgroupCommand`): options and the key first,
/// then the key and group checks, then the subcommand.
pub(super) fn xgroup(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let argc = args.len();
    let opt = &args[1];
    let mut mkstream = false;
    let mut entries_read: i64 = -1;
    let mut exists = false;
    let db = ctx.db();
    if argc >= 4 {
        let create = opt_is(opt, "CREATE");
        let setid = opt_is(opt, "SETID");
        let mut i = 5;
        while i < argc {
            if create && opt_is(&args[i], "MKSTREAM") {
                mkstream = true;
                i += 1;
            } else if (create || setid) && opt_is(&args[i], "ENTRIESREAD") && i + 1 < argc {
                entries_read = match arg_i64(&args[i + 1]) {
                    Ok(n) => n,
                    Err(e) => return e,
                };
                if entries_read < 0 && entries_read != -1 {
                    return Frame::err("ERR value for ENTRIESREAD must be positive or -1");
                }
                i += 2;
            } else {
                return subcommand_syntax_error(args);
            }
        }
        exists = match ctx.write_exists::<Stream>(&args[2]) {
            Ok(e) => e,
            Err(e) => return e,
        };
    }
    let gname = args.get(3).map(|g| g.as_slice()).unwrap_or_default();
    if argc >= 4 && !mkstream {
        if !exists {
            return Frame::err(
                "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.",
            );
        }
        let has_group =
            peek::<Stream>(ctx.srv, db, &args[2]).is_some_and(|s| s.groups().get(gname).is_some());
        if !has_group
            && (opt_is(opt, "SETID") || opt_is(opt, "CREATECONSUMER") || opt_is(opt, "DELCONSUMER"))
        {
            return Frame::err(format!(
                "NOGROUP No such consumer group '{}' for key name '{}'",
                c_name(gname),
                c_name(&args[2])
            ));
        }
    }
    let now = ctx.srv.now_ms();
    if argc == 2 && opt_is(opt, "HELP") {
        help_reply(args, XGROUP_HELP)
    } else if opt_is(opt, "CREATE") && (5..=8).contains(&argc) {
        let id = if cstr(&args[4]) == b"$" {
            peek::<Stream>(ctx.srv, db, &args[2]).map_or(StreamId::MIN, |s| s.log().last_id())
        } else {
            match strict_id(&args[4]) {
                Ok(id) => id,
                Err(e) => return e,
            }
        };
        if !exists {
            ctx.srv
                .set_key(db, &args[2], Value::Stream(Box::new(Stream::new())), false);
        }
        let created = update(ctx.srv, db, &args[2], |s| {
            s.groups_mut().create(gname, id, entries_read)
        });
        if created == Some(true) {
            ctx.notify(ev::STREAM, "xgroup-create", &args[2]);
            // `server.dirty++` (MKSTREAM's new key counted it already).
            changed(ctx, exists as u64);
            Frame::ok()
        } else {
            Frame::err("BUSYGROUP Consumer Group name already exists")
        }
    } else if opt_is(opt, "SETID") && (argc == 5 || argc == 7) {
        let id = if cstr(&args[4]) == b"$" {
            peek::<Stream>(ctx.srv, db, &args[2]).map_or(StreamId::MIN, |s| s.log().last_id())
        } else {
            match parse_id(&args[4], 0, false, false) {
                Ok((id, _)) => id,
                Err(e) => return e,
            }
        };
        update(ctx.srv, db, &args[2], |s| {
            s.groups_mut().with_mut(gname, |g| {
                g.last_id = id;
                g.entries_read = entries_read;
            })
        });
        ctx.notify(ev::STREAM, "xgroup-setid", &args[2]);
        changed(ctx, 1);
        Frame::ok()
    } else if opt_is(opt, "DESTROY") && argc == 4 {
        let destroyed =
            update(ctx.srv, db, &args[2], |s| s.groups_mut().destroy(gname)) == Some(true);
        if destroyed {
            ctx.notify(ev::STREAM, "xgroup-destroy", &args[2]);
            changed(ctx, 1);
            // Blocked XREADGROUP clients run again and meet NOGROUP.
            signal_ready(ctx.srv, db, &args[2]);
        }
        Frame::Integer(destroyed as i64)
    } else if opt_is(opt, "CREATECONSUMER") && argc == 5 {
        let created = update(ctx.srv, db, &args[2], |s| {
            s.groups_mut()
                .with_mut(gname, |g| g.create_consumer(&args[4], now))
        })
        .flatten()
            == Some(true);
        consumer_created(ctx, &args[2], created);
        changed(ctx, created as u64);
        Frame::Integer(created as i64)
    } else if opt_is(opt, "DELCONSUMER") && argc == 5 {
        let deleted = update(ctx.srv, db, &args[2], |s| {
            s.groups_mut()
                .with_mut(gname, |g| g.delete_consumer(&args[4]))
        })
        .flatten()
        .flatten();
        if deleted.is_some() {
            ctx.notify(ev::STREAM, "xgroup-delconsumer", &args[2]);
            changed(ctx, 1);
        }
        Frame::Integer(deleted.unwrap_or(0) as i64)
    } else {
        subcommand_syntax_error(args)
    }
}

/// XACK: the key and group are looked up before the IDs are parsed, so a
/// missing key or group answers 0 even to malformed IDs.
pub(super) fn xack(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(reply) = group_or(ctx, &args[1], &args[2], || Frame::Integer(0)) {
        return reply;
    }
    let db = ctx.db();
    let mut ids = Vec::with_capacity(args.len() - 3);
    for a in &args[3..] {
        match strict_id(a) {
            Ok(id) => ids.push(id),
            Err(e) => return e,
        }
    }
    let acked = update(ctx.srv, db, &args[1], |s| {
        s.groups_mut()
            .with_mut(&args[2], |g| ids.iter().filter(|&&id| g.ack(id)).count())
    })
    .flatten()
    .unwrap_or(0);
    changed(ctx, acked as u64);
    Frame::Integer(acked as i64)
}

/// `server.dirty += n` for a change to a group, which signals no key:
/// counted toward a save, and what makes the command propagate.
pub(super) fn changed(ctx: &mut Ctx, n: u64) {
    crate::persist::adjust_changes(ctx.srv, n as i64);
}

/// `lookupKeyRead` + `checkType` of the stream at `key`, then its group
/// `group`: `Err` is the reply to give instead, WRONGTYPE or `missing()`
/// when there is no such stream or group.
fn group_or(
    ctx: &mut Ctx,
    key: &[u8],
    group: &[u8],
    missing: impl FnOnce() -> Frame,
) -> Result<(), Frame> {
    match ctx.read::<Stream>(key)? {
        Some(s) if s.groups().get(group).is_some() => Ok(()),
        _ => Err(missing()),
    }
}

fn nogroup(key: &[u8], group: &[u8]) -> Frame {
    Frame::err(format!(
        "NOGROUP No such key '{}' or consumer group '{}'",
        c_name(key),
        c_name(group)
    ))
}

pub(super) fn xpending(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let argc = args.len();
    let justinfo = argc == 3;
    if argc != 3 && !(6..=9).contains(&argc) {
        return Frame::err(SYNTAX);
    }
    let mut minidle: i64 = 0;
    let mut count: i64 = 0;
    let mut start = StreamId::MIN;
    let mut end = StreamId::MAX;
    let mut consumer: Option<&[u8]> = None;
    if argc >= 6 {
        let mut startidx = 3;
        if opt_is(&args[3], "IDLE") {
            minidle = match arg_i64(&args[4]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            if argc < 8 {
                return Frame::err(SYNTAX);
            }
            startidx += 2;
        }
        count = match arg_i64(&args[startidx + 2]) {
            Ok(n) => n.max(0),
            Err(e) => return e,
        };
        (start, end) = match range_ends(&args[startidx], &args[startidx + 1]) {
            Ok(r) => r,
            Err(e) => return e,
        };
        if startidx + 3 < argc {
            consumer = Some(&args[startidx + 3]);
        }
    }
    let exists = match ctx.read_exists::<Stream>(&args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    let now = ctx.srv.now_ms();
    let Some(g) = exists
        .then(|| peek::<Stream>(ctx.srv, db, &args[1]))
        .flatten()
        .and_then(|s| s.groups().get(&args[2]))
    else {
        return nogroup(&args[1], &args[2]);
    };
    if justinfo {
        let pel = g.pel();
        let (Some((first, _)), Some((last, _))) = (pel.first_key_value(), pel.last_key_value())
        else {
            return Frame::Array(vec![
                Frame::Integer(0),
                Frame::Null,
                Frame::Null,
                Frame::NullArray,
            ]);
        };
        let owners: Vec<Frame> = g
            .consumers()
            .iter()
            .filter(|(_, c)| !c.pel().is_empty())
            .map(|(name, c)| {
                Frame::Array(vec![
                    Frame::bulk(name),
                    Frame::Bulk(c.pel().len().to_string().into_bytes()),
                ])
            })
            .collect();
        return Frame::Array(vec![
            Frame::Integer(pel.len() as i64),
            id_frame(*first),
            id_frame(*last),
            Frame::Array(owners),
        ]);
    }
    let ids: Vec<StreamId> = match consumer {
        Some(name) => match g.consumer(name) {
            None => return Frame::Array(vec![]),
            Some(c) => c.pel().range(start..).copied().collect(),
        },
        None => g.pel().range(start..).map(|(id, _)| *id).collect(),
    };
    let mut out = Vec::new();
    for id in ids {
        if count == 0 || id > end {
            break;
        }
        let Some(nack) = g.pel().get(&id) else {
            continue;
        };
        if minidle != 0 && now.wrapping_sub(nack.delivery_time) < minidle {
            continue;
        }
        count -= 1;
        out.push(Frame::Array(vec![
            id_frame(id),
            Frame::bulk(&nack.consumer),
            Frame::Integer(now.wrapping_sub(nack.delivery_time).max(0)),
            Frame::Integer(nack.delivery_count as i64),
        ]));
    }
    Frame::Array(out)
}

pub(super) fn xclaim(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(reply) = group_or(ctx, &args[1], &args[2], || nogroup(&args[1], &args[2])) {
        return reply;
    }
    let db = ctx.db();
    let Some(minidle) = parse_i64(&args[4]) else {
        return Frame::err("ERR Invalid min-idle-time argument for XCLAIM");
    };
    let minidle = minidle.max(0);
    let mut ids = Vec::new();
    let mut j = 5;
    while j < args.len() {
        match parse_id(&args[j], 0, true, false) {
            Ok((id, _)) => ids.push(id),
            Err(_) => break,
        }
        j += 1;
    }
    let now = ctx.srv.now_ms();
    let mut force = false;
    let mut justid = false;
    let mut deliverytime: i64 = -1;
    let mut retrycount: i64 = -1;
    let mut last_id = StreamId::MIN;
    while j < args.len() {
        let moreargs = args.len() - 1 - j;
        let opt = &args[j];
        if opt_is(opt, "FORCE") {
            force = true;
        } else if opt_is(opt, "JUSTID") {
            justid = true;
        } else if opt_is(opt, "IDLE") && moreargs > 0 {
            j += 1;
            let Some(idle) = parse_i64(&args[j]) else {
                return Frame::err("ERR Invalid IDLE option argument for XCLAIM");
            };
            deliverytime = now.wrapping_sub(idle);
        } else if opt_is(opt, "TIME") && moreargs > 0 {
            j += 1;
            let Some(t) = parse_i64(&args[j]) else {
                return Frame::err("ERR Invalid TIME option argument for XCLAIM");
            };
            deliverytime = t;
        } else if opt_is(opt, "RETRYCOUNT") && moreargs > 0 {
            j += 1;
            let Some(n) = parse_i64(&args[j]) else {
                return Frame::err("ERR Invalid RETRYCOUNT option argument for XCLAIM");
            };
            retrycount = n;
        } else if opt_is(opt, "LASTID") && moreargs > 0 {
            j += 1;
            last_id = match strict_id(&args[j]) {
                Ok(id) => id,
                Err(e) => return e,
            };
        } else {
            return Frame::err(format!("ERR Unrecognized XCLAIM option '{}'", c_name(opt)));
        }
        j += 1;
    }
    // Unset (-1) or out of range: the delivery is now.
    if deliverytime < 0 || deliverytime > now {
        deliverytime = now;
    }
    let retry = (retrycount >= 0).then_some(retrycount as u64);
    let (gname, cname) = (&args[2], &args[3]);
    let mut created = false;
    let record = ctx.propagating();
    let mut props = Vec::new();
    let mut claims = 0u64;
    let items = update(ctx.srv, db, &args[1], |s| {
        let (log, groups) = s.parts_mut();
        groups.with_mut(gname, |g| {
            // A LASTID that moves the group goes to replicas with the
            // first claim, or as XGROUP SETID when nothing is claimed.
            let mut set_last = last_id > g.last_id;
            if set_last {
                g.last_id = last_id;
            }
            let pel_before = g.pel().len();
            created = seen_consumer(g, cname, now);
            let mut items = Vec::new();
            for (&id, arg) in ids.iter().zip(&args[5..]) {
                let pending = g.pel().get(&id).map(|n| n.delivery_time);
                let Some(entry) = log.get(id) else {
                    // Gone from the stream: forget it (replicas too).
                    if let Some(p) = Prop::claim(g, id, arg).filter(|_| record) {
                        props.push(p);
                        set_last = false;
                    }
                    g.ack(id);
                    continue;
                };
                let forced = force && pending.is_none();
                if forced {
                    g.force_pending(id, now);
                }
                let Some(time) = pending.or(forced.then_some(now)) else {
                    continue;
                };
                if !forced && minidle != 0 && now.wrapping_sub(time) < minidle {
                    continue;
                }
                items.push(claim(g, cname, entry, deliverytime, retry, justid, now));
                if let Some(p) = Prop::claim(g, id, arg).filter(|_| record) {
                    props.push(p);
                    set_last = false;
                }
            }
            if set_last && record {
                props.push(Prop::set_id(g));
            }
            // Each claim, and each vanished entry dropped, is a change;
            // so is a LASTID no claim carried.
            claims =
                (items.len() + pel_before.saturating_sub(g.pel().len())) as u64 + set_last as u64;
            items
        })
    })
    .flatten()
    .unwrap_or_default();
    consumer_created(ctx, &args[1], created);
    changed(ctx, created as u64 + claims);
    propagate::send(ctx, &args[1], gname, props);
    Frame::Array(items)
}

/// Claims `entry` for consumer `cname` (XCLAIM and XAUTOCLAIM alike), who
/// becomes active at `now`, and gives its reply item: with JUSTID the ID
/// alone, and the delivery count left as it was.
fn claim(
    g: &mut Group,
    cname: &[u8],
    entry: &Entry,
    delivery_time: i64,
    retry: Option<u64>,
    justid: bool,
    now: i64,
) -> Frame {
    g.claim(entry.id, cname, delivery_time, retry, justid);
    if let Some(c) = g.consumer_mut(cname) {
        c.active_time = now;
    }
    if justid {
        id_frame(entry.id)
    } else {
        entry_frame(entry)
    }
}

pub(super) fn xautoclaim(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    // Looked up first (hits and misses count), checked after the options.
    let found = group_or(ctx, &args[1], &args[2], || nogroup(&args[1], &args[2]));
    let Some(minidle) = parse_i64(&args[4]) else {
        return Frame::err("ERR Invalid min-idle-time argument for XAUTOCLAIM");
    };
    let minidle = minidle.max(0);
    let (mut start, startex) = match interval_id(&args[5], 0) {
        Ok(r) => r,
        Err(e) => return e,
    };
    if startex {
        match start.incr() {
            Some(s) => start = s,
            None => return Frame::err("ERR invalid start ID for the interval"),
        }
    }
    let mut count: i64 = 100;
    let mut justid = false;
    let max_count = i64::MAX / 16;
    let mut j = 6;
    while j < args.len() {
        let moreargs = args.len() - 1 - j;
        if opt_is(&args[j], "COUNT") && moreargs > 0 {
            count = match parse_i64(&args[j + 1]) {
                Some(n) if (1..=max_count).contains(&n) => n,
                _ => return Frame::err("ERR COUNT must be > 0"),
            };
            j += 1;
        } else if opt_is(&args[j], "JUSTID") {
            justid = true;
        } else {
            return Frame::err(SYNTAX);
        }
        j += 1;
    }
    if let Err(reply) = found {
        return reply;
    }
    let db = ctx.db();
    let now = ctx.srv.now_ms();
    let (gname, cname) = (&args[2], &args[3]);
    let mut created = false;
    let record = ctx.propagating();
    let mut props = Vec::new();
    let mut claims = 0u64;
    let reply = update(ctx.srv, db, &args[1], |s| {
        let (log, groups) = s.parts_mut();
        groups.with_mut(gname, |g| {
            created = seen_consumer(g, cname, now);
            let mut attempts = count.saturating_mul(10);
            let mut left = count;
            let mut claimed = Vec::new();
            let mut deleted = Vec::new();
            let mut last: Option<StreamId> = None;
            loop {
                if attempts == 0 {
                    break;
                }
                attempts -= 1;
                if left == 0 {
                    break;
                }
                let Some((&id, nack)) = next_pending(g.pel(), start, last) else {
                    break;
                };
                let time = nack.delivery_time;
                last = Some(id);
                let Some(entry) = log.get(id) else {
                    if record {
                        props.extend(Prop::claim(g, id, id.to_string().as_bytes()));
                    }
                    g.ack(id);
                    deleted.push(id_frame(id));
                    left -= 1;
                    continue;
                };
                if minidle != 0 && now.wrapping_sub(time) < minidle {
                    continue;
                }
                claimed.push(claim(g, cname, entry, now, None, justid, now));
                if record {
                    props.extend(Prop::claim(g, id, id.to_string().as_bytes()));
                }
                left -= 1;
            }
            claims = (claimed.len() + deleted.len()) as u64;
            let cursor = next_pending(g.pel(), start, last).map_or(StreamId::MIN, |(id, _)| *id);
            Frame::Array(vec![
                id_frame(cursor),
                Frame::Array(claimed),
                Frame::Array(deleted),
            ])
        })
    })
    .flatten();
    consumer_created(ctx, &args[1], created);
    changed(ctx, created as u64 + claims);
    propagate::send(ctx, &args[1], gname, props);
    reply.unwrap_or_else(|| nogroup(&args[1], &args[2]))
}

/// The first pending entry from `start`, or the first after `last` once
/// the scan has begun (XAUTOCLAIM's walk and its next cursor).
fn next_pending(
    pel: &OrdMap<StreamId, Nack>,
    start: StreamId,
    last: Option<StreamId>,
) -> Option<(&StreamId, &Nack)> {
    match last {
        None => pel.range(start..).next(),
        Some(l) => pel
            .range((std::ops::Bound::Excluded(l), std::ops::Bound::Unbounded))
            .next(),
    }
}
