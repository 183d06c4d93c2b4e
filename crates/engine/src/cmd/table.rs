//! The command table's types: `Command`, its typed flags and ACL categories, the `commands!` macro every entry and subcommand is declared with, and what a handler gets (its context, and the whole table as a `Registry`).
//!
//! Flags and categories are bitsets whose constants carry Redis' names in
//! Redis' bit order, so a misspelt flag does not compile, a test is one
//! AND, and COMMAND INFO / COMMAND LIST print the names in the order Redis
//! does by walking the bits.

use crate::proto::resp::Frame;
use crate::server::client::Client;
use crate::server::Server;

/// Declares a bitset over named bits: one constant per name, the names in
/// bit order (the order Redis replies in), and set operations usable in
/// the `static` command tables.
macro_rules! named_bits {
    ($(#[$meta:meta])* pub struct $ty:ident { $($(#[$bit_meta:meta])* $bit:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $ty(u32);

        impl $ty {
            /// No bit set.
            pub const NONE: $ty = $ty(0);
            named_bits!(@consts $ty; 0; $($(#[$bit_meta])* $bit)*);

            /// Every bit with its name, in bit order.
            pub const ALL: &'static [($ty, &'static str)] = &[$(($ty::$bit, $text)),*];

            /// Both sets' bits (`|`, usable in constants).
            pub const fn with(self, other: $ty) -> $ty {
                $ty(self.0 | other.0)
            }

            /// True if every bit of `other` is set.
            #[inline]
            pub const fn contains(self, other: $ty) -> bool {
                self.0 & other.0 == other.0
            }

            /// True if any bit of `other` is set.
            #[inline]
            pub const fn intersects(self, other: $ty) -> bool {
                self.0 & other.0 != 0
            }

            /// The bits of `self` that `other` has too.
            pub const fn and(self, other: $ty) -> $ty {
                $ty(self.0 & other.0)
            }

            /// The bits of `self` that `other` does not have.
            pub const fn without(self, other: $ty) -> $ty {
                $ty(self.0 & !other.0)
            }

            /// The names of the set bits, in bit order.
            pub fn names(self) -> impl Iterator<Item = &'static str> {
                Self::ALL
                    .iter()
                    .filter(move |(b, _)| self.contains(*b))
                    .map(|(_, n)| *n)
            }

            /// The bit named `name` (any case).
            pub fn named(name: &[u8]) -> Option<$ty> {
                Self::ALL
                    .iter()
                    .find(|(_, n)| name.eq_ignore_ascii_case(n.as_bytes()))
                    .map(|(b, _)| *b)
            }
        }

        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_list().entries(self.names()).finish()
            }
        }
    };
    (@consts $ty:ident; $n:expr; $(#[$bit_meta:meta])* $bit:ident $($rest:tt)*) => {
        $(#[$bit_meta])*
        pub const $bit: $ty = $ty(1 << ($n));
        named_bits!(@consts $ty; $n + 1; $($rest)*);
    };
    (@consts $ty:ident; $n:expr;) => {};
}

named_bits! {
    /// Command flags (`CMD_*` in Redis' `server.h`), in the order of Redis' bits.
    pub struct Flags {
        WRITE = "write",
        READONLY = "readonly",
        DENYOOM = "denyoom",
        MODULE = "module",
        ADMIN = "admin",
        PUBSUB = "pubsub",
        NOSCRIPT = "noscript",
        BLOCKING = "blocking",
        LOADING = "loading",
        STALE = "stale",
        SKIP_MONITOR = "skip_monitor",
        SKIP_SLOWLOG = "skip_slowlog",
        ASKING = "asking",
        FAST = "fast",
        NO_AUTH = "no_auth",
        /// Hidden by COMMAND INFO.
        MAY_REPLICATE = "may_replicate",
        /// Hidden by COMMAND INFO.
        SENTINEL = "sentinel",
        /// Hidden by COMMAND INFO.
        ONLY_SENTINEL = "only_sentinel",
        NO_MANDATORY_KEYS = "no_mandatory_keys",
        /// Hidden by COMMAND INFO.
        PROTECTED = "protected",
        NO_ASYNC_LOADING = "no_async_loading",
        NO_MULTI = "no_multi",
        MOVABLEKEYS = "movablekeys",
        ALLOW_BUSY = "allow_busy",
    }
}

impl Flags {
    /// The flags COMMAND INFO shows (`addReplyCommandFlags` hides
    /// `may_replicate`, `sentinel`, `only_sentinel` and `protected`).
    pub const SHOWN: Flags = Flags(
        !(Flags::MAY_REPLICATE.0 | Flags::SENTINEL.0 | Flags::ONLY_SENTINEL.0 | Flags::PROTECTED.0),
    );
}

named_bits! {
    /// ACL categories (without the `@`), in the order of Redis' category
    /// table, which is the order replies list them in.
    pub struct Acl {
        KEYSPACE = "keyspace",
        READ = "read",
        WRITE = "write",
        SET = "set",
        SORTEDSET = "sortedset",
        LIST = "list",
        HASH = "hash",
        STRING = "string",
        BITMAP = "bitmap",
        HYPERLOGLOG = "hyperloglog",
        GEO = "geo",
        STREAM = "stream",
        PUBSUB = "pubsub",
        ADMIN = "admin",
        FAST = "fast",
        SLOW = "slow",
        BLOCKING = "blocking",
        DANGEROUS = "dangerous",
        CONNECTION = "connection",
        TRANSACTION = "transaction",
        SCRIPTING = "scripting",
    }
}

/// What a handler works with.
pub struct Ctx<'a> {
    pub srv: &'a mut Server,
    pub client: &'a mut Client,
    /// The command (or subcommand) being run.
    pub cmd: &'static Command,
    /// The whole table, for the commands that work with other commands.
    pub reg: &'static Registry,
}

impl Ctx<'_> {
    /// The selected database index.
    pub fn db(&self) -> usize {
        self.client.db
    }

    /// Reports `n` elements examined that the reply will not show, for the
    /// CPU cost model (`crate::cost`).
    pub fn visited(&mut self, n: u64) {
        self.srv.cpu.visited += n;
    }

    /// `rewriteClientCommandVector`: replicas get `argv` instead of the
    /// command as sent (built only while a socket replica listens).
    pub fn propagate_as(&mut self, argv: &[&[u8]]) {
        self.srv.repl.wire.rewrite_with(argv);
    }

    /// `alsoPropagate`: replicas get `argv` too, in the selected database.
    pub fn also_propagate(&mut self, argv: &[&[u8]]) {
        let db = self.client.db;
        self.srv.repl.wire.also(db, argv);
    }

    /// `redactClientCommandArgument`: MONITOR and the slow log show
    /// argument `i` as `(redacted)`.
    pub fn redact(&mut self, i: usize) {
        self.srv.observe.redacted.push(i);
    }

    /// Whether replicas on sockets listen: rewrites worth building.
    pub fn propagating(&self) -> bool {
        self.srv.repl.wire.on
    }
}

/// A command handler: the full argument vector (command name first) in,
/// the reply out; it never panics on user input.
pub type Handler = fn(&mut Ctx, &[Vec<u8>]) -> Frame;

/// One entry of the command table, as `COMMAND INFO` describes it.
pub struct Command {
    /// Lower-case name (`get`); subcommands are named by their own word (`encoding`).
    pub name: &'static str,
    /// Redis arity: exact count if positive, minimum if negative (name included).
    pub arity: i32,
    /// Redis' command flags (`write`, `readonly`, `denyoom`, `fast`, ...).
    pub flags: Flags,
    /// First key position (0 if none), last (-1: last argument), step.
    pub keys: (i32, i32, i32),
    /// The categories the table declares; COMMAND adds the ones Redis
    /// implies from the flags (see `server::command::acl_categories`).
    pub acl: Acl,
    /// Syntax line shown by HELP and the console's hint, e.g. `GET key`:
    /// read it with `Command::syntax` (`cmd::doctext`: a light build leaves
    /// it empty and installs the docs as data).
    pub doc_syntax: &'static str,
    /// One-line summary: read it with `Command::summary`.
    pub doc_summary: &'static str,
    /// Redis version that introduced it.
    pub since: &'static str,
    /// Command group (`string`, `generic`, `server`, `connection`).
    pub group: &'static str,
    /// What runs it (a container's is [`container`]: its subcommands run).
    pub handler: Handler,
    /// Subcommands of a container command (CONFIG, OBJECT, COMMAND, CLIENT).
    pub subcommands: &'static [Command],
    /// Part of a heavy family (scripting, streams, ...) or a rarely used
    /// command (SORT, LCS, BITFIELD, ...): a `light` build keeps its entry,
    /// so COMMAND and HELP describe it, but not its code.
    pub heavy: bool,
}

impl Command {
    /// The subcommand named `name` (case-insensitive).
    pub fn subcommand(&self, name: &[u8]) -> Option<&'static Command> {
        self.subcommands
            .iter()
            .find(|c| name.eq_ignore_ascii_case(c.name.as_bytes()))
    }
}

/// `cmd->fullname`: `name`, or `parent|name` for a subcommand.
pub fn full_name(parent: Option<&Command>, cmd: &Command) -> String {
    match parent {
        Some(p) => format!("{}|{}", p.name, cmd.name),
        None => cmd.name.to_string(),
    }
}

/// A resolved command line: the top-level command and the command run,
/// its subcommand or itself.
pub type Resolved = (&'static Command, &'static Command);

/// The whole table as the commands that work with other commands reach it
/// (EXEC and EVAL run them, COMMAND describes them). The dispatcher hands
/// it to every handler in its [`Ctx`], so that no family depends on the
/// list it is part of, nor on the dispatcher.
pub struct Registry {
    /// Every family's entries, in table order (the order COMMAND replies in).
    pub families: &'static [&'static &'static [Command]],
    /// The command called `name` (any case).
    pub lookup: fn(&[u8]) -> Option<&'static Command>,
    /// The command (or subcommand) `args` name and its parent, or Redis'
    /// rejection of an unknown name.
    pub resolve: fn(&[Vec<u8>]) -> Result<Resolved, Frame>,
    /// Runs a resolved, validated command (`call`).
    pub call: fn(&mut Server, &mut Client, &'static Command, &[Vec<u8>]) -> Frame,
}

impl Registry {
    /// Every top-level command, in table order.
    pub fn all(&self) -> impl Iterator<Item = &'static Command> {
        let families = self.families;
        families.iter().flat_map(|family| family.iter())
    }

    /// Every command and subcommand with its parent, in table order.
    pub fn every_command(
        &self,
    ) -> impl Iterator<Item = (Option<&'static Command>, &'static Command)> {
        self.all().flat_map(|c| {
            std::iter::once((None, c)).chain(c.subcommands.iter().map(move |s| (Some(c), s)))
        })
    }

    /// The command `args` names with its subcommand resolved (a container
    /// called alone is itself); `None` if the name or the subcommand is unknown.
    pub fn resolve_command(&self, args: &[Vec<u8>]) -> Option<&'static Command> {
        let parent = (self.lookup)(args.first()?)?;
        match args.get(1) {
            Some(word) if !parent.subcommands.is_empty() => parent.subcommand(word),
            _ => Some(parent),
        }
    }

    /// `lookupCommandBySds`: `name` or `container|sub`, any case.
    pub fn lookup_full_name(
        &self,
        name: &[u8],
    ) -> Option<(Option<&'static Command>, &'static Command)> {
        lookup_full_name_by(self.lookup, name)
    }
}

/// [`Registry::lookup_full_name`] with top-level names found by `lookup`
/// (the table's own, or the server's after `rename-command`).
pub fn lookup_full_name_by(
    lookup: impl Fn(&[u8]) -> Option<&'static Command>,
    name: &[u8],
) -> Option<(Option<&'static Command>, &'static Command)> {
    let mut parts = name.split(|&b| b == b'|');
    let base = lookup(parts.next()?)?;
    match (parts.next(), parts.next()) {
        (None, _) => Some((None, base)),
        (Some(s), None) => base.subcommand(s).map(|c| (Some(base), c)),
        (Some(_), Some(_)) => None,
    }
}

/// The handler a `light` build gives heavy commands. The browser console
/// never lets one reach it: it asks [`needs_full_engine`] first and moves
/// its session to the full engine instead.
pub fn deferred(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::err("ERR this command runs in Redsim's full engine, which this build leaves out")
}

/// Whether running `args` needs the full engine: always false, except in a
/// `light` build for the heavy families' commands (the parent of an unknown
/// subcommand answers in any build, as Redis does).
pub fn needs_full_engine(reg: &Registry, args: &[Vec<u8>]) -> bool {
    cfg!(feature = "light") && reg.resolve_command(args).is_some_and(|c| c.heavy)
}

/// A heavy family's handler: itself, or [`deferred`] in a `light` build.
#[cfg(not(feature = "light"))]
macro_rules! heavy_handler {
    ($handler:path) => {
        $handler
    };
}
#[cfg(feature = "light")]
macro_rules! heavy_handler {
    ($handler:path) => {
        $crate::cmd::table::deferred
    };
}
pub(crate) use heavy_handler;

/// A piece of the command docs as the table keeps it (a syntax line, a
/// summary, a HELP reply's lines): `$text` itself, or `$empty` in a light
/// build (outside its tests), which loads the docs as data instead (see
/// `cmd::doctext`).
#[cfg(any(not(feature = "light"), test))]
macro_rules! doc_text {
    ($text:expr, $empty:expr) => {
        $text
    };
}
#[cfg(all(feature = "light", not(test)))]
macro_rules! doc_text {
    ($text:expr, $empty:expr) => {
        $empty
    };
}
pub(crate) use doc_text;

/// Placeholder handler for containers, whose dispatch goes to a subcommand.
pub fn container(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::err("ERR container command without subcommand")
}

/// Declares command table entries: a slice of [`Command`]s, of the group
/// named first unless an entry says otherwise. Each entry is
/// `"name" => handler,` then `arity`, `flags`, optionally `keys` (first,
/// last, step; none if left out), `acl`, optionally `group`, then `since`,
/// `syntax`, `summary` and, for a container, `subcommands`, ending with
/// `;`. Flags and categories are the constants of [`Flags`] and [`Acl`], so
/// a misspelt one does not compile. A table that starts with `heavy;`
/// belongs to a heavy family (see [`Command::heavy`]); an entry that starts
/// with `heavy` is a rarely used command of a light family, left out the
/// same way because its code weighs more than a console's use of it.
macro_rules! commands {
    (@keys) => { (0, 0, 0) };
    (@keys $keys:tt) => { $keys };
    (@subs) => { &[] };
    (@subs $subs:path) => { $subs };
    (@group $group:literal) => { $group };
    (@group $default:literal $group:literal) => { $group };
    (@handler false; $handler:path) => { $handler };
    (@handler true; $handler:path) => { $crate::cmd::table::heavy_handler!($handler) };
    (@handler $table:tt heavy; $handler:path) => { $crate::cmd::table::heavy_handler!($handler) };
    (@heavy $table:tt) => { $table };
    (@heavy $table:tt heavy) => { true };
    (@doc $text:literal) => { $crate::cmd::table::doc_text!($text, "") };
    (heavy; $($rest:tt)*) => { $crate::cmd::table::commands!(@table true; $($rest)*) };
    (group: $($rest:tt)*) => { $crate::cmd::table::commands!(@table false; group: $($rest)*) };
    (@table $heavy:tt; group: $group:literal; $(
        $($own_heavy:ident)? $name:literal => $handler:path,
        arity: $arity:literal,
        flags: [$($flag:ident),* $(,)?],
        $(keys: ($first:literal, $last:literal, $step:literal),)?
        acl: [$($acl:ident),* $(,)?],
        $(group: $own_group:literal,)?
        since: $since:literal,
        syntax: $syntax:literal,
        summary: $summary:literal
        $(, subcommands: $subs:path)?;
    )*) => {
        &[$($crate::cmd::table::Command {
            name: $name,
            arity: $arity,
            flags: $crate::cmd::table::Flags::NONE$(.with($crate::cmd::table::Flags::$flag))*,
            keys: $crate::cmd::table::commands!(@keys $(($first, $last, $step))?),
            acl: $crate::cmd::table::Acl::NONE$(.with($crate::cmd::table::Acl::$acl))*,
            doc_syntax: $crate::cmd::table::commands!(@doc $syntax),
            doc_summary: $crate::cmd::table::commands!(@doc $summary),
            since: $since,
            group: $crate::cmd::table::commands!(@group $group $($own_group)?),
            handler: $crate::cmd::table::commands!(@handler $heavy $($own_heavy)?; $handler),
            subcommands: $crate::cmd::table::commands!(@subs $($subs)?),
            heavy: $crate::cmd::table::commands!(@heavy $heavy $($own_heavy)?),
        }),*]
    };
}
pub(crate) use commands;

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit `i` is the `i`-th name: replies walk the bits in this order.
    #[test]
    fn names_follow_the_bits() {
        for (i, (bit, _)) in Flags::ALL.iter().enumerate() {
            assert_eq!(*bit, Flags(1 << i));
        }
        for (i, (bit, _)) in Acl::ALL.iter().enumerate() {
            assert_eq!(*bit, Acl(1 << i));
        }
        let names: Vec<&str> = Flags::ALL.iter().map(|(_, n)| *n).collect();
        assert_eq!(
            names,
            [
                "write",
                "readonly",
                "denyoom",
                "module",
                "admin",
                "pubsub",
                "noscript",
                "blocking",
                "loading",
                "stale",
                "skip_monitor",
                "skip_slowlog",
                "asking",
                "fast",
                "no_auth",
                "may_replicate",
                "sentinel",
                "only_sentinel",
                "no_mandatory_keys",
                "protected",
                "no_async_loading",
                "no_multi",
                "movablekeys",
                "allow_busy",
            ]
        );
        let cats: Vec<&str> = Acl::ALL.iter().map(|(_, n)| *n).collect();
        assert_eq!(
            cats,
            [
                "keyspace",
                "read",
                "write",
                "set",
                "sortedset",
                "list",
                "hash",
                "string",
                "bitmap",
                "hyperloglog",
                "geo",
                "stream",
                "pubsub",
                "admin",
                "fast",
                "slow",
                "blocking",
                "dangerous",
                "connection",
                "transaction",
                "scripting",
            ]
        );
    }

    #[test]
    fn shown_flags_are_the_ones_command_info_prints() {
        let hidden = ["may_replicate", "sentinel", "only_sentinel", "protected"];
        let shown: Vec<&str> = Flags::SHOWN.names().collect();
        let expected: Vec<&str> = Flags::ALL
            .iter()
            .map(|(_, n)| *n)
            .filter(|n| !hidden.contains(n))
            .collect();
        assert_eq!(shown, expected);
        assert_eq!(Acl::named(b"SortedSet"), Some(Acl::SORTEDSET));
        assert_eq!(Acl::named(b"nosuch"), None);
        let f = Flags::WRITE.with(Flags::FAST);
        assert!(f.contains(Flags::FAST) && !f.contains(Flags::READONLY));
        assert_eq!(format!("{f:?}"), r#"["write", "fast"]"#);
    }

    fn args(line: &str) -> Vec<Vec<u8>> {
        line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    /// The heavy families are the ones the browser console leaves out:
    /// scripting, streams, geo, ACL, cluster, replication, persistence,
    /// DUMP/RESTORE, MIGRATE, DEBUG, MODULE and the server's diagnostics
    /// (LATENCY, SLOWLOG, LOLWUT), with a few rarely used commands of light families
    /// (SORT, LCS, BITFIELD, PFDEBUG, PFSELFTEST, MEMORY STATS, DOCTOR and
    /// MALLOC-STATS). A `light` build (and only it) sends them elsewhere.
    #[test]
    fn heavy_commands_are_the_families_a_light_build_leaves_out() {
        let heavy = [
            "EVAL x 0",
            "EVALSHA x 0",
            "SCRIPT LOAD x",
            "FCALL f 0",
            "FUNCTION LIST",
            "XADD s * f v",
            "XINFO STREAM s",
            "XGROUP CREATE s g $",
            "GEOADD g 1 2 m",
            "GEOSEARCH g FROMLONLAT 0 0 BYRADIUS 1 m",
            "ACL WHOAMI",
            "AUTH x",
            "CLUSTER INFO",
            "READONLY",
            "REPLICAOF NO ONE",
            "WAIT 0 0",
            "SAVE",
            "BGSAVE",
            "DUMP k",
            "RESTORE k 0 x",
            "MIGRATE h 1 k 0 1",
            "DEBUG SLEEP 0",
            "LATENCY LATEST",
            "SLOWLOG GET",
            "LOLWUT",
            "SORT l",
            "SORT_RO l",
            "LCS a b",
            "BITFIELD b GET u8 0",
            "BITFIELD_RO b GET u8 0",
            "PFDEBUG ENCODING h",
            "PFSELFTEST",
            "MEMORY STATS",
            "MEMORY DOCTOR",
            "MEMORY MALLOC-STATS",
            "MODULE LIST",
        ];
        let light = [
            "GET k",
            "SET k v",
            "HSET h f v",
            "LPUSH l a",
            "SADD s a",
            "ZADD z 1 a",
            "SETBIT b 1 1",
            "PFADD h a",
            "BITCOUNT b",
            "PFCOUNT h",
            "MULTI",
            "EXEC",
            "SUBSCRIBE c",
            "CONFIG GET maxmemory",
            "COMMAND COUNT",
            "OBJECT ENCODING k",
            "EXPIRE k 1",
            "CLIENT ID",
            "INFO",
            "MEMORY USAGE k",
            "MEMORY PURGE",
            "FLUSHALL",
            "BLPOP l 0",
            "MONITOR",
        ];
        for line in heavy {
            let cmd = crate::cmd::resolve_command(&args(line)).expect(line);
            assert!(cmd.heavy, "{line} should be heavy");
            assert_eq!(
                crate::cmd::needs_full_engine(&args(line)),
                cfg!(feature = "light"),
                "{line}"
            );
        }
        for line in light {
            let cmd = crate::cmd::resolve_command(&args(line)).expect(line);
            assert!(!cmd.heavy, "{line} should be light");
            assert!(!crate::cmd::needs_full_engine(&args(line)), "{line}");
        }
        // Should one reach a light engine, it is refused, not half-run.
        let mut e = crate::Engine::new(1);
        let c = e.connect("t");
        let eval = e.execute(c, &args("EVAL return 0"));
        assert_eq!(eval.is_error(), cfg!(feature = "light"), "{eval:?}");
        // An unknown subcommand of a heavy container is refused alike by
        // both builds, so a light one answers it.
        assert!(!crate::cmd::needs_full_engine(&args("SCRIPT NOSUCH")));
        // A heavy container's subcommands are heavy (its own handler is left
        // out); a light one may have heavy ones (MEMORY STATS).
        for (parent, cmd) in crate::cmd::every_command() {
            if let Some(p) = parent {
                assert!(!p.heavy || cmd.heavy, "{}|{}", p.name, cmd.name);
            }
        }
    }

    /// A light build keeps every command in its table (COMMAND, HELP and the
    /// console's hints describe them all), and answers the others as the
    /// full build does.
    #[test]
    fn a_light_build_keeps_the_whole_table() {
        let names: Vec<&str> = crate::cmd::all().map(|c| c.name).collect();
        for name in [
            "eval", "xadd", "geoadd", "acl", "cluster", "debug", "get", "zadd",
        ] {
            assert!(names.contains(&name), "{name}");
        }
        let mut e = crate::Engine::new(1);
        let c = e.connect("t");
        assert!(!e.execute(c, &args("SET k v")).is_error());
        let count = Frame::Integer(names.len() as i64);
        assert_eq!(e.execute(c, &args("COMMAND COUNT")), count);
    }
}
