//! Cluster routing for dispatch: the key positions of a command line (`getKeysFromCommand`), the redirection check before a keyed command (`getNodeByQuery` and its errors), ASKING's lifetime, and the database checks only database 0 allows.

use super::state::refresh;
use crate::cluster::{key_hash_slot, Redirect};
use crate::cmd::args::is;
use crate::cmd::args::NOT_INTEGER;
pub use crate::cmd::keyspecs::key_positions;
use crate::cmd::table::{Command, Flags, Registry};
use crate::proto::resp::{parse_i64, Frame};
use crate::server::client::Client;
use crate::server::Server;

/// The cluster part of `processCommand`: `getNodeByQuery` and, when the
/// command may not run here, the error `clusterRedirectClient` sends (the
/// dispatcher counts the rejection and discards or dooms the transaction).
/// Commands served here are counted per slot.
pub fn redirect(
    reg: &Registry,
    srv: &mut Server,
    client: &Client,
    cmd: &'static Command,
    args: &[Vec<u8>],
) -> Option<Frame> {
    let id = client.id;
    if srv.cluster.as_ref()?.obey.contains(&id) {
        return None;
    }
    let is_exec = cmd.name == "exec";
    if !is_exec && !cmd.flags.contains(Flags::MOVABLEKEYS) && cmd.keys.0 == 0 {
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
            .filter_map(|q| reg.resolve_command(q).map(|c| (c, q.clone())))
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
        writes |= c.flags.contains(Flags::WRITE);
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
    // RESTORE-ASKING is `CMD_ASKING`: it counts as asked for by itself.
    let asking = cl.asking.contains_key(&id) || cmd.flags.contains(Flags::ASKING);
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
    cl.redirects_sent += 1;
    Some(Frame::err(r.message(&cl.nodes)))
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
            None => Some(Frame::err(NOT_INTEGER)),
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
        let cmd = crate::cmd::REGISTRY
            .resolve_command(&args)
            .expect("known command");
        key_positions(cmd, &args)
    }

    #[test]
    fn key_positions_follow_getkeys() {
        assert_eq!(keys("GET a"), vec![1]);
        assert_eq!(keys("MSET a 1 b 2"), vec![1, 3]);
        assert_eq!(keys("DEL a b c"), vec![1, 2, 3]);
        assert_eq!(keys("EVAL s 2 a b c"), vec![3, 4]);
        assert_eq!(keys("EVAL s 3 a b"), Vec::<usize>::new());
        assert_eq!(keys("ZUNIONSTORE d 2 a b"), vec![3, 4, 1]);
        assert_eq!(keys("XREAD COUNT 2 STREAMS a b 0 0"), vec![4, 5]);
        assert_eq!(keys("XREAD STREAMS a b 0"), Vec::<usize>::new());
        assert_eq!(keys("BLMPOP 0 2 a b LEFT"), vec![3, 4]);
        assert_eq!(keys("OBJECT ENCODING k"), vec![2]);
        assert_eq!(keys("PING"), Vec::<usize>::new());
    }
}
