//! Lazy freeing on the virtual clock: DEL of a big value stalls every client by the modelled cost while UNLINK hands it to the background thread, each `lazyfree-lazy-*` switch chooses the path, the pending/freed counters drain over virtual time, the trace records TTLs and memory samples, and CONFIG and the commands' replies match redis-server.

use redsim_engine::lazyfree::{free_effort, FREE_COST_NS, LAZYFREE_THRESHOLD};
use redsim_engine::server::trace::{pending_expired, pending_expired_series, Event};
use redsim_engine::{Engine, Frame, Options};
use redsim_tests::{parse, Pair};

fn cmd(e: &mut Engine, c: u64, line: &str) -> Frame {
    e.execute(c, &parse(line))
}

/// An engine with its trace on and one client. The CPU cost model is off:
/// these tests pin the stall freeing alone causes (the commands' own cost
/// is the cost model's tests' business).
fn engine() -> (Engine, u64) {
    let mut e = Engine::with_options(Options::new(7));
    let c = e.connect("c1");
    cmd(&mut e, c, "CONFIG SET redsim-cpu-model no");
    (e, c)
}

/// Fills hash `key` with `fields` fields, in commands of 10,000.
fn big_hash(e: &mut Engine, c: u64, key: &str, fields: usize) {
    let mut i = 0;
    while i < fields {
        let mut args = vec![b"HSET".to_vec(), key.as_bytes().to_vec()];
        for j in i..(i + 10_000).min(fields) {
            args.push(format!("f{j}").into_bytes());
            args.push(b"v".to_vec());
        }
        i += 10_000;
        e.execute(c, &args);
    }
}

/// A field of INFO's text, as a number.
fn info_field(e: &mut Engine, c: u64, section: &str, name: &str) -> u64 {
    let Frame::Verbatim(_, text) = cmd(e, c, &format!("INFO {section}")) else {
        panic!("INFO replies verbatim text");
    };
    let text = String::from_utf8_lossy(&text).into_owned();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .unwrap_or_else(|| panic!("{name} in INFO {section}"))
        .parse()
        .expect("a number")
}

/// When the last traced event that `is` picks happened.
fn last_at(e: &Engine, is: impl Fn(&Event) -> bool) -> u64 {
    e.trace()
        .events()
        .filter(|ev| is(&ev.event))
        .last()
        .expect("a traced event")
        .at_us
}

/// Virtual µs that running `line` took.
fn timed(e: &mut Engine, c: u64, line: &str) -> (u64, Frame) {
    let t0 = e.now_us();
    let r = cmd(e, c, line);
    (e.now_us() - t0, r)
}

#[test]
fn del_of_a_million_field_hash_stalls_everyone_and_unlink_does_not() {
    let (mut e, c) = engine();
    let other = e.connect("c2");
    big_hash(&mut e, c, "h", 1_000_000);
    assert_eq!(
        cmd(&mut e, c, "OBJECT ENCODING h"),
        Frame::bulk("hashtable")
    );
    let t0 = e.now_us();
    let (took, r) = timed(&mut e, c, "DEL h");
    assert_eq!(r, Frame::Integer(1));
    // The modelled cost: one unit of effort per field.
    let expected_us = 1_000_000 * FREE_COST_NS / 1000;
    assert_eq!(took, expected_us);
    assert_eq!(expected_us, 300_000, "300 ms for a million fields");
    // The trace shows the stall: the reply is stamped when the free ends.
    let reply_at = last_at(&e, |ev| matches!(ev, Event::Reply { .. }));
    assert_eq!(reply_at, t0 + expected_us);
    let freed = e
        .trace()
        .events()
        .find_map(|ev| match &ev.event {
            Event::Freed {
                key: Some(k),
                lazy,
                cost_us,
                effort,
                ..
            } if k == "h" => Some((*lazy, *cost_us, *effort)),
            _ => None,
        })
        .expect("a Freed event");
    assert_eq!(freed, (false, expected_us, 1_000_000));

    // A second client whose command arrives 1 ms into the DEL is served
    // after it: the driver cannot move the clock back into the stall.
    big_hash(&mut e, c, "h", 1_000_000);
    let t1 = e.now_us();
    cmd(&mut e, c, "DEL h");
    e.advance_to(t1 + 1_000);
    let t_other = e.now_us();
    assert_eq!(cmd(&mut e, other, "PING"), Frame::Simple("PONG".into()));
    assert!(
        t_other >= t1 + expected_us,
        "{t_other} < {}",
        t1 + expected_us
    );
    let ping_at = last_at(&e, |ev| matches!(ev, Event::Command { .. }));
    assert_eq!(ping_at, t1 + expected_us);

    // Cron ticks the stall ran past are not replayed: one runs late, at
    // the end of the stall, and the next a period after it.
    big_hash(&mut e, c, "h", 1_000_000);
    let loops = e.cron_loops();
    let t2 = e.now_us();
    cmd(&mut e, c, "DEL h");
    e.advance_to(t2 + expected_us);
    assert_eq!(e.cron_loops(), loops + 1, "one late tick for three missed");
    e.advance_to(t2 + expected_us + 99_999);
    assert_eq!(e.cron_loops(), loops + 1);
    e.advance_to(t2 + expected_us + 100_000);
    assert_eq!(e.cron_loops(), loops + 2);

    // UNLINK: no stall; the object waits for the background thread, and
    // its memory stays in use until the thread is done.
    big_hash(&mut e, c, "h", 1_000_000);
    let used_before = info_field(&mut e, c, "memory", "used_memory");
    let (took, r) = timed(&mut e, c, "UNLINK h");
    assert_eq!((took, r), (0, Frame::Integer(1)));
    assert_eq!(
        info_field(&mut e, c, "memory", "lazyfree_pending_objects"),
        1
    );
    let freed0 = info_field(&mut e, c, "memory", "lazyfreed_objects");
    let used_pending = info_field(&mut e, c, "memory", "used_memory");
    assert!(
        used_pending + 1_000 > used_before,
        "the value's bytes stay while pending: {used_pending} vs {used_before}"
    );
    e.advance_by(expected_us / 2);
    assert_eq!(
        info_field(&mut e, c, "memory", "lazyfree_pending_objects"),
        1
    );
    e.advance_by(expected_us / 2);
    assert_eq!(
        info_field(&mut e, c, "memory", "lazyfree_pending_objects"),
        0
    );
    assert_eq!(
        info_field(&mut e, c, "memory", "lazyfreed_objects"),
        freed0 + 1
    );
    let used_after = info_field(&mut e, c, "memory", "used_memory");
    assert!(
        used_after + 10_000_000 < used_pending,
        "{used_after} vs {used_pending}"
    );
    // CONFIG RESETSTAT zeroes lazyfreed_objects, as lazyfreeResetStats does.
    cmd(&mut e, c, "CONFIG RESETSTAT");
    assert_eq!(info_field(&mut e, c, "memory", "lazyfreed_objects"), 0);
}

#[test]
fn small_values_are_freed_at_once_even_on_lazy_paths() {
    let (mut e, c) = engine();
    // 64 units is the threshold: only above it does UNLINK hand over.
    cmd(&mut e, c, "CONFIG SET hash-max-listpack-entries 0");
    big_hash(&mut e, c, "h64", LAZYFREE_THRESHOLD as usize);
    big_hash(&mut e, c, "h65", LAZYFREE_THRESHOLD as usize + 1);
    assert_eq!(
        cmd(&mut e, c, "OBJECT ENCODING h64"),
        Frame::bulk("hashtable")
    );
    cmd(&mut e, c, "UNLINK h64 h65");
    let lazies: Vec<(String, bool)> = e
        .trace()
        .events()
        .filter_map(|ev| match &ev.event {
            Event::Freed {
                key: Some(k), lazy, ..
            } => Some((k.clone(), *lazy)),
            _ => None,
        })
        .collect();
    // h64 is freed at once (and recorded: a table, not one allocation).
    assert_eq!(
        lazies,
        [("h64".to_string(), false), ("h65".to_string(), true)]
    );
    assert_eq!(
        info_field(&mut e, c, "memory", "lazyfree_pending_objects"),
        1
    );
}

/// CONFIG SET name/value pairs.
type Switches = [(&'static str, &'static str)];

/// Runs `setup` then `act` on a fresh engine holding a 10,000-field hash
/// `h`; returns how long `act` stalled the clock and the pending objects after.
fn stall_of(config: &[(&str, &str)], act: impl FnOnce(&mut Engine, u64)) -> (u64, u64) {
    let (mut e, c) = engine();
    for (k, v) in config {
        assert_eq!(
            cmd(&mut e, c, &format!("CONFIG SET {k} {v}")),
            Frame::Simple("OK".into())
        );
    }
    big_hash(&mut e, c, "h", 10_000);
    let t0 = e.now_us();
    act(&mut e, c);
    let took = e.now_us() - t0;
    let pending = info_field(&mut e, c, "memory", "lazyfree_pending_objects");
    (took, pending)
}

#[test]
fn each_lazyfree_switch_chooses_the_path() {
    let cost = 10_000 * FREE_COST_NS / 1000;
    let sync = (cost, 0);
    let lazy = (0, 1);
    let on = |switch| [(switch, "yes")];
    let (user_del, server_del) = (on("lazyfree-lazy-user-del"), on("lazyfree-lazy-server-del"));
    let (expire, user_flush) = (on("lazyfree-lazy-expire"), on("lazyfree-lazy-user-flush"));
    // (switches on, commands run, (stall, pending objects)).
    let cases: &[(&Switches, &[&str], (u64, u64))] = &[
        // lazyfree-lazy-user-del: DEL behaves like UNLINK.
        (&[], &["DEL h"], sync),
        (&user_del, &["DEL h"], lazy),
        // lazyfree-lazy-server-del: an overwrite (dbOverwrite) and RENAME's dbDelete.
        (&[], &["SET h x"], sync),
        (&server_del, &["SET h x"], lazy),
        (&[], &["SET k v", "RENAME k h"], sync),
        (&server_del, &["SET k v", "RENAME k h"], lazy),
        // ... and RENAME's source moves: nothing is freed.
        (&[], &["RENAME h h2"], (0, 0)),
        // lazyfree-lazy-expire: EXPIRE in the past (lazy expiry on access below).
        (&[], &["PEXPIREAT h 1"], sync),
        (&expire, &["PEXPIREAT h 1"], lazy),
        // lazyfree-lazy-user-flush, and FLUSHALL's explicit SYNC / ASYNC.
        (&[], &["FLUSHALL"], sync),
        (&user_flush, &["FLUSHALL"], lazy),
        (&user_flush, &["FLUSHDB SYNC"], sync),
        (&[], &["FLUSHALL ASYNC"], lazy),
    ];
    for &(config, lines, want) in cases {
        let run = |e: &mut Engine, c: u64| {
            for line in lines {
                cmd(e, c, line);
            }
        };
        assert_eq!(stall_of(config, run), want, "{config:?} {lines:?}");
    }
    // lazyfree-lazy-expire: lazy expiry on access.
    let lazy_expiry = |e: &mut Engine, c: u64| {
        cmd(e, c, "PEXPIRE h 1");
        // No cron tick in these 2 ms: the access reclaims it.
        e.advance_by(2_000);
        assert_eq!(cmd(e, c, "EXISTS h"), Frame::Integer(0));
    };
    assert_eq!(stall_of(&[], lazy_expiry).0, 2_000 + cost);
    assert_eq!(stall_of(&expire, lazy_expiry), (2_000, 1));
    // lazyfree-lazy-eviction.
    let evict = |e: &mut Engine, c: u64| {
        cmd(e, c, "CONFIG SET maxmemory-policy allkeys-random");
        let used = info_field(e, c, "memory", "used_memory");
        cmd(e, c, &format!("CONFIG SET maxmemory {}", used - 1000));
        cmd(e, c, "SET small v");
        assert_eq!(cmd(e, c, "EXISTS h"), Frame::Integer(0));
    };
    assert_eq!(stall_of(&[], evict).0, cost);
    let (took, _) = stall_of(&on("lazyfree-lazy-eviction"), evict);
    assert_eq!(took, 0);
}

#[test]
fn a_flushed_database_is_pending_key_by_key_until_the_thread_is_done() {
    let (mut e, c) = engine();
    for i in 0..1000 {
        cmd(&mut e, c, &format!("SET k{i} v"));
    }
    big_hash(&mut e, c, "h", 10_000);
    let (took, _) = timed(&mut e, c, "FLUSHALL ASYNC");
    assert_eq!(took, 0);
    // emptyDbAsync counts the keys as pending objects.
    assert_eq!(
        info_field(&mut e, c, "memory", "lazyfree_pending_objects"),
        1001
    );
    let effort = 1000 + 10_000;
    e.advance_by(effort * FREE_COST_NS / 1000);
    assert_eq!(
        info_field(&mut e, c, "memory", "lazyfree_pending_objects"),
        0
    );
    assert_eq!(info_field(&mut e, c, "memory", "lazyfreed_objects"), 1001);
    assert!(e
        .trace()
        .events()
        .any(|ev| matches!(ev.event, Event::LazyFreed { objects: 1001, .. })));
}

#[test]
fn effort_is_redis_free_effort_per_type() {
    let (mut e, c) = engine();
    cmd(&mut e, c, "RPUSH l a b c");
    cmd(&mut e, c, "SADD s 1 2 3");
    cmd(&mut e, c, "SET str hello");
    let mut zadd = vec![b"ZADD".to_vec(), b"z".to_vec()];
    for i in 0..200 {
        zadd.push(i.to_string().into_bytes());
        zadd.push(format!("m{i}").into_bytes());
    }
    e.execute(c, &zadd);
    let effort = |k: &str| free_effort(e.peek(0, k.as_bytes()).expect("key"));
    // Listpacks and intsets are one allocation; a skiplist zset counts members.
    assert_eq!(effort("l"), 1);
    assert_eq!(effort("s"), 1);
    assert_eq!(effort("str"), 1);
    assert_eq!(effort("z"), 200);
}

#[test]
fn trace_tells_expired_but_unreclaimed_keys() {
    let (mut e, c) = engine();
    // Active expiry off (as DEBUG SET-ACTIVE-EXPIRE 0 would): only accesses reclaim.
    e.config_set("hz", "1").expect("hz");
    let base_ms = e.unix_ms();
    cmd(&mut e, c, "SET a 1 PX 100");
    cmd(&mut e, c, "SET b 1 PX 200");
    cmd(&mut e, c, "SET c 1 PX 300");
    cmd(&mut e, c, "SET d 1");
    cmd(&mut e, c, "PEXPIRE d 150");
    cmd(&mut e, c, "PERSIST d");
    cmd(&mut e, c, "SET e 1 EX 100");
    // An overwrite without KEEPTTL drops the TTL.
    cmd(&mut e, c, "SET e 2");
    let evs: Vec<_> = e.trace().events().cloned().collect();
    let ttl_sets = evs
        .iter()
        .filter(|ev| matches!(ev.event, Event::TtlSet { .. }))
        .count();
    assert_eq!(ttl_sets, 7);
    assert!(pending_expired(&evs, base_ms + 100).is_empty());
    let p = pending_expired(&evs, base_ms + 250);
    assert_eq!(
        p.iter().map(|(_, k, _)| k.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    e.advance_to(250_000);
    // Reading `a` reclaims it; `b` stays expired in memory.
    assert_eq!(cmd(&mut e, c, "GET a"), Frame::Null);
    let evs: Vec<_> = e.trace().events().cloned().collect();
    let now = e.unix_ms();
    let p = pending_expired(&evs, now);
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].1.as_str(), p[0].2), ("b", base_ms + 200));
    // The series: 1 at 100 ms (a), 2 at 200 ms (b), 1 again when a went.
    let base_us = e.unix_base_us();
    let series = pending_expired_series(&evs, base_us, 400_000);
    let a_gone = evs
        .iter()
        .find(|ev| matches!(&ev.event, Event::Expired { key, .. } if key == "a"))
        .expect("a expired")
        .at_us;
    assert_eq!(
        series,
        vec![
            (0, 0),
            (101_000, 1),
            (201_000, 2),
            (a_gone, 1),
            (301_000, 2)
        ]
    );
}

#[test]
fn config_and_replies_match_redis() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        CONFIG GET lazyfree-lazy-eviction
        CONFIG GET lazyfree-lazy-expire
        CONFIG GET lazyfree-lazy-server-del
        CONFIG GET lazyfree-lazy-user-del
        CONFIG GET lazyfree-lazy-user-flush
        CONFIG SET lazyfree-lazy-user-del yes
        CONFIG GET lazyfree-lazy-user-del
        CONFIG SET lazyfree-lazy-user-del NO
        CONFIG GET lazyfree-lazy-user-del
        CONFIG SET lazyfree-lazy-user-del maybe
        CONFIG SET lazyfree-lazy-eviction 1
        CONFIG SET lazyfree-lazy-expire ''
        CONFIG SET lazyfree-lazy-server-del yes lazyfree-lazy-server-del no
        CONFIG SET lazyfree-lazy-user-flush Yes
        CONFIG GET lazyfree-lazy-user-flush
        CONFIG SET lazyfree-lazy-user-flush no
        CONFIG SET lazyfree-lazy-expire yes lazyfree-lazy-eviction bad
        CONFIG GET lazyfree-lazy-expire
        SET a 1
        RPUSH l a b c
        DEL a l missing
        UNLINK
        UNLINK missing
        SET a 1
        UNLINK a a
        FLUSHALL ASYNC
        FLUSHALL SYNC
        FLUSHALL async
        FLUSHALL BOGUS
        FLUSHALL ASYNC SYNC
        FLUSHDB ASYNC
        FLUSHDB SYNC
        FLUSHDB LAZY
        DBSIZE
        ",
    );
    // A pattern lists the five lazyfree switches on both (7.0 has the same
    // five; 7.2 adds none), in whatever order: compare as sets.
    let (r, s) = p.both("CONFIG GET lazyfree-*");
    let pairs = |f: Frame| -> Vec<Vec<u8>> {
        let items = match f {
            Frame::Array(v) => v,
            Frame::Map(m) => m.into_iter().flat_map(|(k, v)| [k, v]).collect(),
            other => panic!("CONFIG GET: {other:?}"),
        };
        let mut names: Vec<Vec<u8>> = items
            .chunks(2)
            .map(|kv| match (&kv[0], &kv[1]) {
                (Frame::Bulk(k), Frame::Bulk(v)) => [k.as_slice(), b"=", v.as_slice()].concat(),
                other => panic!("{other:?}"),
            })
            .collect();
        names.sort();
        names
    };
    assert_eq!(pairs(r), pairs(s));
    // Both report the counters in INFO memory, and a big UNLINK goes
    // through the background thread on both.
    let mut hset = vec![b"HSET".to_vec(), b"big".to_vec()];
    for i in 0..1000 {
        hset.push(format!("f{i}").into_bytes());
        hset.push(b"v".to_vec());
    }
    p.check_args(&hset);
    p.check("UNLINK big");
    for conn in [&mut p.redis, &mut p.sim] {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let (Frame::Bulk(text) | Frame::Verbatim(_, text)) = conn.cmd(&["INFO", "memory"])
            else {
                panic!("INFO memory");
            };
            let text = String::from_utf8_lossy(&text).into_owned();
            let get = |n: &str| -> u64 {
                text.lines()
                    .find_map(|l| l.strip_prefix(&format!("{n}:")))
                    .unwrap_or_else(|| panic!("{n} missing"))
                    .trim()
                    .parse()
                    .expect("number")
            };
            if get("lazyfree_pending_objects") == 0 && get("lazyfreed_objects") == 1 {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "never freed: {text}");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}
