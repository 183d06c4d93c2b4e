//! The stylesheet's parts: `assets/css/*.css`, one file per part of the page, joined in the order of their names (`10-tokens.css` first) into `dist/redsim.css`, so that no file grows past what one reads whole. Shared, by path, with `tests/tidy.rs`, whose rules read the same parts.

use std::fs;
use std::path::Path;

/// The parts' folder, from the repository's root.
pub const DIR: &str = "assets/css";

/// The parts under `root`, as (file name, text), in the order they join.
pub fn parts(root: &Path) -> Result<Vec<(String, String)>, String> {
    let dir = root.join(DIR);
    let entries = fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".css"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let text = fs::read_to_string(dir.join(&n))
                .map_err(|e| format!("cannot read {DIR}/{n}: {e}"))?;
            Ok((n, text))
        })
        .collect()
}
