//! LZF compression in liblzf's format, producing the very bytes Redis' `lzf_compress` (HLOG 16, VERY_FAST) writes, and its decompression.
//!
//! Redis compresses every RDB string over 20 bytes that shrinks by at least
//! four bytes, listpacks and intsets included, so DUMP payloads only equal
//! Redis' when the compressor makes the same choices: the same hash of
//! three bytes into a 2^16-slot table, a reference never at offset 0 of the
//! input, matches of up to 264 bytes within 8 KB, two positions hashed after
//! each match, and the same out-of-room checks against the output budget.
//! Redis' table lives on the stack uninitialised; an empty table is what it
//! holds in practice (a stale slot only matters if it happens to point into
//! the new input), so ours starts empty on every call.

/// `HLOG`: the hash table has 2^16 slots.
const HLOG: u32 = 16;
const HSIZE: usize = 1 << HLOG;
/// `MAX_LIT`: a literal run holds at most 32 bytes.
const MAX_LIT: usize = 1 << 5;
/// `MAX_OFF`: back references reach 8 KB.
const MAX_OFF: usize = 1 << 13;
/// `MAX_REF`: a back reference copies at most 264 bytes.
const MAX_REF: usize = (1 << 8) + (1 << 3);

/// `IDX` of liblzf's VERY_FAST hash.
fn idx(h: u32) -> usize {
    ((h >> (3 * 8 - HLOG)).wrapping_sub(h.wrapping_mul(5)) as usize) & (HSIZE - 1)
}

/// `lzf_compress(input, out_len)`: the compressed bytes, or `None` when they
/// would not fit in `out_len` bytes (Redis then stores the string as is).
pub fn compress(input: &[u8], out_len: usize) -> Option<Vec<u8>> {
    let in_len = input.len();
    if in_len == 0 || out_len == 0 {
        return None;
    }
    // Slots hold position + 1 (0: empty), as a pointer table would hold NULL.
    let mut htab = vec![0u32; HSIZE];
    let mut out = vec![0u8; out_len + 1];
    let mut ip = 0usize;
    let mut op = 1usize; // start a run
    let mut lit = 0usize;
    let byte = |i: usize| input[i] as u32;
    let mut hval = if in_len >= 2 {
        (byte(0) << 8) | byte(1)
    } else {
        0
    };
    while ip + 2 < in_len {
        hval = (hval << 8) | byte(ip + 2);
        let slot = idx(hval);
        let r = htab[slot];
        htab[slot] = ip as u32 + 1;
        let found = r != 0 && {
            let rf = (r - 1) as usize;
            rf < ip
                && ip - rf - 1 < MAX_OFF
                && rf > 0
                && input[rf + 2] == input[ip + 2]
                && input[rf] == input[ip]
                && input[rf + 1] == input[ip + 1]
        };
        if found {
            let rf = (r - 1) as usize;
            let off = ip - rf - 1;
            let mut len = 2usize;
            let maxlen = (in_len - ip - len).min(MAX_REF);
            if op + 3 + 1 >= out_len && op - usize::from(lit == 0) + 3 + 1 >= out_len {
                return None;
            }
            out[op - lit - 1] = (lit as u8).wrapping_sub(1);
            op -= usize::from(lit == 0);
            'scan: {
                if maxlen > 16 {
                    // liblzf's unrolled first 16 steps check no bound: with
                    // 17 or 18 bytes left a match may run one or two past `maxlen`.
                    for _ in 0..16 {
                        len += 1;
                        if input[rf + len] != input[ip + len] {
                            break 'scan;
                        }
                    }
                }
                loop {
                    len += 1;
                    if len >= maxlen || input[rf + len] != input[ip + len] {
                        break;
                    }
                }
            }
            len -= 2;
            ip += 1;
            if len < 7 {
                out[op] = ((off >> 8) + (len << 5)) as u8;
                op += 1;
            } else {
                out[op] = ((off >> 8) + (7 << 5)) as u8;
                out[op + 1] = (len - 7) as u8;
                op += 2;
            }
            out[op] = off as u8;
            op += 1;
            lit = 0;
            op += 1; // start a run
            ip += len + 1;
            if ip + 2 >= in_len {
                break;
            }
            // VERY_FAST: hash the two positions before the new one.
            ip -= 2;
            hval = (byte(ip) << 8) | byte(ip + 1);
            hval = (hval << 8) | byte(ip + 2);
            htab[idx(hval)] = ip as u32 + 1;
            ip += 1;
            hval = (hval << 8) | byte(ip + 2);
            htab[idx(hval)] = ip as u32 + 1;
            ip += 1;
        } else {
            if op >= out_len {
                return None;
            }
            copy_literal(input, &mut out, &mut ip, &mut op, &mut lit);
        }
    }
    if op + 3 > out_len {
        return None;
    }
    while ip < in_len {
        copy_literal(input, &mut out, &mut ip, &mut op, &mut lit);
    }
    out[op - lit - 1] = (lit as u8).wrapping_sub(1);
    op -= usize::from(lit == 0);
    out.truncate(op);
    Some(out)
}

/// LZF decompression: literal runs and back references, exactly `len` bytes.
pub fn decompress(data: &[u8], len: usize) -> Option<Vec<u8>> {
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

/// Copies one byte into the literal run being written; a run full at
/// `MAX_LIT` gets its length byte and a new run starts.
fn copy_literal(input: &[u8], out: &mut [u8], ip: &mut usize, op: &mut usize, lit: &mut usize) {
    *lit += 1;
    out[*op] = input[*ip];
    *op += 1;
    *ip += 1;
    if *lit == MAX_LIT {
        out[*op - *lit - 1] = (*lit - 1) as u8;
        *lit = 0;
        *op += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_expand() {
        // "abcabcabc": 3 literals, then a back reference of 6 bytes at distance 3.
        let data = [2, b'a', b'b', b'c', (4 << 5), 2];
        assert_eq!(decompress(&data, 9).as_deref(), Some(&b"abcabcabc"[..]));
        assert_eq!(decompress(&data, 8), None);
        assert_eq!(decompress(&[5, b'a'], 6), None);
    }

    #[test]
    fn compression_round_trips() {
        let mut rng = fastrand::Rng::with_seed(7);
        for n in [21usize, 50, 300, 5000, 70000] {
            for alphabet in [2u8, 4, 26, 255] {
                let s: Vec<u8> = (0..n).map(|_| b'a' + rng.u8(..alphabet.min(150))).collect();
                if let Some(c) = compress(&s, n - 4) {
                    assert!(c.len() <= n - 4);
                    assert_eq!(decompress(&c, n).as_deref(), Some(&s[..]));
                }
            }
        }
        // Incompressible input does not fit its budget.
        let s: Vec<u8> = (0..200u32).map(|i| (i * 97 % 251) as u8).collect();
        assert_eq!(compress(&s, s.len() - 4), None);
    }

    #[test]
    fn matches_liblzf_bytes() {
        // redis-server: SET k <50 a's>, DUMP k gives "\x00\xc3\t2\x01aa\xe0%\x00\x01aa...":
        // two literals (offset 0 is never referenced), 46 bytes at distance 1, two literals.
        let s = vec![b'a'; 50];
        assert_eq!(
            compress(&s, 46).unwrap(),
            vec![0x01, b'a', b'a', 0xe0, 0x25, 0x00, 0x01, b'a', b'a']
        );
    }
}
