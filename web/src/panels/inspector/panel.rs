//! The inspector panel: the key's header (type, encoding, size, memory, TTL), the conversion notes, a gauge per threshold that decides the encoding, and the body drawn for its type.

use std::rc::Rc;

use redsim_engine::inspect::{Body, Gauge, KeyView, Unit};
use yew::prelude::*;

use super::body::body;
use super::{ConvNote, Target};
use crate::fmt::{fmt_bytes, fmt_clock, fmt_ttl};

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

#[derive(Properties, PartialEq, Clone)]
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
                        <span class="rs-conv-at">{ fmt_clock(n.at_us) }</span>
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
            <span class="rs-g-bar">{ crate::dom::bar("rs-g-fill", gauge_pct(g)) }</span>
            <span class="rs-g-num">{ format!("{value} / {}", fmt_measure(g.unit, g.limit)) }</span>
            <span class="rs-g-note">{ note }</span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
