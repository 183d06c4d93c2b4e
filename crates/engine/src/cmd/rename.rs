//! `rename-command`: a configuration file's renames, which change the names clients, MULTI and scripts call commands by (Redis' `server.commands`), while ACL rules, COMMAND's replies and the command statistics keep each command's own name (`server.orig_commands`, `cmd->fullname`).

use std::borrow::Cow;

use super::table::{lookup_full_name_by, Command};
pub use crate::server::renames::Renames;

/// The table's own lookup (`Registry::lookup`), which the names in force
/// start from. Passed in, so that the families reaching this module do not
/// reach the table's list of them.
pub type TableLookup = fn(&[u8]) -> Option<&'static Command>;

impl Renames {
    /// The command `name` calls (any case): a new name first, then the
    /// table's, unless that name was renamed away.
    #[inline]
    pub fn find(&self, table: TableLookup, name: &[u8]) -> Option<&'static Command> {
        // Every rename takes a command's own name away first, so a server
        // without one has nothing else to look at.
        if self.removed.is_empty() {
            return table(name);
        }
        if let Some((_, own)) = self
            .added
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            return table(own.as_bytes());
        }
        table(name).filter(|cmd| !self.removed.contains(&cmd.name))
    }

    /// `rename-command old new`, as Redis reads it from its configuration:
    /// `old` (a current name) stops calling its command, and `new` calls it
    /// unless it is empty. The error is Redis' reason for refusing the line.
    pub fn rename(
        &mut self,
        table: TableLookup,
        old: &[u8],
        new: &[u8],
    ) -> Result<(), &'static str> {
        // Redis takes `container|sub` to a subcommand here and then fails an
        // assertion; no subcommand has a name of its own to take away.
        let cmd = self
            .find(table, old)
            .ok_or("No such command in rename-command")?;
        match self
            .added
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(old))
        {
            Some(i) => {
                self.added.remove(i);
            }
            None => self.removed.push(cmd.name),
        }
        if !new.is_empty() {
            if self.find(table, new).is_some() {
                return Err("Target command name already exists");
            }
            self.added.push((new.to_ascii_lowercase(), cmd.name));
        }
        Ok(())
    }

    /// Whether some name still calls `cmd`: COMMAND, COMMAND COUNT and
    /// COMMAND LIST leave out a command renamed to nothing.
    pub fn called(&self, cmd: &Command) -> bool {
        !self.removed.contains(&cmd.name) || self.added.iter().any(|(_, own)| *own == cmd.name)
    }

    /// [`Registry::lookup_full_name`](super::Registry::lookup_full_name) by the names in force.
    pub fn lookup_full_name(
        &self,
        table: TableLookup,
        name: &[u8],
    ) -> Option<(Option<&'static Command>, &'static Command)> {
        lookup_full_name_by(|n| self.find(table, n), name)
    }

    /// `args` as the command's code reads them, to be resolved by the
    /// table's own names from here on: under a new name, the first word
    /// becomes the command's own, so that key specs (which tell a
    /// subcommand by that word), ACL key checks, MULTI's queue and handlers
    /// shared by several commands see what they would without the rename.
    /// `None` when the first word calls no command under the names in force
    /// (the caller's unknown-command error); borrowed unchanged, and
    /// unlooked-at, when nothing was renamed.
    pub fn own_args<'a>(
        &self,
        table: TableLookup,
        args: &'a [Vec<u8>],
    ) -> Option<Cow<'a, [Vec<u8>]>> {
        if self.removed.is_empty() {
            return Some(Cow::Borrowed(args));
        }
        let cmd = self.find(table, args.first()?)?;
        if args[0].eq_ignore_ascii_case(cmd.name.as_bytes()) {
            return Some(Cow::Borrowed(args));
        }
        let mut own = args.to_vec();
        own[0] = cmd.name.as_bytes().to_vec();
        Some(Cow::Owned(own))
    }
}

#[cfg(test)]
mod tests {
    use super::super::lookup::lookup;
    use super::*;

    fn name(c: Option<&'static Command>) -> Option<&'static str> {
        c.map(|c| c.name)
    }

    #[test]
    fn a_rename_moves_the_name_and_an_empty_one_removes_it() {
        let mut r = Renames::default();
        assert_eq!(name(r.find(lookup, b"FLUSHDB")), Some("flushdb"));
        r.rename(lookup, b"FlushDB", b"Badger").unwrap();
        assert_eq!(name(r.find(lookup, b"badger")), Some("flushdb"));
        assert_eq!(name(r.find(lookup, b"BADGER")), Some("flushdb"));
        assert!(r.find(lookup, b"flushdb").is_none());
        assert!(r.called(lookup(b"flushdb").unwrap()));
        r.rename(lookup, b"keys", b"").unwrap();
        assert!(r.find(lookup, b"keys").is_none());
        assert!(!r.called(lookup(b"keys").unwrap()));
        // A new name renamed again leaves only the last one.
        r.rename(lookup, b"badger", b"otter").unwrap();
        assert!(r.find(lookup, b"badger").is_none());
        assert_eq!(name(r.find(lookup, b"otter")), Some("flushdb"));
        // A name taken away can be given to another command, and back.
        r.rename(lookup, b"get", b"keys").unwrap();
        assert_eq!(name(r.find(lookup, b"keys")), Some("get"));
        r.rename(lookup, b"set", b"set").unwrap();
        assert_eq!(name(r.find(lookup, b"set")), Some("set"));
        assert!(r.lookup_full_name(lookup, b"config|get").is_some());
        let args = |w: &[&str]| w.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>();
        assert_eq!(
            *r.own_args(lookup, &args(&["OTTER"])).unwrap(),
            args(&["flushdb"])
        );
        assert_eq!(
            *r.own_args(lookup, &args(&["keys", "k"])).unwrap(),
            args(&["get", "k"])
        );
        assert!(matches!(
            r.own_args(lookup, &args(&["set", "k", "v"])),
            Some(Cow::Borrowed(_))
        ));
        assert!(r.own_args(lookup, &args(&["badger"])).is_none());
        assert!(Renames::default()
            .own_args(lookup, &args(&["nosuch"]))
            .is_some());
    }

    #[test]
    fn refusals_are_redis_reasons() {
        let mut r = Renames::default();
        assert_eq!(
            r.rename(lookup, b"nosuch", b"x"),
            Err("No such command in rename-command")
        );
        assert_eq!(
            r.rename(lookup, b"config|get", b"x"),
            Err("No such command in rename-command")
        );
        assert_eq!(
            r.rename(lookup, b"get", b"SET"),
            Err("Target command name already exists")
        );
        let mut r = Renames::default();
        r.rename(lookup, b"get", b"").unwrap();
        assert_eq!(
            r.rename(lookup, b"get", b"x"),
            Err("No such command in rename-command")
        );
    }
}
