//! A hot key behind a per-pod L1: Redis traffic collapses, staleness grows to the L1 TTL.

use super::{db_dist, ms, run_world, us};
use crate::kernel::{Dist, MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::world::{Config, KeyDist, LoadGen, Warm, World};

pub const HOT_KEY_L1: Scenario = Scenario::new("hot-key-l1", hot_key_l1_run);

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

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use crate::testing::{metric as m, run};

    #[test]
    fn hot_key_l1_cuts_redis_traffic_and_costs_staleness() {
        all_pass("hot-key-l1", &[]);
        let o = run("hot-key-l1", 1, &[]);
        assert!(m(&o, "reduction") > 100.0);
        let stale = m(&o, "longest staleness with L1");
        assert!(stale > 0.0 && stale <= 1050.0, "{stale}");
        assert!(m(&o, "stale reads with L1") > 10.0 * m(&o, "stale reads without L1").max(1.0));
    }
}
