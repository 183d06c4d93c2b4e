//! Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, with Redis' exact semantics (queue-time errors abort, runtime errors do not roll back, WATCH sees expiry).

use super::table::{commands, Command, Ctx};
use crate::proto::resp::Frame;
use crate::server::client::ExecView;
use crate::server::client::{Client, MultiState};
use crate::server::client_bufs::{array_header_len, reply_len_upto, REPLY_CHUNK};
use crate::server::Server;

pub(super) static COMMANDS: &[Command] = commands! { group: "transactions";
    "multi" => multi, arity: 1, flags: [NOSCRIPT, LOADING, STALE, FAST, ALLOW_BUSY], acl: [FAST, TRANSACTION], since: "1.2.0",
        syntax: "MULTI", summary: "Starts a transaction: later commands are queued until EXEC.";
    "exec" => exec, arity: 1, flags: [NOSCRIPT, LOADING, STALE, SKIP_SLOWLOG], acl: [SLOW, TRANSACTION], since: "1.2.0",
        syntax: "EXEC", summary: "Runs every queued command atomically, or nothing if a watched key changed.";
    "discard" => discard, arity: 1, flags: [NOSCRIPT, LOADING, STALE, FAST, ALLOW_BUSY], acl: [FAST, TRANSACTION], since: "2.0.0",
        syntax: "DISCARD", summary: "Drops the queued commands and leaves the transaction.";
    "watch" => watch, arity: -2, flags: [NOSCRIPT, LOADING, STALE, FAST, ALLOW_BUSY], keys: (1, -1, 1), acl: [FAST, TRANSACTION], since: "2.2.0",
        syntax: "WATCH key [key ...]", summary: "Makes the next EXEC fail if any of these keys changes before it.";
    "unwatch" => unwatch, arity: 1, flags: [NOSCRIPT, LOADING, STALE, FAST, ALLOW_BUSY], acl: [FAST, TRANSACTION], since: "2.2.0",
        syntax: "UNWATCH", summary: "Forgets every watched key.";
};

fn multi(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if ctx.client.multi.is_some() {
        return Frame::err("ERR MULTI calls can not be nested");
    }
    ctx.client.multi = Some(MultiState::default());
    Frame::ok()
}

/// `discardTransaction`: leaves MULTI, clears the flags and every watch.
pub(super) fn discard_transaction(srv: &mut Server, client: &mut Client) {
    client.multi = None;
    srv.watches.reset(client.id);
}

/// `execCommandAbort`: EXEC itself was rejected (arity, OOM...).
pub(super) fn abort(srv: &mut Server, client: &mut Client, err: Frame) -> Frame {
    discard_transaction(srv, client);
    let Frame::Error(msg) = err else {
        return err;
    };
    // Format-built rejections carry no code of their own; coded ones (OOM) keep it.
    let msg = msg.strip_prefix("ERR ").unwrap_or(&msg);
    Frame::err(format!("EXECABORT Transaction discarded because of: {msg}"))
}

fn discard(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if ctx.client.multi.is_none() {
        return Frame::err("ERR DISCARD without MULTI");
    }
    discard_transaction(ctx.srv, ctx.client);
    Frame::ok()
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
    // Meanwhile CLIENT LIST shows the transaction, the replies so far, and
    // each queued command's arguments in place of EXEC's (`c->argc`).
    let resp = ctx.client.resp;
    let exec_bytes = ctx.client.current;
    let mut view = ExecView {
        queue: (state.queued.len(), state.argv_len_sums, state.alloc_count()),
        replied: array_header_len(state.queued.len()),
    };
    for args in &state.queued {
        ctx.client.exec = Some(view);
        ctx.client.current.argc = args.len();
        // Every queued command resolved and passed arity at queue time, and
        // was queued under its own name (`Renames::own_args`).
        let reply = match (ctx.reg.resolve)(args) {
            Ok((parent, cmd)) => match exec_acl_check(ctx, parent, cmd, args) {
                Some(denied) => denied,
                None => (ctx.reg.call)(ctx.srv, ctx.client, cmd, args),
            },
            Err(e) => e,
        };
        view.replied += reply_len_upto(&reply, resp, REPLY_CHUNK);
        replies.push(reply);
        // A queued SUBSCRIBE of several names writes one confirmation per
        // name: Redis lays them in the EXEC reply one after the other, so
        // the array's count runs out early and the last frames follow it.
        replies.extend(ctx.srv.pubsub.take_reply_tail());
    }
    ctx.client.exec = None;
    ctx.client.current = exec_bytes;
    let overflow = replies.split_off(state.queued.len().min(replies.len()));
    ctx.srv.pubsub.push_reply_tail(overflow);
    discard_transaction(ctx.srv, ctx.client);
    Frame::Array(replies)
}

/// EXEC checks each command's permissions again, in case the user's rules
/// changed since it was queued: a denied one gets this error in its place.
fn exec_acl_check(
    ctx: &mut Ctx,
    parent: &'static Command,
    cmd: &'static Command,
    args: &[Vec<u8>],
) -> Option<Frame> {
    let sub = (!std::ptr::eq(parent, cmd)).then_some(parent);
    let ctx_multi = crate::acl::LogContext::Multi;
    let (d, _) =
        super::acl::check::check_client(ctx.srv, ctx.reg, ctx.client, sub, cmd, args, ctx_multi)
            .err()?;
    let reason = match d {
        crate::acl::Denied::Cmd => "no permission to execute the command or subcommand",
        crate::acl::Denied::Key => "no permission to touch the specified keys",
        crate::acl::Denied::Channel => {
            "no permission to access one of the channels used as arguments"
        }
        crate::acl::Denied::Auth => "no permission",
    };
    Some(Frame::err(format!(
        "NOPERM ACLs rules changed between the moment the transaction was accumulated and the \
         EXEC call. This command is no longer allowed for the following reason: {reason}"
    )))
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
