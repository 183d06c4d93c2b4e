//! Every scenario at its defaults runs in under half a second natively, measured as the CPU time of the thread that runs it (the browser re-runs a scenario on every parameter change, at about twice native time).
//!
//! Timing means something only with optimisations, so the test is ignored
//! in a debug build; `cargo xtask test` runs it with `--release`. The
//! budget carries a margin for a loaded CI machine (other jobs share its
//! two cores; CPU time excludes waiting, not cache and frequency effects).

/// The goal per scenario, in CPU seconds.
const GOAL_S: f64 = 0.5;
/// What the test allows: the goal with a margin for a loaded machine.
const BUDGET_S: f64 = 2.0 * GOAL_S;

/// CPU time of the calling thread, in seconds.
#[cfg(unix)]
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

#[cfg(not(unix))]
fn thread_cpu_s() -> f64 {
    // Wall time stands in where there is no thread clock.
    use std::sync::OnceLock;
    static T0: OnceLock<std::time::Instant> = OnceLock::new();
    T0.get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "timing is meaningful with optimisations only: cargo xtask test runs it with --release"
)]
fn every_scenario_runs_at_its_defaults_within_the_budget() {
    let mut times = Vec::new();
    for info in redsim_sim::catalog() {
        let t0 = thread_cpu_s();
        let out = redsim_sim::run(info.id, 1, &[]).expect("a catalogue id runs");
        let cpu = thread_cpu_s() - t0;
        assert_eq!(out.id, info.id);
        times.push((cpu, info.id));
    }
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("scenario CPU time at defaults, seed 1 (goal {GOAL_S} s, budget {BUDGET_S} s):");
    for (cpu, id) in &times {
        println!("  {cpu:8.3} s  {id}");
    }
    let total: f64 = times.iter().map(|t| t.0).sum();
    println!("  {total:8.3} s  all {} scenarios", times.len());
    let over: Vec<String> = times
        .iter()
        .filter(|(cpu, _)| *cpu > BUDGET_S)
        .map(|(cpu, id)| format!("{id} {cpu:.3} s"))
        .collect();
    assert!(over.is_empty(), "over {BUDGET_S} s of CPU: {over:?}");
}
