//! The eviction pool (`EvictionPoolLRU`) and what eviction keeps between calls: 16 sorted candidates with key buffers that travel with them, and the exact reference policies' order.

use crate::ordmap::{OrdMap, OrdSet};

/// `EVPOOL_SIZE`.
pub const POOL_SIZE: usize = 16;

/// Modelled cost of evicting one key.
pub const EVICT_COST_NS: u64 = 1_000;

/// One pool slot (`struct evictionPoolEntry`): small and `Copy`, so the
/// shifts that keep the pool sorted move 16 bytes per entry; its key lives
/// in the pool's buffer `buf`, which travels with the entry as Redis'
/// `cached` sds does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PoolEntry {
    /// Score: the higher, the better a candidate.
    idle: u64,
    db: u32,
    /// Which of [`Pool::keys`] holds this entry's key.
    buf: u8,
    /// False for an empty slot.
    full: bool,
}

/// The eviction pool (`EvictionPoolLRU`): [`POOL_SIZE`] entries sorted by
/// ascending score with the empty ones on the right, and one key buffer per
/// entry, reused for every key the entry takes (no allocation per
/// candidate once the buffers have grown to the keys' length).
#[derive(Clone, Debug)]
pub struct Pool {
    entries: [PoolEntry; POOL_SIZE],
    keys: [Vec<u8>; POOL_SIZE],
}

impl Default for Pool {
    fn default() -> Self {
        Pool {
            entries: std::array::from_fn(|i| PoolEntry {
                buf: i as u8,
                ..PoolEntry::default()
            }),
            keys: Default::default(),
        }
    }
}

impl Pool {
    /// The occupied slots in order: (db, key, score).
    pub fn iter(&self) -> impl Iterator<Item = (usize, &[u8], u64)> {
        self.entries
            .iter()
            .filter(|e| e.full)
            .map(|e| (e.db as usize, self.keys[e.buf as usize].as_slice(), e.idle))
    }

    /// False when [`Pool::insert`] would drop a candidate of score `idle`
    /// at once (worse than everything in a full pool), so its key need not
    /// be read.
    pub(super) fn enters(&self, idle: u64) -> bool {
        let e = &self.entries;
        !e[POOL_SIZE - 1].full || (e[0].full && e[0].idle < idle)
    }

    /// Inserts a candidate keeping the pool sorted, exactly as Redis shifts it.
    pub(super) fn insert(&mut self, key: &[u8], idle: u64, db: usize) {
        let e = &mut self.entries;
        let mut k = 0;
        while k < POOL_SIZE && e[k].full && e[k].idle < idle {
            k += 1;
        }
        if k == 0 && e[POOL_SIZE - 1].full {
            // Worse than everything in a full pool.
            return;
        } else if k < POOL_SIZE && !e[k].full {
            // An empty slot: take it.
        } else if !e[POOL_SIZE - 1].full {
            // Room on the right: shift k.. right by one; the empty last
            // entry's buffer comes round to k.
            let spare = e[POOL_SIZE - 1];
            e.copy_within(k..POOL_SIZE - 1, k + 1);
            e[k] = spare;
        } else {
            // Full: drop the worst (leftmost) and insert just before k,
            // reusing the dropped entry's buffer.
            k -= 1;
            let spare = e[0];
            e.copy_within(1..=k, 0);
            e[k] = spare;
        }
        let buf = &mut self.keys[e[k].buf as usize];
        buf.clear();
        buf.extend_from_slice(key);
        e[k].idle = idle;
        e[k].db = db as u32;
        e[k].full = true;
    }

    /// Empties slot `k`, swapping its key into `out` (whose old buffer the
    /// slot keeps); returns the entry's database, or None if it was empty.
    pub(super) fn take(&mut self, k: usize, out: &mut Vec<u8>) -> Option<usize> {
        let e = &mut self.entries[k];
        if !e.full {
            return None;
        }
        e.full = false;
        e.idle = 0;
        std::mem::swap(&mut self.keys[e.buf as usize], out);
        Some(e.db as usize)
    }
}

/// What eviction keeps between calls.
#[derive(Clone, Debug, Default)]
pub struct EvictState {
    /// The candidates pool.
    pub pool: Pool,
    /// The key being evicted, a buffer swapped with the pool's (see
    /// [`Pool::take`]) so choosing a victim allocates nothing.
    pub(super) victim: Vec<u8>,
    /// Database the random policies try next.
    pub next_db: usize,
    /// Eviction ran out of time and continues before the next sleep.
    pub proc_running: bool,
    /// Bookkeeping of the exact reference policies (empty otherwise).
    pub exact: ExactState,
    /// Candidates sampled while choosing the current victim, recorded only
    /// when the trace is on, for the UI's view of one eviction.
    pub sampled: Vec<crate::server::trace::Candidate>,
}

/// What `exact-lru` / `exact-lfu` know: every touched key's access count
/// and last access sequence number, and the keys ordered by (rank, last
/// access) where rank is 0 under exact-lru and the count under exact-lfu.
/// Deleted keys stay until they reach the front and are skipped there.
#[derive(Clone, Debug, Default)]
pub struct ExactState {
    seq: u64,
    /// (db, key) -> (count, last access, rank it is ordered by).
    keys: OrdMap<(usize, Vec<u8>), (u64, u64, u64)>,
    order: OrdSet<(u64, u64, usize, Vec<u8>)>,
}

impl ExactState {
    /// Records an access to `key` (`lfu`: order by count, else by recency).
    pub fn touch(&mut self, lfu: bool, db: usize, key: &[u8]) {
        self.seq += 1;
        let k = (db, key.to_vec());
        let count = match self.keys.get(&k) {
            Some(&(count, seq, rank)) => {
                self.order.remove(&(rank, seq, db, key.to_vec()));
                count + 1
            }
            None => 1,
        };
        let rank = if lfu { count } else { 0 };
        self.keys.insert(k, (count, self.seq, rank));
        self.order.insert((rank, self.seq, db, key.to_vec()));
    }

    /// SWAPDB: databases `a` and `b` trade their keys' records.
    pub fn swap_dbs(&mut self, a: usize, b: usize) {
        let other = |d: usize| {
            if d == a {
                b
            } else if d == b {
                a
            } else {
                d
            }
        };
        // Inserted one by one: `collect` into a B-tree would add a sort
        // and a bulk build of these types to the browser's console.
        for ((d, k), v) in std::mem::take(&mut self.keys) {
            self.keys.insert((other(d), k), v);
        }
        for (r, s, d, k) in std::mem::take(&mut self.order) {
            self.order.insert((r, s, other(d), k));
        }
    }

    /// Takes the least recently / least frequently used key off the front.
    pub(super) fn pop(&mut self) -> Option<(usize, Vec<u8>)> {
        let (_, _, db, key) = self.order.pop_first()?;
        self.keys.remove(&(db, key.clone()));
        Some((db, key))
    }
}

/// Outcome of `performEvictions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvictResult {
    /// Under the limit (or freed enough).
    Ok,
    /// Still over, eviction continues later; commands are not refused.
    Running,
    /// Over the limit with nothing evictable: `denyoom` commands get OOM.
    Fail,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Pick;

    fn scores(pool: &Pool) -> Vec<u64> {
        pool.iter().map(|(_, _, idle)| idle).collect()
    }

    #[test]
    fn pool_stays_sorted_and_drops_the_worst_when_full() {
        let mut pool = Pool::default();
        for idle in [50, 10, 30, 20, 40] {
            pool.insert(b"k", idle, 0);
        }
        assert_eq!(scores(&pool), [10, 20, 30, 40, 50]);
        for idle in 100..120 {
            pool.insert(b"k", idle, 0);
        }
        let got = scores(&pool);
        assert_eq!(got.len(), POOL_SIZE);
        assert_eq!(got[0], 104);
        assert_eq!(got[POOL_SIZE - 1], 119);
        // Worse than all in a full pool: ignored.
        assert!(!pool.enters(1));
        pool.insert(b"k", 1, 0);
        assert_eq!(scores(&pool)[0], 104);
    }

    /// The pool against a plain model of `evictionPoolPopulate`'s shifts
    /// (a vector of optional (score, key, db)), under random inserts and
    /// takes: same entries in the same slots, and every key still with its
    /// own entry after the buffers have been passed around.
    #[test]
    fn pool_matches_redis_shifts_and_keys_follow_their_entries() {
        type Slot = Option<(u64, Vec<u8>, usize)>;
        fn model_insert(m: &mut [Slot], key: &[u8], idle: u64, db: usize) {
            let mut k = 0;
            while k < POOL_SIZE && m[k].as_ref().is_some_and(|e| e.0 < idle) {
                k += 1;
            }
            if k == 0 && m[POOL_SIZE - 1].is_some() {
                return;
            } else if k < POOL_SIZE && m[k].is_none() {
            } else if m[POOL_SIZE - 1].is_none() {
                m[k..].rotate_right(1);
            } else {
                k -= 1;
                m[..=k].rotate_left(1);
            }
            m[k] = Some((idle, key.to_vec(), db));
        }
        let mut rng = fastrand::Rng::with_seed(4);
        let mut pool = Pool::default();
        let mut model: Vec<Slot> = vec![None; POOL_SIZE];
        let mut out = Vec::new();
        for step in 0..20_000u32 {
            if rng.u8(..4) == 0 {
                let k = rng.pick(..POOL_SIZE);
                let want = model[k].take();
                let got = pool.take(k, &mut out);
                assert_eq!(got, want.as_ref().map(|e| e.2), "step {step}");
                if let Some(e) = want {
                    assert_eq!(out, e.1, "step {step}");
                }
            } else {
                let idle = rng.u64(..200);
                let key = format!("key:{step}:{}", "x".repeat(rng.pick(..30)));
                let db = rng.pick(..16);
                assert_eq!(
                    pool.enters(idle),
                    model[POOL_SIZE - 1].is_none() || model[0].as_ref().is_some_and(|e| e.0 < idle)
                );
                pool.insert(key.as_bytes(), idle, db);
                model_insert(&mut model, key.as_bytes(), idle, db);
            }
            let got: Vec<Slot> = pool
                .entries
                .iter()
                .map(|e| {
                    e.full
                        .then(|| (e.idle, pool.keys[e.buf as usize].clone(), e.db as usize))
                })
                .collect();
            assert_eq!(got, model, "step {step}");
            let mut bufs: Vec<u8> = pool.entries.iter().map(|e| e.buf).collect();
            crate::sort::sort(&mut bufs);
            assert_eq!(bufs, (0..POOL_SIZE as u8).collect::<Vec<_>>());
        }
    }

    #[test]
    fn swapping_databases_keeps_the_exact_order() {
        let mut x = ExactState::default();
        x.touch(false, 0, b"a");
        x.touch(false, 1, b"b");
        x.touch(false, 2, b"c");
        x.touch(false, 0, b"d");
        x.swap_dbs(0, 1);
        let order: Vec<(usize, Vec<u8>)> = std::iter::from_fn(|| x.pop()).collect();
        assert_eq!(
            order,
            [
                (1, b"a".to_vec()),
                (0, b"b".to_vec()),
                (2, b"c".to_vec()),
                (1, b"d".to_vec())
            ]
        );
    }
}
