//! MIGRATE against a real redis-server: argument errors, NOKEY, an unreachable target, the target's errors passed on, and keys moved (TTL kept, COPY, REPLACE, KEYS) to a redsim target from Redis and from redsim alike; a 7.0 target refusing 7.2's payload version.

use redsim_engine::proto::resp::Frame;
use redsim_tests::{free_port, parse, Pair, RedisServer, RedsimServer};

#[test]
fn argument_errors_nokey_and_an_unreachable_target() {
    let mut p = Pair::start(&[]);
    let dead = free_port();
    p.corpus(&format!(
        r#"
        SET k v
        MIGRATE 127.0.0.1 {dead} k 0 100 AUTH
        MIGRATE 127.0.0.1 {dead} k 0 100 AUTH2 u
        MIGRATE 127.0.0.1 {dead} k 0 100 NOPE
        MIGRATE 127.0.0.1 {dead} k 0 100 KEYS a
        MIGRATE 127.0.0.1 {dead} k 0 x
        MIGRATE 127.0.0.1 {dead} k x 100
        MIGRATE 127.0.0.1 {dead} missing 0 100
        MIGRATE 127.0.0.1 {dead} "" 0 100 KEYS missing other
        MIGRATE 127.0.0.1 {dead} "" 0 100 KEYS
        MIGRATE 127.0.0.1 {dead} k 0 100
        MIGRATE 127.0.0.1 {dead} k 0 -5 COPY REPLACE
        GET k
        "#
    ));
}

/// Runs `line` with `{T}` replaced by each side's own target port and
/// asserts both sources reply alike; returns Redis' reply.
fn both(p: &mut Pair, targets: (u16, u16), line: &str) -> Frame {
    let r = p
        .redis
        .cmd_args(&parse(&line.replace("{T}", &targets.0.to_string())));
    let s = p
        .sim
        .cmd_args(&parse(&line.replace("{T}", &targets.1.to_string())));
    assert_eq!(r, s, "{line}");
    r
}

#[test]
fn keys_move_to_a_redsim_target_from_redis_and_from_redsim() {
    let mut p = Pair::start(&[]);
    let (tr, ts) = (RedsimServer::start(&[]), RedsimServer::start(&[]));
    let (mut cr, mut cs) = (tr.conn(), ts.conn());
    let t = (tr.port, ts.port);
    let on_targets = |cr: &mut redsim_tests::Conn, cs: &mut redsim_tests::Conn, args: &[&str]| {
        let (a, b) = (cr.cmd(args), cs.cmd(args));
        assert_eq!(a, b, "{args:?} on the targets");
        a
    };
    p.check("RPUSH l a b c");
    p.check("SET s v PX 50000");
    p.check("HSET h f v");
    let dirty = |p: &mut Pair| {
        (
            redsim_tests::info_int(&mut p.redis, "persistence", "rdb_changes_since_last_save"),
            redsim_tests::info_int(&mut p.sim, "persistence", "rdb_changes_since_last_save"),
        )
    };
    let before = dirty(&mut p);
    assert_eq!(
        both(&mut p, t, "MIGRATE 127.0.0.1 {T} l 0 1000"),
        Frame::ok()
    );
    let after = dirty(&mut p);
    assert_eq!(
        (
            after.0.unwrap() - before.0.unwrap(),
            after.1.unwrap() - before.1.unwrap()
        ),
        (1, 1),
        "a migrated key counts one change"
    );
    p.check("EXISTS l");
    on_targets(&mut cr, &mut cs, &["LRANGE", "l", "0", "-1"]);
    // The TTL travels (within a second of what is left).
    assert_eq!(
        both(&mut p, t, "MIGRATE 127.0.0.1 {T} s 3 1000 COPY"),
        Frame::ok()
    );
    p.check("EXISTS s");
    for c in [&mut cr, &mut cs] {
        c.cmd(&["SELECT", "3"]);
        match c.cmd(&["PTTL", "s"]) {
            Frame::Integer(ms) => assert!((45_000..=50_000).contains(&ms), "ttl {ms}"),
            other => panic!("{other:?}"),
        }
    }
    // The same key again: BUSYKEY from the target, then REPLACE.
    p.check("SET s w");
    both(&mut p, t, "MIGRATE 127.0.0.1 {T} s 3 1000 COPY");
    assert_eq!(
        both(&mut p, t, "MIGRATE 127.0.0.1 {T} s 3 1000 REPLACE"),
        Frame::ok()
    );
    on_targets(&mut cr, &mut cs, &["GET", "s"]);
    on_targets(&mut cr, &mut cs, &["PTTL", "s"]);
    // Several keys, some missing; the target's database is remembered.
    p.check("MSET a 1 b 2");
    assert_eq!(
        both(
            &mut p,
            t,
            "MIGRATE 127.0.0.1 {T} \"\" 3 1000 KEYS a nope b h"
        ),
        Frame::ok()
    );
    p.check("EXISTS a b h");
    on_targets(&mut cr, &mut cs, &["MGET", "a", "b"]);
    on_targets(&mut cr, &mut cs, &["HGETALL", "h"]);
    // The target's own errors, passed on.
    p.check("SET e 1");
    both(&mut p, t, "MIGRATE 127.0.0.1 {T} e 99 1000");
    both(&mut p, t, "MIGRATE 127.0.0.1 {T} e 0 1000 AUTH nopass");
    both(&mut p, t, "MIGRATE 127.0.0.1 {T} e 0 1000 AUTH2 u p");
    p.check("GET e");
    cr.cmd(&["SELECT", "0"]);
    cs.cmd(&["SELECT", "0"]);
    // A failed AUTH does not stop the RESTORE behind it on a target
    // without a password: the key is there, although MIGRATE failed.
    cr.cmd(&["SELECT", "0"]);
    cs.cmd(&["SELECT", "0"]);
    on_targets(&mut cr, &mut cs, &["EXISTS", "e"]);
    on_targets(&mut cr, &mut cs, &["CONFIG", "SET", "requirepass", "pw"]);
    both(&mut p, t, "MIGRATE 127.0.0.1 {T} e 0 1000 AUTH pw");
    assert_eq!(
        both(&mut p, t, "MIGRATE 127.0.0.1 {T} e 0 1000 REPLACE AUTH pw"),
        Frame::ok()
    );
    p.check("EXISTS e");
}

#[test]
fn a_7_0_target_refuses_7_2_payloads_but_its_errors_come_through() {
    let mut p = Pair::start(&[]);
    let target = RedisServer::start(&[]);
    let port = target.port;
    p.check("SET k v");
    let line = |rest: &str| format!("MIGRATE 127.0.0.1 {port} k {rest}");
    p.check(&line("99 1000"));
    p.check(&line("0 1000 AUTH nopass"));
    p.check("GET k");
    if p.redis_is_7_0() {
        // RDB version 11 is newer than 7.0 reads: what 7.2 gets from 7.0 too.
        p.sim.cmd(&["SET", "k2", "v"]);
        let line = format!("MIGRATE 127.0.0.1 {port} k2 0 1000");
        assert_eq!(
            p.sim.cmd_args(&parse(&line)),
            Frame::err(
                "ERR Target instance replied with error: ERR DUMP payload version or checksum are wrong"
            )
        );
        assert_eq!(p.sim.cmd(&["GET", "k2"]), Frame::bulk("v"));
    }
}
