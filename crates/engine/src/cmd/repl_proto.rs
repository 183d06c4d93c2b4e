//! The replication protocol's commands, as replication.c answers them: SYNC and PSYNC (a full resynchronisation over the connection, `crate::repl::socket`), REPLCONF (what a replica announces, and its ACKs), and FAILOVER's checks.

use super::args::{is, NOT_INTEGER, SYNTAX};
use super::table::Ctx;
use crate::proto::resp::{parse_i64, Frame};
use crate::repl::{socket, LinkState, Role};

/// A command Redis answers with nothing (`REPLCONF ACK`, a second SYNC):
/// the reply is dropped as CLIENT REPLY SKIP drops one. Inside EXEC, whose
/// array needs an element, it is `+OK`.
fn no_reply(ctx: &mut Ctx) -> Frame {
    if ctx.client.exec.is_none() {
        ctx.client.modes.reply_skip = true;
    }
    Frame::ok()
}

/// `syncCommand`, for SYNC and PSYNC replid offset [FAILOVER].
pub(super) fn sync(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    // A replica asking again is ignored.
    if ctx.client.replconf.replica {
        return no_reply(ctx);
    }
    let psync = is(&args[0], "psync");
    if psync && args.len() > 3 && is(&args[3], "failover") {
        if !ctx.srv.repl.is_replica() {
            return Frame::err("ERR PSYNC FAILOVER can't be sent to a master.");
        }
        if !args[1].eq_ignore_ascii_case(ctx.srv.repl.replid.as_bytes()) {
            return Frame::err("ERR PSYNC FAILOVER replid must match my replid.");
        }
        crate::repl::promote(ctx.srv);
    }
    if let Role::Replica { state, .. } = &ctx.srv.repl.role {
        if *state != LinkState::Connected {
            return Frame::err("NOMASTERLINK Can't SYNC while not connected with my master");
        }
    }
    let conf = &ctx.client.replconf;
    if (conf.rdb_exclude_data || conf.rdb_exclude_functions) && !conf.capa_eof {
        return Frame::err("ERR Filtered replica requires EOF capability");
    }
    if !ctx.srv.repl.sockets.allowed {
        return Frame::err(
            "ERR SYNC and PSYNC need a connection to stream on: this Redsim has none (`redsim server` has)",
        );
    }
    if psync && parse_i64(&args[2]).is_none() {
        return Frame::err(NOT_INTEGER);
    }
    // `replicationGetSlaveName`: the announced address, else the peer's,
    // with the announced listening port.
    let ip = match &ctx.client.replconf.ip {
        Some(ip) => ip.clone(),
        None => ctx
            .srv
            .client_list
            .get(&ctx.client.id)
            .and_then(|e| e.addr.rsplit_once(':').map(|(ip, _)| ip.to_string()))
            .unwrap_or_else(|| "127.0.0.1".into()),
    };
    let addr = format!("{ip}:{}", ctx.client.replconf.listening_port);
    let replid = psync.then(|| args[1].as_slice());
    match socket::attach(ctx.srv, ctx.client, addr, replid) {
        Some(reply) => reply,
        None => no_reply(ctx),
    }
}

/// `replconfCommand`: option and value pairs; ACK and GETACK answer nothing.
pub(super) fn replconf(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len().is_multiple_of(2) {
        return Frame::err(SYNTAX);
    }
    for pair in args[1..].chunks(2) {
        let (opt, val) = (&pair[0], &pair[1]);
        let conf = &mut ctx.client.replconf;
        if is(opt, "listening-port") {
            match parse_i64(val) {
                Some(p) => conf.listening_port = p,
                None => return Frame::err(NOT_INTEGER),
            }
        } else if is(opt, "ip-address") {
            // NET_HOST_STR_LEN.
            if val.len() >= 256 {
                return Frame::err(format!(
                    "ERR REPLCONF ip-address provided by replica instance is too long: {} bytes",
                    val.len()
                ));
            }
            conf.ip = Some(String::from_utf8_lossy(val).into_owned());
        } else if is(opt, "capa") {
            // Capabilities this master does not know are ignored.
            if is(val, "eof") {
                conf.capa_eof = true;
            } else if is(val, "psync2") {
                conf.capa_psync2 = true;
            }
        } else if is(opt, "ack") {
            if !conf.replica {
                return no_reply(ctx);
            }
            let Some(wire) = parse_i64(val) else {
                return no_reply(ctx);
            };
            if let Some((addr, offset)) = socket::acked(ctx.srv, ctx.client.id, wire.max(0) as u64)
            {
                ctx.srv
                    .client_ops
                    .push(crate::server::ClientOp::ReplicaAck(addr, offset));
            }
            return no_reply(ctx);
        } else if is(opt, "getack") {
            // Only a replica answers, and to its master, on the master's link.
            return no_reply(ctx);
        } else if is(opt, "rdb-only") {
            match parse_i64(val) {
                Some(n @ 0..=1) => conf.rdb_only = n == 1,
                Some(_) => {
                    return Frame::err("ERR value is out of range, value must between 0 and 1")
                }
                None => return Frame::err(NOT_INTEGER),
            }
        } else if is(opt, "rdb-filter-only") {
            // By default the file holds nothing; each filter lets a part in.
            conf.rdb_exclude_data = true;
            conf.rdb_exclude_functions = true;
            let text = String::from_utf8_lossy(val);
            for filter in text.split_whitespace() {
                if !filter.eq_ignore_ascii_case("functions") {
                    return Frame::err(format!("ERR Unsupported rdb-filter-only option: {filter}"));
                }
                conf.rdb_exclude_functions = false;
            }
        } else {
            return Frame::err(format!(
                "ERR Unrecognized REPLCONF option: {}",
                String::from_utf8_lossy(opt)
            ));
        }
    }
    Frame::ok()
}

/// `failoverCommand`'s parsing and checks. A coordinated failover then
/// pauses writes, waits for the target to catch up and turns this server
/// into its replica; Redsim cannot be the replica of a server on a socket
/// (REPLICAOF's link to one stays down), so it says so instead of starting.
pub(super) fn failover(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if ctx.srv.config.cluster_enabled {
        return Frame::err(
            "ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.",
        );
    }
    if args.len() == 2 && is(&args[1], "abort") {
        return Frame::err("ERR No failover in progress.");
    }
    let (mut timeout, mut force, mut target) = (0i64, false, None);
    let mut j = 1;
    while j < args.len() {
        if is(&args[j], "timeout") && j + 1 < args.len() && timeout == 0 {
            timeout = match parse_i64(&args[j + 1]) {
                Some(t) => t,
                None => return Frame::err(NOT_INTEGER),
            };
            if timeout <= 0 {
                return Frame::err("ERR FAILOVER timeout must be greater than 0");
            }
            j += 2;
        } else if is(&args[j], "to") && j + 2 < args.len() && target.is_none() {
            let Some(port) = parse_i64(&args[j + 2]) else {
                return Frame::err(NOT_INTEGER);
            };
            target = Some((String::from_utf8_lossy(&args[j + 1]).into_owned(), port));
            j += 3;
        } else if is(&args[j], "force") && !force {
            force = true;
            j += 1;
        } else {
            return Frame::err(SYNTAX);
        }
    }
    if ctx.srv.repl.is_replica() {
        return Frame::err("ERR FAILOVER is not valid when server is a replica.");
    }
    let replicas = &ctx.srv.repl.replicas;
    if replicas.is_empty() {
        return Frame::err("ERR FAILOVER requires connected replicas.");
    }
    if force && (timeout == 0 || target.is_none()) {
        return Frame::err(
            "ERR FAILOVER with force option requires both a timeout and target HOST and IP.",
        );
    }
    if let Some((host, port)) = &target {
        let named = format!("{host}:{port}");
        match replicas
            .iter()
            .find(|r| r.addr.eq_ignore_ascii_case(&named))
        {
            None => return Frame::err("ERR FAILOVER target HOST and PORT is not a replica."),
            Some(r) if !r.online => {
                return Frame::err("ERR FAILOVER target replica is not online.")
            }
            Some(_) => {}
        }
    }
    Frame::err("ERR FAILOVER is not modelled: Redsim cannot become the replica of another server, so it cannot hand its role over (use REPLICAOF NO ONE on the replica)")
}
