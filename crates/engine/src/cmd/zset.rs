//! Sorted-set commands (t_zset.c): ZADD and ZINCRBY, ranges by rank, score and lex (ZRANGE and its older forms, ZRANGESTORE), counts, removals, pops, ZUNION/ZINTER/ZDIFF with their STORE forms and ZINTERCARD, ZRANDMEMBER and ZSCAN, with Redis 7.2's parsing, error order, replies and encodings.
//!
//! Error order is Redis': option syntax, then number parsing, then the key
//! (WRONGTYPE), then the work, except where Redis looks keys up first
//! (ZUNION and friends read every input before parsing WEIGHTS). Reads count
//! keyspace hits and misses, writes do not. A write that changes nothing a
//! client can see does not signal the key (WATCH survives), and a set
//! emptied by a removal is deleted. Scores are printed by [`Frame::Double`]
//! (Redis 7.2's `d2string`), except ZSCAN of a skiplist, which prints
//! `%.17g` as Redis does there.

use super::hash::{
    count_arg, positive_arg, scan_cursor, scan_opts, scan_reply, scan_steps, too_many_random,
    MAX_RANDOM_REPLY,
};
use super::strings::{cstr, opt_is};
use super::{arg_i64, Command, Ctx, NOT_FLOAT, SYNTAX, WRONGTYPE};
use crate::keyspace::dict::Dict;
use crate::keyspace::object::Value;
use crate::keyspace::types::zset::{
    AddFlags, AddOutcome, LexItem, LexRange, Limits, ScoreRange, ZSet,
};
use crate::num::double::{d2string, g17, string2d, strtod};
use crate::proto::resp::{parse_i64, Frame};
use crate::server::config::Config;
use crate::server::trace::{DeleteCause, Event};
use crate::server::{lossy, Server};

/// Defines one sorted-set command entry.
macro_rules! zset_cmd {
    ($name:literal, $arity:expr, [$($flag:literal),*], $keys:expr, [$($acl:literal),*],
     $syntax:literal, $summary:literal, $since:literal, $handler:expr) => {
        Command {
            name: $name,
            arity: $arity,
            flags: &[$($flag),*],
            keys: $keys,
            acl: &[$($acl),*],
            syntax: $syntax,
            summary: $summary,
            since: $since,
            group: "sorted-set",
            handler: $handler,
            subcommands: &[],
        }
    };
}

pub static COMMANDS: &[Command] = &[
    zset_cmd!("zadd", -4, ["write", "denyoom", "fast"], (1, 1, 1), ["write", "sortedset", "fast"],
        "ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]",
        "Adds members with scores to a sorted set, or updates their scores; replies with how many were added.",
        "1.2.0", zadd),
    zset_cmd!("zincrby", 4, ["write", "denyoom", "fast"], (1, 1, 1), ["write", "sortedset", "fast"],
        "ZINCRBY key increment member",
        "Adds to a member's score (a missing member starts at 0); replies with the new score.",
        "1.2.0", zincrby),
    zset_cmd!("zcard", 2, ["readonly", "fast"], (1, 1, 1), ["read", "sortedset", "fast"],
        "ZCARD key", "Replies with the number of members of a sorted set.", "1.2.0", zcard),
    zset_cmd!("zscore", 3, ["readonly", "fast"], (1, 1, 1), ["read", "sortedset", "fast"],
        "ZSCORE key member", "Replies with the score of a member.", "1.2.0", zscore),
    zset_cmd!("zmscore", -3, ["readonly", "fast"], (1, 1, 1), ["read", "sortedset", "fast"],
        "ZMSCORE key member [member ...]",
        "Replies with the scores of several members, nil where missing.", "6.2.0", zmscore),
    zset_cmd!("zrank", -3, ["readonly", "fast"], (1, 1, 1), ["read", "sortedset", "fast"],
        "ZRANK key member [WITHSCORE]",
        "Replies with a member's 0-based position from the lowest score, and optionally its score.",
        "2.0.0", zrank),
    zset_cmd!("zrevrank", -3, ["readonly", "fast"], (1, 1, 1), ["read", "sortedset", "fast"],
        "ZREVRANK key member [WITHSCORE]",
        "Replies with a member's 0-based position from the highest score, and optionally its score.",
        "2.0.0", zrevrank),
    zset_cmd!("zrange", -4, ["readonly"], (1, 1, 1), ["read", "sortedset", "slow"],
        "ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]",
        "Replies with members in a range of ranks, scores or lexicographic values.",
        "1.2.0", zrange),
    zset_cmd!("zrangestore", -5, ["write", "denyoom"], (1, 2, 1), ["write", "sortedset", "slow"],
        "ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]",
        "Stores a range of a sorted set in another key; replies with its size.",
        "6.2.0", zrangestore),
    zset_cmd!("zrevrange", -4, ["readonly"], (1, 1, 1), ["read", "sortedset", "slow"],
        "ZREVRANGE key start stop [WITHSCORES]",
        "Replies with members in a range of ranks, highest score first (deprecated: ZRANGE ... REV).",
        "1.2.0", zrevrange),
    zset_cmd!("zrangebyscore", -4, ["readonly"], (1, 1, 1), ["read", "sortedset", "slow"],
        "ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]",
        "Replies with members within a score range (deprecated: ZRANGE ... BYSCORE).",
        "1.0.5", zrangebyscore),
    zset_cmd!("zrevrangebyscore", -4, ["readonly"], (1, 1, 1), ["read", "sortedset", "slow"],
        "ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]",
        "Replies with members within a score range, highest first (deprecated: ZRANGE ... BYSCORE REV).",
        "2.2.0", zrevrangebyscore),
    zset_cmd!("zrangebylex", -4, ["readonly"], (1, 1, 1), ["read", "sortedset", "slow"],
        "ZRANGEBYLEX key min max [LIMIT offset count]",
        "Replies with members within a lexicographic range (deprecated: ZRANGE ... BYLEX).",
        "2.8.9", zrangebylex),
    zset_cmd!("zrevrangebylex", -4, ["readonly"], (1, 1, 1), ["read", "sortedset", "slow"],
        "ZREVRANGEBYLEX key max min [LIMIT offset count]",
        "Replies with members within a lexicographic range, in reverse (deprecated: ZRANGE ... BYLEX REV).",
        "2.8.9", zrevrangebylex),
    zset_cmd!("zcount", 4, ["readonly", "fast"], (1, 1, 1), ["read", "sortedset", "fast"],
        "ZCOUNT key min max", "Counts the members within a score range.", "2.0.0", zcount),
    zset_cmd!("zlexcount", 4, ["readonly", "fast"], (1, 1, 1), ["read", "sortedset", "fast"],
        "ZLEXCOUNT key min max", "Counts the members within a lexicographic range.", "2.8.9", zlexcount),
    zset_cmd!("zrem", -3, ["write", "fast"], (1, 1, 1), ["write", "sortedset", "fast"],
        "ZREM key member [member ...]",
        "Removes members, and the key once empty; replies with how many were removed.",
        "1.2.0", zrem),
    zset_cmd!("zremrangebyscore", 4, ["write"], (1, 1, 1), ["write", "sortedset", "slow"],
        "ZREMRANGEBYSCORE key min max",
        "Removes the members within a score range; replies with how many.", "1.2.0", zremrangebyscore),
    zset_cmd!("zremrangebyrank", 4, ["write"], (1, 1, 1), ["write", "sortedset", "slow"],
        "ZREMRANGEBYRANK key start stop",
        "Removes the members within a range of ranks; replies with how many.", "2.0.0", zremrangebyrank),
    zset_cmd!("zremrangebylex", 4, ["write"], (1, 1, 1), ["write", "sortedset", "slow"],
        "ZREMRANGEBYLEX key min max",
        "Removes the members within a lexicographic range; replies with how many.", "2.8.9", zremrangebylex),
    zset_cmd!("zpopmin", -2, ["write", "fast"], (1, 1, 1), ["write", "sortedset", "fast"],
        "ZPOPMIN key [count]",
        "Removes and replies with the lowest-scored members.", "5.0.0", zpopmin),
    zset_cmd!("zpopmax", -2, ["write", "fast"], (1, 1, 1), ["write", "sortedset", "fast"],
        "ZPOPMAX key [count]",
        "Removes and replies with the highest-scored members.", "5.0.0", zpopmax),
    zset_cmd!("zmpop", -4, ["write", "movablekeys"], (0, 0, 0), ["write", "sortedset", "slow"],
        "ZMPOP numkeys key [key ...] (MIN | MAX) [COUNT count]",
        "Pops the lowest- or highest-scored members of the first non-empty sorted set among several.",
        "7.0.0", zmpop),
    zset_cmd!("zunion", -3, ["readonly", "movablekeys"], (0, 0, 0), ["read", "sortedset", "slow"],
        "ZUNION numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE (SUM | MIN | MAX)] [WITHSCORES]",
        "Replies with the union of sorted sets (sets count as score 1), scores weighted and aggregated.",
        "6.2.0", zunion),
    zset_cmd!("zinter", -3, ["readonly", "movablekeys"], (0, 0, 0), ["read", "sortedset", "slow"],
        "ZINTER numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE (SUM | MIN | MAX)] [WITHSCORES]",
        "Replies with the intersection of sorted sets (sets count as score 1), scores weighted and aggregated.",
        "6.2.0", zinter),
    zset_cmd!("zdiff", -3, ["readonly", "movablekeys"], (0, 0, 0), ["read", "sortedset", "slow"],
        "ZDIFF numkeys key [key ...] [WITHSCORES]",
        "Replies with the members of the first sorted set that are in none of the others.",
        "6.2.0", zdiff),
    zset_cmd!("zintercard", -3, ["readonly", "movablekeys"], (0, 0, 0), ["read", "sortedset", "slow"],
        "ZINTERCARD numkeys key [key ...] [LIMIT limit]",
        "Counts the members in the intersection of sorted sets, stopping at an optional limit.",
        "7.0.0", zintercard),
    zset_cmd!("zunionstore", -4, ["write", "denyoom", "movablekeys"], (1, 1, 1), ["write", "sortedset", "slow"],
        "ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE (SUM | MIN | MAX)]",
        "Stores the union of sorted sets in a key; replies with its size.", "2.0.0", zunionstore),
    zset_cmd!("zinterstore", -4, ["write", "denyoom", "movablekeys"], (1, 1, 1), ["write", "sortedset", "slow"],
        "ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE (SUM | MIN | MAX)]",
        "Stores the intersection of sorted sets in a key; replies with its size.", "2.0.0", zinterstore),
    zset_cmd!("zdiffstore", -4, ["write", "denyoom", "movablekeys"], (1, 1, 1), ["write", "sortedset", "slow"],
        "ZDIFFSTORE destination numkeys key [key ...]",
        "Stores the difference of sorted sets in a key; replies with its size.", "6.2.0", zdiffstore),
    zset_cmd!("zrandmember", -2, ["readonly"], (1, 1, 1), ["read", "sortedset", "slow"],
        "ZRANDMEMBER key [count [WITHSCORES]]",
        "Replies with random members: distinct ones for a positive count, possibly repeated for a negative one.",
        "6.2.0", zrandmember),
    zset_cmd!("zscan", -3, ["readonly"], (1, 1, 1), ["read", "sortedset", "slow"],
        "ZSCAN key cursor [MATCH pattern] [COUNT count]",
        "Walks the members and scores of a sorted set a few at a time with a cursor.",
        "2.8.0", zscan),
];

/// The encoding thresholds in force.
pub fn limits(config: &Config) -> Limits {
    Limits {
        entries: usize::try_from(config.zset_max_listpack_entries).unwrap_or(usize::MAX),
        value: usize::try_from(config.zset_max_listpack_value).unwrap_or(usize::MAX),
    }
}

// ---------------------------------------------------------------------------
// Shared helpers.

/// What a read lookup found: nothing, a sorted set, or another type.
enum Found {
    Missing,
    ZSet,
    Wrong,
}

/// `lookupKeyRead` (or write, by `write`) plus `checkType`.
fn find(ctx: &mut Ctx, key: &[u8], write: bool) -> Found {
    let db = ctx.db();
    let obj = if write {
        ctx.srv.lookup_write(db, key)
    } else {
        ctx.srv.lookup_read(db, key)
    };
    match obj.map(|o| matches!(o.value, Value::ZSet(_))) {
        None => Found::Missing,
        Some(true) => Found::ZSet,
        Some(false) => Found::Wrong,
    }
}

/// The sorted set under `key` without any side effect (after `find`).
fn peek<'a>(srv: &'a Server, db: usize, key: &[u8]) -> Option<&'a ZSet> {
    match &srv.dbs[db].get(key)?.value {
        Value::ZSet(z) => Some(z),
        _ => None,
    }
}

/// Mutates the sorted set under `key` in place, memory accounted by the
/// database. `f` says whether a client can see a change: only then is the
/// key signalled (WATCH) and the write traced, as Redis skips
/// `signalModifiedKey` when nothing was added, updated or removed.
fn update<R>(
    srv: &mut Server,
    db: usize,
    key: &[u8],
    f: impl FnOnce(&mut ZSet, &mut fastrand::Rng, Limits) -> (R, bool),
) -> Option<R> {
    let lim = limits(&srv.config);
    let Server { dbs, rng, .. } = srv;
    let (r, changed) = dbs[db]
        .with_mut(key, |o| match &mut o.value {
            Value::ZSet(z) => Some(f(z, rng, lim)),
            _ => None,
        })
        .flatten()?;
    if changed {
        srv.touch_key(db, key);
        srv.emit_with(|| Event::Written {
            db: db as u32,
            key: lossy(key),
        });
    }
    Some(r)
}

/// Deletes `key` if its sorted set is now empty (`dbDelete` after a removal).
fn delete_if_empty(srv: &mut Server, db: usize, key: &[u8]) -> bool {
    if peek(srv, db, key).is_some_and(ZSet::is_empty) {
        srv.delete(db, key, DeleteCause::Del);
        return true;
    }
    false
}

/// Stores a freshly built result under `dst` (`setKey`: overwrite, drop
/// the TTL), or deletes `dst` when the result is empty. Replies with its size.
fn store_result(ctx: &mut Ctx, dst: &[u8], result: Option<ZSet>) -> Frame {
    let db = ctx.db();
    match result.filter(|z| !z.is_empty()) {
        Some(z) => {
            let n = z.len();
            ctx.srv.lookup_write(db, dst);
            ctx.srv.set_key(db, dst, Value::ZSet(Box::new(z)), false);
            Frame::Integer(n as i64)
        }
        None => {
            ctx.srv.delete(db, dst, DeleteCause::Del);
            Frame::Integer(0)
        }
    }
}

/// `getRangeLongFromObjectOrReply(min, max, msg)`: `msg` for both a
/// non-integer and a value out of range.
fn ranged_long(arg: &[u8], min: i64, max: i64, msg: &str) -> Result<i64, Frame> {
    match parse_i64(arg) {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(Frame::err(msg)),
    }
}

/// Members (and scores) as ZRANGE replies them: a flat array in RESP2,
/// [member, score] pairs in RESP3.
fn pairs_reply(pairs: Vec<(Vec<u8>, f64)>, withscores: bool, resp3: bool) -> Frame {
    if !withscores {
        return Frame::Array(pairs.into_iter().map(|(m, _)| Frame::Bulk(m)).collect());
    }
    if resp3 {
        Frame::Array(
            pairs
                .into_iter()
                .map(|(m, s)| Frame::Array(vec![Frame::Bulk(m), Frame::Double(s)]))
                .collect(),
        )
    } else {
        Frame::Array(
            pairs
                .into_iter()
                .flat_map(|(m, s)| [Frame::Bulk(m), Frame::Double(s)])
                .collect(),
        )
    }
}

/// `zslParseRange` for one end: `(` makes it exclusive, then C's `strtod`
/// up to the first NUL (so `""` is 0 and leading blanks pass); NaN is refused.
fn parse_score_end(arg: &[u8]) -> Option<(f64, bool)> {
    let (body, ex) = match arg.first() {
        Some(b'(') => (&arg[1..], true),
        _ => (arg, false),
    };
    let r = strtod(body);
    let at_end = r.len == body.len() || body[r.len] == 0;
    (at_end && !r.value.is_nan()).then_some((r.value, ex))
}

/// A score range from two arguments, or "min or max is not a float".
fn parse_score_range(min: &[u8], max: &[u8]) -> Result<ScoreRange, Frame> {
    match (parse_score_end(min), parse_score_end(max)) {
        (Some((min, minex)), Some((max, maxex))) => Ok(ScoreRange {
            min,
            max,
            minex,
            maxex,
        }),
        _ => Err(Frame::err("ERR min or max is not a float")),
    }
}

/// `zslParseLexRangeItem`: `+` / `-` alone (up to a NUL), or `(` / `[` and the rest.
fn parse_lex_item(arg: &[u8]) -> Option<(LexItem, bool)> {
    match arg.first()? {
        b'+' if cstr(arg).len() == 1 => Some((LexItem::Max, true)),
        b'-' if cstr(arg).len() == 1 => Some((LexItem::Min, true)),
        b'(' => Some((LexItem::Str(arg[1..].to_vec()), true)),
        b'[' => Some((LexItem::Str(arg[1..].to_vec()), false)),
        _ => None,
    }
}

/// A lex range from two arguments, or "min or max not valid string range item".
fn parse_lex_range(min: &[u8], max: &[u8]) -> Result<LexRange, Frame> {
    match (parse_lex_item(min), parse_lex_item(max)) {
        (Some((min, minex)), Some((max, maxex))) => Ok(LexRange {
            min,
            max,
            minex,
            maxex,
        }),
        _ => Err(Frame::err("ERR min or max not valid string range item")),
    }
}

/// Clamps a rank range as Redis does: `None` when it selects nothing.
fn clamp_ranks(start: i64, end: i64, len: usize) -> Option<(usize, usize)> {
    let llen = len as i64;
    let mut start = if start < 0 { llen + start } else { start };
    let mut end = if end < 0 { llen + end } else { end };
    if start < 0 {
        start = 0;
    }
    if start > end || start >= llen {
        return None;
    }
    if end >= llen {
        end = llen - 1;
    }
    Some((start as usize, end as usize))
}

// ---------------------------------------------------------------------------
// ZADD, ZINCRBY.

fn zadd(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zadd_generic(ctx, args, false)
}

fn zincrby(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zadd_generic(ctx, args, true)
}

/// `zaddGenericCommand`: ZADD, and ZINCRBY as ZADD INCR (so ZINCRBY's
/// increment is also read as an option word first, as in Redis).
fn zadd_generic(ctx: &mut Ctx, args: &[Vec<u8>], incr: bool) -> Frame {
    let mut flags = AddFlags {
        incr,
        ..AddFlags::default()
    };
    let mut ch = false;
    let mut idx = 2;
    while let Some(opt) = args.get(idx) {
        if opt_is(opt, "nx") {
            flags.nx = true;
        } else if opt_is(opt, "xx") {
            flags.xx = true;
        } else if opt_is(opt, "ch") {
            ch = true;
        } else if opt_is(opt, "incr") {
            flags.incr = true;
        } else if opt_is(opt, "gt") {
            flags.gt = true;
        } else if opt_is(opt, "lt") {
            flags.lt = true;
        } else {
            break;
        }
        idx += 1;
    }
    let elements = args.len() - idx;
    if elements % 2 == 1 || elements == 0 {
        return Frame::err(SYNTAX);
    }
    let elements = elements / 2;
    if flags.nx && flags.xx {
        return Frame::err("ERR XX and NX options at the same time are not compatible");
    }
    if ((flags.gt || flags.lt) && flags.nx) || (flags.gt && flags.lt) {
        return Frame::err("ERR GT, LT, and/or NX options at the same time are not compatible");
    }
    if flags.incr && elements > 1 {
        return Frame::err("ERR INCR option supports a single increment-element pair");
    }
    let mut pairs: Vec<(f64, &[u8])> = Vec::with_capacity(elements);
    for pair in args[idx..].chunks_exact(2) {
        match string2d(&pair[0]) {
            Some(s) => pairs.push((s, &pair[1])),
            None => return Frame::err(NOT_FLOAT),
        }
    }
    let key = &args[1];
    let db = ctx.db();
    let exists = match find(ctx, key, true) {
        Found::Wrong => return Frame::err(WRONGTYPE),
        Found::Missing => false,
        Found::ZSet => true,
    };
    // Added, updated, processed (not a no-op), last score, NaN error.
    let run = |z: &mut ZSet, rng: &mut fastrand::Rng, lim: Limits| {
        let (mut added, mut updated, mut processed, mut score, mut nan) = (0, 0, 0, 0.0, false);
        for &(s, m) in &pairs {
            match z.add(s, m, flags, lim, rng) {
                AddOutcome::Nan => {
                    nan = true;
                    break;
                }
                AddOutcome::Nop => {}
                AddOutcome::Added(v) => {
                    added += 1;
                    processed += 1;
                    score = v;
                }
                AddOutcome::Updated(v) => {
                    updated += 1;
                    processed += 1;
                    score = v;
                }
                AddOutcome::Same(v) => {
                    processed += 1;
                    score = v;
                }
            }
        }
        (added, updated, processed, score, nan)
    };
    let outcome = if exists {
        update(ctx.srv, db, key, |z, rng, lim| {
            z.maybe_convert(elements, lim, rng);
            let o = run(z, rng, lim);
            (o, o.0 + o.1 > 0)
        })
        .unwrap_or((0, 0, 0, 0.0, false))
    } else if flags.xx {
        (0, 0, 0, 0.0, false)
    } else {
        let lim = limits(&ctx.srv.config);
        let mut z = ZSet::create(elements, pairs[0].1.len(), lim, &mut ctx.srv.rng);
        let o = run(&mut z, &mut ctx.srv.rng, lim);
        ctx.srv.set_key(db, key, Value::ZSet(Box::new(z)), false);
        o
    };
    let (added, updated, processed, score, nan) = outcome;
    if nan {
        return Frame::err("ERR resulting score is not a number (NaN)");
    }
    if flags.incr {
        if processed > 0 {
            Frame::Double(score)
        } else {
            Frame::Null
        }
    } else {
        Frame::Integer(if ch { added + updated } else { added })
    }
}

// ---------------------------------------------------------------------------
// Point reads.

fn zcard(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    match find(ctx, &args[1], false) {
        Found::Missing => Frame::Integer(0),
        Found::Wrong => Frame::err(WRONGTYPE),
        Found::ZSet => Frame::Integer(peek(ctx.srv, db, &args[1]).map_or(0, ZSet::len) as i64),
    }
}

fn zscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    match find(ctx, &args[1], false) {
        Found::Missing => Frame::Null,
        Found::Wrong => Frame::err(WRONGTYPE),
        Found::ZSet => match peek(ctx.srv, db, &args[1]).and_then(|z| z.score(&args[2])) {
            Some(s) => Frame::Double(s),
            None => Frame::Null,
        },
    }
}

fn zmscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    if let Found::Wrong = find(ctx, &args[1], false) {
        return Frame::err(WRONGTYPE);
    }
    let z = peek(ctx.srv, db, &args[1]);
    Frame::Array(
        args[2..]
            .iter()
            .map(|m| match z.and_then(|z| z.score(m)) {
                Some(s) => Frame::Double(s),
                None => Frame::Null,
            })
            .collect(),
    )
}

fn zrank(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrank_generic(ctx, args, false)
}

fn zrevrank(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrank_generic(ctx, args, true)
}

/// `zrankGenericCommand`, with 7.2's WITHSCORE.
fn zrank_generic(ctx: &mut Ctx, args: &[Vec<u8>], reverse: bool) -> Frame {
    if args.len() > 4 {
        return Frame::err(format!(
            "ERR wrong number of arguments for '{}' command",
            ctx.cmd.name
        ));
    }
    let withscore = match args.get(3) {
        Some(a) if opt_is(a, "withscore") => true,
        Some(_) => return Frame::err(SYNTAX),
        None => false,
    };
    let missing = if withscore {
        Frame::NullArray
    } else {
        Frame::Null
    };
    let db = ctx.db();
    match find(ctx, &args[1], false) {
        Found::Missing => missing,
        Found::Wrong => Frame::err(WRONGTYPE),
        Found::ZSet => match peek(ctx.srv, db, &args[1]).and_then(|z| z.rank(&args[2], reverse)) {
            None => missing,
            Some((rank, score)) if withscore => {
                Frame::Array(vec![Frame::Integer(rank as i64), Frame::Double(score)])
            }
            Some((rank, _)) => Frame::Integer(rank as i64),
        },
    }
}

// ---------------------------------------------------------------------------
// Ranges.

#[derive(Clone, Copy, PartialEq, Eq)]
enum RangeKind {
    Auto,
    Rank,
    Score,
    Lex,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Auto,
    Forward,
    Reverse,
}

fn zrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Auto, Direction::Auto)
}

fn zrangestore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(
        ctx,
        args,
        2,
        Some(&args[1]),
        RangeKind::Auto,
        Direction::Auto,
    )
}

fn zrevrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Rank, Direction::Reverse)
}

fn zrangebyscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Score, Direction::Forward)
}

fn zrevrangebyscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Score, Direction::Reverse)
}

fn zrangebylex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Lex, Direction::Forward)
}

fn zrevrangebylex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Lex, Direction::Reverse)
}

/// A parsed range of one of the three kinds.
enum Range {
    Rank(i64, i64),
    Score(ScoreRange),
    Lex(LexRange),
}

/// `zrangeGenericCommand`: ZRANGE, ZRANGESTORE and the older forms.
/// `src` is the index of the source key; `dst` is set for ZRANGESTORE.
fn zrange_generic(
    ctx: &mut Ctx,
    args: &[Vec<u8>],
    src: usize,
    dst: Option<&[u8]>,
    mut kind: RangeKind,
    mut dir: Direction,
) -> Frame {
    let store = dst.is_some();
    let mut withscores = false;
    let mut offset: i64 = 0;
    let mut limit: i64 = -1;
    let mut j = src + 3;
    while j < args.len() {
        let left = args.len() - j - 1;
        let a = &args[j];
        if !store && opt_is(a, "withscores") {
            withscores = true;
        } else if opt_is(a, "limit") && left >= 2 {
            match (arg_i64(&args[j + 1]), arg_i64(&args[j + 2])) {
                (Ok(o), Ok(l)) => (offset, limit) = (o, l),
                (Err(e), _) | (_, Err(e)) => return e,
            }
            j += 2;
        } else if dir == Direction::Auto && opt_is(a, "rev") {
            dir = Direction::Reverse;
        } else if kind == RangeKind::Auto && opt_is(a, "bylex") {
            kind = RangeKind::Lex;
        } else if kind == RangeKind::Auto && opt_is(a, "byscore") {
            kind = RangeKind::Score;
        } else {
            return Frame::err(SYNTAX);
        }
        j += 1;
    }
    if dir == Direction::Auto {
        dir = Direction::Forward;
    }
    if kind == RangeKind::Auto {
        kind = RangeKind::Rank;
    }
    if limit != -1 && kind == RangeKind::Rank {
        return Frame::err(
            "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX",
        );
    }
    if withscores && kind == RangeKind::Lex {
        return Frame::err("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    }
    let reverse = dir == Direction::Reverse;
    let (mut min, mut max) = (&args[src + 1], &args[src + 2]);
    if reverse && kind != RangeKind::Rank {
        std::mem::swap(&mut min, &mut max);
    }
    let range = match kind {
        RangeKind::Score => match parse_score_range(min, max) {
            Ok(r) => Range::Score(r),
            Err(e) => return e,
        },
        RangeKind::Lex => match parse_lex_range(min, max) {
            Ok(r) => Range::Lex(r),
            Err(e) => return e,
        },
        _ => match (arg_i64(min), arg_i64(max)) {
            (Ok(a), Ok(b)) => Range::Rank(a, b),
            (Err(e), _) | (_, Err(e)) => return e,
        },
    };
    let db = ctx.db();
    let key = &args[src];
    match find(ctx, key, false) {
        Found::Wrong => return Frame::err(WRONGTYPE),
        Found::Missing => {
            return match dst {
                Some(dst) => store_result(ctx, dst, None),
                None => Frame::Array(Vec::new()),
            }
        }
        Found::ZSet => {}
    }
    let Some(z) = peek(ctx.srv, db, key) else {
        return Frame::Array(Vec::new());
    };
    let (pairs, rank_len) = match &range {
        Range::Rank(a, b) => match clamp_ranks(*a, *b, z.len()) {
            None => (Vec::new(), 0),
            Some((s, e)) => (z.range_by_rank(s, e, reverse), e - s + 1),
        },
        Range::Score(r) => (z.range_by_score(r, offset, limit, reverse), 0),
        Range::Lex(r) => (z.range_by_lex(r, offset, limit, reverse), 0),
    };
    let Some(dst) = dst else {
        return pairs_reply(pairs, withscores, ctx.client.resp >= 3);
    };
    // `zrangeResultBeginStore`: sized by the rank count when known (7.2.5
    // fixed the unknown case, which 7.2.0-7.2.4 turned into a skiplist).
    let lim = limits(&ctx.srv.config);
    let rng = &mut ctx.srv.rng;
    let result = (!pairs.is_empty()).then(|| {
        let mut out = ZSet::create(rank_len, 0, lim, rng);
        for (m, s) in &pairs {
            out.push_new(m, *s, lim, rng);
        }
        out
    });
    store_result(ctx, dst, result)
}

fn zcount(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let range = match parse_score_range(&args[2], &args[3]) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let db = ctx.db();
    match find(ctx, &args[1], false) {
        Found::Missing => Frame::Integer(0),
        Found::Wrong => Frame::err(WRONGTYPE),
        Found::ZSet => {
            Frame::Integer(peek(ctx.srv, db, &args[1]).map_or(0, |z| z.count_in_range(&range)))
        }
    }
}

fn zlexcount(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let range = match parse_lex_range(&args[2], &args[3]) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let db = ctx.db();
    match find(ctx, &args[1], false) {
        Found::Missing => Frame::Integer(0),
        Found::Wrong => Frame::err(WRONGTYPE),
        Found::ZSet => {
            Frame::Integer(peek(ctx.srv, db, &args[1]).map_or(0, |z| z.count_in_lex(&range)))
        }
    }
}

// ---------------------------------------------------------------------------
// Removals.

fn zrem(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let key = &args[1];
    match find(ctx, key, true) {
        Found::Missing => return Frame::Integer(0),
        Found::Wrong => return Frame::err(WRONGTYPE),
        Found::ZSet => {}
    }
    let deleted = update(ctx.srv, db, key, |z, _, _| {
        let mut deleted = 0;
        for m in &args[2..] {
            if z.remove(m) {
                deleted += 1;
            }
            if z.is_empty() {
                break;
            }
        }
        (deleted, deleted > 0)
    })
    .unwrap_or(0);
    delete_if_empty(ctx.srv, db, key);
    Frame::Integer(deleted)
}

fn zremrangebyscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match parse_score_range(&args[2], &args[3]) {
        Ok(r) => zremrange(ctx, args, Range::Score(r)),
        Err(e) => e,
    }
}

fn zremrangebylex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match parse_lex_range(&args[2], &args[3]) {
        Ok(r) => zremrange(ctx, args, Range::Lex(r)),
        Err(e) => e,
    }
}

fn zremrangebyrank(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match (arg_i64(&args[2]), arg_i64(&args[3])) {
        (Ok(a), Ok(b)) => zremrange(ctx, args, Range::Rank(a, b)),
        (Err(e), _) | (_, Err(e)) => e,
    }
}

/// `zremrangeGenericCommand`.
fn zremrange(ctx: &mut Ctx, args: &[Vec<u8>], range: Range) -> Frame {
    let db = ctx.db();
    let key = &args[1];
    match find(ctx, key, true) {
        Found::Missing => return Frame::Integer(0),
        Found::Wrong => return Frame::err(WRONGTYPE),
        Found::ZSet => {}
    }
    let deleted = update(ctx.srv, db, key, |z, _, _| {
        let n = match &range {
            Range::Rank(a, b) => match clamp_ranks(*a, *b, z.len()) {
                Some((s, e)) => z.remove_rank_range(s, e),
                None => 0,
            },
            Range::Score(r) => z.remove_score_range(r),
            Range::Lex(r) => z.remove_lex_range(r),
        };
        (n, n > 0)
    })
    .unwrap_or(0);
    delete_if_empty(ctx.srv, db, key);
    Frame::Integer(deleted as i64)
}

// ---------------------------------------------------------------------------
// Pops.

fn zpopmin(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zpop_minmax(ctx, args, false)
}

fn zpopmax(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zpop_minmax(ctx, args, true)
}

/// `zpopMinMaxCommand`.
fn zpop_minmax(ctx: &mut Ctx, args: &[Vec<u8>], max: bool) -> Frame {
    if args.len() > 3 {
        return Frame::err(SYNTAX);
    }
    let count = match args.get(2) {
        Some(a) => match positive_arg(a, None) {
            Ok(n) => Some(n),
            Err(e) => return e,
        },
        None => None,
    };
    let nested = ctx.client.resp >= 3 && count.is_some();
    zpop_generic(ctx, &args[1..2], max, count, false, nested)
}

/// `genericZpopCommand`: pops from the first existing key of `keys`.
/// `count` `None` is the plain single pop; `emit_key` is ZMPOP's shape.
fn zpop_generic(
    ctx: &mut Ctx,
    keys: &[Vec<u8>],
    max: bool,
    count: Option<i64>,
    emit_key: bool,
    nested: bool,
) -> Frame {
    let db = ctx.db();
    let mut chosen = None;
    for key in keys {
        match find(ctx, key, true) {
            Found::Missing => continue,
            Found::Wrong => return Frame::err(WRONGTYPE),
            Found::ZSet => {
                chosen = Some(key);
                break;
            }
        }
    }
    let Some(key) = chosen else {
        return if emit_key {
            Frame::NullArray
        } else {
            Frame::Array(Vec::new())
        };
    };
    if count == Some(0) {
        return Frame::Array(Vec::new());
    }
    let count = count.unwrap_or(1).max(1) as u64;
    let popped = update(ctx.srv, db, key, |z, _, _| {
        let n = count.min(z.len() as u64) as usize;
        let out: Vec<(Vec<u8>, f64)> = (0..n).filter_map(|_| z.pop(max)).collect();
        let changed = !out.is_empty();
        (out, changed)
    })
    .unwrap_or_default();
    delete_if_empty(ctx.srv, db, key);
    let items: Vec<Frame> = if nested {
        popped
            .into_iter()
            .map(|(m, s)| Frame::Array(vec![Frame::Bulk(m), Frame::Double(s)]))
            .collect()
    } else {
        popped
            .into_iter()
            .flat_map(|(m, s)| [Frame::Bulk(m), Frame::Double(s)])
            .collect()
    };
    if emit_key {
        Frame::Array(vec![Frame::Bulk(key.clone()), Frame::Array(items)])
    } else {
        Frame::Array(items)
    }
}

/// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count].
fn zmpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let numkeys = match ranged_long(
        &args[1],
        1,
        i64::MAX,
        "ERR numkeys should be greater than 0",
    ) {
        Ok(n) => n as u64,
        Err(e) => return e,
    };
    let where_idx = match usize::try_from(numkeys).ok().and_then(|n| n.checked_add(2)) {
        Some(i) if i < args.len() => i,
        _ => return Frame::err(SYNTAX),
    };
    let max = if opt_is(&args[where_idx], "min") {
        false
    } else if opt_is(&args[where_idx], "max") {
        true
    } else {
        return Frame::err(SYNTAX);
    };
    let mut count: Option<i64> = None;
    let mut j = where_idx + 1;
    while j < args.len() {
        let more = args.len() - 1 - j;
        if count.is_none() && opt_is(&args[j], "count") && more > 0 {
            j += 1;
            match ranged_long(&args[j], 1, i64::MAX, "ERR count should be greater than 0") {
                Ok(n) => count = Some(n),
                Err(e) => return e,
            }
        } else {
            return Frame::err(SYNTAX);
        }
        j += 1;
    }
    let count = count.unwrap_or(1);
    zpop_generic(ctx, &args[2..where_idx], max, Some(count), true, true)
}

// ---------------------------------------------------------------------------
// ZUNION, ZINTER, ZDIFF, ZINTERCARD and the STORE forms.

#[derive(Clone, Copy, PartialEq, Eq)]
enum SetOp {
    Union,
    Inter,
    Diff,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Aggregate {
    Sum,
    Min,
    Max,
}

/// `zunionInterAggregate`: a SUM that gives NaN (inf + -inf) counts as 0.
fn aggregate(target: &mut f64, val: f64, how: Aggregate) {
    match how {
        Aggregate::Sum => {
            *target += val;
            if target.is_nan() {
                *target = 0.0;
            }
        }
        Aggregate::Min => {
            if val < *target {
                *target = val;
            }
        }
        Aggregate::Max => {
            if val > *target {
                *target = val;
            }
        }
    }
}

/// One input of a set operation, as `zsetopsrc` sees it.
struct Source<'a> {
    value: Option<&'a Value>,
    /// Index of the key among the inputs, to spot the same key given twice.
    key_index: usize,
    weight: f64,
}

impl Source<'_> {
    fn len(&self) -> usize {
        match self.value {
            Some(Value::ZSet(z)) => z.len(),
            Some(Value::Set(s)) => s.len(),
            _ => 0,
        }
    }

    /// Elements in `zuiNext` order: sorted sets from the highest score down,
    /// sets in their own order with score 1.
    fn elements(&self) -> Vec<(Vec<u8>, f64)> {
        match self.value {
            Some(Value::ZSet(z)) => z
                .entries()
                .into_iter()
                .rev()
                .map(|(m, s)| (m.to_vec(), s))
                .collect(),
            Some(Value::Set(s)) => set_members(s).into_iter().map(|m| (m, 1.0)).collect(),
            _ => Vec::new(),
        }
    }

    /// `zuiFind`.
    fn find(&self, member: &[u8]) -> Option<f64> {
        match self.value {
            Some(Value::ZSet(z)) => z.score(member),
            Some(Value::Set(s)) => set_contains(s, member).then_some(1.0),
            _ => None,
        }
    }
}

/// The members of a set, in its iteration order.
fn set_members(s: &crate::keyspace::types::set::Set) -> Vec<Vec<u8>> {
    s.members()
}

/// `setTypeIsMember`.
fn set_contains(s: &crate::keyspace::types::set::Set, member: &[u8]) -> bool {
    s.contains(member)
}

fn zunion(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, None, 1, SetOp::Union, false)
}

fn zinter(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, None, 1, SetOp::Inter, false)
}

fn zdiff(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, None, 1, SetOp::Diff, false)
}

fn zintercard(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, None, 1, SetOp::Inter, true)
}

fn zunionstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, Some(&args[1]), 2, SetOp::Union, false)
}

fn zinterstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, Some(&args[1]), 2, SetOp::Inter, false)
}

fn zdiffstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, Some(&args[1]), 2, SetOp::Diff, false)
}

/// `zunionInterDiffGenericCommand`.
fn zsetop(
    ctx: &mut Ctx,
    args: &[Vec<u8>],
    dst: Option<&[u8]>,
    numkeys_idx: usize,
    op: SetOp,
    card_only: bool,
) -> Frame {
    let setnum = match arg_i64(&args[numkeys_idx]) {
        Ok(n) => n,
        Err(e) => return e,
    };
    if setnum < 1 {
        return Frame::err(format!(
            "ERR at least 1 input key is needed for '{}' command",
            ctx.cmd.name
        ));
    }
    let first_key = numkeys_idx + 1;
    if setnum > (args.len() - first_key) as i64 {
        return Frame::err(SYNTAX);
    }
    let setnum = setnum as usize;
    let keys = &args[first_key..first_key + setnum];
    let db = ctx.db();
    for key in keys {
        if let Some(o) = ctx.srv.lookup_read(db, key) {
            if !matches!(o.value, Value::ZSet(_) | Value::Set(_)) {
                return Frame::err(WRONGTYPE);
            }
        }
    }
    let mut weights = vec![1.0; setnum];
    let mut how = Aggregate::Sum;
    let mut withscores = false;
    let mut limit: i64 = 0;
    let mut j = first_key + setnum;
    while j < args.len() {
        let remaining = args.len() - j;
        let a = &args[j];
        if op != SetOp::Diff && !card_only && remaining > setnum && opt_is(a, "weights") {
            for (i, w) in weights.iter_mut().enumerate() {
                match string2d(&args[j + 1 + i]) {
                    Some(v) => *w = v,
                    None => return Frame::err("ERR weight value is not a float"),
                }
            }
            j += 1 + setnum;
        } else if op != SetOp::Diff && !card_only && remaining >= 2 && opt_is(a, "aggregate") {
            let w = &args[j + 1];
            how = if opt_is(w, "sum") {
                Aggregate::Sum
            } else if opt_is(w, "min") {
                Aggregate::Min
            } else if opt_is(w, "max") {
                Aggregate::Max
            } else {
                return Frame::err(SYNTAX);
            };
            j += 2;
        } else if dst.is_none() && !card_only && opt_is(a, "withscores") {
            withscores = true;
            j += 1;
        } else if card_only && remaining >= 2 && opt_is(a, "limit") {
            match positive_arg(&args[j + 1], Some("LIMIT can't be negative")) {
                Ok(n) => limit = n,
                Err(e) => return e,
            }
            j += 2;
        } else {
            return Frame::err(SYNTAX);
        }
    }

    let srv = &*ctx.srv;
    let mut src: Vec<Source> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Source {
            value: srv.dbs[db].get(k).map(|o| &o.value),
            key_index: i,
            weight: weights[i],
        })
        .collect();
    // Same key twice: the same object, as Redis compares pointers.
    for i in 0..src.len() {
        if let Some(first) = keys[..i].iter().position(|k| *k == keys[i]) {
            src[i].key_index = first;
        }
    }
    if op != SetOp::Diff {
        // `qsort` by cardinality; glibc's merge sort keeps ties in order.
        src.sort_by_key(Source::len);
    }

    let mut result: Vec<(Vec<u8>, f64)> = Vec::new();
    let mut cardinality: i64 = 0;
    match op {
        SetOp::Inter => {
            if src[0].len() > 0 {
                for (m, s0) in src[0].elements() {
                    let mut score = src[0].weight * s0;
                    if score.is_nan() {
                        score = 0.0;
                    }
                    let mut all = true;
                    for other in &src[1..] {
                        let value = if other.key_index == src[0].key_index {
                            Some(s0)
                        } else {
                            other.find(&m)
                        };
                        match value {
                            Some(v) => aggregate(&mut score, v * other.weight, how),
                            None => {
                                all = false;
                                break;
                            }
                        }
                    }
                    if !all {
                        continue;
                    }
                    if card_only {
                        cardinality += 1;
                        if limit > 0 && cardinality >= limit {
                            break;
                        }
                    } else {
                        result.push((m, score));
                    }
                }
            }
        }
        SetOp::Union => {
            let mut acc: std::collections::BTreeMap<Vec<u8>, f64> = Default::default();
            for s in &src {
                for (m, v) in s.elements() {
                    let mut score = s.weight * v;
                    if score.is_nan() {
                        score = 0.0;
                    }
                    match acc.get_mut(&m) {
                        Some(t) => aggregate(t, score, how),
                        None => {
                            acc.insert(m, score);
                        }
                    }
                }
            }
            result = acc.into_iter().collect();
        }
        SetOp::Diff => {
            if src[0].len() > 0 {
                let same_as_first = src[1..].iter().any(|s| s.key_index == src[0].key_index);
                if !same_as_first {
                    for (m, s0) in src[0].elements() {
                        if src[1..].iter().all(|s| s.find(&m).is_none()) {
                            result.push((m, s0));
                        }
                    }
                }
            }
        }
    }
    if card_only {
        return Frame::Integer(cardinality);
    }
    result.sort_by(|a, b| crate::keyspace::types::skiplist::cmp_entry(a.1, &a.0, b.1, &b.0));
    match dst {
        None => pairs_reply(result, withscores, ctx.client.resp >= 3),
        Some(dst) => {
            let lim = limits(&ctx.srv.config);
            let z = (!result.is_empty()).then(|| build_zset(result, lim, &mut ctx.srv.rng));
            store_result(ctx, dst, z)
        }
    }
}

/// A new sorted set from ordered pairs in the best encoding
/// (`zsetConvertToListpackIfNeeded` on a freshly built skiplist).
fn build_zset(pairs: Vec<(Vec<u8>, f64)>, lim: Limits, rng: &mut fastrand::Rng) -> ZSet {
    let maxlen = pairs.iter().map(|(m, _)| m.len()).max().unwrap_or(0);
    let total: usize = pairs.iter().map(|(m, _)| m.len()).sum();
    let fits = pairs.len() <= lim.entries && maxlen <= lim.value && total <= 1 << 30;
    let mut z = if fits {
        ZSet::new_listpack()
    } else {
        ZSet::new_skiplist(rng)
    };
    let unlimited = Limits {
        entries: usize::MAX,
        value: usize::MAX,
    };
    for (m, s) in &pairs {
        z.push_new(m, *s, unlimited, rng);
    }
    z
}

// ---------------------------------------------------------------------------
// ZRANDMEMBER, ZSCAN.

fn zrandmember(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let key = &args[1];
    if args.len() >= 3 {
        let l = match count_arg(&args[2]) {
            Ok(l) => l,
            Err(e) => return e,
        };
        let withscores = match args.get(3) {
            _ if args.len() > 4 => return Frame::err(SYNTAX),
            Some(a) if opt_is(a, "withscores") => true,
            Some(_) => return Frame::err(SYNTAX),
            None => false,
        };
        if withscores && !(-(i64::MAX / 2)..=i64::MAX / 2).contains(&l) {
            return Frame::err("ERR value is out of range");
        }
        return zrandmember_count(ctx, key, l, withscores);
    }
    match find(ctx, key, false) {
        Found::Missing => Frame::Null,
        Found::Wrong => Frame::err(WRONGTYPE),
        Found::ZSet => {
            let Server { dbs, rng, .. } = &mut *ctx.srv;
            match dbs[db].get(key).map(|o| &o.value) {
                Some(Value::ZSet(z)) => z.random(rng).map_or(Frame::Null, |(m, _)| Frame::Bulk(m)),
                _ => Frame::Null,
            }
        }
    }
}

/// `zrandmemberWithCountCommand`.
fn zrandmember_count(ctx: &mut Ctx, key: &[u8], l: i64, withscores: bool) -> Frame {
    let db = ctx.db();
    match find(ctx, key, false) {
        Found::Missing => return Frame::Array(Vec::new()),
        Found::Wrong => return Frame::err(WRONGTYPE),
        Found::ZSet => {}
    }
    let resp3 = ctx.client.resp >= 3;
    let count = l.unsigned_abs();
    let uniq = l >= 0;
    if count == 0 {
        return Frame::Array(Vec::new());
    }
    let Server { dbs, rng, .. } = &mut *ctx.srv;
    let Some(Value::ZSet(z)) = dbs[db].get(key).map(|o| &o.value) else {
        return Frame::Array(Vec::new());
    };
    let size = z.len() as u64;
    // Case 1: repeats allowed (or a single pick): `count` independent draws.
    if !uniq || count == 1 {
        if count > MAX_RANDOM_REPLY {
            return too_many_random();
        }
        let picks = (0..count).filter_map(|_| z.random(rng)).collect();
        return pairs_reply(picks, withscores, resp3);
    }
    // Case 2: everything, in the order `zuiNext` walks (highest first).
    if count >= size {
        let all = z
            .entries()
            .into_iter()
            .rev()
            .map(|(m, s)| (m.to_vec(), s))
            .collect();
        return pairs_reply(all, withscores, resp3);
    }
    let count = count as usize;
    // Case 2.5: a listpack samples distinct pairs in order.
    if let Some(picks) = z.random_unique_in_order(count, rng) {
        return pairs_reply(picks, withscores, resp3);
    }
    // Case 3: most of the set: copy it, then drop random members.
    if count.saturating_mul(3) > size as usize {
        let mut d: Dict<f64> = Dict::new(rng.u64(..));
        for (m, s) in z.entries().into_iter().rev() {
            d.insert(m, s);
        }
        while d.len() > count {
            let Some(victim) = d.fair_random_entry(rng).map(|(m, _)| m.to_vec()) else {
                break;
            };
            d.remove(&victim);
        }
        let picks = d.iter().map(|(m, s)| (m.to_vec(), *s)).collect();
        return pairs_reply(picks, withscores, resp3);
    }
    // Case 4: a few of many: draw until enough distinct ones.
    let mut seen: Dict<()> = Dict::new(rng.u64(..));
    let mut picks = Vec::with_capacity(count);
    while picks.len() < count {
        let Some((m, s)) = z.random(rng) else {
            break;
        };
        if seen.insert(&m, ()).is_none() {
            picks.push((m, s));
        }
    }
    pairs_reply(picks, withscores, resp3)
}

/// ZSCAN key cursor [MATCH pattern] [COUNT count]: a listpack comes back
/// whole with its scores as it stores them; a skiplist's dict is walked
/// like SCAN, scores printed `%.17g` (`ld2string`).
fn zscan(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let cursor = match scan_cursor(&args[2]) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let db = ctx.db();
    let key = &args[1];
    match find(ctx, key, false) {
        Found::Missing => return scan_reply(0, Vec::new()),
        Found::Wrong => return Frame::err(WRONGTYPE),
        Found::ZSet => {}
    }
    let opts = match scan_opts(args) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let Some(z) = peek(ctx.srv, db, key) else {
        return scan_reply(0, Vec::new());
    };
    let mut items = Vec::new();
    if z.encoding() == "listpack" {
        for (m, s) in z.entries() {
            if opts.matches(m) {
                items.push(m.to_vec());
                items.push(d2string(s).into_bytes());
            }
        }
        return scan_reply(0, items);
    }
    let next = scan_steps(cursor, opts.count, |c| {
        let mut seen = 0;
        let next = z
            .scan_step(c, |m, s| {
                seen += 1;
                if opts.matches(m) {
                    items.push(m.to_vec());
                    items.push(g17(s).into_bytes());
                }
            })
            .unwrap_or(0);
        (next, seen)
    });
    scan_reply(next, items)
}

#[cfg(test)]
mod tests {
    use crate::{Engine, Frame};

    fn run(e: &mut Engine, c: u64, line: &str) -> Frame {
        let args = crate::proto::resp::split_args(line.as_bytes()).expect("balanced quotes");
        e.execute(c, &args)
    }

    fn encoding(e: &Engine, key: &str) -> &'static str {
        e.server().dbs[0]
            .get(key.as_bytes())
            .map(|o| o.value.encoding())
            .unwrap_or("none")
    }

    #[test]
    fn encodings_at_the_thresholds() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        for i in 0..128 {
            run(&mut e, c, &format!("ZADD z {i} m{i}"));
        }
        assert_eq!(encoding(&e, "z"), "listpack");
        run(&mut e, c, "ZADD z 1000 m128");
        assert_eq!(encoding(&e, "z"), "skiplist");
        run(&mut e, c, &format!("ZADD v 1 {}", "x".repeat(64)));
        assert_eq!(encoding(&e, "v"), "listpack");
        run(&mut e, c, &format!("ZADD v 1 {}", "y".repeat(65)));
        assert_eq!(encoding(&e, "v"), "skiplist");
        // A new key sized by the first member, and by the pair count.
        run(&mut e, c, &format!("ZADD w 1 {} 2 a", "x".repeat(65)));
        assert_eq!(encoding(&e, "w"), "skiplist");
        // Stores pick the best encoding for their result.
        assert_eq!(run(&mut e, c, "ZRANGESTORE d z 0 9"), Frame::Integer(10));
        assert_eq!(encoding(&e, "d"), "listpack");
        assert_eq!(
            run(&mut e, c, "ZRANGESTORE d z -inf +inf BYSCORE"),
            Frame::Integer(129)
        );
        assert_eq!(encoding(&e, "d"), "skiplist");
        assert_eq!(
            run(&mut e, c, "ZUNIONSTORE u 1 z WEIGHTS 2"),
            Frame::Integer(129)
        );
        assert_eq!(encoding(&e, "u"), "skiplist");
        run(&mut e, c, "ZREMRANGEBYRANK u 0 99");
        assert_eq!(encoding(&e, "u"), "skiplist", "removals never convert back");
        assert_eq!(run(&mut e, c, "ZINTERSTORE i 2 u z"), Frame::Integer(29));
        assert_eq!(encoding(&e, "i"), "listpack");
    }

    #[test]
    fn config_set_changes_thresholds() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        assert_eq!(
            run(&mut e, c, "CONFIG SET zset-max-listpack-entries 2"),
            Frame::ok()
        );
        run(&mut e, c, "ZADD z 1 a 2 b");
        assert_eq!(encoding(&e, "z"), "listpack");
        run(&mut e, c, "ZADD z 3 c");
        assert_eq!(encoding(&e, "z"), "skiplist");
        assert_eq!(
            run(&mut e, c, "CONFIG SET zset-max-ziplist-value 3"),
            Frame::ok()
        );
        assert_eq!(
            run(&mut e, c, "CONFIG GET zset-max-listpack-value"),
            Frame::Map(vec![(
                Frame::bulk("zset-max-listpack-value"),
                Frame::bulk("3")
            )])
        );
        run(&mut e, c, "ZADD y 1 abcd");
        assert_eq!(encoding(&e, "y"), "skiplist");
        run(&mut e, c, "ZADD x 1 abc");
        assert_eq!(encoding(&e, "x"), "listpack");
        // ZADD of more pairs than the limit converts first, even as no-ops.
        run(&mut e, c, "ZADD x XX 1 q 1 r 1 s");
        assert_eq!(encoding(&e, "x"), "skiplist");
    }

    #[test]
    fn memory_is_counted_as_the_set_changes() {
        let mut e = Engine::new(7);
        let c = e.connect("t");
        // The keyspace's first buckets are not part of the set's cost.
        run(&mut e, c, "SET other v");
        let base = e.server().used_memory();
        for i in 0..300 {
            run(&mut e, c, &format!("ZADD z {} member:{i}", i % 17));
            run(&mut e, c, &format!("ZINCRBY z 1.5 member:{}", i / 2));
        }
        let grown = e.server().used_memory();
        assert!(grown > base + 300 * 40, "{base} -> {grown}");
        for i in 0..300 {
            run(&mut e, c, &format!("ZREM z member:{i}"));
        }
        assert_eq!(e.server().used_memory(), base, "everything given back");
        if let Some(crate::keyspace::object::Value::ZSet(z)) =
            e.server().dbs[0].get(b"z").map(|o| &o.value)
        {
            panic!("emptied set still there: {:?}", z.len());
        }
    }

    #[test]
    fn random_members_are_seeded() {
        let picks = |seed| {
            let mut e = Engine::new(seed);
            let c = e.connect("t");
            for i in 0..500 {
                run(&mut e, c, &format!("ZADD z {i} m{i}"));
            }
            (0..5)
                .map(|_| run(&mut e, c, "ZRANDMEMBER z 3"))
                .collect::<Vec<_>>()
        };
        assert_eq!(picks(5), picks(5));
        assert_ne!(picks(5), picks(6));
    }

    /// Random commands keep every set's invariants: order, dict and skiplist
    /// in step, and the O(1) memory counter equal to a recount.
    #[test]
    fn invariants_hold_through_random_commands() {
        let mut e = Engine::new(11);
        let c = e.connect("t");
        run(&mut e, c, "CONFIG SET zset-max-listpack-entries 8");
        let mut rng = fastrand::Rng::with_seed(4);
        let members = [
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "10", "-3",
        ];
        let scores = ["0", "1", "-1", "2.5", "inf", "-inf", "-0", "7"];
        let keys = ["x", "y", "z"];
        for step in 0..6000 {
            let k = keys[rng.usize(..keys.len())];
            let k2 = keys[rng.usize(..keys.len())];
            let m = members[rng.usize(..members.len())];
            let sc = scores[rng.usize(..scores.len())];
            let line = match rng.u8(..12) {
                0..=3 => format!("ZADD {k} {sc} {m} {sc} {m}{m}"),
                4 => format!("ZINCRBY {k} {sc} {m}"),
                5 => format!("ZREM {k} {m}"),
                6 => format!("ZREMRANGEBYSCORE {k} -1 2.5"),
                7 => format!("ZREMRANGEBYRANK {k} 1 3"),
                8 => format!("ZPOPMIN {k} 2"),
                9 => format!("ZUNIONSTORE {k} 2 {k2} {k}"),
                10 => format!("ZRANGESTORE {k} {k2} 0 5"),
                _ => format!("ZREMRANGEBYLEX {k} [a [e"),
            };
            let reply = run(&mut e, c, &line);
            assert!(
                !matches!(&reply, Frame::Error(m) if !m.contains("NaN")),
                "{line}: {reply:?}"
            );
            for key in keys {
                let Some(obj) = e.server().dbs[0].get(key.as_bytes()) else {
                    continue;
                };
                let crate::keyspace::object::Value::ZSet(z) = &obj.value else {
                    panic!("{key} is not a sorted set");
                };
                assert!(!z.is_empty(), "empty set left under {key}");
                z.check()
                    .unwrap_or_else(|err| panic!("step {step} `{line}`: {key}: {err}"));
                if let Some(view) = z.inspect() {
                    assert_eq!(view.len(), z.len() + 1, "inspector: header and every node");
                }
            }
        }
    }

    #[test]
    fn huge_negative_counts_are_refused_not_built() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        run(&mut e, c, "ZADD z 1 a");
        let Frame::Array(v) = run(&mut e, c, "ZRANDMEMBER z -1000000") else {
            panic!("array");
        };
        assert_eq!(v.len(), 1_000_000);
        assert!(run(&mut e, c, "ZRANDMEMBER z -1000001").is_error());
        assert!(run(&mut e, c, "ZRANDMEMBER z -9223372036854775807").is_error());
        // Positive counts are bounded by the set.
        assert_eq!(
            run(&mut e, c, "ZRANDMEMBER z 9223372036854775807"),
            Frame::Array(vec![Frame::bulk("a")])
        );
    }
}
