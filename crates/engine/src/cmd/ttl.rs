//! Expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (with NX / XX / GT / LT), TTL, PTTL, EXPIRETIME, PEXPIRETIME and PERSIST, as Redis 7.2's expire.c implements them.

use super::args::{arg_i64, err_text, is};
use super::table::{commands, Command, Ctx};
use crate::proto::resp::Frame;
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;
use crate::server::Lookup;

pub(super) static COMMANDS: &[Command] = commands! { group: "generic";
    "expire" => expire, arity: -3, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [KEYSPACE, WRITE, FAST], since: "1.0.0",
        syntax: "EXPIRE key seconds [NX | XX | GT | LT]", summary: "Sets the expiration time of a key in seconds.";
    "pexpire" => pexpire, arity: -3, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [KEYSPACE, WRITE, FAST], since: "2.6.0",
        syntax: "PEXPIRE key milliseconds [NX | XX | GT | LT]", summary: "Sets the expiration time of a key in milliseconds.";
    "expireat" => expireat, arity: -3, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [KEYSPACE, WRITE, FAST], since: "1.2.0",
        syntax: "EXPIREAT key unix-time-seconds [NX | XX | GT | LT]", summary: "Sets the expiration time of a key to a Unix timestamp.";
    "pexpireat" => pexpireat, arity: -3, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [KEYSPACE, WRITE, FAST], since: "2.6.0",
        syntax: "PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT]", summary: "Sets the expiration time of a key to a Unix milliseconds timestamp.";
    "ttl" => ttl, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [KEYSPACE, READ, FAST], since: "1.0.0",
        syntax: "TTL key", summary: "Returns the expiration time in seconds of a key.";
    "pttl" => pttl, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [KEYSPACE, READ, FAST], since: "2.6.0",
        syntax: "PTTL key", summary: "Returns the expiration time in milliseconds of a key.";
    "expiretime" => expiretime, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [KEYSPACE, READ, FAST], since: "7.0.0",
        syntax: "EXPIRETIME key", summary: "Returns the expiration time of a key as a Unix timestamp.";
    "pexpiretime" => pexpiretime, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [KEYSPACE, READ, FAST], since: "7.0.0",
        syntax: "PEXPIRETIME key", summary: "Returns the expiration time of a key as a Unix milliseconds timestamp.";
    "persist" => persist, arity: 2, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [KEYSPACE, WRITE, FAST], since: "2.2.0",
        syntax: "PERSIST key", summary: "Removes the expiration time of a key.";
};

/// How the time argument is expressed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Seconds,
    Millis,
}

fn expire(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let now = ctx.srv.now_ms();
    expire_generic(ctx, args, now, Unit::Seconds)
}

fn pexpire(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let now = ctx.srv.now_ms();
    expire_generic(ctx, args, now, Unit::Millis)
}

fn expireat(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    expire_generic(ctx, args, 0, Unit::Seconds)
}

fn pexpireat(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    expire_generic(ctx, args, 0, Unit::Millis)
}

/// `expireGenericCommand`. Options are parsed before the time (so a bad
/// option wins over a bad number), overflow of the unit conversion or of
/// the addition of the base time is an error, a time not in the future
/// deletes the key (replicated by Redis as a DEL, so it is not counted in
/// `expired_keys`), and GT / LT treat "no TTL" as an infinite one.
fn expire_generic(ctx: &mut Ctx, args: &[Vec<u8>], basetime: i64, unit: Unit) -> Frame {
    let (mut nx, mut xx, mut gt, mut lt) = (false, false, false, false);
    for opt in &args[3..] {
        if is(opt, "nx") {
            nx = true;
        } else if is(opt, "xx") {
            xx = true;
        } else if is(opt, "gt") {
            gt = true;
        } else if is(opt, "lt") {
            lt = true;
        } else {
            return Frame::err(format!("ERR Unsupported option {}", err_text(opt)));
        }
    }
    if nx && (xx || gt || lt) {
        return Frame::err("ERR NX and XX, GT or LT options at the same time are not compatible");
    }
    if gt && lt {
        return Frame::err("ERR GT and LT options at the same time are not compatible");
    }
    let mut when = match arg_i64(&args[2]) {
        Ok(n) => n,
        Err(e) => return e,
    };
    let invalid = || {
        Frame::err(format!(
            "ERR invalid expire time in '{}' command",
            ctx.cmd.name
        ))
    };
    if unit == Unit::Seconds {
        if !(i64::MIN / 1000..=i64::MAX / 1000).contains(&when) {
            return invalid();
        }
        when *= 1000;
    }
    if when > i64::MAX - basetime {
        return invalid();
    }
    when += basetime;

    let db = ctx.db();
    let key = &args[1];
    if ctx.srv.lookup(db, key, Lookup::WRITE).is_none() {
        return Frame::Integer(0);
    }
    let current = ctx.srv.dbs[db].expire_at(key);
    if nx && current.is_some() {
        return Frame::Integer(0);
    }
    if xx && current.is_none() {
        return Frame::Integer(0);
    }
    if gt && current.is_none_or(|cur| when <= cur) {
        return Frame::Integer(0);
    }
    if lt && current.is_some_and(|cur| when >= cur) {
        return Frame::Integer(0);
    }
    // `checkAlreadyExpired`: we are always a master that is not loading.
    if when <= ctx.srv.now_ms() {
        ctx.srv.delete(db, key, DeleteCause::Expire);
        ctx.notify(ev::GENERIC, "del", key);
        let verb: &[u8] = if ctx.srv.config.lazyfree_lazy_expire {
            b"UNLINK"
        } else {
            b"DEL"
        };
        ctx.propagate_as(&[verb, key]);
    } else {
        ctx.srv.set_expire(db, key, when);
        ctx.notify(ev::GENERIC, "expire", key);
        // Replicas get the absolute time; the options stay, as in Redis.
        if ctx.propagating() {
            let at = when.to_string();
            let mut argv: Vec<&[u8]> = vec![b"PEXPIREAT", key, at.as_bytes()];
            argv.extend(args[3..].iter().map(|a| a.as_slice()));
            ctx.propagate_as(&argv);
        }
    }
    Frame::Integer(1)
}

fn ttl(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    ttl_generic(ctx, args, false, false)
}

fn pttl(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    ttl_generic(ctx, args, true, false)
}

fn expiretime(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    ttl_generic(ctx, args, false, true)
}

fn pexpiretime(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    ttl_generic(ctx, args, true, true)
}

/// `ttlGenericCommand`: -2 for a missing key, -1 without a TTL, else the
/// remaining (or absolute) time, seconds rounded to nearest. The lookup
/// counts a hit or miss but leaves the LRU/LFU field alone.
fn ttl_generic(ctx: &mut Ctx, args: &[Vec<u8>], millis: bool, absolute: bool) -> Frame {
    let db = ctx.db();
    let key = &args[1];
    if ctx.srv.lookup(db, key, Lookup::READ_NOTOUCH).is_none() {
        return Frame::Integer(-2);
    }
    let Some(expire) = ctx.srv.dbs[db].expire_at(key) else {
        return Frame::Integer(-1);
    };
    let t = if absolute {
        expire
    } else {
        expire - ctx.srv.now_ms()
    }
    .max(0);
    if millis {
        Frame::Integer(t)
    } else {
        // Redis computes `(ttl+500)/1000`; near i64::MAX that overflows in C
        // and the compiled code yields the exact quotient, so do it wide.
        Frame::Integer(((t as i128 + 500) / 1000) as i64)
    }
}

/// PERSIST: 1 if a TTL was removed.
fn persist(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let key = &args[1];
    if ctx.srv.lookup(db, key, Lookup::WRITE).is_none() {
        return Frame::Integer(0);
    }
    let removed = ctx.srv.persist(db, key);
    if removed {
        ctx.notify(ev::GENERIC, "persist", key);
    }
    Frame::Integer(removed as i64)
}
