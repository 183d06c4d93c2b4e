//! The auxiliary library the standard libraries share (lauxlib.c's part): argument checks with `luaL_check*`'s messages, and library tables of natives.

use super::ast::LStr;
use super::number::c_int;
use super::value::{LuaError, Native, NativeFn, Table, TableRef, Value, Vm, R};

/// Natives report a bad value with the standard wording.
#[inline]
pub fn type_name_of(v: Option<&Value>) -> &'static str {
    match v {
        None => "no value",
        Some(v) => v.type_name(),
    }
}

/// `lua_isnoneornil`: argument `n` (from 1) was not given, or is nil.
#[inline]
pub fn absent(args: &[Value], n: usize) -> bool {
    matches!(args.get(n - 1), None | Some(Value::Nil))
}

/// Argument `n` as `conv` reads it, or "bad argument #n to 'f' (WHAT
/// expected, got TYPE)".
#[inline]
fn check_as<T>(
    it: &dyn Vm,
    args: &[Value],
    n: usize,
    what: &str,
    conv: impl FnOnce(&Value) -> Option<T>,
) -> R<T> {
    let v = args.get(n - 1);
    match v.and_then(conv) {
        Some(x) => Ok(x),
        None => Err(expected(it, n, what, v)),
    }
}

/// The error `check_as` raises (apart, so the checks inline small).
#[cold]
fn expected(it: &dyn Vm, n: usize, what: &str, v: Option<&Value>) -> LuaError {
    it.arg_error(n, &format!("{what} expected, got {}", type_name_of(v)))
}

/// `luaL_checktype(L, n, LUA_TTABLE)`.
#[inline]
pub fn check_table(it: &dyn Vm, args: &[Value], n: usize) -> R<TableRef> {
    check_as(it, args, n, "table", |v| match v {
        Value::Table(t) => Some(t.clone()),
        _ => None,
    })
}

/// `luaL_checknumber`: numbers and numeric strings.
#[inline]
pub fn check_num(it: &dyn Vm, args: &[Value], n: usize) -> R<f64> {
    check_as(it, args, n, "number", Value::to_num)
}

/// `luaL_opt`: `default` when argument `n` is absent or nil, else what
/// `check` reads there.
#[inline]
fn opt<T>(
    it: &dyn Vm,
    args: &[Value],
    n: usize,
    default: T,
    check: fn(&dyn Vm, &[Value], usize) -> R<T>,
) -> R<T> {
    if absent(args, n) {
        return Ok(default);
    }
    check(it, args, n)
}

/// `luaL_checkint`: a number truncated to a C `int`.
#[inline]
pub fn check_int(it: &dyn Vm, args: &[Value], n: usize) -> R<i64> {
    Ok(c_int(check_num(it, args, n)?) as i64)
}

/// `luaL_optint`.
#[inline]
pub fn opt_int(it: &dyn Vm, args: &[Value], n: usize, default: i64) -> R<i64> {
    opt(it, args, n, default, check_int)
}

/// `luaL_checklstring`: strings, and numbers converted.
#[inline]
pub fn check_str(it: &dyn Vm, args: &[Value], n: usize) -> R<LStr> {
    check_as(it, args, n, "string", Value::to_str)
}

/// `luaL_optlstring`.
#[inline]
pub fn opt_str(it: &dyn Vm, args: &[Value], n: usize, default: &[u8]) -> R<LStr> {
    if absent(args, n) {
        return Ok(default.into());
    }
    check_str(it, args, n)
}

/// `luaL_checkany`.
#[inline]
pub fn check_any(it: &dyn Vm, args: &[Value], n: usize) -> R<Value> {
    args.get(n - 1)
        .cloned()
        .ok_or_else(|| it.arg_error(n, "value expected"))
}

/// One number as a native's results.
#[inline]
pub fn num(n: f64) -> Vec<Value> {
    vec![Value::Num(n)]
}

/// A library table holding `entries` as named natives, in that order
/// (`pairs` visits them so).
pub fn new_lib(entries: &[(&'static str, NativeFn)]) -> Table {
    let mut t = Table::new();
    for (name, f) in entries {
        t.set_str(name, Native::value(name, *f));
    }
    t
}

/// Redis' read-only tables (globals and libraries) refuse raw writes too.
pub fn check_writable(it: &dyn Vm, t: &TableRef) -> R<()> {
    if t.borrow().readonly {
        return Err(it.vm_error("Attempt to modify a readonly table"));
    }
    Ok(())
}

/// `lua_rawset` from a library: no metamethods, but read-only tables and
/// bad keys are errors.
pub fn raw_set(it: &dyn Vm, t: &TableRef, k: Value, v: Value) -> R<()> {
    check_writable(it, t)?;
    let r = t.borrow_mut().set(k, v);
    r.map_err(|m| it.vm_error(m))
}
