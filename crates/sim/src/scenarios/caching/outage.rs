//! Redis goes down under a cache-aside service: failing open sends every read to the database and buries it; failing closed, a semaphore (bulkhead) or a circuit breaker keep the database within its limit.

use super::service::{self, Guard, Measured, Setup};
use super::{db_dist, ms, us};
use crate::kernel::{MS, SEC};
use crate::outcome::{Chart, Mark, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;

pub const REDIS_OUTAGE: Scenario = Scenario::new("redis-outage", outage_run);

const DOWN_AT: u64 = SEC;

fn outage_setup(p: &Params, guard: Guard) -> Setup {
    let down_for = us(p.get("outage_s") * 1000.0).max(MS);
    let duration = DOWN_AT + down_for + SEC;
    let limit = p.count("db_limit").max(1) as usize;
    Setup {
        duration,
        window: 50 * MS,
        rate: p.get("rate"),
        traffic_from: 0,
        keys: 5_000,
        zipf_s: 1.0,
        rtt: 300,
        db: db_dist(us(p.get("db_ms")).max(MS)),
        db_limit: limit,
        deadline: us(p.get("deadline_ms")).max(MS),
        guard,
        permits: limit,
        slow: 50 * MS,
        breaker_cooldown: 250 * MS,
        redis_down: Some((DOWN_AT, DOWN_AT + down_for)),
        preload: true,
        value_bytes: 16,
        maxmemory: None,
        deploy: None,
        import: None,
        warm: None,
        focus: (DOWN_AT, DOWN_AT + down_for),
        draw: None,
    }
}

fn outage_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("redis-outage", seed, p);
    let chosen = Guard::ALL
        .get(p.choice("guard"))
        .copied()
        .unwrap_or(Guard::Semaphore);
    // The chosen guard's run also draws a sample of its requests around
    // the moment Redis goes away (drawing takes no randomness).
    let mut runs: Vec<Measured> = Guard::ALL
        .iter()
        .map(|&g| {
            let mut setup = outage_setup(p, g);
            if g == chosen {
                setup.draw = Some((DOWN_AT - 40 * MS, DOWN_AT + 600 * MS, 97));
            }
            service::run(&setup, seed)
        })
        .collect();
    let drawing = runs.iter_mut().find_map(|m| m.diagram.take());
    let at = |g: Guard| Guard::ALL.iter().position(|x| *x == g).unwrap_or(0);
    let (open, mine) = (&runs[at(Guard::FailOpen)], &runs[at(chosen)]);
    let name = Guard::NAMES[at(chosen)];
    let limit = p.count("db_limit").max(1) as usize;
    let deadline = p.get("deadline_ms");
    let capacity = limit as f64 * 1000.0 / p.get("db_ms");
    let err_pct = |m: &Measured| 100.0 * m.focus_errors as f64 / m.focus_requests.max(1) as f64;
    let p99 = |m: &Measured| ms(m.focus_lat.quantile(0.99) as f64);
    for (g, m) in Guard::NAMES.iter().zip(&runs) {
        o.metric(
            &format!("DB backlog peak, {g}"),
            m.db_peak as f64,
            "queries",
        );
        o.metric(&format!("errors during the outage, {g}"), err_pct(m), "%");
        o.metric(&format!("p99 during the outage, {g}"), p99(m), "ms");
    }
    o.metric("DB concurrency limit", limit as f64, "queries");
    o.metric("DB capacity", capacity, "queries/s");
    o.metric("breaker trips", runs[at(Guard::Breaker)].trips as f64, "");
    let rate = p.get("rate");
    o.check(
        "Failing open with nothing in front of the database overloads it: the backlog passes its limit and reads wait many times a query's length, or time out",
        rate <= capacity || (open.db_peak > limit && p99(open) >= 5.0 * p.get("db_ms")),
        format!(
            "{rate} reads/s against {capacity:.0} queries/s: backlog peaked at {} for a limit of {limit}, p99 {:.0} ms for {} ms queries, {} reads timed out at {deadline} ms",
            open.db_peak, p99(open), p.get("db_ms"), open.timeouts
        ),
    );
    let (claim, holds) = match chosen {
        Guard::Breaker => (
            "The breaker sheds the overload: the database's backlog stays under a quarter of failing open's".to_string(),
            4 * mine.db_peak <= open.db_peak.max(limit),
        ),
        _ => (
            format!("With {name}, the database stays within its concurrency limit through the outage"),
            mine.db_peak <= limit,
        ),
    };
    o.check(
        &claim,
        holds,
        format!(
            "{name}: backlog peak {} (fail-open {}), limit {limit}; {:.0}% of reads in the outage failed, p99 {:.0} ms",
            mine.db_peak,
            open.db_peak,
            err_pct(mine),
            p99(mine)
        ),
    );
    let end = outage_setup(p, chosen).duration;
    let mut backlog = Chart::line("Database backlog (running + queued)", "s", "queries");
    let mut errors = Chart::line("Failed reads per second", "s", "1/s");
    for (g, m) in Guard::NAMES.iter().zip(&runs) {
        backlog.series.push(m.backlog_series(g));
        errors.series.push(m.errors.rate(g, end));
    }
    o.charts.push(backlog);
    o.charts.push(errors);
    let bars = |f: &dyn Fn(&Measured) -> f64, n: &str| Series::per_category(n, runs.iter().map(f));
    o.charts.push(
        Chart::bars("Peak database backlog", "queries", &Guard::NAMES)
            .with(bars(&|m| m.db_peak as f64, "backlog peak")),
    );
    o.charts.push(
        Chart::bars("During the outage", "% / ms", &Guard::NAMES)
            .with(bars(&err_pct, "errors (%)"))
            .with(bars(&p99, "p99 (ms)")),
    );
    if let Some(mut d) = drawing {
        d.marks.push(Mark {
            at_us: DOWN_AT,
            lane: 1,
            text: "Redis becomes unreachable: every GET is refused".to_string(),
            tone: "bad".to_string(),
        });
        let (tone, text) = match chosen {
            Guard::FailOpen => (
                "bad",
                "every refused GET becomes a SELECT: the database queues",
            ),
            Guard::FailClosed => (
                "good",
                "refused GETs fail at once: the database is left alone",
            ),
            Guard::Semaphore => ("good", "no more SELECTs than permits: the rest fail fast"),
            Guard::Breaker => (
                "good",
                "slow SELECTs open the breaker: reads fail fast until it probes",
            ),
        };
        d.marks.push(Mark {
            at_us: DOWN_AT + 1,
            lane: 2,
            text: text.to_string(),
            tone: tone.to_string(),
        });
        o.diagram = Some(d);
    }
    o.duration_us = end;
    o.note(format!(
        "Redis was unreachable from 1 s for {} s; every GET failed after a round trip.",
        p.get("outage_s")
    ));
    o.note(format!(
        "Failing open turned {rate} reads/s into database reads against a capacity of {capacity:.0}/s: the backlog reached {} and {:.0}% of reads failed at the {deadline} ms deadline, p99 {:.0} ms; the queries the clients gave up on still ran.",
        open.db_peak,
        err_pct(open),
        p99(open)
    ));
    o.note(format!(
        "{name}: backlog peak {}, {:.0}% of reads failed, p99 {:.0} ms. Failing closed or shedding gives errors fast instead of burying the database, which then serves what it can.",
        mine.db_peak,
        err_pct(mine),
        p99(mine)
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use crate::testing::{failed, metric as m, run};

    #[test]
    fn guards_keep_the_database_alive() {
        for g in ["fail-closed", "semaphore", "breaker"] {
            all_pass("redis-outage", &[("guard", g)]);
        }
        // Failing open is the unprotected run: its guard check fails.
        for seed in 1..=3 {
            let o = run("redis-outage", seed, &[("guard", "fail-open")]);
            assert!(failed(&o, "With fail-open"), "seed {seed}");
        }
        let o = run("redis-outage", 1, &[]);
        assert!(m(&o, "DB backlog peak, semaphore") <= m(&o, "DB concurrency limit"));
        assert!(m(&o, "DB backlog peak, fail-open") > 10.0 * m(&o, "DB concurrency limit"));
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices("redis-outage", "guard", &super::Guard::NAMES.join(" "));
    }
}
