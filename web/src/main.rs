//! The browser playground: mounts a Redsim widget (console with client tabs, clock, keyspace, key inspector, timeline) into every `[data-redsim]` element and the `#redsim` element of the playground page, each with its own engine.
//!
//! Widgets are configured by attributes on their element: `data-seed`,
//! `data-commands` (one command per line, run on load) and `data-clock="paused"`.
//! The playground element (`#redsim`, or any element with `data-url`) also
//! reads `?cmd=…&seed=…&clock=paused` from the page URL and offers a Share
//! link; its URL settings win over its attributes. The playground element
//! also has a Scenarios tab (opened by `?scenario=<id>`), and every
//! `[data-redsim-scenario="<id>"]` element gets that one scenario. Its
//! Topology tab (`?tab=topology&seed=…&do=…&t=…`) is also embeddable as
//! `[data-redsim-topology]` (with `data-seed` and `data-params`).

mod app;
mod bench;
mod clients;
mod clock;
mod help;
mod inspector;
mod keyspace;
mod panic;
mod scenarios;
mod share;
mod slotmap;
mod timeline;
mod topology;

use wasm_bindgen::JsCast;

use crate::app::{Widget, WidgetProps};
use crate::share::Preset;

/// Elements a widget is mounted into.
pub const HOST_SELECTOR: &str =
    "[data-redsim], #redsim, [data-redsim-scenario], [data-redsim-topology]";

fn main() {
    panic::install();
    bench::install();
    mount_all();
}

/// Mounts one widget per host element.
fn mount_all() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(doc) = window.document() else {
        return;
    };
    let Ok(hosts) = doc.query_selector_all(HOST_SELECTOR) else {
        return;
    };
    let location = window.location();
    let search = location.search().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    for i in 0..hosts.length() {
        let Some(host) = hosts
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        if let Some(id) = host.get_attribute("data-redsim-scenario") {
            let _ = host.class_list().add_1("rs-host");
            let props = scenarios::LibraryProps {
                preset: scenarios::ScenarioPreset::from_attrs(
                    &id,
                    host.get_attribute("data-seed").as_deref(),
                    host.get_attribute("data-params").as_deref(),
                ),
                embedded: true,
                shareable: false,
                active: true,
            };
            yew::Renderer::<scenarios::Library>::with_root_and_props(host, props).render();
            continue;
        }
        if host.has_attribute("data-redsim-topology") {
            let _ = host.class_list().add_1("rs-host");
            let props = topology::TopoProps {
                preset: topology::TopoPreset::from_attrs(
                    host.get_attribute("data-seed").as_deref(),
                    host.get_attribute("data-params").as_deref(),
                ),
                shareable: false,
                active: true,
            };
            yew::Renderer::<topology::TopologyTab>::with_root_and_props(host, props).render();
            continue;
        }
        let from_url = host.id() == "redsim" || host.has_attribute("data-url");
        let mut preset = Preset::from_attrs(
            host.get_attribute("data-seed").as_deref(),
            host.get_attribute("data-commands").as_deref(),
            host.get_attribute("data-clock").as_deref(),
        );
        if from_url {
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
        };
        if host.id() == "redsim" {
            // The playground page: the console and the scenario library as tabs.
            let tab = share::parse_query(search.trim_start_matches('?'))
                .into_iter()
                .chain(share::parse_query(hash.trim_start_matches('#')))
                .filter(|(k, _)| k == "tab")
                .map(|(_, v)| v)
                .next_back();
            let topology_link = tab.as_deref() == Some("topology");
            let props = scenarios::PageProps {
                widget: props,
                // A topology link's options are not scenario parameters.
                scenario: if topology_link {
                    scenarios::ScenarioPreset::default()
                } else {
                    scenarios::ScenarioPreset::from_url(&search, &hash)
                },
                topology: if topology_link {
                    topology::TopoPreset::from_url(&search, &hash)
                } else {
                    topology::TopoPreset::default()
                },
                tab,
            };
            yew::Renderer::<scenarios::Page>::with_root_and_props(host, props).render();
            continue;
        }
        yew::Renderer::<Widget>::with_root_and_props(host, props).render();
    }
}
