//! Persistence scenarios: which acknowledged writes a crash loses under RDB snapshots and each `appendfsync` setting, and what a snapshot's fork costs in copy-on-write memory.

use crate::kernel::{MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::persist::Crash;
use redsim_engine::{Engine, Frame, Options};

pub const PERSISTENCE_LOSS: Scenario = Scenario::new("persistence-loss", loss_run);

const SETTINGS: &[&str] = &["rdb (save 5 1)", "aof always", "aof everysec", "aof no"];

fn node(seed: u64, config: &[(&str, &str)], trace: usize) -> (Engine, u64) {
    let mut o = Options::new(seed);
    o.trace_capacity = trace;
    let mut e = Engine::with_options(o);
    let c = e.connect("app");
    for (k, v) in config {
        let r = e.execute_line(c, &format!("CONFIG SET {k} \"{v}\""));
        debug_assert!(!r.is_error(), "{k} {v}: {r:?}");
    }
    (e, c)
}

fn loss_run(p: &Params, seed: u64) -> Outcome {
    let crash = if p.choice("crash") == 0 {
        Crash::PowerLoss
    } else {
        Crash::Process
    };
    let crash_at = (p.get("crash_at_ms") * MS as f64) as u64;
    let gap = (SEC as f64 / p.get("writes_per_sec")).max(1.0) as u64;
    let configs: [&[(&str, &str)]; 4] = [
        &[("save", "5 1")],
        &[("appendonly", "yes"), ("appendfsync", "always")],
        &[("appendonly", "yes"), ("appendfsync", "everysec")],
        &[("appendonly", "yes"), ("appendfsync", "no")],
    ];
    let mut out = Outcome::new("persistence-loss", seed, p);
    let mut lost_per = Vec::new();
    let mut acked = 0u64;
    let mut durable_lines = Vec::new();
    for (i, cfg) in configs.iter().enumerate() {
        let (mut e, c) = node(seed, cfg, 20_000);
        let mut t = 0;
        let mut n = 0u64;
        while t < crash_at {
            e.advance_to(t);
            if e.execute_line(c, &format!("SET w:{n} {n}")) == Frame::ok() {
                n += 1;
            }
            e.before_sleep();
            t += gap;
        }
        e.advance_to(crash_at);
        acked = n;
        let mut restarted = e.crash_restart(crash);
        let rc = restarted.connect("check");
        let lost = (0..n)
            .filter(|k| restarted.execute_line(rc, &format!("EXISTS w:{k}")) != Frame::Integer(1))
            .count() as u64;
        // When each setting made data durable, from the node's own trace.
        let pts: Vec<(f64, f64)> = e
            .trace()
            .events()
            .filter_map(|ev| match &ev.event {
                redsim_engine::server::trace::Event::Persisted { what, .. }
                    if what == "fsync" || what == "rdb" =>
                {
                    Some((ev.at_us as f64 / SEC as f64, i as f64))
                }
                _ => None,
            })
            .filter(|(x, _)| *x >= (crash_at as f64 / SEC as f64) - 8.0)
            .collect();
        durable_lines.push(Series::new(SETTINGS[i], pts));
        lost_per.push(lost);
    }
    let cat: Vec<&str> = SETTINGS.to_vec();
    out.charts.push(
        Chart::bars("Acknowledged writes lost in the crash", "writes", &cat).with(
            Series::per_category(
                if crash == Crash::PowerLoss {
                    "power loss"
                } else {
                    "process crash"
                },
                lost_per.iter().map(|&l| l as f64),
            ),
        ),
    );
    out.charts.push(
        Chart::line(
            "Moments data became durable in the last 8 s (fsyncs, finished snapshots)",
            "virtual time (s)",
            "setting",
        )
        .with_all(durable_lines),
    );
    let per_sec = p.get("writes_per_sec");
    for (i, l) in lost_per.iter().enumerate() {
        out.metric(&format!("lost: {}", SETTINGS[i]), *l as f64, "writes");
    }
    out.metric("acknowledged writes", acked as f64, "writes");
    let (rdb, always, everysec, no) = (lost_per[0], lost_per[1], lost_per[2], lost_per[3]);
    match crash {
        Crash::PowerLoss => {
            out.check(
                "appendfsync always loses nothing",
                always == 0,
                format!("{always} lost"),
            );
            out.check(
                "everysec loses at most about two seconds of writes",
                everysec as f64 <= 2.0 * per_sec + 1.0,
                format!("{everysec} lost at {per_sec} writes/s"),
            );
            out.check(
                "appendfsync no and RDB lose more than everysec",
                no >= everysec && rdb >= everysec,
                format!("no: {no}, rdb: {rdb}, everysec: {everysec}"),
            );
        }
        Crash::Process => {
            out.check(
                "with AOF on, a process crash loses nothing acknowledged",
                always + everysec + no == 0,
                format!("always {always}, everysec {everysec}, no {no}"),
            );
            out.check(
                "RDB still loses what came after the last fork",
                rdb > 0,
                format!("{rdb} lost"),
            );
        }
    }
    out.note(format!(
        "{acked} writes acknowledged before the crash at {:.1} s; lost: rdb {rdb}, always {always}, everysec {everysec}, no {no}.",
        crash_at as f64 / SEC as f64
    ));
    // Copy-on-write: the same snapshot under rising write rates.
    let rates = [0u64, 1_000, 5_000, 20_000];
    let cow: Vec<(f64, f64)> = rates
        .iter()
        .enumerate()
        .map(|(i, &rate)| (i as f64, cow_bytes(seed, rate) as f64 / (1 << 20) as f64))
        .collect();
    out.metric("fork COW at 20k writes/s", cow[3].1, "MiB");
    out.check(
        "the fork's copy-on-write grows with the write rate during the snapshot",
        cow.windows(2).all(|w| w[1].1 >= w[0].1) && cow[3].1 > cow[0].1,
        format!(
            "{:.1} / {:.1} / {:.1} / {:.1} MiB",
            cow[0].1, cow[1].1, cow[2].1, cow[3].1
        ),
    );
    out.charts.push(
        Chart::bars(
            "Copy-on-write during one BGSAVE (4,000 keys of 1 KB)",
            "MiB copied",
            &["idle", "1k writes/s", "5k writes/s", "20k writes/s"],
        )
        .with(Series::new("COW", cow)),
    );
    out.duration_us = crash_at;
    out
}

/// Keys of 1 KB in the copy-on-write experiment.
const KEYS: u32 = 4_000;

/// COW bytes of one BGSAVE of a 4k-key dataset while writes hit random keys at `rate`/s.
fn cow_bytes(seed: u64, rate: u64) -> u64 {
    let (mut e, c) = node(seed, &[], 0);
    let value = "x".repeat(1000);
    for i in 0..KEYS {
        e.execute(
            c,
            &[
                b"SET".to_vec(),
                format!("k{i}").into_bytes(),
                value.clone().into_bytes(),
            ],
        );
    }
    // Any save rule turns on the change tracking the child's COW needs.
    e.execute_line(c, "CONFIG SET save \"3600 1000000\"");
    e.execute_line(c, "BGSAVE");
    let mut rng = fastrand::Rng::with_seed(seed);
    let start = e.now_us();
    let mut t = start;
    let gap = SEC.checked_div(rate).unwrap_or(u64::MAX);
    loop {
        let done = e.execute_line(c, "INFO persistence");
        let text = match &done {
            Frame::Verbatim(_, b) | Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        };
        if text.contains("rdb_bgsave_in_progress:0") {
            return text
                .lines()
                .find_map(|l| l.strip_prefix("rdb_last_cow_size:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
        }
        t = t.saturating_add(gap.min(10 * MS));
        e.advance_to(t);
        if rate > 0 {
            let k = rng.u32(0..KEYS);
            e.execute_line(c, &format!("SET k{k} y"));
        }
        if t - start > 60 * SEC {
            return 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::pass_for;

    #[test]
    fn claims_hold_for_both_crash_kinds() {
        for crash in ["power-loss", "process"] {
            pass_for(1..=2, "persistence-loss", &[("crash", crash)]);
        }
    }
}
