//! The big encoding of a sorted set: a skiplist with spans beside a member-to-score dictionary, with the bytes Redis allocates for both.

use super::super::skiplist::{self, SkipList, HEAD};
use super::range::{LexRange, ScoreRange};
use crate::keyspace::dict::Dict;
use crate::keyspace::memory::{alloc_size, sds_size};

/// `sizeof(zset)`: the dict and skiplist pointers.
pub(super) const ZSET_STRUCT: usize = 16;

/// `sizeof(dict)` in 7.2.
pub(super) const DICT_STRUCT: usize = 56;

/// `sizeof(zskiplist)`: header, tail, length, level.
pub(super) const ZSKIPLIST_STRUCT: usize = 32;

/// `sizeof(zskiplistNode)` without levels: member, score, backward.
pub(super) const ZSL_NODE: usize = 24;

/// One level of a node: forward pointer and span.
pub(super) const ZSL_LEVEL: usize = 16;

/// `sizeof(dictEntry)`.
pub(super) const DICT_ENTRY: usize = 24;

/// Bytes one skiplist element costs: its node, its sds and its dict entry.
pub(super) fn node_bytes(member_len: usize, level: usize) -> usize {
    alloc_size(ZSL_NODE + ZSL_LEVEL * level) + sds_size(member_len) + alloc_size(DICT_ENTRY)
}

/// A large sorted set: the skiplist for order, the dict for lookups, and
/// the bytes of their per-element allocations.
#[derive(Clone, Debug)]
pub struct Sorted {
    pub(super) dict: Dict<f64>,
    pub(super) zsl: SkipList,
    pub(super) mem: usize,
}

impl PartialEq for Sorted {
    fn eq(&self, other: &Self) -> bool {
        self.zsl == other.zsl
    }
}

impl Sorted {
    pub(super) fn new(seed: u64) -> Sorted {
        Sorted {
            dict: Dict::new(seed),
            zsl: SkipList::new(),
            mem: 0,
        }
    }

    /// Adds a member known to be absent.
    pub(super) fn insert(&mut self, member: &[u8], score: f64, rng: &mut fastrand::Rng) {
        let level = skiplist::random_level(rng);
        self.zsl.insert(score, member.into(), level);
        self.dict.insert(member, score);
        self.mem += node_bytes(member.len(), level);
    }

    /// `zsetRemoveFromSkiplist` (without the resize).
    pub(super) fn remove(&mut self, member: &[u8]) -> Option<f64> {
        let (_, score) = self.dict.remove(member)?;
        if let Some(r) = self.zsl.delete(score, member) {
            self.mem -= node_bytes(r.member.len(), r.level);
        }
        Some(score)
    }

    pub(super) fn update(&mut self, member: &[u8], cur: f64, new: f64, rng: &mut fastrand::Rng) {
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

    pub(super) fn forget(&mut self, removed: Vec<skiplist::Removed>) -> usize {
        let n = removed.len();
        for r in removed {
            self.dict.remove(&r.member);
            self.mem -= node_bytes(r.member.len(), r.level);
        }
        n
    }

    /// `zslIsInRange` + `zslFirstInRange`.
    pub(super) fn first_in_range(&self, r: &ScoreRange) -> Option<u32> {
        let (first, last) = (self.zsl.first()?, self.zsl.last()?);
        if r.never() || !r.gte_min(self.zsl.score(last)) || !r.lte_max(self.zsl.score(first)) {
            return None;
        }
        let x = self.zsl.next(self.zsl.walk_while(|s, _| !r.gte_min(s)))?;
        r.lte_max(self.zsl.score(x)).then_some(x)
    }

    pub(super) fn last_in_range(&self, r: &ScoreRange) -> Option<u32> {
        let (first, last) = (self.zsl.first()?, self.zsl.last()?);
        if r.never() || !r.gte_min(self.zsl.score(last)) || !r.lte_max(self.zsl.score(first)) {
            return None;
        }
        let x = self.zsl.walk_while(|s, _| r.lte_max(s));
        (x != HEAD && r.gte_min(self.zsl.score(x))).then_some(x)
    }

    /// `zslIsInLexRange` + `zslFirstInLexRange`: the skiplist search, so over
    /// mixed scores the answer depends on the levels, as in Redis.
    pub(super) fn first_in_lex(&self, r: &LexRange) -> Option<u32> {
        let (first, last) = (self.zsl.first()?, self.zsl.last()?);
        if r.never() || !r.gte_min(self.zsl.member(last)) || !r.lte_max(self.zsl.member(first)) {
            return None;
        }
        let x = self.zsl.next(self.zsl.walk_while(|_, m| !r.gte_min(m)))?;
        r.lte_max(self.zsl.member(x)).then_some(x)
    }

    pub(super) fn last_in_lex(&self, r: &LexRange) -> Option<u32> {
        let (first, last) = (self.zsl.first()?, self.zsl.last()?);
        if r.never() || !r.gte_min(self.zsl.member(last)) || !r.lte_max(self.zsl.member(first)) {
            return None;
        }
        let x = self.zsl.walk_while(|_, m| r.lte_max(m));
        (x != HEAD && r.gte_min(self.zsl.member(x))).then_some(x)
    }

    /// 1-based rank of node `x`.
    pub(super) fn rank_of(&self, x: u32) -> usize {
        self.zsl.rank(self.zsl.score(x), self.zsl.member(x))
    }
}
