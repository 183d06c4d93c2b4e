//! Helpers the scenario tests share: run a scenario by id, read a metric, check that every claim holds for a few seeds.

use crate::outcome::Outcome;

/// A scenario, named by its id or given by its catalogue entry.
pub trait Which {
    fn id(&self) -> String;
}

impl Which for str {
    fn id(&self) -> String {
        self.to_string()
    }
}

impl Which for crate::scenario::Scenario {
    fn id(&self) -> String {
        self.id.to_string()
    }
}

/// Runs scenario `s` with `seed` and parameter overrides.
pub fn run(s: &(impl Which + ?Sized), seed: u64, set: &[(&str, &str)]) -> Outcome {
    let id = s.id();
    crate::run_with(&id, seed, set).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// A headline metric's value; a missing one fails the test.
pub fn metric(o: &Outcome, name: &str) -> f64 {
    o.metric_value(name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// Runs `s` with `seeds` and asserts every check passed; the outcomes are
/// returned for further assertions.
pub fn pass_for(
    seeds: impl IntoIterator<Item = u64>,
    s: &(impl Which + ?Sized),
    set: &[(&str, &str)],
) -> Vec<Outcome> {
    seeds
        .into_iter()
        .map(|seed| {
            let o = run(s, seed, set);
            assert_passed(&o);
            o
        })
        .collect()
}

/// [`pass_for`] seeds 1..=3.
pub fn all_pass(s: &(impl Which + ?Sized), set: &[(&str, &str)]) -> Vec<Outcome> {
    pass_for(1..=3, s, set)
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

/// Asserts that choice parameter `name` of scenario `id` offers exactly
/// `names` (space-separated), in order: the run acts on a choice's
/// position while its names are data, so the two must not drift apart.
pub fn assert_choices(id: &str, name: &str, names: &str) {
    let s = crate::find(id).unwrap_or_else(|| panic!("no scenario {id}"));
    let names: Vec<&str> = names.split_whitespace().collect();
    assert_eq!(s.info().choices(name), names, "{id}.{name}");
}
