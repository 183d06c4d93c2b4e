//! The CPU cost model on the virtual clock: big reads and KEYS hold the main thread for their modelled time (and SLOWLOG says so), single-key commands take none, EXEC charges what it ran, and `redsim-cpu-model no` turns it off.

use redsim_engine::{Engine, Frame, Options};
use redsim_tests::parse;

fn cmd(e: &mut Engine, c: u64, line: &str) -> Frame {
    e.execute(c, &parse(line))
}

fn engine() -> (Engine, u64) {
    let mut e = Engine::with_options(Options::new(3));
    let c = e.connect("c1");
    (e, c)
}

/// Virtual µs `line` moved the clock by.
fn took(e: &mut Engine, c: u64, line: &str) -> u64 {
    let t0 = e.now_us();
    cmd(e, c, line);
    e.now_us() - t0
}

/// Fills hash `key` with `n` fields of 12-byte names and values.
fn fill_hash(e: &mut Engine, c: u64, key: &str, n: usize) {
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        let mut args = vec![b"HSET".to_vec(), key.as_bytes().to_vec()];
        for i in chunk {
            args.push(format!("field:{i:06}").into_bytes());
            args.push(format!("value:{i:06}").into_bytes());
        }
        e.execute(c, &args);
    }
}

#[test]
fn hgetall_of_a_big_hash_holds_the_thread_and_the_slowlog_shows_it() {
    let (mut e, c) = engine();
    fill_hash(&mut e, c, "big", 100_000);
    cmd(&mut e, c, "CONFIG SET slowlog-log-slower-than 10000");
    // 200,000 elements × 0.325 µs and 2.4 MB of reply: about 67 ms.
    let busy = took(&mut e, c, "HGETALL big");
    assert!((60_000..75_000).contains(&busy), "{busy} µs");
    let Frame::Array(log) = cmd(&mut e, c, "SLOWLOG GET 1") else {
        panic!("SLOWLOG GET replies with an array");
    };
    let Some(Frame::Array(entry)) = log.first() else {
        panic!("HGETALL was logged");
    };
    assert_eq!(entry[2], Frame::Integer(busy as i64));
    // Another client's GET, sent during the read, runs after it.
    let other = e.connect("c2");
    assert_eq!(took(&mut e, other, "GET nothing"), 0);
    // Paged reads are cheap: HSCAN COUNT 100 holds it tens of µs.
    let page = took(&mut e, c, "HSCAN big 0 COUNT 100");
    assert!(page < 200, "{page} µs");
}

#[test]
fn keys_pays_for_every_key_and_scan_for_its_step() {
    let (mut e, c) = engine();
    for chunk in (0..100_000).collect::<Vec<_>>().chunks(1000) {
        let mut args = vec![b"MSET".to_vec()];
        for i in chunk {
            args.push(format!("key:{i:05}").into_bytes());
            args.push(b"v".to_vec());
        }
        e.execute(c, &args);
    }
    // 100k keys × (0.2 examined + 0.325 replied + 9 bytes): about 53 ms;
    // 10M keys would take about 5 s.
    let all = took(&mut e, c, "KEYS *");
    assert!((50_000..56_000).contains(&all), "{all} µs");
    // A pattern that matches nothing still examines every key.
    let none = took(&mut e, c, "KEYS nomatch*");
    assert!((19_000..21_000).contains(&none), "{none} µs");
    let step = took(&mut e, c, "SCAN 0 COUNT 100");
    assert!(step < 200, "{step} µs");
    // MGET of 100 keys: one lookup and one element each.
    let line = format!(
        "MGET {}",
        (0..100)
            .map(|i| format!("key:{i:05}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mget = took(&mut e, c, &line);
    assert!((60..90).contains(&mget), "{mget} µs");
}

#[test]
fn single_key_commands_take_no_time_and_exec_charges_what_it_ran() {
    let (mut e, c) = engine();
    for line in ["SET k v", "GET k", "HSET h f v", "INCR n", "PING"] {
        assert_eq!(took(&mut e, c, line), 0, "{line}");
    }
    fill_hash(&mut e, c, "big", 10_000);
    let alone = took(&mut e, c, "HGETALL big");
    assert!(alone > 5_000, "{alone} µs");
    cmd(&mut e, c, "MULTI");
    cmd(&mut e, c, "HGETALL big");
    cmd(&mut e, c, "HGETALL big");
    let exec = took(&mut e, c, "EXEC");
    // Twice the read, not three times (EXEC's own reply is not charged again).
    assert!(exec.abs_diff(2 * alone) <= 2, "{exec} vs {alone}");
}

#[test]
fn set_algebra_and_sort_pay_for_their_inputs() {
    let (mut e, c) = engine();
    for key in ["a", "b"] {
        let mut args = vec![b"SADD".to_vec(), key.as_bytes().to_vec()];
        args.extend((0..10_000).map(|i| format!("m{i}").into_bytes()));
        e.execute(c, &args);
    }
    // The stored union replies one integer, yet walks 20,000 members.
    let store = took(&mut e, c, "SUNIONSTORE u a b");
    assert!(store >= 4_000, "{store} µs");
    let sort = took(&mut e, c, "SORT a ALPHA STORE s");
    // 10,000 loaded and about 140,000 comparisons.
    assert!(sort >= 25_000, "{sort} µs");
}

#[test]
fn the_switch_turns_the_model_off() {
    let (mut e, c) = engine();
    fill_hash(&mut e, c, "big", 10_000);
    assert_eq!(
        cmd(&mut e, c, "CONFIG GET redsim-cpu-model"),
        Frame::Map(vec![(Frame::bulk("redsim-cpu-model"), Frame::bulk("yes"))])
    );
    assert!(took(&mut e, c, "HGETALL big") > 5_000);
    cmd(&mut e, c, "CONFIG SET redsim-cpu-model no");
    assert_eq!(took(&mut e, c, "HGETALL big"), 0);
    assert_eq!(took(&mut e, c, "KEYS *"), 0);
}
