//! Golden traces: a few scenarios' race diagrams and figures, stored in tests/golden/ and compared byte for byte, so any change in what a lesson shows is deliberate. Regenerate with `REDSIM_BLESS=1 cargo test -p redsim-tests --test golden`.

use redsim_sim as sim;
use std::path::PathBuf;

/// Scenarios whose story is a race: their diagrams are the lesson.
const GOLDEN: &[(&str, u64)] = &[
    ("delete-before-update", 1),
    ("distributed-lock", 1),
    ("failover-lost-writes", 1),
    ("replication-topology", 1),
    ("cluster-failover", 1),
];

fn path(id: &str, seed: u64) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(format!("{id}-seed{seed}.json"))
}

/// The parts of an outcome a reader sees: figures, checks, the diagram.
fn golden_text(id: &str, seed: u64) -> String {
    let out = sim::run(id, seed, &[]).unwrap_or_else(|e| panic!("{id}: {e}"));
    let v = serde_json::json!({
        "id": out.id,
        "seed": out.seed,
        "params": out.params,
        "metrics": out.metrics,
        "checks": out.checks,
        "diagram": out.diagram,
    });
    let mut s = serde_json::to_string_pretty(&v).expect("serialises");
    s.push('\n');
    s
}

#[test]
fn race_scenarios_match_their_golden_traces() {
    let bless = std::env::var_os("REDSIM_BLESS").is_some();
    for &(id, seed) in GOLDEN {
        let now = golden_text(id, seed);
        let p = path(id, seed);
        if bless {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, &now).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&p).unwrap_or_else(|e| {
            panic!("{}: {e}; run with REDSIM_BLESS=1 to create it", p.display())
        });
        if want != now {
            let line = want
                .lines()
                .zip(now.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(want.lines().count().min(now.lines().count()));
            panic!(
                "{id} (seed {seed}) differs from {} at line {}:\n  golden: {:?}\n  now:    {:?}\nIf the change is intended, regenerate with REDSIM_BLESS=1.",
                p.display(),
                line + 1,
                want.lines().nth(line).unwrap_or(""),
                now.lines().nth(line).unwrap_or("")
            );
        }
    }
}

#[test]
fn golden_traces_have_the_moment_things_go_wrong() {
    for &(id, seed) in GOLDEN {
        let v: serde_json::Value =
            serde_json::from_str(&golden_text(id, seed)).expect("valid JSON");
        let marks = v["diagram"]["marks"]
            .as_array()
            .expect("a diagram with marks");
        assert!(
            marks
                .iter()
                .any(|m| m["tone"] == "bad" || m["tone"] == "good"),
            "{id}: a golden race shows where state goes wrong or is saved"
        );
    }
}
