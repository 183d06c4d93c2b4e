//! Scenarios: runnable lessons built on the engine, each a pure function of (seed, parameters) returning an [`Outcome`] that views draw.
//!
//! A scenario is data plus a script. Its [`ScenarioInfo`] names it, explains
//! what to look for and lists its parameters ([`ParamSpec`], with defaults,
//! ranges and one-line explanations), so the headless runner, the browser's
//! scenario library and the tests all read the same catalogue. Running it
//! gives an [`Outcome`]: headline metrics, the checks that back its claim,
//! charts over virtual time, strips (one cell per key) and a race diagram
//! (one lane per actor, messages as arrows, the moment things go wrong
//! marked). Views play an outcome back with a cursor; nothing in it depends
//! on when or where it was computed.

pub mod cacheaside;
pub mod catalog;
pub mod cluster;
pub mod kernel;
pub mod outcome;
pub mod params;
pub mod replication;
pub mod scenarios;
pub mod seeds;
#[cfg(test)]
mod testing;
pub mod topology;
pub mod world;
pub mod zipf;

pub use replication::sentinel;
pub use scenarios::cluster as cluster_lessons;
pub use world::singleflight;

pub use catalog::{catalog, find, run, run_with};
pub use kernel::{Kernel, Recorder};
pub use outcome::{
    Chart, ChartKind, Check, Diagram, Lane, Mark, Metric, Outcome, Series, Step, Strip,
};
pub use params::{ParamSpec, Params};

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
