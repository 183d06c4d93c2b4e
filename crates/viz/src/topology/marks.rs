//! The marks drawn one by one on the per-node timelines: lifecycle, Sentinel and sync events, and the writes of a lost acknowledged write (always visible, in red).

use std::collections::BTreeMap;
use std::fmt::Write;

use redsim_sim::topology::{NodeEvent, NodeEventKind};

use super::{open_detail_group, LANE_H};
use crate::svg::{self, px, time_exact};

/// One event as a single mark.
#[derive(Debug, PartialEq)]
struct Single {
    /// `data-kind`.
    kind: &'static str,
    /// Text beside the mark (left out where it would overlap the previous one).
    label: String,
    detail: String,
    /// CSS class.
    class: &'static str,
    /// Row of the label in the lane, px from its top.
    dy: f64,
}

/// The single marks of a drawing, written as they come.
pub(super) struct Singles<'a> {
    /// Lost acknowledged writes: id to the instant they were lost.
    lost: &'a BTreeMap<u64, u64>,
    /// Where the last label on each (lane, row) ends, so labels never overlap.
    label_end: BTreeMap<(usize, i64), f64>,
    out: String,
}

impl<'a> Singles<'a> {
    pub(super) fn new(lost: &'a BTreeMap<u64, u64>) -> Singles<'a> {
        Singles {
            lost,
            label_end: BTreeMap::new(),
            out: String::new(),
        }
    }

    pub(super) fn into_svg(self) -> String {
        self.out
    }

    /// Draws `e` at `x` on the lane at `y`, if it is drawn on its own.
    pub(super) fn mark(&mut self, e: &NodeEvent, x: f64, y: f64) {
        let Some(m) = describe(e, self.lost) else {
            return;
        };
        let s = &mut self.out;
        open_detail_group(
            s,
            &format!("class=\"rs-topo-m {}\" data-kind=\"{}\"", m.class, m.kind),
            &m.detail,
        );
        // A label is left out (the mark and its title stay) where it would
        // overlap the previous one on the same lane and row.
        let label_end = &mut self.label_end;
        let mut label_fits = |lx: f64, row: f64| {
            let key = (e.node, row as i64);
            if label_end.get(&key).is_some_and(|end| lx < *end) {
                return false;
            }
            label_end.insert(key, lx + svg::text_width(&m.label, 10.0) + 4.0);
            true
        };
        let dy = m.dy;
        match m.kind {
            "write" | "acked" => {
                svg::rect(s, x - 1.5, y + dy, 3.0, 8.0, "");
            }
            "repointed" | "fullsync" | "partialsync" | "linkdown" | "linkpaused"
            | "linkresumed" | "appendfsync" => {
                let _ = write!(
                    s,
                    "<circle cx=\"{}\" cy=\"{}\" r=\"3\"/>",
                    px(x),
                    px(y + dy + 4.0)
                );
                if label_fits(x + 5.0, dy) {
                    svg::text(s, x + 5.0, y + dy + 8.0, "start", "", &m.label);
                }
            }
            _ => {
                svg::line(s, x, y + 1.0, x, y + LANE_H - 1.0, "");
                if label_fits(x + 3.0, dy) {
                    svg::text(s, x + 3.0, y + 10.0 + dy, "start", "", &m.label);
                }
            }
        }
        s.push_str("</g>");
    }
}

/// What a single mark shows for `e`; `None` for the events drawn otherwise
/// (dense marks, span edges without a mark).
fn describe(e: &NodeEvent, lost: &BTreeMap<u64, u64>) -> Option<Single> {
    let at = time_exact(e.at_us);
    let node = e.node;
    let lost_text = |id: &u64| {
        lost.get(id)
            .map(|l| format!(", LOST at {}", time_exact(*l)))
            .unwrap_or_default()
    };
    let (kind, label, detail, class, dy): (&str, String, String, &str, f64) = match &e.kind {
    NodeEventKind::Write { id } => (
        "write",
        String::new(),
        format!("node {node}: write {id} sent at {at}{}", lost_text(id)),
        "rs-topo-lostw",
        4.0,
    ),
    NodeEventKind::Acked { id } => (
        "acked",
        String::new(),
        format!(
            "node {node}: write {id} acknowledged at {at}{}",
            lost_text(id)
        ),
        "rs-topo-lostw",
        12.0,
    ),
    NodeEventKind::Crash { power_loss } => (
        "crash",
        if *power_loss { "power loss" } else { "crash" }.into(),
        format!(
            "node {node}: {} at {at}",
            if *power_loss {
                "power loss (unsynced AOF/RDB data gone)"
            } else {
                "process crash (the kernel keeps written data)"
            }
        ),
        "rs-topo-crash",
        0.0,
    ),
    NodeEventKind::Restart { lost_writes } => (
        "restart",
        "restart".into(),
        format!("node {node}: restarted at {at}, {lost_writes} write(s) missing after reload"),
        "rs-topo-restart",
        0.0,
    ),
    NodeEventKind::Sdown { sentinel } => (
        "sdown",
        format!("SDOWN S{sentinel}"),
        format!("node {node}: sentinel {sentinel} marks it subjectively down at {at}"),
        "rs-topo-sdownm",
        0.0,
    ),
    NodeEventKind::Odown { sentinel, agree } => (
        "odown",
        "ODOWN".into(),
        format!("node {node}: objectively down for sentinel {sentinel} at {at} ({agree} sentinels agree)"),
        "rs-topo-odownm",
        10.0,
    ),
    NodeEventKind::TryFailover { sentinel, epoch } => (
        "tryfailover",
        format!("S{sentinel} asks e{epoch}"),
        format!("sentinel {sentinel} starts a failover election for epoch {epoch} at {at}"),
        "rs-topo-electedm",
        20.0,
    ),
    NodeEventKind::ElectionFailed { sentinel, epoch } => (
        "electionfailed",
        format!("no majority e{epoch}"),
        format!("sentinel {sentinel} got no majority for epoch {epoch} at {at}: no failover, retried after failover-timeout"),
        "rs-topo-odownm",
        20.0,
    ),
    NodeEventKind::NoGoodReplica { sentinel } => (
        "nogoodreplica",
        "no good replica".into(),
        format!("sentinel {sentinel} found no replica fit to promote at {at}"),
        "rs-topo-odownm",
        20.0,
    ),
    NodeEventKind::SwitchMaster { epoch } => (
        "switchmaster",
        format!("+switch-master e{epoch}"),
        format!("node {node}: the sentinels now announce it as master (epoch {epoch}) at {at}"),
        "rs-topo-promotedm",
        20.0,
    ),
    NodeEventKind::ClientSwitched => (
        "clientswitched",
        "client →".into(),
        format!("node {node}: the client writes here from {at}"),
        "rs-topo-promotedm",
        30.0,
    ),
    NodeEventKind::LinkDown => (
        "linkdown",
        "link down".into(),
        format!("node {node}: its link to the master broke at {at}"),
        "rs-topo-syncm",
        22.0,
    ),
    NodeEventKind::Partitioned => (
        "partitioned",
        "partitioned".into(),
        format!("node {node}: cut off from the others at {at}"),
        "rs-topo-partm",
        0.0,
    ),
    NodeEventKind::Healed => (
        "healed",
        "healed".into(),
        format!("node {node}: the partition healed at {at}"),
        "rs-topo-restart",
        0.0,
    ),
    NodeEventKind::LinkPaused => (
        "linkpaused",
        "paused".into(),
        format!("node {node}: its replication link paused at {at}"),
        "rs-topo-syncm",
        22.0,
    ),
    NodeEventKind::LinkResumed => (
        "linkresumed",
        "resumed".into(),
        format!("node {node}: its replication link resumed at {at}"),
        "rs-topo-syncm",
        22.0,
    ),
    NodeEventKind::Appendfsync { mode } => (
        "appendfsync",
        format!("fsync {mode}"),
        format!("node {node}: appendfsync set to {mode} at {at}"),
        "rs-topo-syncm",
        30.0,
    ),
    NodeEventKind::Elected { sentinel, epoch } => (
        "elected",
        format!("S{sentinel} leads e{epoch}"),
        format!("sentinel {sentinel} elected failover leader for epoch {epoch} at {at}"),
        "rs-topo-electedm",
        0.0,
    ),
    NodeEventKind::Promoted => (
        "promoted",
        "promoted".into(),
        format!("node {node}: promoted to master at {at}"),
        "rs-topo-promotedm",
        0.0,
    ),
    NodeEventKind::Repointed { to } => (
        "repointed",
        format!("→ {to}"),
        format!("node {node}: now replicates from node {to} (at {at})"),
        "rs-topo-repointm",
        22.0,
    ),
    NodeEventKind::FullSync => (
        "fullsync",
        "full sync".into(),
        format!("node {node}: full resynchronisation (RDB transfer) at {at}"),
        "rs-topo-syncm",
        22.0,
    ),
    NodeEventKind::PartialSync => (
        "partialsync",
        "psync".into(),
        format!("node {node}: partial resynchronisation from the backlog at {at}"),
        "rs-topo-syncm",
        22.0,
    ),
    NodeEventKind::Lost { ids } => {
        let shown: Vec<String> = ids.iter().take(12).map(u64::to_string).collect();
        (
            "lost",
            format!("LOST {}", ids.len()),
            format!(
                "node {node}: {} acknowledged write(s) lost at {at}: {}{}",
                ids.len(),
                shown.join(", "),
                if ids.len() > shown.len() { ", …" } else { "" }
            ),
            "rs-topo-lostm",
            10.0,
        )
    }
        _ => return None,
    };
    Some(Single {
        kind,
        label,
        detail,
        class,
        dy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: NodeEventKind) -> NodeEvent {
        NodeEvent {
            at_us: 2_500,
            node: 1,
            kind,
        }
    }

    #[test]
    fn lost_writes_say_when_they_were_lost() {
        let lost = BTreeMap::from([(4, 9_000_000)]);
        let m = describe(&ev(NodeEventKind::Acked { id: 4 }), &lost).unwrap();
        assert_eq!((m.kind, m.class), ("acked", "rs-topo-lostw"));
        assert_eq!(
            m.detail,
            "node 1: write 4 acknowledged at 2.5 ms, LOST at 9000 ms"
        );
        assert_eq!(
            describe(&ev(NodeEventKind::Fsync { records: 1 }), &lost),
            None
        );
    }

    #[test]
    fn overlapping_labels_are_left_out_but_marks_stay() {
        let lost = BTreeMap::new();
        let mut singles = Singles::new(&lost);
        singles.mark(&ev(NodeEventKind::Promoted), 100.0, 22.0);
        singles.mark(&ev(NodeEventKind::Promoted), 102.0, 22.0);
        let s = singles.into_svg();
        assert_eq!(s.matches("data-kind=\"promoted\"").count(), 2);
        assert_eq!(s.matches(">promoted</text>").count(), 1, "{s}");
    }
}
