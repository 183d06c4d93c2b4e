//! Replication infrastructure shared by the worlds that run masters and replicas: the replication link ([`link`]), Redis Sentinel as a component ([`sentinel`]) and the network view sentinels read ([`net`]).

pub mod link;
pub mod net;
pub mod sentinel;
