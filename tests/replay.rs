//! `redsim replay` against real servers: a script that matches, one that differs on purpose (line numbers and both replies printed, exit status 1), blocking clients woken and timed out with `--timing`, a console Share link as the script, a real three-master cluster, and usage errors.

use redsim_cli::replay::replay_command;
use redsim_tests::{RedisCluster, RedisServer, TempDir};

/// Runs `redsim replay` with `args`; the exit status and what it printed.
fn replay(args: &[&str]) -> Result<(u8, String), String> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut out = Vec::new();
    let status = replay_command(&args, &mut out)?;
    Ok((status, String::from_utf8(out).expect("utf-8 output")))
}

/// Writes `text` to a script file in `dir`.
fn script(dir: &TempDir, text: &str) -> String {
    let path = dir.file("script.txt");
    std::fs::write(&path, text).expect("write script");
    path
}

fn url(server: &RedisServer) -> String {
    format!("redis://127.0.0.1:{}", server.port)
}

/// Commands whose replies are the same in Redis 7.0 and 7.2, and the
/// reply kinds compared loosely: sets, hash pairs, random picks, TTLs,
/// stream IDs.
const MATCHING: &str = r#"
# Everything here replies alike on redis-server and redsim.
FLUSHALL
SET greeting "hello world" EX 100
GET greeting
TTL greeting
PTTL greeting
APPEND greeting "!"
INCRBY counter 41
INCR counter
SADD s a b c d e
SMEMBERS s
SCARD s
HSET h f 1 g 2 k 3
HGETALL h
HKEYS h
ZADD z 1 one 2 two 3 three
ZRANGE z 0 -1 WITHSCORES
LPUSH l x y z
LRANGE l 0 -1
XADD st * field value
XLEN st
SRANDMEMBER s
SPOP s
GET missing
WRONGTYPE_IS_NOT_A_COMMAND
LPUSH greeting x
EXPIRE counter 10 GT
HELLO 3
HGETALL h
SMEMBERS nothing
"#;

#[test]
fn a_matching_script_exits_zero() {
    let server = RedisServer::start(&[]);
    let dir = TempDir::new("replay");
    let path = script(&dir, MATCHING);
    let (status, out) = replay(&[&path, "--against", &url(&server)]).unwrap();
    assert_eq!(status, 0, "{out}");
    assert!(out.ends_with(": 0 differences\n"), "{out}");
    assert!(out.contains("29 commands replayed"), "{out}");
}

#[test]
fn differences_name_their_line_and_both_replies() {
    let server = RedisServer::start(&[]);
    // The real server holds a key the simulator (which starts empty) lacks.
    let mut c = server.conn();
    c.cmd(&["SET", "planted", "by the test"]);
    let dir = TempDir::new("replay");
    let path = script(
        &dir,
        "PING\n\n# the next line differs\nGET planted\nDBSIZE\n",
    );
    let (status, out) = replay(&[&path, "--against", &url(&server)]).unwrap();
    assert_eq!(status, 1, "{out}");
    assert!(
        out.contains("line 4: GET planted\n  redsim: (nil)\n  redis:  \"by the test\"\n"),
        "{out}"
    );
    assert!(
        out.contains("line 5: DBSIZE\n  redsim: (integer) 0\n  redis:  (integer) 1\n"),
        "{out}"
    );
    assert!(out.contains("3 commands replayed"), "{out}");
    assert!(out.ends_with(": 2 differences\n"), "{out}");
}

#[test]
fn blocked_clients_wake_and_time_out_on_both_sides() {
    let server = RedisServer::start(&[]);
    let dir = TempDir::new("replay");
    let text = "\
FLUSHALL
@2 BLPOP jobs 0
@3 RPUSH jobs first
@2 BLPOP later 1
# sleep 1300
@3 LPUSH later too-late
@2 LPOP later
";
    let path = script(&dir, text);
    let (status, out) = replay(&[&path, "--against", &url(&server), "--timing"]).unwrap();
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("6 commands replayed"), "{out}");
    // Without --timing the sleep is skipped: both BLPOP later 1 are woken by
    // client 3's push instead of timing out, and still agree.
    let (status, out) = replay(&[&path, "--against", &url(&server)]).unwrap();
    assert_eq!(status, 0, "{out}");
}

#[test]
fn a_console_share_link_is_a_script() {
    let server = RedisServer::start(&[]);
    let link = "https://example.test/redsim/?seed=7&t0=1700000000&cmd=FLUSHALL&cmd=SET%20k%20%22a%20b%22&cmd=GET+k&cmd=%402+GET+k";
    let (status, out) = replay(&[link, "--against", &url(&server)]).unwrap();
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("4 commands replayed"), "{out}");
}

#[test]
fn a_real_cluster_follows_moved_and_agrees() {
    let cluster = RedisCluster::start(3);
    let dir = TempDir::new("replay");
    let text = "\
SET a 1
SET b 2
SET c 3
MGET a b
MGET {user}:name {user}:mail
SET {user}:name ann
SET {user}:mail ann@example.test
MGET {user}:name {user}:mail
CLUSTER KEYSLOT {user}:name
DEL a b c
GET a
";
    let path = script(&dir, text);
    let (status, out) = replay(&[&path, "--against", &cluster.url()]).unwrap();
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("11 commands replayed"), "{out}");
    assert!(out.contains("(cluster)"), "{out}");
    // A blocking command has no meaning through a cluster client here.
    let path = script(&dir, "BLPOP q 1\n");
    let err = replay(&[&path, "--against", &cluster.url()]).unwrap_err();
    assert_eq!(
        err,
        "line 1: blocking commands are not replayed against a cluster"
    );
}

#[test]
fn usage_errors_are_errors_not_differences() {
    let dir = TempDir::new("replay");
    let path = script(&dir, "PING\nSET k \"unclosed\n");
    let err = replay(&[&path, "--against", "redis://127.0.0.1:1"]).unwrap_err();
    assert_eq!(err, "line 2: unbalanced quotes in: SET k \"unclosed");
    assert!(replay(&[&path]).unwrap_err().contains("--against"));
    assert!(replay(&[&path, "--against", "http://x"])
        .unwrap_err()
        .contains("redis://"));
    assert!(replay(&["/no/such/file", "--against", "redis://h:1"])
        .unwrap_err()
        .contains("/no/such/file"));
    // An unreachable server is not a usage error: status 1 with the reason.
    let path = script(&dir, "PING\n");
    let port = redsim_tests::free_port();
    let (status, out) =
        replay(&[&path, "--against", &format!("redis://127.0.0.1:{port}")]).unwrap();
    assert_eq!(status, 1);
    assert!(out.starts_with("redsim replay: 127.0.0.1:"), "{out}");
}
