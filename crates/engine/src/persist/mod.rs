//! Persistence as Redis does it, on the virtual clock: RDB snapshots on `save` rules (a forked child whose copy-on-write grows with the writes it sees), an AOF with `appendfsync always | everysec | no` over an RDB preamble, rewrites, and a crash that restarts a node from what its files held.
//!
//! Nothing touches a disk. "Files" are in memory, in two states: *written*
//! (handed to the kernel: survives a crash of the Redis process) and
//! *fsynced* (survives a power loss). The AOF's commands are the same
//! per-key effects the replication stream carries ([`crate::repl`]), so
//! replaying them rebuilds exactly the keyspace they describe.
//!
//! When each setting makes data durable, as Redis 7.2 does it:
//! - every command's AOF record is written before its reply leaves
//!   (`flushAppendOnlyFile` runs in `beforeSleep`, before client writes), so
//!   a process crash loses nothing acknowledged with AOF on;
//! - `always` fsyncs before replying; `everysec` fsyncs in the background
//!   once a second; `no` leaves it to the kernel, modelled as Linux'
//!   30-second dirty-page expiry;
//! - an RDB file exists once a BGSAVE completes; the snapshot is the
//!   keyspace at the fork, so everything after the fork is only in memory.

pub mod files;
pub mod lzf;
pub mod packed;
pub mod payload;
pub mod rdb;

use files::Child;
pub use files::{Crash, Persist, Snapshot};

use crate::repl::state::{Effect, ReplOp};
pub use crate::server::config::Fsync;
use crate::server::Server;

/// Copy-on-write happens per page.
const PAGE: u64 = 4096;
/// How fast the modelled child writes an RDB (bytes of used memory per
/// second): snapshots of a few hundred MB take about a second, as on a
/// commodity disk.
const RDB_BYTES_PER_SEC: u64 = 300 << 20;
/// Linux writes dirty pages back after `dirty_expire_centisecs` (30 s).
const OS_WRITEBACK_US: u64 = 30_000_000;

impl Snapshot {
    /// The live keyspace now (keys already expired are left out, as `rdbSave` does).
    pub(crate) fn take(srv: &Server) -> Snapshot {
        let now_ms = srv.now_ms();
        let mut entries = Vec::new();
        for (db, d) in srv.dbs.iter().enumerate() {
            for (key, obj) in d.dict.iter() {
                let exp = d.expire_at(key);
                // rdbSave skips keys already expired.
                if exp.is_some_and(|t| now_ms > t) {
                    continue;
                }
                entries.push((db, key.to_vec(), obj.clone(), exp));
            }
        }
        Snapshot {
            at_us: srv.clock.now_us(),
            entries,
        }
    }
}

/// True when writes must be captured as effects (AOF on, or save rules to count).
pub fn wanted(srv: &Server) -> bool {
    srv.config.appendonly || !srv.config.save.is_empty()
}

/// Called after each command and cron tick: starts capturing when
/// persistence was just configured, and turning AOF on writes its base.
#[inline]
pub fn sync_config(srv: &mut Server) {
    // The settled state, checked after every command: nothing to do.
    let settled = srv.persist.lastsave != 0
        && srv.config.appendonly == srv.persist.aof_base.is_some()
        && (srv.repl.capturing() || !wanted(srv));
    if !settled {
        sync_config_slow(srv);
    }
}

#[cold]
fn sync_config_slow(srv: &mut Server) {
    if srv.persist.lastsave == 0 {
        // `server.lastsave` starts at startup, as if a save had just happened.
        srv.persist.lastsave = srv.now_ms() / 1000;
    }
    if wanted(srv) && !srv.repl.capturing() {
        srv.repl.capture_for_persistence();
    }
    if srv.config.appendonly && srv.persist.aof_base.is_none() {
        // CONFIG SET appendonly yes: an AOF rewrite creates the first base.
        rewrite_aof(srv);
    }
    if !srv.config.appendonly && srv.persist.aof_base.is_some() {
        srv.persist.aof_base = None;
        srv.persist.aof.clear();
        srv.persist.aof_fsynced = 0;
    }
}

/// Corrects the one change per key [`Persist::count_change`] gave a command that
/// counts otherwise in Redis: by the elements it added or removed past the
/// first (LPUSH, SADD, HSET...), or fewer (LMOVE counts its pop only, an
/// LTRIM that removed nothing counts nothing).
pub fn adjust_changes(srv: &mut Server, delta: i64) {
    srv.persist.dirty = srv.persist.dirty.saturating_add_signed(delta);
}

/// WAITAOF's local acknowledgement: the AOF is on and every record a
/// client's last command appended (`woff`, in records) is on disk.
pub fn aof_synced(srv: &Server, woff: u64) -> bool {
    srv.config.appendonly && srv.persist.aof_base.is_some() && srv.persist.aof_synced_upto >= woff
}

/// New stream ops: appended to the AOF, and noted by a
/// running BGSAVE's copy-on-write.
pub fn on_ops(srv: &mut Server, ops: &[ReplOp]) {
    if let Some(child) = srv.persist.child.as_mut() {
        for op in ops {
            let key = match &op.effect {
                Effect::Put { key, .. } | Effect::Del { key } | Effect::Counted { key } => {
                    key.clone()
                }
                Effect::Flush { .. } => continue,
            };
            if child.touched.get(&key).is_none() {
                let size = srv.dbs[op.db.min(srv.dbs.len() - 1)]
                    .get(&key)
                    .map_or(PAGE, |o| o.memory_usage(&key) as u64);
                child.cow_bytes += size.div_ceil(PAGE) * PAGE;
                child.touched.insert(&key, ());
            }
        }
    }
    if srv.config.appendonly && srv.persist.aof_base.is_some() {
        srv.persist.aof_bytes += ops.iter().map(|o| o.end - o.start).sum::<u64>();
        srv.persist.aof.extend_from_slice(ops);
        srv.persist.aof_appended += ops.len() as u64;
        if srv.config.appendfsync == Fsync::Always {
            fsync(srv);
        }
    }
}

fn fsync(srv: &mut Server) {
    let n = srv.persist.aof.len();
    if srv.persist.aof_fsynced < n {
        let synced = n - srv.persist.aof_fsynced;
        srv.persist.aof_fsynced = n;
        srv.emit(crate::server::trace::Event::Persisted {
            what: "fsync".into(),
            records: synced as u64,
        });
    }
    srv.persist.last_fsync_us = srv.clock.now_us();
    srv.persist.aof_synced_upto = srv.persist.aof_appended;
}

/// `serverCron`'s persistence duties: save rules, a finished child, the
/// once-a-second fsync, the kernel's writeback, automatic AOF rewrites.
pub fn cron(srv: &mut Server) {
    sync_config(srv);
    let now_us = srv.clock.now_us();
    let now_s = srv.now_ms() / 1000;
    if srv
        .persist
        .child
        .as_ref()
        .is_some_and(|c| now_us >= c.done_us)
    {
        finish_bgsave(srv);
    }
    if srv.persist.child.is_none() {
        let due = srv.config.save.iter().any(|&(secs, changes)| {
            srv.persist.dirty >= changes as u64 && now_s - srv.persist.lastsave >= secs
        });
        if due && srv.persist.dirty > 0 {
            bgsave(srv);
        }
    }
    if srv.config.appendonly {
        let every = match srv.config.appendfsync {
            Fsync::Always => 0,
            Fsync::Everysec => 1_000_000,
            Fsync::No => OS_WRITEBACK_US,
        };
        if every > 0 && now_us.saturating_sub(srv.persist.last_fsync_us) >= every {
            fsync(srv);
        }
        let p = &srv.persist;
        let min = srv.config.auto_aof_rewrite_min_size;
        let perc = srv.config.auto_aof_rewrite_percentage;
        if perc > 0
            && p.aof_bytes >= min
            && p.aof_bytes * 100 / p.aof_base_bytes.max(1) >= 100 + perc
        {
            rewrite_aof(srv);
        }
    }
}

/// BGSAVE: forks (the snapshot is the keyspace now); the file exists when
/// the child finishes, after time proportional to the data.
pub fn bgsave(srv: &mut Server) -> bool {
    if srv.persist.child.is_some() {
        return false;
    }
    let snapshot = Snapshot::take(srv);
    let bytes = srv.used_memory();
    let dur = (bytes.saturating_mul(1_000_000) / RDB_BYTES_PER_SEC).max(1_000);
    let seed = srv.seed;
    srv.persist.child = Some(Child {
        snapshot,
        done_us: srv.clock.now_us() + dur,
        touched: crate::keyspace::dict::Dict::new(seed),
        cow_bytes: 0,
    });
    srv.persist.dirty_at_fork = srv.persist.dirty;
    srv.emit(crate::server::trace::Event::Persisted {
        what: "bgsave-start".into(),
        records: srv.persist.dirty,
    });
    true
}

fn finish_bgsave(srv: &mut Server) {
    let Some(child) = srv.persist.child.take() else {
        return;
    };
    let secs = (srv.clock.now_us().saturating_sub(child.snapshot.at_us) / 1_000_000) as i64;
    srv.persist.rdb = Some(child.snapshot);
    srv.persist.dirty = srv.persist.dirty.saturating_sub(srv.persist.dirty_at_fork);
    srv.persist.lastsave = srv.now_ms() / 1000;
    srv.persist.rdb_saves += 1;
    srv.persist.last_cow_size = child.cow_bytes;
    srv.persist.last_bgsave_secs = secs;
    srv.emit(crate::server::trace::Event::Persisted {
        what: "rdb".into(),
        records: child.cow_bytes,
    });
}

/// SAVE: a synchronous snapshot (the file exists at once).
pub fn save(srv: &mut Server) {
    srv.persist.child = None;
    srv.persist.rdb = Some(Snapshot::take(srv));
    srv.persist.dirty = 0;
    srv.persist.lastsave = srv.now_ms() / 1000;
    srv.persist.rdb_saves += 1;
    srv.emit(crate::server::trace::Event::Persisted {
        what: "rdb".into(),
        records: 0,
    });
}

/// BGREWRITEAOF, modelled as instant: the base becomes the keyspace now
/// (an RDB preamble, `aof-use-rdb-preamble yes`) and the records restart.
pub fn rewrite_aof(srv: &mut Server) {
    let base = Snapshot::take(srv);
    srv.persist.aof_base = Some(base);
    srv.persist.aof.clear();
    srv.persist.aof_fsynced = 0;
    srv.persist.aof_synced_upto = srv.persist.aof_appended;
    srv.persist.aof_base_bytes = srv.used_memory().max(1);
    srv.persist.aof_bytes = srv.persist.aof_base_bytes;
    srv.persist.aof_rewrites += 1;
    srv.persist.last_fsync_us = srv.clock.now_us();
    srv.emit(crate::server::trace::Event::Persisted {
        what: "aof-rewrite".into(),
        records: 0,
    });
}

/// What a node restarting after `crash` loads: the AOF if it is on (its
/// base, then the records that survived), else the last RDB file.
pub fn recover(srv: &Server, crash: Crash) -> (Option<Snapshot>, Vec<ReplOp>) {
    if srv.config.appendonly {
        let n = match crash {
            Crash::Process => srv.persist.aof.len(),
            Crash::PowerLoss => srv.persist.aof_fsynced,
        };
        let ops = srv.persist.aof.get(..n).unwrap_or(&[]).to_vec();
        return (srv.persist.aof_base.clone(), ops);
    }
    (srv.persist.rdb.clone(), Vec::new())
}

/// Loads `snapshot` then `ops` into an empty server (startup loading).
pub fn load(srv: &mut Server, snapshot: Option<&Snapshot>, ops: &[ReplOp]) {
    let now_ms = srv.now_ms();
    if let Some(s) = snapshot {
        for (db, key, obj, exp) in &s.entries {
            // Keys that expired while the node was down are not loaded.
            if exp.is_some_and(|t| now_ms > t) || *db >= srv.dbs.len() {
                continue;
            }
            srv.set_key(*db, key, obj.value.clone(), false);
            if let Some(t) = exp {
                srv.set_expire(*db, key, *t);
            }
        }
    }
    for op in ops {
        srv.replay(op);
    }
    srv.persist.dirty = 0;
}

/// INFO's `# Persistence` body.
pub fn info(srv: &Server) -> String {
    use std::fmt::Write;
    let p = &srv.persist;
    let mut o = String::new();
    let now_us = srv.clock.now_us();
    let child = p.child.as_ref();
    let _ = write!(
        o,
        "loading:0\r\nasync_loading:0\r\ncurrent_cow_peak:{cow}\r\ncurrent_cow_size:{cow}\r\ncurrent_cow_size_age:0\r\ncurrent_fork_perc:0.00\r\ncurrent_save_keys_processed:0\r\ncurrent_save_keys_total:{keys}\r\nrdb_changes_since_last_save:{dirty}\r\nrdb_bgsave_in_progress:{inprog}\r\nrdb_last_save_time:{last}\r\nrdb_last_bgsave_status:ok\r\nrdb_last_bgsave_time_sec:{lbt}\r\nrdb_current_bgsave_time_sec:{cbt}\r\nrdb_saves:{saves}\r\nrdb_last_cow_size:{lcow}\r\nrdb_last_load_keys_expired:0\r\nrdb_last_load_keys_loaded:0\r\n",
        cow = child.map_or(0, |c| c.cow_bytes),
        keys = child.map_or(0, |c| c.snapshot.entries.len()),
        dirty = p.dirty,
        inprog = u8::from(child.is_some()),
        last = p.lastsave,
        lbt = if p.rdb_saves > 0 { p.last_bgsave_secs } else { -1 },
        cbt = child.map_or(-1, |c| (now_us.saturating_sub(c.snapshot.at_us) / 1_000_000) as i64),
        saves = p.rdb_saves,
        lcow = p.last_cow_size,
    );
    let _ = write!(
        o,
        "aof_enabled:{}\r\naof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\naof_last_rewrite_time_sec:{}\r\naof_current_rewrite_time_sec:-1\r\naof_last_bgrewrite_status:ok\r\naof_rewrites:{}\r\naof_rewrites_consecutive_failures:0\r\naof_last_write_status:ok\r\naof_last_cow_size:0\r\nmodule_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n",
        u8::from(srv.config.appendonly),
        if p.aof_rewrites > 0 { 0 } else { -1 },
        p.aof_rewrites,
    );
    if srv.config.appendonly {
        let _ = write!(
            o,
            "aof_current_size:{}\r\naof_base_size:{}\r\naof_pending_rewrite:0\r\naof_buffer_length:0\r\naof_pending_bio_fsync:{}\r\naof_delayed_fsync:0\r\n",
            p.aof_bytes,
            p.aof_base_bytes,
            u8::from(p.aof_fsynced < p.aof.len()),
        );
    }
    o
}
