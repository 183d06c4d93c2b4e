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

use super::args::{either, parse_mpop};
use super::list::{lmove_generic, pop_range, pop_range_with_key, pop_verb, position_arg, End};
use super::table::{commands, Command, Ctx};
use super::typed::Kind;
use super::zset::delete_if_empty;
use crate::blocking::{block_for_keys, may_block, timeout_arg, BlockKind};
use crate::keyspace::object::Value;
use crate::keyspace::types::list::List;
use crate::keyspace::types::zset::ZSet;
use crate::proto::resp::Frame;

pub(super) static COMMANDS: &[Command] = commands! { group: "list";
    "blpop" => blpop, arity: -3, flags: [WRITE, BLOCKING], keys: (1, -2, 1), acl: [WRITE, LIST, SLOW, BLOCKING], since: "2.0.0",
        syntax: "BLPOP key [key ...] timeout", summary: "Pops the first element of the first non-empty list, or waits for one (timeout in seconds, 0 forever).";
    "brpop" => brpop, arity: -3, flags: [WRITE, BLOCKING], keys: (1, -2, 1), acl: [WRITE, LIST, SLOW, BLOCKING], since: "2.0.0",
        syntax: "BRPOP key [key ...] timeout", summary: "Pops the last element of the first non-empty list, or waits for one (timeout in seconds, 0 forever).";
    "blmove" => blmove, arity: 6, flags: [WRITE, DENYOOM, BLOCKING], keys: (1, 2, 1), acl: [WRITE, LIST, SLOW, BLOCKING], since: "6.2.0",
        syntax: "BLMOVE source destination <LEFT | RIGHT> <LEFT | RIGHT> timeout", summary: "LMOVE, waiting for the source to get an element.";
    "brpoplpush" => brpoplpush, arity: 4, flags: [WRITE, DENYOOM, BLOCKING], keys: (1, 2, 1), acl: [WRITE, LIST, SLOW, BLOCKING], since: "2.2.0",
        syntax: "BRPOPLPUSH source destination timeout", summary: "RPOPLPUSH, waiting for the source to get an element (deprecated: BLMOVE).";
    "blmpop" => blmpop, arity: -5, flags: [WRITE, BLOCKING, MOVABLEKEYS], acl: [WRITE, LIST, SLOW, BLOCKING], since: "7.0.0",
        syntax: "BLMPOP timeout numkeys key [key ...] <LEFT | RIGHT> [COUNT count]", summary: "LMPOP, waiting for one of the lists to get elements.";
    "bzpopmin" => bzpopmin, arity: -3, flags: [WRITE, BLOCKING, FAST], keys: (1, -2, 1), acl: [WRITE, SORTEDSET, FAST, BLOCKING], group: "sorted-set", since: "5.0.0",
        syntax: "BZPOPMIN key [key ...] timeout", summary: "Pops the lowest-scored member of the first non-empty sorted set, or waits for one.";
    "bzpopmax" => bzpopmax, arity: -3, flags: [WRITE, BLOCKING, FAST], keys: (1, -2, 1), acl: [WRITE, SORTEDSET, FAST, BLOCKING], group: "sorted-set", since: "5.0.0",
        syntax: "BZPOPMAX key [key ...] timeout", summary: "Pops the highest-scored member of the first non-empty sorted set, or waits for one.";
    "bzmpop" => bzmpop, arity: -5, flags: [WRITE, BLOCKING, MOVABLEKEYS], acl: [WRITE, SORTEDSET, SLOW, BLOCKING], group: "sorted-set", since: "7.0.0",
        syntax: "BZMPOP timeout numkeys key [key ...] <MIN | MAX> [COUNT count]", summary: "ZMPOP, waiting for one of the sorted sets to get members.";
};

/// The blocking pops' common shape: the timeout is parsed first, then the
/// first key holding a `T` is served by `pop`; with none, the client
/// blocks on all of them (or, when it may not, gets a null array).
fn pop_first_or_block<T: Kind>(
    ctx: &mut Ctx,
    keys: &[Vec<u8>],
    timeout: &[u8],
    kind: BlockKind,
    pop: impl FnOnce(&mut Ctx, &Vec<u8>) -> Frame,
) -> Frame {
    let now = ctx.srv.now_ms();
    let timeout_ms = match timeout_arg(timeout, now) {
        Ok(t) => t,
        Err(e) => return e,
    };
    for key in keys {
        match ctx.write_exists::<T>(key) {
            Err(e) => return e,
            Ok(false) => continue,
            Ok(true) => return pop(ctx, key),
        }
    }
    if !may_block(ctx.srv) {
        return Frame::NullArray;
    }
    block_for_keys(ctx.srv, kind, keys, timeout_ms)
}

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
    pop_first_or_block::<List>(
        ctx,
        keys,
        timeout,
        BlockKind::List,
        |ctx, key| match count {
            Some(n) => pop_range_with_key(ctx, key, end, n),
            None => {
                let mut items = pop_range(ctx, key, end, 1);
                let value = items.pop().unwrap_or(Frame::Null);
                // Replicas get the pop itself: LPOP or RPOP.
                ctx.propagate_as(&[pop_verb(end), key]);
                Frame::Array(vec![Frame::Bulk(key.clone()), value])
            }
        },
    )
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
    match ctx.write_exists::<List>(&args[1]) {
        Err(e) => e,
        Ok(true) => {
            let reply = lmove_generic(ctx, args, from, to);
            // Replicas get the move itself: LMOVE or RPOPLPUSH.
            if args.len() == 6 {
                ctx.propagate_as(&[b"LMOVE", &args[1], &args[2], &args[3], &args[4]]);
            } else {
                ctx.propagate_as(&[b"RPOPLPUSH", &args[1], &args[2]]);
            }
            reply
        }
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
    pop_first_or_block::<ZSet>(ctx, keys, timeout, BlockKind::ZSet, |ctx, key| {
        let db = ctx.db();
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
        if !popped.is_empty() {
            let event = super::zset::pop_event(max);
            ctx.notify(crate::server::keyspace_events::ZSET, event, key);
        }
        delete_if_empty(ctx.srv, db, key);
        super::zset::zpop_propagated(ctx, key, max, count.map(|_| popped.len()));
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
        Frame::Array(reply)
    })
}

fn bzpopmin(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let last = args.len() - 1;
    blocking_zpop(ctx, &args[1..last], false, &args[last], None)
}

fn bzpopmax(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let last = args.len() - 1;
    blocking_zpop(ctx, &args[1..last], true, &args[last], None)
}

fn bzmpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match parse_mpop(args, 2, |a| either(a, "min", "max")) {
        Ok(m) => blocking_zpop(ctx, m.keys, m.end, &args[1], Some(m.count)),
        Err(e) => e,
    }
}
