//! Caching patterns as pure functions and small state: the seeds' latency formula, TTL jitter, XFetch, stamped values, negative caching, a Bloom filter, write orders, double delete, versioned keys, write-behind, read-through tiers, refresh-ahead and the rebuild lock.

use crate::kernel::{Micros, MS};
use std::collections::BTreeMap;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::SEC;
    use crate::world::key_name;

    #[test]
    fn the_seeds_latency_formula() {
        assert!((predicted_latency(0.9, 0.3, 20.0) - 2.3).abs() < 1e-9);
        assert!((predicted_latency(0.99, 0.3, 20.0) - 0.5).abs() < 1e-9);
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
}
