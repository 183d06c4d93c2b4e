//! The speed benchmark: a Zipf(0.99) cache-aside trace replayed through the engine under allkeys-lru and allkeys-lfu, and through an exact-LRU baseline on hashbrown in the same run; prints requests/s, ratios and hit ratios.
//!
//! Run with `cargo bench -p redsim-engine --bench zipf` (10M requests over
//! 1M keys, a cache of 10%), or pass `--requests N --keys K` after `--`.
//! The trace is generated before any timing; each cache replays it once.
//! Throughput is reported against the baseline measured in the same
//! process, never as an absolute target.
//!
//! Times are this thread's CPU time where Linux reports it
//! (`/proc/thread-self/schedstat`), so other processes sharing the cores
//! do not count against the cache being measured; wall time elsewhere.

use std::time::Instant;

/// A stopwatch over thread CPU time when available, else wall time.
struct Watch {
    wall: Instant,
    cpu_ns: Option<u64>,
}

fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

impl Watch {
    fn start() -> Watch {
        Watch {
            wall: Instant::now(),
            cpu_ns: thread_cpu_ns(),
        }
    }

    /// Seconds since `start`: CPU seconds if both readings exist.
    fn secs(&self) -> f64 {
        match (self.cpu_ns, thread_cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e9,
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

use redsim_engine::sim::cacheaside::{engine_for, replay_lru, replay_zipf, zipf_trace, Workload};

fn arg(args: &[String], name: &str) -> Option<u64> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1)?.replace('_', "").parse().ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut w = Workload::default();
    if let Some(n) = arg(&args, "--requests") {
        w.requests = n as usize;
    }
    if let Some(k) = arg(&args, "--keys") {
        w.keys = k as u32;
    }
    let t = Instant::now();
    let trace = zipf_trace(&w);
    println!(
        "Zipf({}) cache-aside: {} requests over {} keys, cache {} keys ({}%), {}-byte values; trace made in {:.2} s",
        w.s,
        w.requests,
        w.keys,
        w.capacity(),
        w.capacity_pct,
        w.value_len,
        t.elapsed().as_secs_f64()
    );

    println!(
        "timing: {}",
        if thread_cpu_ns().is_some() {
            "thread CPU time"
        } else {
            "wall time"
        }
    );
    let t = Watch::start();
    let base = replay_lru(&trace, &w);
    let base_s = t.secs();
    let base_rps = w.requests as f64 / base_s;

    println!(
        "\n{:<22} {:>12} {:>10} {:>9} {:>10} {:>10}",
        "cache", "requests/s", "ns/req", "vs base", "hit ratio", "keys held"
    );
    let row = |name: &str, secs: f64, hits: f64, held: u64| {
        let rps = w.requests as f64 / secs;
        println!(
            "{name:<22} {rps:>12.0} {:>10.1} {:>8.3}x {:>9.2}% {held:>10}",
            secs * 1e9 / w.requests as f64,
            rps / base_rps,
            hits * 100.0
        );
    };
    row(
        "exact-LRU (hashbrown)",
        base_s,
        base.hit_ratio(),
        base.keys_held,
    );
    for policy in ["allkeys-lru", "allkeys-lfu"] {
        let (mut engine, client) = engine_for(&w, policy).expect("engine setup");
        let t = Watch::start();
        let r = replay_zipf(&mut engine, client, &trace, &w);
        let secs = t.secs();
        assert_eq!(r.errors, 0, "{policy}: error replies");
        row(
            &format!("engine {policy}"),
            secs,
            r.hit_ratio(),
            r.keys_held,
        );
    }
}
