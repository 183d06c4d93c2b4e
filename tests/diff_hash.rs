//! Differential tests of the hash commands: the same commands go to a real redis-server and to redsim's native server, and the replies (errors included), keyspace statistics and encodings must agree.
//!
//! Replies whose order Redis leaves to its hash table (HGETALL, HKEYS,
//! HVALS of a `hashtable` hash, an HSCAN page) are compared as multisets,
//! and only after checking that the hash is indeed a hashtable on both:
//! a listpack's order is insertion order and must match exactly. HSCAN of
//! a hashtable is compared over full iterations. Random replies
//! (HRANDFIELD) are checked for length, membership, values and the
//! distinctness rule of their count's sign.
//!
//! The reference is Redis 7.0.15. Its hash code differs from 7.2 in one
//! observable place, noted where it is tested: 7.2 converts a listpack to
//! a hashtable when a single HSET brings more pairs than
//! `hash-max-listpack-entries`, duplicates included.

use std::collections::BTreeSet;

use redsim_engine::proto::clifmt::format_reply;
use redsim_tests::{
    args, assert_command_group, corpus_tests, parse, random_steps, scan_all, show, word_args,
    words, Conn, Frame, Pair, RedisServer, Rng, I64_MAX, I64_MIN, RANDOM_COUNTS,
};

/// A whole-hash read: exact if equal, else equal as multisets with the
/// hash a hashtable on both sides (whose order is each server's own).
fn check_hash_read(p: &mut Pair, a: &[Vec<u8>]) {
    let (want, got) = p.both_args(a);
    p.compared += 1;
    if want == got {
        return;
    }
    assert_eq!(
        unordered(got.clone()),
        unordered(want.clone()),
        "{} differs beyond order\n  redis:  {}\n  redsim: {}",
        show(a),
        format_reply(&want),
        format_reply(&got)
    );
    let enc = args(&["OBJECT", "ENCODING", &String::from_utf8_lossy(&a[1])]);
    let (r, s) = p.both_args(&enc);
    assert_eq!(
        (&r, &s),
        (&Frame::bulk("hashtable"), &Frame::bulk("hashtable")),
        "{}: order may only differ for a hashtable",
        show(a)
    );
}

/// Runs a corpus: one command per line, `#` comments. A line starting
/// with `~` is a whole-hash read (see `check_hash_read`).
fn corpus(p: &mut Pair, text: &str) {
    p.corpus_by(text, |p, line| match line.strip_prefix('~') {
        Some(rest) => check_hash_read(p, &parse(rest)),
        None => {
            p.check(line);
        }
    });
}

/// A reply with its collections' order removed: arrays and sets sorted,
/// map pairs sorted, and a flat array of RESP2 pairs (HGETALL) kept paired
/// by sorting pairs when `pairs` says so.
fn unordered(f: Frame) -> Frame {
    match f {
        Frame::Array(mut v) | Frame::Set(mut v) => {
            v.sort_by_key(|x| format!("{x:?}"));
            Frame::Array(v)
        }
        Frame::Map(mut v) => {
            v.sort_by_key(|x| format!("{x:?}"));
            Frame::Map(v)
        }
        other => other,
    }
}

/// A flat `[f1, v1, f2, v2, ...]` as its set of pairs.
fn pairs(items: &[Frame]) -> Vec<(Vec<u8>, Vec<u8>)> {
    items
        .chunks(2)
        .map(|p| match p {
            [Frame::Bulk(f), Frame::Bulk(v)] => (f.clone(), v.clone()),
            _ => panic!("pairs of bulk strings expected, got {p:?}"),
        })
        .collect()
}

/// The hash at `key` on one server, as field → value.
fn contents(c: &mut Conn, key: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    match c.cmd(&["HGETALL", key]) {
        Frame::Array(items) => pairs(&items),
        Frame::Map(m) => m
            .into_iter()
            .map(|kv| match kv {
                (Frame::Bulk(f), Frame::Bulk(v)) => (f, v),
                other => panic!("HGETALL pair {other:?}"),
            })
            .collect(),
        Frame::Error(_) => vec![],
        other => panic!("HGETALL reply {other:?}"),
    }
}

/// A field and its value.
type FieldValue = (Vec<u8>, Vec<u8>);

/// Every (field, value) an HSCAN iteration returns from one server, or
/// the first reply if it is an error. A hashtable may repeat elements.
fn hscan_all(c: &mut Conn, key: &str, opts: &[&str]) -> Result<BTreeSet<FieldValue>, Frame> {
    let mut out = BTreeSet::new();
    scan_all(c, &["HSCAN", key], opts, |items| out.extend(pairs(items)))?;
    Ok(out)
}

const BASICS: &str = r#"
HSET h f1 v1
HSET h f1 v1 f2 v2 f3
HSET h f1 v1 f2 v2 f3 v3
HSET h f1 new
HMSET h f4 v4 f5 v5
HMSET h f4
HGET h f1
HGET h nope
HGET nokey f
HMGET h f1 nope f2 f1
HMGET nokey a b
HLEN h
HLEN nokey
HEXISTS h f1
HEXISTS h nope
HEXISTS nokey f1
HSTRLEN h f1
HSTRLEN h nope
HSTRLEN nokey f
HSETNX h f1 x
HSETNX h f9 x
HSETNX nk f x
HGET h f9
~HGETALL h
~HKEYS h
~HVALS h
~HGETALL nokey
~HKEYS nokey
~HVALS nokey
HDEL h nope
HDEL h f1 f1 f2
HDEL nokey f
HDEL nk f
EXISTS nk
HDEL h f3 f4 f5 f9 extra
EXISTS h
TYPE h
HSET "" "" ""
HGET "" ""
HSET bin "f\x00" "v\r\n" "" "\x00"
~HGETALL bin
HSTRLEN bin "f\x00"
HSET h
HSET h f
HGET h
HMGET h
HDEL h
HLEN
HSETNX h f
HGETALL h x
HSTRLEN h
"#;

const COUNTERS: &str = r#"
HINCRBY c f 1
HINCRBY c f -11
HINCRBY c f 0
HINCRBY c f x
HINCRBY c f 1.5
HINCRBY c f " 1"
HINCRBY c f 9223372036854775807
HINCRBY c f 9223372036854775808
HSET c g 9223372036854775807
HINCRBY c g 1
HINCRBY c g 0
HSET c m -9223372036854775808
HINCRBY c m -1
HINCRBY c m 9223372036854775807
HSET c s abc
HINCRBY c s 1
HSET c z 007
HINCRBY c z 1
HSET c p +5
HINCRBY c p 1
HSET c e ""
HINCRBY c e 1
HINCRBY nc f 5
HGET nc f
HINCRBYFLOAT c fl 1.5
HINCRBYFLOAT c fl 0.1
HINCRBYFLOAT c fl -1.6
HINCRBYFLOAT c fl 1e3
HINCRBYFLOAT c fl 5.0e3
HINCRBYFLOAT c fl abc
HINCRBYFLOAT c fl inf
HINCRBYFLOAT c fl -inf
HINCRBYFLOAT c fl nan
HINCRBYFLOAT c fl " 1"
HINCRBYFLOAT c fl ""
HINCRBYFLOAT c fl 0x10
HINCRBYFLOAT c s 1
HINCRBYFLOAT c z 1
HINCRBYFLOAT c e 1
HSET c big 1e4900
HINCRBYFLOAT c big 1e4900
HINCRBYFLOAT c big 1e4932
HINCRBYFLOAT c f 10000000000.1
HINCRBYFLOAT c g 1
HGET c g
HINCRBYFLOAT nf f 0.1
HINCRBYFLOAT nf f 0.2
HINCRBYFLOAT nf2 f inf
EXISTS nf2
HINCRBY nf3 f x
EXISTS nf3
HINCRBYFLOAT c f
HINCRBY c f
~HGETALL c
"#;

const RANDOM_AND_SCAN_ERRORS: &str = r#"
HSET r a 1 b 2 c 3
HRANDFIELD r 0
HRANDFIELD r 0 WITHVALUES
HRANDFIELD nokey
HRANDFIELD nokey 5
HRANDFIELD nokey -5 WITHVALUES
HRANDFIELD r x
HRANDFIELD r 1.5
HRANDFIELD r 1 WITHVALUE
HRANDFIELD r 1 withvalues x
HRANDFIELD r 0 "withvalues\x00x"
HRANDFIELD r -9223372036854775808
HRANDFIELD r -9223372036854775807 WITHVALUES
HRANDFIELD r 9223372036854775807 WITHVALUES
HRANDFIELD r -4611686018427387904 WITHVALUES
HRANDFIELD r 4611686018427387904 WITHVALUES
HRANDFIELD r 4611686018427387903 WITHVALUES
HRANDFIELD r -4611686018427387903 x
HRANDFIELD r 3
HRANDFIELD r 100 WITHVALUES
HRANDFIELD r 9223372036854775807
HSCAN r 0
HSCAN r 0 MATCH a*
HSCAN r 0 MATCH [ab]
HSCAN r 0 COUNT 1
HSCAN r 0 COUNT 0
HSCAN r 0 COUNT -1
HSCAN r 0 COUNT x
HSCAN r 0 COUNT
HSCAN r 0 MATCH
HSCAN r 0 TYPE string
HSCAN r 0 foo bar
HSCAN r 5
HSCAN r -1
HSCAN r 18446744073709551615
HSCAN r 18446744073709551616
HSCAN r x
HSCAN r " 0"
HSCAN r ""
HSCAN r "3\x00junk"
HSCAN nokey 0
HSCAN nokey 0 COUNT 0
HSCAN nokey x
HSCAN r
HRANDFIELD
"#;

const WRONGTYPE: &str = r#"
SET str v
HSET str f v
HSETNX str f v
HMSET str f v
HGET str f
HMGET str f
HGETALL str
HKEYS str
HVALS str
HLEN str
HEXISTS str f
HSTRLEN str f
HDEL str f
HINCRBY str f 1
HINCRBYFLOAT str f 1
HINCRBY str f x
HINCRBYFLOAT str f x
HRANDFIELD str
HRANDFIELD str 2
HRANDFIELD str x
HSCAN str 0
HSCAN str x
HSCAN str 0 COUNT 0
HSET h f v
GET h
SET h v XX GET
GETSET h v
GETDEL h
GETEX h
APPEND h x
INCR h
INCRBYFLOAT h 1
STRLEN h
GETRANGE h 0 -1
SETRANGE h 0 x
MGET h str
SETNX h x
TYPE h
OBJECT ENCODING h
RENAME h h2
HGET h2 f
SET h2 plain
TYPE h2
"#;

corpus_tests! { corpus =>
    /// Writes in place keep a key's TTL.
    ttl_kept_by_writes: "HSET t a 1 b 2 c 3
         EXPIRE t 100
         HSET t d 4
         HSETNX t e 5
         HMSET t a 9
         HINCRBY t a 1
         HINCRBYFLOAT t b 0.5
         HDEL t c
         TTL t
         HDEL t a b d e
         TTL t
         EXISTS t";
    basics_and_arity: BASICS;
    counters_and_float_formatting: COUNTERS;
    random_and_scan_argument_errors: RANDOM_AND_SCAN_ERRORS;
    wrongtype_both_ways: WRONGTYPE;
}

/// Encodings at the thresholds, with CONFIG SET moving them (and the
/// legacy `ziplist` names), must agree exactly: hashes are encoded the
/// same way in 7.0 and 7.2 except for the one rule tested last.
#[test]
fn encodings_at_the_thresholds() {
    let mut p = Pair::start(&[]);
    let v64 = "v".repeat(64);
    let v65 = "v".repeat(65);
    corpus(
        &mut p,
        &format!(
            r#"
        CONFIG GET hash-max-listpack-entries
        CONFIG GET hash-max-listpack-value
        CONFIG GET hash-max-ziplist-entries
        CONFIG GET hash-max-ziplist-value
        HSET a f {v64}
        OBJECT ENCODING a
        HSET a g {v65}
        OBJECT ENCODING a
        HDEL a g
        OBJECT ENCODING a
        HSET b {v65} x
        OBJECT ENCODING b
        HSETNX c f {v65}
        OBJECT ENCODING c
        HSET d f 1
        HINCRBYFLOAT d f 0.1234567890123456789
        OBJECT ENCODING d
        CONFIG SET hash-max-listpack-value 3
        CONFIG GET hash-max-ziplist-value
        HINCRBY d2 f 999
        OBJECT ENCODING d2
        HINCRBY d2 f 1
        OBJECT ENCODING d2
        HINCRBYFLOAT d3 f 1.5
        OBJECT ENCODING d3
        HINCRBYFLOAT d3 f 0.25
        OBJECT ENCODING d3
        CONFIG SET hash-max-ziplist-value 1kb
        CONFIG GET hash-max-listpack-value
        CONFIG SET hash-max-listpack-value 64
        CONFIG SET hash-max-listpack-entries 3
        HSET e a 1 b 2 c 3
        OBJECT ENCODING e
        ~HGETALL e
        HSET e c 4
        OBJECT ENCODING e
        HSET e d 4
        OBJECT ENCODING e
        HDEL e a b c
        OBJECT ENCODING e
        HSETNX e2 a 1
        HSETNX e2 b 1
        HSETNX e2 c 1
        HSETNX e2 d 1
        OBJECT ENCODING e2
        HINCRBY e3 a 1
        HINCRBY e3 b 1
        HINCRBY e3 c 1
        OBJECT ENCODING e3
        HINCRBYFLOAT e3 d 1
        OBJECT ENCODING e3
        CONFIG SET hash-max-ziplist-entries 0
        CONFIG GET hash-max-listpack-entries
        HSET z f v
        OBJECT ENCODING z
        CONFIG SET hash-max-listpack-entries 512
        HSET y f v
        OBJECT ENCODING y
        CONFIG SET hash-max-listpack-entries -1
        CONFIG SET hash-max-listpack-entries x
        CONFIG SET hash-max-listpack-value -1
        CONFIG SET hash-max-listpack-value 9223372036854775808
        CONFIG SET hash-max-ziplist-entries 9223372036854775807
        CONFIG GET hash-max-ziplist-entries
        CONFIG SET hash-max-ziplist-entries 512
        "#
        ),
    );
    // A listpack keeps insertion order in every whole-hash reply.
    corpus(
        &mut p,
        "HSET order z 1 a 2 m 3 b 4
         HSET order a 5 q 6
         HDEL order m
         HGETALL order
         HKEYS order
         HVALS order
         HSCAN order 0
         HSCAN order 0 MATCH [a-m]
         HRANDFIELD order 100
         HRANDFIELD order 5 WITHVALUES",
    );
    // 7.2's `hashTypeTryConversion` sizes the hash for every pair an HSET
    // brings, duplicates included: 513 pairs of one field make a
    // hashtable. 7.0 kept the listpack (one field); redsim follows 7.2.
    let mut many = vec!["HSET".to_string(), "dup".into()];
    for _ in 0..513 {
        many.extend(["f".to_string(), "v".to_string()]);
    }
    let many: Vec<Vec<u8>> = many.into_iter().map(String::into_bytes).collect();
    p.check_with(&many, |f| f);
    let (r, s) = p.both_args(&args(&["OBJECT", "ENCODING", "dup"]));
    assert_eq!(s, Frame::bulk("hashtable"), "7.2 converts");
    if p.redis_is_7_0() {
        assert_eq!(r, Frame::bulk("listpack"), "7.0 did not");
    } else {
        assert_eq!(r, s);
    }
    // One pair fewer than the limit plus one stays a listpack everywhere.
    let mut fit = vec!["HSET".to_string(), "fit".into()];
    for i in 0..512 {
        fit.extend([format!("f{i}"), "v".to_string()]);
    }
    let fit: Vec<Vec<u8>> = fit.into_iter().map(String::into_bytes).collect();
    p.check_with(&fit, |f| f);
    corpus(
        &mut p,
        "OBJECT ENCODING fit
         HSET fit one more
         OBJECT ENCODING fit
         HLEN fit",
    );
}

/// RESP3: HGETALL is a map, HRANDFIELD WITHVALUES a list of pairs, the
/// rest as in RESP2.
#[test]
fn resp3_replies() {
    let mut p = Pair::start(&[]).resp3();
    corpus(
        &mut p,
        "HSET h a 1 b 2 c 3
         HGETALL h
         HGETALL nokey
         HKEYS h
         HMGET h a x
         HGET h x
         HRANDFIELD nokey
         HRANDFIELD h 3 WITHVALUES
         HRANDFIELD h 0 WITHVALUES
         HRANDFIELD nokey 3 WITHVALUES
         HSCAN h 0
         HSCAN nokey 0
         HINCRBYFLOAT h a 0.5",
    );
    for count in ["2", "-5", "1"] {
        let (r, s) = p.both_args(&args(&["HRANDFIELD", "h", count, "WITHVALUES"]));
        let (Frame::Array(r), Frame::Array(s)) = (r, s) else {
            panic!("arrays expected");
        };
        assert_eq!(r.len(), s.len(), "HRANDFIELD h {count} WITHVALUES");
        for pair in &s {
            let Frame::Array(kv) = pair else {
                panic!("RESP3 pairs are nested arrays: {pair:?}");
            };
            assert_eq!(kv.len(), 2);
        }
    }
}

/// A hashtable's HSCAN returns every field over a full iteration, whatever
/// the cursors; MATCH filters; COUNT bounds the pages.
#[test]
fn hscan_full_iterations_of_a_hashtable() {
    let mut p = Pair::start(&[]);
    let mut cmd = words(&["HSET", "big"]);
    for i in 0..700 {
        cmd.extend([format!("field:{i}"), format!("value:{i}")]);
    }
    p.check_args(&word_args(&cmd));
    p.check("OBJECT ENCODING big");
    p.check_full_scans("HSCAN big", "field:", |c, opts| hscan_all(c, "big", opts));
    // A page of COUNT 5 on a table of 700: a few elements, a live cursor.
    let Frame::Array(page) = p.sim.cmd(&["HSCAN", "big", "0", "COUNT", "5"]) else {
        panic!("HSCAN page");
    };
    let Frame::Array(items) = &page[1] else {
        panic!("HSCAN items");
    };
    assert!(
        !items.is_empty() && items.len() < 100,
        "{} items",
        items.len()
    );
    assert_ne!(page[0], Frame::bulk("0"));
    // Deleting down to a few fields shrinks the table; the hash stays a hashtable.
    for i in 0..695 {
        p.check(&format!("HDEL big field:{i}"));
    }
    p.check("OBJECT ENCODING big");
    check_hash_read(&mut p, &args(&["HGETALL", "big"]));
    let r = hscan_all(&mut p.redis, "big", &[]);
    let s = hscan_all(&mut p.sim, "big", &[]);
    assert_eq!(s, r);
}

/// HRANDFIELD's replies cannot equal Redis' picks: check their length,
/// that every field (and value) is the hash's, and distinctness for a
/// positive count, on listpack and hashtable hashes alike.
#[test]
fn hrandfield_shapes() {
    let mut p = Pair::start(&[]);
    let mut big = vec!["HSET".to_string(), "big".into()];
    for i in 0..600 {
        big.extend([format!("f{i}"), i.to_string()]);
    }
    let big: Vec<Vec<u8>> = big.into_iter().map(String::into_bytes).collect();
    p.check_with(&big, |f| f);
    p.check("HSET small a 1 b 2 c 3 d 4 e 5");
    for key in ["small", "big"] {
        for count in [
            "1", "2", "4", "5", "6", "-1", "-3", "-20", "150", "250", "599", "600", "1000",
        ] {
            for wv in [false, true] {
                let mut a = vec!["HRANDFIELD", key, count];
                if wv {
                    a.push("WITHVALUES");
                }
                check_hrandfield(&mut p, &args(&a));
            }
        }
        check_hrandfield(&mut p, &args(&["HRANDFIELD", key]));
    }
    // Over many draws every field of a small hash comes up.
    let mut seen = BTreeSet::new();
    for _ in 0..200 {
        if let Frame::Bulk(f) = p.sim.cmd(&["HRANDFIELD", "small"]) {
            seen.insert(f);
        }
    }
    assert_eq!(seen.len(), 5, "every field drawn: {seen:?}");
}

/// Checks one HRANDFIELD against both servers (see `hrandfield_shapes`).
fn check_hrandfield(p: &mut Pair, a: &[Vec<u8>]) {
    let key = String::from_utf8_lossy(&a[1]).into_owned();
    let (r, s) = p.both_args(a);
    p.compared += 1;
    let hash = contents(&mut p.redis, &key);
    match (&r, &s) {
        (Frame::Error(_), _) | (_, Frame::Error(_)) | (Frame::Null, _) => {
            assert_eq!(s, r, "{}", show(a))
        }
        (Frame::Bulk(_), Frame::Bulk(f)) => {
            assert!(
                hash.iter().any(|(k, _)| k == f),
                "{}: {f:?} not a field",
                show(a)
            );
        }
        (Frame::Array(rv), Frame::Array(sv)) => {
            assert_eq!(sv.len(), rv.len(), "{}: reply length", show(a));
            let count: i64 = String::from_utf8_lossy(&a[2]).parse().expect("count");
            let withvalues = a.len() == 4;
            let picked: Vec<(Vec<u8>, Option<Vec<u8>>)> = if withvalues {
                pairs(sv).into_iter().map(|(f, v)| (f, Some(v))).collect()
            } else {
                sv.iter()
                    .map(|x| match x {
                        Frame::Bulk(f) => (f.clone(), None),
                        other => panic!("field expected, got {other:?}"),
                    })
                    .collect()
            };
            for (f, v) in &picked {
                let Some((_, val)) = hash.iter().find(|(k, _)| k == f) else {
                    panic!("{}: {f:?} is not a field", show(a));
                };
                if let Some(v) = v {
                    assert_eq!(v, val, "{}: value of {f:?}", show(a));
                }
            }
            if count > 0 {
                let distinct: BTreeSet<&Vec<u8>> = picked.iter().map(|(f, _)| f).collect();
                assert_eq!(distinct.len(), picked.len(), "{}: repeats", show(a));
            }
        }
        _ => panic!("{}: redis {r:?}, redsim {s:?}", show(a)),
    }
}

/// Which lookups count keyspace hits and misses: per-command deltas of
/// INFO's counters must agree.
#[test]
fn keyspace_statistics_per_command() {
    let mut p = Pair::start(&[]);
    let corpus = r#"
        HSET h a 1 b 2
        HSET h c 3
        HSETNX h a 1
        HSETNX h z 1
        HMSET h d 4
        HGET h a
        HGET nokey a
        HMGET h a b
        HMGET nokey a
        HGETALL h
        HGETALL nokey
        HKEYS h
        HVALS nokey
        HLEN h
        HLEN nokey
        HEXISTS h a
        HSTRLEN nokey a
        HINCRBY h n 1
        HINCRBY nokey2 n 1
        HINCRBYFLOAT h n 1.5
        HINCRBY h a x
        HRANDFIELD h
        HRANDFIELD nokey
        HRANDFIELD h 2
        HRANDFIELD nokey 2
        HRANDFIELD h x
        HSCAN h 0
        HSCAN nokey 0
        HSCAN h x
        HDEL h a
        HDEL nokey a
        SET str v
        HGET str a
        HSET str a 1
        HDEL str a
        HDEL h b c d z n
        EXISTS h
    "#;
    for line in corpus.lines().map(str::trim).filter(|l| !l.is_empty()) {
        p.same_lookups(line, |p| {
            if line.starts_with("HRANDFIELD") {
                // A random pick: only its lookups are compared here.
                p.both(line);
            } else {
                p.check(line);
            }
        });
    }
}

/// The keys of the random hash commands (`str` is often a string).
const HASH_KEYS: [&str; 4] = ["h1", "h2", "h3", "str"];

/// One random hash command (or string command on the same keys, for
/// WRONGTYPE both ways) over a small alphabet; now and then a CONFIG SET
/// lowering the encoding limits, so that conversions happen.
fn random_hash_command(rng: &mut Rng) -> Vec<String> {
    let long_field = "long-field-name";
    let fields = ["a", "b", "c", "d", "e", "f", "1", "-2", "", long_field];
    let long = "a-rather-long-value-that-is-more-than-twenty-bytes";
    let values = [
        "", "0", "1", "-1", "10", "abc", "3.5", "-2.25", "1e3", " 1", "01", "+1", I64_MAX, I64_MIN,
        "0x1p3", "inf", long,
    ];
    let incrs = ["1", "-1", "0", "100", "x", "1.5", I64_MAX, I64_MIN];
    let k = rng.pick(&HASH_KEYS);
    let [f, f2] = rng.picks(&fields);
    let [v, v2] = rng.picks(&values);
    match rng.below(30) {
        0..=3 => {
            let mut c = words(&["HSET", k, f, v]);
            if rng.below(2) == 0 {
                c.extend([f2.into(), v2.into()]);
            }
            c
        }
        4 => words(&["HSETNX", k, f, v]),
        5 => words(&["HMSET", k, f, v, f2, v2]),
        6 | 7 => words(&["HGET", k, f]),
        8 => words(&["HMGET", k, f, f2, "zz"]),
        9 | 10 => {
            let mut c = words(&["HDEL", k, f]);
            if rng.below(2) == 0 {
                c.push(f2.into());
            }
            c
        }
        11 => words(&["HLEN", k]),
        12 => words(&["HEXISTS", k, f]),
        13 | 14 => words(&["HINCRBY", k, f, rng.pick(&incrs)]),
        15 => words(&["HINCRBYFLOAT", k, f, rng.pick(&values)]),
        16 => words(&["HSTRLEN", k, f]),
        17 => words(&["HGETALL", k]),
        18 => words(&["HKEYS", k]),
        19 => words(&["HVALS", k]),
        20 => {
            let mut c = words(&["HRANDFIELD", k]);
            if rng.below(3) > 0 {
                c.push(rng.pick(&RANDOM_COUNTS).into());
                if rng.below(2) == 0 {
                    c.push("WITHVALUES".into());
                }
            }
            c
        }
        21 => words(&["HSCAN", k, "0"]),
        22 => words(&["SET", k, v]),
        23 => words(&["GET", k]),
        24 => words(&["DEL", k]),
        25 => words(&[
            ["APPEND", "INCR", "STRLEN", "TYPE", "EXISTS"][rng.below(5)],
            k,
        ]),
        26 => words(&["RENAME", k, rng.pick(&HASH_KEYS)]),
        27 => {
            // Move the limits so conversions happen at small sizes too.
            let (name, value) = match rng.below(4) {
                0 => ("hash-max-listpack-entries", ["2", "4", "512"][rng.below(3)]),
                1 => ("hash-max-ziplist-entries", ["3", "512"][rng.below(2)]),
                2 => ("hash-max-listpack-value", ["1", "4", "64"][rng.below(3)]),
                _ => ("hash-max-ziplist-value", ["8", "64"][rng.below(2)]),
            };
            words(&["CONFIG", "SET", name, value])
        }
        _ => words(&["OBJECT", "ENCODING", k]),
    }
}

/// A seeded stream of random hash commands ([`random_hash_command`]).
/// Each reply, each command's keyspace hit/miss counts, and OBJECT
/// ENCODING after every write are compared.
#[test]
fn random_hash_commands_match() {
    let mut writes = 0;
    let mut p = random_steps(0x6861_7368, 3000, random_hash_command, |p, step, cmd| {
        let a = word_args(&cmd);
        let k = cmd[1].as_str();
        match cmd[0].as_str() {
            // HRANDFIELD's checker and HSCAN's iterations read more than the
            // command: their lookups are not compared.
            "HRANDFIELD" => check_hrandfield(p, &a),
            "HSCAN" => {
                let (r, s) = p.both_args(&a);
                if r != s {
                    // Only a hashtable's pages may differ: compare full iterations.
                    assert_eq!(
                        p.sim.cmd(&["OBJECT", "ENCODING", k]),
                        Frame::bulk("hashtable")
                    );
                    assert_eq!(
                        hscan_all(&mut p.sim, k, &[]),
                        hscan_all(&mut p.redis, k, &[])
                    );
                }
            }
            name => {
                p.same_lookups(format_args!("step {step}: {}", show(&a)), |p| {
                    if matches!(name, "HGETALL" | "HKEYS" | "HVALS") {
                        check_hash_read(p, &a);
                    } else {
                        p.check_with(&a, |f| f);
                    }
                });
            }
        }
        if cmd[0].starts_with('H') && !matches!(cmd[0].as_str(), "HGET" | "HMGET" | "HLEN") {
            writes += 1;
            p.check(&format!("OBJECT ENCODING {k}"));
        }
    });
    assert!(writes > 1000, "{writes} hash commands");
    // The final states agree.
    for k in HASH_KEYS {
        p.check(&format!("TYPE {k}"));
        check_hash_read(&mut p, &args(&["HGETALL", k]));
    }
    assert!(p.compared > 4000, "{} replies compared", p.compared);
}

/// The command table agrees with what Redis' `COMMAND INFO` reports, and
/// the family is complete: every hash command Redis has.
#[test]
fn command_table_matches_command_info() {
    let redis = RedisServer::start(&[]);
    assert_command_group(&mut redis.conn(), "hash", 16, &[]);
}
