//! Server and admin commands: the family's table, with TIME; DBSIZE and the FLUSH commands, INFO, CONFIG, COMMAND (and its DOCS) and CLIENT each live in their own module, with Redis 7.2's reply shapes and error texts.
//!
//! Values come from our own state (virtual clock, modelled memory, stats
//! counters); INFO lists only the fields we can fill honestly, in Redis'
//! order.

mod client;
mod client_ctl;
mod command;
mod config;
mod docs;
mod flush;
mod info;
mod lolwut;
mod observe;
mod tracking;

pub(crate) use client::check_name as check_client_name;
pub(crate) use client::info_line as client_info_line;
pub(crate) use client::set_name as set_client_name;
pub use command::acl_categories;
pub use config::set_params;
pub use info::{cron_memory_sample, cron_update_memory_stats};
pub(crate) use observe::{feed_monitors, record_call};

use super::table::{commands, container, Command, Ctx};
use crate::proto::resp::Frame;

pub(in crate::cmd) static COMMANDS: &[Command] = commands! { group: "server";
    "dbsize" => flush::dbsize, arity: 1, flags: [READONLY, FAST], acl: [KEYSPACE, READ, FAST], since: "1.0.0",
        syntax: "DBSIZE", summary: "Returns the number of keys in the database.";
    "flushdb" => flush::flushdb, arity: -1, flags: [WRITE], acl: [KEYSPACE, WRITE, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "FLUSHDB [ASYNC | SYNC]", summary: "Remove all keys from the current database.";
    "flushall" => flush::flushall, arity: -1, flags: [WRITE], acl: [KEYSPACE, WRITE, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "FLUSHALL [ASYNC | SYNC]", summary: "Removes all keys from all databases.";
    "time" => time, arity: 1, flags: [LOADING, STALE, FAST], acl: [FAST], since: "2.6.0",
        syntax: "TIME", summary: "Returns the server time.";
    "info" => info::info, arity: -1, flags: [LOADING, STALE, SENTINEL], acl: [SLOW, DANGEROUS], since: "1.0.0",
        syntax: "INFO [section [section ...]]", summary: "Returns information and statistics about the server.";
    "config" => container, arity: -2, flags: [], acl: [SLOW], since: "2.0.0",
        syntax: "CONFIG <subcommand>", summary: "A container for server configuration commands.", subcommands: config::SUBCOMMANDS;
    "command" => command::command_all, arity: -1, flags: [LOADING, STALE, SENTINEL], acl: [SLOW, CONNECTION], since: "2.8.13",
        syntax: "COMMAND", summary: "Returns detailed information about all commands.", subcommands: command::SUBCOMMANDS;
    "client" => container, arity: -2, flags: [SENTINEL], acl: [SLOW], group: "connection", since: "2.4.0",
        syntax: "CLIENT <subcommand>", summary: "A container for client connection commands.", subcommands: client::SUBCOMMANDS;
    "shutdown" => shutdown, arity: -1, flags: [ADMIN, NOSCRIPT, LOADING, STALE, NO_MULTI, SENTINEL, ALLOW_BUSY], acl: [ADMIN, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]", summary: "Synchronously saves the database(s) to disk and shuts down the Redis server.";
    "monitor" => observe::monitor, arity: 1, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "MONITOR", summary: "Listens for all requests received by the server in real-time.";
};

/// The server's diagnostics: heavy, as the browser's console seldom needs
/// them (their handlers and texts stay out of its module; MONITOR stays, a
/// console with several clients can watch the others).
pub(in crate::cmd) static DIAGNOSTICS: &[Command] = commands! { heavy; group: "server";
    "slowlog" => container, arity: -2, flags: [], acl: [SLOW], since: "2.2.12",
        syntax: "SLOWLOG <subcommand>", summary: "A container for slow log commands.", subcommands: observe::SLOWLOG_SUBCOMMANDS;
    "latency" => container, arity: -2, flags: [], acl: [SLOW], since: "2.8.13",
        syntax: "LATENCY <subcommand>", summary: "A container for latency diagnostics commands.", subcommands: observe::LATENCY_SUBCOMMANDS;
    "lolwut" => lolwut::lolwut, arity: -1, flags: [READONLY, FAST], acl: [READ, FAST], since: "5.0.0",
        syntax: "LOLWUT [VERSION version]", summary: "Displays computer art and the Redis version";
};

/// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT] (`shutdownCommand`): the
/// server stops; its driver sees [`crate::Engine::is_shut_down`], closes
/// every connection and, for a standalone server, exits. Nothing is
/// replied on success. There is never a shutdown in progress to ABORT.
fn shutdown(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (mut abort, mut other, mut now) = (false, false, false);
    let (mut save, mut nosave) = (false, false);
    for a in &args[1..] {
        match a.to_ascii_lowercase().as_slice() {
            b"nosave" => nosave = true,
            b"save" => save = true,
            b"now" => now = true,
            b"force" => other = true,
            b"abort" => abort = true,
            _ => return Frame::err(crate::cmd::args::SYNTAX),
        }
    }
    other |= save || nosave || now;
    if (save && nosave) || (abort && other) {
        return Frame::err(crate::cmd::args::SYNTAX);
    }
    if abort {
        return Frame::err("ERR No shutdown in progress.");
    }
    if !now && ctx.srv.blocking.deny {
        return Frame::err(
            "ERR SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client",
        );
    }
    // A busy script: only SHUTDOWN NOSAVE may stop the server under it,
    // and the script ends with it (a driver that goes on, as the browser's
    // console does, hands its caller the kill error).
    if !nosave {
        if let Some(e) = ctx.srv.scripts.refuse(false) {
            return e;
        }
    }
    if let Some(b) = ctx.srv.scripts.busy.take() {
        let op = crate::server::ClientOp::Reply(b.caller, b.killed);
        ctx.srv.client_ops.push(op);
    }
    ctx.srv.shut_down = true;
    Frame::ok()
}

/// TIME: virtual Unix seconds and the microseconds within the second.
fn time(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let us = ctx.srv.clock.unix_us();
    Frame::Array(vec![
        Frame::bulk((us / 1_000_000).to_string()),
        Frame::bulk((us % 1_000_000).to_string()),
    ])
}
