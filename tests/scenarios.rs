//! The whole scenario catalogue: every scenario is deterministic per seed, backs its headline claim at its defaults, and describes itself completely.

use redsim_sim::{self as sim, catalog};

fn json(id: &str, seed: u64) -> String {
    let out = sim::run(id, seed, &[]).unwrap_or_else(|e| panic!("{id}: {e}"));
    serde_json::to_string(&out).expect("outcomes serialise")
}

#[test]
fn the_catalogue_is_not_empty_and_every_entry_explains_itself() {
    let infos = catalog();
    assert!(infos.len() >= 5, "only {} scenarios", infos.len());
    for s in &infos {
        assert!(!s.title.is_empty() && !s.claim.is_empty(), "{}", s.id);
        assert!(s.look_for.len() >= 40, "{}: look_for is too short", s.id);
        assert!(
            s.id.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{}: ids are kebab-case",
            s.id
        );
    }
}

#[test]
fn every_scenario_is_deterministic_per_seed() {
    for s in catalog() {
        let a = json(s.id, 11);
        let b = json(s.id, 11);
        assert!(a == b, "{}: two runs with seed 11 differ", s.id);
    }
}

#[test]
fn every_scenario_backs_its_claim_at_its_defaults() {
    for s in catalog() {
        for seed in [1, 2] {
            let out = sim::run(s.id, seed, &[]).unwrap();
            assert!(!out.metrics.is_empty(), "{}: no headline metrics", s.id);
            assert!(!out.checks.is_empty(), "{}: no checks", s.id);
            for c in &out.checks {
                assert!(
                    c.passed,
                    "{} seed {seed}: '{}' failed: {}",
                    s.id, c.claim, c.detail
                );
            }
            for m in &out.metrics {
                assert!(
                    m.value.is_finite(),
                    "{}: metric {} is {}",
                    s.id,
                    m.name,
                    m.value
                );
            }
            if let Some(d) = &out.diagram {
                for st in &d.steps {
                    assert!(
                        st.from < d.lanes.len() && st.to < d.lanes.len(),
                        "{}: step off lanes",
                        s.id
                    );
                    assert!(
                        st.until_us >= st.at_us,
                        "{}: a step ends before it starts",
                        s.id
                    );
                }
                for m in &d.marks {
                    assert!(m.lane < d.lanes.len(), "{}: mark off lanes", s.id);
                    assert!(
                        ["bad", "good", "info"].contains(&m.tone.as_str()),
                        "{}: tone {}",
                        s.id,
                        m.tone
                    );
                }
            }
        }
    }
}

#[test]
fn parameters_change_runs_and_bad_ones_are_refused() {
    for s in catalog() {
        let bad = sim::run(s.id, 1, &[("no-such-param".into(), "1".into())]);
        assert!(bad.unwrap_err().contains("unknown parameter"), "{}", s.id);
        for p in &s.params {
            let too_big = format!("{}", p.max + p.step.max(1.0));
            let err = sim::run(s.id, 1, &[(p.name.to_string(), too_big)]);
            assert!(
                err.is_err(),
                "{}.{} accepted a value above its max",
                s.id,
                p.name
            );
        }
    }
}
