//! Ordered maps and sets keyed by client ids, kept as sorted vectors: what the engine's per-client tables need, in far less code than a B-tree per value type.
//!
//! Each `BTreeMap<u64, V>` brings its own copy of the B-tree's search,
//! split, rebalance and iteration code, 4 to 5 KB of wasm per value type;
//! the engine had eight such maps, all in the browser's console. Here the
//! keys live in one sorted `Vec<u64>` (one binary search serves every
//! table) and the values in a parallel `Vec`. Ids are handed out in
//! increasing order, so inserting a new client appends, and a removal
//! leaves a hole that a later pass closes (amortised constant time, so a
//! server with many thousand connections does not pay for each one that
//! leaves). Iteration is in id order, as the B-trees' was, so replies that
//! list clients keep their order. A set's removal shifts the plain ids
//! after it, a memmove of 8 bytes per client.

use core::slice;

/// A map from `u64` ids to `V`, iterated in id order.
///
/// A removed entry leaves a hole (its value taken, its id kept) until holes
/// are half the table, when one pass closes them: removal stays cheap
/// however many clients a server holds, and the order never changes.
#[derive(Clone, Debug)]
pub struct IdMap<V> {
    keys: Vec<u64>,
    vals: Vec<Option<V>>,
    live: usize,
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap::new()
    }
}

/// Where `id` is, or where it would go.
#[inline(never)]
fn find(keys: &[u64], id: u64) -> Result<usize, usize> {
    keys.binary_search(&id)
}

impl<V> IdMap<V> {
    pub const fn new() -> Self {
        IdMap {
            keys: Vec::new(),
            vals: Vec::new(),
            live: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    fn slot(&self, id: u64) -> Option<usize> {
        find(&self.keys, id)
            .ok()
            .filter(|&i| self.vals[i].is_some())
    }

    pub fn contains_key(&self, id: &u64) -> bool {
        self.slot(*id).is_some()
    }

    pub fn get(&self, id: &u64) -> Option<&V> {
        self.vals[self.slot(*id)?].as_ref()
    }

    pub fn get_mut(&mut self, id: &u64) -> Option<&mut V> {
        let i = self.slot(*id)?;
        self.vals[i].as_mut()
    }

    /// Sets `id` to `v`; returns the value it replaced.
    pub fn insert(&mut self, id: u64, v: V) -> Option<V> {
        let i = self.place(id);
        let old = self.vals[i].replace(v);
        self.live += old.is_none() as usize;
        old
    }

    /// The index `id` has, a hole made for it if it had none.
    fn place(&mut self, id: u64) -> usize {
        match find(&self.keys, id) {
            Ok(i) => i,
            Err(i) => {
                self.keys.insert(i, id);
                self.vals.insert(i, None);
                i
            }
        }
    }

    pub fn remove(&mut self, id: &u64) -> Option<V> {
        let i = self.slot(*id)?;
        let v = self.vals[i].take();
        self.live -= 1;
        if self.live * 2 < self.keys.len() {
            self.close_holes();
        }
        v
    }

    fn close_holes(&mut self) {
        let mut kept = 0;
        for i in 0..self.keys.len() {
            if self.vals[i].is_some() {
                self.keys.swap(kept, i);
                self.vals.swap(kept, i);
                kept += 1;
            }
        }
        self.keys.truncate(kept);
        self.vals.truncate(kept);
    }

    /// The value of `id`, made by `make` first if there is none.
    pub fn get_or_insert_with(&mut self, id: u64, make: impl FnOnce() -> V) -> &mut V {
        let i = self.place(id);
        if self.vals[i].is_none() {
            self.live += 1;
        }
        self.vals[i].get_or_insert_with(make)
    }

    pub fn iter(&self) -> Iter<'_, V> {
        self.keys.iter().zip(self.vals.iter()).filter_map(live)
    }

    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&u64, &mut V)> {
        self.keys
            .iter()
            .zip(self.vals.iter_mut())
            .filter_map(|(k, v)| Some((k, v.as_mut()?)))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &u64> {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> {
        self.vals.iter().flatten()
    }

    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> {
        self.vals.iter_mut().flatten()
    }

    /// Keeps the entries `keep` says yes to, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&u64, &mut V) -> bool) {
        for (k, slot) in self.keys.iter().zip(self.vals.iter_mut()) {
            if slot.as_mut().is_some_and(|v| !keep(k, v)) {
                *slot = None;
                self.live -= 1;
            }
        }
        self.close_holes();
    }

    pub fn clear(&mut self) {
        self.keys.clear();
        self.vals.clear();
        self.live = 0;
    }
}

impl<V: Default> IdMap<V> {
    /// The value of `id`, a default one first if there is none.
    pub fn get_or_default(&mut self, id: u64) -> &mut V {
        self.get_or_insert_with(id, V::default)
    }
}

/// An entry that is not a hole.
fn live<'a, V>((k, v): (&'a u64, &'a Option<V>)) -> Option<(&'a u64, &'a V)> {
    Some((k, v.as_ref()?))
}

/// The entries of an [`IdMap`], in id order.
pub type Iter<'a, V> = core::iter::FilterMap<
    core::iter::Zip<slice::Iter<'a, u64>, slice::Iter<'a, Option<V>>>,
    fn((&'a u64, &'a Option<V>)) -> Option<(&'a u64, &'a V)>,
>;

impl<'a, V> IntoIterator for &'a IdMap<V> {
    type Item = (&'a u64, &'a V);
    type IntoIter = Iter<'a, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<V> core::ops::Index<&u64> for IdMap<V> {
    type Output = V;
    fn index(&self, id: &u64) -> &V {
        self.get(id).expect("no entry for this id")
    }
}

/// A set of `u64` ids, iterated in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdSet {
    keys: Vec<u64>,
}

impl IdSet {
    pub const fn new() -> Self {
        IdSet { keys: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn contains(&self, id: &u64) -> bool {
        find(&self.keys, *id).is_ok()
    }

    /// Adds `id`; false if it was there already.
    pub fn insert(&mut self, id: u64) -> bool {
        match find(&self.keys, id) {
            Ok(_) => false,
            Err(i) => {
                self.keys.insert(i, id);
                true
            }
        }
    }

    /// Takes `id` out; false if it was not there.
    pub fn remove(&mut self, id: &u64) -> bool {
        match find(&self.keys, *id) {
            Ok(i) => {
                self.keys.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    pub fn iter(&self) -> slice::Iter<'_, u64> {
        self.keys.iter()
    }

    pub fn clear(&mut self) {
        self.keys.clear();
    }
}

impl<'a> IntoIterator for &'a IdSet {
    type Item = &'a u64;
    type IntoIter = slice::Iter<'a, u64>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for IdSet {
    type Item = u64;
    type IntoIter = std::vec::IntoIter<u64>;
    fn into_iter(self) -> Self::IntoIter {
        self.keys.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u64, u32),
        Remove(u64),
        Bump(u64),
        Retain(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u64..40, any::<u32>()).prop_map(|(k, v)| Op::Insert(k, v)),
            (0u64..40).prop_map(Op::Remove),
            (0u64..40).prop_map(Op::Bump),
            (2u32..5).prop_map(Op::Retain),
        ]
    }

    proptest! {
        /// Any sequence of operations leaves the same entries, in the same
        /// order, with the same answers, as a B-tree.
        #[test]
        fn behaves_like_a_btree(ops in proptest::collection::vec(op(), 0..120)) {
            let (mut ours, mut model) = (IdMap::new(), BTreeMap::new());
            let (mut set, mut set_model) = (IdSet::new(), BTreeSet::new());
            for o in ops {
                match o {
                    Op::Insert(k, v) => {
                        prop_assert_eq!(ours.insert(k, v), model.insert(k, v));
                        prop_assert_eq!(set.insert(k), set_model.insert(k));
                    }
                    Op::Remove(k) => {
                        prop_assert_eq!(ours.remove(&k), model.remove(&k));
                        prop_assert_eq!(set.remove(&k), set_model.remove(&k));
                    }
                    Op::Bump(k) => {
                        let v = ours.get_or_default(k);
                        *v = v.wrapping_add(1);
                        let v = model.entry(k).or_default();
                        *v = v.wrapping_add(1);
                    }
                    Op::Retain(m) => {
                        ours.retain(|k, v| (*k as u32).wrapping_add(*v) % m != 0);
                        model.retain(|k, v| (*k as u32).wrapping_add(*v) % m != 0);
                    }
                }
                prop_assert!(ours.iter().map(|(k, v)| (*k, *v)).eq(model.iter().map(|(k, v)| (*k, *v))));
                prop_assert!(set.iter().eq(set_model.iter()));
                prop_assert_eq!(ours.len(), model.len());
                for k in 0..40 {
                    prop_assert_eq!(ours.get(&k), model.get(&k));
                    prop_assert_eq!(set.contains(&k), set_model.contains(&k));
                }
            }
        }
    }
}
