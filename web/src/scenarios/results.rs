//! A scenario's outcome: its metrics, the checks that back its claim, notes, the playback bar, and the pictures redsim-viz draws (race diagram, charts, strips) at the playback cursor.

use redsim_sim::{Chart, ChartKind, Outcome};
use yew::prelude::*;

use super::playback::{playback_bar, PlayClick};
use super::state::LibraryState;
use crate::dom::raw_html;

/// True when a line chart's x axis is virtual time in seconds, so a cursor
/// in time can be drawn on it.
fn x_is_time(c: &Chart) -> bool {
    let l = c.x_label.to_ascii_lowercase();
    c.kind == ChartKind::Line && (l.contains("time") || l.contains("(s)") || l == "s")
}

/// A metric for people: integers plainly, others with up to 3 decimals.
fn fmt_metric(v: f64) -> String {
    if v.is_finite() {
        redsim_viz::svg::metric(v)
    } else {
        "–".to_string()
    }
}

/// What a failing check says when the run is the variant meant to show the bug.
pub const EXPECTED: &str = "expected: this variant shows the bug";

/// The outcome with the pictures drawn at the playback cursor: the
/// diagram's markup (`diagram`, laid out to its box, `diagram_ref`, and moved
/// to the cursor in place by the library: see `live.rs`), the charts here.
pub fn results(
    o: &Outcome,
    st: &LibraryState,
    diagram: Option<Html>,
    diagram_ref: &NodeRef,
    on_play: &Callback<PlayClick>,
) -> Html {
    let pb = &st.playback;
    let passed = o.checks.iter().filter(|c| c.passed).count();
    let cursor = pb.cursor();
    let buggy = st.shows_bug();
    html! {
        <div class="rs-scen-results">
            <div class="rs-scen-metrics">
                { for o.metrics.iter().map(|m| html! {
                    <div class="rs-metric">
                        <span class="rs-metric-value">{ fmt_metric(m.value) }<small>{ format!(" {}", m.unit) }</small></span>
                        <span class="rs-metric-name">{ &m.name }</span>
                    </div>
                }) }
            </div>
            <ul class="rs-scen-checks" aria-label={ format!("{passed} of {} checks passed", o.checks.len()) }>
                { for o.checks.iter().map(|c| html! {
                    <li class={ classes!("rs-check", if c.passed { "rs-pass" } else { "rs-fail" }) }>
                        <span class="rs-check-mark">{ if c.passed { "✓" } else { "✗" } }</span>
                        <span class="rs-check-claim">{ &c.claim }</span>
                        <span class="rs-check-detail">{ &c.detail }</span>
                        if buggy && !c.passed {
                            <span class="rs-check-expected">{ EXPECTED }</span>
                        }
                    </li>
                }) }
            </ul>
            if !o.notes.is_empty() {
                <ul class="rs-scen-notes">{ for o.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
            }
            { playback_bar(pb, o, st.took_ms, on_play) }
            if let Some(d) = diagram {
                <div class="rs-scen-svg rs-scen-diagram" ref={ diagram_ref.clone() } tabindex="0" role="group" aria-label="Race diagram (scrolls)">
                    { d }
                </div>
            }
            <div class="rs-scen-charts">
                { for o.charts.iter().map(|c| {
                    let at = cursor.filter(|_| x_is_time(c)).map(|us| us as f64 / 1e6);
                    html! { <div class="rs-scen-svg rs-scen-chart">{ raw_html(redsim_viz::chart_svg(c, at)) }</div> }
                }) }
                { for o.strips.iter().map(|s| html! {
                    <div class="rs-scen-svg rs-scen-strip">{ raw_html(redsim_viz::strip_svg(s)) }</div>
                }) }
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_go_on_time_axes_only() {
        assert!(x_is_time(&Chart::line("c", "time (s)", "y")));
        assert!(x_is_time(&Chart::line("c", "s", "y")));
        assert!(!x_is_time(&Chart::line("c", "keys", "y")));
    }

    #[test]
    fn metrics_read_plainly() {
        assert_eq!(fmt_metric(42.0), "42");
        assert_eq!(fmt_metric(0.125), "0.125");
        assert_eq!(fmt_metric(2.5), "2.5");
        assert_eq!(fmt_metric(f64::NAN), "–");
    }
}
