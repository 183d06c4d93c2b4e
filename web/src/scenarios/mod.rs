//! The scenario library: the catalogue grouped, a parameter form per scenario, runs in wasm on every change, and the outcome played back over virtual time (metrics, checks, notes, charts, strips and the race diagram drawn by redsim-viz).
//!
//! The same component serves the playground's Scenarios tab, shareable as
//! `?scenario=<id>&seed=N&<param>=<value>`, and documentation pages, where
//! an element with `data-redsim-scenario="<id>"` (plus optional `data-seed`
//! and `data-params="name=value&…"`) shows one scenario without the list.

mod form;
mod list;
mod playback;
mod preset;
mod results;
mod state;

use gloo::timers::callback::Interval;
use yew::prelude::*;

use crate::dom::{keep_ticking, page_path, push_url, replace_url, wall_ms};
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
    _popstate: Option<gloo::events::EventListener>,
}

impl Library {
    /// Starts or stops the playback timer as the state plays or pauses,
    /// and moves the address bar when the form changed.
    fn sync(&mut self, ctx: &Context<Self>) {
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
        let mut lib = Library {
            state: LibraryState::new(&ctx.props().preset, wall_ms),
            ticker: None,
            _popstate: popstate.flatten(),
        };
        if ctx.props().active {
            lib.state.run(false);
        }
        lib
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
                            <h2 class="rs-scen-title">{ info.title }</h2>
                            <p class="rs-scen-claim">{ info.claim }</p>
                            <details class="rs-scen-look" open={ !embedded }>
                                <summary>{ "What to look for" }</summary>
                                <p>{ info.look_for }</p>
                            </details>
                        </header>
                        { form::form(info, &st.values, st.seed, &link.callback(Action::Form)) }
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
                        { results::results(o, &st.playback, st.took_ms, &link.callback(Action::Play)) }
                    }
                </section>
            </div>
        }
    }
}
