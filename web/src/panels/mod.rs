//! The panels around the console: the client tabs, the keyspace, the key inspector and the timeline. Each draws plain data it is given and reports clicks through callbacks; none of them owns the engine.

pub mod clients;
pub mod inspector;
pub mod keyspace;
pub mod timeline;
