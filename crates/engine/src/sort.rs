//! One stable sort for the engine and the pages built on it, so the browser's console module carries one copy of the sorting code instead of one per element type.
//!
//! std's sort is generic: each element type and comparator sorted gets its
//! own copy, about 4 KB of wasm each, which added up to 50 KB in the light
//! console. There (`light`) elements are ordered through one sort of
//! indices with a dynamic comparator, then moved into place; elsewhere this
//! is std's stable sort, as fast as before. Both are stable, so both builds
//! order equal elements alike. `tests/tidy.rs` keeps other sorts out of the
//! engine, the views and the page.

use core::cmp::Ordering;

/// Sorts `v` stably by `cmp`.
pub fn sort_by<T>(v: &mut [T], cmp: impl FnMut(&T, &T) -> Ordering) {
    #[cfg(not(feature = "light"))]
    v.sort_by(cmp);
    #[cfg(feature = "light")]
    by_indices(v, cmp);
}

/// Sorts `v` stably by the key `key` gives each element.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably in its natural order.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The light build's sort: the indices are sorted (one merge sort for
/// every element type), then the elements moved to their places.
#[cfg(any(feature = "light", test))]
fn by_indices<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..v.len()).collect();
    sort_indices(&mut order, &mut |a, b| cmp(&v[a], &v[b]));
    permute(v, &mut order);
}

/// A bottom-up merge sort of `order` by `cmp`: runs of 1, 2, 4, ...
/// merged through a buffer, the left run's element first on a tie, so it
/// is stable. A few hundred bytes where std's sort (tuned for speed, with
/// small-sort networks and a quicksort path) is 4 KB of wasm; a console
/// sorts a few thousand items at most.
#[cfg(any(feature = "light", test))]
#[inline(never)]
fn sort_indices(order: &mut [usize], cmp: &mut dyn FnMut(usize, usize) -> Ordering) {
    let n = order.len();
    let mut buf = vec![0usize; n];
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                if cmp(order[j], order[i]) == Ordering::Less {
                    buf[k] = order[j];
                    j += 1;
                } else {
                    buf[k] = order[i];
                    i += 1;
                }
                k += 1;
            }
            buf[k..k + mid - i].copy_from_slice(&order[i..mid]);
            k += mid - i;
            buf[k..hi].copy_from_slice(&order[j..hi]);
            lo = hi;
        }
        order.copy_from_slice(&buf);
        width *= 2;
    }
}

/// Moves `v[order[i]]` to `i` for every `i`, following each cycle of the
/// permutation once; `order` is used up as the visited marks.
#[cfg(any(feature = "light", test))]
fn permute<T>(v: &mut [T], order: &mut [usize]) {
    const DONE: usize = usize::MAX;
    for start in 0..v.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn permute_moves_each_element_to_its_rank() {
        let mut v = vec!['a', 'b', 'c', 'd'];
        permute(&mut v, &mut [2, 0, 3, 1]);
        assert_eq!(v, ['c', 'a', 'd', 'b']);
    }

    proptest! {
        /// Same order as std's stable sort, equal keys included.
        #[test]
        fn matches_std_stable_sort(v in proptest::collection::vec((0u8..6, any::<u16>()), 0..200)) {
            let mut ours = v.clone();
            by_indices(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std_sorted = v.clone();
            std_sorted.sort_by_key(|e| e.0);
            prop_assert_eq!(ours, std_sorted);
        }

        /// Any permutation is applied exactly.
        #[test]
        fn permute_applies_any_permutation(order in Just((0..40usize).collect::<Vec<_>>()).prop_shuffle()) {
            let mut v: Vec<usize> = (100..140).collect();
            let want: Vec<usize> = order.iter().map(|&i| v[i]).collect();
            permute(&mut v, &mut order.clone());
            prop_assert_eq!(v, want);
        }
    }
}
