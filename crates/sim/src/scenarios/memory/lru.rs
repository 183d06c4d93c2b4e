//! Eviction order: Redis' sampled LRU against true LRU as `maxmemory-samples` grows, and LRU against LFU when a scan sweeps a hot set.

use super::{int_reply, maxmemory_for, pct, round1};
use crate::kernel::{Kernel, Meter, Micros, Redis, MS, SEC};
use crate::outcome::StripRow;
use crate::outcome::{Chart, Outcome, Series, Strip};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::zipf::Zipf;
use redsim_engine::proto::resp::Frame;

pub const LRU_APPROXIMATION: Scenario = Scenario::new("lru-approximation", lru_run);

/// One eviction policy's run of the experiment.
struct LruRun {
    /// The id whose SET caused the first eviction (the last key of the first set).
    first_max: usize,
    /// Whether key `id` survived, at index `id - 1`, up to the last added id.
    present: Vec<bool>,
}

const LRU_VARIANTS: [(&str, &str, u32); 4] = [
    ("true LRU", "exact-lru", 5),
    ("samples 3", "allkeys-lru", 3),
    ("samples 5", "allkeys-lru", 5),
    ("samples 10", "allkeys-lru", 10),
];

/// test-lru.rb on one engine: fill to the first eviction, read keys in
/// order `gap` apart, add keys until half the first set is evicted.
fn lru_variant(seed: u64, maxmemory: u64, policy: &str, samples: u32, gap: Micros) -> LruRun {
    let mm = maxmemory.to_string();
    let ss = samples.to_string();
    let mut r = Redis::new(
        seed,
        &[
            ("maxmemory", &mm),
            ("maxmemory-policy", policy),
            ("maxmemory-samples", &ss),
        ],
    );
    // A guard against a limit that never evicts (it cannot happen with
    // the limit measured above, but a scenario must never loop forever).
    let guard = 1_000_000;
    let mut t: Micros = 0;
    let mut id = 0usize;
    let mut size = 0;
    loop {
        id += 1;
        let key = id.to_string();
        if r.exec(t, "app", &["SET", &key, "foo"]).is_error() || id > guard {
            break;
        }
        let n = int_reply(&r.exec(t, "app", &["DBSIZE"]));
        if n == size {
            break;
        }
        size = n;
    }
    let first_max = id;
    let inserted = size.max(0) as u64;
    for i in 1..=first_max {
        t += gap;
        r.exec(t, "app", &["GET", &i.to_string()]);
    }
    let half = inserted / 2;
    while r.engine().stats().evicted_keys < half && id < 2 * guard {
        id += 1;
        r.exec(t, "app", &["SET", &id.to_string(), "foo"]);
    }
    let present = (1..=id)
        .map(|i| r.engine().holds_key(0, i.to_string().as_bytes()))
        .collect();
    LruRun { first_max, present }
}

/// How far a run is from true LRU.
struct LruScore {
    evicted: usize,
    /// Evicted keys that were not among the `evicted` least recently read.
    misplaced: usize,
    old_half_kept: f64,
    new_half_kept: f64,
}

fn lru_score(run: &LruRun) -> LruScore {
    // Keys were last touched in id order (the access pass reads 1..=first_max,
    // then new ids are written), so an id's rank in recency is the id itself.
    let evicted = run.present.iter().filter(|p| !**p).count();
    let misplaced = run
        .present
        .iter()
        .enumerate()
        .filter(|(i, p)| !**p && *i >= evicted)
        .count();
    let half = run.first_max / 2;
    let kept = |r: std::ops::Range<usize>| {
        let n = r.len() as f64;
        let k = run.present[r].iter().filter(|p| **p).count() as f64;
        pct(k, n)
    };
    LruScore {
        evicted,
        misplaced,
        old_half_kept: kept(0..half),
        new_half_kept: kept(half..run.first_max),
    }
}

fn lru_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("lru-approximation", seed, p);
    let keys = p.count("keys").max(10) as usize;
    let gap = (p.get("access-gap") * MS as f64).round().max(1.0) as Micros;
    let maxmemory = maxmemory_for(seed, keys, |r, i| {
        r.exec(0, "setup", &["SET", &(i + 1).to_string(), "foo"]);
    });
    let mut strip = Strip {
        title: "Which keys survived (one cell per key, in the order they were last read)".into(),
        legend: vec![
            "evicted".into(),
            "kept".into(),
            "new key (kept)".into(),
            "new key (evicted)".into(),
        ],
        rows: Vec::new(),
    };
    let names: Vec<&str> = LRU_VARIANTS.iter().map(|v| v.0).collect();
    let mut bars = Chart::bars("Distance from true LRU", "% of keys", names.as_slice());
    let (mut old_s, mut new_s) = (Vec::new(), Vec::new());
    let mut scores = Vec::new();
    let mut duration = 0;
    let mut first_set = 0;
    for (vi, (name, policy, samples)) in LRU_VARIANTS.iter().enumerate() {
        let run = lru_variant(seed, maxmemory, policy, *samples, gap);
        duration = gap * run.first_max as u64;
        let s = lru_score(&run);
        let cells = run
            .present
            .iter()
            .enumerate()
            .map(|(i, &kept)| match (i < run.first_max, kept) {
                (true, false) => 0,
                (true, true) => 1,
                (false, true) => 2,
                (false, false) => 3,
            })
            .collect();
        strip.rows.push(StripRow {
            label: name.to_string(),
            cells,
        });
        out.metric(
            &format!("oldest half kept, {name}"),
            round1(s.old_half_kept),
            "%",
        );
        out.metric(
            &format!("newest half kept, {name}"),
            round1(s.new_half_kept),
            "%",
        );
        let x = vi as f64;
        old_s.push((x, round1(s.old_half_kept)));
        new_s.push((x, round1(s.new_half_kept)));
        if vi == 0 {
            first_set = run.first_max;
            out.metric("keys in the first set", run.first_max as f64, "keys");
        }
        scores.push(s);
    }
    out.duration_us = duration;
    bars = bars
        .with(Series::new("oldest half kept (ideal 0)", old_s))
        .with(Series::new("newest half kept (ideal 100)", new_s));
    out.charts.push(bars);
    out.strips.push(strip);

    let exact = &scores[0];
    out.check(
        "True LRU evicts exactly the least recently read keys.",
        exact.misplaced == 0 && exact.evicted > 0,
        format!(
            "{} evicted, {} of them outside the {} oldest",
            exact.evicted, exact.misplaced, exact.evicted
        ),
    );
    let (k3, k10) = (scores[1].old_half_kept, scores[3].old_half_kept);
    out.check(
        "With 10 samples eviction is closer to true LRU than with 3.",
        k10 < k3,
        format!(
            "keys of the oldest-read half still there (true LRU: 0%): {k10:.1}% with 10 samples, {k3:.1}% with 3"
        ),
    );
    out.note(format!(
        "{first_set} keys filled maxmemory; after the access pass, adding keys until half of them were gone evicted {} keys.",
        exact.evicted
    ));
    out.note(format!(
        "Of the oldest-read half, sampled LRU kept {k3:.1}% with 3 samples, {:.1}% with 5 and {k10:.1}% with 10.",
        scores[2].old_half_kept
    ));
    out
}

// ---------------------------------------------------------------- lru-vs-lfu-scan

pub const LRU_VS_LFU_SCAN: Scenario = Scenario::new("lru-vs-lfu-scan", scan_run);

/// The popular keys counted as "the hot set".
const HOT_SET: usize = 100;
/// When the scan starts, and how long the run lasts.
const SCAN_AT: Micros = 6 * SEC;
const SCAN_RUN_END: Micros = 12 * SEC;

#[derive(Clone, Copy, Debug)]
enum ScanEv {
    /// A regular request.
    Hot,
    /// The scan's i-th key.
    Scan(u32),
    /// Counts the hot set's resident keys.
    Sample,
}

struct ScanRun {
    hits: Meter,
    resident: Vec<(f64, f64)>,
    /// Hit rate of regular requests in the 2 s before the scan, and from its start to 1 s after its end.
    before: f64,
    during: f64,
    /// Hot-set keys resident just after the scan, and the fewest seen during it.
    after_scan: usize,
    low: usize,
    evicted: u64,
}

fn scan_policy(seed: u64, policy: &str, maxmemory: u64, p: &Params) -> ScanRun {
    let keys = p.count("keys").max(1);
    let zipf = Zipf::new(keys, p.get("zipf")).unwrap_or_else(|| Zipf::new(1, 1.0).expect("n = 1"));
    let rate = p.get("rate").max(1.0);
    let scan_keys = p.count("scan-keys") as u32;
    let scan_gap = (SEC as f64 / (5.0 * rate)).max(1.0) as Micros;
    let scan_end = SCAN_AT + scan_gap * scan_keys as u64;
    let mm = maxmemory.to_string();
    let mut r = Redis::new(seed, &[("maxmemory", &mm), ("maxmemory-policy", policy)]);
    let mut k: Kernel<ScanEv> = Kernel::new(seed);
    let value = "v".repeat(100);
    let exp_gap = |rng: &mut fastrand::Rng| {
        // Poisson arrivals: exponential gaps with mean 1/rate.
        let u = 1.0 - rng.f64();
        (-u.ln() * SEC as f64 / rate) as Micros
    };
    let first = exp_gap(&mut k.rng);
    k.at(first, ScanEv::Hot);
    if scan_keys > 0 {
        k.at(SCAN_AT, ScanEv::Scan(0));
    }
    k.at(0, ScanEv::Sample);
    let mut run = ScanRun {
        hits: Meter::new(SEC / 2),
        resident: Vec::new(),
        before: 0.0,
        during: 0.0,
        after_scan: 0,
        low: HOT_SET,
        evicted: 0,
    };
    let (mut b_hit, mut b_n, mut d_hit, mut d_n) = (0u64, 0u64, 0u64, 0u64);
    let mut after_taken = false;
    let resident = |r: &Redis| {
        (0..HOT_SET.min(keys as usize))
            .filter(|i| r.engine().holds_key(0, format!("key:{i}").as_bytes()))
            .count()
    };
    while let Some(ev) = k.next(SCAN_RUN_END) {
        let now = k.now();
        match ev {
            ScanEv::Hot => {
                let key = format!("key:{}", zipf.sample(&mut k.rng) - 1);
                let hit = !matches!(r.exec(now, "app", &["GET", &key]), Frame::Null);
                if !hit {
                    r.exec(now, "app", &["SET", &key, &value]);
                }
                run.hits.trial(now, hit);
                if (SCAN_AT - 2 * SEC..SCAN_AT).contains(&now) {
                    b_n += 1;
                    b_hit += hit as u64;
                } else if (SCAN_AT..scan_end + SEC).contains(&now) {
                    d_n += 1;
                    d_hit += hit as u64;
                }
                let gap = exp_gap(&mut k.rng);
                k.after(gap.max(1), ScanEv::Hot);
            }
            ScanEv::Scan(i) => {
                let key = format!("cold:{i}");
                if matches!(r.exec(now, "batch", &["GET", &key]), Frame::Null) {
                    r.exec(now, "batch", &["SET", &key, &value]);
                }
                if i + 1 < scan_keys {
                    k.after(scan_gap, ScanEv::Scan(i + 1));
                }
            }
            ScanEv::Sample => {
                let n = resident(&r);
                run.resident.push((now as f64 / SEC as f64, n as f64));
                if (SCAN_AT..=scan_end).contains(&now) {
                    run.low = run.low.min(n);
                }
                if !after_taken && now >= scan_end && now >= SCAN_AT {
                    after_taken = true;
                    run.after_scan = n;
                    run.low = run.low.min(n);
                }
                k.after(SEC / 4, ScanEv::Sample);
            }
        }
    }
    run.before = pct(b_hit as f64, b_n as f64);
    run.during = pct(d_hit as f64, d_n as f64);
    run.evicted = r.engine().stats().evicted_keys;
    run
}

fn scan_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("lru-vs-lfu-scan", seed, p);
    let keys = p.count("keys").max(1) as usize;
    let room = ((keys as f64 * p.get("cache") / 100.0) as usize).max(1);
    let value = "v".repeat(100);
    let maxmemory = maxmemory_for(seed, room, |r, i| {
        r.exec(0, "setup", &["SET", &format!("key:{i}"), &value]);
    });
    let lru = scan_policy(seed, "allkeys-lru", maxmemory, p);
    let lfu = scan_policy(seed, "allkeys-lfu", maxmemory, p);
    out.duration_us = SCAN_RUN_END;
    for (name, r) in [("LRU", &lru), ("LFU", &lfu)] {
        out.metric(
            &format!("hit rate before the scan, {name}"),
            round1(r.before),
            "%",
        );
        out.metric(
            &format!("hit rate during the scan, {name}"),
            round1(r.during),
            "%",
        );
        out.metric(
            &format!("hot keys resident after the scan, {name}"),
            r.after_scan as f64,
            &format!("of {}", HOT_SET.min(keys)),
        );
    }
    out.charts.push(
        Chart::line("Hit rate of regular requests", "time (s)", "hit rate (%)")
            .with(lru.hits.ratio("allkeys-lru"))
            .with(lfu.hits.ratio("allkeys-lfu")),
    );
    out.charts.push(
        Chart::line(
            &format!("The {} most popular keys in the cache", HOT_SET.min(keys)),
            "time (s)",
            "keys resident",
        )
        .with(Series::new("allkeys-lru", lru.resident.clone()))
        .with(Series::new("allkeys-lfu", lfu.resident.clone())),
    );
    let drop_lru = lru.before - lru.during;
    let drop_lfu = lfu.before - lfu.during;
    out.metric("hit-rate drop, LRU", round1(drop_lru), "pp");
    out.metric("hit-rate drop, LFU", round1(drop_lfu), "pp");
    out.check(
        "The scan costs LRU far more hit rate than LFU.",
        drop_lru >= 5.0 && drop_lru >= 2.0 * drop_lfu.max(0.0),
        format!("drop during the scan: LRU {drop_lru:.1} pp, LFU {drop_lfu:.1} pp"),
    );
    let hot = HOT_SET.min(keys);
    out.check(
        "LFU keeps most of the hot set through the scan; LRU loses it.",
        lfu.after_scan * 10 >= hot * 8 && lru.low < lfu.low,
        format!(
            "hot keys resident after the scan: LFU {} of {hot}, LRU {} (lowest during it: LFU {}, LRU {})",
            lfu.after_scan, lru.after_scan, lfu.low, lru.low
        ),
    );
    out.note(format!(
        "The scan read {} cold keys from {:.1} s; LRU evicted {} keys in all, LFU {}.",
        p.count("scan-keys"),
        SCAN_AT as f64 / SEC as f64,
        lru.evicted,
        lfu.evicted
    ));
    out.note(format!(
        "Hit rate fell from {:.1}% to {:.1}% under LRU and from {:.1}% to {:.1}% under LFU.",
        lru.before, lru.during, lfu.before, lfu.during
    ));
    out
}

#[cfg(test)]
mod tests {

    use crate::testing::{all_pass, failed, metric as m, run};

    #[test]
    fn lru_approximation_orders_the_variants() {
        for o in all_pass("lru-approximation", &[]) {
            assert_eq!(m(&o, "oldest half kept, true LRU"), 0.0);
            assert_eq!(m(&o, "newest half kept, true LRU"), 100.0);
            let (m3, m5, m10) = (
                m(&o, "oldest half kept, samples 3"),
                m(&o, "oldest half kept, samples 5"),
                m(&o, "oldest half kept, samples 10"),
            );
            assert!(m3 > m5 && m5 > m10, "{m3} {m5} {m10}");
            assert!((20.0..50.0).contains(&m3), "samples 3: {m3}");
            assert!(m10 < 15.0, "samples 10: {m10}");
            assert!(m(&o, "newest half kept, samples 10") > 80.0);
            let strip = &o.strips[0];
            assert_eq!(strip.rows.len(), 4);
            // True LRU: a block of evicted keys, then kept ones, then new keys kept.
            let row = &strip.rows[0].cells;
            let first_kept = row.iter().position(|&c| c != 0).unwrap();
            assert!(row[first_kept..].iter().all(|&c| c == 1 || c == 2));
        }
    }

    #[test]
    fn a_coarse_lru_clock_blinds_sampling_but_not_true_lru() {
        // Reads 1 ms apart: a thousand keys share one or two LRU ticks, so
        // sampled eviction is close to random while exact-lru is unaffected.
        let o = run("lru-approximation", 1, &[("access-gap", "1")]);
        assert!(o.checks[0].passed, "{}", o.checks[0].detail);
        let m10 = m(&o, "oldest half kept, samples 10");
        assert!(m10 > 30.0, "samples 10 with a 1 ms gap: {m10}");
    }

    #[test]
    fn a_scan_hurts_lru_more_than_lfu() {
        for o in all_pass("lru-vs-lfu-scan", &[]) {
            assert!(m(&o, "hit-rate drop, LRU") > 10.0);
            assert!(m(&o, "hit-rate drop, LFU") < 5.0);
            assert!(m(&o, "hot keys resident after the scan, LFU") >= 85.0);
            assert!(m(&o, "hot keys resident after the scan, LRU") < 60.0);
        }
        // Without a scan there is nothing to recover from: the drop check fails.
        let o = run("lru-vs-lfu-scan", 1, &[("scan-keys", "0")]);
        assert!(failed(&o, "The scan costs LRU"));
    }
}
