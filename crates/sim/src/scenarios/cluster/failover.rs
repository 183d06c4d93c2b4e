//! The cluster-failover scenario: a master with a replica dies under steady writes; the cluster bus finds out (PFAIL, FAIL), the replica wins an election and takes the slots, and the unavailability window and the acknowledged writes lost are measured, with the window swept over `cluster-node-timeout`.
//!
//! It runs the simulated cluster of [`crate::cluster`] (three masters, one
//! replica each, real engines on the real replication stream), so every
//! step is the bus' own: pings unanswered for the node timeout flag PFAIL,
//! failure reports from a majority of masters flag FAIL, the replica waits
//! `500 ms + random(0..500 ms) + rank * 1 s`, asks for votes and takes over.

use crate::cluster::{BusWhat, Cluster, SimOptions};
use crate::kernel::{Recorder, MS, SEC};
use crate::outcome::{Chart, Outcome, Series, Strip, StripRow};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_engine::Frame;

pub const CLUSTER_FAILOVER: Scenario = Scenario::new("cluster-failover", run);

const MASTERS: usize = 3;
/// The master that dies, and its replica.
const VICTIM: usize = 0;
const REPLICA: usize = 3;
/// Node timeouts the window is measured for, in ms.
const SWEEP_MS: [i64; 5] = [1000, 2000, 5000, 10_000, 15_000];

/// What one run measured.
struct Run {
    /// From the crash to the first acknowledged write on the victim's slots.
    window_us: u64,
    /// Virtual time the run covered.
    duration_us: u64,
    /// When each phase happened, µs after the crash.
    pfail_us: Option<u64>,
    fail_us: Option<u64>,
    vote_us: Option<u64>,
    promoted_us: Option<u64>,
    /// CLUSTERDOWN answers, and the span between the first and the last.
    clusterdown: u64,
    clusterdown_span_us: u64,
    /// Writes acknowledged to the victim's slots, and how many of those the new master lacks.
    acked_victim: u64,
    lost: u64,
    /// Acknowledged writes to the victim's slots whose stream had not
    /// reached the replica when the master died.
    on_the_link: u64,
    acked: u64,
    refused: u64,
    owner_before: StripRow,
    owner_after: StripRow,
    /// Per 500 ms bucket: (ok, clusterdown, refused), from the crash - 1 s.
    buckets: Vec<(f64, f64, f64, f64)>,
    diagram: Option<crate::outcome::Diagram>,
    notes: Vec<String>,
}

fn owner_row(cluster: &Cluster, observer: usize, label: &str) -> StripRow {
    let view = cluster.view(observer);
    let total = cluster.nodes.len() as u8;
    StripRow {
        label: label.to_string(),
        cells: (0..SLOTS as u16)
            .map(|s| view.owner(s).map_or(total, |o| o as u8))
            .collect(),
    }
}

fn is_victim_slot(slot: u16) -> bool {
    let (a, b) = crate::cluster::even_ranges(MASTERS)[VICTIM];
    (a..=b).contains(&slot)
}

fn simulate(p: &Params, seed: u64, timeout_ms: i64, rate: f64, record: bool) -> Run {
    let mut opts = SimOptions::new(seed, MASTERS);
    opts.replicas_per_master = 1;
    opts.repl_link_us = (p.get("repl_lag_ms") * MS as f64) as u64;
    opts.config.cluster_node_timeout = timeout_ms;
    opts.config.cluster_require_full_coverage = p.count("full_coverage") == 1;
    let mut cluster = Cluster::new(opts);
    let mut client = cluster.client();
    client.refresh(&mut cluster, 1);
    let owner_before = owner_row(&cluster, 1, "before");
    let start = cluster.now_us();
    let crash_at = start + (p.get("crash_at_ms") * MS as f64) as u64;
    let rejoin_after = (p.get("rejoin_after_ms") * MS as f64) as u64;
    let gap = ((SEC as f64) / rate.max(1.0)) as u64;
    let mut rec = Recorder {
        step_cap: 300,
        ..Recorder::default()
    };
    let client_lane = rec.lane("client", "client");
    let lanes: Vec<usize> = (0..cluster.nodes.len())
        .map(|i| {
            let role = if i < MASTERS { "master" } else { "replica" };
            rec.lane(&format!("node {i} :{} ({role})", 7000 + i), "redis")
        })
        .collect();
    let mut acked: Vec<(Vec<u8>, u64)> = Vec::new();
    let mut run = Run {
        window_us: 0,
        duration_us: 0,
        pfail_us: None,
        fail_us: None,
        vote_us: None,
        promoted_us: None,
        clusterdown: 0,
        clusterdown_span_us: 0,
        acked_victim: 0,
        lost: 0,
        on_the_link: 0,
        acked: 0,
        refused: 0,
        owner_before,
        owner_after: StripRow {
            label: String::new(),
            cells: Vec::new(),
        },
        buckets: Vec::new(),
        diagram: None,
        notes: Vec::new(),
    };
    let mut crashed = false;
    let mut rejoin_at: Option<u64> = None;
    let mut rejoined_at: Option<u64> = None;
    let mut first_down: Option<u64> = None;
    let mut last_down = 0;
    let mut recovered: Option<u64> = None;
    let mut t = start;
    let mut n = 0u64;
    let bucket_us = 500 * MS;
    let bucket_of = |at: u64| ((at + SEC).saturating_sub(crash_at) / bucket_us) as usize;
    let mut shown = [false; 4];
    // Stops 2 s after the old master rejoined, or at a hard limit.
    let limit = crash_at + 20 * timeout_ms as u64 * MS + 60 * SEC;
    while t < limit && rejoined_at.is_none_or(|r| t < r + 2 * SEC) {
        if !crashed && t >= crash_at {
            cluster.set_now(crash_at);
            cluster.kill_node(VICTIM);
            crashed = true;
            if record {
                rec.local(crash_at, crash_at + 10 * MS, lanes[VICTIM], "crash");
            }
        }
        if let (Some(at), None) = (rejoin_at, rejoined_at) {
            if t >= at {
                cluster.set_now(at);
                cluster.restart_node(VICTIM);
                rejoined_at = Some(at);
                if record {
                    rec.local(at, at + 10 * MS, lanes[VICTIM], "back up");
                }
            }
        }
        cluster.set_now(t);
        let key = format!("order:{n}").into_bytes();
        let victim_slot = is_victim_slot(key_hash_slot(&key));
        let args = vec![b"SET".to_vec(), key.clone(), n.to_string().into_bytes()];
        let out = client.run(&mut cluster, &args);
        let b = bucket_of(t);
        if crashed && run.buckets.len() <= b {
            run.buckets.resize(b + 1, (0.0, 0.0, 0.0, 0.0));
        }
        let kind = match &out.reply {
            Frame::Simple(_) => 0,
            Frame::Error(e) if e.starts_with("CLUSTERDOWN") => 1,
            Frame::Error(e) if e.ends_with("(connection refused)") => 2,
            _ => 3,
        };
        if let Some(bk) = run.buckets.get_mut(b) {
            match kind {
                0 => bk.1 += 1.0,
                1 => bk.2 += 1.0,
                2 => bk.3 += 1.0,
                _ => {}
            }
        }
        match kind {
            0 => {
                run.acked += 1;
                if victim_slot {
                    run.acked_victim += 1;
                    acked.push((key, t + out.latency_us));
                    if crashed && recovered.is_none() {
                        recovered = Some(t);
                    }
                }
            }
            1 => {
                run.clusterdown += 1;
                first_down.get_or_insert(t);
                last_down = t;
            }
            2 => run.refused += 1,
            _ => {}
        }
        if record && crashed && kind < 3 && !shown[kind] && (kind != 0 || recovered.is_some()) {
            shown[kind] = true;
            let label = format!("SET order:{n} → {}", crate::kernel::reply_text(&out.reply));
            let lane = lanes[out.node];
            if kind == 0 {
                rec.msg(t, t + out.latency_us, client_lane, lane, label);
            } else {
                rec.msg(t, t + out.latency_us.max(MS), client_lane, lane, label)
                    .failed();
            }
        }
        if rejoin_at.is_none() {
            if let Some(e) = cluster
                .events
                .iter()
                .find(|e| matches!(e.what, BusWhat::Promoted { .. }))
            {
                rejoin_at = Some(e.at_us + rejoin_after);
            }
        }
        n += 1;
        t += gap;
    }
    cluster.advance_to(t);
    run.duration_us = t - start;
    run.window_us = recovered.map_or(t - crash_at, |r| r - crash_at);
    run.clusterdown_span_us = first_down.map_or(0, |f| last_down - f);
    run.refused = client.stats.refused;
    // Acknowledged writes the victim's slots' owner does not have now.
    let owner_now = cluster.view(1).owner(0).unwrap_or(VICTIM);
    let owner = &cluster.nodes[owner_now].engine;
    run.lost = acked.iter().filter(|(k, _)| !owner.holds_key(0, k)).count() as u64;
    // Acknowledged before the crash but arriving after it: still on the link.
    let lag = cluster.opts.repl_link_us;
    run.on_the_link = acked
        .iter()
        .filter(|&&(_, end)| end <= crash_at && end + lag > crash_at)
        .count() as u64;
    run.owner_after = owner_row(&cluster, 1, "after");
    let since = |at: u64| at.saturating_sub(crash_at);
    for e in &cluster.events {
        let at = e.at_us;
        match &e.what {
            BusWhat::Pfail { of } if *of == VICTIM => {
                run.pfail_us.get_or_insert(since(at));
            }
            BusWhat::Fail { of, .. } if *of == VICTIM => {
                run.fail_us.get_or_insert(since(at));
            }
            BusWhat::VoteRequested { .. } => {
                run.vote_us.get_or_insert(since(at));
            }
            BusWhat::Promoted { .. } => {
                run.promoted_us.get_or_insert(since(at));
            }
            _ => {}
        }
        if !record {
            continue;
        }
        let lane = lanes[e.node];
        let ms = |v: u64| format!("{:.1} s", v as f64 / SEC as f64);
        match &e.what {
            BusWhat::Pfail { of } => {
                rec.local(
                    at,
                    at + 10 * MS,
                    lane,
                    format!("node {of} fail? (no pong for the node timeout)"),
                );
            }
            BusWhat::Fail { of, reports } => {
                rec.local(
                    at,
                    at + 10 * MS,
                    lane,
                    format!("node {of} FAIL: {reports} masters agree, broadcast"),
                );
                for (i, &l) in lanes.iter().enumerate() {
                    if i != e.node && i != *of {
                        rec.msg(at, at + MS, lane, l, "FAIL");
                    }
                }
                rec.mark(at, lane, "bad", format!("FAIL {} after the crash: with full coverage required every slot answers CLUSTERDOWN", ms(since(at))));
            }
            BusWhat::ElectionScheduled { rank, delay_ms } => {
                rec.local(
                    at,
                    at + *delay_ms as u64 * MS,
                    lane,
                    format!("election in {delay_ms} ms (rank {rank})"),
                );
            }
            BusWhat::VoteRequested { epoch } => {
                // To every master but the dead one.
                for &l in lanes.iter().take(MASTERS).skip(VICTIM + 1) {
                    rec.msg(at, at + MS, lane, l, format!("AUTH_REQUEST epoch {epoch}"));
                }
            }
            BusWhat::Voted { replica, epoch } => {
                rec.msg(
                    at + MS,
                    at + 2 * MS,
                    lane,
                    lanes[*replica],
                    format!("AUTH_ACK epoch {epoch}"),
                );
            }
            BusWhat::Promoted { epoch, votes } => {
                rec.local(
                    at + 2 * MS,
                    at + 12 * MS,
                    lane,
                    format!("master: slots 0-5460, configEpoch {epoch}"),
                );
                rec.mark(
                    at + 2 * MS,
                    lane,
                    "good",
                    format!(
                        "promoted with {votes} votes {} after the crash",
                        ms(since(at))
                    ),
                );
            }
            BusWhat::Demoted { master } => {
                rec.local(at, at + 10 * MS, lane, format!("replica of node {master}"));
            }
            BusWhat::Synced { master, full } => {
                let how = if *full {
                    "full resync"
                } else {
                    "partial resync"
                };
                rec.msg(at, at + 5 * MS, lanes[*master], lane, how);
                if *full && e.node == VICTIM {
                    rec.mark(at + 5 * MS, lane, "bad", "The old master rejoins as a replica: a full resync replaces its data, and writes only it had are gone.");
                }
            }
            BusWhat::FailCleared { of } => {
                rec.local(
                    at,
                    at + 10 * MS,
                    lane,
                    format!("node {of} answers: FAIL cleared"),
                );
            }
            _ => {}
        }
    }
    if record {
        if run.lost > 0 {
            rec.mark(
                crash_at,
                lanes[VICTIM],
                "bad",
                format!(
                    "{} writes were acknowledged but still on the replication link",
                    run.lost
                ),
            );
        }
        run.diagram = Some(rec.take_diagram());
        run.notes.push(format!(
            "{} writes sent, {} acknowledged; {} answered CLUSTERDOWN and {} found the dead master's port closed.",
            n, run.acked, run.clusterdown, run.refused
        ));
        if let Some(r) = rejoined_at {
            run.notes.push(format!(
                "The old master came back {:.1} s after the crash as a replica of node {REPLICA}.",
                (r - crash_at) as f64 / SEC as f64
            ));
        }
    }
    run
}

fn secs(us: Option<u64>) -> f64 {
    us.map_or(f64::NAN, |v| v as f64 / SEC as f64)
}

fn run(p: &Params, seed: u64) -> Outcome {
    let timeout_ms = p.get("node_timeout_ms") as i64;
    let rate = p.get("writes_per_s");
    let main = simulate(p, seed, timeout_ms, rate, true);
    let mut out = Outcome::new("cluster-failover", seed, p);
    out.metric(
        "slots unavailable (dead master's)",
        main.window_us as f64 / SEC as f64,
        "s",
    );
    out.metric("acknowledged writes lost", main.lost as f64, "writes");
    out.metric("PFAIL after", secs(main.pfail_us), "s");
    out.metric("FAIL after", secs(main.fail_us), "s");
    out.metric("promotion after", secs(main.promoted_us), "s");
    out.metric("CLUSTERDOWN answers", main.clusterdown as f64, "replies");
    // The window for each node timeout, with a light probe load.
    let mut sweep = Vec::new();
    for &t in &SWEEP_MS {
        let r = if t == timeout_ms {
            main.window_us
        } else {
            simulate(p, seed, t, 50.0, false).window_us
        };
        sweep.push((t as f64 / 1000.0, r as f64 / SEC as f64));
    }
    let ordered = main.pfail_us.is_some()
        && main.pfail_us <= main.fail_us
        && main.fail_us <= main.vote_us
        && main.vote_us <= main.promoted_us;
    out.check(
        "PFAIL, then FAIL, then the election, then the promotion",
        ordered,
        format!(
            "PFAIL {:.1} s, FAIL {:.1} s, votes {:.1} s, promoted {:.1} s after the crash",
            secs(main.pfail_us),
            secs(main.fail_us),
            secs(main.vote_us),
            secs(main.promoted_us)
        ),
    );
    out.check(
        "the dead master's slots are unavailable for at least cluster-node-timeout",
        main.window_us >= timeout_ms as u64 * MS,
        format!(
            "{:.1} s unavailable with a {:.1} s node timeout",
            main.window_us as f64 / SEC as f64,
            timeout_ms as f64 / 1000.0
        ),
    );
    let grows = sweep.windows(2).all(|w| w[1].1 > w[0].1);
    out.check(
        "the window grows with cluster-node-timeout",
        grows,
        sweep
            .iter()
            .map(|(t, w)| format!("{t:.0} s → {w:.1} s"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    let taken = main.owner_after.cells.first() == Some(&(REPLICA as u8));
    out.check(
        "the replica takes over the dead master's slots",
        taken,
        match main.owner_after.cells.first() {
            Some(&o) if (o as usize) < 2 * MASTERS => {
                format!("slot 0 is owned by node {o} after (the replica is node {REPLICA})")
            }
            _ => "slot 0 has no owner after".to_string(),
        },
    );
    out.check(
        "asynchronous replication loses exactly the acknowledged writes still on the replication link at the crash",
        main.lost == main.on_the_link && main.lost < main.acked_victim,
        format!(
            "{} of {} acknowledged writes to the dead master's slots missing on the new master; {} were on the link",
            main.lost, main.acked_victim, main.on_the_link
        ),
    );
    out.charts.push(
        Chart::line(
            "Unavailability window vs cluster-node-timeout",
            "cluster-node-timeout (s)",
            "slots unavailable (s)",
        )
        .with(Series::new("window", sweep.clone())),
    );
    let at = |i: usize| i as f64 * 0.5 - 1.0;
    let series = |f: fn(&(f64, f64, f64, f64)) -> f64| -> Vec<(f64, f64)> {
        main.buckets
            .iter()
            .enumerate()
            .map(|(i, b)| (at(i), f(b)))
            .collect()
    };
    out.charts.push(
        Chart::line(
            "Writes per 500 ms around the crash",
            "seconds after the crash",
            "writes",
        )
        .with(Series::new("OK", series(|b| b.1)))
        .with(Series::new("CLUSTERDOWN", series(|b| b.2)))
        .with(Series::new("connection refused", series(|b| b.3))),
    );
    let mut legend: Vec<String> = (0..MASTERS * 2)
        .map(|i| format!("node {i} (:{})", 7000 + i))
        .collect();
    legend.push("unassigned".into());
    out.strips.push(Strip {
        title: "Slot map: owner of each slot before and after the failover".into(),
        legend,
        rows: vec![main.owner_before.clone(), main.owner_after.clone()],
    });
    out.diagram = main.diagram;
    out.notes = main.notes;
    out.note(format!(
        "With a {:.1} s node timeout the dead master's slots were unavailable for {:.1} s; {} acknowledged writes were lost.",
        timeout_ms as f64 / 1000.0,
        main.window_us as f64 / SEC as f64,
        main.lost
    ));
    out.duration_us = main.duration_us;
    out
}

#[cfg(test)]
mod tests {
    use crate::testing::{metric, pass_for};

    #[test]
    fn checks_pass_for_seeds() {
        for out in pass_for(1..=2, "cluster-failover", &[("node_timeout_ms", "2000")]) {
            // At the default 20 ms link some acknowledged writes are in flight.
            let lost = metric(&out, "acknowledged writes lost");
            assert!(lost >= 1.0, "seed {}: {lost}", out.seed);
            let w = metric(&out, "slots unavailable (dead master's)");
            assert!((2.0..10.0).contains(&w), "{w}");
        }
    }
}
