//! Decimal text to the nearest `f64` by exact decimal arithmetic, for the browser's console: std's parser carries a 10 KB table of powers of five, about 2% of that module.
//!
//! The number is held as its decimal digits and a decimal point position,
//! and scaled by powers of two (exact in decimal) until it lies in
//! [1/2, 1); its top 53 bits are then read off and rounded to nearest,
//! ties to even. Every step is exact, so the result is the correctly
//! rounded one, the same as std's (and glibc's) for every input; it is
//! slower, which one command's arguments never notice. Builds other than
//! `light` keep std's parser ([`parse_f64`] says which runs).

/// `s` read as Rust's `f64::from_str` reads it: an optional sign, then
/// `inf`, `infinity` or `nan` (any case), or digits with an optional `.`
/// and an optional exponent. `None` where that refuses it.
pub fn parse_f64(s: &str) -> Option<f64> {
    #[cfg(feature = "light")]
    return exact(s);
    #[cfg(not(feature = "light"))]
    s.parse().ok()
}

/// The `f64` nearest to the ASCII decimal `digits` × 10^`e10`, for a
/// reader that has already taken the number apart (`strtod`): the light
/// build goes straight to the arithmetic, others print it for std's parser.
pub fn from_digits(digits: &[u8], e10: i64) -> f64 {
    #[cfg(feature = "light")]
    return nearest(digits.iter().map(|c| c - b'0').collect(), e10);
    #[cfg(not(feature = "light"))]
    format!("{}e{e10}", std::str::from_utf8(digits).unwrap_or("0"))
        .parse()
        .unwrap_or(0.0)
}

/// The light build's [`parse_f64`].
#[cfg(any(feature = "light", test))]
fn exact(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (neg, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let signed = |v: f64| if neg { -v } else { v };
    if b.eq_ignore_ascii_case(b"inf") || b.eq_ignore_ascii_case(b"infinity") {
        return Some(signed(f64::INFINITY));
    }
    if b.eq_ignore_ascii_case(b"nan") {
        return Some(signed(f64::NAN));
    }
    let int_end = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut end = int_end;
    let mut frac: &[u8] = &[];
    if b.get(end) == Some(&b'.') {
        let n = b[end + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        frac = &b[end + 1..end + 1 + n];
        end += 1 + n;
    }
    if int_end == 0 && frac.is_empty() {
        return None;
    }
    let mut exp: i64 = 0;
    if end < b.len() {
        if !matches!(b[end], b'e' | b'E') {
            return None;
        }
        let (eneg, digits) = match b.get(end + 1) {
            Some(b'-') => (true, &b[end + 2..]),
            Some(b'+') => (false, &b[end + 2..]),
            _ => (false, &b[end + 1..]),
        };
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        for &c in digits {
            exp = exp.saturating_mul(10).saturating_add((c - b'0') as i64);
        }
        if eneg {
            exp = -exp;
        }
    }
    let digits: Vec<u8> = b[..int_end].iter().chain(frac).map(|c| c - b'0').collect();
    let e10 = exp.saturating_sub(frac.len() as i64);
    Some(signed(nearest(digits, e10)))
}

/// The `f64` nearest to `digits` (values 0 to 9) × 10^`e10`, ties to even.
#[cfg(any(feature = "light", test))]
pub(crate) fn nearest(digits: Vec<u8>, e10: i64) -> f64 {
    let mut d = Decimal::new(digits, e10);
    if d.digits.is_empty() || d.point < -330 {
        return 0.0;
    }
    if d.point > 310 {
        return f64::INFINITY;
    }
    // How far to shift with the point at ±p: 2^STEP[p] < 10^p, so a shift
    // never carries the point across zero (27 bits move it by at most 9).
    const STEP: [u32; 9] = [1, 3, 6, 9, 13, 16, 19, 23, 26];
    let step = |p: i64| STEP.get(p.unsigned_abs() as usize).copied().unwrap_or(27);
    let mut exp: i64 = 0;
    while d.point > 0 {
        let k = step(d.point);
        d.shift_right(k);
        exp += k as i64;
    }
    while d.point < 0 || (d.point == 0 && d.digits[0] < 5) {
        let k = step(d.point);
        d.shift_left(k);
        exp -= k as i64;
    }
    // Now the value is in [1/2, 1): it is (2 × value) × 2^(exp - 1).
    exp -= 1;
    if exp < -1022 {
        // Subnormal: the exponent stays at its least, the mantissa shrinks.
        let mut n = -1022 - exp;
        while n > 0 {
            let k = n.min(60) as u32;
            d.shift_right(k);
            n -= k as i64;
        }
        exp = -1022;
    }
    if exp > 1023 {
        return f64::INFINITY;
    }
    d.shift_left(53);
    let mut mant = d.rounded_integer();
    if mant == 1 << 53 {
        mant >>= 1;
        exp += 1;
        if exp > 1023 {
            return f64::INFINITY;
        }
    }
    let biased = if mant & (1 << 52) == 0 { 0 } else { exp + 1023 };
    f64::from_bits((mant & ((1 << 52) - 1)) | ((biased as u64) << 52))
}

/// 0.d1 d2 d3 ... × 10^point, with no leading or trailing zero digit.
#[cfg(any(feature = "light", test))]
pub(super) struct Decimal {
    pub(super) digits: Vec<u8>,
    pub(super) point: i64,
}

#[cfg(any(feature = "light", test))]
impl Decimal {
    pub(super) fn new(mut digits: Vec<u8>, e10: i64) -> Decimal {
        let lead = digits.iter().take_while(|&&c| c == 0).count();
        digits.drain(..lead);
        let point = (digits.len() as i64).saturating_add(e10);
        let mut d = Decimal { digits, point };
        d.trim();
        d
    }

    fn trim(&mut self) {
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
        if self.digits.is_empty() {
            self.point = 0;
        }
    }

    /// × 2^k (k <= 60, so a digit times 2^k plus the carry fits in u64).
    pub(super) fn shift_left(&mut self, k: u32) {
        let mut out = Vec::with_capacity(self.digits.len() + 20);
        let mut carry: u64 = 0;
        for &c in self.digits.iter().rev() {
            let v = ((c as u64) << k) + carry;
            out.push((v % 10) as u8);
            carry = v / 10;
        }
        while carry > 0 {
            out.push((carry % 10) as u8);
            carry /= 10;
        }
        self.point += (out.len() - self.digits.len()) as i64;
        out.reverse();
        self.digits = out;
        self.trim();
    }

    /// ÷ 2^k (k <= 60, so the running remainder times 10 fits in u64).
    /// Long division from the top: each quotient digit is the remainder's
    /// bits above k; the division always ends, as 2^k divides 10^k.
    pub(super) fn shift_right(&mut self, k: u32) {
        let mask = (1u64 << k) - 1;
        let mut rem: u64 = 0;
        let mut read = 0;
        // Take digits until the remainder reaches 2^k: the first quotient digit.
        while rem >> k == 0 {
            if read < self.digits.len() {
                rem = rem * 10 + self.digits[read] as u64;
            } else if rem == 0 {
                self.digits.clear();
                self.point = 0;
                return;
            } else {
                rem *= 10;
            }
            read += 1;
        }
        self.point -= read as i64 - 1;
        let mut out = Vec::with_capacity(self.digits.len() + k as usize);
        while read < self.digits.len() {
            out.push((rem >> k) as u8);
            rem = (rem & mask) * 10 + self.digits[read] as u64;
            read += 1;
        }
        while rem > 0 {
            out.push((rem >> k) as u8);
            rem = (rem & mask) * 10;
        }
        self.digits = out;
        self.trim();
    }

    /// The integer part, rounded to nearest, ties to even (the digits are
    /// exact, so a 5 with nothing after it is exactly half).
    fn rounded_integer(&self) -> u64 {
        if self.point < 0 {
            return 0; // below 1/10
        }
        let p = self.point as usize;
        let mut n: u64 = 0;
        for i in 0..p {
            n = n * 10 + self.digits.get(i).copied().unwrap_or(0) as u64;
        }
        let up = match self.digits.get(p) {
            None => false,
            Some(5) if p + 1 == self.digits.len() => p > 0 && self.digits[p - 1] % 2 == 1,
            Some(&c) => c >= 5,
        };
        n + up as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn same(s: &str) {
        let ours = exact(s);
        let std: Option<f64> = s.parse().ok();
        assert_eq!(
            ours.map(f64::to_bits),
            std.map(f64::to_bits),
            "{s}: {ours:?} vs {std:?}"
        );
    }

    #[test]
    fn edges_match_std() {
        for s in [
            "0",
            "-0",
            "0.0",
            "1",
            "-1",
            "+1.5",
            ".5",
            "5.",
            "1e10",
            "1E-10",
            "1e+3",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "1e-324",
            "3e-324",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "9007199254740993",
            "9007199254740995",
            "9007199254740992.5",
            "0.1",
            "0.2",
            "0.3",
            "123456789012345678901234567890",
            "1e400",
            "1e-400",
            "0.000000000000000000000000000000000000001",
            "00001.2500",
            "1e99999999999999999999",
            "1e-99999999999999999999",
            "inf",
            "-Infinity",
            "NaN",
            "",
            ".",
            "e5",
            "1e",
            "1e+",
            "1.2.3",
            "--1",
            "1x",
            " 1",
            "0x10",
            "infinit",
            "nan(1)",
        ] {
            same(s);
        }
    }

    #[test]
    fn taken_apart_digits_read_as_their_text() {
        for (digits, e10) in [
            (&b"15"[..], -1),
            (b"9007199254740993", 0),
            (b"5", -324),
            (b"1", 400),
        ] {
            let text = format!("{}e{e10}", std::str::from_utf8(digits).unwrap());
            assert_eq!(
                from_digits(digits, e10).to_bits(),
                text.parse::<f64>().unwrap().to_bits()
            );
            assert_eq!(
                nearest(digits.iter().map(|c| c - b'0').collect(), e10).to_bits(),
                text.parse::<f64>().unwrap().to_bits()
            );
        }
    }

    proptest! {
        /// Any float's shortest and long renderings read back as std reads them.
        #[test]
        fn every_float_reads_back(bits in any::<u64>()) {
            let v = f64::from_bits(bits);
            if v.is_finite() {
                same(&format!("{v:e}"));
                same(&format!("{v:.25e}"));
                same(&v.to_string());
            }
        }

        /// Arbitrary digit strings with any exponent, halfway cases included.
        #[test]
        fn digit_strings_match_std(int in "[0-9]{0,30}", frac in "[0-9]{0,30}", e in -400i32..400) {
            if !int.is_empty() || !frac.is_empty() {
                same(&format!("{int}.{frac}e{e}"));
                same(&format!("{int}{frac}5e{e}"));
                same(&format!("{int}{frac}50000000000000000000001e{e}"));
            }
        }

        /// Exact midpoints between neighbouring floats round to even.
        #[test]
        fn midpoints_round_to_even(bits in 1u64..0x7fe0_0000_0000_0000) {
            let lo = f64::from_bits(bits);
            // The midpoint of lo and its successor, written exactly: lo's
            // mantissa m × 2^e is (2m + 1) × 2^(e - 1) halfway up.
            let (m, e) = if bits >> 52 == 0 { (bits, -1074i32) } else {
                ((bits & ((1 << 52) - 1)) | (1 << 52), (bits >> 52) as i32 - 1075)
            };
            let text = exact_decimal(2 * m as u128 + 1, e - 1);
            same(&text);
            prop_assert!(lo.is_finite());
        }
    }

    /// `m` × 2^`e` written out exactly in decimal.
    fn exact_decimal(m: u128, e: i32) -> String {
        let mut d = Decimal::new(m.to_string().bytes().map(|c| c - b'0').collect(), 0);
        let mut n = e.unsigned_abs();
        while n > 0 {
            let k = n.min(60);
            if e >= 0 {
                d.shift_left(k);
            } else {
                d.shift_right(k);
            }
            n -= k;
        }
        let digits: String = d.digits.iter().map(|c| (c + b'0') as char).collect();
        format!("0.{digits}e{}", d.point)
    }
}
