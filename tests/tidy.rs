//! Tidy: the project's conventions and its layout's rules, checked by `cargo test` (file headers and sizes, crate layering, no upward imports in the engine, one command-table macro, one declaration per CONFIG parameter, drivers kept off the server's internals, one sort routine in the console's crates, no wall clock or OS entropy where runs must replay).
//!
//! Each rule is a function over file texts that returns its violations, so
//! every rule is also tested on a planted violation: a rule that could not
//! fail would pass silently.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
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
                rust_files_under(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// (path relative to the root, text) of every Rust file under `dirs`.
fn sources(dirs: &[&str]) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for d in dirs {
        rust_files_under(&root().join(d), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(root())
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap_or_default())
        })
        .collect()
}

fn all_sources() -> Vec<(String, String)> {
    let files = sources(&["crates", "web", "tests"]);
    assert!(
        files.len() > 50,
        "found too few Rust files: {}",
        files.len()
    );
    files
}

fn file(rel: &str, text: &str) -> (String, String) {
    (rel.to_string(), text.to_string())
}

fn assert_clean(rule: &str, violations: Vec<String>) {
    assert!(
        violations.is_empty(),
        "{rule}:\n  {}",
        violations.join("\n  ")
    );
}

// ---------------------------------------------------------------------------
// The rules.

/// Every file opens with a `//! ` line saying what it holds.
fn missing_module_doc(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(_, t)| !t.starts_with("//! "))
        .map(|(p, _)| p.clone())
        .collect()
}

/// No test is skipped to get green.
fn ignored_tests(files: &[(String, String)]) -> Vec<String> {
    let marker = ["#[", "ignore"].concat();
    files
        .iter()
        .filter(|(_, t)| t.contains(&marker))
        .map(|(p, _)| p.clone())
        .collect()
}

/// The largest a file may grow before it must be split by what it does.
const MAX_LINES: usize = 1200;

fn oversized(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(_, t)| t.lines().count() > MAX_LINES)
        .map(|(p, t)| format!("{p}: {} lines (at most {MAX_LINES})", t.lines().count()))
        .collect()
}

/// What runs must replay never reads: the wall clock, OS entropy, I/O,
/// std's randomly seeded hash maps (their iteration order varies per run),
/// or fastrand's `usize`/`isize` draws (32 bits on wasm32, 64 natively: one
/// seed would draw differently in the browser; `rng::Pick` is portable).
const NONDETERMINISTIC: &[&str] = &[
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
    "HashMap",
    "HashSet",
    "RandomState",
    ".usize(",
    ".isize(",
];

fn nondeterminism(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (p, t) in files {
        for f in NONDETERMINISTIC {
            if t.contains(f) {
                out.push(format!("{p} uses `{f}`"));
            }
        }
    }
    out
}

/// The crates the browser's console module is built from sort through
/// `redsim_engine::sort`: each direct std sort of a new element type adds
/// its own copy of the sorting code to the page (see that module).
const DIRECT_SORTS: &[&str] = &[
    ".sort()",
    ".sort_unstable",
    ".sort_by(",
    ".sort_by_key(",
    ".sort_by_cached_key(",
];

fn direct_sorts(files: &[(String, String)]) -> Vec<String> {
    let console_crates = ["crates/engine/src/", "crates/viz/src/", "web/src/"];
    let mut out = Vec::new();
    for (p, t) in files {
        if !console_crates.iter().any(|c| p.starts_with(c))
            || p == "crates/engine/src/sort.rs"
            || p.ends_with("tests.rs")
        {
            continue;
        }
        for f in DIRECT_SORTS {
            if t.contains(f) {
                out.push(format!("{p} uses `{f}` (use redsim_engine::sort)"));
            }
        }
    }
    out
}

/// Code the browser's console module runs: the engine but its heavy
/// families, redsim-viz's inspector drawings, and the page but the lab's
/// views.
fn in_console_module(p: &str) -> bool {
    const HEAVY: [&str; 3] = [
        "crates/engine/src/script/",
        "crates/engine/src/cmd/geo/",
        "crates/engine/src/cmd/debug.rs",
    ];
    const LAB: [&str; 6] = [
        "web/src/scenarios/",
        "web/src/topology/",
        "web/src/cluster/",
        "web/src/lessons/",
        "web/src/bench",
        "web/src/lab.rs",
    ];
    (p.starts_with("crates/engine/src/") && !HEAVY.iter().any(|h| p.starts_with(h)))
        || p.starts_with("crates/viz/src/inspect/")
        || (p.starts_with("web/src/") && !LAB.iter().any(|l| p.starts_with(l)))
}

/// Floats formatted with a precision (`{:.2}`, `{x:.16e}`) by std in code
/// the console module runs, outside comments and tests: they go through
/// `redsim_engine::num::print`, so the module carries no float printing.
fn std_float_formats(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (p, t) in files {
        if !in_console_module(p) || p.ends_with("tests.rs") || p == "crates/engine/src/num/print.rs"
        {
            continue;
        }
        let code = t.split("#[cfg(test)]").next().unwrap_or(t);
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            if has_float_precision(line) {
                out.push(format!(
                    "{p}:{} formats a float with std (use redsim_engine::num::print)",
                    n + 1
                ));
            }
        }
    }
    out
}

/// Whether `line` holds a format spec with a precision: `{`, an optional
/// argument name, `:`, optional width digits, `.`, digits or `*`, an
/// optional `e`, `}`.
fn has_float_precision(line: &str) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    while let Some(at) = line[i..].find('{') {
        let mut j = i + at + 1;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        if b.get(j) == Some(&b':') {
            j += 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if b.get(j) == Some(&b'.') {
                j += 1;
                let start = j;
                while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'*') {
                    j += 1;
                }
                if j > start && b.get(j) == Some(&b'e') {
                    j += 1;
                }
                if j > start && b.get(j) == Some(&b'}') {
                    return true;
                }
            }
        }
        i += at + 1;
    }
    false
}

/// `std`'s B-trees named in the engine's code (not its comments or tests):
/// the engine uses `redsim_engine::ordmap`, sorted vectors in the light
/// console, where each B-tree type cost kilobytes of wasm.
fn std_btrees(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (p, t) in files {
        if !p.starts_with("crates/engine/src/")
            || p.starts_with("crates/engine/src/ordmap/")
            || p.ends_with("tests.rs")
        {
            continue;
        }
        let code = t.split("#[cfg(test)]").next().unwrap_or(t);
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if !line.starts_with("//") && (line.contains("BTreeMap") || line.contains("BTreeSet")) {
                out.push(format!(
                    "{p}:{} names a std B-tree (use redsim_engine::ordmap)",
                    n + 1
                ));
            }
        }
    }
    out
}

/// The `[dependencies]` (not dev-dependencies) a Cargo.toml names.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && !line.is_empty() && !line.starts_with('#') {
            if let Some(name) = line.split(['=', '.', ' ']).next() {
                deps.push(name.trim().to_string());
            }
        }
    }
    deps
}

/// The crates' layering: the engine is Redis alone, the simulated world
/// sits on the engine only, the course on the engine and the world only,
/// and pictures and the course stay plain code (no browser).
fn layering(manifests: &[(&str, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (krate, text) in manifests {
        let deps = dependencies(text);
        let ours: Vec<&String> = deps.iter().filter(|d| d.starts_with("redsim-")).collect();
        match *krate {
            "engine" if !ours.is_empty() => {
                out.push(format!("the engine depends on {ours:?}"));
            }
            "sim" if ours.iter().any(|d| *d != "redsim-engine") => {
                out.push(format!(
                    "sim depends on {ours:?}; only redsim-engine is allowed"
                ));
            }
            "course"
                if ours
                    .iter()
                    .any(|d| *d != "redsim-engine" && *d != "redsim-sim") =>
            {
                out.push(format!(
                    "course depends on {ours:?}; only redsim-engine and redsim-sim are allowed"
                ));
            }
            _ => {}
        }
        if matches!(*krate, "viz" | "course") {
            for d in &deps {
                if matches!(
                    d.as_str(),
                    "yew" | "web-sys" | "js-sys" | "gloo" | "wasm-bindgen"
                ) {
                    out.push(format!("{krate} depends on {d}"));
                }
            }
        }
    }
    out
}

/// Inside the engine, only the command layer, the engine's face above it
/// and the crate root may name `cmd`: everything below serves commands and
/// must not reach back up into them.
fn imports_of_cmd_from_below(files: &[(String, String)]) -> Vec<String> {
    const SRC: &str = "crates/engine/src/";
    let mut out = Vec::new();
    for (p, t) in files {
        let Some(rel) = p.strip_prefix(SRC) else {
            continue;
        };
        if rel.starts_with("cmd/") || rel.starts_with("engine/") || rel == "lib.rs" {
            continue;
        }
        for (i, line) in t.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("crate::cmd") || code.contains("super::cmd") {
                out.push(format!("{p}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    out
}

/// The command table is built by one macro: no second `macro_rules!` that
/// builds `Command` entries, and no `Command {` literal outside it.
fn command_table_macros(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut macros = Vec::new();
    for (p, t) in files {
        if !p.starts_with("crates/engine/src/") {
            continue;
        }
        let mut in_macro = false;
        let mut depth = 0i32;
        for (i, line) in t.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.trim_start().starts_with("macro_rules!") {
                in_macro = true;
                depth = 0;
            }
            if in_macro {
                if code.contains("Command {") && !macros.iter().any(|(q, _)| q == p) {
                    macros.push((p.clone(), i + 1));
                }
                depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
                if depth <= 0 && code.contains('}') {
                    in_macro = false;
                }
                continue;
            }
            if builds_command(code) {
                out.push(format!(
                    "{p}:{}: a Command literal outside the table's macro",
                    i + 1
                ));
            }
        }
    }
    if macros.len() != 1 {
        let found: Vec<String> = macros.iter().map(|(p, l)| format!("{p}:{l}")).collect();
        out.push(format!(
            "{} macros build Command entries ({}); there must be one",
            macros.len(),
            found.join(", ")
        ));
    }
    out
}

/// True if `code` builds a `Command` value: `Command {` after `=`, `(`, `[`,
/// `,`, `&` or `=>`. A path (`Event::Command {`), the struct's or an enum
/// variant's declaration and `impl` blocks do not count.
fn builds_command(code: &str) -> bool {
    code.match_indices("Command {").any(|(at, _)| {
        let before = code[..at].trim_end();
        !code[..at].ends_with("::") && before.ends_with(['=', '(', '[', ',', '&', '>'])
    })
}

/// Every CONFIG parameter is declared once, in the one `config!`
/// declaration: no hand-written `Param {` elsewhere, no field declared twice.
fn config_declarations(config_rs: &str) -> Vec<String> {
    let mut out = Vec::new();
    let invocations = config_rs.matches("\nconfig! {").count();
    if invocations != 1 {
        out.push(format!(
            "{invocations} `config!` declarations (one expected)"
        ));
    }
    let params = config_rs.matches("Param {").count();
    // The struct's definition and the macro's one literal.
    if params != 2 {
        out.push(format!(
            "`Param {{` appears {params} times: parameters must come from the config! declaration"
        ));
    }
    let mut fields: Vec<&str> = config_rs
        .lines()
        .filter(|l| l.starts_with("    ") && !l.starts_with("     ") && l.contains(" => ["))
        .filter_map(|l| l.trim().split(':').next())
        .collect();
    let n = fields.len();
    fields.sort_unstable();
    fields.dedup();
    if fields.len() != n {
        out.push("a parameter's field is declared twice".to_string());
    }
    if n < 40 {
        out.push(format!(
            "only {n} declarations found: the declaration's shape changed"
        ));
    }
    out
}

/// Drivers (the native server, the browser) use the engine's public face,
/// never the server state behind it.
fn server_internals(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (p, t) in files {
        if !(p.starts_with("web/")
            || p.starts_with("crates/cli/")
            || p.starts_with("crates/course/"))
        {
            continue;
        }
        for needle in [".server()", ".server_mut()", "server::Server", ".srv."] {
            if t.contains(needle) {
                out.push(format!("{p} uses `{needle}`"));
            }
        }
    }
    out
}

/// How `cargo xtask dist` finds the stylesheet's parts, which it joins in
/// the order of their names into `dist/redsim.css`.
#[path = "../crates/xtask/src/stylesheet.rs"]
mod stylesheet;

/// The stylesheet's parts, as (file name, text), in the order they join.
fn stylesheet_parts() -> Vec<(String, String)> {
    stylesheet::parts(&root()).expect("the stylesheet's parts")
}

/// Where the stylesheet lists the dark theme's colours (whitespace
/// folded): for `data-theme="dark"`, and for a system that prefers dark
/// before the loader has set the attribute. Both must say the same.
const DARK_THEMES: [&str; 2] = [
    ":root[data-theme=\"dark\"] {",
    "@media (prefers-color-scheme: dark) { :root:not([data-theme]) {",
];

/// The declarations of the block opening with `head` in `css` (both with
/// whitespace folded), one per entry, sorted.
fn css_block(css: &str, head: &str) -> Option<Vec<String>> {
    let at = css.find(head)? + head.len();
    let end = at + css[at..].find('}')?;
    let mut decls: Vec<String> = css[at..end]
        .split(';')
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty())
        .collect();
    decls.sort();
    Some(decls)
}

/// The ways the stylesheet's two lists of dark colours differ.
fn dark_themes_differ(css: &str) -> Vec<String> {
    let css = css.split_whitespace().collect::<Vec<_>>().join(" ");
    let [a, b] = DARK_THEMES.map(|head| css_block(&css, head));
    match (a, b) {
        (Some(a), Some(b)) => a
            .iter()
            .filter(|d| !b.contains(d))
            .map(|d| format!("`{d}` only under {}", DARK_THEMES[0]))
            .chain(
                b.iter()
                    .filter(|d| !a.contains(d))
                    .map(|d| format!("`{d}` only under {}", DARK_THEMES[1])),
            )
            .collect(),
        _ => vec![format!(
            "a block opening {} or {} is missing",
            DARK_THEMES[0], DARK_THEMES[1]
        )],
    }
}

/// Font weights of a stylesheet part (`name`) other than 400 and 600:
/// every weight a page shows is one more font the browser looks up before
/// its first layout (see the stylesheet's note on weights).
fn css_weights(name: &str, css: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in css.lines().enumerate() {
        for decl in line.split(['{', ';', '}']) {
            let Some((prop, value)) = decl.split_once(':') else {
                continue;
            };
            if !matches!(prop.trim(), "font" | "font-weight") {
                continue;
            }
            let odd = value.split_whitespace().any(|w| {
                matches!(w, "bold" | "bolder" | "lighter")
                    || (w.len() == 3
                        && w.bytes().all(|b| b.is_ascii_digit())
                        && !matches!(w, "400" | "600"))
            });
            if odd {
                out.push(format!("{name}:{}: `{}`", n + 1, decl.trim()));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// The rules on the tree.

/// A test that runs `rule` over every Rust file of the tree.
macro_rules! tree_rule {
    ($test:ident, $what:literal, $rule:ident) => {
        #[test]
        fn $test() {
            assert_clean($what, $rule(&all_sources()));
        }
    };
}

tree_rule!(
    every_rust_file_starts_with_a_module_doc_line,
    "files without a leading `//!` line",
    missing_module_doc
);
tree_rule!(no_ignored_tests, "ignored tests", ignored_tests);
tree_rule!(no_file_is_over_the_size_limit, "files to split", oversized);
tree_rule!(
    nothing_below_the_command_layer_imports_it,
    "upward imports into cmd",
    imports_of_cmd_from_below
);
tree_rule!(
    one_macro_builds_the_command_table,
    "command table",
    command_table_macros
);
tree_rule!(
    the_console_crates_sort_through_one_routine,
    "direct sorts",
    direct_sorts
);
tree_rule!(
    the_engine_keeps_its_ordered_maps_light,
    "std B-trees in the engine",
    std_btrees
);
tree_rule!(
    the_console_module_prints_floats_without_std,
    "std float formatting in the console module",
    std_float_formats
);
tree_rule!(
    drivers_stay_off_server_internals,
    "server internals in web or cli",
    server_internals
);

#[test]
fn engine_and_sim_have_no_wall_clock_or_os_entropy() {
    let files = sources(&["crates/engine/src", "crates/sim/src", "crates/course/src"]);
    assert!(files.iter().any(|(p, _)| p.starts_with("crates/sim/")));
    assert!(files.iter().any(|(p, _)| p.starts_with("crates/course/")));
    assert_clean(
        "the engine and the simulated world must stay deterministic and I/O-free",
        nondeterminism(&files),
    );
}

#[test]
fn crates_keep_their_layers() {
    let manifests: Vec<(&str, String)> = ["engine", "sim", "viz", "course"]
        .into_iter()
        .map(|k| {
            let text = std::fs::read_to_string(root().join("crates").join(k).join("Cargo.toml"))
                .expect("manifest");
            (k, text)
        })
        .collect();
    assert!(dependencies(&manifests[1].1).contains(&"redsim-engine".to_string()));
    assert_clean("crate layering", layering(&manifests));
}

#[test]
fn the_stylesheet_keeps_two_font_weights() {
    let parts = stylesheet_parts();
    assert!(parts.len() >= 2, "the stylesheet's parts");
    let odd = parts
        .iter()
        .flat_map(|(n, css)| css_weights(n, css))
        .collect();
    assert_clean("font weights other than 400 and 600", odd);
}

#[test]
fn the_two_dark_themes_agree() {
    let css: String = stylesheet_parts().into_iter().map(|(_, t)| t).collect();
    assert_clean("dark colours", dark_themes_differ(&css));
}

#[test]
fn every_config_parameter_is_declared_once() {
    let text = std::fs::read_to_string(root().join("crates/engine/src/server/config.rs"))
        .expect("config.rs");
    assert_clean("CONFIG declarations", config_declarations(&text));
}

// ---------------------------------------------------------------------------
// Each rule fails on a planted violation.

#[test]
fn each_rule_catches_a_planted_violation() {
    assert_eq!(
        missing_module_doc(&[file("a.rs", "fn main() {}\n")]).len(),
        1
    );
    assert!(missing_module_doc(&[file("a.rs", "//! A.\n")]).is_empty());

    let skip = format!("#[{}]\nfn t() {{}}\n", "ignore");
    assert_eq!(ignored_tests(&[file("a.rs", &skip)]).len(), 1);

    let long = format!("//! Long.\n{}", "x\n".repeat(MAX_LINES));
    assert_eq!(oversized(&[file("a.rs", &long)]).len(), 1);
    let fits = format!("//! Fits.\n{}", "x\n".repeat(MAX_LINES - 1));
    assert!(oversized(&[file("a.rs", &fits)]).is_empty());

    let clock = "let t = std::time::Instant::now();";
    assert!(!nondeterminism(&[file("crates/sim/src/a.rs", clock)]).is_empty());
    let map = "let m: std::collections::HashMap<u8, u8> = Default::default();";
    assert!(!nondeterminism(&[file("crates/sim/src/a.rs", map)]).is_empty());
    let draw = "let i = rng.usize(..n);";
    assert!(!nondeterminism(&[file("crates/sim/src/a.rs", draw)]).is_empty());
    let portable = "let i = rng.pick(..n);";
    assert!(nondeterminism(&[file("crates/sim/src/a.rs", portable)]).is_empty());

    let engine_on_sim = "[dependencies]\nredsim-sim.workspace = true\nfastrand = \"2\"\n";
    assert_eq!(layering(&[("engine", engine_on_sim.into())]).len(), 1);
    let sim_on_viz = "[dependencies]\nredsim-engine.workspace = true\nredsim-viz.workspace = true\n\n[dev-dependencies]\nredsim-cli = \"*\"\n";
    assert_eq!(layering(&[("sim", sim_on_viz.into())]).len(), 1);
    let viz_on_yew = "[dependencies]\nyew = { version = \"0.23\" }\n";
    assert_eq!(layering(&[("viz", viz_on_yew.into())]).len(), 1);
    let course_on_viz =
        "[dependencies]\nredsim-sim.workspace = true\nredsim-viz.workspace = true\n";
    assert_eq!(layering(&[("course", course_on_viz.into())]).len(), 1);
    let course_on_yew = "[dependencies]\nredsim-engine.workspace = true\nyew = \"0.23\"\n";
    assert_eq!(layering(&[("course", course_on_yew.into())]).len(), 1);
    let course_ok = "[dependencies]\nredsim-engine.workspace = true\nredsim-sim.workspace = true\nserde = \"1\"\n";
    assert!(layering(&[("course", course_ok.into())]).is_empty());
    let dev_only = "[dependencies]\nserde = \"1\"\n[dev-dependencies]\nredsim-sim = \"*\"\n";
    assert!(layering(&[("engine", dev_only.into())]).is_empty());

    let upward = "use crate::cmd::lookup;\n";
    assert_eq!(
        imports_of_cmd_from_below(&[file("crates/engine/src/script/api.rs", upward)]).len(),
        1
    );
    assert!(
        imports_of_cmd_from_below(&[file("crates/engine/src/engine/mod.rs", upward)]).is_empty()
    );
    let commented = "// see crate::cmd::lookup\n";
    assert!(imports_of_cmd_from_below(&[file("crates/engine/src/db.rs", commented)]).is_empty());

    let one =
        "macro_rules! command {\n    ($n:literal) => {\n        Command { name: $n }\n    };\n}\n";
    let two_macros = [
        file("crates/engine/src/cmd/table.rs", one),
        file(
            "crates/engine/src/cmd/zset.rs",
            &one.replace("command", "zset_cmd"),
        ),
    ];
    assert_eq!(command_table_macros(&two_macros).len(), 1);
    let literal = "static X: Command = Command { name: \"x\" };\n";
    let hand_written = [
        file("crates/engine/src/cmd/table.rs", one),
        file("crates/engine/src/cmd/x.rs", literal),
    ];
    assert_eq!(command_table_macros(&hand_written).len(), 1);
    assert!(command_table_macros(&[file("crates/engine/src/cmd/table.rs", one)]).is_empty());

    let decl = |body: &str| {
        format!(
            "pub struct Param {{}}\nmacro_rules! config {{ () => {{ Param {{ }} }} }}\n\nconfig! {{\n{body}}}\n"
        )
    };
    let fields: String = (0..45)
        .map(|i| format!("    f{i}: u32 = 1 => [\"f{i}\"] mutable int(0, 9);\n"))
        .collect();
    assert!(config_declarations(&decl(&fields)).is_empty());
    let twice = format!("{fields}    f3: u32 = 1 => [\"f3-again\"] mutable int(0, 9);\n");
    assert_eq!(config_declarations(&decl(&twice)).len(), 1);
    let by_hand = format!("{}\nstatic EXTRA: Param = Param {{ }};\n", decl(&fields));
    assert_eq!(config_declarations(&by_hand).len(), 1);

    let reach = "let n = engine.server().dbs.len();";
    assert_eq!(
        server_internals(&[file("web/src/keyspace.rs", reach)]).len(),
        1
    );
    assert_eq!(
        server_internals(&[file("crates/cli/src/net.rs", reach)]).len(),
        1
    );
    assert!(server_internals(&[file("crates/sim/src/x.rs", reach)]).is_empty());

    let direct = "v.sort_by_key(|e| e.0);";
    assert_eq!(direct_sorts(&[file("web/src/x.rs", direct)]).len(), 1);
    assert!(direct_sorts(&[file("crates/sim/src/x.rs", direct)]).is_empty());
    assert!(direct_sorts(&[file("crates/engine/src/sort.rs", direct)]).is_empty());
    let routed = "redsim_engine::sort::sort_by_key(&mut v, |e| e.0);";
    assert!(direct_sorts(&[file("web/src/x.rs", routed)]).is_empty());

    for (line, float) in [
        ("format!(\"{:.2}\", x)", true),
        ("format!(\"{x:.16e}\")", true),
        ("format!(\"{v:8.3}%\")", true),
        ("format!(\"{:.*}\", p, x)", true),
        ("format!(\"{x}\")", false),
        ("format!(\"{:>8}\", s)", false),
        ("format!(\"{{.2}}\")", false),
    ] {
        assert_eq!(has_float_precision(line), float, "{line}");
    }
    let fmt2 = "let s = format!(\"{:.2}\", x);";
    assert_eq!(
        std_float_formats(&[file("web/src/panels/x.rs", fmt2)]).len(),
        1
    );
    assert!(std_float_formats(&[file("web/src/scenarios/x.rs", fmt2)]).is_empty());
    assert!(std_float_formats(&[file("crates/engine/src/script/x.rs", fmt2)]).is_empty());
    assert!(std_float_formats(&[file("crates/viz/src/chart.rs", fmt2)]).is_empty());
    assert_eq!(
        std_float_formats(&[file("crates/viz/src/inspect/x.rs", fmt2)]).len(),
        1
    );

    let btree = "let m: std::collections::BTreeMap<u8, u8> = Default::default();";
    assert_eq!(
        std_btrees(&[file("crates/engine/src/x.rs", btree)]).len(),
        1
    );
    assert!(std_btrees(&[file("crates/engine/src/ordmap/mod.rs", btree)]).is_empty());
    assert!(std_btrees(&[file("crates/sim/src/x.rs", btree)]).is_empty());
    let tested = format!("/// A `BTreeMap` in a comment.\n#[cfg(test)]\nmod tests {{ {btree} }}");
    assert!(std_btrees(&[file("crates/engine/src/x.rs", &tested)]).is_empty());

    let css = ":root[data-theme=\"dark\"] { --a: #111; --b: #222; }\n\
               @media (prefers-color-scheme: dark) { :root:not([data-theme]) { --b: #222;\n --a: #111; } }";
    assert!(dark_themes_differ(css).is_empty());
    assert_eq!(
        dark_themes_differ(&css.replace("--b: #222; }", "--b: #223; }")).len(),
        2
    );
    assert_eq!(
        dark_themes_differ(&css.replace(":root:not", ":root:is")).len(),
        1
    );
    let weights =
        ".a { font: 600 12px/1.5 var(--rs-sans); }\n.b { font-weight: 400; font-size: 13px; }";
    assert!(css_weights("w.css", weights).is_empty());
    assert_eq!(
        css_weights("w.css", &weights.replace("600 12px", "500 12px")).len(),
        1
    );
    assert_eq!(
        css_weights("w.css", &weights.replace("weight: 400", "weight: bold")).len(),
        1
    );
    // The copy must sit under the system's preference.
    assert_eq!(
        dark_themes_differ(&css.replace("prefers-color-scheme: dark", "min-width: 1px")).len(),
        1
    );
}
