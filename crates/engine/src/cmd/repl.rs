//! Replication commands: REPLICAOF (and its old name SLAVEOF), ROLE, WAIT and WAITAOF, over the engine's replication state (`crate::repl`); the protocol's own (SYNC, PSYNC, REPLCONF, FAILOVER) are in `repl_proto`.

use super::args::{is, NOT_INTEGER};
use super::table::{commands, Command, Ctx};
use crate::proto::resp::{parse_i64, Frame};
use crate::repl::{LinkState, Role};

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "server";
    "replicaof" => replicaof, arity: 3, flags: [ADMIN, NOSCRIPT, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "5.0.0",
        syntax: "REPLICAOF <host port | NO ONE>", summary: "Makes this server a replica of another, or (NO ONE) a master again.";
    "slaveof" => replicaof, arity: 3, flags: [ADMIN, NOSCRIPT, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "SLAVEOF <host port | NO ONE>", summary: "REPLICAOF's old name (deprecated).";
    "role" => role, arity: 1, flags: [NOSCRIPT, LOADING, STALE, FAST, SENTINEL], acl: [ADMIN, FAST, DANGEROUS], since: "2.8.12",
        syntax: "ROLE", summary: "Replies with this server's replication role, offset and peers.";
    "sync" => super::repl_proto::sync, arity: 1, flags: [ADMIN, NOSCRIPT, NO_ASYNC_LOADING, NO_MULTI], acl: [ADMIN, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "SYNC", summary: "An internal command used in replication.";
    "psync" => super::repl_proto::sync, arity: -3, flags: [ADMIN, NOSCRIPT, NO_ASYNC_LOADING, NO_MULTI], acl: [ADMIN, SLOW, DANGEROUS], since: "2.8.0",
        syntax: "PSYNC replicationid offset", summary: "An internal command used in replication.";
    "replconf" => super::repl_proto::replconf, arity: -1, flags: [ADMIN, NOSCRIPT, LOADING, STALE, ALLOW_BUSY], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "REPLCONF", summary: "An internal command for configuring the replication stream.";
    "failover" => super::repl_proto::failover, arity: -1, flags: [ADMIN, NOSCRIPT, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "6.2.0",
        syntax: "FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds]", summary: "Starts a coordinated failover from a server to one of its replicas.";
    "wait" => wait, arity: 3, flags: [], acl: [SLOW, CONNECTION], group: "generic", since: "3.0.0",
        syntax: "WAIT numreplicas timeout", summary: "Waits until numreplicas replicas acknowledged this client's writes, or timeout ms (0: forever); replies how many did.";
    "waitaof" => waitaof, arity: 4, flags: [NOSCRIPT], acl: [SLOW, CONNECTION], group: "generic", since: "7.2.0",
        syntax: "WAITAOF numlocal numreplicas timeout",
        summary: "Blocks until all of the preceding write commands sent by the connection are written to the append-only file of the master and/or replicas.";
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
    let timeout = match timeout_arg(&args[2]) {
        Ok(t) => t,
        Err(e) => return e,
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

/// WAIT's timeout argument (`getTimeoutFromObjectOrReply` in ms).
fn timeout_arg(arg: &[u8]) -> Result<i64, Frame> {
    match parse_i64(arg) {
        None => Err(Frame::err("ERR timeout is not an integer or out of range")),
        Some(t) if t < 0 => Err(Frame::err("ERR timeout is negative")),
        Some(t) => Ok(t),
    }
}

/// WAITAOF's answer for a client whose last command ended with `woff` AOF
/// records appended: whether the local AOF is fsynced that far, and how
/// many replicas said theirs is. Replicas here report no AOF offset (a
/// 7.2 replica without `appendonly` sends none either), so none counts.
pub fn waitaof_acks(srv: &crate::server::Server, woff: u64) -> (i64, i64) {
    (crate::persist::aof_synced(srv, woff) as i64, 0)
}

/// WAITAOF's reply: `[numlocal, numreplicas]` acknowledged.
pub fn waitaof_reply((local, replicas): (i64, i64)) -> Frame {
    Frame::Array(vec![Frame::Integer(local), Frame::Integer(replicas)])
}

/// `waitaofCommand`: numlocal is 0 or 1, numreplicas not negative; refused
/// on a replica and, for numlocal 1, without an AOF. Answers at once when
/// enough is fsynced (or the client may not block), else blocks until it
/// is or the timeout passes.
fn waitaof(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let numlocal = match parse_i64(&args[1]) {
        None => return Frame::err(NOT_INTEGER),
        Some(n) if !(0..=1).contains(&n) => {
            return Frame::err("ERR value is out of range, value must between 0 and 1")
        }
        Some(n) => n,
    };
    let numreplicas = match parse_i64(&args[2]) {
        None => return Frame::err(NOT_INTEGER),
        Some(n) if n < 0 => return Frame::err("ERR value is out of range, must be positive"),
        Some(n) => n,
    };
    let timeout = match timeout_arg(&args[3]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    if ctx.srv.repl.is_replica() {
        return Frame::err("ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated.");
    }
    if numlocal > 0 && !ctx.srv.config.appendonly {
        return Frame::err(
            "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.",
        );
    }
    let acks = waitaof_acks(ctx.srv, ctx.client.aof_woff);
    if (acks.0 >= numlocal && acks.1 >= numreplicas) || !crate::blocking::may_block(ctx.srv) {
        return waitaof_reply(acks);
    }
    let deadline = if timeout > 0 {
        ctx.srv.now_ms().saturating_add(timeout)
    } else {
        0
    };
    ctx.srv.repl.ack_requested = true;
    crate::blocking::block_for_replicas(ctx.srv, deadline)
}
