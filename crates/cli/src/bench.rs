//! `redsim bench zipf`: the speed benchmark from the command line: a seeded Zipf(0.99) cache-aside trace replayed through the exact-LRU baseline and the engine (allkeys-lru, allkeys-lfu), timed with the wall clock, as a table or as JSON.
//!
//! The JSON form is what the browser benchmark is compared with
//! (`tests/e2e/bench_e2e.py`): the same workload fields and, per cache,
//! elapsed milliseconds, requests per second and hit counts. Equal hit
//! counts prove both replayed the same trace.

use std::process::ExitCode;
use std::time::Instant;

use redsim_engine::sim::cacheaside::{
    engine_for, replay_lru, replay_zipf, zipf_trace, Replay, Workload,
};

/// Policies measured through the engine, after the baseline.
pub const POLICIES: [&str; 2] = ["allkeys-lru", "allkeys-lfu"];

/// `redsim bench --help`.
pub fn usage() -> String {
    let d = Workload::default();
    format!(
        "Usage: redsim bench zipf [--requests N] [--keys K] [--seed S] [--json]\n\
         \n\
         Replays a seeded Zipf({}) cache-aside trace (GET k<i>; on a miss, SET it to a\n\
         {}-byte value) through an exact-LRU cache on hashbrown (the baseline) and the\n\
         engine under allkeys-lru and allkeys-lfu, each with room for {}% of the keys,\n\
         and prints requests/s, the ratio to the baseline and hit ratios.\n\
         \n\
         Defaults: --requests {} --keys {} --seed {}\n",
        d.s, d.value_len, d.capacity_pct, d.requests, d.keys, d.seed
    )
}

/// One measured cache.
#[derive(Clone, Debug)]
pub struct Row {
    pub cache: String,
    pub elapsed_ms: f64,
    pub replay: Replay,
}

impl Row {
    /// Requests per second of wall time.
    pub fn requests_per_sec(&self) -> f64 {
        self.replay.requests as f64 * 1000.0 / self.elapsed_ms.max(1e-9)
    }
}

/// Generates the trace and replays it through every cache, baseline first.
pub fn measure(w: &Workload) -> Result<(f64, Vec<Row>), String> {
    let t = Instant::now();
    let trace = zipf_trace(w);
    let trace_ms = t.elapsed().as_secs_f64() * 1000.0;
    if trace.is_empty() {
        return Err("empty trace: --requests and --keys must be positive".into());
    }
    let mut rows = Vec::new();
    let t = Instant::now();
    let replay = replay_lru(&trace, w);
    rows.push(Row {
        cache: "exact-lru".into(),
        elapsed_ms: t.elapsed().as_secs_f64() * 1000.0,
        replay,
    });
    for policy in POLICIES {
        let (mut engine, client) = engine_for(w, policy)?;
        let t = Instant::now();
        let replay = replay_zipf(&mut engine, client, &trace, w);
        let elapsed_ms = t.elapsed().as_secs_f64() * 1000.0;
        if replay.errors != 0 {
            return Err(format!("{policy}: {} error replies", replay.errors));
        }
        rows.push(Row {
            cache: policy.into(),
            elapsed_ms,
            replay,
        });
    }
    Ok((trace_ms, rows))
}

/// The JSON report: the workload, then one object per cache.
pub fn to_json(w: &Workload, trace_ms: f64, rows: &[Row]) -> String {
    let base = rows.first().map(Row::requests_per_sec).unwrap_or(1.0);
    let results: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{{\"cache\":\"{}\",\"elapsed_ms\":{:.3},\"requests_per_sec\":{:.0},\"vs_baseline\":{:.4},\
                 \"requests\":{},\"hits\":{},\"misses\":{},\"hit_ratio\":{:.6},\"keys_held\":{},\"evicted\":{}}}",
                r.cache,
                r.elapsed_ms,
                r.requests_per_sec(),
                r.requests_per_sec() / base,
                r.replay.requests,
                r.replay.hits,
                r.replay.misses,
                r.replay.hit_ratio(),
                r.replay.keys_held,
                r.replay.evicted
            )
        })
        .collect();
    format!(
        "{{\"platform\":\"native\",\"requests\":{},\"keys\":{},\"s\":{},\"seed\":{},\"capacity\":{},\
         \"value_len\":{},\"trace_ms\":{:.3},\"results\":[{}]}}",
        w.requests,
        w.keys,
        w.s,
        w.seed,
        w.capacity(),
        w.value_len,
        trace_ms,
        results.join(",")
    )
}

/// The human-readable table.
pub fn to_table(w: &Workload, trace_ms: f64, rows: &[Row]) -> String {
    let base = rows.first().map(Row::requests_per_sec).unwrap_or(1.0);
    let mut out = format!(
        "Zipf({}) cache-aside: {} requests over {} keys, cache of {} keys ({}%), {}-byte values (trace made in {:.0} ms)\n\n\
         {:<18} {:>12} {:>9} {:>9} {:>10} {:>10}\n",
        w.s,
        w.requests,
        w.keys,
        w.capacity(),
        w.capacity_pct,
        w.value_len,
        trace_ms,
        "cache",
        "requests/s",
        "ns/req",
        "vs base",
        "hit ratio",
        "keys held"
    );
    for r in rows {
        let name = if r.cache == "exact-lru" {
            "exact-lru (base)".to_string()
        } else {
            format!("engine {}", r.cache)
        };
        out.push_str(&format!(
            "{name:<18} {:>12.0} {:>9.1} {:>8.3}x {:>9.2}% {:>10}\n",
            r.requests_per_sec(),
            r.elapsed_ms * 1e6 / r.replay.requests.max(1) as f64,
            r.requests_per_sec() / base,
            r.replay.hit_ratio() * 100.0,
            r.replay.keys_held
        ));
    }
    out
}

/// Reads the options after `zipf`.
pub fn parse(args: &[String]) -> Result<(Workload, bool), String> {
    let mut w = Workload::default();
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            let v = it.next().ok_or_else(|| format!("{name} needs a value"))?;
            v.replace('_', "")
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("{name}: '{v}' is not a positive integer"))
        };
        match a.as_str() {
            "--json" => json = true,
            "--requests" => w.requests = number("--requests")? as usize,
            "--keys" => {
                w.keys = u32::try_from(number("--keys")?)
                    .map_err(|_| "--keys: at most 4294967295".to_string())?
            }
            "--seed" => w.seed = number("--seed")?,
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    Ok((w, json))
}

/// `redsim bench ...`.
pub fn main(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{}", usage());
        return ExitCode::SUCCESS;
    }
    match args.first().map(String::as_str) {
        Some("zipf") => {}
        _ => {
            eprint!("{}", usage());
            return ExitCode::from(2);
        }
    }
    let (w, json) = match parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("redsim bench: {msg}\n\n{}", usage());
            return ExitCode::from(2);
        }
    };
    match measure(&w) {
        Ok((trace_ms, rows)) => {
            if json {
                println!("{}", to_json(&w, trace_ms, &rows));
            } else {
                print!("{}", to_table(&w, trace_ms, &rows));
            }
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("redsim bench: {msg}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options() {
        let (w, json) = parse(&args("--requests 1_000 --keys 500 --seed 9 --json")).unwrap();
        assert_eq!((w.requests, w.keys, w.seed, json), (1000, 500, 9, true));
        assert!(parse(&args("--requests")).is_err());
        assert!(parse(&args("--requests 0")).is_err());
        assert!(parse(&args("--keys 99999999999")).is_err());
        assert!(parse(&args("--bogus")).is_err());
    }

    #[test]
    fn json_report_has_every_cache_and_equal_request_counts() {
        let (w, _) = parse(&args("--requests 20000 --keys 2000")).unwrap();
        let (trace_ms, rows) = measure(&w).unwrap();
        assert_eq!(rows.len(), 3);
        let json = to_json(&w, trace_ms, &rows);
        for cache in ["exact-lru", "allkeys-lru", "allkeys-lfu"] {
            assert!(json.contains(&format!("\"cache\":\"{cache}\"")), "{json}");
        }
        for r in &rows {
            assert_eq!(r.replay.hits + r.replay.misses, 20000, "{}", r.cache);
            assert!(r.replay.evicted > 0, "{}", r.cache);
        }
        assert!(to_table(&w, trace_ms, &rows).contains("engine allkeys-lfu"));
    }
}
