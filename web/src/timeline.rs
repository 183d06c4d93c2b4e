//! The timeline: used memory against maxmemory with the count of expired-but-unreclaimed keys, commands (coloured by client), the time blocked clients waited, expirations (lazy and active marked apart), deletions and evictions (click one for its pool) on the virtual time axis, built incrementally from the engine's trace and drawn as SVG.
//!
//! The trace is the only history the UI reads: [`Timeline::ingest`] takes the
//! events after the last sequence number it saw (`Trace::since`), so each
//! refresh costs only what happened since the previous one.
//!
//! Marks are placed with percentage coordinates inside nested `<svg>`
//! elements, so the chart stretches to any width without scaling its
//! shapes or text.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use redsim_engine::server::trace::{
    Actor, Candidate, DeleteCause, Event, ExpireHow, Trace, UnblockHow,
};
use yew::prelude::*;

use crate::clients::label_num;

/// Marks kept; older ones are dropped (the trace itself is bounded too).
pub const MAX_MARKS: usize = 5000;
/// Waits kept.
pub const MAX_WAITS: usize = 500;
/// How far back a reply looks for the command it answers.
const PAIR_WINDOW: usize = 256;

/// What a mark shows.
#[derive(Clone, Debug, PartialEq)]
pub enum MarkKind {
    Command {
        text: String,
        reply: Option<String>,
        error: bool,
        /// The engine's client id, which pairs the reply with its command.
        client: u64,
        /// The console's client number, when the client is one of its tabs.
        who: Option<usize>,
    },
    Expired {
        key: String,
        how: ExpireHow,
    },
    Deleted {
        key: String,
        cause: DeleteCause,
    },
    Flushed {
        keys: u64,
    },
    /// A key evicted for maxmemory, with the pool it came from and the
    /// samples taken for it (empty for random and exact policies).
    Evicted {
        key: String,
        policy: String,
        pool: Rc<Vec<Candidate>>,
        sampled: Rc<Vec<Candidate>>,
    },
    /// A step of the clock buttons.
    Step {
        by_us: u64,
    },
}

/// One mark at a virtual instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub at_us: u64,
    pub kind: MarkKind,
}

/// A blocked client's wait, from its blocking command to its reply.
#[derive(Clone, Debug, PartialEq)]
pub struct Wait {
    pub client: u64,
    pub who: Option<usize>,
    pub keys: Vec<String>,
    pub from_us: u64,
    /// `None` while it still waits.
    pub until_us: Option<u64>,
    pub how: Option<UnblockHow>,
}

/// The timeline's model.
#[derive(Default)]
pub struct Timeline {
    next_seq: u64,
    pub marks: Rc<VecDeque<Mark>>,
    pub waits: Rc<VecDeque<Wait>>,
    /// Console client number of each engine client seen connecting.
    who: HashMap<u64, usize>,
    /// `(at_us, used, maxmemory)` from the cron's memory samples.
    pub memory: Rc<VecDeque<(u64, u64, u64)>>,
    /// `(at_us, keys)`: how many keys were expired but not yet reclaimed.
    pub pending: Rc<Vec<(u64, u64)>>,
}

/// Memory samples kept.
const MAX_SAMPLES: usize = 4000;

/// A reply's command: the latest one of the same client still without a reply.
fn pending_command<'a>(
    marks: impl Iterator<Item = &'a mut Mark>,
    client: u64,
) -> Option<&'a mut Mark> {
    marks.take(PAIR_WINDOW).find(
        |m| matches!(&m.kind, MarkKind::Command { reply: None, client: c, .. } if *c == client),
    )
}

impl Timeline {
    /// Recomputes the expired-but-unreclaimed series from the whole trace
    /// (it depends on every TTL ever set); call after `ingest` changed marks.
    pub fn update_pending(&mut self, trace: &Trace, unix_base_us: u64, now_us: u64) {
        let series = redsim_engine::server::trace::pending_expired_series(
            trace.events(),
            unix_base_us,
            now_us,
        );
        if *self.pending != series {
            self.pending = Rc::new(series);
        }
    }

    /// Reads the trace events after the last one seen; true if marks changed.
    ///
    /// New marks are gathered apart first: most refreshes bring only events
    /// the timeline does not draw (active expire cycles), and the shared
    /// mark list is copied only when something is added to it.
    pub fn ingest(&mut self, trace: &Trace) -> bool {
        if trace.next_seq() == self.next_seq {
            return false;
        }
        let mut fresh: Vec<Mark> = Vec::new();
        let mut late_replies = Vec::new();
        let mut waits_changed = false;
        for ev in trace.since(self.next_seq) {
            let client = match ev.actor {
                Actor::Client(id) => id,
                Actor::Server => 0,
            };
            let kind = match &ev.event {
                Event::Connected { name } => {
                    if let Some(n) = label_num(name) {
                        self.who.insert(client, n);
                    }
                    continue;
                }
                Event::Command { args, .. } => MarkKind::Command {
                    text: args.join(" "),
                    reply: None,
                    error: false,
                    client,
                    who: self.who.get(&client).copied(),
                },
                Event::Reply { text, error } => {
                    match pending_command(fresh.iter_mut().rev(), client) {
                        Some(m) => {
                            attach_reply(m, text, *error);
                        }
                        None => late_replies.push((client, text.clone(), *error)),
                    }
                    continue;
                }
                Event::Blocked { keys, .. } => {
                    let waits = Rc::make_mut(&mut self.waits);
                    waits.push_back(Wait {
                        client,
                        who: self.who.get(&client).copied(),
                        keys: keys.clone(),
                        from_us: ev.at_us,
                        until_us: None,
                        how: None,
                    });
                    while waits.len() > MAX_WAITS {
                        waits.pop_front();
                    }
                    waits_changed = true;
                    continue;
                }
                Event::Unblocked { how, .. } => {
                    let waits = Rc::make_mut(&mut self.waits);
                    if let Some(w) = waits
                        .iter_mut()
                        .rev()
                        .find(|w| w.client == client && w.until_us.is_none())
                    {
                        w.until_us = Some(ev.at_us);
                        w.how = Some(*how);
                        waits_changed = true;
                    }
                    continue;
                }
                Event::Expired { key, how, .. } => MarkKind::Expired {
                    key: key.clone(),
                    how: *how,
                },
                Event::Deleted { key, cause, .. } => MarkKind::Deleted {
                    key: key.clone(),
                    cause: *cause,
                },
                Event::Flushed { keys, .. } => MarkKind::Flushed { keys: *keys },
                Event::Evicted {
                    key,
                    policy,
                    pool,
                    sampled,
                    ..
                } => MarkKind::Evicted {
                    key: key.clone(),
                    policy: policy.clone(),
                    pool: Rc::new(pool.clone()),
                    sampled: Rc::new(sampled.clone()),
                },
                Event::Memory {
                    used, maxmemory, ..
                } => {
                    let m = Rc::make_mut(&mut self.memory);
                    m.push_back((ev.at_us, *used, *maxmemory));
                    while m.len() > MAX_SAMPLES {
                        m.pop_front();
                    }
                    waits_changed = true;
                    continue;
                }
                Event::ClockAdvanced { by_us } => MarkKind::Step { by_us: *by_us },
                _ => continue,
            };
            fresh.push(Mark {
                at_us: ev.at_us,
                kind,
            });
        }
        self.next_seq = trace.next_seq();
        if fresh.is_empty() && late_replies.is_empty() {
            return waits_changed;
        }
        let marks = Rc::make_mut(&mut self.marks);
        let mut changed = waits_changed || !fresh.is_empty();
        for (client, text, error) in late_replies {
            if let Some(m) = pending_command(marks.iter_mut().rev(), client) {
                changed |= attach_reply(m, &text, error);
            }
        }
        marks.extend(fresh);
        while marks.len() > MAX_MARKS {
            marks.pop_front();
        }
        changed
    }
}

/// Gives a command mark the reply that followed it; false if `m` is not a
/// command still waiting for one.
fn attach_reply(m: &mut Mark, text: &str, error: bool) -> bool {
    match &mut m.kind {
        MarkKind::Command {
            reply: reply @ None,
            error: e,
            ..
        } => {
            *reply = Some(text.to_string());
            *e = error;
            true
        }
        _ => false,
    }
}

/// How much of the axis is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zoom {
    TenSeconds,
    Minute,
    TenMinutes,
    All,
}

impl Zoom {
    pub const ALL: [Zoom; 4] = [Zoom::TenSeconds, Zoom::Minute, Zoom::TenMinutes, Zoom::All];

    pub fn label(self) -> &'static str {
        match self {
            Zoom::TenSeconds => "10 s",
            Zoom::Minute => "1 min",
            Zoom::TenMinutes => "10 min",
            Zoom::All => "all",
        }
    }

    fn window_us(self) -> Option<u64> {
        match self {
            Zoom::TenSeconds => Some(10_000_000),
            Zoom::Minute => Some(60_000_000),
            Zoom::TenMinutes => Some(600_000_000),
            Zoom::All => None,
        }
    }
}

/// The visible interval `[start, end]` in µs: the last window ending now,
/// or from 0 while less than a window has passed (then the axis fills up
/// from the left); `All` spans from 0 to now, at least 10 s.
pub fn domain(now_us: u64, zoom: Zoom) -> (u64, u64) {
    match zoom.window_us() {
        Some(w) if now_us > w => (now_us - w, now_us),
        Some(w) => (0, w),
        None => (0, now_us.max(10_000_000)),
    }
}

/// Axis ticks: the smallest round step giving at most 8 intervals.
pub fn ticks(start: u64, end: u64) -> (u64, Vec<u64>) {
    const STEPS_MS: [u64; 20] = [
        100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
        900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
    ];
    let span = end.saturating_sub(start).max(1);
    let step = STEPS_MS
        .iter()
        .map(|ms| ms * 1000)
        .find(|s| span / s <= 8)
        .unwrap_or(86_400_000_000 * (span / 86_400_000_000 / 8 + 1));
    let first = start.div_ceil(step) * step;
    let ticks = (0..)
        .map(|i| first + i * step)
        .take_while(|t| *t <= end)
        .collect();
    (step, ticks)
}

/// A tick label: seconds (with tenths for sub-second steps), then m:ss, h:mm:ss.
pub fn fmt_tick(us: u64, step_us: u64) -> String {
    let ms = us / 1000;
    let s = ms / 1000;
    if s < 60 {
        if step_us < 1_000_000 {
            format!("{}.{}s", s, ms % 1000 / 100)
        } else {
            format!("{s}s")
        }
    } else if s < 3600 {
        format!("{}:{:02}", s / 60, s % 60)
    } else {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

/// Horizontal position of `t` as a percentage, with a 1.5% margin each side
/// so marks at the ends are not clipped.
fn x_pct(t: u64, start: u64, end: u64) -> f64 {
    let span = end.saturating_sub(start).max(1) as f64;
    1.5 + 97.0 * (t.saturating_sub(start) as f64 / span)
}

/// The memory band: its top and height.
const MEM_TOP: f64 = 6.0;
const MEM_H: f64 = 34.0;
const LANE_CMD: f64 = 62.0;
const LANE_EXP: f64 = 92.0;
const LANE_DEL: f64 = 122.0;
const AXIS_Y: f64 = 142.0;
const HEIGHT: f64 = 164.0;

#[derive(Properties, PartialEq)]
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
}

/// The chart, its lane labels, zoom buttons and legend.
#[component]
pub fn TimelinePanel(props: &TimelineProps) -> Html {
    let selected = use_state(|| None::<Mark>);
    let (start, end) = domain(props.now_us, props.zoom);
    let (step, tick_list) = ticks(start, end);
    // Marks close together in one lane are spread sideways rather than drawn
    // on top of each other: each gets the next slot right of its neighbour.
    let mut last_x = [f64::NEG_INFINITY; 3];
    let mut slot = [0u32; 3];
    let mut shapes = Vec::new();
    let mut steps = Vec::new();
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
        if x - last_x[lane] < 0.6 {
            slot[lane] = (slot[lane] + 1).min(20);
        } else {
            slot[lane] = 0;
            last_x[lane] = x;
        }
        let pick = matches!(m.kind, MarkKind::Evicted { .. }).then(|| {
            let selected = selected.clone();
            let m = m.clone();
            Callback::from(move |_| selected.set(Some(m.clone())))
        });
        shapes.push(mark(x, slot[lane], m, pick));
    }
    let memory = memory_band(&props.memory, &props.pending, start, end, props.now_us);
    let waits = props
        .waits
        .iter()
        .filter(|w| w.from_us <= end && w.until_us.is_none_or(|u| u >= start))
        .map(|w| wait_bar(w, start, end, props.now_us));
    let now_x = x_pct(props.now_us, start, end);
    let zoom_buttons = Zoom::ALL.iter().map(|&z| {
        let on_zoom = props.on_zoom.clone();
        html! {
            <button class={ classes!("rs-chip", (z == props.zoom).then_some("rs-on")) }
                    onclick={ Callback::from(move |_| on_zoom.emit(z)) }>{ z.label() }</button>
        }
    });
    html! {
        <section class="rs-panel rs-timeline" aria-label="Timeline">
            <header class="rs-panel-head">
                <h3>{ "Timeline" }</h3>
                <span class="rs-muted">{ "virtual time" }</span>
                <span class="rs-spacer"></span>
                <span class="rs-chips">{ for zoom_buttons }</span>
            </header>
            <div class="rs-tl-body">
                <div class="rs-tl-lanes" aria-hidden="true">
                    <span style={ format!("top:{}px", MEM_TOP + MEM_H / 2.0) }>{ "memory" }</span>
                    <span style={ format!("top:{}px", LANE_CMD) }>{ "commands" }</span>
                    <span style={ format!("top:{}px", LANE_EXP) }>{ "expired" }</span>
                    <span style={ format!("top:{}px", LANE_DEL) }>{ "deleted · evicted" }</span>
                </div>
                <svg class="rs-tl-svg" width="100%" height={ HEIGHT.to_string() } role="img"
                     aria-label="Timeline of memory, commands, expirations, deletions and evictions">
                    { memory }
                    { for [LANE_CMD, LANE_EXP, LANE_DEL].iter().map(|y| html! {
                        <line class="rs-tl-lane" x1="0" x2="100%" y1={ y.to_string() } y2={ y.to_string() } />
                    }) }
                    <line class="rs-tl-axis" x1="0" x2="100%" y1={ AXIS_Y.to_string() } y2={ AXIS_Y.to_string() } />
                    { for tick_list.iter().map(|&t| {
                        let x = format!("{:.3}%", x_pct(t, start, end));
                        html! {
                            <g class="rs-tl-tick">
                                <line x1={ x.clone() } x2={ x.clone() } y1={ (AXIS_Y - 4.0).to_string() } y2={ (AXIS_Y + 4.0).to_string() } />
                                <text x={ x } y={ (AXIS_Y + 17.0).to_string() } text-anchor="middle">{ fmt_tick(t, step) }</text>
                            </g>
                        }
                    }) }
                    { for steps }
                    { for waits }
                    { for shapes }
                    if props.now_us >= start && props.now_us <= end {
                        <line class="rs-tl-now" x1={ format!("{now_x:.3}%") } x2={ format!("{now_x:.3}%") } y1="4" y2={ AXIS_Y.to_string() }>
                            <title>{ format!("now: {}", fmt_tick(props.now_us, 100_000)) }</title>
                        </line>
                    }
                </svg>
            </div>
            <footer class="rs-legend">
                <span><svg width="14" height="14"><circle class="rs-m-cmd" cx="7" cy="7" r="4.5" /></svg>{ "command" }</span>
                <span><svg width="14" height="14"><circle class="rs-m-cmd rs-m-err" cx="7" cy="7" r="4.5" /></svg>{ "error reply" }</span>
                <span><svg width="14" height="14"><circle class="rs-m-lazy" cx="7" cy="7" r="4.5" /></svg>{ "lazy expiry (on access)" }</span>
                <span><svg width="14" height="14"><path class="rs-m-active" d="M7,1 L13,7 L7,13 L1,7Z" /></svg>{ "active expiry (cycle)" }</span>
                <span><svg width="14" height="14"><path class="rs-m-del" d="M3,3 L11,11 M11,3 L3,11" /></svg>{ "deleted" }</span>
                <span><svg width="14" height="14"><path class="rs-m-evict" d="M7,2 L12,12 L2,12Z" /></svg>{ "evicted (click: its pool)" }</span>
                <span><svg width="16" height="14"><line class="rs-mem-used" x1="1" x2="15" y1="7" y2="7" /></svg>{ "used memory" }</span>
                <span><svg width="16" height="14"><line class="rs-mem-max" x1="1" x2="15" y1="7" y2="7" /></svg>{ "maxmemory" }</span>
                <span><svg width="16" height="14"><line class="rs-mem-pending" x1="1" x2="15" y1="7" y2="7" /></svg>{ "expired, not yet reclaimed" }</span>
                <span><svg width="14" height="14"><line class="rs-m-step" x1="7" x2="7" y1="0" y2="14" /></svg>{ "clock step" }</span>
                if !props.waits.is_empty() {
                    <span><svg width="16" height="14"><line class="rs-tl-wait" x1="1" x2="15" y1="7" y2="7" /></svg>{ "blocked, waiting" }</span>
                }
                if props.clients > 1 {
                    { for (1..=props.clients).map(|n| html! {
                        <span><svg width="14" height="14"><circle class={ format!("rs-m-cmd rs-who-{n}") } cx="7" cy="7" r="4.5" /></svg>{ crate::clients::label(n) }</span>
                    }) }
                }
            </footer>
            if let Some(m) = (*selected).clone() {
                { eviction_view(&m, Callback::from(move |_| selected.set(None))) }
            }
        </section>
    }
}

/// The memory band: used memory and maxmemory (scaled to the larger of
/// the two in view) and the pending-expired count (scaled to its own max),
/// drawn in a 0..100 x 0..1 viewBox stretched to the chart.
fn memory_band(
    memory: &VecDeque<(u64, u64, u64)>,
    pending: &[(u64, u64)],
    start: u64,
    end: u64,
    now_us: u64,
) -> Html {
    // Samples are taken only on change: the one before the view holds at
    // its start, and the last one holds until now.
    let before = memory.iter().rev().find(|(t, _, _)| *t < start).copied();
    let mut in_view: Vec<(u64, u64, u64)> = before
        .map(|(_, u, m)| (start, u, m))
        .into_iter()
        .chain(
            memory
                .iter()
                .filter(|(t, _, _)| *t >= start && *t <= end)
                .copied(),
        )
        .collect();
    if let Some(&(t, u, m)) = in_view.last() {
        let until = now_us.min(end);
        if until > t {
            in_view.push((until, u, m));
        }
    }
    let top = in_view
        .iter()
        .map(|(_, u, m)| (*u).max(*m))
        .max()
        .unwrap_or(0)
        .max(1) as f64
        // Headroom, so a used line at the limit stays visible under its top.
        * 1.15;
    let y = |v: f64, max: f64| format!("{:.4}", 1.0 - (v / max).min(1.0));
    let mut used = String::new();
    let mut maxl = String::new();
    for (t, u, m) in &in_view {
        let x = format!("{:.3}", x_pct(*t, start, end));
        used.push_str(&format!("{x},{} ", y(*u as f64, top)));
        if *m > 0 {
            maxl.push_str(&format!("{x},{} ", y(*m as f64, top)));
        }
    }
    let pend: Vec<&(u64, u64)> = pending.iter().filter(|(t, _)| *t <= end).collect();
    let pmax_raw = pend.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let pmax = pmax_raw.max(1) as f64;
    let mut pl = String::new();
    let mut last = 0u64;
    for (t, n) in &pend {
        let x = x_pct((*t).max(start), start, end);
        pl.push_str(&format!(
            "{x:.3},{} {x:.3},{} ",
            y(last as f64, pmax),
            y(*n as f64, pmax)
        ));
        last = *n;
    }
    if pmax_raw == 0 {
        // Nothing ever waited to be reclaimed: no line at all.
        pl.clear();
    } else {
        pl.push_str(&format!(
            "{:.3},{} ",
            x_pct(now_us.min(end), start, end),
            y(last as f64, pmax)
        ));
    }
    let peak_used = in_view.iter().map(|(_, u, _)| *u).max().unwrap_or(0);
    let title = format!(
        "used memory (peak in view {} KiB){}; expired but not reclaimed: up to {} keys",
        peak_used / 1024,
        in_view
            .last()
            .filter(|(_, _, m)| *m > 0)
            .map_or(String::new(), |(_, _, m)| format!(
                ", maxmemory {} KiB",
                m / 1024
            )),
        pmax_raw
    );
    html! {
        <svg class="rs-tl-mem" x="0" y={ MEM_TOP.to_string() } width="100%" height={ MEM_H.to_string() }
             viewBox="0 0 100 1" preserveAspectRatio="none">
            <title>{ title }</title>
            <polyline class="rs-mem-max" points={ maxl } vector-effect="non-scaling-stroke" />
            <polyline class="rs-mem-used" points={ used } vector-effect="non-scaling-stroke" />
            <polyline class="rs-mem-pending" points={ pl } vector-effect="non-scaling-stroke" />
        </svg>
    }
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

/// One mark: a nested `<svg>` placed at `x`% whose content is drawn around
/// its origin, shifted by `slot` places when crowded.
fn mark(x: f64, slot: u32, m: &Mark, pick: Option<Callback<MouseEvent>>) -> Html {
    let dx = slot as f64 * 11.0;
    let at = fmt_tick(m.at_us, 1);
    let (y, class, shape, title) = match &m.kind {
        MarkKind::Command {
            text,
            reply,
            error,
            who,
            ..
        } => (
            LANE_CMD,
            match (error, who) {
                (true, _) => "rs-m-cmd rs-m-err".to_string(),
                (false, Some(n)) => format!("rs-m-cmd rs-who-{n}"),
                (false, None) => "rs-m-cmd".to_string(),
            },
            html! { <circle cx={ dx.to_string() } cy="0" r="4.5" /> },
            format!(
                "{at}  {}{text}\n→ {}",
                who.map(|n| format!("{} · ", crate::clients::label(n)))
                    .unwrap_or_default(),
                reply.as_deref().unwrap_or("(no reply yet)")
            ),
        ),
        MarkKind::Expired { key, how } => match how {
            ExpireHow::Lazy => (
                LANE_EXP,
                "rs-m-lazy".to_string(),
                html! { <circle cx={ dx.to_string() } cy="0" r="5" /> },
                format!("{at}  \"{key}\" expired lazily (found expired on access)"),
            ),
            ExpireHow::Active => (
                LANE_EXP,
                "rs-m-active".to_string(),
                html! { <path d={ format!("M{},-6 L{},0 L{},6 L{},0Z", dx, dx + 6.0, dx, dx - 6.0) } /> },
                format!("{at}  \"{key}\" expired by the active expire cycle"),
            ),
        },
        MarkKind::Deleted { key, cause } => (
            LANE_DEL,
            "rs-m-del".to_string(),
            html! { <path d={ format!("M{},-4 L{},4 M{},-4 L{},4", dx - 4.0, dx + 4.0, dx + 4.0, dx - 4.0) } /> },
            format!("{at}  \"{key}\" deleted ({cause:?})"),
        ),
        MarkKind::Flushed { keys } => (
            LANE_DEL,
            "rs-m-del rs-m-flush".to_string(),
            html! { <rect x={ (dx - 5.0).to_string() } y="-5" width="10" height="10" /> },
            format!("{at}  flush: {keys} keys removed"),
        ),
        MarkKind::Evicted { key, policy, .. } => (
            LANE_DEL,
            "rs-m-evict".to_string(),
            html! { <path d={ format!("M{},-6 L{},5 L{},5Z", dx, dx + 6.0, dx - 6.0) } /> },
            format!("{at}  \"{key}\" evicted by {policy} (click to see its pool)"),
        ),
        MarkKind::Step { .. } => return step_line(x, m),
    };
    html! {
        <svg class={ classes!("rs-tl-mark", class, pick.is_some().then_some("rs-clickable")) } x={ format!("{x:.3}%") } y={ y.to_string() } overflow="visible"
             onclick={ pick }>
            <title>{ title }</title>
            { shape }
        </svg>
    }
}

/// A blocked client's wait: a bar under the commands lane from the
/// blocking command to its reply (or to now while it still waits).
fn wait_bar(w: &Wait, start: u64, end: u64, now_us: u64) -> Html {
    let until = w.until_us.unwrap_or(now_us);
    let x1 = x_pct(w.from_us.max(start), start, end);
    let x2 = x_pct(until.min(end), start, end);
    let y = (LANE_CMD + 9.0).to_string();
    let waited_ms = until.saturating_sub(w.from_us) / 1000;
    let outcome = match w.how {
        None => "still waiting",
        Some(UnblockHow::Served) => "served",
        Some(UnblockHow::Timeout) => "timed out",
        Some(UnblockHow::Disconnected) => "disconnected",
    };
    let who = w
        .who
        .map_or(String::new(), |n| format!("{} ", crate::clients::label(n)));
    html! {
        <line class={ classes!("rs-tl-wait", w.who.map(|n| format!("rs-who-{n}")), w.until_us.is_none().then_some("rs-tl-waiting")) }
              x1={ format!("{x1:.3}%") } x2={ format!("{:.3}%", x2.max(x1)) } y1={ y.clone() } y2={ y }>
            <title>{ format!("{who}blocked on {} for {}.{:03} s: {outcome}", w.keys.join(", "), waited_ms / 1000, waited_ms % 1000) }</title>
        </line>
    }
}

/// A clock step: a faint dashed line across the lanes.
fn step_line(x: f64, m: &Mark) -> Html {
    let by = match m.kind {
        MarkKind::Step { by_us } => by_us,
        _ => 0,
    };
    let x = format!("{x:.3}%");
    html! {
        <line class="rs-tl-mark rs-m-step" x1={ x.clone() } x2={ x } y1="6" y2={ (AXIS_Y - 2.0).to_string() }>
            <title>{ format!("clock stepped +{} ms", by / 1000) }</title>
        </line>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_engine::server::trace::Actor;

    #[test]
    fn ingest_reads_only_new_events_and_pairs_replies() {
        let mut trace = Trace::new(100);
        let mut tl = Timeline::default();
        assert!(!tl.ingest(&trace));
        trace.push(
            0,
            Actor::Client(1),
            Event::Command {
                db: 0,
                args: vec!["GET".into(), "a".into()],
            },
        );
        trace.push(
            0,
            Actor::Client(1),
            Event::Reply {
                text: "(nil)".into(),
                error: false,
            },
        );
        assert!(tl.ingest(&trace));
        assert!(!tl.ingest(&trace));
        trace.push(
            2_100_000,
            Actor::Server,
            Event::Expired {
                db: 0,
                key: "a".into(),
                how: ExpireHow::Active,
            },
        );
        trace.push(
            2_100_000,
            Actor::Server,
            Event::ExpireCycle {
                fast: false,
                sampled: 1,
                expired: 1,
            },
        );
        assert!(tl.ingest(&trace));
        let marks: Vec<&Mark> = tl.marks.iter().collect();
        assert_eq!(marks.len(), 2);
        assert_eq!(
            marks[0].kind,
            MarkKind::Command {
                text: "GET a".into(),
                reply: Some("(nil)".into()),
                error: false,
                client: 1,
                who: None,
            }
        );
        assert_eq!(marks[1].at_us, 2_100_000);
        assert!(matches!(
            marks[1].kind,
            MarkKind::Expired {
                how: ExpireHow::Active,
                ..
            }
        ));
    }

    #[test]
    fn undrawn_events_leave_the_marks_untouched_and_late_replies_attach() {
        let mut trace = Trace::new(100);
        let mut tl = Timeline::default();
        trace.push(
            5,
            Actor::Client(1),
            Event::Command {
                db: 0,
                args: vec!["PING".into()],
            },
        );
        assert!(tl.ingest(&trace));
        let shared = tl.marks.clone();
        trace.push(
            6,
            Actor::Server,
            Event::ExpireCycle {
                fast: false,
                sampled: 3,
                expired: 0,
            },
        );
        assert!(!tl.ingest(&trace));
        assert!(Rc::ptr_eq(&shared, &tl.marks), "no copy for undrawn events");
        trace.push(
            7,
            Actor::Client(1),
            Event::Reply {
                text: "PONG".into(),
                error: false,
            },
        );
        assert!(tl.ingest(&trace));
        assert_eq!(
            tl.marks[0].kind,
            MarkKind::Command {
                text: "PING".into(),
                reply: Some("PONG".into()),
                error: false,
                client: 1,
                who: None,
            }
        );
        // The copy held by the view is not changed behind its back.
        assert!(matches!(
            shared[0].kind,
            MarkKind::Command { reply: None, .. }
        ));
    }

    #[test]
    fn replies_pair_by_client_and_waits_span_blocked_time() {
        let mut trace = Trace::new(100);
        let mut tl = Timeline::default();
        for (id, name) in [(1, "client 1"), (2, "client 2")] {
            trace.push(0, Actor::Client(id), Event::Connected { name: name.into() });
        }
        let cmd = |args: &[&str]| Event::Command {
            db: 0,
            args: args.iter().map(|a| a.to_string()).collect(),
        };
        trace.push(10, Actor::Client(1), cmd(&["BLPOP", "q", "0"]));
        trace.push(
            10,
            Actor::Client(1),
            Event::Blocked {
                db: 0,
                keys: vec!["q".into()],
                deadline_us: None,
            },
        );
        assert!(tl.ingest(&trace));
        assert_eq!(tl.waits.len(), 1);
        assert_eq!(tl.waits[0].until_us, None);
        assert_eq!(tl.waits[0].who, Some(1));
        // Client 2 pushes: its reply, then client 1 is served and replies.
        trace.push(3_000_000, Actor::Client(2), cmd(&["LPUSH", "q", "a"]));
        let reply = |t: &str| Event::Reply {
            text: t.into(),
            error: false,
        };
        trace.push(3_000_000, Actor::Client(2), reply("(integer) 1"));
        trace.push(
            3_000_000,
            Actor::Client(1),
            Event::Unblocked {
                how: UnblockHow::Served,
                key: Some("q".into()),
            },
        );
        trace.push(3_000_000, Actor::Client(1), reply("1) \"q\"\n2) \"a\""));
        assert!(tl.ingest(&trace));
        let replies: Vec<(String, Option<String>, Option<usize>)> = tl
            .marks
            .iter()
            .map(|m| match &m.kind {
                MarkKind::Command {
                    text, reply, who, ..
                } => (text.clone(), reply.clone(), *who),
                k => panic!("{k:?}"),
            })
            .collect();
        assert_eq!(
            replies,
            vec![
                (
                    "BLPOP q 0".to_string(),
                    Some("1) \"q\"\n2) \"a\"".to_string()),
                    Some(1)
                ),
                (
                    "LPUSH q a".to_string(),
                    Some("(integer) 1".to_string()),
                    Some(2)
                ),
            ]
        );
        assert_eq!(tl.waits[0].until_us, Some(3_000_000));
        assert_eq!(tl.waits[0].how, Some(UnblockHow::Served));
    }

    #[test]
    fn ingest_survives_a_trace_that_dropped_events() {
        let mut trace = Trace::new(3);
        let mut tl = Timeline::default();
        for i in 0..10 {
            trace.push(i, Actor::Server, Event::ClockAdvanced { by_us: 1 });
        }
        assert!(tl.ingest(&trace));
        assert_eq!(tl.marks.len(), 3);
        assert_eq!(tl.marks[0].at_us, 7);
    }

    #[test]
    fn domain_fills_from_zero_then_scrolls() {
        assert_eq!(domain(3_000_000, Zoom::TenSeconds), (0, 10_000_000));
        assert_eq!(
            domain(25_000_000, Zoom::TenSeconds),
            (15_000_000, 25_000_000)
        );
        assert_eq!(domain(5, Zoom::All), (0, 10_000_000));
        assert_eq!(domain(99_000_000, Zoom::All), (0, 99_000_000));
    }

    #[test]
    fn ticks_are_round_and_few() {
        let (step, t) = ticks(0, 10_000_000);
        assert_eq!(step, 2_000_000);
        assert_eq!(
            t,
            vec![0, 2_000_000, 4_000_000, 6_000_000, 8_000_000, 10_000_000]
        );
        let (step, t) = ticks(61_500_000, 121_500_000);
        assert_eq!(step, 10_000_000);
        assert_eq!(t.first(), Some(&70_000_000));
        assert!(t.len() <= 9);
        let (_, t) = ticks(0, 3_000_000_000_000);
        assert!(!t.is_empty() && t.len() <= 9);
    }

    #[test]
    fn tick_labels() {
        assert_eq!(fmt_tick(2_500_000, 500_000), "2.5s");
        assert_eq!(fmt_tick(4_000_000, 2_000_000), "4s");
        assert_eq!(fmt_tick(70_000_000, 10_000_000), "1:10");
        assert_eq!(fmt_tick(3_723_000_000, 60_000_000), "1:02:03");
    }
}
