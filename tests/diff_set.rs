//! Differential tests of the set commands: the same commands go to a real redis-server and to redsim's native server, and the replies (errors included), keyspace statistics and encodings must agree.
//!
//! The reference is Redis 7.0.15, and sets are where 7.2 differs from it:
//! 7.2 keeps small sets of strings in a listpack (7.0 uses a hashtable),
//! with the conversions `setTypeAddAux` makes. Redsim follows 7.2, so
//! - where 7.0 says `hashtable` and 7.2 says `listpack`, the tests assert
//!   the 7.2 answer explicitly (lines starting with `@listpack` below),
//!   and check 7.0's `hashtable` to show the difference is the known one;
//! - member order is compared only for intsets (ascending in both); other
//!   replies are compared as multisets, SSCAN over full iterations;
//! - in the random stream, an encoding may differ only as 7.2 differs
//!   (redsim `listpack` where 7.0 has `hashtable`), and then redsim's set
//!   must be within the listpack limits.
//!
//! Random replies (SPOP, SRANDMEMBER) are checked for length, membership
//! and distinctness; after SPOP the reference is brought to redsim's state
//! (SADD back what it popped, SREM what redsim popped) so the stream goes on.

use std::collections::BTreeSet;

use redsim_engine::proto::clifmt::format_reply;
use redsim_tests::{
    args, assert_command_group, bulk_items, bulk_strings, corpus_tests, parse, random_steps,
    scan_all, show, word_args, words, Conn, Differ, Frame, Pair, RedisServer, RedsimServer, Rng,
    RANDOM_COUNTS,
};

/// An OBJECT ENCODING whose 7.2 answer is `want`: redsim must give it;
/// Redis 7.0 gives `hashtable` instead (no listpack sets), a newer
/// reference the same as redsim.
fn check_72_encoding(p: &mut Pair, key: &str, want: &str) {
    let (r, s) = p.both_args(&args(&["OBJECT", "ENCODING", key]));
    assert_eq!(s, Frame::bulk(want), "OBJECT ENCODING {key} (7.2's answer)");
    if p.redis_is_7_0() && want == "listpack" {
        assert_eq!(r, Frame::bulk("hashtable"), "7.0's answer for {key}");
    } else {
        assert_eq!(r, s, "OBJECT ENCODING {key}");
    }
    p.compared += 1;
}

/// Runs a corpus: one command per line, `#` comments. `~` compares the
/// reply as a multiset; `@enc key` checks an encoding whose 7.2 answer
/// is `enc` (see `check_72_encoding`).
fn corpus(p: &mut Pair, text: &str) {
    p.corpus_by(text, |p, line| {
        if let Some(rest) = line.strip_prefix('~') {
            p.check_with(&parse(rest), unordered);
        } else if let Some(rest) = line.strip_prefix('@') {
            let (enc, key) = rest.split_once(' ').expect("`@encoding key`");
            check_72_encoding(p, key, enc);
        } else {
            p.check(line);
        }
    });
}

/// A reply with its order removed: arrays and sets sorted, nested ones
/// too (an SSCAN page), a set reply and an array reply staying distinct.
fn unordered(f: Frame) -> Frame {
    let sort = |v: Vec<Frame>| {
        let mut v: Vec<Frame> = v.into_iter().map(unordered).collect();
        v.sort_by_key(|x| format!("{x:?}"));
        v
    };
    match f {
        Frame::Array(v) => Frame::Array(sort(v)),
        Frame::Set(v) => Frame::Set(sort(v)),
        other => other,
    }
}

/// The members of the set at `key` on one server (empty if none or not a set).
fn members(c: &mut Conn, key: &str) -> BTreeSet<Vec<u8>> {
    match c.cmd(&["SMEMBERS", key]) {
        Frame::Error(_) => BTreeSet::new(),
        f => bulk_items(&f).into_iter().collect(),
    }
}

/// Every member an SSCAN iteration returns from one server, or the first
/// reply if it is an error.
fn sscan_all(c: &mut Conn, key: &str, opts: &[&str]) -> Result<BTreeSet<Vec<u8>>, Frame> {
    let mut out = BTreeSet::new();
    scan_all(c, &["SSCAN", key], opts, |page| {
        out.extend(bulk_strings(page))
    })?;
    Ok(out)
}

const BASICS: &str = r#"
SADD s a b c
SADD s a d
SADD s a
SADD s
SCARD s
SCARD nokey
SISMEMBER s a
SISMEMBER s z
SISMEMBER nokey a
SMISMEMBER s a z b a
SMISMEMBER nokey a b
SMISMEMBER s
~SMEMBERS s
~SMEMBERS nokey
SREM s z
SREM s a a b
SREM nokey a
SREM s c d e
EXISTS s
SADD i 3 1 2 -5 10000 3
SMEMBERS i
SISMEMBER i 03
SISMEMBER i 3
SISMEMBER i " 3"
SREM i 03
SREM i +3 3
SMEMBERS i
SADD "" ""
SMEMBERS ""
SADD bin "a\x00b" "\r\n"
~SMEMBERS bin
SISMEMBER bin "a\x00b"
SMOVE i dst 1
SMOVE i dst 1
SMOVE i dst nope
SMOVE nosrc dst 1
SMOVE i i 2
SMOVE i i 99
SMEMBERS i
SMEMBERS dst
SADD one x
SMOVE one dst x
EXISTS one
~SMEMBERS dst
SMOVE dst dst2 x
SMOVE dst dst2 x
SMOVE dst dst2 1
EXISTS dst
~SMEMBERS dst2
SCARD
SISMEMBER s
SMOVE a b
SMEMBERS a b
SPOP
SRANDMEMBER
"#;

const ALGEBRA: &str = r#"
SADD a 1 2 3 4 5
SADD b 4 5 6 7
SADD c x y 5
SADD d 5
SINTER a b
~SINTER a c
SINTER a b d
SINTER a nokey
SINTER nokey a
SINTER a a
SINTER d
~SUNION a b c
~SUNION a nokey
~SUNION nokey
SUNION a
SDIFF a b
~SDIFF c a
SDIFF a nokey
SDIFF nokey a
SDIFF a a
SDIFF a b a
SDIFF a nokey b
~SDIFF c nokey d
SINTERCARD 2 a b
SINTERCARD 2 a b LIMIT 1
SINTERCARD 2 a b LIMIT 0
SINTERCARD 2 a b limit 5
SINTERCARD 1 a LIMIT 3
SINTERCARD 2 a nokey
SINTERCARD 3 a b c
SINTERCARD 1 a
SINTERCARD 0 a
SINTERCARD -1 a
SINTERCARD x a
SINTERCARD 3 a b
SINTERCARD 2 a b LIMIT -1
SINTERCARD 2 a b LIMIT x
SINTERCARD 2 a b LIMIT
SINTERCARD 2 a b LIMIT 1 LIMIT 2
SINTERCARD 2 a b FOO 1
SINTERCARD 1 a b
SINTERCARD 9223372036854775807 a
SINTERCARD 1
SINTERSTORE dst a b
SMEMBERS dst
SINTERSTORE dst a nokey
EXISTS dst
SINTERSTORE dst a b
SINTERSTORE dst a c
~SMEMBERS dst
SINTERSTORE dst dst b
SMEMBERS dst
SUNIONSTORE u a b
SMEMBERS u
SUNIONSTORE u nokey
EXISTS u
SUNIONSTORE u a c
~SMEMBERS u
SDIFFSTORE df a b
SMEMBERS df
SDIFFSTORE df a a
EXISTS df
SDIFFSTORE a a b
SMEMBERS a
SET str v
SINTER a str
SINTER nokey str
SINTER str nokey
SUNION a str
SDIFF nokey str
SDIFF a str
SINTERCARD 2 a str
SINTERSTORE str a b
GET str
SINTERSTORE dst str
SMEMBERS dst
SUNIONSTORE str a
TYPE str
SET str v
SDIFFSTORE str a
TYPE str
SET str v
SINTERSTORE dst a nokey str
SINTERSTORE dst nokey a
SINTERSTORE
SUNIONSTORE dst
SDIFF
"#;

const WRONGTYPE: &str = r#"
SET str v
SADD str a
SREM str a
SISMEMBER str a
SMISMEMBER str a
SCARD str
SMEMBERS str
SPOP str
SPOP str 2
SPOP str -1
SPOP str 1 2
SRANDMEMBER str
SRANDMEMBER str 2
SRANDMEMBER str x
SRANDMEMBER str 1 2
SMOVE str dst a
SSCAN str 0
SSCAN str x
SSCAN str 0 COUNT 0
SADD s a
SMOVE s str a
SMOVE nokey str a
SMISMEMBER s a
HSET h f v
SMOVE s h a
SADD h x
SMEMBERS h
SINTER s h
GET s
SET s v XX GET
GETDEL s
INCR s
APPEND s x
STRLEN s
GETRANGE s 0 -1
SETRANGE s 0 x
MGET s str
HGET s f
HSET s f v
TYPE s
@listpack s
RENAME s s2
SISMEMBER s2 a
SET s2 plain
TYPE s2
"#;

const RANDOM_AND_SCAN_ERRORS: &str = r#"
SADD r a b c
SPOP r 0
SPOP r -1
SPOP r x
SPOP r 1.5
SPOP r -9223372036854775808
SPOP r 1 x
SPOP nokey
SPOP nokey 3
SPOP nokey 0
SPOP nokey -1
SRANDMEMBER r 0
SRANDMEMBER r x
SRANDMEMBER r -9223372036854775808
SRANDMEMBER r 1 x
SRANDMEMBER nokey
SRANDMEMBER nokey 5
SRANDMEMBER nokey -5
SRANDMEMBER nokey x
SSCAN r 0 COUNT 0
SSCAN r 0 COUNT -1
SSCAN r 0 COUNT x
SSCAN r 0 COUNT
SSCAN r 0 MATCH
SSCAN r 0 TYPE string
SSCAN r 0 foo bar
SSCAN r x
SSCAN r " 0"
SSCAN r 18446744073709551616
SSCAN nokey 0
SSCAN nokey 0 COUNT 0
SSCAN nokey x
SSCAN r
SADD ints 5 1 3 -7
SSCAN ints 0
SSCAN ints 17
SSCAN ints -1
SSCAN ints ""
SSCAN ints "0\x00x"
SSCAN ints 0 MATCH 1*
SSCAN ints 0 MATCH *
SSCAN ints 0 MATCH -* COUNT 1
SRANDMEMBER ints 4
SRANDMEMBER ints 100
SRANDMEMBER ints 9223372036854775807
"#;

/// Writes in place keep a key's TTL; a STORE result is a new value
/// (`setKey`), so the destination loses its TTL; SPOP keeps it.
#[test]
fn ttl_kept_by_writes_dropped_by_store() {
    let mut p = Pair::start(&[]);
    corpus(
        &mut p,
        "SADD t a b c d e
         EXPIRE t 100
         SADD t f
         SREM t a
         SMOVE t other b
         TTL t",
    );
    check_spop(&mut p, "t", None);
    check_spop(&mut p, "t", Some("1"));
    corpus(
        &mut p,
        "TTL t
         SADD u x y
         EXPIRE u 100
         SMOVE t u c
         TTL u
         SINTERSTORE u u
         TTL u
         SADD v 1
         EXPIRE v 100
         SUNIONSTORE v v nokey
         TTL v
         SADD w 1
         EXPIRE w 100
         SDIFFSTORE w nokey
         EXISTS w",
    );
}

corpus_tests! { corpus =>
    basics_and_arity: BASICS;
    intersections_unions_differences: ALGEBRA;
    wrongtype_both_ways: WRONGTYPE;
    random_and_scan_argument_errors: RANDOM_AND_SCAN_ERRORS;
}

/// Intsets and hashtables at their thresholds agree with 7.0 exactly;
/// listpacks are 7.2's (asserted explicitly, see the module doc).
#[test]
fn encodings_at_the_thresholds() {
    let mut p = Pair::start(&[]);
    let ints: Vec<String> = (0..512).map(|i| (i * 7 - 1000).to_string()).collect();
    let strs: Vec<String> = (0..128).map(|i| format!("m{i}")).collect();
    let v64 = "v".repeat(64);
    let v65 = "v".repeat(65);
    let sadd = |key: &str, members: &[String]| -> Vec<Vec<u8>> {
        let mut a = vec![b"SADD".to_vec(), key.as_bytes().to_vec()];
        a.extend(members.iter().map(|m| m.as_bytes().to_vec()));
        a
    };
    corpus(
        &mut p,
        "CONFIG GET set-max-intset-entries
         SADD i 1
         OBJECT ENCODING i
         SADD i 32767 -32768
         OBJECT ENCODING i
         SADD i 9223372036854775807
         OBJECT ENCODING i
         SADD i 01
         @listpack i
         ~SMEMBERS i
         SADD l a
         @listpack l
         SADD l 1 2
         @listpack l
         SREM l a
         @listpack l
         ~SMEMBERS l",
    );
    p.check_with(&sadd("big", &ints), |f| f);
    corpus(
        &mut p,
        "OBJECT ENCODING big
         SADD big 100000
         OBJECT ENCODING big
         SREM big 100000
         OBJECT ENCODING big",
    );
    p.check_with(&sadd("big2", &ints), |f| f);
    corpus(
        &mut p,
        "SADD big2 x
         OBJECT ENCODING big2",
    );
    p.check_with(&sadd("str", &strs), |f| f);
    corpus(
        &mut p,
        "@listpack str
         SADD str one-more
         OBJECT ENCODING str
         SREM str one-more m1 m2
         OBJECT ENCODING str",
    );
    // A string into an intset of 128 already: too many for a listpack.
    p.check_with(&sadd("i128", &ints[..128]), |f| f);
    p.check("SADD i128 x");
    p.check("OBJECT ENCODING i128");
    p.check_with(&sadd("i127", &ints[..127]), |f| f);
    p.check("SADD i127 x");
    check_72_encoding(&mut p, "i127", "listpack");
    corpus(
        &mut p,
        &format!(
            "SADD v {v64}
         @listpack v
         SADD v {v65}
         OBJECT ENCODING v
         SADD v2 {v65}
         OBJECT ENCODING v2
         SADD v3 1 {v65}
         OBJECT ENCODING v3"
        ),
    );
    // The limits move with CONFIG SET; conversions never go back.
    corpus(
        &mut p,
        "CONFIG SET set-max-intset-entries 3
         SADD c1 1 2 3
         OBJECT ENCODING c1
         SADD c1 4
         OBJECT ENCODING c1
         SREM c1 4 3
         OBJECT ENCODING c1
         # 7.2 sizes a new set for every member coming: four integers over
         # a limit of three start as a listpack (7.0: an intset, then a hashtable).
         SADD c2 1 2 3 4
         @listpack c2
         CONFIG SET set-max-intset-entries 0
         SADD c3 1
         @listpack c3
         CONFIG SET set-max-intset-entries 512
         CONFIG SET set-max-intset-entries -1
         CONFIG SET set-max-intset-entries 1kb
         CONFIG SET set-max-intset-entries 9223372036854775808",
    );
    if !p.redis_is_7_0() {
        corpus(
            &mut p,
            "CONFIG SET set-max-listpack-entries 2
             SADD c4 a b
             OBJECT ENCODING c4
             SADD c4 c
             OBJECT ENCODING c4
             SADD c5 a b c
             OBJECT ENCODING c5
             CONFIG SET set-max-listpack-entries 128
             CONFIG SET set-max-listpack-value 2
             SADD c6 ab
             OBJECT ENCODING c6
             SADD c6 abc
             OBJECT ENCODING c6
             SADD c7 123 x
             OBJECT ENCODING c7
             CONFIG SET set-max-listpack-value 1kb
             CONFIG SET set-max-listpack-value 64",
        );
    }
}

/// The listpack limits exist only in 7.2: checked on redsim alone, with
/// the answers 7.2's `setTypeAddAux` gives.
#[test]
fn listpack_limits_follow_7_2() {
    let s = RedsimServer::start(&[]);
    let mut c = s.conn();
    let script: &[(&[&str], Frame)] = &[
        (&["CONFIG", "GET", "set-max-listpack-*"], {
            Frame::Array(vec![
                Frame::bulk("set-max-listpack-entries"),
                Frame::bulk("128"),
                Frame::bulk("set-max-listpack-value"),
                Frame::bulk("64"),
            ])
        }),
        (&["CONFIG", "SET", "set-max-listpack-entries", "2"], Frame::ok()),
        (&["SADD", "a", "x", "y"], Frame::Integer(2)),
        (&["OBJECT", "ENCODING", "a"], Frame::bulk("listpack")),
        (&["SADD", "a", "z"], Frame::Integer(1)),
        (&["OBJECT", "ENCODING", "a"], Frame::bulk("hashtable")),
        (&["SADD", "b", "x", "y", "z"], Frame::Integer(3)),
        (&["OBJECT", "ENCODING", "b"], Frame::bulk("hashtable")),
        (&["SADD", "i", "1", "2"], Frame::Integer(2)),
        (&["SADD", "i", "x"], Frame::Integer(1)),
        (&["OBJECT", "ENCODING", "i"], Frame::bulk("hashtable")),
        (&["CONFIG", "SET", "set-max-listpack-entries", "128"], Frame::ok()),
        (&["CONFIG", "SET", "set-max-listpack-value", "2"], Frame::ok()),
        (&["SADD", "v", "ab"], Frame::Integer(1)),
        (&["OBJECT", "ENCODING", "v"], Frame::bulk("listpack")),
        (&["SADD", "v", "abc"], Frame::Integer(1)),
        (&["OBJECT", "ENCODING", "v"], Frame::bulk("hashtable")),
        // An intset whose longest integer has more digits than the limit.
        (&["SADD", "w", "123", "x"], Frame::Integer(2)),
        (&["OBJECT", "ENCODING", "w"], Frame::bulk("hashtable")),
        (&["SADD", "w2", "12", "x"], Frame::Integer(2)),
        (&["OBJECT", "ENCODING", "w2"], Frame::bulk("listpack")),
        (
            &["CONFIG", "SET", "set-max-listpack-value", "1kb"],
            Frame::err("ERR CONFIG SET failed (possibly related to argument 'set-max-listpack-value') - argument couldn't be parsed into an integer"),
        ),
        (&["CONFIG", "SET", "set-max-listpack-value", "64"], Frame::ok()),
        // Listpack order is insertion order, integers included.
        (&["SADD", "o", "b", "3", "a", "1"], Frame::Integer(4)),
        (
            &["SMEMBERS", "o"],
            Frame::Array(vec![
                Frame::bulk("b"),
                Frame::bulk("3"),
                Frame::bulk("a"),
                Frame::bulk("1"),
            ]),
        ),
        (&["SREM", "o", "b", "a"], Frame::Integer(2)),
        (&["OBJECT", "ENCODING", "o"], Frame::bulk("listpack")),
    ];
    for (cmd, want) in script {
        assert_eq!(&c.cmd(cmd), want, "{cmd:?}");
    }
}

/// What the STORE commands and SPOP leave behind is a fresh set: its
/// encoding follows the result, not the sources. Intset-ness agrees with
/// 7.0; listpacks are 7.2's.
#[test]
fn store_results_take_the_best_encoding() {
    let mut p = Pair::start(&[]);
    let mut ints: Vec<String> = (0..300).map(|i| i.to_string()).collect();
    let mut a = vec!["SADD".to_string(), "big".into()];
    a.append(&mut ints);
    a.push("x".into());
    let a: Vec<Vec<u8>> = a.into_iter().map(String::into_bytes).collect();
    p.check_with(&a, |f| f);
    corpus(
        &mut p,
        "OBJECT ENCODING big
         SADD few 1 2 3 x
         @listpack few
         SADD ints 1 2 3 4 400
         # The intersection of a hashtable and an intset, all integers: an intset.
         SINTERSTORE d1 big ints
         OBJECT ENCODING d1
         SMEMBERS d1
         # Strings in the result: 7.2 builds a listpack.
         SINTERSTORE d2 big few
         @listpack d2
         ~SMEMBERS d2
         # The members left after removing the string are integers: an intset.
         SREM few x
         SINTERSTORE d3 few big
         OBJECT ENCODING d3
         SMEMBERS d3
         # Unions and differences start from an intset.
         SUNIONSTORE u1 ints d1
         OBJECT ENCODING u1
         SUNIONSTORE u2 ints big
         OBJECT ENCODING u2
         SDIFFSTORE df1 big ints
         OBJECT ENCODING df1
         SCARD df1
         SDIFFSTORE df2 ints big
         OBJECT ENCODING df2
         SMEMBERS df2
         SDIFFSTORE df3 few nokey
         OBJECT ENCODING df3
         SADD strs a b c
         SDIFFSTORE df4 strs nokey
         @listpack df4
         SUNIONSTORE u3 strs ints
         @listpack u3",
    );
    // SPOP of most of a hashtable keeps the rest in a new set: an intset
    // stays one, a hashtable's rest becomes a listpack in 7.2.
    let mut strs = vec!["SADD".to_string(), "hs".into()];
    strs.extend((0..200).map(|i| format!("m{i}")));
    let strs: Vec<Vec<u8>> = strs.into_iter().map(String::into_bytes).collect();
    p.check_with(&strs, |f| f);
    p.check("OBJECT ENCODING hs");
    let before = members(&mut p.sim, "hs");
    let popped = bulk_items(&p.sim.cmd(&["SPOP", "hs", "190"]));
    assert_eq!(popped.len(), 190);
    let after = members(&mut p.sim, "hs");
    assert_eq!(after.len(), 10);
    let mut all: BTreeSet<Vec<u8>> = popped.iter().cloned().collect();
    assert_eq!(all.len(), 190, "distinct");
    all.extend(after.iter().cloned());
    assert_eq!(all, before, "popped and kept make the set");
    assert_eq!(
        p.sim.cmd(&["OBJECT", "ENCODING", "hs"]),
        Frame::bulk("listpack")
    );
    p.check("SADD is 1 2 3 4 5 6 7 8 9 10");
    let popped = bulk_items(&p.sim.cmd(&["SPOP", "is", "9"]));
    assert_eq!(popped.len(), 9);
    assert_eq!(
        p.sim.cmd(&["OBJECT", "ENCODING", "is"]),
        Frame::bulk("intset")
    );
}

/// SPOP and SRANDMEMBER in every case of their algorithms, on every
/// encoding: lengths as Redis', members of the set, distinct when they
/// must be, and SPOP's removals exact.
#[test]
fn random_members_shapes() {
    let mut p = Pair::start(&[]);
    let big: Vec<String> = (0..300).map(|i| format!("m{i}")).collect();
    let ints: Vec<String> = (0..300).map(|i| i.to_string()).collect();
    let mut setup = |key: &str, members: &[String]| {
        let mut a = vec![b"SADD".to_vec(), key.as_bytes().to_vec()];
        a.extend(members.iter().map(|m| m.as_bytes().to_vec()));
        p.check_with(&a, |f| f);
    };
    setup("table", &big);
    setup("intset", &ints);
    setup("lp", &big[..20]);
    setup("smallint", &ints[..20]);
    for key in ["table", "intset", "lp", "smallint"] {
        for count in [
            "1", "2", "5", "19", "20", "21", "99", "101", "299", "300", "1000", "-1", "-7", "-500",
        ] {
            check_srandmember(&mut p, key, Some(count));
        }
        check_srandmember(&mut p, key, None);
    }
    for key in ["table", "intset", "lp", "smallint"] {
        for count in [None, Some("1"), Some("3"), Some("10"), Some("0")] {
            check_spop(&mut p, key, count);
        }
    }
    // Most of the set (CASE 3) and all of it (CASE 1).
    for key in ["table", "intset", "lp", "smallint"] {
        check_spop(&mut p, key, Some("12"));
        p.check(&format!("SCARD {key}"));
        check_spop(&mut p, key, Some("1000"));
        p.check(&format!("EXISTS {key}"));
    }
    // A draw from a small set eventually yields every member.
    p.check("SADD few a b c");
    let mut seen = BTreeSet::new();
    for _ in 0..200 {
        if let Frame::Bulk(m) = p.sim.cmd(&["SRANDMEMBER", "few"]) {
            seen.insert(m);
        }
    }
    assert_eq!(seen.len(), 3);
}

/// One SRANDMEMBER on both servers (see `random_members_shapes`).
fn check_srandmember(p: &mut Pair, key: &str, count: Option<&str>) {
    let mut a = vec!["SRANDMEMBER", key];
    a.extend(count);
    let a = args(&a);
    let (r, s) = p.both_args(&a);
    p.compared += 1;
    let set = members(&mut p.redis, key);
    match (&r, &s) {
        (Frame::Bulk(_), Frame::Bulk(m)) => assert!(set.contains(m), "{}: {m:?}", show(&a)),
        (Frame::Array(rv), Frame::Array(sv)) => {
            assert_eq!(sv.len(), rv.len(), "{}: length", show(&a));
            let got = bulk_items(&s);
            assert!(got.iter().all(|m| set.contains(m)), "{}: members", show(&a));
            let n: i64 = count.unwrap_or("1").parse().expect("count");
            if n > 0 {
                let distinct: BTreeSet<&Vec<u8>> = got.iter().collect();
                assert_eq!(distinct.len(), got.len(), "{}: repeats", show(&a));
            }
        }
        _ => assert_eq!(s, r, "{}", show(&a)),
    }
}

/// One SPOP on both servers: same length and type, redsim's picks are
/// the set's and distinct, then Redis is brought to redsim's state.
fn check_spop(p: &mut Pair, key: &str, count: Option<&str>) {
    let mut a = vec!["SPOP", key];
    a.extend(count);
    let a = args(&a);
    let before = members(&mut p.sim, key);
    let (r, s) = p.both_args(&a);
    p.compared += 1;
    let (rp, sp) = match (&r, &s) {
        (Frame::Bulk(x), Frame::Bulk(y)) => (vec![x.clone()], vec![y.clone()]),
        (Frame::Set(_), Frame::Set(_)) | (Frame::Array(_), Frame::Array(_)) => {
            (bulk_items(&r), bulk_items(&s))
        }
        _ => {
            assert_eq!(s, r, "{}", show(&a));
            return;
        }
    };
    assert_eq!(sp.len(), rp.len(), "{}: how many popped", show(&a));
    let distinct: BTreeSet<Vec<u8>> = sp.iter().cloned().collect();
    assert_eq!(distinct.len(), sp.len(), "{}: distinct", show(&a));
    assert!(distinct.is_subset(&before), "{}: members", show(&a));
    let after = members(&mut p.sim, key);
    assert!(after.is_disjoint(&distinct), "{}: removed", show(&a));
    assert_eq!(
        after.len() + sp.len(),
        before.len(),
        "{}: the rest stays",
        show(&a)
    );
    resync(p, key, &rp, &sp);
}

/// Puts back on Redis what it popped and pops what redsim popped, so both
/// hold the same members again.
fn resync(p: &mut Pair, key: &str, redis_popped: &[Vec<u8>], sim_popped: &[Vec<u8>]) {
    if redis_popped == sim_popped {
        return;
    }
    let sadd: Vec<&[u8]> = [&b"SADD"[..], key.as_bytes()]
        .into_iter()
        .chain(redis_popped.iter().map(|m| m.as_slice()))
        .collect();
    p.redis.cmd_bytes(&sadd);
    let srem: Vec<&[u8]> = [&b"SREM"[..], key.as_bytes()]
        .into_iter()
        .chain(sim_popped.iter().map(|m| m.as_slice()))
        .collect();
    p.redis.cmd_bytes(&srem);
    assert_eq!(members(&mut p.redis, key), members(&mut p.sim, key));
}

/// SSCAN: an intset comes whole and sorted (equal in both); a hashtable
/// over full iterations; a 7.2 listpack (a 7.0 hashtable) the same way.
#[test]
fn sscan_full_iterations() {
    let mut p = Pair::start(&[]);
    let mut a = words(&["SADD", "big"]);
    a.extend((0..1000).map(|i| format!("member:{i}")));
    p.check_args(&word_args(&a));
    corpus(
        &mut p,
        "SADD small a b c 1 2
         SADD ints 9 -3 100 7",
    );
    for key in ["big", "small", "ints"] {
        p.check_full_scans(&format!("SSCAN {key}"), "member:", |c, opts| {
            sscan_all(c, key, opts)
        });
    }
    p.check("SSCAN ints 0");
    p.check("SSCAN ints 0 MATCH 1*");
    // 7.2 returns a listpack whole; so does redsim.
    let Frame::Array(page) = p.sim.cmd(&["SSCAN", "small", "0", "COUNT", "1"]) else {
        panic!("SSCAN page");
    };
    assert_eq!(page[0], Frame::bulk("0"));
    assert_eq!(bulk_items(&page[1]).len(), 5);
    // A hashtable page is partial.
    let Frame::Array(page) = p.sim.cmd(&["SSCAN", "big", "0", "COUNT", "5"]) else {
        panic!("SSCAN page");
    };
    assert_ne!(page[0], Frame::bulk("0"));
    assert!(bulk_items(&page[1]).len() < 100);
}

/// RESP3 reply types: SMEMBERS, SINTER/SUNION/SDIFF and SPOP with a count
/// are sets; SRANDMEMBER with a count and SMISMEMBER are arrays.
#[test]
fn resp3_replies() {
    let mut p = Pair::start(&[]).resp3();
    corpus(
        &mut p,
        "SADD s 1 2 3
         SADD t 3 4
         SMEMBERS s
         SMEMBERS nokey
         SINTER s t
         SINTER s nokey
         SUNION s t
         SDIFF s t
         SMISMEMBER s 1 9
         SPOP nokey
         SPOP nokey 2
         SPOP s 0
         SRANDMEMBER nokey
         SRANDMEMBER nokey 3
         SRANDMEMBER s 0
         SRANDMEMBER s 10
         SSCAN s 0
         SINTERCARD 2 s t",
    );
    let (r, s) = p.both_args(&args(&["SPOP", "t", "5"]));
    assert!(
        matches!(r, Frame::Set(_)) && matches!(s, Frame::Set(_)),
        "{r:?} {s:?}"
    );
    let (r, s) = p.both_args(&args(&["SPOP", "s", "2"]));
    assert!(
        matches!(r, Frame::Set(_)) && matches!(s, Frame::Set(_)),
        "{r:?} {s:?}"
    );
}

/// Which lookups count keyspace hits and misses: per-command deltas of
/// INFO's counters must agree (random replies are not compared here).
#[test]
fn keyspace_statistics_per_command() {
    let mut p = Pair::start(&[]);
    let corpus = r#"
        SADD s a b c
        SADD s d
        SREM s d
        SREM nokey d
        SISMEMBER s a
        SISMEMBER nokey a
        SMISMEMBER s a b
        SMISMEMBER nokey a
        SCARD s
        SCARD nokey
        SMEMBERS s
        SMEMBERS nokey
        SRANDMEMBER s
        SRANDMEMBER nokey
        SRANDMEMBER s 2
        SRANDMEMBER nokey 2
        SRANDMEMBER s x
        SSCAN s 0
        SSCAN nokey 0
        SSCAN s x
        SADD t c d
        SINTER s t
        SINTER s nokey t
        SUNION s nokey
        SDIFF s t nokey
        SINTERCARD 2 s t
        SINTERCARD 2 nokey t
        SINTERSTORE dst s t
        SINTERSTORE dst nokey t
        SUNIONSTORE dst s t
        SDIFFSTORE dst s t
        SMOVE s t a
        SMOVE nokey t a
        SMOVE s nokey2 b
        SPOP t
        SPOP nokey
        SPOP t 1
        SPOP nokey 2
        SPOP t 100
        SET str v
        SINTER s str
        SADD str a
        SPOP str 2
    "#;
    for line in corpus.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let a = parse(line);
        let random = line.starts_with("SRANDMEMBER") || line.starts_with("SPOP");
        let (r, s) = p.same_lookups(line, |p| p.both_args(&a));
        if random {
            if let (Frame::Set(_) | Frame::Array(_), Frame::Set(_) | Frame::Array(_)) = (&r, &s) {
                assert_eq!(bulk_items(&r).len(), bulk_items(&s).len(), "{line}");
            }
            let key = String::from_utf8_lossy(&a[1]).into_owned();
            if line.starts_with("SPOP") {
                let popped = |f: &Frame| match f {
                    Frame::Bulk(b) => vec![b.clone()],
                    Frame::Null | Frame::Error(_) => vec![],
                    other => bulk_items(other),
                };
                resync(&mut p, &key, &popped(&r), &popped(&s));
            }
        } else {
            assert_eq!(
                unordered(s.clone()),
                unordered(r.clone()),
                "{line}\n  redis:  {}\n  redsim: {}",
                format_reply(&r),
                format_reply(&s)
            );
        }
    }
}

/// A write that changes nothing (SADD of a present member, SREM or HDEL of
/// an absent one) does not touch the key, so a WATCH on it survives; a real
/// change dooms the transaction. Two clients on each server.
#[test]
fn watch_sees_only_real_changes() {
    let mut d = Differ::start(2, &[]);
    d.script(
        "0 SADD s a b
         0 HSET h f v
         0 WATCH s h
         1 SADD s a
         1 SREM s zz
         1 HDEL h zz
         1 SMOVE s s a
         1 SINTERSTORE nokey2 nokey s
         0 MULTI
         0 SCARD s
         0 EXEC
         0 WATCH s
         1 SADD s c
         0 MULTI
         0 SCARD s
         0 EXEC
         0 WATCH h
         1 HDEL h f
         0 MULTI
         0 HLEN h
         0 EXEC
         0 WATCH d
         1 SADD x 1
         1 SUNIONSTORE d x
         0 MULTI
         0 SCARD d
         0 EXEC",
    );
}

/// The keys of the random set commands (`str` is often a string).
const SET_KEYS: [&str; 4] = ["s1", "s2", "s3", "str"];

/// One random set command (or string or hash command on the same keys,
/// for WRONGTYPE both ways) over a small alphabet, with the intset limit
/// lowered now and then; and the key it is about.
fn random_set_command(rng: &mut Rng) -> (&'static str, Vec<String>) {
    let long = "a-member-name-longer-than-twenty-bytes";
    let members_ = [
        "a", "b", "c", "d", "1", "2", "3", "-4", "100000", "007", "", "x y", long,
    ];
    let [k, k2] = rng.picks(&SET_KEYS);
    let [m, m2] = rng.picks(&members_);
    let cmd = match rng.below(32) {
        0..=4 => {
            let mut c = words(&["SADD", k, m]);
            for _ in 0..rng.below(3) {
                c.push(rng.pick(&members_).into());
            }
            c
        }
        5 | 6 => words(&["SREM", k, m, m2]),
        7 => words(&["SISMEMBER", k, m]),
        8 => words(&["SMISMEMBER", k, m, m2]),
        9 => words(&["SCARD", k]),
        10 | 11 => words(&["SMEMBERS", k]),
        12 => words(&["SMOVE", k, k2, m]),
        13 => words(&["SINTER", k, k2]),
        14 => words(&["SUNION", k, k2]),
        15 => words(&["SDIFF", k, k2, rng.pick(&SET_KEYS)]),
        16 => {
            let op = ["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"][rng.below(3)];
            words(&[op, rng.pick(&SET_KEYS), k, k2])
        }
        17 => {
            let mut c = words(&["SINTERCARD", "2", k, k2]);
            if rng.below(2) == 0 {
                c.extend(["LIMIT".into(), rng.pick(&RANDOM_COUNTS).into()]);
            }
            c
        }
        18 | 19 => {
            let mut c = words(&["SPOP", k]);
            if rng.below(2) == 0 {
                c.push(rng.pick(&RANDOM_COUNTS).into());
            }
            c
        }
        20 => {
            let mut c = words(&["SRANDMEMBER", k]);
            if rng.below(3) > 0 {
                c.push(rng.pick(&RANDOM_COUNTS).into());
            }
            c
        }
        21 => words(&["SSCAN", k, "0"]),
        22 => words(&["SET", k, m]),
        23 => words(&["GET", k]),
        24 => words(&["DEL", k]),
        25 => words(&[["APPEND", "INCR", "TYPE", "EXISTS"][rng.below(4)], k]),
        26 => words(&["HSET", k, m, m2]),
        27 => words(&["RENAME", k, k2]),
        28 => {
            let v = ["2", "3", "512"][rng.below(3)];
            words(&["CONFIG", "SET", "set-max-intset-entries", v])
        }
        _ => words(&["OBJECT", "ENCODING", k]),
    };
    (k, cmd)
}

/// A seeded stream of random set commands ([`random_set_command`]). Every
/// reply and each command's keyspace hit/miss counts are compared; SPOP's
/// picks are reconciled.
#[test]
fn random_set_commands_match() {
    let mut set_cmds = 0;
    let mut p = random_steps(
        0x7365_7473,
        3000,
        random_set_command,
        |p, step, (k, cmd)| {
            let a = word_args(&cmd);
            let name = cmd[0].as_str();
            match name {
                // The checkers of random picks, SSCAN's iterations and OBJECT's
                // 7.2 leeway read more than the command: lookups not compared.
                "SPOP" => check_spop(p, k, cmd.get(2).map(String::as_str)),
                "SRANDMEMBER" => check_srandmember(p, k, cmd.get(2).map(String::as_str)),
                "SSCAN" => {
                    let r = sscan_all(&mut p.redis, k, &[]);
                    let s = sscan_all(&mut p.sim, k, &[]);
                    assert_eq!(s, r, "step {step}: SSCAN {k}");
                }
                "OBJECT" => check_encoding(p, k),
                _ => {
                    p.same_lookups(format_args!("step {step}: {}", show(&a)), |p| {
                        p.check_with(&a, unordered)
                    });
                }
            }
            if name.starts_with('S') && name != "SET" {
                set_cmds += 1;
                check_encoding(p, k);
            }
        },
    );
    assert!(set_cmds > 2000, "{set_cmds} set commands");
    for k in SET_KEYS {
        p.check(&format!("TYPE {k}"));
        assert_eq!(members(&mut p.sim, k), members(&mut p.redis, k));
    }
    assert!(p.compared > 3000, "{} replies compared", p.compared);
}

/// OBJECT ENCODING in the random stream: equal, or redsim's 7.2 listpack
/// where 7.0 has a hashtable, with the set within the listpack limits.
fn check_encoding(p: &mut Pair, key: &str) {
    let (r, s) = p.both_args(&args(&["OBJECT", "ENCODING", key]));
    p.compared += 1;
    if r == s {
        return;
    }
    assert!(
        p.redis_is_7_0() && r == Frame::bulk("hashtable") && s == Frame::bulk("listpack"),
        "OBJECT ENCODING {key}: redis {r:?}, redsim {s:?}"
    );
    let m = members(&mut p.sim, key);
    assert!(
        m.len() <= 128 && m.iter().all(|x| x.len() <= 64),
        "{key}: {m:?}"
    );
}

/// The command table agrees with what Redis' `COMMAND INFO` reports, and
/// the family is complete: every set command Redis has.
#[test]
fn command_table_matches_command_info() {
    let redis = RedisServer::start(&[]);
    // SORT and SORT_RO are in @set too, but belong to the generic group.
    assert_command_group(&mut redis.conn(), "set", 17, &["sort", "sort_ro"]);
}
