//! The node graph: Sentinels on top with the master each believes in, the writing client, the nodes by id (in a row, or in a column on a narrow screen), and the replication links as arcs beside the boxes.

use std::fmt::Write;

use redsim_sim::params::fmt_num;
use redsim_sim::topology::{LinkView, NodeView, SentinelView, TopoView};

use super::{bytes_text, open_detail_group};
use crate::svg::{self, esc, px};

const GRAPH_W: f64 = 860.0;
/// Widest node box; with five nodes they get narrower to fit.
const NODE_W_MAX: f64 = 176.0;
const NODE_H: f64 = 112.0;
const NODE_Y: f64 = 118.0;
const SENT_Y: f64 = 34.0;
/// Boxes narrower than this draw the nodes in a column, at their own width:
/// the row, scaled down to fit, would shrink its 11 px text below 10 px.
const COLUMN_BELOW: f64 = 760.0;
/// The column's narrowest drawing (a phone's box is some 310 px).
const COLUMN_MIN_W: f64 = 280.0;
/// A column's node boxes at most this wide, centred.
const COLUMN_NODE_W: f64 = 300.0;
/// Room between two boxes of the column, for the link label above a replica.
const COLUMN_GAP: f64 = 40.0;
/// Room per Sentinel in the column's top rows (circle, epoch, badges stacked).
const COLUMN_SENTINEL: f64 = 92.0;
/// Height of one row of Sentinels in the column.
const COLUMN_SENTINEL_ROW: f64 = 70.0;

/// Where the graph's parts go: the nodes in a row across a drawing of
/// `GRAPH_W` that the page scales to its box, or in a column at the box's
/// own width, so a phone shows every node at a readable size without
/// scrolling sideways.
struct Geo {
    w: f64,
    h: f64,
    n: usize,
    node_w: f64,
    column: Option<Column>,
}

/// The column's places.
struct Column {
    /// Left edge of every node box.
    box_x: f64,
    /// Top of the first node box.
    top: f64,
    /// The client's box.
    client_y: f64,
    /// Sentinels per row.
    per_row: usize,
}

impl Geo {
    /// The places for `n` nodes and `ns` Sentinels in a box `width` px wide.
    fn new(n: usize, ns: usize, width: f64) -> Geo {
        // NaN (no measure) keeps the row too.
        if width >= COLUMN_BELOW || width.is_nan() {
            let link_depth = 34.0 + 14.0 * n as f64;
            return Geo {
                w: GRAPH_W,
                h: NODE_Y + NODE_H + link_depth + 24.0,
                n,
                node_w: NODE_W_MAX.min(GRAPH_W / n.max(1) as f64 - 8.0),
                column: None,
            };
        }
        let w = width.max(COLUMN_MIN_W).floor();
        let node_w = (w - 86.0).min(COLUMN_NODE_W);
        let per_row = ((w - 8.0) / COLUMN_SENTINEL)
            .floor()
            .clamp(1.0, ns.max(1) as f64) as usize;
        let rows = ns.div_ceil(per_row).max(1) as f64;
        let client_y = SENT_Y - 16.0 + rows * COLUMN_SENTINEL_ROW;
        let top = client_y + 34.0 + COLUMN_GAP;
        Geo {
            w,
            h: top + n as f64 * (NODE_H + COLUMN_GAP) - COLUMN_GAP + 16.0,
            n,
            node_w,
            column: Some(Column {
                box_x: ((w - node_w) / 2.0 - 13.0).floor(),
                top,
                client_y,
                per_row,
            }),
        }
    }

    /// A node box's top-left corner.
    fn node_at(&self, i: usize) -> (f64, f64) {
        match &self.column {
            None => (node_cx(i, self.n) - self.node_w / 2.0, NODE_Y),
            Some(c) => (c.box_x, c.top + i as f64 * (NODE_H + COLUMN_GAP)),
        }
    }

    /// Sentinel `i` of `ns`: its circle's centre.
    fn sentinel_at(&self, i: usize, ns: usize) -> (f64, f64) {
        match &self.column {
            None => (
                220.0 + (GRAPH_W - 240.0) * (i as f64 + 0.5) / ns.max(1) as f64,
                SENT_Y,
            ),
            Some(c) => {
                let slot = (self.w - 8.0) / c.per_row as f64;
                (
                    8.0 + 16.0 + (i % c.per_row) as f64 * slot,
                    SENT_Y + (i / c.per_row) as f64 * COLUMN_SENTINEL_ROW,
                )
            }
        }
    }

    /// Where a Sentinel's line to the master it believes in ends.
    fn master_top(&self, m: usize) -> (f64, f64) {
        let (x, y) = self.node_at(m);
        (x + self.node_w / 2.0, y)
    }
}

fn node_cx(i: usize, n: usize) -> f64 {
    GRAPH_W * (i as f64 + 0.5) / n.max(1) as f64
}

/// The node graph, in a row scaled to the page's box. Nodes keep their
/// place by id, so a failover changes colours and arrows, not positions.
pub fn graph_svg(v: &TopoView) -> String {
    graph_svg_fit(v, GRAPH_W)
}

/// [`graph_svg`] for a box `width` px wide: below [`COLUMN_BELOW`] the
/// nodes go in a column drawn at that width (at least 280 px).
pub fn graph_svg_fit(v: &TopoView, width: f64) -> String {
    let n = v.nodes.len();
    let g = Geo::new(n, v.sentinels.len(), width);
    let mut s = String::with_capacity(8192);
    svg::open(&mut s, g.w, g.h, "rs-topo-graph", "Replication topology");
    s.push_str(
        "<defs><marker id=\"rs-topo-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
         markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
         <path d=\"M0 0L10 5L0 10z\" fill=\"context-stroke\"/></marker></defs>",
    );
    sentinels(&mut s, &v.sentinels, &g);
    client(&mut s, v, &g);
    for l in &v.links {
        if l.from < n && l.to < n {
            link(&mut s, l, &v.nodes[l.to].link_status, &g);
        }
    }
    for nd in &v.nodes {
        node(&mut s, nd, &g);
    }
    s.push_str("</svg>");
    s
}

/// Sentinels: a row of circles; a line to the master each believes in,
/// dashed red when it cannot reach it, and badges for its verdicts.
fn sentinels(s: &mut String, sentinels: &[SentinelView], g: &Geo) {
    let ns = sentinels.len();
    for (i, st) in sentinels.iter().enumerate() {
        let m = st.master;
        if m < g.n {
            let class = if st.reaches_master {
                "rs-topo-sline"
            } else {
                "rs-topo-sline rs-topo-sline-cut"
            };
            let ((x, y), (mx, my)) = (g.sentinel_at(i, ns), g.master_top(m));
            svg::line(s, x, y + 14.0, mx, my, &format!("class=\"{class}\""));
        }
    }
    for (i, st) in sentinels.iter().enumerate() {
        sentinel(s, st, g.sentinel_at(i, ns), g.column.is_some());
    }
}

/// What a Sentinel believes, in words.
fn sentinel_detail(st: &SentinelView) -> String {
    format!(
        "sentinel {}: epoch {}{}{}{}{}{}",
        st.id,
        st.epoch,
        if st.sdown {
            ", master subjectively down"
        } else {
            ""
        },
        if st.odown {
            ", objectively down (quorum agrees)"
        } else {
            ""
        },
        if st.leader { ", failover leader" } else { "" },
        st.voted_for
            .map(|c| format!(", voted for sentinel {c}"))
            .unwrap_or_default(),
        if st.reaches_master {
            ""
        } else {
            ", cannot reach the master"
        },
    )
}

/// A Sentinel at `(x, y)`; in a column its badges stack under its epoch.
fn sentinel(s: &mut String, st: &SentinelView, (x, y): (f64, f64), stack: bool) {
    let mut badges: Vec<(&str, &str)> = Vec::new();
    if st.sdown {
        badges.push(("SDOWN", "rs-topo-b-sdown"));
    }
    if st.odown {
        badges.push(("ODOWN", "rs-topo-b-odown"));
    }
    if st.leader {
        badges.push(("leader", "rs-topo-b-leader"));
    }
    open_detail_group(
        s,
        &format!(
            "class=\"rs-topo-sentinel\" data-sentinel=\"{}\" data-sdown=\"{}\" data-odown=\"{}\" data-leader=\"{}\"",
            st.id, st.sdown, st.odown, st.leader
        ),
        &sentinel_detail(st),
    );
    let _ = write!(
        s,
        "<circle cx=\"{}\" cy=\"{}\" r=\"14\" class=\"rs-topo-scircle{}\"/>",
        px(x),
        px(y),
        if st.odown {
            " rs-topo-odown"
        } else if st.sdown {
            " rs-topo-sdown"
        } else {
            ""
        }
    );
    svg::text(
        s,
        x,
        y + 4.0,
        "middle",
        "class=\"rs-topo-slabel\"",
        &format!("S{}", st.id),
    );
    svg::text(
        s,
        x + 18.0,
        y - 6.0,
        "start",
        "class=\"rs-topo-epoch\"",
        &format!("epoch {}", st.epoch),
    );
    // Wide enough for SDOWN in a bold fallback font with room either side:
    // at 44 px the text met the box's edges and two badges read as one word.
    const BADGE_W: f64 = 52.0;
    for (k, (label, class)) in badges.iter().enumerate() {
        let (bx, by) = if stack {
            (x + 18.0, y + k as f64 * 17.0)
        } else {
            (x + 18.0 + k as f64 * (BADGE_W + 4.0), y)
        };
        svg::rect(
            s,
            bx,
            by,
            BADGE_W,
            14.0,
            &format!("rx=\"3\" class=\"rs-topo-badge {class}\""),
        );
        svg::text(
            s,
            bx + BADGE_W / 2.0,
            by + 11.0,
            "middle",
            "class=\"rs-topo-badgetext\"",
            label,
        );
    }
    s.push_str("</g>");
}

/// The client, and an arrow to the node it writes to: from above the row,
/// or down the column's left side.
fn client(s: &mut String, v: &TopoView, g: &Geo) {
    let n = v.nodes.len();
    let label = match v.client_isolated_with {
        Some(n) => format!("client (cut off with node {n})"),
        None => "client".to_string(),
    };
    let (x, y, w) = match &g.column {
        None => (10.0, SENT_Y - 16.0, 120.0),
        Some(c) => (
            8.0,
            c.client_y,
            (24.0 + 7.0 * label.chars().count() as f64).min(g.w - 16.0),
        ),
    };
    svg::rect(
        s,
        x,
        y,
        w,
        34.0,
        if v.client_isolated_with.is_some() {
            "rx=\"6\" class=\"rs-topo-client rs-topo-client-cut\""
        } else {
            "rx=\"6\" class=\"rs-topo-client\""
        },
    );
    svg::text(
        s,
        x + w / 2.0,
        y + 21.0,
        "middle",
        "class=\"rs-topo-clabel\"",
        &label,
    );
    if v.client_master < n {
        let m = v.client_master;
        let d = match &g.column {
            None => format!(
                "M70 {} C70 {} {} {} {} {}",
                px(SENT_Y + 18.0),
                px(NODE_Y - 30.0),
                px(node_cx(m, n) - 40.0),
                px(NODE_Y - 40.0),
                px(node_cx(m, n) - 40.0),
                px(NODE_Y - 2.0),
            ),
            Some(c) => {
                let (bx, by) = g.node_at(m);
                let (gx, ty) = (c.box_x / 2.0, by + 24.0);
                format!(
                    "M{} {} C{} {} {} {} {} {}",
                    px(gx),
                    px(c.client_y + 34.0),
                    px(gx),
                    px(ty),
                    px(gx),
                    px(ty),
                    px(bx - 2.0),
                    px(ty),
                )
            }
        };
        let _ = write!(
            s,
            "<path class=\"rs-topo-cpath\" data-client-master=\"{m}\" d=\"{d}\" marker-end=\"url(#rs-topo-arrow)\"><title>The client writes to node {m} (the master Sentinel announced)</title></path>",
        );
    }
}

/// A replication link: an arc from the master's box to the replica's, with
/// its latency, backlog and bytes in flight; `status` is the replica's link
/// status. Below the row; in a column, on the right of the boxes with the
/// label above the replica.
fn link(s: &mut String, l: &LinkView, status: &str, g: &Geo) {
    let apart = (l.from as f64 - l.to as f64).abs();
    let (d, (lx, ly, anchor)) = match &g.column {
        None => {
            let (x1, x2) = (node_cx(l.from, g.n), node_cx(l.to, g.n));
            let y = NODE_Y + NODE_H;
            let depth = 26.0 + 14.0 * apart;
            let (mx, my) = ((x1 + x2) / 2.0, y + depth);
            (
                format!(
                    "M{} {} Q{} {} {} {}",
                    px(x1 + 8.0),
                    px(y),
                    px(mx),
                    px(my + depth * 0.4),
                    px(x2 - 8.0),
                    px(y + 2.0),
                ),
                (mx, my + depth * 0.2 + 4.0, "middle"),
            )
        }
        Some(c) => {
            let right = c.box_x + g.node_w;
            let bulge = (18.0 + 12.0 * apart).min(g.w - right - 6.0);
            let (y1, y2) = (
                g.node_at(l.from).1 + NODE_H / 2.0 + 12.0,
                g.node_at(l.to).1 + NODE_H / 2.0 - 12.0,
            );
            (
                format!(
                    "M{} {} C{} {} {} {} {} {}",
                    px(right),
                    px(y1),
                    px(right + bulge),
                    px(y1),
                    px(right + bulge),
                    px(y2),
                    px(right + 2.0),
                    px(y2),
                ),
                (c.box_x, g.node_at(l.to).1 - 10.0, "start"),
            )
        }
    };
    let detail = format!(
        "link node {} → node {}: {} ms, {} behind, {} in flight{}, link {}",
        l.from,
        l.to,
        fmt_num((l.latency_ms * 100.0).round() / 100.0),
        bytes_text(l.behind_bytes),
        bytes_text(l.in_flight_bytes),
        if l.paused { ", PAUSED" } else { "" },
        status
    );
    open_detail_group(
        s,
        &format!(
            "class=\"rs-topo-link{}{}\" data-from=\"{}\" data-to=\"{}\" data-paused=\"{}\"",
            if l.paused { " rs-topo-paused" } else { "" },
            if status == "up" {
                ""
            } else {
                " rs-topo-linkdown"
            },
            l.from,
            l.to,
            l.paused,
        ),
        &detail,
    );
    let _ = write!(s, "<path d=\"{d}\" marker-end=\"url(#rs-topo-arrow)\"/>");
    let head = format!(
        "{} ms · {} behind",
        fmt_num((l.latency_ms * 10.0).round() / 10.0),
        bytes_text(l.behind_bytes),
    );
    let tail = format!(
        "{} in flight{}",
        bytes_text(l.in_flight_bytes),
        if l.paused { " · paused" } else { "" }
    );
    let label = format!("{head} · {tail}");
    // 11 px text averages some 6.3 px a character: a label wider than the
    // column's drawing goes on two lines, in the same gap.
    if g.column.is_some() && label.chars().count() as f64 * 6.3 > g.w - lx - 4.0 {
        let _ = write!(
            s,
            "<text x=\"{x}\" y=\"{}\" text-anchor=\"{anchor}\" class=\"rs-topo-linklabel\">\
             <tspan>{}</tspan><tspan x=\"{x}\" dy=\"13\">{}</tspan></text>",
            px(ly - 13.0),
            esc(&head),
            esc(&tail),
            x = px(lx),
        );
    } else {
        svg::text(s, lx, ly, anchor, "class=\"rs-topo-linklabel\"", &label);
    }
    s.push_str("</g>");
}

/// The six lines of a node's box: role, address, offset, keys, appendfsync, status.
fn node_lines(nd: &NodeView) -> [String; 6] {
    let head = match (nd.role.as_str(), nd.master_of) {
        ("master", _) => format!("node {} · master", nd.id),
        (_, Some(m)) => format!("node {} · replica of {m}", nd.id),
        (r, None) => format!("node {} · {r}", nd.id),
    };
    let status = if !nd.alive {
        "DEAD".to_string()
    } else if nd.isolated {
        "isolated (partitioned)".to_string()
    } else if nd.role != "master" && nd.link_status != "up" {
        format!("link {}", nd.link_status)
    } else if nd.bgsave_in_progress {
        "BGSAVE in progress".to_string()
    } else {
        "up".to_string()
    };
    [
        head,
        nd.addr.clone(),
        format!("offset {}", nd.offset),
        format!("keys {}", nd.keys),
        format!("appendfsync {}", nd.appendfsync),
        status,
    ]
}

/// A node's box, crossed out when it is dead.
fn node(s: &mut String, nd: &NodeView, g: &Geo) {
    let node_w = g.node_w;
    // Characters of 11 px monospace that fit in a box.
    let chars = ((node_w - 14.0) / 6.7) as usize;
    let (x, y) = g.node_at(nd.id);
    let mut classes = format!("rs-topo-node rs-topo-{}", esc(&nd.role));
    if !nd.alive {
        classes.push_str(" rs-topo-dead");
    }
    if nd.isolated {
        classes.push_str(" rs-topo-isolated");
    }
    let lines = node_lines(nd);
    let detail = format!(
        "{}\nAOF records fsynced: {} of {}\nreplica-priority {}",
        lines.join("\n"),
        nd.aof_fsynced_records,
        nd.aof_records,
        nd.priority
    );
    open_detail_group(
        s,
        &format!(
            "class=\"{classes}\" data-node=\"{}\" data-role=\"{}\" data-alive=\"{}\" data-isolated=\"{}\" data-offset=\"{}\"",
            nd.id,
            esc(&nd.role),
            nd.alive,
            nd.isolated,
            nd.offset,
        ),
        &detail,
    );
    svg::rect(s, x, y, node_w, NODE_H, "rx=\"8\" class=\"rs-topo-box\"");
    for (k, l) in lines.iter().enumerate() {
        let class = match k {
            0 => "rs-topo-nhead",
            5 => "rs-topo-nstatus",
            _ => "rs-topo-nline",
        };
        svg::text(
            s,
            x + 8.0,
            y + 17.0 + 18.0 * k as f64,
            "start",
            &format!("class=\"{class}\""),
            &svg::clip(l, chars),
        );
    }
    if !nd.alive {
        let (left, right) = (x + 4.0, x + node_w - 4.0);
        let (top, bottom) = (y + 4.0, y + NODE_H - 4.0);
        svg::line(s, left, top, right, bottom, "class=\"rs-topo-cross\"");
        svg::line(s, right, top, left, bottom, "class=\"rs-topo-cross\"");
    }
    s.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_sim::topology::{Control, TopoOptions, Topology};

    /// The numbers of attribute `name` on every element `tag` of `svg`
    /// whose tag has `with` in it.
    fn attr_with(svg: &str, tag: &str, with: &str, name: &str) -> Vec<f64> {
        svg.split(&format!("<{tag} "))
            .skip(1)
            .filter_map(|el| {
                // Only the element's own attributes, up to its tag's end.
                let el = format!(" {}", el.split('>').next()?);
                if !el.contains(with) {
                    return None;
                }
                let at = el.find(&format!(" {name}=\""))? + name.len() + 3;
                el[at..].split('"').next()?.parse().ok()
            })
            .collect()
    }

    fn attr(svg: &str, tag: &str, name: &str) -> Vec<f64> {
        attr_with(svg, tag, "", name)
    }

    /// Every coordinate a path's `d` names.
    fn path_xs(svg: &str) -> Vec<f64> {
        svg.split(" d=\"M")
            .skip(1)
            .filter(|p| !p.starts_with("0 0L10"))
            .flat_map(|p| {
                let d = p.split('"').next().unwrap_or("");
                d.split(|c: char| c.is_ascii_alphabetic() || c == ' ')
                    .filter_map(|n| n.parse::<f64>().ok())
                    .step_by(2)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// A world mid-failover on a phone's box: every node, Sentinel (with
    /// its badges) and link is drawn inside the box's width, the boxes one
    /// under the other, each link's label in the gap above its replica.
    #[test]
    fn a_narrow_box_gets_a_column_that_fits_it() {
        let opts = TopoOptions {
            replicas: 4,
            sentinels: 5,
            quorum: 3,
            ..TopoOptions::default()
        };
        let mut topo = Topology::new(opts);
        topo.advance_to(3_000_000);
        topo.control(Control::Kill {
            node: 0,
            power_loss: false,
        })
        .unwrap();
        let mut sdown_seen = false;
        for t in (3_100_000..20_000_000).step_by(300_000) {
            topo.advance_to(t);
            let v = topo.view();
            sdown_seen |= v.sentinels.iter().any(|s| s.sdown);
            for width in [280.0, 310.0, 390.0, 700.0] {
                let g = graph_svg_fit(&v, width);
                assert!(g.contains(&format!("width=\"{width}\"")), "{g}");
                let xs = attr(&g, "rect", "x");
                let ws = attr(&g, "rect", "width");
                for (x, w) in xs.iter().zip(&ws) {
                    assert!(*x >= 0.0 && x + w <= width, "a box at {x}+{w} in {width}");
                }
                for x in path_xs(&g) {
                    assert!((0.0..=width).contains(&x), "a path at {x} in {width}");
                }
                let rows = attr(&g, "rect", "y");
                let tops: Vec<f64> = rows
                    .iter()
                    .zip(attr(&g, "rect", "height"))
                    .filter(|(_, h)| *h == NODE_H)
                    .map(|(y, _)| *y)
                    .collect();
                assert_eq!(tops.len(), v.nodes.len(), "one box per node");
                // Drawn by id, top to bottom.
                assert!(tops.windows(2).all(|p| p[1] - p[0] >= NODE_H + 20.0));
                // Link labels sit in the gap just above their replica's box.
                let labels = attr_with(&g, "text", "rs-topo-linklabel", "y");
                assert_eq!(labels.len(), v.links.len());
                for y in labels {
                    assert!(tops.iter().any(|t| *t - y > 0.0 && *t - y < COLUMN_GAP));
                }
            }
            // A box wide enough keeps the row.
            assert_eq!(graph_svg_fit(&v, 900.0), graph_svg(&v));
            assert!(graph_svg(&v).contains(&format!("width=\"{GRAPH_W}\"")));
        }
        assert!(sdown_seen, "the Sentinels' badges were drawn");
    }
}
