//! The Topology tab: a live replication topology (master, replicas, Sentinels, a writing client) stepped in virtual time, drawn as a node graph and per-node timelines, with controls to kill, partition, pause links and fail over, and share links that replay the same session.
//!
//! The world is the simulation's `topology::Topology`, a deterministic
//! function of (options, control script). The tab keeps one and moves its
//! clock with a timer (play/pause and a speed), so every drawing is a pure
//! function of `view()` and `events()` at the current instant; redsim-viz
//! draws them. Controls go through `Topology::control`, which logs them
//! with their virtual time; that log is the share link
//! (`?tab=topology&seed=..&do=<t_ms>:<token>,..&t=<ms>`), and opening the
//! link calls `Topology::replay` to rebuild the same state.

mod controls;
mod link;
mod setup;
mod state;

use gloo::timers::callback::Interval;
use redsim_sim::params::fmt_num;
use redsim_sim::topology::Control;
use redsim_viz::svg::time_exact;
use redsim_viz::topology::{graph_svg_fit, lanes_svg};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::dom::{self, input_value, keep_ticking, select_value, wall_ms};
use crate::live_svg::LiveSvg;
pub use link::TopoPreset;
use link::{topo_link, MAX_REPLAY_US};
use state::{Action, TopoState, SPEEDS, TICK_MS};

/// Timeline windows, s of virtual time.
const WINDOWS_S: [u64; 4] = [5, 10, 30, 60];

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

pub struct TopologyTab {
    state: TopoState,
    ticker: Option<Interval>,
    /// The page's shortcut keys, while the tab is shown.
    keys: Option<gloo::events::EventListener>,
    keys_ref: NodeRef,
    /// The list of shortcuts was open at the last render.
    keys_shown: bool,
    /// Wall ms the last drawing took, with putting it in the page.
    draw_ms: f64,
    /// The graph's and the timelines' boxes, which Yew leaves empty: the
    /// drawings are put in after each render, changing only what changed
    /// (`live_svg.rs`), since the tab redraws them at every tick.
    graph_ref: NodeRef,
    lanes_ref: NodeRef,
    graph: LiveSvg,
    lanes: LiveSvg,
    /// Window resizes lay the graph out again for its box (a row, or a
    /// column on a narrow screen).
    _resize: Option<gloo::events::EventListener>,
}

impl TopologyTab {
    /// Starts or stops the timer as the state plays or pauses.
    fn sync_ticker(&mut self, ctx: &Context<Self>) {
        let want_keys = ctx.props().shareable && ctx.props().active;
        if want_keys != self.keys.is_some() {
            self.keys = if want_keys {
                crate::keys::listen(ctx.link().callback(Action::Key))
            } else {
                None
            };
        }
        let playing = self.state.playing;
        keep_ticking(&mut self.ticker, playing, TICK_MS, ctx.link(), || {
            Action::Tick
        });
    }

    /// Keeps the address bar in step with the session, when this tab owns it.
    fn update_url(&mut self, ctx: &Context<Self>) {
        self.state.url_due = false;
        if !ctx.props().shareable || !ctx.props().active {
            return;
        }
        let Some(topo) = self.state.topo.as_ref() else {
            return;
        };
        dom::replace_url(&topo_link(
            &dom::page_path(),
            &self.state.opts,
            topo.script(),
            topo.now_us(),
        ));
        self.state.url_wall = wall_ms();
    }

    fn share_url(&self) -> String {
        let Some(topo) = self.state.topo.as_ref() else {
            return String::new();
        };
        topo_link(
            &dom::page_url(),
            &self.state.opts,
            topo.script(),
            topo.now_us(),
        )
    }

    /// Draws the graph and the timelines at the world's instant into their
    /// boxes, after a render.
    fn draw(&mut self) {
        let Some(topo) = self.state.topo.as_ref() else {
            return;
        };
        let (Some(graph_box), Some(lanes_box)) = (
            self.graph_ref.cast::<web_sys::Element>(),
            self.lanes_ref.cast::<web_sys::Element>(),
        ) else {
            return;
        };
        let drawing = wall_ms();
        let v = topo.view();
        let window_us = self.state.window_s * 1_000_000;
        // A hidden box measures 0: it gets the row, laid out again once shown.
        let width = match graph_box.client_width() {
            0 => f64::INFINITY,
            w => f64::from(w),
        };
        self.graph.show(&graph_box, &graph_svg_fit(&v, width));
        self.lanes.show(
            &lanes_box,
            &lanes_svg(&v, topo.events(), topo.writes(), window_us),
        );
        self.draw_ms = wall_ms() - drawing;
    }
}

impl Component for TopologyTab {
    type Message = Action;
    type Properties = TopoProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut t = TopologyTab {
            state: TopoState::new(&ctx.props().preset, wall_ms),
            ticker: None,
            keys: None,
            keys_ref: NodeRef::default(),
            keys_shown: false,
            draw_ms: 0.0,
            graph_ref: NodeRef::default(),
            lanes_ref: NodeRef::default(),
            graph: LiveSvg::default(),
            lanes: LiveSvg::default(),
            _resize: web_sys::window().map(|w| {
                let link = ctx.link().clone();
                gloo::events::EventListener::new(&w, "resize", move |_| {
                    link.send_message(Action::Redraw)
                })
            }),
        };
        if ctx.props().active {
            t.state.show();
            t.sync_ticker(ctx);
        }
        t
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Self::Properties) -> bool {
        if ctx.props().active {
            self.state.show();
            self.sync_ticker(ctx);
            self.update_url(ctx);
        } else {
            self.state.playing = false;
            self.ticker = None;
            self.keys = None;
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first_render: bool) {
        self.draw();
        if self.state.keys_open && !self.keys_shown {
            if let Some(d) = self.keys_ref.cast::<web_sys::HtmlElement>() {
                let _ = d.focus();
            }
        }
        self.keys_shown = self.state.keys_open;
    }

    fn update(&mut self, ctx: &Context<Self>, action: Action) -> bool {
        if crate::panic::is_dead() {
            self.ticker = None;
            return false;
        }
        let render = self.state.apply(action);
        self.sync_ticker(ctx);
        if self.state.url_due {
            self.update_url(ctx);
        }
        render
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let st = &self.state;
        let Some(topo) = st.topo.as_ref() else {
            return html! { <div class="rs-topo" data-view="topology"></div> };
        };
        let v = topo.view();
        let on_detail = link.callback(|e: MouseEvent| {
            let d = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|el| el.closest("[data-detail]").ok().flatten())
                .and_then(|el| el.get_attribute("data-detail"));
            Action::Detail(d)
        });
        let speed =
            link.callback(|e: Event| Action::Speed(select_value(&e).parse().unwrap_or(1.0)));
        let window =
            link.callback(|e: Event| Action::Window(select_value(&e).parse().unwrap_or(10)));
        let wait = link.callback(|e: Event| {
            Action::Control(Control::SetWait(select_value(&e).parse().unwrap_or(0)))
        });
        let rate = link.callback(|e: Event| {
            let value = input_value(&e);
            match value.trim().parse::<f64>() {
                Ok(r) if r.is_finite() && (0.0..=1000.0).contains(&r) => {
                    Action::Control(Control::SetWriteRate(r))
                }
                _ => Action::Invalid(format!("write rate '{value}' is not a number in 0..=1000")),
            }
        });
        let share = ctx.props().shareable.then(|| setup::Share {
            url: self.share_url(),
            past_replay: topo.now_us() > MAX_REPLAY_US,
        });
        let timings = setup::Timings {
            built_ms: st.took_ms,
            step_ms: st.step_ms,
            draw_ms: self.draw_ms,
        };
        html! {
            <div class="rs-topo" data-view="topology">
                <p class="rs-topo-intro">
                    { "A master, its replicas and Sentinels on a virtual clock, with a client writing SET w:<n> to whichever node Sentinel says is the master. Kill or partition nodes, pause links, change appendfsync, and watch which acknowledged writes survive." }
                </p>
                <div class="rs-topo-bar" role="group" aria-label="Virtual time">
                    if st.playing {
                        <button class="rs-btn" data-action="topo-pause" title="Pause (Space)" onclick={ link.callback(|_| Action::Pause) }>{ "❚❚ Pause" }</button>
                    } else {
                        <button class="rs-btn rs-primary" data-action="topo-play" title="Play (Space)" onclick={ link.callback(|_| Action::Play) }>{ "▶ Play" }</button>
                    }
                    <button class="rs-btn" data-action="topo-step" data-ms="100" title="Forward 0.1 s (→)" onclick={ link.callback(|_| Action::Step(100)) }>{ "+0.1 s" }</button>
                    <button class="rs-btn" data-action="topo-step" data-ms="1000" onclick={ link.callback(|_| Action::Step(1000)) }>{ "+1 s" }</button>
                    <button class="rs-btn" data-action="topo-step" data-ms="5000" onclick={ link.callback(|_| Action::Step(5000)) }>{ "+5 s" }</button>
                    <select class="rs-topo-speed" aria-label="Speed" onchange={ speed }>
                        { for SPEEDS.iter().map(|s| html! {
                            <option value={ s.to_string() } selected={ *s == st.speed }>{ format!("{s}×") }</option>
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
                if let Some(n) = &st.notice {
                    <p class="rs-scen-error rs-topo-notice" role="status">{ n }</p>
                }
                if let Some(e) = &st.error {
                    <p class="rs-scen-error rs-topo-error" role="alert">{ e }</p>
                }
                <div class="rs-topo-main">
                    <div class="rs-topo-svg rs-topo-graphbox" ref={ self.graph_ref.clone() } onclick={ on_detail.clone() } tabindex="0" role="group" aria-label="Replication topology">
                    </div>
                    { controls::node_controls(&v, &link.callback(Action::Control)) }
                </div>
                <div class="rs-topo-lanebar">
                    <span class="rs-topo-lanehead">{ "Per-node timelines" }</span>
                    <label>{ "window " }
                        <select class="rs-topo-window" aria-label="Timeline window" onchange={ window }>
                            { for WINDOWS_S.iter().map(|w| html! {
                                <option value={ w.to_string() } selected={ *w == st.window_s }>{ format!("{w} s") }</option>
                            }) }
                        </select>
                    </label>
                    <label>{ "WAIT " }
                        <select class="rs-topo-wait" data-action="topo-wait" aria-label="WAIT replicas after each write" onchange={ wait }>
                            { for (0..=v.nodes.len().saturating_sub(1) as i64).map(|w| html! {
                                <option value={ w.to_string() } selected={ w == st.wait }>{ if w == 0 { "off".to_string() } else { format!("{w}") } }</option>
                            }) }
                        </select>
                    </label>
                    <label>{ "writes/s " }
                        <input class="rs-topo-rate" type="number" min="0" max="1000" step="1" value={ fmt_num(st.rate) } onchange={ rate } aria-label="Writes per second" />
                    </label>
                    <button class="rs-btn" data-action="topo-failover" onclick={ link.callback(|_| Action::Control(Control::Failover)) }
                            title="SENTINEL FAILOVER: promote a replica without agreement from the others">{ "Trigger failover" }</button>
                </div>
                <div class="rs-topo-svg rs-topo-lanebox" ref={ self.lanes_ref.clone() } onclick={ on_detail } tabindex="0" role="group" aria-label="Per-node timelines (scroll sideways on a narrow screen)">
                </div>
                <p class="rs-topo-detail" aria-live="polite">
                    { st.detail.clone().unwrap_or_else(|| "Click a node, link, sentinel or mark for its details (pause first to inspect a busy moment).".into()) }
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
                { setup::setup(&st.opts, &link.callback(|(k, v)| Action::SetOption(k, v)), &link.callback(|_| Action::Reset), share, timings) }
                if st.keys_open {
                    { crate::keys::help_dialog(crate::keys::TOPOLOGY_KEYS, &self.keys_ref, link.callback(|_| Action::Key(crate::keys::Shortcut::Close))) }
                }
            </div>
        }
    }
}
