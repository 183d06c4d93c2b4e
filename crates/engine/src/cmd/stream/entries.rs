//! The entry commands: XADD and XTRIM (with their shared MAXLEN / MINID parsing), XRANGE, XREVRANGE, XLEN, XDEL and XSETID; only XADD, XDEL and XTRIM signal the key (WATCH).

use super::id::{parse_id, range_ends, strict_id};
use super::{entry_frame, id_frame, limits, signal_ready, update};
use crate::cmd::args::{arg_i64, cstr, opt_is, SYNTAX};
use crate::cmd::table::Ctx;
use crate::cmd::typed::{self, peek, written, WRONGTYPE};
use crate::keyspace::object::Value;
use crate::keyspace::types::stream::{AppendError, Stream, StreamId, Trim};
use crate::proto::resp::Frame;
use crate::server::keyspace_events as ev;
use crate::server::Server;

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
    /// Position of the trimming threshold (MAXLEN's or MINID's value).
    threshold_pos: usize,
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
        threshold_pos: 0,
    };
    let mut limit_given = false;
    let argc = args.len();
    let mut i = 2;
    while i < argc {
        let moreargs = argc - 1 - i;
        let opt = &args[i];
        if xadd && cstr(opt) == b"*" {
            break;
        } else if (opt_is(opt, "maxlen") || opt_is(opt, "minid")) && moreargs > 0 {
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
            a.threshold_pos = i + 1;
            a.strategy = Some(if opt_is(opt, "maxlen") {
                let max = arg_i64(&args[i + 1])?;
                if max < 0 {
                    return Err(Frame::err("ERR The MAXLEN argument must be >= 0."));
                }
                Trim::MaxLen(max as u64)
            } else {
                Trim::MinId(strict_id(&args[i + 1])?)
            });
            i += 1;
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

pub(super) fn xadd(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
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
    let exists = match ctx.write_exists::<Stream>(key) {
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
    if peek::<Stream>(ctx.srv, db, key).is_some_and(|s| s.log().last_id() == StreamId::MAX) {
        return Frame::err(
            "ERR The stream has exhausted the last possible ID, unable to add more items",
        );
    }
    let now = ctx.srv.now_ms().max(0) as u64;
    let lim = limits(ctx.srv);
    let added = update(ctx.srv, db, key, |s| {
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
    written(ctx.srv, db, key, true);
    ctx.notify(ev::STREAM, "xadd", key);
    if let Some(strategy) = a.strategy {
        let trimmed = update(ctx.srv, db, key, |s| {
            s.log_mut().trim(strategy, a.approx, a.limit)
        });
        if trimmed.unwrap_or(0) > 0 {
            ctx.notify(ev::STREAM, "xtrim", key);
        }
    }
    if ctx.propagating() {
        // Replicas get the ID made here and the exact trim it did.
        let mut argv = args.to_vec();
        if !matches!(a.id, Some((_, true))) {
            argv[a.idpos] = id.to_string().into_bytes();
        }
        exact_trim(ctx.srv, db, key, &a, &mut argv);
        let refs: Vec<&[u8]> = argv.iter().map(|x| x.as_slice()).collect();
        ctx.propagate_as(&refs);
    }
    signal_ready(ctx.srv, db, key);
    id_frame(id)
}

/// `streamRewriteApproxSpecifier` and `streamRewriteTrimArgument`: a `~`
/// trim goes to replicas as `=` to what it left (the length, or the first
/// ID), since where nodes end may differ there.
fn exact_trim(srv: &Server, db: usize, key: &[u8], a: &AddTrimArgs, argv: &mut [Vec<u8>]) {
    let (Some(strategy), true) = (a.strategy, a.approx) else {
        return;
    };
    let Some(s) = peek::<Stream>(srv, db, key) else {
        return;
    };
    argv[a.threshold_pos - 1] = b"=".to_vec();
    argv[a.threshold_pos] = match strategy {
        Trim::MaxLen(_) => s.log().len().to_string().into_bytes(),
        Trim::MinId(_) => s.log().edge_id(true, false).to_string().into_bytes(),
    };
}

pub(super) fn xtrim(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let a = match parse_add_trim(args, false, ctx.srv) {
        Ok(a) => a,
        Err(e) => return e,
    };
    if let Err(reply) = ctx.write_or::<Stream>(&args[1], || Frame::Integer(0)) {
        return reply;
    }
    let Some(strategy) = a.strategy else {
        return Frame::err(SYNTAX);
    };
    let db = ctx.db();
    let deleted = typed::update::<Stream, _>(ctx.srv, db, &args[1], |s, _| {
        let n = s.log_mut().trim(strategy, a.approx, a.limit);
        (n, n > 0)
    })
    .unwrap_or(0);
    if deleted > 0 {
        ctx.notify(ev::STREAM, "xtrim", &args[1]);
    }
    if ctx.propagating() {
        let mut argv = args.to_vec();
        exact_trim(ctx.srv, db, &args[1], &a, &mut argv);
        let refs: Vec<&[u8]> = argv.iter().map(|x| x.as_slice()).collect();
        ctx.propagate_as(&refs);
    }
    Frame::Integer(deleted)
}

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
    if let Err(reply) = ctx.read_or::<Stream>(&args[1], || Frame::Array(vec![])) {
        return reply;
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
    let Some(s) = peek::<Stream>(ctx.srv, db, &args[1]) else {
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

pub(super) fn xrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    xrange_generic(ctx, args, false)
}

pub(super) fn xrevrange(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    xrange_generic(ctx, args, true)
}

pub(super) fn xlen(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.read::<Stream>(&args[1]) {
        Err(e) => e,
        Ok(s) => Frame::Integer(s.map_or(0, |s| s.log().len() as i64)),
    }
}

/// XDEL: the key is looked up first, then every ID is checked before any
/// is deleted.
pub(super) fn xdel(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(reply) = ctx.write_or::<Stream>(&args[1], || Frame::Integer(0)) {
        return reply;
    }
    let mut ids = Vec::with_capacity(args.len() - 2);
    for a in &args[2..] {
        match strict_id(a) {
            Ok(id) => ids.push(id),
            Err(e) => return e,
        }
    }
    let db = ctx.db();
    let deleted = typed::update::<Stream, _>(ctx.srv, db, &args[1], |s, _| {
        let n = s.log_mut().xdel(&ids);
        (n, n > 0)
    })
    .unwrap_or(0);
    if deleted > 0 {
        ctx.notify(ev::STREAM, "xdel", &args[1]);
    }
    Frame::Integer(deleted as i64)
}

pub(super) fn xsetid(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
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
    if let Err(reply) = ctx.write_or::<Stream>(&args[1], || Frame::err("ERR no such key")) {
        return reply;
    }
    let db = ctx.db();
    let Some(s) = peek::<Stream>(ctx.srv, db, &args[1]) else {
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
    update(ctx.srv, db, &args[1], |s| {
        let log = s.log_mut();
        log.set_last_id(id);
        if entries_added != -1 {
            log.set_entries_added(entries_added as u64);
        }
        if !max_xdel.is_zero() {
            log.set_max_deleted_entry_id(max_xdel);
        }
    });
    ctx.notify(ev::STREAM, "xsetid", &args[1]);
    super::groups::changed(ctx, 1);
    Frame::ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
