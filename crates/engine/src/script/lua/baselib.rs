//! Lua 5.1's base library (lbaselib.c), with Redis' `pcall`, which hands back an error table's `err` string.

use std::rc::Rc;

use super::auxlib::{
    absent, check_any, check_int, check_str, check_table, check_writable, new_lib, num, opt_int,
    opt_str, raw_set,
};
use super::number::str2ul;
use super::value::{first, Function, LuaError, Native, Table, TableRef, Value, Vm, R};

/// The base functions and `_VERSION`: the first globals a script has.
pub fn library() -> Table {
    let mut g = new_lib(&[
        ("assert", assert),
        ("error", error),
        ("getmetatable", getmetatable),
        ("ipairs", ipairs),
        ("next", next),
        ("pairs", pairs),
        ("pcall", pcall),
        ("rawequal", rawequal),
        ("rawget", rawget),
        ("rawset", rawset),
        ("select", select),
        ("setmetatable", setmetatable),
        ("tonumber", tonumber),
        ("tostring", tostring),
        ("type", type_),
        ("unpack", unpack),
        ("xpcall", xpcall),
        ("gcinfo", gcinfo),
        ("collectgarbage", collectgarbage),
        ("loadstring", loadstring),
    ]);
    g.set_str("_VERSION", Value::str("Lua 5.1"));
    g
}

fn assert(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let v = check_any(it, &args, 1)?;
    if v.truthy() {
        return Ok(args);
    }
    let msg = opt_str(it, &args, 2, b"assertion failed!")?;
    Err(it.rt_error(&String::from_utf8_lossy(&msg)))
}

fn error(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let level = opt_int(it, &args, 2, 1)?;
    let v = args.into_iter().next().unwrap_or_default();
    // `lua_isstring`: numbers get the position too (as a string).
    if let (Some(s), true) = (v.to_str(), level > 0) {
        let mut msg = it.where_(level as usize).into_bytes();
        msg.extend_from_slice(&s);
        return Err(LuaError::Value(Value::str(msg)));
    }
    Err(LuaError::Value(v))
}

fn getmetatable(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let v = check_any(it, &args, 1)?;
    let meta = match &v {
        Value::Table(t) => t.borrow().meta.clone(),
        Value::Str(_) => Some(string_meta(it.string_lib())),
        _ => None,
    };
    let Some(m) = meta else {
        return Ok(vec![Value::Nil]);
    };
    let protected = m.borrow().get_str("__metatable");
    if !protected.is_nil() {
        return Ok(vec![protected]);
    }
    Ok(vec![Value::Table(m)])
}

/// The string metatable (`getmetatable("")`): `{__index = string}`.
fn string_meta(string_lib: TableRef) -> TableRef {
    let mut m = Table::new();
    m.set_str("__index", Value::Table(string_lib));
    m.readonly = true;
    Rc::new(std::cell::RefCell::new(m))
}

fn setmetatable(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let meta = match args.get(1) {
        Some(Value::Nil) => None,
        Some(Value::Table(m)) => Some(m.clone()),
        _ => return Err(it.arg_error(2, "nil or table expected")),
    };
    if let Some(old) = &t.borrow().meta {
        if !old.borrow().get_str("__metatable").is_nil() {
            return Err(it.rt_error("cannot change a protected metatable"));
        }
    }
    check_writable(it, &t)?;
    t.borrow_mut().meta = meta;
    Ok(vec![Value::Table(t)])
}

fn ipairs_aux(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let i = check_int(it, &args, 2)? + 1;
    let v = t.borrow().get(&Value::Num(i as f64));
    if v.is_nil() {
        return Ok(Vec::new());
    }
    Ok(vec![Value::Num(i as f64), v])
}

fn ipairs(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    Ok(vec![
        Native::value("ipairs_aux", ipairs_aux),
        Value::Table(t),
        Value::Num(0.0),
    ])
}

fn next(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let k = args.get(1).cloned().unwrap_or_default();
    let r = t.borrow().next(&k);
    match r {
        Ok(Some((k, v))) => Ok(vec![k, v]),
        Ok(None) => Ok(vec![Value::Nil]),
        Err(_) => Err(it.vm_error("invalid key to 'next'")),
    }
}

fn pairs(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    Ok(vec![
        Native::value("next", next),
        Value::Table(t),
        Value::Nil,
    ])
}

/// Redis' `pcall`: an error table with an `err` string comes back as that
/// string, so scripts written for Redis 6 keep working.
fn pcall(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let f = check_any(it, &args, 1)?;
    let rest = args.into_iter().skip(1).collect();
    match it.call(&f, rest) {
        Ok(mut v) => {
            v.insert(0, Value::Bool(true));
            Ok(v)
        }
        Err(LuaError::Value(e)) => {
            let e = match &e {
                Value::Table(t) => match t.borrow().get_str("err") {
                    s @ (Value::Str(_) | Value::Num(_)) => s,
                    _ => e.clone(),
                },
                _ => e,
            };
            Ok(vec![Value::Bool(false), e])
        }
        Err(LuaError::Budget) => Err(LuaError::Budget),
    }
}

fn xpcall(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let f = check_any(it, &args, 1)?;
    let handler = args.get(1).cloned().unwrap_or_default();
    match it.call(&f, Vec::new()) {
        Ok(mut v) => {
            v.insert(0, Value::Bool(true));
            Ok(v)
        }
        Err(LuaError::Value(e)) => {
            let mut out = vec![Value::Bool(false)];
            out.push(first(it.call(&handler, vec![e])?));
            Ok(out)
        }
        Err(LuaError::Budget) => Err(LuaError::Budget),
    }
}

fn rawequal(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let a = check_any(it, &args, 1)?;
    let b = check_any(it, &args, 2)?;
    Ok(vec![Value::Bool(a.raw_eq(&b))])
}

fn rawget(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let k = check_any(it, &args, 2)?;
    let v = t.borrow().get(&k);
    Ok(vec![v])
}

fn rawset(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let k = check_any(it, &args, 2)?;
    let v = check_any(it, &args, 3)?;
    raw_set(it, &t, k, v)?;
    Ok(vec![Value::Table(t)])
}

fn select(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let n = args.len() as i64;
    if let Some(Value::Str(s)) = args.first() {
        if s.first() == Some(&b'#') {
            return Ok(num((n - 1) as f64));
        }
    }
    let mut i = check_int(it, &args, 1)?;
    if i < 0 {
        i += n;
    } else if i > n {
        i = n;
    }
    if i < 1 {
        return Err(it.arg_error(1, "index out of range"));
    }
    Ok(args.into_iter().skip(i as usize).collect())
}

fn tonumber(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let base = opt_int(it, &args, 2, 10)?;
    if base == 10 {
        let v = check_any(it, &args, 1)?;
        return Ok(vec![v.to_num().map(Value::Num).unwrap_or_default()]);
    }
    let s = check_str(it, &args, 1)?;
    if !(2..=36).contains(&base) {
        return Err(it.arg_error(2, "base out of range"));
    }
    Ok(vec![str2ul(&s, base as u32)
        .map(Value::Num)
        .unwrap_or_default()])
}

fn tostring(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let v = check_any(it, &args, 1)?;
    Ok(vec![Value::str(it.tostring(&v)?)])
}

fn type_(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let v = check_any(it, &args, 1)?;
    Ok(vec![Value::str(v.type_name())])
}

fn unpack(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let i = opt_int(it, &args, 2, 1)?;
    let j = if absent(&args, 3) {
        t.borrow().border() as i64
    } else {
        check_int(it, &args, 3)?
    };
    if i > j {
        return Ok(Vec::new());
    }
    let n = j - i + 1;
    if n >= 8000 {
        return Err(it.rt_error("too many results to unpack"));
    }
    let tb = t.borrow();
    Ok((i..=j).map(|k| tb.get(&Value::Num(k as f64))).collect())
}

fn gcinfo(_: &mut dyn Vm, _: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    Ok(num(0.0))
}

fn collectgarbage(_: &mut dyn Vm, _: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    Ok(num(0.0))
}

fn loadstring(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let src = check_str(it, &args, 1)?;
    match super::parse::parse_chunk(&src) {
        Ok(proto) => Ok(vec![Value::Func(Rc::new(Function::Lua {
            proto,
            upvals: Vec::new(),
        }))]),
        Err(e) => Ok(vec![Value::Nil, Value::str(e)]),
    }
}
