//! The timeline's shapes: a mark per command, expiry, deletion or eviction (marks too close to tell apart drawn as one, with their count), a bar per blocked client's wait, a line per clock step, and the memory band.
//!
//! Marks are placed with percentage coordinates inside nested `<svg>`
//! elements, so the chart stretches to any width without scaling its
//! shapes or text.

use std::collections::VecDeque;

use redsim_engine::server::trace::{ExpireHow, UnblockHow};
use yew::prelude::*;

use super::axis::{fmt_tick, x_pct, AXIS_Y, LANE_CMD, LANE_DEL, LANE_EXP, MEM_H, MEM_TOP};
use super::{Mark, MarkKind, Wait};
use crate::fmt::{fixed, num};
use crate::panels::clients::label;

/// The memory band: used memory and maxmemory (scaled to the larger of
/// the two in view) and the pending-expired count (scaled to its own max),
/// drawn in a 0..100 x 0..1 viewBox stretched to the chart; and the
/// band's top in bytes (its scale), when there is memory to show.
pub(super) fn memory_band(
    memory: &VecDeque<(u64, u64, u64)>,
    pending: &[(u64, u64)],
    start: u64,
    end: u64,
    now_us: u64,
) -> (Html, Option<u64>) {
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
    let y = |v: f64, max: f64| fixed(1.0 - (v / max).min(1.0), 4);
    let mut used = String::new();
    let mut maxl = String::new();
    for (t, u, m) in &in_view {
        let x = fixed(x_pct(*t, start, end), 3);
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
        let x = fixed(x_pct((*t).max(start), start, end), 3);
        pl.push_str(&format!(
            "{x},{} {x},{} ",
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
            "{},{} ",
            fixed(x_pct(now_us.min(end), start, end), 3),
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
    let scale = (peak_used > 0).then_some(top as u64);
    let band = html! {
        <svg class="rs-tl-mem" x="0" y={ num(MEM_TOP) } width="100%" height={ num(MEM_H) }
             viewBox="0 0 100 1" preserveAspectRatio="none">
            <title>{ title }</title>
            <polyline class="rs-mem-max" points={ maxl } vector-effect="non-scaling-stroke" />
            <polyline class="rs-mem-used" points={ used } vector-effect="non-scaling-stroke" />
            <polyline class="rs-mem-pending" points={ pl } vector-effect="non-scaling-stroke" />
        </svg>
    };
    (band, scale)
}

/// One mark: a nested `<svg>` placed at `x`% (its time) whose content is
/// drawn around its origin; `more` is how many marks it stands for and when
/// the last of them happened, when it stands for several.
pub(super) fn mark(
    x: f64,
    m: &Mark,
    more: Option<(usize, u64)>,
    pick: Option<Callback<MouseEvent>>,
) -> Html {
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
            html! { <circle cx="0" cy="0" r="4.5" /> },
            format!(
                "{at}  {}{text}\n→ {}",
                who.map(|n| format!("{} · ", label(n))).unwrap_or_default(),
                reply.as_deref().unwrap_or("(no reply yet)")
            ),
        ),
        MarkKind::Expired { key, how } => match how {
            ExpireHow::Lazy => (
                LANE_EXP,
                "rs-m-lazy".to_string(),
                html! { <circle cx="0" cy="0" r="5" /> },
                format!("{at}  \"{key}\" expired lazily (found expired on access)"),
            ),
            ExpireHow::Active => (
                LANE_EXP,
                "rs-m-active".to_string(),
                html! { <path d="M0,-6 L6,0 L0,6 L-6,0Z" /> },
                format!("{at}  \"{key}\" expired by the active expire cycle"),
            ),
        },
        MarkKind::Deleted { key, cause } => (
            LANE_DEL,
            "rs-m-del".to_string(),
            html! { <path d="M-4,-4 L4,4 M4,-4 L-4,4" /> },
            format!("{at}  \"{key}\" deleted ({cause:?})"),
        ),
        MarkKind::Flushed { keys } => (
            LANE_DEL,
            "rs-m-del rs-m-flush".to_string(),
            html! { <rect x="-5" y="-5" width="10" height="10" /> },
            format!("{at}  flush: {keys} keys removed"),
        ),
        MarkKind::Evicted { key, policy, .. } => (
            LANE_DEL,
            "rs-m-evict".to_string(),
            html! { <path d="M0,-6 L6,5 L-6,5Z" /> },
            format!("{at}  \"{key}\" evicted by {policy} (click to see its pool)"),
        ),
        MarkKind::Step { .. } => return step_line(x, m),
    };
    let (title, count) = match more {
        None => (title, Html::default()),
        Some((n, last_us)) => (
            format!(
                "{title}\n… and {} more like it, the last at {}",
                n - 1,
                fmt_tick(last_us, 1)
            ),
            html! { <text class="rs-tl-count" x="7" y="-6">{ format!("×{n}") }</text> },
        ),
    };
    html! {
        <svg class={ classes!("rs-tl-mark", class, pick.is_some().then_some("rs-clickable")) } x={ format!("{}%", fixed(x, 3)) } y={ num(y) } overflow="visible"
             data-count={ more.map_or(1, |(n, _)| n).to_string() } onclick={ pick }>
            <title>{ title }</title>
            { shape }
            { count }
        </svg>
    }
}

/// A blocked client's wait: a bar under the commands lane from the
/// blocking command to its reply (or to now while it still waits).
pub(super) fn wait_bar(w: &Wait, start: u64, end: u64, now_us: u64) -> Html {
    let until = w.until_us.unwrap_or(now_us);
    let x1 = x_pct(w.from_us.max(start), start, end);
    let x2 = x_pct(until.min(end), start, end);
    let y = num(LANE_CMD + 9.0);
    let waited_ms = until.saturating_sub(w.from_us) / 1000;
    let outcome = match w.how {
        None => "still waiting",
        Some(UnblockHow::Served) => "served",
        Some(UnblockHow::Timeout) => "timed out",
        Some(UnblockHow::Disconnected) => "disconnected",
        Some(UnblockHow::ScriptEnded) => "its script ended",
        Some(UnblockHow::Unpaused) => "the pause ended",
    };
    // A busy script's caller and a paused command wait on no key.
    let on = match (w.paused, w.keys.is_empty()) {
        (true, _) => "CLIENT PAUSE".to_string(),
        (false, true) => "its script (past busy-reply-threshold)".to_string(),
        (false, false) => w.keys.join(", "),
    };
    let who = w.who.map_or(String::new(), |n| format!("{} ", label(n)));
    html! {
        <line class={ classes!("rs-tl-wait", w.who.map(|n| format!("rs-who-{n}")), w.until_us.is_none().then_some("rs-tl-waiting")) }
              x1={ format!("{}%", fixed(x1, 3)) } x2={ format!("{}%", fixed(x2.max(x1), 3)) } y1={ y.clone() } y2={ y }>
            <title>{ format!("{who}blocked on {on} for {}.{:03} s: {outcome}", waited_ms / 1000, waited_ms % 1000) }</title>
        </line>
    }
}

/// A clock step: a faint dashed line across the lanes.
pub(super) fn step_line(x: f64, m: &Mark) -> Html {
    let by = match m.kind {
        MarkKind::Step { by_us } => by_us,
        _ => 0,
    };
    let x = format!("{}%", fixed(x, 3));
    html! {
        <line class="rs-tl-mark rs-m-step" x1={ x.clone() } x2={ x } y1="6" y2={ num(AXIS_Y - 2.0) }>
            <title>{ format!("clock stepped +{} ms", by / 1000) }</title>
        </line>
    }
}
