//! CLIENT's subcommands that act on connections: REPLY, NO-TOUCH, NO-EVICT, KILL and UNBLOCK.
//!
//! A handler only holds its own client, so KILL and UNBLOCK leave a
//! [`ClientOp`] that the engine carries out once the command returns, as
//! Redis frees another client only between commands' replies.

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
    if ctx.srv.blocking.is_blocked(id)
        && !ctx.srv.client_ops.contains(&ClientOp::Unblock(id, true))
        && !ctx.srv.client_ops.contains(&ClientOp::Unblock(id, false))
    {
        ctx.srv.client_ops.push(ClientOp::Unblock(id, error));
        Frame::Integer(1)
    } else {
        Frame::Integer(0)
    }
}

/// What CLIENT KILL's filters select.
#[derive(Default)]
struct KillFilter<'a> {
    addr: Option<&'a [u8]>,
    laddr: Option<&'a [u8]>,
    /// Some(true): Pub/Sub clients only; Some(false): normal ones only.
    pubsub: Option<bool>,
    /// TYPE master or replica: no such connection here.
    none: bool,
    id: Option<u64>,
    skipme: bool,
}

/// Parses the new form's `<option> <value>` pairs.
fn kill_filter(args: &[Vec<u8>]) -> Result<KillFilter<'_>, Frame> {
    let mut f = KillFilter {
        skipme: true,
        ..KillFilter::default()
    };
    let mut i = 2;
    while i < args.len() {
        let more = i + 1 < args.len();
        let (opt, val) = (&args[i], args.get(i + 1).map(|v| v.as_slice()));
        match val {
            Some(v) if more && is(opt, "id") => match arg_i64(v) {
                Ok(n) if n >= 1 => f.id = Some(n as u64),
                _ => return Err(Frame::err("ERR client-id should be greater than 0")),
            },
            Some(v) if more && is(opt, "type") => match v.to_ascii_lowercase().as_slice() {
                b"normal" => f.pubsub = Some(false),
                b"pubsub" => f.pubsub = Some(true),
                b"slave" | b"replica" | b"master" => f.none = true,
                _ => {
                    return Err(Frame::err(format!(
                        "ERR Unknown client type '{}'",
                        String::from_utf8_lossy(v)
                    )))
                }
            },
            Some(v) if more && is(opt, "addr") => f.addr = Some(v),
            Some(v) if more && is(opt, "laddr") => f.laddr = Some(v),
            Some(v) if more && is(opt, "user") => {
                if v != b"default" {
                    return Err(Frame::err(format!(
                        "ERR No such user '{}'",
                        String::from_utf8_lossy(v)
                    )));
                }
            }
            Some(v) if more && is(opt, "skipme") => match v {
                v if is(v, "yes") => f.skipme = true,
                v if is(v, "no") => f.skipme = false,
                _ => return Err(Frame::err(SYNTAX)),
            },
            _ => return Err(Frame::err(SYNTAX)),
        }
        i += 2;
    }
    Ok(f)
}

/// CLIENT KILL addr:port (OK or an error), or CLIENT KILL with filters
/// (the number of clients killed).
pub(super) fn client_kill(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let old_form = args.len() == 3;
    let f = if old_form {
        KillFilter {
            addr: Some(&args[2]),
            skipme: false,
            ..KillFilter::default()
        }
    } else {
        match kill_filter(args) {
            Ok(f) => f,
            Err(e) => return e,
        }
    };
    let me = ctx.client.id;
    let mut victims = Vec::new();
    for (&id, e) in &ctx.srv.client_list {
        let subscribed = if id == me {
            ctx.client.subs.active()
        } else {
            e.subscribed
        };
        let matches = !f.none
            && f.addr.is_none_or(|a| a == e.addr.as_bytes())
            && f.laddr.is_none_or(|a| a == e.laddr.as_bytes())
            && f.pubsub.is_none_or(|p| p == subscribed)
            && f.id.is_none_or(|want| want == id)
            && !(id == me && f.skipme);
        if matches {
            victims.push(id);
        }
    }
    let killed = victims.len();
    for id in victims {
        if id == me {
            // Closed once its reply is written.
            ctx.client.close_after_reply = true;
        } else {
            ctx.srv.client_ops.push(ClientOp::Kill(id));
        }
    }
    if old_form {
        if killed == 0 {
            Frame::err("ERR No such client")
        } else {
            Frame::ok()
        }
    } else {
        Frame::Integer(killed as i64)
    }
}
