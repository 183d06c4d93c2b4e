//! `VecMap` and `VecSet` checked against `std`'s B-trees on random operations, with tuple keys like the engine's (db, key) indexes.

use super::vec::{Entry, VecMap, VecSet};
use proptest::prelude::*;
use std::collections::{btree_map, BTreeMap, BTreeSet};
use std::ops::Bound;

/// A (db, key) pair over a small space, so operations meet the same keys.
type Key = (usize, Vec<u8>);

fn key() -> impl Strategy<Value = Key> {
    (0usize..3, proptest::collection::vec(b'a'..b'e', 0..3))
}

fn bound() -> impl Strategy<Value = Bound<Key>> {
    prop_oneof![
        key().prop_map(Bound::Included),
        key().prop_map(Bound::Excluded),
        Just(Bound::Unbounded),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Insert(Key, u32),
    Remove(Key),
    Bump(Key),
    Entry(Key, u32),
    PopFirst,
    PopLast,
    Retain(u32),
    Range(Bound<Key>, Bound<Key>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (key(), any::<u32>()).prop_map(|(k, v)| Op::Insert(k, v)),
        3 => key().prop_map(Op::Remove),
        2 => key().prop_map(Op::Bump),
        2 => (key(), any::<u32>()).prop_map(|(k, v)| Op::Entry(k, v)),
        1 => Just(Op::PopFirst),
        1 => Just(Op::PopLast),
        1 => (2u32..5).prop_map(Op::Retain),
        2 => (bound(), bound()).prop_map(|(a, b)| Op::Range(a, b)),
    ]
}

/// `std` panics on a range that starts after it ends; those are left out.
fn valid(a: &Bound<Key>, b: &Bound<Key>) -> bool {
    match (a, b) {
        (Bound::Included(x), Bound::Included(y)) => x <= y,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Excluded(y))
        | (Bound::Excluded(x), Bound::Included(y)) => {
            x < y || (x == y && !matches!((a, b), (Bound::Excluded(_), Bound::Excluded(_))))
        }
        _ => true,
    }
}

proptest! {
    /// Any sequence of operations gives the same answers and leaves the
    /// same entries, in the same order, as a B-tree.
    #[test]
    fn behaves_like_a_btree(ops in proptest::collection::vec(op(), 0..150)) {
        let (mut ours, mut model) = (VecMap::new(), BTreeMap::new());
        let (mut set, mut set_model) = (VecSet::new(), BTreeSet::new());
        for o in ops {
            match o {
                Op::Insert(k, v) => {
                    prop_assert_eq!(ours.insert(k.clone(), v), model.insert(k.clone(), v));
                    prop_assert_eq!(set.insert(k.clone()), set_model.insert(k));
                }
                Op::Remove(k) => {
                    prop_assert_eq!(ours.remove(&k), model.remove(&k));
                    prop_assert_eq!(set.remove(&k), set_model.remove(&k));
                }
                Op::Bump(k) => {
                    let v: &mut u32 = ours.entry(k.clone()).or_default();
                    *v = v.wrapping_add(1);
                    let v = model.entry(k).or_default();
                    *v = v.wrapping_add(1);
                }
                Op::Entry(k, v) => {
                    let a = match ours.entry(k.clone()) {
                        Entry::Occupied(e) if v % 2 == 0 => Some(e.remove()),
                        Entry::Occupied(mut e) => Some(e.insert(v)),
                        Entry::Vacant(e) => { e.insert(v); None }
                    };
                    let b = match model.entry(k) {
                        btree_map::Entry::Occupied(e) if v % 2 == 0 => Some(e.remove()),
                        btree_map::Entry::Occupied(mut e) => Some(e.insert(v)),
                        btree_map::Entry::Vacant(e) => { e.insert(v); None }
                    };
                    prop_assert_eq!(a, b);
                }
                Op::PopFirst => {
                    prop_assert_eq!(ours.pop_first(), model.pop_first());
                    prop_assert_eq!(set.pop_first(), set_model.pop_first());
                }
                Op::PopLast => {
                    prop_assert_eq!(ours.pop_last(), model.pop_last());
                    prop_assert_eq!(set.pop_last(), set_model.pop_last());
                }
                Op::Retain(m) => {
                    ours.retain(|k, v| (k.0 as u32).wrapping_add(*v) % m != 0);
                    model.retain(|k, v| (k.0 as u32).wrapping_add(*v) % m != 0);
                    set.retain(|k| !((k.0 + k.1.len()) as u32).is_multiple_of(m));
                    set_model.retain(|k| !((k.0 + k.1.len()) as u32).is_multiple_of(m));
                }
                Op::Range(a, b) => {
                    if valid(&a, &b) {
                        prop_assert!(ours.range((a.clone(), b.clone())).eq(model.range((a.clone(), b.clone()))));
                        prop_assert!(ours.range((a.clone(), b.clone())).rev().eq(model.range((a.clone(), b.clone())).rev()));
                        prop_assert!(set.range((a.clone(), b.clone())).eq(set_model.range((a, b))));
                    } else {
                        prop_assert_eq!(ours.range((a.clone(), b.clone())).count(), 0);
                        prop_assert_eq!(set.range((a, b)).count(), 0);
                    }
                }
            }
            prop_assert!(ours.iter().eq(model.iter()));
            prop_assert!(set.iter().eq(set_model.iter()));
            prop_assert_eq!(ours.len(), model.len());
            prop_assert_eq!(set.len(), set_model.len());
            prop_assert_eq!(ours.first_key_value(), model.first_key_value());
            prop_assert_eq!(ours.last_key_value(), model.last_key_value());
            prop_assert_eq!(set.first(), set_model.first());
            prop_assert_eq!(set.last(), set_model.last());
            for k in [(0, vec![]), (1, b"a".to_vec()), (2, b"dd".to_vec())] {
                prop_assert_eq!(ours.get(&k), model.get(&k));
                prop_assert_eq!(ours.contains_key(&k), model.contains_key(&k));
                prop_assert_eq!(set.contains(&k), set_model.contains(&k));
            }
        }
    }

    /// Collecting keeps the last value of a repeated key, as a B-tree does.
    #[test]
    fn collects_like_a_btree(pairs in proptest::collection::vec((key(), any::<u8>()), 0..60)) {
        let ours: VecMap<Key, u8> = pairs.iter().cloned().collect();
        let model: BTreeMap<Key, u8> = pairs.iter().cloned().collect();
        prop_assert!(ours.iter().eq(model.iter()));
        let set: VecSet<Key> = pairs.iter().map(|p| p.0.clone()).collect();
        let set_model: BTreeSet<Key> = pairs.into_iter().map(|p| p.0).collect();
        prop_assert!(set.into_iter().eq(set_model));
    }
}

/// Borrowed lookups work as on a B-tree (`&[u8]` for a `Vec<u8>` key).
#[test]
fn looks_up_by_borrowed_key() {
    let mut m: VecMap<Vec<u8>, u32> = VecMap::new();
    m.insert(b"b".to_vec(), 2);
    m.insert(b"a".to_vec(), 1);
    assert_eq!(m.get(&b"a"[..]), Some(&1));
    assert_eq!(m[&b"b"[..]], 2);
    assert_eq!(
        m.range::<[u8], _>((Bound::Excluded(&b"a"[..]), Bound::Unbounded))
            .count(),
        1
    );
    assert_eq!(m.keys().collect::<Vec<_>>(), [b"a", b"b"]);
}
