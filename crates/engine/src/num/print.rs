//! Floats printed with a fixed number of decimals (`{:.N}`, C's `%.Nf`) or significant digits (`{:.Ne}`), rounded as std rounds them: std's own formatting in every build but the light console's, which works the exact decimal expansion out with `num::decimal`'s arithmetic instead of carrying std's float printing (Grisu, Dragon and their tables, some 17 KB of wasm).
//!
//! A double is m × 2^e exactly, so its decimal expansion is finite; the
//! light build writes m in decimal and halves or doubles it e times, then
//! rounds at the wanted digit, a tie (exactly half) to even. Both builds
//! are tested against std on random doubles, precisions and the halfway
//! cases. Where only the shortest form would do (`{}` of an `f64`), the
//! console's pictures print a fixed number of decimals instead.

/// `x` with `prec` decimals, as `format!("{x:.prec$}")`.
pub fn fixed(x: f64, prec: usize) -> String {
    #[cfg(feature = "light")]
    return exact::fixed(x, prec);
    #[cfg(not(feature = "light"))]
    format!("{x:.prec$}")
}

/// `x` in scientific notation with `prec` decimals, as
/// `format!("{x:.prec$e}")`.
pub fn sci(x: f64, prec: usize) -> String {
    #[cfg(feature = "light")]
    return exact::sci(x, prec);
    #[cfg(not(feature = "light"))]
    format!("{x:.prec$e}")
}

#[cfg(any(feature = "light", test))]
pub(crate) mod exact {
    use crate::num::decimal::Decimal;

    /// The exact decimal expansion of a finite, non-zero `|x|`.
    fn expand(x: f64) -> Decimal {
        let bits = x.abs().to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1 << 52) - 1);
        let (m, mut e) = if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), exp - 1075)
        };
        let digits = m.to_string().bytes().map(|c| c - b'0').collect();
        let mut d = Decimal::new(digits, 0);
        while e > 0 {
            let k = e.min(60);
            d.shift_left(k as u32);
            e -= k;
        }
        while e < 0 {
            let k = (-e).min(60);
            d.shift_right(k as u32);
            e += k;
        }
        d
    }

    /// The first `keep` digits of `d` (zeros past its end), rounded half to
    /// even on what follows; the point moves up by one if rounding carried
    /// out of the first digit (`999` → `1000`). `keep` may be zero or less:
    /// nothing is kept, and the value rounds to 0 or to one unit there.
    fn round(d: &Decimal, keep: i64) -> (Vec<u8>, i64) {
        let mut point = d.point;
        let n = keep.max(0) as usize;
        let mut out: Vec<u8> = (0..n)
            .map(|i| d.digits.get(i).copied().unwrap_or(0))
            .collect();
        let up = if keep < 0 {
            false
        } else {
            match d.digits.get(n) {
                None => false,
                Some(5) if n + 1 == d.digits.len() => out.last().is_some_and(|c| c % 2 == 1),
                Some(&c) => c >= 5,
            }
        };
        if up {
            let mut i = n;
            loop {
                if i == 0 {
                    out.insert(0, 1);
                    out.pop();
                    point += 1;
                    if n == 0 {
                        // Nothing was kept: the unit itself.
                        return (vec![1], point);
                    }
                    break;
                }
                i -= 1;
                if out[i] == 9 {
                    out[i] = 0;
                } else {
                    out[i] += 1;
                    break;
                }
            }
        }
        (out, point)
    }

    fn special(x: f64) -> Option<String> {
        if x.is_nan() {
            Some("NaN".into())
        } else if x.is_infinite() {
            Some(if x < 0.0 { "-inf" } else { "inf" }.into())
        } else {
            None
        }
    }

    /// What both forms start from: the sign, then the digits rounded to
    /// `keep(point)` of them (`zero`'s for 0), and their point; or the text
    /// of a NaN or an infinity.
    fn start(
        x: f64,
        keep: impl Fn(i64) -> i64,
        zero: (Vec<u8>, i64),
    ) -> Result<(String, Vec<u8>, i64), String> {
        if let Some(s) = special(x) {
            return Err(s);
        }
        let sign = if x.is_sign_negative() { "-" } else { "" };
        let (digits, point) = if x == 0.0 {
            zero
        } else {
            let d = expand(x);
            round(&d, keep(d.point))
        };
        Ok((sign.to_string(), digits, point))
    }

    pub fn fixed(x: f64, prec: usize) -> String {
        let (mut out, digits, point) = match start(x, |p| p + prec as i64, (Vec::new(), 0)) {
            Ok(parts) => parts,
            Err(text) => return text,
        };
        // `digits` start at 10^(point - 1); print from 10^max(point-1, 0)
        // down to 10^-prec.
        let digit = |pos: i64| -> char {
            // pos: the power of ten, digit index point - 1 - pos.
            let i = point - 1 - pos;
            let v = if i >= 0 {
                digits.get(i as usize).copied().unwrap_or(0)
            } else {
                0
            };
            (b'0' + v) as char
        };
        let top = (point - 1).max(0);
        for pos in (0..=top).rev() {
            out.push(digit(pos));
        }
        if prec > 0 {
            out.push('.');
            for pos in 1..=prec as i64 {
                out.push(digit(-pos));
            }
        }
        out
    }

    pub fn sci(x: f64, prec: usize) -> String {
        let (mut out, digits, point) = match start(x, |_| prec as i64 + 1, (vec![0; prec + 1], 1)) {
            Ok(parts) => parts,
            Err(text) => return text,
        };
        out.push((b'0' + digits[0]) as char);
        if prec > 0 {
            out.push('.');
            for &c in &digits[1..=prec] {
                out.push((b'0' + c) as char);
            }
        }
        out.push('e');
        out.push_str(&(point - 1).to_string());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::exact;
    use proptest::prelude::*;

    fn same(x: f64, prec: usize) {
        assert_eq!(
            exact::fixed(x, prec),
            format!("{x:.prec$}"),
            "{x:e} .{prec}"
        );
        assert_eq!(
            exact::sci(x, prec),
            format!("{x:.prec$e}"),
            "{x:e} .{prec}e"
        );
        assert_eq!(super::fixed(x, prec), format!("{x:.prec$}"));
        assert_eq!(super::sci(x, prec), format!("{x:.prec$e}"));
    }

    #[test]
    fn edges_match_std() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.5,
            0.125,
            0.375,
            9.995,
            9.5,
            99.5,
            0.05,
            0.005,
            0.0049,
            1e-7,
            123456.789,
            1e21,
            1e22,
            1.7976931348623157e308,
            5e-324,
            2.2250738585072014e-308,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.1,
            0.7,
            1.0 / 3.0,
            2f64.powi(53) + 2.0,
            999.9999,
            -0.0001,
        ] {
            for prec in [0, 1, 2, 3, 4, 6, 10, 16, 17, 20, 30] {
                same(x, prec);
            }
        }
    }

    proptest! {
        #[test]
        fn random_doubles_match_std(bits in any::<u64>(), prec in 0usize..25) {
            let x = f64::from_bits(bits);
            prop_assert_eq!(exact::fixed(x, prec.min(12)), format!("{x:.p$}", p = prec.min(12)));
            prop_assert_eq!(exact::sci(x, prec), format!("{x:.prec$e}"));
        }

        #[test]
        fn everyday_numbers_match_std(n in -10_000_000i64..10_000_000, scale in 0u32..8, prec in 0usize..8) {
            let x = n as f64 / 10f64.powi(scale as i32);
            prop_assert_eq!(exact::fixed(x, prec), format!("{x:.prec$}"));
            prop_assert_eq!(exact::sci(x, prec), format!("{x:.prec$e}"));
        }

        /// Exact halves between two printable values round to even.
        #[test]
        fn halves_round_to_even(n in 0u64..100_000, prec in 0usize..4) {
            let x = (n as f64 + 0.5) / 10f64.powi(prec as i32);
            prop_assert_eq!(exact::fixed(x, prec), format!("{x:.prec$}"));
            let y = (2 * n + 1) as f64 / 2f64.powi(prec as i32 + 1);
            prop_assert_eq!(exact::fixed(y, prec), format!("{y:.prec$}"));
        }
    }
}
