//! The lazy-free thread's queue and the main thread's freeing stall (lazyfree.c's state): what each value costs to free, jobs in order, and the bytes still pending.

use crate::keyspace::object::Value;
use std::collections::VecDeque;

/// `LAZYFREE_THRESHOLD`: values with a larger free effort go to the
/// background thread on a lazy path; smaller ones are freed at once.
pub const LAZYFREE_THRESHOLD: u64 = 64;

/// Modelled CPU time to free one unit of `lazyfreeGetFreeEffort`, in ns.
///
/// One unit is one element of a collection: for a hash table hash, a
/// `dictEntry` and two sds strings, scattered in memory, so three cache
/// misses and three `free()` calls. Redis 7.0.15 on this project's 2-core
/// machine (AMD EPYC, shared) took 450–650 ms to DEL a 1,000,000-field hash,
/// 380–560 ms for a 1,000,000-member set, 210–280 ms for a zset and
/// 500–890 ms to FLUSHALL SYNC a million string keys (SLOWLOG durations,
/// three runs each, the machine busy with other builds). 300 ns per unit
/// sits at the low end of those (a quiet machine is faster): a million-field
/// hash costs 300 ms.
pub const FREE_COST_NS: u64 = 300;

/// `lazyfreeGetFreeEffort`: a number proportional to the allocations the
/// value is made of. Strings, listpacks and intsets are one allocation.
pub fn free_effort(value: &Value) -> u64 {
    match value {
        Value::List(l) if l.is_quicklist() => l.node_count() as u64,
        Value::Hash(h) if h.encoding() == "hashtable" => h.len() as u64,
        Value::Set(s) if s.encoding() == "hashtable" => s.len() as u64,
        Value::ZSet(z) if z.encoding() == "skiplist" => z.len() as u64,
        Value::Stream(s) => {
            // Every rax node is an allocation; every group costs one plus
            // its PEL, estimated from the first group as Redis does.
            let mut effort = s.log().rax_nodes();
            let groups = s.groups();
            if let Some((_, first)) = groups.iter().next() {
                effort += groups.len() as u64 * (1 + first.pel().len() as u64);
            }
            effort
        }
        _ => 1,
    }
}

/// One object (or database) handed to the background thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Job {
    /// Objects it counts for in `lazyfree_pending_objects` (keys, for a flush).
    pub(super) objects: u64,
    /// Free effort, which sets how long the thread works on it.
    pub(super) effort: u64,
    /// Bytes the allocator keeps until the job is done.
    bytes: u64,
    /// Virtual µs at which the thread has freed it.
    done_us: u64,
}

/// The lazy-free state: the background thread's queue, its counters, and
/// the main thread's stall not yet put on the clock.
#[derive(Clone, Debug, Default)]
pub struct LazyFree {
    pub(super) jobs: VecDeque<Job>,
    /// `lazyfree_objects`: objects queued and not yet freed.
    pub(super) pending_objects: u64,
    /// `lazyfreed_objects`: objects the thread has freed (CONFIG RESETSTAT zeroes it).
    pub freed_objects: u64,
    /// When the thread is through with everything queued so far (µs).
    idle_at_us: u64,
    /// Main-thread time (ns) spent freeing during the current command or
    /// cron step, to be added to the clock when it ends.
    pub stall_ns: u64,
    /// Total main-thread time (ns) spent freeing synchronously.
    pub sync_free_ns: u64,
}

impl LazyFree {
    /// Objects queued and not freed by `now_us` (`lazyfree_pending_objects`).
    pub fn pending_objects_at(&self, now_us: u64) -> u64 {
        self.pending_objects
            - self
                .jobs
                .iter()
                .take_while(|j| j.done_us <= now_us)
                .map(|j| j.objects)
                .sum::<u64>()
    }

    /// Objects freed by the thread up to `now_us` (`lazyfreed_objects`).
    pub fn freed_objects_at(&self, now_us: u64) -> u64 {
        self.freed_objects + self.pending_objects - self.pending_objects_at(now_us)
    }

    /// Bytes still held by jobs not done at `now_us`.
    #[inline]
    pub fn pending_bytes_at(&self, now_us: u64) -> u64 {
        if self.jobs.is_empty() {
            return 0;
        }
        self.jobs
            .iter()
            .skip_while(|j| j.done_us <= now_us)
            .map(|j| j.bytes)
            .sum()
    }

    /// Queues a job at `now_us`; returns when the thread will have done it.
    pub(super) fn enqueue(&mut self, now_us: u64, objects: u64, effort: u64, bytes: u64) -> u64 {
        let start = self.idle_at_us.max(now_us);
        let done_us = start + cost_us(effort);
        self.idle_at_us = done_us;
        self.pending_objects += objects;
        self.jobs.push_back(Job {
            objects,
            effort,
            bytes,
            done_us,
        });
        done_us
    }

    /// Takes the jobs finished by `now_us`, oldest first, updating the counters.
    pub(super) fn finish(&mut self, now_us: u64) -> Vec<Job> {
        let mut done = Vec::new();
        while self.jobs.front().is_some_and(|j| j.done_us <= now_us) {
            if let Some(j) = self.jobs.pop_front() {
                self.pending_objects -= j.objects;
                self.freed_objects += j.objects;
                done.push(j);
            }
        }
        done
    }
}

/// Microseconds the thread needs for `effort` (rounded up, at least 1 for
/// any work, so a queued job is never done at the instant it is queued).
fn cost_us(effort: u64) -> u64 {
    effort.saturating_mul(FREE_COST_NS).div_ceil(1000).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_one_after_another_and_retire_in_order() {
        let mut lf = LazyFree::default();
        // 1000 units = 300 µs; the second waits for the first.
        assert_eq!(lf.enqueue(100, 1, 1000, 10), 400);
        assert_eq!(lf.enqueue(200, 5, 2000, 20), 1000);
        assert_eq!(lf.pending_objects_at(399), 6);
        assert_eq!(lf.pending_objects_at(400), 5);
        assert_eq!(lf.pending_bytes_at(400), 20);
        assert_eq!(lf.freed_objects_at(1000), 6);
        assert_eq!(lf.finish(999).len(), 1);
        assert_eq!((lf.pending_objects, lf.freed_objects), (5, 1));
        assert_eq!(lf.finish(5000).len(), 1);
        assert_eq!(lf.pending_bytes_at(5000), 0);
        // An idle thread starts a new job at once.
        assert_eq!(lf.enqueue(6000, 1, 1, 1), 6001);
    }

    #[test]
    fn effort_follows_lazyfree_get_free_effort() {
        use crate::keyspace::object::RString;
        let s = Value::String(RString::plain(vec![b'x'; 100]));
        assert_eq!(free_effort(&s), 1);
        let lim = crate::keyspace::types::hash::HashLimits {
            max_listpack_entries: 512,
            max_listpack_value: 64,
            dict_seed: 1,
        };
        let mut h = crate::keyspace::types::hash::Hash::new();
        for i in 0..10 {
            h.set(format!("f{i}").as_bytes(), b"v", &lim);
        }
        // A listpack is one allocation whatever it holds.
        assert_eq!(free_effort(&Value::Hash(Box::new(h.clone()))), 1);
        for i in 10..600 {
            h.set(format!("f{i}").as_bytes(), b"v", &lim);
        }
        assert_eq!(h.encoding(), "hashtable");
        assert_eq!(free_effort(&Value::Hash(Box::new(h))), 600);
    }
}
