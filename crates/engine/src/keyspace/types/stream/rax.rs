//! A node-for-node simulation of Redis' rax (rax.c) for keys of one fixed length, kept for its node count (XINFO's `radix-tree-nodes`) and size.

use crate::keyspace::memory::alloc_size;

const PTR: usize = 8;

/// A rax node: compressed (a run of bytes leading to one child) or
/// not (one byte per child, sorted).
#[derive(Clone, Debug, PartialEq, Default)]
struct RNode {
    key: bool,
    compr: bool,
    chars: Vec<u8>,
    children: Vec<usize>,
}

impl RNode {
    /// `raxNodeCurrentLength`, with a value pointer on key nodes.
    fn len(&self) -> usize {
        let size = self.chars.len();
        let pad = (PTR - ((size + 4) % PTR)) & (PTR - 1);
        let ptrs = if self.compr { PTR } else { PTR * size };
        4 + size + pad + ptrs + if self.key { PTR } else { 0 }
    }

    fn size(&self) -> usize {
        self.chars.len()
    }

    /// Neither a key nor a branch: a link in a chain that can be compressed.
    fn is_chain(&self) -> bool {
        !self.key && (self.compr || self.size() == 1)
    }
}

/// The tree: nodes in an arena, with rax.c's counters.
#[derive(Clone, Debug, PartialEq)]
pub struct Rax {
    nodes: Vec<RNode>,
    free: Vec<usize>,
    head: usize,
    numele: u64,
    numnodes: u64,
    bytes: usize,
}

impl Rax {
    /// `raxNew`: an empty head node.
    pub fn new() -> Rax {
        let head = RNode::default();
        let bytes = alloc_size(head.len());
        Rax {
            nodes: vec![head],
            free: Vec::new(),
            head: 0,
            numele: 0,
            numnodes: 1,
            bytes,
        }
    }

    pub fn numele(&self) -> u64 {
        self.numele
    }

    pub fn numnodes(&self) -> u64 {
        self.numnodes
    }

    /// Bytes of all nodes as allocated.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    fn alloc(&mut self, n: RNode) -> usize {
        self.bytes += alloc_size(n.len());
        match self.free.pop() {
            Some(i) => {
                self.nodes[i] = n;
                i
            }
            None => {
                self.nodes.push(n);
                self.nodes.len() - 1
            }
        }
    }

    fn release(&mut self, i: usize) {
        self.bytes -= alloc_size(self.nodes[i].len());
        self.nodes[i] = RNode::default();
        self.free.push(i);
    }

    fn edit(&mut self, i: usize, f: impl FnOnce(&mut RNode)) {
        let before = alloc_size(self.nodes[i].len());
        f(&mut self.nodes[i]);
        self.bytes = self.bytes - before + alloc_size(self.nodes[i].len());
    }

    /// Splitting compressed node `i` (which was `old`) after its first `j`
    /// chars: it keeps them and its key flag, and leads to `child`.
    fn keep_prefix(&mut self, i: usize, old: &RNode, j: usize, child: usize) {
        self.edit(i, |n| {
            *n = RNode {
                key: old.key,
                compr: j > 1,
                chars: old.chars[..j].to_vec(),
                children: vec![child],
            }
        });
    }

    fn last_child(&self, i: usize) -> usize {
        *self.nodes[i].children.last().unwrap_or(&i)
    }

    /// `raxLowWalk`: (chars matched, stop node, split position in a
    /// compressed stop node, parents from the head down).
    fn walk(&self, s: &[u8]) -> (usize, usize, usize, Vec<usize>) {
        let mut h = self.head;
        let (mut i, mut j) = (0, 0);
        let mut stack = Vec::new();
        while self.nodes[h].size() > 0 && i < s.len() {
            let n = &self.nodes[h];
            if n.compr {
                j = 0;
                while j < n.size() && i < s.len() {
                    if n.chars[j] != s[i] {
                        break;
                    }
                    j += 1;
                    i += 1;
                }
                if j != n.size() {
                    break;
                }
            } else {
                match n.chars.iter().position(|&c| c == s[i]) {
                    Some(p) => j = p,
                    None => break,
                }
                i += 1;
            }
            stack.push(h);
            let slot = if n.compr { 0 } else { j };
            h = n.children[slot];
            j = 0;
        }
        let split = if self.nodes[h].compr { j } else { 0 };
        (i, h, split, stack)
    }

    /// Points `parent`'s link to `old` at `new` (or the head).
    fn relink(&mut self, parent: Option<usize>, old: usize, new: usize) {
        match parent {
            None => self.head = new,
            Some(p) => {
                if let Some(slot) = self.nodes[p].children.iter_mut().find(|c| **c == old) {
                    *slot = new;
                }
            }
        }
    }

    /// `raxInsert`: false if the key was there.
    pub fn insert(&mut self, s: &[u8]) -> bool {
        let (mut i, mut h, j, _) = self.walk(s);
        let len = s.len();
        if i == len && (!self.nodes[h].compr || j == 0) {
            if self.nodes[h].key {
                return false;
            }
            self.edit(h, |n| n.key = true);
            self.numele += 1;
            return true;
        }
        if self.nodes[h].compr && i != len {
            // ALGO 1: split the compressed node at the mismatch.
            let old = self.nodes[h].clone();
            let next = old.children[0];
            let postfixlen = old.size() - j - 1;
            let postfix = if postfixlen > 0 {
                self.numnodes += 1;
                self.alloc(RNode {
                    key: false,
                    compr: postfixlen > 1,
                    chars: old.chars[j + 1..].to_vec(),
                    children: vec![next],
                })
            } else {
                next
            };
            let split = RNode {
                key: j == 0 && old.key,
                compr: false,
                chars: vec![old.chars[j]],
                children: vec![postfix],
            };
            if j == 0 {
                self.edit(h, |n| *n = split);
            } else {
                let sidx = self.alloc(split);
                self.keep_prefix(h, &old, j, sidx);
                self.numnodes += 1;
                h = sidx;
            }
        } else if self.nodes[h].compr && i == len {
            // ALGO 2: the key ends inside a compressed node.
            let old = self.nodes[h].clone();
            let postfix = self.alloc(RNode {
                key: true,
                compr: old.size() - j > 1,
                chars: old.chars[j..].to_vec(),
                children: old.children.clone(),
            });
            self.numnodes += 1;
            self.keep_prefix(h, &old, j, postfix);
            self.numele += 1;
            return true;
        }
        while i < len {
            let child = self.alloc(RNode::default());
            if self.nodes[h].size() == 0 && len - i > 1 {
                let rest = s[i..].to_vec();
                self.edit(h, |n| {
                    n.compr = true;
                    n.chars = rest;
                    n.children = vec![child];
                });
                i = len;
            } else {
                let c = s[i];
                self.edit(h, |n| {
                    let pos = n.chars.iter().position(|&x| x > c).unwrap_or(n.size());
                    n.chars.insert(pos, c);
                    n.children.insert(pos, child);
                });
                i += 1;
            }
            self.numnodes += 1;
            h = child;
        }
        if !self.nodes[h].key {
            self.numele += 1;
        }
        self.edit(h, |n| n.key = true);
        true
    }

    /// `raxRemove`: false if the key was not there.
    pub fn remove(&mut self, s: &[u8]) -> bool {
        let (i, mut h, split, mut stack) = self.walk(s);
        if i != s.len() || (self.nodes[h].compr && split != 0) || !self.nodes[h].key {
            return false;
        }
        self.edit(h, |n| n.key = false);
        self.numele -= 1;
        let mut trycompress = false;
        if self.nodes[h].size() == 0 {
            let mut child = None;
            while h != self.head {
                child = Some(h);
                self.release(h);
                self.numnodes -= 1;
                let Some(p) = stack.pop() else {
                    break;
                };
                h = p;
                if self.nodes[h].key || (!self.nodes[h].compr && self.nodes[h].size() != 1) {
                    break;
                }
            }
            if let Some(c) = child {
                self.edit(h, |n| {
                    if n.compr {
                        n.compr = false;
                        n.chars.clear();
                        n.children.clear();
                    } else if let Some(pos) = n.children.iter().position(|&x| x == c) {
                        n.chars.remove(pos);
                        n.children.remove(pos);
                    }
                });
                if self.nodes[h].size() == 1 && !self.nodes[h].key {
                    trycompress = true;
                }
            }
        } else if self.nodes[h].size() == 1 {
            trycompress = true;
        }
        if !trycompress {
            return true;
        }
        // Go up to the highest node of the chain, then merge the chain
        // below it into one compressed node.
        let parent = loop {
            match stack.pop() {
                Some(p) if self.nodes[p].is_chain() => h = p,
                other => break other,
            }
        };
        let start = h;
        let mut nodes = 1;
        let mut x = h;
        while self.nodes[x].size() != 0 {
            x = self.last_child(x);
            if !self.nodes[x].is_chain() {
                break;
            }
            nodes += 1;
        }
        if nodes == 1 {
            return true;
        }
        let mut chars = Vec::new();
        let mut chain = Vec::new();
        let mut x = start;
        while self.nodes[x].size() != 0 {
            chars.extend_from_slice(&self.nodes[x].chars);
            chain.push(x);
            x = self.last_child(x);
            if !self.nodes[x].is_chain() {
                break;
            }
        }
        let new = self.alloc(RNode {
            key: false,
            compr: true,
            chars,
            children: vec![x],
        });
        self.numnodes += 1;
        for c in chain {
            self.release(c);
            self.numnodes -= 1;
        }
        self.relink(parent, start, new);
        true
    }
}

/// `streamRadixTreeMemoryUsage`: what MEMORY USAGE counts for a rax of
/// stream IDs (an element's ID, and a flat 244 bytes per node).
pub(super) fn rax_usage(r: &Rax) -> usize {
    r.numele() as usize * 16 + r.numnodes() as usize * (4 + 8 * 30)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ms: u64, seq: u64) -> Vec<u8> {
        let mut k = ms.to_be_bytes().to_vec();
        k.extend_from_slice(&seq.to_be_bytes());
        k
    }

    #[test]
    fn counts_follow_splits_and_merges() {
        let mut r = Rax::new();
        assert_eq!((r.numele(), r.numnodes()), (0, 1));
        assert!(r.insert(&key(1, 0)));
        // head compressed over 16 bytes -> leaf
        assert_eq!(r.numnodes(), 2);
        assert!(r.insert(&key(1, 100)));
        // split at the last byte: "15 bytes" -> branch -> two leaves
        assert_eq!(r.numnodes(), 4);
        assert!(!r.insert(&key(1, 100)));
        assert!(r.insert(&key(2, 0)));
        // split at byte 7: prefix, branch, postfix chain, leaf...
        assert_eq!(r.numele(), 3);
        let grown = r.numnodes();
        assert!(r.remove(&key(2, 0)));
        assert_eq!(r.numnodes(), 4, "recompressed after removal (was {grown})");
        assert!(r.remove(&key(1, 0)));
        assert_eq!(r.numnodes(), 2, "back to one chain and a leaf");
        assert!(r.remove(&key(1, 100)));
        assert_eq!((r.numele(), r.numnodes()), (0, 1));
        assert_eq!(r.bytes(), alloc_size(RNode::default().len()));
        assert!(!r.remove(&key(1, 100)));
    }
}
