//! A panic never leaves a dead page: the hook logs it, marks this wasm instance dead, and lays an overlay with the error and a Reset button over every widget.
//!
//! A wasm panic aborts the instance mid-call, so nothing in Rust can run the
//! reset. The button is therefore handled by the page's loader
//! (`redsim.js`, one delegated click listener, so a strict CSP allows it):
//! `window.redsimReset()` mounts a fresh instance into fresh host elements.
//! Traps that are not panics (an allocation past what wasm memory can grow
//! to) skip this hook; the loader draws the same overlay for them.
//! Callbacks of the dead instance that still fire (timers, promises) check
//! [`is_dead`] and do nothing.

use std::sync::atomic::{AtomicBool, Ordering};

use wasm_bindgen::JsCast;

static DEAD: AtomicBool = AtomicBool::new(false);

/// True once this instance has panicked.
pub fn is_dead() -> bool {
    DEAD.load(Ordering::Relaxed)
}

/// Installs the hook (before Yew's renderer would install its own).
pub fn install() {
    yew::set_custom_panic_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        if !DEAD.swap(true, Ordering::Relaxed) {
            show_overlay(&info.to_string());
        }
    }));
}

/// Builds the overlay with DOM calls only; failures are ignored, there is
/// nothing better to do inside a panic hook.
fn show_overlay(message: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for host in crate::dom::hosts(&doc) {
        let _ = overlay_into(&doc, &host, message);
    }
}

fn overlay_into(
    doc: &web_sys::Document,
    host: &web_sys::Element,
    message: &str,
) -> Result<(), wasm_bindgen::JsValue> {
    let el = |tag: &str, class: &str, text: &str| -> Result<web_sys::Node, wasm_bindgen::JsValue> {
        let e = doc.create_element(tag)?;
        e.set_class_name(class);
        if !text.is_empty() {
            e.set_text_content(Some(text));
        }
        Ok(e.into())
    };
    let overlay: web_sys::Element = el("div", "rs-crash", "")?.unchecked_into();
    overlay.set_attribute("role", "alertdialog")?;
    let panel = el("div", "rs-crash-box", "")?;
    panel.append_child(&el("h3", "", "The playground crashed")?)?;
    panel.append_child(&el(
        "p",
        "",
        "Redsim hit a bug and stopped. Reset starts it again from this page's link; \
         the error below says what went wrong.",
    )?)?;
    panel.append_child(&el("pre", "rs-crash-msg", message)?)?;
    let button: web_sys::Element =
        el("button", "rs-btn rs-primary rs-crash-reset", "Reset")?.unchecked_into();
    button.set_attribute("type", "button")?;
    panel.append_child(&button)?;
    overlay.append_child(&panel)?;
    host.append_child(&overlay)?;
    Ok(())
}
