//! Hash commands (t_hash.c): HSET and friends, counters, whole-hash reads, HRANDFIELD and HSCAN, with Redis 7.2's lookups, error order and encodings.
//!
//! Lookups follow Redis because they are observable: reads count keyspace
//! hits and misses, writes do not; a key emptied by a delete goes away
//! through [`Server::delete`]. A write that changes nothing a client can
//! see (HDEL of absent fields) does not signal the key, so WATCH survives.

use super::args::arg_i64;
use super::args::NOT_FLOAT;
use super::random::{count_and_with, sample_indices, too_many_random, MAX_RANDOM_REPLY};
use super::scan::{cursor_arg, scan_opts, scan_reply, scan_steps};
use super::table::{commands, Command, Ctx};
use super::typed::{peek, peek_with_rng, remove_each, update};
use crate::keyspace::object::Value;
use crate::keyspace::types::hash::{Hash, HashLimits};
use crate::num::longdouble::LongDouble;
use crate::proto::resp::{parse_i64, Frame};
use crate::rng::Pick;
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;
use crate::server::Server;

pub(super) static COMMANDS: &[Command] = commands! { group: "hash";
    "hset" => hset, arity: -4, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, HASH, FAST], since: "2.0.0",
        syntax: "HSET key field value [field value ...]", summary: "Sets fields of a hash, creating it if needed; replies with how many fields are new.";
    "hsetnx" => hsetnx, arity: 4, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, HASH, FAST], since: "2.0.0",
        syntax: "HSETNX key field value", summary: "Sets a hash field only if it does not exist yet; replies 1 if it did so.";
    "hget" => hget, arity: 3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, HASH, FAST], since: "2.0.0",
        syntax: "HGET key field", summary: "Replies with the value of a hash field.";
    "hmget" => hmget, arity: -3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, HASH, FAST], since: "2.0.0",
        syntax: "HMGET key field [field ...]", summary: "Replies with the values of several hash fields, nil where missing.";
    "hmset" => hset, arity: -4, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, HASH, FAST], since: "2.0.0",
        syntax: "HMSET key field value [field value ...]", summary: "Sets fields of a hash and replies OK (deprecated: HSET does the same).";
    "hgetall" => hgetall, arity: 2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, HASH, SLOW], since: "2.0.0",
        syntax: "HGETALL key", summary: "Replies with every field and value of a hash.";
    "hdel" => hdel, arity: -3, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, HASH, FAST], since: "2.0.0",
        syntax: "HDEL key field [field ...]", summary: "Deletes hash fields, and the key once empty; replies with how many were removed.";
    "hlen" => hlen, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, HASH, FAST], since: "2.0.0",
        syntax: "HLEN key", summary: "Replies with the number of fields in a hash.";
    "hexists" => hexists, arity: 3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, HASH, FAST], since: "2.0.0",
        syntax: "HEXISTS key field", summary: "Replies 1 if a hash has the field, else 0.";
    "hincrby" => hincrby, arity: 4, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, HASH, FAST], since: "2.0.0",
        syntax: "HINCRBY key field increment", summary: "Adds an integer to the integer in a hash field (missing counts as 0).";
    "hincrbyfloat" => hincrbyfloat, arity: 4, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, HASH, FAST], since: "2.6.0",
        syntax: "HINCRBYFLOAT key field increment", summary: "Adds a decimal number to the number in a hash field, in long double precision.";
    "hkeys" => hkeys, arity: 2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, HASH, SLOW], since: "2.0.0",
        syntax: "HKEYS key", summary: "Replies with every field name of a hash.";
    "hvals" => hvals, arity: 2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, HASH, SLOW], since: "2.0.0",
        syntax: "HVALS key", summary: "Replies with every value of a hash.";
    "hstrlen" => hstrlen, arity: 3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, HASH, FAST], since: "3.2.0",
        syntax: "HSTRLEN key field", summary: "Replies with the length of a hash field's value.";
    "hrandfield" => hrandfield, arity: -2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, HASH, SLOW], since: "6.2.0",
        syntax: "HRANDFIELD key [count [WITHVALUES]]", summary: "Replies with random fields of a hash: distinct for a positive count, possibly repeated for a negative one.";
    "hscan" => hscan, arity: -3, flags: [READONLY], keys: (1, 1, 1), acl: [READ, HASH, SLOW], since: "2.8.0",
        syntax: "HSCAN key cursor [MATCH pattern] [COUNT count]", summary: "Walks a hash's fields and values with a cursor (a small hash comes whole).";
};

// ---------------------------------------------------------------------------
// Encoding limits and in-place writes.

/// The encoding limits from the current config.
pub(super) fn limits(srv: &Server) -> HashLimits {
    HashLimits {
        max_listpack_entries: srv.config.hash_max_listpack_entries,
        max_listpack_value: srv.config.hash_max_listpack_value,
        dict_seed: srv.seed ^ 0x6861_7368_7365_6564,
    }
}

/// Applies `f` to the hash at `key`, creating it first if `exists` is
/// false (`hashTypeLookupWriteOrCreate`, which `dbAdd`s a new hash).
/// `f` returns its result and whether it changed the hash.
fn write_hash<R>(
    ctx: &mut Ctx,
    key: &[u8],
    exists: bool,
    f: impl FnOnce(&mut Hash) -> (R, bool),
) -> Option<R> {
    let db = ctx.db();
    if !exists {
        let mut h = Hash::new();
        let (r, _) = f(&mut h);
        ctx.srv.set_key(db, key, Value::Hash(Box::new(h)), false);
        return Some(r);
    }
    update::<Hash, _>(ctx.srv, db, key, |h, _| f(h))
}

// ---------------------------------------------------------------------------
// Commands.

/// HSET and HMSET (`hsetCommand`): pairs only; HMSET replies OK.
fn hset(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() % 2 == 1 {
        return Frame::err(format!(
            "ERR wrong number of arguments for '{}' command",
            ctx.cmd.name
        ));
    }
    let exists = match ctx.write_exists::<Hash>(&args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let lim = limits(ctx.srv);
    let created = write_hash(ctx, &args[1], exists, |h| {
        h.try_conversion(&args[2..], &lim);
        let created = args[2..]
            .chunks_exact(2)
            .filter(|p| !h.set(&p[0], &p[1], &lim))
            .count();
        (created, true)
    });
    ctx.notify(ev::HASH, "hset", &args[1]);
    // `server.dirty += (argc - 2) / 2`, updated fields included.
    crate::persist::adjust_changes(ctx.srv, ((args.len() - 2) / 2) as i64 - 1);
    if ctx.cmd.name == "hmset" {
        Frame::ok()
    } else {
        Frame::Integer(created.unwrap_or(0) as i64)
    }
}

fn hsetnx(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let exists = match ctx.write_exists::<Hash>(&args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    if exists && peek::<Hash>(ctx.srv, db, &args[1]).is_some_and(|h| h.contains(&args[2])) {
        return Frame::Integer(0);
    }
    let lim = limits(ctx.srv);
    write_hash(ctx, &args[1], exists, |h| {
        h.try_conversion(&args[2..4], &lim);
        h.set(&args[2], &args[3], &lim);
        ((), true)
    });
    ctx.notify(ev::HASH, "hset", &args[1]);
    Frame::Integer(1)
}

fn hget(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<Hash>(&args[1]) {
        Err(e) => e,
        Ok(h) => h
            .and_then(|h| h.get(&args[2]))
            .map_or(Frame::Null, Frame::bulk),
    }
}

fn hmget(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<Hash>(&args[1]) {
        Err(e) => e,
        Ok(h) => Frame::Array(
            args[2..]
                .iter()
                .map(|f| h.and_then(|h| h.get(f)).map_or(Frame::Null, Frame::bulk))
                .collect(),
        ),
    }
}

/// HGETALL (a map), HKEYS and HVALS (arrays), in the hash's order.
fn hgetall_generic(ctx: &mut Ctx, key: &[u8], keys: bool, vals: bool) -> Frame {
    let h = match ctx.read::<Hash>(key) {
        Err(e) => return e,
        Ok(h) => h,
    };
    let pairs = h.into_iter().flat_map(|h| h.iter());
    if keys && vals {
        Frame::Map(
            pairs
                .map(|(f, v)| (Frame::bulk(f), Frame::bulk(v)))
                .collect(),
        )
    } else {
        Frame::Array(
            pairs
                .map(|(f, v)| Frame::bulk(if keys { f } else { v }))
                .collect(),
        )
    }
}

fn hgetall(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    hgetall_generic(ctx, &args[1], true, true)
}

fn hkeys(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    hgetall_generic(ctx, &args[1], true, false)
}

fn hvals(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    hgetall_generic(ctx, &args[1], false, true)
}

/// HDEL: stops once the hash is empty, and deletes the key.
fn hdel(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(reply) = ctx.write_or::<Hash>(&args[1], || Frame::Integer(0)) {
        return reply;
    }
    let db = ctx.db();
    let (deleted, emptied) = update::<Hash, _>(ctx.srv, db, &args[1], |h, _| {
        let deleted = remove_each(h, &args[2..], Hash::delete, Hash::is_empty);
        ((deleted, h.is_empty()), deleted > 0)
    })
    .unwrap_or((0, false));
    if deleted > 0 {
        ctx.notify(ev::HASH, "hdel", &args[1]);
        crate::persist::adjust_changes(ctx.srv, deleted - 1);
    }
    if emptied {
        ctx.srv.delete(db, &args[1], DeleteCause::Del);
        ctx.notify(ev::GENERIC, "del", &args[1]);
    }
    Frame::Integer(deleted)
}

fn hlen(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<Hash>(&args[1]) {
        Err(e) => e,
        Ok(h) => Frame::Integer(h.map_or(0, |h| h.len() as i64)),
    }
}

fn hstrlen(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<Hash>(&args[1]) {
        Err(e) => e,
        Ok(h) => Frame::Integer(
            h.and_then(|h| h.get(&args[2]))
                .map_or(0, |v| v.len() as i64),
        ),
    }
}

fn hexists(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<Hash>(&args[1]) {
        Err(e) => e,
        Ok(h) => Frame::Integer(h.is_some_and(|h| h.contains(&args[2])) as i64),
    }
}

/// HINCRBY: the increment is parsed first, then the key is looked up
/// (and created), then the field's value is checked.
fn hincrby(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let incr = match arg_i64(&args[3]) {
        Ok(n) => n,
        Err(e) => return e,
    };
    let exists = match ctx.write_exists::<Hash>(&args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    let current = match peek::<Hash>(ctx.srv, db, &args[1]).and_then(|h| h.get(&args[2])) {
        None => 0,
        Some(v) => match parse_i64(v) {
            Some(n) => n,
            None => return Frame::err("ERR hash value is not an integer"),
        },
    };
    let Some(new) = current.checked_add(incr) else {
        return Frame::err("ERR increment or decrement would overflow");
    };
    let lim = limits(ctx.srv);
    write_hash(ctx, &args[1], exists, |h| {
        h.set(&args[2], new.to_string().as_bytes(), &lim);
        ((), true)
    });
    ctx.notify(ev::HASH, "hincrby", &args[1]);
    Frame::Integer(new)
}

/// HINCRBYFLOAT in x87 extended precision, formatted as INCRBYFLOAT does.
fn hincrbyfloat(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let Some(incr) = LongDouble::parse(&args[3]) else {
        return Frame::err(NOT_FLOAT);
    };
    if !incr.is_finite() {
        return Frame::err("ERR value is NaN or Infinity");
    }
    let exists = match ctx.write_exists::<Hash>(&args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    let current = match peek::<Hash>(ctx.srv, db, &args[1]).and_then(|h| h.get(&args[2])) {
        None => LongDouble::ZERO,
        Some(v) => match LongDouble::parse(v) {
            Some(x) => x,
            None => return Frame::err("ERR hash value is not a float"),
        },
    };
    let sum = current + incr;
    if !sum.is_finite() {
        return Frame::err("ERR increment would produce NaN or Infinity");
    }
    let text = sum.to_human().into_bytes();
    let lim = limits(ctx.srv);
    write_hash(ctx, &args[1], exists, |h| {
        h.set(&args[2], &text, &lim);
        ((), true)
    });
    ctx.notify(ev::HASH, "hincrbyfloat", &args[1]);
    // The result, not the increment: float formatting cannot differ there.
    ctx.propagate_as(&[b"HSET", &args[1], &args[2], &text]);
    Frame::Bulk(text)
}

/// HRANDFIELD: without a count, one field (nil if no key); with one, the
/// count is checked before the key, and WITHVALUES halves its range.
fn hrandfield(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() >= 3 {
        return match count_and_with(args, "withvalues") {
            Ok((l, withvalues)) => hrandfield_count(ctx, &args[1], l, withvalues),
            Err(e) => e,
        };
    }
    if let Err(e) = ctx.read::<Hash>(&args[1]) {
        return e;
    }
    let db = ctx.db();
    let srv = &mut *ctx.srv;
    match peek_with_rng::<Hash>(srv, db, &args[1]) {
        (Some(h), rng) => h
            .random_pair(rng)
            .map_or(Frame::Null, |(f, _)| Frame::bulk(f)),
        (None, _) => Frame::Null,
    }
}

/// `hrandfieldWithCountCommand`'s cases: repeats allowed (negative count,
/// or 1), the whole hash (count ≥ size), distinct fields in listpack order
/// (a small hash), or distinct random fields of a table.
fn hrandfield_count(ctx: &mut Ctx, key: &[u8], l: i64, withvalues: bool) -> Frame {
    match ctx.read::<Hash>(key) {
        Err(e) => return e,
        Ok(None) => return Frame::Array(vec![]),
        Ok(Some(_)) => {}
    }
    let resp3 = ctx.client.resp >= 3;
    let (count, uniq) = (l.unsigned_abs(), l >= 0);
    if count == 0 {
        return Frame::Array(vec![]);
    }
    let db = ctx.db();
    let (Some(h), rng) = peek_with_rng::<Hash>(ctx.srv, db, key) else {
        return Frame::Array(vec![]);
    };
    let size = h.len() as u64;
    let mut out: Vec<Frame> = Vec::new();
    let mut push = |f: &[u8], v: &[u8]| {
        if !withvalues {
            out.push(Frame::bulk(f));
        } else if resp3 {
            out.push(Frame::Array(vec![Frame::bulk(f), Frame::bulk(v)]));
        } else {
            out.push(Frame::bulk(f));
            out.push(Frame::bulk(v));
        }
    };
    if !uniq || count == 1 {
        if count > MAX_RANDOM_REPLY {
            return too_many_random();
        }
        for _ in 0..count {
            if let Some((f, v)) = h.random_pair(rng) {
                push(f, v);
            }
        }
    } else if count >= size {
        for (f, v) in h.iter() {
            push(f, v);
        }
    } else if let Some(lp) = h.listpack() {
        for i in sample_indices(rng, lp.len(), count as usize) {
            push(&lp[i].0, &lp[i].1);
        }
    } else if count * 3 > size {
        // Copy everything, then drop random pairs down to the count.
        let mut all: Vec<(&[u8], &[u8])> = h.iter().collect();
        while all.len() as u64 > count {
            all.swap_remove(rng.pick(..all.len()));
        }
        for (f, v) in all {
            push(f, v);
        }
    } else {
        let mut picked = crate::ordmap::OrdSet::new();
        while (picked.len() as u64) < count {
            let Some((f, v)) = h.random_pair(rng) else {
                break;
            };
            if picked.insert(f) {
                push(f, v);
            }
        }
    }
    Frame::Array(out)
}

/// HSCAN: the cursor is checked before the key, the options after it; a
/// listpack comes whole with cursor 0.
fn hscan(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let cursor = match cursor_arg(&args[2]) {
        Ok(c) => c,
        Err(e) => return e,
    };
    match ctx.read::<Hash>(&args[1]) {
        Err(e) => return e,
        Ok(None) => return scan_reply(0, vec![]),
        Ok(Some(_)) => {}
    }
    let opts = match scan_opts(args, 3, false) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let db = ctx.db();
    let Some(h) = peek::<Hash>(ctx.srv, db, &args[1]) else {
        return scan_reply(0, vec![]);
    };
    let mut items = Vec::new();
    if h.is_listpack() {
        for (f, v) in h.iter().filter(|(f, _)| opts.matches(f)) {
            items.push(f.to_vec());
            items.push(v.to_vec());
        }
        return scan_reply(0, items);
    }
    let next = scan_steps(cursor, opts.count, opts.count.saturating_mul(10), |c| {
        let mut seen = 0;
        let next = h.scan_table(c, |f, v| {
            seen += 1;
            if opts.matches(f) {
                items.push(f.to_vec());
                items.push(v.to_vec());
            }
        });
        (next, seen)
    });
    scan_reply(next, items)
}

#[cfg(test)]
mod tests {
    use crate::cmd::testing::{engine, run};
    use crate::{Engine, Frame};

    fn encoding(e: &mut Engine, c: u64, key: &str) -> Frame {
        run(e, c, &["OBJECT", "ENCODING", key])
    }

    /// The thresholds at their edges, moved by CONFIG SET under both names.
    #[test]
    fn listpack_limits_and_config_changes() {
        let (mut e, c) = engine(1);
        let listpack = Frame::bulk("listpack");
        let table = Frame::bulk("hashtable");
        run(
            &mut e,
            c,
            &["CONFIG", "SET", "hash-max-ziplist-entries", "3"],
        );
        assert_eq!(
            run(&mut e, c, &["CONFIG", "GET", "hash-max-listpack-entries"]),
            Frame::Map(vec![(
                Frame::bulk("hash-max-listpack-entries"),
                Frame::bulk("3")
            )])
        );
        run(&mut e, c, &["HSET", "a", "1", "x", "2", "x", "3", "x"]);
        assert_eq!(encoding(&mut e, c, "a"), listpack);
        run(&mut e, c, &["HSET", "a", "3", "y"]);
        assert_eq!(
            encoding(&mut e, c, "a"),
            listpack,
            "an update adds no field"
        );
        run(&mut e, c, &["HINCRBY", "a", "4", "1"]);
        assert_eq!(encoding(&mut e, c, "a"), table);
        // Four pairs in one HSET, even of one field, convert at once (7.2).
        run(
            &mut e,
            c,
            &["HSET", "b", "f", "1", "f", "2", "f", "3", "f", "4"],
        );
        assert_eq!(encoding(&mut e, c, "b"), table);
        assert_eq!(run(&mut e, c, &["HLEN", "b"]), Frame::Integer(1));
        run(
            &mut e,
            c,
            &["CONFIG", "SET", "hash-max-listpack-value", "4"],
        );
        run(&mut e, c, &["HSET", "v", "f", "1234"]);
        assert_eq!(encoding(&mut e, c, "v"), listpack);
        run(&mut e, c, &["HINCRBY", "v", "f", "99999"]);
        assert_eq!(run(&mut e, c, &["HGET", "v", "f"]), Frame::bulk("101233"));
        assert_eq!(encoding(&mut e, c, "v"), table, "a long result converts");
        run(&mut e, c, &["HSET", "w", "abcde", "1"]);
        assert_eq!(encoding(&mut e, c, "w"), table, "a long field converts");
        // A lowered limit does not convert what exists until it is written.
        run(
            &mut e,
            c,
            &["CONFIG", "SET", "hash-max-listpack-value", "64"],
        );
        run(&mut e, c, &["HSET", "x", "f", "long-value"]);
        run(&mut e, c, &["CONFIG", "SET", "hash-max-ziplist-value", "2"]);
        assert_eq!(encoding(&mut e, c, "x"), listpack);
        run(&mut e, c, &["HSET", "x", "g", "1"]);
        assert_eq!(encoding(&mut e, c, "x"), listpack, "short arguments");
        run(&mut e, c, &["HSET", "x", "g", "123"]);
        assert_eq!(encoding(&mut e, c, "x"), table);
    }

    /// Emptied hashes are deleted; memory goes back to where it was.
    #[test]
    fn emptied_hashes_go_away() {
        let (mut e, c) = engine(1);
        let before = e.server().used_memory();
        run(&mut e, c, &["HSET", "h", "a", "1", "b", "2"]);
        assert!(e.server().used_memory() > before);
        assert_eq!(
            run(&mut e, c, &["HDEL", "h", "a", "b", "c"]),
            Frame::Integer(2)
        );
        assert_eq!(run(&mut e, c, &["EXISTS", "h"]), Frame::Integer(0));
        let db = &e.server().dbs[0];
        assert_eq!(
            e.server().used_memory(),
            before + 8 * db.dict.buckets() as u64
        );
        let deleted = e
            .trace()
            .events()
            .any(|ev| matches!(&ev.event, crate::server::trace::Event::Deleted { key, .. } if key == "h"));
        assert!(deleted, "the trace records the deletion");
    }
}
