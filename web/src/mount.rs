//! Mounts the console module's widgets: one per host element of the page, each with its own state, configured by the element's `data-*` attributes and, for the playground element, by the page URL. Lab views are left to the lab module, which is requested when the page has any.

use crate::console::share::Preset;
use crate::console::WidgetProps;
use crate::dom::{hosts, is_lab_host, load_lab_later};
use crate::page::build_lab_places;

/// Mounts one widget per host element, then calls `then`. A page opened
/// from a Share link first unpacks its session, which the browser's
/// decompressor does asynchronously (see `crate::links`).
pub fn mount_all(then: fn()) {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    match crate::links::packed_in(&hash) {
        Some(packed) => wasm_bindgen_futures::spawn_local(async move {
            crate::links::unpack_ahead(packed).await;
            if !crate::panic::is_dead() {
                mount_now();
                then();
            }
        }),
        None => {
            mount_now();
            then();
        }
    }
}

/// Not inlined: both paths of [`mount_all`] call it, and a copy inside the
/// async one would double its code.
#[inline(never)]
fn mount_now() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(doc) = window.document() else {
        return;
    };
    let location = window.location();
    let search = location.search().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    // Iframe mode: one widget from the URL, nothing else of the page.
    if let Some(kind) = crate::minimal::Minimal::from_url(&search, &hash) {
        crate::minimal::mount(&doc, kind, &search, &hash);
        return;
    }
    let mut lab = false;
    for (index, host) in hosts(&doc).into_iter().enumerate() {
        if is_lab_host(&host) {
            lab = true;
            continue;
        }
        let from_url = host.id() == "redsim" || host.has_attribute("data-url");
        let mut preset = Preset::from_attrs(
            host.get_attribute("data-seed").as_deref(),
            host.get_attribute("data-commands").as_deref(),
            host.get_attribute("data-clock").as_deref(),
        );
        let handed = crate::handover::link_for(index).map(|l| Preset::from_link(&l));
        if let Some(handed) = handed {
            // A session moving from the light console: its link is all of it.
            preset = handed;
        } else if from_url {
            let url = Preset::from_url(&search, &hash);
            preset.seed = url.seed.or(preset.seed);
            preset.t0 = url.t0.or(preset.t0);
            if !url.commands.is_empty() {
                preset.commands = url.commands;
            }
            preset.paused |= url.paused;
        }
        let _ = host.class_list().add_1("rs-host");
        let props = WidgetProps {
            preset,
            autofocus: from_url,
            shareable: from_url,
            host: index,
        };
        if host.id() == "redsim" {
            // The playground page: the shell with the console in its own
            // root, and the lab's tabs as places beside it.
            let Ok(shell) = doc.create_element("div") else {
                continue;
            };
            shell.set_class_name("rs-shell");
            host.set_inner_html("");
            let _ = host.append_child(&shell);
            build_lab_places(&doc, &host, &search, &hash);
            crate::page::mount(&shell, props, &search, &hash);
            continue;
        }
        crate::console::mount(&host, props);
    }
    if lab {
        load_lab_later();
    }
}
