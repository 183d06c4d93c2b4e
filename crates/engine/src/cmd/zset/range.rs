//! Ranges: ZRANGE with BYSCORE / BYLEX / REV / LIMIT, its older forms and ZRANGESTORE (`zrangeGenericCommand`), and ZCOUNT / ZLEXCOUNT.

use super::{limits, pairs_reply, parse_lex_range, parse_score_range, store_result, Range};
use crate::cmd::args::{arg_i64, clamp_ranks, opt_is, SYNTAX};
use crate::cmd::table::Ctx;
use crate::cmd::typed::peek;
use crate::keyspace::types::zset::ZSet;
use crate::proto::resp::Frame;

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

pub(super) fn zrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Auto, Direction::Auto)
}

pub(super) fn zrangestore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(
        ctx,
        args,
        2,
        Some(&args[1]),
        RangeKind::Auto,
        Direction::Auto,
    )
}

pub(super) fn zrevrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Rank, Direction::Reverse)
}

pub(super) fn zrangebyscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Score, Direction::Forward)
}

pub(super) fn zrevrangebyscore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Score, Direction::Reverse)
}

pub(super) fn zrangebylex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Lex, Direction::Forward)
}

pub(super) fn zrevrangebylex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zrange_generic(ctx, args, 1, None, RangeKind::Lex, Direction::Reverse)
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
    match ctx.read_exists::<ZSet>(key) {
        Err(e) => return e,
        Ok(false) => {
            return match dst {
                Some(dst) => store_result(ctx, dst, None, "zrangestore"),
                None => Frame::Array(Vec::new()),
            }
        }
        Ok(true) => {}
    }
    let Some(z) = peek::<ZSet>(ctx.srv, db, key) else {
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
    store_result(ctx, dst, result, "zrangestore")
}

pub(super) fn zcount(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    count_in(ctx, args, parse_score_range, ZSet::count_in)
}

pub(super) fn zlexcount(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    count_in(ctx, args, parse_lex_range, ZSet::count_in)
}

/// ZCOUNT and ZLEXCOUNT: the range (`min max`) is parsed before the key is
/// read; a missing key counts 0.
fn count_in<R>(
    ctx: &mut Ctx,
    args: &[Vec<u8>],
    parse: fn(&[u8], &[u8]) -> Result<R, Frame>,
    count: fn(&ZSet, &R) -> i64,
) -> Frame {
    let range = match parse(&args[2], &args[3]) {
        Ok(r) => r,
        Err(e) => return e,
    };
    match ctx.read::<ZSet>(&args[1]) {
        Err(e) => e,
        Ok(z) => Frame::Integer(z.map_or(0, |z| count(z, &range))),
    }
}
