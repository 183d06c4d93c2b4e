//! The engine's ordered maps and sets: `std`'s B-trees in every build but the browser console's, where they are sorted vectors (`VecMap`, `VecSet`) with the same API subset and the same order.
//!
//! A B-tree brings its own search, split, merge and iteration code for each
//! key and value type, 3 to 7 KB of wasm each; the console had some thirty
//! of them (the (db, key) indexes of WATCH, blocking and exact eviction,
//! pub/sub, tracking, the trace's TTL replay, the stats). A sorted vector
//! needs a binary search and a memmove per type. Its insertions and
//! removals cost a shift of the entries after them, which a console (one
//! person typing, the heavy families and DEBUG POPULATE handed to the full
//! engine) never feels, and a server would: native builds, the server and
//! the lab keep the B-trees. Iteration order is the keys' order in both, so
//! replies and traces are the same; `cargo test` of the light build runs
//! the engine's tests on these, and a property test checks them against
//! `std`'s.

#[cfg(not(feature = "light"))]
pub use std::collections::{BTreeMap as OrdMap, BTreeSet as OrdSet};
#[cfg(feature = "light")]
pub use vec::{VecMap as OrdMap, VecSet as OrdSet};

pub mod vec;

/// What `entry` returns.
#[cfg(not(feature = "light"))]
pub use std::collections::btree_map::Entry;
#[cfg(feature = "light")]
pub use vec::Entry;

#[cfg(test)]
mod tests;
