//! The simulated RDB and AOF files and their counters (`server.dirty`, `lastsave`, the AOF state), each in its written and fsynced state, and the crashes that lose what was not durable.

use crate::keyspace::object::Obj;
use crate::repl::state::ReplOp;

/// The keyspace at one instant: what an RDB file (or an AOF's preamble) holds.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// Virtual µs of the fork.
    pub at_us: u64,
    pub entries: Vec<(usize, Vec<u8>, Obj, Option<i64>)>,
}

/// A BGSAVE in progress: the child's snapshot and its copy-on-write.
#[derive(Clone, Debug)]
pub(super) struct Child {
    pub(super) snapshot: Snapshot,
    pub(super) done_us: u64,
    /// Keys the parent modified since the fork (each copies its pages once).
    pub(super) touched: crate::keyspace::dict::Dict<()>,
    pub(super) cow_bytes: u64,
}

/// Files and counters (`server.dirty`, `server.lastsave`, the AOF state).
#[derive(Clone, Debug, Default)]
pub struct Persist {
    /// The last RDB file completed.
    pub rdb: Option<Snapshot>,
    pub(super) child: Option<Child>,
    /// The AOF's base (its RDB preamble) and the records after it: written
    /// to the kernel, and how many of them are fsynced.
    pub aof_base: Option<Snapshot>,
    pub aof: Vec<ReplOp>,
    pub aof_fsynced: usize,
    pub(super) last_fsync_us: u64,
    /// Changes since the last successful save (`server.dirty`).
    pub dirty: u64,
    /// Unix seconds of the last successful save (`server.lastsave`).
    pub lastsave: i64,
    pub rdb_saves: u64,
    pub last_cow_size: u64,
    pub last_bgsave_secs: i64,
    pub aof_rewrites: u64,
    /// Bytes of AOF records (RESP length), and at the last rewrite.
    pub aof_bytes: u64,
    pub aof_base_bytes: u64,
    /// `dirty` when the running BGSAVE forked (`server.dirty_before_bgsave`).
    pub(super) dirty_at_fork: u64,
    /// The keys (database, hash) the running command already counted in
    /// `dirty`, and which command that is (its `total_commands_processed`).
    pub(super) counted: Vec<(usize, u64)>,
    pub(super) counted_for: u64,
    /// AOF records ever appended, and how many of them are known to be on
    /// disk (fsynced, or folded into a rewritten base): WAITAOF's
    /// `fsynced_reploff`, counted in records rather than stream bytes since
    /// the offset stays 0 while no replica ever attached.
    pub aof_appended: u64,
    pub aof_synced_upto: u64,
}

/// How many keys [`Persist::count_change`] remembers per command; past
/// it, every write counts (a command writing that many keys writes each once).
const COUNTED_KEYS: usize = 32;

impl Persist {
    /// `server.dirty++` for a command's write to a key (`signalModifiedKey`
    /// goes with it in Redis' commands): once per key and command, however
    /// many primitive writes (value, then TTL) the command made to it.
    /// `run` numbers the command (`call` counts it in
    /// `total_commands_processed`), so a blocked client served after a push
    /// and each command of a transaction count on their own; `hash` is the
    /// key's in its database. Expiry and eviction count nothing.
    pub fn count_change(&mut self, run: u64, db: usize, hash: u64) {
        if self.counted_for != run {
            self.counted_for = run;
            self.counted.clear();
        }
        if self.counted.contains(&(db, hash)) {
            return;
        }
        if self.counted.len() < COUNTED_KEYS {
            self.counted.push((db, hash));
        }
        self.dirty += 1;
    }
}

/// What a crash leaves on disk for a restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crash {
    /// The Redis process dies (kill -9, OOM killer): the kernel still
    /// writes out what Redis had written.
    Process,
    /// The machine loses power: only fsynced data survives.
    PowerLoss,
}
