//! DBSIZE, FLUSHDB and FLUSHALL: the commands over a whole database, freeing what a flush empties lazily or at once as `lazyfree` says.

use crate::cmd::args::{is, SYNTAX};
use crate::cmd::table::Ctx;
use crate::proto::resp::Frame;
use crate::server::Server;

pub(super) fn dbsize(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    // Logically expired keys not yet reclaimed count, as in Redis.
    Frame::Integer(ctx.srv.dbs[ctx.db()].len() as i64)
}

/// `getFlushCommandFlags`: nothing, ASYNC or SYNC. Freeing is immediate
/// either way here; what a client observes is the same.
fn flush_args_ok(args: &[Vec<u8>]) -> bool {
    args.len() == 1 || (args.len() == 2 && (is(&args[1], "async") || is(&args[1], "sync")))
}

/// `getFlushCommandFlags`' choice: ASYNC frees in the background, SYNC at
/// once, no argument as `lazyfree-lazy-user-flush` says.
fn flush_lazy(srv: &Server, args: &[Vec<u8>]) -> bool {
    match args.get(1) {
        Some(a) => is(a, "async"),
        None => srv.config.lazyfree_lazy_user_flush,
    }
}

/// [`flush`] that frees what it empties lazily or not (`emptyDbAsync` or
/// the synchronous `emptyDb`, whose time the main thread spends).
fn flush_freeing(srv: &mut Server, db: Option<usize>, lazy: bool) -> u64 {
    let range = match db {
        Some(d) => d..d + 1,
        None => 0..srv.dbs.len(),
    };
    let (mut effort, mut bytes) = (0u64, 0u64);
    for d in range {
        let dbase = &srv.dbs[d];
        effort += dbase
            .dict
            .iter()
            .map(|(_, o)| crate::lazyfree::free_effort(&o.value))
            .sum::<u64>();
        bytes += dbase.memory() as u64;
    }
    let keys = srv.flush(db);
    srv.free_flushed(db, keys, effort, bytes, lazy);
    // `server.dirty += emptyData(...)`: one change per key removed.
    srv.persist.dirty += keys;
    keys
}

pub(super) fn flushdb(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if !flush_args_ok(args) {
        return Frame::err(SYNTAX);
    }
    let db = ctx.db();
    let lazy = flush_lazy(ctx.srv, args);
    flush_freeing(ctx.srv, Some(db), lazy);
    // Propagated even when there was nothing to remove.
    ctx.srv.repl.wire.force();
    Frame::ok()
}

pub(super) fn flushall(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if !flush_args_ok(args) {
        return Frame::err(SYNTAX);
    }
    let lazy = flush_lazy(ctx.srv, args);
    flush_freeing(ctx.srv, None, lazy);
    ctx.srv.repl.wire.force();
    Frame::ok()
}
