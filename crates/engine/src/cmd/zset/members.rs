//! Reading members one at a time: ZCARD, ZSCORE, ZMSCORE, ZRANK and ZREVRANK (with 7.2's WITHSCORE), ZRANDMEMBER in all its cases, and ZSCAN.

use super::pairs_reply;
use crate::cmd::args::{opt_is, SYNTAX};
use crate::cmd::random::{count_and_with, too_many_random, MAX_RANDOM_REPLY};
use crate::cmd::scan::{cursor_arg, scan_opts, scan_reply, scan_steps};
use crate::cmd::table::Ctx;
use crate::cmd::typed::{peek, peek_with_rng};
use crate::keyspace::dict::Dict;
use crate::keyspace::types::zset::ZSet;
use crate::num::double::{d2string, g17};
use crate::proto::resp::Frame;

pub(super) fn zcard(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<ZSet>(&args[1]) {
        Err(e) => e,
        Ok(z) => Frame::Integer(z.map_or(0, ZSet::len) as i64),
    }
}

pub(super) fn zscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<ZSet>(&args[1]) {
        Err(e) => e,
        Ok(z) => z
            .and_then(|z| z.score(&args[2]))
            .map_or(Frame::Null, Frame::Double),
    }
}

pub(super) fn zmscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let z = match ctx.read::<ZSet>(&args[1]) {
        Ok(z) => z,
        Err(e) => return e,
    };
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

pub(super) fn zrank(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrank_generic(ctx, args, false)
}

pub(super) fn zrevrank(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
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
    match ctx
        .read::<ZSet>(&args[1])
        .map(|z| z.and_then(|z| z.rank(&args[2], reverse)))
    {
        Err(e) => e,
        Ok(None) => missing,
        Ok(Some((rank, score))) if withscore => {
            Frame::Array(vec![Frame::Integer(rank as i64), Frame::Double(score)])
        }
        Ok(Some((rank, _))) => Frame::Integer(rank as i64),
    }
}

pub(super) fn zrandmember(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let key = &args[1];
    if args.len() >= 3 {
        return match count_and_with(args, "withscores") {
            Ok((l, withscores)) => zrandmember_count(ctx, key, l, withscores),
            Err(e) => e,
        };
    }
    match ctx.read_exists::<ZSet>(key) {
        Ok(false) => Frame::Null,
        Err(e) => e,
        Ok(true) => match peek_with_rng::<ZSet>(ctx.srv, db, key) {
            (Some(z), rng) => z.random(rng).map_or(Frame::Null, |(m, _)| Frame::Bulk(m)),
            (None, _) => Frame::Null,
        },
    }
}

/// `zrandmemberWithCountCommand`.
fn zrandmember_count(ctx: &mut Ctx, key: &[u8], l: i64, withscores: bool) -> Frame {
    let db = ctx.db();
    if let Err(reply) = ctx.read_or::<ZSet>(key, || Frame::Array(Vec::new())) {
        return reply;
    }
    let resp3 = ctx.client.resp >= 3;
    let count = l.unsigned_abs();
    let uniq = l >= 0;
    if count == 0 {
        return Frame::Array(Vec::new());
    }
    let (Some(z), rng) = peek_with_rng::<ZSet>(ctx.srv, db, key) else {
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
pub(super) fn zscan(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let cursor = match cursor_arg(&args[2]) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let db = ctx.db();
    let key = &args[1];
    if let Err(reply) = ctx.read_or::<ZSet>(key, || scan_reply(0, Vec::new())) {
        return reply;
    }
    let opts = match scan_opts(args, 3, false) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let Some(z) = peek::<ZSet>(ctx.srv, db, key) else {
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
    let next = scan_steps(cursor, opts.count, opts.count.saturating_mul(10), |c| {
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
