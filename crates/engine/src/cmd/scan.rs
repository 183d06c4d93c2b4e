//! What SCAN, HSCAN, SSCAN and ZSCAN share (`scanGenericCommand`): the cursor as C's `strtoul` reads it, the COUNT / MATCH (/ TYPE) options, the bounded walk over a table's buckets, and the reply.

use super::args::{arg_i64, cstr, is_c_space, opt_is, strtoul_body, SYNTAX};
use crate::glob;
use crate::proto::resp::Frame;

/// `parseScanCursorOrReply`: C's `strtoul` in base 10 over the whole
/// argument (up to a NUL): a sign is allowed (`-1` wraps to 2^64-1), leading
/// zeros too, an empty string is 0, a leading space or overflow is not.
pub(crate) fn cursor_arg(arg: &[u8]) -> Result<u64, Frame> {
    parse_cursor(arg).ok_or_else(|| Frame::err("ERR invalid cursor"))
}

fn parse_cursor(arg: &[u8]) -> Option<u64> {
    let s = cstr(arg);
    match s.first() {
        None => Some(0),
        Some(&c) if is_c_space(c) => None,
        Some(_) => strtoul_body(s),
    }
}

/// A scan's options.
pub(crate) struct ScanOpts<'a> {
    pub count: i64,
    /// None when absent or exactly `*` (which matches everything).
    pub pattern: Option<&'a [u8]>,
    /// SCAN's TYPE filter, as typed (up to a NUL).
    pub type_name: Option<&'a [u8]>,
}

impl ScanOpts<'_> {
    /// True if `s` passes the MATCH filter.
    pub fn matches(&self, s: &[u8]) -> bool {
        self.pattern.is_none_or(|p| glob::matches(p, s, false))
    }
}

/// Parses the options from `args[first..]`: COUNT (at least 1) and MATCH,
/// and TYPE when `with_type` (SCAN; the key scans do not take it).
pub(crate) fn scan_opts(
    args: &[Vec<u8>],
    first: usize,
    with_type: bool,
) -> Result<ScanOpts<'_>, Frame> {
    let mut o = ScanOpts {
        count: 10,
        pattern: None,
        type_name: None,
    };
    let mut i = first;
    while i < args.len() {
        let more = args.len() - i;
        if opt_is(&args[i], "count") && more >= 2 {
            o.count = arg_i64(&args[i + 1])?;
            if o.count < 1 {
                return Err(Frame::err(SYNTAX));
            }
        } else if opt_is(&args[i], "match") && more >= 2 {
            let p = args[i + 1].as_slice();
            o.pattern = (p != b"*").then_some(p);
        } else if with_type && opt_is(&args[i], "type") && more >= 2 {
            o.type_name = Some(cstr(&args[i + 1]));
        } else {
            return Err(Frame::err(SYNTAX));
        }
        i += 2;
    }
    Ok(o)
}

/// Walks a table with `step` (one bucket: the next cursor and how many
/// elements it held) the way `scanGenericCommand` does: at most `budget`
/// more buckets after the first, stopping once `count` elements were seen.
/// The budget is Redis' `count * 10`: SCAN computes it wrapping, as C's
/// `long` arithmetic does, the key scans saturating (they differ only for
/// counts above 9.2e17).
pub(crate) fn scan_steps(
    mut cursor: u64,
    count: i64,
    mut budget: i64,
    mut step: impl FnMut(u64) -> (u64, i64),
) -> u64 {
    let mut sampled: i64 = 0;
    loop {
        let (next, seen) = step(cursor);
        cursor = next;
        sampled += seen;
        if cursor == 0 {
            return 0;
        }
        let budget_left = budget != 0;
        budget = budget.wrapping_sub(1);
        if !budget_left || sampled >= count {
            return cursor;
        }
    }
}

/// A SCAN-family reply: the next cursor and the elements.
pub(crate) fn scan_reply(cursor: u64, items: Vec<Vec<u8>>) -> Frame {
    Frame::Array(vec![
        Frame::Bulk((cursor as i64).to_string().into_bytes()),
        Frame::Array(items.into_iter().map(Frame::Bulk).collect()),
    ])
}

#[cfg(test)]
mod tests {
    use super::parse_cursor;

    #[test]
    fn cursor_parsing_is_strtoul() {
        let good = [
            &b""[..],
            b"0",
            b"007",
            b"+5",
            b"-1",
            b"18446744073709551615",
            b"5\x00junk",
        ];
        assert_eq!(
            good.map(parse_cursor),
            [0, 0, 7, 5, u64::MAX, u64::MAX, 5].map(Some)
        );
        for bad in [&b"18446744073709551616"[..], b" 1", b"1 ", b"x", b"-"] {
            assert_eq!(parse_cursor(bad), None, "{bad:?}");
        }
    }
}
