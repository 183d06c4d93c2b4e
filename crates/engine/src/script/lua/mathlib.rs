//! Lua 5.1's math library (lmathlib.c), with Redis' `random` and `randomseed` on `redisLrand48`, one sequence for the server's lifetime.

use super::auxlib::{check_int, check_num, new_lib, num};
use super::number::fix_nan;
use super::value::{Native, Table, Value, Vm, R};

/// The `math` table.
pub fn library() -> Table {
    let mut t = new_lib(&[
        ("abs", |it, a, _| Ok(num(check_num(it, &a, 1)?.abs()))),
        ("ceil", |it, a, _| Ok(num(check_num(it, &a, 1)?.ceil()))),
        ("floor", |it, a, _| Ok(num(check_num(it, &a, 1)?.floor()))),
        ("sqrt", |it, a, _| math1(it, &a, f64::sqrt)),
        ("exp", |it, a, _| math1(it, &a, f64::exp)),
        ("log", |it, a, _| math1(it, &a, f64::ln)),
        ("log10", |it, a, _| math1(it, &a, f64::log10)),
        ("sin", |it, a, _| math1(it, &a, f64::sin)),
        ("cos", |it, a, _| math1(it, &a, f64::cos)),
        ("tan", |it, a, _| math1(it, &a, f64::tan)),
        ("asin", |it, a, _| math1(it, &a, f64::asin)),
        ("acos", |it, a, _| math1(it, &a, f64::acos)),
        ("atan", |it, a, _| math1(it, &a, f64::atan)),
        ("sinh", |it, a, _| math1(it, &a, f64::sinh)),
        ("cosh", |it, a, _| math1(it, &a, f64::cosh)),
        ("tanh", |it, a, _| math1(it, &a, f64::tanh)),
        ("deg", |it, a, _| {
            Ok(num(check_num(it, &a, 1)? * (180.0 / std::f64::consts::PI)))
        }),
        ("rad", |it, a, _| {
            Ok(num(check_num(it, &a, 1)? * (std::f64::consts::PI / 180.0)))
        }),
        ("atan2", |it, a, _| {
            let (y, x) = (check_num(it, &a, 1)?, check_num(it, &a, 2)?);
            Ok(num(y.atan2(x)))
        }),
        ("pow", |it, a, _| {
            let (x, y) = (check_num(it, &a, 1)?, check_num(it, &a, 2)?);
            Ok(num(fix_nan(x.powf(y), x, y)))
        }),
        ("fmod", fmod),
        ("mod", fmod),
        ("modf", |it, a, _| {
            let x = check_num(it, &a, 1)?;
            let ip = x.trunc();
            let frac = if x.is_infinite() { 0.0 } else { x - ip };
            Ok(vec![Value::Num(ip), Value::Num(frac)])
        }),
        ("frexp", |it, a, _| {
            let (m, e) = frexp(check_num(it, &a, 1)?);
            Ok(vec![Value::Num(m), Value::Num(e as f64)])
        }),
        ("ldexp", |it, a, _| {
            let m = check_num(it, &a, 1)?;
            let e = check_int(it, &a, 2)?;
            Ok(num(ldexp(m, e)))
        }),
        ("max", |it, a, _| minmax(it, &a, true)),
        ("min", |it, a, _| minmax(it, &a, false)),
        ("random", random),
        ("randomseed", randomseed),
    ]);
    t.set_str("pi", Value::Num(std::f64::consts::PI));
    t.set_str("huge", Value::Num(f64::INFINITY));
    t
}

fn math1(it: &mut dyn Vm, a: &[Value], f: fn(f64) -> f64) -> R<Vec<Value>> {
    let x = check_num(it, a, 1)?;
    Ok(num(fix_nan(f(x), x, 0.0)))
}

fn fmod(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let (x, y) = (check_num(it, &a, 1)?, check_num(it, &a, 2)?);
    Ok(num(fix_nan(x % y, x, y)))
}

fn minmax(it: &mut dyn Vm, a: &[Value], max: bool) -> R<Vec<Value>> {
    let mut best = check_num(it, a, 1)?;
    for i in 2..=a.len() {
        let v = check_num(it, a, i)?;
        if (max && v > best) || (!max && v < best) {
            best = v;
        }
    }
    Ok(num(best))
}

/// C's `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1`.
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

/// C's `ldexp`.
fn ldexp(m: f64, e: i64) -> f64 {
    let e = e.clamp(-2200, 2200) as i32;
    let mut x = m;
    let mut e = e;
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e)
}

/// `redisLrand48`: the 48-bit linear congruence of `lrand48`, bits 47..17.
pub fn lrand48(state: &mut u64) -> i32 {
    *state = (state.wrapping_mul(0x5_DEEC_E66D).wrapping_add(0xB)) & 0xffff_ffff_ffff;
    (*state >> 17) as i32
}

/// The state `redisSrand48(seed)` sets.
pub fn srand48(seed: i32) -> u64 {
    ((seed as u32 as u64) << 16) | 0x330E
}

/// The state Redis starts with (`x = {0x330E, 0xABCD, 0x1234}`).
pub const RAND48_INIT: u64 = 0x1234_ABCD_330E;

fn random(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    const MAX: i64 = i32::MAX as i64;
    let r = (lrand48(it.host().rand48()) as i64 % MAX) as f64 / MAX as f64;
    match a.len() {
        0 => Ok(num(r)),
        1 => {
            let u = check_int(it, &a, 1)?;
            if u < 1 {
                return Err(it.arg_error(1, "interval is empty"));
            }
            Ok(num((r * u as f64).floor() + 1.0))
        }
        2 => {
            let l = check_int(it, &a, 1)?;
            let u = check_int(it, &a, 2)?;
            if l > u {
                return Err(it.arg_error(2, "interval is empty"));
            }
            Ok(num((r * (u - l + 1) as f64).floor() + l as f64))
        }
        _ => Err(it.rt_error("wrong number of arguments")),
    }
}

fn randomseed(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let seed = check_int(it, &a, 1)? as i32;
    *it.host().rand48() = srand48(seed);
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lrand48_matches_redis() {
        // redis-server's first `math.random(100)` on a fresh server is 40.
        let mut s = RAND48_INIT;
        let r = (lrand48(&mut s) as i64 % i32::MAX as i64) as f64 / i32::MAX as f64;
        assert_eq!((r * 100.0).floor() + 1.0, 40.0);
    }

    #[test]
    fn frexp_ldexp_round_trip() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(ldexp(0.5, 4), 8.0);
        assert_eq!(frexp(0.0), (0.0, 0));
    }
}
