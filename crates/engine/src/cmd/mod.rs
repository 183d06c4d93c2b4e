//! The command table (name, arity, flags, key positions, syntax) and dispatch with Redis 7.2's exact rejection errors.
//!
//! Each family lives in its own module and exports a `COMMANDS` slice; the
//! table is their concatenation. A handler gets a [`Ctx`] and the full
//! argument vector (command name first) and returns a reply frame; it never
//! panics on user input.

pub mod bitmap;
pub mod blocking;
pub mod cluster;
pub mod connection;
pub mod hash;
pub mod hll;
pub mod keys;
pub mod list;
pub mod memory;
pub mod multi;
pub mod persist;
pub mod pubsub;
pub mod repl;
pub mod script;
pub mod server;
pub mod set;
pub mod stream;
pub mod strings;
pub mod ttl;
pub mod zset;

use std::sync::OnceLock;

use crate::proto::resp::{parse_i64, Frame};
use crate::server::client::Client;
use crate::server::Server;

/// What a handler works with.
pub struct Ctx<'a> {
    pub srv: &'a mut Server,
    pub client: &'a mut Client,
    /// The command (or subcommand) being run.
    pub cmd: &'static Command,
}

impl Ctx<'_> {
    /// The selected database index.
    pub fn db(&self) -> usize {
        self.client.db
    }
}

/// A command handler.
pub type Handler = fn(&mut Ctx, &[Vec<u8>]) -> Frame;

/// One entry of the command table, as `COMMAND INFO` describes it.
pub struct Command {
    /// Lower-case name (`get`); subcommands are named by their own word (`encoding`).
    pub name: &'static str,
    /// Redis arity: exact count if positive, minimum if negative (name included).
    pub arity: i32,
    /// Command flags (`write`, `readonly`, `denyoom`, `fast`, ...).
    pub flags: &'static [&'static str],
    /// First key position (0 if none), last (-1: last argument), step.
    pub keys: (i32, i32, i32),
    /// ACL categories, without the `@`.
    pub acl: &'static [&'static str],
    /// Syntax line shown by HELP and the console's hint, e.g. `GET key`.
    pub syntax: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Redis version that introduced it.
    pub since: &'static str,
    /// Command group (`string`, `generic`, `server`, `connection`).
    pub group: &'static str,
    pub handler: Handler,
    /// Subcommands of a container command (CONFIG, OBJECT, COMMAND, CLIENT).
    pub subcommands: &'static [Command],
}

impl Command {
    /// True if `flag` is among the command's flags.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.contains(&flag)
    }

    /// The subcommand named `name` (case-insensitive).
    pub fn subcommand(&self, name: &[u8]) -> Option<&'static Command> {
        let lower = name.to_ascii_lowercase();
        self.subcommands
            .iter()
            .find(|c| c.name.as_bytes() == lower.as_slice())
    }
}

/// Placeholder handler for containers, whose dispatch goes to a subcommand.
pub fn container(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::err("ERR container command without subcommand")
}

/// Every top-level command, in table order.
pub fn all() -> impl Iterator<Item = &'static Command> {
    [
        connection::COMMANDS,
        strings::COMMANDS,
        keys::COMMANDS,
        hash::COMMANDS,
        set::COMMANDS,
        list::COMMANDS,
        blocking::COMMANDS,
        multi::COMMANDS,
        pubsub::COMMANDS,
        ttl::COMMANDS,
        zset::COMMANDS,
        stream::COMMANDS,
        script::COMMANDS,
        server::COMMANDS,
        memory::COMMANDS,
        hll::COMMANDS,
        bitmap::COMMANDS,
        cluster::COMMANDS,
        repl::COMMANDS,
        persist::COMMANDS,
    ]
    .into_iter()
    .flat_map(|family| family.iter())
}

/// Longest command name the packed table holds: a name and its length
/// pack into one `u128`, so a lookup is a multiply, a shift and one integer
/// comparison (this runs for every command). Longer names (a few rare
/// commands) go through a hash table.
const MAX_NAME: usize = 15;

/// `name` lower-cased into 15 bytes with its length in the top byte; `None`
/// if it is empty or too long to pack.
#[inline]
fn pack_name(name: &[u8]) -> Option<u128> {
    let n = name.len();
    if n == 0 || n > MAX_NAME {
        return None;
    }
    // Two little-endian words, zero-padded, lower-cased eight bytes at a time.
    let (lo, hi) = if n >= 8 {
        let lo = u64::from_le_bytes(name[..8].try_into().expect("8 bytes"));
        let hi = if n > 8 {
            crate::keyspace::dict::tail_le(&name[8..])
        } else {
            0
        };
        (lo, hi)
    } else {
        (crate::keyspace::dict::tail_le(name), 0)
    };
    Some((n as u128) << 120 | (ascii_lower8(hi) as u128) << 64 | ascii_lower8(lo) as u128)
}

/// `to_ascii_lowercase` on each byte of a word (SWAR): bytes `A`..=`Z`
/// gain 0x20, every other byte (zero padding, non-ASCII) is left alone.
#[inline]
fn ascii_lower8(x: u64) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let low7 = x & !HIGH;
    // Each byte's high bit: its low 7 bits are >= 'A', and > 'Z'.
    let ge_a = low7.wrapping_add(ONES * (0x80 - b'A' as u64));
    let gt_z = low7.wrapping_add(ONES * (0x80 - b'Z' as u64 - 1));
    let upper = ge_a & !gt_z & !x & HIGH;
    x | (upper >> 2)
}

/// Slot of a packed name in a table of `1 << bits` slots.
fn name_slot(packed: u128, bits: u32) -> usize {
    let folded = (packed as u64) ^ ((packed >> 64) as u64).rotate_left(29);
    (folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
}

/// The command table as an open-addressed array of packed names (0: empty
/// slot, which no packed name is since its length byte is non-zero), and
/// the names too long to pack.
struct NameTable {
    bits: u32,
    slots: Vec<(u128, Option<&'static Command>)>,
    long: crate::keyspace::dict::Dict<&'static Command>,
}

impl NameTable {
    fn build() -> NameTable {
        let n = all().count();
        // At most a quarter full: probes are short.
        let bits = (n * 4).next_power_of_two().trailing_zeros();
        let mut slots = vec![(0u128, None); 1 << bits];
        let mut long = crate::keyspace::dict::Dict::new(0x5eed_c0de);
        for c in all() {
            let Some(packed) = pack_name(c.name.as_bytes()) else {
                long.insert(c.name.as_bytes(), c);
                continue;
            };
            let mut i = name_slot(packed, bits);
            while slots[i].1.is_some() {
                i = (i + 1) & (slots.len() - 1);
            }
            slots[i] = (packed, Some(c));
        }
        NameTable { bits, slots, long }
    }

    fn get(&self, name: &[u8]) -> Option<&'static Command> {
        let Some(packed) = pack_name(name) else {
            // Lower-case into a stack buffer (no command name is longer).
            let mut buf = [0u8; 32];
            let lower = buf.get_mut(..name.len())?;
            lower.copy_from_slice(name);
            lower.make_ascii_lowercase();
            return self.long.get(lower).copied();
        };
        let mut i = name_slot(packed, self.bits);
        loop {
            match self.slots[i] {
                (p, found @ Some(_)) if p == packed => return found,
                (_, None) => return None,
                _ => i = (i + 1) & (self.slots.len() - 1),
            }
        }
    }
}

/// The command called `name` (any case).
pub fn lookup(name: &[u8]) -> Option<&'static Command> {
    static TABLE: OnceLock<NameTable> = OnceLock::new();
    TABLE.get_or_init(NameTable::build).get(name)
}

/// Finds the command (or subcommand) `args` names; the parent is returned
/// too, for the `parent|sub` full name. Errors are Redis' rejections.
pub(crate) fn resolve(args: &[Vec<u8>]) -> Result<(&'static Command, &'static Command), Frame> {
    let Some(parent) = lookup(&args[0]) else {
        return Err(unknown_command(args));
    };
    let mut cmd = parent;
    if !parent.subcommands.is_empty() && args.len() >= 2 {
        match parent.subcommand(&args[1]) {
            Some(sub) => cmd = sub,
            None => {
                return Err(Frame::err(format!(
                    "ERR unknown subcommand '{}'. Try {} HELP.",
                    preview(&args[1], 128),
                    parent.name.to_ascii_uppercase()
                )));
            }
        }
    }
    Ok((parent, cmd))
}

/// Checks and runs one command: the parts of Redis' `processCommand` that
/// exist so far (resolution, arity, MULTI rules, eviction and OOM, queueing).
pub fn dispatch(srv: &mut Server, client: &mut Client, args: &[Vec<u8>]) -> Frame {
    if srv.cluster.is_some() {
        cluster::before_command(srv, client, args);
    }
    // `c->lastcmd`, which CLIENT LIST shows: "NULL" unless the command resolves.
    srv.last_cmd = ("NULL", "");
    let (parent, cmd) = match resolve(args) {
        Ok(found) => found,
        Err(e) => return reject(srv, client, None, e),
    };
    srv.last_cmd = match std::ptr::eq(parent, cmd) {
        true => (cmd.name, ""),
        false => (parent.name, cmd.name),
    };
    let argc = args.len() as i32;
    if (cmd.arity > 0 && argc != cmd.arity) || argc < -cmd.arity {
        let fullname = if std::ptr::eq(parent, cmd) {
            cmd.name.to_string()
        } else {
            format!("{}|{}", parent.name, cmd.name)
        };
        let e = Frame::err(format!(
            "ERR wrong number of arguments for '{fullname}' command"
        ));
        return reject(srv, client, Some(cmd), e);
    }
    let in_multi = client.multi.is_some();
    if in_multi && cmd.has_flag("no_multi") {
        let e = Frame::err("ERR Command not allowed inside a transaction");
        return reject(srv, client, Some(cmd), e);
    }
    // Cluster redirection (`getNodeByQuery`), before eviction as in Redis.
    if srv.cluster.is_some() {
        if let Some(e) = cluster::redirect(srv, client, cmd, args) {
            return e;
        }
    }
    // Evict before running the command, as `processCommand` does: memory
    // may exceed the limit after a write until the next command arrives.
    // Inside MULTI, queueing itself is refused when out of memory.
    if srv.config.maxmemory > 0
        && crate::evict::perform_evictions(srv) == crate::evict::EvictResult::Fail
        && (cmd.has_flag("denyoom")
            || (in_multi && !matches!(cmd.name, "exec" | "discard" | "quit" | "reset")))
    {
        let e = Frame::err("OOM command not allowed when used memory > 'maxmemory'.");
        return reject(srv, client, Some(cmd), e);
    }
    // `processCommand`'s replication gates, in its order: too few good
    // replicas on a master, then a read-only replica.
    if is_write_command(cmd, client) {
        let c = &srv.config;
        if !srv.repl.is_replica()
            && c.min_replicas_to_write > 0
            && c.min_replicas_max_lag > 0
            && (srv.repl.good_replicas(srv.now_ms(), c.min_replicas_max_lag) as i64)
                < c.min_replicas_to_write
        {
            let e = Frame::err("NOREPLICAS Not enough good replicas to write.");
            return reject(srv, client, Some(cmd), e);
        }
        if srv.repl.is_replica() && srv.config.replica_read_only {
            let e = Frame::err("READONLY You can't write against a read only replica.");
            return reject(srv, client, Some(cmd), e);
        }
    }
    // A subscribed RESP2 connection carries only subscription traffic:
    // its messages are indistinguishable from replies. RESP3 tells them
    // apart (push frames), so it has no such limit.
    if client.resp == 2
        && client.subs.active()
        && !(std::ptr::eq(parent, cmd) && pubsub::allowed_when_subscribed(cmd.name))
    {
        let fullname = if std::ptr::eq(parent, cmd) {
            cmd.name.to_string()
        } else {
            format!("{}|{}", parent.name, cmd.name)
        };
        let e = Frame::err(format!(
            "ERR Can't execute '{fullname}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
        ));
        return reject(srv, client, Some(cmd), e);
    }
    if let Some(m) = client.multi.as_mut() {
        if !matches!(
            cmd.name,
            "exec" | "discard" | "multi" | "watch" | "quit" | "reset"
        ) {
            m.queued.push(args.to_vec());
            return Frame::Simple("QUEUED".into());
        }
    }
    call(srv, client, cmd, args)
}

/// `is_write_command`: the command writes, or it is an EXEC whose queue holds a write.
fn is_write_command(cmd: &Command, client: &Client) -> bool {
    if cmd.has_flag("write") {
        return true;
    }
    cmd.name == "exec"
        && client.multi.as_ref().is_some_and(|m| {
            m.queued
                .iter()
                .any(|a| resolve(a).is_ok_and(|(_, c)| c.has_flag("write")))
        })
}

/// Runs a resolved, validated command (`call`).
pub fn call(
    srv: &mut Server,
    client: &mut Client,
    cmd: &'static Command,
    args: &[Vec<u8>],
) -> Frame {
    srv.stats.total_commands_processed += 1;
    // Only a top-level call may block: EXEC's commands run one level down.
    srv.blocking.depth += 1;
    let mut ctx = Ctx {
        srv: &mut *srv,
        client,
        cmd,
    };
    let reply = match cluster::refuse_other_db(ctx.srv, cmd, args) {
        Some(e) => e,
        None => (cmd.handler)(&mut ctx, args),
    };
    srv.blocking.depth -= 1;
    reply
}

/// `rejectCommand`: counts the rejection, dooms an open transaction, and
/// turns a rejected EXEC into an EXECABORT.
fn reject(srv: &mut Server, client: &mut Client, cmd: Option<&Command>, err: Frame) -> Frame {
    srv.stats.rejected_calls += 1;
    if let Some(m) = client.multi.as_mut() {
        m.dirty_exec = true;
    }
    match cmd {
        Some(c) if c.name == "exec" && c.subcommands.is_empty() => multi::abort(srv, client, err),
        _ => err,
    }
}

/// `addReplySubcommandSyntaxError`: a known subcommand with an argument
/// count its handler does not take (`%.128s` of the subcommand, as a C string).
pub(crate) fn subcommand_syntax_error(args: &[Vec<u8>]) -> Frame {
    Frame::err(format!(
        "ERR unknown subcommand or wrong number of arguments for '{}'. Try {} HELP.",
        preview(&args[1], 128),
        preview(&args[0], usize::MAX).to_ascii_uppercase()
    ))
}

/// Up to `max` bytes of `arg` as Redis prints it with `%.*s`: stops at a NUL.
fn preview(arg: &[u8], max: usize) -> String {
    let end = arg
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(arg.len())
        .min(max);
    String::from_utf8_lossy(&arg[..end]).into_owned()
}

/// "unknown command 'x', with args beginning with: 'a' 'b' ", with the
/// argument preview capped near 128 bytes and newlines blanked, as Redis does.
fn unknown_command(args: &[Vec<u8>]) -> Frame {
    let mut preview_args = String::new();
    for a in &args[1..] {
        if preview_args.len() >= 128 {
            break;
        }
        let room = 128 - preview_args.len();
        preview_args.push('\'');
        preview_args.push_str(&preview(a, room));
        preview_args.push_str("' ");
    }
    let msg = format!(
        "ERR unknown command '{}', with args beginning with: {}",
        preview(&args[0], 128),
        preview_args
    );
    Frame::err(msg.replace(['\r', '\n'], " "))
}

/// `WRONGTYPE` error.
pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
/// Not an integer, or out of range.
pub const NOT_INTEGER: &str = "ERR value is not an integer or out of range";
/// Generic syntax error.
pub const SYNTAX: &str = "ERR syntax error";
/// Not a float.
pub const NOT_FLOAT: &str = "ERR value is not a valid float";

/// The error frame for `msg`.
pub fn error(msg: &str) -> Frame {
    Frame::err(msg)
}

/// Parses an integer argument, or gives Redis' "not an integer" error.
pub fn arg_i64(arg: &[u8]) -> Result<i64, Frame> {
    parse_i64(arg).ok_or_else(|| error(NOT_INTEGER))
}

/// Case-insensitive comparison of an argument with an option word.
pub fn is(arg: &[u8], word: &str) -> bool {
    arg.eq_ignore_ascii_case(word.as_bytes())
}

/// Collapses `Result<Frame, Frame>` from `?`-style handlers into a reply.
pub fn reply(r: Result<Frame, Frame>) -> Frame {
    r.unwrap_or_else(|e| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_lowercase() {
        let mut seen = std::collections::BTreeSet::new();
        for c in all() {
            assert_eq!(c.name, c.name.to_ascii_lowercase());
            assert!(seen.insert(c.name), "duplicate command {}", c.name);
            assert!(!c.syntax.is_empty(), "{} has no syntax line", c.name);
        }
    }

    #[test]
    fn lookup_finds_every_command_in_any_case_and_nothing_else() {
        for c in all() {
            assert!(std::ptr::eq(lookup(c.name.as_bytes()).unwrap(), c));
            let upper = c.name.to_ascii_uppercase();
            assert!(std::ptr::eq(lookup(upper.as_bytes()).unwrap(), c));
        }
        // A trailing NUL, a prefix, an extension, the empty name and an
        // overlong one are all unknown.
        assert!(lookup(b"get\0").is_none());
        assert!(lookup(b"ge").is_none());
        assert!(lookup(b"gett").is_none());
        assert!(lookup(b"").is_none());
        assert!(lookup(b"getgetgetgetgetget").is_none());
        assert!(lookup(&[b'a'; 40]).is_none());
        assert!(lookup(&[0xc7, b'e', b't']).is_none());
    }

    #[test]
    fn packing_lower_cases_like_to_ascii_lowercase() {
        let naive = |name: &[u8]| {
            let mut packed = (name.len() as u128) << 120;
            for (i, b) in name.iter().enumerate() {
                packed |= (b.to_ascii_lowercase() as u128) << (8 * i);
            }
            packed
        };
        let mut rng = fastrand::Rng::with_seed(4);
        for _ in 0..20_000 {
            let len = rng.usize(1..=MAX_NAME);
            let name: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            assert_eq!(pack_name(&name), Some(naive(&name)), "{name:?}");
        }
        for b in 0..=255u8 {
            assert_eq!(pack_name(&[b]), Some(naive(&[b])), "byte {b}");
        }
    }

    #[test]
    fn unknown_command_preview() {
        let args: Vec<Vec<u8>> = vec![b"foo".to_vec(), b"a".to_vec(), b"b\nc".to_vec()];
        assert_eq!(
            unknown_command(&args),
            Frame::err("ERR unknown command 'foo', with args beginning with: 'a' 'b c' ")
        );
    }
}
