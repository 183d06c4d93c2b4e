//! Zipmaps (zipmap.c), the small hash encoding of Redis 2.4 and older: read only, validated as `zipmapValidateIntegrity` does.

const END: u8 = 255;
/// `ZIPMAP_BIGLEN`: a length of 254 or more takes four more bytes.
const BIGLEN: u8 = 254;

fn read_len(zm: &[u8], p: &mut usize) -> Option<usize> {
    let b = *zm.get(*p)?;
    *p += 1;
    match b {
        END => None,
        BIGLEN => {
            let n = u32::from_le_bytes(zm.get(*p..*p + 4)?.try_into().ok()?) as usize;
            *p += 4;
            Some(n)
        }
        n => Some(n as usize),
    }
}

/// The field/value pairs of a zipmap, or `None` if it is malformed.
pub fn read(zm: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    let count = *zm.first()?;
    let mut p = 1;
    let mut out = Vec::new();
    while *zm.get(p)? != END {
        let klen = read_len(zm, &mut p)?;
        let key = zm.get(p..p.checked_add(klen)?)?.to_vec();
        p += klen;
        let vlen = read_len(zm, &mut p)?;
        let free = *zm.get(p)? as usize;
        p += 1;
        let val = zm.get(p..p.checked_add(vlen)?)?.to_vec();
        p += vlen + free;
        out.push((key, val));
    }
    if p + 1 != zm.len() || (count < BIGLEN && count as usize != out.len()) {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pairs_with_free_space() {
        // {"foo" => "bar", "hello" => "world"} with one free byte after "bar".
        let zm = [
            2, 3, b'f', b'o', b'o', 3, 1, b'b', b'a', b'r', 0, 5, b'h', b'e', b'l', b'l', b'o', 5,
            0, b'w', b'o', b'r', b'l', b'd', 255,
        ];
        let got = read(&zm).unwrap();
        assert_eq!(got[0], (b"foo".to_vec(), b"bar".to_vec()));
        assert_eq!(got[1], (b"hello".to_vec(), b"world".to_vec()));
        assert!(read(&zm[..zm.len() - 1]).is_none());
        let mut bad = zm;
        bad[0] = 3;
        assert!(read(&bad).is_none());
    }
}
