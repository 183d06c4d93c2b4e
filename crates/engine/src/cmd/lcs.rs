//! LCS: the longest common subsequence of two strings, its length or its matching ranges, with Redis 7.2's options, errors and DP walk (t_string.c `lcsCommand`).
//!
//! The table and the walk back from its end are Redis' own, tie-breaking
//! included (`i--` only when the row above is strictly longer), so the
//! subsequence chosen and the ranges reported are the ones Redis gives.

use super::args::{arg_i64, SYNTAX};
use super::table::{commands, Command, Ctx};
use crate::keyspace::object::Value;
use crate::proto::resp::Frame;
use crate::server::Lookup;

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "string";
    "lcs" => lcs, arity: -3, flags: [READONLY], keys: (1, 2, 1), acl: [READ, STRING, SLOW], since: "7.0.0",
        syntax: "LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]", summary: "Finds the longest common substring.";
};

/// LCS's reply to a key holding another type than a string (not WRONGTYPE).
const NOT_STRINGS: &str = "ERR The specified keys must contain string values";
const LEN_AND_IDX: &str = "ERR If you want both the length and indexes, please just use IDX.";
const TOO_LONG: &str = "ERR String too long for LCS";
const TOO_MUCH_MEMORY: &str =
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";

/// One matching range: inclusive byte ranges in each string, and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Match {
    pub a: (u32, u32),
    pub b: (u32, u32),
    pub len: u32,
}

/// What the walk back through the table found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Lcs {
    /// The subsequence (empty when only the length was asked for).
    pub string: Vec<u8>,
    /// Its length.
    pub len: u32,
    /// The ranges of at least the minimum length, from the strings' ends back.
    pub matches: Vec<Match>,
}

/// The value at `key` for LCS: `Ok(None)` when missing, `Err` for another type.
fn lookup_string(ctx: &mut Ctx, key: &[u8]) -> Result<Option<Vec<u8>>, ()> {
    let db = ctx.db();
    match ctx.srv.lookup(db, key, Lookup::READ) {
        None => Ok(None),
        Some(obj) => match &obj.value {
            Value::String(s) => Ok(Some(s.to_bytes())),
            _ => Err(()),
        },
    }
}

fn lcs(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    // Both keys are looked up before either's type is checked.
    let a = lookup_string(ctx, &args[1]);
    let b = lookup_string(ctx, &args[2]);
    let (Ok(a), Ok(b)) = (a, b) else {
        return Frame::err(NOT_STRINGS);
    };
    let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());

    let (mut get_len, mut get_idx, mut with_match_len) = (false, false, false);
    let mut min_match_len: i64 = 0;
    let mut j = 3;
    while j < args.len() {
        let opt = &args[j];
        let more = args.len() - 1 - j;
        if opt.eq_ignore_ascii_case(b"IDX") {
            get_idx = true;
        } else if opt.eq_ignore_ascii_case(b"LEN") {
            get_len = true;
        } else if opt.eq_ignore_ascii_case(b"WITHMATCHLEN") {
            with_match_len = true;
        } else if opt.eq_ignore_ascii_case(b"MINMATCHLEN") && more > 0 {
            match arg_i64(&args[j + 1]) {
                Ok(n) => min_match_len = n.max(0),
                Err(e) => return e,
            }
            j += 1;
        } else {
            return Frame::err(SYNTAX);
        }
        j += 1;
    }
    if get_len && get_idx {
        return Frame::err(LEN_AND_IDX);
    }
    if a.len() as u64 >= u32::MAX as u64 - 1 || b.len() as u64 >= u32::MAX as u64 - 1 {
        return Frame::err(TOO_LONG);
    }
    let cells = (a.len() as u64 + 1) * (b.len() as u64 + 1);
    match cells.checked_mul(4) {
        Some(bytes) if bytes <= ctx.srv.config.proto_max_bulk_len.max(0) as u64 => {}
        _ => return Frame::err(TOO_MUCH_MEMORY),
    }

    let found = compute(&a, &b, !get_len || get_idx, min_match_len as u64);
    if get_idx {
        let matches = found
            .matches
            .iter()
            .map(|m| {
                let mut entry = vec![
                    Frame::Array(vec![
                        Frame::Integer(m.a.0.into()),
                        Frame::Integer(m.a.1.into()),
                    ]),
                    Frame::Array(vec![
                        Frame::Integer(m.b.0.into()),
                        Frame::Integer(m.b.1.into()),
                    ]),
                ];
                if with_match_len {
                    entry.push(Frame::Integer(m.len.into()));
                }
                Frame::Array(entry)
            })
            .collect();
        Frame::Map(vec![
            (Frame::bulk("matches"), Frame::Array(matches)),
            (Frame::bulk("len"), Frame::Integer(found.len.into())),
        ])
    } else if get_len {
        Frame::Integer(found.len.into())
    } else {
        Frame::Bulk(found.string)
    }
}

/// Redis' LCS: the DP table of `a` × `b`, then (if `walk`) the walk back
/// from its end building the subsequence and the ranges of at least
/// `min_match_len` bytes (0: all). The caller has bounded the table's size.
pub(crate) fn compute(a: &[u8], b: &[u8], walk: bool, min_match_len: u64) -> Lcs {
    let (alen, blen) = (a.len(), b.len());
    let cols = blen + 1;
    let mut t = vec![0u32; (alen + 1) * cols];
    for i in 1..=alen {
        for j in 1..=blen {
            t[i * cols + j] = if a[i - 1] == b[j - 1] {
                t[(i - 1) * cols + j - 1] + 1
            } else {
                t[(i - 1) * cols + j].max(t[i * cols + j - 1])
            };
        }
    }
    let len = t[alen * cols + blen];
    let mut out = Lcs {
        string: Vec::new(),
        len,
        matches: Vec::new(),
    };
    if !walk {
        return out;
    }
    let mut string = vec![0u8; len as usize];
    let mut idx = len as usize;
    // `a_start == alen` means no range is open (Redis' sentinel).
    let unset = alen as u32;
    let (mut a_start, mut a_end, mut b_start, mut b_end) = (unset, 0u32, 0u32, 0u32);
    let (mut i, mut j) = (alen, blen);
    while i > 0 && j > 0 {
        let mut emit = false;
        if a[i - 1] == b[j - 1] {
            string[idx - 1] = a[i - 1];
            if a_start == unset {
                a_start = (i - 1) as u32;
                a_end = a_start;
                b_start = (j - 1) as u32;
                b_end = b_start;
            } else if a_start == i as u32 && b_start == j as u32 {
                a_start -= 1;
                b_start -= 1;
            } else {
                emit = true;
            }
            if a_start == 0 || b_start == 0 {
                emit = true;
            }
            idx -= 1;
            i -= 1;
            j -= 1;
        } else {
            if t[(i - 1) * cols + j] > t[i * cols + j - 1] {
                i -= 1;
            } else {
                j -= 1;
            }
            if a_start != unset {
                emit = true;
            }
        }
        // Redis computes this in uint32_t arithmetic, wrapping like this.
        let match_len = a_end.wrapping_sub(a_start).wrapping_add(1);
        if emit {
            if min_match_len == 0 || u64::from(match_len) >= min_match_len {
                out.matches.push(Match {
                    a: (a_start, a_end),
                    b: (b_start, b_end),
                    len: match_len,
                });
            }
            a_start = unset;
        }
    }
    out.string = string;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::testing::*;

    fn m(a: (u32, u32), b: (u32, u32), len: u32) -> Match {
        Match { a, b, len }
    }

    #[test]
    fn classic_example() {
        let r = compute(b"ohmytext", b"mynewtext", true, 0);
        assert_eq!(r.string, b"mytext");
        assert_eq!(r.len, 6);
        assert_eq!(r.matches, vec![m((4, 7), (5, 8), 4), m((2, 3), (0, 1), 2)]);
        let r = compute(b"ohmytext", b"mynewtext", true, 4);
        assert_eq!(r.matches, vec![m((4, 7), (5, 8), 4)]);
    }

    #[test]
    fn empty_inputs() {
        let r = compute(b"", b"abc", true, 0);
        assert_eq!((r.string, r.len, r.matches), (Vec::new(), 0, Vec::new()));
    }

    /// The IDX reply is a map in RESP3 (the encoder flattens it in RESP2).
    #[test]
    fn idx_reply_is_a_map() {
        let (mut e, c) = engine(1);
        run(&mut e, c, &["SET", "a", "ohmytext"]);
        run(&mut e, c, &["SET", "b", "mynewtext"]);
        let r = run(&mut e, c, &["LCS", "a", "b", "IDX", "WITHMATCHLEN"]);
        let range = |x: i64, y: i64| Frame::Array(vec![Frame::Integer(x), Frame::Integer(y)]);
        assert_eq!(
            r,
            Frame::Map(vec![
                (
                    Frame::bulk("matches"),
                    Frame::Array(vec![
                        Frame::Array(vec![range(4, 7), range(5, 8), Frame::Integer(4)]),
                        Frame::Array(vec![range(2, 3), range(0, 1), Frame::Integer(2)]),
                    ])
                ),
                (Frame::bulk("len"), Frame::Integer(6)),
            ])
        );
    }
}
