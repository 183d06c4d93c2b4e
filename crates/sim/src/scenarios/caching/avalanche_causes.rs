//! Two more ways a whole cache empties at once: a deploy that changes the key prefix, and a bulk import that pushes the node through maxmemory; a gradual rollout or a dual read of the old prefix spreads the first over time.

use super::service::{self, Guard, Import, Measured, Rollout, Setup};
use super::{db_dist, us};
use crate::kernel::{Redis, MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;

pub const AVALANCHE_CAUSES: Scenario = Scenario::new("avalanche-causes", causes_run);

const EVENT_AT: u64 = SEC;
const DURATION: u64 = 3 * SEC;
const VALUE_BYTES: usize = 100;
const IMPORT_BYTES: usize = 4096;

fn setup(p: &Params) -> Setup {
    Setup {
        duration: DURATION,
        window: 100 * MS,
        rate: p.get("rate"),
        traffic_from: 0,
        keys: p.count("keys").max(1),
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
        preload: true,
        value_bytes: VALUE_BYTES,
        maxmemory: None,
        deploy: None,
        import: None,
        warm: None,
        focus: (EVENT_AT, DURATION),
        draw: None,
    }
}

fn rollout(p: &Params, i: usize) -> Rollout {
    match i {
        0 => Rollout::Switch,
        1 => Rollout::Gradual(us(p.get("ramp_s") * 1000.0).max(MS)),
        _ => Rollout::DualRead,
    }
}

/// Memory the preloaded keys take on a fresh engine, with 10% to spare:
/// the import, not the cache, is what pushes the node over.
fn maxmemory(seed: u64, keys: u64) -> u64 {
    let mut r = Redis::new(seed, &[]);
    let value = "x".repeat(VALUE_BYTES);
    for i in 0..keys {
        r.exec(0, "probe", &["SET", &format!("v1:k{i}"), &value]);
    }
    r.engine().used_memory() * 11 / 10
}

fn causes_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("avalanche-causes", seed, p);
    let rate = p.get("rate");
    let peak = |m: &Measured| m.db_peak_rate(EVENT_AT, DURATION);
    let dip = |m: &Measured| m.hit_dip(EVENT_AT, DURATION);
    let before = |m: &Measured| m.db_peak_rate(EVENT_AT / 2, EVENT_AT);
    let (a, b, names) = if p.choice("cause") == 0 {
        let names = ["switch", "gradual", "dual-read"];
        let pick = p.choice("rollout").min(2);
        let run = |i: usize| {
            let mut s = setup(p);
            s.deploy = Some((EVENT_AT, rollout(p, i)));
            service::run(&s, seed)
        };
        let (sw, mine) = (run(0), run(pick));
        let name = names[pick];
        o.metric("DB peak, all-at-once switch", peak(&sw), "queries/s");
        if pick != 0 {
            o.metric(&format!("DB peak, {name}"), peak(&mine), "queries/s");
        }
        o.metric("DB before the deploy", before(&sw), "queries/s");
        o.metric("hit ratio dip, all-at-once switch", dip(&sw), "%");
        if pick != 0 {
            o.metric(&format!("hit ratio dip, {name}"), dip(&mine), "%");
        }
        o.check(
            "Changing the key prefix for every read at once empties the cache: the hit ratio collapses and the database spikes",
            dip(&sw) < 50.0 && peak(&sw) >= 0.2 * rate && peak(&sw) > 5.0 * before(&sw).max(1.0),
            format!(
                "hit ratio fell to {:.0}%; DB {:.0} queries/s after the deploy against {:.0} before",
                dip(&sw),
                peak(&sw),
                before(&sw)
            ),
        );
        o.check(
            &format!("Rolling out with {name} at least halves the database peak of an all-at-once switch"),
            2.0 * peak(&mine) <= peak(&sw),
            format!(
                "{name}: DB peak {:.0} queries/s, hit ratio dip {:.0}%; switch: {:.0} queries/s, {:.0}%",
                peak(&mine),
                dip(&mine),
                peak(&sw),
                dip(&sw)
            ),
        );
        o.note(format!(
            "At 1 s a deploy moved reads from v1:k* to v2:k*: switched at once, every key missed on its first read, the hit ratio fell to {:.0}% and the database went from {:.0} to {:.0} queries/s.",
            dip(&sw),
            before(&sw),
            peak(&sw)
        ));
        o.note(match pick {
            1 => format!("A gradual rollout over {} s moved traffic a slice at a time: the misses spread out and the peak was {:.0} queries/s.", p.get("ramp_s"), peak(&mine)),
            2 => format!("Reading the old prefix on a miss and copying it over kept the hit ratio at {:.0}% or more and the database at {:.0} queries/s; the old keys can then expire on their own.", dip(&mine), peak(&mine)),
            _ => "Pick gradual or dual-read to compare a rollout with the switch.".to_string(),
        });
        (
            sw,
            mine,
            ["all-at-once switch".to_string(), name.to_string()],
        )
    } else {
        let mm = maxmemory(seed, p.count("keys").max(1));
        let count = (mm * 3 / 2) / IMPORT_BYTES as u64 + 1;
        let mut s = setup(p);
        s.maxmemory = Some(mm);
        let quiet = service::run(&s, seed);
        s.import = Some(Import {
            at: EVENT_AT,
            span: 200 * MS,
            count,
            bytes: IMPORT_BYTES,
        });
        let hit = service::run(&s, seed);
        o.metric("DB peak with the import", peak(&hit), "queries/s");
        o.metric("DB peak without it", peak(&quiet), "queries/s");
        o.metric("hit ratio dip with the import", dip(&hit), "%");
        o.metric("hit ratio dip without it", dip(&quiet), "%");
        o.metric("keys evicted", hit.evicted as f64, "keys");
        o.check(
            "A bulk import through maxmemory evicts the cache in a batch: the hit ratio dips and the database spikes",
            dip(&hit) < 60.0 && peak(&hit) >= 3.0 * peak(&quiet).max(1.0),
            format!(
                "{} evictions; hit ratio dip {:.0}% (without the import {:.0}%), DB peak {:.0} queries/s (without {:.0})",
                hit.evicted,
                dip(&hit),
                dip(&quiet),
                peak(&hit),
                peak(&quiet)
            ),
        );
        o.note(format!(
            "At 1 s a batch job wrote {count} values of 4 KB into the cache's node (maxmemory {} KB, allkeys-lru): eviction threw out {} keys in 200 ms and the database peaked at {:.0} queries/s.",
            mm / 1024,
            hit.evicted,
            peak(&hit)
        ));
        o.note("Bulk data on the cache node is the cause: give it a node of its own or the headroom it needs.");
        (
            hit,
            quiet,
            ["with the import".to_string(), "without it".to_string()],
        )
    };
    let (na, nb) = (names[0].as_str(), names[1].as_str());
    o.charts.push(
        Chart::line("Database queries per second", "s", "queries/s")
            .with(a.db_qps.rate(na, DURATION))
            .with(b.db_qps.rate(nb, DURATION)),
    );
    o.charts.push(
        Chart::line("Hit ratio", "s", "%")
            .with(a.hits.ratio(na))
            .with(b.hits.ratio(nb)),
    );
    o.charts.push(
        Chart::bars("Database peak after the event", "queries/s", &[na, nb])
            .with(Series::per_category("DB peak", [peak(&a), peak(&b)])),
    );
    o.duration_us = DURATION;
    o
}

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use crate::testing::{failed, run};

    #[test]
    fn rollouts_spread_the_prefix_change() {
        for r in ["gradual", "dual-read"] {
            all_pass("avalanche-causes", &[("rollout", r)]);
        }
        all_pass("avalanche-causes", &[("cause", "mass-eviction")]);
        // Switching at once is the unprotected rollout: its check fails.
        for seed in 1..=3 {
            let o = run("avalanche-causes", seed, &[("rollout", "switch")]);
            assert!(failed(&o, "Rolling out with switch"), "seed {seed}");
        }
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices("avalanche-causes", "cause", "prefix-change mass-eviction");
        crate::testing::assert_choices("avalanche-causes", "rollout", "switch gradual dual-read");
    }
}
