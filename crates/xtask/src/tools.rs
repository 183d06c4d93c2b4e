//! Tools fetched on first use into the target directory, each from npm at a pinned version: binaryen's `wasm-opt` (Debian's binaryen 108 cannot read what today's rustc emits; npm's 132 can), esbuild, which minifies the page's scripts, and axe-core, the accessibility checker the page tests inject.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{run, target_dir, which};

/// The binaryen release whose `wasm-opt` shrinks the page's wasm. Pinned,
/// so a build is the same build on every machine.
pub const BINARYEN: &str = "132.0.0";

/// The axe-core release `tests/e2e/a11y_e2e.py` runs on every tab. Pinned,
/// so a rule added upstream cannot fail CI on a page nobody changed.
pub const AXE_CORE: &str = "4.10.3";

/// `wasm-opt`, installed with npm under `target/tools/` when missing.
/// `Err` says why it is not available (no npm, an install that failed).
pub fn wasm_opt() -> Result<PathBuf, String> {
    npm_tool(
        "binaryen",
        BINARYEN,
        Path::new("node_modules/.bin/wasm-opt"),
    )
}

/// The esbuild release that minifies the page's scripts. Pinned, like
/// binaryen.
pub const ESBUILD: &str = "0.24.2";

/// `esbuild`, installed with npm under `target/tools/` when missing (its
/// package brings the binary for this platform).
pub fn esbuild() -> Result<PathBuf, String> {
    npm_tool("esbuild", ESBUILD, Path::new("node_modules/.bin/esbuild"))
}

/// axe-core's `axe.min.js`, installed with npm under `target/tools/` when
/// missing: the browser test loads it into the page as a same-origin file.
pub fn axe_core() -> Result<PathBuf, String> {
    npm_tool(
        "axe-core",
        AXE_CORE,
        Path::new("node_modules/axe-core/axe.min.js"),
    )
}

/// `target/tools/<package>-<version>/<file>`, installing the package with
/// npm into that folder first if the file is not there.
fn npm_tool(package: &str, version: &str, file: &Path) -> Result<PathBuf, String> {
    let dir = target_dir()?
        .join("tools")
        .join(format!("{package}-{version}"));
    let path = dir.join(file);
    if path.is_file() {
        return Ok(path);
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
        .arg(format!("{package}@{version}")))?;
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "npm installed {package} but {} is missing",
            path.display()
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
