//! The headless scenario runner (`redsim scenarios`, `redsim run`) over the whole catalogue: JSON that parses and names its run, an SVG for every scenario, and clear errors for bad usage.

use redsim_cli::run::{run_command, scenarios_command};
use redsim_sim::catalog;

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// Runs a runner command, returning (result, stdout).
fn call(
    f: fn(&[String], &mut dyn std::io::Write) -> Result<u8, String>,
    a: &[&str],
) -> (Result<u8, String>, String) {
    let mut out = Vec::new();
    let r = f(&args(a), &mut out);
    (r, String::from_utf8(out).expect("the runner writes UTF-8"))
}

/// A private scratch directory for files the runner writes.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("redsim-runner-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn scenarios_lists_every_entry_and_json_has_the_params() {
    let infos = catalog();
    let (r, text) = call(scenarios_command, &[]);
    assert_eq!(r, Ok(0));
    for i in &infos {
        assert!(
            text.contains(i.id) && text.contains(i.title),
            "{} missing:\n{text}",
            i.id
        );
        assert!(text.contains(i.group));
    }
    let (r, json) = call(scenarios_command, &["--json"]);
    assert_eq!(r, Ok(0));
    let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let arr = v.as_array().expect("an array of scenario infos");
    assert_eq!(arr.len(), infos.len());
    for (j, i) in arr.iter().zip(&infos) {
        assert_eq!(j["id"], i.id);
        assert_eq!(j["claim"], i.claim);
        assert_eq!(
            j["params"].as_array().map(Vec::len),
            Some(i.params.len()),
            "{}",
            i.id
        );
        // One scenario's details name every parameter with its help line.
        let (r, d) = call(scenarios_command, &[i.id]);
        assert_eq!(r, Ok(0));
        for p in &i.params {
            assert!(
                d.contains(p.name) && d.contains(p.help),
                "{}.{}:\n{d}",
                i.id,
                p.name
            );
        }
    }
}

#[test]
fn every_scenario_runs_to_json_and_svg() {
    let dir = scratch("all");
    for i in catalog() {
        let (r, stdout) = call(run_command, &[i.id, "--seed", "3", "--json"]);
        assert_eq!(r, Ok(0), "{}", i.id);
        let v: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{}: bad JSON {e}", i.id));
        assert_eq!(v["id"], i.id);
        assert_eq!(v["seed"], 3);
        for p in &i.params {
            assert_eq!(
                v["params"][p.name].as_f64(),
                Some(p.default),
                "{}.{}",
                i.id,
                p.name
            );
        }
        assert!(v["metrics"].is_array() && v["checks"].is_array());

        // Text report plus files: the JSON file holds the same outcome.
        let json_path = dir.join(format!("{}.json", i.id));
        let svg_path = dir.join(format!("{}.svg", i.id));
        let (r, text) = call(
            run_command,
            &[
                i.id,
                "--seed",
                "3",
                "--json",
                json_path.to_str().unwrap(),
                "--svg",
                svg_path.to_str().unwrap(),
            ],
        );
        assert_eq!(r, Ok(0), "{}", i.id);
        assert!(
            text.starts_with(&format!("{}: {}", i.id, i.title)),
            "{text}"
        );
        assert!(text.contains("checks passed"), "{text}");
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        assert_eq!(file, v, "{}: --json FILE and --json stdout differ", i.id);
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.ends_with("</svg>"),
            "{}",
            i.id
        );
        for m in v["metrics"].as_array().unwrap() {
            assert!(
                text.contains(m["name"].as_str().unwrap()),
                "{}: metric missing",
                i.id
            );
        }
        for c in v["checks"].as_array().unwrap() {
            let mark = if c["passed"] == true { '✓' } else { '✗' };
            let line = format!("{mark} {}", c["claim"].as_str().unwrap());
            assert!(text.contains(&line), "{}: {line} missing in\n{text}", i.id);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn parameters_are_applied_and_bad_ones_refused() {
    for i in catalog() {
        // Change the first parameter away from its default (a choice by
        // name): the outcome records the new value.
        if let Some(p) = i.params.first() {
            let (text, want) =
                if let Some(k) = (0..p.choices.len()).find(|&k| k as f64 != p.default) {
                    (p.choices[k].to_string(), k as f64)
                } else if p.default != p.min {
                    (format!("{}", p.min), p.min)
                } else {
                    (format!("{}", p.max), p.max)
                };
            let set = format!("{}={text}", p.name);
            let (r, out) = call(run_command, &[i.id, "--json", "--set", &set]);
            assert_eq!(r, Ok(0), "{}", i.id);
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(
                v["params"][p.name].as_f64(),
                Some(want),
                "{}.{}",
                i.id,
                p.name
            );
        }

        let (r, out) = call(run_command, &[i.id, "--set", "no-such-param=1"]);
        let e = r.unwrap_err();
        assert!(e.contains("unknown parameter 'no-such-param'"), "{e}");
        assert!(out.is_empty(), "nothing printed on error");
        if let Some(p) = i.params.iter().find(|p| p.choices.is_empty()) {
            let set = format!("{}=banana", p.name);
            let e = call(run_command, &[i.id, "--set", &set]).0.unwrap_err();
            assert!(e.contains("not a number"), "{e}");
            let set = format!("{}={}", p.name, p.max + p.step.max(1.0));
            let e = call(run_command, &[i.id, "--set", &set]).0.unwrap_err();
            assert!(e.contains("outside"), "{e}");
        }
    }
}

#[test]
fn usage_errors_are_clear() {
    let e = call(run_command, &["no-such-scenario"]).0.unwrap_err();
    assert!(
        e.starts_with("run: unknown scenario 'no-such-scenario'"),
        "{e}"
    );
    let e = call(run_command, &[]).0.unwrap_err();
    assert!(e.contains("which scenario"), "{e}");
    let e = call(run_command, &["x", "--seed", "twelve"]).0.unwrap_err();
    assert!(e.contains("--seed 'twelve' is not a number"), "{e}");
    let e = call(run_command, &["x", "--svg"]).0.unwrap_err();
    assert!(e.contains("--svg needs a value"), "{e}");
    let e = call(scenarios_command, &["--yaml"]).0.unwrap_err();
    assert!(e.contains("unknown option '--yaml'"), "{e}");
}
