//! WATCH bookkeeping (multi.c's watched keys): which clients watch which keys, and which transactions a write has made dirty.
//!
//! It lives in the `Server` rather than in each client because writes (by
//! any client, by expiry, by eviction, by FLUSHDB) must mark other clients'
//! transactions as dirty, and a command only has its own client at hand.

use crate::ordmap::OrdMap;

use crate::server::client::ClientId;

/// A key one client watches.
#[derive(Clone, Debug, PartialEq, Eq)]
struct WatchedKey {
    db: usize,
    key: Vec<u8>,
    /// The key was already logically expired when WATCH ran.
    expired: bool,
}

/// Every client's watched keys and dirty (CAS-failed) flags.
#[derive(Clone, Debug, Default)]
pub struct Watches {
    /// Clients watching each key, in WATCH order.
    by_key: OrdMap<(usize, Vec<u8>), Vec<ClientId>>,
    by_client: crate::idmap::IdMap<Vec<WatchedKey>>,
    /// Clients whose transaction will fail (`CLIENT_DIRTY_CAS`).
    dirty: crate::idmap::IdSet,
}

impl Watches {
    /// True when nobody watches anything (the fast path for every write).
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// How many keys `client` watches (`listLength(c->watched_keys)`).
    pub fn watched_count(&self, client: ClientId) -> usize {
        self.by_client.get(&client).map_or(0, Vec::len)
    }

    /// `watchForKey`: adds a key unless already watched by this client.
    pub fn watch(&mut self, client: ClientId, db: usize, key: &[u8], expired: bool) {
        let list = self.by_client.get_or_default(client);
        if list.iter().any(|w| w.db == db && w.key == key) {
            return;
        }
        list.push(WatchedKey {
            db,
            key: key.to_vec(),
            expired,
        });
        self.by_key
            .entry((db, key.to_vec()))
            .or_default()
            .push(client);
    }

    /// `unwatchAllKeys`.
    pub fn unwatch_all(&mut self, client: ClientId) {
        for w in self.by_client.remove(&client).unwrap_or_default() {
            let k = (w.db, w.key);
            if let Some(list) = self.by_key.get_mut(&k) {
                list.retain(|&c| c != client);
                if list.is_empty() {
                    self.by_key.remove(&k);
                }
            }
        }
    }

    /// True if a write has already doomed this client's transaction.
    pub fn is_dirty(&self, client: ClientId) -> bool {
        self.dirty.contains(&client)
    }

    /// Marks the transaction as failed.
    pub fn set_dirty(&mut self, client: ClientId) {
        self.dirty.insert(client);
    }

    /// `discardTransaction`'s part: clears the flag and every watch.
    pub fn reset(&mut self, client: ClientId) {
        self.dirty.remove(&client);
        self.unwatch_all(client);
    }

    /// The keys `client` watches that were not already expired at WATCH time,
    /// for `isWatchedKeyExpired` at EXEC.
    pub fn live_watched(&self, client: ClientId) -> Vec<(usize, Vec<u8>)> {
        self.by_client
            .get(&client)
            .map(|l| {
                l.iter()
                    .filter(|w| !w.expired)
                    .map(|w| (w.db, w.key.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `touchWatchedKey`: a write to `key`; `exists` says whether the key is
    /// in the keyspace after it. A key that was expired at WATCH time and is
    /// now gone is no change. Redis 7.2 stops walking the watchers at the
    /// first such key that exists again (a `break` in multi.c); we follow it.
    pub fn touch(&mut self, db: usize, key: &[u8], exists: bool) {
        let Some(list) = self.by_key.get(&(db, key.to_vec())) else {
            return;
        };
        for client in list.clone() {
            let Some(w) = self
                .by_client
                .get_mut(&client)
                .and_then(|l| l.iter_mut().find(|w| w.db == db && w.key == key))
            else {
                continue;
            };
            if w.expired {
                if !exists {
                    w.expired = false;
                    continue;
                }
                break;
            }
            self.dirty.insert(client);
            self.unwatch_all(client);
        }
    }

    /// `touchAllWatchedKeysInDb(emptied, NULL)`: FLUSHDB/FLUSHALL. `existed`
    /// tells whether a key was in the database before it was emptied.
    pub fn touch_db(&mut self, db: usize, existed: impl Fn(&[u8]) -> bool) {
        for key in crate::keyspace::db::keys_in_db(&self.by_key, db) {
            if !existed(&key) {
                continue;
            }
            let clients = self
                .by_key
                .get(&(db, key.clone()))
                .cloned()
                .unwrap_or_default();
            for client in clients {
                if let Some(w) = self
                    .by_client
                    .get_mut(&client)
                    .and_then(|l| l.iter_mut().find(|w| w.db == db && w.key == key))
                {
                    if w.expired {
                        w.expired = false;
                        continue;
                    }
                }
                self.dirty.insert(client);
            }
        }
    }
}

impl Watches {
    /// `touchAllWatchedKeysInDb(emptied, replaced_with)` for SWAPDB: every
    /// watched key of database `db` that exists in `emptied` (its contents
    /// before the swap) or in `replaced_with` (its contents after) is
    /// modified, except where an expired key stays expired or goes away.
    pub fn touch_swapped(
        &mut self,
        db: usize,
        emptied: &crate::keyspace::db::Db,
        replaced_with: &crate::keyspace::db::Db,
        now_ms: i64,
    ) {
        let expired_there = |k: &[u8]| replaced_with.expire_at(k).is_some_and(|w| now_ms > w);
        for key in crate::keyspace::db::keys_in_db(&self.by_key, db) {
            let here = emptied.dict.contains(&key);
            let there = replaced_with.dict.contains(&key);
            if !here && !there {
                continue;
            }
            let clients = self
                .by_key
                .get(&(db, key.clone()))
                .cloned()
                .unwrap_or_default();
            for client in clients {
                let Some(w) = self
                    .by_client
                    .get_mut(&client)
                    .and_then(|l| l.iter_mut().find(|w| w.db == db && w.key == key))
                else {
                    continue;
                };
                if w.expired {
                    if !there {
                        w.expired = false;
                        continue;
                    } else if expired_there(&key) {
                        continue;
                    }
                } else if !here && expired_there(&key) {
                    w.expired = true;
                    continue;
                }
                self.dirty.insert(client);
                self.unwatch_all(client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_dirties_every_watcher_and_unwatches_them() {
        let mut w = Watches::default();
        w.watch(1, 0, b"k", false);
        w.watch(2, 0, b"k", false);
        w.watch(2, 0, b"other", false);
        w.touch(0, b"k", true);
        assert!(w.is_dirty(1) && w.is_dirty(2));
        assert!(w.is_empty());
    }

    #[test]
    fn deleting_an_already_expired_key_is_no_change() {
        let mut w = Watches::default();
        w.watch(1, 0, b"k", true);
        w.touch(0, b"k", false);
        assert!(!w.is_dirty(1));
        // Now it is a live watch: the next write counts.
        w.touch(0, b"k", true);
        assert!(w.is_dirty(1));
    }
}
