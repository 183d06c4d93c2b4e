//! The speed benchmark in the browser: `window.redsimBenchZipf(requests, keys, seed)` replays the same seeded Zipf cache-aside trace as `redsim bench zipf --json`, timed with `performance.now()`, and returns the same JSON shape.
//!
//! It exists so the wasm build's speed can be compared with the native
//! one on the same trace (tests/e2e/bench_e2e.py). It runs synchronously
//! on the page's thread: a million requests take a few seconds.

use redsim_engine::sim::cacheaside::{
    engine_for, replay_lru, replay_zipf, zipf_trace, Replay, Workload,
};
use wasm_bindgen::prelude::*;

/// Exposes `window.redsimBenchZipf`.
pub fn install() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let f = Closure::<dyn Fn(JsValue, JsValue, JsValue) -> String>::new(
        |requests: JsValue, keys: JsValue, seed: JsValue| {
            let mut w = Workload::default();
            if let Some(n) = positive(&requests) {
                w.requests = n as usize;
            }
            if let Some(k) = positive(&keys).filter(|&k| k <= u32::MAX as f64) {
                w.keys = k as u32;
            }
            if let Some(s) = positive(&seed) {
                w.seed = s as u64;
            }
            run(&w)
        },
    );
    let _ = js_sys::Reflect::set(&window, &"redsimBenchZipf".into(), &f.into_js_value());
}

/// A positive whole number passed from JavaScript.
fn positive(v: &JsValue) -> Option<f64> {
    v.as_f64()
        .filter(|n| n.is_finite() && *n >= 1.0 && n.fract() == 0.0)
}

/// Milliseconds from `performance.now()` (0 where unavailable).
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Runs the baseline and both engine policies; the JSON report or `{"error": ...}`.
fn run(w: &Workload) -> String {
    let t = now_ms();
    let trace = zipf_trace(w);
    let trace_ms = now_ms() - t;
    if trace.is_empty() {
        return "{\"error\":\"empty trace\"}".into();
    }
    let mut rows: Vec<(&str, f64, Replay)> = Vec::new();
    let t = now_ms();
    let base = replay_lru(&trace, w);
    rows.push(("exact-lru", now_ms() - t, base));
    for policy in ["allkeys-lru", "allkeys-lfu"] {
        let (mut engine, client) = match engine_for(w, policy) {
            Ok(e) => e,
            Err(msg) => return format!("{{\"error\":{:?}}}", msg),
        };
        let t = now_ms();
        let r = replay_zipf(&mut engine, client, &trace, w);
        rows.push((policy, now_ms() - t, r));
    }
    let rps = |ms: f64, r: &Replay| r.requests as f64 * 1000.0 / ms.max(1e-9);
    let base_rps = rps(rows[0].1, &rows[0].2);
    let results: Vec<String> = rows
        .iter()
        .map(|(cache, ms, r)| {
            format!(
                "{{\"cache\":\"{cache}\",\"elapsed_ms\":{ms:.3},\"requests_per_sec\":{:.0},\"vs_baseline\":{:.4},\
                 \"requests\":{},\"hits\":{},\"misses\":{},\"errors\":{},\"hit_ratio\":{:.6},\"keys_held\":{},\"evicted\":{}}}",
                rps(*ms, r),
                rps(*ms, r) / base_rps,
                r.requests,
                r.hits,
                r.misses,
                r.errors,
                r.hit_ratio(),
                r.keys_held,
                r.evicted
            )
        })
        .collect();
    format!(
        "{{\"platform\":\"wasm\",\"requests\":{},\"keys\":{},\"s\":{},\"seed\":{},\"capacity\":{},\
         \"value_len\":{},\"trace_ms\":{trace_ms:.3},\"results\":[{}]}}",
        w.requests,
        w.keys,
        w.s,
        w.seed,
        w.capacity(),
        w.value_len,
        results.join(",")
    )
}
