//! The skiplist of a large sorted set, as Redis' t_zset.c keeps it: nodes ordered by (score, member), up to 32 levels with forward links and spans (so ranks cost O(log n)), and backward links on level 0.
//!
//! Nodes live in an arena (`Vec`) and link to each other by index; freed
//! slots are reused. The header is not a node: its levels are kept apart
//! and addressed as [`HEAD`]. Levels are drawn by the caller from the
//! engine's seeded RNG ([`random_level`]), so a run is reproducible. The
//! algorithms are Redis' (`zslInsert`, `zslDeleteNode`, `zslUpdateScore`,
//! `zslGetRank`, `zslGetElementByRank`, the range deletions): where the
//! order a predicate assumes does not hold (lex ranges over mixed scores),
//! what they return depends on the levels exactly as in Redis.

use std::cmp::Ordering;

/// `ZSKIPLIST_MAXLEVEL`.
pub const MAX_LEVEL: usize = 32;
/// `ZSKIPLIST_P` = 0.25, as a threshold on a uniform `u32`.
const P_THRESHOLD: u32 = u32::MAX / 4;
/// "No node".
const NIL: u32 = u32::MAX;
/// The header, whose levels are `SkipList::head`.
pub const HEAD: u32 = u32::MAX - 1;

/// `zslRandomLevel`: 1, then one more level with probability 1/4 each time.
pub fn random_level(rng: &mut fastrand::Rng) -> usize {
    let mut level = 1;
    while level < MAX_LEVEL && rng.u32(..) < P_THRESHOLD {
        level += 1;
    }
    level
}

/// (score, member) order: scores compare as doubles (so -0 equals 0), ties by bytes (`sdscmp`).
pub fn cmp_entry(score_a: f64, member_a: &[u8], score_b: f64, member_b: &[u8]) -> Ordering {
    if score_a < score_b {
        Ordering::Less
    } else if score_a > score_b {
        Ordering::Greater
    } else {
        member_a.cmp(member_b)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Level {
    forward: u32,
    span: usize,
}

const EMPTY_LEVEL: Level = Level {
    forward: NIL,
    span: 0,
};

#[derive(Clone, Debug)]
struct Node {
    member: Box<[u8]>,
    score: f64,
    backward: u32,
    levels: Box<[Level]>,
}

/// A skiplist of (score, member) pairs; members are unique (the caller's
/// dictionary guarantees it, as in Redis).
#[derive(Clone, Debug)]
pub struct SkipList {
    head: [Level; MAX_LEVEL],
    tail: u32,
    len: usize,
    level: usize,
    nodes: Vec<Node>,
    free: Vec<u32>,
}

impl Default for SkipList {
    fn default() -> Self {
        SkipList::new()
    }
}

/// Equal when they hold the same pairs in the same order (levels aside).
impl PartialEq for SkipList {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self
                .iter()
                .zip(other.iter())
                .all(|(a, b)| a.0 == b.0 && a.1.to_bits() == b.1.to_bits())
    }
}

/// A node taken out of the list.
#[derive(Debug)]
pub struct Removed {
    pub member: Box<[u8]>,
    pub score: f64,
    /// How many levels it had (its allocation size depends on it).
    pub level: usize,
}

/// One link of the inspector's view: where a level points and how many
/// ranks it jumps.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LinkView {
    /// 1-based rank of the node this level points to, or `None` at the end.
    pub forward: Option<usize>,
    /// Ranks crossed by following the link (`span`).
    pub span: usize,
}

/// One node (or the header) as a UI draws it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NodeView {
    /// 1-based rank; 0 for the header.
    pub rank: usize,
    /// Empty for the header.
    pub member: Vec<u8>,
    pub score: f64,
    /// One entry per level of the node, level 0 first.
    pub levels: Vec<LinkView>,
}

impl SkipList {
    /// `zslCreate`: an empty list whose header has every level.
    pub fn new() -> SkipList {
        SkipList {
            head: [EMPTY_LEVEL; MAX_LEVEL],
            tail: NIL,
            len: 0,
            level: 1,
            nodes: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Levels in use (`zsl->level`).
    pub fn height(&self) -> usize {
        self.level
    }

    fn lvl(&self, x: u32, i: usize) -> Level {
        if x == HEAD {
            self.head[i]
        } else {
            self.nodes[x as usize].levels[i]
        }
    }

    fn lvl_mut(&mut self, x: u32, i: usize) -> &mut Level {
        if x == HEAD {
            &mut self.head[i]
        } else {
            &mut self.nodes[x as usize].levels[i]
        }
    }

    fn node(&self, x: u32) -> &Node {
        &self.nodes[x as usize]
    }

    /// The member of node `x`.
    pub fn member(&self, x: u32) -> &[u8] {
        &self.node(x).member
    }

    /// The score of node `x`.
    pub fn score(&self, x: u32) -> f64 {
        self.node(x).score
    }

    /// The first node (lowest), if any.
    pub fn first(&self) -> Option<u32> {
        some(self.head[0].forward)
    }

    /// The last node (highest), if any.
    pub fn last(&self) -> Option<u32> {
        some(self.tail)
    }

    /// The node after `x` on level 0 (`HEAD` gives the first).
    pub fn next(&self, x: u32) -> Option<u32> {
        some(self.lvl(x, 0).forward)
    }

    /// The node before `x`.
    pub fn prev(&self, x: u32) -> Option<u32> {
        some(self.node(x).backward)
    }

    /// Every (member, score) in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&[u8], f64)> + '_ {
        // Collected ids: the list is walked once, then either direction is free.
        let mut ids = Vec::with_capacity(self.len);
        let mut x = self.head[0].forward;
        while x != NIL {
            ids.push(x);
            x = self.node(x).levels[0].forward;
        }
        ids.into_iter().map(move |x| {
            let n = self.node(x);
            (&*n.member, n.score)
        })
    }

    /// True if node `x` sorts before (score, member).
    fn before(&self, x: u32, score: f64, member: &[u8]) -> bool {
        let n = self.node(x);
        cmp_entry(n.score, &n.member, score, member) == Ordering::Less
    }

    fn alloc(&mut self, node: Node) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    fn release(&mut self, x: u32) -> Removed {
        let n = &mut self.nodes[x as usize];
        let member = std::mem::take(&mut n.member);
        let level = std::mem::take(&mut n.levels).len();
        let score = n.score;
        self.free.push(x);
        Removed {
            member,
            score,
            level,
        }
    }

    /// `zslInsert`: links a new node of `level` levels (1..=32) for a
    /// member not yet present; returns its id.
    pub fn insert(&mut self, score: f64, member: Box<[u8]>, level: usize) -> u32 {
        let level = level.clamp(1, MAX_LEVEL);
        let mut update = [HEAD; MAX_LEVEL];
        let mut rank = [0usize; MAX_LEVEL];
        let mut x = HEAD;
        for i in (0..self.level).rev() {
            rank[i] = if i == self.level - 1 { 0 } else { rank[i + 1] };
            loop {
                let l = self.lvl(x, i);
                if l.forward != NIL && self.before(l.forward, score, &member) {
                    rank[i] += l.span;
                    x = l.forward;
                } else {
                    break;
                }
            }
            update[i] = x;
        }
        if level > self.level {
            for i in self.level..level {
                rank[i] = 0;
                update[i] = HEAD;
                self.head[i].span = self.len;
            }
            self.level = level;
        }
        let id = self.alloc(Node {
            member,
            score,
            backward: NIL,
            levels: vec![EMPTY_LEVEL; level].into_boxed_slice(),
        });
        for i in 0..level {
            let u = self.lvl(update[i], i);
            let crossed = rank[0] - rank[i];
            self.nodes[id as usize].levels[i] = Level {
                forward: u.forward,
                span: u.span - crossed,
            };
            *self.lvl_mut(update[i], i) = Level {
                forward: id,
                span: crossed + 1,
            };
        }
        for (i, &u) in update.iter().enumerate().take(self.level).skip(level) {
            self.lvl_mut(u, i).span += 1;
        }
        self.nodes[id as usize].backward = if update[0] == HEAD { NIL } else { update[0] };
        let fwd = self.nodes[id as usize].levels[0].forward;
        if fwd != NIL {
            self.nodes[fwd as usize].backward = id;
        } else {
            self.tail = id;
        }
        self.len += 1;
        id
    }

    /// `zslDeleteNode`: unlinks `x` given its predecessors on every level.
    fn unlink(&mut self, x: u32, update: &[u32; MAX_LEVEL]) {
        for (i, &u) in update.iter().enumerate().take(self.level) {
            let ul = self.lvl(u, i);
            if ul.forward == x {
                let xl = self.node(x).levels[i];
                *self.lvl_mut(u, i) = Level {
                    forward: xl.forward,
                    span: ul.span + xl.span - 1,
                };
            } else {
                self.lvl_mut(u, i).span -= 1;
            }
        }
        let (fwd, back) = {
            let n = self.node(x);
            (n.levels[0].forward, n.backward)
        };
        if fwd != NIL {
            self.nodes[fwd as usize].backward = back;
        } else {
            self.tail = back;
        }
        while self.level > 1 && self.head[self.level - 1].forward == NIL {
            self.level -= 1;
        }
        self.len -= 1;
    }

    /// The predecessors of the position of (score, member) on every level.
    fn predecessors(&self, score: f64, member: &[u8]) -> [u32; MAX_LEVEL] {
        self.predecessors_while(|s, m| cmp_entry(s, m, score, member) == Ordering::Less)
    }

    /// Walks forward on each level while `go` holds for the next node;
    /// returns where each level stopped.
    fn predecessors_while(&self, go: impl Fn(f64, &[u8]) -> bool) -> [u32; MAX_LEVEL] {
        let mut update = [HEAD; MAX_LEVEL];
        let mut x = HEAD;
        for i in (0..self.level).rev() {
            loop {
                let f = self.lvl(x, i).forward;
                if f != NIL && go(self.node(f).score, &self.node(f).member) {
                    x = f;
                } else {
                    break;
                }
            }
            update[i] = x;
        }
        update
    }

    /// `zslDelete`: removes (score, member), if there.
    pub fn delete(&mut self, score: f64, member: &[u8]) -> Option<Removed> {
        let update = self.predecessors(score, member);
        let x = self.lvl(update[0], 0).forward;
        if x != NIL && self.node(x).score == score && &*self.node(x).member == member {
            self.unlink(x, &update);
            return Some(self.release(x));
        }
        None
    }

    /// `zslUpdateScore`: moves an existing (cur, member) to `new`; in place
    /// when the order allows, otherwise unlinked and reinserted at a level
    /// drawn by `level` (only called then, as Redis only draws then).
    /// Returns the node's (old, new) level count, or `None` if the pair is
    /// not there.
    pub fn update_score(
        &mut self,
        cur: f64,
        member: &[u8],
        new: f64,
        level: impl FnOnce() -> usize,
    ) -> Option<(usize, usize)> {
        let update = self.predecessors(cur, member);
        let x = self.lvl(update[0], 0).forward;
        if x == NIL || self.node(x).score != cur || &*self.node(x).member != member {
            return None;
        }
        let n = self.node(x);
        let back_ok = n.backward == NIL || self.node(n.backward).score < new;
        let fwd = n.levels[0].forward;
        let fwd_ok = fwd == NIL || self.node(fwd).score > new;
        if back_ok && fwd_ok {
            let l = n.levels.len();
            self.nodes[x as usize].score = new;
            return Some((l, l));
        }
        self.unlink(x, &update);
        let old = self.release(x);
        let id = self.insert(new, old.member, level());
        Some((old.level, self.node_level(id)))
    }

    /// `zslGetRank`: the 1-based rank of (score, member), 0 if absent.
    pub fn rank(&self, score: f64, member: &[u8]) -> usize {
        let mut rank = 0;
        let mut x = HEAD;
        for i in (0..self.level).rev() {
            loop {
                let l = self.lvl(x, i);
                if l.forward != NIL
                    && cmp_entry(
                        self.node(l.forward).score,
                        &self.node(l.forward).member,
                        score,
                        member,
                    ) != Ordering::Greater
                {
                    rank += l.span;
                    x = l.forward;
                } else {
                    break;
                }
            }
            if x != HEAD && self.node(x).score == score && &*self.node(x).member == member {
                return rank;
            }
        }
        0
    }

    /// `zslGetElementByRank`: the node at 1-based `rank`.
    pub fn by_rank(&self, rank: usize) -> Option<u32> {
        let mut traversed = 0;
        let mut x = HEAD;
        for i in (0..self.level).rev() {
            loop {
                let l = self.lvl(x, i);
                if l.forward != NIL && traversed + l.span <= rank {
                    traversed += l.span;
                    x = l.forward;
                } else {
                    break;
                }
            }
            if traversed == rank {
                return (x != HEAD).then_some(x);
            }
        }
        None
    }

    /// The last node reached by walking forward on every level while `go`
    /// holds for the next node (`HEAD` if none): the search of
    /// `zslFirstInRange` (with `go` = "below min", then one step) and of
    /// `zslLastInRange` (with `go` = "not above max").
    pub fn walk_while(&self, go: impl Fn(f64, &[u8]) -> bool) -> u32 {
        self.predecessors_while(go)[0]
    }

    /// `zslDeleteRangeBy{Score,Lex}`: finds where `before` stops holding,
    /// then deletes nodes while `inside` holds. Returns the removed pairs.
    pub fn delete_range(
        &mut self,
        before: impl Fn(f64, &[u8]) -> bool,
        inside: impl Fn(f64, &[u8]) -> bool,
    ) -> Vec<Removed> {
        let update = self.predecessors_while(before);
        let mut removed = Vec::new();
        let mut x = self.lvl(update[0], 0).forward;
        while x != NIL && inside(self.node(x).score, &self.node(x).member) {
            let next = self.node(x).levels[0].forward;
            self.unlink(x, &update);
            removed.push(self.release(x));
            x = next;
        }
        removed
    }

    /// `zslDeleteRangeByRank`: deletes 1-based ranks `start..=end`.
    pub fn delete_rank_range(&mut self, start: usize, end: usize) -> Vec<Removed> {
        let mut update = [HEAD; MAX_LEVEL];
        let mut traversed = 0;
        let mut x = HEAD;
        for i in (0..self.level).rev() {
            loop {
                let l = self.lvl(x, i);
                if l.forward != NIL && traversed + l.span < start {
                    traversed += l.span;
                    x = l.forward;
                } else {
                    break;
                }
            }
            update[i] = x;
        }
        traversed += 1;
        let mut removed = Vec::new();
        let mut x = self.lvl(x, 0).forward;
        while x != NIL && traversed <= end {
            let next = self.node(x).levels[0].forward;
            self.unlink(x, &update);
            removed.push(self.release(x));
            traversed += 1;
            x = next;
        }
        removed
    }

    /// Levels of `x` (the header has all 32, of which `height()` are in use).
    pub fn node_level(&self, x: u32) -> usize {
        if x == HEAD {
            MAX_LEVEL
        } else {
            self.node(x).levels.len()
        }
    }

    /// Every node with its levels and spans, header first (its used levels
    /// only), for a UI to draw the structure.
    pub fn inspect(&self) -> Vec<NodeView> {
        let mut rank_of = vec![0usize; self.nodes.len()];
        let mut order = Vec::with_capacity(self.len);
        let mut x = self.head[0].forward;
        while x != NIL {
            order.push(x);
            rank_of[x as usize] = order.len();
            x = self.node(x).levels[0].forward;
        }
        let link = |l: Level| LinkView {
            forward: (l.forward != NIL).then(|| rank_of[l.forward as usize]),
            span: l.span,
        };
        let mut out = vec![NodeView {
            rank: 0,
            member: Vec::new(),
            score: 0.0,
            levels: self.head[..self.level].iter().map(|&l| link(l)).collect(),
        }];
        for (i, &x) in order.iter().enumerate() {
            let n = self.node(x);
            out.push(NodeView {
                rank: i + 1,
                member: n.member.to_vec(),
                score: n.score,
                levels: n.levels.iter().map(|&l| link(l)).collect(),
            });
        }
        out
    }

    /// The header and the first `limit` nodes as [`SkipList::inspect`] gives
    /// them, in O(`limit` × levels): a link's target rank is its node's rank
    /// plus its span, so nodes past the limit need not be visited.
    pub fn inspect_first(&self, limit: usize) -> Vec<NodeView> {
        let links = |rank: usize, levels: &[Level]| -> Vec<LinkView> {
            levels
                .iter()
                .map(|l| LinkView {
                    forward: (l.forward != NIL).then_some(rank + l.span),
                    span: l.span,
                })
                .collect()
        };
        let mut out = Vec::with_capacity(limit.min(self.len) + 1);
        out.push(NodeView {
            rank: 0,
            member: Vec::new(),
            score: 0.0,
            levels: links(0, &self.head[..self.level]),
        });
        let mut x = self.head[0].forward;
        while x != NIL && out.len() <= limit {
            let n = self.node(x);
            let rank = out.len();
            out.push(NodeView {
                rank,
                member: n.member.to_vec(),
                score: n.score,
                levels: links(rank, &n.levels),
            });
            x = n.levels[0].forward;
        }
        out
    }

    /// Checks every structural invariant (order, spans, back links, tail,
    /// level count); for tests.
    pub fn check(&self) -> Result<(), String> {
        let order: Vec<u32> = {
            let mut v = Vec::new();
            let mut x = self.head[0].forward;
            while x != NIL {
                v.push(x);
                x = self.node(x).levels[0].forward;
            }
            v
        };
        if order.len() != self.len {
            return Err(format!("length {} but {} nodes", self.len, order.len()));
        }
        for w in order.windows(2) {
            let (a, b) = (self.node(w[0]), self.node(w[1]));
            if cmp_entry(a.score, &a.member, b.score, &b.member) != Ordering::Less {
                return Err("out of order".into());
            }
            if b.backward != w[0] {
                return Err("bad backward link".into());
            }
        }
        if order.first().is_some_and(|&f| self.node(f).backward != NIL) {
            return Err("first node has a backward link".into());
        }
        if self.tail != order.last().copied().unwrap_or(NIL) {
            return Err("bad tail".into());
        }
        let rank = |x: u32| -> usize {
            if x == HEAD {
                0
            } else {
                order
                    .iter()
                    .position(|&y| y == x)
                    .map_or(usize::MAX, |p| p + 1)
            }
        };
        let top = order
            .iter()
            .map(|&x| self.node(x).levels.len())
            .max()
            .unwrap_or(1);
        if self.level != top {
            return Err(format!("level {} but highest node has {top}", self.level));
        }
        for i in 0..self.level {
            let mut x = HEAD;
            loop {
                let l = self.lvl(x, i);
                if l.forward == NIL {
                    break;
                }
                if self.node(l.forward).levels.len() <= i {
                    return Err("link to a node without that level".into());
                }
                if rank(l.forward) - rank(x) != l.span {
                    return Err(format!("bad span on level {i}"));
                }
                x = l.forward;
            }
        }
        Ok(())
    }
}

fn some(x: u32) -> Option<u32> {
    (x != NIL).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Pick;

    /// The model: a sorted vector of (score, member).
    fn model_pos(model: &[(f64, Vec<u8>)], score: f64, member: &[u8]) -> usize {
        model.partition_point(|(s, m)| cmp_entry(*s, m, score, member) == Ordering::Less)
    }

    fn member(i: u32) -> Vec<u8> {
        format!("m{:03}", i).into_bytes()
    }

    #[test]
    fn behaves_like_a_sorted_vector() {
        let mut rng = fastrand::Rng::with_seed(42);
        for round in 0..20 {
            let mut zsl = SkipList::new();
            let mut model: Vec<(f64, Vec<u8>)> = Vec::new();
            for step in 0..1500 {
                let m = member(rng.u32(..200));
                let score = (rng.u32(..20) as f64) - 5.0;
                let existing = model.iter().position(|(_, x)| *x == m);
                match (rng.u8(..6), existing) {
                    (0..=2, None) => {
                        let lvl = random_level(&mut rng);
                        zsl.insert(score, m.clone().into_boxed_slice(), lvl);
                        let at = model_pos(&model, score, &m);
                        model.insert(at, (score, m));
                    }
                    (0..=2, Some(p)) | (3, Some(p)) => {
                        let cur = model[p].0;
                        assert!(zsl
                            .update_score(cur, &m, score, || random_level(&mut rng))
                            .is_some());
                        model.remove(p);
                        let at = model_pos(&model, score, &m);
                        model.insert(at, (score, m));
                    }
                    (4, Some(p)) => {
                        let cur = model[p].0;
                        assert_eq!(zsl.delete(cur, &m).map(|r| r.member.to_vec()), Some(m));
                        model.remove(p);
                    }
                    (_, None) => assert!(zsl.delete(score, &m).is_none()),
                    (_, Some(p)) => {
                        let (s, _) = model[p];
                        assert_eq!(zsl.rank(s, &m), p + 1);
                        let x = zsl.by_rank(p + 1).expect("rank in range");
                        assert_eq!((zsl.score(x), zsl.member(x)), (s, &m[..]));
                    }
                }
                if step % 97 == 0 {
                    zsl.check().unwrap_or_else(|e| panic!("round {round}: {e}"));
                    let got: Vec<(f64, Vec<u8>)> =
                        zsl.iter().map(|(m, s)| (s, m.to_vec())).collect();
                    assert_eq!(got, model);
                }
            }
            assert_eq!(zsl.len(), model.len());
            assert_eq!(zsl.by_rank(model.len() + 1), None);
            assert_eq!(zsl.by_rank(0), None);
        }
    }

    #[test]
    fn range_deletions_match_the_model() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..200 {
            let mut zsl = SkipList::new();
            let mut model: Vec<(f64, Vec<u8>)> = Vec::new();
            for i in 0..rng.u32(..120) {
                let score = rng.u32(..30) as f64;
                let m = member(i);
                zsl.insert(score, m.clone().into_boxed_slice(), random_level(&mut rng));
                let at = model_pos(&model, score, &m);
                model.insert(at, (score, m));
            }
            let (lo, hi) = (rng.u32(..30) as f64, rng.u32(..30) as f64);
            let removed = zsl.delete_range(|s, _| s < lo, |s, _| s <= hi);
            let want: Vec<(f64, Vec<u8>)> = model
                .iter()
                .filter(|(s, _)| *s >= lo && *s <= hi)
                .cloned()
                .collect();
            let got: Vec<(f64, Vec<u8>)> = removed
                .into_iter()
                .map(|r| (r.score, r.member.to_vec()))
                .collect();
            assert_eq!(got, want);
            model.retain(|(s, _)| !(*s >= lo && *s <= hi));
            zsl.check().expect("after score range deletion");
            if !model.is_empty() {
                let a = 1 + rng.pick(..model.len());
                let b = a + rng.pick(..model.len());
                let removed = zsl.delete_rank_range(a, b);
                let end = b.min(model.len());
                let want: Vec<(f64, Vec<u8>)> = model.drain(a - 1..end).collect();
                let got: Vec<(f64, Vec<u8>)> = removed
                    .into_iter()
                    .map(|r| (r.score, r.member.to_vec()))
                    .collect();
                assert_eq!(got, want);
            }
            zsl.check().expect("after rank range deletion");
            let got: Vec<(f64, Vec<u8>)> = zsl.iter().map(|(m, s)| (s, m.to_vec())).collect();
            assert_eq!(got, model);
        }
    }

    #[test]
    fn levels_follow_a_quarter_geometry() {
        let mut rng = fastrand::Rng::with_seed(1);
        let n = 100_000;
        let mut counts = [0usize; MAX_LEVEL + 1];
        for _ in 0..n {
            counts[random_level(&mut rng)] += 1;
        }
        // P(level = 1) = 3/4, P(level = 2) = 3/16.
        assert!((counts[1] as f64 / n as f64 - 0.75).abs() < 0.01);
        assert!((counts[2] as f64 / n as f64 - 0.1875).abs() < 0.01);
        assert_eq!(counts[0], 0);
    }

    #[test]
    fn capped_inspector_agrees_with_the_full_one() {
        let mut rng = fastrand::Rng::with_seed(3);
        let mut zsl = SkipList::new();
        for i in 0..300u32 {
            zsl.insert(
                (i % 17) as f64,
                member(i).into_boxed_slice(),
                random_level(&mut rng),
            );
        }
        let full = zsl.inspect();
        for limit in [0, 1, 32, 300, 1000] {
            let first = zsl.inspect_first(limit);
            assert_eq!(first.len(), limit.min(300) + 1);
            assert_eq!(first[..], full[..first.len()]);
        }
    }

    #[test]
    fn inspector_shows_levels_and_spans() {
        let mut zsl = SkipList::new();
        for (i, lvl) in [3, 1, 2, 1].into_iter().enumerate() {
            zsl.insert(i as f64, member(i as u32).into_boxed_slice(), lvl);
        }
        let view = zsl.inspect();
        assert_eq!(view.len(), 5);
        assert_eq!(view[0].levels.len(), 3);
        // Header level 2 jumps to rank 1; rank 1's level 2 reaches the end.
        assert_eq!(view[0].levels[2].forward, Some(1));
        assert_eq!(view[1].levels[1].forward, Some(3));
        assert_eq!(view[1].levels[1].span, 2);
        assert_eq!(view[3].levels[1].forward, None);
        assert!(view
            .iter()
            .skip(1)
            .all(|v| v.levels[0].span == 1 || v.rank == 4));
    }
}
