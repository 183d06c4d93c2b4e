//! String commands: GET, SET and its variants, counters, ranges, with Redis 7.2's option rules, error order and value encodings (t_string.c).
//!
//! Error order matters for fidelity and follows Redis: option syntax first,
//! then the expire argument, then the key's type, and only then the write.
//! Values are stored as `tryObjectEncoding` would (`int`, `embstr`, `raw`);
//! in-place edits (APPEND, SETRANGE) leave a `raw` string, as
//! `dbUnshareStringValue` does.

use super::args::{arg_i64, opt_is, NOT_FLOAT, NOT_INTEGER, SYNTAX};
use super::table::{commands, Command, Ctx};
use crate::keyspace::object::{Obj, RString, Value};
use crate::num::longdouble::LongDouble;
use crate::proto::resp::{parse_i64, Frame};
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;

pub(super) static COMMANDS: &[Command] = commands! { group: "string";
    "get" => get, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, STRING, FAST], since: "1.0.0",
        syntax: "GET key", summary: "Returns the string value of a key.";
    "set" => set, arity: -3, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [WRITE, STRING, SLOW], since: "1.0.0",
        syntax: "SET key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]", summary: "Stores a string under a key, optionally only if it exists or not, with an expiry, returning the old value on GET.";
    "setnx" => setnx, arity: 3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "1.0.0",
        syntax: "SETNX key value", summary: "Stores a string only if the key does not exist; replies 1 if it did so.";
    "setex" => setex, arity: 4, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [WRITE, STRING, SLOW], since: "2.0.0",
        syntax: "SETEX key seconds value", summary: "Stores a string with a time to live in seconds.";
    "psetex" => psetex, arity: 4, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [WRITE, STRING, SLOW], since: "2.6.0",
        syntax: "PSETEX key milliseconds value", summary: "Stores a string with a time to live in milliseconds.";
    "getset" => getset, arity: 3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "1.0.0",
        syntax: "GETSET key value", summary: "Stores a string and replies with the value it replaced (deprecated: SET ... GET).";
    "getdel" => getdel, arity: 2, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "6.2.0",
        syntax: "GETDEL key", summary: "Replies with a string value and deletes its key.";
    "getex" => getex, arity: -2, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "6.2.0",
        syntax: "GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]", summary: "Replies with a string value and sets or removes its key's expiry.";
    "mget" => mget, arity: -2, flags: [READONLY, FAST], keys: (1, -1, 1), acl: [READ, STRING, FAST], since: "1.0.0",
        syntax: "MGET key [key ...]", summary: "Replies with the values of several keys, nil where missing or not a string.";
    "mset" => mset, arity: -3, flags: [WRITE, DENYOOM], keys: (1, -1, 2), acl: [WRITE, STRING, SLOW], since: "1.0.1",
        syntax: "MSET key value [key value ...]", summary: "Stores several strings at once.";
    "msetnx" => msetnx, arity: -3, flags: [WRITE, DENYOOM], keys: (1, -1, 2), acl: [WRITE, STRING, SLOW], since: "1.0.1",
        syntax: "MSETNX key value [key value ...]", summary: "Stores several strings only if none of the keys exists.";
    "incr" => incr, arity: 2, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "1.0.0",
        syntax: "INCR key", summary: "Adds one to the integer stored at a key (missing counts as 0).";
    "decr" => decr, arity: 2, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "1.0.0",
        syntax: "DECR key", summary: "Subtracts one from the integer stored at a key (missing counts as 0).";
    "incrby" => incrby, arity: 3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "1.0.0",
        syntax: "INCRBY key increment", summary: "Adds an integer to the integer stored at a key.";
    "decrby" => decrby, arity: 3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "1.0.0",
        syntax: "DECRBY key decrement", summary: "Subtracts an integer from the integer stored at a key.";
    "incrbyfloat" => incrbyfloat, arity: 3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "2.6.0",
        syntax: "INCRBYFLOAT key increment", summary: "Adds a decimal number to the number stored at a key, in long double precision.";
    "append" => append, arity: 3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, STRING, FAST], since: "2.0.0",
        syntax: "APPEND key value", summary: "Appends to the string at a key, creating it if missing; replies with the new length.";
    "strlen" => strlen, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, STRING, FAST], since: "2.2.0",
        syntax: "STRLEN key", summary: "Replies with the length in bytes of the string at a key.";
    "getrange" => getrange, arity: 4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, STRING, SLOW], since: "2.4.0",
        syntax: "GETRANGE key start end", summary: "Replies with the bytes between two offsets (negative counts from the end) of a string.";
    "substr" => getrange, arity: 4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, STRING, SLOW], since: "1.0.0",
        syntax: "SUBSTR key start end", summary: "Old name of GETRANGE.";
    "setrange" => setrange, arity: 4, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [WRITE, STRING, SLOW], since: "2.2.0",
        syntax: "SETRANGE key offset value", summary: "Overwrites part of a string from an offset, zero-padding as needed; replies with the new length.";
};

/// "ERR string exceeds maximum allowed size (proto-max-bulk-len)" unless
/// `size + append` fits (`checkStringLength`).
fn check_string_length(ctx: &Ctx, size: u64, append: u64) -> Result<(), Frame> {
    let total = size as u128 + append as u128;
    if total > ctx.srv.config.proto_max_bulk_len.max(0) as u128 {
        return Err(Frame::err(
            "ERR string exceeds maximum allowed size (proto-max-bulk-len)",
        ));
    }
    Ok(())
}

/// `getGenericCommand`: the GET reply for `key`, or WRONGTYPE, built from
/// the stored string in place (one copy).
fn get_generic(ctx: &mut Ctx, key: &[u8]) -> Result<Frame, Frame> {
    Ok(match ctx.read::<RString>(key)? {
        Some(s) => Frame::Bulk(s.to_bytes()),
        None => Frame::Null,
    })
}

fn get(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    get_generic(ctx, &args[1]).unwrap_or_else(|e| e)
}

/// Which expiry option was given.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ExpireKind {
    Ex,
    Px,
    ExAt,
    PxAt,
}

impl ExpireKind {
    fn in_seconds(self) -> bool {
        matches!(self, ExpireKind::Ex | ExpireKind::ExAt)
    }

    fn relative(self) -> bool {
        matches!(self, ExpireKind::Ex | ExpireKind::Px)
    }
}

/// Options of SET and GETEX (`parseExtendedStringArgumentsOrReply`).
#[derive(Default)]
struct ExtOpts<'a> {
    nx: bool,
    xx: bool,
    get: bool,
    keepttl: bool,
    persist: bool,
    expire: Option<(ExpireKind, &'a [u8])>,
}

impl ExtOpts<'_> {
    fn has(&self, k: ExpireKind) -> bool {
        matches!(self.expire, Some((kind, _)) if kind == k)
    }
}

/// Parses SET's (from argument 3) or GETEX's (from argument 2) options with
/// Redis' conflict rules: any conflicting or unknown word, or an expiry word
/// without a value, is a syntax error. Repeating the same expiry option is
/// accepted and the last value wins, as in Redis.
fn parse_ext_opts(args: &[Vec<u8>], is_set: bool) -> Result<ExtOpts<'_>, Frame> {
    use ExpireKind::*;
    let mut o = ExtOpts::default();
    let mut j = if is_set { 3 } else { 2 };
    while j < args.len() {
        let opt = &args[j];
        let next = args.get(j + 1).map(|v| v.as_slice());
        let any_expire_but =
            |o: &ExtOpts, k: ExpireKind| [Ex, Px, ExAt, PxAt].iter().any(|&x| x != k && o.has(x));
        if opt_is(opt, "nx") && !o.xx && is_set {
            o.nx = true;
        } else if opt_is(opt, "xx") && !o.nx && is_set {
            o.xx = true;
        } else if opt_is(opt, "get") && is_set {
            o.get = true;
        } else if opt_is(opt, "keepttl") && !o.persist && o.expire.is_none() && is_set {
            o.keepttl = true;
        } else if opt_is(opt, "persist") && !is_set && o.expire.is_none() && !o.keepttl {
            o.persist = true;
        } else if let Some(kind) = [("ex", Ex), ("px", Px), ("exat", ExAt), ("pxat", PxAt)]
            .iter()
            .find(|(w, _)| opt_is(opt, w))
            .map(|&(_, k)| k)
            .filter(|&k| !o.keepttl && !o.persist && !any_expire_but(&o, k))
        {
            let Some(v) = next else {
                return Err(Frame::err(SYNTAX));
            };
            o.expire = Some((kind, v));
            j += 1;
        } else {
            return Err(Frame::err(SYNTAX));
        }
        j += 1;
    }
    Ok(o)
}

/// `getExpireMillisecondsOrReply`: the absolute expiry in Unix ms, with
/// Redis' checks: positive, no overflow when scaling seconds or adding the
/// current time (C's wrapping addition, then the `<= 0` test).
fn expire_ms(ctx: &Ctx, kind: ExpireKind, arg: &[u8]) -> Result<i64, Frame> {
    let v = arg_i64(arg)?;
    let invalid = || {
        Frame::err(format!(
            "ERR invalid expire time in '{}' command",
            ctx.cmd.name
        ))
    };
    if v <= 0 || (kind.in_seconds() && v > i64::MAX / 1000) {
        return Err(invalid());
    }
    let mut ms = if kind.in_seconds() { v * 1000 } else { v };
    if kind.relative() {
        ms = ms.wrapping_add(ctx.srv.now_ms());
    }
    if ms <= 0 {
        return Err(invalid());
    }
    Ok(ms)
}

/// `setGenericCommand`: SET and its older variants.
fn set_generic(
    ctx: &mut Ctx,
    opts: &ExtOpts,
    key: &[u8],
    val: &[u8],
    ok_reply: Frame,
    abort_reply: Frame,
) -> Result<Frame, Frame> {
    let when = match opts.expire {
        Some((kind, arg)) => Some(expire_ms(ctx, kind, arg)?),
        None => None,
    };
    let old = if opts.get {
        Some(get_generic(ctx, key)?)
    } else {
        None
    };
    let db = ctx.db();
    let found = ctx.srv.lookup_write(db, key).is_some();
    if (opts.nx && found) || (opts.xx && !found) {
        return Ok(old.unwrap_or(abort_reply));
    }
    let keep_ttl = opts.keepttl || when.is_some();
    ctx.srv
        .set_key(db, key, Value::String(RString::from_bytes(val)), keep_ttl);
    ctx.notify(ev::STRING, "set", key);
    if let Some(when) = when {
        ctx.srv.set_expire(db, key, when);
        ctx.notify(ev::GENERIC, "expire", key);
        // Replicas get the absolute time, whatever form it came in.
        if !opts.has(ExpireKind::PxAt) && ctx.propagating() {
            ctx.propagate_as(&[b"SET", key, val, b"PXAT", when.to_string().as_bytes()]);
        }
    }
    Ok(old.unwrap_or(ok_reply))
}

fn set(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let r = parse_ext_opts(args, true).and_then(|o| {
        let reply = set_generic(ctx, &o, &args[1], &args[2], Frame::ok(), Frame::Null)?;
        // Replicas do not need the old value: SET goes without its GETs.
        if o.get && o.expire.is_none() && ctx.propagating() {
            let argv: Vec<&[u8]> = (args.iter().enumerate())
                .filter(|(j, a)| *j < 3 || !a.eq_ignore_ascii_case(b"get"))
                .map(|(_, a)| a.as_slice())
                .collect();
            ctx.propagate_as(&argv);
        }
        Ok(reply)
    });
    r.unwrap_or_else(|e| e)
}

fn setnx(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let o = ExtOpts {
        nx: true,
        ..Default::default()
    };
    set_generic(
        ctx,
        &o,
        &args[1],
        &args[2],
        Frame::Integer(1),
        Frame::Integer(0),
    )
    .unwrap_or_else(|e| e)
}

fn setex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    setex_generic(ctx, args, ExpireKind::Ex)
}

fn psetex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    setex_generic(ctx, args, ExpireKind::Px)
}

fn setex_generic(ctx: &mut Ctx, args: &[Vec<u8>], kind: ExpireKind) -> Frame {
    let o = ExtOpts {
        expire: Some((kind, &args[2])),
        ..Default::default()
    };
    set_generic(ctx, &o, &args[1], &args[3], Frame::ok(), Frame::Null).unwrap_or_else(|e| e)
}

fn getset(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let old = match get_generic(ctx, &args[1]) {
        Ok(f) => f,
        Err(e) => return e,
    };
    let db = ctx.db();
    // `setKey` without flags looks the key up for writing first.
    ctx.srv.lookup_write(db, &args[1]);
    ctx.srv.set_key(
        db,
        &args[1],
        Value::String(RString::from_bytes(&args[2])),
        false,
    );
    ctx.notify(ev::STRING, "set", &args[1]);
    ctx.propagate_as(&[b"SET", &args[1], &args[2]]);
    old
}

fn getdel(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let reply = match get_generic(ctx, &args[1]) {
        Ok(f) => f,
        Err(e) => return e,
    };
    let db = ctx.db();
    if ctx.srv.delete(db, &args[1], DeleteCause::Getdel) {
        ctx.notify(ev::GENERIC, "del", &args[1]);
        ctx.propagate_as(&[b"DEL", &args[1]]);
    }
    reply
}

fn getex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let opts = match parse_ext_opts(args, false) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let key = &args[1];
    let value = match ctx.read::<RString>(key) {
        Err(e) => return e,
        Ok(None) => return Frame::Null,
        Ok(Some(s)) => s.to_bytes(),
    };
    let when = match opts.expire {
        Some((kind, arg)) => match expire_ms(ctx, kind, arg) {
            Ok(ms) => Some((kind, ms)),
            Err(e) => return e,
        },
        None => None,
    };
    let db = ctx.db();
    match when {
        // An absolute time already reached deletes the key (`checkAlreadyExpired`).
        Some((kind, ms)) if !kind.relative() && ms <= ctx.srv.now_ms() => {
            ctx.srv.delete(db, key, DeleteCause::Del);
            ctx.notify(ev::GENERIC, "del", key);
            let verb: &[u8] = if ctx.srv.config.lazyfree_lazy_expire {
                b"UNLINK"
            } else {
                b"DEL"
            };
            ctx.propagate_as(&[verb, key]);
        }
        Some((_, ms)) => {
            ctx.srv.set_expire(db, key, ms);
            ctx.notify(ev::GENERIC, "expire", key);
            if ctx.propagating() {
                ctx.propagate_as(&[b"PEXPIREAT", key, ms.to_string().as_bytes()]);
            }
        }
        None if opts.persist && ctx.srv.persist(db, key) => {
            ctx.notify(ev::GENERIC, "persist", key);
            ctx.propagate_as(&[b"PERSIST", key]);
        }
        None => {}
    }
    Frame::Bulk(value)
}

fn mget(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let items = args[1..]
        .iter()
        .map(|k| match ctx.srv.lookup_read(db, k).map(|o| &o.value) {
            Some(Value::String(s)) => Frame::Bulk(s.to_bytes()),
            _ => Frame::Null,
        })
        .collect();
    Frame::Array(items)
}

fn mset(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    mset_generic(ctx, args, false)
}

fn msetnx(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    mset_generic(ctx, args, true)
}

fn mset_generic(ctx: &mut Ctx, args: &[Vec<u8>], nx: bool) -> Frame {
    if args.len() % 2 != 1 {
        return Frame::err(format!(
            "ERR wrong number of arguments for '{}' command",
            ctx.cmd.name
        ));
    }
    let db = ctx.db();
    if nx {
        for pair in args[1..].chunks_exact(2) {
            if ctx.srv.lookup_write(db, &pair[0]).is_some() {
                return Frame::Integer(0);
            }
        }
    }
    for pair in args[1..].chunks_exact(2) {
        if !nx {
            // `setKey` without flags looks the key up for writing first.
            ctx.srv.lookup_write(db, &pair[0]);
        }
        ctx.srv.set_key(
            db,
            &pair[0],
            Value::String(RString::from_bytes(&pair[1])),
            false,
        );
        ctx.notify(ev::STRING, "set", &pair[0]);
    }
    if nx {
        Frame::Integer(1)
    } else {
        Frame::ok()
    }
}

/// `incrDecrCommand`: adds `incr` to the integer at the key, keeping its TTL.
fn incr_decr(ctx: &mut Ctx, key: &[u8], incr: i64) -> Frame {
    let value = match ctx.write::<RString>(key) {
        Err(e) => return e,
        Ok(None) => 0,
        Ok(Some(RString::Int(n))) => *n,
        Ok(Some(RString::Emb(b) | RString::Raw(b))) => match parse_i64(b) {
            Some(n) => n,
            None => return Frame::err(NOT_INTEGER),
        },
    };
    let db = ctx.db();
    let Some(new) = value.checked_add(incr) else {
        return Frame::err("ERR increment or decrement would overflow");
    };
    ctx.srv
        .set_key(db, key, Value::String(RString::Int(new)), true);
    ctx.notify(ev::STRING, "incrby", key);
    Frame::Integer(new)
}

fn incr(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    incr_decr(ctx, &args[1], 1)
}

fn decr(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    incr_decr(ctx, &args[1], -1)
}

fn incrby(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match arg_i64(&args[2]) {
        Ok(n) => incr_decr(ctx, &args[1], n),
        Err(e) => e,
    }
}

fn decrby(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match arg_i64(&args[2]) {
        Ok(i64::MIN) => Frame::err("ERR decrement would overflow"),
        Ok(n) => incr_decr(ctx, &args[1], -n),
        Err(e) => e,
    }
}

/// INCRBYFLOAT in x87 extended precision, as Redis computes it; the result
/// is stored as a plain string (`embstr`/`raw`, never `int`) and the TTL kept.
fn incrbyfloat(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let key = &args[1];
    let current = match ctx.write::<RString>(key) {
        Err(e) => return e,
        Ok(None) => Some(LongDouble::ZERO),
        Ok(Some(RString::Int(n))) => Some(LongDouble::from_i64(*n)),
        Ok(Some(RString::Emb(b) | RString::Raw(b))) => LongDouble::parse(b),
    };
    let (Some(current), Some(incr)) = (current, LongDouble::parse(&args[2])) else {
        return Frame::err(NOT_FLOAT);
    };
    let sum = current + incr;
    if !sum.is_finite() {
        return Frame::err("ERR increment would produce NaN or Infinity");
    }
    let text = sum.to_human().into_bytes();
    ctx.srv
        .set_key(db, key, Value::String(RString::plain(text.clone())), true);
    ctx.notify(ev::STRING, "incrbyfloat", key);
    // The result, not the increment: float formatting cannot differ there.
    ctx.propagate_as(&[b"SET", key, &text, b"KEEPTTL"]);
    Frame::Bulk(text)
}

/// `dbUnshareStringValue`: makes a string `raw` and hands out its bytes
/// for editing (`None` for a non-string, which callers have ruled out).
pub(crate) fn unshare(obj: &mut Obj) -> Option<&mut Vec<u8>> {
    let Value::String(s) = &mut obj.value else {
        return None;
    };
    let bytes = match std::mem::replace(s, RString::Raw(Vec::new())) {
        RString::Int(n) => n.to_string().into_bytes(),
        RString::Emb(b) | RString::Raw(b) => b,
    };
    *s = RString::Raw(bytes);
    match s {
        RString::Raw(b) => Some(b),
        _ => None,
    }
}

fn append(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let (key, extra) = (&args[1], &args[2]);
    let old_len = match ctx.write::<RString>(key) {
        Err(e) => return e,
        Ok(s) => s.map(|s| s.len()),
    };
    let Some(old_len) = old_len else {
        let v = RString::from_bytes(extra);
        let len = v.len();
        ctx.srv.set_key(db, key, Value::String(v), false);
        ctx.notify(ev::STRING, "append", key);
        return Frame::Integer(len as i64);
    };
    if let Err(e) = check_string_length(ctx, old_len as u64, extra.len() as u64) {
        return e;
    }
    if ctx.srv.over_budget(extra.len() as u64) {
        return Frame::err(crate::server::BUDGET_OOM);
    }
    let new_len = ctx.srv.modify(db, key, |obj| {
        let b = unshare(obj)?;
        b.extend_from_slice(extra);
        Some(b.len())
    });
    ctx.notify(ev::STRING, "append", key);
    Frame::Integer(new_len.flatten().unwrap_or(0) as i64)
}

fn strlen(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<RString>(&args[1]) {
        Err(e) => e,
        Ok(None) => Frame::Integer(0),
        Ok(Some(s)) => Frame::Integer(s.len() as i64),
    }
}

/// GETRANGE and SUBSTR, with Redis' clamping of out-of-range offsets.
fn getrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (mut start, mut end) = match (arg_i64(&args[2]), arg_i64(&args[3])) {
        (Ok(s), Ok(e)) => (s, e),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    let bytes = match ctx.read::<RString>(&args[1]) {
        Err(e) => return e,
        Ok(None) => return Frame::Bulk(Vec::new()),
        Ok(Some(s)) => s.to_bytes(),
    };
    let len = bytes.len() as i64;
    if start < 0 && end < 0 && start > end {
        return Frame::Bulk(Vec::new());
    }
    if start < 0 {
        start += len;
    }
    if end < 0 {
        end += len;
    }
    start = start.max(0);
    end = end.max(0);
    if end >= len {
        end = len - 1;
    }
    if start > end || len == 0 {
        return Frame::Bulk(Vec::new());
    }
    // 0 <= start <= end < len here.
    Frame::Bulk(bytes[start as usize..=end as usize].to_vec())
}

fn setrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let offset = match arg_i64(&args[2]) {
        Ok(n) => n,
        Err(e) => return e,
    };
    if offset < 0 {
        return Frame::err("ERR offset is out of range");
    }
    let db = ctx.db();
    let (key, value) = (&args[1], &args[3]);
    let old_len = match ctx.write::<RString>(key) {
        Err(e) => return e,
        Ok(s) => s.map(|s| s.len()),
    };
    if value.is_empty() {
        return Frame::Integer(old_len.unwrap_or(0) as i64);
    }
    if let Err(e) = check_string_length(ctx, offset as u64, value.len() as u64) {
        return e;
    }
    let end = offset as u64 + value.len() as u64;
    if ctx
        .srv
        .over_budget(end.saturating_sub(old_len.unwrap_or(0) as u64))
    {
        return Frame::err(crate::server::BUDGET_OOM);
    }
    // Fits proto-max-bulk-len; a target without the address space for it
    // (wasm32 with a limit above 4 GB) cannot store it either.
    let Some((offset, end)) = usize::try_from(offset)
        .ok()
        .and_then(|o| Some((o, o.checked_add(value.len())?)))
    else {
        return Frame::err("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    };
    let write = |b: &mut Vec<u8>| {
        if b.len() < end {
            b.resize(end, 0);
        }
        b[offset..end].copy_from_slice(value);
    };
    if old_len.is_none() {
        let mut b = Vec::new();
        write(&mut b);
        let len = b.len();
        // A new string from `createObject` is `raw` whatever its length.
        ctx.srv
            .set_key(db, key, Value::String(RString::Raw(b)), false);
        ctx.notify(ev::STRING, "setrange", key);
        return Frame::Integer(len as i64);
    }
    let new_len = ctx.srv.modify(db, key, |obj| {
        let b = unshare(obj)?;
        write(b);
        Some(b.len())
    });
    ctx.notify(ev::STRING, "setrange", key);
    Frame::Integer(new_len.flatten().unwrap_or(0) as i64)
}

#[cfg(test)]
mod tests {
    use crate::cmd::testing::{encoding, engine, replies, run};
    use crate::keyspace::object::{RString, Value};
    use crate::Frame;

    #[test]
    fn encodings_follow_redis() {
        let (mut e, c) = engine(1);
        run(&mut e, c, &["SET", "i", "12345"]);
        assert_eq!(encoding(&e, "i"), "int");
        run(&mut e, c, &["SET", "z", "012"]);
        assert_eq!(encoding(&e, "z"), "embstr");
        run(&mut e, c, &["SET", "e", &"x".repeat(44)]);
        assert_eq!(encoding(&e, "e"), "embstr");
        run(&mut e, c, &["SET", "r", &"x".repeat(45)]);
        assert_eq!(encoding(&e, "r"), "raw");
        run(&mut e, c, &["APPEND", "i", ""]);
        assert_eq!(encoding(&e, "i"), "raw", "APPEND always leaves raw");
        run(&mut e, c, &["APPEND", "new", "42"]);
        assert_eq!(encoding(&e, "new"), "int", "APPEND on a new key encodes");
        run(&mut e, c, &["SETRANGE", "sr", "0", "a"]);
        assert_eq!(encoding(&e, "sr"), "raw");
        run(&mut e, c, &["SETRANGE", "z", "0", ""]);
        assert_eq!(
            encoding(&e, "z"),
            "embstr",
            "empty SETRANGE changes nothing"
        );
        assert_eq!(
            run(&mut e, c, &["INCR", "z"]),
            Frame::err("ERR value is not an integer or out of range"),
            "no leading zeros"
        );
        run(&mut e, c, &["INCR", "r"]);
        assert_eq!(
            encoding(&e, "r"),
            "raw",
            "failed INCR leaves the value alone"
        );
        run(&mut e, c, &["SET", "n", "9999"]);
        run(&mut e, c, &["APPEND", "n", "9"]);
        run(&mut e, c, &["INCR", "n"]);
        assert_eq!(encoding(&e, "n"), "int", "INCR stores an int");
        run(&mut e, c, &["INCRBYFLOAT", "f", "1"]);
        assert_eq!(encoding(&e, "f"), "embstr");
        assert_eq!(
            e.server().dbs[0].get(b"f").map(|o| o.value.clone()),
            Some(Value::String(RString::Emb(b"1".to_vec())))
        );
    }

    #[test]
    fn incrbyfloat_formatting() {
        let (mut e, c) = engine(1);
        let script: &[(&[&str], Frame)] = &[
            (&["SET", "k", "10.50"], Frame::ok()),
            (&["INCRBYFLOAT", "k", "0.1"], Frame::bulk("10.6")),
            (&["INCRBYFLOAT", "k", "-5"], Frame::bulk("5.6")),
            (&["SET", "k", "5.0e3"], Frame::ok()),
            (&["INCRBYFLOAT", "k", "2.0e2"], Frame::bulk("5200")),
            (&["INCRBYFLOAT", "p", "0.1"], Frame::bulk("0.1")),
            (&["INCRBYFLOAT", "p", "0.2"], Frame::bulk("0.3")),
            (
                &["INCRBYFLOAT", "q", "10000000000.1"],
                Frame::bulk("10000000000.09999999962747097"),
            ),
            (
                &["INCRBYFLOAT", "p", "inf"],
                Frame::err("ERR increment would produce NaN or Infinity"),
            ),
            (
                &["INCRBYFLOAT", "p", "1 "],
                Frame::err("ERR value is not a valid float"),
            ),
        ];
        replies(&mut e, c, script);
    }

    #[test]
    fn set_keeps_or_drops_ttl() {
        let (mut e, c) = engine(1);
        let now = e.server().now_ms();
        run(&mut e, c, &["SET", "k", "v", "PX", "5000"]);
        assert_eq!(e.server().dbs[0].expire_at(b"k"), Some(now + 5000));
        run(&mut e, c, &["SET", "k", "w", "KEEPTTL"]);
        assert_eq!(e.server().dbs[0].expire_at(b"k"), Some(now + 5000));
        run(&mut e, c, &["INCRBYFLOAT", "k2", "1"]);
        run(&mut e, c, &["SET", "k", "1"]);
        assert_eq!(e.server().dbs[0].expire_at(b"k"), None);
        run(&mut e, c, &["SET", "k", "1", "EX", "10"]);
        run(&mut e, c, &["INCR", "k"]);
        assert_eq!(e.server().dbs[0].expire_at(b"k"), Some(now + 10_000));
        run(&mut e, c, &["GETEX", "k", "PERSIST"]);
        assert_eq!(e.server().dbs[0].expire_at(b"k"), None);
        run(&mut e, c, &["GETEX", "k", "EXAT", "1"]);
        assert!(e.server().dbs[0].get(b"k").is_none(), "past EXAT deletes");
    }

    #[test]
    fn set_expire_overflow() {
        let (mut e, c) = engine(1);
        let err = Frame::err("ERR invalid expire time in 'set' command");
        let script: &[(&[&str], Frame)] = &[
            (&["SET", "k", "v", "EX", "9223372036854775"], err.clone()),
            (&["SET", "k", "v", "EX", "9223372036854776"], err.clone()),
            (&["SET", "k", "v", "PX", "9223372036854775807"], err.clone()),
            (&["SET", "k", "v", "EX", "0"], err),
            (
                &["SET", "k", "v", "PXAT", "9223372036854775807"],
                Frame::ok(),
            ),
            (
                &["SETEX", "k", "-1", "v"],
                Frame::err("ERR invalid expire time in 'setex' command"),
            ),
        ];
        replies(&mut e, c, script);
    }
}
