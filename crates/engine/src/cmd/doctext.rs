//! The command docs (each command's syntax line and summary) as data: written out by the full table for `dist/`, and installed into a light build, which leaves them out of its module and loads them when a page is idle.
//!
//! The syntax lines and summaries are the biggest text of the table, some
//! 45 KB, which a console needs only for HELP, COMMAND DOCS and its grey
//! hints. The light console fetches them after its first reply (or when a
//! command needs them first, holding that command and the ones after it).
//! One line per command and subcommand: its full name (`config|get`), a
//! tab, the syntax line, a tab, the summary. Every other build reads its
//! table's own text, and [`installed`] is always true there.

use crate::cmd::table::{full_name, Command, Registry};

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
    out
}

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
    !installed()
        && args.len() >= 2
        && args[0].eq_ignore_ascii_case(b"command")
        && args[1].eq_ignore_ascii_case(b"docs")
}

pub(crate) fn syntax(c: &Command) -> &'static str {
    #[cfg(feature = "light")]
    if let Some(d) = light::get(c) {
        return d.0;
    }
    c.doc_syntax
}

pub(crate) fn summary(c: &Command) -> &'static str {
    #[cfg(feature = "light")]
    if let Some(d) = light::get(c) {
        return d.1;
    }
    c.doc_summary
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

    /// Syntax line and summary by the address of their (static) command.
    pub static DOCS: OnceLock<IdMap<(&'static str, &'static str)>> = OnceLock::new();

    fn id(c: &Command) -> u64 {
        c as *const Command as usize as u64
    }

    pub fn get(c: &Command) -> Option<(&'static str, &'static str)> {
        DOCS.get()?.get(&id(c)).copied()
    }

    pub fn install(reg: &Registry, text: &str) -> usize {
        // Kept for the life of the page, as the table's own text would be.
        let text: &'static str = Box::leak(text.to_owned().into_boxed_str());
        let mut map = IdMap::new();
        for line in text.lines() {
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
        let _ = DOCS.set(map);
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
        assert_eq!(text.lines().count(), REGISTRY.every_command().count());
        for line in text.lines() {
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
    }
}
