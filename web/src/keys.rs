//! Keyboard shortcuts outside the console: Space plays or pauses, ← and → step, [ and ] change the speed, ? lists the shortcuts in a dialog that Escape closes; never while the focus is in a form field or the console.
//!
//! A view that has a play bar listens with [`listen`] while it is shown and
//! maps each [`Shortcut`] onto its own actions; [`help_dialog`] draws the
//! list it offers.

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What a key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortcut {
    PlayPause,
    Prev,
    Next,
    Slower,
    Faster,
    Help,
    /// Escape: close the list.
    Close,
}

/// The shortcut of a key (`KeyboardEvent.key`), without Ctrl, Alt or Meta.
pub fn shortcut(key: &str) -> Option<Shortcut> {
    Some(match key {
        " " | "Spacebar" => Shortcut::PlayPause,
        "ArrowLeft" => Shortcut::Prev,
        "ArrowRight" => Shortcut::Next,
        "[" => Shortcut::Slower,
        "]" => Shortcut::Faster,
        "?" => Shortcut::Help,
        "Escape" | "Esc" => Shortcut::Close,
        _ => return None,
    })
}

/// Tags whose keys are the reader's typing, never a shortcut.
fn typing_tag(tag: &str) -> bool {
    matches!(
        tag.to_ascii_lowercase().as_str(),
        "input" | "textarea" | "select"
    )
}

/// Whether a key pressed with the focus on `el` is the reader typing: a
/// form field, something editable, or anywhere in the console.
fn typing_in(el: &web_sys::Element) -> bool {
    typing_tag(&el.tag_name())
        || el
            .get_attribute("contenteditable")
            .is_some_and(|v| v != "false")
        || el.closest(".rs-widget").ok().flatten().is_some()
}

/// Listens to the page's keys while the returned listener lives; `on` gets
/// each shortcut pressed outside form fields and the console (the key's
/// default, such as Space scrolling the page or pressing a button, is
/// prevented).
pub fn listen(on: Callback<Shortcut>) -> Option<EventListener> {
    let doc = web_sys::window()?.document()?;
    let opts = EventListenerOptions::enable_prevent_default();
    Some(EventListener::new_with_options(
        &doc,
        "keydown",
        opts,
        move |e| {
            let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                return;
            };
            if k.ctrl_key() || k.alt_key() || k.meta_key() || k.default_prevented() {
                return;
            }
            let focus = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element());
            if focus.as_ref().is_some_and(typing_in) {
                return;
            }
            if let Some(s) = shortcut(&k.key()) {
                e.prevent_default();
                on.emit(s);
            }
        },
    ))
}

/// The keys a play bar offers, for the list.
pub const PLAYBACK_KEYS: &[(&str, &str)] = &[
    ("Space", "play or pause"),
    ("← / →", "previous or next event"),
    ("[ / ]", "slower or faster"),
    ("?", "show or hide this list"),
    ("Esc", "close this list"),
];

/// The keys the Topology tab offers (a live world has no going back).
pub const TOPOLOGY_KEYS: &[(&str, &str)] = &[
    ("Space", "play or pause"),
    ("→", "forward 0.1 s"),
    ("[ / ]", "slower or faster"),
    ("?", "show or hide this list"),
    ("Esc", "close this list"),
];

/// The list of shortcuts, as a dialog with a Close button; `focus` is the
/// dialog itself, for the view to focus when it opens.
pub fn help_dialog(keys: &[(&str, &str)], focus: &NodeRef, on_close: Callback<()>) -> Html {
    html! {
        <div class="rs-shortcuts" role="dialog" aria-label="Keyboard shortcuts" tabindex="-1" ref={ focus.clone() }>
            <h3 class="rs-shortcuts-title">{ "Keyboard shortcuts" }</h3>
            <dl class="rs-shortcuts-list">
                { for keys.iter().map(|(k, what)| html! {
                    <>
                        <dt><kbd>{ *k }</kbd></dt>
                        <dd>{ *what }</dd>
                    </>
                }) }
            </dl>
            <p class="rs-shortcuts-note">{ "Not while typing in a field or the console." }</p>
            <button class="rs-btn rs-shortcuts-close" data-action="close-keys" onclick={ on_close.reform(|_| ()) }>{ "Close" }</button>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_shortcuts() {
        assert_eq!(shortcut(" "), Some(Shortcut::PlayPause));
        assert_eq!(shortcut("ArrowRight"), Some(Shortcut::Next));
        assert_eq!(shortcut("["), Some(Shortcut::Slower));
        assert_eq!(shortcut("?"), Some(Shortcut::Help));
        assert_eq!(shortcut("Escape"), Some(Shortcut::Close));
        assert_eq!(shortcut("a"), None);
        assert!(typing_tag("INPUT") && typing_tag("textarea") && typing_tag("select"));
        assert!(!typing_tag("button"));
    }
}
