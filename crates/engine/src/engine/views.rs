//! What views and tests read: the trace, stats, configuration, memory, the keyspace and cluster views, all without side effects (no lazy expiry, no hit/miss stats, no LRU touch).

use super::{Engine, KeyInfo};
use crate::cluster::ClusterState;
use crate::keyspace::object::Value;
use crate::server::config::Config;
use crate::server::lossy;
use crate::server::trace::Trace;
use crate::server::Stats;

impl Engine {
    /// This node's replication state (role, offsets, replicas).
    pub fn repl(&self) -> &crate::repl::Repl {
        &self.srv.repl
    }

    /// This node's simulated RDB and AOF files and their counters.
    pub fn persistence(&self) -> &crate::persist::Persist {
        &self.srv.persist
    }

    /// The trace of everything that happened.
    pub fn trace(&self) -> &Trace {
        &self.srv.trace
    }

    /// The inspector's view of `key` in database `db`, read without side
    /// effects (no lazy expiry, stats or LRU update); `None` if absent.
    pub fn inspect(&self, db: usize, key: &[u8]) -> Option<crate::inspect::KeyView> {
        let d = self.srv.dbs.get(db)?;
        let obj = d.get(key)?;
        let ttl_ms = d.expire_at(key).map(|w| w - self.srv.now_ms());
        Some(crate::inspect::KeyView::of(
            db,
            key,
            obj,
            ttl_ms,
            &self.srv.config,
        ))
    }

    /// Keys of database `db` for display, sorted by name, at most `limit`.
    pub fn keys_snapshot(&self, db: usize, limit: usize) -> Vec<KeyInfo> {
        self.keys_matching(db, b"*", limit).0
    }

    /// The first `limit` keys of database `db` matching the glob `pattern`
    /// (KEYS' syntax), sorted by name, and how many match in all: a panel
    /// can then find a key beyond the first page.
    pub fn keys_matching(&self, db: usize, pattern: &[u8], limit: usize) -> (Vec<KeyInfo>, usize) {
        let Some(d) = self.srv.dbs.get(db) else {
            return (Vec::new(), 0);
        };
        let now = self.srv.now_ms();
        let all = pattern == b"*";
        let mut keys: Vec<KeyInfo> = d
            .dict
            .iter()
            .filter(|(k, _)| all || crate::glob::matches(pattern, k, false))
            .map(|(k, o)| {
                let ttl_ms = d.expire_at(k).map(|w| w - now);
                KeyInfo {
                    key: lossy(k),
                    kind: o.value.type_name(),
                    encoding: o.value.encoding(),
                    ttl_ms,
                    expired_pending: ttl_ms.is_some_and(|t| t < 0),
                }
            })
            .collect();
        let matched = keys.len();
        crate::sort::sort_by(&mut keys, |a, b| a.key.cmp(&b.key));
        keys.truncate(limit);
        (keys, matched)
    }

    /// INFO's counters: hits and misses, expired and evicted keys, commands.
    pub fn stats(&self) -> &Stats {
        &self.srv.stats
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.srv.config
    }

    /// `used_memory`, as INFO and the eviction check see it.
    pub fn used_memory(&self) -> u64 {
        self.srv.used_memory()
    }

    /// Keys database `db` holds, logically expired ones included (DBSIZE).
    pub fn dbsize(&self, db: usize) -> usize {
        self.srv.dbs.get(db).map_or(0, |d| d.len())
    }

    /// Keys of database `db` with a TTL.
    pub fn expires_count(&self, db: usize) -> usize {
        self.srv.dbs.get(db).map_or(0, |d| d.expires.len())
    }

    /// True if database `db` holds `key` in memory, logically expired or not.
    pub fn holds_key(&self, db: usize, key: &[u8]) -> bool {
        self.srv.dbs.get(db).is_some_and(|d| d.dict.contains(key))
    }

    /// The value held under `key`, logically expired or not.
    pub fn peek(&self, db: usize, key: &[u8]) -> Option<&Value> {
        Some(&self.srv.dbs.get(db)?.get(key)?.value)
    }

    /// Every key database `db` holds, in the dict's order.
    pub fn keys(&self, db: usize) -> impl Iterator<Item = &[u8]> + '_ {
        self.srv
            .dbs
            .get(db)
            .into_iter()
            .flat_map(|d| d.dict.iter().map(|(k, _)| k))
    }

    /// Milliseconds until `key` expires (0 or less once due but not yet
    /// reclaimed); `None` if it is not held or has no TTL.
    pub fn ttl_ms(&self, db: usize, key: &[u8]) -> Option<i64> {
        let d = self.srv.dbs.get(db)?;
        d.get(key)?;
        d.expire_at(key).map(|at| at - self.srv.now_ms())
    }

    /// Virtual Unix time in milliseconds (`mstime()`).
    pub fn unix_ms(&self) -> i64 {
        self.srv.now_ms()
    }

    /// What virtual instant 0 is in Unix microseconds.
    pub fn unix_base_us(&self) -> u64 {
        self.srv.clock.unix_us() - self.srv.clock.now_us()
    }

    /// Cron ticks run so far (`cronloops`).
    pub fn cron_loops(&self) -> u64 {
        self.srv.cronloops
    }

    /// When the next cron tick is due, in virtual microseconds: a driver
    /// on the wall clock sleeps until then. No tick runs while a script is
    /// busy: then it is when the script ends (never, for one that does not).
    pub fn next_cron_us(&self) -> u64 {
        if self.srv.scripts.busy.is_some() {
            return self.srv.scripts.busy_ends_at().unwrap_or(u64::MAX);
        }
        self.srv.next_cron_us
    }

    /// True while a script runs past `busy-reply-threshold` and other
    /// clients get BUSY (`script::busy`).
    pub fn is_script_busy(&self) -> bool {
        self.srv.scripts.busy.is_some()
    }

    /// This node's view of the cluster, in cluster mode.
    pub fn cluster(&self) -> Option<&ClusterState> {
        self.srv.cluster.as_ref()
    }
}
