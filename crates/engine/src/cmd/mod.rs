//! Redis' commands: the one command table (`table`), lookup by name, dispatch with Redis 7.2's exact rejection errors, and one module (or folder) per family of handlers.
//!
//! Each family declares its entries with the `commands!` macro of `table`
//! and exports them as `COMMANDS`; [`all`] is their concatenation, the one
//! list every reader uses. A handler gets a [`Ctx`] and the full argument
//! vector (command name first) and returns a reply frame; it never panics
//! on user input. What handlers share lives beside the families: argument
//! parsing (`args`), typed key lookups (`typed`), scans (`scan`),
//! random-member replies (`random`) and reply shapes (`replies`). This file
//! declares the modules and names the crate's view of them.

mod args;
mod dispatch;
pub mod doctext;
mod lookup;
mod random;
pub mod rename;
mod replies;
mod scan;
pub mod table;
#[cfg(test)]
mod testing;
mod typed;

pub mod acl;
pub mod bitmap;
pub mod blocking;
pub mod cluster;
pub mod connection;
pub mod debug;
pub mod dump;
pub mod function;
pub mod geo;
pub mod hash;
pub mod hll;
pub mod keys;
pub mod keys_move;
pub mod keyspecs;
pub mod lcs;
pub mod list;
pub mod memory;
pub mod migrate;
pub mod module;
pub mod multi;
pub mod object;
pub mod persist;
pub mod pubsub;
pub mod repl;
mod repl_proto;
pub mod script;
pub mod server;
pub mod set;
pub mod sort;
pub mod stream;
pub mod strings;
pub mod ttl;
pub mod zset;

pub use args::{arg_i64, is, NOT_FLOAT, NOT_INTEGER, SYNTAX};
pub use dispatch::{call, dispatch, unknown_command, REGISTRY};
pub use lookup::lookup;
pub use replies::reply;
pub use table::{container, Acl, Command, Ctx, Flags, Handler, Registry};
pub use typed::WRONGTYPE;

/// Every top-level command, in table order.
pub fn all() -> impl Iterator<Item = &'static Command> {
    REGISTRY.all()
}

/// Every command and subcommand with its parent, in table order.
pub fn every_command() -> impl Iterator<Item = (Option<&'static Command>, &'static Command)> {
    REGISTRY.every_command()
}

/// Whether `args` name a command that a `light` build leaves out (see
/// [`table::needs_full_engine`]).
pub fn needs_full_engine(args: &[Vec<u8>]) -> bool {
    table::needs_full_engine(&REGISTRY, args)
}

/// The command `args` names, subcommand resolved; `None` if unknown.
pub fn resolve_command(args: &[Vec<u8>]) -> Option<&'static Command> {
    REGISTRY.resolve_command(args)
}
