//! The command table against Redis' own description of its commands: COMMAND INFO entries, COMMAND DOCS groups and ACL categories.

use std::collections::BTreeSet;

use crate::{Conn, Frame};

/// Redis' `COMMAND INFO` entry for `name` (`get`, `config|get`).
pub fn command_info(c: &mut Conn, name: &str) -> Vec<Frame> {
    let Frame::Array(mut infos) = c.cmd(&["COMMAND", "INFO", name]) else {
        panic!("COMMAND INFO reply");
    };
    let Some(Frame::Array(info)) = infos.pop() else {
        panic!("no COMMAND INFO for {name}");
    };
    info
}

/// Asserts that `cmd`'s table entry says what Redis' `COMMAND INFO` entry
/// `info` says: name (`full`, e.g. `object|encoding`), arity, flags, key
/// positions and ACL categories.
pub fn assert_command_info(info: &[Frame], cmd: &redsim_engine::cmd::Command, full: &str) {
    assert!(
        info.len() >= 7,
        "{full}: COMMAND INFO has {} fields",
        info.len()
    );
    assert_eq!(info[0], Frame::bulk(full), "{full} name");
    assert_eq!(info[1], Frame::Integer(cmd.arity as i64), "{full} arity");
    // COMMAND INFO hides `may_replicate` and the other internal flags.
    let flags: Vec<Frame> = cmd
        .flags
        .and(redsim_engine::cmd::Flags::SHOWN)
        .names()
        .map(|f| Frame::simple(f.to_string()))
        .collect();
    assert_eq!(info[2], Frame::Array(flags), "{full} flags");
    let keys = [cmd.keys.0, cmd.keys.1, cmd.keys.2].map(|k| Frame::Integer(k as i64));
    assert_eq!(&info[3..6], &keys, "{full} key positions");
    let acl: Vec<Frame> = cmd
        .acl
        .names()
        .map(|a| Frame::simple(format!("@{a}")))
        .collect();
    assert_eq!(info[6], Frame::Array(acl), "{full} ACL categories");
}

/// The commands of `group` (`string`, `hash`, ...), from the one command
/// list, in table order.
pub fn group_commands(group: &str) -> Vec<&'static redsim_engine::cmd::Command> {
    redsim_engine::cmd::all()
        .filter(|c| c.group == group)
        .collect()
}

/// Asserts [`assert_command_info`] for every command of a group's table
/// and its subcommands ([`assert_subcommands`]), each of which must be in
/// `group`.
pub fn assert_command_table<'a>(
    c: &mut Conn,
    commands: impl IntoIterator<Item = &'a redsim_engine::cmd::Command>,
    group: &str,
) {
    for cmd in commands {
        // Debian's 7.0.15 has no entry for a command 7.2 added (WAITAOF);
        // its table entry is checked against 7.2's JSON by the key-spec tests.
        if cmd.since.starts_with("7.2") {
            continue;
        }
        let info = command_info(c, cmd.name);
        assert_command_info(&info, cmd, cmd.name);
        assert_subcommands(&info, cmd);
        assert_eq!(cmd.group, group, "{} group", cmd.name);
    }
}

/// Asserts that the subcommands in Redis' `COMMAND INFO` entry `info` of
/// `cmd` (its tenth field, empty for a plain command) are those of `cmd`'s
/// table, each agreeing as [`assert_command_info`] says.
pub fn assert_subcommands(info: &[Frame], cmd: &redsim_engine::cmd::Command) {
    let Some(Frame::Array(subs)) = info.get(9) else {
        panic!("{} has no subcommand list", cmd.name);
    };
    assert_eq!(
        subs.len(),
        cmd.subcommands.len(),
        "{} subcommands",
        cmd.name
    );
    for sub in subs {
        let Frame::Array(sub) = sub else {
            panic!("{}: subcommand entry {sub:?}", cmd.name);
        };
        let Some(Frame::Bulk(full)) = sub.first() else {
            panic!("{}: subcommand name {sub:?}", cmd.name);
        };
        let full = String::from_utf8_lossy(full).into_owned();
        let word = full.split('|').nth(1).expect("container|sub");
        let ours = cmd
            .subcommand(word.as_bytes())
            .unwrap_or_else(|| panic!("missing subcommand {full}"));
        assert_command_info(sub, ours, &full);
    }
}

/// Asserts that the table's commands of `group` agree with Redis'
/// `COMMAND INFO` ([`assert_command_table`]) and are the whole family:
/// `count` of them, as many as Redis' `COMMAND DOCS` puts in the group;
/// and that they (containers by their subcommands) are Redis' ACL
/// category of the same name, besides `others`, commands of other groups
/// in it.
pub fn assert_command_group(c: &mut Conn, group: &str, count: usize, others: &[&str]) {
    let cmds = group_commands(group);
    assert_eq!(cmds.len(), count, "Redis 7.2's {group} commands");
    assert_command_table(c, cmds.iter().copied(), group);
    assert_eq!(
        commands_in_group(c, group),
        count,
        "Redis' {group} commands"
    );
    let mut theirs = commands_in_acl_category(c, group);
    theirs.retain(|n| !others.contains(&n.as_str()));
    // A container is listed by its subcommands only.
    let ours: BTreeSet<String> = cmds
        .iter()
        .flat_map(|cmd| match cmd.subcommands {
            [] => vec![cmd.name.to_string()],
            subs => subs
                .iter()
                .map(|sub| format!("{}|{}", cmd.name, sub.name))
                .collect(),
        })
        .collect();
    assert_eq!(theirs, ours, "@{group}");
}

/// How many commands Redis' `COMMAND DOCS` puts in `group`.
pub fn commands_in_group(c: &mut Conn, group: &str) -> usize {
    let Frame::Array(docs) = c.cmd(&["COMMAND", "DOCS"]) else {
        panic!("COMMAND DOCS reply");
    };
    docs.chunks(2)
        .filter(|pair| {
            let Some(Frame::Array(fields)) = pair.get(1) else {
                return false;
            };
            fields
                .chunks(2)
                .any(|kv| kv[0] == Frame::bulk("group") && kv.get(1) == Some(&Frame::bulk(group)))
        })
        .count()
}

/// The names of the commands in ACL category `category`
/// (`COMMAND LIST FILTERBY ACLCAT`).
pub fn commands_in_acl_category(c: &mut Conn, category: &str) -> BTreeSet<String> {
    let Frame::Array(names) = c.cmd(&["COMMAND", "LIST", "FILTERBY", "ACLCAT", category]) else {
        panic!("COMMAND LIST reply");
    };
    names
        .iter()
        .map(|n| match n {
            Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
            other => panic!("command name {other:?}"),
        })
        .collect()
}
