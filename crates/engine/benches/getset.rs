//! GET/SET on a million keys through the engine, against a bare `hashbrown::HashMap` measured in the same run; prints the ratios.
//!
//! Run with `cargo bench -p redsim-engine --bench getset` (or `cargo xtask bench`).
//! Three layers are measured so the ratio can be read: the full command
//! path (`Engine::execute`: dispatch, arity, lookup, reply frame), our
//! Redis-shaped `Dict` alone, and the hashbrown baseline.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};
use redsim_engine::keyspace::dict::Dict;
use redsim_engine::{Engine, Options};

const KEYS: usize = 1_000_000;
/// Commands are pre-built for this many random keys and cycled through.
const POOL: usize = 1 << 16;
const GROUP: &str = "getset_1m";

fn key(i: usize) -> Vec<u8> {
    format!("key:{i:07}").into_bytes()
}

fn value(i: usize) -> Vec<u8> {
    format!("value:{i:07}").into_bytes()
}

fn bench(c: &mut Criterion) {
    let mut rng = fastrand::Rng::with_seed(42);
    let picks: Vec<usize> = (0..POOL).map(|_| rng.usize(..KEYS)).collect();

    // Engine, tracing off as in the native server.
    let mut opts = Options::new(1);
    opts.trace_capacity = 0;
    let mut engine = Engine::with_options(opts);
    let client = engine.connect("bench");
    for i in 0..KEYS {
        let r = engine.execute(client, &[b"SET".to_vec(), key(i), value(i)]);
        assert!(!r.is_error(), "preload failed: {r:?}");
    }
    let gets: Vec<Vec<Vec<u8>>> = picks
        .iter()
        .map(|&i| vec![b"GET".to_vec(), key(i)])
        .collect();
    let sets: Vec<Vec<Vec<u8>>> = picks
        .iter()
        .map(|&i| vec![b"SET".to_vec(), key(i), value(i + 1)])
        .collect();

    let mut dict: Dict<Vec<u8>> = Dict::new(7);
    let mut map: hashbrown::HashMap<Vec<u8>, Vec<u8>> = hashbrown::HashMap::new();
    for i in 0..KEYS {
        dict.insert(&key(i), value(i));
        map.insert(key(i), value(i));
    }
    let keys: Vec<Vec<u8>> = picks.iter().map(|&i| key(i)).collect();
    let vals: Vec<Vec<u8>> = picks.iter().map(|&i| value(i + 1)).collect();

    let mut g = c.benchmark_group(GROUP);
    bench_pool(&mut g, "get", "engine", |n| {
        engine.execute(client, &gets[n])
    });
    bench_pool(&mut g, "set", "engine", |n| {
        engine.execute(client, &sets[n])
    });
    bench_pool(&mut g, "get", "dict", |n| dict.get(&keys[n]).cloned());
    bench_pool(&mut g, "set", "dict", |n| {
        dict.insert(&keys[n], vals[n].clone())
    });
    bench_pool(&mut g, "get", "hashbrown", |n| map.get(&keys[n]).cloned());
    bench_pool(&mut g, "set", "hashbrown", |n| {
        // Overwrite in place, as the engine does for an existing key.
        match map.get_mut(&keys[n]) {
            Some(v) => *v = vals[n].clone(),
            None => {
                map.insert(keys[n].clone(), vals[n].clone());
            }
        }
    });
    g.finish();
}

/// Benchmarks `op` on `store` as `run(n)` for `n` cycling through the
/// pool of pre-built keys and commands.
fn bench_pool<R>(
    g: &mut BenchmarkGroup<WallTime>,
    op: &str,
    store: &str,
    mut run: impl FnMut(usize) -> R,
) {
    let mut n = 0usize;
    g.bench_function(BenchmarkId::new(op, store), |b| {
        b.iter(|| {
            n = (n + 1) & (POOL - 1);
            black_box(run(n))
        })
    });
}

fn criterion_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("criterion")
}

/// Mean time per iteration (ns) that criterion just measured.
fn mean_ns(op: &str, imp: &str) -> Option<f64> {
    let path = criterion_dir()
        .join(GROUP)
        .join(op)
        .join(imp)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["mean"]["point_estimate"].as_f64()
}

fn report() {
    println!("\nRatios against hashbrown::HashMap<Vec<u8>, Vec<u8>> ({KEYS} keys, same run):");
    for op in ["get", "set"] {
        let Some(base) = mean_ns(op, "hashbrown") else {
            continue;
        };
        for imp in ["engine", "dict"] {
            if let Some(t) = mean_ns(op, imp) {
                println!(
                    "  {op:>3} {imp:<6} {t:8.1} ns/op   baseline {base:6.1} ns/op   ratio {:5.2}x",
                    t / base
                );
            }
        }
    }
}

fn main() {
    let mut c = Criterion::default()
        .output_directory(&criterion_dir())
        .configure_from_args();
    bench(&mut c);
    c.final_summary();
    report();
}
