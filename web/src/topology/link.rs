//! The Topology tab's share links: `?tab=topology&seed=..&<option>=..&do=<t_ms>:<token>,..&t=<ms>` read into options, a control script and an instant (bad parts reported and skipped), and written back from a session.

use redsim_sim::topology::{Control, TopoOptions};

use crate::url::parse_query;
use redsim_sim::topology::{options_query, set_option};

/// The latest instant a link replays to: opening a link runs the world from
/// zero, and an hour of virtual time at a high write rate already takes
/// the browser a minute or more.
pub const MAX_REPLAY_US: u64 = 3_600_000_000;

/// What a link or element asks the view to start with: raw key/value pairs,
/// resolved (and checked) by [`TopoPreset::resolve`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopoPreset {
    pub pairs: Vec<(String, String)>,
}

/// A preset read: options, the control script, the instant to replay to,
/// and what was wrong with it (bad parts are skipped, not fatal).
pub struct Resolved {
    pub opts: TopoOptions,
    pub script: Vec<(u64, Control)>,
    pub until_us: Option<u64>,
    pub problems: Vec<String>,
}

impl TopoPreset {
    /// Reads `?tab=topology&seed=..&<option>=..&do=..&t=..` from a query
    /// string and fragment (the fragment wins).
    pub fn from_url(search: &str, hash: &str) -> TopoPreset {
        let mut p = TopoPreset::default();
        for part in [search.trim_start_matches('?'), hash.trim_start_matches('#')] {
            p.pairs.extend(parse_query(part));
        }
        p
    }

    /// Reads a `[data-redsim-topology]` element's `data-seed` and
    /// `data-params="replicas=3&do=2000:kill.0"`.
    pub fn from_attrs(seed: Option<&str>, params: Option<&str>) -> TopoPreset {
        let mut p = TopoPreset::default();
        if let Some(s) = seed {
            p.pairs.push(("seed".into(), s.to_string()));
        }
        p.pairs.extend(parse_query(params.unwrap_or("")));
        p
    }

    /// Options, script and instant; a bad part is reported and left out.
    pub fn resolve(&self) -> Resolved {
        let mut r = Resolved {
            opts: TopoOptions::default(),
            script: Vec::new(),
            until_us: None,
            problems: Vec::new(),
        };
        for (k, v) in &self.pairs {
            match k.as_str() {
                "do" => match parse_script(v) {
                    Ok(s) if s.last().is_some_and(|(t, _)| *t > MAX_REPLAY_US) => {
                        r.problems.push(format!(
                            "controls past {} s are more than a link may replay; ignored",
                            MAX_REPLAY_US / 1_000_000
                        ))
                    }
                    Ok(s) => r.script = s,
                    Err(e) => r.problems.push(e),
                },
                "t" => match parse_ms(v) {
                    Some(t) if t > MAX_REPLAY_US => {
                        r.problems.push(format!(
                            "t {} s is past the {} s a link may replay; stopping there",
                            t / 1_000_000,
                            MAX_REPLAY_US / 1_000_000
                        ));
                        r.until_us = Some(MAX_REPLAY_US);
                    }
                    Some(t) => r.until_us = Some(t),
                    None => r.problems.push(format!("t '{v}' is not a time in ms")),
                },
                _ => match set_option(&mut r.opts, k, v) {
                    Ok(_) => {}
                    Err(e) => r.problems.push(e),
                },
            }
        }
        if r.opts.quorum > r.opts.sentinels {
            r.problems.push(format!(
                "quorum {} is more than the {} sentinels; using {}",
                r.opts.quorum, r.opts.sentinels, r.opts.sentinels
            ));
            r.opts.quorum = r.opts.sentinels;
        }
        r
    }
}

/// A virtual instant in ms for a link: whole ms plainly, else with the
/// microseconds (`1500.25`), so links round-trip exactly.
pub fn fmt_ms(us: u64) -> String {
    if us.is_multiple_of(1000) {
        format!("{}", us / 1000)
    } else {
        let s = format!("{}.{:03}", us / 1000, us % 1000);
        s.trim_end_matches('0').to_string()
    }
}

/// Reads [`fmt_ms`]'s text back to µs (at most three decimals).
pub fn parse_ms(s: &str) -> Option<u64> {
    let s = s.trim();
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty()
        || frac.len() > 3
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let ms: u64 = whole.parse().ok()?;
    let frac_us: u64 = format!("{frac:0<3}").parse().ok()?;
    ms.checked_mul(1000)?.checked_add(frac_us)
}

/// The script as `<t_ms>:<token>,…`.
pub fn script_text(script: &[(u64, Control)]) -> String {
    script
        .iter()
        .map(|(t, c)| format!("{}:{}", fmt_ms(*t), c.token()))
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads [`script_text`] back; times must not go backwards.
pub fn parse_script(s: &str) -> Result<Vec<(u64, Control)>, String> {
    let mut out: Vec<(u64, Control)> = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (t, token) = item
            .split_once(':')
            .ok_or(format!("control '{item}' is not <t_ms>:<token>"))?;
        let t = parse_ms(t).ok_or(format!("control '{item}': '{t}' is not a time in ms"))?;
        if out.last().is_some_and(|(last, _)| *last > t) {
            return Err(format!("control '{item}' goes back in time"));
        }
        let c = Control::parse(token).map_err(|e| format!("control '{item}': {e}"))?;
        out.push((t, c));
    }
    Ok(out)
}

/// The link that reopens this session: `base` (the page path), the options
/// that differ from the defaults, the script and the instant.
pub fn topo_link(base: &str, o: &TopoOptions, script: &[(u64, Control)], now_us: u64) -> String {
    let mut url = format!("{base}?tab=topology&seed={}", o.seed);
    url.push_str(&options_query(o));
    if !script.is_empty() {
        url.push_str("&do=");
        url.push_str(&script_text(script));
    }
    url.push_str("&t=");
    url.push_str(&fmt_ms(now_us));
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ms_text_round_trips_to_the_microsecond() {
        for us in [0, 1, 999, 1000, 1500, 1_500_250, 12_345_678_901] {
            assert_eq!(parse_ms(&fmt_ms(us)), Some(us), "{us}");
        }
        assert_eq!(fmt_ms(1_500_000), "1500");
        assert_eq!(fmt_ms(1_500_250), "1500.25");
        assert_eq!(parse_ms("2.5"), Some(2500));
        for bad in ["", "-1", "1.2345", "1e3", "x", ".5", "99999999999999999999"] {
            assert_eq!(parse_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn scripts_round_trip_and_bad_ones_say_why() {
        let script = vec![
            (
                1_000_000,
                Control::Kill {
                    node: 0,
                    power_loss: true,
                },
            ),
            (2_500_500, Control::PauseLink { replica: 2 }),
            (
                2_500_500,
                Control::SetAppendfsync {
                    node: 1,
                    mode: "always".into(),
                },
            ),
            (9_000_000, Control::Failover),
            (9_000_000, Control::SetWait(1)),
        ];
        let text = script_text(&script);
        assert!(
            text.starts_with("1000:kill.0.power,2500.5:pause.2,"),
            "{text}"
        );
        let back = parse_script(&text).unwrap();
        assert_eq!(script_text(&back), text);
        assert_eq!(back.len(), script.len());
        assert!(parse_script("5:kill.0,4:heal.0")
            .unwrap_err()
            .contains("back in time"));
        assert!(parse_script("kill.0")
            .unwrap_err()
            .contains("<t_ms>:<token>"));
        assert!(parse_script("x:kill.0").unwrap_err().contains("not a time"));
        assert!(parse_script("5:explode.0").is_err());
        assert!(parse_script("").unwrap().is_empty());
    }

    #[test]
    fn links_carry_options_script_and_instant() {
        let o = TopoOptions {
            seed: 7,
            replicas: 3,
            appendfsync: "always".into(),
            ..TopoOptions::default()
        };
        let script = vec![(
            2_000_000,
            Control::Kill {
                node: 0,
                power_loss: false,
            },
        )];
        let link = topo_link("/play/", &o, &script, 12_345_000);
        assert!(link.starts_with("/play/?tab=topology&seed=7&"), "{link}");
        assert!(
            link.contains("&replicas=3") && link.contains("&fsync=always"),
            "{link}"
        );
        assert!(link.ends_with("&do=2000:kill.0&t=12345"), "{link}");
        let (_, q) = link.split_once('?').unwrap();
        let r = TopoPreset::from_url(q, "").resolve();
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert_eq!((r.opts.seed, r.opts.replicas), (7, 3));
        assert_eq!(r.opts.appendfsync, "always");
        assert_eq!(script_text(&r.script), "2000:kill.0");
        assert_eq!(r.until_us, Some(12_345_000));
        // Every option survives a link.
        let all = TopoOptions {
            seed: 3,
            ..TopoOptions::all_changed()
        };
        let (_, q) = topo_link("/", &all, &[], 0)
            .split_once('?')
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .unwrap();
        let r = TopoPreset::from_url(&q, "").resolve();
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert_eq!(r.opts, all, "{q}");
        // Defaults stay out of the link.
        let plain = topo_link("/", &TopoOptions::default(), &[], 0);
        assert_eq!(
            plain,
            format!("/?tab=topology&seed={}&t=0", TopoOptions::default().seed)
        );
    }

    #[test]
    fn bad_presets_are_reported_and_skipped() {
        let r = TopoPreset::from_url(
            "?tab=topology&replicas=9&fsync=sometimes&quorum=7&cmd=GET+a",
            "",
        )
        .resolve();
        let d = TopoOptions::default();
        assert_eq!(r.opts.replicas, d.replicas);
        assert_eq!(r.opts.appendfsync, d.appendfsync);
        assert_eq!(
            r.opts.quorum, r.opts.sentinels,
            "quorum capped at the sentinels"
        );
        let text = r.problems.join("; ");
        assert!(
            text.contains("replicas '9'") && text.contains("fsync 'sometimes'"),
            "{text}"
        );
        assert!(text.contains("quorum 7"), "{text}");
        let r = TopoPreset::from_url("?t=7200000&do=10:kill.0", "").resolve();
        assert_eq!(r.until_us, Some(MAX_REPLAY_US));
        assert!(
            r.problems[0].contains("past the 3600 s"),
            "{:?}",
            r.problems
        );
        let r = TopoPreset::from_url("?do=3600001:kill.0", "").resolve();
        assert!(r.script.is_empty() && r.problems[0].contains("ignored"));
        let r = TopoPreset::from_url("?lats=20,2,80&prio=100,200,100&latency=x", "").resolve();
        assert_eq!(r.opts.latencies_ms, vec![20.0, 2.0, 80.0]);
        assert_eq!(r.opts.priorities, vec![100, 200, 100]);
        assert!(r.problems[0].contains("latency 'x'"), "{:?}", r.problems);
        let r = TopoPreset::from_attrs(Some("0x10"), Some("rate=50&do=100:part.1")).resolve();
        assert_eq!((r.opts.seed, r.opts.writes_per_sec), (16, 50.0));
        assert_eq!(script_text(&r.script), "100:part.1");
    }
}
