//! Replication infrastructure shared by the worlds that run masters and replicas: Redis Sentinel as a component.

pub mod sentinel;
