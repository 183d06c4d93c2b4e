//! One playground widget: a redis-cli-like console over its own engine, the clock bar, the keyspace panel and the timeline.
//!
//! The widget owns its [`Engine`] (a struct component, so commands mutate it
//! in place). Panels get plain data behind `Rc`s, so a tick that changed
//! nothing they show does not re-render them.

use std::rc::Rc;

use gloo::timers::callback::Interval;
use redsim_engine::clifmt::format_reply;
use redsim_engine::resp::split_args;
use redsim_engine::{ClientId, Engine, Options};
use wasm_bindgen::{closure::Closure, JsValue};
use web_sys::{HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

use crate::clock::{fmt_clock, Driver, Mode};
use crate::help::{self, HelpOut};
use crate::keyspace::{Keyspace, KeyspacePanel};
use crate::share::{self, Preset};
use crate::timeline::{Timeline, TimelinePanel, Zoom};

/// Seed when neither the page nor the element gives one: fixed, so a
/// documentation example shows the same thing on every load.
pub const DEFAULT_SEED: u64 = 1;
/// Trace events kept per widget: hours of an idle session, a bounded amount of memory.
const TRACE_CAPACITY: usize = 20_000;
/// Console lines kept.
const MAX_LINES: usize = 1000;
/// Commands kept in the Up/Down history.
const MAX_HISTORY: usize = 500;
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

/// One entry of the console screen.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// A command as typed, after its prompt.
    Input { prompt: String, text: String },
    /// A reply as redis-cli prints it.
    Reply { text: String, error: bool },
    /// Output of the console's own `HELP`.
    Help(HelpOut),
    /// A message from the console itself.
    Note(String),
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
}

pub struct Widget {
    engine: Engine,
    client: ClientId,
    seed: u64,
    /// Unix seconds of virtual instant 0 (TIME, EXPIREAT).
    t0: u64,
    driver: Driver,
    lines: Rc<Vec<Line>>,
    input: String,
    history: Vec<String>,
    /// Position in `history` while browsing it with Up/Down.
    hist_pos: Option<usize>,
    /// What was being typed before browsing the history.
    draft: String,
    /// Commands sent to the engine this session, for the Share link.
    session: Vec<String>,
    keys: Keyspace,
    keys_refreshed_ms: f64,
    timeline: Timeline,
    zoom: Zoom,
    share: Option<ShareState>,
    input_ref: NodeRef,
    screen_ref: NodeRef,
    scroll_to_end: bool,
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
        let client = engine.connect("console");
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
            client,
            seed,
            t0,
            driver: Driver::new(mode, 0, wall_ms()),
            lines: Rc::new(vec![Line::Note(format!(
                "Redsim: Redis {} in your browser, on a virtual clock. Type HELP for help.",
                redsim_engine::REDIS_VERSION
            ))]),
            input: String::new(),
            history: Vec::new(),
            hist_pos: None,
            draft: String::new(),
            session: Vec::new(),
            keys: Keyspace::default(),
            keys_refreshed_ms: 0.0,
            timeline: Timeline::default(),
            zoom: Zoom::TenSeconds,
            share: None,
            input_ref: NodeRef::default(),
            screen_ref: NodeRef::default(),
            scroll_to_end: true,
            _ticker: ticker,
        };
        for cmd in &preset.commands {
            w.submit(cmd.clone(), false);
        }
        w.refresh(true);
        w
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Input(v) => {
                self.input = v;
                self.hist_pos = None;
                true
            }
            Msg::Key(e) => self.key(e),
            Msg::Tick => {
                let running = self.sync_clock();
                let changed = self.refresh(false);
                running || changed
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
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let paused = self.driver.mode == Mode::Paused;
        let hint = help::hint(&self.input);
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
                        <div class="rs-screen" ref={ self.screen_ref.clone() } aria-live="polite">
                            <Screen lines={ self.lines.clone() } />
                            <div class="rs-inputline">
                                <span class="rs-prompt">{ self.prompt() }</span>
                                <div class="rs-inputwrap">
                                    <div class="rs-ghost" aria-hidden="true">
                                        <span class="rs-ghost-typed">{ &self.input }</span>
                                        <span class="rs-hint">{ hint.unwrap_or_default() }</span>
                                    </div>
                                    <input class="rs-input" ref={ self.input_ref.clone() } type="text"
                                           value={ self.input.clone() } oninput={ on_input } onkeydown={ on_key }
                                           spellcheck="false" autocomplete="off" autocapitalize="off"
                                           aria-label="Redis command" />
                                </div>
                            </div>
                        </div>
                    </div>
                    <KeyspacePanel rows={ self.keys.rows.clone() } count={ self.keys.count } db={ self.keys.db } />
                </div>
                <TimelinePanel marks={ self.timeline.marks.clone() } now_us={ self.engine.now_us() }
                               zoom={ self.zoom } on_zoom={ link.callback(Msg::Zoom) } />
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
        if first_render && ctx.props().autofocus {
            if let Some(input) = self.input_ref.cast::<HtmlInputElement>() {
                let _ = input.focus();
            }
        }
    }
}

impl Widget {
    /// redis-cli's prompt, with the database after SELECT.
    fn prompt(&self) -> String {
        match self.engine.client(self.client).map_or(0, |c| c.db) {
            0 => "127.0.0.1:6379>".to_string(),
            db => format!("127.0.0.1:6379[{db}]>"),
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

    /// Re-reads the trace and the keyspace; true if either changed.
    fn refresh(&mut self, force: bool) -> bool {
        let changed = self.timeline.ingest(self.engine.trace());
        let db = self.engine.client(self.client).map_or(0, |c| c.db);
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

    fn push_line(&mut self, line: Line) {
        let lines = Rc::make_mut(&mut self.lines);
        lines.push(line);
        if lines.len() > MAX_LINES {
            let extra = lines.len() - MAX_LINES;
            lines.drain(..extra);
        }
        self.scroll_to_end = true;
    }

    /// Keys the console handles itself: Enter, history, Tab, Ctrl+L.
    fn key(&mut self, e: KeyboardEvent) -> bool {
        match e.key().as_str() {
            "Enter" => {
                e.prevent_default();
                let line = std::mem::take(&mut self.input);
                self.submit(line, true);
                self.refresh(true);
                true
            }
            "ArrowUp" => {
                e.prevent_default();
                if self.history.is_empty() {
                    return false;
                }
                let pos = match self.hist_pos {
                    None => {
                        self.draft = self.input.clone();
                        self.history.len() - 1
                    }
                    Some(p) => p.saturating_sub(1),
                };
                self.hist_pos = Some(pos);
                self.input = self.history[pos].clone();
                true
            }
            "ArrowDown" => {
                e.prevent_default();
                match self.hist_pos {
                    None => false,
                    Some(p) if p + 1 < self.history.len() => {
                        self.hist_pos = Some(p + 1);
                        self.input = self.history[p + 1].clone();
                        true
                    }
                    Some(_) => {
                        self.hist_pos = None;
                        self.input = std::mem::take(&mut self.draft);
                        true
                    }
                }
            }
            "Tab" => match help::complete(&self.input) {
                Some(c) => {
                    e.prevent_default();
                    self.input = c;
                    true
                }
                None => {
                    if !self.input.is_empty() {
                        e.prevent_default();
                    }
                    false
                }
            },
            "l" | "L" if e.ctrl_key() => {
                e.prevent_default();
                Rc::make_mut(&mut self.lines).clear();
                true
            }
            _ => false,
        }
    }

    /// Runs one console line. `typed` is false for commands from the page
    /// URL or attributes, which skip the history and may not crash the page.
    fn submit(&mut self, line: String, typed: bool) {
        let prompt = self.prompt();
        self.push_line(Line::Input {
            prompt,
            text: line.clone(),
        });
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return;
        }
        if typed && self.history.last().map(String::as_str) != Some(trimmed) {
            self.history.push(trimmed.to_string());
            if self.history.len() > MAX_HISTORY {
                self.history.remove(0);
            }
        }
        self.hist_pos = None;
        self.draft.clear();
        let Some(args) = split_args(trimmed.as_bytes()) else {
            self.push_line(Line::Note("Invalid argument(s)".into()));
            return;
        };
        let words: Vec<String> = args
            .iter()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let first = words.first().map(|w| w.to_ascii_lowercase());
        match first.as_deref() {
            Some("help") => {
                self.push_line(Line::Help(help::help(&words[1..])));
                return;
            }
            Some("clear") => {
                Rc::make_mut(&mut self.lines).clear();
                return;
            }
            Some("debug") if words.len() == 2 && words[1].eq_ignore_ascii_case("panic") => {
                if typed {
                    panic!("DEBUG PANIC: crash requested from the console");
                }
                self.push_line(Line::Note("DEBUG PANIC only works when typed.".into()));
                return;
            }
            _ => {}
        }
        self.sync_clock();
        let reply = self.engine.execute_line(self.client, trimmed);
        self.session.push(trimmed.to_string());
        self.push_line(Line::Reply {
            text: format_reply(&reply),
            error: reply.is_error(),
        });
        if self
            .engine
            .client(self.client)
            .is_some_and(|c| c.close_after_reply)
        {
            // redis-cli would exit; here the console reconnects at once.
            self.engine.disconnect(self.client);
            self.client = self.engine.connect("console");
            self.push_line(Line::Note(
                "Connection closed; the console reconnected as a new client.".into(),
            ));
        }
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
                { "      \"clear\" to clear the screen\n\n" }
                { format!("Groups: {}\n", groups.iter().map(|g| format!("@{g}")).collect::<Vec<_>>().join(" ")) }
                { "Keys: Up/Down for history, Tab completes a command name, Ctrl+L clears." }
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
