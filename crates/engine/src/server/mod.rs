//! The server state every command sees: databases, clock, RNG, config, stats and trace, with Redis' key lookup rules (lazy expiry, LRU/LFU touch, hit/miss stats).

pub mod client;
pub mod client_bufs;
pub mod clock;
pub mod config;
pub mod config_file;
mod config_values;
pub(crate) mod idle;
pub mod keyspace_events;
pub mod listener;
pub mod log;
pub mod memunits;
pub mod obuf_limits;
pub mod renames;
mod replay;
pub mod trace;

pub use trace::lossy;

use crate::keyspace::db::{Db, Dbs};
use crate::keyspace::object::{Obj, Value, LFU_INIT_VAL, LRU_CLOCK_MAX, LRU_CLOCK_RESOLUTION_MS};
use crate::server::clock::Clock;
use crate::server::config::Config;
use crate::server::trace::{Actor, DeleteCause, Event, ExpireHow, Trace};

/// Counters INFO stats reports.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// INFO commandstats, keyed by the command's table entry (its address:
    /// names are looked up only when INFO prints them, off the hot path).
    pub commands: crate::ordmap::OrdMap<usize, CmdStat>,
    /// INFO errorstats: error replies by their code (the first word).
    pub errors: crate::ordmap::OrdMap<String, u64>,
    /// `stat_total_error_replies`.
    pub total_error_replies: u64,
    /// The last error a command run by the running script replied
    /// (`ignore_error_stats_update`: already counted once).
    pub script_call_error: Option<String>,
    /// The command's error reply was written as raw bytes (DEBUG ERROR's
    /// `addReplySds`), which Redis counts neither as an error reply nor
    /// as a failed call.
    pub raw_error_reply: bool,
    pub keyspace_hits: u64,
    pub keyspace_misses: u64,
    pub expired_keys: u64,
    pub evicted_keys: u64,
    pub total_commands_processed: u64,
    pub total_connections_received: u64,
    pub rejected_calls: u64,
    pub expired_stale_perc: f64,
    pub expired_time_cap_reached_count: u64,
    /// Modelled CPU time of the active expire cycle, in nanoseconds.
    pub expire_cycle_time_used_ns: u64,
    /// `stat_peak_memory`: the highest `used_memory` the cron or INFO saw
    /// (CONFIG RESETSTAT keeps it, as Redis does).
    pub peak_memory: u64,
}

/// One command's line of INFO commandstats; its time is the virtual time
/// it kept the main thread busy (0 for what the model charges nothing for).
#[derive(Clone, Debug, Default)]
pub struct CmdStat {
    pub calls: u64,
    pub rejected_calls: u64,
    pub failed_calls: u64,
    /// Virtual µs spent in the command (INFO commandstats' `usec`).
    pub usec: u64,
    /// Its latency histogram (LATENCY HISTOGRAM, INFO latencystats).
    pub latency: crate::observe::Histogram,
}

impl Stats {
    /// The entry in INFO commandstats of the command table entry at
    /// address `cmd` (the server knows commands only by that address).
    pub fn command(&mut self, cmd: usize) -> &mut CmdStat {
        self.commands.entry(cmd).or_default()
    }

    /// `afterErrorReply`: counts an error reply under its code (the text
    /// before the first space within 32 bytes, else `ERR`).
    pub fn count_error(&mut self, msg: &str) {
        self.total_error_replies += 1;
        let head = &msg.as_bytes()[..msg.len().min(32)];
        let code = match head.iter().position(|&b| b == b' ') {
            Some(p) => &msg[..p],
            None => "ERR",
        };
        *self.errors.entry(code.to_string()).or_insert(0) += 1;
    }
}

/// How a command looks a key up (`LOOKUP_*` flags).
#[derive(Clone, Copy, Debug, Default)]
pub struct Lookup {
    /// Do not update the LRU/LFU field (`LOOKUP_NOTOUCH`).
    pub notouch: bool,
    /// Do not count a hit or miss (`LOOKUP_NOSTATS`); write lookups never count.
    pub nostats: bool,
    /// A write lookup: no hit/miss stats, no `keymiss` event.
    pub write: bool,
    /// No `keymiss` event on a miss (`LOOKUP_NONOTIFY`: OBJECT, SCAN's TYPE filter).
    pub nonotify: bool,
}

impl Lookup {
    /// `lookupKeyRead`.
    pub const READ: Lookup = Lookup {
        notouch: false,
        nostats: false,
        write: false,
        nonotify: false,
    };
    /// `lookupKeyWrite`.
    pub const WRITE: Lookup = Lookup {
        nostats: true,
        write: true,
        ..Lookup::READ
    };
    /// `lookupKeyReadWithFlags(LOOKUP_NOTOUCH)`: TYPE, TTL, EXISTS.
    pub const READ_NOTOUCH: Lookup = Lookup {
        notouch: true,
        ..Lookup::READ
    };
    /// `LOOKUP_NOTOUCH | LOOKUP_NONOTIFY`: OBJECT, SCAN's TYPE filter.
    pub const READ_NOTOUCH_NONOTIFY: Lookup = Lookup {
        nonotify: true,
        ..Lookup::READ_NOTOUCH
    };
    /// No touch, no stats, no `keymiss` event (OBJECT, internal reads).
    pub const PEEK: Lookup = Lookup {
        nostats: true,
        nonotify: true,
        ..Lookup::READ_NOTOUCH
    };
}

/// The whole server behind every client: what `struct redisServer` is to Redis.
pub struct Server {
    pub(crate) clock: Clock,
    pub(crate) rng: fastrand::Rng,
    pub(crate) dbs: Dbs,
    pub(crate) config: Config,
    pub(crate) stats: Stats,
    pub(crate) trace: Trace,
    /// Who is running the current command, for trace stamps.
    pub(crate) actor: Actor,
    /// The LRU clock, refreshed by the cron as Redis caches it.
    pub(crate) lruclock: u32,
    /// When the next cron tick is due, in virtual microseconds.
    pub(crate) next_cron_us: u64,
    /// Cron ticks run so far (`cronloops`).
    pub(crate) cronloops: u64,
    /// State the active expire cycle keeps between calls (its C statics).
    pub(crate) expire_state: crate::expire::state::CycleState,
    /// Keys watched by clients for their transactions.
    pub(crate) watches: crate::watch::Watches,
    /// The eviction pool and its companions, kept across evictions.
    pub(crate) evict: crate::evict::pool::EvictState,
    /// Clients currently connected.
    pub(crate) connected_clients: usize,
    /// Fixed at start: the seed the run was created with.
    pub(crate) seed: u64,
    /// What CLIENT LIST shows of every connection, by id; the engine keeps
    /// it in step after each command (handlers only see their own client).
    pub(crate) client_list: crate::idmap::IdMap<crate::server::client::ClientEntry>,
    /// The client `clientsCron` visits next (it goes round the list a few
    /// clients per tick).
    pub(crate) clients_cron_next: u64,
    /// The command being dispatched as (name, subcommand or ""), for `cmd=` in CLIENT LIST.
    pub(crate) last_cmd: (&'static str, &'static str),
    /// The names commands are called by, after `rename-command`.
    pub(crate) renames: renames::Renames,
    /// Clients blocked on keys, keys ready to serve them, their timeouts.
    pub(crate) blocking: crate::blocking::waiters::Blocking,
    /// Pub/Sub subscribers by channel, pattern and shard channel.
    pub(crate) pubsub: crate::pubsub::registry::PubSub,
    /// The Lua script cache and `math.random`'s state.
    pub(crate) scripts: crate::script::Scripts,
    /// What DEBUG switches: active expiry on or off, the list threshold.
    pub(crate) debug: DebugSwitches,
    /// The lazy-free thread's queue and the main thread's freeing stall.
    pub(crate) lazyfree: crate::lazyfree::queue::LazyFree,
    /// The running command's report of work its reply does not show, for
    /// the CPU cost model.
    pub(crate) cpu: crate::cost::Meter,
    /// The last `Event::Memory` sample the cron recorded (used, maxmemory,
    /// keys, expires), so it records one only when something changed.
    pub(crate) memory_sample: Option<[u64; 4]>,
    /// This node's view of the cluster when `cluster-enabled` is on.
    pub(crate) cluster: Option<crate::cluster::ClusterState>,
    /// Replication: role, offsets, backlog, replicas, the captured stream.
    pub(crate) repl: crate::repl::state::Repl,
    /// Simulated RDB and AOF files and their counters.
    pub(crate) persist: crate::persist::files::Persist,
    /// Client-side caching: the tracking tables and each tracking client's mode.
    pub(crate) tracking: crate::tracking::state::Tracking,
    /// The running command's client is in CLIENT NO-TOUCH mode: lookups
    /// leave the LRU/LFU field alone.
    pub(crate) no_touch: bool,
    /// What CLIENT UNBLOCK asked of other connections; the engine carries
    /// it out once the command returns.
    pub(crate) client_ops: Vec<ClientOp>,
    /// The CLIENT PAUSE in effect, until CLIENT UNPAUSE or the first
    /// `beforeSleep` past its end (`client_pause_per_purpose[PAUSE_BY_CLIENT_COMMAND]`).
    pub(crate) pause: Option<Pause>,
    /// The slow log, latency events and busy time (SLOWLOG, LATENCY, INFO cpu).
    pub(crate) observe: crate::observe::Observe,
    /// Lines for the server log (DEBUG LOG, `redis.log`), if a driver takes them.
    pub(crate) log: log::Log,
    /// Clients in MONITOR mode, in the order they asked.
    pub(crate) monitors: Vec<crate::server::client::ClientId>,
    /// A script's `redis.call` is running a command (MONITOR shows `lua`).
    pub(crate) in_script: bool,
    /// SHUTDOWN ran: the server has stopped.
    pub(crate) shut_down: bool,
    /// ACL users and the ACL LOG.
    pub(crate) acl: crate::acl::AclState,
    /// Other clients a command killed (CLIENT KILL, ACL DELUSER): the
    /// engine disconnects them after the command, then reports them to
    /// the driver, which closes their connections.
    pub(crate) killed: Vec<u64>,
    /// Clients disconnected that way, for [`crate::Engine::take_killed`].
    pub(crate) killed_out: Vec<u64>,
    /// Clients' output buffers and their limits' disconnections.
    pub(crate) output: crate::output::state::Outputs,
    /// Where ACL LOAD and SAVE read and write `aclfile` (the driver's
    /// files natively; memory otherwise).
    pub(crate) files: std::sync::Arc<dyn crate::acl::FileStore>,
    /// The configuration file the server was started with (absolute), which
    /// CONFIG REWRITE updates through `files`; empty without one.
    pub(crate) config_file: String,
    /// MIGRATE's connections to other servers (the driver's network; none
    /// otherwise).
    pub(crate) links: std::sync::Arc<dyn crate::cluster::link::MigrateLinks>,
    /// The socket `port` names (the driver's listener; none otherwise).
    pub(crate) listener: std::sync::Arc<dyn listener::Listener>,
}

/// A CLIENT PAUSE: until when, and which commands wait. A WRITE pause
/// holds the commands that may write or replicate, an ALL pause every
/// command; both hold expiry and eviction, so that nothing changes the
/// data while it lasts (what a failover or a migration needs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pause {
    /// Absolute Unix ms; the pause ends once the clock reaches it.
    pub end_ms: i64,
    /// ALL (every command waits), not WRITE.
    pub all: bool,
}

/// A command's request about another connection.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientOp {
    /// CLIENT UNBLOCK: answer its blocking command now, as on a timeout or
    /// with the UNBLOCKED error.
    Unblock(crate::server::client::ClientId, bool),
    /// SCRIPT KILL: the waiting caller of the killed script gets this reply.
    Reply(crate::server::client::ClientId, crate::proto::resp::Frame),
    /// CLIENT UNPAUSE: the clients the pause held run their commands.
    Unpause,
    /// REPLCONF ACK from a socket replica (its name, the engine offset it
    /// reached): WAITs may now have enough acknowledgements.
    ReplicaAck(String, u64),
}

impl Server {
    /// A server with `config`, everything derived from `seed`.
    pub fn new(seed: u64, mut config: Config, trace_capacity: usize) -> Server {
        // A cluster node has only database 0 (7.2 lowers `databases` to 1).
        let cluster = config.cluster_enabled.then(|| {
            config.databases = 1;
            crate::cluster::ClusterState::new(seed, config.port)
        });
        let mut rng = fastrand::Rng::with_seed(seed);
        let dbs = Dbs::new(
            (0..config.databases)
                .map(|_| Db::new(rng.u64(..)))
                .collect(),
        );
        let clock = Clock::default();
        let mut s = Server {
            clock,
            rng,
            dbs,
            config,
            stats: Stats::default(),
            trace: Trace::new(trace_capacity),
            actor: Actor::Server,
            lruclock: 0,
            next_cron_us: 0,
            cronloops: 0,
            expire_state: Default::default(),
            evict: Default::default(),
            watches: Default::default(),
            clients_cron_next: 0,
            connected_clients: 0,
            seed,
            client_list: Default::default(),
            last_cmd: ("", ""),
            renames: Default::default(),
            blocking: Default::default(),
            pubsub: Default::default(),
            scripts: Default::default(),
            debug: Default::default(),
            lazyfree: Default::default(),
            cpu: Default::default(),
            memory_sample: None,
            cluster,
            repl: crate::repl::state::Repl::new(seed),
            persist: Default::default(),
            tracking: Default::default(),
            no_touch: false,
            client_ops: Vec::new(),
            pause: None,
            observe: Default::default(),
            log: Default::default(),
            monitors: Vec::new(),
            in_script: false,
            shut_down: false,
            acl: crate::acl::AclState::default(),
            killed: Vec::new(),
            killed_out: Vec::new(),
            output: Default::default(),
            files: std::sync::Arc::new(crate::acl::MemoryFiles::default()),
            config_file: String::new(),
            links: std::sync::Arc::new(crate::cluster::link::NoLinks),
            listener: std::sync::Arc::new(listener::NoListener),
        };
        s.acl = crate::acl::AclState::new(&s.config.requirepass);
        s.lruclock = s.lru_clock_now();
        s
    }

    /// Virtual Unix time in milliseconds: what `mstime()` is to Redis.
    pub fn now_ms(&self) -> i64 {
        self.clock.unix_ms()
    }

    /// Records an event if tracing is on.
    pub fn emit(&mut self, event: Event) {
        if self.trace.enabled() {
            self.trace
                .push(self.clock.now_us(), self.actor.clone(), event);
        }
    }

    /// Records an event built lazily, for events costly to build.
    pub fn emit_with(&mut self, f: impl FnOnce() -> Event) {
        if self.trace.enabled() {
            let ev = f();
            self.trace.push(self.clock.now_us(), self.actor.clone(), ev);
        }
    }

    /// `getLRUClock()`: seconds on a 24-bit wrapping clock.
    pub fn lru_clock_now(&self) -> u32 {
        ((self.now_ms() as u64 / LRU_CLOCK_RESOLUTION_MS) & LRU_CLOCK_MAX as u64) as u32
    }

    /// Minutes on a 16-bit clock (`LFUGetTimeInMinutes`).
    pub fn lfu_minutes(&self) -> u32 {
        lfu_minutes(&self.clock)
    }

    /// The `lru` field a new object gets (`createObject`).
    pub fn new_lru(&self) -> u32 {
        if self.config.maxmemory_policy.is_lfu() {
            (self.lfu_minutes() << 8) | LFU_INIT_VAL as u32
        } else {
            self.lruclock
        }
    }

    /// `LFUDecrAndReturn`: the counter after subtracting one per
    /// `lfu-decay-time` minutes elapsed since the last access.
    pub fn lfu_decayed(&self, lru: u32) -> u8 {
        lfu_decayed(&self.config, &self.clock, lru)
    }

    /// `isPausedActionsWithUpdate(PAUSE_ACTION_EXPIRE | PAUSE_ACTION_EVICT)`:
    /// a CLIENT PAUSE (WRITE or ALL) whose time has not run out holds
    /// expiry and eviction.
    pub fn paused_now(&self) -> bool {
        // A light engine has no CLIENT PAUSE (the page moves to the full one).
        !cfg!(feature = "light") && self.pause.is_some_and(|p| self.now_ms() < p.end_ms)
    }

    /// `keyIsExpired`: true once the clock is strictly past the key's expiry.
    pub fn key_is_expired(&self, db: usize, key: &[u8]) -> bool {
        match self.dbs[db].expire_at(key) {
            Some(when) => self.now_ms() > when,
            None => false,
        }
    }

    /// `expireIfNeeded`: deletes `key` if it is logically expired (lazy expiry).
    pub fn expire_if_needed(&mut self, db: usize, key: &[u8]) -> bool {
        if !self.key_is_expired(db, key) {
            return false;
        }
        if self.repl.is_replica() && !self.repl.applying {
            return true;
        }
        // Paused: logically gone, reclaimed once the pause ends.
        if self.paused_now() {
            return true;
        }
        self.delete_expired(db, key, ExpireHow::Lazy);
        true
    }

    /// Reclaims an expired key and records how. Its value is freed as
    /// `lazyfree-lazy-expire` says; returns the synchronous freeing cost (ns).
    pub fn delete_expired(&mut self, db: usize, key: &[u8], how: ExpireHow) -> u64 {
        let old = self.dbs[db].remove(key);
        if let Some(old) = &old {
            // A blocked XREADGROUP learns its key is gone.
            self.blocking.signal_deleted(db, key, &old.value);
        }
        // `signalModifiedKey(NULL, ...)`: no client modified it.
        self.touch_key_by(db, key, false);
        self.stats.expired_keys += 1;
        let lazy = self.config.lazyfree_lazy_expire;
        self.repl.wire.deletion(db, key, lazy);
        self.emit_with(|| Event::Expired {
            db: db as u32,
            key: lossy(key),
            how,
        });
        self.notify(keyspace_events::EXPIRED, "expired", key, db);
        match old {
            Some(old) => self.free_value(db, key, old, self.config.lazyfree_lazy_expire),
            None => 0,
        }
    }

    /// `lookupKey`: the live object under `key`, after lazy expiry, with the
    /// access recorded as `flags` says.
    pub fn lookup(&mut self, db: usize, key: &[u8], flags: Lookup) -> Option<&mut Obj> {
        let count = !flags.write && !flags.nostats;
        // A replica keeps an expired key until the master's DEL arrives,
        // but reports it missing (`expireIfNeeded` on a replica).
        if self.expire_if_needed(db, key) {
            self.missed(db, key, flags);
            return None;
        }
        if self.config.notify_keyspace_events & keyspace_events::KEY_MISS != 0
            && !self.dbs[db].dict.contains(key)
        {
            self.missed(db, key, flags);
            return None;
        }
        // Split the borrows so the object is found once (one hash) and the
        // LFU counter can still draw from the RNG.
        let Server {
            dbs,
            rng,
            config,
            stats,
            lruclock,
            clock,
            evict,
            no_touch,
            ..
        } = self;
        let dict = &mut dbs[db].dict;
        match dict.slot_of(key) {
            Some(slot) => {
                if !flags.notouch && !*no_touch {
                    let lru = dict.aux_at(slot);
                    let lru = touched_lru(config, clock, rng, *lruclock, lru, flags.write);
                    dict.set_aux_at(slot, lru);
                    // The redsim-only exact policies keep their own order.
                    let policy = config.maxmemory_policy;
                    if policy.is_exact() {
                        let lfu = policy == crate::server::config::Policy::ExactLfu;
                        evict.exact.touch(lfu, db, key);
                    }
                }
                if count {
                    stats.keyspace_hits += 1;
                }
                Some(dict.val_at_mut(slot))
            }
            None => {
                if count {
                    stats.keyspace_misses += 1;
                }
                None
            }
        }
    }

    /// A lookup found no live key: the `keymiss` event and the miss count,
    /// as `flags` allows.
    #[cold]
    fn missed(&mut self, db: usize, key: &[u8], flags: Lookup) {
        if !flags.write && !flags.nonotify {
            self.notify(keyspace_events::KEY_MISS, "keymiss", key, db);
        }
        if !flags.write && !flags.nostats {
            self.stats.keyspace_misses += 1;
        }
    }

    /// `serverLog`: a line for the log at `level`, if `loglevel` lets it
    /// through and a driver takes the log (`text` is made only then).
    pub fn log(&mut self, level: log::Level, text: impl FnOnce() -> String) {
        if self.log.wants(level, &self.config.loglevel) {
            let unix_us = self.clock.unix_us();
            let role = if self.repl.is_replica() { 'S' } else { 'M' };
            self.log.push(log::Line {
                level,
                role,
                unix_us,
                text: text(),
            });
        }
    }

    /// `lookupKeyRead`.
    pub fn lookup_read(&mut self, db: usize, key: &[u8]) -> Option<&mut Obj> {
        self.lookup(db, key, Lookup::READ)
    }

    /// `lookupKeyWrite`.
    pub fn lookup_write(&mut self, db: usize, key: &[u8]) -> Option<&mut Obj> {
        self.lookup(db, key, Lookup::WRITE)
    }

    /// True if a live key exists (no touch, no stats).
    pub fn exists(&mut self, db: usize, key: &[u8]) -> bool {
        self.lookup(db, key, Lookup::PEEK).is_some()
    }

    /// `setKey`: stores a value, keeping the old `lru` field on overwrite (as
    /// Redis' `dbOverwrite` does) and dropping the TTL unless `keep_ttl`. A
    /// new key is signalled ready for clients blocked on it (`dbAdd`).
    pub fn set_key(&mut self, db: usize, key: &[u8], value: Value, keep_ttl: bool) {
        self.store_key(db, key, value, keep_ttl, true);
    }

    /// `dbAdd` of a key that does not exist, outside any command's
    /// bookkeeping (DEBUG POPULATE): no replication and no change counted
    /// toward a save, while WATCH and tracking clients see the key change
    /// (`signalModifiedKey`).
    pub fn add_key_unrecorded(&mut self, db: usize, key: &[u8], value: Value) {
        self.store_key(db, key, value, false, false);
    }

    /// [`Server::set_key`]; `record` false leaves the write out of the
    /// replication stream and the dirty count.
    fn store_key(&mut self, db: usize, key: &[u8], value: Value, keep_ttl: bool, record: bool) {
        let d = &self.dbs[db].dict;
        let h = d.hash(key);
        let lru = match d.slot_of_hashed(key, h) {
            Some(slot) => {
                // `dbOverwrite` counts as a deletion for XREADGROUP waiters.
                self.blocking.signal_deleted(db, key, &d.val_at(slot).value);
                // 8.6's LRM policies date the key by its last write.
                if self.config.maxmemory_policy.is_lrm() {
                    self.lruclock
                } else {
                    d.aux_at(slot)
                }
            }
            None => {
                // `dbAdd` signals a new key to clients blocked on it.
                self.blocking.signal_ready(db, key, &value);
                self.new_lru()
            }
        };

        let old = self.dbs[db].insert_hashed(key, h, Obj { value }, lru);
        if old.is_none() {
            // `dbAdd`'s `new` event, before the command's own.
            self.notify(keyspace_events::NEW, "new", key, db);
        }
        if let (None, 0, Some(c)) = (&old, db, self.cluster.as_mut()) {
            c.key_added(key);
        }
        let policy = self.config.maxmemory_policy;
        if policy.is_exact() {
            let lfu = policy == crate::server::config::Policy::ExactLfu;
            self.evict.exact.touch(lfu, db, key);
        }
        if !keep_ttl && self.dbs[db].persist(key) {
            self.emit_with(|| Event::TtlSet {
                db: db as u32,
                key: lossy(key),
                at_ms: None,
            });
        }
        match record {
            true => self.touch_key(db, key),
            false => self.signal_modified(db, key, true),
        }
        self.emit_with(|| Event::Written {
            db: db as u32,
            key: lossy(key),
        });
        if let Some(old) = old {
            // `dbOverwrite` frees the old value as `lazyfree-lazy-server-del` says.
            self.free_value(db, key, old, self.config.lazyfree_lazy_server_del);
        }
    }

    /// Mutates a live key's object in place, accounting memory and recording the write.
    pub fn modify<R>(&mut self, db: usize, key: &[u8], f: impl FnOnce(&mut Obj) -> R) -> Option<R> {
        // 8.6's LRM policies date the key by its last write.
        if self.config.maxmemory_policy.is_lrm() {
            self.dbs[db].set_lru(key, self.lruclock);
        }
        let r = self.dbs[db].with_mut(key, f)?;
        self.touch_key(db, key);
        self.emit_with(|| Event::Written {
            db: db as u32,
            key: lossy(key),
        });
        Some(r)
    }

    /// Deletes `key` (after lazy expiry); true if a live key was removed.
    /// The value is freed as Redis' callers of `dbGenericDelete` do:
    /// UNLINK lazily, GETDEL at once (`dbSyncDelete`), EXPIRE with a past
    /// time as `lazyfree-lazy-expire` says, anything else (`dbDelete`) as
    /// `lazyfree-lazy-server-del` says. DEL chooses by
    /// `lazyfree-lazy-user-del` through [`Server::delete_freeing`].
    pub fn delete(&mut self, db: usize, key: &[u8], cause: DeleteCause) -> bool {
        let lazy = match cause {
            DeleteCause::Unlink => true,
            DeleteCause::Getdel => false,
            DeleteCause::Expire => self.config.lazyfree_lazy_expire,
            _ => self.config.lazyfree_lazy_server_del,
        };
        self.delete_freeing(db, key, cause, Some(lazy))
    }

    /// [`Server::delete`] with the freeing chosen by the caller: lazily or
    /// not, or `None` when the value is not freed but lives on elsewhere
    /// (RENAME's source, whose value moved to the destination).
    pub fn delete_freeing(
        &mut self,
        db: usize,
        key: &[u8],
        cause: DeleteCause,
        lazy: Option<bool>,
    ) -> bool {
        self.expire_if_needed(db, key);
        let Some(old) = self.dbs[db].remove(key) else {
            return false;
        };
        self.blocking.signal_deleted(db, key, &old.value);
        self.touch_key(db, key);
        self.emit_with(|| Event::Deleted {
            db: db as u32,
            key: lossy(key),
            cause,
        });
        if let Some(lazy) = lazy {
            self.free_value(db, key, old, lazy);
        }
        true
    }

    /// Sets a live key's absolute expiry in Unix ms. Callers deal with times
    /// already past first: EXPIRE deletes the key instead (`checkAlreadyExpired`).
    pub fn set_expire(&mut self, db: usize, key: &[u8], when_ms: i64) {
        self.dbs[db].set_expire(key, when_ms);
        self.touch_key(db, key);
        self.emit_with(|| Event::TtlSet {
            db: db as u32,
            key: lossy(key),
            at_ms: Some(when_ms),
        });
    }

    /// Removes a key's TTL (PERSIST); true if it had one.
    pub fn persist(&mut self, db: usize, key: &[u8]) -> bool {
        let had = self.dbs[db].persist(key);
        if had {
            self.touch_key(db, key);
            self.emit_with(|| Event::TtlSet {
                db: db as u32,
                key: lossy(key),
                at_ms: None,
            });
        }
        had
    }

    /// `signalModifiedKey`: a write to `key` dooms transactions watching it
    /// and invalidates it for the clients caching it.
    pub fn touch_key(&mut self, db: usize, key: &[u8]) {
        self.touch_key_by(db, key, true);
    }

    /// [`Server::touch_key`]; `by_client` is false for expiry and eviction,
    /// which Redis signals with no client (BCAST's NOLOOP then skips nobody).
    pub fn touch_key_by(&mut self, db: usize, key: &[u8], by_client: bool) {
        // Every write funnels through here, so the replication stream
        // sees exactly the keys Redis would propagate.
        self.repl.note_key(db, key);
        if by_client {
            let hash = self.dbs[db].dict.hash(key) as u64;
            let run = self.stats.total_commands_processed;
            self.persist.count_change(run, db, hash);
        }
        self.signal_modified(db, key, by_client);
    }

    /// `signalModifiedKey`'s part for clients: WATCH and client-side caching.
    fn signal_modified(&mut self, db: usize, key: &[u8], by_client: bool) {
        if !self.watches.is_empty() {
            let exists = self.dbs[db].dict.contains(key);
            self.watches.touch(db, key, exists);
        }
        if !self.tracking.idle() {
            self.tracking_invalidate(key, by_client);
        }
    }

    /// Empties database `db` (all of them if `None`) and records it: the
    /// writes every FLUSH, a full sync and a flush from the master share.
    pub fn flush(&mut self, db: Option<usize>) -> u64 {
        self.repl.note_flush(db);
        // `touchAllWatchedKeysInDb`: every watched key that existed is modified.
        if !self.watches.is_empty() {
            let range = match db {
                Some(d) => d..d + 1,
                None => 0..self.dbs.len(),
            };
            for d in range {
                let Server { watches, dbs, .. } = &mut *self;
                let dict = &dbs[d].dict;
                watches.touch_db(d, |k| dict.contains(k));
            }
        }
        // `trackingInvalidateKeysOnFlush`: a null to every tracking client.
        self.tracking_flush();
        // `scanDatabaseForDeletedKeys`: blocked XREADGROUP clients are woken.
        match db {
            Some(d) => self.blocking.signal_emptied(d, &self.dbs[d]),
            None => (0..self.dbs.len()).for_each(|d| self.blocking.signal_emptied(d, &self.dbs[d])),
        }
        let keys: u64 = match db {
            Some(d) => self.dbs[d].clear() as u64,
            None => self.dbs.iter_mut().map(|d| d.clear() as u64).sum(),
        };
        self.emit(Event::Flushed {
            db: db.map(|d| d as u32),
            keys,
        });
        keys
    }

    /// Bytes a command may still add before `redsim-memory-budget`; `None`
    /// when there is no budget.
    pub fn budget_room(&self) -> Option<u64> {
        let budget = self.config.memory_budget;
        (budget > 0).then(|| budget.saturating_sub(self.used_memory()))
    }

    /// Whether adding `growth` bytes would pass `redsim-memory-budget`.
    pub fn over_budget(&self, growth: u64) -> bool {
        self.budget_room().is_some_and(|room| growth > room)
    }

    /// Total bytes the keyspace accounts for, plus the server's baseline
    /// and what the lazy-free thread has not freed yet.
    pub fn used_memory(&self) -> u64 {
        crate::keyspace::memory::BASELINE_USED_MEMORY
            + self.dbs.memory()
            + self.lazyfree_pending_bytes()
    }
}

/// Minutes on a 16-bit clock (`LFUGetTimeInMinutes`).
fn lfu_minutes(clock: &Clock) -> u32 {
    ((clock.unix_ms() as u64 / 1000 / 60) & 0xffff) as u32
}

/// `LFUDecrAndReturn` for callers holding the config and clock apart
/// from the server (eviction scores samples under split borrows).
pub fn lfu_decayed_at(config: &Config, clock: &Clock, lru: u32) -> u8 {
    lfu_decayed(config, clock, lru)
}

/// `LFUDecrAndReturn`.
fn lfu_decayed(config: &Config, clock: &Clock, lru: u32) -> u8 {
    let ldt = lru >> 8;
    let counter = (lru & 0xff) as u8;
    let now = lfu_minutes(clock);
    let elapsed = if now >= ldt {
        now - ldt
    } else {
        65535 - ldt + now
    };
    let periods = match config.lfu_decay_time {
        0 => 0,
        d => elapsed / d,
    };
    if periods > counter as u32 {
        0
    } else {
        counter - periods as u8
    }
}

/// `LFULogIncr`: grows the counter with probability `1/((c-5)*factor+1)`.
/// Public so tests can replay the redis.conf counter table (tests/lfu.rs).
pub fn lfu_log_incr(config: &Config, rng: &mut fastrand::Rng, counter: u8) -> u8 {
    if counter == 255 {
        return 255;
    }
    let r = rng.f64();
    let base = (counter as f64 - LFU_INIT_VAL as f64).max(0.0);
    let p = 1.0 / (base * config.lfu_log_factor as f64 + 1.0);
    if r < p {
        counter + 1
    } else {
        counter
    }
}

/// The `lru` field after an access: `updateLFU` under LFU, the cached LRU
/// clock under LRU, and under 8.6's LRM the clock on writes only.
fn touched_lru(
    config: &Config,
    clock: &Clock,
    rng: &mut fastrand::Rng,
    lruclock: u32,
    lru: u32,
    write: bool,
) -> u32 {
    if config.maxmemory_policy.is_lrm() {
        if write {
            lruclock
        } else {
            lru
        }
    } else if config.maxmemory_policy.is_lfu() {
        let c = lfu_decayed(config, clock, lru);
        let c = lfu_log_incr(config, rng, c);
        (lfu_minutes(clock) << 8) | c as u32
    } else {
        lruclock
    }
}

/// The error for a write past `redsim-memory-budget`, in the words of
/// Redis' `maxmemory` refusal.
pub const BUDGET_OOM: &str = "OOM command not allowed when used memory > 'redsim-memory-budget'.";

/// The switches DEBUG sets (debug.c keeps them in `server`).
#[derive(Clone, Copy, Debug)]
pub struct DebugSwitches {
    /// DEBUG SET-ACTIVE-EXPIRE: the active expire cycle runs.
    pub active_expire: bool,
    /// DEBUG QUICKLIST-PACKED-THRESHOLD, recorded; lists here have no
    /// plain nodes, so it changes no value.
    pub quicklist_packed_threshold: u64,
    /// DEBUG PAUSE-CRON: `serverCron` does not run.
    pub pause_cron: bool,
    /// DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may call `noscript` commands.
    pub allow_deny_scripts: bool,
    /// DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE and FUNCTION RESTORE
    /// take a payload whose CRC64 does not match.
    pub skip_checksum: bool,
}

impl Default for DebugSwitches {
    fn default() -> Self {
        DebugSwitches {
            active_expire: true,
            quicklist_packed_threshold: 1 << 30,
            pause_cron: false,
            allow_deny_scripts: false,
            skip_checksum: false,
        }
    }
}
