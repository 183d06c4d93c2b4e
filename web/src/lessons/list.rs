//! The chapter list: every chapter in order with how many of its steps passed, the one shown marked.

use redsim_course::Chapter;
use yew::prelude::*;

use super::progress::Progress;

/// The list; `on_open` gets the index of the chapter clicked.
pub fn chapters(
    chapters: &[Chapter],
    shown: usize,
    progress: &Progress,
    on_open: &Callback<usize>,
) -> Html {
    html! {
        <nav class="rs-lesson-list" aria-label="Lessons">
            <h3 class="rs-scen-grouphead">{ "Chapters" }</h3>
            { for chapters.iter().enumerate().map(|(i, c)| {
                let on = i == shown;
                let done = progress.count(c.id, c.steps.iter().map(|s| s.id));
                let all = done == c.steps.len();
                html! {
                    <button class={ classes!("rs-lesson-item", on.then_some("rs-on"), all.then_some("rs-done")) }
                            data-lesson={ c.id } aria-current={ on.then_some("true") } title={ c.summary }
                            onclick={ on_open.reform(move |_| i) }>
                        <span class="rs-lesson-num">{ i + 1 }</span>
                        <span class="rs-lesson-name">{ c.title }</span>
                        <span class="rs-lesson-count" data-progress={ format!("{done}/{}", c.steps.len()) }>
                            { format!("{done}/{}", c.steps.len()) }
                        </span>
                    </button>
                }
            }) }
        </nav>
    }
}
