//! Splits the console module in two by its startup profile: the functions a page runs until its consoles have answered and gone idle stay in `redsim-web_bg.wasm`; the rest move to `redsim-web_rest.wasm`, which the loader fetches once the page is idle (see "The console module's rest" in `assets/redsim.js`).
//!
//! Why: every byte of the console module costs its first reply time
//! before any of it runs (download, then validation and the handover to the
//! compiler on the page's main thread), and a page's first reply runs a
//! third of its code. Splitting is binaryen's `wasm-split`, given the
//! functions to keep; the profile (`web/console-startup.txt`) lists them by
//! name and is recorded in a browser by `cargo xtask split-profile`.
//!
//! The only `wasm-split` this machine can install is Debian's (binaryen
//! 108; npm's binaryen package ships no `wasm-split`). It cannot read two
//! things today's wasm-bindgen writes, and it mislabels one export, so the
//! module is mended on both sides with walrus (which wasm-bindgen itself
//! uses): before, `table.fill` of one slot becomes `table.set`; after, the
//! externref table's export points at that table again, and its placeholder
//! imports become stubs of the first part (see [`stubs_for_placeholders`]).
//! Without `wasm-split` the module stays whole and the page works as before.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use walrus::ir::{Instr, InstrSeqId, TableSet, Value};
use walrus::{ExportItem, ModuleConfig, RefType};

use crate::tools::WASM_FEATURES;
use crate::util::{kib, root, run, target_dir, which};

/// The profile: one function name per line, as the name section has it.
pub const PROFILE: &str = "web/console-startup.txt";
/// The file stem suffix of the second part, beside `<bin>_bg.wasm`.
pub const REST_SUFFIX: &str = "_rest.wasm";
/// The import module of the placeholders `wasm-split` puts where a moved
/// function was (stubs once mended, which import its `link` alone); the
/// bindings give it the loader's (see [`patch_bindings`]).
const PLACEHOLDERS: &str = "placeholder";
/// The import module under which the second part imports the first's
/// memory, tables, globals and functions.
const PRIMARY: &str = "primary";
/// wasm-bindgen's table of JavaScript values.
const EXTERNREFS: &str = "__wbindgen_externrefs";
/// The custom section of the second part that names the pair it belongs
/// to; the bindings of the first part name the same pair, and the loader
/// links the two only when they agree (see [`pair_id`]).
pub const PAIR_SECTION: &str = "redsim-pair";

/// Whether the console module is split: `REDSIM_WASM_SPLIT=off` keeps it
/// whole (the profile is recorded from a whole module with names).
pub fn enabled() -> bool {
    std::env::var("REDSIM_WASM_SPLIT").map_or(true, |v| v != "off")
}

/// What [`split`] did.
#[derive(Default)]
pub struct Split {
    /// The second part, `None` where the module stayed whole.
    pub rest: Option<PathBuf>,
    /// How the profile no longer fits this build (code renamed, moved or
    /// rehashed since it was recorded). `dist` builds anyway, but a page
    /// may then link its rest before its first reply, which the browser
    /// benchmark reports only at the end of `cargo xtask test`; the test
    /// command fails on these at once.
    pub stale_profile: Vec<String>,
}

/// Splits `wasm` (with its name section) in place into itself and
/// `<stem>_rest.wasm`, keeping the profile's functions, and patches the
/// bindings `js`; returns the second part's path. `Ok(None)`: not split,
/// and why was printed; the module is left as it was.
pub fn split(wasm: &Path, js: &Path) -> Result<Split, String> {
    let Some(tool) = which("wasm-split") else {
        println!("dist: wasm-split not found (Debian's binaryen package has it): the console module stays whole");
        return Ok(Split::default());
    };
    let profile_path = root().join(PROFILE);
    let profile = fs::read_to_string(&profile_path)
        .map_err(|e| format!("cannot read {}: {e}", profile_path.display()))?;
    let wanted: BTreeSet<&str> = profile
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let t = Instant::now();
    let bytes = fs::read(wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))?;
    let mended = match mend_table_fills(&bytes)? {
        Some(m) => m,
        None => return Ok(Split::default()),
    };
    let names = function_names(&mended)?;
    let mut stale_profile = Vec::new();
    let Matched {
        keep,
        exact,
        missing: stale,
    } = matched(&names, &wanted);
    if !stale.is_empty() {
        // Code renamed or changed since the profile was recorded: what a
        // page starts with may now be in the rest, which it then links
        // early (the browser benchmark and upgrade test fail on that).
        stale_profile.push(format!(
            "{} of the profile's names are in no function of this build, even without hashes (first: {}): record it again with cargo xtask split-profile",
            stale.len(),
            stale[0]
        ));
    }
    let inexact = wanted.len() - stale.len() - exact;
    if inexact * 10 > wanted.len() {
        // Every hash changed (a dependency's features or version, say):
        // the names still match, but each now keeps all generic instances
        // of its function, and the first part grows.
        stale_profile.push(format!(
            "{inexact} of the profile's {} names match only without their hashes: record it again with cargo xtask split-profile",
            wanted.len()
        ));
    }
    for problem in &stale_profile {
        println!("dist: {problem}");
    }
    if keep.len() < wanted.len() / 2 {
        let whole = format!(
            "only {} of the profile's {} functions are in the console module: it stays whole (run cargo xtask split-profile)",
            keep.len(),
            wanted.len()
        );
        println!("dist: {whole}");
        stale_profile.push(whole);
        return Ok(Split {
            rest: None,
            stale_profile,
        });
    }
    let work = target_dir()?.join("wasm-split");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let input = work.join("whole.wasm");
    let list = work.join("keep.txt");
    let primary = work.join("primary.wasm");
    let secondary = work.join("rest.wasm");
    // Without names binaryen calls each defined function by its index.
    write(&input, &strip_names(&mended)?)?;
    let list_text: String = keep.iter().map(|i| format!("{i}\n")).collect();
    write(&list, list_text.as_bytes())?;
    run(Command::new(tool)
        .arg(&input)
        .args(WASM_FEATURES)
        .arg(format!("--keep-funcs=@{}", list.display()))
        .arg("-o1")
        .arg(&primary)
        .arg("-o2")
        .arg(&secondary)
        .arg("--export-prefix=%")
        .arg(format!("--placeholder-namespace={PLACEHOLDERS}"))
        .arg(format!("--import-namespace={PRIMARY}")))?;
    let first = mend_primary(&fs::read(&primary).map_err(|e| e.to_string())?)?;
    let secondary = fs::read(&secondary).map_err(|e| e.to_string())?;
    let pair = pair_id(&first, &secondary);
    let rest = reemit(&secondary, &pair)?;
    let rest_path = rest_path(wasm);
    write(wasm, &first)?;
    write(&rest_path, &rest)?;
    let bindings =
        fs::read_to_string(js).map_err(|e| format!("cannot read {}: {e}", js.display()))?;
    write(js, patch_bindings(&bindings, &pair)?.as_bytes())?;
    let _ = fs::remove_dir_all(&work);
    println!(
        "dist: split the console module by its startup profile: {} kept ({} functions of {}), {} moved to {} in {:.1} s",
        kib(first.len() as u64),
        keep.len(),
        names.len(),
        kib(rest.len() as u64),
        rest_path.file_name().and_then(|n| n.to_str()).unwrap_or(""),
        t.elapsed().as_secs_f64()
    );
    Ok(Split {
        rest: Some(rest_path),
        stale_profile,
    })
}

/// `cargo xtask split-profile`: builds the console module whole, with its
/// names and without the lab (a trace cannot tell the two modules'
/// functions apart), and records in a browser which functions its pages
/// run (`tests/e2e/split_profile.py`) into [`PROFILE`]. `dist` afterwards
/// builds the split page again.
pub fn record_profile() -> Result<(), String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    run(Command::new(me)
        .arg("dist")
        .env("REDSIM_WASM_NAMES", "1")
        .env("REDSIM_WASM_SPLIT", "off")
        .env("REDSIM_DIST_MODULE", "redsim-web"))?;
    run(Command::new("python3")
        .arg(root().join("tests/e2e/split_profile.py"))
        .arg(root().join("dist"))
        .arg(root().join(PROFILE)))?;
    println!("split-profile: wrote {PROFILE}; cargo xtask dist builds the split page with it");
    Ok(())
}

/// How a build's functions meet the profile's names.
struct Matched<'a> {
    /// The functions to keep: those the profile names exactly, and for a
    /// profiled name not found (another toolchain's symbol hashes, say),
    /// every function with the same name once normalized. Functions
    /// without a name cannot be profiled by name, so all are kept: they
    /// are the bindings' few small shims, some of which every start runs.
    keep: Vec<usize>,
    /// How many of the profile's names some function has exactly.
    exact: usize,
    /// The profile's names that match no function, exactly or normalized.
    missing: Vec<&'a str>,
}

fn matched<'a>(names: &[(usize, Option<String>)], profile: &BTreeSet<&'a str>) -> Matched<'a> {
    let present: BTreeSet<&str> = names.iter().filter_map(|(_, n)| n.as_deref()).collect();
    let normalized: BTreeSet<String> = present.iter().map(|n| normalize(n)).collect();
    let absent: Vec<&'a str> = profile
        .iter()
        .filter(|n| !present.contains(*n))
        .copied()
        .collect();
    let wanted_loosely: BTreeSet<String> = absent.iter().map(|n| normalize(n)).collect();
    let keep = names
        .iter()
        .filter(|(_, n)| match n {
            Some(n) => profile.contains(n.as_str()) || wanted_loosely.contains(&normalize(n)),
            None => true,
        })
        .map(|(i, _)| *i)
        .collect();
    Matched {
        keep,
        exact: profile.len() - absent.len(),
        missing: absent
            .into_iter()
            .filter(|n| !normalized.contains(&normalize(n)))
            .collect(),
    }
}

/// `dist/<bin>_bg.wasm` → `dist/<bin>_rest.wasm`.
fn rest_path(wasm: &Path) -> PathBuf {
    let name = wasm.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.strip_suffix("_bg.wasm").unwrap_or(name);
    wasm.with_file_name(format!("{stem}{REST_SUFFIX}"))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A function's name without what changes from build to build: the
/// symbol hash (`::h0123…`), crate disambiguators (`core[0123…]`) and
/// LLVM's numeric suffixes (`.123`). Generic instances share a name, so a
/// profile keeps them all.
pub fn normalize(name: &str) -> String {
    if !name.is_ascii() {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len());
    let b = name.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' && i + 18 <= b.len() && b[i + 17] == b']' && is_hex(&b[i + 1..i + 17]) {
            i += 18;
            continue;
        }
        if b[i..].starts_with(b"::h")
            && i + 19 <= b.len()
            && is_hex(&b[i + 3..i + 19])
            && (i + 19 == b.len() || !b[i + 19].is_ascii_alphanumeric())
        {
            i += 19;
            continue;
        }
        out.push(b[i] as char);
        i += 1;
    }
    if let Some(dot) = out.rfind('.') {
        if dot + 1 < out.len() && out[dot + 1..].bytes().all(|c| c.is_ascii_digit()) {
            out.truncate(dot);
        }
    }
    out
}

fn is_hex(b: &[u8]) -> bool {
    b.iter()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
}

/// Rewrites each `i32.const 1; table.fill` as `table.set` (the same: one
/// slot set to the value), which binaryen 108 can read. `None`, said
/// why, when some other `table.fill` is there.
fn mend_table_fills(bytes: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut module = ModuleConfig::new()
        .parse(bytes)
        .map_err(|e| format!("walrus cannot read the console module: {e}"))?;
    let mut other = 0;
    for (_, func) in module.funcs.iter_local_mut() {
        let mut seqs: Vec<InstrSeqId> = vec![func.entry_block()];
        while let Some(id) = seqs.pop() {
            let seq = func.block_mut(id);
            let mut i = 0;
            while i < seq.instrs.len() {
                match &seq.instrs[i].0 {
                    Instr::Block(b) => seqs.push(b.seq),
                    Instr::Loop(l) => seqs.push(l.seq),
                    Instr::IfElse(e) => {
                        seqs.push(e.consequent);
                        seqs.push(e.alternative);
                    }
                    Instr::TableFill(fill) => {
                        let one = i > 0
                            && matches!(&seq.instrs[i - 1].0, Instr::Const(c) if matches!(c.value, Value::I32(1)));
                        if one {
                            let table = fill.table;
                            seq.instrs[i].0 = Instr::TableSet(TableSet { table });
                            seq.instrs.remove(i - 1);
                            continue;
                        }
                        other += 1;
                    }
                    _ => {}
                }
                i += 1;
            }
        }
    }
    if other > 0 {
        println!("dist: the console module fills {other} table ranges, which binaryen 108 cannot read: it stays whole");
        return Ok(None);
    }
    Ok(Some(module.emit_wasm()))
}

/// Each defined function's index (binaryen's name for a function without
/// one) and name, from the name section. wasm-bindgen's generated shims
/// have none (its start among them).
fn function_names(bytes: &[u8]) -> Result<Vec<(usize, Option<String>)>, String> {
    let mut imported = 0usize;
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut count = 0usize;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload.map_err(|e| e.to_string())? {
            wasmparser::Payload::ImportSection(r) => {
                for imp in r.into_imports() {
                    if matches!(
                        imp.map_err(|e| e.to_string())?.ty,
                        wasmparser::TypeRef::Func(_)
                    ) {
                        imported += 1;
                    }
                }
            }
            wasmparser::Payload::FunctionSection(r) => count = r.count() as usize,
            wasmparser::Payload::CustomSection(c) if c.name() == "name" => {
                let reader = wasmparser::NameSectionReader::new(wasmparser::BinaryReader::new(
                    c.data(),
                    c.data_offset(),
                ));
                for sub in reader {
                    if let wasmparser::Name::Function(map) = sub.map_err(|e| e.to_string())? {
                        for n in map {
                            let n = n.map_err(|e| e.to_string())?;
                            names.insert(n.index, n.name.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if names.is_empty() {
        return Err("the console module has no function names to split it by".into());
    }
    Ok((0..count)
        .map(|i| (i, names.get(&((i + imported) as u32)).cloned()))
        .collect())
}

/// The module without its custom sections' names (binaryen then names
/// each defined function by its index).
fn strip_names(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut module = ModuleConfig::new()
        .generate_name_section(false)
        .parse(bytes)
        .map_err(|e| e.to_string())?;
    module.producers.clear();
    Ok(module.emit_wasm())
}

/// Drops the name section of the module at `path` (a module that was to
/// be split but stays whole).
pub fn strip_names_in_place(path: &Path) -> Result<(), String> {
    let bytes = fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    write(path, &strip_names(&bytes)?)
}

/// The first part as the page needs it: binaryen 108 exports the
/// externref table under wasm-bindgen's name but as the function table;
/// the export is pointed at the externref table again. Its placeholders
/// become stubs.
fn mend_primary(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut module = ModuleConfig::new()
        .generate_name_section(false)
        .parse(bytes)
        .map_err(|e| format!("walrus cannot read the split's first part: {e}"))?;
    let externrefs = module
        .tables
        .iter()
        .filter(|t| t.element_ty == RefType::EXTERNREF)
        .map(|t| t.id())
        .collect::<Vec<_>>();
    let [table] = externrefs[..] else {
        return Err(format!(
            "the split's first part has {} externref tables, not one",
            externrefs.len()
        ));
    };
    let export = module
        .exports
        .iter_mut()
        .find(|e| e.name == EXTERNREFS)
        .ok_or_else(|| format!("the split's first part does not export {EXTERNREFS}"))?;
    export.item = ExportItem::Table(table);
    stubs_for_placeholders(&mut module)?;
    module.producers.clear();
    Ok(module.emit_wasm())
}

/// The name under which the first part imports the loader's one linking
/// function (the rest of the placeholder module's imports are numbers).
const LINK: &str = "link";

/// Turns each placeholder import into a small function of the first part:
/// it asks the loader to link the rest (`placeholder.link`, which returns
/// at once when it is linked), then calls through the function table at
/// the slot the placeholder held, which the rest's instantiation has
/// filled with the function it stands for.
///
/// `wasm-split` names each placeholder by its table slot and makes the
/// loader give one JavaScript function per slot: a thousand imports the
/// browser decodes, resolves and wraps at every instantiation, before the
/// first reply, though a start calls none of them. One import and wasm
/// stubs, compiled only if called, cost that once.
fn stubs_for_placeholders(module: &mut walrus::Module) -> Result<(), String> {
    let table = match module.exports.iter().find(|e| e.name == "%table") {
        Some(e) => match e.item {
            ExportItem::Table(t) => t,
            _ => return Err("the split's first part exports %table, but not as a table".into()),
        },
        None => {
            return Err("the split's first part does not export its function table (%table)".into())
        }
    };
    let placeholders: Vec<(walrus::FunctionId, i32)> = module
        .imports
        .iter()
        .filter(|i| i.module == PLACEHOLDERS)
        .map(|i| match (i.kind.clone(), i.name.parse::<i32>()) {
            (walrus::ImportKind::Function(f), Ok(slot)) => Ok((f, slot)),
            _ => Err(format!("the split's first part imports {PLACEHOLDERS}.{}, not a function named by its slot", i.name)),
        })
        .collect::<Result<_, _>>()?;
    if placeholders.is_empty() {
        return Ok(());
    }
    let link_ty = module.types.add(&[], &[]);
    let (link, _) = module.add_import_func(PLACEHOLDERS, LINK, link_ty);
    for (f, slot) in placeholders {
        let ty = module.funcs.get(f).ty();
        module
            .replace_imported_func(f, |(body, args)| {
                body.call(link);
                for a in args {
                    body.local_get(*a);
                }
                body.i32_const(slot).call_indirect(ty, table);
            })
            .map_err(|e| format!("cannot replace placeholder {slot}: {e}"))?;
    }
    Ok(())
}

/// The second part, read and written again: proof that it parses, no
/// names or producers, and the [`PAIR_SECTION`] naming its pair.
fn reemit(bytes: &[u8], pair: &str) -> Result<Vec<u8>, String> {
    let mut module = ModuleConfig::new()
        .generate_name_section(false)
        .parse(bytes)
        .map_err(|e| format!("walrus cannot read the split's second part: {e}"))?;
    module.producers.clear();
    module.customs.add(walrus::RawCustomSection {
        name: PAIR_SECTION.to_string(),
        data: pair.as_bytes().to_vec(),
    });
    Ok(module.emit_wasm())
}

/// The bindings give the first part its placeholder import (`link`): the
/// loader's `redsimPlaceholders` makes it for this instance, from a getter of its
/// exports (set before the Rust start runs) and the id of the pair the
/// instance belongs to, which the loader asks of the rest it links.
fn patch_bindings(js: &str, pair: &str) -> Result<String, String> {
    let anchor = "\"./redsim-web_bg.js\": import0,\n";
    if js.matches(anchor).count() != 1 {
        return Err("the console module's bindings have changed shape: cannot give them the split's placeholders".into());
    }
    Ok(js.replacen(
        anchor,
        &format!(
            "{anchor}        {PLACEHOLDERS}: globalThis.redsimPlaceholders(() => wasm, \"{pair}\"),\n"
        ),
        1,
    ))
}

/// The id of a first part and its rest: a hash of both (FNV-1a, 64 bits).
/// The two files are fetched apart, at different moments, and a cache or a
/// half-finished deploy can hand a page one file of another build; the
/// loader fetches the rest under this id (`?v=`) and links it only if its
/// [`PAIR_SECTION`] says the same, since a rest of another build may link
/// and then call the wrong functions.
fn pair_id(first: &[u8], rest: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in first.iter().chain(rest) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_drops_what_changes_between_builds() {
        assert_eq!(
            normalize("redsim_web::mount::mount_now::hee923eb8b39d1f52"),
            "redsim_web::mount::mount_now"
        );
        assert_eq!(
            normalize("<alloc[3ca501edff3f0c7c]::string::String as core[c5930c85a12de822]::fmt::Write>::write_str.708"),
            "<alloc::string::String as core::fmt::Write>::write_str"
        );
        assert_eq!(
            normalize("yew::scheduler::arch::start::{{closure}}::h3afbe57b7ca8be4f"),
            "yew::scheduler::arch::start::{{closure}}"
        );
        // Not a hash: kept.
        assert_eq!(normalize("a::hello"), "a::hello");
        assert_eq!(normalize("f32.v2"), "f32.v2");
    }

    #[test]
    fn kept_prefers_exact_names_and_falls_back_to_normalized_ones() {
        let names: Vec<(usize, Option<String>)> = [
            Some("a::f::h0000000000000001"),
            Some("a::f::h0000000000000002"),
            Some("b::g::h0000000000000003"),
            Some("b::g::h0000000000000004"),
            Some("c::h::h0000000000000005"),
            None,
        ]
        .iter()
        .enumerate()
        .map(|(i, n)| (i, n.map(String::from)))
        .collect();
        // a::f is found exactly: only that instance. b::g's hash is another
        // build's: both instances. c::h is not profiled; a shim has no name.
        let profile: BTreeSet<&str> = ["a::f::h0000000000000001", "b::g::h00000000000000ff"]
            .into_iter()
            .collect();
        let m = matched(&names, &profile);
        assert_eq!(m.keep, vec![0, 2, 3, 5]);
        assert!(m.missing.is_empty());
        assert_eq!(m.exact, 1, "b::g matched without its hash");
        let renamed: BTreeSet<&str> = ["a::moved::f::h0000000000000001"].into_iter().collect();
        assert_eq!(
            matched(&names, &renamed).missing,
            ["a::moved::f::h0000000000000001"]
        );
    }

    #[test]
    fn rest_sits_beside_the_module() {
        assert_eq!(
            rest_path(Path::new("dist/redsim-web_bg.wasm")),
            Path::new("dist/redsim-web_rest.wasm")
        );
    }

    #[test]
    fn bindings_get_the_placeholders_once() {
        let js = "    return {\n        __proto__: null,\n        \"./redsim-web_bg.js\": import0,\n    };\n";
        let out = patch_bindings(js, "00ff").unwrap();
        assert!(out.contains("placeholder: globalThis.redsimPlaceholders(() => wasm, \"00ff\"),"));
        assert!(patch_bindings("no anchor", "00ff").is_err());
    }

    #[test]
    fn a_pair_is_named_by_both_parts() {
        let id = pair_id(b"first", b"rest");
        assert_eq!(id.len(), 16);
        assert_ne!(id, pair_id(b"first", b"rest2"));
        assert_ne!(id, pair_id(b"first2", b"rest"));
        assert_eq!(id, pair_id(b"first", b"rest"));
    }

    #[test]
    fn the_pair_section_reads_back() {
        // The smallest module, written again with the section: it reads back.
        let data = "0123456789abcdef".repeat(10);
        let m = reemit(b"\0asm\x01\0\0\0", &data).unwrap();
        let module = walrus::Module::from_buffer(&m).unwrap();
        let found: Vec<(String, Vec<u8>)> = module
            .customs
            .iter()
            .filter_map(|(_, c)| {
                let any: &dyn std::any::Any = c.as_any();
                any.downcast_ref::<walrus::RawCustomSection>()
                    .map(|r| (r.name.clone(), r.data.clone()))
            })
            .collect();
        assert_eq!(found, vec![(PAIR_SECTION.to_string(), data.into_bytes())]);
    }

    #[test]
    fn placeholders_become_stubs_that_link_then_call_their_slot() {
        use walrus::ir::{Call, CallIndirect, Const, Value};
        use walrus::{FunctionKind, ImportKind, ValType};
        let mut m = walrus::Module::default();
        let table = m.tables.add_local(false, 8, None, RefType::FUNCREF);
        m.exports.add("%table", table);
        let ty = m.types.add(&[ValType::I32, ValType::I64], &[ValType::I32]);
        let (p3, _) = m.add_import_func(PLACEHOLDERS, "3", ty);
        let (p5, _) = m.add_import_func(PLACEHOLDERS, "5", ty);
        stubs_for_placeholders(&mut m).unwrap();
        // One import is left, the loader's link.
        let imports: Vec<(String, String)> = m
            .imports
            .iter()
            .map(|i| (i.module.clone(), i.name.clone()))
            .collect();
        assert_eq!(imports, [(PLACEHOLDERS.to_string(), LINK.to_string())]);
        let link = match m.imports.iter().next().unwrap().kind {
            ImportKind::Function(f) => f,
            _ => panic!("link is a function"),
        };
        // Each stub (same id, same type) links, passes its arguments on and
        // calls its own slot of %table.
        for (f, slot) in [(p3, 3), (p5, 5)] {
            let func = m.funcs.get(f);
            assert_eq!(func.ty(), ty);
            let FunctionKind::Local(local) = &func.kind else {
                panic!("placeholder {slot} is still imported");
            };
            let body = local.block(local.entry_block());
            let instrs: Vec<&Instr> = body.instrs.iter().map(|(i, _)| i).collect();
            assert_eq!(instrs.len(), 5, "{instrs:?}");
            assert!(matches!(instrs[0], Instr::Call(Call { func }) if *func == link));
            assert!(matches!(instrs[1], Instr::LocalGet(g) if g.local == local.args[0]));
            assert!(matches!(instrs[2], Instr::LocalGet(g) if g.local == local.args[1]));
            assert!(
                matches!(instrs[3], Instr::Const(Const { value: Value::I32(s) }) if *s == slot)
            );
            assert!(
                matches!(instrs[4], Instr::CallIndirect(CallIndirect { ty: t, table: tb }) if *t == ty && *tb == table)
            );
        }
        // And the module is valid wasm.
        walrus::Module::from_buffer(&m.emit_wasm()).unwrap();
    }
}
