//! The command docs (each command's syntax line and summary, and the HELP replies of the console's containers) as data: written out by the full table for `dist/`, and installed into a light build, which leaves them out of its module and loads them when a page is idle.
//!
//! The syntax lines and summaries are the biggest text of the table, some
//! 45 KB, which a console needs only for HELP, COMMAND DOCS and its grey
//! hints. The light console fetches them after its first reply (or when a
//! command needs them first, holding that command and the ones after it).
//! One line per command and subcommand: its full name (`config|get`), a
//! tab, the syntax line, a tab, the summary; then one line per line of the
//! containers' HELP replies: `?` and the container's name, a tab, the line.
//! Every other build reads its table's own text, and [`installed`] is
//! always true there.

use crate::cmd::table::{doc_text, full_name, Command, Registry};

/// The docs of every command and subcommand of `reg`, one per line.
pub fn render(reg: &Registry) -> String {
    let mut out = String::new();
    for (parent, cmd) in reg.every_command() {
        out.push_str(&full_name(parent, cmd));
        out.push('\t');
        out.push_str(cmd.doc_syntax);
        out.push('\t');
        out.push_str(cmd.doc_summary);
        out.push('\n');
    }
    for (name, lines) in HELP_TEXTS {
        for line in *lines {
            out.push('?');
            out.push_str(name);
            out.push('\t');
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The lines of `<name> HELP` (before HELP's own two), as
/// `replies::help_reply` prints them.
pub(crate) fn help(name: &str) -> Vec<&'static str> {
    #[cfg(feature = "light")]
    if let Some(lines) = light::help(name) {
        return lines;
    }
    HELP_TEXTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, lines)| lines.to_vec())
        .unwrap_or_default()
}

/// The HELP replies of the console's containers (Redis' own text, one
/// array of lines each), kept with the docs: a light build loads them too.
/// The heavy families keep theirs beside their code.
static HELP_TEXTS: &[(&str, &[&str])] = &[
    (
        "object",
        doc_text!(&[
            "ENCODING <key>",
            "    Return the kind of internal representation used in order to store the value",
            "    associated with a <key>.",
            "FREQ <key>",
            "    Return the access frequency index of the <key>. The returned integer is",
            "    proportional to the logarithm of the recent access frequency of the key.",
            "IDLETIME <key>",
            "    Return the idle time of the <key>, that is the approximated number of",
            "    seconds elapsed since the last access to the key.",
            "REFCOUNT <key>",
            "    Return the number of references of the value associated with the specified",
            "    <key>.",
        ], &[]),
    ),
    (
        "command",
        doc_text!(&[
            "(no subcommand)",
            "    Return details about all Redis commands.",
            "COUNT",
            "    Return the total number of commands in this Redis server.",
            "LIST",
            "    Return a list of all commands in this Redis server.",
            "INFO [<command-name> ...]",
            "    Return details about multiple Redis commands.",
            "    If no command names are given, documentation details for all",
            "    commands are returned.",
            "DOCS [<command-name> ...]",
            "    Return documentation details about multiple Redis commands.",
            "    If no command names are given, documentation details for all",
            "    commands are returned.",
            "GETKEYS <full-command>",
            "    Return the keys from a full Redis command.",
            "GETKEYSANDFLAGS <full-command>",
            "    Return the keys and the access flags from a full Redis command.",
        ], &[]),
    ),
    (
        "client",
        doc_text!(&[
            "CACHING (YES|NO)",
            "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
            "GETREDIR",
            "    Return the client ID we are redirecting to when tracking is enabled.",
            "GETNAME",
            "    Return the name of the current connection.",
            "ID",
            "    Return the ID of the current connection.",
            "INFO",
            "    Return information about the current client connection.",
            "KILL <ip:port>",
            "    Kill connection made from <ip:port>.",
            "KILL <option> <value> [<option> <value> [...]]",
            "    Kill connections. Options are:",
            "    * ADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made from the specified address",
            "    * LADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made to specified local address",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Kill connections by type.",
            "    * USER <username>",
            "      Kill connections authenticated by <username>.",
            "    * SKIPME (YES|NO)",
            "      Skip killing current connection (default: yes).",
            "LIST [options ...]",
            "    Return information about client connections. Options:",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Return clients of specified type.",
            "UNPAUSE",
            "    Stop the current client pause, resuming traffic.",
            "PAUSE <timeout> [WRITE|ALL]",
            "    Suspend all, or just write, clients for <timeout> milliseconds.",
            "REPLY (ON|OFF|SKIP)",
            "    Control the replies sent to the current connection.",
            "SETNAME <name>",
            "    Assign the name <name> to the current connection.",
            "SETINFO <option> <value>",
            "    Set client meta attr. Options are:",
            "    * LIB-NAME: the client lib name.",
            "    * LIB-VER: the client lib version.",
            "UNBLOCK <clientid> [TIMEOUT|ERROR]",
            "    Unblock the specified blocked client.",
            "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
            "         [OPTIN] [OPTOUT] [NOLOOP]",
            "    Control server assisted client side caching.",
            "TRACKINGINFO",
            "    Report tracking status for the current connection.",
            "NO-EVICT (ON|OFF)",
            "    Protect current client connection from eviction.",
            "NO-TOUCH (ON|OFF)",
            "    Will not touch LRU/LFU stats when this mode is on.",
        ], &[]),
    ),
    (
        "config",
        doc_text!(&[
            "GET <pattern>",
            "    Return parameters matching the glob-like <pattern> and their values.",
            "SET <directive> <value>",
            "    Set the configuration <directive> to <value>.",
            "RESETSTAT",
            "    Reset statistics reported by the INFO command.",
            "REWRITE",
            "    Rewrite the configuration file.",
        ], &[]),
    ),
    (
        "memory",
        doc_text!(&[
            "DOCTOR",
            "    Return memory problems reports.",
            "MALLOC-STATS",
            "    Return internal statistics report from the memory allocator.",
            "PURGE",
            "    Attempt to purge dirty pages for reclamation by the allocator.",
            "STATS",
            "    Return information about the memory usage of the server.",
            "USAGE <key> [SAMPLES <count>]",
            "    Return memory in bytes used by <key> and its value. Nested values are",
            "    sampled up to <count> times (default: 5, 0 means sample all).",
        ], &[]),
    ),
    (
        "pubsub",
        doc_text!(&[
            "CHANNELS [<pattern>]",
            "    Return the currently active channels matching a <pattern> (default: '*').",
            "NUMPAT",
            "    Return number of subscriptions to patterns.",
            "NUMSUB [<channel> ...]",
            "    Return the number of subscribers for the specified channels, excluding",
            "    pattern subscriptions(default: no channels).",
            "SHARDCHANNELS [<pattern>]",
            "    Return the currently active shard level channels matching a <pattern> (default: '*').",
            "SHARDNUMSUB [<shardchannel> ...]",
            "    Return the number of subscribers for the specified shard level channel(s)",
        ], &[]),
    ),
];

/// Whether [`Command::syntax`] and [`Command::summary`] have their text.
pub fn installed() -> bool {
    #[cfg(feature = "light")]
    return light::DOCS.get().is_some();
    #[cfg(not(feature = "light"))]
    true
}

/// Whether `args` is a command whose reply needs the docs (COMMAND DOCS)
/// while they are not installed: a console holds it until they are.
pub fn needs_docs(args: &[Vec<u8>]) -> bool {
    let named = |i: usize, w: &[u8]| args.get(i).is_some_and(|a| a.eq_ignore_ascii_case(w));
    let help = args.len() == 2
        && named(1, b"help")
        && HELP_TEXTS
            .iter()
            .any(|(n, _)| args[0].eq_ignore_ascii_case(n.as_bytes()));
    !installed() && ((named(0, b"command") && named(1, b"docs")) || help)
}

impl Command {
    /// The syntax line (`GET key`); empty in a light build until the docs
    /// are installed ([`install`]).
    pub fn syntax(&self) -> &'static str {
        #[cfg(feature = "light")]
        if let Some(d) = light::get(self) {
            return d.0;
        }
        self.doc_syntax
    }

    /// The one-line summary; empty in a light build until the docs are
    /// installed.
    pub fn summary(&self) -> &'static str {
        #[cfg(feature = "light")]
        if let Some(d) = light::get(self) {
            return d.1;
        }
        self.doc_summary
    }
}

/// Installs the docs [`render`] wrote, for the commands of `reg`; returns
/// how many entries matched a command. Lines naming no command (a table
/// from another version) are skipped. Only the first install counts.
#[cfg(feature = "light")]
pub fn install(reg: &Registry, text: &str) -> usize {
    light::install(reg, text)
}

#[cfg(feature = "light")]
mod light {
    use std::sync::OnceLock;

    use crate::cmd::table::{Command, Registry};
    use crate::idmap::IdMap;

    /// What was installed: syntax line and summary by the address of
    /// their (static) command, and the HELP replies' lines by container.
    pub struct Docs {
        commands: IdMap<(&'static str, &'static str)>,
        help: Vec<(&'static str, Vec<&'static str>)>,
    }

    pub static DOCS: OnceLock<Docs> = OnceLock::new();

    fn id(c: &Command) -> u64 {
        c as *const Command as usize as u64
    }

    pub fn get(c: &Command) -> Option<(&'static str, &'static str)> {
        DOCS.get()?.commands.get(&id(c)).copied()
    }

    pub fn help(name: &str) -> Option<Vec<&'static str>> {
        let docs = DOCS.get()?;
        let found = docs.help.iter().find(|(n, _)| *n == name);
        Some(found.map(|(_, l)| l.clone()).unwrap_or_default())
    }

    pub fn install(reg: &Registry, text: &str) -> usize {
        // Kept for the life of the page, as the table's own text would be.
        let text: &'static str = Box::leak(text.to_owned().into_boxed_str());
        let mut map = IdMap::new();
        let mut help: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
        for line in text.lines() {
            if let Some((name, l)) = line.strip_prefix('?').and_then(|r| r.split_once('\t')) {
                match help.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, lines)) => lines.push(l),
                    None => help.push((name, vec![l])),
                }
                continue;
            }
            let mut parts = line.splitn(3, '\t');
            let (Some(name), Some(syntax), Some(summary)) =
                (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            if let Some((_, cmd)) = reg.lookup_full_name(name.as_bytes()) {
                map.insert(id(cmd), (syntax, summary));
            }
        }
        let n = map.len();
        let _ = DOCS.set(Docs {
            commands: map,
            help,
        });
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::REGISTRY;

    /// Every command and subcommand has a line, and each line reads back
    /// as the command it names.
    #[test]
    fn the_text_names_every_command_once() {
        let text = render(&REGISTRY);
        let (help, commands): (Vec<&str>, Vec<&str>) =
            text.lines().partition(|l| l.starts_with('?'));
        assert_eq!(commands.len(), REGISTRY.every_command().count());
        let lines: usize = HELP_TEXTS.iter().map(|(_, l)| l.len()).sum();
        assert_eq!(help.len(), lines);
        assert!(help.contains(&"?client\tCACHING (YES|NO)"));
        for line in commands {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line}");
            let (_, cmd) = REGISTRY.lookup_full_name(fields[0].as_bytes()).unwrap();
            assert_eq!(fields[1], cmd.doc_syntax);
            assert_eq!(fields[2], cmd.doc_summary);
            assert!(!fields[1].is_empty() && !fields[2].is_empty(), "{line}");
        }
        assert!(text.contains("config|get\tCONFIG GET parameter"));
    }

    /// COMMAND DOCS is held only while the docs are missing.
    #[test]
    fn command_docs_waits_for_the_docs() {
        let line =
            |s: &str| -> Vec<Vec<u8>> { s.split(' ').map(|w| w.as_bytes().to_vec()).collect() };
        assert!(!needs_docs(&line("GET k")));
        assert!(!needs_docs(&line("COMMAND")));
        assert!(!needs_docs(&line("CLIENT HELP me")));
        assert!(
            !needs_docs(&line("XINFO HELP")),
            "a heavy family keeps its HELP"
        );
        // A light build's tests may install the docs meanwhile (see below).
        #[cfg(not(feature = "light"))]
        assert!(!needs_docs(&line("command DOCS get")));
    }

    /// A light build answers from what it installed: the table's own text
    /// read back, lines for unknown commands skipped.
    #[cfg(feature = "light")]
    #[test]
    fn a_light_build_installs_the_docs() {
        let mut text = render(&REGISTRY);
        text.push_str("nosuchcommand\tNOPE\tNothing.\nbroken line\n");
        let n = install(&REGISTRY, &text);
        assert_eq!(n, REGISTRY.every_command().count());
        assert!(installed());
        let get = crate::cmd::lookup(b"get").unwrap();
        assert_eq!(get.syntax(), "GET key");
        assert!(light::get(get).is_some());
        assert!(!needs_docs(&[b"COMMAND".to_vec(), b"DOCS".to_vec()]));
        for (name, lines) in HELP_TEXTS {
            assert_eq!(light::help(name).as_deref(), Some(*lines), "{name}");
        }
    }
}
