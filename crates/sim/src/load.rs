//! Caching scenarios under load: hit rate and latency, when a cache hurts, stampede protections, avalanche, a hot key behind an L1, and connection-pool exhaustion, blocking commands and retried INCRs.
//!
//! Scenarios 1–5 run the [`World`] of `world.rs` (pods, pools, Redis
//! nodes, a database); the connection-pool scenario has its own small loop
//! because it needs blocking commands (`submit`/`take_unblocked`) and a
//! stalled reply path. Comparisons (with and without a protection, a
//! baseline without cache) run inside one outcome with the same seed.

use super::kernel::{reply_text, Dist, Kernel, Latencies, Meter, Micros, Redis, MS, SEC};
use super::outcome::{Chart, Outcome, Series};
use super::world::{predicted_latency, Config, KeyDist, LoadGen, Metrics, Protection, Warm, World};
use super::{ParamSpec, Params, Scenario, ScenarioInfo};
use redsim_engine::{ClientId, Frame};
use std::collections::BTreeMap;

fn ms(us: f64) -> f64 {
    us / MS as f64
}

fn us(ms: f64) -> Micros {
    (ms * MS as f64).max(0.0).round() as Micros
}

/// A database latency with mean `mean` (±20 % uniform jitter).
fn db_dist(mean: Micros) -> Dist {
    let jitter = mean / 5;
    Dist::jittered(mean - jitter / 2, jitter)
}

fn run_world(cfg: Config, seed: u64) -> World {
    let mut w = World::new(cfg, seed);
    w.run();
    w
}

fn db_qps(m: &Metrics, name: &str, end: Micros) -> Series {
    m.db.rate(name, end)
}

// ---------------------------------------------------------------- 1. hit-rate-latency

pub const HIT_RATE_LATENCY: Scenario = Scenario {
    info: hit_rate_latency_info,
    run: hit_rate_latency_run,
};

fn hit_rate_latency_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "hit-rate-latency",
        group: "caching",
        title: "Hit rate, effective latency and misses per second",
        claim: "Mean latency follows L = h·L_hit + (1−h)·(L_hit + L_source), the p99 stays at the source's latency, and the database feels misses per second, not the hit percentage.",
        look_for: "Compare the measured mean with the formula at two hit ratios: every point of hit rate removes the same slice of latency. The p99 line sits at the source's latency as long as more than 1% of reads miss. At ten times the traffic the hit ratio is the same but ten times as many misses per second reach the database.",
        params: vec![
            ParamSpec::num("hit_pct", 90.0, (0.0, 100.0, 0.5), "%", "Share of reads for keys already in the cache (the rest are new keys)."),
            ParamSpec::num("hit_pct_2", 99.0, (0.0, 100.0, 0.5), "%", "A second hit ratio to compare with the first."),
            ParamSpec::num("l_hit_ms", 0.3, (0.05, 5.0, 0.05), "ms", "Round trip to Redis (a hit's cost)."),
            ParamSpec::num("l_source_ms", 20.0, (0.5, 200.0, 0.5), "ms", "Mean database read latency (a miss adds it)."),
            ParamSpec::num("rate", 1000.0, (100.0, 3000.0, 100.0), "req/s", "Read traffic of the base runs."),
            ParamSpec::num("traffic_factor", 10.0, (2.0, 20.0, 1.0), "×", "How much more traffic the high-traffic run gets, same hit ratio."),
        ],
    }
}

fn hit_cfg(p: &Params, hit: f64, rate: f64) -> Config {
    let dur = SEC;
    let net = us(p.get("l_hit_ms") / 2.0).max(1);
    Config {
        pods: 4,
        duration: dur,
        window: 100 * MS,
        net: Dist::fixed(net),
        db_read: db_dist(us(p.get("l_source_ms")).max(5)),
        db_limit: 400,
        pool_size: 256,
        warm: Some(Warm {
            keys: 1000,
            at: 0,
            span: 0,
            ttl: 0,
        }),
        loads: vec![LoadGen::new(
            rate,
            KeyDist::HotOrUnique {
                hot: 1000,
                p: hit / 100.0,
            },
            1.0,
            MS,
            dur,
        )],
        ..Config::default()
    }
}

fn hit_rate_latency_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("hit-rate-latency", seed, p);
    let rate = p.get("rate");
    let f = p.get("traffic_factor");
    let (h1, h2) = (p.get("hit_pct"), p.get("hit_pct_2"));
    let a = run_world(hit_cfg(p, h1, rate), seed);
    let b = run_world(hit_cfg(p, h1, rate * f), seed.wrapping_add(1));
    let c = run_world(hit_cfg(p, h2, rate), seed.wrapping_add(2));
    let l_hit = 2.0 * a.cfg.net.mean();
    let l_src = a.cfg.db_read.mean();
    let secs = a.cfg.duration as f64 / SEC as f64;
    let pred = |w: &World| ms(predicted_latency(w.m.hit_ratio(), l_hit, l_src));
    let mean = |w: &World| ms(w.m.reads.mean());
    let (pa, pc, ma, mc) = (pred(&a), pred(&c), mean(&a), mean(&c));
    let miss_s = |w: &World| w.m.misses.total() / secs;
    o.metric("hit ratio (hit_pct)", 100.0 * a.m.hit_ratio(), "%");
    o.metric("mean latency at hit_pct (measured)", ma, "ms");
    o.metric("mean latency at hit_pct (formula)", pa, "ms");
    o.metric("hit ratio (hit_pct_2)", 100.0 * c.m.hit_ratio(), "%");
    o.metric("mean latency at hit_pct_2 (measured)", mc, "ms");
    o.metric("mean latency at hit_pct_2 (formula)", pc, "ms");
    o.metric("p50 at hit_pct", ms(a.m.reads.quantile(0.5) as f64), "ms");
    o.metric("p99 at hit_pct", ms(a.m.reads.quantile(0.99) as f64), "ms");
    o.metric(
        "p99 at hit_pct_2",
        ms(c.m.reads.quantile(0.99) as f64),
        "ms",
    );
    o.metric("misses/s at base traffic", miss_s(&a), "1/s");
    o.metric("misses/s at high traffic", miss_s(&b), "1/s");
    o.metric("hit ratio at high traffic", 100.0 * b.m.hit_ratio(), "%");
    o.metric(
        "peak DB concurrency at high traffic",
        b.db.peak_concurrency as f64,
        "",
    );
    let close = |m: f64, p: f64| (m - p).abs() <= 0.05 * p + 0.02;
    o.check(
        "The measured mean latency matches the seeds' formula (within 5%) at both hit ratios",
        close(ma, pa) && close(mc, pc),
        format!(
            "h={:.1}%: {ma:.3} ms measured vs {pa:.3} ms predicted; h={:.1}%: {mc:.3} vs {pc:.3}",
            100.0 * a.m.hit_ratio(),
            100.0 * c.m.hit_ratio()
        ),
    );
    let p99 = ms(a.m.reads.quantile(0.99) as f64);
    o.check(
        &format!("At {h1}% hits the p99 is a miss: it stays at the source's latency"),
        p99 >= 0.9 * ms(l_src),
        format!("p99 {p99:.2} ms vs L_source {:.2} ms", ms(l_src)),
    );
    let ratio = miss_s(&b) / miss_s(&a).max(1e-9);
    o.check(
        "Same hit ratio, more traffic: misses per second (the database's load) grow with the traffic",
        (ratio - f).abs() <= 0.3 * f
            && (a.m.hit_ratio() - b.m.hit_ratio()).abs() <= 0.03,
        format!(
            "hit ratio {:.1}% vs {:.1}%; misses/s {:.0} vs {:.0} (×{ratio:.1}, traffic ×{f})",
            100.0 * a.m.hit_ratio(),
            100.0 * b.m.hit_ratio(),
            miss_s(&a),
            miss_s(&b)
        ),
    );
    let end = a.cfg.duration;
    o.charts.push(
        Chart::bars(
            "Mean latency: measured vs formula",
            "ms",
            &[&format!("h={h1}%"), &format!("h={h2}%")],
        )
        .with(Series::new("measured", vec![(0.0, ma), (1.0, mc)]))
        .with(Series::new("formula", vec![(0.0, pa), (1.0, pc)])),
    );
    o.charts.push(
        Chart::line("Client latency (base traffic)", "s", "ms")
            .with(
                a.m.reads
                    .quantile_series(&format!("p50 h={h1}%"), 0.5, 100 * MS),
            )
            .with(
                a.m.reads
                    .quantile_series(&format!("p99 h={h1}%"), 0.99, 100 * MS),
            )
            .with(
                c.m.reads
                    .quantile_series(&format!("p99 h={h2}%"), 0.99, 100 * MS),
            ),
    );
    o.charts.push(
        Chart::line(
            "DB QPS: same hit ratio, two traffic levels",
            "s",
            "queries/s",
        )
        .with(db_qps(&a.m, &format!("{rate} req/s"), end))
        .with(db_qps(&b.m, &format!("{} req/s", rate * f), end)),
    );
    o.charts.push(
        Chart::line("Hit rate", "s", "%")
            .with(a.m.hits.ratio(&format!("h={h1}%")))
            .with(c.m.hits.ratio(&format!("h={h2}%"))),
    );
    o.duration_us = end;
    o.note(format!(
        "At {:.1}% hits reads averaged {ma:.2} ms (formula {pa:.2} ms); at {:.1}% they averaged {mc:.2} ms (formula {pc:.2} ms).",
        100.0 * a.m.hit_ratio(),
        100.0 * c.m.hit_ratio()
    ));
    o.note(format!(
        "The median stays near L_hit ({:.2} ms) while the p99 ({p99:.1} ms) is a database read.",
        ms(a.m.reads.quantile(0.5) as f64)
    ));
    o.note(format!(
        "With the same hit ratio, {:.0} req/s sent {:.0} misses/s to the database and {:.0} req/s sent {:.0}.",
        rate,
        miss_s(&a),
        rate * f,
        miss_s(&b)
    ));
    o
}

// ---------------------------------------------------------------- 2. cache-hurts

pub const CACHE_HURTS: Scenario = Scenario {
    info: cache_hurts_info,
    run: cache_hurts_run,
};

fn cache_hurts_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "cache-hurts",
        group: "caching",
        title: "When a cache makes things worse",
        claim: "With keys that rarely repeat, a cache makes the mean latency worse than no cache (every miss pays extra round trips), and with as many writes as reads it churns: low hit rate, little database relief, extra Redis work.",
        look_for: "The bars put each workload next to a run without any cache, same seed. Unique keys: almost every read pays a GET that finds nothing and a SET nobody reads, so the mean rises above the database's own latency when the source is fast. Write-heavy: every write deletes the key, so about half the reads miss and the database still sees most of the traffic.",
        params: vec![
            ParamSpec::num("repeat_pct", 5.0, (0.0, 100.0, 1.0), "%", "Share of reads for a small set of repeated keys (the rest are unique)."),
            ParamSpec::num("l_hit_ms", 0.5, (0.05, 5.0, 0.05), "ms", "Round trip to Redis."),
            ParamSpec::num("l_source_ms", 4.0, (0.5, 100.0, 0.5), "ms", "Mean database latency (a fast indexed lookup by default)."),
            ParamSpec::num("write_pct", 50.0, (0.0, 90.0, 5.0), "%", "Writes in the churn workload (1:1 at 50%)."),
            ParamSpec::num("rate", 1000.0, (100.0, 3000.0, 100.0), "req/s", "Requests per second in each run."),
        ],
    }
}

fn hurts_cfg(p: &Params, cache: bool, keys: KeyDist, read_frac: f64, warm: u64) -> Config {
    let dur = SEC;
    Config {
        pods: 4,
        duration: dur,
        window: 100 * MS,
        net: Dist::fixed(us(p.get("l_hit_ms") / 2.0).max(1)),
        db_read: db_dist(us(p.get("l_source_ms")).max(5)),
        db_write: db_dist(us(p.get("l_source_ms")).max(5)),
        db_limit: 400,
        pool_size: 256,
        cache,
        set_before_reply: true,
        warm: (warm > 0).then_some(Warm {
            keys: warm,
            at: 0,
            span: 0,
            ttl: 0,
        }),
        loads: vec![LoadGen::new(p.get("rate"), keys, read_frac, MS, dur)],
        ..Config::default()
    }
}

fn cache_hurts_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("cache-hurts", seed, p);
    let h = p.get("repeat_pct") / 100.0;
    let uniq = || KeyDist::HotOrUnique { hot: 20, p: h };
    let read_frac = 1.0 - p.get("write_pct") / 100.0;
    let u_cache = run_world(hurts_cfg(p, true, uniq(), 1.0, 0), seed);
    let u_none = run_world(hurts_cfg(p, false, uniq(), 1.0, 0), seed);
    let c_cache = run_world(
        hurts_cfg(p, true, KeyDist::Uniform(100), read_frac, 100),
        seed,
    );
    let c_none = run_world(
        hurts_cfg(p, false, KeyDist::Uniform(100), read_frac, 0),
        seed,
    );
    let secs = u_cache.cfg.duration as f64 / SEC as f64;
    let mean = |w: &World| ms(w.m.reads.mean());
    let (uc, un) = (mean(&u_cache), mean(&u_none));
    let l_hit = 2.0 * u_cache.cfg.net.mean();
    let hu = u_cache.m.hit_ratio();
    // Cache-aside with a synchronous SET: a miss costs GET + source + SET,
    // so the cache loses when L_source < L_hit·(2 − h)/h.
    let break_even = if hu > 0.0 {
        ms(l_hit * (2.0 - hu) / hu)
    } else {
        f64::INFINITY
    };
    o.metric("unique keys: hit ratio", 100.0 * hu, "%");
    o.metric("unique keys: mean with cache", uc, "ms");
    o.metric("unique keys: mean without cache", un, "ms");
    o.metric(
        "source latency below which this cache hurts",
        break_even,
        "ms",
    );
    let hc = c_cache.m.hit_ratio();
    let dbq = |w: &World| w.db.queries as f64 / secs;
    let redis_per_req = c_cache.nodes.first().map_or(0, |n| n.commands) as f64
        / (c_cache.m.reads.len() + c_cache.m.writes.len()).max(1) as f64;
    o.metric("churn: hit ratio of reads", 100.0 * hc, "%");
    o.metric("churn: DB QPS with cache", dbq(&c_cache), "1/s");
    o.metric("churn: DB QPS without cache", dbq(&c_none), "1/s");
    o.metric("churn: Redis commands per request", redis_per_req, "");
    o.metric("churn: read mean with cache", mean(&c_cache), "ms");
    o.metric("churn: read mean without cache", mean(&c_none), "ms");
    o.check(
        "Keys that rarely repeat: the mean latency with the cache is worse than without it",
        uc > un,
        format!(
            "{:.1}% hits; {uc:.2} ms with cache vs {un:.2} ms without (break-even source latency {break_even:.1} ms)",
            100.0 * hu
        ),
    );
    let relief = 1.0 - dbq(&c_cache) / dbq(&c_none).max(1e-9);
    o.check(
        "Writes as frequent as reads: the hit rate stays low and the cache takes less than 40% of the load off the database",
        hc < 0.6 && relief < 0.4,
        format!(
            "read hit ratio {:.0}%; DB {:.0}/s with cache vs {:.0}/s without ({:.0}% relief) at {redis_per_req:.2} Redis commands per request",
            100.0 * hc,
            dbq(&c_cache),
            dbq(&c_none),
            100.0 * relief
        ),
    );
    o.charts.push(
        Chart::bars("Mean read latency", "ms", &["unique keys", "1:1 writes"])
            .with(Series::new(
                "no cache",
                vec![(0.0, un), (1.0, mean(&c_none))],
            ))
            .with(Series::new(
                "cache-aside",
                vec![(0.0, uc), (1.0, mean(&c_cache))],
            )),
    );
    o.charts.push(
        Chart::bars(
            "Database queries per second",
            "1/s",
            &["unique keys", "1:1 writes"],
        )
        .with(Series::new(
            "no cache",
            vec![(0.0, dbq(&u_none)), (1.0, dbq(&c_none))],
        ))
        .with(Series::new(
            "cache-aside",
            vec![(0.0, dbq(&u_cache)), (1.0, dbq(&c_cache))],
        )),
    );
    o.charts.push(
        Chart::line("Hit rate", "s", "%")
            .with(u_cache.m.hits.ratio("unique keys"))
            .with(c_cache.m.hits.ratio("1:1 writes")),
    );
    o.duration_us = u_cache.cfg.duration;
    o.note(format!(
        "Unique keys: {:.1}% hits, so reads took {uc:.2} ms with the cache and {un:.2} ms straight from the database.",
        100.0 * hu
    ));
    o.note(format!(
        "Write-heavy: every write deleted its key, so only {:.0}% of reads hit and the database still served {:.0} of {:.0} queries per second.",
        100.0 * hc,
        dbq(&c_cache),
        dbq(&c_none)
    ));
    o
}

// ---------------------------------------------------------------- 3. stampede

pub const STAMPEDE: Scenario = Scenario {
    info: stampede_info,
    run: stampede_run,
};

fn stampede_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "stampede",
        group: "caching",
        title: "Cache stampede on a hot key",
        claim: "When a hot key expires under load, every request that misses goes to the database unless a protection collapses them: a rebuild lock to one call, singleflight to one per pod, XFetch, logical expiry and refresh-ahead to no miss at all.",
        look_for: "The bars run every protection on the same load. Without protection the database gets one query per request that arrived while the first load ran. Singleflight collapses them per process, so 20 pods still make 20 calls. The lock makes one call but the losers sleep and poll, which shows in p99. XFetch, logical expiry and refresh-ahead reload before anyone misses.",
        params: vec![
            ParamSpec::choice("protection", 2, &Protection::NAMES, "What a pod does when the hot key is missing or about to expire."),
            ParamSpec::num("pods", 20.0, (1.0, 50.0, 1.0), "", "Application pods, each with its own singleflight group."),
            ParamSpec::num("rate", 5000.0, (500.0, 10000.0, 500.0), "req/s", "Reads of the hot key per second."),
            ParamSpec::num("db_ms", 40.0, (5.0, 200.0, 5.0), "ms", "How long rebuilding the value takes in the database."),
            ParamSpec::num("beta", 1.0, (0.1, 5.0, 0.1), "", "XFetch aggressiveness: higher refreshes earlier."),
            ParamSpec::num("lock_sleep_ms", 20.0, (1.0, 200.0, 1.0), "ms", "How long a request that lost the rebuild lock sleeps before reading again."),
            ParamSpec::num("wait_deadline_ms", 0.0, (0.0, 200.0, 1.0), "ms", "Singleflight followers give up after this long (DoChan with a deadline; 0 = wait for the leader)."),
        ],
    }
}

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
    let bars = |f: &dyn Fn(&World) -> f64| -> Vec<(f64, f64)> {
        runs.iter()
            .enumerate()
            .map(|(i, w)| (i as f64, f(w)))
            .collect()
    };
    o.charts.push(
        Chart::bars("Database calls for the hot key", "queries", &cats)
            .with(Series::new("DB calls", bars(&|w| w.db.reads as f64))),
    );
    o.charts.push(
        Chart::bars("Client latency p99", "ms", &cats).with(Series::new(
            "p99",
            bars(&|w| ms(w.m.reads.quantile(0.99) as f64)),
        )),
    );
    o.charts.push(
        Chart::bars("GETs that found nothing", "misses", &cats)
            .with(Series::new("misses", bars(&|w| w.m.misses.total()))),
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
    let mark = |d: &mut super::Diagram, at: u64, lane: usize, tone: &str, text: &str| {
        d.marks.push(super::Mark {
            at_us: at,
            lane,
            text: text.to_string(),
            tone: tone.to_string(),
        });
    };
    let first_step = |d: &super::Diagram, what: &str| {
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

// ---------------------------------------------------------------- 4. avalanche

pub const AVALANCHE: Scenario = Scenario {
    info: avalanche_info,
    run: avalanche_run,
};

fn avalanche_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "avalanche",
        group: "caching",
        title: "Avalanche: many keys missing at once",
        claim: "Keys warmed together with one TTL expire together and spike the database, which TTL jitter spreads out; a cold start and a failover to an empty replica spike it the same way.",
        look_for: "With the expiry cause, compare the two DB QPS lines: the synchronised TTLs make one tall spike that queues in the database, the jittered ones a low hump. A cold start begins at zero hit rate; a failover to an empty node drops the hit rate to zero at the switch.",
        params: vec![
            ParamSpec::choice("cause", 0, &["expiry", "cold-start", "failover"], "What empties the cache."),
            ParamSpec::num("jitter_pct", 20.0, (0.0, 50.0, 5.0), "%", "TTL spread (±) in the jittered run."),
            ParamSpec::num("keys", 500.0, (100.0, 5000.0, 100.0), "", "Keys warmed and read (uniformly)."),
            ParamSpec::num("rate", 3000.0, (200.0, 5000.0, 100.0), "req/s", "Reads per second."),
            ParamSpec::num("ttl_s", 2.0, (0.5, 10.0, 0.5), "s", "TTL of the warmed keys."),
            ParamSpec::num("db_limit", 16.0, (1.0, 200.0, 1.0), "", "Queries the database serves at once (10 ms each)."),
        ],
    }
}

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

// ---------------------------------------------------------------- 5. hot-key-l1

pub const HOT_KEY_L1: Scenario = Scenario {
    info: hot_key_l1_info,
    run: hot_key_l1_run,
};

fn hot_key_l1_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "hot-key-l1",
        group: "caching",
        title: "A hot key behind a per-pod L1 cache",
        claim: "An in-process L1 cache with a short TTL in front of Redis cuts the hot key's Redis traffic by orders of magnitude, at the price of a staleness window as long as the L1 TTL.",
        look_for: "Without L1 every read is a Redis command; with it each pod asks Redis about once per L1 TTL. A writer updates the key twice a second: pods that hold it in L1 keep serving the old version until their copy expires, which is the staleness the chart counts.",
        params: vec![
            ParamSpec::num("pods", 20.0, (1.0, 50.0, 1.0), "", "Application pods, each with its own L1."),
            ParamSpec::num("rate", 5000.0, (500.0, 10000.0, 500.0), "req/s", "Reads of the hot key per second."),
            ParamSpec::num("l1_ttl_ms", 1000.0, (10.0, 3000.0, 10.0), "ms", "How long a pod keeps its local copy."),
            ParamSpec::num("writes_per_s", 2.0, (0.0, 20.0, 0.5), "1/s", "Updates of the hot key (DB write, then DEL in Redis)."),
        ],
    }
}

fn hot_cfg(p: &Params, l1: bool) -> Config {
    let dur = 2 * SEC;
    Config {
        pods: p.count("pods").max(1) as usize,
        duration: dur,
        window: 100 * MS,
        net: Dist::jittered(100, 100),
        db_read: db_dist(5 * MS),
        db_write: db_dist(5 * MS),
        l1: l1.then_some((1000, us(p.get("l1_ttl_ms")).max(1))),
        pool_size: 64,
        warm: Some(Warm {
            keys: 1,
            at: 0,
            span: 0,
            ttl: 0,
        }),
        loads: vec![
            LoadGen::new(p.get("rate"), KeyDist::One(0), 1.0, MS, dur),
            LoadGen::new(p.get("writes_per_s"), KeyDist::One(0), 0.0, MS, dur),
        ],
        ..Config::default()
    }
}

fn hot_key_l1_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("hot-key-l1", seed, p);
    let plain = run_world(hot_cfg(p, false), seed);
    let l1 = run_world(hot_cfg(p, true), seed);
    let end = plain.cfg.duration;
    let secs = end as f64 / SEC as f64;
    let rq = |w: &World| w.m.redis.total() / secs;
    let (rp, rl) = (rq(&plain), rq(&l1));
    let l1_ttl = us(p.get("l1_ttl_ms")).max(1);
    o.metric("Redis QPS without L1", rp, "1/s");
    o.metric("Redis QPS with L1", rl, "1/s");
    o.metric("reduction", rp / rl.max(1e-9), "×");
    o.metric(
        "L1 hit share",
        100.0 * l1.m.l1_hits as f64 / l1.m.reads.len().max(1) as f64,
        "%",
    );
    o.metric("stale reads with L1", l1.m.stale_reads as f64, "");
    o.metric("stale reads without L1", plain.m.stale_reads as f64, "");
    o.metric(
        "longest staleness with L1",
        ms(l1.m.max_stale_age as f64),
        "ms",
    );
    o.metric(
        "longest staleness without L1",
        ms(plain.m.max_stale_age as f64),
        "ms",
    );
    o.check(
        "An L1 in front of Redis cuts the hot key's Redis QPS by at least 100×",
        rl * 100.0 <= rp,
        format!(
            "{rp:.0}/s without L1 vs {rl:.0}/s with it (×{:.0})",
            rp / rl.max(1e-9)
        ),
    );
    let writes = p.get("writes_per_s") > 0.0;
    o.check(
        "The L1 serves stale values for at most its TTL after a write",
        !writes || (l1.m.stale_reads > 0 && l1.m.max_stale_age <= l1_ttl + 50 * MS),
        format!(
            "{} stale reads, the oldest {:.0} ms after the write (L1 TTL {:.0} ms)",
            l1.m.stale_reads,
            ms(l1.m.max_stale_age as f64),
            p.get("l1_ttl_ms")
        ),
    );
    o.charts.push(
        Chart::line("Redis commands per second", "s", "1/s")
            .with(plain.m.redis.rate("without L1", end))
            .with(l1.m.redis.rate("with L1", end)),
    );
    o.charts.push(
        Chart::bars("Redis QPS", "1/s", &["without L1", "with L1"])
            .with(Series::new("Redis QPS", vec![(0.0, rp), (1.0, rl)])),
    );
    o.charts.push(
        Chart::bars("Staleness after writes", "ms", &["without L1", "with L1"]).with(Series::new(
            "longest stale read",
            vec![
                (0.0, ms(plain.m.max_stale_age as f64)),
                (1.0, ms(l1.m.max_stale_age as f64)),
            ],
        )),
    );
    o.duration_us = end;
    o.note(format!(
        "{} pods reading one key at {} req/s: Redis took {rp:.0} commands/s without L1 and {rl:.0}/s with a {} ms L1.",
        p.count("pods"),
        p.get("rate"),
        p.get("l1_ttl_ms")
    ));
    o.note(format!(
        "The price: {} reads returned an old version, up to {:.0} ms after the write.",
        l1.m.stale_reads,
        ms(l1.m.max_stale_age as f64)
    ));
    o
}

// ---------------------------------------------------------------- 6. connection-pool

pub const CONNECTION_POOL: Scenario = Scenario {
    info: connection_pool_info,
    run: connection_pool_run,
};

fn connection_pool_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "connection-pool",
        group: "caching",
        title: "Connection pool: exhaustion, blocking commands, retried INCR",
        claim: "An exhausted pool shows as waiting and then pool timeouts, blocking commands on the shared pool hold connections for their whole wait, and a retried INCR after a read timeout counts twice because the first one ran.",
        look_for: "Exhaustion: when commands hold connections longer than arrivals free them, the wait grows until it hits the pool timeout and requests fail. Blocking: BLPOP workers sit on connections, so the same GET traffic waits unless they get their own client. Retry: the reply to the first INCR is late, not lost; the client times out and sends it again, and the counter moves twice for one increment.",
        params: vec![
            ParamSpec::choice("case", 0, &["exhaustion", "blocking", "retry-incr"], "Which pool lesson to run."),
            ParamSpec::num("pool_size", 10.0, (1.0, 100.0, 1.0), "", "Connections in the pod's pool."),
            ParamSpec::num("pool_timeout_ms", 100.0, (5.0, 2000.0, 5.0), "ms", "How long a request waits for a free connection."),
            ParamSpec::num("rate", 8000.0, (500.0, 20000.0, 500.0), "req/s", "GET traffic in the overload phase."),
            ParamSpec::num("blockers", 8.0, (0.0, 50.0, 1.0), "", "BLPOP workers sharing the pool (blocking case)."),
            ParamSpec::num("retries", 3.0, (0.0, 5.0, 1.0), "", "Retries after a read timeout (retry-incr case)."),
            ParamSpec::flag("idempotent", false, "Make the increment idempotent (a per-request key checked in a script)."),
        ],
    }
}

fn connection_pool_run(p: &Params, seed: u64) -> Outcome {
    match p.choice("case") {
        0 => pool_exhaustion(p, seed),
        1 => pool_blocking(p, seed),
        _ => retry_incr(p, seed),
    }
}

fn exhaustion_cfg(p: &Params) -> Config {
    let dur = 1500 * MS;
    Config {
        pods: 1,
        duration: dur,
        window: 50 * MS,
        // A slow round trip (1 ms each way: a busy Redis, big values) so
        // one connection carries at most ~500 commands/s.
        net: Dist::jittered(900, 200),
        pool_size: p.count("pool_size").max(1) as usize,
        pool_timeout: us(p.get("pool_timeout_ms")).max(1),
        warm: Some(Warm {
            keys: 100,
            at: 0,
            span: 0,
            ttl: 0,
        }),
        loads: vec![
            LoadGen::new(
                p.get("rate") / 4.0,
                KeyDist::Uniform(100),
                1.0,
                MS,
                500 * MS,
            ),
            LoadGen::new(p.get("rate"), KeyDist::Uniform(100), 1.0, 500 * MS, SEC),
            LoadGen::new(p.get("rate") / 4.0, KeyDist::Uniform(100), 1.0, SEC, dur),
        ],
        ..Config::default()
    }
}

fn pool_exhaustion(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("connection-pool", seed, p);
    let w = run_world(exhaustion_cfg(p), seed);
    let end = w.cfg.duration;
    let stats = w.pods.first().map(|pd| pd.pool.stats).unwrap_or_default();
    let size = p.count("pool_size").max(1);
    let capacity = size as f64 * SEC as f64 / (2.0 * w.cfg.net.mean());
    o.metric("pool capacity", capacity, "cmd/s");
    o.metric("waited for a connection", stats.waited as f64, "");
    o.metric("pool timeouts", stats.timeouts as f64, "");
    o.metric("peak queue", stats.peak_queue as f64, "");
    o.metric("p99 latency", ms(w.m.reads.quantile(0.99) as f64), "ms");
    o.metric("max latency", ms(w.m.reads.max() as f64), "ms");
    let overloaded = p.get("rate") > capacity;
    o.check(
        "Beyond the pool's capacity requests first wait, then fail with a pool timeout",
        !overloaded
            || (stats.waited > 0
                && stats.timeouts > 0
                && w.m.reads.max() >= us(p.get("pool_timeout_ms"))),
        format!(
            "{} req/s against ~{capacity:.0} cmd/s: {} waited, {} timed out, longest {:.0} ms",
            p.get("rate"),
            stats.waited,
            stats.timeouts,
            ms(w.m.reads.max() as f64)
        ),
    );
    o.charts.push(
        Chart::line("Client latency", "s", "ms")
            .with(w.m.reads.quantile_series("p99", 0.99, 50 * MS))
            .with(w.m.reads.quantile_series("p50", 0.5, 50 * MS)),
    );
    o.charts.push(
        Chart::line("Pool timeouts per second", "s", "1/s").with(w.m.errors.rate("timeouts", end)),
    );
    o.duration_us = end;
    o.note(format!(
        "{size} connections carry ~{capacity:.0} commands/s; at {} req/s the queue peaked at {} and {} requests hit the {} ms pool timeout.",
        p.get("rate"),
        stats.peak_queue,
        stats.timeouts,
        p.get("pool_timeout_ms")
    ));
    o
}

/// A small loop of its own: one pod's pool shared by GET traffic and BLPOP
/// workers, on a real engine whose blocked clients answer through
/// `take_unblocked`.
#[derive(Clone, Debug)]
enum PEv {
    Get,
    /// A GET holding a connection arrives at Redis / its reply comes back.
    GetAt(u64),
    GetBack(u64),
    /// Worker `i` wants a connection for BLPOP.
    Worker(usize),
    BlpopAt(usize),
    WorkerBack(usize, bool),
    Push,
    /// A blocked BLPOP may have timed out.
    Tick,
    Timeout(u64),
}

struct PoolSim {
    size: usize,
    in_use: usize,
    /// Waiting GETs: (id, arrived).
    queue: std::collections::VecDeque<(u64, Micros)>,
    /// Workers waiting for a connection (the shared-pool variant).
    worker_queue: std::collections::VecDeque<usize>,
    timeouts: u64,
    waited: u64,
    lat: Latencies,
    errors: Meter,
}

impl PoolSim {
    fn take(&mut self) -> bool {
        if self.in_use < self.size {
            self.in_use += 1;
            true
        } else {
            false
        }
    }
}

fn blocking_world(p: &Params, seed: u64, shared: bool) -> (PoolSim, u64) {
    let dur = SEC;
    // The exhaustion case's slow round trip: ~500 commands/s per connection.
    let net = Dist::jittered(900, 200);
    let mut k: Kernel<PEv> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    let blockers = p.count("blockers") as usize;
    let workers: Vec<ClientId> = (0..blockers)
        .map(|i| redis.engine.connect(&format!("worker{}", i + 1)))
        .collect();
    let app = redis.engine.connect("app");
    redis.exec(0, "setup", &["SET", "k", "v"]);
    let mut s = PoolSim {
        size: p.count("pool_size").max(1) as usize,
        in_use: 0,
        queue: Default::default(),
        worker_queue: Default::default(),
        timeouts: 0,
        waited: 0,
        lat: Latencies::default(),
        errors: Meter::new(50 * MS),
    };
    // Half the overload traffic: the whole pool carries it, two connections do not.
    let rate = p.get("rate") / 2.0;
    let gen = LoadGen::new(rate, KeyDist::One(0), 1.0, 0, dur);
    let g0 = gen.gap(&mut k.rng);
    k.at(g0, PEv::Get);
    for i in 0..blockers {
        k.at(10 * MS + i as u64 * MS, PEv::Worker(i));
    }
    k.at(200 * MS, PEv::Push);
    k.at(0, PEv::Tick);
    let timeout = us(p.get("pool_timeout_ms")).max(1);
    let mut next_id = 0u64;
    let mut pushes = 0u64;
    let mut start: BTreeMap<u64, Micros> = BTreeMap::new();
    // Frees a connection: a waiting GET (FIFO) gets it first, then a worker.
    fn free(s: &mut PoolSim, k: &mut Kernel<PEv>, net: &Dist) -> Option<usize> {
        if let Some((id, _)) = s.queue.pop_front() {
            let d = net.sample(&mut k.rng);
            k.after(d, PEv::GetAt(id));
            return None;
        }
        if let Some(w) = s.worker_queue.pop_front() {
            return Some(w);
        }
        s.in_use = s.in_use.saturating_sub(1);
        None
    }
    let deliver = |redis: &mut Redis, k: &mut Kernel<PEv>, workers: &[ClientId]| {
        for (c, f) in redis.engine.take_unblocked() {
            if let Some(i) = workers.iter().position(|w| *w == c) {
                let got = !matches!(f, Frame::Null | Frame::NullArray);
                let d = net.sample(&mut k.rng);
                k.after(d, PEv::WorkerBack(i, got));
            }
        }
    };
    while let Some(ev) = k.next(dur) {
        let now = k.now();
        match ev {
            PEv::Get => {
                let g = gen.gap(&mut k.rng);
                k.after(g, PEv::Get);
                next_id += 1;
                start.insert(next_id, now);
                if s.take() {
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::GetAt(next_id));
                } else {
                    s.waited += 1;
                    s.queue.push_back((next_id, now));
                    k.after(timeout, PEv::Timeout(next_id));
                }
            }
            PEv::Timeout(id) => {
                if let Some(i) = s.queue.iter().position(|x| x.0 == id) {
                    s.queue.remove(i);
                    s.timeouts += 1;
                    s.errors.add(now, 1.0);
                    if let Some(t0) = start.remove(&id) {
                        s.lat.record(t0, now - t0);
                    }
                }
            }
            PEv::GetAt(id) => {
                redis.engine.advance_to(now.max(redis.engine.now_us()));
                redis.engine.execute(app, &[b"GET".to_vec(), b"k".to_vec()]);
                deliver(&mut redis, &mut k, &workers);
                let d = net.sample(&mut k.rng);
                k.after(d, PEv::GetBack(id));
            }
            PEv::GetBack(id) => {
                if let Some(t0) = start.remove(&id) {
                    s.lat.record(t0, now - t0);
                }
                if let Some(w) = free(&mut s, &mut k, &net) {
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::BlpopAt(w));
                }
            }
            PEv::Worker(i) => {
                if !shared {
                    // Its own client: a dedicated connection.
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::BlpopAt(i));
                } else if s.take() {
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::BlpopAt(i));
                } else {
                    s.worker_queue.push_back(i);
                }
            }
            PEv::BlpopAt(i) => {
                redis.engine.advance_to(now.max(redis.engine.now_us()));
                let Some(&c) = workers.get(i) else { continue };
                let args: Vec<Vec<u8>> = ["BLPOP", "jobs", "1"]
                    .iter()
                    .map(|a| a.as_bytes().to_vec())
                    .collect();
                if let Some(f) = redis.engine.submit(c, &args) {
                    let got = !matches!(f, Frame::Null | Frame::NullArray);
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::WorkerBack(i, got));
                }
            }
            PEv::WorkerBack(i, got) => {
                if shared {
                    if let Some(w) = free(&mut s, &mut k, &net) {
                        let d = net.sample(&mut k.rng);
                        k.after(d, PEv::BlpopAt(w));
                    }
                }
                // Process the job (if any), then wait again.
                let work = if got { 5 * MS } else { 0 };
                k.after(work, PEv::Worker(i));
            }
            PEv::Push => {
                pushes += 1;
                redis.engine.advance_to(now.max(redis.engine.now_us()));
                redis
                    .engine
                    .execute(app, &[b"RPUSH".to_vec(), b"jobs".to_vec(), b"j".to_vec()]);
                deliver(&mut redis, &mut k, &workers);
                k.after(200 * MS, PEv::Push);
            }
            PEv::Tick => {
                redis.engine.advance_to(now.max(redis.engine.now_us()));
                deliver(&mut redis, &mut k, &workers);
                k.after(10 * MS, PEv::Tick);
            }
        }
    }
    (s, pushes)
}

fn pool_blocking(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("connection-pool", seed, p);
    let (sh, _) = blocking_world(p, seed, true);
    let (own, _) = blocking_world(p, seed, false);
    let blockers = p.count("blockers");
    let size = p.count("pool_size").max(1);
    let p99 = |s: &PoolSim| ms(s.lat.quantile(0.99) as f64);
    o.metric("GET p99, BLPOP on the shared pool", p99(&sh), "ms");
    o.metric("GET p99, BLPOP on its own client", p99(&own), "ms");
    o.metric("pool waits (shared)", sh.waited as f64, "");
    o.metric("pool timeouts (shared)", sh.timeouts as f64, "");
    o.metric("pool waits (own client)", own.waited as f64, "");
    o.check(
        &format!("{blockers} BLPOP workers on a {size}-connection pool hold their connections: the same GET traffic waits longer than with a separate client"),
        sh.waited > own.waited && p99(&sh) > p99(&own),
        format!(
            "shared: {} waits, {} timeouts, p99 {:.1} ms; own client: {} waits, p99 {:.1} ms",
            sh.waited,
            sh.timeouts,
            p99(&sh),
            own.waited,
            p99(&own)
        ),
    );
    o.charts.push(
        Chart::line("GET latency p99", "s", "ms")
            .with(
                sh.lat
                    .quantile_series("BLPOP on the shared pool", 0.99, 50 * MS),
            )
            .with(
                own.lat
                    .quantile_series("BLPOP on its own client", 0.99, 50 * MS),
            ),
    );
    o.charts.push(
        Chart::bars("Pool waits", "requests", &["shared pool", "own client"])
            .with(Series::new(
                "waited",
                vec![(0.0, sh.waited as f64), (1.0, own.waited as f64)],
            ))
            .with(Series::new(
                "timed out",
                vec![(0.0, sh.timeouts as f64), (1.0, own.timeouts as f64)],
            )),
    );
    o.duration_us = SEC;
    o.note(format!(
        "{blockers} workers waiting in BLPOP kept {blockers} of {size} connections busy, leaving {} for GETs: p99 {:.1} ms vs {:.1} ms with a separate client.",
        size.saturating_sub(blockers),
        p99(&sh),
        p99(&own)
    ));
    o
}

/// One increment's attempts against a reply path that stalls for a while:
/// replies to commands run during the stall arrive only when it ends.
fn retry_incr_run(
    p: &Params,
    seed: u64,
    idempotent: bool,
    draw: bool,
) -> (u64, u64, u64, Kernel<()>) {
    let mut k: Kernel<()> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    let retries = p.count("retries");
    let read_timeout = 100 * MS;
    let backoff = 8 * MS;
    let (stall_from, stall_to) = (100 * MS, 250 * MS);
    let net = Dist::jittered(200, 100);
    let (cl, rl) = if draw {
        (k.rec.lane("client", "client"), k.rec.lane("redis", "redis"))
    } else {
        (0, 1)
    };
    let script = "if redis.call('SET', KEYS[2], '1', 'NX', 'PX', '60000') then return redis.call('INCR', KEYS[1]) else return tonumber(redis.call('GET', KEYS[1])) end";
    let mut t: Micros = 0;
    let increments = 10u64;
    let mut executed = 0u64;
    let mut failed = 0u64;
    let mut marked = false;
    for n in 0..increments {
        let idem = format!("idem:{n}");
        let mut ok = false;
        for attempt in 0..=retries {
            let send = t;
            let at = send + net.sample(&mut k.rng);
            let args: Vec<&str> = if idempotent {
                vec!["EVAL", script, "2", "counter", &idem]
            } else {
                vec!["INCR", "counter"]
            };
            let reply = redis.exec(at, "app", &args);
            let before = executed;
            if let Frame::Integer(v) = reply {
                executed = v as u64;
            }
            let mut back = at + net.sample(&mut k.rng);
            if (stall_from..stall_to).contains(&at) {
                back = back.max(stall_to);
            }
            if draw && attempt > 0 && !marked {
                marked = true;
                if executed > before {
                    k.rec.mark(at, rl, "bad", "The retry ran INCR again: the first one had already counted, only its reply was late.");
                } else {
                    k.rec.mark(at, rl, "good", "The retry carries the same request key: the script sees it and does not count again.");
                }
            }
            let label = if idempotent {
                "EVAL incr-once"
            } else {
                "INCR counter"
            };
            if draw {
                k.rec
                    .msg(send, at, cl, rl, format!("{label} (try {})", attempt + 1));
            }
            if back - send <= read_timeout {
                if draw {
                    k.rec.msg(at, back, rl, cl, reply_text(&reply));
                }
                t = back;
                ok = true;
                break;
            }
            // The client gives up on the reply; Redis already ran the command.
            if draw {
                k.rec
                    .err(at, back, rl, cl, format!("{} (late)", reply_text(&reply)));
                k.rec
                    .local(send + read_timeout, send + read_timeout, cl, "read timeout");
            }
            t = send + read_timeout + backoff;
        }
        if !ok {
            failed += 1;
        }
        t += 20 * MS;
    }
    let counter = match redis.exec(t, "app", &["GET", "counter"]) {
        Frame::Bulk(b) => String::from_utf8_lossy(&b).parse().unwrap_or(0),
        _ => 0,
    };
    (increments, counter, failed, k)
}

fn retry_incr(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("connection-pool", seed, p);
    let idem = p.on("idempotent");
    let (n, plain, failed, _) = retry_incr_run(p, seed, false, false);
    let (_, fixed, _, _) = retry_incr_run(p, seed, true, false);
    let (_, _, _, mut k) = retry_incr_run(p, seed, idem, true);
    o.metric("increments requested", n as f64, "");
    o.metric("counter with plain INCR retried", plain as f64, "");
    o.metric("counter with an idempotent increment", fixed as f64, "");
    o.metric("increments the client saw fail", failed as f64, "");
    let retries = p.count("retries");
    if idem {
        o.check(
            "With a per-request key checked in a script, retries count once",
            fixed == n,
            format!("{n} increments, counter {fixed} (plain INCR with the same retries: {plain})"),
        );
    } else {
        o.check(
            "A retried INCR after a read timeout counts twice: the first one ran, its reply was only late",
            retries == 0 || plain > n,
            format!("{n} increments, counter {plain} after {retries} allowed retries (idempotent variant: {fixed})"),
        );
    }
    o.charts.push(
        Chart::bars(
            "Counter after the increments",
            "value",
            &["requested", "plain INCR", "idempotent"],
        )
        .with(Series::new(
            "count",
            vec![(0.0, n as f64), (1.0, plain as f64), (2.0, fixed as f64)],
        )),
    );
    o.diagram = Some(k.rec.take_diagram());
    o.duration_us = SEC;
    o.note(format!(
        "The reply path stalled 150 ms; the client's 100 ms read timeout fired and it retried: {n} increments left the counter at {plain} (at {fixed} with the idempotent script)."
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, seed: u64, set: &[(&str, &str)]) -> Outcome {
        crate::run_with(id, seed, set).unwrap()
    }

    fn m(o: &Outcome, name: &str) -> f64 {
        o.metric_value(name)
            .unwrap_or_else(|| panic!("no metric {name}"))
    }

    fn all_pass(id: &str, set: &[(&str, &str)]) {
        for seed in 1..=3 {
            let o = run(id, seed, set);
            assert!(o.passed(), "{id} {set:?} seed {seed}: {:#?}", o.checks);
            assert!(!o.charts.is_empty() && !o.notes.is_empty());
        }
    }

    #[test]
    fn hit_rate_latency_follows_the_formula() {
        all_pass("hit-rate-latency", &[]);
        let o = run("hit-rate-latency", 1, &[]);
        let a = m(&o, "mean latency at hit_pct (measured)");
        assert!((2.0..2.6).contains(&a), "≈2.3 ms at 90%: {a}");
        let c = m(&o, "mean latency at hit_pct_2 (measured)");
        assert!((0.35..0.7).contains(&c), "≈0.5 ms at 99%: {c}");
        assert!(m(&o, "p99 at hit_pct") >= 18.0);
        let (lo, hi) = (
            m(&o, "misses/s at base traffic"),
            m(&o, "misses/s at high traffic"),
        );
        assert!(hi > 7.0 * lo, "{lo} vs {hi}");
    }

    #[test]
    fn cache_hurts_with_unique_keys_and_churn() {
        all_pass("cache-hurts", &[]);
        let o = run("cache-hurts", 1, &[]);
        assert!(m(&o, "unique keys: hit ratio") < 10.0);
        // A slow source makes the same cache worth it: the check fails then.
        let slow = run("cache-hurts", 1, &[("l_source_ms", "40")]);
        assert!(!slow.checks[0].passed, "{:?}", slow.checks[0]);
        // Read-mostly traffic is not churn: that check fails too.
        let reads = run("cache-hurts", 1, &[("write_pct", "0")]);
        assert!(!reads.checks[1].passed, "{:?}", reads.checks[1]);
    }

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
    fn hot_key_l1_cuts_redis_traffic_and_costs_staleness() {
        all_pass("hot-key-l1", &[]);
        let o = run("hot-key-l1", 1, &[]);
        assert!(m(&o, "reduction") > 100.0);
        let stale = m(&o, "longest staleness with L1");
        assert!(stale > 0.0 && stale <= 1050.0, "{stale}");
        assert!(m(&o, "stale reads with L1") > 10.0 * m(&o, "stale reads without L1").max(1.0));
    }

    #[test]
    fn connection_pool_cases() {
        for case in ["exhaustion", "blocking", "retry-incr"] {
            all_pass("connection-pool", &[("case", case)]);
        }
        all_pass(
            "connection-pool",
            &[("case", "retry-incr"), ("idempotent", "on")],
        );
        let o = run("connection-pool", 1, &[("case", "retry-incr")]);
        assert!(m(&o, "counter with plain INCR retried") > m(&o, "increments requested"));
        assert_eq!(
            m(&o, "counter with an idempotent increment"),
            m(&o, "increments requested")
        );
        let d = o.diagram.as_ref().unwrap();
        assert!(d.marks.iter().any(|mk| mk.tone == "bad"));
        // A big enough pool never waits.
        let o = run("connection-pool", 1, &[("pool_size", "100")]);
        assert_eq!(m(&o, "pool timeouts"), 0.0);
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
}
