//! Sorted set values: a listpack while small, else a skiplist with spans beside a member-to-score dictionary (t_zset.c), with Redis 7.2's conversion rules, range semantics and an O(1) memory figure.
//!
//! Both encodings keep (member, score) pairs ordered by score, then member
//! bytes. The listpack is a sorted vector (what matters of Redis' listpack
//! is its order, its linear walks and its byte size, which is tracked
//! entry by entry); the skiplist encoding is [`SkipList`] plus a
//! [`Dict`] from member to score. Scores stored in a listpack go through
//! its text or integer form, which turns -0 into 0; a skiplist keeps -0.
//!
//! Conversions are one way (listpack to skiplist) except where Redis
//! builds a fresh result and picks the best encoding (the STORE commands).

mod listpack;
mod range;
mod sorted;

use crate::rng::Pick;
pub use listpack::Listpack;
use listpack::{lp_pair_bytes, lp_score};
pub use range::{AddFlags, AddOutcome, Bounds, End, LexItem, LexRange, ScoreRange};
pub use sorted::Sorted;
use sorted::{node_bytes, ZSET_STRUCT, ZSKIPLIST_STRUCT, ZSL_LEVEL, ZSL_NODE};

use std::cmp::Ordering;

use super::skiplist::{self, cmp_entry, NodeView};
use crate::keyspace::memory::{alloc_size, DICT_STRUCT, LISTPACK_EMPTY, LISTPACK_MAX_SAFETY_SIZE};

/// `zset-max-listpack-entries` and `zset-max-listpack-value`, as the
/// operations that may convert need them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub entries: usize,
    pub value: usize,
}

/// A sorted set in one of its two encodings.
#[derive(Clone, Debug, PartialEq)]
pub enum ZSet {
    /// (member, score) pairs in order, as a listpack holds them.
    Listpack(Listpack),
    /// Skiplist and dictionary.
    Skiplist(Box<Sorted>),
}

/// Where a walk over a sorted set stands: an index or a skiplist node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pos {
    Lp(usize),
    Sl(u32),
}

impl ZSet {
    /// DEBUG HTSTATS-KEY's text for a skiplist-encoded sorted set (its dict).
    pub fn table_stats(&self, full: bool) -> Option<String> {
        match self {
            ZSet::Skiplist(s) => Some(s.dict.stats_text(full)),
            _ => None,
        }
    }

    /// `zsetTypeCreate`: a listpack if `size_hint` elements of
    /// `value_len_hint` bytes fit the limits, else a skiplist.
    pub fn create(
        size_hint: usize,
        value_len_hint: usize,
        limits: Limits,
        rng: &mut fastrand::Rng,
    ) -> ZSet {
        if size_hint <= limits.entries && value_len_hint <= limits.value {
            ZSet::new_listpack()
        } else {
            ZSet::new_skiplist(rng)
        }
    }

    /// An empty listpack-encoded set.
    pub fn new_listpack() -> ZSet {
        ZSet::Listpack(Listpack::new())
    }

    /// An empty skiplist-encoded set (its dict keyed from `rng`).
    pub fn new_skiplist(rng: &mut fastrand::Rng) -> ZSet {
        ZSet::Skiplist(Box::new(Sorted::new(rng.u64(..))))
    }

    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        match self {
            ZSet::Listpack(_) => "listpack",
            ZSet::Skiplist(_) => "skiplist",
        }
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        match self {
            ZSet::Listpack(lp) => lp.entries.len(),
            ZSet::Skiplist(z) => z.zsl.len(),
        }
    }

    /// True when empty (Redis deletes empty sorted sets).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the value's allocations as Redis' allocator would count
    /// them, in O(1): the listpack's size class, or the zset, dict,
    /// skiplist and header structures plus the bucket array and the
    /// per-element node, sds and dict entry.
    pub fn mem_size(&self) -> usize {
        match self {
            ZSet::Listpack(lp) => alloc_size(lp.bytes),
            ZSet::Skiplist(z) => {
                alloc_size(ZSET_STRUCT)
                    + alloc_size(DICT_STRUCT)
                    + alloc_size(ZSKIPLIST_STRUCT)
                    + alloc_size(ZSL_NODE + ZSL_LEVEL * skiplist::MAX_LEVEL)
                    + alloc_size(8 * z.dict.buckets())
                    + z.mem
            }
        }
    }

    /// The listpack's byte count (`lpBytes`), for listpack-encoded sets.
    pub fn listpack_bytes(&self) -> Option<usize> {
        match self {
            ZSet::Listpack(lp) => Some(lp.bytes),
            ZSet::Skiplist(_) => None,
        }
    }

    /// `zsetScore`.
    pub fn score(&self, member: &[u8]) -> Option<f64> {
        match self {
            ZSet::Listpack(lp) => lp.find(member).map(|i| lp.entries[i].1),
            ZSet::Skiplist(z) => z.dict.get(member).copied(),
        }
    }

    /// RESTORE of a listpack blob: its (member, score) pairs, kept sorted.
    pub fn from_listpack(pairs: Vec<(Vec<u8>, f64)>) -> ZSet {
        let mut lp = Listpack::new();
        for (m, s) in pairs {
            lp.insert(&m, s);
        }
        ZSet::Listpack(lp)
    }

    /// `zsetConvert` to a skiplist (no-op if already one).
    pub fn convert_to_skiplist(&mut self, rng: &mut fastrand::Rng) {
        let ZSet::Listpack(lp) = self else {
            return;
        };
        let mut z = Sorted::new(rng.u64(..));
        for (m, s) in &lp.entries {
            z.insert(m, *s, rng);
        }
        *self = ZSet::Skiplist(Box::new(z));
    }

    /// `zsetTypeMaybeConvert`: ZADD of `size_hint` pairs to a listpack that
    /// could not hold them converts first, whatever the pairs turn out to do.
    pub fn maybe_convert(&mut self, size_hint: usize, limits: Limits, rng: &mut fastrand::Rng) {
        if matches!(self, ZSet::Listpack(_)) && size_hint > limits.entries {
            self.convert_to_skiplist(rng);
        }
    }

    /// `zsetConvertToListpackIfNeeded`: a freshly built result goes back to a
    /// listpack when it fits.
    pub fn shrink_encoding_if_fits(&mut self, limits: Limits) {
        let ZSet::Skiplist(z) = self else {
            return;
        };
        let (maxlen, total) = z
            .zsl
            .iter()
            .fold((0, 0), |(mx, t), (m, _)| (mx.max(m.len()), t + m.len()));
        if z.zsl.len() <= limits.entries
            && maxlen <= limits.value
            && total <= LISTPACK_MAX_SAFETY_SIZE
        {
            let mut lp = Listpack::new();
            for (m, s) in z.zsl.iter() {
                lp.bytes += lp_pair_bytes(m, lp_score(s));
                lp.entries.push((m.to_vec(), lp_score(s)));
            }
            *self = ZSet::Listpack(lp);
        }
    }

    /// `zsetAdd`: adds or updates one member under ZADD's flags, converting
    /// the listpack when the new member would not fit.
    pub fn add(
        &mut self,
        score: f64,
        member: &[u8],
        flags: AddFlags,
        limits: Limits,
        rng: &mut fastrand::Rng,
    ) -> AddOutcome {
        if score.is_nan() {
            return AddOutcome::Nan;
        }
        if let ZSet::Listpack(lp) = self {
            if let Some(i) = lp.find(member) {
                let cur = lp.entries[i].1;
                return match Self::existing(cur, score, flags) {
                    Err(o) => o,
                    Ok(new) if new != cur => {
                        lp.remove_at(i);
                        lp.insert(member, new);
                        AddOutcome::Updated(new)
                    }
                    Ok(new) => AddOutcome::Same(new),
                };
            }
            if flags.xx {
                return AddOutcome::Nop;
            }
            if lp.entries.len() < limits.entries
                && member.len() <= limits.value
                && lp.bytes + member.len() <= LISTPACK_MAX_SAFETY_SIZE
            {
                lp.insert(member, score);
                return AddOutcome::Added(score);
            }
            self.convert_to_skiplist(rng);
        }
        let ZSet::Skiplist(z) = self else {
            return AddOutcome::Nop;
        };
        if let Some(&cur) = z.dict.get(member) {
            return match Self::existing(cur, score, flags) {
                Err(o) => o,
                Ok(new) if new != cur => {
                    z.update(member, cur, new, rng);
                    AddOutcome::Updated(new)
                }
                Ok(new) => AddOutcome::Same(new),
            };
        }
        if flags.xx {
            return AddOutcome::Nop;
        }
        z.insert(member, score, rng);
        AddOutcome::Added(score)
    }

    /// The rules for an existing member: NX does nothing, INCR adds (NaN is
    /// an error), GT/LT compare with the current score. `Ok` is the new score.
    fn existing(cur: f64, score: f64, flags: AddFlags) -> Result<f64, AddOutcome> {
        if flags.nx {
            return Err(AddOutcome::Nop);
        }
        let new = if flags.incr { score + cur } else { score };
        if new.is_nan() {
            return Err(AddOutcome::Nan);
        }
        if (flags.lt && new >= cur) || (flags.gt && new <= cur) {
            return Err(AddOutcome::Nop);
        }
        Ok(new)
    }

    /// Adds a member known to be absent, converting as `zsetAdd` would:
    /// how the STORE commands fill their result.
    pub fn push_new(&mut self, member: &[u8], score: f64, limits: Limits, rng: &mut fastrand::Rng) {
        self.add(score, member, AddFlags::default(), limits, rng);
    }

    /// `zsetDel`: removes a member; a skiplist's dict shrinks if sparse.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        match self {
            ZSet::Listpack(lp) => match lp.find(member) {
                Some(i) => {
                    lp.remove_at(i);
                    true
                }
                None => false,
            },
            ZSet::Skiplist(z) => {
                let found = z.remove(member).is_some();
                if found {
                    z.dict.shrink_if_needed();
                }
                found
            }
        }
    }

    /// `zsetRank`: the 0-based rank (from the top if `reverse`) and score.
    pub fn rank(&self, member: &[u8], reverse: bool) -> Option<(usize, f64)> {
        let len = self.len();
        let (rank1, score) = match self {
            ZSet::Listpack(lp) => {
                let i = lp.find(member)?;
                (i + 1, lp.entries[i].1)
            }
            ZSet::Skiplist(z) => {
                let score = *z.dict.get(member)?;
                (z.zsl.rank(score, member), score)
            }
        };
        Some((if reverse { len - rank1 } else { rank1 - 1 }, score))
    }

    fn get(&self, p: Pos) -> (&[u8], f64) {
        match (self, p) {
            (ZSet::Listpack(lp), Pos::Lp(i)) => {
                let (m, s) = &lp.entries[i];
                (m, *s)
            }
            (ZSet::Skiplist(z), Pos::Sl(x)) => (z.zsl.member(x), z.zsl.score(x)),
            _ => (&[], 0.0),
        }
    }

    fn step(&self, p: Pos, reverse: bool) -> Option<Pos> {
        match (self, p) {
            (ZSet::Listpack(lp), Pos::Lp(i)) => {
                if reverse {
                    i.checked_sub(1).map(Pos::Lp)
                } else {
                    (i + 1 < lp.entries.len()).then_some(Pos::Lp(i + 1))
                }
            }
            (ZSet::Skiplist(z), Pos::Sl(x)) => {
                if reverse {
                    z.zsl.prev(x).map(Pos::Sl)
                } else {
                    z.zsl.next(x).map(Pos::Sl)
                }
            }
            _ => None,
        }
    }

    /// The element at 0-based rank `i` (from the top if `reverse`).
    fn at_rank(&self, i: usize, reverse: bool) -> Option<Pos> {
        let len = self.len();
        if i >= len {
            return None;
        }
        let fwd = if reverse { len - 1 - i } else { i };
        match self {
            ZSet::Listpack(_) => Some(Pos::Lp(fwd)),
            ZSet::Skiplist(z) => z.zsl.by_rank(fwd + 1).map(Pos::Sl),
        }
    }

    /// Pairs at 0-based ranks `start..=end` (already clamped), from the top if `reverse`.
    pub fn range_by_rank(&self, start: usize, end: usize, reverse: bool) -> Vec<(Vec<u8>, f64)> {
        let mut out = Vec::with_capacity(end.saturating_sub(start) + 1);
        let mut p = self.at_rank(start, reverse);
        for _ in start..=end {
            let Some(at) = p else { break };
            let (m, s) = self.get(at);
            out.push((m.to_vec(), s));
            p = self.step(at, reverse);
        }
        out
    }

    /// Where a range walk starts: the first (or, reversed, last) element in range.
    fn range_start(&self, r: &Bounds<impl End>, reverse: bool) -> Option<Pos> {
        match self {
            ZSet::Listpack(lp) => lp.edge_in(r, reverse).map(Pos::Lp),
            ZSet::Skiplist(z) => z.edge_in(r, reverse).map(Pos::Sl),
        }
    }

    /// The walk of `genericZrange{byscore,bylex}Command`: from the first
    /// element in range skip `offset` (a negative offset walks off the end,
    /// as C's `offset--` does), then take up to `limit` (negative: no
    /// limit) while still inside.
    fn range_walk(
        &self,
        r: &Bounds<impl End>,
        offset: i64,
        limit: i64,
        reverse: bool,
    ) -> Vec<(Vec<u8>, f64)> {
        let mut out = Vec::new();
        let mut p = self.range_start(r, reverse);
        if offset < 0 {
            return out;
        }
        let mut skip = offset;
        while let (Some(at), true) = (p, skip > 0) {
            p = self.step(at, reverse);
            skip -= 1;
        }
        let mut left = limit;
        while let Some(at) = p {
            if left == 0 {
                break;
            }
            left -= 1;
            let (m, s) = self.get(at);
            let inside = if reverse {
                r.min_ok(s, m)
            } else {
                r.max_ok(s, m)
            };
            if !inside {
                break;
            }
            out.push((m.to_vec(), s));
            p = self.step(at, reverse);
        }
        out
    }

    /// ZRANGEBYSCORE's selection.
    pub fn range_by_score(
        &self,
        r: &ScoreRange,
        offset: i64,
        limit: i64,
        reverse: bool,
    ) -> Vec<(Vec<u8>, f64)> {
        // `genericZrangebyscoreCommand` returns at once for an offset past the end.
        if offset > 0 && offset as u64 >= self.len() as u64 {
            return Vec::new();
        }
        self.range_walk(r, offset, limit, reverse)
    }

    /// ZRANGEBYLEX's selection.
    pub fn range_by_lex(
        &self,
        r: &LexRange,
        offset: i64,
        limit: i64,
        reverse: bool,
    ) -> Vec<(Vec<u8>, f64)> {
        self.range_walk(r, offset, limit, reverse)
    }

    /// ZCOUNT and ZLEXCOUNT: a walk in a listpack, rank arithmetic in a
    /// skiplist, as Redis computes them (over mixed scores the skiplist's
    /// lex count can even be negative, as Redis' unsigned arithmetic shows).
    pub fn count_in(&self, r: &Bounds<impl End>) -> i64 {
        match self {
            ZSet::Listpack(lp) => match lp.edge_in(r, false) {
                None => 0,
                Some(i) => lp.entries[i..]
                    .iter()
                    .take_while(|(m, s)| r.max_ok(*s, m))
                    .count() as i64,
            },
            ZSet::Skiplist(z) => {
                let Some(first) = z.edge_in(r, false) else {
                    return 0;
                };
                let len = z.zsl.len() as i64;
                let mut count = len - (z.rank_of(first) as i64 - 1);
                if let Some(last) = z.edge_in(r, true) {
                    count -= len - z.rank_of(last) as i64;
                }
                count
            }
        }
    }

    /// ZREMRANGEBYRANK on 0-based `start..=end` (already clamped).
    pub fn remove_rank_range(&mut self, start: usize, end: usize) -> usize {
        match self {
            ZSet::Listpack(lp) => {
                let end = (end + 1).min(lp.entries.len());
                lp.remove_span(start.min(end), end)
            }
            ZSet::Skiplist(z) => {
                let removed = z.zsl.delete_rank_range(start + 1, end + 1);
                z.forget_shrinking(removed)
            }
        }
    }

    /// ZREMRANGEBYSCORE and ZREMRANGEBYLEX.
    pub fn remove_in(&mut self, r: &Bounds<impl End>) -> usize {
        match self {
            ZSet::Listpack(lp) => match lp.edge_in(r, false) {
                None => 0,
                Some(i) => {
                    let n = lp.entries[i..]
                        .iter()
                        .take_while(|(m, s)| r.max_ok(*s, m))
                        .count();
                    lp.remove_span(i, i + n)
                }
            },
            ZSet::Skiplist(z) => {
                let removed = z
                    .zsl
                    .delete_range(|s, m| !r.min_ok(s, m), |s, m| r.max_ok(s, m));
                z.forget_shrinking(removed)
            }
        }
    }

    /// Removes and returns the lowest (or highest) pair.
    pub fn pop(&mut self, max: bool) -> Option<(Vec<u8>, f64)> {
        let p = self.at_rank(0, max)?;
        let (m, s) = self.get(p);
        let (m, s) = (m.to_vec(), s);
        self.remove(&m);
        Some((m, s))
    }

    /// Every pair, lowest first.
    pub fn entries(&self) -> Vec<(&[u8], f64)> {
        match self {
            ZSet::Listpack(lp) => lp.entries.iter().map(|(m, s)| (&m[..], *s)).collect(),
            ZSet::Skiplist(z) => z.zsl.iter().collect(),
        }
    }

    /// A random pair: `dictGetFairRandomKey` on the skiplist's dict, a
    /// uniform pick in a listpack (`lpRandomPair`).
    pub fn random(&self, rng: &mut fastrand::Rng) -> Option<(Vec<u8>, f64)> {
        match self {
            ZSet::Listpack(lp) => {
                if lp.entries.is_empty() {
                    return None;
                }
                let (m, s) = &lp.entries[rng.pick(..lp.entries.len())];
                Some((m.clone(), *s))
            }
            ZSet::Skiplist(z) => z.dict.fair_random_entry(rng).map(|(m, s)| (m.to_vec(), *s)),
        }
    }

    /// `lpRandomPairsUnique`: `count` distinct pairs of a listpack, kept in
    /// order (selection sampling). `None` for a skiplist.
    pub fn random_unique_in_order(
        &self,
        count: usize,
        rng: &mut fastrand::Rng,
    ) -> Option<Vec<(Vec<u8>, f64)>> {
        let ZSet::Listpack(lp) = self else {
            return None;
        };
        let total = lp.entries.len();
        let mut remaining = count.min(total);
        let mut out = Vec::with_capacity(remaining);
        for (i, (m, s)) in lp.entries.iter().enumerate() {
            if remaining == 0 {
                break;
            }
            if rng.pick(..total - i) < remaining {
                out.push((m.clone(), *s));
                remaining -= 1;
            }
        }
        Some(out)
    }

    /// One ZSCAN step over a skiplist's dict (`None` for a listpack, which
    /// is returned whole): visits the bucket at `cursor`, gives the next cursor.
    pub fn scan_step(&self, cursor: u64, visit: impl FnMut(&[u8], f64)) -> Option<u64> {
        let ZSet::Skiplist(z) = self else {
            return None;
        };
        let mut visit = visit;
        Some(z.dict.scan(cursor, |m, s| visit(m, *s)))
    }

    /// The skiplist's nodes, levels and spans for an inspector (`None` for a listpack).
    pub fn inspect(&self) -> Option<Vec<NodeView>> {
        match self {
            ZSet::Listpack(_) => None,
            ZSet::Skiplist(z) => Some(z.zsl.inspect()),
        }
    }

    /// Like [`ZSet::inspect`], for the header and the first `limit` nodes only,
    /// with the number of levels in use.
    pub fn inspect_first(&self, limit: usize) -> Option<(Vec<NodeView>, usize)> {
        match self {
            ZSet::Listpack(_) => None,
            ZSet::Skiplist(z) => Some((z.zsl.inspect_first(limit), z.zsl.height())),
        }
    }

    /// Checks the encoding's invariants and the memory counter against a
    /// recount; for tests.
    pub fn check(&self) -> Result<(), String> {
        match self {
            ZSet::Listpack(lp) => {
                let bytes = LISTPACK_EMPTY
                    + lp.entries
                        .iter()
                        .map(|(m, s)| lp_pair_bytes(m, *s))
                        .sum::<usize>();
                if bytes != lp.bytes {
                    return Err(format!("listpack bytes {} but {bytes} recounted", lp.bytes));
                }
                if lp
                    .entries
                    .windows(2)
                    .any(|w| cmp_entry(w[0].1, &w[0].0, w[1].1, &w[1].0) != Ordering::Less)
                {
                    return Err("listpack out of order".into());
                }
                Ok(())
            }
            ZSet::Skiplist(z) => {
                z.zsl.check()?;
                if z.dict.len() != z.zsl.len() {
                    return Err("dict and skiplist sizes differ".into());
                }
                let mut mem = 0;
                for node in z.zsl.inspect().iter().skip(1) {
                    if z.dict.get(&node.member).map(|s| s.to_bits()) != Some(node.score.to_bits()) {
                        return Err("dict score differs".into());
                    }
                    mem += node_bytes(node.member.len(), node.levels.len());
                }
                if mem != z.mem {
                    return Err(format!("skiplist bytes {} but {mem} recounted", z.mem));
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        entries: 128,
        value: 64,
    };

    fn add(z: &mut ZSet, score: f64, m: &str, rng: &mut fastrand::Rng) -> AddOutcome {
        z.add(score, m.as_bytes(), AddFlags::default(), LIMITS, rng)
    }

    #[test]
    fn listpack_converts_past_the_entry_limit_and_long_members() {
        let mut rng = fastrand::Rng::with_seed(1);
        let mut z = ZSet::create(1, 1, LIMITS, &mut rng);
        for i in 0..128 {
            add(&mut z, i as f64, &format!("m{i}"), &mut rng);
        }
        assert_eq!(z.encoding(), "listpack");
        add(&mut z, 0.5, "one-more", &mut rng);
        assert_eq!(z.encoding(), "skiplist");
        assert_eq!(z.len(), 129);
        z.check().expect("consistent after conversion");

        let mut z = ZSet::create(1, 1, LIMITS, &mut rng);
        add(&mut z, 1.0, &"x".repeat(64), &mut rng);
        assert_eq!(z.encoding(), "listpack");
        add(&mut z, 1.0, &"y".repeat(65), &mut rng);
        assert_eq!(z.encoding(), "skiplist");
        // Removing everything does not convert back.
        assert!(z.remove(&[b'y'; 65]));
        assert_eq!(z.encoding(), "skiplist");
        // A rebuilt result does, when it fits.
        z.shrink_encoding_if_fits(LIMITS);
        assert_eq!(z.encoding(), "listpack");
        z.check().expect("consistent after shrinking");
    }

    #[test]
    fn both_encodings_agree_under_random_operations() {
        let mut rng = fastrand::Rng::with_seed(3);
        for round in 0..30 {
            let mut lp = ZSet::create(0, 0, LIMITS, &mut rng);
            let mut sl = ZSet::create(1000, 0, LIMITS, &mut rng);
            assert_eq!((lp.encoding(), sl.encoding()), ("listpack", "skiplist"));
            for _ in 0..300 {
                let m = format!("m{}", rng.u32(..40));
                let score =
                    [0.0, -0.0, 1.0, 2.5, -3.0, f64::INFINITY, f64::NEG_INFINITY][rng.pick(..7)];
                let flags = AddFlags {
                    incr: rng.u8(..4) == 0,
                    xx: rng.u8(..5) == 0,
                    gt: rng.u8(..6) == 0,
                    ..AddFlags::default()
                };
                match rng.u8(..8) {
                    0..=4 => {
                        let a = lp.add(score, m.as_bytes(), flags, LIMITS, &mut rng);
                        let b = sl.add(score, m.as_bytes(), flags, LIMITS, &mut rng);
                        // Same outcome, up to -0 (a listpack stores it as 0).
                        assert_eq!(
                            format!("{a:?}").replace("-0.0", "0.0"),
                            format!("{b:?}").replace("-0.0", "0.0")
                        );
                    }
                    5 => assert_eq!(lp.remove(m.as_bytes()), sl.remove(m.as_bytes())),
                    6 => {
                        let r = ScoreRange {
                            min: -1.0,
                            max: 2.5,
                            minex: rng.bool(),
                            maxex: rng.bool(),
                        };
                        let rev = rng.bool();
                        assert_eq!(lp.count_in(&r), sl.count_in(&r));
                        let names = |v: Vec<(Vec<u8>, f64)>| -> Vec<Vec<u8>> {
                            v.into_iter().map(|(m, _)| m).collect()
                        };
                        assert_eq!(
                            names(lp.range_by_score(&r, 1, 3, rev)),
                            names(sl.range_by_score(&r, 1, 3, rev))
                        );
                    }
                    _ => {
                        let rank_a = lp.rank(m.as_bytes(), false).map(|x| x.0);
                        let rank_b = sl.rank(m.as_bytes(), false).map(|x| x.0);
                        assert_eq!(rank_a, rank_b, "round {round}");
                    }
                }
                lp.check().expect("listpack consistent");
                sl.check().expect("skiplist consistent");
                let a: Vec<Vec<u8>> = lp.entries().iter().map(|(m, _)| m.to_vec()).collect();
                let b: Vec<Vec<u8>> = sl.entries().iter().map(|(m, _)| m.to_vec()).collect();
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn listpack_bytes_follow_the_encoding() {
        let mut rng = fastrand::Rng::with_seed(1);
        let mut z = ZSet::create(1, 1, LIMITS, &mut rng);
        assert_eq!(z.listpack_bytes(), Some(7));
        // "a" (header, byte, back-length) and score 1 as a 7-bit integer (2).
        add(&mut z, 1.0, "a", &mut rng);
        assert_eq!(z.listpack_bytes(), Some(12));
        // "100" is an integer member (2); 1.5 is the string "1.5" (5).
        add(&mut z, 1.5, "100", &mut rng);
        assert_eq!(z.listpack_bytes(), Some(19));
        z.remove(b"a");
        assert_eq!(z.listpack_bytes(), Some(14));
        assert_eq!(z.mem_size(), 16);
    }

    #[test]
    fn lex_ranges_compare_like_sdscmplex() {
        let lex = |min, max, minex, maxex| LexRange {
            min,
            max,
            minex,
            maxex,
        };
        let r = lex(LexItem::Min, LexItem::Str(b"b".to_vec()), true, false);
        assert!(r.min_ok(0.0, b"") && r.max_ok(0.0, b"b") && !r.max_ok(0.0, b"ba"));
        assert!(
            lex(LexItem::Max, LexItem::Min, true, true).never(),
            "+ to -"
        );
        assert!(
            lex(LexItem::Min, LexItem::Min, true, true).never(),
            "(- to (-"
        );
    }
}
