//! The HyperLogLog view: its representation, cached and current estimate, and the histogram of its 16384 register values (drawn by redsim-viz).

use redsim_engine::inspect::HllView;
use yew::prelude::*;

use crate::dom::raw_html;

/// What the inspector shows of a HyperLogLog.
pub fn hll_view(h: &HllView) -> Html {
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
    let Some(svg) = redsim_viz::inspect::hll_svg(h) else {
        return summary;
    };
    html! {
        <div class="rs-hll-wrap">
            { summary }
            <div class="rs-hll">
                <div class="rs-sub">{ "The 16384 registers by value (log scale). Each element sets one register to the length of a run of zero bits in its hash; most stay 0 until many elements are added. The estimate reads this whole histogram." }</div>
                <div class="rs-sl-scroll" tabindex="0" role="group" aria-label="Register histogram (scrolls sideways)">{ raw_html(svg) }</div>
            </div>
        </div>
    }
}
