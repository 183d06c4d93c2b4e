//! Consumer groups: their last-delivered IDs, pending entries lists and consumers, with the memory Redis' raxes give them.

use crate::ordmap::{OrdMap, OrdSet};

use crate::keyspace::memory::{alloc_size, sds_size};

use super::id::StreamId;
use super::log::{CG_STRUCT, CONSUMER_STRUCT, NACK_STRUCT, RAX_STRUCT};
use super::rax::{self, rax_usage};

/// A pending entry (`streamNACK`): delivered, not yet acknowledged.
#[derive(Clone, Debug, PartialEq)]
pub struct Nack {
    /// Unix ms of the last delivery.
    pub delivery_time: i64,
    pub delivery_count: u64,
    /// The consumer it was last delivered to.
    pub consumer: Vec<u8>,
}

/// A consumer of a group.
#[derive(Clone, Debug, PartialEq)]
pub struct Consumer {
    /// Last attempted read or claim (Unix ms).
    pub seen_time: i64,
    /// Last successful read or claim (Unix ms), -1 if never (7.2).
    pub active_time: i64,
    pel: OrdSet<StreamId>,
    /// The shape of the consumer's PEL rax, for memory figures.
    pel_rax: rax::Rax,
}

impl Consumer {
    /// IDs pending for this consumer, in order.
    pub fn pel(&self) -> &OrdSet<StreamId> {
        &self.pel
    }

    /// Allocated bytes: struct, name, PEL rax.
    fn mem(&self, name: &[u8]) -> usize {
        alloc_size(CONSUMER_STRUCT)
            + sds_size(name.len())
            + alloc_size(RAX_STRUCT)
            + self.pel_rax.bytes()
    }

    fn add(&mut self, id: StreamId) {
        if self.pel.insert(id) {
            self.pel_rax.insert(&id.encode());
        }
    }

    fn remove(&mut self, id: StreamId) {
        if self.pel.remove(&id) {
            self.pel_rax.remove(&id.encode());
        }
    }
}

/// A consumer group (`streamCG`).
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub last_id: StreamId,
    /// The group's logical read counter; -1 when unknown.
    pub entries_read: i64,
    pel: OrdMap<StreamId, Nack>,
    consumers: OrdMap<Vec<u8>, Consumer>,
    /// The shapes of the PEL and consumers raxes, for memory figures.
    pel_rax: rax::Rax,
    consumers_rax: rax::Rax,
    /// Allocated bytes of all consumers, kept as they change.
    consumers_mem: usize,
}

impl Group {
    fn new(last_id: StreamId, entries_read: i64) -> Group {
        Group {
            last_id,
            entries_read,
            pel: OrdMap::new(),
            consumers: OrdMap::new(),
            pel_rax: rax::Rax::new(),
            consumers_rax: rax::Rax::new(),
            consumers_mem: 0,
        }
    }

    /// Allocated bytes, in O(1): struct, the two raxes, the NACKs, the consumers.
    fn mem(&self) -> usize {
        alloc_size(CG_STRUCT)
            + 2 * alloc_size(RAX_STRUCT)
            + self.pel_rax.bytes()
            + self.consumers_rax.bytes()
            + self.pel.len() * alloc_size(NACK_STRUCT)
            + self.consumers_mem
    }

    /// What `objectComputeSize` counts for the group.
    pub(super) fn compute_size(&self) -> usize {
        let consumers: usize = self
            .consumers
            .iter()
            .map(|(name, c)| CONSUMER_STRUCT + name.len() + rax_usage(&c.pel_rax))
            .sum();
        CG_STRUCT + rax_usage(&self.pel_rax) + NACK_STRUCT * self.pel.len() + consumers
    }

    /// The group's pending entries, by ID.
    pub fn pel(&self) -> &OrdMap<StreamId, Nack> {
        &self.pel
    }

    /// The consumers, by name (rax order: bytewise).
    pub fn consumers(&self) -> &OrdMap<Vec<u8>, Consumer> {
        &self.consumers
    }

    /// The consumer `name`.
    pub fn consumer(&self, name: &[u8]) -> Option<&Consumer> {
        self.consumers.get(name)
    }

    /// The consumer `name`, to update its times.
    pub fn consumer_mut(&mut self, name: &[u8]) -> Option<&mut Consumer> {
        self.consumers.get_mut(name)
    }

    /// Changes the consumer `name`'s PEL, keeping the memory total right.
    fn with_consumer(&mut self, name: &[u8], f: impl FnOnce(&mut Consumer)) {
        if let Some(c) = self.consumers.get_mut(name) {
            let before = c.mem(name);
            f(c);
            self.consumers_mem = self.consumers_mem + c.mem(name) - before;
        }
    }

    /// `streamCreateConsumer`: false if it exists already.
    pub fn create_consumer(&mut self, name: &[u8], now: i64) -> bool {
        if self.consumers.contains_key(name) {
            return false;
        }
        let c = Consumer {
            seen_time: now,
            active_time: -1,
            pel: OrdSet::new(),
            pel_rax: rax::Rax::new(),
        };
        self.consumers_mem += c.mem(name);
        self.consumers.insert(name.to_vec(), c);
        self.consumers_rax.insert(name);
        true
    }

    /// RESTORE: a pending entry of the global PEL, its owner set when the
    /// consumers are read. False if `id` is pending already.
    pub fn load_nack(&mut self, id: StreamId, delivery_time: i64, delivery_count: u64) -> bool {
        if self.pel.contains_key(&id) {
            return false;
        }
        self.pel.insert(
            id,
            Nack {
                delivery_time,
                delivery_count,
                consumer: Vec::new(),
            },
        );
        self.pel_rax.insert(&id.encode());
        true
    }

    /// RESTORE: a consumer with its times and the IDs it owns, each of
    /// which must be in the global PEL and owned by no one yet. False on
    /// a duplicate consumer or an ID that breaks that.
    pub fn load_consumer(&mut self, name: &[u8], seen: i64, active: i64, pel: &[StreamId]) -> bool {
        if !self.create_consumer(name, seen) {
            return false;
        }
        if let Some(c) = self.consumers.get_mut(name) {
            c.active_time = active;
        }
        for &id in pel {
            match self.pel.get_mut(&id) {
                Some(n) if n.consumer.is_empty() => n.consumer = name.to_vec(),
                _ => return false,
            }
            self.with_consumer(name, |c| c.add(id));
        }
        true
    }

    /// True when every pending entry has an owner (an unowned one would
    /// break XPENDING and XCLAIM later).
    pub fn pel_owned(&self) -> bool {
        self.pel.values().all(|n| !n.consumer.is_empty())
    }

    /// `streamDelConsumer`: drops the consumer and its pending entries;
    /// returns how many it had, or `None` if it does not exist.
    pub fn delete_consumer(&mut self, name: &[u8]) -> Option<usize> {
        let c = self.consumers.remove(name)?;
        self.consumers_mem -= c.mem(name);
        self.consumers_rax.remove(name);
        for id in &c.pel {
            if self.pel.remove(id).is_some() {
                self.pel_rax.remove(&id.encode());
            }
        }
        Some(c.pel.len())
    }

    /// Delivery of `id` to `consumer` by XREADGROUP (`streamReplyWithRange`
    /// with a group): a new pending entry, or an existing one (after XGROUP
    /// SETID moved the group back) handed to this consumer with its count
    /// reset to 1. The consumer must exist.
    pub fn deliver(&mut self, id: StreamId, consumer: &[u8], now: i64) {
        let old = match self.pel.get_mut(&id) {
            Some(nack) => {
                nack.delivery_time = now;
                nack.delivery_count = 1;
                Some(std::mem::replace(&mut nack.consumer, consumer.to_vec()))
            }
            None => {
                self.pel.insert(
                    id,
                    Nack {
                        delivery_time: now,
                        delivery_count: 1,
                        consumer: consumer.to_vec(),
                    },
                );
                self.pel_rax.insert(&id.encode());
                None
            }
        };
        if let Some(old) = old {
            self.with_consumer(&old, |c| c.remove(id));
        }
        self.with_consumer(consumer, |c| c.add(id));
    }

    /// A history read served `id` again: new delivery time, one more delivery.
    pub fn redeliver(&mut self, id: StreamId, now: i64) {
        if let Some(nack) = self.pel.get_mut(&id) {
            nack.delivery_time = now;
            nack.delivery_count = nack.delivery_count.wrapping_add(1);
        }
    }

    /// XACK of one ID (also how XCLAIM drops entries no longer in the
    /// stream): true if it was pending.
    pub fn ack(&mut self, id: StreamId) -> bool {
        let Some(nack) = self.pel.remove(&id) else {
            return false;
        };
        self.pel_rax.remove(&id.encode());
        self.with_consumer(&nack.consumer, |c| c.remove(id));
        true
    }

    /// Creates a pending entry owned by nobody yet (XCLAIM FORCE); the
    /// caller claims it right after.
    pub fn force_pending(&mut self, id: StreamId, now: i64) {
        if self.pel.contains_key(&id) {
            return;
        }
        self.pel.insert(
            id,
            Nack {
                delivery_time: now,
                delivery_count: 1,
                consumer: Vec::new(),
            },
        );
        self.pel_rax.insert(&id.encode());
    }

    /// Moves pending `id` to `consumer` (XCLAIM / XAUTOCLAIM) with a new
    /// delivery time and, if given, delivery count; else the count grows
    /// by one unless `keep_count`. The consumer must exist.
    pub fn claim(
        &mut self,
        id: StreamId,
        consumer: &[u8],
        delivery_time: i64,
        retrycount: Option<u64>,
        keep_count: bool,
    ) {
        let Some(nack) = self.pel.get_mut(&id) else {
            return;
        };
        let old = (nack.consumer != consumer)
            .then(|| std::mem::replace(&mut nack.consumer, consumer.to_vec()));
        nack.delivery_time = delivery_time;
        match retrycount {
            Some(n) => nack.delivery_count = n,
            None if !keep_count => nack.delivery_count = nack.delivery_count.wrapping_add(1),
            None => {}
        }
        if let Some(old) = old {
            self.with_consumer(&old, |c| c.remove(id));
        }
        self.with_consumer(consumer, |c| c.add(id));
    }
}

/// The consumer groups of a stream, with their running memory total.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Groups {
    map: OrdMap<Vec<u8>, Group>,
    /// The shape of `s->cgroups`, created with the first group and never
    /// freed (`None` before).
    rax: Option<rax::Rax>,
    mem: usize,
}

impl Groups {
    /// What MEMORY USAGE counts for every group (see [`Group::compute_size`]).
    pub(super) fn compute_size(&self) -> usize {
        self.map.values().map(Group::compute_size).sum()
    }

    /// The group `name`.
    pub fn get(&self, name: &[u8]) -> Option<&Group> {
        self.map.get(name)
    }

    /// Groups by name (rax order).
    pub fn iter(&self) -> impl Iterator<Item = (&Vec<u8>, &Group)> {
        self.map.iter()
    }

    /// Number of groups.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when there is no group.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Runs `f` on the cgroups rax (created if needed), keeping `mem` right.
    fn with_rax(&mut self, f: impl FnOnce(&mut rax::Rax)) {
        let r = self.rax.get_or_insert_with(|| {
            let r = rax::Rax::new();
            self.mem += alloc_size(RAX_STRUCT) + r.bytes();
            r
        });
        let before = r.bytes();
        f(r);
        self.mem = self.mem + r.bytes() - before;
    }

    /// `streamCreateCG`: false if the name is taken.
    pub fn create(&mut self, name: &[u8], last_id: StreamId, entries_read: i64) -> bool {
        self.with_rax(|_| {});
        if self.map.contains_key(name) {
            return false;
        }
        let g = Group::new(last_id, entries_read);
        self.mem += g.mem();
        self.map.insert(name.to_vec(), g);
        self.with_rax(|r| {
            r.insert(name);
        });
        true
    }

    /// XGROUP DESTROY: true if it existed.
    pub fn destroy(&mut self, name: &[u8]) -> bool {
        match self.map.remove(name) {
            Some(g) => {
                self.mem -= g.mem();
                self.with_rax(|r| {
                    r.remove(name);
                });
                true
            }
            None => false,
        }
    }

    /// Runs `f` on the group `name`, keeping the memory total right.
    pub fn with_mut<R>(&mut self, name: &[u8], f: impl FnOnce(&mut Group) -> R) -> Option<R> {
        let g = self.map.get_mut(name)?;
        let before = g.mem();
        let r = f(g);
        self.mem = self.mem + g.mem() - before;
        Some(r)
    }

    /// Allocated bytes of every group and the groups' rax.
    pub fn mem_size(&self) -> usize {
        self.mem
    }
}
