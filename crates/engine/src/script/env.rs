//! The global environment a script runs in, as script_lua.c sets it up: the libraries Redis loads, every table read-only, KEYS and ARGV, and an error for any unknown global.

use std::rc::Rc;

use super::api;
use super::lua::value::{Native, Table, TableRef, Value, Vm, R};
use super::lua::{baselib, bitlib, cjson, cmsgpack, mathlib, strlib, tablib};

/// The global table a script sees, and its `string` table (which strings
/// index): Redis' allow-listed libraries, every table read-only, KEYS and
/// ARGV, and reads of unknown globals failing.
pub fn globals(keys: &[Vec<u8>], argv: &[Vec<u8>]) -> (TableRef, TableRef) {
    let (g, string) = globals_without_keys();
    let array =
        |items: &[Vec<u8>]| Table::value(Table::from_array(items.iter().map(Value::str).collect()));
    set_global(&g, "KEYS", array(keys));
    set_global(&g, "ARGV", array(argv));
    (g, string)
}

/// The globals a function runs with: the same libraries, no KEYS or ARGV
/// (a function gets its keys and arguments as parameters).
pub fn globals_without_keys() -> (TableRef, TableRef) {
    let mut g = baselib::library();
    let string = strlib::library();
    let string = Rc::new(std::cell::RefCell::new(string));
    g.set_str("string", Value::Table(string.clone()));
    g.set_str("table", Table::value(tablib::library()));
    g.set_str("math", Table::value(mathlib::library()));
    g.set_str("bit", Table::value(bitlib::library()));
    g.set_str("redis", Table::value(api::library()));
    g.set_str("coroutine", Table::value(Table::new()));
    g.set_str("cjson", Table::value(cjson::library()));
    g.set_str("cmsgpack", Table::value(cmsgpack::library()));
    let g = Rc::new(std::cell::RefCell::new(g));
    let gv = Value::Table(g.clone());
    g.borrow_mut().set_str("_G", gv.clone());
    set_error_meta(&mut g.borrow_mut());
    protect(&gv);
    (g, string)
}

/// `luaSetErrorMetatable`: reading a missing field of `t` raises
/// "Script attempted to access nonexistent global variable".
pub fn set_error_meta(t: &mut Table) {
    let mut meta = Table::new();
    meta.set_str("__index", Native::value("__index", missing_global));
    t.meta = Some(Rc::new(std::cell::RefCell::new(meta)));
}

/// `luaSetTableProtectionRecursively` on a new table.
pub fn protected(t: Table) -> TableRef {
    let v = Table::value(t);
    protect(&v);
    match v {
        Value::Table(t) => t,
        _ => unreachable!("Table::value makes a table"),
    }
}

/// `luaSetTableProtectionRecursively`: every table reachable (and its metatable) becomes read-only.
fn protect(v: &Value) {
    let Value::Table(t) = v else {
        return;
    };
    if t.borrow().readonly {
        return;
    }
    t.borrow_mut().readonly = true;
    let (entries, meta) = {
        let tb = t.borrow();
        (tb.entries(), tb.meta.clone())
    };
    for (_, v) in entries {
        protect(&v);
    }
    if let Some(m) = meta {
        protect(&Value::Table(m));
    }
}

/// Sets a global past the read-only protection (KEYS and ARGV).
fn set_global(g: &TableRef, name: &str, v: Value) {
    let mut tb = g.borrow_mut();
    tb.readonly = false;
    tb.set_str(name, v);
    tb.readonly = true;
}

fn missing_global(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let name = args.get(1).and_then(|v| v.to_str()).unwrap_or_default();
    Err(it.rt_error(&format!(
        "Script attempted to access nonexistent global variable '{}'",
        String::from_utf8_lossy(&name)
    )))
}
