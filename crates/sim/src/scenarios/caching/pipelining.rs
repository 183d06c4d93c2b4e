//! Pipelining: the same GETs sent one by one (a round trip each) and in pipelined batches (one round trip per batch plus each command's service time), swept over round-trip times.

use super::{ms, us};
use crate::kernel::{reply_text, Dist, Kernel, Link, Micros, Redis};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::Frame;

pub const PIPELINING: Scenario = Scenario::new("pipelining", pipelining_run);

/// The seeds' example: at a 0.3 ms round trip, 100 GETs one by one take
/// about 30 ms and about 0.4 ms pipelined.
const SEED_RTT: Micros = 300;
const SEED_COMMANDS: u64 = 100;
const SEED_SEQUENTIAL_MS: f64 = 30.0;
const SEED_PIPELINED_MS: f64 = 0.4;
/// How far our figures may stray from the seed's (the link jitters ±5 %).
const TOLERANCE: f64 = 0.10;

/// Round trips the chart sweeps, in µs.
const SWEEP: [Micros; 7] = [50, 100, 300, 1_000, 2_000, 5_000, 10_000];

/// A link whose one-way delay averages half of `rtt`, jittered ±5 %.
fn link(rtt: Micros) -> Link {
    let one_way = rtt / 2;
    let jitter = one_way / 10;
    Link::new(Dist::jittered(one_way - jitter / 2, jitter))
}

/// `n` GETs at round trip `rtt`, in batches of `batch`, `service` µs each in Redis.
#[derive(Clone, Copy)]
struct Job {
    rtt: Micros,
    n: u64,
    batch: u64,
    service: f64,
}

/// How long `n` GETs take when sent in batches of `batch` (1: one by one):
/// each batch travels the link once, Redis serves its commands back to back
/// (`service` each), and the replies travel back together. The commands run
/// on a real engine at the instants they reach it; `draw` records the first
/// batches in a race diagram. Returns (total time, replies that found a value).
fn time_gets(
    k: &mut Kernel<()>,
    redis: &mut Redis,
    start: Micros,
    job: Job,
    draw: Option<(usize, usize)>,
) -> (Micros, u64) {
    let Job {
        rtt,
        n,
        batch,
        service,
    } = job;
    let l = link(rtt);
    let batch = batch.clamp(1, n.max(1));
    let who = if batch == 1 {
        "one-by-one"
    } else {
        "pipelined"
    };
    let mut t = start;
    let mut found = 0;
    let mut sent = 0;
    let mut drawn = 0;
    while sent < n {
        let size = batch.min(n - sent);
        let there = t + l.delay(&mut k.rng).unwrap_or(0);
        let mut busy = there as f64;
        let mut last = Frame::Null;
        for i in sent..sent + size {
            let at = busy.round() as Micros;
            let key = format!("key:{}", i % SEED_COMMANDS);
            last = redis.exec(at, who, &["GET", &key]);
            if matches!(last, Frame::Bulk(_)) {
                found += 1;
            }
            busy += service;
        }
        let served = busy.round() as Micros;
        let back = served + l.delay(&mut k.rng).unwrap_or(0);
        if let Some((c, r)) = draw {
            if drawn < 3 {
                let label = if size == 1 {
                    format!("GET key:{sent}")
                } else {
                    format!("{size} GETs in one write")
                };
                k.rec.msg(t, there, c, r, label);
                if size > 1 {
                    k.rec
                        .local(there, served, r, format!("serves {size} commands"));
                }
                let reply = if size == 1 {
                    reply_text(&last)
                } else {
                    format!("{size} replies")
                };
                k.rec.msg(served, back, r, c, reply);
                drawn += 1;
            }
        }
        t = back;
        sent += size;
    }
    (t - start, found)
}

/// One-by-one and pipelined times of `n` GETs at round trip `rtt`, each on
/// a fresh engine holding the keys.
fn measure(seed: u64, job: Job) -> (Micros, Micros, u64) {
    let mut k: Kernel<()> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    for i in 0..SEED_COMMANDS {
        redis.exec(0, "setup", &["SET", &format!("key:{i}"), "value"]);
    }
    let (one, f1) = time_gets(&mut k, &mut redis, 0, Job { batch: 1, ..job }, None);
    let (piped, f2) = time_gets(&mut k, &mut redis, one, job, None);
    (one, piped, f1.min(f2))
}

fn pipelining_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("pipelining", seed, p);
    let rtt = us(p.get("rtt_ms")).max(1);
    let n = p.count("commands").max(1);
    let batch = p.count("batch").max(1);
    let service = p.get("service_us").max(0.0);
    let job = Job {
        rtt,
        n,
        batch,
        service,
    };
    let (one, piped, found) = measure(seed, job);
    let at_seed = Job {
        rtt: SEED_RTT,
        n: SEED_COMMANDS,
        batch: SEED_COMMANDS,
        service: 1.0,
    };
    let (seed_one, seed_piped, _) = measure(seed, at_seed);
    o.metric("one by one", ms(one as f64), "ms");
    o.metric("pipelined", ms(piped as f64), "ms");
    o.metric("speed-up", one as f64 / piped.max(1) as f64, "×");
    o.metric("round trips saved", (n - n.div_ceil(batch)) as f64, "");
    o.metric("one by one at the seed's 0.3 ms", ms(seed_one as f64), "ms");
    o.metric(
        "pipelined at the seed's 0.3 ms",
        ms(seed_piped as f64),
        "ms",
    );
    // The sweep: both ways at every round trip, same commands and batch.
    let sweep: Vec<(Micros, Micros, Micros)> = SWEEP
        .iter()
        .map(|&r| {
            let (a, b, _) = measure(seed, Job { rtt: r, ..job });
            (r, a, b)
        })
        .collect();
    let savings: Vec<f64> = sweep
        .iter()
        .map(|&(_, a, b)| ms(a as f64 - b as f64))
        .collect();
    let grows = savings.windows(2).all(|w| w[1] > w[0]);
    o.check(
        "Pipelining's saving grows with the round trip: it removes round trips, not work",
        grows,
        format!(
            "saved {} ms at round trips of {} ms",
            savings
                .iter()
                .map(|s| format!("{s:.2}"))
                .collect::<Vec<_>>()
                .join(", "),
            SWEEP
                .iter()
                .map(|r| format!("{}", ms(*r as f64)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    let near = |got: f64, want: f64| (got - want).abs() <= TOLERANCE * want;
    let (s1, s2) = (ms(seed_one as f64), ms(seed_piped as f64));
    o.check(
        "At the seed's 0.3 ms round trip, 100 GETs take about 30 ms one by one and 0.4 ms pipelined (within 10%)",
        near(s1, SEED_SEQUENTIAL_MS) && near(s2, SEED_PIPELINED_MS),
        format!("{s1:.2} ms one by one (seed: 30), {s2:.3} ms pipelined (seed: 0.4), 1 µs per command"),
    );
    let speedup = one as f64 / piped.max(1) as f64;
    o.check(
        "Batching the commands makes this run at least 10× faster than one by one",
        speedup >= 10.0 && found == n,
        format!(
            "{:.2} ms one by one vs {:.3} ms in batches of {batch} (×{speedup:.1}); {found} of {n} GETs found their value",
            ms(one as f64),
            ms(piped as f64)
        ),
    );
    let line = |name: &str, f: &dyn Fn(&(Micros, Micros, Micros)) -> Micros| {
        Series::new(
            name,
            sweep
                .iter()
                .map(|x| (ms(x.0 as f64), ms(f(x) as f64)))
                .collect(),
        )
    };
    o.charts.push(
        Chart::line(
            &format!("Time for {n} GETs by round trip"),
            "RTT (ms)",
            "ms",
        )
        .with(line("one by one", &|x| x.1))
        .with(line(&format!("pipelined, batches of {batch}"), &|x| x.2)),
    );
    o.charts.push(
        Chart::bars(
            &format!("{n} GETs at a {} ms round trip", ms(rtt as f64)),
            "ms",
            &["one by one", "pipelined"],
        )
        .with(Series::per_category(
            "total time",
            [ms(one as f64), ms(piped as f64)],
        )),
    );
    // The race diagram: the first GETs one by one, then the pipeline.
    let mut k: Kernel<()> = Kernel::new(seed);
    let (c, r) = (k.rec.lane("client", "client"), k.rec.lane("redis", "redis"));
    let mut redis = Redis::new(seed, &[]);
    for i in 0..SEED_COMMANDS {
        redis.exec(0, "setup", &["SET", &format!("key:{i}"), "value"]);
    }
    let (first, _) = time_gets(
        &mut k,
        &mut redis,
        0,
        Job {
            n: 3.min(n),
            batch: 1,
            ..job
        },
        Some((c, r)),
    );
    k.rec.mark(
        first,
        c,
        "bad",
        format!(
            "3 GETs one by one: 3 round trips, {:.2} ms",
            ms(first as f64)
        ),
    );
    let gap = first + rtt;
    let (all, _) = time_gets(&mut k, &mut redis, gap, job, Some((c, r)));
    k.rec.mark(
        gap + all,
        c,
        "good",
        format!(
            "{n} GETs in batches of {batch}: {} round trips, {:.2} ms",
            n.div_ceil(batch),
            ms(all as f64)
        ),
    );
    o.diagram = Some(k.rec.take_diagram());
    o.duration_us = gap + all;
    o.note(format!(
        "{n} GETs at a {} ms round trip: {:.2} ms one by one, {:.3} ms in batches of {batch} (×{speedup:.0}).",
        ms(rtt as f64),
        ms(one as f64),
        ms(piped as f64)
    ));
    o.note(format!(
        "One by one pays n × (RTT + service); pipelined pays one RTT per batch plus n × service ({service} µs each here), so the gap widens with the round trip and vanishes as it shrinks to the service time."
    ));
    o.note("A pipeline is not atomic: another client's commands may run between two of its commands; MULTI/EXEC or a script is what makes a batch indivisible.");
    o
}

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use crate::testing::{failed, metric as m, run};

    #[test]
    fn pipelining_saves_round_trips() {
        all_pass("pipelining", &[]);
        all_pass(
            "pipelining",
            &[("rtt_ms", "5"), ("commands", "500"), ("batch", "50")],
        );
        let o = run("pipelining", 1, &[]);
        assert!((m(&o, "one by one") - 30.0).abs() < 3.0);
        assert!(m(&o, "pipelined") < 0.5);
        // Batches of one are no pipeline: the speed-up check fails.
        for seed in 1..=3 {
            let o = run("pipelining", seed, &[("batch", "1")]);
            assert!(failed(&o, "Batching the commands"), "seed {seed}");
        }
    }
}
