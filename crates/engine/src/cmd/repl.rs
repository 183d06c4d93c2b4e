//! Replication commands: REPLICAOF (and its old name SLAVEOF), ROLE and WAIT, over the engine's replication state (`crate::repl`).

use super::args::{is, NOT_INTEGER};
use super::table::{commands, Command, Ctx};
use crate::proto::resp::{parse_i64, Frame};
use crate::repl::{LinkState, Role};

pub(super) static COMMANDS: &[Command] = commands! { group: "server";
    "replicaof" => replicaof, arity: 3, flags: [ADMIN, NOSCRIPT, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "5.0.0",
        syntax: "REPLICAOF <host port | NO ONE>", summary: "Makes this server a replica of another, or (NO ONE) a master again.";
    "slaveof" => replicaof, arity: 3, flags: [ADMIN, NOSCRIPT, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "SLAVEOF <host port | NO ONE>", summary: "REPLICAOF's old name (deprecated).";
    "role" => role, arity: 1, flags: [NOSCRIPT, LOADING, STALE, FAST, SENTINEL], acl: [ADMIN, FAST, DANGEROUS], since: "2.8.12",
        syntax: "ROLE", summary: "Replies with this server's replication role, offset and peers.";
    "wait" => wait, arity: 3, flags: [], acl: [SLOW, CONNECTION], group: "generic", since: "3.0.0",
        syntax: "WAIT numreplicas timeout", summary: "Waits until numreplicas replicas acknowledged this client's writes, or timeout ms (0: forever); replies how many did.";
};

fn replicaof(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if ctx.srv.config.cluster_enabled {
        return Frame::err("ERR REPLICAOF not allowed in cluster mode.");
    }
    if is(&args[1], "no") && is(&args[2], "one") {
        crate::repl::promote(ctx.srv);
        return Frame::ok();
    }
    let port = match parse_i64(&args[2]) {
        Some(p) if (0..=65535).contains(&p) => p as u16,
        _ => return Frame::err("ERR Invalid master port"),
    };
    let host = String::from_utf8_lossy(&args[1]).into_owned();
    if let Role::Replica {
        host: h, port: p, ..
    } = &ctx.srv.repl.role
    {
        if h.eq_ignore_ascii_case(&host) && *p == port {
            return Frame::Simple("OK Already connected to specified master".into());
        }
    }
    crate::repl::demote(ctx.srv, &host, port);
    Frame::ok()
}

fn role(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let r = &ctx.srv.repl;
    match &r.role {
        Role::Master => {
            let replicas = r
                .replicas
                .iter()
                .filter(|x| x.online)
                .map(|x| {
                    let (ip, port) = x.addr.rsplit_once(':').unwrap_or((x.addr.as_str(), "0"));
                    Frame::Array(vec![
                        Frame::bulk(ip),
                        Frame::bulk(port),
                        Frame::bulk(x.ack_offset.to_string()),
                    ])
                })
                .collect();
            Frame::Array(vec![
                Frame::bulk("master"),
                Frame::Integer(r.offset as i64),
                Frame::Array(replicas),
            ])
        }
        Role::Replica {
            host, port, state, ..
        } => {
            let s = match state {
                LinkState::Connect => "connect",
                LinkState::Sync => "sync",
                LinkState::Connected => "connected",
            };
            let offset = if *state == LinkState::Connected {
                r.offset as i64
            } else {
                -1
            };
            Frame::Array(vec![
                Frame::bulk("slave"),
                Frame::bulk(host.as_str()),
                Frame::Integer(*port as i64),
                Frame::bulk(s),
                Frame::Integer(offset),
            ])
        }
    }
}

/// `waitCommand`: counts replicas that acknowledged this client's last
/// write (`c->woff`); blocks until enough do or the timeout passes. It
/// rolls nothing back: a write acknowledged by fewer replicas than asked
/// stays on the master.
fn wait(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if ctx.srv.repl.is_replica() {
        return Frame::err("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.");
    }
    let Some(numreplicas) = parse_i64(&args[1]) else {
        return Frame::err(NOT_INTEGER);
    };
    let timeout = match parse_i64(&args[2]) {
        None => return Frame::err("ERR timeout is not an integer or out of range"),
        Some(t) if t < 0 => return Frame::err("ERR timeout is negative"),
        Some(t) => t,
    };
    let acked = ctx.srv.repl.acked(ctx.client.repl_woff) as i64;
    if acked >= numreplicas || !crate::blocking::may_block(ctx.srv) {
        return Frame::Integer(acked);
    }
    let deadline = if timeout > 0 {
        ctx.srv.now_ms().saturating_add(timeout)
    } else {
        0
    };
    ctx.srv.repl.ack_requested = true;
    crate::blocking::block_for_replicas(ctx.srv, deadline)
}
