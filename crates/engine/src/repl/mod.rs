//! Asynchronous replication as Redis does it: a master's write stream with offsets and a backlog, replicas that apply it late, partial and full resynchronisation, acknowledgements for WAIT and `min-replicas-to-write`.
//!
//! **What travels.** Redis propagates each write command (rewritten where it
//! would not replay identically: relative TTLs become `PXAT`, `SPOP` becomes
//! `SREM`, scripts become their effects) plus a `DEL` for every key that
//! expires or is evicted on the master. Redsim propagates the *effect* of
//! each command on each key it touched: the key's value and TTL after the
//! command, or its deletion. Every rewrite Redis needs is then implicit, and
//! a replica always converges to the master's state; a command's stream
//! bytes are still counted as Redis counts them (the command's RESP length,
//! plus a `SELECT` when the database changes), so offsets, lag in bytes and
//! backlog overflow behave as in Redis. Copying the value costs O(its size),
//! paid only while a replica is attached. A replica on a socket, a real
//! Redis, gets Redis' own commands instead ([`wire`]).
//!
//! **What replicas do.** They apply the stream in order, never expire keys
//! themselves (a logically expired key reads as missing until the master's
//! `DEL` arrives), ignore `maxmemory` (`replica-ignore-maxmemory yes`) and
//! refuse client writes (`replica-read-only yes`).
//!
//! The engine holds no sockets: a driver (the scenario topology, a test)
//! carries [`ReplOp`]s from [`crate::Engine::take_repl_stream`] to replicas'
//! [`crate::Engine::apply_repl`] with whatever delay its links have, and
//! acknowledgements back through [`crate::Engine::replica_ack`].

pub mod socket;
pub mod state;
pub mod wire;

use state::{new_replid, Dirty};
pub use state::{
    resp_len, Effect, Link, LinkState, Repl, ReplOp, ReplicaLink, Role, Sockets, Sync,
};

use crate::server::Server;

/// Turns what the command (or the cron) touched into stream ops. `cmd` is
/// the command as the client sent it, for its byte count and label; `None`
/// for the server's own deletions (expiry, eviction), counted as `DEL`s.
pub fn propagate(srv: &mut Server, cmd: Option<&[Vec<u8>]>) {
    make_ops(srv, cmd);
    // The socket stream's commands for this command end where its ops do.
    let offset = srv.repl.offset;
    srv.repl.wire.stamp(offset);
}

fn make_ops(srv: &mut Server, cmd: Option<&[Vec<u8>]>) {
    if srv.repl.dirty.is_empty() {
        return;
    }
    let dirty = std::mem::take(&mut srv.repl.dirty);
    // Only the last mention of a key matters: its state after the command.
    // A set keeps this linear for commands touching many keys (MSET, DEL).
    let mut seen = crate::ordmap::OrdSet::new();
    let mut last: Vec<Dirty> = dirty
        .into_iter()
        .rev()
        .filter(|d| seen.insert(d.clone()))
        .collect();
    last.reverse();
    let backlog_size = srv.config.repl_backlog_size;
    let mut cmd_bytes = cmd.map(|a| {
        let refs: Vec<&[u8]> = a.iter().map(|x| x.as_slice()).collect();
        resp_len(&refs)
    });
    let label_cmd = cmd.map(|a| {
        a.iter()
            .map(|x| crate::server::lossy(x))
            .collect::<Vec<_>>()
            .join(" ")
    });
    let mut made: Vec<ReplOp> = Vec::new();
    // Values are copied only where something may apply them: the engine's
    // own replicas and a crash's replay of the AOF, which only an engine
    // without sockets (the simulated world) has (see `Effect::Counted`).
    let keep_values = !srv.repl.sockets.allowed;
    for d in last {
        let (db, effect, server_label) = match d {
            Dirty::Flush(db) => (
                db.unwrap_or(0),
                Effect::Flush { db },
                "FLUSHALL".to_string(),
            ),
            Dirty::Key(db, key) => {
                let live = srv.dbs[db]
                    .get(&key)
                    .filter(|_| !srv.key_is_expired(db, &key));
                let label = format!("DEL {}", crate::server::lossy(&key));
                let effect = match live {
                    Some(_) if !keep_values => Effect::Counted { key },
                    Some(obj) => Effect::Put {
                        obj: obj.clone(),
                        expire_ms: srv.dbs[db].expire_at(&key),
                        key,
                    },
                    None => Effect::Del { key },
                };
                (db, effect, label)
            }
        };
        let mut bytes = match (&effect, cmd_bytes.take()) {
            (_, Some(b)) => b,
            (Effect::Del { key }, None) => resp_len(&[b"DEL", key]),
            (Effect::Flush { .. }, None) => resp_len(&[b"FLUSHALL"]),
            // Later keys of one command add no bytes: the command was counted once.
            (Effect::Put { .. } | Effect::Counted { .. }, None) => 0,
        };
        if !matches!(effect, Effect::Flush { db: None }) && srv.repl.selected != Some(db) {
            let n = db.to_string();
            bytes += resp_len(&[b"SELECT", n.as_bytes()]);
            srv.repl.selected = Some(db);
        }
        let start = srv.repl.offset;
        srv.repl.offset += bytes;
        let label = match (&label_cmd, &effect) {
            (Some(l), _) => l.clone(),
            (None, Effect::Del { .. }) => format!("{server_label} (expired or evicted)"),
            (None, _) => server_label,
        };
        let op = ReplOp {
            start,
            end: srv.repl.offset,
            db,
            effect,
            label,
        };
        made.push(op.clone());
        srv.repl.record(op, backlog_size, true);
    }
    crate::persist::on_ops(srv, &made);
}

/// Applies one op from the master on a replica, advancing its offset.
pub fn apply(srv: &mut Server, op: &ReplOp) {
    if op.end <= srv.repl.offset && op.end > op.start {
        return; // already applied (a resent window overlaps)
    }
    srv.repl.applying = true;
    srv.replay(op);
    srv.repl.applying = false;
    srv.repl.offset = srv.repl.offset.max(op.end);
    // A replica's own stream (for sub-replicas) repeats the master's bytes,
    // and its AOF and save counters see what it applied, as when Redis'
    // replica executes the stream.
    propagate_verbatim(srv, op);
    crate::persist::on_ops(srv, std::slice::from_ref(op));
}

/// A replica feeding sub-replicas passes ops on with the same offsets.
fn propagate_verbatim(srv: &mut Server, op: &ReplOp) {
    srv.repl.dirty.clear();
    if srv.repl.streaming {
        // A synced replica keeps a backlog even without sub-replicas, so
        // that after a promotion the others can continue from it (PSYNC2).
        let size = srv.config.repl_backlog_size;
        let send = !srv.repl.replicas.is_empty();
        srv.repl.record(op.clone(), size, send);
    }
}

/// `masterTryPartialResynchronization` / `syncCommand`: registers the
/// replica `addr` and answers its PSYNC. A replica that asks for an offset
/// the backlog still holds, in this master's history (or the previous one,
/// up to where it ended), continues; anything else takes a full sync.
pub fn psync(srv: &mut Server, addr: &str, replid: &str, offset: u64) -> Sync {
    srv.repl.start_capturing();
    // Pending effects belong to the stream before this replica joins.
    propagate(srv, None);
    let now_ms = srv.now_ms();
    let r = &mut srv.repl;
    let same_history =
        replid == r.replid || (replid == r.replid2 && (offset as i64) <= r.second_offset + 1);
    // `psync_offset` must lie in [first byte held, one past the last].
    let in_backlog = offset >= r.backlog_first_offset() && offset <= r.offset + 1;
    let link = ReplicaLink {
        addr: addr.to_string(),
        ack_offset: offset.saturating_sub(1),
        last_ack_ms: now_ms,
        online: true,
    };
    match r.replicas.iter_mut().find(|x| x.addr == addr) {
        Some(x) => *x = link,
        None => r.replicas.push(link),
    }
    if same_history && in_backlog {
        r.sync_partial_ok += 1;
        let ops = r
            .backlog
            .iter()
            .filter(|op| op.end >= offset)
            .cloned()
            .collect();
        return Sync::Partial(ops);
    }
    if replid != "?" {
        r.sync_partial_err += 1;
    }
    r.sync_full += 1;
    // The RDB a full sync sends is the keyspace now, as BGSAVE takes it.
    let at = srv.repl.offset;
    let snapshot = crate::persist::Snapshot::take(srv)
        .entries
        .into_iter()
        .map(|(db, key, obj, expire_ms)| ReplOp {
            start: at,
            end: at,
            db,
            effect: Effect::Put {
                key,
                obj,
                expire_ms,
            },
            label: "RDB".into(),
        })
        .collect();
    // After a snapshot the stream needs a SELECT before its next command.
    srv.repl.selected = None;
    Sync::Full {
        replid: srv.repl.replid.clone(),
        offset: srv.repl.offset,
        snapshot,
    }
}

/// Loads a full sync's snapshot on a replica: everything it had is dropped.
pub fn load_full(srv: &mut Server, replid: &str, offset: u64, snapshot: &[ReplOp]) {
    let changes = srv.persist.dirty;
    srv.flush(None);
    // Loading an RDB only makes its keys: it is not a change to save, not
    // part of the stream, and the AOF is rewritten from the result below.
    srv.repl.applying = true;
    for op in snapshot {
        srv.replay(op);
    }
    srv.repl.applying = false;
    srv.persist.dirty = changes;
    srv.repl.dirty.clear();
    srv.repl.replid = replid.to_string();
    srv.repl.offset = offset;
    srv.repl.backlog.clear();
    srv.repl.backlog_histlen = 0;
    // Redis creates the backlog once the replica has loaded the master's data.
    srv.repl.streaming = true;
    if let Role::Replica {
        state, last_io_ms, ..
    } = &mut srv.repl.role
    {
        *state = LinkState::Connected;
        *last_io_ms = srv.clock.unix_us() as i64 / 1000;
    }
    // After loading the master's RDB a replica with AOF on rewrites it from
    // the new data (Redis restarts the AOF after a full sync).
    if srv.config.appendonly {
        crate::persist::rewrite_aof(srv);
    }
}

/// `REPLICAOF NO ONE` (or a failover's promotion): the replica becomes a
/// master with a new history, remembering the old one so other replicas of
/// the same master can continue from it (PSYNC2).
pub fn promote(srv: &mut Server) {
    if !srv.repl.is_replica() {
        return;
    }
    let r = &mut srv.repl;
    r.replid2 = std::mem::take(&mut r.replid);
    r.second_offset = r.offset as i64;
    // A new ID from the node's own history, so runs replay identically.
    let mut rng = fastrand::Rng::with_seed(srv.seed ^ r.offset ^ 0x006e_6577_6964);
    r.replid = new_replid(&mut rng);
    srv.repl.role = Role::Master;
    srv.repl.start_capturing();
    srv.repl.refresh_wire();
    // CONFIG GET replicaof names the master, and nothing once there is none.
    srv.config.replicaof.clear();
}

/// `REPLICAOF host port`: becomes a replica of that address; the link
/// starts down (a driver connects it). Existing data stays until a full sync.
pub fn demote(srv: &mut Server, host: &str, port: u16) {
    let now_ms = srv.now_ms();
    if let Role::Master = srv.repl.role {
        // Its history may continue on the new master (PSYNC2): keep offsets.
        srv.repl.replicas.clear();
    }
    // `replicationSetMaster` frees a connected master's client, which
    // marks the link down (`replicationHandleMasterDisconnection`); a link
    // that was not up keeps its mark, and a master has none.
    let down_since_ms = match &srv.repl.role {
        Role::Replica {
            state: LinkState::Connected,
            ..
        } => Some(now_ms),
        Role::Replica { down_since_ms, .. } => *down_since_ms,
        Role::Master => None,
    };
    srv.repl.role = Role::Replica {
        host: host.to_string(),
        port,
        state: LinkState::Connect,
        down_since_ms,
        last_io_ms: now_ms,
    };
    srv.repl.refresh_wire();
    srv.config.replicaof = format!("{host} {port}");
}

/// INFO's `# Replication` body.
pub fn info(srv: &Server) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let now_ms = srv.now_ms();
    let r = &srv.repl;
    match &r.role {
        Role::Master => {
            let _ = write!(
                o,
                "role:master\r\nconnected_slaves:{}\r\n",
                r.replicas.iter().filter(|x| x.online).count()
            );
            if srv.config.min_replicas_to_write > 0 && srv.config.min_replicas_max_lag > 0 {
                let good = r.good_replicas(now_ms, srv.config.min_replicas_max_lag);
                let _ = write!(o, "min_slaves_good_slaves:{good}\r\n");
            }
            for (i, x) in r.replicas.iter().enumerate() {
                let (ip, port) = x.addr.rsplit_once(':').unwrap_or((x.addr.as_str(), "0"));
                let _ = write!(
                    o,
                    "slave{i}:ip={ip},port={port},state={},offset={},lag={}\r\n",
                    if x.online { "online" } else { "wait_bgsave" },
                    x.ack_offset,
                    (now_ms - x.last_ack_ms).max(0) / 1000
                );
            }
        }
        Role::Replica {
            host,
            port,
            state,
            down_since_ms,
            last_io_ms,
        } => {
            let up = *state == LinkState::Connected;
            let _ = write!(
                o,
                "role:slave\r\nmaster_host:{host}\r\nmaster_port:{port}\r\nmaster_link_status:{}\r\nmaster_last_io_seconds_ago:{}\r\nmaster_sync_in_progress:{}\r\nslave_read_repl_offset:{}\r\nslave_repl_offset:{}\r\n",
                if up { "up" } else { "down" },
                if up { (now_ms - last_io_ms).max(0) / 1000 } else { -1 },
                u8::from(*state == LinkState::Sync),
                r.offset,
                r.offset
            );
            if !up {
                let _ = write!(
                    o,
                    "master_link_down_since_seconds:{}\r\n",
                    down_since_ms.map_or(-1, |t| (now_ms - t).max(0) / 1000)
                );
            }
            let _ = write!(
                o,
                "slave_priority:{}\r\nslave_read_only:{}\r\nreplica_announced:1\r\nconnected_slaves:{}\r\n",
                srv.config.replica_priority,
                u8::from(srv.config.replica_read_only),
                r.replicas.iter().filter(|x| x.online).count()
            );
        }
    }
    let _ = write!(
        o,
        "master_failover_state:no-failover\r\nmaster_replid:{}\r\nmaster_replid2:{}\r\nmaster_repl_offset:{}\r\nsecond_repl_offset:{}\r\nrepl_backlog_active:{}\r\nrepl_backlog_size:{}\r\nrepl_backlog_first_byte_offset:{}\r\nrepl_backlog_histlen:{}\r\n",
        r.replid,
        r.replid2,
        r.offset,
        r.second_offset,
        u8::from(r.streaming),
        srv.config.repl_backlog_size,
        if r.streaming { r.backlog_first_offset() } else { 0 },
        r.backlog_histlen
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `key` holds as a stream op, after a write of it is propagated.
    fn op_after_write(sockets: bool) -> Effect {
        let config = crate::server::config::Config::default();
        let mut srv = Server::new(1, config, 0);
        srv.repl.sockets.allowed = sockets;
        srv.repl.start_capturing();
        let big = crate::keyspace::object::RString::from_bytes(&[b'x'; 100_000]);
        srv.set_key(
            0,
            b"big",
            crate::keyspace::object::Value::String(big),
            false,
        );
        propagate(&mut srv, Some(&[b"APPEND".to_vec(), b"big".to_vec()]));
        srv.repl.backlog.back().expect("an op").effect.clone()
    }

    /// The engine's own replicas get the value; a server whose replicas
    /// are on sockets keeps none (a big set written often once filled 24 GB
    /// of its backlog with copies of itself).
    #[test]
    fn only_an_engine_without_sockets_copies_values_into_its_stream() {
        assert!(matches!(op_after_write(false), Effect::Put { .. }));
        assert!(matches!(op_after_write(true), Effect::Counted { .. }));
    }

    #[test]
    fn resp_lengths_match_the_wire() {
        // *3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n
        assert_eq!(resp_len(&[b"SET", b"k", b"v"]), 27);
        // *2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n
        assert_eq!(resp_len(&[b"SELECT", b"0"]), 23);
    }
}
