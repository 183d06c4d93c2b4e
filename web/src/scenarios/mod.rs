//! The scenario library: the catalogue grouped, a parameter form per scenario, runs in wasm on every change, and the outcome played back over virtual time (metrics, checks, notes, charts, strips and the race diagram drawn by redsim-viz).
//!
//! The same component serves the playground's Scenarios tab, shareable as
//! `?scenario=<id>&seed=N&<param>=<value>`, and documentation pages, where
//! an element with `data-redsim-scenario="<id>"` (plus optional `data-seed`
//! and `data-params="name=value&…"`) shows one scenario without the list.

mod form;
mod list;
mod live;
mod playback;
mod preset;
mod results;
mod state;

use gloo::events::EventListener;
use gloo::timers::callback::Interval;
use yew::prelude::*;

use crate::dom::{keep_ticking, page_path, push_url, replace_url, wall_ms};
use crate::keys;
use playback::TICK_MS;
pub use preset::ScenarioPreset;
use state::{Action, LibraryState};

#[derive(Properties, PartialEq, Clone)]
pub struct LibraryProps {
    pub preset: ScenarioPreset,
    /// One scenario without the catalogue list (a documentation element).
    #[prop_or_default]
    pub embedded: bool,
    /// Keep the page URL in step with the form, so the address bar is the share link.
    #[prop_or_default]
    pub shareable: bool,
    /// Whether the library is on screen; it runs nothing until it is.
    #[prop_or(true)]
    pub active: bool,
}

pub struct Library {
    state: LibraryState,
    ticker: Option<Interval>,
    /// Kept for its lifetime: dropping it stops listening.
    _popstate: Option<EventListener>,
    /// The page's shortcut keys, while the library is the tab shown.
    keys: Option<EventListener>,
    /// Window resizes re-measure the diagram's box.
    _resize: Option<EventListener>,
    diagram_ref: NodeRef,
    /// The diagram's markup and its playback in place.
    live: live::LiveDiagram,
    title_ref: NodeRef,
    keys_ref: NodeRef,
    /// The list of shortcuts was open at the last render.
    keys_shown: bool,
    /// Made once, so the form's props stay equal between playback's redraws.
    on_form: Callback<form::FormInput>,
}

/// The width of the diagram's box, px, once it is laid out.
fn box_width(r: &NodeRef) -> Option<f64> {
    let w = r.cast::<web_sys::Element>()?.client_width();
    (w > 0).then_some(w as f64)
}

/// Scrolls the diagram's box so the playback cursor (at `y` in the
/// drawing) stays in view, a third of the way down when it has to move.
fn follow_cursor(r: &NodeRef, y: f64) {
    let Some(el) = r.cast::<web_sys::Element>() else {
        return;
    };
    let (top, h) = (el.scroll_top() as f64, el.client_height() as f64);
    if y < top + 24.0 || y > top + h - 24.0 {
        el.set_scroll_top((y - h / 3.0).max(0.0) as i32);
    }
}

/// Scrolls the page so `r` is in view when it is not (wholly).
fn reveal(r: &NodeRef) {
    let Some(el) = r.cast::<web_sys::Element>() else {
        return;
    };
    let rect = el.get_bounding_client_rect();
    let vh = web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    if rect.top() < 0.0 || rect.bottom() > vh {
        let opts = web_sys::ScrollIntoViewOptions::new();
        opts.set_block(web_sys::ScrollLogicalPosition::Start);
        opts.set_behavior(web_sys::ScrollBehavior::Smooth);
        el.scroll_into_view_with_scroll_into_view_options(&opts);
    }
}

impl Library {
    /// While playing, keeps the diagram's cursor in view. Called both
    /// before a redraw (so the box has scrolled when the new cursor lands)
    /// and after it (when the layout changed).
    fn follow(&self) {
        let st = &self.state;
        if st.playback.playing {
            let diagram = st.outcome.as_ref().and_then(|o| o.diagram.as_ref());
            if let (Some(d), Some(c)) = (diagram, st.playback.cursor()) {
                follow_cursor(
                    &self.diagram_ref,
                    redsim_viz::diagram_cursor_y(d, c, st.diagram_w),
                );
            }
        }
    }

    /// Starts or stops the playback timer as the state plays or pauses,
    /// and moves the address bar when the form changed.
    fn sync(&mut self, ctx: &Context<Self>) {
        // Shortcut keys belong to the page's library while it is shown.
        let want_keys = ctx.props().shareable && ctx.props().active;
        if want_keys != self.keys.is_some() {
            self.keys = if want_keys {
                keys::listen(ctx.link().callback(Action::Key))
            } else {
                None
            };
        }
        let playing = self.state.playback.playing;
        keep_ticking(&mut self.ticker, playing, TICK_MS, ctx.link(), || {
            Action::Tick
        });
        let push = std::mem::take(&mut self.state.history_due);
        if std::mem::take(&mut self.state.url_due) && ctx.props().shareable {
            if let Some(url) = self.state.link(&page_path()) {
                if push {
                    push_url(&url);
                } else {
                    replace_url(&url);
                }
            }
        }
    }
}

impl Component for Library {
    type Message = Action;
    type Properties = LibraryProps;

    fn create(ctx: &Context<Self>) -> Self {
        // Back and Forward between scenarios chosen here: the address
        // names the scenario and its form, which this one then shows.
        let popstate = ctx.props().shareable.then(|| {
            let link = ctx.link().clone();
            web_sys::window().map(|w| {
                gloo::events::EventListener::new(&w, "popstate", move |_| {
                    let Some(loc) = web_sys::window().map(|w| w.location()) else {
                        return;
                    };
                    let search = loc.search().unwrap_or_default();
                    let hash = loc.hash().unwrap_or_default();
                    link.send_message(Action::Open(ScenarioPreset::from_url(&search, &hash)));
                })
            })
        });
        let diagram_ref = NodeRef::default();
        let resize = web_sys::window().map(|w| {
            let (link, r) = (ctx.link().clone(), diagram_ref.clone());
            EventListener::new(&w, "resize", move |_| {
                if let Some(w) = box_width(&r) {
                    link.send_message(Action::Width(w));
                }
            })
        });
        let mut lib = Library {
            state: LibraryState::new(&ctx.props().preset, wall_ms),
            ticker: None,
            _popstate: popstate.flatten(),
            keys: None,
            _resize: resize,
            diagram_ref,
            live: live::LiveDiagram::default(),
            title_ref: NodeRef::default(),
            keys_ref: NodeRef::default(),
            keys_shown: false,
            on_form: ctx.link().callback(Action::Form),
        };
        if ctx.props().active {
            lib.state.run(false);
        }
        lib.sync(ctx);
        lib
    }

    fn rendered(&mut self, ctx: &Context<Self>, _first_render: bool) {
        if let Some(w) = box_width(&self.diagram_ref) {
            if (w - self.state.diagram_w).abs() >= 1.0 {
                ctx.link().send_message(Action::Width(w));
            }
        }
        if let (Some(o), Some(el)) = (
            self.state.outcome.as_ref(),
            self.diagram_ref.cast::<web_sys::Element>(),
        ) {
            let cursor = self.state.playback.cursor();
            self.live.apply(&el, o, cursor, self.state.diagram_w);
        }
        self.follow();
        if std::mem::take(&mut self.state.title_due) {
            reveal(&self.title_ref);
        }
        if self.state.keys_open && !self.keys_shown {
            if let Some(d) = self.keys_ref.cast::<web_sys::HtmlElement>() {
                let _ = d.focus();
            }
        }
        self.keys_shown = self.state.keys_open;
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Self::Properties) -> bool {
        if ctx.props().active && !self.state.tried {
            self.state.run(false);
        }
        if !ctx.props().active {
            self.state.playback.playing = false;
        }
        self.sync(ctx);
        true
    }

    fn update(&mut self, ctx: &Context<Self>, action: Action) -> bool {
        if crate::panic::is_dead() {
            return false;
        }
        let render = self.state.apply(action);
        self.sync(ctx);
        self.follow();
        render
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let st = &self.state;
        let embedded = ctx.props().embedded;
        html! {
            <div class={ classes!("rs-scen", embedded.then_some("rs-scen-embedded")) }>
                if !embedded {
                    { list::catalogue(&st.infos, st.selected, &link.callback(Action::Select)) }
                }
                <section class="rs-scen-main">
                    if let Some(info) = st.info() {
                        <header class="rs-scen-head">
                            <span class="rs-scen-group">{ info.group }</span>
                            <h2 class="rs-scen-title" ref={ self.title_ref.clone() }>{ info.title }</h2>
                            <p class="rs-scen-claim">{ info.claim }</p>
                            <details class="rs-scen-look" open={ !embedded }>
                                <summary>{ "What to look for" }</summary>
                                <p>{ info.look_for }</p>
                            </details>
                        </header>
                        <form::ScenarioForm id={ info.id } values={ st.values.clone() } seed={ st.seed } on={ self.on_form.clone() } />
                        if ctx.props().shareable {
                            if let Some(url) = st.link(&crate::dom::page_url()) {
                                { crate::dom::share_field("Share this run", &url) }
                            }
                        }
                    } else {
                        <p class="rs-scen-empty">{ "No scenarios yet: the catalogue is empty." }</p>
                    }
                    if let Some(n) = &st.notice {
                        <p class="rs-scen-error rs-scen-notice" role="status">{ n }</p>
                    }
                    if let Some(e) = &st.error {
                        <p class="rs-scen-error" role="alert">{ e }</p>
                    }
                    if let Some(o) = &st.outcome {
                        { results::results(o, st, self.live.markup(o, st.diagram_w), &self.diagram_ref, &link.callback(Action::Play)) }
                    }
                    if st.keys_open {
                        { keys::help_dialog(keys::PLAYBACK_KEYS, &self.keys_ref, link.callback(|_| Action::CloseKeys)) }
                    }
                </section>
            </div>
        }
    }
}
