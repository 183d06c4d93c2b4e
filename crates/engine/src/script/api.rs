//! The `redis` table scripts see (`call`, `pcall`, `error_reply`, `status_reply`, `sha1hex`, `log`, `setresp`...) and the conversions between Redis replies and Lua values, as script_lua.c does them.

use super::interp::{Interp, LuaError};
use super::number::c_long;
use super::stdlib::{check_num, R};
use super::value::{Native, Table, Value};
use crate::proto::resp::Frame;

/// `REDIS_VERSION_NUM` of the version Redsim follows (7.2.4).
pub const REDIS_VERSION_NUM: f64 = 0x07_02_04 as f64;

/// The `redis` table.
pub fn library() -> Table {
    let entries: &[(&'static str, super::value::NativeFn)] = &[
        ("call", |it, a, _| generic_call(it, a, true)),
        ("pcall", |it, a, _| generic_call(it, a, false)),
        ("sha1hex", sha1hex),
        ("error_reply", error_reply),
        ("status_reply", status_reply),
        ("log", log),
        ("setresp", setresp),
        ("set_repl", set_repl),
        ("replicate_commands", |_, _, _| Ok(vec![Value::Bool(true)])),
        ("breakpoint", |_, _, _| Ok(vec![Value::Bool(false)])),
        ("debug", |_, _, _| Ok(Vec::new())),
        ("acl_check_cmd", acl_check_cmd),
    ];
    let mut t = Table::new();
    for (name, f) in entries {
        t.set_str(name, Native::value(name, *f));
    }
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

/// `luaPushErrorBuff`: `{err = "CODE message"}`. A message starting with
/// `-` carries its code (a message without a space gets `ERR`); any other
/// message gets `ERR`. Trailing CR/LF are trimmed.
pub fn error_table(msg: &str) -> Table {
    let text = match msg.strip_prefix('-') {
        Some(rest) => match rest.split_once(' ') {
            Some((code, m)) => format!("{code} {}", m.trim_matches(['\r', '\n'])),
            None => format!("ERR {}", rest.trim_matches(['\r', '\n'])),
        },
        None => format!("ERR {}", msg.trim_matches(['\r', '\n'])),
    };
    let mut t = Table::new();
    t.set_str("err", Value::str(text));
    t
}

/// An error table from `redis.call`/`redis.pcall`: Redis marks those so the
/// error is not counted twice in the stats, and scripts can see the mark.
fn call_error(msg: &str) -> Value {
    let mut t = error_table(msg);
    t.set_str("ignore_error_stats_update", Value::Bool(true));
    Table::value(t)
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
fn generic_call(it: &mut Interp, args: Vec<Value>, raise: bool) -> R<Vec<Value>> {
    if args.is_empty() {
        let e = Table::value(error_table(
            "Please specify at least one argument for this redis lib call",
        ));
        return raise_or_return(raise, e);
    }
    let mut argv = Vec::with_capacity(args.len());
    for a in &args {
        match a {
            Value::Num(n) => argv.push(fpconv(*n).into_bytes()),
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
    let reply = it.host.call(&argv);
    if let Frame::Error(e) = &reply {
        return raise_or_return(raise, call_error(&format!("-{e}")));
    }
    let resp = it.host.resp();
    Ok(vec![frame_to_lua(&reply, resp)])
}

/// `fpconv_dtoa`: how Redis turns a Lua number argument into a string
/// (shortest round-trip digits, `1e+17` style exponents).
pub fn fpconv(n: f64) -> String {
    let sign = if n.is_sign_negative() { "-" } else { "" };
    if n.is_nan() {
        format!("{sign}nan")
    } else if n.is_infinite() {
        format!("{sign}inf")
    } else if n == 0.0 {
        format!("{sign}0")
    } else {
        crate::num::double::fpconv_dtoa(n)
    }
}

/// A Redis reply as a Lua value (`redisProtocolToLuaType`), seen through
/// the script client's protocol: RESP2 flattens maps, sets, doubles and
/// booleans first, as the reply would be encoded.
pub fn frame_to_lua(f: &Frame, resp: u8) -> Value {
    let resp3 = resp >= 3;
    match f {
        Frame::Simple(s) => {
            let mut t = Table::new();
            t.set_str("ok", Value::str(s.as_bytes()));
            Table::value(t)
        }
        Frame::Error(e) => call_error(&format!("-{e}")),
        Frame::Integer(n) => Value::Num(*n as f64),
        Frame::Bulk(b) => Value::str(b),
        Frame::Null | Frame::NullArray => {
            if resp3 {
                Value::Nil
            } else {
                Value::Bool(false)
            }
        }
        Frame::Array(items) | Frame::Push(items) => Table::value(Table::from_array(
            items.iter().map(|i| frame_to_lua(i, resp)).collect(),
        )),
        Frame::Set(items) if resp3 => {
            let mut set = Table::new();
            for i in items {
                let _ = set.set(frame_to_lua(i, resp), Value::Bool(true));
            }
            let mut t = Table::new();
            t.set_str("set", Table::value(set));
            Table::value(t)
        }
        Frame::Set(items) => Table::value(Table::from_array(
            items.iter().map(|i| frame_to_lua(i, resp)).collect(),
        )),
        Frame::Map(pairs) if resp3 => {
            let mut map = Table::new();
            for (k, v) in pairs {
                let _ = map.set(frame_to_lua(k, resp), frame_to_lua(v, resp));
            }
            let mut t = Table::new();
            t.set_str("map", Table::value(map));
            Table::value(t)
        }
        Frame::Map(pairs) => {
            let mut flat = Vec::with_capacity(pairs.len() * 2);
            for (k, v) in pairs {
                flat.push(frame_to_lua(k, resp));
                flat.push(frame_to_lua(v, resp));
            }
            Table::value(Table::from_array(flat))
        }
        Frame::Double(d) if resp3 => {
            let mut t = Table::new();
            t.set_str("double", Value::Num(*d));
            Table::value(t)
        }
        Frame::Double(d) => Value::str(crate::proto::resp::fmt_double(*d)),
        Frame::Boolean(b) if resp3 => Value::Bool(*b),
        Frame::Boolean(b) => Value::Num(*b as u8 as f64),
        Frame::BigNumber(s) if resp3 => {
            let mut t = Table::new();
            t.set_str("big_number", Value::str(s));
            Table::value(t)
        }
        Frame::BigNumber(s) => Value::str(s),
        Frame::Verbatim(fmt, text) if resp3 => {
            let mut inner = Table::new();
            inner.set_str("string", Value::str(text));
            inner.set_str("format", Value::str(&fmt[..]));
            let mut t = Table::new();
            t.set_str("verbatim_string", Table::value(inner));
            Table::value(t)
        }
        Frame::Verbatim(_, text) => Value::str(text),
    }
}

/// Nesting past this in a returned table gives Redis' stack-limit error.
const MAX_REPLY_DEPTH: usize = 200;

/// `luaReplyToRedisReply`: a script's return value as a reply. `resp` is
/// the script client's protocol (for booleans).
pub fn lua_to_frame(v: &Value, resp: u8) -> Frame {
    to_frame(v, resp, 0)
}

fn to_frame(v: &Value, resp: u8, depth: usize) -> Frame {
    if depth > MAX_REPLY_DEPTH {
        return Frame::err("ERR reached lua stack limit");
    }
    match v {
        Value::Str(s) => Frame::Bulk(s.to_vec()),
        Value::Bool(b) if resp >= 3 => Frame::Boolean(*b),
        Value::Bool(true) => Frame::Integer(1),
        Value::Bool(false) => Frame::Null,
        Value::Num(n) => Frame::Integer(c_long(*n)),
        Value::Table(t) if t.borrow().userdata_null => Frame::Null,
        Value::Table(t) => {
            let tb = t.borrow();
            if let Value::Str(e) = tb.get_str("err") {
                return Frame::err(String::from_utf8_lossy(&e).into_owned());
            }
            if let Value::Str(ok) = tb.get_str("ok") {
                return Frame::simple(String::from_utf8_lossy(&ok).replace(['\r', '\n'], " "));
            }
            if let Value::Num(d) = tb.get_str("double") {
                return Frame::Double(d);
            }
            if let Value::Str(b) = tb.get_str("big_number") {
                return Frame::BigNumber(String::from_utf8_lossy(&b).replace(['\r', '\n'], " "));
            }
            if let Value::Table(vt) = tb.get_str("verbatim_string") {
                let vt = vt.borrow();
                if let (Value::Str(fmt), Value::Str(s)) =
                    (vt.get_str("format"), vt.get_str("string"))
                {
                    // `addReplyVerbatim`: the first three bytes of the
                    // format (a C string: a NUL ends it), padded with spaces.
                    let mut f = *b"   ";
                    for (d, b) in f.iter_mut().zip(fmt.iter().take_while(|&&b| b != 0)) {
                        *d = *b;
                    }
                    return Frame::Verbatim(f, s.to_vec());
                }
            }
            if let Value::Table(m) = tb.get_str("map") {
                let entries = m.borrow().entries();
                return Frame::Map(
                    entries
                        .iter()
                        .map(|(k, v)| (to_frame(k, resp, depth + 1), to_frame(v, resp, depth + 1)))
                        .collect(),
                );
            }
            if let Value::Table(s) = tb.get_str("set") {
                let entries = s.borrow().entries();
                return Frame::Set(
                    entries
                        .iter()
                        .map(|(k, _)| to_frame(k, resp, depth + 1))
                        .collect(),
                );
            }
            let mut items = Vec::new();
            let mut j = 1;
            loop {
                let item = tb.get_int(j);
                if item.is_nil() {
                    break;
                }
                items.push(to_frame(&item, resp, depth + 1));
                j += 1;
            }
            Frame::Array(items)
        }
        _ => Frame::Null,
    }
}

fn sha1hex(it: &mut Interp, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.len() != 1 {
        return Err(LuaError::Value(Table::value(error_table(
            "wrong number of arguments",
        ))));
    }
    let s = args[0].to_str().unwrap_or_default();
    let _ = it;
    Ok(vec![Value::str(super::sha1hex(&s))])
}

fn error_reply(_: &mut Interp, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
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

fn status_reply(_: &mut Interp, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
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

/// `redis.log`: checked like Redis, then dropped (Redsim keeps no log file).
fn log(_: &mut Interp, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.len() < 2 {
        return Err(raise("redis.log() requires two arguments or more."));
    }
    let Some(level) = args[0].to_num() else {
        return Err(raise("First argument must be a number (log level)."));
    };
    if !(0.0..4.0).contains(&level.trunc()) {
        return Err(raise("Invalid debug level."));
    }
    Ok(Vec::new())
}

fn setresp(it: &mut Interp, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.len() != 1 {
        return Err(raise("redis.setresp() requires one argument."));
    }
    let v = args[0].to_num().map(super::number::c_int).unwrap_or(0);
    if v != 2 && v != 3 {
        return Err(raise("RESP version must be 2 or 3."));
    }
    it.host.set_resp(v as u8);
    Ok(Vec::new())
}

fn set_repl(it: &mut Interp, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.len() != 1 {
        return Err(raise("redis.set_repl() requires one argument."));
    }
    let flags = check_num(it, &args, 1)
        .map(super::number::c_int)
        .unwrap_or(0);
    if flags & !3 != 0 {
        return Err(raise(
            "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.",
        ));
    }
    Ok(Vec::new())
}

fn acl_check_cmd(it: &mut Interp, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.is_empty() {
        return Err(raise(
            "Please specify at least one argument for this redis lib call",
        ));
    }
    let name = args[0].to_str().unwrap_or_default();
    if !it.host.is_command(&name) {
        return Err(raise("Invalid command passed to redis.acl_check_cmd()"));
    }
    // No ACLs: the default user may run everything.
    Ok(vec![Value::Bool(true)])
}
