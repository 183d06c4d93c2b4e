//! Argument parsing shared by the families: option words as C compares them, integers with Redis' range checks and error texts (`getLongFromObjectOrReply` and friends), and arguments as Redis prints them in errors.

use crate::proto::resp::{parse_i64, Frame};

/// Not an integer, or out of range.
pub const NOT_INTEGER: &str = "ERR value is not an integer or out of range";
/// Generic syntax error.
pub const SYNTAX: &str = "ERR syntax error";
/// Not a float.
pub const NOT_FLOAT: &str = "ERR value is not a valid float";

/// The part of an argument C sees as a string: up to the first NUL. Redis
/// compares option words with `strcasecmp` or char by char on `argv[i]->ptr`.
pub(crate) fn cstr(arg: &[u8]) -> &[u8] {
    match arg.iter().position(|&b| b == 0) {
        Some(i) => &arg[..i],
        None => arg,
    }
}

/// True if the argument is the option `word` as Redis' C comparisons see it.
pub(crate) fn opt_is(arg: &[u8], word: &str) -> bool {
    cstr(arg).eq_ignore_ascii_case(word.as_bytes())
}

/// The value named by an option's argument among `choices` (as
/// [`opt_is`] compares), for options that pick one of a few words.
pub(crate) fn opt_choice<T: Copy>(arg: &[u8], choices: &[(&str, T)]) -> Option<T> {
    choices
        .iter()
        .find(|(word, _)| opt_is(arg, word))
        .map(|&(_, v)| v)
}

/// Case-insensitive comparison of a whole argument with an option word.
pub fn is(arg: &[u8], word: &str) -> bool {
    arg.eq_ignore_ascii_case(word.as_bytes())
}

/// Parses an integer argument, or gives Redis' "not an integer" error.
pub fn arg_i64(arg: &[u8]) -> Result<i64, Frame> {
    parse_i64(arg).ok_or_else(|| Frame::err(NOT_INTEGER))
}

/// Up to `max` bytes of `arg` as Redis prints it with `%.*s`: stops at a NUL.
pub(crate) fn preview(arg: &[u8], max: usize) -> String {
    let s = cstr(arg);
    String::from_utf8_lossy(&s[..s.len().min(max)]).into_owned()
}

/// An argument as Redis prints it in an error with `%s`: up to the first NUL,
/// and (as `addReplyErrorFormat` does) CR/LF trimmed at the ends and blanked inside.
pub(crate) fn err_text(arg: &[u8]) -> String {
    let s = String::from_utf8_lossy(cstr(arg));
    s.trim_matches(['\r', '\n']).replace(['\r', '\n'], " ")
}

/// C's `isspace` in the "C" locale.
pub(crate) fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// What C's `strtoul` in base 10 reads, once past any leading blanks, when
/// it must consume all of `s`: an optional sign (a minus wraps), then
/// digits only; `None` for no digits, anything after them, or overflow.
pub(crate) fn strtoul_body(s: &[u8]) -> Option<u64> {
    let (neg, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let v = digits.iter().try_fold(0u64, |v, &c| {
        let d = c.is_ascii_digit().then(|| u64::from(c - b'0'))?;
        v.checked_mul(10)?.checked_add(d)
    })?;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `getLongFromObjectOrReply`: an integer, or `ERR {msg}` (Redis' "not an
/// integer" error without one).
pub(crate) fn long_arg(arg: &[u8], msg: Option<&str>) -> Result<i64, Frame> {
    parse_i64(arg)
        .ok_or_else(|| Frame::err(msg.map_or(NOT_INTEGER.to_string(), |m| format!("ERR {m}"))))
}

/// `getRangeLongFromObjectOrReply`: an integer in `min..=max`; `ERR {msg}`
/// for anything else when given, else Redis' two default errors.
pub(crate) fn range_long_arg(
    arg: &[u8],
    min: i64,
    max: i64,
    msg: Option<&str>,
) -> Result<i64, Frame> {
    let v = long_arg(arg, msg)?;
    if v < min || v > max {
        return Err(Frame::err(match msg {
            Some(m) => format!("ERR {m}"),
            None => format!("ERR value is out of range, value must between {min} and {max}"),
        }));
    }
    Ok(v)
}

/// `getPositiveLongFromObjectOrReply`: a non-negative integer, with `msg`
/// (or Redis' default) for anything else, unparsable included.
pub(crate) fn positive_long_arg(arg: &[u8], msg: Option<&str>) -> Result<i64, Frame> {
    range_long_arg(
        arg,
        0,
        i64::MAX,
        Some(msg.unwrap_or("value is out of range, must be positive")),
    )
}

/// `getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX)`: any integer but
/// LONG_MIN (the counts of HRANDFIELD, SRANDMEMBER, ZRANDMEMBER, LPOS RANK).
pub(crate) fn count_arg(arg: &[u8]) -> Result<i64, Frame> {
    range_long_arg(arg, -i64::MAX, i64::MAX, None)
}

/// Left or right for a pair of words (LEFT/RIGHT, MIN/MAX, AFTER/BEFORE,
/// BIT/BYTE): `Ok(false)` for the first, `Ok(true)` for the second, else a
/// syntax error.
pub(crate) fn either(arg: &[u8], first: &str, second: &str) -> Result<bool, Frame> {
    if opt_is(arg, first) {
        Ok(false)
    } else if opt_is(arg, second) {
        Ok(true)
    } else {
        Err(Frame::err(SYNTAX))
    }
}

/// Clamps an index range as Redis does for ranks (LRANGE, LTRIM, ZRANGE):
/// negative indexes count from the end; `None` when it selects nothing.
pub(crate) fn clamp_ranks(start: i64, end: i64, len: usize) -> Option<(usize, usize)> {
    let llen = len as i64;
    let mut start = if start < 0 { llen + start } else { start };
    let mut end = if end < 0 { llen + end } else { end };
    if start < 0 {
        start = 0;
    }
    if start > end || start >= llen {
        return None;
    }
    if end >= llen {
        end = llen - 1;
    }
    Some((start as usize, end as usize))
}

/// LMPOP's and BLMPOP's (and the sorted-set siblings') parsed arguments.
pub(crate) struct Mpop<'a, W> {
    pub keys: &'a [Vec<u8>],
    pub end: W,
    pub count: usize,
}

/// `lmpopGenericCommand`'s parsing: numkeys at `numkeys_idx`, then the
/// keys, the end word (`parse_end`: LEFT or RIGHT, MIN or MAX), and an
/// optional COUNT.
pub(crate) fn parse_mpop<W>(
    args: &[Vec<u8>],
    numkeys_idx: usize,
    parse_end: impl Fn(&[u8]) -> Result<W, Frame>,
) -> Result<Mpop<'_, W>, Frame> {
    let numkeys = range_long_arg(
        &args[numkeys_idx],
        1,
        i64::MAX,
        Some("numkeys should be greater than 0"),
    )?;
    let where_idx = (numkeys as u64)
        .checked_add(numkeys_idx as u64 + 1)
        .filter(|&w| w < args.len() as u64)
        .ok_or_else(|| Frame::err(SYNTAX))? as usize;
    let end = parse_end(&args[where_idx])?;
    let mut count: i64 = -1;
    let mut j = where_idx + 1;
    while j < args.len() {
        let more = args.len() - 1 - j;
        if count == -1 && opt_is(&args[j], "COUNT") && more > 0 {
            j += 1;
            count = range_long_arg(
                &args[j],
                1,
                i64::MAX,
                Some("count should be greater than 0"),
            )?;
        } else {
            return Err(Frame::err(SYNTAX));
        }
        j += 1;
    }
    Ok(Mpop {
        keys: &args[numkeys_idx + 1..where_idx],
        end,
        count: usize::try_from(count.max(1)).unwrap_or(usize::MAX),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_their_errors() {
        assert_eq!(count_arg(b"-9223372036854775807"), Ok(-i64::MAX));
        assert_eq!(
            count_arg(b"-9223372036854775808"),
            Err(Frame::err(
                "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
            ))
        );
        assert_eq!(count_arg(b"x"), Err(Frame::err(NOT_INTEGER)));
        assert_eq!(
            positive_long_arg(b"-1", Some("COUNT can't be negative")),
            Err(Frame::err("ERR COUNT can't be negative"))
        );
        assert_eq!(
            positive_long_arg(b"x", None),
            Err(Frame::err("ERR value is out of range, must be positive"))
        );
        assert_eq!(preview(b"ab\0cd", usize::MAX), "ab");
        assert_eq!(preview(b"abcd", 2), "ab");
        assert_eq!(err_text(b"\r\nab\ncd\r\n\0x"), "ab cd");
    }
}
