//! Properties of the RESP codec: the request parser never panics or over-reads on any bytes, valid requests round-trip, the server's completeness pre-check never contradicts the parser, and reply frames survive encode/parse in RESP2 and RESP3.

use proptest::collection::vec;
use proptest::prelude::*;
use redsim_cli::framing::{RequestScan, Scan};
use redsim_engine::proto::resp::{
    encode_request, parse_frame, parse_request, split_args, Frame, PROTO_MAX_BULK_LEN,
};
use redsim_tests::as_resp2;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Bytes that look like requests often enough to reach every branch of the
/// parser: headers, lengths of every sign and size, quotes, escapes.
fn resp_like() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(&b"*"[..]),
        Just(&b"$"[..]),
        Just(&b"\r\n"[..]),
        Just(&b"\r"[..]),
        Just(&b"\n"[..]),
        Just(&b"0"[..]),
        Just(&b"1"[..]),
        Just(&b"2"[..]),
        Just(&b"3"[..]),
        Just(&b"-1"[..]),
        Just(&b"-5"[..]),
        Just(&b"01"[..]),
        Just(&b"3000000000"[..]),
        Just(&b"99999999999999999999"[..]),
        Just(&b"abc"[..]),
        Just(&b"PING"[..]),
        Just(&b" "[..]),
        Just(&b"\t"[..]),
        Just(&b"\""[..]),
        Just(&b"'"[..]),
        Just(&b"\\"[..]),
        Just(&b"\\x41"[..]),
        Just(&b"\\x4"[..]),
        Just(&b"\\'"[..]),
        Just(&b":"[..]),
        Just(&b"\0"[..]),
    ];
    vec(token, 0..40).prop_map(|ts| ts.concat())
}

fn any_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![vec(any::<u8>(), 0..200), resp_like()]
}

/// Checks what every parse must satisfy, and returns the outcome.
fn check_parse(buf: &[u8], max_bulk: i64) -> Result<(), TestCaseError> {
    match parse_request(buf, max_bulk) {
        Ok(Some(req)) => {
            prop_assert!(req.consumed > 0, "a request consumes bytes");
            prop_assert!(
                req.consumed <= buf.len(),
                "consumed {} of {}",
                req.consumed,
                buf.len()
            );
            // A request is self-delimiting: the bytes after it change nothing,
            // and every strict prefix of it is incomplete.
            let alone = parse_request(&buf[..req.consumed], max_bulk);
            prop_assert_eq!(alone, Ok(Some(req.clone_req())));
            for cut in 0..req.consumed {
                prop_assert_eq!(
                    parse_request(&buf[..cut], max_bulk),
                    Ok(None),
                    "prefix {}",
                    cut
                );
            }
        }
        Ok(None) => {
            // Incomplete: no prefix may be complete either.
            for cut in 0..buf.len() {
                prop_assert!(
                    matches!(parse_request(&buf[..cut], max_bulk), Ok(None)),
                    "prefix {} of an incomplete request parsed",
                    cut
                );
            }
        }
        Err(e) => {
            prop_assert!(e.0.starts_with("Protocol error: "), "{}", e.0);
            prop_assert!(!e.to_frame().to_bytes(2).is_empty());
        }
    }
    Ok(())
}

/// `Request` is not `Clone`; rebuild it for comparisons.
trait CloneReq {
    fn clone_req(&self) -> redsim_engine::proto::resp::Request;
}

impl CloneReq for redsim_engine::proto::resp::Request {
    fn clone_req(&self) -> redsim_engine::proto::resp::Request {
        redsim_engine::proto::resp::Request {
            args: self.args.clone(),
            consumed: self.consumed,
        }
    }
}

/// Feeds `buf` one growing prefix at a time to one scanner: whenever it says
/// "need more", the parser must agree.
fn check_scan(buf: &[u8], max_bulk: i64) -> Result<(), TestCaseError> {
    let mut scan = RequestScan::default();
    for cut in 0..=buf.len() {
        if scan.check(&buf[..cut], max_bulk) == Scan::NeedMore {
            prop_assert_eq!(
                parse_request(&buf[..cut], max_bulk),
                Ok(None),
                "scanner said incomplete at {}",
                cut
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn parser_never_panics_nor_over_reads(buf in any_input(), small in any::<bool>()) {
        let max_bulk = if small { 4 } else { PROTO_MAX_BULK_LEN };
        check_parse(&buf, max_bulk)?;
    }

    #[test]
    fn scanner_never_contradicts_the_parser(buf in any_input(), small in any::<bool>()) {
        let max_bulk = if small { 4 } else { PROTO_MAX_BULK_LEN };
        check_scan(&buf, max_bulk)?;
    }

    #[test]
    fn encoded_requests_round_trip(
        args in vec(vec(any::<u8>(), 0..24), 1..8),
        trailing in any_input(),
    ) {
        let req = encode_request(&args);
        let mut buf = req.clone();
        buf.extend_from_slice(&trailing);
        let parsed = parse_request(&buf, PROTO_MAX_BULK_LEN).unwrap().unwrap();
        prop_assert_eq!(&parsed.args, &args);
        prop_assert_eq!(parsed.consumed, req.len());
        check_parse(&req, PROTO_MAX_BULK_LEN)?;
        // The scanner waits on every prefix, then lets the whole through.
        let mut scan = RequestScan::default();
        for cut in 0..req.len() {
            prop_assert_eq!(scan.check(&req[..cut], PROTO_MAX_BULK_LEN), Scan::NeedMore);
        }
        prop_assert_eq!(scan.check(&req, PROTO_MAX_BULK_LEN), Scan::Parse);
    }

    #[test]
    fn bulk_lengths_are_checked_against_proto_max_bulk_len(len in 0usize..40, max in 0i64..40) {
        let req = encode_request(&[vec![b'x'; len]]);
        let got = parse_request(&req, max);
        if len as i64 <= max {
            prop_assert_eq!(got.unwrap().unwrap().args, vec![vec![b'x'; len]]);
        } else {
            prop_assert_eq!(got.unwrap_err().0, "Protocol error: invalid bulk length");
        }
    }

    #[test]
    fn inline_words_round_trip(
        // A first byte of `*` would make it a multibulk request.
        words in vec("[a-zA-Z0-9_:.-][a-zA-Z0-9_:.*-]{0,9}", 1..8),
        seps in vec(prop_oneof![Just(" "), Just("  "), Just("\t")], 8),
        crlf in any::<bool>(),
    ) {
        let mut line = String::new();
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                line.push_str(seps[i % seps.len()]);
            }
            line.push_str(w);
        }
        line.push_str(if crlf { "\r\n" } else { "\n" });
        let parsed = parse_request(line.as_bytes(), PROTO_MAX_BULK_LEN).unwrap().unwrap();
        let want: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
        prop_assert_eq!(parsed.args, want);
        prop_assert_eq!(parsed.consumed, line.len());
    }

    #[test]
    fn quoted_inline_arguments_carry_any_bytes(args in vec(vec(any::<u8>(), 0..16), 1..5)) {
        // Double quotes with every byte as \xHH; single quotes where possible.
        let mut line = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                line.push(b' ');
            }
            // Raw bytes in single quotes, except what would end the quote or the line.
            let plain = !a.iter().any(|&b| matches!(b, b'\'' | b'\\' | b'\n' | 0));
            if i % 2 == 1 && plain {
                line.push(b'\'');
                line.extend_from_slice(a);
                line.push(b'\'');
            } else {
                line.push(b'"');
                for b in a {
                    line.extend_from_slice(format!("\\x{b:02x}").as_bytes());
                }
                line.push(b'"');
            }
        }
        line.extend_from_slice(b"\r\n");
        let parsed = parse_request(&line, PROTO_MAX_BULK_LEN).unwrap().unwrap();
        prop_assert_eq!(parsed.args, args);
    }
}

/// Any reply frame, nested a few levels.
fn frame() -> impl Strategy<Value = Frame> {
    let leaf = prop_oneof![
        "[^\r\n]{0,16}".prop_map(Frame::simple),
        "[A-Z]{1,9} [^\r\n]{0,16}".prop_map(Frame::Error),
        any::<i64>().prop_map(Frame::Integer),
        vec(any::<u8>(), 0..24).prop_map(Frame::Bulk),
        Just(Frame::Null),
        Just(Frame::NullArray),
        any::<f64>()
            .prop_filter("NaN never equals itself", |d| !d.is_nan())
            .prop_map(Frame::Double),
        prop_oneof![
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(-0.0),
            Just(1e17)
        ]
        .prop_map(Frame::Double),
        any::<bool>().prop_map(Frame::Boolean),
        "-?[1-9][0-9]{0,40}".prop_map(Frame::BigNumber),
        ("txt|mkd", vec(any::<u8>(), 0..24)).prop_map(|(f, t)| {
            let f = f.as_bytes();
            Frame::Verbatim([f[0], f[1], f[2]], t)
        }),
    ];
    leaf.prop_recursive(3, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Frame::Array),
            vec((inner.clone(), inner.clone()), 0..4).prop_map(Frame::Map),
            vec(inner.clone(), 0..6).prop_map(Frame::Set),
            vec(inner, 0..6).prop_map(Frame::Push),
        ]
    })
}

/// What a RESP3 client reads back: both nulls are `_`.
fn as_resp3(f: &Frame) -> Frame {
    match f {
        Frame::NullArray => Frame::Null,
        Frame::Array(v) => Frame::Array(v.iter().map(as_resp3).collect()),
        Frame::Set(v) => Frame::Set(v.iter().map(as_resp3).collect()),
        Frame::Push(v) => Frame::Push(v.iter().map(as_resp3).collect()),
        Frame::Map(p) => Frame::Map(p.iter().map(|(k, v)| (as_resp3(k), as_resp3(v))).collect()),
        other => other.clone(),
    }
}

/// `f` written in RESP `proto` and parsed back, which must take all of
/// it: (the bytes, the frame read).
fn written_and_read(f: &Frame, proto: u8) -> Result<(Vec<u8>, Frame), TestCaseError> {
    let bytes = f.to_bytes(proto);
    let (back, used) = parse_frame(&bytes).unwrap().unwrap();
    prop_assert_eq!(used, bytes.len());
    Ok((bytes, back))
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn status_and_error_lines_never_break_the_protocol(s in "\\PC*|[a-z\r\n ]{0,12}") {
        // Whatever text a command puts in a status or error, it goes out as
        // one line, and errors built with `Frame::err` carry no CR/LF at all.
        for f in [Frame::simple(s.clone()), Frame::Error(s.clone()), Frame::err(s.clone())] {
            for proto in [2, 3] {
                written_and_read(&f, proto)?;
            }
        }
        let Frame::Error(msg) = Frame::err(s.clone()) else { unreachable!() };
        prop_assert!(!msg.contains(['\r', '\n']));
        prop_assert_eq!(msg.len(), s.len());
    }

    #[test]
    fn frames_round_trip_in_resp3(f in frame()) {
        let (bytes, back) = written_and_read(&f, 3)?;
        prop_assert_eq!(back, as_resp3(&f));
        // Cut anywhere, it is incomplete, never misread.
        for cut in 0..bytes.len() {
            prop_assert_eq!(parse_frame(&bytes[..cut]), Ok(None));
        }
    }

    #[test]
    fn frames_downgrade_for_resp2(f in frame()) {
        let (bytes, back) = written_and_read(&f, 2)?;
        prop_assert_eq!(back, as_resp2(&f));
        // RESP2 has none of RESP3's type bytes, at any depth.
        let mut types = Vec::new();
        prop_assert_eq!(type_bytes(&bytes, &mut types), bytes.len());
        prop_assert!(types.iter().all(|t| b"+-:$*".contains(t)), "{:?}", String::from_utf8_lossy(&types));
    }
}

/// The type byte of every frame in `buf` (which holds one well-formed frame),
/// nested ones included; returns the frame's length.
fn type_bytes(buf: &[u8], types: &mut Vec<u8>) -> usize {
    types.push(buf[0]);
    let cr = buf.iter().position(|&b| b == b'\r').expect("header line");
    let n: i64 = std::str::from_utf8(&buf[1..cr])
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut pos = cr + 2;
    match buf[0] {
        b'$' | b'=' if n >= 0 => pos += n as usize + 2,
        b'*' | b'~' | b'>' | b'%' if n > 0 => {
            let children = if buf[0] == b'%' { 2 * n } else { n };
            for _ in 0..children {
                pos += type_bytes(&buf[pos..], types);
            }
        }
        _ => {}
    }
    pos
}

/// Regressions the properties found: a NUL byte in an inline line made the
/// splitter loop forever (pushing empty arguments until memory ran out).
#[test]
fn inline_nul_bytes_behave_like_c_strings() {
    let words = |v: &[&str]| -> Option<Vec<Vec<u8>>> {
        Some(v.iter().map(|s| s.as_bytes().to_vec()).collect())
    };
    // `strchr` stops at the NUL: the newline after it is never seen.
    assert_eq!(parse_request(b"PING\0\r\n", PROTO_MAX_BULK_LEN), Ok(None));
    assert_eq!(
        parse_request(b"PING\r\nx\0", PROTO_MAX_BULK_LEN)
            .unwrap()
            .unwrap()
            .args,
        words(&["PING"]).unwrap()
    );
    // `sdssplitargs` reads up to the NUL.
    assert_eq!(split_args(b"SET a\0b c"), words(&["SET", "a"]));
    assert_eq!(split_args(b"\0SET"), words(&[]));
    assert_eq!(split_args(b"\"a\0\""), None);
    // C's isspace includes the vertical tab between arguments, not inside one.
    assert_eq!(split_args(b"\x0bPING\x0bx"), words(&["PING\x0bx"]));
    assert_eq!(split_args(b"\"a\"\x0bb"), words(&["a", "b"]));
}
