//! Scenarios: runnable lessons built on the engine, each a pure function of (seed, parameters) returning an [`Outcome`] that views draw.
//!
//! A scenario is data plus a script. Its [`ScenarioInfo`] names it, explains
//! what to look for and lists its parameters ([`ParamSpec`], with defaults,
//! ranges and one-line explanations); it is kept as data, one JSON file per
//! lesson folder, so the headless runner, the browser's scenario library and
//! the tests all read the same catalogue. Running it gives an [`Outcome`]:
//! headline metrics, the checks that back its claim, charts over virtual
//! time, strips (one cell per key) and a race diagram (one lane per actor,
//! messages as arrows, the moment things go wrong marked). Views play an
//! outcome back with a cursor; nothing in it depends on when or where it
//! was computed.
//!
//! Layout: the framework at the top (what a scenario is and its
//! descriptions, the [`catalog`](mod@catalog), [`params`], [`outcome`], the
//! discrete-event [`kernel`], [`seeds`], [`zipf`], the [`cacheaside`]
//! speed trace and [`speed`], the scenarios' run times); the worlds
//! scenarios are built from below it: [`world`] (load, pods with L1
//! caches, pools and singleflight, the assembled caching world),
//! [`replication`] (the replication link, Sentinel, the network
//! sentinels see), [`cluster`] (the simulated Redis Cluster) and
//! [`topology`] (the interactive replication topology); and the lessons in
//! [`scenarios`], one folder each, with their descriptions in a
//! `scenarios.json` beside the code.

pub mod against;
pub mod cacheaside;
pub mod catalog;
pub mod cluster;
mod descriptions;
pub mod kernel;
pub mod outcome;
pub mod params;
pub mod replication;
mod scenario;
pub mod scenarios;
pub mod seeds;
pub mod speed;
#[cfg(test)]
mod testing;
pub mod time;
pub mod topology;
pub mod world;
pub mod zipf;

pub use replication::sentinel;
pub use scenarios::cluster as cluster_lessons;
pub use world::singleflight;

pub use catalog::{catalog, find, run, run_with};
pub use descriptions::shows_bug;
pub use kernel::{Kernel, Recorder};
pub use outcome::{
    Chart, ChartKind, Check, Diagram, Lane, Mark, Metric, Outcome, Series, Step, Strip,
};
pub use params::{ParamSpec, Params};
pub use scenario::{Scenario, ScenarioInfo};
