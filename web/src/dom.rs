//! The few browser calls every view makes, written once: the page's host elements, its monotonic clock, animation timers, the address bar, the text selection, form values from events, and SVG markup injected as-is.

use gloo::timers::callback::Interval;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::events::FocusEvent;
use yew::html::Scope;
use yew::{html, AttrValue, Callback, Component, Html, TargetCast};

/// Elements a widget is mounted into.
pub const HOST_SELECTOR: &str =
    "[data-redsim], #redsim, [data-redsim-scenario], [data-redsim-topology], [data-redsim-lesson]";

/// A bar filled to `pct` percent, as an SVG rectangle: its width is a
/// presentation attribute, which a strict Content-Security-Policy
/// (`style-src 'self'`) allows where an inline `style` is dropped. The
/// fill's colour comes from `class` in the stylesheet.
pub fn bar(class: &'static str, pct: f64) -> Html {
    yew::html! {
        <svg class="rs-bar-svg" viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true">
            <rect class={ class } width={ crate::ui::bar_width(pct) } height="1" />
        </svg>
    }
}

/// The page's host elements, in document order.
pub fn hosts(doc: &web_sys::Document) -> Vec<web_sys::Element> {
    let Ok(list) = doc.query_selector_all(HOST_SELECTOR) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .collect()
}

/// Wall time in ms from the page's monotonic clock (the date where there is none).
pub fn wall_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Keeps `timer` running exactly while `running`: a timer sending `tick()`
/// to the component every `ms`, started when it should run and is not, and
/// dropped (which stops it) when it should not.
pub fn keep_ticking<C: Component>(
    timer: &mut Option<Interval>,
    running: bool,
    ms: u32,
    link: &Scope<C>,
    tick: fn() -> C::Message,
) {
    if !running {
        *timer = None;
    } else if timer.is_none() {
        let link = link.clone();
        *timer = Some(Interval::new(ms, move || link.send_message(tick())));
    }
}

/// Markup drawn elsewhere (redsim-viz's SVG strings), inserted as it is.
pub fn raw_html(markup: String) -> Html {
    Html::from_html_unchecked(AttrValue::from(markup))
}

/// The page's path, the base of the links the address bar follows.
pub fn page_path() -> String {
    web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_default()
}

/// The page's origin and path, the base of links meant to be copied.
pub fn page_url() -> String {
    web_sys::window()
        .map(|w| {
            let l = w.location();
            format!(
                "{}{}",
                l.origin().unwrap_or_default(),
                l.pathname().unwrap_or_default()
            )
        })
        .unwrap_or_default()
}

/// A Share field: `label` and the link, read-only, selected when focused so
/// it can be copied (the tabs whose address bar is their link show it too).
pub fn share_field(label: &str, url: &str) -> Html {
    html! {
        <label class="rs-sharefield">
            <span>{ label.to_string() }</span>
            <input class="rs-sharefield-link" type="text" readonly=true value={ url.to_string() }
                   onfocus={ Callback::from(|e: FocusEvent| {
                       let i: HtmlInputElement = e.target_unchecked_into();
                       i.select();
                   }) } />
        </label>
    }
}

/// Puts `url` in the address bar as a new history entry, without a reload:
/// Back returns to the address before it.
pub fn push_url(url: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.push_state_with_url(&JsValue::NULL, "", Some(url));
    }
}

/// Puts `url` in the address bar without a history entry or a reload.
pub fn replace_url(url: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(url));
    }
}

/// True when the page has a text selection (the user may want to copy it).
pub fn page_has_selection() -> bool {
    web_sys::window()
        .and_then(|w| w.get_selection().ok().flatten())
        .is_some_and(|s| !s.is_collapsed())
}

/// The value of the `<input>` an event came from.
pub fn input_value(e: &impl TargetCast) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

/// Whether the checkbox an event came from is checked.
pub fn input_checked(e: &impl TargetCast) -> bool {
    e.target_unchecked_into::<HtmlInputElement>().checked()
}

/// The value of the `<select>` an event came from.
pub fn select_value(e: &impl TargetCast) -> String {
    e.target_unchecked_into::<HtmlSelectElement>().value()
}

/// Whether a host element holds a lab view (the lab module mounts it).
pub fn is_lab_host(host: &web_sys::Element) -> bool {
    host.has_attribute("data-redsim-scenario")
        || host.has_attribute("data-redsim-lesson")
        || host.has_attribute("data-redsim-topology")
}

/// Places the console module left for lab views: the shell's tabs and an
/// iframe's widget.
pub fn lab_places(doc: &web_sys::Document) -> Vec<web_sys::Element> {
    let Ok(list) = doc.query_selector_all("[data-redsim-lab-tab], [data-redsim-lab-minimal]")
    else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .collect()
}

/// The event on `window` by which the shell says its tab changed (the lab
/// module's views learn whether they are shown from it).
pub const TAB_EVENT: &str = "redsim-tab";

/// The shell's tab shown, from the body's `data-redsim-tab`.
pub fn shown_tab() -> Option<String> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
        .and_then(|b| b.get_attribute("data-redsim-tab"))
}

/// Records the tab shown on the body and, with `tell`, tells the lab
/// module's views by a [`TAB_EVENT`].
pub fn announce_tab(name: &str, tell: bool) {
    let Some(w) = web_sys::window() else {
        return;
    };
    if let Some(body) = w.document().and_then(|d| d.body()) {
        let _ = body.set_attribute("data-redsim-tab", name);
    }
    if !tell {
        return;
    }
    if let Ok(e) = web_sys::Event::new(TAB_EVENT) {
        let _ = w.dispatch_event(&e);
    }
}

/// Asks the loader (`window.redsimLoadLab`, `assets/redsim.js`) for the lab
/// module, once the current task has finished. The loader fetches it once
/// per instance; calling again is free.
pub fn load_lab() {
    request_lab(false);
}

/// [`load_lab`] for lab widgets beside consoles (a documentation page): the
/// loader waits until the page has drawn and is idle, so the lab's download
/// does not compete with a console's first reply.
pub fn load_lab_later() {
    request_lab(true);
}

fn request_lab(later: bool) {
    call_loader("redsimLoadLab", later);
}

/// Calls the loader's `window.<name>(arg)` (`assets/redsim.js`) once the
/// current task has finished, so the call never runs inside a render.
pub fn call_loader(name: &'static str, arg: bool) {
    gloo::timers::callback::Timeout::new(0, move || {
        if let Some(f) = loader_fn(name) {
            let _ = f.call1(&JsValue::UNDEFINED, &JsValue::from_bool(arg));
        }
    })
    .forget();
}

/// The loader's function `window.<name>` (`assets/redsim.js`), if the page
/// has it (a development server's page has no loader).
fn loader_fn(name: &str) -> Option<js_sys::Function> {
    let w = web_sys::window()?;
    js_sys::Reflect::get(&w, &JsValue::from_str(name))
        .ok()?
        .dyn_into()
        .ok()
}

/// Gives `f` to the loader's `window.<name>`, which calls it later; gives it
/// back where the page has no such function.
fn hand_to_loader<F: FnOnce() + 'static>(name: &str, f: F) -> Option<F> {
    match loader_fn(name) {
        Some(hook) => {
            let _ = hook.call1(
                &JsValue::UNDEFINED,
                &wasm_bindgen::closure::Closure::once_into_js(f),
            );
            None
        }
        None => Some(f),
    }
}

/// Runs `f` once the console module's rest has come (or, for a module
/// built whole, once the page is idle after its start): see
/// `redsimAfterRest` in `assets/redsim.js`. A page without the loader
/// (a development server's) runs it after the next paint.
pub fn after_rest(f: impl FnOnce() + 'static) {
    if let Some(f) = hand_to_loader("redsimAfterRest", f) {
        after_next_paint(f);
    }
}

/// Sets `window.<name>`: how a module offers the page (the loader, a
/// benchmark) a function of its own.
pub fn set_global(name: &str, value: JsValue) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), &value);
    }
}

thread_local! {
    /// What waits for the next paint ([`after_next_paint`]), run together.
    static AFTER_PAINT: std::cell::RefCell<Vec<Box<dyn FnOnce()>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` once the browser has drawn its next frame: an animation-frame
/// callback runs just before that frame's style, layout and paint, and a
/// zero timeout set from it runs after them. Work that needs the page laid
/// out (focusing an element does) waits there rather than forcing a layout
/// of its own before the page's first frame.
///
/// Everything asked for before that frame shares one request, made through
/// the loader's `redsimAfterPaint` (`assets/redsim.js`), whose frame
/// callback only sets the timeout: the frame that shows a console's first
/// reply runs no wasm before it is drawn (a start asks for three things).
pub fn after_next_paint(f: impl FnOnce() + 'static) {
    let first = AFTER_PAINT.with(|q| {
        let mut q = q.borrow_mut();
        q.push(Box::new(f));
        q.len() == 1
    });
    if !first {
        return;
    }
    let run = || {
        let due = AFTER_PAINT.with(|q| std::mem::take(&mut *q.borrow_mut()));
        for f in due {
            f();
        }
    };
    // A page without the loader (a development server's) asks itself.
    let (Some(run), Some(w)) = (hand_to_loader("redsimAfterPaint", run), web_sys::window()) else {
        return;
    };
    let next = wasm_bindgen::closure::Closure::once_into_js(move || {
        gloo::timers::callback::Timeout::new(0, run).forget();
    });
    let _ = w.request_animation_frame(next.unchecked_ref());
}
