//! The framing of DUMP and FUNCTION DUMP payloads (rdb.c, cluster.c's `verifyDumpPayload`): RDB-encoded body, the RDB version in two bytes and a CRC64 (Jones) in eight, both little-endian.

use crc::{Crc, CRC_64_REDIS};

/// `RDB_VERSION` of Redis 7.2.
pub const RDB_VERSION: u16 = 11;
/// `RDB_OPCODE_FUNCTION2`: one library follows (its code as a string).
pub const OPCODE_FUNCTION2: u8 = 245;
/// `RDB_OPCODE_FUNCTION_PRE_GA`: 7.0's release candidates' format.
pub const OPCODE_FUNCTION_PRE_GA: u8 = 246;

const CRC64: Crc<u64> = Crc::<u64>::new(&CRC_64_REDIS);

/// Appends the version and checksum to an RDB-encoded body.
pub fn seal(mut body: Vec<u8>) -> Vec<u8> {
    body.extend_from_slice(&RDB_VERSION.to_le_bytes());
    let crc = CRC64.checksum(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    body
}

/// `verifyDumpPayload`: the body if the footer's version is one this
/// server reads and the checksum matches.
pub fn open(payload: &[u8]) -> Option<&[u8]> {
    if payload.len() < 10 {
        return None;
    }
    let (rest, crc) = payload.split_at(payload.len() - 8);
    let version = u16::from_le_bytes([rest[rest.len() - 2], rest[rest.len() - 1]]);
    if version > RDB_VERSION {
        return None;
    }
    if CRC64.checksum(rest).to_le_bytes() != crc {
        return None;
    }
    Some(&rest[..rest.len() - 2])
}

/// `rdbSaveLen`.
pub fn put_len(out: &mut Vec<u8>, len: u64) {
    if len < 1 << 6 {
        out.push(len as u8);
    } else if len < 1 << 14 {
        out.push(0x40 | (len >> 8) as u8);
        out.push(len as u8);
    } else if len <= u32::MAX as u64 {
        out.push(0x80);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

/// `rdbSaveRawString`, uncompressed (valid RDB, which Redis reads; Redis
/// itself would LZF-compress strings over 20 bytes when that saves space).
pub fn put_string(out: &mut Vec<u8>, s: &[u8]) {
    put_len(out, s.len() as u64);
    out.extend_from_slice(s);
}

/// Reads RDB values from a body.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// The length prefix: a plain length, or a special encoding's number.
enum Len {
    Plain(u64),
    Encoded(u8),
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn len(&mut self) -> Option<Len> {
        let b = self.byte()?;
        Some(match b >> 6 {
            0 => Len::Plain((b & 0x3f) as u64),
            1 => Len::Plain((((b & 0x3f) as u64) << 8) | self.byte()? as u64),
            2 if b == 0x80 => Len::Plain(u32::from_be_bytes(self.take(4)?.try_into().ok()?) as u64),
            2 if b == 0x81 => Len::Plain(u64::from_be_bytes(self.take(8)?.try_into().ok()?)),
            3 => Len::Encoded(b & 0x3f),
            _ => return None,
        })
    }

    /// `rdbGenericLoadStringObject`: plain, integer-encoded or LZF-compressed.
    pub fn string(&mut self) -> Option<Vec<u8>> {
        match self.len()? {
            Len::Plain(n) => Some(self.take(usize::try_from(n).ok()?)?.to_vec()),
            Len::Encoded(0) => Some((self.byte()? as i8).to_string().into_bytes()),
            Len::Encoded(1) => {
                let v = i16::from_le_bytes(self.take(2)?.try_into().ok()?);
                Some(v.to_string().into_bytes())
            }
            Len::Encoded(2) => {
                let v = i32::from_le_bytes(self.take(4)?.try_into().ok()?);
                Some(v.to_string().into_bytes())
            }
            Len::Encoded(3) => {
                let Len::Plain(clen) = self.len()? else {
                    return None;
                };
                let Len::Plain(len) = self.len()? else {
                    return None;
                };
                let data = self.take(usize::try_from(clen).ok()?)?;
                lzf_decompress(data, usize::try_from(len).ok()?)
            }
            Len::Encoded(_) => None,
        }
    }
}

/// LZF decompression (liblzf's format): literal runs and back references.
fn lzf_decompress(data: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(len.min(1 << 20));
    let mut i = 0;
    while i < data.len() {
        let ctrl = data[i] as usize;
        i += 1;
        if ctrl < 32 {
            let n = ctrl + 1;
            out.extend_from_slice(data.get(i..i + n)?);
            i += n;
        } else {
            let mut n = ctrl >> 5;
            if n == 7 {
                n += *data.get(i)? as usize;
                i += 1;
            }
            let back = ((ctrl & 0x1f) << 8) + *data.get(i)? as usize + 1;
            i += 1;
            let start = out.len().checked_sub(back)?;
            for k in 0..n + 2 {
                let b = out[start + k];
                out.push(b);
            }
        }
        if out.len() > len {
            return None;
        }
    }
    (out.len() == len).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_payloads_open_and_tampering_is_caught() {
        let mut body = vec![OPCODE_FUNCTION2];
        put_string(&mut body, &b"x".repeat(300));
        let sealed = seal(body.clone());
        assert_eq!(open(&sealed), Some(&body[..]));
        let mut bad = sealed.clone();
        bad[3] ^= 1;
        assert_eq!(open(&bad), None);
        assert_eq!(open(b"bad_payload"), None);
        let mut r = Reader::new(&body);
        assert_eq!(r.byte(), Some(OPCODE_FUNCTION2));
        assert_eq!(r.string(), Some(b"x".repeat(300)));
        assert!(r.at_end());
    }

    #[test]
    fn redis_checksum_matches_its_test_vector() {
        // crc64.c's own test: "123456789" gives e9c6d914c4b8d9ca.
        assert_eq!(CRC64.checksum(b"123456789"), 0xe9c6d914c4b8d9ca);
    }

    #[test]
    fn lzf_references_expand() {
        // "abcabcabc": 3 literals, then a back reference of 6 bytes at distance 3.
        let data = [2, b'a', b'b', b'c', (4 << 5), 2];
        assert_eq!(lzf_decompress(&data, 9).as_deref(), Some(&b"abcabcabc"[..]));
        assert_eq!(lzf_decompress(&data, 8), None);
        assert_eq!(lzf_decompress(&[5, b'a'], 6), None);
    }
}
