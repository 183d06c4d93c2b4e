//! Scripting commands: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (LOAD, EXISTS, FLUSH, KILL, DEBUG, HELP), with eval.c's checks and script.c's rules for commands run from a script.
//!
//! A script runs to completion inside the command, so nothing else runs
//! meanwhile: no other client, no cron, no active expiry, and the clock
//! stands still, which is Redis' "time frozen at script start"
//! (`commandTimeSnapshot`); its steps are charged when it ends, and one
//! past `busy-reply-threshold` leaves the server busy (`script::busy`).
//! Commands inside run one level down from the EVAL, so blocking ones
//! answer at once, as Redis' script client does.

use super::args::{arg_i64, is};
use super::replies::help_reply;
use super::table::{commands, container, Command, Ctx, Flags, Registry};
use crate::proto::resp::Frame;
use crate::script::busy::{self, Ran};
use crate::script::Host;
use crate::server::client::Client;
use crate::server::Server;

/// `getCommandFlags` for the script runners (`evalGetCommandFlags`,
/// `fcallGetCommandFlags`): EVAL and FCALL, their `_RO` and SHA forms, take
/// the flags their script or function declares (`scriptFlagsToCmdFlags`).
/// A script without a shebang, an EVALSHA of a script not cached, an
/// unknown function and every other command keep the table's flags. CLIENT
/// PAUSE WRITE reads them: a `no-writes` script does not wait.
#[cfg(not(feature = "light"))]
pub(crate) fn command_flags(srv: &Server, cmd: &Command, args: &[Vec<u8>]) -> Flags {
    use Flags as F;
    let scripts = &srv.scripts;
    let declared = match (cmd.name, args.get(1)) {
        ("eval" | "eval_ro", Some(body)) => {
            match scripts.get(crate::script::api::sha1hex(body).as_bytes()) {
                Some(s) => Some(s.flags),
                None => crate::script::shebang(body).ok().map(|(f, _)| f),
            }
        }
        ("evalsha" | "evalsha_ro", Some(sha)) if sha.len() == 40 => {
            scripts.get(sha).map(|s| s.flags)
        }
        ("fcall" | "fcall_ro", Some(name)) => scripts.functions.find(name).map(|(_, f)| f.flags),
        _ => None,
    };
    let Some(declared) = declared.filter(|f| !f.compat) else {
        return cmd.flags;
    };
    // The script's own flags replace the command's write, OOM and stale
    // ones; with them known, "may replicate" goes.
    let dropped = F::STALE
        .with(F::DENYOOM)
        .with(F::WRITE)
        .with(F::MAY_REPLICATE);
    let mut flags = cmd.flags.without(dropped);
    if !declared.allow_oom && !declared.no_writes {
        flags = flags.with(F::DENYOOM);
    }
    if !declared.no_writes {
        flags = flags.with(F::WRITE);
    }
    if declared.allow_stale {
        flags = flags.with(F::STALE);
    }
    flags
}

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "scripting";
    "eval" => eval, arity: -3, flags: [NOSCRIPT, STALE, SKIP_MONITOR, MAY_REPLICATE, NO_MANDATORY_KEYS, MOVABLEKEYS], acl: [SLOW, SCRIPTING], since: "2.6.0",
        syntax: "EVAL script numkeys [key [key ...]] [arg [arg ...]]", summary: "Runs a Lua script on the server, atomically.";
    "evalsha" => evalsha, arity: -3, flags: [NOSCRIPT, STALE, SKIP_MONITOR, MAY_REPLICATE, NO_MANDATORY_KEYS, MOVABLEKEYS], acl: [SLOW, SCRIPTING], since: "2.6.0",
        syntax: "EVALSHA sha1 numkeys [key [key ...]] [arg [arg ...]]", summary: "Runs a cached Lua script by its SHA1.";
    "eval_ro" => eval_ro, arity: -3, flags: [READONLY, NOSCRIPT, STALE, SKIP_MONITOR, NO_MANDATORY_KEYS, MOVABLEKEYS], acl: [SLOW, SCRIPTING], since: "7.0.0",
        syntax: "EVAL_RO script numkeys [key [key ...]] [arg [arg ...]]", summary: "Runs a read-only Lua script: write commands inside are refused.";
    "evalsha_ro" => evalsha_ro, arity: -3, flags: [READONLY, NOSCRIPT, STALE, SKIP_MONITOR, NO_MANDATORY_KEYS, MOVABLEKEYS], acl: [SLOW, SCRIPTING], since: "7.0.0",
        syntax: "EVALSHA_RO sha1 numkeys [key [key ...]] [arg [arg ...]]", summary: "Runs a cached read-only Lua script by its SHA1.";
    "script" => container, arity: -2, flags: [], acl: [SLOW], since: "2.6.0",
        syntax: "SCRIPT <subcommand>", summary: "Manages the server's Lua script cache.", subcommands: SCRIPT_SUBCOMMANDS;
};

static SCRIPT_SUBCOMMANDS: &[Command] = commands! { heavy; group: "scripting";
    "debug" => script_debug, arity: 3, flags: [NOSCRIPT], acl: [SLOW, SCRIPTING], since: "3.2.0",
        syntax: "SCRIPT DEBUG <YES | SYNC | NO>", summary: "Sets the debug mode of server-side scripts (only NO here: no debugger).";
    "exists" => script_exists, arity: -3, flags: [NOSCRIPT], acl: [SLOW, SCRIPTING], since: "2.6.0",
        syntax: "SCRIPT EXISTS sha1 [sha1 ...]", summary: "Replies 1 or 0 for each SHA1: is that script cached?";
    "flush" => script_flush, arity: -2, flags: [NOSCRIPT], acl: [SLOW, SCRIPTING], since: "2.6.0",
        syntax: "SCRIPT FLUSH [ASYNC | SYNC]", summary: "Empties the script cache.";
    "help" => script_help, arity: 2, flags: [LOADING, STALE], acl: [SLOW, SCRIPTING], since: "5.0.0",
        syntax: "SCRIPT HELP", summary: "Returns helpful text about the different subcommands.";
    "kill" => script_kill, arity: 2, flags: [NOSCRIPT, ALLOW_BUSY], acl: [SLOW, SCRIPTING], since: "2.6.0",
        syntax: "SCRIPT KILL", summary: "Stops a script that runs past busy-reply-threshold, unless it has written.";
    "load" => script_load, arity: 3, flags: [NOSCRIPT, STALE], acl: [SLOW, SCRIPTING], since: "2.6.0",
        syntax: "SCRIPT LOAD script", summary: "Compiles a script into the cache without running it; replies its SHA1.";
};

const NOSCRIPT: &str = "NOSCRIPT No matching script. Please use EVAL.";

fn eval(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    eval_generic(ctx, args, false, false)
}

fn eval_ro(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    eval_generic(ctx, args, false, true)
}

fn evalsha(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    evalsha_generic(ctx, args, false)
}

fn evalsha_ro(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    evalsha_generic(ctx, args, true)
}

/// A SHA1 that is not 40 bytes long cannot name a script: NOSCRIPT before anything else.
fn evalsha_generic(ctx: &mut Ctx, args: &[Vec<u8>], ro: bool) -> Frame {
    if args[1].len() != 40 {
        return Frame::err(NOSCRIPT);
    }
    eval_generic(ctx, args, true, ro)
}

/// `evalGenericCommand`.
fn eval_generic(ctx: &mut Ctx, args: &[Vec<u8>], by_sha: bool, ro: bool) -> Frame {
    // Replicas get the script's effects (its writes), never the script.
    ctx.srv.repl.wire.prevent();
    let numkeys = match numkeys(args) {
        Ok(n) => n,
        Err(e) => return e,
    };
    let (sha, script) = if by_sha {
        match ctx.srv.scripts.get(&args[1]) {
            Some(s) => (String::from_utf8_lossy(&args[1]).to_ascii_lowercase(), s),
            None => return Frame::err(NOSCRIPT),
        }
    } else {
        match ctx.srv.scripts.create(&args[1]) {
            Ok(found) => found,
            Err(e) => return e,
        }
    };
    let split = 3 + numkeys;
    let (keys, argv) = (&args[3..split], &args[split..]);
    let who = Who {
        eval: true,
        name: &sha,
        command: args,
    };
    run_script(ctx, script.flags, ro, who, |host, fuel| {
        crate::script::run(&script, &sha, host, keys, argv, fuel)
    })
}

/// The key count of EVAL and FCALL, checked against the arguments.
pub(super) fn numkeys(args: &[Vec<u8>]) -> Result<usize, Frame> {
    let numkeys = arg_i64(&args[2])?;
    let nargs = args.len() as i64 - 3;
    if numkeys > nargs {
        return Err(Frame::err(
            "ERR Number of keys can't be greater than number of args",
        ));
    }
    if numkeys < 0 {
        return Err(Frame::err("ERR Number of keys can't be negative"));
    }
    Ok(numkeys as usize)
}

/// The script a command runs, as a busy script is shown (FUNCTION STATS).
pub(super) struct Who<'a> {
    /// EVAL & co. rather than FCALL.
    pub eval: bool,
    /// The script's SHA1 or the function's name.
    pub name: &'a str,
    pub command: &'a [Vec<u8>],
}

/// `scriptPrepareForRun`: the flag checks, then `body` with the script
/// client and the step budget; then the run's time is charged, and a run
/// past `busy-reply-threshold` leaves the server busy (`script::busy`).
pub(super) fn run_script(
    ctx: &mut Ctx,
    f: crate::script::Flags,
    ro: bool,
    who: Who,
    body: impl FnOnce(&mut dyn Host, u64) -> Ran,
) -> Frame {
    // `pre_command_oom_state`: the command found memory over the limit
    // (eviction, if any, already ran before it).
    let maxmemory = ctx.srv.config.maxmemory;
    let oom = maxmemory > 0 && ctx.srv.used_memory() > maxmemory;
    if !f.compat && f.no_cluster && ctx.srv.cluster.is_some() {
        return Frame::err("ERR Can not run script on cluster, 'no-cluster' flag is set.");
    }
    if !f.compat && !f.no_writes {
        if ro {
            return Frame::err("ERR Can not execute a script with write flag using *_ro command.");
        }
        // A script that may write needs enough good replicas before it runs.
        if !enough_good_replicas(ctx.srv) {
            return Frame::err("NOREPLICAS Not enough good replicas to write.");
        }
        if !f.allow_oom && oom {
            return Frame::err(
                "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'",
            );
        }
    }
    let may_wait = crate::blocking::may_block(ctx.srv);
    let fuel = busy::fuel(
        ctx.srv.config.busy_reply_threshold,
        ctx.srv.scripts.horizon_ms,
    );
    let mut host = script_host(ctx, ro || (!f.compat && f.no_writes));
    host.allow_oom = !f.compat && f.allow_oom;
    host.oom = oom;
    // Its writes are the script client's, not the caller's, for BCAST's NOLOOP.
    host.srv.tracking.in_script += 1;
    host.srv.stats.script_call_error = None;
    let ran = body(&mut host, fuel);
    host.srv.tracking.in_script -= 1;
    let wrote = host.write_dirty;
    let caller = busy::Caller {
        id: ctx.client.id,
        eval: who.eval,
        name: who.name,
        command: who.command,
        may_wait,
    };
    match settle(ctx.srv, ran, wrote, caller) {
        Ok(reply) => reply,
        Err(()) => crate::blocking::block_for_script(ctx.srv),
    }
}

/// `script::busy`'s model: charges the run's time and decides the caller's reply: `Ok(reply)` now,
/// or `Err(())` when the server is now busy and the caller waits.
fn settle(srv: &mut Server, ran: Ran, wrote: bool, who: busy::Caller) -> Result<Frame, ()> {
    let threshold_ms = srv.config.busy_reply_threshold;
    let threshold_steps = (threshold_ms.max(0) as u64).saturating_mul(crate::script::STEPS_PER_MS);
    if !who.may_wait || threshold_ms <= 0 || ran.steps <= threshold_steps {
        srv.charge_main_thread(ran.steps.saturating_mul(busy::NS_PER_STEP));
        return Ok(ran.reply);
    }
    let started_us = srv.clock.now_us();
    srv.charge_main_thread(threshold_steps.saturating_mul(busy::NS_PER_STEP));
    let until_us = (!ran.endless).then(|| started_us + ran.steps * busy::NS_PER_STEP / 1000);
    srv.scripts.busy = Some(busy::Busy {
        caller: who.id,
        eval: who.eval,
        name: who.name.to_string(),
        command: who.command.to_vec(),
        started_us,
        until_us,
        wrote,
        reply: ran.reply,
        killed: Frame::err(format!(
            "ERR Script killed by user with SCRIPT KILL... script: {}, on @{}:{}.",
            who.name, ran.chunk, ran.line
        )),
    });
    Err(())
}

/// `checkGoodReplicasStatus`: a replica, or a master without
/// `min-replicas-to-write`, or one with that many replicas within the lag.
fn enough_good_replicas(srv: &Server) -> bool {
    let c = &srv.config;
    srv.repl.is_replica()
        || c.min_replicas_to_write == 0
        || c.min_replicas_max_lag == 0
        || srv.repl.good_replicas(srv.now_ms(), c.min_replicas_max_lag) as i64
            >= c.min_replicas_to_write
}

/// The script client (`lctx.lua_client`): the caller's database, RESP2,
/// outside any transaction, so commands run at once.
pub(super) fn script_host<'a>(ctx: &'a mut Ctx<'_>, readonly: bool) -> ScriptHost<'a> {
    let mut client = ctx.client.clone();
    client.resp = 2;
    client.multi = None;
    ScriptHost {
        reg: ctx.reg,
        srv: ctx.srv,
        client,
        readonly,
        allow_oom: false,
        oom: false,
        write_dirty: false,
    }
}

/// What a running script reaches: the server, through its own client.
pub(super) struct ScriptHost<'a> {
    reg: &'static Registry,
    srv: &'a mut Server,
    client: Client,
    /// EVAL_RO, or a script declaring `no-writes`: writes are refused.
    readonly: bool,
    allow_oom: bool,
    /// Memory was over `maxmemory` when the script started.
    oom: bool,
    /// A write command has run (`SCRIPT_WRITE_DIRTY`): later writes cannot
    /// be refused for memory, the script must not stop half-way.
    write_dirty: bool,
}

/// Redis 7.2's `may_replicate` commands (not every family's table carries
/// the flag, which COMMAND INFO does not show): a read-only script may not
/// run them, as they can propagate a write (PFCOUNT caches its count).
fn may_replicate(cmd: &Command) -> bool {
    cmd.flags.contains(Flags::MAY_REPLICATE)
        || matches!(
            cmd.name,
            "eval" | "evalsha" | "fcall" | "pfcount" | "publish" | "spublish"
        )
}

/// `lookupCommand` with the container of a subcommand.
fn resolve_with_parent(
    reg: &'static Registry,
    args: &[Vec<u8>],
) -> Option<(Option<&'static Command>, &'static Command)> {
    let base = (reg.lookup)(args.first()?)?;
    match args.get(1) {
        Some(w) if !base.subcommands.is_empty() => base.subcommand(w).map(|s| (Some(base), s)),
        _ => Some((None, base)),
    }
}

impl ScriptHost<'_> {
    /// `scriptCall`'s error path: a command refused before it runs is an
    /// error reply counted now (`afterErrorReply`) and a rejected call of
    /// that command (`incrCommandStatsOnError`); the script's own error
    /// reply carrying it on is not counted again.
    fn reject(&mut self, cmd: Option<&'static Command>, msg: &str) -> Frame {
        if let Some(c) = cmd {
            self.srv
                .stats
                .command(c as *const Command as usize)
                .rejected_calls += 1;
        }
        self.srv.stats.count_error(msg);
        self.srv.stats.script_call_error = Some(msg.to_string());
        Frame::err(msg)
    }
}

impl Host for ScriptHost<'_> {
    fn log_wanted(&self, level: crate::server::log::Level) -> bool {
        self.srv.log.wants(level, &self.srv.config.loglevel)
    }

    fn log(&mut self, level: crate::server::log::Level, text: &[u8]) {
        self.srv
            .log(level, || String::from_utf8_lossy(text).into_owned());
    }

    /// `scriptCall`: the checks Redis makes before running a command for a script.
    fn call(&mut self, args: &[Vec<u8>]) -> Frame {
        // `lookupCommand`: a container's subcommand when one is named, the
        // container itself when called alone; by the names in force, after
        // which the command goes on under its own (`Renames::own_args`).
        let Some(own) = self.srv.renames.own_args(self.reg.lookup, args) else {
            return self.reject(None, "ERR Unknown Redis command called from script");
        };
        let args = &own[..];
        let Some(cmd) = self.reg.resolve_command(args) else {
            return self.reject(None, "ERR Unknown Redis command called from script");
        };
        let argc = args.len() as i32;
        if (cmd.arity > 0 && argc != cmd.arity) || argc < -cmd.arity {
            return self.reject(
                Some(cmd),
                "ERR Wrong number of args calling Redis command from script",
            );
        }
        if cmd.flags.contains(Flags::NOSCRIPT) && !self.srv.debug.allow_deny_scripts {
            return self.reject(
                Some(cmd),
                "ERR This Redis command is not allowed from script",
            );
        }
        // `scriptVerifyACL`, with the caller's user.
        let parent = resolve_with_parent(self.reg, args).and_then(|(p, _)| p);
        let ctx = crate::acl::LogContext::Lua;
        let checked = super::acl::check::check_client(
            self.srv,
            self.reg,
            &self.client,
            parent,
            cmd,
            args,
            ctx,
        );
        if let Err((_, msg)) = checked {
            return Frame::err(format!("ERR ACL failure in script: {msg}"));
        }
        let write = cmd.flags.contains(Flags::WRITE);
        if self.readonly && (write || may_replicate(cmd)) {
            return self.reject(
                Some(cmd),
                "ERR Write commands are not allowed from read-only scripts.",
            );
        }
        // `scriptVerifyWriteCommandAllow`: until the script has written, a
        // write needs enough good replicas (only scripts without flags get
        // here with too few: the others are refused before they run).
        if write && !self.write_dirty && !enough_good_replicas(self.srv) {
            return self.reject(Some(cmd), "NOREPLICAS Not enough good replicas to write.");
        }
        if !self.allow_oom
            && self.srv.config.maxmemory > 0
            && !self.write_dirty
            && self.oom
            && cmd.flags.contains(Flags::DENYOOM)
        {
            return self.reject(
                Some(cmd),
                "OOM command not allowed when used memory > 'maxmemory'.",
            );
        }
        if write {
            self.write_dirty = true;
        }
        self.srv.in_script = true;
        let reply = (self.reg.call)(self.srv, &mut self.client, cmd, args);
        self.srv.in_script = false;
        if let Frame::Error(e) = &reply {
            // Counted in errorstats now; the script's own error reply
            // carrying it on is not counted again.
            self.srv.stats.script_call_error = Some(e.clone());
        }
        reply
    }

    fn resp(&self) -> u8 {
        self.client.resp
    }

    fn set_resp(&mut self, resp: u8) {
        self.client.resp = resp;
    }

    fn rand48(&mut self) -> &mut u64 {
        &mut self.srv.scripts.rand48
    }

    fn acl_allows(&self, args: &[Vec<u8>]) -> Option<bool> {
        let own = self.srv.renames.own_args(self.reg.lookup, args)?;
        let args = &own[..];
        let (parent, cmd) = resolve_with_parent(self.reg, args)?;
        let Some(name) = self.client.user.as_deref() else {
            return Some(true);
        };
        let Some(u) = self.srv.acl.users.get(name) else {
            return Some(false);
        };
        Some(super::acl::check::check_user(self.reg, u, parent, cmd, args).is_ok())
    }
}

fn script_load(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match ctx.srv.scripts.create(&args[2]) {
        Ok((sha, _)) => Frame::bulk(sha),
        Err(e) => e,
    }
}

fn script_exists(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    Frame::Array(
        args[2..]
            .iter()
            .map(|sha| Frame::Integer(ctx.srv.scripts.get(sha).is_some() as i64))
            .collect(),
    )
}

/// SCRIPT FLUSH: the cache is emptied at once either way (ASYNC only frees
/// memory in the background in Redis).
fn script_flush(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let ok = match args.len() {
        2 => true,
        3 => is(&args[2], "sync") || is(&args[2], "async"),
        _ => false,
    };
    if !ok {
        return Frame::err("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    ctx.srv.scripts.flush();
    Frame::ok()
}

/// SCRIPT KILL: stops a busy EVAL that has not written (`script::busy`).
fn script_kill(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    kill_busy(ctx.srv, true)
}

/// `scriptKill`, shared with FUNCTION KILL: the killed script's caller gets
/// its error once this command's reply is out.
pub(super) fn kill_busy(srv: &mut Server, eval: bool) -> Frame {
    match srv.scripts.kill(eval) {
        Ok((caller, reply)) => {
            srv.client_ops
                .push(crate::server::ClientOp::Reply(caller, reply));
            Frame::ok()
        }
        Err(e) => e,
    }
}

fn script_debug(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if is(&args[2], "no") {
        Frame::ok()
    } else if is(&args[2], "yes") || is(&args[2], "sync") {
        Frame::err("ERR SCRIPT DEBUG YES|SYNC is not supported by Redsim: it has no Lua debugger")
    } else {
        Frame::err("ERR Use SCRIPT DEBUG YES/SYNC/NO")
    }
}

fn script_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let lines = [
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
    ];
    help_reply(args, &lines)
}
