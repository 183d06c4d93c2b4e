//! The build the browser benchmark times the console's start against: the playground as it was before it was split into a console module and a lab module, built by its own `cargo xtask dist` from this repository's history, so "how much faster does the console answer" is measured on the same machine in the same run rather than quoted.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::util::{cargo, root, run, succeeds, target_dir};

/// The last commit before the split (issue 17): one module of 3.35 MB,
/// 1.38 MB gzipped, fetched whole by every page.
pub const COMMIT: &str = "cce82f6b995e7ffb36ed3cfe4ce1eb82518c21a3";

/// The baseline's `dist/`, built once per target directory and reused after.
/// `None` (with a note) when this clone does not hold the commit, as a
/// shallow one does not: the benchmark then reports the console alone.
pub fn dist() -> Result<Option<PathBuf>, String> {
    let short = &COMMIT[..7];
    let home = target_dir()?.join("ttfr-baseline").join(short);
    let src = home.join("src");
    let built = src.join("dist");
    let stamp = home.join("built");
    if stamp.is_file() && built.join("index.html").is_file() {
        println!(
            "baseline: {short}'s dist/ already built in {}",
            built.display()
        );
        return Ok(Some(built));
    }
    let has_commit = succeeds(
        Command::new("git")
            .args(["cat-file", "-e", &format!("{COMMIT}^{{commit}}")])
            .current_dir(root()),
    );
    if !has_commit {
        println!(
            "baseline: commit {short} is not in this clone (a shallow clone?): the console's \
             first reply is timed without the comparison"
        );
        return Ok(None);
    }
    let _ = fs::remove_file(&stamp);
    if src.exists() {
        fs::remove_dir_all(&src).map_err(|e| format!("cannot clear {}: {e}", src.display()))?;
    }
    fs::create_dir_all(&src).map_err(|e| format!("cannot create {}: {e}", src.display()))?;
    // `git archive` writes the commit's tree without touching this clone's
    // worktrees or index.
    println!("$ git archive {short} | tar -x -C {}", src.display());
    let mut archive = Command::new("git")
        .args(["archive", "--format=tar", COMMIT])
        .current_dir(root())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run git archive: {e}"))?;
    let tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(&src)
        .stdin(archive.stdout.take().ok_or("git archive gave no output")?)
        .status()
        .map_err(|e| format!("could not run tar: {e}"))?;
    let git = archive
        .wait()
        .map_err(|e| format!("git archive failed: {e}"))?;
    if !git.success() || !tar.success() {
        return Err(format!("could not extract {short} ({git}, tar {tar})"));
    }
    // Its own xtask, its own lock file and a target directory of its own, so
    // neither build invalidates the other's artefacts.
    run(cargo()
        .args(["xtask", "dist"])
        .current_dir(&src)
        .env("CARGO_TARGET_DIR", home.join("target")))?;
    fs::write(&stamp, COMMIT).map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    Ok(Some(built))
}
