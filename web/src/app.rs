//! One playground widget: a redis-cli-like console with one tab per client over its own engine, the clock bar, the keyspace panel, the key inspector and the timeline.
//!
//! The widget owns its [`Engine`] (a struct component, so commands mutate it
//! in place). Panels get plain data behind `Rc`s, so a tick that changed
//! nothing they show does not re-render them.
//!
//! Commands go through `Engine::submit_line`, so a blocking command leaves
//! its client waiting; replies the engine produces later (another client's
//! push served it, or its virtual timeout passed) are collected with
//! `take_unblocked` after every command, clock step and tick.

use std::rc::Rc;

use gloo::timers::callback::Interval;
use redsim_engine::proto::clifmt::format_reply;
use redsim_engine::proto::resp::split_args;
use redsim_engine::{Engine, Frame, Options};
use wasm_bindgen::{closure::Closure, JsValue};
use web_sys::{HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

use crate::clients::{self, Line, Session, Waiting, MAX_CLIENTS};
use crate::clock::{fmt_clock, Driver, Mode};
use crate::help::{self, HelpOut};
use crate::inspector::{Inspector, InspectorPanel};
use crate::keyspace::{Keyspace, KeyspacePanel};
use crate::share::{self, Preset};
use crate::timeline::{Timeline, TimelinePanel, Zoom};

/// Seed when neither the page nor the element gives one: fixed, so a
/// documentation example shows the same thing on every load.
pub const DEFAULT_SEED: u64 = 1;
/// Trace events kept per widget: hours of an idle session, a bounded amount of memory.
const TRACE_CAPACITY: usize = 20_000;
/// Clock tick period in real-time mode, ms.
const TICK_MS: u32 = 50;
/// Above this many keys the panel refreshes at most once a second.
const BIG_KEYSPACE: usize = 5000;

#[derive(Properties, PartialEq, Clone)]
pub struct WidgetProps {
    pub preset: Preset,
    /// Focus the console on load (the playground page, not docs widgets).
    pub autofocus: bool,
    /// Offer a Share link (widgets driven by the page URL).
    pub shareable: bool,
}

/// The Share popover.
struct ShareState {
    link: String,
    /// `None` while the clipboard write is pending.
    copied: Option<bool>,
}

pub enum Msg {
    Input(String),
    Key(KeyboardEvent),
    Tick,
    SetMode(Mode),
    Step(u64),
    Zoom(Zoom),
    Share,
    Copied(bool),
    CloseShare,
    Focus,
    /// Show client tab `i`.
    SelectClient(usize),
    AddClient,
    CloseClient(usize),
    /// Ctrl+C: give up the active client's blocking command.
    Cancel,
    /// Inspect a key of the active client's database.
    Inspect(String),
    CloseInspector,
}

pub struct Widget {
    engine: Engine,
    seed: u64,
    /// Unix seconds of virtual instant 0 (TIME, EXPIREAT).
    t0: u64,
    driver: Driver,
    /// One console per client, in tab order.
    sessions: Vec<Session>,
    /// The tab shown.
    active: usize,
    /// Commands sent to the engine this session, for the Share link
    /// (prefixed `@N ` when sent by client N > 1).
    session: Vec<String>,
    keys: Keyspace,
    keys_refreshed_ms: f64,
    timeline: Timeline,
    zoom: Zoom,
    inspector: Inspector,
    inspector_ttl: Option<i64>,
    share: Option<ShareState>,
    input_ref: NodeRef,
    screen_ref: NodeRef,
    inspector_ref: NodeRef,
    scroll_to_end: bool,
    focus_input: bool,
    reveal_inspector: bool,
    _ticker: Interval,
}

/// Wall time in ms from the page's monotonic clock.
fn wall_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

impl Component for Widget {
    type Message = Msg;
    type Properties = WidgetProps;

    fn create(ctx: &Context<Self>) -> Self {
        let preset = &ctx.props().preset;
        let seed = preset.seed.unwrap_or(DEFAULT_SEED);
        let mut opts = Options::new(seed);
        opts.trace_capacity = TRACE_CAPACITY;
        let mut engine = Engine::with_options(opts);
        // Virtual instant 0 is "now" unless the link pins it (wall time may be
        // read here, in the driver; the engine itself never reads it).
        let t0 = preset
            .t0
            .unwrap_or_else(|| (js_sys::Date::now() / 1000.0).floor() as u64);
        engine.set_unix_base_us(t0.saturating_mul(1_000_000));
        let mut first = Session::new(1, engine.connect(&clients::label(1)));
        first.push(Line::Note(format!(
            "Redsim: Redis {} in your browser, on a virtual clock. Type HELP for help.",
            redsim_engine::REDIS_VERSION
        )));
        let mode = if preset.paused {
            Mode::Paused
        } else {
            Mode::RealTime
        };
        let link = ctx.link().clone();
        let ticker = Interval::new(TICK_MS, move || {
            if !crate::panic::is_dead() {
                link.send_message(Msg::Tick);
            }
        });
        let mut w = Widget {
            engine,
            seed,
            t0,
            driver: Driver::new(mode, 0, wall_ms()),
            sessions: vec![first],
            active: 0,
            session: Vec::new(),
            keys: Keyspace::default(),
            keys_refreshed_ms: 0.0,
            timeline: Timeline::default(),
            zoom: Zoom::TenSeconds,
            inspector: Inspector::default(),
            inspector_ttl: None,
            share: None,
            input_ref: NodeRef::default(),
            screen_ref: NodeRef::default(),
            inspector_ref: NodeRef::default(),
            scroll_to_end: true,
            focus_input: false,
            reveal_inspector: false,
            _ticker: ticker,
        };
        for cmd in &preset.commands {
            let (num, cmd) = clients::split_target(cmd);
            let idx = w.session_for(num);
            w.submit(idx, cmd.to_string(), false);
        }
        // Preset commands run in any tab; the first one is shown.
        w.active = 0;
        w.sessions[0].unread = 0;
        w.reveal_inspector = false;
        w.refresh(true);
        w
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Input(v) => {
                let s = &mut self.sessions[self.active];
                s.input = v;
                s.hist_pos = None;
                true
            }
            Msg::Key(e) => self.key(e),
            Msg::Tick => {
                let running = self.sync_clock();
                let delivered = self.deliver_unblocked();
                let changed = self.refresh(false);
                running || changed || delivered
            }
            Msg::SetMode(m) => {
                self.sync_clock();
                let now = self.engine.now_us();
                self.driver.set_mode(m, now, wall_ms());
                self.refresh(true);
                true
            }
            Msg::Step(us) => {
                self.sync_clock();
                self.engine.advance_by(us);
                let now = self.engine.now_us();
                self.driver.reanchor(now, wall_ms());
                self.deliver_unblocked();
                self.refresh(true);
                true
            }
            Msg::Zoom(z) => {
                self.zoom = z;
                true
            }
            Msg::Share => {
                self.open_share(ctx);
                true
            }
            Msg::Copied(ok) => {
                if let Some(s) = &mut self.share {
                    s.copied = Some(ok);
                }
                true
            }
            Msg::CloseShare => {
                self.share = None;
                true
            }
            Msg::Focus => {
                // Clicking the console focuses the prompt, unless the click
                // ended a text selection the user wants to copy.
                let selecting = web_sys::window()
                    .and_then(|w| w.get_selection().ok().flatten())
                    .is_some_and(|s| !s.is_collapsed());
                if let (false, Some(input)) = (selecting, self.input_ref.cast::<HtmlInputElement>())
                {
                    let _ = input.focus();
                }
                false
            }
            Msg::SelectClient(i) => {
                if i < self.sessions.len() {
                    self.active = i;
                    self.sessions[i].unread = 0;
                    self.scroll_to_end = true;
                    self.focus_input = true;
                    self.refresh(true);
                }
                true
            }
            Msg::AddClient => {
                if let Some(num) =
                    (1..=MAX_CLIENTS).find(|n| self.sessions.iter().all(|s| s.num != *n))
                {
                    let idx = self.open_session(num);
                    let s = &mut self.sessions[idx];
                    s.push(Line::Note(format!(
                        "Connected as {} (a new connection). Try BLPOP in one client and LPUSH in another.",
                        s.label()
                    )));
                    self.active = idx;
                    self.scroll_to_end = true;
                    self.focus_input = true;
                    self.refresh(true);
                }
                true
            }
            Msg::CloseClient(i) => {
                if self.sessions.len() > 1 && i < self.sessions.len() {
                    let s = self.sessions.remove(i);
                    self.engine.disconnect(s.id);
                    if self.active > i || self.active >= self.sessions.len() {
                        self.active = self.active.saturating_sub(1);
                    }
                    self.scroll_to_end = true;
                    self.focus_input = true;
                    self.deliver_unblocked();
                    self.refresh(true);
                }
                true
            }
            Msg::Cancel => {
                self.cancel(self.active);
                self.focus_input = true;
                true
            }
            Msg::Inspect(key) => {
                let db = self.db(self.active);
                self.inspector.select(&self.engine, db, key);
                self.inspector_ttl = self.inspector.ttl_ms(&self.engine);
                self.reveal_inspector = true;
                true
            }
            Msg::CloseInspector => {
                self.inspector.close();
                self.focus_input = true;
                true
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let paused = self.driver.mode == Mode::Paused;
        let cur = &self.sessions[self.active];
        let waiting = cur.waiting.as_ref();
        let hint = if waiting.is_some() {
            None
        } else {
            help::hint(&cur.input)
        };
        let on_input = link.callback(|e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            Msg::Input(input.value())
        });
        let on_key = link.callback(Msg::Key);
        let step = |us: u64, label: &'static str, action: &'static str| {
            html! {
                <button class="rs-btn" data-action={action} title={ format!("Advance virtual time by {label}") }
                        onclick={ link.callback(move |_| Msg::Step(us)) }>{ format!("+{label}") }</button>
            }
        };
        html! {
            <div class="rs-widget">
                <div class="rs-toolbar">
                    <div class="rs-clock" role="group" aria-label="Virtual clock">
                        if paused {
                            <button class="rs-btn rs-play" data-action="play" title="Follow wall time"
                                    onclick={ link.callback(|_| Msg::SetMode(Mode::RealTime)) }>
                                <span class="rs-icon">{ "▶" }</span>{ "Real time" }
                            </button>
                        } else {
                            <button class="rs-btn rs-pause" data-action="pause" title="Stop the virtual clock"
                                    onclick={ link.callback(|_| Msg::SetMode(Mode::Paused)) }>
                                <span class="rs-icon">{ "❚❚" }</span>{ "Pause" }
                            </button>
                        }
                        { step(100_000, "100 ms", "step-100ms") }
                        { step(1_000_000, "1 s", "step-1s") }
                        { step(60_000_000, "1 min", "step-1min") }
                    </div>
                    <div class={ classes!("rs-time", paused.then_some("rs-time-paused")) } title="Virtual time since start">
                        <span class="rs-dot"></span>
                        <span class="rs-time-label">{ if paused { "paused" } else { "live" } }</span>
                        <span class="rs-clock-time">{ fmt_clock(self.engine.now_us()) }</span>
                    </div>
                    <span class="rs-spacer"></span>
                    if ctx.props().shareable {
                        <button class="rs-btn" data-action="share" title="Copy a link that replays this session"
                                onclick={ link.callback(|_| Msg::Share) }>{ "Share" }</button>
                    }
                </div>
                if let Some(s) = &self.share {
                    <div class="rs-share">
                        <input class="rs-share-link" readonly=true value={ s.link.clone() }
                               onfocus={ Callback::from(|e: FocusEvent| {
                                   let i: HtmlInputElement = e.target_unchecked_into();
                                   i.select();
                               }) } />
                        <span class="rs-share-status">{ match s.copied {
                            Some(true) => "Link copied to the clipboard.",
                            Some(false) => "Copy the link above (the clipboard is not available here).",
                            None => "Copying…",
                        } }</span>
                        <button class="rs-btn rs-ghost-btn" aria-label="Close" onclick={ link.callback(|_| Msg::CloseShare) }>{ "✕" }</button>
                    </div>
                }
                <div class="rs-main">
                    <div class="rs-console" onclick={ link.callback(|_| Msg::Focus) }>
                        { self.tabs(link) }
                        <div class="rs-screen" ref={ self.screen_ref.clone() } aria-live="polite">
                            <Screen lines={ cur.lines.clone() } />
                            if let Some(w) = waiting {
                                <div class="rs-waitline" role="status">
                                    <span class="rs-spinner" aria-hidden="true"></span>
                                    <span class="rs-wait-text">{ clients::waiting_text(w, self.engine.now_us()) }</span>
                                    <button class="rs-btn rs-wait-cancel" data-action="cancel-wait"
                                            title="Cancel the wait as Ctrl+C does in redis-cli: the client disconnects and reconnects"
                                            onclick={ link.callback(|e: MouseEvent| { e.stop_propagation(); Msg::Cancel }) }>{ "Ctrl+C" }</button>
                                </div>
                            }
                            if waiting.is_none() && cur.subscriptions > 0 {
                                <div class="rs-subline" role="status">
                                    <span class="rs-sub-dot" aria-hidden="true"></span>
                                    <span class="rs-wait-text">{ clients::subscribed_text(cur.subscriptions) }</span>
                                </div>
                            }
                            <div class={ classes!("rs-inputline", waiting.is_some().then_some("rs-locked")) }>
                                <span class="rs-prompt">{ self.prompt(self.active) }</span>
                                <div class="rs-inputwrap">
                                    <div class="rs-ghost" aria-hidden="true">
                                        <span class="rs-ghost-typed">{ &cur.input }</span>
                                        <span class="rs-hint">{ hint.unwrap_or_default() }</span>
                                    </div>
                                    <input class="rs-input" ref={ self.input_ref.clone() } type="text"
                                           value={ cur.input.clone() } oninput={ on_input } onkeydown={ on_key }
                                           readonly={ waiting.is_some() }
                                           spellcheck="false" autocomplete="off" autocapitalize="off"
                                           aria-label={ format!("Redis command for {}", cur.label()) } />
                                </div>
                            </div>
                        </div>
                    </div>
                    <KeyspacePanel rows={ self.keys.rows.clone() } count={ self.keys.count } db={ self.keys.db }
                                   selected={ self.inspector.target.as_ref().filter(|t| t.db == self.keys.db).map(|t| t.key.clone()) }
                                   on_select={ link.callback(Msg::Inspect) } />
                </div>
                if let Some(t) = &self.inspector.target {
                    <div ref={ self.inspector_ref.clone() }>
                        <InspectorPanel target={ t.clone() } view={ self.inspector.view.clone() }
                                        ttl_ms={ self.inspector_ttl } notes={ self.inspector.notes.clone() }
                                        on_close={ link.callback(|_| Msg::CloseInspector) } />
                    </div>
                }
                <TimelinePanel marks={ self.timeline.marks.clone() } waits={ self.timeline.waits.clone() }
                               clients={ self.sessions.len() } now_us={ self.engine.now_us() }
                               zoom={ self.zoom } on_zoom={ link.callback(Msg::Zoom) }
                               memory={ self.timeline.memory.clone() } pending={ self.timeline.pending.clone() } />
            </div>
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
        if self.scroll_to_end {
            self.scroll_to_end = false;
            if let Some(screen) = self.screen_ref.cast::<web_sys::Element>() {
                screen.set_scroll_top(screen.scroll_height());
            }
        }
        if (first_render && ctx.props().autofocus) || std::mem::take(&mut self.focus_input) {
            if let Some(input) = self.input_ref.cast::<HtmlInputElement>() {
                let _ = input.focus();
            }
        }
        if std::mem::take(&mut self.reveal_inspector) {
            if let Some(panel) = self.inspector_ref.cast::<web_sys::Element>() {
                let opts = web_sys::ScrollIntoViewOptions::new();
                opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                opts.set_behavior(web_sys::ScrollBehavior::Smooth);
                panel.scroll_into_view_with_scroll_into_view_options(&opts);
            }
        }
    }
}

impl Widget {
    /// The selected database of session `idx`'s client.
    fn db(&self, idx: usize) -> usize {
        self.sessions
            .get(idx)
            .and_then(|s| self.engine.client(s.id))
            .map_or(0, |c| c.db)
    }

    /// redis-cli's prompt, with the database after SELECT.
    fn prompt(&self, idx: usize) -> String {
        match self.db(idx) {
            0 => "127.0.0.1:6379>".to_string(),
            db => format!("127.0.0.1:6379[{db}]>"),
        }
    }

    /// Connects client number `num` in a new tab; returns its index.
    fn open_session(&mut self, num: usize) -> usize {
        let id = self.engine.connect(&clients::label(num));
        self.sessions.push(Session::new(num, id));
        self.sessions.len() - 1
    }

    /// The tab of client `num`, opened (with the numbers before it) if needed.
    fn session_for(&mut self, num: usize) -> usize {
        for n in 1..=num {
            if self.sessions.iter().all(|s| s.num != n) {
                self.open_session(n);
            }
        }
        self.sessions.iter().position(|s| s.num == num).unwrap_or(0)
    }

    /// The client tabs and the "+ client" button.
    fn tabs(&self, link: &yew::html::Scope<Self>) -> Html {
        let closable = self.sessions.len() > 1;
        html! {
            <div class="rs-tabs" role="tablist" aria-label="Clients">
                { for self.sessions.iter().enumerate().map(|(i, s)| {
                    let on = i == self.active;
                    html! {
                        <div class={ classes!("rs-tab", format!("rs-who-{}", s.num), on.then_some("rs-on"), s.waiting.is_some().then_some("rs-tab-waiting"), (s.subscriptions > 0).then_some("rs-tab-subscribed")) }
                             data-client={ s.num.to_string() }>
                            <button class="rs-tab-main" role="tab" aria-selected={ on.to_string() }
                                    title={ format!("{} (connection id {}){}", s.label(), s.id, if s.waiting.is_some() { ": waiting in a blocking command" } else { "" }) }
                                    onclick={ link.callback(move |_| Msg::SelectClient(i)) }>
                                <span class="rs-tab-dot"></span>
                                { s.label() }
                                if s.unread > 0 {
                                    <span class="rs-tab-badge" title="New replies">{ s.unread }</span>
                                }
                            </button>
                            if closable {
                                <button class="rs-tab-close" aria-label={ format!("Disconnect {}", s.label()) }
                                        title="Disconnect this client"
                                        onclick={ link.callback(move |e: MouseEvent| { e.stop_propagation(); Msg::CloseClient(i) }) }>{ "×" }</button>
                            }
                        </div>
                    }
                }) }
                if self.sessions.len() < MAX_CLIENTS {
                    <button class="rs-tab-add" data-action="add-client" title="Connect another client, with its own console"
                            onclick={ link.callback(|_| Msg::AddClient) }>{ "+ client" }</button>
                }
            </div>
        }
    }

    /// Brings virtual time up to wall time in real-time mode; true if it runs.
    fn sync_clock(&mut self) -> bool {
        match self.driver.target_us(wall_ms()) {
            Some(t) => {
                self.engine.advance_to(t);
                true
            }
            None => false,
        }
    }

    /// Re-reads the trace, the keyspace and the inspected key; true if any changed.
    fn refresh(&mut self, force: bool) -> bool {
        let mut changed = self.timeline.ingest(self.engine.trace());
        if changed || force {
            let base = self.engine.unix_base_us();
            self.timeline
                .update_pending(self.engine.trace(), base, self.engine.now_us());
        }
        changed |= self.inspector.refresh(&self.engine, force);
        let ttl = self.inspector.ttl_ms(&self.engine);
        if ttl != self.inspector_ttl {
            self.inspector_ttl = ttl;
            changed = true;
        }
        let db = self.db(self.active);
        let now = wall_ms();
        if force
            || changed
            || self.keys.count <= BIG_KEYSPACE
            || now - self.keys_refreshed_ms >= 1000.0
        {
            let before = (self.keys.rows.clone(), self.keys.count, self.keys.db);
            self.keys.refresh(&self.engine, db);
            self.keys_refreshed_ms = now;
            return changed
                || !Rc::ptr_eq(&before.0, &self.keys.rows)
                || before.1 != self.keys.count
                || before.2 != self.keys.db;
        }
        changed
    }

    /// Prints replies the engine produced for waiting clients (served by
    /// another client's write, timed out, or queued behind a blocked
    /// command); true if any arrived.
    fn deliver_unblocked(&mut self) -> bool {
        let replies = self.engine.take_unblocked();
        let any = !replies.is_empty();
        for (id, reply) in replies {
            let Some(idx) = self.sessions.iter().position(|s| s.id == id) else {
                continue;
            };
            self.show_reply(idx, &reply);
        }
        self.sync_sessions();
        any
    }

    /// Waiting and subscribed states as the engine has them now.
    fn sync_sessions(&mut self) {
        for s in &mut self.sessions {
            if s.waiting.is_some() && !self.engine.is_blocked(s.id) {
                s.waiting = None;
            }
            s.subscriptions = self.engine.client(s.id).map_or(0, |c| c.subs.count());
        }
    }

    /// Prints `reply` on session `idx`, and reconnects after QUIT.
    fn show_reply(&mut self, idx: usize, reply: &Frame) {
        let active = idx == self.active;
        let s = &mut self.sessions[idx];
        s.push(Line::Reply {
            text: format_reply(reply),
            error: reply.is_error(),
        });
        if active {
            self.scroll_to_end = true;
        } else {
            s.unread += 1;
        }
        if self
            .engine
            .client(s.id)
            .is_some_and(|c| c.close_after_reply)
        {
            // redis-cli would exit; here the console reconnects at once.
            self.engine.disconnect(s.id);
            s.id = self.engine.connect(&s.label());
            s.waiting = None;
            s.push(Line::Note(
                "Connection closed; the console reconnected as a new client.".into(),
            ));
        }
    }

    /// Ctrl+C during a blocking command or in subscribed mode: like
    /// redis-cli, drop the connection (which ends the wait and the
    /// subscriptions) and connect again, re-selecting the database and protocol.
    fn cancel(&mut self, idx: usize) {
        let Some(s) = self.sessions.get(idx) else {
            return;
        };
        if s.waiting.is_none() && s.subscriptions == 0 {
            return;
        }
        let what = if s.waiting.is_some() {
            "wait cancelled"
        } else {
            "subscriptions dropped"
        };
        let old = s.id;
        let (db, resp) = self.engine.client(old).map_or((0, 2), |c| (c.db, c.resp));
        self.engine.disconnect(old);
        let label = self.sessions[idx].label();
        let id = self.engine.connect(&label);
        if db != 0 {
            self.engine
                .execute(id, &[b"SELECT".to_vec(), db.to_string().into_bytes()]);
        }
        if resp == 3 {
            self.engine.execute(id, &[b"HELLO".to_vec(), b"3".to_vec()]);
        }
        let s = &mut self.sessions[idx];
        s.id = id;
        s.waiting = None;
        s.subscriptions = 0;
        s.push(Line::Note(format!(
            "^C: {what}; {label} disconnected and reconnected (connection id {id})."
        )));
        self.scroll_to_end = true;
        self.deliver_unblocked();
        self.refresh(true);
    }

    /// Keys the console handles itself: Enter, history, Tab, Ctrl+L, and
    /// Ctrl+C while waiting or subscribed with no text selected (otherwise
    /// Ctrl+C copies, as in any page).
    fn key(&mut self, e: KeyboardEvent) -> bool {
        let idx = self.active;
        let waiting = self.sessions[idx].waiting.is_some();
        let interruptible = waiting || self.sessions[idx].subscriptions > 0;
        match e.key().as_str() {
            "c" | "C" if e.ctrl_key() && interruptible && !self.text_selected() => {
                e.prevent_default();
                self.cancel(idx);
                true
            }
            _ if waiting => false,
            "Enter" => {
                e.prevent_default();
                let line = std::mem::take(&mut self.sessions[idx].input);
                self.submit(idx, line, true);
                self.refresh(true);
                true
            }
            "ArrowUp" => {
                e.prevent_default();
                self.sessions[idx].history_up()
            }
            "ArrowDown" => {
                e.prevent_default();
                self.sessions[idx].history_down()
            }
            "Tab" => {
                let s = &mut self.sessions[idx];
                match help::complete(&s.input) {
                    Some(c) => {
                        e.prevent_default();
                        s.input = c;
                        true
                    }
                    None => {
                        if !s.input.is_empty() {
                            e.prevent_default();
                        }
                        false
                    }
                }
            }
            "l" | "L" if e.ctrl_key() => {
                e.prevent_default();
                self.sessions[idx].clear();
                true
            }
            _ => false,
        }
    }

    /// True when the page or the prompt has a text selection (Ctrl+C copies it).
    fn text_selected(&self) -> bool {
        let page = web_sys::window()
            .and_then(|w| w.get_selection().ok().flatten())
            .is_some_and(|s| !s.is_collapsed());
        let input = self.input_ref.cast::<HtmlInputElement>().is_some_and(|i| {
            matches!(
                (i.selection_start(), i.selection_end()),
                (Ok(Some(a)), Ok(Some(b))) if a != b
            )
        });
        page || input
    }

    /// Runs one console line on session `idx`. `typed` is false for
    /// commands from the page URL or attributes, which skip the history and
    /// may not crash the page.
    fn submit(&mut self, idx: usize, line: String, typed: bool) {
        let prompt = self.prompt(idx);
        let s = &mut self.sessions[idx];
        s.push(Line::Input {
            prompt,
            text: line.clone(),
        });
        self.scroll_to_end = true;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return;
        }
        if typed {
            s.remember(trimmed);
        }
        let Some(args) = split_args(trimmed.as_bytes()) else {
            s.push(Line::Note("Invalid argument(s)".into()));
            return;
        };
        let words: Vec<String> = args
            .iter()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let first = words.first().map(|w| w.to_ascii_lowercase());
        match first.as_deref() {
            Some("help") => {
                s.push(Line::Help(help::help(&words[1..])));
                return;
            }
            Some("clear") => {
                s.clear();
                return;
            }
            Some("inspect") => {
                self.inspect_command(idx, &words[1..]);
                self.session
                    .push(clients::with_target(self.sessions[idx].num, trimmed));
                return;
            }
            Some("debug") if words.len() == 2 && words[1].eq_ignore_ascii_case("panic") => {
                if typed {
                    panic!("DEBUG PANIC: crash requested from the console");
                }
                s.push(Line::Note("DEBUG PANIC only works when typed.".into()));
                return;
            }
            _ => {}
        }
        let (id, num) = (s.id, s.num);
        self.sync_clock();
        let reply = self.engine.submit_line(id, trimmed);
        self.session.push(clients::with_target(num, trimmed));
        match reply {
            Some(r) => self.show_reply(idx, &r),
            None => {
                let deadline_us = self
                    .engine
                    .blocked_clients()
                    .into_iter()
                    .find(|b| b.client == id)
                    .and_then(|b| b.deadline_us);
                let s = &mut self.sessions[idx];
                if s.waiting.is_none() {
                    s.waiting = Some(Waiting {
                        command: trimmed.to_string(),
                        deadline_us,
                    });
                }
            }
        }
        self.deliver_unblocked();
        self.sync_sessions();
        self.inspector.refresh(&self.engine, false);
    }

    /// `INSPECT key`: shows the key in the inspector (a console command,
    /// like HELP, never sent to the engine).
    fn inspect_command(&mut self, idx: usize, args: &[String]) {
        let note = match args {
            [key] => {
                let db = self.db(idx);
                let exists = self.engine.inspect(db, key.as_bytes()).is_some();
                self.inspector.select(&self.engine, db, key.clone());
                self.inspector_ttl = self.inspector.ttl_ms(&self.engine);
                self.reveal_inspector = true;
                if exists {
                    format!("Inspecting \"{key}\": see the inspector panel.")
                } else {
                    format!("No key \"{key}\" in db{db} yet: the inspector shows it once it exists.")
                }
            }
            _ => "Usage: INSPECT <key> draws the key's structure (encoding, limits, nodes) in the inspector panel.".to_string(),
        };
        self.sessions[idx].push(Line::Note(note));
    }

    /// Builds the Share link and tries to copy it.
    fn open_share(&mut self, ctx: &Context<Self>) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let loc = window.location();
        let base = format!(
            "{}{}",
            loc.origin().unwrap_or_default(),
            loc.pathname().unwrap_or_default()
        );
        let link = share::share_link(
            &base,
            self.seed,
            self.t0,
            self.driver.mode == Mode::Paused,
            &self.session,
        );
        let promise = window.navigator().clipboard().write_text(&link);
        let ok_link = ctx.link().clone();
        let err_link = ctx.link().clone();
        let ok = Closure::<dyn FnMut(JsValue)>::once(move |_: JsValue| {
            if !crate::panic::is_dead() {
                ok_link.send_message(Msg::Copied(true));
            }
        });
        let err = Closure::<dyn FnMut(JsValue)>::once(move |_: JsValue| {
            if !crate::panic::is_dead() {
                err_link.send_message(Msg::Copied(false));
            }
        });
        let _ = promise.then2(&ok, &err);
        // The promise calls one of them later; they must outlive this call.
        // One small closure per Share click is leaked.
        ok.forget();
        err.forget();
        self.share = Some(ShareState { link, copied: None });
    }
}

#[derive(Properties)]
struct ScreenProps {
    lines: Rc<Vec<Line>>,
}

/// Lines are replaced, never edited in place, so pointer equality is enough
/// and a tick does not compare the whole scrollback.
impl PartialEq for ScreenProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.lines, &other.lines)
    }
}

/// The console's scrollback.
#[component]
fn Screen(props: &ScreenProps) -> Html {
    props.lines.iter().map(line).collect()
}

fn line(l: &Line) -> Html {
    match l {
        Line::Input { prompt, text } => html! {
            <div class="rs-line rs-in"><span class="rs-prompt">{ prompt }</span>{ " " }<span class="rs-cmd">{ text }</span></div>
        },
        Line::Reply { text, error } => html! {
            <div class={ classes!("rs-line", "rs-out", error.then_some("rs-err")) }>{ text }</div>
        },
        Line::Note(text) => html! { <div class="rs-line rs-note">{ text }</div> },
        Line::Help(h) => help_view(h),
    }
}

/// HELP output laid out as redis-cli prints it (name bold, arguments grey,
/// labels yellow).
fn help_view(h: &HelpOut) -> Html {
    match h {
        HelpOut::Usage { groups } => html! {
            <div class="rs-line rs-help">
                { format!("redsim {} (Redis {} semantics, in your browser)\n", env!("CARGO_PKG_VERSION"), redsim_engine::REDIS_VERSION) }
                { "To get help about Redis commands type:\n" }
                { "      \"help @<group>\" to get a list of commands in <group>\n" }
                { "      \"help <command>\" for help on <command>\n" }
                { "      \"clear\" to clear the screen\n" }
                { "      \"inspect <key>\" to draw a key's structure in the inspector\n\n" }
                { format!("Groups: {}\n", groups.iter().map(|g| format!("@{g}")).collect::<Vec<_>>().join(" ")) }
                { "Keys: Up/Down for history, Tab completes a command name, Ctrl+L clears, Ctrl+C cancels a blocking command.\n" }
                { "Clients: \"+ client\" opens another connection with its own console (BLPOP in one, LPUSH in another)." }
            </div>
        },
        HelpOut::Entries {
            entries,
            show_group,
        } => html! {
            <div class="rs-line rs-help">
                { for entries.iter().map(|e| html! {
                    <div class="rs-help-entry">
                        { "\n  " }<b class="rs-help-name">{ &e.name }</b>{ " " }<span class="rs-grey">{ &e.params }</span>{ "\n" }
                        { "  " }<span class="rs-yellow">{ "summary:" }</span>{ format!(" {}\n", e.summary) }
                        { "  " }<span class="rs-yellow">{ "since:" }</span>{ format!(" {}\n", e.since) }
                        if *show_group {
                            { "  " }<span class="rs-yellow">{ "group:" }</span>{ format!(" {}\n", e.group) }
                        }
                    </div>
                }) }
                { "\n" }
            </div>
        },
        HelpOut::NoMatch(what) => html! {
            <div class="rs-line rs-note">{ format!("No help for '{what}'. Try HELP @string, or HELP for the list of groups.") }</div>
        },
    }
}
