//! What the binary's test files share: running `redsim` as a user does, and a failure's exit code and message.

use std::process::{Command, Output};

/// Runs the `redsim` binary with `args` to completion.
pub fn redsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_redsim"))
        .args(args)
        .output()
        .expect("the redsim binary runs")
}

/// Runs `redsim args`, checks that it exits with `code` having printed
/// nothing on stdout (nothing started), and returns its stderr.
pub fn fails(args: &[&str], code: i32) -> String {
    let out = redsim(args);
    assert_eq!(out.status.code(), Some(code), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}: nothing starts");
    String::from_utf8_lossy(&out.stderr).into_owned()
}
