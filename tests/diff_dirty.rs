//! The dirty counter (`rdb_changes_since_last_save`, Redis' `server.dirty`) against a real redis-server: after every command of a corpus both servers must have counted the same number of changes, including commands that change nothing, elements counted one by one, and blocked clients served by a push.

use redsim_tests::{info_int, parse, Pair};

fn dirty(c: &mut redsim_tests::Conn) -> i64 {
    info_int(c, "persistence", "rdb_changes_since_last_save").expect("rdb_changes_since_last_save")
}

/// Runs each line on both servers and compares how much each one's
/// counter grew (and the replies, except after `~`: a random reply).
fn corpus(p: &mut Pair, text: &str) {
    let mut wrong = Vec::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let before = (dirty(&mut p.redis), dirty(&mut p.sim));
        match line.strip_prefix('~') {
            Some(random) => {
                p.both(random.trim());
            }
            None => {
                p.check(line);
            }
        }
        let after = (dirty(&mut p.redis), dirty(&mut p.sim));
        let grew = (after.0 - before.0, after.1 - before.1);
        if grew.0 != grew.1 {
            wrong.push(format!("{line}: Redis {}, redsim {}", grew.0, grew.1));
        }
    }
    assert!(
        wrong.is_empty(),
        "changes counted differently:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn writes_count_their_changes_as_redis_does() {
    let mut p = Pair::start(&[]);
    corpus(
        &mut p,
        "
        SET a 1
        SET a 1 EX 100
        SET a 2 KEEPTTL
        SETNX a 3
        MSET b 1 c 2 d 3
        INCR b
        INCRBY b 5
        APPEND c xyz
        GET a
        DEL a b nope
        UNLINK c d
        EXPIRE nope 10
        SET e 1
        EXPIRE e 100
        PERSIST e
        PERSIST e
        RENAME e f
        COPY f g
        LPUSH l a b c d
        RPUSH l e
        LPUSHX nolist a
        LPOP l
        RPOP l 2
        LSET l 0 z
        LINSERT l BEFORE z y
        LINSERT l BEFORE nothere y
        LREM l 0 y
        LTRIM l 0 100
        LTRIM l 0 0
        LMOVE l l2 LEFT RIGHT
        LMOVE l2 l2 LEFT RIGHT
        RPOPLPUSH l2 l3
        SADD s a b c
        SADD s a d
        SADD s a
        SREM s a b nope
        SMOVE s s2 c
        SMOVE s s2 nope
        ~SPOP s
        HSET h a 1 b 2 c 3
        HSET h a 1
        HSETNX h a 2
        HDEL h a b nope
        HINCRBY h n 1
        ZADD z 1 a 2 b 3 c
        ZADD z 1 a 5 b
        ZADD z XX CH 7 c 8 nope
        ZINCRBY z 1 a
        ZREM z a nope
        ZREMRANGEBYSCORE z 0 100
        SETBIT bits 0 0
        SETBIT bits 0 0
        SETBIT bits 0 1
        SETBIT bits 100 0
        BITFIELD bf SET i5 0 0
        BITFIELD bf SET i5 0 0
        BITFIELD bf SET i5 0 1 SET i5 0 1 INCRBY i5 5 1
        BITFIELD bf GET i5 0
        PFADD hll a b c
        PFADD hll a
        XADD st 1-1 f v
        XDEL st 1-1
        XADD st 2-1 f v
        XADD st 3-1 f v
        XTRIM st MAXLEN 1
        XADD st 4-1 f v
        XADD st 5-1 f v
        XGROUP CREATE st g 0
        XGROUP CREATE st g 0
        XGROUP CREATE st2 g2 $ MKSTREAM
        XGROUP CREATECONSUMER st g c0
        XGROUP CREATECONSUMER st g c0
        XGROUP SETID st g 0
        XREADGROUP GROUP g c1 COUNT 1 STREAMS st >
        XREADGROUP GROUP g c1 STREAMS st 0
        XREADGROUP GROUP g c2 NOACK STREAMS st >
        XREADGROUP GROUP g c2 STREAMS st >
        # (7.2 also counts the consumer XCLAIM creates; 7.0 makes none
        # unless it claims, so the claimant here exists.)
        XCLAIM st g c1 0 3-1
        XCLAIM st g c1 0 9-9
        XAUTOCLAIM st g c4 0 0
        XACK st g 4-1 9-9
        XGROUP DELCONSUMER st g c0
        XGROUP DESTROY st g
        XGROUP DESTROY st g
        XSETID st 9-9
        FUNCTION LOAD \"#!lua name=dl\\nredis.register_function('f', function() return 1 end)\"
        FUNCTION LOAD \"#!lua name=dl\\nredis.register_function('f', function() return 1 end)\"
        FUNCTION DELETE dl
        FUNCTION DELETE dl
        FUNCTION FLUSH
        SET m 1
        MOVE m 1
        SWAPDB 0 1
        SWAPDB 0 1
        GETDEL f
        GETDEL nope
        SET ge 1
        GETEX ge EX 100
        GETEX ge PERSIST
        GETEX ge
        SETRANGE ge 5 x
        INCRBYFLOAT ge2 1.5
        HINCRBYFLOAT h x 1.5
        SADD u1 a b c
        SADD u2 c d
        SUNIONSTORE u3 u1 u2
        SINTERSTORE u4 u1 u2
        SDIFFSTORE u5 u1 u2
        ZUNIONSTORE zu 2 z z
        SORT l3 ALPHA STORE sorted
        ~SPOP u1 2
        SADD u6 1 2 3
        SPOP u6 5
        GEOADD geo 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
        GEOADD geo 13.361389 38.115556 Palermo
        PFMERGE hll2 hll
        EXPIRE sorted -1
        FLUSHDB
        ",
    );
}

#[test]
fn a_blocked_pop_served_by_a_push_counts_on_its_own() {
    let mut p = Pair::start(&[]);
    let (mut br, mut bs) = p.new_conns();
    for c in [&mut br, &mut bs] {
        c.send_raw(b"*3\r\n$5\r\nBLPOP\r\n$3\r\nlst\r\n$1\r\n0\r\n");
    }
    // Both clients are blocked before the push.
    for c in [&mut p.redis, &mut p.sim] {
        for _ in 0..100 {
            let n = info_int(c, "clients", "blocked_clients").unwrap_or(0);
            if n == 1 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    let before = (dirty(&mut p.redis), dirty(&mut p.sim));
    p.check_args(&parse("LPUSH lst a"));
    assert_eq!(br.read_frame(), bs.read_frame());
    let after = (dirty(&mut p.redis), dirty(&mut p.sim));
    // The push and the served pop: 7.2 counts both (7.0 lost the pop).
    assert_eq!(after.1 - before.1, 2);
    if !p.redis_is_7_0() {
        assert_eq!(after.0 - before.0, 2);
    }
}
