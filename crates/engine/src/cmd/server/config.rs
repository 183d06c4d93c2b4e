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
/// typed) or, if it contains `*`, `?` or `[`, a glob over all names but the
/// hidden ones. A name matched twice is reported once; an alias is a name
/// of its own (`*of` gives `replicaof` and `slaveof`).
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
        for p in PARAMS.iter().filter(|p| !p.hidden) {
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

/// CONFIG SET with `configSetCommand`'s rules (see [`set_params`]), for a
/// client that may be on loopback.
fn config_set(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() % 2 == 1 {
        return Frame::err(SYNTAX);
    }
    let pairs: Vec<(&[u8], &[u8])> = args[2..]
        .chunks_exact(2)
        .map(|p| (p[0].as_slice(), p[1].as_slice()))
        .collect();
    // Secrets are not shown, whatever else the command gets wrong.
    for (i, (name, _)) in pairs.iter().enumerate() {
        let name = String::from_utf8_lossy(name).to_ascii_lowercase();
        if matches!(name.as_str(), "masterauth" | "masteruser" | "requirepass") {
            ctx.redact(3 + 2 * i);
        }
    }
    let local = crate::server::client::is_local(&ctx.srv.client_list, ctx.client.id);
    match set_params(ctx.srv, &pairs, local) {
        Ok(()) => Frame::ok(),
        Err(e) => e,
    }
}

/// CONFIG SET's work on (name, value) pairs, in `configSetCommand`'s order:
/// every name checked first (unknown, immutable, protected where
/// `enable-protected-configs` does not allow it for a client `local` or
/// not, given twice), then every value set, all restored at the first that
/// does not parse, then the changes applied (`apply`), all restored if
/// one cannot be. A caller without a client passes `local` true. The error
/// is the reply.
pub fn set_params(srv: &mut Server, pairs: &[(&[u8], &[u8])], local: bool) -> Result<(), Frame> {
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
        if p.protected
            && !crate::server::client::protected_allowed(
                &srv.config.enable_protected_configs,
                local,
            )
        {
            return Err(set_failed(&typed, "can't set protected config"));
        }
        if chosen.iter().any(|(q, _)| std::ptr::eq(*q, p)) {
            return Err(set_failed(&typed, "duplicate parameter"));
        }
        chosen.push((p, String::from_utf8_lossy(value).into_owned()));
    }
    let backup = srv.config.clone();
    // Redis applies a value only if it changed (a setter returning 1).
    let mut changed: Vec<&'static config::Param> = Vec::new();
    for (p, value) in &chosen {
        let old = (p.get)(&srv.config);
        // `setConfigDirOption` changes into the directory as it sets it.
        let set = (p.set)(&mut srv.config, value).and_then(|()| match p.name {
            "dir" => srv.files.check_dir(value),
            _ => Ok(()),
        });
        if let Err(e) = set {
            srv.config = backup;
            return Err(set_failed(p.name, &e));
        }
        if (p.get)(&srv.config) != old {
            changed.push(p);
        }
    }
    if let Err((name, why)) = apply(srv, &changed, &backup) {
        srv.config = backup;
        return Err(set_failed(name, why));
    }
    if srv.config.maxmemory > 0 && changed.iter().any(|p| p.name == "maxmemory") {
        // `updateMaxmemory` starts the eviction timer: a lowered limit is
        // enforced before the next sleep, not only at the next command.
        srv.evict.proc_running = true;
    }
    if changed.iter().any(|p| p.name == "requirepass") {
        let pass = srv.config.requirepass.clone();
        srv.acl.set_requirepass(&pass);
    }
    if changed.iter().any(|p| p.name == "repl-backlog-size") {
        // `resizeReplicationBacklog` raises it to `CONFIG_REPL_BACKLOG_MIN_SIZE`
        // (only here: a smaller start-up value stays).
        srv.config.repl_backlog_size = srv.config.repl_backlog_size.max(16 * 1024);
    }
    Ok(())
}

/// The apply functions of Redis' table that can fail here: `updatePort`,
/// `applyBind`, `applyTLSPort` and `applyTlsCfg`.
#[derive(Clone, Copy, PartialEq)]
enum Apply {
    Port,
    Bind,
    TlsPort,
    Tls,
}

/// Which apply function a parameter has, if one of those.
fn apply_of(name: &str) -> Option<Apply> {
    match name {
        "port" => Some(Apply::Port),
        "bind" => Some(Apply::Bind),
        "tls-port" => Some(Apply::TlsPort),
        "tls-auth-clients" => None,
        n if n.starts_with("tls-") => Some(Apply::Tls),
        _ => None,
    }
}

/// Runs each apply function of the `changed` parameters once, in the order
/// of the first parameter needing it, as Redis does; the error names that
/// parameter. `port` and `bind` move the driver's listener. There is no
/// TLS: a new `tls-port` cannot be applied, nor a TLS setting while TLS is
/// on, as in a Redis that cannot load a certificate. When a later one
/// fails, a listener already moved goes back to `old`'s address and port
/// (Redis' restore applies the old values again); a listener that failed
/// still listens where it did.
fn apply(
    srv: &mut Server,
    changed: &[&'static config::Param],
    old: &config::Config,
) -> Result<(), (&'static str, &'static str)> {
    let mut done: Vec<Apply> = Vec::new();
    for p in changed {
        let Some(f) = apply_of(p.name).filter(|f| !done.contains(f)) else {
            continue;
        };
        let c = &srv.config;
        let failure = match f {
            Apply::Port | Apply::Bind => srv.listener.listen(&c.bind, c.port).err().map(|_| {
                if f == Apply::Port {
                    "Unable to listen on this port. Check server logs."
                } else {
                    "Failed to bind to specified addresses."
                }
            }),
            Apply::TlsPort => Some("Unable to update TLS configuration. Check server logs."),
            Apply::Tls => (c.tls_port != 0 || c.tls_replication || c.tls_cluster)
                .then_some("Unable to update TLS configuration. Check server logs."),
        };
        if let Some(why) = failure {
            if done.contains(&Apply::Port) || done.contains(&Apply::Bind) {
                // Redis logs a failed restore and goes on.
                let _ = srv.listener.listen(&old.bind, old.port);
            }
            return Err((p.name, why));
        }
        done.push(f);
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

/// CONFIG REWRITE: the configuration file brought up to the running
/// values (`crate::server::config_file`), read and written through the
/// driver's files; a server started without one refuses, as Redis does. A
/// file that is not there yet is written anew, as Redis' `fopen` failing
/// with ENOENT reads as an empty file.
fn config_rewrite(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let path = &ctx.srv.config_file;
    if path.is_empty() {
        return Frame::err("ERR The server is running without a config file");
    }
    let old = match ctx.srv.files.read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e == "No such file or directory" => String::new(),
        Err(e) => return Frame::err(format!("ERR Rewriting config file: {e}")),
    };
    let users = crate::acl::user_lines(&ctx.srv.acl);
    let new = crate::server::config_file::rewrite(&old, &ctx.srv.config, &users);
    match ctx.srv.files.write(path, new.as_bytes()) {
        Ok(()) => Frame::ok(),
        Err(e) => Frame::err(format!("ERR Rewriting config file: {e}")),
    }
}

fn config_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(args, &crate::cmd::doctext::help("config"))
}

#[cfg(test)]
mod tests {
    use crate::proto::resp::Frame;
    use crate::server::config::{self, PARAMS};
    use crate::server::listener::Listener;
    use crate::{ClientOrigin, Engine, Options};
    use std::sync::{Arc, Mutex};

    /// An engine whose `enable-protected-configs` is `setting`.
    fn engine(setting: &str) -> Engine {
        let mut o = Options::new(1);
        o.config.enable_protected_configs = setting.into();
        Engine::with_options(o)
    }

    /// CONFIG GET's names, sorted.
    fn names(reply: &Frame) -> Vec<String> {
        let Frame::Map(pairs) = reply else {
            panic!("CONFIG GET is a map: {reply:?}")
        };
        let mut names: Vec<String> = pairs
            .iter()
            .map(|(k, _)| match k {
                Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
                other => panic!("{other:?}"),
            })
            .collect();
        crate::sort::sort(&mut names);
        names
    }

    fn get(e: &mut Engine, c: u64, name: &str) -> String {
        match e.execute_line(c, &format!("CONFIG GET {name}")) {
            Frame::Map(pairs) if pairs.len() == 1 => match &pairs[0].1 {
                Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
                other => panic!("{other:?}"),
            },
            other => panic!("CONFIG GET {name}: {other:?}"),
        }
    }

    fn failed(name: &str, why: &str) -> Frame {
        Frame::err(format!(
            "ERR CONFIG SET failed (possibly related to argument '{name}') - {why}"
        ))
    }

    /// CONFIG GET * lists every declared name once but the hidden ones,
    /// which answer by exact name, and each value read back through CONFIG
    /// SET is accepted and unchanged (the declaration's parse and show agree).
    #[test]
    fn config_get_lists_every_parameter_and_values_round_trip() {
        let mut e = engine("yes");
        let c = e.connect("c");
        let listed = names(&e.execute_line(c, "CONFIG GET *"));
        let mut declared: Vec<String> = PARAMS
            .iter()
            .filter(|p| !p.hidden)
            .map(|p| p.name.to_string())
            .collect();
        crate::sort::sort(&mut declared);
        let before = declared.len();
        declared.dedup();
        assert_eq!(declared.len(), before, "a name is declared twice");
        assert_eq!(listed, declared);
        for p in PARAMS.iter().filter(|p| p.hidden) {
            let reply = e.execute_line(c, &format!("CONFIG GET {}", p.name));
            assert_eq!(names(&reply), vec![p.name.to_string()]);
        }
        for p in PARAMS.iter().filter(|p| p.mutable) {
            let value = (p.get)(e.config());
            let reply = e.execute(
                c,
                &[
                    b"CONFIG".to_vec(),
                    b"SET".to_vec(),
                    p.name.as_bytes().to_vec(),
                    value.clone().into_bytes(),
                ],
            );
            assert_eq!(reply, Frame::ok(), "{} {value:?}", p.name);
            assert_eq!((p.get)(e.config()), value, "{}", p.name);
        }
    }

    /// CONFIG GET * names exactly Redis 7.2.6's parameters but its hidden
    /// ones (`static_configs[]`, aliases included), plus redsim's own.
    #[test]
    fn config_get_star_lists_redis_7_2_6_names() {
        let mut expected: Vec<String> = [
            "acl-pubsub-default",
            "aclfile",
            "acllog-max-len",
            "active-defrag-cycle-max",
            "active-defrag-cycle-min",
            "active-defrag-ignore-bytes",
            "active-defrag-max-scan-fields",
            "active-defrag-threshold-lower",
            "active-defrag-threshold-upper",
            "active-expire-effort",
            "activedefrag",
            "activerehashing",
            "always-show-logo",
            "aof-load-truncated",
            "aof-rewrite-incremental-fsync",
            "aof-timestamp-enabled",
            "aof-use-rdb-preamble",
            "aof_rewrite_cpulist",
            "appenddirname",
            "appendfilename",
            "appendfsync",
            "appendonly",
            "auto-aof-rewrite-min-size",
            "auto-aof-rewrite-percentage",
            "bgsave_cpulist",
            "bind",
            "bind-source-addr",
            "bio_cpulist",
            "busy-reply-threshold",
            "client-output-buffer-limit",
            "client-query-buffer-limit",
            "cluster-allow-pubsubshard-when-down",
            "cluster-allow-reads-when-down",
            "cluster-allow-replica-migration",
            "cluster-announce-bus-port",
            "cluster-announce-hostname",
            "cluster-announce-human-nodename",
            "cluster-announce-ip",
            "cluster-announce-port",
            "cluster-announce-tls-port",
            "cluster-config-file",
            "cluster-enabled",
            "cluster-link-sendbuf-limit",
            "cluster-migration-barrier",
            "cluster-node-timeout",
            "cluster-port",
            "cluster-preferred-endpoint-type",
            "cluster-replica-no-failover",
            "cluster-replica-validity-factor",
            "cluster-require-full-coverage",
            "cluster-slave-no-failover",
            "cluster-slave-validity-factor",
            "crash-log-enabled",
            "crash-memcheck-enabled",
            "daemonize",
            "databases",
            "dbfilename",
            "dir",
            "disable-thp",
            "dynamic-hz",
            "enable-debug-command",
            "enable-module-command",
            "enable-protected-configs",
            "hash-max-listpack-entries",
            "hash-max-listpack-value",
            "hash-max-ziplist-entries",
            "hash-max-ziplist-value",
            "hll-sparse-max-bytes",
            "hz",
            "ignore-warnings",
            "io-threads",
            "io-threads-do-reads",
            "jemalloc-bg-thread",
            "latency-monitor-threshold",
            "latency-tracking",
            "latency-tracking-info-percentiles",
            "lazyfree-lazy-eviction",
            "lazyfree-lazy-expire",
            "lazyfree-lazy-server-del",
            "lazyfree-lazy-user-del",
            "lazyfree-lazy-user-flush",
            "lfu-decay-time",
            "lfu-log-factor",
            "list-compress-depth",
            "list-max-listpack-size",
            "list-max-ziplist-size",
            "locale-collate",
            "logfile",
            "loglevel",
            "lua-time-limit",
            "masterauth",
            "masteruser",
            "maxclients",
            "maxmemory",
            "maxmemory-clients",
            "maxmemory-eviction-tenacity",
            "maxmemory-policy",
            "maxmemory-samples",
            "min-replicas-max-lag",
            "min-replicas-to-write",
            "min-slaves-max-lag",
            "min-slaves-to-write",
            "no-appendfsync-on-rewrite",
            "notify-keyspace-events",
            "oom-score-adj",
            "oom-score-adj-values",
            "pidfile",
            "port",
            "proc-title-template",
            "propagation-error-behavior",
            "protected-mode",
            "proto-max-bulk-len",
            "rdb-del-sync-files",
            "rdb-save-incremental-fsync",
            "rdbchecksum",
            "rdbcompression",
            "redsim-cpu-model",
            "redsim-memory-budget",
            "repl-backlog-size",
            "repl-backlog-ttl",
            "repl-disable-tcp-nodelay",
            "repl-diskless-load",
            "repl-diskless-sync",
            "repl-diskless-sync-delay",
            "repl-diskless-sync-max-replicas",
            "repl-ping-replica-period",
            "repl-ping-slave-period",
            "repl-timeout",
            "replica-announce-ip",
            "replica-announce-port",
            "replica-announced",
            "replica-ignore-disk-write-errors",
            "replica-ignore-maxmemory",
            "replica-lazy-flush",
            "replica-priority",
            "replica-read-only",
            "replica-serve-stale-data",
            "replicaof",
            "requirepass",
            "sanitize-dump-payload",
            "save",
            "server_cpulist",
            "set-max-intset-entries",
            "set-max-listpack-entries",
            "set-max-listpack-value",
            "set-proc-title",
            "shutdown-on-sigint",
            "shutdown-on-sigterm",
            "shutdown-timeout",
            "slave-announce-ip",
            "slave-announce-port",
            "slave-ignore-maxmemory",
            "slave-lazy-flush",
            "slave-priority",
            "slave-read-only",
            "slave-serve-stale-data",
            "slaveof",
            "slowlog-log-slower-than",
            "slowlog-max-len",
            "socket-mark-id",
            "stop-writes-on-bgsave-error",
            "stream-node-max-bytes",
            "stream-node-max-entries",
            "supervised",
            "syslog-enabled",
            "syslog-facility",
            "syslog-ident",
            "tcp-backlog",
            "tcp-keepalive",
            "timeout",
            "tls-auth-clients",
            "tls-ca-cert-dir",
            "tls-ca-cert-file",
            "tls-cert-file",
            "tls-ciphers",
            "tls-ciphersuites",
            "tls-client-cert-file",
            "tls-client-key-file",
            "tls-client-key-file-pass",
            "tls-cluster",
            "tls-dh-params-file",
            "tls-key-file",
            "tls-key-file-pass",
            "tls-port",
            "tls-prefer-server-ciphers",
            "tls-protocols",
            "tls-replication",
            "tls-session-cache-size",
            "tls-session-cache-timeout",
            "tls-session-caching",
            "tracking-table-max-keys",
            "unixsocket",
            "unixsocketperm",
            "zset-max-listpack-entries",
            "zset-max-listpack-value",
            "zset-max-ziplist-entries",
            "zset-max-ziplist-value",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        crate::sort::sort(&mut expected);
        let mut e = Engine::new(1);
        let c = e.connect("c");
        assert_eq!(names(&e.execute_line(c, "CONFIG GET *")), expected);
        assert_eq!(expected.len(), 197);
    }

    /// `dir` and `dbfilename` are PROTECTED_CONFIG: refused unless
    /// `enable-protected-configs` is `yes`, or `local` for a loopback client.
    #[test]
    fn protected_configs_follow_enable_protected_configs() {
        let mut e = engine("no");
        let c = e.connect("c");
        let refused = failed("dir", "can't set protected config");
        assert_eq!(e.execute_line(c, "CONFIG SET dir /tmp"), refused);
        assert_eq!(
            e.execute_line(c, "CONFIG SET dbfilename x.rdb"),
            failed("dbfilename", "can't set protected config")
        );
        assert_eq!(
            e.config_set("dir", "/tmp"),
            Err("CONFIG SET failed (possibly related to argument 'dir') - can't set protected config".into())
        );
        assert_eq!(get(&mut e, c, "dir"), "/");
        assert_eq!(
            e.execute_line(c, "CONFIG SET enable-protected-configs yes"),
            failed("enable-protected-configs", "can't set immutable config")
        );
        // Redis' order of checks: the first failing name decides.
        assert_eq!(
            e.execute_line(c, "CONFIG SET daemonize yes dir /tmp"),
            failed("daemonize", "can't set immutable config")
        );
        assert_eq!(
            e.execute_line(c, "CONFIG SET DIR /tmp daemonize yes"),
            failed("DIR", "can't set protected config")
        );
        assert_eq!(
            e.execute_line(c, "CONFIG SET nosuch 1 dir /tmp"),
            Frame::err("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'")
        );

        let mut e = engine("local");
        let inproc = e.connect("in-process");
        let lo = e.connect("loopback");
        let remote = e.connect("remote");
        let origin = |addr: &str| ClientOrigin {
            addr: addr.into(),
            laddr: "127.0.0.1:6379".into(),
            fd: 8,
        };
        e.set_client_origin(lo, origin("127.0.0.1:50000"));
        e.set_client_origin(remote, origin("10.0.0.5:50000"));
        assert_eq!(e.execute_line(inproc, "CONFIG SET dir /a"), Frame::ok());
        assert_eq!(e.execute_line(lo, "CONFIG SET dir /b"), Frame::ok());
        assert_eq!(e.execute_line(remote, "CONFIG SET dir /c"), refused);
        assert_eq!(get(&mut e, remote, "dir"), "/b");
        assert_eq!(e.config_set("dbfilename", "y.rdb"), Ok(()));

        let mut e = engine("yes");
        let remote = e.connect("remote");
        e.set_client_origin(remote, origin("10.0.0.5:50000"));
        assert_eq!(e.execute_line(remote, "CONFIG SET dir /c"), Frame::ok());
        assert_eq!(
            e.execute_line(remote, "CONFIG SET dbfilename a/b.rdb"),
            failed("dbfilename", "dbfilename can't be a path, just a filename")
        );
    }

    /// `maxmemory-clients`, MEMORY_CONFIG | PERCENT_CONFIG: bytes, or `N%`
    /// kept as -N and shown back as `N%`.
    #[test]
    fn maxmemory_clients_is_memory_or_percent() {
        let mut e = Engine::new(1);
        let c = e.connect("c");
        let mut set_get = |v: &str| {
            let r = e.execute_line(c, &format!("CONFIG SET maxmemory-clients {v}"));
            (
                r,
                get(&mut e, c, "maxmemory-clients"),
                e.config().maxmemory_clients,
            )
        };
        assert_eq!(set_get("50%"), (Frame::ok(), "50%".into(), -50));
        assert_eq!(set_get("1kb"), (Frame::ok(), "1024".into(), 1024));
        assert_eq!(set_get("0%"), (Frame::ok(), "0".into(), 0));
        // Past SSIZE_MAX Redis' ssize_t wraps: 2^64-1 is -1, i.e. 1%.
        assert_eq!(
            set_get("18446744073709551615"),
            (Frame::ok(), "1%".into(), -1)
        );
        let over = failed(
            "maxmemory-clients",
            "percentage argument must be less or equal to 100",
        );
        assert_eq!(set_get("101%"), (over, "1%".into(), -1));
        let bad = failed(
            "maxmemory-clients",
            "argument must be a memory or percent value",
        );
        for v in ["-5%", "abc", "%", "5.5%"] {
            assert_eq!(set_get(v).0, bad, "{v}");
        }
    }

    /// `unixsocketperm`, OCTAL_CONFIG: read by strtoll in base 8, bounds
    /// 0..0777 printed in octal, shown with `%o`.
    #[test]
    fn unixsocketperm_is_octal() {
        let mut c = config::Config::default();
        let p = config::param("unixsocketperm").expect("declared");
        assert_eq!((p.get)(&c), "0");
        assert_eq!(c.set_initial("unixsocketperm", "0700"), Ok(()));
        assert_eq!((c.unixsocketperm, (p.get)(&c)), (0o700, "700".to_string()));
        assert_eq!(c.set_initial("unixsocketperm", "777"), Ok(()));
        assert_eq!((p.get)(&c), "777");
        let range = Err("argument must be between 0 and 777 inclusive".to_string());
        assert_eq!(c.set_initial("unixsocketperm", "1000"), range);
        assert_eq!(c.set_initial("unixsocketperm", "-1"), range);
        let octal = Err("argument couldn't be parsed as an octal number".to_string());
        assert_eq!(c.set_initial("unixsocketperm", "8"), octal);
        assert_eq!(c.set_initial("unixsocketperm", "7a"), octal);
        assert_eq!((p.get)(&c), "777");
    }

    /// Enums: any case in, Redis' name out; the error lists every name in
    /// the enum's order; multi-argument flags as Redis reads and shows them.
    #[test]
    fn enums_read_and_refuse_as_redis_does() {
        let mut e = Engine::new(1);
        let c = e.connect("c");
        assert_eq!(
            e.execute_line(c, "CONFIG SET loglevel loud"),
            failed(
                "loglevel",
                "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"
            )
        );
        assert_eq!(
            e.execute_line(c, "CONFIG SET LogLevel WARNING"),
            Frame::ok()
        );
        assert_eq!(get(&mut e, c, "loglevel"), "warning");
        // `relative` and `yes` are one value, shown by its first name.
        assert_eq!(
            e.execute_line(c, "CONFIG SET oom-score-adj relative"),
            Frame::ok()
        );
        assert_eq!(get(&mut e, c, "oom-score-adj"), "yes");
        let sig = |e: &mut Engine, v: &str| {
            let r = e.execute(
                c,
                &[
                    b"CONFIG".to_vec(),
                    b"SET".to_vec(),
                    b"shutdown-on-sigint".to_vec(),
                    v.into(),
                ],
            );
            (r, get(e, c, "shutdown-on-sigint"))
        };
        assert_eq!(
            sig(&mut e, "now SAVE force"),
            (Frame::ok(), "save now force".into())
        );
        assert_eq!(sig(&mut e, "default"), (Frame::ok(), "default".into()));
        let flags = "argument(s) must be one of the following: default, save, nosave, now, force";
        for v in ["", "save  now", "later"] {
            assert_eq!(
                sig(&mut e, v).0,
                failed("shutdown-on-sigint", flags),
                "{v:?}"
            );
        }
        let both = "shutdown options SAVE and NOSAVE can't be used simultaneously";
        assert_eq!(
            sig(&mut e, "save nosave").0,
            failed("shutdown-on-sigint", both)
        );
        let oom = |v: &str| config::Config::default().set_initial("oom-score-adj-values", v);
        assert_eq!(oom("1 2"), Err("wrong number of arguments".into()));
        let range = "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
        assert_eq!(oom("1 2 3000"), Err(range.into()));
        let mut cfg = config::Config::default();
        assert_eq!(cfg.set_initial("oom-score-adj-values", "-1 +2 "), Ok(()));
        assert_eq!(cfg.oom_score_adj_values, [-1, 2, 0]);
        assert_eq!(cfg.set_initial("slaveof", "h 0100"), Ok(()));
        assert_eq!(cfg.replicaof, "h 100");
        assert_eq!(
            cfg.set_initial("replicaof", "h 65536"),
            Err("Invalid master port".into())
        );
        assert_eq!(cfg.set_initial("replicaof", "NO ONE"), Ok(()));
        assert_eq!(cfg.replicaof, "");
    }

    /// A listener that records the ports it is asked for and cannot listen
    /// on `taken`, nor on an address named `nowhere`.
    struct Recorder {
        calls: Mutex<Vec<u16>>,
        binds: Mutex<Vec<String>>,
        taken: u16,
    }

    impl Listener for Recorder {
        fn listen(&self, bind: &str, port: u16) -> Result<(), String> {
            self.calls.lock().expect("not poisoned").push(port);
            self.binds
                .lock()
                .expect("not poisoned")
                .push(bind.to_string());
            match port == self.taken || bind.contains("nowhere") {
                true => Err("Address already in use".into()),
                false => Ok(()),
            }
        }
    }

    fn recorder(e: &mut Engine, taken: u16) -> Arc<Recorder> {
        let r = Arc::new(Recorder {
            calls: Mutex::new(Vec::new()),
            binds: Mutex::new(Vec::new()),
            taken,
        });
        e.set_listener(r.clone());
        r
    }

    /// Redis' "CONFIG SET rollback on apply error": a port that cannot be
    /// listened on fails the command and restores every parameter it set.
    #[test]
    fn config_set_port_applies_after_every_value_and_rolls_back() {
        let mut e = Engine::new(1);
        let c = e.connect("c");
        let r = recorder(&mut e, 7777);
        let reply = e.execute_line(
            c,
            "CONFIG SET maxmemory 10000001 port 7777 client-query-buffer-limit 10m",
        );
        assert_eq!(
            reply,
            Frame::err(
                "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs."
            )
        );
        assert_eq!(get(&mut e, c, "maxmemory"), "0");
        assert_eq!(get(&mut e, c, "client-query-buffer-limit"), "1073741824");
        assert_eq!(get(&mut e, c, "port"), "6379");
        assert_eq!(*r.calls.lock().unwrap(), vec![7777]);
        // A port that did not change is not applied.
        assert_eq!(
            e.execute_line(c, "CONFIG SET port 6379 maxmemory 1mb"),
            Frame::ok()
        );
        assert_eq!(*r.calls.lock().unwrap(), vec![7777]);
        assert_eq!(e.execute_line(c, "CONFIG SET port 7000"), Frame::ok());
        assert_eq!(get(&mut e, c, "port"), "7000");
        // No TLS: a moved port moves back when a later apply fails.
        assert_eq!(
            e.execute_line(c, "CONFIG SET port 7001 tls-port 7002"),
            failed(
                "tls-port",
                "Unable to update TLS configuration. Check server logs."
            )
        );
        assert_eq!(*r.calls.lock().unwrap(), vec![7777, 7000, 7001, 7000]);
        assert_eq!(get(&mut e, c, "port"), "7000");
        assert_eq!(get(&mut e, c, "tls-port"), "0");
        assert_eq!(
            e.execute_line(c, "CONFIG SET tls-replication yes"),
            failed(
                "tls-replication",
                "Unable to update TLS configuration. Check server logs."
            )
        );
        assert_eq!(
            e.execute_line(c, "CONFIG SET tls-ciphers DEFAULT"),
            Frame::ok()
        );
        // `bind` moves the listener too (`applyBind`), with its own error.
        assert_eq!(
            e.execute_line(c, "CONFIG SET bind \"127.0.0.1 -::1\""),
            Frame::ok()
        );
        assert_eq!(get(&mut e, c, "bind"), "127.0.0.1 -::1");
        assert_eq!(
            e.execute_line(c, "CONFIG SET maxmemory 5mb bind nowhere"),
            failed("bind", "Failed to bind to specified addresses.")
        );
        assert_eq!(get(&mut e, c, "bind"), "127.0.0.1 -::1");
        assert_eq!(get(&mut e, c, "maxmemory"), "1048576");
        let binds = r.binds.lock().unwrap().clone();
        assert_eq!(binds[binds.len() - 2..], ["127.0.0.1 -::1", "nowhere"]);
        let many = vec!["127.0.0.1"; 17].join(" ");
        assert_eq!(
            e.execute_line(c, &format!("CONFIG SET bind \"{many}\"")),
            failed("bind", "Too many bind addresses specified.")
        );
    }

    /// Names, aliases and hidden names as CONFIG GET reports them.
    #[test]
    fn config_get_names_aliases_once_and_hidden_by_exact_name() {
        let mut e = Engine::new(1);
        let c = e.connect("c");
        let reply = e.execute_line(c, "CONFIG GET maxmemory maxmemory* bind *of");
        let expected = [
            "bind",
            "maxmemory",
            "maxmemory-clients",
            "maxmemory-eviction-tenacity",
            "maxmemory-policy",
            "maxmemory-samples",
            "replicaof",
            "slaveof",
        ];
        assert_eq!(names(&reply), expected);
        assert_eq!(
            e.execute_line(c, "CONFIG SET daemonize yes"),
            failed("daemonize", "can't set immutable config")
        );
        assert_eq!(get(&mut e, c, "key-load-delay"), "0");
        assert!(!names(&e.execute_line(c, "CONFIG GET *")).contains(&"key-load-delay".to_string()));
        assert_eq!(
            names(&e.execute_line(c, "CONFIG GET key-load-*")),
            Vec::<String>::new()
        );
        assert_eq!(
            e.execute_line(c, "CONFIG SET slave-priority 7"),
            Frame::ok()
        );
        assert_eq!(get(&mut e, c, "replica-priority"), "7");
        assert_eq!(
            e.execute_line(c, "CONFIG SET SLAVE-PRIORITY x"),
            failed(
                "slave-priority",
                "argument couldn't be parsed into an integer"
            )
        );
    }

    /// `updateReplBacklogSize` raises a CONFIG SET below 16 KB; a start-up
    /// value is not applied, so it stays.
    #[test]
    fn repl_backlog_size_is_raised_when_applied() {
        let mut e = Engine::new(1);
        let c = e.connect("c");
        assert_eq!(
            e.execute_line(c, "CONFIG SET repl-backlog-size 1kb"),
            Frame::ok()
        );
        assert_eq!(get(&mut e, c, "repl-backlog-size"), "16384");
        let mut cfg = config::Config::default();
        assert_eq!(cfg.set_initial("repl-backlog-size", "1kb"), Ok(()));
        assert_eq!(cfg.repl_backlog_size, 1024);
    }
}
