//! The Lua 5.1 libraries Redis loads (base, table, math, bit), with Redis' replacements (`pcall` returning `err` strings, `math.random` on `redisLrand48`) and its read-only, allow-listed globals.

use std::rc::Rc;

use super::ast::LStr;
use super::number::{c_int, fix_nan, str2ul};
use super::value::{first, Function, LuaError, Native, NativeFn, Table, TableRef, Value, Vm, R};

// ---------------------------------------------------------------------------
// Argument helpers, with luaL_check*'s messages.

/// Natives report a bad value with the standard wording.
pub fn type_name_of(v: Option<&Value>) -> &'static str {
    match v {
        None => "no value",
        Some(v) => v.type_name(),
    }
}

/// `luaL_checktype(L, n, LUA_TTABLE)`.
pub fn check_table(it: &dyn Vm, args: &[Value], n: usize) -> R<TableRef> {
    match args.get(n - 1) {
        Some(Value::Table(t)) => Ok(t.clone()),
        other => Err(it.arg_error(n, &format!("table expected, got {}", type_name_of(other)))),
    }
}

/// `luaL_checknumber`: numbers and numeric strings.
pub fn check_num(it: &dyn Vm, args: &[Value], n: usize) -> R<f64> {
    match args.get(n - 1) {
        Some(v) => v
            .to_num()
            .ok_or_else(|| it.arg_error(n, &format!("number expected, got {}", v.type_name()))),
        None => Err(it.arg_error(n, "number expected, got no value")),
    }
}

/// `luaL_optnumber`.
pub fn opt_num(it: &dyn Vm, args: &[Value], n: usize, default: f64) -> R<f64> {
    match args.get(n - 1) {
        None | Some(Value::Nil) => Ok(default),
        _ => check_num(it, args, n),
    }
}

/// `luaL_checkint`: a number truncated to a C `int`.
pub fn check_int(it: &dyn Vm, args: &[Value], n: usize) -> R<i64> {
    Ok(c_int(check_num(it, args, n)?) as i64)
}

/// `luaL_optint`.
pub fn opt_int(it: &dyn Vm, args: &[Value], n: usize, default: i64) -> R<i64> {
    match args.get(n - 1) {
        None | Some(Value::Nil) => Ok(default),
        _ => check_int(it, args, n),
    }
}

/// `luaL_checklstring`: strings, and numbers converted.
pub fn check_str(it: &dyn Vm, args: &[Value], n: usize) -> R<LStr> {
    match args.get(n - 1) {
        Some(v) => v
            .to_str()
            .ok_or_else(|| it.arg_error(n, &format!("string expected, got {}", v.type_name()))),
        None => Err(it.arg_error(n, "string expected, got no value")),
    }
}

/// `luaL_optlstring`.
pub fn opt_str(it: &dyn Vm, args: &[Value], n: usize, default: &[u8]) -> R<LStr> {
    match args.get(n - 1) {
        None | Some(Value::Nil) => Ok(default.into()),
        _ => check_str(it, args, n),
    }
}

/// `luaL_checkany`.
pub fn check_any(it: &dyn Vm, args: &[Value], n: usize) -> R<Value> {
    args.get(n - 1)
        .cloned()
        .ok_or_else(|| it.arg_error(n, "value expected"))
}

fn num(n: f64) -> Vec<Value> {
    vec![Value::Num(n)]
}

/// A table holding `entries` as named natives.
fn lib(entries: &[(&'static str, NativeFn)]) -> Table {
    let mut t = Table::new();
    for (name, f) in entries {
        t.set_str(name, Native::value(name, *f));
    }
    t
}

// ---------------------------------------------------------------------------
// Globals.

/// The global table a script sees: Redis' allow-listed libraries, every
/// table read-only, and reads of unknown globals failing.
pub fn globals(redis: Table) -> (TableRef, TableRef) {
    let mut g = lib(&[
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
    let string = super::strlib::library();
    let string = Rc::new(std::cell::RefCell::new(string));
    g.set_str("string", Value::Table(string.clone()));
    g.set_str(
        "table",
        Table::value(lib(&[
            ("concat", concat),
            ("insert", insert),
            ("maxn", maxn),
            ("remove", remove),
            ("sort", sort),
            ("getn", getn),
            ("setn", setn),
            ("foreach", foreach),
            ("foreachi", foreachi),
        ])),
    );
    g.set_str("math", Table::value(math()));
    g.set_str("bit", Table::value(bit()));
    g.set_str("redis", Table::value(redis));
    g.set_str("coroutine", Table::value(Table::new()));
    g.set_str("cjson", Table::value(super::cjson::library()));
    let g = Rc::new(std::cell::RefCell::new(g));
    let gv = Value::Table(g.clone());
    g.borrow_mut().set_str("_G", gv.clone());
    let mut meta = Table::new();
    meta.set_str("__index", Native::value("__index", missing_global));
    g.borrow_mut().meta = Some(Rc::new(std::cell::RefCell::new(meta)));
    protect(&gv);
    (g, string)
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
pub fn set_global(g: &TableRef, name: &str, v: Value) {
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

// ---------------------------------------------------------------------------
// Base library.

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
    if t.borrow().readonly {
        return Err(it.vm_error("Attempt to modify a readonly table"));
    }
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
    if t.borrow().readonly {
        return Err(it.vm_error("Attempt to modify a readonly table"));
    }
    let r = t.borrow_mut().set(k, v);
    r.map_err(|m| it.vm_error(m))?;
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
    let j = match args.get(2) {
        None | Some(Value::Nil) => t.borrow().border() as i64,
        _ => check_int(it, &args, 3)?,
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

// ---------------------------------------------------------------------------
// Table library.

fn concat(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let sep = opt_str(it, &args, 2, b"")?;
    let i = opt_int(it, &args, 3, 1)?;
    let j = match args.get(3) {
        None | Some(Value::Nil) => t.borrow().border() as i64,
        _ => check_int(it, &args, 4)?,
    };
    let mut out = Vec::new();
    let mut k = i;
    while k <= j {
        let v = t.borrow().get(&Value::Num(k as f64));
        let Some(s) = (match &v {
            Value::Str(_) | Value::Num(_) => v.to_str(),
            _ => None,
        }) else {
            return Err(it.rt_error(&format!(
                "invalid value ({}) at index {k} in table for 'concat'",
                v.type_name()
            )));
        };
        it.burn((s.len() + sep.len()) as u64 / 64 + 1)?;
        out.extend_from_slice(&s);
        if k != j {
            out.extend_from_slice(&sep);
        }
        k += 1;
    }
    Ok(vec![Value::str(out)])
}

fn insert(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let mut e = t.borrow().border() as i64 + 1;
    let (pos, v) = match args.len() {
        2 => (e, args[1].clone()),
        3 => {
            let pos = check_int(it, &args, 2)?;
            if pos > e {
                e = pos;
            }
            let mut i = e;
            while i > pos {
                it.burn(1)?;
                let prev = t.borrow().get(&Value::Num((i - 1) as f64));
                set_raw(it, &t, i, prev)?;
                i -= 1;
            }
            (pos, args[2].clone())
        }
        _ => return Err(it.rt_error("wrong number of arguments to 'insert'")),
    };
    set_raw(it, &t, pos, v)?;
    Ok(Vec::new())
}

fn set_raw(it: &dyn Vm, t: &TableRef, i: i64, v: Value) -> R<()> {
    if t.borrow().readonly {
        return Err(it.vm_error("Attempt to modify a readonly table"));
    }
    let r = t.borrow_mut().set(Value::Num(i as f64), v);
    r.map_err(|m| it.vm_error(m))
}

fn remove(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let e = t.borrow().border() as i64;
    if e == 0 {
        return Ok(Vec::new());
    }
    let pos = opt_int(it, &args, 2, e)?;
    if !(1 <= pos && pos <= e) {
        return Ok(Vec::new());
    }
    let out = t.borrow().get(&Value::Num(pos as f64));
    for i in pos..e {
        it.burn(1)?;
        let next = t.borrow().get(&Value::Num((i + 1) as f64));
        set_raw(it, &t, i, next)?;
    }
    set_raw(it, &t, e, Value::Nil)?;
    Ok(vec![out])
}

fn maxn(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let mut max = 0.0f64;
    for (k, _) in t.borrow().entries() {
        if let Value::Num(n) = k {
            if n > max {
                max = n;
            }
        }
    }
    Ok(num(max))
}

fn getn(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let n = t.borrow().border();
    Ok(num(n as f64))
}

fn setn(it: &mut dyn Vm, _: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    Err(it.rt_error("'setn' is obsolete"))
}

fn foreach(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let f = args.get(1).cloned().unwrap_or_default();
    let entries = t.borrow().entries();
    for (k, v) in entries {
        let r = first(it.call(&f, vec![k, v])?);
        if !r.is_nil() {
            return Ok(vec![r]);
        }
    }
    Ok(Vec::new())
}

fn foreachi(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let f = args.get(1).cloned().unwrap_or_default();
    let n = t.borrow().border();
    for i in 1..=n {
        let v = t.borrow().get_int(i);
        let r = first(it.call(&f, vec![Value::Num(i as f64), v])?);
        if !r.is_nil() {
            return Ok(vec![r]);
        }
    }
    Ok(Vec::new())
}

/// `table.sort`: Lua 5.1's quicksort (median of three, smaller half
/// first), so ties and inconsistent comparators behave as in Redis.
fn sort(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let n = t.borrow().border();
    let comp = match args.get(1) {
        None | Some(Value::Nil) => None,
        Some(f @ Value::Func(_)) => Some(f.clone()),
        Some(v) => {
            return Err(it.arg_error(2, &format!("function expected, got {}", v.type_name())))
        }
    };
    let mut a: Vec<Value> = (1..=n).map(|i| t.borrow().get_int(i)).collect();
    let mut s = Sorter {
        it,
        comp,
        a: &mut a,
    };
    s.aux(1, n as i64)?;
    if t.borrow().readonly && n > 0 {
        return Err(it_readonly(s.it));
    }
    let mut tb = t.borrow_mut();
    for (i, v) in a.into_iter().enumerate() {
        tb.set_int(i + 1, v);
    }
    Ok(Vec::new())
}

fn it_readonly(it: &dyn Vm) -> LuaError {
    it.vm_error("Attempt to modify a readonly table")
}

struct Sorter<'a, 'b> {
    it: &'a mut dyn Vm,
    comp: Option<Value>,
    a: &'b mut Vec<Value>,
}

impl Sorter<'_, '_> {
    fn get(&self, i: i64) -> Value {
        if i >= 1 {
            self.a.get(i as usize - 1).cloned().unwrap_or_default()
        } else {
            Value::Nil
        }
    }

    fn swap(&mut self, i: i64, j: i64) {
        let n = self.a.len() as i64;
        if (1..=n).contains(&i) && (1..=n).contains(&j) {
            self.a.swap(i as usize - 1, j as usize - 1);
        }
    }

    fn lt(&mut self, x: &Value, y: &Value) -> R<bool> {
        self.it.burn(1)?;
        match &self.comp {
            Some(f) => {
                let f = f.clone();
                Ok(first(self.it.call(&f, vec![x.clone(), y.clone()])?).truthy())
            }
            None => self.it.less(x, y, false),
        }
    }

    fn aux(&mut self, mut l: i64, mut u: i64) -> R<()> {
        while l < u {
            if self.lt(&self.get(u), &self.get(l))? {
                self.swap(l, u);
            }
            if u - l == 1 {
                break;
            }
            let mut i = (l + u) / 2;
            if self.lt(&self.get(i), &self.get(l))? {
                self.swap(i, l);
            } else if self.lt(&self.get(u), &self.get(i))? {
                self.swap(i, u);
            }
            if u - l == 2 {
                break;
            }
            let p = self.get(i);
            self.swap(i, u - 1);
            i = l;
            let mut j = u - 1;
            loop {
                loop {
                    i += 1;
                    if !self.lt(&self.get(i), &p)? {
                        break;
                    }
                    if i > u {
                        return Err(self.it.rt_error("invalid order function for sorting"));
                    }
                }
                loop {
                    j -= 1;
                    if !self.lt(&p, &self.get(j))? {
                        break;
                    }
                    if j < l {
                        return Err(self.it.rt_error("invalid order function for sorting"));
                    }
                }
                if j < i {
                    break;
                }
                self.swap(i, j);
            }
            self.swap(u - 1, i);
            let (lo, hi);
            if i - l < u - i {
                lo = l;
                hi = i - 1;
                l = i + 1;
            } else {
                lo = i + 1;
                hi = u;
                u = i - 1;
            }
            self.aux(lo, hi)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Math library.

fn math() -> Table {
    let mut t = lib(&[
        ("abs", |it, a, _| Ok(num(check_num(it, &a, 1)?.abs()))),
        ("ceil", |it, a, _| Ok(num(check_num(it, &a, 1)?.ceil()))),
        ("floor", |it, a, _| Ok(num(check_num(it, &a, 1)?.floor()))),
        ("sqrt", |it, a, _| math1(it, &a, f64::sqrt)),
        ("exp", |it, a, _| math1(it, &a, f64::exp)),
        ("log", |it, a, _| math1(it, &a, f64::ln)),
        ("log10", |it, a, _| math1(it, &a, f64::log10)),
        ("sin", |it, a, _| math1(it, &a, f64::sin)),
        ("cos", |it, a, _| math1(it, &a, f64::cos)),
        ("tan", |it, a, _| math1(it, &a, f64::tan)),
        ("asin", |it, a, _| math1(it, &a, f64::asin)),
        ("acos", |it, a, _| math1(it, &a, f64::acos)),
        ("atan", |it, a, _| math1(it, &a, f64::atan)),
        ("sinh", |it, a, _| math1(it, &a, f64::sinh)),
        ("cosh", |it, a, _| math1(it, &a, f64::cosh)),
        ("tanh", |it, a, _| math1(it, &a, f64::tanh)),
        ("deg", |it, a, _| {
            Ok(num(check_num(it, &a, 1)? * (180.0 / std::f64::consts::PI)))
        }),
        ("rad", |it, a, _| {
            Ok(num(check_num(it, &a, 1)? * (std::f64::consts::PI / 180.0)))
        }),
        ("atan2", |it, a, _| {
            let (y, x) = (check_num(it, &a, 1)?, check_num(it, &a, 2)?);
            Ok(num(y.atan2(x)))
        }),
        ("pow", |it, a, _| {
            let (x, y) = (check_num(it, &a, 1)?, check_num(it, &a, 2)?);
            Ok(num(fix_nan(x.powf(y), x, y)))
        }),
        ("fmod", fmod),
        ("mod", fmod),
        ("modf", |it, a, _| {
            let x = check_num(it, &a, 1)?;
            let ip = x.trunc();
            let frac = if x.is_infinite() { 0.0 } else { x - ip };
            Ok(vec![Value::Num(ip), Value::Num(frac)])
        }),
        ("frexp", |it, a, _| {
            let (m, e) = frexp(check_num(it, &a, 1)?);
            Ok(vec![Value::Num(m), Value::Num(e as f64)])
        }),
        ("ldexp", |it, a, _| {
            let m = check_num(it, &a, 1)?;
            let e = check_int(it, &a, 2)?;
            Ok(num(ldexp(m, e)))
        }),
        ("max", |it, a, _| minmax(it, &a, true)),
        ("min", |it, a, _| minmax(it, &a, false)),
        ("random", random),
        ("randomseed", randomseed),
    ]);
    t.set_str("pi", Value::Num(std::f64::consts::PI));
    t.set_str("huge", Value::Num(f64::INFINITY));
    t
}

fn math1(it: &mut dyn Vm, a: &[Value], f: fn(f64) -> f64) -> R<Vec<Value>> {
    let x = check_num(it, a, 1)?;
    Ok(num(fix_nan(f(x), x, 0.0)))
}

fn fmod(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let (x, y) = (check_num(it, &a, 1)?, check_num(it, &a, 2)?);
    Ok(num(fix_nan(x % y, x, y)))
}

fn minmax(it: &mut dyn Vm, a: &[Value], max: bool) -> R<Vec<Value>> {
    let mut best = check_num(it, a, 1)?;
    for i in 2..=a.len() {
        let v = check_num(it, a, i)?;
        if (max && v > best) || (!max && v < best) {
            best = v;
        }
    }
    Ok(num(best))
}

/// C's `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1`.
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

/// C's `ldexp`.
fn ldexp(m: f64, e: i64) -> f64 {
    let e = e.clamp(-2200, 2200) as i32;
    let mut x = m;
    let mut e = e;
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e)
}

/// `redisLrand48`: the 48-bit linear congruence of `lrand48`, bits 47..17.
pub fn lrand48(state: &mut u64) -> i32 {
    *state = (state.wrapping_mul(0x5_DEEC_E66D).wrapping_add(0xB)) & 0xffff_ffff_ffff;
    (*state >> 17) as i32
}

/// The state `redisSrand48(seed)` sets.
pub fn srand48(seed: i32) -> u64 {
    ((seed as u32 as u64) << 16) | 0x330E
}

/// The state Redis starts with (`x = {0x330E, 0xABCD, 0x1234}`).
pub const RAND48_INIT: u64 = 0x1234_ABCD_330E;

fn random(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    const MAX: i64 = i32::MAX as i64;
    let r = (lrand48(it.host().rand48()) as i64 % MAX) as f64 / MAX as f64;
    match a.len() {
        0 => Ok(num(r)),
        1 => {
            let u = check_int(it, &a, 1)?;
            if u < 1 {
                return Err(it.arg_error(1, "interval is empty"));
            }
            Ok(num((r * u as f64).floor() + 1.0))
        }
        2 => {
            let l = check_int(it, &a, 1)?;
            let u = check_int(it, &a, 2)?;
            if l > u {
                return Err(it.arg_error(2, "interval is empty"));
            }
            Ok(num((r * (u - l + 1) as f64).floor() + l as f64))
        }
        _ => Err(it.rt_error("wrong number of arguments")),
    }
}

fn randomseed(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let seed = check_int(it, &a, 1)? as i32;
    *it.host().rand48() = srand48(seed);
    Ok(Vec::new())
}

// ---------------------------------------------------------------------------
// LuaBitOp (`bit`): 32-bit operations on numbers.

/// `tobit`: the number modulo 2^32 as a signed 32-bit integer, rounding
/// as LuaBitOp's `2^52 + 2^51` addition does.
fn tobit(n: f64) -> i32 {
    (n + 6_755_399_441_055_744.0).to_bits() as u32 as i32
}

fn bitarg(it: &dyn Vm, a: &[Value], i: usize) -> R<i32> {
    Ok(tobit(check_num(it, a, i)?))
}

fn bits(v: i32) -> Vec<Value> {
    num(v as f64)
}

fn bit() -> Table {
    lib(&[
        ("tobit", |it, a, _| Ok(bits(bitarg(it, &a, 1)?))),
        ("bnot", |it, a, _| Ok(bits(!bitarg(it, &a, 1)?))),
        ("band", |it, a, _| fold_bits(it, &a, |x, y| x & y)),
        ("bor", |it, a, _| fold_bits(it, &a, |x, y| x | y)),
        ("bxor", |it, a, _| fold_bits(it, &a, |x, y| x ^ y)),
        ("lshift", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits(((x as u32) << (n & 31)) as i32))
        }),
        ("rshift", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits(((x as u32) >> (n & 31)) as i32))
        }),
        ("arshift", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits(x >> (n & 31)))
        }),
        ("rol", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits((x as u32).rotate_left((n & 31) as u32) as i32))
        }),
        ("ror", |it, a, _| {
            let (x, n) = (bitarg(it, &a, 1)?, bitarg(it, &a, 2)?);
            Ok(bits((x as u32).rotate_right((n & 31) as u32) as i32))
        }),
        ("bswap", |it, a, _| {
            Ok(bits(bitarg(it, &a, 1)?.swap_bytes()))
        }),
        ("tohex", |it, a, _| {
            let x = bitarg(it, &a, 1)? as u32;
            let n = match a.get(1) {
                None | Some(Value::Nil) => 8,
                _ => bitarg(it, &a, 2)?,
            };
            let upper = n < 0;
            let n = (n.unsigned_abs().min(8)) as usize;
            let mut s = if upper {
                format!("{x:08X}")
            } else {
                format!("{x:08x}")
            };
            s = s[8 - n..].to_string();
            Ok(vec![Value::str(s)])
        }),
    ])
}

fn fold_bits(it: &mut dyn Vm, a: &[Value], f: fn(i32, i32) -> i32) -> R<Vec<Value>> {
    let mut acc = bitarg(it, a, 1)?;
    for i in 2..=a.len() {
        acc = f(acc, bitarg(it, a, i)?);
    }
    Ok(bits(acc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lrand48_matches_redis() {
        // redis-server's first `math.random(100)` on a fresh server is 40.
        let mut s = RAND48_INIT;
        let r = (lrand48(&mut s) as i64 % i32::MAX as i64) as f64 / i32::MAX as f64;
        assert_eq!((r * 100.0).floor() + 1.0, 40.0);
    }

    #[test]
    fn tobit_wraps_like_luabitop() {
        assert_eq!(tobit(4294967295.0), -1);
        assert_eq!(tobit(2147483648.0), i32::MIN);
        assert_eq!(tobit(-1.0), -1);
        assert_eq!(tobit(1.5), 2);
    }

    #[test]
    fn frexp_ldexp_round_trip() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(ldexp(0.5, 4), 8.0);
        assert_eq!(frexp(0.0), (0.0, 0));
    }
}
