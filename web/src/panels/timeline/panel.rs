//! The timeline panel: the chart (memory band, lanes, axis, waits, marks and the now line), its lane labels, zoom buttons and legend, and the pool of an eviction picked on it.

use std::collections::VecDeque;
use std::rc::Rc;

use yew::prelude::*;

use super::axis::{
    domain, fmt_tick, ticks, x_pct, Zoom, AXIS_Y, HEIGHT, LANE_CMD, LANE_DEL, LANE_EXP, MEM_H,
    MEM_TOP,
};
use super::marks::{mark, memory_band, step_line, wait_bar};
use super::{Mark, MarkKind, Wait};
use crate::fmt::{fixed, num};
use crate::panels::clients::label;

#[derive(Properties, PartialEq, Clone)]
pub struct TimelineProps {
    pub marks: Rc<VecDeque<Mark>>,
    pub waits: Rc<VecDeque<Wait>>,
    /// Console clients open: with more than one, the legend names their colours.
    pub clients: usize,
    pub now_us: u64,
    pub zoom: Zoom,
    pub on_zoom: Callback<Zoom>,
    #[prop_or_default]
    pub memory: Rc<VecDeque<(u64, u64, u64)>>,
    #[prop_or_default]
    pub pending: Rc<Vec<(u64, u64)>>,
    /// The panel's accessible name (see [`crate::console::panel_name`]).
    pub label: AttrValue,
}

/// The chart, its lane labels, zoom buttons and legend.
#[component]
pub fn TimelinePanel(props: &TimelineProps) -> Html {
    // What a redraw of this panel costs, from its render to the DOM patched
    // (its effect runs after the commit), kept on the svg as
    // `data-redraw-ms` for the browser test to report.
    let t0 = crate::dom::wall_ms();
    let svg_ref = use_node_ref();
    {
        let svg_ref = svg_ref.clone();
        use_effect(move || {
            if let Some(svg) = svg_ref.cast::<web_sys::Element>() {
                let ms = crate::dom::wall_ms() - t0;
                let _ = svg.set_attribute("data-redraw-ms", &fixed(ms, 2));
            }
        });
    }
    let selected = use_state(|| None::<Mark>);
    let (start, end) = domain(props.now_us, props.zoom);
    let (step, tick_list) = ticks(start, end);
    // Every mark sits at its own time. Marks of one lane closer than a bin
    // (about two pixels on a wide screen) are drawn as one, at the first
    // one's time, with their count: a burst of thousands costs as much to
    // draw as a few, and nothing is pushed past "now".
    let mut bins: [Option<Bin>; 3] = [None, None, None];
    let mut shapes = Vec::new();
    let mut steps = Vec::new();
    let pick = |m: &Mark| {
        let selected = selected.clone();
        let m = m.clone();
        Callback::from(move |_| selected.set(Some(m.clone())))
    };
    for m in props
        .marks
        .iter()
        .filter(|m| m.at_us >= start && m.at_us <= end)
    {
        let x = x_pct(m.at_us, start, end);
        let lane = match m.kind {
            MarkKind::Command { .. } => 0,
            MarkKind::Expired { .. } => 1,
            MarkKind::Deleted { .. } | MarkKind::Flushed { .. } | MarkKind::Evicted { .. } => 2,
            MarkKind::Step { .. } => {
                steps.push(step_line(x, m));
                continue;
            }
        };
        match &mut bins[lane] {
            Some(b) if x - b.x < BIN_PCT && same_shape(b.first, m) => b.add(m),
            slot => {
                if let Some(done) = slot.replace(Bin::new(x, m)) {
                    shapes.push(done.draw(&pick));
                }
            }
        }
    }
    shapes.extend(bins.into_iter().flatten().map(|b| b.draw(&pick)));
    let (memory, scale) = memory_band(&props.memory, &props.pending, start, end, props.now_us);
    let waits = props
        .waits
        .iter()
        .filter(|w| w.from_us <= end && w.until_us.is_none_or(|u| u >= start))
        .map(|w| wait_bar(w, start, end, props.now_us));
    let now_x = x_pct(props.now_us, start, end);
    html! {
        <section class="rs-panel rs-timeline"
            aria-label={ props.label.clone() }>
            { head(props.zoom, &props.on_zoom) }
            <div class="rs-tl-body">
                <svg class="rs-tl-lanes" width="74" height={ num(HEIGHT) } aria-hidden="true">
                    { for [
                        (MEM_TOP + MEM_H / 2.0, &["memory"][..]),
                        (LANE_CMD, &["commands"][..]),
                        (LANE_EXP, &["expired"][..]),
                        (LANE_DEL, &["deleted ·", "evicted"][..]),
                    ].into_iter().map(|(y, lines)| {
                        // Lines of 13 px centred on the lane.
                        let first = y - 6.5 * (lines.len() - 1) as f64;
                        html! {
                            <text x="0" y={ num(first) } dominant-baseline="middle">
                                { for lines.iter().enumerate().map(|(i, l)| html! {
                                    <tspan x="0" y={ num(first + 13.0 * i as f64) }>{ *l }</tspan>
                                }) }
                            </text>
                        }
                    }) }
                    // The memory band's scale: its top, in bytes, from 0 at its foot.
                    if let Some(top) = scale {
                        <text class="rs-tl-memaxis" x="0" y={ num(MEM_TOP + MEM_H / 2.0 + 12.0) } dominant-baseline="middle">
                            { format!("0–{}", crate::fmt::fmt_bytes(top as usize)) }
                        </text>
                    }
                </svg>
                <svg class="rs-tl-svg" ref={ svg_ref } width="100%" height={ num(HEIGHT) } role="img"
                     aria-label="Timeline of memory, commands, expirations, deletions and evictions">
                    { memory }
                    { for [LANE_CMD, LANE_EXP, LANE_DEL].iter().map(|y| html! {
                        <line class="rs-tl-lane" x1="0" x2="100%" y1={ num(*y) } y2={ num(*y) } />
                    }) }
                    <line class="rs-tl-axis" x1="0" x2="100%" y1={ num(AXIS_Y) } y2={ num(AXIS_Y) } />
                    { for tick_list.iter().map(|&t| {
                        let x = format!("{}%", fixed(x_pct(t, start, end), 3));
                        html! {
                            <g class="rs-tl-tick">
                                <line x1={ x.clone() } x2={ x.clone() } y1={ num(AXIS_Y - 4.0) } y2={ num(AXIS_Y + 4.0) } />
                                <text x={ x } y={ num(AXIS_Y + 17.0) } text-anchor="middle">{ fmt_tick(t, step) }</text>
                            </g>
                        }
                    }) }
                    { for steps }
                    { for waits }
                    { for shapes }
                    if props.now_us >= start && props.now_us <= end {
                        <line class="rs-tl-now" x1={ format!("{}%", fixed(now_x, 3)) } x2={ format!("{}%", fixed(now_x, 3)) } y1="4" y2={ num(AXIS_Y) }>
                            <title>{ format!("now: {}", fmt_tick(props.now_us, 100_000)) }</title>
                        </line>
                    }
                </svg>
            </div>
            { legend(props) }
            if let Some(m) = (*selected).clone() {
                { eviction_view(&m, Callback::from(move |_| selected.set(None))) }
            }
        </section>
    }
}

/// The panel's header: its title and the zoom buttons.
fn head(zoom: Zoom, on_zoom: &Callback<Zoom>) -> Html {
    let buttons = Zoom::ALL.iter().map(|&z| {
        let on_zoom = on_zoom.clone();
        html! {
            <button class={ classes!("rs-chip", (z == zoom).then_some("rs-on")) }
                    onclick={ Callback::from(move |_| on_zoom.emit(z)) }>{ z.label() }</button>
        }
    });
    html! {
        <header class="rs-panel-head">
            <h3>{ "Timeline" }</h3>
            <span class="rs-muted">{ "virtual time" }</span>
            <span class="rs-spacer"></span>
            <span class="rs-chips">{ for buttons }</span>
        </header>
    }
}

/// The legend's fixed entries, as markup the browser parses: built element
/// by element with `html!` they cost the console module 3.6 KB of code
/// (443 bytes gzipped), against its 350 KB budget. The entries that come
/// and go (`pending`, `waits`, the clients' colours) stay `html!`.
const LEGEND_MARKS: &str = concat!(
    r#"<span><svg width="14" height="14"><circle class="rs-m-cmd" cx="7" cy="7" r="4.5"/></svg>command</span>"#,
    r#"<span><svg width="14" height="14"><circle class="rs-m-cmd rs-m-err" cx="7" cy="7" r="4.5"/></svg>error reply</span>"#,
    r#"<span><svg width="14" height="14"><circle class="rs-m-lazy" cx="7" cy="7" r="4.5"/></svg>lazy expiry (on access)</span>"#,
    r#"<span><svg width="14" height="14"><path class="rs-m-active" d="M7,1 L13,7 L7,13 L1,7Z"/></svg>active expiry (cycle)</span>"#,
    r#"<span><svg width="14" height="14"><path class="rs-m-del" d="M3,3 L11,11 M11,3 L3,11"/></svg>deleted</span>"#,
    r#"<span><svg width="14" height="14"><path class="rs-m-evict" d="M7,2 L12,12 L2,12Z"/></svg>evicted (click: its pool)</span>"#,
    r#"<span><svg width="16" height="14"><line class="rs-mem-used" x1="1" x2="15" y1="7" y2="7"/></svg>used memory</span>"#,
    r#"<span><svg width="16" height="14"><line class="rs-mem-max" x1="1" x2="15" y1="7" y2="7"/></svg>maxmemory</span>"#,
);
/// The fixed entries after the memory's.
const LEGEND_TIME: &str = concat!(
    r#"<span><svg width="14" height="14"><line class="rs-tl-now-key" x1="7" x2="7" y1="0" y2="14"/></svg>now</span>"#,
    r#"<span><svg width="14" height="14"><line class="rs-m-step" x1="7" x2="7" y1="0" y2="14"/></svg>clock step</span>"#,
);

/// The legend; the memory's expired-not-reclaimed series, the waits and
/// the clients' colours have entries only when they have something to show.
fn legend(props: &TimelineProps) -> Html {
    let clients = props.clients;
    html! {
        <footer class="rs-legend">
            { Html::from_html_unchecked(AttrValue::Static(LEGEND_MARKS)) }
            if props.pending.iter().any(|(_, n)| *n > 0) {
                <span><svg width="16" height="14"><line class="rs-mem-pending" x1="1" x2="15" y1="7" y2="7" /></svg>{ "expired, not yet reclaimed" }</span>
            }
            { Html::from_html_unchecked(AttrValue::Static(LEGEND_TIME)) }
            if !props.waits.is_empty() {
                <span><svg width="16" height="14"><line class="rs-tl-wait" x1="1" x2="15" y1="7" y2="7" /></svg>{ "blocked, waiting" }</span>
            }
            if clients > 1 {
                { for (1..=clients).map(|n| html! {
                    <span><svg width="14" height="14"><circle class={ format!("rs-m-cmd rs-who-{n}") } cx="7" cy="7" r="4.5" /></svg>{ label(n) }</span>
                }) }
            }
        </footer>
    }
}

/// The panel as a console's first frame draws it, as markup: the same box
/// (header, legend, the chart's area at its height) without the chart.
/// The chart is this module's Yew component, which the widget mounts in
/// its place once that frame is up and the console module's rest has
/// come: it runs none of its code before the first reply (issue 17). The
/// box keeps its size, so nothing moves when the chart fills it.
pub fn timeline_frame(zoom: Zoom, label: &str) -> String {
    let chips: String = Zoom::ALL
        .iter()
        .map(|&z| {
            format!(
                r#"<button class="rs-chip{}">{}</button>"#,
                if z == zoom { " rs-on" } else { "" },
                z.label()
            )
        })
        .collect();
    format!(
        concat!(
            r#"<section class="rs-panel rs-timeline" aria-label="{label}" data-pending="chart">"#,
            r#"<header class="rs-panel-head"><h3>Timeline</h3><span class="rs-muted">virtual time</span>"#,
            r#"<span class="rs-spacer"></span><span class="rs-chips">{chips}</span></header>"#,
            r#"<div class="rs-tl-body"><svg class="rs-tl-lanes" width="74" height="{h}" aria-hidden="true"></svg>"#,
            r#"<svg class="rs-tl-svg" width="100%" height="{h}" aria-hidden="true"></svg></div>"#,
            r#"<footer class="rs-legend">{marks}{time}</footer></section>"#
        ),
        label = label,
        chips = chips,
        h = num(HEIGHT),
        marks = LEGEND_MARKS,
        time = LEGEND_TIME,
    )
}

/// One eviction: the pool it was picked from (ascending score, the victim
/// highlighted) and the keys sampled into it, with their scores.
fn eviction_view(m: &Mark, on_close: Callback<MouseEvent>) -> Html {
    let MarkKind::Evicted {
        key,
        policy,
        pool,
        sampled,
    } = &m.kind
    else {
        return html! {};
    };
    let score_name = if policy.contains("lfu") {
        "255 − LFU counter"
    } else if policy.ends_with("ttl") {
        "inverted expire time"
    } else {
        "idle ms"
    };
    html! {
        <div class="rs-evict-view" role="region" aria-label="Eviction pool">
            <header class="rs-panel-head">
                <strong>{ format!("\"{key}\" evicted by {policy} at {}", fmt_tick(m.at_us, 1)) }</strong>
                <span class="rs-spacer"></span>
                <button class="rs-chip" onclick={ on_close }>{ "close" }</button>
            </header>
            if pool.is_empty() {
                <p class="rs-muted">{ "This policy picks without a pool (random, or a redsim exact reference policy)." }</p>
            } else {
                <p class="rs-muted">{ format!("The pool ({} of 16 slots, score = {score_name}, best on the right); Redis takes the best live key from the right.", pool.len()) }</p>
                <ol class="rs-evict-pool">
                    { for pool.iter().map(|c| html! {
                        <li class={ classes!((c.key == *key).then_some("rs-victim")) }>
                            <code>{ &c.key }</code><span class="rs-muted">{ format!(" {}", c.score) }</span>
                        </li>
                    }) }
                </ol>
                <p class="rs-muted">{ format!("Sampled for this eviction ({} keys, maxmemory-samples per database per round):", sampled.len()) }</p>
                <p class="rs-evict-sampled">
                    { for sampled.iter().map(|c| html! { <span><code>{ &c.key }</code>{ format!(" {} ", c.score) }</span> }) }
                </p>
            }
        </div>
    }
}

/// Marks of one lane closer than this (in % of the width) are drawn as one.
const BIN_PCT: f64 = 0.15;

/// Marks drawn as one: the first one's shape at its time, with a count.
struct Bin<'a> {
    x: f64,
    first: &'a Mark,
    last: &'a Mark,
    count: usize,
    /// The newest eviction in the bin, whose pool a click shows.
    evicted: Option<&'a Mark>,
}

impl<'a> Bin<'a> {
    fn new(x: f64, m: &'a Mark) -> Bin<'a> {
        Bin {
            x,
            first: m,
            last: m,
            count: 1,
            evicted: matches!(m.kind, MarkKind::Evicted { .. }).then_some(m),
        }
    }

    fn add(&mut self, m: &'a Mark) {
        self.last = m;
        self.count += 1;
        if matches!(m.kind, MarkKind::Evicted { .. }) {
            self.evicted = Some(m);
        }
    }

    fn draw(self, pick: &impl Fn(&Mark) -> Callback<MouseEvent>) -> Html {
        let more = (self.count > 1).then_some((self.count, self.last.at_us));
        mark(self.x, self.first, more, self.evicted.map(pick))
    }
}

/// Whether two marks are drawn alike (a bin holds one kind: commands of
/// one client and outcome, one way of expiring...).
fn same_shape(a: &Mark, b: &Mark) -> bool {
    use redsim_engine::server::trace::ExpireHow;
    match (&a.kind, &b.kind) {
        (
            MarkKind::Command {
                who: wa, error: ea, ..
            },
            MarkKind::Command {
                who: wb, error: eb, ..
            },
        ) => wa == wb && ea == eb,
        (MarkKind::Expired { how: x, .. }, MarkKind::Expired { how: y, .. }) => {
            matches!(
                (x, y),
                (ExpireHow::Lazy, ExpireHow::Lazy) | (ExpireHow::Active, ExpireHow::Active)
            )
        }
        _ => std::mem::discriminant(&a.kind) == std::mem::discriminant(&b.kind),
    }
}
