//! What a scenario run produces: metrics, checks, charts, strips and a race diagram, all plain serialisable data.

use serde::Serialize;
use std::collections::BTreeMap;

/// The result of one run. Views draw it; tests read `checks`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Outcome {
    pub id: String,
    pub seed: u64,
    pub params: BTreeMap<String, f64>,
    /// Virtual time the run covered, in µs.
    pub duration_us: u64,
    /// The headline figures, printed by `redsim run`.
    pub metrics: Vec<Metric>,
    /// The claims this run supports or refutes.
    pub checks: Vec<Check>,
    pub charts: Vec<Chart>,
    pub strips: Vec<Strip>,
    pub diagram: Option<Diagram>,
    /// Short sentences on what happened in this run, in order.
    pub notes: Vec<String>,
}

impl Outcome {
    pub fn new(id: &str, seed: u64, params: &crate::params::Params) -> Outcome {
        Outcome {
            id: id.to_string(),
            seed,
            params: params.values().clone(),
            ..Outcome::default()
        }
    }

    /// Adds a headline figure.
    pub fn metric(&mut self, name: &str, value: f64, unit: &str) -> &mut Self {
        self.metrics.push(Metric {
            name: name.to_string(),
            value,
            unit: unit.to_string(),
        });
        self
    }

    /// Records a claim and whether this run bears it out, with the figures that decided it.
    pub fn check(&mut self, claim: &str, passed: bool, detail: String) -> &mut Self {
        self.checks.push(Check {
            claim: claim.to_string(),
            passed,
            detail,
        });
        self
    }

    pub fn note(&mut self, text: impl Into<String>) -> &mut Self {
        self.notes.push(text.into());
        self
    }

    /// The value of a headline metric by name.
    pub fn metric_value(&self, name: &str) -> Option<f64> {
        self.metrics
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.value)
    }

    /// True when every check passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metric {
    pub name: String,
    pub value: f64,
    pub unit: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    pub claim: String,
    pub passed: bool,
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChartKind {
    /// Lines through the points, x usually virtual time in seconds.
    Line,
    /// One bar per point per series (x is a category index).
    Bar,
}

/// A chart: named series sharing axes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Chart {
    pub title: String,
    pub kind: ChartKind,
    pub x_label: String,
    pub y_label: String,
    /// Names for x positions of a bar chart.
    pub categories: Vec<String>,
    pub series: Vec<Series>,
}

impl Chart {
    pub fn line(title: &str, x_label: &str, y_label: &str) -> Chart {
        Chart {
            title: title.to_string(),
            kind: ChartKind::Line,
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            categories: Vec::new(),
            series: Vec::new(),
        }
    }

    pub fn bars(title: &str, y_label: &str, categories: &[&str]) -> Chart {
        Chart {
            title: title.to_string(),
            kind: ChartKind::Bar,
            x_label: String::new(),
            y_label: y_label.to_string(),
            categories: categories.iter().map(|c| c.to_string()).collect(),
            series: Vec::new(),
        }
    }

    pub fn with(mut self, series: Series) -> Chart {
        self.series.push(series);
        self
    }

    /// The chart with all of `series` added.
    pub fn with_all(mut self, series: impl IntoIterator<Item = Series>) -> Chart {
        self.series.extend(series);
        self
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

impl Series {
    pub fn new(name: &str, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.to_string(),
            points,
        }
    }

    /// One value per category of a bar chart, at x = 0, 1, 2, …
    pub fn per_category(name: &str, values: impl IntoIterator<Item = f64>) -> Series {
        let points = values.into_iter().enumerate();
        Series::new(name, points.map(|(i, v)| (i as f64, v)).collect())
    }
}

/// A row of cells, one per item (a key, a slot), each in a state named by
/// `legend`: how redis.io draws which keys an eviction kept.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Strip {
    pub title: String,
    pub legend: Vec<String>,
    pub rows: Vec<StripRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StripRow {
    pub label: String,
    /// Index into the strip's legend, per cell.
    pub cells: Vec<u8>,
}

/// A race (sequence) diagram: lanes for actors, steps over virtual time.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Diagram {
    pub lanes: Vec<Lane>,
    pub steps: Vec<Step>,
    pub marks: Vec<Mark>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lane {
    pub name: String,
    /// What the actor is (client, pod, redis, db, lock, sentinel...), for styling.
    pub kind: String,
}

/// One message or local action. A message from `from` to `to` is sent at
/// `at_us` and arrives at `until_us`; a local action has `to == from`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    pub at_us: u64,
    pub until_us: u64,
    pub from: usize,
    pub to: usize,
    pub label: String,
    /// A failed or refused operation (error reply, timeout, rejected write).
    pub error: bool,
}

/// The moment something goes wrong (or right), with why, in a sentence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mark {
    pub at_us: u64,
    pub lane: usize,
    pub text: String,
    /// `bad` for the failure the scenario is about, `good` for a fix working, `info` otherwise.
    pub tone: String,
}
