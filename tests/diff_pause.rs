//! CLIENT PAUSE and UNPAUSE against a real redis-server: the errors, which commands a WRITE or an ALL pause holds (writes, PUBLISH, write scripts, MULTI's queueing and an EXEC of writes; not reads or `no-writes` scripts), held clients counted as blocked and released in order by UNPAUSE or the pause's end, and expiry held while paused; then the same on the engine's virtual clock.

use std::time::{Duration, Instant};

use redsim_engine::{ClientId, Engine, Frame};
use redsim_tests::{Conn, Differ};

/// A field of `INFO <section>` on one connection.
fn info_field(c: &mut Conn, section: &str, field: &str) -> String {
    let Frame::Bulk(b) = c.cmd(&["INFO", section]) else {
        panic!("INFO {section}");
    };
    let text = String::from_utf8_lossy(&b).into_owned();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")).map(str::to_string))
        .unwrap_or_else(|| panic!("no {field} in INFO {section}"))
}

/// Asserts both servers report the same `field` of INFO `section`, and
/// that it is `want`.
fn same_info(d: &mut Differ, i: usize, section: &str, field: &str, want: &str) {
    let r = info_field(&mut d.redis[i], section, field);
    let s = info_field(&mut d.sim[i], section, field);
    assert_eq!((r.as_str(), s.as_str()), (want, want), "{field}");
}

/// PFCOUNT and PUBLISH may replicate (Redis 7.2's `may_replicate`): a WRITE
/// pause holds them, and a read-only script may not call them.
#[test]
fn pause_errors_and_replies_match_redis() {
    Differ::start(1, &[]).script(
        "
        0 CLIENT PAUSE -1 -> error
        0 CLIENT PAUSE abc -> error
        0 CLIENT PAUSE 9999999999999999999 -> error
        0 CLIENT PAUSE 10 FOO -> error
        0 CLIENT PAUSE abc FOO -> error
        0 CLIENT PAUSE 10 write x -> error
        0 CLIENT PAUSE -> error
        0 CLIENT UNPAUSE x -> error
        0 CLIENT PAUSE 0 -> +OK
        0 CLIENT PAUSE 0 all -> +OK
        0 CLIENT UNPAUSE -> +OK
        0 SET k v -> +OK
        0 PFADD h a -> 1
        0 EVAL_RO \"return redis.call('pfcount', KEYS[1])\" 1 h -> error
        0 EVAL_RO \"return redis.call('publish', 'ch', 'm')\" 0 -> error
        ",
    );
}

#[test]
fn a_write_pause_holds_what_may_write_until_unpause() {
    let mut d = Differ::start(7, &[]);
    d.script(
        r##"
        0 SET k v
        0 PFADD hll a
        0 CLIENT PAUSE 100000 WRITE -> +OK
        1 GET k -> "v"
        1 PING -> +PONG
        1 EVAL "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])" 1 k -> "v"
        1 EVAL_RO "return 2" 0 -> 2
        1 MULTI
        1 GET k
        1 EXEC -> ["v"]
        2 block SET k w
        3 block PFCOUNT hll
        4 block PUBLISH ch m
        5 block EVAL "return 1" 0
        6 MULTI -> +OK
        6 block INCR n
        "##,
    );
    same_info(&mut d, 1, "clients", "blocked_clients", "5");
    // Held clients show as blocked (`b`) in CLIENT LIST, with their command.
    for conns in [&mut d.redis, &mut d.sim] {
        let Frame::Bulk(list) = conns[1].cmd(&["CLIENT", "LIST"]) else {
            panic!("CLIENT LIST");
        };
        let list = String::from_utf8_lossy(&list).into_owned();
        let held = list.lines().filter(|l| l.contains(" flags=b ")).count();
        let in_multi = list.lines().filter(|l| l.contains(" flags=xb ")).count();
        assert_eq!((held, in_multi), (4, 1), "{list}");
        assert!(list.contains(" cmd=publish "), "{list}");
    }
    d.script(
        r##"
        1 GET k -> "v"
        0 CLIENT UNPAUSE -> +OK
        2 recv -> +OK
        3 recv -> 1
        4 recv -> 0
        5 recv -> 1
        6 recv -> +QUEUED
        6 EXEC -> [1]
        1 GET k -> "w"
        "##,
    );
    same_info(&mut d, 1, "clients", "blocked_clients", "0");
}

#[test]
fn an_exec_of_writes_waits_and_syntax_errors_answer_at_once() {
    Differ::start(2, &[]).script(
        "
        0 MULTI -> +OK
        0 SET a 1 -> +QUEUED
        1 MULTI -> +OK
        1 GET a -> +QUEUED
        1 CLIENT PAUSE 100000 WRITE -> +QUEUED
        1 EXEC
        0 block EXEC
        1 SET -> error
        1 GET a -> nil
        1 CLIENT UNPAUSE -> +OK
        0 recv -> [+OK]
        1 GET a -> \"1\"
        ",
    );
}

#[test]
fn an_all_pause_holds_every_command_and_keeps_the_stricter_mode_and_later_end() {
    // Under ALL even CLIENT PAUSE waits; both run when it ends.
    Differ::start(3, &[]).script(
        "
        0 SET k v
        0 CLIENT PAUSE 300 ALL -> +OK
        1 block GET k
        0 block CLIENT PAUSE 10 WRITE
        sleep 450
        1 recv -> \"v\"
        0 recv -> +OK
        2 GET k -> \"v\"
        ",
    );
    // A shorter ALL pause over a WRITE one: ALL, until the later end. Each
    // server in turn, so that the wait is its own.
    let mut d = Differ::start(2, &[]);
    for conns in [&mut d.redis, &mut d.sim] {
        assert_eq!(conns[0].cmd(&["SET", "k", "v"]), Frame::ok());
        assert_eq!(
            conns[0].cmd(&["CLIENT", "PAUSE", "400", "WRITE"]),
            Frame::ok()
        );
        assert_eq!(conns[0].cmd(&["CLIENT", "PAUSE", "10", "ALL"]), Frame::ok());
        std::thread::sleep(Duration::from_millis(100));
        let t = Instant::now();
        assert_eq!(conns[1].cmd(&["GET", "k"]), Frame::bulk("v"));
        let held = t.elapsed();
        assert!(
            held >= Duration::from_millis(200),
            "GET answered after {held:?}"
        );
    }
}

#[test]
fn expiry_waits_for_the_pause() {
    let mut d = Differ::start(2, &[]);
    d.script(
        "
        0 SET a 1 PX 40
        0 SET b 1 PX 40
        0 CLIENT PAUSE 100000 WRITE -> +OK
        sleep 250
        1 GET a -> nil
        1 EXISTS b -> 0
        ",
    );
    // Logically gone, not reclaimed: neither the lookups nor the active
    // cycle expired them.
    same_info(&mut d, 1, "stats", "expired_keys", "0");
    d.script(
        "
        0 CLIENT UNPAUSE -> +OK
        1 GET a -> nil
        ",
    );
    // GET reclaimed `a`; the active cycle may have reclaimed `b` already.
    for c in [&mut d.redis[1], &mut d.sim[1]] {
        let n = info_field(c, "stats", "expired_keys");
        assert!(n == "1" || n == "2", "{n}");
    }
}

// ---------------------------------------------------------------------------
// The engine on its virtual clock.

fn line(e: &mut Engine, c: ClientId, l: &str) -> Option<Frame> {
    let args = redsim_engine::proto::resp::split_args(l.as_bytes()).expect("line");
    let r = e.submit(c, &args);
    e.before_sleep();
    r
}

#[test]
fn the_pause_ends_at_its_virtual_time_and_releases_in_order() {
    let mut e = Engine::new(1);
    let (a, b, c) = (e.connect("a"), e.connect("b"), e.connect("c"));
    // Timeout 0 pauses nothing: the next write runs at once.
    let args = |l: &str| redsim_engine::proto::resp::split_args(l.as_bytes()).expect("line");
    assert_eq!(e.submit(a, &args("CLIENT PAUSE 0 ALL")), Some(Frame::ok()));
    assert_eq!(e.submit(b, &args("SET k 0")), Some(Frame::ok()));
    assert_eq!(
        line(&mut e, a, "CLIENT PAUSE 1000 WRITE"),
        Some(Frame::ok())
    );
    assert_eq!(line(&mut e, b, "SET k 1"), None);
    assert_eq!(line(&mut e, c, "SET k 2"), None);
    // B's next command waits behind its held one.
    assert_eq!(line(&mut e, b, "GET k"), None);
    // CLIENT UNBLOCK has nothing to answer for a held command: 0, as
    // Valkey 8.1 replies (Redis 7.0.15 crashes on it).
    let unblock = format!("CLIENT UNBLOCK {b}");
    assert_eq!(line(&mut e, a, &unblock), Some(Frame::Integer(0)));
    assert!(e
        .blocked_clients()
        .iter()
        .all(|w| w.kind == redsim_engine::blocking::BlockKind::Postponed));
    let start = e.now_us();
    e.advance_to(start + 990_000);
    assert!(e.take_unblocked().is_empty(), "released before its end");
    e.advance_to(start + 1_001_000);
    let got = e.take_unblocked();
    assert_eq!(
        got,
        vec![(b, Frame::ok()), (b, Frame::bulk("1")), (c, Frame::ok()),]
    );
    assert_eq!(line(&mut e, a, "GET k"), Some(Frame::bulk("2")));
    // `execute` cannot wait: a held command is refused, not run.
    assert_eq!(line(&mut e, a, "CLIENT PAUSE 1000 ALL"), Some(Frame::ok()));
    assert!(e.execute(b, &[b"GET".to_vec(), b"k".to_vec()]).is_error());
}
