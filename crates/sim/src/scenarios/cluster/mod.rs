//! Cluster lessons: a hot key saturating one master and what spreads it, hash tags that pile a tenant into one slot (CROSSSLOT, resharding redirects and stall), and a master's failover measured against `cluster-node-timeout`; and the slot-map strips they share.
//!
//! They run the simulated cluster of [`crate::cluster`]: every node is a real
//! engine in cluster mode, so MOVED, ASK and CROSSSLOT are the nodes' own
//! replies, and a node serves one command at a time (`command_us`), so a
//! node given more than its share of traffic queues it. Each outcome
//! carries the slot map as strips: one row whose cells name each slot's
//! owner, and heat rows (levels 0..4, logarithmic in the slot's hits or keys)
//! so a view can draw 16384 cells without reading the engines.

mod failover;
mod hash_tags;
mod hot_key;

pub use failover::CLUSTER_FAILOVER;
pub use hash_tags::CLUSTER_HASH_TAGS;
pub use hot_key::CLUSTER_HOT_KEY;

use crate::cluster::Cluster;
use crate::outcome::StripRow;
use redsim_engine::cluster::SLOTS;

const MASTERS: usize = 3;
/// Service time of one command on a node: 100k ops/s per node.
const COMMAND_US: u64 = 10;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_levels_are_logarithmic() {
        assert_eq!(heat_level(0, 100), 0);
        assert_eq!(heat_level(1, 100), 1);
        assert_eq!(heat_level(100, 100), 4);
        assert_eq!(heat_level(5, 1), 4);
        assert_eq!(heat_level(10, 100), 2);
    }
}
