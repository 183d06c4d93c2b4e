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

use std::cmp::Ordering;

use super::skiplist::{self, cmp_entry, NodeView, SkipList, HEAD};
use crate::keyspace::dict::Dict;
use crate::keyspace::memory::{alloc_size, sds_size};
use crate::num::double::{d2string, double2ll};

/// `zset-max-listpack-entries` and `zset-max-listpack-value`, as the
/// operations that may convert need them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub entries: usize,
    pub value: usize,
}

/// `LISTPACK_MAX_SAFETY_SIZE`: `lpSafeToAdd` refuses to grow past 1 GB.
const LISTPACK_SAFETY: usize = 1 << 30;
/// An empty listpack: 6 header bytes and the end marker.
const LISTPACK_EMPTY: usize = 7;
/// `sizeof(zset)`: the dict and skiplist pointers.
const ZSET_STRUCT: usize = 16;
/// `sizeof(dict)` in 7.2.
const DICT_STRUCT: usize = 56;
/// `sizeof(zskiplist)`: header, tail, length, level.
const ZSKIPLIST_STRUCT: usize = 32;
/// `sizeof(zskiplistNode)` without levels: member, score, backward.
const ZSL_NODE: usize = 24;
/// One level of a node: forward pointer and span.
const ZSL_LEVEL: usize = 16;
/// `sizeof(dictEntry)`.
const DICT_ENTRY: usize = 24;

/// A score interval (`zrangespec`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreRange {
    pub min: f64,
    pub max: f64,
    /// `(min`: exclusive.
    pub minex: bool,
    /// `(max`: exclusive.
    pub maxex: bool,
}

impl ScoreRange {
    /// `zslValueGteMin`.
    pub fn gte_min(&self, v: f64) -> bool {
        if self.minex {
            v > self.min
        } else {
            v >= self.min
        }
    }

    /// `zslValueLteMax`.
    pub fn lte_max(&self, v: f64) -> bool {
        if self.maxex {
            v < self.max
        } else {
            v <= self.max
        }
    }

    /// Ranges that are empty whatever the set holds.
    fn never(&self) -> bool {
        self.min > self.max || (self.min == self.max && (self.minex || self.maxex))
    }
}

/// One end of a lex range: `-` (below everything), `+` (above everything) or a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LexItem {
    Min,
    Max,
    Str(Vec<u8>),
}

/// `sdscmplex` between two range ends.
fn lex_cmp(a: &LexItem, b: &LexItem) -> Ordering {
    use LexItem::*;
    match (a, b) {
        (Min, Min) | (Max, Max) => Ordering::Equal,
        (Min, _) | (_, Max) => Ordering::Less,
        (Max, _) | (_, Min) => Ordering::Greater,
        (Str(x), Str(y)) => x.cmp(y),
    }
}

/// `sdscmplex(value, item)` for a member.
fn lex_cmp_value(v: &[u8], item: &LexItem) -> Ordering {
    match item {
        LexItem::Min => Ordering::Greater,
        LexItem::Max => Ordering::Less,
        LexItem::Str(s) => v.cmp(s),
    }
}

/// A lex interval (`zlexrangespec`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexRange {
    pub min: LexItem,
    pub max: LexItem,
    pub minex: bool,
    pub maxex: bool,
}

impl LexRange {
    /// `zslLexValueGteMin`.
    pub fn gte_min(&self, v: &[u8]) -> bool {
        let c = lex_cmp_value(v, &self.min);
        if self.minex {
            c == Ordering::Greater
        } else {
            c != Ordering::Less
        }
    }

    /// `zslLexValueLteMax`.
    pub fn lte_max(&self, v: &[u8]) -> bool {
        let c = lex_cmp_value(v, &self.max);
        if self.maxex {
            c == Ordering::Less
        } else {
            c != Ordering::Greater
        }
    }

    fn never(&self) -> bool {
        let c = lex_cmp(&self.min, &self.max);
        c == Ordering::Greater || (c == Ordering::Equal && (self.minex || self.maxex))
    }
}

/// ZADD's input flags (`ZADD_IN_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddFlags {
    pub incr: bool,
    pub nx: bool,
    pub xx: bool,
    pub gt: bool,
    pub lt: bool,
}

/// What `zsetAdd` did (`ZADD_OUT_*`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AddOutcome {
    /// The increment made the score NaN; nothing changed.
    Nan,
    /// Nothing done because of NX, XX, GT or LT.
    Nop,
    /// A new member, with its score.
    Added(f64),
    /// An existing member whose score changed.
    Updated(f64),
    /// An existing member whose score stayed the same.
    Same(f64),
}

/// Bytes of a listpack integer encoding.
fn lp_int_len(v: i64) -> usize {
    match v {
        0..=127 => 1,
        -4096..=4095 => 2,
        -32_768..=32_767 => 3,
        -8_388_608..=8_388_607 => 4,
        -2_147_483_648..=2_147_483_647 => 5,
        _ => 9,
    }
}

/// Bytes of a listpack element holding `s` (integer form when it reads as one).
fn lp_str_len(s: &[u8]) -> usize {
    match crate::proto::resp::parse_i64(s) {
        Some(v) => lp_int_len(v),
        None if s.len() < 64 => 1 + s.len(),
        None if s.len() < 4096 => 2 + s.len(),
        None => 5 + s.len(),
    }
}

/// An element's encoding plus its back-length.
fn lp_entry(enc: usize) -> usize {
    let back = match enc {
        0..=127 => 1,
        128..=16_382 => 2,
        16_383..=2_097_150 => 3,
        2_097_151..=268_435_454 => 4,
        _ => 5,
    };
    enc + back
}

/// Bytes a (member, score) pair takes in a listpack (`zzlInsertAt`: the
/// score as an integer when `double2ll` allows, else its `d2string` text).
fn lp_pair_bytes(member: &[u8], score: f64) -> usize {
    let score_len = match double2ll(score) {
        Some(v) => lp_int_len(v),
        None => lp_str_len(d2string(score).as_bytes()),
    };
    lp_entry(lp_str_len(member)) + lp_entry(score_len)
}

/// The score a listpack gives back for `score` (its integer form has no -0).
fn lp_score(score: f64) -> f64 {
    if score == 0.0 {
        0.0
    } else {
        score
    }
}

/// Bytes one skiplist element costs: its node, its sds and its dict entry.
fn node_bytes(member_len: usize, level: usize) -> usize {
    alloc_size(ZSL_NODE + ZSL_LEVEL * level) + sds_size(member_len) + alloc_size(DICT_ENTRY)
}

/// A small sorted set: pairs in order, and the listpack's byte size.
#[derive(Clone, Debug, PartialEq)]
pub struct Listpack {
    entries: Vec<(Vec<u8>, f64)>,
    bytes: usize,
}

impl Listpack {
    fn new() -> Listpack {
        Listpack {
            entries: Vec::new(),
            bytes: LISTPACK_EMPTY,
        }
    }

    fn find(&self, member: &[u8]) -> Option<usize> {
        self.entries.iter().position(|(m, _)| m == member)
    }

    /// `zzlInsert`: before the first pair that sorts after it.
    fn insert(&mut self, member: &[u8], score: f64) {
        let score = lp_score(score);
        let at = self
            .entries
            .partition_point(|(m, s)| cmp_entry(*s, m, score, member) != Ordering::Greater);
        self.bytes += lp_pair_bytes(member, score);
        self.entries.insert(at, (member.to_vec(), score));
    }

    fn remove_at(&mut self, i: usize) -> (Vec<u8>, f64) {
        let (m, s) = self.entries.remove(i);
        self.bytes -= lp_pair_bytes(&m, s);
        (m, s)
    }

    fn remove_span(&mut self, start: usize, end: usize) -> usize {
        let gone: usize = self.entries[start..end]
            .iter()
            .map(|(m, s)| lp_pair_bytes(m, *s))
            .sum();
        self.bytes -= gone;
        self.entries.drain(start..end);
        end - start
    }

    /// `zzlIsInRange` + `zzlFirstInRange` / `zzlLastInRange`.
    fn first_in_range(&self, r: &ScoreRange) -> Option<usize> {
        let (first, last) = (self.entries.first()?, self.entries.last()?);
        if r.never() || !r.gte_min(last.1) || !r.lte_max(first.1) {
            return None;
        }
        let i = self.entries.iter().position(|(_, s)| r.gte_min(*s))?;
        r.lte_max(self.entries[i].1).then_some(i)
    }

    fn last_in_range(&self, r: &ScoreRange) -> Option<usize> {
        let (first, last) = (self.entries.first()?, self.entries.last()?);
        if r.never() || !r.gte_min(last.1) || !r.lte_max(first.1) {
            return None;
        }
        let i = self.entries.iter().rposition(|(_, s)| r.lte_max(*s))?;
        r.gte_min(self.entries[i].1).then_some(i)
    }

    /// `zzlIsInLexRange` + `zzlFirstInLexRange` / `zzlLastInLexRange`: linear
    /// walks, so the answer over mixed scores is Redis' too.
    fn first_in_lex(&self, r: &LexRange) -> Option<usize> {
        let (first, last) = (self.entries.first()?, self.entries.last()?);
        if r.never() || !r.gte_min(&last.0) || !r.lte_max(&first.0) {
            return None;
        }
        let i = self.entries.iter().position(|(m, _)| r.gte_min(m))?;
        r.lte_max(&self.entries[i].0).then_some(i)
    }

    fn last_in_lex(&self, r: &LexRange) -> Option<usize> {
        let (first, last) = (self.entries.first()?, self.entries.last()?);
        if r.never() || !r.gte_min(&last.0) || !r.lte_max(&first.0) {
            return None;
        }
        let i = self.entries.iter().rposition(|(m, _)| r.lte_max(m))?;
        r.gte_min(&self.entries[i].0).then_some(i)
    }
}

/// A large sorted set: the skiplist for order, the dict for lookups, and
/// the bytes of their per-element allocations.
#[derive(Clone, Debug)]
pub struct Sorted {
    dict: Dict<f64>,
    zsl: SkipList,
    mem: usize,
}

impl PartialEq for Sorted {
    fn eq(&self, other: &Self) -> bool {
        self.zsl == other.zsl
    }
}

impl Sorted {
    fn new(seed: u64) -> Sorted {
        Sorted {
            dict: Dict::new(seed),
            zsl: SkipList::new(),
            mem: 0,
        }
    }

    /// Adds a member known to be absent.
    fn insert(&mut self, member: &[u8], score: f64, rng: &mut fastrand::Rng) {
        let level = skiplist::random_level(rng);
        self.zsl.insert(score, member.into(), level);
        self.dict.insert(member, score);
        self.mem += node_bytes(member.len(), level);
    }

    /// `zsetRemoveFromSkiplist` (without the resize).
    fn remove(&mut self, member: &[u8]) -> Option<f64> {
        let (_, score) = self.dict.remove(member)?;
        if let Some(r) = self.zsl.delete(score, member) {
            self.mem -= node_bytes(r.member.len(), r.level);
        }
        Some(score)
    }

    fn update(&mut self, member: &[u8], cur: f64, new: f64, rng: &mut fastrand::Rng) {
        if let Some((old, now)) = self
            .zsl
            .update_score(cur, member, new, || skiplist::random_level(rng))
        {
            self.mem = self.mem + node_bytes(member.len(), now) - node_bytes(member.len(), old);
        }
        if let Some(s) = self.dict.get_mut(member) {
            *s = new;
        }
    }

    fn forget(&mut self, removed: Vec<skiplist::Removed>) -> usize {
        let n = removed.len();
        for r in removed {
            self.dict.remove(&r.member);
            self.mem -= node_bytes(r.member.len(), r.level);
        }
        n
    }

    /// `zslIsInRange` + `zslFirstInRange`.
    fn first_in_range(&self, r: &ScoreRange) -> Option<u32> {
        let (first, last) = (self.zsl.first()?, self.zsl.last()?);
        if r.never() || !r.gte_min(self.zsl.score(last)) || !r.lte_max(self.zsl.score(first)) {
            return None;
        }
        let x = self.zsl.next(self.zsl.walk_while(|s, _| !r.gte_min(s)))?;
        r.lte_max(self.zsl.score(x)).then_some(x)
    }

    fn last_in_range(&self, r: &ScoreRange) -> Option<u32> {
        let (first, last) = (self.zsl.first()?, self.zsl.last()?);
        if r.never() || !r.gte_min(self.zsl.score(last)) || !r.lte_max(self.zsl.score(first)) {
            return None;
        }
        let x = self.zsl.walk_while(|s, _| r.lte_max(s));
        (x != HEAD && r.gte_min(self.zsl.score(x))).then_some(x)
    }

    /// `zslIsInLexRange` + `zslFirstInLexRange`: the skiplist search, so over
    /// mixed scores the answer depends on the levels, as in Redis.
    fn first_in_lex(&self, r: &LexRange) -> Option<u32> {
        let (first, last) = (self.zsl.first()?, self.zsl.last()?);
        if r.never() || !r.gte_min(self.zsl.member(last)) || !r.lte_max(self.zsl.member(first)) {
            return None;
        }
        let x = self.zsl.next(self.zsl.walk_while(|_, m| !r.gte_min(m)))?;
        r.lte_max(self.zsl.member(x)).then_some(x)
    }

    fn last_in_lex(&self, r: &LexRange) -> Option<u32> {
        let (first, last) = (self.zsl.first()?, self.zsl.last()?);
        if r.never() || !r.gte_min(self.zsl.member(last)) || !r.lte_max(self.zsl.member(first)) {
            return None;
        }
        let x = self.zsl.walk_while(|_, m| r.lte_max(m));
        (x != HEAD && r.gte_min(self.zsl.member(x))).then_some(x)
    }

    /// 1-based rank of node `x`.
    fn rank_of(&self, x: u32) -> usize {
        self.zsl.rank(self.zsl.score(x), self.zsl.member(x))
    }
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
        if z.zsl.len() <= limits.entries && maxlen <= limits.value && total <= LISTPACK_SAFETY {
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
                && lp.bytes + member.len() <= LISTPACK_SAFETY
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
    fn range_start(
        &self,
        score: Option<&ScoreRange>,
        lex: Option<&LexRange>,
        reverse: bool,
    ) -> Option<Pos> {
        match self {
            ZSet::Listpack(lp) => match (score, lex, reverse) {
                (Some(r), _, false) => lp.first_in_range(r),
                (Some(r), _, true) => lp.last_in_range(r),
                (None, Some(r), false) => lp.first_in_lex(r),
                (None, Some(r), true) => lp.last_in_lex(r),
                _ => None,
            }
            .map(Pos::Lp),
            ZSet::Skiplist(z) => match (score, lex, reverse) {
                (Some(r), _, false) => z.first_in_range(r),
                (Some(r), _, true) => z.last_in_range(r),
                (None, Some(r), false) => z.first_in_lex(r),
                (None, Some(r), true) => z.last_in_lex(r),
                _ => None,
            }
            .map(Pos::Sl),
        }
    }

    /// The walk of `genericZrange{byscore,bylex}Command`: from the first
    /// element in range skip `offset` (a negative offset walks off the end,
    /// as C's `offset--` does), then take up to `limit` (negative: no
    /// limit) while still inside.
    fn range_walk(
        &self,
        score: Option<&ScoreRange>,
        lex: Option<&LexRange>,
        offset: i64,
        limit: i64,
        reverse: bool,
    ) -> Vec<(Vec<u8>, f64)> {
        let mut out = Vec::new();
        let mut p = self.range_start(score, lex, reverse);
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
            let inside = match (score, lex) {
                (Some(r), _) if reverse => r.gte_min(s),
                (Some(r), _) => r.lte_max(s),
                (None, Some(r)) if reverse => r.gte_min(m),
                (None, Some(r)) => r.lte_max(m),
                _ => false,
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
        self.range_walk(Some(r), None, offset, limit, reverse)
    }

    /// ZRANGEBYLEX's selection.
    pub fn range_by_lex(
        &self,
        r: &LexRange,
        offset: i64,
        limit: i64,
        reverse: bool,
    ) -> Vec<(Vec<u8>, f64)> {
        self.range_walk(None, Some(r), offset, limit, reverse)
    }

    /// ZCOUNT: a walk in a listpack, rank arithmetic in a skiplist.
    pub fn count_in_range(&self, r: &ScoreRange) -> i64 {
        match self {
            ZSet::Listpack(lp) => match lp.first_in_range(r) {
                None => 0,
                Some(i) => lp.entries[i..]
                    .iter()
                    .take_while(|(_, s)| r.lte_max(*s))
                    .count() as i64,
            },
            ZSet::Skiplist(z) => {
                let Some(first) = z.first_in_range(r) else {
                    return 0;
                };
                let len = z.zsl.len() as i64;
                let mut count = len - (z.rank_of(first) as i64 - 1);
                if let Some(last) = z.last_in_range(r) {
                    count -= len - z.rank_of(last) as i64;
                }
                count
            }
        }
    }

    /// ZLEXCOUNT, computed as Redis does (over mixed scores the skiplist
    /// answer can even be negative, as Redis' unsigned arithmetic shows).
    pub fn count_in_lex(&self, r: &LexRange) -> i64 {
        match self {
            ZSet::Listpack(lp) => match lp.first_in_lex(r) {
                None => 0,
                Some(i) => lp.entries[i..]
                    .iter()
                    .take_while(|(m, _)| r.lte_max(m))
                    .count() as i64,
            },
            ZSet::Skiplist(z) => {
                let Some(first) = z.first_in_lex(r) else {
                    return 0;
                };
                let len = z.zsl.len() as i64;
                let mut count = len - (z.rank_of(first) as i64 - 1);
                if let Some(last) = z.last_in_lex(r) {
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
                let n = z.forget(removed);
                z.dict.shrink_if_needed();
                n
            }
        }
    }

    /// ZREMRANGEBYSCORE.
    pub fn remove_score_range(&mut self, r: &ScoreRange) -> usize {
        match self {
            ZSet::Listpack(lp) => match lp.first_in_range(r) {
                None => 0,
                Some(i) => {
                    let n = lp.entries[i..]
                        .iter()
                        .take_while(|(_, s)| r.lte_max(*s))
                        .count();
                    lp.remove_span(i, i + n)
                }
            },
            ZSet::Skiplist(z) => {
                let removed = z
                    .zsl
                    .delete_range(|s, _| !r.gte_min(s), |s, _| r.lte_max(s));
                let n = z.forget(removed);
                z.dict.shrink_if_needed();
                n
            }
        }
    }

    /// ZREMRANGEBYLEX.
    pub fn remove_lex_range(&mut self, r: &LexRange) -> usize {
        match self {
            ZSet::Listpack(lp) => match lp.first_in_lex(r) {
                None => 0,
                Some(i) => {
                    let n = lp.entries[i..]
                        .iter()
                        .take_while(|(m, _)| r.lte_max(m))
                        .count();
                    lp.remove_span(i, i + n)
                }
            },
            ZSet::Skiplist(z) => {
                let removed = z
                    .zsl
                    .delete_range(|_, m| !r.gte_min(m), |_, m| r.lte_max(m));
                let n = z.forget(removed);
                z.dict.shrink_if_needed();
                n
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
                let (m, s) = &lp.entries[rng.usize(..lp.entries.len())];
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
            if rng.usize(..total - i) < remaining {
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
                    [0.0, -0.0, 1.0, 2.5, -3.0, f64::INFINITY, f64::NEG_INFINITY][rng.usize(..7)];
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
                        assert_eq!(lp.count_in_range(&r), sl.count_in_range(&r));
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
        let r = LexRange {
            min: LexItem::Min,
            max: LexItem::Str(b"b".to_vec()),
            minex: true,
            maxex: false,
        };
        assert!(r.gte_min(b"") && r.lte_max(b"b") && !r.lte_max(b"ba"));
        let never = LexRange {
            min: LexItem::Max,
            max: LexItem::Min,
            minex: true,
            maxex: true,
        };
        assert!(never.never());
        let same = LexRange {
            min: LexItem::Min,
            max: LexItem::Min,
            minex: true,
            maxex: true,
        };
        assert!(same.never());
    }
}
