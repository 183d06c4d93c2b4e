//! Differential tests of Redis 7 functions (FUNCTION LOAD/LIST/DELETE/FLUSH/STATS/DUMP/RESTORE, FCALL, FCALL_RO) and of DEBUG's digests against a real redis-server.

use redsim_tests::{parse, Frame, Pair};

/// A library with a writing function, a read-only one with a description,
/// and a helper that stays local.
const LIB: &str = r##"FUNCTION LOAD "#!lua name=lib\nlocal function key(keys) return keys[1] end\nredis.register_function('setit', function(keys, args) return redis.call('SET', key(keys), args[1]) end)\nredis.register_function{function_name='getit', callback=function(keys, args) return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='reads one key'}""##;

#[test]
fn load_call_list_and_delete() {
    let mut p = Pair::start(&[]);
    p.corpus(&format!(
        "{LIB}
        FCALL setit 1 k hello
        FCALL getit 1 k
        FCALL_RO getit 1 k
        FCALL_RO setit 1 k v
        FCALL nope 0
        FCALL getit x k
        FCALL getit 2 k
        FCALL getit -1 k
        FUNCTION LIST LIBRARYNAME nomatch*
        FUNCTION LIST LIBRARYNAME
        FUNCTION LIST bogus
        FUNCTION STATS
        {LIB}
        FUNCTION LOAD REPLACE \"#!lua name=lib\\nredis.register_function('setit', function() return 2 end)\"
        FCALL setit 0
        FCALL getit 1 k
        FUNCTION LOAD \"#!lua name=other\\nredis.register_function('setit', function() return 3 end)\"
        FUNCTION DELETE lib
        FUNCTION DELETE lib
        FCALL setit 0
        FUNCTION FLUSH
        FUNCTION FLUSH SYNC
        FUNCTION FLUSH bogus
        FUNCTION LIST"
    ));
}

#[test]
fn list_shows_every_function() {
    // Redis lists a library's functions in its dict's (seeded, random)
    // order, so they are compared as a set.
    let mut p = Pair::start(&[]);
    p.check(LIB);
    for line in [
        "FUNCTION LIST",
        "FUNCTION LIST WITHCODE",
        "FUNCTION LIST LIBRARYNAME li*",
        "FUNCTION LIST WITHCODE LIBRARYNAME l?b",
    ] {
        p.check_with(&parse(line), sort_functions);
    }
}

/// Sorts each library's `functions` array.
fn sort_functions(f: Frame) -> Frame {
    let Frame::Array(libs) = f else { return f };
    Frame::Array(
        libs.into_iter()
            .map(|lib| match lib {
                Frame::Array(mut fields) => {
                    for pair in fields.chunks_mut(2) {
                        if pair[0] == Frame::bulk("functions") {
                            if let Frame::Array(fs) = &mut pair[1] {
                                fs.sort_by_key(|x| format!("{x:?}"));
                            }
                        }
                    }
                    Frame::Array(fields)
                }
                other => other,
            })
            .collect(),
    )
}

#[test]
fn load_errors_are_redis_words() {
    let mut p = Pair::start(&[]);
    p.corpus(
        r##"
        FUNCTION LOAD "return 1"
        FUNCTION LOAD "#!lua\nreturn 1"
        FUNCTION LOAD "#!lua name=a-b\nreturn 1"
        FUNCTION LOAD "#!lua name=x foo=bar\nreturn 1"
        FUNCTION LOAD "#!lua name=x name=y\nreturn 1"
        FUNCTION LOAD "#!nope name=x\nreturn 1"
        FUNCTION LOAD "#!lua name=x\nreturn 1"
        FUNCTION LOAD "#!lua name=x\nreturn math.random()"
        FUNCTION LOAD "#!lua name=x\nreturn redis.call('ping')"
        FUNCTION LOAD "#!lua name=x\nredis.register_function('f')"
        FUNCTION LOAD "#!lua name=x\nredis.register_function(1, 2, 3)"
        FUNCTION LOAD "#!lua name=x\nredis.register_function({}, function() end)"
        FUNCTION LOAD "#!lua name=x\nredis.register_function('f', 'g')"
        FUNCTION LOAD "#!lua name=x\nredis.register_function{function_name='f'}"
        FUNCTION LOAD "#!lua name=x\nredis.register_function{callback=function() end}"
        FUNCTION LOAD "#!lua name=x\nredis.register_function{function_name='f', callback=function() end, flags={'bad'}}"
        FUNCTION LOAD "#!lua name=x\nredis.register_function{function_name='f', callback=function() end, flags='no-writes'}"
        FUNCTION LOAD "#!lua name=x\nredis.register_function{function_name='f', callback=function() end, other=1}"
        FUNCTION LOAD "#!lua name=x\nredis.register_function('f', function() end)\nredis.register_function('f', function() end)"
        FUNCTION LOAD "#!lua name=x\nredis.register_function('bad-name', function() end)"
        FUNCTION LOAD "#!lua name=x\nlocal a = 1 while true do a = a + 1 end"
        FUNCTION LOAD "#!lua name=x\nthis is not lua"
        FUNCTION LOAD REPLACE
        FUNCTION LOAD BOGUS "#!lua name=x\nreturn 1"
        "##,
    );
}

#[test]
fn runtime_environment() {
    let mut p = Pair::start(&[]);
    p.corpus(
        r##"
        FUNCTION LOAD "#!lua name=env\nredis.register_function('g', function(keys, args) return a end)\nredis.register_function('w', function(keys, args) b = 1 end)\nredis.register_function('k', function(keys, args) return KEYS end)\nredis.register_function('r', function(keys, args) return redis.register_function('z', function() end) end)\nredis.register_function('m', function(keys, args) return {math.floor(2.5), #keys, #args, args[2]} end)\nredis.register_function('e', function(keys, args) error('boom') end)\nredis.register_function('t', function(keys, args) return redis.error_reply('MY own') end)"
        FCALL g 0
        FCALL w 0
        FCALL k 0
        FCALL r 0
        FCALL m 2 a b x y z
        FCALL e 0
        FCALL t 0
        "##,
    );
}

#[test]
fn dump_and_restore() {
    let mut p = Pair::start(&[]);
    p.check(LIB);
    // Our payload is not byte-equal to Redis' (Redis LZF-compresses the
    // code), but each side restores its own, and ours restores Redis'.
    let Frame::Bulk(from_redis) = p.redis_only("FUNCTION DUMP") else {
        panic!("FUNCTION DUMP gives a payload")
    };
    let Frame::Bulk(ours) = p.sim_only("FUNCTION DUMP") else {
        panic!("FUNCTION DUMP gives a payload")
    };
    p.check("FUNCTION FLUSH");
    let mut restore = parse("FUNCTION RESTORE x");
    restore[2] = from_redis.clone();
    assert_eq!(
        p.sim.cmd_args(&restore),
        Frame::ok(),
        "Redis' payload loads here"
    );
    restore[2] = ours;
    if p.redis_is_7_0() {
        // 7.2 writes RDB version 11, which 7.0 (version 10) refuses: load
        // Redis' own payload there instead.
        assert_eq!(
            p.redis.cmd_args(&restore),
            Frame::err("ERR DUMP payload version or checksum are wrong")
        );
        let mut own = restore.clone();
        own[2] = from_redis.clone();
        assert_eq!(p.redis.cmd_args(&own), Frame::ok());
    } else {
        assert_eq!(
            p.redis.cmd_args(&restore),
            Frame::ok(),
            "ours loads in Redis"
        );
    }
    p.check("FCALL setit 1 k v");
    p.check_with(&parse("FUNCTION LIST WITHCODE"), sort_functions);
    // APPEND collides, REPLACE and FLUSH do not; a bad policy or payload changes nothing.
    restore[2] = from_redis;
    p.check_args(&restore);
    for policy in ["APPEND", "REPLACE", "FLUSH", "BOGUS"] {
        let mut r = restore.clone();
        r.push(policy.as_bytes().to_vec());
        p.check_args(&r);
    }
    p.corpus(
        "
        FUNCTION RESTORE bad_payload
        FUNCTION RESTORE a b c
        ",
    );
    p.check_with(&parse("FUNCTION LIST"), sort_functions);
}

#[test]
fn digests_agree_on_equality() {
    // Digest values differ between implementations; what tests rely on is
    // that equal values give equal digests and different ones do not.
    let mut p = Pair::start(&["--enable-debug-command", "yes"]);
    p.corpus(
        "
        SADD s1 1 2 3
        SADD s2 3 2 1
        RPUSH l a b
        RPUSH l2 b a
        ZADD z 1 a 2 b
        ZADD z2 2 b 1 a
        HSET h f v g w
        HSET h2 g w f v
        SET str hello
        ",
    );
    for (a, b, equal) in [
        ("s1", "s2", true),
        ("l", "l2", false),
        ("z", "z2", true),
        ("h", "h2", true),
        ("str", "s1", false),
    ] {
        for side in [true, false] {
            let line = format!("DEBUG DIGEST-VALUE {a} {b}");
            let r = if side {
                p.redis_only(&line)
            } else {
                p.sim_only(&line)
            };
            let Frame::Array(d) = r else {
                panic!("{line}: {r:?}")
            };
            assert_eq!(
                d[0] == d[1],
                equal,
                "{line} on {}",
                if side { "Redis" } else { "redsim" }
            );
        }
    }
    let zeros = Frame::simple("0".repeat(40));
    assert_eq!(
        p.sim_only("DEBUG DIGEST-VALUE missing"),
        Frame::Array(vec![zeros.clone()])
    );
    assert_eq!(
        p.redis_only("DEBUG DIGEST-VALUE missing"),
        Frame::Array(vec![zeros])
    );
}

#[test]
fn debug_is_refused_by_default() {
    let mut p = Pair::start(&[]);
    p.check("DEBUG DIGEST");
    p.check("CONFIG GET enable-debug-command");
}
