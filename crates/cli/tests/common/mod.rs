//! What the binary's test files share: running `redsim` as a user does, and the checks of how a run ended.

use std::process::{Command, Output};

/// Runs the `redsim` binary with `args` to completion.
pub fn redsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_redsim"))
        .args(args)
        .output()
        .expect("the redsim binary runs")
}

/// Runs `redsim` with `args`, asserts that it succeeds, and returns what
/// it printed.
pub fn succeeds(args: &[&str]) -> String {
    let out = redsim(args);
    assert!(out.status.success(), "{args:?}: {:?}", out.status);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `redsim` with `args` and asserts that it exits with `code` and
/// says `message` on stderr; returns the run for further checks.
pub fn fails(args: &[&str], code: i32, message: &str) -> Output {
    let out = redsim(args);
    assert_eq!(out.status.code(), Some(code), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(message), "{args:?}: {err}");
    out
}
