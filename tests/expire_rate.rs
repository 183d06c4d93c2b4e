//! The active expire cycle reclaims at Redis' rate: on populations of 100,000 volatile keys, never accessed, of which 1%, 5%, 25% or 100% are expired, redsim (virtual time) and a real redis-server (wall time) reclaim keys per second as the 7.2 algorithm predicts.
//!
//! Why the rate is what it is. Each slow cycle (`hz` per second) walks the
//! expires table with a cursor, one bucket at a time, until it has sampled
//! at least 20 keys (a loop), deletes the expired ones, and loops again
//! while more than 10% of the loop's sample was expired. Because the
//! cursor never revisits a bucket within a pass, the keys ahead of it keep
//! the population's expired fraction `f` until the pass ends: the reclaim
//! rate is `f` times the scan speed, constant, then everything is gone
//! after one pass of the table. With `s` keys sampled per loop and `q` the
//! chance that a loop finds more than 10% expired (more than 2 of ~20:
//! `P(Bin(20, f) >= 3)`), a cycle runs `1/(1-q)` loops on average (a
//! geometric number), so
//!
//! ```text
//! rate = hz * s * f / (1 - q)      keys per second
//! ```
//!
//! `s` is a little over 20: the last bucket of a loop may hold more keys
//! than needed. With chains of Poisson length at load `a = keys/buckets`
//! the overshoot averages `a/2` (renewal theory), so `s = 20 + a/2`.
//!
//! That holds while the cycle's time budget (25% of a tick) is not the
//! limit. At 1% and 5% a cycle does one or two loops, far within budget,
//! so the rate is the algorithm's and both servers must match it. The
//! measured rates are counts over a 2 s window: about 200 keys at 1%, so a
//! binomial spread of ~7%. Redsim's ticks are exact: within 20% of the
//! model. Redis' ticks are later than `1/hz` apart, never earlier: its
//! event loop re-arms the cron timer `1000/hz` ms after the tick *ends*
//! and sleeps in whole milliseconds (rounded up), so at hz 500 (2 ms) a
//! tick comes every ~2.5 ms and the rate is ~80% of the model (measured
//! 0.81–0.86 here), less on a loaded machine: 60% to 110% of the model.
//! (At the default hz 10 that delay is under 1%.) At 25% and 100% the loops run until the budget
//! stops them, which Redis measures in real CPU time and redsim models
//! (`SAMPLE_COST_NS`, `EXPIRE_COST_NS`): the ratio is printed, and only
//! what the algorithm guarantees is asserted (everything is reclaimed in
//! about one pass, time-capped cycles then fast cycles at 100%).
//!
//! `hz` is 500 (the maximum) so that the low-fraction rates are measurable
//! in seconds; at the default 10 the 1% population would take 8 minutes
//! per pass. The reference is Redis 7.0.15, whose cycle walks bucket
//! indexes in order instead of 7.2's reverse-binary `dictScan` cursor:
//! same keys per loop, same repeat rule, so the same rate; redsim follows 7.2.

use std::time::{Duration, Instant};

use redsim_engine::server::config::Config;
use redsim_engine::server::trace::Event;
use redsim_engine::{Engine, Frame, Options};
use redsim_tests::RedisServer;

const KEYS: u64 = 100_000;
const HZ: u64 = 500;
/// Expired keys are every `PERIOD`-th key, for each fraction: key names hash
/// to buckets uniformly, so this spreads them like a random choice.
const FRACTIONS: [(u64, &str); 4] = [(100, "1%"), (20, "5%"), (4, "25%"), (1, "100%")];
/// How long the low-fraction rates are measured (seconds).
const WINDOW_S: f64 = 2.0;

/// `P(Bin(n, p) >= k)`.
fn binomial_tail(n: u64, p: f64, k: u64) -> f64 {
    let mut below = 0.0;
    let mut choose = 1.0;
    for i in 0..k {
        below += choose * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32);
        choose = choose * (n - i) as f64 / (i + 1) as f64;
    }
    1.0 - below
}

/// The 7.2 algorithm's reclaim rate (keys/s) for expired fraction `f`
/// while the time budget does not bind.
fn analytic_rate(f: f64) -> f64 {
    let buckets = KEYS.next_power_of_two() as f64;
    let s = 20.0 + KEYS as f64 / buckets / 2.0;
    let q = binomial_tail(20, f, 3);
    HZ as f64 * s * f / (1.0 - q)
}

/// Reclaimed counts over time: `(seconds, expired_keys)` samples.
struct Run {
    samples: Vec<(f64, u64)>,
    /// Seconds until every expired key was gone, if that happened.
    all_gone_s: Option<f64>,
    time_capped: u64,
}

impl Run {
    /// Keys per second over the first `window` seconds (or until all were
    /// gone, whichever is first), from the samples.
    fn rate(&self, window: f64) -> f64 {
        let (t, n) = self
            .samples
            .iter()
            .rev()
            .find(|(t, _)| *t <= window + 1e-9)
            .copied()
            .unwrap_or((0.0, 0));
        if t == 0.0 {
            return 0.0;
        }
        n as f64 / t
    }
}

/// Redsim: the population written straight into database 0 at virtual
/// time 0 (expiring keys with a 1 ms TTL: all expired by the first tick),
/// then virtual time moved in 20 ms steps.
fn redsim_run(period: u64, max_s: f64) -> (Run, bool) {
    let mut opts = Options::new(42);
    opts.config = Config {
        hz: HZ as u32,
        ..Config::default()
    };
    let mut e = Engine::with_options(opts);
    let expiring = KEYS / period;
    let c = e.connect("populate");
    for i in 0..KEYS {
        let ttl = if i % period == 0 { 1 } else { 3_600_000 };
        let set = format!("SET key:{i} v PX {ttl}");
        assert_eq!(e.execute_line(c, &set), Frame::ok());
    }
    let mut samples = Vec::new();
    let mut all_gone_s = None;
    let step_us = 20_000;
    let mut t_us = 0;
    while (t_us as f64) < max_s * 1e6 {
        t_us += step_us;
        e.advance_to(t_us);
        let n = e.stats().expired_keys;
        let t = t_us as f64 / 1e6;
        samples.push((t, n));
        if n >= expiring && all_gone_s.is_none() {
            all_gone_s = Some(t);
            break;
        }
    }
    let fast = e
        .trace()
        .events()
        .any(|ev| matches!(ev.event, Event::ExpireCycle { fast: true, .. }));
    let run = Run {
        samples,
        all_gone_s,
        time_capped: e.stats().expired_time_cap_reached_count,
    };
    (run, fast)
}

fn info_stat(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .unwrap_or_else(|| panic!("{name} in INFO"))
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{name} is a number"))
}

fn info(c: &mut redsim_tests::Conn, section: &str) -> String {
    match c.cmd(&["INFO", section]) {
        Frame::Bulk(b) | Frame::Verbatim(_, b) => String::from_utf8_lossy(&b).into_owned(),
        other => panic!("INFO: {other:?}"),
    }
}

/// Redis: active expiry off while a script writes the population (time is
/// frozen inside it), a pause so the 1 ms TTLs pass, stats reset, active
/// expiry on, then INFO stats polled every 20 ms.
fn redis_run(redis: &RedisServer, period: u64, max_s: f64) -> Run {
    let mut c = redis.conn();
    assert_eq!(c.cmd(&["FLUSHALL"]), Frame::Simple("OK".into()));
    assert_eq!(
        c.cmd(&["DEBUG", "SET-ACTIVE-EXPIRE", "0"]),
        Frame::Simple("OK".into())
    );
    let script = "for i = 0, tonumber(ARGV[1]) - 1 do \
         local ttl = 3600000 \
         if i % tonumber(ARGV[2]) == 0 then ttl = 1 end \
         redis.call('SET', 'key:' .. i, 'v', 'PX', ttl) \
         end return 1";
    let r = c.cmd(&["EVAL", script, "0", &KEYS.to_string(), &period.to_string()]);
    assert_eq!(r, Frame::Integer(1));
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(c.cmd(&["CONFIG", "RESETSTAT"]), Frame::Simple("OK".into()));
    let expiring = KEYS / period;
    let start = Instant::now();
    assert_eq!(
        c.cmd(&["DEBUG", "SET-ACTIVE-EXPIRE", "1"]),
        Frame::Simple("OK".into())
    );
    let mut samples = Vec::new();
    let mut all_gone_s = None;
    loop {
        std::thread::sleep(Duration::from_millis(20));
        let stats = info(&mut c, "stats");
        let t = start.elapsed().as_secs_f64();
        let n = info_stat(&stats, "expired_keys");
        samples.push((t, n));
        if n >= expiring {
            all_gone_s = Some(t);
            break;
        }
        if t > max_s {
            break;
        }
    }
    let stats = info(&mut c, "stats");
    Run {
        samples,
        all_gone_s,
        time_capped: info_stat(&stats, "expired_time_cap_reached_count"),
    }
}

#[test]
fn active_expiry_reclaims_at_redis_rate() {
    let redis = RedisServer::start(&["--hz", "500", "--enable-debug-command", "yes"]);
    println!(
        "{:>5} {:>11} {:>11} {:>11} {:>8} {:>8} {:>12} {:>12}",
        "f",
        "analytic/s",
        "redsim/s",
        "redis/s",
        "sim/ana",
        "sim/red",
        "sim all (s)",
        "redis all (s)"
    );
    for (period, label) in FRACTIONS {
        let f = 1.0 / period as f64;
        let expiring = KEYS / period;
        let low = f < 0.10;
        // At 100% every loop repeats: only the budget ends a cycle, and
        // the analytic rate is unbounded.
        let analytic = (period > 1).then(|| analytic_rate(f));
        let (sim, sim_fast) = redsim_run(period, if low { WINDOW_S } else { 20.0 });
        let red = redis_run(&redis, period, if low { WINDOW_S } else { 20.0 });
        // Low fractions: the rate over the window. High: the mean rate
        // until everything was reclaimed.
        let rate = |r: &Run| match (low, r.all_gone_s) {
            (true, _) => r.rate(WINDOW_S),
            (false, Some(t)) => expiring as f64 / t,
            (false, None) => 0.0,
        };
        let (sim_rate, red_rate) = (rate(&sim), rate(&red));
        let show = |o: Option<f64>| o.map_or("-".to_string(), |t| format!("{t:.3}"));
        let ana = analytic.map_or("-".to_string(), |a| format!("{a:.0}"));
        let sim_ana = analytic.map_or("-".to_string(), |a| format!("{:.2}", sim_rate / a));
        println!(
            "{label:>5} {ana:>11} {sim_rate:>11.0} {red_rate:>11.0} {sim_ana:>8} {:>8.2} {:>12} {:>12}",
            sim_rate / red_rate,
            show(sim.all_gone_s),
            show(red.all_gone_s),
        );
        if low {
            let analytic = analytic.expect("below 100%");
            // One pass of the table takes longer than the window.
            let pass_s = KEYS as f64 * f / analytic;
            assert!(pass_s > WINDOW_S, "{label}: pass {pass_s:.1} s");
            assert!(sim.all_gone_s.is_none() && red.all_gone_s.is_none());
            // Governed by the algorithm: redsim within 20% (binomial
            // spread only), Redis 60% to 110% (late ticks, see the top).
            let ratio = sim_rate / analytic;
            assert!(
                (0.8..=1.2).contains(&ratio),
                "{label}: redsim reclaims {sim_rate:.0}/s, analytic {analytic:.0}/s"
            );
            let ratio = red_rate / analytic;
            assert!(
                (0.6..=1.1).contains(&ratio),
                "{label}: Redis reclaims {red_rate:.0}/s, analytic {analytic:.0}/s"
            );
            assert_eq!(sim.time_capped, 0, "{label}: redsim's budget never binds");
        } else {
            // Both reclaim everything. At 25% within about one pass of the
            // table at the analytic speed (11 loops fit in the budget). At
            // 100% a cycle does at least 16 loops (the budget is checked
            // every 16) of 20 keys before it may stop: at most
            // KEYS / 320 slow cycles, 0.63 s at hz 500; Redis is given
            // 5 s of wall time on a loaded machine.
            let sim_all = sim
                .all_gone_s
                .unwrap_or_else(|| panic!("{label}: redsim left keys"));
            let red_all = red
                .all_gone_s
                .unwrap_or_else(|| panic!("{label}: Redis left keys"));
            assert!(red_all < 5.0, "{label}: Redis took {red_all} s");
            match analytic {
                Some(a) => {
                    let pass_s = KEYS as f64 * f / a;
                    assert!(
                        sim_all <= 1.5 * pass_s,
                        "{label}: {sim_all} s, pass {pass_s} s"
                    );
                    assert_eq!(
                        sim.time_capped, 0,
                        "{label}: about 11 loops fit in the budget"
                    );
                }
                None => {
                    let max_cycles = KEYS as f64 / (16.0 * 20.0);
                    assert!(sim_all <= max_cycles / HZ as f64, "{label}: {sim_all} s");
                    // Every sample expired: cycles stop on their time
                    // budget, which lets the fast cycle run from beforeSleep.
                    assert!(
                        sim.time_capped > 0 && sim_fast,
                        "redsim: capped and fast cycles"
                    );
                    assert!(red.time_capped > 0, "Redis: expired_time_cap_reached_count");
                }
            }
        }
    }
}
