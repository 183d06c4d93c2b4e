//! Differential tests of the sorted-set commands: the same commands go to a real redis-server and to redsim's native server, and every reply must match.
//!
//! The reference is Redis 7.0.15; redsim follows 7.2. Where they differ the
//! test says so and checks 7.2's behaviour explicitly:
//! - doubles: 7.0 prints `%.17g` (`1.1000000000000001`, `1e+17`), 7.2 the
//!   grisu2 digits of fpconv (`1.1`, `100000000000000000`). A bulk string
//!   may differ only in exactly that way ([`same`]); RESP3 doubles must be
//!   bit-identical.
//! - ZRANK/ZREVRANK take WITHSCORE in 7.2 (arity -3, was 3).
//! - ZADD sizes a new key by its pair count and converts an existing
//!   listpack first when given more pairs than `zset-max-listpack-entries`
//!   (`zsetTypeCreate` / `zsetTypeMaybeConvert`, new in 7.2).
//!
//! Random picks (ZRANDMEMBER) are checked for count, membership and
//! distinctness, not for Redis' exact picks; ZSCAN of a skiplist is checked
//! as a set, since bucket order depends on each server's hash seed.

use std::collections::BTreeSet;

use redsim_engine::cmd::{Command, Flags};
use redsim_engine::num::double::g17;
use redsim_engine::proto::resp::fmt_double;
use redsim_tests::{assert_command_info, command_info, show, Frame, Pair, RedisServer, Rng};

mod corpus;
mod random;
use corpus::*;

/// Redis 7.0's `d2string`: integers within ±2^52 in full, else `%.17g`.
fn d2string_70(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v < 0.0 { "-inf" } else { "inf" }.into()
    } else if v == 0.0 {
        if v.is_sign_negative() { "-0" } else { "0" }.into()
    } else if v > -4_503_599_627_370_495.0 && v < 4_503_599_627_370_496.0 && v == (v as i64) as f64
    {
        (v as i64).to_string()
    } else {
        g17(v)
    }
}

/// Equal replies, except that a bulk string may be 7.0's printing of a
/// double where redsim has 7.2's printing of the same double.
fn same(want: &Frame, got: &Frame) -> bool {
    match (want, got) {
        (Frame::Bulk(w), Frame::Bulk(g)) if w != g => {
            let (Ok(ws), Ok(gs)) = (std::str::from_utf8(w), std::str::from_utf8(g)) else {
                return false;
            };
            match ws.parse::<f64>() {
                Ok(v) => ws == d2string_70(v) && gs == fmt_double(v),
                Err(_) => false,
            }
        }
        (Frame::Double(w), Frame::Double(g)) => {
            w.to_bits() == g.to_bits() || (w.is_nan() && g.is_nan())
        }
        (Frame::Array(a), Frame::Array(b))
        | (Frame::Set(a), Frame::Set(b))
        | (Frame::Push(a), Frame::Push(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Frame::Map(a), Frame::Map(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((k1, v1), (k2, v2))| same(k1, k2) && same(v1, v2))
        }
        _ => want == got,
    }
}

/// A [`Pair`] whose replies agree when [`same`] says so.
fn pair(extra: &[&str]) -> Pair {
    Pair::start(extra).agreeing(same)
}

fn bulk_text(f: &Frame) -> String {
    match f {
        Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Frame::Simple(s) => s.to_string(),
        other => panic!("expected a string, got {other:?}"),
    }
}

fn items(f: &Frame) -> &[Frame] {
    match f {
        Frame::Array(v) => v,
        other => panic!("expected an array, got {other:?}"),
    }
}

#[test]
fn zadd_zincrby_options_scores_and_errors() {
    let mut p = pair(&[]);
    p.corpus(ZADD_OPTIONS);
    p.hello3();
    p.corpus(
        ZADD_OPTIONS
            .replace("ZADD z 1 a\n", "DEL z\nZADD z 1 a\n")
            .as_str(),
    );
}

#[test]
fn ranges_by_rank_score_and_lex() {
    let mut p = pair(&[]);
    p.corpus(RANGES);
    p.corpus(TIES_AND_LEX);
    p.hello3();
    p.check("FLUSHALL");
    p.corpus(RANGES);
}

/// The same corpora with every set in a skiplist (lex ranges only over
/// equal scores there: over mixed scores the answer depends on the levels).
#[test]
fn ranges_over_skiplists() {
    let mut p = pair(&["--zset-max-listpack-entries", "0"]);
    p.corpus(RANGES);
    p.check("OBJECT ENCODING r");
    let ties: String = TIES_AND_LEX
        .lines()
        .filter(|l| !l.contains("mixed"))
        .map(|l| format!("{l}\n"))
        .collect();
    p.corpus(&ties);
    p.check("OBJECT ENCODING t");
    p.corpus(REMOVALS);
    p.corpus(POPS);
    p.corpus(POINT_READS);
}

#[test]
fn removals_pops_and_point_reads() {
    let mut p = pair(&[]);
    p.corpus(REMOVALS);
    p.corpus(POPS);
    p.corpus(POINT_READS);
    p.hello3();
    p.check("FLUSHALL");
    p.corpus(POPS);
    p.corpus(POINT_READS);
}

#[test]
fn union_inter_diff_with_weights_and_aggregates() {
    let mut p = pair(&[]);
    p.corpus(SET_OPS);
    p.hello3();
    p.check("FLUSHALL");
    p.corpus(SET_OPS);
    let mut p = pair(&["--zset-max-listpack-entries", "1"]);
    p.corpus(SET_OPS);
    p.check("OBJECT ENCODING out");
}

/// Sets are inputs of the set operations, every member scoring 1 (times
/// its weight); intsets, listpacks (7.2) and hashtables alike.
const SETS_AS_INPUTS: &str = r#"
SADD s1 a b c
SADD s2 1 2 3 100
SADD s3 b x 3
ZADD z 1 a 2 b 10 x 3 2 7 100
ZUNION 2 z s1 WITHSCORES
ZUNION 3 z s1 s2 WEIGHTS 1 2 3 WITHSCORES
ZUNION 2 s1 s3 AGGREGATE MAX WITHSCORES
ZINTER 2 z s1 WITHSCORES
ZINTER 2 s1 z AGGREGATE MAX WITHSCORES
ZINTER 2 z s2 WITHSCORES
ZINTER 2 s2 z WEIGHTS 5 1 WITHSCORES
ZINTER 3 s1 s3 z WITHSCORES
ZINTER 2 s1 s1 WITHSCORES
ZDIFF 2 z s1 WITHSCORES
ZDIFF 2 s1 z WITHSCORES
ZDIFF 2 s2 z WITHSCORES
ZDIFF 3 z s2 s3 WITHSCORES
ZDIFF 2 s1 s1
ZINTERCARD 2 s1 z
ZINTERCARD 2 s2 z LIMIT 1
ZUNIONSTORE out 2 s1 s2
ZRANGE out 0 -1 WITHSCORES
OBJECT ENCODING out
ZINTERSTORE out 2 s3 z WEIGHTS 2 3
ZRANGE out 0 -1 WITHSCORES
ZDIFFSTORE out 2 s2 z
ZRANGE out 0 -1 WITHSCORES
ZRANGE s1 0 -1
ZSCORE s1 a
ZADD s1 1 a
ZCARD s2
ZRANGESTORE out s1 0 -1
ZPOPMIN s1
ZMPOP 2 missing s1 MIN
"#;

#[test]
fn sets_are_inputs_with_score_one() {
    let mut p = pair(&[]);
    p.corpus(SETS_AS_INPUTS);
    p.hello3();
    p.check("FLUSHALL");
    p.corpus(SETS_AS_INPUTS);
    // Hashtable-encoded sets and skiplist-encoded sorted sets.
    let mut p = pair(&[
        "--set-max-intset-entries",
        "1",
        "--zset-max-listpack-entries",
        "1",
    ]);
    // 7.2's listpack sets (7.0 has none): hashtables on redsim too.
    assert_eq!(
        p.sim_only("CONFIG SET set-max-listpack-entries 1"),
        Frame::ok()
    );
    p.corpus(SETS_AS_INPUTS);
    p.check("OBJECT ENCODING s1");
}

/// ZRANK/ZREVRANK WITHSCORE are 7.2's: checked against 7.0's ZRANK and ZSCORE.
#[test]
fn zrank_withscore_is_rank_and_score() {
    let mut p = pair(&[]);
    p.check("ZADD k 1.1 a 2 b 0.3 c");
    for (cmd, member) in [
        ("ZRANK", "a"),
        ("ZREVRANK", "a"),
        ("ZRANK", "c"),
        ("ZREVRANK", "b"),
    ] {
        let rank = p.redis_only(&format!("{cmd} k {member}"));
        let score = p.redis_only(&format!("ZSCORE k {member}"));
        let got = p.sim_only(&format!("{cmd} k {member} WITHSCORE"));
        let want = Frame::Array(vec![rank, score]);
        assert!(same(&want, &got), "{cmd} {member}: {got:?}");
        // The option word is case-insensitive.
        assert_eq!(p.sim_only(&format!("{cmd} k {member} withScore")), got);
    }
    // A missing member or key: a null array with WITHSCORE, a null without.
    assert_eq!(p.sim_only("ZRANK k nosuch WITHSCORE"), Frame::NullArray);
    assert_eq!(p.sim_only("ZRANK nokey a WITHSCORE"), Frame::NullArray);
    assert_eq!(p.sim_only("ZRANK nokey a"), Frame::Null);
    assert_eq!(
        p.sim_only("ZRANK k a SCORES"),
        Frame::err("ERR syntax error")
    );
    assert_eq!(
        p.sim_only("ZREVRANK k a WITHSCORE x"),
        Frame::err("ERR wrong number of arguments for 'zrevrank' command")
    );
    p.hello3();
    let got = p.sim_only("ZRANK k a WITHSCORE");
    assert_eq!(
        got,
        Frame::Array(vec![Frame::Integer(1), Frame::Double(1.1)])
    );
    assert_eq!(p.sim_only("ZRANK k nosuch WITHSCORE"), Frame::Null);
}

#[test]
fn scores_print_as_redis_7_2() {
    // 7.2 replies (7.0 printed these with %.17g); RESP3 carries the same text.
    let mut p = pair(&[]);
    let cases = [
        ("1.1", "1.1"),
        ("1e17", "100000000000000000"),
        ("0.00001", "0.00001"),
        ("1e-7", "1e-7"),
        ("0.000123456", "1.23456e-4"),
        ("5e18", "5e+18"),
        ("-0", "-0"),
        ("1e300", "1e+300"),
        ("inf", "inf"),
        ("-inf", "-inf"),
        ("4.35", "4.35"),
    ];
    p.check("CONFIG SET zset-max-listpack-entries 0");
    for (i, (input, _)) in cases.iter().enumerate() {
        p.check(&format!("ZADD s {input} m{i}"));
    }
    for (i, (_, want)) in cases.iter().enumerate() {
        assert_eq!(
            p.sim_only(&format!("ZSCORE s m{i}")),
            Frame::bulk(want),
            "score of {}",
            cases[i].0
        );
        p.check(&format!("ZSCORE s m{i}"));
    }
    // A listpack stores -0 as the integer 0; a skiplist keeps -0.
    p.check("CONFIG SET zset-max-listpack-entries 128");
    p.check("ZADD lp -0 m");
    p.check("ZSCORE lp m");
    p.check("ZSCAN s 0 COUNT 100 MATCH m6");
    p.hello3();
    for (i, _) in cases.iter().enumerate() {
        p.check(&format!("ZSCORE s m{i}"));
    }
    p.check("ZSCORE lp m");
}

#[test]
fn zrandmember_counts_membership_and_distinctness() {
    for entries in ["128", "0"] {
        let mut p = pair(&["--zset-max-listpack-entries", entries]);
        p.check("ZADD r 1 a 2 b 3 c 4 d 5 e 6 f 7 g 8 h 9 i 10 j");
        let members: BTreeSet<String> = "abcdefghij".chars().map(|c| c.to_string()).collect();
        for resp3 in [false, true] {
            if resp3 {
                p.hello3();
            }
            // Deterministic shapes first: everything, nothing, errors, missing keys.
            p.corpus(
                "ZRANDMEMBER r 10
                 ZRANDMEMBER r 100 WITHSCORES
                 ZRANDMEMBER r 0
                 ZRANDMEMBER r 0 WITHSCORES
                 ZRANDMEMBER missing
                 ZRANDMEMBER missing 5
                 ZRANDMEMBER missing 5 WITHSCORES
                 ZRANDMEMBER r x
                 ZRANDMEMBER r 1 WITHSCORE
                 ZRANDMEMBER r 1 WITHSCORES x
                 ZRANDMEMBER r -9223372036854775808
                 ZRANDMEMBER r 9223372036854775807 WITHSCORES
                 ZRANDMEMBER r -4611686018427387904 WITHSCORES
                 ZRANDMEMBER r 4611686018427387903 WITHSCORES
                 SET str v
                 ZRANDMEMBER str
                 ZRANDMEMBER str 1
                 ZRANDMEMBER str x",
            );
            for (count, withscores) in [
                (1i64, false),
                (3, false),
                (7, true),
                (9, false),
                (-5, false),
                (-30, true),
                (-1, true),
            ] {
                let line = format!(
                    "ZRANDMEMBER r {count}{}",
                    if withscores { " WITHSCORES" } else { "" }
                );
                for _ in 0..5 {
                    let (r, s) = p.both(&line);
                    let names = |f: &Frame| -> Vec<String> {
                        let v = items(f);
                        if !withscores {
                            return v.iter().map(bulk_text).collect();
                        }
                        if resp3 {
                            v.iter()
                                .map(|pair| {
                                    let pair = items(pair);
                                    assert!(matches!(pair[1], Frame::Double(_)));
                                    bulk_text(&pair[0])
                                })
                                .collect()
                        } else {
                            v.chunks(2)
                                .map(|c| {
                                    // The score is the member's: member "a" scores 1.
                                    let m = bulk_text(&c[0]);
                                    let score = bulk_text(&c[1]);
                                    let want = (m.as_bytes()[0] - b'a' + 1).to_string();
                                    assert_eq!(score, want, "score of {m}");
                                    m
                                })
                                .collect()
                        }
                    };
                    let (rn, sn) = (names(&r), names(&s));
                    assert_eq!(rn.len(), sn.len(), "{line}: counts");
                    assert_eq!(sn.len() as i64, count.abs(), "{line}");
                    assert!(sn.iter().all(|m| members.contains(m)), "{line}: {sn:?}");
                    if count > 0 {
                        let distinct: BTreeSet<&String> = sn.iter().collect();
                        assert_eq!(distinct.len(), sn.len(), "{line}: repeats in {sn:?}");
                    }
                }
            }
            let single = p.sim_only("ZRANDMEMBER r");
            assert!(members.contains(&bulk_text(&single)));
        }
        // Negative counts repeat: over many draws of 50 from 10, some member repeats.
        let f = p.sim_only("ZRANDMEMBER r -50");
        let got: Vec<String> = items(&f).iter().map(bulk_text).collect();
        let distinct: BTreeSet<&String> = got.iter().collect();
        assert!(distinct.len() < got.len());
    }
}

#[test]
fn zscan_listpack_exact_and_skiplist_complete() {
    let mut p = pair(&[]);
    p.corpus(
        "ZADD s 1 a 2.5 b 1e17 c -0 d inf e 0.1 f
         ZSCAN s 0
         ZSCAN s 0 MATCH *
         ZSCAN s 0 MATCH [a-c]
         ZSCAN s 0 COUNT 1
         ZSCAN s 0 COUNT 0
         ZSCAN s 0 COUNT x
         ZSCAN s 0 TYPE zset
         ZSCAN s 0 MATCH
         ZSCAN s 0 NOSUCH x
         ZSCAN s x
         ZSCAN s -1
         ZSCAN s 00
         ZSCAN s \"\"
         ZSCAN missing 0
         ZSCAN missing x
         ZSCAN missing 0 COUNT x
         SET str v
         ZSCAN str 0
         ZSCAN str x
         ZSCAN str 0 COUNT 0",
    );
    // A skiplist: a full iteration returns every member once with its score.
    p.check("CONFIG SET zset-max-listpack-entries 16");
    let mut want = BTreeSet::new();
    for i in 0..300 {
        let score = match i % 5 {
            0 => format!("{i}"),
            1 => format!("{i}.1"),
            2 => format!("-{i}e-3"),
            3 => "1e17".to_string(),
            _ => "-0".to_string(),
        };
        p.check(&format!("ZADD big {score} m{i}"));
    }
    p.check("OBJECT ENCODING big");
    let Frame::Array(all) = p.redis_only("ZRANGE big 0 -1 WITHSCORES") else {
        panic!("ZRANGE reply");
    };
    for c in all.chunks(2) {
        let score: f64 = bulk_text(&c[1]).parse().expect("score");
        want.insert((bulk_text(&c[0]), g17(score)));
    }
    for conn in ["redis", "sim"] {
        let mut got = BTreeSet::new();
        let mut cursor = "0".to_string();
        let mut calls = 0;
        loop {
            let line = format!("ZSCAN big {cursor} COUNT 7");
            let reply = if conn == "redis" {
                p.redis_only(&line)
            } else {
                p.sim_only(&line)
            };
            let parts = items(&reply);
            cursor = bulk_text(&parts[0]);
            for c in items(&parts[1]).chunks(2) {
                got.insert((bulk_text(&c[0]), bulk_text(&c[1])));
            }
            calls += 1;
            if cursor == "0" {
                break;
            }
        }
        assert_eq!(got, want, "{conn}: full ZSCAN");
        assert!(calls > 5, "{conn}: COUNT bounds the page");
    }
    // MATCH on a skiplist filters members.
    let reply = p.sim_only("ZSCAN big 0 COUNT 1000 MATCH m1?");
    let found: BTreeSet<String> = items(&items(&reply)[1])
        .chunks(2)
        .map(|c| bulk_text(&c[0]))
        .collect();
    let expect: BTreeSet<String> = (10..20).map(|i| format!("m{i}")).collect();
    assert_eq!(found, expect);
}

#[test]
fn encodings_follow_the_thresholds() {
    let mut p = pair(&[]);
    let many: String = (0..128).map(|i| format!(" {i} m{i}")).collect();
    p.check(&format!("ZADD e{many}"));
    p.check("OBJECT ENCODING e");
    p.check("ZADD e 1 another");
    p.check("OBJECT ENCODING e");
    p.check("ZREMRANGEBYRANK e 0 100");
    p.check("OBJECT ENCODING e");
    let long64 = "x".repeat(64);
    let long65 = "y".repeat(65);
    p.corpus(&format!(
        "ZADD v 1 {long64}
         OBJECT ENCODING v
         ZADD v 2 {long65}
         OBJECT ENCODING v
         ZREM v {long65}
         OBJECT ENCODING v
         ZADD w 1 {long65} 2 a
         OBJECT ENCODING w
         ZUNIONSTORE u 1 w
         OBJECT ENCODING u
         ZREM w {long65}
         ZUNIONSTORE u 1 w
         OBJECT ENCODING u
         ZRANGESTORE rs e 0 -1
         OBJECT ENCODING rs
         ZRANGESTORE rs e 0 3
         OBJECT ENCODING rs
         ZRANGESTORE rs e 0 3 BYSCORE
         OBJECT ENCODING rs
         ZRANGESTORE rs v 0 -1
         OBJECT ENCODING rs
         ZINTERSTORE is 2 e e
         OBJECT ENCODING is
         ZDIFFSTORE ds 1 e
         OBJECT ENCODING ds
         CONFIG SET zset-max-listpack-entries 4
         CONFIG GET zset-max-listpack-entries
         CONFIG GET zset-max-ziplist-entries
         ZADD c 1 a 2 b 3 c 4 d
         OBJECT ENCODING c
         ZADD c 5 e
         OBJECT ENCODING c
         ZUNIONSTORE c4 1 c
         OBJECT ENCODING c4
         ZPOPMIN c
         ZUNIONSTORE c4 1 c
         OBJECT ENCODING c4
         CONFIG SET zset-max-ziplist-value 2
         CONFIG GET zset-max-listpack-value
         ZADD d 1 ab
         OBJECT ENCODING d
         ZADD d 1 abc
         OBJECT ENCODING d
         CONFIG SET zset-max-listpack-value 1kb
         CONFIG GET zset-max-listpack-value
         CONFIG SET zset-max-listpack-entries -1
         CONFIG SET zset-max-listpack-entries x
         CONFIG SET zset-max-listpack-value -1
         CONFIG SET zset-max-listpack-value 1.5
         CONFIG SET zset-max-listpack-entries 0
         ZADD z0 1 a
         OBJECT ENCODING z0
         ZRANGESTORE z1 z0 0 -1
         OBJECT ENCODING z1
         ZUNIONSTORE z2 1 z0
         OBJECT ENCODING z2"
    ));
    // 7.2 only: ZADD sizes a new key by its pair count, and converts an
    // existing listpack first when given more pairs than the limit, even if
    // they turn out to be no-ops (7.0 kept both of these as listpacks).
    p.check("CONFIG SET zset-max-listpack-entries 3");
    p.check("ZADD dups 1 a 1 a 1 a 1 a");
    assert_eq!(p.sim_only("OBJECT ENCODING dups"), Frame::bulk("skiplist"));
    assert_eq!(
        p.redis_only("OBJECT ENCODING dups"),
        Frame::bulk("listpack")
    );
    p.check("ZADD xx 1 a");
    p.check("ZADD xx XX 1 q 1 r 1 s 1 t");
    assert_eq!(p.sim_only("OBJECT ENCODING xx"), Frame::bulk("skiplist"));
    assert_eq!(p.redis_only("OBJECT ENCODING xx"), Frame::bulk("listpack"));
    p.check("ZRANGE xx 0 -1 WITHSCORES");
}

/// WATCH sees only writes that change something: a no-op ZADD, ZINCRBY by
/// 0, ZREM of an absent member or an empty range leave the transaction
/// alone, as Redis signals a key only when it added, updated or removed.
#[test]
fn watch_sees_only_real_changes() {
    let mut p = pair(&[]);
    let writes = [
        "ZADD k NX 5 a",
        "ZADD k XX 1 nosuch",
        "ZADD k 1 a",
        "ZADD k GT 0 a",
        "ZADD k CH 1 a",
        "ZINCRBY k 0 a",
        "ZREM k nosuch",
        "ZREMRANGEBYSCORE k 100 200",
        "ZREMRANGEBYRANK k 10 20",
        "ZREMRANGEBYLEX k (z +",
        "ZPOPMIN k 0",
        "ZPOPMIN nokey",
        "ZRANGESTORE nokey nokey2 0 -1",
        "ZUNIONSTORE nokey 1 nokey2",
        "ZADD k 2 a",
        "ZINCRBY k 1 a",
        "ZADD k 1 b",
        "ZREM k b",
        "ZPOPMAX k",
        "ZUNIONSTORE k 1 k",
        "ZRANGESTORE k k 0 -1",
        "ZINTERSTORE k 2 k nokey",
    ];
    for w in writes {
        p.check("ZADD k 1 a 2 c 3 d");
        p.check("WATCH k nokey");
        p.check(w);
        p.check("MULTI");
        p.check("ZCARD k");
        p.check("EXEC");
        p.check("DEL k");
    }
}

/// Writes keep the TTL of a set they modify; STORE commands replace it.
#[test]
fn ttl_effects() {
    let mut p = pair(&[]);
    p.corpus(
        "ZADD k 1 a 2 b 3 c
         EXPIRE k 1000
         ZADD k 4 d
         ZINCRBY k 1 a
         ZREM k b
         ZPOPMIN k
         ZREMRANGEBYSCORE k 100 200
         TTL k
         ZADD src 1 a
         ZADD dst 1 x
         EXPIRE dst 1000
         ZUNIONSTORE dst 1 src
         TTL dst
         EXPIRE dst 1000
         ZRANGESTORE dst src 0 -1
         TTL dst
         EXPIRE dst 1000
         ZINTERSTORE dst 2 src missing
         TTL dst
         EXISTS dst",
    );
}

/// Keyspace hits and misses: reads count them, writes do not.
#[test]
fn keyspace_stats_follow_redis() {
    let mut p = pair(&[]);
    p.corpus(
        "ZADD k 1 a 2 b
         ZADD k 3 c
         ZSCORE k a
         ZSCORE nokey a
         ZRANGE k 0 -1
         ZRANGE nokey 0 -1
         ZRANGESTORE d k 0 -1
         ZRANGESTORE d nokey 0 -1
         ZUNION 3 k nokey k
         ZUNIONSTORE d 2 k nokey
         ZINTERCARD 2 nokey k
         ZREM k a
         ZREM nokey a
         ZPOPMIN k
         ZPOPMIN nokey
         ZMPOP 2 nokey k MIN
         ZRANDMEMBER k
         ZRANDMEMBER nokey 3
         ZSCAN k 0
         ZSCAN nokey 0
         ZCARD nokey
         ZCOUNT k 0 1
         ZLEXCOUNT nokey - +
         ZRANK k b
         ZMSCORE nokey a",
    );
    p.assert_same_stats();
}

/// Every sorted-set command of the table agrees with `COMMAND INFO`, except
/// ZRANK/ZREVRANK's arity, which 7.2 made -3 for WITHSCORE.
#[test]
fn command_table_matches_command_info() {
    let redis = RedisServer::start(&[]);
    let mut c = redis.conn();
    let mut seen = 0;
    let table = redsim_engine::cmd::all()
        .filter(|c| c.group == "sorted-set" && !c.flags.contains(Flags::BLOCKING));
    for cmd in table {
        let info = command_info(&mut c, cmd.name);
        match cmd.name {
            "zrank" | "zrevrank" => {
                assert_eq!(cmd.arity, -3, "7.2's arity");
                assert_command_info(&info, &Command { arity: 3, ..*cmd }, cmd.name);
            }
            _ => assert_command_info(&info, cmd, cmd.name),
        }
        seen += 1;
    }
    // Redis 7.2 has 35 sorted-set commands; the three blocking ones come later.
    assert_eq!(seen, 32);
}
