//! Random indices that are the same on every platform: fastrand draws a `usize` from 32 bits on wasm32 and from 64 bits natively, so one seed picked different members, keys and node ids in the browser than in `redsim run`.
//!
//! [`Pick::pick`] draws through `u64` instead, which is what fastrand does
//! for `usize` on a 64-bit machine: native results are unchanged and the
//! browser now gets the same ones. `tests/tidy.rs` keeps fastrand's own
//! `usize`/`isize` draws out of the engine, the world and the course.

use std::ops::{Bound, RangeBounds};

/// A portable `usize` draw from a seeded [`fastrand::Rng`].
pub trait Pick {
    /// A random `usize` in `range`, the same for a seed on every platform.
    /// Panics on an empty range, as fastrand does.
    fn pick(&mut self, range: impl RangeBounds<usize>) -> usize;
}

fn widen(b: Bound<&usize>) -> Bound<u64> {
    match b {
        Bound::Included(&n) => Bound::Included(n as u64),
        Bound::Excluded(&n) => Bound::Excluded(n as u64),
        Bound::Unbounded => Bound::Unbounded,
    }
}

impl Pick for fastrand::Rng {
    #[inline]
    fn pick(&mut self, range: impl RangeBounds<usize>) -> usize {
        let end = match range.end_bound() {
            // `..` means every usize: on a 32-bit machine that is u32's range.
            Bound::Unbounded => Bound::Included(usize::MAX as u64),
            b => widen(b),
        };
        self.u64((widen(range.start_bound()), end)) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_follow_fastrands_64_bit_draws() {
        for (lo, hi) in [(0usize, 16usize), (0, 1), (8, 18), (3, 1000)] {
            let mut a = fastrand::Rng::with_seed(7);
            let mut b = fastrand::Rng::with_seed(7);
            for _ in 0..100 {
                let x = a.pick(lo..hi);
                assert!((lo..hi).contains(&x));
                assert_eq!(x as u64, b.u64(lo as u64..hi as u64));
            }
            let mut a = fastrand::Rng::with_seed(9);
            let mut b = fastrand::Rng::with_seed(9);
            assert_eq!(a.pick(..hi) as u64, b.u64(..hi as u64));
            assert_eq!(a.pick(lo..=hi) as u64, b.u64(lo as u64..=hi as u64));
        }
    }

    #[test]
    #[should_panic]
    fn an_empty_range_panics() {
        fastrand::Rng::with_seed(1).pick(3..3);
    }
}
