//! Lua scripting as Redis 7.2 runs it (EVAL): the script cache, shebang flags, and running a script to its reply, by the rules of script_lua.c, eval.c and script.c. The Lua 5.1 interpreter itself is [`lua`]; the commands are in `cmd::script`, which implements [`Host`].
//!
//! # What a script author can notice
//!
//! Same as Redis 7.2: KEYS/ARGV, `redis.call`/`pcall`/`error_reply`/
//! `status_reply`/`sha1hex`/`log`/`setresp`/`set_repl`/`acl_check_cmd`,
//! the conversion rules both ways (RESP3 included), read-only globals and
//! libraries, error replies (`... script: <sha>, on @user_script:<line>.`),
//! Lua 5.1 semantics and runtime error messages, `string` (patterns,
//! `format`), `table`, `math` (Redis' `random`), `bit`, `cjson` (with its
//! settings functions), `cmsgpack`.
//!
//! Different:
//! - `pairs`/`next` visit the array part in order, then other keys in
//!   insertion order; real Lua's order follows its hash layout. `#t` on a
//!   table with holes can differ for the same reason (constructors match).
//! - Not available: `struct`, `coroutine.*` (the table exists but is
//!   empty), `getfenv`/`setfenv`, `cjson.new`. `string.dump` gives only a
//!   binary chunk's header (there is no bytecode); as in Redis 7.2,
//!   `loadstring` refuses binary chunks, so nothing can tell. cjson's
//!   settings last for one run (Redis keeps them until SCRIPT FLUSH).
//!   `loadstring` compiles with the chunk name `user_script`.
//! - `cjson.null` is a special empty table that calls itself `userdata`
//!   (type, tostring, replies and encoding behave as Redis' NULL userdata).
//! - A table nested more than 200 deep in a reply gives "reached lua stack
//!   limit" where Redis goes about 2000 deep.
//! - Lua calls nest at most [`lua::interp::MAX_DEPTH`] deep (real Lua allows
//!   about 16000; tail calls are not eliminated): deeper recursion fails
//!   with "stack overflow". Patterns recurse at most 200 levels
//!   ("pattern too complex").
//! - Scripts cost virtual time by steps (statements, loop iterations,
//!   calls, and bytes built by string functions): see [`STEPS_PER_MS`].
//!   One past `busy-reply-threshold` makes the server busy for the others
//!   as in Redis ([`busy`]). A script still running 5 s of virtual time
//!   past the threshold is taken to never end: busy until SCRIPT KILL, or,
//!   where its caller cannot wait (inside EXEC), stopped with a `BUSY`
//!   error, its writes so far kept.
//! - `tostring` of tables and functions shows per-run identities, not
//!   heap addresses. Math functions use Rust's, which can differ from
//!   glibc's in the last bit.
//! - `redis.log` checks its arguments and writes nothing.

pub mod api;
pub mod busy;
pub mod convert;
pub mod env;
pub mod function;
pub mod lua;

use crate::ordmap::OrdMap;
use std::sync::Arc;

pub use lua::host::Host;

use crate::proto::resp::Frame;
use api::sha1hex;
use lua::ast::FuncProto;
use lua::interp::Interp;
use lua::parse;
use lua::value::{first, LuaError, Value, Vm};

/// Steps a script may take per millisecond of `busy-reply-threshold`
/// (`lua-time-limit`): the default 5000 ms allows 10 million steps, about
/// half a second of this interpreter natively (a few times that in a
/// browser), far more than real scripts take. A threshold of 0 (no limit
/// in Redis) gets the default budget: a script here must always end.
pub const STEPS_PER_MS: u64 = 2_000;

/// The step budget for a `busy-reply-threshold` in milliseconds.
pub fn budget_for(threshold_ms: i64) -> u64 {
    let ms = if threshold_ms <= 0 {
        5000
    } else {
        threshold_ms as u64
    };
    ms.saturating_mul(STEPS_PER_MS)
}

/// Flags a script declares in a `#!lua flags=...` shebang.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// No shebang: Redis 6 compatible (`SCRIPT_FLAG_EVAL_COMPAT_MODE`).
    pub compat: bool,
    pub no_writes: bool,
    pub allow_oom: bool,
    pub allow_stale: bool,
    pub no_cluster: bool,
    pub allow_cross_slot: bool,
}

/// A cached script: its compiled code and shebang flags (the body is only
/// hashed: effects replication never resends it).
#[derive(Debug)]
pub struct Script {
    pub proto: Arc<FuncProto>,
    pub flags: Flags,
}

/// The script cache and the state Lua keeps between scripts.
#[derive(Debug)]
pub struct Scripts {
    cache: OrdMap<String, Arc<Script>>,
    /// `redisLrand48`'s state: one sequence for the server's lifetime.
    pub rand48: u64,
    /// FUNCTION's libraries (SCRIPT FLUSH leaves them).
    pub functions: function::Libraries,
    /// The script past `busy-reply-threshold`, while others get BUSY.
    pub busy: Option<busy::Busy>,
    /// How long past the threshold a script may run ([`busy::HORIZON_MS`];
    /// tests lower it to keep endless scripts cheap).
    pub horizon_ms: u64,
}

impl Default for Scripts {
    fn default() -> Self {
        Scripts {
            cache: OrdMap::new(),
            rand48: lua::mathlib::RAND48_INIT,
            functions: Default::default(),
            busy: None,
            horizon_ms: busy::HORIZON_MS,
        }
    }
}

impl Scripts {
    /// The script whose SHA1 is `sha` (any case).
    pub fn get(&self, sha: &[u8]) -> Option<Arc<Script>> {
        let key = std::str::from_utf8(sha).ok()?.to_ascii_lowercase();
        self.cache.get(&key).cloned()
    }

    /// `luaCreateFunction`: compiles and caches `body` (a cached body is
    /// not compiled again); the error is the reply Redis gives.
    pub fn create(&mut self, body: &[u8]) -> Result<(String, Arc<Script>), Frame> {
        let sha = sha1hex(body);
        if let Some(s) = self.cache.get(&sha) {
            return Ok((sha, s.clone()));
        }
        let script = Arc::new(compile(body)?);
        self.cache.insert(sha.clone(), script.clone());
        Ok((sha, script))
    }

    /// How many scripts are cached (INFO's `number_of_cached_scripts`).
    pub fn cached(&self) -> usize {
        self.cache.len()
    }

    /// SCRIPT FLUSH.
    pub fn flush(&mut self) {
        self.cache.clear();
    }
}

/// `evalExtractShebangFlags`: the flags of a `#!lua` first line, and its
/// length (the line is skipped but its newline kept, so lines still count
/// from 1).
pub fn shebang(body: &[u8]) -> Result<(Flags, usize), String> {
    if !body.starts_with(b"#!") {
        return Ok((
            Flags {
                compat: true,
                ..Flags::default()
            },
            0,
        ));
    }
    let Some(end) = body.iter().position(|&b| b == b'\n') else {
        return Err("Invalid script shebang".into());
    };
    let parts = crate::proto::resp::split_args(&body[..end]).unwrap_or_default();
    let Some(engine) = parts.first() else {
        return Err("Invalid engine in script shebang".into());
    };
    if engine.as_slice() != b"#!lua" {
        return Err(format!(
            "Unexpected engine in script shebang: {}",
            String::from_utf8_lossy(engine)
        ));
    }
    let mut flags = Flags::default();
    for part in &parts[1..] {
        let Some(list) = part.strip_prefix(b"flags=") else {
            return Err(format!(
                "Unknown lua shebang option: {}",
                String::from_utf8_lossy(part)
            ));
        };
        // `sdssplitlen` of an empty string has no parts: `flags=` sets none.
        for f in list.split(|&b| b == b',').filter(|_| !list.is_empty()) {
            match f {
                b"no-writes" => flags.no_writes = true,
                b"allow-oom" => flags.allow_oom = true,
                b"allow-stale" => flags.allow_stale = true,
                b"no-cluster" => flags.no_cluster = true,
                b"allow-cross-slot-keys" => flags.allow_cross_slot = true,
                other => {
                    return Err(format!(
                        "Unexpected flag in script shebang: {}",
                        String::from_utf8_lossy(other)
                    ))
                }
            }
        }
    }
    Ok((flags, end))
}

/// Compiles a script body (shebang included); errors are Redis' replies.
pub fn compile(body: &[u8]) -> Result<Script, Frame> {
    let (flags, skip) = shebang(body).map_err(|e| Frame::err(format!("ERR {e}")))?;
    let proto = parse::parse_chunk(&body[skip..])
        .map_err(|e| Frame::err(format!("ERR Error compiling script (new function): {e}")))?;
    Ok(Script { proto, flags })
}

/// Runs a compiled script with its KEYS and ARGV and converts the outcome
/// to the reply (`luaCallFunction`). `fuel` is the step budget.
pub fn run(
    script: &Script,
    sha: &str,
    host: &mut dyn Host,
    keys: &[Vec<u8>],
    argv: &[Vec<u8>],
    fuel: u64,
) -> busy::Ran {
    let (globals, string_lib) = env::globals(keys, argv);
    let mut it = Interp::new(host, fuel, globals, string_lib);
    let result = it.run_main(&script.proto);
    finish(&mut it, result, sha, "user_script", fuel)
}

/// A run's outcome (`luaCallFunction`): the reply, the value converted or
/// the error with where it happened, and the steps it took; `name` is the
/// script's SHA1 or the function's name, `chunk` `user_script` or `user_function`.
pub(crate) fn finish(
    it: &mut Interp,
    result: Result<Vec<Value>, LuaError>,
    name: &str,
    chunk: &'static str,
    fuel: u64,
) -> busy::Ran {
    // A finished run has left every line (0): a kill is then shown at the first.
    let line = it.line.max(1);
    let endless = matches!(result, Err(LuaError::Budget));
    let reply = reply_of(it, result, name, chunk, fuel);
    busy::Ran {
        reply,
        steps: fuel - it.fuel_left(),
        endless,
        line,
        chunk,
    }
}

fn reply_of(
    it: &mut Interp,
    result: Result<Vec<Value>, LuaError>,
    name: &str,
    chunk: &str,
    fuel: u64,
) -> Frame {
    let line = it.line;
    match result {
        Ok(values) => {
            let resp = it.host().resp();
            convert::lua_to_frame(&first(values), resp)
        }
        Err(LuaError::Value(v)) => {
            // `__redis__err__handler`: a non-table error becomes
            // `{err = 'ERR ' .. tostring(err)}`; the position is added.
            let msg = match &v {
                Value::Table(t) => match t.borrow().get_str("err") {
                    e @ (Value::Str(_) | Value::Num(_)) => {
                        String::from_utf8_lossy(&e.to_str().unwrap_or_default()).into_owned()
                    }
                    _ => "ERR unknown error".to_string(),
                },
                other => {
                    let s = it.tostring(other).unwrap_or_default();
                    format!("ERR {}", String::from_utf8_lossy(&s))
                }
            };
            Frame::err(format!("{msg} script: {name}, on @{chunk}:{line}."))
        }
        Err(LuaError::Budget) => Frame::err(format!(
            "BUSY Redis is busy running a script. Redsim stopped it after {fuel} steps \
             ({} ms of virtual time at {STEPS_PER_MS} steps per ms); its writes so far are kept. \
             script: {name}, on @{chunk}:{line}.",
            fuel / STEPS_PER_MS
        )),
    }
}

#[cfg(test)]
mod lib_tests;

#[cfg(test)]
mod tests {
    use crate::proto::resp::Frame;
    use crate::rng::Pick;
    use crate::Engine;

    fn eval(e: &mut Engine, c: u64, script: &str) -> Frame {
        let a = [b"EVAL".to_vec(), script.as_bytes().to_vec(), b"0".to_vec()];
        e.execute(c, &a)
    }

    #[test]
    fn runs_replay_exactly() {
        // Identities, `pairs` order and `math.random` depend only on the
        // inputs: two engines agree, and `pairs` follows insertion order.
        let script = "local t = {} t.z = 1 t.a = 2 t[10] = 3 t.m = 4 \
                      local out = {} for k in pairs(t) do out[#out + 1] = tostring(k) end \
                      out[#out + 1] = tostring({}) out[#out + 1] = tostring(tostring) \
                      out[#out + 1] = tostring(math.random()) return out";
        let mut replies = Vec::new();
        for _ in 0..2 {
            let mut e = Engine::new(7);
            let c = e.connect("t");
            replies.push(eval(&mut e, c, script));
        }
        assert_eq!(replies[0], replies[1]);
        let Frame::Array(items) = &replies[0] else {
            panic!("an array: {:?}", replies[0]);
        };
        let keys: Vec<&Frame> = items.iter().take(4).collect();
        assert_eq!(
            keys,
            [
                &Frame::bulk("z"),
                &Frame::bulk("a"),
                &Frame::bulk("10"),
                &Frame::bulk("m")
            ]
        );
        assert_eq!(items[4], Frame::bulk("table: 0x55800000"));
        assert_eq!(items[5], Frame::bulk("function: 0x55800040"));
    }

    #[test]
    fn budget_follows_busy_reply_threshold() {
        assert_eq!(super::budget_for(5000), 10_000_000);
        assert_eq!(super::budget_for(0), super::budget_for(5000));
        let mut e = Engine::new(1);
        e.server_mut().config.busy_reply_threshold = 1;
        e.server_mut().scripts.horizon_ms = 0;
        let c = e.connect("t");
        let r = eval(
            &mut e,
            c,
            "local n = 0 for i = 1, 10000 do n = n + 1 end return n",
        );
        assert!(
            matches!(&r, Frame::Error(m) if m.starts_with("BUSY ")),
            "{r:?}"
        );
        e.server_mut().config.busy_reply_threshold = 5000;
        let r = eval(
            &mut e,
            c,
            "local n = 0 for i = 1, 10000 do n = n + 1 end return n",
        );
        assert_eq!(r, Frame::Integer(10_000));
    }

    #[test]
    fn the_clock_stands_still_inside_a_script() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        e.execute_line(c, "SET k v PX 5");
        e.advance_by(4_000);
        // However long the script, the key it sees does not expire under it.
        let r = eval(
            &mut e,
            c,
            "local a = redis.call('pttl', 'k') for i = 1, 100000 do end \
             return {a, redis.call('pttl', 'k'), redis.call('exists', 'k')}",
        );
        assert_eq!(
            r,
            Frame::Array(vec![
                Frame::Integer(1),
                Frame::Integer(1),
                Frame::Integer(1)
            ])
        );
    }

    #[test]
    fn random_programs_never_panic() {
        // Token soups, mostly invalid, some valid: every reply must be a
        // well-formed value or an error with an upper-case code.
        const TOKENS: &[&str] = &[
            "local",
            "x",
            "y",
            "=",
            "1",
            "0",
            "2.5",
            "'s'",
            "(",
            ")",
            "{",
            "}",
            "[",
            "]",
            ",",
            ".",
            "..",
            ":",
            "+",
            "-",
            "*",
            "/",
            "%",
            "^",
            "#",
            "==",
            "~=",
            "<",
            "<=",
            "and",
            "or",
            "not",
            "if",
            "then",
            "else",
            "end",
            "for",
            "i",
            "in",
            "do",
            "while",
            "repeat",
            "until",
            "return",
            "break",
            "function",
            "f",
            "nil",
            "true",
            "false",
            "...",
            ";",
            "redis.call",
            "redis.pcall",
            "'get'",
            "'set'",
            "KEYS[1]",
            "ARGV",
            "pcall",
            "error",
            "string.rep",
            "string.format",
            "'%d'",
            "string.gsub",
            "'(%a+)'",
            "table.insert",
            "table.sort",
            "table.concat",
            "tostring",
            "tonumber",
            "pairs",
            "ipairs",
            "next",
            "setmetatable",
            "cjson.encode",
            "cjson.decode",
            "'[1,{}]'",
            "math.random",
            "bit.band",
            "unpack",
            "select",
            "'#'",
            "x.y",
            "x:y",
            "[[long]]",
            "--c\n",
            "\n",
        ];
        let mut rng = fastrand::Rng::with_seed(2024);
        let mut e = Engine::new(3);
        e.server_mut().config.busy_reply_threshold = 1;
        e.server_mut().scripts.horizon_ms = 0;
        let c = e.connect("t");
        for _ in 0..20_000 {
            let n = rng.pick(1..24);
            let src: Vec<&str> = (0..n).map(|_| TOKENS[rng.pick(..TOKENS.len())]).collect();
            let src = src.join(" ");
            let a = [
                b"EVAL".to_vec(),
                src.clone().into_bytes(),
                b"1".to_vec(),
                b"k".to_vec(),
            ];
            if let Frame::Error(m) = e.execute(c, &a) {
                let code = m.split(' ').next().unwrap_or("");
                assert!(
                    !code.is_empty() && code.bytes().all(|b| b.is_ascii_uppercase()),
                    "{src:?} -> {m:?}"
                );
            }
        }
    }
}
