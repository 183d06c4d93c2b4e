//! Differential tests of the stream commands: the same commands go to a real redis-server and to redsim's native server, and the replies must match.
//!
//! IDs are explicit wherever a reply is compared exactly. What depends on
//! each server's clock is normalised, and only that:
//! - integers that are Unix-ms timestamps (≥ 10^12: delivery, seen and
//!   active times) and the values of `idle` / `inactive` fields and of
//!   XPENDING's idle column may differ by [`TOL_MS`] (shape only in the
//!   random streams, where seen-times legitimately drift apart);
//! - `*` IDs compare by shape: a timestamp within the tolerance, any
//!   sequence, and the same order.
//!
//! The reference is Redis 7.0.15; redsim follows 7.2. Where they differ
//! the test says so and checks 7.2's behaviour explicitly
//! ([`seven_two_differences`], [`blocked_xreadgroup_woken_by_deletion`]):
//! - XINFO CONSUMERS has `inactive` and XINFO STREAM FULL `active-time`
//!   (7.2): checked, then removed before comparing with 7.0;
//! - the unbalanced-STREAMS error names the command (`'xread'`, `'>'`);
//! - HELP ends with "Print this help." (7.0: "Prints");
//! - XSETID refuses an ID below the maximal deleted ID;
//! - a BLOCK timeout that overflows the clock is an error, and `ms-*`
//!   past the millisecond's last sequence says the ID is too small;
//! - XREADGROUP, XCLAIM and XAUTOCLAIM create their consumer even when
//!   they serve or claim nothing (7.0 only did when they did);
//! - a blocked XREADGROUP whose key is deleted or overwritten runs again
//!   and answers NOGROUP or WRONGTYPE (7.0: "UNBLOCKED the stream key no
//!   longer exists", and no wake-up on overwrite).

use std::ops::{Deref, DerefMut};
use std::time::Duration;

use redsim_engine::proto::clifmt::format_reply;
use redsim_tests::{
    assert_command_group, encode_request, info_int, parse, show, Conn, Frame, Pair, RedisServer,
    RedsimServer, Rng,
};

mod compare;
mod corpus;
mod random;
use compare::*;
use corpus::*;

/// How far two servers' clocks may be apart in a compared reply.
#[test]
fn xadd_xrange_xdel_xtrim_options_and_errors() {
    let mut p = Streams::start(&[]);
    p.corpus(XADD_XRANGE);
    p.corpus(ID_SYNTAX);
    // 128-byte and 127-byte IDs, and a NUL that ends the C string.
    let long = format!("{}-0", "1".repeat(126));
    p.check(&format!("XADD j {long} f v"));
    let long127 = format!("00{}", "1".repeat(125));
    p.check(&format!("XADD j {long127} f v"));
    let nul: Vec<Vec<u8>> = vec![
        b"XADD".to_vec(),
        b"j".to_vec(),
        b"2000\x00junk".to_vec(),
        b"f".to_vec(),
        b"v".to_vec(),
    ];
    p.check_with(&nul, Some(0));
    p.check("XRANGE j - +");
    assert!(p.compared > 130, "{} compared", p.compared);
}

#[test]
fn resp3_replies() {
    let mut p = Streams::start(&[]);
    p.hello3();
    p.corpus(XADD_XRANGE);
    p.corpus(
        "XADD r 1 a 1
         XADD r2 1 b 2
         XREAD STREAMS r r2 0 0
         XREAD COUNT 1 STREAMS r nokey r2 0 0 0
         XREAD STREAMS nokey 0
         XGROUP CREATE r g 0
         XREADGROUP GROUP g c STREAMS r >
         XREADGROUP GROUP g c STREAMS r >
         XREADGROUP GROUP g c STREAMS r 0
         XINFO STREAM r
         XINFO GROUPS r
         XPENDING r g
         XPENDING r nog
         XAUTOCLAIM r g c 0 0 JUSTID",
    );
}

#[test]
fn consumer_groups_deliver_ack_pending_claim() {
    let mut p = Streams::start(&[]);
    p.check("SET str x");
    p.corpus(GROUPS);
    assert!(p.compared > 180, "{} compared", p.compared);
}

/// Entries read, lag and the last delivered ID through deletions,
/// XSETID and XGROUP SETID, as XINFO GROUPS reports them.
#[test]
fn lag_and_entries_read() {
    let mut p = Streams::start(&[]);
    p.corpus(
        "XGROUP CREATE l g $ MKSTREAM
         XINFO GROUPS l
         XADD l 1 f v
         XADD l 2 f v
         XADD l 3 f v
         XADD l 4 f v
         XADD l 5 f v
         XGROUP CREATE l from0 0
         XGROUP CREATE l mid 3
         XGROUP CREATE l known 3 ENTRIESREAD 3
         XINFO GROUPS l
         XREADGROUP GROUP g c COUNT 2 STREAMS l >
         XINFO GROUPS l
         XDEL l 4
         XINFO GROUPS l
         XREADGROUP GROUP g c COUNT 1 STREAMS l >
         XINFO GROUPS l
         XREADGROUP GROUP mid c STREAMS l >
         XREADGROUP GROUP from0 c COUNT 1 STREAMS l >
         XINFO GROUPS l
         XDEL l 1
         XINFO GROUPS l
         XREADGROUP GROUP from0 c STREAMS l >
         XINFO GROUPS l
         XGROUP SETID l g 0
         XINFO GROUPS l
         XGROUP SETID l g 0 ENTRIESREAD 0
         XINFO GROUPS l
         XGROUP SETID l g $ ENTRIESREAD 2
         XINFO GROUPS l
         XSETID l 10 ENTRIESADDED 20 MAXDELETEDID 9
         XINFO GROUPS l
         XINFO STREAM l
         XADD l 11 f v
         XINFO GROUPS l
         XREADGROUP GROUP g c STREAMS l >
         XINFO GROUPS l
         XTRIM l MAXLEN 0
         XINFO GROUPS l
         XINFO STREAM l
         XGROUP CREATE l late 0
         XINFO GROUPS l
         XADD l2 1 f v
         XGROUP CREATE l2 g 0
         XDEL l2 1
         XINFO GROUPS l2
         XADD l2 2 f v
         XINFO GROUPS l2
         XREADGROUP GROUP g c STREAMS l2 >
         XINFO GROUPS l2",
    );
}

/// Claiming after a real idle period: both servers see the same entries
/// idle long enough (sleeps far above the clocks' tolerance).
#[test]
fn claim_after_idle() {
    let mut p = Streams::start(&[]);
    p.corpus(
        "XADD c 1 f v
         XADD c 2 f v
         XADD c 3 f v
         XGROUP CREATE c g 0
         XGROUP CREATECONSUMER c g bob
         XGROUP CREATECONSUMER c g carol
         XREADGROUP GROUP g alice COUNT 2 STREAMS c >",
    );
    std::thread::sleep(Duration::from_millis(400));
    p.corpus(
        "XREADGROUP GROUP g bob STREAMS c >
         XCLAIM c g carol 300 1 2 3
         ~XPENDING c g - + 10
         ~XPENDING c g IDLE 300 - + 10
         XCLAIM c g carol 100000 1 2 3
         XCLAIM c g bob 0 1 IDLE 1000000 JUSTID
         ~XPENDING c g IDLE 900000 - + 10
         XCLAIM c g bob 0 2 TIME 1 JUSTID
         ~XPENDING c g IDLE 900000 - + 10
         XCLAIM c g bob 0 3 TIME 99999999999999 JUSTID
         ~XPENDING c g IDLE 100 - + 10
         XCLAIM c g bob 0 3 IDLE -5 JUSTID
         ~XPENDING c g IDLE 100 - + 10",
    );
    std::thread::sleep(Duration::from_millis(400));
    p.corpus(
        "XAUTOCLAIM c g dave 300 0 COUNT 1
         XAUTOCLAIM c g dave 300 0
         ~XPENDING c g - + 10
         XAUTOCLAIM c g dave 100000 0
         XINFO GROUPS c",
    );
    // Idle times themselves, within the clocks' tolerance.
    let (r, s) = p.both("XPENDING c g - + 10");
    assert!(similar(&r, &s, Some(TOL_MS), false), "{r:?} / {s:?}");
}

/// XAUTOCLAIM's third element lists pending entries no longer in the
/// stream, which it drops from the PEL (and counts against COUNT).
#[test]
fn autoclaim_reports_deleted_entries() {
    let mut p = Streams::start(&[]);
    p.corpus(
        "XADD a 1 f v
         XADD a 2 f v
         XADD a 3 f v
         XADD a 4 f v
         XADD a 5 f v
         XGROUP CREATE a g 0
         XREADGROUP GROUP g x STREAMS a >
         XDEL a 2 4
         XAUTOCLAIM a g y 0 0 COUNT 1
         XAUTOCLAIM a g y 0 0 COUNT 2
         XPENDING a g
         XAUTOCLAIM a g y 0 0 JUSTID
         XPENDING a g
         XTRIM a MAXLEN 0
         XAUTOCLAIM a g y 0 0 COUNT 1
         XAUTOCLAIM a g y 0 0 COUNT 10
         XPENDING a g
         XCLAIM a g y 0 1 FORCE",
    );
}

/// XINFO STREAM exact; FULL, GROUPS and CONSUMERS with times normalised.
#[test]
fn xinfo_outputs() {
    for resp3 in [false, true] {
        let mut p = Streams::start(&[]);
        if resp3 {
            p.hello3();
        }
        p.corpus(
            "XINFO STREAM i
             XGROUP CREATE i g $ MKSTREAM
             XINFO STREAM i
             XINFO STREAM i FULL
             XADD i 1 a 1
             XADD i 2 b 2 c 3
             XADD i 3 a 1
             XGROUP CREATE i h 0
             XGROUP CREATECONSUMER i h idle
             XREADGROUP GROUP g c1 COUNT 1 STREAMS i >
             XREADGROUP GROUP g c2 STREAMS i >
             XREADGROUP GROUP h c3 NOACK STREAMS i 0
             XREADGROUP GROUP h c3 NOACK STREAMS i >
             XINFO STREAM i
             ~XINFO STREAM i FULL
             ~XINFO STREAM i FULL COUNT 1
             ~XINFO STREAM i FULL COUNT 0
             ~XINFO STREAM i FULL COUNT -5
             XINFO STREAM i FULL COUNT x
             XINFO STREAM i FULL X 1
             XINFO STREAM i FOO
             XINFO STREAM i FULL COUNT
             XINFO STREAM i FULL COUNT 1 2
             ~XINFO CONSUMERS i g
             ~XINFO CONSUMERS i h
             XINFO GROUPS i
             XDEL i 1 3
             XINFO STREAM i
             ~XINFO STREAM i FULL
             XDEL i 2
             XINFO STREAM i
             ~XINFO STREAM i FULL",
        );
        // 7.2's fields, checked on redsim: c1 and c2 read successfully,
        // `idle` was only created and c3 read with NOACK.
        let consumers = p.sim_only("XINFO CONSUMERS i h");
        let text = format_reply(&consumers);
        assert!(text.contains("inactive"), "{text}");
        let full = format_reply(&p.sim_only("XINFO STREAM i FULL"));
        assert!(full.contains("active-time"), "{full}");
        assert_eq!(inactive_of(&consumers, "idle"), Some(-1), "never active");
        assert_eq!(
            inactive_of(&consumers, "c3"),
            Some(-1),
            "NOACK reads are not activity"
        );
        let g = p.sim_only("XINFO CONSUMERS i g");
        assert!(inactive_of(&g, "c1").is_some_and(|t| (0..TOL_MS).contains(&t)));
    }
}

/// The `inactive` field of consumer `name` in an XINFO CONSUMERS reply.
fn inactive_of(reply: &Frame, name: &str) -> Option<i64> {
    let Frame::Array(consumers) = reply else {
        return None;
    };
    for c in consumers {
        let pairs: Vec<(Frame, Frame)> = match c {
            Frame::Map(m) => m.clone(),
            Frame::Array(flat) => flat
                .chunks(2)
                .map(|p| (p[0].clone(), p[1].clone()))
                .collect(),
            _ => continue,
        };
        let get = |k: &str| {
            pairs
                .iter()
                .find(|(f, _)| *f == Frame::bulk(k))
                .map(|(_, v)| v.clone())
        };
        if get("name") == Some(Frame::bulk(name)) {
            return match get("inactive") {
                Some(Frame::Integer(n)) => Some(n),
                _ => None,
            };
        }
    }
    None
}

// ---------------------------------------------------------------------------
// Trimming.

/// Appended streams of a few hundred entries of mixed sizes, trimmed with
/// `~` (whole nodes) and `=`: XLEN and XINFO STREAM (node and rax counts)
/// must be Redis'. Run under the default node limits and others.
#[test]
fn trimming_follows_node_boundaries() {
    for extra in [
        &[][..],
        &["--stream-node-max-entries", "7"][..],
        &["--stream-node-max-bytes", "300"][..],
        &[
            "--stream-node-max-entries",
            "0",
            "--stream-node-max-bytes",
            "1024",
        ][..],
    ] {
        let mut p = Streams::start(extra);
        let mut rng = Rng(0x7e57_0001 ^ extra.len() as u64);
        let mut approx_changed = 0;
        for k in 0..6 {
            let key = format!("t{k}");
            let n = [150, 250, 333, 420][rng.below(4)];
            for i in 1..=n {
                let mut cmd = vec!["XADD".to_string(), key.clone()];
                if rng.one_in(50) {
                    cmd.extend(["MAXLEN".into(), "~".into(), rng.below(n).to_string()]);
                } else if rng.one_in(50) {
                    cmd.extend(["MINID".into(), "~".into(), rng.below(i).to_string()]);
                }
                cmd.push(format!("{i}-{}", rng.below(4)));
                let nf = [1, 1, 1, 2, 3][rng.below(5)];
                for j in 0..nf {
                    cmd.push(format!("f{j}"));
                    cmd.push("v".repeat([1, 5, 20, 60, 200, 1500][rng.below(6)]));
                }
                if rng.one_in(3) {
                    cmd.truncate(cmd.len() - 2 * nf);
                    cmd.extend(["field".into(), rng.below(100_000).to_string()]);
                }
                let args: Vec<Vec<u8>> = cmd.iter().map(|s| s.clone().into_bytes()).collect();
                p.check_with(&args, Some(0));
                if rng.one_in(60) {
                    let id = 1 + rng.below(i);
                    p.check(&format!("XDEL {key} {id}-0 {id}-1 {id}-2"));
                }
            }
            p.check(&format!("XINFO STREAM {key}"));
            for trim in [
                format!("XTRIM {key} MAXLEN ~ {}", rng.below(n)),
                format!("XTRIM {key} MINID ~ {}", rng.below(n)),
                format!(
                    "XTRIM {key} MAXLEN ~ {} LIMIT {}",
                    rng.below(n),
                    rng.below(300)
                ),
                format!("XTRIM {key} MAXLEN {}", rng.below(n)),
                format!("XTRIM {key} MINID {}", rng.below(n)),
            ] {
                let before = p.check(&format!("XLEN {key}"));
                p.check(&trim);
                let after = p.check(&format!("XLEN {key}"));
                if trim.contains('~') && before != after {
                    approx_changed += 1;
                }
                p.check(&format!("XINFO STREAM {key}"));
            }
            p.check(&format!("XRANGE {key} - + COUNT 3"));
            p.check(&format!("XREVRANGE {key} + - COUNT 3"));
        }
        assert!(approx_changed > 3, "approximate trims removed too little");
    }
}

/// MEMORY USAGE ... SAMPLES 0 is Redis' `objectComputeSize` over every
/// node: the listpacks' allocations (preallocated tail, shrunk full
/// nodes) and 244 bytes per rax node of the stream, its PELs and its
/// consumers' PELs, so the simulated node counts show here. 7.2's
/// consumer struct has `active_time`: 8 bytes more per consumer than 7.0.
#[test]
fn memory_usage_follows_redis_formula() {
    let mut p = Streams::start(&[]);
    let usage = |p: &mut Streams, key: &str| -> (i64, i64) {
        let line = format!("MEMORY USAGE {key} SAMPLES 0");
        match p.both(&line) {
            (Frame::Integer(r), Frame::Integer(s)) => (r, s),
            other => panic!("{line}: {other:?}"),
        }
    };
    let mut rng = Rng(0x5eed_0005);
    for i in 1..=1200 {
        let value = "v".repeat([1, 10, 100][rng.below(3)]);
        p.check(&format!(
            "XADD m {i}-{} f{} {value}",
            rng.below(3),
            rng.below(3)
        ));
        if i % 97 == 0 {
            p.check(&format!("XDEL m {}-0 {}-1", i / 2, i / 3));
            let (r, s) = usage(&mut p, "m");
            assert_eq!(r, s, "after {i} entries");
        }
    }
    p.check("XTRIM m MAXLEN ~ 500");
    // One-letter keys: MEMORY USAGE's key part is then the same in both
    // (a short key is an sdshdr5 in Redis).
    p.check("XADD n 1 f v");
    for key in ["m", "n"] {
        let (r, s) = usage(&mut p, key);
        assert_eq!(r, s, "{key}");
    }
    p.corpus(
        "XGROUP CREATE m g 0
         XGROUP CREATE m h 0
         XREADGROUP GROUP g alice COUNT 300 STREAMS m >
         XREADGROUP GROUP g bob COUNT 150 STREAMS m >
         XREADGROUP GROUP h carol COUNT 7 STREAMS m >
         XACK m g 1-0 2-0 3-0 4-1 5-2",
    );
    let (r, s) = usage(&mut p, "m");
    assert_eq!(s - r, 3 * 8, "three consumers, 8 bytes each");
}

// ---------------------------------------------------------------------------
// Blocking.

#[test]
fn blocking_xread_and_xreadgroup() {
    let mut p = Streams::start(&[]);
    // `$` on a missing key: served by the XADD that creates it.
    p.start_blocking("XREAD BLOCK 5000 STREAMS b1 b2 $ $");
    p.check("XADD b2 5 f v");
    p.finish_blocking("XREAD $ on new key");
    // `$` means the last ID when blocking: older data never serves it.
    p.check("XADD b1 1 f v");
    p.start_blocking("XREAD BLOCK 5000 STREAMS b1 $");
    p.check("XADD b1 2 g w");
    p.finish_blocking("XREAD $ after data");
    // An explicit ID ahead of the data: XADDs below it do not serve.
    p.start_blocking("XREAD BLOCK 5000 COUNT 1 STREAMS b1 10");
    p.check("XADD b1 5 f v");
    p.check("XADD b1 11 f v");
    p.finish_blocking("XREAD explicit ID");
    // Timeout: the null reply.
    p.start_blocking("XREAD BLOCK 100 STREAMS b1 $");
    std::thread::sleep(Duration::from_millis(250));
    p.finish_blocking("XREAD timeout");
    // XREADGROUP `>`: the delivery is recorded in the PEL.
    p.check("XGROUP CREATE b1 g $");
    p.start_blocking("XREADGROUP GROUP g alice BLOCK 5000 STREAMS b1 >");
    p.check("XADD b1 20 f v");
    p.finish_blocking("XREADGROUP >");
    p.check("XPENDING b1 g");
    // NOACK and COUNT on a served XREADGROUP.
    p.start_blocking("XREADGROUP GROUP g alice BLOCK 5000 COUNT 1 NOACK STREAMS b1 >");
    p.check("XADD b1 21 f v");
    p.finish_blocking("XREADGROUP NOACK");
    p.check("XPENDING b1 g");
    // A history read never blocks.
    p.check("XREADGROUP GROUP g alice BLOCK 5000 STREAMS b1 0");
    // A wrong type at the time of the block fails at once.
    p.check("SET str x");
    p.check("XREAD BLOCK 100 STREAMS str $");
    // The key turned into a list: XREAD keeps waiting, then is served
    // by a stream created under the same name.
    p.start_blocking("XREAD BLOCK 5000 STREAMS b3 $");
    p.check("LPUSH b3 x");
    p.check("DEL b3");
    p.check("XADD b3 7 f v");
    p.finish_blocking("XREAD after type change");
    // MULTI: blocking commands reply at once.
    p.corpus(
        "MULTI
         XREAD BLOCK 0 STREAMS m $
         XREADGROUP GROUP g c BLOCK 0 STREAMS b1 >
         XADD m 1 f v
         EXEC",
    );
    // Timeout 0 waits forever.
    p.start_blocking("XREAD BLOCK 0 STREAMS b4 $");
    p.check("XADD b4 1 f v");
    p.finish_blocking("XREAD BLOCK 0");
    // Two consumers blocked on one group: one entry serves the first to
    // block; the second runs again, finds nothing and waits on, until the
    // next entry.
    p.check("XGROUP CREATE b4 g $");
    let (mut r3, mut s3) = p.new_conns();
    p.start_blocking("XREADGROUP GROUP g first BLOCK 5000 STREAMS b4 >");
    let second = parse("XREADGROUP GROUP g second BLOCK 5000 STREAMS b4 >");
    r3.send_raw(&encode_request(&second));
    s3.send_raw(&encode_request(&second));
    std::thread::sleep(Duration::from_millis(150));
    // INFO clients counts them (the key counts are 7.2's: checked on redsim).
    for name in ["blocked_clients", "clients_in_timeout_table"] {
        assert_eq!(
            info_int(&mut p.redis, "clients", name),
            Some(2),
            "redis {name}"
        );
        assert_eq!(info_int(&mut p.sim, "clients", name), Some(2), "{name}");
    }
    assert_eq!(
        info_int(&mut p.sim, "clients", "total_blocking_keys"),
        Some(1)
    );
    assert_eq!(
        info_int(&mut p.sim, "clients", "total_blocking_keys_on_nokey"),
        Some(1)
    );
    p.check("XADD b4 2 f v");
    p.finish_blocking("first waiter");
    p.check("XADD b4 3 f v");
    let (want, got) = (r3.read_frame(), s3.read_frame());
    assert_eq!(got, want, "second waiter");
    assert!(format_reply(&want.expect("reply")).contains("3-0"));
    p.check("XPENDING b4 g");
}

/// A fresh stream `k` with group `g` on `c`'s server, an XREADGROUP
/// blocked on it from `b`, then `wake` run on `c`: what `b` is answered.
fn woken_xreadgroup(c: &mut Conn, b: &mut Conn, wake: &[&[&str]]) -> Option<Frame> {
    c.cmd(&["DEL", "k"]);
    c.cmd(&["XGROUP", "CREATE", "k", "g", "$", "MKSTREAM"]);
    let read = [
        "XREADGROUP",
        "GROUP",
        "g",
        "alice",
        "BLOCK",
        "0",
        "STREAMS",
        "k",
        ">",
    ];
    b.send_raw(&encode_request(&read));
    wait_running(c, "xreadgroup");
    for cmd in wake {
        c.cmd(cmd);
    }
    b.read_frame()
}

/// 7.2: a blocked XREADGROUP is woken when its key is deleted or
/// overwritten, or its group destroyed, and answers the error the command
/// now meets. Redis 7.0 differs for deletion (an UNBLOCKED error) and
/// overwrites (no wake-up); both are asserted so the difference is visible.
#[test]
fn blocked_xreadgroup_woken_by_deletion() {
    let r = RedisServer::start(&[]);
    let s = RedsimServer::start(&[]);
    let mut rc = r.conn();
    let mut sc = s.conn();
    let nogroup = "NOGROUP No such key 'k' or consumer group 'g' in XREADGROUP with GROUP option";
    // DEL, then XGROUP DESTROY: both versions answer NOGROUP to the latter;
    // 7.2's is the error of the command run again.
    let cases: [(&[&str], &str); 2] = [
        (&["DEL", "k"], "UNBLOCKED the stream key no longer exists"),
        (
            &["XGROUP", "DESTROY", "k", "g"],
            "NOGROUP the consumer group this client was blocked on no longer exists",
        ),
    ];
    for (wake, redis_says) in cases {
        let got = woken_xreadgroup(&mut rc, &mut r.conn(), &[wake]);
        assert_eq!(
            got,
            Some(Frame::Error(redis_says.into())),
            "redis: {wake:?}"
        );
        let got = woken_xreadgroup(&mut sc, &mut s.conn(), &[wake]);
        assert_eq!(got, Some(Frame::Error(nogroup.into())), "sim: {wake:?}");
    }
    // Overwritten with a string (7.2 only: 7.0 keeps waiting).
    assert_eq!(
        woken_xreadgroup(&mut sc, &mut s.conn(), &[&["SET", "k", "v"]]),
        Some(Frame::Error(
            "WRONGTYPE Operation against a key holding the wrong kind of value".into()
        ))
    );
    // FLUSHALL and a MULTI that deletes and re-creates the key as a set.
    let mut b = s.conn();
    let got = woken_xreadgroup(&mut sc, &mut b, &[&["FLUSHALL"]]);
    assert!(matches!(got, Some(Frame::Error(e)) if e.starts_with("NOGROUP")));
    b.cmd(&["PING"]);
    let multi: &[&[&str]] = &[&["MULTI"], &["DEL", "k"], &["SADD", "k", "e1"], &["EXEC"]];
    let got = woken_xreadgroup(&mut sc, &mut b, multi);
    assert!(matches!(got, Some(Frame::Error(e)) if e.starts_with("WRONGTYPE")));
    b.cmd(&["PING"]);
    // XREAD (no group) is not woken by a deletion: it waits for data.
    sc.cmd(&["DEL", "k"]);
    sc.cmd(&["XADD", "k", "1", "f", "v"]);
    b.send_raw(&encode_request(&[
        "XREAD", "BLOCK", "0", "STREAMS", "k", "$",
    ]));
    wait_running(&mut sc, "xread");
    sc.cmd(&["DEL", "k"]);
    sc.cmd(&["XADD", "k", "2", "f", "v"]);
    assert_eq!(
        b.read_frame(),
        Some(Frame::Array(vec![Frame::Array(vec![
            Frame::bulk("k"),
            Frame::Array(vec![Frame::Array(vec![
                Frame::bulk("2-0"),
                Frame::Array(vec![Frame::bulk("f"), Frame::bulk("v")])
            ])])
        ])]))
    );
}

// ---------------------------------------------------------------------------
// 7.0 / 7.2 differences, checked on redsim.

#[test]
fn seven_two_differences() {
    let mut p = Streams::start(&[]);
    // The unbalanced-STREAMS error names the command and its symbol.
    let (r, s) = p.both("XREAD STREAMS a b c");
    assert_eq!(
        r,
        Frame::Error(
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."
                .into()
        )
    );
    assert_eq!(
        s,
        Frame::Error(
            "ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified."
                .into()
        )
    );
    let s = p.sim_only("XREADGROUP GROUP g c STREAMS a b c");
    assert_eq!(
        s,
        Frame::Error(
            "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified."
                .into()
        )
    );
    // HELP's footer.
    for cmd in ["XGROUP HELP", "XINFO HELP"] {
        p.check_help(cmd);
    }
    // `ms-*` after the last sequence of that millisecond: 7.0 reported a
    // stale errno ("Elements are too large to be stored").
    p.check("XADD y 11-18446744073709551615 f v");
    assert_eq!(
        p.sim_only("XADD y 11-* f v"),
        Frame::Error(
            "ERR The ID specified in XADD is equal or smaller than the target stream top item"
                .into()
        )
    );
    assert_eq!(
        p.redis_only("XADD y 11-* f v"),
        Frame::Error("ERR Elements are too large to be stored".into())
    );
    // A BLOCK timeout that overflows once added to the clock (7.0 did
    // not check, and here serves the data before looking at it anyway).
    assert_eq!(
        p.sim_only("XREAD BLOCK 9223372036854775807 STREAMS y 0"),
        Frame::Error("ERR timeout is out of range".into())
    );
    // XSETID below the maximal deleted ID.
    p.corpus("XADD x 1 f v\nXADD x 2 f v\nXADD x 3 f v\nXDEL x 3");
    assert_eq!(
        p.sim_only("XSETID x 2"),
        Frame::Error(
            "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id".into()
        )
    );
    assert_eq!(
        p.redis_only("XSETID x 2"),
        Frame::ok(),
        "7.0 has no such check"
    );
    // Consumers created by commands that serve or claim nothing.
    p.corpus("XGROUP CREATE x g $");
    for cmd in [
        "XREADGROUP GROUP g reader STREAMS x >",
        "XCLAIM x g claimer 0 1",
        "XAUTOCLAIM x g autoclaimer 0 0",
    ] {
        p.check(cmd);
    }
    let names = |f: Frame| format_reply(&f);
    let sim = names(p.sim_only("XINFO CONSUMERS x g"));
    for c in ["reader", "claimer", "autoclaimer"] {
        assert!(sim.contains(c), "7.2 creates {c}: {sim}");
    }
    let redis = names(p.redis_only("XINFO CONSUMERS x g"));
    assert!(!redis.contains("claimer"), "7.0 does not: {redis}");
}

// ---------------------------------------------------------------------------
// WATCH, stats, command table.

/// Only XADD, XDEL, XTRIM and XGROUP CREATE MKSTREAM signal the key:
/// consumer-group changes leave a WATCH intact.
#[test]
fn watch_sees_only_what_redis_signals() {
    let mut p = Streams::start(&[]);
    p.corpus(
        "XADD w 1 f v
         XADD w 2 f v
         XGROUP CREATE w g 0",
    );
    let writes = [
        ("XREADGROUP GROUP g c COUNT 1 STREAMS w >", false),
        ("XACK w g 1", false),
        ("XGROUP CREATECONSUMER w g d", false),
        ("XCLAIM w g d 0 2", false),
        ("XGROUP SETID w g 0", false),
        ("XSETID w 5", false),
        ("XGROUP DESTROY w g", false),
        ("XGROUP CREATE w g 0", false),
        ("XDEL w 99", false),
        ("XTRIM w MAXLEN 100", false),
        ("XADD w 6 f v", true),
        ("XDEL w 6", true),
        ("XTRIM w MAXLEN 1", true),
        ("XGROUP CREATE w2 g $ MKSTREAM", true),
    ];
    for (cmd, dooms) in writes {
        let key = if cmd.contains("w2") { "w2" } else { "w" };
        p.check(&format!("WATCH {key}"));
        p.check("MULTI");
        p.check("PING");
        // The write comes from the other connection.
        let args = parse(cmd);
        let r2 = p.redis2.cmd_args(&args);
        let s2 = p.sim2.cmd_args(&args);
        assert_eq!(r2, s2, "{cmd}");
        let exec = p.check("EXEC");
        assert_eq!(exec == Frame::NullArray, dooms, "{cmd}: EXEC {exec:?}");
    }
}

#[test]
fn keyspace_stats_follow_redis() {
    let mut p = Streams::start(&[]);
    p.corpus(
        "XADD k 1 f v
         XADD k 2 f v
         XGROUP CREATE k g 0
         SET str x
         XLEN k
         XLEN nokey
         XRANGE k - +
         XRANGE nokey - +
         XRANGE k - + COUNT x
         XREVRANGE k + -
         XREAD STREAMS k nokey 0 0
         XREAD STREAMS k k 0 0
         XREAD STREAMS k x 0 0
         XREADGROUP GROUP g c STREAMS k >
         XREADGROUP GROUP g c STREAMS k 0
         XREADGROUP GROUP g c STREAMS nokey >
         XACK k g 1
         XACK nokey g 1
         XACK k g x
         XPENDING k g
         XPENDING nokey g
         XPENDING k g - + x
         XCLAIM k g c 0 1
         XCLAIM nokey g c 0 1
         XAUTOCLAIM k g c 0 0
         XAUTOCLAIM nokey g c x 0
         XINFO STREAM k
         XINFO STREAM nokey
         XINFO GROUPS k
         ~XINFO CONSUMERS k g
         XDEL k 1
         XDEL nokey 1
         XTRIM k MAXLEN 5
         XTRIM nokey MAXLEN 5
         XSETID k 10
         XSETID nokey 10
         XGROUP SETID k g 0
         XGROUP CREATE nokey g 0
         XADD k 20 f v",
    );
    let r = p.assert_same_stats();
    assert!(r.0 > 10 && r.1 > 10, "{r:?}");
}

/// Every stream command and subcommand agrees with `COMMAND INFO` (7.0
/// and 7.2 have the same table for streams).
#[test]
fn command_table_matches_command_info() {
    let redis = RedisServer::start(&[]);
    // Every stream command of Redis is here (XGROUP and XINFO with their
    // subcommands).
    assert_command_group(&mut redis.conn(), "stream", 15, &[]);
}

// ---------------------------------------------------------------------------
// Random streams.
