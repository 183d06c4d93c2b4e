//! The `redsim` binary: `redsim server [--name value ...]`, plus `--help` and `--version`.

mod bench;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("-h" | "--help" | "help") => {
            print!("{}", redsim_cli::usage());
            ExitCode::SUCCESS
        }
        Some("-v" | "--version") => {
            println!(
                "redsim {} (Redis {} semantics)",
                env!("CARGO_PKG_VERSION"),
                redsim_engine::REDIS_VERSION
            );
            ExitCode::SUCCESS
        }
        Some("server") => server(&args[1..]),
        Some("bench") => bench::main(&args[1..]),
        Some(other) => {
            eprintln!(
                "redsim: unknown command '{other}'\n\n{}",
                redsim_cli::usage()
            );
            ExitCode::from(2)
        }
        None => {
            eprint!("{}", redsim_cli::usage());
            ExitCode::from(2)
        }
    }
}

fn server(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{}", redsim_cli::server_usage());
        return ExitCode::SUCCESS;
    }
    let opts = match redsim_cli::ServerOptions::from_args(args) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::FAILURE;
        }
    };
    match redsim_cli::run(opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("redsim: {e}");
            ExitCode::FAILURE
        }
    }
}
