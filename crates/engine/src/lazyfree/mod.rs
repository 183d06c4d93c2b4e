//! Lazy freeing as Redis 7.2's lazyfree.c: what freeing a value costs the main thread when done synchronously, and a modelled background (bio) thread that frees big values handed to it by UNLINK, FLUSHALL ASYNC and the `lazyfree-lazy-*` paths.
//!
//! Besides a command's own CPU cost (`crate::cost`), freeing is what keeps
//! the main thread busy. Freeing a
//! collection walks every element and calls `free()` for each of its
//! allocations, so `DEL` of a million-field hash keeps Redis' single thread
//! busy for a noticeable time during which no other client is served. Redis
//! measures that work with `lazyfreeGetFreeEffort` (elements of a hash
//! table, skiplist or set table; quicklist nodes; stream rax nodes and PEL
//! entries; 1 for any single-allocation value) and frees in the background
//! when a lazy path is taken and the effort is above [`LAZYFREE_THRESHOLD`]
//! (below it, handing the object over costs more than freeing it).
//!
//! The model: each unit of effort costs [`FREE_COST_NS`] of CPU, whichever
//! thread does it.
//!
//! - A synchronous free adds its cost to [`LazyFree::stall_ns`]; when the
//!   command (or the cron tick, or `beforeSleep`) is over, the engine moves
//!   the virtual clock forward by it ([`Server::settle_stall`]): the
//!   command's reply, and every other client's next command, come that much
//!   later, as they would behind a real stall.
//! - A lazy free becomes a job of the one background thread, run in FIFO
//!   order: it finishes `effort × FREE_COST_NS` after the thread gets to it.
//!   Until then the object counts in `lazyfree_pending_objects` and its bytes
//!   stay in `used_memory` (the allocator still holds them, which is why
//!   lazy eviction can over-evict); when it finishes it moves to
//!   `lazyfreed_objects`.

pub mod queue;

pub use queue::{free_effort, LazyFree, FREE_COST_NS, LAZYFREE_THRESHOLD};

use crate::keyspace::object::Obj;
use crate::server::trace::Event;
use crate::server::{lossy, Server};

impl Server {
    /// Frees `obj`, just removed from the keyspace under `key`: in the
    /// background if `lazy` and its effort is above the threshold
    /// (`freeObjAsync`), else now, charging the main thread. Returns the
    /// synchronous cost in ns (0 when handed over).
    pub fn free_value(&mut self, db: usize, key: &[u8], obj: Obj, lazy: bool) -> u64 {
        let effort = free_effort(&obj.value);
        let lazy = lazy && effort > LAZYFREE_THRESHOLD;
        let (cost, done_us) = if lazy {
            let bytes = obj.mem_size() as u64;
            let now = self.clock.now_us();
            (0, self.lazyfree.enqueue(now, 1, effort, bytes))
        } else {
            let cost = effort * FREE_COST_NS;
            self.charge_free(cost);
            (cost, self.clock.now_us() + cost / 1000)
        };
        // A value of one allocation is not worth an event when freed at once.
        if lazy || effort > 1 {
            self.emit_with(|| Event::Freed {
                db: Some(db as u32),
                key: Some(lossy(key)),
                objects: 1,
                effort,
                lazy,
                cost_us: cost / 1000,
                done_us,
            });
        }
        cost
    }

    /// Frees a whole database's (or every database's, `db` None) former
    /// contents: `emptyDbAsync` if `lazy`, else at once. `keys` and
    /// `effort` are the emptied keys and their summed free effort.
    pub fn free_flushed(
        &mut self,
        db: Option<usize>,
        keys: u64,
        effort: u64,
        bytes: u64,
        lazy: bool,
    ) {
        if keys == 0 {
            return;
        }
        let now = self.clock.now_us();
        let (cost_ns, done_us) = if lazy {
            (0, self.lazyfree.enqueue(now, keys, effort, bytes))
        } else {
            let cost = effort * FREE_COST_NS;
            self.charge_free(cost);
            (cost, now + cost / 1000)
        };
        self.emit(Event::Freed {
            db: db.map(|d| d as u32),
            key: None,
            objects: keys,
            effort,
            lazy,
            cost_us: cost_ns / 1000,
            done_us,
        });
    }

    /// Adds synchronous freeing work to the main thread's stall.
    fn charge_free(&mut self, ns: u64) {
        self.lazyfree.stall_ns += ns;
        self.lazyfree.sync_free_ns += ns;
    }

    /// Keeps the main thread busy for `ns` more (DEBUG SLEEP, work a command
    /// costs): the clock moves on by it when the command ends.
    pub fn charge_main_thread(&mut self, ns: u64) {
        self.lazyfree.stall_ns += ns;
    }

    /// Puts the stall accumulated by the command (or cron step) that just
    /// ended on the virtual clock, in whole microseconds (the clock's
    /// resolution: a remainder under 1 µs is dropped). Returns the µs added.
    pub fn settle_stall(&mut self) -> u64 {
        let us = self.lazyfree.stall_ns / 1000;
        self.lazyfree.stall_ns = 0;
        self.observe.busy_us += us;
        if us > 0 {
            let t = self.clock.now_us() + us;
            self.clock.set(t);
        }
        us
    }

    /// Retires the background jobs done by now, recording each in the trace.
    pub fn lazyfree_drain(&mut self) {
        self.lazyfree_drain_until(self.clock.now_us());
    }

    /// Retires the jobs done by `t_us` (eviction looks ahead by its own
    /// modelled running time, during which the thread keeps working).
    #[inline]
    pub fn lazyfree_drain_until(&mut self, t_us: u64) {
        // Almost always empty: keep the common case a single test.
        if !self.lazyfree.jobs.is_empty() {
            self.lazyfree_drain_jobs(t_us);
        }
    }

    #[cold]
    fn lazyfree_drain_jobs(&mut self, t_us: u64) {
        for job in self.lazyfree.finish(t_us) {
            let pending = self.lazyfree.pending_objects;
            self.emit(Event::LazyFreed {
                objects: job.objects,
                effort: job.effort,
                pending_objects: pending,
            });
        }
    }

    /// `lazyfree_pending_objects` now.
    pub fn lazyfree_pending_objects(&self) -> u64 {
        self.lazyfree.pending_objects_at(self.clock.now_us())
    }

    /// `lazyfreed_objects` now.
    pub fn lazyfreed_objects(&self) -> u64 {
        self.lazyfree.freed_objects_at(self.clock.now_us())
    }

    /// Bytes still held by the background thread's unfinished jobs.
    pub fn lazyfree_pending_bytes(&self) -> u64 {
        self.lazyfree.pending_bytes_at(self.clock.now_us())
    }
}
