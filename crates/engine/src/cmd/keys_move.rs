//! Keyspace commands that cross databases or duplicate keys: COPY, MOVE and SWAPDB (db.c's `copyCommand`, `moveCommand`, `swapdbCommand`).
//!
//! Each goes through the server's ordinary write paths (`set_key`,
//! `set_expire`, `delete`), so expiries, memory accounting, WATCH and the
//! replication stream see their effects as they see any other write's.
//! SWAPDB exchanges two whole databases (values, expiries, the expire
//! cycle's cursor); clients keep their selected index, so a client on one
//! of them sees the other's keys from then on.

use super::args::range_long_arg;
use super::table::{commands, Command, Ctx};
use crate::proto::resp::Frame;
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;
use crate::server::Server;

pub(super) static COMMANDS: &[Command] = commands! { group: "generic";
    "copy" => copy, arity: -3, flags: [WRITE, DENYOOM], keys: (1, 2, 1), acl: [KEYSPACE, WRITE, SLOW], since: "6.2.0",
        syntax: "COPY source destination [DB destination-db] [REPLACE]", summary: "Copies the value of a key to a new key.";
    "move" => move_cmd, arity: 3, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [KEYSPACE, WRITE, FAST], since: "1.0.0",
        syntax: "MOVE key db", summary: "Moves a key to another database.";
    "swapdb" => swapdb, arity: 3, flags: [WRITE, FAST], acl: [KEYSPACE, WRITE, FAST, DANGEROUS], group: "server", since: "4.0.0",
        syntax: "SWAPDB index1 index2", summary: "Swaps two Redis databases.";
};

const SAME_OBJECT: &str = "ERR source and destination objects are the same";
const DB_RANGE: &str = "ERR DB index is out of range";

/// `getIntFromObjectOrReply` then `selectDb`'s range check.
fn db_index(srv: &Server, arg: &[u8], msg: Option<&str>) -> Result<usize, Frame> {
    let id = range_long_arg(arg, i32::MIN.into(), i32::MAX.into(), msg)?;
    if id < 0 || id >= srv.dbs.len() as i64 {
        return Err(Frame::err(DB_RANGE));
    }
    Ok(id as usize)
}

/// `copyCommand`: options first (their errors in argument order), then the
/// same-key check, then a read lookup of the source (it counts a hit or a
/// miss) and a write lookup of the destination. The copy is a fresh
/// object (new LRU/LFU field) carrying the source's TTL.
fn copy(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let src = ctx.db();
    let mut dst = src;
    let mut replace = false;
    let mut j = 3;
    while j < args.len() {
        if super::is(&args[j], "replace") {
            replace = true;
        } else if super::is(&args[j], "db") && j + 1 < args.len() {
            dst = match db_index(ctx.srv, &args[j + 1], None) {
                Ok(d) => d,
                Err(e) => return e,
            };
            j += 1;
        } else {
            return Frame::err(super::SYNTAX);
        }
        j += 1;
    }
    let (key, newkey) = (&args[1], &args[2]);
    if src == dst && key == newkey {
        return Frame::err(SAME_OBJECT);
    }
    let Some(value) = ctx.srv.lookup_read(src, key).map(|o| o.value.clone()) else {
        return Frame::Integer(0);
    };
    let expire = ctx.srv.dbs[src].expire_at(key);
    if ctx.srv.lookup_write(dst, newkey).is_some() {
        if !replace {
            return Frame::Integer(0);
        }
        ctx.srv.delete(dst, newkey, DeleteCause::Rename);
    }
    ctx.srv.set_key(dst, newkey, value, false);
    if let Some(when) = expire {
        ctx.srv.set_expire(dst, newkey, when);
    }
    ctx.srv.notify(ev::GENERIC, "copy_to", newkey, dst);
    Frame::Integer(1)
}

/// `moveCommand`: the value and its TTL go to the other database unless
/// the key is missing here or present there.
fn move_cmd(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let src = ctx.db();
    let dst = match db_index(ctx.srv, &args[2], None) {
        Ok(d) => d,
        Err(e) => return e,
    };
    if src == dst {
        return Frame::err(SAME_OBJECT);
    }
    let key = &args[1];
    if ctx.srv.lookup_write(src, key).is_none() {
        return Frame::Integer(0);
    }
    let expire = ctx.srv.dbs[src].expire_at(key);
    if ctx.srv.lookup_write(dst, key).is_some() {
        return Frame::Integer(0);
    }
    let Some(value) = ctx.srv.dbs[src].get(key).map(|o| o.value.clone()) else {
        return Frame::Integer(0);
    };
    ctx.srv.set_key(dst, key, value, false);
    if let Some(when) = expire {
        ctx.srv.set_expire(dst, key, when);
    }
    // The value lives on in `dst`: nothing is freed.
    ctx.srv.delete_freeing(src, key, DeleteCause::Rename, None);
    ctx.srv.notify(ev::GENERIC, "move_from", key, src);
    ctx.srv.notify(ev::GENERIC, "move_to", key, dst);
    // One change for the move, not one per database.
    crate::persist::adjust_changes(ctx.srv, -1);
    Frame::Integer(1)
}

/// `swapdbCommand` and `dbSwapDatabases`.
fn swapdb(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let first = Some("invalid first DB index");
    let second = Some("invalid second DB index");
    let a = match range_long_arg(&args[1], i32::MIN.into(), i32::MAX.into(), first) {
        Ok(a) => a,
        Err(e) => return e,
    };
    let b = match range_long_arg(&args[2], i32::MIN.into(), i32::MAX.into(), second) {
        Ok(b) => b,
        Err(e) => return e,
    };
    let n = ctx.srv.dbs.len() as i64;
    if a < 0 || a >= n || b < 0 || b >= n {
        return Frame::err(DB_RANGE);
    }
    swap_databases(ctx.srv, a as usize, b as usize);
    // `server.dirty++` (the swap touches no key itself).
    crate::persist::adjust_changes(ctx.srv, 1);
    Frame::ok()
}

/// `dbSwapDatabases`: watchers and blocked clients are told first, as
/// Redis does, then the databases trade places; every key of either is
/// then noted for the replication stream (which carries effects, so a
/// swap is every key's new state in both databases). Unlike Redis' verbatim
/// SWAPDB, a swap of two empty databases adds nothing to the stream.
pub fn swap_databases(srv: &mut Server, a: usize, b: usize) {
    if a == b {
        return;
    }
    if !srv.watches.is_empty() {
        let now = srv.now_ms();
        let Server { watches, dbs, .. } = &mut *srv;
        watches.touch_swapped(a, &dbs[a], &dbs[b], now);
        watches.touch_swapped(b, &dbs[b], &dbs[a], now);
    }
    {
        let Server { blocking, dbs, .. } = &mut *srv;
        blocking.signal_swapped(a, &dbs[a], &dbs[b]);
        blocking.signal_swapped(b, &dbs[b], &dbs[a]);
    }
    srv.dbs.swap(a, b);
    let ev = srv.config.maxmemory_policy;
    if ev.is_exact() {
        srv.evict.exact.swap_dbs(a, b);
    }
    {
        let Server { blocking, dbs, .. } = &mut *srv;
        blocking.signal_present(a, &dbs[a]);
        blocking.signal_present(b, &dbs[b]);
    }
    if srv.repl.capturing() {
        let mut keys: crate::ordmap::OrdSet<Vec<u8>> = crate::ordmap::OrdSet::new();
        for d in [a, b] {
            keys.extend(srv.dbs[d].dict.iter().map(|(k, _)| k.to_vec()));
        }
        // One database after the other, so the stream's byte count has at
        // most one SELECT more than Redis' verbatim SWAPDB.
        for d in [a, b] {
            for k in &keys {
                srv.repl.note_key(d, k);
            }
        }
    }
}
