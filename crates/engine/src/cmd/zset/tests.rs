//! Sorted-set behaviour across commands: encodings at the thresholds and under CONFIG SET, memory accounting, seeded randomness, invariants through random commands.

use crate::cmd::testing::{encoding, engine};
use crate::rng::Pick;
use crate::{Engine, Frame};

fn run(e: &mut Engine, c: u64, line: &str) -> Frame {
    let args = crate::proto::resp::split_args(line.as_bytes()).expect("balanced quotes");
    e.execute(c, &args)
}

#[test]
fn encodings_at_the_thresholds() {
    let (mut e, c) = engine(1);
    for i in 0..128 {
        run(&mut e, c, &format!("ZADD z {i} m{i}"));
    }
    assert_eq!(encoding(&e, "z"), "listpack");
    run(&mut e, c, "ZADD z 1000 m128");
    assert_eq!(encoding(&e, "z"), "skiplist");
    run(&mut e, c, &format!("ZADD v 1 {}", "x".repeat(64)));
    assert_eq!(encoding(&e, "v"), "listpack");
    run(&mut e, c, &format!("ZADD v 1 {}", "y".repeat(65)));
    assert_eq!(encoding(&e, "v"), "skiplist");
    // A new key sized by the first member, and by the pair count.
    run(&mut e, c, &format!("ZADD w 1 {} 2 a", "x".repeat(65)));
    assert_eq!(encoding(&e, "w"), "skiplist");
    // Stores pick the best encoding for their result.
    assert_eq!(run(&mut e, c, "ZRANGESTORE d z 0 9"), Frame::Integer(10));
    assert_eq!(encoding(&e, "d"), "listpack");
    assert_eq!(
        run(&mut e, c, "ZRANGESTORE d z -inf +inf BYSCORE"),
        Frame::Integer(129)
    );
    assert_eq!(encoding(&e, "d"), "skiplist");
    assert_eq!(
        run(&mut e, c, "ZUNIONSTORE u 1 z WEIGHTS 2"),
        Frame::Integer(129)
    );
    assert_eq!(encoding(&e, "u"), "skiplist");
    run(&mut e, c, "ZREMRANGEBYRANK u 0 99");
    assert_eq!(encoding(&e, "u"), "skiplist", "removals never convert back");
    assert_eq!(run(&mut e, c, "ZINTERSTORE i 2 u z"), Frame::Integer(29));
    assert_eq!(encoding(&e, "i"), "listpack");
}

#[test]
fn config_set_changes_thresholds() {
    let (mut e, c) = engine(1);
    assert_eq!(
        run(&mut e, c, "CONFIG SET zset-max-listpack-entries 2"),
        Frame::ok()
    );
    run(&mut e, c, "ZADD z 1 a 2 b");
    assert_eq!(encoding(&e, "z"), "listpack");
    run(&mut e, c, "ZADD z 3 c");
    assert_eq!(encoding(&e, "z"), "skiplist");
    assert_eq!(
        run(&mut e, c, "CONFIG SET zset-max-ziplist-value 3"),
        Frame::ok()
    );
    assert_eq!(
        run(&mut e, c, "CONFIG GET zset-max-listpack-value"),
        Frame::Map(vec![(
            Frame::bulk("zset-max-listpack-value"),
            Frame::bulk("3")
        )])
    );
    run(&mut e, c, "ZADD y 1 abcd");
    assert_eq!(encoding(&e, "y"), "skiplist");
    run(&mut e, c, "ZADD x 1 abc");
    assert_eq!(encoding(&e, "x"), "listpack");
    // ZADD of more pairs than the limit converts first, even as no-ops.
    run(&mut e, c, "ZADD x XX 1 q 1 r 1 s");
    assert_eq!(encoding(&e, "x"), "skiplist");
}

#[test]
fn memory_is_counted_as_the_set_changes() {
    let (mut e, c) = engine(7);
    let used = |e: &Engine| e.server().used_memory();
    // The keyspace's first buckets are not part of the set's cost.
    run(&mut e, c, "SET other v");
    let base = used(&e);
    for i in 0..300 {
        run(&mut e, c, &format!("ZADD z {} member:{i}", i % 17));
        run(&mut e, c, &format!("ZINCRBY z 1.5 member:{}", i / 2));
    }
    let grown = used(&e);
    assert!(grown > base + 300 * 40, "{base} -> {grown}");
    for i in 0..300 {
        run(&mut e, c, &format!("ZREM z member:{i}"));
    }
    assert_eq!(used(&e), base, "everything given back");
    if let Some(crate::keyspace::object::Value::ZSet(z)) =
        e.server().dbs[0].get(b"z").map(|o| &o.value)
    {
        panic!("emptied set still there: {:?}", z.len());
    }
}

#[test]
fn random_members_are_seeded() {
    let picks = |seed| {
        let (mut e, c) = engine(seed);
        for i in 0..500 {
            run(&mut e, c, &format!("ZADD z {i} m{i}"));
        }
        (0..5)
            .map(|_| run(&mut e, c, "ZRANDMEMBER z 3"))
            .collect::<Vec<_>>()
    };
    assert_eq!(picks(5), picks(5));
    assert_ne!(picks(5), picks(6));
}

/// Random commands keep every set's invariants: order, dict and skiplist
/// in step, and the O(1) memory counter equal to a recount.
#[test]
fn invariants_hold_through_random_commands() {
    let (mut e, c) = engine(11);
    run(&mut e, c, "CONFIG SET zset-max-listpack-entries 8");
    let mut rng = fastrand::Rng::with_seed(4);
    let members = [
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "10", "-3",
    ];
    let scores = ["0", "1", "-1", "2.5", "inf", "-inf", "-0", "7"];
    let keys = ["x", "y", "z"];
    for step in 0..6000 {
        let k = keys[rng.pick(..keys.len())];
        let k2 = keys[rng.pick(..keys.len())];
        let m = members[rng.pick(..members.len())];
        let sc = scores[rng.pick(..scores.len())];
        let line = match rng.u8(..12) {
            0..=3 => format!("ZADD {k} {sc} {m} {sc} {m}{m}"),
            4 => format!("ZINCRBY {k} {sc} {m}"),
            5 => format!("ZREM {k} {m}"),
            6 => format!("ZREMRANGEBYSCORE {k} -1 2.5"),
            7 => format!("ZREMRANGEBYRANK {k} 1 3"),
            8 => format!("ZPOPMIN {k} 2"),
            9 => format!("ZUNIONSTORE {k} 2 {k2} {k}"),
            10 => format!("ZRANGESTORE {k} {k2} 0 5"),
            _ => format!("ZREMRANGEBYLEX {k} [a [e"),
        };
        let reply = run(&mut e, c, &line);
        assert!(
            !matches!(&reply, Frame::Error(m) if !m.contains("NaN")),
            "{line}: {reply:?}"
        );
        for key in keys {
            let Some(obj) = e.server().dbs[0].get(key.as_bytes()) else {
                continue;
            };
            let crate::keyspace::object::Value::ZSet(z) = &obj.value else {
                panic!("{key} is not a sorted set");
            };
            assert!(!z.is_empty(), "empty set left under {key}");
            z.check()
                .unwrap_or_else(|err| panic!("step {step} `{line}`: {key}: {err}"));
            if let Some(view) = z.inspect() {
                assert_eq!(view.len(), z.len() + 1, "inspector: header and every node");
            }
        }
    }
}

#[test]
fn huge_negative_counts_are_refused_not_built() {
    let (mut e, c) = engine(1);
    run(&mut e, c, "ZADD z 1 a");
    let Frame::Array(v) = run(&mut e, c, "ZRANDMEMBER z -1000000") else {
        panic!("array");
    };
    assert_eq!(v.len(), 1_000_000);
    assert!(run(&mut e, c, "ZRANDMEMBER z -1000001").is_error());
    assert!(run(&mut e, c, "ZRANDMEMBER z -9223372036854775807").is_error());
    // Positive counts are bounded by the set.
    assert_eq!(
        run(&mut e, c, "ZRANDMEMBER z 9223372036854775807"),
        Frame::Array(vec![Frame::bulk("a")])
    );
}
