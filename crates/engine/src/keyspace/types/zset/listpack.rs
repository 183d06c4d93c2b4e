//! The small encoding of a sorted set: (member, score) pairs in a sorted vector with the listpack's exact byte size, entry by entry.

use super::super::skiplist::cmp_entry;
use super::range::{Bounds, End};
use crate::keyspace::memory::{
    listpack_encoding, listpack_entry_size, listpack_int_encoding, listpack_with_backlen,
    LISTPACK_EMPTY,
};
use crate::num::double::{d2string, double2ll};
use std::cmp::Ordering;

/// Bytes a (member, score) pair takes in a listpack (`zzlInsertAt`: the
/// score as an integer when `double2ll` allows, else its `d2string` text).
pub(super) fn lp_pair_bytes(member: &[u8], score: f64) -> usize {
    let score_len = match double2ll(score) {
        Some(v) => listpack_int_encoding(v),
        None => listpack_encoding(d2string(score).as_bytes()),
    };
    listpack_entry_size(member) + listpack_with_backlen(score_len)
}

/// The score a listpack gives back for `score` (its integer form has no -0).
pub(super) fn lp_score(score: f64) -> f64 {
    if score == 0.0 {
        0.0
    } else {
        score
    }
}

/// A small sorted set: pairs in order, and the listpack's byte size.
#[derive(Clone, Debug, PartialEq)]
pub struct Listpack {
    pub(super) entries: Vec<(Vec<u8>, f64)>,
    pub(super) bytes: usize,
}

impl Listpack {
    pub(super) fn new() -> Listpack {
        Listpack {
            entries: Vec::new(),
            bytes: LISTPACK_EMPTY,
        }
    }

    pub(super) fn find(&self, member: &[u8]) -> Option<usize> {
        self.entries.iter().position(|(m, _)| m == member)
    }

    /// `zzlInsert`: before the first pair that sorts after it.
    pub(super) fn insert(&mut self, member: &[u8], score: f64) {
        let score = lp_score(score);
        let at = self
            .entries
            .partition_point(|(m, s)| cmp_entry(*s, m, score, member) != Ordering::Greater);
        self.bytes += lp_pair_bytes(member, score);
        self.entries.insert(at, (member.to_vec(), score));
    }

    pub(super) fn remove_at(&mut self, i: usize) -> (Vec<u8>, f64) {
        let (m, s) = self.entries.remove(i);
        self.bytes -= lp_pair_bytes(&m, s);
        (m, s)
    }

    pub(super) fn remove_span(&mut self, start: usize, end: usize) -> usize {
        let gone: usize = self.entries[start..end]
            .iter()
            .map(|(m, s)| lp_pair_bytes(m, *s))
            .sum();
        self.bytes -= gone;
        self.entries.drain(start..end);
        end - start
    }

    /// `zzlIsInRange` (or `zzlIsInLexRange`): whether any entry can be in `r`.
    fn overlaps(&self, r: &Bounds<impl End>) -> bool {
        let (Some(first), Some(last)) = (self.entries.first(), self.entries.last()) else {
            return false;
        };
        !r.never() && r.min_ok(last.1, &last.0) && r.max_ok(first.1, &first.0)
    }

    /// `zzlFirstInRange` or, if `last`, `zzlLastInRange` (and their lex
    /// twins): linear walks, so the answer over mixed scores is Redis' too.
    pub(super) fn edge_in(&self, r: &Bounds<impl End>, last: bool) -> Option<usize> {
        if !self.overlaps(r) {
            return None;
        }
        let mut entries = self.entries.iter();
        let i = if last {
            entries.rposition(|(m, s)| r.max_ok(*s, m))
        } else {
            entries.position(|(m, s)| r.min_ok(*s, m))
        }?;
        let (m, s) = &self.entries[i];
        r.contains(*s, m).then_some(i)
    }
}
