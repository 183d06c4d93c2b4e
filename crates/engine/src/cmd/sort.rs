//! SORT and SORT_RO (sort.c): lists, sets and sorted sets sorted numerically or by bytes, by their own elements or by other keys (`BY pattern`, `->field` of a hash), with LIMIT, GET and STORE.
//!
//! Differences a user can see: ALPHA compares bytes (`strcoll` in the C
//! locale, which Redis' test machines use, compares the same way up to a
//! NUL byte); elements that compare equal keep their stored order, where
//! Redis' `pqsort` (BY with LIMIT) may swap them.

use std::cmp::Ordering;

use super::args::{arg_i64, is};
use super::table::{commands, Command, Ctx};
use crate::keyspace::object::Value;
use crate::keyspace::types::list::List;
use crate::num::double::strtod;
use crate::proto::resp::Frame;
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;
use crate::server::Lookup;

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "generic";
    "sort" => sort, arity: -2, flags: [WRITE, DENYOOM, MOVABLEKEYS], keys: (1, 1, 1), acl: [WRITE, SET, SORTEDSET, LIST, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA] [STORE destination]",
        summary: "Sorts the elements in a list, a set, or a sorted set, optionally storing the result.";
    "sort_ro" => sort_ro, arity: -2, flags: [READONLY, MOVABLEKEYS], keys: (1, 1, 1), acl: [READ, SET, SORTEDSET, LIST, SLOW, DANGEROUS], since: "7.0.0",
        syntax: "SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA]",
        summary: "Returns the sorted elements of a list, a set, or a sorted set.";
};

fn sort(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    sort_generic(ctx, args, false)
}

fn sort_ro(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    sort_generic(ctx, args, true)
}

/// SORT's options as parsed.
#[derive(Default)]
struct Options<'a> {
    desc: bool,
    alpha: bool,
    limit: Option<(i64, i64)>,
    store: Option<&'a [u8]>,
    by: Option<&'a [u8]>,
    /// BY a pattern without `*`: nothing to sort.
    dontsort: bool,
    gets: Vec<&'a [u8]>,
}

fn parse<'a>(ctx: &Ctx, args: &'a [Vec<u8>], readonly: bool) -> Result<Options<'a>, Frame> {
    let mut o = Options::default();
    let cluster = ctx.srv.cluster.is_some();
    let mut j = 2;
    while j < args.len() {
        let left = args.len() - j - 1;
        let a = &args[j];
        if is(a, "asc") {
            o.desc = false;
        } else if is(a, "desc") {
            o.desc = true;
        } else if is(a, "alpha") {
            o.alpha = true;
        } else if is(a, "limit") && left >= 2 {
            o.limit = Some((arg_i64(&args[j + 1])?, arg_i64(&args[j + 2])?));
            j += 2;
        } else if !readonly && is(a, "store") && left >= 1 {
            o.store = Some(&args[j + 1]);
            j += 1;
        } else if is(a, "by") && left >= 1 {
            let p = &args[j + 1];
            o.by = Some(p);
            if !p.contains(&b'*') {
                o.dontsort = true;
            } else if cluster {
                return Err(Frame::err("ERR BY option of SORT denied in Cluster mode."));
            }
            j += 1;
        } else if is(a, "get") && left >= 1 {
            if cluster {
                return Err(Frame::err("ERR GET option of SORT denied in Cluster mode."));
            }
            o.gets.push(&args[j + 1]);
            j += 1;
        } else {
            return Err(Frame::err("ERR syntax error"));
        }
        j += 1;
    }
    Ok(o)
}

/// One element to sort, with what it sorts by.
struct Item {
    obj: Vec<u8>,
    score: f64,
    /// ALPHA with BY: the looked-up value (`None` sorts first).
    cmp: Option<Vec<u8>>,
}

/// `lookupKeyByPattern`: `#` is the element itself; otherwise the first
/// `*` is replaced by it and the key read, a string, or with `->field` a
/// hash's field.
fn lookup_by_pattern(ctx: &mut Ctx, pattern: &[u8], subst: &[u8]) -> Option<Vec<u8>> {
    if pattern == b"#" {
        return Some(subst.to_vec());
    }
    let star = pattern.iter().position(|&b| b == b'*')?;
    let arrow = pattern[star + 1..]
        .windows(2)
        .position(|w| w == b"->")
        .map(|p| p + star + 1)
        .filter(|&p| p + 2 < pattern.len());
    let (key_pat, field) = match arrow {
        Some(p) => (&pattern[..p], Some(&pattern[p + 2..])),
        None => (pattern, None),
    };
    let mut key = key_pat[..star].to_vec();
    key.extend_from_slice(subst);
    key.extend_from_slice(&key_pat[star + 1..]);
    let db = ctx.db();
    let o = ctx.srv.lookup(db, &key, Lookup::READ)?;
    match (&o.value, field) {
        (Value::Hash(h), Some(f)) => h.get(f).map(|v| v.to_vec()),
        (Value::String(s), None) => Some(s.to_bytes()),
        _ => None,
    }
}

/// The elements of the value at `key` (`None`: no key), or WRONGTYPE.
fn elements(ctx: &mut Ctx, key: &[u8]) -> Result<(bool, Vec<Vec<u8>>), Frame> {
    let db = ctx.db();
    let Some(o) = ctx.srv.lookup(db, key, Lookup::READ) else {
        return Ok((false, Vec::new()));
    };
    Ok(match &o.value {
        Value::List(l) => (true, l.iter().map(<[u8]>::to_vec).collect()),
        Value::Set(s) => (false, s.iter().map(|m| m.to_vec()).collect()),
        Value::ZSet(z) => (
            true,
            z.entries().into_iter().map(|(m, _)| m.to_vec()).collect(),
        ),
        _ => {
            return Err(Frame::err(
                "WRONGTYPE Operation against a key holding the wrong kind of value",
            ))
        }
    })
}

fn sort_generic(ctx: &mut Ctx, args: &[Vec<u8>], readonly: bool) -> Frame {
    let mut o = match parse(ctx, args, readonly) {
        Ok(o) => o,
        Err(e) => return e,
    };
    // `ordered`: a list or sorted set, whose own order SORT BY <constant> keeps.
    let (ordered, elems) = match elements(ctx, &args[1]) {
        Ok(found) => found,
        Err(e) => return e,
    };
    // A set has no order of its own: with STORE, or for a script, sort it
    // anyway so the stored list or the script's reply is the same everywhere.
    if o.dontsort && !ordered && (o.store.is_some() || ctx.srv.in_script) {
        o.dontsort = false;
        o.alpha = true;
        o.by = None;
    }
    let len = elems.len() as i64;
    // The cost model's work: N to load, N log N comparisons when sorting.
    let n = elems.len() as u64;
    ctx.visited(if o.dontsort {
        n
    } else {
        n + crate::cost::sort_work(n)
    });
    let (limit_start, limit_count) = o.limit.unwrap_or((0, -1));
    let mut start = limit_start.max(0).min(len);
    let count = limit_count.max(-1).min(len);
    let mut end = if count < 0 {
        len - 1
    } else {
        start + count - 1
    };
    if start >= len {
        start = len - 1;
        end = len - 2;
    }
    if end >= len {
        end = len - 1;
    }
    let mut items: Vec<Item> = elems
        .into_iter()
        .map(|obj| Item {
            obj,
            score: 0.0,
            cmp: None,
        })
        .collect();
    if o.dontsort && ordered && o.desc {
        items.reverse();
    }
    if !o.dontsort {
        let mut conversion_error = false;
        for it in items.iter_mut() {
            let by = match o.by {
                Some(p) => match lookup_by_pattern(ctx, p, &it.obj) {
                    Some(v) => v,
                    None => continue,
                },
                None => it.obj.clone(),
            };
            if o.alpha {
                if o.by.is_some() {
                    it.cmp = Some(by);
                }
            } else {
                let r = strtod(&by);
                if r.len != by.len() || r.erange || r.value.is_nan() {
                    conversion_error = true;
                }
                it.score = r.value;
            }
        }
        if conversion_error {
            return Frame::err("ERR One or more scores can't be converted into double");
        }
        let by = o.by.is_some();
        let (alpha, desc) = (o.alpha, o.desc);
        crate::sort::sort_by(&mut items, |a, b| {
            let c = if !alpha {
                a.score
                    .partial_cmp(&b.score)
                    .unwrap_or(Ordering::Equal)
                    .then_with(|| a.obj.cmp(&b.obj))
            } else if by {
                match (&a.cmp, &b.cmp) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => Ordering::Less,
                    (Some(_), None) => Ordering::Greater,
                    (Some(x), Some(y)) => x.cmp(y),
                }
            } else {
                a.obj.cmp(&b.obj)
            };
            if desc {
                c.reverse()
            } else {
                c
            }
        });
    }
    let picked: Vec<Vec<u8>> = if end >= start {
        items
            .into_iter()
            .skip(start as usize)
            .take((end - start + 1) as usize)
            .map(|i| i.obj)
            .collect()
    } else {
        Vec::new()
    };
    let mut out: Vec<Option<Vec<u8>>> = Vec::new();
    for obj in picked {
        if o.gets.is_empty() {
            out.push(Some(obj));
        } else {
            for p in &o.gets {
                out.push(lookup_by_pattern(ctx, p, &obj));
            }
        }
    }
    let Some(dst) = o.store else {
        return Frame::Array(
            out.into_iter()
                .map(|v| v.map_or(Frame::Null, Frame::Bulk))
                .collect(),
        );
    };
    let db = ctx.db();
    let n = out.len() as i64;
    if out.is_empty() {
        if ctx.srv.delete(db, dst, DeleteCause::Del) {
            ctx.notify(ev::GENERIC, "del", dst);
        }
    } else {
        let mut l = List::new();
        let bytes: usize = out.iter().map(|v| v.as_ref().map_or(0, Vec::len)).sum();
        l.try_convert_append(bytes, out.len(), ctx.srv.config.list_max_listpack_size);
        for v in out {
            l.push(v.unwrap_or_default(), false);
        }
        ctx.srv.set_key(db, dst, Value::List(Box::new(l)), false);
        ctx.notify(ev::LIST, "sortstore", dst);
    }
    Frame::Integer(n)
}
