//! Scenario descriptions (title, claim, what to look for, parameter specs) read from one JSON file per lesson folder, parsed once.
//!
//! They are content, not code: prose and numbers a writer edits without
//! touching a run function. The files are embedded, so the browser build
//! needs no file system, and parsed on first use; their strings are leaked
//! once so [`ScenarioInfo`] keeps its `&'static str` fields.
//!
//! A parameter's kind follows from its default: a number needs a `range`
//! (`[min, max, step]`, and may have a `unit`), a name picks one of its
//! `choices`, and `true`/`false` makes an on/off switch.

use crate::params::ParamSpec;
use crate::scenario::{Scenario, ScenarioInfo};
use serde::Deserialize;
use std::sync::OnceLock;

/// (file, text) of every lesson's descriptions.
const FILES: &[(&str, &str)] = &[
    (
        "caching/scenarios.json",
        include_str!("scenarios/caching/scenarios.json"),
    ),
    (
        "consistency/scenarios.json",
        include_str!("scenarios/consistency/scenarios.json"),
    ),
    (
        "coordination/scenarios.json",
        include_str!("scenarios/coordination/scenarios.json"),
    ),
    (
        "memory/scenarios.json",
        include_str!("scenarios/memory/scenarios.json"),
    ),
    (
        "availability/scenarios.json",
        include_str!("scenarios/availability/scenarios.json"),
    ),
    (
        "cluster/scenarios.json",
        include_str!("scenarios/cluster/scenarios.json"),
    ),
];

/// One lesson file: the group its scenarios are listed under, and them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LessonFile {
    group: String,
    scenarios: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    id: String,
    title: String,
    claim: String,
    look_for: String,
    /// `true` if `redsim run --against` can run it on a real server, else why not.
    against: Against,
    params: Vec<ParamEntry>,
    /// When a run is meant to fail a check (it shows the bug): `always`,
    /// or `param=value` (a choice's name, `on`/`off`, a number), several
    /// joined by `&` when all must hold; any entry matching is enough.
    #[serde(default)]
    shows_bug: Vec<String>,
}

/// Whether a scenario runs against a real server: `true`, or a sentence saying why not.
#[derive(Deserialize)]
#[serde(untagged)]
enum Against {
    Runs(bool),
    Not(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamEntry {
    name: String,
    default: DefaultValue,
    range: Option<(f64, f64, f64)>,
    unit: Option<String>,
    choices: Option<Vec<String>>,
    help: String,
}

/// A parameter's default; its JSON type gives the parameter's kind.
#[derive(Deserialize)]
#[serde(untagged)]
enum DefaultValue {
    Flag(bool),
    Number(f64),
    Choice(String),
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

impl ParamEntry {
    /// The spec, or why the entry is not one: fields of another kind are
    /// refused rather than ignored, so a slip in the data is reported.
    fn spec(self) -> Result<ParamSpec, String> {
        let (name, help) = (leak(self.name), leak(self.help));
        let wrong = |what: &str| Err(format!("parameter {name}: {what}"));
        match (self.default, self.range, self.unit, self.choices) {
            (DefaultValue::Number(d), Some(range), unit, None) => Ok(ParamSpec::num(
                name,
                d,
                range,
                leak(unit.unwrap_or_default()),
                help,
            )),
            (DefaultValue::Choice(d), None, None, Some(choices)) => {
                let Some(i) = choices.iter().position(|c| *c == d) else {
                    return wrong(&format!("default '{d}' is not one of its choices"));
                };
                let choices: Vec<&'static str> = choices.into_iter().map(leak).collect();
                Ok(ParamSpec::choice(name, i, &choices, help))
            }
            (DefaultValue::Flag(d), None, None, None) => Ok(ParamSpec::flag(name, d, help)),
            (DefaultValue::Number(_), ..) => wrong("a number needs a range and takes no choices"),
            (DefaultValue::Choice(_), ..) => {
                wrong("a named default needs choices and no range or unit")
            }
            (DefaultValue::Flag(_), ..) => wrong("a switch takes no range, unit or choices"),
        }
    }
}

/// One description and when its runs are meant to show the bug.
type Described = (ScenarioInfo, Vec<&'static str>);

/// Every description in `text` (the file `file`), in the file's order.
fn parse(file: &str, text: &str) -> Result<Vec<Described>, String> {
    let lesson: LessonFile = serde_json::from_str(text).map_err(|e| format!("{file}: {e}"))?;
    let group = leak(lesson.group);
    lesson
        .scenarios
        .into_iter()
        .map(|e| {
            let id = e.id;
            let params = e
                .params
                .into_iter()
                .map(ParamEntry::spec)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|err| format!("{file}: {id}: {err}"))?;
            let not_against = match e.against {
                Against::Runs(true) => None,
                Against::Runs(false) => {
                    return Err(format!(
                        "{file}: {id}: `against` is true or a reason, not false"
                    ))
                }
                Against::Not(why) => Some(leak(why)),
            };
            for cond in &e.shows_bug {
                check_condition(cond, &params).map_err(|err| format!("{file}: {id}: {err}"))?;
            }
            let info = ScenarioInfo {
                id: leak(id),
                group,
                title: leak(e.title),
                claim: leak(e.claim),
                look_for: leak(e.look_for),
                not_against,
                params,
            };
            Ok((info, e.shows_bug.into_iter().map(leak).collect()))
        })
        .collect()
}

/// Whether `cond` (one `shows_bug` entry) names parameters and values the
/// scenario has, so a slip in the data fails the tests.
fn check_condition(cond: &str, params: &[ParamSpec]) -> Result<(), String> {
    if cond == "always" {
        return Ok(());
    }
    for part in cond.split('&') {
        let (name, value) = part
            .split_once('=')
            .ok_or_else(|| format!("shows_bug '{cond}': `always` or name=value"))?;
        let p = params
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("shows_bug '{cond}': no parameter {name}"))?;
        let known = if p.choices.is_empty() {
            value.parse::<f64>().is_ok()
        } else {
            p.choices.contains(&value)
        };
        if !known {
            return Err(format!("shows_bug '{cond}': {name} cannot be {value}"));
        }
    }
    Ok(())
}

/// Whether a run of `info` with these parameter values (in its form's
/// order) is meant to fail a check: the variant that shows the bug.
pub fn shows_bug(info: &ScenarioInfo, values: &[f64]) -> bool {
    let Some((_, conds)) = all().iter().find(|(i, _)| i.id == info.id) else {
        return false;
    };
    conds.iter().any(|cond| {
        *cond == "always"
            || cond.split('&').all(|part| {
                let Some((name, value)) = part.split_once('=') else {
                    return false;
                };
                info.params
                    .iter()
                    .zip(values)
                    .any(|(p, v)| p.name == name && p.value_text(*v) == value)
            })
    })
}

/// Every description of every lesson file.
fn all() -> &'static [Described] {
    static ALL: OnceLock<Vec<Described>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = Vec::new();
        for (file, text) in FILES {
            // The test below parses every file, so this cannot fail in a
            // build whose tests pass.
            all.extend(parse(file, text).unwrap_or_else(|e| panic!("{e}")));
        }
        all
    })
}

/// The description of scenario `id`, if a lesson file has one.
pub(crate) fn describe(id: &str) -> Option<&'static ScenarioInfo> {
    all().iter().map(|(i, _)| i).find(|i| i.id == id)
}

impl Scenario {
    /// Its description. Every scenario has exactly one (a test checks), so
    /// a missing one is a bug in the data, not a user error. Defined here,
    /// beside the data, so the scenario type does not import its reader.
    pub fn info(&self) -> &'static ScenarioInfo {
        describe(self.id).unwrap_or_else(|| panic!("scenario {} has no description", self.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::SCENARIOS;
    use crate::params::Params;

    #[test]
    fn every_file_parses() {
        for (file, text) in FILES {
            let infos = parse(file, text).unwrap_or_else(|e| panic!("{e}"));
            assert!(!infos.is_empty(), "{file} describes no scenario");
        }
    }

    #[test]
    fn scenarios_and_descriptions_match_one_to_one() {
        for s in SCENARIOS {
            let n = all().iter().filter(|(i, _)| i.id == s.id).count();
            assert_eq!(n, 1, "scenario {} has {n} descriptions", s.id);
        }
        for (i, _) in all() {
            let n = SCENARIOS.iter().filter(|s| s.id == i.id).count();
            assert_eq!(n, 1, "description {} has {n} scenarios", i.id);
        }
    }

    #[test]
    fn defaults_lie_in_their_ranges() {
        for (i, _) in all() {
            for p in &i.params {
                let at = format!("{}.{}", i.id, p.name);
                assert!(p.min <= p.default && p.default <= p.max, "{at}");
                assert!(p.step > 0.0 && p.min < p.max, "{at}: empty range");
                assert!(!p.help.is_empty(), "{at} needs a help line");
            }
            assert!(Params::resolve(&i.params, &[]).is_ok(), "{}", i.id);
        }
    }

    #[test]
    fn variants_meant_to_show_the_bug_fail_a_check_and_defaults_pass() {
        let mut flagged = 0;
        for (i, conds) in all() {
            let defaults: Vec<f64> = i.params.iter().map(|p| p.default).collect();
            assert!(
                !shows_bug(i, &defaults) || conds.contains(&"always"),
                "{}",
                i.id
            );
            for cond in conds.iter().filter(|c| **c != "always") {
                let overrides: Vec<(String, String)> = cond
                    .split('&')
                    .filter_map(|p| p.split_once('='))
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect();
                let params = Params::resolve(&i.params, &overrides).unwrap();
                let values: Vec<f64> = i.params.iter().map(|p| params.get(p.name)).collect();
                assert!(shows_bug(i, &values), "{}: {cond} is recognised", i.id);
                let o = crate::run(i.id, 1, &overrides).unwrap();
                assert!(!o.passed(), "{}: {cond} should fail a check", i.id);
                flagged += 1;
            }
        }
        assert!(flagged >= 5, "variants that show the bug are marked");
    }

    #[test]
    fn slips_in_the_data_are_reported() {
        let entry = |against: &str, param: &str| {
            format!(
                r#"{{"group": "g", "scenarios": [{{"id": "s", "title": "t", "claim": "c",
                   "look_for": "l", "against": {against}, "params": [{param}]}}]}}"#
            )
        };
        let file = |param: &str| entry("true", param);
        let ok = file(r#"{"name": "n", "default": "b", "choices": ["a", "b"], "help": "h"}"#);
        let info = &parse("f", &ok).unwrap()[0].0;
        assert_eq!((info.params[0].default, info.not_against), (1.0, None));
        let why = entry(r#""one node only""#, "");
        assert_eq!(
            parse("f", &why).unwrap()[0].0.not_against,
            Some("one node only")
        );
        // `against` is required, and false needs a reason instead.
        assert!(parse("f", &entry("false", "")).is_err());
        let missing = file("").replace(r#""against": true, "#, "");
        assert!(parse("f", &missing).is_err());
        let flagged = ok.replace(r#""params""#, r#""shows_bug": ["n=a"], "params""#);
        assert_eq!(parse("f", &flagged).unwrap()[0].1, vec!["n=a"]);
        for slip in ["n=c", "m=a", "n"] {
            let bad = ok.replace(
                r#""params""#,
                &format!(r#""shows_bug": ["{slip}"], "params""#),
            );
            assert!(parse("f", &bad).is_err(), "{slip}");
        }
        for bad in [
            r#"{"name": "n", "default": "c", "choices": ["a", "b"], "help": "h"}"#,
            r#"{"name": "n", "default": 1, "help": "h"}"#,
            r#"{"name": "n", "default": true, "range": [0, 1, 1], "help": "h"}"#,
            r#"{"name": "n", "default": 1, "range": [0, 1, 1], "hlep": "h"}"#,
        ] {
            assert!(parse("f", &file(bad)).is_err(), "{bad}");
        }
    }
}
