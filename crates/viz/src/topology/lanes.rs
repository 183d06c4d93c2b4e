//! The per-node timelines: one lane per node over a window of virtual time, with spans (down, partitioned, link paused, snapshot), dense marks merged per few pixels, and the rare events drawn one by one.
//!
//! Dense marks (writes, acks, arrivals, fsyncs, refusals) are merged per
//! [`BIN_PX`] pixels, so a frame stays small at any write rate; lost
//! acknowledged writes are never merged, they are drawn one by one in red.
//! The single marks' labels are placed last, clear of every mark (dense
//! bins included) and of each other (`marks.rs`).

use std::collections::BTreeMap;

use redsim_sim::topology::{NodeEvent, NodeEventKind, TopoView, WriteRecord, EVENTS_CAP};

use super::marks::{Bbox, Singles};
use super::{bytes_text, detail_rect, LANE_H};
use crate::svg::{self, px, time_exact};

/// Width of the drawing.
pub const LANES_W: f64 = 980.0;
/// Dense marks closer than this (px) are merged into one.
pub const BIN_PX: f64 = 3.0;
const LANE_LABEL: f64 = 96.0;
const AXIS_H: f64 = 22.0;

/// Windows between two moves of the drawing's origin (see [`Frame`]).
const ORIGIN_WINDOWS: u64 = 64;

/// The window shown and where an instant or a node lands in it.
///
/// Instants are placed from a fixed origin rather than from the window's
/// start, and the window is shown by moving the drawing's `viewBox`: as
/// time runs, a mark keeps its coordinates and so its markup, and the page
/// (`web/src/topology/live.rs`) only adds the new marks and drops the old
/// ones instead of parsing the whole drawing at every tick. The origin
/// moves on by [`ORIGIN_WINDOWS`] windows at a time, so coordinates stay
/// small enough for the browser's single-precision geometry.
struct Frame {
    t0: u64,
    t1: u64,
    window_us: u64,
    origin_us: u64,
}

impl Frame {
    /// `[now - window, now]`, or `[0, window]` early on.
    fn new(now_us: u64, window_us: u64) -> Frame {
        let window_us = window_us.max(1);
        let t1 = now_us.max(window_us);
        let t0 = t1 - window_us;
        Frame {
            t0,
            t1,
            window_us,
            origin_us: t0 - t0 % (window_us * ORIGIN_WINDOWS),
        }
    }

    fn contains(&self, t: u64) -> bool {
        t >= self.t0 && t <= self.t1
    }

    /// Where `t` lands in the drawing's coordinates.
    fn x(&self, t: u64) -> f64 {
        let plot_w = LANES_W - LANE_LABEL - 12.0;
        LANE_LABEL + (t.saturating_sub(self.origin_us)) as f64 / self.window_us as f64 * plot_w
    }

    /// The drawing's left edge (its `viewBox` x): what is fixed on screen
    /// (lanes, names, the now line) is drawn from here.
    fn left(&self) -> f64 {
        self.x(self.t0) - LANE_LABEL
    }
}

fn lane_y(node: usize) -> f64 {
    AXIS_H + LANE_H * node as f64
}

/// The per-node lanes over `[now - window, now]` (or `[0, window]` early on).
pub fn lanes_svg(
    v: &TopoView,
    events: &[NodeEvent],
    writes: &[WriteRecord],
    window_us: u64,
) -> String {
    draw(v, events, writes, window_us, &lost_at(writes)).0
}

/// Each lost acknowledged write's id and the instant it was lost.
fn lost_at(writes: &[WriteRecord]) -> BTreeMap<u64, u64> {
    writes
        .iter()
        .filter_map(|w| w.lost_us.map(|l| (w.id, l)))
        .collect()
}

/// [`lanes_svg`], and the single marks with their labels placed.
fn draw<'a>(
    v: &TopoView,
    events: &[NodeEvent],
    writes: &[WriteRecord],
    window_us: u64,
    lost: &'a BTreeMap<u64, u64>,
) -> (String, Singles<'a>) {
    let n = v.nodes.len();
    let h = AXIS_H + LANE_H * n as f64 + 8.0;
    let f = Frame::new(v.now_us, window_us);
    let mut s = String::with_capacity(32 * 1024);
    svg::open_at(
        &mut s,
        f.left(),
        LANES_W,
        h,
        "rs-topo-lanes",
        "Per-node timelines",
    );
    lanes_and_axis(&mut s, v, &f, h);
    // Spans (a node down, a snapshot) open before the window are found by
    // walking every event: `events()` is bounded, so this stays cheap.
    let mut spans = Spans::default();
    let mut bins: BTreeMap<(usize, Dense, i64), Bin> = BTreeMap::new();
    let mut singles = Singles::new(lost, f.left() + LANE_LABEL, f.left() + LANES_W - 2.0);
    for e in events {
        if e.node >= n {
            continue;
        }
        spans.edge(e);
        if !f.contains(e.at_us) {
            continue;
        }
        let x = f.x(e.at_us);
        match dense(&e.kind, lost) {
            Some((d, items, id)) => bins
                .entry((e.node, d, (x / BIN_PX) as i64))
                .or_insert_with(|| Bin::new(e, id))
                .add(e.at_us, items, id),
            None => singles.mark(e, x, lane_y(e.node)),
        }
    }
    dropped_note(&mut s, events, writes, &f, n);
    for span in spans.finish(v.now_us) {
        span.draw(&mut s, &f);
    }
    for ((node, d, bin), b) in &bins {
        b.draw(&mut s, *node, *d, *bin);
        singles.obstacle(*node, bin_box(*node, *d, *bin));
    }
    s.push_str(&singles.draw_all());
    let xn = f.x(v.now_us);
    svg::line(
        &mut s,
        xn,
        AXIS_H - 4.0,
        xn,
        h - 8.0,
        "class=\"rs-topo-now\"",
    );
    s.push_str("</svg>");
    (s, singles)
}

/// The lane backgrounds with each node's name and role, and the time axis.
fn lanes_and_axis(s: &mut String, v: &TopoView, f: &Frame, h: f64) {
    let left = f.left();
    for nd in &v.nodes {
        let y = lane_y(nd.id);
        svg::rect(
            s,
            left,
            y,
            LANES_W,
            LANE_H,
            &format!(
                "class=\"rs-topo-lane{}\"",
                if nd.id % 2 == 1 {
                    " rs-topo-lane-odd"
                } else {
                    ""
                }
            ),
        );
        svg::text(
            s,
            left + 6.0,
            y + 20.0,
            "start",
            "class=\"rs-topo-lanename\"",
            &format!("node {}", nd.id),
        );
        let role = if nd.alive { nd.role.as_str() } else { "dead" };
        svg::text(
            s,
            left + 6.0,
            y + 36.0,
            "start",
            "class=\"rs-topo-lanerole\"",
            role,
        );
    }
    let step_us: u64 = if f.window_us <= 10_000_000 {
        1_000_000
    } else {
        5_000_000
    };
    let mut t = f.t0.div_ceil(step_us) * step_us;
    while t <= f.t1 {
        let x = f.x(t);
        svg::line(s, x, AXIS_H - 4.0, x, h - 8.0, "class=\"rs-topo-grid\"");
        svg::text(
            s,
            x,
            AXIS_H - 8.0,
            "middle",
            "class=\"rs-topo-tick\"",
            &format!("{} s", t / 1_000_000),
        );
        t += step_us;
    }
}

/// The engine keeps the latest events only: says where the older ones went
/// (a write record older than the first event means events were dropped).
fn dropped_note(s: &mut String, events: &[NodeEvent], writes: &[WriteRecord], f: &Frame, n: usize) {
    let Some(first) = events.first() else {
        return;
    };
    let dropped = writes.first().is_some_and(|w| w.sent_us < first.at_us);
    if dropped && first.at_us > f.t0 {
        let x = f.x(first.at_us);
        let detail = format!(
            "events before {} are no longer kept (the last {} or so are)",
            time_exact(first.at_us),
            EVENTS_CAP
        );
        detail_rect(
            s,
            [
                &px(f.left() + LANE_LABEL),
                &px(AXIS_H),
                &px((x - f.left() - LANE_LABEL).max(0.0)),
                &px(LANE_H * n as f64),
            ],
            "class=\"rs-topo-dropped\"",
            &detail,
        );
    }
}

// ---------- spans ----------

/// A shaded stretch of a lane: (node, from, to, CSS class, title).
struct Span {
    node: usize,
    from: u64,
    to: u64,
    class: &'static str,
    detail: String,
}

impl Span {
    fn draw(&self, s: &mut String, f: &Frame) {
        if self.to < f.t0 || self.from > f.t1 {
            return;
        }
        let (xa, xb) = (f.x(self.from.max(f.t0)), f.x(self.to.min(f.t1)));
        let y = lane_y(self.node);
        let (yy, hh) = match self.class {
            "rs-topo-snapspan" => (y + 36.0, 8.0),
            "rs-topo-pausespan" => (y + 20.0, 12.0),
            _ => (y + 1.0, LANE_H - 2.0),
        };
        detail_rect(
            s,
            [&px(xa), &px(yy), &px((xb - xa).max(2.0)), &px(hh)],
            &format!("class=\"{}\"", self.class),
            &self.detail,
        );
    }
}

/// Spans being collected: the open ones by (node, CSS class), with since
/// when and what, and the closed ones.
#[derive(Default)]
struct Spans {
    open: BTreeMap<(usize, &'static str), (u64, String)>,
    done: Vec<Span>,
}

impl Spans {
    /// Opens or closes the span event `e` starts or ends, if any.
    fn edge(&mut self, e: &NodeEvent) {
        match span_edge(&e.kind) {
            Some((class, Some(what), _)) => {
                self.open.insert((e.node, class), (e.at_us, what));
            }
            Some((class, None, suffix)) => {
                if let Some((from, what)) = self.open.remove(&(e.node, class)) {
                    let node = e.node;
                    let detail = format!(
                        "node {node}{what} {} – {}{suffix}",
                        time_exact(from),
                        time_exact(e.at_us)
                    );
                    self.done.push(Span {
                        node,
                        from,
                        to: e.at_us,
                        class,
                        detail,
                    });
                }
            }
            None => {}
        }
    }

    /// Every span, the ones still open running to now.
    fn finish(mut self, now_us: u64) -> Vec<Span> {
        for ((node, class), (from, what)) in self.open {
            let detail = format!("node {node}{what} since {}", time_exact(from));
            self.done.push(Span {
                node,
                from,
                to: now_us,
                class,
                detail,
            });
        }
        self.done
    }
}

/// The span an event opens or closes: (CSS class, `Some(what)` to open or
/// `None` to close, the text added on closing).
fn span_edge(kind: &NodeEventKind) -> Option<(&'static str, Option<String>, String)> {
    let open = |class, what: &str| Some((class, Some(what.to_string()), String::new()));
    let close = |class| Some((class, None, String::new()));
    match kind {
        NodeEventKind::Crash { power_loss } => {
            let how = if *power_loss {
                "power loss"
            } else {
                "process crash"
            };
            open("rs-topo-downspan", &format!(" down ({how})"))
        }
        NodeEventKind::Restart { .. } => close("rs-topo-downspan"),
        NodeEventKind::Partitioned => open("rs-topo-cutspan", " partitioned"),
        NodeEventKind::Healed => close("rs-topo-cutspan"),
        NodeEventKind::LinkPaused => open("rs-topo-pausespan", ": replication link paused"),
        NodeEventKind::LinkResumed => close("rs-topo-pausespan"),
        NodeEventKind::SnapshotStart => open("rs-topo-snapspan", " snapshot (BGSAVE)"),
        NodeEventKind::SnapshotEnd { cow_bytes } => Some((
            "rs-topo-snapspan",
            None,
            format!(", copy-on-write {}", bytes_text(*cow_bytes)),
        )),
        _ => None,
    }
}

// ---------- dense marks ----------

/// Kinds of dense marks, merged per bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Dense {
    Write,
    Acked,
    Arrived,
    Ack,
    Fsync,
    Refused,
}

impl Dense {
    fn name(self) -> &'static str {
        match self {
            Dense::Write => "write",
            Dense::Acked => "acked",
            Dense::Arrived => "arrived",
            Dense::Ack => "ack",
            Dense::Fsync => "fsync",
            Dense::Refused => "refused",
        }
    }

    /// Its band in a lane: offset from the lane's top, and height.
    fn band(self) -> (f64, f64) {
        match self {
            Dense::Write => (4.0, 8.0),
            Dense::Acked => (12.0, 8.0),
            Dense::Arrived => (22.0, 8.0),
            Dense::Ack => (30.0, 5.0),
            Dense::Fsync => (38.0, 6.0),
            Dense::Refused => (12.0, 8.0),
        }
    }
}

/// An event's dense kind, the writes (or records) it stands for, and its
/// write id; `None` for the events drawn one by one (the writes of a lost
/// acknowledged write among them).
fn dense(kind: &NodeEventKind, lost: &BTreeMap<u64, u64>) -> Option<(Dense, u64, Option<u64>)> {
    match kind {
        NodeEventKind::Write { id } if !lost.contains_key(id) => Some((Dense::Write, 1, Some(*id))),
        NodeEventKind::Acked { id } if !lost.contains_key(id) => Some((Dense::Acked, 1, Some(*id))),
        NodeEventKind::Arrived { writes, .. } => Some((Dense::Arrived, *writes, None)),
        NodeEventKind::Ack { .. } => Some((Dense::Ack, 1, None)),
        NodeEventKind::Fsync { records } => Some((Dense::Fsync, *records, None)),
        NodeEventKind::Refused { id, .. } => Some((Dense::Refused, 1, Some(*id))),
        _ => None,
    }
}

/// The centre of a bin's mark.
fn bin_x(bin: i64) -> f64 {
    (bin as f64 + 0.5) * BIN_PX
}

/// The box a bin's mark covers (labels keep clear of it).
fn bin_box(node: usize, d: Dense, bin: i64) -> Bbox {
    let (dy, hh) = d.band();
    Bbox::new(bin_x(bin) - 1.0, lane_y(node) + dy, 2.0, hh)
}

/// The dense marks of one kind merged into one bin of one lane.
struct Bin {
    count: u64,
    first_us: u64,
    last_us: u64,
    /// Writes (or records) the merged marks stand for.
    items: u64,
    first_id: Option<u64>,
    last_id: Option<u64>,
    /// The first refusal's error, for refused writes.
    error: Option<String>,
}

impl Bin {
    fn new(e: &NodeEvent, id: Option<u64>) -> Bin {
        Bin {
            count: 0,
            first_us: e.at_us,
            last_us: e.at_us,
            items: 0,
            first_id: id,
            last_id: id,
            error: match &e.kind {
                NodeEventKind::Refused { error, .. } => Some(error.clone()),
                _ => None,
            },
        }
    }

    fn add(&mut self, at_us: u64, items: u64, id: Option<u64>) {
        self.count += 1;
        self.items += items;
        self.last_us = at_us;
        if id.is_some() {
            self.first_id = self.first_id.or(id);
            self.last_id = id;
        }
    }

    /// What the bin stands for, in words.
    fn detail(&self, node: usize, d: Dense) -> String {
        let when = if self.first_us == self.last_us {
            time_exact(self.first_us)
        } else {
            format!(
                "{} – {}",
                time_exact(self.first_us),
                time_exact(self.last_us)
            )
        };
        let ids = match (self.first_id, self.last_id) {
            (Some(a), Some(z)) if a == z => format!(" (write {a})"),
            (Some(a), Some(z)) => format!(" (writes {a}–{z})"),
            _ => String::new(),
        };
        let count = self.count;
        let what = match d {
            Dense::Write => format!("{count} write(s) sent{ids}"),
            Dense::Acked => format!("{count} write(s) acknowledged{ids}"),
            Dense::Arrived => format!(
                "replication arrived: {} write(s) in {count} batch(es)",
                self.items
            ),
            Dense::Ack => format!("{count} REPLCONF ACK(s) to the master"),
            Dense::Fsync => format!("{count} fsync(s), {} record(s)", self.items),
            Dense::Refused => format!(
                "{count} write(s) refused{ids}{}",
                self.error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ),
        };
        format!("node {node}: {what} at {when}")
    }

    fn draw(&self, s: &mut String, node: usize, d: Dense, bin: i64) {
        let x = bin_x(bin);
        let (dy, hh) = d.band();
        let name = d.name();
        detail_rect(
            s,
            [&px(x - 1.0), &px(lane_y(node) + dy), "2", &px(hh)],
            &format!("class=\"rs-topo-m rs-topo-d-{name}\" data-kind=\"{name}\""),
            &self.detail(node, d),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_fills_from_zero_then_scrolls() {
        let f = Frame::new(3_000_000, 10_000_000);
        assert_eq!((f.t0, f.t1), (0, 10_000_000));
        assert_eq!((f.left(), f.x(0)), (0.0, LANE_LABEL));
        assert_eq!(f.x(10_000_000), LANES_W - 12.0);
        let f = Frame::new(25_000_000, 10_000_000);
        assert_eq!((f.t0, f.t1), (15_000_000, 25_000_000));
        assert!(f.contains(15_000_000) && !f.contains(14_999_999));
        // The window is shown by moving the left edge; an instant keeps its
        // place while the window moves, until the origin moves on.
        assert_eq!(f.x(f.t0) - f.left(), LANE_LABEL);
        assert_eq!(f.x(f.t1) - f.left(), LANES_W - 12.0);
        let later = Frame::new(25_050_000, 10_000_000);
        assert_eq!(later.x(20_000_000), f.x(20_000_000));
        assert!(later.left() > f.left());
        let far = Frame::new(10_000_000 * (ORIGIN_WINDOWS + 1) + 1, 10_000_000);
        assert_eq!(far.origin_us, 10_000_000 * ORIGIN_WINDOWS);
        assert!(far.left() < LANES_W, "coordinates stay small");
    }

    #[test]
    fn spans_close_with_their_suffix_and_open_ones_run_to_now() {
        let ev = |at_us, node, kind| NodeEvent { at_us, node, kind };
        let mut spans = Spans::default();
        spans.edge(&ev(1_000, 0, NodeEventKind::SnapshotStart));
        spans.edge(&ev(
            2_000,
            0,
            NodeEventKind::SnapshotEnd { cow_bytes: 20_000 },
        ));
        spans.edge(&ev(3_000, 1, NodeEventKind::Partitioned));
        // A close without an open is ignored.
        spans.edge(&ev(3_500, 2, NodeEventKind::Healed));
        let done = spans.finish(9_000);
        assert_eq!(done.len(), 2);
        assert_eq!(
            done[0].detail,
            "node 0 snapshot (BGSAVE) 1 ms – 2 ms, copy-on-write 20 KB"
        );
        assert_eq!((done[1].from, done[1].to), (3_000, 9_000));
        assert_eq!(done[1].detail, "node 1 partitioned since 3 ms");
    }

    /// A failover after held links: its SDOWN, ODOWN, LOST and
    /// +switch-master labels are drawn, and no label overlaps another or
    /// any mark, at every step of the failover.
    #[test]
    fn failover_labels_overlap_no_label_and_no_mark() {
        let mut topo = super::super::failover_after_held_links(6_000_000);
        let mut seen = String::new();
        for t in (6_100_000..=16_000_000).step_by(100_000) {
            topo.advance_to(t);
            let v = topo.view();
            let writes = topo.writes();
            let lost = lost_at(writes);
            for window in [10_000_000, 30_000_000] {
                let (svg, singles) = draw(&v, topo.events(), writes, window, &lost);
                assert_eq!(
                    svg.matches("<text").count() - axis_texts(&svg, &v),
                    singles.texts.len()
                );
                for (lane, boxes) in &singles.placed {
                    let marks = &singles.obstacles[lane];
                    for (i, a) in boxes.iter().enumerate() {
                        let left = Frame::new(v.now_us, window).left();
                        assert!(
                            a.x0 >= left + LANE_LABEL && a.x1 <= left + LANES_W,
                            "{a:?} at {t}"
                        );
                        for b in &boxes[i + 1..] {
                            assert!(!a.overlaps(b), "labels {a:?} {b:?} at {t}");
                        }
                        for m in marks {
                            assert!(!a.overlaps(m), "label {a:?} on mark {m:?} at {t}");
                        }
                    }
                }
                seen = singles.texts.join("|");
            }
        }
        // Once it is over, all of the failover's story is labelled.
        for word in [
            "SDOWN",
            "ODOWN",
            "LOST",
            "+switch-master",
            "crash",
            "promoted",
        ] {
            assert!(seen.contains(word), "{word} labelled: {seen}");
        }
    }

    /// The failover's story is labelled whenever the master dies: the
    /// instant of a kill decides how close its marks fall and how many
    /// refused writes crowd the master's lane, and at some instants the
    /// ODOWN label once found no spot. Every 20 ms of a 1.6 s sweep, both
    /// windows, once the client follows the new master and 2 s later.
    #[test]
    fn failover_labels_are_drawn_whenever_the_master_dies() {
        let mut missing = Vec::new();
        for kill in (6_000_000..7_600_000).step_by(20_000) {
            let mut topo = super::super::failover_after_held_links(kill);
            let mut t = kill;
            while topo.view().client_master == 0 && t < kill + 30_000_000 {
                t += 100_000;
                topo.advance_to(t);
            }
            assert_ne!(topo.view().client_master, 0, "kill at {kill}: no failover");
            for at in [t, t + 2_000_000] {
                topo.advance_to(at);
                let v = topo.view();
                let writes = topo.writes();
                let lost = lost_at(writes);
                for window in [10_000_000, 30_000_000] {
                    let (_, singles) = draw(&v, topo.events(), writes, window, &lost);
                    let seen = singles.texts.join("|");
                    for word in ["crash", "SDOWN", "ODOWN", "+switch-master", "LOST"] {
                        if !seen.contains(word) {
                            missing.push(format!(
                                "kill {kill}, at {at}, window {window}: {word} ({seen})"
                            ));
                        }
                    }
                }
            }
        }
        assert!(
            missing.is_empty(),
            "labels left out:\n{}",
            missing.join("\n")
        );
    }

    /// The texts of the axis and the lane names.
    fn axis_texts(svg: &str, v: &TopoView) -> usize {
        svg.matches("class=\"rs-topo-tick\"").count() + 2 * v.nodes.len()
    }

    #[test]
    fn bins_count_their_marks_and_name_the_writes() {
        let e = NodeEvent {
            at_us: 5_000,
            node: 2,
            kind: NodeEventKind::Write { id: 7 },
        };
        let mut b = Bin::new(&e, Some(7));
        b.add(5_000, 1, Some(7));
        assert_eq!(
            b.detail(2, Dense::Write),
            "node 2: 1 write(s) sent (write 7) at 5 ms"
        );
        b.add(6_000, 1, Some(9));
        assert_eq!(
            b.detail(2, Dense::Write),
            "node 2: 2 write(s) sent (writes 7–9) at 5 ms – 6 ms"
        );
        let lost = BTreeMap::from([(7, 10)]);
        assert_eq!(dense(&e.kind, &lost), None, "a lost write is drawn alone");
        assert_eq!(
            dense(&NodeEventKind::Fsync { records: 4 }, &lost),
            Some((Dense::Fsync, 4, None))
        );
    }
}
