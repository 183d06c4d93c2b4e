//! The `redis` table scripts see (`call`, `pcall`, `error_reply`, `status_reply`, `sha1hex`, `log`, `setresp`, `set_repl`, `acl_check_cmd`...), as script_lua.c defines it.

use super::convert::{call_error, error_table, fpconv, frame_to_lua};
use super::lua::auxlib::{check_num, new_lib};
use super::lua::number::c_int;
use super::lua::value::{LuaError, Native, Table, Value, Vm, R};
use crate::proto::resp::Frame;

/// `REDIS_VERSION_NUM` of the version Redsim follows (7.2.4).
pub const REDIS_VERSION_NUM: f64 = 0x07_02_04 as f64;

/// The `redis` table.
pub fn library() -> Table {
    let mut t = new_lib(&[
        ("call", |it, a, _| generic_call(it, a, true)),
        ("pcall", |it, a, _| generic_call(it, a, false)),
        ("sha1hex", sha1hex_native),
        ("error_reply", error_reply),
        ("status_reply", status_reply),
        ("log", log),
        ("setresp", setresp),
        ("set_repl", set_repl),
        ("replicate_commands", |_, _, _| Ok(vec![Value::Bool(true)])),
        ("breakpoint", |_, _, _| Ok(vec![Value::Bool(false)])),
        ("debug", |_, _, _| Ok(Vec::new())),
        ("acl_check_cmd", acl_check_cmd),
    ]);
    for (name, v) in [
        ("LOG_DEBUG", 0.0),
        ("LOG_VERBOSE", 1.0),
        ("LOG_NOTICE", 2.0),
        ("LOG_WARNING", 3.0),
        ("REPL_NONE", 0.0),
        ("REPL_AOF", 1.0),
        ("REPL_SLAVE", 2.0),
        ("REPL_REPLICA", 2.0),
        ("REPL_ALL", 3.0),
        ("REDIS_VERSION_NUM", REDIS_VERSION_NUM),
    ] {
        t.set_str(name, Value::Num(v));
    }
    t.set_str("REDIS_VERSION", Value::str(crate::REDIS_VERSION));
    t
}

fn raise_or_return(raise: bool, err: Value) -> R<Vec<Value>> {
    if raise {
        Err(LuaError::Value(err))
    } else {
        Ok(vec![err])
    }
}

/// `luaRedisGenericCommand`: arguments to strings (numbers as fpconv
/// prints them), run the command, convert the reply; errors raise for
/// `redis.call` and are returned for `redis.pcall`.
fn generic_call(it: &mut dyn Vm, args: Vec<Value>, raise: bool) -> R<Vec<Value>> {
    if args.is_empty() {
        let e = Table::value(error_table(
            "Please specify at least one argument for this redis lib call",
        ));
        return raise_or_return(raise, e);
    }
    let mut argv = Vec::with_capacity(args.len());
    for a in &args {
        match a {
            // 7.2's `luaArgsToRedisArgv`: integral values within ±2^62 as
            // integers (so 200000000 is not "2e+8"), others by fpconv.
            Value::Num(n) => argv.push(match crate::num::double::double2ll(*n) {
                Some(ll) => ll.to_string().into_bytes(),
                None => fpconv(*n).into_bytes(),
            }),
            Value::Str(s) => argv.push(s.to_vec()),
            _ => {
                let e = Table::value(error_table(
                    "Lua redis lib command arguments must be strings or integers",
                ));
                return raise_or_return(raise, e);
            }
        }
    }
    it.burn(argv.iter().map(|a| a.len() as u64).sum::<u64>() / 64 + 1)?;
    let reply = it.host().call(&argv);
    if let Frame::Error(e) = &reply {
        return raise_or_return(raise, call_error(&format!("-{e}")));
    }
    let resp = it.host().resp();
    Ok(vec![frame_to_lua(&reply, resp)])
}

/// The lower-case hex SHA1 of `body`: `redis.sha1hex`, and the name of a
/// cached script.
pub fn sha1hex(body: &[u8]) -> String {
    sha1_smol::Sha1::from(body).digest().to_string()
}

fn sha1hex_native(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.len() != 1 {
        return Err(LuaError::Value(Table::value(error_table(
            "wrong number of arguments",
        ))));
    }
    let s = args[0].to_str().unwrap_or_default();
    let _ = it;
    Ok(vec![Value::str(sha1hex(&s))])
}

fn error_reply(_: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let msg = match args.as_slice() {
        [Value::Str(s)] => String::from_utf8_lossy(s).into_owned(),
        _ => {
            return Ok(vec![Table::value(error_table(
                "wrong number or type of arguments",
            ))])
        }
    };
    let msg = if msg.starts_with('-') {
        msg
    } else {
        format!("-{msg}")
    };
    Ok(vec![Table::value(error_table(&msg))])
}

fn status_reply(_: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    match args.as_slice() {
        [s @ Value::Str(_)] => {
            let mut t = Table::new();
            t.set_str("ok", s.clone());
            Ok(vec![Table::value(t)])
        }
        _ => Ok(vec![Table::value(error_table(
            "wrong number or type of arguments",
        ))]),
    }
}

fn raise(msg: &str) -> LuaError {
    LuaError::Value(Table::value(error_table(msg)))
}

/// `redis.log`: checked like Redis, then the arguments that are strings or
/// numbers, joined by spaces, go to the server log at that level.
fn log(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.len() < 2 {
        return Err(raise("redis.log() requires two arguments or more."));
    }
    let Some(level) = args[0].to_num() else {
        return Err(raise("First argument must be a number (log level)."));
    };
    // `int level = lua_tonumber(...)`: C's truncation toward zero.
    let Some(level) = crate::server::log::Level::from_number(level.trunc() as i64)
        .filter(|_| level.trunc() >= 0.0 && level.trunc() < 4.0)
    else {
        return Err(raise("Invalid debug level."));
    };
    if !it.host().log_wanted(level) {
        return Ok(Vec::new());
    }
    let mut text = Vec::new();
    for (j, a) in args[1..].iter().enumerate() {
        if let Some(s) = a.to_str() {
            // Redis puts the space before every argument but the first
            // one, even when that one was skipped (not a string).
            if j != 0 {
                text.push(b' ');
            }
            text.extend_from_slice(&s);
        }
    }
    it.host().log(level, &text);
    Ok(Vec::new())
}

fn setresp(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.len() != 1 {
        return Err(raise("redis.setresp() requires one argument."));
    }
    let v = args[0].to_num().map(c_int).unwrap_or(0);
    if v != 2 && v != 3 {
        return Err(raise("RESP version must be 2 or 3."));
    }
    it.host().set_resp(v as u8);
    Ok(Vec::new())
}

fn set_repl(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.len() != 1 {
        return Err(raise("redis.set_repl() requires one argument."));
    }
    let flags = check_num(it, &args, 1).map(c_int).unwrap_or(0);
    if flags & !3 != 0 {
        return Err(raise(
            "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.",
        ));
    }
    Ok(Vec::new())
}

fn acl_check_cmd(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.is_empty() {
        return Err(raise(
            "Please specify at least one argument for this redis lib call",
        ));
    }
    let line: Vec<Vec<u8>> = args
        .iter()
        .map(|a| a.to_str().map(|s| s.to_vec()).unwrap_or_default())
        .collect();
    match it.host().acl_allows(&line) {
        Some(ok) => Ok(vec![Value::Bool(ok)]),
        None => Err(raise("Invalid command passed to redis.acl_check_cmd()")),
    }
}
