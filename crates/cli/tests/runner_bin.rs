//! `redsim scenarios` and `redsim run` as a user runs them: exit codes and messages for bad usage, help, and a listing.

mod common;
use common::{fails, redsim, succeeds};

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
        let out = fails(args, 2, want);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--help')"), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn help_and_listing_succeed() {
    assert!(succeeds(&["run", "--help"]).contains("--set name=value"));
    let out = redsim(&["--help"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("redsim run <id>"));
    let text = succeeds(&["scenarios"]);
    for i in redsim_sim::catalog() {
        assert!(text.contains(i.id), "{} missing:\n{text}", i.id);
    }
}
