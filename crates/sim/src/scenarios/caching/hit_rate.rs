//! Hit ratio and latency: the seeds' formula against a measured world, and when a cache hurts (unique keys, write churn, a fast source).

use super::{db_dist, db_qps, ms, run_world, us};
use crate::kernel::{Dist, MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use crate::world::{predicted_latency, Config, KeyDist, LoadGen, Warm, World};

pub const HIT_RATE_LATENCY: Scenario = Scenario::new("hit-rate-latency", hit_rate_latency_run);

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
    let b = run_world(hit_cfg(p, h1, rate * f), seeds::nth(seed, 1));
    let c = run_world(hit_cfg(p, h2, rate), seeds::nth(seed, 2));
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

// ---------------------------------------------------------------- cache-hurts

pub const CACHE_HURTS: Scenario = Scenario::new("cache-hurts", cache_hurts_run);

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

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use crate::testing::{metric as m, run};

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
}
