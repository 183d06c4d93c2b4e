//! Numbers read and printed exactly as Redis does: doubles (`strtod`, `d2string`, `%.17g`) and the x87 `long double` of INCRBYFLOAT.

pub mod decimal;
pub mod double;
pub mod longdouble;
pub mod print;

/// Fixed-point text without the digits that say nothing: the fraction's
/// trailing zeros, then a bare point, and `-0` written `0`. Redis prints a
/// long double this way for people (`LD_STR_HUMAN`), and the pictures their
/// numbers, so the rule lives once.
pub fn trim_fixed(mut s: String) -> String {
    if s.contains('.') {
        let keep = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(keep);
    }
    if s == "-0" {
        s = "0".into();
    }
    s
}
