//! Listpacks (listpack.c): the writer lays elements out exactly as `lpAppend` does, the reader validates as `lpValidateIntegrity` does with `deep` set.

use super::Elem;

/// `LP_HDR_SIZE`: total bytes (u32) and element count (u16).
const HDR: usize = 6;
/// `LP_EOF`.
const EOF_BYTE: u8 = 0xff;
/// `LP_HDR_NUMELE_UNKNOWN`.
const NUMELE_UNKNOWN: u16 = u16::MAX;

/// Builds a listpack element by element.
pub struct Writer {
    buf: Vec<u8>,
    count: usize,
}

impl Default for Writer {
    fn default() -> Self {
        Writer::new()
    }
}

/// `lpEncodeBacklen`: the entry's length, 7 bits a byte, readable backwards.
fn backlen(out: &mut Vec<u8>, l: usize) {
    let n = match l {
        0..=127 => 1,
        128..=16_382 => 2,
        16_383..=2_097_150 => 3,
        2_097_151..=268_435_454 => 4,
        _ => 5,
    };
    out.push((l >> (7 * (n - 1))) as u8);
    for i in (0..n - 1).rev() {
        out.push(((l >> (7 * i)) & 127) as u8 | 128);
    }
}

impl Writer {
    pub fn new() -> Writer {
        Writer {
            buf: vec![0; HDR],
            count: 0,
        }
    }

    /// `lpAppendInteger`.
    pub fn int(&mut self, v: i64) {
        let start = self.buf.len();
        let b = &mut self.buf;
        match v {
            0..=127 => b.push(v as u8),
            -4096..=4095 => {
                let u = if v < 0 { (1 << 13) + v } else { v } as u16;
                b.push(0xc0 | (u >> 8) as u8);
                b.push(u as u8);
            }
            -32_768..=32_767 => {
                b.push(0xf1);
                b.extend_from_slice(&(v as i16).to_le_bytes());
            }
            -8_388_608..=8_388_607 => {
                b.push(0xf2);
                b.extend_from_slice(&(v as i32).to_le_bytes()[..3]);
            }
            -2_147_483_648..=2_147_483_647 => {
                b.push(0xf3);
                b.extend_from_slice(&(v as i32).to_le_bytes());
            }
            _ => {
                b.push(0xf4);
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        let l = self.buf.len() - start;
        backlen(&mut self.buf, l);
        self.count += 1;
    }

    /// `lpAppend`: an integer if the string is one (`lpStringToInt64`).
    pub fn str(&mut self, s: &[u8]) {
        if let Some(v) = crate::proto::resp::parse_i64(s) {
            return self.int(v);
        }
        let start = self.buf.len();
        let n = s.len();
        if n < 64 {
            self.buf.push(0x80 | n as u8);
        } else if n < 4096 {
            self.buf.push(0xe0 | (n >> 8) as u8);
            self.buf.push(n as u8);
        } else {
            self.buf.push(0xf0);
            self.buf.extend_from_slice(&(n as u32).to_le_bytes());
        }
        self.buf.extend_from_slice(s);
        let l = self.buf.len() - start;
        backlen(&mut self.buf, l);
        self.count += 1;
    }

    /// The finished listpack.
    pub fn finish(mut self) -> Vec<u8> {
        self.buf.push(EOF_BYTE);
        let total = self.buf.len() as u32;
        self.buf[..4].copy_from_slice(&total.to_le_bytes());
        let n = u16::try_from(self.count)
            .ok()
            .filter(|&n| n < NUMELE_UNKNOWN)
            .unwrap_or(NUMELE_UNKNOWN);
        self.buf[4..6].copy_from_slice(&n.to_le_bytes());
        self.buf
    }
}

/// A listpack of `items` (strings, integer-looking ones as integers).
pub fn from_strs<'a>(items: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut w = Writer::new();
    for s in items {
        w.str(s);
    }
    w.finish()
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

/// Reads one entry at `p`: the element and the entry's whole length.
fn entry(lp: &[u8], p: usize) -> Option<(Elem, usize)> {
    let b = *lp.get(p)?;
    let get = |from: usize, n: usize| lp.get(p + from..p + from + n);
    let (elem, enc_len) = if b & 0x80 == 0 {
        (Elem::Int((b & 0x7f) as i64), 1)
    } else if b & 0xc0 == 0x80 {
        let n = (b & 0x3f) as usize;
        (Elem::Str(get(1, n)?.to_vec()), 1 + n)
    } else if b & 0xe0 == 0xc0 {
        let v = (((b & 0x1f) as u64) << 8) | *lp.get(p + 1)? as u64;
        (Elem::Int(sign_extend(v, 13)), 2)
    } else if b & 0xf0 == 0xe0 {
        let n = (((b & 0x0f) as usize) << 8) | *lp.get(p + 1)? as usize;
        (Elem::Str(get(2, n)?.to_vec()), 2 + n)
    } else {
        match b {
            0xf0 => {
                let n = u32::from_le_bytes(get(1, 4)?.try_into().ok()?) as usize;
                (Elem::Str(get(5, n)?.to_vec()), 5usize.checked_add(n)?)
            }
            0xf1 => (
                Elem::Int(i16::from_le_bytes(get(1, 2)?.try_into().ok()?) as i64),
                3,
            ),
            0xf2 => {
                let s = get(1, 3)?;
                let v = s[0] as u64 | (s[1] as u64) << 8 | (s[2] as u64) << 16;
                (Elem::Int(sign_extend(v, 24)), 4)
            }
            0xf3 => (
                Elem::Int(i32::from_le_bytes(get(1, 4)?.try_into().ok()?) as i64),
                5,
            ),
            0xf4 => (
                Elem::Int(i64::from_le_bytes(get(1, 8)?.try_into().ok()?)),
                9,
            ),
            _ => return None,
        }
    };
    // The back length must follow and encode the entry's length.
    let mut expect = Vec::new();
    backlen(&mut expect, enc_len);
    let at = p + enc_len;
    if lp.get(at..at + expect.len())? != &expect[..] {
        return None;
    }
    Some((elem, enc_len + expect.len()))
}

/// Every element of a listpack, validated as `lpValidateIntegrity(deep)`
/// does: the header's size is the blob's, the entries tile the body up to
/// the end byte, each back length matches, and a known count is right.
pub fn read(lp: &[u8]) -> Option<Vec<Elem>> {
    if lp.len() < HDR + 1 {
        return None;
    }
    let total = u32::from_le_bytes(lp[..4].try_into().ok()?) as usize;
    if total != lp.len() || lp[lp.len() - 1] != EOF_BYTE {
        return None;
    }
    let numele = u16::from_le_bytes([lp[4], lp[5]]);
    let body = &lp[..lp.len() - 1];
    let mut out = Vec::new();
    let mut p = HDR;
    while p < body.len() {
        let (e, n) = entry(body, p)?;
        out.push(e);
        p += n;
    }
    if numele != NUMELE_UNKNOWN && numele as usize != out.len() {
        return None;
    }
    Some(out)
}

/// [`read`], every element as a string.
pub fn read_strs(lp: &[u8]) -> Option<Vec<Vec<u8>>> {
    Some(read(lp)?.into_iter().map(Elem::into_bytes).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_round_trip_through_every_encoding() {
        let ints = [
            0i64,
            127,
            128,
            -1,
            4095,
            -4096,
            4096,
            32767,
            -32768,
            40000,
            -8_388_608,
            8_388_608,
            i32::MIN as i64,
            i32::MAX as i64 + 1,
            i64::MIN,
            i64::MAX,
        ];
        let mut w = Writer::new();
        for v in ints {
            w.int(v);
        }
        let long = vec![b'x'; 5000];
        let mid = [b'y'; 100];
        for s in [&b"abc"[..], &b""[..], &mid[..], &long[..], &b"007"[..]] {
            w.str(s);
        }
        let lp = w.finish();
        let got = read(&lp).unwrap();
        assert_eq!(got.len(), ints.len() + 5);
        for (g, v) in got.iter().zip(ints) {
            assert_eq!(g, &Elem::Int(v));
        }
        assert_eq!(got[ints.len() + 3], Elem::Str(long.clone()));
        assert_eq!(got[ints.len() + 4], Elem::Str(b"007".to_vec()));
        // The exact size the memory model computes.
        let strs: Vec<Vec<u8>> = got.into_iter().map(Elem::into_bytes).collect();
        let size: usize = strs
            .iter()
            .map(|s| crate::keyspace::memory::listpack_entry_size(s))
            .sum();
        assert_eq!(lp.len(), size + 7);
    }

    #[test]
    fn known_bytes() {
        // redis-server: RPUSH l a 1 → the listpack in DUMP l.
        let lp = from_strs([&b"a"[..], b"1"]);
        assert_eq!(lp, vec![12, 0, 0, 0, 2, 0, 0x81, b'a', 2, 1, 1, 0xff]);
    }

    #[test]
    fn corruption_is_caught() {
        let lp = from_strs([&b"hello"[..], b"12345", b"world"]);
        for i in 0..lp.len() {
            for bit in 0..8 {
                let mut bad = lp.clone();
                bad[i] ^= 1 << bit;
                let _ = read(&bad);
            }
        }
        assert!(read(&lp[..lp.len() - 1]).is_none());
        let mut bad = lp.clone();
        bad[4] = 2;
        assert!(read(&bad).is_none());
    }
}
