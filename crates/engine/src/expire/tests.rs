//! Redis' expiry mechanisms on the engine: lazy expiry on access, the active slow cycle from the cron (20 keys per loop, repeat while more than 10% expired, a 25 ms budget at hz 10), `active-expire-effort`, and when the fast cycle may run.
//!
//! The time budget is measured with the engine's cost model
//! ([`SAMPLE_COST_NS`] per sampled key plus [`EXPIRE_COST_NS`] per deleted
//! one), so the expected figures below are computed from those constants.

use super::{active_expire_cycle, CycleKind, CycleReport, EXPIRE_COST_NS, SAMPLE_COST_NS};
use crate::keyspace::object::{RString, Value};
use crate::server::config::Config;
use crate::server::trace::{Event, ExpireHow};
use crate::server::Server;
use crate::{Engine, Frame, Options};

/// An engine with one database, so loop counts are those of that database.
fn engine(seed: u64) -> Engine {
    let mut opts = Options::new(seed);
    opts.config = Config {
        databases: 1,
        ..Config::default()
    };
    Engine::with_options(opts)
}

fn cmd(e: &mut Engine, c: u64, args: &[&str]) -> Frame {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
    e.execute(c, &args)
}

/// Adds `n` keys named `{prefix}{i}`, each with a TTL of `ttl_ms` from now
/// (negative: already expired, as keys become between two cron ticks).
fn populate(srv: &mut Server, prefix: &str, n: usize, ttl_ms: i64) {
    populate_with(srv, prefix, n, |_| ttl_ms);
}

/// [`populate`] with each key's TTL given by `ttl_ms(i)`.
fn populate_with(srv: &mut Server, prefix: &str, n: usize, ttl_ms: impl Fn(usize) -> i64) {
    let now = srv.now_ms();
    for i in 0..n {
        let key = format!("{prefix}{i}");
        srv.set_key(
            0,
            key.as_bytes(),
            Value::String(RString::from_bytes(b"v")),
            false,
        );
        srv.set_expire(0, key.as_bytes(), now + ttl_ms(i));
    }
}

fn expires_len(e: &Engine) -> usize {
    e.expires_count(0)
}

fn slow(e: &mut Engine) -> CycleReport {
    active_expire_cycle(e.server_mut(), CycleKind::Slow)
}

fn fast(e: &mut Engine) -> CycleReport {
    active_expire_cycle(e.server_mut(), CycleKind::Fast)
}

/// The reclaimed keys in the trace, with how each went.
fn expirations(e: &Engine) -> Vec<(String, ExpireHow)> {
    e.trace()
        .events()
        .filter_map(|ev| match &ev.event {
            Event::Expired { key, how, .. } => Some((key.clone(), *how)),
            _ => None,
        })
        .collect()
}

/// Redis' stop rule on a cycle that ran out of time: it only looks at the
/// clock every 16 loops, so it stops on a multiple of 16, past the budget,
/// and the check 16 loops earlier was still within it. Every loop sampled
/// at least `per_loop` keys, all expired here.
fn assert_stopped_on_time(r: &CycleReport, per_loop: u64) {
    let budget_ns = r.timelimit_us * 1000;
    let key_cost = SAMPLE_COST_NS + EXPIRE_COST_NS;
    assert!(r.timelimit_exit, "{r:?}");
    assert_eq!(r.loops % 16, 0, "{r:?}");
    assert!(r.elapsed_ns / 1000 > r.timelimit_us, "{r:?}");
    assert_eq!(
        r.elapsed_ns,
        r.sampled * SAMPLE_COST_NS + r.expired * EXPIRE_COST_NS
    );
    // Each loop cost at least `per_loop` keys...
    assert!(r.loops * per_loop * key_cost <= r.elapsed_ns, "{r:?}");
    // ...so 16 loops before the end the budget was not yet spent.
    assert!((r.loops - 16) * per_loop * key_cost <= budget_ns, "{r:?}");
}

#[test]
fn keys_expire_by_themselves_as_virtual_time_passes() {
    let mut e = Engine::new(11);
    let c = e.connect("app");
    for i in 0..500 {
        let px = (100 + i).to_string();
        assert_eq!(
            cmd(&mut e, c, &["SET", &format!("t{i}"), "v", "PX", &px]),
            Frame::ok()
        );
    }
    for i in 0..50 {
        assert_eq!(cmd(&mut e, c, &["SET", &format!("p{i}"), "v"]), Frame::ok());
    }
    assert_eq!(cmd(&mut e, c, &["DBSIZE"]), Frame::Integer(550));
    let before = e.trace().next_seq();

    // Two virtual seconds, twenty cron ticks, and no command at all.
    e.advance_by(2_000_000);

    assert_eq!(e.dbsize(0), 50);
    assert_eq!(e.stats().expired_keys, 500);
    let after: Vec<_> = e.trace().since(before).collect();
    assert!(after
        .iter()
        .all(|ev| !matches!(ev.event, Event::Command { .. })));
    let reclaimed: Vec<_> = after
        .iter()
        .filter_map(|ev| match &ev.event {
            Event::Expired { how, .. } => Some(*how),
            _ => None,
        })
        .collect();
    assert_eq!(reclaimed.len(), 500);
    assert!(reclaimed.iter().all(|h| *h == ExpireHow::Active));
    assert!(after
        .iter()
        .any(|ev| matches!(ev.event, Event::ExpireCycle { fast: false, .. })));
    let left = e.keys_snapshot(0, 1000);
    assert!(left
        .iter()
        .all(|k| k.key.starts_with('p') && k.ttl_ms.is_none()));
}

#[test]
fn lazy_expiry_on_access_and_active_expiry_in_the_trace() {
    let mut e = Engine::new(12);
    let c = e.connect("app");
    cmd(&mut e, c, &["SET", "a", "1", "PX", "50"]);
    cmd(&mut e, c, &["SET", "b", "2", "PX", "50"]);
    // 60 ms: both are logically expired, but the first cron tick (100 ms
    // at hz 10) has not run, so both are still in memory.
    e.advance_to(60_000);
    assert_eq!(e.dbsize(0), 2);
    assert!(e.keys_snapshot(0, 10).iter().all(|k| k.expired_pending));
    // DBSIZE counts them, as Redis does; GET reclaims the one it touches.
    assert_eq!(cmd(&mut e, c, &["DBSIZE"]), Frame::Integer(2));
    assert_eq!(cmd(&mut e, c, &["GET", "a"]), Frame::Null);
    assert_eq!(expirations(&e), [("a".to_string(), ExpireHow::Lazy)]);
    e.advance_to(150_000);
    assert_eq!(
        expirations(&e),
        [
            ("a".to_string(), ExpireHow::Lazy),
            ("b".to_string(), ExpireHow::Active)
        ]
    );
    assert_eq!(e.stats().expired_keys, 2);
}

#[test]
fn few_expired_keys_stop_the_slow_cycle_after_one_loop_of_20() {
    let mut e = engine(13);
    populate(e.server_mut(), "live", 2000, 100_000);
    let r = slow(&mut e);
    assert!(r.ran && !r.timelimit_exit);
    assert_eq!(r.loops, 1, "{r:?}");
    assert_eq!(r.expired, 0);
    // The loop takes whole buckets until it has 20 keys: a chain can add a few.
    assert!((20..30).contains(&r.sampled), "{r:?}");
    // The running average TTL starts from the sampled keys (100 s here).
    let avg = e.server().dbs[0].avg_ttl;
    assert!((95_000..=100_000).contains(&avg), "avg_ttl {avg}");
}

#[test]
fn the_slow_cycle_repeats_while_more_than_10_percent_were_expired() {
    // 90% expired: every loop sees far more than 10%, so the cycle keeps
    // going through the whole table and reclaims every expired key, then
    // stops on the first loop that sees none.
    let mut e = engine(14);
    populate(e.server_mut(), "dead", 900, -1000);
    populate(e.server_mut(), "live", 100, 100_000);
    let r = slow(&mut e);
    assert!(!r.timelimit_exit);
    assert_eq!(r.expired, 900);
    assert_eq!(expires_len(&e), 100);
    assert!(r.loops >= 1000 / 30, "{r:?}");

    // 5% expired: a loop of 20 rarely sees more than 2 (10%), so the cycle
    // stops almost at once and leaves most expired keys for later.
    let mut e = engine(15);
    populate(e.server_mut(), "dead", 500, -1000);
    populate(e.server_mut(), "live", 9500, 100_000);
    let r = slow(&mut e);
    assert!(r.loops < 20, "{r:?}");
    assert!(r.expired < 100, "{r:?}");
    assert_eq!(expires_len(&e) as u64, 10_000 - r.expired);
}

#[test]
fn the_slow_cycle_budget_is_25_ms_at_hz_10_and_scales_with_hz() {
    let mut e = engine(16);
    populate(e.server_mut(), "dead", 120_000, -1000);
    let r = slow(&mut e);
    // ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC (25) % of a 100 ms cron period.
    assert_eq!(r.timelimit_us, 25_000);
    assert_stopped_on_time(&r, 20);
    assert_eq!(r.expired, r.sampled);
    assert_eq!(e.stats().expired_time_cap_reached_count, 1);
    assert_eq!(expires_len(&e) as u64, 120_000 - r.expired);
    let at_hz_10 = r.expired;

    let c = e.connect("admin");
    assert_eq!(cmd(&mut e, c, &["CONFIG", "SET", "hz", "100"]), Frame::ok());
    let r = slow(&mut e);
    assert_eq!(r.timelimit_us, 2_500);
    assert_stopped_on_time(&r, 20);
    let ratio = at_hz_10 as f64 / r.expired as f64;
    assert!((8.0..12.0).contains(&ratio), "{at_hz_10} vs {}", r.expired);
}

#[test]
fn active_expire_effort_scales_keys_per_loop_budget_and_threshold() {
    // Effort 10: 20 + 20/4 * 9 = 65 keys per loop.
    let mut e = engine(17);
    let c = e.connect("admin");
    assert_eq!(
        cmd(&mut e, c, &["CONFIG", "SET", "active-expire-effort", "10"]),
        Frame::ok()
    );
    populate(e.server_mut(), "live", 2000, 100_000);
    let r = slow(&mut e);
    assert_eq!(r.loops, 1);
    assert!((65..80).contains(&r.sampled), "{r:?}");

    // ...and 25 + 2 * 9 = 43% of the cron period.
    let mut e = engine(18);
    e.server_mut().config.active_expire_effort = 10;
    populate(e.server_mut(), "dead", 150_000, -1000);
    let r = slow(&mut e);
    assert_eq!(r.timelimit_us, 43_000);
    assert_stopped_on_time(&r, 65);

    // The acceptable stale share drops from 10% to 10 - 9 = 1%. With 30%
    // of the keys expired, effort 10 goes through the whole table (a loop
    // of 65 keys with no expired one is all but impossible), while effort
    // 1 soon meets a loop of 20 with at most 2 expired and stops.
    let run = |effort: u32| {
        let mut e = engine(19);
        e.server_mut().config.active_expire_effort = effort;
        populate(e.server_mut(), "dead", 3000, -1000);
        populate(e.server_mut(), "live", 7000, 100_000);
        slow(&mut e)
    };
    let strong = run(10);
    assert!(!strong.timelimit_exit);
    assert_eq!(strong.expired, 3000);
    let weak = run(1);
    assert!(weak.expired < 3000, "{weak:?}");
    assert!(weak.loops < strong.loops, "{weak:?} vs {strong:?}");
}

#[test]
fn the_fast_cycle_runs_only_after_a_slow_cycle_ran_out_of_time() {
    // No time-limited slow cycle yet: beforeSleep's fast cycle does nothing,
    // even with expired keys waiting.
    let mut e = engine(20);
    populate(e.server_mut(), "dead", 1000, -1000);
    assert!(!fast(&mut e).ran);
    let r = slow(&mut e);
    assert!(!r.timelimit_exit && r.expired == 1000);
    assert!(!fast(&mut e).ran);

    // Redis compares the stale estimate, a fraction in 0..1, with a
    // percentage (10): even at 99% it never triggers a fast cycle.
    e.server_mut().stats.expired_stale_perc = 0.99;
    assert!(!fast(&mut e).ran);

    // After a slow cycle that hit its budget, the fast cycle runs with a
    // 1 ms budget (ACTIVE_EXPIRE_CYCLE_FAST_DURATION)...
    let mut e = engine(21);
    populate(e.server_mut(), "dead", 120_000, -1000);
    assert!(slow(&mut e).timelimit_exit);
    let f = fast(&mut e);
    assert!(f.ran);
    assert_eq!(f.timelimit_us, 1000);
    assert_stopped_on_time(&f, 20);
    // ...but not again within twice that duration...
    assert!(!fast(&mut e).ran);
    e.advance_by(1_999);
    assert!(!fast(&mut e).ran);
    // ...and again once 2 ms have passed since it started.
    e.advance_by(1);
    assert!(fast(&mut e).ran);
    let fast_events = e
        .trace()
        .events()
        .filter(|ev| matches!(ev.event, Event::ExpireCycle { fast: true, .. }))
        .count();
    assert_eq!(fast_events, 2);

    // Effort stretches the fast budget: 1000 + 1000/4 * 9 µs.
    let mut e = engine(22);
    e.server_mut().config.active_expire_effort = 10;
    populate(e.server_mut(), "dead", 150_000, -1000);
    assert!(slow(&mut e).timelimit_exit);
    assert_eq!(fast(&mut e).timelimit_us, 3250);
}

#[test]
fn the_engine_runs_fast_cycles_before_sleeping_when_due() {
    let mut e = engine(23);
    let c = e.connect("app");
    populate(e.server_mut(), "dead", 120_000, -1000);
    // The first cron tick's slow cycle runs out of time; `beforeSleep`
    // after it runs a fast one straight away.
    e.advance_to(100_000);
    let kinds: Vec<bool> = e
        .trace()
        .events()
        .filter_map(|ev| match ev.event {
            Event::ExpireCycle { fast, .. } => Some(fast),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, [false, true]);
    // A command 3 ms later gets another fast cycle before sleeping.
    e.advance_by(3_000);
    let seen = e.trace().next_seq();
    e.execute_line(c, "PING");
    assert!(e
        .trace()
        .since(seen)
        .any(|ev| matches!(ev.event, Event::ExpireCycle { fast: true, .. })));
}

#[test]
fn hz_sets_the_cron_period_and_the_cycle_budget() {
    let mut e = engine(24);
    let c = e.connect("admin");
    e.advance_to(1_000_000);
    // hz 10: a tick every 100 ms.
    assert_eq!(e.cron_loops(), 10);
    assert_eq!(cmd(&mut e, c, &["CONFIG", "SET", "hz", "50"]), Frame::ok());
    // The tick already scheduled keeps its time (Redis' timer returns the
    // next period when it fires); after it, one every 20 ms.
    e.advance_to(2_000_000);
    // So: the one at 1.1 s, then every 20 ms up to 2.0 s.
    let ticks = e.cron_loops() - 10;
    assert_eq!(ticks, 1 + 900 / 20);
    // Out-of-range values are capped as Redis' `updateHZ` does.
    assert_eq!(
        cmd(&mut e, c, &["CONFIG", "SET", "hz", "100000"]),
        Frame::ok()
    );
    assert_eq!(
        cmd(&mut e, c, &["CONFIG", "GET", "hz"]),
        Frame::Map(vec![(Frame::bulk("hz"), Frame::bulk("500"))])
    );
    populate(e.server_mut(), "dead", 20_000, -1000);
    // 25% of a 2 ms period.
    assert_eq!(slow(&mut e).timelimit_us, 500);
}

#[test]
/// From tests/expire_rate.rs's model: keys sampled per loop and loops per
/// cycle on 100,000 volatile keys of which 5% are expired.
fn analytic_model_matches_the_cycle_loop_by_loop() {
    // The model's ingredients, checked on redsim's own cycle reports: keys
    // sampled per loop and loops per cycle at 5% expired.
    let mut opts = Options::new(3);
    opts.config = Config {
        hz: 500,
        databases: 1,
        ..Config::default()
    };
    let mut e = Engine::with_options(opts);
    // One key in twenty already expired.
    populate_with(e.server_mut(), "key:", KEYS as usize, |i| {
        if i % 20 == 0 {
            -1
        } else {
            3_600_000
        }
    });
    let (mut sampled, mut loops, mut cycles) = (0u64, 0u64, 0u64);
    for _ in 0..2000 {
        let r = active_expire_cycle(e.server_mut(), CycleKind::Slow);
        sampled += r.sampled;
        loops += r.loops;
        cycles += 1;
    }
    let per_loop = sampled as f64 / loops as f64;
    let loops_per_cycle = loops as f64 / cycles as f64;
    const KEYS: u64 = 100_000;
    let a = KEYS as f64 / KEYS.next_power_of_two() as f64;
    // P(Bin(20, 0.05) >= 3): a loop finds more than 10% expired and repeats.
    let below: f64 = (0..3u64)
        .map(|i| {
            let choose = (0..i).fold(1.0, |c, j| c * (20 - j) as f64 / (j + 1) as f64);
            choose * 0.05f64.powi(i as i32) * 0.95f64.powi(20 - i as i32)
        })
        .sum();
    let q = 1.0 - below;
    println!(
        "5%: {per_loop:.2} keys/loop (model {:.2}), {loops_per_cycle:.3} loops/cycle (model {:.3})",
        20.0 + a / 2.0,
        1.0 / (1.0 - q)
    );
    assert!((per_loop - (20.0 + a / 2.0)).abs() < 0.3, "{per_loop}");
    assert!(
        (loops_per_cycle - 1.0 / (1.0 - q)).abs() < 0.03,
        "{loops_per_cycle}"
    );
}
