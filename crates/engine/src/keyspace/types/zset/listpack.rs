//! The small encoding of a sorted set: (member, score) pairs in a sorted vector with the listpack's exact byte size, entry by entry.

use super::super::skiplist::cmp_entry;
use super::range::{LexRange, ScoreRange};
use crate::num::double::{d2string, double2ll};
use std::cmp::Ordering;

/// `LISTPACK_MAX_SAFETY_SIZE`: `lpSafeToAdd` refuses to grow past 1 GB.
pub(super) const LISTPACK_SAFETY: usize = 1 << 30;

/// An empty listpack: 6 header bytes and the end marker.
pub(super) const LISTPACK_EMPTY: usize = 7;

/// Bytes of a listpack integer encoding.
pub(super) fn lp_int_len(v: i64) -> usize {
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
pub(super) fn lp_str_len(s: &[u8]) -> usize {
    match crate::proto::resp::parse_i64(s) {
        Some(v) => lp_int_len(v),
        None if s.len() < 64 => 1 + s.len(),
        None if s.len() < 4096 => 2 + s.len(),
        None => 5 + s.len(),
    }
}

/// An element's encoding plus its back-length.
pub(super) fn lp_entry(enc: usize) -> usize {
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
pub(super) fn lp_pair_bytes(member: &[u8], score: f64) -> usize {
    let score_len = match double2ll(score) {
        Some(v) => lp_int_len(v),
        None => lp_str_len(d2string(score).as_bytes()),
    };
    lp_entry(lp_str_len(member)) + lp_entry(score_len)
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

    /// `zzlIsInRange` + `zzlFirstInRange` / `zzlLastInRange`.
    pub(super) fn first_in_range(&self, r: &ScoreRange) -> Option<usize> {
        let (first, last) = (self.entries.first()?, self.entries.last()?);
        if r.never() || !r.gte_min(last.1) || !r.lte_max(first.1) {
            return None;
        }
        let i = self.entries.iter().position(|(_, s)| r.gte_min(*s))?;
        r.lte_max(self.entries[i].1).then_some(i)
    }

    pub(super) fn last_in_range(&self, r: &ScoreRange) -> Option<usize> {
        let (first, last) = (self.entries.first()?, self.entries.last()?);
        if r.never() || !r.gte_min(last.1) || !r.lte_max(first.1) {
            return None;
        }
        let i = self.entries.iter().rposition(|(_, s)| r.lte_max(*s))?;
        r.gte_min(self.entries[i].1).then_some(i)
    }

    /// `zzlIsInLexRange` + `zzlFirstInLexRange` / `zzlLastInLexRange`: linear
    /// walks, so the answer over mixed scores is Redis' too.
    pub(super) fn first_in_lex(&self, r: &LexRange) -> Option<usize> {
        let (first, last) = (self.entries.first()?, self.entries.last()?);
        if r.never() || !r.gte_min(&last.0) || !r.lte_max(&first.0) {
            return None;
        }
        let i = self.entries.iter().position(|(m, _)| r.gte_min(m))?;
        r.lte_max(&self.entries[i].0).then_some(i)
    }

    pub(super) fn last_in_lex(&self, r: &LexRange) -> Option<usize> {
        let (first, last) = (self.entries.first()?, self.entries.last()?);
        if r.never() || !r.gte_min(&last.0) || !r.lte_max(&first.0) {
            return None;
        }
        let i = self.entries.iter().rposition(|(m, _)| r.lte_max(m))?;
        r.gte_min(&self.entries[i].0).then_some(i)
    }
}
