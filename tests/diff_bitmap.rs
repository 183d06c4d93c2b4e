//! Differential tests of the bitmap commands (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO): the same commands go to a real redis-server and to redsim's native server, and every reply must be identical.
//!
//! The reference is Redis 7.0.15, whose bitops.c is the same as 7.2's but
//! for a compiler-warning fix, so any difference is a bug in redsim. The
//! strings the commands leave behind are compared too (GET, STRLEN, OBJECT
//! ENCODING), and so is whom they signal (WATCH/EXEC).

use redsim_tests::{assert_command_group, Differ, Pair, RedisServer, Rng};

const SETBIT_GETBIT: &str = r#"
SETBIT k 7 1
GET k
OBJECT ENCODING k
STRLEN k
SETBIT k 7 1
SETBIT k 7 0
GETBIT k 7
GETBIT k 0
GETBIT k 8
GETBIT k 100000
GETBIT missing 3
SETBIT k 100 1
STRLEN k
GET k
SETBIT k 0 2
SETBIT k 0 -1
SETBIT k 0 x
SETBIT k 0 " 1"
SETBIT k 0 01
SETBIT k 0 ""
SETBIT k -1 1
SETBIT k x 1
SETBIT k 1.5 1
SETBIT k 4294967295x 1
SETBIT k 4294967296 1
SETBIT k 9223372036854775807 1
SETBIT k 9223372036854775808 1
SETBIT k -1 x
SETBIT k x x
SETBIT k #8 1
GETBIT k -1
GETBIT k x
GETBIT k 4294967296
GETBIT k 4294967295
GETBIT missing x
SET n 5
SETBIT n 0 1
GET n
OBJECT ENCODING n
SET n2 12345
GETBIT n2 2
GETBIT n2 3
GETBIT n2 39
GETBIT n2 40
OBJECT ENCODING n2
SETBIT n2 39 0
GET n2
OBJECT ENCODING n2
SET e hello
OBJECT ENCODING e
SETBIT e 1 1
OBJECT ENCODING e
GET e
SET e2 hello
SETBIT e2 48 0
GET e2
STRLEN e2
SETBIT new 0 0
GET new
OBJECT ENCODING new
EXISTS new
APPEND new xyz
GET new
SETRANGE new 1 "\xff"
GETBIT new 8
GETBIT new 15
SETBIT k2 3 1
INCR k2
SET int 1
SETBIT int 6 0
GET int
INCR int
"#;

const BITCOUNT: &str = r#"
SET s foobar
BITCOUNT s
BITCOUNT s 0 0
BITCOUNT s 1 1
BITCOUNT s 1 1 BYTE
BITCOUNT s 5 30 BIT
BITCOUNT s 5 30 bit
BITCOUNT s 0 -1
BITCOUNT s -1 -1
BITCOUNT s -2 -1
BITCOUNT s -100 100
BITCOUNT s 3 1
BITCOUNT s -1 -2
BITCOUNT s -1 -2 BIT
BITCOUNT s -1 -2 junk
BITCOUNT s 0 -1 BIT
BITCOUNT s -9 -1 BIT
BITCOUNT s 7 7 BIT
BITCOUNT s 8 15 BIT
BITCOUNT s 1 6 BIT
BITCOUNT s 3 3 BIT
BITCOUNT s 47 47 BIT
BITCOUNT s 48 100 BIT
BITCOUNT s 0 0 junk
BITCOUNT s 0 0 BIT extra
BITCOUNT s 0
BITCOUNT s x 1
BITCOUNT s 1 x
BITCOUNT s x x
BITCOUNT s 0 1 "bit\x00x"
BITCOUNT s 9223372036854775807 -9223372036854775808
BITCOUNT s -9223372036854775808 9223372036854775807
BITCOUNT s -9223372036854775808 9223372036854775807 BIT
BITCOUNT s 0 9223372036854775808
BITCOUNT missing
BITCOUNT missing 0
BITCOUNT missing x y
BITCOUNT missing 0 1 junk
BITCOUNT missing 0 1 BIT extra words
SET e ""
BITCOUNT e
BITCOUNT e 0 -1
BITCOUNT e 0 -1 BIT
SET i 255
BITCOUNT i
BITCOUNT i 1 1
BITCOUNT i 0 5 BIT
SETBIT big 1000 1
BITCOUNT big
BITCOUNT big 125 125
BITCOUNT big 1000 1000 BIT
BITCOUNT big 999 999 BIT
"#;

const BITPOS: &str = r#"
SET s "\xff\xf0\x00"
BITPOS s 0
BITPOS s 1
BITPOS s 1 2
BITPOS s 0 0
BITPOS s 0 0 0
BITPOS s 0 0 1
BITPOS s 0 0 -1
BITPOS s 0 2 -1
BITPOS s 1 2 -1
BITPOS s 1 -1
BITPOS s 0 -3 -2
BITPOS s 0 3
BITPOS s 0 5 10
BITPOS s 1 5 10 BIT
BITPOS s 0 5 10 BIT
BITPOS s 0 5 BIT
BITPOS s 0 12 BIT
BITPOS s 0 12 15 BIT
BITPOS s 1 12 15 BIT
BITPOS s 1 20 23 BIT
BITPOS s 0 20 23 BIT
BITPOS s 0 0 -1 BIT
BITPOS s 1 -5 -1 BIT
BITPOS s 0 -5 -1 BIT
BITPOS s 0 9 9 BIT
BITPOS s 1 9 9 BIT
BITPOS s 1 3 9 BIT
BITPOS s 1 1 11 BIT
BITPOS s 0 1 11 BIT
BITPOS s 0 0 0 BYTE
BITPOS s 0 0 0 junk
BITPOS s 0 x 0 junk
BITPOS s 0 0 x junk
BITPOS s 0 0 x BIT
BITPOS s 0 x
BITPOS s 0 0 0 BIT extra
BITPOS s 2
BITPOS s -1
BITPOS s x
BITPOS s 2 x y z w
BITPOS s 01
BITPOS missing 0
BITPOS missing 1
BITPOS missing 0 5 6
BITPOS missing 1 x y
BITPOS missing 0 0 0 junk extra
BITPOS missing 2
SET ones "\xff\xff"
BITPOS ones 0
BITPOS ones 0 0
BITPOS ones 0 0 -1
BITPOS ones 0 1
BITPOS ones 0 0 15 BIT
BITPOS ones 0 3 BIT
BITPOS ones 1 16 BIT
BITPOS ones 0 16 BIT
SET zeros "\x00\x00\x00"
BITPOS zeros 1
BITPOS zeros 1 1
BITPOS zeros 0
BITPOS zeros 1 0 -1 BIT
BITPOS zeros 0 7 BIT
SET e ""
BITPOS e 0
BITPOS e 1
BITPOS e 0 0
BITPOS e 0 0 -1
BITPOS e 0 0 -1 BIT
SET i 10
BITPOS i 1
BITPOS i 0 1
SET long "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe"
BITPOS long 1
BITPOS long 0
BITPOS long 0 17
BITPOS long 0 18
BITPOS long 0 18 -1
BITPOS long 0 18 -2
BITPOS long 1 3 100 BIT
BITPOS long 0 143 287 BIT
BITPOS long 0 144 286 BIT
BITPOS long 0 144 287 BIT
"#;

const BITOP: &str = r#"
SET a "\x0f\xf0\xaa"
SET b "\xff\x00"
SET c abc
BITOP AND d a b
GET d
OBJECT ENCODING d
BITOP OR d a b
GET d
BITOP XOR d a b c
GET d
BITOP NOT d a
GET d
BITOP and d a missing
GET d
BITOP or d missing a
GET d
BITOP NOT d missing
EXISTS d
SET d x
BITOP AND d missing missing2
EXISTS d
BITOP NOT d a b
BITOP NOT d
BITOP NAND d a b
BITOP "and\x00x" d a b
GET d
BITOP AND a a b
GET a
SET n 123
BITOP XOR d n c
GET d
SET e ""
BITOP OR d e e
EXISTS d
BITOP OR d e a
GET d
SET t v EX 100
BITOP OR t a
TTL t
SET t v EX 100
BITOP AND t missing
TTL t
EXISTS t
BITOP
BITOP AND
BITOP AND d
SET long1 "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghij"
SET long2 "zyxwvutsrqponmlkjihgfedcba9876543210zyxwvutsrqponmlkjihgfedcba"
BITOP AND d long1 long2
GET d
BITOP OR d long1 long2 a
GET d
BITOP XOR d long2 long1
GET d
BITOP NOT d long1
GET d
STRLEN d
"#;

const BITFIELD: &str = r##"
BITFIELD f
EXISTS f
BITFIELD f GET u8 0
EXISTS f
BITFIELD f SET u8 0 255
GET f
OBJECT ENCODING f
BITFIELD f GET u8 0 GET i8 0 GET u4 0 GET i4 4 GET u1 0
BITFIELD f SET i8 8 -1 GET u8 8 GET i16 0 GET u16 0
BITFIELD f INCRBY u2 100 1 OVERFLOW SAT INCRBY u2 102 1 GET u2 100
BITFIELD f INCRBY u2 100 1 INCRBY u2 100 1 INCRBY u2 100 1
BITFIELD f OVERFLOW SAT INCRBY u2 100 1 INCRBY u2 100 1 INCRBY u2 100 -5
BITFIELD f OVERFLOW FAIL INCRBY u2 100 1 INCRBY u2 100 1 INCRBY u2 100 1 INCRBY u2 100 -9
BITFIELD f OVERFLOW WRAP INCRBY i8 200 127 INCRBY i8 200 1 INCRBY i8 200 -1 INCRBY i8 200 -128
BITFIELD f OVERFLOW SAT INCRBY i8 200 100 INCRBY i8 200 100 INCRBY i8 200 -300 INCRBY i8 200 -1
BITFIELD f OVERFLOW FAIL INCRBY i8 200 127 INCRBY i8 200 -300 GET i8 200
BITFIELD f SET i64 0 9223372036854775807 INCRBY i64 0 1 GET i64 0
BITFIELD f OVERFLOW SAT SET i64 0 9223372036854775807 INCRBY i64 0 1 INCRBY i64 0 -9223372036854775808 INCRBY i64 0 -9223372036854775808
BITFIELD f OVERFLOW FAIL SET i64 0 -9223372036854775808 INCRBY i64 0 -1 INCRBY i64 0 9223372036854775807 INCRBY i64 0 1
BITFIELD f SET u63 0 9223372036854775807 INCRBY u63 0 1 OVERFLOW SAT INCRBY u63 0 -5 INCRBY u63 0 9223372036854775807
BITFIELD f SET u63 1 -1 OVERFLOW SAT SET u63 1 -1 OVERFLOW FAIL SET u63 1 -1
BITFIELD f SET u8 0 256 OVERFLOW SAT SET u8 0 256 SET u8 0 -3 OVERFLOW FAIL SET u8 0 256 SET u8 0 -1
BITFIELD f SET i8 0 -9223372036854775808 OVERFLOW SAT SET i8 8 -9223372036854775808 SET i8 16 -9223372036854775681 SET i8 16 -9223372036854775680 GET i8 8 GET i8 16
BITFIELD f OVERFLOW WRAP SET i1 0 1 SET i1 1 -1 SET i1 2 2 GET i1 0 GET u1 0 GET i1 1
BITFIELD f SET i5 #3 10 GET i5 #3 GET i5 15 GET u5 #3 SET u7 #2 127 GET u7 14
BITFIELD f GET u8 #0 GET u8 # GET u8 #-1
BITFIELD f GET u8 #x
BITFIELD f GET u8 "#"
BITFIELD f GET i64 #144115188075855871
BITFIELD f SET i8 #9223372036854775807 1
BITFIELD f SET i8 #2305843009213693953 1
BITFIELD f SET i64 #1152921504606846976 1
BITFIELD f GET u8 -1
BITFIELD f GET u8 4294967295
BITFIELD f GET u8 4294967296
BITFIELD f GET u64 0
BITFIELD f GET i65 0
BITFIELD f GET i0 0
BITFIELD f GET u0 0
BITFIELD f GET x8 0
BITFIELD f GET I8 0
BITFIELD f GET "" 0
BITFIELD f GET i 0
BITFIELD f GET i08 0
BITFIELD f GET "i8\x00junk" 0
BITFIELD f GET i-1 0
BITFIELD f GET u63 0
BITFIELD f GET i8
BITFIELD f GET
BITFIELD f SET i8 0
BITFIELD f INCRBY i8 0
BITFIELD f SET i8 0 x
BITFIELD f SET i8 0 1.5
BITFIELD f SET i8 0 9223372036854775808
BITFIELD f INCRBY x8 0 1
BITFIELD f INCRBY i8 x 1
BITFIELD f SET x8 x x
BITFIELD f OVERFLOW
BITFIELD f OVERFLOW foo GET i8 0
BITFIELD f OVERFLOW wrap GET i8 0 OVERFLOW
BITFIELD f OVERFLOW sat
BITFIELD f OVERFLOW "fail\x00x" INCRBY u2 0 9
BITFIELD f FOO
BITFIELD f GET i8 0 FOO
BITFIELD f get i8 0 set i8 0 1 incrby i8 0 1 overflow SAT
BITFIELD f GET i8 0 SET i8 0
BITFIELD f "get\x00z" u8 0
GET f
STRLEN f
BITFIELD g OVERFLOW FAIL SET u8 16 300
EXISTS g
GET g
BITFIELD g2 OVERFLOW FAIL INCRBY i8 0 1000
GET g2
BITFIELD g3 SET u8 0 0
GET g3
BITFIELD g3 GET u8 1000 GET i64 7 SET u1 23 0
STRLEN g3
SET n 1234
BITFIELD n GET u8 0 GET u16 8
OBJECT ENCODING n
BITFIELD n SET u8 0 49
GET n
OBJECT ENCODING n
SET e short
BITFIELD e GET u8 0
OBJECT ENCODING e
BITFIELD e INCRBY u8 0 0
OBJECT ENCODING e
BITFIELD_RO f
BITFIELD_RO f GET u8 0 GET i16 8
BITFIELD_RO f GET u8 0 SET u8 0 1
BITFIELD_RO f SET u8 0 x
BITFIELD_RO f INCRBY u8 0 1
BITFIELD_RO f OVERFLOW SAT GET u8 0
BITFIELD_RO f OVERFLOW FAIL
BITFIELD_RO f GET u64 0
BITFIELD_RO f FOO
BITFIELD_RO missing GET i8 0 GET u63 100
BITFIELD_RO missing SET i8 0 1
EXISTS missing
BITFIELD_RO n GET u8 8
"##;

#[test]
fn setbit_and_getbit() {
    let mut p = Pair::start(&[]);
    assert_eq!(p.corpus(SETBIT_GETBIT), 72, "every line compared");
}

#[test]
fn bitcount_ranges_units_and_errors() {
    let mut p = Pair::start(&[]);
    p.corpus(BITCOUNT);
}

#[test]
fn bitpos_ranges_units_and_the_end_given_rule() {
    let mut p = Pair::start(&[]);
    p.corpus(BITPOS);
}

#[test]
fn bitop_operations_and_destination() {
    let mut p = Pair::start(&[]);
    p.corpus(BITOP);
}

#[test]
fn bitfield_types_overflows_and_errors() {
    let mut p = Pair::start(&[]);
    p.corpus(BITFIELD);
}

/// Keys of other types: WRONGTYPE, in Redis' order of checks (SETBIT
/// parses its offset and value first, BITCOUNT looks the key up first).
const WRONG_TYPES: &str = r#"
HSET h f v
SADD st m
RPUSH l a
ZADD z 1 m
SETBIT h 0 1
SETBIT h x 1
SETBIT h 0 x
GETBIT st 0
GETBIT st x
BITCOUNT l
BITCOUNT l 0
BITCOUNT l x y
BITPOS z 1
BITPOS z 2
BITPOS z x
BITPOS z 1 0 0 junk
BITOP AND d h
BITOP OR d missing st
BITOP NOT d l
BITOP NOT d l extra
BITOP NAND d h
SET s abc
BITOP AND h s
TYPE h
BITFIELD h GET u8 0
BITFIELD h SET u8 0 1
BITFIELD h GET u64 0
BITFIELD_RO z GET u8 0
BITFIELD_RO z SET u8 0 1
"#;

#[test]
fn other_types_are_wrongtype() {
    let mut p = Pair::start(&[]);
    p.corpus(WRONG_TYPES);
}

/// Keyspace hits and misses count the lookups Redis makes: read lookups
/// only, once per key, skipped when an argument error comes first.
#[test]
fn keyspace_hits_and_misses_match() {
    let mut p = Pair::start(&[]);
    p.corpus(SETBIT_GETBIT);
    p.corpus(BITCOUNT);
    p.corpus(BITPOS);
    p.corpus(BITOP);
    p.corpus(BITFIELD);
    p.assert_same_stats();
}

/// RESP3 replies keep their shape (BITFIELD's nil under OVERFLOW FAIL).
#[test]
fn resp3_replies() {
    let mut p = Pair::start(&[]).resp3();
    p.corpus(
        r#"
        BITFIELD r OVERFLOW FAIL SET u2 0 9 GET u2 0
        BITFIELD_RO r GET u2 0
        SETBIT r 3 1
        BITPOS r 1
        BITCOUNT r
        BITOP NOT r2 r
        "#,
    );
}

/// With a 1 MB proto-max-bulk-len, offsets stop at 8 Mbit, as in Redis.
#[test]
fn proto_max_bulk_len_bounds_bit_offsets() {
    let mut p = Pair::start(&["--proto-max-bulk-len", "1mb"]);
    p.corpus(
        r#"
        SETBIT big 8388608 1
        SETBIT big 8388607 1
        STRLEN big
        GETBIT big 8388607
        GETBIT big 8388608
        BITCOUNT big
        BITPOS big 1
        BITFIELD big GET u8 8388600 GET u8 8388608
        BITFIELD big SET u8 8388600 1
        BITFIELD big SET i64 8388607 -1
        STRLEN big
        BITFIELD big2 SET u8 #1048575 7
        BITFIELD big2 SET u8 #1048576 7
        BITFIELD big2 GET i64 #131071
        BITFIELD big2 GET i64 #131072
        STRLEN big2
        CONFIG SET proto-max-bulk-len 2mb
        SETBIT big 8388608 1
        STRLEN big
        "#,
    );
}

/// Who is signalled: EXEC of a transaction watching the key fails exactly
/// when Redis' command signalled a modification.
#[test]
fn watch_sees_exactly_the_writes_redis_signals() {
    let scenarios: &[(&str, &str)] = &[
        ("SET w \"\\x00\"", "SETBIT w 0 0"),
        ("SET w \"\\x00\"", "SETBIT w 0 1"),
        ("SET w \"\\x00\"", "SETBIT w 100 0"),
        ("SET w abc", "SETBIT w 1 1"),
        ("DEL w", "SETBIT w 0 0"),
        ("DEL w", "BITFIELD w OVERFLOW FAIL SET u8 0 300"),
        ("SET w \"\\x00\"", "BITFIELD w SET u8 0 0"),
        ("SET w \"\\x00\"", "BITFIELD w SET u8 0 1"),
        ("SET w \"\\x00\"", "BITFIELD w SET u8 8 0"),
        ("SET w \"\\x00\"", "BITFIELD w GET u8 0"),
        ("SET w \"\\x00\"", "BITFIELD w OVERFLOW FAIL INCRBY u8 0 -1"),
        ("DEL w", "BITOP AND w missing"),
        ("SET w x", "BITOP AND w missing"),
        ("SET w x", "BITOP OR w w"),
        ("SET w x", "GETBIT w 0"),
        ("SET w x", "BITCOUNT w"),
    ];
    let mut d = Differ::start(2, &[]);
    d.watch_scenarios("w", &[], scenarios);
    assert_eq!(d.compared, scenarios.len() * 7);
}

/// One random command over a small alphabet of keys and offsets, mixing
/// bitmap and string commands so each sees what the other wrote.
fn random_command(rng: &mut Rng) -> Vec<Vec<u8>> {
    const KEYS: &[&str] = &["a", "b", "c", "d"];
    const TYPES: &[&str] = &[
        "i1", "u1", "i3", "u5", "i8", "u8", "i13", "u16", "i32", "u31", "i63", "u63", "i64",
    ];
    const UNITS: &[&str] = &["BIT", "BYTE", "bit", "byte"];
    let key = rng.pick(KEYS).to_string();
    let mut a: Vec<String> = Vec::new();
    let small_offset = |rng: &mut Rng| -> String {
        if rng.percent(90) {
            rng.range(0, 80).to_string()
        } else {
            rng.range(0, 400).to_string()
        }
    };
    let index = |rng: &mut Rng, span: i64| -> String { rng.range(-span, span).to_string() };
    match rng.below(20) {
        0..=3 => {
            a.extend(["SETBIT".into(), key, small_offset(rng)]);
            a.push(if rng.percent(95) {
                rng.below(2).to_string()
            } else {
                rng.pick(&["2", "-1", "x"]).into()
            });
        }
        4..=5 => a.extend(["GETBIT".into(), key, small_offset(rng)]),
        6..=7 => {
            a.extend(["BITCOUNT".into(), key]);
            if rng.percent(70) {
                let bit = rng.percent(50);
                let span = if bit { 100 } else { 12 };
                a.push(index(rng, span));
                a.push(index(rng, span));
                if rng.percent(60) {
                    a.push(if bit { rng.pick(&UNITS[..1]) } else { "BYTE" }.into());
                }
            }
        }
        8..=9 => {
            a.extend(["BITPOS".into(), key, rng.below(2).to_string()]);
            let bit = rng.percent(50);
            let span = if bit { 100 } else { 12 };
            let extra = rng.below(4);
            if extra >= 1 {
                a.push(index(rng, span));
            }
            if extra >= 2 {
                a.push(index(rng, span));
            }
            if extra >= 3 {
                a.push(if bit { "BIT" } else { rng.pick(&UNITS[1..2]) }.into());
            }
        }
        10..=11 => {
            let op = rng.pick(&["AND", "OR", "XOR", "NOT"]);
            a.extend(["BITOP".into(), op.into(), key]);
            let n = if op == "NOT" { 1 } else { 1 + rng.below(3) };
            for _ in 0..n {
                a.push(rng.pick(KEYS).into());
            }
        }
        12..=14 => {
            let ro = rng.percent(15);
            a.extend([if ro { "BITFIELD_RO" } else { "BITFIELD" }.into(), key]);
            for _ in 0..1 + rng.below(4) {
                let ty = rng.pick(TYPES).to_string();
                let off = if rng.percent(15) {
                    format!("#{}", rng.range(0, 8))
                } else {
                    small_offset(rng)
                };
                let value = match rng.below(6) {
                    0 => i64::MAX.to_string(),
                    1 => i64::MIN.to_string(),
                    2 => (rng.next_u64() as i64).to_string(),
                    _ => rng.range(-300, 300).to_string(),
                };
                match rng.below(if ro { 1 } else { 5 }) {
                    0 => a.extend(["GET".into(), ty, off]),
                    1 => a.extend(["SET".into(), ty, off, value]),
                    2 | 3 => a.extend(["INCRBY".into(), ty, off, value]),
                    _ => a.extend(["OVERFLOW".into(), rng.pick(&["WRAP", "SAT", "FAIL"]).into()]),
                }
            }
        }
        15 => {
            let v: String = (0..rng.below(6))
                .map(|_| rng.pick(&["a", "\u{7f}", "0", "9", "\u{1}", " "]))
                .collect();
            if rng.percent(30) {
                a.extend(["SET".into(), key, rng.range(-500, 5000).to_string()]);
            } else {
                a.extend(["SET".into(), key, v]);
            }
        }
        16 => a.extend(["APPEND".into(), key, rng.pick(&["x", "12", "\u{0}"]).into()]),
        17 => a.extend([
            "SETRANGE".into(),
            key,
            rng.range(0, 12).to_string(),
            rng.pick(&["Q", "\u{ff}", "77"]).into(),
        ]),
        18 => {
            let c = rng.pick(&["GET", "STRLEN", "OBJECT", "DEL", "INCR"]);
            if c == "OBJECT" {
                a.extend(["OBJECT".into(), "ENCODING".into(), key]);
            } else {
                a.extend([c.into(), key]);
            }
        }
        _ => a.extend(["GETRANGE".into(), key, index(rng, 10), index(rng, 10)]),
    }
    a.into_iter().map(String::into_bytes).collect()
}

#[test]
fn random_bitmap_and_string_commands_match() {
    let mut p = Pair::start(&[]);
    let mut rng = Rng(0x5eed_b175);
    for _ in 0..3000 {
        let cmd = random_command(&mut rng);
        p.check_args(&cmd);
    }
    for k in ["a", "b", "c", "d"] {
        p.check(&format!("GET {k}"));
        p.check(&format!("OBJECT ENCODING {k}"));
    }
    assert!(p.compared >= 3000);
}

/// The command table entries agree with what Redis' `COMMAND INFO` reports.
#[test]
fn command_table_matches_command_info() {
    let redis = RedisServer::start(&[]);
    assert_command_group(&mut redis.conn(), "bitmap", 7, &[]);
}
