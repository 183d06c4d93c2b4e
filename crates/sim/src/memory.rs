//! Memory scenarios (group "memory"): how Redis' approximated LRU compares with true LRU, LRU against LFU under a scan, volatile-* policies running out of candidates, DEL against UNLINK on a big hash, and TTL avalanches with and without jitter.
//!
//! Every scenario drives real engines with real `CONFIG SET maxmemory`,
//! `maxmemory-policy` and `maxmemory-samples`: eviction, expiry and the
//! OOM error come from the engine (evict.rs, expire.rs), never from here.
//! The scenarios only choose the workload and read what happened.

use super::kernel::{Database, Dist, Kernel, Latencies, Meter, Micros, Redis, MS, SEC};
use super::outcome::StripRow;
use super::zipf::Zipf;
use super::Scenario;
use super::{Chart, Outcome, ParamSpec, Params, ScenarioInfo, Series, Strip};
use redsim_engine::proto::resp::Frame;

/// The error Redis 7.2 gives a `denyoom` command it cannot make room for.
pub const OOM_ERROR: &str = "OOM command not allowed when used memory > 'maxmemory'.";

/// `maxmemory` that holds about `n` keys written by `write` on a fresh
/// engine: measured, not guessed, so it follows the engine's per-key
/// accounting (key, value, dict entry, bucket array) whatever it is.
fn maxmemory_for(seed: u64, n: usize, mut write: impl FnMut(&mut Redis, usize)) -> u64 {
    let mut r = Redis::new(seed, &[]);
    for i in 0..n {
        write(&mut r, i);
    }
    // Every fresh engine starts from the same baseline, so what this one
    // uses with n keys is the limit another one reaches with n keys.
    r.engine.used_memory()
}

fn int_reply(f: &Frame) -> i64 {
    match f {
        Frame::Integer(n) => *n,
        _ => -1,
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

// ---------------------------------------------------------------------------
// 1. lru-approximation
// ---------------------------------------------------------------------------

pub const LRU_APPROXIMATION: Scenario = Scenario {
    info: lru_info,
    run: lru_run,
};

fn lru_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "lru-approximation",
        group: "memory",
        title: "Approximated LRU against true LRU",
        claim: "Redis' sampled LRU evicts nearly the same keys as true LRU, and more samples bring it closer.",
        look_for: "Each row replays redis.io's key-eviction experiment (utils/lru/test-lru.rb): fill the cache until the first eviction, read every key in order, then add 50% more keys. \
True LRU evicts exactly the oldest-read half (a clean dark block on the left); sampling with 3 keys leaves survivors among the old keys and evicts some recent ones, and 10 samples are nearly ideal. \
The LRU clock ticks once per second (LRU_CLOCK_RESOLUTION 1000 ms), and the original figure came from a build with a 1 ms clock; here virtual time moves `access-gap` between two reads so every key gets its own idle time. \
Shrink the gap below 1000 ms and many keys share a tick: the sampled variants can no longer tell them apart, while true LRU does not care.",
        params: vec![
            ParamSpec::num(
                "keys",
                1000.0,
                (200.0, 5000.0, 100.0),
                "keys",
                "How many keys maxmemory holds (it is sized by measuring them).",
            ),
            ParamSpec::num(
                "access-gap",
                1000.0,
                (1.0, 5000.0, 1.0),
                "ms",
                "Virtual time between two reads of the access pass; under 1000 ms keys share an LRU tick.",
            ),
        ],
    }
}

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
    while r.engine.stats().evicted_keys < half && id < 2 * guard {
        id += 1;
        r.exec(t, "app", &["SET", &id.to_string(), "foo"]);
    }
    let present = (1..=id)
        .map(|i| r.engine.holds_key(0, i.to_string().as_bytes()))
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

// ---------------------------------------------------------------------------
// 2. lru-vs-lfu-scan
// ---------------------------------------------------------------------------

pub const LRU_VS_LFU_SCAN: Scenario = Scenario {
    info: scan_info,
    run: scan_run,
};

fn scan_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "lru-vs-lfu-scan",
        group: "memory",
        title: "A one-off scan: LRU against LFU",
        claim: "A one-off scan of cold keys flushes LRU's hot set, while LFU keeps it and its hit rate barely moves.",
        look_for: "Two caches of the same size serve the same Zipf-distributed cache-aside traffic (GET, and SET on a miss); midway a batch job reads thousands of keys nobody will ask for again. \
Under allkeys-lru each scanned key is the most recently used, so it pushes out popular keys and the hit rate dips until they are fetched again. \
Under allkeys-lfu a new key starts with a low counter (LFU_INIT_VAL 5) while popular keys have climbed higher, so the scan mostly evicts its own keys. \
Watch the hot-keys-resident chart during the scan window.",
        params: vec![
            ParamSpec::num(
                "keys",
                2000.0,
                (200.0, 20000.0, 100.0),
                "keys",
                "Keys the regular traffic asks for, Zipf-distributed.",
            ),
            ParamSpec::num(
                "cache",
                25.0,
                (5.0, 90.0, 5.0),
                "% of keys",
                "Cache size (maxmemory) as a share of the regular keys.",
            ),
            ParamSpec::num(
                "zipf",
                0.9,
                (0.5, 1.5, 0.05),
                "",
                "Zipf exponent of the regular traffic: higher is more skewed.",
            ),
            ParamSpec::num(
                "scan-keys",
                5000.0,
                (0.0, 50000.0, 500.0),
                "keys",
                "Cold keys the one-off scan reads (each once, each a miss and a SET).",
            ),
            ParamSpec::num(
                "rate",
                2000.0,
                (200.0, 10000.0, 100.0),
                "req/s",
                "Regular requests per second; the scan runs five times as fast.",
            ),
        ],
    }
}

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
            .filter(|i| r.engine.holds_key(0, format!("key:{i}").as_bytes()))
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
    run.evicted = r.engine.stats().evicted_keys;
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

// ---------------------------------------------------------------------------
// 3. volatile-oom
// ---------------------------------------------------------------------------

pub const VOLATILE_OOM: Scenario = Scenario {
    info: oom_info,
    run: oom_run,
};

const VOLATILE_POLICIES: [&str; 4] = [
    "volatile-lru",
    "volatile-lfu",
    "volatile-ttl",
    "volatile-random",
];

fn oom_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "volatile-oom",
        group: "memory",
        title: "volatile-* policies run out of keys to evict",
        claim: "Under a volatile-* policy only keys with a TTL can be evicted: once none is left, writes fail with OOM even though plenty of keys could go.",
        look_for: "The cache is preloaded below its limit, and only a few of its keys have a TTL; then the application keeps writing keys without one. \
Writes succeed while memory has room, then while volatile keys remain to be evicted; after the last one goes, every write gets Redis' OOM error although the memory is full of evictable data. \
The same writes under allkeys-lru never fail. Watch used_memory reach the maxmemory line and the volatile-key count fall to zero just before the errors start.",
        params: vec![
            ParamSpec::choice(
                "policy",
                0,
                &VOLATILE_POLICIES,
                "The volatile-* policy compared with allkeys-lru.",
            ),
            ParamSpec::num(
                "capacity",
                1000.0,
                (100.0, 10000.0, 100.0),
                "keys",
                "How many keys maxmemory holds (it is sized by measuring them).",
            ),
            ParamSpec::num(
                "preload",
                80.0,
                (10.0, 100.0, 5.0),
                "% of capacity",
                "Keys written before the run, as a share of the capacity.",
            ),
            ParamSpec::num(
                "volatile",
                10.0,
                (0.0, 100.0, 5.0),
                "% of preload",
                "Share of the preloaded keys that get a TTL (one hour).",
            ),
            ParamSpec::num(
                "writes",
                500.0,
                (10.0, 20000.0, 10.0),
                "writes",
                "New keys without a TTL the application then writes, one per millisecond.",
            ),
        ],
    }
}

struct OomRun {
    accepted: u64,
    ooms: u64,
    /// Write number of the first OOM, and volatile keys left just before it.
    first_oom: Option<(u64, usize)>,
    /// Every OOM's text was Redis' exact error.
    exact_text: bool,
    evicted: u64,
    volatile_evicted: u64,
    used: Vec<(f64, f64)>,
    volatile_left: Vec<(f64, f64)>,
}

fn oom_policy(seed: u64, policy: &str, maxmemory: u64, p: &Params) -> OomRun {
    let mm = maxmemory.to_string();
    let mut r = Redis::new(seed, &[("maxmemory", &mm), ("maxmemory-policy", policy)]);
    let capacity = p.count("capacity") as usize;
    let preload = (capacity as f64 * p.get("preload") / 100.0).round() as usize;
    let volatile = (preload as f64 * p.get("volatile") / 100.0).round() as usize;
    let value = "v".repeat(100);
    // Volatile keys are spread through the preload (every n-th key).
    let every = preload
        .checked_div(volatile)
        .map_or(usize::MAX, |e| e.max(1));
    let mut ttl_keys = Vec::new();
    for i in 0..preload {
        let key = format!("key:{i}");
        if i % every == 0 && ttl_keys.len() < volatile {
            r.exec(0, "app", &["SET", &key, &value, "EX", "3600"]);
            ttl_keys.push(key);
        } else {
            r.exec(0, "app", &["SET", &key, &value]);
        }
    }
    let mut run = OomRun {
        accepted: 0,
        ooms: 0,
        first_oom: None,
        exact_text: true,
        evicted: 0,
        volatile_evicted: 0,
        used: Vec::new(),
        volatile_left: Vec::new(),
    };
    let writes = p.count("writes");
    let mut t: Micros = 0;
    for w in 1..=writes {
        t += MS;
        let left = r.engine.expires_count(0);
        let key = format!("new:{w}");
        match r.exec(t, "app", &["SET", &key, &value]) {
            Frame::Error(e) => {
                run.ooms += 1;
                run.exact_text &= e == OOM_ERROR;
                if run.first_oom.is_none() {
                    run.first_oom = Some((w, left));
                }
            }
            _ => run.accepted += 1,
        }
        let e = &r.engine;
        run.used.push((w as f64, e.used_memory() as f64 / 1024.0));
        run.volatile_left
            .push((w as f64, e.expires_count(0) as f64));
    }
    let e = &r.engine;
    run.evicted = e.stats().evicted_keys;
    run.volatile_evicted = ttl_keys
        .iter()
        .filter(|k| !e.holds_key(0, k.as_bytes()))
        .count() as u64;
    run
}

fn oom_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("volatile-oom", seed, p);
    let policy = VOLATILE_POLICIES
        .get(p.choice("policy"))
        .copied()
        .unwrap_or("volatile-lru");
    let capacity = p.count("capacity") as usize;
    let value = "v".repeat(100);
    let maxmemory = maxmemory_for(seed, capacity, |r, i| {
        r.exec(0, "setup", &["SET", &format!("key:{i}"), &value]);
    });
    let vol = oom_policy(seed, policy, maxmemory, p);
    let all = oom_policy(seed, "allkeys-lru", maxmemory, p);
    let writes = p.count("writes");
    out.duration_us = writes * MS;
    out.metric(
        &format!("writes accepted, {policy}"),
        vol.accepted as f64,
        "writes",
    );
    out.metric(&format!("OOM errors, {policy}"), vol.ooms as f64, "errors");
    out.metric("volatile keys evicted", vol.volatile_evicted as f64, "keys");
    out.metric(
        "writes accepted, allkeys-lru",
        all.accepted as f64,
        "writes",
    );
    out.metric("OOM errors, allkeys-lru", all.ooms as f64, "errors");
    if let Some((w, _)) = vol.first_oom {
        out.metric("first OOM at write", w as f64, "");
    }
    let limit_kb = maxmemory as f64 / 1024.0;
    out.charts.push(
        Chart::line("used_memory over the writes", "write #", "KiB")
            .with(Series::new(
                &format!("used_memory, {policy}"),
                vol.used.clone(),
            ))
            .with(Series::new("used_memory, allkeys-lru", all.used.clone()))
            .with(Series::new(
                "maxmemory",
                vec![(0.0, limit_kb), (writes as f64, limit_kb)],
            )),
    );
    out.charts.push(
        Chart::line("Keys with a TTL left", "write #", "keys")
            .with(Series::new(policy, vol.volatile_left.clone()))
            .with(Series::new("allkeys-lru", all.volatile_left.clone())),
    );
    let started_when_empty = vol.first_oom.is_some_and(|(_, left)| left == 0);
    out.check(
        &format!("Under {policy}, writes fail with OOM only once no key with a TTL is left."),
        vol.ooms > 0 && started_when_empty && vol.exact_text,
        match vol.first_oom {
            Some((w, left)) => format!(
                "first OOM at write {w} with {left} keys with a TTL left; {} OOM errors, exact text: {}",
                vol.ooms, vol.exact_text
            ),
            None => "no OOM error at all".to_string(),
        },
    );
    out.check(
        "allkeys-lru never refuses a write.",
        all.ooms == 0,
        format!("{} OOM errors, {} keys evicted", all.ooms, all.evicted),
    );
    out.note(format!(
        "{policy} accepted {} of {writes} writes and evicted {} keys with a TTL, then answered \"{OOM_ERROR}\" {} times.",
        vol.accepted, vol.volatile_evicted, vol.ooms
    ));
    out.note(format!(
        "allkeys-lru accepted all {} writes by evicting {} keys, with or without a TTL.",
        all.accepted, all.evicted
    ));
    out
}

// ---------------------------------------------------------------------------
// 4. del-vs-unlink
// ---------------------------------------------------------------------------

pub const DEL_VS_UNLINK: Scenario = Scenario {
    info: del_info,
    run: del_run,
};

fn del_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "del-vs-unlink",
        group: "memory",
        title: "DEL against UNLINK on a big hash",
        claim: "DEL of a huge hash frees every field on Redis' only thread and stalls every other client; UNLINK hands the value to a background thread and nobody notices.",
        look_for: "Reader clients send GETs for small keys at a steady rate; halfway through, an admin deletes a hash with many fields, once with DEL and once with UNLINK. \
DEL walks the hash and frees each field before replying, and the commands that arrive meanwhile wait in line: the latency chart shows a spike as tall as the free takes, falling off as the queue drains. \
UNLINK only unlinks the key and queues the value for the lazy-free thread, so readers see their usual sub-millisecond latency. \
Turn on lazyfree-lazy-user-del and DEL behaves like UNLINK.",
        params: vec![
            ParamSpec::num(
                "fields",
                100_000.0,
                (1000.0, 2_000_000.0, 1000.0),
                "fields",
                "Fields of the hash that gets deleted (try 1000000; the default keeps runs quick).",
            ),
            ParamSpec::num(
                "rate",
                2000.0,
                (100.0, 20000.0, 100.0),
                "req/s",
                "GETs per second from the reader clients together, sent at a steady pace.",
            ),
            ParamSpec::num(
                "clients",
                4.0,
                (1.0, 50.0, 1.0),
                "clients",
                "Reader clients sharing that rate.",
            ),
            ParamSpec::flag(
                "lazy-user-del",
                false,
                "CONFIG SET lazyfree-lazy-user-del yes: DEL frees in the background like UNLINK.",
            ),
        ],
    }
}

/// When the admin deletes the hash, and how long the readers run.
const DEL_AT: Micros = 500 * MS;
const DEL_RUN_END: Micros = 1500 * MS;
/// One-way network delay between clients and Redis.
const DEL_NET: Dist = Dist::jittered(100, 50);

#[derive(Clone, Copy, Debug)]
enum DelEv {
    /// Reader `c` sends a GET.
    Send(usize),
    /// A GET reaches Redis: reader, send time.
    Arrive(usize, Micros),
    /// The admin's delete reaches Redis.
    Delete,
}

struct DelRun {
    lat: Latencies,
    /// How long the delete command kept Redis busy (µs), as its reply time shows.
    busy: Micros,
}

fn del_variant(seed: u64, cmd: &str, p: &Params, diagram: bool, k: &mut Kernel<DelEv>) -> DelRun {
    let fields = p.count("fields").max(1);
    let rate = p.get("rate").max(1.0);
    let clients = p.count("clients").max(1) as usize;
    let mut config: Vec<(&str, &str)> = Vec::new();
    if p.on("lazy-user-del") {
        config.push(("lazyfree-lazy-user-del", "yes"));
    }
    let mut r = Redis::new(seed, &config);
    // The big hash, 1000 fields per HSET (one allocation per argument).
    let mut next = 0u64;
    while next < fields {
        let n = (fields - next).min(1000);
        let mut args: Vec<Vec<u8>> = Vec::with_capacity(2 + 2 * n as usize);
        args.push(b"HSET".to_vec());
        args.push(b"big".to_vec());
        for f in next..next + n {
            args.push(format!("field:{f}").into_bytes());
            args.push(b"value".to_vec());
        }
        r.exec_bytes(0, "loader", &args);
        next += n;
    }
    for i in 0..100 {
        r.exec(0, "loader", &["SET", &format!("k:{i}"), "v"]);
    }
    let period = ((clients as f64 * SEC as f64 / rate) as Micros).max(1);
    for c in 0..clients {
        let phase = k.rng.u64(0..period);
        k.at(phase, DelEv::Send(c));
    }
    let admin_net = DEL_NET.sample(&mut k.rng);
    k.at(DEL_AT + admin_net, DelEv::Delete);
    let (reader, admin, redis) = if diagram {
        (
            k.rec.lane("reader 0", "client"),
            k.rec.lane("admin", "client"),
            k.rec.lane("redis", "redis"),
        )
    } else {
        (0, 0, 0)
    };
    // The diagram shows reader 0 from a little before the delete until
    // its first reply after the stall.
    let mut shown_after = false;
    let mut run = DelRun {
        lat: Latencies::default(),
        busy: 0,
    };
    // When the delete's reply left: the first GET sent after it closes the diagram.
    let mut freed_at: Option<Micros> = None;
    while let Some(ev) = k.next(DEL_RUN_END) {
        let now = k.now();
        match ev {
            DelEv::Send(c) => {
                let d = DEL_NET.sample(&mut k.rng);
                k.after(d, DelEv::Arrive(c, now));
                k.after(period, DelEv::Send(c));
            }
            DelEv::Arrive(c, sent) => {
                let key = format!("k:{}", k.rng.u32(0..100));
                r.exec(now, &format!("reader{c}"), &["GET", &key]);
                // Commands take no virtual time except freeing, which moves
                // the engine's clock: a GET queued behind a stall runs when
                // it ends.
                let done = r.engine.now_us().max(now);
                let back = done + DEL_NET.sample(&mut k.rng);
                run.lat.record(sent, back - sent);
                let window = DEL_AT.saturating_sub(3 * MS)..DEL_AT + 4 * MS;
                let show = diagram
                    && c == 0
                    && (window.contains(&sent)
                        || (freed_at.is_some_and(|d| sent >= d) && !shown_after));
                if show {
                    if !window.contains(&sent) {
                        shown_after = true;
                    }
                    k.rec.msg(sent, now, reader, redis, format!("GET {key}"));
                    let ms = (back - sent) as f64 / MS as f64;
                    k.rec
                        .msg(done, back, redis, reader, format!("\"v\" after {ms:.1} ms"));
                }
            }
            DelEv::Delete => {
                let start = r.engine.now_us().max(now);
                r.exec(now, "admin", &[cmd, "big"]);
                let done = r.engine.now_us().max(start);
                run.busy = done - start;
                freed_at = Some(done);
                if diagram {
                    k.rec.msg(DEL_AT, now, admin, redis, format!("{cmd} big"));
                    if run.busy > 0 {
                        k.rec
                            .local(start, done, redis, format!("frees {fields} fields"));
                        k.rec.mark(
                            start,
                            redis,
                            "bad",
                            format!(
                                "{cmd} frees the hash on the main thread: for {:.1} ms no other command runs, and every GET that arrives waits.",
                                run.busy as f64 / MS as f64
                            ),
                        );
                    } else {
                        k.rec.mark(
                            start,
                            redis,
                            "good",
                            format!("{cmd} only unlinks the key; the fields are freed in the background."),
                        );
                    }
                    k.rec
                        .msg(done, done + admin_net, redis, admin, "(integer) 1");
                }
            }
        }
    }
    run
}

fn del_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("del-vs-unlink", seed, p);
    let mut kd: Kernel<DelEv> = Kernel::new(seed);
    let del = del_variant(seed, "DEL", p, true, &mut kd);
    let mut ku: Kernel<DelEv> = Kernel::new(seed);
    let unlink = del_variant(seed, "UNLINK", p, false, &mut ku);
    out.duration_us = DEL_RUN_END;
    let ms = |us: Micros| (us as f64 / 10.0).round() / 100.0;
    for (name, r) in [("DEL", &del), ("UNLINK", &unlink)] {
        out.metric(
            &format!("p50 latency, {name}"),
            ms(r.lat.quantile(0.5)),
            "ms",
        );
        out.metric(
            &format!("p99 latency, {name}"),
            ms(r.lat.quantile(0.99)),
            "ms",
        );
        out.metric(&format!("max latency, {name}"), ms(r.lat.max()), "ms");
        out.metric(&format!("{name} kept Redis busy"), ms(r.busy), "ms");
    }
    out.charts.push(
        Chart::line(
            "Worst GET latency per 10 ms (other clients)",
            "time (s)",
            "latency (ms)",
        )
        .with(del.lat.quantile_series("DEL", 1.0, 10 * MS))
        .with(unlink.lat.quantile_series("UNLINK", 1.0, 10 * MS)),
    );
    out.charts.push(
        Chart::bars("Latency other clients see", "ms", &["p50", "p99", "max"])
            .with(Series::new(
                "DEL",
                vec![
                    (0.0, ms(del.lat.quantile(0.5))),
                    (1.0, ms(del.lat.quantile(0.99))),
                    (2.0, ms(del.lat.max())),
                ],
            ))
            .with(Series::new(
                "UNLINK",
                vec![
                    (0.0, ms(unlink.lat.quantile(0.5))),
                    (1.0, ms(unlink.lat.quantile(0.99))),
                    (2.0, ms(unlink.lat.max())),
                ],
            )),
    );
    out.diagram = Some(kd.rec.take_diagram());
    let (dmax, umax) = (del.lat.max(), unlink.lat.max());
    if p.on("lazy-user-del") {
        out.check(
            "With lazyfree-lazy-user-del yes, DEL is as harmless as UNLINK.",
            dmax <= 2 * umax + MS,
            format!(
                "worst GET latency: {:.2} ms after DEL, {:.2} ms after UNLINK",
                dmax as f64 / MS as f64,
                umax as f64 / MS as f64
            ),
        );
    } else {
        out.check(
            "DEL of a big hash stalls other clients; UNLINK does not.",
            dmax >= 10 * umax && umax < 5 * MS,
            format!(
                "worst GET latency: {:.2} ms after DEL, {:.2} ms after UNLINK",
                dmax as f64 / MS as f64,
                umax as f64 / MS as f64
            ),
        );
    }
    out.note(format!(
        "DEL kept Redis busy for {:.1} ms freeing {} fields; the worst GET meanwhile took {:.1} ms.",
        del.busy as f64 / MS as f64,
        p.count("fields"),
        dmax as f64 / MS as f64
    ));
    out.note(format!(
        "After UNLINK the worst GET took {:.2} ms.",
        umax as f64 / MS as f64
    ));
    out
}

// ---------------------------------------------------------------------------
// 5. expiry-avalanche
// ---------------------------------------------------------------------------

pub const EXPIRY_AVALANCHE: Scenario = Scenario {
    info: avalanche_info,
    run: avalanche_run,
};

fn avalanche_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "expiry-avalanche",
        group: "memory",
        title: "Expiry avalanche and TTL jitter",
        claim: "Keys warmed together with the same TTL expire together and send their readers to the database at once; a random TTL jitter spreads both out.",
        look_for: "A preload writes every key in the same instant with the same TTL. When the TTL runs out, the next slow active-expire cycle (every 100 ms at hz 10) finds almost all of them expired and reclaims them in one sweep; the readers' next GETs all miss, and each miss becomes a database query. \
The jittered run writes each key with its TTL stretched or shrunk by a random amount within the jitter, so expirations and the database queries they cause spread over a window instead of one spike. \
In the expirations chart, 'active' keys were reclaimed by the cycle and 'lazy' ones by a reader's GET finding them expired first.",
        params: vec![
            ParamSpec::num(
                "keys",
                1000.0,
                (100.0, 10000.0, 100.0),
                "keys",
                "Keys the preload warms, all at the same instant.",
            ),
            ParamSpec::num(
                "ttl",
                10.0,
                (1.0, 60.0, 1.0),
                "s",
                "TTL every key is written with (before jitter).",
            ),
            ParamSpec::num(
                "jitter",
                10.0,
                (0.0, 50.0, 1.0),
                "%",
                "The jittered run stretches or shrinks each TTL by a random share up to this.",
            ),
            ParamSpec::num(
                "readers",
                2000.0,
                (100.0, 20000.0, 100.0),
                "req/s",
                "Cache-aside reads per second, spread evenly over the keys.",
            ),
            ParamSpec::num(
                "db-latency",
                10.0,
                (1.0, 200.0, 1.0),
                "ms",
                "Time a database query takes; the database serves 20 at once and queues the rest.",
            ),
        ],
    }
}

#[derive(Clone, Debug)]
enum AvEv {
    /// A reader's GET.
    Read,
    /// The cron boundary: the engine runs its cycles up to here.
    Tick,
    /// A database read for `key` finished; the reader fills the cache.
    Loaded(String),
}

/// Where the avalanche's window is, in 100 ms windows.
const AV_WINDOW: Micros = 100 * MS;

struct AvRun {
    active: Meter,
    lazy: Meter,
    db: Meter,
    peak_expired: f64,
    peak_db: f64,
    db_queries: u64,
    misses: u64,
    /// The largest database queue (queries in flight) seen.
    db_peak_concurrency: usize,
}

fn avalanche_variant(seed: u64, jitter: f64, p: &Params, end: Micros) -> AvRun {
    let keys = p.count("keys").max(1);
    let ttl_ms = p.get("ttl") * 1000.0;
    let rate = p.get("readers").max(1.0);
    let mut r = Redis::new(seed, &[]);
    let mut k: Kernel<AvEv> = Kernel::new(seed);
    // The jitter draws from its own stream so both runs see the same readers.
    let mut jrng = fastrand::Rng::with_seed(seed ^ 0x6a09_e667_f3bc_c908);
    let ttl_for = |rng: &mut fastrand::Rng| {
        let f = 1.0 + jitter * (2.0 * rng.f64() - 1.0);
        ((ttl_ms * f).round() as i64).max(1).to_string()
    };
    let mut db = Database::new(
        Dist::fixed((p.get("db-latency") * MS as f64) as Micros),
        Dist::fixed(MS),
        20,
    );
    for i in 0..keys {
        let px = ttl_for(&mut jrng);
        r.exec(
            0,
            "preload",
            &["SET", &format!("key:{i}"), "value", "PX", &px],
        );
    }
    let mut run = AvRun {
        active: Meter::new(AV_WINDOW),
        lazy: Meter::new(AV_WINDOW),
        db: Meter::new(AV_WINDOW),
        peak_expired: 0.0,
        peak_db: 0.0,
        db_queries: 0,
        misses: 0,
        db_peak_concurrency: 0,
    };
    let gap = |rng: &mut fastrand::Rng| {
        let u = 1.0 - rng.f64();
        ((-u.ln() * SEC as f64 / rate) as Micros).max(1)
    };
    let first = gap(&mut k.rng);
    k.at(first, AvEv::Read);
    k.at(AV_WINDOW, AvEv::Tick);
    // Expirations the engine did while moving its clock are the cycle's
    // (active); those during a command are the reader's (lazy).
    let expired = |r: &Redis| r.engine.stats().expired_keys;
    while let Some(ev) = k.next(end) {
        let now = k.now();
        let before = expired(&r);
        r.engine.advance_to(now);
        let during_clock = expired(&r) - before;
        if during_clock > 0 {
            // Reclaimed by the cron tick at the start of this window: a Tick
            // event runs at every boundary, so no tick is ever skipped over.
            run.active.add(now, during_clock as f64);
        }
        match ev {
            AvEv::Tick => k.after(AV_WINDOW, AvEv::Tick),
            AvEv::Read => {
                let key = format!("key:{}", k.rng.u64(..keys));
                let before = expired(&r);
                let reply = r.exec(now, "reader", &["GET", &key]);
                let lazy = expired(&r) - before;
                if lazy > 0 {
                    run.lazy.add(now, lazy as f64);
                }
                if matches!(reply, Frame::Null) {
                    // Cache-aside: read the database, then fill the cache.
                    run.misses += 1;
                    let (_, done) = db.reserve(now, false, &mut k.rng);
                    run.db.add(now, 1.0);
                    k.at(done, AvEv::Loaded(key));
                }
                let g = gap(&mut k.rng);
                k.after(g, AvEv::Read);
            }
            AvEv::Loaded(key) => {
                let px = ttl_for(&mut jrng);
                r.exec(now, "reader", &["SET", &key, "value", "PX", &px]);
            }
        }
    }
    run.db_queries = db.queries;
    run.db_peak_concurrency = db.peak_concurrency;
    let per_window = |m: &Meter| {
        m.rate("", end)
            .points
            .iter()
            .map(|p| p.1 * AV_WINDOW as f64 / SEC as f64)
            .collect::<Vec<f64>>()
    };
    let (a, l) = (per_window(&run.active), per_window(&run.lazy));
    run.peak_expired = a.iter().zip(&l).map(|(x, y)| x + y).fold(0.0, f64::max);
    run.peak_db = per_window(&run.db).into_iter().fold(0.0, f64::max) * (SEC / AV_WINDOW) as f64;
    run
}

fn avalanche_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("expiry-avalanche", seed, p);
    let jitter = p.get("jitter") / 100.0;
    let ttl = p.get("ttl") * SEC as f64;
    // Past the last possible expiry, with time for the database to catch up.
    let end = (ttl * (1.0 + jitter)) as Micros + 2 * SEC;
    let same = avalanche_variant(seed, 0.0, p, end);
    let spread = avalanche_variant(seed, jitter, p, end);
    out.duration_us = end;
    let j = p.get("jitter");
    let names = ["same TTL".to_string(), format!("±{j}% jitter")];
    for (name, r) in [(&names[0], &same), (&names[1], &spread)] {
        out.metric(
            &format!("peak expirations per 100 ms, {name}"),
            r.peak_expired,
            "keys",
        );
        out.metric(
            &format!("peak database load, {name}"),
            r.peak_db,
            "queries/s",
        );
        out.metric(
            &format!("database queries, {name}"),
            r.db_queries as f64,
            "queries",
        );
    }
    let mut exp = Chart::line("Keys expired per 100 ms", "time (s)", "keys");
    let mut qps = Chart::line("Database queries per second", "time (s)", "queries/s");
    for (name, r) in [(&names[0], &same), (&names[1], &spread)] {
        let per = |m: &Meter, label: String| {
            let mut s = m.rate(&label, end);
            for pt in &mut s.points {
                pt.1 = (pt.1 * AV_WINDOW as f64 / SEC as f64).round();
            }
            s
        };
        exp = exp
            .with(per(&r.active, format!("active, {name}")))
            .with(per(&r.lazy, format!("lazy, {name}")));
        qps = qps.with(r.db.rate(name, end));
    }
    out.charts.push(exp);
    out.charts.push(qps);
    let ratio = same.peak_expired / spread.peak_expired.max(1.0);
    out.metric("peak expirations ratio", round1(ratio), "×");
    out.check(
        "Without jitter the busiest 100 ms sees at least 5× the expirations it sees with jitter.",
        ratio >= 5.0,
        format!(
            "{} keys expired in the busiest 100 ms with the same TTL, {} with ±{j}% jitter ({ratio:.1}×)",
            same.peak_expired, spread.peak_expired
        ),
    );
    out.check(
        "Without jitter the database sees a sharper spike.",
        same.peak_db > spread.peak_db,
        format!(
            "peak {:.0} queries/s with the same TTL, {:.0} with jitter",
            same.peak_db, spread.peak_db
        ),
    );
    out.note(format!(
        "With one TTL for all, {} keys went in one 100 ms window and the database peaked at {:.0} queries/s ({} queued or running at most).",
        same.peak_expired, same.peak_db, same.db_peak_concurrency
    ));
    out.note(format!(
        "With ±{j}% jitter the busiest window had {} expirations and the database peaked at {:.0} queries/s.",
        spread.peak_expired, spread.peak_db
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, seed: u64, set: &[(&str, &str)]) -> Outcome {
        crate::run_with(id, seed, set).unwrap()
    }

    fn m(o: &Outcome, name: &str) -> f64 {
        o.metric_value(name)
            .unwrap_or_else(|| panic!("{}: no metric {name}", o.id))
    }

    fn passes(o: &Outcome) {
        for c in &o.checks {
            assert!(
                c.passed,
                "{} seed {}: {} ({})",
                o.id, o.seed, c.claim, c.detail
            );
        }
    }

    fn failed(o: &Outcome, claim_starts: &str) -> bool {
        o.checks
            .iter()
            .any(|c| c.claim.starts_with(claim_starts) && !c.passed)
    }

    #[test]
    fn lru_approximation_orders_the_variants() {
        for seed in [1, 2, 3] {
            let o = run("lru-approximation", seed, &[]);
            passes(&o);
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
        for seed in [1, 2, 3] {
            let o = run("lru-vs-lfu-scan", seed, &[]);
            passes(&o);
            assert!(m(&o, "hit-rate drop, LRU") > 10.0);
            assert!(m(&o, "hit-rate drop, LFU") < 5.0);
            assert!(m(&o, "hot keys resident after the scan, LFU") >= 85.0);
            assert!(m(&o, "hot keys resident after the scan, LRU") < 60.0);
        }
        // Without a scan there is nothing to recover from: the drop check fails.
        let o = run("lru-vs-lfu-scan", 1, &[("scan-keys", "0")]);
        assert!(failed(&o, "The scan costs LRU"));
    }

    #[test]
    fn volatile_policies_refuse_writes_once_no_ttl_key_is_left() {
        for seed in [1, 2, 3] {
            for policy in VOLATILE_POLICIES {
                let o = run("volatile-oom", seed, &[("policy", policy)]);
                passes(&o);
                assert_eq!(m(&o, "volatile keys evicted"), 80.0, "{policy}");
                let ooms = m(&o, &format!("OOM errors, {policy}"));
                assert!(ooms > 100.0, "{policy}: {ooms}");
                assert_eq!(m(&o, "OOM errors, allkeys-lru"), 0.0);
                assert_eq!(m(&o, "writes accepted, allkeys-lru"), 500.0);
            }
        }
        // Every preloaded key has a TTL: enough candidates, no OOM, so the
        // OOM claim does not hold in this run.
        let o = run("volatile-oom", 1, &[("volatile", "100")]);
        assert_eq!(m(&o, "OOM errors, volatile-lru"), 0.0);
        assert!(failed(&o, "Under volatile-lru"));
    }

    #[test]
    fn the_oom_text_is_redis_own() {
        let mut r = Redis::new(
            1,
            &[("maxmemory", "1"), ("maxmemory-policy", "volatile-lru")],
        );
        match r.exec(0, "a", &["SET", "k", "v"]) {
            Frame::Error(e) => assert_eq!(e, OOM_ERROR),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn del_stalls_readers_and_unlink_does_not() {
        for seed in [1, 2, 3] {
            let o = run("del-vs-unlink", seed, &[("fields", "100000")]);
            passes(&o);
            let busy = m(&o, "DEL kept Redis busy");
            assert!(busy > 5.0, "DEL busy {busy} ms");
            // The GET that arrived first after the delete waited nearly all of it.
            assert!(m(&o, "max latency, DEL") >= busy - 1.0, "{:?}", o.metrics);
            assert_eq!(m(&o, "UNLINK kept Redis busy"), 0.0);
            assert!(m(&o, "max latency, UNLINK") < 1.0);
            assert!(m(&o, "p50 latency, DEL") < 1.0);
            let d = o.diagram.as_ref().unwrap();
            assert!(d.marks.iter().any(|mk| mk.tone == "bad"));
            assert!(d.steps.len() < 60, "{} steps", d.steps.len());
        }
        let o = run(
            "del-vs-unlink",
            1,
            &[("fields", "100000"), ("lazy-user-del", "on")],
        );
        passes(&o);
        assert_eq!(m(&o, "DEL kept Redis busy"), 0.0);
    }

    #[test]
    fn jitter_spreads_the_avalanche() {
        for seed in [1, 2, 3] {
            let o = run("expiry-avalanche", seed, &[]);
            passes(&o);
            assert!(m(&o, "peak expirations per 100 ms, same TTL") > 500.0);
            assert!(m(&o, "peak expirations ratio") >= 5.0);
        }
        // No jitter in the "jittered" run either: the claim fails.
        let o = run("expiry-avalanche", 1, &[("jitter", "0")]);
        assert!(failed(&o, "Without jitter the busiest"));
    }
}
