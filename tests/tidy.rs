//! Tidy: the project's conventions, checked by `cargo test` (file headers, no ignored tests, no wall clock or OS entropy in the engine).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            if !matches!(name.as_ref(), "target" | "dist" | ".git" | "node_modules")
                && !name.starts_with("target")
            {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

fn all_rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for d in ["crates", "web", "tests"] {
        rust_files(&root().join(d), &mut files);
    }
    assert!(files.len() > 10, "found too few Rust files: {files:?}");
    files
}

#[test]
fn every_rust_file_starts_with_a_module_doc_line() {
    let bad: Vec<_> = all_rust_files()
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            !text.starts_with("//! ")
        })
        .collect();
    assert!(
        bad.is_empty(),
        "files without a leading `//!` line: {bad:?}"
    );
}

#[test]
fn no_ignored_tests() {
    let marker = ["#[", "ignore"].concat();
    let bad: Vec<_> = all_rust_files()
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap_or_default()
                .contains(&marker)
        })
        .collect();
    assert!(bad.is_empty(), "ignored tests in {bad:?}");
}

#[test]
fn engine_has_no_wall_clock_or_os_entropy() {
    let mut files = Vec::new();
    rust_files(&root().join("crates/engine/src"), &mut files);
    let forbidden = [
        "Instant::now",
        "SystemTime",
        "std::time::Instant",
        "getrandom",
        "thread_rng",
        "Rng::new()",
        "fastrand::u",
        "fastrand::f",
        "std::net",
        "std::fs",
        "std::thread",
        // std's hashers are seeded from OS entropy; iteration order would vary per run.
        "HashMap",
        "HashSet",
        "RandomState",
    ];
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        for f in forbidden {
            assert!(
                !text.contains(f),
                "{} uses `{f}`: the engine must stay deterministic and I/O-free",
                p.display()
            );
        }
    }
}
