//! Write-behind counters: increments buffered in Redis and flushed to the database in batches, and what a crash between two flushes loses.

use super::{bulk, ms, short};
use crate::kernel::{Database, Dist, Kernel, Link, Micros, Redis, MS, SEC};
use crate::outcome::Outcome;
use crate::outcome::{Chart, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use redsim_engine::proto::resp::Frame;

pub const WRITE_BEHIND_COUNTERS: Scenario = Scenario::new("write-behind-counters", wb_run);

/// Take every dirty counter's pending delta and reset it, atomically, so an
/// increment lands either in this flush or in the next one, never in none.
const FLUSH_LUA: &str = "local out = {} for _, k in ipairs(redis.call('SMEMBERS', KEYS[1])) do local v = redis.call('GETDEL', 'pending:' .. k) redis.call('SREM', KEYS[1], k) if v then out[#out + 1] = k out[#out + 1] = v end end return out";

const SWEEP_MS: &[u64] = &[100, 250, 500, 1000, 2000];

enum WEv {
    Incr(u64),
    Flush,
    Commit(Vec<(String, i64)>),
    Crash,
}

struct WbRun {
    confirmed: i64,
    in_db: i64,
    pending_at_crash: i64,
    flushes: u64,
    diagram: Option<crate::outcome::Diagram>,
}

fn wb_once(
    seed: u64,
    flush: Micros,
    rate: f64,
    crash_at: Micros,
    counters: u64,
    record: bool,
) -> WbRun {
    let end = crash_at + flush + 500 * MS;
    let stop_incr = crash_at + flush / 2 + 100 * MS;
    let mut k: Kernel<WEv> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    let mut db = Database::new(Dist::fixed(2 * MS), Dist::jittered(5 * MS, 3 * MS), 4);
    let link = Link::new(Dist::jittered(300, 200));
    let users = k.rec.lane("users", "client");
    let app = k.rec.lane("flusher", "client");
    let rl = k.rec.lane("redis", "redis");
    let dbl = k.rec.lane("database", "db");
    k.rec.step_cap = if record { 120 } else { 1 };
    let rec_from = crash_at.saturating_sub(flush + flush / 2);
    let mut confirmed = 0i64;
    let mut in_db = 0i64;
    let mut pending_at_crash = 0i64;
    let mut flushes = 0;
    let mut since_flush = 0u32;
    k.at(0, WEv::Incr(0));
    k.at(flush, WEv::Flush);
    k.at(crash_at, WEv::Crash);
    while let Some(ev) = k.next(end) {
        let now = k.now();
        let rec = now >= rec_from;
        match ev {
            WEv::Incr(i) => {
                if now >= stop_incr {
                    continue;
                }
                let c = k.rng.u64(0..counters.max(1)).to_string();
                let key = format!("pending:{c}");
                // The event is the increment's arrival at Redis; the confirmation travels back.
                let d = link.delay(&mut k.rng).unwrap_or(0);
                // Count the increment and mark the counter dirty in one transaction.
                redis.exec(now, "users", &["MULTI"]);
                redis.exec(now, "users", &["INCR", &key]);
                redis.exec(now, "users", &["SADD", "dirty", &c]);
                let r = redis.exec(now, "users", &["EXEC"]);
                if matches!(r, Frame::Array(_)) {
                    confirmed += 1;
                    since_flush += 1;
                    if rec && since_flush <= 3 {
                        k.rec.msg(
                            now,
                            now,
                            users,
                            rl,
                            format!("MULTI INCR {key} SADD dirty {c} EXEC"),
                        );
                        k.rec.msg(
                            now,
                            now + d,
                            rl,
                            users,
                            format!("{} (confirmed)", short(&r)),
                        );
                    }
                }
                let gap = (-(1.0 - k.rng.f64()).ln() / rate * SEC as f64) as Micros;
                k.after(gap.max(1), WEv::Incr(i + 1));
            }
            WEv::Flush => {
                let r = redis.exec(now, "flusher", &["EVAL", FLUSH_LUA, "1", "dirty"]);
                let mut deltas = Vec::new();
                if let Frame::Array(v) = &r {
                    for pair in v.chunks(2) {
                        if let [kf, vf] = pair {
                            let key = bulk(kf).unwrap_or_default();
                            let n = bulk(vf).and_then(|s| s.parse().ok()).unwrap_or(0);
                            deltas.push((key, n));
                        }
                    }
                }
                let total: i64 = deltas.iter().map(|d| d.1).sum();
                flushes += 1;
                since_flush = 0;
                let (_, done) = db.reserve(now, true, &mut k.rng);
                if rec {
                    k.rec
                        .msg(now, now, app, rl, "EVAL flush: take all pending deltas");
                    k.rec.msg(
                        now,
                        done,
                        app,
                        dbl,
                        format!("UPDATE counters (+{total} over {} keys)", deltas.len()),
                    );
                }
                k.at(done, WEv::Commit(deltas));
                k.after(flush, WEv::Flush);
            }
            WEv::Commit(deltas) => {
                for (key, n) in deltas {
                    let cur = db
                        .get(&key)
                        .and_then(|r| r.value.parse::<i64>().ok())
                        .unwrap_or(0);
                    db.put(&key, &(cur + n).to_string());
                    in_db += n;
                }
            }
            WEv::Crash => {
                // What is lost: every pending delta, read before the node dies.
                for c in 0..counters.max(1) {
                    let v = redis.exec(now, "observer", &["GET", &format!("pending:{c}")]);
                    pending_at_crash += bulk(&v).and_then(|s| s.parse::<i64>().ok()).unwrap_or(0);
                }
                redis = Redis::new(seeds::nth(seed, 1), &[]);
                k.rec
                    .local(now, now, rl, "crash: restarts empty (no persistence)");
                k.rec.mark(now, rl, "bad", format!("Redis crashes: {pending_at_crash} increments already confirmed to users were only in Redis and are gone."));
            }
        }
    }
    WbRun {
        confirmed,
        in_db,
        pending_at_crash,
        flushes,
        diagram: record.then(|| k.rec.take_diagram()),
    }
}

fn wb_run(p: &Params, seed: u64) -> Outcome {
    let flush = p.count("flush_ms").max(1) * MS;
    let rate = p.get("rate").max(1.0);
    let crash_at = p.count("crash_at_ms") * MS;
    let counters = p.count("counters").max(1);
    let mut main = wb_once(seed, flush, rate, crash_at, counters, true);
    let lost = main.confirmed - main.in_db;

    // The same crash at three instants per interval, for the chart.
    let mut sweep = Vec::new();
    for &f in SWEEP_MS {
        let mut total = 0i64;
        let tries = 3u64;
        for t in 0..tries {
            let at = 1_000 * MS + (t * 2 + 1) * f * MS / (2 * tries) + f * MS;
            let r = wb_once(
                seeds::salted(seed, t + 1),
                f * MS,
                rate,
                at,
                counters,
                false,
            );
            total += r.confirmed - r.in_db;
        }
        sweep.push((f as f64, total as f64 / tries as f64));
    }

    let mut out = Outcome::new("write-behind-counters", seed, p);
    out.duration_us = crash_at + flush + 500 * MS;
    out.metric("increments confirmed", main.confirmed as f64, "increments")
        .metric(
            "increments in the database",
            main.in_db as f64,
            "increments",
        )
        .metric("confirmed increments lost", lost as f64, "increments")
        .metric(
            "expected loss (rate × interval / 2)",
            rate * ms(flush) / 2_000.0,
            "increments",
        )
        .metric("flushes", main.flushes as f64, "flushes");
    out.check(
        "The crash loses exactly the confirmed increments still pending in Redis",
        lost > 0 && lost == main.pending_at_crash,
        format!(
            "{lost} lost, {} pending at the crash",
            main.pending_at_crash
        ),
    );
    let first = sweep.first().map_or(0.0, |s| s.1);
    let last = sweep.last().map_or(0.0, |s| s.1);
    out.check(
        "A longer flush interval loses more (mean over three crash instants)",
        last > first,
        format!(
            "{first:.1} lost at {} ms, {last:.1} at {} ms",
            SWEEP_MS[0],
            SWEEP_MS[SWEEP_MS.len() - 1]
        ),
    );
    out.charts.push(
        Chart::line(
            "Lost increments against the flush interval",
            "flush interval (ms)",
            "increments lost",
        )
        .with(Series::new("measured (mean of 3 crashes)", sweep.clone()))
        .with(Series::new(
            "rate × interval / 2",
            SWEEP_MS
                .iter()
                .map(|&f| (f as f64, rate * f as f64 / 2_000.0))
                .collect(),
        )),
    );
    out.note(format!(
        "{} increments confirmed, {} reached the database: {lost} lost to the crash at {} ms with a {} ms flush interval.",
        main.confirmed, main.in_db, crash_at / MS, flush / MS
    ));
    out.diagram = main.diagram.take();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{all_pass, metric};

    #[test]
    fn write_behind_defaults_pass_for_three_seeds() {
        for o in all_pass(&WRITE_BEHIND_COUNTERS, &[]) {
            // At most one interval's worth (300/s × 0.5 s) plus Poisson slack.
            let lost = metric(&o, "confirmed increments lost");
            assert!(lost > 0.0 && lost < 250.0, "lost {lost}");
            assert!(o
                .diagram
                .as_ref()
                .is_some_and(|d| d.marks.iter().any(|m| m.tone == "bad")));
        }
    }
}
