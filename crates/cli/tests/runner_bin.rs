//! `redsim scenarios` and `redsim run` as a user runs them: exit codes and messages for bad usage, help, and a listing.

use std::process::Command;

fn redsim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_redsim"))
        .args(args)
        .output()
        .expect("the redsim binary runs")
}

#[test]
fn bad_usage_exits_2_with_a_message() {
    for (args, want) in [
        (&["run"][..], "which scenario"),
        (
            &["run", "no-such-scenario"][..],
            "unknown scenario 'no-such-scenario'",
        ),
        (
            &["run", "x", "--seed", "abc"][..],
            "--seed 'abc' is not a number",
        ),
        (&["scenarios", "--yaml"][..], "unknown option '--yaml'"),
    ] {
        let out = redsim(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(err.contains("--help')"), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn help_and_listing_succeed() {
    let out = redsim(&["run", "--help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--set name=value"));
    let out = redsim(&["--help"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("redsim run <id>"));
    let out = redsim(&["scenarios"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for i in redsim_sim::catalog() {
        assert!(text.contains(i.id), "{} missing:\n{text}", i.id);
    }
}
