//! Applying one replication op to the keyspace: what a replica does with its master's stream and a restart with its AOF. It sits below both replication and persistence, which each call it.

use super::Server;
use crate::repl::state::{Effect, ReplOp};

impl Server {
    /// Makes an op's effect on the keyspace (a replica applying its stream, a
    /// restart replaying its AOF).
    pub(crate) fn replay(&mut self, op: &ReplOp) {
        let db = op.db.min(self.dbs.len().saturating_sub(1));
        match &op.effect {
            Effect::Put {
                key,
                obj,
                expire_ms,
            } => {
                self.set_key(db, key, obj.value.clone(), false);
                if let Some(t) = expire_ms {
                    self.set_expire(db, key, *t);
                }
            }
            Effect::Del { key } => {
                // The master's DEL for an expired key is how a replica reclaims it.
                if let Some(old) = self.dbs[db].remove(key) {
                    self.blocking.signal_deleted(db, key, &old.value);
                    self.touch_key(db, key);
                }
            }
            Effect::Flush { db } => {
                self.flush(*db);
            }
            // Kept for offsets only, on a server that never applies it.
            Effect::Counted { .. } => {}
        }
    }
}
