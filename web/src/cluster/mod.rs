//! The Cluster view: the 16384 hash slots of a small simulated cluster drawn on one canvas, coloured by owner and shaded by heat, with a key box showing a key's slot and hash tag, an animated slot migration, and a node kill whose failover plays on the sim clock.
//!
//! The cluster is the simulation's `cluster::Cluster` (three masters with a
//! replica each, real engines), so slots, owners, keys, MIGRATE stalls and
//! failovers (PFAIL, FAIL, election, promotion) are the simulation's own; it
//! is built the first time the view is shown.

mod action;
mod canvas;
mod log;
mod state;

use gloo::timers::callback::Interval;
use redsim_engine::cluster::{key_hash_slot, SLOTS};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::dom::{input_value, keep_ticking, page_path, page_url, replace_url};
use canvas::{CELL, COLOURS, COLS};
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

pub struct SlotMap {
    canvas: NodeRef,
    state: SlotMapState,
    timer: Option<Interval>,
}

impl Component for SlotMap {
    type Message = Action;
    type Properties = SlotMapProps;

    fn create(ctx: &Context<Self>) -> Self {
        let state = match &ctx.props().preset {
            Some(text) => state::replay(text),
            None => SlotMapState::default(),
        };
        let mut s = SlotMap {
            canvas: NodeRef::default(),
            state,
            timer: None,
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

    fn update(&mut self, ctx: &Context<Self>, action: Action) -> bool {
        self.state.apply(action);
        // The animation timer runs while a migration or failover plays.
        let busy = self.state.busy();
        keep_ticking(&mut self.timer, busy, STEP_MS, ctx.link(), || Action::Tick);
        // The address names the view as it is, once an animation is over.
        if !busy && ctx.props().shareable && ctx.props().active {
            replace_url(&log::link(&page_path(), &self.state.log));
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if let Some(c) = self.canvas.cast::<HtmlCanvasElement>() {
            canvas::draw(&self.state, &c);
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let st = &self.state;
        let oninput = link.callback(|e: InputEvent| Action::Key(input_value(&e)));
        let busy = st.busy();
        let any_down = st
            .cluster
            .as_ref()
            .is_some_and(|c| c.nodes.iter().any(|n| n.down));
        let side = (COLS as f64 * CELL) as u32;
        let rows = (SLOTS / COLS) as f64 * CELL;
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
                        onclick={ link.callback(|_: MouseEvent| Action::Migrate) }>{ "Migrate its slot" }</button>
                <button class="rs-btn rs-slotmap-kill" data-action="kill" disabled={ busy }
                        onclick={ link.callback(|_: MouseEvent| Action::Kill) }>{ "Kill its master" }</button>
                <button class="rs-btn rs-slotmap-restart" data-action="restart" disabled={ busy || !any_down }
                        onclick={ link.callback(|_: MouseEvent| Action::Restart) }>{ "Restart dead nodes" }</button>
                { if st.key.is_empty() { Html::default() } else { key_info(st) } }
                <canvas ref={ self.canvas.clone() } class="rs-slotmap-canvas" width={ side.to_string() } height={ (rows as u32).to_string() }
                        aria-label="Slot map: 16384 slots coloured by owner"></canvas>
                <div class="rs-slotmap-legend">{ legend(st) }</div>
                <p class="rs-slotmap-status" aria-live="polite">{ &st.status }</p>
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
    COLOURS
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
        .collect()
}
