//! CONFIG's subcommands: GET (names and globs), SET (all or nothing, in Redis' order of checks), RESETSTAT and HELP, over the parameter table in `server::config`.

use crate::cmd::args::{err_text, SYNTAX};
use crate::cmd::replies::help_reply;
use crate::cmd::table::{commands, Command, Ctx};
use crate::proto::resp::Frame;
use crate::server::config::{self, PARAMS};
use crate::server::{Server, Stats};

pub(super) static SUBCOMMANDS: &[Command] = commands! { group: "server";
    "get" => config_get, arity: -3, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.0.0",
        syntax: "CONFIG GET parameter [parameter ...]", summary: "Returns the effective values of configuration parameters.";
    "set" => config_set, arity: -4, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.0.0",
        syntax: "CONFIG SET parameter value [parameter value ...]", summary: "Sets configuration parameters in-flight.";
    "resetstat" => config_resetstat, arity: 2, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.0.0",
        syntax: "CONFIG RESETSTAT", summary: "Resets the server's statistics.";
    "rewrite" => config_rewrite, arity: 2, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.8.0",
        syntax: "CONFIG REWRITE", summary: "Persists the effective configuration to file.";
    "help" => config_help, arity: 2, flags: [LOADING, STALE], acl: [SLOW], since: "5.0.0",
        syntax: "CONFIG HELP", summary: "Returns helpful text about the different subcommands.";
};

/// CONFIG GET: each argument is a parameter name (any case, reported as
/// typed) or, if it contains `*`, `?` or `[`, a glob over all names. A
/// name matched twice is reported once.
fn config_get(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let mut matched: Vec<(String, &'static config::Param)> = Vec::new();
    let seen = |m: &Vec<(String, &config::Param)>, name: &str| {
        m.iter().any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    for pat in &args[2..] {
        let pat_c = &pat[..pat.iter().position(|&b| b == 0).unwrap_or(pat.len())];
        if !pat_c.iter().any(|b| b"[*?".contains(b)) {
            let name = String::from_utf8_lossy(pat_c).into_owned();
            if seen(&matched, &name) {
                continue;
            }
            if let Some(p) = config::param(&name) {
                matched.push((name, p));
            }
            continue;
        }
        for p in PARAMS {
            if config::HIDDEN.contains(&p.name) {
                continue;
            }
            if !seen(&matched, p.name) && crate::glob::matches(pat_c, p.name.as_bytes(), true) {
                matched.push((p.name.to_string(), p));
            }
        }
    }
    let cfg = &ctx.srv.config;
    Frame::Map(
        matched
            .into_iter()
            .map(|(n, p)| (Frame::bulk(n), Frame::bulk((p.get)(cfg))))
            .collect(),
    )
}

/// CONFIG SET with `configSetCommand`'s rules: pairs only, the first
/// unknown, immutable or duplicate name fails the whole command before
/// anything changes, and a value that does not parse restores every
/// parameter set so far.
fn config_set(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() % 2 == 1 {
        return Frame::err(SYNTAX);
    }
    let pairs: Vec<(&[u8], &[u8])> = args[2..]
        .chunks_exact(2)
        .map(|p| (p[0].as_slice(), p[1].as_slice()))
        .collect();
    match set_params(ctx.srv, &pairs) {
        Ok(()) => Frame::ok(),
        Err(e) => e,
    }
}

/// CONFIG SET's work on (name, value) pairs: Redis' checks in its order,
/// all or nothing, then `updateMaxmemory`'s side effect. The error is the reply.
pub fn set_params(srv: &mut Server, pairs: &[(&[u8], &[u8])]) -> Result<(), Frame> {
    let mut chosen: Vec<(&'static config::Param, String)> = Vec::new();
    for (name, value) in pairs {
        let typed = err_text(name);
        let Some(p) = config::param(&typed) else {
            return Err(Frame::err(format!(
                "ERR Unknown option or number of arguments for CONFIG SET - '{typed}'"
            )));
        };
        if !p.mutable {
            return Err(set_failed(&typed, "can't set immutable config"));
        }
        if chosen.iter().any(|(q, _)| std::ptr::eq(*q, p)) {
            return Err(set_failed(&typed, "duplicate parameter"));
        }
        chosen.push((p, String::from_utf8_lossy(value).into_owned()));
    }
    let backup = srv.config.clone();
    for (p, value) in &chosen {
        if let Err(e) = (p.set)(&mut srv.config, value) {
            srv.config = backup;
            return Err(set_failed(p.name, &e));
        }
    }
    if srv.config.maxmemory > 0 && chosen.iter().any(|(p, _)| p.name == "maxmemory") {
        // `updateMaxmemory` starts the eviction timer: a lowered limit is
        // enforced before the next sleep, not only at the next command.
        srv.evict.proc_running = true;
    }
    if chosen.iter().any(|(p, _)| p.name == "requirepass") {
        let pass = srv.config.requirepass.clone();
        srv.acl.set_requirepass(&pass);
    }
    Ok(())
}

fn set_failed(name: &str, why: &str) -> Frame {
    Frame::err(format!(
        "ERR CONFIG SET failed (possibly related to argument '{name}') - {why}"
    ))
}

/// CONFIG RESETSTAT: `resetServerStats` (the memory peak survives).
fn config_resetstat(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let peak = ctx.srv.stats.peak_memory;
    // `lazyfreeResetStats`: only the count of freed objects.
    ctx.srv.lazyfree_drain();
    ctx.srv.lazyfree.freed_objects = 0;
    ctx.srv.stats = Stats {
        peak_memory: peak,
        ..Stats::default()
    };
    Frame::ok()
}

/// CONFIG REWRITE: redsim reads no config file (settings come from the
/// command line or CONFIG SET), so it answers as redis-server started
/// without one does.
fn config_rewrite(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::err("ERR The server is running without a config file")
}

fn config_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(args, &crate::cmd::doctext::help("config"))
}
