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
    /// Text beside the mark (left out where no free place is found).
    label: String,
    detail: String,
    /// CSS class.
    class: &'static str,
    /// Where the mark sits in the lane, px from its top; its label's
    /// preferred row follows from it.
    dy: f64,
}

/// An axis-aligned box, px: `x0 <= x1`, `y0 <= y1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Bbox {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Bbox {
    pub(super) fn new(x: f64, y: f64, w: f64, h: f64) -> Bbox {
        Bbox {
            x0: x,
            y0: y,
            x1: x + w,
            y1: y + h,
        }
    }

    /// The boxes share more than an edge.
    pub(super) fn overlaps(&self, o: &Bbox) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// A label's box height and its baseline below the box's top: 10 px bold
/// text rises up to 10 px above its baseline and falls 3.5 below, with a
/// little room for fonts that differ.
const LABEL_H: f64 = 13.5;
const BASELINE: f64 = 10.0;
/// Label boxes may start every [`ROW_STEP`] px down a lane, from [`ROW_TOP`].
const ROW_STEP: f64 = 6.0;
const ROW_TOP: f64 = 1.0;
/// Gap between a mark and its label.
const GAP: f64 = 3.0;
/// Gap above or below a mark or label when a label lines up with its edge.
const EDGE_GAP: f64 = 0.5;
/// Marks of one kind on one lane closer than this share one label.
const MERGE_PX: f64 = 36.0;
/// How far from its mark a label may go (px), past other marks.
const REACH: f64 = 140.0;

/// The tops a label's box may have in a lane starting at `y`: a grid, and
/// just below or above each of `edges` (the marks and labels near), so two
/// labels can stack in a gap between bands of marks that the grid would
/// straddle (the master's lane after a crash has one row of room below its
/// refused writes on the grid, two this way).
fn row_tops(y: f64, edges: &[&Bbox]) -> Vec<f64> {
    let last = LANE_H - 1.0 - LABEL_H;
    let steps = (last / ROW_STEP).floor() as usize;
    let mut tops: Vec<f64> = (0..=steps)
        .map(|k| ROW_TOP + ROW_STEP * k as f64)
        .chain(std::iter::once(last))
        .map(|t| y + t)
        .collect();
    for b in edges {
        tops.push(b.y1 + EDGE_GAP);
        tops.push(b.y0 - EDGE_GAP - LABEL_H);
    }
    tops.retain(|t| *t >= y + ROW_TOP && *t <= y + last);
    redsim_engine::sort::sort_by(&mut tops, f64::total_cmp);
    tops.dedup_by(|a, b| (*a - *b).abs() < 0.25);
    tops
}

/// The width of a label in the marks' 10 px bold font, generous: wider
/// than [`crate::svg::text_width`] guesses, since a label must not run
/// into what is beside it whatever the font.
fn label_width(text: &str) -> f64 {
    text.chars()
        .map(|c| match c {
            'W' | 'M' | 'm' | 'w' => 11.0,
            'A'..='Z' | '+' | '→' | '×' => 8.6,
            '0'..='9' => 7.4,
            'i' | 'l' | 'j' | '.' | ',' | ':' | ' ' => 3.8,
            't' | 'f' | 'r' | '-' => 5.2,
            _ => 7.2,
        })
        .sum::<f64>()
        + 2.0
}

/// A mark waiting for its label's place.
struct Pending {
    node: usize,
    kind: &'static str,
    /// The group's opening tag and the mark's shape.
    svg: String,
    /// The mark's box, and the lane's top.
    mark: Bbox,
    lane_y: f64,
    label: String,
    /// Where the label's box would best start, px below the lane's top.
    pref_top: f64,
}

/// The single marks of a drawing: each mark's shape is an obstacle, then
/// every label is placed in the first free spot near its mark (its row or
/// another, right of the mark or left of it) that overlaps no other label
/// and no mark, dense ones included; a label with no free spot is left out
/// (the mark and its title stay). Marks of one kind close together on one
/// lane (three sentinels' SDOWN) share one label.
pub(super) struct Singles<'a> {
    /// Lost acknowledged writes: id to the instant they were lost.
    lost: &'a BTreeMap<u64, u64>,
    /// Where labels may go horizontally (the plot).
    x_min: f64,
    x_max: f64,
    pending: Vec<Pending>,
    /// Every mark's box, per lane.
    pub(super) obstacles: BTreeMap<usize, Vec<Bbox>>,
    /// The single marks' boxes, per lane: where labels may line up beside.
    edges: BTreeMap<usize, Vec<Bbox>>,
    /// The labels placed, per lane, with their text.
    pub(super) placed: BTreeMap<usize, Vec<Bbox>>,
    pub(super) texts: Vec<String>,
}

impl<'a> Singles<'a> {
    pub(super) fn new(lost: &'a BTreeMap<u64, u64>, x_min: f64, x_max: f64) -> Singles<'a> {
        Singles {
            lost,
            x_min,
            x_max,
            pending: Vec::new(),
            obstacles: BTreeMap::new(),
            edges: BTreeMap::new(),
            placed: BTreeMap::new(),
            texts: Vec::new(),
        }
    }

    /// A mark drawn elsewhere (a dense bin) that labels must keep clear of.
    pub(super) fn obstacle(&mut self, node: usize, b: Bbox) {
        self.obstacles.entry(node).or_default().push(b);
    }

    /// Notes `e` at `x` on the lane at `y`, if it is drawn on its own.
    pub(super) fn mark(&mut self, e: &NodeEvent, x: f64, y: f64) {
        let Some(m) = describe(e, self.lost) else {
            return;
        };
        let mut s = String::new();
        open_detail_group(
            &mut s,
            &format!("class=\"rs-topo-m {}\" data-kind=\"{}\"", m.class, m.kind),
            &m.detail,
        );
        let dy = m.dy;
        let mark = match m.kind {
            "write" | "acked" => {
                svg::rect(&mut s, x - 1.5, y + dy, 3.0, 8.0, "");
                Bbox::new(x - 1.5, y + dy, 3.0, 8.0)
            }
            "repointed" | "fullsync" | "partialsync" | "linkdown" | "linkpaused"
            | "linkresumed" | "appendfsync" => {
                let _ = write!(
                    s,
                    "<circle cx=\"{}\" cy=\"{}\" r=\"3\"/>",
                    px(x),
                    px(y + dy + 4.0)
                );
                Bbox::new(x - 3.0, y + dy + 1.0, 6.0, 6.0)
            }
            _ => {
                svg::line(&mut s, x, y + 1.0, x, y + LANE_H - 1.0, "");
                Bbox::new(x - 1.5, y + 1.0, 3.0, LANE_H - 2.0)
            }
        };
        self.obstacle(e.node, mark);
        self.edges.entry(e.node).or_default().push(mark);
        self.pending.push(Pending {
            node: e.node,
            kind: m.kind,
            svg: s,
            mark,
            lane_y: y,
            label: m.label,
            pref_top: ROW_TOP + dy,
        });
    }

    /// The marks with their labels placed, as SVG. The failover's story
    /// (crash, SDOWN, ODOWN, LOST, +switch-master, promotion) is placed
    /// first, so a crowd of lesser labels cannot take its spots.
    pub(super) fn draw_all(&mut self) -> String {
        let pending = std::mem::take(&mut self.pending);
        let labels = merged_labels(&pending);
        let mut order: Vec<usize> = (0..pending.len()).collect();
        redsim_engine::sort::sort_by_key(&mut order, |&i| (rank(pending[i].kind), i));
        let mut spots = vec![None; pending.len()];
        for i in order {
            if let Some(l) = labels[i].as_deref() {
                spots[i] = self.place(&pending[i], l);
            }
        }
        let mut out = String::new();
        for ((p, label), spot) in pending.iter().zip(&labels).zip(spots) {
            out.push_str(&p.svg);
            if let (Some(text), Some((b, anchor_x, anchor))) = (label, spot) {
                svg::text(&mut out, anchor_x, b.y0 + BASELINE, anchor, "", text);
                self.texts.push(text.clone());
            }
            out.push_str("</g>");
        }
        out
    }

    /// A free spot for `label` by mark `p`: its box, x and anchor. The
    /// candidates sit beside the mark, or beside another mark or label up
    /// to [`REACH`] px away (past a crowd of marks), in the mark's row or
    /// another; the nearest free one wins.
    fn place(&mut self, p: &Pending, label: &str) -> Option<(Bbox, f64, &'static str)> {
        let w = label_width(label);
        let empty = Vec::new();
        let near = |b: &&Bbox| b.x1 >= p.mark.x0 - REACH - w && b.x0 <= p.mark.x1 + REACH + w;
        let marks: Vec<&Bbox> = self
            .obstacles
            .get(&p.node)
            .unwrap_or(&empty)
            .iter()
            .filter(near)
            .collect();
        let labels: Vec<&Bbox> = self
            .placed
            .get(&p.node)
            .unwrap_or(&empty)
            .iter()
            .filter(near)
            .collect();
        let singles: Vec<&Bbox> = self
            .edges
            .get(&p.node)
            .unwrap_or(&empty)
            .iter()
            .filter(near)
            .collect();
        // (left edge of the box, anchored at its end?) beside each edge.
        let mut xs: Vec<(f64, bool)> = vec![(p.mark.x1 + GAP, false), (p.mark.x0 - GAP - w, true)];
        for e in singles.iter().chain(labels.iter()) {
            xs.push((e.x1 + GAP, false));
            xs.push((e.x0 - GAP - w, true));
        }
        let tops = row_tops(p.lane_y, &[&marks[..], &labels[..]].concat());
        // Cost: px away from the mark, plus px away from the preferred row.
        let mut candidates: Vec<(f64, f64, f64, bool)> = Vec::new();
        for (x0, end) in xs {
            let away = (x0 - p.mark.x1).max(p.mark.x0 - (x0 + w)).max(0.0);
            if away > REACH || x0 < self.x_min || x0 + w > self.x_max {
                continue;
            }
            for &top in &tops {
                let off = (top - p.lane_y - p.pref_top).abs();
                let cost = away + off + if end { 0.5 } else { 0.0 };
                candidates.push((cost, x0, top, end));
            }
        }
        redsim_engine::sort::sort_by(&mut candidates, |a, b| a.0.total_cmp(&b.0));
        for (_, x0, top, end) in candidates {
            let b = Bbox::new(x0, top, w, LABEL_H);
            if marks.iter().any(|m| m.overlaps(&b)) || labels.iter().any(|l| l.overlaps(&b)) {
                continue;
            }
            self.placed.entry(p.node).or_default().push(b);
            return Some(if end {
                (b, b.x1, "end")
            } else {
                (b, b.x0, "start")
            });
        }
        None
    }
}

/// Which labels get their spots first (lower first).
fn rank(kind: &str) -> u8 {
    match kind {
        "crash" | "sdown" | "odown" | "lost" | "switchmaster" | "promoted" => 0,
        "restart" | "elected" | "clientswitched" | "partitioned" | "healed" => 1,
        _ => 2,
    }
}

/// Each mark's label: marks of one kind on one lane within [`MERGE_PX`] of
/// the first of them share one label, on the last (`SDOWN S0 S1 S2`, or
/// `ODOWN ×3` for equal labels); the others have none.
fn merged_labels(pending: &[Pending]) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = pending
        .iter()
        .map(|p| (!p.label.is_empty()).then(|| p.label.clone()))
        .collect();
    let mut done = vec![false; pending.len()];
    for i in 0..pending.len() {
        let first = &pending[i];
        if done[i] || first.label.is_empty() {
            continue;
        }
        let group: Vec<usize> = (i..pending.len())
            .filter(|&j| {
                let p = &pending[j];
                !done[j]
                    && p.node == first.node
                    && p.kind == first.kind
                    && !p.label.is_empty()
                    && p.mark.x0 - first.mark.x0 <= MERGE_PX
            })
            .collect();
        for &j in &group {
            done[j] = true;
        }
        if group.len() > 1 {
            let labels: Vec<&str> = group.iter().map(|&j| pending[j].label.as_str()).collect();
            let text = merge_text(&labels);
            for &j in &group {
                out[j] = None;
            }
            if let Some(&last) = group.last() {
                out[last] = Some(text);
            }
        }
    }
    out
}

/// One label for several: `×n` for equal ones, else the shared first word
/// and each one's rest (`SDOWN S0`, `SDOWN S2` → `SDOWN S0 S2`).
fn merge_text(labels: &[&str]) -> String {
    let first = labels[0];
    if labels.iter().all(|l| *l == first) {
        return format!("{first} ×{}", labels.len());
    }
    let head = first.split(' ').next().unwrap_or(first);
    let rests: Option<Vec<&str>> = labels
        .iter()
        .map(|l| l.strip_prefix(head).map(str::trim))
        .collect();
    match rests {
        Some(r) => format!("{head} {}", r.join(" ")),
        None => format!("{first} +{}", labels.len() - 1),
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
    fn close_marks_of_a_kind_share_one_label_and_marks_stay() {
        let lost = BTreeMap::new();
        let mut singles = Singles::new(&lost, 0.0, 1000.0);
        singles.mark(&ev(NodeEventKind::Promoted), 100.0, 22.0);
        singles.mark(&ev(NodeEventKind::Promoted), 102.0, 22.0);
        for s in [0, 2, 1] {
            singles.mark(
                &ev(NodeEventKind::Sdown { sentinel: s }),
                300.0 + s as f64,
                22.0,
            );
        }
        let s = singles.draw_all();
        assert_eq!(s.matches("data-kind=\"promoted\"").count(), 2);
        assert_eq!(s.matches(">promoted ×2</text>").count(), 1, "{s}");
        assert_eq!(s.matches("data-kind=\"sdown\"").count(), 3);
        assert_eq!(s.matches(">SDOWN S0 S2 S1</text>").count(), 1, "{s}");
    }

    /// Crowded marks on one lane (and a dense band in the way): every label
    /// placed overlaps no other label and no mark.
    #[test]
    fn labels_avoid_each_other_and_every_mark() {
        let lost = BTreeMap::new();
        let mut singles = Singles::new(&lost, 96.0, 968.0);
        // Dense writes along the top band, as on a master's lane.
        for i in 0..200 {
            singles.obstacle(1, Bbox::new(96.0 + 3.0 * i as f64, 26.0, 2.0, 8.0));
        }
        let kinds = [
            NodeEventKind::Crash { power_loss: false },
            NodeEventKind::Sdown { sentinel: 0 },
            NodeEventKind::Odown {
                sentinel: 0,
                agree: 2,
            },
            NodeEventKind::Lost { ids: vec![1, 2, 3] },
            NodeEventKind::SwitchMaster { epoch: 1 },
            NodeEventKind::Promoted,
            NodeEventKind::Elected {
                sentinel: 1,
                epoch: 1,
            },
        ];
        for (i, k) in kinds.into_iter().enumerate() {
            singles.mark(&ev(k), 200.0 + 9.0 * i as f64, 22.0);
        }
        let svg = singles.draw_all();
        assert_eq!(svg.matches("<text").count(), singles.texts.len());
        let obstacles = &singles.obstacles[&1];
        let boxes = &singles.placed[&1];
        assert!(boxes.len() >= 5, "most labels find a place: {boxes:?}");
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.y0 >= 22.0 && a.y1 <= 22.0 + LANE_H, "in the lane: {a:?}");
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
            }
            for m in obstacles {
                assert!(!a.overlaps(m), "{a:?} overlaps mark {m:?}");
            }
        }
    }
}
