//! Redsim's engine: a deterministic reimplementation of Redis on a virtual clock with a seeded RNG, with no I/O, no wall clock and no OS entropy.
//!
//! Drive it with [`Engine`]: connect clients, [`Engine::execute`] commands,
//! move time with [`Engine::advance_to`], and read the [`trace`]. The same
//! code runs natively and in the browser (`wasm32-unknown-unknown`).

pub mod blocking;
pub mod client;
pub mod clifmt;
pub mod clock;
pub mod cluster;
pub mod cmd;
pub mod config;
pub mod db;
pub mod dict;
pub mod double;
pub mod engine;
pub mod evict;
pub mod expire;
pub mod glob;
pub mod hll;
pub mod inspect;
pub mod lazyfree;
pub mod longdouble;
pub mod memory;
pub mod object;
pub mod persist;
pub mod pubsub;
pub mod repl;
pub mod resp;
pub mod script;
pub mod server;
pub mod sim;
pub mod trace;
pub mod types;
pub mod watch;

pub use engine::{ClientId, Engine, KeyInfo, Options};
pub use resp::Frame;

/// The Redis version whose behaviour Redsim follows, as INFO and HELLO report it.
pub const REDIS_VERSION: &str = "7.2.4";
