//! Set commands (t_set.c): membership, SPOP/SRANDMEMBER in all their cases, SMOVE, the intersection/union/difference family with their STORE forms and SINTERCARD, and SSCAN, with Redis 7.2's lookups, error order and encodings.
//!
//! The algebra follows Redis step by step because the result's encoding
//! and order depend on it: a union or difference is built by adding into a
//! fresh intset (so small results become intsets or listpacks), SDIFF picks
//! one of two algorithms by estimated work, SINTERSTORE starts from the
//! smallest set's encoding and may end as an intset, and SPOP of most of a
//! set keeps the rest in a new, possibly smaller, encoding.

use super::args::{count_arg, opt_is, positive_long_arg, range_long_arg, SYNTAX};
use super::random::{sample_indices, too_many_random, MAX_RANDOM_REPLY};
use super::scan::{cursor_arg, scan_opts, scan_reply, scan_steps};
use super::table::{commands, Command, Ctx};
use super::typed::{peek, peek_with_rng, remove_each, update, WRONGTYPE};
use crate::keyspace::object::Value;
use crate::keyspace::types::set::{Member, Set, SetLimits};
use crate::proto::resp::{parse_i64, Frame};
use crate::rng::Pick;
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;
use crate::server::Server;

pub(super) static COMMANDS: &[Command] = commands! { group: "set";
    "sadd" => sadd, arity: -3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, SET, FAST], since: "1.0.0",
        syntax: "SADD key member [member ...]", summary: "Adds members to a set, creating it if needed; replies with how many were new.";
    "srem" => srem, arity: -3, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, SET, FAST], since: "1.0.0",
        syntax: "SREM key member [member ...]", summary: "Removes members from a set, and the key once empty; replies with how many were removed.";
    "sismember" => sismember, arity: 3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SET, FAST], since: "1.0.0",
        syntax: "SISMEMBER key member", summary: "Replies 1 if the member is in the set, else 0.";
    "smismember" => smismember, arity: -3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SET, FAST], since: "6.2.0",
        syntax: "SMISMEMBER key member [member ...]", summary: "Replies 1 or 0 for each member: whether it is in the set.";
    "scard" => scard, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, SET, FAST], since: "1.0.0",
        syntax: "SCARD key", summary: "Replies with the number of members of a set.";
    "smembers" => smembers, arity: 2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SET, SLOW], since: "1.0.0",
        syntax: "SMEMBERS key", summary: "Replies with every member of a set.";
    "spop" => spop, arity: -2, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, SET, FAST], since: "1.0.0",
        syntax: "SPOP key [count]", summary: "Removes and replies with random members of a set, deleting it once empty.";
    "srandmember" => srandmember, arity: -2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SET, SLOW], since: "1.0.0",
        syntax: "SRANDMEMBER key [count]", summary: "Replies with random members: distinct for a positive count, possibly repeated for a negative one.";
    "smove" => smove, arity: 4, flags: [WRITE, FAST], keys: (1, 2, 1), acl: [WRITE, SET, FAST], since: "1.0.0",
        syntax: "SMOVE source destination member", summary: "Moves a member from one set to another; replies 1 if it was in the source.";
    "sinter" => sinter, arity: -2, flags: [READONLY], keys: (1, -1, 1), acl: [READ, SET, SLOW], since: "1.0.0",
        syntax: "SINTER key [key ...]", summary: "Replies with the members common to every set.";
    "sintercard" => sintercard, arity: -3, flags: [READONLY, MOVABLEKEYS], acl: [READ, SET, SLOW], since: "7.0.0",
        syntax: "SINTERCARD numkeys key [key ...] [LIMIT limit]", summary: "Replies with the size of the sets' intersection, counting up to LIMIT if given.";
    "sunion" => sunion, arity: -2, flags: [READONLY], keys: (1, -1, 1), acl: [READ, SET, SLOW], since: "1.0.0",
        syntax: "SUNION key [key ...]", summary: "Replies with the members of any of the sets.";
    "sdiff" => sdiff, arity: -2, flags: [READONLY], keys: (1, -1, 1), acl: [READ, SET, SLOW], since: "1.0.0",
        syntax: "SDIFF key [key ...]", summary: "Replies with the members of the first set that are in none of the others.";
    "sinterstore" => sinterstore, arity: -3, flags: [WRITE, DENYOOM], keys: (1, -1, 1), acl: [WRITE, SET, SLOW], since: "1.0.0",
        syntax: "SINTERSTORE destination key [key ...]", summary: "Stores the intersection of sets under a key (deleting it if empty); replies with its size.";
    "sunionstore" => sunionstore, arity: -3, flags: [WRITE, DENYOOM], keys: (1, -1, 1), acl: [WRITE, SET, SLOW], since: "1.0.0",
        syntax: "SUNIONSTORE destination key [key ...]", summary: "Stores the union of sets under a key (deleting it if empty); replies with its size.";
    "sdiffstore" => sdiffstore, arity: -3, flags: [WRITE, DENYOOM], keys: (1, -1, 1), acl: [WRITE, SET, SLOW], since: "1.0.0",
        syntax: "SDIFFSTORE destination key [key ...]", summary: "Stores the difference of sets under a key (deleting it if empty); replies with its size.";
    "sscan" => sscan, arity: -3, flags: [READONLY], keys: (1, 1, 1), acl: [READ, SET, SLOW], since: "2.8.0",
        syntax: "SSCAN key cursor [MATCH pattern] [COUNT count]", summary: "Walks a set's members with a cursor (a small set comes whole).";
};

// ---------------------------------------------------------------------------
// Encoding limits and in-place writes.

/// The encoding limits from the current config.
pub(super) fn limits(srv: &Server) -> SetLimits {
    SetLimits {
        max_intset_entries: srv.config.set_max_intset_entries,
        max_listpack_entries: srv.config.set_max_listpack_entries,
        max_listpack_value: srv.config.set_max_listpack_value,
        dict_seed: srv.seed ^ 0x7365_7473_6565_6473,
    }
}

/// Applies `f` to the live set at `key` (see [`update`]); the default
/// result if there is none.
fn update_set<R: Default>(
    srv: &mut Server,
    db: usize,
    key: &[u8],
    f: impl FnOnce(&mut Set, &mut fastrand::Rng) -> (R, bool),
) -> R {
    update::<Set, _>(srv, db, key, f).unwrap_or_default()
}

/// Stores `set` at `dst` (`setKey`, after its write lookup), or deletes
/// `dst` if the result is empty; replies with the size.
fn store(ctx: &mut Ctx, dst: &[u8], set: Set, event: &str) -> Frame {
    let db = ctx.db();
    if set.is_empty() {
        if ctx.srv.delete(db, dst, DeleteCause::Del) {
            ctx.notify(ev::GENERIC, "del", dst);
        }
        return Frame::Integer(0);
    }
    let n = set.len() as i64;
    ctx.srv.lookup_write(db, dst);
    ctx.srv.set_key(db, dst, Value::Set(Box::new(set)), false);
    ctx.notify(ev::SET, event, dst);
    Frame::Integer(n)
}

/// A set's members as a set reply.
fn set_reply(members: Vec<Vec<u8>>) -> Frame {
    Frame::Set(members.into_iter().map(Frame::Bulk).collect())
}

// ---------------------------------------------------------------------------
// Commands.

fn sadd(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let exists = match ctx.write_exists::<Set>(&args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let lim = limits(ctx.srv);
    let hint = (args.len() - 2) as u64;
    let db = ctx.db();
    let add_all = |s: &mut Set| args[2..].iter().filter(|m| s.add(m, &lim)).count();
    let added = if exists {
        update_set(ctx.srv, db, &args[1], |s, _| {
            s.maybe_convert(hint, &lim);
            let added = add_all(s);
            (added, added > 0)
        })
    } else {
        let mut s = Set::create(&args[2], hint, &lim);
        let added = add_all(&mut s);
        ctx.srv
            .set_key(db, &args[1], Value::Set(Box::new(s)), false);
        added
    };
    if added > 0 {
        ctx.notify(ev::SET, "sadd", &args[1]);
        crate::persist::adjust_changes(ctx.srv, added as i64 - 1);
    }
    Frame::Integer(added as i64)
}

/// SREM: stops once the set is empty, and deletes the key.
fn srem(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(reply) = ctx.write_or::<Set>(&args[1], || Frame::Integer(0)) {
        return reply;
    }
    let db = ctx.db();
    let (deleted, emptied) = update_set(ctx.srv, db, &args[1], |s, _| {
        let deleted = remove_each(s, &args[2..], Set::remove, Set::is_empty);
        ((deleted, s.is_empty()), deleted > 0)
    });
    if deleted > 0 {
        ctx.notify(ev::SET, "srem", &args[1]);
        crate::persist::adjust_changes(ctx.srv, deleted - 1);
    }
    if emptied {
        ctx.srv.delete(db, &args[1], DeleteCause::Del);
        ctx.notify(ev::GENERIC, "del", &args[1]);
    }
    Frame::Integer(deleted)
}

fn sismember(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<Set>(&args[1]) {
        Err(e) => e,
        Ok(s) => Frame::Integer(s.is_some_and(|s| s.contains(&args[2])) as i64),
    }
}

fn smismember(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let s = match ctx.read::<Set>(&args[1]) {
        Ok(s) => s,
        Err(e) => return e,
    };
    Frame::Array(
        args[2..]
            .iter()
            .map(|m| Frame::Integer(s.is_some_and(|s| s.contains(m)) as i64))
            .collect(),
    )
}

fn scard(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<Set>(&args[1]) {
        Err(e) => e,
        Ok(s) => Frame::Integer(s.map_or(0, |s| s.len() as i64)),
    }
}

/// SMEMBERS is SINTER of one key, as in Redis.
fn smembers(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    sinter_generic(ctx, &args[1..], Inter::Reply)
}

/// SMOVE: both keys are looked up for writing; a missing source replies 0
/// before any type check of the destination.
fn smove(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (src, dst, ele) = (&args[1], &args[2], &args[3]);
    let db = ctx.db();
    let src_kind = ctx.srv.lookup_write(db, src).map(|o| o.value.type_name());
    let dst_kind = ctx.srv.lookup_write(db, dst).map(|o| o.value.type_name());
    let Some(src_kind) = src_kind else {
        return Frame::Integer(0);
    };
    if src_kind != "set" || dst_kind.is_some_and(|k| k != "set") {
        return Frame::err(WRONGTYPE);
    }
    if src == dst {
        return Frame::Integer(
            peek::<Set>(ctx.srv, db, src).is_some_and(|s| s.contains(ele)) as i64,
        );
    }
    let (removed, emptied) = update_set(ctx.srv, db, src, |s, _| {
        let removed = s.remove(ele);
        ((removed, s.is_empty()), removed)
    });
    if !removed {
        return Frame::Integer(0);
    }
    ctx.notify(ev::SET, "srem", src);
    if emptied {
        ctx.srv.delete(db, src, DeleteCause::Del);
        ctx.notify(ev::GENERIC, "del", src);
    }
    let lim = limits(ctx.srv);
    if dst_kind.is_none() {
        let mut s = Set::create(ele, 1, &lim);
        s.add(ele, &lim);
        ctx.srv.set_key(db, dst, Value::Set(Box::new(s)), false);
        ctx.notify(ev::SET, "sadd", dst);
    } else {
        let added = update_set(ctx.srv, db, dst, |s, _| {
            let added = s.add(ele, &lim);
            (added, added)
        });
        if added {
            ctx.notify(ev::SET, "sadd", dst);
        }
    }
    Frame::Integer(1)
}

fn spop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() == 3 {
        return spop_count(ctx, args);
    }
    if args.len() > 3 {
        return Frame::err(SYNTAX);
    }
    let key = &args[1];
    if let Err(reply) = ctx.write_or::<Set>(key, || Frame::Null) {
        return reply;
    }
    let db = ctx.db();
    let (popped, emptied) = update_set(ctx.srv, db, key, |s, rng| {
        let m = s.pop_random(rng);
        let changed = m.is_some();
        ((m, s.is_empty()), changed)
    });
    if let Some(m) = &popped {
        ctx.notify(ev::SET, "spop", key);
        // Replicas remove the member drawn: the draw is the master's.
        ctx.propagate_as(&[b"SREM", key, m]);
    }
    if emptied {
        ctx.srv.delete(db, key, DeleteCause::Del);
        ctx.notify(ev::GENERIC, "del", key);
    }
    popped.map_or(Frame::Null, Frame::Bulk)
}

/// `spopWithCountCommand`: the whole set (through SUNION's code, which
/// reads the key again), a few random members, or — when most of the set
/// goes — the members that stay are drawn instead and become a new set.
fn spop_count(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let count = match positive_long_arg(&args[2], None) {
        Ok(n) => n as u64,
        Err(e) => return e,
    };
    let key = &args[1];
    if let Err(reply) = ctx.write_or::<Set>(key, || Frame::Set(vec![])) {
        return reply;
    }
    if count == 0 {
        return Frame::Set(vec![]);
    }
    let db = ctx.db();
    let size = peek::<Set>(ctx.srv, db, key).map_or(0, |s| s.len() as u64);
    // The event comes first here, before the pop (spopWithCountCommand).
    ctx.notify(ev::SET, "spop", key);
    // `server.dirty += ` the members popped; the key's write counts one.
    crate::persist::adjust_changes(ctx.srv, count.min(size) as i64 - 1);
    if count >= size {
        let reply = sunion_diff_generic(ctx, std::slice::from_ref(key), None, Op::Union);
        ctx.srv.delete(db, key, DeleteCause::Del);
        ctx.notify(ev::GENERIC, "del", key);
        let verb: &[u8] = if ctx.srv.config.lazyfree_lazy_server_del {
            b"UNLINK"
        } else {
            b"DEL"
        };
        ctx.propagate_as(&[verb, key]);
        return reply;
    }
    let remaining = size - count;
    let lim = limits(ctx.srv);
    let popped = update_set(ctx.srv, db, key, |s, rng| {
        let out = if remaining * 5 > count {
            pop_some(s, count as usize, rng)
        } else {
            keep_some(s, remaining as usize, rng, &lim)
        };
        (out, true)
    });
    // Replicas remove the members drawn, in SREMs of at most 1,024.
    ctx.srv.repl.wire.prevent();
    if ctx.propagating() {
        for batch in popped.chunks(1024) {
            let mut argv: Vec<&[u8]> = vec![b"SREM", key];
            argv.extend(batch.iter().map(|m| m.as_slice()));
            ctx.also_propagate(&argv);
        }
    }
    set_reply(popped)
}

/// SPOP's CASE 2: `count` random members removed, in listpack order for a
/// listpack (one pass), else one random pop at a time.
fn pop_some(s: &mut Set, count: usize, rng: &mut fastrand::Rng) -> Vec<Vec<u8>> {
    if let Some(lp) = s.listpack() {
        let picks = sample_indices(rng, lp.len(), count);
        let out = picks.iter().map(|&i| lp[i].clone()).collect();
        s.remove_listpack_indices(&picks);
        return out;
    }
    (0..count).filter_map(|_| s.pop_random(rng)).collect()
}

/// SPOP's CASE 3: draws the `remaining` members that stay into a new set
/// (a listpack, or an intset when drawn from one), replies with what is
/// left of the old one, and replaces it.
fn keep_some(
    s: &mut Set,
    remaining: usize,
    rng: &mut fastrand::Rng,
    lim: &SetLimits,
) -> Vec<Vec<u8>> {
    let mut kept: Option<Set> = None;
    if let Some(lp) = s.listpack() {
        let picks = sample_indices(rng, lp.len(), remaining);
        let mut new = Set::new_listpack();
        for &i in &picks {
            new.add(&lp[i], lim);
        }
        s.remove_listpack_indices(&picks);
        kept = Some(new);
    } else {
        for _ in 0..remaining {
            let Some(m) = s.random(rng) else {
                break;
            };
            let new = kept.get_or_insert_with(|| match m {
                Member::Str(_) => Set::new_listpack(),
                Member::Int(_) => Set::new_intset(),
            });
            let bytes = m.to_vec();
            new.add(&bytes, lim);
            s.remove(&bytes);
        }
    }
    let out = s.members();
    if let Some(new) = kept {
        *s = new;
    }
    out
}

fn srandmember(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() == 3 {
        return srandmember_count(ctx, args);
    }
    if args.len() > 3 {
        return Frame::err(SYNTAX);
    }
    if let Err(reply) = ctx.read_or::<Set>(&args[1], || Frame::Null) {
        return reply;
    }
    let db = ctx.db();
    match peek_with_rng::<Set>(ctx.srv, db, &args[1]) {
        (Some(s), rng) => s
            .random(rng)
            .map_or(Frame::Null, |m| Frame::Bulk(m.to_vec())),
        (None, _) => Frame::Null,
    }
}

/// `srandmemberWithCountCommand`'s cases: repeats allowed (negative count,
/// or 1), the whole set (count ≥ size), distinct members in listpack order
/// (a listpack), or distinct random members of an intset or table.
fn srandmember_count(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let l = match count_arg(&args[2]) {
        Ok(n) => n,
        Err(e) => return e,
    };
    if let Err(reply) = ctx.read_or::<Set>(&args[1], || Frame::Array(vec![])) {
        return reply;
    }
    let (count, uniq) = (l.unsigned_abs(), l >= 0);
    if count == 0 {
        return Frame::Array(vec![]);
    }
    let db = ctx.db();
    let (Some(s), rng) = peek_with_rng::<Set>(ctx.srv, db, &args[1]) else {
        return Frame::Array(vec![]);
    };
    let size = s.len() as u64;
    let out: Vec<Vec<u8>> = if !uniq || count == 1 {
        if count > MAX_RANDOM_REPLY {
            return too_many_random();
        }
        (0..count)
            .filter_map(|_| s.random(rng).map(Member::to_vec))
            .collect()
    } else if count >= size {
        s.members()
    } else if let Some(lp) = s.listpack() {
        sample_indices(rng, lp.len(), count as usize)
            .into_iter()
            .map(|i| lp[i].clone())
            .collect()
    } else if count * 3 > size {
        let mut all = s.members();
        while all.len() as u64 > count {
            all.swap_remove(rng.pick(..all.len()));
        }
        all
    } else {
        let mut picked = crate::ordmap::OrdSet::new();
        let mut out = Vec::new();
        while (picked.len() as u64) < count {
            let Some(m) = s.random(rng).map(Member::to_vec) else {
                break;
            };
            if picked.insert(m.clone()) {
                out.push(m);
            }
        }
        out
    };
    Frame::Array(out.into_iter().map(Frame::Bulk).collect())
}

/// What an intersection produces.
enum Inter<'a> {
    /// The members (SINTER, SMEMBERS).
    Reply,
    /// Their number, stopping at a limit if non-zero (SINTERCARD).
    Card(u64),
    /// A set stored at this key (SINTERSTORE).
    Store(&'a [u8]),
}

/// `sinterGenericCommand`: every key is read (a missing one makes the
/// result empty, a wrong type is an error); the smallest set is walked and
/// each member tested against the others.
/// Members of the set at `key` (0 if none), for the cost model.
fn set_len(ctx: &Ctx, db: usize, key: &[u8]) -> u64 {
    peek::<Set>(ctx.srv, db, key).map_or(0, |s| s.len() as u64)
}

fn sinter_generic(ctx: &mut Ctx, keys: &[Vec<u8>], mode: Inter) -> Frame {
    let mut empty = false;
    for k in keys {
        match ctx.read_exists::<Set>(k) {
            Err(e) => return e,
            Ok(false) => empty = true,
            Ok(true) => {}
        }
    }
    let db = ctx.db();
    let lim = limits(ctx.srv);
    // The cost model's work: every set probed for each member of the smallest.
    let smallest = keys.iter().map(|k| set_len(ctx, db, k)).min().unwrap_or(0);
    ctx.visited(smallest * keys.len() as u64);
    let mut sets: Vec<(&[u8], &Set)> = Vec::with_capacity(keys.len());
    if !empty {
        for k in keys {
            match peek::<Set>(ctx.srv, db, k) {
                Some(s) => sets.push((k, s)),
                None => empty = true,
            }
        }
    }
    if empty {
        return match mode {
            Inter::Store(dst) => store(ctx, dst, Set::new_intset(), "sinterstore"),
            Inter::Card(_) => Frame::Integer(0),
            Inter::Reply => Frame::Set(vec![]),
        };
    }
    // A stable sort, smallest first: with equal sizes the first key leads.
    crate::sort::sort_by_key(&mut sets, |(_, s)| s.len());
    let (first_key, first) = sets[0];
    let common = |m: &[u8]| {
        sets[1..]
            .iter()
            .all(|(k, s)| *k == first_key || s.contains(m))
    };
    match mode {
        Inter::Card(limit) => {
            let mut n = 0u64;
            for m in first.iter() {
                if common(&m.to_vec()) {
                    n += 1;
                    if limit != 0 && n >= limit {
                        break;
                    }
                }
            }
            Frame::Integer(n as i64)
        }
        Inter::Reply => set_reply(
            first
                .iter()
                .map(Member::to_vec)
                .filter(|m| common(m))
                .collect(),
        ),
        Inter::Store(dst) => {
            let mut out = if first.is_intset() {
                Set::new_intset()
            } else {
                Set::new_listpack()
            };
            let mut only_integers = true;
            for m in first.iter().map(Member::to_vec).filter(|m| common(m)) {
                only_integers &= parse_i64(&m).is_some();
                out.add(&m, &lim);
            }
            if only_integers {
                out.maybe_convert_to_intset(&lim);
            }
            store(ctx, dst, out, "sinterstore")
        }
    }
}

fn sinter(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    sinter_generic(ctx, &args[1..], Inter::Reply)
}

fn sinterstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    sinter_generic(ctx, &args[2..], Inter::Store(&args[1]))
}

/// SINTERCARD: numkeys, then LIMIT, are checked before any key is read.
fn sintercard(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let numkeys = match range_long_arg(
        &args[1],
        1,
        i64::MAX,
        Some("numkeys should be greater than 0"),
    ) {
        Ok(n) => n as u64,
        Err(e) => return e,
    };
    if numkeys > (args.len() - 2) as u64 {
        return Frame::err("ERR Number of keys can't be greater than number of args");
    }
    let first_opt = 2 + numkeys as usize;
    let mut limit = 0u64;
    let mut j = first_opt;
    while j < args.len() {
        let more = args.len() - 1 - j;
        if opt_is(&args[j], "limit") && more > 0 {
            j += 1;
            limit = match positive_long_arg(&args[j], Some("LIMIT can't be negative")) {
                Ok(n) => n as u64,
                Err(e) => return e,
            };
        } else {
            return Frame::err(SYNTAX);
        }
        j += 1;
    }
    sinter_generic(ctx, &args[2..first_opt], Inter::Card(limit))
}

/// Union or difference.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Union,
    Diff,
}

/// `sunionDiffGenericCommand`: the result is built by adding into a fresh
/// intset, so it takes whatever encoding its members call for.
fn sunion_diff_generic(ctx: &mut Ctx, keys: &[Vec<u8>], dst: Option<&[u8]>, op: Op) -> Frame {
    for k in keys {
        if let Err(e) = ctx.read_exists::<Set>(k) {
            return e;
        }
    }
    let db = ctx.db();
    let lim = limits(ctx.srv);
    // The cost model's work: every member of every set.
    let members = keys.iter().map(|k| set_len(ctx, db, k)).sum();
    ctx.visited(members);
    let sets: Vec<Option<&Set>> = keys.iter().map(|k| peek::<Set>(ctx.srv, db, k)).collect();
    // A later key naming the first set again (Redis compares the objects).
    let sameset = sets[0].is_some() && (1..keys.len()).any(|j| keys[j] == keys[0]);
    let mut out = Set::new_intset();
    match (op, sets[0]) {
        (Op::Union, _) => {
            for s in sets.iter().flatten() {
                for m in s.iter() {
                    out.add(&m.to_vec(), &lim);
                }
            }
        }
        (Op::Diff, Some(first)) if !sameset => {
            // Algorithm 1 walks the first set testing every other; 2 copies
            // the first and removes the others. Their estimated work decides.
            let present = sets.iter().flatten();
            let one: u64 = present.clone().map(|_| first.len() as u64).sum::<u64>() / 2;
            let two: u64 = present.map(|s| s.len() as u64).sum();
            if one <= two {
                for m in first.iter().map(Member::to_vec) {
                    if !sets[1..].iter().flatten().any(|s| s.contains(&m)) {
                        out.add(&m, &lim);
                    }
                }
            } else {
                for (j, s) in sets.iter().enumerate() {
                    let Some(s) = s else { continue };
                    for m in s.iter().map(Member::to_vec) {
                        if j == 0 {
                            out.add(&m, &lim);
                        } else {
                            out.remove(&m);
                        }
                    }
                    if out.is_empty() {
                        break;
                    }
                }
            }
        }
        (Op::Diff, _) => {}
    }
    match dst {
        None => set_reply(out.members()),
        Some(dst) => {
            let event = match op {
                Op::Union => "sunionstore",
                _ => "sdiffstore",
            };
            store(ctx, dst, out, event)
        }
    }
}

fn sunion(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    sunion_diff_generic(ctx, &args[1..], None, Op::Union)
}

fn sdiff(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    sunion_diff_generic(ctx, &args[1..], None, Op::Diff)
}

fn sunionstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    sunion_diff_generic(ctx, &args[2..], Some(&args[1]), Op::Union)
}

fn sdiffstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    sunion_diff_generic(ctx, &args[2..], Some(&args[1]), Op::Diff)
}

/// SSCAN: the cursor is checked before the key, the options after it; an
/// intset or listpack comes whole with cursor 0.
fn sscan(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let cursor = match cursor_arg(&args[2]) {
        Ok(c) => c,
        Err(e) => return e,
    };
    if let Err(reply) = ctx.read_or::<Set>(&args[1], || scan_reply(0, vec![])) {
        return reply;
    }
    let opts = match scan_opts(args, 3, false) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let db = ctx.db();
    let Some(s) = peek::<Set>(ctx.srv, db, &args[1]) else {
        return scan_reply(0, vec![]);
    };
    let mut items = Vec::new();
    if s.is_intset() || s.is_listpack() {
        for m in s.iter().map(Member::to_vec) {
            if opts.matches(&m) {
                items.push(m);
            }
        }
        return scan_reply(0, items);
    }
    let next = scan_steps(cursor, opts.count, opts.count.saturating_mul(10), |c| {
        let mut seen = 0;
        let next = s.scan_table(c, |m| {
            seen += 1;
            if opts.matches(m) {
                items.push(m.to_vec());
            }
        });
        (next, seen)
    });
    scan_reply(next, items)
}

#[cfg(test)]
mod tests {
    use crate::cmd::testing::{engine, run};
    use crate::rng::Pick;
    use crate::{Engine, Frame};

    fn bulks(f: &Frame) -> Vec<String> {
        match f {
            Frame::Array(v) | Frame::Set(v) => v
                .iter()
                .map(|x| match x {
                    Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
                    other => panic!("bulk expected, got {other:?}"),
                })
                .collect(),
            other => panic!("array expected, got {other:?}"),
        }
    }

    /// True if `sub` appears in `all` in the same relative order.
    fn is_subsequence(sub: &[String], all: &[String]) -> bool {
        let mut it = all.iter();
        sub.iter().all(|s| it.any(|a| a == s))
    }

    /// Orders 7.2 defines and 7.0 cannot show (it has no listpack sets):
    /// a union is built by adding into an intset, which turns into a
    /// listpack holding its integers in ascending order at the first string.
    #[test]
    fn union_and_difference_orders_follow_the_intset_start() {
        let (mut e, c) = engine(1);
        run(&mut e, c, &["SADD", "lp", "b", "3", "1", "a"]);
        run(&mut e, c, &["SADD", "lp2", "3", "1", "b", "a"]);
        run(&mut e, c, &["SADD", "is", "9", "2"]);
        let orders: [(&[&str], [&str; 4]); 6] = [
            (&["SMEMBERS", "lp"], ["b", "3", "1", "a"]),
            (&["SUNION", "lp"], ["b", "3", "1", "a"]),
            (&["SUNION", "lp2"], ["1", "3", "b", "a"]),
            (&["SDIFF", "lp2", "is"], ["1", "3", "b", "a"]),
            (&["SINTER", "lp2", "lp"], ["1", "3", "b", "a"]),
            // Equal sizes: the first key named is walked.
            (&["SINTER", "lp", "lp2"], ["b", "3", "1", "a"]),
        ];
        for (args, want) in orders {
            assert_eq!(bulks(&run(&mut e, c, args)), want, "{args:?}");
        }
        assert_eq!(
            bulks(&run(&mut e, c, &["SUNION", "is", "lp2"])),
            ["1", "2", "3", "9", "b", "a"]
        );
        // SPOP of the whole set replies in the union's order and deletes it.
        assert_eq!(
            bulks(&run(&mut e, c, &["SPOP", "lp2", "10"])),
            ["1", "3", "b", "a"]
        );
        assert_eq!(run(&mut e, c, &["EXISTS", "lp2"]), Frame::Integer(0));
    }

    /// Distinct picks from a listpack come in listpack order (selection
    /// sampling), for SRANDMEMBER, SPOP and HRANDFIELD alike; repeats come
    /// in random order.
    #[test]
    fn listpack_samples_keep_listpack_order() {
        let (mut e, c) = engine(7);
        let members: Vec<String> = (0..40).map(|i| format!("m{}", (i * 17) % 40)).collect();
        let mut sadd = vec!["SADD", "s"];
        sadd.extend(members.iter().map(String::as_str));
        run(&mut e, c, &sadd);
        let mut hset = vec!["HSET", "h"];
        for m in &members {
            hset.push(m);
            hset.push("v");
        }
        run(&mut e, c, &hset);
        let mut any_unordered_repeat = false;
        for round in 0..30 {
            let pick = bulks(&run(&mut e, c, &["SRANDMEMBER", "s", "7"]));
            assert_eq!(pick.len(), 7);
            assert!(is_subsequence(&pick, &members), "round {round}: {pick:?}");
            let fields = bulks(&run(&mut e, c, &["HRANDFIELD", "h", "5"]));
            assert!(is_subsequence(&fields, &members), "{fields:?}");
            let rep = bulks(&run(&mut e, c, &["SRANDMEMBER", "s", "-7"]));
            any_unordered_repeat |= !is_subsequence(&rep, &members);
        }
        assert!(any_unordered_repeat, "negative counts draw in random order");
        let now: Vec<String> = bulks(&run(&mut e, c, &["SMEMBERS", "s"]));
        let popped = bulks(&run(&mut e, c, &["SPOP", "s", "5"]));
        assert!(is_subsequence(&popped, &now), "{popped:?}");
        let left = bulks(&run(&mut e, c, &["SMEMBERS", "s"]));
        assert_eq!(left.len(), 35);
        assert!(is_subsequence(&left, &now), "the rest keeps its order");
    }

    /// The same seed draws the same members; another seed, others.
    #[test]
    fn random_replies_are_deterministic() {
        let draw = |seed: u64| {
            let (mut e, c) = engine(seed);
            let members: Vec<String> = (0..300).map(|i| format!("m{i}")).collect();
            let mut sadd = vec!["SADD", "s"];
            sadd.extend(members.iter().map(String::as_str));
            run(&mut e, c, &sadd);
            let mut out = Vec::new();
            for args in [
                &["SRANDMEMBER", "s", "-5"][..],
                &["SRANDMEMBER", "s", "5"],
                &["SPOP", "s", "3"],
                &["SPOP", "s"],
            ] {
                out.push(run(&mut e, c, args));
            }
            out
        };
        assert_eq!(draw(11), draw(11));
        assert_ne!(draw(11), draw(12));
    }

    #[test]
    fn huge_negative_counts_are_refused_not_built() {
        let (mut e, c) = engine(1);
        run(&mut e, c, &["SADD", "s", "a"]);
        run(&mut e, c, &["HSET", "h", "f", "v"]);
        for args in [
            &["SRANDMEMBER", "s", "-9223372036854775807"][..],
            &["HRANDFIELD", "h", "-9223372036854775807"],
            &["HRANDFIELD", "h", "-4611686018427387903", "WITHVALUES"],
        ] {
            let r = run(&mut e, c, args);
            assert!(r.is_error(), "{args:?}: {r:?}");
        }
        assert_eq!(
            bulks(&run(&mut e, c, &["SRANDMEMBER", "s", "-1000000"])).len(),
            1_000_000
        );
        // A missing key still answers with the empty array.
        assert_eq!(
            run(&mut e, c, &["SRANDMEMBER", "nokey", "-9223372036854775807"]),
            Frame::Array(vec![])
        );
    }

    /// The keyspace's byte count, kept incrementally on every write, equals
    /// a recount from scratch after a random mix of hash and set commands,
    /// and goes back to the empty database's once every key is deleted.
    #[test]
    fn memory_accounting_stays_exact() {
        let (mut e, c) = engine(5);
        let empty = e.server().used_memory();
        let mut rng = fastrand::Rng::with_seed(9);
        let keys = ["a", "b", "c"];
        let members: Vec<String> = (0..300)
            .map(|i| match i % 3 {
                0 => i.to_string(),
                1 => format!("member-{i}"),
                _ => "x".repeat(i % 90),
            })
            .collect();
        let recount = |e: &Engine| {
            let db = &e.server().dbs[0];
            let entries: usize = db.dict.iter().map(|(k, o)| o.entry_size(k)).sum();
            entries
                + db.expires.len() * crate::keyspace::memory::expire_entry_size()
                + 8 * (db.dict.buckets() + db.expires.buckets())
        };
        for step in 0..6000 {
            let k = keys[rng.pick(..keys.len())];
            let m = &members[rng.pick(..members.len())];
            let k2 = keys[rng.pick(..keys.len())];
            let args: Vec<&str> = match rng.u8(..14) {
                0..=2 => vec!["SADD", k, m],
                3 => vec!["SREM", k, m],
                4 => vec!["SPOP", k, ["1", "5", "50"][rng.pick(..3)]],
                5 => vec!["SINTERSTORE", k, k2, k],
                6 => vec!["SUNIONSTORE", k, k2, k],
                7 => vec!["SDIFFSTORE", k2, k, k2],
                8 => vec!["SMOVE", k, k2, m],
                9..=10 => vec!["HSET", k, m, m],
                11 => vec!["HDEL", k, m],
                12 => vec!["HINCRBYFLOAT", k, m, "1.5"],
                _ => vec!["DEL", k],
            };
            run(&mut e, c, &args);
            if step % 97 == 0 {
                run(
                    &mut e,
                    c,
                    &[
                        "CONFIG",
                        "SET",
                        "set-max-intset-entries",
                        ["3", "512"][rng.pick(..2)],
                    ],
                );
            }
            assert_eq!(
                e.server().dbs[0].memory(),
                recount(&e),
                "step {step}: {args:?}"
            );
        }
        for k in keys {
            run(&mut e, c, &["DEL", k]);
        }
        let db = &e.server().dbs[0];
        assert_eq!(
            e.server().used_memory(),
            empty + 8 * db.dict.buckets() as u64,
            "only the main table's buckets remain"
        );
    }
}
