//! The node graph: Sentinels in a row on top with the master each believes in, the writing client, the nodes in a row by id, and the replication links as arcs below the boxes.

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

fn node_cx(i: usize, n: usize) -> f64 {
    GRAPH_W * (i as f64 + 0.5) / n.max(1) as f64
}

/// The node graph. Nodes keep their place by id, so a failover changes
/// colours and arrows, not positions.
pub fn graph_svg(v: &TopoView) -> String {
    let n = v.nodes.len();
    let link_depth = 34.0 + 14.0 * n as f64;
    let h = NODE_Y + NODE_H + link_depth + 24.0;
    let mut s = String::with_capacity(8192);
    svg::open(&mut s, GRAPH_W, h, "rs-topo-graph", "Replication topology");
    s.push_str(
        "<defs><marker id=\"rs-topo-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
         markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
         <path d=\"M0 0L10 5L0 10z\" fill=\"context-stroke\"/></marker></defs>",
    );
    sentinels(&mut s, &v.sentinels, n);
    client(&mut s, v);
    for l in &v.links {
        if l.from < n && l.to < n {
            link(&mut s, l, &v.nodes[l.to].link_status, n);
        }
    }
    let node_w = NODE_W_MAX.min(GRAPH_W / n.max(1) as f64 - 8.0);
    for nd in &v.nodes {
        node(&mut s, nd, n, node_w);
    }
    s.push_str("</svg>");
    s
}

/// Sentinels: a row of circles; a line to the master each believes in,
/// dashed red when it cannot reach it, and badges for its verdicts.
fn sentinels(s: &mut String, sentinels: &[SentinelView], n: usize) {
    let ns = sentinels.len();
    let sx = |i: usize| 220.0 + (GRAPH_W - 240.0) * (i as f64 + 0.5) / ns.max(1) as f64;
    for (i, st) in sentinels.iter().enumerate() {
        let m = st.master;
        if m < n {
            let class = if st.reaches_master {
                "rs-topo-sline"
            } else {
                "rs-topo-sline rs-topo-sline-cut"
            };
            svg::line(
                s,
                sx(i),
                SENT_Y + 14.0,
                node_cx(m, n),
                NODE_Y,
                &format!("class=\"{class}\""),
            );
        }
    }
    for (i, st) in sentinels.iter().enumerate() {
        sentinel(s, st, sx(i));
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

fn sentinel(s: &mut String, st: &SentinelView, x: f64) {
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
        px(SENT_Y),
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
        SENT_Y + 4.0,
        "middle",
        "class=\"rs-topo-slabel\"",
        &format!("S{}", st.id),
    );
    svg::text(
        s,
        x + 18.0,
        SENT_Y - 6.0,
        "start",
        "class=\"rs-topo-epoch\"",
        &format!("epoch {}", st.epoch),
    );
    // Wide enough for SDOWN in a bold fallback font with room either side:
    // at 44 px the text met the box's edges and two badges read as one word.
    const BADGE_W: f64 = 52.0;
    for (k, (label, class)) in badges.iter().enumerate() {
        let bx = x + 18.0 + k as f64 * (BADGE_W + 4.0);
        svg::rect(
            s,
            bx,
            SENT_Y,
            BADGE_W,
            14.0,
            &format!("rx=\"3\" class=\"rs-topo-badge {class}\""),
        );
        svg::text(
            s,
            bx + BADGE_W / 2.0,
            SENT_Y + 11.0,
            "middle",
            "class=\"rs-topo-badgetext\"",
            label,
        );
    }
    s.push_str("</g>");
}

/// The client, and an arrow to the node it writes to.
fn client(s: &mut String, v: &TopoView) {
    let n = v.nodes.len();
    svg::rect(
        s,
        10.0,
        SENT_Y - 16.0,
        120.0,
        34.0,
        if v.client_isolated_with.is_some() {
            "rx=\"6\" class=\"rs-topo-client rs-topo-client-cut\""
        } else {
            "rx=\"6\" class=\"rs-topo-client\""
        },
    );
    svg::text(
        s,
        70.0,
        SENT_Y + 5.0,
        "middle",
        "class=\"rs-topo-clabel\"",
        &match v.client_isolated_with {
            Some(n) => format!("client (cut off with node {n})"),
            None => "client".to_string(),
        },
    );
    if v.client_master < n {
        let _ = write!(
            s,
            "<path class=\"rs-topo-cpath\" data-client-master=\"{}\" d=\"M70 {} C70 {} {} {} {} {}\" marker-end=\"url(#rs-topo-arrow)\"><title>The client writes to node {} (the master Sentinel announced)</title></path>",
            v.client_master,
            px(SENT_Y + 18.0),
            px(NODE_Y - 30.0),
            px(node_cx(v.client_master, n) - 40.0),
            px(NODE_Y - 40.0),
            px(node_cx(v.client_master, n) - 40.0),
            px(NODE_Y - 2.0),
            v.client_master
        );
    }
}

/// A replication link: an arc from the master's box to the replica's, with
/// its latency, backlog and bytes in flight; `status` is the replica's link status.
fn link(s: &mut String, l: &LinkView, status: &str, n: usize) {
    let (x1, x2) = (node_cx(l.from, n), node_cx(l.to, n));
    let y = NODE_Y + NODE_H;
    let depth = 26.0 + 14.0 * (l.from as f64 - l.to as f64).abs();
    let (mx, my) = ((x1 + x2) / 2.0, y + depth);
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
    let _ = write!(
        s,
        "<path d=\"M{} {} Q{} {} {} {}\" marker-end=\"url(#rs-topo-arrow)\"/>",
        px(x1 + 8.0),
        px(y),
        px(mx),
        px(my + depth * 0.4),
        px(x2 - 8.0),
        px(y + 2.0),
    );
    let label = format!(
        "{} ms · {} behind · {} in flight{}",
        fmt_num((l.latency_ms * 10.0).round() / 10.0),
        bytes_text(l.behind_bytes),
        bytes_text(l.in_flight_bytes),
        if l.paused { " · paused" } else { "" }
    );
    svg::text(
        s,
        mx,
        my + depth * 0.2 + 4.0,
        "middle",
        "class=\"rs-topo-linklabel\"",
        &label,
    );
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
fn node(s: &mut String, nd: &NodeView, n: usize, node_w: f64) {
    // Characters of 11 px monospace that fit in a box.
    let chars = ((node_w - 14.0) / 6.7) as usize;
    let cx = node_cx(nd.id, n);
    let x = cx - node_w / 2.0;
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
    svg::rect(
        s,
        x,
        NODE_Y,
        node_w,
        NODE_H,
        "rx=\"8\" class=\"rs-topo-box\"",
    );
    for (k, l) in lines.iter().enumerate() {
        let class = match k {
            0 => "rs-topo-nhead",
            5 => "rs-topo-nstatus",
            _ => "rs-topo-nline",
        };
        svg::text(
            s,
            x + 8.0,
            NODE_Y + 17.0 + 18.0 * k as f64,
            "start",
            &format!("class=\"{class}\""),
            &svg::clip(l, chars),
        );
    }
    if !nd.alive {
        let (left, right) = (x + 4.0, x + node_w - 4.0);
        let (top, bottom) = (NODE_Y + 4.0, NODE_Y + NODE_H - 4.0);
        svg::line(s, left, top, right, bottom, "class=\"rs-topo-cross\"");
        svg::line(s, right, top, left, bottom, "class=\"rs-topo-cross\"");
    }
    s.push_str("</g>");
}
