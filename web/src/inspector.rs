//! The key inspector: the selected key's encoding, the thresholds that decide it (as gauges), and its structure drawn as a picture: quicklist nodes, the skiplist's levels and spans, a HyperLogLog's register histogram. It notices when a command changes the encoding and says why.
//!
//! Everything it shows comes from `Engine::inspect`, a plain-data view; the
//! drawing maths (skiplist layout, histogram bars, gauge states) are pure
//! functions here, tested natively.

use std::rc::Rc;

use redsim_engine::inspect::{
    self, Body, Gauge, HllView, KeyView, ListView, Preview, SkipView, StreamView, Unit, ZSetView,
};
use redsim_engine::server::trace::Event;
use redsim_engine::Engine;
use yew::prelude::*;

use crate::keyspace::fmt_ttl;

/// Conversion notes kept per selected key.
const MAX_NOTES: usize = 5;

/// The key being inspected.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub db: usize,
    pub key: String,
}

/// An encoding change noticed between two commands.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvNote {
    /// Trace sequence number when noticed: a stable identity for the UI.
    pub id: u64,
    pub at_us: u64,
    pub text: String,
}

/// The inspector's model.
#[derive(Default)]
pub struct Inspector {
    pub target: Option<Target>,
    pub view: Option<Rc<KeyView>>,
    pub notes: Rc<Vec<ConvNote>>,
    /// Trace position of the last refresh.
    seen_seq: u64,
}

impl Inspector {
    /// Starts inspecting `key` of database `db`.
    pub fn select(&mut self, engine: &Engine, db: usize, key: String) {
        let same = self
            .target
            .as_ref()
            .is_some_and(|t| t.db == db && t.key == key);
        if !same {
            self.target = Some(Target { db, key });
            self.view = None;
            self.notes = Rc::new(Vec::new());
        }
        self.refresh(engine, true);
    }

    pub fn close(&mut self) {
        *self = Inspector::default();
    }

    /// Re-reads the key if anything happened since the last refresh (or
    /// `force`), noting an encoding change and the command that made it;
    /// true if the view or notes changed.
    pub fn refresh(&mut self, engine: &Engine, force: bool) -> bool {
        let Some(t) = &self.target else {
            return false;
        };
        let trace = engine.trace();
        // In real time the cron's expire cycles add events every tick; only
        // events that can change a key (or follow a command) rebuild the view.
        let relevant = trace.since(self.seen_seq).any(|ev| {
            !matches!(
                ev.event,
                Event::ExpireCycle { .. }
                    | Event::ClockAdvanced { .. }
                    | Event::Connected { .. }
                    | Event::Disconnected
            )
        });
        if !force && !relevant {
            self.seen_seq = trace.next_seq();
            return false;
        }
        let by = trace
            .since(self.seen_seq)
            .filter_map(|ev| match &ev.event {
                Event::Command { args, .. } => args.first().map(|a| a.to_ascii_uppercase()),
                _ => None,
            })
            .last();
        self.seen_seq = trace.next_seq();
        let new = engine.inspect(t.db, t.key.as_bytes());
        let mut changed = false;
        if let (Some(old), Some(new)) = (&self.view, &new) {
            if let Some(c) = inspect::conversion(old, new) {
                let notes = Rc::make_mut(&mut self.notes);
                notes.insert(
                    0,
                    ConvNote {
                        id: self.seen_seq,
                        at_us: engine.now_us(),
                        text: c.describe(by.as_deref()),
                    },
                );
                notes.truncate(MAX_NOTES);
                changed = true;
            }
        }
        if self.view.as_deref() != new.as_ref() {
            self.view = new.map(Rc::new);
            changed = true;
        }
        changed
    }

    /// The inspected key's TTL now, ms (read every tick; the view itself
    /// is only rebuilt when something happened).
    pub fn ttl_ms(&self, engine: &Engine) -> Option<i64> {
        let t = self.target.as_ref()?;
        engine.ttl_ms(t.db, t.key.as_bytes())
    }
}

/// Bytes for people: B, KB, MB.
pub fn fmt_bytes(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    }
}

/// How a gauge reads for the value's current encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaugeState {
    /// The value is in the gauge's `from` encoding: the limit is live.
    Live { near: bool },
    /// The value converted past this limit.
    Passed,
    /// The limit does not apply to the current encoding.
    Idle,
}

pub fn gauge_state(g: &Gauge, encoding: &str) -> GaugeState {
    if g.from == encoding {
        let near = g
            .value
            .is_some_and(|v| v.saturating_mul(10) >= g.limit.saturating_mul(9));
        GaugeState::Live { near }
    } else if g.to == encoding && g.exceeded() {
        GaugeState::Passed
    } else {
        GaugeState::Idle
    }
}

/// The bar's fill, percent of the limit (capped at 100).
pub fn gauge_pct(g: &Gauge) -> f64 {
    match g.value {
        Some(v) if g.limit > 0 => (v as f64 / g.limit as f64 * 100.0).min(100.0),
        Some(v) if v > 0 => 100.0,
        _ => 0.0,
    }
}

fn fmt_measure(unit: Unit, v: u64) -> String {
    match unit {
        Unit::Bytes => format!("{v} B"),
        Unit::Entries | Unit::Register => v.to_string(),
    }
}

// ---------- skiplist picture ----------

/// Column pitch, px.
pub const COL_W: f64 = 52.0;
/// Width of a level box.
pub const BOX_W: f64 = 26.0;
const BOX_H: f64 = 16.0;
/// Row pitch (one row per level).
pub const ROW_H: f64 = 24.0;
const PAD: f64 = 10.0;
/// Room under the boxes for member and score.
const LABEL_H: f64 = 40.0;
/// Characters of a member drawn under its node.
const MEMBER_CHARS: usize = 7;

/// What a column of the picture is.
#[derive(Clone, Debug, PartialEq)]
pub enum ColKind {
    Header,
    Node {
        rank: usize,
        member: String,
        score: String,
        tail: bool,
    },
    /// Nodes not drawn; links past the last drawn node end here.
    More {
        hidden: usize,
        tail_rank: usize,
    },
    /// NULL: where the last link of each level ends.
    Nil,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SkipCol {
    pub x: f64,
    /// Level boxes drawn (0 for More and Nil).
    pub levels: usize,
    pub kind: ColKind,
}

/// A forward link at one level.
#[derive(Clone, Debug, PartialEq)]
pub struct SkipArrow {
    pub level: usize,
    pub x1: f64,
    pub x2: f64,
    pub y: f64,
    pub span: usize,
    /// Rank pointed to; `None` for NULL.
    pub target: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SkipLayout {
    pub width: f64,
    pub height: f64,
    pub levels: usize,
    pub cols: Vec<SkipCol>,
    pub arrows: Vec<SkipArrow>,
}

impl SkipLayout {
    /// Centre line of level `i` (level 0 is the bottom row).
    pub fn row_y(&self, i: usize) -> f64 {
        row_y(self.levels, i)
    }

    /// Top of the member/score labels.
    pub fn label_y(&self) -> f64 {
        PAD + self.levels as f64 * ROW_H + 4.0
    }
}

fn row_y(levels: usize, i: usize) -> f64 {
    PAD + (levels.saturating_sub(1).saturating_sub(i)) as f64 * ROW_H + BOX_H / 2.0
}

fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// Lays out the skiplist: levels as rows (level 0 at the bottom), the
/// header then the nodes in rank order as columns, a "more" column when
/// nodes are hidden, and NULL last. Every level of every drawn node gets
/// one arrow, to the column of the rank it points to, to "more" when that
/// rank is not drawn, or to NULL.
pub fn skiplist_layout(s: &SkipView) -> SkipLayout {
    let levels = s
        .levels
        .max(s.header.len())
        .max(s.nodes.iter().map(|n| n.levels.len()).max().unwrap_or(0))
        .max(1);
    let x_of = |col: usize| PAD + col as f64 * COL_W;
    let mut cols = vec![SkipCol {
        x: x_of(0),
        levels: s.header.len(),
        kind: ColKind::Header,
    }];
    for n in &s.nodes {
        cols.push(SkipCol {
            x: x_of(cols.len()),
            levels: n.levels.len(),
            kind: ColKind::Node {
                rank: n.rank,
                member: n.member.clone(),
                score: n.score.clone(),
                tail: n.rank == s.tail_rank,
            },
        });
    }
    let more_col = (s.hidden > 0).then(|| {
        cols.push(SkipCol {
            x: x_of(cols.len()),
            levels: 0,
            kind: ColKind::More {
                hidden: s.hidden,
                tail_rank: s.tail_rank,
            },
        });
        cols.len() - 1
    });
    let nil_col = cols.len();
    cols.push(SkipCol {
        x: x_of(nil_col),
        levels: 0,
        kind: ColKind::Nil,
    });
    let last_drawn = s.nodes.last().map_or(0, |n| n.rank);
    let mut arrows = Vec::new();
    let sources =
        std::iter::once((0usize, &s.header)).chain(s.nodes.iter().map(|n| (n.rank, &n.levels)));
    for (col, (_rank, links)) in sources.enumerate() {
        for (level, l) in links.iter().enumerate() {
            let to_col = match l.forward {
                // Ranks of drawn nodes are their column numbers.
                Some(r) if r <= last_drawn => r,
                Some(_) => more_col.unwrap_or(nil_col),
                None => nil_col,
            };
            arrows.push(SkipArrow {
                level,
                x1: x_of(col) + BOX_W,
                x2: x_of(to_col) - 3.0,
                y: row_y(levels, level),
                span: l.span,
                target: l.forward,
            });
        }
    }
    SkipLayout {
        width: x_of(cols.len() - 1) + BOX_W + PAD,
        height: PAD + levels as f64 * ROW_H + LABEL_H,
        levels,
        cols,
        arrows,
    }
}

fn skiplist_svg(s: &SkipView) -> Html {
    let lay = skiplist_layout(s);
    let f = |v: f64| format!("{v:.1}");
    let top = lay.row_y(lay.levels - 1) - BOX_H / 2.0;
    let bottom = lay.row_y(0) + BOX_H / 2.0;
    let label_y = lay.label_y();
    let cols = lay.cols.iter().map(|c| {
        let boxes = (0..c.levels).map(|i| {
            let y = lay.row_y(i) - BOX_H / 2.0;
            html! { <rect class="rs-sl-box" x={ f(c.x) } y={ f(y) } width={ f(BOX_W) } height={ f(BOX_H) } rx="3" /> }
        });
        let mid = f(c.x + BOX_W / 2.0);
        match &c.kind {
            ColKind::Header => html! {
                <g class="rs-sl-col rs-sl-header">
                    <title>{ format!("header: {} levels in use", c.levels) }</title>
                    { for boxes }
                    <text class="rs-sl-member" x={ mid.clone() } y={ f(label_y + 10.0) } text-anchor="middle">{ "header" }</text>
                </g>
            },
            ColKind::Node { rank, member, score, tail } => html! {
                <g class={ classes!("rs-sl-col", tail.then_some("rs-sl-tail")) } data-rank={ rank.to_string() }>
                    <title>{ format!("rank {rank}: {member} (score {score}), {} level{}", c.levels, if c.levels == 1 { "" } else { "s" }) }</title>
                    { for boxes }
                    <text class="rs-sl-member" x={ mid.clone() } y={ f(label_y + 10.0) } text-anchor="middle">{ cut(member, MEMBER_CHARS) }</text>
                    <text class="rs-sl-score" x={ mid.clone() } y={ f(label_y + 22.0) } text-anchor="middle">{ cut(score, MEMBER_CHARS) }</text>
                    if *tail {
                        <text class="rs-sl-tag" x={ mid } y={ f(label_y + 34.0) } text-anchor="middle">{ "tail" }</text>
                    }
                </g>
            },
            ColKind::More { hidden, tail_rank } => html! {
                <g class="rs-sl-col rs-sl-more">
                    <title>{ format!("{hidden} more nodes not drawn; the tail is rank {tail_rank}") }</title>
                    <line x1={ mid.clone() } x2={ mid.clone() } y1={ f(top) } y2={ f(bottom) } />
                    <text class="rs-sl-member" x={ mid.clone() } y={ f(label_y + 10.0) } text-anchor="middle">{ format!("+{hidden}") }</text>
                    <text class="rs-sl-score" x={ mid.clone() } y={ f(label_y + 22.0) } text-anchor="middle">{ "more" }</text>
                    <text class="rs-sl-tag" x={ mid } y={ f(label_y + 34.0) } text-anchor="middle">{ format!("tail #{tail_rank}") }</text>
                </g>
            },
            ColKind::Nil => html! {
                <g class="rs-sl-col rs-sl-nil">
                    <title>{ "NULL: the end of every level" }</title>
                    <rect x={ f(c.x) } y={ f(top) } width="6" height={ f(bottom - top) } rx="2" />
                    <text class="rs-sl-member" x={ f(c.x + 3.0) } y={ f(label_y + 10.0) } text-anchor="middle">{ "NULL" }</text>
                </g>
            },
        }
    });
    let arrows = lay.arrows.iter().map(|a| {
        let to = a.target.map_or("NULL".to_string(), |r| format!("rank {r}"));
        let d = format!(
            "M{},{} L{},{} M{},{} L{},{} L{},{}Z",
            f(a.x1),
            f(a.y),
            f(a.x2 - 5.0),
            f(a.y),
            f(a.x2 - 6.0),
            f(a.y - 3.5),
            f(a.x2),
            f(a.y),
            f(a.x2 - 6.0),
            f(a.y + 3.5)
        );
        let short = a.x2 - a.x1 < 40.0;
        html! {
            <g class={ classes!("rs-sl-link", (a.level == 0).then_some("rs-sl-l0")) }>
                <title>{ format!("level {}: → {to}, span {}", a.level + 1, a.span) }</title>
                <path d={ d } />
                if !short || a.level > 0 {
                    <text x={ f((a.x1 + a.x2) / 2.0) } y={ f(a.y - 4.0) } text-anchor="middle">{ a.span.to_string() }</text>
                }
            </g>
        }
    });
    let level_labels = (0..lay.levels).map(|i| {
        html! { <text class="rs-sl-lvl" x="2" y={ f(lay.row_y(i) + 4.0) }>{ format!("L{}", i + 1) }</text> }
    });
    html! {
        <div class="rs-sl-scroll">
            <svg class="rs-sl" width={ f(lay.width + 16.0) } height={ f(lay.height) } role="img"
                 aria-label={ format!("Skiplist with {} levels; the first {} nodes drawn", lay.levels, s.nodes.len()) }>
                <g transform="translate(16,0)">
                    { for arrows }
                    { for cols }
                </g>
                { for level_labels }
            </svg>
        </div>
    }
}

// ---------- HyperLogLog histogram ----------

/// One bar of the register histogram.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub value: usize,
    pub count: u64,
    /// Height as a fraction of the tallest possible bar (log scale: one
    /// register and 16384 both stay visible).
    pub frac: f64,
}

/// Bars for register values 0 up to a little past the largest one (at
/// least 0..=15, at most 0..=51, the largest value a register can hold).
pub fn hll_bars(histogram: &[u64], max_register: u8) -> Vec<Bar> {
    let last = (max_register as usize + 2).clamp(15, 51);
    let top = (redsim_engine::keyspace::types::hll::REGISTERS as f64 + 1.0).ln();
    (0..=last)
        .map(|v| {
            let count = histogram.get(v).copied().unwrap_or(0);
            Bar {
                value: v,
                count,
                frac: (count as f64 + 1.0).ln() / top,
            }
        })
        .collect()
}

fn hll_view(h: &HllView) -> Html {
    let summary = html! {
        <dl class="rs-facts">
            <dt>{ "representation" }</dt>
            <dd>{ if h.dense { "dense: 16384 registers × 6 bits" } else { "sparse: run-length opcodes (ZERO, XZERO, VAL)" } }</dd>
            <dt>{ "cached cardinality" }</dt>
            <dd>{ match h.cached { Some(c) => c.to_string(), None => "stale (PFADD changed a register; PFCOUNT recomputes)".to_string() } }</dd>
            <dt>{ "estimate now" }</dt>
            <dd>{ h.estimate.map_or("— (corrupt registers)".to_string(), |e| e.to_string()) }</dd>
        </dl>
    };
    if h.histogram.is_empty() {
        return summary;
    }
    let bars = hll_bars(&h.histogram, h.max_register);
    let (w, bh, gap) = (20.0, 120.0, 4.0);
    let width = bars.len() as f64 * (w + gap) + 8.0;
    let base = bh + 14.0;
    let shapes = bars.iter().map(|b| {
        let x = 4.0 + b.value as f64 * (w + gap);
        let hgt = if b.count == 0 { 0.0 } else { (b.frac * bh).max(2.0) };
        let label_x = format!("{:.1}", x + w / 2.0);
        html! {
            <g class={ classes!("rs-hll-bar", (b.count == 0).then_some("rs-hll-zero")) } data-value={ b.value.to_string() }>
                <title>{ format!("value {}: {} register{}", b.value, b.count, if b.count == 1 { "" } else { "s" }) }</title>
                <rect x={ format!("{x:.1}") } y={ format!("{:.1}", base - hgt) } width={ w.to_string() } height={ format!("{hgt:.1}") } rx="2" />
                if b.count > 0 {
                    <text class="rs-hll-count" x={ label_x.clone() } y={ format!("{:.1}", base - hgt - 3.0) } text-anchor="middle">{ short_count(b.count) }</text>
                }
                if b.value % 5 == 0 {
                    <text class="rs-hll-axis" x={ label_x } y={ format!("{:.1}", base + 12.0) } text-anchor="middle">{ b.value.to_string() }</text>
                }
            </g>
        }
    });
    html! {
        <div class="rs-hll-wrap">
            { summary }
            <div class="rs-hll">
                <div class="rs-sub">{ "The 16384 registers by value (log scale). Each element sets one register to the length of a run of zero bits in its hash; most stay 0 until many elements are added. The estimate reads this whole histogram." }</div>
                <div class="rs-sl-scroll">
                    <svg class="rs-hll-svg" width={ format!("{width:.0}") } height={ format!("{:.0}", base + 18.0) } role="img"
                         aria-label="Histogram of the 16384 register values">
                        <line class="rs-hll-base" x1="0" x2={ format!("{width:.0}") } y1={ base.to_string() } y2={ base.to_string() } />
                        { for shapes }
                    </svg>
                </div>
            </div>
        </div>
    }
}

/// 16384 → "16k", 1234 → "1.2k".
fn short_count(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else if n < 10_000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        format!("{}k", n / 1000)
    }
}

// ---------- the panel ----------

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub target: Target,
    pub view: Option<Rc<KeyView>>,
    pub ttl_ms: Option<i64>,
    pub notes: Rc<Vec<ConvNote>>,
    pub on_close: Callback<()>,
}

#[component]
pub fn InspectorPanel(props: &InspectorProps) -> Html {
    let close = props.on_close.reform(|_: MouseEvent| ());
    let head = |extra: Html| {
        html! {
            <header class="rs-panel-head rs-insp-head">
                <h3>{ "Inspector" }</h3>
                <span class="rs-insp-key" title={ props.target.key.clone() }>{ &props.target.key }</span>
                { extra }
                <span class="rs-spacer"></span>
                <button class="rs-btn rs-ghost-btn" data-action="close-inspector" aria-label="Close the inspector"
                        title="Close" onclick={ close.clone() }>{ "✕" }</button>
            </header>
        }
    };
    let notes = html! {
        if !props.notes.is_empty() {
            <ul class="rs-conv-notes">
                { for props.notes.iter().enumerate().map(|(i, n)| html! {
                    <li key={ n.id.to_string() } class={ classes!("rs-conv", (i == 0).then_some("rs-conv-new")) }>
                        <span class="rs-conv-icon" aria-hidden="true">{ "⇄" }</span>
                        <span class="rs-conv-text">{ &n.text }</span>
                        <span class="rs-conv-at">{ crate::clock::fmt_clock(n.at_us) }</span>
                    </li>
                }) }
            </ul>
        }
    };
    let Some(v) = &props.view else {
        return html! {
            <section class="rs-panel rs-inspector" aria-label="Key inspector">
                { head(html! {}) }
                { notes }
                <p class="rs-empty">{ format!("No key named \"{}\" in db{} (now).", props.target.key, props.target.db) }</p>
            </section>
        };
    };
    let size = match v.kind {
        "string" => format!("{} byte{}", v.len, if v.len == 1 { "" } else { "s" }),
        "hash" => format!("{} field{}", v.len, if v.len == 1 { "" } else { "s" }),
        "list" | "stream" => format!("{} entr{}", v.len, if v.len == 1 { "y" } else { "ies" }),
        _ => format!("{} member{}", v.len, if v.len == 1 { "" } else { "s" }),
    };
    let ttl = match props.ttl_ms {
        Some(t) if t <= 0 => "expired, not reclaimed yet".to_string(),
        Some(t) => format!("TTL {}", fmt_ttl(t)),
        None => "no TTL".to_string(),
    };
    // An HLL is a raw string to Redis; its own encodings are what its gauges speak of.
    let encoding = match &v.body {
        Body::Hll(h) if h.dense => "dense",
        Body::Hll(_) => "sparse",
        _ => v.encoding,
    };
    let is_hll = matches!(v.body, Body::Hll(_));
    let extra = html! {
        <>
            <span class={ format!("rs-type rs-type-{}", v.kind) }>{ if is_hll { "hll" } else { v.kind } }</span>
            <span class="rs-insp-enc" data-encoding={ v.encoding }>{ encoding }</span>
            <span class="rs-muted">{ format!("{size} · {} in memory · {ttl}", fmt_bytes(v.mem_bytes)) }</span>
        </>
    };
    html! {
        <section class="rs-panel rs-inspector" aria-label="Key inspector" data-kind={ v.kind }>
            { head(extra) }
            { notes }
            if !v.gauges.is_empty() {
                <div class="rs-gauges">{ for v.gauges.iter().map(|g| gauge_row(g, encoding)) }</div>
            }
            <div class="rs-insp-body">{ body(v) }</div>
        </section>
    }
}

fn gauge_row(g: &Gauge, encoding: &str) -> Html {
    let state = gauge_state(g, encoding);
    let (class, note) = match state {
        GaugeState::Live { near: false } => (
            "rs-g-live",
            format!("{} → {} past {}", g.from, g.to, g.limit),
        ),
        GaugeState::Live { near: true } => (
            "rs-g-live rs-g-near",
            format!("{} → {} past {}: close", g.from, g.to, g.limit),
        ),
        GaugeState::Passed => ("rs-g-passed", format!("passed: now {}", g.to)),
        GaugeState::Idle => (
            "rs-g-idle",
            format!("applies to {} (now {encoding})", g.from),
        ),
    };
    let value = g.value.map_or("—".to_string(), |v| fmt_measure(g.unit, v));
    html! {
        <div class={ classes!("rs-gauge", class) } data-param={ g.param }>
            <span class="rs-g-param" title={ format!("{}: {}", g.param, g.what) }>{ g.param }</span>
            <span class="rs-g-what">{ g.what }</span>
            <span class="rs-g-bar"><span class="rs-g-fill" style={ format!("width:{:.1}%", gauge_pct(g)) }></span></span>
            <span class="rs-g-num">{ format!("{value} / {}", fmt_measure(g.unit, g.limit)) }</span>
            <span class="rs-g-note">{ note }</span>
        </div>
    }
}

fn more(n: usize) -> Html {
    html! {
        if n > 0 { <li class="rs-more">{ format!("+ {n} more") }</li> }
    }
}

fn body(v: &KeyView) -> Html {
    match &v.body {
        Body::String { preview, truncated } => html! {
            <>
                <div class="rs-sub">{ match v.encoding {
                    "int" => "int: stored as a 64-bit integer inside the object, no string allocated.",
                    "embstr" => "embstr: the bytes live in the same allocation as the object header (up to 44 bytes).",
                    _ => "raw: a separately allocated string (longer than 44 bytes, or modified in place by APPEND/SETRANGE).",
                } }</div>
                <pre class="rs-strval">{ preview }{ if *truncated { " (cut)" } else { "" } }</pre>
            </>
        },
        Body::Hll(h) => hll_view(h),
        Body::List(l) => list_view(l, v.encoding),
        Body::Hash { fields } => html! {
            <>
                <div class="rs-sub">{ if v.encoding == "listpack" {
                    "listpack: fields and values packed one after the other in one block, in insertion order."
                } else {
                    "hashtable: a dict of field → value (it never converts back to a listpack)."
                } }</div>
                { pairs_table(fields, "field", "value") }
            </>
        },
        Body::Set { members, all_ints } => html! {
            <>
                <div class="rs-sub">{ match v.encoding {
                    "intset" => "intset: sorted integers in one array; a non-integer member converts it.",
                    "listpack" => "listpack: members packed in insertion order.",
                    _ => "hashtable: members as dict keys.",
                } }{ match all_ints { Some(true) if v.encoding != "intset" => " All members are integers.", _ => "" } }</div>
                <ul class="rs-chipsrow">
                    { for members.items.iter().map(|m| html! { <li class="rs-elem">{ m }</li> }) }
                    { more(members.more) }
                </ul>
            </>
        },
        Body::ZSet(z) => zset_view(z, v),
        Body::Stream(s) => stream_view(s),
        Body::Other => html! {
            <div class="rs-sub">{ format!("No picture for {} values yet.", v.kind) }</div>
        },
    }
}

fn pairs_table(p: &Preview<(String, String)>, a: &str, b: &str) -> Html {
    html! {
        <table class="rs-pairs">
            <thead><tr><th>{ a.to_string() }</th><th>{ b.to_string() }</th></tr></thead>
            <tbody>
                { for p.items.iter().map(|(x, y)| html! { <tr><td>{ x }</td><td>{ y }</td></tr> }) }
                if p.more > 0 {
                    <tr class="rs-more"><td colspan="2">{ format!("+ {} more", p.more) }</td></tr>
                }
            </tbody>
        </table>
    }
}

fn list_view(l: &ListView, encoding: &str) -> Html {
    let limit = match l.node_max_entries {
        Some(n) => format!("{n} entries (and {} B)", l.node_max_bytes),
        None => fmt_bytes(l.node_max_bytes),
    };
    let intro = if encoding == "listpack" {
        format!("listpack: one block of packed entries; becomes a quicklist past {limit} (list-max-listpack-size {}).", l.fill)
    } else {
        format!(
            "quicklist: a doubly linked list of {} listpack node{}, each up to {limit} (fill {}); back to a listpack once one node holds half of that.",
            l.node_count,
            if l.node_count == 1 { "" } else { "s" },
            l.fill
        )
    };
    let nodes = l.nodes.iter().enumerate().map(|(i, n)| {
        let pct = match l.node_max_entries {
            Some(max) if max > 0 => (n.entries as f64 / max as f64).max(n.bytes as f64 / l.node_max_bytes as f64),
            _ => n.bytes as f64 / l.node_max_bytes.max(1) as f64,
        };
        html! {
            <>
                if i > 0 { <li class="rs-qn-link" aria-hidden="true">{ "⇄" }</li> }
                <li class={ classes!("rs-qn", n.plain.then_some("rs-qn-plain")) }
                    title={ format!("node {}: {} entr{}, {} bytes{}", i + 1, n.entries, if n.entries == 1 { "y" } else { "ies" }, n.bytes, if n.plain { " (plain: one large element)" } else { "" }) }>
                    <span class="rs-qn-count">{ n.entries }</span>
                    <span class="rs-qn-label">{ if n.plain { "plain" } else { "entries" } }</span>
                    <span class="rs-qn-bar"><span style={ format!("width:{:.0}%", (pct * 100.0).min(100.0)) }></span></span>
                    <span class="rs-qn-bytes">{ fmt_bytes(n.bytes) }</span>
                </li>
            </>
        }
    });
    html! {
        <>
            <div class="rs-sub">{ intro }</div>
            <ol class="rs-qnodes" aria-label="List nodes">
                { for nodes }
                if l.node_count > l.nodes.len() {
                    <li class="rs-more">{ format!("+ {} more nodes", l.node_count - l.nodes.len()) }</li>
                }
            </ol>
            <ol class="rs-chipsrow" start="0">
                { for l.items.items.iter().map(|m| html! { <li class="rs-elem">{ m }</li> }) }
                { more(l.items.more) }
            </ol>
        </>
    }
}

fn stream_view(s: &StreamView) -> Html {
    let limit = |n: u64, unit: &str| {
        if n == 0 {
            "unlimited".to_string()
        } else {
            format!("{n}{unit}")
        }
    };
    let nodes = s.nodes.iter().map(|n| {
        let pct = if s.node_max_entries > 0 {
            (n.live + n.deleted) as f64 / s.node_max_entries as f64 * 100.0
        } else {
            0.0
        };
        html! {
            <li class="rs-qn rs-sn" title={ format!("node {}: {} live, {} deleted, {} bytes", n.master_id, n.live, n.deleted, n.bytes) }>
                <span class="rs-qn-count">{ n.live }</span>
                <span class="rs-qn-label">{ if n.deleted > 0 { format!("live · {} deleted", n.deleted) } else { "live".to_string() } }</span>
                <span class="rs-qn-bar"><span style={ format!("width:{:.0}%", pct.min(100.0)) }></span></span>
                <span class="rs-qn-bytes">{ n.master_id.clone() }</span>
            </li>
        }
    });
    let entries = s.entries.items.iter().map(|e| {
        let fields = e
            .fields
            .iter()
            .map(|(f, v)| format!("{f}={v}"))
            .collect::<Vec<_>>()
            .join("  ");
        html! { <tr data-id={ e.id.clone() }><td class="rs-sid">{ &e.id }</td><td>{ fields }</td></tr> }
    });
    let groups = s.groups.iter().map(|g| {
        html! {
            <li class="rs-group" data-group={ g.name.clone() }>
                <div class="rs-group-head">
                    <span class="rs-group-name">{ &g.name }</span>
                    <span class="rs-muted">{ "last-delivered-id" }</span><span class="rs-sid rs-group-last">{ &g.last_delivered }</span>
                    <span class="rs-muted">{ format!("entries-read {} · {} pending", if g.entries_read < 0 { "?".to_string() } else { g.entries_read.to_string() }, g.pending) }</span>
                </div>
                <ul class="rs-consumers">
                    { for g.consumers.iter().map(|c| html! {
                        <li class="rs-consumer" data-consumer={ c.name.clone() }>
                            <span class="rs-consumer-name">{ &c.name }</span>
                            <span class="rs-muted">{ "PEL" }</span>
                            if c.pending.items.is_empty() {
                                <span class="rs-muted">{ "empty" }</span>
                            }
                            { for c.pending.items.iter().map(|id| html! { <span class="rs-elem rs-sid">{ id }</span> }) }
                            if c.pending.more > 0 { <span class="rs-more">{ format!("+ {} more", c.pending.more) }</span> }
                        </li>
                    }) }
                    if g.consumer_count > g.consumers.len() {
                        <li class="rs-more">{ format!("+ {} more consumers", g.consumer_count - g.consumers.len()) }</li>
                    }
                </ul>
            </li>
        }
    });
    html! {
        <>
            <div class="rs-sub">{ format!(
                "stream: entries in listpack nodes of up to {} entries or {} (stream-node-max-entries / -bytes), indexed by a radix tree on each node's first ID. Deleted entries stay as tombstones until their node empties.",
                limit(s.node_max_entries, ""),
                limit(s.node_max_bytes, " bytes")
            ) }</div>
            <dl class="rs-facts rs-facts-row">
                <dt>{ "first / last ID" }</dt><dd>{ format!("{} … {}", s.first_id, s.last_id) }</dd>
                <dt>{ "entries added" }</dt><dd>{ s.entries_added }</dd>
                <dt>{ "max deleted ID" }</dt><dd>{ &s.max_deleted_id }</dd>
            </dl>
            <ol class="rs-qnodes" aria-label="Stream nodes">
                { for nodes }
                if s.node_count > s.nodes.len() {
                    <li class="rs-more">{ format!("+ {} more nodes", s.node_count - s.nodes.len()) }</li>
                }
            </ol>
            <table class="rs-pairs rs-stream-entries">
                <thead><tr><th>{ "ID" }</th><th>{ "fields" }</th></tr></thead>
                <tbody>
                    if s.entries.more > 0 {
                        <tr class="rs-more"><td colspan="2">{ format!("{} older entries", s.entries.more) }</td></tr>
                    }
                    { for entries }
                </tbody>
            </table>
            if !s.groups.is_empty() {
                <ul class="rs-groups" aria-label="Consumer groups">
                    { for groups }
                    if s.group_count > s.groups.len() {
                        <li class="rs-more">{ format!("+ {} more groups", s.group_count - s.groups.len()) }</li>
                    }
                </ul>
            }
        </>
    }
}

fn zset_view(z: &ZSetView, v: &KeyView) -> Html {
    match &z.skiplist {
        Some(s) => html! {
            <>
                <div class="rs-sub">{ format!(
                    "skiplist: {} levels in use. Each node has a random height; a link at level k jumps over as many nodes as its label (its span), so ranks are found in O(log n). A dict maps members to scores beside it.{}",
                    s.levels,
                    if s.hidden > 0 { format!(" First {} of {} nodes drawn.", s.nodes.len(), v.len) } else { String::new() }
                ) }</div>
                { skiplist_svg(s) }
            </>
        },
        None => html! {
            <>
                <div class="rs-sub">{ "listpack: member, score, member, score… sorted by score, in one block." }</div>
                { pairs_table(&z.entries, "member", "score") }
            </>
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine_with(lines: &[&str]) -> Engine {
        let mut e = Engine::new(5);
        let c = e.connect("t");
        for l in lines {
            e.execute_line(c, l);
        }
        e
    }

    fn zset_view_of(e: &Engine, key: &str) -> SkipView {
        match e.inspect(0, key.as_bytes()).unwrap().body {
            Body::ZSet(z) => z.skiplist.expect("skiplist"),
            b => panic!("{b:?}"),
        }
    }

    #[test]
    fn skiplist_layout_puts_one_arrow_per_level_to_the_right_column() {
        let mut line = String::from("ZADD z");
        for i in 0..200 {
            line.push_str(&format!(" {i} m{i}"));
        }
        let e = engine_with(&[&line]);
        let s = zset_view_of(&e, "z");
        let lay = skiplist_layout(&s);
        // Header, 32 nodes, "more", NULL.
        assert_eq!(lay.cols.len(), 1 + inspect::SKIPLIST_NODES + 2);
        assert!(matches!(lay.cols[0].kind, ColKind::Header));
        assert!(matches!(
            lay.cols[33].kind,
            ColKind::More {
                hidden: 168,
                tail_rank: 200
            }
        ));
        assert!(matches!(lay.cols[34].kind, ColKind::Nil));
        let links: usize = s.header.len() + s.nodes.iter().map(|n| n.levels.len()).sum::<usize>();
        assert_eq!(lay.arrows.len(), links);
        assert_eq!(lay.levels, s.levels);
        for a in &lay.arrows {
            assert!(a.x2 > a.x1, "{a:?}");
            assert_eq!(a.y, lay.row_y(a.level));
            let end_col = match a.target {
                Some(r) if r <= 32 => r,
                Some(_) => 33,
                None => 34,
            };
            assert_eq!(a.x2, lay.cols[end_col].x - 3.0, "{a:?}");
        }
        // Level 0: node k points at k + 1 with span 1.
        let l0: Vec<&SkipArrow> = lay.arrows.iter().filter(|a| a.level == 0).collect();
        assert_eq!(l0.len(), 33);
        assert!(l0.iter().all(|a| a.span == 1));
        // Rows: level 0 at the bottom.
        assert!(lay.row_y(0) > lay.row_y(1));
        assert!(lay.label_y() > lay.row_y(0));
        assert_eq!(lay.width, lay.cols[34].x + BOX_W + PAD);
        // Box counts follow node heights.
        for (c, n) in lay.cols[1..33].iter().zip(&s.nodes) {
            assert_eq!(c.levels, n.levels.len());
        }
    }

    #[test]
    fn small_skiplists_end_at_null_and_mark_the_tail() {
        let e = engine_with(&[
            "CONFIG SET zset-max-listpack-entries 0",
            "ZADD z 1 a 2 b 3 c",
        ]);
        let s = zset_view_of(&e, "z");
        let lay = skiplist_layout(&s);
        assert_eq!(lay.cols.len(), 5, "header, 3 nodes, NULL");
        assert!(
            matches!(&lay.cols[3].kind, ColKind::Node { rank: 3, tail: true, member, .. } if member == "c")
        );
        assert!(
            matches!(&lay.cols[1].kind, ColKind::Node { tail: false, score, .. } if score == "1")
        );
        let nil_x = lay.cols[4].x - 3.0;
        // Every level's last link ends at NULL, the header's included.
        for level in 0..lay.levels {
            let last = lay
                .arrows
                .iter()
                .filter(|a| a.level == level)
                .max_by(|a, b| a.x1.total_cmp(&b.x1))
                .unwrap();
            assert_eq!(last.target, None);
            assert_eq!(last.x2, nil_x);
        }
    }

    #[test]
    fn histogram_bars_use_a_log_scale_over_the_used_values() {
        let mut h = vec![0u64; 64];
        h[0] = 16_000;
        h[1] = 300;
        h[2] = 80;
        h[3] = 4;
        let bars = hll_bars(&h, 3);
        assert_eq!(bars.len(), 16);
        assert_eq!(bars[1].count, 300);
        assert!(bars[0].frac > bars[1].frac && bars[1].frac > bars[3].frac);
        assert!(bars[3].frac > 0.1, "a handful of registers stays visible");
        assert_eq!(bars[5].frac, 0.0);
        assert!(bars.iter().all(|b| b.frac <= 1.0));
        assert_eq!(hll_bars(&h, 30).len(), 33);
        assert_eq!(hll_bars(&h, 63).len(), 52);
        assert_eq!(short_count(16384), "16k");
        assert_eq!(short_count(1234), "1.2k");
        assert_eq!(short_count(7), "7");
    }

    #[test]
    fn gauges_read_against_the_current_encoding() {
        let g = Gauge {
            param: "hash-max-listpack-entries",
            what: "fields",
            unit: Unit::Entries,
            value: Some(120),
            limit: 128,
            from: "listpack",
            to: "hashtable",
        };
        assert_eq!(gauge_state(&g, "listpack"), GaugeState::Live { near: true });
        assert_eq!(
            gauge_state(
                &Gauge {
                    value: Some(10),
                    ..g.clone()
                },
                "listpack"
            ),
            GaugeState::Live { near: false }
        );
        assert_eq!(
            gauge_state(
                &Gauge {
                    value: Some(129),
                    ..g.clone()
                },
                "hashtable"
            ),
            GaugeState::Passed
        );
        assert_eq!(gauge_state(&g, "hashtable"), GaugeState::Idle);
        assert_eq!(gauge_pct(&g), 120.0 / 128.0 * 100.0);
        assert_eq!(
            gauge_pct(&Gauge {
                value: Some(500),
                ..g.clone()
            }),
            100.0
        );
        assert_eq!(
            gauge_pct(&Gauge {
                value: None,
                ..g.clone()
            }),
            0.0
        );
        assert_eq!(
            gauge_pct(&Gauge {
                limit: 0,
                value: Some(1),
                ..g
            }),
            100.0
        );
    }

    #[test]
    fn the_model_notes_conversions_with_the_command_that_made_them() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        e.execute_line(c, "CONFIG SET hash-max-listpack-entries 2");
        e.execute_line(c, "HSET h a 1 b 2");
        let mut ins = Inspector::default();
        ins.select(&e, 0, "h".into());
        assert_eq!(ins.view.as_ref().unwrap().encoding, "listpack");
        assert!(!ins.refresh(&e, false), "nothing happened");
        e.advance_by(3_000_000);
        assert!(!ins.refresh(&e, false), "cron ticks change nothing shown");
        e.execute_line(c, "HGET h a");
        assert!(!ins.refresh(&e, false), "a read changes nothing shown");
        e.execute_line(c, "HSET h c 3");
        assert!(ins.refresh(&e, false));
        assert_eq!(ins.view.as_ref().unwrap().encoding, "hashtable");
        assert_eq!(ins.notes.len(), 1);
        assert_eq!(
            ins.notes[0].text,
            "converted from listpack to hashtable by HSET: 3 fields > hash-max-listpack-entries 2"
        );
        // Deleted, then re-created: no conversion claimed.
        e.execute_line(c, "DEL h");
        assert!(ins.refresh(&e, false));
        assert!(ins.view.is_none());
        e.execute_line(c, "HSET h a 1");
        ins.refresh(&e, false);
        assert_eq!(ins.notes.len(), 1);
        // Selecting another key forgets the notes.
        ins.select(&e, 0, "other".into());
        assert!(ins.notes.is_empty() && ins.view.is_none());
        ins.close();
        assert!(ins.target.is_none());
    }

    #[test]
    fn ttl_is_read_live() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        e.execute_line(c, "SET k v PX 5000");
        let mut ins = Inspector::default();
        ins.select(&e, 0, "k".into());
        assert_eq!(ins.ttl_ms(&e), Some(5000));
        e.advance_by(1_500_000);
        assert_eq!(ins.ttl_ms(&e), Some(3500));
        ins.select(&e, 0, "missing".into());
        assert_eq!(ins.ttl_ms(&e), None);
    }

    #[test]
    fn byte_sizes() {
        assert_eq!(fmt_bytes(900), "900 B");
        assert_eq!(fmt_bytes(12_304), "12.0 KB");
        assert_eq!(fmt_bytes(3 * 1024 * 1024 / 2), "1.5 MB");
    }
}
