//! Lua 5.1 numbers as text: `tostring`'s `%.14g`, the string-to-number rules of `luaO_str2d` (glibc `strtod`), and C `printf` conversions for `string.format`.

use crate::num::double::strtod;

/// C's `isspace` in the C locale.
pub fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The part of a Lua string C functions see: up to the first NUL.
pub fn cstr(s: &[u8]) -> &[u8] {
    match s.iter().position(|&b| b == 0) {
        Some(i) => &s[..i],
        None => s,
    }
}

/// `luaO_str2d`: `strtod` over the whole string, trailing blanks allowed
/// (so `" 0x10 "`, `"1e2"`, `"inf"` and `"nan"` are numbers, as with glibc).
pub fn str2d(s: &[u8]) -> Option<f64> {
    let s = cstr(s);
    let r = strtod(s);
    if r.len == 0 {
        return None;
    }
    if s[r.len..].iter().all(|&c| is_space(c)) {
        Some(r.value)
    } else {
        None
    }
}

/// `strtoul(s, &end, base)` as `tonumber(s, base)` uses it: the value and
/// whether any digit was read; the rest must be blanks.
pub fn str2ul(s: &[u8], base: u32) -> Option<f64> {
    let s = cstr(s);
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    if base == 16
        && s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        i += 2;
    }
    let first = i;
    let mut n: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(i).and_then(|c| (*c as char).to_digit(base)) {
        match n
            .checked_mul(base as u64)
            .and_then(|n| n.checked_add(d as u64))
        {
            Some(v) => n = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == first {
        return None;
    }
    if !s[i..].iter().all(|&c| is_space(c)) {
        return None;
    }
    if overflow {
        n = u64::MAX;
    } else if neg {
        n = n.wrapping_neg();
    }
    Some(n as f64)
}

/// The NaN x86 produces for an invalid operation (sign bit set: `-nan`).
pub const DEFAULT_NAN: f64 = f64::from_bits(0xfff8_0000_0000_0000);

/// A NaN result as the x86 FPU makes it: a NaN operand propagates, a new
/// one is the default NaN, so printing matches Redis on Linux x86-64.
pub fn fix_nan(r: f64, a: f64, b: f64) -> f64 {
    if !r.is_nan() {
        r
    } else if a.is_nan() {
        a
    } else if b.is_nan() {
        b
    } else {
        DEFAULT_NAN
    }
}

/// `(long long)d` on x86-64: out of range or NaN gives `LLONG_MIN`.
pub fn c_long(d: f64) -> i64 {
    if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&d) {
        i64::MIN
    } else {
        d as i64
    }
}

/// `(int)d` on x86-64: out of range or NaN gives `INT_MIN`.
pub fn c_int(d: f64) -> i32 {
    if d.is_nan() || d >= 2_147_483_648.0 || d <= -2_147_483_649.0 {
        i32::MIN
    } else {
        d as i32
    }
}

/// `tostring(n)`: `%.14g`.
pub fn fmt_num(n: f64) -> String {
    fmt_g(n, 14, false, false)
}

fn special(x: f64, upper: bool) -> Option<String> {
    let s = if x.is_nan() {
        if x.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        }
    } else if x.is_infinite() {
        if x < 0.0 {
            "-inf"
        } else {
            "inf"
        }
    } else {
        return None;
    };
    Some(if upper {
        s.to_ascii_uppercase()
    } else {
        s.to_string()
    })
}

/// The decimal exponent `%e` with `prec` digits after the point would show.
fn exponent_of(x: f64, prec: usize) -> i32 {
    let s = format!("{:.*e}", prec, x.abs());
    s.rsplit_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0)
}

/// `%.<prec>e` without sign, C style (`1.5e+02`).
fn fmt_e_abs(x: f64, prec: usize, upper: bool, alt: bool) -> String {
    let s = format!("{:.*e}", prec, x.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let mut out = mant.to_string();
    if alt && prec == 0 {
        out.push('.');
    }
    out.push(if upper { 'E' } else { 'e' });
    out.push(if e < 0 { '-' } else { '+' });
    out.push_str(&format!("{:02}", e.unsigned_abs()));
    out
}

/// `%.<prec>g` (or `%#g` with `alt`): the shorter of `%e` and `%f` by C's
/// rule, trailing zeros removed unless `alt`.
pub fn fmt_g(x: f64, prec: usize, upper: bool, alt: bool) -> String {
    if let Some(s) = special(x, upper) {
        return s;
    }
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    out.push_str(&fmt_g_abs(x, prec, upper, alt));
    out
}

fn fmt_g_abs(x: f64, prec: usize, upper: bool, alt: bool) -> String {
    let p = prec.max(1);
    let ex = exponent_of(x, p - 1);
    let mut body = if ex < -4 || ex >= p as i32 {
        fmt_e_abs(x, p - 1, upper, alt)
    } else {
        let decimals = (p as i32 - 1 - ex).max(0) as usize;
        let mut s = format!("{:.*}", decimals, x.abs());
        if alt && !s.contains('.') {
            s.push('.');
        }
        s
    };
    if !alt {
        body = strip_zeros(&body);
    }
    body
}

/// Removes trailing zeros of the fraction (and a bare point), keeping any exponent.
fn strip_zeros(s: &str) -> String {
    let (mant, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    if !mant.contains('.') {
        return s.to_string();
    }
    let m = mant.trim_end_matches('0').trim_end_matches('.');
    format!("{m}{exp}")
}

/// One `%` conversion's flags, width and precision.
#[derive(Default, Clone, Copy)]
pub struct Spec {
    pub left: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    pub zero: bool,
    pub width: usize,
    pub prec: Option<usize>,
}

impl Spec {
    /// Pads `body` (digits, no sign) with `sign` to the width, as printf does.
    fn pad(&self, sign: &str, body: &str, zero_ok: bool) -> String {
        let len = sign.len() + body.len();
        if len >= self.width {
            return format!("{sign}{body}");
        }
        let fill = self.width - len;
        if self.left {
            format!("{sign}{body}{}", " ".repeat(fill))
        } else if self.zero && zero_ok {
            format!("{sign}{}{body}", "0".repeat(fill))
        } else {
            format!("{}{sign}{body}", " ".repeat(fill))
        }
    }

    fn sign(&self, neg: bool) -> &'static str {
        if neg {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }

    /// `%d`/`%i` of a C `long`.
    pub fn int(&self, v: i64) -> String {
        let mut digits = v.unsigned_abs().to_string();
        if let Some(p) = self.prec {
            if p == 0 && v == 0 {
                digits.clear();
            }
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        self.pad(self.sign(v < 0), &digits, self.prec.is_none())
    }

    /// `%o`, `%u`, `%x`, `%X` of a C `unsigned long`.
    pub fn unsigned(&self, v: u64, conv: u8) -> String {
        let mut digits = match conv {
            b'o' => format!("{v:o}"),
            b'x' => format!("{v:x}"),
            b'X' => format!("{v:X}"),
            _ => v.to_string(),
        };
        if let Some(p) = self.prec {
            if p == 0 && v == 0 {
                digits.clear();
            }
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        let mut prefix = "";
        if self.alt {
            match conv {
                b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
                b'x' if v != 0 => prefix = "0x",
                b'X' if v != 0 => prefix = "0X",
                _ => {}
            }
        }
        self.pad(prefix, &digits, self.prec.is_none())
    }

    /// `%e`, `%E`, `%f`, `%F`, `%g`, `%G` of a double.
    pub fn float(&self, v: f64, conv: u8) -> String {
        let upper = conv.is_ascii_uppercase();
        let neg = v.is_sign_negative() && !v.is_nan() || (v.is_nan() && v.is_sign_negative());
        if !v.is_finite() {
            let body = special(v.abs(), upper).unwrap_or_default();
            return self.pad(self.sign(neg), &body, false);
        }
        let prec = self.prec.unwrap_or(6);
        let body = match conv {
            b'e' | b'E' => fmt_e_abs(v, prec, upper, self.alt),
            b'f' | b'F' => {
                let mut s = format!("{:.*}", prec, v.abs());
                if self.alt && prec == 0 {
                    s.push('.');
                }
                s
            }
            _ => fmt_g_abs(v, if prec == 0 { 1 } else { prec }, upper, self.alt),
        };
        self.pad(self.sign(neg), &body, true)
    }

    /// `%s` and `%c`: width and left alignment only.
    pub fn text(&self, s: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(s.len().max(self.width));
        let fill = self.width.saturating_sub(s.len());
        if !self.left {
            out.resize(fill, b' ');
        }
        out.extend_from_slice(s);
        if self.left {
            out.resize(out.len() + fill, b' ');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tostring_is_percent_14g() {
        // What Redis' Lua prints (checked against redis-server).
        let cases: &[(f64, &str)] = &[
            (10.0 / 3.0, "3.3333333333333"),
            (1e15, "1e+15"),
            (1e14, "1e+14"),
            (123456789012345.0, "1.2345678901234e+14"),
            (9007199254740992.0, "9.007199254741e+15"),
            (9_223_372_036_854_775_808.0, "9.2233720368548e+18"),
            (0.1, "0.1"),
            (100.0, "100"),
            (-0.0, "-0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (2.5, "2.5"),
            (f64::INFINITY, "inf"),
            (DEFAULT_NAN, "-nan"),
            (-DEFAULT_NAN, "nan"),
        ];
        for (n, want) in cases {
            assert_eq!(fmt_num(*n), *want, "{n}");
        }
    }

    #[test]
    fn strings_to_numbers() {
        let good = [&b" 10 "[..], b"0x10", b"1e2", b"10\0junk"];
        assert_eq!(good.map(str2d), [10.0, 16.0, 100.0, 10.0].map(Some));
        for bad in [&b"10a"[..], b"", b"  "] {
            assert_eq!(str2d(bad), None, "{bad:?}");
        }
        assert_eq!(str2ul(b"ff", 16), Some(255.0));
        assert_eq!(str2ul(b"0x1f", 16), Some(31.0));
        assert_eq!(str2ul(b"z", 36), Some(35.0));
        assert_eq!(str2ul(b"8", 8), None);
    }

    #[test]
    fn printf_conversions() {
        let s = Spec {
            width: 5,
            prec: Some(2),
            ..Spec::default()
        };
        assert_eq!(s.float(2.345, b'f'), " 2.35");
        assert_eq!(Spec::default().float(1e20, b'g'), "1e+20");
        assert_eq!(Spec::default().int(3), "3");
        let z = Spec {
            zero: true,
            width: 4,
            ..Spec::default()
        };
        assert_eq!(z.int(-7), "-007");
        assert_eq!(Spec::default().unsigned(255, b'x'), "ff");
        assert_eq!(c_long(1e30), i64::MIN);
        assert_eq!(c_long(-3.9), -3);
    }
}
