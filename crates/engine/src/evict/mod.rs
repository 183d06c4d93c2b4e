//! maxmemory eviction as Redis 7.2's evict.c does it: sampled candidates, a 16-entry pool kept across calls, eviction before the command that needs memory.
//!
//! Redis never finds the true least-recently-used key. For each eviction it
//! samples `maxmemory-samples` keys with `dictGetSomeKeys` (consecutive
//! buckets from a random start, so not uniform) from every database, merges
//! them into a pool of the 16 best candidates seen so far (best = highest
//! score: idle time for LRU, `255 - counter` for LFU, the nearest expiry for
//! volatile-ttl), and evicts the best one still present. Pool entries are not
//! re-scored; ghosts (keys deleted since) are skipped.
//!
//! Redis 8.6's `allkeys-lrm` / `volatile-lrm` are this same machinery
//! scored by the time of the last *write*: there is no 8.6 source in the
//! mirror, so this follows the feature's description (least recently
//! modified): under them the `lru` field takes the LRU clock on writes
//! only (`Server::lookup`, `Server::set_key`), reads leave it, and the pool
//! scores idle-since-write as LRU scores idle-since-access.
//!
//! `exact-lru` and `exact-lfu` are redsim's reference policies, not Redis':
//! they keep every key's true access order or access count
//! ([`ExactState`]) and evict the true minimum, to show what sampling costs.
//!
//! Redis caps the time one command spends evicting (`maxmemory-eviction-tenacity`)
//! and finishes in a timer. Here that time is modelled with
//! [`EVICT_COST_NS`] per key, and the remainder runs from `beforeSleep`.

pub mod pool;

pub use pool::{EvictResult, EvictState, Pool, EVICT_COST_NS, POOL_SIZE};

use crate::server::config::Policy;
use crate::server::trace::Event;
use crate::server::{lossy, Server};

/// `evictionTimeLimitUs`: 50 µs per tenacity step up to 10, then +15% per step.
pub fn time_limit_us(tenacity: u32) -> u64 {
    match tenacity {
        0..=10 => 50 * tenacity as u64,
        11..=99 => (500.0 * 1.15f64.powi(tenacity as i32 - 10)) as u64,
        _ => u64::MAX,
    }
}

fn uses_pool(p: Policy) -> bool {
    !matches!(
        p,
        Policy::AllKeysRandom
            | Policy::VolatileRandom
            | Policy::NoEviction
            | Policy::ExactLru
            | Policy::ExactLfu
    )
}

fn all_keys(p: Policy) -> bool {
    matches!(
        p,
        Policy::AllKeysLru
            | Policy::AllKeysLfu
            | Policy::AllKeysRandom
            | Policy::AllKeysLrm
            | Policy::ExactLru
            | Policy::ExactLfu
    )
}

/// The exact policies' choice: the front of the order, skipping keys
/// deleted since; keys never touched under the policy (it was switched on
/// with keys present) are taken at random once the order is exhausted.
fn exact_pick(srv: &mut Server) -> Option<(usize, Vec<u8>)> {
    while let Some((db, key)) = srv.evict.exact.pop() {
        if srv.dbs.get(db).is_some_and(|d| d.dict.contains(&key)) {
            return Some((db, key));
        }
    }
    let dbnum = srv.dbs.len();
    (0..dbnum).find_map(|j| {
        srv.dbs[j]
            .dict
            .random_entry(&mut srv.rng)
            .map(|(k, _)| (j, k.to_vec()))
    })
}

/// `estimateObjectIdleTime`, in milliseconds, with the 24-bit clock's wrap.
pub fn idle_ms(lruclock: u32, lru: u32) -> u64 {
    let ticks = if lruclock >= lru {
        (lruclock - lru) as u64
    } else {
        lruclock as u64 + (crate::keyspace::object::LRU_CLOCK_MAX - lru) as u64
    };
    ticks * crate::keyspace::object::LRU_CLOCK_RESOLUTION_MS
}

/// `evictionPoolPopulate`: samples one database and merges into the pool.
/// Each sampled key is scored where it lies and copied only if it enters
/// the pool (most candidates are worse than a full pool's worst).
fn populate(srv: &mut Server, dbid: usize) {
    let Server {
        dbs,
        rng,
        config,
        clock,
        lruclock,
        evict,
        trace,
        ..
    } = srv;
    let policy = config.maxmemory_policy;
    // The UI's view of one eviction: every sampled key with its score.
    let record = trace.enabled();
    // `maxmemory-samples` may be huge; `sample` caps it at the table size.
    let samples = config.maxmemory_samples as usize;
    let db = &dbs[dbid];
    let EvictState { pool, sampled, .. } = evict;
    let mut consider = |pool: &mut Pool, k: &[u8], idle: u64| {
        if record {
            sampled.push(crate::server::trace::Candidate {
                db: dbid as u32,
                key: lossy(k),
                score: idle,
            });
        }
        pool.insert(k, idle, dbid);
    };
    let score = |lru: u32| {
        if policy.is_lfu() {
            255 - crate::server::lfu_decayed_at(config, clock, lru) as u64
        } else {
            idle_ms(*lruclock, lru)
        }
    };
    if all_keys(policy) {
        // Scored from the dict's link records; a node (for its key) is
        // read only when the candidate enters the pool.
        db.dict.sample_aux(rng, samples, |slot, lru| {
            let idle = score(lru);
            if record || pool.enters(idle) {
                consider(pool, db.dict.key_at(slot), idle);
            }
        });
    } else {
        db.expires.sample(rng, samples, |k, &when| {
            let idle = match policy {
                Policy::VolatileTtl => u64::MAX - when as u64,
                _ => match db.dict.aux(k) {
                    Some(lru) => score(lru),
                    None => return,
                },
            };
            consider(pool, k, idle);
        });
    }
}

/// The pool's occupied slots, in order, for the trace.
fn pool_view(pool: &Pool) -> Vec<crate::server::trace::Candidate> {
    pool.iter()
        .map(|(db, key, score)| crate::server::trace::Candidate {
            db: db as u32,
            key: lossy(key),
            score,
        })
        .collect()
}

/// `performEvictions`: evicts until used memory is under `maxmemory`, the
/// time budget runs out, or nothing is left to evict.
pub fn perform_evictions(srv: &mut Server) -> EvictResult {
    let maxmemory = srv.config.maxmemory;
    // `replica-ignore-maxmemory`: a replica's memory follows its master's.
    let ignore = srv.repl.is_replica() && srv.config.replica_ignore_maxmemory;
    if maxmemory == 0 || ignore {
        srv.evict.proc_running = false;
        return EvictResult::Ok;
    }
    // `isSafeToPerformEvictions`: a CLIENT PAUSE holds eviction, as if the
    // memory were within the limit.
    if srv.paused_now() {
        return EvictResult::Ok;
    }
    let used = srv.used_memory();
    if used <= maxmemory {
        srv.evict.proc_running = false;
        return EvictResult::Ok;
    }
    let policy = srv.config.maxmemory_policy;
    if policy == Policy::NoEviction {
        return EvictResult::Fail;
    }
    let to_free = used - maxmemory;
    let limit_ns = time_limit_us(srv.config.maxmemory_eviction_tenacity).saturating_mul(1000);
    let mut freed: u64 = 0;
    let mut keys_freed: u64 = 0;
    let mut free_ns: u64 = 0;
    let dbnum = srv.dbs.len();
    srv.evict.proc_running = false;
    while freed < to_free {
        let mut best: Option<(usize, Vec<u8>)> = None;
        // What the UI shows of this eviction: the pool it picked from and
        // the keys sampled into it on the way.
        let mut pool_seen: Vec<crate::server::trace::Candidate> = Vec::new();
        srv.evict.sampled.clear();
        if policy.is_exact() {
            best = exact_pick(srv);
        } else if uses_pool(policy) {
            while best.is_none() {
                let mut total_keys = 0;
                for i in 0..dbnum {
                    let n = if all_keys(policy) {
                        srv.dbs[i].dict.len()
                    } else {
                        srv.dbs[i].expires.len()
                    };
                    if n != 0 {
                        populate(srv, i);
                        total_keys += n;
                    }
                }
                if total_keys == 0 {
                    break;
                }
                if srv.trace.enabled() {
                    pool_seen = pool_view(&srv.evict.pool);
                }
                for k in (0..POOL_SIZE).rev() {
                    let mut key = std::mem::take(&mut srv.evict.victim);
                    let Some(dbid) = srv.evict.pool.take(k, &mut key) else {
                        srv.evict.victim = key;
                        continue;
                    };
                    let present = if all_keys(policy) {
                        srv.dbs[dbid].dict.contains(&key)
                    } else {
                        srv.dbs[dbid].expires.contains(&key)
                    };
                    if present {
                        best = Some((dbid, key));
                        break;
                    }
                    srv.evict.victim = key;
                }
            }
        } else {
            for _ in 0..dbnum {
                srv.evict.next_db += 1;
                let j = srv.evict.next_db % dbnum;
                let db = &srv.dbs[j];
                let pick = if all_keys(policy) {
                    db.dict.random_entry(&mut srv.rng).map(|(k, _)| k.to_vec())
                } else {
                    db.expires
                        .random_entry(&mut srv.rng)
                        .map(|(k, _)| k.to_vec())
                };
                if let Some(k) = pick {
                    best = Some((j, k));
                    break;
                }
            }
        }
        let Some((dbid, key)) = best else {
            return EvictResult::Fail;
        };
        // Only this database and the lazy-free queue change while one key
        // is evicted, so their sum measures `mem_freed` without summing
        // every database's memory twice per key.
        let before = srv.dbs[dbid].memory() as u64 + srv.lazyfree_pending_bytes();
        let old = srv.dbs[dbid].remove(&key);
        if let Some(old) = &old {
            srv.blocking.signal_deleted(dbid, &key, &old.value);
        }
        srv.touch_key_by(dbid, &key, false);
        srv.stats.evicted_keys += 1;
        let lazy = srv.config.lazyfree_lazy_eviction;
        srv.repl.wire.deletion(dbid, &key, lazy);
        let sampled = std::mem::take(&mut srv.evict.sampled);
        srv.emit_with(|| Event::Evicted {
            db: dbid as u32,
            key: lossy(&key),
            policy: policy.name().to_string(),
            pool: pool_seen,
            sampled,
        });
        srv.notify(
            crate::server::keyspace_events::EVICTED,
            "evicted",
            &key,
            dbid,
        );
        // Freed as `lazyfree-lazy-eviction` says: a big value handed to the
        // background thread frees little now (`mem_freed` is measured).
        let lazy = srv.config.lazyfree_lazy_eviction;
        if let Some(old) = old {
            // `EVICT_COST_NS` covers a small value; a big one takes longer.
            let ns = srv.free_value(dbid, &key, old, lazy);
            free_ns += ns.saturating_sub(crate::lazyfree::FREE_COST_NS);
        }
        let after = srv.dbs[dbid].memory() as u64 + srv.lazyfree_pending_bytes();
        freed += before.saturating_sub(after);
        keys_freed += 1;
        // The name's buffer goes back for the next victim.
        srv.evict.victim = key;
        if keys_freed.is_multiple_of(16) {
            let spent_ns = keys_freed * EVICT_COST_NS + free_ns;
            if lazy {
                // The thread kept freeing meanwhile: stop once under the limit.
                let t = srv.clock.now_us() + spent_ns / 1000;
                srv.lazyfree_drain_until(t);
                if srv.used_memory() <= maxmemory {
                    break;
                }
            }
            if spent_ns > limit_ns {
                srv.evict.proc_running = true;
                break;
            }
        }
    }
    if srv.evict.proc_running {
        EvictResult::Running
    } else {
        EvictResult::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills an engine with `n` string keys written straight into the keyspace.
    fn fill(engine: &mut crate::Engine, n: usize, ttl: bool) {
        let srv = engine.server_mut();
        for i in 0..n {
            let key = key(i);
            let v = crate::keyspace::object::Value::String(
                crate::keyspace::object::RString::plain(vec![b'x'; 40]),
            );
            srv.set_key(0, &key, v, false);
            if ttl {
                let when = srv.now_ms() + 1_000_000 + i as i64;
                srv.set_expire(0, &key, when);
            }
        }
    }

    fn key(i: usize) -> Vec<u8> {
        format!("key:{i:05}").into_bytes()
    }

    /// Whether [`fill`]'s key `i` is still there.
    fn present(srv: &Server, i: usize) -> bool {
        srv.dbs[0].dict.contains(&key(i))
    }

    /// Reads key `i` as a client does, which touches its LRU/LFU field.
    fn get(e: &mut crate::Engine, c: crate::ClientId, i: usize) {
        e.execute(c, &[b"GET".to_vec(), key(i)]);
    }

    /// Sets maxmemory `below` bytes under what is used and runs a command,
    /// which evicts: how many keys went.
    fn squeeze(e: &mut crate::Engine, c: crate::ClientId, below: u64) -> usize {
        let srv = e.server_mut();
        srv.config.maxmemory = srv.used_memory() - below;
        e.execute(c, &[b"PING".to_vec()]);
        e.server().stats.evicted_keys as usize
    }

    /// An engine holding `n` keys (with TTLs if `ttl`), then put under
    /// `policy` with maxmemory at what they use: the next write has to evict.
    fn full(seed: u64, n: usize, ttl: bool, policy: &str) -> (crate::Engine, crate::ClientId) {
        let mut e = crate::Engine::new(seed);
        let c = e.connect("t");
        fill(&mut e, n, ttl);
        let used = e.server().used_memory();
        limit(&mut e, policy, used);
        (e, c)
    }

    /// An engine under `policy` holding `n` keys without a memory limit yet,
    /// for tests that read keys before they [`squeeze`].
    fn unlimited(seed: u64, n: usize, policy: &str) -> (crate::Engine, crate::ClientId) {
        let mut e = crate::Engine::new(seed);
        let c = e.connect("t");
        limit(&mut e, policy, 0);
        fill(&mut e, n, false);
        (e, c)
    }

    fn limit(engine: &mut crate::Engine, policy: &str, maxmemory: u64) {
        let srv = engine.server_mut();
        srv.config.maxmemory = maxmemory;
        srv.config.set_initial("maxmemory-policy", policy).unwrap();
    }

    #[test]
    fn approximated_lru_keeps_recently_used_keys() {
        let (mut e, c) = full(11, 2000, false, "allkeys-lru");
        e.advance_by(100_000_000);
        // Touch the first half: their LRU field moves 100 s ahead.
        for i in 0..1000 {
            get(&mut e, c, i);
        }
        e.server_mut().config.maxmemory -= 60_000;
        e.execute(c, &[b"PING".to_vec()]);
        // One command may only spend 500 µs evicting (tenacity 10); the rest
        // happens before the event loop sleeps.
        assert!(e.server().evict.proc_running);
        assert!(e.server().used_memory() > e.server().config.maxmemory);
        while e.server().evict.proc_running {
            e.before_sleep();
        }
        let srv = e.server();
        assert!(srv.used_memory() <= srv.config.maxmemory);
        assert!(
            srv.stats.evicted_keys > 300,
            "evicted {}",
            srv.stats.evicted_keys
        );
        let survivors = |r: std::ops::Range<usize>| r.filter(|i| present(srv, *i)).count();
        // Sampling only approximates LRU, but touched keys must survive far more.
        assert!(
            survivors(0..1000) > 990,
            "touched survivors {}",
            survivors(0..1000)
        );
        assert!(survivors(1000..2000) < 800);
    }

    #[test]
    fn noeviction_and_volatile_without_ttl_refuse_writes() {
        for policy in [
            "noeviction",
            "volatile-lru",
            "volatile-ttl",
            "volatile-random",
        ] {
            let (mut e, c) = full(3, 100, false, policy);
            e.server_mut().config.maxmemory -= 1;
            let r = e.execute(c, &[b"GET".to_vec(), b"key:00001".to_vec()]);
            assert!(!r.is_error(), "{policy}: reads still work");
            assert_eq!(e.server().stats.evicted_keys, 0, "{policy}");
        }
    }

    #[test]
    fn volatile_ttl_evicts_the_nearest_expiry_first() {
        let (mut e, c) = full(5, 500, true, "volatile-ttl");
        e.server_mut().config.maxmemory -= 20_000;
        e.execute(c, &[b"PING".to_vec()]);
        e.before_sleep();
        let srv = e.server();
        let evicted = srv.stats.evicted_keys as usize;
        assert!(evicted > 50);
        let gone_early = (0..evicted).filter(|i| !present(srv, *i)).count();
        // Keys expiring soonest are the lowest-numbered ones. Sampling makes
        // the choice approximate, but far better than random, which would
        // hit evicted/500 of them.
        assert!(
            gone_early * 500 > 2 * evicted * evicted,
            "{gone_early} of {evicted}"
        );
    }

    #[test]
    fn exact_lru_evicts_exactly_the_least_recently_used() {
        let (mut e, c) = unlimited(9, 200, "exact-lru");
        // Read every key in reverse: key:00199 is now the least recent.
        for i in (0..200).rev() {
            get(&mut e, c, i);
        }
        let evicted = squeeze(&mut e, c, 1_000);
        assert!(evicted > 5);
        let srv = e.server();
        for i in 0..200 {
            assert_eq!(
                present(srv, i),
                i < 200 - evicted,
                "key {i}, {evicted} evicted"
            );
        }
    }

    #[test]
    fn exact_lfu_evicts_the_fewest_accesses_and_lrm_ignores_reads() {
        let (mut e, c) = unlimited(9, 100, "exact-lfu");
        // Key i gets i reads.
        for i in 0..100 {
            for _ in 0..i {
                get(&mut e, c, i);
            }
        }
        let evicted = squeeze(&mut e, c, 1_000);
        assert!(evicted > 5);
        let srv = e.server();
        let gone: Vec<usize> = (0..100).filter(|i| !present(srv, *i)).collect();
        assert_eq!(gone, (0..evicted).collect::<Vec<_>>());

        // LRM: the written-earlier half goes first even though it was read later.
        let (mut e, c) = unlimited(9, 400, "allkeys-lrm");
        e.advance_by(100_000_000);
        for i in 200..400 {
            e.execute(c, &[b"SET".to_vec(), key(i), b"y".repeat(40)]);
        }
        e.advance_by(100_000_000);
        for i in 0..200 {
            get(&mut e, c, i);
        }
        squeeze(&mut e, c, 8_000);
        while e.server().evict.proc_running {
            e.before_sleep();
        }
        let srv = e.server();
        let alive = |r: std::ops::Range<usize>| r.filter(|i| present(srv, *i)).count();
        assert!(srv.stats.evicted_keys > 50);
        assert_eq!(alive(200..400), 200, "recently written keys survive");
    }

    #[test]
    fn tenacity_limits() {
        assert_eq!(time_limit_us(10), 500);
        assert_eq!(time_limit_us(0), 0);
        assert_eq!(time_limit_us(100), u64::MAX);
        assert!(time_limit_us(99) > 100_000_000);
    }

    #[test]
    fn the_trace_shows_the_pool_and_the_samples_behind_each_eviction() {
        let mut e = crate::Engine::new(3);
        let c = e.connect("t");
        e.execute_line(c, "CONFIG SET maxmemory-policy allkeys-lru");
        for i in 0..200 {
            e.execute_line(c, &format!("SET k{i} {}", "v".repeat(50)));
            e.advance_by(1_000_000);
        }
        let info = e.execute_line(c, "INFO memory");
        let crate::Frame::Verbatim(_, text) = info else {
            panic!()
        };
        let text = String::from_utf8_lossy(&text).into_owned();
        let used: u64 = text
            .lines()
            .find_map(|l| l.strip_prefix("used_memory:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap();
        e.execute_line(c, &format!("CONFIG SET maxmemory {}", used - 500));
        e.execute_line(c, "SET trigger x");
        let evictions: Vec<_> = e
            .trace()
            .events()
            .filter_map(|ev| match &ev.event {
                crate::server::trace::Event::Evicted {
                    key, pool, sampled, ..
                } => Some((key.clone(), pool.clone(), sampled.clone())),
                _ => None,
            })
            .collect();
        assert!(!evictions.is_empty());
        for (key, pool, sampled) in &evictions {
            assert!(
                sampled.len() >= 5,
                "5 samples per round, got {}",
                sampled.len()
            );
            assert!(pool.len() <= POOL_SIZE);
            assert!(
                pool.windows(2).all(|w| w[0].score <= w[1].score),
                "sorted pool"
            );
            assert!(
                pool.iter().any(|p| &p.key == key),
                "the victim came from the pool"
            );
        }
    }
}
