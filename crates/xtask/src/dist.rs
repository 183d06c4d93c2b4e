//! `cargo xtask dist`: builds the playground for the browser and writes `dist/` (index.html, embed example, CSS, loader, the console and lab modules' wasm-bindgen output shrunk by `wasm-opt`), with a `.br` and a `.gz` beside every file, then reports each module's size.
//!
//! One HTML template serves both this task and trunk: `web/index.html`
//! carries trunk's `<link data-trunk …>` tags, which are dropped here, and a
//! `<!-- redsim:assets -->` marker, which is replaced by our stylesheet and
//! loader. Every path written is relative, so `dist/` works under any
//! sub-path of a documentation site.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::tools::{wasm_opt, WASM_FEATURES};
use crate::util::{cargo, kib, output, root, run, succeeds, target_dir};

const TARGET: &str = "wasm32-unknown-unknown";

/// One wasm module of the page.
struct Module {
    /// The web crate's binary, which is also the file stem of wasm-bindgen's
    /// output; `assets/redsim.js` imports it by this name.
    bin: &'static str,
    /// The cargo profile it is built with (Cargo.toml says why each).
    profile: &'static str,
    /// The web crate's features: the console's engine is `light` (see
    /// web/src/handover.rs), the lab's is whole.
    features: &'static str,
    /// `wasm-opt`'s passes. The console's rebuild its control flow
    /// (`--flatten --rereloop`), which `-Oz` then shrinks 1.5 KB further
    /// gzipped. The lab's speed counts (scenario runs, the zipf benchmark):
    /// `-O3` after `-Oz` inlines the small hot functions `-Oz` leaves as
    /// calls (hashing, table probes, list links), 1.1x to 1.7x faster in
    /// the browser for 27 KB more raw and 1.5 KB less gzipped.
    wasm_opt: &'static [&'static str],
    /// Split in two by its startup profile (see `split.rs`).
    split: bool,
}

/// The console module first (what a page with one console downloads),
/// then the lab, fetched when a page shows one of its views.
const MODULES: [Module; 2] = [
    Module {
        bin: "redsim-web",
        profile: "wasm-console",
        features: "light",
        wasm_opt: &["--flatten", "--rereloop", "-Oz"],
        split: true,
    },
    Module {
        bin: "redsim-lab",
        profile: "wasm-release",
        features: "",
        wasm_opt: &["-Oz", "-O3"],
        split: false,
    },
];
/// The modules to build: all, or with `REDSIM_DIST_MODULE=<bin>` only that
/// one, so measuring a change to the console does not wait for the lab's
/// optimised build (the `dist/` it writes cannot load the lab).
fn modules() -> Vec<&'static Module> {
    let only = std::env::var("REDSIM_DIST_MODULE").ok();
    MODULES
        .iter()
        .filter(|m| only.as_deref().is_none_or(|b| b == m.bin))
        .collect()
}

/// The command docs' file in `dist/` (`assets/redsim.js` fetches it).
pub const DOCS_FILE: &str = "redsim-docs.txt";

/// Where trunk's tags are replaced by ours.
const MARKER: &str = "<!-- redsim:assets -->";
/// The same, for a page that holds its first paint until its console has
/// drawn: its loader tag is render-blocking, which `assets/redsim.js` reads
/// as that request ("Holding the first paint" there says why). The
/// playground page does; the embedding example, like any documentation
/// page, does not: a widget must not keep the page's own text from showing.
const MARKER_HOLD: &str = "<!-- redsim:assets hold-first-paint -->";
/// The console module's wasm is preloaded: without the hint its fetch would
/// wait for the loader to run. The loader carries the module's bindings
/// (see [`inline_console_bindings`]). Its tag follows the hint.
const HINT_TAGS: &str = "<link rel=\"stylesheet\" href=\"redsim.css\">\n    \
                         <link rel=\"preload\" href=\"redsim-web_bg.wasm\" as=\"fetch\" \
                         type=\"application/wasm\" crossorigin>\n    ";
/// The loader's line that [`inline_console_bindings`] replaces.
const BINDINGS_LINE: &str = "const inlinedConsole = null; // redsim:console-bindings\n";
/// How wasm-bindgen's bindings end: their exports, which the loader takes
/// from the function that runs them instead.
const BINDINGS_EXPORT: &str = "export { initSync, __wbg_init as default };";
/// The loader's tag at [`MARKER`].
const LOADER: &str = "<script type=\"module\" src=\"redsim.js\"></script>";
/// The loader's tag as [`MARKER_HOLD`] writes it.
const LOADER_HOLD: &str = "<script type=\"module\" src=\"redsim.js\" blocking=\"render\"></script>";

/// What `dist` produced.
pub struct Built {
    /// The `dist/` directory.
    pub dir: PathBuf,
    /// Where the console module's startup profile no longer fits the build
    /// (see [`crate::split::Split::stale_profile`]).
    pub stale_profile: Vec<String>,
}

/// Builds `dist/` and prints the wasm size raw and gzipped.
pub fn dist() -> Result<Built, String> {
    let started = Instant::now();
    ensure_wasm_target()?;
    let modules = modules();
    for m in &modules {
        run(cargo().args([
            "build",
            "-p",
            "redsim-web",
            "--bin",
            m.bin,
            "--target",
            TARGET,
            "--profile",
            m.profile,
            "--features",
            m.features,
        ]))?;
    }
    let out = root().join("dist");
    if out.exists() {
        fs::remove_dir_all(&out).map_err(|e| format!("cannot clear {}: {e}", out.display()))?;
    }
    fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;

    for m in &modules {
        let wasm = target_dir()?
            .join(TARGET)
            .join(m.profile)
            .join(format!("{}.wasm", m.bin));
        println!(
            "wasm-bindgen (library) {} -> {}",
            wasm.display(),
            out.display()
        );
        wasm_bindgen_cli_support::Bindgen::new()
            .input_path(&wasm)
            .out_name(m.bin)
            .web(true)
            .map_err(|e| format!("wasm-bindgen: {e:#}"))?
            .typescript(false)
            // A module to split keeps its names until it is split.
            .remove_name_section(!keep_names() && !splits(m))
            .remove_producers_section(true)
            .generate(&out)
            .map_err(|e| format!("wasm-bindgen: {e:#}"))?;
    }

    let web = root().join("web");
    for (template, name) in [("index.html", "index.html"), ("embed.html", "embed.html")] {
        let html = fs::read_to_string(web.join(template))
            .map_err(|e| format!("cannot read web/{template}: {e}"))?;
        write(&out.join(name), render_html(&html)?.as_bytes())?;
    }
    copy_dir(&root().join("assets"), &out)?;
    write(&out.join("redsim.css"), stylesheet()?.as_bytes())?;
    // The command docs, which the console module loads as data (the
    // engine's `cmd::doctext`), rendered by the native engine's table.
    let docs = output(cargo().args([
        "run",
        "-q",
        "-p",
        "redsim-engine",
        "--bin",
        "redsim-command-docs",
    ]))?;
    if !String::from_utf8_lossy(&docs).contains("\nget\tGET key\t") {
        return Err("the command docs came out without their text".into());
    }
    write(&out.join(DOCS_FILE), &docs)?;

    let mut sizes = Vec::new();
    let mut stale_profile = Vec::new();
    for m in &modules {
        let wasm_out = out.join(format!("{}_bg.wasm", m.bin));
        optimize(&wasm_out, m.wasm_opt, keep_names() || splits(m))?;
        let mut files = vec![wasm_out.clone()];
        if splits(m) {
            let js = out.join(format!("{}.js", m.bin));
            let split = crate::split::split(&wasm_out, &js)?;
            stale_profile.extend(split.stale_profile);
            match split.rest {
                Some(rest) => files.push(rest),
                None => crate::split::strip_names_in_place(&wasm_out)?,
            }
        }
        for file in files {
            let bytes = fs::read(&file)
                .map_err(|e| format!("cannot read the generated wasm {}: {e}", file.display()))?;
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            sizes.push((name.to_string(), bytes.len() as u64, gzip_len(&bytes)?));
        }
    }
    let bindings = out.join("redsim-web.js");
    if bindings.exists() {
        let loader = out.join("redsim.js");
        let read = |p: &Path| {
            fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
        };
        let merged = inline_console_bindings(&read(&loader)?, &read(&bindings)?)?;
        write(&loader, merged.as_bytes())?;
    }
    minify_scripts(&out)?;
    compress_all(&out)?;
    for (file, raw, gz) in sizes {
        println!(
            "dist: {file} {} raw, {} gzipped ({raw} bytes, {gz} bytes)",
            kib(raw),
            kib(gz),
        );
    }
    println!("dist: built in {:.1} s", started.elapsed().as_secs_f64());
    println!("dist: wrote {}", out.display());
    Ok(Built {
        dir: out,
        stale_profile,
    })
}

/// Whether `m` is split: it asks to be, splitting is on
/// (`REDSIM_WASM_SPLIT`), and names are not kept (a profile is recorded
/// from the whole module, with its names).
fn splits(m: &Module) -> bool {
    m.split && crate::split::enabled() && !keep_names()
}

/// `REDSIM_WASM_NAMES=1` keeps function names in the wasm (wasm-opt runs
/// with `-g`), so a browser profile of the page names Rust functions.
fn keep_names() -> bool {
    std::env::var("REDSIM_WASM_NAMES").is_ok_and(|v| v == "1")
}

/// Shrinks the wasm in place with `wasm-opt` and the module's `passes`
/// (`REDSIM_WASM_OPT` names one level instead, `Oz` say, to compare; `off`
/// skips it, to measure what it saves). Without npm it says so and leaves
/// the wasm as built.
fn optimize(wasm: &Path, passes: &[&str], names: bool) -> Result<(), String> {
    let level = std::env::var("REDSIM_WASM_OPT").ok();
    if level.as_deref() == Some("off") {
        println!("dist: wasm-opt off (REDSIM_WASM_OPT=off)");
        return Ok(());
    }
    let passes: Vec<String> = match level {
        Some(level) => vec![format!("-{level}")],
        None => passes.iter().map(|p| p.to_string()).collect(),
    };
    let bin = match wasm_opt() {
        Ok(bin) => bin,
        Err(why) => {
            println!("dist: wasm-opt skipped: {why}");
            return Ok(());
        }
    };
    let before = fs::metadata(wasm).map(|m| m.len()).unwrap_or(0);
    let t = Instant::now();
    run(Command::new(bin)
        .arg(wasm)
        .arg("-o")
        .arg(wasm)
        .args(&passes)
        .args(names.then_some("-g"))
        .args(WASM_FEATURES))?;
    let after = fs::metadata(wasm).map(|m| m.len()).unwrap_or(0);
    println!(
        "dist: wasm-opt {}: {} -> {} in {:.1} s",
        passes.join(" "),
        kib(before),
        kib(after),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The loader with the console module's bindings in it: they run, as a
/// function's body, where the loader declares `inlinedConsole`, which holds
/// what they export. A page then fetches one script before its first reply
/// instead of two (the loader's comment there says what that saves).
/// `redsim-web.js` stays in `dist/`: a restart after a crash imports a fresh
/// copy of it.
fn inline_console_bindings(loader: &str, bindings: &str) -> Result<String, String> {
    if loader.matches(BINDINGS_LINE).count() != 1 {
        return Err("assets/redsim.js has no line for the console module's bindings".into());
    }
    if bindings.matches(BINDINGS_EXPORT).count() != 1
        || !bindings.trim_end().ends_with(BINDINGS_EXPORT)
    {
        return Err(
            "the console module's bindings have changed shape: cannot put them in the loader"
                .into(),
        );
    }
    let body = bindings
        .trim_end()
        .strip_suffix(BINDINGS_EXPORT)
        .unwrap_or(bindings);
    let carried = format!(
        "const inlinedConsole = (() => {{\n{body}return {{ default: __wbg_init, initSync }};\n}})();\n"
    );
    Ok(loader.replacen(BINDINGS_LINE, &carried, 1))
}

/// Minifies every script of `dir` in place with esbuild: the loader (with
/// the console module's bindings) is what a page parses before its first
/// reply, and its comments are most of it (71 KB raw, 31 KB minified; 17
/// and 10 KB gzipped). `assets/redsim.js` stays the readable source. Without
/// npm the scripts stay as written, and dist says so.
fn minify_scripts(dir: &Path) -> Result<(), String> {
    let bin = match crate::tools::esbuild() {
        Ok(bin) => bin,
        Err(why) => {
            println!("dist: scripts not minified: {why}");
            return Ok(());
        }
    };
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut scripts: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "js"))
        .collect();
    scripts.sort();
    for js in scripts {
        let before = fs::metadata(&js).map(|m| m.len()).unwrap_or(0);
        // No bundling and no format: imports, exports and `import.meta`
        // stay as written; `utf8` keeps the text's own characters.
        run(Command::new(&bin)
            .arg(&js)
            .arg(format!("--outfile={}", js.display()))
            .args([
                "--minify",
                "--allow-overwrite",
                "--charset=utf8",
                "--log-level=warning",
            ]))?;
        let after = fs::metadata(&js).map(|m| m.len()).unwrap_or(0);
        let name = js.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        println!("dist: minified {name}: {} -> {}", kib(before), kib(after));
    }
    Ok(())
}

/// Writes `name.br` and `name.gz` beside every file of `dir`, for servers
/// that send precompressed files (`cargo xtask serve` does).
fn compress_all(dir: &Path) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let p = entry.path();
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !p.is_file() || matches!(ext, "br" | "gz") {
            continue;
        }
        let bytes = fs::read(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        write(&with_suffix(&p, "gz"), &gzip(&bytes)?)?;
        write(&with_suffix(&p, "br"), &brotli(&bytes)?)?;
    }
    Ok(())
}

/// `a/b.wasm` → `a/b.wasm.gz`.
pub fn with_suffix(p: &Path, suffix: &str) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".");
    s.push(suffix);
    PathBuf::from(s)
}

fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(bytes).map_err(|e| e.to_string())?;
    enc.finish().map_err(|e| e.to_string())
}

fn brotli(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut enc = brotli::CompressorWriter::new(&mut out, 64 * 1024, 11, 22);
        enc.write_all(bytes).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Adds the wasm target through rustup when it is not installed.
pub fn ensure_wasm_target() -> Result<(), String> {
    let listed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    match listed {
        Ok(o)
            if String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.trim() == TARGET) =>
        {
            Ok(())
        }
        Ok(_) => run(Command::new("rustup").args(["target", "add", TARGET])),
        // No rustup: the toolchain may still have the target (a distro Rust).
        Err(_) if succeeds(cargo().args(["--version"])) => {
            println!("xtask: rustup not found; assuming {TARGET} is installed");
            Ok(())
        }
        Err(e) => Err(format!("neither rustup nor cargo runs: {e}")),
    }
}

/// The template with trunk's tags removed and our asset tags in place of the marker.
pub fn render_html(template: &str) -> Result<String, String> {
    if !template.contains(MARKER) && !template.contains(MARKER_HOLD) {
        return Err(format!("the HTML template has no {MARKER} marker"));
    }
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find("<link") {
        let Some(len) = rest[at..].find('>') else {
            break;
        };
        let tag = &rest[at..at + len + 1];
        if tag.contains("data-trunk") {
            // Drop the tag and the indentation and newline around it.
            out.push_str(rest[..at].trim_end_matches([' ', '\t']));
            rest = rest[at + len + 1..].trim_start_matches([' ', '\t']);
            rest = rest.strip_prefix('\n').unwrap_or(rest);
        } else {
            out.push_str(&rest[..at + len + 1]);
            rest = &rest[at + len + 1..];
        }
    }
    out.push_str(rest);
    Ok(out
        .replace(MARKER, &format!("{HINT_TAGS}{LOADER}"))
        .replace(MARKER_HOLD, &format!("{HINT_TAGS}{LOADER_HOLD}")))
}

/// The stylesheet's parts, as (file name, text), in the order they join.
fn stylesheet_parts() -> Result<Vec<(String, String)>, String> {
    crate::stylesheet::parts(&root())
}

/// `dist/redsim.css`: the parts joined, each ending its last line.
fn stylesheet() -> Result<String, String> {
    let parts = stylesheet_parts()?;
    if parts.is_empty() {
        return Err(format!("no stylesheet parts in {}", crate::stylesheet::DIR));
    }
    let mut css = String::new();
    for (_, text) in parts {
        css.push_str(&text);
        if !css.ends_with('\n') {
            css.push('\n');
        }
    }
    Ok(css)
}

/// Copies the files of `from` (not recursive: the stylesheet's parts under
/// `assets/css/` are joined instead, see [`stylesheet`]) into `to`.
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    let entries = fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_file() {
            let dest = to.join(entry.file_name());
            fs::copy(&p, &dest).map_err(|e| format!("cannot copy {}: {e}", p.display()))?;
        }
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Size of `bytes` gzipped at the best level, as a server would send it.
pub fn gzip_len(bytes: &[u8]) -> Result<u64, String> {
    Ok(gzip(bytes)?.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trunk_tags_are_dropped_and_assets_inserted() {
        let t = "<head>\n    <link rel=\"icon\" href=\"x.svg\">\n    <link data-trunk rel=\"rust\"\n          href=\"Cargo.toml\" />\n    <link data-trunk rel=\"css\" href=\"../assets/css/10-tokens.css\" />\n    <!-- redsim:assets -->\n</head>";
        let html = render_html(t).unwrap();
        assert!(!html.contains("data-trunk"), "{html}");
        assert!(html.contains("<link rel=\"icon\" href=\"x.svg\">"));
        assert!(html.contains("<script type=\"module\" src=\"redsim.js\"></script>"));
        assert!(html.contains("href=\"redsim.css\""));
        // The console module is preloaded, and the loader comes after its hint;
        // its bindings come in the loader, so nothing preloads them.
        let preload = html
            .find("<link rel=\"preload\" href=\"redsim-web_bg.wasm\" as=\"fetch\"")
            .expect("the wasm is preloaded");
        assert!(!html.contains("modulepreload"), "{html}");
        assert!(preload < html.find("src=\"redsim.js\"").unwrap());
        assert!(!html.contains("\n\n"), "{html}");
        // The holding marker gives the same tags with a render-blocking loader.
        let held = render_html(&t.replace(MARKER, MARKER_HOLD)).unwrap();
        assert_eq!(held.replace(" blocking=\"render\"", ""), html);
        assert!(held.contains(LOADER_HOLD) && !html.contains("blocking"));
        assert!(render_html("<head></head>").is_err());
    }

    #[test]
    fn the_real_templates_render() {
        for name in ["index.html", "embed.html"] {
            let t = fs::read_to_string(root().join("web").join(name)).unwrap();
            let html = render_html(&t).unwrap();
            assert!(!html.contains("data-trunk"));
            // Paths stay relative so the site works under any sub-path.
            assert!(!html.contains("src=\"/") && !html.contains("href=\"/"));
            // Only the playground page holds its first paint.
            assert_eq!(html.contains(LOADER_HOLD), name == "index.html", "{name}");
            assert!(html.contains("src=\"redsim.js\""), "{name}");
        }
    }

    /// Every block of each part of the stylesheet is closed within it: one
    /// lost `}` (a merge, say) turns every rule after it, in that part and
    /// the parts joined after it, into part of a media query, and the page
    /// silently loses them.
    #[test]
    fn each_stylesheet_part_closes_every_block() {
        let parts = stylesheet_parts().unwrap();
        assert!(parts.len() >= 2, "the stylesheet's parts: {parts:?}");
        for (name, css) in &parts {
            let mut depth = 0i32;
            for (n, line) in css.lines().enumerate() {
                depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
                assert!(
                    depth >= 0,
                    "{name}:{}: a `}}` with no block to close",
                    n + 1
                );
            }
            assert_eq!(depth, 0, "blocks left open at the end of {name}");
        }
    }

    #[test]
    fn the_loader_carries_the_console_bindings_in_place_of_its_line() {
        let loader = format!("const here = 1;\n{BINDINGS_LINE}start();\n");
        let bindings = format!("let wasm;\nasync function __wbg_init() {{}}\nfunction initSync() {{}}\n\n{BINDINGS_EXPORT}\n");
        let out = inline_console_bindings(&loader, &bindings).unwrap();
        assert_eq!(
            out,
            "const here = 1;\nconst inlinedConsole = (() => {\nlet wasm;\nasync function __wbg_init() {}\n\
             function initSync() {}\n\nreturn { default: __wbg_init, initSync };\n})();\nstart();\n"
        );
        // No line to replace, or bindings of another shape: refused, not guessed.
        assert!(inline_console_bindings("start();\n", &bindings).is_err());
        assert!(inline_console_bindings(&loader, "export default 1;\n").is_err());
        // The real loader has the line once.
        let real = fs::read_to_string(root().join("assets/redsim.js")).unwrap();
        assert_eq!(real.matches(BINDINGS_LINE).count(), 1);
    }

    /// `dist/redsim.css` is the parts in the order of their names, whole.
    #[test]
    fn the_stylesheet_joins_its_parts_in_name_order() {
        let parts = stylesheet_parts().unwrap();
        let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert!(names[0].starts_with("10-"), "{names:?}");
        let css = stylesheet().unwrap();
        let mut at = 0;
        for (name, text) in &parts {
            let found = css[at..].find(text.as_str());
            assert_eq!(found, Some(0), "{name} is next, whole");
            at += text.len();
            if !css[..at].ends_with('\n') {
                at += 1;
            }
        }
        assert_eq!(at, css.len());
    }

    #[test]
    fn trunk_builds_the_same_template_with_the_wasm_profile() {
        let trunk = fs::read_to_string(root().join("Trunk.toml")).unwrap();
        assert!(trunk.contains("target = \"web/index.html\""));
        let t = fs::read_to_string(root().join("web/index.html")).unwrap();
        let rust_link = t
            .split("<link")
            .find(|tag| tag.contains("data-trunk") && tag.contains("rel=\"rust\""))
            .expect("a trunk rust link");
        // Trunk builds the console module as `dist` does; the lab is `dist`'s alone.
        let console = &MODULES[0];
        assert!(rust_link.contains(&format!("data-bin=\"{}\"", console.bin)));
        assert!(rust_link.contains(&format!(
            "data-cargo-profile-release=\"{}\"",
            console.profile
        )));
        // The page's own stylesheet reaches trunk's output too: every part,
        // in the order `dist` joins them.
        let linked: Vec<&str> = t
            .split("<link")
            .filter(|tag| tag.contains("data-trunk") && tag.contains("rel=\"css\""))
            .filter_map(|tag| tag.split("href=\"../assets/css/").nth(1))
            .filter_map(|rest| rest.split('"').next())
            .collect();
        let parts = stylesheet_parts().unwrap();
        let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(linked, names);
    }

    #[test]
    fn gzip_shrinks_repetitive_input() {
        let n = gzip_len(&[7u8; 100_000]).unwrap();
        assert!(n > 0 && n < 1000, "{n}");
    }

    #[test]
    fn compressed_copies_decompress_to_the_original() {
        use std::io::Read;
        let dir = std::env::temp_dir().join(format!("xtask-compress-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let text = "SET k v\n".repeat(5000);
        fs::write(dir.join("a.js"), &text).unwrap();
        compress_all(&dir).unwrap();
        compress_all(&dir).unwrap(); // again: no .gz.gz
        let mut names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.js", "a.js.br", "a.js.gz"]);
        let mut gz = String::new();
        flate2::read::GzDecoder::new(&fs::read(dir.join("a.js.gz")).unwrap()[..])
            .read_to_string(&mut gz)
            .unwrap();
        let mut br = String::new();
        brotli::Decompressor::new(&fs::read(dir.join("a.js.br")).unwrap()[..], 4096)
            .read_to_string(&mut br)
            .unwrap();
        assert_eq!((gz.as_str(), br.as_str()), (text.as_str(), text.as_str()));
        fs::remove_dir_all(&dir).unwrap();
    }
}
