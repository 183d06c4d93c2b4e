//! Redsim's engine: a deterministic reimplementation of Redis on a virtual clock with a seeded RNG, with no I/O, no wall clock and no OS entropy.
//!
//! Drive it with [`Engine`]: connect clients, [`Engine::execute`] commands,
//! move time with [`Engine::advance_to`], and read the [`server::trace`]. The same
//! code runs natively and in the browser (`wasm32-unknown-unknown`).

// A `light` build leaves the heavy families' handlers unreferenced, which
// is the point: they are compiled, checked, and dropped by the linker.
#![cfg_attr(feature = "light", allow(dead_code, unused_imports))]

pub mod acl;
pub mod blocking;
pub mod cluster;
pub mod cmd;
pub mod cost;
pub mod engine;
pub(crate) mod evict;
pub(crate) mod expire;
pub mod glob;
pub mod idmap;
pub mod inspect;
pub mod keyspace;
pub mod lazyfree;
pub mod num;
pub(crate) mod observe;
pub mod ordmap;
pub mod output;
pub mod persist;
pub mod proto;
pub(crate) mod pubsub;
pub mod repl;
pub mod rng;
pub(crate) mod script;
pub mod server;
pub mod sort;
pub(crate) mod tracking;
pub(crate) mod watch;

pub use engine::{ClientId, ClientOrigin, Engine, KeyDump, KeyInfo, Options};
pub use proto::Frame;

/// The Redis version whose behaviour Redsim follows, as INFO and HELLO report it.
pub const REDIS_VERSION: &str = "7.2.4";
