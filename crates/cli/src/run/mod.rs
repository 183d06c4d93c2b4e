//! The headless scenario runner: `redsim scenarios` lists the catalogue and `redsim run <id>` runs one, printing its metrics, checks and notes, or writing the Outcome as JSON and its drawing as SVG.
//!
//! Both commands are plain functions over arguments and a writer, so tests
//! call them directly; the binary only maps their result to an exit code.
//! Parameter parsing and its error texts come from `sim::run` itself, so the
//! command line, the browser and share links refuse the same bad values with
//! the same words.

mod against;
mod options;

pub use options::{RunOptions, Status, DEFAULT_SEED};

use std::fmt::Write as _;
use std::io::Write;

use redsim_sim::params::fmt_num;
use redsim_sim::{self as sim, Outcome, ScenarioInfo};
use redsim_viz::svg::metric;

/// Exit status of a run whose checks failed under `--check`.
pub const CHECKS_FAILED: u8 = 1;

/// The usage text of both scenario commands.
pub fn scenario_usage() -> String {
    "\
Usage: redsim scenarios [--json] [<id>]
       redsim run <id> [--seed N] [--set name=value ...] [--json [FILE]] [--svg FILE] [--check]
       redsim run <id> --against redis://HOST:PORT[/DB] [--speed N] [--seed N] [--set ...] [--json [FILE]]

  scenarios          list the catalogue (id, group, title, claim); with an id,
                     that scenario's parameters with defaults, ranges and units
    --json           the full catalogue entries as JSON, parameters included
  run <id>           run a scenario on the virtual clock and print its headline
                     metrics, each check (✓/✗ with the figures behind it) and notes
    --seed N         seed of every random choice (decimal or 0x hex, default 1)
    --set name=value override a parameter (repeatable); a choice takes its name
    --json [FILE]    write the Outcome as JSON to FILE, or to stdout instead of text
    --svg FILE       write the race diagram (or the charts, stacked) as SVG
    --check          exit with status 1 when a check fails
    --against URL    also send the scenario's Redis traffic to a real server in
                     wall-clock time (application, network and database stay
                     simulated) and print both runs' metrics and checks side by
                     side; each Redis node of the run starts with FLUSHDB on the
                     URL's database (default 0). Scenarios that cannot run this
                     way say why (exit 2); an unreachable server exits 1
    --speed N        with --against, run N times faster than virtual time
                     (default 1; a scenario takes its virtual time in wall time)
"
    .to_string()
}

/// `redsim scenarios [--json] [<id>]`. An `Err` is a usage error to print
/// before exiting with status 2.
pub fn scenarios_command(args: &[String], out: &mut dyn Write) -> Result<Status, String> {
    let mut json = false;
    let mut id: Option<&str> = None;
    for a in args {
        match a.as_str() {
            "--json" => json = true,
            s if s.starts_with('-') => return Err(format!("scenarios: unknown option '{s}'")),
            s if id.is_none() => id = Some(s),
            s => return Err(format!("scenarios: unexpected argument '{s}'")),
        }
    }
    let infos: Vec<ScenarioInfo> = match id {
        Some(id) => {
            let s = sim::find(id).ok_or_else(|| unknown_scenario(id))?;
            vec![s.info().clone()]
        }
        None => sim::catalog(),
    };
    let text = if json {
        let mut t = if id.is_some() {
            serde_json::to_string_pretty(&infos[0])
        } else {
            serde_json::to_string_pretty(&infos)
        }
        .map_err(|e| format!("cannot encode JSON: {e}"))?;
        t.push('\n');
        t
    } else if id.is_some() {
        describe(&infos[0])
    } else {
        list(&infos)
    };
    out.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write: {e}"))?;
    Ok(0)
}

fn unknown_scenario(id: &str) -> String {
    let ids: Vec<&str> = sim::catalog().iter().map(|i| i.id).collect();
    if ids.is_empty() {
        format!("unknown scenario '{id}' (the catalogue is empty)")
    } else {
        format!("unknown scenario '{id}' (known: {})", ids.join(", "))
    }
}

/// The catalogue as text, grouped in catalogue order of first appearance.
pub fn list(infos: &[ScenarioInfo]) -> String {
    let mut groups: Vec<&str> = Vec::new();
    for i in infos {
        if !groups.contains(&i.group) {
            groups.push(i.group);
        }
    }
    let width = infos.iter().map(|i| i.id.len()).max().unwrap_or(0);
    let mut s = String::new();
    if infos.is_empty() {
        s.push_str("The scenario catalogue is empty.\n");
    }
    for g in groups {
        let _ = writeln!(s, "{g}");
        for i in infos.iter().filter(|i| i.group == g) {
            let _ = writeln!(s, "  {:<width$}  {}", i.id, i.title);
            let _ = writeln!(s, "  {:<width$}  {}", "", i.claim);
        }
        s.push('\n');
    }
    if !infos.is_empty() {
        s.push_str(
            "Run one with `redsim run <id>`; `redsim scenarios <id>` lists its parameters.\n",
        );
    }
    s
}

/// One scenario in full: title, claim, what to look for, parameters.
pub fn describe(i: &ScenarioInfo) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} ({}): {}", i.id, i.group, i.title);
    let _ = writeln!(s, "claim: {}", i.claim);
    let _ = writeln!(s, "look for: {}", i.look_for);
    match i.not_against {
        None => s.push_str("against a real server: yes (`redsim run <id> --against redis://…`)\n"),
        Some(why) => {
            let _ = writeln!(s, "against a real server: no. {why}");
        }
    }
    if i.params.is_empty() {
        s.push_str("parameters: none\n");
        return s;
    }
    s.push_str("parameters (--set name=value):\n");
    let width = i.params.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in &i.params {
        let range = if p.choices.is_empty() {
            format!(
                "{} (range {}..={} step {}{})",
                fmt_num(p.default),
                fmt_num(p.min),
                fmt_num(p.max),
                fmt_num(p.step),
                unit_suffix(p.unit)
            )
        } else {
            format!(
                "{} (one of {})",
                p.value_text(p.default),
                p.choices.join(", ")
            )
        };
        let _ = writeln!(s, "  {:<width$}  {range}", p.name);
        let _ = writeln!(s, "  {:<width$}  {}", "", p.help);
    }
    s
}

fn unit_suffix(unit: &str) -> String {
    if unit.is_empty() {
        String::new()
    } else {
        format!(", {unit}")
    }
}

/// `redsim run …`. An `Err` is a usage error (bad option, unknown scenario,
/// unknown parameter, bad value) to print before exiting with status 2.
pub fn run_command(args: &[String], out: &mut dyn Write) -> Result<Status, String> {
    let o = RunOptions::from_args(args)?;
    if let Some(target) = &o.against {
        return against::run_against(&o, target, out);
    }
    let outcome = sim::run(&o.id, o.seed, &o.overrides).map_err(|e| format!("run: {e}"))?;
    let info = sim::find(&o.id).map(|s| s.info());
    let json = || {
        serde_json::to_string_pretty(&outcome)
            .map(|mut t| {
                t.push('\n');
                t
            })
            .map_err(|e| format!("cannot encode JSON: {e}"))
    };
    let write_err = |e: std::io::Error| format!("cannot write: {e}");
    match &o.json {
        Some(None) => out.write_all(json()?.as_bytes()).map_err(write_err)?,
        Some(Some(path)) => {
            std::fs::write(path, json()?).map_err(|e| format!("cannot write {path}: {e}"))?;
            out.write_all(report(&outcome, info).as_bytes())
                .map_err(write_err)?;
        }
        None => out
            .write_all(report(&outcome, info).as_bytes())
            .map_err(write_err)?,
    }
    if let Some(path) = &o.svg {
        std::fs::write(path, redsim_viz::outcome_svg(&outcome))
            .map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok(if o.check && !outcome.passed() {
        CHECKS_FAILED
    } else {
        0
    })
}

/// The text report of a run: what ran, headline metrics, checks, notes.
pub fn report(o: &Outcome, info: Option<&ScenarioInfo>) -> String {
    let mut s = String::new();
    match info {
        Some(i) => {
            let _ = writeln!(s, "{}: {}", o.id, i.title);
            let _ = writeln!(s, "claim: {}", i.claim);
        }
        None => {
            let _ = writeln!(s, "{}", o.id);
        }
    }
    let params: Vec<String> = o
        .params
        .iter()
        .map(|(name, v)| {
            let spec = info.and_then(|i| i.params.iter().find(|p| p.name == name));
            match spec {
                Some(p) if !p.choices.is_empty() => format!("{name}={}", p.value_text(*v)),
                Some(p) if !p.unit.is_empty() => format!("{name}={} {}", fmt_num(*v), p.unit),
                _ => format!("{name}={}", fmt_num(*v)),
            }
        })
        .collect();
    let _ = writeln!(
        s,
        "seed {} · {} of virtual time",
        o.seed,
        fmt_duration(o.duration_us)
    );
    if !params.is_empty() {
        let _ = writeln!(s, "params: {}", params.join(", "));
    }
    if !o.metrics.is_empty() {
        s.push_str("\nmetrics\n");
        let width = o
            .metrics
            .iter()
            .map(|m| m.name.chars().count())
            .max()
            .unwrap_or(0);
        for m in &o.metrics {
            let pad = width - m.name.chars().count();
            let _ = writeln!(
                s,
                "  {}{}  {} {}",
                m.name,
                " ".repeat(pad),
                metric(m.value),
                m.unit
            );
        }
    }
    if !o.checks.is_empty() {
        s.push_str("\nchecks\n");
        for c in &o.checks {
            let mark = if c.passed { '✓' } else { '✗' };
            let _ = writeln!(s, "  {mark} {}", c.claim);
            if !c.detail.is_empty() {
                let _ = writeln!(s, "    {}", c.detail);
            }
        }
    }
    if !o.notes.is_empty() {
        s.push_str("\nnotes\n");
        for n in &o.notes {
            let _ = writeln!(s, "  - {n}");
        }
    }
    let passed = o.checks.iter().filter(|c| c.passed).count();
    let _ = writeln!(
        s,
        "\n{passed}/{} checks passed{}",
        o.checks.len(),
        match (&o.diagram, o.charts.len()) {
            (Some(_), _) => "; --svg draws the race diagram".to_string(),
            (None, 0) => String::new(),
            (None, n) => format!("; --svg draws {n} chart{}", if n == 1 { "" } else { "s" }),
        }
    );
    s.trim_end_matches('\n').to_string() + "\n"
}

fn fmt_duration(us: u64) -> String {
    if us >= 1_000_000 {
        format!("{} s", metric(us as f64 / 1e6))
    } else if us >= 1_000 {
        format!("{} ms", metric(us as f64 / 1e3))
    } else {
        format!("{us} µs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_sim::{Chart, ParamSpec, Series};

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn demo_info() -> ScenarioInfo {
        ScenarioInfo {
            id: "demo",
            group: "testing",
            title: "A demo",
            claim: "Demos demonstrate.",
            look_for: "Look at it.",
            not_against: None,
            params: vec![
                ParamSpec::num("rate", 100.0, (1.0, 1000.0, 1.0), "req/s", "load"),
                ParamSpec::choice("protection", 1, &["none", "lock"], "what guards the DB"),
            ],
        }
    }

    fn demo_outcome() -> Outcome {
        let p = sim::Params::resolve(&demo_info().params, &[]).unwrap();
        let mut o = Outcome::new("demo", 7, &p);
        o.duration_us = 2_500_000;
        o.metric("DB calls", 3.0, "calls")
            .metric("p99 latency", 12.345678, "ms");
        o.check("the DB sees few calls", true, "3 ≤ 5".to_string());
        o.check("nobody waits", false, "p99 12.3 ms > 10 ms".to_string());
        o.note("Three calls reached the database.");
        o.charts
            .push(Chart::line("c", "t", "y").with(Series::new("s", vec![(0.0, 1.0)])));
        o
    }

    #[test]
    fn options_parse_every_form() {
        let o = RunOptions::from_args(&args(&[
            "stampede",
            "--seed",
            "0x10",
            "--set",
            "protection=lock",
            "--set=rate=5",
            "--json",
            "out.json",
            "--svg",
            "d.svg",
            "--check",
        ]))
        .unwrap();
        assert_eq!(o.id, "stampede");
        assert_eq!(o.seed, 16);
        assert_eq!(
            o.overrides,
            vec![
                ("protection".to_string(), "lock".to_string()),
                ("rate".to_string(), "5".to_string())
            ]
        );
        assert_eq!(o.json, Some(Some("out.json".to_string())));
        assert_eq!(o.svg.as_deref(), Some("d.svg"));
        assert!(o.check);
        // --json before the id writes to stdout; the id is still read.
        let o = RunOptions::from_args(&args(&["--json", "x"])).unwrap();
        assert_eq!((o.id.as_str(), o.json), ("x", Some(None)));
        assert_eq!(
            RunOptions::from_args(&args(&["x"])).unwrap().seed,
            DEFAULT_SEED
        );
    }

    #[test]
    fn bad_usage_is_reported() {
        let err = |a: &[&str]| RunOptions::from_args(&args(a)).unwrap_err();
        assert!(err(&[]).contains("which scenario"));
        assert!(err(&["x", "--seed"]).contains("--seed needs a value"));
        assert!(err(&["x", "--seed", "abc"]).contains("not a number"));
        assert!(err(&["x", "--set", "noequals"]).contains("name=value"));
        assert!(err(&["x", "--frobnicate"]).contains("unknown option '--frobnicate'"));
        assert!(err(&["x", "rate=5"]).contains("--set rate=5"));
        assert!(err(&["x", "--against", "http://h:1"]).contains("redis://"));
        assert!(err(&["x", "--speed", "2"]).contains("give --against too"));
        let against = ["x", "--against", "redis://h:1", "--speed"];
        assert!(err(&[&against[..], &["0"]].concat()).contains("above 0"));
        let o = RunOptions::from_args(&args(&[&against[..], &["2.5"]].concat())).unwrap();
        assert_eq!((o.against.unwrap().addr.as_str(), o.speed), ("h:1", 2.5));
        let mut out = Vec::new();
        let e = run_command(&args(&["no-such-scenario"]), &mut out).unwrap_err();
        assert!(e.contains("unknown scenario 'no-such-scenario'"), "{e}");
        assert!(out.is_empty());
        let e = scenarios_command(&args(&["no-such-scenario"]), &mut out).unwrap_err();
        assert!(e.contains("unknown scenario"), "{e}");
        assert!(scenarios_command(&args(&["--bogus"]), &mut out).is_err());
    }

    #[test]
    fn report_shows_metrics_checks_and_notes() {
        let info = demo_info();
        let r = report(&demo_outcome(), Some(&info));
        for want in [
            "demo: A demo",
            "claim: Demos demonstrate.",
            "seed 7 · 2.5 s of virtual time",
            "params: protection=lock, rate=100 req/s",
            "  DB calls     3 calls",
            "  p99 latency  12.346 ms",
            "  ✓ the DB sees few calls\n    3 ≤ 5",
            "  ✗ nobody waits\n    p99 12.3 ms > 10 ms",
            "  - Three calls reached the database.",
            "1/2 checks passed; --svg draws 1 chart",
        ] {
            assert!(r.contains(want), "missing {want:?} in\n{r}");
        }
    }

    #[test]
    fn listing_groups_and_describes() {
        let mut b = demo_info();
        b.id = "other";
        b.group = "memory";
        let mut c = demo_info();
        c.id = "third";
        let l = list(&[demo_info(), b, c]);
        // Groups in order of first appearance, each scenario under its group.
        let t = l.find("testing\n").unwrap();
        let m = l.find("memory\n").unwrap();
        assert!(t < m && l.find("third").unwrap() < m, "{l}");
        assert!(
            l.contains("  demo   A demo\n         Demos demonstrate."),
            "{l}"
        );
        assert!(list(&[]).contains("empty"));
        let d = describe(&demo_info());
        assert!(
            d.contains("rate        100 (range 1..=1000 step 1, req/s)"),
            "{d}"
        );
        assert!(d.contains("protection  lock (one of none, lock)"), "{d}");
        assert!(d.contains("what guards the DB"));
        assert!(d.contains("against a real server: yes"), "{d}");
        let mut n = demo_info();
        n.not_against = Some("It needs five masters.");
        let d = describe(&n);
        assert!(
            d.contains("against a real server: no. It needs five masters."),
            "{d}"
        );
    }

    #[test]
    fn seeds_read_decimal_and_hex() {
        use redsim_sim::params::parse_seed;
        assert_eq!(parse_seed("42"), Some(42));
        assert_eq!(parse_seed("0xff"), Some(255));
        assert_eq!(parse_seed("-1"), None);
    }
}
