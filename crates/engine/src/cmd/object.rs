//! OBJECT's subcommands (object.c): ENCODING, FREQ, IDLETIME, REFCOUNT and HELP, which inspect how a key's value is stored without touching it.
//!
//! OBJECT counts a keyspace hit or miss but leaves the key's LRU/LFU field
//! alone, so inspecting a key does not change what eviction sees.

use super::replies::help_reply;
use super::table::{commands, Command, Ctx};
use crate::keyspace::object::{Obj, RString, Value};
use crate::proto::resp::Frame;
use crate::server::config::Policy;
use crate::server::{Lookup, Server};

/// OBJECT's subcommands, in the order Redis lists them.
pub(super) static SUBCOMMANDS: &[Command] = commands! { group: "generic";
    "help" => object_help, arity: 2, flags: [LOADING, STALE], acl: [KEYSPACE, SLOW], since: "6.2.0",
        syntax: "OBJECT HELP", summary: "Lists OBJECT's subcommands.";
    "freq" => object_freq, arity: 3, flags: [READONLY], keys: (2, 2, 1), acl: [KEYSPACE, READ, SLOW], since: "4.0.0",
        syntax: "OBJECT FREQ key", summary: "Replies with the key's logarithmic access counter (LFU policies only).";
    "encoding" => object_encoding, arity: 3, flags: [READONLY], keys: (2, 2, 1), acl: [KEYSPACE, READ, SLOW], since: "2.2.3",
        syntax: "OBJECT ENCODING key", summary: "Replies with the internal representation of the key's value.";
    "idletime" => object_idletime, arity: 3, flags: [READONLY], keys: (2, 2, 1), acl: [KEYSPACE, READ, SLOW], since: "2.2.3",
        syntax: "OBJECT IDLETIME key", summary: "Replies with the seconds since the key was last accessed (LRU policies only).";
    "refcount" => object_refcount, arity: 3, flags: [READONLY], keys: (2, 2, 1), acl: [KEYSPACE, READ, SLOW], since: "2.2.3",
        syntax: "OBJECT REFCOUNT key", summary: "Replies with how many references the key's value has.";
};

/// `objectCommandLookup`: counts a hit or miss but does not touch the key.
fn object_lookup<'a>(ctx: &'a mut Ctx, key: &[u8]) -> Option<&'a mut Obj> {
    let db = ctx.db();
    ctx.srv.lookup(db, key, Lookup::READ_NOTOUCH_NONOTIFY)
}

/// The live key's `lru` field (after lazy expiry), which the keyspace keeps
/// beside the key's chain link rather than in its object.
fn object_lru(ctx: &mut Ctx, key: &[u8]) -> Option<u32> {
    object_lookup(ctx, key)?;
    ctx.srv.dbs[ctx.db()].lru(key)
}

fn object_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(args, &crate::cmd::doctext::help("object"))
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
fn shared_integers_allowed(srv: &Server) -> bool {
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
    use crate::cmd::testing::{engine, run};
    use crate::Frame;

    #[test]
    fn object_does_not_touch_but_touch_does() {
        let (mut e, c) = engine(3);
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
}
