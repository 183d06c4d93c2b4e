//! The command docs of a light console, loaded as data: fetched once per page (`dist/redsim-docs.txt`, through the loader's `redsimFetchDocs`) when the page is idle after its first reply, or at once when a command needs them, then installed into the engine and announced to every console on the page.
//!
//! A console holds HELP and COMMAND DOCS (and what is typed after them)
//! until then, see `console::state`. Builds with the whole engine have the
//! docs compiled in, and nothing here runs.

use std::cell::{Cell, RefCell};

/// A console's callback, called once the docs are in (`true`) or could not
/// be fetched (`false`).
type Listener = Box<dyn Fn(bool)>;

thread_local! {
    static LISTENERS: RefCell<Vec<Listener>> = const { RefCell::new(Vec::new()) };
    static STARTED: Cell<bool> = const { Cell::new(false) };
}

/// Asks to be told when the docs arrive (or fail to).
pub fn listen(f: Listener) {
    LISTENERS.with(|l| l.borrow_mut().push(f));
}

/// Fetches and installs the docs unless they are in or on their way;
/// `later` lets the loader wait until the page is idle.
pub fn load(later: bool) {
    if redsim_engine::cmd::doctext::installed() {
        return;
    }
    if STARTED.with(|s| s.replace(true)) {
        // On their way, perhaps waiting for the page to be idle: a command
        // waits for them, so the loader fetches them now.
        if !later {
            crate::dom::call_loader("redsimFetchDocs", false);
        }
        return;
    }
    #[cfg(all(feature = "light", target_arch = "wasm32"))]
    wasm_bindgen_futures::spawn_local(async move {
        let ok = match fetch(later).await {
            Some(text) => {
                redsim_engine::cmd::doctext::install(&redsim_engine::cmd::REGISTRY, &text) > 0
            }
            None => false,
        };
        if !ok {
            // A later need tries again.
            STARTED.with(|s| s.set(false));
        }
        if !crate::panic::is_dead() {
            LISTENERS.with(|l| l.borrow().iter().for_each(|f| f(ok)));
        }
    });
    #[cfg(not(all(feature = "light", target_arch = "wasm32")))]
    let _ = later;
}

#[cfg(all(feature = "light", target_arch = "wasm32"))]
async fn fetch(later: bool) -> Option<String> {
    use wasm_bindgen::JsCast;
    let window = web_sys::window()?;
    let f = js_sys::Reflect::get(&window, &"redsimFetchDocs".into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?;
    let promise = f
        .call1(&wasm_bindgen::JsValue::NULL, &later.into())
        .ok()?
        .dyn_into::<js_sys::Promise>()
        .ok()?;
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .ok()?
        .as_string()
}
