//! Warming the cache before traffic: a throttled warmer loads the hot set from the database ahead of a cold start, so the first seconds hit; an unthrottled warm-up overloads the database by itself.

use super::service::{self, Guard, Measured, Setup, Warmup};
use super::{db_dist, ms};
use crate::kernel::{Micros, MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;

pub const CACHE_WARMING: Scenario = Scenario::new("cache-warming", warming_run);

const NAMES: [&str; 3] = ["cold", "throttled", "unthrottled"];
/// The early hit ratio is taken over the traffic's first this long.
const EARLY: Micros = 300 * MS;

/// When traffic starts: once the throttled warmer is done, plus 200 ms.
fn traffic_from(p: &Params) -> Micros {
    let secs = p.get("warm_keys") / p.get("warm_rate").max(1.0);
    (secs * SEC as f64) as Micros + 200 * MS
}

fn setup(p: &Params, mode: usize) -> Setup {
    let from = traffic_from(p);
    let warm_keys = p.count("warm_keys");
    Setup {
        duration: from + 2 * SEC,
        window: 100 * MS,
        rate: p.get("rate"),
        traffic_from: from,
        keys: 10_000,
        zipf_s: 1.0,
        rtt: 300,
        db: db_dist(10 * MS),
        db_limit: p.count("db_limit").max(1) as usize,
        deadline: SEC,
        guard: Guard::FailOpen,
        permits: 1,
        slow: SEC,
        breaker_cooldown: SEC,
        redis_down: None,
        preload: false,
        value_bytes: 100,
        maxmemory: None,
        deploy: None,
        import: None,
        warm: (mode > 0 && warm_keys > 0).then(|| Warmup {
            from: 0,
            keys: warm_keys,
            rate: if mode == 1 { p.get("warm_rate") } else { 0.0 },
        }),
        focus: (from, from + EARLY),
        draw: None,
    }
}

fn warming_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("cache-warming", seed, p);
    let pick = p.choice("warm").min(2);
    let runs: Vec<Measured> = (0..3).map(|i| service::run(&setup(p, i), seed)).collect();
    let from = traffic_from(p);
    let end = from + 2 * SEC;
    let limit = p.count("db_limit").max(1) as usize;
    let under_load = |m: &Measured| m.backlog_peak(from, end);
    let while_warming = |m: &Measured| m.backlog_peak(0, from);
    let early = |m: &Measured| m.hit_ratio_in(from, from + EARLY);
    let p99 = |m: &Measured| ms(m.focus_lat.quantile(0.99) as f64);
    let (cold, mine, wild) = (&runs[0], &runs[pick], &runs[2]);
    let name = NAMES[pick];
    for (n, m) in NAMES.iter().zip(&runs) {
        o.metric(
            &format!("DB backlog peak under traffic, {n}"),
            under_load(m) as f64,
            "queries",
        );
        o.metric(&format!("early hit ratio, {n}"), early(m), "%");
        o.metric(&format!("p99 of the first reads, {n}"), p99(m), "ms");
        o.metric(
            &format!("DB backlog peak while warming, {n}"),
            while_warming(m) as f64,
            "queries",
        );
    }
    o.metric("DB concurrency limit", limit as f64, "queries");
    for (n, m) in NAMES.iter().zip(&runs).skip(1) {
        let took = m.warm_done.map_or(0.0, |t| ms(t as f64));
        o.metric(&format!("warm-up time, {n}"), took, "ms");
    }
    let warm_keys = p.count("warm_keys");
    o.check(
        "Loading every hot key at once overloads the database before any user arrives",
        warm_keys <= limit as u64 || while_warming(wild) > limit,
        format!(
            "{warm_keys} loads sent together: backlog {} for a limit of {limit}",
            while_warming(wild)
        ),
    );
    o.check(
        &format!("Warmed {name}, the hot set lowers the database's peak under traffic and lifts the early hit ratio"),
        under_load(mine) < under_load(cold) && early(mine) >= early(cold) + 20.0,
        format!(
            "backlog peak {} vs {} cold; hit ratio in the first {} ms {:.0}% vs {:.0}%",
            under_load(mine),
            under_load(cold),
            EARLY / MS,
            early(mine),
            early(cold)
        ),
    );
    o.check(
        &format!("Warmed {name}, the warm-up itself stays within the database's limit"),
        while_warming(mine) <= limit,
        format!(
            "backlog peak {} while warming, limit {limit}",
            while_warming(mine)
        ),
    );
    let mut backlog = Chart::line("Database backlog (running + queued)", "s", "queries");
    let mut hits = Chart::line("Hit ratio", "s", "%");
    for (n, m) in NAMES.iter().zip(&runs) {
        backlog.series.push(m.backlog_series(n));
        hits.series.push(m.hits.ratio(n));
    }
    o.charts.push(backlog);
    o.charts.push(hits);
    o.charts.push(
        Chart::bars("Database backlog peak", "queries", &NAMES)
            .with(Series::per_category(
                "while warming",
                runs.iter().map(|m| while_warming(m) as f64),
            ))
            .with(Series::per_category(
                "under traffic",
                runs.iter().map(|m| under_load(m) as f64),
            )),
    );
    o.duration_us = end;
    o.note(format!(
        "Traffic ({} reads/s, Zipf over 10,000 keys) starts at {:.1} s on an empty cache; the warmer loads the {warm_keys} hottest keys from the database first.",
        p.get("rate"),
        from as f64 / SEC as f64
    ));
    o.note(format!(
        "Cold, the first {} ms hit {:.0}% and the database backlog reached {}; warmed {name}, {:.0}% and {}.",
        EARLY / MS,
        early(cold),
        under_load(cold),
        early(mine),
        under_load(mine)
    ));
    o.note(format!(
        "Sent all at once, the warm-up queued {} queries on a database that runs {limit}: throttled at {}/s it never queued more than {}.",
        while_warming(wild),
        p.get("warm_rate"),
        while_warming(&runs[1])
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use crate::testing::{failed, run};

    #[test]
    fn throttled_warming_helps_and_unthrottled_hurts() {
        all_pass("cache-warming", &[]);
        for seed in 1..=3 {
            let o = run("cache-warming", seed, &[("warm", "cold")]);
            assert!(failed(&o, "Warmed cold"), "seed {seed}");
            let o = run("cache-warming", seed, &[("warm", "unthrottled")]);
            assert!(
                failed(&o, "Warmed unthrottled, the warm-up itself"),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices("cache-warming", "warm", &super::NAMES.join(" "));
    }
}
