//! CLIENT's client-side caching subcommands: TRACKING, CACHING, GETREDIR and TRACKINGINFO, with `clientCommand`'s checks in its order and its exact errors.

use crate::cmd::args::{arg_i64, err_text, is, SYNTAX};
use crate::cmd::table::Ctx;
use crate::proto::resp::Frame;
use crate::tracking::{self, Mode};

/// CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST] [PREFIX p]... [OPTIN]
/// [OPTOUT] [NOLOOP]. Options are read (and REDIRECT's target checked)
/// before ON or OFF is looked at, so OFF with a bad option fails too.
pub(super) fn client_tracking(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let mut redirect: i64 = 0;
    let mut mode = Mode::default();
    let mut prefixes: Vec<Vec<u8>> = Vec::new();
    let mut j = 3;
    while j < args.len() {
        let more = j + 1 < args.len();
        let a = &args[j];
        if is(a, "redirect") && more {
            j += 1;
            if redirect != 0 {
                return Frame::err("ERR A client can only redirect to a single other client");
            }
            redirect = match arg_i64(&args[j]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            // Checked now, though the target may leave later.
            let exists = redirect == ctx.client.id as i64
                || (redirect > 0 && ctx.srv.client_list.contains_key(&(redirect as u64)));
            if !exists {
                return Frame::err("ERR The client ID you want redirect to does not exist");
            }
        } else if is(a, "bcast") {
            mode.bcast = true;
        } else if is(a, "optin") {
            mode.optin = true;
        } else if is(a, "optout") {
            mode.optout = true;
        } else if is(a, "noloop") {
            mode.noloop = true;
        } else if is(a, "prefix") && more {
            j += 1;
            prefixes.push(args[j].clone());
        } else {
            return Frame::err(SYNTAX);
        }
        j += 1;
    }
    let id = ctx.client.id;
    if is(&args[2], "off") {
        tracking::disable(ctx.srv, id);
        return Frame::ok();
    }
    if !is(&args[2], "on") {
        return Frame::err(SYNTAX);
    }
    if !mode.bcast && !prefixes.is_empty() {
        return Frame::err("ERR PREFIX option requires BCAST mode to be enabled");
    }
    let current = ctx.srv.tracking.client(id).cloned();
    if current.as_ref().is_some_and(|t| t.bcast != mode.bcast) {
        return Frame::err(
            "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.",
        );
    }
    if mode.bcast && (mode.optin || mode.optout) {
        return Frame::err("ERR OPTIN and OPTOUT are not compatible with BCAST");
    }
    if mode.optin && mode.optout {
        return Frame::err("ERR You can't specify both OPTIN mode and OPTOUT mode");
    }
    if current
        .as_ref()
        .is_some_and(|t| (mode.optin && t.optout) || (mode.optout && t.optin))
    {
        return Frame::err(
            "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.",
        );
    }
    let mut reply = Frame::ok();
    if mode.bcast {
        let existing = current.map(|t| t.prefixes).unwrap_or_default();
        match prefix_collision(&existing, &prefixes) {
            Collision::None => {}
            Collision::Refused(e) => return e,
            Collision::Reported(e) => {
                // `checkPrefixCollisionsOrReply` returns the index of the
                // prefix it found overlapping a later one, which is true
                // past the first: Redis replies the error, enables
                // tracking anyway and replies +OK as well.
                ctx.srv.pubsub.push_reply_tail([Frame::ok()]);
                reply = e;
            }
        }
    }
    tracking::enable(ctx.srv, id, redirect, mode, &prefixes);
    reply
}

/// What `checkPrefixCollisionsOrReply` concluded.
enum Collision {
    None,
    /// An error, and the command stops.
    Refused(Frame),
    /// An error, and the command goes on (see its caller).
    Reported(Frame),
}

/// Two prefixes collide when one starts the other (both would see the same key).
fn overlap(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

/// Each new prefix against the client's own (in byte order), then against
/// the new ones after it.
fn prefix_collision(existing: &crate::ordmap::OrdSet<Vec<u8>>, new: &[Vec<u8>]) -> Collision {
    for (i, p) in new.iter().enumerate() {
        if let Some(old) = existing.iter().find(|old| overlap(old, p)) {
            return Collision::Refused(Frame::err(format!(
                "ERR Prefix '{}' overlaps with an existing prefix '{}'. Prefixes for a single client must not overlap.",
                err_text(p),
                err_text(old)
            )));
        }
        if let Some(other) = new[i + 1..].iter().find(|q| overlap(p, q)) {
            let e = Frame::err(format!(
                "ERR Prefix '{}' overlaps with another provided prefix '{}'. Prefixes for a single client must not overlap.",
                err_text(p),
                err_text(other)
            ));
            return if i == 0 {
                Collision::Refused(e)
            } else {
                Collision::Reported(e)
            };
        }
    }
    Collision::None
}

/// CLIENT CACHING YES|NO: for the next command only, in OPTIN or OPTOUT mode.
pub(super) fn client_caching(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let id = ctx.client.id;
    let Some(t) = ctx.srv.tracking.clients_mut(id) else {
        return Frame::err(
            "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled",
        );
    };
    if is(&args[2], "yes") {
        if !t.optin {
            return Frame::err(
                "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.",
            );
        }
    } else if is(&args[2], "no") {
        if !t.optout {
            return Frame::err(
                "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.",
            );
        }
    } else {
        return Frame::err(SYNTAX);
    }
    t.caching = true;
    Frame::ok()
}

/// CLIENT GETREDIR: the redirection target, 0 for none, -1 if not tracking.
pub(super) fn client_getredir(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Integer(
        ctx.srv
            .tracking
            .client(ctx.client.id)
            .map_or(-1, |t| t.redirect),
    )
}

/// CLIENT TRACKINGINFO: a map of `flags` (a set), `redirect` and `prefixes`.
pub(super) fn client_trackinginfo(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let t = ctx.srv.tracking.client(ctx.client.id);
    let flags = tracking::info_flags(t)
        .into_iter()
        .map(Frame::bulk)
        .collect();
    let prefixes = t.map_or_else(Vec::new, |t| t.prefixes.iter().map(Frame::bulk).collect());
    Frame::Map(vec![
        (Frame::bulk("flags"), Frame::Set(flags)),
        (
            Frame::bulk("redirect"),
            Frame::Integer(t.map_or(-1, |t| t.redirect)),
        ),
        (Frame::bulk("prefixes"), Frame::Array(prefixes)),
    ])
}

/// The tracking letters of CLIENT LIST's `flags` (`t`, `R`, `B`, in
/// `catClientInfoString`'s order) and its `redir` field.
pub(super) fn list_fields(srv: &crate::server::Server, id: u64) -> (&'static str, i64) {
    match srv.tracking.client(id) {
        None => ("", -1),
        Some(t) => {
            let flags = match (t.broken_redir, t.bcast) {
                (false, false) => "t",
                (true, false) => "tR",
                (false, true) => "tB",
                (true, true) => "tRB",
            };
            (flags, t.redirect)
        }
    }
}
