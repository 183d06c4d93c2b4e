//! List values: one listpack while small, a quicklist (a chain of listpack nodes) past `list-max-listpack-size`, converting both ways as Redis 7.2 does (t_list.c, quicklist.c).
//!
//! The node structure is modelled, not only the element order: whether a
//! shrinking quicklist turns back into a listpack depends on it being down
//! to a single node, and nodes form by quicklist.c's rules (push into the
//! end node while it has room, split on a full middle insert, merge
//! neighbours after a split). Each node tracks its listpack size in bytes
//! from the exact listpack encoding of its elements, which is what those
//! rules compare against the limits. Compression (`list-compress-depth`)
//! changes neither the encoding nor the node layout, so it is not modelled.

use std::collections::VecDeque;

use crate::keyspace::memory::alloc_size;

/// `optimization_level`: node size limits for `fill` -1 to -5.
const OPTIMIZATION_LEVEL: [usize; 5] = [4096, 8192, 16384, 32768, 65536];
/// `SIZE_SAFETY_LIMIT`: a node limited by count still never grows past 8 KB.
const SIZE_SAFETY_LIMIT: usize = 8192;
/// `SIZE_ESTIMATE_OVERHEAD`: what quicklist assumes an entry adds besides its bytes.
const SIZE_ESTIMATE_OVERHEAD: usize = 8;
/// `packed_threshold`: an element this large gets a plain node of its own.
const PACKED_THRESHOLD: usize = 1 << 30;
/// `FILL_MAX`: the quicklist's fill is a signed 16-bit field.
const FILL_MAX: i32 = (1 << 15) - 1;
/// An empty listpack: 6 header bytes and the end marker.
const LP_EMPTY: usize = 7;
/// `sizeof(quicklist)` on 64-bit builds.
const QUICKLIST_STRUCT: usize = 40;
/// `sizeof(quicklistNode)` on 64-bit builds.
const QUICKLIST_NODE: usize = 40;

/// Bytes one element takes in a listpack (shared with hashes, sets and zsets).
pub use crate::keyspace::memory::listpack_entry_size as lp_entry_size;

/// `quicklistNodeLimit`: the (bytes, entries) a node may hold for `fill`;
/// `usize::MAX` / `u32::MAX` where that dimension is not limited.
fn node_limit(fill: i32) -> (usize, u64) {
    if fill >= 0 {
        (usize::MAX, if fill == 0 { 1 } else { fill as u64 })
    } else {
        let offset = ((-(fill as i64)) - 1).min(OPTIMIZATION_LEVEL.len() as i64 - 1) as usize;
        (OPTIMIZATION_LEVEL[offset], u32::MAX as u64)
    }
}

/// `quicklistNodeExceedsLimit`.
fn exceeds_limit(fill: i32, new_sz: usize, new_count: usize) -> bool {
    let (sz_limit, count_limit) = node_limit(fill);
    if sz_limit != usize::MAX {
        new_sz > sz_limit
    } else {
        new_sz > SIZE_SAFETY_LIMIT || new_count as u64 > count_limit
    }
}

/// The limits a listpack-encoded list converts past, for inspectors: the
/// bytes a node may hold, and for a positive `fill` also the entries (a
/// count-limited node still stops at the 8 KB safety size).
pub fn convert_limits(fill: i32) -> (usize, Option<u64>) {
    match node_limit(fill) {
        (usize::MAX, count) => (SIZE_SAFETY_LIMIT, Some(count)),
        (bytes, _) => (bytes, None),
    }
}

/// One node as an inspector draws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeShape {
    pub entries: usize,
    /// The node's listpack bytes (the element's length for a plain node).
    pub bytes: usize,
    /// A large element stored alone, outside any listpack.
    pub plain: bool,
}

fn is_large(sz: usize) -> bool {
    sz >= PACKED_THRESHOLD
}

/// One quicklist node (or the whole list while it is a listpack).
#[derive(Clone, Debug, PartialEq)]
struct Node {
    items: VecDeque<Vec<u8>>,
    /// `sz`: the listpack's bytes, or the element's length for a plain node.
    sz: usize,
    /// A plain node holds one large element outside any listpack.
    plain: bool,
}

impl Node {
    fn packed() -> Node {
        Node {
            items: VecDeque::new(),
            sz: LP_EMPTY,
            plain: false,
        }
    }

    fn plain(e: Vec<u8>) -> Node {
        Node {
            sz: e.len(),
            items: VecDeque::from([e]),
            plain: true,
        }
    }

    fn with(e: Vec<u8>) -> Node {
        let mut n = Node::packed();
        n.push_back(e);
        n
    }

    fn count(&self) -> usize {
        self.items.len()
    }

    fn push_front(&mut self, e: Vec<u8>) {
        self.sz += lp_entry_size(&e);
        self.items.push_front(e);
    }

    fn push_back(&mut self, e: Vec<u8>) {
        self.sz += lp_entry_size(&e);
        self.items.push_back(e);
    }

    fn insert(&mut self, at: usize, e: Vec<u8>) {
        self.sz += lp_entry_size(&e);
        self.items.insert(at, e);
    }

    fn remove(&mut self, at: usize) -> Option<Vec<u8>> {
        let e = self.items.remove(at)?;
        if !self.plain {
            self.sz -= lp_entry_size(&e);
        }
        Some(e)
    }

    fn replace(&mut self, at: usize, e: Vec<u8>) {
        if let Some(slot) = self.items.get_mut(at) {
            self.sz = self.sz - lp_entry_size(slot) + lp_entry_size(&e);
            *slot = e;
        }
    }

    /// Keeps `[..at]` and returns `[at..]` as a node of its own.
    fn split_off(&mut self, at: usize) -> Node {
        let tail: VecDeque<Vec<u8>> = self.items.split_off(at);
        let moved: usize = tail.iter().map(|e| lp_entry_size(e)).sum();
        self.sz -= moved;
        Node {
            items: tail,
            sz: LP_EMPTY + moved,
            plain: false,
        }
    }

    /// `lpMerge`: `other`'s elements after ours, one header less.
    fn append(&mut self, mut other: Node) {
        self.sz = self.sz + other.sz - LP_EMPTY;
        self.items.append(&mut other.items);
    }
}

/// A list in one of its two encodings.
#[derive(Clone, Debug, PartialEq)]
pub struct List {
    /// `quicklist` encoding; otherwise `listpack`, with exactly one node.
    quick: bool,
    /// The quicklist's own fill, fixed (and clamped) when it was created.
    fill: i32,
    nodes: VecDeque<Node>,
    len: usize,
    /// Σ of the size classes of the nodes' listpacks (or plain buffers).
    node_bytes: usize,
}

impl Default for List {
    fn default() -> Self {
        List::new()
    }
}

impl List {
    /// An empty listpack (`createListListpackObject`).
    pub fn new() -> List {
        List {
            quick: false,
            fill: -2,
            nodes: VecDeque::from([Node::packed()]),
            len: 0,
            node_bytes: alloc_size(LP_EMPTY),
        }
    }

    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        if self.quick {
            "quicklist"
        } else {
            "listpack"
        }
    }

    /// True when quicklist-encoded.
    pub fn is_quicklist(&self) -> bool {
        self.quick
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty (Redis deletes empty lists).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of quicklist nodes (1 for a listpack).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Bytes of the value's allocations as jemalloc would count them, kept
    /// up to date by every change (O(1)).
    pub fn mem_size(&self) -> usize {
        if self.quick {
            alloc_size(QUICKLIST_STRUCT)
                + self.nodes.len() * alloc_size(QUICKLIST_NODE)
                + self.node_bytes
        } else {
            self.node_bytes
        }
    }

    /// The first `limit` nodes, head first (a listpack is one node).
    pub fn node_shapes(&self, limit: usize) -> Vec<NodeShape> {
        self.nodes
            .iter()
            .take(limit)
            .map(|n| NodeShape {
                entries: n.count(),
                bytes: n.sz,
                plain: n.plain,
            })
            .collect()
    }

    /// The `list-max-listpack-size` this quicklist's nodes were created
    /// under (it keeps it when the config changes later).
    pub fn fill(&self) -> i32 {
        self.fill
    }

    /// Bytes of the listpack (listpack encoding) or of all node listpacks.
    pub fn listpack_bytes(&self) -> usize {
        self.nodes.iter().map(|n| n.sz).sum()
    }

    /// Runs `f` on node `i`, keeping the allocation total right.
    fn edit<R>(&mut self, i: usize, f: impl FnOnce(&mut Node) -> R) -> R {
        let node = &mut self.nodes[i];
        let before = alloc_size(node.sz);
        let r = f(node);
        self.node_bytes = self.node_bytes - before + alloc_size(node.sz);
        r
    }

    fn insert_node(&mut self, at: usize, node: Node) {
        self.node_bytes += alloc_size(node.sz);
        self.nodes.insert(at, node);
    }

    fn remove_node(&mut self, at: usize) -> Option<Node> {
        let node = self.nodes.remove(at)?;
        self.node_bytes -= alloc_size(node.sz);
        Some(node)
    }

    /// Drops node `i` if it became empty (a listpack keeps its one node).
    fn drop_if_empty(&mut self, i: usize) -> bool {
        if self.quick && self.nodes.get(i).is_some_and(|n| n.items.is_empty()) {
            self.remove_node(i);
            return true;
        }
        false
    }

    /// `listTypeTryConvertListpack`, before adding `add_len` elements whose
    /// raw lengths sum to `add_bytes`: becomes a quicklist if the listpack
    /// would exceed the `list-max-listpack-size` limit (`fill`).
    pub fn try_convert_append(&mut self, add_bytes: usize, add_len: usize, fill: i32) {
        if self.quick {
            return;
        }
        let sz = self.nodes.front().map_or(LP_EMPTY, |n| n.sz);
        if !exceeds_limit(fill, sz.saturating_add(add_bytes), self.len + add_len) {
            return;
        }
        self.quick = true;
        self.fill = fill.clamp(-5, FILL_MAX);
        if self.len == 0 {
            self.remove_node(0);
        }
    }

    /// The nodes head first, as DUMP writes them: (plain, elements).
    pub fn dump_nodes(&self) -> impl Iterator<Item = (bool, &VecDeque<Vec<u8>>)> + '_ {
        self.nodes.iter().map(|n| (n.plain, &n.items))
    }

    /// RESTORE of a quicklist: each non-empty node appended as it was
    /// serialized (`quicklistAppendListpack`, `quicklistAppendPlainNode`),
    /// then `listTypeTryConversion(LIST_CONV_AUTO)`: one small packed node
    /// becomes a listpack. Empty nodes are skipped, as Redis does.
    pub fn from_nodes(nodes: Vec<(bool, Vec<Vec<u8>>)>, fill: i32) -> List {
        let mut l = List::empty_quicklist(fill);
        for (plain, items) in nodes {
            let node = match (plain, items.len()) {
                (_, 0) => continue,
                (true, _) => Node::plain(items.into_iter().next().unwrap_or_default()),
                (false, _) => {
                    let mut n = Node::packed();
                    for e in items {
                        n.push_back(e);
                    }
                    n
                }
            };
            l.len += node.count();
            let at = l.nodes.len();
            l.insert_node(at, node);
        }
        l.convert_quicklist(fill, false);
        l
    }

    /// RESTORE of a plain `RDB_TYPE_LIST`: `quicklistPushTail` of each
    /// element, then the same conversion as [`List::from_nodes`].
    pub fn from_pushes(elems: Vec<Vec<u8>>, fill: i32) -> List {
        let mut l = List::empty_quicklist(fill);
        for e in elems {
            l.push(e, false);
        }
        l.convert_quicklist(fill, false);
        l
    }

    fn empty_quicklist(fill: i32) -> List {
        List {
            quick: true,
            fill: fill.clamp(-5, FILL_MAX),
            nodes: VecDeque::new(),
            len: 0,
            node_bytes: 0,
        }
    }

    /// `listTypeTryConvertQuicklist`: a single packed node within the
    /// limits (half of them when `shrinking`) becomes a listpack.
    fn convert_quicklist(&mut self, fill: i32, shrinking: bool) {
        if !self.quick || self.nodes.len() != 1 || self.nodes[0].plain {
            return;
        }
        let (mut sz_limit, mut count_limit) = node_limit(fill);
        if shrinking {
            sz_limit /= 2;
            count_limit /= 2;
        }
        if self.nodes[0].sz > sz_limit || self.nodes[0].count() as u64 > count_limit {
            return;
        }
        self.quick = false;
    }

    /// `listTypeTryConvertQuicklist` after a shrink: back to a listpack once
    /// a single packed node is at most half the limits (the hysteresis keeps
    /// a list at the boundary from converting on every change).
    pub fn try_convert_shrinking(&mut self, fill: i32) {
        if !self.quick || self.nodes.len() != 1 || self.nodes[0].plain {
            return;
        }
        let (sz_limit, count_limit) = node_limit(fill);
        let (sz_limit, count_limit) = (sz_limit / 2, count_limit / 2);
        if self.nodes[0].sz > sz_limit || self.nodes[0].count() as u64 > count_limit {
            return;
        }
        self.quick = false;
    }

    /// `_quicklistNodeAllowInsert`: node `i` exists, is packed and can take
    /// an element of `sz` bytes (estimated) within the fill limit.
    fn allow_insert(&self, i: Option<usize>, sz: usize) -> bool {
        let Some(node) = i.and_then(|i| self.nodes.get(i)) else {
            return false;
        };
        if node.plain || is_large(sz) {
            return false;
        }
        !exceeds_limit(
            self.fill,
            node.sz + sz + SIZE_ESTIMATE_OVERHEAD,
            node.count() + 1,
        )
    }

    /// `_quicklistNodeAllowMerge`.
    fn allow_merge(&self, a: Option<usize>, b: Option<usize>) -> bool {
        let (Some(a), Some(b)) = (
            a.and_then(|i| self.nodes.get(i)),
            b.and_then(|i| self.nodes.get(i)),
        ) else {
            return false;
        };
        if a.plain || b.plain {
            return false;
        }
        !exceeds_limit(self.fill, a.sz + b.sz - LP_EMPTY, a.count() + b.count())
    }

    /// Merges node `i + 1` into node `i`.
    fn merge_at(&mut self, i: usize) {
        if let Some(next) = self.remove_node(i + 1) {
            self.edit(i, |n| n.append(next));
        }
    }

    /// `_quicklistMergeNodes` around node `center`; returns where the
    /// center's elements ended up.
    fn merge_around(&mut self, center: usize) -> usize {
        let mut center = center;
        let prev = center.checked_sub(1);
        let prev_prev = center.checked_sub(2);
        if self.allow_merge(prev, prev_prev) {
            self.merge_at(center - 2);
            center -= 1;
        }
        if self.allow_merge(Some(center + 1), Some(center + 2)) {
            self.merge_at(center + 1);
        }
        let target = if self.allow_merge(Some(center), center.checked_sub(1)) {
            self.merge_at(center - 1);
            center - 1
        } else {
            center
        };
        if self.allow_merge(Some(target), Some(target + 1)) {
            self.merge_at(target);
        }
        target
    }

    /// `_quicklistSplitNode(node, offset, after)`: with `after`, node `i`
    /// keeps `[..=offset]` and a new node after it gets the rest; without,
    /// a new node before it gets `[..offset]`. Returns the new node's index.
    fn split(&mut self, i: usize, offset: usize, after: bool) -> usize {
        let at = if after { offset + 1 } else { offset };
        let tail = self.edit(i, |n| n.split_off(at));
        self.insert_node(i + 1, tail);
        // Nodes have no identity here: with `after` the split-off tail is
        // the new node; without, the head part left at `i` is.
        if after {
            i + 1
        } else {
            i
        }
    }

    /// Node index and offset of element `index` (< len).
    fn locate(&self, index: usize) -> Option<(usize, usize)> {
        if index >= self.len {
            return None;
        }
        if index < self.len / 2 {
            let mut rest = index;
            for (i, n) in self.nodes.iter().enumerate() {
                if rest < n.count() {
                    return Some((i, rest));
                }
                rest -= n.count();
            }
        } else {
            let mut rest = self.len - 1 - index;
            for (i, n) in self.nodes.iter().enumerate().rev() {
                if rest < n.count() {
                    return Some((i, n.count() - 1 - rest));
                }
                rest -= n.count();
            }
        }
        None
    }

    /// An index as LINDEX takes it (negative counts from the tail) made absolute.
    pub fn absolute(&self, index: i64) -> Option<usize> {
        let len = self.len as i64;
        let i = if index < 0 { len + index } else { index };
        (0..len).contains(&i).then_some(i as usize)
    }

    /// The element at `index` (negative from the tail), if in range.
    pub fn get(&self, index: i64) -> Option<&[u8]> {
        let (n, o) = self.locate(self.absolute(index)?)?;
        self.nodes[n].items.get(o).map(|e| e.as_slice())
    }

    /// Elements from head to tail.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &[u8]> + '_ {
        self.nodes
            .iter()
            .flat_map(|n| n.items.iter().map(|e| e.as_slice()))
    }

    /// Elements from `index` towards the tail.
    pub fn iter_from(&self, index: usize) -> impl Iterator<Item = &[u8]> + '_ {
        let (node, offset) = self.locate(index).unwrap_or((self.nodes.len(), 0));
        self.nodes
            .iter()
            .skip(node)
            .enumerate()
            .flat_map(move |(k, n)| {
                let skip = if k == 0 { offset } else { 0 };
                n.items.iter().skip(skip).map(|e| e.as_slice())
            })
    }

    /// Elements from `index` towards the head.
    pub fn iter_back_from(&self, index: usize) -> impl Iterator<Item = &[u8]> + '_ {
        let (node, offset) = self
            .locate(index)
            .map_or((0, None), |(n, o)| (n + 1, Some(o)));
        let nodes = self.nodes.len();
        self.nodes
            .iter()
            .rev()
            .skip(nodes - node)
            .enumerate()
            .flat_map(move |(k, n)| {
                let skip = match (k, offset) {
                    (0, Some(o)) => n.count() - 1 - o,
                    _ => 0,
                };
                n.items.iter().rev().skip(skip).map(|e| e.as_slice())
            })
    }

    /// `listTypePush`: adds `e` at the head or the tail.
    pub fn push(&mut self, e: Vec<u8>, head: bool) {
        self.len += 1;
        if !self.quick {
            self.edit(0, |n| {
                if head {
                    n.push_front(e)
                } else {
                    n.push_back(e)
                }
            });
            return;
        }
        let sz = e.len();
        if is_large(sz) {
            let at = if head { 0 } else { self.nodes.len() };
            self.insert_node(at, Node::plain(e));
            return;
        }
        let end = if head {
            0
        } else {
            self.nodes.len().wrapping_sub(1)
        };
        if self.allow_insert(Some(end), sz) {
            self.edit(end, |n| {
                if head {
                    n.push_front(e)
                } else {
                    n.push_back(e)
                }
            });
        } else {
            let at = if head { 0 } else { self.nodes.len() };
            self.insert_node(at, Node::with(e));
        }
    }

    /// `listTypePop`: removes and returns the head or tail element.
    pub fn pop(&mut self, head: bool) -> Option<Vec<u8>> {
        if self.len == 0 {
            return None;
        }
        let i = if head { 0 } else { self.nodes.len() - 1 };
        let e = self.edit(i, |n| {
            if head {
                n.remove(0)
            } else {
                let last = n.count().checked_sub(1)?;
                n.remove(last)
            }
        })?;
        self.len -= 1;
        self.drop_if_empty(i);
        Some(e)
    }

    /// Deletes `count` elements from `start` (`quicklistDelRange` /
    /// `lpDeleteRange`): emptied nodes go, nothing merges.
    pub fn del_range(&mut self, start: usize, count: usize) {
        let count = count.min(self.len.saturating_sub(start));
        if count == 0 {
            return;
        }
        let Some((mut ni, mut offset)) = self.locate(start) else {
            return;
        };
        let mut left = count;
        while left > 0 && ni < self.nodes.len() {
            let take = (self.nodes[ni].count() - offset).min(left);
            self.edit(ni, |n| {
                let removed: usize = n
                    .items
                    .drain(offset..offset + take)
                    .map(|e| lp_entry_size(&e))
                    .sum();
                if n.plain {
                    n.sz = 0;
                } else {
                    n.sz -= removed;
                }
            });
            left -= take;
            self.len -= take;
            if !self.drop_if_empty(ni) {
                ni += 1;
            }
            offset = 0;
        }
    }

    /// `listTypeReplaceAtIndex` (LSET): false if `index` is out of range.
    pub fn replace(&mut self, index: i64, e: Vec<u8>) -> bool {
        let Some((ni, off)) = self.absolute(index).and_then(|i| self.locate(i)) else {
            return false;
        };
        let large = is_large(e.len());
        let node_plain = self.nodes[ni].plain;
        if !self.quick || (!node_plain && !large) {
            self.edit(ni, |n| n.replace(off, e));
        } else if node_plain && large {
            self.edit(ni, |n| {
                n.sz = e.len();
                n.items[0] = e;
            });
        } else if node_plain {
            // Insert after the plain node, then drop it.
            self.len -= 1;
            self.insert_quick(ni, 0, e, true);
            self.remove_node(ni);
        } else {
            // A large element into a packed node (7.2.6): split after the
            // entry, put the element in a plain node between, drop the entry.
            let count = self.nodes[ni].count();
            let split = (off != count - 1).then(|| self.edit(ni, |n| n.split_off(off + 1)));
            self.insert_node(ni + 1, Node::plain(e));
            if let Some(s) = split {
                self.insert_node(ni + 2, s);
            }
            if self.nodes[ni].count() == 1 {
                self.remove_node(ni);
            } else {
                self.edit(ni, |n| {
                    let last = n.count() - 1;
                    n.remove(last);
                });
                self.merge_around(ni + 1);
            }
        }
        true
    }

    /// `listTypeInsert` next to the element at `index` (LINSERT).
    pub fn insert(&mut self, index: usize, e: Vec<u8>, after: bool) {
        let Some((ni, off)) = self.locate(index) else {
            return;
        };
        if !self.quick {
            self.len += 1;
            self.edit(0, |n| n.insert(if after { off + 1 } else { off }, e));
            return;
        }
        self.insert_quick(ni, off, e, after);
    }

    /// `_quicklistInsert` next to entry `off` of node `ni`.
    fn insert_quick(&mut self, ni: usize, off: usize, e: Vec<u8>, after: bool) {
        self.len += 1;
        let sz = e.len();
        let count = self.nodes[ni].count();
        let full = !self.allow_insert(Some(ni), sz);
        let at_tail = after && off + 1 == count;
        let at_head = !after && off == 0;
        let avail_next = at_tail && self.allow_insert(Some(ni + 1), sz);
        let avail_prev = at_head && self.allow_insert(ni.checked_sub(1), sz);
        if is_large(sz) {
            if self.nodes[ni].plain || at_tail || at_head {
                self.insert_node(if after { ni + 1 } else { ni }, Node::plain(e));
            } else {
                let new = self.split(ni, off, after);
                // The entry's node is now next to the split-off part: the
                // plain node goes between them.
                let at = if after { new } else { new + 1 };
                self.insert_node(at, Node::plain(e));
            }
            return;
        }
        if !full {
            self.edit(ni, |n| n.insert(if after { off + 1 } else { off }, e));
        } else if at_tail && avail_next {
            self.edit(ni + 1, |n| n.push_front(e));
        } else if at_head && avail_prev {
            self.edit(ni - 1, |n| n.push_back(e));
        } else if at_tail || at_head {
            self.insert_node(if after { ni + 1 } else { ni }, Node::with(e));
        } else {
            let new = self.split(ni, off, after);
            self.edit(new, |n| {
                if after {
                    n.push_front(e)
                } else {
                    n.push_back(e)
                }
            });
            let center = if after { ni } else { ni + 1 };
            self.merge_around(center);
        }
    }

    /// Index of the first element equal to `e`, from the head.
    pub fn position(&self, e: &[u8]) -> Option<usize> {
        self.iter().position(|x| x == e)
    }

    /// LREM: removes up to `limit` elements equal to `e` (0: all), scanning
    /// from the tail if `from_tail`; returns how many went.
    pub fn remove_matching(&mut self, e: &[u8], limit: usize, from_tail: bool) -> usize {
        let mut removed = 0;
        let order: Vec<usize> = if from_tail {
            (0..self.nodes.len()).rev().collect()
        } else {
            (0..self.nodes.len()).collect()
        };
        let mut emptied = Vec::new();
        for ni in order {
            if limit != 0 && removed == limit {
                break;
            }
            let budget = if limit == 0 {
                usize::MAX
            } else {
                limit - removed
            };
            // One linear pass per node: mark, then drop the marked ones.
            let n = self.edit(ni, |node| {
                let mut drop = vec![false; node.count()];
                let mut n = 0;
                let order: Box<dyn Iterator<Item = usize>> = if from_tail {
                    Box::new((0..node.count()).rev())
                } else {
                    Box::new(0..node.count())
                };
                for i in order {
                    if n == budget {
                        break;
                    }
                    if node.items[i] == e {
                        drop[i] = true;
                        n += 1;
                    }
                }
                if n > 0 {
                    let mut i = 0;
                    let mut freed = 0;
                    node.items.retain(|x| {
                        let gone = drop[i];
                        i += 1;
                        if gone {
                            freed += lp_entry_size(x);
                        }
                        !gone
                    });
                    if !node.plain {
                        node.sz -= freed;
                    }
                }
                n
            });
            removed += n;
            if self.quick && self.nodes[ni].items.is_empty() {
                emptied.push(ni);
            }
        }
        self.len -= removed;
        crate::sort::sort(&mut emptied);
        for ni in emptied.into_iter().rev() {
            self.remove_node(ni);
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list_of(items: &[&str], fill: i32) -> List {
        let mut l = List::new();
        for it in items {
            l.try_convert_append(it.len(), 1, fill);
            l.push(it.as_bytes().to_vec(), false);
        }
        l
    }

    fn contents(l: &List) -> Vec<String> {
        l.iter()
            .map(|e| String::from_utf8_lossy(e).into_owned())
            .collect()
    }

    fn check_invariants(l: &List) {
        assert_eq!(l.len, l.nodes.iter().map(|n| n.count()).sum::<usize>());
        assert_eq!(
            l.node_bytes,
            l.nodes.iter().map(|n| alloc_size(n.sz)).sum::<usize>()
        );
        for n in &l.nodes {
            if !n.plain {
                let want = LP_EMPTY + n.items.iter().map(|e| lp_entry_size(e)).sum::<usize>();
                assert_eq!(n.sz, want);
            }
            if l.quick {
                assert!(!n.items.is_empty(), "no empty quicklist node");
            }
        }
        if !l.quick {
            assert_eq!(l.nodes.len(), 1);
        }
    }

    #[test]
    fn count_fill_splits_into_nodes_and_converts_back() {
        let items: Vec<String> = (0..10).map(|i| format!("e{i}")).collect();
        let refs: Vec<&str> = items.iter().map(|s| s.as_str()).collect();
        let mut l = list_of(&refs, 4);
        assert!(l.is_quicklist());
        // The listpack of 4 converted when the 5th came; pushes then fill nodes of 4.
        assert_eq!(
            l.nodes.iter().map(|n| n.count()).collect::<Vec<_>>(),
            [4, 4, 2]
        );
        check_invariants(&l);
        l.del_range(0, 8);
        check_invariants(&l);
        l.try_convert_shrinking(4);
        assert!(!l.is_quicklist(), "one node of 2 <= 4/2");
        assert_eq!(contents(&l), ["e8", "e9"]);
    }

    #[test]
    fn middle_insert_splits_and_merges() {
        let items: Vec<String> = (0..8).map(|i| format!("{}", i * 1000)).collect();
        let refs: Vec<&str> = items.iter().map(|s| s.as_str()).collect();
        let mut l = list_of(&refs, 4);
        l.try_convert_append(1, 1, 4);
        l.insert(1, b"x".to_vec(), true);
        check_invariants(&l);
        assert_eq!(
            contents(&l),
            ["0", "1000", "x", "2000", "3000", "4000", "5000", "6000", "7000"]
        );
        l.insert(0, b"y".to_vec(), false);
        l.insert(9, b"z".to_vec(), true);
        check_invariants(&l);
        assert_eq!(l.get(0), Some(&b"y"[..]));
        assert_eq!(l.get(-1), Some(&b"z"[..]));
        assert_eq!(l.len(), 11);
    }

    #[test]
    fn iterators_from_any_index() {
        let items: Vec<String> = (0..23).map(|i| format!("v{i}")).collect();
        let refs: Vec<&str> = items.iter().map(|s| s.as_str()).collect();
        let l = list_of(&refs, 5);
        for (start, item) in items.iter().enumerate() {
            let fwd: Vec<&[u8]> = l.iter_from(start).collect();
            assert_eq!(fwd.len(), 23 - start);
            assert_eq!(fwd[0], item.as_bytes());
            let back: Vec<&[u8]> = l.iter_back_from(start).collect();
            assert_eq!(back.len(), start + 1);
            assert_eq!(back[0], item.as_bytes());
            assert_eq!(*back.last().unwrap(), b"v0");
        }
    }

    #[test]
    fn remove_matching_both_ways() {
        let mut l = list_of(&["a", "b", "a", "c", "a", "a", "d", "a"], 3);
        assert_eq!(l.remove_matching(b"a", 2, true), 2);
        assert_eq!(contents(&l), ["a", "b", "a", "c", "a", "d"]);
        check_invariants(&l);
        assert_eq!(l.remove_matching(b"a", 0, false), 3);
        assert_eq!(contents(&l), ["b", "c", "d"]);
        check_invariants(&l);
    }

    #[test]
    fn size_fill_converts_at_8kb() {
        let big = "x".repeat(1000);
        let mut l = List::new();
        for _ in 0..8 {
            l.try_convert_append(big.len(), 1, -2);
            l.push(big.clone().into_bytes(), true);
        }
        assert!(!l.is_quicklist(), "8 x 1003 bytes + 7 fits in 8 KB");
        l.try_convert_append(big.len(), 1, -2);
        assert!(l.is_quicklist());
        l.push(big.clone().into_bytes(), true);
        check_invariants(&l);
        assert_eq!(l.node_count(), 2);
        l.pop(true);
        l.try_convert_shrinking(-2);
        assert!(l.is_quicklist(), "8 KB is over half the limit");
        for _ in 0..4 {
            l.pop(false);
        }
        l.try_convert_shrinking(-2);
        assert!(!l.is_quicklist(), "4 x 1003 + 7 <= 4096");
        check_invariants(&l);
    }
}
