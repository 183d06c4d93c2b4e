//! The replication topology drawn as SVG: the node graph (Sentinels, the client, nodes and their links) and the per-node timelines, from the plain views of `redsim_sim::topology`.
//!
//! The browser's Topology tab redraws both on every frame, so they are
//! strings (one per frame is far cheaper than a virtual DOM node per mark)
//! and pure functions of the view and the event log, tested here natively.
//! Every element a reader can click carries its explanation in
//! `data-detail` (and a `<title>` for hovering); the page shows it.

mod graph;
mod lanes;
mod marks;

pub use graph::{graph_svg, graph_svg_fit};
pub use lanes::{lanes_svg, BIN_PX, LANES_W};

use std::fmt::Write;

use crate::svg::esc;

/// Height of a node's lane in the timelines.
const LANE_H: f64 = 50.0;

/// A byte count in decimal units, short enough for a link label.
fn bytes_text(b: u64) -> String {
    if b < 10_000 {
        format!("{b} B")
    } else if b < 10_000_000 {
        format!("{} KB", b / 1000)
    } else {
        format!("{} MB", b / 1_000_000)
    }
}

/// Opens a `<g {attrs} data-detail="…">` with the same text as its
/// `<title>`; the caller closes it.
fn open_detail_group(s: &mut String, attrs: &str, detail: &str) {
    let d = esc(detail);
    let _ = write!(s, "<g {attrs} data-detail=\"{d}\"><title>{d}</title>");
}

/// A `<rect>` at the given (already formatted) coordinates carrying its
/// explanation in `data-detail` and `<title>`.
fn detail_rect(s: &mut String, xywh: [&str; 4], attrs: &str, detail: &str) {
    let d = esc(detail);
    let [x, y, w, h] = xywh;
    let _ = write!(
        s,
        "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" {attrs} data-detail=\"{d}\"><title>{d}</title></rect>"
    );
}

/// The world the failover tests draw: a second before `kill_us` every
/// replica's link is held, at `kill_us` the master is killed and the links
/// resume, so Sentinel fails over and the writes only the old master had
/// are lost.
#[cfg(test)]
pub(crate) fn failover_after_held_links(kill_us: u64) -> redsim_sim::topology::Topology {
    use redsim_sim::topology::{Control, TopoOptions, Topology};
    let mut topo = Topology::new(TopoOptions::default());
    topo.advance_to(kill_us - 1_000_000);
    let replicas = topo.view().nodes.len() - 1;
    for r in 1..=replicas {
        topo.control(Control::PauseLink { replica: r }).unwrap();
    }
    topo.advance_to(kill_us);
    topo.control(Control::Kill {
        node: 0,
        power_loss: false,
    })
    .unwrap();
    for r in 1..=replicas {
        topo.control(Control::ResumeLink { replica: r }).unwrap();
    }
    topo
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_sim::topology::{Control, TopoOptions, Topology};

    #[test]
    fn bytes_read_in_decimal_units() {
        let sizes = [9_999, 10_000, 12_345_678];
        assert_eq!(sizes.map(bytes_text), ["9999 B", "10 KB", "12 MB"]);
    }

    /// A world with a killed master, drawn: the marks the tab promises.
    #[test]
    fn drawings_show_nodes_links_sentinels_and_marks() {
        let mut topo = Topology::new(TopoOptions::default());
        topo.advance_to(3_000_000);
        topo.control(Control::Kill {
            node: 0,
            power_loss: false,
        })
        .unwrap();
        topo.advance_to(4_000_000);
        let v = topo.view();
        let g = graph_svg(&v);
        assert!(g.starts_with("<svg") && g.ends_with("</svg>"));
        assert_eq!(g.matches("class=\"rs-topo-node").count(), v.nodes.len());
        assert_eq!(
            g.matches("class=\"rs-topo-sentinel\"").count(),
            v.sentinels.len()
        );
        assert!(
            g.contains("data-node=\"0\" data-role=\"master\" data-alive=\"false\""),
            "{g}"
        );
        let l = lanes_svg(&v, topo.events(), topo.writes(), 10_000_000);
        assert!(l.contains("data-kind=\"crash\""), "the crash is marked");
        assert!(l.contains("data-kind=\"write\"") && l.contains("data-kind=\"acked\""));
        assert!(
            l.contains("rs-topo-downspan"),
            "the dead node's lane is shaded"
        );
        // Dense marks are merged: never more than one per bin per kind per lane.
        let bins = (LANES_W / BIN_PX) as usize + 1;
        assert!(l.matches("data-kind=\"write\"").count() <= bins * v.nodes.len());
    }

    /// `save 30 100` (the default) forks a BGSAVE after 30 s of writes: a band.
    #[test]
    fn snapshots_are_bands() {
        let mut topo = Topology::new(TopoOptions::default());
        topo.advance_to(40_000_000);
        let v = topo.view();
        let l = lanes_svg(&v, topo.events(), topo.writes(), 30_000_000);
        assert!(l.contains("class=\"rs-topo-snapspan\""), "a snapshot band");
        assert!(l.contains("snapshot (BGSAVE)"));
    }

    /// Links held, the master killed, Sentinel fails over and the writes
    /// only the old master had are lost, in red.
    #[test]
    fn a_failover_after_held_links_draws_lost_writes() {
        let mut topo = failover_after_held_links(6_000_000);
        let mut t = 6_000_000;
        while topo.view().client_master == 0 && t < 60_000_000 {
            t += 1_000_000;
            topo.advance_to(t);
        }
        let v = topo.view();
        assert_ne!(v.client_master, 0, "failed over by {t} µs");
        assert!(v.lost > 0, "acknowledged writes lost: {v:?}");
        let l = lanes_svg(&v, topo.events(), topo.writes(), 30_000_000);
        assert!(l.contains("rs-topo-lostw") || l.contains("data-kind=\"lost\""));
        for kind in ["sdown", "odown", "promoted"] {
            assert!(
                l.contains(&format!("data-kind=\"{kind}\"")),
                "{kind} marked"
            );
        }
        // A replay reaches the same world and the same drawing.
        let again = Topology::replay(TopoOptions::default(), topo.script(), topo.now_us());
        assert_eq!(again.view(), v);
        assert_eq!(
            lanes_svg(&again.view(), again.events(), again.writes(), 30_000_000),
            l
        );
    }

    /// Playing, the tab redraws at every 50 ms tick and the page keeps the
    /// parts two drawings share (`crate::parts`): both drawings cut into
    /// parts, and at a tick most of them stay, while and after a failover,
    /// in every window.
    #[test]
    fn a_tick_keeps_most_of_the_drawings() {
        let mut topo = failover_after_held_links(8_000_000);
        let mut worst = [(1.0f64, String::new()), (1.0, String::new())];
        for t in (2_000_000..20_000_000).step_by(450_000) {
            for window in [5_000_000, 10_000_000, 60_000_000] {
                topo.advance_to(t);
                let (g0, l0) = drawn(&topo, window);
                topo.advance_to(t + 50_000);
                let (g1, l1) = drawn(&topo, window);
                for (w, (what, a, b)) in [("graph", &g0, &g1), ("lanes", &l0, &l1)]
                    .into_iter()
                    .enumerate()
                {
                    let (a, b) = (
                        crate::parts::split(a).expect("a drawing cuts into parts"),
                        crate::parts::split(b).expect("a drawing cuts into parts"),
                    );
                    let kept = crate::parts::plan(&a.parts, &b.parts)
                        .iter()
                        .flatten()
                        .count();
                    let share = kept as f64 / b.parts.len() as f64;
                    if share < worst[w].0 {
                        worst[w] = (
                            share,
                            format!("at {t}, window {window}: kept {kept} of {}", b.parts.len()),
                        );
                    }
                    let at_least = if what == "lanes" { 0.9 } else { 0.5 };
                    assert!(
                        share >= at_least,
                        "{what} at {t} µs, window {window}: kept {kept} of {}",
                        b.parts.len()
                    );
                }
            }
        }
        println!("fewest parts kept, graph then lanes: {worst:?}");
    }

    fn drawn(topo: &Topology, window: u64) -> (String, String) {
        let v = topo.view();
        (
            graph_svg(&v),
            lanes_svg(&v, topo.events(), topo.writes(), window),
        )
    }
}
