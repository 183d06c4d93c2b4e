//! Removals and pops: ZREM, ZREMRANGEBYSCORE / BYLEX / BYRANK, ZPOPMIN, ZPOPMAX and ZMPOP; a set they empty is deleted.

use super::{delete_if_empty, parse_lex_range, parse_score_range, pop_event, update, Range};
use crate::cmd::args::{arg_i64, clamp_ranks, either, parse_mpop, positive_long_arg, SYNTAX};
use crate::cmd::table::Ctx;
use crate::cmd::typed::remove_each;
use crate::keyspace::types::zset::ZSet;
use crate::proto::resp::Frame;
use crate::server::keyspace_events as ev;

pub(super) fn zrem(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    remove_with(ctx, &args[1], "zrem", |z| {
        remove_each(z, &args[2..], ZSet::remove, ZSet::is_empty)
    })
}

/// The removals' common part: the write lookup (0 for no key), `remove`
/// (how many members went) signalling only a removal and raising `event`,
/// and the key deleted once its set is empty.
fn remove_with(
    ctx: &mut Ctx,
    key: &[u8],
    event: &str,
    remove: impl FnOnce(&mut ZSet) -> i64,
) -> Frame {
    let db = ctx.db();
    if let Err(reply) = ctx.write_or::<ZSet>(key, || Frame::Integer(0)) {
        return reply;
    }
    let deleted = update(ctx.srv, db, key, |z, _, _| {
        let n = remove(z);
        (n, n > 0)
    })
    .unwrap_or(0);
    if deleted > 0 {
        ctx.notify(ev::ZSET, event, key);
        // `server.dirty += deleted` (ZREM and the ZREMRANGE family).
        crate::persist::adjust_changes(ctx.srv, deleted - 1);
    }
    delete_if_empty(ctx.srv, db, key);
    Frame::Integer(deleted)
}

pub(super) fn zremrangebyscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match parse_score_range(&args[2], &args[3]) {
        Ok(r) => zremrange(ctx, args, Range::Score(r)),
        Err(e) => e,
    }
}

pub(super) fn zremrangebylex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match parse_lex_range(&args[2], &args[3]) {
        Ok(r) => zremrange(ctx, args, Range::Lex(r)),
        Err(e) => e,
    }
}

pub(super) fn zremrangebyrank(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match (arg_i64(&args[2]), arg_i64(&args[3])) {
        (Ok(a), Ok(b)) => zremrange(ctx, args, Range::Rank(a, b)),
        (Err(e), _) | (_, Err(e)) => e,
    }
}

/// `zremrangeGenericCommand`.
fn zremrange(ctx: &mut Ctx, args: &[Vec<u8>], range: Range) -> Frame {
    let event = match range {
        Range::Rank(..) => "zremrangebyrank",
        Range::Score(_) => "zremrangebyscore",
        Range::Lex(_) => "zremrangebylex",
    };
    remove_with(ctx, &args[1], event, |z| {
        (match &range {
            Range::Rank(a, b) => match clamp_ranks(*a, *b, z.len()) {
                Some((s, e)) => z.remove_rank_range(s, e),
                None => 0,
            },
            Range::Score(r) => z.remove_in(r),
            Range::Lex(r) => z.remove_in(r),
        }) as i64
    })
}

pub(super) fn zpopmin(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zpop_minmax(ctx, args, false)
}

pub(super) fn zpopmax(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zpop_minmax(ctx, args, true)
}

/// `zpopMinMaxCommand`.
fn zpop_minmax(ctx: &mut Ctx, args: &[Vec<u8>], max: bool) -> Frame {
    if args.len() > 3 {
        return Frame::err(SYNTAX);
    }
    let count = match args.get(2) {
        Some(a) => match positive_long_arg(a, None) {
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
        match ctx.write_exists::<ZSet>(key) {
            Ok(false) => continue,
            Err(e) => return e,
            Ok(true) => {
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
    if !popped.is_empty() {
        ctx.notify(ev::ZSET, pop_event(max), key);
    }
    delete_if_empty(ctx.srv, db, key);
    if emit_key {
        // ZMPOP goes to replicas as ZPOPMIN or ZPOPMAX with the count popped.
        zpop_propagated(ctx, key, max, Some(popped.len()));
    }
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

/// Replicas get a pop from one key as `ZPOPMIN|ZPOPMAX key [count]`.
pub(in crate::cmd) fn zpop_propagated(ctx: &mut Ctx, key: &[u8], max: bool, count: Option<usize>) {
    if !ctx.propagating() {
        return;
    }
    let verb: &[u8] = if max { b"ZPOPMAX" } else { b"ZPOPMIN" };
    match count {
        Some(n) => ctx.propagate_as(&[verb, key, n.to_string().as_bytes()]),
        None => ctx.propagate_as(&[verb, key]),
    }
}

/// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count].
pub(super) fn zmpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match parse_mpop(args, 1, |a| either(a, "min", "max")) {
        Ok(m) => zpop_generic(ctx, m.keys, m.end, Some(m.count as i64), true, true),
        Err(e) => e,
    }
}
