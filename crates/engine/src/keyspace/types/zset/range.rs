//! What sorted-set operations take: score and lexicographic ranges with Redis' inclusive and exclusive bounds, ZADD's flags and what an add did.

use std::cmp::Ordering;

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
    pub(super) fn never(&self) -> bool {
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
pub(super) fn lex_cmp(a: &LexItem, b: &LexItem) -> Ordering {
    use LexItem::*;
    match (a, b) {
        (Min, Min) | (Max, Max) => Ordering::Equal,
        (Min, _) | (_, Max) => Ordering::Less,
        (Max, _) | (_, Min) => Ordering::Greater,
        (Str(x), Str(y)) => x.cmp(y),
    }
}

/// `sdscmplex(value, item)` for a member.
pub(super) fn lex_cmp_value(v: &[u8], item: &LexItem) -> Ordering {
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

    pub(super) fn never(&self) -> bool {
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
