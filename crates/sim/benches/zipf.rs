//! The speed benchmark: a Zipf(0.99) cache-aside trace replayed through the engine under allkeys-lru and allkeys-lfu, and through an exact-LRU baseline on hashbrown in the same run; prints requests/s, ratios and hit ratios.
//!
//! Run with `cargo bench -p redsim-engine --bench zipf` (10M requests over
//! 1M keys, a cache of 10%), or pass `--requests N --keys K --cache-pct P`
//! after `--` (`--only POLICY` to replay through one policy alone, `--rounds R` for
//! the number of interleaved rounds, 3 by default; each row reports its
//! fastest round).
//! The trace is generated before any timing; the caches take turns
//! replaying it (`sim::cacheaside::measure`), and each row is a cache's
//! fastest round.
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

use redsim_sim::cacheaside::{measure, Workload};

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
    // `--cache-pct 100` holds every key: after warm-up every GET hits, which
    // isolates the per-command cost from eviction's.
    if let Some(p) = arg(&args, "--cache-pct") {
        w.capacity_pct = p.clamp(1, 100) as f64;
    }
    // `--only allkeys-lfu` (any policy name) replays through that one alone,
    // for profiling.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    let policies: Vec<&str> = match only {
        Some(p) => vec![p.as_str()],
        None => vec!["allkeys-lru", "allkeys-lfu"],
    };
    let rounds = arg(&args, "--rounds").unwrap_or(3).clamp(1, 100) as u32;
    let watch = Watch::start();
    let m = measure(&w, &policies, rounds, || watch.secs() * 1000.0).expect("benchmark");
    println!(
        "{}; trace made in {:.2} s",
        w.describe(),
        m.trace_ms / 1000.0
    );
    println!(
        "timing: {}",
        if thread_cpu_ns().is_some() {
            "thread CPU time"
        } else {
            "wall time"
        }
    );
    println!(
        "\nbest of {} rounds\n{:<22} {:>12} {:>10} {:>9} {:>10} {:>10}",
        m.rounds, "cache", "requests/s", "ns/req", "vs base", "hit ratio", "keys held"
    );
    let base_rps = m.rows[0].requests_per_sec();
    for row in &m.rows {
        let name = if row.cache == "exact-lru" {
            "exact-LRU (hashbrown)".to_string()
        } else {
            format!("engine {}", row.cache)
        };
        println!(
            "{name:<22} {:>12.0} {:>10.1} {:>8.3}x {:>9.2}% {:>10}",
            row.requests_per_sec(),
            row.elapsed_ms * 1e6 / row.replay.requests as f64,
            row.requests_per_sec() / base_rps,
            row.replay.hit_ratio() * 100.0,
            row.replay.keys_held
        );
    }
}
