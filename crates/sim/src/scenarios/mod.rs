//! The scenarios, one folder per lesson: caching under load, cache/database consistency races, coordination (locks, rate limits, queues), memory and eviction, availability (failover, persistence) and the cluster.

pub mod availability;
pub mod caching;
pub mod cluster;
pub mod consistency;
pub mod coordination;
pub mod memory;
