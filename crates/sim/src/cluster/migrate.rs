//! Slot migration as `redis-cli --cluster reshard` does it: SETSLOT IMPORTING and MIGRATING, a modelled MIGRATE per key that keeps both nodes busy, SETSLOT NODE everywhere; and the per-slot counts a heat map draws.

use super::{Cluster, MigratedKey};
use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_engine::proto::resp::Frame;
use std::collections::BTreeMap;

impl Cluster {
    /// Starts moving `slot` to master `to` (`redis-cli --cluster reshard`'s
    /// first steps): SETSLOT IMPORTING on the target, MIGRATING on the source.
    pub fn begin_migration(&mut self, slot: u16, to: usize) -> Result<usize, Frame> {
        let from = self
            .view(to)
            .owner(slot)
            .ok_or_else(|| Frame::err("ERR slot has no owner"))?;
        let (from_id, to_id) = (self.node_id(from), self.node_id(to));
        let r = self.admin(to, &format!("CLUSTER SETSLOT {slot} IMPORTING {from_id}"));
        if r.is_error() {
            return Err(r);
        }
        let r = self.admin(from, &format!("CLUSTER SETSLOT {slot} MIGRATING {to_id}"));
        if r.is_error() {
            return Err(r);
        }
        Ok(from)
    }

    /// Moves up to `count` keys of `slot` from its migrating source to the
    /// importing target, one modelled MIGRATE each, in GETKEYSINSLOT order.
    pub fn migrate_keys(&mut self, slot: u16, count: usize) -> Vec<MigratedKey> {
        let Some((from, to)) = self.migration_of(slot) else {
            return Vec::new();
        };
        let keys = self.nodes[from].engine.keys_in_slot(slot);
        keys.into_iter()
            .take(count)
            .filter_map(|k| self.migrate_key(from, to, &k))
            .collect()
    }

    /// `(source, target)` of a slot being migrated.
    pub fn migration_of(&self, slot: u16) -> Option<(usize, usize)> {
        (0..self.nodes.len()).find_map(|i| self.view(i).migrating.get(&slot).map(|&to| (i, to)))
    }

    /// The modelled MIGRATE of one key: from the moment both nodes are
    /// free, both are busy for the key's transfer time; the key leaves the
    /// source and lands on the target (TTL kept) when it ends.
    pub fn migrate_key(&mut self, from: usize, to: usize, key: &[u8]) -> Option<MigratedKey> {
        let start = self
            .now_us
            .max(self.nodes[from].busy_until_us)
            .max(self.nodes[to].busy_until_us);
        for i in [from, to] {
            self.nodes[i].engine.advance_to(start);
        }
        let dump = self.nodes[from].engine.dump_key(0, key)?;
        let bytes = dump.bytes;
        let end = start + self.opts.migrate.of(bytes);
        for i in [from, to] {
            let n = &mut self.nodes[i];
            n.busy_until_us = end;
            n.load.migrating_us += end - start;
            n.engine.advance_to(end);
        }
        self.nodes[from].engine.delete_key(0, key);
        self.nodes[to].engine.restore_key(0, key, dump);
        self.nodes[from].load.keys_migrated_out += 1;
        self.nodes[to].load.keys_migrated_in += 1;
        Some(MigratedKey {
            key: key.to_vec(),
            bytes,
            start_us: start,
            end_us: end,
        })
    }

    /// Ends a slot's migration as `redis-cli` does: SETSLOT NODE on the
    /// target (which takes a new epoch), then the source, then every other
    /// master; gossip spreads the new owner.
    pub fn finish_migration(&mut self, slot: u16) -> Result<(), Frame> {
        let Some((from, to)) = self.migration_of(slot) else {
            return Err(Frame::err("ERR slot is not being migrated"));
        };
        let to_id = self.node_id(to);
        let line = format!("CLUSTER SETSLOT {slot} NODE {to_id}");
        for i in [to, from] {
            let r = self.admin(i, &line);
            if r.is_error() {
                return Err(r);
            }
        }
        for i in 0..self.opts.masters {
            if i != to && i != from && !self.nodes[i].down {
                self.admin(i, &line);
            }
        }
        Ok(())
    }

    /// Moves a whole slot to master `to`; returns what each key cost.
    pub fn migrate_slot(&mut self, slot: u16, to: usize) -> Result<Vec<MigratedKey>, Frame> {
        self.begin_migration(slot, to)?;
        let mut moved = Vec::new();
        loop {
            let batch = self.migrate_keys(slot, 10);
            if batch.is_empty() {
                break;
            }
            moved.extend(batch);
        }
        self.finish_migration(slot)?;
        Ok(moved)
    }

    /// Keys per slot on node `i` (database 0), for a heat map.
    pub fn keys_per_slot(&self, i: usize) -> BTreeMap<u16, usize> {
        let mut out = BTreeMap::new();
        for k in self.nodes[i].engine.keys(0) {
            *out.entry(key_hash_slot(k)).or_insert(0) += 1;
        }
        out
    }

    /// Keyed commands served per slot on node `i`.
    pub fn slot_hits(&self, i: usize) -> &redsim_engine::ordmap::OrdMap<u16, u64> {
        &self.view(i).slot_hits
    }
}

/// `redis-cli --cluster create`'s split of the slots among `masters`.
pub fn even_ranges(masters: usize) -> Vec<(u16, u16)> {
    if masters == 0 {
        return Vec::new();
    }
    let per = SLOTS as f64 / masters as f64;
    let mut out = Vec::with_capacity(masters);
    let mut first = 0usize;
    let mut cursor = 0f64;
    for m in 0..masters {
        let mut last = (cursor + per - 1.0).round() as usize;
        if last >= SLOTS || m == masters - 1 {
            last = SLOTS - 1;
        }
        out.push((first as u16, last as u16));
        first = last + 1;
        cursor += per;
    }
    out
}
