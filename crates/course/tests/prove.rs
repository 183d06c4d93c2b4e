//! Proves the whole course: every step's reference answer passes and every wrong answer is refused, on the real engine and scenario runs.

#[test]
fn every_step_is_proven() {
    let mut failures = Vec::new();
    let mut steps = 0;
    for ch in redsim_course::all() {
        for step in &ch.steps {
            steps += 1;
            if let Err(e) = redsim_course::prove(step) {
                failures.push(format!("{}/{}: {e}", ch.id, step.id));
            }
        }
    }
    assert!(steps > 0);
    assert!(
        failures.is_empty(),
        "{} of {steps} steps failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
