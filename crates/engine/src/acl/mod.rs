//! ACL state (acl.c's data): users with their flags, password hashes and selectors (command bits, key and channel patterns), password hashing, key and channel checks, and the ACL LOG.
//!
//! Everything here is plain data and what needs no command table. The rules
//! that name commands or categories (`+get`, `-@admin`), the permission check
//! before a command and the ACL command itself live in `cmd/acl/`, above the
//! table, since nothing below `cmd/` may import it.

use crate::ordmap::OrdMap;
use std::collections::VecDeque;

use sha2::{Digest, Sha256};

/// Words of a selector's command bitmap: room for 1024 commands and
/// subcommands, as Redis' `USER_COMMAND_BITS_COUNT`.
pub const COMMAND_WORDS: usize = 16;

/// Read permission of a key pattern (`%R~`, `ACL_READ_PERMISSION`).
pub const PERM_READ: u8 = 1;
/// Write permission of a key pattern (`%W~`, `ACL_WRITE_PERMISSION`).
pub const PERM_WRITE: u8 = 2;
/// Both (`~pattern`).
pub const PERM_ALL: u8 = PERM_READ | PERM_WRITE;

/// Why a command (or AUTH) was refused: Redis' `ACL_DENIED_*`, ordered as
/// Redis ranks them when several selectors fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Denied {
    Cmd = 1,
    Key = 2,
    Auth = 3,
    Channel = 4,
}

impl Denied {
    /// ACL LOG's `reason`.
    pub fn reason(self) -> &'static str {
        match self {
            Denied::Cmd => "command",
            Denied::Key => "key",
            Denied::Auth => "auth",
            Denied::Channel => "channel",
        }
    }
}

/// One key pattern with the access it grants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyPattern {
    pub pattern: Vec<u8>,
    pub flags: u8,
}

impl KeyPattern {
    /// `sdsCatPatternString`: `~p`, `%R~p` or `%W~p`.
    pub fn describe(&self) -> String {
        let p = String::from_utf8_lossy(&self.pattern);
        match self.flags {
            PERM_READ => format!("%R~{p}"),
            PERM_WRITE => format!("%W~{p}"),
            _ => format!("~{p}"),
        }
    }
}

/// An `aclSelector`: what one set of rules allows. A user's first selector
/// is its root (the rules outside parentheses).
#[derive(Clone, Debug, Default)]
pub struct Selector {
    /// `SELECTOR_FLAG_ALLKEYS`.
    pub allkeys: bool,
    /// `SELECTOR_FLAG_ALLCHANNELS`.
    pub allchannels: bool,
    /// `SELECTOR_FLAG_ALLCOMMANDS`: the bits need not be read (set by
    /// `+@all`, cleared by any command removed).
    pub allcommands: bool,
    /// Redis' reserved bit: set by `+@all` only, so the description starts
    /// with `+@all` (future commands allowed) rather than `-@all`.
    pub future: bool,
    /// One bit per command id (see `cmd::acl::ids`).
    pub bits: [u64; COMMAND_WORDS],
    /// First arguments allowed for a command whose bit is clear (`+select|0`).
    pub firstargs: OrdMap<usize, Vec<Vec<u8>>>,
    pub patterns: Vec<KeyPattern>,
    pub channels: Vec<Vec<u8>>,
    /// The ordered command and category rules, as ACL LIST shows them.
    pub rules: String,
}

impl Selector {
    /// The bit of command `id`.
    pub fn bit(&self, id: usize) -> bool {
        self.bits
            .get(id / 64)
            .is_some_and(|w| w & (1u64 << (id % 64)) != 0)
    }

    /// Sets or clears the bit of command `id`; clearing one loses
    /// `allcommands` (`ACLSetSelectorCommandBit`).
    pub fn set_bit(&mut self, id: usize, on: bool) {
        let w = id / 64;
        if w >= COMMAND_WORDS {
            return;
        }
        if on {
            self.bits[w] |= 1u64 << (id % 64);
        } else {
            self.bits[w] &= !(1u64 << (id % 64));
            self.allcommands = false;
        }
    }

    /// `+@all` (`all`) or `-@all`: every bit, the rules string emptied.
    pub fn all_commands(&mut self, all: bool) {
        self.bits = [if all { u64::MAX } else { 0 }; COMMAND_WORDS];
        self.allcommands = all;
        self.future = all;
        self.rules.clear();
        self.firstargs.clear();
    }

    /// `ACLSelectorCheckKey`: `need` is the read/write access the command
    /// asks of the key.
    pub fn check_key(&self, key: &[u8], need: u8) -> bool {
        self.allkeys
            || self
                .patterns
                .iter()
                .any(|p| p.flags & need == need && crate::glob::matches(&p.pattern, key, false))
    }

    /// `ACLCheckChannelAgainstList`: a pattern subscription must name an
    /// allowed pattern literally; a channel is matched against the patterns.
    pub fn check_channel(&self, channel: &[u8], is_pattern: bool) -> bool {
        self.allchannels
            || self.channels.iter().any(|p| {
                if is_pattern {
                    p == channel
                } else {
                    crate::glob::matches(p, channel, false)
                }
            })
    }

    /// ACL GETUSER's `keys` field.
    pub fn keys_text(&self) -> String {
        if self.allkeys {
            return "~*".into();
        }
        let v: Vec<String> = self.patterns.iter().map(KeyPattern::describe).collect();
        v.join(" ")
    }

    /// ACL GETUSER's `channels` field.
    pub fn channels_text(&self) -> String {
        if self.allchannels {
            return "&*".into();
        }
        let v: Vec<String> = self
            .channels
            .iter()
            .map(|c| format!("&{}", String::from_utf8_lossy(c)))
            .collect();
        v.join(" ")
    }

    /// `ACLDescribeSelector` without the command rules: keys and channels,
    /// each followed by a space.
    pub fn describe_keys_channels(&self) -> String {
        let mut s = String::new();
        if self.allkeys {
            s.push_str("~* ");
        } else {
            for p in &self.patterns {
                s.push_str(&p.describe());
                s.push(' ');
            }
        }
        if self.allchannels {
            s.push_str("&* ");
        } else {
            s.push_str("resetchannels ");
            for c in &self.channels {
                s.push('&');
                s.push_str(&String::from_utf8_lossy(c));
                s.push(' ');
            }
        }
        s
    }
}

/// A user (`struct user`).
#[derive(Clone, Debug)]
pub struct User {
    pub name: String,
    /// `on` (true) or `off`.
    pub enabled: bool,
    pub nopass: bool,
    /// `skip-sanitize-payload` (true) or `sanitize-payload`.
    pub skip_sanitize: bool,
    /// SHA-256 hashes, lower-case hex.
    pub passwords: Vec<String>,
    /// The root selector first, then the `(...)` ones.
    pub selectors: Vec<Selector>,
}

impl User {
    /// `ACLCreateUser`: off, no passwords, no keys, no commands; channels
    /// per `acl-pubsub-default`.
    pub fn new(name: &str, allchannels: bool) -> User {
        let root = Selector {
            allchannels,
            ..Selector::default()
        };
        User {
            name: name.to_string(),
            enabled: false,
            nopass: false,
            skip_sanitize: false,
            passwords: Vec::new(),
            selectors: vec![root],
        }
    }

    /// The flags ACL GETUSER and ACL LIST show, in Redis' order.
    pub fn flag_names(&self) -> Vec<&'static str> {
        let mut v = vec![if self.enabled { "on" } else { "off" }];
        if self.nopass {
            v.push("nopass");
        }
        v.push(if self.skip_sanitize {
            "skip-sanitize-payload"
        } else {
            "sanitize-payload"
        });
        v
    }

    /// `ACLCheckUserCredentials` for this user.
    pub fn password_ok(&self, password: &[u8]) -> bool {
        if !self.enabled {
            return false;
        }
        if self.nopass {
            return true;
        }
        let h = hash_password(password);
        self.passwords.contains(&h)
    }
}

/// SHA-256 of a password as 64 lower-case hex digits (`ACLHashPassword`).
pub fn hash_password(password: &[u8]) -> String {
    let digest = Sha256::digest(password);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// `ACLCheckPasswordHash`: 64 lower-case hex digits.
pub fn valid_hash(h: &[u8]) -> bool {
    h.len() == 64
        && h.iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

/// Files the engine reads and writes by name (`aclfile`): the engine has
/// no disk, so a driver with one installs its own (`Engine::set_file_store`);
/// otherwise they live in memory, as in the browser.
pub trait FileStore: Send + Sync {
    /// The file's bytes, or the OS-style error text (`strerror`).
    fn read(&self, path: &str) -> Result<Vec<u8>, String>;
    /// Replaces the file's contents.
    fn write(&self, path: &str, data: &[u8]) -> Result<(), String>;
    /// Whether `path` is a directory a server could work in (`dir`, which
    /// Redis changes into as it is set), or the OS-style error text. Files
    /// in memory have no directories to refuse.
    fn check_dir(&self, _path: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Files kept in memory.
#[derive(Default)]
pub struct MemoryFiles(std::sync::Mutex<OrdMap<String, Vec<u8>>>);

impl FileStore for MemoryFiles {
    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        let files = self.0.lock().map_err(|_| "I/O error".to_string())?;
        files
            .get(path)
            .cloned()
            .ok_or_else(|| "No such file or directory".to_string())
    }

    fn write(&self, path: &str, data: &[u8]) -> Result<(), String> {
        let mut files = self.0.lock().map_err(|_| "I/O error".to_string())?;
        files.insert(path.to_string(), data.to_vec());
        Ok(())
    }
}

/// Where a denial happened (ACL LOG's `context`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogContext {
    Toplevel,
    Multi,
    Lua,
}

impl LogContext {
    pub fn name(self) -> &'static str {
        match self {
            LogContext::Toplevel => "toplevel",
            LogContext::Multi => "multi",
            LogContext::Lua => "lua",
        }
    }
}

/// One ACL LOG entry (`ACLLogEntry`).
#[derive(Clone, Debug)]
pub struct LogEntry {
    pub count: u64,
    pub reason: Denied,
    pub context: LogContext,
    pub object: Vec<u8>,
    pub username: String,
    /// Unix ms of the last update (`ctime`).
    pub ctime_ms: u64,
    /// CLIENT INFO of the last client that hit it.
    pub client_info: String,
    pub entry_id: u64,
    pub created_ms: u64,
}

/// Entries updated instead of added when they happen within this many ms.
const LOG_GROUPING_MS: u64 = 60_000;

/// The users, the ACL LOG and the counters INFO reports.
#[derive(Clone, Debug, Default)]
pub struct AclState {
    /// Whether anyone must authenticate: the default user has a password
    /// or is off (kept in step by every change to users).
    pub auth_required: bool,
    /// By name, in name order (Redis' rax order for ACL LIST and USERS).
    pub users: OrdMap<String, User>,
    /// Newest first.
    pub log: VecDeque<LogEntry>,
    /// Entries ever created (`ACLLogEntryCount`), the next `entry-id`.
    pub log_created: u64,
    pub auth_failures: u64,
    pub denied_cmd: u64,
    pub denied_key: u64,
    pub denied_channel: u64,
}

impl AclState {
    /// `ACLInit`'s users: only `default`, allowed everything, no password
    /// unless `requirepass` gives one.
    pub fn new(requirepass: &str) -> AclState {
        let mut root = Selector {
            allkeys: true,
            allchannels: true,
            ..Selector::default()
        };
        root.all_commands(true);
        let default = User {
            name: "default".into(),
            enabled: true,
            nopass: true,
            skip_sanitize: false,
            passwords: Vec::new(),
            selectors: vec![root],
        };
        let mut st = AclState::default();
        st.users.insert("default".into(), default);
        st.set_requirepass(requirepass);
        st
    }

    /// `ACLUpdateDefaultUserPassword`: `requirepass` replaces the default
    /// user's passwords (empty: `nopass`).
    pub fn set_requirepass(&mut self, pass: &str) {
        if let Some(u) = self.users.get_mut("default") {
            u.passwords.clear();
            u.nopass = pass.is_empty();
            if !pass.is_empty() {
                u.passwords.push(hash_password(pass.as_bytes()));
            }
        }
        self.refresh();
    }

    /// Recomputes what depends on the default user.
    pub fn refresh(&mut self) {
        self.auth_required = self
            .users
            .get("default")
            .is_none_or(|u| !u.nopass || !u.enabled);
    }

    /// True if the default user needs no password (protected mode applies).
    pub fn default_nopass(&self) -> bool {
        self.users.get("default").is_some_and(|u| u.nopass)
    }

    /// `ACLAddLogEntry`'s bookkeeping: counts the denial, then bumps a
    /// matching entry among the 10 newest (same reason, context, object,
    /// user, within a minute) or adds a new one, trimming to `max_len`.
    pub fn log_denial(&mut self, mut entry: LogEntry, max_len: usize) {
        match entry.reason {
            Denied::Auth => self.auth_failures += 1,
            Denied::Cmd => self.denied_cmd += 1,
            Denied::Key => self.denied_key += 1,
            Denied::Channel => self.denied_channel += 1,
        }
        let found = self.log.iter().take(10).position(|e| {
            e.reason == entry.reason
                && e.context == entry.context
                && e.ctime_ms.abs_diff(entry.ctime_ms) <= LOG_GROUPING_MS
                && e.object == entry.object
                && e.username == entry.username
        });
        if let Some(i) = found {
            let mut e = self.log.remove(i).expect("found above");
            e.client_info = entry.client_info;
            e.ctime_ms = entry.ctime_ms;
            e.count += 1;
            self.log.push_front(e);
            return;
        }
        entry.entry_id = self.log_created;
        self.log_created += 1;
        self.log.push_front(entry);
        self.log.truncate(max_len);
    }
}

/// `ACLDescribeSelectorCommandRules`.
pub fn describe_commands(s: &Selector) -> String {
    let mut out = String::from(if s.future { "+@all" } else { "-@all" });
    if !s.rules.is_empty() {
        out.push(' ');
        out.push_str(&s.rules);
    }
    out
}

/// `ACLDescribeUser`: flags, password hashes, the root selector, then each
/// other selector in parentheses.
pub fn describe_user(u: &User) -> String {
    let mut out = String::new();
    for f in u.flag_names() {
        out.push_str(f);
        out.push(' ');
    }
    for p in &u.passwords {
        out.push('#');
        out.push_str(p);
        out.push(' ');
    }
    for (i, s) in u.selectors.iter().enumerate() {
        let d = format!("{}{}", s.describe_keys_channels(), describe_commands(s));
        if i == 0 {
            out.push_str(&d);
        } else {
            out.push_str(&format!(" ({d})"));
        }
    }
    out
}

/// `user <name> <rules>` for every user, in name order (ACL LIST, ACL SAVE,
/// CONFIG REWRITE).
pub fn user_lines(acl: &AclState) -> Vec<String> {
    acl.users
        .values()
        .map(|u| format!("user {} {}", u.name, describe_user(u)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_sha256_hex() {
        assert_eq!(
            hash_password(b"foo"),
            "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
        );
        assert!(valid_hash(hash_password(b"x").as_bytes()));
        assert!(!valid_hash(b"ABC"));
    }

    #[test]
    fn key_and_channel_patterns() {
        let mut s = Selector::default();
        s.patterns.push(KeyPattern {
            pattern: b"r*".to_vec(),
            flags: PERM_READ,
        });
        assert!(s.check_key(b"rx", PERM_READ));
        assert!(!s.check_key(b"rx", PERM_WRITE));
        assert!(!s.check_key(b"x", PERM_READ));
        s.channels.push(b"news.*".to_vec());
        assert!(s.check_channel(b"news.a", false));
        assert!(!s.check_channel(b"news.a", true));
        assert!(s.check_channel(b"news.*", true));
        assert_eq!(s.describe_keys_channels(), "%R~r* resetchannels &news.* ");
    }

    #[test]
    fn log_groups_repeats() {
        let mut st = AclState::default();
        let e = LogEntry {
            count: 1,
            reason: Denied::Auth,
            context: LogContext::Toplevel,
            object: b"AUTH".to_vec(),
            username: "u".into(),
            ctime_ms: 1000,
            client_info: String::new(),
            entry_id: 0,
            created_ms: 1000,
        };
        st.log_denial(e.clone(), 128);
        st.log_denial(e.clone(), 128);
        assert_eq!(st.log.len(), 1);
        assert_eq!(st.log[0].count, 2);
        st.log_denial(
            LogEntry {
                ctime_ms: 100_000,
                ..e
            },
            128,
        );
        assert_eq!(st.log.len(), 2);
        assert_eq!(st.log[0].entry_id, 1);
        assert_eq!(st.auth_failures, 3);
    }
}
