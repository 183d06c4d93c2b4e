//! Blocking commands across connections: the same multi-client scripts against a real redis-server and redsim's native server (replies must match, other connections keep being served, a blocked connection's later input waits), and engine-level tests of `submit` / `take_unblocked` on the virtual clock.
//!
//! Several blocked clients are sent their commands with a short pause in
//! between, so each server sees them in the same order (FIFO serving is
//! part of what is compared).

use std::time::{Duration, Instant};

use redsim_engine::blocking::BlockKind;
use redsim_engine::proto::resp::split_args;
use redsim_engine::server::trace::{Event, UnblockHow};
use redsim_engine::{ClientId, Engine, Frame};
use redsim_tests::{script_tests, Differ};

// ---------------------------------------------------------------------------
// Both servers, several connections.

/// Switches connection `i` of both to RESP3 (the HELLO replies differ
/// in version and client id, so they are not compared).
fn resp3(d: &mut Differ, i: usize) {
    d.send(i, "HELLO 3");
    let r = d.redis[i].read_frame();
    let s = d.sim[i].read_frame();
    assert!(matches!((r, s), (Some(Frame::Map(_)), Some(Frame::Map(_)))));
}

fn bulks(items: &[&str]) -> Frame {
    Frame::Array(items.iter().map(Frame::bulk).collect())
}

script_tests! {
    other_connections_are_served_while_one_blocks(2): r#"
        0 block BLPOP q 0
        1 SET k v
        1 GET k
        1 INCR n
        1 PING
        1 LLEN q
        1 EXISTS q
        1 RPUSH q a -> 1
        0 recv -> ["q", "a"]
        1 EXISTS q -> 0
        0 PING -> +PONG
    "#;
    blocked_clients_are_served_first_come_first_served(4): r#"
        0 block BLPOP q 0
        1 block BLPOP q 0
        2 block BLPOP q 0
        3 RPUSH q a b -> 2
        0 recv -> ["q", "a"]
        1 recv -> ["q", "b"]
        3 LLEN q -> 0
        3 RPUSH q c
        2 recv -> ["q", "c"]
        # Right pops too, and a client waiting on two keys takes the one that came.
        0 block BRPOP k1 k2 0
        1 block BRPOP k2 0
        3 RPUSH k2 x y
        0 recv -> ["k2", "y"]
        1 recv -> ["k2", "x"]
    "#;
    blmove_chains_serve_in_one_go(4): r#"
        0 block BLMOVE a b LEFT RIGHT 0
        1 block BRPOPLPUSH b c 0
        2 block BLPOP c 0
        3 RPUSH a x -> 1
        0 recv -> "x"
        1 recv -> "x"
        2 recv -> ["c", "x"]
        3 EXISTS a b c
        # A move into the key it waits on: the source itself.
        0 block BLMOVE s s RIGHT LEFT 0
        3 RPUSH s 1 2
        0 recv -> "2"
        3 LRANGE s 0 -1 -> ["2", "1"]
    "#;
    blocking_inside_multi_replies_at_once(1): r#"
        0 MULTI
        0 BLPOP q 0
        0 BRPOP q 0
        0 BLMOVE q d LEFT RIGHT 0
        0 BRPOPLPUSH q d 0
        0 BLMPOP 0 1 q LEFT
        0 BZPOPMIN z 0
        0 BZPOPMAX z 0
        0 BZMPOP 0 1 z MIN
        0 RPUSH q a
        0 BLPOP q 0
        0 EXEC -> [nil-array, nil-array, nil, nil, nil-array, nil-array, nil-array, nil-array, 1, ["q", "a"]]
    "#;
    a_wrong_type_met_when_served_is_an_error(2): r#"
        0 block BLMOVE src dst LEFT LEFT 0
        1 SET dst x
        1 RPUSH src v
        0 recv -> error
        1 LRANGE src 0 -1 -> ["v"]
        # A key created with another type serves nobody: BLPOP keeps waiting.
        0 block BLPOP k 0
        1 SET k s
        1 DEL k
        1 ZADD k 1 m
        1 DEL k
        1 HSET k f v
        1 DEL k
        1 RPUSH k v
        0 recv -> ["k", "v"]
        # And a list does not serve a sorted-set waiter.
        0 block BZPOPMIN z 0
        1 RPUSH z a
        1 DEL z
        1 ZADD z 2 b 1 a
        0 recv -> ["z", "a", "1"]
    "#;
    a_blocked_connection_runs_nothing_else_until_served(2): r#"
        # Pipelined: the PING and SET wait behind the BLPOP.
        0 send BLPOP q 0
        0 send PING
        0 send SET after 1
        sleep 50
        1 GET after -> nil
        1 RPUSH q a
        0 recv -> ["q", "a"]
        0 recv -> +PONG
        0 recv -> +OK
        1 GET after -> "1"
        # The same after a timeout.
        0 send BLPOP q 0.1
        0 send INCR after
        0 recv -> nil-array
        0 recv -> 2
    "#;
    transactions_make_keys_ready_when_they_end(2): r#"
        0 block BLPOP q 0
        1 MULTI
        1 RPUSH q a
        1 LPOP q
        1 EXEC
        # The key existed only inside the transaction: still waiting.
        1 EXISTS q
        1 MULTI
        1 RPUSH q x y
        1 RPUSH q z
        1 EXEC
        0 recv -> ["q", "x"]
        1 LRANGE q 0 -1 -> ["y", "z"]
    "#;
    keys_created_by_other_commands_serve_too(2): r#"
        0 block BLPOP dst 0
        1 RPUSH src a b
        1 RENAME src dst
        0 recv -> ["dst", "a"]
        0 block BRPOP t 0
        1 LMOVE dst t LEFT LEFT
        0 recv -> ["t", "b"]
        0 block BLMPOP 0 2 m1 m2 RIGHT COUNT 2
        1 RPUSH m2 1 2 3
        0 recv -> ["m2", ["3", "2"]]
        1 LRANGE m2 0 -1
    "#;
    waiters_are_per_database(2): r#"
        0 SELECT 1
        0 block BLPOP q 0
        1 RPUSH q a
        1 LLEN q -> 1
        1 SELECT 1
        1 RPUSH q b
        0 recv -> ["q", "b"]
    "#;
}

#[test]
fn timeouts_reply_null_after_the_delay() {
    let mut b = Differ::start(2, &[]);
    for (line, want) in [
        ("BLPOP q 0.2", Frame::NullArray),
        ("BRPOP q 0.2", Frame::NullArray),
        // On a real timeout even BLMOVE and BRPOPLPUSH get a null array.
        ("BLMOVE q d LEFT RIGHT 0.2", Frame::NullArray),
        ("BRPOPLPUSH q d 0.2", Frame::NullArray),
        ("BLMPOP 0.2 2 q q2 LEFT COUNT 3", Frame::NullArray),
        ("BZPOPMIN z 0.2", Frame::NullArray),
        ("BZMPOP 0.2 1 z MAX", Frame::NullArray),
    ] {
        b.send(0, line);
        let start = Instant::now();
        let got = b.sim[0].read_frame().expect("redsim replies");
        let took = start.elapsed();
        let want_redis = b.redis[0].read_frame().expect("redis replies");
        assert_eq!(got, want_redis, "{line}");
        assert_eq!(got, want, "{line}");
        assert!(
            took >= Duration::from_millis(190) && took < Duration::from_millis(1500),
            "{line} timed out after {took:?}"
        );
        // Meanwhile the other connection was never held up.
        b.check(1, "PING");
    }
    // In RESP3 the timeout reply is a null.
    resp3(&mut b, 0);
    b.script("0 send BLPOP q 0.1\n0 recv -> nil");
}

#[test]
fn a_client_closing_while_blocked_is_forgotten() {
    let mut b = Differ::start(2, &[]);
    b.block(0, "BLPOP q 0");
    // Replace connection 0 on both sides: the old one closes.
    let rport = b.redis[1].cmd(&["CONFIG", "GET", "port"]);
    let sport = b.sim[1].cmd(&["CONFIG", "GET", "port"]);
    let port = |f: Frame| -> u16 {
        let Frame::Array(v) = f else {
            panic!("CONFIG GET")
        };
        let Some(Frame::Bulk(p)) = v.get(1) else {
            panic!("port")
        };
        String::from_utf8_lossy(p).parse().expect("port number")
    };
    b.redis[0] = redsim_tests::Conn::connect(port(rport));
    b.sim[0] = redsim_tests::Conn::connect(port(sport));
    std::thread::sleep(Duration::from_millis(50));
    b.script("1 RPUSH q a\n1 LLEN q -> 1");
}

#[test]
fn sorted_set_blocking_pops() {
    let mut b = Differ::start(3, &[]);
    b.script(
        r#"
        0 block BZPOPMIN z1 z2 0
        1 block BZPOPMAX z2 0
        2 ZADD z2 1 a 2 b 3 c
        0 recv -> ["z2", "a", "1"]
        1 recv -> ["z2", "c", "3"]
        0 block BZMPOP 0 2 z1 z2 MAX COUNT 5
        2 ZADD z1 1.5 x
        0 recv
        2 ZRANGE z2 0 -1 WITHSCORES
        # With data there is no waiting, in RESP2 and RESP3 shapes.
        2 ZADD s 1 a 2 b 3 c
        2 BZPOPMIN s 0
        2 BZPOPMAX nokey s 0
        2 BZMPOP 0 1 s MIN COUNT 10
        2 EXISTS s
        2 SET str x
        2 BZPOPMIN str 0
        2 BZMPOP 0 2 nokey str MIN
        2 BZMPOP 0 1 s SIDEWAYS
        2 BZMPOP 0 0 s MIN
        2 BZMPOP x 1 s MIN
        2 BZPOPMIN s -1
        2 BZPOPMIN s x
        "#,
    );
    resp3(&mut b, 2);
    b.script(
        "2 ZADD s 1 a 2.5 b
         2 BZPOPMIN s 0
         2 BZMPOP 0 1 s MAX COUNT 2",
    );
}

// ---------------------------------------------------------------------------
// The engine alone: submit, take_unblocked, virtual time.

fn cmd(line: &str) -> Vec<Vec<u8>> {
    split_args(line.as_bytes()).expect("balanced quotes")
}

fn submit(e: &mut Engine, c: ClientId, line: &str) -> Option<Frame> {
    e.submit(c, &cmd(line))
}

/// An engine and two clients, `a` and `b`.
fn engine_with_two_clients() -> (Engine, ClientId, ClientId) {
    let mut e = Engine::new(7);
    let a = e.connect("a");
    let b = e.connect("b");
    (e, a, b)
}

fn served(e: &mut Engine) -> Vec<(ClientId, Frame)> {
    e.take_unblocked()
}

#[test]
fn engine_serves_in_fifo_order_and_chains_moves() {
    let mut e = Engine::new(7);
    let c: Vec<ClientId> = (0..5).map(|i| e.connect(&format!("c{i}"))).collect();
    assert_eq!(submit(&mut e, c[0], "BLPOP q 0"), None);
    assert_eq!(submit(&mut e, c[1], "BLPOP q 0"), None);
    assert!(e.is_blocked(c[0]) && e.is_blocked(c[1]));
    assert_eq!(
        submit(&mut e, c[4], "RPUSH q a b c"),
        Some(Frame::Integer(3))
    );
    assert_eq!(
        served(&mut e),
        vec![(c[0], bulks(&["q", "a"])), (c[1], bulks(&["q", "b"]))]
    );
    assert!(served(&mut e).is_empty(), "taken once");
    assert_eq!(submit(&mut e, c[4], "LRANGE q 0 -1"), Some(bulks(&["c"])));

    assert_eq!(submit(&mut e, c[0], "BLMOVE a b LEFT RIGHT 0"), None);
    assert_eq!(submit(&mut e, c[1], "BLMOVE b c LEFT RIGHT 0"), None);
    assert_eq!(submit(&mut e, c[2], "BLPOP c 0"), None);
    submit(&mut e, c[4], "RPUSH a x");
    assert_eq!(
        served(&mut e),
        vec![
            (c[0], Frame::bulk("x")),
            (c[1], Frame::bulk("x")),
            (c[2], bulks(&["c", "x"])),
        ]
    );
    assert!(e.blocked_clients().is_empty());
}

#[test]
fn engine_timeouts_fire_on_the_virtual_clock() {
    let (mut e, a, b) = engine_with_two_clients();
    assert_eq!(submit(&mut e, a, "BLPOP q 1.5"), None);
    assert_eq!(submit(&mut e, b, "BRPOPLPUSH q d 0"), None);
    // Deadline: the first instant the clock is past now + 1500 ms.
    assert_eq!(e.next_block_deadline_us(), Some(1_501_000));
    let info = e.blocked_clients();
    assert_eq!(info.len(), 2);
    assert_eq!(info[0].client, a);
    assert_eq!(info[0].keys, vec!["q".to_string()]);
    assert_eq!(info[0].kind, BlockKind::List);
    assert_eq!(info[0].deadline_us, Some(1_501_000));
    assert_eq!(info[1].deadline_us, None);
    assert_eq!(info[1].command, vec!["BRPOPLPUSH", "q", "d", "0"]);

    e.advance_to(1_500_999);
    assert!(served(&mut e).is_empty());
    e.advance_to(1_501_000);
    assert_eq!(served(&mut e), vec![(a, Frame::NullArray)]);
    assert_eq!(e.now_us(), 1_501_000);
    // Without a timeout it waits forever.
    e.advance_to(3_600_000_000);
    assert!(served(&mut e).is_empty());
    assert!(e.is_blocked(b));
    assert_eq!(e.next_block_deadline_us(), None);

    // The trace tells the story: blocked with a deadline, then timed out.
    let events: Vec<&Event> = e.trace().events().map(|t| &t.event).collect();
    assert!(events.iter().any(|ev| matches!(ev,
        Event::Blocked { keys, deadline_us: Some(1_501_000), .. } if keys == &["q".to_string()])));
    assert!(events.iter().any(|ev| matches!(
        ev,
        Event::Unblocked {
            how: UnblockHow::Timeout,
            key: None
        }
    )));
    submit(&mut e, a, "RPUSH q v");
    assert_eq!(served(&mut e), vec![(b, Frame::bulk("v"))]);
    assert!(e.trace().events().any(|t| t.event
        == Event::Unblocked {
            how: UnblockHow::Served,
            key: Some("q".into())
        }));
}

#[test]
fn engine_execute_and_exec_never_block() {
    let mut e = Engine::new(7);
    let a = e.connect("a");
    assert_eq!(e.execute(a, &cmd("BLPOP q 0")), Frame::NullArray);
    assert_eq!(e.execute(a, &cmd("BLMOVE q d LEFT LEFT 0")), Frame::Null);
    assert_eq!(e.execute(a, &cmd("BZPOPMIN z 0")), Frame::NullArray);
    assert!(!e.is_blocked(a));
    submit(&mut e, a, "MULTI");
    submit(&mut e, a, "BLPOP q 0");
    submit(&mut e, a, "BRPOPLPUSH q d 0");
    assert_eq!(
        submit(&mut e, a, "EXEC"),
        Some(Frame::Array(vec![Frame::NullArray, Frame::Null]))
    );
    // A blocked client cannot run commands through execute.
    assert_eq!(submit(&mut e, a, "BLPOP q 0"), None);
    assert!(e.execute(a, &cmd("PING")).is_error());
}

#[test]
fn engine_queues_what_a_blocked_client_sends() {
    let (mut e, a, b) = engine_with_two_clients();
    // All wait behind the first BLPOP.
    for line in ["BLPOP q 0", "PING", "BLPOP q2 0", "ECHO last"] {
        assert_eq!(submit(&mut e, a, line), None, "{line}");
    }
    submit(&mut e, b, "RPUSH q x");
    // Served, then the PING runs, then the second BLPOP blocks again.
    assert_eq!(
        served(&mut e),
        vec![(a, bulks(&["q", "x"])), (a, Frame::Simple("PONG".into()))]
    );
    assert!(e.is_blocked(a));
    submit(&mut e, b, "RPUSH q2 y");
    assert_eq!(
        served(&mut e),
        vec![(a, bulks(&["q2", "y"])), (a, Frame::bulk("last"))]
    );
    assert!(!e.is_blocked(a));
}

#[test]
fn engine_serves_only_matching_types_and_reports_wrongtype() {
    let (mut e, a, b) = engine_with_two_clients();
    submit(&mut e, a, "BLPOP k 0");
    submit(&mut e, b, "SET k s");
    submit(&mut e, b, "DEL k");
    submit(&mut e, b, "ZADD k 1 m");
    assert!(served(&mut e).is_empty());
    submit(&mut e, b, "DEL k");
    submit(&mut e, b, "LPUSH k v");
    assert_eq!(served(&mut e), vec![(a, bulks(&["k", "v"]))]);

    submit(&mut e, a, "BLMOVE src dst LEFT LEFT 0");
    submit(&mut e, b, "SET dst x");
    submit(&mut e, b, "RPUSH src v");
    let got = served(&mut e);
    assert_eq!(got.len(), 1);
    assert!(got[0].1.is_error(), "{:?}", got[0].1);
    assert_eq!(submit(&mut e, b, "LLEN src"), Some(Frame::Integer(1)));

    submit(&mut e, a, "BZPOPMAX z 0");
    submit(&mut e, b, "ZADD z 1 a 2 b");
    assert_eq!(
        served(&mut e),
        vec![(
            a,
            Frame::Array(vec![Frame::bulk("z"), Frame::bulk("b"), Frame::Double(2.0)])
        )]
    );
}

#[test]
fn engine_forgets_a_disconnected_waiter_and_counts_commands_once() {
    let (mut e, a, b) = engine_with_two_clients();
    let before = e.stats().total_commands_processed;
    submit(&mut e, a, "BLPOP q 0");
    assert_eq!(e.stats().total_commands_processed, before);
    submit(&mut e, b, "RPUSH q x");
    served(&mut e);
    assert_eq!(e.stats().total_commands_processed, before + 2);
    submit(&mut e, a, "BLPOP q 0.5");
    e.advance_by(600_000);
    assert_eq!(served(&mut e), vec![(a, Frame::NullArray)]);
    assert_eq!(e.stats().total_commands_processed, before + 3);

    submit(&mut e, a, "BLPOP q 0");
    e.disconnect(a);
    assert!(e.blocked_clients().is_empty());
    submit(&mut e, b, "RPUSH q y");
    assert!(served(&mut e).is_empty());
    assert_eq!(submit(&mut e, b, "LLEN q"), Some(Frame::Integer(1)));
    assert!(e.trace().events().any(|t| t.event
        == Event::Unblocked {
            how: UnblockHow::Disconnected,
            key: None
        }));
}

#[test]
fn engine_runs_are_deterministic() {
    let run = || {
        let mut e = Engine::new(99);
        let c: Vec<ClientId> = (0..4).map(|i| e.connect(&format!("c{i}"))).collect();
        let mut log = Vec::new();
        for step in 0..300u64 {
            let who = c[(step % 4) as usize];
            let line = match step % 7 {
                0 => "BLPOP a b 0.05",
                1 => "RPUSH a x y",
                2 => "BLMOVE b a LEFT RIGHT 0.02",
                3 => "RPUSH b z",
                4 => "BRPOP a 0",
                5 => "LPOP a",
                _ => "BLMPOP 0.01 2 a b LEFT COUNT 2",
            };
            if !e.is_blocked(who) {
                log.push(format!("{who} {line} -> {:?}", submit(&mut e, who, line)));
            }
            e.advance_by(7_000);
            for (id, f) in served(&mut e) {
                log.push(format!("served {id} {f:?}"));
            }
        }
        (log, e.trace().events().cloned().collect::<Vec<_>>())
    };
    let (log1, trace1) = run();
    let (log2, trace2) = run();
    assert!(log1.iter().filter(|l| l.starts_with("served")).count() > 20);
    assert_eq!(log1, log2);
    assert_eq!(trace1, trace2);
}

/// Redis 7.2 serves a waiter by running its command again, so a BLPOP on
/// two keys woken by the second takes from the first if that one got data
/// too (both made in one transaction). Redis 7.0 served it from the key
/// that woke it (`[k2, b]`): here the reference differs, and redsim gives
/// 7.2's answer (checked against a 7.2-derived server).
#[test]
fn served_commands_run_again_as_in_7_2() {
    let mut b = Differ::start(2, &[]);
    b.script(
        "0 block BLPOP k1 k2 0
         1 MULTI
         1 RPUSH k2 b
         1 RPUSH k1 a
         1 EXEC",
    );
    let redis_7_0 = b.redis[0].read_frame().expect("redis replies");
    assert_eq!(
        redis_7_0,
        bulks(&["k2", "b"]),
        "7.0 serves the key that woke it"
    );
    assert_eq!(
        b.sim[0].read_frame().expect("redsim replies"),
        bulks(&["k1", "a"])
    );
    // Keys given twice are waited on once.
    b.send(0, "DEL k1 k2");
    b.redis[0].read_frame();
    b.sim[0].read_frame();
    b.script(
        r#"
        0 block BLPOP q q 0
        1 RPUSH q x y
        0 recv -> ["q", "x"]
        1 LRANGE q 0 -1 -> ["y"]
        "#,
    );
}
