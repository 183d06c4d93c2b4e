//! Hash commands (t_hash.c): HSET and friends, counters, whole-hash reads, HRANDFIELD and HSCAN, with Redis 7.2's lookups, error order and encodings; plus the helpers the set commands share (in-place updates, SCAN options, count parsing).
//!
//! Lookups follow Redis because they are observable: reads count keyspace
//! hits and misses, writes do not; a key emptied by a delete goes away
//! through [`Server::delete`]. A write that changes nothing a client can
//! see (HDEL of absent fields) does not signal the key, so WATCH survives.

use super::strings::{cstr, opt_is};
use super::{arg_i64, Command, Ctx, NOT_FLOAT, SYNTAX, WRONGTYPE};
use crate::glob;
use crate::keyspace::object::Value;
use crate::keyspace::types::hash::{Hash, HashLimits};
use crate::num::longdouble::LongDouble;
use crate::proto::resp::{parse_i64, Frame};
use crate::server::trace::{DeleteCause, Event};
use crate::server::{lossy, Server};

/// Defines one hash-group command entry.
macro_rules! hash_cmd {
    ($name:literal, $arity:expr, [$($flag:literal),*], [$($acl:literal),*],
     $syntax:literal, $summary:literal, $since:literal, $handler:expr) => {
        Command {
            name: $name,
            arity: $arity,
            flags: &[$($flag),*],
            keys: (1, 1, 1),
            acl: &[$($acl),*],
            syntax: $syntax,
            summary: $summary,
            since: $since,
            group: "hash",
            handler: $handler,
            subcommands: &[],
        }
    };
}

pub static COMMANDS: &[Command] = &[
    hash_cmd!("hset", -4, ["write", "denyoom", "fast"], ["write", "hash", "fast"],
        "HSET key field value [field value ...]",
        "Sets fields of a hash, creating it if needed; replies with how many fields are new.",
        "2.0.0", hset),
    hash_cmd!("hsetnx", 4, ["write", "denyoom", "fast"], ["write", "hash", "fast"],
        "HSETNX key field value",
        "Sets a hash field only if it does not exist yet; replies 1 if it did so.",
        "2.0.0", hsetnx),
    hash_cmd!("hget", 3, ["readonly", "fast"], ["read", "hash", "fast"],
        "HGET key field", "Replies with the value of a hash field.", "2.0.0", hget),
    hash_cmd!("hmget", -3, ["readonly", "fast"], ["read", "hash", "fast"],
        "HMGET key field [field ...]",
        "Replies with the values of several hash fields, nil where missing.", "2.0.0", hmget),
    hash_cmd!("hmset", -4, ["write", "denyoom", "fast"], ["write", "hash", "fast"],
        "HMSET key field value [field value ...]",
        "Sets fields of a hash and replies OK (deprecated: HSET does the same).", "2.0.0", hset),
    hash_cmd!("hgetall", 2, ["readonly"], ["read", "hash", "slow"],
        "HGETALL key", "Replies with every field and value of a hash.", "2.0.0", hgetall),
    hash_cmd!("hdel", -3, ["write", "fast"], ["write", "hash", "fast"],
        "HDEL key field [field ...]",
        "Deletes hash fields, and the key once empty; replies with how many were removed.",
        "2.0.0", hdel),
    hash_cmd!("hlen", 2, ["readonly", "fast"], ["read", "hash", "fast"],
        "HLEN key", "Replies with the number of fields in a hash.", "2.0.0", hlen),
    hash_cmd!("hexists", 3, ["readonly", "fast"], ["read", "hash", "fast"],
        "HEXISTS key field", "Replies 1 if a hash has the field, else 0.", "2.0.0", hexists),
    hash_cmd!("hincrby", 4, ["write", "denyoom", "fast"], ["write", "hash", "fast"],
        "HINCRBY key field increment",
        "Adds an integer to the integer in a hash field (missing counts as 0).", "2.0.0", hincrby),
    hash_cmd!("hincrbyfloat", 4, ["write", "denyoom", "fast"], ["write", "hash", "fast"],
        "HINCRBYFLOAT key field increment",
        "Adds a decimal number to the number in a hash field, in long double precision.",
        "2.6.0", hincrbyfloat),
    hash_cmd!("hkeys", 2, ["readonly"], ["read", "hash", "slow"],
        "HKEYS key", "Replies with every field name of a hash.", "2.0.0", hkeys),
    hash_cmd!("hvals", 2, ["readonly"], ["read", "hash", "slow"],
        "HVALS key", "Replies with every value of a hash.", "2.0.0", hvals),
    hash_cmd!("hstrlen", 3, ["readonly", "fast"], ["read", "hash", "fast"],
        "HSTRLEN key field", "Replies with the length of a hash field's value.", "3.2.0", hstrlen),
    hash_cmd!("hrandfield", -2, ["readonly"], ["read", "hash", "slow"],
        "HRANDFIELD key [count [WITHVALUES]]",
        "Replies with random fields of a hash: distinct for a positive count, possibly repeated for a negative one.",
        "6.2.0", hrandfield),
    hash_cmd!("hscan", -3, ["readonly"], ["read", "hash", "slow"],
        "HSCAN key cursor [MATCH pattern] [COUNT count]",
        "Walks a hash's fields and values with a cursor (a small hash comes whole).",
        "2.8.0", hscan),
];

// ---------------------------------------------------------------------------
// Helpers shared with the set commands.

/// Longest reply a negative count may ask HRANDFIELD or SRANDMEMBER for.
/// Redis would build any length (and a client could not read it back);
/// the simulator refuses rather than exhaust memory.
pub(super) const MAX_RANDOM_REPLY: u64 = 1_000_000;

/// The error for a random reply longer than [`MAX_RANDOM_REPLY`].
pub(super) fn too_many_random() -> Frame {
    Frame::err(format!(
        "ERR redsim limits random replies with repetitions to {MAX_RANDOM_REPLY} elements"
    ))
}

/// Mutates a live key's value in place with memory accounted. `f` also
/// says whether it changed anything a client can see: only then is the
/// key signalled as modified (WATCH) and the write traced, as Redis skips
/// `signalModifiedKey` for a no-op write even when the encoding changed.
pub(super) fn update<R>(
    srv: &mut Server,
    db: usize,
    key: &[u8],
    f: impl FnOnce(&mut Value) -> (R, bool),
) -> Option<R> {
    let (r, changed) = srv.dbs[db].with_mut(key, |o| f(&mut o.value))?;
    if changed {
        srv.touch_key(db, key);
        srv.emit_with(|| Event::Written {
            db: db as u32,
            key: lossy(key),
        });
    }
    Some(r)
}

/// `getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX)`: any integer but LONG_MIN.
pub(super) fn count_arg(arg: &[u8]) -> Result<i64, Frame> {
    match arg_i64(arg)? {
        i64::MIN => Err(Frame::err(format!(
            "ERR value is out of range, value must between {} and {}",
            -i64::MAX,
            i64::MAX
        ))),
        n => Ok(n),
    }
}

/// `getPositiveLongFromObjectOrReply`: a non-negative integer, with `msg`
/// (or Redis' default) for anything else, unparsable included.
pub(super) fn positive_arg(arg: &[u8], msg: Option<&str>) -> Result<i64, Frame> {
    let msg = msg.unwrap_or("value is out of range, must be positive");
    match parse_i64(arg) {
        Some(n) if n >= 0 => Ok(n),
        _ => Err(Frame::err(format!("ERR {msg}"))),
    }
}

/// `parseScanCursorOrReply`: C's `strtoul` in base 10 over the whole
/// argument (up to a NUL): a sign is allowed (`-1` wraps), an empty string
/// is 0, a leading space or overflow is not.
pub(super) fn scan_cursor(arg: &[u8]) -> Result<u64, Frame> {
    let invalid = || Frame::err("ERR invalid cursor");
    let s = cstr(arg);
    let Some(&first) = s.first() else {
        return Ok(0);
    };
    if matches!(first, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        return Err(invalid());
    }
    let (neg, digits) = match first {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(invalid());
    }
    let mut v: u64 = 0;
    for &c in digits {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(c - b'0')))
            .ok_or_else(invalid)?;
    }
    Ok(if neg { v.wrapping_neg() } else { v })
}

/// HSCAN/SSCAN options (`scanGenericCommand` on a key): COUNT and MATCH,
/// no TYPE.
pub(super) struct ScanOpts<'a> {
    pub count: i64,
    /// None when absent or exactly `*`.
    pub pattern: Option<&'a [u8]>,
}

impl ScanOpts<'_> {
    /// True if `s` passes the MATCH filter.
    pub fn matches(&self, s: &[u8]) -> bool {
        self.pattern.is_none_or(|p| glob::matches(p, s, false))
    }
}

/// Parses the options after a key scan's cursor.
pub(super) fn scan_opts(args: &[Vec<u8>]) -> Result<ScanOpts<'_>, Frame> {
    let mut o = ScanOpts {
        count: 10,
        pattern: None,
    };
    let mut i = 3;
    while i < args.len() {
        let more = args.len() - i;
        if opt_is(&args[i], "count") && more >= 2 {
            o.count = arg_i64(&args[i + 1])?;
            if o.count < 1 {
                return Err(Frame::err(SYNTAX));
            }
        } else if opt_is(&args[i], "match") && more >= 2 {
            let p = args[i + 1].as_slice();
            o.pattern = (p != b"*").then_some(p);
        } else {
            return Err(Frame::err(SYNTAX));
        }
        i += 2;
    }
    Ok(o)
}

/// A SCAN-family reply: the next cursor and the elements.
pub(super) fn scan_reply(cursor: u64, items: Vec<Vec<u8>>) -> Frame {
    Frame::Array(vec![
        Frame::Bulk((cursor as i64).to_string().into_bytes()),
        Frame::Array(items.into_iter().map(Frame::Bulk).collect()),
    ])
}

/// Walks a table with `step` the way `scanGenericCommand` does: at most
/// `count * 10` buckets, stopping once `count` elements were visited.
pub(super) fn scan_steps(
    mut cursor: u64,
    count: i64,
    mut step: impl FnMut(u64) -> (u64, i64),
) -> u64 {
    let mut sampled: i64 = 0;
    let mut max_iterations = count.saturating_mul(10);
    loop {
        let (next, seen) = step(cursor);
        cursor = next;
        sampled += seen;
        if cursor == 0 {
            return 0;
        }
        let budget_left = max_iterations != 0;
        max_iterations -= 1;
        if !budget_left || sampled >= count {
            return cursor;
        }
    }
}

/// Algorithm S (`lpNextRandom`'s selection sampling): `k` distinct indices
/// below `n`, ascending.
pub(super) fn sample_indices(rng: &mut fastrand::Rng, n: usize, k: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(k.min(n));
    for i in 0..n {
        let remaining = k - out.len();
        if remaining == 0 {
            break;
        }
        if rng.usize(..n - i) < remaining {
            out.push(i);
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Lookups.

/// The encoding limits from the current config.
fn limits(srv: &Server) -> HashLimits {
    HashLimits {
        max_listpack_entries: srv.config.hash_max_listpack_entries,
        max_listpack_value: srv.config.hash_max_listpack_value,
        dict_seed: srv.seed ^ 0x6861_7368_7365_6564,
    }
}

/// `lookupKeyRead` + `checkType`: `Ok(None)` when missing.
fn read<'a>(ctx: &'a mut Ctx, key: &[u8]) -> Result<Option<&'a Hash>, Frame> {
    let db = ctx.db();
    match ctx.srv.lookup_read(db, key).map(|o| &o.value) {
        None => Ok(None),
        Some(Value::Hash(h)) => Ok(Some(h)),
        Some(_) => Err(Frame::err(WRONGTYPE)),
    }
}

/// `lookupKeyWrite` + `checkType`: true if the hash exists.
fn write_lookup(ctx: &mut Ctx, key: &[u8]) -> Result<bool, Frame> {
    let db = ctx.db();
    match ctx.srv.lookup_write(db, key).map(|o| &o.value) {
        None => Ok(false),
        Some(Value::Hash(_)) => Ok(true),
        Some(_) => Err(Frame::err(WRONGTYPE)),
    }
}

/// The hash under `key` with no lookup side effects (after a lookup did them).
fn peek<'a>(srv: &'a Server, db: usize, key: &[u8]) -> Option<&'a Hash> {
    match srv.dbs[db].get(key).map(|o| &o.value) {
        Some(Value::Hash(h)) => Some(h),
        _ => None,
    }
}

/// Applies `f` to the hash at `key`, creating it first if `exists` is
/// false (`hashTypeLookupWriteOrCreate`, which `dbAdd`s a new hash).
/// `f` returns its result and whether it changed the hash.
fn write_hash<R>(
    ctx: &mut Ctx,
    key: &[u8],
    exists: bool,
    f: impl FnOnce(&mut Hash) -> (R, bool),
) -> Option<R> {
    let db = ctx.db();
    if !exists {
        let mut h = Hash::new();
        let (r, _) = f(&mut h);
        ctx.srv.set_key(db, key, Value::Hash(Box::new(h)), false);
        return Some(r);
    }
    update(ctx.srv, db, key, |v| match v {
        Value::Hash(h) => {
            let (r, changed) = f(h);
            (Some(r), changed)
        }
        _ => (None, false),
    })
    .flatten()
}

// ---------------------------------------------------------------------------
// Commands.

/// HSET and HMSET (`hsetCommand`): pairs only; HMSET replies OK.
fn hset(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() % 2 == 1 {
        return Frame::err(format!(
            "ERR wrong number of arguments for '{}' command",
            ctx.cmd.name
        ));
    }
    let exists = match write_lookup(ctx, &args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let lim = limits(ctx.srv);
    let created = write_hash(ctx, &args[1], exists, |h| {
        h.try_conversion(&args[2..], &lim);
        let created = args[2..]
            .chunks_exact(2)
            .filter(|p| !h.set(&p[0], &p[1], &lim))
            .count();
        (created, true)
    });
    if ctx.cmd.name == "hmset" {
        Frame::ok()
    } else {
        Frame::Integer(created.unwrap_or(0) as i64)
    }
}

fn hsetnx(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let exists = match write_lookup(ctx, &args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    if exists && peek(ctx.srv, db, &args[1]).is_some_and(|h| h.contains(&args[2])) {
        return Frame::Integer(0);
    }
    let lim = limits(ctx.srv);
    write_hash(ctx, &args[1], exists, |h| {
        h.try_conversion(&args[2..4], &lim);
        h.set(&args[2], &args[3], &lim);
        ((), true)
    });
    Frame::Integer(1)
}

fn hget(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match read(ctx, &args[1]) {
        Err(e) => e,
        Ok(h) => h
            .and_then(|h| h.get(&args[2]))
            .map_or(Frame::Null, Frame::bulk),
    }
}

fn hmget(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match read(ctx, &args[1]) {
        Err(e) => e,
        Ok(h) => Frame::Array(
            args[2..]
                .iter()
                .map(|f| h.and_then(|h| h.get(f)).map_or(Frame::Null, Frame::bulk))
                .collect(),
        ),
    }
}

/// HGETALL (a map), HKEYS and HVALS (arrays), in the hash's order.
fn hgetall_generic(ctx: &mut Ctx, key: &[u8], keys: bool, vals: bool) -> Frame {
    let h = match read(ctx, key) {
        Err(e) => return e,
        Ok(h) => h,
    };
    let pairs = h.into_iter().flat_map(|h| h.iter());
    if keys && vals {
        Frame::Map(
            pairs
                .map(|(f, v)| (Frame::bulk(f), Frame::bulk(v)))
                .collect(),
        )
    } else {
        Frame::Array(
            pairs
                .map(|(f, v)| Frame::bulk(if keys { f } else { v }))
                .collect(),
        )
    }
}

fn hgetall(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    hgetall_generic(ctx, &args[1], true, true)
}

fn hkeys(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    hgetall_generic(ctx, &args[1], true, false)
}

fn hvals(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    hgetall_generic(ctx, &args[1], false, true)
}

/// HDEL: stops once the hash is empty, and deletes the key.
fn hdel(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match write_lookup(ctx, &args[1]) {
        Err(e) => return e,
        Ok(false) => return Frame::Integer(0),
        Ok(true) => {}
    }
    let db = ctx.db();
    let (deleted, emptied) = update(ctx.srv, db, &args[1], |v| {
        let Value::Hash(h) = v else {
            return ((0, false), false);
        };
        let mut deleted = 0;
        for f in &args[2..] {
            if h.delete(f) {
                deleted += 1;
                if h.is_empty() {
                    break;
                }
            }
        }
        ((deleted, h.is_empty()), deleted > 0)
    })
    .unwrap_or((0, false));
    if emptied {
        ctx.srv.delete(db, &args[1], DeleteCause::Del);
    }
    Frame::Integer(deleted)
}

fn hlen(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match read(ctx, &args[1]) {
        Err(e) => e,
        Ok(h) => Frame::Integer(h.map_or(0, |h| h.len() as i64)),
    }
}

fn hstrlen(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match read(ctx, &args[1]) {
        Err(e) => e,
        Ok(h) => Frame::Integer(
            h.and_then(|h| h.get(&args[2]))
                .map_or(0, |v| v.len() as i64),
        ),
    }
}

fn hexists(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match read(ctx, &args[1]) {
        Err(e) => e,
        Ok(h) => Frame::Integer(h.is_some_and(|h| h.contains(&args[2])) as i64),
    }
}

/// HINCRBY: the increment is parsed first, then the key is looked up
/// (and created), then the field's value is checked.
fn hincrby(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let incr = match arg_i64(&args[3]) {
        Ok(n) => n,
        Err(e) => return e,
    };
    let exists = match write_lookup(ctx, &args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    let current = match peek(ctx.srv, db, &args[1]).and_then(|h| h.get(&args[2])) {
        None => 0,
        Some(v) => match parse_i64(v) {
            Some(n) => n,
            None => return Frame::err("ERR hash value is not an integer"),
        },
    };
    let Some(new) = current.checked_add(incr) else {
        return Frame::err("ERR increment or decrement would overflow");
    };
    let lim = limits(ctx.srv);
    write_hash(ctx, &args[1], exists, |h| {
        h.set(&args[2], new.to_string().as_bytes(), &lim);
        ((), true)
    });
    Frame::Integer(new)
}

/// HINCRBYFLOAT in x87 extended precision, formatted as INCRBYFLOAT does.
fn hincrbyfloat(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let Some(incr) = LongDouble::parse(&args[3]) else {
        return Frame::err(NOT_FLOAT);
    };
    if !incr.is_finite() {
        return Frame::err("ERR value is NaN or Infinity");
    }
    let exists = match write_lookup(ctx, &args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    let current = match peek(ctx.srv, db, &args[1]).and_then(|h| h.get(&args[2])) {
        None => LongDouble::ZERO,
        Some(v) => match LongDouble::parse(v) {
            Some(x) => x,
            None => return Frame::err("ERR hash value is not a float"),
        },
    };
    let sum = current + incr;
    if !sum.is_finite() {
        return Frame::err("ERR increment would produce NaN or Infinity");
    }
    let text = sum.to_human().into_bytes();
    let lim = limits(ctx.srv);
    write_hash(ctx, &args[1], exists, |h| {
        h.set(&args[2], &text, &lim);
        ((), true)
    });
    Frame::Bulk(text)
}

/// HRANDFIELD: without a count, one field (nil if no key); with one, the
/// count is checked before the key, and WITHVALUES halves its range.
fn hrandfield(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() >= 3 {
        let l = match count_arg(&args[2]) {
            Ok(n) => n,
            Err(e) => return e,
        };
        if args.len() > 4 || (args.len() == 4 && !opt_is(&args[3], "withvalues")) {
            return Frame::err(SYNTAX);
        }
        let withvalues = args.len() == 4;
        if withvalues && !(-i64::MAX / 2..=i64::MAX / 2).contains(&l) {
            return Frame::err("ERR value is out of range");
        }
        return hrandfield_count(ctx, &args[1], l, withvalues);
    }
    if let Err(e) = read(ctx, &args[1]) {
        return e;
    }
    let db = ctx.db();
    let srv = &mut *ctx.srv;
    match peek_split(srv, db, &args[1]) {
        (Some(h), rng) => h
            .random_pair(rng)
            .map_or(Frame::Null, |(f, _)| Frame::bulk(f)),
        (None, _) => Frame::Null,
    }
}

/// The hash at `key` and the RNG, borrowed together.
fn peek_split<'a>(
    srv: &'a mut Server,
    db: usize,
    key: &[u8],
) -> (Option<&'a Hash>, &'a mut fastrand::Rng) {
    let Server { dbs, rng, .. } = srv;
    let h = match dbs[db].get(key).map(|o| &o.value) {
        Some(Value::Hash(h)) => Some(&**h),
        _ => None,
    };
    (h, rng)
}

/// `hrandfieldWithCountCommand`'s cases: repeats allowed (negative count,
/// or 1), the whole hash (count ≥ size), distinct fields in listpack order
/// (a small hash), or distinct random fields of a table.
fn hrandfield_count(ctx: &mut Ctx, key: &[u8], l: i64, withvalues: bool) -> Frame {
    match read(ctx, key) {
        Err(e) => return e,
        Ok(None) => return Frame::Array(vec![]),
        Ok(Some(_)) => {}
    }
    let resp3 = ctx.client.resp >= 3;
    let (count, uniq) = (l.unsigned_abs(), l >= 0);
    if count == 0 {
        return Frame::Array(vec![]);
    }
    let db = ctx.db();
    let (Some(h), rng) = peek_split(ctx.srv, db, key) else {
        return Frame::Array(vec![]);
    };
    let size = h.len() as u64;
    let mut out: Vec<Frame> = Vec::new();
    let mut push = |f: &[u8], v: &[u8]| {
        if !withvalues {
            out.push(Frame::bulk(f));
        } else if resp3 {
            out.push(Frame::Array(vec![Frame::bulk(f), Frame::bulk(v)]));
        } else {
            out.push(Frame::bulk(f));
            out.push(Frame::bulk(v));
        }
    };
    if !uniq || count == 1 {
        if count > MAX_RANDOM_REPLY {
            return too_many_random();
        }
        for _ in 0..count {
            if let Some((f, v)) = h.random_pair(rng) {
                push(f, v);
            }
        }
    } else if count >= size {
        for (f, v) in h.iter() {
            push(f, v);
        }
    } else if let Some(lp) = h.listpack() {
        for i in sample_indices(rng, lp.len(), count as usize) {
            push(&lp[i].0, &lp[i].1);
        }
    } else if count * 3 > size {
        // Copy everything, then drop random pairs down to the count.
        let mut all: Vec<(&[u8], &[u8])> = h.iter().collect();
        while all.len() as u64 > count {
            all.swap_remove(rng.usize(..all.len()));
        }
        for (f, v) in all {
            push(f, v);
        }
    } else {
        let mut picked = std::collections::BTreeSet::new();
        while (picked.len() as u64) < count {
            let Some((f, v)) = h.random_pair(rng) else {
                break;
            };
            if picked.insert(f) {
                push(f, v);
            }
        }
    }
    Frame::Array(out)
}

/// HSCAN: the cursor is checked before the key, the options after it; a
/// listpack comes whole with cursor 0.
fn hscan(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let cursor = match scan_cursor(&args[2]) {
        Ok(c) => c,
        Err(e) => return e,
    };
    match read(ctx, &args[1]) {
        Err(e) => return e,
        Ok(None) => return scan_reply(0, vec![]),
        Ok(Some(_)) => {}
    }
    let opts = match scan_opts(args) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let db = ctx.db();
    let Some(h) = peek(ctx.srv, db, &args[1]) else {
        return scan_reply(0, vec![]);
    };
    let mut items = Vec::new();
    if h.is_listpack() {
        for (f, v) in h.iter().filter(|(f, _)| opts.matches(f)) {
            items.push(f.to_vec());
            items.push(v.to_vec());
        }
        return scan_reply(0, items);
    }
    let next = scan_steps(cursor, opts.count, |c| {
        let mut seen = 0;
        let next = h.scan_table(c, |f, v| {
            seen += 1;
            if opts.matches(f) {
                items.push(f.to_vec());
                items.push(v.to_vec());
            }
        });
        (next, seen)
    });
    scan_reply(next, items)
}

#[cfg(test)]
mod tests {
    use crate::{Engine, Frame};

    fn run(e: &mut Engine, c: u64, args: &[&str]) -> Frame {
        let v: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        e.execute(c, &v)
    }

    fn encoding(e: &mut Engine, c: u64, key: &str) -> Frame {
        run(e, c, &["OBJECT", "ENCODING", key])
    }

    /// The thresholds at their edges, moved by CONFIG SET under both names.
    #[test]
    fn listpack_limits_and_config_changes() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        let listpack = Frame::bulk("listpack");
        let table = Frame::bulk("hashtable");
        run(
            &mut e,
            c,
            &["CONFIG", "SET", "hash-max-ziplist-entries", "3"],
        );
        assert_eq!(
            run(&mut e, c, &["CONFIG", "GET", "hash-max-listpack-entries"]),
            Frame::Map(vec![(
                Frame::bulk("hash-max-listpack-entries"),
                Frame::bulk("3")
            )])
        );
        run(&mut e, c, &["HSET", "a", "1", "x", "2", "x", "3", "x"]);
        assert_eq!(encoding(&mut e, c, "a"), listpack);
        run(&mut e, c, &["HSET", "a", "3", "y"]);
        assert_eq!(
            encoding(&mut e, c, "a"),
            listpack,
            "an update adds no field"
        );
        run(&mut e, c, &["HINCRBY", "a", "4", "1"]);
        assert_eq!(encoding(&mut e, c, "a"), table);
        // Four pairs in one HSET, even of one field, convert at once (7.2).
        run(
            &mut e,
            c,
            &["HSET", "b", "f", "1", "f", "2", "f", "3", "f", "4"],
        );
        assert_eq!(encoding(&mut e, c, "b"), table);
        assert_eq!(run(&mut e, c, &["HLEN", "b"]), Frame::Integer(1));
        run(
            &mut e,
            c,
            &["CONFIG", "SET", "hash-max-listpack-value", "4"],
        );
        run(&mut e, c, &["HSET", "v", "f", "1234"]);
        assert_eq!(encoding(&mut e, c, "v"), listpack);
        run(&mut e, c, &["HINCRBY", "v", "f", "99999"]);
        assert_eq!(run(&mut e, c, &["HGET", "v", "f"]), Frame::bulk("101233"));
        assert_eq!(encoding(&mut e, c, "v"), table, "a long result converts");
        run(&mut e, c, &["HSET", "w", "abcde", "1"]);
        assert_eq!(encoding(&mut e, c, "w"), table, "a long field converts");
        // A lowered limit does not convert what exists until it is written.
        run(
            &mut e,
            c,
            &["CONFIG", "SET", "hash-max-listpack-value", "64"],
        );
        run(&mut e, c, &["HSET", "x", "f", "long-value"]);
        run(&mut e, c, &["CONFIG", "SET", "hash-max-ziplist-value", "2"]);
        assert_eq!(encoding(&mut e, c, "x"), listpack);
        run(&mut e, c, &["HSET", "x", "g", "1"]);
        assert_eq!(encoding(&mut e, c, "x"), listpack, "short arguments");
        run(&mut e, c, &["HSET", "x", "g", "123"]);
        assert_eq!(encoding(&mut e, c, "x"), table);
    }

    /// Emptied hashes are deleted; memory goes back to where it was.
    #[test]
    fn emptied_hashes_go_away() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        let before = e.server().used_memory();
        run(&mut e, c, &["HSET", "h", "a", "1", "b", "2"]);
        assert!(e.server().used_memory() > before);
        assert_eq!(
            run(&mut e, c, &["HDEL", "h", "a", "b", "c"]),
            Frame::Integer(2)
        );
        assert_eq!(run(&mut e, c, &["EXISTS", "h"]), Frame::Integer(0));
        let db = &e.server().dbs[0];
        assert_eq!(
            e.server().used_memory(),
            before + 8 * db.dict.buckets() as u64
        );
        let deleted = e
            .trace()
            .events()
            .any(|ev| matches!(&ev.event, crate::server::trace::Event::Deleted { key, .. } if key == "h"));
        assert!(deleted, "the trace records the deletion");
    }
}
