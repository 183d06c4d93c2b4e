//! Dispatch with Redis 7.2's exact rejection errors: resolution of the command and subcommand, arity, MULTI rules, cluster redirection, eviction and OOM, replication gates, the subscribed-RESP2 context, CLIENT PAUSE and queueing (`processCommand`), then `call`.

use super::args::preview;
use super::lookup::{lookup, FAMILIES};
use super::multi::{abort, discard_transaction};
use super::table::{full_name, Command, Ctx, Flags, Registry, Resolved};
use super::{acl, cluster, pubsub};
use crate::cost;
use crate::proto::resp::Frame;
use crate::server::client::Client;
use crate::server::Server;

/// The table as handlers reach it.
pub static REGISTRY: Registry = Registry {
    families: FAMILIES,
    lookup,
    resolve,
    call,
};

/// Finds the command (or subcommand) `args` names; the parent is returned
/// too, for the `parent|sub` full name. Errors are Redis' rejections.
fn resolve(args: &[Vec<u8>]) -> Result<Resolved, Frame> {
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

/// The parent of `cmd` as `full_name` wants it: `None` for a top-level command.
fn sub_of<'a>(parent: &'a Command, cmd: &Command) -> Option<&'a Command> {
    (!std::ptr::eq(parent, cmd)).then_some(parent)
}

/// Checks and runs one command: the parts of Redis' `processCommand` that
/// exist so far (resolution, arity, MULTI rules, eviction and OOM, queueing).
pub fn dispatch(srv: &mut Server, client: &mut Client, args: &[Vec<u8>]) -> Frame {
    if srv.cluster.is_some() {
        cluster::before_command(srv, client, args);
    }
    // `c->lastcmd`, which CLIENT LIST shows: "NULL" unless the command resolves.
    srv.last_cmd = ("NULL", "");
    // After `rename-command` the command goes on under its own name: key
    // specs, ACL key checks, MULTI's queue and the handlers read the first word.
    let Some(own) = srv.renames.own_args(lookup, args) else {
        return reject(srv, client, None, unknown_command(args));
    };
    let args: &[Vec<u8>] = &own;
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
        let e = Frame::err(format!(
            "ERR wrong number of arguments for '{}' command",
            full_name(sub_of(parent, cmd), cmd)
        ));
        return reject(srv, client, Some(cmd), e);
    }
    if cmd.flags.contains(Flags::PROTECTED) {
        // DEBUG and MODULE's loaders, each behind its own setting.
        let (name, option, setting) = match parent.name {
            "module" => (
                "MODULE",
                "enable-module-command",
                &srv.config.enable_module_command,
            ),
            _ => (
                "DEBUG",
                "enable-debug-command",
                &srv.config.enable_debug_command,
            ),
        };
        if !crate::server::client::protected_allowed(
            setting,
            crate::server::client::is_local(&srv.client_list, client.id),
        ) {
            let e = Frame::err(format!(
                "ERR {name} command not allowed. If the {option} option is set to \"local\", \
                 you can run it from a local connection, otherwise you need to set this option in \
                 the configuration file, and then restart the server."
            ));
            return reject(srv, client, Some(cmd), e);
        }
    }
    // `authRequired`: only NO_AUTH commands (AUTH, HELLO, QUIT, RESET)
    // before a client authenticates while the default user has a password.
    if srv.acl.auth_required && !client.authenticated && !cmd.flags.contains(Flags::NO_AUTH) {
        let e = Frame::err("NOAUTH Authentication required.");
        return reject(srv, client, Some(cmd), e);
    }
    let in_multi = client.multi.is_some();
    if in_multi && cmd.flags.contains(Flags::NO_MULTI) {
        let e = Frame::err("ERR Command not allowed inside a transaction");
        return reject(srv, client, Some(cmd), e);
    }
    let context = match in_multi {
        true => crate::acl::LogContext::Multi,
        false => crate::acl::LogContext::Toplevel,
    };
    let sub = sub_of(parent, cmd);
    if let Err((_, msg)) = acl::check::check_client(srv, &REGISTRY, client, sub, cmd, args, context)
    {
        return reject(srv, client, Some(cmd), Frame::err(format!("NOPERM {msg}")));
    }
    // Cluster redirection (`getNodeByQuery`), before eviction as in Redis.
    if srv.cluster.is_some() {
        if let Some(e) = cluster::redirect(&REGISTRY, srv, client, cmd, args) {
            // `clusterRedirectClient`: the error as it is; a redirected
            // EXEC discards its transaction.
            let e = reject(srv, client, None, e);
            if cmd.name == "exec" {
                discard_transaction(srv, client);
            }
            return e;
        }
    }
    // Evict before running the command, as `processCommand` does: memory
    // may exceed the limit after a write until the next command arrives.
    // Inside MULTI, queueing itself is refused when out of memory.
    if srv.config.maxmemory > 0
        && srv.scripts.busy.is_none()
        && crate::evict::perform_evictions(srv) == crate::evict::EvictResult::Fail
        && (queue_has(cmd, client, Flags::DENYOOM)
            || (in_multi && !matches!(cmd.name, "exec" | "discard" | "quit" | "reset")))
    {
        let e = Frame::err("OOM command not allowed when used memory > 'maxmemory'.");
        return reject(srv, client, Some(cmd), e);
    }
    // The page's budget: never evicts, refuses writes once passed.
    if srv.config.memory_budget > 0 && cmd.flags.contains(Flags::DENYOOM) && srv.over_budget(0) {
        let e = Frame::err(crate::server::BUDGET_OOM);
        return reject(srv, client, Some(cmd), e);
    }
    // Keep the client-side caching table within `tracking-table-max-keys`.
    if srv.tracking.tracking_clients() > 0 {
        crate::tracking::limit_used_slots(srv);
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
        let e = Frame::err(format!(
            "ERR Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context",
            full_name(sub_of(parent, cmd), cmd)
        ));
        return reject(srv, client, Some(cmd), e);
    }
    // A replica whose link is down answers only STALE commands when
    // `replica-serve-stale-data` is off (an EXEC, only if all it queued are).
    if srv.repl.is_replica()
        && !srv.config.replica_serve_stale_data
        && !srv.repl.link_up()
        && lacks_in_queue(cmd, client, Flags::STALE)
    {
        let e = Frame::err(
            "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
        );
        return reject(srv, client, Some(cmd), e);
    }
    // `isInsideYieldingLongCommand`: a script past busy-reply-threshold
    // leaves only ALLOW_BUSY commands to the others.
    if let Some(e) = srv.scripts.refuse(cmd.flags.contains(Flags::ALLOW_BUSY)) {
        return reject(srv, client, Some(cmd), e);
    }
    // CLIENT PAUSE (`blockPostponeClient`): an ALL pause holds every
    // command, a WRITE pause those that may write or replicate. Queueing
    // inside MULTI is held too, as in Redis; the commands EXEC runs are not.
    #[cfg(not(feature = "light"))]
    if let Some(p) = srv.pause {
        if p.all || may_replicate(srv, cmd, client, args) {
            if srv.blocking.deny {
                let e = Frame::err(
                    "ERR the server is paused (CLIENT PAUSE): a command can wait for the pause to end only when submitted",
                );
                return reject(srv, client, Some(cmd), e);
            }
            return crate::blocking::postpone(srv);
        }
    }
    if let Some(m) = client.multi.as_mut() {
        if !matches!(
            cmd.name,
            "exec" | "discard" | "multi" | "watch" | "quit" | "reset"
        ) {
            // An aborted transaction stores nothing more (`queueMultiCommand`).
            if !m.dirty_exec && !srv.watches.is_dirty(client.id) {
                m.queue(args);
            }
            return Frame::Simple("QUEUED".into());
        }
    }
    call(srv, client, cmd, args)
}

/// `is_may_replicate_command`: the command, with the flags its script or
/// function declares, may write or replicate, or it is an EXEC whose queue
/// holds such a command (`c->mstate.cmd_flags`). A WRITE pause holds it.
#[cfg(not(feature = "light"))]
fn may_replicate(srv: &Server, cmd: &Command, client: &Client, args: &[Vec<u8>]) -> bool {
    let writes = |c: &Command, a: &[Vec<u8>]| {
        super::script::command_flags(srv, c, a).intersects(Flags::WRITE.with(Flags::MAY_REPLICATE))
    };
    writes(cmd, args)
        || (cmd.name == "exec"
            && client.multi.as_ref().is_some_and(|m| {
                m.queued
                    .iter()
                    .any(|a| REGISTRY.resolve_command(a).is_some_and(|c| writes(c, a)))
            }))
}

/// `is_write_command`: the command writes, or it is an EXEC whose queue holds a write.
fn is_write_command(cmd: &Command, client: &Client) -> bool {
    queue_has(cmd, client, Flags::WRITE)
}

/// The command lacks `flag`, or it is an EXEC and a queued command lacks
/// it (`c->mstate.cmd_inv_flags`).
fn lacks_in_queue(cmd: &Command, client: &Client, flag: Flags) -> bool {
    if !cmd.flags.contains(flag) {
        return true;
    }
    cmd.name == "exec"
        && client.multi.as_ref().is_some_and(|m| {
            m.queued.iter().any(|a| {
                REGISTRY
                    .resolve_command(a)
                    .is_some_and(|c| !c.flags.contains(flag))
            })
        })
}

/// The command has `flag`, or it is an EXEC and a queued command has it
/// (`c->mstate.cmd_flags`).
fn queue_has(cmd: &Command, client: &Client, flag: Flags) -> bool {
    if cmd.flags.contains(flag) {
        return true;
    }
    cmd.name == "exec"
        && client.multi.as_ref().is_some_and(|m| {
            m.queued.iter().any(|a| {
                REGISTRY
                    .resolve_command(a)
                    .is_some_and(|c| c.flags.contains(flag))
            })
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
    srv.tracking.nesting += 1;
    let outer_prop = srv.repl.wire.enter(cmd.name);
    let outer_redacted = std::mem::take(&mut srv.observe.redacted);
    let dirty_before = srv.persist.dirty;
    let mut ctx = Ctx {
        srv: &mut *srv,
        client,
        cmd,
        reg: &REGISTRY,
    };
    if ctx.srv.blocking.reprocessing.is_none() {
        super::server::feed_monitors(ctx.srv, ctx.client, cmd, args, true);
    }
    let busy_before = ctx.srv.lazyfree.stall_ns;
    let outer_meter = std::mem::take(&mut ctx.srv.cpu);
    let reply = match cluster::refuse_other_db(ctx.srv, cmd, args) {
        Some(e) => e,
        None => (cmd.handler)(&mut ctx, args),
    };
    charge_cpu(srv, client.db, cmd, args, &reply, outer_meter);
    let busy_ns = srv.lazyfree.stall_ns.saturating_sub(busy_before);
    remember_tracked_keys(srv, cmd, args);
    // Propagated as it was after the command (SELECT inside EXEC moved it).
    let dirty = srv.persist.dirty != dirty_before;
    let exec = cmd.name == "exec";
    srv.repl
        .wire
        .leave(outer_prop, client.db, args, dirty, exec);
    srv.tracking.nesting -= 1;
    srv.blocking.depth -= 1;
    // Reprocessing an unblocked client's command is not shown again.
    if srv.blocking.reprocessing.is_none() {
        super::server::feed_monitors(srv, client, cmd, args, false);
    }
    // A command that blocked is counted when it completes.
    if !srv.blocking.has_request() {
        super::server::record_call(srv, client, cmd, args, busy_ns);
        let raw = std::mem::take(&mut srv.stats.raw_error_reply);
        if let (Frame::Error(e), false) = (&reply, raw) {
            srv.stats
                .command(cmd as *const Command as usize)
                .failed_calls += 1;
            let script = matches!(
                cmd.name,
                "eval" | "evalsha" | "eval_ro" | "evalsha_ro" | "fcall" | "fcall_ro"
            );
            let counted = script
                && srv
                    .stats
                    .script_call_error
                    .take()
                    .is_some_and(|inner| e.starts_with(&inner));
            if !counted {
                srv.stats.count_error(e);
            }
        }
    }
    srv.observe.redacted = outer_redacted;
    reply
}

/// The CPU cost model's charge for the command that just ran (`crate::cost`),
/// put on the main thread's stall; restores the caller's meter (EXEC's,
/// a script's) that `call` set aside.
fn charge_cpu(
    srv: &mut Server,
    db: usize,
    cmd: &Command,
    args: &[Vec<u8>],
    reply: &Frame,
    outer: cost::Meter,
) {
    let meter = std::mem::replace(&mut srv.cpu, outer);
    if !srv.config.cpu_model {
        return;
    }
    // What EXEC and scripts reply was charged command by command.
    let own_reply = !matches!(
        cmd.name,
        "exec" | "eval" | "evalsha" | "eval_ro" | "evalsha_ro" | "fcall" | "fcall_ro"
    );
    let (leaves, bytes) = if own_reply {
        cost::reply_size(reply)
    } else {
        (0, 0)
    };
    let keys = cluster::key_positions(cmd, args);
    let packed = keys
        .first()
        .and_then(|&i| srv.dbs[db].get(&args[i]))
        .is_some_and(|o| cost::packed_encoding(o.value.encoding()));
    srv.charge_main_thread(cost::command_ns(cost::Work {
        args: args.len() as u64 - 1,
        keys: keys.len() as u64,
        leaves,
        bytes,
        packed,
        visited: meter.visited,
    }));
}

/// `call`'s client-side caching step: the keys of a read-only command
/// (one run by a script or EXEC included, never a read-only script
/// itself) are remembered for the client that sent it, if it tracks keys.
#[inline]
fn remember_tracked_keys(srv: &mut Server, cmd: &Command, args: &[Vec<u8>]) {
    let Some(cur) = srv.tracking.current else {
        return;
    };
    if !cmd.flags.contains(Flags::READONLY)
        || !srv.tracking.tracks_keys(cur)
        || matches!(cmd.name, "eval_ro" | "evalsha_ro" | "fcall_ro")
        || cmd.flags.contains(Flags::PUBSUB)
    {
        return;
    }
    let keys = cluster::key_positions(cmd, args);
    crate::tracking::remember_keys(srv, cur, keys.iter().map(|&i| args[i].as_slice()));
}

/// `rejectCommand`: counts the rejection, dooms an open transaction, and
/// turns a rejected EXEC into an EXECABORT.
fn reject(
    srv: &mut Server,
    client: &mut Client,
    cmd: Option<&'static Command>,
    err: Frame,
) -> Frame {
    srv.stats.rejected_calls += 1;
    if let Some(c) = cmd {
        srv.stats
            .command(c as *const Command as usize)
            .rejected_calls += 1;
    }
    if let Frame::Error(e) = &err {
        srv.stats.count_error(e);
    }
    if let Some(m) = client.multi.as_mut() {
        m.dirty_exec = true;
    }
    match cmd {
        Some(c) if c.name == "exec" && c.subcommands.is_empty() => abort(srv, client, err),
        _ => err,
    }
}

/// "unknown command 'x', with args beginning with: 'a' 'b' ", with the
/// argument preview capped near 128 bytes and newlines blanked, as Redis does.
pub fn unknown_command(args: &[Vec<u8>]) -> Frame {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_command_preview() {
        let args: Vec<Vec<u8>> = vec![b"foo".to_vec(), b"a".to_vec(), b"b\nc".to_vec()];
        assert_eq!(
            unknown_command(&args),
            Frame::err("ERR unknown command 'foo', with args beginning with: 'a' 'b c' ")
        );
    }
}
