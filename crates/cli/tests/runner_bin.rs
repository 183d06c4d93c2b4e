//! `redsim scenarios` and `redsim run` as a user runs them: exit codes and messages for bad usage, help, and a listing.

mod common;

use common::{fails, redsim};

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
        let err = fails(args, 2);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(err.contains("--help')"), "{err}");
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
