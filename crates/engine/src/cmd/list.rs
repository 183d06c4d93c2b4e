//! List commands: pushes, pops (with COUNT), ranges, LINSERT, LSET, LREM, LTRIM, LPOS, LMOVE, RPOPLPUSH and LMPOP, with Redis 7.2's argument checks, error order and encoding conversions (t_list.c).
//!
//! Error order follows Redis: most commands parse their numeric arguments
//! before looking the key up (LRANGE, LTRIM, LREM, LPOP's count), others
//! after (LINDEX, LSET). Conversions happen where t_list.c tries them:
//! before adding (listpack to quicklist, even if nothing ends up added, as
//! with LINSERT's missing pivot) and after removing (quicklist back to
//! listpack, with its hysteresis). A list emptied by a command is deleted.

use super::strings::opt_is;
use super::{Command, Ctx, NOT_INTEGER, SYNTAX, WRONGTYPE};
use crate::keyspace::object::Value;
use crate::keyspace::types::list::List;
use crate::proto::resp::{parse_i64, Frame};
use crate::server::lossy;
use crate::server::trace::{DeleteCause, Event};

/// Defines one list-group command entry.
macro_rules! list_cmd {
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
            group: "list",
            handler: $handler,
            subcommands: &[],
        }
    };
}
pub(crate) use list_cmd;

pub static COMMANDS: &[Command] = &[
    list_cmd!("lpush", -3, ["write", "denyoom", "fast"], (1, 1, 1), ["write", "list", "fast"],
        "LPUSH key element [element ...]",
        "Prepends elements to a list, creating it if needed; replies with the new length.", "1.0.0", lpush),
    list_cmd!("rpush", -3, ["write", "denyoom", "fast"], (1, 1, 1), ["write", "list", "fast"],
        "RPUSH key element [element ...]",
        "Appends elements to a list, creating it if needed; replies with the new length.", "1.0.0", rpush),
    list_cmd!("lpushx", -3, ["write", "denyoom", "fast"], (1, 1, 1), ["write", "list", "fast"],
        "LPUSHX key element [element ...]",
        "Prepends elements to a list only if it exists; replies with the length.", "2.2.0", lpushx),
    list_cmd!("rpushx", -3, ["write", "denyoom", "fast"], (1, 1, 1), ["write", "list", "fast"],
        "RPUSHX key element [element ...]",
        "Appends elements to a list only if it exists; replies with the length.", "2.2.0", rpushx),
    list_cmd!("lpop", -2, ["write", "fast"], (1, 1, 1), ["write", "list", "fast"],
        "LPOP key [count]",
        "Removes and replies with the first element, or the first count elements.", "1.0.0", lpop),
    list_cmd!("rpop", -2, ["write", "fast"], (1, 1, 1), ["write", "list", "fast"],
        "RPOP key [count]",
        "Removes and replies with the last element, or the last count elements.", "1.0.0", rpop),
    list_cmd!("lrange", 4, ["readonly"], (1, 1, 1), ["read", "list", "slow"],
        "LRANGE key start stop",
        "Replies with the elements between two indexes (negative count from the end).", "1.0.0", lrange),
    list_cmd!("lindex", 3, ["readonly"], (1, 1, 1), ["read", "list", "slow"],
        "LINDEX key index",
        "Replies with the element at an index (negative counts from the end).", "1.0.0", lindex),
    list_cmd!("linsert", 5, ["write", "denyoom"], (1, 1, 1), ["write", "list", "slow"],
        "LINSERT key <BEFORE | AFTER> pivot element",
        "Inserts an element before or after the first occurrence of a pivot; replies with the length, or -1.", "2.2.0", linsert),
    list_cmd!("llen", 2, ["readonly", "fast"], (1, 1, 1), ["read", "list", "fast"],
        "LLEN key", "Replies with the length of a list.", "1.0.0", llen),
    list_cmd!("lrem", 4, ["write"], (1, 1, 1), ["write", "list", "slow"],
        "LREM key count element",
        "Removes occurrences of an element (count > 0 from the head, < 0 from the tail, 0 all).", "1.0.0", lrem),
    list_cmd!("lset", 4, ["write", "denyoom"], (1, 1, 1), ["write", "list", "slow"],
        "LSET key index element", "Replaces the element at an index.", "1.0.0", lset),
    list_cmd!("ltrim", 4, ["write"], (1, 1, 1), ["write", "list", "slow"],
        "LTRIM key start stop", "Keeps only the elements between two indexes.", "1.0.0", ltrim),
    list_cmd!("lpos", -3, ["readonly"], (1, 1, 1), ["read", "list", "slow"],
        "LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]",
        "Replies with the index of matching elements.", "6.0.6", lpos),
    list_cmd!("lmove", 5, ["write", "denyoom"], (1, 2, 1), ["write", "list", "slow"],
        "LMOVE source destination <LEFT | RIGHT> <LEFT | RIGHT>",
        "Pops an element from one end of a list and pushes it to an end of another; replies with it.", "6.2.0", lmove),
    list_cmd!("rpoplpush", 3, ["write", "denyoom"], (1, 2, 1), ["write", "list", "slow"],
        "RPOPLPUSH source destination",
        "Pops the last element of a list and prepends it to another (deprecated: LMOVE).", "1.2.0", rpoplpush),
    list_cmd!("lmpop", -4, ["write", "movablekeys"], (0, 0, 0), ["write", "list", "slow"],
        "LMPOP numkeys key [key ...] <LEFT | RIGHT> [COUNT count]",
        "Pops elements from the first non-empty list among several keys.", "7.0.0", lmpop),
];

/// `LIST_HEAD` / `LIST_TAIL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    Head,
    Tail,
}

impl End {
    fn is_head(self) -> bool {
        self == End::Head
    }
}

/// `getListPositionFromObjectOrReply`: LEFT or RIGHT, else a syntax error.
pub(crate) fn position_arg(arg: &[u8]) -> Result<End, Frame> {
    if opt_is(arg, "right") {
        Ok(End::Tail)
    } else if opt_is(arg, "left") {
        Ok(End::Head)
    } else {
        Err(Frame::err(SYNTAX))
    }
}

/// `getLongFromObjectOrReply` with `msg` (or the default message).
fn long_arg(arg: &[u8], msg: Option<&str>) -> Result<i64, Frame> {
    parse_i64(arg)
        .ok_or_else(|| Frame::err(msg.map_or(NOT_INTEGER.to_string(), |m| format!("ERR {m}"))))
}

/// `getRangeLongFromObjectOrReply`.
pub(crate) fn range_long_arg(
    arg: &[u8],
    min: i64,
    max: i64,
    msg: Option<&str>,
) -> Result<i64, Frame> {
    let v = long_arg(arg, msg)?;
    if v < min || v > max {
        return Err(Frame::err(match msg {
            Some(m) => format!("ERR {m}"),
            None => format!("ERR value is out of range, value must between {min} and {max}"),
        }));
    }
    Ok(v)
}

/// `getPositiveLongFromObjectOrReply`.
fn positive_long_arg(arg: &[u8], msg: Option<&str>) -> Result<i64, Frame> {
    range_long_arg(
        arg,
        0,
        i64::MAX,
        Some(msg.unwrap_or("value is out of range, must be positive")),
    )
}

/// The configured `list-max-listpack-size`.
fn fill(ctx: &Ctx) -> i32 {
    ctx.srv.config.list_max_listpack_size
}

/// `lookupKeyRead` + `checkType`: the list at `key`, if any.
fn read_list<'a>(ctx: &'a mut Ctx, key: &[u8]) -> Result<Option<&'a List>, Frame> {
    let db = ctx.db();
    match ctx.srv.lookup_read(db, key) {
        None => Ok(None),
        Some(obj) => match &obj.value {
            Value::List(l) => Ok(Some(l)),
            _ => Err(Frame::err(WRONGTYPE)),
        },
    }
}

/// `lookupKeyWrite` + `checkType`: whether a list exists at `key`.
pub(crate) fn write_lookup(ctx: &mut Ctx, key: &[u8]) -> Result<bool, Frame> {
    let db = ctx.db();
    match ctx.srv.lookup_write(db, key) {
        None => Ok(false),
        Some(obj) => match &obj.value {
            Value::List(_) => Ok(true),
            _ => Err(Frame::err(WRONGTYPE)),
        },
    }
}

/// Runs `f` on the list at `key` with memory accounting but without
/// signalling a change (for edits that may turn out to change nothing).
fn edit_quietly<R>(ctx: &mut Ctx, key: &[u8], f: impl FnOnce(&mut List) -> R) -> Option<R> {
    let db = ctx.db();
    ctx.srv.dbs[db]
        .with_mut(key, |o| match &mut o.value {
            Value::List(l) => Some(f(l)),
            _ => None,
        })
        .flatten()
}

/// `signalModifiedKey` after a quiet edit that did change the list.
fn signal_modified(ctx: &mut Ctx, key: &[u8]) {
    let db = ctx.db();
    ctx.srv.touch_key(db, key);
    ctx.srv.emit_with(|| Event::Written {
        db: db as u32,
        key: lossy(key),
    });
}

/// Runs `f` on the list at `key`, signalling the change.
pub(crate) fn edit<R>(ctx: &mut Ctx, key: &[u8], f: impl FnOnce(&mut List) -> R) -> Option<R> {
    let r = edit_quietly(ctx, key, f)?;
    signal_modified(ctx, key);
    Some(r)
}

/// `listElementsRemoved`: deletes the key if the list is now empty, else
/// tries the shrinking conversion back to a listpack.
pub(crate) fn elements_removed(ctx: &mut Ctx, key: &[u8]) {
    let fill = fill(ctx);
    let empty = edit_quietly(ctx, key, |l| {
        if !l.is_empty() {
            l.try_convert_shrinking(fill);
        }
        l.is_empty()
    });
    if empty == Some(true) {
        let db = ctx.db();
        ctx.srv.delete(db, key, DeleteCause::Del);
    }
}

/// Pushes `elements` to `key`, creating the list if needed (`dbAdd`
/// signals clients blocked on it); replies with the new length.
fn push_elements(ctx: &mut Ctx, key: &[u8], elements: &[Vec<u8>], end: End, exists: bool) -> i64 {
    let fill = fill(ctx);
    let add_bytes: usize = elements.iter().map(|e| e.len()).sum();
    let fill_in = |l: &mut List| {
        l.try_convert_append(add_bytes, elements.len(), fill);
        for e in elements {
            l.push(e.clone(), end.is_head());
        }
        l.len() as i64
    };
    if exists {
        return edit(ctx, key, fill_in).unwrap_or(0);
    }
    let mut l = List::new();
    let n = fill_in(&mut l);
    let db = ctx.db();
    ctx.srv.set_key(db, key, Value::List(Box::new(l)), false);
    n
}

/// `pushGenericCommand`: LPUSH, RPUSH and, with `xx`, LPUSHX, RPUSHX.
fn push_generic(ctx: &mut Ctx, args: &[Vec<u8>], end: End, xx: bool) -> Frame {
    let key = &args[1];
    let exists = match write_lookup(ctx, key) {
        Ok(e) => e,
        Err(e) => return e,
    };
    if !exists && xx {
        return Frame::Integer(0);
    }
    Frame::Integer(push_elements(ctx, key, &args[2..], end, exists))
}

fn lpush(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    push_generic(ctx, args, End::Head, false)
}

fn rpush(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    push_generic(ctx, args, End::Tail, false)
}

fn lpushx(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    push_generic(ctx, args, End::Head, true)
}

fn rpushx(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    push_generic(ctx, args, End::Tail, true)
}

fn linsert(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let after = if opt_is(&args[2], "after") {
        true
    } else if opt_is(&args[2], "before") {
        false
    } else {
        return Frame::err(SYNTAX);
    };
    let key = &args[1];
    match write_lookup(ctx, key) {
        Err(e) => return e,
        Ok(false) => return Frame::Integer(0),
        Ok(true) => {}
    }
    let fill = fill(ctx);
    let (pivot, element) = (&args[3], &args[4]);
    // Converted first, inserted or not (t_list.c cannot convert mid-iteration).
    let inserted = edit_quietly(ctx, key, |l| {
        l.try_convert_append(element.len(), 1, fill);
        let at = l.position(pivot)?;
        l.insert(at, element.clone(), after);
        Some(l.len())
    })
    .flatten();
    match inserted {
        Some(n) => {
            signal_modified(ctx, key);
            Frame::Integer(n as i64)
        }
        None => Frame::Integer(-1),
    }
}

fn llen(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match read_list(ctx, &args[1]) {
        Err(e) => e,
        Ok(l) => Frame::Integer(l.map_or(0, |l| l.len() as i64)),
    }
}

fn lindex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let l = match read_list(ctx, &args[1]) {
        Err(e) => return e,
        Ok(None) => return Frame::Null,
        Ok(Some(l)) => l,
    };
    let index = match long_arg(&args[2], None) {
        Ok(i) => i,
        Err(e) => return e,
    };
    match l.get(index) {
        Some(e) => Frame::Bulk(e.to_vec()),
        None => Frame::Null,
    }
}

fn lset(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let key = &args[1];
    match write_lookup(ctx, key) {
        Err(e) => return e,
        Ok(false) => return Frame::err("ERR no such key"),
        Ok(true) => {}
    }
    let index = match long_arg(&args[2], None) {
        Ok(i) => i,
        Err(e) => return e,
    };
    let fill = fill(ctx);
    let value = &args[3];
    let replaced = edit_quietly(ctx, key, |l| {
        l.try_convert_append(value.len(), 1, fill);
        let done = l.replace(index, value.clone());
        if done {
            // A big element may have been replaced by a small one.
            l.try_convert_shrinking(fill);
        }
        done
    });
    if replaced == Some(true) {
        signal_modified(ctx, key);
        Frame::ok()
    } else {
        Frame::err("ERR index out of range")
    }
}

/// `addListRangeReply`: elements `start..=end` (negative from the end),
/// reversed if asked.
fn range_reply(l: &List, start: i64, end: i64, reverse: bool) -> Frame {
    let len = l.len() as i64;
    let mut start = if start < 0 { len + start } else { start };
    let mut end = if end < 0 { len + end } else { end };
    if start < 0 {
        start = 0;
    }
    if start > end || start >= len {
        return Frame::Array(vec![]);
    }
    if end >= len {
        end = len - 1;
    }
    let n = (end - start + 1) as usize;
    let items: Vec<Frame> = if reverse {
        l.iter_back_from(end as usize)
            .take(n)
            .map(|e| Frame::Bulk(e.to_vec()))
            .collect()
    } else {
        l.iter_from(start as usize)
            .take(n)
            .map(|e| Frame::Bulk(e.to_vec()))
            .collect()
    };
    Frame::Array(items)
}

/// Pops `count` elements from one end of the list at `key` (a live list),
/// in pop order, then does `listElementsRemoved`.
pub(crate) fn pop_range(ctx: &mut Ctx, key: &[u8], end: End, count: usize) -> Vec<Frame> {
    let popped = edit(ctx, key, |l| {
        let n = count.min(l.len());
        (0..n)
            .filter_map(|_| l.pop(end.is_head()))
            .map(Frame::Bulk)
            .collect::<Vec<_>>()
    })
    .unwrap_or_default();
    elements_removed(ctx, key);
    popped
}

/// `listPopRangeAndReplyWithKey`: `[key, [elements]]`.
pub(crate) fn pop_range_with_key(ctx: &mut Ctx, key: &[u8], end: End, count: usize) -> Frame {
    let items = pop_range(ctx, key, end, count);
    Frame::Array(vec![Frame::Bulk(key.to_vec()), Frame::Array(items)])
}

/// `popGenericCommand`: LPOP and RPOP, with an optional count.
fn pop_generic(ctx: &mut Ctx, args: &[Vec<u8>], end: End) -> Frame {
    if args.len() > 3 {
        return Frame::err(format!(
            "ERR wrong number of arguments for '{}' command",
            ctx.cmd.name
        ));
    }
    let has_count = args.len() == 3;
    let mut count = 0;
    if has_count {
        count = match positive_long_arg(&args[2], None) {
            Ok(c) => c,
            Err(e) => return e,
        };
    }
    let key = &args[1];
    match write_lookup(ctx, key) {
        Err(e) => return e,
        Ok(false) if has_count => return Frame::NullArray,
        Ok(false) => return Frame::Null,
        Ok(true) => {}
    }
    if has_count && count == 0 {
        return Frame::Array(vec![]);
    }
    if !has_count {
        let mut items = pop_range(ctx, key, end, 1);
        return items.pop().unwrap_or(Frame::Null);
    }
    Frame::Array(pop_range(ctx, key, end, count as usize))
}

fn lpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    pop_generic(ctx, args, End::Head)
}

fn rpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    pop_generic(ctx, args, End::Tail)
}

fn lrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (start, end) = match (long_arg(&args[2], None), long_arg(&args[3], None)) {
        (Ok(s), Ok(e)) => (s, e),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    match read_list(ctx, &args[1]) {
        Err(e) => e,
        Ok(None) => Frame::Array(vec![]),
        Ok(Some(l)) => range_reply(l, start, end, false),
    }
}

fn ltrim(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (start, end) = match (long_arg(&args[2], None), long_arg(&args[3], None)) {
        (Ok(s), Ok(e)) => (s, e),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    let key = &args[1];
    match write_lookup(ctx, key) {
        Err(e) => return e,
        Ok(false) => return Frame::ok(),
        Ok(true) => {}
    }
    edit(ctx, key, |l| {
        let len = l.len() as i64;
        let mut start = if start < 0 { len + start } else { start };
        let mut end = if end < 0 { len + end } else { end };
        if start < 0 {
            start = 0;
        }
        let (ltrim, rtrim) = if start > end || start >= len {
            (len, 0)
        } else {
            if end >= len {
                end = len - 1;
            }
            (start, len - end - 1)
        };
        l.del_range(0, ltrim as usize);
        let left = l.len();
        l.del_range(left - rtrim as usize, rtrim as usize);
    });
    elements_removed(ctx, key);
    Frame::ok()
}

fn lpos(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let ele = &args[2];
    let mut rank: i64 = 1;
    let mut count: i64 = -1;
    let mut maxlen: i64 = 0;
    let mut j = 3;
    while j < args.len() {
        let more = args.len() - 1 - j;
        let opt = &args[j];
        if opt_is(opt, "RANK") && more > 0 {
            j += 1;
            rank = match range_long_arg(&args[j], -i64::MAX, i64::MAX, None) {
                Ok(r) => r,
                Err(e) => return e,
            };
            if rank == 0 {
                return Frame::err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list");
            }
        } else if opt_is(opt, "COUNT") && more > 0 {
            j += 1;
            count = match positive_long_arg(&args[j], Some("COUNT can't be negative")) {
                Ok(c) => c,
                Err(e) => return e,
            };
        } else if opt_is(opt, "MAXLEN") && more > 0 {
            j += 1;
            maxlen = match positive_long_arg(&args[j], Some("MAXLEN can't be negative")) {
                Ok(m) => m,
                Err(e) => return e,
            };
        } else {
            return Frame::err(SYNTAX);
        }
        j += 1;
    }
    let from_tail = rank < 0;
    let rank = rank.unsigned_abs();
    let l = match read_list(ctx, &args[1]) {
        Err(e) => return e,
        Ok(None) if count != -1 => return Frame::Array(vec![]),
        Ok(None) => return Frame::Null,
        Ok(Some(l)) => l,
    };
    let len = l.len() as i64;
    let mut found = Vec::new();
    let mut matches: u64 = 0;
    let mut match_index: i64 = -1;
    let elements: Box<dyn Iterator<Item = &[u8]>> = if from_tail {
        Box::new(l.iter().rev())
    } else {
        Box::new(l.iter())
    };
    for (index, e) in elements.enumerate() {
        let index = index as i64;
        if maxlen != 0 && index >= maxlen {
            break;
        }
        if e == ele.as_slice() {
            matches += 1;
            match_index = if from_tail { len - index - 1 } else { index };
            if matches >= rank {
                if count == -1 {
                    break;
                }
                found.push(Frame::Integer(match_index));
                if count != 0 && matches - rank + 1 >= count as u64 {
                    break;
                }
            }
        }
        match_index = -1;
    }
    if count != -1 {
        Frame::Array(found)
    } else if match_index != -1 {
        Frame::Integer(match_index)
    } else {
        Frame::Null
    }
}

fn lrem(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let to_remove = match long_arg(&args[2], None) {
        Ok(n) => n,
        Err(e) => return e,
    };
    let key = &args[1];
    match write_lookup(ctx, key) {
        Err(e) => return e,
        Ok(false) => return Frame::Integer(0),
        Ok(true) => {}
    }
    let limit = usize::try_from(to_remove.unsigned_abs()).unwrap_or(usize::MAX);
    let element = &args[3];
    let removed = edit_quietly(ctx, key, |l| {
        l.remove_matching(element, limit, to_remove < 0)
    })
    .unwrap_or(0);
    if removed > 0 {
        signal_modified(ctx, key);
        elements_removed(ctx, key);
    }
    Frame::Integer(removed as i64)
}

/// `lmoveGenericCommand`: pops from `args[1]` and pushes to `args[2]`;
/// the reply is the element, or nil if the source is missing.
pub(crate) fn lmove_generic(ctx: &mut Ctx, args: &[Vec<u8>], from: End, to: End) -> Frame {
    let (src, dst) = (&args[1], &args[2]);
    match write_lookup(ctx, src) {
        Err(e) => return e,
        Ok(false) => return Frame::Null,
        Ok(true) => {}
    }
    let dst_exists = match write_lookup(ctx, dst) {
        Err(e) => return e,
        Ok(e) => e,
    };
    let fill = fill(ctx);
    // A value popped from a quicklist comes back as an integer object when
    // it is one, and then does not count towards the conversion size.
    let popped = edit_quietly(ctx, src, |l| {
        let int_obj = l.is_quicklist();
        l.pop(from.is_head())
            .map(|v| (int_obj && parse_i64(&v).is_some(), v))
    })
    .flatten();
    let Some((int_obj, value)) = popped else {
        return Frame::Null;
    };
    let add_bytes = if int_obj { 0 } else { value.len() };
    // `lmoveHandlePush`: into the same list when source and destination
    // are one key (looked up before the pop).
    if dst_exists || src == dst {
        edit(ctx, dst, |l| {
            l.try_convert_append(add_bytes, 1, fill);
            l.push(value.clone(), to.is_head());
        });
    } else {
        let mut l = List::new();
        l.try_convert_append(add_bytes, 1, fill);
        l.push(value.clone(), to.is_head());
        let db = ctx.db();
        ctx.srv.set_key(db, dst, Value::List(Box::new(l)), false);
    }
    signal_modified(ctx, src);
    elements_removed(ctx, src);
    Frame::Bulk(value)
}

fn lmove(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (from, to) = match (position_arg(&args[3]), position_arg(&args[4])) {
        (Ok(f), Ok(t)) => (f, t),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    lmove_generic(ctx, args, from, to)
}

fn rpoplpush(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    lmove_generic(ctx, args, End::Tail, End::Head)
}

/// LMPOP's and BLMPOP's (and the sorted-set siblings') parsed arguments.
pub(crate) struct Mpop<'a, W> {
    pub keys: &'a [Vec<u8>],
    pub end: W,
    pub count: usize,
}

/// `lmpopGenericCommand`'s parsing: numkeys at `numkeys_idx`, then the
/// keys, the end word (`parse_end`: LEFT or RIGHT, MIN or MAX), and an
/// optional COUNT.
pub(crate) fn parse_mpop<W>(
    args: &[Vec<u8>],
    numkeys_idx: usize,
    parse_end: impl Fn(&[u8]) -> Result<W, Frame>,
) -> Result<Mpop<'_, W>, Frame> {
    let numkeys = range_long_arg(
        &args[numkeys_idx],
        1,
        i64::MAX,
        Some("numkeys should be greater than 0"),
    )?;
    let where_idx = (numkeys as u64)
        .checked_add(numkeys_idx as u64 + 1)
        .filter(|&w| w < args.len() as u64)
        .ok_or_else(|| Frame::err(SYNTAX))? as usize;
    let end = parse_end(&args[where_idx])?;
    let mut count: i64 = -1;
    let mut j = where_idx + 1;
    while j < args.len() {
        let more = args.len() - 1 - j;
        if count == -1 && opt_is(&args[j], "COUNT") && more > 0 {
            j += 1;
            count = range_long_arg(
                &args[j],
                1,
                i64::MAX,
                Some("count should be greater than 0"),
            )?;
        } else {
            return Err(Frame::err(SYNTAX));
        }
        j += 1;
    }
    Ok(Mpop {
        keys: &args[numkeys_idx + 1..where_idx],
        end,
        count: usize::try_from(count.max(1)).unwrap_or(usize::MAX),
    })
}

fn lmpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let m = match parse_mpop(args, 1, position_arg) {
        Ok(m) => m,
        Err(e) => return e,
    };
    for key in m.keys {
        match write_lookup(ctx, key) {
            Err(e) => return e,
            Ok(false) => continue,
            Ok(true) => return pop_range_with_key(ctx, key, m.end, m.count),
        }
    }
    Frame::NullArray
}

#[cfg(test)]
mod tests {
    use crate::{Engine, Frame};

    fn run(e: &mut Engine, c: u64, line: &str) -> Frame {
        e.execute_line(c, line)
    }

    fn bulks(items: &[&str]) -> Frame {
        Frame::Array(items.iter().map(Frame::bulk).collect())
    }

    #[test]
    fn push_pop_range() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        assert_eq!(run(&mut e, c, "RPUSH l a b c"), Frame::Integer(3));
        assert_eq!(run(&mut e, c, "LPUSH l z"), Frame::Integer(4));
        assert_eq!(
            run(&mut e, c, "LRANGE l 0 -1"),
            bulks(&["z", "a", "b", "c"])
        );
        assert_eq!(run(&mut e, c, "RPOP l 2"), bulks(&["c", "b"]));
        assert_eq!(run(&mut e, c, "LPOP l"), Frame::bulk("z"));
        assert_eq!(run(&mut e, c, "LPOP l 5"), bulks(&["a"]));
        assert_eq!(
            run(&mut e, c, "EXISTS l"),
            Frame::Integer(0),
            "emptied key is deleted"
        );
        assert_eq!(run(&mut e, c, "LPOP l 0"), Frame::NullArray);
        assert_eq!(run(&mut e, c, "LPOP l"), Frame::Null);
    }

    #[test]
    fn encodings_follow_7_2() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        run(&mut e, c, "RPUSH l a b c");
        assert_eq!(run(&mut e, c, "OBJECT ENCODING l"), Frame::bulk("listpack"));
        let big = "x".repeat(9000);
        run(&mut e, c, &format!("RPUSH l {big}"));
        assert_eq!(
            run(&mut e, c, "OBJECT ENCODING l"),
            Frame::bulk("quicklist")
        );
        run(&mut e, c, "RPOP l");
        assert_eq!(run(&mut e, c, "OBJECT ENCODING l"), Frame::bulk("listpack"));
    }

    #[test]
    fn memory_is_accounted_incrementally() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        // Another key first, so the table's buckets exist before measuring.
        run(&mut e, c, "SET other v");
        let base = e.server().used_memory();
        for i in 0..2000 {
            run(&mut e, c, &format!("RPUSH l element-{i}"));
        }
        let grown = e.server().used_memory();
        assert!(grown > base + 2000 * 10, "{base} -> {grown}");
        run(&mut e, c, "LTRIM l 0 0");
        let trimmed = e.server().used_memory();
        assert!(trimmed < base + 200, "{base} -> {trimmed}");
        run(&mut e, c, "DEL l");
        assert_eq!(e.server().used_memory(), base);
    }
}
