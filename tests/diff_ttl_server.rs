//! Differential tests of the expiry commands (EXPIRE family, TTL family, PERSIST) and the server commands (DBSIZE, FLUSHDB/FLUSHALL, TIME, INFO, CONFIG, COMMAND, CLIENT) between a real redis-server and the native redsim server.
//!
//! Both servers follow the wall clock, so replies that depend on time
//! passing (PTTL, EXPIRETIME of a relative expiry, TIME) are compared with a
//! tolerance; everything else byte for byte. The reference is Redis 7.0.15;
//! where 7.2 differs (CLIENT SETINFO and the `lib-name`/`lib-ver` fields,
//! a few INFO fields) redsim follows 7.2 and the test says so.

use std::collections::BTreeSet;
use std::time::Duration;

use redsim_engine::cmd::Command;
use redsim_engine::proto::clifmt::format_reply;
use redsim_engine::Engine;
use redsim_tests::{help_bodies, Conn, Frame, Pair};

/// Runs `line` on both: integer replies within `tol` of each other.
fn close(p: &mut Pair, line: &str, tol: i64) -> (i64, i64) {
    match p.both(line) {
        (Frame::Integer(a), Frame::Integer(b)) => {
            assert!((a - b).abs() <= tol, "`{line}`: redis {a}, redsim {b}");
            (a, b)
        }
        other => panic!("`{line}`: integer replies expected, got {other:?}"),
    }
}

/// One command per line, `#` comments, every reply compared exactly,
/// except that a line starting with `~` is a map reply (CONFIG GET)
/// whose pairs Redis orders by its hash table: those compare as sets.
/// Returns the number of commands.
fn corpus(p: &mut Pair, text: &str) -> usize {
    p.corpus_by(text, |p, line| match line.strip_prefix('~') {
        Some(rest) => {
            let (r, s) = p.both(rest.trim());
            assert_eq!(pairs(&r), pairs(&s), "`{rest}`");
        }
        None => {
            p.check(line);
        }
    })
}

/// Fresh servers (no options) after `text` ran through [`corpus`]: where
/// most tests here start.
fn fresh_with(text: &str) -> Pair {
    let mut p = Pair::start(&[]);
    corpus(&mut p, text);
    p
}

/// A flattened map reply as a set of (key, value) pairs.
fn pairs(f: &Frame) -> BTreeSet<(String, String)> {
    let Frame::Array(v) = f else {
        panic!("a map (flat array) reply expected, got {f:?}");
    };
    v.chunks(2).map(|kv| (text(&kv[0]), text(&kv[1]))).collect()
}

fn text(f: &Frame) -> String {
    match f {
        Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("bulk string expected, got {other:?}"),
    }
}

/// The sections plain INFO shows (also INFO default, all, everything), in
/// Redis' order.
/// INFO all's sections here: the default ones and commandstats.
const ALL_SECTIONS: [&str; 12] = [
    "Server",
    "Clients",
    "Memory",
    "Persistence",
    "Stats",
    "Replication",
    "CPU",
    "Commandstats",
    "Errorstats",
    "Latencystats",
    "Cluster",
    "Keyspace",
];

const DEFAULT_SECTIONS: [&str; 10] = [
    "Server",
    "Clients",
    "Memory",
    "Persistence",
    "Stats",
    "Replication",
    "CPU",
    "Errorstats",
    "Cluster",
    "Keyspace",
];

/// `name:value` fields of an INFO reply, by section, in order.
/// A COMMAND INFO flags array without `noscript`.
/// A flags array without `flag`.
fn without_flag(f: &Frame, flag: &'static str) -> Frame {
    match f {
        Frame::Array(v) => Frame::Array(
            v.iter()
                .filter(|x| **x != Frame::simple(flag))
                .cloned()
                .collect(),
        ),
        other => other.clone(),
    }
}

fn info_sections(f: &Frame) -> Vec<(String, Vec<(String, String)>)> {
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in text(f).split("\r\n") {
        if let Some(title) = line.strip_prefix("# ") {
            out.push((title.to_string(), Vec::new()));
        } else if let Some((k, v)) = line.split_once(':') {
            let section = out.last_mut().expect("a field before any section header");
            section.1.push((k.to_string(), v.to_string()));
        }
    }
    out
}

fn info_field(f: &Frame, name: &str) -> Option<String> {
    info_sections(f)
        .into_iter()
        .flat_map(|(_, fields)| fields)
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

#[test]
fn expire_family_options_errors_and_edge_cases() {
    let mut p = Pair::start(&[]);
    let n = corpus(
        &mut p,
        r#"
        FLUSHALL
        SET k v
        EXPIRE k 100
        TTL k
        EXPIRE k 100 NX
        EXPIRE k 200 XX
        TTL k
        EXPIRE k 50 GT
        EXPIRE k 300 GT
        EXPIRE k 400 LT
        EXPIRE k 150 LT
        TTL k
        # Absolute times, so equal expiries really are equal.
        PEXPIREAT k 99999999999999
        PEXPIREAT k 99999999999999 GT
        PEXPIREAT k 99999999999999 LT
        PEXPIREAT k 99999999999999 XX
        PEXPIREAT k 99999999999998 LT XX
        PEXPIREAT k 99999999999999 xx gt
        PEXPIRETIME k
        EXPIRETIME k
        PEXPIREAT k 99999999999499
        EXPIRETIME k
        PERSIST k
        PERSIST k
        TTL k
        PTTL k
        EXPIRETIME k
        PEXPIRETIME k
        # No TTL counts as an infinite one for GT and LT.
        EXPIRE k 100 GT
        TTL k
        EXPIRE k 100 XX
        EXPIRE k 100 LT
        TTL k
        PERSIST k
        EXPIRE k 100 NX
        EXPIRE k 100 NX
        EXPIRE k 100 nx nx
        # Option errors, checked before the number.
        EXPIRE k 100 NX XX
        EXPIRE k 100 XX NX
        EXPIRE k 100 NX GT
        EXPIRE k 100 LT NX
        EXPIRE k 100 GT LT
        EXPIRE k 100 lt gt
        EXPIRE k 100 GT LT NX
        EXPIRE k 100 FOO
        EXPIRE k 100 NX FOO
        EXPIRE k abc NX XX
        EXPIRE k abc FOO
        EXPIRE k 100 "a\r\nb"
        PEXPIRE k 100 bar
        EXPIRE k abc
        EXPIRE k 1.5
        EXPIRE k " 1"
        EXPIRE k +1
        EXPIRE k 01
        EXPIRE k ""
        # Overflow of the unit conversion or of the base time.
        EXPIRE k 9223372036854775807
        EXPIRE k -9223372036854775808
        EXPIRE k 9223372036854776
        EXPIRE k -9223372036854776
        PEXPIRE k 9223372036854775807
        EXPIREAT k 9223372036854775807
        EXPIREAT k 9223372036854775
        EXPIRETIME k
        PEXPIRETIME k
        PEXPIREAT k 9223372036854775807
        PEXPIRETIME k
        EXPIRETIME k
        PEXPIRE k -9223372036854775808
        EXISTS k
        # Missing keys.
        EXPIRE missing 10
        EXPIRE missing 10 NX
        PEXPIRE missing -1
        EXPIREAT missing 1
        TTL missing
        PTTL missing
        EXPIRETIME missing
        PEXPIRETIME missing
        PERSIST missing
        EXPIRE missing 10 NX XX
        EXPIRE missing x
        # A time not in the future deletes the key.
        SET k v
        EXPIRE k -1
        EXISTS k
        SET k v
        PEXPIRE k 0
        GET k
        SET k v
        EXPIREAT k 1
        EXISTS k
        SET k v
        PEXPIREAT k 1000
        EXISTS k
        SET k v
        EXPIRE k 0 GT
        EXISTS k
        EXPIRE k -5 LT
        EXISTS k
        SET k v EX 100
        EXPIRE k -1 NX
        EXPIRE k -1 XX
        EXISTS k
        # Arity and case.
        EXPIRE k
        EXPIRE
        PEXPIREAT k
        TTL
        TTL a b
        PTTL a b
        EXPIRETIME
        PEXPIRETIME a b
        PERSIST
        PERSIST a b
        SET k v
        eXpIrE k 1000 nX
        tTl k
        pErSiSt k
        "#,
    );
    assert!(n > 100, "{n} lines");
}

#[test]
fn expiry_stats_and_lookups() {
    let mut p = fresh_with(
        "FLUSHALL
         SET live v
         SET gone v
         CONFIG RESETSTAT
         EXPIRE gone -1
         TTL live
         TTL nosuch
         PTTL nosuch
         PERSIST nosuch
         EXPIRE nosuch 10",
    );
    // A past EXPIRE is a deletion, not an expiry; TTL counts a hit or a
    // miss (it only skips the LRU update); write lookups count nothing.
    let (r, s) = p.both("INFO stats");
    let want = [
        ("expired_keys", "0"),
        ("keyspace_hits", "1"),
        ("keyspace_misses", "2"),
    ];
    for (field, value) in want {
        assert_eq!(info_field(&r, field), info_field(&s, field), "{field}");
        assert_eq!(info_field(&s, field).as_deref(), Some(value), "{field}");
    }
}

#[test]
fn ttl_after_set_with_expiry_options() {
    let mut p = fresh_with(
        "FLUSHALL
         SET a v EX 100
         TTL a
         SET b v PX 1300
         TTL b
         SETEX c 50 v
         TTL c
         PSETEX d 2200 v
         TTL d
         SET a v KEEPTTL
         TTL a
         SET a v
         TTL a",
    );
    p.check("SET e v PX 100000");
    let (r, s) = close(&mut p, "PTTL e", 300);
    assert!((99_000..=100_000).contains(&s), "PTTL {s} (redis {r})");
    p.check("SET f v EX 100");
    let (_, s) = close(&mut p, "EXPIRETIME f", 1);
    let (_, s_ms) = close(&mut p, "PEXPIRETIME f", 300);
    assert_eq!(s, (s_ms + 500) / 1000);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs() as i64;
    p.check(&format!("SET g v EXAT {}", now + 100));
    close(&mut p, "TTL g", 1);
    close(&mut p, "EXPIRETIME g", 0);
}

#[test]
fn keys_expire_in_real_time_on_both_servers() {
    let mut p =
        fresh_with("FLUSHALL\nCONFIG RESETSTAT\nSET k v PX 100\nSET j v PX 100\nSET stay v");
    std::thread::sleep(Duration::from_millis(200));
    corpus(&mut p, "GET k\nTTL k\nEXISTS k");
    // `j` is never touched: the active expire cycle reclaims it on both.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (r, s) = p.both("DBSIZE");
        if r == Frame::Integer(1) && s == Frame::Integer(1) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "redis {r:?}, redsim {s:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let (r, s) = p.both("INFO stats");
    for info in [r, s] {
        assert_eq!(info_field(&info, "expired_keys").as_deref(), Some("2"));
    }
}

#[test]
fn dbsize_flushdb_flushall() {
    let mut p = fresh_with(
        "FLUSHALL
         DBSIZE
         SET a 1
         SET b 2
         SET c 3 EX 100
         DBSIZE
         SELECT 1
         SET x 1
         DBSIZE
         SELECT 0
         FLUSHDB
         DBSIZE
         SELECT 1
         DBSIZE
         FLUSHDB ASYNC
         DBSIZE
         SET y 1
         SELECT 0
         SET z 1
         FLUSHALL SYNC
         DBSIZE
         SELECT 1
         DBSIZE
         SELECT 0
         FLUSHDB foo
         FLUSHDB SYNC ASYNC
         FLUSHALL ASYNC extra
         flushdb async
         FlushAll sYnC
         DBSIZE x
         SET a 1
         SET b 2 EX 100",
    );
    // avg_ttl depends on when each server's cycle sampled: compare the rest.
    let (r, s) = p.both("INFO keyspace");
    let strip = |f: &Frame| text(f).split(",avg_ttl").next().map(str::to_string);
    assert_eq!(strip(&r), strip(&s));
    assert!(text(&s).contains("db0:keys=2,expires=1,avg_ttl="));
}

#[test]
fn time_shape() {
    let mut p = Pair::start(&[]);
    let parts = |f: Frame| -> (i64, i64) {
        let Frame::Array(v) = f else {
            panic!("TIME reply {f:?}");
        };
        assert_eq!(v.len(), 2);
        let n: Vec<i64> = v
            .iter()
            .map(|x| {
                let t = text(x);
                assert!(
                    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()),
                    "{t}"
                );
                t.parse().expect("digits")
            })
            .collect();
        (n[0], n[1])
    };
    let (r, s) = p.both("TIME");
    let ((rs, ru), (ss, su)) = (parts(r), parts(s));
    assert!(ru < 1_000_000 && su < 1_000_000);
    assert!((rs - ss).abs() <= 2, "redis {rs}, redsim {ss}");
    p.check("TIME x");
}

/// Every command and subcommand of our table, with its full name.
fn table() -> Vec<(String, &'static Command)> {
    let mut out = Vec::new();
    for c in redsim_engine::cmd::all() {
        out.push((c.name.to_string(), c));
        for s in c.subcommands {
            out.push((format!("{}|{}", c.name, s.name), s));
        }
    }
    out
}

#[test]
fn command_info_matches_redis_for_every_shared_command() {
    let mut p = Pair::start(&[]);
    let mut compared = 0;
    let mut only_ours = Vec::new();
    let mut mismatches = Vec::new();
    for (full, _) in table() {
        let (Frame::Array(r), Frame::Array(s)) = p.both(&format!("COMMAND INFO {full}")) else {
            panic!("COMMAND INFO {full}");
        };
        let (Some(r), Some(s)) = (r.first(), s.first()) else {
            panic!("COMMAND INFO {full}: one entry each");
        };
        let Frame::Array(r) = r else {
            // Redis 7.0 lacks it (CLIENT SETINFO is 7.2's).
            only_ours.push(full);
            continue;
        };
        let Frame::Array(s) = s else {
            panic!("redsim has no COMMAND INFO for {full}");
        };
        assert_eq!(s.len(), 10, "{full}: ten fields");
        // Name, arity, flags, first key, last key, step, ACL categories.
        for i in 0..7 {
            // 7.2's ZRANK/ZREVRANK WITHSCORE made their arity -3 (7.0: 3).
            let arity_72 = i == 1 && matches!(full.as_str(), "zrank" | "zrevrank");
            if arity_72 && r[i] == Frame::Integer(3) && s[i] == Frame::Integer(-3) {
                continue;
            }
            // 7.2 lowered COMMAND GETKEYS[ANDFLAGS]' arity to -3 (7.0: -4).
            let getkeys_72 =
                i == 1 && matches!(full.as_str(), "command|getkeys" | "command|getkeysandflags");
            if getkeys_72 && r[i] == Frame::Integer(-4) && s[i] == Frame::Integer(-3) {
                continue;
            }
            // 7.2 lets scripts call WAIT and the blocking pops (its table
            // drops NOSCRIPT; 7.0 has it).
            let noscript_72 = i == 2
                && matches!(
                    full.as_str(),
                    "wait" | "blpop" | "brpop" | "blmove" | "brpoplpush" | "bzpopmin" | "bzpopmax"
                )
                && without_flag(&r[i], "noscript") == s[i];
            // 7.2 lets CLUSTER SLOTS and SHARDS answer while loading (#12269:
            // LOADING in its table; 7.0 lacks it).
            let loading_72 = i == 2
                && matches!(full.as_str(), "cluster|slots" | "cluster|shards")
                && without_flag(&s[i], "loading") == r[i];
            if r[i] != s[i] && !noscript_72 && !loading_72 {
                mismatches.push(format!(
                    "{full} field {i}: redis {} / redsim {}",
                    format_reply(&r[i]).replace('\n', " "),
                    format_reply(&s[i]).replace('\n', " ")
                ));
            }
        }
        compared += 1;
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(compared > 60, "only {compared} commands compared");
    assert!(
        // CLUSTER MYSHARDID, CLIENT NO-TOUCH and WAITAOF are 7.2's too.
        only_ours.iter().all(|n| matches!(
            n.as_str(),
            "client|setinfo" | "cluster|myshardid" | "client|no-touch" | "waitaof"
        )),
        "{only_ours:?}"
    );
    // Unknown names give nil in place; container lookups work with `|`.
    let (r, s) = p.both("COMMAND INFO get nosuch config|nosuch get|x");
    let nils = |f: &Frame| match f {
        Frame::Array(v) => v.iter().map(|x| *x == Frame::Null).collect::<Vec<_>>(),
        _ => panic!("array expected"),
    };
    assert_eq!(nils(&r), nils(&s));
    assert_eq!(nils(&s), [false, true, true, true]);
}

#[test]
fn command_count_list_docs_and_help() {
    let mut p = Pair::start(&[]);
    let tops = redsim_engine::cmd::all().count() as i64;
    assert_eq!(p.sim.cmd(&["COMMAND", "COUNT"]), Frame::Integer(tops));
    let Frame::Array(all) = p.sim.cmd(&["COMMAND"]) else {
        panic!("COMMAND reply");
    };
    assert_eq!(all.len() as i64, tops);
    let Frame::Array(info_all) = p.sim.cmd(&["COMMAND", "INFO"]) else {
        panic!("COMMAND INFO reply");
    };
    assert_eq!(info_all, all);

    let names = |f: Frame| -> BTreeSet<String> {
        let Frame::Array(v) = f else {
            panic!("array expected");
        };
        v.iter().map(text).collect()
    };
    let list = names(p.sim.cmd(&["COMMAND", "LIST"]));
    let want: BTreeSet<String> = table().into_iter().map(|(n, _)| n).collect();
    assert_eq!(list, want);
    // Filters: what both servers list must agree on the commands we have.
    for filter in [
        "COMMAND LIST FILTERBY PATTERN *expire*",
        "COMMAND LIST FILTERBY PATTERN CONFIG|*",
        "COMMAND LIST FILTERBY ACLCAT keyspace",
        "COMMAND LIST FILTERBY ACLCAT dangerous",
        "COMMAND LIST FILTERBY ACLCAT nosuchcat",
        "COMMAND LIST FILTERBY MODULE nosuch",
    ] {
        let (r, s) = p.both(filter);
        let (r, s) = (names(r), names(s));
        let r: BTreeSet<String> = r.intersection(&want).cloned().collect();
        assert_eq!(r, s, "{filter}");
    }
    assert!(names(
        p.sim
            .cmd(&["COMMAND", "LIST", "FILTERBY", "PATTERN", "*ttl"])
    )
    .contains("pttl"));
    corpus(
        &mut p,
        "COMMAND LIST FILTERBY
         COMMAND LIST FILTERBY FOO bar
         COMMAND LIST foo
         COMMAND COUNT x
         COMMAND FOO
         COMMAND HELP x
         COMMAND GETKEYS get k
         COMMAND GETKEYS GET k
         COMMAND GETKEYS mset a 1 b 2
         COMMAND GETKEYS mset a 1 b
         COMMAND GETKEYS mget a b c
         COMMAND GETKEYS set k v EX 10
         COMMAND GETKEYS expire k 10 NX
         COMMAND GETKEYS rename a b
         COMMAND GETKEYS del a b c
         COMMAND GETKEYS object encoding k
         COMMAND GETKEYS object nosuch k
         COMMAND GETKEYS ping x
         COMMAND GETKEYS dbsize x
         COMMAND GETKEYS config get hz
         COMMAND GETKEYS nosuch a
         COMMAND GETKEYS get a b
         COMMAND GETKEYS",
    );

    // DOCS: the same group and version as Redis for what both have, and
    // arguments redis-cli can turn into hints.
    for (full, cmd) in table() {
        let (r, s) = p.both(&format!("COMMAND DOCS {full}"));
        let field = |f: &Frame, key: &str| -> Option<Frame> {
            let Frame::Array(outer) = f else {
                panic!("COMMAND DOCS reply");
            };
            let Frame::Array(doc) = outer.get(1)? else {
                panic!("docs map");
            };
            doc.chunks(2)
                .find(|kv| kv[0] == Frame::bulk(key))
                .map(|kv| kv[1].clone())
        };
        assert_eq!(field(&s, "summary"), Some(Frame::bulk(cmd.summary())));
        if field(&r, "group").is_some() {
            assert_eq!(field(&r, "group"), field(&s, "group"), "{full} group");
            assert_eq!(field(&r, "since"), field(&s, "since"), "{full} since");
        }
    }
    let Frame::Array(docs) = p.sim.cmd(&["COMMAND", "DOCS", "expire"]) else {
        panic!("COMMAND DOCS expire");
    };
    let rendered = format_reply(&Frame::Array(docs));
    for part in [
        "\"key\"",
        "\"seconds\"",
        "\"oneof\"",
        "\"NX\"",
        "\"LT\"",
        "optional",
    ] {
        assert!(rendered.contains(part), "{part} missing from {rendered}");
    }
    assert_eq!(
        p.sim.cmd(&["COMMAND", "DOCS", "nosuch"]),
        Frame::Array(vec![])
    );

    let (r, s) = p.both("COMMAND HELP");
    let first = |f: &Frame| match f {
        Frame::Array(v) => v.first().cloned(),
        _ => None,
    };
    assert_eq!(first(&r), first(&s));
}

/// Parameters whose CONFIG GET differs from Redis 7.0's by design: where
/// the server listens and runs (each server has its own working directory),
/// the parameters 7.2 added (the listpack sets, which diff_set.rs checks,
/// the collation locale, the cluster's human node names and its hidden ping
/// interval), and Redsim's
/// own (the page's memory budget, the CPU cost model).
const UNLIKE_REDIS_7_0: [&str; 10] = [
    "port",
    "bind",
    "dir",
    "set-max-listpack-entries",
    "set-max-listpack-value",
    "locale-collate",
    "cluster-announce-human-nodename",
    "cluster-ping-interval",
    "redsim-memory-budget",
    "redsim-cpu-model",
];

#[test]
fn config_get_and_set_match_redis() {
    let mut p = Pair::start(&[]);
    // Our parameters have Redis' defaults (port and bind differ by design).
    for param in redsim_engine::server::config::PARAMS {
        if UNLIKE_REDIS_7_0.contains(&param.name) {
            continue;
        }
        p.check(&format!("CONFIG GET {}", param.name));
    }
    corpus(
        &mut p,
        r#"
        CONFIG GET HZ
        CONFIG GET hz HZ
        CONFIG GET nosuch
        ~CONFIG GET hz nosuch maxmemory
        CONFIG SET hz 20
        CONFIG GET hz
        CONFIG SET hz 1000
        CONFIG GET hz
        CONFIG SET hz 0
        CONFIG GET hz
        CONFIG SET hz -1
        CONFIG SET hz 2147483648
        CONFIG SET hz 010
        CONFIG SET hz +5
        CONFIG SET hz " 5"
        CONFIG SET hz abc
        CONFIG SET HZ 10
        CONFIG GET hz
        CONFIG SET maxmemory 100mb
        CONFIG GET maxmemory
        CONFIG SET maxmemory 1GB
        CONFIG GET maxmemory
        CONFIG SET maxmemory 3k
        CONFIG GET maxmemory
        CONFIG SET maxmemory ""
        CONFIG GET maxmemory
        CONFIG SET maxmemory kb
        CONFIG SET maxmemory 1.5mb
        CONFIG SET maxmemory -1
        CONFIG SET maxmemory 10tb
        CONFIG SET maxmemory 0
        CONFIG SET maxmemory-policy allkeys-lru
        CONFIG GET maxmemory-policy
        CONFIG SET maxmemory-policy ALLKEYS-LFU
        CONFIG GET maxmemory-policy
        CONFIG SET maxmemory-policy foo
        CONFIG SET maxmemory-policy noeviction
        CONFIG SET maxmemory-samples 10
        CONFIG SET maxmemory-samples 0
        CONFIG SET maxmemory-samples 5
        CONFIG SET lfu-log-factor -1
        CONFIG SET lfu-log-factor 5
        CONFIG SET lfu-log-factor 10
        CONFIG SET lfu-decay-time 2
        CONFIG SET lfu-decay-time 1
        CONFIG SET active-expire-effort 11
        CONFIG SET active-expire-effort 0
        CONFIG SET active-expire-effort 5
        CONFIG GET active-expire-effort
        CONFIG SET active-expire-effort 1
        CONFIG SET proto-max-bulk-len 10
        CONFIG SET proto-max-bulk-len 1mb
        CONFIG GET proto-max-bulk-len
        CONFIG SET proto-max-bulk-len 512mb
        CONFIG SET databases 4
        CONFIG SET nosuch 1
        CONFIG SET hz 10 nosuch 1
        CONFIG SET nosuch 1 databases 2
        CONFIG SET databases 2 nosuch 1
        CONFIG SET hz 11 HZ 12
        CONFIG SET hz 11 maxmemory abc
        CONFIG GET hz
        CONFIG SET maxmemory abc hz 11
        CONFIG SET hz 12 maxmemory-policy foo lfu-log-factor 3
        CONFIG GET hz
        CONFIG GET lfu-log-factor
        CONFIG SET hz 12 lfu-log-factor 3
        CONFIG GET hz
        CONFIG GET lfu-log-factor
        CONFIG SET hz 10 lfu-log-factor 10
        CONFIG SET hz
        CONFIG SET hz 1 2
        CONFIG SET
        CONFIG GET
        CONFIG
        CONFIG FOO
        CONFIG RESETSTAT
        CONFIG RESETSTAT x
        config get Maxmemory-Policy
        "#,
    );
    // Globs: every match of ours is one of Redis', with the same value.
    for pat in ["maxmemory*", "*expire*", "h?", "lfu-[dl]*", "*"] {
        let (r, s) = p.both(&format!("CONFIG GET {pat}"));
        let (r, s) = (pairs(&r), pairs(&s));
        let ours: BTreeSet<(String, String)> = s
            .iter()
            .filter(|(k, _)| !UNLIKE_REDIS_7_0.contains(&k.as_str()))
            .cloned()
            .collect();
        assert!(!s.is_empty(), "{pat}");
        assert!(ours.is_subset(&r), "{pat}: {ours:?} not in {r:?}");
    }
    // No CONFIG REWRITE here (no configuration file): its lines are missing.
    let v70 = p.redis_is_7_0();
    let (r, s) = p.both("CONFIG HELP");
    let (r, s) = help_bodies("CONFIG HELP", r, s, v70);
    assert_eq!(r[0], s[0]);
}

#[test]
fn persistence_parameters_are_settable_as_in_redis() {
    // Persistence is simulated (no files): the parameters read and change as
    // Redis' do. AOF is only turned on here, so the real server writes nothing.
    let mut p = Pair::start(&[]);
    p.check("CONFIG GET save");
    p.check("CONFIG GET appendonly");
    p.check("CONFIG GET appendfsync");
    p.check("CONFIG SET appendfsync always");
    p.check("CONFIG GET appendfsync");
    p.check("CONFIG SET save \"\"");
    p.check("CONFIG SET appendonly maybe");
    assert_eq!(
        p.sim.cmd(&["CONFIG", "SET", "appendonly", "yes"]),
        Frame::ok()
    );
    let info = match p.sim.cmd(&["INFO", "persistence"]) {
        Frame::Verbatim(_, b) | Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
        other => panic!("INFO persistence: {other:?}"),
    };
    assert!(info.contains("aof_enabled:1"), "{info}");
}

#[test]
fn info_sections_fields_and_order() {
    let mut p = fresh_with("FLUSHALL\nCONFIG RESETSTAT\nSET k v\nGET k\nGET nosuch");
    let (r, s) = p.both("INFO");
    let (rs, ss) = (info_sections(&r), info_sections(&s));
    let titles = |v: &[(String, Vec<(String, String)>)]| -> Vec<String> {
        v.iter().map(|(t, _)| t.clone()).collect()
    };
    assert_eq!(titles(&ss), DEFAULT_SECTIONS);
    // Ours come in Redis' order, and each field exists in Redis' section
    // at the same relative place. Redis 7.0 lacks a few 7.2 fields.
    let redsim_only = [
        "redsim_version",
        "redsim_refused_commands",
        "redsim_memory_budget",
        "redsim_memory_budget_human",
    ];
    let new_in_7_2 = [
        "listener0",
        "total_blocking_keys",
        "total_blocking_keys_on_nokey",
        "acl_access_denied_auth",
        "acl_access_denied_cmd",
        "acl_access_denied_key",
        "acl_access_denied_channel",
    ];
    let rtitles = titles(&rs);
    let mut last = 0;
    for (title, fields) in &ss {
        let at = rtitles
            .iter()
            .position(|t| t == title)
            .unwrap_or_else(|| panic!("Redis has no {title} section"));
        assert!(at >= last, "{title} out of order");
        last = at;
        let theirs: Vec<&str> = rs[at].1.iter().map(|(k, _)| k.as_str()).collect();
        let mut pos = 0;
        for (k, _) in fields {
            if redsim_only.contains(&k.as_str()) || new_in_7_2.contains(&k.as_str()) {
                continue;
            }
            let found = theirs[pos..]
                .iter()
                .position(|t| t == k)
                .unwrap_or_else(|| panic!("{title}: `{k}` missing or out of Redis' order"));
            pos += found + 1;
        }
    }
    for (name, same_value) in [
        ("redis_mode", true),
        ("process_supervised", true),
        ("uptime_in_days", true),
        ("hz", true),
        ("configured_hz", true),
        ("connected_clients", true),
        ("maxmemory", true),
        ("maxmemory_human", true),
        ("maxmemory_policy", true),
        ("keyspace_hits", true),
        ("keyspace_misses", true),
        ("expired_keys", true),
        ("evicted_keys", true),
        ("db0", true),
        ("used_memory", false),
        ("used_memory_human", false),
        ("used_memory_peak", false),
        ("run_id", false),
        ("uptime_in_seconds", false),
        ("server_time_usec", false),
        ("lru_clock", false),
        ("expired_stale_perc", false),
        ("total_commands_processed", false),
    ] {
        let (a, b) = (info_field(&r, name), info_field(&s, name));
        assert!(b.is_some(), "redsim INFO lacks {name}");
        if same_value {
            assert_eq!(a, b, "{name}");
        }
    }
    assert_eq!(
        info_field(&s, "redis_version").as_deref(),
        Some(redsim_engine::REDIS_VERSION)
    );
    assert!(info_field(&s, "redsim_version").is_some());
    assert_eq!(
        info_field(&s, "db0").as_deref(),
        Some("keys=1,expires=0,avg_ttl=0")
    );
    assert_eq!(info_field(&s, "run_id").map(|v| v.len()), Some(40));
    let human = info_field(&s, "used_memory_human").expect("used_memory_human");
    assert!(human.ends_with('K') || human.ends_with('M'), "{human}");
    let server_us: u64 = info_field(&s, "server_time_usec")
        .and_then(|v| v.parse().ok())
        .expect("server_time_usec");
    let redis_us: u64 = info_field(&r, "server_time_usec")
        .and_then(|v| v.parse().ok())
        .expect("server_time_usec");
    assert!(server_us.abs_diff(redis_us) < 2_000_000);

    // Section selection: any case, several, default/all/everything, unknown.
    for (args, want) in [
        ("INFO server", vec!["Server"]),
        ("INFO SERVER", vec!["Server"]),
        ("INFO keyspace Server", vec!["Server", "Keyspace"]),
        ("INFO stats stats", vec!["Stats"]),
        ("INFO nosuch", vec![]),
        ("INFO default", DEFAULT_SECTIONS.to_vec()),
        ("INFO all", ALL_SECTIONS.to_vec()),
        ("INFO everything", ALL_SECTIONS.to_vec()),
        ("INFO commandstats", vec!["Commandstats"]),
    ] {
        let (r, s) = p.both(args);
        assert_eq!(titles(&info_sections(&s)), want, "{args}");
        let rt = titles(&info_sections(&r));
        assert!(
            want.iter().all(|t| rt.iter().any(|x| x == t)),
            "{args}: {rt:?}"
        );
        if want.is_empty() {
            assert_eq!(r, s, "{args}");
        }
    }
    // Text layout: CRLF lines, a blank line between sections.
    let t = text(&p.sim.cmd(&["INFO", "server", "clients"]));
    assert!(t.starts_with("# Server\r\nredis_version:"));
    assert!(t.contains("\r\n\r\n# Clients\r\n"));
    assert!(t.ends_with("\r\n") && !t.ends_with("\r\n\r\n"));

    // maxmemory in INFO follows CONFIG SET, with Redis' human form.
    p.check("CONFIG SET maxmemory 100mb");
    let (r, s) = p.both("INFO memory");
    for name in ["maxmemory", "maxmemory_human", "maxmemory_policy"] {
        assert_eq!(info_field(&r, name), info_field(&s, name), "{name}");
    }
    p.check("CONFIG SET maxmemory 0");
}

#[test]
fn client_commands() {
    let mut p = Pair::start(&[]);
    let (Frame::Integer(_), Frame::Integer(sim_id)) = p.both("CLIENT ID") else {
        panic!("CLIENT ID gives an integer");
    };
    corpus(
        &mut p,
        r#"
        CLIENT GETNAME
        CLIENT SETNAME foo
        CLIENT GETNAME
        CLIENT SETNAME "a b"
        CLIENT SETNAME "a\nb"
        CLIENT GETNAME
        CLIENT SETNAME ""
        CLIENT GETNAME
        CLIENT SETNAME
        CLIENT SETNAME a b
        CLIENT ID x
        CLIENT LIST TYPE foo
        CLIENT LIST ID x
        CLIENT LIST ID 1 x
        CLIENT LIST foo
        CLIENT LIST TYPE
        CLIENT LIST ID
        CLIENT FOO
        CLIENT
        CLIENT SETNAME me
        "#,
    );
    // A second connection on each, so the list has two lines.
    let (mut r2, mut s2) = p.new_conns();
    r2.cmd(&["CLIENT", "SETNAME", "other"]);
    s2.cmd(&["CLIENT", "SETNAME", "other"]);
    s2.cmd(&["SELECT", "3"]);
    let (r, s) = p.both("CLIENT LIST");
    let (rl, sl) = (text(&r), text(&s));
    assert_eq!(rl.lines().count(), 2);
    assert_eq!(sl.lines().count(), 2);
    assert!(sl.ends_with('\n'));
    let mine = sl.lines().next().expect("first line");
    assert!(mine.starts_with(&format!("id={sim_id} ")), "{mine}");
    for part in [
        "name=me",
        "cmd=client|list",
        "db=0",
        "flags=N",
        "resp=2",
        "user=default",
    ] {
        assert!(mine.contains(part), "{part} not in {mine}");
    }
    let other = sl.lines().nth(1).expect("second line");
    for part in ["name=other", "cmd=select", "db=3"] {
        assert!(other.contains(part), "{part} not in {other}");
    }
    // The fields Redis 7.0 shows, in its order (7.2 adds lib-name, lib-ver).
    let keys = |l: &str| -> Vec<String> {
        l.split(' ')
            .filter_map(|kv| kv.split_once('=').map(|(k, _)| k.to_string()))
            .collect()
    };
    let rkeys = keys(rl.lines().next().expect("redis line"));
    let skeys: Vec<String> = keys(mine)
        .into_iter()
        .filter(|k| k != "lib-name" && k != "lib-ver")
        .collect();
    assert_eq!(rkeys, skeys);

    let (r, s) = p.both(&format!("CLIENT LIST ID {sim_id} 999999"));
    assert_eq!(text(&s).lines().count(), 1);
    assert!(text(&r).lines().count() <= 1);
    let (_, s) = p.both("CLIENT LIST TYPE normal");
    assert_eq!(text(&s).lines().count(), 2);
    let (_, s) = p.both("CLIENT LIST TYPE pubsub");
    assert_eq!(text(&s), "");
    let (r, s) = p.both("CLIENT INFO");
    assert_eq!(text(&r).lines().count(), 1);
    assert!(text(&s).ends_with('\n'));
    assert!(text(&s).contains("cmd=client|info"));
    let (r, s) = p.both("CLIENT HELP");
    let (Frame::Array(r), Frame::Array(s)) = (r, s) else {
        panic!("CLIENT HELP");
    };
    assert_eq!(r[0], s[0]);

    // CLIENT SETINFO is Redis 7.2's (redis-py sends it on connect).
    let setinfo = |c: &mut Conn, a: &str, v: &str| c.cmd(&["CLIENT", "SETINFO", a, v]);
    assert_eq!(setinfo(&mut p.sim, "LIB-NAME", "redis-py"), Frame::ok());
    assert_eq!(setinfo(&mut p.sim, "lib-ver", "5.0.1"), Frame::ok());
    let info = text(&p.sim.cmd(&["CLIENT", "INFO"]));
    assert!(
        info.contains(" lib-name=redis-py lib-ver=5.0.1\n"),
        "{info}"
    );
    assert_eq!(
        setinfo(&mut p.sim, "foo", "x"),
        Frame::err("ERR Unrecognized option 'foo'")
    );
    assert_eq!(
        setinfo(&mut p.sim, "Lib-Name", "a b"),
        Frame::err("ERR Lib-Name cannot contain spaces, newlines or special characters.")
    );
    assert_eq!(
        p.sim.cmd(&["CLIENT", "SETINFO", "lib-name"]),
        Frame::err("ERR wrong number of arguments for 'client|setinfo' command")
    );
    assert_eq!(setinfo(&mut p.sim, "lib-name", ""), Frame::ok());
    assert!(text(&p.sim.cmd(&["CLIENT", "INFO"])).contains(" lib-name= lib-ver=5.0.1\n"));
}

/// TTL's rounding, checked on the virtual clock where it can be exact.
#[test]
fn ttl_rounds_to_the_nearest_second() {
    let mut e = Engine::new(5);
    let c = e.connect("t");
    let run = |e: &mut Engine, line: &str| e.execute_line(c, line);
    for (px, ttl) in [(1500, 2), (1499, 1), (500, 1), (499, 0), (1, 0)] {
        run(&mut e, &format!("SET k{px} v PX {px}"));
        assert_eq!(
            run(&mut e, &format!("TTL k{px}")),
            Frame::Integer(ttl),
            "PX {px}"
        );
        assert_eq!(run(&mut e, &format!("PTTL k{px}")), Frame::Integer(px));
    }
    // At the expiry instant the key still exists with 0 left; 1 ms later it is gone.
    run(&mut e, "SET edge v PX 5");
    e.advance_by(5_000);
    assert_eq!(run(&mut e, "PTTL edge"), Frame::Integer(0));
    assert_eq!(run(&mut e, "TTL edge"), Frame::Integer(0));
    e.advance_by(1_000);
    assert_eq!(run(&mut e, "PTTL edge"), Frame::Integer(-2));
    // EXPIRETIME rounds the absolute time the same way.
    let now_ms = e.unix_ms();
    let at = now_ms - now_ms % 1000 + 100_000 + 499;
    run(&mut e, &format!("SET abs v PXAT {at}"));
    assert_eq!(run(&mut e, "EXPIRETIME abs"), Frame::Integer(at / 1000));
    run(&mut e, &format!("PEXPIREAT abs {}", at + 1));
    assert_eq!(run(&mut e, "EXPIRETIME abs"), Frame::Integer(at / 1000 + 1));
    // A PEXPIREAT in the past is a deletion (in the trace), not an expiry.
    run(&mut e, "PEXPIREAT abs 1");
    let last_delete = e
        .trace()
        .events()
        .filter_map(|ev| match &ev.event {
            redsim_engine::server::trace::Event::Deleted { key, cause, .. } => {
                Some((key.clone(), *cause))
            }
            _ => None,
        })
        .last();
    assert_eq!(
        last_delete,
        Some((
            "abs".to_string(),
            redsim_engine::server::trace::DeleteCause::Expire
        ))
    );
    assert_eq!(e.stats().expired_keys, 1);
}

/// FLUSHDB and FLUSHALL are single trace events with the number of keys
/// they dropped; DBSIZE counts expired keys not yet reclaimed, as Redis does.
#[test]
fn flushes_are_traced_and_dbsize_counts_pending_expiries() {
    use redsim_engine::server::trace::Event;
    let mut e = Engine::new(9);
    let c = e.connect("t");
    for line in [
        "SET a 1",
        "SET b 2 PX 10",
        "SELECT 2",
        "SET c 3",
        "SELECT 0",
    ] {
        e.execute_line(c, line);
    }
    e.advance_by(20_000);
    assert_eq!(e.execute_line(c, "DBSIZE"), Frame::Integer(2));
    assert_eq!(e.execute_line(c, "FLUSHDB"), Frame::ok());
    assert_eq!(e.execute_line(c, "FLUSHALL ASYNC"), Frame::ok());
    let flushes: Vec<(Option<u32>, u64)> = e
        .trace()
        .events()
        .filter_map(|ev| match ev.event {
            Event::Flushed { db, keys } => Some((db, keys)),
            _ => None,
        })
        .collect();
    assert_eq!(flushes, [(Some(0), 2), (None, 1)]);
    assert_eq!(e.stats().expired_keys, 0);
}
