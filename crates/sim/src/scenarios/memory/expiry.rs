//! A TTL avalanche: keys written together with one TTL expire together (a burst of active expiry and misses), and jitter spreads them.

use super::round1;
use crate::kernel::{Database, Dist, Kernel, Meter, Micros, Redis, MS, SEC};
use crate::outcome::{Chart, Outcome};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use redsim_engine::proto::resp::Frame;

pub const EXPIRY_AVALANCHE: Scenario = Scenario::new("expiry-avalanche", avalanche_run);

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
    let mut jrng = fastrand::Rng::with_seed(seeds::salted(seed, seeds::TTL_JITTER));
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
    let expired = |r: &Redis| r.engine().stats().expired_keys;
    while let Some(ev) = k.next(end) {
        let now = k.now();
        let before = expired(&r);
        r.engine_mut().advance_to(now);
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

    use crate::testing::{all_pass, failed, metric as m, run};

    #[test]
    fn jitter_spreads_the_avalanche() {
        for o in all_pass("expiry-avalanche", &[]) {
            assert!(m(&o, "peak expirations per 100 ms, same TTL") > 500.0);
            assert!(m(&o, "peak expirations ratio") >= 5.0);
        }
        // No jitter in the "jittered" run either: the claim fails.
        let o = run("expiry-avalanche", 1, &[("jitter", "0")]);
        assert!(failed(&o, "Without jitter the busiest"));
    }
}
