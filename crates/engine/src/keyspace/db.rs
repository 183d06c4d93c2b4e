//! One logical database: the main dictionary, the expires dictionary, and the memory they account for.

use crate::ordmap::OrdMap;
use std::cell::Cell;

use crate::keyspace::dict::Dict;
use crate::keyspace::memory;
use crate::keyspace::object::Obj;

/// A numbered database (`SELECT n`), as `redisDb`.
pub struct Db {
    /// Keys to values.
    pub dict: Dict<Obj>,
    /// Keys with a TTL to their absolute expiry time in Unix milliseconds.
    pub expires: Dict<i64>,
    /// Running average TTL of sampled keys, as INFO keyspace shows it.
    pub avg_ttl: i64,
    /// Where the active expire cycle's scan of `expires` resumes.
    pub expires_cursor: u64,
    /// Bytes this database accounts for (keys, values, expiry entries, buckets).
    mem: usize,
}

impl Db {
    /// An empty database whose tables are keyed by `seed`.
    pub fn new(seed: u64) -> Db {
        Db {
            dict: Dict::new(seed),
            expires: Dict::new(seed ^ 0x9e37_79b9_7f4a_7c15),
            avg_ttl: 0,
            expires_cursor: 0,
            mem: 0,
        }
    }

    /// Number of keys (expired-but-unreclaimed ones included, as DBSIZE counts them).
    pub fn len(&self) -> usize {
        self.dict.len()
    }

    /// True when the database holds no key.
    pub fn is_empty(&self) -> bool {
        self.dict.is_empty()
    }

    /// Bytes accounted to this database, bucket arrays included.
    pub fn memory(&self) -> usize {
        self.mem + 8 * (self.dict.buckets() + self.expires.buckets())
    }

    /// The object under `key`, without any expiry check.
    pub fn get(&self, key: &[u8]) -> Option<&Obj> {
        self.dict.get(key)
    }

    /// The key's `lru` field (LRU clock, or LFU minutes and counter).
    pub fn lru(&self, key: &[u8]) -> Option<u32> {
        self.dict.aux(key)
    }

    /// Sets the key's `lru` field, if the key exists.
    pub fn set_lru(&mut self, key: &[u8], lru: u32) {
        if let Some(slot) = self.dict.slot_of(key) {
            self.dict.set_aux_at(slot, lru);
        }
    }

    /// Stores `obj` under `key` with `lru` as its LRU/LFU field, replacing
    /// any value (the TTL is left alone).
    pub fn insert(&mut self, key: &[u8], obj: Obj, lru: u32) -> Option<Obj> {
        let h = self.dict.hash(key);
        self.insert_hashed(key, h, obj, lru)
    }

    /// [`Db::insert`] for a hash from `self.dict.hash(key)`: a caller that
    /// looked the key up first hashes it once.
    pub fn insert_hashed(&mut self, key: &[u8], h: u32, obj: Obj, lru: u32) -> Option<Obj> {
        self.mem += obj.entry_size(key);
        let old = self.dict.insert_hashed(key, h, obj, lru);
        if let Some(o) = &old {
            self.mem -= o.entry_size(key);
        }
        old
    }

    /// Mutates the object under `key` in place, keeping the accounting right.
    pub fn with_mut<R>(&mut self, key: &[u8], f: impl FnOnce(&mut Obj) -> R) -> Option<R> {
        let obj = self.dict.get_mut(key)?;
        let before = obj.entry_size(key);
        let r = f(obj);
        let after = obj.entry_size(key);
        self.mem = self.mem + after - before;
        Some(r)
    }

    /// Removes `key` and its TTL.
    pub fn remove(&mut self, key: &[u8]) -> Option<Obj> {
        let obj = self.dict.take(key)?;
        self.mem -= obj.entry_size(key);
        if self.expires.remove(key).is_some() {
            self.mem -= memory::expire_entry_size();
        }
        Some(obj)
    }

    /// The absolute expiry (Unix ms) of `key`, if it has one.
    pub fn expire_at(&self, key: &[u8]) -> Option<i64> {
        self.expires.get(key).copied()
    }

    /// Sets the absolute expiry of an existing key.
    pub fn set_expire(&mut self, key: &[u8], when_ms: i64) {
        debug_assert!(self.dict.contains(key));
        if self.expires.insert(key, when_ms).is_none() {
            self.mem += memory::expire_entry_size();
        }
    }

    /// Drops the TTL of `key`; true if it had one.
    pub fn persist(&mut self, key: &[u8]) -> bool {
        let had = self.expires.remove(key).is_some();
        if had {
            self.mem -= memory::expire_entry_size();
        }
        had
    }

    /// Empties the database; returns how many keys it held.
    pub fn clear(&mut self) -> usize {
        let n = self.dict.len();
        self.dict.clear();
        self.expires.clear();
        self.mem = 0;
        self.avg_ttl = 0;
        self.expires_cursor = 0;
        n
    }

    /// Shrinks sparse tables, as Redis' cron does (`tryResizeHashTables`).
    pub fn shrink_tables(&mut self) {
        self.dict.shrink_if_needed();
        self.expires.shrink_if_needed();
    }

    /// A database's share of `used_memory_overhead` as `getMemoryOverheadData`
    /// computes it in 7.2: the main table's entries, buckets and one `robj` per
    /// key, and the expires table's entries and buckets.
    pub fn overhead(&self) -> (u64, u64) {
        use crate::keyspace::memory::{DICT_ENTRY, ROBJ};
        const PTR: u64 = 8;
        let keys = self.dict.len() as u64;
        let main = keys * (DICT_ENTRY + ROBJ) as u64 + self.dict.buckets() as u64 * PTR;
        let expires =
            self.expires.len() as u64 * DICT_ENTRY as u64 + self.expires.buckets() as u64 * PTR;
        (main, expires)
    }
}

/// The keys of database `db` in an index by (database, key), such as the
/// clients watching or blocked on keys keep: what FLUSHDB must visit.
pub(crate) fn keys_in_db<V>(index: &OrdMap<(usize, Vec<u8>), V>, db: usize) -> Vec<Vec<u8>> {
    index
        .range((db, Vec::new())..(db + 1, Vec::new()))
        .map(|((_, k), _)| k.clone())
        .collect()
}

/// The server's databases, indexed like a `Vec<Db>`, with their memory
/// summed cheaply. Redis reads `used_memory` from one counter before every
/// command (eviction checks it); summing every database's accounting there
/// instead cost more than the GET it guarded. So each mutable borrow of a
/// database marks it, and [`Dbs::memory`] re-reads only the marked ones.
/// Every way to mutate a database goes through `IndexMut` (one marked) or
/// `DerefMut` (all marked), so the sum cannot go stale.
pub struct Dbs {
    dbs: Vec<Db>,
    /// Each database's `memory()` when last summed.
    counted: Vec<Cell<u64>>,
    /// The sum of `counted`.
    total: Cell<u64>,
    /// Bit `i` for a database `i` borrowed mutably since the last sum;
    /// bit 63 stands for databases 63 and above.
    dirty: Cell<u64>,
}

impl Dbs {
    /// Wraps `dbs`, every one counted at the next sum.
    pub fn new(dbs: Vec<Db>) -> Dbs {
        Dbs {
            counted: dbs.iter().map(|_| Cell::new(0)).collect(),
            dbs,
            total: Cell::new(0),
            dirty: Cell::new(u64::MAX),
        }
    }

    fn bit(i: usize) -> u64 {
        1 << i.min(63)
    }

    /// Bytes all databases account for: the sum of their `memory()`.
    pub fn memory(&self) -> u64 {
        let mut dirty = self.dirty.replace(0);
        let mut total = self.total.get();
        while dirty != 0 {
            let b = dirty.trailing_zeros() as usize;
            dirty &= dirty - 1;
            let end = if b == 63 { self.dbs.len() } else { b + 1 };
            for i in b..end.min(self.dbs.len()) {
                let now = self.dbs[i].memory() as u64;
                total = total
                    .wrapping_sub(self.counted[i].replace(now))
                    .wrapping_add(now);
            }
        }
        self.total.set(total);
        total
    }
}

impl std::ops::Deref for Dbs {
    type Target = [Db];
    fn deref(&self) -> &[Db] {
        &self.dbs
    }
}

impl std::ops::DerefMut for Dbs {
    fn deref_mut(&mut self) -> &mut [Db] {
        self.dirty.set(u64::MAX);
        &mut self.dbs
    }
}

impl std::ops::Index<usize> for Dbs {
    type Output = Db;
    fn index(&self, i: usize) -> &Db {
        &self.dbs[i]
    }
}

impl std::ops::IndexMut<usize> for Dbs {
    fn index_mut(&mut self, i: usize) -> &mut Db {
        self.dirty.set(self.dirty.get() | Dbs::bit(i));
        &mut self.dbs[i]
    }
}

impl<'a> IntoIterator for &'a Dbs {
    type Item = &'a Db;
    type IntoIter = std::slice::Iter<'a, Db>;
    fn into_iter(self) -> Self::IntoIter {
        self.dbs.iter()
    }
}

impl<'a> IntoIterator for &'a mut Dbs {
    type Item = &'a mut Db;
    type IntoIter = std::slice::IterMut<'a, Db>;
    fn into_iter(self) -> Self::IntoIter {
        self.dirty.set(u64::MAX);
        self.dbs.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyspace::object::RString;
    use crate::rng::Pick;

    fn obj(len: usize) -> Obj {
        Obj::string(RString::from_bytes(&vec![b'v'; len]))
    }

    /// The cached sum always equals summing every database, whichever way
    /// they were reached: one by index, all through a slice or an iterator,
    /// including databases past the 63rd (which share one dirty bit).
    #[test]
    fn memory_sum_follows_every_kind_of_mutation() {
        let mut rng = fastrand::Rng::with_seed(5);
        let mut dbs = Dbs::new((0..70).map(Db::new).collect());
        let naive = |dbs: &Dbs| dbs.iter().map(|d| d.memory() as u64).sum::<u64>();
        assert_eq!(dbs.memory(), naive(&dbs));
        for step in 0..5_000u32 {
            let key = format!("k{}", rng.u32(..300)).into_bytes();
            let i = rng.pick(..70);
            match rng.u8(..6) {
                0 | 1 => {
                    dbs[i].insert(&key, obj(rng.pick(..100)), 0);
                }
                2 => {
                    dbs[i].remove(&key);
                }
                3 => {
                    if dbs[i].get(&key).is_some() {
                        dbs[i].set_expire(&key, 1_000 + step as i64);
                    }
                }
                4 => {
                    if let Some(d) = dbs.get_mut(i) {
                        d.persist(&key);
                        d.insert(&key, obj(30), 0);
                    }
                }
                _ => {
                    for d in &mut dbs {
                        d.shrink_tables();
                    }
                    if step % 1000 == 0 {
                        dbs[i].clear();
                    }
                }
            }
            assert_eq!(dbs.memory(), naive(&dbs), "step {step}");
        }
        assert!(dbs.iter().filter(|d| !d.is_empty()).count() > 30);
    }
}
