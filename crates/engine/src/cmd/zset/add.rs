//! ZADD and ZINCRBY (`zaddGenericCommand`): options, then scores, then the key, then the adds with their conversions.

use super::{limits, update};
use crate::cmd::args::{opt_is, NOT_FLOAT, SYNTAX};
use crate::cmd::table::Ctx;
use crate::keyspace::object::Value;
use crate::keyspace::types::zset::{AddFlags, AddOutcome, Limits, ZSet};
use crate::num::double::string2d;
use crate::proto::resp::Frame;

pub(in crate::cmd) fn zadd(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zadd_generic(ctx, args, false)
}

pub(super) fn zincrby(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
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
    let exists = match ctx.write_exists::<ZSet>(key) {
        Err(e) => return e,
        Ok(false) => false,
        Ok(true) => true,
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
    if added + updated > 0 {
        let event = if flags.incr { "zincr" } else { "zadd" };
        ctx.notify(crate::server::keyspace_events::ZSET, event, key);
        // `server.dirty += added + updated`.
        crate::persist::adjust_changes(ctx.srv, added + updated - 1);
    }
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
