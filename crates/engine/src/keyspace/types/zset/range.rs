//! What sorted-set operations take: score and lexicographic ranges with Redis' inclusive and exclusive bounds, ZADD's flags and what an add did.

use std::cmp::Ordering;

/// An interval with Redis' inclusive or exclusive ends, over scores
/// ([`ScoreRange`], `zrangespec`) or members ([`LexRange`], `zlexrangespec`):
/// one type, so that every search, walk and deletion serves both families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds<T> {
    pub min: T,
    pub max: T,
    /// `(min`: exclusive.
    pub minex: bool,
    /// `(max`: exclusive.
    pub maxex: bool,
}

/// A score interval (`zrangespec`).
pub type ScoreRange = Bounds<f64>;

/// A lex interval (`zlexrangespec`).
pub type LexRange = Bounds<LexItem>;

/// What a range's ends are: scores or [`LexItem`]s. Each kind compares with
/// its own half of an entry; `None` only for NaN, which no end or score is.
pub trait End {
    /// How an entry, by its score or its member, compares with the end `e`.
    fn entry_cmp(score: f64, member: &[u8], e: &Self) -> Option<Ordering>;
    /// How two ends compare.
    fn ends_cmp(a: &Self, b: &Self) -> Option<Ordering>;
}

impl End for f64 {
    fn entry_cmp(score: f64, _: &[u8], e: &f64) -> Option<Ordering> {
        score.partial_cmp(e)
    }

    fn ends_cmp(a: &f64, b: &f64) -> Option<Ordering> {
        a.partial_cmp(b)
    }
}

/// One end of a lex range: `-` (below everything), `+` (above everything) or a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LexItem {
    Min,
    Max,
    Str(Vec<u8>),
}

impl End for LexItem {
    /// `sdscmplex(member, item)`.
    fn entry_cmp(_: f64, member: &[u8], e: &LexItem) -> Option<Ordering> {
        Some(match e {
            LexItem::Min => Ordering::Greater,
            LexItem::Max => Ordering::Less,
            LexItem::Str(s) => member.cmp(s),
        })
    }

    /// `sdscmplex` between two ends.
    fn ends_cmp(a: &LexItem, b: &LexItem) -> Option<Ordering> {
        use LexItem::*;
        Some(match (a, b) {
            (Min, Min) | (Max, Max) => Ordering::Equal,
            (Min, _) | (_, Max) => Ordering::Less,
            (Max, _) | (_, Min) => Ordering::Greater,
            (Str(x), Str(y)) => x.cmp(y),
        })
    }
}

impl<T: End> Bounds<T> {
    /// The entry is not below the start (`zslValueGteMin`, `zslLexValueGteMin`).
    pub fn min_ok(&self, score: f64, member: &[u8]) -> bool {
        within(
            T::entry_cmp(score, member, &self.min),
            Ordering::Greater,
            self.minex,
        )
    }

    /// The entry is not past the end (`zslValueLteMax`, `zslLexValueLteMax`).
    pub fn max_ok(&self, score: f64, member: &[u8]) -> bool {
        within(
            T::entry_cmp(score, member, &self.max),
            Ordering::Less,
            self.maxex,
        )
    }

    /// The entry is inside the range.
    pub fn contains(&self, score: f64, member: &[u8]) -> bool {
        self.min_ok(score, member) && self.max_ok(score, member)
    }

    /// Ranges that are empty whatever the set holds.
    pub(super) fn never(&self) -> bool {
        let c = T::ends_cmp(&self.min, &self.max);
        c == Some(Ordering::Greater) || (c == Some(Ordering::Equal) && (self.minex || self.maxex))
    }
}

/// Whether a value comparing `c` with an end lies on the range's side of it
/// (`inside`: `Greater` for the start, `Less` for the end), where an
/// `exclusive` end does not admit the end itself.
fn within(c: Option<Ordering>, inside: Ordering, exclusive: bool) -> bool {
    c == Some(inside) || (!exclusive && c == Some(Ordering::Equal))
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
