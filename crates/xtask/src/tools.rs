//! Tools fetched on first use into the target directory: binaryen's `wasm-opt` from npm (Debian's binaryen 108 cannot read what today's rustc emits; npm's 132 can).

use std::path::PathBuf;
use std::process::Command;

use crate::util::{run, target_dir, which};

/// The binaryen release whose `wasm-opt` shrinks the page's wasm. Pinned,
/// so a build is the same build on every machine.
pub const BINARYEN: &str = "132.0.0";

/// `wasm-opt`, installed with npm under `target/tools/` when missing.
/// `Err` says why it is not available (no npm, an install that failed).
pub fn wasm_opt() -> Result<PathBuf, String> {
    let dir = target_dir()?
        .join("tools")
        .join(format!("binaryen-{BINARYEN}"));
    let bin = dir.join("node_modules/.bin/wasm-opt");
    if bin.is_file() {
        return Ok(bin);
    }
    if which("npm").is_none() {
        return Err("npm is not installed (cargo xtask test installs it)".into());
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    run(Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(&dir)
        .arg(format!("binaryen@{BINARYEN}")))?;
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "npm installed binaryen but {} is missing",
            bin.display()
        ))
    }
}

/// The wasm features rustc's default target emits; `wasm-opt` must be told,
/// or it refuses the module (and it must not use features beyond them).
pub const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];
