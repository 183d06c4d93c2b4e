//! The Cluster view: the 16384 hash slots of a small simulated cluster drawn on one canvas, coloured by owner and shaded by heat, with a key box showing a key's slot and hash tag, an animated slot migration, and a node kill whose failover plays on the sim clock.
//!
//! The cluster is the simulation's `cluster::Cluster` (three masters with a
//! replica each, real engines), so slots, owners, keys, MIGRATE stalls and
//! failovers (PFAIL, FAIL, election, promotion) are the simulation's own; it
//! is built the first time the view is shown.

mod action;
mod canvas;
mod console;
mod log;
mod state;

use gloo::events::EventListener;
use gloo::timers::callback::Interval;
use redsim_engine::cluster::key_hash_slot;
use web_sys::{HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

use crate::dom::{input_value, keep_ticking, page_path, page_url, replace_url};
use canvas::{slot_at, COLOURS};
use state::{observer, tag_span, Action, SlotMapState, STEP_MS};

#[derive(Properties, PartialEq, Clone)]
pub struct SlotMapProps {
    /// Whether the view is on screen; the cluster is built when it first is.
    #[prop_or(true)]
    pub active: bool,
    /// A shared session to replay (`log` text).
    #[prop_or_default]
    pub preset: Option<String>,
    /// The address bar follows the view while it is shown, and Share offers it.
    #[prop_or_default]
    pub shareable: bool,
}

/// What the component handles: the view's actions, and the window resized.
pub enum Msg {
    Act(Action),
    Resize,
}

pub struct SlotMap {
    canvas: NodeRef,
    out: NodeRef,
    state: SlotMapState,
    timer: Option<Interval>,
    /// The canvas' backing store side, device pixels (set from its
    /// container's width once shown).
    side: u32,
    dpr: f64,
    _resize: Option<EventListener>,
}

impl Component for SlotMap {
    type Message = Msg;
    type Properties = SlotMapProps;

    fn create(ctx: &Context<Self>) -> Self {
        let state = match &ctx.props().preset {
            Some(text) => state::replay(text),
            None => SlotMapState::default(),
        };
        let link = ctx.link().clone();
        let resize = web_sys::window()
            .map(|w| EventListener::new(&w, "resize", move |_| link.send_message(Msg::Resize)));
        let mut s = SlotMap {
            canvas: NodeRef::default(),
            out: NodeRef::default(),
            state,
            timer: None,
            side: 512,
            dpr: 1.0,
            _resize: resize,
        };
        if ctx.props().active {
            s.state.show();
        }
        s
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Self::Properties) -> bool {
        if ctx.props().active {
            self.state.show();
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let action = match msg {
            Msg::Resize => return true,
            Msg::Act(Action::Point(p)) if p == self.state.pointed => return false,
            Msg::Act(a) => a,
        };
        let pointing = matches!(action, Action::Point(_));
        self.state.apply(action);
        // The animation timer runs while a migration or failover plays.
        let busy = self.state.busy();
        keep_ticking(&mut self.timer, busy, STEP_MS, ctx.link(), || {
            Msg::Act(Action::Tick)
        });
        // The address names the view as it is, once an animation is over.
        if !busy && !pointing && ctx.props().shareable && ctx.props().active {
            replace_url(&log::link(&page_path(), &self.state.log));
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        let Some(c) = self.canvas.cast::<HtmlCanvasElement>() else {
            return;
        };
        // The canvas takes its container's width (0 while the tab is hidden).
        let width = c.parent_element().map_or(0, |p| p.client_width());
        if width > 0 {
            self.dpr = web_sys::window()
                .map_or(1.0, |w| w.device_pixel_ratio())
                .clamp(1.0, 4.0);
            let side = (width as f64 * self.dpr).round() as u32;
            if side != self.side {
                self.side = side;
                c.set_width(side);
                c.set_height(side);
            }
        }
        canvas::draw(&self.state, &c, self.dpr);
        if let Some(out) = self.out.cast::<web_sys::Element>() {
            out.set_scroll_top(out.scroll_height());
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let st = &self.state;
        let oninput = link.callback(|e: InputEvent| Msg::Act(Action::Key(input_value(&e))));
        let busy = st.busy();
        let any_down = st
            .cluster
            .as_ref()
            .is_some_and(|c| c.nodes.iter().any(|n| n.down));
        let side = self.side.to_string();
        // The slot under a point of the canvas, as shown (CSS px).
        let point = |e: &MouseEvent| {
            let c: HtmlCanvasElement = e.target_unchecked_into();
            let (w, h) = (c.client_width() as f64, c.client_height() as f64);
            Msg::Act(Action::Point(slot_at(
                e.offset_x() as f64,
                e.offset_y() as f64,
                w,
                h,
            )))
        };
        let onpointermove = link.callback(move |e: PointerEvent| point(&e));
        let onclick = link.callback(move |e: MouseEvent| point(&e));
        let onsubmit = link.callback(|e: SubmitEvent| {
            e.prevent_default();
            let form: web_sys::Element = e.target_unchecked_into();
            let line = form
                .query_selector("input")
                .ok()
                .flatten()
                .map(|i| {
                    let i: HtmlInputElement = wasm_bindgen::JsCast::unchecked_into(i);
                    let v = i.value();
                    i.set_value("");
                    v
                })
                .unwrap_or_default();
            Msg::Act(Action::Command(line.trim().to_string()))
        });
        let readout = match st.pointed {
            Some(slot) => st.slot_readout(slot),
            None => "Point at a slot (or tap it) to read its owner and keys.".to_string(),
        };
        let prompt = st.console.prompt(st.cluster.as_ref());
        html! {
            <div class="rs-slotmap" data-view="cluster">
                <p class="rs-slotmap-intro">
                    { "Redis Cluster splits keys over 16384 hash slots; each master owns some and has a replica. Each cell below is one slot (128 per row), coloured by its owner and darker where it holds more keys or served more commands. Kill a master to watch its replica take over after cluster-node-timeout." }
                </p>
                <label class="rs-slotmap-label">
                    { "Key " }
                    <input class="rs-slotmap-input" type="text" spellcheck="false" value={ st.key.clone() }
                           aria-label="Key to locate" {oninput} />
                </label>
                <button class="rs-btn rs-slotmap-migrate" data-action="migrate" disabled={ busy }
                        onclick={ link.callback(|_: MouseEvent| Msg::Act(Action::Migrate)) }>{ "Migrate its slot" }</button>
                <button class="rs-btn rs-slotmap-kill" data-action="kill" disabled={ busy }
                        onclick={ link.callback(|_: MouseEvent| Msg::Act(Action::Kill)) }>{ "Kill its master" }</button>
                <button class="rs-btn rs-slotmap-restart" data-action="restart" disabled={ busy || !any_down }
                        onclick={ link.callback(|_: MouseEvent| Msg::Act(Action::Restart)) }>{ "Restart dead nodes" }</button>
                { if st.key.is_empty() { Html::default() } else { key_info(st) } }
                // Above the map, so what a kill or a migration does is read while watching it.
                <p class="rs-slotmap-status" aria-live="polite">{ &st.status }</p>
                <div class="rs-slotmap-main">
                    <div class="rs-slotmap-mapcol">
                        <div class="rs-slotmap-frame">
                            <canvas ref={ self.canvas.clone() } class="rs-slotmap-canvas" width={ side.clone() } height={ side }
                                    aria-label="Slot map: 16384 slots coloured by owner" {onpointermove} {onclick}></canvas>
                        </div>
                        <p class="rs-slotmap-readout" aria-live="polite"
                           data-slot={ st.pointed.map(|s| s.to_string()) }>{ readout }</p>
                        <div class="rs-slotmap-legend">{ legend(st) }</div>
                    </div>
                    <div class="rs-slotmap-console">
                        <div class="rs-slotmap-consolehead">{ "Cluster console (redis-cli -c): redirects are followed and shown" }</div>
                        <div class="rs-slotmap-out" ref={ self.out.clone() } role="log" aria-label="Cluster console output">
                            { for st.console.lines.iter().map(|(k, t)| html! { <div class={ k.class() }>{ t }</div> }) }
                        </div>
                        <form class="rs-slotmap-cmdform" {onsubmit}>
                            <span class="rs-slotmap-prompt">{ prompt }</span>
                            <input class="rs-slotmap-cmd" type="text" spellcheck="false" autocomplete="off"
                                   autocapitalize="off" placeholder="GET user:{42}:cart" aria-label="Cluster command" />
                            <button class="rs-btn rs-slotmap-send" type="submit" data-action="cluster-send">{ "Send" }</button>
                        </form>
                    </div>
                </div>
                if ctx.props().shareable {
                    { crate::dom::share_field("Share (replays this view)", &log::link(&page_url(), &st.log)) }
                }
            </div>
        }
    }
}

/// The typed key, its hash tag, its slot and the slot's owner.
fn key_info(st: &SlotMapState) -> Html {
    let key = &st.key;
    let slot = key_hash_slot(key.as_bytes());
    let owner = st
        .cluster
        .as_ref()
        .and_then(|c| c.view(observer(c)).owner(slot))
        .map_or("-".to_string(), |o| {
            format!("node {o} (127.0.0.1:{})", 7000 + o)
        });
    let shown = match tag_span(key) {
        Some((a, b)) => html! {
            <>
                <code>{ &key[..a] }<mark class="rs-slotmap-tag">{ &key[a..b] }</mark>{ &key[b..] }</code>
                { format!(" hashes only its tag \"{}\"", &key[a..b]) }
            </>
        },
        None => html! {
            <>
                <code>{ key.clone() }</code>
                { " has no hash tag: the whole key is hashed" }
            </>
        },
    };
    html! {
        <p class="rs-slotmap-key">
            { shown }
            { " → slot " }
            <strong class="rs-slotmap-slot" data-slot={ slot.to_string() }>{ slot }</strong>
            { format!(" (CRC16 mod 16384), owned by {owner}.") }
        </p>
    }
}

/// Each node's colour, slot count, role and health.
fn legend(st: &SlotMapState) -> Html {
    let Some(c) = st.cluster.as_ref() else {
        return COLOURS.iter().map(|_| Html::default()).collect();
    };
    let view = c.view(observer(c));
    let down = html! {
        <span class="rs-slotmap-node rs-slotmap-downkey" data-node="down">
            <svg class="rs-swatch" width="10" height="10" aria-hidden="true">
                <rect width="10" height="10" fill="#e2e2e2" />
                <path d="M0 10L10 0M-5 5L5 -5M5 15L15 5" stroke="#8a8a8a" stroke-width="1.5" />
            </svg>
            { "hatched: owner down, slot unavailable until a replica takes over" }
        </span>
    };
    let nodes: Html = COLOURS
        .iter()
        .enumerate()
        .map(|(i, (r, g, b))| {
            let node = &view.nodes[i];
            let role = match node.replica_of {
                Some(m) => format!(", replica of node {m}"),
                None => String::new(),
            };
            let health = if c.nodes[i].down { ", down" } else { "" };
            let flag = if node.failed {
                " (fail)"
            } else if node.pfail {
                " (fail?)"
            } else {
                ""
            };
            html! {
                <span class="rs-slotmap-node" data-node={ i.to_string() }>
                    <svg class="rs-swatch" width="10" height="10" aria-hidden="true">
                        <rect width="10" height="10" fill={ format!("rgb({r},{g},{b})") } />
                    </svg>
                    { format!("node {i}: {} slots{role}{health}{flag}", view.slot_count(i)) }
                </span>
            }
        })
        .collect();
    html! { <>{ nodes }{ down }</> }
}
