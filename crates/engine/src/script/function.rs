//! Redis 7 functions (function_lua.c, functions.c): libraries loaded with `#!lua name=<lib>`, functions registered by `redis.register_function`, run by FCALL with (keys, args).
//!
//! # How a library runs here
//!
//! Redis keeps one Lua state: a library's code runs once at FUNCTION LOAD
//! and its registered closures live on. This interpreter's values live for
//! one run, so a library is kept as its compiled code, and every FCALL runs
//! that code again (registering its functions, with the load-time API) and
//! then calls the function (with the runtime API), both in one
//! interpreter. What a library can observe is the same, with one
//! difference: state a library keeps in upvalues between calls starts
//! afresh on every call here (Redis keeps it until the library is
//! reloaded).
//!
//! The globals are Redis': one read-only table whose metatable's `__index`
//! is the load-time API (only `redis`, with `register_function`, `log`,
//! the `LOG_*` levels and the version) while the library code runs, and the
//! scripting API (without KEYS, ARGV or `register_function`) while a
//! function runs.

use crate::ordmap::OrdMap;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use super::lua::ast::FuncProto;
use super::lua::interp::Interp;
use super::lua::parse;
use super::lua::value::{LuaError, Native, Table, TableRef, Value, Vm, R};
use super::{env, Flags, Host};
use crate::proto::resp::Frame;

/// `LOAD_TIMEOUT_MS`: a library's code must finish registering within
/// 500 ms; here, within that many milliseconds' worth of steps.
pub const LOAD_TIMEOUT_MS: i64 = 500;

/// The flags a function may declare, in `scripts_flags_def`'s order (FUNCTION LIST shows them so).
pub const FLAG_NAMES: [&str; 5] = [
    "no-writes",
    "allow-oom",
    "allow-stale",
    "no-cluster",
    "allow-cross-slot-keys",
];

/// One registered function.
#[derive(Clone, Debug)]
pub struct FunctionInfo {
    pub name: String,
    pub description: Option<Vec<u8>>,
    pub flags: Flags,
}

/// One library: its whole code (shebang included, as FUNCTION LIST
/// WITHCODE and DUMP give it back) and what it registered.
#[derive(Clone, Debug)]
pub struct Library {
    pub name: String,
    pub code: Vec<u8>,
    proto: Arc<FuncProto>,
    pub functions: Vec<FunctionInfo>,
}

/// Every loaded library (`functionsLibCtx`), with the function index.
/// Both are keyed by lower-cased name: Redis' dicts of libraries and
/// functions compare names without case (FCALL TEST finds `test`).
#[derive(Clone, Debug, Default)]
pub struct Libraries {
    libs: OrdMap<String, Library>,
    /// Function key to library key.
    funcs: OrdMap<String, String>,
}

/// The key a name is stored under.
fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

impl Libraries {
    pub fn libraries(&self) -> impl Iterator<Item = &Library> {
        self.libs.values()
    }

    pub fn function_count(&self) -> usize {
        self.funcs.len()
    }

    pub fn library_count(&self) -> usize {
        self.libs.len()
    }

    /// The function called `name` (any case) and its library.
    pub fn find(&self, name: &[u8]) -> Option<(&Library, &FunctionInfo)> {
        let name = key(std::str::from_utf8(name).ok()?);
        let lib = self.libs.get(self.funcs.get(&name)?)?;
        let f = lib.functions.iter().find(|f| key(&f.name) == name)?;
        Some((lib, f))
    }

    pub fn flush(&mut self) {
        self.libs.clear();
        self.funcs.clear();
    }

    /// FUNCTION DELETE.
    pub fn delete(&mut self, name: &[u8]) -> bool {
        let Some(lib) = std::str::from_utf8(name)
            .ok()
            .and_then(|n| self.libs.remove(&key(n)))
        else {
            return false;
        };
        for f in &lib.functions {
            self.funcs.remove(&key(&f.name));
        }
        true
    }

    /// `functionsCreateWithLibraryCtx`: compiles and runs `code`, then adds
    /// the library (replacing one of the same name if `replace`). Errors
    /// are the message after `ERR `.
    pub fn load(
        &mut self,
        code: &[u8],
        replace: bool,
        host: &mut dyn Host,
        fuel: u64,
    ) -> Result<String, String> {
        let lib = compile_library(code, host, fuel)?;
        if self.libs.contains_key(&key(&lib.name)) && !replace {
            return Err(format!("Library '{}' already exists", lib.name));
        }
        let name = lib.name.clone();
        self.join_one(lib)?;
        Ok(name)
    }

    /// Links `lib` in place of a library of the same name; a function
    /// name another library keeps is an error, and nothing changes.
    fn join_one(&mut self, lib: Library) -> Result<(), String> {
        let old = self.libs.get(&key(&lib.name)).cloned();
        if let Some(old) = &old {
            self.delete(old.name.as_bytes());
        }
        let taken = lib
            .functions
            .iter()
            .find(|f| self.funcs.contains_key(&key(&f.name)));
        if let Some(f) = taken {
            let err = format!("Function {} already exists", f.name);
            if let Some(old) = old {
                self.link(old);
            }
            return Err(err);
        }
        self.link(lib);
        Ok(())
    }

    fn link(&mut self, lib: Library) {
        for f in &lib.functions {
            self.funcs.insert(key(&f.name), key(&lib.name));
        }
        self.libs.insert(key(&lib.name), lib);
    }

    /// `libraryJoin`: adds every library of `other`. A library of the same
    /// name is an error, or with `replace` goes; a function name another
    /// library keeps is always an error. On an error nothing changes.
    pub fn join(&mut self, other: Libraries, replace: bool) -> Result<(), String> {
        let saved = self.clone();
        let result = other.libs.into_values().try_for_each(|lib| {
            if !replace && self.libs.contains_key(&key(&lib.name)) {
                return Err(format!("Library {} already exists", lib.name));
            }
            self.join_one(lib)
        });
        if result.is_err() {
            *self = saved;
        }
        result
    }
}

/// `functionsVerifyName`: letters, digits and underscores, at least one.
fn valid_name(name: &[u8]) -> bool {
    !name.is_empty() && name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

const BAD_NAME: &str = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

/// A library's shebang: its engine and name, and the code after it.
struct Metadata<'a> {
    engine: Vec<u8>,
    name: Vec<u8>,
    body: &'a [u8],
}

/// `functionExtractLibMetaData`: the engine and library name of the
/// shebang, and the code after it (its newline kept, so lines count from 1).
fn metadata(code: &[u8]) -> Result<Metadata<'_>, String> {
    if !code.starts_with(b"#!") {
        return Err("Missing library metadata".into());
    }
    let Some(end) = code.iter().position(|&b| b == b'\n') else {
        return Err("Invalid library metadata".into());
    };
    let parts = crate::proto::resp::split_args(&code[..end]).unwrap_or_default();
    let Some(first) = parts.first() else {
        return Err("Invalid library metadata".into());
    };
    let engine = first[2..].to_vec();
    let mut name: Option<Vec<u8>> = None;
    for part in &parts[1..] {
        if part.len() >= 5 && part[..5].eq_ignore_ascii_case(b"name=") {
            if name.is_some() {
                return Err(
                    "Invalid metadata value, name argument was given multiple times".into(),
                );
            }
            name = Some(part[5..].to_vec());
            continue;
        }
        return Err(format!(
            "Invalid metadata value given: {}",
            String::from_utf8_lossy(part)
        ));
    }
    let name = name.ok_or("Library name was not given")?;
    Ok(Metadata {
        engine,
        name,
        body: &code[end..],
    })
}

/// Compiles a library and runs its code to collect its functions.
fn compile_library(code: &[u8], host: &mut dyn Host, fuel: u64) -> Result<Library, String> {
    let Metadata { engine, name, body } = metadata(code)?;
    if !valid_name(&name) {
        return Err(BAD_NAME.into());
    }
    if !engine.eq_ignore_ascii_case(b"lua") {
        return Err(format!(
            "Engine '{}' not found",
            String::from_utf8_lossy(&engine)
        ));
    }
    let proto = parse::parse_chunk_named(body, CHUNK)
        .map_err(|e| format!("Error compiling function: {e}"))?;
    let name = String::from_utf8_lossy(&name).into_owned();
    let mut lib = Library {
        name,
        code: code.to_vec(),
        proto,
        functions: Vec::new(),
    };
    let run = Run::new();
    let (globals, string_lib) = run.globals();
    let mut it = Interp::new(host, fuel, globals, string_lib);
    it.set_chunk(CHUNK);
    match it.run_main(&lib.proto) {
        Ok(_) => {}
        Err(LuaError::Budget) => {
            return Err("Error registering functions: ERR FUNCTION LOAD timeout".into())
        }
        Err(LuaError::Value(v)) => {
            let msg = error_message(&mut it, &v);
            return Err(format!("Error registering functions: {msg}"));
        }
    }
    lib.functions = run.registered();
    if lib.functions.is_empty() {
        return Err("No functions registered".into());
    }
    Ok(lib)
}

/// The chunk name Redis loads libraries under.
const CHUNK: &str = "user_function";

/// The text of a Lua error value: a table's `err` field, or `ERR ` and the
/// value as a string (the error handler's rule).
fn error_message(it: &mut Interp, v: &Value) -> String {
    match v {
        Value::Table(t) => {
            let e = t.borrow().get_str("err");
            String::from_utf8_lossy(&e.to_str().unwrap_or_default()).into_owned()
        }
        other => format!(
            "ERR {}",
            String::from_utf8_lossy(&it.tostring(other).unwrap_or_default())
        ),
    }
}

/// One interpreter's worth of a library: its globals and the record
/// `register_function` fills while the code runs.
struct Run {
    /// What the library registered: a table of `{name, callback, flags, description}` records.
    record: TableRef,
    /// The globals' metatable, whose `__index` is switched from the load
    /// API to the runtime API.
    meta: TableRef,
    globals: TableRef,
    string_lib: TableRef,
    runtime: TableRef,
}

impl Run {
    fn new() -> Run {
        let (runtime, string_lib) = env::globals_without_keys();
        let record = Rc::new(RefCell::new(Table::new()));
        record.borrow_mut().set_str("loading", Value::Bool(true));
        let mut redis = Table::new();
        redis.set_str(
            "register_function",
            Native::with_state(
                "register_function",
                register_function,
                vec![Value::Table(record.clone())],
            ),
        );
        for (k, v) in super::api::library().entries() {
            let keep = matches!(&k, Value::Str(s) if s.as_ref() == b"log"
                || s.starts_with(b"LOG_")
                || s.starts_with(b"REDIS_VERSION"));
            if keep {
                let _ = redis.set(k, v);
            }
        }
        env::set_error_meta(&mut redis);
        let mut load_api = Table::new();
        load_api.set_str("redis", Table::value(redis));
        env::set_error_meta(&mut load_api);
        let load_api = env::protected(load_api);
        let mut meta = Table::new();
        meta.set_str("__index", Value::Table(load_api));
        let meta = Rc::new(RefCell::new(meta));
        let mut g = Table::new();
        g.meta = Some(meta.clone());
        g.readonly = true;
        meta.borrow_mut().readonly = true;
        Run {
            record,
            meta,
            globals: Rc::new(RefCell::new(g)),
            string_lib,
            runtime,
        }
    }

    fn globals(&self) -> (TableRef, TableRef) {
        (self.globals.clone(), self.string_lib.clone())
    }

    /// Ends the load phase: later `register_function` calls fail, and
    /// globals resolve to the scripting API.
    fn to_runtime(&self) {
        self.record
            .borrow_mut()
            .set_str("loading", Value::Bool(false));
        let mut m = self.meta.borrow_mut();
        m.readonly = false;
        m.set_str("__index", Value::Table(self.runtime.clone()));
        m.readonly = true;
    }

    /// The functions registered, in order.
    fn registered(&self) -> Vec<FunctionInfo> {
        self.records().into_iter().map(|(info, _)| info).collect()
    }

    fn records(&self) -> Vec<(FunctionInfo, Value)> {
        let rec = self.record.borrow();
        let n = rec.border();
        (1..=n)
            .filter_map(|i| {
                let Value::Table(t) = rec.get_int(i) else {
                    return None;
                };
                let t = t.borrow();
                let name = t.get_str("name").to_str()?;
                let flags = t.get_str("flags").to_num().unwrap_or(0.0) as u32;
                let description = t.get_str("description").to_str().map(|d| d.to_vec());
                Some((
                    FunctionInfo {
                        name: String::from_utf8_lossy(&name).into_owned(),
                        description,
                        flags: flags_from_bits(flags),
                    },
                    t.get_str("callback"),
                ))
            })
            .collect()
    }
}

fn flags_from_bits(bits: u32) -> Flags {
    Flags {
        compat: false,
        no_writes: bits & 1 != 0,
        allow_oom: bits & 2 != 0,
        allow_stale: bits & 4 != 0,
        no_cluster: bits & 8 != 0,
        allow_cross_slot: bits & 16 != 0,
    }
}

/// The flag names a function declared, in FUNCTION LIST's order.
pub fn flag_names(f: &Flags) -> Vec<&'static str> {
    let set = [
        f.no_writes,
        f.allow_oom,
        f.allow_stale,
        f.no_cluster,
        f.allow_cross_slot,
    ];
    FLAG_NAMES
        .iter()
        .zip(set)
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect()
}

/// `luaRegisterFunction`, positional `(name, callback)` or named
/// `{function_name=, callback=, flags=, description=}` arguments.
fn register_function(_: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    let record = match me.state.borrow().first() {
        Some(Value::Table(t)) => t.clone(),
        _ => return Ok(Vec::new()),
    };
    let fail = |msg: &str| -> LuaError {
        let mut t = Table::new();
        t.set_str("err", Value::str(format!("ERR {msg}")));
        LuaError::Value(Table::value(t))
    };
    if !record.borrow().get_str("loading").truthy() {
        return Err(fail(
            "redis.register_function can only be called on FUNCTION LOAD command",
        ));
    }
    let (name, callback, flags, description) = match args.len() {
        1 => named_args(&args[0]).map_err(fail)?,
        2 => {
            let Some(name) = string_arg(&args[0]) else {
                return Err(fail(
                    "first argument to redis.register_function must be a string",
                ));
            };
            if !matches!(args[1], Value::Func(_)) {
                return Err(fail(
                    "second argument to redis.register_function must be a function",
                ));
            }
            (name, args[1].clone(), 0, None)
        }
        _ => return Err(fail("wrong number of arguments to redis.register_function")),
    };
    if !valid_name(&name) {
        return Err(fail(BAD_NAME));
    }
    let mut rec = record.borrow_mut();
    let n = rec.border();
    for i in 1..=n {
        if let Value::Table(t) = rec.get_int(i) {
            if t.borrow().get_str("name").to_str().as_deref() == Some(&name[..]) {
                drop(rec);
                return Err(fail("Function already exists in the library"));
            }
        }
    }
    let mut entry = Table::new();
    entry.set_str("name", Value::str(&name));
    entry.set_str("callback", callback);
    entry.set_str("flags", Value::Num(flags as f64));
    if let Some(d) = description {
        entry.set_str("description", Value::str(d));
    }
    rec.set_int(n + 1, Table::value(entry));
    Ok(Vec::new())
}

/// A string argument (numbers convert, as `lua_isstring` allows).
fn string_arg(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Str(_) | Value::Num(_) => v.to_str().map(|s| s.to_vec()),
        _ => None,
    }
}

type Named = (Vec<u8>, Value, u32, Option<Vec<u8>>);

/// `luaRegisterFunctionReadNamedArgs`.
fn named_args(arg: &Value) -> Result<Named, &'static str> {
    let Value::Table(t) = arg else {
        return Err("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
    };
    let (mut name, mut callback, mut flags, mut desc) = (None, None, 0u32, None);
    for (k, v) in t.borrow().entries() {
        let Some(key) = string_arg(&k) else {
            return Err("named argument key given to redis.register_function is not a string");
        };
        match key.to_ascii_lowercase().as_slice() {
            b"function_name" => {
                name = Some(string_arg(&v).ok_or(
                    "function_name argument given to redis.register_function must be a string",
                )?)
            }
            b"description" => {
                desc = Some(string_arg(&v).ok_or(
                    "description argument given to redis.register_function must be a string",
                )?)
            }
            b"callback" => {
                if !matches!(v, Value::Func(_)) {
                    return Err(
                        "callback argument given to redis.register_function must be a function",
                    );
                }
                callback = Some(v.clone());
            }
            b"flags" => {
                let Value::Table(ft) = &v else {
                    return Err("flags argument to redis.register_function must be a table representing function flags");
                };
                flags = read_flags(&ft.borrow()).ok_or("unknown flag given")?;
            }
            _ => return Err("unknown argument given to redis.register_function"),
        }
    }
    let name = name.ok_or("redis.register_function must get a function name argument")?;
    let callback = callback.ok_or("redis.register_function must get a callback argument")?;
    Ok((name, callback, flags, desc))
}

/// `luaRegisterFunctionReadFlags`: the array part, each a known flag (any case).
fn read_flags(t: &Table) -> Option<u32> {
    let mut bits = 0;
    let mut i = 1;
    loop {
        let v = t.get_int(i);
        if v.is_nil() {
            return Some(bits);
        }
        let s = string_arg(&v)?;
        let pos = FLAG_NAMES
            .iter()
            .position(|f| f.as_bytes().eq_ignore_ascii_case(&s))?;
        bits |= 1 << pos;
        i += 1;
    }
}

/// FCALL: runs the library's code again, then the function with `keys`
/// and `args` as its two table arguments; the reply as a script's.
pub fn call(
    lib: &Library,
    function: &str,
    host: &mut dyn Host,
    keys: &[Vec<u8>],
    args: &[Vec<u8>],
    fuel: u64,
) -> super::busy::Ran {
    let run = Run::new();
    let (globals, string_lib) = run.globals();
    let mut it = Interp::new(host, fuel, globals, string_lib);
    it.set_chunk(CHUNK);
    let not_found = |it: &Interp| super::busy::Ran {
        reply: Frame::err("ERR Function not found"),
        steps: fuel - it.fuel_left(),
        endless: false,
        line: it.line,
        chunk: CHUNK,
    };
    if it.run_main(&lib.proto).is_err() {
        return not_found(&it);
    }
    let Some(callback) = run
        .records()
        .into_iter()
        .find(|(f, _)| f.name.eq_ignore_ascii_case(function))
        .map(|(_, cb)| cb)
    else {
        return not_found(&it);
    };
    run.to_runtime();
    let array =
        |items: &[Vec<u8>]| Table::value(Table::from_array(items.iter().map(Value::str).collect()));
    let result = it.call(&callback, vec![array(keys), array(args)]);
    super::finish(&mut it, result, function, CHUNK, fuel)
}
