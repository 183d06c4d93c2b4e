//! Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, with Redis' exact semantics (queue-time errors abort, runtime errors do not roll back, WATCH sees expiry).

use super::{Command, Ctx};
use crate::proto::resp::Frame;
use crate::server::client::{Client, MultiState};
use crate::server::Server;

const TX_FLAGS: &[&str] = &["noscript", "loading", "stale", "fast", "allow_busy"];

pub static COMMANDS: &[Command] = &[
    Command {
        name: "multi",
        arity: 1,
        flags: TX_FLAGS,
        keys: (0, 0, 0),
        acl: &["fast", "transaction"],
        syntax: "MULTI",
        summary: "Starts a transaction: later commands are queued until EXEC.",
        since: "1.2.0",
        group: "transactions",
        handler: multi,
        subcommands: &[],
    },
    Command {
        name: "exec",
        arity: 1,
        flags: &["noscript", "loading", "stale", "skip_slowlog"],
        keys: (0, 0, 0),
        acl: &["slow", "transaction"],
        syntax: "EXEC",
        summary: "Runs every queued command atomically, or nothing if a watched key changed.",
        since: "1.2.0",
        group: "transactions",
        handler: exec,
        subcommands: &[],
    },
    Command {
        name: "discard",
        arity: 1,
        flags: TX_FLAGS,
        keys: (0, 0, 0),
        acl: &["fast", "transaction"],
        syntax: "DISCARD",
        summary: "Drops the queued commands and leaves the transaction.",
        since: "2.0.0",
        group: "transactions",
        handler: discard,
        subcommands: &[],
    },
    Command {
        name: "watch",
        arity: -2,
        flags: TX_FLAGS,
        keys: (1, -1, 1),
        acl: &["fast", "transaction"],
        syntax: "WATCH key [key ...]",
        summary: "Makes the next EXEC fail if any of these keys changes before it.",
        since: "2.2.0",
        group: "transactions",
        handler: watch,
        subcommands: &[],
    },
    Command {
        name: "unwatch",
        arity: 1,
        flags: TX_FLAGS,
        keys: (0, 0, 0),
        acl: &["fast", "transaction"],
        syntax: "UNWATCH",
        summary: "Forgets every watched key.",
        since: "2.2.0",
        group: "transactions",
        handler: unwatch,
        subcommands: &[],
    },
];

fn multi(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if ctx.client.multi.is_some() {
        return Frame::err("ERR MULTI calls can not be nested");
    }
    ctx.client.multi = Some(MultiState::default());
    Frame::ok()
}

/// `discardTransaction`: leaves MULTI, clears the flags and every watch.
pub fn discard_transaction(srv: &mut Server, client: &mut Client) {
    client.multi = None;
    srv.watches.reset(client.id);
}

fn discard(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if ctx.client.multi.is_none() {
        return Frame::err("ERR DISCARD without MULTI");
    }
    discard_transaction(ctx.srv, ctx.client);
    Frame::ok()
}

/// `execCommandAbort`: EXEC itself was rejected (arity, OOM...).
pub fn abort(srv: &mut Server, client: &mut Client, err: Frame) -> Frame {
    discard_transaction(srv, client);
    let Frame::Error(msg) = err else {
        return err;
    };
    // Format-built rejections carry no code of their own; coded ones (OOM) keep it.
    let msg = msg.strip_prefix("ERR ").unwrap_or(&msg);
    Frame::err(format!("EXECABORT Transaction discarded because of: {msg}"))
}

fn exec(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let Some(state) = ctx.client.multi.take() else {
        return Frame::err("ERR EXEC without MULTI");
    };
    let id = ctx.client.id;
    // `isWatchedKeyExpired`: a watched key that expired since WATCH is a change,
    // even if nothing has reclaimed it yet.
    let expired = ctx
        .srv
        .watches
        .live_watched(id)
        .iter()
        .any(|(db, key)| ctx.srv.key_is_expired(*db, key));
    if expired {
        ctx.srv.watches.set_dirty(id);
    }
    if state.dirty_exec {
        discard_transaction(ctx.srv, ctx.client);
        return Frame::err("EXECABORT Transaction discarded because of previous errors.");
    }
    if ctx.srv.watches.is_dirty(id) {
        discard_transaction(ctx.srv, ctx.client);
        return Frame::NullArray;
    }
    ctx.srv.watches.unwatch_all(id);
    let mut replies = Vec::with_capacity(state.queued.len());
    for args in &state.queued {
        // Every queued command resolved and passed arity at queue time.
        let reply = match super::resolve(args) {
            Ok((_, cmd)) => super::call(ctx.srv, ctx.client, cmd, args),
            Err(e) => e,
        };
        replies.push(reply);
        // A queued SUBSCRIBE of several names writes one confirmation per
        // name: Redis lays them in the EXEC reply one after the other, so
        // the array's count runs out early and the last frames follow it.
        replies.extend(ctx.srv.pubsub.take_reply_tail());
    }
    let overflow = replies.split_off(state.queued.len().min(replies.len()));
    ctx.srv.pubsub.push_reply_tail(overflow);
    discard_transaction(ctx.srv, ctx.client);
    Frame::Array(replies)
}

fn watch(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if ctx.client.multi.is_some() {
        return Frame::err("ERR WATCH inside MULTI is not allowed");
    }
    let id = ctx.client.id;
    if ctx.srv.watches.is_dirty(id) {
        return Frame::ok();
    }
    let db = ctx.db();
    for key in &args[1..] {
        let expired = ctx.srv.key_is_expired(db, key);
        ctx.srv.watches.watch(id, db, key, expired);
    }
    Frame::ok()
}

fn unwatch(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let id = ctx.client.id;
    ctx.srv.watches.unwatch_all(id);
    // UNWATCH also clears a CAS failure flag (`CLIENT_DIRTY_CAS`).
    ctx.srv.watches.reset(id);
    Frame::ok()
}
