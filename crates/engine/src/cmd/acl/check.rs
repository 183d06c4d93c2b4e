//! The permission check before a command runs (`ACLCheckAllUserCommandPerm`): the command's bit or allowed first argument, each key against the patterns with the access its key spec asks for, each channel of PUBLISH and the SUBSCRIBE family; the NOPERM texts and ACL LOG entries.

use super::rules::command_id;
use crate::acl::{Denied, LogContext, LogEntry, Selector, User, PERM_READ, PERM_WRITE};
use crate::cmd::keyspecs;
use crate::cmd::table::{full_name, Command, Flags, Registry};
use crate::server::client::Client;
use crate::server::Server;

/// The access each key of the command line needs, by position
/// (`ACLSelectorCheckKey`): reading for an ACCESS key, writing for one the
/// command inserts, deletes or updates; a key whose flags say neither (a
/// getkeys procedure that gives none) needs no particular access.
fn keys_with_access(cmd: &Command, full: &str, args: &[Vec<u8>]) -> Vec<(usize, u8)> {
    if !keyspecs::has_keys(full) {
        return Vec::new();
    }
    keyspecs::keys_with_flags(cmd, args)
        .into_iter()
        .map(|(pos, f)| {
            let mut need = 0;
            if f & keyspecs::ACCESS != 0 {
                need |= PERM_READ;
            }
            if f & (keyspecs::INSERT | keyspecs::DELETE | keyspecs::UPDATE) != 0 {
                need |= PERM_WRITE;
            }
            (pos, need)
        })
        .collect()
}

/// The channels a command names, each with whether it is a pattern.
fn channels(cmd: &Command, parent: Option<&Command>, args: &[Vec<u8>]) -> Vec<(usize, bool)> {
    if parent.is_some() {
        return Vec::new();
    }
    match cmd.name {
        "publish" | "spublish" => vec![(1, false)],
        "subscribe" | "ssubscribe" => (1..args.len()).map(|i| (i, false)).collect(),
        "psubscribe" => (1..args.len()).map(|i| (i, true)).collect(),
        _ => Vec::new(),
    }
}

/// `ACLSelectorCheckCmd`: `Err` with the denial and the argument at fault.
fn check_selector(
    reg: &'static Registry,
    s: &Selector,
    parent: Option<&'static Command>,
    cmd: &'static Command,
    args: &[Vec<u8>],
) -> Result<(), (Denied, usize)> {
    if !s.allcommands && !cmd.flags.contains(Flags::NO_AUTH) {
        let id = command_id(reg, cmd);
        if !s.bit(id) {
            let allowed = args.len() >= 2
                && s.firstargs
                    .get(&id)
                    .is_some_and(|l| l.iter().any(|a| a.eq_ignore_ascii_case(&args[1])));
            if !allowed {
                return Err((Denied::Cmd, 0));
            }
        }
    }
    if !s.allkeys {
        let full = full_name(parent, cmd);
        for (pos, need) in keys_with_access(cmd, &full, args) {
            if !s.check_key(&args[pos], need) {
                return Err((Denied::Key, pos));
            }
        }
    }
    if !s.allchannels {
        for (pos, pattern) in channels(cmd, parent, args) {
            if !s.check_channel(&args[pos], pattern) {
                return Err((Denied::Channel, pos));
            }
        }
    }
    Ok(())
}

/// `ACLCheckAllUserCommandPerm`: allowed if any selector allows it; else
/// the denial Redis picks (a command denial only if every selector denied
/// the command, else the highest-ranked key or channel at the last position).
pub fn check_user(
    reg: &'static Registry,
    u: &User,
    parent: Option<&'static Command>,
    cmd: &'static Command,
    args: &[Vec<u8>],
) -> Result<(), (Denied, usize)> {
    let mut relevant = (Denied::Cmd, 0usize);
    for s in &u.selectors {
        match check_selector(reg, s, parent, cmd, args) {
            Ok(()) => return Ok(()),
            Err((d, i)) => {
                if d > relevant.0 || (d == relevant.0 && i > relevant.1) {
                    relevant = (d, i);
                }
            }
        }
    }
    Err(relevant)
}

/// `getAclErrorMessage`.
pub fn error_message(d: Denied, user: &str, full: &str, arg: &[u8], verbose: bool) -> String {
    let arg = String::from_utf8_lossy(arg);
    match (d, verbose) {
        (Denied::Key, false) => "No permissions to access a key".into(),
        (Denied::Key, true) => format!("User {user} has no permissions to access the '{arg}' key"),
        (Denied::Channel, false) => "No permissions to access a channel".into(),
        (Denied::Channel, true) => {
            format!("User {user} has no permissions to access the '{arg}' channel")
        }
        _ => format!("User {user} has no permissions to run the '{full}' command"),
    }
}

/// The check dispatch (and a script's `redis.call`) makes: `Ok` when the
/// client's user may run the command; otherwise the denial is logged and
/// the denial and its message (without the `NOPERM` prefix) returned.
pub fn check_client(
    srv: &mut Server,
    reg: &'static Registry,
    client: &Client,
    parent: Option<&'static Command>,
    cmd: &'static Command,
    args: &[Vec<u8>],
    context: LogContext,
) -> Result<(), (Denied, String)> {
    let Some(name) = client.user.as_deref() else {
        return Ok(());
    };
    let Some(u) = srv.acl.users.get(name) else {
        // A deleted user's connections are closed in Redis; here one that
        // is still open may run nothing.
        let full = full_name(parent, cmd);
        let msg = error_message(Denied::Cmd, name, &full, b"", false);
        return Err((Denied::Cmd, msg));
    };
    if u.selectors[0].allcommands && u.selectors[0].allkeys && u.selectors[0].allchannels {
        return Ok(());
    }
    let Err((d, pos)) = check_user(reg, u, parent, cmd, args) else {
        return Ok(());
    };
    let full = full_name(parent, cmd);
    let object = match d {
        Denied::Cmd => full.clone().into_bytes(),
        _ => args[pos].clone(),
    };
    let msg = error_message(d, name, &full, &args[pos], false);
    let name = name.to_string();
    log(srv, client, d, context, object, name);
    Err((d, msg))
}

/// `addACLLogEntry` for `client`.
pub fn log(
    srv: &mut Server,
    client: &Client,
    reason: Denied,
    context: LogContext,
    object: Vec<u8>,
    username: String,
) {
    let now = srv.now_ms() as u64;
    let entry = LogEntry {
        count: 1,
        reason,
        context,
        object,
        username,
        ctime_ms: now,
        client_info: crate::cmd::server::client_info_line(srv, client),
        entry_id: 0,
        created_ms: now,
    };
    let max = srv.config.acllog_max_len as usize;
    srv.acl.log_denial(entry, max);
}
