//! Cluster commands (CLUSTER and its subcommands, READONLY, READWRITE, ASKING) and the redirection check dispatch runs before a keyed command, as Redis 7.2's `clusterCommand` and `getNodeByQuery`.

use super::{arg_i64, container, is, Command, Ctx};
use crate::cluster::{key_hash_slot, ClusterState, ManualFailover, Redirect, SLOTS};
use crate::proto::resp::{parse_i64, Frame};
use crate::server::client::Client;
use crate::server::Server;

/// `This instance has cluster support disabled`: every cluster command in standalone mode.
const DISABLED: &str = "ERR This instance has cluster support disabled";

macro_rules! sub {
    ($name:literal, $arity:expr, [$($flag:literal),*], [$($acl:literal),*], $syntax:literal, $summary:literal, $since:literal, $handler:expr) => {
        Command {
            name: $name,
            arity: $arity,
            flags: &[$($flag),*],
            keys: (0, 0, 0),
            acl: &[$($acl),*],
            syntax: $syntax,
            summary: $summary,
            since: $since,
            group: "cluster",
            handler: $handler,
            subcommands: &[],
        }
    };
}

pub static COMMANDS: &[Command] = &[
    Command {
        name: "cluster",
        arity: -2,
        flags: &[],
        keys: (0, 0, 0),
        acl: &["slow"],
        syntax: "CLUSTER subcommand [argument ...]",
        summary: "A container for Redis Cluster commands.",
        since: "3.0.0",
        group: "cluster",
        handler: container,
        subcommands: &[
            sub!("addslots", -3, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER ADDSLOTS slot [slot ...]", "Assigns new hash slots to a node.", "3.0.0", addslots),
            sub!("addslotsrange", -4, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER ADDSLOTSRANGE start-slot end-slot [start-slot end-slot ...]",
                "Assigns new hash slot ranges to a node.", "7.0.0", addslots),
            sub!("bumpepoch", 2, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER BUMPEPOCH", "Advances the cluster config epoch.", "3.0.0", bumpepoch),
            sub!("count-failure-reports", 3, ["admin", "stale"], ["admin", "slow", "dangerous"],
                "CLUSTER COUNT-FAILURE-REPORTS node-id",
                "Returns the number of active failure reports active for a node.", "3.0.0", count_failure_reports),
            sub!("countkeysinslot", 3, ["stale"], ["slow"], "CLUSTER COUNTKEYSINSLOT slot",
                "Returns the number of keys in a hash slot.", "3.0.0", countkeysinslot),
            sub!("delslots", -3, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER DELSLOTS slot [slot ...]", "Sets hash slots as unbound for a node.", "3.0.0", addslots),
            sub!("delslotsrange", -4, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER DELSLOTSRANGE start-slot end-slot [start-slot end-slot ...]",
                "Sets hash slot ranges as unbound for a node.", "7.0.0", addslots),
            sub!("failover", -2, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER FAILOVER [FORCE | TAKEOVER]",
                "Forces a replica to perform a manual failover of its master.", "3.0.0", failover),
            sub!("flushslots", 2, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER FLUSHSLOTS", "Deletes all slots information from a node.", "3.0.0", flushslots),
            sub!("forget", 3, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER FORGET node-id", "Removes a node from the nodes table.", "3.0.0", forget),
            sub!("getkeysinslot", 4, ["stale"], ["slow"], "CLUSTER GETKEYSINSLOT slot count",
                "Returns the key names in a hash slot.", "3.0.0", getkeysinslot),
            sub!("help", 2, ["loading", "stale"], ["slow"], "CLUSTER HELP",
                "Returns helpful text about the different subcommands.", "5.0.0", help),
            sub!("info", 2, ["stale"], ["slow"], "CLUSTER INFO",
                "Returns information about the state of a node.", "3.0.0", info),
            sub!("keyslot", 3, ["stale"], ["slow"], "CLUSTER KEYSLOT key",
                "Returns the hash slot for a key.", "3.0.0", keyslot),
            sub!("links", 2, ["stale"], ["slow"], "CLUSTER LINKS",
                "Returns a list of all TCP links to and from peer nodes.", "7.0.0", links),
            sub!("myid", 2, ["stale"], ["slow"], "CLUSTER MYID", "Returns the ID of a node.", "3.0.0", myid),
            sub!("myshardid", 2, ["stale"], ["slow"], "CLUSTER MYSHARDID",
                "Returns the shard ID of a node.", "7.2.0", myshardid),
            sub!("nodes", 2, ["stale"], ["slow"], "CLUSTER NODES",
                "Returns the cluster configuration for a node.", "3.0.0", nodes),
            sub!("replicas", 3, ["admin", "stale"], ["admin", "slow", "dangerous"], "CLUSTER REPLICAS node-id",
                "Lists the replica nodes of a master node.", "5.0.0", replicas),
            sub!("replicate", 3, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER REPLICATE node-id", "Configure a node as replica of a master node.", "3.0.0", replicate),
            sub!("saveconfig", 2, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER SAVECONFIG", "Forces a node to save the cluster configuration to disk.", "3.0.0", saveconfig),
            sub!("set-config-epoch", 3, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER SET-CONFIG-EPOCH config-epoch", "Sets the configuration epoch for a new node.", "3.0.0",
                set_config_epoch),
            sub!("setslot", -4, ["admin", "stale", "no_async_loading"], ["admin", "slow", "dangerous"],
                "CLUSTER SETSLOT slot <IMPORTING node-id | MIGRATING node-id | NODE node-id | STABLE>",
                "Binds a hash slot to a node.", "3.0.0", setslot),
            sub!("shards", 2, ["stale"], ["slow"], "CLUSTER SHARDS",
                "Returns the mapping of cluster slots to shards.", "7.0.0", shards),
            sub!("slaves", 3, ["admin", "stale"], ["admin", "slow", "dangerous"], "CLUSTER SLAVES node-id",
                "Lists the replica nodes of a master node.", "3.0.0", replicas),
            sub!("slots", 2, ["stale"], ["slow"], "CLUSTER SLOTS",
                "Returns the mapping of cluster slots to nodes.", "3.0.0", slots),
        ],
    },
    Command {
        name: "readonly",
        arity: 1,
        flags: &["loading", "stale", "fast"],
        keys: (0, 0, 0),
        acl: &["fast", "connection"],
        syntax: "READONLY",
        summary: "Enables read-only queries for a connection to a Redis Cluster replica node.",
        since: "3.0.0",
        group: "cluster",
        handler: readonly,
        subcommands: &[],
    },
    Command {
        name: "readwrite",
        arity: 1,
        flags: &["loading", "stale", "fast"],
        keys: (0, 0, 0),
        acl: &["fast", "connection"],
        syntax: "READWRITE",
        summary: "Enables read-write queries for a connection to a Reids Cluster replica node.",
        since: "3.0.0",
        group: "cluster",
        handler: readwrite,
        subcommands: &[],
    },
    Command {
        name: "asking",
        arity: 1,
        flags: &["fast"],
        keys: (0, 0, 0),
        acl: &["fast", "connection"],
        syntax: "ASKING",
        summary: "Signals that a cluster client is following an -ASK redirect.",
        since: "3.0.0",
        group: "cluster",
        handler: asking,
        subcommands: &[],
    },
];

/// The cluster state, or the standalone error.
fn state<'a>(ctx: &'a mut Ctx) -> Result<&'a mut ClusterState, Frame> {
    ctx.srv.cluster.as_mut().ok_or_else(|| Frame::err(DISABLED))
}

/// Brings the lazily computed cluster state up to date.
pub fn refresh(srv: &mut Server) {
    let now = srv.now_ms();
    let boot = now - (srv.clock.now_us() / 1000) as i64;
    let (full, timeout) = (
        srv.config.cluster_require_full_coverage,
        srv.config.cluster_node_timeout,
    );
    if let Some(c) = srv.cluster.as_mut() {
        c.update_state(now, boot, full, timeout);
    }
}

/// Runs `f` on the cluster state as a topology change: the state is
/// brought up to date before (so a minority period lasts until now, as
/// Redis' cron would have seen it) and after (`CLUSTER_TODO_UPDATE_STATE`).
fn change<R>(ctx: &mut Ctx, f: impl FnOnce(&mut ClusterState) -> R) -> Result<R, Frame> {
    if ctx.srv.cluster.is_none() {
        return Err(Frame::err(DISABLED));
    }
    refresh(ctx.srv);
    let cl = ctx.srv.cluster.as_mut().expect("checked above");
    let r = f(cl);
    cl.dirty = true;
    refresh(ctx.srv);
    Ok(r)
}

/// `getSlotOrReply`.
fn slot_arg(arg: &[u8]) -> Result<u16, Frame> {
    match parse_i64(arg) {
        Some(s) if (0..SLOTS as i64).contains(&s) => Ok(s as u16),
        _ => Err(Frame::err("ERR Invalid or out of range slot")),
    }
}

/// ADDSLOTS, DELSLOTS, ADDSLOTSRANGE, DELSLOTSRANGE: every argument is
/// checked before any slot changes, in Redis' order (all parsed, then busy
/// or repeated slots in argument order).
fn addslots(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    super::reply(addslots_inner(ctx, args))
}

fn addslots_inner(ctx: &mut Ctx, args: &[Vec<u8>]) -> Result<Frame, Frame> {
    let cl = state(ctx)?;
    let sub = args[1].to_ascii_lowercase();
    let del = sub.starts_with(b"del");
    let ranged = sub.ends_with(b"range");
    let mut ranges: Vec<(u16, u16)> = Vec::new();
    if ranged {
        if args.len() % 2 == 1 {
            return Err(Frame::err(format!(
                "ERR wrong number of arguments for 'cluster|{}' command",
                String::from_utf8_lossy(&sub)
            )));
        }
    } else {
        for a in &args[2..] {
            slot_arg(a)?;
        }
    }
    let mut seen = vec![false; SLOTS];
    let mut i = 2;
    while i < args.len() {
        let (start, end) = if ranged {
            let start = slot_arg(&args[i])?;
            let end = slot_arg(&args[i + 1])?;
            if start > end {
                return Err(Frame::err(format!(
                    "ERR start slot number {start} is greater than end slot number {end}"
                )));
            }
            i += 2;
            (start, end)
        } else {
            let s = slot_arg(&args[i])?;
            i += 1;
            (s, s)
        };
        for s in start..=end {
            let owned = cl.slots[s as usize].is_some();
            if del && !owned {
                return Err(Frame::err(format!("ERR Slot {s} is already unassigned")));
            }
            if !del && owned {
                return Err(Frame::err(format!("ERR Slot {s} is already busy")));
            }
            if std::mem::replace(&mut seen[s as usize], true) {
                return Err(Frame::err(format!("ERR Slot {s} specified multiple times")));
            }
        }
        ranges.push((start, end));
    }
    change(ctx, |cl| {
        let me = cl.myself as u16;
        for (s, pick) in seen.iter().enumerate() {
            if *pick {
                // Owning a slot ends its import.
                cl.importing.remove(&(s as u16));
                cl.slots[s] = if del { None } else { Some(me) };
            }
        }
    })?;
    Ok(Frame::ok())
}

fn bumpepoch(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match change(ctx, |cl| (cl.bump_epoch(), cl.me().config_epoch)) {
        Ok((bumped, epoch)) => Frame::simple(format!(
            "{} {epoch}",
            if bumped { "BUMPED" } else { "STILL" }
        )),
        Err(e) => e,
    }
}

fn unknown_node(id: &[u8]) -> Frame {
    Frame::err(format!(
        "ERR Unknown node {}",
        super::preview(id, usize::MAX)
    ))
}

/// `clusterNodeFailureReportsCount`: reports younger than twice the node
/// timeout (older ones are dropped first, as Redis does).
fn count_failure_reports(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
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

/// Keys of database 0 in `slot`, newest first, as Redis' per-slot lists
/// keep them; keys with a pending TTL count until reclaimed, as in Redis.
pub fn keys_in_slot(srv: &Server, slot: u16) -> Vec<Vec<u8>> {
    let Some(cl) = srv.cluster.as_ref() else {
        return Vec::new();
    };
    let db = &srv.dbs[0];
    let mut out: Vec<Vec<u8>> = Vec::new();
    if let Some(order) = cl.slot_keys.get(&slot) {
        for k in order.iter().rev() {
            if db.dict.contains(k) {
                out.push(k.clone());
            }
        }
    }
    if out.len() != count_keys_in_slot(srv, slot) {
        // A key created by a path that bypassed `set_key`: append the rest.
        let mut rest: Vec<Vec<u8>> = db
            .dict
            .iter()
            .filter(|(k, _)| key_hash_slot(k) == slot && !out.iter().any(|o| o == k))
            .map(|(k, _)| k.to_vec())
            .collect();
        rest.sort();
        out.extend(rest);
    }
    out
}

/// `countKeysInSlot` for database 0.
pub fn count_keys_in_slot(srv: &Server, slot: u16) -> usize {
    srv.dbs[0]
        .dict
        .iter()
        .filter(|(k, _)| key_hash_slot(k) == slot)
        .count()
}

fn countkeysinslot(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(e) = state(ctx) {
        return e;
    }
    let slot = match arg_i64(&args[2]) {
        Ok(s) => s,
        Err(e) => return e,
    };
    if !(0..SLOTS as i64).contains(&slot) {
        return Frame::err("ERR Invalid slot");
    }
    Frame::Integer(count_keys_in_slot(ctx.srv, slot as u16) as i64)
}

fn getkeysinslot(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(e) = state(ctx) {
        return e;
    }
    let (slot, max) = match (arg_i64(&args[2]), arg_i64(&args[3])) {
        (Err(e), _) | (_, Err(e)) => return e,
        (Ok(s), Ok(m)) => (s, m),
    };
    if !(0..SLOTS as i64).contains(&slot) || max < 0 {
        return Frame::err("ERR Invalid slot or number of keys");
    }
    let mut keys = keys_in_slot(ctx.srv, slot as u16);
    keys.truncate(usize::try_from(max).unwrap_or(usize::MAX));
    Frame::Array(keys.into_iter().map(Frame::Bulk).collect())
}

fn help(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(e) = state(ctx) {
        return e;
    }
    let cmd = String::from_utf8_lossy(&args[0]).to_ascii_uppercase();
    let mut out = vec![Frame::simple(format!(
        "{cmd} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    ))];
    out.extend(HELP.iter().map(|l| Frame::simple(l.to_string())));
    out.push(Frame::Simple("HELP".into()));
    out.push(Frame::Simple("    Print this help.".into()));
    Frame::Array(out)
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

fn info(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    refresh(ctx.srv);
    match state(ctx) {
        Ok(cl) => Frame::Verbatim(*b"txt", cl.info_text().into_bytes()),
        Err(e) => e,
    }
}

fn keyslot(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(_) => Frame::Integer(key_hash_slot(&args[2]) as i64),
        Err(e) => e,
    }
}

/// There is no cluster bus, so there are no links to describe.
fn links(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(_) => Frame::Array(Vec::new()),
        Err(e) => e,
    }
}

fn myid(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(cl) => Frame::bulk(cl.me().id.as_bytes()),
        Err(e) => e,
    }
}

fn myshardid(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
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

fn nodes(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(cl) => Frame::Verbatim(*b"txt", cl.nodes_text().into_bytes()),
        Err(e) => e,
    }
}

fn replicas(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let cl = match state(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let Some(n) = cl.lookup_node(&args[2]) else {
        return unknown_node(&args[2]);
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

fn replicate(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let keys = ctx.srv.dbs[0].len();
    let cl = match state(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let Some(n) = cl.lookup_node(&args[2]) else {
        return unknown_node(&args[2]);
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
fn saveconfig(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(_) => Frame::ok(),
        Err(e) => e,
    }
}

fn set_config_epoch(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(e) = state(ctx) {
        return e;
    }
    let epoch = match arg_i64(&args[2]) {
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
    super::reply(r)
}

/// `CLUSTER FAILOVER [FORCE|TAKEOVER]`: checks the preconditions as
/// `clusterCommand` does and records the request with its deadline
/// (`mf_end`, `CLUSTER_MF_TIMEOUT` = 5 s); the simulated cluster's cron
/// carries it out. A lone server is a master, so it gets the first error.
fn failover(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if ctx.srv.cluster.is_some() && args.len() > 3 {
        return super::subcommand_syntax_error(args);
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
        Some(_) => return Frame::err(super::SYNTAX),
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

fn flushslots(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if let Err(e) = state(ctx) {
        return e;
    }
    if !ctx.srv.dbs[0].is_empty() {
        return Frame::err("ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
    }
    let r = change(ctx, |cl| {
        let me = Some(cl.myself as u16);
        for s in cl.slots.iter_mut().filter(|s| **s == me) {
            *s = None;
        }
    });
    super::reply(r.map(|_| Frame::ok()))
}

fn forget(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let cl = match state(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let Some(n) = cl.lookup_node(&args[2]) else {
        return unknown_node(&args[2]);
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
    super::reply(r.map(|_| Frame::ok()))
}

fn setslot(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    super::reply(setslot_inner(ctx, args))
}

fn setslot_inner(ctx: &mut Ctx, args: &[Vec<u8>]) -> Result<Frame, Frame> {
    let cl = state(ctx)?;
    if !cl.is_master() {
        return Err(Frame::err("ERR Please use SETSLOT only with masters."));
    }
    let slot = slot_arg(&args[2])?;
    let action = &args[3];
    let node_arg = |cl: &ClusterState, unknown: &str| -> Result<usize, Frame> {
        let id = &args[4];
        let n = cl.lookup_node(id).ok_or_else(|| {
            Frame::err(format!("ERR {unknown} {}", super::preview(id, usize::MAX)))
        })?;
        if cl.nodes[n].replica_of.is_some() {
            return Err(Frame::err("ERR Target node is not a master"));
        }
        Ok(n)
    };
    let me = cl.myself;
    if is(action, "migrating") && args.len() == 5 {
        if cl.owner(slot) != Some(me) {
            return Err(Frame::err(format!(
                "ERR I'm not the owner of hash slot {slot}"
            )));
        }
        let n = node_arg(cl, "I don't know about node")?;
        change(ctx, |cl| cl.migrating.insert(slot, n))?;
    } else if is(action, "importing") && args.len() == 5 {
        if cl.owner(slot) == Some(me) {
            return Err(Frame::err(format!(
                "ERR I'm already the owner of hash slot {slot}"
            )));
        }
        let n = node_arg(cl, "I don't know about node")?;
        change(ctx, |cl| cl.importing.insert(slot, n))?;
    } else if is(action, "stable") && args.len() == 4 {
        change(ctx, |cl| {
            cl.importing.remove(&slot);
            cl.migrating.remove(&slot);
        })?;
    } else if is(action, "node") && args.len() == 5 {
        let n = node_arg(cl, "Unknown node")?;
        let keys = count_keys_in_slot(ctx.srv, slot);
        let cl = state(ctx)?;
        if cl.owner(slot) == Some(me) && n != me && keys != 0 {
            return Err(Frame::err(format!(
                "ERR Can't assign hashslot {slot} to a different node while I still hold keys for this hash slot."
            )));
        }
        change(ctx, |cl| {
            if keys == 0 {
                cl.migrating.remove(&slot);
            }
            let was_mine = cl.owner(slot) == Some(me);
            cl.slots[slot as usize] = Some(n as u16);
            // A master left without slots becomes a replica of the new
            // owner (`cluster-allow-replica-migration`, on by default).
            if was_mine && n != me && cl.slot_count(me) == 0 {
                cl.nodes[me].replica_of = Some(n);
            }
            if n == me && cl.importing.remove(&slot).is_some() {
                // A manual import takes a new epoch so the claim wins.
                cl.bump_epoch();
            }
        })?;
    } else {
        return Err(Frame::err(
            "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP",
        ));
    }
    Ok(Frame::ok())
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

fn slots(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
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

fn shards(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
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

fn readonly(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let id = ctx.client.id;
    match state(ctx) {
        Ok(cl) => {
            cl.readonly.insert(id);
            Frame::ok()
        }
        Err(e) => e,
    }
}

fn readwrite(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let id = ctx.client.id;
    match state(ctx) {
        Ok(cl) => {
            cl.readonly.remove(&id);
            Frame::ok()
        }
        Err(e) => e,
    }
}

fn asking(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let id = ctx.client.id;
    match state(ctx) {
        Ok(cl) => {
            // Fresh: it covers the next command.
            cl.asking.insert(id, false);
            Frame::ok()
        }
        Err(e) => e,
    }
}

/// The positions of the keys in `args` for `cmd` (`getKeysFromCommand`):
/// the getkeys procedures of the movable-keys commands, else the legacy
/// `(first, last, step)` range. Bad arguments give no keys: the command
/// itself reports the error.
pub fn key_positions(cmd: &Command, args: &[Vec<u8>]) -> Vec<usize> {
    let argc = args.len();
    // `COMMAND numkeys key... ` with numkeys at `at`.
    let numkeys = |at: usize| -> Vec<usize> {
        match args.get(at).and_then(|a| parse_i64(a)) {
            Some(n) if n >= 0 && (n as usize) <= argc.saturating_sub(at + 1) => {
                (at + 1..at + 1 + n as usize).collect()
            }
            _ => Vec::new(),
        }
    };
    if cmd.has_flag("movablekeys") {
        return match cmd.name {
            "eval" | "evalsha" | "eval_ro" | "evalsha_ro" | "fcall" | "fcall_ro" => numkeys(2),
            "sintercard" | "zintercard" | "zunion" | "zinter" | "zdiff" | "lmpop" | "zmpop" => {
                numkeys(1)
            }
            "blmpop" | "bzmpop" => numkeys(2),
            "zunionstore" | "zinterstore" | "zdiffstore" => {
                let keys = numkeys(2);
                // `zunionInterDiffStoreGetKeys`: at least one source key.
                if keys.is_empty() {
                    return keys;
                }
                std::iter::once(1).chain(keys).collect()
            }
            "xread" | "xreadgroup" => xread_keys(args),
            _ => legacy_keys(cmd, argc),
        };
    }
    legacy_keys(cmd, argc)
}

/// `getKeysUsingLegacyRangeSpec`.
fn legacy_keys(cmd: &Command, argc: usize) -> Vec<usize> {
    let (first, last, step) = cmd.keys;
    if first <= 0 || step <= 0 {
        return Vec::new();
    }
    let last = if last < 0 { argc as i32 + last } else { last };
    let mut out = Vec::new();
    let mut j = first;
    while j <= last {
        if j as usize >= argc {
            return Vec::new();
        }
        out.push(j as usize);
        j += step;
    }
    out
}

/// `xreadGetKeys`: the first half of what follows STREAMS.
fn xread_keys(args: &[Vec<u8>]) -> Vec<usize> {
    let mut i = 1;
    let mut streams = None;
    while i < args.len() {
        let a = &args[i];
        if is(a, "block") || is(a, "count") {
            i += 1;
        } else if is(a, "group") {
            i += 2;
        } else if is(a, "noack") {
        } else if is(a, "streams") {
            streams = Some(i);
            break;
        } else {
            break;
        }
        i += 1;
    }
    let Some(pos) = streams else {
        return Vec::new();
    };
    let num = args.len() - pos - 1;
    if num == 0 || num % 2 == 1 {
        return Vec::new();
    }
    (pos + 1..pos + 1 + num / 2).collect()
}

/// The command `args` names, subcommand resolved (for queued commands).
fn resolve(args: &[Vec<u8>]) -> Option<&'static Command> {
    let parent = super::lookup(args.first()?)?;
    match args.get(1) {
        Some(w) if !parent.subcommands.is_empty() => parent.subcommand(w),
        _ => Some(parent),
    }
}

/// The cluster part of `processCommand`: `getNodeByQuery` and, when the
/// command may not run here, the error `clusterRedirectClient` sends. A
/// rejected EXEC discards its transaction; a command rejected while
/// queueing dooms it. Commands served here are counted per slot.
pub fn redirect(
    srv: &mut Server,
    client: &mut Client,
    cmd: &'static Command,
    args: &[Vec<u8>],
) -> Option<Frame> {
    let id = client.id;
    if srv.cluster.as_ref()?.obey.contains(&id) {
        return None;
    }
    let is_exec = cmd.name == "exec";
    if !is_exec && !cmd.has_flag("movablekeys") && cmd.keys.0 == 0 {
        return None;
    }
    refresh(srv);
    let allow_reads = srv.config.cluster_allow_reads_when_down;
    let cl = srv.cluster.as_ref()?;
    let owned: Vec<(&'static Command, Vec<Vec<u8>>)>;
    let batch: Vec<(&'static Command, &[Vec<u8>])> = if is_exec {
        let m = client.multi.as_ref()?;
        owned = m
            .queued
            .iter()
            .filter_map(|q| resolve(q).map(|c| (c, q.clone())))
            .collect();
        owned.iter().map(|(c, a)| (*c, a.as_slice())).collect()
    } else {
        vec![(cmd, args)]
    };
    let db = &srv.dbs[0];
    let now = srv.now_ms();
    let present = |k: &[u8]| db.get(k).is_some() && db.expire_at(k).is_none_or(|w| now <= w);
    let shard_pubsub = matches!(cmd.name, "ssubscribe" | "sunsubscribe" | "spublish");
    let mut first: Option<&[u8]> = None;
    let (mut slot, mut owner) = (0u16, 0usize);
    let (mut migrating, mut importing, mut multiple) = (false, false, false);
    let (mut missing, mut existing) = (0, 0);
    let mut writes = false;
    let mut verdict: Option<Redirect> = None;
    'outer: for (c, a) in &batch {
        writes |= c.has_flag("write");
        for pos in key_positions(c, a) {
            let key = a[pos].as_slice();
            let this = key_hash_slot(key);
            match first {
                None => {
                    first = Some(key);
                    slot = this;
                    let Some(o) = cl.owner(slot) else {
                        verdict = Some(Redirect::Unbound);
                        break 'outer;
                    };
                    owner = o;
                    if o == cl.myself && cl.migrating.contains_key(&slot) {
                        migrating = true;
                    } else if cl.importing.contains_key(&slot) {
                        importing = true;
                    }
                }
                Some(f) => {
                    if this != slot {
                        verdict = Some(Redirect::CrossSlot);
                        break 'outer;
                    }
                    if importing && !multiple && f != key {
                        multiple = true;
                    }
                }
            }
            if (migrating || importing) && !shard_pubsub {
                if present(key) {
                    existing += 1;
                } else {
                    missing += 1;
                }
            }
        }
    }
    let asking = cl.asking.contains_key(&id);
    if verdict.is_none() && first.is_some() {
        verdict = (|| {
            if !cl.ok {
                if shard_pubsub || !allow_reads {
                    return Some(Redirect::Down);
                }
                if writes {
                    return Some(Redirect::DownReadOnly);
                }
            }
            if migrating && missing > 0 {
                return Some(match (existing > 0, cl.migrating.get(&slot)) {
                    (true, _) | (false, None) => Redirect::Unstable,
                    (false, Some(&to)) => Redirect::Ask(slot, to),
                });
            }
            if importing && asking {
                return (multiple && missing > 0).then_some(Redirect::Unstable);
            }
            let me = cl.me();
            if (cl.readonly.contains(&id) || shard_pubsub)
                && !writes
                && me.replica_of == Some(owner)
            {
                return None;
            }
            (owner != cl.myself).then_some(Redirect::Moved(slot, owner))
        })();
    }
    let cl = srv.cluster.as_mut()?;
    let Some(r) = verdict else {
        if first.is_some() {
            *cl.slot_hits.entry(slot).or_insert(0) += 1;
        }
        return None;
    };
    let msg = r.message(&cl.nodes);
    cl.redirects_sent += 1;
    srv.stats.rejected_calls += 1;
    if is_exec {
        super::multi::discard_transaction(srv, client);
    } else if let Some(m) = client.multi.as_mut() {
        m.dirty_exec = true;
    }
    Some(Frame::err(msg))
}

/// `resetClient`'s cluster part, done when the next command arrives:
/// ASKING covers the one command after it (the whole transaction when
/// sent before MULTI), whether that command ran or was rejected.
pub fn before_command(srv: &mut Server, client: &Client, args: &[Vec<u8>]) {
    let Some(cl) = srv.cluster.as_mut() else {
        return;
    };
    let Some(used) = cl.asking.get_mut(&client.id) else {
        return;
    };
    if *used && client.multi.is_none() {
        cl.asking.remove(&client.id);
    } else if !args.first().is_some_and(|a| is(a, "asking")) {
        *used = true;
    }
}

/// Database checks of SELECT, MOVE, SWAPDB and COPY in cluster mode, where
/// only database 0 exists: Redis' handlers refuse before doing anything.
/// Run for every command, so outside cluster mode it is one inline check.
#[inline]
pub fn refuse_other_db(srv: &Server, cmd: &Command, args: &[Vec<u8>]) -> Option<Frame> {
    srv.cluster.as_ref()?;
    refuse_other_db_in_cluster(srv, cmd, args)
}

fn refuse_other_db_in_cluster(srv: &Server, cmd: &Command, args: &[Vec<u8>]) -> Option<Frame> {
    let int = |a: &[u8]| parse_i64(a).filter(|n| i32::try_from(*n).is_ok());
    match cmd.name {
        // `getIntFromObjectOrReply`'s two errors, then the cluster check.
        "select" => match parse_i64(&args[1]) {
            None => Some(Frame::err(super::NOT_INTEGER)),
            Some(n) if i32::try_from(n).is_err() => Some(Frame::err(
                "ERR value is out of range, value must between -2147483648 and 2147483647",
            )),
            Some(0) => None,
            Some(_) => Some(Frame::err("ERR SELECT is not allowed in cluster mode")),
        },
        "move" => Some(Frame::err("ERR MOVE is not allowed in cluster mode")),
        "swapdb" => Some(Frame::err("ERR SWAPDB is not allowed in cluster mode")),
        "copy" => {
            // Options are parsed first; their errors are the handler's.
            let mut dbid = 0;
            let mut j = 3;
            while j < args.len() {
                if is(&args[j], "replace") {
                } else if is(&args[j], "db") && j + 1 < args.len() {
                    let n = int(&args[j + 1])?;
                    if n < 0 || n >= srv.dbs.len() as i64 {
                        return None;
                    }
                    dbid = n;
                    j += 1;
                } else {
                    return None;
                }
                j += 1;
            }
            (dbid != 0).then(|| {
                Frame::err("ERR Copying to another database is not allowed in cluster mode")
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(line: &str) -> Vec<usize> {
        let args: Vec<Vec<u8>> = line.split(' ').map(|w| w.as_bytes().to_vec()).collect();
        let cmd = resolve(&args).expect("known command");
        key_positions(cmd, &args)
    }

    #[test]
    fn key_positions_follow_getkeys() {
        assert_eq!(keys("GET a"), vec![1]);
        assert_eq!(keys("MSET a 1 b 2"), vec![1, 3]);
        assert_eq!(keys("DEL a b c"), vec![1, 2, 3]);
        assert_eq!(keys("EVAL s 2 a b c"), vec![3, 4]);
        assert_eq!(keys("EVAL s 3 a b"), Vec::<usize>::new());
        assert_eq!(keys("ZUNIONSTORE d 2 a b"), vec![1, 3, 4]);
        assert_eq!(keys("XREAD COUNT 2 STREAMS a b 0 0"), vec![4, 5]);
        assert_eq!(keys("XREAD STREAMS a b 0"), Vec::<usize>::new());
        assert_eq!(keys("BLMPOP 0 2 a b LEFT"), vec![3, 4]);
        assert_eq!(keys("OBJECT ENCODING k"), vec![2]);
        assert_eq!(keys("PING"), Vec::<usize>::new());
    }
}
