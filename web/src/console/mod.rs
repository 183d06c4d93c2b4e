//! One playground widget: a redis-cli-like console with one tab per client over its own engine, the clock bar, the keyspace panel, the key inspector and the timeline.
//!
//! The widget's state is a [`state::Console`] changed only through its
//! actions; this component adds the page's side: the clock's timer, the
//! clipboard, focus, scrolling and the DOM events. Panels get plain data
//! behind `Rc`s, so a tick that changed nothing they show does not
//! re-render them.

mod clock;
mod help;
mod history;
mod input;
mod screen;
mod session;
pub mod share;
mod state;

use gloo::timers::callback::Interval;
use wasm_bindgen::{closure::Closure, JsValue};
use web_sys::{HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

use crate::dom::{after_next_paint, input_value, page_has_selection, page_url, wall_ms};
use crate::panels::clients::{client_tabs, TabClick};
use crate::panels::inspector::InspectorPanel;
use crate::panels::keyspace::KeyspacePanel;
use crate::panels::timeline::{timeline_frame, TimelinePanel, TimelineProps};
use clock::{clock_controls, ClockClick, Mode};
use input::{input_line, InputLine};
use screen::Screen;
use share::{share_popover, Preset};
use state::{Action, Console};

/// Clock tick period in real-time mode, ms.
const TICK_MS: u32 = 50;

#[derive(Properties, PartialEq, Clone)]
pub struct WidgetProps {
    pub preset: Preset,
    /// Focus the console on load (the playground page, not docs widgets).
    pub autofocus: bool,
    /// Offer a Share link (widgets driven by the page URL).
    pub shareable: bool,
    /// The host element's index among the page's hosts: its session is
    /// handed over under it (`crate::handover`).
    pub host: usize,
}

pub enum Msg {
    Do(Action),
    Key(KeyboardEvent),
    /// Pack the session for a Share link (the browser compresses it
    /// asynchronously, see `crate::links`).
    Share,
    /// The session packed (`None`: the browser could not): show the link
    /// and copy it.
    Packed(String, Option<String>),
    /// Download the session as a `redsim replay` script.
    Export,
    /// A click in the console: focus the prompt.
    Focus,
    /// Hand the session over to the full engine, and stop.
    Handover,
    /// The widget's first frame is on screen: the timeline's chart may draw.
    Painted,
}

pub struct Widget {
    state: Console,
    input_ref: NodeRef,
    screen_ref: NodeRef,
    inspector_ref: NodeRef,
    /// The clock's timer; dropped once the session is handed over.
    ticker: Option<Interval>,
    /// The full engine was asked for (`crate::handover`).
    asked_full: bool,
    /// Whether the first frame has been painted; until then the timeline
    /// is its empty box (see [`timeline_frame`]).
    painted: bool,
}

impl Component for Widget {
    type Message = Msg;
    type Properties = WidgetProps;

    fn create(ctx: &Context<Self>) -> Self {
        let preset = &ctx.props().preset;
        // Virtual instant 0 is "now" unless the link pins it (wall time may be
        // read here, in the driver; the engine itself never reads it).
        let t0 = preset
            .t0
            .unwrap_or_else(|| (js_sys::Date::now() / 1000.0).floor() as u64);
        let link = ctx.link().clone();
        let ticker = Interval::new(TICK_MS, move || {
            if !crate::panic::is_dead() {
                link.send_message(Msg::Do(Action::Tick));
            }
        });
        let link = ctx.link().clone();
        crate::handover::register(Box::new(move || link.send_message(Msg::Handover)));
        let link = ctx.link().clone();
        crate::docs::listen(Box::new(move |ok| {
            link.send_message(Msg::Do(Action::Docs(ok)));
        }));
        Widget {
            state: Console::new(preset, t0, wall_ms),
            input_ref: NodeRef::default(),
            screen_ref: NodeRef::default(),
            inspector_ref: NodeRef::default(),
            ticker: Some(ticker),
            asked_full: false,
            painted: false,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Do(Action::Input(v)) => {
                if crate::handover::LIGHT && wants_full_engine(&v) {
                    crate::handover::prefetch();
                }
                self.state.apply(Action::Input(v))
            }
            Msg::Do(a) => self.state.apply(a),
            Msg::Painted => {
                self.painted = true;
                true
            }
            Msg::Handover => {
                let link = self.state.share_link("", &self.state.share_text(), None);
                crate::handover::offer(ctx.props().host, &link);
                self.ticker = None;
                false
            }
            Msg::Key(e) => {
                let input = self.input_ref.clone();
                let out = self
                    .state
                    .key(&e.key(), e.ctrl_key(), || text_selected(&input));
                if out.prevent {
                    e.prevent_default();
                }
                out.render
            }
            Msg::Export => {
                download("session.redis", &self.state.export_text());
                false
            }
            Msg::Share => {
                let text = self.state.share_text();
                let scope = ctx.link().clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let packed = crate::links::pack(&text).await;
                    if !crate::panic::is_dead() {
                        scope.send_message(Msg::Packed(text, packed));
                    }
                });
                false
            }
            Msg::Packed(text, packed) => {
                self.open_share(ctx, &text, packed.as_deref());
                true
            }
            Msg::Focus => {
                // Clicking the console focuses the prompt, unless the click
                // ended a text selection the user wants to copy.
                if let (false, Some(input)) = (
                    page_has_selection(),
                    self.input_ref.cast::<HtmlInputElement>(),
                ) {
                    let _ = input.focus();
                }
                false
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let st = &self.state;
        let paused = st.driver.mode == Mode::Paused;
        let cur = st.current();
        let hint = if cur.waiting.is_some() {
            None
        } else {
            help::hint(&cur.input)
        };
        let on_clock = link.callback(|c| {
            Msg::Do(match c {
                ClockClick::Mode(m) => Action::SetMode(m),
                ClockClick::Step(us) => Action::Step(us),
            })
        });
        let on_tab = link.callback(|t| {
            Msg::Do(match t {
                TabClick::Select(i) => Action::SelectClient(i),
                TabClick::Close(i) => Action::CloseClient(i),
                TabClick::Add => Action::AddClient,
            })
        });
        let prompt = InputLine {
            session: cur,
            prompt: st.prompt(st.active),
            hint,
            now_us: st.engine.now_us(),
            input_ref: self.input_ref.clone(),
            on_input: link.callback(|e: InputEvent| Msg::Do(Action::Input(input_value(&e)))),
            on_key: link.callback(Msg::Key),
            on_cancel: link.callback(|e: MouseEvent| {
                e.stop_propagation();
                Msg::Do(Action::Cancel)
            }),
        };
        let timeline = TimelineProps {
            marks: st.timeline.marks.clone(),
            waits: st.timeline.waits.clone(),
            clients: st.sessions.len(),
            now_us: st.engine.now_us(),
            zoom: st.zoom,
            on_zoom: link.callback(|z| Msg::Do(Action::Zoom(z))),
            memory: st.timeline.memory.clone(),
            pending: st.timeline.pending.clone(),
        };
        let timeline = if self.painted {
            html! { <TimelinePanel ..timeline /> }
        } else {
            timeline_frame(&timeline)
        };
        let inspected_here = st
            .inspector
            .target
            .as_ref()
            .filter(|t| t.db == st.keys.db)
            .map(|t| t.key.clone());
        html! {
            <div class="rs-widget">
                <div class="rs-toolbar">
                    { clock_controls(paused, st.engine.now_us(), &on_clock) }
                    <span class="rs-spacer"></span>
                    if ctx.props().shareable {
                        <button class="rs-btn" data-action="export"
                                title="Download this session as a script: redsim replay runs it against a real Redis"
                                onclick={ link.callback(|_| Msg::Export) }>{ "Export" }</button>
                        <button class="rs-btn" data-action="share" title="Copy a link that replays this session"
                                onclick={ link.callback(|_| Msg::Share) }>{ "Share" }</button>
                    }
                </div>
                if let Some(s) = &st.share {
                    { share_popover(s, link.callback(|_| Msg::Do(Action::CloseShare))) }
                }
                <div class="rs-main">
                    <div class="rs-console" onclick={ link.callback(|_| Msg::Focus) }>
                        { client_tabs(&st.tabs(), st.active, st.can_add_client(), &on_tab) }
                        <div class="rs-screen" ref={ self.screen_ref.clone() } aria-live="polite">
                            <div class="rs-screen-body">
                                <Screen lines={ cur.lines.clone() } />
                                { input_line(prompt) }
                            </div>
                        </div>
                    </div>
                    <KeyspacePanel rows={ st.keys.rows.clone() } count={ st.keys.count } db={ st.keys.db }
                                   pattern={ st.keys.pattern.clone() } matched={ st.keys.matched }
                                   on_filter={ link.callback(|p| Msg::Do(Action::FilterKeys(p))) }
                                   selected={ inspected_here }
                                   on_select={ link.callback(|k| Msg::Do(Action::Inspect(k))) } />
                </div>
                if let Some(t) = &st.inspector.target {
                    <div ref={ self.inspector_ref.clone() }>
                        <InspectorPanel target={ t.clone() } view={ st.inspector.view.clone() }
                                        ttl_ms={ st.inspector_ttl } notes={ st.inspector.notes.clone() }
                                        on_close={ link.callback(|_| Msg::Do(Action::CloseInspector)) } />
                    </div>
                }
                { timeline }
            </div>
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
        if self.state.wants_full && !self.asked_full {
            self.asked_full = true;
            crate::handover::request();
        }
        if first_render {
            let link = ctx.link().clone();
            after_next_paint(move || link.send_message(Msg::Painted));
        }
        let fx = &mut self.state.effects;
        // The command docs: at once if a command waits for them, otherwise
        // once the page is idle after its first reply.
        if std::mem::take(&mut fx.load_docs) {
            crate::docs::load(false);
        } else if first_render {
            after_next_paint(|| crate::docs::load(true));
        }
        // The screen starts at its end by itself (a reversed flex box, see
        // `.rs-screen` in the stylesheet): measuring it on the first render
        // would lay the whole page out before its first frame.
        if std::mem::take(&mut fx.scroll_to_end) && !first_render {
            if let Some(screen) = self.screen_ref.cast::<web_sys::Element>() {
                screen.set_scroll_top(screen.scroll_height());
            }
        }
        if std::mem::take(&mut fx.focus_input) {
            if let Some(input) = self.input_ref.cast::<HtmlInputElement>() {
                let _ = input.focus();
            }
        } else if first_render && ctx.props().autofocus {
            // After the first frame: focusing lays the page out at once,
            // which would hold back the frame that shows the first reply.
            // Unless the reader has put the focus somewhere meanwhile.
            let input = self.input_ref.clone();
            after_next_paint(move || {
                let focus_elsewhere = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.active_element())
                    .is_some_and(|e| e.tag_name() != "BODY");
                if crate::panic::is_dead() || focus_elsewhere {
                    return;
                }
                if let Some(input) = input.cast::<HtmlInputElement>() {
                    let _ = input.focus();
                }
            });
        }
        if std::mem::take(&mut fx.reveal_inspector) {
            if let Some(panel) = self.inspector_ref.cast::<web_sys::Element>() {
                let opts = web_sys::ScrollIntoViewOptions::new();
                opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                opts.set_behavior(web_sys::ScrollBehavior::Smooth);
                panel.scroll_into_view_with_scroll_into_view_options(&opts);
            }
        }
    }
}

/// Whether the command being typed is one the full engine runs, so that
/// engine can be fetched already. Only finished words count (a space
/// follows them): the name, and the subcommand too once typed, since a
/// light container may have heavy subcommands (MEMORY STATS).
fn wants_full_engine(input: &str) -> bool {
    let Some(end) = input.rfind(char::is_whitespace) else {
        return false;
    };
    let words: Vec<Vec<u8>> = input[..end]
        .split_whitespace()
        .take(2)
        .map(|w| w.as_bytes().to_vec())
        .collect();
    !words.is_empty() && redsim_engine::cmd::needs_full_engine(&words)
}

/// Offers `text` as a file download named `name` (a data URL on a
/// temporary link, so no Blob API is needed).
fn download(name: &str, text: &str) {
    use wasm_bindgen::JsCast;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(a) = doc.create_element("a") else {
        return;
    };
    let href = format!(
        "data:text/plain;charset=utf-8,{}",
        crate::url::encode_component(text)
    );
    let _ = a.set_attribute("href", &href);
    let _ = a.set_attribute("download", name);
    if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
        a.click();
    }
}

/// True when the page or the prompt has a text selection (Ctrl+C copies it).
fn text_selected(input: &NodeRef) -> bool {
    let in_prompt = input.cast::<HtmlInputElement>().is_some_and(|i| {
        matches!(
            (i.selection_start(), i.selection_end()),
            (Ok(Some(a)), Ok(Some(b))) if a != b
        )
    });
    page_has_selection() || in_prompt
}

impl Widget {
    /// Builds the Share link of `session`, shows it and tries to copy it.
    fn open_share(&mut self, ctx: &Context<Self>, session: &str, packed: Option<&str>) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let link = self.state.share_link(&page_url(), session, packed);
        let promise = window.navigator().clipboard().write_text(&link);
        let copied = |ok: bool| {
            let scope = ctx.link().clone();
            Closure::<dyn FnMut(JsValue)>::once(move |_: JsValue| {
                if !crate::panic::is_dead() {
                    scope.send_message(Msg::Do(Action::Copied(ok)));
                }
            })
        };
        let (ok, err) = (copied(true), copied(false));
        let _ = promise.then2(&ok, &err);
        // The promise calls one of them later; they must outlive this call.
        // One small closure per Share click is leaked.
        ok.forget();
        err.forget();
        self.state.apply(Action::Shared(link));
    }
}
