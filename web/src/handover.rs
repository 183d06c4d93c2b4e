//! The console module's move to the full engine: a console built `light` (the engine without its heavy families, see `redsim_engine::cmd::table::needs_full_engine`) hands every widget's session to the lab module, which carries the full engine, the first time one of them needs it.
//!
//! Why a move and not a second engine beside the first: state cannot cross
//! wasm instances, but the engine is deterministic, so a session's commands
//! with the virtual time between them (what a Share link holds) rebuild the
//! same keyspace, TTLs and clients there. The steps, driven by the loader
//! (`assets/redsim.js`, `window.redsimUpgrade`):
//!
//! 1. a widget meets a heavy command: it records it unrun, queues what
//!    follows, and asks for the upgrade ([`request`]);
//! 2. the loader downloads and compiles the lab module while the console
//!    stays on screen, then calls `window.redsimAskHandover`: each widget
//!    writes its link into `window.redsimHandoverLinks` as `[host, link]`;
//! 3. it calls `window.redsimRetire` (and `window.redsimRetireLab`, for a lab
//!    module already running), which unmounts every app of the instance
//!    (their timers and listeners go with them), and starts the
//!    lab module in full mode: [`crate::mount::mount_all`] builds each
//!    console from its link ([`link_for`]), where the queued commands run.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    /// How to ask each widget of this instance for its session (it answers
    /// with [`offer`]).
    static WIDGETS: RefCell<Vec<Box<dyn Fn()>>> = const { RefCell::new(Vec::new()) };
    /// How to unmount each app this instance mounted.
    static APPS: RefCell<Vec<Box<dyn FnOnce()>>> = const { RefCell::new(Vec::new()) };
}

/// Whether this module is the light console (the one that hands over).
pub const LIGHT: bool = cfg!(feature = "light");

/// The global the loader sets to `true` when it starts the lab module as
/// the full console (and leaves set for its later restarts).
const FULL_FLAG: &str = "redsimFull";
/// Where widgets write their links, as `[host index, link]` pairs.
const LINKS: &str = "redsimHandoverLinks";

/// Registers a widget for the handover: `ask` makes it [`offer`] its link.
pub fn register(ask: Box<dyn Fn()>) {
    WIDGETS.with(|w| w.borrow_mut().push(ask));
}

/// Mounts an app of this instance into `root`, kept so that retiring the
/// instance unmounts it.
pub fn mount<C>(root: web_sys::Element, props: C::Properties)
where
    C: yew::BaseComponent,
{
    let app = yew::Renderer::<C>::with_root_and_props(root, props).render();
    APPS.with(|a| a.borrow_mut().push(Box::new(move || app.destroy())));
}

/// Installs the loader's calls into the console module: `redsimRetire`
/// and, in light builds, `redsimAskHandover`.
/// Keeps a view drawn without Yew until the module retires: `retire`
/// stops it (its timers and listeners).
pub fn keep(retire: Box<dyn FnOnce()>) {
    APPS.with(|a| a.borrow_mut().push(retire));
}

pub fn install_console() {
    if LIGHT {
        let ask = Closure::<dyn Fn()>::new(|| {
            WIDGETS.with(|ws| {
                for ask in ws.borrow().iter() {
                    ask();
                }
            })
        });
        crate::dom::set_global("redsimAskHandover", ask.into_js_value());
    }
    install_retire("redsimRetire");
}

/// Installs `name`, which unmounts every app of this instance (their timers
/// and listeners go with them): the loader calls it on an instance the page
/// replaces, such as a lab module running beside a light console.
pub fn install_retire(name: &str) {
    let retire = Closure::<dyn Fn()>::new(|| {
        WIDGETS.with(|w| w.borrow_mut().clear());
        let apps = APPS.with(|a| std::mem::take(&mut *a.borrow_mut()));
        for destroy in apps {
            destroy();
        }
    });
    crate::dom::set_global(name, retire.into_js_value());
}

/// Writes one widget's link for the loader.
pub fn offer(host: usize, link: &str) {
    let Some(w) = web_sys::window() else {
        return;
    };
    let Ok(list) = js_sys::Reflect::get(&w, &LINKS.into()) else {
        return;
    };
    if let Some(list) = list.dyn_ref::<js_sys::Array>() {
        let pair = js_sys::Array::of2(&JsValue::from(host as u32), &JsValue::from_str(link));
        list.push(&pair);
    }
}

/// Whether this instance was started as the full console.
pub fn is_full_start() -> bool {
    web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &FULL_FLAG.into()).ok())
        .is_some_and(|v| v.is_truthy())
}

/// The link handed over for host `index`, if this start is an upgrade.
pub fn link_for(index: usize) -> Option<String> {
    let w = web_sys::window()?;
    let list = js_sys::Reflect::get(&w, &LINKS.into()).ok()?;
    let list = list.dyn_into::<js_sys::Array>().ok()?;
    list.iter().find_map(|pair| {
        let pair = pair.dyn_into::<js_sys::Array>().ok()?;
        (pair.get(0).as_f64()? as usize == index).then(|| pair.get(1).as_string())?
    })
}

/// Asks the loader for the full engine (once per page; calling again is free).
pub fn request() {
    call_loader("redsimUpgrade");
}

/// Asks the loader to fetch and compile the full engine ahead of need: the
/// reader is typing a command that will want it.
pub fn prefetch() {
    call_loader("redsimPrefetchFull");
}

fn call_loader(name: &'static str) {
    if LIGHT {
        crate::dom::call_loader(name, false);
    }
}
