//! LuaBitOp (`bit`), which Redis loads: 32-bit operations on numbers.

use super::auxlib::{absent, check_num, new_lib, num};
use super::value::{Table, Value, Vm, R};

/// `tobit`: the number modulo 2^32 as a signed 32-bit integer, rounding
/// as LuaBitOp's `2^52 + 2^51` addition does.
fn tobit(n: f64) -> i32 {
    (n + 6_755_399_441_055_744.0).to_bits() as u32 as i32
}

fn bitarg(it: &dyn Vm, a: &[Value], i: usize) -> R<i32> {
    Ok(tobit(check_num(it, a, i)?))
}

fn bits(v: i32) -> Vec<Value> {
    num(v as f64)
}

/// The `bit` table.
pub fn library() -> Table {
    new_lib(&[
        ("tobit", |it, a, _| Ok(bits(bitarg(it, &a, 1)?))),
        ("bnot", |it, a, _| Ok(bits(!bitarg(it, &a, 1)?))),
        ("band", |it, a, _| fold_bits(it, &a, |x, y| x & y)),
        ("bor", |it, a, _| fold_bits(it, &a, |x, y| x | y)),
        ("bxor", |it, a, _| fold_bits(it, &a, |x, y| x ^ y)),
        ("lshift", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits(((x as u32) << (n & 31)) as i32))
        }),
        ("rshift", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits(((x as u32) >> (n & 31)) as i32))
        }),
        ("arshift", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits(x >> (n & 31)))
        }),
        ("rol", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits((x as u32).rotate_left((n & 31) as u32) as i32))
        }),
        ("ror", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits((x as u32).rotate_right((n & 31) as u32) as i32))
        }),
        ("bswap", |it, a, _| {
            Ok(bits(bitarg(it, &a, 1)?.swap_bytes()))
        }),
        ("tohex", |it, a, _| {
            let x = bitarg(it, &a, 1)? as u32;
            let n = if absent(&a, 2) { 8 } else { bitarg(it, &a, 2)? };
            let upper = n < 0;
            let n = (n.unsigned_abs().min(8)) as usize;
            let mut s = if upper {
                format!("{x:08X}")
            } else {
                format!("{x:08x}")
            };
            s = s[8 - n..].to_string();
            Ok(vec![Value::str(s)])
        }),
    ])
}

fn fold_bits(it: &mut dyn Vm, a: &[Value], f: fn(i32, i32) -> i32) -> R<Vec<Value>> {
    let mut acc = bitarg(it, a, 1)?;
    for i in 2..=a.len() {
        acc = f(acc, bitarg(it, a, i)?);
    }
    Ok(bits(acc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tobit_wraps_like_luabitop() {
        assert_eq!(tobit(4294967295.0), -1);
        assert_eq!(tobit(2147483648.0), i32::MIN);
        assert_eq!(tobit(-1.0), -1);
        assert_eq!(tobit(1.5), 2);
    }
}
