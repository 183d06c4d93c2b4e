//! The Topology tab's setup: the options a world is built with (changing one starts over), the seed, Reset, the share link and how long building, stepping and drawing took.

use redsim_sim::params::fmt_num;
use redsim_sim::topology::TopoOptions;
use yew::prelude::*;

use crate::dom::{input_value, select_value};
use redsim_sim::topology::FSYNC_MODES;

/// The share link, when the tab offers one.
pub struct Share {
    pub url: String,
    /// The session is past what a link may replay.
    pub past_replay: bool,
}

/// Wall ms of the last build, step and drawing, in this browser.
pub struct Timings {
    pub built_ms: f64,
    pub step_ms: f64,
    pub draw_ms: f64,
}

/// Numbers joined by commas: a per-node list as the form shows it.
fn list<T>(items: &[T], text: impl Fn(&T) -> String) -> String {
    items.iter().map(text).collect::<Vec<_>>().join(",")
}

/// The setup form; `on_option` gets (option key, text) on every change.
pub fn setup(
    o: &TopoOptions,
    on_option: &Callback<(&'static str, String)>,
    on_reset: &Callback<()>,
    share: Option<Share>,
    t: Timings,
) -> Html {
    let field = |key: &'static str, label: &'static str, value: String, help: &'static str| {
        let cb = on_option.reform(move |e: Event| (key, input_value(&e)));
        html! {
            <label class="rs-topo-opt" title={ help }>
                <span>{ label }</span>
                <input type="text" data-option={ key } value={ value } onchange={ cb } />
            </label>
        }
    };
    let fsync = on_option.reform(|e: Event| ("fsync", select_value(&e)));
    html! {
        <details class="rs-topo-setup" open=true>
            <summary>{ "Setup (changing any of these starts over)" }</summary>
            <div class="rs-topo-opts">
                { field("seed", "seed", o.seed.to_string(), "Every random choice (jitter, timings) comes from the seed") }
                { field("replicas", "replicas", o.replicas.to_string(), "1 to 4") }
                { field("sentinels", "sentinels", o.sentinels.to_string(), "Sentinel processes, each co-located with nothing") }
                { field("quorum", "quorum", o.quorum.to_string(), "Sentinels that must agree the master is down (ODOWN)") }
                { field("down", "down-after ms", o.down_after_ms.to_string(), "down-after-milliseconds") }
                { field("latency", "link latency ms", fmt_num(o.link_latency_ms), "One-way latency of each replication link") }
                { field("rate", "writes/s", fmt_num(o.writes_per_sec), "The client's write rate at the start") }
                { field("wait", "WAIT n", o.wait.to_string(), "WAIT n after each write at the start (0 = off)") }
                { field("minrep", "min-replicas-to-write", o.min_replicas_to_write.to_string(), "The master refuses writes with fewer good replicas") }
                { field("lats", "per-node latency ms", list(&o.latencies_ms, |l| fmt_num(*l)),
                        "Comma-separated, per node: the latency of its link while it is a replica (empty: link latency)") }
                { field("prio", "replica-priority", list(&o.priorities, i64::to_string),
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
                <button class="rs-btn" data-action="topo-reset" onclick={ on_reset.reform(|_: MouseEvent| ()) }>{ "Reset" }</button>
            </div>
            if let Some(share) = share {
                <label class="rs-topo-share">
                    <span>{ if share.past_replay {
                        "Share (replays only the first hour)"
                    } else {
                        "Share (replays to this instant)"
                    } }</span>
                    <input class="rs-topo-sharelink" type="text" readonly=true value={ share.url } />
                </label>
            }
            <p class="rs-topo-took" data-built-ms={ format!("{:.1}", t.built_ms) } data-step-ms={ format!("{:.1}", t.step_ms) }
               data-draw-ms={ format!("{:.1}", t.draw_ms) }>
                { format!("built in {:.0} ms; last step {:.1} ms; drawing {:.1} ms (wall time in this browser)", t.built_ms, t.step_ms, t.draw_ms) }
            </p>
        </details>
    }
}
