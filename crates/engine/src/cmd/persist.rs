//! Persistence commands: SAVE, BGSAVE, BGREWRITEAOF and LASTSAVE, over the simulated files in `crate::persist`.

use super::{Command, Ctx};
use crate::proto::resp::Frame;

macro_rules! persist_cmd {
    ($name:literal, $arity:expr, [$($flag:literal),*], [$($acl:literal),*], $syntax:literal, $summary:literal, $since:literal, $handler:expr) => {
        Command {
            name: $name,
            arity: $arity,
            flags: &[$($flag),*],
            keys: (0, 0, 0),
            acl: &[$($acl),*],
            syntax: $syntax,
            summary: $summary,
            since: $since,
            group: "server",
            handler: $handler,
            subcommands: &[],
        }
    };
}

pub static COMMANDS: &[Command] = &[
    persist_cmd!(
        "save",
        1,
        ["no_async_loading", "admin", "noscript", "no_multi"],
        ["admin", "slow", "dangerous"],
        "SAVE",
        "Writes a snapshot (RDB) synchronously.",
        "1.0.0",
        save
    ),
    persist_cmd!(
        "bgsave",
        -1,
        ["no_async_loading", "admin", "noscript"],
        ["admin", "slow", "dangerous"],
        "BGSAVE [SCHEDULE]",
        "Forks a child that writes a snapshot (RDB) in the background.",
        "1.0.0",
        bgsave
    ),
    persist_cmd!(
        "bgrewriteaof",
        1,
        ["no_async_loading", "admin", "noscript"],
        ["admin", "slow", "dangerous"],
        "BGREWRITEAOF",
        "Rewrites the append-only file as a snapshot preamble.",
        "1.0.0",
        bgrewriteaof
    ),
    persist_cmd!(
        "lastsave",
        1,
        ["loading", "stale", "fast"],
        ["admin", "fast", "dangerous"],
        "LASTSAVE",
        "Unix time of the last successful save.",
        "1.0.0",
        lastsave
    ),
];

fn save(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    crate::persist::save(ctx.srv);
    Frame::ok()
}

fn bgsave(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() > 2 || (args.len() == 2 && !super::is(&args[1], "schedule")) {
        return Frame::err(super::SYNTAX);
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
