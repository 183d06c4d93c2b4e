//! Server and admin commands: DBSIZE, FLUSHDB, FLUSHALL, TIME, INFO, CONFIG, COMMAND and CLIENT, with Redis 7.2's reply shapes and error texts.
//!
//! Values come from our own state (virtual clock, modelled memory, stats
//! counters); INFO lists only the fields we can fill honestly, in Redis'
//! order. CLIENT LIST needs every connection while a handler only sees its
//! own, so the server keeps a small [`ClientEntry`] per connection that the
//! engine refreshes after each command.

use std::fmt::Write as _;

use super::{arg_i64, is, Command, Ctx};
use crate::proto::resp::Frame;
use crate::server::client::ClientEntry;
use crate::server::config::{self, PARAMS};
use crate::server::trace::Event;
use crate::server::{Server, Stats};

/// A subcommand entry; every subcommand here has no keys.
#[allow(clippy::too_many_arguments)]
const fn sub(
    name: &'static str,
    arity: i32,
    flags: &'static [&'static str],
    acl: &'static [&'static str],
    syntax: &'static str,
    summary: &'static str,
    since: &'static str,
    group: &'static str,
    handler: super::Handler,
) -> Command {
    Command {
        name,
        arity,
        flags,
        keys: (0, 0, 0),
        acl,
        syntax,
        summary,
        since,
        group,
        handler,
        subcommands: &[],
    }
}

const ADMIN: &[&str] = &["admin", "noscript", "loading", "stale"];
const ADMIN_ACL: &[&str] = &["admin", "slow", "dangerous"];
const LOADING_STALE: &[&str] = &["loading", "stale"];
const CONN_FLAGS: &[&str] = &["noscript", "loading", "stale"];
const CONN_ACL: &[&str] = &["slow", "connection"];

static CONFIG_SUBCOMMANDS: &[Command] = &[
    sub(
        "get",
        -3,
        ADMIN,
        ADMIN_ACL,
        "CONFIG GET parameter [parameter ...]",
        "Returns the effective values of configuration parameters.",
        "2.0.0",
        "server",
        config_get,
    ),
    sub(
        "set",
        -4,
        ADMIN,
        ADMIN_ACL,
        "CONFIG SET parameter value [parameter value ...]",
        "Sets configuration parameters in-flight.",
        "2.0.0",
        "server",
        config_set,
    ),
    sub(
        "resetstat",
        2,
        ADMIN,
        ADMIN_ACL,
        "CONFIG RESETSTAT",
        "Resets the server's statistics.",
        "2.0.0",
        "server",
        config_resetstat,
    ),
    sub(
        "help",
        2,
        LOADING_STALE,
        &["slow"],
        "CONFIG HELP",
        "Returns helpful text about the different subcommands.",
        "5.0.0",
        "server",
        config_help,
    ),
];

static COMMAND_SUBCOMMANDS: &[Command] = &[
    sub(
        "count",
        2,
        LOADING_STALE,
        CONN_ACL,
        "COMMAND COUNT",
        "Returns a count of commands.",
        "2.8.13",
        "server",
        command_count,
    ),
    sub(
        "info",
        -2,
        LOADING_STALE,
        CONN_ACL,
        "COMMAND INFO [command-name [command-name ...]]",
        "Returns information about one, multiple or all commands.",
        "2.8.13",
        "server",
        command_info,
    ),
    sub(
        "list",
        -2,
        LOADING_STALE,
        CONN_ACL,
        "COMMAND LIST [FILTERBY (MODULE module-name | ACLCAT category | PATTERN pattern)]",
        "Returns a list of command names.",
        "7.0.0",
        "server",
        command_list,
    ),
    sub(
        "docs",
        -2,
        LOADING_STALE,
        CONN_ACL,
        "COMMAND DOCS [command-name [command-name ...]]",
        "Returns documentary information about one, multiple or all commands.",
        "7.0.0",
        "server",
        command_docs,
    ),
    sub(
        "getkeys",
        -4,
        LOADING_STALE,
        CONN_ACL,
        "COMMAND GETKEYS command arg [arg ...]",
        "Extracts the key names from an arbitrary command.",
        "2.8.13",
        "server",
        command_getkeys,
    ),
    sub(
        "help",
        2,
        LOADING_STALE,
        CONN_ACL,
        "COMMAND HELP",
        "Returns helpful text about the different subcommands.",
        "5.0.0",
        "server",
        command_help,
    ),
];

static CLIENT_SUBCOMMANDS: &[Command] = &[
    sub(
        "id",
        2,
        CONN_FLAGS,
        CONN_ACL,
        "CLIENT ID",
        "Returns the unique client ID of the connection.",
        "5.0.0",
        "connection",
        client_id,
    ),
    sub(
        "setname",
        3,
        CONN_FLAGS,
        CONN_ACL,
        "CLIENT SETNAME connection-name",
        "Sets the connection name.",
        "2.6.9",
        "connection",
        client_setname,
    ),
    sub(
        "getname",
        2,
        CONN_FLAGS,
        CONN_ACL,
        "CLIENT GETNAME",
        "Returns the name of the connection.",
        "2.6.9",
        "connection",
        client_getname,
    ),
    sub(
        "setinfo",
        4,
        CONN_FLAGS,
        CONN_ACL,
        "CLIENT SETINFO (LIB-NAME libname | LIB-VER libver)",
        "Sets information specific to the client or connection.",
        "7.2.0",
        "connection",
        client_setinfo,
    ),
    sub(
        "info",
        2,
        CONN_FLAGS,
        CONN_ACL,
        "CLIENT INFO",
        "Returns information about the connection.",
        "6.2.0",
        "connection",
        client_info,
    ),
    sub(
        "list",
        -2,
        ADMIN,
        &["admin", "slow", "dangerous", "connection"],
        "CLIENT LIST [TYPE (NORMAL | MASTER | REPLICA | PUBSUB)] [ID client-id [client-id ...]]",
        "Lists open connections.",
        "2.4.0",
        "connection",
        client_list,
    ),
    sub(
        "help",
        2,
        LOADING_STALE,
        CONN_ACL,
        "CLIENT HELP",
        "Returns helpful text about the different subcommands.",
        "5.0.0",
        "connection",
        client_help,
    ),
];

pub static COMMANDS: &[Command] = &[
    Command {
        name: "dbsize",
        arity: 1,
        flags: &["readonly", "fast"],
        keys: (0, 0, 0),
        acl: &["keyspace", "read", "fast"],
        syntax: "DBSIZE",
        summary: "Returns the number of keys in the database.",
        since: "1.0.0",
        group: "server",
        handler: dbsize,
        subcommands: &[],
    },
    Command {
        name: "flushdb",
        arity: -1,
        flags: &["write"],
        keys: (0, 0, 0),
        acl: &["keyspace", "write", "slow", "dangerous"],
        syntax: "FLUSHDB [ASYNC | SYNC]",
        summary: "Remove all keys from the current database.",
        since: "1.0.0",
        group: "server",
        handler: flushdb,
        subcommands: &[],
    },
    Command {
        name: "flushall",
        arity: -1,
        flags: &["write"],
        keys: (0, 0, 0),
        acl: &["keyspace", "write", "slow", "dangerous"],
        syntax: "FLUSHALL [ASYNC | SYNC]",
        summary: "Removes all keys from all databases.",
        since: "1.0.0",
        group: "server",
        handler: flushall,
        subcommands: &[],
    },
    Command {
        name: "time",
        arity: 1,
        flags: &["loading", "stale", "fast"],
        keys: (0, 0, 0),
        acl: &["fast"],
        syntax: "TIME",
        summary: "Returns the server time.",
        since: "2.6.0",
        group: "server",
        handler: time,
        subcommands: &[],
    },
    Command {
        name: "info",
        arity: -1,
        flags: &["loading", "stale", "sentinel"],
        keys: (0, 0, 0),
        acl: &["slow", "dangerous"],
        syntax: "INFO [section [section ...]]",
        summary: "Returns information and statistics about the server.",
        since: "1.0.0",
        group: "server",
        handler: info,
        subcommands: &[],
    },
    Command {
        name: "config",
        arity: -2,
        flags: &[],
        keys: (0, 0, 0),
        acl: &["slow"],
        syntax: "CONFIG <subcommand>",
        summary: "A container for server configuration commands.",
        since: "2.0.0",
        group: "server",
        handler: super::container,
        subcommands: CONFIG_SUBCOMMANDS,
    },
    Command {
        name: "command",
        arity: -1,
        flags: &["loading", "stale", "sentinel"],
        keys: (0, 0, 0),
        acl: &["slow", "connection"],
        syntax: "COMMAND",
        summary: "Returns detailed information about all commands.",
        since: "2.8.13",
        group: "server",
        handler: command_all,
        subcommands: COMMAND_SUBCOMMANDS,
    },
    Command {
        name: "client",
        arity: -2,
        flags: &["sentinel"],
        keys: (0, 0, 0),
        acl: &["slow"],
        syntax: "CLIENT <subcommand>",
        summary: "A container for client connection commands.",
        since: "2.4.0",
        group: "connection",
        handler: super::container,
        subcommands: CLIENT_SUBCOMMANDS,
    },
];

// ---------------------------------------------------------------------------
// Keyspace-wide commands.

fn dbsize(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    // Logically expired keys not yet reclaimed count, as in Redis.
    Frame::Integer(ctx.srv.dbs[ctx.db()].len() as i64)
}

/// `getFlushCommandFlags`: nothing, ASYNC or SYNC. Freeing is immediate
/// either way here; what a client observes is the same.
fn flush_args_ok(args: &[Vec<u8>]) -> bool {
    args.len() == 1 || (args.len() == 2 && (is(&args[1], "async") || is(&args[1], "sync")))
}

/// `getFlushCommandFlags`' choice: ASYNC frees in the background, SYNC at
/// once, no argument as `lazyfree-lazy-user-flush` says.
fn flush_lazy(srv: &Server, args: &[Vec<u8>]) -> bool {
    match args.get(1) {
        Some(a) => is(a, "async"),
        None => srv.config.lazyfree_lazy_user_flush,
    }
}

/// [`flush`] that frees what it empties lazily or not (`emptyDbAsync` or
/// the synchronous `emptyDb`, whose time the main thread spends).
pub fn flush_freeing(srv: &mut Server, db: Option<usize>, lazy: bool) -> u64 {
    let range = match db {
        Some(d) => d..d + 1,
        None => 0..srv.dbs.len(),
    };
    let (mut effort, mut bytes) = (0u64, 0u64);
    for d in range {
        let dbase = &srv.dbs[d];
        effort += dbase
            .dict
            .iter()
            .map(|(_, o)| crate::lazyfree::free_effort(&o.value))
            .sum::<u64>();
        bytes += dbase.memory() as u64;
    }
    let keys = srv.flush(db);
    srv.free_flushed(db, keys, effort, bytes, lazy);
    keys
}

fn flushdb(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if !flush_args_ok(args) {
        return Frame::err(super::SYNTAX);
    }
    let db = ctx.db();
    let lazy = flush_lazy(ctx.srv, args);
    flush_freeing(ctx.srv, Some(db), lazy);
    Frame::ok()
}

fn flushall(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if !flush_args_ok(args) {
        return Frame::err(super::SYNTAX);
    }
    let lazy = flush_lazy(ctx.srv, args);
    flush_freeing(ctx.srv, None, lazy);
    Frame::ok()
}

/// TIME: virtual Unix seconds and the microseconds within the second.
fn time(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let us = ctx.srv.clock.unix_us();
    Frame::Array(vec![
        Frame::bulk((us / 1_000_000).to_string()),
        Frame::bulk((us % 1_000_000).to_string()),
    ])
}

// ---------------------------------------------------------------------------
// INFO.

/// The sections INFO without arguments (or `default`) shows, in Redis'
/// list; those we do not produce are simply absent from the output.
const DEFAULT_SECTIONS: &[&str] = &[
    "server",
    "clients",
    "memory",
    "persistence",
    "stats",
    "replication",
    "cpu",
    "module_list",
    "errorstats",
    "cluster",
    "keyspace",
];

fn info(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let text = info_string(ctx.srv, &args[1..]);
    Frame::Verbatim(*b"txt", text.into_bytes())
}

/// `genInfoSectionDict` + `genRedisInfoString`: the INFO text for the
/// requested section names (any case; `default`, `all`, `everything`).
pub fn info_string(srv: &mut Server, requested: &[Vec<u8>]) -> String {
    srv.lazyfree_drain();
    let mut all = false;
    let mut wanted: Vec<String> = Vec::new();
    if requested.is_empty() {
        wanted.extend(DEFAULT_SECTIONS.iter().map(|s| s.to_string()));
    }
    for r in requested {
        let name = String::from_utf8_lossy(r).to_ascii_lowercase();
        match name.as_str() {
            "default" => wanted.extend(DEFAULT_SECTIONS.iter().map(|s| s.to_string())),
            "all" | "everything" => all = true,
            _ => wanted.push(name),
        }
    }
    let want = |s: &str| all || wanted.iter().any(|w| w == s);
    let mut out = String::new();
    let section = |out: &mut String, title: &str, body: String| {
        if !out.is_empty() {
            out.push_str("\r\n");
        }
        let _ = write!(out, "# {title}\r\n{body}");
    };
    if want("server") {
        section(&mut out, "Server", info_server(srv));
    }
    if want("clients") {
        section(&mut out, "Clients", info_clients(srv));
    }
    if want("memory") {
        section(&mut out, "Memory", info_memory(srv));
    }
    if want("persistence") {
        section(&mut out, "Persistence", crate::persist::info(srv));
    }
    if want("stats") {
        section(&mut out, "Stats", info_stats(srv));
    }
    if want("replication") {
        section(&mut out, "Replication", crate::repl::info(srv));
    }
    if want("keyspace") {
        section(&mut out, "Keyspace", info_keyspace(srv));
    }
    out
}

/// Appends `name:value\r\n`.
fn field(out: &mut String, name: &str, value: impl std::fmt::Display) {
    let _ = write!(out, "{name}:{value}\r\n");
}

/// A 40-hex-digit run id derived from the seed, so runs replay identically.
fn run_id(seed: u64) -> String {
    (0u8..3)
        .map(|i| format!("{:016x}", crate::keyspace::dict::hash_bytes(seed, &[i])))
        .collect::<String>()[..40]
        .to_string()
}

fn info_server(srv: &Server) -> String {
    let mut o = String::new();
    let uptime = srv.clock.now_us() / 1_000_000;
    let hz = srv.config.hz.clamp(1, 500);
    field(&mut o, "redis_version", crate::REDIS_VERSION);
    field(&mut o, "redsim_version", env!("CARGO_PKG_VERSION"));
    field(&mut o, "redis_git_sha1", "00000000");
    field(&mut o, "redis_git_dirty", 0);
    field(&mut o, "redis_mode", "standalone");
    field(&mut o, "arch_bits", usize::BITS);
    field(&mut o, "process_supervised", "no");
    field(&mut o, "run_id", run_id(srv.seed));
    field(&mut o, "tcp_port", srv.config.port);
    field(&mut o, "server_time_usec", srv.clock.unix_us());
    field(&mut o, "uptime_in_seconds", uptime);
    field(&mut o, "uptime_in_days", uptime / (3600 * 24));
    // No dynamic-hz: the running frequency is the configured one.
    field(&mut o, "hz", hz);
    field(&mut o, "configured_hz", hz);
    field(&mut o, "lru_clock", srv.lruclock);
    field(&mut o, "config_file", "");
    field(&mut o, "io_threads_active", 0);
    let _ = write!(
        o,
        "listener0:name=tcp,bind={},port={}\r\n",
        srv.config.bind, srv.config.port
    );
    o
}

fn info_clients(srv: &Server) -> String {
    let mut o = String::new();
    field(&mut o, "connected_clients", srv.connected_clients);
    field(&mut o, "cluster_connections", 0);
    // No client tracking exists yet: that one is zero.
    let b = &srv.blocking;
    field(&mut o, "blocked_clients", b.blocked_clients());
    field(&mut o, "tracking_clients", 0);
    field(
        &mut o,
        "clients_in_timeout_table",
        b.clients_in_timeout_table(),
    );
    field(&mut o, "total_blocking_keys", b.blocking_keys());
    field(
        &mut o,
        "total_blocking_keys_on_nokey",
        b.blocking_keys_on_nokey(),
    );
    o
}

/// `bytesToHuman`: B under 1K, then two decimals with K, M, G, T, P.
pub fn bytes_to_human(n: u64) -> String {
    const UNITS: &[&str] = &["K", "M", "G", "T", "P"];
    if n < 1024 {
        return format!("{n}B");
    }
    let mut scale = 1024f64;
    for unit in UNITS {
        if (n as f64) < scale * 1024.0 {
            return format!("{:.2}{unit}", n as f64 / scale);
        }
        scale *= 1024.0;
    }
    format!("{n}B")
}

/// The parts of `used_memory` that are not data: the start-up baseline and
/// the hash tables' entries and buckets (`getMemoryOverheadData`).
fn memory_overhead(srv: &Server) -> u64 {
    const PTR: u64 = 8;
    let tables: u64 = srv
        .dbs
        .iter()
        .filter(|d| !d.is_empty())
        .map(|d| {
            let keys = d.dict.len() as u64;
            let main = keys * crate::keyspace::memory::DICT_ENTRY as u64
                + d.dict.buckets() as u64 * PTR
                + keys * crate::keyspace::memory::ROBJ as u64;
            let expires = d.expires.len() as u64 * crate::keyspace::memory::DICT_ENTRY as u64
                + d.expires.buckets() as u64 * PTR;
            main + expires
        })
        .sum();
    crate::keyspace::memory::BASELINE_USED_MEMORY + tables
}

/// `cronUpdateMemoryStats`' peak tracking, run by every cron tick.
pub fn cron_update_memory_stats(srv: &mut Server) {
    let used = srv.used_memory();
    if used > srv.stats.peak_memory {
        srv.stats.peak_memory = used;
    }
}

/// The cron's bookkeeping for views: retires finished lazy-free jobs and,
/// with the trace on, records a memory sample when anything in it changed
/// since the last one (a timeline draws memory from these).
pub fn cron_memory_sample(srv: &mut Server) {
    srv.lazyfree_drain();
    if srv.trace.enabled() {
        let used = srv.used_memory();
        let keys = srv.dbs.iter().map(|d| d.dict.len() as u64).sum();
        let expires = srv.dbs.iter().map(|d| d.expires.len() as u64).sum();
        let sample = [used, srv.config.maxmemory, keys, expires];
        if srv.memory_sample != Some(sample) {
            srv.memory_sample = Some(sample);
            srv.emit(Event::Memory {
                used,
                maxmemory: sample[1],
                keys,
                expires,
            });
        }
    }
}

fn info_memory(srv: &mut Server) -> String {
    // INFO refreshes the peak too, so it never shows below the current use.
    cron_update_memory_stats(srv);
    let used = srv.used_memory();
    let peak = srv.stats.peak_memory;
    let startup = crate::keyspace::memory::BASELINE_USED_MEMORY;
    let overhead = memory_overhead(srv).min(used);
    let dataset = used - overhead;
    let net = if used > startup { used - startup } else { 1 };
    let mut o = String::new();
    field(&mut o, "used_memory", used);
    field(&mut o, "used_memory_human", bytes_to_human(used));
    field(&mut o, "used_memory_peak", peak);
    field(&mut o, "used_memory_peak_human", bytes_to_human(peak));
    // Redis computes both percentages in single precision.
    let peak_perc = used as f32 * 100.0 / peak as f32;
    field(&mut o, "used_memory_peak_perc", format!("{peak_perc:.2}%"));
    field(&mut o, "used_memory_overhead", overhead);
    field(&mut o, "used_memory_startup", startup);
    field(&mut o, "used_memory_dataset", dataset);
    let dataset_perc = dataset as f32 * 100.0 / net as f32;
    field(
        &mut o,
        "used_memory_dataset_perc",
        format!("{dataset_perc:.2}%"),
    );
    field(&mut o, "maxmemory", srv.config.maxmemory);
    field(
        &mut o,
        "maxmemory_human",
        bytes_to_human(srv.config.maxmemory),
    );
    field(
        &mut o,
        "maxmemory_policy",
        srv.config.maxmemory_policy.name(),
    );
    field(
        &mut o,
        "lazyfree_pending_objects",
        srv.lazyfree_pending_objects(),
    );
    field(&mut o, "lazyfreed_objects", srv.lazyfreed_objects());
    o
}

fn info_stats(srv: &Server) -> String {
    let s = &srv.stats;
    let mut o = String::new();
    field(
        &mut o,
        "total_connections_received",
        s.total_connections_received,
    );
    field(
        &mut o,
        "total_commands_processed",
        s.total_commands_processed,
    );
    field(&mut o, "expired_keys", s.expired_keys);
    field(
        &mut o,
        "expired_stale_perc",
        format!("{:.2}", s.expired_stale_perc * 100.0),
    );
    field(
        &mut o,
        "expired_time_cap_reached_count",
        s.expired_time_cap_reached_count,
    );
    field(
        &mut o,
        "expire_cycle_cpu_milliseconds",
        s.expire_cycle_time_used_ns / 1_000_000,
    );
    field(&mut o, "evicted_keys", s.evicted_keys);
    field(&mut o, "keyspace_hits", s.keyspace_hits);
    field(&mut o, "keyspace_misses", s.keyspace_misses);
    // Redsim's own: commands refused before running (unknown, arity, OOM).
    // Redis reports these per command, in INFO commandstats.
    field(&mut o, "rejected_calls", s.rejected_calls);
    o
}

fn info_keyspace(srv: &Server) -> String {
    let mut o = String::new();
    for (i, d) in srv.dbs.iter().enumerate() {
        let (keys, expires) = (d.dict.len(), d.expires.len());
        if keys > 0 || expires > 0 {
            let _ = write!(
                o,
                "db{i}:keys={keys},expires={expires},avg_ttl={}\r\n",
                d.avg_ttl
            );
        }
    }
    o
}

// ---------------------------------------------------------------------------
// CONFIG.

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
        return Frame::err(super::SYNTAX);
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
        let typed = super::ttl::err_text(name);
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

/// `addReplyHelp`: a header naming the command as typed, the lines, and HELP.
fn help_reply(args: &[Vec<u8>], lines: &[&str]) -> Frame {
    let cmd = String::from_utf8_lossy(&args[0]).to_ascii_uppercase();
    let mut out = vec![Frame::simple(format!(
        "{cmd} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    ))];
    out.extend(lines.iter().map(|l| Frame::simple(l.to_string())));
    out.push(Frame::Simple("HELP".into()));
    out.push(Frame::Simple("    Print this help.".into()));
    Frame::Array(out)
}

fn config_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(
        args,
        &[
            "GET <pattern>",
            "    Return parameters matching the glob-like <pattern> and their values.",
            "SET <directive> <value>",
            "    Set the configuration <directive> to <value>.",
            "RESETSTAT",
            "    Reset statistics reported by the INFO command.",
        ],
    )
}

// ---------------------------------------------------------------------------
// COMMAND.

/// Flags COMMAND INFO shows, in Redis' order (`sentinel`, `may_replicate`,
/// `only_sentinel`, `protected` are hidden on purpose, as in Redis).
const SHOWN_FLAGS: &[&str] = &[
    "write",
    "readonly",
    "denyoom",
    "module",
    "admin",
    "pubsub",
    "noscript",
    "blocking",
    "loading",
    "stale",
    "skip_monitor",
    "skip_slowlog",
    "asking",
    "fast",
    "no_auth",
    "no_mandatory_keys",
    "no_async_loading",
    "no_multi",
    "movablekeys",
    "allow_busy",
];

/// ACL categories in Redis' table order, which is the order replies use.
const ACL_CATEGORIES: &[&str] = &[
    "keyspace",
    "read",
    "write",
    "set",
    "sortedset",
    "list",
    "hash",
    "string",
    "bitmap",
    "hyperloglog",
    "geo",
    "stream",
    "pubsub",
    "admin",
    "fast",
    "slow",
    "blocking",
    "dangerous",
    "connection",
    "transaction",
    "scripting",
];

/// A command's ACL categories with the ones Redis implies from its flags
/// (`setImplicitACLCategories`), in Redis' order.
pub fn acl_categories(cmd: &Command) -> Vec<&'static str> {
    let has = |c: &str| {
        cmd.acl.contains(&c)
            || match c {
                "write" => cmd.has_flag("write"),
                "read" => cmd.has_flag("readonly") && !cmd.acl.contains(&"scripting"),
                "admin" | "dangerous" => cmd.has_flag("admin"),
                "pubsub" => cmd.has_flag("pubsub"),
                "fast" => cmd.has_flag("fast"),
                "blocking" => cmd.has_flag("blocking"),
                _ => false,
            }
    };
    let mut cats: Vec<&'static str> = ACL_CATEGORIES.iter().copied().filter(|c| has(c)).collect();
    if !cats.contains(&"fast") && !cats.contains(&"slow") {
        let at = ACL_CATEGORIES
            .iter()
            .position(|c| *c == "slow")
            .unwrap_or(0);
        let pos = cats
            .iter()
            .position(|c| ACL_CATEGORIES.iter().position(|x| x == c).unwrap_or(0) > at)
            .unwrap_or(cats.len());
        cats.insert(pos, "slow");
    }
    cats
}

/// `cmd->fullname`: `name` or `parent|name`.
fn fullname(parent: Option<&Command>, cmd: &Command) -> String {
    match parent {
        Some(p) => format!("{}|{}", p.name, cmd.name),
        None => cmd.name.to_string(),
    }
}

/// `lookupCommandBySds`: `name` or `container|sub`, any case.
fn lookup_by_name(name: &[u8]) -> Option<(Option<&'static Command>, &'static Command)> {
    let mut parts = name.split(|&b| b == b'|');
    let first = parts.next()?;
    let base = super::lookup(first)?;
    match (parts.next(), parts.next()) {
        (None, _) => Some((None, base)),
        (Some(s), None) => base.subcommand(s).map(|c| (Some(base), c)),
        (Some(_), Some(_)) => None,
    }
}

/// `addReplyCommandInfo`: name, arity, flags, first key, last key, step,
/// ACL categories, tips, key specs, subcommands. Tips and key specs are
/// empty: the table does not carry them.
pub fn command_info_frame(parent: Option<&Command>, cmd: &Command) -> Frame {
    let flags = SHOWN_FLAGS
        .iter()
        .filter(|f| cmd.has_flag(f))
        .map(|f| Frame::simple(f.to_string()))
        .collect();
    let cats = acl_categories(cmd)
        .into_iter()
        .map(|c| Frame::simple(format!("@{c}")))
        .collect();
    let subs = if cmd.subcommands.is_empty() {
        Frame::Set(vec![])
    } else {
        Frame::Array(
            cmd.subcommands
                .iter()
                .map(|s| command_info_frame(Some(cmd), s))
                .collect(),
        )
    };
    Frame::Array(vec![
        Frame::bulk(fullname(parent, cmd)),
        Frame::Integer(cmd.arity as i64),
        Frame::Set(flags),
        Frame::Integer(cmd.keys.0 as i64),
        Frame::Integer(cmd.keys.1 as i64),
        Frame::Integer(cmd.keys.2 as i64),
        Frame::Set(cats),
        Frame::Set(vec![]),
        Frame::Set(vec![]),
        subs,
    ])
}

/// COMMAND without arguments: every command's info.
fn command_all(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Array(super::all().map(|c| command_info_frame(None, c)).collect())
}

/// COMMAND COUNT: the size of our table (not of Redis').
fn command_count(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Integer(super::all().count() as i64)
}

fn command_info(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() == 2 {
        return command_all(ctx, args);
    }
    Frame::Array(
        args[2..]
            .iter()
            .map(|n| match lookup_by_name(n) {
                Some((parent, cmd)) => command_info_frame(parent, cmd),
                None => Frame::Null,
            })
            .collect(),
    )
}

/// Every command and subcommand with its parent, in table order.
fn every_command() -> impl Iterator<Item = (Option<&'static Command>, &'static Command)> {
    super::all().flat_map(|c| {
        std::iter::once((None, c)).chain(c.subcommands.iter().map(move |s| (Some(c), s)))
    })
}

/// COMMAND LIST [FILTERBY MODULE m | ACLCAT c | PATTERN p].
fn command_list(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    enum Filter<'a> {
        All,
        Module,
        AclCat(Option<&'static str>),
        Pattern(&'a [u8]),
    }
    let mut filter = Filter::All;
    let mut i = 2;
    while i < args.len() {
        let more = args.len() - 1 - i;
        if !(is(&args[i], "filterby") && more == 2) {
            return Frame::err(super::SYNTAX);
        }
        let (kind, arg) = (&args[i + 1], &args[i + 2]);
        filter = if is(kind, "module") {
            Filter::Module
        } else if is(kind, "aclcat") {
            Filter::AclCat(ACL_CATEGORIES.iter().copied().find(|c| is(arg, c)))
        } else if is(kind, "pattern") {
            Filter::Pattern(arg)
        } else {
            return Frame::err(super::SYNTAX);
        };
        i += 3;
    }
    let names = every_command()
        .filter(|(parent, cmd)| match &filter {
            Filter::All => true,
            // No modules can be loaded, so no command belongs to one.
            Filter::Module => false,
            Filter::AclCat(cat) => cat.is_some_and(|c| acl_categories(cmd).contains(&c)),
            Filter::Pattern(p) => crate::glob::matches(p, fullname(*parent, cmd).as_bytes(), true),
        })
        .map(|(parent, cmd)| Frame::bulk(fullname(parent, cmd)))
        .collect();
    Frame::Array(names)
}

/// COMMAND DOCS: summary, since, group, arguments (derived from the syntax
/// line) and subcommands, shaped as Redis replies them so that redis-cli
/// can build its hints.
fn command_docs(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let pick: Vec<(Option<&Command>, &Command)> = if args.len() == 2 {
        super::all().map(|c| (None, c)).collect()
    } else {
        args[2..].iter().filter_map(|n| lookup_by_name(n)).collect()
    };
    Frame::Map(
        pick.into_iter()
            .map(|(parent, cmd)| (Frame::bulk(fullname(parent, cmd)), docs_frame(parent, cmd)))
            .collect(),
    )
}

fn docs_frame(parent: Option<&Command>, cmd: &Command) -> Frame {
    let mut m = vec![
        (Frame::bulk("summary"), Frame::bulk(cmd.summary)),
        (Frame::bulk("since"), Frame::bulk(cmd.since)),
        (Frame::bulk("group"), Frame::bulk(cmd.group)),
    ];
    let skip = if parent.is_some() { 2 } else { 1 };
    let arguments = syntax_args(cmd.syntax, skip);
    if !arguments.is_empty() && cmd.subcommands.is_empty() {
        m.push((
            Frame::bulk("arguments"),
            Frame::Array(arguments.iter().map(DocArg::frame).collect()),
        ));
    }
    if !cmd.subcommands.is_empty() {
        m.push((
            Frame::bulk("subcommands"),
            Frame::Map(
                cmd.subcommands
                    .iter()
                    .map(|s| {
                        (
                            Frame::bulk(fullname(Some(cmd), s)),
                            docs_frame(Some(cmd), s),
                        )
                    })
                    .collect(),
            ),
        ));
    }
    Frame::Map(m)
}

/// One argument of COMMAND DOCS, parsed back out of a syntax line.
#[derive(Clone, Debug, PartialEq)]
pub struct DocArg {
    pub name: String,
    /// `key`, `string`, `integer`, `unix-time`, `pattern`, `pure-token`, `oneof` or `block`.
    pub kind: &'static str,
    pub token: Option<String>,
    pub optional: bool,
    pub multiple: bool,
    pub args: Vec<DocArg>,
}

impl DocArg {
    fn leaf(word: &str, token: Option<&str>) -> DocArg {
        let kind = if token.is_some() && word == token.unwrap_or("").to_ascii_lowercase() {
            "pure-token"
        } else if word.contains("key") || word == "destination" || word == "source" {
            "key"
        } else if word.starts_with("unix-time") {
            "unix-time"
        } else if word == "pattern" {
            "pattern"
        } else if matches!(
            word,
            "seconds"
                | "milliseconds"
                | "count"
                | "index"
                | "increment"
                | "decrement"
                | "offset"
                | "start"
                | "end"
                | "cursor"
                | "protover"
                | "client-id"
        ) {
            "integer"
        } else {
            "string"
        };
        DocArg {
            name: word.to_string(),
            kind,
            token: token.map(str::to_string),
            optional: false,
            multiple: false,
            args: Vec::new(),
        }
    }

    /// `addReplyCommandArgList`'s map for one argument.
    fn frame(&self) -> Frame {
        let mut m = vec![
            (Frame::bulk("name"), Frame::bulk(&self.name)),
            (Frame::bulk("type"), Frame::bulk(self.kind)),
        ];
        let nested = matches!(self.kind, "oneof" | "block");
        if !nested {
            m.push((Frame::bulk("display_text"), Frame::bulk(&self.name)));
        }
        if let Some(t) = &self.token {
            m.push((Frame::bulk("token"), Frame::bulk(t)));
        }
        let mut flags = Vec::new();
        if self.optional {
            flags.push(Frame::Simple("optional".into()));
        }
        if self.multiple {
            flags.push(Frame::Simple("multiple".into()));
        }
        if !flags.is_empty() {
            m.push((Frame::bulk("flags"), Frame::Set(flags)));
        }
        if nested {
            m.push((
                Frame::bulk("arguments"),
                Frame::Array(self.args.iter().map(DocArg::frame).collect()),
            ));
        }
        Frame::Map(m)
    }
}

/// Splits a syntax line into words and the marks `[ ] ( ) | ...`.
fn syntax_tokens(syntax: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            out.push(std::mem::take(word));
        }
    };
    for ch in syntax.chars() {
        match ch {
            '[' | ']' | '(' | ')' | '|' => {
                flush(&mut word, &mut out);
                out.push(ch.to_string());
            }
            c if c.is_whitespace() => flush(&mut word, &mut out),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The arguments a syntax line such as `EXPIRE key seconds [NX | XX | GT | LT]`
/// describes, after its first `skip` words (the command's name). Upper-case
/// words are tokens (with the next lower-case word as their value), `[...]`
/// is optional, `a | b` one of, `x [x ...]` and `x ...` repeat.
pub fn syntax_args(syntax: &str, skip: usize) -> Vec<DocArg> {
    let toks = syntax_tokens(syntax);
    let mut i = skip.min(toks.len());
    let alts = parse_alts(&toks, &mut i, 0);
    group(alts)
        .map(|g| {
            if g.kind == "block" && !g.optional {
                g.args
            } else {
                vec![g]
            }
        })
        .unwrap_or_default()
}

/// Alternatives separated by `|`, up to a closing mark or the end.
fn parse_alts(toks: &[String], i: &mut usize, depth: u32) -> Vec<Vec<DocArg>> {
    let mut alts = vec![parse_seq(toks, i, depth)];
    while toks.get(*i).is_some_and(|t| t == "|") {
        *i += 1;
        alts.push(parse_seq(toks, i, depth));
    }
    alts
}

/// A run of arguments until `|`, `]`, `)` or the end.
fn parse_seq(toks: &[String], i: &mut usize, depth: u32) -> Vec<DocArg> {
    let mut seq: Vec<DocArg> = Vec::new();
    while let Some(t) = toks.get(*i) {
        match t.as_str() {
            "|" | "]" | ")" => break,
            "[" | "(" if depth < 8 => {
                let close = if t == "[" { "]" } else { ")" };
                let optional = t == "[";
                *i += 1;
                let alts = parse_alts(toks, i, depth + 1);
                if toks.get(*i).is_some_and(|t| t == close) {
                    *i += 1;
                }
                // `x [x ...]`: the previous argument repeats.
                let repeats_prev = optional
                    && alts.len() == 1
                    && alts[0].len() == 1
                    && alts[0][0].multiple
                    && seq.last().is_some_and(|p| p.name == alts[0][0].name);
                if repeats_prev {
                    if let Some(p) = seq.last_mut() {
                        p.multiple = true;
                    }
                    continue;
                }
                if let Some(mut g) = group(alts) {
                    g.optional |= optional;
                    seq.push(g);
                }
            }
            "..." => {
                if let Some(p) = seq.last_mut() {
                    p.multiple = true;
                }
                *i += 1;
            }
            w => {
                *i += 1;
                let is_token = w.chars().any(|c| c.is_ascii_uppercase())
                    && !w.chars().any(|c| c.is_ascii_lowercase());
                if is_token {
                    let value = toks
                        .get(*i)
                        .filter(|n| n.chars().next().is_some_and(|c| c.is_ascii_lowercase()));
                    match value {
                        Some(v) => {
                            *i += 1;
                            seq.push(DocArg::leaf(v, Some(w)));
                        }
                        None => seq.push(DocArg::leaf(&w.to_ascii_lowercase(), Some(w))),
                    }
                } else if !w.starts_with('<') {
                    seq.push(DocArg::leaf(w, None));
                }
            }
        }
    }
    seq
}

/// One argument for a group: itself if alone, a block for a run, a oneof for alternatives.
fn group(mut alts: Vec<Vec<DocArg>>) -> Option<DocArg> {
    alts.retain(|a| !a.is_empty());
    let mut members: Vec<DocArg> = alts
        .into_iter()
        .map(|mut seq| {
            if seq.len() == 1 {
                seq.remove(0)
            } else {
                DocArg {
                    name: seq
                        .iter()
                        .map(|a| a.name.as_str())
                        .collect::<Vec<_>>()
                        .join("-"),
                    kind: "block",
                    token: None,
                    optional: false,
                    multiple: false,
                    args: seq,
                }
            }
        })
        .collect();
    match members.len() {
        0 => None,
        1 => members.pop(),
        _ => Some(DocArg {
            name: members
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join("-"),
            kind: "oneof",
            token: None,
            optional: false,
            multiple: false,
            args: members,
        }),
    }
}

/// COMMAND GETKEYS: the keys of a full command line, from the table's
/// (first, last, step) range, which is the key spec of every command with
/// fixed key positions. Commands whose keys move (`movablekeys`) are
/// refused rather than answered wrongly.
fn command_getkeys(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let target = &args[2..];
    let invalid = || Frame::err("ERR Invalid command specified");
    let Some(base) = super::lookup(&target[0]) else {
        return invalid();
    };
    let cmd = match target.get(1) {
        Some(word) if !base.subcommands.is_empty() => match base.subcommand(word) {
            Some(sub) => sub,
            None => return invalid(),
        },
        _ => base,
    };
    if cmd.keys.0 <= 0 {
        return Frame::err("ERR The command has no key arguments");
    }
    let argc = target.len() as i64;
    let arity = cmd.arity as i64;
    if (arity > 0 && arity != argc) || argc < -arity {
        return Frame::err("ERR Invalid number of arguments specified for command");
    }
    let (first, last, step) = (cmd.keys.0 as i64, cmd.keys.1 as i64, cmd.keys.2 as i64);
    let last = if last >= 0 { last } else { argc + last };
    if cmd.has_flag("movablekeys") || last >= argc || last < first || step < 1 {
        return Frame::err("ERR Invalid arguments specified for command");
    }
    Frame::Array(
        (first..=last)
            .step_by(step as usize)
            .filter_map(|i| target.get(i as usize))
            .map(Frame::bulk)
            .collect(),
    )
}

fn command_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(
        args,
        &[
            "(no subcommand)",
            "    Return details about all Redis commands.",
            "COUNT",
            "    Return the total number of commands in this Redis server.",
            "LIST",
            "    Return a list of all commands in this Redis server.",
            "INFO [<command-name> ...]",
            "    Return details about multiple Redis commands.",
            "    If no command names are given, documentation details for all",
            "    commands are returned.",
            "DOCS [<command-name> ...]",
            "    Return documentation details about multiple Redis commands.",
            "    If no command names are given, documentation details for all",
            "    commands are returned.",
            "GETKEYS <full-command>",
            "    Return the keys from a full Redis command.",
        ],
    )
}

// ---------------------------------------------------------------------------
// CLIENT.

/// `catClientInfoString` for one connection (without the newline).
fn client_line(srv: &Server, id: u64, e: &ClientEntry) -> String {
    let base_us = srv.clock.unix_us() - srv.clock.now_us();
    let secs = |us: u64| (base_us + us) / 1_000_000;
    let now_s = secs(srv.clock.now_us());
    let cmd = match e.last_cmd {
        (n, "") => n.to_string(),
        (n, s) => format!("{n}|{s}"),
    };
    format!(
        "id={id} addr={} laddr={} fd={} name={} age={} idle={} flags={} db={} sub=0 psub=0 ssub=0 \
         multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 \
         tot-mem=0 events=r cmd={cmd} user=default redir=-1 resp={} lib-name={} lib-ver={}",
        e.addr,
        e.laddr,
        e.fd,
        e.name.as_deref().unwrap_or(""),
        now_s.saturating_sub(secs(e.created_us)),
        now_s.saturating_sub(secs(e.last_interaction_us)),
        if e.closing { "c" } else { "N" },
        e.db,
        e.resp,
        e.lib_name.as_deref().unwrap_or(""),
        e.lib_ver.as_deref().unwrap_or(""),
    )
}

/// The calling client's entry with its live state (it is only synced after the command).
fn own_entry(ctx: &Ctx) -> ClientEntry {
    let c = &*ctx.client;
    let mut e = ctx
        .srv
        .client_list
        .get(&c.id)
        .cloned()
        .unwrap_or_else(|| ClientEntry::of(c));
    e.sync(c, ctx.srv.last_cmd);
    e
}

fn client_id(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Integer(ctx.client.id as i64)
}

/// `validateClientAttr`: printable ASCII without spaces.
fn valid_attr(v: &[u8]) -> bool {
    v.iter().all(|&b| (b'!'..=b'~').contains(&b))
}

fn client_setname(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let name = &args[2];
    if !valid_attr(name) {
        return Frame::err(
            "ERR Client names cannot contain spaces, newlines or special characters.",
        );
    }
    ctx.client.name = if name.is_empty() {
        None
    } else {
        Some(String::from_utf8_lossy(name).into_owned())
    };
    Frame::ok()
}

fn client_getname(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match &ctx.client.name {
        Some(n) => Frame::bulk(n),
        None => Frame::Null,
    }
}

/// CLIENT SETINFO LIB-NAME|LIB-VER value (redis-py sends both on connect).
fn client_setinfo(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (attr, val) = (&args[2], &args[3]);
    let lib_name = is(attr, "lib-name");
    if !lib_name && !is(attr, "lib-ver") {
        return Frame::err(format!(
            "ERR Unrecognized option '{}'",
            super::ttl::err_text(attr)
        ));
    }
    if !valid_attr(val) {
        return Frame::err(format!(
            "ERR {} cannot contain spaces, newlines or special characters.",
            super::ttl::err_text(attr)
        ));
    }
    let value = (!val.is_empty()).then(|| String::from_utf8_lossy(val).into_owned());
    let id = ctx.client.id;
    if let Some(e) = ctx.srv.client_list.get_mut(&id) {
        if lib_name {
            e.lib_name = value;
        } else {
            e.lib_ver = value;
        }
    }
    Frame::ok()
}

fn client_info(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let e = own_entry(ctx);
    let mut line = client_line(ctx.srv, ctx.client.id, &e);
    line.push('\n');
    Frame::Verbatim(*b"txt", line.into_bytes())
}

/// CLIENT LIST [TYPE t] | [ID id ...], one line per connection, oldest first.
fn client_list(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let me = ctx.client.id;
    let own = own_entry(ctx);
    let line_for = |id: u64| -> Option<String> {
        if id == me {
            Some(client_line(ctx.srv, id, &own))
        } else {
            ctx.srv
                .client_list
                .get(&id)
                .map(|e| client_line(ctx.srv, id, e))
        }
    };
    let mut ids: Vec<u64> = Vec::new();
    if args.len() == 4 && is(&args[2], "type") {
        let t = &args[3];
        if is(t, "normal") {
            ids.extend(ctx.srv.client_list.keys());
        } else if !["master", "replica", "slave", "pubsub"]
            .iter()
            .any(|n| is(t, n))
        {
            return Frame::err(format!(
                "ERR Unknown client type '{}'",
                super::ttl::err_text(t)
            ));
        }
    } else if args.len() > 3 && is(&args[2], "id") {
        for a in &args[3..] {
            match arg_i64(a) {
                Ok(n) => ids.push(n as u64),
                Err(_) => return Frame::err("ERR Invalid client ID"),
            }
        }
    } else if args.len() != 2 {
        return Frame::err(super::SYNTAX);
    } else {
        ids.extend(ctx.srv.client_list.keys());
    }
    let mut out = String::new();
    for id in ids {
        if let Some(line) = line_for(id) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    Frame::Verbatim(*b"txt", out.into_bytes())
}

fn client_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(
        args,
        &[
            "GETNAME",
            "    Return the name of the current connection.",
            "ID",
            "    Return the ID of the current connection.",
            "INFO",
            "    Return information about the current client connection.",
            "LIST [options ...]",
            "    Return information about client connections. Options:",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Return clients of specified type.",
            "SETNAME <name>",
            "    Assign the name <name> to the current connection.",
            "SETINFO <option> <value>",
            "    Set client meta attr. Options are:",
            "    * LIB-NAME: the client lib name.",
            "    * LIB-VER: the client lib version.",
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_as_redis() {
        assert_eq!(bytes_to_human(1023), "1023B");
        assert_eq!(bytes_to_human(1024), "1.00K");
        assert_eq!(bytes_to_human(865_000), "844.73K");
        assert_eq!(bytes_to_human(3 << 20), "3.00M");
        assert_eq!(bytes_to_human(5 << 30), "5.00G");
    }

    #[test]
    fn syntax_lines_become_doc_arguments() {
        let args = syntax_args("EXPIRE key seconds [NX | XX | GT | LT]", 1);
        assert_eq!(args.len(), 3);
        assert_eq!((args[0].name.as_str(), args[0].kind), ("key", "key"));
        assert_eq!(
            (args[1].name.as_str(), args[1].kind),
            ("seconds", "integer")
        );
        assert_eq!(args[2].kind, "oneof");
        assert!(args[2].optional);
        let tokens: Vec<_> = args[2].args.iter().map(|a| a.token.clone()).collect();
        assert_eq!(
            tokens,
            ["NX", "XX", "GT", "LT"].map(|t| Some(t.to_string()))
        );

        let del = syntax_args("DEL key [key ...]", 1);
        assert_eq!(del.len(), 1);
        assert!(del[0].multiple && !del[0].optional);

        let info = syntax_args("INFO [section [section ...]]", 1);
        assert_eq!(info.len(), 1);
        assert!(info[0].multiple && info[0].optional);

        let get = syntax_args("CONFIG GET parameter [parameter ...]", 2);
        assert_eq!(get.len(), 1);
        assert_eq!(get[0].name, "parameter");

        let hello = syntax_args(
            "HELLO [protover [AUTH username password] [SETNAME clientname]]",
            1,
        );
        assert_eq!(hello.len(), 1);
        assert_eq!(hello[0].kind, "block");
        assert!(hello[0].optional);
        assert_eq!(hello[0].args[1].kind, "block");
        assert_eq!(hello[0].args[2].token.as_deref(), Some("SETNAME"));

        assert!(syntax_args("DBSIZE", 1).is_empty());
        // Never panics, whatever the line.
        for s in ["[", "]", "X [a | ] ...", "A (B | [C", "| | ...", ""] {
            let _ = syntax_args(s, 1);
        }
    }

    #[test]
    fn every_table_syntax_line_gives_well_formed_docs() {
        for (parent, cmd) in every_command() {
            let f = docs_frame(parent, cmd);
            assert!(matches!(f, Frame::Map(_)), "{}", cmd.name);
        }
    }

    #[test]
    fn implicit_acl_categories() {
        let get = super::super::lookup(b"config")
            .and_then(|c| c.subcommand(b"get"))
            .expect("config get");
        assert_eq!(acl_categories(get), ["admin", "slow", "dangerous"]);
        let time = super::super::lookup(b"time").expect("time");
        assert_eq!(acl_categories(time), ["fast"]);
        let config = super::super::lookup(b"config").expect("config");
        assert_eq!(acl_categories(config), ["slow"]);
    }
}
