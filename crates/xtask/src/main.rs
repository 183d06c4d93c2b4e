//! Project tasks as plain Rust (`cargo xtask <task>`), so building, serving and testing need nothing but cargo on a fresh machine.
//!
//! - `dist`: builds the browser playground into `dist/` (wasm-bindgen runs
//!   from its library crate; no trunk, no wasm-bindgen-cli).
//! - `serve [--port N] [--dir DIR]`: `dist`, then a small static server on
//!   127.0.0.1 (`--dir`: serve a directory already built, as it is).
//! - `test`: installs what is missing, then fmt, clippy (native and wasm),
//!   the workspace tests, `dist`, the end-to-end browser tests and Redis'
//!   own test suite.
//! - `bench`: the speed benchmark step of `test` on its own.
//! - `redis-suite [--update] [UNIT...]`: Redis 7.2's test suite against
//!   `redsim server`, held to a checked-in record.

mod baseline;
mod dist;
mod serve;
mod split;
mod stylesheet;
mod suite;
mod test;
mod tools;
mod util;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  dist                 build the playground into dist/
  serve [--port N]     build, then serve dist/ on http://127.0.0.1:N (default 8080; 0 picks a
                       free port)
  serve --dir DIR      serve DIR, a dist/ already built, as it is (the browser benchmark
                       serves the pages it times this way)
  test                 install missing tools, then fmt, clippy, tests, dist, the browser tests,
                       Redis' own test suite and redis-py's
  bench                the speed benchmark of `test` alone (needs dist/): native against wasm,
                       each page's first reply against the build before the split, every scenario
  split-profile        record which functions the console module's pages run at startup
                       (web/console-startup.txt, which dist splits the module by)
  redis-suite [--update] [UNIT...]
                       run Redis 7.2's test suite against redsim server and check it against
                       tests/redis-suite/results.txt (--update rewrites the record)
  redis-py-suite       run redis-py's own test suite (5.2.1) against redsim server on ports
                       6379 and 6380";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("dist") => dist::dist().map(|_| ()),
        Some("serve") => serve_args(&args[1..]).and_then(|(port, dir)| serve::serve(port, dir)),
        Some("test") => test::test(),
        Some("bench") => test::bench(),
        Some("split-profile") => split::record_profile(),
        Some("redis-py-suite") => test::redis_py_suite(),
        Some("redis-suite") => {
            let update = args.iter().any(|a| a == "--update");
            let units: Vec<String> = args[1..]
                .iter()
                .filter(|a| *a != "--update")
                .cloned()
                .collect();
            suite::redis_suite(update, &units)
        }
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Parses `serve`'s options: the port, and the directory to serve as it is
/// (`None`: build `dist/` first).
fn serve_args(args: &[String]) -> Result<(u16, Option<std::path::PathBuf>), String> {
    let mut port = 8080;
    let mut dir = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (a.as_str(), None),
        };
        let value = match name {
            "--port" | "-p" | "--dir" => inline.or_else(|| it.next().cloned()),
            _ => return Err(format!("serve: unknown option '{a}'\n\n{USAGE}")),
        };
        let Some(v) = value else {
            return Err(format!("serve: {name} needs a value\n\n{USAGE}"));
        };
        if name == "--dir" {
            dir = Some(std::path::PathBuf::from(v));
            continue;
        }
        port = v
            .parse()
            .map_err(|_| format!("serve: '{v}' is not a port number"))?;
    }
    Ok((port, dir))
}

#[cfg(test)]
mod tests {
    use super::serve_args;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn serve_options() {
        assert_eq!(serve_args(&[]).unwrap(), (8080, None));
        assert_eq!(serve_args(&args(&["--port", "0"])).unwrap(), (0, None));
        assert_eq!(
            serve_args(&args(&["--dir=dist", "-p", "9000"])).unwrap(),
            (9000, Some("dist".into()))
        );
        assert!(serve_args(&args(&["--port"])).is_err());
        assert!(serve_args(&args(&["--port", "x"])).is_err());
        assert!(serve_args(&args(&["--dir"])).is_err());
        assert!(serve_args(&args(&["--verbose"])).is_err());
    }
}
