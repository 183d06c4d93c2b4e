//! Differential tests of the list commands: the same commands go to a real redis-server and to redsim's native server, and every reply must be identical, except where Redis 7.2 differs from the 7.0 reference, which is asserted explicitly.
//!
//! The reference is Redis 7.0.15. Its list replies are 7.2's with three
//! exceptions, each checked on its own against the 7.2 answer (verified
//! with a 7.2-derived server while writing these tests):
//! - OBJECT ENCODING: 7.0 reports `quicklist` for every list; 7.2 keeps
//!   small lists in a `listpack` and converts both ways.
//! - LPOS RANK accepts -LONG_MAX..LONG_MAX in 7.2 (7.0 took LONG_MIN).
//! - Blocking timeouts: 7.2 rejects values past LLONG_MAX ms ("timeout is
//!   out of range") where 7.0 overflowed into "timeout is negative".

use redsim_engine::cmd::{Command, Flags};
use redsim_tests::{
    args, assert_command_info, command_info, commands_in_group, random_steps, word_args, words,
    Differ, Frame, Pair, RedisServer, Rng,
};

/// OBJECT ENCODING of `key`: Redis 7.0 says `quicklist` for any list,
/// redsim must give the 7.2 answer `want`.
fn encoding(p: &mut Pair, key: &str, want: &str) {
    let (r, s) = p.both_args(&args(&["OBJECT", "ENCODING", key]));
    if p.redis_is_7_0() {
        assert_eq!(r, Frame::bulk("quicklist"), "7.0 lists are all quicklists");
    } else {
        assert_eq!(r, s, "OBJECT ENCODING {key}");
    }
    assert_eq!(s, Frame::bulk(want), "7.2 encoding of {key}");
}

/// Runs a corpus in which a line `@<encoding> <key>` asserts the key's
/// 7.2 encoding ([`encoding`]); every other line is compared.
fn with_encodings(p: &mut Pair, text: &str) {
    p.corpus_by(text, |p, line| match line.strip_prefix('@') {
        Some(rest) => {
            let (want, key) = rest.split_once(' ').expect("`@encoding key`");
            encoding(p, key, want);
        }
        None => {
            p.check(line);
        }
    });
}

const PUSH_POP: &str = r#"
LPUSH l
RPUSH l
LPUSH l a
RPUSH l b c
LPUSH l x y z
LRANGE l 0 -1
LLEN l
LPUSHX l 1 2
RPUSHX l 3
LPUSHX nokey a
RPUSHX nokey a b
EXISTS nokey
LRANGE l 0 -1
LPOP l
RPOP l
LPOP l 2
RPOP l 2
LPOP l 0
RPOP l 0
LPOP l 100
EXISTS l
LPOP l
RPOP l
LPOP l 0
RPOP l 3
LPOP
LPOP l 1 2
RPOP l 1 2
LPOP l -1
LPOP l x
LPOP l 1.5
LPOP l 9223372036854775807
LPOP l 9223372036854775808
RPUSH nums 1 -1 127 128 4096 -4097 32768 8388608 2147483648 -9223372036854775808 007 " 1" 1.0 ""
LRANGE nums 0 -1
RPOP nums 20
RPUSH bin "a\x00b" "\xff\xfe" "\r\n"
LRANGE bin 0 -1
LPOP bin 3
"#;

const RANGES: &str = r#"
RPUSH r a b c d e f g
LRANGE r 0 0
LRANGE r -1 -1
LRANGE r -100 100
LRANGE r 2 1
LRANGE r 5 -3
LRANGE r -3 -5
LRANGE r 7 10
LRANGE r 6 6
LRANGE r -9223372036854775808 9223372036854775807
LRANGE r x 1
LRANGE r 1 x
LRANGE r 1
LRANGE nokey 0 -1
LRANGE nokey x 1
LINDEX r 0
LINDEX r -1
LINDEX r 6
LINDEX r 7
LINDEX r -7
LINDEX r -8
LINDEX r x
LINDEX nokey x
LINDEX nokey 0
LINDEX r 9223372036854775807
LINDEX r -9223372036854775808
LLEN r
LLEN nokey
LLEN
LLEN r r
LSET r 0 A
LSET r -1 G
LSET r 7 X
LSET r -8 X
LSET r x X
LSET nokey 0 X
LSET nokey x X
LSET r 3 ""
LRANGE r 0 -1
LTRIM r 1 -2
LRANGE r 0 -1
LTRIM r -100 100
LRANGE r 0 -1
LTRIM r x 1
LTRIM r 1 x
LTRIM nokey 0 1
LTRIM nokey x 1
LTRIM r 1 1
LRANGE r 0 -1
LTRIM r 5 1
EXISTS r
RPUSH t 1 2 3 4 5
LTRIM t -2 -1
LRANGE t 0 -1
LTRIM t 0 -9223372036854775808
EXISTS t
"#;

const INSERT_REM_POS: &str = r#"
RPUSH i a b c b a
LINSERT i BEFORE b X
LINSERT i after b Y
LINSERT i AFTER a Z
LINSERT i before a W
LRANGE i 0 -1
LINSERT i BEFORE nope Q
LINSERT i MIDDLE b Q
LINSERT nokey BEFORE a b
LINSERT nokey MIDDLE a b
LINSERT i BEFORE b
LRANGE i 0 -1
LREM i 0 nope
LREM i 1 b
LREM i -1 a
LRANGE i 0 -1
RPUSH i a a a b a
LREM i -2 a
LRANGE i 0 -1
LREM i 0 a
LRANGE i 0 -1
LREM i x a
LREM nokey 1 a
LREM nokey x a
LREM i -9223372036854775808 b
LRANGE i 0 -1
RPUSH p a b c a b c a
LPOS p a
LPOS p c
LPOS p z
LPOS p a RANK 2
LPOS p a RANK -1
LPOS p a RANK -3
LPOS p a RANK 4
LPOS p a RANK -4
LPOS p a COUNT 0
LPOS p a COUNT 2
LPOS p a COUNT 2 RANK 2
LPOS p a COUNT 0 RANK -1
LPOS p a COUNT 5 RANK -2
LPOS p a MAXLEN 3
LPOS p a MAXLEN 3 COUNT 0
LPOS p c MAXLEN 2
LPOS p c MAXLEN 2 RANK -1
LPOS p a RANK 2 MAXLEN 4 COUNT 0
LPOS p a rank 1 count 1 maxlen 0
LPOS p a RANK 0
LPOS p a RANK x
LPOS p a RANK 9223372036854775807
LPOS p a RANK -9223372036854775807
LPOS p a COUNT -1
LPOS p a COUNT x
LPOS p a MAXLEN -1
LPOS p a MAXLEN x
LPOS p a RANK
LPOS p a COUNT
LPOS p a BOGUS 1
LPOS p a RANK 1 COUNT
LPOS nokey a
LPOS nokey a COUNT 1
LPOS nokey a RANK 0
LPOS nokey a COUNT -1
"#;

const MOVES: &str = r#"
RPUSH src a b c
LMOVE src dst LEFT RIGHT
LMOVE src dst RIGHT LEFT
LMOVE src dst left left
LRANGE dst 0 -1
EXISTS src
LMOVE src dst LEFT RIGHT
LMOVE dst dst LEFT RIGHT
LMOVE dst dst RIGHT LEFT
LRANGE dst 0 -1
LMOVE dst src UP LEFT
LMOVE dst src LEFT DOWN
LMOVE nokey dst UP LEFT
RPUSH one x
LMOVE one one LEFT LEFT
LRANGE one 0 -1
RPOPLPUSH dst src
RPOPLPUSH dst src
RPOPLPUSH dst src
RPOPLPUSH dst src
LRANGE src 0 -1
EXISTS dst
RPOPLPUSH nokey src
RPOPLPUSH src src
LRANGE src 0 -1
LMPOP 1 src LEFT
LMPOP 2 nokey src RIGHT COUNT 2
LMPOP 2 nokey src RIGHT COUNT 10
LMPOP 2 nokey src RIGHT COUNT 10
RPUSH m1 a b
RPUSH m2 c d e
LMPOP 2 m1 m2 LEFT COUNT 3
LMPOP 2 m1 m2 right
LMPOP 3 nokey m1 m2 LEFT
LMPOP 0 m1 LEFT
LMPOP -1 m1 LEFT
LMPOP x m1 LEFT
LMPOP 3 m1 m2 LEFT
LMPOP 1 m2 MIDDLE
LMPOP 1 m2 LEFT COUNT 0
LMPOP 1 m2 LEFT COUNT -1
LMPOP 1 m2 LEFT COUNT x
LMPOP 1 m2 LEFT COUNT 1 COUNT 1
LMPOP 1 m2 LEFT COUNT
LMPOP 1 m2 LEFT EXTRA
LMPOP 9223372036854775806 m2 LEFT
LMPOP 9223372036854775807 m2 LEFT
LMPOP 1
LRANGE m2 0 -1
"#;

const BLOCKING_WITH_DATA: &str = r#"
RPUSH q a b c
RPUSH q2 x
BLPOP q 0
BRPOP q 0
BLPOP nokey q2 q 1
BRPOP nokey q 0.5
EXISTS q
RPUSH q a b c d
BLMPOP 0 2 nokey q LEFT COUNT 2
BLMPOP 1.5 1 q RIGHT
BLMPOP 0 1 q RIGHT COUNT 9
RPUSH s1 1 2 3
BLMOVE s1 d1 LEFT RIGHT 0
BLMOVE s1 d1 RIGHT LEFT 0.01
BRPOPLPUSH s1 d1 10
LRANGE d1 0 -1
EXISTS s1
BLPOP q x
BLPOP q -1
BLPOP q -0.0001x
BLPOP q nan
BLPOP q ""
BLPOP q " 1"
BLPOP q "1 "
BLPOP q 1e
BLPOP q
BRPOP q
BLMOVE s1 d1 LEFT MIDDLE 0
BLMOVE s1 d1 UP RIGHT 0
BLMOVE s1 d1 LEFT RIGHT x
BLMOVE s1 d1 LEFT RIGHT -1
BLMOVE s1 d1 UP RIGHT x
BRPOPLPUSH s1 d1 x
BRPOPLPUSH s1 d1 -1
BLMPOP x 1 q LEFT
BLMPOP -1 1 q LEFT
BLMPOP 0 0 q LEFT
BLMPOP x 0 q LEFT
BLMPOP 0 1 q MIDDLE
BLMPOP 0 1 q LEFT COUNT 0
BLMPOP x 1 q LEFT COUNT 0
BLMPOP 0 2 q LEFT
BLMPOP 0
MULTI
BLPOP nokey 0
BRPOP nokey 0
BLMOVE nokey d1 LEFT RIGHT 0
BRPOPLPUSH nokey d1 0
BLMPOP 0 1 nokey LEFT
BLPOP nokey -1
BLPOP d1 0
EXEC
"#;

#[test]
fn push_and_pop() {
    let mut p = Pair::start(&[]);
    p.corpus(PUSH_POP);
}

#[test]
fn pop_replies_in_resp3() {
    let mut p = Pair::start(&[]).resp3();
    p.corpus(
        r#"
        LPOP nokey
        LPOP nokey 0
        LPOP nokey 2
        RPOP nokey 1
        LINDEX nokey 0
        LPOS nokey a
        LPOS nokey a COUNT 0
        LMOVE nokey d LEFT LEFT
        RPOPLPUSH nokey d
        LMPOP 1 nokey LEFT
        RPUSH l a b
        LPOP l 0
        LPOP l 5
        LINDEX l 9
        LPOS l z
        MULTI
        BLPOP nokey 0
        BLMOVE nokey d LEFT LEFT 0
        BLMPOP 0 1 nokey LEFT
        EXEC
        "#,
    );
}

#[test]
fn indexes_ranges_and_trims() {
    let mut p = Pair::start(&[]);
    p.corpus(RANGES);
}

#[test]
fn insert_remove_and_position() {
    let mut p = Pair::start(&[]);
    p.corpus(INSERT_REM_POS);
}

#[test]
fn moves_and_multi_pops() {
    let mut p = Pair::start(&[]);
    p.corpus(MOVES);
}

#[test]
fn blocking_commands_with_data_and_their_argument_errors() {
    let mut p = Pair::start(&[]);
    p.corpus(BLOCKING_WITH_DATA);
}

/// Every list command against a string, and string commands against a list.
#[test]
fn wrong_types() {
    let mut p = Pair::start(&[]);
    p.corpus(
        r#"
        SET s v
        RPUSH l a
        LPUSH s a
        RPUSH s a
        LPUSHX s a
        RPUSHX s a
        LPOP s
        RPOP s 2
        LPOP s 0
        LRANGE s 0 -1
        LRANGE s x 1
        LINDEX s 0
        LINDEX s x
        LINSERT s BEFORE a b
        LINSERT s MIDDLE a b
        LLEN s
        LREM s 0 a
        LREM s x a
        LSET s 0 a
        LSET s x a
        LTRIM s 0 1
        LPOS s a
        LPOS s a RANK 0
        LMOVE s l LEFT LEFT
        LMOVE l s LEFT LEFT
        LRANGE l 0 -1
        LMOVE nokey s LEFT LEFT
        RPOPLPUSH s l
        RPOPLPUSH l s
        LMPOP 2 nokey s LEFT
        LMPOP 2 l s LEFT
        RPUSH l a b
        BLPOP s 0
        BLPOP nokey s 0
        BRPOP s 0
        BLMOVE s l LEFT LEFT 0
        BLMOVE l s LEFT LEFT 0
        BRPOPLPUSH l s 0
        BLMPOP 0 2 nokey s LEFT
        GET l
        APPEND l x
        INCR l
        STRLEN l
        SETRANGE l 0 x
        GETRANGE l 0 1
        MGET l s
        TYPE l
        TYPE s
        SET l x
        TYPE l
        LLEN l
        "#,
    );
}

/// Where Redis 7.2 answers differently from the 7.0 reference, redsim
/// gives 7.2's answer.
#[test]
fn seven_two_answers() {
    let mut p = Pair::start(&[]);
    // 7.2 bounds RANK to ±LONG_MAX (7.0 negated LONG_MIN).
    assert_eq!(
        p.sim_only("LPOS nokey a RANK -9223372036854775808"),
        Frame::err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
    );
    // 7.2 checks the timeout for overflow (7.0: "timeout is negative").
    for t in [
        "inf",
        "1e400",
        "9223372036854775",
        "0x1p70",
        "9223372036854775807",
    ] {
        for cmd in [
            format!("BLPOP nokey {t}"),
            format!("BLMOVE nokey d LEFT LEFT {t}"),
            format!("BRPOPLPUSH nokey d {t}"),
            format!("BLMPOP {t} 1 nokey LEFT"),
        ] {
            assert_eq!(
                p.sim_only(&cmd),
                Frame::err("ERR timeout is out of range"),
                "{cmd}"
            );
        }
    }
    assert_eq!(
        p.sim_only("BLPOP nokey -inf"),
        Frame::err("ERR timeout is negative")
    );
    // Still in step with the reference afterwards.
    p.check("RPUSH l a");
    p.check("LRANGE l 0 -1");
}

/// OBJECT ENCODING as Redis 7.2 reports it (7.0 always says quicklist):
/// growth past 8 KB converts to a quicklist, shrinking converts back only
/// once a single node is at most half the limit, LINSERT converts even
/// when the pivot is missing, a count limit splits nodes, and a value a
/// quicklist pops as an integer does not count towards LMOVE's check.
#[test]
fn encodings_follow_7_2() {
    let mut p = Pair::start(&[]);
    for i in 0..700 {
        p.check(&format!("RPUSH g element-{i:04}"));
    }
    let x9000 = "x".repeat(9000);
    let x8000 = "x".repeat(8000);
    let y200 = "y".repeat(200);
    with_encodings(
        &mut p,
        &format!(
            "@quicklist g
             LTRIM g 0 399
             @quicklist g
             LTRIM g 0 199
             @listpack g
             LRANGE g 190 -1
             RPUSH big {x9000}
             @quicklist big
             RPUSH big2 {x8000}
             @listpack big2
             RPUSH big2 {y200}
             @quicklist big2
             RPOP big2
             @quicklist big2
             LSET big2 0 small
             @listpack big2"
        ),
    );

    p.check("RPUSH ins a b");
    assert_eq!(
        p.check(&format!("LINSERT ins BEFORE nope {x9000}")),
        Frame::Integer(-1)
    );
    encoding(&mut p, "ins", "quicklist");

    with_encodings(
        &mut p,
        "CONFIG SET list-max-listpack-size 4
         RPUSH c e0 e1 e2 e3 e4 e5 e6 e7 e8 e9
         @quicklist c
         # Nodes of 4, 4, 2: keeping e3 e4 leaves two nodes of one each.
         LTRIM c 3 4
         @quicklist c
         DEL c
         RPUSH c e0 e1 e2 e3 e4 e5 e6 e7 e8 e9
         LTRIM c 4 5
         @listpack c
         DEL c
         RPUSH c e0 e1 e2 e3 e4 e5 e6 e7 e8 e9
         LTRIM c 4 6
         @quicklist c
         CONFIG SET list-max-ziplist-size -2",
    );

    // A destination listpack of 8185 bytes: 14 more raw bytes would pass 8 KB.
    let mut filler = vec!["f".repeat(60); 131];
    filler.push("p".repeat(54));
    let filler = filler.join(" ");
    for (tail, src_big, want) in [
        ("12345678901234", true, "listpack"),
        ("12345678901234", false, "quicklist"),
        ("abcdefghijklmn", true, "quicklist"),
    ] {
        p.check("DEL src dst");
        if src_big {
            p.check(&format!("RPUSH src {x9000} {tail}"));
        } else {
            p.check(&format!("RPUSH src {tail}"));
        }
        p.check(&format!("RPUSH dst {filler}"));
        encoding(&mut p, "dst", "listpack");
        p.check("RPOPLPUSH src dst");
        encoding(&mut p, "dst", want);
    }
    assert_eq!(p.sim_only("OBJECT ENCODING nokey"), Frame::Null);
}

#[test]
fn config_parameters() {
    let mut p = Pair::start(&[]);
    p.corpus(
        r#"
        CONFIG GET list-max-listpack-size
        CONFIG GET list-max-ziplist-size
        CONFIG GET list-compress-depth
        CONFIG SET list-max-listpack-size 128
        CONFIG GET list-max-ziplist-size
        CONFIG SET list-max-ziplist-size -5
        CONFIG GET list-max-listpack-size
        CONFIG SET list-max-listpack-size -2147483648
        CONFIG SET list-max-listpack-size 2147483647
        CONFIG SET list-max-listpack-size 2147483648
        CONFIG SET list-max-listpack-size x
        CONFIG SET list-max-listpack-size -2
        CONFIG SET list-compress-depth 2
        CONFIG GET list-compress-depth
        CONFIG SET list-compress-depth -1
        CONFIG SET list-compress-depth 0
        "#,
    );
    // Lists work the same with any fill and compression depth.
    for fill in ["1", "3", "0", "-1", "-5", "100000"] {
        p.check(&format!("CONFIG SET list-max-listpack-size {fill}"));
        p.check("CONFIG SET list-compress-depth 1");
        p.check("DEL f");
        for i in 0..40 {
            p.check(&format!("RPUSH f v{i} {}", "z".repeat(i * 37)));
        }
        p.check("LINSERT f AFTER v7 ins");
        p.check("LSET f 20 set");
        p.check("LREM f 2 set");
        p.check("LRANGE f 0 -1");
        p.check("LTRIM f 3 -4");
        p.check("LRANGE f 0 -1");
    }
}

/// Each list command's effect on keyspace_hits / keyspace_misses: reads
/// count, writes (including blocking pops) do not.
#[test]
fn keyspace_statistics() {
    let mut p = Pair::start(&[]);
    p.check("RPUSH l a b c");
    for line in [
        "LLEN l",
        "LLEN nokey",
        "LRANGE l 0 -1",
        "LRANGE nokey 0 1",
        "LINDEX l 0",
        "LINDEX nokey 0",
        "LPOS l a",
        "LPOS nokey a",
        "LPUSH l z",
        "LPUSHX nokey z",
        "LPOP nokey",
        "RPOP l",
        "LSET l 0 q",
        "LINSERT l BEFORE q w",
        "LREM l 0 w",
        "LTRIM l 0 -1",
        "LMOVE l l2 LEFT LEFT",
        "RPOPLPUSH nokey l",
        "LMPOP 2 nokey l LEFT",
        "BLPOP nokey l2 0",
        "TYPE l",
        "TYPE nokey",
    ] {
        let before = p.stats();
        assert_eq!(before.0, before.1, "stats before {line}");
        p.check(line);
        let after = p.stats();
        assert_eq!(after.0, after.1, "stats after {line}");
    }
}

/// WATCH sees exactly the list writes Redis signals: LINSERT without the
/// pivot, LREM removing nothing and LSET out of range leave it alone,
/// LTRIM always touches.
#[test]
fn watch_sees_list_writes() {
    let mut d = Differ::start(2, &[]);
    let cases: &[(&str, bool)] = &[
        ("LPUSH w x", true),
        ("LINSERT w BEFORE nope y", false),
        ("LINSERT w BEFORE x y", true),
        ("LREM w 0 nope", false),
        ("LREM w 1 x", true),
        ("LSET w 10 z", false),
        ("LSET w 0 z", true),
        ("LTRIM w 0 -1", true),
        ("LPUSHX nokey a", false),
        ("LPOP w 0", false),
        ("RPOPLPUSH nokey w", false),
        ("LMOVE w w LEFT RIGHT", true),
        ("LPOS w z", false),
        ("RPUSH w a", true),
        ("LMPOP 1 w LEFT COUNT 100", true),
    ];
    for &(cmd, dooms) in cases {
        d.check(0, "RPUSH w seed x");
        let r = d.watch_round("w", cmd);
        assert_eq!(r == Frame::NullArray, dooms, "{cmd}");
        d.check(0, "DEL w");
    }
}

/// The keys of the random list commands (`s` is often a string).
const LIST_KEYS: [&str; 4] = ["a", "b", "c", "s"];

/// One random list command (or string command on the same keys) over a
/// small alphabet of elements, indexes and counts; now and then a long
/// element.
fn random_list_command(rng: &mut Rng) -> Vec<String> {
    let beyond_i64 = "12345678901234567890";
    let small = [
        "", "0", "1", "-1", "x", "y", "pivot", beyond_i64, "3.5", "-100",
    ];
    let idx = ["0", "1", "2", "-1", "-2", "5", "-7", "100", "-100", "x"];
    let counts = ["0", "1", "2", "3", "-1", "-2", "10", "x"];
    let [k, k2] = rng.picks(&LIST_KEYS);
    let mut v = rng.pick(&small).to_string();
    if rng.below(8) == 0 {
        v = "w".repeat(rng.below(3000) + 60);
    }
    let end = |rng: &mut Rng| {
        let choices = if rng.below(20) == 0 { 4 } else { 3 };
        ["LEFT", "RIGHT", "left", "up"][rng.below(choices)]
    };
    match rng.below(30) {
        0..=3 => {
            let mut c = words(&[["LPUSH", "RPUSH", "LPUSHX", "RPUSHX"][rng.below(4)], k]);
            for _ in 0..1 + rng.below(5) {
                c.push(if rng.below(3) == 0 {
                    v.clone()
                } else {
                    rng.pick(&small).into()
                });
            }
            c
        }
        4 | 5 => {
            let mut c = words(&[["LPOP", "RPOP"][rng.below(2)], k]);
            if rng.below(2) == 0 {
                c.push(rng.pick(&counts).into());
            }
            c
        }
        6 => words(&["LRANGE", k, rng.pick(&idx), rng.pick(&idx)]),
        7 => words(&["LINDEX", k, rng.pick(&idx)]),
        8 => words(&["LLEN", k]),
        9 => words(&[
            "LINSERT",
            k,
            ["BEFORE", "AFTER", "after"][rng.below(3)],
            rng.pick(&small),
            &v,
        ]),
        10 => words(&["LSET", k, rng.pick(&idx), &v]),
        11 => words(&["LREM", k, rng.pick(&counts), rng.pick(&small)]),
        12 => words(&["LTRIM", k, rng.pick(&idx), rng.pick(&idx)]),
        13 => {
            let mut c = words(&["LPOS", k, rng.pick(&small)]);
            for opt in ["RANK", "COUNT", "MAXLEN"] {
                if rng.below(3) == 0 {
                    c.push(opt.into());
                    c.push(rng.pick(&counts).into());
                }
            }
            c
        }
        14 => words(&["LMOVE", k, k2, end(rng), end(rng)]),
        15 => words(&["RPOPLPUSH", k, k2]),
        16 => {
            let mut c = words(&["LMPOP", "2", k, k2, end(rng)]);
            if rng.below(2) == 0 {
                c.push("COUNT".into());
                c.push(rng.pick(&counts).into());
            }
            c
        }
        17 => words(&["BLPOP", k, k2, "0.01"]),
        18 => words(&["BRPOP", k, "0.01"]),
        19 => words(&["BLMOVE", k, k2, end(rng), end(rng), "0.01"]),
        20 => words(&[
            "BLMPOP",
            "0.01",
            "1",
            k,
            end(rng),
            "COUNT",
            rng.pick(&counts),
        ]),
        21 => words(&["SET", k, &v]),
        22 => words(&["APPEND", k, rng.pick(&small)]),
        23 => words(&["GET", k]),
        24 => words(&["DEL", k]),
        25 => words(&["TYPE", k]),
        26 => words(&["INCR", k]),
        27 => words(&["RENAME", k, k2]),
        28 => words(&["EXISTS", k, k2]),
        _ => words(&["LRANGE", k, "0", "-1"]),
    }
}

/// A seeded stream of random list commands ([`random_list_command`]),
/// every reply compared, and every 50 steps the lists themselves.
#[test]
fn random_list_commands_match() {
    let mut lists = 0;
    let mut p = random_steps(0x5eed_1157, 3600, random_list_command, |p, step, cmd| {
        if cmd[0].starts_with('L') || cmd[0].starts_with('R') || cmd[0].starts_with('B') {
            lists += 1;
        }
        p.check_args(&word_args(&cmd));
        if step % 50 == 0 {
            for k in LIST_KEYS {
                p.check(&format!("TYPE {k}"));
                p.check(&format!("LRANGE {k} 0 -1"));
            }
        }
    });
    assert!(lists > 2500, "{lists} list commands");
    for k in LIST_KEYS {
        p.check(&format!("LRANGE {k} 0 -1"));
    }
    assert!(p.compared > 3600, "{} replies compared", p.compared);
}

/// The blocking pops Redis 7.0 marked `noscript` and 7.2 does not.
const BLOCKING_POPS: [&str; 6] = [
    "blpop",
    "brpop",
    "blmove",
    "brpoplpush",
    "bzpopmin",
    "bzpopmax",
];

/// The command table agrees with what Redis' `COMMAND INFO` reports.
#[test]
fn command_table_matches_command_info() {
    let redis = RedisServer::start(&[]);
    let mut c = redis.conn();
    let table: Vec<&Command> = redsim_engine::cmd::all()
        .filter(|c| {
            c.group == "list" || (c.group == "sorted-set" && c.flags.contains(Flags::BLOCKING))
        })
        .collect();
    let lists = table.iter().filter(|c| c.group == "list").count();
    assert_eq!(lists, 22, "every list command of Redis 7.2");
    let zsets: Vec<&str> = table
        .iter()
        .filter(|c| c.group == "sorted-set")
        .map(|c| c.name)
        .collect();
    assert_eq!(zsets, ["bzpopmin", "bzpopmax", "bzmpop"]);
    let seven_oh = redsim_tests::is_redis_7_0(&mut c);
    for cmd in table {
        let mut info = command_info(&mut c, cmd.name);
        // 7.2 lets scripts run the blocking pops (they answer at once
        // there); 7.0 flagged them `noscript`.
        if seven_oh && BLOCKING_POPS.contains(&cmd.name) {
            if let Frame::Array(flags) = &mut info[2] {
                flags.retain(|f| *f != Frame::simple("noscript"));
            }
        }
        assert_command_info(&info, cmd, cmd.name);
    }
    assert_eq!(
        commands_in_group(&mut c, "list"),
        lists,
        "as many as Redis has"
    );
}
