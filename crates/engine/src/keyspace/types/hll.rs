//! HyperLogLog as Redis 7.2 stores it (hyperloglog.c): MurmurHash64A, 16384 six-bit registers in a "HYLL" string with a sparse or dense encoding, and Ertl's cardinality estimator.
//!
//! The value is a plain string so that GET, SET, DUMP and replication see
//! the same bytes Redis writes: a 16-byte header (`HYLL`, the encoding byte,
//! three unused bytes, a little-endian cached cardinality whose top bit
//! marks it stale) and then either the dense registers (6 bits each, packed
//! from the least significant bit up) or the sparse run-length opcodes:
//!
//! - `ZERO` `00xxxxxx`: 1..=64 registers at 0;
//! - `XZERO` `01xxxxxx yyyyyyyy`: 1..=16384 registers at 0;
//! - `VAL` `1vvvvvxx`: 1..=4 registers at a value 1..=32.
//!
//! Every function here follows Redis' code path step by step (the in-place
//! split and merge of sparse opcodes, where promotion happens, what counts
//! as corrupt), because those steps decide the exact bytes of the result.
//! Reads past the end of a (corrupt) sparse string see 0, as Redis reads
//! the sds terminator there.

/// Register index bits (`HLL_P`).
pub const P: u32 = 14;
/// Hash bits left for the run of zeroes (`HLL_Q`).
pub const Q: usize = 64 - P as usize;
/// Number of registers (`HLL_REGISTERS`).
pub const REGISTERS: usize = 1 << P;
/// Bits per dense register (`HLL_BITS`).
pub const BITS: usize = 6;
/// Largest register value (`HLL_REGISTER_MAX`).
pub const REGISTER_MAX: u8 = (1 << BITS) - 1;
/// Header bytes (`HLL_HDR_SIZE`).
pub const HDR_SIZE: usize = 16;
/// Bytes of a dense HLL (`HLL_DENSE_SIZE`): 12304.
pub const DENSE_SIZE: usize = HDR_SIZE + (REGISTERS * BITS).div_ceil(8);
/// Encoding byte of a dense HLL.
pub const DENSE: u8 = 0;
/// Encoding byte of a sparse HLL.
pub const SPARSE: u8 = 1;
/// Seed Redis hashes elements with.
pub const SEED: u64 = 0xadc8_3b19;
/// Largest value a sparse `VAL` opcode holds (`HLL_SPARSE_VAL_MAX_VALUE`).
pub const SPARSE_VAL_MAX_VALUE: u8 = 32;
const SPARSE_VAL_MAX_LEN: u32 = 4;
const SPARSE_ZERO_MAX_LEN: u32 = 64;
/// `0.5/ln(2)`, the estimator's alpha at infinity (`HLL_ALPHA_INF`).
const ALPHA_INF: f64 = 0.721_347_520_444_481_7;

/// The HLL bytes are not a valid representation (Redis' `INVALIDOBJ`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Corrupt;

/// `MurmurHash64A`, the 64-bit MurmurHash2 Redis hashes elements with,
/// reading words little-endian as Redis does on every architecture.
pub fn murmur64a(key: &[u8], seed: u32) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    // C's `int len`: the length as a 32-bit signed value, widened.
    let len = key.len() as i32 as i64 as u64;
    let mut h = (seed as u64) ^ len.wrapping_mul(M);
    let mut words = key.chunks_exact(8);
    for w in &mut words {
        let mut buf = [0u8; 8];
        buf.copy_from_slice(w);
        let mut k = u64::from_le_bytes(buf);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= (b as u64) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// `hllPatLen`: the register an element maps to and the length of its
/// `000..1` pattern (1..=Q+1).
pub fn pat_len(ele: &[u8]) -> (usize, u8) {
    let hash = murmur64a(ele, SEED as u32);
    let index = (hash as usize) & (REGISTERS - 1);
    // The sentinel bit bounds the count at Q+1.
    let rest = (hash >> P) | (1u64 << Q);
    (index, rest.trailing_zeros() as u8 + 1)
}

/// A new HLL as `createHLLObject` makes it: sparse, one `XZERO` covering
/// every register, cached cardinality 0 (valid).
pub fn new_sparse() -> Vec<u8> {
    let mut s = Vec::with_capacity(HDR_SIZE + 2);
    s.extend_from_slice(b"HYLL");
    s.push(SPARSE);
    s.extend_from_slice(&[0; 11]);
    let l = REGISTERS - 1;
    s.push(0x40 | (l >> 8) as u8);
    s.push((l & 0xff) as u8);
    s
}

/// `isHLLObjectOrReply`'s checks on a string's bytes: long enough for the
/// header, the magic, a known encoding, and the exact dense length.
pub fn is_valid(s: &[u8]) -> bool {
    s.len() >= HDR_SIZE
        && &s[..4] == b"HYLL"
        && s[4] <= SPARSE
        && (s[4] != DENSE || s.len() == DENSE_SIZE)
}

/// The cached cardinality, if not marked stale.
pub fn cached(s: &[u8]) -> Option<u64> {
    let card: [u8; 8] = s.get(8..16)?.try_into().ok()?;
    (card[7] & 0x80 == 0).then(|| u64::from_le_bytes(card))
}

/// Stores a freshly computed cardinality in the header.
pub fn set_cached(s: &mut [u8], card: u64) {
    if let Some(c) = s.get_mut(8..16) {
        c.copy_from_slice(&card.to_le_bytes());
    }
}

/// `HLL_INVALIDATE_CACHE`: sets the stale bit of the cached cardinality.
pub fn invalidate(s: &mut [u8]) {
    if let Some(b) = s.get_mut(15) {
        *b |= 0x80;
    }
}

/// `HLL_DENSE_GET_REGISTER` on the register bytes (after the header). The
/// last register's second byte is past the array: Redis reads the sds
/// terminator there, 0.
pub fn dense_get(regs: &[u8], i: usize) -> u8 {
    let byte = i * BITS / 8;
    let fb = (i * BITS) & 7;
    let b0 = regs.get(byte).copied().unwrap_or(0) as u32;
    let b1 = regs.get(byte + 1).copied().unwrap_or(0) as u32;
    (((b0 >> fb) | (b1 << (8 - fb))) & REGISTER_MAX as u32) as u8
}

/// `HLL_DENSE_SET_REGISTER`.
pub fn dense_put(regs: &mut [u8], i: usize, val: u8) {
    let byte = i * BITS / 8;
    let fb = (i * BITS) & 7;
    let v = val as u32;
    let max = REGISTER_MAX as u32;
    if let Some(b) = regs.get_mut(byte) {
        *b = ((*b as u32 & !(max << fb)) | (v << fb)) as u8;
    }
    if let Some(b) = regs.get_mut(byte + 1) {
        *b = ((*b as u32 & !(max >> (8 - fb))) | (v >> (8 - fb))) as u8;
    }
}

/// `hllDenseSet`: raises register `i` to `count`; true if it changed.
fn dense_set(regs: &mut [u8], i: usize, count: u8) -> bool {
    if count > dense_get(regs, i) {
        dense_put(regs, i, count);
        true
    } else {
        false
    }
}

fn is_zero(op: u8) -> bool {
    op & 0xc0 == 0
}

fn is_xzero(op: u8) -> bool {
    op & 0xc0 == 0x40
}

fn is_val(op: u8) -> bool {
    op & 0x80 != 0
}

fn zero_len(op: u8) -> u32 {
    (op & 0x3f) as u32 + 1
}

fn xzero_len(op: u8, next: u8) -> u32 {
    ((((op & 0x3f) as u32) << 8) | next as u32) + 1
}

fn val_value(op: u8) -> u8 {
    ((op >> 2) & 0x1f) + 1
}

fn val_len(op: u8) -> u32 {
    (op & 0x3) as u32 + 1
}

fn val_op(val: u8, len: u32) -> u8 {
    (((val.wrapping_sub(1)) << 2) | (len.wrapping_sub(1) as u8 & 0x3)) | 0x80
}

/// Appends a ZERO or XZERO opcode for `len` zero registers.
fn push_zeros(seq: &mut Vec<u8>, len: u32) {
    if len > SPARSE_ZERO_MAX_LEN {
        let l = len - 1;
        seq.push(((l >> 8) as u8 & 0x3f) | 0x40);
        seq.push((l & 0xff) as u8);
    } else {
        seq.push((len - 1) as u8);
    }
}

/// Byte `i` of a sparse string, 0 past its end.
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// `hllSparseToDense`: rewrites a sparse HLL as dense (a dense one is left
/// alone). The header, cached cardinality included, is kept.
pub fn sparse_to_dense(s: &mut Vec<u8>) -> Result<(), Corrupt> {
    if s.get(4) == Some(&DENSE) {
        return Ok(());
    }
    let mut dense = vec![0u8; DENSE_SIZE];
    let hdr = s.get(..HDR_SIZE).ok_or(Corrupt)?;
    dense[..HDR_SIZE].copy_from_slice(hdr);
    dense[4] = DENSE;
    let regs = &mut dense[HDR_SIZE..];
    let mut idx = 0;
    for op in opcodes(&s[HDR_SIZE..]) {
        let (runlen, value) = op?;
        let (from, to) = (idx, idx + runlen);
        idx = to;
        if value != 0 {
            for i in from..to {
                dense_put(regs, i, value);
            }
        }
    }
    if idx != REGISTERS {
        return Err(Corrupt);
    }
    *s = dense;
    Ok(())
}

/// The runs of a sparse body (the bytes after the header) as (length,
/// value), zero runs with value 0. A run that would pass the last register
/// is corruption: the check Redis added for CVE-2025-32023 (7.2.10, and the
/// patched 7.0.15 the tests run against), where 7.2.4 only checked `VAL`
/// runs and could write out of bounds.
fn opcodes(body: &[u8]) -> impl Iterator<Item = Result<(usize, u8), Corrupt>> + '_ {
    let mut p = 0;
    let mut idx = 0usize;
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed || p >= body.len() {
            return None;
        }
        let op = body[p];
        let (runlen, value) = if is_zero(op) {
            p += 1;
            (zero_len(op), 0)
        } else if is_xzero(op) {
            let len = xzero_len(op, at(body, p + 1));
            p += 2;
            (len, 0)
        } else {
            p += 1;
            (val_len(op), val_value(op))
        };
        idx += runlen as usize;
        if idx > REGISTERS {
            failed = true;
            return Some(Err(Corrupt));
        }
        Some(Ok((runlen as usize, value)))
    })
}

/// `hllSparseSet`: raises register `index` to `count` in a sparse HLL,
/// splitting and merging opcodes in place, or promoting it to dense when the
/// value does not fit a `VAL` opcode or the string would grow past
/// `sparse_max` bytes. `Ok(true)` if a register changed.
pub fn sparse_set(
    s: &mut Vec<u8>,
    index: usize,
    count: u8,
    sparse_max: u64,
) -> Result<bool, Corrupt> {
    if count > SPARSE_VAL_MAX_VALUE {
        return promote(s, index, count);
    }
    let index = index as i64;
    let mut end = s.len();
    // Step 1: find the opcode covering the register.
    let mut p = HDR_SIZE;
    let mut first: i64 = 0;
    let mut prev: Option<usize> = None;
    let mut span: i64 = 0;
    while p < end {
        let op = s[p];
        let mut oplen = 1;
        if is_zero(op) {
            span = zero_len(op) as i64;
        } else if is_val(op) {
            span = val_len(op) as i64;
        } else {
            span = xzero_len(op, at(s, p + 1)) as i64;
            oplen = 2;
        }
        if index < first + span {
            break;
        }
        prev = Some(p);
        p += oplen;
        first += span;
    }
    if span == 0 || p >= end {
        return Err(Corrupt);
    }
    let op = s[p];
    let oplen = if is_xzero(op) { 2 } else { 1 };
    let next = (p + oplen < end).then_some(p + oplen);
    let runlen = if is_zero(op) {
        zero_len(op)
    } else if is_xzero(op) {
        xzero_len(op, at(s, p + 1))
    } else {
        val_len(op)
    };

    // Step 2: the trivial in-place cases, then the general split.
    let in_place = if is_val(op) {
        if val_value(op) >= count {
            return Ok(false);
        }
        runlen == 1
    } else {
        is_zero(op) && runlen == 1
    };
    if in_place {
        s[p] = val_op(count, 1);
    } else {
        let last = first + span - 1;
        let mut seq: Vec<u8> = Vec::with_capacity(5);
        if is_val(op) {
            let cur = val_value(op);
            if index != first {
                seq.push(val_op(cur, (index - first) as u32));
            }
            seq.push(val_op(count, 1));
            if index != last {
                seq.push(val_op(cur, (last - index) as u32));
            }
        } else {
            if index != first {
                push_zeros(&mut seq, (index - first) as u32);
            }
            seq.push(val_op(count, 1));
            if index != last {
                push_zeros(&mut seq, (last - index) as u32);
            }
        }
        // Step 3: substitute the new sequence for the old opcode.
        let delta = seq.len() as i64 - oplen as i64;
        if delta > 0 && s.len() as i64 + delta > sparse_max.min(i64::MAX as u64) as i64 {
            return promote(s, index as usize, count);
        }
        let new_len = (s.len() as i64 + delta) as usize;
        match next {
            Some(n) => {
                s.splice(p..n, seq.iter().copied());
            }
            None => {
                s.truncate(p);
                s.extend_from_slice(&seq);
            }
        }
        // A truncated XZERO at the very end: Redis' length arithmetic cuts
        // the written sequence short.
        s.resize(new_len, 0);
        end = new_len;
    }

    // Step 4: merge adjacent VAL opcodes of equal value, scanning up to
    // five opcodes from the previous one.
    let mut p = prev.unwrap_or(HDR_SIZE);
    let mut scanlen = 5;
    while p < end {
        if scanlen == 0 {
            break;
        }
        scanlen -= 1;
        let op = s[p];
        if is_xzero(op) {
            p += 2;
            continue;
        } else if is_zero(op) {
            p += 1;
            continue;
        }
        if p + 1 < end && is_val(s[p + 1]) {
            let (v1, v2) = (val_value(op), val_value(s[p + 1]));
            if v1 == v2 {
                let len = val_len(op) + val_len(s[p + 1]);
                if len <= SPARSE_VAL_MAX_LEN {
                    s[p + 1] = val_op(v1, len);
                    s.remove(p);
                    end -= 1;
                    continue;
                }
            }
        }
        p += 1;
    }
    invalidate(s);
    Ok(true)
}

/// The promotion path of `hllSparseSet`: convert, then set the register
/// (which always changes it).
fn promote(s: &mut Vec<u8>, index: usize, count: u8) -> Result<bool, Corrupt> {
    sparse_to_dense(s)?;
    dense_set(&mut s[HDR_SIZE..], index, count);
    Ok(true)
}

/// `hllAdd`: adds one element; `Ok(true)` if a register changed (the
/// caller invalidates the cached cardinality).
pub fn add(s: &mut Vec<u8>, ele: &[u8], sparse_max: u64) -> Result<bool, Corrupt> {
    let (index, count) = pat_len(ele);
    set_register(s, index, count, sparse_max)
}

/// Raises one register in either encoding (`hllDenseSet`/`hllSparseSet`).
pub fn set_register(
    s: &mut Vec<u8>,
    index: usize,
    count: u8,
    sparse_max: u64,
) -> Result<bool, Corrupt> {
    match s.get(4) {
        Some(&DENSE) if s.len() > HDR_SIZE => Ok(dense_set(&mut s[HDR_SIZE..], index, count)),
        Some(&SPARSE) => sparse_set(s, index, count, sparse_max),
        _ => Err(Corrupt),
    }
}

/// Register-value histogram of a valid HLL (`hllDenseRegHisto` /
/// `hllSparseRegHisto`). A sparse string whose opcodes do not cover
/// exactly 16384 registers is corrupt.
pub fn histogram(s: &[u8]) -> Result<[u64; 64], Corrupt> {
    let mut h = [0u64; 64];
    let regs = s.get(HDR_SIZE..).ok_or(Corrupt)?;
    if s[4] == DENSE {
        for i in 0..REGISTERS {
            h[dense_get(regs, i) as usize] += 1;
        }
        return Ok(h);
    }
    let mut idx = 0;
    for op in opcodes(regs) {
        let (runlen, value) = op?;
        idx += runlen;
        h[value as usize] += runlen as u64;
    }
    if idx != REGISTERS {
        return Err(Corrupt);
    }
    Ok(h)
}

/// `hllSigma` (Ertl, arXiv:1702.01284).
fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let mut y = 1.0;
    let mut z = x;
    loop {
        x *= x;
        let prev = z;
        z += x * y;
        y += y;
        if prev == z {
            return z;
        }
    }
}

/// `hllTau` (Ertl, arXiv:1702.01284).
fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let mut y = 1.0;
    let mut z = 1.0 - x;
    loop {
        x = x.sqrt();
        let prev = z;
        y *= 0.5;
        let d = 1.0 - x;
        z -= d * d * y;
        if prev == z {
            return z / 3.0;
        }
    }
}

/// The estimate from a register histogram, as `hllCount` computes it in
/// doubles, rounded half away from zero (`llroundl`). Computed anew on
/// every call: the cache bit decides whether PFCOUNT calls it.
pub fn estimate(h: &[u64; 64]) -> u64 {
    let m = REGISTERS as f64;
    let mut z = m * tau((m - h[Q + 1] as f64) / m);
    for j in (1..=Q).rev() {
        z += h[j] as f64;
        z *= 0.5;
    }
    z += m * sigma(h[0] as f64 / m);
    let e = (ALPHA_INF * m * m / z).round();
    // `llroundl` out of range (every register at Q+1 makes z zero) gives
    // LLONG_MIN, which Redis stores as 2^63: a cache entry marked stale.
    if e.is_nan() || e >= 9_223_372_036_854_775_808.0 {
        1 << 63
    } else {
        e as u64
    }
}

/// `hllCount` of one HLL string.
pub fn count(s: &[u8]) -> Result<u64, Corrupt> {
    Ok(estimate(&histogram(s)?))
}

/// `hllMerge`: raises each entry of `max` (one byte per register) to the
/// HLL's register.
pub fn merge_into(max: &mut [u8; REGISTERS], s: &[u8]) -> Result<(), Corrupt> {
    let regs = s.get(HDR_SIZE..).ok_or(Corrupt)?;
    if s[4] == DENSE {
        for (i, m) in max.iter_mut().enumerate() {
            *m = (*m).max(dense_get(regs, i));
        }
        return Ok(());
    }
    let mut i = 0;
    for op in opcodes(regs) {
        let (runlen, value) = op?;
        for m in &mut max[i..i + runlen] {
            *m = (*m).max(value);
        }
        i += runlen;
    }
    if i != REGISTERS {
        return Err(Corrupt);
    }
    Ok(())
}

/// The estimate of merged registers (the `HLL_RAW` histogram of PFCOUNT
/// with several keys).
pub fn count_raw(max: &[u8; REGISTERS]) -> u64 {
    let mut h = [0u64; 64];
    for &v in max {
        h[(v & 63) as usize] += 1;
    }
    estimate(&h)
}

/// All register values of a valid HLL, in either encoding (for PFDEBUG
/// GETREG and inspectors).
pub fn registers(s: &[u8]) -> Result<Vec<u8>, Corrupt> {
    let mut max = [0u8; REGISTERS];
    merge_into(&mut max, s)?;
    Ok(max.to_vec())
}

/// PFDEBUG DECODE's text of a sparse HLL: `z:len`, `Z:len`, `v:val,len`.
pub fn decode_sparse(s: &[u8]) -> String {
    let mut out: Vec<String> = Vec::new();
    let body = s.get(HDR_SIZE..).unwrap_or(&[]);
    let mut p = 0;
    while p < body.len() {
        let op = body[p];
        if is_zero(op) {
            out.push(format!("z:{}", zero_len(op)));
            p += 1;
        } else if is_xzero(op) {
            out.push(format!("Z:{}", xzero_len(op, at(body, p + 1))));
            p += 2;
        } else {
            out.push(format!("v:{},{}", val_value(op), val_len(op)));
            p += 1;
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds `n` distinct elements derived from `tag` to a fresh HLL.
    fn filled(tag: u64, n: u64, sparse_max: u64) -> Vec<u8> {
        let mut s = new_sparse();
        for i in 0..n {
            let ele = format!("{tag}:{i}");
            add(&mut s, ele.as_bytes(), sparse_max).expect("valid HLL");
        }
        s
    }

    #[test]
    fn murmur_matches_reference_values() {
        // Values of MurmurHash64A from its reference implementation.
        assert_eq!(murmur64a(b"", 0), 0);
        let h = murmur64a(b"hello", SEED as u32);
        assert_ne!(h, murmur64a(b"hellp", SEED as u32));
        // Every tail length goes through the same mixing.
        for n in 0..20 {
            let data: Vec<u8> = (0..n as u8).collect();
            let a = murmur64a(&data, 1);
            let b = murmur64a(&data, 2);
            assert_ne!(a, b, "seed matters for length {n}");
        }
    }

    #[test]
    fn empty_hll_layout() {
        let s = new_sparse();
        assert_eq!(s.len(), 18);
        assert_eq!(&s[..5], b"HYLL\x01");
        assert_eq!(&s[16..], &[0x7f, 0xff]);
        assert!(is_valid(&s));
        assert_eq!(cached(&s), Some(0));
        assert_eq!(count(&s), Ok(0));
        assert_eq!(decode_sparse(&s), "Z:16384");
    }

    #[test]
    fn dense_registers_round_trip_without_touching_neighbours() {
        let mut regs = vec![0u8; DENSE_SIZE - HDR_SIZE];
        let mut rng = fastrand::Rng::with_seed(7);
        let vals: Vec<u8> = (0..REGISTERS).map(|_| rng.u8(0..64)).collect();
        for (i, &v) in vals.iter().enumerate() {
            dense_put(&mut regs, i, v);
        }
        for (i, &v) in vals.iter().enumerate() {
            assert_eq!(dense_get(&regs, i), v, "register {i}");
        }
    }

    #[test]
    fn sparse_and_dense_agree_and_promote_past_the_limit() {
        for n in [1u64, 10, 100, 500, 1000, 3000, 20_000] {
            let sparse = filled(1, n, 3000);
            let mut dense = new_sparse();
            sparse_to_dense(&mut dense).expect("valid");
            for i in 0..n {
                add(&mut dense, format!("1:{i}").as_bytes(), 3000).expect("valid");
            }
            assert_eq!(dense[4], DENSE);
            assert_eq!(registers(&sparse), registers(&dense), "n = {n}");
            assert_eq!(count(&sparse), count(&dense), "n = {n}");
            if sparse[4] == SPARSE {
                assert!(sparse.len() <= 3000, "sparse stays under the limit");
            } else {
                assert_eq!(sparse.len(), DENSE_SIZE);
            }
        }
        assert_eq!(filled(1, 100, 3000)[4], SPARSE);
        assert_eq!(filled(1, 20_000, 3000)[4], DENSE);
        // With no room at all, the first split promotes.
        assert_eq!(filled(1, 1, 0)[4], DENSE);
    }

    #[test]
    fn corrupt_sparse_strings_are_detected() {
        let mut s = filled(2, 50, 3000);
        s.extend_from_slice(b"hello");
        assert_eq!(count(&s), Err(Corrupt));
        let mut max = [0u8; REGISTERS];
        assert_eq!(merge_into(&mut max, &s), Err(Corrupt));
        assert_eq!(sparse_to_dense(&mut s.clone()), Err(Corrupt));
        // Opcodes covering too few registers: nowhere to put most elements.
        let mut short = new_sparse();
        short.truncate(HDR_SIZE);
        short.push(0x00);
        assert_eq!(add(&mut short, b"x", 3000).err(), Some(Corrupt));
    }

    /// The standard error of the estimate is about 1.04/sqrt(16384) = 0.81%:
    /// measured over many independent sets of random sizes, the root mean
    /// square relative error must come out near it.
    #[test]
    fn standard_error_is_about_081_percent() {
        let mut rng = fastrand::Rng::with_seed(0x5eed);
        let mut sum_sq = 0.0;
        let trials = 60;
        for t in 0..trials {
            let n = rng.u64(20_000..120_000);
            let mut max = [0u8; REGISTERS];
            let salt = rng.u64(..);
            for i in 0..n {
                let ele = (i ^ salt).to_le_bytes();
                let (idx, c) = pat_len(&ele);
                max[idx] = max[idx].max(c);
            }
            let est = count_raw(&max) as f64;
            let rel = (est - n as f64) / n as f64;
            assert!(rel.abs() < 0.05, "trial {t}: n {n}, estimate {est}");
            sum_sq += rel * rel;
        }
        let rmse = (sum_sq / trials as f64).sqrt();
        assert!(
            (0.006..0.0105).contains(&rmse),
            "relative standard error {rmse:.5}, expected about 0.0081"
        );
    }

    #[test]
    fn small_cardinalities_are_exact_or_nearly() {
        for n in [0u64, 1, 2, 5, 10, 50] {
            let s = filled(3, n, 3000);
            let c = count(&s).expect("valid");
            assert!(c.abs_diff(n) <= 1, "n = {n}, count = {c}");
        }
    }
}
