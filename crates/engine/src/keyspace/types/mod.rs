//! Collection value types (lists, hashes, sets, sorted sets), each with Redis' encodings and conversion thresholds.

pub mod hash;
pub mod hll;
pub mod list;
pub mod set;
pub mod skiplist;
pub mod stream;
pub mod zset;
