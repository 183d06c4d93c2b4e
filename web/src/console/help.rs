//! The console's help from the engine's command table: `HELP` output, the grey syntax hint shown while typing, and Tab completion, following redis-cli's rules.
//!
//! Nothing here is written per command: every entry comes from
//! `redsim_engine::cmd::all()`, so a command added to the engine gets help and
//! hints for free.

use redsim_engine::cmd::{self, Command};
use redsim_engine::proto::resp::split_args;

/// One command as `HELP` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Upper-case name, with the container for subcommands (`CONFIG GET`).
    pub name: String,
    /// The syntax line without the name: what redis-cli shows in grey.
    pub params: String,
    pub summary: String,
    pub since: String,
    pub group: String,
}

/// What a `HELP` line prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HelpOut {
    /// `HELP` alone: how to use help, and the groups there are.
    Usage { groups: Vec<String> },
    /// Matching commands; the group line is left out when listing a group.
    Entries {
        entries: Vec<Entry>,
        show_group: bool,
    },
    /// Nothing matched.
    NoMatch(String),
}

/// Words local to the console (never sent to the engine), for completion.
const LOCAL: &[&str] = &["clear", "help", "inspect"];

/// Whether `line` needs the command docs (a light build loads them as
/// data, see `crate::docs`): HELP about a command or group, or COMMAND DOCS.
pub fn wants_docs(line: &str) -> bool {
    let Some(args) = redsim_engine::proto::resp::split_args(line.as_bytes()) else {
        return false;
    };
    (args.len() > 1 && args[0].eq_ignore_ascii_case(b"help"))
        || redsim_engine::cmd::doctext::needs_docs(&args)
}

/// Answers `HELP <args…>` (the `HELP` word itself already removed).
pub fn help(args: &[String]) -> HelpOut {
    let Some(first) = args.first() else {
        return HelpOut::Usage { groups: groups() };
    };
    if let Some(group) = first.strip_prefix('@') {
        let entries: Vec<Entry> = all_entries()
            .into_iter()
            .filter(|e| e.group.eq_ignore_ascii_case(group))
            .collect();
        return if entries.is_empty() {
            HelpOut::NoMatch(first.clone())
        } else {
            HelpOut::Entries {
                entries,
                show_group: false,
            }
        };
    }
    let Some(c) = cmd::lookup(first.as_bytes()) else {
        return HelpOut::NoMatch(args.join(" "));
    };
    let entries = if c.subcommands.is_empty() {
        vec![entry(c, None)]
    } else if let Some(sub_name) = args.get(1) {
        match c.subcommand(sub_name.as_bytes()) {
            Some(sub) => vec![entry(sub, Some(c))],
            None => return HelpOut::NoMatch(args.join(" ")),
        }
    } else {
        c.subcommands.iter().map(|s| entry(s, Some(c))).collect()
    };
    HelpOut::Entries {
        entries,
        show_group: true,
    }
}

/// Every command and subcommand, in table order.
fn all_entries() -> Vec<Entry> {
    let mut out = Vec::new();
    for c in cmd::all() {
        if c.subcommands.is_empty() {
            out.push(entry(c, None));
        }
        out.extend(c.subcommands.iter().map(|s| entry(s, Some(c))));
    }
    out
}

/// The distinct command groups, sorted.
fn groups() -> Vec<String> {
    let mut g: Vec<String> = cmd::all().map(|c| c.group.to_string()).collect();
    redsim_engine::sort::sort(&mut g);
    g.dedup();
    g
}

fn entry(c: &Command, parent: Option<&Command>) -> Entry {
    let mut names: Vec<&str> = parent.map(|p| p.name).into_iter().collect();
    names.push(c.name);
    Entry {
        name: names.join(" ").to_ascii_uppercase(),
        params: params(c.syntax(), &names),
        summary: c.summary().to_string(),
        since: c.since.to_string(),
        group: c.group.to_string(),
    }
}

/// `syntax` without its leading command words (`GET key` → `key`). Words
/// are only removed when they match, so a subcommand whose syntax line omits
/// its container still comes out right.
fn params(syntax: &str, names: &[&str]) -> String {
    let mut rest = syntax.trim();
    for n in names {
        let (word, tail) = rest.split_once(' ').unwrap_or((rest, ""));
        if word.eq_ignore_ascii_case(n) {
            rest = tail.trim_start();
        }
    }
    rest.to_string()
}

/// The grey hint redis-cli shows after what is typed: the command's
/// remaining arguments, one word dropped per typed argument until the first
/// optional (`[`) one. `None` when the command is unknown or nothing is left.
pub fn hint(line: &str) -> Option<String> {
    let args = split_args(line.as_bytes())?;
    let first = args.first()?;
    let endspace = line.ends_with(|c: char| c.is_ascii_whitespace());
    let (mut params, matchlen) = if first.eq_ignore_ascii_case(b"help") {
        ("[command | @group]".to_string(), 1)
    } else if first.eq_ignore_ascii_case(b"inspect") {
        ("key".to_string(), 1)
    } else {
        let c = cmd::lookup(first)?;
        if c.subcommands.is_empty() {
            (params(c.syntax(), &[c.name]), 1)
        } else if let Some(sub_name) = args.get(1) {
            let sub = c.subcommand(sub_name)?;
            (params(sub.syntax(), &[c.name, sub.name]), 2)
        } else {
            let names: Vec<String> = c
                .subcommands
                .iter()
                .map(|s| s.name.to_ascii_uppercase())
                .collect();
            (names.join("|"), 1)
        }
    };
    let mut toremove = args.len().saturating_sub(matchlen);
    while toremove > 0 && !params.is_empty() && !params.starts_with('[') {
        if params.starts_with(' ') {
            toremove -= 1;
        }
        params.remove(0);
    }
    if params.is_empty() {
        return None;
    }
    if !endspace {
        params.insert(0, ' ');
    }
    Some(params)
}

/// Tab completion of the command word: the first command (alphabetically)
/// starting with what is typed, so an exact name wins over longer ones
/// (`get` stays `get`, not `getdel`), in the case the user types in.
pub fn complete(line: &str) -> Option<String> {
    let word = line.trim_start();
    if word.is_empty() || word.contains(char::is_whitespace) {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    let mut names: Vec<&str> = cmd::all()
        .map(|c| c.name)
        .chain(LOCAL.iter().copied())
        .filter(|n| n.starts_with(&lower))
        .collect();
    redsim_engine::sort::sort(&mut names);
    let name = names.first()?;
    let typed_lower = word.starts_with(|c: char| c.is_ascii_lowercase());
    Some(if typed_lower {
        format!("{name} ")
    } else {
        format!("{} ", name.to_ascii_uppercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_drop_only_matching_name_words() {
        assert_eq!(params("GET key", &["get"]), "key");
        assert_eq!(
            params("CONFIG GET parameter", &["config", "get"]),
            "parameter"
        );
        assert_eq!(params("GET parameter", &["config", "get"]), "parameter");
        assert_eq!(params("PING", &["ping"]), "");
    }

    #[test]
    fn help_for_a_command_comes_from_the_table() {
        let get = cmd::lookup(b"get").expect("GET is in the table");
        match help(&["get".into()]) {
            HelpOut::Entries {
                entries,
                show_group,
            } => {
                assert!(show_group);
                assert_eq!(entries.len(), 1);
                assert_eq!(entries[0].name, "GET");
                assert_eq!(entries[0].summary, get.summary());
                assert_eq!(entries[0].since, get.since);
                assert_eq!(entries[0].group, get.group);
                assert_eq!(format!("GET {}", entries[0].params), get.syntax());
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            help(&["nosuchcommand".into()]),
            HelpOut::NoMatch("nosuchcommand".into())
        );
        match help(&[]) {
            HelpOut::Usage { groups } => assert!(groups.contains(&"string".to_string())),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn help_for_a_group_lists_its_commands_without_the_group_line() {
        match help(&["@connection".into()]) {
            HelpOut::Entries {
                entries,
                show_group,
            } => {
                assert!(!show_group);
                assert!(entries.iter().any(|e| e.name == "PING"));
                assert!(entries.iter().all(|e| e.group == "connection"));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(help(&["@nogroup".into()]), HelpOut::NoMatch(_)));
    }

    #[test]
    fn hint_drops_typed_arguments_like_redis_cli() {
        // ECHO message: one required argument.
        assert_eq!(hint("ECHO").as_deref(), Some(" message"));
        assert_eq!(hint("echo ").as_deref(), Some("message"));
        assert_eq!(hint("ECHO hi"), None);
        assert_eq!(hint("ECHO hi "), None);
        // Optional arguments stay once reached.
        assert_eq!(hint("PING ").as_deref(), Some("[message]"));
        assert_eq!(hint("PING a b").as_deref(), Some(" [message]"));
        // Unknown commands, prefixes and unbalanced quotes give nothing.
        assert_eq!(hint("PIN"), None);
        assert_eq!(hint("NOPE x"), None);
        assert_eq!(hint("ECHO \"abc"), None);
        assert_eq!(hint(""), None);
        assert_eq!(hint("help ").as_deref(), Some("[command | @group]"));
    }

    #[test]
    fn containers_list_their_subcommands_and_hint_each_one() {
        let c = cmd::all()
            .find(|c| !c.subcommands.is_empty())
            .expect("the table has a container command (CONFIG, OBJECT, ...)");
        let sub = &c.subcommands[0];
        let (cname, sname) = (c.name.to_ascii_uppercase(), sub.name.to_ascii_uppercase());
        match help(&[c.name.into()]) {
            HelpOut::Entries { entries, .. } => {
                assert_eq!(entries.len(), c.subcommands.len());
                assert_eq!(entries[0].name, format!("{cname} {sname}"));
            }
            other => panic!("unexpected {other:?}"),
        }
        match help(&[c.name.into(), sub.name.into()]) {
            HelpOut::Entries { entries, .. } => {
                assert_eq!(entries.len(), 1);
                assert_eq!(entries[0].summary, sub.summary());
            }
            other => panic!("unexpected {other:?}"),
        }
        let listed = hint(&format!("{cname} ")).expect("subcommand names as a hint");
        assert!(listed.split('|').any(|n| n == sname), "{listed}");
        let expected = params(sub.syntax(), &[c.name, sub.name]);
        let got = hint(&format!("{cname} {sname} "));
        if expected.is_empty() {
            assert_eq!(got, None);
        } else {
            assert_eq!(got.as_deref(), Some(expected.as_str()));
        }
    }

    #[test]
    fn tab_completes_command_names_in_the_typed_case() {
        assert_eq!(complete("pi").as_deref(), Some("ping "));
        assert_eq!(complete("PI").as_deref(), Some("PING "));
        assert_eq!(complete("cle").as_deref(), Some("clear "));
        assert_eq!(complete("ping").as_deref(), Some("ping "));
        assert_eq!(complete("zzz"), None);
        assert_eq!(complete("ping x"), None);
    }
}
