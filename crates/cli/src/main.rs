//! The `redsim` binary: `redsim server [--name value ...]`, `redsim cluster`, `redsim sentinel`, `redsim scenarios`, `redsim run <scenario>`, `redsim lessons`, `redsim replay SCRIPT --against URL`, plus `--help` and `--version`.

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
        Some("cluster") => cluster(&args[1..]),
        Some("sentinel") => sentinel(&args[1..]),
        Some("bench") => bench::main(&args[1..]),
        Some(cmd @ ("scenarios" | "run" | "replay" | "lessons")) => {
            scenario_command(cmd, &args[1..])
        }
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

fn cluster(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{}", redsim_cli::options::cluster_usage());
        return ExitCode::SUCCESS;
    }
    let opts = match redsim_cli::ClusterOptions::from_args(args) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    match redsim_cli::run_cluster(opts.server, opts.masters, opts.replicas) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("redsim: {e}");
            ExitCode::FAILURE
        }
    }
}

fn sentinel(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{}", redsim_cli::options::sentinel_usage());
        return ExitCode::SUCCESS;
    }
    let opts = match redsim_cli::options::SentinelOptions::from_args(args) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    match redsim_cli::run_sentinel(opts.server, opts.setup) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("redsim: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `redsim scenarios`, `redsim run`, `redsim replay` and `redsim lessons`:
/// usage errors exit with status 2.
fn scenario_command(cmd: &str, args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        if cmd == "replay" {
            print!("{}", redsim_cli::replay::replay_usage());
        } else if cmd == "lessons" {
            print!("{}", redsim_cli::lessons::lessons_usage());
        } else {
            print!("{}", redsim_cli::run::scenario_usage());
        }
        return ExitCode::SUCCESS;
    }
    let mut out = std::io::stdout().lock();
    let result = match cmd {
        "run" => redsim_cli::run::run_command(args, &mut out),
        "replay" => redsim_cli::replay::replay_command(args, &mut out),
        "lessons" => redsim_cli::lessons::lessons_command(args, &mut out),
        _ => redsim_cli::run::scenarios_command(args, &mut out),
    };
    match result {
        Ok(status) => ExitCode::from(status),
        Err(msg) => {
            eprintln!("redsim: {msg}\n(see 'redsim {cmd} --help')");
            ExitCode::from(2)
        }
    }
}
