//! The framing of DUMP and FUNCTION DUMP payloads (rdb.c, cluster.c's `verifyDumpPayload`): RDB-encoded body, the RDB version in two bytes and a CRC64 (Jones) in eight, both little-endian.

use crc::{Crc, CRC_64_REDIS};

/// `RDB_VERSION` of Redis 7.2.
pub const RDB_VERSION: u16 = 11;
/// `RDB_OPCODE_FUNCTION2`: one library follows (its code as a string).
pub const OPCODE_FUNCTION2: u8 = 245;
/// `RDB_OPCODE_FUNCTION_PRE_GA`: 7.0's release candidates' format.
pub const OPCODE_FUNCTION_PRE_GA: u8 = 246;

const CRC64: Crc<u64> = Crc::<u64>::new(&CRC_64_REDIS);

/// Redis' CRC64 (Jones polynomial, reflected) of `data`.
pub fn crc64(data: &[u8]) -> u64 {
    CRC64.checksum(data)
}

/// Appends the version and checksum to an RDB-encoded body.
pub fn seal(mut body: Vec<u8>) -> Vec<u8> {
    body.extend_from_slice(&RDB_VERSION.to_le_bytes());
    let crc = CRC64.checksum(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    body
}

/// `verifyDumpPayload`: the body if the footer's version is one this
/// server reads and the checksum matches (or is not checked: DEBUG
/// SET-SKIP-CHECKSUM-VALIDATION).
pub fn open(payload: &[u8], skip_checksum: bool) -> Option<&[u8]> {
    if payload.len() < 10 {
        return None;
    }
    let (rest, crc) = payload.split_at(payload.len() - 8);
    let version = u16::from_le_bytes([rest[rest.len() - 2], rest[rest.len() - 1]]);
    if version > RDB_VERSION {
        return None;
    }
    if !skip_checksum && CRC64.checksum(rest).to_le_bytes() != crc {
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

/// `rdbEncodeInteger`: the special 1-, 2- or 4-byte integer encodings.
pub fn encode_int(v: i64) -> Option<Vec<u8>> {
    if let Ok(b) = i8::try_from(v) {
        Some(vec![0xc0, b as u8])
    } else if let Ok(h) = i16::try_from(v) {
        let mut o = vec![0xc1];
        o.extend_from_slice(&h.to_le_bytes());
        Some(o)
    } else if let Ok(w) = i32::try_from(v) {
        let mut o = vec![0xc2];
        o.extend_from_slice(&w.to_le_bytes());
        Some(o)
    } else {
        None
    }
}

/// `rdbSaveRawString` with `rdbcompression yes`.
pub fn put_string(out: &mut Vec<u8>, s: &[u8]) {
    put_raw_string(out, s, true);
}

/// `rdbSaveRawString`: short canonical integers in their integer encoding,
/// strings over 20 bytes LZF-compressed when `compress` and that saves at
/// least four bytes, anything else as length and bytes.
pub fn put_raw_string(out: &mut Vec<u8>, s: &[u8], compress: bool) {
    if s.len() <= 11 {
        // `rdbTryIntegerEncoding`: only if the text is the number's own form.
        if let Some(enc) = crate::proto::resp::parse_i64(s).and_then(encode_int) {
            out.extend_from_slice(&enc);
            return;
        }
    }
    if compress && s.len() > 20 {
        if let Some(c) = super::lzf::compress(s, s.len() - 4) {
            // `rdbSaveLzfBlob`.
            out.push(0xc3);
            put_len(out, c.len() as u64);
            put_len(out, s.len() as u64);
            out.extend_from_slice(&c);
            return;
        }
    }
    put_len(out, s.len() as u64);
    out.extend_from_slice(s);
}

/// `rdbSaveLongLongAsStringObject`: an integer, special-encoded if it fits 32 bits.
pub fn put_int_string(out: &mut Vec<u8>, v: i64) {
    match encode_int(v) {
        Some(enc) => out.extend_from_slice(&enc),
        None => {
            let t = v.to_string();
            put_len(out, t.len() as u64);
            out.extend_from_slice(t.as_bytes());
        }
    }
}

/// `rdbSaveBinaryDoubleValue`: 8 bytes, little-endian.
pub fn put_binary_double(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// `rdbSaveMillisecondTime`: 8 bytes, little-endian.
pub fn put_millis(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(&v.to_le_bytes());
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

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    pub fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// `n` raw bytes.
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn len_prefix(&mut self) -> Option<Len> {
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

    /// `rdbLoadLen`: a plain length (a special encoding here is an error).
    pub fn length(&mut self) -> Option<u64> {
        match self.len_prefix()? {
            Len::Plain(n) => Some(n),
            Len::Encoded(_) => None,
        }
    }

    /// A length that must also be a count of at least one byte each of
    /// what is left (so a corrupt count cannot make us allocate wildly).
    pub fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.length()?).ok()?;
        (n <= self.remaining()).then_some(n)
    }

    /// `rdbLoadBinaryDoubleValue`.
    pub fn binary_double(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// `rdbLoadDoubleValue`: the old text form (length byte; 253 NaN, 254 +inf, 255 -inf).
    pub fn text_double(&mut self) -> Option<f64> {
        match self.byte()? {
            253 => Some(f64::NAN),
            254 => Some(f64::INFINITY),
            255 => Some(f64::NEG_INFINITY),
            n => {
                let t = std::str::from_utf8(self.take(n as usize)?).ok()?;
                crate::num::double::string2d(t.as_bytes())
            }
        }
    }

    /// `rdbLoadMillisecondTime`.
    pub fn millis(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// `rdbGenericLoadStringObject`: plain, integer-encoded or LZF-compressed.
    pub fn string(&mut self) -> Option<Vec<u8>> {
        match self.len_prefix()? {
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
                let clen = self.length()?;
                let len = self.length()?;
                let data = self.take(usize::try_from(clen).ok()?)?;
                // A compressed string cannot expand more than 2^8 + 8 times
                // (liblzf's longest reference per 2 bytes): refuse lengths
                // no compressed stream could reach before allocating.
                if len == 0 || len > (clen + 1).saturating_mul(MAX_EXPANSION) {
                    return None;
                }
                super::lzf::decompress(data, usize::try_from(len).ok()?)
            }
            Len::Encoded(_) => None,
        }
    }
}

/// A generous bound on LZF expansion (a 3-byte reference yields 264 bytes).
const MAX_EXPANSION: u64 = 100;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_payloads_open_and_tampering_is_caught() {
        let mut body = vec![OPCODE_FUNCTION2];
        put_string(&mut body, &b"x".repeat(300));
        let sealed = seal(body.clone());
        assert_eq!(open(&sealed, false), Some(&body[..]));
        let mut bad = sealed.clone();
        bad[3] ^= 1;
        assert_eq!(open(&bad, false), None);
        // Unchecked, the tampered body comes back as it is; the version is
        // still checked.
        assert_eq!(open(&bad, true), Some(&bad[..bad.len() - 10]));
        assert_eq!(open(b"bad_payload", false), None);
        let mut future = sealed.clone();
        let at = future.len() - 10;
        future[at] = 0xff;
        assert_eq!(open(&future, true), None);
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
}
