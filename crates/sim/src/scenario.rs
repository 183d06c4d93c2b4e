//! What a scenario is: its id and the function that runs it, and its description ([`ScenarioInfo`]: lesson group, claim, what to look for, parameters), which lives in the lesson's data file.

use crate::outcome::Outcome;
use crate::params::{ParamSpec, Params};
use serde::Serialize;

/// A runnable scenario: defined here, not in the catalogue, so the
/// scenario modules the catalogue lists don't depend on it.
pub struct Scenario {
    /// Stable identifier; it names the scenario's description too.
    pub id: &'static str,
    pub run: fn(&Params, u64) -> Outcome,
}

impl Scenario {
    pub const fn new(id: &'static str, run: fn(&Params, u64) -> Outcome) -> Scenario {
        Scenario { id, run }
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
    /// Why `redsim run --against` cannot run it on a real server (one
    /// sentence), or `None` when it can: its Redis traffic then goes to the
    /// server while the rest of its world stays simulated.
    pub not_against: Option<&'static str>,
    pub params: Vec<ParamSpec>,
}

impl ScenarioInfo {
    /// The alternatives of choice parameter `name`, for runs that label
    /// results with them. A run asks only for its own parameters, so a
    /// missing one is a bug that fails its every run.
    pub fn choices(&self, name: &str) -> &[&'static str] {
        let spec = self.params.iter().find(|p| p.name == name);
        let spec = spec.unwrap_or_else(|| panic!("{} has no parameter {name}", self.id));
        &spec.choices
    }
}
