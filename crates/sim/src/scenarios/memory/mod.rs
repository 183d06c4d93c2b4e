//! Memory and eviction lessons: how Redis' approximated LRU compares with true LRU, LRU against LFU under a scan, volatile-* policies running out of candidates, DEL against UNLINK on a big hash, big keys read whole against split into parts, TTL avalanches with and without jitter, the lessons' quoted figures measured, and the cost of serialising an object three ways.
//!
//! Every scenario drives real engines with real `CONFIG SET maxmemory`,
//! `maxmemory-policy` and `maxmemory-samples`: eviction, expiry and the
//! OOM error come from the engine (evict.rs, expire.rs), never from here,
//! and sizes come from its MEMORY USAGE. The scenarios only choose the
//! workload and read what happened.

mod big_keys;
mod del_unlink;
mod expiry;
mod lru;
mod oom;
mod seed_numbers;
mod serialization;

pub use big_keys::BIG_KEYS;
pub use del_unlink::DEL_VS_UNLINK;
pub use expiry::EXPIRY_AVALANCHE;
pub use lru::{LRU_APPROXIMATION, LRU_VS_LFU_SCAN};
pub use oom::VOLATILE_OOM;
pub use seed_numbers::SEED_NUMBERS;
pub use serialization::SERIALIZATION_COST;

use crate::kernel::Redis;
use redsim_engine::proto::resp::Frame;

/// The error Redis 7.2 gives a `denyoom` command it cannot make room for.
pub const OOM_ERROR: &str = "OOM command not allowed when used memory > 'maxmemory'.";

/// `maxmemory` that holds about `n` keys written by `write` on a fresh
/// engine: measured, not guessed, so it follows the engine's per-key
/// accounting (key, value, dict entry, bucket array) whatever it is.
fn maxmemory_for(seed: u64, n: usize, mut write: impl FnMut(&mut Redis, usize)) -> u64 {
    let mut r = Redis::new(seed, &[]);
    for i in 0..n {
        write(&mut r, i);
    }
    // Every fresh engine starts from the same baseline, so what this one
    // uses with n keys is the limit another one reaches with n keys.
    r.engine().used_memory()
}

fn int_reply(f: &Frame) -> i64 {
    match f {
        Frame::Integer(n) => *n,
        _ => -1,
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}
