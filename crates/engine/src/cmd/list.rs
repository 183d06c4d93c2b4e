//! List commands: pushes, pops (with COUNT), ranges, LINSERT, LSET, LREM, LTRIM, LPOS, LMOVE, RPOPLPUSH and LMPOP, with Redis 7.2's argument checks, error order and encoding conversions (t_list.c).
//!
//! Error order follows Redis: most commands parse their numeric arguments
//! before looking the key up (LRANGE, LTRIM, LREM, LPOP's count), others
//! after (LINDEX, LSET). Conversions happen where t_list.c tries them:
//! before adding (listpack to quicklist, even if nothing ends up added, as
//! with LINSERT's missing pivot) and after removing (quicklist back to
//! listpack, with its hysteresis). A list emptied by a command is deleted.

use super::args::{
    clamp_ranks, either, long_arg, opt_is, parse_mpop, positive_long_arg, range_long_arg, SYNTAX,
};
use super::table::{commands, Command, Ctx};
use super::typed::{update, written};
use crate::keyspace::object::Value;
use crate::keyspace::types::list::List;
use crate::proto::resp::{parse_i64, Frame};
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;

pub(super) static COMMANDS: &[Command] = commands! { group: "list";
    "lpush" => lpush, arity: -3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, LIST, FAST], since: "1.0.0",
        syntax: "LPUSH key element [element ...]", summary: "Prepends elements to a list, creating it if needed; replies with the new length.";
    "rpush" => rpush, arity: -3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, LIST, FAST], since: "1.0.0",
        syntax: "RPUSH key element [element ...]", summary: "Appends elements to a list, creating it if needed; replies with the new length.";
    "lpushx" => lpushx, arity: -3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, LIST, FAST], since: "2.2.0",
        syntax: "LPUSHX key element [element ...]", summary: "Prepends elements to a list only if it exists; replies with the length.";
    "rpushx" => rpushx, arity: -3, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, LIST, FAST], since: "2.2.0",
        syntax: "RPUSHX key element [element ...]", summary: "Appends elements to a list only if it exists; replies with the length.";
    "lpop" => lpop, arity: -2, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, LIST, FAST], since: "1.0.0",
        syntax: "LPOP key [count]", summary: "Removes and replies with the first element, or the first count elements.";
    "rpop" => rpop, arity: -2, flags: [WRITE, FAST], keys: (1, 1, 1), acl: [WRITE, LIST, FAST], since: "1.0.0",
        syntax: "RPOP key [count]", summary: "Removes and replies with the last element, or the last count elements.";
    "lrange" => lrange, arity: 4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, LIST, SLOW], since: "1.0.0",
        syntax: "LRANGE key start stop", summary: "Replies with the elements between two indexes (negative count from the end).";
    "lindex" => lindex, arity: 3, flags: [READONLY], keys: (1, 1, 1), acl: [READ, LIST, SLOW], since: "1.0.0",
        syntax: "LINDEX key index", summary: "Replies with the element at an index (negative counts from the end).";
    "linsert" => linsert, arity: 5, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [WRITE, LIST, SLOW], since: "2.2.0",
        syntax: "LINSERT key <BEFORE | AFTER> pivot element", summary: "Inserts an element before or after the first occurrence of a pivot; replies with the length, or -1.";
    "llen" => llen, arity: 2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, LIST, FAST], since: "1.0.0",
        syntax: "LLEN key", summary: "Replies with the length of a list.";
    "lrem" => lrem, arity: 4, flags: [WRITE], keys: (1, 1, 1), acl: [WRITE, LIST, SLOW], since: "1.0.0",
        syntax: "LREM key count element", summary: "Removes occurrences of an element (count > 0 from the head, < 0 from the tail, 0 all).";
    "lset" => lset, arity: 4, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [WRITE, LIST, SLOW], since: "1.0.0",
        syntax: "LSET key index element", summary: "Replaces the element at an index.";
    "ltrim" => ltrim, arity: 4, flags: [WRITE], keys: (1, 1, 1), acl: [WRITE, LIST, SLOW], since: "1.0.0",
        syntax: "LTRIM key start stop", summary: "Keeps only the elements between two indexes.";
    "lpos" => lpos, arity: -3, flags: [READONLY], keys: (1, 1, 1), acl: [READ, LIST, SLOW], since: "6.0.6",
        syntax: "LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]", summary: "Replies with the index of matching elements.";
    "lmove" => lmove, arity: 5, flags: [WRITE, DENYOOM], keys: (1, 2, 1), acl: [WRITE, LIST, SLOW], since: "6.2.0",
        syntax: "LMOVE source destination <LEFT | RIGHT> <LEFT | RIGHT>", summary: "Pops an element from one end of a list and pushes it to an end of another; replies with it.";
    "rpoplpush" => rpoplpush, arity: 3, flags: [WRITE, DENYOOM], keys: (1, 2, 1), acl: [WRITE, LIST, SLOW], since: "1.2.0",
        syntax: "RPOPLPUSH source destination", summary: "Pops the last element of a list and prepends it to another (deprecated: LMOVE).";
    "lmpop" => lmpop, arity: -4, flags: [WRITE, MOVABLEKEYS], acl: [WRITE, LIST, SLOW], since: "7.0.0",
        syntax: "LMPOP numkeys key [key ...] <LEFT | RIGHT> [COUNT count]", summary: "Pops elements from the first non-empty list among several keys.";
};

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
    Ok(match either(arg, "left", "right")? {
        false => End::Head,
        true => End::Tail,
    })
}

/// The configured `list-max-listpack-size`.
fn fill(ctx: &Ctx) -> i32 {
    ctx.srv.config.list_max_listpack_size
}

/// Runs `f` on the list at `key` with memory accounting but without
/// signalling a change (for edits that may turn out to change nothing).
fn edit_quietly<R>(ctx: &mut Ctx, key: &[u8], f: impl FnOnce(&mut List) -> R) -> Option<R> {
    let db = ctx.db();
    update::<List, _>(ctx.srv, db, key, |l, _| (f(l), false))
}

/// `signalModifiedKey` after a quiet edit that did change the list.
fn signal_modified(ctx: &mut Ctx, key: &[u8]) {
    let db = ctx.db();
    written(ctx.srv, db, key, true);
}

/// Runs `f` on the list at `key`, signalling the change.
pub(crate) fn edit<R>(ctx: &mut Ctx, key: &[u8], f: impl FnOnce(&mut List) -> R) -> Option<R> {
    let db = ctx.db();
    update::<List, _>(ctx.srv, db, key, |l, _| (f(l), true))
}

/// `listElementsRemoved`: the removal's `event` (lpop, rpop, ltrim,
/// lrem), then deletes the key if the list is now empty (and `del`), else
/// tries the shrinking conversion back to a listpack.
pub(crate) fn elements_removed(ctx: &mut Ctx, key: &[u8], event: &str) {
    ctx.notify(ev::LIST, event, key);
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
        ctx.notify(ev::GENERIC, "del", key);
    }
}

/// The event a pop from `end` raises.
fn pop_event(end: End) -> &'static str {
    if end.is_head() {
        "lpop"
    } else {
        "rpop"
    }
}

/// The event a push to `end` raises.
fn push_event(end: End) -> &'static str {
    if end.is_head() {
        "lpush"
    } else {
        "rpush"
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
    let n = if exists {
        edit(ctx, key, fill_in).unwrap_or(0)
    } else {
        let mut l = List::new();
        let n = fill_in(&mut l);
        let db = ctx.db();
        ctx.srv.set_key(db, key, Value::List(Box::new(l)), false);
        n
    };
    ctx.notify(ev::LIST, push_event(end), key);
    // `server.dirty += pushed`: the key's write counted one.
    crate::persist::adjust_changes(ctx.srv, elements.len() as i64 - 1);
    n
}

/// `pushGenericCommand`: LPUSH, RPUSH and, with `xx`, LPUSHX, RPUSHX.
fn push_generic(ctx: &mut Ctx, args: &[Vec<u8>], end: End, xx: bool) -> Frame {
    let key = &args[1];
    let exists = match ctx.write_exists::<List>(key) {
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
    let after = match either(&args[2], "before", "after") {
        Ok(after) => after,
        Err(e) => return e,
    };
    let key = &args[1];
    if let Err(reply) = ctx.write_or::<List>(key, || Frame::Integer(0)) {
        return reply;
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
            ctx.notify(ev::LIST, "linsert", key);
            Frame::Integer(n as i64)
        }
        None => Frame::Integer(-1),
    }
}

fn llen(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<List>(&args[1]) {
        Err(e) => e,
        Ok(l) => Frame::Integer(l.map_or(0, |l| l.len() as i64)),
    }
}

fn lindex(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let l = match ctx.read::<List>(&args[1]) {
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
    if let Err(reply) = ctx.write_or::<List>(key, || Frame::err("ERR no such key")) {
        return reply;
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
        ctx.notify(ev::LIST, "lset", key);
        Frame::ok()
    } else {
        Frame::err("ERR index out of range")
    }
}

/// `addListRangeReply`: elements `start..=end` (negative from the end),
/// reversed if asked.
fn range_reply(l: &List, start: i64, end: i64, reverse: bool) -> Frame {
    let Some((start, end)) = clamp_ranks(start, end, l.len()) else {
        return Frame::Array(vec![]);
    };
    let n = end - start + 1;
    let items: Vec<Frame> = if reverse {
        l.iter_back_from(end)
            .take(n)
            .map(|e| Frame::Bulk(e.to_vec()))
            .collect()
    } else {
        l.iter_from(start)
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
    elements_removed(ctx, key, pop_event(end));
    // `listElementsRemoved`: `server.dirty += count`.
    if !popped.is_empty() {
        crate::persist::adjust_changes(ctx.srv, popped.len() as i64 - 1);
    }
    popped
}

/// `listPopRangeAndReplyWithKey`: `[key, [elements]]`, for LMPOP and
/// BLMPOP, which replicas get as `LPOP|RPOP key count` for what was popped.
pub(crate) fn pop_range_with_key(ctx: &mut Ctx, key: &[u8], end: End, count: usize) -> Frame {
    let items = pop_range(ctx, key, end, count);
    if ctx.propagating() {
        let n = items.len().to_string();
        ctx.propagate_as(&[pop_verb(end), key, n.as_bytes()]);
    }
    Frame::Array(vec![Frame::Bulk(key.to_vec()), Frame::Array(items)])
}

/// The pop a blocking or multi-key pop goes to replicas as.
pub(crate) fn pop_verb(end: End) -> &'static [u8] {
    if end.is_head() {
        b"LPOP"
    } else {
        b"RPOP"
    }
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
    match ctx.write_exists::<List>(key) {
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
    match ctx.read::<List>(&args[1]) {
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
    if let Err(reply) = ctx.write_or::<List>(key, Frame::ok) {
        return reply;
    }
    let removed = edit(ctx, key, |l| {
        let len = l.len();
        let (ltrim, rtrim) = match clamp_ranks(start, end, len) {
            None => (len, 0),
            Some((start, end)) => (start, len - end - 1),
        };
        l.del_range(0, ltrim);
        let left = l.len();
        l.del_range(left - rtrim, rtrim);
        ltrim + rtrim
    });
    elements_removed(ctx, key, "ltrim");
    // `server.dirty += ltrim + rtrim`, nothing when nothing went.
    if let Some(removed) = removed {
        crate::persist::adjust_changes(ctx.srv, removed as i64 - 1);
    }
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
    let l = match ctx.read::<List>(&args[1]) {
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
    if let Err(reply) = ctx.write_or::<List>(key, || Frame::Integer(0)) {
        return reply;
    }
    let limit = usize::try_from(to_remove.unsigned_abs()).unwrap_or(usize::MAX);
    let element = &args[3];
    let removed = edit_quietly(ctx, key, |l| {
        l.remove_matching(element, limit, to_remove < 0)
    })
    .unwrap_or(0);
    if removed > 0 {
        signal_modified(ctx, key);
        elements_removed(ctx, key, "lrem");
        crate::persist::adjust_changes(ctx.srv, removed as i64 - 1);
    }
    Frame::Integer(removed as i64)
}

/// `lmoveGenericCommand`: pops from `args[1]` and pushes to `args[2]`;
/// the reply is the element, or nil if the source is missing.
pub(crate) fn lmove_generic(ctx: &mut Ctx, args: &[Vec<u8>], from: End, to: End) -> Frame {
    let (src, dst) = (&args[1], &args[2]);
    if let Err(reply) = ctx.write_or::<List>(src, || Frame::Null) {
        return reply;
    }
    let dst_exists = match ctx.write_exists::<List>(dst) {
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
    ctx.notify(ev::LIST, push_event(to), dst);
    signal_modified(ctx, src);
    elements_removed(ctx, src, pop_event(from));
    // Only the pop counts (`lmoveHandlePush` adds no change of its own).
    if src != dst {
        crate::persist::adjust_changes(ctx.srv, -1);
    }
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

fn lmpop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let m = match parse_mpop(args, 1, position_arg) {
        Ok(m) => m,
        Err(e) => return e,
    };
    for key in m.keys {
        match ctx.write_exists::<List>(key) {
            Err(e) => return e,
            Ok(false) => continue,
            Ok(true) => return pop_range_with_key(ctx, key, m.end, m.count),
        }
    }
    Frame::NullArray
}

#[cfg(test)]
mod tests {
    use crate::cmd::testing::engine;
    use crate::{Engine, Frame};

    fn run(e: &mut Engine, c: u64, line: &str) -> Frame {
        e.execute_line(c, line)
    }

    fn bulks(items: &[&str]) -> Frame {
        Frame::Array(items.iter().map(Frame::bulk).collect())
    }

    #[test]
    fn push_pop_range() {
        let (mut e, c) = engine(1);
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
        let (mut e, c) = engine(1);
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
        let (mut e, c) = engine(1);
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
