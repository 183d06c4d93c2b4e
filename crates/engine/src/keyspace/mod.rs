//! The keyspace: the Redis-shaped dict, databases, the stored object, memory accounting in Redis' terms, and the collection types with their encodings.

pub mod db;
pub mod dict;
pub mod memory;
pub mod object;
pub mod types;
