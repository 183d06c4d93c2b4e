//! Eviction against a real redis-server: the same seeded Zipf(0.99) cache-aside trace through both, with maxmemory sized so each holds about the same number of keys, and hit ratios compared per policy.
//!
//! The trace: 50,000 requests over 20,000 keys; each request GETs its key
//! and SETs it (a 200-byte value, with EX for volatile-ttl) on a miss.
//! Requests go in pipelined batches of 100 GETs, then the SETs for that
//! batch's misses: the same protocol for both servers, so both see the
//! same order of reads and writes.
//!
//! Calibration uses each server's own `used_memory`: with maxmemory off,
//! fill `CAPACITY` keys of the trace's shape, read the growth, FLUSHALL,
//! and set maxmemory to the empty server's figure plus that growth. The
//! capacity stays under 4,096 keys so neither main table doubles near the
//! limit. Hit ratios must agree within 2 percentage points.
//!
//! Both servers' LRU clocks tick once per second of wall time, so over a
//! trace this short many keys share an idle time; that is part of what is
//! compared (redsim's server clock follows the wall clock, as Redis' does).
//!
//! The same trace then runs on redsim's engine alone, in virtual time
//! ([`MS_PER_REQUEST`] per request, so the one-second LRU clock ticks every
//! hundred requests and recency means something), under the sampled
//! policies, `exact-lru` and `exact-lfu` (redsim-only reference policies)
//! and Redis 8.6's `allkeys-lrm`, to show what the sampled approximation
//! costs. On the wall clock those comparisons would depend on how fast the
//! machine runs the trace.

use redsim_engine::{Engine, Frame};
use redsim_tests::{encode_request, used_memory, Conn, RedisServer, RedsimServer};

const KEYS: usize = 20_000;
const REQUESTS: usize = 50_000;
const CAPACITY: usize = 3_500;
const BATCH: usize = 100;
const VALUE_LEN: usize = 200;
/// Virtual time per request in the engine-only runs.
const MS_PER_REQUEST: u64 = 10;

/// The Zipf(0.99) key sequence, from a seeded generator (inverse CDF).
fn zipf_trace(seed: u64) -> Vec<usize> {
    let weights: Vec<f64> = (1..=KEYS).map(|r| 1.0 / (r as f64).powf(0.99)).collect();
    let total: f64 = weights.iter().sum();
    let mut cdf = Vec::with_capacity(KEYS);
    let mut acc = 0.0;
    for w in weights {
        acc += w / total;
        cdf.push(acc);
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..REQUESTS)
        .map(|_| {
            let u = rng.f64();
            cdf.partition_point(|&c| c < u).min(KEYS - 1)
        })
        .collect()
}

/// SETs of keys `keys`, pipelined, each reply checked.
fn set_keys(c: &mut Conn, keys: &[usize], ttl: bool) {
    let value = vec![b'v'; VALUE_LEN];
    for chunk in keys.chunks(BATCH) {
        let mut buf = Vec::new();
        for &k in chunk {
            let key = format!("key:{k}");
            if ttl {
                buf.extend(encode_request(&[
                    b"SET",
                    key.as_bytes(),
                    &value,
                    b"EX",
                    b"3600",
                ]));
            } else {
                buf.extend(encode_request(&[b"SET", key.as_bytes(), &value]));
            }
        }
        c.send_raw(&buf);
        for _ in chunk {
            let r = c.read_frame().expect("reply");
            assert_eq!(r, Frame::ok());
        }
    }
}

/// Runs the trace under `policy`; returns (hit ratio, keys held at the end).
fn run(c: &mut Conn, policy: &str, trace: &[usize]) -> (f64, i64) {
    let ttl = policy == "volatile-ttl";
    assert_eq!(c.cmd(&["CONFIG", "SET", "maxmemory", "0"]), Frame::ok());
    assert_eq!(c.cmd(&["FLUSHALL"]), Frame::ok());
    let empty = used_memory(c);
    let fill: Vec<usize> = (KEYS..KEYS + CAPACITY).collect();
    set_keys(c, &fill, ttl);
    let full = used_memory(c);
    assert_eq!(c.cmd(&["FLUSHALL"]), Frame::ok());
    let limit = used_memory(c) + (full - empty);
    let ok = c.cmd(&["CONFIG", "SET", "maxmemory-policy", policy]);
    assert_eq!(ok, Frame::ok());
    let ok = c.cmd(&["CONFIG", "SET", "maxmemory", &limit.to_string()]);
    assert_eq!(ok, Frame::ok());
    let mut hits = 0usize;
    for batch in trace.chunks(BATCH) {
        let mut buf = Vec::new();
        for &k in batch {
            buf.extend(encode_request(&[b"GET", format!("key:{k}").as_bytes()]));
        }
        c.send_raw(&buf);
        let mut misses = Vec::new();
        for &k in batch {
            match c.read_frame().expect("reply") {
                Frame::Bulk(_) => hits += 1,
                Frame::Null => misses.push(k),
                other => panic!("GET answered {other:?}"),
            }
        }
        set_keys(c, &misses, ttl);
    }
    let Frame::Integer(held) = c.cmd(&["DBSIZE"]) else {
        panic!("DBSIZE answers an integer");
    };
    (hits as f64 / trace.len() as f64, held)
}

/// The same protocol on an in-process engine in virtual time: each batch
/// starts `BATCH * MS_PER_REQUEST` after the previous one, and the event
/// loop's `before_sleep` runs after its GETs and after its SETs.
fn run_virtual(policy: &str, trace: &[usize]) -> (f64, usize) {
    let mut e = Engine::new(7);
    let c = e.connect("bench");
    let set = |e: &mut Engine, k: usize| {
        let args = [
            b"SET".to_vec(),
            format!("key:{k}").into_bytes(),
            vec![b'v'; VALUE_LEN],
        ];
        assert_eq!(e.execute(c, &args), Frame::ok());
    };
    let empty = e.used_memory();
    for k in KEYS..KEYS + CAPACITY {
        set(&mut e, k);
    }
    let full = e.used_memory();
    assert_eq!(e.execute_line(c, "FLUSHALL"), Frame::ok());
    let limit = e.used_memory() + (full - empty);
    let ok = e.execute_line(c, &format!("CONFIG SET maxmemory-policy {policy}"));
    assert_eq!(ok, Frame::ok());
    let ok = e.execute_line(c, &format!("CONFIG SET maxmemory {limit}"));
    assert_eq!(ok, Frame::ok());
    let mut hits = 0;
    for (b, batch) in trace.chunks(BATCH).enumerate() {
        let now = e.now_us();
        e.advance_to(now.max(b as u64 * (BATCH as u64) * MS_PER_REQUEST * 1000));
        let mut misses = Vec::new();
        for &k in batch {
            let args = [b"GET".to_vec(), format!("key:{k}").into_bytes()];
            match e.execute(c, &args) {
                Frame::Bulk(_) => hits += 1,
                Frame::Null => misses.push(k),
                other => panic!("GET answered {other:?}"),
            }
        }
        e.before_sleep();
        for k in misses {
            set(&mut e, k);
        }
        e.before_sleep();
    }
    (hits as f64 / trace.len() as f64, e.dbsize(0))
}

#[test]
fn hit_ratios_match_redis_per_policy() {
    let trace = zipf_trace(2024);
    let redis = RedisServer::start(&[]);
    let sim = RedsimServer::start(&[]);
    let (mut r, mut m) = (redis.conn(), sim.conn());
    let mut lines = vec![format!(
        "{:<16} {:>8} {:>8} {:>7}   {:>6} {:>6}",
        "policy", "redis", "redsim", "gap pp", "keys R", "keys S"
    )];
    let mut failures = Vec::new();
    for policy in [
        "allkeys-lru",
        "allkeys-lfu",
        "allkeys-random",
        "volatile-ttl",
    ] {
        let (hr, kr) = run(&mut r, policy, &trace);
        let (hs, ks) = run(&mut m, policy, &trace);
        let gap = (hs - hr) * 100.0;
        lines.push(format!(
            "{policy:<16} {:>7.2}% {:>7.2}% {gap:>+7.2}   {kr:>6} {ks:>6}",
            hr * 100.0,
            hs * 100.0
        ));
        if gap.abs() > 2.0 {
            failures.push(format!("{policy}: {gap:+.2} percentage points"));
        }
        // Both must actually have been evicting at about the same size.
        let (kr, ks) = (kr as f64, ks as f64);
        assert!(
            (kr - ks).abs() / kr < 0.05,
            "{policy}: {kr} vs {ks} keys held"
        );
    }
    // What sampling costs: redsim's exact reference policies and Redis
    // 8.6's LRM (by last write; under cache-aside a key is written once,
    // so it behaves like FIFO) on the same trace, in virtual time.
    let mut sim_ratio = std::collections::HashMap::new();
    for policy in [
        "allkeys-lru",
        "allkeys-lfu",
        "exact-lru",
        "exact-lfu",
        "allkeys-lrm",
    ] {
        let (h, k) = run_virtual(policy, &trace);
        sim_ratio.insert(policy, h);
        lines.push(format!(
            "{policy:<16} {:>8} {:>7.2}% {:>7}   {:>6} {k:>6}",
            "-",
            h * 100.0,
            "",
            ""
        ));
    }
    println!("{}", lines.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Knowing the true order can only help on a stationary Zipf trace.
    assert!(sim_ratio["exact-lfu"] >= sim_ratio["allkeys-lfu"] - 0.005);
    assert!(sim_ratio["exact-lru"] >= sim_ratio["allkeys-lru"] - 0.005);
    // Ignoring reads loses the hot set's protection.
    assert!(sim_ratio["allkeys-lrm"] < sim_ratio["allkeys-lru"]);
}
