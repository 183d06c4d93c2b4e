//! Renders a reply the way `redis-cli` prints it on a terminal, for the browser console and the native tools.

use crate::proto::resp::{fmt_double, Frame};

/// Formats `f` as redis-cli's TTY mode does, without the final newline.
/// A client-side caching invalidation push with keys is printed as
/// redis-cli's push handler does (`-> invalidate: 'a', 'b'`).
pub fn format_reply(f: &Frame) -> String {
    if let Some(keys) = invalidated_keys(f) {
        let list: Vec<String> = keys
            .iter()
            .map(|k| match k {
                // `sdscatfmt`'s `%s`: the raw bytes, up to a NUL.
                Frame::Bulk(b) => {
                    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                    format!("'{}'", String::from_utf8_lossy(&b[..end]))
                }
                other => format!("'{}'", format_reply(other)),
            })
            .collect();
        return format!("-> invalidate: {}", list.join(", "));
    }
    let mut s = format_tty(f, "");
    if s.ends_with('\n') {
        s.pop();
    }
    s
}

/// `sdscatrepr`: a quoted string with C escapes for what is not printable.
pub fn quote(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() + 2);
    s.push('"');
    for &c in b {
        match c {
            b'\\' => s.push_str("\\\\"),
            b'"' => s.push_str("\\\""),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            7 => s.push_str("\\a"),
            8 => s.push_str("\\b"),
            0x20..=0x7e => s.push(c as char),
            _ => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    s.push('"');
    s
}

/// The keys of an `["invalidate", [key...]]` push (`isInvalidateReply`; a
/// flush's null is printed as any other push).
fn invalidated_keys(f: &Frame) -> Option<&[Frame]> {
    match f {
        Frame::Push(items) if items.len() == 2 => match (&items[0], &items[1]) {
            (Frame::Bulk(w), Frame::Array(keys)) if w.starts_with(b"invalidate") => Some(keys),
            _ => None,
        },
        _ => None,
    }
}

fn format_tty(f: &Frame, prefix: &str) -> String {
    match f {
        Frame::Simple(s) => format!("{s}\n"),
        Frame::Error(s) => format!("(error) {s}\n"),
        Frame::Integer(n) => format!("(integer) {n}\n"),
        Frame::Bulk(b) => format!("{}\n", quote(b)),
        Frame::Null | Frame::NullArray => "(nil)\n".into(),
        Frame::Double(d) => format!("(double) {}\n", fmt_double(*d)),
        Frame::Boolean(b) => format!("({b})\n"),
        Frame::BigNumber(s) => format!("(big number) {s}\n"),
        Frame::Verbatim(_, text) => format!("{}\n", String::from_utf8_lossy(text)),
        Frame::Array(items) | Frame::Set(items) | Frame::Push(items) => {
            let (sep, empty) = match f {
                Frame::Set(_) => ('~', "(empty set)"),
                Frame::Push(_) => (')', "(empty push)"),
                _ => (')', "(empty array)"),
            };
            aggregate(
                items.iter().map(|i| (i, None)),
                items.len(),
                sep,
                empty,
                prefix,
            )
        }
        Frame::Map(pairs) | Frame::Attribute(pairs) => aggregate(
            pairs.iter().map(|(k, v)| (k, Some(v))),
            pairs.len(),
            '#',
            "(empty hash)",
            prefix,
        ),
    }
}

/// Numbered entries, right-aligned to the widest index; nested aggregates are
/// indented by the index width plus two, as redis-cli does.
fn aggregate<'a>(
    items: impl Iterator<Item = (&'a Frame, Option<&'a Frame>)>,
    len: usize,
    sep: char,
    empty: &str,
    prefix: &str,
) -> String {
    if len == 0 {
        return format!("{empty}\n");
    }
    let width = len.to_string().len();
    let child_prefix = format!("{prefix}{}", " ".repeat(width + 2));
    let mut out = String::new();
    for (i, (item, value)) in items.enumerate() {
        let lead = if i == 0 { "" } else { prefix };
        out.push_str(&format!("{lead}{:>width$}{sep} ", i + 1));
        out.push_str(&format_tty(item, &child_prefix));
        if let Some(v) = value {
            out.pop();
            out.push_str(" => ");
            out.push_str(&format_tty(v, &child_prefix));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// redis-cli's push handler prints key invalidations on one line; a
    /// flush's null invalidation is an ordinary push.
    #[test]
    fn invalidation_pushes_as_redis_cli_prints_them() {
        let push = |v: Frame| Frame::Push(vec![Frame::bulk("invalidate"), v]);
        let keys = Frame::Array(vec![Frame::bulk("a"), Frame::bulk("b c")]);
        assert_eq!(format_reply(&push(keys)), "-> invalidate: 'a', 'b c'");
        assert_eq!(
            format_reply(&push(Frame::Null)),
            "1) \"invalidate\"\n2) (nil)"
        );
    }

    #[test]
    fn scalars() {
        assert_eq!(format_reply(&Frame::Integer(1)), "(integer) 1");
        assert_eq!(format_reply(&Frame::bulk("1")), "\"1\"");
        assert_eq!(format_reply(&Frame::Null), "(nil)");
        assert_eq!(format_reply(&Frame::ok()), "OK");
        assert_eq!(format_reply(&Frame::err("ERR x")), "(error) ERR x");
        assert_eq!(format_reply(&Frame::bulk(b"a\n\x01")), "\"a\\n\\x01\"");
    }

    #[test]
    fn nested_arrays_are_numbered_and_indented() {
        let inner = Frame::Array(vec![Frame::bulk("a"), Frame::bulk("b")]);
        let mut items = vec![inner];
        items.extend((0..10).map(Frame::Integer));
        let out = format_reply(&Frame::Array(items));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], " 1) 1) \"a\"");
        assert_eq!(lines[1], "    2) \"b\"");
        assert_eq!(lines[2], " 2) (integer) 0");
        assert_eq!(lines[11], "11) (integer) 9");
        assert_eq!(format_reply(&Frame::Array(vec![])), "(empty array)");
    }

    #[test]
    fn maps_use_arrows() {
        let m = Frame::Map(vec![(Frame::bulk("k"), Frame::Integer(2))]);
        assert_eq!(format_reply(&m), "1# \"k\" => (integer) 2");
    }
}
