//! The Lessons tab: the course's chapters (from redsim-course) with progress, one step at a time with its own engine and console, checked by the same checker `redsim lessons --check` proves the course with.
//!
//! The same component serves the playground's Lessons tab, shareable as
//! `?tab=lessons&lesson=<chapter>&step=<n>`, and documentation pages, where
//! an element with `data-redsim-lesson="<chapter>"` (plus an optional
//! `data-redsim-step="<n>"`, which pins that one step) embeds a chapter.
//! Progress lives in localStorage, per chapter.

mod list;
mod preset;
pub mod progress;
mod state;
mod step;

use yew::prelude::*;

use crate::dom::{page_path, replace_url};
pub use preset::LessonPreset;
use state::{Action, LessonsState};

#[derive(Properties, PartialEq, Clone)]
pub struct LessonsProps {
    pub preset: LessonPreset,
    /// One chapter without the chapter list (a documentation element).
    #[prop_or_default]
    pub embedded: bool,
    /// Keep the page URL in step with the step shown.
    #[prop_or_default]
    pub shareable: bool,
}

pub struct Lessons {
    state: LessonsState,
    input_ref: NodeRef,
}

impl Lessons {
    /// Stores progress and moves the address bar when the state asks.
    fn sync(&mut self, ctx: &Context<Self>) {
        if std::mem::take(&mut self.state.save_due) {
            progress::save(&self.state.progress);
        }
        if std::mem::take(&mut self.state.url_due) && ctx.props().shareable {
            replace_url(&self.state.link(&page_path()));
        }
    }
}

impl Component for Lessons {
    type Message = Action;
    type Properties = LessonsProps;

    fn create(ctx: &Context<Self>) -> Self {
        let p = &ctx.props().preset;
        let mut state = LessonsState::new(p.chapter.as_deref(), p.step, progress::load());
        state.locked = ctx.props().embedded && p.step.is_some() && state.notice.is_none();
        Lessons {
            state,
            input_ref: NodeRef::default(),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, action: Action) -> bool {
        if crate::panic::is_dead() {
            return false;
        }
        let focus = matches!(action, Action::Run | Action::Restart);
        let render = self.state.apply(action);
        self.sync(ctx);
        if focus {
            if let Some(input) = self.input_ref.cast::<web_sys::HtmlInputElement>() {
                let _ = input.focus();
            }
        }
        render
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let st = &self.state;
        let embedded = ctx.props().embedded;
        let send = link.callback(|a: Action| a);
        let chapter = st.current_chapter();
        let done = st
            .progress
            .count(chapter.id, chapter.steps.iter().map(|s| s.id));
        html! {
            <div class={ classes!("rs-lessons", embedded.then_some("rs-lessons-embedded")) }>
                if !embedded {
                    { list::chapters(&st.chapters, st.chapter, &st.progress, &link.callback(Action::OpenChapter)) }
                }
                <section class="rs-lesson-main" data-lesson={ chapter.id }>
                    <header class="rs-lesson-head">
                        <span class="rs-lesson-group">{ format!("Chapter {}", st.chapter + 1) }</span>
                        <h2 class="rs-lesson-title">{ chapter.title }</h2>
                        <p class="rs-lesson-claim">{ chapter.summary }</p>
                        <div class="rs-lesson-progress">
                            <span data-progress={ format!("{done}/{}", chapter.steps.len()) }>
                                { format!("{done} of {} steps done", chapter.steps.len()) }
                            </span>
                            <button class="rs-btn rs-btn-small" data-action="lesson-reset"
                                    title="Forget this chapter's progress"
                                    onclick={ link.callback(|_: MouseEvent| Action::ResetChapter) }>{ "Reset progress" }</button>
                        </div>
                        if ctx.props().shareable {
                            { crate::dom::share_field("Share this step", &st.link(&crate::dom::page_url())) }
                        }
                        if !st.locked {
                            <ol class="rs-step-pills" aria-label="Steps">
                                { for chapter.steps.iter().enumerate().map(|(i, s)| {
                                    let on = i == st.step;
                                    let ok = st.progress.is_done(chapter.id, s.id);
                                    html! {
                                        <li>
                                            <button class={ classes!("rs-step-pill", on.then_some("rs-on"), ok.then_some("rs-done")) }
                                                    data-step={ (i + 1).to_string() } title={ s.title }
                                                    aria-current={ on.then_some("step") }
                                                    onclick={ link.callback(move |_: MouseEvent| Action::Go(i)) }>
                                                { if ok { "✓".to_string() } else { (i + 1).to_string() } }
                                            </button>
                                        </li>
                                    }
                                }) }
                            </ol>
                        }
                    </header>
                    if let Some(n) = &st.notice {
                        <p class="rs-scen-error rs-scen-notice" role="status">{ n }</p>
                    }
                    { step::step_view(st, &send, &self.input_ref) }
                </section>
            </div>
        }
    }
}
