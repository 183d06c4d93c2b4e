//! Cluster scenarios (issue 6): a hot key saturating one master and what spreads it (suffixed copies, replica reads, an L1), and hash tags that pile a tenant into one slot, with CROSSSLOT and the redirects and stall of resharding that slot.
//!
//! Both run the simulated cluster of `cluster/sim.rs`: every node is a real
//! engine in cluster mode, so MOVED, ASK and CROSSSLOT are the nodes' own
//! replies, and a node serves one command at a time (`command_us`), so a
//! node given more than its share of traffic queues it. Each outcome
//! carries the slot map as strips: one row whose cells name each slot's
//! owner, and heat rows (levels 0..4, logarithmic in the slot's hits or keys)
//! so a view can draw 16384 cells without reading the engines.

use super::kernel::{reply_text, MS, SEC};
use super::outcome::{Chart, Outcome, Series, Strip, StripRow};
use super::zipf::Zipf;
use super::{ParamSpec, Params, Scenario, ScenarioInfo};
use crate::cluster::{Cluster, SimClient, SimOptions};
use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_engine::Frame;

pub const CLUSTER_HOT_KEY: Scenario = Scenario {
    info: hot_info,
    run: hot_run,
};

pub const CLUSTER_HASH_TAGS: Scenario = Scenario {
    info: tags_info,
    run: tags_run,
};

const MASTERS: usize = 3;
/// Service time of one command on a node: 100k ops/s per node.
const COMMAND_US: u64 = 10;
/// Keys of the long tail behind the hot key.
const ITEMS: u64 = 400;
/// Application pods, each with its own L1 in the l1-cache variant.
const PODS: usize = 4;
const HEAT_LEGEND: [&str; 5] = ["none", "few", "some", "many", "hottest"];

fn args(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.to_vec()).collect()
}

/// Heat level 0..4 of `v` against the hottest `max`, logarithmic so a Zipf
/// tail stays visible next to one hot slot.
pub fn heat_level(v: u64, max: u64) -> u8 {
    if v == 0 {
        0
    } else if max <= 1 {
        4
    } else {
        let l = (3.0 * (v as f64).ln() / (max as f64).ln()).floor();
        1 + (l.clamp(0.0, 3.0) as u8)
    }
}

/// A strip row of heat levels from per-slot counts.
fn heat_row(label: &str, counts: &[u64]) -> StripRow {
    let max = counts.iter().copied().max().unwrap_or(0);
    StripRow {
        label: label.to_string(),
        cells: counts.iter().map(|&c| heat_level(c, max)).collect(),
    }
}

/// One row whose cells are each slot's owner as node 0 sees it (the last
/// legend entry for an unassigned slot).
fn owner_row(cluster: &Cluster, label: &str) -> StripRow {
    let view = cluster.view(0);
    StripRow {
        label: label.to_string(),
        cells: (0..SLOTS as u16)
            .map(|s| view.owner(s).map_or(MASTERS as u8, |o| o as u8))
            .collect(),
    }
}

fn owner_legend() -> Vec<String> {
    let mut l: Vec<String> = (0..MASTERS)
        .map(|i| format!("node {i} (:{})", 7000 + i))
        .collect();
    l.push("unassigned".into());
    l
}

/// Keyed commands served per slot, summed over every node.
fn slot_hit_counts(cluster: &Cluster) -> Vec<u64> {
    let mut out = vec![0u64; SLOTS];
    for i in 0..cluster.nodes.len() {
        for (&s, &h) in cluster.slot_hits(i) {
            out[s as usize] += h;
        }
    }
    out
}

fn p99(lat: &mut [u64]) -> u64 {
    if lat.is_empty() {
        return 0;
    }
    lat.sort_unstable();
    lat[(lat.len() * 99 / 100).min(lat.len() - 1)]
}

// ---------------------------------------------------------------- cluster-hot-key

const MITIGATIONS: &[&str] = &["none", "suffixed-copies", "read-replicas", "l1-cache"];

fn hot_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "cluster-hot-key",
        group: "topology",
        title: "A hot key in a cluster: one node saturated",
        claim: "A cluster spreads keys, not requests: one hot key sends its traffic to one master while the others idle; suffixed copies, reads from replicas or an application-side L1 cut the hottest node's share.",
        look_for: "The same request stream (one hot key plus a Zipf tail) runs four times over three masters. Without a mitigation the owner of the hot key's slot serves most commands and its queue grows. Copies under different hash tags land on different masters; replicas with READONLY halve the hot master's reads; an L1 in the application answers most reads before they reach Redis. Note what each costs: a write must touch every copy, replicas and the L1 serve stale data for a while.",
        params: vec![
            ParamSpec::choice("mitigation", 1, MITIGATIONS, "which variant the slot heat strip and notes feature (all four always run)"),
            ParamSpec::num("requests", 3000.0, (500.0, 20_000.0, 500.0), "requests", "requests per variant"),
            ParamSpec::num("hot_share", 0.6, (0.0, 0.95, 0.05), "", "fraction of requests that read the one hot key"),
            ParamSpec::num("copies", 8.0, (2.0, 32.0, 1.0), "copies", "suffixed copies product:hot:{0..N-1}, each under its own hash tag"),
            ParamSpec::num("rate_kops", 150.0, (10.0, 400.0, 10.0), "kops/s", "offered load; each master serves 100 kops/s"),
            ParamSpec::num("write_every", 200.0, (10.0, 5000.0, 10.0), "requests", "one request in this many rewrites the hot key"),
            ParamSpec::num("l1_ttl_ms", 5.0, (1.0, 1000.0, 1.0), "ms", "how long an L1 entry is served before it is fetched again"),
        ],
    }
}

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
    let mut pick = fastrand::Rng::with_seed(seed ^ 0x5eed_c0de);
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
            l1[pick.usize(0..PODS)].remove(&hot_key(variant, 0));
            continue;
        }
        let key = if hot {
            hot_key(variant, pick.u64(0..ncopies))
        } else {
            format!("item:{item}").into_bytes()
        };
        let now = cluster.now_us();
        let pod = pick.usize(0..PODS);
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
    let mut out = Outcome::new("cluster-hot-key", seed, p);
    let runs: Vec<HotRun> = (0..MITIGATIONS.len())
        .map(|v| run_hot_variant(v, p, seed))
        .collect();
    let featured = p.choice("mitigation").min(MITIGATIONS.len() - 1);
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
        chart = chart.with(Series::new(
            MITIGATIONS[v],
            r.ops
                .iter()
                .enumerate()
                .map(|(i, &o)| (i as f64, o as f64))
                .collect(),
        ));
    }
    out.charts.push(chart);
    let mut share = Chart::bars(
        "Hottest node's share of cluster commands",
        "share",
        MITIGATIONS,
    );
    share = share.with(Series::new(
        "hottest share",
        runs.iter()
            .enumerate()
            .map(|(v, r)| (v as f64, r.hottest_share()))
            .collect(),
    ));
    out.charts.push(share);

    for (v, r) in runs.iter().enumerate() {
        out.metric(
            &format!("hottest node share ({})", MITIGATIONS[v]),
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
            .map(|(v, r)| heat_row(MITIGATIONS[v], &r.heat))
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

// ---------------------------------------------------------------- cluster-hash-tags

const LAYOUTS: &[&str] = &["tenant-tag", "entity-tag"];
const TENANT: u32 = 42;

fn tags_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "cluster-hash-tags",
        group: "topology",
        title: "Hash tags: one tenant in one slot",
        claim: "A hash tag puts every key sharing it in one slot: tagging by a large tenant piles its keys on one master and makes its slot a single, slow unit of resharding, while tags per entity spread the tenant and still allow multi-key commands per entity.",
        look_for: "The same keys are stored twice over three masters, tagged {tenant:42} or per user. Compare keys per node. Then a multi-key command across two users gets the node's CROSSSLOT error, and one within a user's tag works. Finally the slot holding the tenant's big catalogue key is resharded while clients keep reading: ASK while its keys move, one MOVED per client when the slot changes owner, and a stall on both nodes while the big key's MIGRATE runs.",
        params: vec![
            ParamSpec::choice("layout", 0, LAYOUTS, "which layout is resharded and featured in the slot map"),
            ParamSpec::num("keys", 1500.0, (300.0, 10_000.0, 100.0), "keys", "keys stored in each layout"),
            ParamSpec::num("tenant_share", 0.4, (0.05, 0.9, 0.05), "", "fraction of the keys that belong to tenant 42"),
            ParamSpec::num("big_key_mb", 4.0, (0.0, 32.0, 0.5), "MB", "size of tenant 42's catalogue key, moved by one MIGRATE"),
            ParamSpec::num("read_gap_us", 200.0, (20.0, 5000.0, 10.0), "µs", "time between clients' reads during the resharding"),
        ],
    }
}

/// The keys of one layout: tenant 42's users' carts and profiles, and
/// other tenants'. `tenant-tag` hashes `{tenant:42}`; `entity-tag` hashes
/// the user, so a user's keys still share a slot.
fn tenant_key(layout: usize, tenant: u32, user: u64, what: &str) -> Vec<u8> {
    if layout == 0 {
        format!("{{tenant:{tenant}}}:user:{user}:{what}").into_bytes()
    } else {
        format!("tenant:{tenant}:{{user:{tenant}:{user}}}:{what}").into_bytes()
    }
}

fn big_key(layout: usize) -> Vec<u8> {
    if layout == 0 {
        format!("{{tenant:{TENANT}}}:catalog").into_bytes()
    } else {
        format!("tenant:{TENANT}:{{catalog:{TENANT}}}").into_bytes()
    }
}

/// Builds a cluster holding one layout's keys.
fn load_layout(layout: usize, p: &Params, seed: u64) -> (Cluster, SimClient, Vec<Vec<u8>>) {
    let mut cluster = Cluster::new(SimOptions::new(seed, MASTERS));
    let mut client = cluster.client();
    client.refresh(&mut cluster, 0);
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut keys = Vec::new();
    let n = p.count("keys");
    for i in 0..n {
        let tenant = if rng.f64() < p.get("tenant_share") {
            TENANT
        } else {
            rng.u32(100..1000)
        };
        let what = if i % 2 == 0 { "cart" } else { "profile" };
        let key = tenant_key(layout, tenant, i / 2, what);
        client.run(&mut cluster, &args(&[b"SET", &key, b"x"]));
        keys.push(key);
    }
    let big = vec![b'c'; (p.get("big_key_mb") * 1024.0 * 1024.0) as usize];
    client.run(&mut cluster, &args(&[b"SET", &big_key(layout), &big]));
    (cluster, client, keys)
}

fn keys_per_node(cluster: &Cluster) -> Vec<u64> {
    (0..MASTERS)
        .map(|i| cluster.keys_per_slot(i).values().map(|&c| c as u64).sum())
        .collect()
}

fn imbalance(per_node: &[u64]) -> f64 {
    let total: u64 = per_node.iter().sum();
    let max = per_node.iter().copied().max().unwrap_or(0);
    max as f64 * per_node.len() as f64 / total.max(1) as f64
}

/// What resharding the big key's slot measured.
struct Reshard {
    slot: u16,
    from: usize,
    to: usize,
    keys_moved: usize,
    big_bytes: u64,
    big_stall_us: u64,
    took_us: u64,
    moved: u64,
    ask: u64,
    max_read_us: u64,
    /// (time s, read latency ms), max per bucket.
    latency: Vec<(f64, f64)>,
    /// A slice of the story: the first ASKs, the big key's MIGRATE, a read
    /// that waited it out, the first MOVED.
    diagram: super::Diagram,
}

fn reshard(
    cluster: &mut Cluster,
    keys: &[Vec<u8>],
    layout: usize,
    p: &Params,
    seed: u64,
) -> Reshard {
    let big = big_key(layout);
    let slot = key_hash_slot(&big);
    let from = cluster.view(0).owner(slot).unwrap_or(0);
    let to = (from + 1) % MASTERS;
    // Readers: the slot's keys (the tenant's, for the tenant tag) and others.
    let in_slot: Vec<&Vec<u8>> = keys.iter().filter(|k| key_hash_slot(k) == slot).collect();
    let mut readers: Vec<SimClient> = (0..4).map(|_| cluster.client()).collect();
    for r in &mut readers {
        r.refresh(cluster, 0);
    }
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x007e_5a4d);
    let gap = p.count("read_gap_us").max(1);
    let start = cluster.now_us() + MS;
    cluster.set_now(start);
    let mut t = start;
    let mut samples: Vec<(u64, u64)> = Vec::new();
    let mut rec = super::Recorder::default();
    let lane_c = rec.lane("clients", "client");
    let lane_f = rec.lane(&format!("node {from} (source)"), "redis");
    let lane_t = rec.lane(&format!("node {to} (target)"), "redis");
    let to_addr = cluster.nodes[to].addr.clone();
    // How many of each kind of read the diagram shows.
    let (mut asks_shown, mut moved_shown, mut waits_shown) = (0, 0, 0);
    let mut stall: Option<(u64, u64)> = None;
    let mut read = |cluster: &mut Cluster,
                    readers: &mut [SimClient],
                    t: u64,
                    stall: Option<(u64, u64)>| {
        cluster.set_now(t);
        let key: Vec<u8> = if !in_slot.is_empty() && rng.bool() {
            in_slot[rng.usize(0..in_slot.len())].clone()
        } else if rng.u8(0..10) == 0 {
            big.clone()
        } else {
            keys[rng.usize(0..keys.len().max(1))].clone()
        };
        let r = rng.usize(0..readers.len());
        let (ask0, moved0) = (readers[r].stats.ask, readers[r].stats.moved);
        let o = readers[r].run(cluster, &args(&[b"EXISTS", &key]));
        samples.push((t, o.latency_us));
        let name = String::from_utf8_lossy(&key).into_owned();
        let (end, mid) = (t + o.latency_us, t + o.latency_us / 2);
        if readers[r].stats.ask > ask0 && asks_shown < 2 {
            asks_shown += 1;
            rec.msg(t, t, lane_c, lane_f, format!("EXISTS {name}"));
            rec.err(t, mid, lane_f, lane_c, format!("-ASK {slot} {to_addr}"));
            rec.msg(mid, mid, lane_c, lane_t, format!("ASKING, EXISTS {name}"));
            rec.msg(mid, end, lane_t, lane_c, reply_text(&o.reply));
            if asks_shown == 1 {
                rec.mark(t, lane_f, "info", "The key has already moved: the source answers ASK, and the client asks the target for this one command without updating its slot map.");
            }
        } else if readers[r].stats.moved > moved0 && moved_shown < 1 {
            moved_shown += 1;
            rec.msg(t, t, lane_c, lane_f, format!("EXISTS {name}"));
            rec.err(t, mid, lane_f, lane_c, format!("-MOVED {slot} {to_addr}"));
            rec.msg(
                mid,
                end,
                lane_c,
                lane_t,
                format!("CLUSTER SLOTS, EXISTS {name}"),
            );
            rec.mark(t, lane_f, "good", "The slot has changed owner: MOVED makes the client reload its slot map, so this client is redirected once.");
        } else if waits_shown < 1 && stall.is_some_and(|(a, b)| t >= a && t < b) {
            waits_shown += 1;
            let lane = if o.node == from { lane_f } else { lane_t };
            let waited = o.latency_us as f64 / MS as f64;
            rec.msg(
                t,
                end,
                lane_c,
                lane,
                format!("EXISTS {name} (answered after {waited:.1} ms)"),
            );
        }
    };
    let mut res = Reshard {
        slot,
        from,
        to,
        keys_moved: 0,
        big_bytes: 0,
        big_stall_us: 0,
        took_us: 0,
        moved: 0,
        ask: 0,
        max_read_us: 0,
        latency: Vec::new(),
        diagram: super::Diagram::default(),
    };
    for _ in 0..20 {
        t += gap;
        read(cluster, &mut readers, t, None);
    }
    if cluster.begin_migration(slot, to).is_ok() {
        loop {
            let batch = cluster.migrate_keys(slot, 1);
            let Some(m) = batch.first() else { break };
            res.keys_moved += 1;
            if m.key == big {
                res.big_bytes = m.bytes;
                res.big_stall_us = m.end_us - m.start_us;
                stall = Some((m.start_us, m.end_us));
            }
            // Clients keep reading while this key moves (at least once).
            loop {
                t += gap;
                read(cluster, &mut readers, t, stall);
                if t >= m.end_us {
                    break;
                }
            }
        }
        let _ = cluster.finish_migration(slot);
    }
    res.took_us = t - start;
    for _ in 0..200 {
        t += gap;
        read(cluster, &mut readers, t, None);
    }
    if let Some((a, b)) = stall {
        let label = format!(
            "MIGRATE {} ({} bytes)",
            String::from_utf8_lossy(&big),
            res.big_bytes
        );
        rec.local(a, b, lane_f, label.clone());
        rec.local(a, b, lane_t, format!("RESTORE ({} bytes)", res.big_bytes));
        rec.mark(a, lane_f, "bad", format!("MIGRATE is synchronous: both nodes are blocked for {:.1} ms while the big key is serialised, sent and restored, and every command to either waits.", (b - a) as f64 / MS as f64));
    }
    res.diagram = rec.take_diagram();
    res.moved = readers.iter().map(|r| r.stats.moved).sum();
    res.ask = readers.iter().map(|r| r.stats.ask).sum();
    res.max_read_us = samples.iter().map(|s| s.1).max().unwrap_or(0);
    // At most ~200 points: the worst read per bucket.
    let span = (t - start).max(1);
    let bucket = (span / 200).max(1);
    let mut points: std::collections::BTreeMap<u64, u64> = Default::default();
    for (at, l) in samples {
        let b = (at - start) / bucket;
        let e = points.entry(b).or_insert(0);
        *e = (*e).max(l);
    }
    res.latency = points
        .into_iter()
        .map(|(b, l)| ((b * bucket) as f64 / SEC as f64, l as f64 / MS as f64))
        .collect();
    res
}

fn tags_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("cluster-hash-tags", seed, p);
    let featured = p.choice("layout").min(LAYOUTS.len() - 1);
    let mut loaded: Vec<(Cluster, SimClient, Vec<Vec<u8>>)> = (0..LAYOUTS.len())
        .map(|l| load_layout(l, p, seed))
        .collect();
    let per_node: Vec<Vec<u64>> = loaded.iter().map(|(c, _, _)| keys_per_node(c)).collect();
    let mut chart = Chart::bars("Keys per node", "keys", &["node 0", "node 1", "node 2"]);
    for (l, counts) in per_node.iter().enumerate() {
        chart = chart.with(Series::new(
            LAYOUTS[l],
            counts
                .iter()
                .enumerate()
                .map(|(i, &c)| (i as f64, c as f64))
                .collect(),
        ));
    }
    out.charts.push(chart);
    let (tenant_imb, entity_imb) = (imbalance(&per_node[0]), imbalance(&per_node[1]));
    out.metric("imbalance, tenant tag (max/mean keys)", tenant_imb, "x");
    out.metric("imbalance, per-entity tag (max/mean keys)", entity_imb, "x");
    let tenant_slot = key_hash_slot(&big_key(0));
    out.check(
        "Tagging by tenant piles the tenant's keys on one master (max/mean keys per node at least 1.4) while per-entity tags stay within 15% of even",
        tenant_imb >= 1.4 && entity_imb <= 1.15,
        format!(
            "tenant tag: {:?} keys per node ({tenant_imb:.2}x, all of tenant {TENANT} in slot {tenant_slot}); per-entity: {:?} ({entity_imb:.2}x)",
            per_node[0], per_node[1]
        ),
    );

    // CROSSSLOT: a multi-key read across two users, then within one user's tag.
    let (cluster, client, _) = &mut loaded[1];
    let (a, b) = (
        tenant_key(1, TENANT, 1, "cart"),
        tenant_key(1, TENANT, 2, "cart"),
    );
    let profile = tenant_key(1, TENANT, 1, "profile");
    client.run(cluster, &args(&[b"SET", &a, b"cart-of-1"]));
    client.run(cluster, &args(&[b"SET", &profile, b"profile-of-1"]));
    let cross = client.run(cluster, &args(&[b"MGET", &a, &b]));
    let same = client.run(cluster, &args(&[b"MGET", &a, &profile]));
    let cross_text = match &cross.reply {
        Frame::Error(e) => e.clone(),
        other => reply_text(other),
    };
    out.check(
        "A multi-key command across two hash tags gets the node's CROSSSLOT error; one within a single tag is served",
        cross_text.starts_with("CROSSSLOT") && !same.reply.is_error(),
        format!(
            "MGET {} {} -> (error) {cross_text}; MGET within {{user:{TENANT}:1}} -> {}",
            String::from_utf8_lossy(&a),
            String::from_utf8_lossy(&b),
            reply_text(&same.reply).replace('\n', " ")
        ),
    );

    // Resharding the big key's slot in the featured layout.
    let before = owner_row(&loaded[featured].0, "before resharding");
    let (cluster, _, keys) = &mut loaded[featured];
    let keys = keys.clone();
    let rs = reshard(cluster, &keys, featured, p, seed);
    let after = owner_row(&loaded[featured].0, "after resharding");
    let cost = loaded[featured].0.opts.migrate;
    out.metric("keys moved with the slot", rs.keys_moved as f64, "keys");
    out.metric("ASK redirects", rs.ask as f64, "redirects");
    out.metric("MOVED redirects", rs.moved as f64, "redirects");
    out.metric(
        "big key MIGRATE stall",
        rs.big_stall_us as f64 / MS as f64,
        "ms",
    );
    out.metric(
        "worst read during resharding",
        rs.max_read_us as f64 / MS as f64,
        "ms",
    );
    out.metric("resharding took", rs.took_us as f64 / MS as f64, "ms");
    let expected_stall = cost.of(rs.big_bytes);
    out.check(
        "Resharding a slot under reads redirects clients (ASK while its keys move, MOVED once it changes owner), and the big key's MIGRATE stalls both nodes for its modelled cost, which reads to them wait out",
        rs.ask > 0
            && rs.moved > 0
            && rs.big_stall_us == expected_stall
            && rs.max_read_us + 2 * COMMAND_US >= rs.big_stall_us / 2,
        format!(
            "slot {} from node {} to node {}: {} keys, {} ASK, {} MOVED; big key {} bytes -> stall {} µs (model {} + {} ns/byte = {} µs); worst read {} µs",
            rs.slot, rs.from, rs.to, rs.keys_moved, rs.ask, rs.moved, rs.big_bytes, rs.big_stall_us,
            cost.base_us, cost.ns_per_byte, expected_stall, rs.max_read_us
        ),
    );
    out.charts.push(
        Chart::line(
            "Worst read latency during the resharding",
            "time (s)",
            "latency (ms)",
        )
        .with(Series::new("read latency", rs.latency.clone())),
    );

    out.diagram = Some(rs.diagram.clone());
    out.strips.push(Strip {
        title: format!("Slot map ({}): owner of each slot", LAYOUTS[featured]),
        legend: owner_legend(),
        rows: vec![before, after],
    });
    let heat: Vec<StripRow> = (0..LAYOUTS.len())
        .map(|l| {
            let c = &loaded[l].0;
            let mut counts = vec![0u64; SLOTS];
            for i in 0..MASTERS {
                for (&s, &k) in &c.keys_per_slot(i) {
                    counts[s as usize] += k as u64;
                }
            }
            heat_row(LAYOUTS[l], &counts)
        })
        .collect();
    out.strips.push(Strip {
        title: "Slot heat: keys per slot (log levels)".into(),
        legend: HEAT_LEGEND.iter().map(|s| s.to_string()).collect(),
        rows: heat,
    });
    out.duration_us = rs.took_us;
    out.note(format!(
        "With the tenant tag node keys were {:?}: all of tenant {TENANT}'s keys hash to slot {tenant_slot}; per-user tags gave {:?}.",
        per_node[0], per_node[1]
    ));
    out.note(format!(
        "Resharding slot {} ({}) moved {} keys in {:.1} ms with {} ASK and {} MOVED redirects; the {:.1} MB key's MIGRATE held both nodes for {:.1} ms.",
        rs.slot,
        LAYOUTS[featured],
        rs.keys_moved,
        rs.took_us as f64 / MS as f64,
        rs.ask,
        rs.moved,
        rs.big_bytes as f64 / (1024.0 * 1024.0),
        rs.big_stall_us as f64 / MS as f64
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, seed: u64, set: &[(&str, &str)]) -> Outcome {
        crate::run_with(id, seed, set).unwrap()
    }

    #[test]
    fn hot_key_checks_pass_for_seeds() {
        for seed in [1, 2, 3] {
            let out = run("cluster-hot-key", seed, &[]);
            for c in &out.checks {
                assert!(c.passed, "seed {seed}: {} ({})", c.claim, c.detail);
            }
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
    fn hash_tag_checks_pass_for_seeds() {
        for seed in [1, 2, 3] {
            let out = run("cluster-hash-tags", seed, &[]);
            for c in &out.checks {
                assert!(c.passed, "seed {seed}: {} ({})", c.claim, c.detail);
            }
            let crossslot = &out.checks[1].detail;
            assert!(
                crossslot.contains("CROSSSLOT Keys in request don't hash to the same slot"),
                "{crossslot}"
            );
            // The tenant's slot moved as a whole.
            let moved = out.metric_value("keys moved with the slot").unwrap();
            assert!(moved > 300.0, "{moved}");
            let rows = &out.strips[0].rows;
            assert_ne!(rows[0].cells, rows[1].cells);
            // The diagram shows the ASKs, the stall (marked bad) and a MOVED.
            let d = out.diagram.as_ref().unwrap();
            assert!(d
                .steps
                .iter()
                .any(|s| s.error && s.label.starts_with("-ASK ")));
            assert!(d
                .steps
                .iter()
                .any(|s| s.error && s.label.starts_with("-MOVED ")));
            assert!(d.marks.iter().any(|m| m.tone == "bad"));
            assert!(d.steps.len() < 40, "{}", d.steps.len());
        }
    }

    #[test]
    fn entity_layout_moves_only_the_big_key_slot() {
        let out = run("cluster-hash-tags", 2, &[("layout", "entity-tag")]);
        assert!(out.passed(), "{:?}", out.checks);
        let moved = out.metric_value("keys moved with the slot").unwrap();
        assert!(moved < 5.0, "{moved}");
    }

    #[test]
    fn heat_levels_are_logarithmic() {
        assert_eq!(heat_level(0, 100), 0);
        assert_eq!(heat_level(1, 100), 1);
        assert_eq!(heat_level(100, 100), 4);
        assert_eq!(heat_level(5, 1), 4);
        assert_eq!(heat_level(10, 100), 2);
    }
}
