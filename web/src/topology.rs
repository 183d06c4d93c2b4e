//! The Topology tab: a live replication topology (master, replicas, Sentinels, a writing client) stepped in virtual time, drawn as a node graph and per-node timelines, with controls to kill, partition, pause links and fail over, and share links that replay the same session.
//!
//! The world is the engine's `sim::topology::Topology`, a deterministic
//! function of (options, control script). The view keeps one and moves its
//! clock with a timer (play/pause and a speed), so every drawing is a pure
//! function of `view()` and `events()` at the current instant. Controls go
//! through `Topology::control`, which logs them with their virtual time;
//! that log is the share link (`?tab=topology&seed=..&do=<t_ms>:<token>,..&t=<ms>`),
//! and opening the link calls `Topology::replay` to rebuild the same state.
//!
//! Both drawings are SVG strings (as redsim-viz's are): the timelines can
//! hold thousands of marks, and one string per frame is far cheaper than a
//! virtual DOM node per mark. Dense marks (writes, acks, arrivals, fsyncs)
//! are merged per few pixels, so a frame stays small at any write rate;
//! lost acknowledged writes are always drawn one by one, in red.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use gloo::timers::callback::Interval;
use redsim_sim::params::fmt_num as num_text;
use redsim_sim::topology::{
    options_query, set_option, Control, NodeEvent, NodeEventKind, TopoOptions, TopoView, Topology,
    WriteRecord, FSYNC_MODES,
};
use redsim_viz::svg::{esc, px, time_exact};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::share::parse_query;

/// Timer period while playing, ms of wall time.
const TICK_MS: u32 = 50;
/// The most wall time one tick may cover (a background tab's timer fires late).
const MAX_TICK_MS: f64 = 250.0;
/// Virtual ms per wall ms.
const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 5.0, 10.0];
/// Timeline windows, s of virtual time.
const WINDOWS_S: [u64; 4] = [5, 10, 30, 60];
/// How often (wall ms) the address bar follows the clock while playing.
const URL_EVERY_MS: f64 = 1000.0;
/// The latest instant a link replays to: opening a link runs the world from
/// zero, and an hour of virtual time at a high write rate already takes
/// the browser a minute or more.
const MAX_REPLAY_US: u64 = 3_600_000_000;

/// What a link or element asks the view to start with: raw key/value pairs,
/// resolved (and checked) by [`TopoPreset::resolve`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopoPreset {
    pub pairs: Vec<(String, String)>,
}

/// A preset read: options, the control script, the instant to replay to,
/// and what was wrong with it (bad parts are skipped, not fatal).
pub struct Resolved {
    pub opts: TopoOptions,
    pub script: Vec<(u64, Control)>,
    pub until_us: Option<u64>,
    pub problems: Vec<String>,
}

impl TopoPreset {
    /// Reads `?tab=topology&seed=..&<option>=..&do=..&t=..` from a query
    /// string and fragment (the fragment wins).
    pub fn from_url(search: &str, hash: &str) -> TopoPreset {
        let mut p = TopoPreset::default();
        for part in [search.trim_start_matches('?'), hash.trim_start_matches('#')] {
            p.pairs.extend(parse_query(part));
        }
        p
    }

    /// Reads a `[data-redsim-topology]` element's `data-seed` and
    /// `data-params="replicas=3&do=2000:kill.0"`.
    pub fn from_attrs(seed: Option<&str>, params: Option<&str>) -> TopoPreset {
        let mut p = TopoPreset::default();
        if let Some(s) = seed {
            p.pairs.push(("seed".into(), s.to_string()));
        }
        p.pairs.extend(parse_query(params.unwrap_or("")));
        p
    }

    /// Options, script and instant; a bad part is reported and left out.
    pub fn resolve(&self) -> Resolved {
        let mut r = Resolved {
            opts: TopoOptions::default(),
            script: Vec::new(),
            until_us: None,
            problems: Vec::new(),
        };
        for (k, v) in &self.pairs {
            match k.as_str() {
                "do" => match parse_script(v) {
                    Ok(s) if s.last().is_some_and(|(t, _)| *t > MAX_REPLAY_US) => {
                        r.problems.push(format!(
                            "controls past {} s are more than a link may replay; ignored",
                            MAX_REPLAY_US / 1_000_000
                        ))
                    }
                    Ok(s) => r.script = s,
                    Err(e) => r.problems.push(e),
                },
                "t" => match parse_ms(v) {
                    Some(t) if t > MAX_REPLAY_US => {
                        r.problems.push(format!(
                            "t {} s is past the {} s a link may replay; stopping there",
                            t / 1_000_000,
                            MAX_REPLAY_US / 1_000_000
                        ));
                        r.until_us = Some(MAX_REPLAY_US);
                    }
                    Some(t) => r.until_us = Some(t),
                    None => r.problems.push(format!("t '{v}' is not a time in ms")),
                },
                _ => match set_option(&mut r.opts, k, v) {
                    Ok(_) => {}
                    Err(e) => r.problems.push(e),
                },
            }
        }
        if r.opts.quorum > r.opts.sentinels {
            r.problems.push(format!(
                "quorum {} is more than the {} sentinels; using {}",
                r.opts.quorum, r.opts.sentinels, r.opts.sentinels
            ));
            r.opts.quorum = r.opts.sentinels;
        }
        r
    }
}

/// A virtual instant in ms for a link: whole ms plainly, else with the
/// microseconds (`1500.25`), so links round-trip exactly.
pub fn fmt_ms(us: u64) -> String {
    if us.is_multiple_of(1000) {
        format!("{}", us / 1000)
    } else {
        let s = format!("{}.{:03}", us / 1000, us % 1000);
        s.trim_end_matches('0').to_string()
    }
}

/// Reads [`fmt_ms`]'s text back to µs (at most three decimals).
pub fn parse_ms(s: &str) -> Option<u64> {
    let s = s.trim();
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty()
        || frac.len() > 3
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let ms: u64 = whole.parse().ok()?;
    let frac_us: u64 = format!("{frac:0<3}").parse().ok()?;
    ms.checked_mul(1000)?.checked_add(frac_us)
}

/// The script as `<t_ms>:<token>,…`.
pub fn script_text(script: &[(u64, Control)]) -> String {
    script
        .iter()
        .map(|(t, c)| format!("{}:{}", fmt_ms(*t), c.token()))
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads [`script_text`] back; times must not go backwards.
pub fn parse_script(s: &str) -> Result<Vec<(u64, Control)>, String> {
    let mut out: Vec<(u64, Control)> = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (t, token) = item
            .split_once(':')
            .ok_or(format!("control '{item}' is not <t_ms>:<token>"))?;
        let t = parse_ms(t).ok_or(format!("control '{item}': '{t}' is not a time in ms"))?;
        if out.last().is_some_and(|(last, _)| *last > t) {
            return Err(format!("control '{item}' goes back in time"));
        }
        let c = Control::parse(token).map_err(|e| format!("control '{item}': {e}"))?;
        out.push((t, c));
    }
    Ok(out)
}

/// The link that reopens this session: `base` (the page path), the options
/// that differ from the defaults, the script and the instant.
pub fn topo_link(base: &str, o: &TopoOptions, script: &[(u64, Control)], now_us: u64) -> String {
    let mut url = format!("{base}?tab=topology&seed={}", o.seed);
    url.push_str(&options_query(o));
    if !script.is_empty() {
        url.push_str("&do=");
        url.push_str(&script_text(script));
    }
    url.push_str("&t=");
    url.push_str(&fmt_ms(now_us));
    url
}

// ---------- drawing: the topology graph ----------

const GRAPH_W: f64 = 860.0;
/// Widest node box; with five nodes they get narrower to fit.
const NODE_W_MAX: f64 = 176.0;
const NODE_H: f64 = 112.0;
const NODE_Y: f64 = 118.0;
const SENT_Y: f64 = 34.0;

fn node_cx(i: usize, n: usize) -> f64 {
    GRAPH_W * (i as f64 + 0.5) / n.max(1) as f64
}

fn bytes_text(b: u64) -> String {
    if b < 10_000 {
        format!("{b} B")
    } else if b < 10_000_000 {
        format!("{} KB", b / 1000)
    } else {
        format!("{} MB", b / 1_000_000)
    }
}

/// The node graph: sentinels on top, the client, nodes in a row by id (so a
/// failover changes colours and arrows, not positions), replication links as
/// arcs below the boxes.
pub fn graph_svg(v: &TopoView) -> String {
    let n = v.nodes.len();
    let link_depth = 34.0 + 14.0 * n as f64;
    let h = NODE_Y + NODE_H + link_depth + 24.0;
    let mut s = String::with_capacity(8192);
    redsim_viz::svg::open(&mut s, GRAPH_W, h, "rs-topo-graph", "Replication topology");
    s.push_str(
        "<defs><marker id=\"rs-topo-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
         markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
         <path d=\"M0 0L10 5L0 10z\" fill=\"context-stroke\"/></marker></defs>",
    );
    // Sentinels: a row of circles; a line to the master they believe in,
    // dashed red when they cannot reach it.
    let ns = v.sentinels.len();
    let sx = |i: usize| 220.0 + (GRAPH_W - 240.0) * (i as f64 + 0.5) / ns.max(1) as f64;
    for (i, st) in v.sentinels.iter().enumerate() {
        let m = st.master;
        if m < n {
            let class = if st.reaches_master {
                "rs-topo-sline"
            } else {
                "rs-topo-sline rs-topo-sline-cut"
            };
            redsim_viz::svg::line(
                &mut s,
                sx(i),
                SENT_Y + 14.0,
                node_cx(m, n),
                NODE_Y,
                &format!("class=\"{class}\""),
            );
        }
    }
    for (i, st) in v.sentinels.iter().enumerate() {
        let x = sx(i);
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
        let detail = format!(
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
        );
        let _ = write!(
            s,
            "<g class=\"rs-topo-sentinel\" data-sentinel=\"{}\" data-sdown=\"{}\" data-odown=\"{}\" data-leader=\"{}\" data-detail=\"{}\"><title>{}</title>",
            st.id,
            st.sdown,
            st.odown,
            st.leader,
            esc(&detail),
            esc(&detail)
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
        redsim_viz::svg::text(
            &mut s,
            x,
            SENT_Y + 4.0,
            "middle",
            "class=\"rs-topo-slabel\"",
            &format!("S{}", st.id),
        );
        redsim_viz::svg::text(
            &mut s,
            x + 18.0,
            SENT_Y - 6.0,
            "start",
            "class=\"rs-topo-epoch\"",
            &format!("epoch {}", st.epoch),
        );
        for (k, (label, class)) in badges.iter().enumerate() {
            let bx = x + 18.0 + k as f64 * 46.0;
            redsim_viz::svg::rect(
                &mut s,
                bx,
                SENT_Y,
                44.0,
                14.0,
                &format!("rx=\"3\" class=\"rs-topo-badge {class}\""),
            );
            redsim_viz::svg::text(
                &mut s,
                bx + 22.0,
                SENT_Y + 11.0,
                "middle",
                "class=\"rs-topo-badgetext\"",
                label,
            );
        }
        s.push_str("</g>");
    }
    // The client, and the node it writes to.
    redsim_viz::svg::rect(
        &mut s,
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
    redsim_viz::svg::text(
        &mut s,
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
    // Links: arcs from the master's bottom to each replica's.
    for l in &v.links {
        if l.from >= n || l.to >= n {
            continue;
        }
        let (x1, x2) = (node_cx(l.from, n), node_cx(l.to, n));
        let y = NODE_Y + NODE_H;
        let depth = 26.0 + 14.0 * (l.from as f64 - l.to as f64).abs();
        let (mx, my) = ((x1 + x2) / 2.0, y + depth);
        let status = v.nodes[l.to].link_status.as_str();
        let detail = format!(
            "link node {} → node {}: {} ms, {} behind, {} in flight{}, link {}",
            l.from,
            l.to,
            num_text((l.latency_ms * 100.0).round() / 100.0),
            bytes_text(l.behind_bytes),
            bytes_text(l.in_flight_bytes),
            if l.paused { ", PAUSED" } else { "" },
            status
        );
        let _ = write!(
            s,
            "<g class=\"rs-topo-link{}{}\" data-from=\"{}\" data-to=\"{}\" data-paused=\"{}\" data-detail=\"{}\"><title>{}</title>\
             <path d=\"M{} {} Q{} {} {} {}\" marker-end=\"url(#rs-topo-arrow)\"/>",
            if l.paused { " rs-topo-paused" } else { "" },
            if status == "up" { "" } else { " rs-topo-linkdown" },
            l.from,
            l.to,
            l.paused,
            esc(&detail),
            esc(&detail),
            px(x1 + 8.0),
            px(y),
            px(mx),
            px(my + depth * 0.4),
            px(x2 - 8.0),
            px(y + 2.0),
        );
        let label = format!(
            "{} ms · {} behind · {} in flight{}",
            num_text((l.latency_ms * 10.0).round() / 10.0),
            bytes_text(l.behind_bytes),
            bytes_text(l.in_flight_bytes),
            if l.paused { " · paused" } else { "" }
        );
        redsim_viz::svg::text(
            &mut s,
            mx,
            my + depth * 0.2 + 4.0,
            "middle",
            "class=\"rs-topo-linklabel\"",
            &label,
        );
        s.push_str("</g>");
    }
    // Nodes.
    let node_w = NODE_W_MAX.min(GRAPH_W / n.max(1) as f64 - 8.0);
    // Characters of 11 px monospace that fit in a box.
    let chars = ((node_w - 14.0) / 6.7) as usize;
    for nd in &v.nodes {
        let cx = node_cx(nd.id, n);
        let x = cx - node_w / 2.0;
        let mut classes = format!("rs-topo-node rs-topo-{}", esc(&nd.role));
        if !nd.alive {
            classes.push_str(" rs-topo-dead");
        }
        if nd.isolated {
            classes.push_str(" rs-topo-isolated");
        }
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
        let lines = [
            head.clone(),
            nd.addr.clone(),
            format!("offset {}", nd.offset),
            format!("keys {}", nd.keys),
            format!("appendfsync {}", nd.appendfsync),
            status.clone(),
        ];
        let detail = format!(
            "{}\nAOF records fsynced: {} of {}\nreplica-priority {}",
            lines.join("\n"),
            nd.aof_fsynced_records,
            nd.aof_records,
            nd.priority
        );
        let _ = write!(
            s,
            "<g class=\"{classes}\" data-node=\"{}\" data-role=\"{}\" data-alive=\"{}\" data-isolated=\"{}\" data-offset=\"{}\" data-detail=\"{}\"><title>{}</title>",
            nd.id,
            esc(&nd.role),
            nd.alive,
            nd.isolated,
            nd.offset,
            esc(&detail),
            esc(&detail)
        );
        redsim_viz::svg::rect(
            &mut s,
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
            redsim_viz::svg::text(
                &mut s,
                x + 8.0,
                NODE_Y + 17.0 + 18.0 * k as f64,
                "start",
                &format!("class=\"{class}\""),
                &redsim_viz::svg::clip(l, chars),
            );
        }
        if !nd.alive {
            redsim_viz::svg::line(
                &mut s,
                x + 4.0,
                NODE_Y + 4.0,
                x + node_w - 4.0,
                NODE_Y + NODE_H - 4.0,
                "class=\"rs-topo-cross\"",
            );
            redsim_viz::svg::line(
                &mut s,
                x + node_w - 4.0,
                NODE_Y + 4.0,
                x + 4.0,
                NODE_Y + NODE_H - 4.0,
                "class=\"rs-topo-cross\"",
            );
        }
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    s
}

// ---------- drawing: per-node timelines ----------

const LANES_W: f64 = 980.0;
const LANE_LABEL: f64 = 96.0;
const LANE_H: f64 = 50.0;
const AXIS_H: f64 = 22.0;
/// Dense marks closer than this (px) are merged into one.
const BIN_PX: f64 = 3.0;

/// Kinds of dense marks, merged per bin.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
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
}

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

/// Spans still open on the lanes, by (node, CSS class): since when, and what.
type Open = BTreeMap<(usize, &'static str), (u64, String)>;
/// Spans to draw: (node, from, to, CSS class, title).
type Spans<'a> = Vec<(usize, u64, u64, &'a str, String)>;
/// Ends the open span `class` of `node` at `end`, if one is open.
fn close(
    open: &mut Open,
    spans: &mut Spans,
    node: usize,
    class: &'static str,
    end: u64,
    suffix: String,
) {
    if let Some((from, what)) = open.remove(&(node, class)) {
        let text = format!(
            "node {node}{what} {} – {}{suffix}",
            time_exact(from),
            time_exact(end)
        );
        spans.push((node, from, end, class, text));
    }
}

/// The per-node lanes over `[now - window, now]` (or `[0, window]` early on).
pub fn lanes_svg(
    v: &TopoView,
    events: &[NodeEvent],
    writes: &[WriteRecord],
    window_us: u64,
) -> String {
    let n = v.nodes.len();
    let h = AXIS_H + LANE_H * n as f64 + 8.0;
    let t1 = v.now_us.max(window_us);
    let t0 = t1 - window_us;
    let plot_w = LANES_W - LANE_LABEL - 12.0;
    let x_of =
        |t: u64| LANE_LABEL + (t.saturating_sub(t0)) as f64 / window_us.max(1) as f64 * plot_w;
    let lane_y = |node: usize| AXIS_H + LANE_H * node as f64;
    let mut s = String::with_capacity(32 * 1024);
    redsim_viz::svg::open(&mut s, LANES_W, h, "rs-topo-lanes", "Per-node timelines");
    // Lanes and the axis.
    for nd in &v.nodes {
        let y = lane_y(nd.id);
        redsim_viz::svg::rect(
            &mut s,
            0.0,
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
        redsim_viz::svg::text(
            &mut s,
            6.0,
            y + 20.0,
            "start",
            "class=\"rs-topo-lanename\"",
            &format!("node {}", nd.id),
        );
        redsim_viz::svg::text(
            &mut s,
            6.0,
            y + 36.0,
            "start",
            "class=\"rs-topo-lanerole\"",
            &if nd.alive {
                nd.role.clone()
            } else {
                "dead".to_string()
            },
        );
    }
    let step_us: u64 = if window_us <= 10_000_000 {
        1_000_000
    } else {
        5_000_000
    };
    let mut t = t0.div_ceil(step_us) * step_us;
    while t <= t1 {
        let x = x_of(t);
        redsim_viz::svg::line(
            &mut s,
            x,
            AXIS_H - 4.0,
            x,
            h - 8.0,
            "class=\"rs-topo-grid\"",
        );
        redsim_viz::svg::text(
            &mut s,
            x,
            AXIS_H - 8.0,
            "middle",
            "class=\"rs-topo-tick\"",
            &format!("{} s", t / 1_000_000),
        );
        t += step_us;
    }
    let lost: BTreeMap<u64, u64> = writes
        .iter()
        .filter_map(|w| w.lost_us.map(|l| (w.id, l)))
        .collect();
    // Spans (a node down, a snapshot) open before the window are found by
    // walking every event: `events()` is bounded, so this stays cheap.
    let mut open: Open = BTreeMap::new();
    let mut spans: Spans = Vec::new();
    let mut bins: BTreeMap<(usize, Dense, i64), Bin> = BTreeMap::new();
    let mut singles = String::new();
    // Where the last label on each (lane, row) ends, so labels never overlap.
    let mut label_end: BTreeMap<(usize, i64), f64> = BTreeMap::new();
    for e in events {
        if e.node >= n {
            continue;
        }
        // Span edges: (class, Some(what) to open | None to close, suffix on close).
        let edge = match &e.kind {
            NodeEventKind::Crash { power_loss } => {
                let how = if *power_loss {
                    "power loss"
                } else {
                    "process crash"
                };
                Some((
                    "rs-topo-downspan",
                    Some(format!(" down ({how})")),
                    String::new(),
                ))
            }
            NodeEventKind::Restart { .. } => Some(("rs-topo-downspan", None, String::new())),
            NodeEventKind::Partitioned => Some((
                "rs-topo-cutspan",
                Some(" partitioned".into()),
                String::new(),
            )),
            NodeEventKind::Healed => Some(("rs-topo-cutspan", None, String::new())),
            NodeEventKind::LinkPaused => Some((
                "rs-topo-pausespan",
                Some(": replication link paused".into()),
                String::new(),
            )),
            NodeEventKind::LinkResumed => Some(("rs-topo-pausespan", None, String::new())),
            NodeEventKind::SnapshotStart => Some((
                "rs-topo-snapspan",
                Some(" snapshot (BGSAVE)".into()),
                String::new(),
            )),
            NodeEventKind::SnapshotEnd { cow_bytes } => Some((
                "rs-topo-snapspan",
                None,
                format!(", copy-on-write {}", bytes_text(*cow_bytes)),
            )),
            _ => None,
        };
        match edge {
            Some((class, Some(what), _)) => {
                open.insert((e.node, class), (e.at_us, what));
            }
            Some((class, None, suffix)) => {
                close(&mut open, &mut spans, e.node, class, e.at_us, suffix)
            }
            None => {}
        }
        if e.at_us < t0 || e.at_us > t1 {
            continue;
        }
        let x = x_of(e.at_us);
        let y = lane_y(e.node);
        let dense = |d: Dense, items: u64, id: Option<u64>| (d, items, id);
        let kind = match &e.kind {
            NodeEventKind::Write { id } if !lost.contains_key(id) => {
                Some(dense(Dense::Write, 1, Some(*id)))
            }
            NodeEventKind::Acked { id } if !lost.contains_key(id) => {
                Some(dense(Dense::Acked, 1, Some(*id)))
            }
            NodeEventKind::Arrived { writes, .. } => Some(dense(Dense::Arrived, *writes, None)),
            NodeEventKind::Ack { .. } => Some(dense(Dense::Ack, 1, None)),
            NodeEventKind::Fsync { records } => Some(dense(Dense::Fsync, *records, None)),
            NodeEventKind::Refused { id, .. } => Some(dense(Dense::Refused, 1, Some(*id))),
            _ => None,
        };
        if let Some((d, items, id)) = kind {
            let b = bins.entry((e.node, d, (x / BIN_PX) as i64)).or_insert(Bin {
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
            });
            b.count += 1;
            b.items += items;
            b.last_us = e.at_us;
            if id.is_some() {
                b.first_id = b.first_id.or(id);
                b.last_id = id;
            }
            continue;
        }
        single_mark(&mut singles, e, x, y, &lost, &mut label_end);
    }
    // Spans still open run to now.
    for ((node, class), (from, what)) in open {
        let text = format!("node {node}{what} since {}", time_exact(from));
        spans.push((node, from, v.now_us, class, text));
    }
    // The engine keeps the latest events only: say where the older ones went
    // (a write record older than the first event means events were dropped).
    if let Some(first) = events.first() {
        let dropped = writes.first().is_some_and(|w| w.sent_us < first.at_us);
        if dropped && first.at_us > t0 {
            let x = x_of(first.at_us);
            let detail = format!(
                "events before {} are no longer kept (the last {} or so are)",
                time_exact(first.at_us),
                redsim_sim::topology::EVENTS_CAP
            );
            let _ = write!(
                s,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"rs-topo-dropped\" data-detail=\"{}\"><title>{}</title></rect>",
                px(LANE_LABEL),
                px(AXIS_H),
                px((x - LANE_LABEL).max(0.0)),
                px(LANE_H * n as f64),
                esc(&detail),
                esc(&detail)
            );
        }
    }
    for (node, from, to, class, detail) in &spans {
        if *to < t0 || *from > t1 {
            continue;
        }
        let (xa, xb) = (x_of((*from).max(t0)), x_of((*to).min(t1)));
        let y = lane_y(*node);
        let (yy, hh) = match *class {
            "rs-topo-snapspan" => (y + 36.0, 8.0),
            "rs-topo-pausespan" => (y + 20.0, 12.0),
            _ => (y + 1.0, LANE_H - 2.0),
        };
        let _ = write!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"{class}\" data-detail=\"{}\"><title>{}</title></rect>",
            px(xa),
            px(yy),
            px((xb - xa).max(2.0)),
            px(hh),
            esc(detail),
            esc(detail)
        );
    }
    for ((node, d, bin), b) in &bins {
        let x = (*bin as f64 + 0.5) * BIN_PX;
        let y = lane_y(*node);
        let when = if b.first_us == b.last_us {
            time_exact(b.first_us)
        } else {
            format!("{} – {}", time_exact(b.first_us), time_exact(b.last_us))
        };
        let ids = match (b.first_id, b.last_id) {
            (Some(a), Some(z)) if a == z => format!(" (write {a})"),
            (Some(a), Some(z)) => format!(" (writes {a}–{z})"),
            _ => String::new(),
        };
        let what = match d {
            Dense::Write => format!("{} write(s) sent{ids}", b.count),
            Dense::Acked => format!("{} write(s) acknowledged{ids}", b.count),
            Dense::Arrived => format!(
                "replication arrived: {} write(s) in {} batch(es)",
                b.items, b.count
            ),
            Dense::Ack => format!("{} REPLCONF ACK(s) to the master", b.count),
            Dense::Fsync => format!("{} fsync(s), {} record(s)", b.count, b.items),
            Dense::Refused => format!(
                "{} write(s) refused{ids}{}",
                b.count,
                b.error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ),
        };
        let detail = format!("node {node}: {what} at {when}");
        let (yy, hh) = match d {
            Dense::Write => (y + 4.0, 8.0),
            Dense::Acked => (y + 12.0, 8.0),
            Dense::Arrived => (y + 22.0, 8.0),
            Dense::Ack => (y + 30.0, 5.0),
            Dense::Fsync => (y + 38.0, 6.0),
            Dense::Refused => (y + 12.0, 8.0),
        };
        let _ = write!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"2\" height=\"{}\" class=\"rs-topo-m rs-topo-d-{}\" data-kind=\"{}\" data-detail=\"{}\"><title>{}</title></rect>",
            px(x - 1.0),
            px(yy),
            px(hh),
            d.name(),
            d.name(),
            esc(&detail),
            esc(&detail)
        );
    }
    s.push_str(&singles);
    let xn = x_of(v.now_us);
    redsim_viz::svg::line(
        &mut s,
        xn,
        AXIS_H - 4.0,
        xn,
        h - 8.0,
        "class=\"rs-topo-now\"",
    );
    s.push_str("</svg>");
    s
}

/// A mark drawn on its own: lifecycle, Sentinel and sync events, and the
/// writes of a lost acknowledged write (always visible, in red).
fn single_mark(
    s: &mut String,
    e: &NodeEvent,
    x: f64,
    y: f64,
    lost: &BTreeMap<u64, u64>,
    label_end: &mut BTreeMap<(usize, i64), f64>,
) {
    let at = time_exact(e.at_us);
    let node = e.node;
    let lost_text = |id: &u64| {
        lost.get(id)
            .map(|l| format!(", LOST at {}", time_exact(*l)))
            .unwrap_or_default()
    };
    // (kind, label, detail, class, y offset)
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
        _ => return,
    };
    let detail = esc(&detail);
    let _ = write!(
        s,
        "<g class=\"rs-topo-m {class}\" data-kind=\"{kind}\" data-detail=\"{detail}\"><title>{detail}</title>"
    );
    // A label is left out (the mark and its title stay) where it would
    // overlap the previous one on the same lane and row.
    let mut label_fits = |lx: f64, row: f64| {
        let key = (node, row as i64);
        if label_end.get(&key).is_some_and(|end| lx < *end) {
            return false;
        }
        label_end.insert(key, lx + redsim_viz::svg::text_width(&label, 10.0) + 4.0);
        true
    };
    match kind {
        "write" | "acked" => {
            redsim_viz::svg::rect(s, x - 1.5, y + dy, 3.0, 8.0, "");
        }
        "repointed" | "fullsync" | "partialsync" | "linkdown" | "linkpaused" | "linkresumed"
        | "appendfsync" => {
            let _ = write!(
                s,
                "<circle cx=\"{}\" cy=\"{}\" r=\"3\"/>",
                px(x),
                px(y + dy + 4.0)
            );
            if label_fits(x + 5.0, dy) {
                redsim_viz::svg::text(s, x + 5.0, y + dy + 8.0, "start", "", &label);
            }
        }
        _ => {
            redsim_viz::svg::line(s, x, y + 1.0, x, y + LANE_H - 1.0, "");
            if label_fits(x + 3.0, dy) {
                redsim_viz::svg::text(s, x + 3.0, y + 10.0 + dy, "start", "", &label);
            }
        }
    }
    s.push_str("</g>");
}

// ---------- the component ----------

#[derive(Properties, PartialEq, Clone)]
pub struct TopoProps {
    pub preset: TopoPreset,
    /// Keep the address bar in step with the session (the playground page).
    #[prop_or_default]
    pub shareable: bool,
    /// Whether the view is on screen; nothing is built or run until it is.
    #[prop_or(true)]
    pub active: bool,
}

pub enum Msg {
    Play,
    Pause,
    Tick,
    /// Run this many ms of virtual time at once.
    Step(u64),
    Speed(f64),
    Window(u64),
    Control(Control),
    /// An option of the setup form: the world is rebuilt.
    SetOption(&'static str, String),
    Reset,
    /// Show (or clear) the details of a clicked node, link or mark.
    Detail(Option<String>),
    /// A form value that cannot be used.
    Invalid(String),
}

/// A link's script and instant, waiting for the view to be shown.
type Pending = (Vec<(u64, Control)>, Option<u64>);

pub struct TopologyTab {
    opts: TopoOptions,
    topo: Option<Topology>,
    /// From the link, replayed when the view is first shown.
    pending: Option<Pending>,
    ticker: Option<Interval>,
    last_wall: f64,
    carry_us: f64,
    speed: f64,
    window_s: u64,
    /// Live settings (the last SetWait / SetWriteRate, else the options').
    wait: i64,
    rate: f64,
    detail: Option<String>,
    notice: Option<String>,
    error: Option<String>,
    url_wall: f64,
    /// Wall ms the last build (replay) took.
    took_ms: f64,
    /// Wall ms the last step of virtual time took, and the last drawing.
    step_ms: f64,
    draw_ms: std::cell::Cell<f64>,
}

fn wall_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

impl TopologyTab {
    fn build(&mut self) {
        let started = wall_ms();
        let (script, until) = self.pending.take().unwrap_or_default();
        let topo = if script.is_empty() && until.is_none() {
            Topology::new(self.opts.clone())
        } else {
            let until = until.unwrap_or_else(|| script.last().map_or(0, |(t, _)| *t));
            Topology::replay(self.opts.clone(), &script, until)
        };
        self.wait = self.opts.wait;
        self.rate = self.opts.writes_per_sec;
        for (_, c) in topo.script() {
            match c {
                Control::SetWait(w) => self.wait = *w,
                Control::SetWriteRate(r) => self.rate = *r,
                _ => {}
            }
        }
        self.topo = Some(topo);
        self.carry_us = 0.0;
        self.took_ms = wall_ms() - started;
    }

    fn start(&mut self, ctx: &Context<Self>) {
        self.last_wall = wall_ms();
        self.carry_us = 0.0;
        let link = ctx.link().clone();
        self.ticker = Some(Interval::new(TICK_MS, move || link.send_message(Msg::Tick)));
    }

    fn advance_ms(&mut self, ms: u64) {
        if let Some(t) = self.topo.as_mut() {
            let started = wall_ms();
            let to = t.now_us() + ms * 1000;
            t.advance_to(to);
            self.step_ms = wall_ms() - started;
        }
    }

    fn update_url(&mut self, ctx: &Context<Self>) {
        if !ctx.props().shareable || !ctx.props().active {
            return;
        }
        let (Some(window), Some(topo)) = (web_sys::window(), self.topo.as_ref()) else {
            return;
        };
        let base = window.location().pathname().unwrap_or_default();
        let url = topo_link(&base, &self.opts, topo.script(), topo.now_us());
        if let Ok(h) = window.history() {
            let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&url));
        }
        self.url_wall = wall_ms();
    }

    fn share_url(&self) -> String {
        let Some(topo) = self.topo.as_ref() else {
            return String::new();
        };
        let loc = web_sys::window().map(|w| w.location());
        let base = loc
            .map(|l| {
                format!(
                    "{}{}",
                    l.origin().unwrap_or_default(),
                    l.pathname().unwrap_or_default()
                )
            })
            .unwrap_or_default();
        topo_link(&base, &self.opts, topo.script(), topo.now_us())
    }
}

impl Component for TopologyTab {
    type Message = Msg;
    type Properties = TopoProps;

    fn create(ctx: &Context<Self>) -> Self {
        let r = ctx.props().preset.resolve();
        let fresh = r.script.is_empty() && r.until_us.is_none();
        let mut t = TopologyTab {
            wait: r.opts.wait,
            rate: r.opts.writes_per_sec,
            opts: r.opts,
            topo: None,
            pending: Some((r.script, r.until_us)),
            ticker: None,
            last_wall: 0.0,
            carry_us: 0.0,
            speed: 1.0,
            window_s: 10,
            detail: None,
            notice: (!r.problems.is_empty()).then(|| r.problems.join("; ")),
            error: None,
            url_wall: 0.0,
            took_ms: 0.0,
            step_ms: 0.0,
            draw_ms: std::cell::Cell::new(0.0),
        };
        if ctx.props().active {
            t.build();
            // A fresh session starts running; a shared one stops where it was shared.
            if fresh {
                t.start(ctx);
            }
        }
        t
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Self::Properties) -> bool {
        if ctx.props().active && self.topo.is_none() {
            let fresh = self
                .pending
                .as_ref()
                .is_none_or(|(s, u)| s.is_empty() && u.is_none());
            self.build();
            if fresh {
                self.start(ctx);
            }
        }
        if ctx.props().active {
            self.update_url(ctx);
        } else {
            self.ticker = None;
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        if crate::panic::is_dead() {
            self.ticker = None;
            return false;
        }
        match msg {
            Msg::Play => {
                if self.topo.is_none() {
                    self.build();
                }
                self.start(ctx);
            }
            Msg::Pause => {
                self.ticker = None;
                self.update_url(ctx);
            }
            Msg::Tick => {
                if self.ticker.is_none() {
                    return false;
                }
                let now = wall_ms();
                let dt = (now - self.last_wall).clamp(0.0, MAX_TICK_MS);
                self.last_wall = now;
                self.carry_us += dt * 1000.0 * self.speed;
                // Whole ms of virtual time per step, so controls land on
                // round instants and links stay short.
                let ms = (self.carry_us / 1000.0).floor();
                if ms < 1.0 {
                    return false;
                }
                self.carry_us -= ms * 1000.0;
                self.advance_ms(ms as u64);
                if now - self.url_wall >= URL_EVERY_MS {
                    self.update_url(ctx);
                }
            }
            Msg::Step(ms) => {
                if self.topo.is_none() {
                    self.build();
                }
                self.advance_ms(ms);
                self.update_url(ctx);
            }
            Msg::Speed(s) => self.speed = s,
            Msg::Window(w) => self.window_s = w,
            Msg::Control(c) => {
                let Some(topo) = self.topo.as_mut() else {
                    return false;
                };
                let (wait, rate) = match &c {
                    Control::SetWait(w) => (Some(*w), None),
                    Control::SetWriteRate(r) => (None, Some(*r)),
                    _ => (None, None),
                };
                match topo.control(c) {
                    Ok(()) => {
                        self.error = None;
                        self.wait = wait.unwrap_or(self.wait);
                        self.rate = rate.unwrap_or(self.rate);
                    }
                    Err(e) => self.error = Some(e),
                }
                self.update_url(ctx);
            }
            Msg::SetOption(k, v) => {
                let mut o = self.opts.clone();
                match set_option(&mut o, k, &v) {
                    Ok(_) => {
                        if o.quorum > o.sentinels {
                            o.quorum = o.sentinels;
                        }
                        self.opts = o;
                        self.notice = None;
                        self.error = None;
                        self.build();
                        self.update_url(ctx);
                    }
                    Err(e) => self.error = Some(e),
                }
            }
            Msg::Reset => {
                self.notice = None;
                self.error = None;
                self.detail = None;
                self.build();
                self.update_url(ctx);
            }
            Msg::Detail(d) => self.detail = d,
            Msg::Invalid(e) => self.error = Some(e),
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let Some(topo) = self.topo.as_ref() else {
            return html! { <div class="rs-topo" data-view="topology"></div> };
        };
        let drawing = wall_ms();
        let v = topo.view();
        let playing = self.ticker.is_some();
        let window_us = self.window_s * 1_000_000;
        let graph = graph_svg(&v);
        let lanes = lanes_svg(&v, topo.events(), topo.writes(), window_us);
        self.draw_ms.set(wall_ms() - drawing);
        let on_detail = link.callback(|e: MouseEvent| {
            let d = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|el| el.closest("[data-detail]").ok().flatten())
                .and_then(|el| el.get_attribute("data-detail"));
            Msg::Detail(d)
        });
        let speed = link.callback(|e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            Msg::Speed(s.value().parse().unwrap_or(1.0))
        });
        let window = link.callback(|e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            Msg::Window(s.value().parse().unwrap_or(10))
        });
        let wait = link.callback(|e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            Msg::Control(Control::SetWait(s.value().parse().unwrap_or(0)))
        });
        let rate = link.callback(|e: Event| {
            let i: HtmlInputElement = e.target_unchecked_into();
            match i.value().trim().parse::<f64>() {
                Ok(r) if r.is_finite() && (0.0..=1000.0).contains(&r) => {
                    Msg::Control(Control::SetWriteRate(r))
                }
                _ => Msg::Invalid(format!(
                    "write rate '{}' is not a number in 0..=1000",
                    i.value()
                )),
            }
        });
        html! {
            <div class="rs-topo" data-view="topology">
                <p class="rs-topo-intro">
                    { "A master, its replicas and Sentinels on a virtual clock, with a client writing SET w:<n> to whichever node Sentinel says is the master. Kill or partition nodes, pause links, change appendfsync, and watch which acknowledged writes survive." }
                </p>
                <div class="rs-topo-bar" role="group" aria-label="Virtual time">
                    if playing {
                        <button class="rs-btn" data-action="topo-pause" onclick={ link.callback(|_| Msg::Pause) }>{ "❚❚ Pause" }</button>
                    } else {
                        <button class="rs-btn rs-primary" data-action="topo-play" onclick={ link.callback(|_| Msg::Play) }>{ "▶ Play" }</button>
                    }
                    <button class="rs-btn" data-action="topo-step" data-ms="100" onclick={ link.callback(|_| Msg::Step(100)) }>{ "+0.1 s" }</button>
                    <button class="rs-btn" data-action="topo-step" data-ms="1000" onclick={ link.callback(|_| Msg::Step(1000)) }>{ "+1 s" }</button>
                    <button class="rs-btn" data-action="topo-step" data-ms="5000" onclick={ link.callback(|_| Msg::Step(5000)) }>{ "+5 s" }</button>
                    <select class="rs-topo-speed" aria-label="Speed" onchange={ speed }>
                        { for SPEEDS.iter().map(|s| html! {
                            <option value={ s.to_string() } selected={ *s == self.speed }>{ format!("{s}×") }</option>
                        }) }
                    </select>
                    <span class="rs-topo-now" data-now-us={ v.now_us.to_string() }>{ format!("t = {}", time_exact(v.now_us)) }</span>
                    <span class="rs-topo-count" data-acked={ v.acked.to_string() }>{ format!("{} acknowledged", v.acked) }</span>
                    <span class={ classes!("rs-topo-count", (v.lost > 0).then_some("rs-topo-lostcount")) } data-lost={ v.lost.to_string() }>
                        { format!("{} lost", v.lost) }
                    </span>
                    if v.refused > 0 {
                        <span class="rs-topo-count" data-refused={ v.refused.to_string() }>{ format!("{} refused", v.refused) }</span>
                    }
                    if let Some(f) = &v.last_failover {
                        <span class="rs-topo-lastfo" title="The last completed failover">{ f }</span>
                    }
                    if let Some(f) = &v.failover {
                        <span class="rs-topo-phase" role="status">{ f }</span>
                    }
                </div>
                if let Some(n) = &self.notice {
                    <p class="rs-scen-error rs-topo-notice" role="status">{ n }</p>
                }
                if let Some(e) = &self.error {
                    <p class="rs-scen-error rs-topo-error" role="alert">{ e }</p>
                }
                <div class="rs-topo-main">
                    <div class="rs-topo-svg rs-topo-graphbox" onclick={ on_detail.clone() }>
                        { Html::from_html_unchecked(AttrValue::from(graph)) }
                    </div>
                    { self.controls(link, &v) }
                </div>
                <div class="rs-topo-lanebar">
                    <span class="rs-topo-lanehead">{ "Per-node timelines" }</span>
                    <label>{ "window " }
                        <select class="rs-topo-window" aria-label="Timeline window" onchange={ window }>
                            { for WINDOWS_S.iter().map(|w| html! {
                                <option value={ w.to_string() } selected={ *w == self.window_s }>{ format!("{w} s") }</option>
                            }) }
                        </select>
                    </label>
                    <label>{ "WAIT " }
                        <select class="rs-topo-wait" data-action="topo-wait" aria-label="WAIT replicas after each write" onchange={ wait }>
                            { for (0..=v.nodes.len().saturating_sub(1) as i64).map(|w| html! {
                                <option value={ w.to_string() } selected={ w == self.wait }>{ if w == 0 { "off".to_string() } else { format!("{w}") } }</option>
                            }) }
                        </select>
                    </label>
                    <label>{ "writes/s " }
                        <input class="rs-topo-rate" type="number" min="0" max="1000" step="1" value={ num_text(self.rate) } onchange={ rate } aria-label="Writes per second" />
                    </label>
                    <button class="rs-btn" data-action="topo-failover" onclick={ link.callback(|_| Msg::Control(Control::Failover)) }
                            title="SENTINEL FAILOVER: promote a replica without agreement from the others">{ "Trigger failover" }</button>
                </div>
                <div class="rs-topo-svg rs-topo-lanebox" onclick={ on_detail }>
                    { Html::from_html_unchecked(AttrValue::from(lanes)) }
                </div>
                <p class="rs-topo-detail" aria-live="polite">
                    { self.detail.clone().unwrap_or_else(|| "Click a node, link, sentinel or mark for its details (pause first to inspect a busy moment).".into()) }
                </p>
                <ul class="rs-topo-legend">
                    <li><i class="rs-topo-k-write"></i>{ "write sent" }</li>
                    <li><i class="rs-topo-k-acked"></i>{ "acknowledged" }</li>
                    <li><i class="rs-topo-k-refused"></i>{ "refused" }</li>
                    <li><i class="rs-topo-k-arrived"></i>{ "replication arrived" }</li>
                    <li><i class="rs-topo-k-ack"></i>{ "replica ACK" }</li>
                    <li><i class="rs-topo-k-fsync"></i>{ "fsync" }</li>
                    <li><i class="rs-topo-k-snap"></i>{ "snapshot" }</li>
                    <li><i class="rs-topo-k-down"></i>{ "down" }</li>
                    <li><i class="rs-topo-k-cut"></i>{ "partitioned" }</li>
                    <li><i class="rs-topo-k-pause"></i>{ "link paused" }</li>
                    <li><i class="rs-topo-k-lost"></i>{ "lost acknowledged write" }</li>
                </ul>
                { self.setup(link, ctx.props().shareable) }
            </div>
        }
    }
}

impl TopologyTab {
    /// One row of buttons per node.
    fn controls(&self, link: &html::Scope<Self>, v: &TopoView) -> Html {
        html! {
            <table class="rs-topo-controls" aria-label="Node controls">
                <tbody>
                { for v.nodes.iter().map(|nd| {
                    let id = nd.id;
                    let replica_link = v.links.iter().find(|l| l.to == id);
                    let fsync = link.callback(move |e: Event| {
                        let s: HtmlSelectElement = e.target_unchecked_into();
                        Msg::Control(Control::SetAppendfsync { node: id, mode: s.value() })
                    });
                    html! {
                        <tr class="rs-topo-ctl" data-node={ id.to_string() }>
                            <th>{ format!("node {id}") }<small>{ format!(" {}", if nd.alive { nd.role.as_str() } else { "dead" }) }</small></th>
                            <td>
                                if nd.alive {
                                    <button class="rs-btn" data-action="kill" data-node={ id.to_string() } title="Kill the process (the kernel still writes what it was given)"
                                            onclick={ link.callback(move |_| Msg::Control(Control::Kill { node: id, power_loss: false })) }>{ "kill" }</button>
                                    <button class="rs-btn" data-action="power" data-node={ id.to_string() } title="Power loss: what was not fsynced is gone"
                                            onclick={ link.callback(move |_| Msg::Control(Control::Kill { node: id, power_loss: true })) }>{ "power off" }</button>
                                } else {
                                    <button class="rs-btn rs-primary" data-action="restart" data-node={ id.to_string() }
                                            onclick={ link.callback(move |_| Msg::Control(Control::Restart { node: id })) }>{ "restart" }</button>
                                }
                                if nd.isolated {
                                    <button class="rs-btn" data-action="heal" data-node={ id.to_string() }
                                            onclick={ link.callback(move |_| Msg::Control(Control::Heal { node: id })) }>{ "heal" }</button>
                                } else {
                                    <button class="rs-btn" data-action="partition" data-node={ id.to_string() } title="Cut the node (and what is co-located with it) off the rest"
                                            onclick={ link.callback(move |_| Msg::Control(Control::Partition { node: id })) }>{ "partition" }</button>
                                }
                                if let Some(l) = replica_link {
                                    if l.paused {
                                        <button class="rs-btn" data-action="resume" data-node={ id.to_string() }
                                                onclick={ link.callback(move |_| Msg::Control(Control::ResumeLink { replica: id })) }>{ "resume link" }</button>
                                    } else {
                                        <button class="rs-btn" data-action="pause" data-node={ id.to_string() } title="Hold the replication stream to this replica"
                                                onclick={ link.callback(move |_| Msg::Control(Control::PauseLink { replica: id })) }>{ "pause link" }</button>
                                    }
                                }
                                <select class="rs-topo-fsyncsel" data-node={ id.to_string() } aria-label={ format!("appendfsync of node {id}") } onchange={ fsync }>
                                    { for FSYNC_MODES.iter().map(|m| html! {
                                        <option value={ *m } selected={ nd.appendfsync == *m }>{ format!("fsync {m}") }</option>
                                    }) }
                                </select>
                            </td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
        }
    }

    /// The options a world is built with, the seed, Reset and the share link.
    fn setup(&self, link: &html::Scope<Self>, shareable: bool) -> Html {
        let o = &self.opts;
        let field = |key: &'static str, label: &'static str, value: String, help: &'static str| {
            let cb = link.callback(move |e: Event| {
                let i: HtmlInputElement = e.target_unchecked_into();
                Msg::SetOption(key, i.value())
            });
            html! {
                <label class="rs-topo-opt" title={ help }>
                    <span>{ label }</span>
                    <input type="text" data-option={ key } value={ value } onchange={ cb } />
                </label>
            }
        };
        let fsync = link.callback(|e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            Msg::SetOption("fsync", s.value())
        });
        html! {
            <details class="rs-topo-setup" open=true>
                <summary>{ "Setup (changing any of these starts over)" }</summary>
                <div class="rs-topo-opts">
                    { field("seed", "seed", o.seed.to_string(), "Every random choice (jitter, timings) comes from the seed") }
                    { field("replicas", "replicas", o.replicas.to_string(), "1 to 4") }
                    { field("sentinels", "sentinels", o.sentinels.to_string(), "Sentinel processes, each co-located with nothing") }
                    { field("quorum", "quorum", o.quorum.to_string(), "Sentinels that must agree the master is down (ODOWN)") }
                    { field("down", "down-after ms", o.down_after_ms.to_string(), "down-after-milliseconds") }
                    { field("latency", "link latency ms", num_text(o.link_latency_ms), "One-way latency of each replication link") }
                    { field("rate", "writes/s", num_text(o.writes_per_sec), "The client's write rate at the start") }
                    { field("wait", "WAIT n", o.wait.to_string(), "WAIT n after each write at the start (0 = off)") }
                    { field("minrep", "min-replicas-to-write", o.min_replicas_to_write.to_string(), "The master refuses writes with fewer good replicas") }
                    { field("lats", "per-node latency ms", o.latencies_ms.iter().map(|l| num_text(*l)).collect::<Vec<_>>().join(","),
                            "Comma-separated, per node: the latency of its link while it is a replica (empty: link latency)") }
                    { field("prio", "replica-priority", o.priorities.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(","),
                            "Comma-separated, per node (empty: 100); Sentinel never promotes 0 and prefers lower") }
                    { field("backlog", "repl-backlog-size B", o.repl_backlog_size.to_string(), "A replica further behind than this needs a full resync") }
                    { field("fotimeout", "failover-timeout ms", o.failover_timeout_ms.to_string(), "How long before a failed election is retried") }
                    <label class="rs-topo-opt">
                        <span>{ "appendfsync" }</span>
                        <select data-option="fsync" onchange={ fsync }>
                            { for FSYNC_MODES.iter().map(|m| html! {
                                <option value={ *m } selected={ o.appendfsync == *m }>{ *m }</option>
                            }) }
                        </select>
                    </label>
                    <button class="rs-btn" data-action="topo-reset" onclick={ link.callback(|_| Msg::Reset) }>{ "Reset" }</button>
                </div>
                if shareable {
                    <label class="rs-topo-share">
                        <span>{ if self.topo.as_ref().is_some_and(|t| t.now_us() > MAX_REPLAY_US) {
                            "Share (replays only the first hour)"
                        } else {
                            "Share (replays to this instant)"
                        } }</span>
                        <input class="rs-topo-sharelink" type="text" readonly=true value={ self.share_url() } />
                    </label>
                }
                <p class="rs-topo-took" data-built-ms={ format!("{:.1}", self.took_ms) } data-step-ms={ format!("{:.1}", self.step_ms) }
                   data-draw-ms={ format!("{:.1}", self.draw_ms.get()) }>
                    { format!("built in {:.0} ms; last step {:.1} ms; drawing {:.1} ms (wall time in this browser)", self.took_ms, self.step_ms, self.draw_ms.get()) }
                </p>
            </details>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ms_text_round_trips_to_the_microsecond() {
        for us in [0, 1, 999, 1000, 1500, 1_500_250, 12_345_678_901] {
            assert_eq!(parse_ms(&fmt_ms(us)), Some(us), "{us}");
        }
        assert_eq!(fmt_ms(1_500_000), "1500");
        assert_eq!(fmt_ms(1_500_250), "1500.25");
        assert_eq!(parse_ms("2.5"), Some(2500));
        for bad in ["", "-1", "1.2345", "1e3", "x", ".5", "99999999999999999999"] {
            assert_eq!(parse_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn scripts_round_trip_and_bad_ones_say_why() {
        let script = vec![
            (
                1_000_000,
                Control::Kill {
                    node: 0,
                    power_loss: true,
                },
            ),
            (2_500_500, Control::PauseLink { replica: 2 }),
            (
                2_500_500,
                Control::SetAppendfsync {
                    node: 1,
                    mode: "always".into(),
                },
            ),
            (9_000_000, Control::Failover),
            (9_000_000, Control::SetWait(1)),
        ];
        let text = script_text(&script);
        assert!(
            text.starts_with("1000:kill.0.power,2500.5:pause.2,"),
            "{text}"
        );
        let back = parse_script(&text).unwrap();
        assert_eq!(script_text(&back), text);
        assert_eq!(back.len(), script.len());
        assert!(parse_script("5:kill.0,4:heal.0")
            .unwrap_err()
            .contains("back in time"));
        assert!(parse_script("kill.0")
            .unwrap_err()
            .contains("<t_ms>:<token>"));
        assert!(parse_script("x:kill.0").unwrap_err().contains("not a time"));
        assert!(parse_script("5:explode.0").is_err());
        assert!(parse_script("").unwrap().is_empty());
    }

    #[test]
    fn links_carry_options_script_and_instant() {
        let o = TopoOptions {
            seed: 7,
            replicas: 3,
            appendfsync: "always".into(),
            ..TopoOptions::default()
        };
        let script = vec![(
            2_000_000,
            Control::Kill {
                node: 0,
                power_loss: false,
            },
        )];
        let link = topo_link("/play/", &o, &script, 12_345_000);
        assert!(link.starts_with("/play/?tab=topology&seed=7&"), "{link}");
        assert!(
            link.contains("&replicas=3") && link.contains("&fsync=always"),
            "{link}"
        );
        assert!(link.ends_with("&do=2000:kill.0&t=12345"), "{link}");
        let (_, q) = link.split_once('?').unwrap();
        let r = TopoPreset::from_url(q, "").resolve();
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert_eq!((r.opts.seed, r.opts.replicas), (7, 3));
        assert_eq!(r.opts.appendfsync, "always");
        assert_eq!(script_text(&r.script), "2000:kill.0");
        assert_eq!(r.until_us, Some(12_345_000));
        // Every option survives a link.
        let all = TopoOptions {
            seed: 3,
            replicas: 4,
            sentinels: 5,
            quorum: 3,
            down_after_ms: 1500,
            failover_timeout_ms: 20_000,
            link_latency_ms: 7.5,
            latencies_ms: vec![20.0, 2.0, 80.0],
            writes_per_sec: 200.0,
            wait: 1,
            appendfsync: "no".into(),
            min_replicas_to_write: 1,
            repl_backlog_size: 65_536,
            priorities: vec![100, 200, 0],
            ..TopoOptions::default()
        };
        let (_, q) = topo_link("/", &all, &[], 0)
            .split_once('?')
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .unwrap();
        let r = TopoPreset::from_url(&q, "").resolve();
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert_eq!(r.opts, all, "{q}");
        // Defaults stay out of the link.
        let plain = topo_link("/", &TopoOptions::default(), &[], 0);
        assert_eq!(
            plain,
            format!("/?tab=topology&seed={}&t=0", TopoOptions::default().seed)
        );
    }

    #[test]
    fn bad_presets_are_reported_and_skipped() {
        let r = TopoPreset::from_url(
            "?tab=topology&replicas=9&fsync=sometimes&quorum=7&cmd=GET+a",
            "",
        )
        .resolve();
        let d = TopoOptions::default();
        assert_eq!(r.opts.replicas, d.replicas);
        assert_eq!(r.opts.appendfsync, d.appendfsync);
        assert_eq!(
            r.opts.quorum, r.opts.sentinels,
            "quorum capped at the sentinels"
        );
        let text = r.problems.join("; ");
        assert!(
            text.contains("replicas '9'") && text.contains("fsync 'sometimes'"),
            "{text}"
        );
        assert!(text.contains("quorum 7"), "{text}");
        let r = TopoPreset::from_url("?t=7200000&do=10:kill.0", "").resolve();
        assert_eq!(r.until_us, Some(MAX_REPLAY_US));
        assert!(
            r.problems[0].contains("past the 3600 s"),
            "{:?}",
            r.problems
        );
        let r = TopoPreset::from_url("?do=3600001:kill.0", "").resolve();
        assert!(r.script.is_empty() && r.problems[0].contains("ignored"));
        let r = TopoPreset::from_url("?lats=20,2,80&prio=100,200,100&latency=x", "").resolve();
        assert_eq!(r.opts.latencies_ms, vec![20.0, 2.0, 80.0]);
        assert_eq!(r.opts.priorities, vec![100, 200, 100]);
        assert!(r.problems[0].contains("latency 'x'"), "{:?}", r.problems);
        let r = TopoPreset::from_attrs(Some("0x10"), Some("rate=50&do=100:part.1")).resolve();
        assert_eq!((r.opts.seed, r.opts.writes_per_sec), (16, 50.0));
        assert_eq!(script_text(&r.script), "100:part.1");
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

    /// The end-to-end test's story: links held, the master killed, Sentinel
    /// fails over and the writes only the old master had are lost, in red.
    #[test]
    fn a_failover_after_held_links_draws_lost_writes() {
        let mut topo = Topology::new(TopoOptions::default());
        topo.advance_to(5_000_000);
        let replicas = topo.view().nodes.len() - 1;
        for r in 1..=replicas {
            topo.control(Control::PauseLink { replica: r }).unwrap();
        }
        topo.advance_to(6_000_000);
        topo.control(Control::Kill {
            node: 0,
            power_loss: false,
        })
        .unwrap();
        for r in 1..=replicas {
            topo.control(Control::ResumeLink { replica: r }).unwrap();
        }
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
        // The link replays to the same world.
        let again = Topology::replay(TopoOptions::default(), topo.script(), topo.now_us());
        assert_eq!(again.view(), v);
        assert_eq!(
            lanes_svg(&again.view(), again.events(), again.writes(), 30_000_000),
            l
        );
    }
}
