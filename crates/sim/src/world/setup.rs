//! How an assembled caching world is set up (pods, Redis, the database, the protection a miss uses, the load) and what it measures.

use super::load::LoadGen;
use super::patterns::WriteOrder;
use crate::kernel::{Dist, Latencies, Meter, Micros, MS};
use std::collections::BTreeMap;

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
    pub(super) fn stamped(self) -> bool {
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
    pub(super) fn new(window: Micros) -> Metrics {
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
