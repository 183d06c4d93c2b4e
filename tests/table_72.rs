//! Redsim's command table against Redis 7.2's own: every command and subcommand of 7.2 is there with 7.2's arity, flags and ACL categories, and every other entry is one of Redsim's own. The facts are `data/commands-7.2.txt`, written from 7.2.4's `commands.def` by `data/commands_72.py`; the differential tests can only compare with the 7.0 server they run, and allow its known differences.

use std::collections::BTreeMap;

use redsim_engine::{Engine, Frame};

/// Entries Redis 7.2 does not have: Redsim's own commands.
const REDSIM_OWN: &[&str] = &[];

/// 7.2 commands Redsim does not have yet, each answered as an unknown
/// command or subcommand.
const NOT_YET: &[&str] = &[];

/// One line of the facts, or of our table written the same way:
/// (arity, flags without movablekeys, ACL categories).
type Facts = (i64, String, String);

fn redis_7_2() -> BTreeMap<String, Facts> {
    include_str!("data/commands-7.2.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!(f.len(), 4, "malformed line {l:?}");
            let arity = f[1].parse().expect("arity");
            (
                f[0].to_string(),
                (arity, f[2].to_string(), f[3].to_string()),
            )
        })
        .collect()
}

/// Our table as users see it: `COMMAND INFO` of every entry, which hides
/// the flags Redis hides and adds the implied ACL categories.
fn redsim() -> BTreeMap<String, Facts> {
    let mut e = Engine::new(1);
    let c = e.connect("table");
    let mut out = BTreeMap::new();
    for (parent, cmd) in redsim_engine::cmd::every_command() {
        let name = match parent {
            Some(p) => format!("{}|{}", p.name, cmd.name),
            None => cmd.name.to_string(),
        };
        let Frame::Array(mut infos) = e.execute_line(c, &format!("COMMAND INFO {name}")) else {
            panic!("COMMAND INFO {name}");
        };
        let Some(Frame::Array(info)) = infos.pop() else {
            panic!("no COMMAND INFO for {name}");
        };
        let Frame::Integer(arity) = info[1] else {
            panic!("{name}: arity {:?}", info[1]);
        };
        // movablekeys comes from the key specs, which commands.def does not
        // state as a flag (tests/diff_keyspecs.rs holds those to Redis).
        let flags: Vec<String> = words(&info[2])
            .into_iter()
            .filter(|f| f != "movablekeys")
            .collect();
        let acl: Vec<String> = words(&info[6])
            .iter()
            .map(|a| a.trim_start_matches('@').to_string())
            .collect();
        let flags = if flags.is_empty() {
            "-".to_string()
        } else {
            flags.join(",")
        };
        out.insert(name, (arity, flags, acl.join(",")));
    }
    out
}

/// The status strings of an array (or set) reply.
fn words(f: &Frame) -> Vec<String> {
    let (Frame::Array(items) | Frame::Set(items)) = f else {
        panic!("not a list: {f:?}");
    };
    items
        .iter()
        .map(|i| match i {
            Frame::Simple(s) => s.to_string(),
            other => panic!("not a status: {other:?}"),
        })
        .collect()
}

#[test]
fn every_redis_7_2_command_is_in_the_table_as_7_2_has_it() {
    let theirs = redis_7_2();
    let ours = redsim();
    assert!(theirs.len() > 350, "only {} facts", theirs.len());
    let missing: Vec<&String> = theirs.keys().filter(|n| !ours.contains_key(*n)).collect();
    assert_eq!(missing, NOT_YET, "7.2 commands missing");
    let differ: Vec<String> = theirs
        .iter()
        .filter(|(n, f)| ours.get(*n).is_some_and(|o| o != *f))
        .map(|(n, f)| format!("{n}: 7.2 {f:?}, redsim {:?}", ours[n]))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    let own: Vec<&str> = ours
        .keys()
        .filter(|n| !theirs.contains_key(*n))
        .map(String::as_str)
        .collect();
    assert_eq!(own, REDSIM_OWN, "entries 7.2 does not have");
}
