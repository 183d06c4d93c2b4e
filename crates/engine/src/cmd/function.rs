//! Functions: FCALL, FCALL_RO and FUNCTION (LOAD, DELETE, FLUSH, LIST, STATS, DUMP, RESTORE, KILL, HELP), with functions.c's arguments, replies and errors.
//!
//! The libraries are [`crate::script::function`]; a function runs through
//! the same script client and flag checks as EVAL (`scriptPrepareForRun`).

use super::args::{is, preview};
use super::replies::{help_reply, subcommand_syntax_error};
use super::script::{kill_busy, run_script, script_host, Who};
use super::table::{commands, container, Command, Ctx};
use crate::glob;
use crate::persist::payload::{self, Reader};
use crate::proto::resp::{parse_i64, Frame};
use crate::script::function::{self, Libraries, LOAD_TIMEOUT_MS};

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "scripting";
    "fcall" => fcall, arity: -3, flags: [NOSCRIPT, STALE, SKIP_MONITOR, MAY_REPLICATE, NO_MANDATORY_KEYS, MOVABLEKEYS], acl: [SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FCALL function numkeys [key [key ...]] [arg [arg ...]]", summary: "Invokes a function.";
    "fcall_ro" => fcall_ro, arity: -3, flags: [READONLY, NOSCRIPT, STALE, SKIP_MONITOR, NO_MANDATORY_KEYS, MOVABLEKEYS], acl: [SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FCALL_RO function numkeys [key [key ...]] [arg [arg ...]]", summary: "Invokes a read-only function.";
    "function" => container, arity: -2, flags: [], acl: [SLOW], since: "7.0.0",
        syntax: "FUNCTION <subcommand>", summary: "A container for function commands.", subcommands: SUBCOMMANDS;
};

static SUBCOMMANDS: &[Command] = commands! { heavy; group: "scripting";
    "delete" => delete, arity: 3, flags: [NOSCRIPT, WRITE], acl: [WRITE, SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FUNCTION DELETE library-name", summary: "Deletes a library and its functions.";
    "dump" => dump, arity: 2, flags: [NOSCRIPT], acl: [SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FUNCTION DUMP", summary: "Dumps all libraries into a serialized binary payload.";
    "flush" => flush, arity: -2, flags: [NOSCRIPT, WRITE], acl: [WRITE, SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FUNCTION FLUSH [ASYNC | SYNC]", summary: "Deletes all libraries and functions.";
    "help" => help, arity: 2, flags: [LOADING, STALE], acl: [SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FUNCTION HELP", summary: "Returns helpful text about the different subcommands.";
    "kill" => kill, arity: 2, flags: [NOSCRIPT, ALLOW_BUSY], acl: [SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FUNCTION KILL", summary: "Terminates a function that runs past busy-reply-threshold, unless it has written.";
    "list" => list, arity: -2, flags: [NOSCRIPT], acl: [SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FUNCTION LIST [LIBRARYNAME library-name-pattern] [WITHCODE]", summary: "Returns information about all libraries.";
    "load" => load, arity: -3, flags: [NOSCRIPT, WRITE, DENYOOM], acl: [WRITE, SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FUNCTION LOAD [REPLACE] function-code", summary: "Creates a library.";
    "restore" => restore, arity: -3, flags: [NOSCRIPT, WRITE, DENYOOM], acl: [WRITE, SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FUNCTION RESTORE serialized-value [FLUSH | APPEND | REPLACE]", summary: "Restores all libraries from a payload.";
    "stats" => stats, arity: 2, flags: [NOSCRIPT, ALLOW_BUSY], acl: [SLOW, SCRIPTING], since: "7.0.0",
        syntax: "FUNCTION STATS", summary: "Returns information about a function during execution.";
};

fn fcall(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    fcall_generic(ctx, args, false)
}

fn fcall_ro(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    fcall_generic(ctx, args, true)
}

/// `fcallCommandGeneric`.
fn fcall_generic(ctx: &mut Ctx, args: &[Vec<u8>], ro: bool) -> Frame {
    // Replicas get the function's effects (its writes), never the call.
    ctx.srv.repl.wire.prevent();
    let Some((lib, f)) = ctx.srv.scripts.functions.find(&args[1]) else {
        return Frame::err("ERR Function not found");
    };
    let (lib, f) = (lib.clone(), f.clone());
    let Some(numkeys) = parse_i64(&args[2]) else {
        return Frame::err("ERR Bad number of keys provided");
    };
    if numkeys > args.len() as i64 - 3 {
        return Frame::err("ERR Number of keys can't be greater than number of args");
    }
    if numkeys < 0 {
        return Frame::err("ERR Number of keys can't be negative");
    }
    let split = 3 + numkeys as usize;
    let (keys, argv) = (&args[3..split], &args[split..]);
    let who = Who {
        eval: false,
        name: &f.name,
        command: args,
    };
    run_script(ctx, f.flags, ro, who, |host, fuel| {
        function::call(&lib, &f.name, host, keys, argv, fuel)
    })
}

/// FUNCTION LOAD [REPLACE] code.
fn load(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let mut replace = false;
    let mut pos = 2;
    while pos < args.len() - 1 {
        if is(&args[pos], "replace") {
            replace = true;
            pos += 1;
            continue;
        }
        return Frame::err(format!(
            "ERR Unknown option given: {}",
            preview(&args[pos], usize::MAX)
        ));
    }
    let code = &args[pos];
    let mut libs = std::mem::take(&mut ctx.srv.scripts.functions);
    let fuel = crate::script::budget_for(LOAD_TIMEOUT_MS);
    let result = {
        let mut host = script_host(ctx, true);
        libs.load(code, replace, &mut host, fuel)
    };
    ctx.srv.scripts.functions = libs;
    match result {
        Ok(name) => {
            // `server.dirty++`: counted toward a save, and propagated.
            crate::persist::adjust_changes(ctx.srv, 1);
            Frame::bulk(name)
        }
        Err(e) => Frame::err(format!("ERR {e}")),
    }
}

fn delete(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if ctx.srv.scripts.functions.delete(&args[2]) {
        crate::persist::adjust_changes(ctx.srv, 1);
        Frame::ok()
    } else {
        Frame::err("ERR Library not found")
    }
}

fn flush(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() > 3 {
        return subcommand_syntax_error(args);
    }
    if args.len() == 3 && !is(&args[2], "sync") && !is(&args[2], "async") {
        return Frame::err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    }
    ctx.srv.scripts.functions.flush();
    crate::persist::adjust_changes(ctx.srv, 1);
    Frame::ok()
}

/// FUNCTION KILL: stops a busy function that has not written (`script::busy`).
fn kill(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    kill_busy(ctx.srv, false)
}

/// FUNCTION STATS: the busy function, if one is (`script::busy`), and the engine's counts.
fn stats(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if ctx.srv.scripts.busy.as_ref().is_some_and(|b| b.eval) {
        return Frame::err(crate::script::busy::BUSY_EVAL);
    }
    let running = match ctx.srv.scripts.running(ctx.srv.clock.now_us()) {
        None => Frame::Null,
        Some((name, command, ms)) => Frame::Map(vec![
            (Frame::bulk("name"), Frame::bulk(name)),
            (
                Frame::bulk("command"),
                Frame::Array(command.into_iter().map(Frame::bulk).collect()),
            ),
            (Frame::bulk("duration_ms"), Frame::Integer(ms as i64)),
        ]),
    };
    let libs = &ctx.srv.scripts.functions;
    Frame::Map(vec![
        (Frame::bulk("running_script"), running),
        (
            Frame::bulk("engines"),
            Frame::Map(vec![(
                Frame::bulk("LUA"),
                Frame::Map(vec![
                    (
                        Frame::bulk("libraries_count"),
                        Frame::Integer(libs.library_count() as i64),
                    ),
                    (
                        Frame::bulk("functions_count"),
                        Frame::Integer(libs.function_count() as i64),
                    ),
                ]),
            )]),
        ),
    ])
}

/// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE].
fn list(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (mut with_code, mut pattern): (bool, Option<&[u8]>) = (false, None);
    let mut i = 2;
    while i < args.len() {
        if !with_code && is(&args[i], "withcode") {
            with_code = true;
        } else if pattern.is_none() && is(&args[i], "libraryname") {
            if i >= args.len() - 1 {
                return Frame::err("ERR library name argument was not given");
            }
            i += 1;
            pattern = Some(&args[i]);
        } else {
            return Frame::err(format!(
                "ERR Unknown argument {}",
                preview(&args[i], usize::MAX)
            ));
        }
        i += 1;
    }
    let mut out = Vec::new();
    for lib in ctx.srv.scripts.functions.libraries() {
        if pattern.is_some_and(|p| !glob::matches(p, lib.name.as_bytes(), true)) {
            continue;
        }
        let functions = lib
            .functions
            .iter()
            .map(|f| {
                Frame::Map(vec![
                    (Frame::bulk("name"), Frame::bulk(&f.name)),
                    (
                        Frame::bulk("description"),
                        f.description.as_ref().map_or(Frame::Null, Frame::bulk),
                    ),
                    (
                        Frame::bulk("flags"),
                        Frame::Set(
                            function::flag_names(&f.flags)
                                .into_iter()
                                .map(Frame::simple)
                                .collect(),
                        ),
                    ),
                ])
            })
            .collect();
        let mut fields = vec![
            (Frame::bulk("library_name"), Frame::bulk(&lib.name)),
            (Frame::bulk("engine"), Frame::bulk("LUA")),
            (Frame::bulk("functions"), Frame::Array(functions)),
        ];
        if with_code {
            fields.push((Frame::bulk("library_code"), Frame::bulk(&lib.code)));
        }
        out.push(Frame::Map(fields));
    }
    Frame::Array(out)
}

/// FUNCTION DUMP: each library as `RDB_OPCODE_FUNCTION2` and its code.
fn dump(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let mut body = Vec::new();
    for lib in ctx.srv.scripts.functions.libraries() {
        body.push(payload::OPCODE_FUNCTION2);
        payload::put_string(&mut body, &lib.code);
    }
    Frame::Bulk(payload::seal(body))
}

/// FUNCTION RESTORE payload [FLUSH | APPEND | REPLACE]: every library of
/// the payload is loaded first; nothing changes unless all of it applies.
fn restore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() > 4 {
        return subcommand_syntax_error(args);
    }
    #[derive(PartialEq)]
    enum Policy {
        Append,
        Replace,
        Flush,
    }
    let policy =
        match args.get(3) {
            None => Policy::Append,
            Some(p) if is(p, "append") => Policy::Append,
            Some(p) if is(p, "replace") => Policy::Replace,
            Some(p) if is(p, "flush") => Policy::Flush,
            Some(_) => return Frame::err(
                "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.",
            ),
        };
    let Some(body) = payload::open(&args[2], ctx.srv.debug.skip_checksum) else {
        return Frame::err("ERR DUMP payload version or checksum are wrong");
    };
    let mut loaded = Libraries::default();
    let fuel = crate::script::budget_for(LOAD_TIMEOUT_MS);
    let mut reader = Reader::new(body);
    let mut failure = None;
    {
        let mut host = script_host(ctx, true);
        while !reader.at_end() {
            match reader.byte() {
                Some(payload::OPCODE_FUNCTION2) => {}
                Some(payload::OPCODE_FUNCTION_PRE_GA) => {
                    failure = Some("Pre-GA function format not supported".to_string());
                    break;
                }
                Some(_) => {
                    failure = Some("given type is not a function".to_string());
                    break;
                }
                None => {
                    failure = Some("can not read data type".to_string());
                    break;
                }
            }
            let Some(code) = reader.string() else {
                failure = Some("failed loading the given functions payload".to_string());
                break;
            };
            if let Err(e) = loaded.load(&code, false, &mut host, fuel) {
                failure = Some(e);
                break;
            }
        }
    }
    if let Some(e) = failure {
        return Frame::err(format!("ERR {e}"));
    }
    let libs = &mut ctx.srv.scripts.functions;
    if policy == Policy::Flush {
        *libs = loaded;
        crate::persist::adjust_changes(ctx.srv, 1);
        return Frame::ok();
    }
    match libs.join(loaded, policy == Policy::Replace) {
        Ok(()) => {
            crate::persist::adjust_changes(ctx.srv, 1);
            Frame::ok()
        }
        Err(e) => Frame::err(format!("ERR {e}")),
    }
}

fn help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let lines = [
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
    ];
    help_reply(args, &lines)
}
