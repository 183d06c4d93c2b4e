//! CLIENT's subcommands: ID, SETNAME, GETNAME, SETINFO, INFO, KILL, LIST, HELP, and (in `tracking.rs`) the client-side caching ones.
//!
//! CLIENT LIST needs every connection while a handler only sees its own,
//! so the server keeps a small [`ClientEntry`] per connection that the
//! engine refreshes after each command.

use crate::cmd::args::{arg_i64, err_text, is, SYNTAX};
use crate::cmd::replies::help_reply;
use crate::cmd::table::{commands, Command, Ctx};
use crate::proto::resp::Frame;
use crate::server::client::{Client, ClientEntry};
use crate::server::client_bufs::{state_overhead, CommandBytes};
use crate::server::Server;

pub(super) static SUBCOMMANDS: &[Command] = commands! { group: "connection";
    "id" => client_id, arity: 2, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "5.0.0",
        syntax: "CLIENT ID", summary: "Returns the unique client ID of the connection.";
    "setname" => client_setname, arity: 3, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "2.6.9",
        syntax: "CLIENT SETNAME connection-name", summary: "Sets the connection name.";
    "getname" => client_getname, arity: 2, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "2.6.9",
        syntax: "CLIENT GETNAME", summary: "Returns the name of the connection.";
    "setinfo" => client_setinfo, arity: 4, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "7.2.0",
        syntax: "CLIENT SETINFO (LIB-NAME libname | LIB-VER libver)", summary: "Sets information specific to the client or connection.";
    "info" => client_info, arity: 2, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "6.2.0",
        syntax: "CLIENT INFO", summary: "Returns information about the connection.";
    "kill" => client_kill, arity: -3, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS, CONNECTION], since: "2.4.0",
        syntax: "CLIENT KILL <ip:port | <[ID client-id] | [TYPE <NORMAL | MASTER | SLAVE | REPLICA | PUBSUB>] | [USER username] | [ADDR ip:port] | [LADDR ip:port] | [SKIPME <YES | NO>]> [[ID client-id] | [TYPE <NORMAL | MASTER | SLAVE | REPLICA | PUBSUB>] | [USER username] | [ADDR ip:port] | [LADDR ip:port] | [SKIPME <YES | NO>] ...]>", summary: "Terminates open connections.";
    "list" => client_list, arity: -2, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS, CONNECTION], since: "2.4.0",
        syntax: "CLIENT LIST [TYPE (NORMAL | MASTER | REPLICA | PUBSUB)] [ID client-id [client-id ...]]", summary: "Lists open connections.";
    "tracking" => super::tracking::client_tracking, arity: -3, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "6.0.0",
        syntax: "CLIENT TRACKING <ON | OFF> [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]", summary: "Controls server-assisted client-side caching for the connection.";
    "caching" => super::tracking::client_caching, arity: 3, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "6.0.0",
        syntax: "CLIENT CACHING <YES | NO>", summary: "Instructs the server whether to track the keys in the next request.";
    "getredir" => super::tracking::client_getredir, arity: 2, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "6.0.0",
        syntax: "CLIENT GETREDIR", summary: "Returns the client ID to which the connection's tracking notifications are redirected.";
    "trackinginfo" => super::tracking::client_trackinginfo, arity: 2, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "6.2.0",
        syntax: "CLIENT TRACKINGINFO", summary: "Returns information about server-assisted client-side caching for the connection.";
    "reply" => super::client_ctl::client_reply, arity: 3, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "3.2.0",
        syntax: "CLIENT REPLY <ON | OFF | SKIP>", summary: "Instructs the server whether to reply to commands.";
    "no-touch" => super::client_ctl::client_no_touch, arity: 3, flags: [NOSCRIPT, LOADING, STALE], acl: [SLOW, CONNECTION], since: "7.2.0",
        syntax: "CLIENT NO-TOUCH <ON | OFF>", summary: "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.";
    "no-evict" => super::client_ctl::client_no_evict, arity: 3, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS, CONNECTION], since: "7.0.0",
        syntax: "CLIENT NO-EVICT <ON | OFF>", summary: "Sets the client eviction mode of the connection.";
    heavy "pause" => super::client_ctl::client_pause, arity: -3, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS, CONNECTION], since: "2.9.50",
        syntax: "CLIENT PAUSE timeout [WRITE | ALL]", summary: "Suspends commands processing.";
    heavy "unpause" => super::client_ctl::client_unpause, arity: 2, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS, CONNECTION], since: "6.2.0",
        syntax: "CLIENT UNPAUSE", summary: "Resumes processing commands from paused clients.";
    "unblock" => super::client_ctl::client_unblock, arity: -3, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS, CONNECTION], since: "5.0.0",
        syntax: "CLIENT UNBLOCK client-id [TIMEOUT | ERROR]", summary: "Unblocks a client blocked by a blocking command from a different connection.";
    "help" => client_help, arity: 2, flags: [LOADING, STALE], acl: [SLOW, CONNECTION], since: "5.0.0",
        syntax: "CLIENT HELP", summary: "Returns helpful text about the different subcommands.";
};

/// `catClientInfoString` for one connection (without the newline);
/// `running` is the command it is running, for the caller's own line.
fn client_line(srv: &Server, id: u64, e: &ClientEntry, running: Option<&CommandBytes>) -> String {
    let base_us = srv.clock.unix_us() - srv.clock.now_us();
    let secs = |us: u64| (base_us + us) / 1_000_000;
    let now_s = secs(srv.clock.now_us());
    let (tracking, redir) = super::tracking::list_fields(srv, id);
    let out = crate::output::info(srv, id);
    // `catClientInfoString`'s letters, in its order.
    let mut flags = String::new();
    // `CLIENT_SLAVE`: a MONITOR (O) or a replica on this connection (S).
    if srv.monitors.contains(&id) {
        flags.push('O');
    } else if srv.repl.sockets.links.iter().any(|l| l.client == id) {
        flags.push('S');
    }
    if e.subscribed() {
        flags.push('P');
    }
    if e.multi {
        flags.push('x');
    }
    if srv.blocking.in_blocking_command(id) {
        flags.push('b');
    }
    flags.push_str(tracking);
    if e.closing {
        flags.push('c');
    }
    if e.modes.no_evict {
        flags.push('e');
    }
    if e.modes.no_touch {
        flags.push('T');
    }
    if flags.is_empty() {
        flags.push('N');
    }
    // A blocked client keeps its command's arguments, and what it sent
    // since waits in its query buffer.
    let blocked = match running {
        Some(_) => None,
        None => srv.blocking.waiter(id).map(|w| CommandBytes {
            query: w
                .queued
                .iter()
                .map(|a| CommandBytes::of(a).query)
                .sum::<usize>()
                + e.pending_input,
            ..CommandBytes::of(&w.args)
        }),
    };
    // The running command has been read into the query buffer.
    let mut bufs = e.bufs.clone();
    let (qbuf, qbuf_free) = match running {
        Some(c) => {
            bufs.read(c);
            bufs.query_while(c)
        }
        None => match &blocked {
            Some(b) => bufs.query_while(b),
            None if e.pending_input > 0 => bufs.query_while(&CommandBytes {
                query: e.pending_input,
                ..CommandBytes::default()
            }),
            None => (0, bufs.query_free()),
        },
    };
    let running = running.or(blocked.as_ref());
    let (queued, multi_mem, _) = e.multi_queue;
    let others = state_overhead(e.multi_queue, srv.watches.watched_count(id), e.subs);
    let tot_mem = bufs.total(out.omem as usize, running, others);
    let cmd = match e.last_cmd {
        (n, "") => n.to_string(),
        (n, s) => format!("{n}|{s}"),
    };
    format!(
        "id={id} addr={} laddr={} fd={} name={} age={} idle={} flags={} db={} sub={} psub={} ssub={} \
         multi={} qbuf={qbuf} qbuf-free={qbuf_free} argv-mem={} multi-mem={multi_mem} rbs={} rbp={} \
         obl={} oll={} omem={} tot-mem={tot_mem} events=r cmd={cmd} user={} redir={redir} resp={} \
         lib-name={} lib-ver={}",
        e.addr,
        e.laddr,
        e.fd,
        e.name.as_deref().unwrap_or(""),
        now_s.saturating_sub(secs(e.created_us)),
        now_s.saturating_sub(secs(e.last_interaction_us)),
        flags,
        e.db,
        e.subs[0],
        e.subs[1],
        e.subs[2],
        if e.multi { queued as i64 } else { -1 },
        running.map_or(0, |c| c.argv),
        e.bufs.rbs,
        e.bufs.rbp,
        e.bufs.used(out.obl as usize, e.exec_replied),
        out.oll,
        out.omem,
        e.user,
        e.resp,
        e.lib_name.as_deref().unwrap_or(""),
        e.lib_ver.as_deref().unwrap_or(""),
    )
}

/// The calling client's entry with its live state (it is only synced after the command).
/// CLIENT INFO's line for `c` (ACL LOG's `client-info`).
pub(crate) fn info_line(srv: &Server, c: &Client) -> String {
    let mut e = srv
        .client_list
        .get(&c.id)
        .cloned()
        .unwrap_or_else(|| ClientEntry::of(c));
    e.sync(c, srv.last_cmd);
    client_line(srv, c.id, &e, Some(&c.current))
}

fn own_entry(ctx: &Ctx) -> ClientEntry {
    let c = &*ctx.client;
    let mut e = ctx
        .srv
        .client_list
        .get(&c.id)
        .cloned()
        .unwrap_or_else(|| ClientEntry::of(c));
    e.sync(c, ctx.srv.last_cmd);
    e
}

fn client_id(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Integer(ctx.client.id as i64)
}

/// `validateClientAttr`: printable ASCII without spaces.
fn valid_attr(v: &[u8]) -> bool {
    v.iter().all(|&b| (b'!'..=b'~').contains(&b))
}

/// Names the connection (an empty name clears it), as CLIENT SETNAME and
/// HELLO's SETNAME do (`clientSetName`).
/// `validateClientName`.
pub(crate) fn check_name(name: &[u8]) -> Result<(), Frame> {
    if !valid_attr(name) {
        return Err(Frame::err(
            "ERR Client names cannot contain spaces, newlines or special characters.",
        ));
    }
    Ok(())
}

pub(crate) fn set_name(client: &mut Client, name: &[u8]) -> Result<(), Frame> {
    if !valid_attr(name) {
        return Err(Frame::err(
            "ERR Client names cannot contain spaces, newlines or special characters.",
        ));
    }
    client.name = (!name.is_empty()).then(|| String::from_utf8_lossy(name).into_owned());
    Ok(())
}

fn client_setname(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match set_name(ctx.client, &args[2]) {
        Ok(()) => Frame::ok(),
        Err(e) => e,
    }
}

fn client_getname(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match &ctx.client.name {
        Some(n) => Frame::bulk(n),
        None => Frame::Null,
    }
}

/// CLIENT SETINFO LIB-NAME|LIB-VER value (redis-py sends both on connect).
fn client_setinfo(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (attr, val) = (&args[2], &args[3]);
    let lib_name = is(attr, "lib-name");
    if !lib_name && !is(attr, "lib-ver") {
        return Frame::err(format!("ERR Unrecognized option '{}'", err_text(attr)));
    }
    if !valid_attr(val) {
        return Frame::err(format!(
            "ERR {} cannot contain spaces, newlines or special characters.",
            err_text(attr)
        ));
    }
    let value = (!val.is_empty()).then(|| String::from_utf8_lossy(val).into_owned());
    let id = ctx.client.id;
    if let Some(e) = ctx.srv.client_list.get_mut(&id) {
        if lib_name {
            e.lib_name = value;
        } else {
            e.lib_ver = value;
        }
    }
    Frame::ok()
}

fn client_info(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let e = own_entry(ctx);
    let mut line = client_line(ctx.srv, ctx.client.id, &e, Some(&ctx.client.current));
    line.push('\n');
    Frame::Verbatim(*b"txt", line.into_bytes())
}

/// CLIENT LIST [TYPE t] | [ID id ...], one line per connection, oldest first.
fn client_list(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let me = ctx.client.id;
    let own = own_entry(ctx);
    let line_for = |id: u64| -> Option<String> {
        if id == me {
            Some(client_line(ctx.srv, id, &own, Some(&ctx.client.current)))
        } else {
            ctx.srv
                .client_list
                .get(&id)
                .map(|e| client_line(ctx.srv, id, e, None))
        }
    };
    let mut ids: Vec<u64> = Vec::new();
    if args.len() == 4 && is(&args[2], "type") {
        let t = &args[3];
        if is(t, "normal") {
            ids.extend(ctx.srv.client_list.keys());
        } else if !["master", "replica", "slave", "pubsub"]
            .iter()
            .any(|n| is(t, n))
        {
            return Frame::err(format!("ERR Unknown client type '{}'", err_text(t)));
        }
    } else if args.len() > 3 && is(&args[2], "id") {
        for a in &args[3..] {
            match arg_i64(a) {
                Ok(n) => ids.push(n as u64),
                Err(_) => return Frame::err("ERR Invalid client ID"),
            }
        }
    } else if args.len() != 2 {
        return Frame::err(SYNTAX);
    } else {
        ids.extend(ctx.srv.client_list.keys());
    }
    let mut out = String::new();
    for id in ids {
        if let Some(line) = line_for(id) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    Frame::Verbatim(*b"txt", out.into_bytes())
}

/// What CLIENT KILL's filters ask for.
#[derive(Default)]
struct KillFilter {
    addr: Option<Vec<u8>>,
    laddr: Option<Vec<u8>>,
    user: Option<String>,
    /// Some(true): Pub/Sub clients only; Some(false): normal ones only;
    /// `None`: any. (`master`/`replica` match none: no such connections.)
    pubsub: Option<bool>,
    no_match: bool,
    id: Option<u64>,
}

impl KillFilter {
    fn matches(&self, id: u64, e: &ClientEntry) -> bool {
        !self.no_match
            && self.addr.as_ref().is_none_or(|a| a == e.addr.as_bytes())
            && self.laddr.as_ref().is_none_or(|a| a == e.laddr.as_bytes())
            && self.pubsub.is_none_or(|p| p == e.subscribed())
            && self.id.is_none_or(|want| want == id)
            && self.user.as_ref().is_none_or(|u| *u == e.user)
    }
}

/// CLIENT KILL addr (old form: OK or "No such client", may kill itself),
/// or filters ID, TYPE, USER, ADDR, LADDR, SKIPME (the count killed). The
/// connection sending it closes after its reply; others at once.
fn client_kill(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let mut f = KillFilter::default();
    let mut skipme = true;
    let old_form = args.len() == 3;
    if old_form {
        f.addr = Some(args[2].clone());
        skipme = false;
    } else {
        let mut i = 2;
        while i < args.len() {
            let Some(val) = args.get(i + 1) else {
                return Frame::err(SYNTAX);
            };
            let opt = &args[i];
            if is(opt, "id") {
                match arg_i64(val) {
                    Ok(n) if n >= 1 => f.id = Some(n as u64),
                    _ => return Frame::err("ERR client-id should be greater than 0"),
                }
            } else if is(opt, "type") {
                if is(val, "normal") {
                    f.pubsub = Some(false);
                } else if is(val, "pubsub") {
                    f.pubsub = Some(true);
                } else if ["master", "replica", "slave"].iter().any(|t| is(val, t)) {
                    f.no_match = true;
                } else {
                    return Frame::err(format!("ERR Unknown client type '{}'", err_text(val)));
                }
            } else if is(opt, "addr") {
                f.addr = Some(val.clone());
            } else if is(opt, "laddr") {
                f.laddr = Some(val.clone());
            } else if is(opt, "user") {
                let name = String::from_utf8_lossy(val).into_owned();
                if !ctx.srv.acl.users.contains_key(&name) {
                    return Frame::err(format!("ERR No such user '{name}'"));
                }
                f.user = Some(name);
            } else if is(opt, "skipme") {
                if is(val, "yes") {
                    skipme = true;
                } else if is(val, "no") {
                    skipme = false;
                } else {
                    return Frame::err(SYNTAX);
                }
            } else {
                return Frame::err(SYNTAX);
            }
            i += 2;
        }
    }
    let me = ctx.client.id;
    let own = own_entry(ctx);
    let mut killed = 0;
    let ids: Vec<u64> = ctx.srv.client_list.keys().copied().collect();
    for id in ids {
        if id == me {
            if !skipme && f.matches(id, &own) {
                ctx.client.close_after_reply = true;
                killed += 1;
            }
            continue;
        }
        if ctx
            .srv
            .client_list
            .get(&id)
            .is_some_and(|e| f.matches(id, e))
        {
            ctx.srv.killed.push(id);
            killed += 1;
        }
    }
    match (old_form, killed) {
        (true, 0) => Frame::err("ERR No such client"),
        (true, _) => Frame::ok(),
        (false, n) => Frame::Integer(n),
    }
}

fn client_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(args, &crate::cmd::doctext::help("client"))
}
