//! Stream commands (t_stream.c): XADD XRANGE XREVRANGE XLEN XDEL XTRIM XREAD XREADGROUP XGROUP XACK XPENDING XCLAIM XAUTOCLAIM XINFO XSETID, with Redis 7.2's parsing, error order, keyspace lookups and consumer-group bookkeeping.
//!
//! What is observable is followed closely: the order in which arguments
//! are parsed and keys looked up decides which error wins and how many
//! keyspace hits and misses INFO counts (XREAD looks each key up twice,
//! XACK and XCLAIM look the key up before parsing their IDs). Only XADD,
//! XDEL, XTRIM and XGROUP CREATE MKSTREAM signal the key as modified
//! (WATCH); consumer-group commands change the value without doing so, as
//! in Redis. Times (`*` IDs, delivery times, idle times) come from the
//! virtual clock, fixed for the duration of a command as
//! `commandTimeSnapshot()` is.
//!
//! XREAD and XREADGROUP block through [`crate::blocking`]: the command is
//! run again when XADD (or the creation of the key, or XGROUP DESTROY)
//! signals one of its keys; `$` is rewritten to the ID it stood for when
//! the client blocked, and a blocked XREADGROUP is also woken when its key
//! is deleted or overwritten (7.2), so the re-run answers NOGROUP or
//! WRONGTYPE.

use super::strings::{cstr, opt_is};
use super::{arg_i64, Command, Ctx, NOT_INTEGER, SYNTAX, WRONGTYPE};
use crate::blocking::{block_for_stream, may_block};
use crate::keyspace::object::Value;
use crate::keyspace::types::stream::{AppendError, Entry, Log, NodeLimits, Stream, StreamId, Trim};
use crate::proto::resp::{parse_i64, Frame};
use crate::server::trace::Event;
use crate::server::{lossy, Server};

/// Defines one stream command entry.
macro_rules! stream_cmd {
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
            group: "stream",
            handler: $handler,
            subcommands: &[],
        }
    };
}

pub static COMMANDS: &[Command] = &[
    stream_cmd!("xadd", -5, ["write", "denyoom", "fast"], (1, 1, 1), ["write", "stream", "fast"],
        "XADD key [NOMKSTREAM] [<MAXLEN | MINID> [= | ~] threshold [LIMIT count]] <* | id> field value [field value ...]",
        "Appends an entry to a stream (creating it), optionally trimming it; replies with the entry's ID.",
        "5.0.0", xadd),
    stream_cmd!("xrange", -4, ["readonly"], (1, 1, 1), ["read", "stream", "slow"],
        "XRANGE key start end [COUNT count]",
        "Replies with the entries whose IDs are in a range (`-` and `+` for the ends, `(` to exclude).",
        "5.0.0", xrange),
    stream_cmd!("xrevrange", -4, ["readonly"], (1, 1, 1), ["read", "stream", "slow"],
        "XREVRANGE key end start [COUNT count]",
        "Like XRANGE, from the end of the range down.", "5.0.0", xrevrange),
    stream_cmd!("xlen", 2, ["readonly", "fast"], (1, 1, 1), ["read", "stream", "fast"],
        "XLEN key", "Replies with the number of entries in a stream.", "5.0.0", xlen),
    stream_cmd!("xdel", -3, ["write", "fast"], (1, 1, 1), ["write", "stream", "fast"],
        "XDEL key id [id ...]",
        "Deletes entries by ID; replies with how many existed.", "5.0.0", xdel),
    stream_cmd!("xtrim", -4, ["write"], (1, 1, 1), ["write", "stream", "slow"],
        "XTRIM key <MAXLEN | MINID> [= | ~] threshold [LIMIT count]",
        "Removes the oldest entries (whole nodes only with `~`); replies with how many.",
        "5.0.0", xtrim),
    stream_cmd!("xread", -4, ["readonly", "blocking", "movablekeys"], (0, 0, 0),
        ["read", "stream", "slow", "blocking"],
        "XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]",
        "Reads entries newer than the given IDs from several streams, waiting for some with BLOCK (`$`: only new ones).",
        "5.0.0", xread),
    stream_cmd!("xreadgroup", -7, ["write", "blocking", "movablekeys"], (0, 0, 0),
        ["write", "stream", "slow", "blocking"],
        "XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]",
        "Reads entries for a consumer of a group: new ones with `>` (recorded as pending), or its own pending history.",
        "5.0.0", xread),
    stream_cmd!("xack", -4, ["write", "fast"], (1, 1, 1), ["write", "stream", "fast"],
        "XACK key group id [id ...]",
        "Acknowledges pending entries of a group; replies with how many were pending.",
        "5.0.0", xack),
    stream_cmd!("xpending", -3, ["readonly"], (1, 1, 1), ["read", "stream", "slow"],
        "XPENDING key group [[IDLE min-idle-time] start end count [consumer]]",
        "Summarises a group's pending entries, or lists them with owner, idle time and deliveries.",
        "5.0.0", xpending),
    stream_cmd!("xclaim", -6, ["write", "fast"], (1, 1, 1), ["write", "stream", "fast"],
        "XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]",
        "Gives pending entries idle long enough to another consumer.", "5.0.0", xclaim),
    stream_cmd!("xautoclaim", -6, ["write", "fast"], (1, 1, 1), ["write", "stream", "fast"],
        "XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]",
        "Scans a group's pending entries from an ID and claims those idle long enough; replies with a cursor, the claimed and the vanished entries.",
        "6.2.0", xautoclaim),
    stream_cmd!("xsetid", -3, ["write", "denyoom", "fast"], (1, 1, 1), ["write", "stream", "fast"],
        "XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]",
        "Sets a stream's last ID and counters (for replication).", "5.0.0", xsetid),
    Command {
        name: "xgroup",
        arity: -2,
        flags: &[],
        keys: (0, 0, 0),
        acl: &["slow"],
        syntax: "XGROUP <subcommand>",
        summary: "Manages consumer groups and their consumers.",
        since: "5.0.0",
        group: "stream",
        handler: super::container,
        subcommands: XGROUP_SUBCOMMANDS,
    },
    Command {
        name: "xinfo",
        arity: -2,
        flags: &[],
        keys: (0, 0, 0),
        acl: &["slow"],
        syntax: "XINFO <subcommand>",
        summary: "Describes a stream, its consumer groups or a group's consumers.",
        since: "5.0.0",
        group: "stream",
        handler: super::container,
        subcommands: XINFO_SUBCOMMANDS,
    },
];

/// XGROUP's subcommands, in the order Redis lists them.
static XGROUP_SUBCOMMANDS: &[Command] = &[
    stream_cmd!(
        "create",
        -5,
        ["write", "denyoom"],
        (2, 2, 1),
        ["write", "stream", "slow"],
        "XGROUP CREATE key group <id | $> [MKSTREAM] [ENTRIESREAD entries-read]",
        "Creates a consumer group reading after an ID (`$`: the last one).",
        "5.0.0",
        xgroup
    ),
    stream_cmd!(
        "createconsumer",
        5,
        ["write", "denyoom"],
        (2, 2, 1),
        ["write", "stream", "slow"],
        "XGROUP CREATECONSUMER key group consumer",
        "Creates a consumer in a group; replies 1 if it is new.",
        "6.2.0",
        xgroup
    ),
    stream_cmd!(
        "delconsumer",
        5,
        ["write"],
        (2, 2, 1),
        ["write", "stream", "slow"],
        "XGROUP DELCONSUMER key group consumer",
        "Deletes a consumer and its pending entries; replies with how many it had.",
        "5.0.0",
        xgroup
    ),
    stream_cmd!(
        "destroy",
        4,
        ["write"],
        (2, 2, 1),
        ["write", "stream", "slow"],
        "XGROUP DESTROY key group",
        "Deletes a consumer group.",
        "5.0.0",
        xgroup
    ),
    stream_cmd!(
        "help",
        2,
        ["loading", "stale"],
        (0, 0, 0),
        ["stream", "slow"],
        "XGROUP HELP",
        "Lists XGROUP's subcommands.",
        "5.0.0",
        xgroup
    ),
    stream_cmd!(
        "setid",
        -5,
        ["write"],
        (2, 2, 1),
        ["write", "stream", "slow"],
        "XGROUP SETID key group <id | $> [ENTRIESREAD entries-read]",
        "Moves a group's last delivered ID.",
        "5.0.0",
        xgroup
    ),
];

/// XINFO's subcommands, in the order Redis lists them.
static XINFO_SUBCOMMANDS: &[Command] = &[
    stream_cmd!("consumers", 4, ["readonly"], (2, 2, 1), ["read", "stream", "slow"],
        "XINFO CONSUMERS key group",
        "Lists a group's consumers with their pending count, idle and inactive times.", "5.0.0", xinfo),
    stream_cmd!("groups", 3, ["readonly"], (2, 2, 1), ["read", "stream", "slow"],
        "XINFO GROUPS key", "Lists a stream's consumer groups.", "5.0.0", xinfo),
    stream_cmd!("help", 2, ["loading", "stale"], (0, 0, 0), ["stream", "slow"],
        "XINFO HELP", "Lists XINFO's subcommands.", "5.0.0", xinfo_help),
    stream_cmd!("stream", -3, ["readonly"], (2, 2, 1), ["read", "stream", "slow"],
        "XINFO STREAM key [FULL [COUNT count]]",
        "Describes a stream: length, tree, IDs, first and last entries; FULL adds entries, groups and consumers.",
        "5.0.0", xinfo),
];

// ---------------------------------------------------------------------------
// IDs.

const INVALID_ID: &str = "ERR Invalid stream ID specified as stream command argument";

fn invalid_id() -> Frame {
    Frame::err(INVALID_ID)
}

/// `string2ull`: `string2ll` when it applies (negative values refused),
/// else C's `strtoull` over the whole string: leading spaces, a sign (a
/// minus wraps), no overflow, nothing after the digits.
fn string2ull(s: &[u8]) -> Option<u64> {
    if let Some(v) = parse_i64(s) {
        return (v >= 0).then_some(v as u64);
    }
    let mut p = s
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .map_or(&s[s.len()..], |i| &s[i..]);
    let neg = match p.first() {
        Some(b'-') => {
            p = &p[1..];
            true
        }
        Some(b'+') => {
            p = &p[1..];
            false
        }
        _ => false,
    };
    if p.is_empty() || !p.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: u64 = 0;
    for &c in p {
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `streamGenericParseIDOrReply`: `ms-seq`, `ms` (sequence `missing_seq`),
/// `-` and `+` unless `strict`, and `ms-*` when `auto_seq` (the returned
/// flag is then false: the sequence is the stream's to pick).
fn parse_id(
    arg: &[u8],
    missing_seq: u64,
    strict: bool,
    auto_seq: bool,
) -> Result<(StreamId, bool), Frame> {
    if arg.len() > 127 {
        return Err(invalid_id());
    }
    let s = cstr(arg);
    if strict && (s == b"-" || s == b"+") {
        return Err(invalid_id());
    }
    if s == b"-" {
        return Ok((StreamId::MIN, true));
    }
    if s == b"+" {
        return Ok((StreamId::MAX, true));
    }
    let (ms_part, seq_part) = match s.iter().position(|&c| c == b'-') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let ms = string2ull(ms_part).ok_or_else(invalid_id)?;
    let (seq, given) = match seq_part {
        None => (missing_seq, true),
        Some(b"*") if auto_seq => (0, false),
        Some(p) => (string2ull(p).ok_or_else(invalid_id)?, true),
    };
    Ok((StreamId::new(ms, seq), given))
}

/// `streamParseStrictIDOrReply` with a missing sequence of 0.
fn strict_id(arg: &[u8]) -> Result<StreamId, Frame> {
    parse_id(arg, 0, true, false).map(|(id, _)| id)
}

/// `streamParseIntervalIDOrReply`: a range end, `(` making it exclusive
/// (and strict).
fn interval_id(arg: &[u8], missing_seq: u64) -> Result<(StreamId, bool), Frame> {
    if arg.len() > 1 && arg[0] == b'(' {
        Ok((parse_id(&arg[1..], missing_seq, true, false)?.0, true))
    } else {
        Ok((parse_id(arg, missing_seq, false, false)?.0, false))
    }
}

/// A range's start and end from two arguments (exclusive ends moved
/// inward), with Redis' errors for ends that cannot move.
fn range_ends(start: &[u8], end: &[u8]) -> Result<(StreamId, StreamId), Frame> {
    let (mut s, sx) = interval_id(start, 0)?;
    if sx {
        s = s
            .incr()
            .ok_or_else(|| Frame::err("ERR invalid start ID for the interval"))?;
    }
    let (mut e, ex) = interval_id(end, u64::MAX)?;
    if ex {
        e = e
            .decr()
            .ok_or_else(|| Frame::err("ERR invalid end ID for the interval"))?;
    }
    Ok((s, e))
}

fn id_frame(id: StreamId) -> Frame {
    Frame::Bulk(id.to_string().into_bytes())
}

/// An entry as replies carry it: `[id, [field, value, ...]]`.
fn entry_frame(e: &Entry) -> Frame {
    let mut fv = Vec::with_capacity(e.fields.len() * 2);
    for (f, v) in &e.fields {
        fv.push(Frame::bulk(f));
        fv.push(Frame::bulk(v));
    }
    Frame::Array(vec![id_frame(e.id), Frame::Array(fv)])
}

/// A name as `%s` prints it in an error: up to the first NUL.
fn c_name(b: &[u8]) -> String {
    lossy(cstr(b))
}

// ---------------------------------------------------------------------------
// Lookups and writes.

/// `lookupKeyRead` + `checkType`: true if a stream is there.
fn read_lookup(ctx: &mut Ctx, key: &[u8]) -> Result<bool, Frame> {
    let db = ctx.db();
    match ctx.srv.lookup_read(db, key).map(|o| &o.value) {
        None => Ok(false),
        Some(Value::Stream(_)) => Ok(true),
        Some(_) => Err(Frame::err(WRONGTYPE)),
    }
}

/// `lookupKeyWrite` + `checkType`: true if a stream is there.
fn write_lookup(ctx: &mut Ctx, key: &[u8]) -> Result<bool, Frame> {
    let db = ctx.db();
    match ctx.srv.lookup_write(db, key).map(|o| &o.value) {
        None => Ok(false),
        Some(Value::Stream(_)) => Ok(true),
        Some(_) => Err(Frame::err(WRONGTYPE)),
    }
}

/// The stream under `key`, without lookup side effects.
fn peek<'a>(srv: &'a Server, db: usize, key: &[u8]) -> Option<&'a Stream> {
    match srv.dbs[db].get(key).map(|o| &o.value) {
        Some(Value::Stream(s)) => Some(s),
        _ => None,
    }
}

/// Changes the stream under `key` in place with memory accounted; `touch`
/// signals the key as modified (WATCH) and traces the write, which Redis
/// does for XADD, XDEL and XTRIM but not for consumer-group changes.
fn update<R>(
    srv: &mut Server,
    db: usize,
    key: &[u8],
    touch: bool,
    f: impl FnOnce(&mut Stream) -> R,
) -> Option<R> {
    let r = srv.dbs[db]
        .with_mut(key, |o| match &mut o.value {
            Value::Stream(s) => Some(f(s)),
            _ => None,
        })
        .flatten()?;
    if touch {
        srv.touch_key(db, key);
        srv.emit_with(|| Event::Written {
            db: db as u32,
            key: lossy(key),
        });
    }
    Some(r)
}

/// `signalKeyAsReady(key, OBJ_STREAM)`: clients blocked on the key run again.
fn signal_ready(srv: &mut Server, db: usize, key: &[u8]) {
    let Server { dbs, blocking, .. } = srv;
    if let Some(o) = dbs[db].get(key) {
        blocking.signal_ready(db, key, &o.value);
    }
}

fn limits(srv: &Server) -> NodeLimits {
    NodeLimits {
        max_bytes: srv.config.stream_node_max_bytes,
        max_entries: srv.config.stream_node_max_entries,
    }
}

/// `addReplyHelp`.
fn help_reply(args: &[Vec<u8>], lines: &[&str]) -> Frame {
    let cmd = lossy(cstr(&args[0])).to_ascii_uppercase();
    let mut out = vec![Frame::simple(format!(
        "{cmd} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    ))];
    out.extend(lines.iter().map(|l| Frame::simple(l.to_string())));
    out.push(Frame::Simple("HELP".into()));
    out.push(Frame::Simple("    Print this help.".into()));
    Frame::Array(out)
}

// ---------------------------------------------------------------------------
// XADD / XTRIM.

/// What `streamParseAddOrTrimArgsOrReply` gathers.
struct AddTrimArgs {
    /// Position of the ID argument (XADD).
    idpos: usize,
    /// An explicit ID and whether its sequence was given.
    id: Option<(StreamId, bool)>,
    no_mkstream: bool,
    strategy: Option<Trim>,
    approx: bool,
    limit: i64,
}

/// `streamParseAddOrTrimArgsOrReply`.
fn parse_add_trim(args: &[Vec<u8>], xadd: bool, srv: &Server) -> Result<AddTrimArgs, Frame> {
    let both = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";
    let mut a = AddTrimArgs {
        idpos: args.len(),
        id: None,
        no_mkstream: false,
        strategy: None,
        approx: false,
        limit: 0,
    };
    let mut limit_given = false;
    let argc = args.len();
    let mut i = 2;
    while i < argc {
        let moreargs = argc - 1 - i;
        let opt = &args[i];
        if xadd && cstr(opt) == b"*" {
            break;
        } else if opt_is(opt, "maxlen") && moreargs > 0 {
            if a.strategy.is_some() {
                return Err(Frame::err(both));
            }
            a.approx = false;
            let next = cstr(&args[i + 1]);
            if moreargs >= 2 && next == b"~" {
                a.approx = true;
                i += 1;
            } else if moreargs >= 2 && next == b"=" {
                i += 1;
            }
            let max = arg_i64(&args[i + 1])?;
            if max < 0 {
                return Err(Frame::err("ERR The MAXLEN argument must be >= 0."));
            }
            i += 1;
            a.strategy = Some(Trim::MaxLen(max as u64));
        } else if opt_is(opt, "minid") && moreargs > 0 {
            if a.strategy.is_some() {
                return Err(Frame::err(both));
            }
            a.approx = false;
            let next = cstr(&args[i + 1]);
            if moreargs >= 2 && next == b"~" {
                a.approx = true;
                i += 1;
            } else if moreargs >= 2 && next == b"=" {
                i += 1;
            }
            let min = strict_id(&args[i + 1])?;
            i += 1;
            a.strategy = Some(Trim::MinId(min));
        } else if opt_is(opt, "limit") && moreargs > 0 {
            a.limit = arg_i64(&args[i + 1])?;
            if a.limit < 0 {
                return Err(Frame::err("ERR The LIMIT argument must be >= 0."));
            }
            limit_given = true;
            i += 1;
        } else if xadd && opt_is(opt, "nomkstream") {
            a.no_mkstream = true;
        } else if xadd {
            a.id = Some(parse_id(opt, 0, true, true)?);
            break;
        } else {
            return Err(Frame::err(SYNTAX));
        }
        i += 1;
    }
    a.idpos = i;
    if a.limit != 0 && a.strategy.is_none() {
        return Err(Frame::err(
            "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy",
        ));
    }
    if !xadd && a.strategy.is_none() {
        return Err(Frame::err(
            "ERR syntax error, XTRIM must be called with a trimming strategy",
        ));
    }
    if limit_given {
        if !a.approx {
            return Err(Frame::err(
                "ERR syntax error, LIMIT cannot be used without the special ~ option",
            ));
        }
    } else if a.approx {
        // At most 100 nodes' worth of entries unless LIMIT says otherwise.
        let per = srv.config.stream_node_max_entries as i64;
        a.limit = match per.wrapping_mul(100) {
            n if n <= 0 => 10_000,
            n if n > 1_000_000 => 1_000_000,
            n => n,
        };
    } else {
        a.limit = 0;
    }
    Ok(a)
}

fn xadd(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let a = match parse_add_trim(args, true, ctx.srv) {
        Ok(a) => a,
        Err(e) => return e,
    };
    let field_pos = a.idpos + 1;
    let nfields = args.len() as i64 - field_pos as i64;
    if nfields < 2 || nfields % 2 == 1 {
        return Frame::err("ERR wrong number of arguments for 'xadd' command");
    }
    if let Some((id, true)) = a.id {
        if id.is_zero() {
            return Frame::err("ERR The ID specified in XADD must be greater than 0-0");
        }
    }
    let key = &args[1];
    let exists = match write_lookup(ctx, key) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    if !exists {
        if a.no_mkstream {
            return Frame::Null;
        }
        ctx.srv
            .set_key(db, key, Value::Stream(Box::new(Stream::new())), false);
    }
    if peek(ctx.srv, db, key).is_some_and(|s| s.log().last_id() == StreamId::MAX) {
        return Frame::err(
            "ERR The stream has exhausted the last possible ID, unable to add more items",
        );
    }
    let now = ctx.srv.now_ms().max(0) as u64;
    let lim = limits(ctx.srv);
    let added = update(ctx.srv, db, key, false, |s| {
        s.log_mut().append(&args[field_pos..], a.id, now, lim)
    });
    let id =
        match added {
            Some(Ok(id)) => id,
            Some(Err(AppendError::IdTooSmall)) => return Frame::err(
                "ERR The ID specified in XADD is equal or smaller than the target stream top item",
            ),
            Some(Err(AppendError::TooLarge)) => {
                return Frame::err("ERR Elements are too large to be stored")
            }
            None => return Frame::err(WRONGTYPE),
        };
    if let Some(strategy) = a.strategy {
        update(ctx.srv, db, key, false, |s| {
            s.log_mut().trim(strategy, a.approx, a.limit)
        });
    }
    ctx.srv.touch_key(db, key);
    ctx.srv.emit_with(|| Event::Written {
        db: db as u32,
        key: lossy(key),
    });
    signal_ready(ctx.srv, db, key);
    id_frame(id)
}

fn xtrim(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let a = match parse_add_trim(args, false, ctx.srv) {
        Ok(a) => a,
        Err(e) => return e,
    };
    match write_lookup(ctx, &args[1]) {
        Err(e) => return e,
        Ok(false) => return Frame::Integer(0),
        Ok(true) => {}
    }
    let Some(strategy) = a.strategy else {
        return Frame::err(SYNTAX);
    };
    let db = ctx.db();
    let deleted = update(ctx.srv, db, &args[1], false, |s| {
        s.log_mut().trim(strategy, a.approx, a.limit)
    })
    .unwrap_or(0);
    if deleted > 0 {
        ctx.srv.touch_key(db, &args[1]);
        ctx.srv.emit_with(|| Event::Written {
            db: db as u32,
            key: lossy(&args[1]),
        });
    }
    Frame::Integer(deleted)
}

// ---------------------------------------------------------------------------
// XRANGE, XREVRANGE, XLEN, XDEL.

fn xrange_generic(ctx: &mut Ctx, args: &[Vec<u8>], rev: bool) -> Frame {
    let (sarg, earg) = if rev {
        (&args[3], &args[2])
    } else {
        (&args[2], &args[3])
    };
    let (start, end) = match range_ends(sarg, earg) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let mut count: i64 = -1;
    let mut j = 4;
    while j < args.len() {
        let additional = args.len() - j - 1;
        if opt_is(&args[j], "count") && additional >= 1 {
            count = match arg_i64(&args[j + 1]) {
                Ok(n) => n.max(0),
                Err(e) => return e,
            };
            j += 1;
        } else {
            return Frame::err(SYNTAX);
        }
        j += 1;
    }
    match read_lookup(ctx, &args[1]) {
        Err(e) => return e,
        Ok(false) => return Frame::Array(vec![]),
        Ok(true) => {}
    }
    if count == 0 {
        return Frame::NullArray;
    }
    let limit = if count < 0 {
        usize::MAX
    } else {
        count as usize
    };
    let db = ctx.db();
    let Some(s) = peek(ctx.srv, db, &args[1]) else {
        return Frame::Array(vec![]);
    };
    let items: Vec<Frame> = if rev {
        s.log()
            .range_rev(start, end)
            .take(limit)
            .map(entry_frame)
            .collect()
    } else {
        s.log()
            .range(start, end)
            .take(limit)
            .map(entry_frame)
            .collect()
    };
    Frame::Array(items)
}

fn xrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    xrange_generic(ctx, args, false)
}

fn xrevrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    xrange_generic(ctx, args, true)
}

fn xlen(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match read_lookup(ctx, &args[1]) {
        Err(e) => e,
        Ok(false) => Frame::Integer(0),
        Ok(true) => {
            let db = ctx.db();
            Frame::Integer(peek(ctx.srv, db, &args[1]).map_or(0, |s| s.log().len() as i64))
        }
    }
}

/// XDEL: the key is looked up first, then every ID is checked before any
/// is deleted.
fn xdel(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match write_lookup(ctx, &args[1]) {
        Err(e) => return e,
        Ok(false) => return Frame::Integer(0),
        Ok(true) => {}
    }
    let mut ids = Vec::with_capacity(args.len() - 2);
    for a in &args[2..] {
        match strict_id(a) {
            Ok(id) => ids.push(id),
            Err(e) => return e,
        }
    }
    let db = ctx.db();
    let deleted = update(ctx.srv, db, &args[1], false, |s| s.log_mut().xdel(&ids)).unwrap_or(0);
    if deleted > 0 {
        ctx.srv.touch_key(db, &args[1]);
        ctx.srv.emit_with(|| Event::Written {
            db: db as u32,
            key: lossy(&args[1]),
        });
    }
    Frame::Integer(deleted as i64)
}

// ---------------------------------------------------------------------------
// XREAD / XREADGROUP.

/// `getTimeoutFromObjectOrReply(UNIT_MILLISECONDS)`: 0 waits forever,
/// anything else becomes an absolute Unix-ms deadline.
fn block_timeout(arg: &[u8], now_ms: i64) -> Result<i64, Frame> {
    let t = parse_i64(arg)
        .ok_or_else(|| Frame::err("ERR timeout is not an integer or out of range"))?;
    if t < 0 {
        return Err(Frame::err("ERR timeout is negative"));
    }
    if t > 0 {
        if t > i64::MAX - now_ms {
            return Err(Frame::err("ERR timeout is out of range"));
        }
        return Ok(t + now_ms);
    }
    Ok(0)
}

/// The group's read counter after delivering `id` past its last ID.
fn advance_entries_read(log: &Log, entries_read: i64, id: StreamId) -> i64 {
    if entries_read != -1 && !log.range_has_tombstones(Some(id), None) {
        entries_read + 1
    } else if log.entries_added() > 0 {
        log.estimate_distance(id)
    } else {
        entries_read
    }
}

/// XREAD and XREADGROUP (`xreadCommand`).
fn xread(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let group_cmd = ctx.cmd.name == "xreadgroup";
    let argc = args.len();
    let now = ctx.srv.now_ms();
    let mut timeout: Option<i64> = None;
    let mut count: i64 = 0;
    let mut streams_arg = 0;
    let mut nstreams = 0;
    let mut noack = false;
    let mut group: Option<(&[u8], &[u8])> = None;
    let mut i = 1;
    while i < argc {
        let moreargs = argc - i - 1;
        let o = &args[i];
        if opt_is(o, "BLOCK") && moreargs > 0 {
            i += 1;
            timeout = match block_timeout(&args[i], now) {
                Ok(t) => Some(t),
                Err(e) => return e,
            };
        } else if opt_is(o, "COUNT") && moreargs > 0 {
            i += 1;
            count = match arg_i64(&args[i]) {
                Ok(n) => n.max(0),
                Err(e) => return e,
            };
        } else if opt_is(o, "STREAMS") && moreargs > 0 {
            streams_arg = i + 1;
            nstreams = argc - streams_arg;
            if nstreams % 2 != 0 {
                let symbol = if group_cmd { '>' } else { '$' };
                return Frame::err(format!(
                    "ERR Unbalanced '{}' list of streams: for each stream key an ID or '{symbol}' must be specified.",
                    ctx.cmd.name
                ));
            }
            nstreams /= 2;
            break;
        } else if opt_is(o, "GROUP") && moreargs >= 2 {
            if !group_cmd {
                return Frame::err(
                    "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.",
                );
            }
            group = Some((&args[i + 1], &args[i + 2]));
            i += 2;
        } else if opt_is(o, "NOACK") {
            if !group_cmd {
                return Frame::err(
                    "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.",
                );
            }
            noack = true;
        } else {
            return Frame::err(SYNTAX);
        }
        i += 1;
    }
    if streams_arg == 0 {
        return Frame::err(SYNTAX);
    }
    if group_cmd && group.is_none() {
        return Frame::err("ERR Missing GROUP option for XREADGROUP");
    }
    let keys = &args[streams_arg..streams_arg + nstreams];
    let id_args = &args[streams_arg + nstreams..];
    let db = ctx.db();
    let mut ids = Vec::with_capacity(nstreams);
    for (key, idarg) in keys.iter().zip(id_args) {
        let exists = match read_lookup(ctx, key) {
            Ok(e) => e,
            Err(e) => return e,
        };
        let s = if exists { peek(ctx.srv, db, key) } else { None };
        if let Some((gname, _)) = group {
            if s.and_then(|s| s.groups().get(gname)).is_none() {
                return Frame::err(format!(
                    "NOGROUP No such key '{}' or consumer group '{}' in XREADGROUP with GROUP option",
                    c_name(key),
                    c_name(gname)
                ));
            }
        }
        let word = cstr(idarg);
        if word == b"$" {
            if group_cmd {
                return Frame::err(
                    "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.",
                );
            }
            ids.push(s.map_or(StreamId::MIN, |s| s.log().last_id()));
            continue;
        }
        if word == b">" {
            if !group_cmd {
                return Frame::err(
                    "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.",
                );
            }
            ids.push(StreamId::MAX);
            continue;
        }
        match strict_id(idarg) {
            Ok(id) => ids.push(id),
            Err(e) => return e,
        }
    }
    let limit = if count == 0 {
        usize::MAX
    } else {
        count as usize
    };
    let mut served: Vec<(Vec<u8>, Frame)> = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        if !matches!(read_lookup(ctx, key), Ok(true)) {
            continue;
        }
        let gt = ids[k];
        let items = match group {
            None => {
                let Some(s) = peek(ctx.srv, db, key) else {
                    continue;
                };
                let newer = s.log().last_valid_id().is_some_and(|max| max > gt);
                if !newer {
                    continue;
                }
                let start = gt.incr().unwrap_or(StreamId::MIN);
                s.log()
                    .range(start, StreamId::MAX)
                    .take(limit)
                    .map(entry_frame)
                    .collect::<Vec<_>>()
            }
            Some((gname, cname)) => {
                let r = update(ctx.srv, db, key, false, |s| {
                    read_group(s, gname, cname, gt, limit, noack, now)
                });
                match r.flatten() {
                    Some(items) => items,
                    None => continue,
                }
            }
        };
        served.push((key.clone(), Frame::Array(items)));
    }
    if !served.is_empty() {
        return if ctx.client.resp >= 3 {
            Frame::Map(
                served
                    .into_iter()
                    .map(|(k, v)| (Frame::Bulk(k), v))
                    .collect(),
            )
        } else {
            Frame::Array(
                served
                    .into_iter()
                    .map(|(k, v)| Frame::Array(vec![Frame::Bulk(k), v]))
                    .collect(),
            )
        };
    }
    let Some(timeout) = timeout else {
        return Frame::NullArray;
    };
    if !may_block(ctx.srv) {
        return Frame::NullArray;
    }
    // `$` becomes the ID it stood for, so the re-run after new data
    // does not wait for data newer than that data.
    let mut rewritten = args.to_vec();
    for (k, idarg) in id_args.iter().enumerate() {
        if cstr(idarg) == b"$" {
            rewritten[streams_arg + nstreams + k] = ids[k].to_string().into_bytes();
        }
    }
    block_for_stream(ctx.srv, keys, timeout, rewritten, group_cmd)
}

/// One stream of an XREADGROUP: creates the consumer if needed and marks
/// it seen, then serves its pending history (an ID other than `>`) or
/// entries past the group's last delivered ID, recording deliveries
/// unless NOACK. `None` when there is nothing to serve for `>`.
fn read_group(
    s: &mut Stream,
    gname: &[u8],
    cname: &[u8],
    gt: StreamId,
    limit: usize,
    noack: bool,
    now: i64,
) -> Option<Vec<Frame>> {
    let (log, groups) = s.parts_mut();
    groups
        .with_mut(gname, |g| {
            let history = gt != StreamId::MAX;
            let mut from = gt;
            let mut serve = history;
            if !history && !log.is_empty() {
                if let Some(max) = log.last_valid_id() {
                    if max > g.last_id {
                        serve = true;
                        from = g.last_id;
                    }
                }
            }
            g.create_consumer(cname, now);
            if let Some(c) = g.consumer_mut(cname) {
                c.seen_time = now;
            }
            if !serve {
                return None;
            }
            let start = from.incr().unwrap_or(StreamId::MIN);
            let mut items = Vec::new();
            if history {
                let pending: Vec<StreamId> = g
                    .consumer(cname)
                    .map(|c| c.pel().range(start..).take(limit).copied().collect())
                    .unwrap_or_default();
                for id in pending {
                    match log.get(id) {
                        Some(e) => {
                            items.push(entry_frame(e));
                            g.redeliver(id, now);
                        }
                        None => items.push(Frame::Array(vec![id_frame(id), Frame::NullArray])),
                    }
                }
                return Some(items);
            }
            for e in log.range(start, StreamId::MAX).take(limit) {
                if e.id > g.last_id {
                    g.entries_read = advance_entries_read(log, g.entries_read, e.id);
                    g.last_id = e.id;
                }
                items.push(entry_frame(e));
                if !noack {
                    g.deliver(e.id, cname, now);
                    if let Some(c) = g.consumer_mut(cname) {
                        c.active_time = now;
                    }
                }
            }
            Some(items)
        })
        .flatten()
}

// ---------------------------------------------------------------------------
// XGROUP, XSETID.

const XGROUP_HELP: &[&str] = &[
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
];

/// Every XGROUP subcommand (`xgroupCommand`): options and the key first,
/// then the key and group checks, then the subcommand.
fn xgroup(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let argc = args.len();
    let opt = &args[1];
    let mut mkstream = false;
    let mut entries_read: i64 = -1;
    let mut exists = false;
    let db = ctx.db();
    if argc >= 4 {
        let create = opt_is(opt, "CREATE");
        let setid = opt_is(opt, "SETID");
        let mut i = 5;
        while i < argc {
            if create && opt_is(&args[i], "MKSTREAM") {
                mkstream = true;
                i += 1;
            } else if (create || setid) && opt_is(&args[i], "ENTRIESREAD") && i + 1 < argc {
                entries_read = match arg_i64(&args[i + 1]) {
                    Ok(n) => n,
                    Err(e) => return e,
                };
                if entries_read < 0 && entries_read != -1 {
                    return Frame::err("ERR value for ENTRIESREAD must be positive or -1");
                }
                i += 2;
            } else {
                return super::subcommand_syntax_error(args);
            }
        }
        exists = match write_lookup(ctx, &args[2]) {
            Ok(e) => e,
            Err(e) => return e,
        };
    }
    let gname = args.get(3).map(|g| g.as_slice()).unwrap_or_default();
    if argc >= 4 && !mkstream {
        if !exists {
            return Frame::err(
                "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.",
            );
        }
        let has_group =
            peek(ctx.srv, db, &args[2]).is_some_and(|s| s.groups().get(gname).is_some());
        if !has_group
            && (opt_is(opt, "SETID") || opt_is(opt, "CREATECONSUMER") || opt_is(opt, "DELCONSUMER"))
        {
            return Frame::err(format!(
                "NOGROUP No such consumer group '{}' for key name '{}'",
                c_name(gname),
                c_name(&args[2])
            ));
        }
    }
    let now = ctx.srv.now_ms();
    if argc == 2 && opt_is(opt, "HELP") {
        help_reply(args, XGROUP_HELP)
    } else if opt_is(opt, "CREATE") && (5..=8).contains(&argc) {
        let id = if cstr(&args[4]) == b"$" {
            peek(ctx.srv, db, &args[2]).map_or(StreamId::MIN, |s| s.log().last_id())
        } else {
            match strict_id(&args[4]) {
                Ok(id) => id,
                Err(e) => return e,
            }
        };
        if !exists {
            ctx.srv
                .set_key(db, &args[2], Value::Stream(Box::new(Stream::new())), false);
        }
        let created = update(ctx.srv, db, &args[2], false, |s| {
            s.groups_mut().create(gname, id, entries_read)
        });
        if created == Some(true) {
            Frame::ok()
        } else {
            Frame::err("BUSYGROUP Consumer Group name already exists")
        }
    } else if opt_is(opt, "SETID") && (argc == 5 || argc == 7) {
        let id = if cstr(&args[4]) == b"$" {
            peek(ctx.srv, db, &args[2]).map_or(StreamId::MIN, |s| s.log().last_id())
        } else {
            match parse_id(&args[4], 0, false, false) {
                Ok((id, _)) => id,
                Err(e) => return e,
            }
        };
        update(ctx.srv, db, &args[2], false, |s| {
            s.groups_mut().with_mut(gname, |g| {
                g.last_id = id;
                g.entries_read = entries_read;
            })
        });
        Frame::ok()
    } else if opt_is(opt, "DESTROY") && argc == 4 {
        let destroyed = update(ctx.srv, db, &args[2], false, |s| {
            s.groups_mut().destroy(gname)
        }) == Some(true);
        if destroyed {
            // Blocked XREADGROUP clients run again and meet NOGROUP.
            signal_ready(ctx.srv, db, &args[2]);
        }
        Frame::Integer(destroyed as i64)
    } else if opt_is(opt, "CREATECONSUMER") && argc == 5 {
        let created = update(ctx.srv, db, &args[2], false, |s| {
            s.groups_mut()
                .with_mut(gname, |g| g.create_consumer(&args[4], now))
        })
        .flatten()
            == Some(true);
        Frame::Integer(created as i64)
    } else if opt_is(opt, "DELCONSUMER") && argc == 5 {
        let pending = update(ctx.srv, db, &args[2], false, |s| {
            s.groups_mut()
                .with_mut(gname, |g| g.delete_consumer(&args[4]))
        })
        .flatten()
        .flatten()
        .unwrap_or(0);
        Frame::Integer(pending as i64)
    } else {
        super::subcommand_syntax_error(args)
    }
}

fn xsetid(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let id = match strict_id(&args[2]) {
        Ok(id) => id,
        Err(e) => return e,
    };
    let mut entries_added: i64 = -1;
    let mut max_xdel = StreamId::MIN;
    let argc = args.len();
    let mut i = 3;
    while i < argc {
        let moreargs = argc - 1 - i;
        if opt_is(&args[i], "ENTRIESADDED") && moreargs > 0 {
            entries_added = match arg_i64(&args[i + 1]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            if entries_added < 0 {
                return Frame::err("ERR entries_added must be positive");
            }
            i += 2;
        } else if opt_is(&args[i], "MAXDELETEDID") && moreargs > 0 {
            max_xdel = match strict_id(&args[i + 1]) {
                Ok(id) => id,
                Err(e) => return e,
            };
            if id < max_xdel {
                return Frame::err(
                    "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id",
                );
            }
            i += 2;
        } else {
            return Frame::err(SYNTAX);
        }
    }
    match write_lookup(ctx, &args[1]) {
        Err(e) => return e,
        Ok(false) => return Frame::err("ERR no such key"),
        Ok(true) => {}
    }
    let db = ctx.db();
    let Some(s) = peek(ctx.srv, db, &args[1]) else {
        return Frame::err("ERR no such key");
    };
    let log = s.log();
    if id < log.max_deleted_entry_id() {
        return Frame::err(
            "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id",
        );
    }
    if !log.is_empty() {
        if log.last_valid_id().is_some_and(|max| id < max) {
            return Frame::err(
                "ERR The ID specified in XSETID is smaller than the target stream top item",
            );
        }
        if entries_added != -1 && log.len() > entries_added as u64 {
            return Frame::err(
                "ERR The entries_added specified in XSETID is smaller than the target stream length",
            );
        }
    }
    update(ctx.srv, db, &args[1], false, |s| {
        let log = s.log_mut();
        log.set_last_id(id);
        if entries_added != -1 {
            log.set_entries_added(entries_added as u64);
        }
        if !max_xdel.is_zero() {
            log.set_max_deleted_entry_id(max_xdel);
        }
    });
    Frame::ok()
}

// ---------------------------------------------------------------------------
// XACK, XPENDING, XCLAIM, XAUTOCLAIM.

/// XACK: the key and group are looked up before the IDs are parsed, so a
/// missing key or group answers 0 even to malformed IDs.
fn xack(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let exists = match read_lookup(ctx, &args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    let has_group =
        exists && peek(ctx.srv, db, &args[1]).is_some_and(|s| s.groups().get(&args[2]).is_some());
    if !has_group {
        return Frame::Integer(0);
    }
    let mut ids = Vec::with_capacity(args.len() - 3);
    for a in &args[3..] {
        match strict_id(a) {
            Ok(id) => ids.push(id),
            Err(e) => return e,
        }
    }
    let acked = update(ctx.srv, db, &args[1], false, |s| {
        s.groups_mut()
            .with_mut(&args[2], |g| ids.iter().filter(|&&id| g.ack(id)).count())
    })
    .flatten()
    .unwrap_or(0);
    Frame::Integer(acked as i64)
}

fn nogroup(key: &[u8], group: &[u8]) -> Frame {
    Frame::err(format!(
        "NOGROUP No such key '{}' or consumer group '{}'",
        c_name(key),
        c_name(group)
    ))
}

fn xpending(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let argc = args.len();
    let justinfo = argc == 3;
    if argc != 3 && !(6..=9).contains(&argc) {
        return Frame::err(SYNTAX);
    }
    let mut minidle: i64 = 0;
    let mut count: i64 = 0;
    let mut start = StreamId::MIN;
    let mut end = StreamId::MAX;
    let mut consumer: Option<&[u8]> = None;
    if argc >= 6 {
        let mut startidx = 3;
        if opt_is(&args[3], "IDLE") {
            minidle = match arg_i64(&args[4]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            if argc < 8 {
                return Frame::err(SYNTAX);
            }
            startidx += 2;
        }
        count = match arg_i64(&args[startidx + 2]) {
            Ok(n) => n.max(0),
            Err(e) => return e,
        };
        (start, end) = match range_ends(&args[startidx], &args[startidx + 1]) {
            Ok(r) => r,
            Err(e) => return e,
        };
        if startidx + 3 < argc {
            consumer = Some(&args[startidx + 3]);
        }
    }
    let exists = match read_lookup(ctx, &args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    let now = ctx.srv.now_ms();
    let Some(g) = exists
        .then(|| peek(ctx.srv, db, &args[1]))
        .flatten()
        .and_then(|s| s.groups().get(&args[2]))
    else {
        return nogroup(&args[1], &args[2]);
    };
    if justinfo {
        let pel = g.pel();
        let (Some((first, _)), Some((last, _))) = (pel.first_key_value(), pel.last_key_value())
        else {
            return Frame::Array(vec![
                Frame::Integer(0),
                Frame::Null,
                Frame::Null,
                Frame::NullArray,
            ]);
        };
        let owners: Vec<Frame> = g
            .consumers()
            .iter()
            .filter(|(_, c)| !c.pel().is_empty())
            .map(|(name, c)| {
                Frame::Array(vec![
                    Frame::bulk(name),
                    Frame::Bulk(c.pel().len().to_string().into_bytes()),
                ])
            })
            .collect();
        return Frame::Array(vec![
            Frame::Integer(pel.len() as i64),
            id_frame(*first),
            id_frame(*last),
            Frame::Array(owners),
        ]);
    }
    let ids: Vec<StreamId> = match consumer {
        Some(name) => match g.consumer(name) {
            None => return Frame::Array(vec![]),
            Some(c) => c.pel().range(start..).copied().collect(),
        },
        None => g.pel().range(start..).map(|(id, _)| *id).collect(),
    };
    let mut out = Vec::new();
    for id in ids {
        if count == 0 || id > end {
            break;
        }
        let Some(nack) = g.pel().get(&id) else {
            continue;
        };
        if minidle != 0 && now.wrapping_sub(nack.delivery_time) < minidle {
            continue;
        }
        count -= 1;
        out.push(Frame::Array(vec![
            id_frame(id),
            Frame::bulk(&nack.consumer),
            Frame::Integer(now.wrapping_sub(nack.delivery_time).max(0)),
            Frame::Integer(nack.delivery_count as i64),
        ]));
    }
    Frame::Array(out)
}

fn xclaim(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let exists = match read_lookup(ctx, &args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    let has_group =
        exists && peek(ctx.srv, db, &args[1]).is_some_and(|s| s.groups().get(&args[2]).is_some());
    if !has_group {
        return nogroup(&args[1], &args[2]);
    }
    let Some(minidle) = parse_i64(&args[4]) else {
        return Frame::err("ERR Invalid min-idle-time argument for XCLAIM");
    };
    let minidle = minidle.max(0);
    let mut ids = Vec::new();
    let mut j = 5;
    while j < args.len() {
        match parse_id(&args[j], 0, true, false) {
            Ok((id, _)) => ids.push(id),
            Err(_) => break,
        }
        j += 1;
    }
    let now = ctx.srv.now_ms();
    let mut force = false;
    let mut justid = false;
    let mut deliverytime: i64 = -1;
    let mut retrycount: i64 = -1;
    let mut last_id = StreamId::MIN;
    while j < args.len() {
        let moreargs = args.len() - 1 - j;
        let opt = &args[j];
        if opt_is(opt, "FORCE") {
            force = true;
        } else if opt_is(opt, "JUSTID") {
            justid = true;
        } else if opt_is(opt, "IDLE") && moreargs > 0 {
            j += 1;
            let Some(idle) = parse_i64(&args[j]) else {
                return Frame::err("ERR Invalid IDLE option argument for XCLAIM");
            };
            deliverytime = now.wrapping_sub(idle);
        } else if opt_is(opt, "TIME") && moreargs > 0 {
            j += 1;
            let Some(t) = parse_i64(&args[j]) else {
                return Frame::err("ERR Invalid TIME option argument for XCLAIM");
            };
            deliverytime = t;
        } else if opt_is(opt, "RETRYCOUNT") && moreargs > 0 {
            j += 1;
            let Some(n) = parse_i64(&args[j]) else {
                return Frame::err("ERR Invalid RETRYCOUNT option argument for XCLAIM");
            };
            retrycount = n;
        } else if opt_is(opt, "LASTID") && moreargs > 0 {
            j += 1;
            last_id = match strict_id(&args[j]) {
                Ok(id) => id,
                Err(e) => return e,
            };
        } else {
            return Frame::err(format!("ERR Unrecognized XCLAIM option '{}'", c_name(opt)));
        }
        j += 1;
    }
    // Unset (-1) or out of range: the delivery is now.
    if deliverytime < 0 || deliverytime > now {
        deliverytime = now;
    }
    let retry = (retrycount >= 0).then_some(retrycount as u64);
    let (gname, cname) = (&args[2], &args[3]);
    let items = update(ctx.srv, db, &args[1], false, |s| {
        let (log, groups) = s.parts_mut();
        groups.with_mut(gname, |g| {
            if last_id > g.last_id {
                g.last_id = last_id;
            }
            g.create_consumer(cname, now);
            if let Some(c) = g.consumer_mut(cname) {
                c.seen_time = now;
            }
            let mut items = Vec::new();
            for &id in &ids {
                let pending = g.pel().get(&id).map(|n| n.delivery_time);
                let Some(entry) = log.get(id) else {
                    // Gone from the stream: forget it.
                    g.ack(id);
                    continue;
                };
                let forced = force && pending.is_none();
                if forced {
                    g.force_pending(id, now);
                }
                let Some(time) = pending.or(forced.then_some(now)) else {
                    continue;
                };
                if !forced && minidle != 0 && now.wrapping_sub(time) < minidle {
                    continue;
                }
                g.claim(id, cname, deliverytime, retry, justid);
                items.push(if justid {
                    id_frame(id)
                } else {
                    entry_frame(entry)
                });
                if let Some(c) = g.consumer_mut(cname) {
                    c.active_time = now;
                }
            }
            items
        })
    })
    .flatten()
    .unwrap_or_default();
    Frame::Array(items)
}

fn xautoclaim(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    // Looked up first (hits and misses count), checked after the options.
    let exists = read_lookup(ctx, &args[1]);
    let Some(minidle) = parse_i64(&args[4]) else {
        return Frame::err("ERR Invalid min-idle-time argument for XAUTOCLAIM");
    };
    let minidle = minidle.max(0);
    let (mut start, startex) = match interval_id(&args[5], 0) {
        Ok(r) => r,
        Err(e) => return e,
    };
    if startex {
        match start.incr() {
            Some(s) => start = s,
            None => return Frame::err("ERR invalid start ID for the interval"),
        }
    }
    let mut count: i64 = 100;
    let mut justid = false;
    let max_count = i64::MAX / 16;
    let mut j = 6;
    while j < args.len() {
        let moreargs = args.len() - 1 - j;
        if opt_is(&args[j], "COUNT") && moreargs > 0 {
            count = match parse_i64(&args[j + 1]) {
                Some(n) if (1..=max_count).contains(&n) => n,
                _ => return Frame::err("ERR COUNT must be > 0"),
            };
            j += 1;
        } else if opt_is(&args[j], "JUSTID") {
            justid = true;
        } else {
            return Frame::err(SYNTAX);
        }
        j += 1;
    }
    let exists = match exists {
        Ok(e) => e,
        Err(e) => return e,
    };
    let db = ctx.db();
    let has_group =
        exists && peek(ctx.srv, db, &args[1]).is_some_and(|s| s.groups().get(&args[2]).is_some());
    if !has_group {
        return nogroup(&args[1], &args[2]);
    }
    let now = ctx.srv.now_ms();
    let (gname, cname) = (&args[2], &args[3]);
    let reply = update(ctx.srv, db, &args[1], false, |s| {
        let (log, groups) = s.parts_mut();
        groups.with_mut(gname, |g| {
            g.create_consumer(cname, now);
            if let Some(c) = g.consumer_mut(cname) {
                c.seen_time = now;
            }
            let mut attempts = count.saturating_mul(10);
            let mut left = count;
            let mut claimed = Vec::new();
            let mut deleted = Vec::new();
            let mut last: Option<StreamId> = None;
            loop {
                if attempts == 0 {
                    break;
                }
                attempts -= 1;
                if left == 0 {
                    break;
                }
                let next = match last {
                    None => g.pel().range(start..).next(),
                    Some(l) => g
                        .pel()
                        .range((std::ops::Bound::Excluded(l), std::ops::Bound::Unbounded))
                        .next(),
                };
                let Some((&id, nack)) = next else {
                    break;
                };
                let time = nack.delivery_time;
                last = Some(id);
                let Some(entry) = log.get(id) else {
                    g.ack(id);
                    deleted.push(id_frame(id));
                    left -= 1;
                    continue;
                };
                if minidle != 0 && now.wrapping_sub(time) < minidle {
                    continue;
                }
                g.claim(id, cname, now, None, justid);
                claimed.push(if justid {
                    id_frame(id)
                } else {
                    entry_frame(entry)
                });
                left -= 1;
                if let Some(c) = g.consumer_mut(cname) {
                    c.active_time = now;
                }
            }
            let cursor = match last {
                None => g.pel().range(start..).next(),
                Some(l) => g
                    .pel()
                    .range((std::ops::Bound::Excluded(l), std::ops::Bound::Unbounded))
                    .next(),
            }
            .map_or(StreamId::MIN, |(id, _)| *id);
            Frame::Array(vec![
                id_frame(cursor),
                Frame::Array(claimed),
                Frame::Array(deleted),
            ])
        })
    })
    .flatten();
    reply.unwrap_or_else(|| nogroup(&args[1], &args[2]))
}

// ---------------------------------------------------------------------------
// XINFO.

fn xinfo_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(
        args,
        &[
            "CONSUMERS <key> <groupname>",
            "    Show consumers of <groupname>.",
            "GROUPS <key>",
            "    Show the stream consumer groups.",
            "STREAM <key> [FULL [COUNT <count>]",
            "    Show information about the stream.",
        ],
    )
}

fn field(name: &str, v: Frame) -> (Frame, Frame) {
    (Frame::bulk(name), v)
}

/// `streamReplyWithCGLag`: entries not yet delivered to the group, or nil
/// when tombstones make that unknowable.
fn lag_frame(log: &Log, last_id: StreamId, entries_read: i64) -> Frame {
    if log.entries_added() == 0 {
        return Frame::Integer(0);
    }
    if entries_read != -1 && !log.range_has_tombstones(Some(last_id), None) {
        return Frame::Integer((log.entries_added() as i64).wrapping_sub(entries_read));
    }
    match log.estimate_distance(last_id) {
        -1 => Frame::Null,
        read => Frame::Integer((log.entries_added() as i64).wrapping_sub(read)),
    }
}

fn entries_read_frame(n: i64) -> Frame {
    if n == -1 {
        Frame::Null
    } else {
        Frame::Integer(n)
    }
}

/// XINFO CONSUMERS, GROUPS and STREAM (`xinfoCommand`).
fn xinfo(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let opt = &args[1];
    let key = &args[2];
    match read_lookup(ctx, key) {
        Err(e) => return e,
        Ok(false) => return Frame::err("ERR no such key"),
        Ok(true) => {}
    }
    let db = ctx.db();
    let now = ctx.srv.now_ms();
    let Some(s) = peek(ctx.srv, db, key) else {
        return Frame::err("ERR no such key");
    };
    let log = s.log();
    if opt_is(opt, "CONSUMERS") && args.len() == 4 {
        let Some(g) = s.groups().get(&args[3]) else {
            return Frame::err(format!(
                "NOGROUP No such consumer group '{}' for key name '{}'",
                c_name(&args[3]),
                c_name(key)
            ));
        };
        let list = g
            .consumers()
            .iter()
            .map(|(name, c)| {
                let inactive = if c.active_time != -1 {
                    now.wrapping_sub(c.active_time)
                } else {
                    -1
                };
                Frame::Map(vec![
                    field("name", Frame::bulk(name)),
                    field("pending", Frame::Integer(c.pel().len() as i64)),
                    field("idle", Frame::Integer(now.wrapping_sub(c.seen_time).max(0))),
                    field("inactive", Frame::Integer(inactive)),
                ])
            })
            .collect();
        Frame::Array(list)
    } else if opt_is(opt, "GROUPS") && args.len() == 3 {
        let list = s
            .groups()
            .iter()
            .map(|(name, g)| {
                Frame::Map(vec![
                    field("name", Frame::bulk(name)),
                    field("consumers", Frame::Integer(g.consumers().len() as i64)),
                    field("pending", Frame::Integer(g.pel().len() as i64)),
                    field("last-delivered-id", id_frame(g.last_id)),
                    field("entries-read", entries_read_frame(g.entries_read)),
                    field("lag", lag_frame(log, g.last_id, g.entries_read)),
                ])
            })
            .collect();
        Frame::Array(list)
    } else if opt_is(opt, "STREAM") {
        xinfo_stream(s, args)
    } else {
        super::subcommand_syntax_error(args)
    }
}

/// XINFO STREAM [FULL [COUNT n]].
fn xinfo_stream(s: &Stream, args: &[Vec<u8>]) -> Frame {
    let optv = &args[3..];
    let mut count: i64 = 10;
    let full = !optv.is_empty();
    if full {
        if optv.len() != 1 && optv.len() != 3 {
            return super::subcommand_syntax_error(args);
        }
        if !opt_is(&optv[0], "full") {
            return super::subcommand_syntax_error(args);
        }
        if optv.len() == 3 {
            if !opt_is(&optv[1], "count") {
                return super::subcommand_syntax_error(args);
            }
            count = match arg_i64(&optv[2]) {
                Ok(n) if n < 0 => 10,
                Ok(n) => n,
                Err(_) => return Frame::err(NOT_INTEGER),
            };
        }
    }
    let log = s.log();
    let mut m = vec![
        field("length", Frame::Integer(log.len() as i64)),
        field("radix-tree-keys", Frame::Integer(log.rax_keys() as i64)),
        field("radix-tree-nodes", Frame::Integer(log.rax_nodes() as i64)),
        field("last-generated-id", id_frame(log.last_id())),
        field("max-deleted-entry-id", id_frame(log.max_deleted_entry_id())),
        field("entries-added", Frame::Integer(log.entries_added() as i64)),
        field("recorded-first-entry-id", id_frame(log.first_id())),
    ];
    if !full {
        m.push(field("groups", Frame::Integer(s.groups().len() as i64)));
        let first = log.range(StreamId::MIN, StreamId::MAX).next();
        let last = log.range_rev(StreamId::MIN, StreamId::MAX).next();
        m.push(field("first-entry", first.map_or(Frame::Null, entry_frame)));
        m.push(field("last-entry", last.map_or(Frame::Null, entry_frame)));
        return Frame::Map(m);
    }
    let limit = if count == 0 {
        usize::MAX
    } else {
        count as usize
    };
    m.push(field(
        "entries",
        Frame::Array(
            log.range(StreamId::MIN, StreamId::MAX)
                .take(limit)
                .map(entry_frame)
                .collect(),
        ),
    ));
    let groups = s
        .groups()
        .iter()
        .map(|(name, g)| {
            let pending = g
                .pel()
                .iter()
                .take(limit)
                .map(|(id, n)| {
                    Frame::Array(vec![
                        id_frame(*id),
                        Frame::bulk(&n.consumer),
                        Frame::Integer(n.delivery_time),
                        Frame::Integer(n.delivery_count as i64),
                    ])
                })
                .collect();
            let consumers = g
                .consumers()
                .iter()
                .map(|(cname, c)| {
                    let cpending = c
                        .pel()
                        .iter()
                        .take(limit)
                        .filter_map(|id| g.pel().get(id).map(|n| (id, n)))
                        .map(|(id, n)| {
                            Frame::Array(vec![
                                id_frame(*id),
                                Frame::Integer(n.delivery_time),
                                Frame::Integer(n.delivery_count as i64),
                            ])
                        })
                        .collect();
                    Frame::Map(vec![
                        field("name", Frame::bulk(cname)),
                        field("seen-time", Frame::Integer(c.seen_time)),
                        field("active-time", Frame::Integer(c.active_time)),
                        field("pel-count", Frame::Integer(c.pel().len() as i64)),
                        field("pending", Frame::Array(cpending)),
                    ])
                })
                .collect();
            Frame::Map(vec![
                field("name", Frame::bulk(name)),
                field("last-delivered-id", id_frame(g.last_id)),
                field("entries-read", entries_read_frame(g.entries_read)),
                field("lag", lag_frame(log, g.last_id, g.entries_read)),
                field("pel-count", Frame::Integer(g.pel().len() as i64)),
                field("pending", Frame::Array(pending)),
                field("consumers", Frame::Array(consumers)),
            ])
        })
        .collect();
    m.push(field("groups", Frame::Array(groups)));
    Frame::Map(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_like_string2ull() {
        let p = |s: &str| parse_id(s.as_bytes(), 0, true, false).map(|(id, _)| id.to_string());
        assert_eq!(p("5"), Ok("5-0".into()));
        assert_eq!(p("5-3"), Ok("5-3".into()));
        assert_eq!(p(" 5-+3"), Ok("5-3".into()), "strtoull takes spaces and +");
        assert_eq!(p("007-1"), Ok("7-1".into()));
        assert_eq!(p("1--0"), Ok("1-0".into()), "`-0` is strtoull's zero");
        assert_eq!(
            p("1--05"),
            Ok(format!("1-{}", u64::MAX - 4)),
            "a minus wraps"
        );
        assert_eq!(
            p("1--5"),
            Err(invalid_id()),
            "string2ll's negatives are refused"
        );
        assert_eq!(p("18446744073709551615-0"), Ok(format!("{}-0", u64::MAX)));
        assert_eq!(p("18446744073709551616"), Err(invalid_id()));
        for bad in ["", "-", "+", "x", "1-x", "1-2-3", "0x1", "5 ", "1-*"] {
            assert_eq!(p(bad), Err(invalid_id()), "{bad:?}");
        }
        assert_eq!(
            parse_id(b"7-*", 0, true, true),
            Ok((StreamId::new(7, 0), false))
        );
        assert_eq!(parse_id(b"+", 0, false, false), Ok((StreamId::MAX, true)));
        assert_eq!(
            parse_id(b"3", u64::MAX, false, false).map(|x| x.0),
            Ok(StreamId::new(3, u64::MAX))
        );
        assert_eq!(parse_id(&[b'1'; 128], 0, false, false), Err(invalid_id()));
        assert_eq!(
            parse_id(b"5\0junk", 0, true, false).map(|x| x.0),
            Ok(StreamId::new(5, 0))
        );
    }

    fn bulk(s: &str) -> Frame {
        Frame::bulk(s)
    }

    /// `[[key, [[id, [f, v]]]]]`, an XREAD reply with one entry.
    fn one_entry(key: &str, id: &str) -> Frame {
        Frame::Array(vec![Frame::Array(vec![
            bulk(key),
            Frame::Array(vec![Frame::Array(vec![
                bulk(id),
                Frame::Array(vec![bulk("f"), bulk("v")]),
            ])]),
        ])])
    }

    #[test]
    fn xread_blocks_until_xadd_with_dollar_resolved() {
        let mut e = crate::Engine::new(1);
        let (a, b) = (e.connect("a"), e.connect("b"));
        e.execute_line(b, "XADD s 1 f v");
        assert_eq!(e.submit_line(a, "XREAD BLOCK 0 STREAMS s $"), None);
        let blocked = e.blocked_clients();
        assert_eq!(blocked.len(), 1);
        assert_eq!(
            blocked[0].command,
            ["XREAD", "BLOCK", "0", "STREAMS", "s", "1-0"],
            "`$` is the last ID at the time of blocking"
        );
        // A write that adds nothing newer (XDEL) does not serve it.
        e.execute_line(b, "XDEL s 1");
        assert!(e.take_unblocked().is_empty());
        assert_eq!(e.execute_line(b, "XADD s 2 f v"), bulk("2-0"));
        assert_eq!(e.take_unblocked(), vec![(a, one_entry("s", "2-0"))]);
        assert!(!e.is_blocked(a));
    }

    #[test]
    fn xread_block_times_out_on_the_virtual_clock() {
        let mut e = crate::Engine::new(2);
        let a = e.connect("a");
        assert_eq!(e.submit_line(a, "XREAD BLOCK 100 STREAMS s 0"), None);
        e.advance_by(60_000);
        assert!(e.take_unblocked().is_empty() && e.is_blocked(a));
        e.advance_by(60_000);
        assert_eq!(e.take_unblocked(), vec![(a, Frame::NullArray)]);
        // Inside MULTI, BLOCK replies at once.
        e.execute_line(a, "MULTI");
        e.execute_line(a, "XREAD BLOCK 0 STREAMS s $");
        assert_eq!(
            e.execute_line(a, "EXEC"),
            Frame::Array(vec![Frame::NullArray])
        );
    }

    #[test]
    fn blocked_xreadgroup_answers_when_its_key_goes() {
        let mut e = crate::Engine::new(3);
        let (a, b) = (e.connect("a"), e.connect("b"));
        let nogroup = Frame::err(
            "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option",
        );
        let read = "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >";
        // Deleted.
        e.execute_line(b, "XGROUP CREATE s g $ MKSTREAM");
        assert_eq!(e.submit_line(a, read), None);
        e.execute_line(b, "DEL s");
        assert_eq!(e.take_unblocked(), vec![(a, nogroup.clone())]);
        // Expired (reclaimed by the active cycle as the clock moves).
        e.execute_line(b, "XGROUP CREATE s g $ MKSTREAM");
        e.execute_line(b, "PEXPIRE s 50");
        assert_eq!(e.submit_line(a, read), None);
        e.advance_by(2_000_000);
        assert_eq!(e.take_unblocked(), vec![(a, nogroup.clone())]);
        // Group destroyed; a plain XREAD on the same key keeps waiting.
        e.execute_line(b, "XGROUP CREATE s g $ MKSTREAM");
        let c = e.connect("c");
        assert_eq!(e.submit_line(a, read), None);
        assert_eq!(e.submit_line(c, "XREAD BLOCK 0 STREAMS s $"), None);
        e.execute_line(b, "XGROUP DESTROY s g");
        assert_eq!(e.take_unblocked(), vec![(a, nogroup)]);
        assert!(e.is_blocked(c));
        // Overwritten by another type.
        e.execute_line(b, "XGROUP CREATE s g $");
        assert_eq!(e.submit_line(a, read), None);
        e.execute_line(b, "SET s x");
        assert_eq!(
            e.take_unblocked(),
            vec![(a, Frame::err(crate::cmd::WRONGTYPE))]
        );
        assert!(e.is_blocked(c), "XREAD waits for a stream");
    }

    #[test]
    fn consumers_waiting_on_a_group_are_served_in_order() {
        let mut e = crate::Engine::new(4);
        let (a, b, w) = (e.connect("a"), e.connect("b"), e.connect("w"));
        e.execute_line(w, "XGROUP CREATE s g $ MKSTREAM");
        assert_eq!(
            e.submit_line(a, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"),
            None
        );
        assert_eq!(
            e.submit_line(b, "XREADGROUP GROUP g b BLOCK 0 STREAMS s >"),
            None
        );
        e.execute_line(w, "XADD s 1 f v");
        assert_eq!(e.take_unblocked(), vec![(a, one_entry("s", "1-0"))]);
        assert!(e.is_blocked(b), "nothing left for the second: it waits on");
        e.execute_line(w, "XADD s 2 f v");
        assert_eq!(e.take_unblocked(), vec![(b, one_entry("s", "2-0"))]);
        let pending = e.execute_line(w, "XPENDING s g");
        assert_eq!(
            pending,
            Frame::Array(vec![
                Frame::Integer(2),
                bulk("1-0"),
                bulk("2-0"),
                Frame::Array(vec![
                    Frame::Array(vec![bulk("a"), bulk("1")]),
                    Frame::Array(vec![bulk("b"), bulk("1")]),
                ]),
            ])
        );
    }

    #[test]
    fn auto_ids_follow_the_virtual_clock() {
        let mut e = crate::Engine::new(5);
        let a = e.connect("a");
        let id = |f: Frame| match f {
            Frame::Bulk(b) => String::from_utf8(b).unwrap_or_default(),
            other => panic!("{other:?}"),
        };
        let now = e.server().now_ms();
        assert_eq!(id(e.execute_line(a, "XADD s * f v")), format!("{now}-0"));
        assert_eq!(id(e.execute_line(a, "XADD s * f v")), format!("{now}-1"));
        e.advance_by(5_000);
        assert_eq!(
            id(e.execute_line(a, "XADD s * f v")),
            format!("{}-0", now + 5)
        );
        // A last ID in the future: `*` continues from it.
        e.execute_line(a, &format!("XADD s {}-7 f v", now + 1000));
        assert_eq!(
            id(e.execute_line(a, "XADD s * f v")),
            format!("{}-8", now + 1000)
        );
    }

    #[test]
    fn exclusive_ends_move_inward() {
        assert_eq!(
            range_ends(b"(1-5", b"(2-0"),
            Ok((StreamId::new(1, 6), StreamId::new(1, u64::MAX)))
        );
        assert_eq!(
            range_ends(b"1", b"(2"),
            Ok((StreamId::new(1, 0), StreamId::new(2, u64::MAX - 1))),
            "a bare end means its last sequence"
        );
        assert_eq!(
            range_ends(b"(18446744073709551615-18446744073709551615", b"+"),
            Err(Frame::err("ERR invalid start ID for the interval"))
        );
        assert_eq!(
            range_ends(b"-", b"(0-0"),
            Err(Frame::err("ERR invalid end ID for the interval"))
        );
        assert_eq!(
            range_ends(b"(-", b"+"),
            Err(invalid_id()),
            "`(` makes the ID strict"
        );
        assert_eq!(
            range_ends(b"(", b"+"),
            Err(invalid_id()),
            "a lone `(` is an ID"
        );
    }
}
