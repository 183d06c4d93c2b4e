//! Caching lessons under load: hit rate and latency, when a cache hurts, stampede protections, avalanche and its other causes, warming, a hot key behind an L1, L1 caches kept fresh by Pub/Sub invalidations, client-side caching with CLIENT TRACKING, connection-pool exhaustion, blocking commands and retried INCRs, pipelining, and a Redis outage.
//!
//! Hit rate, stampede, avalanche and the hot key run the [`World`] (pods,
//! pools, Redis nodes, a database). The connection-pool scenario has its own
//! small loop because it needs blocking commands (`submit`/`take_unblocked`)
//! and a stalled reply path; pipelining times batches on a link by itself.
//! The outage, avalanche-cause and warm-up lessons share `service`, a
//! smaller cache-aside loop in which Redis can be unreachable, the key
//! prefix can change, an import can push the node through maxmemory and a
//! warmer can load the hot set. Comparisons (with and without a protection,
//! a baseline without cache) run inside one outcome with the same seed.

mod avalanche_causes;
mod client_tracking;
mod hit_rate;
mod hot_key;
mod l1_invalidation;
mod outage;
mod pipelining;
mod pool;
mod service;
mod stampede;
mod warming;

pub use avalanche_causes::AVALANCHE_CAUSES;
pub use client_tracking::CLIENT_SIDE_CACHING;
pub use hit_rate::{CACHE_HURTS, HIT_RATE_LATENCY};
pub use hot_key::HOT_KEY_L1;
pub use l1_invalidation::L1_PUBSUB_INVALIDATION;
pub use outage::REDIS_OUTAGE;
pub use pipelining::PIPELINING;
pub use pool::CONNECTION_POOL;
pub use stampede::{AVALANCHE, STAMPEDE};
pub use warming::CACHE_WARMING;

use crate::kernel::{Dist, Micros, MS};
use crate::outcome::Series;
use crate::world::{Config, Metrics, World};

fn ms(us: f64) -> f64 {
    us / MS as f64
}

fn us(ms: f64) -> Micros {
    (ms * MS as f64).max(0.0).round() as Micros
}

/// A database latency with mean `mean` (±20 % uniform jitter).
fn db_dist(mean: Micros) -> Dist {
    let jitter = mean / 5;
    Dist::jittered(mean - jitter / 2, jitter)
}

fn run_world(cfg: Config, seed: u64) -> World {
    let mut w = World::new(cfg, seed);
    w.run();
    w
}

fn db_qps(m: &Metrics, name: &str, end: Micros) -> Series {
    m.db.rate(name, end)
}

/// Every claim holds for seeds 1..=3, and each run has charts and notes.
#[cfg(test)]
fn all_pass(id: &str, set: &[(&str, &str)]) {
    for o in crate::testing::all_pass(id, set) {
        assert!(!o.charts.is_empty() && !o.notes.is_empty(), "{id} {set:?}");
    }
}
