//! Keyspace commands: DEL, UNLINK, EXISTS, TYPE, RENAME, RENAMENX, TOUCH, RANDOMKEY, KEYS, SCAN and OBJECT (db.c, object.c, expire.c).
//!
//! Which lookup each command uses is part of Redis' observable behaviour:
//! EXISTS, TYPE and OBJECT count keyspace hits and misses but leave the
//! LRU/LFU field alone; TOUCH counts and touches; DEL, KEYS and RANDOMKEY do
//! neither. KEYS skips logically expired keys without deleting them, while
//! SCAN and RANDOMKEY reclaim the expired keys they come across.

use super::strings::{cstr, opt_is};
use super::{arg_i64, Command, Ctx, SYNTAX};
use crate::glob;
use crate::keyspace::object::{RString, Value};
use crate::proto::resp::Frame;
use crate::server::config::Policy;
use crate::server::trace::DeleteCause;
use crate::server::Lookup;

/// Defines one generic-group command entry.
macro_rules! key_cmd {
    ($name:literal, $arity:expr, [$($flag:literal),*], $keys:expr, [$($acl:literal),*],
     $syntax:literal, $summary:literal, $since:literal, $handler:expr) => {
        Command {
            name: $name,
            arity: $arity,
            flags: &[$($flag),*],
            keys: $keys,
            acl: &[$($acl),*],
            syntax: $syntax,
            summary: $summary,
            since: $since,
            group: "generic",
            handler: $handler,
            subcommands: &[],
        }
    };
}

pub static COMMANDS: &[Command] = &[
    key_cmd!(
        "del",
        -2,
        ["write"],
        (1, -1, 1),
        ["keyspace", "write", "slow"],
        "DEL key [key ...]",
        "Deletes keys; replies with how many existed.",
        "1.0.0",
        del
    ),
    key_cmd!(
        "unlink",
        -2,
        ["write", "fast"],
        (1, -1, 1),
        ["keyspace", "write", "fast"],
        "UNLINK key [key ...]",
        "Deletes keys, freeing large values in the background; replies with how many existed.",
        "4.0.0",
        unlink
    ),
    key_cmd!(
        "exists",
        -2,
        ["readonly", "fast"],
        (1, -1, 1),
        ["keyspace", "read", "fast"],
        "EXISTS key [key ...]",
        "Counts how many of the given keys exist, repeats counted each time.",
        "1.0.0",
        exists
    ),
    key_cmd!(
        "type",
        2,
        ["readonly", "fast"],
        (1, 1, 1),
        ["keyspace", "read", "fast"],
        "TYPE key",
        "Replies with the type of the value at a key, or none.",
        "1.0.0",
        type_cmd
    ),
    key_cmd!(
        "rename",
        3,
        ["write"],
        (1, 2, 1),
        ["keyspace", "write", "slow"],
        "RENAME key newkey",
        "Moves a key's value and TTL to a new name, replacing whatever was there.",
        "1.0.0",
        rename
    ),
    key_cmd!(
        "renamenx",
        3,
        ["write", "fast"],
        (1, 2, 1),
        ["keyspace", "write", "fast"],
        "RENAMENX key newkey",
        "Renames a key only if the new name is free; replies 1 if renamed.",
        "1.0.0",
        renamenx
    ),
    key_cmd!(
        "touch",
        -2,
        ["readonly", "fast"],
        (1, -1, 1),
        ["keyspace", "read", "fast"],
        "TOUCH key [key ...]",
        "Marks keys as just accessed; replies with how many exist.",
        "3.2.1",
        touch
    ),
    key_cmd!(
        "randomkey",
        1,
        ["readonly"],
        (0, 0, 0),
        ["keyspace", "read", "slow"],
        "RANDOMKEY",
        "Replies with a random key name, reclaiming expired keys it draws.",
        "1.0.0",
        randomkey
    ),
    key_cmd!(
        "keys",
        2,
        ["readonly"],
        (0, 0, 0),
        ["keyspace", "read", "slow", "dangerous"],
        "KEYS pattern",
        "Replies with every key matching a glob pattern, in one blocking pass.",
        "1.0.0",
        keys
    ),
    key_cmd!(
        "scan",
        -2,
        ["readonly"],
        (0, 0, 0),
        ["keyspace", "read", "slow"],
        "SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]",
        "Walks the keyspace a few buckets at a time with a cursor.",
        "2.8.0",
        scan
    ),
    Command {
        name: "object",
        arity: -2,
        flags: &[],
        keys: (0, 0, 0),
        acl: &["slow"],
        syntax: "OBJECT <ENCODING | FREQ | IDLETIME | REFCOUNT | HELP> [key]",
        summary: "Inspects how a key's value is stored: encoding, access statistics, references.",
        since: "2.2.3",
        group: "generic",
        handler: super::container,
        subcommands: OBJECT_SUBCOMMANDS,
    },
];

/// OBJECT's subcommands, in the order Redis lists them.
static OBJECT_SUBCOMMANDS: &[Command] = &[
    key_cmd!(
        "help",
        2,
        ["loading", "stale"],
        (0, 0, 0),
        ["keyspace", "slow"],
        "OBJECT HELP",
        "Lists OBJECT's subcommands.",
        "6.2.0",
        object_help
    ),
    key_cmd!(
        "freq",
        3,
        ["readonly"],
        (2, 2, 1),
        ["keyspace", "read", "slow"],
        "OBJECT FREQ key",
        "Replies with the key's logarithmic access counter (LFU policies only).",
        "4.0.0",
        object_freq
    ),
    key_cmd!(
        "encoding",
        3,
        ["readonly"],
        (2, 2, 1),
        ["keyspace", "read", "slow"],
        "OBJECT ENCODING key",
        "Replies with the internal representation of the key's value.",
        "2.2.3",
        object_encoding
    ),
    key_cmd!(
        "idletime",
        3,
        ["readonly"],
        (2, 2, 1),
        ["keyspace", "read", "slow"],
        "OBJECT IDLETIME key",
        "Replies with the seconds since the key was last accessed (LRU policies only).",
        "2.2.3",
        object_idletime
    ),
    key_cmd!(
        "refcount",
        3,
        ["readonly"],
        (2, 2, 1),
        ["keyspace", "read", "slow"],
        "OBJECT REFCOUNT key",
        "Replies with how many references the key's value has.",
        "2.2.3",
        object_refcount
    ),
];

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
    let n = args[1..]
        .iter()
        .filter(|k| ctx.srv.delete_freeing(db, k, cause, Some(lazy)))
        .count();
    Frame::Integer(n as i64)
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
    let out = all_keys_in_bucket_order(srv, db)
        .into_iter()
        .filter(|k| (all || glob::matches(pattern, k, false)) && !srv.key_is_expired(db, k))
        .map(Frame::Bulk)
        .collect();
    Frame::Array(out)
}

/// `parseScanCursorOrReply`: C's `strtoul` in base 10 over the whole
/// argument. It allows a sign (`-1` wraps to 2^64-1), leading zeros and an
/// empty string (cursor 0), but no leading space and no overflow.
fn parse_cursor(arg: &[u8]) -> Option<u64> {
    // strtoul stops at a NUL, and Redis takes that for the end of the argument.
    let s = cstr(arg);
    if s.is_empty() {
        return Some(0);
    }
    if matches!(s[0], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        return None;
    }
    let (neg, digits) = match s[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

/// Type names SCAN TYPE recognises (`obj_type_name`).
const TYPE_NAMES: &[&str] = &["string", "list", "set", "zset", "hash", "stream"];

fn scan(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let Some(mut cursor) = parse_cursor(&args[1]) else {
        return Frame::err("ERR invalid cursor");
    };
    let mut count: i64 = 10;
    let mut pattern: Option<&[u8]> = None;
    let mut type_name: Option<&[u8]> = None;
    let mut i = 2;
    while i < args.len() {
        let more = args.len() - i;
        if opt_is(&args[i], "count") && more >= 2 {
            count = match arg_i64(&args[i + 1]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            if count < 1 {
                return Frame::err(SYNTAX);
            }
        } else if opt_is(&args[i], "match") && more >= 2 {
            let p = args[i + 1].as_slice();
            // Exactly "*" always matches: same as no pattern.
            pattern = (p != b"*").then_some(p);
        } else if opt_is(&args[i], "type") && more >= 2 {
            type_name = Some(cstr(&args[i + 1]));
        } else {
            return Frame::err(SYNTAX);
        }
        i += 2;
    }

    let db = ctx.db();
    let mut found: Vec<Vec<u8>> = Vec::new();
    {
        let dict = &ctx.srv.dbs[db].dict;
        let mut sampled: i64 = 0;
        // A sparse table could make a page cost a full walk: cap the buckets visited.
        let mut max_iterations = count.wrapping_mul(10);
        loop {
            cursor = if dict.is_empty() {
                0
            } else {
                dict.scan(cursor, |k, _| {
                    sampled += 1;
                    if pattern.is_none_or(|p| glob::matches(p, k, false)) {
                        found.push(k.to_vec());
                    }
                })
            };
            if cursor == 0 {
                break;
            }
            let budget_left = max_iterations != 0;
            max_iterations = max_iterations.wrapping_sub(1);
            if !budget_left || sampled >= count {
                break;
            }
        }
    }

    let srv = &mut *ctx.srv;
    found.retain(|k| match type_name {
        Some(t) => srv.lookup(db, k, Lookup::READ_NOTOUCH).is_some_and(|o| {
            let name = o.value.type_name();
            name.as_bytes().eq_ignore_ascii_case(t) && TYPE_NAMES.contains(&name)
        }),
        None => !srv.expire_if_needed(db, k),
    });
    Frame::Array(vec![
        Frame::Bulk((cursor as i64).to_string().into_bytes()),
        Frame::Array(found.into_iter().map(Frame::Bulk).collect()),
    ])
}

/// `objectCommandLookup`: counts a hit or miss but does not touch the key.
fn object_lookup<'a>(ctx: &'a mut Ctx, key: &[u8]) -> Option<&'a mut crate::keyspace::object::Obj> {
    let db = ctx.db();
    ctx.srv.lookup(db, key, Lookup::READ_NOTOUCH)
}

/// The live key's `lru` field (after lazy expiry), which the keyspace keeps
/// beside the key's chain link rather than in its object.
fn object_lru(ctx: &mut Ctx, key: &[u8]) -> Option<u32> {
    object_lookup(ctx, key)?;
    ctx.srv.dbs[ctx.db()].lru(key)
}

fn object_help(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let lines = [
        "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        "HELP",
        "    Print this help.",
    ];
    Frame::Array(lines.iter().map(|l| Frame::simple(l.to_string())).collect())
}

fn object_encoding(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match object_lookup(ctx, &args[2]) {
        None => Frame::Null,
        Some(o) => Frame::bulk(o.value.encoding()),
    }
}

/// Whether small integers are shared objects (`canUseSharedObject`): not
/// when maxmemory is set with an LRU or LFU policy, since the shared object
/// would carry one access time for many keys.
fn shared_integers_allowed(srv: &crate::server::Server) -> bool {
    let lru_or_lfu = matches!(
        srv.config.maxmemory_policy,
        Policy::AllKeysLru | Policy::VolatileLru | Policy::AllKeysLfu | Policy::VolatileLfu
    );
    srv.config.maxmemory == 0 || !lru_or_lfu
}

/// `OBJ_SHARED_INTEGERS`: integers below this are shared objects.
const SHARED_INTEGERS: i64 = 10_000;
/// `OBJ_SHARED_REFCOUNT`: the refcount shared objects report.
const SHARED_REFCOUNT: i64 = i32::MAX as i64;

fn object_refcount(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let shared_ok = shared_integers_allowed(ctx.srv);
    match object_lookup(ctx, &args[2]) {
        None => Frame::Null,
        Some(o) => match &o.value {
            // Derived from the current config: Redis decides when the value
            // is created, which differs only if the policy changed since.
            Value::String(RString::Int(n)) if shared_ok && (0..SHARED_INTEGERS).contains(n) => {
                Frame::Integer(SHARED_REFCOUNT)
            }
            _ => Frame::Integer(1),
        },
    }
}

fn object_idletime(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let lfu = ctx.srv.config.maxmemory_policy.is_lfu();
    let clock = ctx.srv.lruclock;
    let Some(lru) = object_lru(ctx, &args[2]) else {
        return Frame::Null;
    };
    if lfu {
        return Frame::err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
    }
    // `estimateObjectIdleTime`, in seconds (one LRU clock tick each).
    let idle = if clock >= lru {
        clock - lru
    } else {
        clock + (crate::keyspace::object::LRU_CLOCK_MAX - lru)
    };
    Frame::Integer(idle as i64)
}

fn object_freq(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let lfu = ctx.srv.config.maxmemory_policy.is_lfu();
    let Some(lru) = object_lru(ctx, &args[2]) else {
        return Frame::Null;
    };
    if !lfu {
        return Frame::err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
    }
    Frame::Integer(ctx.srv.lfu_decayed(lru) as i64)
}

#[cfg(test)]
mod tests {
    use super::parse_cursor;
    use crate::{Engine, Frame};

    fn run(e: &mut Engine, c: u64, args: &[&str]) -> Frame {
        let v: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        e.execute(c, &v)
    }

    #[test]
    fn cursor_parsing_is_strtoul() {
        assert_eq!(parse_cursor(b""), Some(0));
        assert_eq!(parse_cursor(b"0"), Some(0));
        assert_eq!(parse_cursor(b"007"), Some(7));
        assert_eq!(parse_cursor(b"+5"), Some(5));
        assert_eq!(parse_cursor(b"-1"), Some(u64::MAX));
        assert_eq!(parse_cursor(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_cursor(b"18446744073709551616"), None);
        assert_eq!(parse_cursor(b" 1"), None);
        assert_eq!(parse_cursor(b"1 "), None);
        assert_eq!(parse_cursor(b"x"), None);
        assert_eq!(parse_cursor(b"-"), None);
        assert_eq!(parse_cursor(b"5\x00junk"), Some(5));
    }

    #[test]
    fn scan_visits_every_key_once_on_a_stable_table() {
        let mut e = Engine::new(3);
        let c = e.connect("t");
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
    fn object_does_not_touch_but_touch_does() {
        let mut e = Engine::new(3);
        let c = e.connect("t");
        run(&mut e, c, &["SET", "k", "v"]);
        e.advance_by(5_000_000);
        assert_eq!(
            run(&mut e, c, &["OBJECT", "IDLETIME", "k"]),
            Frame::Integer(5)
        );
        run(&mut e, c, &["TYPE", "k"]);
        run(&mut e, c, &["EXISTS", "k"]);
        assert_eq!(
            run(&mut e, c, &["OBJECT", "IDLETIME", "k"]),
            Frame::Integer(5)
        );
        run(&mut e, c, &["TOUCH", "k"]);
        assert_eq!(
            run(&mut e, c, &["OBJECT", "IDLETIME", "k"]),
            Frame::Integer(0)
        );
        assert_eq!(
            run(&mut e, c, &["OBJECT", "FREQ", "k"]),
            Frame::err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
        );
    }

    #[test]
    fn rename_moves_ttl_and_resets_lru() {
        let mut e = Engine::new(3);
        let c = e.connect("t");
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
