//! What a scenario is: its catalogue entry ([`ScenarioInfo`]: id, lesson group, claim, what to look for, parameters) and the function that runs it.

use crate::outcome::Outcome;
use crate::params::{ParamSpec, Params};
use serde::Serialize;

/// A runnable scenario: defined here, not in the catalogue, so the
/// scenario modules the catalogue lists don't depend on it.
pub struct Scenario {
    pub info: fn() -> ScenarioInfo,
    pub run: fn(&Params, u64) -> Outcome,
}

impl Scenario {
    pub const fn new(info: fn() -> ScenarioInfo, run: fn(&Params, u64) -> Outcome) -> Scenario {
        Scenario { info, run }
    }
}

/// What a scenario is, for catalogues and parameter forms.
#[derive(Clone, Debug, Serialize)]
pub struct ScenarioInfo {
    /// Stable identifier used on the command line and in share links.
    pub id: &'static str,
    /// Which group of lessons it belongs to (memory, consistency, ...).
    pub group: &'static str,
    pub title: &'static str,
    /// The claim the scenario demonstrates, one sentence.
    pub claim: &'static str,
    /// What to look for while it plays, a few sentences in our own words.
    pub look_for: &'static str,
    pub params: Vec<ParamSpec>,
}
