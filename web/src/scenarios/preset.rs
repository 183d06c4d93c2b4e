//! What a link or a documentation element asks the scenario library to show: `?scenario=<id>&seed=N&<param>=<value>` read into a preset, the values a form starts with, and the link written back from the form.

use redsim_sim::params::parse_seed;
use redsim_sim::{ParamSpec, Params, ScenarioInfo};

use crate::url::{encode_component, parse_query};

/// Query keys that are not scenario parameters.
const RESERVED: &[&str] = &[
    "scenario", "seed", "cmd", "command", "clock", "t0", "tab", "lesson", "step",
];

/// What a link or element asks the library to show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScenarioPreset {
    pub id: Option<String>,
    pub seed: Option<u64>,
    /// Parameter overrides as typed (a choice may be given by name).
    pub params: Vec<(String, String)>,
}

impl ScenarioPreset {
    /// Reads `?scenario=…&seed=…&<param>=<value>` from a query string and
    /// fragment (the fragment wins, as for console links).
    pub fn from_url(search: &str, hash: &str) -> ScenarioPreset {
        let mut p = ScenarioPreset::default();
        for part in [search.trim_start_matches('?'), hash.trim_start_matches('#')] {
            p.read_pairs(parse_query(part), true);
        }
        p
    }

    /// Reads a `data-redsim-scenario` element's attributes.
    pub fn from_attrs(id: &str, seed: Option<&str>, params: Option<&str>) -> ScenarioPreset {
        let mut p = ScenarioPreset {
            id: Some(id.trim().to_string()).filter(|s| !s.is_empty()),
            seed: seed.and_then(parse_seed),
            params: Vec::new(),
        };
        p.read_pairs(parse_query(params.unwrap_or("")), false);
        p
    }

    fn read_pairs(&mut self, pairs: Vec<(String, String)>, reserved: bool) {
        for (k, v) in pairs {
            match k.as_str() {
                "scenario" if reserved => {
                    self.id = Some(v.trim().to_string()).filter(|s| !s.is_empty())
                }
                "seed" if reserved => self.seed = parse_seed(&v).or(self.seed),
                k if RESERVED.contains(&k) && reserved => {}
                "" => {}
                _ => {
                    self.params.retain(|(n, _)| *n != k);
                    self.params.push((k, v));
                }
            }
        }
    }
}

/// The link that reopens scenario `id` with `seed` and the parameters that
/// differ from their defaults (choices by name, so links read well).
pub fn scenario_link(
    base: &str,
    id: &str,
    seed: u64,
    specs: &[ParamSpec],
    values: &[f64],
) -> String {
    let mut url = format!("{base}?scenario={}&seed={seed}", encode_component(id));
    for (p, v) in specs.iter().zip(values) {
        if *v != p.default {
            url.push('&');
            url.push_str(&encode_component(p.name));
            url.push('=');
            url.push_str(&encode_component(&p.value_text(*v)));
        }
    }
    url
}

/// The values a form starts with: defaults, then the preset's overrides;
/// a bad override is reported and the defaults are used.
pub fn initial_values(
    info: &ScenarioInfo,
    overrides: &[(String, String)],
) -> (Vec<f64>, Option<String>) {
    let (params, err) = match Params::resolve(&info.params, overrides) {
        Ok(p) => (p, None),
        Err(e) => (
            Params::resolve(&info.params, &[]).unwrap_or_default(),
            Some(format!("{e}; using the defaults")),
        ),
    };
    let values = info
        .params
        .iter()
        .map(|p| params.values().get(p.name).copied().unwrap_or(p.default))
        .collect();
    (values, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<ParamSpec> {
        vec![
            ParamSpec::num("rate", 100.0, (1.0, 1000.0, 1.0), "req/s", "load"),
            ParamSpec::choice("protection", 0, &["none", "lock", "singleflight"], "guard"),
        ]
    }

    fn info() -> ScenarioInfo {
        ScenarioInfo {
            id: "demo",
            group: "testing",
            title: "Demo",
            claim: "c",
            look_for: "l",
            not_against: None,
            params: specs(),
        }
    }

    #[test]
    fn urls_name_the_scenario_seed_and_params() {
        let p = ScenarioPreset::from_url(
            "?scenario=stampede&seed=0x10&protection=lock&cmd=GET%20a&rate=5",
            "",
        );
        assert_eq!(p.id.as_deref(), Some("stampede"));
        assert_eq!(p.seed, Some(16));
        assert_eq!(
            p.params,
            vec![
                ("protection".into(), "lock".into()),
                ("rate".into(), "5".into())
            ]
        );
        // The fragment wins for repeated keys.
        let p = ScenarioPreset::from_url("?scenario=a&rate=1", "#rate=2");
        assert_eq!(p.params, vec![("rate".into(), "2".into())]);
        assert_eq!(ScenarioPreset::from_url("?cmd=PING", "").id, None);
    }

    #[test]
    fn links_round_trip_through_the_preset() {
        let values = vec![250.0, 2.0];
        let link = scenario_link("/play/", "demo", 7, &specs(), &values);
        assert_eq!(
            link,
            "/play/?scenario=demo&seed=7&rate=250&protection=singleflight"
        );
        let (_, q) = link.split_once('?').unwrap();
        let p = ScenarioPreset::from_url(q, "");
        let (back, err) = initial_values(&info(), &p.params);
        assert_eq!((back, err), (values, None));
        // Defaults are left out of the link.
        assert_eq!(
            scenario_link("/", "demo", 1, &specs(), &[100.0, 0.0]),
            "/?scenario=demo&seed=1"
        );
    }

    #[test]
    fn bad_overrides_fall_back_to_defaults_with_a_message() {
        let (v, err) = initial_values(&info(), &[("rate".into(), "99999".into())]);
        assert_eq!(v, vec![100.0, 0.0]);
        assert!(err.unwrap().contains("outside"));
        let (_, err) = initial_values(&info(), &[("nope".into(), "1".into())]);
        assert!(err.unwrap().contains("unknown parameter 'nope'"));
    }

    #[test]
    fn attributes_preset_an_embedded_scenario() {
        let p = ScenarioPreset::from_attrs(" stampede ", Some("3"), Some("protection=lock&seed=9"));
        assert_eq!(p.id.as_deref(), Some("stampede"));
        assert_eq!(p.seed, Some(3));
        // In data-params every key is a parameter, even `seed`.
        assert_eq!(p.params.len(), 2);
    }
}
