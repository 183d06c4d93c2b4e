//! Persistence commands: SAVE, BGSAVE, BGREWRITEAOF and LASTSAVE, over the simulated files in `crate::persist`.

use super::args::{is, SYNTAX};
use super::table::{commands, Command, Ctx};
use crate::proto::resp::Frame;

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "server";
    "save" => save, arity: 1, flags: [ADMIN, NOSCRIPT, NO_ASYNC_LOADING, NO_MULTI], acl: [ADMIN, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "SAVE", summary: "Writes a snapshot (RDB) synchronously.";
    "bgsave" => bgsave, arity: -1, flags: [ADMIN, NOSCRIPT, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "BGSAVE [SCHEDULE]", summary: "Forks a child that writes a snapshot (RDB) in the background.";
    "bgrewriteaof" => bgrewriteaof, arity: 1, flags: [ADMIN, NOSCRIPT, NO_ASYNC_LOADING], acl: [ADMIN, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "BGREWRITEAOF", summary: "Rewrites the append-only file as a snapshot preamble.";
    "lastsave" => lastsave, arity: 1, flags: [LOADING, STALE, FAST], acl: [ADMIN, FAST, DANGEROUS], since: "1.0.0",
        syntax: "LASTSAVE", summary: "Unix time of the last successful save.";
};

fn save(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    crate::persist::save(ctx.srv);
    Frame::ok()
}

fn bgsave(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() > 2 || (args.len() == 2 && !is(&args[1], "schedule")) {
        return Frame::err(SYNTAX);
    }
    if crate::persist::bgsave(ctx.srv) {
        Frame::Simple("Background saving started".into())
    } else if args.len() == 2 {
        Frame::Simple("Background saving scheduled".into())
    } else {
        Frame::err("ERR Background save already in progress")
    }
}

fn bgrewriteaof(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    crate::persist::rewrite_aof(ctx.srv);
    Frame::Simple("Background append only file rewriting started".into())
}

fn lastsave(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Integer(ctx.srv.persist.lastsave)
}
