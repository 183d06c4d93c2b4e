//! One playground widget: a redis-cli-like console with one tab per client over its own engine, the clock bar, the keyspace panel, the key inspector and the timeline.
//!
//! The widget's state is a [`state::Console`] changed only through its
//! actions; this module adds the page's side: the clock's timer, the
//! clipboard, focus, scrolling and the DOM events. It draws with plain DOM
//! calls (see `crate::ui` for why): each part keeps the elements it
//! changes, and after every action [`Inner::render`] brings them up to the
//! state, touching only what differs. Events are read where they bubble to
//! the widget's root, from the `data-*` attributes of what was clicked.
//!
//! The timeline's chart and the key inspector stay Yew components, each
//! mounted in its own box: the inspector when a key is opened, the chart
//! once the first frame is up and the console module's rest has come
//! (`assets/redsim.js`), so neither runs before the first reply.

mod clock;
mod events;
mod help;
mod history;
mod input;
mod mailbox;
mod screen;
mod session;
pub mod share;
mod state;

use std::rc::{Rc, Weak};

use gloo::events::EventListener;
use gloo::timers::callback::Interval;
use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use web_sys::{Element, HtmlInputElement, KeyboardEvent};
use yew::{AppHandle, AttrValue, Callback};

use crate::dom::{after_next_paint, page_has_selection, page_url, wall_ms};
use crate::panels::clients::{client_tabs, ClientTab};
use crate::panels::inspector::{InspectorPanel, InspectorProps};
use crate::panels::keyspace::{KeyspacePanel, PanelView};
use crate::panels::timeline::{timeline_frame, TimelinePanel, TimelineProps, Zoom};
use crate::ui::{replace, El};
use clock::{clock_buttons, Mode, TimeView};
use input::{InputArea, InputView};
use mailbox::Mailbox;
use screen::Scrollback;
use share::{share_popover, Preset, ShareState};
use state::{Action, Console};

/// Clock tick period in real-time mode, ms.
const TICK_MS: u32 = 50;

#[derive(PartialEq, Clone)]
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

enum Msg {
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
    /// The widget's first frame is on screen.
    Painted,
    /// The console module's rest has come: Yew's code is here.
    RestLinked,
}

/// Mounts a widget into `host` (emptied first); it lives until the page
/// retires the console module (`crate::handover`).
pub fn mount(host: &Element, props: WidgetProps) {
    let shared: Rc<Shared> = Rc::new(Mailbox::new());
    let me = Rc::downgrade(&shared);
    let mut inner = Inner::new(host, props, me.clone());
    inner.render();
    inner.after_render(true);
    shared.set(inner);
    crate::handover::keep(Box::new(move || {
        // Dropping the state stops its timer and listeners.
        if let Some(inner) = shared.take() {
            inner.retire();
        }
    }));
}

/// The widget and the messages waiting for it (see [`mailbox`]).
type Shared = Mailbox<Inner, Msg>;

fn send(me: &Weak<Shared>, msg: Msg) {
    if let Some(shared) = me.upgrade() {
        shared.send(msg, Inner::handle, crate::panic::is_dead);
    }
}

fn sender(me: &Weak<Shared>) -> impl Fn(Msg) + Clone + 'static {
    let me = me.clone();
    move |msg| send(&me, msg)
}

/// The widget's elements.
struct Dom {
    root: Element,
    toolbar: Element,
    clock: Element,
    time: TimeView,
    share: Option<Element>,
    tabs: Element,
    screen: Element,
    lines: Scrollback,
    input: InputArea,
    keys: KeyspacePanel,
    /// The inspector's box, when a key is inspected.
    inspector: Option<(Element, AppHandle<InspectorPanel>)>,
    timeline: Element,
}

/// What was drawn, where a part is redrawn whole when it changes.
#[derive(Default)]
struct Shown {
    paused: Option<bool>,
    share: Option<Option<ShareState>>,
    tabs: Option<(Vec<ClientTab>, usize, bool)>,
    inspector: Option<InspectorProps>,
    timeline: Option<TimelineProps>,
}

struct Inner {
    state: Console,
    props: WidgetProps,
    me: Weak<Shared>,
    dom: Dom,
    shown: Shown,
    /// The clock's timer; dropped once the session is handed over.
    ticker: Option<Interval>,
    listeners: Vec<EventListener>,
    /// The full engine was asked for (`crate::handover`).
    asked_full: bool,
    painted: bool,
    rest: bool,
    chart: Option<AppHandle<TimelinePanel>>,
    timeline_label: AttrValue,
    on_zoom: Callback<Zoom>,
    on_close_inspector: Callback<()>,
}

impl Inner {
    fn new(host: &Element, props: WidgetProps, me: Weak<Shared>) -> Inner {
        let preset = &props.preset;
        // Virtual instant 0 is "now" unless the link pins it (wall time may be
        // read here, in the driver; the engine itself never reads it).
        let t0 = preset
            .t0
            .unwrap_or_else(|| (js_sys::Date::now() / 1000.0).floor() as u64);
        let state = Console::new(preset, t0, wall_ms);
        let timeline_label = AttrValue::from(panel_name("Timeline", props.host));
        let dom = Dom::build(
            host,
            props.shareable,
            state.zoom,
            props.host,
            &timeline_label,
        );
        let send = sender(&me);
        let tick = send.clone();
        let ticker = Interval::new(TICK_MS, move || tick(Msg::Do(Action::Tick)));
        let handover = send.clone();
        crate::handover::register(Box::new(move || handover(Msg::Handover)));
        let docs = send.clone();
        crate::docs::listen(Box::new(move |ok| docs(Msg::Do(Action::Docs(ok)))));
        let linked = send.clone();
        crate::dom::after_rest(move || linked(Msg::RestLinked));
        let zoom = send.clone();
        let close = send.clone();
        let listeners = events::listen(&dom.root, &send);
        Inner {
            state,
            props,
            me,
            dom,
            shown: Shown::default(),
            ticker: Some(ticker),
            listeners,
            asked_full: false,
            painted: false,
            rest: false,
            chart: None,
            timeline_label,
            on_zoom: Callback::from(move |z| zoom(Msg::Do(Action::Zoom(z)))),
            on_close_inspector: Callback::from(move |()| close(Msg::Do(Action::CloseInspector))),
        }
    }

    /// Stops the widget: its timer, listeners and Yew parts.
    fn retire(mut self) {
        self.ticker = None;
        self.listeners.clear();
        if let Some(chart) = self.chart.take() {
            chart.destroy();
        }
        if let Some((_, app)) = self.dom.inspector.take() {
            app.destroy();
        }
    }

    fn handle(&mut self, msg: Msg) {
        let render = match msg {
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
            Msg::RestLinked => {
                self.rest = true;
                true
            }
            Msg::Handover => {
                let link = self.state.share_link("", &self.state.share_text(), None);
                crate::handover::offer(self.props.host, &link);
                self.ticker = None;
                false
            }
            Msg::Key(e) => {
                let input = &self.dom.input.input;
                let out = self
                    .state
                    .key(&e.key(), e.ctrl_key(), || text_selected(input));
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
                let send = sender(&self.me);
                wasm_bindgen_futures::spawn_local(async move {
                    let packed = crate::links::pack(&text).await;
                    send(Msg::Packed(text, packed));
                });
                false
            }
            Msg::Packed(text, packed) => {
                self.open_share(&text, packed.as_deref());
                true
            }
            Msg::Focus => {
                // Clicking the console focuses the prompt, unless the click
                // ended a text selection the user wants to copy.
                if !page_has_selection() {
                    let _ = self.dom.input.input.focus();
                }
                false
            }
        };
        if render {
            self.render();
            self.after_render(false);
        }
    }

    /// Brings the elements up to the state.
    fn render(&mut self) {
        let st = &self.state;
        let dom = &mut self.dom;
        let shown = &mut self.shown;
        let paused = st.driver.mode == Mode::Paused;
        let now_us = st.engine.now_us();
        if shown.paused != Some(paused) {
            replace(&dom.clock, clock_buttons(paused));
            shown.paused = Some(paused);
        }
        dom.time.show(paused, now_us);
        if shown.share.as_ref() != Some(&st.share) {
            if let Some(old) = dom.share.take() {
                old.remove();
            }
            if let Some(s) = &st.share {
                let popover = share_popover(s).el();
                let _ = dom.toolbar.after_with_node_1(&popover);
                dom.share = Some(popover);
            }
            shown.share = Some(st.share.clone());
        }
        let tabs = (st.tabs(), st.active, st.can_add_client());
        if shown.tabs.as_ref() != Some(&tabs) {
            replace(&dom.tabs, client_tabs(&tabs.0, tabs.1, tabs.2));
            shown.tabs = Some(tabs);
        }
        let cur = st.current();
        let hint = if cur.waiting.is_some() {
            None
        } else {
            help::hint(&cur.input)
        };
        dom.input.show(&InputView {
            session: cur,
            prompt: st.prompt(st.active),
            hint,
            now_us,
        });
        dom.lines.show(&cur.lines, dom.input.first());
        let inspected_here = st
            .inspector
            .target
            .as_ref()
            .filter(|t| t.db == st.keys.db)
            .map(|t| t.key.clone());
        dom.keys.show(&PanelView {
            rows: st.keys.rows.clone(),
            count: st.keys.count,
            db: st.keys.db,
            pattern: st.keys.pattern.clone(),
            matched: st.keys.matched,
            selected: inspected_here,
        });
        // The Yew parts' code is compiled only once they show (neither
        // does in a first frame), so it is kept out of this function.
        if self.state.inspector.target.is_some() || self.dom.inspector.is_some() {
            self.render_inspector();
        }
        if self.painted && self.rest {
            self.render_chart();
        }
    }

    #[inline(never)]
    fn render_inspector(&mut self) {
        let st = &self.state;
        let Some(target) = &st.inspector.target else {
            if let Some((host, app)) = self.dom.inspector.take() {
                app.destroy();
                host.remove();
            }
            self.shown.inspector = None;
            return;
        };
        let props = InspectorProps {
            target: target.clone(),
            view: st.inspector.view.clone(),
            ttl_ms: st.inspector_ttl,
            notes: st.inspector.notes.clone(),
            on_close: self.on_close_inspector.clone(),
        };
        if self.shown.inspector.as_ref() == Some(&props) {
            return;
        }
        self.shown.inspector = Some(props.clone());
        match &mut self.dom.inspector {
            Some((_, app)) => app.update(props),
            None => {
                let host = El::new("div").cls("rs-inspector-host").el();
                let _ = self.dom.timeline.before_with_node_1(&host);
                let app = yew::Renderer::<InspectorPanel>::with_root_and_props(host.clone(), props)
                    .render();
                self.dom.inspector = Some((host, app));
            }
        }
    }

    /// The timeline's chart, once it may run (see the module's doc).
    #[inline(never)]
    fn render_chart(&mut self) {
        let st = &self.state;
        let t = &st.timeline;
        let props = TimelineProps {
            marks: t.marks.clone(),
            waits: t.waits.clone(),
            clients: st.sessions.len(),
            now_us: st.engine.now_us(),
            zoom: st.zoom,
            on_zoom: self.on_zoom.clone(),
            memory: t.memory.clone(),
            pending: t.pending.clone(),
            label: self.timeline_label.clone(),
        };
        // The callbacks are made once, so props compare equal when nothing
        // the component shows changed.
        if self.shown.timeline.as_ref() == Some(&props) {
            return;
        }
        self.shown.timeline = Some(props.clone());
        match &mut self.chart {
            Some(app) => app.update(props),
            None => {
                let app = yew::Renderer::<TimelinePanel>::with_root_and_props(
                    self.dom.timeline.clone(),
                    props,
                )
                .render();
                self.chart = Some(app);
            }
        }
    }

    /// What the page does after drawing: the docs, scrolling, focus.
    fn after_render(&mut self, first: bool) {
        if self.state.wants_full && !self.asked_full {
            self.asked_full = true;
            crate::handover::request();
        }
        if first {
            let send = sender(&self.me);
            after_next_paint(move || send(Msg::Painted));
        }
        let fx = &mut self.state.effects;
        // The command docs: at once if a command waits for them, otherwise
        // once the page is idle after its first reply.
        if std::mem::take(&mut fx.load_docs) {
            crate::docs::load(false);
        } else if first {
            after_next_paint(|| crate::docs::load(true));
        }
        // The screen starts at its end by itself (a reversed flex box, see
        // `.rs-screen` in the stylesheet): measuring it on the first render
        // would lay the whole page out before its first frame.
        if std::mem::take(&mut fx.scroll_to_end) && !first {
            let screen = &self.dom.screen;
            screen.set_scroll_top(screen.scroll_height());
        }
        if std::mem::take(&mut fx.focus_input) {
            let _ = self.dom.input.input.focus();
        } else if first && self.props.autofocus {
            // After the first frame: focusing lays the page out at once,
            // which would hold back the frame that shows the first reply.
            // Unless the reader has put the focus somewhere meanwhile.
            let input = self.dom.input.input.clone();
            after_next_paint(move || {
                let focus_elsewhere = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.active_element())
                    .is_some_and(|e| e.tag_name() != "BODY");
                if !crate::panic::is_dead() && !focus_elsewhere {
                    let _ = input.focus();
                }
            });
        }
        if std::mem::take(&mut fx.reveal_inspector) {
            if let Some((host, _)) = &self.dom.inspector {
                let opts = web_sys::ScrollIntoViewOptions::new();
                opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                opts.set_behavior(web_sys::ScrollBehavior::Smooth);
                host.scroll_into_view_with_scroll_into_view_options(&opts);
            }
        }
    }

    /// Builds the Share link of `session`, shows it and tries to copy it.
    fn open_share(&mut self, session: &str, packed: Option<&str>) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let link = self.state.share_link(&page_url(), session, packed);
        let promise = window.navigator().clipboard().write_text(&link);
        let copied = |ok: bool| {
            let send = sender(&self.me);
            Closure::<dyn FnMut(JsValue)>::once(move |_: JsValue| {
                send(Msg::Do(Action::Copied(ok)));
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

impl Dom {
    /// The widget's frame, in `host` (emptied first); `timeline_label` is
    /// the timeline's accessible name, which its chart keeps.
    fn build(
        host: &Element,
        shareable: bool,
        zoom: Zoom,
        host_index: usize,
        timeline_label: &str,
    ) -> Dom {
        let clock = El::new("div")
            .cls("rs-clock")
            .attr("role", "group")
            .attr("aria-label", "Virtual clock")
            .el();
        let time = TimeView::new();
        let mut toolbar = El::new("div")
            .cls("rs-toolbar")
            .child(El(clock.clone()))
            .child(El(time.root.clone()))
            .child(El::new("span").cls("rs-spacer"));
        if shareable {
            toolbar = toolbar
                .child(
                    El::new("button")
                        .cls("rs-btn")
                        .attr("data-action", "export")
                        .attr(
                            "title",
                            "Download this session as a script: redsim replay runs it against a real Redis",
                        )
                        .text("Export"),
                )
                .child(
                    El::new("button")
                        .cls("rs-btn")
                        .attr("data-action", "share")
                        .attr("title", "Copy a link that replays this session")
                        .text("Share"),
                );
        }
        let toolbar = toolbar.el();
        let tabs = El::new("div")
            .cls("rs-tabs")
            .attr("role", "group")
            .attr("aria-label", "Clients")
            .el();
        let body = El::new("div").cls("rs-screen-body").el();
        let screen = El::new("div")
            .cls("rs-screen")
            .attr("aria-live", "polite")
            .child(El(body.clone()))
            .el();
        let console = El::new("div")
            .cls("rs-console")
            .child(El(tabs.clone()))
            .child(El(screen.clone()));
        let keys = KeyspacePanel::new(&panel_name("Keyspace", host_index));
        let timeline = El::new("div")
            .cls("rs-timeline-host")
            .markup(&timeline_frame(zoom, timeline_label))
            .el();
        let root = El::new("div")
            .cls("rs-widget")
            .child(El(toolbar.clone()))
            .child(
                El::new("div")
                    .cls("rs-main")
                    .child(console)
                    .child(El(keys.root.clone())),
            )
            .child(El(timeline.clone()))
            .el();
        let input = InputArea::new(&body);
        host.set_text_content(None);
        let _ = host.append_child(&root);
        Dom {
            root,
            toolbar,
            clock,
            time,
            share: None,
            tabs,
            screen,
            lines: Scrollback::new(body),
            input,
            keys,
            inspector: None,
            timeline,
        }
    }
}

/// The accessible name of a widget's panel (`base`: "Keyspace",
/// "Timeline"): with the widget's number after the page's first, since the
/// landmarks of a page with several consoles must be told apart.
pub fn panel_name(base: &str, host: usize) -> String {
    if host == 0 {
        base.to_string()
    } else {
        format!("{base}, console {}", host + 1)
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
    let href = format!(
        "data:text/plain;charset=utf-8,{}",
        crate::url::encode_component(text)
    );
    let a = El::new("a").attr("href", &href).attr("download", name).el();
    if let Some(a) = a.dyn_ref::<web_sys::HtmlElement>() {
        a.click();
    }
}

/// True when the page or the prompt has a text selection (Ctrl+C copies it).
fn text_selected(input: &HtmlInputElement) -> bool {
    let in_prompt = matches!(
        (input.selection_start(), input.selection_end()),
        (Ok(Some(a)), Ok(Some(b))) if a != b
    );
    page_has_selection() || in_prompt
}

#[cfg(test)]
mod tests {
    use super::panel_name;

    #[test]
    fn panels_of_later_consoles_carry_their_number() {
        assert_eq!(panel_name("Keyspace", 0), "Keyspace");
        assert_eq!(panel_name("Timeline", 1), "Timeline, console 2");
        assert_ne!(panel_name("Keyspace", 1), panel_name("Keyspace", 2));
    }
}
