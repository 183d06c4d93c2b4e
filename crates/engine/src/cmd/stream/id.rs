//! Stream IDs as t_stream.c parses them: `ms-seq`, `ms` with a default sequence, `-` and `+`, `ms-*` for XADD, and `(` for exclusive range ends.

use crate::cmd::args::{cstr, is_c_space, strtoul_body};
use crate::keyspace::types::stream::StreamId;
use crate::proto::resp::{parse_i64, Frame};

pub(super) const INVALID_ID: &str = "ERR Invalid stream ID specified as stream command argument";

pub(super) fn invalid_id() -> Frame {
    Frame::err(INVALID_ID)
}

/// `string2ull`: `string2ll` when it applies (negative values refused),
/// else C's `strtoull` over the whole string: leading spaces, a sign (a
/// minus wraps), no overflow, nothing after the digits.
fn string2ull(s: &[u8]) -> Option<u64> {
    if let Some(v) = parse_i64(s) {
        return (v >= 0).then_some(v as u64);
    }
    let start = s.iter().position(|c| !is_c_space(*c)).unwrap_or(s.len());
    strtoul_body(&s[start..])
}

/// `streamGenericParseIDOrReply`: `ms-seq`, `ms` (sequence `missing_seq`),
/// `-` and `+` unless `strict`, and `ms-*` when `auto_seq` (the returned
/// flag is then false: the sequence is the stream's to pick).
pub(super) fn parse_id(
    arg: &[u8],
    missing_seq: u64,
    strict: bool,
    auto_seq: bool,
) -> Result<(StreamId, bool), Frame> {
    if arg.len() > 127 {
        return Err(invalid_id());
    }
    let s = cstr(arg);
    if strict && (s == b"-" || s == b"+") {
        return Err(invalid_id());
    }
    if s == b"-" {
        return Ok((StreamId::MIN, true));
    }
    if s == b"+" {
        return Ok((StreamId::MAX, true));
    }
    let (ms_part, seq_part) = match s.iter().position(|&c| c == b'-') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let ms = string2ull(ms_part).ok_or_else(invalid_id)?;
    let (seq, given) = match seq_part {
        None => (missing_seq, true),
        Some(b"*") if auto_seq => (0, false),
        Some(p) => (string2ull(p).ok_or_else(invalid_id)?, true),
    };
    Ok((StreamId::new(ms, seq), given))
}

/// `streamParseStrictIDOrReply` with a missing sequence of 0.
pub(super) fn strict_id(arg: &[u8]) -> Result<StreamId, Frame> {
    parse_id(arg, 0, true, false).map(|(id, _)| id)
}

/// `streamParseIntervalIDOrReply`: a range end, `(` making it exclusive
/// (and strict).
pub(super) fn interval_id(arg: &[u8], missing_seq: u64) -> Result<(StreamId, bool), Frame> {
    if arg.len() > 1 && arg[0] == b'(' {
        Ok((parse_id(&arg[1..], missing_seq, true, false)?.0, true))
    } else {
        Ok((parse_id(arg, missing_seq, false, false)?.0, false))
    }
}

/// A range's start and end from two arguments (exclusive ends moved
/// inward), with Redis' errors for ends that cannot move.
pub(super) fn range_ends(start: &[u8], end: &[u8]) -> Result<(StreamId, StreamId), Frame> {
    let (mut s, sx) = interval_id(start, 0)?;
    if sx {
        s = s
            .incr()
            .ok_or_else(|| Frame::err("ERR invalid start ID for the interval"))?;
    }
    let (mut e, ex) = interval_id(end, u64::MAX)?;
    if ex {
        e = e
            .decr()
            .ok_or_else(|| Frame::err("ERR invalid end ID for the interval"))?;
    }
    Ok((s, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_like_string2ull() {
        let p = |s: &str| parse_id(s.as_bytes(), 0, true, false).map(|(id, _)| id.to_string());
        assert_eq!(p("5"), Ok("5-0".into()));
        assert_eq!(p("5-3"), Ok("5-3".into()));
        assert_eq!(p(" 5-+3"), Ok("5-3".into()), "strtoull takes spaces and +");
        assert_eq!(p("007-1"), Ok("7-1".into()));
        assert_eq!(p("1--0"), Ok("1-0".into()), "`-0` is strtoull's zero");
        assert_eq!(
            p("1--05"),
            Ok(format!("1-{}", u64::MAX - 4)),
            "a minus wraps"
        );
        assert_eq!(
            p("1--5"),
            Err(invalid_id()),
            "string2ll's negatives are refused"
        );
        assert_eq!(p("18446744073709551615-0"), Ok(format!("{}-0", u64::MAX)));
        assert_eq!(p("18446744073709551616"), Err(invalid_id()));
        for bad in ["", "-", "+", "x", "1-x", "1-2-3", "0x1", "5 ", "1-*"] {
            assert_eq!(p(bad), Err(invalid_id()), "{bad:?}");
        }
        assert_eq!(
            parse_id(b"7-*", 0, true, true),
            Ok((StreamId::new(7, 0), false))
        );
        assert_eq!(parse_id(b"+", 0, false, false), Ok((StreamId::MAX, true)));
        assert_eq!(
            parse_id(b"3", u64::MAX, false, false).map(|x| x.0),
            Ok(StreamId::new(3, u64::MAX))
        );
        assert_eq!(parse_id(&[b'1'; 128], 0, false, false), Err(invalid_id()));
        assert_eq!(
            parse_id(b"5\0junk", 0, true, false).map(|x| x.0),
            Ok(StreamId::new(5, 0))
        );
    }

    #[test]
    fn exclusive_ends_move_inward() {
        assert_eq!(
            range_ends(b"(1-5", b"(2-0"),
            Ok((StreamId::new(1, 6), StreamId::new(1, u64::MAX)))
        );
        assert_eq!(
            range_ends(b"1", b"(2"),
            Ok((StreamId::new(1, 0), StreamId::new(2, u64::MAX - 1))),
            "a bare end means its last sequence"
        );
        assert_eq!(
            range_ends(b"(18446744073709551615-18446744073709551615", b"+"),
            Err(Frame::err("ERR invalid start ID for the interval"))
        );
        assert_eq!(
            range_ends(b"-", b"(0-0"),
            Err(Frame::err("ERR invalid end ID for the interval"))
        );
        assert_eq!(
            range_ends(b"(-", b"+"),
            Err(invalid_id()),
            "`(` makes the ID strict"
        );
        assert_eq!(
            range_ends(b"(", b"+"),
            Err(invalid_id()),
            "a lone `(` is an ID"
        );
    }
}
