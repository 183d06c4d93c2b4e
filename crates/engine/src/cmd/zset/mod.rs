//! Sorted-set commands (t_zset.c): the family's table and what its modules share (in-place updates, stores, replies, score and lex ranges); ZADD, member reads, ranges, removals and pops, and the set operations each have a module, with Redis 7.2's parsing, error order, replies and encodings.
//!
//! Error order is Redis': option syntax, then number parsing, then the key
//! (WRONGTYPE), then the work, except where Redis looks keys up first
//! (ZUNION and friends read every input before parsing WEIGHTS). Reads count
//! keyspace hits and misses, writes do not. A write that changes nothing a
//! client can see does not signal the key (WATCH survives), and a set
//! emptied by a removal is deleted. Scores are printed by [`Frame::Double`]
//! (Redis 7.2's `d2string`), except ZSCAN of a skiplist, which prints
//! `%.17g` as Redis does there.

pub(in crate::cmd) mod add;
mod members;
mod range;
mod remove;
pub(in crate::cmd) use remove::zpop_propagated;
mod setops;
#[cfg(test)]
mod tests;

use crate::cmd::args::cstr;
use crate::cmd::table::{commands, Command, Ctx};
use crate::cmd::typed::{self, peek};
use crate::keyspace::object::Value;
use crate::keyspace::types::zset::{Bounds, LexItem, LexRange, Limits, ScoreRange, ZSet};
use crate::num::double::strtod;
use crate::proto::resp::Frame;
use crate::server::config::Config;
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;
use crate::server::Server;

pub(in crate::cmd) static COMMANDS: &[Command] = commands! { group: "sorted-set";
    "zadd" => add::zadd, arity: -4, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, FAST], since: "1.2.0",
        syntax: "ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]", summary: "Adds members with scores to a sorted set, or updates their scores; replies with how many were added.";
    "zincrby" => add::zincrby, arity: 4, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, FAST], since: "1.2.0",
        syntax: "ZINCRBY key increment member", summary: "Adds to a member's score (a missing member starts at 0); replies with the new score.";
    "zcard" => members::zcard, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SORTEDSET, FAST], since: "1.2.0",
        syntax: "ZCARD key", summary: "Replies with the number of members of a sorted set.";
    "zscore" => members::zscore, arity: 3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SORTEDSET, FAST], since: "1.2.0",
        syntax: "ZSCORE key member", summary: "Replies with the score of a member.";
    "zmscore" => members::zmscore, arity: -3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SORTEDSET, FAST], since: "6.2.0",
        syntax: "ZMSCORE key member [member ...]", summary: "Replies with the scores of several members, nil where missing.";
    "zrank" => members::zrank, arity: -3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SORTEDSET, FAST], since: "2.0.0",
        syntax: "ZRANK key member [WITHSCORE]", summary: "Replies with a member's 0-based position from the lowest score, and optionally its score.";
    "zrevrank" => members::zrevrank, arity: -3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SORTEDSET, FAST], since: "2.0.0",
        syntax: "ZREVRANK key member [WITHSCORE]", summary: "Replies with a member's 0-based position from the highest score, and optionally its score.";
    "zrange" => range::zrange, arity: -4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SORTEDSET, SLOW], since: "1.2.0",
        syntax: "ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]", summary: "Replies with members in a range of ranks, scores or lexicographic values.";
    "zrangestore" => range::zrangestore, arity: -5, flags: [WRITE, DENYOOM], keys: (1, 2, 1), acl: [WRITE, SORTEDSET, SLOW], since: "6.2.0",
        syntax: "ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]", summary: "Stores a range of a sorted set in another key; replies with its size.";
    "zrevrange" => range::zrevrange, arity: -4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SORTEDSET, SLOW], since: "1.2.0",
        syntax: "ZREVRANGE key start stop [WITHSCORES]", summary: "Replies with members in a range of ranks, highest score first (deprecated: ZRANGE ... REV).";
    "zrangebyscore" => range::zrangebyscore, arity: -4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SORTEDSET, SLOW], since: "1.0.5",
        syntax: "ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]", summary: "Replies with members within a score range (deprecated: ZRANGE ... BYSCORE).";
    "zrevrangebyscore" => range::zrevrangebyscore, arity: -4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SORTEDSET, SLOW], since: "2.2.0",
        syntax: "ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]", summary: "Replies with members within a score range, highest first (deprecated: ZRANGE ... BYSCORE REV).";
    "zrangebylex" => range::zrangebylex, arity: -4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SORTEDSET, SLOW], since: "2.8.9",
        syntax: "ZRANGEBYLEX key min max [LIMIT offset count]", summary: "Replies with members within a lexicographic range (deprecated: ZRANGE ... BYLEX).";
    "zrevrangebylex" => range::zrevrangebylex, arity: -4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SORTEDSET, SLOW], since: "2.8.9",
        syntax: "ZREVRANGEBYLEX key max min [LIMIT offset count]", summary: "Replies with members within a lexicographic range, in reverse (deprecated: ZRANGE ... BYLEX REV).";
    "zcount" => range::zcount, arity: 4, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SORTEDSET, FAST], since: "2.0.0",
        syntax: "ZCOUNT key min max", summary: "Counts the members within a score range.";
    "zlexcount" => range::zlexcount, arity: 4, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SORTEDSET, FAST], since: "2.8.9",
        syntax: "ZLEXCOUNT key min max", summary: "Counts the members within a lexicographic range.";
    "zrem" => remove::zrem, arity: -3, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, FAST], since: "1.2.0",
        syntax: "ZREM key member [member ...]", summary: "Removes members, and the key once empty; replies with how many were removed.";
    "zremrangebyscore" => remove::zremrangebyscore, arity: 4, flags: [WRITE], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, SLOW], since: "1.2.0",
        syntax: "ZREMRANGEBYSCORE key min max", summary: "Removes the members within a score range; replies with how many.";
    "zremrangebyrank" => remove::zremrangebyrank, arity: 4, flags: [WRITE], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, SLOW], since: "2.0.0",
        syntax: "ZREMRANGEBYRANK key start stop", summary: "Removes the members within a range of ranks; replies with how many.";
    "zremrangebylex" => remove::zremrangebylex, arity: 4, flags: [WRITE], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, SLOW], since: "2.8.9",
        syntax: "ZREMRANGEBYLEX key min max", summary: "Removes the members within a lexicographic range; replies with how many.";
    "zpopmin" => remove::zpopmin, arity: -2, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, FAST], since: "5.0.0",
        syntax: "ZPOPMIN key [count]", summary: "Removes and replies with the lowest-scored members.";
    "zpopmax" => remove::zpopmax, arity: -2, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, FAST], since: "5.0.0",
        syntax: "ZPOPMAX key [count]", summary: "Removes and replies with the highest-scored members.";
    "zmpop" => remove::zmpop, arity: -4, flags: [WRITE, MOVABLEKEYS], acl: [WRITE, SORTEDSET, SLOW], since: "7.0.0",
        syntax: "ZMPOP numkeys key [key ...] (MIN | MAX) [COUNT count]", summary: "Pops the lowest- or highest-scored members of the first non-empty sorted set among several.";
    "zunion" => setops::zunion, arity: -3, flags: [READONLY, MOVABLEKEYS], acl: [READ, SORTEDSET, SLOW], since: "6.2.0",
        syntax: "ZUNION numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE (SUM | MIN | MAX)] [WITHSCORES]", summary: "Replies with the union of sorted sets (sets count as score 1), scores weighted and aggregated.";
    "zinter" => setops::zinter, arity: -3, flags: [READONLY, MOVABLEKEYS], acl: [READ, SORTEDSET, SLOW], since: "6.2.0",
        syntax: "ZINTER numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE (SUM | MIN | MAX)] [WITHSCORES]", summary: "Replies with the intersection of sorted sets (sets count as score 1), scores weighted and aggregated.";
    "zdiff" => setops::zdiff, arity: -3, flags: [READONLY, MOVABLEKEYS], acl: [READ, SORTEDSET, SLOW], since: "6.2.0",
        syntax: "ZDIFF numkeys key [key ...] [WITHSCORES]", summary: "Replies with the members of the first sorted set that are in none of the others.";
    "zintercard" => setops::zintercard, arity: -3, flags: [READONLY, MOVABLEKEYS], acl: [READ, SORTEDSET, SLOW], since: "7.0.0",
        syntax: "ZINTERCARD numkeys key [key ...] [LIMIT limit]", summary: "Counts the members in the intersection of sorted sets, stopping at an optional limit.";
    "zunionstore" => setops::zunionstore, arity: -4, flags: [WRITE, DENYOOM, MOVABLEKEYS], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, SLOW], since: "2.0.0",
        syntax: "ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE (SUM | MIN | MAX)]", summary: "Stores the union of sorted sets in a key; replies with its size.";
    "zinterstore" => setops::zinterstore, arity: -4, flags: [WRITE, DENYOOM, MOVABLEKEYS], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, SLOW], since: "2.0.0",
        syntax: "ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE (SUM | MIN | MAX)]", summary: "Stores the intersection of sorted sets in a key; replies with its size.";
    "zdiffstore" => setops::zdiffstore, arity: -4, flags: [WRITE, DENYOOM, MOVABLEKEYS], keys: (1, 1, 1), acl: [WRITE, SORTEDSET, SLOW], since: "6.2.0",
        syntax: "ZDIFFSTORE destination numkeys key [key ...]", summary: "Stores the difference of sorted sets in a key; replies with its size.";
    "zrandmember" => members::zrandmember, arity: -2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SORTEDSET, SLOW], since: "6.2.0",
        syntax: "ZRANDMEMBER key [count [WITHSCORES]]", summary: "Replies with random members: distinct ones for a positive count, possibly repeated for a negative one.";
    "zscan" => members::zscan, arity: -3, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SORTEDSET, SLOW], since: "2.8.0",
        syntax: "ZSCAN key cursor [MATCH pattern] [COUNT count]", summary: "Walks the members and scores of a sorted set a few at a time with a cursor.";
};

/// The encoding thresholds in force.
pub fn limits(config: &Config) -> Limits {
    Limits {
        entries: usize::try_from(config.zset_max_listpack_entries).unwrap_or(usize::MAX),
        value: usize::try_from(config.zset_max_listpack_value).unwrap_or(usize::MAX),
    }
}

// ---------------------------------------------------------------------------
// Shared helpers.

/// Mutates the sorted set under `key` in place, memory accounted by the
/// database. `f` says whether a client can see a change: only then is the
/// key signalled (WATCH) and the write traced, as Redis skips
/// `signalModifiedKey` when nothing was added, updated or removed.
pub(super) fn update<R>(
    srv: &mut Server,
    db: usize,
    key: &[u8],
    f: impl FnOnce(&mut ZSet, &mut fastrand::Rng, Limits) -> (R, bool),
) -> Option<R> {
    let lim = limits(&srv.config);
    typed::update::<ZSet, _>(srv, db, key, |z, rng| f(z, rng, lim))
}

/// Deletes `key` if its sorted set is now empty (`dbDelete` after a
/// removal, and its `del` event, which follows the removal's own).
pub(in crate::cmd) fn delete_if_empty(srv: &mut Server, db: usize, key: &[u8]) -> bool {
    if peek::<ZSet>(srv, db, key).is_some_and(ZSet::is_empty) {
        srv.delete(db, key, DeleteCause::Del);
        srv.notify(ev::GENERIC, "del", key, db);
        return true;
    }
    false
}

/// The event a pop from the `max` end (else the min end) raises.
pub(in crate::cmd) fn pop_event(max: bool) -> &'static str {
    if max {
        "zpopmax"
    } else {
        "zpopmin"
    }
}

/// Stores a freshly built result under `dst` (`setKey`: overwrite, drop
/// the TTL) and raises `event` (ZSET class), or deletes `dst` when the
/// result is empty (`del`). Replies with its size.
pub(in crate::cmd) fn store_result(
    ctx: &mut Ctx,
    dst: &[u8],
    result: Option<ZSet>,
    event: &str,
) -> Frame {
    let db = ctx.db();
    match result.filter(|z| !z.is_empty()) {
        Some(z) => {
            let n = z.len();
            ctx.srv.lookup_write(db, dst);
            ctx.srv.set_key(db, dst, Value::ZSet(Box::new(z)), false);
            ctx.notify(ev::ZSET, event, dst);
            Frame::Integer(n as i64)
        }
        None => {
            if ctx.srv.delete(db, dst, DeleteCause::Del) {
                ctx.notify(ev::GENERIC, "del", dst);
            }
            Frame::Integer(0)
        }
    }
}

/// Members (and scores) as ZRANGE replies them: a flat array in RESP2,
/// [member, score] pairs in RESP3.
pub(super) fn pairs_reply(pairs: Vec<(Vec<u8>, f64)>, withscores: bool, resp3: bool) -> Frame {
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

/// A range from its two arguments, each read by `end` (the value and
/// whether it is exclusive); `error` if either is malformed.
fn parse_bounds<T>(
    min: &[u8],
    max: &[u8],
    end: fn(&[u8]) -> Option<(T, bool)>,
    error: &str,
) -> Result<Bounds<T>, Frame> {
    match (end(min), end(max)) {
        (Some((min, minex)), Some((max, maxex))) => Ok(Bounds {
            min,
            max,
            minex,
            maxex,
        }),
        _ => Err(Frame::err(error)),
    }
}

/// A score range from two arguments, or "min or max is not a float".
pub(super) fn parse_score_range(min: &[u8], max: &[u8]) -> Result<ScoreRange, Frame> {
    parse_bounds(min, max, parse_score_end, "ERR min or max is not a float")
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
pub(super) fn parse_lex_range(min: &[u8], max: &[u8]) -> Result<LexRange, Frame> {
    parse_bounds(
        min,
        max,
        parse_lex_item,
        "ERR min or max not valid string range item",
    )
}

/// A parsed range of one of the three kinds.
pub(super) enum Range {
    Rank(i64, i64),
    Score(ScoreRange),
    Lex(LexRange),
}
