//! The bottom of a console: the line saying the client waits in a blocking command (with its Ctrl+C button) or reads subscribed messages, and the prompt with its input, the typed text echoed under a grey syntax hint.

use yew::prelude::*;

use super::session::{subscribed_text, waiting_text, Session};

/// What the input line needs beyond the session.
pub struct InputLine<'a> {
    pub session: &'a Session,
    pub prompt: String,
    /// The grey hint after the typed text.
    pub hint: Option<String>,
    pub now_us: u64,
    pub input_ref: NodeRef,
    pub on_input: Callback<InputEvent>,
    pub on_key: Callback<KeyboardEvent>,
    /// The Ctrl+C button of a waiting client.
    pub on_cancel: Callback<MouseEvent>,
}

/// The status lines and the prompt.
pub fn input_line(p: InputLine) -> Html {
    let cur = p.session;
    let waiting = cur.waiting.as_ref();
    html! {
        <>
            if let Some(w) = waiting {
                <div class="rs-waitline" role="status">
                    <span class="rs-spinner" aria-hidden="true"></span>
                    <span class="rs-wait-text">{ waiting_text(w, p.now_us) }</span>
                    <button class="rs-btn rs-wait-cancel" data-action="cancel-wait"
                            title="Cancel the wait as Ctrl+C does in redis-cli: the client disconnects and reconnects"
                            onclick={ p.on_cancel }>{ "Ctrl+C" }</button>
                </div>
            }
            if waiting.is_none() && cur.subscriptions > 0 {
                <div class="rs-subline" role="status">
                    <span class="rs-sub-dot" aria-hidden="true"></span>
                    <span class="rs-wait-text">{ subscribed_text(cur.subscriptions) }</span>
                </div>
            }
            <div class={ classes!("rs-inputline", waiting.is_some().then_some("rs-locked")) }>
                <span class="rs-prompt">{ p.prompt }</span>
                <div class="rs-inputwrap">
                    <div class="rs-ghost" aria-hidden="true">
                        <span class="rs-ghost-typed">{ &cur.input }</span>
                        <span class="rs-hint">{ p.hint.unwrap_or_default() }</span>
                    </div>
                    <input class="rs-input" ref={ p.input_ref } type="text"
                           value={ cur.input.clone() } oninput={ p.on_input } onkeydown={ p.on_key }
                           readonly={ waiting.is_some() }
                           spellcheck="false" autocomplete="off" autocapitalize="off"
                           aria-label={ format!("Redis command for {}", cur.label()) } />
                </div>
            </div>
        </>
    }
}
