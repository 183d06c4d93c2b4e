//! `redsim server` arguments: Redis-style `--name value...` directives for every engine CONFIG parameter, plus Redsim's own options, and the usage texts.
//!
//! redis-server turns its command line into config-file lines (`--port 7777`
//! becomes `port 7777`, read after the configuration file if one is named:
//! `crate::conffile`) and rejects a bad one with a "FATAL CONFIG FILE ERROR"
//! banner quoting the line. We follow the same grammar, so a command line or
//! redis.conf that works for `redis-server` works here for every parameter
//! the engine has, and we fail the same visible way for one it does not.

use crate::conffile;
use redsim_engine::server::config::{self, Config};

/// Options parsed from `redsim server` arguments.
#[derive(Clone, Debug, Default)]
pub struct ServerOptions {
    /// Engine configuration; `port` and `bind` also say where to listen.
    pub config: Config,
    /// Seed of the engine's RNG (eviction and expiry sampling, RANDOMKEY...).
    pub seed: u64,
    /// Trace events the engine keeps; 0 (the default) turns tracing off, as a
    /// long-running server would otherwise spend memory on a log nobody reads.
    pub trace_capacity: usize,
    /// Where the engine's time comes from (tests may want a manual clock).
    pub clock: ClockMode,
    /// The configuration file read at start (absolute), which INFO names
    /// and CONFIG REWRITE updates; `None` when started without one.
    pub config_file: Option<String>,
    /// The file's `user` lines, set once the engine exists (Redis loads
    /// them after the rest of the configuration too).
    pub users: Vec<UserLine>,
    /// The `rename-command` lines, checked as they are read.
    pub renames: redsim_engine::server::renames::Renames,
}

/// A `user <name> <rules...>` line of a configuration file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserLine {
    /// The words after `user`.
    pub words: Vec<String>,
    /// The line and its number, for the error if a rule is refused.
    pub text: String,
    pub linenum: usize,
}

/// The server's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClockMode {
    /// Virtual time follows the wall clock: keys expire by themselves, as
    /// in Redis.
    #[default]
    Wall,
    /// Virtual time stands still until [`crate::RunningServer::advance`].
    Manual,
}

/// Directives that are Redsim's own rather than engine CONFIG parameters.
const OWN_OPTIONS: &[(&str, &str, &str)] = &[
    (
        "seed",
        "<n>",
        "seed of the engine's random choices (default 0)",
    ),
    (
        "trace-capacity",
        "<n>",
        "events the engine's trace keeps (default 0: tracing off)",
    ),
];

impl ServerOptions {
    /// Parses the arguments after the `server` word, e.g.
    /// `--port 7000 --bind 127.0.0.1 ::1 --hz 100 --seed 7`, or
    /// `/etc/redis/redis.conf --port 7000`: as with redis-server, a first
    /// argument that is not an option names a configuration file, and `-`
    /// first or last reads one from standard input (`crate::conffile`).
    ///
    /// As in redis-server, the argument right after `--name` is always its
    /// value (so `--bind --x` binds to `--x`), later ones are more values
    /// until the next `--`, and `"--port 7000"` as a single argument works
    /// too. A later directive overrides an earlier one, and the command
    /// line the file. The error is the text to print before exiting non-zero.
    pub fn from_args(args: &[String]) -> Result<ServerOptions, String> {
        let mut opts = ServerOptions::default();
        // CONFIG GET dir: Redis' working directory, which a server started
        // here has too (`--dir` names another).
        if let Ok(cwd) = std::env::current_dir() {
            opts.config.dir = cwd.display().to_string();
        }
        let (source, rest) = config_source(args);
        let options: Vec<String> = directives(rest)?
            .iter()
            .map(|(name, values)| {
                let mut line = name.clone();
                for v in values {
                    line.push(' ');
                    line.push_str(&repr(v));
                }
                line
            })
            .collect();
        for line in conffile::read(source.as_ref(), &options.join("\n"))? {
            opts.directive(&line).map_err(|reason| {
                format!(
                    "{}\n{}",
                    conffile::fatal(line.linenum, &line.text, &reason),
                    see_help()
                )
            })?;
        }
        opts.check_users()?;
        if let Some(conffile::Source::File(path)) = source {
            let path = std::path::absolute(&path).unwrap_or(path);
            opts.config_file = Some(path.display().to_string());
        }
        Ok(opts)
    }

    /// The file's users as Redis checks them while reading it
    /// (`ACLAppendUserForLoading`): each line's rules on a scratch engine,
    /// then that no ACL file is configured beside them.
    fn check_users(&self) -> Result<(), String> {
        if self.users.is_empty() {
            return Ok(());
        }
        if let Err((i, e)) = redsim_engine::Engine::new(0).load_config_users(&self.user_words()) {
            let line = &self.users[i];
            // Redis names the user, and gives the rule's error without the rule.
            let why = match e.strip_prefix("Error in ACL SETUSER modifier '") {
                Some(rest) => rest.split_once("': ").map_or(rest, |(_, why)| why),
                None => &e,
            };
            let e = format!("Error in user declaration '{}': {why}", line.words[0]);
            return Err(format!(
                "{}\n{}",
                conffile::fatal(line.linenum, &line.text, &e),
                see_help()
            ));
        }
        if !self.config.aclfile.is_empty() {
            return Err(
                "Configuring Redis with users defined in redis.conf and at the same setting an \
                 ACL file path is invalid. This setup is very likely to lead to configuration \
                 errors and security holes, please define either an ACL file or declare users \
                 directly in your redis.conf, but not both."
                    .into(),
            );
        }
        Ok(())
    }

    /// The `user` lines' words, as the engine takes them.
    pub fn user_words(&self) -> Vec<Vec<Vec<u8>>> {
        self.users
            .iter()
            .map(|u| u.words.iter().map(|w| w.as_bytes().to_vec()).collect())
            .collect()
    }

    /// One line of the configuration: a parameter, a Redsim option, or one
    /// of the directives only a file has.
    fn directive(&mut self, line: &conffile::Line) -> Result<(), String> {
        let (name, values) = (&line.argv[0], &line.argv[1..]);
        match name.as_str() {
            "user" if !values.is_empty() => {
                if self.users.iter().any(|u| u.words[0] == values[0]) {
                    return Err(format!(
                        "Error in user declaration '{}': Duplicate user found. A user can only \
                         be defined once in config files",
                        values[0]
                    ));
                }
                self.users.push(UserLine {
                    words: values.to_vec(),
                    text: line.text.clone(),
                    linenum: line.linenum,
                });
                Ok(())
            }
            "sentinel" if !values.is_empty() => {
                Err("sentinel directive while not in sentinel mode".into())
            }
            "loadmodule" if !values.is_empty() => {
                Err("Redsim loads no modules: it has no module API".into())
            }
            // `dir` is changed into as it is read: a path that is not a
            // directory stops the start, as redis-server's `chdir` does.
            "dir" if values.len() == 1 => {
                crate::oserror::check_dir(&values[0])?;
                self.apply(name, values)
            }
            "rename-command" if values.len() == 2 => self
                .renames
                .rename(
                    redsim_engine::cmd::lookup,
                    values[0].as_bytes(),
                    values[1].as_bytes(),
                )
                .map_err(str::to_string),
            _ => self.apply(name, values),
        }
    }

    /// Applies one directive, or says why it is rejected (Redis' wording).
    fn apply(&mut self, name: &str, values: &[String]) -> Result<(), String> {
        let lower = name.to_ascii_lowercase();
        if config::MULTI_ARG.contains(&lower.as_str()) {
            // `MULTI_ARG_CONFIG`: the words are one value, as CONFIG GET shows it.
            if values.is_empty() {
                return Err("wrong number of arguments".into());
            }
            return self.config.set_initial(&lower, &values.join(" "));
        }
        let [value] = values else {
            return Err(
                if OWN_OPTIONS.iter().any(|o| o.0 == lower) || config::param(name).is_some() {
                    "wrong number of arguments".into()
                } else {
                    "Bad directive or wrong number of arguments".into()
                },
            );
        };
        match lower.as_str() {
            "seed" => {
                self.seed = value
                    .parse()
                    .map_err(|_| "argument couldn't be parsed into an integer".to_string())?;
            }
            "trace-capacity" => {
                self.trace_capacity = value
                    .parse()
                    .map_err(|_| "argument couldn't be parsed into an integer".to_string())?;
            }
            _ => {
                if config::param(name).is_none() {
                    return Err("Bad directive or wrong number of arguments".into());
                }
                self.config.set_initial(name, value)?;
            }
        }
        Ok(())
    }
}

/// The configuration file the arguments name, if any, and the options
/// after it: a first argument that does not start with `-` (redis-server's
/// rule), or `-` as the first or last argument for standard input.
fn config_source(args: &[String]) -> (Option<conffile::Source>, &[String]) {
    match args {
        [first, rest @ ..] if !first.starts_with('-') => {
            (Some(conffile::Source::File(first.into())), rest)
        }
        [first, rest @ ..] if first == "-" => (Some(conffile::Source::Stdin), rest),
        [rest @ .., last] if last == "-" => (Some(conffile::Source::Stdin), rest),
        _ => (None, args),
    }
}

/// Groups arguments into `(name, values)` directives.
fn directives(args: &[String]) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    // True right after a bare `--name`: the next argument is its value whatever it looks like.
    let mut expect_value = false;
    for arg in args {
        match arg.strip_prefix("--") {
            Some(rest) if !expect_value => {
                let mut words = rest.split_whitespace().map(str::to_string);
                let Some(name) = words.next() else {
                    return Err(format!(
                        "redsim server: empty option '{arg}'\n{}",
                        see_help()
                    ));
                };
                let values: Vec<String> = words.collect();
                expect_value = values.is_empty();
                out.push((name, values));
            }
            _ => {
                let Some((_, values)) = out.last_mut() else {
                    return Err(format!(
                        "redsim server: unexpected argument '{arg}': options are given as \
                         --name value, after the configuration file if there is one\n{}",
                        see_help()
                    ));
                };
                values.push(arg.clone());
                expect_value = false;
            }
        }
    }
    Ok(out)
}

fn see_help() -> &'static str {
    "Run 'redsim server --help' for the parameters it accepts."
}

/// A value quoted as Redis' `sdscatrepr` shows it: in double quotes, with
/// escapes for quotes, backslashes and unprintable bytes.
fn repr(s: &str) -> String {
    redsim_engine::proto::clifmt::quote(s.as_bytes())
}

/// `redsim cluster` arguments: the cluster's shape, then `redsim server`'s.
#[derive(Clone, Debug)]
pub struct ClusterOptions {
    pub masters: usize,
    pub replicas: usize,
    /// Every node's options; node `i` listens on `port + i` (0: free ports).
    pub server: ServerOptions,
}

impl ClusterOptions {
    /// `--masters N` (default 3) and `--replicas N` (default 0) anywhere
    /// among `redsim server`'s directives; the port defaults to 7000, as
    /// in Redis' cluster tutorial, and the address to loopback.
    pub fn from_args(args: &[String]) -> Result<ClusterOptions, String> {
        let mut masters = 3;
        let mut replicas = 0;
        let mut rest = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let slot = match a.as_str() {
                "--masters" => &mut masters,
                "--replicas" => &mut replicas,
                _ => {
                    rest.push(a.clone());
                    continue;
                }
            };
            let v = it.next().ok_or_else(|| format!("{a} wants a number"))?;
            *slot = v
                .parse()
                .map_err(|_| format!("{a} wants a number, not '{v}'"))?;
        }
        if !(1..=100).contains(&masters) || replicas > 10 {
            return Err("a cluster has 1 to 100 masters and 0 to 10 replicas each".into());
        }
        let mut defaults = vec!["--port".to_string(), "7000".to_string()];
        defaults.extend(["--bind".to_string(), "127.0.0.1".to_string()]);
        defaults.extend(rest);
        Ok(ClusterOptions {
            masters,
            replicas,
            server: ServerOptions::from_args(&defaults)?,
        })
    }
}

/// `redsim sentinel` arguments: the monitored setup, then `redsim server`'s.
#[derive(Clone, Debug)]
pub struct SentinelOptions {
    pub setup: crate::SentinelSetup,
    /// Every Redis node's options; node `i` listens on `port + i`.
    pub server: ServerOptions,
}

impl SentinelOptions {
    /// `--replicas N` (2), `--sentinels N` (3), `--quorum N` (2),
    /// `--down-after-milliseconds MS` (2000), `--failover-timeout MS`
    /// (10000), `--master-name NAME` (mymaster), `--sentinel-port P`
    /// (26379) anywhere among `redsim server`'s directives; the nodes'
    /// port defaults to 6379 and the address to loopback.
    pub fn from_args(args: &[String]) -> Result<SentinelOptions, String> {
        let mut topology = redsim_sim::topology::TopoOptions {
            link_latency_ms: 1.0,
            ..Default::default()
        };
        let mut master_name = "mymaster".to_string();
        let mut sentinel_port: u16 = 26379;
        let mut rest = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let known = [
                "--replicas",
                "--sentinels",
                "--quorum",
                "--down-after-milliseconds",
                "--failover-timeout",
                "--master-name",
                "--sentinel-port",
            ];
            if !known.contains(&a.as_str()) {
                rest.push(a.clone());
                continue;
            }
            let v = it.next().ok_or_else(|| format!("{a} wants a value"))?;
            let num = || {
                v.parse::<u64>()
                    .map_err(|_| format!("{a} wants a number, not '{v}'"))
            };
            match a.as_str() {
                "--replicas" => topology.replicas = num()? as usize,
                "--sentinels" => topology.sentinels = num()? as usize,
                "--quorum" => topology.quorum = num()? as usize,
                "--down-after-milliseconds" => topology.down_after_ms = num()?,
                "--failover-timeout" => topology.failover_timeout_ms = num()?,
                "--sentinel-port" => {
                    sentinel_port = v
                        .parse()
                        .map_err(|_| format!("{a} wants a port, not '{v}'"))?
                }
                _ => master_name = v.clone(),
            }
        }
        if !(1..=4).contains(&topology.replicas)
            || !(1..=7).contains(&topology.sentinels)
            || !(1..=topology.sentinels).contains(&topology.quorum)
        {
            return Err(
                "a setup has 1 to 4 replicas, 1 to 7 sentinels and a quorum of 1 to sentinels"
                    .into(),
            );
        }
        let mut defaults = ["--port", "6379", "--bind", "127.0.0.1"]
            .map(String::from)
            .to_vec();
        defaults.extend(rest);
        Ok(SentinelOptions {
            setup: crate::SentinelSetup {
                master_name,
                topology,
                sentinel_port,
            },
            server: ServerOptions::from_args(&defaults)?,
        })
    }
}

/// `redsim sentinel --help`.
pub fn sentinel_usage() -> String {
    "Usage: redsim sentinel [--replicas N] [--sentinels N] [--quorum N] [--master-name NAME]\n\
     \x20                      [--down-after-milliseconds MS] [--failover-timeout MS]\n\
     \x20                      [--port N] [--sentinel-port N] [--<config-name> <value> ...]\n\
     \n\
     Serves a master (port), its replicas (port+1, ...) and the Sentinels watching it\n\
     (sentinel-port, +1, ...) to real clients. The nodes are full engines linked by\n\
     the replication stream; the sentinels follow sentinel.c's rules on the wall\n\
     clock and answer SENTINEL get-master-addr-by-name, masters, master, replicas,\n\
     sentinels, failover, ckquorum and myid, INFO, ROLE and Pub/Sub, publishing\n\
     +sdown, +odown, +switch-master... SHUTDOWN on a node stops it (its port then\n\
     refuses connections), so a client library's failover can be tested end to end.\n\
     \n\
     Defaults: 2 replicas, 3 sentinels, quorum 2, down-after 2000 ms, failover-timeout\n\
     10000 ms, master name mymaster, port 6379, sentinel port 26379, bind 127.0.0.1.\n\
     \n\
     Examples:\n  \
       redsim sentinel\n  \
       redis-cli -p 26379 sentinel get-master-addr-by-name mymaster\n  \
       redis-cli -p 6379 shutdown nosave\n"
        .to_string()
}

/// `redsim --help`.
pub fn usage() -> String {
    format!(
        "redsim {} - a Redis {} playground on a deterministic engine\n\
         \n\
         Usage:\n  \
           redsim server [redis.conf] [--port N] [--bind ADDR...] [--seed N] [--<config-name> <value> ...]\n  \
           redsim cluster [--masters N] [--replicas N] [--port N] [--<config-name> <value> ...]\n  \
           redsim sentinel [--replicas N] [--sentinels N] [--port N] [--sentinel-port N] ...\n  \
           redsim scenarios [--json] [<id>]\n  \
           redsim run <id> [--seed N] [--set name=value ...] [--json [FILE]] [--svg FILE]\n  \
           redsim replay SCRIPT --against redis://HOST:PORT[?cluster=1] [--timing] [--seed N]\n  \
           redsim lessons [--json | --check] [<chapter>]\n  \
           redsim --help | --version\n\
         \n\
         Commands:\n  \
           server      serve RESP2/RESP3 over TCP to real Redis clients (redis-cli, redis-py, ...)\n  \
           cluster     serve a simulated Redis Cluster, node i on port+i, for cluster clients\n  \
           sentinel    serve a master, its replicas and its Sentinels, for sentinel-aware clients\n  \
           scenarios   list the scenario catalogue (lessons on the virtual clock)\n  \
           run         run a scenario headless: metrics, checks, notes, JSON, SVG\n  \
           replay      run a command script on the simulator and a real server; print what differs\n  \
           lessons     list the course's chapters and steps; --check proves every step\n\
         \n\
         Run 'redsim server --help' for the server's options, 'redsim run --help' for scenarios',\n\
         'redsim replay --help' for replays.\n",
        env!("CARGO_PKG_VERSION"),
        redsim_engine::REDIS_VERSION
    )
}

/// `redsim cluster --help`.
pub fn cluster_usage() -> String {
    "Usage: redsim cluster [--masters N] [--replicas N] [--port N] [--<config-name> <value> ...]\n\
     \n\
     Serves a simulated Redis Cluster to real cluster clients: every node is a full\n\
     engine in cluster mode on its own port (port, port+1, ...: masters first, then\n\
     their replicas in order), the 16384 slots split evenly among the masters as\n\
     redis-cli --cluster create splits them. CLUSTER SLOTS/SHARDS/NODES, MOVED and\n\
     ASK are what a real cluster answers; replicas follow their master over the\n\
     replication stream; the cluster bus (pings, PFAIL, FAIL, replica elections)\n\
     runs on the wall clock, so a node a test kills (redsim-testing's TestCluster)\n\
     fails over after cluster-node-timeout, and CLUSTER FAILOVER on a replica\n\
     works. The nodes share one thread.\n\
     \n\
     Defaults: 3 masters, no replicas, port 7000, bind 127.0.0.1. Any other\n\
     option is a redsim server option applied to every node (see\n\
     'redsim server --help').\n\
     \n\
     Examples:\n  \
       redsim cluster\n  \
       redsim cluster --masters 3 --replicas 1 --cluster-node-timeout 2000\n  \
       redis-cli -c -p 7000 set foo bar\n"
        .to_string()
}

/// `redsim server --help`: the grammar, then every parameter with its default.
pub fn server_usage() -> String {
    let defaults = Config::default();
    let mut s = String::from(
        "Usage: redsim server [/path/to/redis.conf | -] [--<name> <value> ...]\n\
         \n\
         Serves the engine over TCP, speaking RESP2 and RESP3 (HELLO 3), with its\n\
         clock following the wall clock. As with redis-server, any CONFIG parameter\n\
         can be given as --name value, after a configuration file (- reads it from\n\
         standard input) whose lines the options override; an unknown one is a fatal\n\
         error, and CONFIG REWRITE updates the file.\n\
         \n\
         Examples:\n  \
           redsim server\n  \
           redsim server /etc/redis/redis.conf --port 6380\n  \
           redsim server --port 7777 --hz 100 --maxmemory 100mb --maxmemory-policy allkeys-lru\n  \
           redsim server --bind 127.0.0.1 ::1 --seed 42\n\
         \n\
         Redsim options:\n",
    );
    for (name, arg, what) in OWN_OPTIONS {
        s.push_str(&format!("  --{:<24} {what}\n", format!("{name} {arg}")));
    }
    s.push_str("\nConfig parameters (default in brackets; * = start-up only):\n");
    let width = config::PARAMS
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0);
    for p in config::PARAMS {
        let flag = if p.mutable { ' ' } else { '*' };
        s.push_str(&format!(
            "  --{:<width$} {flag} [{}]\n",
            p.name,
            (p.get)(&defaults)
        ));
    }
    s.push_str(
        "\nA --port of 0 listens on a free port; a --bind address of * means every\n\
         IPv4 interface and ::* every IPv6 one, and a leading - lets that address\n\
         fail to bind without aborting, as in redis-server.\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ServerOptions, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        ServerOptions::from_args(&args)
    }

    #[test]
    fn defaults_are_redis_defaults() {
        let o = parse(&[]).unwrap();
        assert_eq!(o.config.port, 6379);
        assert_eq!(o.config.bind, "127.0.0.1");
        assert_eq!(o.seed, 0);
        assert_eq!(o.trace_capacity, 0);
    }

    #[test]
    fn config_parameters_and_own_options() {
        let o = parse(&[
            "--port",
            "7000",
            "--HZ",
            "100",
            "--maxmemory",
            "1mb",
            "--seed",
            "9",
            "--trace-capacity 50",
            "--bind",
            "127.0.0.1",
            "::1",
        ])
        .unwrap();
        assert_eq!(o.config.port, 7000);
        assert_eq!(o.config.hz, 100);
        assert_eq!(o.config.maxmemory, 1 << 20);
        assert_eq!(o.seed, 9);
        assert_eq!(o.trace_capacity, 50);
        assert_eq!(o.config.bind, "127.0.0.1 ::1");
    }

    #[test]
    fn value_after_a_bare_name_is_taken_whatever_it_looks_like() {
        let o = parse(&["--bind", "--odd"]).unwrap();
        assert_eq!(o.config.bind, "--odd");
    }

    #[test]
    fn unknown_directive_is_fatal_and_quoted_like_redis() {
        let e = parse(&["--foo", "bar"]).unwrap_err();
        assert!(e.contains("*** FATAL CONFIG FILE ERROR"), "{e}");
        assert!(
            e.contains("Reading the configuration file, at line 2\n"),
            "{e}"
        );
        assert!(
            e.contains(">>> 'foo \"bar\"'\nBad directive or wrong number of arguments"),
            "{e}"
        );
        assert!(e.contains("redsim server --help"), "{e}");
    }

    #[test]
    fn bad_values_give_the_parameter_error() {
        let e = parse(&["--hz", "abc"]).unwrap_err();
        assert!(
            e.contains(">>> 'hz \"abc\"'\nargument couldn't be parsed into an integer"),
            "{e}"
        );
        let e = parse(&["--port", "99999"]).unwrap_err();
        assert!(
            e.contains("argument must be between 0 and 65535 inclusive"),
            "{e}"
        );
        let e = parse(&["--port"]).unwrap_err();
        assert!(e.contains(">>> 'port'\nwrong number of arguments"), "{e}");
        let e = parse(&["--hz", "1", "2"]).unwrap_err();
        assert!(e.contains("wrong number of arguments"), "{e}");
        let e = parse(&["--seed", "-1"]).unwrap_err();
        assert!(e.contains("couldn't be parsed"), "{e}");
        let e = parse(&["x.conf", "stray"]).unwrap_err();
        assert!(e.contains("unexpected argument 'stray'"), "{e}");
        let e = parse(&["no-such.conf"]).unwrap_err();
        assert_eq!(
            e,
            "Fatal error, can't open config file 'no-such.conf': No such file or directory"
        );
    }

    #[test]
    fn usage_lists_every_parameter() {
        let u = server_usage();
        for p in config::PARAMS {
            assert!(u.contains(&format!("--{}", p.name)), "{} missing", p.name);
        }
        assert!(u.contains("--seed"));
        assert!(usage().contains("redsim server"));
    }

    #[test]
    fn repr_escapes_like_sdscatrepr() {
        assert_eq!(repr("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\x01\"");
    }
}
