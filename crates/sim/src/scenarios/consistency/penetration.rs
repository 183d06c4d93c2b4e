//! Cache penetration: requests for ids that exist nowhere go through the cache to the DB every time; a short-lived miss marker and a Bloom filter in front cut that load, and a DB error must never be cached as "not found".

use super::*;
use crate::kernel::Meter;
use crate::seeds;
use redsim_engine::rng::Pick;

pub const PENETRATION: Scenario = Scenario::new("penetration", pen_run);

const VARIANTS: &[&str] = &[
    "no protection",
    "miss marker",
    "Bloom filter",
    "Bloom + marker",
];

/// What a negative-cache entry holds.
pub(super) const MISS: &str = "__miss__";

/// A Bloom filter: `m` bits, `k` probes by double hashing.
struct Bloom {
    bits: Vec<u64>,
    m: u64,
    k: u32,
}

impl Bloom {
    /// Sized for `n` items at false-positive rate `fp`: m = -n·ln p / ln²2 bits, k = m/n·ln 2 probes.
    fn new(n: usize, fp: f64) -> Bloom {
        let n = n.max(1) as f64;
        let ln2 = std::f64::consts::LN_2;
        let m = (-n * fp.clamp(1e-6, 0.9).ln() / (ln2 * ln2))
            .ceil()
            .max(64.0) as u64;
        let k = ((m as f64 / n) * ln2).round().clamp(1.0, 30.0) as u32;
        Bloom {
            bits: vec![0; m.div_ceil(64) as usize],
            m,
            k,
        }
    }

    /// Two independent-enough 64-bit hashes: FNV-1a, then two different finalisers.
    fn hashes(key: &str) -> (u64, u64) {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in key.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        (mix(h), mix(h ^ 0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn probes(&self, key: &str) -> impl Iterator<Item = u64> + '_ {
        let (a, b) = Bloom::hashes(key);
        (0..u64::from(self.k)).map(move |i| a.wrapping_add(i.wrapping_mul(b)) % self.m)
    }

    fn add(&mut self, key: &str) {
        let idx: Vec<u64> = self.probes(key).collect();
        for i in idx {
            if let Some(w) = self.bits.get_mut((i / 64) as usize) {
                *w |= 1 << (i % 64);
            }
        }
    }

    /// False: certainly absent. True: maybe present.
    fn may_contain(&self, key: &str) -> bool {
        self.probes(key).all(|i| {
            self.bits
                .get((i / 64) as usize)
                .is_some_and(|w| w & (1 << (i % 64)) != 0)
        })
    }
}

/// splitmix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What one variant's run measured.
#[derive(Default)]
struct PenRun {
    db_reads: u64,
    db_reads_missing: u64,
    rejected_by_filter: u64,
    filter_passed_missing: u64,
    missing_requests: u64,
    marker_hits: u64,
    errors: u64,
    false_not_found: u64,
    markers_from_errors: u64,
    /// DB queries per second over time.
    qps: Option<Series>,
}

const EXISTING: usize = 1000;
/// Existing items not in the cache at the start (they load on first use).
const COLD: usize = 100;

fn pen_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("penetration", seed, p);
    let rate = p.get("rate").max(1.0);
    let duration = 1500 * MS;
    // One request stream for every variant, drawn from its own generator.
    let mut gen = fastrand::Rng::with_seed(seeds::salted(seed, seeds::PENETRATION_REQUESTS));
    let share = p.get("missing_share") / 100.0;
    let missing_ids = p.count("missing_ids").max(1);
    let gap = (SEC as f64 / rate) as Micros;
    let mut reqs: Vec<(Micros, String, bool)> = Vec::new();
    let mut t = 0;
    while t < duration {
        t += gen.u64(1..=2 * gap.max(1));
        if gen.f64() < share {
            reqs.push((
                t,
                format!("item:{}", 1_000_000 + gen.u64(0..missing_ids)),
                false,
            ));
        } else {
            // Cold items get a fair share so some miss during the outage.
            let id = if gen.f64() < 0.3 {
                gen.pick(0..COLD)
            } else {
                gen.pick(0..EXISTING)
            };
            reqs.push((t, format!("item:{id}"), true));
        }
    }
    let runs: Vec<(PenRun, Option<Sim>)> = (0..VARIANTS.len())
        .map(|v| pen_variant(p, seed, v, &reqs, duration))
        .collect();
    let r = |v: usize| &runs[v].0;
    let missing = r(0).missing_requests.max(1);
    let fp_measured = 100.0 * r(2).filter_passed_missing as f64 / missing as f64;
    for (v, name) in VARIANTS.iter().enumerate() {
        out.metric(
            &format!("DB reads: {name}"),
            r(v).db_reads as f64,
            "queries",
        );
    }
    out.metric("Bloom false positives", fp_measured, "%");
    out.metric(
        "requests for missing ids",
        r(0).missing_requests as f64,
        "requests",
    );
    out.metric("errors during the outage", r(1).errors as f64, "requests");
    out.metric(
        "false not-found answers",
        r(1).false_not_found as f64,
        "requests",
    );
    out.check(
        "the miss marker cuts DB reads for missing ids by at least half",
        2 * r(1).db_reads_missing <= r(0).db_reads_missing && r(0).db_reads_missing > 0,
        format!(
            "{} → {} DB reads for missing ids",
            r(0).db_reads_missing,
            r(1).db_reads_missing
        ),
    );
    let target = p.get("bloom_fp");
    out.check(
        "the Bloom filter passes only its false positives (≤ 3× the rate it was sized for) and cuts DB reads for missing ids further",
        fp_measured <= 3.0 * target + 0.5 && r(2).db_reads_missing < r(1).db_reads_missing,
        format!("{fp_measured:.2}% of missing-id requests passed (sized for {target}%); {} DB reads for missing ids", r(2).db_reads_missing),
    );
    out.check(
        "a DB error is never cached as not-found: real items stay readable after the outage",
        r(1).markers_from_errors == 0 && r(1).false_not_found == 0 && r(3).false_not_found == 0,
        format!(
            "{} markers written after errors, {} real items answered 'not found'",
            r(1).markers_from_errors + r(3).markers_from_errors,
            r(1).false_not_found + r(3).false_not_found
        ),
    );
    let mut chart = Chart::line("DB queries per second", "time (s)", "queries/s");
    for (run, _) in &runs {
        if let Some(q) = &run.qps {
            chart = chart.with(q.clone());
        }
    }
    out.charts.push(chart);
    out.charts.push(
        Chart::bars("DB reads per variant", "queries", VARIANTS).with(Series::per_category(
            "DB reads",
            runs.iter().map(|(r, _)| r.db_reads as f64),
        )),
    );
    out.diagram = runs
        .into_iter()
        .nth(1)
        .and_then(|(_, s)| s)
        .and_then(|mut s| s.take_diagram(0));
    out.duration_us = duration;
    out.note(format!(
        "DB reads: {} unprotected, {} with the marker, {} with the Bloom filter, {} with both.",
        r_reads(&out, 0),
        r_reads(&out, 1),
        r_reads(&out, 2),
        r_reads(&out, 3)
    ));
    out.note(format!(
        "The filter let {fp_measured:.2}% of missing-id requests through (sized for {target}%)."
    ));
    out
}

fn r_reads(o: &Outcome, v: usize) -> f64 {
    o.metric_value(&format!("DB reads: {}", VARIANTS[v]))
        .unwrap_or(0.0)
}

/// Runs the stream with variant `v` (0 none, 1 marker, 2 Bloom, 3 both).
/// Returns the figures, and the simulation when it has a diagram (variant 1).
fn pen_variant(
    p: &Params,
    seed: u64,
    v: usize,
    reqs: &[(Micros, String, bool)],
    end: Micros,
) -> (PenRun, Option<Sim>) {
    let marker = v == 1 || v == 3;
    let bloom_on = v >= 2;
    let bug = p.choice("error_policy") == 1;
    let marker_ttl = p_ms(p, "marker_ttl").max(MS) / MS;
    let outage_from = 700 * MS;
    let outage_to = outage_from + p_ms(p, "outage");
    let lat = Lat::new(around(3 * MS), around(5 * MS));
    let mut sim = Sim::new(seed, lat);
    sim.db = Database::new(lat.read, lat.write, 64);
    sim.log_execs = v == 1;
    let mut bloom = Bloom::new(EXISTING, p.get("bloom_fp") / 100.0);
    for i in 0..EXISTING {
        let key = format!("item:{i}");
        sim.seed_row(&key, &format!("data{i}"));
        bloom.add(&key);
        if i >= COLD {
            sim.redis
                .exec(0, "warmup", &["SET", &key, &format!("data{i}"), "EX", "60"]);
        }
    }
    // The ops actor takes the DB down and back up.
    let ops = sim.actor("ops", "client", None);
    sim.start(ops, outage_from);
    for (t, _, _) in reqs {
        let a = sim.actor("app", "client", None);
        sim.start(a, *t);
    }
    let mut run = PenRun::default();
    let mut meter = Meter::new(50 * MS);
    // Diagram picks: the first missing id, its first repeat, the first real
    // item that failed in the outage, and that item after it.
    let mut first_missing: Option<String> = None;
    let mut repeat_drawn = false;
    let mut outage_item: Option<String> = None;
    let mut after_drawn = false;
    let mut lanes = 0;
    let mut errored: Vec<String> = Vec::new();
    while let Some((a, step, got)) = sim.next_step(end + SEC) {
        let now = sim.now();
        if a == ops {
            match got {
                Got::Start => {
                    sim.db.down = true;
                    sim.act(ops, Act::Pause(outage_to - outage_from, String::new()));
                }
                _ => sim.db.down = false,
            }
            continue;
        }
        let Some((_, key, exists)) = reqs.get(a - 1) else {
            continue;
        };
        let act = match (step, got) {
            (0, _) => {
                if !exists {
                    run.missing_requests += 1;
                }
                if marker && v == 1 {
                    let draw = if !exists && first_missing.is_none() {
                        first_missing = Some(key.clone());
                        true
                    } else if !exists && !repeat_drawn && first_missing.as_ref() == Some(key) {
                        repeat_drawn = true;
                        true
                    } else if *exists
                        && outage_item.is_none()
                        && (outage_from..outage_to).contains(&now)
                        && sim.peek(key).0.is_none()
                    {
                        outage_item = Some(key.clone());
                        true
                    } else {
                        *exists
                            && !after_drawn
                            && now > outage_to
                            && outage_item.as_ref() == Some(key)
                            && {
                                after_drawn = true;
                                true
                            }
                    };
                    if draw {
                        lanes += 1;
                        let name = format!("req {lanes} ({key})");
                        sim.actors[a].name = name.clone();
                        sim.actors[a].group = Some(0);
                        sim.rec(0).lane(&name, "client");
                    }
                }
                if bloom_on && !bloom.may_contain(key) {
                    run.rejected_by_filter += 1;
                    sim.note_local(
                        a,
                        now,
                        now + 20,
                        "Bloom filter: certainly absent → 404".into(),
                    );
                    Act::Done
                } else {
                    if bloom_on && !exists {
                        run.filter_passed_missing += 1;
                    }
                    Act::Cmd(cmd(&["GET", key]))
                }
            }
            (1, Got::Reply(Frame::Bulk(b))) => {
                if b == MISS.as_bytes() {
                    run.marker_hits += 1;
                    if *exists {
                        run.false_not_found += 1;
                    }
                }
                Act::Done
            }
            (1, _) => {
                run.db_reads += 1;
                if !exists {
                    run.db_reads_missing += 1;
                }
                meter.add(now, 1.0);
                Act::Read(key.clone())
            }
            (2, Got::Row(Some(row))) => Act::Cmd(cmd(&["SET", key, &row.value, "EX", "60"])),
            (2, Got::Row(None)) if marker => {
                Act::Cmd(cmd(&["SET", key, MISS, "PX", &marker_ttl.to_string()]))
            }
            (2, Got::DbDown) => {
                run.errors += 1;
                errored.push(key.clone());
                if marker && bug {
                    run.markers_from_errors += 1;
                    Act::Cmd(cmd(&["SET", key, MISS, "PX", &marker_ttl.to_string()]))
                } else {
                    sim.note_local(
                        a,
                        now,
                        now + 20,
                        "DB error: answer 503, cache nothing".into(),
                    );
                    Act::Done
                }
            }
            _ => Act::Done,
        };
        sim.act(a, act);
    }
    sim.finish(end);
    run.qps = Some(meter.rate(VARIANTS[v], end));
    if v != 1 {
        return (run, None);
    }
    // Marks for the drawn requests.
    if let Some(k) = &first_missing {
        if let Some(at) = first_set_of(&sim, k) {
            sim.mark(
                0,
                at,
                "redis",
                "good",
                format!(
                    "no such row: a short-lived miss marker for {k} keeps its repeats off the DB"
                ),
            );
        }
    }
    if let Some(k) = &outage_item {
        if bug {
            if let Some(at) = first_set_of(&sim, k) {
                sim.mark(0, at, "redis", "bad", format!("the DB error is cached as not-found: {k} exists but will be answered 404 until the marker expires"));
            }
        } else {
            sim.mark(
                0,
                outage_from,
                "db",
                "info",
                "the DB goes down: queries fail".to_string(),
            );
            sim.mark(0, outage_to, "db", "good", format!("the DB is back; nothing was cached for {k} during the outage, so it loads normally"));
        }
    }
    (run, Some(sim))
}

/// When the first SET of `key` ran (execs are logged for variant 1).
fn first_set_of(sim: &Sim, key: &str) -> Option<Micros> {
    sim.execs
        .iter()
        .find(|e| {
            e.args.first().is_some_and(|c| c == "SET") && e.args.get(1).is_some_and(|k| k == key)
        })
        .map(|e| e.at)
}

#[cfg(test)]
mod tests {
    use super::super::passes;
    use super::*;
    use crate::testing::run as with;

    #[test]
    fn bloom_filter_rates() {
        let mut b = Bloom::new(1000, 0.01);
        for i in 0..1000 {
            b.add(&format!("item:{i}"));
        }
        assert!(
            (0..1000).all(|i| b.may_contain(&format!("item:{i}"))),
            "no false negatives"
        );
        let fp = (0..20000)
            .filter(|i| b.may_contain(&format!("other:{i}")))
            .count();
        assert!((100..=400).contains(&fp), "{fp} of 20000");
        assert_eq!(b.k, 7);
    }

    #[test]
    fn penetration() {
        passes(&PENETRATION);
        let o = with(&PENETRATION, 1, &[]);
        let none = o.metric_value("DB reads: no protection").unwrap();
        let both = o.metric_value("DB reads: Bloom + marker").unwrap();
        assert!(none > 5.0 * both, "{none} vs {both}");
        let o = with(&PENETRATION, 1, &[("error_policy", "cache-as-miss")]);
        assert!(o.metric_value("false not-found answers").unwrap() > 0.0);
        assert!(!o.passed());
    }
}
