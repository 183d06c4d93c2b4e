//! Scenario parameters: specs with defaults, ranges and explanations, and the resolved values a run reads.

use serde::Serialize;
use std::collections::BTreeMap;

/// One tunable knob of a scenario. Every value is a number; a parameter
/// with `choices` takes the index of one (the runner also accepts the name),
/// which keeps forms (sliders, selects) and share links uniform.
#[derive(Clone, Debug, Serialize)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub step: f64,
    pub unit: &'static str,
    /// One line: what changing it does.
    pub help: &'static str,
    /// Names of the alternatives when the parameter is a choice.
    pub choices: Vec<&'static str>,
}

impl ParamSpec {
    /// A value as the runner reads it back and forms show it: a choice's
    /// name, else the number.
    pub fn value_text(&self, v: f64) -> String {
        let i = v.round();
        if i >= 0.0 && (i as usize) < self.choices.len() {
            return self.choices[i as usize].to_string();
        }
        fmt_num(v)
    }

    /// A numeric parameter.
    pub fn num(
        name: &'static str,
        default: f64,
        (min, max, step): (f64, f64, f64),
        unit: &'static str,
        help: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            name,
            default,
            min,
            max,
            step,
            unit,
            help,
            choices: Vec::new(),
        }
    }

    /// An on/off switch (0 or 1).
    pub fn flag(name: &'static str, default: bool, help: &'static str) -> ParamSpec {
        ParamSpec {
            name,
            default: if default { 1.0 } else { 0.0 },
            min: 0.0,
            max: 1.0,
            step: 1.0,
            unit: "",
            help,
            choices: vec!["off", "on"],
        }
    }

    /// One of several named alternatives; the default is the index given.
    pub fn choice(
        name: &'static str,
        default: usize,
        choices: &[&'static str],
        help: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            name,
            default: default as f64,
            min: 0.0,
            max: choices.len().saturating_sub(1) as f64,
            step: 1.0,
            unit: "",
            help,
            choices: choices.to_vec(),
        }
    }

    /// Reads a value as typed by a user: a number, or a choice's name.
    fn parse(&self, text: &str) -> Result<f64, String> {
        let t = text.trim();
        if let Some(i) = self.choices.iter().position(|c| c.eq_ignore_ascii_case(t)) {
            return Ok(i as f64);
        }
        let v: f64 = match t {
            "true" | "yes" if !self.choices.is_empty() => 1.0,
            "false" | "no" if !self.choices.is_empty() => 0.0,
            _ => t.parse().map_err(|_| {
                if self.choices.is_empty() {
                    format!("{}: '{t}' is not a number", self.name)
                } else {
                    format!(
                        "{}: '{t}' is not one of {}",
                        self.name,
                        self.choices.join(", ")
                    )
                }
            })?,
        };
        if !v.is_finite() || v < self.min || v > self.max {
            return Err(format!(
                "{}: {t} is outside {}..={}",
                self.name, self.min, self.max
            ));
        }
        if !self.choices.is_empty() && v.fract() != 0.0 {
            return Err(format!(
                "{}: '{t}' is not one of {}",
                self.name,
                self.choices.join(", ")
            ));
        }
        Ok(v)
    }
}

/// Resolved parameter values: every spec's default, overridden by the user.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Params {
    values: BTreeMap<String, f64>,
}

impl Params {
    /// Defaults of `specs` with `overrides` (name, text) applied; unknown
    /// names and out-of-range values are errors, so a typo never runs
    /// silently with the default.
    pub fn resolve(specs: &[ParamSpec], overrides: &[(String, String)]) -> Result<Params, String> {
        let mut values: BTreeMap<String, f64> = specs
            .iter()
            .map(|s| (s.name.to_string(), s.default))
            .collect();
        for (name, text) in overrides {
            let spec = specs.iter().find(|s| s.name == name).ok_or_else(|| {
                let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
                format!("unknown parameter '{name}' (known: {})", known.join(", "))
            })?;
            values.insert(name.clone(), spec.parse(text)?);
        }
        Ok(Params { values })
    }

    /// The value of `name`. Scenarios only ask for names they declared, so
    /// a missing one is a bug in the scenario: it reads as 0 in release
    /// builds and fails debug builds.
    pub fn get(&self, name: &str) -> f64 {
        debug_assert!(
            self.values.contains_key(name),
            "undeclared parameter {name}"
        );
        self.values.get(name).copied().unwrap_or(0.0)
    }

    /// The value rounded to a count.
    pub fn count(&self, name: &str) -> u64 {
        self.get(name).max(0.0).round() as u64
    }

    /// A switch's value.
    pub fn on(&self, name: &str) -> bool {
        self.get(name) >= 0.5
    }

    /// A choice's index.
    pub fn choice(&self, name: &str) -> usize {
        self.count(name) as usize
    }

    /// All values by name, for outcomes and share links.
    pub fn values(&self) -> &BTreeMap<String, f64> {
        &self.values
    }
}

/// A number without a useless `.0`, as parameters and metrics are shown.
pub fn fmt_num(v: f64) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A seed in decimal or `0x` hex, as links and the command line give it.
pub fn parse_seed(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<ParamSpec> {
        vec![
            ParamSpec::num("rate", 100.0, (1.0, 1000.0, 1.0), "req/s", "load"),
            ParamSpec::choice("policy", 1, &["lru", "lfu"], "eviction"),
            ParamSpec::flag("jitter", false, "spread TTLs"),
        ]
    }

    #[test]
    fn defaults_and_overrides() {
        let p = Params::resolve(&specs(), &[]).unwrap();
        assert_eq!(p.get("rate"), 100.0);
        assert_eq!(p.choice("policy"), 1);
        assert!(!p.on("jitter"));
        let o = |n: &str, v: &str| (n.to_string(), v.to_string());
        let p = Params::resolve(
            &specs(),
            &[o("rate", "250"), o("policy", "LRU"), o("jitter", "on")],
        )
        .unwrap();
        assert_eq!(
            (p.get("rate"), p.choice("policy"), p.on("jitter")),
            (250.0, 0, true)
        );
    }

    #[test]
    fn bad_values_are_reported() {
        let o = |n: &str, v: &str| vec![(n.to_string(), v.to_string())];
        assert!(Params::resolve(&specs(), &o("rat", "1"))
            .unwrap_err()
            .contains("unknown parameter 'rat'"));
        assert!(Params::resolve(&specs(), &o("rate", "0"))
            .unwrap_err()
            .contains("outside"));
        assert!(Params::resolve(&specs(), &o("rate", "x"))
            .unwrap_err()
            .contains("not a number"));
        assert!(Params::resolve(&specs(), &o("policy", "arc"))
            .unwrap_err()
            .contains("not one of lru, lfu"));
        assert!(Params::resolve(&specs(), &o("rate", "NaN")).is_err());
    }
}
