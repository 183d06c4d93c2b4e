//! Hash tags: a tenant's keys piled into one slot (and one node), CROSSSLOT for keys without a common tag, and the ASK redirects and stall of resharding that slot.

use super::{args, heat_row, owner_legend, owner_row, COMMAND_US, HEAT_LEGEND, MASTERS};
use crate::cluster::{Cluster, SimClient, SimOptions};
use crate::kernel::{reply_text, MS, SEC};
use crate::outcome::{Chart, Outcome, Series, Strip, StripRow};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_engine::rng::Pick;
use redsim_engine::Frame;

pub const CLUSTER_HASH_TAGS: Scenario = Scenario::new("cluster-hash-tags", tags_run);

const TENANT: u32 = 42;

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
    diagram: crate::outcome::Diagram,
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
    let mut rng = fastrand::Rng::with_seed(seeds::salted(seed, seeds::RESHARD_READS));
    let gap = p.count("read_gap_us").max(1);
    let start = cluster.now_us() + MS;
    cluster.set_now(start);
    let mut t = start;
    let mut samples: Vec<(u64, u64)> = Vec::new();
    let mut rec = crate::kernel::Recorder::default();
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
            in_slot[rng.pick(0..in_slot.len())].clone()
        } else if rng.u8(0..10) == 0 {
            big.clone()
        } else {
            keys[rng.pick(0..keys.len().max(1))].clone()
        };
        let r = rng.pick(0..readers.len());
        let (ask0, moved0) = (readers[r].stats.ask, readers[r].stats.moved);
        let o = readers[r].run(cluster, &args(&[b"EXISTS", &key]));
        samples.push((t, o.latency_us));
        let name = String::from_utf8_lossy(&key).into_owned();
        let (end, mid) = (t + o.latency_us, t + o.latency_us / 2);
        if readers[r].stats.ask > ask0 && asks_shown < 2 {
            asks_shown += 1;
            rec.msg(t, t, lane_c, lane_f, format!("EXISTS {name}"));
            rec.msg(t, mid, lane_f, lane_c, format!("-ASK {slot} {to_addr}"))
                .failed();
            rec.msg(mid, mid, lane_c, lane_t, format!("ASKING, EXISTS {name}"));
            rec.msg(mid, end, lane_t, lane_c, reply_text(&o.reply));
            if asks_shown == 1 {
                rec.mark(t, lane_f, "info", "The key has already moved: the source answers ASK, and the client asks the target for this one command without updating its slot map.");
            }
        } else if readers[r].stats.moved > moved0 && moved_shown < 1 {
            moved_shown += 1;
            rec.msg(t, t, lane_c, lane_f, format!("EXISTS {name}"));
            rec.msg(t, mid, lane_f, lane_c, format!("-MOVED {slot} {to_addr}"))
                .failed();
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
        diagram: crate::outcome::Diagram::default(),
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
    let layouts = CLUSTER_HASH_TAGS.info().choices("layout");
    let mut out = Outcome::new("cluster-hash-tags", seed, p);
    let featured = p.choice("layout").min(layouts.len() - 1);
    let mut loaded: Vec<(Cluster, SimClient, Vec<Vec<u8>>)> = (0..layouts.len())
        .map(|l| load_layout(l, p, seed))
        .collect();
    let per_node: Vec<Vec<u64>> = loaded.iter().map(|(c, _, _)| keys_per_node(c)).collect();
    let mut chart = Chart::bars("Keys per node", "keys", &["node 0", "node 1", "node 2"]);
    for (l, counts) in per_node.iter().enumerate() {
        let keys = counts.iter().map(|&c| c as f64);
        chart = chart.with(Series::per_category(layouts[l], keys));
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
        title: format!("Slot map ({}): owner of each slot", layouts[featured]),
        legend: owner_legend(),
        rows: vec![before, after],
    });
    let heat: Vec<StripRow> = (0..layouts.len())
        .map(|l| {
            let c = &loaded[l].0;
            let mut counts = vec![0u64; SLOTS];
            for i in 0..MASTERS {
                for (&s, &k) in &c.keys_per_slot(i) {
                    counts[s as usize] += k as u64;
                }
            }
            heat_row(layouts[l], &counts)
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
        layouts[featured],
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

    use crate::testing::{all_pass, run};

    #[test]
    fn hash_tag_checks_pass_for_seeds() {
        for out in all_pass("cluster-hash-tags", &[]) {
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
    fn choices_match_the_description() {
        crate::testing::assert_choices("cluster-hash-tags", "layout", "tenant-tag entity-tag");
    }
}
