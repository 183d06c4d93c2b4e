//! Memory accounting in Redis' terms: jemalloc size classes and the allocations Redis makes per key, value and expiry entry.

/// What an empty Redis 7.2 reports as `used_memory` at start (about 0.85 MB);
/// our figures are this baseline plus the per-key costs below.
pub const BASELINE_USED_MEMORY: u64 = 865_000;
/// `sizeof(dictEntry)`: key, value and next pointers.
pub const DICT_ENTRY: usize = 24;
/// `sizeof(robj)`.
pub const ROBJ: usize = 16;

/// The jemalloc size class an allocation of `n` bytes lands in: multiples of
/// 8 then 16 up to 128, then four classes per doubling.
pub fn alloc_size(n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    if n <= 8 {
        return 8;
    }
    if n <= 128 {
        return n.div_ceil(16) * 16;
    }
    let group = 1usize << (usize::BITS - 1 - (n - 1).leading_zeros());
    let spacing = group / 4;
    n.div_ceil(spacing) * spacing
}

/// Bytes of an sds string of `len` bytes: header (by length class), body and NUL.
pub fn sds_size(len: usize) -> usize {
    let header = match len {
        0..=31 => 1,
        32..=255 => 3,
        256..=65_535 => 5,
        _ => 9,
    };
    alloc_size(header + len + 1)
}

/// A key's sds in the main dictionary (keys always get an sdshdr8 or wider).
pub fn key_size(key: &[u8]) -> usize {
    let header = match key.len() {
        0..=255 => 3,
        256..=65_535 => 5,
        _ => 9,
    };
    alloc_size(header + key.len() + 1)
}

/// One entry in the expires dictionary (the key sds is shared).
pub fn expire_entry_size() -> usize {
    alloc_size(DICT_ENTRY)
}

/// `sizeof(dict)` in 7.2: type, two tables, two counts, rehash index, pause
/// counter and the two size exponents.
pub const DICT_STRUCT: usize = 56;
/// A hashtable-encoded value's allocations: the dict, its bucket array (a
/// pointer a bucket), then `entries` bytes of dict entries and `strings`
/// bytes of sds, which differ by type.
pub fn dict_table_size(buckets: usize, entries: usize, strings: usize) -> usize {
    alloc_size(DICT_STRUCT) + alloc_size(8 * buckets) + entries + strings
}
/// An empty listpack: 6 header bytes (total bytes, element count) and the end byte.
pub const LISTPACK_EMPTY: usize = 7;
/// `LISTPACK_MAX_SAFETY_SIZE`: `lpSafeToAdd` refuses to grow a listpack past 1 GB.
pub const LISTPACK_MAX_SAFETY_SIZE: usize = 1 << 30;

/// Bytes of a listpack integer's encoding (`lpEncodeGetType`): 1 to 9 by
/// magnitude.
pub fn listpack_int_encoding(v: i64) -> usize {
    match v {
        0..=127 => 1,
        -4096..=4095 => 2,
        -32_768..=32_767 => 3,
        -8_388_608..=8_388_607 => 4,
        -2_147_483_648..=2_147_483_647 => 5,
        _ => 9,
    }
}

/// Bytes of a listpack element's encoding without its back-length: a
/// canonical integer (what `string2ll` accepts) as an integer, any other
/// string behind a 1-, 2- or 5-byte header.
pub fn listpack_encoding(ele: &[u8]) -> usize {
    match crate::proto::resp::parse_i64(ele) {
        Some(v) => listpack_int_encoding(v),
        None if ele.len() < 64 => 1 + ele.len(),
        None if ele.len() < 4096 => 2 + ele.len(),
        None => 5 + ele.len(),
    }
}

/// An element's encoding of `enc` bytes plus its back-length (1 to 5 bytes,
/// seven bits each), the whole element.
pub fn listpack_with_backlen(enc: usize) -> usize {
    let backlen = match enc {
        0..=127 => 1,
        128..=16_382 => 2,
        16_383..=2_097_150 => 3,
        2_097_151..=268_435_454 => 4,
        _ => 5,
    };
    enc + backlen
}

/// Bytes one listpack element holding `ele` takes.
pub fn listpack_entry_size(ele: &[u8]) -> usize {
    listpack_with_backlen(listpack_encoding(ele))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jemalloc_classes() {
        let classes: Vec<usize> = [1, 8, 9, 17, 33, 100, 129, 161, 1025, 5000]
            .iter()
            .map(|&n| alloc_size(n))
            .collect();
        assert_eq!(classes, [8, 8, 16, 32, 48, 112, 160, 192, 1280, 5120]);
    }

    #[test]
    fn listpack_entries() {
        let sizes: Vec<usize> = [
            &b"0"[..],
            b"127",
            b"128",
            b"-4096",
            b"32767",
            b"8388607",
            b"2147483648",
            b"007",
            b"",
            &[b'x'; 63],
            &[b'x'; 64],
            &[b'x'; 126],
            &[b'x'; 200],
        ]
        .iter()
        .map(|e| listpack_entry_size(e))
        .collect();
        assert_eq!(sizes, [2, 2, 3, 3, 4, 5, 10, 5, 2, 65, 67, 130, 204]);
    }
}
