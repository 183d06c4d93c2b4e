//! A cheap, incremental "is the pending request complete yet?" check, so a large multibulk request arriving over many reads is parsed once instead of once per read.
//!
//! `resp::parse_request` is the authority on requests and errors, but it
//! starts from the first byte each time and copies every argument it has
//! seen: an `MSET` with a million arguments arriving in 64 KiB reads would
//! be re-parsed (and re-copied) hundreds of times. [`RequestScan`] remembers
//! how far the headers have been validated and only says [`Scan::NeedMore`]
//! when `parse_request` would certainly return `Ok(None)` too; anything
//! unusual (inline requests, a bad header, an over-long line) is left to the
//! parser, which then gives Redis' exact error.

use redsim_engine::proto::resp::{parse_i64, PROTO_INLINE_MAX_SIZE};

/// What to do with the buffered bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// Call `parse_request`: the request may be complete, or malformed.
    Parse,
    /// The request is certainly incomplete: wait for more bytes.
    NeedMore,
}

/// Progress through the multibulk request at the front of the buffer.
/// Positions are relative to the start of that request; call
/// [`RequestScan::reset`] whenever a request is consumed.
#[derive(Clone, Debug, Default)]
pub struct RequestScan {
    /// Arguments still to validate, once the `*<count>` header was read.
    remaining: Option<i64>,
    /// Where the next unvalidated `$<len>` header starts.
    pos: usize,
}

impl RequestScan {
    /// Forgets the progress, for the next request.
    pub fn reset(&mut self) {
        *self = RequestScan::default();
    }

    /// Looks at `buf` (the pending request and whatever follows; it only
    /// grows between calls) and says whether parsing could succeed or fail.
    pub fn check(&mut self, buf: &[u8], max_bulk: i64) -> Scan {
        match buf.first() {
            None => return Scan::NeedMore,
            Some(b'*') => {}
            Some(_) => return Scan::Parse,
        }
        let remaining = match self.remaining {
            Some(n) => n,
            None => {
                let Some(cr) = find_cr(buf, 0) else {
                    return need_line(buf.len());
                };
                if cr > PROTO_INLINE_MAX_SIZE {
                    return Scan::Parse;
                }
                if buf.len() < cr + 2 {
                    return Scan::NeedMore;
                }
                match parse_i64(&buf[1..cr]) {
                    Some(n) if n > 0 && n <= i32::MAX as i64 => {
                        self.pos = cr + 2;
                        self.remaining = Some(n);
                        n
                    }
                    _ => return Scan::Parse,
                }
            }
        };
        let mut remaining = remaining;
        while remaining > 0 {
            let pos = self.pos;
            let Some(&first) = buf.get(pos) else {
                return Scan::NeedMore;
            };
            if first != b'$' {
                return Scan::Parse;
            }
            let Some(cr) = find_cr(buf, pos) else {
                return need_line(buf.len() - pos);
            };
            if cr - pos > PROTO_INLINE_MAX_SIZE {
                return Scan::Parse;
            }
            if buf.len() < cr + 2 {
                return Scan::NeedMore;
            }
            let len = match parse_i64(&buf[pos + 1..cr]) {
                Some(n) if n >= 0 && n <= max_bulk => n as usize,
                _ => return Scan::Parse,
            };
            let end = cr + 2 + len + 2;
            if buf.len() < end {
                return Scan::NeedMore;
            }
            self.pos = end;
            remaining -= 1;
            self.remaining = Some(remaining);
        }
        Scan::Parse
    }
}

/// An unterminated header line: the parser only objects once it is too long.
fn need_line(len: usize) -> Scan {
    if len > PROTO_INLINE_MAX_SIZE {
        Scan::Parse
    } else {
        Scan::NeedMore
    }
}

/// The first `\r` at or after `from`, as the request parser looks for it.
fn find_cr(buf: &[u8], from: usize) -> Option<usize> {
    buf.get(from..)?
        .iter()
        .position(|&b| b == b'\r')
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_engine::proto::resp::{encode_request, parse_request, PROTO_MAX_BULK_LEN};

    #[test]
    fn every_prefix_of_a_request_needs_more_and_the_whole_parses() {
        let req = encode_request(&[&b"SET"[..], b"key", &vec![b'x'; 1000]]);
        let mut scan = RequestScan::default();
        for cut in 0..req.len() {
            assert_eq!(
                scan.check(&req[..cut], PROTO_MAX_BULK_LEN),
                Scan::NeedMore,
                "cut {cut}"
            );
            assert_eq!(parse_request(&req[..cut], PROTO_MAX_BULK_LEN), Ok(None));
        }
        assert_eq!(scan.check(&req, PROTO_MAX_BULK_LEN), Scan::Parse);
    }

    #[test]
    fn malformed_headers_are_left_to_the_parser() {
        for bad in [
            &b"*x\r\n"[..],
            b"*1\r\n:1\r\n",
            b"*1\r\n$-5\r\n",
            b"*0\r\n",
            b"PING\r\n",
        ] {
            assert_eq!(
                RequestScan::default().check(bad, PROTO_MAX_BULK_LEN),
                Scan::Parse
            );
        }
        let long = [
            b"*1\r\n$".as_slice(),
            &vec![b'1'; PROTO_INLINE_MAX_SIZE + 1],
        ]
        .concat();
        assert_eq!(
            RequestScan::default().check(&long, PROTO_MAX_BULK_LEN),
            Scan::Parse
        );
        assert_eq!(
            RequestScan::default().check(b"*1\r\n$2000000\r\n", 1024 * 1024),
            Scan::Parse
        );
    }
}
