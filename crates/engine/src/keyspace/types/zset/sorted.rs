//! The big encoding of a sorted set: a skiplist with spans beside a member-to-score dictionary, with the bytes Redis allocates for both.

use super::super::skiplist::{self, SkipList, HEAD};
use super::range::{Bounds, End};
use crate::keyspace::dict::Dict;
use crate::keyspace::memory::{alloc_size, sds_size, DICT_ENTRY};

/// `sizeof(zset)`: the dict and skiplist pointers.
pub(super) const ZSET_STRUCT: usize = 16;

/// `sizeof(zskiplist)`: header, tail, length, level.
pub(super) const ZSKIPLIST_STRUCT: usize = 32;

/// `sizeof(zskiplistNode)` without levels: member, score, backward.
pub(super) const ZSL_NODE: usize = 24;

/// One level of a node: forward pointer and span.
pub(super) const ZSL_LEVEL: usize = 16;

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

    /// Drops the dict entries and the memory of `removed` skiplist nodes,
    /// then lets the dict shrink as a range deletion does; how many went.
    pub(super) fn forget_shrinking(&mut self, removed: Vec<skiplist::Removed>) -> usize {
        let n = removed.len();
        for r in removed {
            self.dict.remove(&r.member);
            self.mem -= node_bytes(r.member.len(), r.level);
        }
        self.dict.shrink_if_needed();
        n
    }

    /// `zslIsInRange` (or `zslIsInLexRange`): whether any node can be in `r`.
    fn overlaps(&self, r: &Bounds<impl End>) -> bool {
        let (Some(first), Some(last)) = (self.zsl.first(), self.zsl.last()) else {
            return false;
        };
        let zsl = &self.zsl;
        !r.never()
            && r.min_ok(zsl.score(last), zsl.member(last))
            && r.max_ok(zsl.score(first), zsl.member(first))
    }

    /// `zslFirstInRange` or, if `last`, `zslLastInRange` (and their lex
    /// twins): the skiplist search, so over mixed scores a lex answer
    /// depends on the levels, as in Redis.
    pub(super) fn edge_in(&self, r: &Bounds<impl End>, last: bool) -> Option<u32> {
        if !self.overlaps(r) {
            return None;
        }
        let x = if last {
            self.zsl.walk_while(|s, m| r.max_ok(s, m))
        } else {
            self.zsl.next(self.zsl.walk_while(|s, m| !r.min_ok(s, m)))?
        };
        (x != HEAD && r.contains(self.zsl.score(x), self.zsl.member(x))).then_some(x)
    }

    /// 1-based rank of node `x`.
    pub(super) fn rank_of(&self, x: u32) -> usize {
        self.zsl.rank(self.zsl.score(x), self.zsl.member(x))
    }
}
