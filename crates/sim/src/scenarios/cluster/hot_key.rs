//! A hot key saturating the master that owns its slot, and what spreads it: suffixed copies, reads from replicas, a per-pod L1.

use super::{
    args, heat_row, owner_legend, owner_row, p99, slot_hit_counts, COMMAND_US, HEAT_LEGEND, MASTERS,
};
use crate::cluster::{Cluster, SimClient, SimOptions};
use crate::kernel::MS;
use crate::outcome::{Chart, Outcome, Series, Strip};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use crate::zipf::Zipf;
use redsim_engine::cluster::key_hash_slot;
use redsim_engine::rng::Pick;
use redsim_engine::Frame;

/// Keys of the long tail behind the hot key.
const ITEMS: u64 = 400;
/// Application pods, each with its own L1 in the l1-cache variant.
const PODS: usize = 4;

pub const CLUSTER_HOT_KEY: Scenario = Scenario::new("cluster-hot-key", hot_run);

/// What one variant measured.
struct HotRun {
    /// Commands each node served after the preload (masters, then replicas).
    ops: Vec<u64>,
    /// Requests answered by the L1 without reaching the cluster.
    l1_hits: u64,
    /// L1 reads that returned an older version than the last write.
    stale_reads: u64,
    /// Commands the hot key's writes took, and how many writes.
    write_cmds: u64,
    writes: u64,
    /// Distinct masters a hot write touched (copies: all the copies' owners).
    write_nodes: usize,
    p99_us: u64,
    window_us: u64,
    /// Per-slot keyed commands during the run.
    heat: Vec<u64>,
}

impl HotRun {
    fn total(&self) -> u64 {
        self.ops.iter().sum()
    }

    fn hottest(&self) -> (usize, u64) {
        self.ops
            .iter()
            .copied()
            .enumerate()
            .max_by_key(|&(i, v)| (v, std::cmp::Reverse(i)))
            .unwrap_or((0, 0))
    }

    fn hottest_share(&self) -> f64 {
        self.hottest().1 as f64 / self.total().max(1) as f64
    }

    /// The hottest node's busy time as a fraction of the run.
    fn hottest_load(&self) -> f64 {
        (self.hottest().1 * COMMAND_US) as f64 / self.window_us.max(1) as f64
    }
}

fn hot_key(variant: usize, copy: u64) -> Vec<u8> {
    if variant == 1 {
        format!("product:hot:{{{copy}}}").into_bytes()
    } else {
        b"product:hot".to_vec()
    }
}

fn run_hot_variant(variant: usize, p: &Params, seed: u64) -> HotRun {
    let copies = p.count("copies").max(1);
    let mut opts = SimOptions::new(seed, MASTERS);
    opts.command_us = COMMAND_US;
    if variant == 2 {
        opts.replicas_per_master = 1;
    }
    let mut cluster = Cluster::new(opts);
    let mut client: SimClient = cluster.client();
    client.refresh(&mut cluster, 0);
    // Preload: the tail and the hot key (every copy), version 0.
    for i in 1..=ITEMS {
        client.run(
            &mut cluster,
            &args(&[b"SET", format!("item:{i}").as_bytes(), b"0"]),
        );
    }
    let ncopies = if variant == 1 { copies } else { 1 };
    for c in 0..ncopies {
        client.run(&mut cluster, &args(&[b"SET", &hot_key(variant, c), b"0"]));
    }
    let replicas: Vec<Option<usize>> = (0..MASTERS)
        .map(|m| cluster.view(m).replicas_of(m).first().copied())
        .collect();
    // Reads from replicas use their own connection, marked READONLY.
    const REPLICA_CONN: u64 = 1;
    if variant == 2 {
        for r in replicas.iter().flatten() {
            cluster.send(*r, REPLICA_CONN, &args(&[b"READONLY"]));
        }
    }
    let base_ops: Vec<u64> = cluster.nodes.iter().map(|n| n.load.commands).collect();
    let base_heat = slot_hit_counts(&cluster);
    let t0 = cluster.now_us() + MS;
    let mut t = t0 as f64;
    let mean_gap = 1000.0 / p.get("rate_kops").max(1.0);
    let zipf = Zipf::new(ITEMS, 1.0).expect("ITEMS > 0");
    // The same stream for every variant: one RNG for traffic, one for choices.
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut pick = fastrand::Rng::with_seed(seeds::salted(seed, seeds::HOT_KEY_CHOICES));
    let hot_share = p.get("hot_share");
    let write_every = p.count("write_every").max(1);
    let l1_ttl = (p.get("l1_ttl_ms") * MS as f64) as u64;
    // One L1 per application pod: key -> (version, fetched at). A write
    // clears only the writing pod's entry; the others serve theirs until
    // the TTL ends.
    let mut l1: Vec<std::collections::BTreeMap<Vec<u8>, (u64, u64)>> =
        vec![Default::default(); PODS];
    let mut version = 0u64;
    let mut run = HotRun {
        ops: Vec::new(),
        l1_hits: 0,
        stale_reads: 0,
        write_cmds: 0,
        writes: 0,
        write_nodes: 1,
        p99_us: 0,
        window_us: 0,
        heat: Vec::new(),
    };
    let mut lat = Vec::new();
    let requests = p.count("requests");
    for i in 0..requests {
        t += -(1.0 - rng.f64()).ln() * mean_gap;
        cluster.set_now(t as u64);
        let hot = rng.f64() < hot_share;
        let item = zipf.sample(&mut rng);
        if hot && (i + 1) % write_every == 0 {
            // A write of the hot key: every copy is rewritten.
            version += 1;
            let v = version.to_string();
            let mut nodes = std::collections::BTreeSet::new();
            let start = cluster.now_us();
            let mut end = start;
            for c in 0..ncopies {
                let o = client.run(
                    &mut cluster,
                    &args(&[b"SET", &hot_key(variant, c), v.as_bytes()]),
                );
                nodes.insert(o.node);
                end = end.max(start + o.latency_us);
                run.write_cmds += 1;
            }
            run.writes += 1;
            run.write_nodes = run.write_nodes.max(nodes.len());
            lat.push(end - start);
            l1[pick.pick(0..PODS)].remove(&hot_key(variant, 0));
            continue;
        }
        let key = if hot {
            hot_key(variant, pick.u64(0..ncopies))
        } else {
            format!("item:{item}").into_bytes()
        };
        let now = cluster.now_us();
        let pod = pick.pick(0..PODS);
        if variant == 3 {
            if let Some(&(v, at)) = l1[pod].get(&key) {
                if now < at + l1_ttl {
                    run.l1_hits += 1;
                    if hot && v < version {
                        run.stale_reads += 1;
                    }
                    lat.push(0);
                    continue;
                }
            }
        }
        let get = args(&[b"GET", &key]);
        let master = client.slots[key_hash_slot(&key) as usize].unwrap_or(0);
        let (reply, took) = match replicas.get(master).copied().flatten() {
            Some(r) if variant == 2 && pick.bool() => {
                let s = cluster.send(r, REPLICA_CONN, &get);
                (s.reply, s.latency_us)
            }
            _ => {
                let o = client.run(&mut cluster, &get);
                (o.reply, o.latency_us)
            }
        };
        lat.push(took);
        if variant == 3 {
            let v = match &reply {
                Frame::Bulk(b) => String::from_utf8_lossy(b).parse().unwrap_or(0),
                _ => 0,
            };
            l1[pod].insert(key, (v, now));
        }
    }
    run.window_us = (t as u64).saturating_sub(t0).max(1);
    run.ops = cluster
        .nodes
        .iter()
        .zip(&base_ops)
        .map(|(n, b)| n.load.commands - b)
        .collect();
    run.ops.resize(MASTERS * 2, 0);
    run.heat = slot_hit_counts(&cluster)
        .iter()
        .zip(&base_heat)
        .map(|(a, b)| a - b)
        .collect();
    run.p99_us = p99(&mut lat);
    run
}

fn hot_run(p: &Params, seed: u64) -> Outcome {
    let mitigations = CLUSTER_HOT_KEY.info().choices("mitigation");
    let mut out = Outcome::new("cluster-hot-key", seed, p);
    let runs: Vec<HotRun> = (0..mitigations.len())
        .map(|v| run_hot_variant(v, p, seed))
        .collect();
    let featured = p.choice("mitigation").min(mitigations.len() - 1);
    let node_names = [
        "master 0",
        "master 1",
        "master 2",
        "replica 0",
        "replica 1",
        "replica 2",
    ];
    let mut chart = Chart::bars("Commands per node, per mitigation", "commands", &node_names);
    for (v, r) in runs.iter().enumerate() {
        let ops = r.ops.iter().map(|&o| o as f64);
        chart = chart.with(Series::per_category(mitigations[v], ops));
    }
    out.charts.push(chart);
    let mut share = Chart::bars(
        "Hottest node's share of cluster commands",
        "share",
        mitigations,
    );
    share = share.with(Series::per_category(
        "hottest share",
        runs.iter().map(HotRun::hottest_share),
    ));
    out.charts.push(share);

    for (v, r) in runs.iter().enumerate() {
        out.metric(
            &format!("hottest node share ({})", mitigations[v]),
            r.hottest_share() * 100.0,
            "%",
        );
    }
    let none = &runs[0];
    let (hot_node, hot_ops) = none.hottest();
    out.metric(
        "hottest node load (none)",
        none.hottest_load() * 100.0,
        "% of capacity",
    );
    out.metric("p99 latency (none)", none.p99_us as f64 / MS as f64, "ms");
    out.metric(
        "p99 latency (l1-cache)",
        runs[3].p99_us as f64 / MS as f64,
        "ms",
    );
    out.metric("L1 hits", runs[3].l1_hits as f64, "requests");
    out.metric(
        "stale L1 reads of the hot key",
        runs[3].stale_reads as f64,
        "reads",
    );
    let copies = &runs[1];
    let per_write = copies.write_cmds as f64 / copies.writes.max(1) as f64;
    out.metric("commands per hot-key write (copies)", per_write, "commands");

    let others_max = none
        .ops
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != hot_node)
        .map(|(_, &o)| o)
        .max()
        .unwrap_or(0);
    out.check(
        "Without a mitigation the hot key's master serves over half the cluster's commands and is past its capacity, while each other master serves under a quarter",
        none.hottest_share() > 0.5
            && none.hottest_load() >= 1.0
            && (others_max as f64) < 0.25 * none.total() as f64,
        format!(
            "master {hot_node}: {hot_ops} of {} commands ({:.0}%), load {:.0}% of capacity; busiest other: {others_max}",
            none.total(),
            none.hottest_share() * 100.0,
            none.hottest_load() * 100.0
        ),
    );
    for (v, what) in [
        (1, "suffixed copies"),
        (2, "reads from replicas"),
        (3, "an L1 cache"),
    ] {
        let r = &runs[v];
        out.check(
            &format!(
                "With {what} the hottest node's share of commands drops by at least a quarter"
            ),
            r.hottest_share() < 0.75 * none.hottest_share(),
            format!(
                "{:.0}% -> {:.0}%",
                none.hottest_share() * 100.0,
                r.hottest_share() * 100.0
            ),
        );
    }
    out.check(
        "An L1 keeps most reads off the cluster: the hottest node serves at most a fifth of what it served without one",
        runs[3].hottest().1 * 5 <= hot_ops,
        format!("{} -> {} commands; {} L1 hits", hot_ops, runs[3].hottest().1, runs[3].l1_hits),
    );

    // The slot map: owners, then the featured variant's heat.
    let cluster = Cluster::new(SimOptions::new(seed, MASTERS));
    out.strips.push(Strip {
        title: "Slot map: owner of each of the 16384 slots".into(),
        legend: owner_legend(),
        rows: vec![owner_row(&cluster, "owner")],
    });
    out.strips.push(Strip {
        title: "Slot heat: keyed commands per slot (log levels)".into(),
        legend: HEAT_LEGEND.iter().map(|s| s.to_string()).collect(),
        rows: runs
            .iter()
            .enumerate()
            .filter(|&(v, _)| v == featured || v == 0)
            .map(|(v, r)| heat_row(mitigations[v], &r.heat))
            .collect(),
    });
    out.duration_us = none.window_us;
    out.note(format!(
        "Without a mitigation master {hot_node} served {:.0}% of the commands at {:.0}% of its capacity; p99 latency {:.2} ms.",
        none.hottest_share() * 100.0,
        none.hottest_load() * 100.0,
        none.p99_us as f64 / MS as f64
    ));
    out.note(format!(
        "{} copies spread the hot key over {} masters, but each of the {} writes took {:.0} commands (a DEL or SET per copy).",
        p.count("copies"),
        copies.write_nodes,
        copies.writes,
        per_write
    ));
    out.note(format!(
        "Replica reads split the hot master's reads with its replica ({:.0}% hottest share); the L1 answered {} of {} requests, {} of them stale.",
        runs[2].hottest_share() * 100.0,
        runs[3].l1_hits,
        p.count("requests"),
        runs[3].stale_reads
    ));
    out
}

#[cfg(test)]
mod tests {
    use crate::testing::{all_pass, run};
    use redsim_engine::cluster::SLOTS;

    #[test]
    fn hot_key_checks_pass_for_seeds() {
        for out in all_pass("cluster-hot-key", &[]) {
            let none = out.metric_value("hottest node share (none)").unwrap();
            assert!((50.0..=100.0).contains(&none), "{none}");
            // A hot-key write rewrites every copy.
            assert_eq!(
                out.metric_value("commands per hot-key write (copies)"),
                Some(8.0)
            );
            let map = &out.strips[0].rows[0].cells;
            assert_eq!(map.len(), SLOTS);
            assert_eq!((map[0], map[5461], map[16383]), (0, 1, 2));
            assert!(out.strips[1].rows.iter().all(|r| r.cells.len() == SLOTS));
            assert!(out.strips[1].rows[0].cells.contains(&4));
        }
    }

    #[test]
    fn hot_key_without_hot_traffic_is_balanced() {
        // With no hot key the "saturated" check must fail: it can.
        let out = run(
            "cluster-hot-key",
            1,
            &[("hot_share", "0"), ("requests", "1000")],
        );
        assert!(!out.checks[0].passed, "{}", out.checks[0].detail);
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices(
            "cluster-hot-key",
            "mitigation",
            "none suffixed-copies read-replicas l1-cache",
        );
    }
}
