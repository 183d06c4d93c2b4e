//! Configuration files against a real redis-server: the fatal error a bad line gets (its number, the line, the reason; a `dir` that is not a directory among them, and CONFIG SET's refusal of one), and the file CONFIG REWRITE leaves after the same CONFIG SETs, which a restart then reads back.

use std::path::Path;
use std::process::Command;

use redsim_tests::{Conn, Frame, Pair, RedisServer, RedsimServer, TempDir};

/// The three lines after the banner that name the line and the reason.
fn what_is_wrong(stderr: &str) -> String {
    let mut lines = stderr
        .lines()
        .skip_while(|l| !l.starts_with("*** FATAL CONFIG FILE ERROR"));
    lines
        .next()
        .unwrap_or_else(|| panic!("no banner in {stderr:?}"));
    lines.take(3).collect::<Vec<_>>().join("\n")
}

fn redis_refuses(args: &[&str]) -> String {
    let bin = std::env::var("REDSIM_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
    let out = Command::new(&bin)
        .args(args)
        .output()
        .expect("redis-server runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "redis-server {args:?} refuses to start"
    );
    String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout)
}

fn redsim_refuses(args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    match redsim_cli::ServerOptions::from_args(&args) {
        Err(e) => e,
        Ok(_) => panic!("redsim server {args:?} would start"),
    }
}

#[test]
fn a_bad_line_is_refused_at_the_same_line_for_the_same_reason() {
    let dir = TempDir::new("conf-errors");
    let inc = dir.file("inc-target.conf");
    std::fs::write(&inc, "port 7001\nbogus 1\n").unwrap();
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "unknown",
            "# a comment\n\n  port 7000\nfoo bar\n".into(),
            vec![],
        ),
        ("unbalanced", "port 7000\nsave \"\n".into(), vec![]),
        ("enum", "maxmemory-policy nope\n".into(), vec![]),
        ("integer", "hz 10\nhz abc\n".into(), vec![]),
        ("size", "maxmemory 12xb\n".into(), vec![]),
        ("user", "user alice on badrule\n".into(), vec![]),
        ("user-alone", "user\n".into(), vec![]),
        (
            "user-twice",
            "user bob on >pw ~* +@all\nuser bob off\n".into(),
            vec![],
        ),
        ("sentinel", "sentinel monitor a b\n".into(), vec![]),
        ("rename-unknown", "rename-command nosuch x\n".into(), vec![]),
        (
            "rename-taken",
            "rename-command get g\nrename-command set g\n".into(),
            vec![],
        ),
        (
            "rename-gone",
            "rename-command keys \"\"\nrename-command keys k\n".into(),
            vec![],
        ),
        ("rename-arity", "rename-command get\n".into(), vec![]),
        (
            "rename-command-line",
            "port 7000\n".into(),
            vec!["--rename-command", "get", "set"],
        ),
        ("included", format!("hz 10\ninclude {inc}\n"), vec![]),
        ("dir-missing", "dir /nonexistent/redsim\n".into(), vec![]),
        ("dir-file", format!("dir {inc}\n"), vec![]),
        (
            "dir-command-line",
            "port 7000\n".into(),
            vec!["--dir", "/nonexistent/redsim"],
        ),
        ("command-line", "port 7000\n".into(), vec!["--foo", "bar"]),
        (
            "command-line-value",
            "port 7000\n".into(),
            vec!["--hz", "x y"],
        ),
    ];
    for (name, text, extra) in cases {
        let conf = dir.file(&format!("{name}.conf"));
        std::fs::write(&conf, text).unwrap();
        let args: Vec<&str> = [conf.as_str()].into_iter().chain(extra).collect();
        assert_eq!(
            what_is_wrong(&redsim_refuses(&args)),
            what_is_wrong(&redis_refuses(&args)),
            "{name}"
        );
    }
    // A file that is not there, named or included.
    let missing = dir.file("missing.conf");
    let want =
        format!("Fatal error, can't open config file '{missing}': No such file or directory");
    assert!(redis_refuses(&[&missing]).contains(&want));
    assert_eq!(redsim_refuses(&[&missing]), want);
    let includes = dir.file("includes-missing.conf");
    std::fs::write(&includes, format!("include {missing}\n")).unwrap();
    assert!(redis_refuses(&[&includes]).contains(&want));
    assert_eq!(redsim_refuses(&[&includes]), want);
}

fn get(c: &mut Conn, name: &str) -> String {
    match c.cmd(&["CONFIG", "GET", name]) {
        Frame::Array(kv) if kv.len() == 2 => match &kv[1] {
            Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
            other => panic!("{other:?}"),
        },
        other => panic!("CONFIG GET {name}: {other:?}"),
    }
}

const SETS: &[(&str, &str)] = &[
    ("maxmemory", "3000000"),
    ("maxmemory-policy", "allkeys-lru"),
    ("client-output-buffer-limit", "pubsub 1mb 2mb 60"),
    ("notify-keyspace-events", "KEA"),
    ("hz", "10"),
    // Both write it: Redis' default binds every interface, Redsim's only loopback.
    ("bind", "127.0.0.1 -::1"),
];

const FILE: &str = "# my settings\nslave-read-only yes\nmaxmemory 100mb\nhz 10\nhz 20\n\
                    stream-node-max-bytes 4096\nuser alice on >secret ~app:* +get\n";

/// The file after CONFIG REWRITE, with the server's own port and
/// directory (which the harness passes on its command line) made alike, and
/// its appended lines sorted: Redis appends them in its dictionary's order.
fn rewritten(c: &mut Conn, conf: &Path, port: u16, dir: &Path) -> (String, Vec<String>) {
    for (name, value) in SETS {
        assert_eq!(
            c.cmd(&["CONFIG", "SET", name, value]),
            Frame::Simple("OK".into()),
            "{name}"
        );
    }
    assert_eq!(c.cmd(&["CONFIG", "REWRITE"]), Frame::Simple("OK".into()));
    let text = std::fs::read_to_string(conf).unwrap();
    let text = text
        .replace(&format!("port {port}\n"), "port <port>\n")
        .replace(&dir.display().to_string(), "<dir>")
        // Redis 7.2 lists `sanitize-payload` in a user's rules; 7.0 leaves it out.
        .replace(" sanitize-payload", "");
    let (kept, appended) = text
        .split_once("# Generated by CONFIG REWRITE\n")
        .expect(&text);
    let mut appended: Vec<String> = appended
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    appended.sort();
    (kept.to_string(), appended)
}

#[test]
fn config_rewrite_writes_the_file_redis_writes_and_a_restart_reads_it() {
    let (redis_dir, redsim_dir) = (TempDir::new("conf-redis"), TempDir::new("conf-redsim"));
    let (redis_conf, redsim_conf) = (redis_dir.file("redis.conf"), redsim_dir.file("redis.conf"));
    std::fs::write(&redis_conf, FILE).unwrap();
    std::fs::write(&redsim_conf, FILE).unwrap();
    let redis = RedisServer::start(&[&redis_conf, "--dir", &redis_dir.0.display().to_string()]);
    let redsim = RedsimServer::start(&[
        &redsim_conf,
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        &redsim_dir.0.display().to_string(),
    ]);
    let want = rewritten(
        &mut redis.conn(),
        Path::new(&redis_conf),
        redis.port,
        &redis_dir.0,
    );
    let got = rewritten(
        &mut redsim.conn(),
        Path::new(&redsim_conf),
        redsim.port,
        &redsim_dir.0,
    );
    assert_eq!(
        got.0, want.0,
        "the file's own lines, kept and updated in place"
    );
    assert_eq!(got.1, want.1, "the lines appended after the signature");

    // INFO names the file; a server started from the rewritten one has the values set.
    let info = match redsim.conn().cmd(&["INFO", "server"]) {
        Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
        other => panic!("{other:?}"),
    };
    assert!(
        info.contains(&format!("config_file:{redsim_conf}\r\n")),
        "{info}"
    );
    drop(redsim);
    let again = RedsimServer::start(&[&redsim_conf]);
    let mut c = again.conn();
    for (name, value) in SETS
        .iter()
        .filter(|(n, _)| *n != "client-output-buffer-limit")
    {
        let shown = if *name == "notify-keyspace-events" {
            "AKE"
        } else {
            value
        };
        assert_eq!(get(&mut c, name), shown, "{name}");
    }
    assert_eq!(
        c.cmd(&["AUTH", "alice", "secret"]),
        Frame::Simple("OK".into())
    );
}

#[test]
fn without_a_file_config_rewrite_refuses_as_redis_does() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    let want = redis.conn().cmd(&["CONFIG", "REWRITE"]);
    assert_eq!(redsim.conn().cmd(&["CONFIG", "REWRITE"]), want);
    assert_eq!(
        want,
        Frame::Error("ERR The server is running without a config file".into())
    );
}

/// A file's users: the default user is reset before its line's rules (so
/// the line says all it may do), another user is created by its line.
#[test]
fn a_files_users_are_what_their_lines_say() {
    let dir = TempDir::new("conf-users");
    let conf = dir.file("users.conf");
    std::fs::write(
        &conf,
        "user default on nopass ~app:* +info\nuser alice on >pw2 ~* +@all\n",
    )
    .unwrap();
    let list = |mut c: Conn| {
        assert_eq!(c.cmd(&["AUTH", "alice", "pw2"]), Frame::Simple("OK".into()));
        match c.cmd(&["ACL", "LIST"]) {
            Frame::Array(users) => users
                .iter()
                .map(|u| match u {
                    // Redis 7.2 lists `sanitize-payload` among a user's flags; 7.0 leaves it out.
                    Frame::Bulk(b) => String::from_utf8_lossy(b).replace(" sanitize-payload", ""),
                    other => panic!("{other:?}"),
                })
                .collect::<Vec<_>>(),
            other => panic!("ACL LIST: {other:?}"),
        }
    };
    let redis = RedisServer::start(&[&conf]);
    let redsim = RedsimServer::start(&[&conf]);
    assert_eq!(list(redsim.conn()), list(redis.conn()));
    // Without the reset the default user would keep `~* &* +@all`.
    let mut c = redsim.conn();
    assert!(matches!(c.cmd(&["INFO", "server"]), Frame::Bulk(_)));
    assert!(matches!(c.cmd(&["GET", "app:x"]), Frame::Error(e) if e.starts_with("NOPERM")));
}

/// What `rename-command` changes, compared reply for reply: the new name
/// calls the command, clients, MULTI and scripts alike; the old name is
/// unknown; COMMAND, the command statistics and ACL rules keep the
/// command's own name; a command renamed to nothing is gone from COMMAND
/// LIST. A CONFIG REWRITE keeps the lines, so a restart keeps the names
/// (Redis' own test, "CONFIG REWRITE handles rename-command properly").
#[test]
fn renamed_commands_answer_as_redis_does() {
    let dir = TempDir::new("conf-rename");
    let conf = dir.file("rename.conf");
    std::fs::write(
        &conf,
        "rename-command flushdb badger\nrename-command KEYS \"\"\nrename-command get G\n\
         rename-command g fetch\nrename-command set keys\n",
    )
    .unwrap();
    let redis = RedisServer::start(&[&conf, "--save", ""]);
    let redsim = RedsimServer::start(&[&conf, "--save", ""]);
    let lines: &[&[&str]] = &[
        &["keys", "k", "v"],
        &["FETCH", "k"],
        &["get", "k"],
        &["g", "k"],
        &["set", "k", "v"],
        &["badger"],
        &["flushdb"],
        &[
            "COMMAND", "INFO", "badger", "flushdb", "fetch", "get", "keys",
        ],
        &["COMMAND", "DOCS", "flushdb"],
        &["COMMAND", "GETKEYS", "fetch", "k"],
        &["COMMAND", "GETKEYS", "get", "k"],
        &["EVAL", "return redis.call('fetch', 'k')", "0"],
        &["EVAL", "return redis.pcall('get', 'k')", "0"],
        &["EVAL", "return redis.call('keys', 'k2', 'w')", "0"],
        &["MULTI"],
        &["keys", "k3", "x"],
        &["fetch", "k3"],
        &["EXEC"],
        &["MULTI"],
        &["get", "k"],
        &["EXEC"],
        &["ACL", "SETUSER", "u", "+badger"],
        &["ACL", "SETUSER", "u", "+flushdb", "+get"],
    ];
    // COMMAND INFO and DOCS by the names they answer with (their key specs,
    // tips and argument docs are compared elsewhere).
    let names = |line: &[&str], reply: Frame| match (&line[..2.min(line.len())], reply) {
        (&["COMMAND", "INFO"], Frame::Array(infos)) => Frame::Array(
            infos
                .into_iter()
                .map(|i| match i {
                    Frame::Array(mut fields) if !fields.is_empty() => fields.swap_remove(0),
                    other => other,
                })
                .collect(),
        ),
        (&["COMMAND", "DOCS"], Frame::Map(docs)) => {
            Frame::Array(docs.into_iter().map(|(name, _)| name).collect())
        }
        (&["COMMAND", "DOCS"], Frame::Array(flat)) => {
            Frame::Array(flat.into_iter().step_by(2).collect())
        }
        (_, other) => other,
    };
    let (mut a, mut b) = (redis.conn(), redsim.conn());
    for line in lines {
        let (want, got) = (names(line, a.cmd(line)), names(line, b.cmd(line)));
        // A script's error names the script by its SHA1, the same in both.
        assert_eq!(got, want, "{line:?}");
    }
    // ACL key patterns hold for a command called by its new name, in MULTI
    // and in scripts too.
    let keyed = |c: &mut Conn| {
        c.cmd(&["ACL", "SETUSER", "v", "on", "nopass", "~app:*", "+@all"]);
        assert_eq!(c.cmd(&["AUTH", "v", "x"]), Frame::Simple("OK".into()));
        [
            c.cmd(&["fetch", "other"]),
            c.cmd(&["fetch", "app:1"]),
            c.cmd(&["EVAL", "return redis.call('fetch', 'other')", "0"]),
            c.cmd(&["MULTI"]),
            c.cmd(&["fetch", "other"]),
            c.cmd(&["EXEC"]),
        ]
        .map(|f| match f {
            // Redis 7.2 words ACL denials anew; 7.0's text differs, not their kind.
            Frame::Error(e) => Frame::Error(e.split(' ').next().unwrap_or("").to_string()),
            other => other,
        })
    };
    assert_eq!(keyed(&mut redsim.conn()), keyed(&mut redis.conn()));
    assert!(matches!(&keyed(&mut redsim.conn())[0], Frame::Error(e) if e.starts_with("NOPERM")));

    // The command statistics go by the command's own name.
    let stats = |c: &mut Conn| match c.cmd(&["INFO", "commandstats"]) {
        Frame::Bulk(b) => {
            let text = String::from_utf8_lossy(&b).into_owned();
            let mut names: Vec<String> = text
                .lines()
                .filter_map(|l| l.strip_prefix("cmdstat_"))
                .filter_map(|l| l.split(':').next())
                .filter(|n| ["get", "set", "flushdb", "keys", "badger", "fetch"].contains(n))
                .map(str::to_string)
                .collect();
            names.sort();
            names
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(stats(&mut b), stats(&mut a));
    // COMMAND LIST: renamed commands under their own names; KEYS, renamed to
    // nothing, is gone (the name `keys` now calls SET, listed as `set`).
    let listed = |c: &mut Conn| match c.cmd(&["COMMAND", "LIST"]) {
        Frame::Array(names) => {
            let has = |n: &str| names.contains(&Frame::Bulk(n.as_bytes().to_vec()));
            (
                has("flushdb"),
                has("get"),
                has("set"),
                has("keys"),
                has("badger"),
            )
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(listed(&mut b), listed(&mut a));
    assert_eq!(listed(&mut b), (true, true, true, false, false));

    // COMMAND COUNT drops only a command renamed to nothing: one fewer than
    // a server without the file, on both.
    let count = |c: &mut Conn| match c.cmd(&["COMMAND", "COUNT"]) {
        Frame::Integer(n) => n,
        other => panic!("{other:?}"),
    };
    let (plain_redis, plain_redsim) = (RedisServer::start(&[]), RedsimServer::start(&[]));
    assert_eq!(count(&mut plain_redis.conn()) - count(&mut a), 1);
    assert_eq!(count(&mut plain_redsim.conn()) - count(&mut b), 1);

    // The rewritten file keeps the lines, and a restart the names.
    let copy = dir.file("rewritten.conf");
    std::fs::copy(&conf, &copy).unwrap();
    drop(redsim);
    let redsim = RedsimServer::start(&[&copy, "--save", ""]);
    let mut c = redsim.conn();
    assert_eq!(c.cmd(&["CONFIG", "REWRITE"]), Frame::Simple("OK".into()));
    drop(c);
    drop(redsim);
    let text = std::fs::read_to_string(&copy).unwrap();
    assert!(text.contains("rename-command flushdb badger\n"), "{text}");
    let again = RedsimServer::start(&[&copy]);
    let mut c = again.conn();
    assert_eq!(c.cmd(&["badger"]), Frame::Simple("OK".into()));
    assert!(
        matches!(c.cmd(&["flushdb"]), Frame::Error(e) if e.starts_with("ERR unknown command 'flushdb'"))
    );
}

/// CONFIG SET `dir` takes a directory only, with the OS's reason, and the
/// old one stays.
#[test]
fn config_set_dir_refuses_what_is_not_a_directory() {
    let dir = TempDir::new("conf-dir");
    let file = dir.file("plain-file");
    std::fs::write(&file, "x").unwrap();
    let mut p = Pair::start(&["--enable-protected-configs", "yes"]);
    p.check(&format!("CONFIG SET dir {}", dir.0.display()));
    p.check("CONFIG SET dir /nonexistent/redsim");
    p.check(&format!("CONFIG SET dir {file}"));
    p.check("CONFIG SET dir /nonexistent/redsim hz 20");
    p.check("CONFIG GET hz");
    p.check("CONFIG GET dir");
}
