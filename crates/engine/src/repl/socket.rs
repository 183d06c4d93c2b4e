//! Replicas on sockets: what a native Redsim server does for a real replica, or `redis-cli --rdb` and `--replica`, that sent SYNC or PSYNC: Redis' answer, an RDB file of the keyspace, then the write stream as commands, and the replica's `REPLCONF ACK`s read back for WAIT and INFO.
//!
//! The engine's own replicas take each command's effect per key (see the
//! parent module); a socket carries what Redis would send instead, the
//! commands of [`super::wire`], with a `SELECT` when the database changes
//! and a `PING` every `repl-ping-replica-period` seconds of quiet, so the
//! replica's `repl-timeout` never fires. A link keeps the wire offset where
//! each execution unit ends beside the engine's offset for it: an
//! acknowledged wire offset maps back to the engine offset that WAIT
//! compares with. A partial resync would need the wire's bytes again, so a
//! socket replica always gets a full one.

use std::collections::VecDeque;

use super::state::{Link, ReplicaLink};
use crate::persist::rdb;
use crate::proto::resp::Frame;
use crate::server::client::{Client, ClientId};
use crate::server::Server;

/// `syncCommand`'s full resynchronisation for a connection: registers it
/// as a replica (unless it asked for the RDB file only), counts the sync,
/// and queues `$<len>` and the RDB file after the reply. PSYNC's reply is
/// `+FULLRESYNC <replid> <offset>`; SYNC's (`None`) is the file alone.
pub fn attach(
    srv: &mut Server,
    client: &mut Client,
    addr: String,
    psync_replid: Option<&[u8]>,
) -> Option<Frame> {
    srv.repl.start_capturing();
    // What was written before this replica joined belongs to the others.
    feed(srv);
    if psync_replid.is_some_and(|id| id.first() != Some(&b'?')) {
        srv.repl.sync_partial_err += 1;
    }
    srv.repl.sync_full += 1;
    let offset = srv.repl.offset;
    let replid = srv.repl.replid.clone();
    let conf = &client.replconf;
    let parts = rdb::file::Parts {
        data: !conf.rdb_exclude_data,
        functions: !conf.rdb_exclude_functions,
    };
    let repl = rdb::file::ReplInfo {
        stream_db: 0,
        replid: &replid,
        offset,
    };
    let file = rdb::file::write(srv, parts, Some(repl));
    let mut bytes = format!("${}\r\n", file.len()).into_bytes();
    bytes.extend_from_slice(&file);
    srv.repl.sockets.out.push((client.id, bytes));
    client.replconf.replica = true;
    if client.replconf.rdb_only {
        // `CLIENT_REPL_RDBONLY`: the file, then the connection closes.
        client.close_after_reply = true;
    } else {
        let now_ms = srv.now_ms();
        match srv.repl.replicas.iter_mut().find(|r| r.addr == addr) {
            Some(r) => {
                r.ack_offset = 0;
                r.last_ack_ms = now_ms;
                r.online = true;
            }
            None => srv.repl.replicas.push(ReplicaLink {
                addr: addr.clone(),
                ack_offset: 0,
                last_ack_ms: now_ms,
                online: true,
            }),
        }
        srv.repl.sockets.links.push(Link {
            client: client.id,
            addr,
            selected: None,
            wire: offset,
            marks: VecDeque::new(),
            engine: offset,
            acked: offset,
            last_sent_ms: now_ms,
        });
        srv.repl.refresh_wire();
    }
    psync_replid.map(|_| Frame::simple(format!("FULLRESYNC {replid} {offset}")))
}

/// Sends the stream produced since the last call to every socket replica
/// (with a `REPLCONF GETACK *` when a WAIT asked for acknowledgements), or
/// a `PING` to one that heard nothing for `repl-ping-replica-period`.
pub fn feed(srv: &mut Server) {
    if !srv.repl.sockets.allowed || !srv.repl.capturing() {
        return;
    }
    super::propagate(srv, None);
    // The engine's own replicas take the ops; these go nowhere else.
    srv.repl.take_outbox();
    let units = std::mem::take(&mut srv.repl.wire.units);
    // Once a replica attached, writes are captured for good (the backlog
    // stays); with none attached now they go nowhere, and must not wait
    // for the next replica, whose RDB file already holds them.
    if srv.repl.sockets.links.is_empty() {
        return;
    }
    let getack = std::mem::take(&mut srv.repl.ack_requested);
    let now_ms = srv.now_ms();
    let period_ms = srv.config.repl_ping_replica_period.saturating_mul(1000);
    let engine_now = srv.repl.offset;
    let sockets = &mut srv.repl.sockets;
    for link in &mut sockets.links {
        let mut bytes = Vec::new();
        for unit in &units {
            for (db, argv) in &unit.cmds {
                encode(link, *db, argv, &mut bytes);
            }
            let end = unit.engine_end.unwrap_or(engine_now);
            link.marks.push_back((link.wire + bytes.len() as u64, end));
            link.engine = end;
        }
        // Ops with no command of their own (nothing Redis would send) are
        // acknowledged with the next.
        link.engine = link.engine.max(engine_now);
        if getack {
            command(&mut bytes, &[b"REPLCONF", b"GETACK", b"*"]);
        }
        if bytes.is_empty() && now_ms.saturating_sub(link.last_sent_ms) >= period_ms {
            command(&mut bytes, &[b"PING"]);
        }
        if !bytes.is_empty() {
            link.wire += bytes.len() as u64;
            link.last_sent_ms = now_ms;
            sockets.out.push((link.client, bytes));
        }
    }
}

/// `REPLCONF ACK <wire offset>` from replica `client`: the engine offset it
/// has reached (the end of the last op wholly acknowledged), with its name.
pub fn acked(srv: &mut Server, client: ClientId, wire: u64) -> Option<(String, u64)> {
    let link = srv
        .repl
        .sockets
        .links
        .iter_mut()
        .find(|l| l.client == client)?;
    while let Some(&(w, e)) = link.marks.front() {
        if w > wire {
            break;
        }
        link.acked = e;
        link.marks.pop_front();
    }
    if link.marks.is_empty() {
        link.acked = link.engine;
    }
    Some((link.addr.clone(), link.acked))
}

/// The connection of a socket replica closed: it leaves the replicas.
pub fn gone(srv: &mut Server, client: ClientId) {
    let Some(i) = srv
        .repl
        .sockets
        .links
        .iter()
        .position(|l| l.client == client)
    else {
        return;
    };
    let link = srv.repl.sockets.links.remove(i);
    srv.repl.replicas.retain(|r| r.addr != link.addr);
    srv.repl.sockets.out.retain(|(c, _)| *c != client);
    srv.repl.refresh_wire();
}

/// One command as the replica reads it, after a `SELECT` if its
/// database is not the wire's (`replicationFeedSlaves`).
fn encode(link: &mut Link, db: Option<usize>, argv: &[Vec<u8>], out: &mut Vec<u8>) {
    if let Some(db) = db.filter(|&d| link.selected != Some(d)) {
        command(out, &[b"SELECT", db.to_string().as_bytes()]);
        link.selected = Some(db);
    }
    let refs: Vec<&[u8]> = argv.iter().map(|a| a.as_slice()).collect();
    command(out, &refs);
}

/// A command as RESP: an array of bulk strings.
fn command(out: &mut Vec<u8>, args: &[&[u8]]) {
    crate::proto::resp::push_request(out, args);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(wire: u64) -> Link {
        Link {
            client: 1,
            addr: "127.0.0.1:6380".into(),
            selected: None,
            wire,
            marks: VecDeque::new(),
            engine: wire,
            acked: wire,
            last_sent_ms: 0,
        }
    }

    #[test]
    fn a_command_is_a_resp_array_of_bulk_strings() {
        let mut out = Vec::new();
        command(&mut out, &[b"DEL", b"k\r\n"]);
        assert_eq!(out, b"*2\r\n$3\r\nDEL\r\n$3\r\nk\r\n\r\n");
    }

    #[test]
    fn commands_are_selected_into_their_database_once() {
        let mut l = link(0);
        let mut out = Vec::new();
        let del = |key: &str| vec![b"DEL".to_vec(), key.as_bytes().to_vec()];
        encode(&mut l, Some(2), &del("a"), &mut out);
        encode(&mut l, Some(2), &del("b"), &mut out);
        encode(&mut l, None, &[b"EXEC".to_vec()], &mut out);
        encode(&mut l, Some(0), &del("c"), &mut out);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("SELECT").count(), 2, "{text}");
        assert!(text.starts_with("*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n*2\r\n$3\r\nDEL\r\n$1\r\na\r\n"));
    }
}
