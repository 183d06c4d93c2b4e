//! The scenario benchmark in the browser: `window.redsimScenarioTimes([runs])` runs every scenario of the catalogue at its defaults through `redsim_sim::run`, as `redsim bench scenarios --json` does natively, timed with `performance.now()`, and returns the same JSON report.
//!
//! The rule is `redsim_sim::speed`'s, shared with the native side: the
//! catalogue runs `runs` times in turns (3 unless a whole number from 1 to
//! 20 is passed) and each scenario reports its fastest run, so timer noise
//! and the first run's not yet optimised wasm do not decide the figure.
//! tests/e2e/bench_e2e.py compares the two. It runs synchronously on the
//! page's thread: the whole catalogue takes seconds per run.

use redsim_sim::speed;
use wasm_bindgen::prelude::*;

/// Exposes `window.redsimScenarioTimes`.
pub fn install() {
    let f = Closure::<dyn Fn(JsValue) -> String>::new(|runs: JsValue| {
        let runs = runs
            .as_f64()
            .filter(|r| r.fract() == 0.0 && (1.0..=speed::MAX_RUNS as f64).contains(r))
            .map_or(speed::DEFAULT_RUNS, |r| r as u32);
        match speed::time_all(runs, crate::bench::now_ms) {
            Ok(rows) => speed::to_json(&rows, "wasm", runs),
            Err(msg) => format!("{{\"error\":{msg:?}}}"),
        }
    });
    crate::dom::set_global("redsimScenarioTimes", f.into_js_value());
}
