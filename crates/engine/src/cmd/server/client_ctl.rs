//! CLIENT's subcommands that set a connection's modes or act on other ones: REPLY, NO-TOUCH, NO-EVICT, UNBLOCK, PAUSE and UNPAUSE.
//!
//! A handler only holds its own client, so UNBLOCK and UNPAUSE leave a
//! [`ClientOp`] that the engine carries out once the command returns.

use crate::cmd::args::{arg_i64, is, SYNTAX};
use crate::cmd::table::Ctx;
use crate::proto::resp::Frame;
use crate::server::{ClientOp, Pause};

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
    // A command CLIENT PAUSE holds is not waiting for anything UNBLOCK can
    // answer: 0, as Valkey answers (Redis 7.0 crashes on it).
    let held = ctx.srv.blocking.kind_of(id) == Some(crate::blocking::BlockKind::Postponed);
    if ctx.srv.blocking.in_blocking_command(id)
        && !held
        && !ctx.srv.client_ops.contains(&ClientOp::Unblock(id, true))
        && !ctx.srv.client_ops.contains(&ClientOp::Unblock(id, false))
    {
        ctx.srv.client_ops.push(ClientOp::Unblock(id, error));
        Frame::Integer(1)
    } else {
        Frame::Integer(0)
    }
}

/// CLIENT PAUSE timeout [WRITE | ALL] (`pauseClients`): from now until
/// `timeout` ms have passed, other clients' commands wait (all of them, or
/// with WRITE those that may write or replicate), and keys neither expire
/// nor get evicted. A pause already running keeps the later end and the
/// stricter mode. Timeout 0 pauses nothing.
pub(super) fn client_pause(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() > 4 {
        return crate::cmd::replies::subcommand_syntax_error(args);
    }
    let all = match args.get(3) {
        None => true,
        Some(a) if is(a, "write") => false,
        Some(a) if is(a, "all") => true,
        Some(_) => return Frame::err("ERR CLIENT PAUSE mode must be WRITE or ALL"),
    };
    let end_ms = match crate::blocking::timeout_ms_arg(&args[2], ctx.srv.now_ms()) {
        Ok(end) => end,
        Err(e) => return e,
    };
    let pause = match ctx.srv.pause {
        Some(p) => Pause {
            end_ms: p.end_ms.max(end_ms),
            all: all || p.all,
        },
        None => Pause { end_ms, all },
    };
    // A pause already over (timeout 0) holds nothing, not even until the
    // next `beforeSleep`.
    if pause.end_ms > ctx.srv.now_ms() {
        ctx.srv.pause = Some(pause);
    }
    Frame::ok()
}

/// CLIENT UNPAUSE (`unpauseActions`): ends the pause; the clients it held
/// run their commands, in the order they were held, once this one returns.
pub(super) fn client_unpause(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    ctx.srv.pause = None;
    if !ctx.srv.client_ops.contains(&ClientOp::Unpause) {
        ctx.srv.client_ops.push(ClientOp::Unpause);
    }
    Frame::ok()
}
