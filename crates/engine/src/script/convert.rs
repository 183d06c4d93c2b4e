//! The conversions between Redis replies and Lua values, both ways, as script_lua.c does them: replies to Lua (`redisProtocolToLuaType`), a script's result to a reply (`luaReplyToRedisReply`), error tables, and Lua numbers as command arguments.

use super::lua::number::c_long;
use super::lua::value::{Table, Value};
use crate::proto::resp::Frame;

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
pub fn call_error(msg: &str) -> Value {
    let mut t = error_table(msg);
    t.set_str("ignore_error_stats_update", Value::Bool(true));
    Table::value(t)
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
        // Attributes are read and dropped, as `redisProtocolToLuaType` does.
        Frame::Attribute(_) => Value::Nil,
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
