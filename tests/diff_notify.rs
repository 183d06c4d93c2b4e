//! Differential tests of keyspace notifications against a real redis-server: `notify-keyspace-events` read and shown, and for every command family the exact messages a `PSUBSCRIBE __key*__:*` subscriber reads after each command, under several class sets; expiry (lazy and active), eviction, key misses, MULTI, scripts, RESP3 subscribers and other databases.
//!
//! The reference is Debian's redis-server 7.0.15. Where 7.2 emits other
//! events (XCLAIM creates its consumer before claiming anything, 7.0 only
//! when something is claimed), the corpus avoids the difference.

use std::time::Duration;

use redsim_tests::{encode_request, info_int, Conn, Differ, Frame};

/// The pattern every test's subscriber listens to: both kinds of channel.
const PATTERN: &str = "__key*__:*";

/// Everything the subscriber `conn` has been sent so far: it sends PING
/// (in the subscribed context, answered `["pong", ""]`) and reads up to
/// the answer. The command was answered before, so its messages are
/// already on their way ahead of the PING's reply.
fn drain(conn: &mut Conn) -> Vec<Frame> {
    conn.send_raw(&encode_request(&[b"PING"]));
    let pong = Frame::Array(vec![Frame::bulk("pong"), Frame::bulk("")]);
    let mut out = Vec::new();
    loop {
        let f = conn.read_frame().expect("the subscriber reads");
        if f == pong {
            return out;
        }
        out.push(f);
    }
}

/// Messages as `channel payload` lines, for readable failures.
fn text(frames: &[Frame]) -> Vec<String> {
    frames
        .iter()
        .map(|f| match f {
            Frame::Array(items) | Frame::Push(items) => items
                .iter()
                .skip(2)
                .map(|i| match i {
                    Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
                .join(" "),
            other => format!("{other:?}"),
        })
        .collect()
}

/// Connection 0 runs commands, connection 1 is subscribed to [`PATTERN`].
fn start(extra: &[&str]) -> Differ {
    let mut d = Differ::start(3, extra);
    d.check(1, &format!("PSUBSCRIBE {PATTERN}"));
    d
}

/// Sets the classes, then runs each line on connection 0 and compares the
/// subscriber's messages after it. Returns how many messages were read,
/// so a test can insist that its corpus raised events at all.
fn run(d: &mut Differ, flags: &str, lines: &str) -> usize {
    d.check(0, &format!("CONFIG SET notify-keyspace-events \"{flags}\""));
    let mut seen = 0;
    for line in lines.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(ms) = line.strip_prefix("sleep ") {
            std::thread::sleep(Duration::from_millis(ms.parse().expect("ms")));
            continue;
        }
        d.check(0, line);
        let want = drain(&mut d.redis[1]);
        let got = drain(&mut d.sim[1]);
        assert_eq!(
            text(&got),
            text(&want),
            "messages after `{line}` with classes {flags:?} (redsim left, redis right)"
        );
        assert_eq!(got, want);
        seen += want.len();
    }
    seen
}

/// The message `[pmessage, pattern, channel, payload]` as RESP2 reads it.
fn pmessage(channel: &str, payload: &str) -> Frame {
    Frame::Array(
        ["pmessage", PATTERN, channel, payload]
            .iter()
            .map(|s| Frame::bulk(*s))
            .collect(),
    )
}

#[test]
fn config_get_set_of_the_classes() {
    let mut d = Differ::start(1, &[]);
    for flags in [
        "KEA",
        "AKE",
        "",
        "K",
        "E",
        "Kx",
        "Eg$",
        "Em",
        "Ee",
        "KElshzxet",
        "gx$lshzxetdn",
        "AnKEm",
        "nK",
        "dE",
        "AKEmn",
        "g$lshzxetdKEmn",
        "KEAm",
        "$",
    ] {
        d.check(0, &format!("CONFIG SET notify-keyspace-events \"{flags}\""));
        d.check(0, "CONFIG GET notify-keyspace-events");
    }
    for bad in ["KEQ", "a", "k", "KE A", "1"] {
        d.check(0, &format!("CONFIG SET notify-keyspace-events \"{bad}\""));
        d.check(0, "CONFIG GET notify-keyspace-events");
    }
    d.check(0, "CONFIG SET notify-keyspace-events");
    d.check(
        0,
        "CONFIG SET notify-keyspace-events KEA maxmemory-samples 0",
    );
    d.check(0, "CONFIG GET notify-keyspace-events");
    // The canonical form, spelled out: `A` first, then K, E, m.
    d.check(0, "CONFIG SET notify-keyspace-events KEA");
    assert_eq!(
        d.check(0, "CONFIG GET notify-keyspace-events"),
        Frame::Array(vec![
            Frame::bulk("notify-keyspace-events"),
            Frame::bulk("AKE")
        ])
    );
}

#[test]
fn both_channels_carry_what_redis_sends() {
    let mut d = start(&[]);
    run(&mut d, "KEA", "SET k v");
    // Spelled out once, so the comparison cannot pass on two empty streams.
    d.check(0, "SET k w");
    let got = drain(&mut d.sim[1]);
    assert_eq!(
        got,
        vec![
            pmessage("__keyspace@0__:k", "set"),
            pmessage("__keyevent@0__:set", "k")
        ]
    );
    drain(&mut d.redis[1]);
    assert!(run(&mut d, "K$", "SET k v\nDEL k\nSET k v") == 2);
    assert!(run(&mut d, "Eg", "SET k v\nDEL k\nSET k v\nEXPIRE k 100") == 2);
    assert_eq!(run(&mut d, "", "SET k v\nDEL k"), 0);
    assert_eq!(run(&mut d, "A", "SET k v\nDEL k"), 0, "no channel class");
    assert_eq!(run(&mut d, "KE", "SET k v\nDEL k"), 0, "no event class");
}

#[test]
fn string_events() {
    let mut d = start(&[]);
    let corpus = r#"
        SET s v
        SET s v2 EX 100
        SET s v3 PX 100000 GET
        SET missing v NX GET
        SET s v4 XX KEEPTTL
        SET s v5 NX
        SETNX s v
        SETNX s2 v
        SETEX s3 100 v
        PSETEX s4 100000 v
        GETSET s new
        GETSET fresh new
        MSET a 1 b 2 a 3
        MSETNX a 1 c 3
        MSETNX c 1 d 2
        INCR n
        INCRBY n 10
        DECR n
        DECRBY n 3
        INCR s
        INCRBYFLOAT f 1.5
        INCRBYFLOAT f 2
        APPEND ap hello
        APPEND ap world
        SETRANGE sr 5 x
        SETRANGE sr 0 ab
        SETRANGE sr 1 ""
        SETRANGE none 3 ""
        GETDEL ap
        GETDEL ap
        GETEX sr EX 100
        GETEX sr PERSIST
        GETEX sr PERSIST
        GETEX sr
        GETEX sr PXAT 1
        GET s
        SETBIT bits 7 1
        SETBIT bits 7 1
        SETBIT bits 100 0
        BITFIELD bf SET u8 0 255 GET u8 0
        BITFIELD bf SET u8 0 255
        BITFIELD bf INCRBY u8 0 10 OVERFLOW FAIL INCRBY u8 0 1000
        BITFIELD_RO bf GET u8 0
        BITOP OR dest bits bf
        BITOP AND dest nothing none
        BITOP AND dest nothing none
        PFADD h a b c
        PFADD h a
        PFADD h2
        PFMERGE hm h h2
        PFMERGE hm2
        PFCOUNT h
    "#;
    assert!(run(&mut d, "KEA", corpus) > 60);
    d.check(0, "FLUSHALL");
    run(&mut d, "E$", corpus);
    d.check(0, "FLUSHALL");
    run(&mut d, "Kg", corpus);
}

#[test]
fn generic_events() {
    let mut d = start(&[]);
    let corpus = r#"
        SET a 1
        SET b 2
        DEL a b nope
        UNLINK b
        SET a 1
        UNLINK a
        SET src v
        SET dst w
        RENAME src dst
        RENAME dst dst
        RENAME nope x
        SET x 1
        RENAMENX dst x
        RENAMENX dst y
        SET e 1 EX 100
        RENAME e e2
        MOVE e2 1
        SET e2 here
        MOVE e2 1
        MOVE nope 1
        COPY y ycopy
        COPY y ycopy
        COPY y ycopy REPLACE
        COPY y ycopy DB 2
        COPY nope z
        EXPIRE y 100
        PEXPIRE y 100000 NX
        EXPIRE y 100 XX
        EXPIREAT y 1
        EXPIRE nope 10
        SET p 1 EX 100
        PERSIST p
        PERSIST p
        PEXPIRE p -1
        RPUSH l 3 1 2
        SORT l STORE sorted
        SORT l STORE sorted
        SORT nope STORE sorted
        SORT nope STORE sorted
        SORT l BY nosort GET # STORE sorted2
        TOUCH l nope
        TYPE l
        SWAPDB 0 1
        SWAPDB 0 1
        FLUSHDB
    "#;
    assert!(run(&mut d, "KEA", corpus) > 40);
    d.check(0, "FLUSHALL");
    run(&mut d, "Egn", corpus);
    d.check(0, "FLUSHALL");
    run(&mut d, "Kn", corpus);
}

#[test]
fn list_events() {
    let mut d = start(&[]);
    let corpus = r#"
        LPUSH l a b c
        RPUSH l d e
        LPUSHX nope x
        RPUSHX l f
        LINSERT l BEFORE c x
        LINSERT l AFTER zz x
        LINSERT nope AFTER a x
        LSET l 0 first
        LSET l 100 x
        LPOP l
        RPOP l 2
        LPOP nope
        LPOP l 0
        LREM l 0 x
        LREM l 0 never
        LTRIM l 0 1
        LTRIM l 0 -1
        LMOVE l other LEFT RIGHT
        LMOVE other l RIGHT LEFT
        RPOPLPUSH l l
        LMOVE l l LEFT LEFT
        LMPOP 2 nope l LEFT COUNT 10
        RPUSH m 1 2 3
        LTRIM m 5 10
        RPUSH m 1
        LREM m 1 1
        RPUSH q 1 2
        BLPOP q 0
        BRPOP q 0
        BLMOVE nope q LEFT LEFT 0.01
        RPUSH q 1
        BLMOVE q q2 LEFT RIGHT 0
        BLMPOP 0 1 q2 RIGHT
        LRANGE q2 0 -1
        LLEN l
    "#;
    assert!(run(&mut d, "KEA", corpus) > 40);
    d.check(0, "FLUSHALL");
    run(&mut d, "Elgn", corpus);
}

#[test]
fn blocked_pops_raise_their_events_when_served() {
    let mut d = start(&[]);
    d.check(0, "CONFIG SET notify-keyspace-events KEA");
    let scenarios = [
        ("BLPOP bl 0", "LPUSH bl a"),
        ("BRPOPLPUSH bl blto 0", "RPUSH bl a b"),
        ("BLMOVE bl blto RIGHT LEFT 0", "LPUSH bl a"),
        ("BLMPOP 0 2 x bl LEFT COUNT 5", "RPUSH bl a b"),
        ("BZPOPMIN bz 0", "ZADD bz 1 a 2 b"),
        ("BZMPOP 0 1 bz MAX", "ZADD bz 1 a"),
    ];
    for (block, wake) in scenarios {
        d.block(2, block);
        d.check(0, wake);
        d.recv(2);
        let want = drain(&mut d.redis[1]);
        let got = drain(&mut d.sim[1]);
        assert!(!want.is_empty());
        assert_eq!(got, want, "after `{wake}` served `{block}`");
        d.check(0, "FLUSHALL");
    }
}

#[test]
fn hash_set_zset_events() {
    let mut d = start(&[]);
    let corpus = r#"
        HSET h a 1 b 2
        HSET h a 1
        HMSET h c 3
        HSETNX h a 9
        HSETNX h z 9
        HINCRBY h n 5
        HINCRBYFLOAT h f 1.5
        HINCRBY h a x
        HDEL h a nope
        HDEL h nope
        HDEL h b c z n f
        HGET h a
        SADD s a b c
        SADD s a
        SREM s a nope
        SREM s nope
        SMOVE s t b
        SMOVE s t nope
        SMOVE s t c
        SADD u x
        SMOVE t u x
        SADD t x
        SMOVE t u x
        SADD p 1
        SPOP p
        SPOP p
        SADD p 1 2 3 4 5
        SPOP p 10
        SPOP p 0
        SRANDMEMBER u
        SADD s1 a b c
        SADD s2 b c d
        SINTERSTORE d1 s1 s2
        SINTERSTORE d1 s1 nope
        SINTERSTORE d1 s1 nope
        SUNIONSTORE d2 s1 s2
        SDIFFSTORE d3 s1 s2
        SDIFFSTORE d3 s1 s1
        SUNIONSTORE d4 nope
        ZADD z 1 a 2 b 3 c
        ZADD z 1 a
        ZADD z XX 5 a
        ZADD z NX 5 a
        ZADD z CH 6 a
        ZINCRBY z 2 b
        ZADD z INCR 1 c
        ZADD z GT 0 a
        ZREM z a nope
        ZREM z nope
        ZADD z 1 a 2 d 3 e 4 f
        ZREMRANGEBYSCORE z 1 2
        ZREMRANGEBYRANK z 0 0
        ZREMRANGEBYLEX z - [a
        ZADD lex 0 a 0 b 0 c
        ZREMRANGEBYLEX lex [a [b
        ZPOPMIN z
        ZPOPMAX z 2
        ZPOPMAX z 0
        ZADD z 1 a 2 b 3 c
        ZMPOP 1 z MIN COUNT 10
        ZADD z1 1 a 2 b
        ZADD z2 2 b 3 c
        ZUNIONSTORE zd z1 z2
        ZINTERSTORE zd z1 z2
        ZDIFFSTORE zd 1 z1
        ZDIFFSTORE zd 2 z1 z1
        ZINTERSTORE zd 2 z1 nope
        ZRANGESTORE zr z1 0 -1
        ZRANGESTORE zr z1 5 10
        ZRANGESTORE zr nope 0 -1
        ZRANGESTORE zr z1 0 0
        GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
        GEOADD g 13.361389 38.115556 Palermo
        GEORADIUS g 15 37 200 km STORE gs
        GEOSEARCHSTORE gs2 g FROMLONLAT 15 37 BYRADIUS 200 km
        GEOSEARCHSTORE gs2 g FROMLONLAT 15 37 BYRADIUS 1 m
        GEOSEARCHSTORE gs2 nope FROMLONLAT 15 37 BYRADIUS 1 m
    "#;
    assert!(run(&mut d, "KEA", corpus) > 100);
    d.check(0, "FLUSHALL");
    run(&mut d, "Ehszn", corpus);
    d.check(0, "FLUSHALL");
    run(&mut d, "Kg", corpus);
}

#[test]
fn stream_events() {
    let mut d = start(&[]);
    let corpus = r#"
        XADD st 1-1 a 1
        XADD st 2-1 b 2
        XADD st MAXLEN 1 3-1 c 3
        XADD st MAXLEN 5 4-1 c 3
        XADD st NOMKSTREAM 5-1 d 4
        XADD nope NOMKSTREAM 5-1 d 4
        XADD st 1-1 e 5
        XTRIM st MAXLEN 1
        XTRIM st MAXLEN 1
        XTRIM nope MAXLEN 1
        XADD st 6-1 f 6
        XDEL st 6-1 99-1
        XDEL st 99-1
        XSETID st 10-1
        XGROUP CREATE st g 0
        XGROUP CREATE st g 0
        XGROUP CREATE st2 g $ MKSTREAM
        XGROUP SETID st g 0
        XGROUP CREATECONSUMER st g alice
        XGROUP CREATECONSUMER st g alice
        XADD st 11-1 g 7
        XREADGROUP GROUP g bob COUNT 10 STREAMS st >
        XREADGROUP GROUP g bob COUNT 10 STREAMS st >
        XREADGROUP GROUP g carol STREAMS st st2 0 0
        XCLAIM st g dave 0 11-1
        XAUTOCLAIM st g erin 0 0-0
        XACK st g 11-1
        XGROUP DELCONSUMER st g alice
        XGROUP DELCONSUMER st g nobody
        XGROUP DESTROY st g
        XGROUP DESTROY st g
        XLEN st
    "#;
    assert!(run(&mut d, "KEA", corpus) > 30);
    d.check(0, "FLUSHALL");
    run(&mut d, "Etn", corpus);
    // 7.2 creates an XREADGROUP consumer even when nothing is served
    // (7.0 only when something is): checked on redsim alone.
    let sim = &mut d.sim[0];
    sim.cmd(&["CONFIG", "SET", "notify-keyspace-events", "Et"]);
    sim.cmd(&["XGROUP", "CREATE", "empty", "g", "$", "MKSTREAM"]);
    drain(&mut d.sim[1]);
    let r = d.sim[0].cmd(&["XREADGROUP", "GROUP", "g", "frank", "STREAMS", "empty", ">"]);
    assert_eq!(r, Frame::NullArray);
    assert_eq!(
        text(&drain(&mut d.sim[1])),
        ["__keyevent@0__:xgroup-createconsumer empty"]
    );
}

#[test]
fn key_miss_events() {
    let mut d = start(&[]);
    let corpus = r#"
        GET nope
        SET s v
        GET s
        MGET s nope nope2
        HGET nope f
        LRANGE nope 0 -1
        SMEMBERS nope
        ZRANGE nope 0 -1
        XRANGE nope - +
        EXISTS nope s
        TYPE nope
        TTL nope
        STRLEN nope
        GETRANGE nope 0 1
        OBJECT ENCODING nope
        COPY nope x
        SET k v GET
        DEL nope
        INCR counter
        LPUSH nope2 a
        SINTER s1 nope
        SORT nope
        PFCOUNT nope
        TOUCH nope
    "#;
    assert!(run(&mut d, "Em", corpus) > 10);
    run(&mut d, "Km", corpus);
    run(&mut d, "KEA", corpus);
    run(&mut d, "AKEm", corpus);
}

#[test]
fn expired_events_lazy_and_active() {
    let mut d = start(&["--enable-debug-command", "yes"]);
    d.check(0, "DEBUG SET-ACTIVE-EXPIRE 0");
    let lazy = r#"
        SET a 1 PX 30
        SET b 1 PX 30
        HSET h f v
        PEXPIRE h 30
        sleep 80
        GET a
        EXISTS b
        HGET h f
        GET a
    "#;
    assert!(run(&mut d, "Ex", lazy) >= 3);
    d.check(0, "FLUSHALL");
    run(&mut d, "KEA", lazy);
    d.check(0, "FLUSHALL");
    run(&mut d, "Exm", lazy);
    d.check(0, "FLUSHALL");
    // A write meets the expired key first: `expired`, then its own events.
    run(
        &mut d,
        "KEAn",
        "SET w 1 PX 30\nsleep 80\nSET w 2\nSET v 1 PX 30\nsleep 80\nLPUSH v a\nSET u 1 PX 30\nsleep 80\nDEL u",
    );
    // Active expiry: one key, so the cycle's sampling order cannot differ.
    d.check(0, "FLUSHALL");
    d.check(0, "DEBUG SET-ACTIVE-EXPIRE 1");
    d.check(0, "CONFIG SET notify-keyspace-events KEA");
    d.check(0, "SET gone 1 PX 20");
    drain(&mut d.redis[1]);
    drain(&mut d.sim[1]);
    std::thread::sleep(Duration::from_millis(400));
    for side in 0..2 {
        let conn = if side == 0 {
            &mut d.redis[0]
        } else {
            &mut d.sim[0]
        };
        assert_eq!(conn.cmd(&["DBSIZE"]), Frame::Integer(0), "side {side}");
    }
    let want = drain(&mut d.redis[1]);
    let got = drain(&mut d.sim[1]);
    assert_eq!(
        want,
        vec![
            pmessage("__keyspace@0__:gone", "expired"),
            pmessage("__keyevent@0__:expired", "gone")
        ]
    );
    assert_eq!(got, want);
}

#[test]
fn evicted_events() {
    let mut d = start(&[]);
    d.check(0, "CONFIG SET notify-keyspace-events Ee");
    d.check(0, "CONFIG SET maxmemory-policy volatile-lru");
    d.check(0, "SET keep 1");
    let big = "x".repeat(200_000);
    for side in 0..2 {
        let conn = if side == 0 {
            &mut d.redis[0]
        } else {
            &mut d.sim[0]
        };
        conn.cmd(&["SET", "victim", &big, "EX", "1000"]);
        // Each server's own figure: the limit falls between the memory
        // with and without the big value.
        let used = info_int(conn, "memory", "used_memory").expect("used_memory");
        let limit = (used - 100_000).to_string();
        assert_eq!(
            conn.cmd(&["CONFIG", "SET", "maxmemory", &limit]),
            Frame::ok()
        );
    }
    d.check(0, "GET keep");
    let want = drain(&mut d.redis[1]);
    let got = drain(&mut d.sim[1]);
    assert_eq!(want, vec![pmessage("__keyevent@0__:evicted", "victim")]);
    assert_eq!(got, want);
    d.check(0, "CONFIG SET maxmemory 0");
}

#[test]
fn transactions_scripts_databases_and_resp3() {
    let mut d = start(&[]);
    let corpus = r##"
        MULTI
        SET a 1
        LPUSH l x
        DEL a
        INCR a
        EXEC
        EVAL "redis.call('set', KEYS[1], '1'); redis.call('expire', KEYS[1], 100); return redis.call('del', KEYS[1])" 1 sk
        FUNCTION LOAD "#!lua name=lib\nredis.register_function('f', function(keys) redis.call('rpush', keys[1], 'a'); return redis.call('lpop', keys[1]) end)"
        FCALL f 1 fk
        SELECT 3
        SET a 1
        HSET h f v
        MOVE a 0
        COPY h h2 DB 5
        SELECT 0
        SWAPDB 0 3
    "##;
    assert!(run(&mut d, "KEA", corpus) > 15);
    // A RESP3 client subscribed to its own events gets the reply, then
    // the pushes (7.2 holds them until after the reply, 7.0 does not:
    // compared with what 7.2 does, spelled out).
    for side in 0..2 {
        let conn = if side == 0 {
            &mut d.redis[2]
        } else {
            &mut d.sim[2]
        };
        conn.cmd(&["HELLO", "3"]);
        conn.cmd(&["SUBSCRIBE", "__keyevent@0__:set"]);
    }
    let sim = &mut d.sim[2];
    assert_eq!(sim.cmd(&["SET", "r3", "v"]), Frame::ok());
    assert_eq!(
        sim.read_frame(),
        Some(Frame::Push(vec![
            Frame::bulk("message"),
            Frame::bulk("__keyevent@0__:set"),
            Frame::bulk("r3")
        ]))
    );
    // Another client's write reaches the RESP3 subscriber as a push.
    d.check(0, "SET r3 w");
    d.recv(2);
    drain(&mut d.redis[1]);
    drain(&mut d.sim[1]);
}

#[test]
fn client_reply_off_silences_replies_not_messages() {
    let mut d = start(&[]);
    d.check(0, "CONFIG SET notify-keyspace-events KEA");
    d.check(0, "CLIENT REPLY maybe");
    // SKIP drops its own reply and the next one.
    d.send(0, "CLIENT REPLY SKIP");
    d.send(0, "SET a 1");
    assert_eq!(d.check(0, "GET a"), Frame::bulk("1"));
    // OFF drops every reply until ON, errors included.
    d.send(0, "CLIENT REPLY OFF");
    d.send(0, "SET a 2");
    d.send(0, "INCR a x");
    d.send(0, "CLIENT REPLY SKIP");
    d.send(0, "GET a");
    assert_eq!(d.check(0, "CLIENT REPLY ON"), Frame::ok());
    assert_eq!(d.check(0, "GET a"), Frame::bulk("2"));
    // A silenced subscriber still gets its confirmations and messages:
    // 7.2 sends Pub/Sub frames whatever CLIENT REPLY says (7.0 dropped
    // them too), checked on redsim alone.
    let sub = &mut d.sim[2];
    sub.send_raw(&encode_request(&[&b"CLIENT"[..], b"REPLY", b"OFF"]));
    sub.send_raw(&encode_request(&[&b"PSUBSCRIBE"[..], b"__keyevent@0__:*"]));
    assert_eq!(
        sub.read_frame(),
        Some(Frame::Array(vec![
            Frame::bulk("psubscribe"),
            Frame::bulk("__keyevent@0__:*"),
            Frame::Integer(1)
        ]))
    );
    d.check(0, "SET b 1");
    assert_eq!(
        text(&[d.sim[2].read_frame().expect("a message")]),
        ["__keyevent@0__:set b"],
        "the message reaches the silenced client"
    );
    drain(&mut d.redis[1]);
    drain(&mut d.sim[1]);
}
