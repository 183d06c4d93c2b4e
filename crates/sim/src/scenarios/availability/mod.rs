//! Availability lessons: the acknowledged writes a Sentinel failover or a split brain throws away, a replication topology under faults, and what a crash loses under each persistence setting.

mod failover;
mod long_script;
mod persistence;
mod replication_topology;

pub use failover::FAILOVER;
pub use long_script::LONG_SCRIPT;
pub use persistence::PERSISTENCE_LOSS;
pub use replication_topology::REPLICATION_TOPOLOGY;
