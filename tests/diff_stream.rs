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
    assert_command_info, command_info, commands_in_group, encode_request, group_commands, parse,
    show, Conn, Frame, Pair, RedisServer, RedsimServer, Rng,
};

/// How far two servers' clocks may be apart in a compared reply.
const TOL_MS: i64 = 1500;

/// Fields whose values are times or durations.
const TIME_KEYS: &[&str] = &["idle", "inactive", "seen-time", "active-time"];

/// Fields that exist only in 7.2.
const FIELDS_72: &[&str] = &["active-time", "inactive"];

/// The shared [`Pair`] with this file's comparison (times within a
/// tolerance, 7.2-only fields removed) and a second connection to each
/// server for blocking commands.
struct Streams {
    p: Pair,
    redis2: Conn,
    sim2: Conn,
}

impl Deref for Streams {
    type Target = Pair;
    fn deref(&self) -> &Pair {
        &self.p
    }
}

impl DerefMut for Streams {
    fn deref_mut(&mut self) -> &mut Pair {
        &mut self.p
    }
}

impl Streams {
    fn start(extra: &[&str]) -> Streams {
        let p = Pair::start(extra);
        let (redis2, sim2) = p.new_conns();
        Streams { p, redis2, sim2 }
    }

    /// Sends `args` to both and asserts they are [`similar`] (with `tol`)
    /// after removing 7.2-only fields from redsim's reply; returns Redis'.
    fn check_with(&mut self, args: &[Vec<u8>], tol: Option<i64>) -> Frame {
        let (want, got) = self.p.both_args(args);
        let got72 = strip_72(&got);
        assert!(
            similar(&want, &got72, tol, false),
            "replies differ after {} commands for {}\n  redis:  {}\n  redsim: {}",
            self.p.compared,
            show(args),
            format_reply(&want),
            format_reply(&got)
        );
        self.p.compared += 1;
        want
    }

    /// Exact comparison (7.2-only fields aside).
    fn check(&mut self, line: &str) -> Frame {
        self.check_with(&parse(line), Some(0))
    }

    /// Comparison with times allowed to differ by [`TOL_MS`].
    fn check_timed(&mut self, line: &str) -> Frame {
        self.check_with(&parse(line), Some(TOL_MS))
    }

    /// One command per line, `#` comments and blank lines skipped; a line
    /// starting with `~` is compared with the time tolerance.
    fn corpus(&mut self, text: &str) {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.strip_prefix('~') {
                Some(rest) => self.check_timed(rest.trim()),
                None => self.check(line),
            };
        }
    }

    /// RESP3 on all four connections.
    fn hello3(&mut self) {
        self.p.hello3();
        let r2 = self.redis2.cmd(&["HELLO", "3"]);
        let s2 = self.sim2.cmd(&["HELLO", "3"]);
        assert!(matches!(r2, Frame::Map(_)) && matches!(s2, Frame::Map(_)));
    }

    /// Starts `line` on the second connection of both servers without
    /// waiting for the reply, and waits until both are running it.
    fn start_blocking(&mut self, line: &str) {
        let args = parse(line);
        self.redis2.send_raw(&encode_request(&args));
        self.sim2.send_raw(&encode_request(&args));
        let name = String::from_utf8_lossy(&args[0]).to_ascii_lowercase();
        wait_running(&mut self.p.redis, &name);
        wait_running(&mut self.p.sim, &name);
    }

    /// The replies the second connections got, which must be equal.
    fn finish_blocking(&mut self, what: &str) -> Frame {
        let want = self.redis2.read_frame().expect("redis reply");
        let got = self.sim2.read_frame().expect("redsim reply");
        assert_eq!(
            got,
            want,
            "{what}: blocked replies differ\n  redis:  {}\n  redsim: {}",
            format_reply(&want),
            format_reply(&got)
        );
        self.p.compared += 1;
        // A different last command, so the next wait sees the next one.
        assert_eq!(self.redis2.cmd(&["PING"]), self.sim2.cmd(&["PING"]));
        want
    }
}

/// A numeric field of an INFO section.
fn info_field(c: &mut Conn, section: &str, name: &str) -> Option<i64> {
    let text = bulk_text(&c.cmd(&["INFO", section]));
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .and_then(|v| v.trim().parse().ok())
}

/// Waits until another client of the server runs (or is blocked in) `cmd`,
/// as CLIENT LIST's `cmd=` shows it.
fn wait_running(c: &mut Conn, cmd: &str) {
    for _ in 0..500 {
        let list = bulk_text(&c.cmd(&["CLIENT", "LIST"]));
        if list
            .lines()
            .any(|l| l.contains(&format!(" cmd={cmd} ")) && !l.contains("cmd=client|list"))
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("no client is running {cmd}");
}

fn bulk_text(f: &Frame) -> String {
    match f {
        Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Frame::Simple(s) => s.to_string(),
        Frame::Verbatim(_, b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("expected a string, got {other:?}"),
    }
}

fn is_key(f: &Frame, keys: &[&str]) -> bool {
    matches!(f, Frame::Bulk(b) if keys.iter().any(|k| k.as_bytes() == b.as_slice()))
}

/// redsim's reply without 7.2's `active-time` and `inactive` fields, in
/// maps (RESP3) and in the flat arrays RESP2 makes of them.
fn strip_72(f: &Frame) -> Frame {
    match f {
        Frame::Map(pairs) => Frame::Map(
            pairs
                .iter()
                .filter(|(k, _)| !is_key(k, FIELDS_72))
                .map(|(k, v)| (strip_72(k), strip_72(v)))
                .collect(),
        ),
        Frame::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            let mut i = 0;
            while i < items.len() {
                let flat_map = items.len() % 2 == 0
                    && i % 2 == 0
                    && items.iter().step_by(2).all(|k| matches!(k, Frame::Bulk(_)));
                if flat_map && is_key(&items[i], FIELDS_72) {
                    i += 2;
                    continue;
                }
                out.push(strip_72(&items[i]));
                i += 1;
            }
            Frame::Array(out)
        }
        other => other.clone(),
    }
}

/// `ms-seq` with a timestamp-sized `ms`: an ID made by `*`.
fn auto_id(b: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(b).ok()?;
    let (ms, seq) = s.split_once('-')?;
    let ms: i64 = ms.parse().ok()?;
    seq.parse::<u64>().ok()?;
    (ms >= 1_000_000_000_000).then_some(ms)
}

/// Equal replies, except that with a tolerance, timestamps, `*` IDs and
/// values of time fields (`time` set by the caller) may differ by up to
/// it (`None`: any value of the right type).
fn similar(want: &Frame, got: &Frame, tol: Option<i64>, time: bool) -> bool {
    let close = |a: i64, b: i64| match tol {
        None => true,
        Some(t) => (a - b).abs() <= t,
    };
    match (want, got) {
        (Frame::Integer(a), Frame::Integer(b)) if a != b => {
            tol != Some(0)
                && (time || (*a >= 1_000_000_000_000 && *b >= 1_000_000_000_000))
                && close(*a, *b)
        }
        (Frame::Bulk(a), Frame::Bulk(b)) if a != b => {
            tol != Some(0)
                && match (auto_id(a), auto_id(b)) {
                    (Some(x), Some(y)) => close(x, y),
                    _ => false,
                }
        }
        (Frame::Array(a), Frame::Array(b))
        | (Frame::Set(a), Frame::Set(b))
        | (Frame::Push(a), Frame::Push(b)) => {
            if a.len() != b.len() {
                return false;
            }
            // XPENDING's extended rows: [id, consumer, idle, deliveries].
            let pending_row = a.len() == 4
                && matches!(
                    (&a[0], &a[1], &a[2], &a[3]),
                    (
                        Frame::Bulk(_),
                        Frame::Bulk(_),
                        Frame::Integer(_),
                        Frame::Integer(_)
                    )
                );
            a.iter().zip(b).enumerate().all(|(i, (x, y))| {
                let t = (i > 0 && is_key(&a[i - 1], TIME_KEYS) && i % 2 == 1)
                    || (pending_row && i == 2);
                similar(x, y, tol, t)
            })
        }
        (Frame::Map(a), Frame::Map(b)) => {
            a.len() == b.len()
                && a.iter().zip(b).all(|((k1, v1), (k2, v2))| {
                    similar(k1, k2, tol, false) && similar(v1, v2, tol, is_key(k1, TIME_KEYS))
                })
        }
        _ => want == got,
    }
}

// ---------------------------------------------------------------------------
// Hand corpora.

const XADD_XRANGE: &str = r#"
XADD s 1-1 a 1
XADD s 1-1 a 1
XADD s 1-2 a 2 b 3
XADD s 0-0 a 1
XADD s2 0 a 1
XADD s2 0-0 a 1
EXISTS s2
XADD s2 0-* a 1
XADD s2 0-* a 1
XADD s 5-* a 1
XADD s 5-* a 1
XADD s 3 f v
XADD s 10 f v
XADD s x f v
XADD s 11 f
XADD s 11
XADD s MAXLEN
XADD s MAXLEN 2
XADD s MAXLEN 2 12 f v
XLEN s
XRANGE s - +
XREVRANGE s + -
XRANGE s - + COUNT 1
XRANGE s - + count 2
XRANGE s (1-1 + COUNT 2
XRANGE s - (10
XRANGE s (5-0 (10-0
XRANGE s 1 1
XRANGE s 5 5
XRANGE s 10 5
XREVRANGE s 5 10
XREVRANGE s (12 (5
XRANGE s - + COUNT 0
XRANGE s - + COUNT -1
XRANGE s - + COUNT x
XRANGE s - + COUNT
XRANGE s - + COUNT 1 COUNT 2
XRANGE s - + foo
XRANGE s ( +
XRANGE s (- +
XRANGE s - (+
XRANGE s (0 +
XRANGE s - (0-0
XRANGE s (18446744073709551615-18446744073709551615 +
XRANGE s x +
XRANGE s - x
XRANGE nokey - +
XREVRANGE nokey + -
XLEN nokey
XADD s MAXLEN ~ 1 13 f v
XADD s MINID 5 MAXLEN 3 14 f v
XADD s MAXLEN 3 MINID 5 14 f v
XADD s LIMIT 5 15 f v
XADD s MAXLEN 5 LIMIT 5 16 f v
XADD s MAXLEN ~ 5 LIMIT 5 16 f v
XADD s MAXLEN = 5 17 f v
XADD s MAXLEN -1 18 f v
XADD s MAXLEN x 18 f v
XADD s MAXLEN ~ 5 LIMIT -1 18 f v
XADD s MAXLEN ~ 5 LIMIT x 18 f v
XADD s MINID x 18 f v
XADD s MINID - 18 f v
XADD s MINID + 18 f v
XADD s MINID 5-* 18 f v
XADD s MINID = 17 18 f v
XADD s MINID ~ 17 19 f v
XADD s NOMKSTREAM 20 f v
XADD s nomkstream maxlen 100 21 f v
XADD nos NOMKSTREAM 20 f v
XADD nos NOMKSTREAM MAXLEN 1 20 f v
EXISTS nos
XADD s FOO 22 f v
XADD s 22 f v g
XADD s 18446744073709551615-18446744073709551614 f v
XADD s 18446744073709551615-* f v
XADD s 18446744073709551615-* f v
XADD s 1 f v
XDEL s 18446744073709551615-18446744073709551615
XADD s 18446744073709551615-* f v
XLEN s
XINFO STREAM s
XDEL s 1-1 1-2 1-2 x
XDEL s 1-1 1-2 1-2
XDEL s 1-1
XDEL s -
XDEL nokey 1-1
XTRIM s
XTRIM s MAXLEN
XTRIM s MAXLEN 1 MINID 1
XTRIM s FOO 1
XTRIM s NOMKSTREAM MAXLEN 1
XTRIM s MAXLEN ~ 1 LIMIT
XTRIM s MAXLEN 1 LIMIT 10
XTRIM s LIMIT 10
XTRIM nokey MAXLEN 1
XTRIM s MINID 12
XTRIM s MAXLEN = 2
XRANGE s - +
XTRIM s MAXLEN 0
XLEN s
EXISTS s
XINFO STREAM s
SET str x
XADD str 1 f v
XADD str NOMKSTREAM 1 f v
XLEN str
XRANGE str - +
XREVRANGE str + -
XDEL str 1
XDEL str x
XTRIM str MAXLEN 1
XTRIM str FOO 1
TYPE s
OBJECT ENCODING s
"#;

/// Odd IDs: C's `strtoull` accepts spaces, signs and leading zeros where
/// `string2ll` does not; an argument longer than 127 bytes is never an ID.
const ID_SYNTAX: &str = r#"
XADD i " 5" f v
XADD i "+6-+1" f v
XADD i 007-0 f v
XADD i "8--0" f v
XADD i 9-01 f v
XADD i 10--5 f v
XADD i 10-5-5 f v
XADD i 18446744073709551616-0 f v
XADD i "10-" f v
XADD i "-10" f v
XADD i "10 " f v
XADD i 0x10 f v
XADD i 10.5 f v
XADD i "" f v
XADD i 11-18446744073709551615 f v
XADD i 12-* f v
XADD i "12-*x" f v
XRANGE i "+5" "  9"
XRANGE i "(007" "(11-18446744073709551615"
XRANGE i "(8--0" +
XRANGE i "(  10" +
XRANGE i 1-* +
XRANGE i - 12-*
XLEN i
XRANGE i - +
"#;

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

const GROUPS: &str = r#"
XGROUP CREATE s g $
XGROUP CREATE s g $ MKSTREAM
XGROUP CREATE s g $ MKSTREAM
XGROUP CREATE s g2 0 ENTRIESREAD 5
XGROUP CREATE s g3 0 ENTRIESREAD -2
XGROUP CREATE s g3 0 ENTRIESREAD -1
XGROUP CREATE s g4 0 ENTRIESREAD x
XGROUP CREATE s g4 0 ENTRIESREAD
XGROUP CREATE s g4 0 FOO
XGROUP CREATE s g4 0 MKSTREAM MKSTREAM MKSTREAM MKSTREAM
XGROUP CREATE s g4 +
XGROUP CREATE s g4 -
XGROUP CREATE s g4 5-*
XGROUP CREATE s g4 x
XGROUP CREATE str g 0
XGROUP CREATE nokey g 0
XGROUP CREATE s
XGROUP SETID s nog 0
XGROUP SETID s g 0 MKSTREAM
XGROUP SETID s g 0 ENTRIESREAD
XGROUP SETID s g 0 ENTRIESREAD 3
XGROUP SETID s g 0 ENTRIESREAD 3 FOO
XGROUP SETID s g +
XGROUP SETID s g -
XGROUP SETID s g x
XGROUP SETID s g $
XGROUP SETID nokey g $
XGROUP CREATECONSUMER s g alice
XGROUP CREATECONSUMER s g alice
XGROUP CREATECONSUMER s nog alice
XGROUP CREATECONSUMER nokey g alice
XGROUP DELCONSUMER s g bob
XGROUP DELCONSUMER s nog bob
XGROUP DESTROY s g2
XGROUP DESTROY s g2
XGROUP DESTROY nokey g2
XGROUP DESTROY str g2
XGROUP FOO
XGROUP FOO a b c
XGROUP help x
XGROUP CREATE s g5 0 extra
XINFO FOO
XINFO STREAM nokey
XINFO GROUPS nokey
XINFO CONSUMERS nokey g
XINFO GROUPS str
XINFO GROUPS s
XINFO CONSUMERS s nog
XADD s 1 a 1
XADD s 2 b 2
XADD s 3 c 3
XADD s 4 d 4
XGROUP SETID s g 0
XREADGROUP GROUP g alice COUNT 2 STREAMS s >
XREADGROUP GROUP g bob STREAMS s >
XREADGROUP GROUP g bob STREAMS s >
XREADGROUP GROUP g alice STREAMS s 0
XREADGROUP GROUP g alice COUNT 1 STREAMS s 0
XREADGROUP GROUP g alice STREAMS s 1
XREADGROUP GROUP g alice STREAMS s 18446744073709551615-18446744073709551615
XPENDING s g
~XPENDING s g - + 10
~XPENDING s g - + 10 alice
XPENDING s g - + 10 nobody
XPENDING s g IDLE 100000 - + 10
XPENDING s g IDLE 100000 - + 10 alice
~XPENDING s g (1 (4 1
~XPENDING s g - + 0
~XPENDING s g - + -3
XPENDING s nog
XPENDING nokey g
XPENDING str g
XPENDING s g - + x
XPENDING s g x + 1
XPENDING s g - x 1
XPENDING s g ( + 1
XPENDING s g - (0-0 1
XPENDING s g IDLE x - + 1
XPENDING s g IDLE 1 - +
XPENDING s g IDLE 1 - + 1 alice extra
XPENDING s g - +
XPENDING s g -
~XPENDING s g - + 1 alice extra
XACK s g 1 2 9
XACK s g 1
XACK s g x
XACK s g 1 x
XACK nokey g x
XACK s nog x
XACK str g 1
XPENDING s g
XINFO GROUPS s
XDEL s 3
XINFO GROUPS s
XREADGROUP GROUP g alice STREAMS s 0
XREADGROUP GROUP g bob STREAMS s 0
XCLAIM s g carol 0 3 4
XCLAIM s g carol 0 3 4 JUSTID
~XPENDING s g - + 10
XCLAIM s g carol 0 4 RETRYCOUNT 7 JUSTID
~XPENDING s g - + 10
XCLAIM s g carol 0 1 FORCE JUSTID
XCLAIM s g carol 0 2 FORCE
XCLAIM s g carol 0 3 FORCE
XCLAIM s g carol 0 9 FORCE
~XPENDING s g - + 10
XCLAIM s g carol 0 2 FOO
XCLAIM s g carol x 2
XCLAIM s g carol 0 2 IDLE x
XCLAIM s g carol 0 2 TIME x
XCLAIM s g carol 0 2 RETRYCOUNT x
XCLAIM s g carol 0 2 LASTID x
XCLAIM s g carol 0 2 LASTID
XCLAIM s g carol 0 2 LASTID 100 JUSTID
XINFO GROUPS s
XCLAIM s g carol 0 2 LASTID 50 JUSTID
XINFO GROUPS s
XCLAIM s g carol 0 2 RETRYCOUNT -5 JUSTID
~XPENDING s g - + 10
XCLAIM nokey g carol 0 2
XCLAIM s nog carol 0 2
XCLAIM str g carol 0 2
XAUTOCLAIM s g dave 0 0
XAUTOCLAIM s g dave 0 0 COUNT 1
XAUTOCLAIM s g dave 0 (1 COUNT 1
XAUTOCLAIM s g dave 0 0 COUNT 0
XAUTOCLAIM s g dave 0 0 COUNT -1
XAUTOCLAIM s g dave 0 0 COUNT x
XAUTOCLAIM s g dave 0 0 COUNT 576460752303423488
XAUTOCLAIM s g dave 0 0 COUNT
XAUTOCLAIM s g dave 0 0 JUSTID
XAUTOCLAIM s g dave 0 (0 FOO
XAUTOCLAIM s g dave 0 (18446744073709551615-18446744073709551615
XAUTOCLAIM s g dave 0 x
XAUTOCLAIM s g dave x 0
XAUTOCLAIM nokey g dave 0 0
XAUTOCLAIM nokey g dave x 0
XAUTOCLAIM s nog dave 0 0
XAUTOCLAIM str g dave 0 0
XAUTOCLAIM str g dave 0 x
XPENDING s g
XGROUP DELCONSUMER s g dave
XPENDING s g
XGROUP DELCONSUMER s g dave
XSETID s 100
XSETID s 200 ENTRIESADDED 1
XSETID s 200 ENTRIESADDED 10 MAXDELETEDID 300
XSETID s 200 ENTRIESADDED 10 MAXDELETEDID 150
XSETID s 200 ENTRIESADDED -1
XSETID s 200 ENTRIESADDED x
XSETID s 200 MAXDELETEDID x
XSETID s 200 FOO
XSETID s 200 ENTRIESADDED
XSETID nokey 200
XSETID str 200
XSETID s +
XSETID s -
XSETID s x
XINFO STREAM s
XINFO GROUPS s
XREAD STREAMS s 0
XREAD COUNT 1 STREAMS s 0
XREAD COUNT 0 STREAMS s 0
XREAD COUNT -1 STREAMS s 0
XREAD STREAMS s $
XREAD STREAMS s nokey 0 0
XREAD STREAMS s s 0 1
XREAD STREAMS s
XREAD STREAMS s 200
XREAD STREAMS s +
XREAD STREAMS s -
XREAD STREAMS s x
XREAD STREAMS str 0
XREAD STREAMS s str 0 0
XREAD STREAMS s str x 0
XREAD GROUP g a STREAMS s 0
XREAD GROUP g STREAMS s 0
XREAD NOACK STREAMS s 0
XREAD STREAMS s >
XREAD COUNT STREAMS s 0
XREAD BLOCK STREAMS s 0
XREAD FOO STREAMS s 0
XREAD COUNT 1 s 0
XREADGROUP GROUP g a STREAMS s $
XREADGROUP STREAMS s 0 x 1
XREADGROUP GROUP nog a STREAMS s >
XREADGROUP GROUP g a STREAMS nokey >
XREADGROUP GROUP g a STREAMS str >
XREADGROUP GROUP g a STREAMS s x
XREADGROUP GROUP g a STREAMS s -
XREAD BLOCK x STREAMS s 0
XREAD BLOCK -1 STREAMS s 0
XREAD COUNT x STREAMS s 0
XGROUP CREATECONSUMER s g a
XREADGROUP GROUP g a NOACK STREAMS s >
~XINFO CONSUMERS s g
"#;

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
            info_field(&mut p.redis, "clients", name),
            Some(2),
            "redis {name}"
        );
        assert_eq!(info_field(&mut p.sim, "clients", name), Some(2), "{name}");
    }
    assert_eq!(
        info_field(&mut p.sim, "clients", "total_blocking_keys"),
        Some(1)
    );
    assert_eq!(
        info_field(&mut p.sim, "clients", "total_blocking_keys_on_nokey"),
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
    let setup = |c: &mut Conn| {
        c.cmd(&["DEL", "k"]);
        c.cmd(&["XGROUP", "CREATE", "k", "g", "$", "MKSTREAM"]);
    };
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
    // DEL.
    for (c, server) in [(&mut rc, "redis"), (&mut sc, "sim")] {
        setup(c);
        let mut b = if server == "redis" {
            r.conn()
        } else {
            s.conn()
        };
        b.send_raw(&encode_request(&read));
        wait_running(c, "xreadgroup");
        c.cmd(&["DEL", "k"]);
        let reply = b.read_frame().expect("reply");
        let want = if server == "redis" {
            Frame::Error("UNBLOCKED the stream key no longer exists".into())
        } else {
            Frame::Error(
                "NOGROUP No such key 'k' or consumer group 'g' in XREADGROUP with GROUP option"
                    .into(),
            )
        };
        assert_eq!(reply, want, "{server}: XREADGROUP woken by DEL");
    }
    // Overwritten with a string (7.2 only: 7.0 keeps waiting).
    setup(&mut sc);
    let mut b = s.conn();
    b.send_raw(&encode_request(&read));
    wait_running(&mut sc, "xreadgroup");
    sc.cmd(&["SET", "k", "v"]);
    assert_eq!(
        b.read_frame(),
        Some(Frame::Error(
            "WRONGTYPE Operation against a key holding the wrong kind of value".into()
        ))
    );
    // XGROUP DESTROY: both versions answer NOGROUP; 7.2's is the error
    // of the command run again.
    for (c, server) in [(&mut rc, "redis"), (&mut sc, "sim")] {
        setup(c);
        let mut b = if server == "redis" {
            r.conn()
        } else {
            s.conn()
        };
        b.send_raw(&encode_request(&read));
        wait_running(c, "xreadgroup");
        c.cmd(&["XGROUP", "DESTROY", "k", "g"]);
        let want = if server == "redis" {
            "NOGROUP the consumer group this client was blocked on no longer exists"
        } else {
            "NOGROUP No such key 'k' or consumer group 'g' in XREADGROUP with GROUP option"
        };
        assert_eq!(
            b.read_frame(),
            Some(Frame::Error(want.into())),
            "{server}: XGROUP DESTROY"
        );
    }
    // FLUSHALL and a MULTI that deletes and re-creates the key as a set.
    setup(&mut sc);
    let mut b = s.conn();
    b.send_raw(&encode_request(&read));
    wait_running(&mut sc, "xreadgroup");
    sc.cmd(&["FLUSHALL"]);
    assert!(matches!(b.read_frame(), Some(Frame::Error(e)) if e.starts_with("NOGROUP")));
    b.cmd(&["PING"]);
    setup(&mut sc);
    b.send_raw(&encode_request(&read));
    wait_running(&mut sc, "xreadgroup");
    sc.cmd(&["MULTI"]);
    sc.cmd(&["DEL", "k"]);
    sc.cmd(&["SADD", "k", "e1"]);
    sc.cmd(&["EXEC"]);
    assert!(matches!(b.read_frame(), Some(Frame::Error(e)) if e.starts_with("WRONGTYPE")));
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
        let (r, s) = p.both(cmd);
        let (Frame::Array(r), Frame::Array(s)) = (r, s) else {
            panic!("HELP replies are arrays");
        };
        assert_eq!(r.len(), s.len());
        assert_eq!(r[..r.len() - 1], s[..s.len() - 1], "{cmd}");
        assert_eq!(
            r.last(),
            Some(&Frame::Simple("    Prints this help.".into()))
        );
        assert_eq!(
            s.last(),
            Some(&Frame::Simple("    Print this help.".into()))
        );
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
    let (r, s) = p.stats();
    assert_eq!(r, s, "(keyspace_hits, keyspace_misses)");
    assert!(r.0 > 10 && r.1 > 10, "{r:?}");
}

/// Every stream command and subcommand agrees with `COMMAND INFO` (7.0
/// and 7.2 have the same table for streams).
#[test]
fn command_table_matches_command_info() {
    let redis = RedisServer::start(&[]);
    let mut c = redis.conn();
    let stream = group_commands("stream");
    for &cmd in &stream {
        let info = command_info(&mut c, cmd.name);
        assert_command_info(&info, cmd, cmd.name);
        assert_eq!(cmd.group, "stream", "{} group", cmd.name);
        if cmd.subcommands.is_empty() {
            continue;
        }
        let Some(Frame::Array(subs)) = info.get(9) else {
            panic!("{} has no subcommands in COMMAND INFO", cmd.name);
        };
        assert_eq!(
            subs.len(),
            cmd.subcommands.len(),
            "{} subcommands",
            cmd.name
        );
        for sub in cmd.subcommands {
            let full = format!("{}|{}", cmd.name, sub.name);
            assert_command_info(&command_info(&mut c, &full), sub, &full);
        }
    }
    // Every stream command of Redis is here (15, XGROUP and XINFO with
    // their subcommands).
    assert_eq!(stream.len(), commands_in_group(&mut c, "stream"));
}

// ---------------------------------------------------------------------------
// Random streams.

const KEYS: &[&str] = &["s1", "s2", "s3", "str"];
const GROUPS_R: &[&str] = &["g1", "g2"];
const CONSUMERS: &[&str] = &["c1", "c2", "c3"];

/// The random generator and a clock for IDs: `t` only grows, so most
/// XADDs succeed on every key, while IDs referred to by other commands
/// fall around recent ones.
struct Gen {
    rng: Rng,
    t: u64,
}

impl Gen {
    /// A key: mostly the first two streams, sometimes a string.
    fn key(&mut self) -> String {
        match self.rng.below(100) {
            0..=44 => "s1",
            45..=79 => "s2",
            80..=91 => "s3",
            _ => "str",
        }
        .to_string()
    }

    /// A recent ID (or just after the last one).
    fn recent(&mut self) -> String {
        let back = self.rng.below(25) as u64;
        let ms = (self.t + 2).saturating_sub(back);
        if self.rng.one_in(4) {
            format!("{ms}")
        } else {
            format!("{ms}-{}", self.rng.below(3))
        }
    }

    /// A range end: `-`, `+`, recent IDs, exclusive ones, garbage.
    fn range_end(&mut self) -> String {
        match self.rng.below(10) {
            0 => "-".into(),
            1 => "+".into(),
            2 => "x".into(),
            3 => format!("({}", self.recent()),
            _ => self.recent(),
        }
    }
}

/// One random command. Consumers are created first where 7.0 and 7.2
/// differ in creating them (XREADGROUP, XCLAIM, XAUTOCLAIM).
fn random_command(gen: &mut Gen) -> Vec<Vec<String>> {
    let key = gen.key();
    let g = gen.rng.pick(GROUPS_R).to_string();
    let c = gen.rng.pick(CONSUMERS).to_string();
    let v = |items: &[&str]| -> Vec<String> { items.iter().map(|s| s.to_string()).collect() };
    let create = v(&["XGROUP", "CREATECONSUMER", &key, &g, &c]);
    match gen.rng.below(36) {
        0..=9 => {
            let mut cmd = v(&["XADD", &key]);
            if gen.rng.one_in(8) {
                cmd.push("NOMKSTREAM".into());
            }
            if gen.rng.one_in(6) {
                let minid = gen.rng.one_in(2);
                cmd.push(if minid { "MINID" } else { "MAXLEN" }.into());
                if gen.rng.one_in(2) {
                    cmd.push(gen.rng.pick(&["~", "="]).into());
                }
                cmd.push(if minid {
                    gen.recent()
                } else {
                    gen.rng.below(12).to_string()
                });
                if cmd.iter().any(|a| a == "~") && gen.rng.one_in(3) {
                    cmd.extend(["LIMIT".into(), gen.rng.below(5).to_string()]);
                }
            }
            gen.t += gen.rng.below(2) as u64;
            let t = gen.t;
            cmd.push(match gen.rng.below(10) {
                0 | 1 => format!("{t}-*"),
                2 => format!("{t}"),
                3 => gen.recent(),
                _ => format!("{t}-{}", gen.rng.below(3)),
            });
            for _ in 0..1 + gen.rng.below(2) {
                cmd.push(gen.rng.pick(&["f", "g", "h"]).into());
                cmd.push(
                    gen.rng
                        .pick(&["1", "v", "long-value-long-value", ""])
                        .into(),
                );
            }
            vec![cmd]
        }
        10 | 11 => {
            let mut cmd = v(&[gen.rng.pick(&["XRANGE", "XREVRANGE"]), &key]);
            let (a, b) = (gen.range_end(), gen.range_end());
            cmd.extend([a, b]);
            if gen.rng.one_in(2) {
                cmd.extend(["COUNT".into(), gen.rng.pick(&["0", "1", "2", "-1"]).into()]);
            }
            vec![cmd]
        }
        12 => vec![v(&["XLEN", &key])],
        13 => {
            let mut cmd = v(&["XDEL", &key]);
            for _ in 0..1 + gen.rng.below(3) {
                cmd.push(gen.recent());
            }
            vec![cmd]
        }
        14 => {
            let minid = gen.rng.one_in(2);
            let mut cmd = v(&["XTRIM", &key, if minid { "MINID" } else { "MAXLEN" }]);
            if gen.rng.one_in(2) {
                cmd.push(gen.rng.pick(&["~", "="]).into());
            }
            cmd.push(if minid {
                gen.recent()
            } else {
                gen.rng.below(10).to_string()
            });
            vec![cmd]
        }
        15 | 16 => {
            let mut cmd = v(&["XREAD"]);
            if gen.rng.one_in(2) {
                cmd.extend(["COUNT".into(), gen.rng.below(3).to_string()]);
            }
            cmd.push("STREAMS".into());
            let k2 = gen.key();
            cmd.extend([key, k2]);
            for _ in 0..2 {
                let id = match gen.rng.below(3) {
                    0 => "$".into(),
                    _ => gen.recent(),
                };
                cmd.push(id);
            }
            vec![cmd]
        }
        17..=21 => {
            let mut cmd = v(&["XREADGROUP", "GROUP", &g, &c]);
            if gen.rng.one_in(2) {
                cmd.extend(["COUNT".into(), gen.rng.below(4).to_string()]);
            }
            if gen.rng.one_in(5) {
                cmd.push("NOACK".into());
            }
            cmd.extend(["STREAMS".into(), key]);
            let id = match gen.rng.below(4) {
                0 => gen.recent(),
                1 => "0".into(),
                _ => ">".into(),
            };
            cmd.push(id);
            vec![create, cmd]
        }
        22 | 23 => {
            let mut cmd = v(&["XACK", &key, &g]);
            for _ in 0..1 + gen.rng.below(3) {
                cmd.push(gen.recent());
            }
            vec![cmd]
        }
        24 | 25 => {
            if gen.rng.one_in(2) {
                return vec![v(&["XPENDING", &key, &g])];
            }
            let mut cmd = v(&["XPENDING", &key, &g]);
            if gen.rng.one_in(4) {
                cmd.extend(["IDLE".into(), gen.rng.pick(&["0", "100000000"]).into()]);
            }
            let (a, b) = (gen.range_end(), gen.range_end());
            cmd.extend([a, b, gen.rng.below(5).to_string()]);
            if gen.rng.one_in(2) {
                cmd.push(c.clone());
            }
            vec![cmd]
        }
        26 => {
            let mut cmd = v(&["XCLAIM", &key, &g, &c, gen.rng.pick(&["0", "100000000"])]);
            for _ in 0..1 + gen.rng.below(3) {
                cmd.push(gen.recent());
            }
            for opt in ["FORCE", "JUSTID"] {
                if gen.rng.one_in(3) {
                    cmd.push(opt.into());
                }
            }
            if gen.rng.one_in(4) {
                cmd.extend(["RETRYCOUNT".into(), gen.rng.below(5).to_string()]);
            }
            if gen.rng.one_in(5) {
                let id = gen.recent();
                cmd.extend(["LASTID".into(), id]);
            }
            vec![create, cmd]
        }
        27 => {
            let start = gen.range_end();
            let mut cmd = v(&[
                "XAUTOCLAIM",
                &key,
                &g,
                &c,
                gen.rng.pick(&["0", "100000000"]),
                &start,
            ]);
            if gen.rng.one_in(2) {
                cmd.extend(["COUNT".into(), (1 + gen.rng.below(4)).to_string()]);
            }
            if gen.rng.one_in(3) {
                cmd.push("JUSTID".into());
            }
            vec![create, cmd]
        }
        28 | 29 => {
            let mut cmd = v(&["XGROUP", "CREATE", &key, &g]);
            let id = match gen.rng.below(3) {
                0 => "$".into(),
                1 => "0".into(),
                _ => gen.recent(),
            };
            cmd.push(id);
            if gen.rng.one_in(2) {
                cmd.push("MKSTREAM".into());
            }
            if gen.rng.one_in(4) {
                cmd.extend(["ENTRIESREAD".into(), gen.rng.below(10).to_string()]);
            }
            vec![cmd]
        }
        30 => {
            let mut cmd = v(&["XGROUP", "SETID", &key, &g]);
            let id = match gen.rng.below(3) {
                0 => "$".into(),
                1 => "0".into(),
                _ => gen.recent(),
            };
            cmd.push(id);
            if gen.rng.one_in(3) {
                cmd.extend(["ENTRIESREAD".into(), gen.rng.below(10).to_string()]);
            }
            vec![cmd]
        }
        31 => vec![match gen.rng.below(4) {
            0 => v(&["XGROUP", "DESTROY", &key, &g]),
            1 => v(&["XGROUP", "DELCONSUMER", &key, &g, &c]),
            _ => v(&["XGROUP", "CREATECONSUMER", &key, &g, &c]),
        }],
        32 => vec![match gen.rng.below(4) {
            0 => v(&["XINFO", "STREAM", &key, "FULL"]),
            1 => v(&["XINFO", "GROUPS", &key]),
            2 => v(&["XINFO", "CONSUMERS", &key, &g]),
            _ => v(&["XINFO", "STREAM", &key]),
        }],
        33 => {
            // Rare: moves the last ID ahead (and the generator's clock).
            if !gen.rng.one_in(4) {
                return vec![v(&["XINFO", "STREAM", &key])];
            }
            gen.t += 1 + gen.rng.below(3) as u64;
            let mut cmd = v(&["XSETID", &key, &gen.t.to_string()]);
            if gen.rng.one_in(3) {
                cmd.extend(["ENTRIESADDED".into(), gen.rng.below(60).to_string()]);
            }
            if gen.rng.one_in(3) {
                let id = gen.recent();
                cmd.extend(["MAXDELETEDID".into(), id]);
            }
            vec![cmd]
        }
        // String commands: a stream turned into a string stays one until
        // deleted, so deletions are the more frequent.
        34 => vec![match gen.rng.below(8) {
            0 if gen.rng.one_in(2) => v(&["SET", &key, "v"]),
            1 => v(&["SET", "str", "v"]),
            2..=4 => v(&["DEL", &key]),
            5 => v(&["TYPE", &key]),
            _ => v(&["GET", &key]),
        }],
        _ => vec![v(&["EXISTS", &key])],
    }
}

/// Thousands of random commands on both servers, replies compared with
/// times reduced to their shape. XSETID below the maximal deleted ID (a
/// 7.2-only error) is not sent.
fn random_stream(seed: u64, resp3: bool, steps: usize, extra: &[&str]) {
    eprintln!("random stream: seed {seed:#x}, resp3 {resp3}, {extra:?}");
    let mut p = Streams::start(extra);
    if resp3 {
        p.hello3();
    }
    let mut gen = Gen {
        rng: Rng(seed),
        t: 1,
    };
    let trace = std::env::var_os("REDSIM_STREAM_TRACE").is_some();
    let mut skipped = 0;
    let mut sent = 0;
    let mut outcomes = [0usize; 3];
    let mut errors: std::collections::BTreeMap<String, usize> = Default::default();
    let mut served = 0;
    while sent < steps {
        for cmd in random_command(&mut gen) {
            sent += 1;
            if trace {
                eprintln!("{}", cmd.join(" "));
            }
            if cmd[0] == "XSETID" && below_max_deleted(&mut p, &cmd) {
                skipped += 1;
                continue;
            }
            let args: Vec<Vec<u8>> = cmd.iter().map(|s| s.clone().into_bytes()).collect();
            let reply = p.check_with(&args, None);
            let kind = match &reply {
                Frame::Error(_) => 0,
                Frame::Null | Frame::NullArray => 1,
                Frame::Array(v) if v.is_empty() => 1,
                _ => 2,
            };
            outcomes[kind] += 1;
            if kind == 0 {
                let e = format!("{} {}", cmd[0], format_reply(&reply));
                *errors
                    .entry(e.chars().take(60).collect::<String>())
                    .or_insert(0) += 1;
            }
            if cmd[0] == "XREADGROUP" && kind == 2 {
                served += 1;
            }
        }
    }
    eprintln!("errors, empty, data: {outcomes:?}; XREADGROUP served {served}");
    if trace {
        eprintln!("{errors:#?}");
    }
    // The stream must mostly do real work, not bounce off errors.
    assert!(
        outcomes[2] > steps / 4 && served > steps / 50,
        "{outcomes:?} {served}"
    );
    assert!(
        p.compared > steps * 9 / 10,
        "{} of {steps} compared ({skipped} skipped)",
        p.compared
    );
    for key in KEYS {
        p.check(&format!("TYPE {key}"));
        p.check(&format!("XRANGE {key} - +"));
        p.check(&format!("XINFO GROUPS {key}"));
    }
}

/// True if XSETID `cmd` would set an ID below the stream's maximal deleted
/// ID, which 7.2 refuses and 7.0 accepts.
fn below_max_deleted(p: &mut Streams, cmd: &[String]) -> bool {
    let info = p.sim_only(&format!("XINFO STREAM {}", cmd[1]));
    let text = format_reply(&info);
    let Some(pos) = text.find("max-deleted-entry-id") else {
        return false;
    };
    let rest = &text[pos..];
    let Some(id) = rest.split('"').nth(2) else {
        return false;
    };
    let parse = |s: &str| -> (u64, u64) {
        let (a, b) = s.split_once('-').unwrap_or((s, "0"));
        (a.parse().unwrap_or(0), b.parse().unwrap_or(0))
    };
    parse(&cmd[2]) < parse(id)
}

fn seeds(base: u64) -> Vec<u64> {
    if let Some(only) = std::env::var("REDSIM_STREAM_SEED")
        .ok()
        .and_then(|v| u64::from_str_radix(v.trim_start_matches("0x"), 16).ok())
    {
        return vec![only];
    }
    let more: u64 = std::env::var("REDSIM_STREAM_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    (0..=more)
        .map(|i| base.wrapping_add(i.wrapping_mul(0x9e37_79b9)))
        .collect()
}

#[test]
fn random_commands_resp2() {
    for seed in seeds(0x57_0001) {
        random_stream(seed, false, 3000, &[]);
    }
}

#[test]
fn random_commands_resp3_small_nodes() {
    for seed in seeds(0x57_0002) {
        random_stream(seed, true, 2500, &["--stream-node-max-entries", "3"]);
    }
}
