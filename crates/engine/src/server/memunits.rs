//! Memory values as Redis' configuration reads them (`memtoull`): `100mb`, `1kb`, `32m`; shared by CONFIG and `client-output-buffer-limit`.

/// `memtoull`: leading digits, then nothing or a unit among b, k, kb, m,
/// mb, g, gb (k = 1000, kb = 1024; any case). Redis' quirks are kept: no
/// digits reads as 0 (`CONFIG SET maxmemory ""` and `kb` are accepted),
/// 128 digits or more are refused, a number past u64 saturates (`strtoull`)
/// and the unit multiplication wraps.
pub fn parse_memory(v: &str) -> Option<u64> {
    let b = v.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let unit = v[digits..].to_ascii_lowercase();
    let mul: u64 = match unit.as_str() {
        "" | "b" => 1,
        "k" => 1000,
        "kb" => 1024,
        "m" => 1000 * 1000,
        "mb" => 1024 * 1024,
        "g" => 1000 * 1000 * 1000,
        "gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    if digits >= 128 {
        return None;
    }
    let val = b[..digits].iter().fold(0u64, |acc, &d| {
        acc.saturating_mul(10).saturating_add((d - b'0') as u64)
    });
    Some(val.wrapping_mul(mul))
}

#[cfg(test)]
mod tests {
    use super::parse_memory;

    #[test]
    fn memory_units() {
        assert_eq!(parse_memory("100mb"), Some(100 << 20));
        assert_eq!(parse_memory("1k"), Some(1000));
        assert_eq!(parse_memory("1KB"), Some(1024));
        assert_eq!(parse_memory("12"), Some(12));
        assert_eq!(parse_memory("-1"), None);
        assert_eq!(parse_memory("1.5mb"), None);
        assert_eq!(parse_memory("1 mb"), None);
        // Redis' `memtoull` reads no digits as 0.
        assert_eq!(parse_memory(""), Some(0));
        assert_eq!(parse_memory("mb"), Some(0));
        assert_eq!(parse_memory(&"9".repeat(30)), Some(u64::MAX));
        assert_eq!(parse_memory(&"1".repeat(128)), None);
    }
}
