//! Stampedes and avalanches: a hot key expiring under load and the protections against it (lock, singleflight, XFetch, logical expiry, refresh-ahead), and many keys expiring or vanishing at once.

use super::{db_dist, ms, run_world, us};
use crate::kernel::{Dist, Micros, MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::world::{Config, KeyDist, LoadGen, Metrics, Protection, Warm, World};

pub const STAMPEDE: Scenario = Scenario::new("stampede", stampede_run);

const EXPIRE_AT: Micros = 300 * MS;

fn stampede_cfg(p: &Params, prot: Protection) -> Config {
    let dur = 700 * MS;
    Config {
        pods: p.count("pods").max(1) as usize,
        duration: dur,
        window: 20 * MS,
        // A fixed pod↔Redis latency keeps one flight per pod exact: a GET
        // that ran before the leader's SET also answers before it.
        net: Dist::fixed(150),
        db_read: db_dist(us(p.get("db_ms")).max(5)),
        db_limit: 100,
        ttl: 10 * SEC,
        protection: prot,
        beta: p.get("beta"),
        lock_sleep: us(p.get("lock_sleep_ms")).max(1),
        flight_deadline: (p.get("wait_deadline_ms") > 0.0).then(|| us(p.get("wait_deadline_ms"))),
        pool_size: 64,
        warm: Some(Warm {
            keys: 1,
            at: 0,
            span: 0,
            ttl: EXPIRE_AT,
        }),
        loads: vec![LoadGen::new(p.get("rate"), KeyDist::One(0), 1.0, MS, dur)],
        ..Config::default()
    }
}

fn stampede_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("stampede", seed, p);
    let chosen = Protection::from_index(p.choice("protection"));
    let pods = p.count("pods").max(1);
    let runs: Vec<World> = Protection::ALL
        .iter()
        .map(|&pr| run_world(stampede_cfg(p, pr), seed))
        .collect();
    let idx = Protection::ALL
        .iter()
        .position(|&x| x == chosen)
        .unwrap_or(0);
    let cats: Vec<&str> = Protection::NAMES.to_vec();
    let bars =
        |name: &str, f: &dyn Fn(&World) -> f64| Series::per_category(name, runs.iter().map(f));
    o.charts.push(
        Chart::bars("Database calls for the hot key", "queries", &cats)
            .with(bars("DB calls", &|w| w.db.reads as f64)),
    );
    o.charts.push(
        Chart::bars("Client latency p99", "ms", &cats)
            .with(bars("p99", &|w| ms(w.m.reads.quantile(0.99) as f64))),
    );
    o.charts.push(
        Chart::bars("GETs that found nothing", "misses", &cats)
            .with(bars("misses", &|w| w.m.misses.total())),
    );
    // The chosen protection again (same seed, same run) with its diagram
    // around the first database call.
    let (first, first_pod) = runs
        .get(idx)
        .map(|w| (w.m.first_db_at.unwrap_or(EXPIRE_AT), w.m.first_db_pod))
        .unwrap_or((EXPIRE_AT, 0));
    let mut cfg = stampede_cfg(p, chosen);
    let n = cfg.pods;
    // The pod that queried first, and its neighbour.
    cfg.diagram_pods = if n > 1 {
        vec![first_pod, (first_pod + 1) % n]
    } else {
        vec![0]
    };
    cfg.diagram_from = first.saturating_sub(MS);
    cfg.diagram_span = 60 * MS;
    let mut w = run_world(cfg, seed);
    let end = w.cfg.duration;
    o.charts.push(
        Chart::line(&format!("DB QPS ({})", chosen.name()), "s", "queries/s")
            .with(w.m.db.rate("DB QPS", end)),
    );
    o.charts.push(
        Chart::line(&format!("Client latency ({})", chosen.name()), "s", "ms")
            .with(w.m.reads.quantile_series("p99", 0.99, 20 * MS))
            .with(w.m.reads.quantile_series("p50", 0.5, 20 * MS)),
    );
    let db_calls = w.db.reads;
    let misses = w.m.misses.total() as u64;
    let pods_missed = w
        .pods
        .iter()
        .filter(|pd| pd.group.stats.executions > 0)
        .count() as u64;
    let p99 = ms(w.m.reads.quantile(0.99) as f64);
    o.metric("DB calls", db_calls as f64, "");
    o.metric("GET misses", misses as f64, "");
    o.metric("p99 latency", p99, "ms");
    o.metric("max latency", ms(w.m.reads.max() as f64), "ms");
    o.metric("peak DB concurrency", w.db.peak_concurrency as f64, "");
    o.metric("lock polls", w.m.lock_polls as f64, "");
    o.metric("background refreshes", w.m.background_refreshes as f64, "");
    o.metric("stale reads served", w.m.served_stale as f64, "");
    o.metric("followers that gave up", w.m.gave_up as f64, "");
    let none_calls = runs.first().map_or(0, |r| r.db.reads);
    let (claim, passed, detail) = match chosen {
        Protection::None => (
            "Without protection every request that misses goes to the database".to_string(),
            db_calls == misses && db_calls as f64 >= 0.3 * p.get("rate") * p.get("db_ms") / 1000.0,
            format!(
                "{db_calls} DB calls for {misses} misses (≈ rate × load time = {:.0})",
                p.get("rate") * p.get("db_ms") / 1000.0
            ),
        ),
        Protection::Lock => (
            "A per-key rebuild lock makes one database call; the others sleep and poll".to_string(),
            db_calls == 1 && w.m.lock_polls > 0,
            format!("{db_calls} DB call(s), {} polls of the lock", w.m.lock_polls),
        ),
        Protection::Singleflight => (
            format!("Singleflight collapses the misses to one database call per pod ({pods} pods)"),
            db_calls == pods && pods_missed == pods && misses > db_calls,
            format!(
                "{db_calls} DB calls for {misses} misses over {pods_missed} pods (without protection: {none_calls})"
            ),
        ),
        Protection::XFetch => (
            "XFetch refreshes the key before it expires: no read misses".to_string(),
            misses == 0 && db_calls >= 1,
            format!(
                "{misses} misses, {db_calls} early refreshes at beta={}",
                p.get("beta")
            ),
        ),
        Protection::LogicalExpiry => (
            "Logical expiry serves the stale value while one refresher reloads: no read misses".to_string(),
            misses == 0 && db_calls <= 2,
            format!(
                "{misses} misses, {db_calls} DB call(s), {} stale reads served",
                w.m.served_stale
            ),
        ),
        Protection::RefreshAhead => (
            "Refresh-ahead reloads at 80% of the TTL: no read misses".to_string(),
            misses == 0 && db_calls <= 2,
            format!("{misses} misses, {db_calls} DB call(s)"),
        ),
    };
    o.check(&claim, passed, detail);
    // The diagram: where things go wrong (or a fix works).
    let mut d = w.k.rec.take_diagram();
    let selects: Vec<(u64, usize)> = d
        .steps
        .iter()
        .filter(|s| s.label.starts_with("SELECT"))
        .map(|s| (s.at_us, s.from))
        .collect();
    let mark = |d: &mut crate::outcome::Diagram, at: u64, lane: usize, tone: &str, text: &str| {
        d.marks.push(crate::outcome::Mark {
            at_us: at,
            lane,
            text: text.to_string(),
            tone: tone.to_string(),
        });
    };
    let first_step = |d: &crate::outcome::Diagram, what: &str| {
        d.steps
            .iter()
            .find(|s| s.label.starts_with(what))
            .map(|s| (s.at_us, s.from))
    };
    match chosen {
        Protection::None => {
            if let Some(&(at, lane)) = selects.get(1) {
                mark(&mut d, at, lane, "bad", "A second SELECT for the same key while the first is still running: the stampede.");
            }
        }
        Protection::Singleflight => {
            if let Some((at, lane)) = first_step(&d, "joins the flight") {
                mark(
                    &mut d,
                    at,
                    lane,
                    "good",
                    "This pod's next miss joins the running flight instead of querying.",
                );
            }
        }
        Protection::Lock => {
            if let Some((at, lane)) = first_step(&d, "lock taken") {
                mark(
                    &mut d,
                    at,
                    lane,
                    "good",
                    "Lost the rebuild lock: it sleeps and reads again instead of querying.",
                );
            }
        }
        _ => {
            if let Some(&(at, lane)) = selects.first() {
                mark(
                    &mut d,
                    at,
                    lane,
                    "good",
                    "Reloaded in the background while readers keep getting a value.",
                );
            }
        }
    }
    o.diagram = Some(d);
    o.duration_us = end;
    o.note(format!(
        "The hot key expired at {} ms under {} req/s over {pods} pods; with {} the database got {db_calls} call(s) (none: {none_calls}).",
        EXPIRE_AT / MS,
        p.get("rate"),
        chosen.name()
    ));
    o.note(format!("p99 was {p99:.1} ms; {misses} GETs found nothing."));
    o
}

// ---------------------------------------------------------------- avalanche

pub const AVALANCHE: Scenario = Scenario::new("avalanche", avalanche_run);

fn avalanche_cfg(p: &Params, cause: usize, jitter: f64) -> Config {
    let ttl = us(p.get("ttl_s") * 1000.0).max(MS);
    let dur = match cause {
        0 => ttl * 2,
        _ => 3 * SEC,
    };
    let keys = p.count("keys").max(1);
    Config {
        pods: 4,
        duration: dur,
        window: 100 * MS,
        net: Dist::jittered(100, 100),
        db_read: db_dist(10 * MS),
        db_limit: p.count("db_limit").max(1) as usize,
        ttl: if cause == 0 { ttl } else { 60 * SEC },
        ttl_jitter: jitter,
        pool_size: 128,
        warm: (cause != 1).then_some(Warm {
            keys,
            at: 0,
            span: 100 * MS,
            ttl: if cause == 0 { ttl } else { 0 },
        }),
        failover_at: (cause == 2).then_some(3 * SEC / 2),
        loads: vec![LoadGen::new(
            p.get("rate"),
            KeyDist::Uniform(keys),
            1.0,
            100 * MS,
            dur,
        )],
        ..Config::default()
    }
}

fn avalanche_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("avalanche", seed, p);
    let cause = p.choice("cause").min(2);
    let rate = p.get("rate");
    let mut qps = Chart::line("Database queries per second", "s", "queries/s");
    let mut hit = Chart::line("Hit rate", "s", "%");
    let mut lat = Chart::line("Client latency p99", "s", "ms");
    let main = run_world(avalanche_cfg(p, cause, 0.0), seed);
    let end = main.cfg.duration;
    let peak = |w: &World| Metrics::peak_rate(&w.m.db, w.cfg.duration);
    let label = ["synchronised TTL", "cold start", "failover"][cause];
    qps.series.push(main.m.db.rate(label, end));
    hit.series.push(main.m.hits.ratio(label));
    lat.series
        .push(main.m.reads.quantile_series(label, 0.99, 100 * MS));
    o.metric("peak DB QPS", peak(&main), "1/s");
    o.metric("p99 latency", ms(main.m.reads.quantile(0.99) as f64), "ms");
    o.metric("peak DB concurrency", main.db.peak_concurrency as f64, "");
    let windows = main.m.hits.ratio("");
    match cause {
        0 => {
            let j = p.get("jitter_pct") / 100.0;
            let jit = run_world(avalanche_cfg(p, 0, j), seed);
            let name = format!("±{}% jitter", p.get("jitter_pct"));
            qps.series.push(jit.m.db.rate(&name, end));
            hit.series.push(jit.m.hits.ratio(&name));
            lat.series
                .push(jit.m.reads.quantile_series(&name, 0.99, 100 * MS));
            let (ps, pj) = (peak(&main), peak(&jit));
            o.metric("peak DB QPS with jitter", pj, "1/s");
            o.metric(
                "p99 latency with jitter",
                ms(jit.m.reads.quantile(0.99) as f64),
                "ms",
            );
            o.check(
                "Synchronised TTLs expire together: jitter at least lowers the database spike by a third",
                pj <= 0.67 * ps,
                format!("peak {ps:.0} queries/s synchronised vs {pj:.0} with jitter"),
            );
            o.charts.push(
                Chart::bars(
                    "Peak database load",
                    "queries/s",
                    &["synchronised", "jittered"],
                )
                .with(Series::new("peak DB QPS", vec![(0.0, ps), (1.0, pj)])),
            );
            o.note(format!(
                "{} keys warmed in 100 ms with one TTL expired together: the database peaked at {ps:.0} queries/s; ±{}% jitter held it to {pj:.0}.",
                p.count("keys"),
                p.get("jitter_pct")
            ));
        }
        1 => {
            let first = windows.points.first().map_or(100.0, |x| x.1);
            let last = windows.points.last().map_or(0.0, |x| x.1);
            let first_db = main.m.db.rate("", end).points.get(1).map_or(0.0, |x| x.1);
            o.metric("hit rate, first window", first, "%");
            o.metric("hit rate, last window", last, "%");
            o.check(
                "A cold cache sends the traffic to the database until it warms",
                first < 30.0 && last > 80.0 && first_db >= 0.5 * rate,
                format!("hit rate {first:.0}% → {last:.0}%; DB {first_db:.0} queries/s at the start for {rate} req/s"),
            );
            o.note(format!(
                "The cache started empty: the first window hit {first:.0}% and the database took {first_db:.0} queries/s until it warmed to {last:.0}%."
            ));
        }
        _ => {
            let t = 3 * SEC / 2;
            let before = windows
                .points
                .iter()
                .filter(|x| x.0 < t as f64 / SEC as f64 && x.0 >= 0.5)
                .map(|x| x.1)
                .fold(100.0, f64::min);
            let after = windows
                .points
                .iter()
                .find(|x| x.0 >= t as f64 / SEC as f64)
                .map_or(100.0, |x| x.1);
            o.metric("hit rate before failover (min)", before, "%");
            o.metric("hit rate right after failover", after, "%");
            o.check(
                "Failover to an empty replica empties the cache: the hit rate collapses at the switch",
                before > 90.0 && after < 30.0,
                format!("hit rate {before:.0}% before, {after:.0}% in the window after"),
            );
            o.note(format!(
                "At 1.5 s an empty node took over: the hit rate fell from {before:.0}% to {after:.0}% and the database peaked at {:.0} queries/s.",
                peak(&main)
            ));
        }
    }
    o.charts.push(qps);
    o.charts.push(hit);
    o.charts.push(lat);
    o.duration_us = end;
    o
}

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use crate::outcome::Outcome;
    use crate::testing::{metric as m, run};
    use crate::world::Protection;

    #[test]
    fn stampede_protections() {
        for prot in Protection::NAMES {
            all_pass("stampede", &[("protection", prot)]);
        }
        let o = run("stampede", 1, &[("protection", "none")]);
        assert!(m(&o, "DB calls") > 100.0, "{}", m(&o, "DB calls"));
        let o = run("stampede", 2, &[("protection", "singleflight")]);
        assert_eq!(m(&o, "DB calls"), 20.0);
        assert!(o
            .diagram
            .as_ref()
            .is_some_and(|d| !d.steps.is_empty() && !d.marks.is_empty()));
        let o = run("stampede", 3, &[("protection", "xfetch")]);
        assert_eq!(m(&o, "GET misses"), 0.0);
        // Followers with a short DoChan deadline give up; the leaders still make one call per pod.
        let o = run(
            "stampede",
            1,
            &[("protection", "singleflight"), ("wait_deadline_ms", "10")],
        );
        assert!(m(&o, "followers that gave up") > 50.0);
        assert_eq!(m(&o, "DB calls"), 20.0);
        // Singleflight with one pod collapses to a single call.
        let o = run(
            "stampede",
            1,
            &[("protection", "singleflight"), ("pods", "1")],
        );
        assert_eq!(m(&o, "DB calls"), 1.0);
    }

    #[test]
    fn avalanche_causes() {
        for cause in ["expiry", "cold-start", "failover"] {
            all_pass("avalanche", &[("cause", cause)]);
        }
        // Without jitter there is nothing to spread: the check fails.
        let o = run("avalanche", 1, &[("jitter_pct", "0")]);
        assert!(!o.passed());
    }

    #[test]
    fn runs_are_deterministic() {
        let a = serde_json_like(&run("stampede", 9, &[("protection", "lock")]));
        let b = serde_json_like(&run("stampede", 9, &[("protection", "lock")]));
        assert_eq!(a, b);
    }

    fn serde_json_like(o: &Outcome) -> String {
        format!("{:?}", o)
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices(
            "stampede",
            "protection",
            &crate::world::Protection::NAMES.join(" "),
        );
    }
}
