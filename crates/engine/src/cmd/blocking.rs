//! Blocking commands: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP (t_list.c) and BZPOPMIN, BZPOPMAX, BZMPOP (t_zset.c), on the machinery of [`crate::blocking`].
//!
//! Each runs like its non-blocking sibling when a key has data. Otherwise
//! it blocks, unless it may not (inside EXEC, or driven through
//! `Engine::execute`), in which case it replies at once as on a timeout:
//! a null array, except BLMOVE and BRPOPLPUSH, whose immediate reply is a
//! null bulk (while their reply on a real timeout is a null array, as in
//! Redis). When served, the command is run again from the start, so it
//! re-checks every key and may meet a WRONGTYPE destination, exactly as
//! Redis 7.2 re-processes it.

use super::list::{
    list_cmd, lmove_generic, parse_mpop, pop_range, pop_range_with_key, position_arg, write_lookup,
    End,
};
use super::strings::opt_is;
use super::{Command, Ctx, SYNTAX, WRONGTYPE};
use crate::blocking::{block_for_keys, may_block, timeout_arg, BlockKind};
use crate::keyspace::object::Value;
use crate::proto::resp::Frame;
use crate::server::trace::DeleteCause;

/// Defines one sorted-set blocking command entry.
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
    list_cmd!("blpop", -3, ["write", "noscript", "blocking"], (1, -2, 1), ["write", "list", "slow", "blocking"],
        "BLPOP key [key ...] timeout",
        "Pops the first element of the first non-empty list, or waits for one (timeout in seconds, 0 forever).",
        "2.0.0", blpop),
    list_cmd!("brpop", -3, ["write", "noscript", "blocking"], (1, -2, 1), ["write", "list", "slow", "blocking"],
        "BRPOP key [key ...] timeout",
        "Pops the last element of the first non-empty list, or waits for one (timeout in seconds, 0 forever).",
        "2.0.0", brpop),
    list_cmd!("blmove", 6, ["write", "denyoom", "noscript", "blocking"], (1, 2, 1), ["write", "list", "slow", "blocking"],
        "BLMOVE source destination <LEFT | RIGHT> <LEFT | RIGHT> timeout",
        "LMOVE, waiting for the source to get an element.", "6.2.0", blmove),
    list_cmd!("brpoplpush", 4, ["write", "denyoom", "noscript", "blocking"], (1, 2, 1), ["write", "list", "slow", "blocking"],
        "BRPOPLPUSH source destination timeout",
        "RPOPLPUSH, waiting for the source to get an element (deprecated: BLMOVE).", "2.2.0", brpoplpush),
    list_cmd!("blmpop", -5, ["write", "blocking", "movablekeys"], (0, 0, 0), ["write", "list", "slow", "blocking"],
        "BLMPOP timeout numkeys key [key ...] <LEFT | RIGHT> [COUNT count]",
        "LMPOP, waiting for one of the lists to get elements.", "7.0.0", blmpop),
    zset_cmd!("bzpopmin", -3, ["write", "noscript", "blocking", "fast"], (1, -2, 1), ["write", "sortedset", "fast", "blocking"],
        "BZPOPMIN key [key ...] timeout",
        "Pops the lowest-scored member of the first non-empty sorted set, or waits for one.", "5.0.0", bzpopmin),
    zset_cmd!("bzpopmax", -3, ["write", "noscript", "blocking", "fast"], (1, -2, 1), ["write", "sortedset", "fast", "blocking"],
        "BZPOPMAX key [key ...] timeout",
        "Pops the highest-scored member of the first non-empty sorted set, or waits for one.", "5.0.0", bzpopmax),
    zset_cmd!("bzmpop", -5, ["write", "blocking", "movablekeys"], (0, 0, 0), ["write", "sortedset", "slow", "blocking"],
        "BZMPOP timeout numkeys key [key ...] <MIN | MAX> [COUNT count]",
        "ZMPOP, waiting for one of the sorted sets to get members.", "7.0.0", bzmpop),
];

/// `blockingPopGenericCommand`: pops from the first non-empty list among
/// `keys` (`count` elements as `[key, [elements]]` for BLMPOP, else one as
/// `[key, element]`), or blocks on all of them.
fn blocking_pop(
    ctx: &mut Ctx,
    keys: &[Vec<u8>],
    end: End,
    timeout: &[u8],
    count: Option<usize>,
) -> Frame {
    let now = ctx.srv.now_ms();
    let timeout_ms = match timeout_arg(timeout, now) {
        Ok(t) => t,
        Err(e) => return e,
    };
    for key in keys {
        match write_lookup(ctx, key) {
            Err(e) => return e,
            Ok(false) => continue,
            Ok(true) => {}
        }
        return match count {
            Some(n) => pop_range_with_key(ctx, key, end, n),
            None => {
                let mut items = pop_range(ctx, key, end, 1);
                let value = items.pop().unwrap_or(Frame::Null);
                Frame::Array(vec![Frame::Bulk(key.clone()), value])
            }
        };
    }
    if !may_block(ctx.srv) {
        return Frame::NullArray;
    }
    block_for_keys(ctx.srv, BlockKind::List, keys, timeout_ms)
}

fn blpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let last = args.len() - 1;
    blocking_pop(ctx, &args[1..last], End::Head, &args[last], None)
}

fn brpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let last = args.len() - 1;
    blocking_pop(ctx, &args[1..last], End::Tail, &args[last], None)
}

/// `blmoveGenericCommand`: LMOVE if the source has data, else block on it.
fn blmove_generic(ctx: &mut Ctx, args: &[Vec<u8>], from: End, to: End, timeout_ms: i64) -> Frame {
    match write_lookup(ctx, &args[1]) {
        Err(e) => e,
        Ok(true) => lmove_generic(ctx, args, from, to),
        Ok(false) if !may_block(ctx.srv) => Frame::Null,
        Ok(false) => block_for_keys(ctx.srv, BlockKind::List, &args[1..2], timeout_ms),
    }
}

fn blmove(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (from, to) = match (position_arg(&args[3]), position_arg(&args[4])) {
        (Ok(f), Ok(t)) => (f, t),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    let now = ctx.srv.now_ms();
    match timeout_arg(&args[5], now) {
        Ok(t) => blmove_generic(ctx, args, from, to, t),
        Err(e) => e,
    }
}

fn brpoplpush(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let now = ctx.srv.now_ms();
    match timeout_arg(&args[3], now) {
        Ok(t) => blmove_generic(ctx, args, End::Tail, End::Head, t),
        Err(e) => e,
    }
}

fn blmpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match parse_mpop(args, 2, position_arg) {
        Ok(m) => blocking_pop(ctx, m.keys, m.end, &args[1], Some(m.count)),
        Err(e) => e,
    }
}

/// `blockingGenericZpopCommand`: pops from the first non-empty sorted set
/// among `keys` (`count` members as `[key, [[member, score], ...]]` for
/// BZMPOP, else one as `[key, member, score]`), or blocks on all of them.
fn blocking_zpop(
    ctx: &mut Ctx,
    keys: &[Vec<u8>],
    max: bool,
    timeout: &[u8],
    count: Option<usize>,
) -> Frame {
    let now = ctx.srv.now_ms();
    let timeout_ms = match timeout_arg(timeout, now) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let db = ctx.db();
    for key in keys {
        match ctx.srv.lookup_write(db, key).map(|o| &o.value) {
            None => continue,
            Some(Value::ZSet(_)) => {}
            Some(_) => return Frame::err(WRONGTYPE),
        }
        let n = count.unwrap_or(1);
        let popped = ctx
            .srv
            .modify(db, key, |o| match &mut o.value {
                Value::ZSet(z) => (0..n.min(z.len()))
                    .filter_map(|_| z.pop(max))
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            })
            .unwrap_or_default();
        let empty = matches!(&ctx.srv.dbs[db].get(key).map(|o| &o.value), Some(Value::ZSet(z)) if z.is_empty());
        if empty {
            ctx.srv.delete(db, key, DeleteCause::Del);
        }
        let mut reply = vec![Frame::Bulk(key.clone())];
        match count {
            None => {
                for (m, s) in popped {
                    reply.push(Frame::Bulk(m));
                    reply.push(Frame::Double(s));
                }
            }
            Some(_) => reply.push(Frame::Array(
                popped
                    .into_iter()
                    .map(|(m, s)| Frame::Array(vec![Frame::Bulk(m), Frame::Double(s)]))
                    .collect(),
            )),
        }
        return Frame::Array(reply);
    }
    if !may_block(ctx.srv) {
        return Frame::NullArray;
    }
    block_for_keys(ctx.srv, BlockKind::ZSet, keys, timeout_ms)
}

fn bzpopmin(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let last = args.len() - 1;
    blocking_zpop(ctx, &args[1..last], false, &args[last], None)
}

fn bzpopmax(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let last = args.len() - 1;
    blocking_zpop(ctx, &args[1..last], true, &args[last], None)
}

/// MIN or MAX (true for MAX), else a syntax error.
fn min_max_arg(arg: &[u8]) -> Result<bool, Frame> {
    if opt_is(arg, "min") {
        Ok(false)
    } else if opt_is(arg, "max") {
        Ok(true)
    } else {
        Err(Frame::err(SYNTAX))
    }
}

fn bzmpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match parse_mpop(args, 2, min_max_arg) {
        Ok(m) => blocking_zpop(ctx, m.keys, m.end, &args[1], Some(m.count)),
        Err(e) => e,
    }
}
