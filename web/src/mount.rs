//! Mounts the widgets: one per host element of the page, each with its own state, configured by the element's `data-*` attributes and, for the playground element, by the page URL.

use crate::console::share::Preset;
use crate::console::{Widget, WidgetProps};
use crate::dom::hosts;
use crate::lessons::{LessonPreset, Lessons, LessonsProps};
use crate::page::{Page, PageProps};
use crate::scenarios::{Library, LibraryProps, ScenarioPreset};
use crate::topology::{TopoPreset, TopoProps, TopologyTab};
use crate::url::parse_query;

/// Mounts one widget per host element.
pub fn mount_all() {
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
    for host in hosts(&doc) {
        if let Some(id) = host.get_attribute("data-redsim-scenario") {
            let _ = host.class_list().add_1("rs-host");
            let props = LibraryProps {
                preset: ScenarioPreset::from_attrs(
                    &id,
                    host.get_attribute("data-seed").as_deref(),
                    host.get_attribute("data-params").as_deref(),
                ),
                embedded: true,
                shareable: false,
                active: true,
            };
            yew::Renderer::<Library>::with_root_and_props(host, props).render();
            continue;
        }
        if let Some(chapter) = host.get_attribute("data-redsim-lesson") {
            let _ = host.class_list().add_1("rs-host");
            let props = LessonsProps {
                preset: LessonPreset::from_attrs(
                    &chapter,
                    host.get_attribute("data-redsim-step").as_deref(),
                ),
                embedded: true,
                shareable: false,
            };
            yew::Renderer::<Lessons>::with_root_and_props(host, props).render();
            continue;
        }
        if host.has_attribute("data-redsim-topology") {
            let _ = host.class_list().add_1("rs-host");
            let props = TopoProps {
                preset: TopoPreset::from_attrs(
                    host.get_attribute("data-seed").as_deref(),
                    host.get_attribute("data-params").as_deref(),
                ),
                shareable: false,
                active: true,
            };
            yew::Renderer::<TopologyTab>::with_root_and_props(host, props).render();
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
            let tab = parse_query(search.trim_start_matches('?'))
                .into_iter()
                .chain(parse_query(hash.trim_start_matches('#')))
                .filter(|(k, _)| k == "tab")
                .map(|(_, v)| v)
                .next_back();
            let topology_link = tab.as_deref() == Some("topology");
            let props = PageProps {
                widget: props,
                // A topology link's options are not scenario parameters.
                scenario: if topology_link {
                    ScenarioPreset::default()
                } else {
                    ScenarioPreset::from_url(&search, &hash)
                },
                topology: if topology_link {
                    TopoPreset::from_url(&search, &hash)
                } else {
                    TopoPreset::default()
                },
                lesson: LessonPreset::from_url(&search, &hash),
                cluster: parse_query(hash.trim_start_matches('#'))
                    .into_iter()
                    .find(|(k, _)| k == "c")
                    .and_then(|(_, v)| redsim_engine::proto::link::unpack(&v)),
                tab,
            };
            yew::Renderer::<Page>::with_root_and_props(host, props).render();
            continue;
        }
        yew::Renderer::<Widget>::with_root_and_props(host, props).render();
    }
}
