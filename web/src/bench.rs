//! The speed benchmark in the browser: `window.redsimBenchZipf(requests, keys, seed[, rounds])` replays the same seeded Zipf cache-aside trace as `redsim bench zipf --json`, timed with `performance.now()`, and returns the same JSON shape.
//!
//! It exists so the wasm build's speed can be compared with the native
//! one on the same trace (tests/e2e/bench_e2e.py). It runs synchronously
//! on the page's thread: a million requests take a few seconds.

use redsim_sim::cacheaside::{measure, Workload};
use wasm_bindgen::prelude::*;

/// Exposes `window.redsimBenchZipf`.
pub fn install() {
    let f = Closure::<dyn Fn(JsValue, JsValue, JsValue, JsValue) -> String>::new(
        |requests: JsValue, keys: JsValue, seed: JsValue, rounds: JsValue| {
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
            let rounds = positive(&rounds)
                .filter(|&r| r <= 100.0)
                .map_or(DEFAULT_ROUNDS, |r| r as u32);
            run(&w, rounds)
        },
    );
    crate::dom::set_global("redsimBenchZipf", f.into_js_value());
}

/// A positive whole number passed from JavaScript.
fn positive(v: &JsValue) -> Option<f64> {
    v.as_f64()
        .filter(|n| n.is_finite() && *n >= 1.0 && n.fract() == 0.0)
}

/// Milliseconds from `performance.now()` (0 where unavailable).
pub(crate) fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// Rounds per cache unless the caller passes a fourth argument.
const DEFAULT_ROUNDS: u32 = 3;

/// Runs the baseline and both engine policies `rounds` times (each row is a
/// cache's fastest round); the JSON report or `{"error": ...}`.
fn run(w: &Workload, rounds: u32) -> String {
    let m = match measure(w, &["allkeys-lru", "allkeys-lfu"], rounds, now_ms) {
        Ok(m) => m,
        Err(msg) => return format!("{{\"error\":{:?}}}", msg),
    };
    m.to_json(w, "wasm", true)
}
