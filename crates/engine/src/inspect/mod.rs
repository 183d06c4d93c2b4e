//! A plain-data view of one key for inspectors (the playground's key inspector): its encoding, the thresholds that decide it, and its structure (quicklist nodes, skiplist levels and spans, HyperLogLog registers, stream nodes and consumer groups), plus the note explaining an encoding change seen between two views.
//!
//! The view is built from the engine's internals without side effects: no
//! lazy expiry, no keyspace hits, no LRU touch, so inspecting a key never
//! changes what a later command sees. It holds strings and numbers only
//! (serde-serialisable), so a UI needs nothing from `types`.
//!
//! Work is bounded whatever the key's size: element previews stop at
//! [`PREVIEW_ITEMS`], the skiplist picture at [`SKIPLIST_NODES`], quicklist
//! nodes at [`LIST_NODES`], and the longest-element measure (needed only
//! near the listpack limits) is skipped past [`MEASURE_MAX`] elements.

mod build;
mod conversion;
#[cfg(test)]
mod tests;
mod view;

pub use conversion::{conversion, Conversion};
pub use view::*;
