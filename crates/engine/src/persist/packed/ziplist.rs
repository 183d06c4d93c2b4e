//! Ziplists (ziplist.c), the small encoding of lists, hashes and sorted sets before Redis 7.0: read only, for payloads from older servers, validated as `ziplistValidateIntegrity(deep)` does.

use super::Elem;

/// `ZIPLIST_HEADER_SIZE`: total bytes, tail offset, entry count.
const HDR: usize = 10;
const END: u8 = 0xff;

/// Reads the entry at `p`: its element and total length.
fn entry(zl: &[u8], p: usize, prev_len: usize) -> Option<(Elem, usize)> {
    let get = |from: usize, n: usize| zl.get(p.checked_add(from)?..p.checked_add(from + n)?);
    // The previous entry's length: one byte, or 0xfe and four bytes.
    let (prev, h) = match *zl.get(p)? {
        0xfe => (u32::from_le_bytes(get(1, 4)?.try_into().ok()?) as usize, 5),
        END => return None,
        b => (b as usize, 1),
    };
    if prev != prev_len {
        return None;
    }
    let e = *zl.get(p + h)?;
    let (elem, len) = match e >> 6 {
        0 => {
            let n = (e & 0x3f) as usize;
            (Elem::Str(get(h + 1, n)?.to_vec()), 1 + n)
        }
        1 => {
            let n = (((e & 0x3f) as usize) << 8) | *zl.get(p + h + 1)? as usize;
            (Elem::Str(get(h + 2, n)?.to_vec()), 2 + n)
        }
        2 => {
            if e != 0x80 {
                return None;
            }
            let n = u32::from_be_bytes(get(h + 1, 4)?.try_into().ok()?) as usize;
            (Elem::Str(get(h + 5, n)?.to_vec()), 5usize.checked_add(n)?)
        }
        _ => match e {
            0xc0 => (
                Elem::Int(i16::from_le_bytes(get(h + 1, 2)?.try_into().ok()?) as i64),
                3,
            ),
            0xd0 => (
                Elem::Int(i32::from_le_bytes(get(h + 1, 4)?.try_into().ok()?) as i64),
                5,
            ),
            0xe0 => (
                Elem::Int(i64::from_le_bytes(get(h + 1, 8)?.try_into().ok()?)),
                9,
            ),
            0xf0 => {
                let s = get(h + 1, 3)?;
                let v = i32::from_le_bytes([0, s[0], s[1], s[2]]) >> 8;
                (Elem::Int(v as i64), 4)
            }
            0xfe => (Elem::Int(get(h + 1, 1)?[0] as i8 as i64), 2),
            0xf1..=0xfd => (Elem::Int((e & 0x0f) as i64 - 1), 1),
            _ => return None,
        },
    };
    Some((elem, h + len))
}

/// Every element of a ziplist, or `None` if any header or entry is wrong.
pub fn read(zl: &[u8]) -> Option<Vec<Elem>> {
    if zl.len() < HDR + 1 {
        return None;
    }
    let bytes = u32::from_le_bytes(zl[..4].try_into().ok()?) as usize;
    let tail = u32::from_le_bytes(zl[4..8].try_into().ok()?) as usize;
    let count = u16::from_le_bytes([zl[8], zl[9]]);
    if bytes != zl.len() || zl[zl.len() - 1] != END {
        return None;
    }
    let body = &zl[..zl.len() - 1];
    let mut out = Vec::new();
    let (mut p, mut prev, mut last) = (HDR, 0, HDR);
    while p < body.len() {
        let (e, n) = entry(body, p, prev)?;
        out.push(e);
        last = p;
        prev = n;
        p += n;
    }
    if tail != last || (count != u16::MAX && count as usize != out.len()) {
        return None;
    }
    Some(out)
}

/// Writes a ziplist (for tests of the legacy readers: Redis 7 never writes one).
#[cfg(test)]
pub fn write(items: &[&[u8]]) -> Vec<u8> {
    let mut body = Vec::new();
    let (mut prev, mut tail) = (0usize, HDR);
    for s in items {
        let start = body.len();
        tail = HDR + start;
        if prev < 254 {
            body.push(prev as u8);
        } else {
            body.push(0xfe);
            body.extend_from_slice(&(prev as u32).to_le_bytes());
        }
        match crate::proto::resp::parse_i64(s) {
            Some(v @ 0..=12) => body.push(0xf1 + v as u8),
            Some(v) if i8::try_from(v).is_ok() => body.extend_from_slice(&[0xfe, v as u8]),
            Some(v) if i16::try_from(v).is_ok() => {
                body.push(0xc0);
                body.extend_from_slice(&(v as i16).to_le_bytes());
            }
            Some(v) => {
                body.push(0xe0);
                body.extend_from_slice(&v.to_le_bytes());
            }
            None if s.len() < 64 => {
                body.push(s.len() as u8);
                body.extend_from_slice(s);
            }
            None => {
                body.push(0x40 | (s.len() >> 8) as u8);
                body.push(s.len() as u8);
                body.extend_from_slice(s);
            }
        }
        prev = body.len() - start;
    }
    let mut out = Vec::new();
    out.extend_from_slice(&((HDR + body.len() + 1) as u32).to_le_bytes());
    out.extend_from_slice(&(tail as u32).to_le_bytes());
    out.extend_from_slice(&(items.len() as u16).to_le_bytes());
    out.extend_from_slice(&body);
    out.push(END);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes_and_refuses_damage() {
        let long = vec![b'z'; 300];
        let items: Vec<&[u8]> = vec![b"a", b"7", b"-100", b"1000", b"123456789012", &long, b"end"];
        let zl = write(&items);
        let got: Vec<Vec<u8>> = read(&zl)
            .unwrap()
            .into_iter()
            .map(Elem::into_bytes)
            .collect();
        assert_eq!(got, items.iter().map(|s| s.to_vec()).collect::<Vec<_>>());
        for i in 0..zl.len() {
            let mut bad = zl.clone();
            bad[i] ^= 0x55;
            let _ = read(&bad);
        }
        let mut bad = zl.clone();
        bad[8] = 3;
        assert!(read(&bad).is_none());
    }
}
