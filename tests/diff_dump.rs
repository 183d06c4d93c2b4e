//! Differential tests of DUMP and RESTORE against a real redis-server: payload bodies byte for byte where 7.0 and 7.2 encode alike, Redis' payloads restored into redsim, every RESTORE error, and REPLACE/ABSTTL/IDLETIME/FREQ.
//!
//! The reference server is 7.0 (RDB version 10, no set listpacks, streams
//! without consumer active times), so bodies are compared without their
//! 10-byte footer, and values whose encoding changed in 7.2 are compared
//! by what they hold after a round trip.

use redsim_engine::persist::payload::crc64;
use redsim_tests::{args, Frame, Pair};

fn bulk(f: &Frame) -> Vec<u8> {
    match f {
        Frame::Bulk(b) => b.clone(),
        other => panic!("expected a bulk reply, got {other:?}"),
    }
}

/// A payload's body: everything before the version and the CRC.
fn body(f: &Frame) -> Vec<u8> {
    let b = bulk(f);
    b[..b.len() - 10].to_vec()
}

/// `body` sealed as an RDB 10 payload, which both servers accept.
fn seal10(body: &[u8]) -> Vec<u8> {
    let mut out = body.to_vec();
    out.extend_from_slice(&10u16.to_le_bytes());
    let crc = crc64(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// DUMP `key` on both: equal bodies, and redsim's footer is version 11 with a right CRC.
fn same_body(p: &mut Pair, key: &str) -> Vec<u8> {
    let (want, got) = p.both_args(&args(&["DUMP", key]));
    let got_all = bulk(&got);
    let n = got_all.len();
    assert_eq!(&got_all[n - 10..n - 8], &[11, 0], "{key}: RDB version 11");
    assert_eq!(
        crc64(&got_all[..n - 8]).to_le_bytes(),
        got_all[n - 8..],
        "{key}: CRC64"
    );
    assert_eq!(body(&want), body(&got), "{key}: payload body");
    body(&got)
}

/// Restores Redis' payload of `key` into redsim under `key` (replacing it)
/// and checks every `reads` command answers alike on both afterwards.
fn restore_from_redis(p: &mut Pair, key: &str, reads: &[&str]) {
    let payload = bulk(&p.redis.cmd_args(&args(&["DUMP", key])));
    for side in [&mut p.redis, &mut p.sim] {
        let r = side.cmd_bytes(&[b"RESTORE", key.as_bytes(), b"0", &payload, b"REPLACE"]);
        assert_eq!(r, Frame::Simple("OK".into()), "RESTORE of {key}");
    }
    for line in reads {
        p.check(line);
    }
}

#[test]
fn strings_dump_as_redis_does() {
    let mut p = Pair::start(&[]);
    let incompressible: String = (0..120u32)
        .map(|i| char::from(b'!' + ((i * 7919 + 13) % 89) as u8))
        .collect();
    let mut cmds = vec![
        "SET i 12345".to_string(),
        "SET neg -7".to_string(),
        "SET i16 -30000".to_string(),
        "SET i32 2000000000".to_string(),
        "SET big 12345678901".to_string(),
        "SET huge -9223372036854775808".to_string(),
        "SET short hello".to_string(),
        "SET zeros 007".to_string(),
        "SET plus +5".to_string(),
        format!("SET comp {}", "abc".repeat(40)),
        format!("SET noisy {incompressible}"),
        format!("SET edge21 {}", "x".repeat(21)),
        format!("SET edge25 {}", "x".repeat(25)),
        "SET app 1".to_string(),
        "APPEND app 23".to_string(),
        format!("SET long {}", "0123456789".repeat(300)),
    ];
    cmds.push("SETRANGE long 5000 tail".to_string());
    for c in &cmds {
        let parts: Vec<&str> = c.split(' ').collect();
        p.check_args(&args(&parts));
    }
    for k in [
        "i", "neg", "i16", "i32", "big", "huge", "short", "zeros", "plus", "comp", "noisy",
        "edge21", "edge25", "app", "long",
    ] {
        same_body(&mut p, k);
    }
    p.check("DUMP nosuchkey");
    p.check("SET empty \"\"");
    same_body(&mut p, "empty");
    // An integer under 32 bits is written in its special encoding.
    assert_eq!(same_body(&mut p, "i"), vec![0, 0xc1, 0x39, 0x30]);
    // Restored strings keep Redis' encodings.
    for k in ["i", "comp", "noisy", "short", "long"] {
        restore_from_redis(
            &mut p,
            k,
            &[&format!("GET {k}"), &format!("OBJECT ENCODING {k}")],
        );
    }
}

#[test]
fn lists_hashes_zsets_and_intsets_dump_as_redis_does() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        RPUSH l a 1 -2 300 70000 5000000000 hello
        RPUSH nums 1 2 3
        HSET h f1 v1 f2 2 f3 -100
        ZADD z 1 a 2.5 b -3 c 1e100 d inf e
        SADD ints 1 2 3 -5 100000
        SADD wide 1 5000000000
        SREM wide 5000000000
        ",
    );
    for k in ["l", "nums", "h", "z", "ints", "wide"] {
        same_body(&mut p, k);
    }
    // A quicklist of several nodes, compressed listpacks included.
    let mut rpush = vec!["RPUSH".to_string(), "big".to_string()];
    rpush.extend((0..3000).map(|i| format!("element-{}", i % 97)));
    let a: Vec<&str> = rpush.iter().map(String::as_str).collect();
    p.check_args(&args(&a));
    same_body(&mut p, "big");
    // A skiplist, written from the highest score down.
    let mut zadd = vec!["ZADD".to_string(), "zbig".to_string()];
    for i in 0..200 {
        zadd.push(format!("{}", (i * 37) % 101));
        zadd.push(format!("member:{i}"));
    }
    let a: Vec<&str> = zadd.iter().map(String::as_str).collect();
    p.check_args(&args(&a));
    p.check("OBJECT ENCODING zbig");
    same_body(&mut p, "zbig");
    p.check("ZADD zlong 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    same_body(&mut p, "zlong");
    // A big listpack hash, LZF-compressed in the payload.
    let mut hset = vec!["HSET".to_string(), "hbig".to_string()];
    for i in 0..100 {
        hset.push(format!("field{i}"));
        hset.push(format!("value{}", i * 3));
    }
    let a: Vec<&str> = hset.iter().map(String::as_str).collect();
    p.check_args(&args(&a));
    same_body(&mut p, "hbig");
    for (k, reads) in [
        (
            "big",
            vec!["LRANGE big 0 -1", "OBJECT ENCODING big", "LLEN big"],
        ),
        ("l", vec!["LRANGE l 0 -1"]),
        (
            "zbig",
            vec!["ZRANGE zbig 0 -1 WITHSCORES", "OBJECT ENCODING zbig"],
        ),
        ("z", vec!["ZRANGE z 0 -1 WITHSCORES", "OBJECT ENCODING z"]),
        ("h", vec!["HGETALL h", "OBJECT ENCODING h"]),
        ("ints", vec!["SMEMBERS ints", "OBJECT ENCODING ints"]),
    ] {
        restore_from_redis(&mut p, k, &reads);
    }
    // 7.0 keeps every list a quicklist; 7.2 makes a small one a listpack.
    assert_eq!(
        p.sim_only("OBJECT ENCODING l"),
        Frame::Bulk(b"listpack".to_vec())
    );
    // After the round trip redsim's DUMP still equals Redis'.
    for k in ["big", "zbig", "l", "h", "ints"] {
        same_body(&mut p, k);
    }
}

/// Tables' order follows each process's hash seed, and 7.0 has no set
/// listpacks: these are compared by content after restoring Redis' payload.
#[test]
fn hashtables_and_string_sets_round_trip() {
    let mut p = Pair::start(&[]);
    let mut hset = vec!["HSET".to_string(), "ht".to_string()];
    let mut sadd = vec!["SADD".to_string(), "st".to_string()];
    for i in 0..300 {
        hset.push(format!("f{i}"));
        hset.push(format!("v{i}"));
        sadd.push(format!("m{i}"));
    }
    for c in [&hset, &sadd] {
        let a: Vec<&str> = c.iter().map(String::as_str).collect();
        p.check_args(&args(&a));
    }
    p.corpus(
        "
        SADD small a b c
        HSET hlong f xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
        SADD mixed 1 2 x
        ",
    );
    let sorted = |f: Frame| match f {
        Frame::Array(mut v) => {
            v.sort_by_key(|x| format!("{x:?}"));
            Frame::Array(v)
        }
        other => other,
    };
    for k in ["ht", "st", "small", "hlong", "mixed"] {
        let payload = bulk(&p.redis.cmd_args(&args(&["DUMP", k])));
        for side in [&mut p.redis, &mut p.sim] {
            let r = side.cmd_bytes(&[b"RESTORE", k.as_bytes(), b"0", &payload, b"REPLACE"]);
            assert_eq!(r, Frame::Simple("OK".into()));
        }
        p.check_args(&args(&["TYPE", k]));
    }
    for line in [
        "HGETALL ht",
        "SMEMBERS st",
        "SMEMBERS small",
        "HGETALL hlong",
        "SMEMBERS mixed",
    ] {
        let a = redsim_tests::parse(line);
        p.check_with(&a, sorted);
    }
    for line in [
        "OBJECT ENCODING ht",
        "OBJECT ENCODING st",
        "OBJECT ENCODING hlong",
        "HLEN ht",
        "SCARD st",
    ] {
        p.check(line);
    }
    // 7.2 keeps a small set of strings as a listpack (7.0 has a table).
    assert_eq!(
        p.sim_only("OBJECT ENCODING small"),
        Frame::Bulk(b"listpack".to_vec())
    );
    // redsim's own payloads restore into redsim to the same content (a
    // table's order is its insertion history's, so only a listpack's
    // payload comes back byte for byte).
    for k in ["ht", "st", "small"] {
        let payload = bulk(&p.sim.cmd_args(&args(&["DUMP", k])));
        let r = p
            .sim
            .cmd_bytes(&[b"RESTORE", b"copy", b"0", &payload, b"REPLACE"]);
        assert_eq!(r, Frame::Simple("OK".into()));
        let members = |p: &mut Pair, key: &str| {
            let cmd = if k == "ht" { "HGETALL" } else { "SMEMBERS" };
            sorted(p.sim.cmd_args(&args(&[cmd, key])))
        };
        assert_eq!(members(&mut p, "copy"), members(&mut p, k), "{k}");
        if k == "small" {
            assert_eq!(bulk(&p.sim.cmd_args(&args(&["DUMP", "copy"]))), payload);
        }
    }
}

#[test]
fn streams_restore_from_redis() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        XADD s 1-1 a 1 b 2
        XADD s 1-2 a 3 b 4
        XADD s 2-0 c 5
        XADD s 3-0 a 6 b 7
        XDEL s 1-2
        XGROUP CREATE s g1 0
        XGROUP CREATE s g2 $
        XREADGROUP GROUP g1 alice COUNT 2 STREAMS s >
        XREADGROUP GROUP g1 bob COUNT 1 STREAMS s >
        XACK s g1 1-1
        XGROUP CREATECONSUMER s g2 carol
        ",
    );
    let reads = [
        "XRANGE s - +",
        "XLEN s",
        "XPENDING s g1",
        "XINFO GROUPS s",
        "XADD s 5-0 z 1",
        "XLEN s",
    ];
    restore_from_redis(&mut p, "s", &reads);
    let mut many = vec!["XADD".to_string(), "long".to_string(), "*".to_string()];
    many.extend(["f", "v"].iter().map(|s| s.to_string()));
    for i in 0..250 {
        p.check(&format!(
            "XADD long {}-0 f{} {}",
            i + 1,
            i % 3,
            "v".repeat(i % 40)
        ));
    }
    p.check("XTRIM long MAXLEN 200");
    restore_from_redis(
        &mut p,
        "long",
        &["XRANGE long - +", "XINFO STREAM long", "XLEN long"],
    );
    // redsim's payload restores into redsim to the same stream.
    let payload = bulk(&p.sim.cmd_args(&args(&["DUMP", "long"])));
    p.sim.cmd_bytes(&[b"RESTORE", b"long2", b"0", &payload]);
    assert_eq!(
        p.sim.cmd_args(&args(&["XRANGE", "long2", "-", "+"])),
        p.sim.cmd_args(&args(&["XRANGE", "long", "-", "+"]))
    );
    assert_eq!(bulk(&p.sim.cmd_args(&args(&["DUMP", "long2"]))), payload);
}

#[test]
fn restore_errors() {
    let mut p = Pair::start(&[]);
    p.check("SET k v");
    let good = bulk(&p.redis.cmd_args(&args(&["DUMP", "k"])));
    let run = |p: &mut Pair, parts: &[&[u8]]| {
        let a: Vec<Vec<u8>> = parts.iter().map(|s| s.to_vec()).collect();
        p.check_args(&a);
    };
    run(&mut p, &[b"RESTORE", b"k", b"0", &good]);
    run(&mut p, &[b"RESTORE", b"n", b"-1", &good]);
    run(&mut p, &[b"RESTORE", b"n", b"abc", &good]);
    run(&mut p, &[b"RESTORE", b"n", b"0", b"bad_payload"]);
    run(&mut p, &[b"RESTORE", b"n", b"0", b""]);
    let mut flipped = good.clone();
    flipped[1] ^= 1;
    run(&mut p, &[b"RESTORE", b"n", b"0", &flipped]);
    let mut future = good.clone();
    let n = future.len();
    future[n - 10] = 12;
    run(&mut p, &[b"RESTORE", b"n", b"0", &future]);
    // A right footer over a body that is not a value (duplicates are
    // caught when payloads are sanitized, which redsim always does).
    p.check("CONFIG SET sanitize-dump-payload yes");
    for bad in [
        &[0x08u8, 1, 2][..],
        &[0x00, 0x85],
        &[0x12, 0x01, 0x02, 0x03, 1, 2, 3],
        &[0x02, 0x00],
        &[0x0b, 0x04, 2, 0, 0, 0],
        &[0x05, 0x01, 0x01, b'a', 0, 0, 0, 0, 0, 0, 0xf8, 0x7f],
        &[0x04, 0x02, 0x01, b'a', 0x01, b'b', 0x01, b'a', 0x01, b'c'],
        &[0x02, 0x02, 0x01, b'a', 0x01, b'a'],
    ] {
        run(&mut p, &[b"RESTORE", b"n", b"0", &seal10(bad)]);
    }
    p.check("EXISTS n");
    run(&mut p, &[b"RESTORE", b"n", b"0", &good, b"IDLETIME", b"-1"]);
    run(&mut p, &[b"RESTORE", b"n", b"0", &good, b"IDLETIME", b"x"]);
    run(&mut p, &[b"RESTORE", b"n", b"0", &good, b"FREQ", b"256"]);
    run(&mut p, &[b"RESTORE", b"n", b"0", &good, b"FREQ", b"-1"]);
    run(
        &mut p,
        &[
            b"RESTORE",
            b"n",
            b"0",
            &good,
            b"FREQ",
            b"1",
            b"IDLETIME",
            b"1",
        ],
    );
    run(
        &mut p,
        &[
            b"RESTORE",
            b"n",
            b"0",
            &good,
            b"IDLETIME",
            b"1",
            b"FREQ",
            b"1",
        ],
    );
    run(&mut p, &[b"RESTORE", b"n", b"0", &good, b"IDLETIME"]);
    run(&mut p, &[b"RESTORE", b"n", b"0", &good, b"BOGUS"]);
    run(&mut p, &[b"RESTORE", b"n", b"0"]);
    run(&mut p, &[b"DUMP"]);
    // Option errors come before BUSYKEY, BUSYKEY before the TTL check.
    run(&mut p, &[b"RESTORE", b"k", b"-1", &good, b"FREQ", b"300"]);
    run(&mut p, &[b"RESTORE", b"k", b"-1", &good]);
    run(&mut p, &[b"RESTORE", b"k", b"-1", b"junk", b"REPLACE"]);
    p.check("GET k");
}

#[test]
fn restore_options() {
    let mut p = Pair::start(&[]);
    p.check("RPUSH src a b c");
    let payload = bulk(&p.redis.cmd_args(&args(&["DUMP", "src"])));
    let run = |p: &mut Pair, parts: &[&[u8]]| {
        let a: Vec<Vec<u8>> = parts.iter().map(|s| s.to_vec()).collect();
        p.check_args(&a);
    };
    run(&mut p, &[b"RESTORE", b"a", b"0", &payload]);
    p.check("LRANGE a 0 -1");
    p.check("TTL a");
    run(&mut p, &[b"RESTORE", b"a", b"0", &payload, b"REPLACE"]);
    run(&mut p, &[b"RESTORE", b"t", b"100000", &payload]);
    let (want, got) = p.both("PTTL t");
    let (Frame::Integer(w), Frame::Integer(g)) = (want, got) else {
        panic!("PTTL");
    };
    assert!(
        (99_000..=100_000).contains(&w) && (99_000..=100_000).contains(&g),
        "{w} {g}"
    );
    // ABSTTL in the past: nothing is created (and REPLACE deletes).
    run(&mut p, &[b"RESTORE", b"gone", b"1", &payload, b"ABSTTL"]);
    p.check("EXISTS gone");
    run(
        &mut p,
        &[b"RESTORE", b"a", b"1", &payload, b"ABSTTL", b"REPLACE"],
    );
    p.check("EXISTS a");
    run(
        &mut p,
        &[b"RESTORE", b"abs", b"4102444800000", &payload, b"ABSTTL"],
    );
    p.check("PEXPIRETIME abs");
    run(
        &mut p,
        &[b"RESTORE", b"idle", b"0", &payload, b"IDLETIME", b"1000"],
    );
    let (want, got) = p.both("OBJECT IDLETIME idle");
    let (Frame::Integer(w), Frame::Integer(g)) = (want, got) else {
        panic!("OBJECT IDLETIME");
    };
    assert!(
        (1000..=1002).contains(&w) && (1000..=1002).contains(&g),
        "{w} {g}"
    );
    // FREQ counts under an LFU policy only.
    run(
        &mut p,
        &[b"RESTORE", b"f0", b"0", &payload, b"FREQ", b"100"],
    );
    p.check("CONFIG SET maxmemory-policy allkeys-lfu");
    run(&mut p, &[b"RESTORE", b"f", b"0", &payload, b"FREQ", b"100"]);
    p.check("OBJECT FREQ f");
    run(
        &mut p,
        &[b"RESTORE", b"f2", b"0", &payload, b"IDLETIME", b"100"],
    );
    p.check("OBJECT FREQ f2");
    p.check("DBSIZE");
}

#[test]
fn restore_is_a_write_watch_sees() {
    let mut p = Pair::start(&[]);
    p.check("SET k v");
    let payload = bulk(&p.redis.cmd_args(&args(&["DUMP", "k"])));
    let (mut r2, mut s2) = p.new_conns();
    p.check("WATCH k");
    for c in [&mut r2, &mut s2] {
        c.cmd_bytes(&[b"RESTORE", b"k", b"0", &payload, b"REPLACE"]);
    }
    p.check("MULTI");
    p.check("GET k");
    p.check("EXEC");
    p.check("INFO keyspace");
}

/// 7.0 writes streams as `STREAM_LISTPACKS_2` and 7.2 as `_3`; the two
/// differ only in the type byte and the consumers' active times, so a
/// stream whose groups have no consumers has the same body after its type.
#[test]
fn stream_bodies_match_after_the_type_byte() {
    let mut p = Pair::start(&[]);
    p.check("CONFIG SET stream-node-max-entries 10");
    for i in 1..=95 {
        let line = match i % 4 {
            0 => format!("XADD s {i}-1 a {i} b x{i}"),
            1 => format!("XADD s {i}-0 other {} third -7", "y".repeat(i % 30)),
            _ => format!("XADD s {i}-3 a {} b {}", i * 1000, i % 5),
        };
        p.check(&line);
    }
    p.corpus(
        "
        XDEL s 2-3 3-3 50-3 51-0
        XTRIM s MAXLEN 80
        XGROUP CREATE s g1 10-0
        XGROUP CREATE s g2 $ ENTRIESREAD 80
        XSETID s 200-0 ENTRIESADDED 300 MAXDELETEDID 150-0
        XADD small 1-1 f v
        ",
    );
    for k in ["s", "small"] {
        let (want, got) = p.both_args(&args(&["DUMP", k]));
        let (want, got) = (body(&want), body(&got));
        assert_eq!(want[0], 19, "7.0 writes STREAM_LISTPACKS_2");
        assert_eq!(got[0], 21, "7.2 writes STREAM_LISTPACKS_3");
        assert_eq!(want[1..], got[1..], "{k}: body after the type");
    }
}

#[test]
fn dump_configs() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        CONFIG GET sanitize-dump-payload
        CONFIG GET rdbcompression
        CONFIG SET sanitize-dump-payload clients
        CONFIG GET sanitize-dump-payload
        CONFIG SET sanitize-dump-payload maybe
        CONFIG SET rdbcompression no
        SET k abcabcabcabcabcabcabcabcabcabcabcabcabc
        ",
    );
    // Without compression the long string is written as it is.
    let b = same_body(&mut p, "k");
    assert_eq!(b[1] as usize, 39);
    p.check("CONFIG SET rdbcompression yes");
    let b = same_body(&mut p, "k");
    assert_eq!(b[1], 0xc3);
}

/// DEBUG OBJECT's `serializedlength` is the RDB encoding's length, and a
/// quicklist's node figures are its own.
#[test]
fn debug_object_serialized_length() {
    let mut p = Pair::start(&["--enable-debug-command", "yes"]);
    p.corpus(
        "
        SET s hello
        SET n 123456
        SET long abcabcabcabcabcabcabcabcabcabcabcabcabcabc
        CONFIG SET list-max-listpack-size 4
        RPUSH l a b c d e f g h i j
        ZADD z 1 a 2 b
        HSET h f v
        SADD si 1 2 3
        XADD x 1-1 f v
        ",
    );
    let fields = |f: Frame| -> Vec<String> {
        let Frame::Simple(t) = f else {
            panic!("DEBUG OBJECT gave {f:?}");
        };
        t.split(' ')
            .filter(|w| w.starts_with("serializedlength:") || w.starts_with("ql_"))
            .map(str::to_string)
            .collect()
    };
    for k in ["s", "n", "long", "l", "z", "h", "si", "x"] {
        let (want, got) = p.both_args(&args(&["DEBUG", "OBJECT", k]));
        assert_eq!(fields(want), fields(got), "DEBUG OBJECT {k}");
    }
}
