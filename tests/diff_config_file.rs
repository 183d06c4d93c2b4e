//! Configuration files against a real redis-server: the fatal error a bad line gets (its number, the line, the reason), and the file CONFIG REWRITE leaves after the same CONFIG SETs, which a restart then reads back.

use std::path::Path;
use std::process::Command;

use redsim_tests::{Conn, Frame, RedisServer, RedsimServer, TempDir};

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
        ("included", format!("hz 10\ninclude {inc}\n"), vec![]),
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
