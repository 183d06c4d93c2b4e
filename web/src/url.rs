//! Query strings and fragments as plain Rust: `a=b&c=d` pairs read and written with the browser's form rules, so links are unit-tested natively and the same code reads `data-*` attributes.

/// `application/x-www-form-urlencoded` pairs; malformed escapes are kept literally.
pub fn parse_query(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode_component(k), decode_component(v)),
            None => (decode_component(p), String::new()),
        })
        .collect()
}

/// Percent-decodes `s`, reading `+` as a space as forms do.
pub fn decode_component(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex_val(b[i + 1]), hex_val(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes everything but RFC 3986's unreserved characters, so a
/// command survives any URL context (spaces become `%20`, quotes `%22`).
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'~') {
            out.push(c as char);
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
    }
    out
}

fn hex_val(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_decode_and_bad_escapes_stay_literal() {
        assert_eq!(
            parse_query("a=1&b=x+y&&c&d=%e2%82%ac"),
            vec![
                ("a".to_string(), "1".to_string()),
                ("b".to_string(), "x y".to_string()),
                ("c".to_string(), String::new()),
                ("d".to_string(), "€".to_string()),
            ]
        );
        assert_eq!(decode_component("%"), "%");
        assert_eq!(decode_component("a%4"), "a%4");
        assert_eq!(decode_component("GET%2"), "GET%2");
    }

    #[test]
    fn encoding_round_trips() {
        let s = "SET \"a b\" 'x&y=z' 100%+€";
        let e = encode_component(s);
        assert!(!e.contains(' ') && !e.contains('"') && !e.contains('&'));
        assert_eq!(decode_component(&e), s);
    }
}
