//! The x87 80-bit `long double` of Redis on x86-64 Linux, in software: parsing as `strtold`, addition, and `%.17Lf` printing, all correctly rounded, for INCRBYFLOAT (and later HINCRBYFLOAT).
//!
//! Redis adds with `long double` (64-bit significand, 15-bit exponent) and
//! prints the sum with `"%.17Lf"` before trimming zeros, so the 64-bit
//! rounding shows: `INCRBYFLOAT k 10000000000.1` replies
//! `10000000000.09999999962747097`, and `1e300` replies 301 exact digits.
//! Rust has no `long double`, and neither `f64` nor decimal arithmetic
//! reproduces those replies, so this module implements the format exactly
//! with small big-integer arithmetic: every operation computes the exact
//! value and rounds once, to nearest with ties to even, as the x87 unit
//! (default precision control) and glibc's `strtold` / `printf` do.
//! Denormals, overflow to infinity and the `ERANGE` rules of Redis'
//! `string2ld` are modelled; NaN is never produced by a parse.

use std::cmp::Ordering;

/// Exponent of the least significant bit of the smallest denormal (2^-16445).
const MIN_LSB_EXP: i64 = -16445;
/// Exponent of the top bit of the largest finite value (just under 2^16384).
const MAX_TOP_EXP: i64 = 16383;
/// `MAX_LONG_DOUBLE_CHARS`: `string2ld` refuses strings this long or longer.
pub const MAX_LONG_DOUBLE_CHARS: usize = 5 * 1024;
/// Digits after the point in Redis' human-friendly format (`%.17Lf`).
const HUMAN_DECIMALS: usize = 17;

/// An unsigned big integer, little-endian 64-bit limbs, no trailing zero limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u64>);

impl Big {
    fn zero() -> Big {
        Big(Vec::new())
    }

    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v]);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bit_len(&self) -> u64 {
        match self.0.last() {
            None => 0,
            Some(&top) => self.0.len() as u64 * 64 - top.leading_zeros() as u64,
        }
    }

    fn bit(&self, i: u64) -> bool {
        let limb = (i / 64) as usize;
        limb < self.0.len() && (self.0[limb] >> (i % 64)) & 1 == 1
    }

    /// True if any bit below position `n` is set.
    fn any_below(&self, n: u64) -> bool {
        let full = ((n / 64) as usize).min(self.0.len());
        if self.0[..full].iter().any(|&l| l != 0) {
            return true;
        }
        let rem = n % 64;
        full < self.0.len() && rem > 0 && self.0[full] & ((1u64 << rem) - 1) != 0
    }

    fn mul_small_add(&mut self, m: u64, add: u64) {
        let mut carry = add as u128;
        for l in self.0.iter_mut() {
            let v = *l as u128 * m as u128 + carry;
            *l = v as u64;
            carry = v >> 64;
        }
        if carry > 0 {
            self.0.push(carry as u64);
        }
        self.trim();
    }

    /// Divides in place by `d`, returning the remainder.
    fn div_small(&mut self, d: u64) -> u64 {
        let mut rem: u128 = 0;
        for l in self.0.iter_mut().rev() {
            let cur = (rem << 64) | *l as u128;
            *l = (cur / d as u128) as u64;
            rem = cur % d as u128;
        }
        self.trim();
        rem as u64
    }

    fn shl(&self, n: u64) -> Big {
        if self.is_zero() {
            return Big::zero();
        }
        let limbs = (n / 64) as usize;
        let bits = n % 64;
        let mut out = vec![0u64; limbs];
        if bits == 0 {
            out.extend_from_slice(&self.0);
        } else {
            let mut carry = 0u64;
            for &l in &self.0 {
                out.push((l << bits) | carry);
                carry = l >> (64 - bits);
            }
            out.push(carry);
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn shr(&self, n: u64) -> Big {
        let limbs = (n / 64) as usize;
        if limbs >= self.0.len() {
            return Big::zero();
        }
        let bits = n % 64;
        let src = &self.0[limbs..];
        let mut out = Vec::with_capacity(src.len());
        for i in 0..src.len() {
            let lo = src[i] >> bits;
            let hi = if bits > 0 && i + 1 < src.len() {
                src[i + 1] << (64 - bits)
            } else {
                0
            };
            out.push(lo | hi);
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    fn plus(&self, other: &Big) -> Big {
        let (long, short) = if self.0.len() >= other.0.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut out = Vec::with_capacity(long.0.len() + 1);
        let mut carry = false;
        for i in 0..long.0.len() {
            let (s1, c1) = long.0[i].overflowing_add(short.0.get(i).copied().unwrap_or(0));
            let (s2, c2) = s1.overflowing_add(carry as u64);
            out.push(s2);
            carry = c1 || c2;
        }
        if carry {
            out.push(1);
        }
        Big(out)
    }

    /// `self - other`, for `self >= other`.
    fn sub(&mut self, other: &Big) {
        let mut borrow = false;
        for i in 0..self.0.len() {
            let (d1, b1) = self.0[i].overflowing_sub(other.0.get(i).copied().unwrap_or(0));
            let (d2, b2) = d1.overflowing_sub(borrow as u64);
            self.0[i] = d2;
            borrow = b1 || b2;
        }
        debug_assert!(!borrow, "Big::sub underflow");
        self.trim();
    }

    /// Quotient and remainder, by shift-and-subtract (the quotients here are short).
    fn div_rem(&self, d: &Big) -> (Big, Big) {
        debug_assert!(!d.is_zero());
        if self.cmp(d) == Ordering::Less {
            return (Big::zero(), self.clone());
        }
        let shift = self.bit_len() - d.bit_len();
        let mut rem = self.clone();
        let mut q = vec![0u64; (shift / 64 + 1) as usize];
        let mut ds = d.shl(shift);
        for i in (0..=shift).rev() {
            if rem.cmp(&ds) != Ordering::Less {
                rem.sub(&ds);
                q[(i / 64) as usize] |= 1 << (i % 64);
            }
            ds = ds.shr(1);
        }
        let mut q = Big(q);
        q.trim();
        (q, rem)
    }

    fn pow(base: u64, mut exp: u64) -> Big {
        // Multiply by the largest power of `base` fitting a u64 at a time.
        let mut chunk = 1u64;
        let mut chunk_exp = 0u64;
        while let Some(next) = chunk.checked_mul(base) {
            chunk = next;
            chunk_exp += 1;
        }
        let mut out = Big::from_u64(1);
        while exp >= chunk_exp {
            out.mul_small_add(chunk, 0);
            exp -= chunk_exp;
        }
        for _ in 0..exp {
            out.mul_small_add(base, 0);
        }
        out
    }

    fn to_decimal(&self) -> String {
        if self.is_zero() {
            return "0".into();
        }
        const TEN19: u64 = 10_000_000_000_000_000_000;
        let mut n = self.clone();
        let mut parts = Vec::new();
        while !n.is_zero() {
            parts.push(n.div_small(TEN19));
        }
        let mut s = parts.pop().map(|p| p.to_string()).unwrap_or_default();
        for p in parts.iter().rev() {
            s.push_str(&format!("{p:019}"));
        }
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Zero,
    /// `mant * 2^exp`; `mant` has its top bit set unless the value is denormal
    /// (then `exp == MIN_LSB_EXP`).
    Finite {
        mant: u64,
        exp: i64,
    },
    Inf,
    Nan,
}

/// An x87 extended-precision value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LongDouble {
    neg: bool,
    kind: Kind,
}

impl LongDouble {
    /// Positive zero.
    pub const ZERO: LongDouble = LongDouble {
        neg: false,
        kind: Kind::Zero,
    };

    /// The exact value of an integer (64 significand bits hold any i64).
    pub fn from_i64(v: i64) -> LongDouble {
        if v == 0 {
            return LongDouble::ZERO;
        }
        round(v < 0, &Big::from_u64(v.unsigned_abs()), 0, false)
    }

    /// Neither infinite nor NaN.
    pub fn is_finite(&self) -> bool {
        matches!(self.kind, Kind::Zero | Kind::Finite { .. })
    }

    /// Parses as Redis' `string2ld`: `strtold` over the whole string, no
    /// leading space, at most 5119 bytes, refusing NaN and results that
    /// overflow to infinity or underflow to zero (`ERANGE`). Accepts what
    /// glibc does: decimal and hex (`0x1.8p3`) forms, `inf`, `infinity`.
    pub fn parse(s: &[u8]) -> Option<LongDouble> {
        if s.is_empty() || s.len() >= MAX_LONG_DOUBLE_CHARS {
            return None;
        }
        if matches!(s[0], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
            return None;
        }
        let (neg, body) = match s[0] {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        if body.eq_ignore_ascii_case(b"inf") || body.eq_ignore_ascii_case(b"infinity") {
            return Some(LongDouble {
                neg,
                kind: Kind::Inf,
            });
        }
        let hex = body.len() > 2
            && body[0] == b'0'
            && (body[1] | 0x20) == b'x'
            && (body[2].is_ascii_hexdigit()
                || (body[2] == b'.' && body.get(3).is_some_and(|c| c.is_ascii_hexdigit())));
        let (n, exp2, exp10) = if hex {
            parse_hex(&body[2..])?
        } else {
            parse_decimal(body)?
        };
        if n.is_zero() {
            return Some(LongDouble {
                neg,
                kind: Kind::Zero,
            });
        }
        let v = exact_to_ld(neg, n, exp2, exp10);
        match v.kind {
            // ERANGE with HUGE_VAL or zero: string2ld refuses it.
            Kind::Inf | Kind::Zero => None,
            _ => Some(v),
        }
    }

    /// The sum, rounded once to 64 significand bits (nearest, ties to even).
    fn sum(self, other: LongDouble) -> LongDouble {
        use Kind::*;
        match (self.kind, other.kind) {
            (Nan, _) | (_, Nan) => LongDouble {
                neg: false,
                kind: Nan,
            },
            (Inf, Inf) if self.neg != other.neg => LongDouble {
                neg: false,
                kind: Nan,
            },
            (Inf, _) => self,
            (_, Inf) => other,
            (Zero, Zero) => LongDouble {
                neg: self.neg && other.neg,
                kind: Zero,
            },
            (Zero, _) => other,
            (_, Zero) => self,
            (Finite { mant: ma, exp: ea }, Finite { mant: mb, exp: eb }) => {
                let e = ea.min(eb);
                let a = Big::from_u64(ma).shl((ea - e) as u64);
                let b = Big::from_u64(mb).shl((eb - e) as u64);
                if self.neg == other.neg {
                    return round(self.neg, &a.plus(&b), e, false);
                }
                match a.cmp(&b) {
                    Ordering::Equal => LongDouble::ZERO,
                    Ordering::Greater => {
                        let mut d = a;
                        d.sub(&b);
                        round(self.neg, &d, e, false)
                    }
                    Ordering::Less => {
                        let mut d = b;
                        d.sub(&a);
                        round(other.neg, &d, e, false)
                    }
                }
            }
        }
    }

    /// `printf("%.17Lf")`: the exact binary value rounded to 17 decimals
    /// (ties to even, as glibc), `inf` / `nan` for the others.
    pub fn to_fixed17(&self) -> String {
        let sign = if self.neg { "-" } else { "" };
        let digits = match self.kind {
            Kind::Nan => return format!("{sign}nan"),
            Kind::Inf => return format!("{sign}inf"),
            Kind::Zero => Big::zero(),
            Kind::Finite { mant, exp } => {
                let mut n = Big::from_u64(mant);
                n.mul_small_add(10u64.pow(HUMAN_DECIMALS as u32), 0);
                if exp >= 0 {
                    n.shl(exp as u64)
                } else {
                    let shift = exp.unsigned_abs();
                    let q = n.shr(shift);
                    let round_bit = shift >= 1 && n.bit(shift - 1);
                    let rest = shift >= 2 && n.any_below(shift - 1);
                    if round_bit && (rest || q.bit(0)) {
                        q.plus(&Big::from_u64(1))
                    } else {
                        q
                    }
                }
            }
        };
        let mut s = digits.to_decimal();
        if s.len() <= HUMAN_DECIMALS {
            s = format!("{}{s}", "0".repeat(HUMAN_DECIMALS + 1 - s.len()));
        }
        let (int, frac) = s.split_at(s.len() - HUMAN_DECIMALS);
        format!("{sign}{int}.{frac}")
    }

    /// Redis' `ld2string(LD_STR_HUMAN)`: `%.17Lf` with trailing zeros and a
    /// trailing point removed, and `-0` written `0`.
    pub fn to_human(&self) -> String {
        super::trim_fixed(self.to_fixed17())
    }
}

impl std::ops::Add for LongDouble {
    type Output = LongDouble;

    /// x87 addition: the exact sum rounded once to 64 significand bits.
    fn add(self, other: LongDouble) -> LongDouble {
        self.sum(other)
    }
}

/// Rounds `n * 2^e` (plus a positive amount below one unit of `2^e` when
/// `sticky`) to extended precision. Callers with `sticky` pass at least 66
/// significant bits, so the sticky part always lies below the rounding bit.
fn round(neg: bool, n: &Big, e: i64, sticky: bool) -> LongDouble {
    if n.is_zero() {
        return LongDouble {
            neg,
            kind: Kind::Zero,
        };
    }
    let top = n.bit_len() as i64 - 1 + e;
    if top > MAX_TOP_EXP {
        return LongDouble {
            neg,
            kind: Kind::Inf,
        };
    }
    let mut lsb = (top - 63).max(MIN_LSB_EXP);
    let shift = lsb - e;
    let mut mant: u64;
    if shift <= 0 {
        mant = n.shl(shift.unsigned_abs()).0.first().copied().unwrap_or(0);
    } else {
        let shift = shift as u64;
        mant = n.shr(shift).0.first().copied().unwrap_or(0);
        let round_bit = n.bit(shift - 1);
        let rest = sticky || (shift >= 2 && n.any_below(shift - 1));
        if round_bit && (rest || mant & 1 == 1) {
            match mant.checked_add(1) {
                Some(m) => mant = m,
                None => {
                    mant = 1 << 63;
                    lsb += 1;
                }
            }
        }
    }
    if mant == 0 {
        return LongDouble {
            neg,
            kind: Kind::Zero,
        };
    }
    if lsb + 63 > MAX_TOP_EXP {
        return LongDouble {
            neg,
            kind: Kind::Inf,
        };
    }
    LongDouble {
        neg,
        kind: Kind::Finite { mant, exp: lsb },
    }
}

/// Exponents beyond this are saturated while parsing: the value is already
/// infinite or zero long before.
const EXP_CLAMP: i64 = 1 << 40;

/// Parses `[+-]?digits` of an exponent, saturating; `None` if no digit.
fn parse_exp(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        v = (v * 10 + (c - b'0') as i64).min(EXP_CLAMP);
    }
    Some(if neg { -v } else { v })
}

/// `digits[.digits][e[+-]digits]` covering all of `s`: the digits as an
/// integer, and the power of ten to scale it by.
fn parse_decimal(s: &[u8]) -> Option<(Big, i64, i64)> {
    let mut n = Big::zero();
    let mut i = 0;
    let mut seen_digit = false;
    let mut frac_digits: i64 = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        n.mul_small_add(10, (s[i] - b'0') as u64);
        seen_digit = true;
        i += 1;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        while i < s.len() && s[i].is_ascii_digit() {
            n.mul_small_add(10, (s[i] - b'0') as u64);
            frac_digits += 1;
            seen_digit = true;
            i += 1;
        }
    }
    if !seen_digit {
        return None;
    }
    let mut exp10 = -frac_digits;
    if i < s.len() {
        if s[i] | 0x20 != b'e' {
            return None;
        }
        exp10 += parse_exp(&s[i + 1..])?;
    }
    Some((n, 0, exp10))
}

/// After `0x`: `hexdigits[.hexdigits][p[+-]digits]` covering all of `s`.
fn parse_hex(s: &[u8]) -> Option<(Big, i64, i64)> {
    let mut n = Big::zero();
    let mut i = 0;
    let mut frac_digits: i64 = 0;
    let hexval = |c: u8| (c as char).to_digit(16).map(|d| d as u64);
    while let Some(d) = s.get(i).copied().and_then(hexval) {
        n.mul_small_add(16, d);
        i += 1;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        while let Some(d) = s.get(i).copied().and_then(hexval) {
            n.mul_small_add(16, d);
            frac_digits += 1;
            i += 1;
        }
    }
    let mut exp2 = -4 * frac_digits;
    if i < s.len() {
        if s[i] | 0x20 != b'p' {
            return None;
        }
        exp2 += parse_exp(&s[i + 1..])?;
    }
    Some((n, exp2, 0))
}

/// Rounds the exact value `n * 2^exp2 * 10^exp10` (n > 0) to extended precision.
fn exact_to_ld(neg: bool, n: Big, exp2: i64, exp10: i64) -> LongDouble {
    let inf = LongDouble {
        neg,
        kind: Kind::Inf,
    };
    let zero = LongDouble {
        neg,
        kind: Kind::Zero,
    };
    // Decide the hopeless cases by magnitude first: log2(10) < 3.33.
    let approx_top = n.bit_len() as i64 + exp2 + (exp10 as f64 * std::f64::consts::LOG2_10) as i64;
    if approx_top > MAX_TOP_EXP + 8 {
        return inf;
    }
    if approx_top < MIN_LSB_EXP - 8 {
        return zero;
    }
    if exp10 >= 0 {
        let mut m = n;
        let p = Big::pow(10, exp10 as u64);
        m = mul(&m, &p);
        return round(neg, &m, exp2, false);
    }
    // n / 10^k = n / 5^k * 2^-k: divide by 5^k with enough quotient bits.
    let k = exp10.unsigned_abs();
    let five = Big::pow(5, k);
    let want = five.bit_len() as i64 + 67 - n.bit_len() as i64;
    let s = want.max(0) as u64;
    let (q, r) = n.shl(s).div_rem(&five);
    round(neg, &q, exp2 - k as i64 - s as i64, !r.is_zero())
}

/// Schoolbook product.
fn mul(a: &Big, b: &Big) -> Big {
    if a.is_zero() || b.is_zero() {
        return Big::zero();
    }
    let mut out = vec![0u64; a.0.len() + b.0.len()];
    for (i, &x) in a.0.iter().enumerate() {
        let mut carry: u128 = 0;
        for (j, &y) in b.0.iter().enumerate() {
            let cur = out[i + j] as u128 + x as u128 * y as u128 + carry;
            out[i + j] = cur as u64;
            carry = cur >> 64;
        }
        out[i + b.0.len()] = carry as u64;
    }
    let mut r = Big(out);
    r.trim();
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> LongDouble {
        LongDouble::parse(s.as_bytes()).unwrap_or_else(|| panic!("{s} should parse"))
    }

    fn incr(a: &str, b: &str) -> String {
        (p(a) + p(b)).to_human()
    }

    #[test]
    fn redis_documented_examples() {
        // From the INCRBYFLOAT page.
        assert_eq!(incr("10.50", "0.1"), "10.6");
        assert_eq!(incr("10.6", "-5"), "5.6");
        assert_eq!(incr("5.0e3", "2.0e2"), "5200");
        assert_eq!(incr("0.1", "0.2"), "0.3");
    }

    #[test]
    fn extended_precision_shows_like_in_redis() {
        // Replies of a real Redis 7 on x86-64.
        assert_eq!(incr("0", "10000000000.1"), "10000000000.09999999962747097");
        assert_eq!(incr("0", "0.000003814697265625"), "0.00000381469726562");
        assert_eq!(incr("0", "0x1p-3"), "0.125");
        assert!(incr("0", "1e300").starts_with(
            "1000000000000000000008997324079559193870523944273290747938260082321265646596180935755849152083750497"
        ));
    }

    #[test]
    fn fixed_formatting() {
        assert_eq!(LongDouble::ZERO.to_fixed17(), "0.00000000000000000");
        assert_eq!(p("1.5").to_fixed17(), "1.50000000000000000");
        assert_eq!(p("-2").to_human(), "-2");
        assert_eq!(p("-0").to_human(), "0");
        assert_eq!(p("-1e-30").to_human(), "0");
        assert_eq!(p("1e-17").to_human(), "0.00000000000000001");
        assert_eq!(p("123").to_human(), "123");
        assert_eq!(
            LongDouble::from_i64(i64::MIN).to_human(),
            "-9223372036854775808"
        );
    }

    #[test]
    fn parse_rules_of_string2ld() {
        for bad in [
            "",
            " 1",
            "1 ",
            "abc",
            "1e",
            "1e+",
            "0x",
            "0x.",
            ".",
            "+",
            "-",
            "nan",
            "NaN",
            "1..2",
            "1e5000",
            "-1e5000",
            "1e-5000",
            "0x1p99999",
            "infin",
            "1,5",
            "1\x002",
        ] {
            assert!(
                LongDouble::parse(bad.as_bytes()).is_none(),
                "{bad:?} should not parse"
            );
        }
        for good in [
            "1",
            "+1",
            "-1",
            "1.",
            ".5",
            "1e3",
            "1E+3",
            "1e-3",
            "0x10",
            "0X1.8p1",
            "0x.8",
            "inf",
            "-Infinity",
            "1e4000",
            "0e99999",
            "00012",
            "3.6e-4951",
        ] {
            assert!(
                LongDouble::parse(good.as_bytes()).is_some(),
                "{good:?} should parse"
            );
        }
        let long = format!("0.{}", "9".repeat(5117));
        assert_eq!(
            LongDouble::parse(long.as_bytes()).map(|v| v.to_human()),
            Some("1".into())
        );
        let too_long = format!("0.{}", "9".repeat(5118));
        assert!(LongDouble::parse(too_long.as_bytes()).is_none());
        // 10^5118 is beyond the largest extended value (~1.19e4932).
        assert!(LongDouble::parse("9".repeat(5119).as_bytes()).is_none());
        assert!(!p("inf").is_finite());
        assert_eq!(p("0x1.8p1").to_human(), "3");
        assert_eq!(p("0x.8").to_human(), "0.5");
    }

    #[test]
    fn overflow_and_nan() {
        assert!(!(p("1e4932") + p("1e4932")).is_finite());
        assert!(!(p("inf") + p("-inf")).is_finite());
        assert!((p("1e4932") + p("-1e4932")).is_finite());
        assert_eq!((p("1e4932") + p("-1e4932")).to_human(), "0");
    }

    #[test]
    fn denormals_round_trip() {
        // The smallest denormal is 2^-16445 ~ 3.645e-4951: half of it rounds to zero.
        assert!(LongDouble::parse(b"3.6e-4951").is_some());
        assert!(LongDouble::parse(b"1.8e-4951").is_none());
        let tiny = p("3.6e-4951");
        assert_eq!(
            tiny.kind,
            Kind::Finite {
                mant: 1,
                exp: MIN_LSB_EXP
            }
        );
        assert_eq!(
            (tiny + tiny).kind,
            Kind::Finite {
                mant: 2,
                exp: MIN_LSB_EXP
            }
        );
    }

    #[test]
    fn ties_round_to_even() {
        // 2^64 + 1 is halfway between two extended values: rounds to even (2^64).
        let big = LongDouble::from_i64(i64::MAX) + LongDouble::from_i64(1); // 2^63
        let two64 = big + big;
        let r = two64 + LongDouble::from_i64(1);
        assert_eq!(r, two64);
        let r3 = two64 + LongDouble::from_i64(3);
        assert_eq!(r3.to_human(), "18446744073709551620");
    }

    #[test]
    fn matches_f64_where_f64_is_exact() {
        let mut rng = fastrand::Rng::with_seed(11);
        for _ in 0..2000 {
            let a = rng.i32(..) as f64 / 1024.0;
            let b = rng.i32(..) as f64 / 256.0;
            let sa = format!("{a}");
            let sb = format!("{b}");
            let got = incr(&sa, &sb);
            // The sum is exact in f64 and has at most 10 decimals.
            let want = crate::num::trim_fixed(format!("{:.10}", a + b));
            assert_eq!(got, want, "{sa} + {sb}");
        }
    }
}
