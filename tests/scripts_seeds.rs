//! The Lua scripts of the seed articles (locks, fencing tokens, rate limits, version-checked writes, token bucket) run against redis-server and redsim, which must give the same answers, plus the step budget stopping an endless script on redsim.
//!
//! Times a script reads come from ARGV (as the articles pass the client's
//! clock) except the fixed-window limiter, whose window is a real TTL: that
//! test sleeps past it on both servers.

use std::time::Duration;

use redsim_engine::proto::clifmt::format_reply;
use redsim_tests::{Differ, Frame};

/// unlock.lua: delete the key only if it still holds our token.
const UNLOCK: &str = r#"
if redis.call("GET", KEYS[1]) == ARGV[1] then
    return redis.call("DEL", KEYS[1])
else
    return 0
end"#;

/// The same, as the Chinese article writes it.
const UNLOCK_SHORT: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then\n  return redis.call('DEL', KEYS[1])\nend\nreturn 0";

/// Lock extension (watchdog): a new TTL only if we still own the lock.
const EXTEND: &str = r#"
if redis.call("GET", KEYS[1]) == ARGV[1] then
    return redis.call("PEXPIRE", KEYS[1], ARGV[2])
else
    return 0
end"#;

/// Acquire with a fencing token: SET NX PX, then a monotonic counter.
const FENCED_ACQUIRE: &str = r#"
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
    return redis.call("INCR", KEYS[2])   -- монотонный счётчик поколений
else
    return 0
end"#;

/// Fixed window (Russian article): ARGV = window ms, limit.
const FIXED_WINDOW: &str = r#"
local current = redis.call("INCR", KEYS[1])
if current == 1 then
    redis.call("PEXPIRE", KEYS[1], ARGV[1])
end
if current > tonumber(ARGV[2]) then
    return 0
end
return 1"#;

/// Fixed window (second article): ARGV = limit, window seconds.
const RATE_LIMIT_LUA: &str = r#"
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local current = redis.call("INCR", key)
if current == 1 then
  redis.call("EXPIRE", key, window)
end
if current > limit then
  return 0
end
return 1"#;

/// Fixed window returning {allowed, count, ttl} (Chinese article).
const FIXED_WINDOW_TTL: &str = r#"
local current = redis.call('INCR', KEYS[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local ttl = redis.call('PTTL', KEYS[1])
return {current <= tonumber(ARGV[2]) and 1 or 0, current, ttl}"#;

/// Sliding window on a sorted set: ARGV = now ms, window ms, limit, request id.
const SLIDING_WINDOW: &str = r#"
local key    = KEYS[1]
local now    = tonumber(ARGV[1])   -- текущее время в мс
local window = tonumber(ARGV[2])   -- размер окна в мс
local limit  = tonumber(ARGV[3])
local id     = ARGV[4]             -- уникальный идентификатор запроса

redis.call('ZREMRANGEBYSCORE', key, 0, now - window)
local used = redis.call('ZCARD', key)
if used >= limit then
  return {0, used}
end
redis.call('ZADD', key, now, id)
redis.call('PEXPIRE', key, window)
return {1, used + 1}
"#;

/// Version-checked cache write: only a newer version replaces the entry.
const VERSIONED_SET: &str = r#"
local current = redis.call('HGET', KEYS[1], 'version')
if current and tonumber(current) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'payload', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1"#;

/// Token bucket as the article describes it (tokens and last_refill in a
/// hash, refilled by elapsed time): ARGV = capacity, refill per second,
/// now ms, cost. Returns {allowed, tokens left (floored)}.
const TOKEN_BUCKET: &str = r#"
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'last_refill')
local tokens = tonumber(state[1])
local last = tonumber(state[2])
if tokens == nil then
  tokens = capacity
  last = now
end
local elapsed = math.max(0, now - last)
tokens = math.min(capacity, tokens + elapsed * rate / 1000)
local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'last_refill', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000))
return {allowed, math.floor(tokens)}"#;

/// Runs `script` with `keys` and `args` on both servers; equal replies.
fn run(d: &mut Differ, script: &str, keys: &[&str], args: &[&str]) -> Frame {
    let n = keys.len().to_string();
    let mut argv: Vec<&str> = vec!["EVAL", script, &n];
    argv.extend_from_slice(keys);
    argv.extend_from_slice(args);
    check(d, &argv)
}

fn check(d: &mut Differ, args: &[&str]) -> Frame {
    let refs: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    let want = d.redis[0].cmd_bytes(&refs);
    let got = d.sim[0].cmd_bytes(&refs);
    assert_eq!(
        got,
        want,
        "replies differ for {:?}\n  redis:  {}\n  redsim: {}",
        &args[..args.len().min(4)],
        format_reply(&want),
        format_reply(&got)
    );
    d.compared += 1;
    want
}

/// Runs a rate limiter `script` on `keys` once a line of `steps`: `now
/// arg allowed count` (`#` lines are comments). The ARGV is what `argv`
/// makes of the step's time and argument; the reply must be the pair
/// `{allowed, count}`.
fn run_steps<'a, const N: usize>(
    d: &mut Differ,
    script: &str,
    keys: &[&str],
    argv: impl Fn(&'a str, &'a str) -> [&'a str; N],
    steps: &'a str,
) {
    for line in steps.lines().map(str::trim) {
        if line.starts_with('#') {
            continue;
        }
        let [now, arg, allowed, count] = line.split_whitespace().collect::<Vec<_>>()[..] else {
            panic!("`now arg allowed count`: {line}");
        };
        let got = run(d, script, keys, &argv(now, arg));
        let int = |n: &str| Frame::Integer(n.parse().expect("an integer"));
        let want = Frame::Array(vec![int(allowed), int(count)]);
        assert_eq!(got, want, "at {now}, {arg}");
    }
}

/// A TTL in ms read from both servers; they must agree within `slack`.
fn pttl_both(d: &mut Differ, key: &str, slack: i64) -> i64 {
    let want = d.redis[0].cmd(&["PTTL", key]);
    let got = d.sim[0].cmd(&["PTTL", key]);
    let (Frame::Integer(a), Frame::Integer(b)) = (&want, &got) else {
        panic!("PTTL {key}: {want:?} / {got:?}");
    };
    assert!((a - b).abs() <= slack, "PTTL {key}: redis {a}, redsim {b}");
    *a
}

#[test]
fn unlock_only_with_the_right_token() {
    let mut d = Differ::start(1, &[]);
    check(&mut d, &["SET", "lock:job", "token-a", "NX", "PX", "30000"]);
    assert_eq!(
        run(&mut d, UNLOCK, &["lock:job"], &["token-b"]),
        Frame::Integer(0)
    );
    assert_eq!(check(&mut d, &["EXISTS", "lock:job"]), Frame::Integer(1));
    assert_eq!(
        run(&mut d, UNLOCK, &["lock:job"], &["token-a"]),
        Frame::Integer(1)
    );
    assert_eq!(check(&mut d, &["EXISTS", "lock:job"]), Frame::Integer(0));
    assert_eq!(
        run(&mut d, UNLOCK, &["lock:job"], &["token-a"]),
        Frame::Integer(0)
    );
    // The other spelling, and through EVALSHA after SCRIPT LOAD.
    check(&mut d, &["SET", "lock:job", "t1", "NX", "PX", "30000"]);
    let Frame::Bulk(sha) = check(&mut d, &["SCRIPT", "LOAD", UNLOCK_SHORT]) else {
        panic!("SCRIPT LOAD gives a SHA1");
    };
    let sha = String::from_utf8(sha).expect("hex");
    assert_eq!(
        check(&mut d, &["EVALSHA", &sha, "1", "lock:job", "t2"]),
        Frame::Integer(0)
    );
    assert_eq!(
        check(&mut d, &["EVALSHA", &sha, "1", "lock:job", "t1"]),
        Frame::Integer(1)
    );
    // A wrong type under the key makes GET fail: the error reaches the client.
    check(&mut d, &["RPUSH", "lock:list", "x"]);
    assert!(run(&mut d, UNLOCK, &["lock:list"], &["t"]).is_error());
}

#[test]
fn extend_only_while_owning_the_lock() {
    let mut d = Differ::start(1, &[]);
    check(&mut d, &["SET", "lock:r", "me", "NX", "PX", "1000"]);
    assert_eq!(
        run(&mut d, EXTEND, &["lock:r"], &["someone-else", "60000"]),
        Frame::Integer(0)
    );
    assert!(pttl_both(&mut d, "lock:r", 200) <= 1000);
    assert_eq!(
        run(&mut d, EXTEND, &["lock:r"], &["me", "60000"]),
        Frame::Integer(1)
    );
    assert!(pttl_both(&mut d, "lock:r", 200) > 59_000);
    // A bad TTL is PEXPIRE's error, raised out of the script.
    run(&mut d, EXTEND, &["lock:r"], &["me", "soon"]);
    check(&mut d, &["DEL", "lock:r"]);
    assert_eq!(
        run(&mut d, EXTEND, &["lock:r"], &["me", "60000"]),
        Frame::Integer(0)
    );
}

#[test]
fn fencing_tokens_increase_with_each_acquisition() {
    let mut d = Differ::start(1, &[]);
    let keys = ["lock:{job:42}", "lock:{job:42}:fence"];
    assert_eq!(
        run(&mut d, FENCED_ACQUIRE, &keys, &["a", "30000"]),
        Frame::Integer(1)
    );
    // Held: a second acquirer gets 0 and the counter does not move.
    assert_eq!(
        run(&mut d, FENCED_ACQUIRE, &keys, &["b", "30000"]),
        Frame::Integer(0)
    );
    assert_eq!(run(&mut d, UNLOCK, &keys[..1], &["a"]), Frame::Integer(1));
    assert_eq!(
        run(&mut d, FENCED_ACQUIRE, &keys, &["b", "30000"]),
        Frame::Integer(2)
    );
    assert_eq!(run(&mut d, UNLOCK, &keys[..1], &["b"]), Frame::Integer(1));
    assert_eq!(
        run(&mut d, FENCED_ACQUIRE, &keys, &["c", "30000"]),
        Frame::Integer(3)
    );
    assert_eq!(check(&mut d, &["GET", keys[1]]), Frame::bulk("3"));
    // A lock that expires by itself can be taken again with the next token.
    check(&mut d, &["DEL", keys[0]]);
    assert_eq!(
        run(&mut d, FENCED_ACQUIRE, &keys, &["d", "50"]),
        Frame::Integer(4)
    );
    std::thread::sleep(Duration::from_millis(120));
    assert_eq!(
        run(&mut d, FENCED_ACQUIRE, &keys, &["e", "30000"]),
        Frame::Integer(5)
    );
}

#[test]
fn fixed_window_counts_and_resets_after_the_window() {
    let mut d = Differ::start(1, &[]);
    let mut answers = Vec::new();
    for _ in 0..5 {
        answers.push(run(&mut d, FIXED_WINDOW, &["rl:user"], &["400", "3"]));
    }
    let ones = answers.iter().filter(|a| **a == Frame::Integer(1)).count();
    assert_eq!(ones, 3, "{answers:?}");
    assert_eq!(check(&mut d, &["GET", "rl:user"]), Frame::bulk("5"));
    assert!(pttl_both(&mut d, "rl:user", 200) <= 400);
    std::thread::sleep(Duration::from_millis(550));
    assert_eq!(check(&mut d, &["GET", "rl:user"]), Frame::Null);
    assert_eq!(
        run(&mut d, FIXED_WINDOW, &["rl:user"], &["400", "3"]),
        Frame::Integer(1)
    );
    // The second article's version, with the window in seconds.
    for expect in [1, 1, 0] {
        assert_eq!(
            run(&mut d, RATE_LIMIT_LUA, &["rate:u"], &["2", "60"]),
            Frame::Integer(expect)
        );
    }
    assert!(pttl_both(&mut d, "rate:u", 1500) > 58_000);
    // The third returns {allowed, count, ttl}: the TTL is wall-clock, so
    // compare the first two and check the TTL on each side.
    for round in 1..=3i64 {
        let args = ["EVAL", FIXED_WINDOW_TTL, "1", "rl:ttl", "60000", "2"];
        let refs: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        let want = d.redis[0].cmd_bytes(&refs);
        let got = d.sim[0].cmd_bytes(&refs);
        for reply in [&want, &got] {
            let Frame::Array(v) = reply else {
                panic!("an array: {reply:?}");
            };
            assert_eq!(v[0], Frame::Integer((round <= 2) as i64));
            assert_eq!(v[1], Frame::Integer(round));
            let Frame::Integer(ttl) = v[2] else {
                panic!("a TTL");
            };
            assert!((59_000..=60_000).contains(&ttl), "{ttl}");
        }
    }
}

#[test]
fn sliding_window_counts_requests_within_the_window() {
    let mut d = Differ::start(1, &[]);
    let key = ["rl:sw:42"];
    // Limit 3 per 1000 ms; times are the client's, passed in ARGV.
    let limit_3_per_second = |now, id| [now, "1000", "3", id];
    run_steps(
        &mut d,
        SLIDING_WINDOW,
        &key,
        limit_3_per_second,
        "# now  request  allowed  used
         1000  r1  1  1
         1100  r2  1  2
         1200  r3  1  3
         1300  r4  0  3
         1999  r5  0  3
         # r1 (t=1000) has left the window: one slot frees up.
         2000  r6  1  3
         2150  r7  1  3
         2150  r8  0  3
         5000  r9  1  1",
    );
    check(&mut d, &["ZRANGE", "rl:sw:42", "0", "-1", "WITHSCORES"]);
    assert!(pttl_both(&mut d, "rl:sw:42", 200) <= 1000);
}

#[test]
fn versioned_write_accepts_only_newer_versions() {
    let mut d = Differ::start(1, &[]);
    let key = ["article:781"];
    // 1 if the write replaced the entry, 0 if not.
    let write = |d: &mut Differ, version, payload| {
        run(d, VERSIONED_SET, &key, &[version, payload, "60000"])
    };
    assert_eq!(write(&mut d, "12", "v12"), Frame::Integer(1));
    assert_eq!(write(&mut d, "11", "stale"), Frame::Integer(0));
    assert_eq!(write(&mut d, "12", "same"), Frame::Integer(0));
    assert_eq!(
        check(&mut d, &["HGET", "article:781", "payload"]),
        Frame::bulk("v12")
    );
    assert_eq!(write(&mut d, "13", "v13"), Frame::Integer(1));
    // Versions compare as numbers, not strings: 100 > 99.
    assert_eq!(write(&mut d, "99", "v99"), Frame::Integer(1));
    assert_eq!(write(&mut d, "100", "v100"), Frame::Integer(1));
    check(&mut d, &["HGETALL", "article:781"]);
    assert!(pttl_both(&mut d, "article:781", 200) > 59_000);
    // A version that is not a number: tonumber gives nil and the comparison fails.
    assert!(write(&mut d, "abc", "x").is_error());
}

#[test]
fn token_bucket_refills_with_elapsed_time() {
    let mut d = Differ::start(1, &[]);
    let key = ["tb:user:7"];
    // Capacity 5, 2 tokens per second.
    let capacity_5_rate_2 = |now, cost| ["5", "2", now, cost];
    run_steps(
        &mut d,
        TOKEN_BUCKET,
        &key,
        capacity_5_rate_2,
        "# now  cost  allowed  tokens left
         10000  1  1  4
         10000  1  1  3
         10000  3  1  0
         10000  1  0  0
         10250  1  0  0
         10500  1  1  0
         13000  2  1  3
         20000  5  1  0",
    );
    check(&mut d, &["HGET", "tb:user:7", "tokens"]);
    // Fractional tokens go to HSET as Redis prints a Lua number argument:
    // 7.2 uses the shortest round-trip form, 7.0 `%.17g`.
    run(&mut d, TOKEN_BUCKET, &key, &["5", "3", "20100", "0"]);
    assert_eq!(
        d.redis[0].cmd(&["HGET", "tb:user:7", "tokens"]),
        Frame::bulk("0.29999999999999999"),
        "7.0's %.17g"
    );
    assert_eq!(
        d.sim[0].cmd(&["HGET", "tb:user:7", "tokens"]),
        Frame::bulk("0.3"),
        "7.2's fpconv_dtoa"
    );
}

#[test]
fn endless_script_is_stopped_by_the_budget() {
    // Past busy-reply-threshold an endless read-only script leaves the
    // server busy, as Redis does, until SCRIPT KILL from another client.
    let s = redsim_tests::RedsimServer::start(&["--busy-reply-threshold", "50"]);
    let mut c = s.conn();
    let eval = ["EVAL", "while true do end", "0"].map(Frame::bulk);
    c.send_raw(&Frame::Array(eval.to_vec()).to_bytes(2));
    let mut other = s.conn();
    let busy = other.cmd(&["SET", "lock", "t", "PX", "10000"]);
    assert!(
        matches!(&busy, Frame::Error(e) if e.starts_with("BUSY ")),
        "{busy:?}"
    );
    assert_eq!(other.cmd(&["SCRIPT", "KILL"]), Frame::Simple("OK".into()));
    let r = c.read_frame().expect("the killed script's reply");
    let Frame::Error(e) = &r else {
        panic!("an error: {r:?}");
    };
    assert!(
        e.starts_with("ERR Script killed by user with SCRIPT KILL..."),
        "{e}"
    );
    // The others are served again, and the unlock script still works.
    assert_eq!(
        other.cmd(&["SET", "lock", "t", "PX", "10000"]),
        Frame::Simple("OK".into())
    );
    assert_eq!(
        other.cmd(&["EVAL", UNLOCK, "1", "lock", "t"]),
        Frame::Integer(1)
    );
}
