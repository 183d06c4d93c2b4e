//! Cluster commands (CLUSTER and its subcommands, READONLY, READWRITE, ASKING) as Redis 7.2's `clusterCommand`: the family's table and the state helpers; slot, node and routing work each have a module (`routing` is the redirection check dispatch runs before a keyed command, `getNodeByQuery`).

mod nodes;
mod routing;
mod slots;
mod state;

pub use nodes::MF_TIMEOUT_MS;
pub use routing::{before_command, key_positions, redirect, refuse_other_db};
pub use slots::keys_in_slot;
pub use state::refresh;

use crate::cluster::ClusterState;
use crate::cmd::table::{commands, container, Command, Ctx};
use crate::proto::resp::Frame;
use state::state;

pub(in crate::cmd) static COMMANDS: &[Command] = commands! { heavy; group: "cluster";
    "cluster" => container, arity: -2, flags: [], acl: [SLOW], since: "3.0.0",
        syntax: "CLUSTER subcommand [argument ...]", summary: "A container for Redis Cluster commands.", subcommands: CLUSTER_SUBCOMMANDS;
    "readonly" => readonly, arity: 1, flags: [LOADING, STALE, FAST], acl: [FAST, CONNECTION], since: "3.0.0",
        syntax: "READONLY", summary: "Enables read-only queries for a connection to a Redis Cluster replica node.";
    "readwrite" => readwrite, arity: 1, flags: [LOADING, STALE, FAST], acl: [FAST, CONNECTION], since: "3.0.0",
        syntax: "READWRITE", summary: "Enables read-write queries for a connection to a Reids Cluster replica node.";
    "asking" => asking, arity: 1, flags: [FAST], acl: [FAST, CONNECTION], since: "3.0.0",
        syntax: "ASKING", summary: "Signals that a cluster client is following an -ASK redirect.";
};

static CLUSTER_SUBCOMMANDS: &[Command] = commands! { heavy; group: "cluster";
    "addslots" => slots::addslots, arity: -3, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER ADDSLOTS slot [slot ...]", summary: "Assigns new hash slots to a node.";
    "addslotsrange" => slots::addslots, arity: -4, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "7.0.0",
        syntax: "CLUSTER ADDSLOTSRANGE start-slot end-slot [start-slot end-slot ...]", summary: "Assigns new hash slot ranges to a node.";
    "bumpepoch" => nodes::bumpepoch, arity: 2, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER BUMPEPOCH", summary: "Advances the cluster config epoch.";
    "count-failure-reports" => nodes::count_failure_reports, arity: 3, flags: [ADMIN, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER COUNT-FAILURE-REPORTS node-id", summary: "Returns the number of active failure reports active for a node.";
    "countkeysinslot" => slots::countkeysinslot, arity: 3, flags: [STALE], acl: [SLOW], since: "3.0.0",
        syntax: "CLUSTER COUNTKEYSINSLOT slot", summary: "Returns the number of keys in a hash slot.";
    "delslots" => slots::addslots, arity: -3, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER DELSLOTS slot [slot ...]", summary: "Sets hash slots as unbound for a node.";
    "delslotsrange" => slots::addslots, arity: -4, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "7.0.0",
        syntax: "CLUSTER DELSLOTSRANGE start-slot end-slot [start-slot end-slot ...]", summary: "Sets hash slot ranges as unbound for a node.";
    "failover" => nodes::failover, arity: -2, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER FAILOVER [FORCE | TAKEOVER]", summary: "Forces a replica to perform a manual failover of its master.";
    "flushslots" => slots::flushslots, arity: 2, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER FLUSHSLOTS", summary: "Deletes all slots information from a node.";
    "forget" => nodes::forget, arity: 3, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER FORGET node-id", summary: "Removes a node from the nodes table.";
    "getkeysinslot" => slots::getkeysinslot, arity: 4, flags: [STALE], acl: [SLOW], since: "3.0.0",
        syntax: "CLUSTER GETKEYSINSLOT slot count", summary: "Returns the key names in a hash slot.";
    "help" => nodes::help, arity: 2, flags: [LOADING, STALE], acl: [SLOW], since: "5.0.0",
        syntax: "CLUSTER HELP", summary: "Returns helpful text about the different subcommands.";
    "info" => nodes::info, arity: 2, flags: [STALE], acl: [SLOW], since: "3.0.0",
        syntax: "CLUSTER INFO", summary: "Returns information about the state of a node.";
    "keyslot" => slots::keyslot, arity: 3, flags: [STALE], acl: [SLOW], since: "3.0.0",
        syntax: "CLUSTER KEYSLOT key", summary: "Returns the hash slot for a key.";
    "links" => nodes::links, arity: 2, flags: [STALE], acl: [SLOW], since: "7.0.0",
        syntax: "CLUSTER LINKS", summary: "Returns a list of all TCP links to and from peer nodes.";
    "meet" => nodes::meet, arity: -4, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER MEET ip port [cluster-bus-port]", summary: "Forces a node to handshake with another node.";
    "myid" => nodes::myid, arity: 2, flags: [STALE], acl: [SLOW], since: "3.0.0",
        syntax: "CLUSTER MYID", summary: "Returns the ID of a node.";
    "myshardid" => nodes::myshardid, arity: 2, flags: [STALE], acl: [SLOW], since: "7.2.0",
        syntax: "CLUSTER MYSHARDID", summary: "Returns the shard ID of a node.";
    "nodes" => nodes::nodes, arity: 2, flags: [STALE], acl: [SLOW], since: "3.0.0",
        syntax: "CLUSTER NODES", summary: "Returns the cluster configuration for a node.";
    "replicas" => nodes::replicas, arity: 3, flags: [ADMIN, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "5.0.0",
        syntax: "CLUSTER REPLICAS node-id", summary: "Lists the replica nodes of a master node.";
    "replicate" => nodes::replicate, arity: 3, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER REPLICATE node-id", summary: "Configure a node as replica of a master node.";
    "reset" => reset, arity: -2, flags: [ADMIN, STALE, NOSCRIPT], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER RESET [HARD|SOFT]", summary: "Resets a node.";
    "saveconfig" => nodes::saveconfig, arity: 2, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER SAVECONFIG", summary: "Forces a node to save the cluster configuration to disk.";
    "set-config-epoch" => nodes::set_config_epoch, arity: 3, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER SET-CONFIG-EPOCH config-epoch", summary: "Sets the configuration epoch for a new node.";
    "setslot" => slots::setslot, arity: -4, flags: [ADMIN, STALE, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER SETSLOT slot <IMPORTING node-id | MIGRATING node-id | NODE node-id | STABLE>", summary: "Binds a hash slot to a node.";
    "shards" => nodes::shards, arity: 2, flags: [LOADING, STALE], acl: [SLOW], since: "7.0.0",
        syntax: "CLUSTER SHARDS", summary: "Returns the mapping of cluster slots to shards.";
    "slaves" => nodes::replicas, arity: 3, flags: [ADMIN, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "3.0.0",
        syntax: "CLUSTER SLAVES node-id", summary: "Lists the replica nodes of a master node.";
    "slots" => nodes::slots, arity: 2, flags: [LOADING, STALE], acl: [SLOW], since: "3.0.0",
        syntax: "CLUSTER SLOTS", summary: "Returns the mapping of cluster slots to nodes.";
};

/// CLUSTER RESET: in the table so that scripts get Redis' "not allowed
/// from script" (it is NOSCRIPT) and standalone servers the usual error.
/// The simulated cluster does not reset a node (forget every other node,
/// drop its slots, HARD: a new ID and epochs).
fn reset(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(e) = state(ctx) {
        return e;
    }
    match args.get(2) {
        Some(a) if !a.eq_ignore_ascii_case(b"hard") && !a.eq_ignore_ascii_case(b"soft") => {
            Frame::err("ERR syntax error")
        }
        _ => Frame::err("ERR CLUSTER RESET is not supported by Redsim's simulated cluster"),
    }
}

/// READONLY, READWRITE and ASKING: `f` changes the client's standing in
/// the cluster state; OK, or the standalone error.
fn client_flag(ctx: &mut Ctx, f: impl FnOnce(&mut ClusterState, u64)) -> Frame {
    let id = ctx.client.id;
    match state(ctx) {
        Ok(cl) => {
            f(cl, id);
            Frame::ok()
        }
        Err(e) => e,
    }
}

fn readonly(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    client_flag(ctx, |cl, id| {
        cl.readonly.insert(id);
    })
}

fn readwrite(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    client_flag(ctx, |cl, id| {
        cl.readonly.remove(&id);
    })
}

fn asking(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    // Fresh: it covers the next command.
    client_flag(ctx, |cl, id| {
        cl.asking.insert(id, false);
    })
}
