//! A pod's pieces: its in-process L1 cache (bounded, with a TTL) and its connection pool (a size, FIFO waiters, a wait timeout the caller schedules).

use crate::kernel::Micros;
use std::collections::{BTreeMap, VecDeque};

/// A pod's in-process cache: at most `capacity` entries, each living `ttl`.
/// When full, the oldest insertion goes (cheap and predictable; what
/// matters for the lessons is the TTL, which bounds staleness).
#[derive(Clone, Debug)]
pub struct L1Cache {
    pub capacity: usize,
    pub ttl: Micros,
    entries: BTreeMap<String, (String, Micros, u64)>,
    order: BTreeMap<u64, String>,
    seq: u64,
    pub hits: u64,
    pub misses: u64,
}

impl L1Cache {
    pub fn new(capacity: usize, ttl: Micros) -> L1Cache {
        L1Cache {
            capacity: capacity.max(1),
            ttl,
            entries: BTreeMap::new(),
            order: BTreeMap::new(),
            seq: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// The live value of `key` at `now`, counting the hit or miss.
    pub fn get(&mut self, now: Micros, key: &str) -> Option<String> {
        match self.entries.get(key) {
            Some((v, exp, _)) if *exp > now => {
                self.hits += 1;
                Some(v.clone())
            }
            _ => {
                self.misses += 1;
                None
            }
        }
    }

    pub fn put(&mut self, now: Micros, key: &str, value: &str) {
        self.invalidate(key);
        while self.entries.len() >= self.capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.entries.remove(&oldest);
        }
        self.seq += 1;
        self.order.insert(self.seq, key.to_string());
        self.entries.insert(
            key.to_string(),
            (value.to_string(), now.saturating_add(self.ttl), self.seq),
        );
    }

    /// Drops `key` (a local write invalidates its own pod's copy only).
    pub fn invalidate(&mut self, key: &str) {
        if let Some((_, _, seq)) = self.entries.remove(key) {
            self.order.remove(&seq);
        }
    }

    /// Drops every entry (a pod that may have missed invalidations), returning how many there were.
    pub fn clear(&mut self) -> usize {
        self.order.clear();
        std::mem::take(&mut self.entries).len()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Counters of a connection pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Acquisitions served at once.
    pub immediate: u64,
    /// Acquisitions that had to queue.
    pub waited: u64,
    /// Waiters that gave up at the pool timeout.
    pub timeouts: u64,
    pub peak_in_use: usize,
    pub peak_queue: usize,
}

/// A connection pool: `size` connections; callers beyond that queue in
/// FIFO order until a connection is released or their wait times out.
/// The pool does not schedule: the caller arms a timeout event for a
/// queued waiter and calls [`Pool::time_out`] when it fires.
#[derive(Clone, Debug)]
pub struct Pool<W> {
    pub size: usize,
    pub timeout: Micros,
    pub in_use: usize,
    queue: VecDeque<W>,
    pub stats: PoolStats,
}

impl<W: PartialEq> Pool<W> {
    pub fn new(size: usize, timeout: Micros) -> Pool<W> {
        Pool {
            size: size.max(1),
            timeout,
            in_use: 0,
            queue: VecDeque::new(),
            stats: PoolStats::default(),
        }
    }

    /// Takes a connection (true) or queues `w` (false: arm its timeout).
    pub fn acquire(&mut self, w: W) -> bool {
        if self.in_use < self.size {
            self.in_use += 1;
            self.stats.immediate += 1;
            self.stats.peak_in_use = self.stats.peak_in_use.max(self.in_use);
            true
        } else {
            self.queue.push_back(w);
            self.stats.waited += 1;
            self.stats.peak_queue = self.stats.peak_queue.max(self.queue.len());
            false
        }
    }

    /// Returns a connection; the first waiter, if any, gets it (and is returned).
    pub fn release(&mut self) -> Option<W> {
        match self.queue.pop_front() {
            Some(w) => Some(w),
            None => {
                self.in_use = self.in_use.saturating_sub(1);
                None
            }
        }
    }

    /// `w`'s wait reached the pool timeout: true if it was still queued
    /// (it fails with a pool timeout), false if it got a connection meanwhile.
    pub fn time_out(&mut self, w: &W) -> bool {
        match self.queue.iter().position(|x| x == w) {
            Some(i) => {
                self.queue.remove(i);
                self.stats.timeouts += 1;
                true
            }
            None => false,
        }
    }

    pub fn queued(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l1_expires_and_evicts_the_oldest() {
        let mut l = L1Cache::new(2, 100);
        l.put(0, "a", "1");
        l.put(0, "b", "2");
        l.put(10, "c", "3");
        assert_eq!(l.get(20, "a"), None, "evicted: the oldest insertion");
        assert_eq!(l.get(20, "b").as_deref(), Some("2"));
        assert_eq!(l.get(100, "b"), None, "expired");
        assert_eq!(l.len(), 2);
    }

    #[test]
    fn pools_queue_in_order_and_time_out() {
        let mut p: Pool<u32> = Pool::new(1, 10);
        assert!(p.acquire(1));
        assert!(!p.acquire(2));
        assert!(!p.acquire(3));
        assert!(p.time_out(&2));
        assert_eq!(
            p.release(),
            Some(3),
            "the connection passes to the next waiter"
        );
        assert!(!p.time_out(&3), "it was served");
        assert_eq!(p.release(), None);
        assert_eq!(p.in_use, 0);
        assert_eq!(p.stats.timeouts, 1);
    }
}
