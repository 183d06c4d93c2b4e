//! Intsets (intset.c): sorted integers of one width (2, 4 or 8 bytes), little-endian, behind an encoding and a length word.

/// `intsetNew` + `intsetAdd` of `values` (any order): the smallest width
/// holding them all, sorted.
pub fn write(values: &[i64]) -> Vec<u8> {
    let width: usize = if values.iter().all(|&x| i16::try_from(x).is_ok()) {
        2
    } else if values.iter().all(|&x| i32::try_from(x).is_ok()) {
        4
    } else {
        8
    };
    write_width(values, width)
}

/// An intset at `width` bytes a value (an intset never narrows, so a set
/// that once held a large value keeps its width).
pub fn write_width(values: &[i64], width: usize) -> Vec<u8> {
    let mut v = values.to_vec();
    crate::sort::sort(&mut v);
    let mut out = Vec::with_capacity(8 + width * v.len());
    out.extend_from_slice(&(width as u32).to_le_bytes());
    out.extend_from_slice(&(v.len() as u32).to_le_bytes());
    for x in v {
        out.extend_from_slice(&x.to_le_bytes()[..width]);
    }
    out
}

/// `intsetValidateIntegrity(deep)`: a known width, a length that fills the
/// blob exactly, strictly ascending values. Returns them.
pub fn read(is: &[u8]) -> Option<Vec<i64>> {
    let width = u32::from_le_bytes(is.get(..4)?.try_into().ok()?) as usize;
    if !matches!(width, 2 | 4 | 8) {
        return None;
    }
    let len = u32::from_le_bytes(is.get(4..8)?.try_into().ok()?) as usize;
    if len.checked_mul(width)?.checked_add(8)? != is.len() || len == 0 {
        return None;
    }
    let mut out: Vec<i64> = Vec::with_capacity(len);
    for c in is[8..].chunks_exact(width) {
        let v = match width {
            2 => i16::from_le_bytes([c[0], c[1]]) as i64,
            4 => i32::from_le_bytes(c.try_into().ok()?) as i64,
            _ => i64::from_le_bytes(c.try_into().ok()?),
        };
        if out.last().is_some_and(|&p| p >= v) {
            return None;
        }
        out.push(v);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_and_order() {
        let b = write(&[3, 1, 2]);
        assert_eq!(b, vec![2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 2, 0, 3, 0]);
        assert_eq!(read(&b), Some(vec![1, 2, 3]));
        let b = write(&[70000, -1]);
        assert_eq!(&b[..4], &[4, 0, 0, 0]);
        assert_eq!(read(&write(&[i64::MIN, 0])), Some(vec![i64::MIN, 0]));
        // Unsorted or duplicate values, wrong widths and lengths are refused.
        assert_eq!(read(&[2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 1, 0]), None);
        assert_eq!(read(&[3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0]), None);
        assert_eq!(read(&[2, 0, 0, 0, 2, 0, 0, 0, 1, 0]), None);
    }
}
