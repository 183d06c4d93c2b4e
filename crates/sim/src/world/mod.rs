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

mod assembled;
mod load;
mod patterns;
mod pod;
mod setup;
pub mod singleflight;

pub use assembled::{Ev, Pod, ReqId, World};
pub use load::{key_name, KeyDist, LoadGen, Op};
pub use patterns::{
    cache_aside_write, is_miss_marker, jittered_ttl, predicted_latency, read_through_order,
    rebuild_lock_args, refresh_at, versioned_key, write_through, xfetch_should_refresh, Bloom,
    DoubleDelete, Stamped, Tier, WriteBehind, WriteOrder, WriteStep, MISS_MARKER,
};
pub use pod::{L1Cache, Pool, PoolStats};
pub use setup::{Config, Metrics, Protection, Warm};
