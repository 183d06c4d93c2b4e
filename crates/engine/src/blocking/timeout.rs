//! Blocking timeouts as Redis reads them (`getTimeoutFromObjectOrReply`): seconds as an x87 long double, times 1000, rounded up to whole milliseconds, with Redis' errors.

use crate::proto::resp::Frame;

const NOT_A_FLOAT: &str = "ERR timeout is not a float or out of range";

/// `getTimeoutFromObjectOrReply(UNIT_SECONDS)`: seconds as a long double,
/// times 1000 and rounded up to whole ms; 0 waits forever, anything else
/// becomes an absolute Unix-ms deadline from `now_ms`.
pub fn timeout_arg(arg: &[u8], now_ms: i64) -> Result<i64, Frame> {
    let Some(ld) = crate::num::longdouble::LongDouble::parse(arg) else {
        return Err(Frame::err(NOT_A_FLOAT));
    };
    let ms = match seconds_to_ms_exact(arg) {
        Some(ms) => ms,
        None => seconds_to_ms_approx(&ld.to_fixed17()),
    };
    match ms {
        Ms::TooLarge => Err(Frame::err("ERR timeout is out of range")),
        Ms::Value(v) => deadline(v, now_ms),
    }
}

/// `getTimeoutFromObjectOrReply(UNIT_MILLISECONDS)`, XREAD's `BLOCK`: a
/// whole number of ms, then as [`timeout_arg`].
pub fn timeout_ms_arg(arg: &[u8], now_ms: i64) -> Result<i64, Frame> {
    let ms = crate::proto::resp::parse_i64(arg)
        .ok_or_else(|| Frame::err("ERR timeout is not an integer or out of range"))?;
    deadline(ms, now_ms)
}

/// The end both units share: 0 waits forever, a negative timeout is
/// refused, and anything else is a deadline `tval` ms after `now_ms`.
fn deadline(tval: i64, now_ms: i64) -> Result<i64, Frame> {
    if tval < 0 {
        return Err(Frame::err("ERR timeout is negative"));
    }
    if tval > 0 {
        if tval > i64::MAX - now_ms {
            return Err(Frame::err("ERR timeout is out of range"));
        }
        return Ok(tval + now_ms);
    }
    Ok(0)
}

/// `ceill(seconds * 1000.0L)`, or past `LLONG_MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ms {
    TooLarge,
    Value(i64),
}

/// Rounds `n` (non-zero) to 64 significant bits, ties to even: returns
/// `(m, shift)` with `n ≈ m · 2^shift` and `m` below 2^64.
fn round64(n: u128) -> (u128, i32) {
    let bits = 128 - n.leading_zeros() as i32;
    if bits <= 64 {
        return (n, 0);
    }
    let shift = bits - 64;
    let mut m = n >> shift;
    let rem = n & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rem > half || (rem == half && m & 1 == 1) {
        m += 1;
    }
    if m >> 64 != 0 {
        (m >> 1, shift + 1)
    } else {
        (m, shift)
    }
}

/// The x87 computation for plain decimal input (`[-+]digits[.digits][e[-+]n]`
/// with at most 19 significant digits and 18 decimals after scaling), done
/// exactly in integers: the value rounded to a 64-bit significand, times
/// 1000 rounded again, then the ceiling. `None` for other forms (hex,
/// `inf`, longer input), which take the approximate path.
fn seconds_to_ms_exact(arg: &[u8]) -> Option<Ms> {
    let (neg, body) = match arg.first()? {
        b'-' => (true, &arg[1..]),
        b'+' => (false, &arg[1..]),
        _ => (false, arg),
    };
    let (mantissa, exp) = match body.iter().position(|&c| c == b'e' || c == b'E') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &b""[..]),
    };
    let exp10: i32 = if exp.is_empty() {
        if body.len() != mantissa.len() {
            return None;
        }
        0
    } else {
        let (eneg, edigits) = match exp[0] {
            b'-' => (true, &exp[1..]),
            b'+' => (false, &exp[1..]),
            _ => (false, exp),
        };
        if edigits.is_empty() || edigits.len() > 4 || !edigits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let e: i32 = std::str::from_utf8(edigits).ok()?.parse().ok()?;
        if eneg {
            -e
        } else {
            e
        }
    };
    let (int_part, frac_part) = match mantissa.iter().position(|&c| c == b'.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, &b""[..]),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let digits: Vec<u8> = int_part.iter().chain(frac_part).copied().collect();
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let significant: Vec<u8> = digits.iter().copied().skip_while(|&c| c == b'0').collect();
    if significant.is_empty() {
        return Some(Ms::Value(0));
    }
    if significant.len() > 19 {
        return None;
    }
    let d: u128 = significant
        .iter()
        .fold(0u128, |acc, &c| acc * 10 + (c - b'0') as u128);
    // value = d · 10^k
    let k = exp10 - frac_part.len() as i32;
    let (m, e2): (u128, i32) = if k >= 0 {
        if k > 19 {
            return Some(if neg {
                Ms::Value(i64::MIN)
            } else {
                Ms::TooLarge
            });
        }
        let n = d.checked_mul(10u128.pow(k as u32))?;
        round64(n)
    } else {
        let kk = (-k) as u32;
        if kk > 18 {
            return None;
        }
        let den = 10u128.pow(kk);
        // Below a millisecond: ceil gives 1 (positive) or 0 (negative).
        if d * 1000 < den {
            return Some(Ms::Value(if neg { 0 } else { 1 }));
        }
        // Scale so the quotient has 64 or 65 bits, then round it to 64
        // with the division's remainder as the sticky part.
        let bl = |x: u128| 128 - x.leading_zeros() as i32;
        let s = 64 - bl(d) + bl(den);
        let num = d << s;
        let (q, r) = (num / den, num % den);
        let (m, up, drop) = if bl(q) > 64 {
            let drop = bl(q) - 64;
            let m = q >> drop;
            let rem = q & ((1u128 << drop) - 1);
            let half = 1u128 << (drop - 1);
            (
                m,
                rem > half || (rem == half && (r > 0 || m & 1 == 1)),
                drop,
            )
        } else {
            (q, 2 * r > den || (2 * r == den && q & 1 == 1), 0)
        };
        let (mut m, mut drop) = (m + up as u128, drop);
        if m >> 64 != 0 {
            m >>= 1;
            drop += 1;
        }
        (m, drop - s)
    };
    // x87(value) = m · 2^e2; times 1000, rounded to 64 bits again.
    let (p, e3) = round64(m * 1000);
    let e = e2 + e3;
    if e >= 0 {
        let v = p.checked_shl(e as u32).filter(|v| v >> e == p);
        return Some(match v {
            Some(v) if v <= i64::MAX as u128 => Ms::Value(if neg { -(v as i64) } else { v as i64 }),
            _ if neg => Ms::Value(i64::MIN),
            _ => Ms::TooLarge,
        });
    }
    let sh = (-e) as u32;
    if sh >= 128 {
        return Some(Ms::Value(if neg { 0 } else { 1 }));
    }
    let floor = p >> sh;
    let frac = p & ((1u128 << sh) - 1) != 0;
    if neg {
        Some(Ms::Value(-(floor.min(i64::MAX as u128) as i64)))
    } else {
        let c = floor + frac as u128;
        Some(if c > i64::MAX as u128 {
            Ms::TooLarge
        } else {
            Ms::Value(c as i64)
        })
    }
}

/// The same in `f64`, for input the exact path does not take; `fixed` is
/// the long double printed with `%.17Lf` (or `inf`).
fn seconds_to_ms_approx(fixed: &str) -> Ms {
    let v = crate::num::decimal::parse_f64(fixed).unwrap_or(f64::NAN);
    let ms = v * 1000.0;
    if ms.is_nan() || ms > i64::MAX as f64 {
        return Ms::TooLarge;
    }
    let c = ms.ceil();
    if c < i64::MIN as f64 {
        Ms::Value(i64::MIN)
    } else {
        Ms::Value(c as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Result<i64, Frame> {
        timeout_arg(s.as_bytes(), 1_000_000)
    }

    #[test]
    fn timeout_parsing() {
        assert_eq!(t("0"), Ok(0));
        assert_eq!(t("0.0"), Ok(0));
        assert_eq!(t("-0"), Ok(0));
        assert_eq!(t("1"), Ok(1_001_000));
        assert_eq!(t("0.2"), Ok(1_000_200));
        assert_eq!(t("1.5"), Ok(1_001_500));
        assert_eq!(t("1e-3"), Ok(1_000_001));
        assert_eq!(t("0.0001"), Ok(1_000_001), "rounded up to a whole ms");
        assert_eq!(t("-0.0001"), Ok(0), "ceil(-0.1) is 0: forever");
        assert_eq!(t("2E1"), Ok(1_020_000));
        assert_eq!(t(".5"), Ok(1_000_500));
        assert_eq!(t("5."), Ok(1_005_000));
        assert_eq!(t("-1"), Err(Frame::err("ERR timeout is negative")));
        assert_eq!(t("-inf"), Err(Frame::err("ERR timeout is negative")));
        assert_eq!(t("inf"), Err(Frame::err("ERR timeout is out of range")));
        assert_eq!(t("1e300"), Err(Frame::err("ERR timeout is out of range")));
        assert_eq!(
            t("9223372036854775"),
            Err(Frame::err("ERR timeout is out of range")),
            "adding now overflows"
        );
        for bad in ["", "abc", " 1", "1 ", "nan", "1,5", "0x"] {
            assert_eq!(t(bad), Err(Frame::err(NOT_A_FLOAT)), "{bad:?}");
        }
        assert_eq!(t("0x10"), Ok(1_016_000), "strtold takes hex");
    }

    #[test]
    fn exact_and_approximate_paths_agree_on_easy_values() {
        for s in ["0.1", "0.25", "3", "12.345", "0.001", "100000", "7.5e2"] {
            let exact = seconds_to_ms_exact(s.as_bytes()).expect("plain decimal");
            let ld = crate::num::longdouble::LongDouble::parse(s.as_bytes()).expect("valid");
            assert_eq!(exact, seconds_to_ms_approx(&ld.to_fixed17()), "{s}");
        }
    }

    #[test]
    fn x87_rounding_is_followed() {
        // 0.123 as a long double is a hair above 0.123; times 1000 it rounds
        // back to exactly 123 with a 64-bit significand.
        assert_eq!(seconds_to_ms_exact(b"0.123"), Some(Ms::Value(123)));
        assert_eq!(seconds_to_ms_exact(b"1.001"), Some(Ms::Value(1001)));
        assert_eq!(round64(u128::MAX), (1u128 << 63, 65));
    }
}
