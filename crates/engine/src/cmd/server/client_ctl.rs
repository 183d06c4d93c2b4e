//! CLIENT's subcommands that set a connection's modes or act on another one: REPLY, NO-TOUCH, NO-EVICT and UNBLOCK.
//!
//! A handler only holds its own client, so UNBLOCK leaves a [`ClientOp`]
//! that the engine carries out once the command returns.

use crate::cmd::args::{arg_i64, is, SYNTAX};
use crate::cmd::table::Ctx;
use crate::proto::resp::Frame;
use crate::server::ClientOp;

/// CLIENT REPLY ON|OFF|SKIP. OFF and SKIP have no reply of their own.
pub(super) fn client_reply(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let m = &mut ctx.client.modes;
    match &args[2] {
        a if is(a, "on") => {
            m.reply_off = false;
            m.reply_skip = false;
            Frame::ok()
        }
        a if is(a, "off") => {
            m.reply_off = true;
            Frame::ok()
        }
        a if is(a, "skip") => {
            if !m.reply_off {
                m.reply_skip_next = true;
            }
            Frame::ok()
        }
        _ => Frame::err(SYNTAX),
    }
}

/// Parses ON|OFF for NO-TOUCH and NO-EVICT.
fn on_off(arg: &[u8]) -> Option<bool> {
    match arg {
        a if is(a, "on") => Some(true),
        a if is(a, "off") => Some(false),
        _ => None,
    }
}

/// CLIENT NO-TOUCH ON|OFF: this client's reads leave keys' LRU/LFU alone.
pub(super) fn client_no_touch(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match on_off(&args[2]) {
        Some(v) => {
            ctx.client.modes.no_touch = v;
            Frame::ok()
        }
        None => Frame::err(SYNTAX),
    }
}

/// CLIENT NO-EVICT ON|OFF: recorded and shown (flag `e`); clients' own
/// memory is not modelled, so no client is ever evicted anyway.
pub(super) fn client_no_evict(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match on_off(&args[2]) {
        Some(v) => {
            ctx.client.modes.no_evict = v;
            Frame::ok()
        }
        None => Frame::err(SYNTAX),
    }
}

/// CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 if the client was blocked.
pub(super) fn client_unblock(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let error = match args.get(3) {
        None => false,
        Some(a) if is(a, "timeout") => false,
        Some(a) if is(a, "error") => true,
        Some(_) => return Frame::err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"),
    };
    let id = match arg_i64(&args[2]) {
        Ok(id) => id,
        Err(e) => return e,
    };
    let id = id as u64;
    if ctx.srv.blocking.in_blocking_command(id)
        && !ctx.srv.client_ops.contains(&ClientOp::Unblock(id, true))
        && !ctx.srv.client_ops.contains(&ClientOp::Unblock(id, false))
    {
        ctx.srv.client_ops.push(ClientOp::Unblock(id, error));
        Frame::Integer(1)
    } else {
        Frame::Integer(0)
    }
}
