//! Differential tests of Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT go to a real redis-server and to redsim, and the replies must be identical: conversions both ways, errors, KEYS/ARGV, the script cache, and the Lua 5.1 language and libraries.
//!
//! The reference is Redis 7.0.15, whose scripting replies are those of 7.2
//! except where a test says otherwise (`REDIS_VERSION_NUM`, SCRIPT HELP's
//! last line, RESP3 doubles printed by `%.17g` in 7.0): those are checked
//! against 7.2's text on redsim alone.

use redsim_engine::proto::clifmt::format_reply;
use redsim_tests::{Differ, Frame};
use std::time::Duration;

/// Sends `args` to both servers on connection 0 and asserts equal replies.
fn check(d: &mut Differ, args: &[&str]) -> Frame {
    check_on(d, 0, args)
}

fn check_on(d: &mut Differ, i: usize, args: &[&str]) -> Frame {
    let refs: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    let want = d.redis[i].cmd_bytes(&refs);
    let got = d.sim[i].cmd_bytes(&refs);
    assert_eq!(
        got,
        want,
        "replies differ for {args:?}\n  redis:  {}\n  redsim: {}",
        format_reply(&want),
        format_reply(&got)
    );
    d.compared += 1;
    want
}

/// `EVAL script 0`.
fn eval(d: &mut Differ, script: &str) -> Frame {
    check(d, &["EVAL", script, "0"])
}

/// Runs every script of a list (one per entry) with no keys.
fn evals(d: &mut Differ, scripts: &[&str]) {
    for s in scripts {
        eval(d, s);
    }
}

fn sim(d: &mut Differ, args: &[&str]) -> Frame {
    let refs: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    d.sim[0].cmd_bytes(&refs)
}

fn is_err_with(f: &Frame, prefix: &str) -> bool {
    matches!(f, Frame::Error(e) if e.starts_with(prefix))
}

#[test]
fn lua_to_redis_conversions() {
    let mut d = Differ::start(1, &[]);
    evals(
        &mut d,
        &[
            // Numbers become integers, truncated toward zero.
            "return 1",
            "return 0",
            "return -7",
            "return 3.99",
            "return -3.99",
            "return 0.5",
            "return 2^53",
            "return 2^63",
            "return -2^63",
            "return 1e30",
            "return math.huge",
            "return -math.huge",
            "return 0/0",
            // Strings are bulk strings, bytes kept.
            "return 'hello'",
            "return ''",
            "return 'a\\0b'",
            // true is 1, false and nil are nil.
            "return true",
            "return false",
            "return nil",
            "return",
            // Tables are arrays up to the first nil; false inside stays (as nil).
            "return {1, 2, 3}",
            "return {1, 2, nil, 4}",
            "return {nil, 2}",
            "return {1, false, 'x', true}",
            "return {1, {2, {3, {4}}}, 'x'}",
            "return {}",
            "return {a = 1, b = 2}",
            "return {1, 2, a = 3}",
            "return {1.9, -1.9, 'x'}",
            // Status and error tables.
            "return {ok = 'FINE'}",
            "return {ok = 'line\\r\\nbreak'}",
            "return {err = 'MYERR something broke'}",
            "return {err = 'ERR plain'}",
            "return {err = 1}",
            "return {ok = 1}",
            "return {{ok = 'nested'}, {err = 'NESTED err'}}",
            "return redis.status_reply('PONG')",
            "return redis.error_reply('CUSTOM failure here')",
            "return redis.error_reply('NOSPACE')",
            "return redis.error_reply('-DASH prefixed')",
            "return redis.error_reply(1)",
            "return redis.status_reply()",
            // Only the first of several values is returned.
            "return 1, 2, 3",
            // Functions and other values are nil.
            "return print",
            "return function() end",
        ],
    );
    assert!(d.compared > 40);
}

#[test]
fn redis_to_lua_conversions() {
    let mut d = Differ::start(1, &[]);
    check(&mut d, &["SET", "str", "hello"]);
    check(&mut d, &["SET", "n", "41"]);
    check(&mut d, &["RPUSH", "list", "a", "b", "c"]);
    evals(
        &mut d,
        &[
            // Integer reply is a number.
            "local v = redis.call('incr', 'n') return {type(v), v}",
            // Bulk reply is a string.
            "local v = redis.call('get', 'str') return {type(v), v}",
            // Nil bulk is false.
            "local v = redis.call('get', 'missing') return {type(v), tostring(v)}",
            // Array reply is a table, with false for missing values.
            "local v = redis.call('mget', 'str', 'missing', 'n') return {type(v), #v, tostring(v[2]), v[3]}",
            "return redis.call('lrange', 'list', 0, -1)",
            // Status reply is {ok=...}.
            "local v = redis.call('set', 'k', 'v') return {type(v), v.ok}",
            "local v = redis.call('ping') return v.ok",
            // Error reply through pcall is {err=...}.
            "local v = redis.pcall('incr', 'str') return {type(v), v.err}",
            "local v = redis.pcall('incr', 'str') return v",
            "local v = redis.pcall('incr', 'str') return tostring(v.ignore_error_stats_update)",
            "return redis.pcall('nosuchcommand')",
            "return redis.pcall('get')",
            "return redis.pcall()",
            "return redis.pcall('get', {})",
            // Round trips.
            "return redis.call('get', 'str')",
            "return redis.call('lrange', 'list', 0, 1)",
            "return redis.call('exists', 'str', 'missing')",
        ],
    );
    // Blocking pops answer at once inside a script in 7.2; 7.0 refused them
    // (`noscript`), so only 7.2's answer is checked, on redsim.
    for (script, want) in [
        ("return redis.call('blpop', 'nolist', 0)", Frame::Null),
        (
            "return tostring(redis.call('blpop', 'nolist', 0))",
            Frame::bulk("false"),
        ),
        ("return redis.pcall('bzpopmin', 'nozset', 0)", Frame::Null),
    ] {
        assert_eq!(sim(&mut d, &["EVAL", script, "0"]), want, "{script}");
    }
    // Lua numbers passed as arguments are printed by fpconv, not %.14g.
    evals(
        &mut d,
        &[
            "redis.call('set', 'f', 1.5) return redis.call('get', 'f')",
            "redis.call('set', 'f', 0.1 + 0.2) return redis.call('get', 'f')",
            "redis.call('set', 'f', 1/0) return redis.call('get', 'f')",
            "redis.call('set', 'f', 123456789012) return redis.call('get', 'f')",
            "return redis.call('incrby', 'n', 10.0)",
        ],
    );
    // Where the shortest form and %.17g differ, 7.0 (%.17g) and 7.2
    // (fpconv_dtoa, the shortest round-trip digits) disagree: 7.2's on redsim.
    // Integral numbers within ±2^62 go as integers in 7.2 (`double2ll`),
    // so a count written as a Lua number is still an integer argument.
    assert_eq!(
        sim(
            &mut d,
            &[
                "EVAL",
                "return redis.pcall('hincrby', 'hh', 'f', 200000000)",
                "0"
            ]
        ),
        Frame::Integer(200_000_000)
    );
    for (script, want) in [
        (
            "redis.call('set', 'f', 1e17) return redis.call('get', 'f')",
            "100000000000000000",
        ),
        (
            "redis.call('set', 'f', -0.0) return redis.call('get', 'f')",
            "0",
        ),
        (
            "redis.call('set', 'f', 1.1) return redis.call('get', 'f')",
            "1.1",
        ),
        (
            "redis.call('set', 'f', 2^63) return redis.call('get', 'f')",
            "9223372036854776000",
        ),
        (
            "redis.call('set', 'f', 1/3) return redis.call('get', 'f')",
            "0.3333333333333333",
        ),
    ] {
        assert_eq!(
            sim(&mut d, &["EVAL", script, "0"]),
            Frame::bulk(want),
            "{script}"
        );
    }
    // RESP3 inside the script: a map stays a map; RESP2 clients see it flattened.
    check(&mut d, &["HSET", "h", "f", "v"]);
    evals(
        &mut d,
        &[
            "redis.setresp(3) local m = redis.call('hgetall', 'h') return m.map.f",
            "redis.setresp(3) return redis.call('hgetall', 'h')",
            "redis.setresp(3) return tostring(redis.call('get', 'missing'))",
            "redis.setresp(3) return true",
            "redis.setresp(3) return false",
            "redis.setresp(2) return redis.call('hgetall', 'h')",
            "return redis.setresp(4)",
            "return redis.setresp()",
            "return {map = {a = 1}}",
            "return {set = {x = true}}",
            "return {big_number = '123456789012345678901234567890'}",
        ],
    );
    // Doubles: 7.0 prints `{double=...}` with %.17g, 7.2 (and redsim) with
    // the shortest form; integers read the same in both.
    eval(&mut d, "return {double = 3}");
    assert_eq!(
        sim(&mut d, &["EVAL", "return {double = 3.14}", "0"]),
        Frame::Bulk(b"3.14".to_vec())
    );
}

#[test]
fn errors_from_scripts() {
    let mut d = Differ::start(1, &[]);
    check(&mut d, &["SET", "str", "x"]);
    evals(
        &mut d,
        &[
            // redis.call errors abort the script, with Redis 7's position suffix.
            "return redis.call('incr', 'str')",
            "return redis.call('nosuchcommand')",
            "return redis.call('get')",
            "return redis.call('get', 'a', 'b')",
            "return redis.call()",
            "return redis.call('get', {})",
            "return redis.call('get', nil)",
            "local x = 1\nlocal y = 2\nreturn redis.call('incr', 'str')",
            // Commands refused inside scripts.
            "return redis.call('multi')",
            "return redis.call('exec')",
            "return redis.call('watch', 'x')",
            "return redis.call('eval', 'return 1', 0)",
            "return redis.call('script', 'load', 'return 1')",
            "return redis.call('hello', '3')",
            "return redis.call('config')",
            "return redis.call('config', 'nosuchsub')",
            // Lua runtime errors.
            "return 1 + nil",
            "local t = nil return t.x",
            "local t = {} return t.a.b",
            "return #nil",
            "return nil .. 'x'",
            "return 1 < 'x'",
            "return {} < {}",
            "return 1 > nil",
            "return undefined_global",
            "undefined_global = 1",
            "local function f() return f() + 1 end return f()",
            "return nosuch()",
            "local t = {} t.x()",
            "local s = 'x' return s:nosuch()",
            "return ('x'):rep()",
            "return string.rep()",
            "return table.insert(nil, 1)",
            "return math.max()",
            "return string.format('%y', 1)",
            "return table.concat({1, {}, 3})",
            "return setmetatable({}, 1)",
            "return next({}, 'nokey')",
            "return tostring()",
            "string.x = 1",
            "redis.call = nil",
            "KEYS[1] = 'changed' return KEYS[1]",
            // error() and assert().
            "error('boom')",
            "error('boom', 0)",
            "error('boom', 2)",
            "local function f() error('deep', 2) end f()",
            "error({err = 'CUSTOM table error'})",
            "error({err = 1})",
            "error()",
            "error(42)",
            "error(true)",
            "assert(false)",
            "assert(false, 'assert message')",
            "assert(nil, 42)",
            "return assert(1, 2, 3)",
            // pcall catches, returning the err string of error tables.
            "return {pcall(error, 'x')}",
            "local ok, e = pcall(error, {err = 'TBL x'}) return {tostring(ok), e}",
            "local ok, e = pcall(redis.call, 'incr', 'str') return {tostring(ok), e}",
            "local ok, e = pcall(function() local x = nil; return x.y end) return e",
            "return {pcall(function() return 1, 2 end)}",
            "return {xpcall(function() error('in') end, function(m) return 'handled: ' .. m end)}",
            // redis.* argument checks.
            "return redis.sha1hex()",
            "return redis.log(1)",
            "return redis.log('x', 'y')",
            "return redis.log(99, 'y')",
            "redis.log(redis.LOG_WARNING, 'written nowhere') return 1",
            "return redis.set_repl(redis.REPL_ALL)",
            "return redis.set_repl(99)",
        ],
    );
    // Syntax errors: Lua 5.1's messages, compared exactly.
    evals(
        &mut d,
        &[
            "return 1 +",
            "x",
            "if x then\nreturn 1",
            "return 'abc",
            "return 'abc\n'",
            "local 1 = 2",
            "return 3x",
            "break",
            "function f() return ... end",
            "(x) = 1",
            "return return",
            "for i = 1 do end",
            "for a b in c do end",
            "local function end",
            "f(\n)",
            "return [[unclosed",
            "return 0x",
            "x = }",
            "return 1 2",
            "while true do break print(1) end",
            "--[[ unclosed comment",
            "return '\\300'",
        ],
    );
}

#[test]
fn keys_argv_numkeys_and_cache() {
    let mut d = Differ::start(1, &[]);
    let s = "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}";
    check(&mut d, &["EVAL", s, "2", "k1", "k2", "a1", "a2"]);
    check(&mut d, &["EVAL", s, "0", "a1", "a2"]);
    check(&mut d, &["EVAL", s, "2", "k1", "k2"]);
    check(&mut d, &["EVAL", s, "0"]);
    check(&mut d, &["EVAL", "return ARGV", "1", "k", "", "x\0y"]);
    // numkeys errors, in Redis' order.
    check(&mut d, &["EVAL", "return 1", "3", "a", "b"]);
    check(&mut d, &["EVAL", "return 1", "-1"]);
    check(&mut d, &["EVAL", "return 1", "x"]);
    check(&mut d, &["EVAL", "return 1", "1.5", "a"]);
    check(&mut d, &["EVAL", "return 1"]);
    check(&mut d, &["EVAL", "return 1 +", "5"]);
    // The cache: EVAL caches, SCRIPT LOAD caches, EVALSHA runs by SHA1.
    let sha = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";
    check(&mut d, &["SCRIPT", "EXISTS", sha]);
    check(&mut d, &["EVALSHA", sha, "0"]);
    check(&mut d, &["EVAL", "return 1", "0"]);
    check(
        &mut d,
        &[
            "SCRIPT",
            "EXISTS",
            sha,
            "ffffffffffffffffffffffffffffffffffffffff",
        ],
    );
    check(&mut d, &["SCRIPT", "EXISTS", &sha.to_uppercase()]);
    check(&mut d, &["EVALSHA", sha, "0"]);
    check(&mut d, &["EVALSHA", &sha.to_uppercase(), "0"]);
    check(&mut d, &["EVALSHA_RO", sha, "0"]);
    check(&mut d, &["EVALSHA", "short", "0"]);
    check(&mut d, &["EVALSHA", "short", "notanumber"]);
    check(&mut d, &["EVALSHA", sha, "notanumber"]);
    check(
        &mut d,
        &["EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"],
    );
    check(&mut d, &["SCRIPT", "LOAD", "return KEYS[1] .. ARGV[1]"]);
    let loaded = sim(&mut d, &["SCRIPT", "LOAD", "return KEYS[1] .. ARGV[1]"]);
    let Frame::Bulk(loaded) = loaded else {
        panic!("SCRIPT LOAD replies a bulk SHA1");
    };
    let loaded = String::from_utf8(loaded).expect("hex");
    check(&mut d, &["EVALSHA", &loaded, "1", "k", "v"]);
    check(&mut d, &["SCRIPT", "LOAD", "return 1 +"]);
    check(
        &mut d,
        &["SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 1"],
    );
    check(&mut d, &["SCRIPT", "LOAD", "#!lua flags=bogus\nreturn 1"]);
    check(&mut d, &["SCRIPT", "LOAD", "#!python\nreturn 1"]);
    check(&mut d, &["SCRIPT", "LOAD", "#!lua"]);
    check(&mut d, &["SCRIPT", "LOAD", "#!lua foo=bar\nreturn 1"]);
    check(&mut d, &["SCRIPT", "LOAD"]);
    check(&mut d, &["SCRIPT", "EXISTS"]);
    check(&mut d, &["SCRIPT", "FLUSH", "SYNC"]);
    check(&mut d, &["SCRIPT", "EXISTS", sha, &loaded]);
    check(&mut d, &["EVALSHA", sha, "0"]);
    check(&mut d, &["EVAL", "return 2", "0"]);
    check(&mut d, &["SCRIPT", "FLUSH", "ASYNC"]);
    check(&mut d, &["SCRIPT", "FLUSH"]);
    check(&mut d, &["SCRIPT", "FLUSH", "LATER"]);
    check(&mut d, &["SCRIPT", "FLUSH", "SYNC", "ASYNC"]);
    check(&mut d, &["SCRIPT", "KILL"]);
    check(&mut d, &["SCRIPT", "NOSUCH"]);
    check(&mut d, &["SCRIPT", "DEBUG", "NO"]);
    check(&mut d, &["SCRIPT", "DEBUG", "MAYBE"]);
    check(&mut d, &["SCRIPT"]);
    // SCRIPT HELP: 7.0 ends with "Prints this help.", 7.2 with "Print this help.".
    let help = sim(&mut d, &["SCRIPT", "HELP"]);
    let Frame::Array(lines) = help else {
        panic!("SCRIPT HELP is an array");
    };
    assert_eq!(lines.len(), 17);
    assert_eq!(lines[16], Frame::Simple("    Print this help.".into()));
    // redis.sha1hex is the SHA1 that names scripts.
    eval(&mut d, "return redis.sha1hex('')");
    eval(&mut d, "return redis.sha1hex('return 1')");
    eval(&mut d, "return redis.sha1hex(123)");
}

#[test]
fn read_only_scripts_and_flags() {
    let mut d = Differ::start(1, &[]);
    check(&mut d, &["SET", "k", "v"]);
    for script in [
        "return redis.call('get', KEYS[1])",
        "return redis.call('set', KEYS[1], 'x')",
        "return redis.pcall('del', KEYS[1])",
    ] {
        check(&mut d, &["EVAL_RO", script, "1", "k"]);
    }
    check(&mut d, &["EVAL_RO", "return redis.call('ping')", "0"]);
    // PFCOUNT may write (it caches the count): refused like a write.
    check(&mut d, &["PFADD", "hll", "a", "b"]);
    check(
        &mut d,
        &[
            "EVAL_RO",
            "return redis.call('pfcount', KEYS[1])",
            "1",
            "hll",
        ],
    );
    check(
        &mut d,
        &["EVAL", "return redis.call('pfcount', KEYS[1])", "1", "hll"],
    );
    check(&mut d, &["GET", "k"]);
    // A shebang with no-writes makes the script read-only under EVAL too.
    let ro = "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'y')";
    check(&mut d, &["EVAL", ro, "1", "k"]);
    check(
        &mut d,
        &[
            "EVAL",
            "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])",
            "1",
            "k",
        ],
    );
    // A shebang without no-writes may not run under EVAL_RO.
    check(&mut d, &["EVAL_RO", "#!lua\nreturn 1", "0"]);
    check(&mut d, &["EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"]);
    // The shebang line still counts: errors report line 2.
    check(&mut d, &["EVAL", "#!lua\nreturn 1 + nil", "0"]);
    check(
        &mut d,
        &["EVAL", "#!lua flags=allow-oom,allow-stale\nreturn 1", "0"],
    );
    // SELECT inside a script does not change the caller's database (Redis 7).
    check(&mut d, &["EVAL", "redis.call('select', 1) redis.call('set', 'db1key', 'x') return redis.call('get', 'db1key')", "0"]);
    check(&mut d, &["GET", "db1key"]);
    check(&mut d, &["SELECT", "1"]);
    check(&mut d, &["GET", "db1key"]);
    check(&mut d, &["EVAL", "return redis.call('get', 'db1key')", "0"]);
    check(&mut d, &["SELECT", "0"]);
    // Scripts inside MULTI are queued and run at EXEC.
    check(&mut d, &["MULTI"]);
    check(
        &mut d,
        &["EVAL", "return redis.call('incr', KEYS[1])", "1", "ctr"],
    );
    check(
        &mut d,
        &["EVAL", "return redis.call('incr', KEYS[1])", "1", "ctr"],
    );
    check(&mut d, &["EXEC"]);
    // Keys seen with TTLs: the clock stands still inside the script.
    check(&mut d, &["SET", "t", "v", "EX", "100"]);
    check(&mut d, &["EVAL", "local a = redis.call('ttl', KEYS[1]) for i = 1, 10000 do end return a - redis.call('ttl', KEYS[1])", "1", "t"]);
}

#[test]
fn lua_language_and_libraries() {
    let mut d = Differ::start(1, &[]);
    evals(
        &mut d,
        &[
            // Numbers print as %.14g.
            "return tostring(10/3)",
            "return tostring(1e15)",
            "return tostring(123456789012345)",
            "return tostring(2^53)",
            "return tostring(0.1)",
            "return tostring(-0)",
            "return tostring(1/0) .. tostring(-1/0)",
            "return tostring(0/0)",
            "return tostring(-(0/0))",
            "return 1 .. ''",
            "return 1.5 .. '|' .. 10 .. '|' .. 1e100",
            "return 7 % 3 .. ' ' .. -7 % 3 .. ' ' .. 7 % -3 .. ' ' .. 5.5 % 2",
            "return 2^10 .. ' ' .. 2^0.5",
            "return '10' + 5",
            "return '0x10' + 0",
            "return ' 3 ' * '2'",
            "return tonumber('  12  ')",
            "return {tonumber('z', 36), tonumber('ff', 16), tonumber('777', 8), tonumber('102', 2)}",
            "return tostring(tonumber('1e2'))",
            "return tostring(tonumber('abc'))",
            "return tostring(tonumber(''))",
            "return tostring(tonumber('0x'))",
            "return tostring(tonumber('1e'))",
            "return {tostring(tonumber('8', 8)), tostring(tonumber('inf')), tostring(tonumber('nan'))}",
            "return tostring(nil) .. tostring(true) .. tostring(false)",
            "return type(nil) .. type(1) .. type('') .. type({}) .. type(print) .. type(type)",
            "return tostring({}):sub(1, 7)",
            // Control flow and closures.
            "local s = 0 for i = 1, 10 do s = s + i end return s",
            "local s = 0 for i = 10, 1, -2 do s = s + i end return s",
            "local s = 0 for i = 1, 3, 0.5 do s = s + i end return tostring(s)",
            "local t = {} for i = 1, 3 do t[i] = function() return i end end return {t[1](), t[2](), t[3]()}",
            "local n = 0 while true do n = n + 1 if n > 5 then break end end return n",
            "local n = 0 repeat local m = n n = n + 1 until m >= 3 return n",
            "local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end return fib(20)",
            "local function counter() local c = 0 return function() c = c + 1 return c end end local f = counter() f() f() return f()",
            "local a, b, c = (function() return 1, 2, 3 end)() return {a, b, c}",
            "local a, b = 1 return {a, tostring(b)}",
            "local a, b = 1, 2, 3 return {a, b}",
            "local function v(...) return select('#', ...) end return v(1, nil, 3, nil)",
            "local function v(...) local t = {...} return #t end return v(1, 2, 3)",
            "return select(2, 'a', 'b', 'c')",
            "return select(-1, 'a', 'b', 'c')",
            "return {select('#')}",
            "local t = {1, 2, 3} local a, b = t[1], t[2] t[1], t[2] = b, a return t",
            "local x = 1 do local x = 2 end return x",
            "return (1 == 1.0) and 'eq' or 'ne'",
            "return ('a' < 'b') and ('abc' < 'abd') and not ('b' < 'a')",
            "return 1 and nil or 'fallback'",
            "return not nil, not 0",
            "local t = setmetatable({}, {__index = function(t, k) return k .. '!' end}) return t.hello",
            "local t = setmetatable({}, {__newindex = function(t, k, v) rawset(t, k, v * 2) end}) t.x = 21 return t.x",
            "local mt = {__add = function(a, b) return a.v + b.v end} local a = setmetatable({v = 1}, mt) local b = setmetatable({v = 2}, mt) return a + b",
            "local mt = {__eq = function() return true end} return setmetatable({}, mt) == setmetatable({}, mt)",
            "local mt = {__lt = function(a, b) return a.v < b.v end} return setmetatable({v=1}, mt) < setmetatable({v=2}, mt)",
            "local mt = {__concat = function(a, b) return 'cat' end} return setmetatable({}, mt) .. 'x'",
            "local mt = {__call = function(self, x) return x * 2 end} return setmetatable({}, mt)(21)",
            "local mt = {__tostring = function() return 'custom' end} return tostring(setmetatable({}, mt))",
            "local mt = {__metatable = 'locked'} local t = setmetatable({}, mt) return getmetatable(t)",
            "local t = setmetatable({}, {__metatable = 1}) return setmetatable(t, {})",
            "return getmetatable('').__index == string",
            "return rawequal({}, {})",
            "local t = {} return rawequal(t, t)",
            "local t = setmetatable({}, {__index = function() return 1 end}) return tostring(rawget(t, 'x'))",
            "return #'hello' + #{1, 2, 3}",
            "return #{1, 2, nil, 4}",
            "return #{nil, nil, 3}",
            "return #{1, nil}",
            "return #{n = 1}",
            // Strings.
            "return string.len('abc') .. ('abc'):len()",
            "return {('hello'):sub(2), ('hello'):sub(2, 3), ('hello'):sub(-3), ('hello'):sub(0), ('hello'):sub(10), ('hello'):sub(3, 2)}",
            "return ('abc'):upper() .. ('ABC'):lower() .. ('abc'):reverse()",
            "return ('ab'):rep(3) .. '|' .. ('ab'):rep(0) .. '|' .. ('ab'):rep(-1)",
            "return {('ABC'):byte(), ('ABC'):byte(2), ('ABC'):byte(1, -1)}",
            "return string.char(72, 105)",
            "return string.char(256)",
            "return {string.find('hello world', 'o w')}",
            "return {string.find('hello world', 'o', 6)}",
            "return {string.find('hello', 'l+')}",
            "return {string.find('a.b', '.', 1, true)}",
            "return {string.find('abc', 'x')}",
            "return {string.find('abc', '')}",
            "return {string.find('abc', '', 10)}",
            "return {string.find('key:123:x', '(%a+):(%d+)')}",
            "return {string.match('key:123', '(%a+):(%d+)')}",
            "return string.match('  trim me  ', '^%s*(.-)%s*$')",
            "return {string.match('hello', '()ll()')}",
            "return string.match('f(a(b)c)d', '%b()')",
            "return string.match('THE (quick) fox', '%f[%a]%a+')",
            "return string.match('2024-01-15', '(%d+)-(%d+)-(%d+)')",
            "return {string.match('abab', '(ab)%1')}",
            "return string.match('x', '[a')",
            "return string.match('x', '%')",
            "return string.match('x', '(x')",
            "return string.match('x', 'x)')",
            "return string.match('x', '%1')",
            "local t = {} for w in string.gmatch('one two three', '%a+') do t[#t+1] = w end return t",
            "local t = {} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do t[#t+1] = k .. v end return t",
            "local n = 0 for _ in ('abc'):gmatch('') do n = n + 1 end return n",
            "return {string.gsub('hello world', 'o', '0')}",
            "return {string.gsub('hello world', 'o', '0', 1)}",
            "return {string.gsub('hello', '', '-')}",
            "return {string.gsub('abc', '%w', '%0%0')}",
            "return {string.gsub('hello world', '(%w+)', '<%1>')}",
            "return {string.gsub('$name is $age', '%$(%w+)', {name = 'Bob', age = 42})}",
            "return {string.gsub('1 2 3', '%d', function(d) return d * 2 end)}",
            "return {string.gsub('abc', 'b', false)}",
            "return string.gsub('abc', 'b', true)",
            "return {string.gsub('a.b.c', '%.', '%%')}",
            "return {string.gsub('^abc', '^a', 'x')}",
            "return string.format('%d|%5d|%-5d|%05d|%+d|%x|%X|%o|%c', 42, 42, 42, 42, 42, 255, 255, 8, 65)",
            "return string.format('%f|%.2f|%10.3f|%-10.1f|%e|%.3E|%g|%g|%g', 3.14159, 3.14159, 3.14159, 3.14159, 12345.678, 0.000123, 0.0001, 1e20, 100000)",
            "return string.format('%s|%10s|%-10s|%.2s|%q', 'str', 'right', 'left', 'trunc', 'q\"u\\\\o\\nte')",
            "return string.format('%5.2f%%', 99.5)",
            "return string.format('%d', 3.99)",
            "return string.format('%d', -3.99)",
            "return string.format('%s %s', 1, 2.5)",
            "return string.format('%s', {})",
            "return string.format('%d')",
            "return string.format('%d', 'x')",
            "return string.format('%123d', 1)",
            "return string.format('%-+ #0d', 1)",
            "return string.format('%.0f|%.0f|%.0f', 0.5, 1.5, 2.5)",
            "return string.format('%g|%g|%g', 0.1, 1/3, 123456789)",
            "return string.format('%x', -1)",
            // Tables.
            "local t = {} table.insert(t, 'a') table.insert(t, 'c') table.insert(t, 2, 'b') return t",
            "local t = {1, 2, 3} local r = table.remove(t) return {r, #t}",
            "local t = {1, 2, 3} local r = table.remove(t, 1) return {r, t[1], t[2], #t}",
            "local t = {} return tostring(table.remove(t))",
            "return table.insert({}, 1, 2, 3)",
            "return table.concat({1, 2, 3})",
            "return table.concat({1, 2, 3}, ', ', 2, 3)",
            "return table.concat({}, 'x')",
            "local t = {5, 2, 8, 1, 9, 3} table.sort(t) return t",
            "local t = {5, 2, 8, 1, 9, 3} table.sort(t, function(a, b) return a > b end) return t",
            "local t = {'banana', 'apple', 'cherry'} table.sort(t) return t",
            "local t = {3, 1, 'x'} table.sort(t) return t",
            "local t = {} for i = 1, 100 do t[i] = (i * 37) % 101 end table.sort(t) return {t[1], t[50], t[100]}",
            "local t = {1, 2, 3, 4, 5} table.sort(t, function(a, b) return true end) return t",
            "return table.maxn({1, 2, nil, 4, [10] = 1})",
            "return table.getn({1, 2, 3})",
            "return {unpack({1, 2, 3})}",
            "return {unpack({1, 2, 3}, 2)}",
            "return {unpack({1, 2, 3}, 2, 3)}",
            "local t = {} for k, v in pairs({10, 20, 30}) do t[#t+1] = k .. '=' .. v end return t",
            "local t = {} for i, v in ipairs({1, 2, nil, 4}) do t[#t+1] = v end return t",
            "local n = 0 for k in pairs({a = 1}) do n = n + 1 end return n",
            "return next({})",
            "return next({7})",
            // Math.
            "return {math.floor(3.7), math.ceil(3.2), math.abs(-4), math.max(1, 5, 3), math.min(4, 2, 8)}",
            "return {math.floor(-3.5), math.ceil(-3.5), math.fmod(7, 3), math.fmod(-7, 3), math.mod(7, 3)}",
            "return tostring(math.sqrt(2)) .. ' ' .. tostring(math.pi) .. ' ' .. tostring(math.exp(1))",
            "return tostring(math.log(100)) .. ' ' .. tostring(math.log10(1000)) .. ' ' .. tostring(math.pow(2, 0.5))",
            "return {math.modf(3.7)}",
            "return tostring(select(2, math.modf(3.75)))",
            "return {math.frexp(8)}",
            "return math.ldexp(0.5, 4)",
            "return tostring(math.sin(0)) .. tostring(math.cos(0))",
            "return {math.random(100), math.random(5, 10), math.random(1), tostring(math.random())}",
            "math.randomseed(42) return {math.random(1000), math.random(1000)}",
            "return math.random(0)",
            "return math.random(5, 1)",
            "return math.random(1, 2, 3)",
            // bit.
            "return {bit.band(0xff, 0x0f), bit.bor(1, 2, 4), bit.bxor(5, 3), bit.bnot(0)}",
            "return {bit.lshift(1, 10), bit.rshift(1024, 3), bit.arshift(-16, 2), bit.rshift(-1, 28)}",
            "return {bit.tohex(255), bit.tohex(-1), bit.tohex(255, 4), bit.tohex(255, -4), bit.tobit(2^32 + 5)}",
            "return {bit.rol(1, 1), bit.ror(1, 1), bit.bswap(0x12345678)}",
            // Globals are read-only; the allow-listed ones exist.
            "return _VERSION",
            "return type(_G)",
            "return _G.string == string",
            "return {type(loadstring), type(coroutine), type(cjson), type(bit), type(unpack), type(gcinfo)}",
            "return type(print)",
            "return type(os)",
            "return type(io)",
            "return type(require)",
            "return type(dofile)",
            "return type(getfenv)",
            "return loadstring('return 1 + 1')()",
            "return redis.REDIS_VERSION ~= nil",
            "return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}",
            "return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}",
            "return redis.replicate_commands()",
            "return redis.breakpoint()",
            "return redis.acl_check_cmd('get', 'x')",
            "return redis.acl_check_cmd('nosuch')",
            "rawset(_G, 'x', 1)",
            "setmetatable(_G, nil)",
            "return pcall(string.rep)",
        ],
    );
    // REDIS_VERSION_NUM: 0x070204 on redsim (Redis 7.2.4), 0x07000f on 7.0.15.
    assert_eq!(
        sim(&mut d, &["EVAL", "return redis.REDIS_VERSION_NUM", "0"]),
        Frame::Integer(0x070204)
    );
}

/// cjson's settings functions: what each returns, how it checks its
/// arguments, and what it changes. Every script restores the defaults
/// (Redis keeps settings between scripts; redsim, for one run).
#[test]
fn cjson_settings() {
    let mut d = Differ::start(1, &[]);
    let restore = "cjson.encode_max_depth(1000) cjson.decode_max_depth(1000) \
                   cjson.encode_invalid_numbers(false) cjson.decode_invalid_numbers(true) \
                   cjson.encode_number_precision(14) cjson.encode_sparse_array(false, 2, 10) \
                   cjson.encode_keep_buffer(true)";
    let scripts = [
        "local r = {} r[1] = cjson.encode_max_depth() r[2] = cjson.encode_max_depth(2) \
         r[3] = tostring(pcall(cjson.encode, {{{1}}})) r[4] = cjson.encode({{1}}) \
         r[5] = cjson.decode_max_depth(2) r[6] = tostring(pcall(cjson.decode, '[[[1]]]'))",
        "local r = {} r[1] = cjson.encode_invalid_numbers('null') r[2] = cjson.encode({1/0, -1/0}) \
         r[3] = tostring(cjson.encode_invalid_numbers(true)) r[4] = cjson.encode({1/0, -1/0, 0/0}) \
         r[5] = tostring(cjson.encode_invalid_numbers('off'))",
        "local r = {} r[1] = cjson.encode_number_precision(5) r[2] = cjson.encode({3.14159265, 1e20, 123456789})",
        "local r = {tostring(cjson.encode_sparse_array(true))} r[2] = cjson.encode({[20] = 1}) \
         local a, b, c = cjson.encode_sparse_array(false, 0) r[3] = tostring(a) .. b .. c \
         r[4] = cjson.encode({[40] = 1})",
        "local r = {tostring(cjson.decode_invalid_numbers(false))} \
         for _, j in ipairs({'0x10', '+1', '01', '-0x1', 'nan', '-inf', '1e5', '-0'}) do \
         local ok, v = pcall(cjson.decode, j) r[#r + 1] = tostring(ok) .. ' ' .. tostring(v) end",
        "local r = {tostring(cjson.encode_keep_buffer(false)), tostring(cjson.encode_keep_buffer('on'))}",
        "local r = {} r[1] = select(2, pcall(cjson.encode_max_depth, 0)) \
         r[2] = select(2, pcall(cjson.encode_number_precision, 15)) \
         r[3] = select(2, pcall(cjson.encode_keep_buffer, 'maybe')) \
         r[4] = select(2, pcall(cjson.encode_sparse_array, true, 1, 2, 3)) \
         r[5] = select(2, pcall(cjson.decode_max_depth, 'x')) \
         r[6] = select(2, pcall(cjson.encode_invalid_numbers, 'null', 1))",
    ];
    for s in scripts {
        eval(&mut d, &format!("{s} {restore} return r"));
    }
}

#[test]
fn cjson_encode_and_decode() {
    let mut d = Differ::start(1, &[]);
    evals(
        &mut d,
        &[
            "return cjson.encode({})",
            "return cjson.encode({1, 2, nil, 4})",
            "return cjson.encode({[1] = 1, [5] = 5})",
            "return cjson.encode({[1] = 1, [20] = 5})",
            "return cjson.encode({a = {b = {c = 1}}})",
            r#"return cjson.encode('a/b"c\\' .. string.char(1, 8, 9, 10, 12, 13, 31, 127, 200))"#,
            "return cjson.encode(1/3)",
            "return cjson.encode(1e20)",
            "return cjson.encode({1.5, -0, 100, -7})",
            "return cjson.encode(0/0)",
            "return cjson.encode(1/0)",
            "return cjson.encode(redis.call)",
            "return cjson.encode({[true] = 1})",
            "return cjson.encode({[0] = 1})",
            "return cjson.encode({[1.5] = 1})",
            "return cjson.encode()",
            "return cjson.encode(1, 2)",
            "return cjson.encode(nil)",
            "return cjson.encode(true)",
            "return cjson.encode('x')",
            "return cjson.encode(cjson.null)",
            "return cjson.encode({cjson.null, 1})",
            "return cjson.encode({{}, {{}}})",
            "return type(cjson.null)",
            "return tostring(cjson.null)",
            "return {cjson._NAME, cjson._VERSION}",
            // Decoding.
            "return cjson.decode('[1,null,3]')",
            "return #cjson.decode('[1,null,3]')",
            "return cjson.decode('[1,null,3]')[2] == cjson.null",
            "return cjson.decode('{\"a\":[1,2]}').a",
            r#"return cjson.decode('"\\u00e9\\ud83d\\ude00\\n\\/\\t"')"#,
            r#"return cjson.decode('"\\ud83d"')"#,
            r#"return cjson.decode('"\\udc00"')"#,
            r#"return cjson.decode('"\\u12"')"#,
            r#"return cjson.decode('"a\\qb"')"#,
            "return cjson.decode('')",
            "return cjson.decode('   ')",
            "return cjson.decode('[1,2')",
            "return cjson.decode('{\"a\" 1}')",
            "return cjson.decode('{\"a\":1,}')",
            "return cjson.decode('[1 2]')",
            "return cjson.decode('[1,]')",
            "return cjson.decode('x')",
            "return cjson.decode('01')",
            "return cjson.decode('+1')",
            "return tostring(cjson.decode('1e2'))",
            "return tostring(cjson.decode('-0'))",
            "return tostring(cjson.decode('-1.5e-3'))",
            "return cjson.decode('0x10')",
            "return tostring(cjson.decode('inf'))",
            "return tostring(cjson.decode('-inf'))",
            "return cjson.decode('-')",
            "return cjson.decode('[1] x')",
            "return cjson.decode('{1:2}')",
            "return cjson.decode('  true  ')",
            "return tostring(cjson.decode('false'))",
            "return cjson.decode('\"abc')",
            "return cjson.decode('{}')",
            "return cjson.decode('[[],{}]')",
            "return cjson.decode('{\"k\":\"v\"}').k",
            "return cjson.decode('{\"k\":1,\"k\":2}').k",
            "return cjson.decode(42)",
            "return cjson.decode({})",
            "return cjson.decode()",
            "return cjson.encode(cjson.decode('[1,\"two\",[3,[4]],{\"five\":5},true,null]'))",
            "local t = {} for i = 1, 1001 do t = {t} end return cjson.encode(t)",
            "return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001))",
            "cjson.x = 1",
        ],
    );
}

#[test]
fn step_budget_stops_endless_scripts() {
    // Redsim only: Redis would run these until SCRIPT KILL.
    let s = redsim_tests::RedsimServer::start(&[]);
    let mut c = s.conn();
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "busy-reply-threshold", "20"]),
        Frame::Simple("OK".into())
    );
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "lua-time-limit"]),
        Frame::Array(vec![Frame::bulk("lua-time-limit"), Frame::bulk("20")])
    );
    // Past the threshold the server is busy, as Redis is: another client
    // gets BUSY and SCRIPT KILL stops a script that has not written; one
    // that recurses without end fails at once instead.
    let mut k = s.conn();
    for script in [
        "while true do end",
        "local i = 0 while true do i = i + 1 end",
        "repeat until false",
        "for i = 1, math.huge do end",
        "local function f() return f() end return f()",
        "return pcall(function() while true do end end)",
        "local s = 'x' while true do s = s .. 'x' if #s > 1000 then s = 'x' end end",
    ] {
        let eval = ["EVAL", script, "0"].map(Frame::bulk);
        c.send_raw(&Frame::Array(eval.to_vec()).to_bytes(2));
        // The two connections race: until the server has read the EVAL,
        // another client still gets PONG, so ask again until it is busy
        // or the script has answered (a stack overflow ends at once).
        let mut answer = None;
        for _ in 0..400 {
            if is_err_with(&k.cmd(&["PING"]), "BUSY ") {
                assert_eq!(k.cmd(&["SCRIPT", "KILL"]), Frame::Simple("OK".into()));
                break;
            }
            answer = c.reply_within(Duration::from_millis(50));
            if answer.is_some() {
                break;
            }
        }
        let r = match answer {
            Some(r) => r,
            None => c.read_frame().expect("a reply"),
        };
        assert!(
            is_err_with(&r, "ERR Script killed by user")
                || is_err_with(&r, "ERR user_script:1: stack overflow"),
            "{script}: {r:?}"
        );
    }
    // A script that wrote cannot be killed; inside MULTI (where its caller
    // cannot wait) it runs to the horizon and stops with Redsim's BUSY
    // error, its writes kept.
    // Interpreting a script to the horizon takes seconds of real time in a
    // debug build, more on a loaded machine.
    c.set_read_timeout(Duration::from_secs(300));
    assert_eq!(c.cmd(&["MULTI"]), Frame::Simple("OK".into()));
    c.cmd(&["EVAL", "while true do redis.call('incr', 'loops') end", "0"]);
    let Frame::Array(done) = c.cmd(&["EXEC"]) else {
        panic!("EXEC's array");
    };
    assert!(is_err_with(&done[0], "BUSY "), "{done:?}");
    assert_eq!(c.cmd(&["PING"]), Frame::Simple("PONG".into()));
    let Frame::Bulk(n) = c.cmd(&["GET", "loops"]) else {
        panic!("the loop's increments stay");
    };
    let n: u64 = String::from_utf8(n)
        .expect("digits")
        .parse()
        .expect("a number");
    assert!(n > 1000, "{n}");
    // A script that fits the budget finishes.
    assert_eq!(
        c.cmd(&[
            "EVAL",
            "local s = 0 for i = 1, 10000 do s = s + i end return s",
            "0"
        ]),
        Frame::Integer(50_005_000)
    );
}
