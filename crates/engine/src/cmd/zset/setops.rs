//! ZUNION, ZINTER, ZDIFF, ZINTERCARD and the STORE forms (`zunionInterDiffGenericCommand`): weights, aggregation, and the result built in the best encoding.

use super::{limits, pairs_reply, store_result};
use crate::cmd::args::{arg_i64, opt_choice, opt_is, positive_long_arg, SYNTAX};
use crate::cmd::table::Ctx;
use crate::cmd::typed::WRONGTYPE;
use crate::keyspace::object::Value;
use crate::keyspace::types::zset::{Limits, ZSet};
use crate::num::double::string2d;
use crate::proto::resp::Frame;

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
            Some(Value::Set(s)) => s.members().into_iter().map(|m| (m, 1.0)).collect(),
            _ => Vec::new(),
        }
    }

    /// `zuiFind`.
    fn find(&self, member: &[u8]) -> Option<f64> {
        match self.value {
            Some(Value::ZSet(z)) => z.score(member),
            Some(Value::Set(s)) => s.contains(member).then_some(1.0),
            _ => None,
        }
    }
}

pub(super) fn zunion(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, None, 1, SetOp::Union, false)
}

pub(super) fn zinter(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, None, 1, SetOp::Inter, false)
}

pub(super) fn zdiff(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, None, 1, SetOp::Diff, false)
}

pub(super) fn zintercard(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, None, 1, SetOp::Inter, true)
}

pub(super) fn zunionstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, Some(&args[1]), 2, SetOp::Union, false)
}

pub(super) fn zinterstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    zsetop(ctx, args, Some(&args[1]), 2, SetOp::Inter, false)
}

pub(super) fn zdiffstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
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
            let kinds = [
                ("sum", Aggregate::Sum),
                ("min", Aggregate::Min),
                ("max", Aggregate::Max),
            ];
            match opt_choice(&args[j + 1], &kinds) {
                Some(a) => how = a,
                None => return Frame::err(SYNTAX),
            }
            j += 2;
        } else if dst.is_none() && !card_only && opt_is(a, "withscores") {
            withscores = true;
            j += 1;
        } else if card_only && remaining >= 2 && opt_is(a, "limit") {
            match positive_long_arg(&args[j + 1], Some("LIMIT can't be negative")) {
                Ok(n) => limit = n,
                Err(e) => return e,
            }
            j += 2;
        } else {
            return Frame::err(SYNTAX);
        }
    }

    // The cost model's work: every element of every input.
    let elements = keys
        .iter()
        .filter_map(|k| ctx.srv.dbs[db].get(k))
        .map(|o| match &o.value {
            Value::ZSet(z) => z.len() as u64,
            Value::Set(s) => s.len() as u64,
            _ => 0,
        })
        .sum();
    ctx.visited(elements);
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
        crate::sort::sort_by_key(&mut src, Source::len);
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
            let mut acc: crate::ordmap::OrdMap<Vec<u8>, f64> = Default::default();
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
    crate::sort::sort_by(&mut result, |a, b| {
        crate::keyspace::types::skiplist::cmp_entry(a.1, &a.0, b.1, &b.0)
    });
    match dst {
        None => pairs_reply(result, withscores, ctx.client.resp >= 3),
        Some(dst) => {
            let lim = limits(&ctx.srv.config);
            let z = (!result.is_empty()).then(|| build_zset(result, lim, &mut ctx.srv.rng));
            let event = match op {
                SetOp::Union => "zunionstore",
                SetOp::Inter => "zinterstore",
                SetOp::Diff => "zdiffstore",
            };
            store_result(ctx, dst, z, event)
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
