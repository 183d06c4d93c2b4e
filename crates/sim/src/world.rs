//! The simulated caching world on the kernel's virtual clock: load generators, application pods (L1 cache, singleflight group, connection pool), Redis nodes, a database, and the caching patterns as reusable pieces.
//!
//! # API
//!
//! Pieces other scenario modules can adopt on their own (no [`World`] needed):
//!
//! - [`LoadGen`] + [`KeyDist`]: arrivals at a rate (Poisson gaps), keys
//!   uniform, Zipf, unique, or a hot set mixed with unique keys, and a
//!   read/write mix. [`key_name`] names key `i`.
//! - [`L1Cache`]: a pod's in-process cache, bounded (oldest insertion goes
//!   first) with a TTL; [`Pool`]: a connection pool with a size, waiters in
//!   FIFO order and a wait timeout the caller schedules.
//! - Patterns as pure functions and small state:
//!   [`predicted_latency`] (the seeds' `L = h·L_hit + (1−h)·(L_hit+L_source)`),
//!   [`jittered_ttl`], [`xfetch_should_refresh`] (beta, the recorded delta),
//!   [`Stamped`] (a value with its delta and a deadline: XFetch's expiry,
//!   logical expiry's fresh-until, refresh-ahead's refresh-at),
//!   [`MISS_MARKER`] / [`is_miss_marker`] (negative caching), [`Bloom`]
//!   (a filter in front of the cache), [`WriteOrder`] + [`cache_aside_write`]
//!   (order of DB write and cache delete), [`DoubleDelete`], [`versioned_key`],
//!   [`WriteBehind`] (dirty set, flush interval), [`read_through_order`]
//!   (the two-level L1 → L2 → source lookup), [`rebuild_lock_args`] (the
//!   per-key rebuild lock, `SET lock:k token NX PX ttl`).
//!
//! The assembled [`World`] runs cache-aside reads and writes through pods
//! for the caching scenarios: build a [`Config`], call [`World::new`],
//! then [`World::run`]; read [`World::metrics`], `world.db`, `world.nodes`
//! and the recorder's diagram afterwards. Every Redis operation is a real
//! command on a real engine at the instant it arrives over the link; the
//! database queues beyond its concurrency limit; a pod waits for a pool
//! connection before it sends. Misses are handled by the chosen
//! [`Protection`]; background refreshes (XFetch, logical expiry,
//! refresh-ahead) go through the pod's singleflight group so one pod runs
//! one refresh at a time.

use super::kernel::{reply_text, Database, Dist, Kernel, Latencies, Meter, Micros, Redis, MS};
use super::singleflight::{FlightId, Joined, SimGroup};
use super::zipf::Zipf;
use redsim_engine::Frame;
use std::collections::{BTreeMap, VecDeque};

// ---------------------------------------------------------------- load

/// How a load generator picks keys.
#[derive(Clone, Debug)]
pub enum KeyDist {
    /// Keys `0..n`, equally likely.
    Uniform(u64),
    /// Keys `0..n` by Zipf rank (key 0 the most popular).
    Zipf(Zipf),
    /// A key never asked for before, every time.
    Unique,
    /// With probability `p` one of `hot` keys (uniform), otherwise a unique one.
    HotOrUnique { hot: u64, p: f64 },
    /// Always this key.
    One(u64),
}

/// One operation a client asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub key: String,
    pub write: bool,
}

/// The name of key `i` (`k{i}`); unique keys are `u{i}`.
pub fn key_name(i: u64) -> String {
    format!("k{i}")
}

/// Clients generating load: `rate` requests per second between `from` and
/// `until`, Poisson arrivals, `read_frac` of them reads.
#[derive(Clone, Debug)]
pub struct LoadGen {
    pub rate: f64,
    pub keys: KeyDist,
    pub read_frac: f64,
    pub from: Micros,
    pub until: Micros,
    unique: u64,
}

impl LoadGen {
    pub fn new(rate: f64, keys: KeyDist, read_frac: f64, from: Micros, until: Micros) -> LoadGen {
        LoadGen {
            rate,
            keys,
            read_frac,
            from,
            until,
            unique: 0,
        }
    }

    /// Time to the next arrival: exponential with mean `1/rate`, at least 1 µs.
    pub fn gap(&self, rng: &mut fastrand::Rng) -> Micros {
        if self.rate <= 0.0 {
            return Micros::MAX / 4;
        }
        let u = 1.0 - rng.f64(); // (0, 1]
        ((-u.ln() / self.rate) * 1e6).max(1.0) as Micros
    }

    /// The next operation.
    pub fn op(&mut self, rng: &mut fastrand::Rng) -> Op {
        let write = rng.f64() >= self.read_frac;
        let key = match &self.keys {
            KeyDist::Uniform(n) => key_name(rng.u64(0..(*n).max(1))),
            KeyDist::Zipf(z) => key_name(z.sample(rng) - 1),
            KeyDist::One(i) => key_name(*i),
            KeyDist::Unique => {
                self.unique += 1;
                format!("u{}", self.unique)
            }
            KeyDist::HotOrUnique { hot, p } => {
                if rng.f64() < *p {
                    key_name(rng.u64(0..(*hot).max(1)))
                } else {
                    self.unique += 1;
                    format!("u{}", self.unique)
                }
            }
        };
        Op { key, write }
    }
}

// ---------------------------------------------------------------- pod pieces

/// A pod's in-process cache: at most `capacity` entries, each living `ttl`.
/// When full, the oldest insertion goes (cheap and predictable; what
/// matters for the lessons is the TTL, which bounds staleness).
#[derive(Clone, Debug)]
pub struct L1Cache {
    pub capacity: usize,
    pub ttl: Micros,
    entries: BTreeMap<String, (String, Micros, u64)>,
    order: BTreeMap<u64, String>,
    seq: u64,
    pub hits: u64,
    pub misses: u64,
}

impl L1Cache {
    pub fn new(capacity: usize, ttl: Micros) -> L1Cache {
        L1Cache {
            capacity: capacity.max(1),
            ttl,
            entries: BTreeMap::new(),
            order: BTreeMap::new(),
            seq: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// The live value of `key` at `now`, counting the hit or miss.
    pub fn get(&mut self, now: Micros, key: &str) -> Option<String> {
        match self.entries.get(key) {
            Some((v, exp, _)) if *exp > now => {
                self.hits += 1;
                Some(v.clone())
            }
            _ => {
                self.misses += 1;
                None
            }
        }
    }

    pub fn put(&mut self, now: Micros, key: &str, value: &str) {
        self.invalidate(key);
        while self.entries.len() >= self.capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.entries.remove(&oldest);
        }
        self.seq += 1;
        self.order.insert(self.seq, key.to_string());
        self.entries.insert(
            key.to_string(),
            (value.to_string(), now.saturating_add(self.ttl), self.seq),
        );
    }

    /// Drops `key` (a local write invalidates its own pod's copy only).
    pub fn invalidate(&mut self, key: &str) {
        if let Some((_, _, seq)) = self.entries.remove(key) {
            self.order.remove(&seq);
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Counters of a connection pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Acquisitions served at once.
    pub immediate: u64,
    /// Acquisitions that had to queue.
    pub waited: u64,
    /// Waiters that gave up at the pool timeout.
    pub timeouts: u64,
    pub peak_in_use: usize,
    pub peak_queue: usize,
}

/// A connection pool: `size` connections; callers beyond that queue in
/// FIFO order until a connection is released or their wait times out.
/// The pool does not schedule: the caller arms a timeout event for a
/// queued waiter and calls [`Pool::time_out`] when it fires.
#[derive(Clone, Debug)]
pub struct Pool<W> {
    pub size: usize,
    pub timeout: Micros,
    pub in_use: usize,
    queue: VecDeque<W>,
    pub stats: PoolStats,
}

impl<W: PartialEq> Pool<W> {
    pub fn new(size: usize, timeout: Micros) -> Pool<W> {
        Pool {
            size: size.max(1),
            timeout,
            in_use: 0,
            queue: VecDeque::new(),
            stats: PoolStats::default(),
        }
    }

    /// Takes a connection (true) or queues `w` (false: arm its timeout).
    pub fn acquire(&mut self, w: W) -> bool {
        if self.in_use < self.size {
            self.in_use += 1;
            self.stats.immediate += 1;
            self.stats.peak_in_use = self.stats.peak_in_use.max(self.in_use);
            true
        } else {
            self.queue.push_back(w);
            self.stats.waited += 1;
            self.stats.peak_queue = self.stats.peak_queue.max(self.queue.len());
            false
        }
    }

    /// Returns a connection; the first waiter, if any, gets it (and is returned).
    pub fn release(&mut self) -> Option<W> {
        match self.queue.pop_front() {
            Some(w) => Some(w),
            None => {
                self.in_use = self.in_use.saturating_sub(1);
                None
            }
        }
    }

    /// `w`'s wait reached the pool timeout: true if it was still queued
    /// (it fails with a pool timeout), false if it got a connection meanwhile.
    pub fn time_out(&mut self, w: &W) -> bool {
        match self.queue.iter().position(|x| x == w) {
            Some(i) => {
                self.queue.remove(i);
                self.stats.timeouts += 1;
                true
            }
            None => false,
        }
    }

    pub fn queued(&self) -> usize {
        self.queue.len()
    }
}

// ---------------------------------------------------------------- patterns

/// The seeds' effective latency of a cache with hit ratio `h`: a hit costs
/// `l_hit`, a miss costs the cache round trip plus the source.
pub fn predicted_latency(h: f64, l_hit: f64, l_source: f64) -> f64 {
    h * l_hit + (1.0 - h) * (l_hit + l_source)
}

/// `base` spread uniformly by ±`frac` (0.2 = ±20 %): keys written together
/// then expire over a window instead of in the same instant.
pub fn jittered_ttl(base: Micros, frac: f64, rng: &mut fastrand::Rng) -> Micros {
    if frac <= 0.0 {
        return base;
    }
    let spread = base as f64 * frac;
    (base as f64 - spread + 2.0 * spread * rng.f64()).max(1.0) as Micros
}

/// XFetch (Vattani et al., VLDB 2015): refresh early when
/// `now − delta·beta·ln(u) ≥ expiry`, u uniform in (0, 1]. The closer the
/// expiry and the costlier the last recomputation (`delta`), the likelier.
pub fn xfetch_should_refresh(
    now: Micros,
    delta: Micros,
    expiry: Micros,
    beta: f64,
    rng: &mut fastrand::Rng,
) -> bool {
    let u = 1.0 - rng.f64(); // (0, 1], so ln(u) is finite and ≤ 0
    now as f64 - delta as f64 * beta * u.ln() >= expiry as f64
}

/// A cached value carrying what early-refresh patterns need: the recorded
/// recomputation time and one deadline (XFetch: the expiry; logical
/// expiry: fresh-until; refresh-ahead: refresh-at). Stored in Redis as
/// `value|delta|deadline`, so any client can read it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamped {
    pub value: String,
    pub delta: Micros,
    pub deadline: Micros,
}

impl Stamped {
    pub fn encode(&self) -> String {
        format!("{}|{}|{}", self.value, self.delta, self.deadline)
    }

    /// Reads `value|delta|deadline`; a plain value (no stamp) gives `None`.
    pub fn decode(s: &str) -> Option<Stamped> {
        let mut it = s.rsplitn(3, '|');
        let deadline = it.next()?.parse().ok()?;
        let delta = it.next()?.parse().ok()?;
        let value = it.next()?.to_string();
        Some(Stamped {
            value,
            delta,
            deadline,
        })
    }
}

/// Negative caching: the marker stored for "the source has no such row",
/// so repeated lookups of a missing id stop reaching the database.
pub const MISS_MARKER: &str = "\u{0}miss";

pub fn is_miss_marker(v: &str) -> bool {
    v == MISS_MARKER
}

/// A Bloom filter in front of the cache: ids it has never seen are
/// refused without touching Redis or the database (false positives
/// possible, false negatives not). `k` probes by double hashing.
#[derive(Clone, Debug)]
pub struct Bloom {
    bits: Vec<u64>,
    m: u64,
    k: u32,
}

impl Bloom {
    /// A filter sized for `n` items at false-positive rate `p`.
    pub fn new(n: usize, p: f64) -> Bloom {
        let n = n.max(1) as f64;
        let p = p.clamp(1e-9, 0.5);
        let m = (-(n * p.ln()) / (std::f64::consts::LN_2.powi(2)))
            .ceil()
            .max(64.0) as u64;
        let k = ((m as f64 / n) * std::f64::consts::LN_2)
            .round()
            .clamp(1.0, 16.0) as u32;
        Bloom {
            bits: vec![0; m.div_ceil(64) as usize],
            m,
            k,
        }
    }

    fn probes(&self, item: &str) -> impl Iterator<Item = u64> + '_ {
        let h1 = redsim_engine::keyspace::dict::hash_bytes(0x9e37_79b9, item.as_bytes());
        let h2 = redsim_engine::keyspace::dict::hash_bytes(0x7f4a_7c15, item.as_bytes()) | 1;
        (0..self.k as u64).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) % self.m)
    }

    pub fn add(&mut self, item: &str) {
        let probes: Vec<u64> = self.probes(item).collect();
        for b in probes {
            if let Some(w) = self.bits.get_mut((b / 64) as usize) {
                *w |= 1 << (b % 64);
            }
        }
    }

    pub fn might_contain(&self, item: &str) -> bool {
        self.probes(item).all(|b| {
            self.bits
                .get((b / 64) as usize)
                .is_some_and(|w| w & (1 << (b % 64)) != 0)
        })
    }
}

/// Which comes first when cache-aside writes: the database write or the
/// cache delete. Deleting first leaves a window where a reader reloads the
/// old row into the cache; writing first leaves a shorter one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOrder {
    DbThenDelete,
    DeleteThenDb,
}

/// One step of a write pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteStep {
    DbWrite,
    /// A Redis command.
    Cache(Vec<String>),
    /// Wait this long before the next step (delayed double delete).
    Sleep(Micros),
}

/// Cache-aside write of `key`: the two steps in the chosen order.
pub fn cache_aside_write(key: &str, order: WriteOrder) -> Vec<WriteStep> {
    let del = WriteStep::Cache(vec!["DEL".into(), key.to_string()]);
    match order {
        WriteOrder::DbThenDelete => vec![WriteStep::DbWrite, del],
        WriteOrder::DeleteThenDb => vec![del, WriteStep::DbWrite],
    }
}

/// Write-through: the database, then the new value into the cache.
pub fn write_through(key: &str, value: &str, ttl: Micros) -> Vec<WriteStep> {
    vec![
        WriteStep::DbWrite,
        WriteStep::Cache(vec![
            "SET".into(),
            key.to_string(),
            value.to_string(),
            "PX".into(),
            (ttl / MS).max(1).to_string(),
        ]),
    ]
}

/// Delayed double delete: delete, write the database, wait `delay` (longer
/// than a concurrent reader's load), delete again to evict what such a
/// reader may have put back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DoubleDelete {
    pub delay: Micros,
}

impl DoubleDelete {
    pub fn steps(&self, key: &str) -> Vec<WriteStep> {
        let del = || WriteStep::Cache(vec!["DEL".into(), key.to_string()]);
        vec![
            del(),
            WriteStep::DbWrite,
            WriteStep::Sleep(self.delay),
            del(),
        ]
    }
}

/// Versioned keys: readers build the key from the entity's version, so a
/// write needs no delete; old versions simply stop being read and expire.
pub fn versioned_key(base: &str, version: u64) -> String {
    format!("{base}:v{version}")
}

/// Write-behind: writes land in the cache and a dirty set at once; a
/// flusher writes the dirty keys to the database every `interval`. Later
/// writes to a dirty key overwrite it (the database sees only the last),
/// and whatever is dirty when the cache dies is lost.
#[derive(Clone, Debug, Default)]
pub struct WriteBehind {
    pub interval: Micros,
    dirty: BTreeMap<String, String>,
    pub coalesced: u64,
}

impl WriteBehind {
    pub fn new(interval: Micros) -> WriteBehind {
        WriteBehind {
            interval,
            ..WriteBehind::default()
        }
    }

    pub fn write(&mut self, key: &str, value: &str) {
        if self
            .dirty
            .insert(key.to_string(), value.to_string())
            .is_some()
        {
            self.coalesced += 1;
        }
    }

    /// The dirty set to write to the database now, emptied.
    pub fn flush(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.dirty).into_iter().collect()
    }

    pub fn dirty(&self) -> usize {
        self.dirty.len()
    }
}

/// A tier of a layered read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    L1,
    Redis,
    Source,
}

/// Read-through over two levels: the tiers to try in order, and where a
/// value found at tier `i` is written back (every tier before it).
pub fn read_through_order(with_l1: bool) -> &'static [Tier] {
    if with_l1 {
        &[Tier::L1, Tier::Redis, Tier::Source]
    } else {
        &[Tier::Redis, Tier::Source]
    }
}

/// Refresh-ahead: refresh once `refresh_frac` of the TTL has passed.
pub fn refresh_at(set_at: Micros, ttl: Micros, refresh_frac: f64) -> Micros {
    set_at + (ttl as f64 * refresh_frac.clamp(0.0, 1.0)) as Micros
}

/// The per-key rebuild lock: `SET lock:<key> <token> NX PX <ttl>`. The TTL
/// frees it if the holder dies; the token lets only the holder delete it.
pub fn rebuild_lock_args(key: &str, token: &str, ttl: Micros) -> Vec<String> {
    vec![
        "SET".into(),
        format!("lock:{key}"),
        token.to_string(),
        "NX".into(),
        "PX".into(),
        (ttl / MS).max(1).to_string(),
    ]
}

// ---------------------------------------------------------------- the world

/// What a pod does when a read misses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protection {
    /// Every miss loads from the database.
    None,
    /// The first miss takes `SET lock:k NX PX`; the others sleep and poll.
    Lock,
    /// Per-pod singleflight: one load per pod.
    Singleflight,
    /// Probabilistic early refresh while the key still lives.
    XFetch,
    /// No Redis TTL; a stale value is served while one refresher reloads it.
    LogicalExpiry,
    /// Refresh in the background once a fraction of the TTL has passed.
    RefreshAhead,
}

impl Protection {
    pub const NAMES: [&'static str; 6] = [
        "none",
        "lock",
        "singleflight",
        "xfetch",
        "logical-expiry",
        "refresh-ahead",
    ];
    pub const ALL: [Protection; 6] = [
        Protection::None,
        Protection::Lock,
        Protection::Singleflight,
        Protection::XFetch,
        Protection::LogicalExpiry,
        Protection::RefreshAhead,
    ];

    pub fn from_index(i: usize) -> Protection {
        Protection::ALL.get(i).copied().unwrap_or(Protection::None)
    }

    pub fn name(self) -> &'static str {
        Protection::ALL
            .iter()
            .position(|p| *p == self)
            .and_then(|i| Protection::NAMES.get(i))
            .copied()
            .unwrap_or("none")
    }

    /// Whether cached values carry a [`Stamped`] deadline.
    fn stamped(self) -> bool {
        matches!(
            self,
            Protection::XFetch | Protection::LogicalExpiry | Protection::RefreshAhead
        )
    }
}

/// Keys written into Redis before the load (a warm-up script).
#[derive(Clone, Debug)]
pub struct Warm {
    /// Keys `0..keys`.
    pub keys: u64,
    /// Written evenly over `[at, at + span)`.
    pub at: Micros,
    pub span: Micros,
    /// Their TTL (0 = none), jittered by `Config::ttl_jitter`.
    pub ttl: Micros,
}

/// A world's setup.
#[derive(Clone, Debug)]
pub struct Config {
    pub pods: usize,
    pub duration: Micros,
    /// Window of the rate and ratio series.
    pub window: Micros,
    /// One-way latency between a pod and Redis.
    pub net: Dist,
    pub db_read: Dist,
    pub db_write: Dist,
    pub db_limit: usize,
    /// False: no cache at all, every read goes to the database (a baseline).
    pub cache: bool,
    /// Per-pod L1: (capacity, TTL).
    pub l1: Option<(usize, Micros)>,
    pub ttl: Micros,
    pub ttl_jitter: f64,
    pub protection: Protection,
    pub beta: f64,
    pub lock_ttl: Micros,
    /// How long a pod that lost the rebuild lock sleeps before reading again.
    pub lock_sleep: Micros,
    /// Singleflight followers wait like a DoChan caller with this deadline
    /// and give up (an error) when it passes; the leader carries on.
    pub flight_deadline: Option<Micros>,
    pub refresh_frac: f64,
    /// Reply after the cache SET (true) or right after the database (false).
    pub set_before_reply: bool,
    pub write_order: WriteOrder,
    pub pool_size: usize,
    pub pool_timeout: Micros,
    pub loads: Vec<LoadGen>,
    pub warm: Option<Warm>,
    /// A second, empty Redis node takes over at this instant.
    pub failover_at: Option<Micros>,
    /// Record the diagram for requests of these pods (indexes) starting
    /// in `[diagram_from, diagram_from + diagram_span)`.
    pub diagram_from: Micros,
    pub diagram_span: Micros,
    pub diagram_pods: Vec<usize>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            pods: 4,
            duration: 1_000 * MS,
            window: 50 * MS,
            net: Dist::fixed(150),
            db_read: Dist::jittered(18 * MS, 4 * MS),
            db_write: Dist::jittered(18 * MS, 4 * MS),
            db_limit: 64,
            cache: true,
            l1: None,
            ttl: 60_000 * MS,
            ttl_jitter: 0.0,
            protection: Protection::None,
            beta: 1.0,
            lock_ttl: 500 * MS,
            lock_sleep: 20 * MS,
            flight_deadline: None,
            refresh_frac: 0.8,
            set_before_reply: false,
            write_order: WriteOrder::DbThenDelete,
            pool_size: 64,
            pool_timeout: 200 * MS,
            loads: Vec::new(),
            warm: None,
            failover_at: None,
            diagram_from: 0,
            diagram_span: 0,
            diagram_pods: Vec::new(),
        }
    }
}

/// What a world measured.
#[derive(Clone, Debug)]
pub struct Metrics {
    /// Client latency of reads, and of writes.
    pub reads: Latencies,
    pub writes: Latencies,
    /// Read outcomes per window (a hit: served without a database load).
    pub hits: Meter,
    /// GETs that found nothing, per window.
    pub misses: Meter,
    /// Database queries per window (booked).
    pub db: Meter,
    /// Redis commands per window.
    pub redis: Meter,
    /// Highest database concurrency seen per window.
    pub db_concurrency: BTreeMap<u64, usize>,
    pub stale_reads: u64,
    /// Longest time a read served a value after a newer one was committed.
    pub max_stale_age: Micros,
    pub lock_polls: u64,
    pub pool_timeouts: u64,
    pub background_refreshes: u64,
    pub l1_hits: u64,
    /// Reads served a stale value on purpose (logical expiry).
    pub served_stale: u64,
    /// Singleflight followers that gave up at their deadline.
    pub gave_up: u64,
    /// Requests that failed (pool timeouts), per window.
    pub errors: Meter,
    /// When the first database query was booked, and by which pod.
    pub first_db_at: Option<Micros>,
    pub first_db_pod: usize,
}

impl Metrics {
    fn new(window: Micros) -> Metrics {
        Metrics {
            reads: Latencies::default(),
            writes: Latencies::default(),
            hits: Meter::new(window),
            misses: Meter::new(window),
            db: Meter::new(window),
            redis: Meter::new(window),
            db_concurrency: BTreeMap::new(),
            stale_reads: 0,
            max_stale_age: 0,
            lock_polls: 0,
            pool_timeouts: 0,
            background_refreshes: 0,
            l1_hits: 0,
            served_stale: 0,
            gave_up: 0,
            errors: Meter::new(window),
            first_db_at: None,
            first_db_pod: 0,
        }
    }

    /// Hit ratio of reads, 0..=1.
    pub fn hit_ratio(&self) -> f64 {
        let t = self.hits.trials();
        if t == 0.0 {
            0.0
        } else {
            self.hits.total() / t
        }
    }

    /// Peak of a meter's per-second rate over its windows.
    pub fn peak_rate(m: &Meter, end: Micros) -> f64 {
        m.rate("", end)
            .points
            .iter()
            .map(|p| p.1)
            .fold(0.0, f64::max)
    }
}

/// A pod: an application instance with its own L1, singleflight group and pool.
#[derive(Clone, Debug)]
pub struct Pod {
    pub name: String,
    pub l1: Option<L1Cache>,
    pub group: SimGroup<ReqId>,
    pub pool: Pool<ReqId>,
}

pub type ReqId = u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    /// A background refresh (no client waits).
    Refresh,
    /// A fire-and-forget command.
    Detached,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Get,
    SetLock,
    Set,
    Del,
    Other,
}

#[derive(Clone, Debug)]
struct Req {
    pod: usize,
    key: String,
    kind: Kind,
    start: Micros,
    flight: Option<FlightId>,
    judged: bool,
    lock: bool,
    db_start: Micros,
    /// The value loaded or to write back.
    value: String,
    /// The command to send once a pool connection is free.
    pending: Option<(Step, Vec<String>)>,
    draw: bool,
}

/// The world's events.
#[derive(Clone, Debug)]
pub enum Ev {
    Arrive(usize),
    Warm(u64),
    AtRedis(ReqId, u8, Vec<String>),
    Reply(ReqId, u8, Frame),
    DbDone(ReqId),
    Retry(ReqId),
    /// A singleflight follower's own deadline.
    FlightDeadline(ReqId, FlightId),
    PoolTimeout(ReqId),
    Failover,
}

fn step_code(s: Step) -> u8 {
    s as u8
}

fn step_of(c: u8) -> Step {
    match c {
        0 => Step::Get,
        1 => Step::SetLock,
        2 => Step::Set,
        3 => Step::Del,
        _ => Step::Other,
    }
}

/// The assembled caching world.
pub struct World {
    pub cfg: Config,
    pub k: Kernel<Ev>,
    pub nodes: Vec<Redis>,
    pub active: usize,
    pub db: Database,
    pub pods: Vec<Pod>,
    pub m: Metrics,
    reqs: BTreeMap<ReqId, Req>,
    next_req: ReqId,
    /// Commit time of every version of every key (index = version − 1).
    commits: BTreeMap<String, Vec<Micros>>,
    /// Diagram lanes: per pod (if drawn), Redis, the database.
    lanes: Option<(Vec<Option<usize>>, usize, usize)>,
}

impl World {
    pub fn new(cfg: Config, seed: u64) -> World {
        let mut k = Kernel::new(seed);
        let mut nodes = vec![Redis::new(seed, &[])];
        if cfg.failover_at.is_some() {
            nodes.push(Redis::new(seed ^ 1, &[]));
        }
        let pods = (0..cfg.pods.max(1))
            .map(|i| Pod {
                name: format!("pod{}", i + 1),
                l1: cfg.l1.map(|(c, t)| L1Cache::new(c, t)),
                group: SimGroup::new(),
                pool: Pool::new(cfg.pool_size, cfg.pool_timeout),
            })
            .collect();
        for (i, l) in cfg.loads.iter().enumerate() {
            let first = l.from + l.gap(&mut k.rng);
            k.at(first, Ev::Arrive(i));
        }
        if let Some(w) = &cfg.warm {
            for i in 0..w.keys {
                k.at(w.at + w.span * i / w.keys.max(1), Ev::Warm(i));
            }
        }
        if let Some(t) = cfg.failover_at {
            k.at(t, Ev::Failover);
        }
        k.rec.step_cap = 120;
        let lanes = (!cfg.diagram_pods.is_empty()).then(|| {
            let mut p: Vec<Option<usize>> = vec![None; cfg.pods.max(1)];
            for &i in &cfg.diagram_pods {
                if let Some(slot) = p.get_mut(i) {
                    *slot = Some(k.rec.lane(&format!("pod{}", i + 1), "pod"));
                }
            }
            let r = k.rec.lane("redis", "redis");
            let d = k.rec.lane("db", "db");
            (p, r, d)
        });
        World {
            db: Database::new(cfg.db_read, cfg.db_write, cfg.db_limit),
            m: Metrics::new(cfg.window),
            cfg,
            k,
            nodes,
            active: 0,
            pods,
            reqs: BTreeMap::new(),
            next_req: 0,
            commits: BTreeMap::new(),
            lanes,
        }
    }

    /// Runs every event up to the configured duration.
    pub fn run(&mut self) {
        let end = self.cfg.duration;
        while let Some(ev) = self.k.next(end) {
            self.handle(ev);
        }
        self.k.finish_at(end);
    }

    pub fn metrics(&self) -> &Metrics {
        &self.m
    }

    /// Database reads and writes booked so far.
    pub fn db_queries(&self) -> u64 {
        self.db.queries
    }

    /// Requests still in progress (waiting for the database, a lock...).
    pub fn in_progress(&self) -> usize {
        self.reqs
            .values()
            .filter(|r| matches!(r.kind, Kind::Read | Kind::Write))
            .count()
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Arrive(i) => self.arrive(i),
            Ev::Warm(i) => self.warm(i),
            Ev::AtRedis(id, s, args) => self.at_redis(id, step_of(s), args),
            Ev::Reply(id, s, f) => self.on_reply(id, step_of(s), f),
            Ev::DbDone(id) => self.db_done(id),
            Ev::Retry(id) => self.send(id, Step::Get, vec!["GET".into(), self.key_of(id)]),
            Ev::FlightDeadline(id, f) => self.flight_deadline(id, f),
            Ev::PoolTimeout(id) => self.pool_timeout(id),
            Ev::Failover => {
                self.active = self.nodes.len().saturating_sub(1);
                if let Some((_, r, _)) = self.lanes {
                    let now = self.k.now();
                    self.k
                        .rec
                        .mark(now, r, "bad", "failover: an empty replica takes over");
                }
            }
        }
    }

    fn key_of(&self, id: ReqId) -> String {
        self.reqs
            .get(&id)
            .map(|r| r.key.clone())
            .unwrap_or_default()
    }

    fn version_value(&self, key: &str) -> (String, u64) {
        let v = self.db.get(key).map_or(0, |r| r.version);
        (format!("v{v}"), v)
    }

    /// The string stored in Redis for a freshly loaded `value`.
    fn cache_value(&self, value: &str, delta: Micros, ttl: Micros) -> String {
        let now = self.k.now();
        match self.cfg.protection {
            Protection::XFetch => Stamped {
                value: value.to_string(),
                delta,
                deadline: now + ttl,
            }
            .encode(),
            Protection::LogicalExpiry => Stamped {
                value: value.to_string(),
                delta,
                deadline: now + ttl,
            }
            .encode(),
            Protection::RefreshAhead => Stamped {
                value: value.to_string(),
                delta,
                deadline: refresh_at(now, ttl, self.cfg.refresh_frac),
            }
            .encode(),
            _ => value.to_string(),
        }
    }

    /// SET arguments storing `stored` for `key` with the configured TTL
    /// (none under logical expiry: the deadline lives in the value).
    fn set_args(&self, key: &str, stored: &str, ttl: Micros) -> Vec<String> {
        let mut a = vec!["SET".into(), key.to_string(), stored.to_string()];
        if self.cfg.protection != Protection::LogicalExpiry && ttl > 0 {
            a.push("PX".into());
            a.push((ttl / MS).max(1).to_string());
        }
        a
    }

    fn warm(&mut self, i: u64) {
        let Some(w) = self.cfg.warm.clone() else {
            return;
        };
        let key = key_name(i);
        let ttl = if w.ttl > 0 {
            jittered_ttl(w.ttl, self.cfg.ttl_jitter, &mut self.k.rng)
        } else {
            0
        };
        let (value, _) = self.version_value(&key);
        let delta = self.cfg.db_read.mean() as Micros;
        let stored = self.cache_value(&value, delta, ttl);
        let args = self.set_args(&key, &stored, ttl);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let now = self.k.now();
        if let Some(n) = self.nodes.get_mut(self.active) {
            n.exec(now, "warmup", &refs);
        }
    }

    fn new_req(&mut self, pod: usize, key: String, kind: Kind) -> ReqId {
        self.next_req += 1;
        let now = self.k.now();
        let draw = self
            .lanes
            .as_ref()
            .is_some_and(|(p, _, _)| p.get(pod).is_some_and(|l| l.is_some()))
            && now >= self.cfg.diagram_from
            && now < self.cfg.diagram_from + self.cfg.diagram_span;
        self.reqs.insert(
            self.next_req,
            Req {
                pod,
                key,
                kind,
                start: now,
                flight: None,
                judged: false,
                lock: false,
                db_start: 0,
                value: String::new(),
                pending: None,
                draw,
            },
        );
        self.next_req
    }

    fn arrive(&mut self, i: usize) {
        let now = self.k.now();
        let Some(load) = self.cfg.loads.get_mut(i) else {
            return;
        };
        if now >= load.until {
            return;
        }
        let op = load.op(&mut self.k.rng);
        let gap = load.gap(&mut self.k.rng);
        self.k.after(gap, Ev::Arrive(i));
        let pod = self.k.rng.usize(0..self.pods.len());
        if op.write {
            let id = self.new_req(pod, op.key, Kind::Write);
            self.start_write(id);
        } else {
            let id = self.new_req(pod, op.key, Kind::Read);
            self.start_read(id);
        }
    }

    fn start_read(&mut self, id: ReqId) {
        let Some(r) = self.reqs.get(&id) else { return };
        let (pod, key) = (r.pod, r.key.clone());
        if !self.cfg.cache {
            self.db_query(id, false);
            return;
        }
        let now = self.k.now();
        let l1 = self
            .pods
            .get_mut(pod)
            .and_then(|p| p.l1.as_mut())
            .and_then(|l| l.get(now, &key));
        if let Some(v) = l1 {
            self.m.l1_hits += 1;
            self.m.hits.trial(now, true);
            if let Some(r) = self.reqs.get_mut(&id) {
                r.judged = true;
            }
            self.finish_read(id, &v);
            return;
        }
        self.send(id, Step::Get, vec!["GET".into(), key]);
    }

    fn start_write(&mut self, id: ReqId) {
        let key = self.key_of(id);
        if let Some(p) = self.reqs.get(&id).and_then(|r| self.pods.get_mut(r.pod)) {
            if let Some(l) = p.l1.as_mut() {
                l.invalidate(&key);
            }
        }
        if self.cfg.cache && self.cfg.write_order == WriteOrder::DeleteThenDb {
            self.send(id, Step::Del, vec!["DEL".into(), key]);
        } else {
            self.db_query(id, true);
        }
    }

    /// Takes a pool connection for `id` and sends `args`, or queues.
    fn send(&mut self, id: ReqId, step: Step, args: Vec<String>) {
        let Some(r) = self.reqs.get_mut(&id) else {
            return;
        };
        let pod = r.pod;
        let Some(p) = self.pods.get_mut(pod) else {
            return;
        };
        if p.pool.acquire(id) {
            self.transmit(id, step, args);
        } else {
            r.pending = Some((step, args));
            let t = p.pool.timeout;
            self.k.after(t, Ev::PoolTimeout(id));
        }
    }

    fn transmit(&mut self, id: ReqId, step: Step, args: Vec<String>) {
        let now = self.k.now();
        let d = self.cfg.net.sample(&mut self.k.rng);
        self.draw_msg(id, now, now + d, true, args.join(" "));
        self.k.after(d, Ev::AtRedis(id, step_code(step), args));
    }

    fn pool_timeout(&mut self, id: ReqId) {
        let Some(r) = self.reqs.get(&id) else { return };
        let pod = r.pod;
        let timed_out = self.pods.get_mut(pod).is_some_and(|p| p.pool.time_out(&id));
        if timed_out {
            self.m.pool_timeouts += 1;
            self.m.errors.add(self.k.now(), 1.0);
            // The request fails: count it as served (an error) and drop it.
            let now = self.k.now();
            if let Some(r) = self.reqs.remove(&id) {
                if r.kind == Kind::Read {
                    self.m.reads.record(r.start, now - r.start);
                }
            }
        }
    }

    fn at_redis(&mut self, id: ReqId, step: Step, args: Vec<String>) {
        let now = self.k.now();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let who = self
            .reqs
            .get(&id)
            .and_then(|r| self.pods.get(r.pod))
            .map(|p| p.name.clone())
            .unwrap_or_default();
        let reply = match self.nodes.get_mut(self.active) {
            Some(n) => n.exec(now, &who, &refs),
            None => Frame::err("ERR no node"),
        };
        self.m.redis.add(now, 1.0);
        let d = self.cfg.net.sample(&mut self.k.rng);
        self.draw_msg(id, now, now + d, false, reply_text(&reply));
        self.k.after(d, Ev::Reply(id, step_code(step), reply));
    }

    fn on_reply(&mut self, id: ReqId, step: Step, f: Frame) {
        // Release the connection; the next waiter sends its command.
        if let Some(pod) = self.reqs.get(&id).map(|r| r.pod) {
            let next = self.pods.get_mut(pod).and_then(|p| p.pool.release());
            if let Some(w) = next {
                if let Some((s, a)) = self.reqs.get_mut(&w).and_then(|r| r.pending.take()) {
                    self.transmit(w, s, a);
                }
            }
        }
        let Some(kind) = self.reqs.get(&id).map(|r| r.kind) else {
            return;
        };
        match (kind, step) {
            (Kind::Detached, _) => {
                self.reqs.remove(&id);
            }
            (Kind::Read, Step::Get) => self.on_get(id, f),
            (Kind::Read | Kind::Refresh, Step::SetLock) => {
                if f.is_error() || matches!(f, Frame::Null | Frame::NullArray) {
                    if kind == Kind::Refresh {
                        // Someone else refreshes: this pod's flight ends.
                        self.end_refresh(id);
                    } else {
                        self.m.lock_polls += 1;
                        let s = self.cfg.lock_sleep;
                        let now = self.k.now();
                        self.draw_local(id, now, now + s, "lock taken: sleep, retry");
                        self.k.after(s, Ev::Retry(id));
                    }
                } else {
                    if let Some(r) = self.reqs.get_mut(&id) {
                        r.lock = true;
                    }
                    self.db_query(id, false);
                }
            }
            (Kind::Read | Kind::Refresh, Step::Set) => self.after_set(id),
            (Kind::Write, Step::Del) => {
                if self.cfg.write_order == WriteOrder::DeleteThenDb {
                    self.db_query(id, true);
                } else {
                    self.finish_write(id);
                }
            }
            _ => {}
        }
    }

    fn on_get(&mut self, id: ReqId, f: Frame) {
        let now = self.k.now();
        let first = self.reqs.get(&id).is_some_and(|r| !r.judged);
        if let Some(r) = self.reqs.get_mut(&id) {
            r.judged = true;
        }
        let value = match &f {
            Frame::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        };
        let Some(stored) = value else {
            self.m.misses.add(now, 1.0);
            if first {
                self.m.hits.trial(now, false);
            }
            self.on_miss(id);
            return;
        };
        if first {
            self.m.hits.trial(now, true);
        }
        let (key, pod) = match self.reqs.get(&id) {
            Some(r) => (r.key.clone(), r.pod),
            None => return,
        };
        let mut value = stored.clone();
        if self.cfg.protection.stamped() {
            if let Some(s) = Stamped::decode(&stored) {
                value = s.value.clone();
                let refresh = match self.cfg.protection {
                    Protection::XFetch => xfetch_should_refresh(
                        now,
                        s.delta,
                        s.deadline,
                        self.cfg.beta,
                        &mut self.k.rng,
                    ),
                    _ => now >= s.deadline,
                };
                if refresh && self.cfg.protection == Protection::LogicalExpiry {
                    self.m.served_stale += 1;
                }
                if refresh {
                    self.start_refresh(pod, &key);
                }
            }
        }
        if let Some(l) = self.pods.get_mut(pod).and_then(|p| p.l1.as_mut()) {
            l.put(now, &key, &value);
        }
        self.finish_read(id, &value);
    }

    fn on_miss(&mut self, id: ReqId) {
        let Some(r) = self.reqs.get(&id) else { return };
        let (pod, key) = (r.pod, r.key.clone());
        match self.cfg.protection {
            Protection::Lock => {
                let token = format!("t{id}");
                let args = rebuild_lock_args(&key, &token, self.cfg.lock_ttl);
                self.send(id, Step::SetLock, args);
            }
            Protection::Singleflight => {
                let j = match self.pods.get_mut(pod) {
                    Some(p) => p.group.join(&key, id),
                    None => return,
                };
                if let Some(r) = self.reqs.get_mut(&id) {
                    r.flight = Some(j.flight());
                }
                match j {
                    Joined::Leader(_) => self.db_query(id, false),
                    Joined::Follower(f) => {
                        let now = self.k.now();
                        self.draw_local(id, now, now, "joins the flight");
                        if let Some(d) = self.cfg.flight_deadline {
                            self.k.after(d, Ev::FlightDeadline(id, f));
                        }
                    }
                }
            }
            _ => self.db_query(id, false),
        }
    }

    /// A follower's deadline passed: if the flight has not landed it stops
    /// waiting and fails (DoChan's `ctx.Done()` branch).
    fn flight_deadline(&mut self, id: ReqId, f: FlightId) {
        let Some(pod) = self.reqs.get(&id).map(|r| r.pod) else {
            return;
        };
        let left = self
            .pods
            .get_mut(pod)
            .is_some_and(|p| p.group.abandon(f, &id));
        if left {
            let now = self.k.now();
            self.m.gave_up += 1;
            self.m.errors.add(now, 1.0);
            self.draw_local(id, now, now, "deadline: gives up");
            if let Some(r) = self.reqs.remove(&id) {
                self.m.reads.record(r.start, now - r.start);
            }
        }
    }

    /// A background refresh of `key` by `pod`, one at a time per pod (its
    /// singleflight group); logical expiry and refresh-ahead also take the
    /// rebuild lock so one pod in the fleet reloads.
    fn start_refresh(&mut self, pod: usize, key: &str) {
        let fkey = format!("refresh:{key}");
        if self.pods.get(pod).is_none_or(|p| p.group.in_flight(&fkey)) {
            return;
        }
        let id = self.new_req(pod, key.to_string(), Kind::Refresh);
        let j = match self.pods.get_mut(pod) {
            Some(p) => p.group.join(&fkey, id),
            None => return,
        };
        if let Some(r) = self.reqs.get_mut(&id) {
            r.flight = Some(j.flight());
        }
        self.m.background_refreshes += 1;
        if self.cfg.protection == Protection::XFetch {
            self.db_query(id, false);
        } else {
            let args = rebuild_lock_args(key, &format!("t{id}"), self.cfg.lock_ttl);
            self.send(id, Step::SetLock, args);
        }
    }

    fn end_refresh(&mut self, id: ReqId) {
        if let Some(r) = self.reqs.remove(&id) {
            if let (Some(f), Some(p)) = (r.flight, self.pods.get_mut(r.pod)) {
                p.group.finish(f, true);
            }
        }
    }

    fn db_query(&mut self, id: ReqId, write: bool) {
        let now = self.k.now();
        let (_, end) = self.db.reserve(now, write, &mut self.k.rng);
        self.m.db.add(now, 1.0);
        if self.m.first_db_at.is_none() {
            self.m.first_db_at = Some(now);
            self.m.first_db_pod = self.reqs.get(&id).map_or(0, |r| r.pod);
        }
        let c = self.db.concurrency(now);
        let w = now / self.cfg.window.max(1);
        let e = self.m.db_concurrency.entry(w).or_insert(0);
        *e = (*e).max(c);
        if let Some(r) = self.reqs.get_mut(&id) {
            r.db_start = now;
        }
        self.draw_db(id, now, end, if write { "UPDATE" } else { "SELECT" });
        self.k.at(end, Ev::DbDone(id));
    }

    fn db_done(&mut self, id: ReqId) {
        let now = self.k.now();
        let Some(r) = self.reqs.get(&id) else { return };
        let (kind, key, pod) = (r.kind, r.key.clone(), r.pod);
        if kind == Kind::Write {
            let v = self.db.put(&key, "x");
            let times = self.commits.entry(key.clone()).or_default();
            while times.len() < v as usize {
                times.push(now);
            }
            if self.cfg.cache && self.cfg.write_order == WriteOrder::DbThenDelete {
                self.send(id, Step::Del, vec!["DEL".into(), key]);
            } else {
                self.finish_write(id);
            }
            return;
        }
        // A read's load (its own, a flight's, or a refresh).
        let (value, _) = self.version_value(&key);
        let delta = now - r.db_start;
        if !self.cfg.cache {
            self.finish_read(id, &value);
            return;
        }
        let ttl = jittered_ttl(self.cfg.ttl, self.cfg.ttl_jitter, &mut self.k.rng);
        let stored = self.cache_value(&value, delta, ttl);
        let args = self.set_args(&key, &stored, ttl);
        if let Some(r) = self.reqs.get_mut(&id) {
            r.value = value.clone();
        }
        if let Some(l) = self.pods.get_mut(pod).and_then(|p| p.l1.as_mut()) {
            l.put(now, &key, &value);
        }
        let waits_for_set = kind == Kind::Refresh
            || self.cfg.set_before_reply
            || self
                .reqs
                .get(&id)
                .is_some_and(|r| r.flight.is_some() || r.lock);
        if waits_for_set {
            self.send(id, Step::Set, args);
        } else {
            let d = self.new_req(pod, key, Kind::Detached);
            self.send(d, Step::Other, args);
            self.finish_read(id, &value);
        }
    }

    fn after_set(&mut self, id: ReqId) {
        let Some(r) = self.reqs.get(&id) else { return };
        let (kind, pod, key, value, lock, flight) = (
            r.kind,
            r.pod,
            r.key.clone(),
            r.value.clone(),
            r.lock,
            r.flight,
        );
        if lock {
            let d = self.new_req(pod, key.clone(), Kind::Detached);
            self.send(d, Step::Other, vec!["DEL".into(), format!("lock:{key}")]);
        }
        if kind == Kind::Refresh {
            self.end_refresh(id);
            return;
        }
        if let (Some(f), Some(p)) = (flight, self.pods.get_mut(pod)) {
            let landed = p.group.finish(f, true);
            for w in landed.waiters {
                self.finish_read(w, &value);
            }
        }
        self.finish_read(id, &value);
    }

    fn finish_read(&mut self, id: ReqId, value: &str) {
        let now = self.k.now();
        let Some(r) = self.reqs.remove(&id) else {
            return;
        };
        self.m.reads.record(r.start, now - r.start);
        // Staleness: the value's version against what the database holds.
        let served: u64 = value.trim_start_matches('v').parse().unwrap_or(0);
        if let Some(times) = self.commits.get(&r.key) {
            if (served as usize) < times.len() {
                self.m.stale_reads += 1;
                if let Some(t) = times.get(served as usize) {
                    self.m.max_stale_age = self.m.max_stale_age.max(now.saturating_sub(*t));
                }
            }
        }
    }

    fn finish_write(&mut self, id: ReqId) {
        let now = self.k.now();
        if let Some(r) = self.reqs.remove(&id) {
            self.m.writes.record(r.start, now - r.start);
        }
    }

    // -------------------------------------------------------- diagram

    fn draw_msg(&mut self, id: ReqId, at: Micros, until: Micros, out: bool, label: String) {
        let Some((pods, redis, _)) = &self.lanes else {
            return;
        };
        let Some(r) = self.reqs.get(&id) else { return };
        if !r.draw {
            return;
        }
        let Some(&Some(p)) = pods.get(r.pod) else {
            return;
        };
        let redis = *redis;
        if out {
            self.k.rec.msg(at, until, p, redis, label);
        } else {
            self.k.rec.msg(at, until, redis, p, label);
        }
    }

    fn draw_db(&mut self, id: ReqId, at: Micros, until: Micros, what: &str) {
        let Some((pods, _, db)) = &self.lanes else {
            return;
        };
        let Some(r) = self.reqs.get(&id) else { return };
        if !r.draw {
            return;
        }
        let Some(&Some(p)) = pods.get(r.pod) else {
            return;
        };
        let db = *db;
        self.k
            .rec
            .msg(at, until, p, db, format!("{what} {}", r.key));
    }

    fn draw_local(&mut self, id: ReqId, at: Micros, until: Micros, what: &str) {
        let Some((pods, _, _)) = &self.lanes else {
            return;
        };
        let Some(r) = self.reqs.get(&id) else { return };
        if !r.draw {
            return;
        }
        let Some(&Some(p)) = pods.get(r.pod) else {
            return;
        };
        self.k.rec.local(at, until, p, what.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::SEC;

    #[test]
    fn the_seeds_latency_formula() {
        assert!((predicted_latency(0.9, 0.3, 20.0) - 2.3).abs() < 1e-9);
        assert!((predicted_latency(0.99, 0.3, 20.0) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn l1_expires_and_evicts_the_oldest() {
        let mut l = L1Cache::new(2, 100);
        l.put(0, "a", "1");
        l.put(0, "b", "2");
        l.put(10, "c", "3");
        assert_eq!(l.get(20, "a"), None, "evicted: the oldest insertion");
        assert_eq!(l.get(20, "b").as_deref(), Some("2"));
        assert_eq!(l.get(100, "b"), None, "expired");
        assert_eq!(l.len(), 2);
    }

    #[test]
    fn pools_queue_in_order_and_time_out() {
        let mut p: Pool<u32> = Pool::new(1, 10);
        assert!(p.acquire(1));
        assert!(!p.acquire(2));
        assert!(!p.acquire(3));
        assert!(p.time_out(&2));
        assert_eq!(
            p.release(),
            Some(3),
            "the connection passes to the next waiter"
        );
        assert!(!p.time_out(&3), "it was served");
        assert_eq!(p.release(), None);
        assert_eq!(p.in_use, 0);
        assert_eq!(p.stats.timeouts, 1);
    }

    #[test]
    fn stamped_values_round_trip_and_xfetch_refreshes_near_expiry() {
        let s = Stamped {
            value: "a|b".into(),
            delta: 40_000,
            deadline: 5 * SEC,
        };
        assert_eq!(Stamped::decode(&s.encode()), Some(s));
        assert_eq!(Stamped::decode("plain"), None);
        let mut rng = fastrand::Rng::with_seed(1);
        let early = (0..1000)
            .filter(|_| xfetch_should_refresh(0, 40_000, 5 * SEC, 1.0, &mut rng))
            .count();
        let late = (0..1000)
            .filter(|_| xfetch_should_refresh(5 * SEC - 10_000, 40_000, 5 * SEC, 1.0, &mut rng))
            .count();
        assert_eq!(early, 0, "5 s before expiry: e^-125");
        // P = e^(-10/40) ≈ 0.78.
        assert!((700..860).contains(&late), "{late}");
    }

    #[test]
    fn jitter_spreads_ttls_within_bounds() {
        let mut rng = fastrand::Rng::with_seed(3);
        let t: Vec<Micros> = (0..500)
            .map(|_| jittered_ttl(10 * SEC, 0.2, &mut rng))
            .collect();
        assert!(t.iter().all(|&x| (8 * SEC..=12 * SEC).contains(&x)));
        let (lo, hi) = (t.iter().min().unwrap(), t.iter().max().unwrap());
        assert!(hi - lo > 3 * SEC, "spread over most of ±20 %");
    }

    #[test]
    fn bloom_has_no_false_negatives_and_few_false_positives() {
        let mut b = Bloom::new(1000, 0.01);
        for i in 0..1000 {
            b.add(&key_name(i));
        }
        assert!((0..1000).all(|i| b.might_contain(&key_name(i))));
        let fp = (0..10_000)
            .filter(|i| b.might_contain(&format!("other{i}")))
            .count();
        assert!(fp < 300, "false positives {fp} of 10000");
    }

    #[test]
    fn write_patterns_in_order() {
        assert_eq!(
            cache_aside_write("k", WriteOrder::DeleteThenDb)[1],
            WriteStep::DbWrite
        );
        let s = DoubleDelete { delay: 500 }.steps("k");
        assert_eq!(s.len(), 4);
        assert_eq!(s[2], WriteStep::Sleep(500));
        let mut wb = WriteBehind::new(SEC);
        wb.write("a", "1");
        wb.write("a", "2");
        wb.write("b", "1");
        assert_eq!(wb.coalesced, 1);
        assert_eq!(
            wb.flush(),
            vec![("a".into(), "2".into()), ("b".into(), "1".into())]
        );
        assert_eq!(wb.dirty(), 0);
        assert_eq!(versioned_key("p:7", 12), "p:7:v12");
        assert_eq!(read_through_order(true)[0], Tier::L1);
        assert!(is_miss_marker(MISS_MARKER));
        assert_eq!(rebuild_lock_args("k", "t", 500 * MS)[5], "500");
    }

    #[test]
    fn a_small_world_reads_through_the_cache() {
        let cfg = Config {
            pods: 2,
            duration: 500 * MS,
            loads: vec![LoadGen::new(2000.0, KeyDist::Uniform(20), 1.0, 0, 500 * MS)],
            ..Config::default()
        };
        let mut w = World::new(cfg, 1);
        w.run();
        let m = w.metrics();
        assert!(m.reads.len() > 800);
        assert!(m.hit_ratio() > 0.9, "{}", m.hit_ratio());
        // Each of the 20 keys misses at least once; concurrent misses of one key add a few.
        assert!((20..120).contains(&w.db_queries()), "{}", w.db_queries());
    }
}
