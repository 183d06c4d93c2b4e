//! Redis' `pqsort` (pqsort.c, NetBSD's quicksort that skips the partitions outside a wanted range), step for step: a search with COUNT sorts only the first results with it, and the order it leaves equal distances in is what a client sees.
//!
//! The full sorts go through glibc's `qsort`, which (2.36, for arrays that
//! fit in memory) is a top-down merge sort: [`msort`] is that one, so that
//! even a comparator that is no total order (NaN distances) gives glibc's
//! order, where Rust's own sort could panic.

use std::cmp::Ordering;

/// The size C's pointer arithmetic works in; only ratios of it matter, but
/// the range tests compare byte addresses, so they are kept.
const ES: usize = 40;

/// Sorts `v` enough that positions `lo..=hi` hold what a full sort would
/// put there, leaving ties where Redis' `pqsort` leaves them.
pub fn pqsort<T>(v: &mut [T], cmp: &impl Fn(&T, &T) -> Ordering, lo: usize, hi: usize) {
    let lrange = lo * ES;
    let rrange = (hi + 1) * ES - 1;
    run(v, 0, v.len(), cmp, lrange, rrange);
}

/// Whether the partition of `n` elements at `a` is outside the range.
fn outside(a: usize, n: usize, lrange: usize, rrange: usize) -> bool {
    let (l, r) = (a * ES, (a + n) * ES - 1);
    (lrange < l && rrange < l) || (lrange > r && rrange > r)
}

fn med3<T>(v: &[T], a: usize, b: usize, c: usize, cmp: &impl Fn(&T, &T) -> Ordering) -> usize {
    if cmp(&v[a], &v[b]) == Ordering::Less {
        if cmp(&v[b], &v[c]) == Ordering::Less {
            b
        } else if cmp(&v[a], &v[c]) == Ordering::Less {
            c
        } else {
            a
        }
    } else if cmp(&v[b], &v[c]) == Ordering::Greater {
        b
    } else if cmp(&v[a], &v[c]) == Ordering::Less {
        a
    } else {
        c
    }
}

/// `vecswap`: `n` elements from `i` and from `j` exchanged pairwise, in order.
fn vecswap<T>(v: &mut [T], i: usize, j: usize, n: usize) {
    for k in 0..n {
        v.swap(i + k, j + k);
    }
}

/// `_pqsort` on the `n` elements from index `a`.
fn run<T>(
    v: &mut [T],
    mut a: usize,
    mut n: usize,
    cmp: &impl Fn(&T, &T) -> Ordering,
    lrange: usize,
    rrange: usize,
) {
    loop {
        if n < 7 {
            for pm in a + 1..a + n {
                let mut pl = pm;
                while pl > a && cmp(&v[pl - 1], &v[pl]) == Ordering::Greater {
                    v.swap(pl, pl - 1);
                    pl -= 1;
                }
            }
            return;
        }
        let mut pm = a + n / 2;
        if n > 7 {
            let mut pl = a;
            let mut pn = a + n - 1;
            if n > 40 {
                let d = n / 8;
                pl = med3(v, pl, pl + d, pl + 2 * d, cmp);
                pm = med3(v, pm - d, pm, pm + d, cmp);
                pn = med3(v, pn - 2 * d, pn - d, pn, cmp);
            }
            pm = med3(v, pl, pm, pn, cmp);
        }
        v.swap(a, pm);
        let (mut pa, mut pb) = (a + 1, a + 1);
        let (mut pc, mut pd) = (a + n - 1, a + n - 1);
        loop {
            while pb <= pc {
                let c = cmp(&v[pb], &v[a]);
                if c == Ordering::Greater {
                    break;
                }
                if c == Ordering::Equal {
                    v.swap(pa, pb);
                    pa += 1;
                }
                pb += 1;
            }
            while pb <= pc {
                let c = cmp(&v[pc], &v[a]);
                if c == Ordering::Less {
                    break;
                }
                if c == Ordering::Equal {
                    v.swap(pc, pd);
                    pd -= 1;
                }
                pc -= 1;
            }
            if pb > pc {
                break;
            }
            v.swap(pb, pc);
            pb += 1;
            pc -= 1;
        }
        let pn = a + n;
        let r = (pa - a).min(pb - pa);
        vecswap(v, a, pb - r, r);
        let r = (pd - pc).min(pn - pd - 1);
        vecswap(v, pb, pn - r, r);
        let r = pb - pa;
        if r > 1 && !outside(a, r, lrange, rrange) {
            run(v, a, r, cmp, lrange, rrange);
        }
        let r = pd - pc;
        if r <= 1 {
            return;
        }
        a = pn - r;
        n = r;
        if outside(a, n, lrange, rrange) {
            return;
        }
    }
}

/// glibc's `msort_with_tmp`: halves sorted in turn, then merged taking
/// from the left unless the right one is strictly smaller.
pub fn msort<T: Clone>(v: &mut [T], cmp: &impl Fn(&T, &T) -> Ordering) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    msort(&mut v[..n1], cmp);
    msort(&mut v[n1..], cmp);
    let mut merged = Vec::with_capacity(n);
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if cmp(&v[i], &v[j]) != Ordering::Greater {
            merged.push(v[i].clone());
            i += 1;
        } else {
            merged.push(v[j].clone());
            j += 1;
        }
    }
    merged.extend_from_slice(&v[i..n1]);
    merged.extend_from_slice(&v[j..]);
    v.clone_from_slice(&merged);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Pick;

    /// The wanted positions always hold what a full sort puts there.
    #[test]
    fn the_range_is_sorted() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..300 {
            let n = rng.pick(1..200);
            let v: Vec<u32> = (0..n).map(|_| rng.u32(0..50)).collect();
            let hi = rng.pick(0..n);
            let mut got = v.clone();
            pqsort(&mut got, &|a: &u32, b: &u32| a.cmp(b), 0, hi);
            let mut want = v.clone();
            crate::sort::sort(&mut want);
            assert_eq!(got[..=hi], want[..=hi]);
            let mut merged: Vec<(u32, usize)> = v.iter().copied().zip(0..).collect();
            msort(&mut merged, &|a: &(u32, usize), b: &(u32, usize)| {
                a.0.cmp(&b.0)
            });
            let mut stable = merged.clone();
            crate::sort::sort_by_key(&mut stable, |e| e.0);
            assert_eq!(merged, stable);
        }
    }
}
