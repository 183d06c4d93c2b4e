//! Helpers the scenario tests share: run a scenario by id, read a metric, check that every claim holds for a few seeds.

use crate::Outcome;

/// Runs scenario `id` with `seed` and parameter overrides.
pub fn run(id: &str, seed: u64, set: &[(&str, &str)]) -> Outcome {
    crate::run_with(id, seed, set).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// A headline metric's value; a missing one fails the test.
pub fn metric(o: &Outcome, name: &str) -> f64 {
    o.metric_value(name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// Runs `id` with seeds 1..=3 and asserts every check passed; the
/// outcomes are returned for further assertions.
pub fn all_pass(id: &str, set: &[(&str, &str)]) -> Vec<Outcome> {
    (1..=3)
        .map(|seed| {
            let o = run(id, seed, set);
            assert_passed(&o);
            o
        })
        .collect()
}

/// Asserts every check of `o` passed.
pub fn assert_passed(o: &Outcome) {
    for c in &o.checks {
        assert!(
            c.passed,
            "{} seed {}: {} ({})",
            o.id, o.seed, c.claim, c.detail
        );
    }
}

/// Whether a check whose claim starts with `claim_start` failed.
pub fn failed(o: &Outcome, claim_start: &str) -> bool {
    o.checks
        .iter()
        .any(|c| c.claim.starts_with(claim_start) && !c.passed)
}

/// [`run`] for a scenario given by its catalogue entry.
pub fn run_scenario(s: &crate::Scenario, seed: u64, set: &[(&str, &str)]) -> Outcome {
    run((s.info)().id, seed, set)
}
