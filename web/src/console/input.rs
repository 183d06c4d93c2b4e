//! The prompt line, with the hint ghost behind it, and above it the status line of a client that waits in a blocking command (with its Ctrl+C button) or listens to channels.
//!
//! The elements stay: the `<input>` keeps its focus, caret and selection
//! while the console changes around it, and the Ctrl+C button is not
//! replaced under a pointer about to click it.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};

use super::session::{subscribed_text, waiting_text, Session};
use crate::ui::{set_text, toggle, El};

/// What the input area shows.
pub struct InputView<'a> {
    pub session: &'a Session,
    pub prompt: String,
    pub hint: Option<String>,
    pub now_us: u64,
}

/// A status line above the prompt, and its text.
struct Status {
    line: Element,
    text: Element,
}

/// The input area's elements.
pub struct InputArea {
    body: Element,
    wait: Option<Status>,
    sub: Option<Status>,
    line: Element,
    prompt: Element,
    typed: Element,
    hint: Element,
    pub input: HtmlInputElement,
}

impl InputArea {
    /// Builds the prompt line at the end of the screen's `body`.
    pub fn new(body: &Element) -> InputArea {
        let prompt = El::new("span").cls("rs-prompt").el();
        let typed = El::new("span").cls("rs-ghost-typed").el();
        let hint = El::new("span").cls("rs-hint").el();
        let input = El::new("input")
            .cls("rs-input")
            .attr("type", "text")
            .attr("spellcheck", "false")
            .attr("autocomplete", "off")
            .attr("autocapitalize", "off")
            .el();
        let line = El::new("div")
            .cls("rs-inputline")
            .child(El(prompt.clone()))
            .child(
                El::new("div")
                    .cls("rs-inputwrap")
                    .child(
                        El::new("div")
                            .cls("rs-ghost")
                            .attr("aria-hidden", "true")
                            .child(El(typed.clone()))
                            .child(El(hint.clone())),
                    )
                    .child(El(input.clone())),
            )
            .el();
        let _ = body.append_child(&line);
        InputArea {
            body: body.clone(),
            wait: None,
            sub: None,
            line,
            prompt,
            typed,
            hint,
            input: input.unchecked_into(),
        }
    }

    /// The area's first node: scrollback lines go before it.
    pub fn first(&self) -> &Element {
        self.wait
            .as_ref()
            .or(self.sub.as_ref())
            .map_or(&self.line, |s| &s.line)
    }

    pub fn show(&mut self, v: &InputView) {
        let cur = v.session;
        let waiting = cur.waiting.as_ref();
        let wait_text = waiting.map(|w| waiting_text(w, v.now_us));
        let sub_text = (waiting.is_none() && cur.subscriptions > 0)
            .then(|| subscribed_text(cur.subscriptions));
        status(&self.body, &self.line, &mut self.sub, sub_text, sub_line);
        let before = self.sub.as_ref().map_or(&self.line, |s| &s.line).clone();
        status(&self.body, &before, &mut self.wait, wait_text, wait_line);
        toggle(&self.line, "rs-locked", waiting.is_some());
        set_text(&self.prompt, &v.prompt);
        set_text(&self.typed, &cur.input);
        set_text(&self.hint, v.hint.as_deref().unwrap_or_default());
        // Written only when it differs: writing the same value would move
        // the caret to the end.
        if self.input.value() != cur.input {
            self.input.set_value(&cur.input);
        }
        self.input.set_read_only(waiting.is_some());
        let label = format!("Redis command for {}", cur.label());
        if self.input.get_attribute("aria-label").as_deref() != Some(label.as_str()) {
            let _ = self.input.set_attribute("aria-label", &label);
        }
    }
}

/// Shows, updates or removes one status line (placed before `before`).
fn status(
    body: &Element,
    before: &Element,
    slot: &mut Option<Status>,
    text: Option<String>,
    build: fn(&Element) -> Element,
) {
    match (slot.as_ref(), text) {
        (Some(s), Some(t)) => set_text(&s.text, &t),
        (None, Some(t)) => {
            let text = El::new("span").cls("rs-wait-text").text(&t).el();
            let line = build(&text);
            let _ = body.insert_before(&line, Some(before));
            *slot = Some(Status { line, text });
        }
        (Some(_), None) => {
            if let Some(s) = slot.take() {
                s.line.remove();
            }
        }
        (None, None) => {}
    }
}

fn wait_line(text: &Element) -> Element {
    El::new("div")
        .cls("rs-waitline")
        .attr("role", "status")
        .child(El::new("span").cls("rs-spinner").attr("aria-hidden", "true"))
        .child(El(text.clone()))
        .child(
            El::new("button")
                .cls("rs-btn rs-wait-cancel")
                .attr("data-action", "cancel-wait")
                .attr(
                    "title",
                    "Cancel the wait as Ctrl+C does in redis-cli: the client disconnects and reconnects",
                )
                .text("Ctrl+C"),
        )
        .el()
}

fn sub_line(text: &Element) -> Element {
    El::new("div")
        .cls("rs-subline")
        .attr("role", "status")
        .child(
            El::new("span")
                .cls("rs-sub-dot")
                .attr("aria-hidden", "true"),
        )
        .child(El(text.clone()))
        .el()
}
