//! Connection commands: PING, ECHO, SELECT, QUIT, HELLO, RESET.

use super::args::{arg_i64, is};
use super::table::{commands, Command, Ctx};
use crate::proto::resp::Frame;

pub(super) static COMMANDS: &[Command] = commands! { group: "connection";
    "ping" => ping, arity: -1, flags: [FAST, SENTINEL], acl: [FAST, CONNECTION], since: "1.0.0",
        syntax: "PING [message]", summary: "Returns the server's liveliness response.";
    "echo" => echo, arity: 2, flags: [LOADING, STALE, FAST], acl: [FAST, CONNECTION], since: "1.0.0",
        syntax: "ECHO message", summary: "Returns the given string.";
    "select" => select, arity: 2, flags: [LOADING, STALE, FAST], acl: [FAST, CONNECTION], since: "1.0.0",
        syntax: "SELECT index", summary: "Changes the selected database.";
    "quit" => quit, arity: -1, flags: [NOSCRIPT, LOADING, STALE, FAST, NO_AUTH, ALLOW_BUSY], acl: [FAST, CONNECTION], since: "1.0.0",
        syntax: "QUIT", summary: "Closes the connection.";
    "hello" => hello, arity: -1, flags: [NOSCRIPT, LOADING, STALE, FAST, NO_AUTH, SENTINEL, ALLOW_BUSY], acl: [FAST, CONNECTION], since: "6.0.0",
        syntax: "HELLO [protover [AUTH username password] [SETNAME clientname]]", summary: "Handshakes with the Redis server.";
    "reset" => reset, arity: 1, flags: [NOSCRIPT, LOADING, STALE, FAST, NO_AUTH, ALLOW_BUSY], acl: [FAST, CONNECTION], since: "6.2.0",
        syntax: "RESET", summary: "Resets the connection.";
};

fn ping(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if ctx.client.resp == 2 && ctx.client.subs.active() {
        return super::pubsub::subscribed_ping(args);
    }
    match args.len() {
        1 => Frame::Simple("PONG".into()),
        2 => Frame::Bulk(args[1].clone()),
        _ => {
            let _ = ctx;
            Frame::err("ERR wrong number of arguments for 'ping' command")
        }
    }
}

fn echo(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    Frame::Bulk(args[1].clone())
}

fn select(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let Ok(id) = arg_i64(&args[1]) else {
        return Frame::err("ERR value is not an integer or out of range");
    };
    if id < 0 || id >= ctx.srv.dbs.len() as i64 {
        return Frame::err("ERR DB index is out of range");
    }
    ctx.client.db = id as usize;
    Frame::ok()
}

/// RESET (`clearClientConnectionState`): the connection as a new one, in
/// Redis' order: database 0, RESP2, no transaction or watched keys, no
/// subscriptions (dropped silently), no name, the default user, and no
/// cluster ASKING or READONLY. It runs even inside MULTI and while subscribed.
fn reset(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    ctx.client.db = 0;
    ctx.client.resp = 2;
    super::multi::discard_transaction(ctx.srv, ctx.client);
    crate::pubsub::disconnected(ctx.srv, ctx.client);
    crate::tracking::disconnected(ctx.srv, ctx.client.id);
    ctx.client.name = None;
    ctx.client.modes = Default::default();
    // `clientSetDefaultAuth`: back to the default user, authenticated
    // only if it needs no password.
    ctx.client.user = Some("default".into());
    ctx.client.authenticated = !ctx.srv.acl.auth_required;
    let id = ctx.client.id;
    ctx.srv.monitors.retain(|&m| m != id);
    if let Some(cl) = ctx.srv.cluster.as_mut() {
        cl.asking.remove(&id);
        cl.readonly.remove(&id);
    }
    Frame::Simple("RESET".into())
}

fn quit(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    ctx.client.close_after_reply = true;
    Frame::ok()
}

/// HELLO (`helloCommand`): checks the protocol version, then its options
/// (AUTH authenticates, SETNAME is validated), then switches protocol and
/// replies with the server's identity.
fn hello(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let mut ver = ctx.client.resp as i64;
    let mut i = 1;
    if args.len() >= 2 {
        match crate::proto::resp::parse_i64(&args[1]) {
            Some(v) => ver = v,
            None => return Frame::err("ERR Protocol version is not an integer or out of range"),
        }
        if !(2..=3).contains(&ver) {
            return Frame::err("NOPROTO unsupported protocol version");
        }
        i = 2;
    }
    let mut name = None;
    let mut creds = None;
    while i < args.len() {
        let more = args.len() - i - 1;
        if is(&args[i], "AUTH") && more >= 2 {
            ctx.redact(i + 1);
            ctx.redact(i + 2);
            creds = Some((i + 1, i + 2));
            i += 3;
        } else if is(&args[i], "SETNAME") && more >= 1 {
            if let Err(e) = super::server::check_client_name(&args[i + 1]) {
                return e;
            }
            name = Some(args[i + 1].clone());
            i += 2;
        } else {
            return Frame::err(format!(
                "ERR Syntax error in HELLO option '{}'",
                String::from_utf8_lossy(&args[i])
            ));
        }
    }
    if let Some((u, p)) = creds {
        if let Err(e) = super::acl::authenticate(ctx.srv, ctx.client, &args[0], &args[u], &args[p])
        {
            return e;
        }
    }
    if ctx.srv.acl.auth_required && !ctx.client.authenticated {
        return Frame::err(
            "NOAUTH HELLO must be called with the client already authenticated, otherwise the \
             HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and \
             select the RESP protocol version at the same time",
        );
    }
    if let Some(n) = name {
        if let Err(e) = super::server::set_client_name(ctx.client, &n) {
            return e;
        }
    }
    ctx.client.resp = ver as u8;
    Frame::Map(vec![
        (Frame::bulk("server"), Frame::bulk("redis")),
        (Frame::bulk("version"), Frame::bulk(crate::REDIS_VERSION)),
        (Frame::bulk("proto"), Frame::Integer(ver)),
        (Frame::bulk("id"), Frame::Integer(ctx.client.id as i64)),
        (Frame::bulk("mode"), Frame::bulk("standalone")),
        (Frame::bulk("role"), Frame::bulk("master")),
        (Frame::bulk("modules"), Frame::Array(vec![])),
    ])
}
