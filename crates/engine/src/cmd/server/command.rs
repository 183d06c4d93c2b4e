//! COMMAND and its subcommands COUNT, INFO, LIST, GETKEYS and HELP (DOCS is in `docs`): the table as Redis describes its own, with flags and ACL categories in Redis' order.

use super::docs::command_docs;
use crate::cmd::args::{is, SYNTAX};
use crate::cmd::keyspecs;
use crate::cmd::replies::help_reply;
use crate::cmd::table::{commands, full_name, Acl, Command, Ctx, Flags};
use crate::proto::resp::Frame;

pub(super) static SUBCOMMANDS: &[Command] = commands! { group: "server";
    "count" => command_count, arity: 2, flags: [LOADING, STALE], acl: [SLOW, CONNECTION], since: "2.8.13",
        syntax: "COMMAND COUNT", summary: "Returns a count of commands.";
    "info" => command_info, arity: -2, flags: [LOADING, STALE], acl: [SLOW, CONNECTION], since: "2.8.13",
        syntax: "COMMAND INFO [command-name [command-name ...]]", summary: "Returns information about one, multiple or all commands.";
    "list" => command_list, arity: -2, flags: [LOADING, STALE], acl: [SLOW, CONNECTION], since: "7.0.0",
        syntax: "COMMAND LIST [FILTERBY (MODULE module-name | ACLCAT category | PATTERN pattern)]", summary: "Returns a list of command names.";
    "docs" => command_docs, arity: -2, flags: [LOADING, STALE], acl: [SLOW, CONNECTION], since: "7.0.0",
        syntax: "COMMAND DOCS [command-name [command-name ...]]", summary: "Returns documentary information about one, multiple or all commands.";
    "getkeys" => command_getkeys, arity: -3, flags: [LOADING, STALE], acl: [SLOW, CONNECTION], since: "2.8.13",
        syntax: "COMMAND GETKEYS command arg [arg ...]", summary: "Extracts the key names from an arbitrary command.";
    "getkeysandflags" => command_getkeysandflags, arity: -3, flags: [LOADING, STALE], acl: [SLOW, CONNECTION], since: "7.0.0",
        syntax: "COMMAND GETKEYSANDFLAGS command arg [arg ...]", summary: "Extracts the key names and access flags for an arbitrary command.";
    "help" => command_help, arity: 2, flags: [LOADING, STALE], acl: [SLOW, CONNECTION], since: "5.0.0",
        syntax: "COMMAND HELP", summary: "Returns helpful text about the different subcommands.";
};

/// A command's ACL categories with the ones Redis implies from its flags
/// (`setImplicitACLCategories`); a command in neither `@fast` nor `@slow`
/// is `@slow`.
pub fn acl_categories(cmd: &Command) -> Acl {
    let f = cmd.flags;
    let implied = [
        (f.contains(Flags::WRITE), Acl::WRITE),
        (
            f.contains(Flags::READONLY) && !cmd.acl.contains(Acl::SCRIPTING),
            Acl::READ,
        ),
        (f.contains(Flags::ADMIN), Acl::ADMIN.with(Acl::DANGEROUS)),
        (f.contains(Flags::PUBSUB), Acl::PUBSUB),
        (f.contains(Flags::FAST), Acl::FAST),
        (f.contains(Flags::BLOCKING), Acl::BLOCKING),
    ];
    let mut cats = cmd.acl;
    for (applies, cat) in implied {
        if applies {
            cats = cats.with(cat);
        }
    }
    if !cats.intersects(Acl::FAST.with(Acl::SLOW)) {
        cats = cats.with(Acl::SLOW);
    }
    cats
}

/// `addReplyCommandInfo`: name, arity, flags, first key, last key, step,
/// ACL categories, tips, key specs, subcommands. Tips and key specs are
/// empty: the table does not carry them.
pub fn command_info_frame(parent: Option<&Command>, cmd: &Command) -> Frame {
    let flags = cmd
        .flags
        .and(Flags::SHOWN)
        .names()
        .map(|f| Frame::simple(f.to_string()))
        .collect();
    let cats = acl_categories(cmd)
        .names()
        .map(|c| Frame::simple(format!("@{c}")))
        .collect();
    let subs = if cmd.subcommands.is_empty() {
        Frame::Set(vec![])
    } else {
        Frame::Array(
            cmd.subcommands
                .iter()
                .map(|s| command_info_frame(Some(cmd), s))
                .collect(),
        )
    };
    Frame::Array(vec![
        Frame::bulk(full_name(parent, cmd)),
        Frame::Integer(cmd.arity as i64),
        Frame::Set(flags),
        Frame::Integer(cmd.keys.0 as i64),
        Frame::Integer(cmd.keys.1 as i64),
        Frame::Integer(cmd.keys.2 as i64),
        Frame::Set(cats),
        Frame::Set(vec![]),
        Frame::Set(vec![]),
        subs,
    ])
}

/// COMMAND without arguments: every command's info.
pub(super) fn command_all(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let names = &ctx.srv.renames;
    Frame::Array(
        ctx.reg
            .all()
            .filter(|c| names.called(c))
            .map(|c| command_info_frame(None, c))
            .collect(),
    )
}

/// COMMAND COUNT: the size of our table (not of Redis'), less the commands
/// renamed to nothing.
fn command_count(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let names = &ctx.srv.renames;
    Frame::Integer(ctx.reg.all().filter(|c| names.called(c)).count() as i64)
}

fn command_info(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() == 2 {
        return command_all(ctx, args);
    }
    Frame::Array(
        args[2..]
            .iter()
            .map(
                |n| match ctx.srv.renames.lookup_full_name(ctx.reg.lookup, n) {
                    Some((parent, cmd)) => command_info_frame(parent, cmd),
                    None => Frame::Null,
                },
            )
            .collect(),
    )
}

/// COMMAND LIST [FILTERBY MODULE m | ACLCAT c | PATTERN p].
fn command_list(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    enum Filter<'a> {
        All,
        Module,
        AclCat(Option<Acl>),
        Pattern(&'a [u8]),
    }
    let mut filter = Filter::All;
    let mut i = 2;
    while i < args.len() {
        let more = args.len() - 1 - i;
        if !(is(&args[i], "filterby") && more == 2) {
            return Frame::err(SYNTAX);
        }
        let (kind, arg) = (&args[i + 1], &args[i + 2]);
        filter = if is(kind, "module") {
            Filter::Module
        } else if is(kind, "aclcat") {
            Filter::AclCat(Acl::named(arg))
        } else if is(kind, "pattern") {
            Filter::Pattern(arg)
        } else {
            return Frame::err(SYNTAX);
        };
        i += 3;
    }
    let called = &ctx.srv.renames;
    let names = ctx
        .reg
        .every_command()
        .filter(|(parent, cmd)| called.called(parent.unwrap_or(cmd)))
        .filter(|(parent, cmd)| match &filter {
            Filter::All => true,
            // No modules can be loaded, so no command belongs to one.
            Filter::Module => false,
            Filter::AclCat(cat) => cat.is_some_and(|c| acl_categories(cmd).contains(c)),
            Filter::Pattern(p) => crate::glob::matches(p, full_name(*parent, cmd).as_bytes(), true),
        })
        .map(|(parent, cmd)| Frame::bulk(full_name(parent, cmd)))
        .collect();
    Frame::Array(names)
}

/// COMMAND GETKEYS and GETKEYSANDFLAGS (`getKeysSubcommandImpl`): the keys
/// of a full command line as `getKeysFromCommandWithSpecs` finds them (key
/// specs when they are reliable, else the command's getkeys procedure),
/// with their key spec flags for GETKEYSANDFLAGS.
fn getkeys(ctx: &mut Ctx, args: &[Vec<u8>], with_flags: bool) -> Frame {
    let target = &args[2..];
    let Some(own) = ctx.srv.renames.own_args(ctx.reg.lookup, target) else {
        return Frame::err("ERR Invalid command specified");
    };
    let target = &own[..];
    let Some(cmd) = ctx.reg.resolve_command(target) else {
        return Frame::err("ERR Invalid command specified");
    };
    let full = match target.len() > 1 && !cmd.name.as_bytes().eq_ignore_ascii_case(&target[0]) {
        true => format!(
            "{}|{}",
            String::from_utf8_lossy(&target[0]).to_ascii_lowercase(),
            cmd.name
        ),
        false => cmd.name.to_string(),
    };
    if !keyspecs::has_keys(&full) {
        return Frame::err("ERR The command has no key arguments");
    }
    let argc = target.len() as i64;
    let arity = cmd.arity as i64;
    if (arity > 0 && arity != argc) || argc < -arity {
        return Frame::err("ERR Invalid number of arguments specified for command");
    }
    let keys = keyspecs::keys_with_flags(cmd, target);
    if keys.is_empty() {
        return if cmd.flags.contains(Flags::NO_MANDATORY_KEYS) {
            Frame::Array(vec![])
        } else {
            Frame::err("ERR Invalid arguments specified for command")
        };
    }
    let reply = |(pos, flags): (usize, u16)| {
        let key = Frame::bulk(&target[pos]);
        if !with_flags {
            return key;
        }
        let names = keyspecs::flag_names(flags).map(Frame::simple).collect();
        Frame::Array(vec![key, Frame::Set(names)])
    };
    Frame::Array(keys.into_iter().map(reply).collect())
}

fn command_getkeys(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    getkeys(ctx, args, false)
}

fn command_getkeysandflags(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    getkeys(ctx, args, true)
}

fn command_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(args, &crate::cmd::doctext::help("command"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::lookup::lookup;

    #[test]
    fn implicit_acl_categories() {
        let get = lookup(b"config")
            .and_then(|c| c.subcommand(b"get"))
            .expect("config get");
        assert_eq!(
            acl_categories(get).names().collect::<Vec<_>>(),
            ["admin", "slow", "dangerous"]
        );
        let time = lookup(b"time").expect("time");
        assert_eq!(acl_categories(time), Acl::FAST);
        let config = lookup(b"config").expect("config");
        assert_eq!(acl_categories(config), Acl::SLOW);
    }
}
