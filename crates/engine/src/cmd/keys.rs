//! Keyspace commands: DEL, UNLINK, EXISTS, TYPE, RENAME, RENAMENX, TOUCH, RANDOMKEY, KEYS and SCAN, and the OBJECT container's entry (db.c, expire.c; OBJECT's subcommands are in `object`).
//!
//! Which lookup each command uses is part of Redis' observable behaviour:
//! EXISTS, TYPE and OBJECT count keyspace hits and misses but leave the
//! LRU/LFU field alone; TOUCH counts and touches; DEL, KEYS and RANDOMKEY do
//! neither. KEYS skips logically expired keys without deleting them, while
//! SCAN and RANDOMKEY reclaim the expired keys they come across.

use super::scan::{cursor_arg, scan_opts, scan_reply, scan_steps};
use super::table::{commands, container, Command, Ctx};
use crate::glob;
use crate::proto::resp::Frame;
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;
use crate::server::Lookup;

pub(super) static COMMANDS: &[Command] = commands! { group: "generic";
    "del" => del, arity: -2, flags: [WRITE], keys: (1, -1, 1), acl: [KEYSPACE, WRITE, SLOW], since: "1.0.0",
        syntax: "DEL key [key ...]", summary: "Deletes keys; replies with how many existed.";
    "unlink" => unlink, arity: -2, flags: [WRITE, FAST], keys: (1, -1, 1), acl: [KEYSPACE, WRITE, FAST], since: "4.0.0",
        syntax: "UNLINK key [key ...]", summary: "Deletes keys, freeing large values in the background; replies with how many existed.";
    "exists" => exists, arity: -2, flags: [READONLY, FAST], keys: (1, -1, 1), acl: [KEYSPACE, READ, FAST], since: "1.0.0",
        syntax: "EXISTS key [key ...]", summary: "Counts how many of the given keys exist, repeats counted each time.";
    "type" => type_cmd, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [KEYSPACE, READ, FAST], since: "1.0.0",
        syntax: "TYPE key", summary: "Replies with the type of the value at a key, or none.";
    "rename" => rename, arity: 3, flags: [WRITE], keys: (1, 2, 1), acl: [KEYSPACE, WRITE, SLOW], since: "1.0.0",
        syntax: "RENAME key newkey", summary: "Moves a key's value and TTL to a new name, replacing whatever was there.";
    "renamenx" => renamenx, arity: 3, flags: [WRITE, FAST], keys: (1, 2, 1), acl: [KEYSPACE, WRITE, FAST], since: "1.0.0",
        syntax: "RENAMENX key newkey", summary: "Renames a key only if the new name is free; replies 1 if renamed.";
    "touch" => touch, arity: -2, flags: [READONLY, FAST], keys: (1, -1, 1), acl: [KEYSPACE, READ, FAST], since: "3.2.1",
        syntax: "TOUCH key [key ...]", summary: "Marks keys as just accessed; replies with how many exist.";
    "randomkey" => randomkey, arity: 1, flags: [READONLY], acl: [KEYSPACE, READ, SLOW], since: "1.0.0",
        syntax: "RANDOMKEY", summary: "Replies with a random key name, reclaiming expired keys it draws.";
    "keys" => keys, arity: 2, flags: [READONLY], acl: [KEYSPACE, READ, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "KEYS pattern", summary: "Replies with every key matching a glob pattern, in one blocking pass.";
    "scan" => scan, arity: -2, flags: [READONLY], acl: [KEYSPACE, READ, SLOW], since: "2.8.0",
        syntax: "SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]", summary: "Walks the keyspace a few buckets at a time with a cursor.";
    "object" => container, arity: -2, flags: [], acl: [SLOW], since: "2.2.3",
        syntax: "OBJECT <ENCODING | FREQ | IDLETIME | REFCOUNT | HELP> [key]", summary: "Inspects how a key's value is stored: encoding, access statistics, references.", subcommands: super::object::SUBCOMMANDS;
};

fn del(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    del_generic(ctx, args, DeleteCause::Del)
}

fn unlink(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    del_generic(ctx, args, DeleteCause::Unlink)
}

/// `delGenericCommand`: UNLINK frees big values in the background, DEL
/// too when `lazyfree-lazy-user-del` is on.
fn del_generic(ctx: &mut Ctx, args: &[Vec<u8>], cause: DeleteCause) -> Frame {
    let db = ctx.db();
    let lazy = cause == DeleteCause::Unlink || ctx.srv.config.lazyfree_lazy_user_del;
    let mut n = 0;
    for k in &args[1..] {
        if ctx.srv.delete_freeing(db, k, cause, Some(lazy)) {
            ctx.notify(ev::GENERIC, "del", k);
            n += 1;
        }
    }
    Frame::Integer(n)
}

fn exists(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let n = args[1..]
        .iter()
        .filter(|k| ctx.srv.lookup(db, k, Lookup::READ_NOTOUCH).is_some())
        .count();
    Frame::Integer(n as i64)
}

fn type_cmd(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let name = ctx
        .srv
        .lookup(db, &args[1], Lookup::READ_NOTOUCH)
        .map_or("none", |o| o.value.type_name());
    Frame::Simple(name.into())
}

fn touch(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    // TOUCH touches even for a CLIENT NO-TOUCH client: that is its purpose.
    ctx.srv.no_touch = false;
    let n = args[1..]
        .iter()
        .filter(|k| ctx.srv.lookup_read(db, k).is_some())
        .count();
    Frame::Integer(n as i64)
}

fn rename(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    rename_generic(ctx, args, false)
}

fn renamenx(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    rename_generic(ctx, args, true)
}

/// `renameGenericCommand`. The value moves with its TTL; like `dbAdd`, the
/// new key gets a fresh LRU/LFU field.
fn rename_generic(ctx: &mut Ctx, args: &[Vec<u8>], nx: bool) -> Frame {
    let db = ctx.db();
    let (src, dst) = (&args[1], &args[2]);
    if ctx.srv.lookup_write(db, src).is_none() {
        return Frame::err("ERR no such key");
    }
    let done = if nx { Frame::Integer(1) } else { Frame::ok() };
    if src == dst {
        return if nx { Frame::Integer(0) } else { done };
    }
    let expire = ctx.srv.dbs[db].expire_at(src);
    if ctx.srv.lookup_write(db, dst).is_some() {
        if nx {
            return Frame::Integer(0);
        }
        ctx.srv.delete(db, dst, DeleteCause::Rename);
    }
    // Cloned rather than moved so that the source goes through the
    // server's ordinary delete path and its bookkeeping.
    let Some(value) = ctx.srv.dbs[db].get(src).map(|o| o.value.clone()) else {
        return Frame::err("ERR no such key");
    };
    ctx.srv.set_key(db, dst, value, false);
    if let Some(when) = expire {
        ctx.srv.set_expire(db, dst, when);
    }
    // The value lives on under `dst`: nothing is freed.
    ctx.srv.delete_freeing(db, src, DeleteCause::Rename, None);
    ctx.notify(ev::GENERIC, "rename_from", src);
    ctx.notify(ev::GENERIC, "rename_to", dst);
    // One change for the rename, not one per key.
    crate::persist::adjust_changes(ctx.srv, -1);
    done
}

/// `dbRandomKey`: a fair random pick; an expired pick is reclaimed and the
/// draw repeated (a master always makes progress, so this terminates).
fn randomkey(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    loop {
        let srv = &mut *ctx.srv;
        let Some((key, _)) = srv.dbs[db].dict.fair_random_entry(&mut srv.rng) else {
            return Frame::Null;
        };
        let key = key.to_vec();
        if srv.dbs[db].expires.contains(&key) && srv.expire_if_needed(db, &key) {
            continue;
        }
        return Frame::Bulk(key);
    }
}

/// Every key in bucket order, as Redis' dictionary iterator yields them.
fn all_keys_in_bucket_order(srv: &crate::server::Server, db: usize) -> Vec<Vec<u8>> {
    let dict = &srv.dbs[db].dict;
    let mut out = Vec::with_capacity(dict.len());
    if dict.is_empty() {
        return out;
    }
    let mut cursor = 0;
    loop {
        cursor = dict.scan(cursor, |k, _| out.push(k.to_vec()));
        if cursor == 0 {
            return out;
        }
    }
}

fn keys(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let pattern = &args[1];
    let all = pattern.as_slice() == b"*";
    let srv = &*ctx.srv;
    let every = all_keys_in_bucket_order(srv, db);
    let examined = every.len() as u64;
    let out = every
        .into_iter()
        .filter(|k| (all || glob::matches(pattern, k, false)) && !srv.key_is_expired(db, k))
        .map(Frame::Bulk)
        .collect();
    // The cost model: every key is examined, matched or not.
    ctx.visited(examined);
    Frame::Array(out)
}

/// Type names SCAN TYPE recognises (`obj_type_name`).
const TYPE_NAMES: &[&str] = &["string", "list", "set", "zset", "hash", "stream"];

fn scan(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let cursor = match cursor_arg(&args[1]) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let opts = match scan_opts(args, 2, true) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let db = ctx.db();
    let mut found: Vec<Vec<u8>> = Vec::new();
    let dict = &ctx.srv.dbs[db].dict;
    let mut examined = 0;
    let cursor = scan_steps(cursor, opts.count, opts.count.wrapping_mul(10), |c| {
        if dict.is_empty() {
            return (0, 0);
        }
        let mut seen = 0;
        let next = dict.scan(c, |k, _| {
            seen += 1;
            if opts.matches(k) {
                found.push(k.to_vec());
            }
        });
        examined += seen as u64;
        (next, seen)
    });
    // The cost model: keys examined, matched or not.
    ctx.visited(examined);
    let srv = &mut *ctx.srv;
    found.retain(|k| match opts.type_name {
        Some(t) => srv
            .lookup(db, k, Lookup::READ_NOTOUCH_NONOTIFY)
            .is_some_and(|o| {
                let name = o.value.type_name();
                name.as_bytes().eq_ignore_ascii_case(t) && TYPE_NAMES.contains(&name)
            }),
        None => !srv.expire_if_needed(db, k),
    });
    scan_reply(cursor, found)
}

#[cfg(test)]
mod tests {
    use crate::cmd::testing::{engine, run};
    use crate::Frame;

    #[test]
    fn scan_visits_every_key_once_on_a_stable_table() {
        let (mut e, c) = engine(3);
        for i in 0..500 {
            run(&mut e, c, &["SET", &format!("k{i}"), "v"]);
        }
        let mut seen = std::collections::BTreeSet::new();
        let mut cursor = "0".to_string();
        let mut pages = 0;
        loop {
            let Frame::Array(parts) = run(&mut e, c, &["SCAN", &cursor, "COUNT", "7"]) else {
                panic!("SCAN replies with an array");
            };
            let (Frame::Bulk(next), Frame::Array(keys)) = (&parts[0], &parts[1]) else {
                panic!("SCAN reply shape");
            };
            for k in keys {
                let Frame::Bulk(k) = k else { panic!("key") };
                assert!(seen.insert(k.clone()), "duplicate on a stable table");
            }
            pages += 1;
            cursor = String::from_utf8(next.clone()).expect("ascii cursor");
            if cursor == "0" {
                break;
            }
        }
        assert_eq!(seen.len(), 500);
        assert!(pages > 500 / 30, "COUNT bounds the page size");
    }

    #[test]
    fn rename_moves_ttl_and_resets_lru() {
        let (mut e, c) = engine(3);
        run(&mut e, c, &["SET", "a", "v", "PX", "100000"]);
        let when = e.server().dbs[0].expire_at(b"a");
        e.advance_by(3_000_000);
        assert_eq!(run(&mut e, c, &["RENAME", "a", "b"]), Frame::ok());
        assert_eq!(e.server().dbs[0].expire_at(b"b"), when);
        assert!(e.server().dbs[0].get(b"a").is_none());
        assert_eq!(
            run(&mut e, c, &["OBJECT", "IDLETIME", "b"]),
            Frame::Integer(0)
        );
    }
}
