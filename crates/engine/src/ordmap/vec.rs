//! `VecMap` and `VecSet`: sorted vectors with the part of `BTreeMap`'s and `BTreeSet`'s API the engine uses, for the light console (see the module above).
//!
//! Entries sit in one `Vec` in key order; a lookup is a binary search, an
//! insertion or removal shifts the entries after it. Behaviour matches the
//! B-trees', except that a range whose start lies after its end is empty
//! here where `std` panics.

use core::borrow::Borrow;
use core::iter::Map;
use core::ops::{Bound, Index, RangeBounds};
use core::slice;

/// The `[start, end)` indexes of the entries whose key lies in `range`.
fn span<T, Q, R>(items: &[T], key: impl Fn(&T) -> &Q, range: &R) -> (usize, usize)
where
    Q: Ord + ?Sized,
    R: RangeBounds<Q>,
{
    let start = match range.start_bound() {
        Bound::Included(s) => items.partition_point(|t| key(t) < s),
        Bound::Excluded(s) => items.partition_point(|t| key(t) <= s),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(e) => items.partition_point(|t| key(t) <= e),
        Bound::Excluded(e) => items.partition_point(|t| key(t) < e),
        Bound::Unbounded => items.len(),
    };
    (start, end.max(start))
}

/// A map kept as a vector of `(key, value)` pairs sorted by key.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct VecMap<K, V> {
    items: Vec<(K, V)>,
}

/// The entries of a [`VecMap`] in key order, or of one of its ranges.
pub type Iter<'a, K, V> = Map<slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;
/// The entries of a [`VecMap`] with their values mutable.
pub type IterMut<'a, K, V> =
    Map<slice::IterMut<'a, (K, V)>, fn(&'a mut (K, V)) -> (&'a K, &'a mut V)>;
/// The keys of a [`VecMap`] in order.
pub type Keys<'a, K, V> = Map<slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> &'a K>;
/// The values of a [`VecMap`] in key order.
pub type Values<'a, K, V> = Map<slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> &'a V>;
/// The values of a [`VecMap`] in key order, mutable.
pub type ValuesMut<'a, K, V> = Map<slice::IterMut<'a, (K, V)>, fn(&'a mut (K, V)) -> &'a mut V>;

fn pair<K, V>(kv: &(K, V)) -> (&K, &V) {
    (&kv.0, &kv.1)
}

fn pair_mut<K, V>(kv: &mut (K, V)) -> (&K, &mut V) {
    (&kv.0, &mut kv.1)
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap::new()
    }
}

impl<K, V> VecMap<K, V> {
    pub const fn new() -> Self {
        VecMap { items: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    pub fn iter(&self) -> Iter<'_, K, V> {
        self.items.iter().map(pair)
    }

    pub fn iter_mut(&mut self) -> IterMut<'_, K, V> {
        self.items.iter_mut().map(pair_mut)
    }

    pub fn keys(&self) -> Keys<'_, K, V> {
        self.items.iter().map(|kv| &kv.0)
    }

    pub fn values(&self) -> Values<'_, K, V> {
        self.items.iter().map(|kv| &kv.1)
    }

    pub fn values_mut(&mut self) -> ValuesMut<'_, K, V> {
        self.items.iter_mut().map(|kv| &mut kv.1)
    }

    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = K> {
        self.items.into_iter().map(|kv| kv.0)
    }

    pub fn into_values(self) -> impl DoubleEndedIterator<Item = V> {
        self.items.into_iter().map(|kv| kv.1)
    }

    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.items.first().map(pair)
    }

    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.items.last().map(pair)
    }

    pub fn pop_first(&mut self) -> Option<(K, V)> {
        (!self.items.is_empty()).then(|| self.items.remove(0))
    }

    pub fn pop_last(&mut self) -> Option<(K, V)> {
        self.items.pop()
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.items.retain_mut(|kv| keep(&kv.0, &mut kv.1));
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// Where `key` is, or where it would go.
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.items.binary_search_by(|kv| kv.0.borrow().cmp(key))
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.items[i].1)
    }

    pub fn get_key_value<Q: Ord + ?Sized>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| pair(&self.items[i]))
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &mut self.items[i].1)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Stores `value` under `key`, returning the value it replaces (the
    /// key already there is kept, as `BTreeMap` keeps it).
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(core::mem::replace(&mut self.items[i].1, value)),
            Err(i) => {
                self.items.insert(i, (key, value));
                None
            }
        }
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.remove_entry(key).map(|kv| kv.1)
    }

    pub fn remove_entry<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| self.items.remove(i))
    }

    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        match self.find(&key) {
            Ok(at) => Entry::Occupied(OccupiedEntry {
                items: &mut self.items,
                at,
            }),
            Err(at) => Entry::Vacant(VacantEntry {
                items: &mut self.items,
                key,
                at,
            }),
        }
    }

    pub fn range<Q, R>(&self, range: R) -> Iter<'_, K, V>
    where
        Q: Ord + ?Sized,
        K: Borrow<Q>,
        R: RangeBounds<Q>,
    {
        let (start, end) = span(&self.items, |kv| kv.0.borrow(), &range);
        self.items[start..end].iter().map(pair)
    }

    pub fn range_mut<Q, R>(&mut self, range: R) -> IterMut<'_, K, V>
    where
        Q: Ord + ?Sized,
        K: Borrow<Q>,
        R: RangeBounds<Q>,
    {
        let (start, end) = span(&self.items, |kv| kv.0.borrow(), &range);
        self.items[start..end].iter_mut().map(pair_mut)
    }

    pub fn append(&mut self, other: &mut VecMap<K, V>) {
        self.extend(other.items.drain(..));
    }
}

impl<K: Ord, V> Extend<(K, V)> for VecMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for VecMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = VecMap::new();
        map.extend(iter);
        map
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for VecMap<K, V> {
    fn from(items: [(K, V); N]) -> Self {
        items.into_iter().collect()
    }
}

impl<K: Ord + Borrow<Q>, Q: Ord + ?Sized, V> Index<&Q> for VecMap<K, V> {
    type Output = V;

    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a VecMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, K, V> IntoIterator for &'a mut VecMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<K: core::fmt::Debug, V: core::fmt::Debug> core::fmt::Debug for VecMap<K, V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A place in a [`VecMap`], as [`VecMap::entry`] finds it.
pub enum Entry<'a, K, V> {
    Vacant(VacantEntry<'a, K, V>),
    Occupied(OccupiedEntry<'a, K, V>),
}

/// A key not in the map, and where it would go.
pub struct VacantEntry<'a, K, V> {
    items: &'a mut Vec<(K, V)>,
    key: K,
    at: usize,
}

/// An entry of the map.
pub struct OccupiedEntry<'a, K, V> {
    items: &'a mut Vec<(K, V)>,
    at: usize,
}

impl<'a, K, V> Entry<'a, K, V> {
    pub fn or_insert(self, value: V) -> &'a mut V {
        self.or_insert_with(|| value)
    }

    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(make()),
        }
    }

    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    pub fn and_modify(mut self, f: impl FnOnce(&mut V)) -> Self {
        if let Entry::Occupied(e) = &mut self {
            f(e.get_mut());
        }
        self
    }

    pub fn key(&self) -> &K {
        match self {
            Entry::Occupied(e) => e.key(),
            Entry::Vacant(e) => &e.key,
        }
    }
}

impl<'a, K, V> VacantEntry<'a, K, V> {
    pub fn insert(self, value: V) -> &'a mut V {
        self.items.insert(self.at, (self.key, value));
        &mut self.items[self.at].1
    }

    pub fn key(&self) -> &K {
        &self.key
    }
}

impl<'a, K, V> OccupiedEntry<'a, K, V> {
    pub fn key(&self) -> &K {
        &self.items[self.at].0
    }

    pub fn get(&self) -> &V {
        &self.items[self.at].1
    }

    pub fn get_mut(&mut self) -> &mut V {
        &mut self.items[self.at].1
    }

    pub fn into_mut(self) -> &'a mut V {
        &mut self.items[self.at].1
    }

    pub fn insert(&mut self, value: V) -> V {
        core::mem::replace(self.get_mut(), value)
    }

    pub fn remove(self) -> V {
        self.remove_entry().1
    }

    pub fn remove_entry(self) -> (K, V) {
        self.items.remove(self.at)
    }
}

/// A set kept as a sorted vector.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct VecSet<K> {
    items: Vec<K>,
}

impl<K> Default for VecSet<K> {
    fn default() -> Self {
        VecSet::new()
    }
}

impl<K> VecSet<K> {
    pub const fn new() -> Self {
        VecSet { items: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    pub fn iter(&self) -> slice::Iter<'_, K> {
        self.items.iter()
    }

    pub fn first(&self) -> Option<&K> {
        self.items.first()
    }

    pub fn last(&self) -> Option<&K> {
        self.items.last()
    }

    pub fn pop_first(&mut self) -> Option<K> {
        (!self.items.is_empty()).then(|| self.items.remove(0))
    }

    pub fn pop_last(&mut self) -> Option<K> {
        self.items.pop()
    }

    pub fn retain(&mut self, keep: impl FnMut(&K) -> bool) {
        self.items.retain(keep);
    }
}

impl<K: Ord> VecSet<K> {
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.items.binary_search_by(|k| k.borrow().cmp(key))
    }

    pub fn contains<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&K>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.items[i])
    }

    /// Adds `key`; false if it was there (the one there is kept).
    pub fn insert(&mut self, key: K) -> bool {
        match self.find(&key) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, key);
                true
            }
        }
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.take(key).is_some()
    }

    pub fn take<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<K>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| self.items.remove(i))
    }

    pub fn range<Q, R>(&self, range: R) -> slice::Iter<'_, K>
    where
        Q: Ord + ?Sized,
        K: Borrow<Q>,
        R: RangeBounds<Q>,
    {
        let (start, end) = span(&self.items, |k| k.borrow(), &range);
        self.items[start..end].iter()
    }
}

impl<K: Ord> Extend<K> for VecSet<K> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, iter: I) {
        for k in iter {
            self.insert(k);
        }
    }
}

impl<K: Ord> FromIterator<K> for VecSet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut set = VecSet::new();
        set.extend(iter);
        set
    }
}

impl<K: Ord, const N: usize> From<[K; N]> for VecSet<K> {
    fn from(items: [K; N]) -> Self {
        items.into_iter().collect()
    }
}

impl<K> IntoIterator for VecSet<K> {
    type Item = K;
    type IntoIter = std::vec::IntoIter<K>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, K> IntoIterator for &'a VecSet<K> {
    type Item = &'a K;
    type IntoIter = slice::Iter<'a, K>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<K: core::fmt::Debug> core::fmt::Debug for VecSet<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}
