//! Rate limits: a fixed window, a sliding log on a sorted set and a token bucket judge the same bursty traffic on one engine, then Redis goes away and the limiter fails open or closed.
//!
//! Every request is sent to the three limiters (three keys: INCR and
//! PEXPIRE for the fixed window, a Lua script for each of the others), so
//! they see identical arrivals and differ only in their algorithm. The sliding log and the token bucket read the
//! server's own clock with `TIME`, as the seed texts recommend (client
//! clocks disagree); the fixed window names its key after the window
//! number, as a client computes it.

use super::int;
use crate::kernel::{Dist, Kernel, Link, Micros, Redis, MS, SEC};
use crate::outcome::Outcome;
use crate::outcome::{Chart, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::proto::resp::Frame;
use redsim_engine::server::clock::DEFAULT_UNIX_BASE_US;

pub const RATE_LIMITS: Scenario = Scenario::new("rate-limits", rate_run);

const ALGS: &[&str] = &["fixed window", "sliding log", "token bucket"];

/// One member per admitted request, scored by server time in µs since
/// ARGV[4] (seconds), kept small so Lua's doubles hold it exactly.
const SLIDING_LUA: &str = "local t = redis.call('TIME') local now = (tonumber(t[1]) - tonumber(ARGV[4])) * 1000000 + tonumber(t[2]) redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1])) if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then redis.call('ZADD', KEYS[1], now, ARGV[3]) redis.call('PEXPIRE', KEYS[1], math.floor(tonumber(ARGV[1]) / 1000)) return 1 end return 0";

/// Tokens refilled by elapsed server time (ms), capped at the burst size.
const BUCKET_LUA: &str = "local t = redis.call('TIME') local now = (tonumber(t[1]) - tonumber(ARGV[4])) * 1000 + math.floor(tonumber(t[2]) / 1000) local cap = tonumber(ARGV[1]) local rate = tonumber(ARGV[2]) local v = redis.call('HMGET', KEYS[1], 'tokens', 'ts') local tokens = tonumber(v[1]) or cap local ts = tonumber(v[2]) or now tokens = math.min(cap, tokens + (now - ts) * rate) local ok = 0 if tokens >= 1 then tokens = tokens - 1 ok = 1 end redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now) redis.call('PEXPIRE', KEYS[1], ARGV[3]) return ok";

enum Ev {
    Request(u64),
    Arrive(usize, u64),
    TimedOut(usize, u64),
    Measure,
}

fn rate_run(p: &Params, seed: u64) -> Outcome {
    let limit = p.count("limit").max(1);
    let window = p.count("window_ms").max(1) * MS;
    let burst_rps = p.get("burst_rps").max(1.0);
    let bucket = p.count("bucket_burst").max(1);
    let outage = p.count("outage_ms") * MS;
    let fail_open = p.choice("on_outage") == 0;
    let background_rps = (limit as f64 * SEC as f64 / window as f64) * 0.2;
    let burst = (window.saturating_sub(window / 5), window + window / 5);
    let outage_at = 2 * window + window / 2;
    let end = outage_at + outage + window / 2;
    let timeout = 20 * MS;
    let base_s = (DEFAULT_UNIX_BASE_US / SEC).to_string();

    let mut k: Kernel<Ev> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    let link = Link::new(Dist::jittered(300, 200));
    let app = k.rec.lane("app", "client");
    let rl = k.rec.lane("redis", "redis");
    k.rec.step_cap = 120;

    let mut admitted: Vec<Vec<Micros>> = vec![Vec::new(); ALGS.len()];
    let mut offered: Vec<Micros> = Vec::new();
    let mut outage_offered = 0u64;
    let mut outage_admitted = 0u64;
    let mut mem = [0i64; 3];
    let mut next_id = 0u64;
    k.at(0, Ev::Request(0));
    k.at(burst.1, Ev::Measure);
    // The diagram shows the requests around the first window boundary.
    let near = |t: Micros| t + 15 * MS >= window && t <= window + 15 * MS;
    let down = |t: Micros| outage > 0 && t >= outage_at && t < outage_at + outage;

    while let Some(ev) = k.next(end) {
        let now = k.now();
        match ev {
            Ev::Request(id) => {
                offered.push(now);
                let is_down = down(now);
                if is_down {
                    outage_offered += 1;
                }
                for a in 0..ALGS.len() {
                    if is_down {
                        k.after(timeout, Ev::TimedOut(a, id));
                    } else {
                        let d = link.delay(&mut k.rng).unwrap_or(0);
                        if a == 0 && near(now) {
                            k.rec.msg(
                                now,
                                now + d,
                                app,
                                rl,
                                format!("request {id}: ask 3 limiters"),
                            );
                        }
                        k.after(d, Ev::Arrive(a, id));
                    }
                }
                next_id += 1;
                let rps = if now >= burst.0 && now < burst.1 {
                    burst_rps
                } else {
                    background_rps
                };
                let gap = (-(1.0 - k.rng.f64()).ln() / rps * SEC as f64) as Micros;
                k.after(gap.max(1), Ev::Request(next_id));
            }
            Ev::Arrive(a, id) => {
                let reply = match a {
                    0 => {
                        // INCR, then give a new window's key its expiry (as the seed texts do).
                        let key = format!("fw:{}", now / window);
                        let n = int(&redis.exec(now, "app", &["INCR", &key]));
                        if n == 1 {
                            let px = (2 * window / MS).to_string();
                            redis.exec(now, "app", &["PEXPIRE", &key, &px]);
                        }
                        Frame::Integer(i64::from(n as u64 <= limit))
                    }
                    1 => redis.exec(
                        now,
                        "app",
                        &[
                            "EVAL",
                            SLIDING_LUA,
                            "1",
                            "sl",
                            &window.to_string(),
                            &limit.to_string(),
                            &id.to_string(),
                            &base_s,
                        ],
                    ),
                    _ => {
                        let rate = limit as f64 / (window / MS) as f64;
                        redis.exec(
                            now,
                            "app",
                            &[
                                "EVAL",
                                BUCKET_LUA,
                                "1",
                                "tb",
                                &bucket.to_string(),
                                &rate.to_string(),
                                &(2 * window / MS).to_string(),
                                &base_s,
                            ],
                        )
                    }
                };
                debug_assert!(!reply.is_error(), "{reply:?}");
                let ok = int(&reply) == 1;
                if ok {
                    admitted[a].push(now);
                }
                let d = link.delay(&mut k.rng).unwrap_or(0);
                if near(now) {
                    let verdict = if ok { "allowed" } else { "limited" };
                    k.rec.msg(
                        now,
                        now + d,
                        rl,
                        app,
                        format!("{id} {}: {verdict}", ALGS[a]),
                    );
                }
            }
            Ev::TimedOut(a, id) => {
                if a == 0 {
                    k.rec
                        .msg(
                            now - timeout,
                            now,
                            app,
                            rl,
                            format!(
                                "request {id}: no answer, {}",
                                if fail_open { "allowed" } else { "rejected" }
                            ),
                        )
                        .failed();
                }
                if fail_open {
                    admitted[a].push(now);
                    if a == 0 {
                        outage_admitted += 1;
                    }
                }
            }
            Ev::Measure => {
                let key = format!("fw:{}", now.saturating_sub(1) / window);
                for (i, key) in [key.as_str(), "sl", "tb"].iter().enumerate() {
                    mem[i] = int(&redis.exec(
                        now,
                        "observer",
                        &["MEMORY", "USAGE", key, "SAMPLES", "0"],
                    ));
                }
            }
        }
    }
    if outage > 0 {
        k.rec.mark(
            outage_at,
            rl,
            "info",
            format!(
                "Redis is unreachable for {} ms: the limiter {}.",
                outage / MS,
                if fail_open {
                    "fails open and admits everything"
                } else {
                    "fails closed and rejects everything"
                }
            ),
        );
    }

    // The most admitted in any window-long span (t - window, t].
    let peak = |ts: &[Micros]| -> usize {
        let mut best = 0;
        let mut j = 0;
        for i in 0..ts.len() {
            while ts[i] - ts[j] >= window {
                j += 1;
            }
            best = best.max(i - j + 1);
        }
        best
    };
    // Only spans before the outage judge the algorithms.
    let before: Vec<Vec<Micros>> = admitted
        .iter()
        .map(|v| v.iter().copied().filter(|&t| t < outage_at).collect())
        .collect();
    let peaks: Vec<usize> = before.iter().map(|v| peak(v)).collect();

    let mut out = Outcome::new("rate-limits", seed, p);
    out.duration_us = end;
    for (i, name) in ALGS.iter().enumerate() {
        out.metric(
            &format!("{name}: most admitted in one window"),
            peaks[i] as f64,
            "requests",
        );
    }
    for (i, name) in ALGS.iter().enumerate() {
        out.metric(&format!("{name}: memory per key"), mem[i] as f64, "bytes");
    }
    out.metric(
        "offered during the outage",
        outage_offered as f64,
        "requests",
    )
    .metric(
        "admitted during the outage",
        outage_admitted as f64,
        "requests",
    );

    out.check(
        "The fixed window admits more than the limit within one window-long span around the boundary",
        peaks[0] as u64 > limit,
        format!("{} admitted within {} ms, limit {limit}", peaks[0], window / MS),
    );
    out.check(
        "The sliding log never admits more than the limit in any window-long span",
        peaks[1] as u64 <= limit,
        format!(
            "at most {} within {} ms, limit {limit}",
            peaks[1],
            window / MS
        ),
    );
    out.check(
        "The token bucket's key is much smaller than the sliding log's at the limit",
        mem[2] > 0 && mem[2] * 4 < mem[1],
        format!("{} bytes against {} bytes", mem[2], mem[1]),
    );
    if outage > 0 {
        let (claim, ok) = if fail_open {
            (
                "Failing open admits every request while Redis is away",
                outage_admitted == outage_offered,
            )
        } else {
            (
                "Failing closed admits no request while Redis is away",
                outage_admitted == 0,
            )
        };
        out.check(
            claim,
            ok,
            format!("{outage_admitted} of {outage_offered} admitted"),
        );
    }

    let bucket_w = 100 * MS;
    let per_100 = |name: &str, ts: &[Micros]| {
        let n = end.div_ceil(bucket_w) as usize;
        let mut c = vec![0.0; n];
        for &t in ts {
            if let Some(x) = c.get_mut((t / bucket_w) as usize) {
                *x += 1.0;
            }
        }
        Series::new(
            name,
            c.into_iter()
                .enumerate()
                .map(|(i, v)| ((i as u64 * bucket_w) as f64 / SEC as f64, v))
                .collect(),
        )
    };
    let mut chart = Chart::line(
        "Admitted per 100 ms",
        "virtual time (s)",
        "requests per 100 ms",
    )
    .with(per_100("offered", &offered));
    for (i, name) in ALGS.iter().enumerate() {
        chart = chart.with(per_100(name, &admitted[i]));
    }
    out.charts.push(chart);
    out.charts.push(
        Chart::bars("Memory per limiter key (MEMORY USAGE)", "bytes", ALGS)
            .with(Series::per_category("bytes", mem.iter().map(|&m| m as f64))),
    );
    out.note(format!(
        "{} requests offered; most admitted in {} ms: fixed {}, sliding {}, bucket {} (limit {limit}).",
        offered.len(), window / MS, peaks[0], peaks[1], peaks[2]
    ));
    out.note(format!(
        "After the burst the sliding log's key takes {} bytes, the bucket's {} and a fixed-window counter {}.",
        mem[1], mem[2], mem[0]
    ));
    out.diagram = Some(k.rec.take_diagram());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{all_pass, metric, run as run_with};

    #[test]
    fn rate_limits_defaults_pass_for_three_seeds() {
        for o in all_pass(&RATE_LIMITS, &[]) {
            let fixed = metric(&o, "fixed window: most admitted in one window");
            assert!((150.0..=200.0).contains(&fixed), "fixed {fixed}");
            assert!(metric(&o, "sliding log: most admitted in one window") <= 100.0);
            // The bucket: its burst plus the refill over one window at most.
            assert!(metric(&o, "token bucket: most admitted in one window") <= 150.0);
            assert!(metric(&o, "admitted during the outage") >= 1.0);
        }
    }

    #[test]
    fn failing_closed_admits_nothing_during_the_outage() {
        let o = run_with(&RATE_LIMITS, 1, &[("on_outage", "fail-closed")]);
        assert!(o.passed(), "{:?}", o.checks);
        assert_eq!(metric(&o, "admitted during the outage"), 0.0);
        assert!(metric(&o, "offered during the outage") >= 1.0);
    }

    #[test]
    fn the_sliding_log_grows_with_the_limit_and_the_bucket_does_not() {
        let small = run_with(&RATE_LIMITS, 1, &[("limit", "50")]);
        let big = run_with(&RATE_LIMITS, 1, &[("limit", "400"), ("burst_rps", "2000")]);
        let m = |o: &Outcome, n: &str| metric(o, n);
        assert!(
            m(&big, "sliding log: memory per key") > 2.0 * m(&small, "sliding log: memory per key")
        );
        assert_eq!(
            m(&big, "token bucket: memory per key"),
            m(&small, "token bucket: memory per key")
        );
    }
}
