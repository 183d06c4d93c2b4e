//! When two replies to the same command count as the same: by type and value, except where Redis itself promises no more. Replies Redis documents as unordered compare as sets, replies that are random or describe the server compare by type, and replies that read the clock compare within a second.
//!
//! The lists follow the `nondeterministic_output` and
//! `nondeterministic_output_order` tips of Redis 7.2's command table: a
//! difference there is not a difference in behaviour.

use redsim_engine::proto::resp::Frame;

/// How a command's replies are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Exact,
    /// Elements in any order (SMEMBERS, KEYS, HKEYS...).
    Unordered,
    /// Field-value pairs in any order (HGETALL, CONFIG GET).
    UnorderedPairs,
    /// Same reply type only: random picks, cursors, server descriptions.
    Shape,
    /// Integers within `tolerance`, stream IDs' milliseconds too.
    Clock {
        tolerance: i64,
    },
}

const UNORDERED: &[&str] = &[
    "KEYS",
    "SMEMBERS",
    "SINTER",
    "SUNION",
    "SDIFF",
    "HKEYS",
    "HVALS",
    "PUBSUB CHANNELS",
    "PUBSUB SHARDCHANNELS",
];

const PAIRS: &[&str] = &["HGETALL", "CONFIG GET"];

const SHAPE: &[&str] = &[
    "RANDOMKEY",
    "SPOP",
    "SRANDMEMBER",
    "HRANDFIELD",
    "ZRANDMEMBER",
    "SCAN",
    "SSCAN",
    "HSCAN",
    "ZSCAN",
    "TIME",
    "INFO",
    "CLIENT",
    "MEMORY",
    "LASTSAVE",
    "DEBUG",
    "OBJECT IDLETIME",
    "OBJECT FREQ",
    "LATENCY",
    "SLOWLOG",
    "ROLE",
    "LOLWUT",
    "HELLO",
    "CLUSTER INFO",
    "CLUSTER NODES",
    "CLUSTER SLOTS",
    "CLUSTER SHARDS",
    "CLUSTER MYID",
    "CLUSTER MYSHARDID",
    "XINFO",
    "XPENDING",
];

const CLOCK: &[(&str, i64)] = &[
    ("TTL", 1),
    ("EXPIRETIME", 1),
    ("PTTL", 1000),
    ("PEXPIRETIME", 1000),
    ("XADD", 1000),
];

/// The rule for a command, by its name and (for containers) subcommand.
pub fn rule(args: &[Vec<u8>]) -> Rule {
    let name = |i: usize| {
        args.get(i)
            .map(|a| String::from_utf8_lossy(a).to_ascii_uppercase())
            .unwrap_or_default()
    };
    let (cmd, full) = (name(0), format!("{} {}", name(0), name(1)));
    let listed = |list: &[&str]| list.iter().any(|&n| n == cmd || n == full);
    if listed(UNORDERED) {
        Rule::Unordered
    } else if listed(PAIRS) {
        Rule::UnorderedPairs
    } else if listed(SHAPE) {
        Rule::Shape
    } else if let Some(&(_, tolerance)) = CLOCK.iter().find(|(n, _)| *n == cmd) {
        Rule::Clock { tolerance }
    } else {
        Rule::Exact
    }
}

/// Whether `a` and `b` are the same reply under `rule`.
pub fn same(rule: Rule, a: &Frame, b: &Frame) -> bool {
    if a.is_error() || b.is_error() {
        return a == b;
    }
    match rule {
        Rule::Exact => a == b,
        Rule::Shape => std::mem::discriminant(a) == std::mem::discriminant(b),
        Rule::Unordered => match (a, b) {
            (Frame::Array(x), Frame::Array(y)) | (Frame::Set(x), Frame::Set(y)) => {
                sorted(x.iter().map(key)) == sorted(y.iter().map(key))
            }
            _ => a == b,
        },
        Rule::UnorderedPairs => match (a, b) {
            (Frame::Array(x), Frame::Array(y)) if x.len() % 2 == 0 && y.len() % 2 == 0 => {
                let pairs = |v: &[Frame]| sorted(v.chunks(2).map(|p| (key(&p[0]), key(&p[1]))));
                pairs(x) == pairs(y)
            }
            (Frame::Map(x), Frame::Map(y)) => {
                let pairs = |v: &[(Frame, Frame)]| sorted(v.iter().map(|(k, v)| (key(k), key(v))));
                pairs(x) == pairs(y)
            }
            _ => a == b,
        },
        Rule::Clock { tolerance } => near(a, b, tolerance),
    }
}

fn near(a: &Frame, b: &Frame, tolerance: i64) -> bool {
    match (a, b) {
        // TTL's -1 / -2 are answers, not times.
        (Frame::Integer(x), Frame::Integer(y)) if *x >= 0 && *y >= 0 => {
            x.abs_diff(*y) <= tolerance as u64
        }
        (Frame::Bulk(x), Frame::Bulk(y)) => match (stream_id(x), stream_id(y)) {
            (Some(p), Some(q)) => p.abs_diff(q) <= tolerance as u64,
            _ => x == y,
        },
        (Frame::Array(x), Frame::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| near(p, q, tolerance))
        }
        _ => a == b,
    }
}

/// The milliseconds of a stream ID (`1700000000000-0`).
fn stream_id(b: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(b).ok()?;
    let (ms, seq) = s.split_once('-')?;
    seq.parse::<u64>().ok()?;
    ms.parse().ok()
}

/// A total order for replies: their RESP3 bytes.
fn key(f: &Frame) -> Vec<u8> {
    f.to_bytes(3)
}

fn sorted<T: Ord>(it: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = it.collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<u8>> {
        line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    fn bulks(items: &[&str]) -> Frame {
        Frame::Array(items.iter().map(Frame::bulk).collect())
    }

    #[test]
    fn rules_follow_the_command_and_subcommand() {
        assert_eq!(rule(&words("smembers s")), Rule::Unordered);
        assert_eq!(rule(&words("CONFIG GET *")), Rule::UnorderedPairs);
        assert_eq!(rule(&words("OBJECT IDLETIME k")), Rule::Shape);
        assert_eq!(rule(&words("OBJECT ENCODING k")), Rule::Exact);
        assert_eq!(rule(&words("PTTL k")), Rule::Clock { tolerance: 1000 });
        assert_eq!(rule(&words("GET k")), Rule::Exact);
    }

    #[test]
    fn unordered_replies_compare_as_sets_and_nothing_more() {
        let r = Rule::Unordered;
        assert!(same(r, &bulks(&["a", "b"]), &bulks(&["b", "a"])));
        assert!(!same(r, &bulks(&["a", "b"]), &bulks(&["a", "a"])));
        assert!(!same(
            r,
            &bulks(&["a"]),
            &Frame::Set(vec![Frame::bulk("a")])
        ));
        let r = Rule::UnorderedPairs;
        assert!(same(
            r,
            &bulks(&["f", "1", "g", "2"]),
            &bulks(&["g", "2", "f", "1"])
        ));
        assert!(!same(
            r,
            &bulks(&["f", "1", "g", "2"]),
            &bulks(&["f", "2", "g", "1"])
        ));
    }

    #[test]
    fn clocks_shapes_and_errors() {
        let c = Rule::Clock { tolerance: 1000 };
        assert!(same(c, &Frame::Integer(9_999), &Frame::Integer(9_400)));
        assert!(!same(c, &Frame::Integer(-2), &Frame::Integer(-1)));
        assert!(same(
            c,
            &Frame::bulk("1700000000000-0"),
            &Frame::bulk("1700000000400-3")
        ));
        assert!(!same(
            c,
            &Frame::bulk("1700000000000-0"),
            &Frame::bulk("1700000005000-0")
        ));
        assert!(same(Rule::Shape, &Frame::bulk("x"), &Frame::bulk("y")));
        assert!(!same(Rule::Shape, &Frame::bulk("x"), &Frame::Null));
        let e = Frame::err("ERR x");
        assert!(!same(Rule::Shape, &e, &Frame::err("ERR y")));
    }
}
