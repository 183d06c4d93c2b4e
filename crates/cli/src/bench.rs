//! `redsim bench zipf|scenarios`: the speed benchmarks from the command line: a seeded Zipf(0.99) cache-aside trace replayed through the exact-LRU baseline and the engine (allkeys-lru, allkeys-lfu), or every scenario at its defaults; timed with the wall clock, as a table or as JSON.
//!
//! The JSON forms are what the browser benchmark is compared with
//! (`tests/e2e/bench_e2e.py`). For zipf: the same workload fields and, per
//! cache, elapsed milliseconds, requests per second and hit counts (equal
//! hit counts prove both replayed the same trace). For scenarios:
//! `redsim_sim::speed`'s report, each scenario's fastest of R runs with its
//! virtual duration, checks passed and a digest of its outcome.

use std::process::ExitCode;
use std::time::Instant;

use redsim_sim::cacheaside::{self, Measured, Row, Workload};
use redsim_sim::speed::{self, Timed};

/// Policies measured through the engine, after the baseline.
pub const POLICIES: [&str; 2] = ["allkeys-lru", "allkeys-lfu"];

/// Rounds per cache unless `--rounds` says otherwise.
pub const DEFAULT_ROUNDS: u32 = 3;

/// `redsim bench --help`.
pub fn usage() -> String {
    let d = Workload::default();
    format!(
        "Usage: redsim bench zipf [--requests N] [--keys K] [--seed S] [--rounds R] [--json]\n\
         \x20      redsim bench scenarios [--runs R] [--json]\n\
         \n\
         Replays a seeded Zipf({}) cache-aside trace (GET k<i>; on a miss, SET it to a\n\
         {}-byte value) through an exact-LRU cache on hashbrown (the baseline) and the\n\
         engine under allkeys-lru and allkeys-lfu, each with room for {}% of the keys,\n\
         and prints requests/s, the ratio to the baseline and hit ratios. The caches\n\
         take turns for R rounds and each reports its fastest.\n\
         \n\
         Defaults: --requests {} --keys {} --seed {} --rounds {}\n\
         \n\
         scenarios: runs every scenario of the catalogue at its defaults and seed {}\n\
         (as `redsim run <id>` does), the whole catalogue R times in turns (default {}),\n\
         and prints each scenario's fastest run in milliseconds, slowest first.\n",
        d.s,
        d.value_len,
        d.capacity_pct,
        d.requests,
        d.keys,
        d.seed,
        DEFAULT_ROUNDS,
        speed::SEED,
        speed::DEFAULT_RUNS
    )
}

/// Generates the trace and replays it through every cache, baseline first,
/// `rounds` times, timed with the wall clock; each row is a cache's fastest round.
pub fn measure(w: &Workload, rounds: u32) -> Result<Measured, String> {
    let start = Instant::now();
    cacheaside::measure(w, &POLICIES, rounds, || {
        start.elapsed().as_secs_f64() * 1000.0
    })
}

/// The JSON report: the workload, then one object per cache.
pub fn to_json(w: &Workload, m: &Measured) -> String {
    m.to_json(w, "native", false)
}

/// The human-readable table.
pub fn to_table(w: &Workload, m: &Measured) -> String {
    let (trace_ms, rows) = (m.trace_ms, &m.rows);
    let base = rows.first().map(Row::requests_per_sec).unwrap_or(1.0);
    let mut out = format!(
        "{} (trace made in {:.0} ms; best of {} rounds)\n\n\
         {:<18} {:>12} {:>9} {:>9} {:>10} {:>10}\n",
        w.describe(),
        trace_ms,
        m.rounds,
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
pub fn parse(args: &[String]) -> Result<(Workload, bool, u32), String> {
    let mut w = Workload::default();
    let mut json = false;
    let mut rounds = DEFAULT_ROUNDS;
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
            "--rounds" => {
                rounds = u32::try_from(number("--rounds")?)
                    .ok()
                    .filter(|&r| r <= 100)
                    .ok_or_else(|| "--rounds: at most 100".to_string())?
            }
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    Ok((w, json, rounds))
}

/// `redsim bench ...`.
pub fn main(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{}", usage());
        return ExitCode::SUCCESS;
    }
    match args.first().map(String::as_str) {
        Some("zipf") => {}
        Some("scenarios") => return scenarios_main(&args[1..]),
        _ => {
            eprint!("{}", usage());
            return ExitCode::from(2);
        }
    }
    let (w, json, rounds) = match parse(&args[1..]) {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("redsim bench: {msg}\n\n{}", usage());
            return ExitCode::from(2);
        }
    };
    match measure(&w, rounds) {
        Ok(m) => {
            if json {
                println!("{}", to_json(&w, &m));
            } else {
                print!("{}", to_table(&w, &m));
            }
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("redsim bench: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Reads the options after `scenarios`: (runs, json).
pub fn parse_scenarios(args: &[String]) -> Result<(u32, bool), String> {
    let mut runs = speed::DEFAULT_RUNS;
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => json = true,
            "--runs" => {
                let v = it.next().ok_or("--runs needs a value")?;
                runs = v
                    .parse::<u32>()
                    .ok()
                    .filter(|r| (1..=speed::MAX_RUNS).contains(r))
                    .ok_or_else(|| format!("--runs: '{v}' is not 1 to {}", speed::MAX_RUNS))?;
            }
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    Ok((runs, json))
}

/// Every scenario's fastest of `runs` runs, timed with the wall clock.
pub fn measure_scenarios(runs: u32) -> Result<Vec<Timed>, String> {
    let start = Instant::now();
    speed::time_all(runs, || start.elapsed().as_secs_f64() * 1000.0)
}

/// The human-readable table, slowest first.
pub fn scenarios_table(rows: &[Timed], runs: u32) -> String {
    let mut sorted: Vec<&Timed> = rows.iter().collect();
    sorted.sort_by(|a, b| b.ms.total_cmp(&a.ms));
    let mut out = format!(
        "every scenario at its defaults, seed {}, fastest of {runs} runs\n\n{:>10}  scenario\n",
        speed::SEED,
        "ms"
    );
    for r in sorted {
        out.push_str(&format!("{:>10.1}  {}\n", r.ms, r.id));
    }
    let total: f64 = rows.iter().map(|r| r.ms).sum();
    out.push_str(&format!("{total:>10.1}  all {} scenarios\n", rows.len()));
    out
}

/// `redsim bench scenarios ...`.
fn scenarios_main(args: &[String]) -> ExitCode {
    let (runs, json) = match parse_scenarios(args) {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("redsim bench: {msg}\n\n{}", usage());
            return ExitCode::from(2);
        }
    };
    match measure_scenarios(runs) {
        Ok(rows) => {
            if json {
                println!("{}", speed::to_json(&rows, "native", runs));
            } else {
                print!("{}", scenarios_table(&rows, runs));
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
        let (w, json, rounds) = parse(&args(
            "--requests 1_000 --keys 500 --seed 9 --json --rounds 2",
        ))
        .unwrap();
        assert_eq!(
            (w.requests, w.keys, w.seed, json, rounds),
            (1000, 500, 9, true, 2)
        );
        assert_eq!(parse(&args("")).unwrap().2, DEFAULT_ROUNDS);
        assert!(parse(&args("--rounds 0")).is_err());
        assert!(parse(&args("--rounds 101")).is_err());
        assert!(parse(&args("--requests")).is_err());
        assert!(parse(&args("--requests 0")).is_err());
        assert!(parse(&args("--keys 99999999999")).is_err());
        assert!(parse(&args("--bogus")).is_err());
    }

    #[test]
    fn json_report_has_every_cache_and_equal_request_counts() {
        let (w, _, _) = parse(&args("--requests 20000 --keys 2000")).unwrap();
        let m = measure(&w, 2).unwrap();
        let rows = &m.rows;
        assert_eq!(rows.len(), 3);
        let json = to_json(&w, &m);
        assert!(json.contains("\"rounds\":2"), "{json}");
        for cache in ["exact-lru", "allkeys-lru", "allkeys-lfu"] {
            assert!(json.contains(&format!("\"cache\":\"{cache}\"")), "{json}");
        }
        for r in rows {
            assert_eq!(r.replay.hits + r.replay.misses, 20000, "{}", r.cache);
            assert!(r.replay.evicted > 0, "{}", r.cache);
        }
        assert!(to_table(&w, &m).contains("engine allkeys-lfu"));
    }

    #[test]
    fn scenarios_options_and_table() {
        assert_eq!(
            parse_scenarios(&args("")).unwrap(),
            (speed::DEFAULT_RUNS, false)
        );
        assert_eq!(
            parse_scenarios(&args("--runs 5 --json")).unwrap(),
            (5, true)
        );
        assert!(parse_scenarios(&args("--runs 0")).is_err());
        assert!(parse_scenarios(&args("--runs 21")).is_err());
        assert!(parse_scenarios(&args("--runs")).is_err());
        assert!(parse_scenarios(&args("--rounds 2")).is_err());
        let row = |id: &str, ms: f64| Timed {
            id: id.into(),
            ms,
            duration_us: 1,
            checks: 1,
            checks_passed: 1,
            digest: 0,
        };
        let table = scenarios_table(&[row("fast", 1.0), row("slow", 30.0)], 3);
        let slow = table.find("  slow\n").unwrap();
        assert!(
            slow < table.find("  fast\n").unwrap(),
            "slowest first:\n{table}"
        );
        assert!(table.contains("31.0  all 2 scenarios"), "{table}");
    }
}
