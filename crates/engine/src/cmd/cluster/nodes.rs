//! The node and topology subcommands of CLUSTER: INFO, NODES, SLOTS, SHARDS, LINKS, MYID, MYSHARDID, REPLICAS, REPLICATE, MEET, FORGET, FAILOVER, the epochs, COUNT-FAILURE-REPORTS, SAVECONFIG and HELP.

use super::state::{change, refresh, state, state_and_node, unknown_node};
use crate::cluster::{ClusterState, ManualFailover};
use crate::cmd::args::{arg_i64, is, SYNTAX};
use crate::cmd::replies::{help_reply, reply, subcommand_syntax_error};
use crate::cmd::table::Ctx;
use crate::proto::resp::Frame;

pub(super) fn bumpepoch(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match change(ctx, |cl| (cl.bump_epoch(), cl.me().config_epoch)) {
        Ok((bumped, epoch)) => Frame::simple(format!(
            "{} {epoch}",
            if bumped { "BUMPED" } else { "STILL" }
        )),
        Err(e) => e,
    }
}

/// `clusterNodeFailureReportsCount`: reports younger than twice the node
/// timeout (older ones are dropped first, as Redis does).
pub(super) fn count_failure_reports(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let now = ctx.srv.now_ms();
    let validity = ctx.srv.config.cluster_node_timeout * 2;
    let cl = match state(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    match cl.lookup_node(&args[2]) {
        Some(n) => {
            let reports = &mut cl.nodes[n].fail_reports;
            reports.retain(|&(_, t)| now - t <= validity);
            Frame::Integer(reports.len() as i64)
        }
        None => unknown_node(&args[2]),
    }
}

pub(super) fn help(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(_) => help_reply(args, HELP),
        Err(e) => e,
    }
}

/// `CLUSTER HELP`'s lines in 7.2 (7.0 lacks MYSHARDID).
pub const HELP: &[&str] = &[
    "ADDSLOTS <slot> [<slot> ...]",
    "    Assign slots to current node.",
    "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Assign slots which are between <start-slot> and <end-slot> to current node.",
    "BUMPEPOCH",
    "    Advance the cluster config epoch.",
    "COUNT-FAILURE-REPORTS <node-id>",
    "    Return number of failure reports for <node-id>.",
    "COUNTKEYSINSLOT <slot>",
    "    Return the number of keys in <slot>.",
    "DELSLOTS <slot> [<slot> ...]",
    "    Delete slots information from current node.",
    "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
    "FAILOVER [FORCE|TAKEOVER]",
    "    Promote current replica node to being a master.",
    "FORGET <node-id>",
    "    Remove a node from the cluster.",
    "GETKEYSINSLOT <slot> <count>",
    "    Return key names stored by current node in a slot.",
    "FLUSHSLOTS",
    "    Delete current node own slots information.",
    "INFO",
    "    Return information about the cluster.",
    "KEYSLOT <key>",
    "    Return the hash slot for <key>.",
    "MEET <ip> <port> [<bus-port>]",
    "    Connect nodes into a working cluster.",
    "MYID",
    "    Return the node id.",
    "MYSHARDID",
    "    Return the node's shard id.",
    "NODES",
    "    Return cluster configuration seen by node. Output format:",
    "    <id> <ip:port@bus-port[,hostname]> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
    "REPLICATE <node-id>",
    "    Configure current node as replica to <node-id>.",
    "RESET [HARD|SOFT]",
    "    Reset current node (default: soft).",
    "SET-CONFIG-EPOCH <epoch>",
    "    Set config epoch of current node.",
    "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
    "    Set slot state.",
    "REPLICAS <node-id>",
    "    Return <node-id> replicas.",
    "SAVECONFIG",
    "    Force saving cluster configuration on disk.",
    "SLOTS",
    "    Return information about slots range mappings. Each range is made of:",
    "    start, end, master and replicas IP addresses, ports and ids",
    "SHARDS",
    "    Return information about slot range mappings and the nodes associated with them.",
    "LINKS",
    "    Return information about all network links between this node and its peers.",
    "    Output format is an array where each array element is a map containing attributes of a link",
];

pub(super) fn info(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    refresh(ctx.srv);
    match state(ctx) {
        Ok(cl) => Frame::Verbatim(*b"txt", cl.info_text().into_bytes()),
        Err(e) => e,
    }
}

/// There is no cluster bus, so there are no links to describe.
pub(super) fn links(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(_) => Frame::Array(Vec::new()),
        Err(e) => e,
    }
}

pub(super) fn myid(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(cl) => Frame::bulk(cl.me().id.as_bytes()),
        Err(e) => e,
    }
}

pub(super) fn myshardid(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(cl) => {
            let me = cl.me();
            let shard = me
                .replica_of
                .and_then(|m| cl.nodes.get(m))
                .map_or(&me.shard_id, |m| &m.shard_id);
            Frame::bulk(shard.as_bytes())
        }
        Err(e) => e,
    }
}

pub(super) fn nodes(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(cl) => Frame::Verbatim(*b"txt", cl.nodes_text().into_bytes()),
        Err(e) => e,
    }
}

pub(super) fn replicas(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (cl, n) = match state_and_node(ctx, &args[2]) {
        Ok(found) => found,
        Err(e) => return e,
    };
    if cl.nodes[n].replica_of.is_some() {
        return Frame::err("ERR The specified node is not a master");
    }
    Frame::Array(
        cl.replicas_of(n)
            .into_iter()
            .map(|r| Frame::bulk(cl.node_line(r).as_bytes()))
            .collect(),
    )
}

pub(super) fn replicate(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let keys = ctx.srv.dbs[0].len();
    let (cl, n) = match state_and_node(ctx, &args[2]) {
        Ok(found) => found,
        Err(e) => return e,
    };
    if n == cl.myself {
        return Frame::err("ERR Can't replicate myself");
    }
    if cl.nodes[n].replica_of.is_some() {
        return Frame::err("ERR I can only replicate a master, not a replica.");
    }
    if cl.is_master() && (cl.slot_count(cl.myself) != 0 || keys != 0) {
        return Frame::err(
            "ERR To set a master the node must be empty and without assigned slots.",
        );
    }
    let me = cl.myself;
    cl.nodes[me].replica_of = Some(n);
    cl.dirty = true;
    Frame::ok()
}

/// Nothing to save: Redsim keeps no nodes.conf.
pub(super) fn saveconfig(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(_) => Frame::ok(),
        Err(e) => e,
    }
}

pub(super) fn set_config_epoch(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let epoch = match state(ctx).and_then(|_| arg_i64(&args[2])) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let r = change(ctx, |cl| {
        if epoch < 0 {
            Frame::err(format!("ERR Invalid config epoch specified: {epoch}"))
        } else if cl.nodes.len() > 1 {
            Frame::err(
                "ERR The user can assign a config epoch only when the node does not know any other node.",
            )
        } else if cl.me().config_epoch != 0 {
            Frame::err("ERR Node config epoch is already non-zero")
        } else {
            let me = cl.myself;
            cl.nodes[me].config_epoch = epoch as u64;
            cl.current_epoch = cl.current_epoch.max(epoch as u64);
            Frame::ok()
        }
    });
    reply(r)
}

/// `CLUSTER FAILOVER [FORCE|TAKEOVER]`: checks the preconditions as
/// `clusterCommand` does and records the request with its deadline
/// (`mf_end`, `CLUSTER_MF_TIMEOUT` = 5 s); the simulated cluster's cron
/// carries it out. A lone server is a master, so it gets the first error.
pub(super) fn failover(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if ctx.srv.cluster.is_some() && args.len() > 3 {
        return subcommand_syntax_error(args);
    }
    let now = ctx.srv.now_ms();
    let cl = match state(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let kind = match args.get(2) {
        None => ManualFailover::Coordinated,
        Some(opt) if is(opt, "force") => ManualFailover::Force,
        Some(opt) if is(opt, "takeover") => ManualFailover::Takeover,
        Some(_) => return Frame::err(SYNTAX),
    };
    let Some(master) = cl.me().replica_of else {
        return Frame::err("ERR You should send CLUSTER FAILOVER to a replica");
    };
    let m = &cl.nodes[master];
    if kind == ManualFailover::Coordinated && (m.failed || m.pfail) {
        return Frame::err("ERR Master is down or failed, please use CLUSTER FAILOVER FORCE");
    }
    cl.manual_failover = Some((kind, now + MF_TIMEOUT_MS));
    Frame::ok()
}

/// `CLUSTER_MF_TIMEOUT`: how long a manual failover may take.
pub const MF_TIMEOUT_MS: i64 = 5000;

/// `CLUSTER MEET ip port [bus-port]`: Redis' checks and replies
/// (`clusterStartHandshake`). A simulated cluster is assembled whole, so a
/// node it already has is met at once; an address outside it would never
/// answer the handshake, which Redis lists as a `handshake` node for one
/// node timeout and then drops: that passing entry is not shown.
pub(super) fn meet(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(e) = state(ctx) {
        return e;
    }
    if args.len() > 5 {
        return subcommand_syntax_error(args);
    }
    let text = |a: &[u8]| String::from_utf8_lossy(a).into_owned();
    let Some(port) = crate::proto::resp::parse_i64(&args[3]) else {
        return Frame::err(format!(
            "ERR Invalid base port specified: {}",
            text(&args[3])
        ));
    };
    let cport = match args.get(4) {
        Some(a) => match crate::proto::resp::parse_i64(a) {
            Some(c) => c,
            None => return Frame::err(format!("ERR Invalid bus port specified: {}", text(a))),
        },
        None => port + 10000,
    };
    let ip = text(&args[2]);
    // `inet_pton`: parsing only (`core::net` does no I/O).
    let valid_ip = ip.parse::<core::net::IpAddr>().is_ok();
    let valid_ports = (1..=65535).contains(&port) && (1..=65535).contains(&cport);
    if !valid_ip || !valid_ports {
        return Frame::err(format!(
            "ERR Invalid node address specified: {ip}:{}",
            text(&args[3])
        ));
    }
    Frame::ok()
}

pub(super) fn forget(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (cl, n) = match state_and_node(ctx, &args[2]) {
        Ok(found) => found,
        Err(e) => return e,
    };
    if n == cl.myself {
        return Frame::err("ERR I tried hard but I can't forget myself...");
    }
    if cl.me().replica_of == Some(n) {
        return Frame::err("ERR Can't forget my master!");
    }
    // Forgetting would renumber the node list the simulated cluster
    // shares; a forgotten node is only flagged failed and stripped of slots.
    let r = change(ctx, |cl| {
        for s in cl.slots.iter_mut().filter(|s| **s == Some(n as u16)) {
            *s = None;
        }
        cl.nodes[n].failed = true;
    });
    reply(r.map(|_| Frame::ok()))
}

/// One node of a `CLUSTER SLOTS` entry (`addNodeToNodeReply`).
fn slot_node(cl: &ClusterState, n: usize) -> Frame {
    let node = &cl.nodes[n];
    Frame::Array(vec![
        Frame::bulk(node.ip.as_bytes()),
        Frame::Integer(node.port as i64),
        Frame::bulk(node.id.as_bytes()),
        Frame::Map(Vec::new()),
    ])
}

pub(super) fn slots(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let cl = match state(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    Frame::Array(
        cl.slot_runs()
            .into_iter()
            .map(|(a, b, n)| {
                let mut entry = vec![
                    Frame::Integer(a as i64),
                    Frame::Integer(b as i64),
                    slot_node(cl, n),
                ];
                // Replicas count once they have data; the simulated ones are listed as available.
                for r in cl.replicas_of(n) {
                    if !cl.nodes[r].failed {
                        entry.push(slot_node(cl, r));
                    }
                }
                Frame::Array(entry)
            })
            .collect(),
    )
}

/// One node of a `CLUSTER SHARDS` entry (`addNodeDetailsToShardReply`).
fn shard_node(cl: &ClusterState, n: usize) -> Frame {
    let node = &cl.nodes[n];
    let kv = |k: &str, v: Frame| (Frame::bulk(k), v);
    let replica = node.replica_of.is_some();
    Frame::Map(vec![
        kv("id", Frame::bulk(node.id.as_bytes())),
        kv("port", Frame::Integer(node.port as i64)),
        kv("ip", Frame::bulk(node.ip.as_bytes())),
        kv("endpoint", Frame::bulk(node.ip.as_bytes())),
        kv(
            "role",
            Frame::bulk(if replica { "replica" } else { "master" }),
        ),
        kv("replication-offset", Frame::Integer(0)),
        kv(
            "health",
            Frame::bulk(if node.failed {
                "fail"
            } else if replica {
                // A replica with offset 0 has not synced: Redis says "loading".
                "loading"
            } else {
                "online"
            }),
        ),
    ])
}

pub(super) fn shards(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let cl = match state(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let masters: Vec<usize> = (0..cl.nodes.len())
        .filter(|&n| cl.nodes[n].replica_of.is_none())
        .collect();
    Frame::Array(
        masters
            .into_iter()
            .map(|m| {
                let slots: Vec<Frame> = cl
                    .slot_ranges(m)
                    .into_iter()
                    .flat_map(|(a, b)| [Frame::Integer(a as i64), Frame::Integer(b as i64)])
                    .collect();
                let mut members = vec![shard_node(cl, m)];
                members.extend(cl.replicas_of(m).into_iter().map(|r| shard_node(cl, r)));
                Frame::Map(vec![
                    (Frame::bulk("slots"), Frame::Array(slots)),
                    (Frame::bulk("nodes"), Frame::Array(members)),
                ])
            })
            .collect(),
    )
}
