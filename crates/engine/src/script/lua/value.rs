//! Lua values and tables: byte strings, doubles, tables with an array part and an insertion-ordered hash part (deterministic `pairs`), closures and native functions, the error that stops evaluation, and what a native function may ask of the interpreter ([`Vm`]).
//!
//! Natives see the interpreter only through [`Vm`], so the libraries and
//! the interpreter both stand on this module and not on each other.

use crate::ordmap::OrdMap;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use super::ast::{FuncProto, LStr};
use super::host::Host;

/// A shared, mutable table.
pub type TableRef = Rc<RefCell<Table>>;

/// A shared variable captured by closures (an upvalue).
pub type Cell = Rc<RefCell<Value>>;

/// A Lua value. Numbers are doubles, as in Lua 5.1.
#[derive(Clone, Debug, Default)]
pub enum Value {
    #[default]
    Nil,
    Bool(bool),
    Num(f64),
    Str(LStr),
    Table(TableRef),
    Func(Rc<Function>),
}

impl Value {
    /// A string value from bytes.
    pub fn str(s: impl AsRef<[u8]>) -> Value {
        Value::Str(s.as_ref().into())
    }

    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }

    /// Lua truth: everything but `nil` and `false`.
    pub fn truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }

    /// `type(v)`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "boolean",
            Value::Num(_) => "number",
            Value::Str(_) => "string",
            Value::Table(t) if t.borrow().userdata_null => "userdata",
            Value::Table(_) => "table",
            Value::Func(_) => "function",
        }
    }

    /// `lua_tonumber`: numbers, and strings that convert.
    pub fn to_num(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(*n),
            Value::Str(s) => super::number::str2d(s),
            _ => None,
        }
    }

    /// `lua_tolstring`: strings, and numbers as `%.14g`.
    pub fn to_str(&self) -> Option<LStr> {
        match self {
            Value::Str(s) => Some(s.clone()),
            Value::Num(n) => Some(super::number::fmt_num(*n).as_bytes().into()),
            _ => None,
        }
    }

    /// Raw equality (`rawequal`): by value for scalars and strings, by identity otherwise.
    pub fn raw_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Num(a), Value::Num(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Table(a), Value::Table(b)) => Rc::ptr_eq(a, b),
            (Value::Func(a), Value::Func(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// An identity for `tostring` of tables and functions (`table: 0x...`).
    pub fn addr(&self) -> usize {
        match self {
            Value::Table(t) => Rc::as_ptr(t) as *const u8 as usize,
            Value::Func(f) => Rc::as_ptr(f) as *const u8 as usize,
            _ => 0,
        }
    }
}

/// A function: a Lua closure or a native one.
pub enum Function {
    Lua {
        proto: Arc<FuncProto>,
        upvals: Vec<Cell>,
    },
    Native(Native),
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Function::Lua { .. } => write!(f, "function"),
            Function::Native(n) => write!(f, "builtin {}", n.name),
        }
    }
}

/// A native function's body: gets the interpreter and the arguments.
pub type NativeFn = fn(&mut dyn Vm, Vec<Value>, &Native) -> R<Vec<Value>>;

/// A native function, with state of its own for iterators (`gmatch`).
pub struct Native {
    pub name: &'static str,
    pub f: NativeFn,
    pub state: RefCell<Vec<Value>>,
}

impl Native {
    pub fn value(name: &'static str, f: NativeFn) -> Value {
        Value::Func(Rc::new(Function::Native(Native {
            name,
            f,
            state: RefCell::new(Vec::new()),
        })))
    }

    pub fn with_state(name: &'static str, f: NativeFn, state: Vec<Value>) -> Value {
        Value::Func(Rc::new(Function::Native(Native {
            name,
            f,
            state: RefCell::new(state),
        })))
    }
}

/// Why evaluation stopped early.
#[derive(Debug)]
pub enum LuaError {
    /// A Lua error with its value (a message string, or a table): `pcall` catches it.
    Value(Value),
    /// The step budget ran out. Nothing catches it: the script stops.
    Budget,
}

/// What evaluation and natives return.
pub type R<T> = Result<T, LuaError>;

/// What a native function may ask of the interpreter running it (the part
/// of the C API that Lua's and Redis' libraries use).
pub trait Vm {
    /// An error as `luaL_error` raises it: from Lua code or from a native
    /// called by Lua code, prefixed "user_script:LINE: "; from a native
    /// called by another native (`pcall(string.rep)`), bare.
    fn rt_error(&self, msg: &str) -> LuaError;
    /// An error as `luaG_runerror` raises it: positioned only when Lua
    /// code is running (`next`'s "invalid key", a comparison inside
    /// `table.sort`, a read-only table in `rawset` are bare).
    fn vm_error(&self, msg: &str) -> LuaError;
    /// `luaL_argerror`: "bad argument #n to 'name' (msg)", with the name
    /// the running native was called by.
    fn arg_error(&self, n: usize, msg: &str) -> LuaError;
    /// The position prefix `error(msg, level)` adds (`luaL_where`): level
    /// 1 is the function that called `error`, 2 its caller... Empty when
    /// that function is native, or is Redis calling the script.
    fn where_(&self, level: usize) -> String;
    /// Spends `n` steps of the budget.
    fn burn(&mut self, n: u64) -> R<()>;
    /// Calls any callable value with `args` (no call-site name in errors).
    fn call(&mut self, f: &Value, args: Vec<Value>) -> R<Vec<Value>>;
    /// `<` (or `<=` with `or_equal`) on numbers, strings, or by metamethod.
    fn less(&mut self, a: &Value, b: &Value, or_equal: bool) -> R<bool>;
    /// `t[k]` with `__index` (no variable name in errors).
    fn get_index(&mut self, obj: &Value, key: &Value) -> R<Value>;
    /// `tostring`: `__tostring` first, then Lua's spellings.
    fn tostring(&mut self, v: &Value) -> R<Vec<u8>>;
    /// The `string` table, which strings index (`s:upper()`).
    fn string_lib(&self) -> TableRef;
    /// The server.
    fn host(&mut self) -> &mut dyn Host;
}

/// The first of several values (`nil` if none).
#[inline]
pub fn first(v: Vec<Value>) -> Value {
    v.into_iter().next().unwrap_or_default()
}

/// `next` was given a key the table does not have.
#[derive(Debug, PartialEq, Eq)]
pub struct NotAKey;

/// A table key in the hash part. Tables and functions are keyed by identity;
/// the slot keeps the key value itself alive.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Key {
    Bool(bool),
    Num(u64),
    Str(LStr),
    Ptr(usize),
}

fn key_of(v: &Value) -> Option<Key> {
    Some(match v {
        Value::Nil => return None,
        Value::Bool(b) => Key::Bool(*b),
        Value::Num(n) if n.is_nan() => return None,
        // `-0` and `0` are the same key.
        Value::Num(n) => Key::Num((*n + 0.0).to_bits()),
        Value::Str(s) => Key::Str(s.clone()),
        Value::Table(_) | Value::Func(_) => Key::Ptr(v.addr()),
    })
}

/// The integer `n` is, if it is one in 1..=2^53.
fn array_index(n: f64) -> Option<usize> {
    ((1.0..=9_007_199_254_740_992.0).contains(&n) && n.fract() == 0.0).then_some(n as usize)
}

/// A Lua table. Keys 1..n live in `arr`; the rest in insertion-ordered
/// slots, so `next`/`pairs` order depends only on the script (real Lua's
/// order depends on its hash layout and can differ).
#[derive(Default)]
pub struct Table {
    pub arr: Vec<Value>,
    /// Key to slot index (ordered: no hashing, so nothing varies between runs).
    map: OrdMap<Key, usize>,
    slots: Vec<(Value, Value)>,
    dead: usize,
    pub meta: Option<TableRef>,
    /// Redis' read-only tables (globals and libraries).
    pub readonly: bool,
    /// This is `cjson.null` (a NULL light userdata in Redis): `type` says
    /// "userdata", replies turn it into nil.
    pub userdata_null: bool,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "table({} + {})", self.arr.len(), self.slots.len())
    }
}

impl Table {
    pub fn new() -> Table {
        Table::default()
    }

    /// A new table as a value.
    pub fn value(t: Table) -> Value {
        Value::Table(Rc::new(RefCell::new(t)))
    }

    /// A table holding `items` at 1..n.
    pub fn from_array(items: Vec<Value>) -> Table {
        Table {
            arr: items,
            ..Table::default()
        }
    }

    /// A constructor's positional items (`OP_SETLIST`): they take keys
    /// 1..n, nils included, sizing the array part as Lua does (so `#` of
    /// `{1, nil, 3}` is 3).
    pub fn set_list(&mut self, items: Vec<Value>) {
        for (i, v) in items.into_iter().enumerate() {
            if i < self.arr.len() {
                self.arr[i] = v;
            } else {
                self.remove_key(&Key::Num(((i + 1) as f64).to_bits()));
                self.arr.push(v);
            }
        }
        self.migrate();
    }

    /// `rawget`.
    pub fn get(&self, k: &Value) -> Value {
        if let Value::Num(n) = k {
            if let Some(i) = array_index(*n) {
                if i <= self.arr.len() {
                    return self.arr[i - 1].clone();
                }
            }
        }
        match key_of(k).and_then(|k| self.map.get(&k)) {
            Some(&i) => self.slots[i].1.clone(),
            None => Value::Nil,
        }
    }

    /// `rawgeti`.
    pub fn get_int(&self, i: usize) -> Value {
        if i >= 1 && i <= self.arr.len() {
            return self.arr[i - 1].clone();
        }
        self.get(&Value::Num(i as f64))
    }

    /// `rawget` with a string key.
    pub fn get_str(&self, k: &str) -> Value {
        match self.map.get(&Key::Str(k.as_bytes().into())) {
            Some(&i) => self.slots[i].1.clone(),
            None => Value::Nil,
        }
    }

    /// `rawset`; errors are Lua's messages for bad keys.
    pub fn set(&mut self, k: Value, v: Value) -> Result<(), &'static str> {
        if let Value::Num(n) = k {
            if n.is_nan() {
                return Err("table index is NaN");
            }
            if let Some(i) = array_index(n) {
                if i <= self.arr.len() {
                    self.arr[i - 1] = v;
                    return Ok(());
                }
                if i == self.arr.len() + 1 && !v.is_nil() {
                    self.remove_key(&Key::Num(n.to_bits()));
                    self.arr.push(v);
                    self.migrate();
                    return Ok(());
                }
            }
        }
        let Some(key) = key_of(&k) else {
            return Err("table index is nil");
        };
        match self.map.get(&key) {
            Some(&i) => {
                let was_dead = self.slots[i].1.is_nil();
                match (was_dead, v.is_nil()) {
                    (false, true) => self.dead += 1,
                    (true, false) => self.dead -= 1,
                    _ => {}
                }
                self.slots[i].1 = v;
            }
            None if v.is_nil() => {}
            None => {
                if self.dead > 8 && self.dead * 2 > self.slots.len() {
                    self.compact();
                }
                self.map.insert(key, self.slots.len());
                self.slots.push((k, v));
            }
        }
        Ok(())
    }

    /// `rawseti`.
    pub fn set_int(&mut self, i: usize, v: Value) {
        let _ = self.set(Value::Num(i as f64), v);
    }

    /// Sets a string key (library setup).
    pub fn set_str(&mut self, k: &str, v: Value) {
        let _ = self.set(Value::str(k), v);
    }

    fn remove_key(&mut self, key: &Key) {
        if let Some(&i) = self.map.get(key) {
            if !self.slots[i].1.is_nil() {
                self.slots[i].1 = Value::Nil;
                self.dead += 1;
            }
        }
    }

    /// Moves keys n+1, n+2... from the hash part to the array part.
    fn migrate(&mut self) {
        loop {
            let key = Key::Num(((self.arr.len() + 1) as f64).to_bits());
            let Some(&i) = self.map.get(&key) else {
                return;
            };
            if self.slots[i].1.is_nil() {
                return;
            }
            let v = std::mem::take(&mut self.slots[i].1);
            self.dead += 1;
            self.arr.push(v);
        }
    }

    /// Drops removed slots (only when a new key comes in: traversals stay valid).
    fn compact(&mut self) {
        let slots = std::mem::take(&mut self.slots);
        self.map.clear();
        for (k, v) in slots {
            if v.is_nil() {
                continue;
            }
            if let Some(key) = key_of(&k) {
                self.map.insert(key, self.slots.len());
                self.slots.push((k, v));
            }
        }
        self.dead = 0;
    }

    /// `#t` as `luaH_getn` finds a border: binary search in the array part
    /// when it ends with nil, else an unbounded search past it.
    pub fn border(&self) -> usize {
        let n = self.arr.len();
        if n > 0 && self.arr[n - 1].is_nil() {
            let (mut i, mut j) = (0usize, n);
            while j - i > 1 {
                let m = (i + j) / 2;
                if self.arr[m - 1].is_nil() {
                    j = m;
                } else {
                    i = m;
                }
            }
            return i;
        }
        if self.slots.len() == self.dead {
            return n;
        }
        let (mut i, mut j) = (n, n + 1);
        while !self.get_int(j).is_nil() {
            i = j;
            match j.checked_mul(2) {
                Some(v) if (v as u64) <= 1 << 52 => j = v,
                _ => {
                    let mut k = 1;
                    while !self.get_int(k).is_nil() {
                        k += 1;
                    }
                    return k - 1;
                }
            }
        }
        while j - i > 1 {
            let m = (i + j) / 2;
            if self.get_int(m).is_nil() {
                j = m;
            } else {
                i = m;
            }
        }
        i
    }

    /// `next(t, k)`: the entry after `k` (`None` at the end); `Err` if `k`
    /// is not a key of the table.
    pub fn next(&self, k: &Value) -> Result<Option<(Value, Value)>, NotAKey> {
        let mut pos = match k {
            Value::Nil => 0,
            Value::Num(n) if array_index(*n).is_some_and(|i| i <= self.arr.len()) => {
                array_index(*n).unwrap_or(0)
            }
            _ => match key_of(k).and_then(|key| self.map.get(&key)) {
                Some(&i) => self.arr.len() + i + 1,
                None => return Err(NotAKey),
            },
        };
        while pos < self.arr.len() {
            if !self.arr[pos].is_nil() {
                return Ok(Some((Value::Num((pos + 1) as f64), self.arr[pos].clone())));
            }
            pos += 1;
        }
        let mut s = pos - self.arr.len();
        while s < self.slots.len() {
            let (k, v) = &self.slots[s];
            if !v.is_nil() {
                return Ok(Some((k.clone(), v.clone())));
            }
            s += 1;
        }
        Ok(None)
    }

    /// Entries in `next` order.
    pub fn entries(&self) -> Vec<(Value, Value)> {
        let mut out = Vec::new();
        for (i, v) in self.arr.iter().enumerate() {
            if !v.is_nil() {
                out.push((Value::Num((i + 1) as f64), v.clone()));
            }
        }
        for (k, v) in &self.slots {
            if !v.is_nil() {
                out.push((k.clone(), v.clone()));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_part_grows_and_borders() {
        let mut t = Table::new();
        t.set(Value::Num(2.0), Value::Num(20.0)).unwrap();
        assert_eq!(t.arr.len(), 0);
        t.set(Value::Num(1.0), Value::Num(10.0)).unwrap();
        assert_eq!(t.arr.len(), 2, "key 2 migrates once 1 is set");
        assert_eq!(t.border(), 2);
        // `{1, 2, nil, 4}` keeps its hole in the array part: # is 4.
        let t = Table::from_array(vec![
            Value::Num(1.0),
            Value::Num(2.0),
            Value::Nil,
            Value::Num(4.0),
        ]);
        assert_eq!(t.border(), 4);
        let t = Table::from_array(vec![Value::Num(1.0), Value::Nil]);
        assert_eq!(t.border(), 1);
    }

    #[test]
    fn next_walks_array_then_insertion_order() {
        let mut t = Table::new();
        t.set(Value::str("b"), Value::Num(1.0)).unwrap();
        t.set(Value::Num(1.0), Value::Num(2.0)).unwrap();
        t.set(Value::str("a"), Value::Num(3.0)).unwrap();
        t.set(Value::str("b"), Value::Nil).unwrap();
        let keys: Vec<String> = t
            .entries()
            .iter()
            .map(|(k, _)| String::from_utf8_lossy(&k.to_str().unwrap()).into_owned())
            .collect();
        assert_eq!(keys, ["1", "a"]);
        assert!(t.next(&Value::str("zz")).is_err());
        assert_eq!(t.set(Value::Nil, Value::Nil), Err("table index is nil"));
        assert_eq!(
            t.set(Value::Num(f64::NAN), Value::Nil),
            Err("table index is NaN")
        );
    }
}
