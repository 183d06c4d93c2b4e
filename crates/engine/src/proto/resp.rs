//! RESP2/RESP3: the reply `Frame`, its encoder, the request parser with Redis' limits and errors, and a reply parser for clients.
//!
//! Commands reply with RESP3-shaped frames; the encoder downgrades them for a
//! RESP2 connection exactly as Redis does (maps become flat arrays, doubles
//! become bulk strings, booleans become integers).

/// Longest inline command, and longest header line, Redis accepts (`PROTO_INLINE_MAX_SIZE`).
pub const PROTO_INLINE_MAX_SIZE: usize = 64 * 1024;
/// Default `proto-max-bulk-len` (512 MB).
pub const PROTO_MAX_BULK_LEN: i64 = 512 * 1024 * 1024;

/// One reply, shaped like RESP3. `Null` and `NullArray` differ only in RESP2
/// (`$-1` against `*-1`), which some commands (BLPOP, EXEC) rely on.
#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    Simple(std::borrow::Cow<'static, str>),
    Error(String),
    Integer(i64),
    Bulk(Vec<u8>),
    Null,
    NullArray,
    Array(Vec<Frame>),
    Map(Vec<(Frame, Frame)>),
    Set(Vec<Frame>),
    Double(f64),
    Boolean(bool),
    BigNumber(String),
    /// RESP3 verbatim text: its three-byte format (`txt`, `mkd`) and body.
    /// The format is an array, not a `String`, so that every `Frame` is 32
    /// bytes: replies move through several layers by value.
    Verbatim([u8; 3], Vec<u8>),
    Push(Vec<Frame>),
    /// RESP3 attributes (`|`): out-of-band pairs written just before a
    /// reply, which a RESP2 connection never sees (DEBUG PROTOCOL ATTRIB).
    Attribute(Vec<(Frame, Frame)>),
}

impl Frame {
    /// `+OK`.
    pub fn ok() -> Frame {
        Frame::Simple("OK".into())
    }

    /// A simple string: static text is kept without a copy (`+OK` and the
    /// like, on every write), built text is owned.
    pub fn simple(s: impl Into<std::borrow::Cow<'static, str>>) -> Frame {
        Frame::Simple(s.into())
    }

    /// An error reply; `msg` includes its code (`ERR ...`, `WRONGTYPE ...`).
    /// Newlines become spaces, as `addReplyErrorFormat` does: a message that
    /// quotes user input must stay one protocol line.
    pub fn err(msg: impl Into<String>) -> Frame {
        let mut msg = msg.into();
        if msg.contains(['\r', '\n']) {
            msg = msg.replace(['\r', '\n'], " ");
        }
        Frame::Error(msg)
    }

    /// A bulk string from anything byte-like.
    pub fn bulk(b: impl AsRef<[u8]>) -> Frame {
        Frame::Bulk(b.as_ref().to_vec())
    }

    /// True for an error reply.
    pub fn is_error(&self) -> bool {
        matches!(self, Frame::Error(_))
    }

    /// Serialises the frame for a connection speaking `proto` (2 or 3).
    pub fn encode(&self, proto: u8, out: &mut Vec<u8>) {
        let resp3 = proto >= 3;
        match self {
            Frame::Simple(s) => line(out, b'+', one_line(s).as_bytes()),
            Frame::Error(s) => line(out, b'-', one_line(s).as_bytes()),
            Frame::Integer(n) => line(out, b':', itoa(*n).as_bytes()),
            Frame::Bulk(b) => bulk(out, b),
            Frame::Null if resp3 => out.extend_from_slice(b"_\r\n"),
            Frame::Null => out.extend_from_slice(b"$-1\r\n"),
            Frame::NullArray if resp3 => out.extend_from_slice(b"_\r\n"),
            Frame::NullArray => out.extend_from_slice(b"*-1\r\n"),
            Frame::Array(items) => {
                line(out, b'*', itoa(items.len() as i64).as_bytes());
                items.iter().for_each(|f| f.encode(proto, out));
            }
            Frame::Set(items) => {
                let tag = if resp3 { b'~' } else { b'*' };
                line(out, tag, itoa(items.len() as i64).as_bytes());
                items.iter().for_each(|f| f.encode(proto, out));
            }
            Frame::Push(items) => {
                let tag = if resp3 { b'>' } else { b'*' };
                line(out, tag, itoa(items.len() as i64).as_bytes());
                items.iter().for_each(|f| f.encode(proto, out));
            }
            Frame::Attribute(pairs) => {
                if resp3 {
                    line(out, b'|', itoa(pairs.len() as i64).as_bytes());
                    for (k, v) in pairs {
                        k.encode(proto, out);
                        v.encode(proto, out);
                    }
                }
            }
            Frame::Map(pairs) => {
                if resp3 {
                    line(out, b'%', itoa(pairs.len() as i64).as_bytes());
                } else {
                    line(out, b'*', itoa(pairs.len() as i64 * 2).as_bytes());
                }
                for (k, v) in pairs {
                    k.encode(proto, out);
                    v.encode(proto, out);
                }
            }
            Frame::Double(d) => {
                let s = fmt_double(*d);
                if resp3 {
                    line(out, b',', s.as_bytes());
                } else {
                    bulk(out, s.as_bytes());
                }
            }
            Frame::Boolean(b) => {
                if resp3 {
                    out.extend_from_slice(if *b { b"#t\r\n" } else { b"#f\r\n" });
                } else {
                    out.extend_from_slice(if *b { b":1\r\n" } else { b":0\r\n" });
                }
            }
            Frame::BigNumber(s) => {
                if resp3 {
                    line(out, b'(', s.as_bytes());
                } else {
                    bulk(out, s.as_bytes());
                }
            }
            Frame::Verbatim(fmt, text) => {
                if resp3 {
                    let mut body = Vec::with_capacity(text.len() + 4);
                    body.extend_from_slice(fmt);
                    body.push(b':');
                    body.extend_from_slice(text);
                    line(out, b'=', itoa(body.len() as i64).as_bytes());
                    out.extend_from_slice(&body);
                    out.extend_from_slice(b"\r\n");
                } else {
                    bulk(out, text);
                }
            }
        }
    }

    /// The frame as bytes for `proto`.
    pub fn to_bytes(&self, proto: u8) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(proto, &mut out);
        out
    }
}

/// A status or error line as sent: a CR or LF inside would end it early and
/// desynchronise the client, so they go out as spaces whatever built the frame.
fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\r', '\n']) {
        std::borrow::Cow::Owned(s.replace(['\r', '\n'], " "))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

fn line(out: &mut Vec<u8>, tag: u8, body: &[u8]) {
    out.push(tag);
    out.extend_from_slice(body);
    out.extend_from_slice(b"\r\n");
}

fn bulk(out: &mut Vec<u8>, b: &[u8]) {
    line(out, b'$', itoa(b.len() as i64).as_bytes());
    out.extend_from_slice(b);
    out.extend_from_slice(b"\r\n");
}

fn itoa(n: i64) -> String {
    n.to_string()
}

/// Formats a double as Redis 7.2 replies it (`d2string`): integers within
/// ±2^62 in full, otherwise fpconv's grisu2 digits (`1.1`, `1e-7`,
/// `1.23456e-4`, `1e+300`), and `inf` / `-inf` / `nan` / `-0`.
pub fn fmt_double(d: f64) -> String {
    crate::num::double::d2string(d)
}

/// A protocol error: Redis replies with it and then closes the connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError(pub String);

impl ProtocolError {
    /// The error reply Redis sends before closing.
    pub fn to_frame(&self) -> Frame {
        Frame::Error(format!("ERR {}", self.0))
    }
}

/// A parsed request: its arguments, and how many bytes of the buffer it used.
/// An empty `args` (from `*0`, `*-1` or a blank inline line) is skipped by the
/// caller, as Redis does.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    pub args: Vec<Vec<u8>>,
    pub consumed: usize,
}

/// Parses one request from the front of `buf`, in multibulk or inline form.
/// `Ok(None)` means more bytes are needed. `max_bulk` is `proto-max-bulk-len`.
pub fn parse_request(buf: &[u8], max_bulk: i64) -> Result<Option<Request>, ProtocolError> {
    if buf.is_empty() {
        return Ok(None);
    }
    if buf[0] == b'*' {
        parse_multibulk(buf, max_bulk)
    } else {
        parse_inline(buf)
    }
}

fn find_crlf(buf: &[u8], from: usize) -> Option<usize> {
    buf.get(from..)?
        .iter()
        .position(|&b| b == b'\r')
        .map(|p| p + from)
}

fn parse_multibulk(buf: &[u8], max_bulk: i64) -> Result<Option<Request>, ProtocolError> {
    let Some(cr) = find_crlf(buf, 0) else {
        if buf.len() > PROTO_INLINE_MAX_SIZE {
            return Err(ProtocolError(
                "Protocol error: too big mbulk count string".into(),
            ));
        }
        return Ok(None);
    };
    if cr > PROTO_INLINE_MAX_SIZE {
        return Err(ProtocolError(
            "Protocol error: too big mbulk count string".into(),
        ));
    }
    if buf.len() < cr + 2 {
        return Ok(None);
    }
    let count = match parse_i64(&buf[1..cr]) {
        Some(n) if n <= i32::MAX as i64 => n,
        _ => {
            return Err(ProtocolError(
                "Protocol error: invalid multibulk length".into(),
            ))
        }
    };
    let mut pos = cr + 2;
    if count <= 0 {
        return Ok(Some(Request {
            args: Vec::new(),
            consumed: pos,
        }));
    }
    // Redis caps the preallocation, not the count; so do we.
    let mut args = Vec::with_capacity((count as usize).min(1024));
    for _ in 0..count {
        if pos >= buf.len() {
            return Ok(None);
        }
        let Some(cr) = find_crlf(buf, pos) else {
            if buf.len() - pos > PROTO_INLINE_MAX_SIZE {
                return Err(ProtocolError(
                    "Protocol error: too big bulk count string".into(),
                ));
            }
            return Ok(None);
        };
        if cr - pos > PROTO_INLINE_MAX_SIZE {
            return Err(ProtocolError(
                "Protocol error: too big bulk count string".into(),
            ));
        }
        if buf[pos] != b'$' {
            return Err(ProtocolError(format!(
                "Protocol error: expected '$', got '{}'",
                buf[pos] as char
            )));
        }
        if buf.len() < cr + 2 {
            return Ok(None);
        }
        let len = match parse_i64(&buf[pos + 1..cr]) {
            Some(n) if n >= 0 && n <= max_bulk => n as usize,
            _ => return Err(ProtocolError("Protocol error: invalid bulk length".into())),
        };
        let start = cr + 2;
        if buf.len() < start + len + 2 {
            return Ok(None);
        }
        args.push(buf[start..start + len].to_vec());
        pos = start + len + 2;
    }
    Ok(Some(Request {
        args,
        consumed: pos,
    }))
}

fn parse_inline(buf: &[u8]) -> Result<Option<Request>, ProtocolError> {
    // Redis finds the newline with `strchr`, which stops at a NUL byte: a
    // line with a NUL before its newline never completes (until it is too big).
    let nl = buf
        .iter()
        .position(|&b| b == b'\n' || b == 0)
        .filter(|&p| buf[p] == b'\n');
    let Some(nl) = nl else {
        if buf.len() > PROTO_INLINE_MAX_SIZE {
            return Err(ProtocolError(
                "Protocol error: too big inline request".into(),
            ));
        }
        return Ok(None);
    };
    let mut line = &buf[..nl];
    if line.last() == Some(&b'\r') {
        line = &line[..line.len() - 1];
    }
    let args = split_args(line)
        .ok_or_else(|| ProtocolError("Protocol error: unbalanced quotes in request".into()))?;
    Ok(Some(Request {
        args,
        consumed: nl + 1,
    }))
}

/// Splits a line into arguments the way redis-cli and inline commands do
/// (`sdssplitargs`): blanks separate, `"..."` understands `\n \r \t \b \a \\ \"`
/// and `\xHH`, `'...'` only `\'`. A closing quote must be followed by a blank.
/// `None` for unbalanced quotes.
pub fn split_args(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut args = Vec::new();
    let mut i = 0;
    // `sdssplitargs` reads a C string: a NUL byte ends the input.
    let n = line.iter().position(|&b| b == 0).unwrap_or(line.len());
    loop {
        while i < n && is_c_space(line[i]) {
            i += 1;
        }
        if i >= n {
            return Some(args);
        }
        let mut cur = Vec::new();
        // The quote the argument is inside, if any.
        let mut quote: Option<u8> = None;
        loop {
            if let Some(q) = quote {
                if i >= n {
                    return None;
                }
                let escape = match line[i] {
                    b'\\' => unescape(&line[i..n], q),
                    _ => None,
                };
                if let Some((byte, len)) = escape {
                    cur.push(byte);
                    i += len - 1;
                } else if line[i] == q {
                    if i + 1 < n && !is_c_space(line[i + 1]) {
                        return None;
                    }
                    i += 1;
                    break;
                } else {
                    cur.push(line[i]);
                }
            } else {
                if i >= n {
                    break;
                }
                match line[i] {
                    b' ' | b'\n' | b'\r' | b'\t' | 0 => break,
                    q @ (b'"' | b'\'') => quote = Some(q),
                    c => cur.push(c),
                }
            }
            i += 1;
        }
        args.push(cur);
    }
}

/// An escape at the start of `s` (a backslash) inside a `quote`d argument:
/// the byte it stands for and its length. Double quotes know `\xHH` and C's
/// letter escapes (any other byte stands for itself), single quotes only `\'`.
fn unescape(s: &[u8], quote: u8) -> Option<(u8, usize)> {
    match (quote, s) {
        (b'"', [b'\\', b'x', h, l, ..]) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
            Some((hex(*h) * 16 + hex(*l), 4))
        }
        (b'"', [b'\\', c, ..]) => {
            let byte = match c {
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'b' => 8,
                b'a' => 7,
                c => *c,
            };
            Some((byte, 2))
        }
        (b'\'', [b'\\', b'\'', ..]) => Some((b'\'', 2)),
        _ => None,
    }
}

/// C's `isspace`: unlike `is_ascii_whitespace`, it includes the vertical tab.
fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn hex(c: u8) -> u8 {
    (c as char).to_digit(16).unwrap_or(0) as u8
}

/// Parses a signed 64-bit integer exactly as Redis' `string2ll`: no spaces,
/// no `+`, no leading zeros, within range.
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    if s == b"0" {
        return Some(0);
    }
    let (neg, digits) = match s[0] {
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || digits[0] == b'0' {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    if neg {
        if v > i64::MAX as u64 + 1 {
            None
        } else {
            Some((v as i64).wrapping_neg())
        }
    } else if v > i64::MAX as u64 {
        None
    } else {
        Some(v as i64)
    }
}

/// Parses one reply frame (RESP2 or RESP3) from the front of `buf`, for
/// clients and tests. `Ok(None)` means more bytes are needed.
pub fn parse_frame(buf: &[u8]) -> Result<Option<(Frame, usize)>, String> {
    let Some(cr) = find_crlf(buf, 0) else {
        return Ok(None);
    };
    if buf.len() < cr + 2 {
        return Ok(None);
    }
    let head = &buf[1..cr];
    let text = || String::from_utf8_lossy(head).into_owned();
    let num = || -> Result<i64, String> {
        std::str::from_utf8(head)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("bad number {:?}", String::from_utf8_lossy(head)))
    };
    let mut pos = cr + 2;
    let frame = match buf[0] {
        b'+' => Frame::simple(text()),
        b'-' => Frame::Error(text()),
        b':' => Frame::Integer(num()?),
        b'_' => Frame::Null,
        b'#' => Frame::Boolean(head == b"t"),
        b',' => Frame::Double(match head {
            b"inf" => f64::INFINITY,
            b"-inf" => f64::NEG_INFINITY,
            _ => text().parse().map_err(|_| "bad double".to_string())?,
        }),
        b'(' => Frame::BigNumber(text()),
        b'$' | b'=' => {
            let n = num()?;
            if n < 0 {
                return Ok(Some((Frame::Null, pos)));
            }
            let n = n as usize;
            if buf.len() < pos + n + 2 {
                return Ok(None);
            }
            let body = buf[pos..pos + n].to_vec();
            pos += n + 2;
            if buf[0] == b'=' && body.len() >= 4 {
                Frame::Verbatim([body[0], body[1], body[2]], body[4..].to_vec())
            } else {
                Frame::Bulk(body)
            }
        }
        b'*' | b'~' | b'>' | b'%' | b'|' => {
            let n = num()?;
            if n < 0 {
                return Ok(Some((Frame::NullArray, pos)));
            }
            let count = if matches!(buf[0], b'%' | b'|') {
                n * 2
            } else {
                n
            } as usize;
            let mut items = Vec::with_capacity(count.min(4096));
            for _ in 0..count {
                match parse_frame(&buf[pos..])? {
                    Some((f, used)) => {
                        items.push(f);
                        pos += used;
                    }
                    None => return Ok(None),
                }
            }
            match buf[0] {
                b'*' => Frame::Array(items),
                b'~' => Frame::Set(items),
                b'>' => Frame::Push(items),
                tag => {
                    let mut pairs = Vec::with_capacity(items.len() / 2);
                    let mut it = items.into_iter();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        pairs.push((k, v));
                    }
                    if tag == b'|' {
                        Frame::Attribute(pairs)
                    } else {
                        Frame::Map(pairs)
                    }
                }
            }
        }
        other => return Err(format!("unknown reply type byte {:?}", other as char)),
    };
    Ok(Some((frame, pos)))
}

/// Encodes a command as a RESP multibulk request.
pub fn encode_request(args: &[impl AsRef<[u8]>]) -> Vec<u8> {
    let mut out = Vec::new();
    push_request(&mut out, args);
    out
}

/// Appends a command as a RESP multibulk request to `out`: what a server
/// sends as a client (MIGRATE's AUTH and SELECT) or as a master (the
/// replication stream).
pub fn push_request(out: &mut Vec<u8>, args: &[impl AsRef<[u8]>]) {
    line(out, b'*', itoa(args.len() as i64).as_bytes());
    for a in args {
        bulk(out, a.as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    /// Every command's reply moves through dispatch by value: keep it to a
    /// `Vec` and a tag.
    #[test]
    fn frames_stay_small() {
        assert!(
            std::mem::size_of::<Frame>() <= 32,
            "{}",
            std::mem::size_of::<Frame>()
        );
    }

    #[test]
    fn multibulk_and_partial_input() {
        let req = b"*2\r\n$3\r\nGET\r\n$1\r\na\r\n";
        for cut in 0..req.len() {
            assert_eq!(parse_request(&req[..cut], PROTO_MAX_BULK_LEN), Ok(None));
        }
        let r = parse_request(req, PROTO_MAX_BULK_LEN).unwrap().unwrap();
        assert_eq!(r.args, args(&["GET", "a"]));
        assert_eq!(r.consumed, req.len());
    }

    #[test]
    fn inline_commands_and_quotes() {
        let r = parse_request(b"PING\r\n", PROTO_MAX_BULK_LEN)
            .unwrap()
            .unwrap();
        assert_eq!(r.args, args(&["PING"]));
        let r = parse_request(b"set k \"a b\\x41\" 'c\\'d'\n", PROTO_MAX_BULK_LEN)
            .unwrap()
            .unwrap();
        assert_eq!(r.args, args(&["set", "k", "a bA", "c'd"]));
        assert_eq!(
            parse_request(b"set \"abc\r\n", PROTO_MAX_BULK_LEN),
            Err(ProtocolError(
                "Protocol error: unbalanced quotes in request".into()
            ))
        );
        assert_eq!(split_args(b"\"a\"b"), None);
    }

    #[test]
    fn protocol_errors_match_redis() {
        let e = |b: &[u8]| parse_request(b, PROTO_MAX_BULK_LEN).unwrap_err().0;
        assert_eq!(e(b"*x\r\n"), "Protocol error: invalid multibulk length");
        assert_eq!(e(b"*1\r\n:1\r\n"), "Protocol error: expected '$', got ':'");
        assert_eq!(e(b"*1\r\n$-5\r\n"), "Protocol error: invalid bulk length");
        assert_eq!(
            e(&vec![b'a'; 70_000]),
            "Protocol error: too big inline request"
        );
    }

    #[test]
    fn resp2_downgrades_resp3_types() {
        let m = Frame::Map(vec![(Frame::bulk("a"), Frame::Double(1.5))]);
        assert_eq!(m.to_bytes(2), b"*2\r\n$1\r\na\r\n$3\r\n1.5\r\n");
        assert_eq!(m.to_bytes(3), b"%1\r\n$1\r\na\r\n,1.5\r\n");
        assert_eq!(Frame::Null.to_bytes(2), b"$-1\r\n");
        assert_eq!(Frame::NullArray.to_bytes(2), b"*-1\r\n");
        assert_eq!(Frame::NullArray.to_bytes(3), b"_\r\n");
    }

    #[test]
    fn reply_parser_round_trips() {
        let f = Frame::Array(vec![
            Frame::Integer(-2),
            Frame::Null,
            Frame::bulk("x"),
            Frame::Error("ERR no".into()),
        ]);
        let bytes = f.to_bytes(2);
        assert_eq!(parse_frame(&bytes).unwrap(), Some((f, bytes.len())));
    }

    #[test]
    fn doubles_format_like_redis() {
        // Redis 7.2 replies (7.0 printed "%.17g": 1e+17, 1.0000000000000001e-05).
        let printed = [
            1.5,
            100.0,
            1e17,
            1e-4,
            1e-5,
            1e-7,
            -2.5e-10,
            5e18,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        assert_eq!(
            printed.map(fmt_double),
            [
                "1.5",
                "100",
                "100000000000000000",
                "0.0001",
                "0.00001",
                "1e-7",
                "-2.5e-10",
                "5e+18",
                "-0",
                "inf",
                "-inf",
            ]
        );
        assert_eq!(Frame::Double(1.1).to_bytes(3), b",1.1\r\n");
        assert_eq!(Frame::Double(1.1).to_bytes(2), b"$3\r\n1.1\r\n");
    }

    #[test]
    fn string2ll_rules() {
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        // Past the range, and what strtoll would take but is not canonical.
        for bad in [&b"9223372036854775808"[..], b"01", b"+1", b" 1", b"-0"] {
            assert_eq!(parse_i64(bad), None, "{bad:?}");
        }
    }
}
