//! Scenario run times for the native-against-browser comparison: every scenario of the catalogue at its defaults and seed 1, through [`crate::run`] (the entry point of `redsim run`, the browser's library and the scenario_speed test), timed with a clock the caller gives.
//!
//! `redsim bench scenarios --json` times it with the wall clock and the lab
//! module's `window.redsimScenarioTimes` with `performance.now()`; both
//! report [`to_json`]'s shape and tests/e2e/bench_e2e.py compares them.
//!
//! The rule, the same on both sides: the catalogue is run `runs` times
//! (3 by default) in turns, every scenario once per turn, and each scenario
//! reports its fastest run, so a noisy machine's slow moments (and the
//! browser's first, not yet fully compiled, run) do not decide the figure.
//! Every run of a scenario must give the same outcome, which the report
//! carries (virtual duration, checks passed and a digest of the whole
//! outcome's JSON) so the two sides can be compared for having run the
//! same thing.

use crate::outcome::Outcome;

/// Runs per scenario unless the caller says otherwise.
pub const DEFAULT_RUNS: u32 = 3;
/// At most this many runs per scenario.
pub const MAX_RUNS: u32 = 20;
/// The seed every scenario runs with (the library's default).
pub const SEED: u64 = 1;

/// One scenario's figure: its fastest run and what the run gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Timed {
    pub id: String,
    /// The fastest run, in milliseconds.
    pub ms: f64,
    /// Virtual time the run covered, in µs.
    pub duration_us: u64,
    pub checks: usize,
    pub checks_passed: usize,
    /// FNV-1a of the outcome serialised as JSON: equal natively and in wasm.
    pub digest: u64,
}

/// What a run gave, compared between runs.
fn fingerprint(o: &Outcome) -> (u64, usize, usize, u64) {
    let passed = o.checks.iter().filter(|c| c.passed).count();
    let json = serde_json::to_vec(o).unwrap_or_default();
    let digest = json.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    (o.duration_us, o.checks.len(), passed, digest)
}

/// Every scenario of the catalogue, in catalogue order (see the module
/// documentation for the rule).
pub fn time_all(runs: u32, now_ms: impl FnMut() -> f64) -> Result<Vec<Timed>, String> {
    let ids: Vec<&str> = crate::catalog().iter().map(|i| i.id).collect();
    time_ids(&ids, runs, now_ms)
}

/// The scenarios `ids`, `runs` turns (at least 1, at most [`MAX_RUNS`]),
/// each reporting its fastest run; an error for an unknown id or a
/// scenario whose runs differ.
pub fn time_ids(
    ids: &[&str],
    runs: u32,
    mut now_ms: impl FnMut() -> f64,
) -> Result<Vec<Timed>, String> {
    let runs = runs.clamp(1, MAX_RUNS);
    let mut rows: Vec<Timed> = Vec::with_capacity(ids.len());
    for turn in 0..runs {
        for (i, id) in ids.iter().enumerate() {
            let t = now_ms();
            let out = crate::run(id, SEED, &[])?;
            let ms = now_ms() - t;
            let print = fingerprint(&out);
            let (duration_us, checks, checks_passed, digest) = print;
            if turn == 0 {
                rows.push(Timed {
                    id: id.to_string(),
                    ms,
                    duration_us,
                    checks,
                    checks_passed,
                    digest,
                });
                continue;
            }
            let row = &mut rows[i];
            if (row.duration_us, row.checks, row.checks_passed, row.digest) != print {
                return Err(format!(
                    "{id}: runs with the same seed gave different outcomes"
                ));
            }
            row.ms = row.ms.min(ms);
        }
    }
    Ok(rows)
}

/// The report: `{"platform", "seed", "runs", "total_ms", "results": [{"id", "ms",
/// "duration_us", "checks", "checks_passed", "digest"}, ...]}`, results in
/// catalogue order, the digest as 16 hex digits.
pub fn to_json(rows: &[Timed], platform: &str, runs: u32) -> String {
    let results: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{{\"id\":{:?},\"ms\":{:.3},\"duration_us\":{},\"checks\":{},\"checks_passed\":{},\"digest\":\"{:016x}\"}}",
                r.id, r.ms, r.duration_us, r.checks, r.checks_passed, r.digest
            )
        })
        .collect();
    let total: f64 = rows.iter().map(|r| r.ms).sum();
    format!(
        "{{\"platform\":{platform:?},\"seed\":{SEED},\"runs\":{},\"total_ms\":{total:.3},\"results\":[{}]}}",
        runs.clamp(1, MAX_RUNS),
        results.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock that advances 1 ms per reading, so each run measures 1 ms.
    fn ticking() -> impl FnMut() -> f64 {
        let mut t = 0.0;
        move || {
            t += 1.0;
            t
        }
    }

    #[test]
    fn each_scenario_reports_its_fastest_run_and_its_outcome() {
        let ids = ["incr-vs-get-set"];
        let mut readings = [0.0, 5.0, 10.0, 12.0, 20.0, 29.0].into_iter();
        let rows = time_ids(&ids, 3, || readings.next().unwrap()).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].ms, 2.0, "the fastest of 5, 2 and 9 ms");
        let out = crate::run("incr-vs-get-set", SEED, &[]).unwrap();
        assert_eq!(rows[0].duration_us, out.duration_us);
        assert_eq!(rows[0].checks, out.checks.len());
        assert!(rows[0].checks > 0);
        assert_eq!(rows[0].digest, fingerprint(&out).3);
        let other = crate::run("incr-vs-get-set", SEED + 1, &[]).unwrap();
        assert_ne!(
            fingerprint(&other).3,
            rows[0].digest,
            "another seed, another run"
        );
    }

    #[test]
    fn runs_are_clamped_and_unknown_ids_fail() {
        let mut n = 0;
        let rows = time_ids(&["incr-vs-get-set"], 0, || {
            n += 1;
            n as f64
        })
        .unwrap();
        assert_eq!(n, 2, "zero runs means one");
        assert_eq!(rows[0].ms, 1.0);
        assert!(time_ids(&["no-such-scenario"], 1, ticking()).is_err());
    }

    #[test]
    fn json_has_every_row_and_the_total() {
        let rows = time_ids(&["incr-vs-get-set"], 2, ticking()).unwrap();
        let json = to_json(&rows, "native", 2);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["platform"], "native");
        assert_eq!(v["runs"], 2);
        assert_eq!(v["seed"], SEED);
        assert_eq!(v["results"][0]["id"], "incr-vs-get-set");
        assert_eq!(v["results"][0]["ms"], 1.0);
        assert_eq!(v["total_ms"], 1.0);
        let digest = v["results"][0]["digest"].as_str().unwrap();
        assert_eq!(digest, format!("{:016x}", rows[0].digest));
        assert_eq!(v["results"].as_array().unwrap().len(), 1);
    }
}
