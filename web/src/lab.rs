//! The lab module's side of the page: mounts the scenario library, cluster slot map, topology and lessons views into every place the page (or the console module's shell) left for them.
//!
//! The console module never links these views: it marks where they go and
//! asks the loader for this module ([`crate::dom::load_lab`]). Places are:
//! documentation elements (`[data-redsim-scenario]`, `[data-redsim-lesson]`,
//! `[data-redsim-topology]`), the shell's lab tabs (`[data-redsim-lab-tab]`,
//! which carry the page's first URL, since the address bar may have moved
//! on by the time this module arrives) and an iframe's one widget
//! (`[data-redsim-lab-minimal]`). Each is mounted once per instance.

use std::rc::Rc;

use yew::prelude::*;

use crate::cluster::SlotMap;
use crate::dom::{hosts, lab_places, shown_tab, TAB_EVENT};
use crate::lessons::{LessonPreset, Lessons, LessonsProps};
use crate::minimal::Minimal;
use crate::scenarios::{Library, LibraryProps, ScenarioPreset};
use crate::topology::{TopoPreset, TopoProps, TopologyTab};
use crate::url::parse_query;

/// Marks a place as mounted by this instance.
const MOUNTED: &str = "data-redsim-mounted";

/// Mounts every lab view of the page not mounted yet.
pub fn mount_all() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for host in lab_places(&doc) {
        if host.has_attribute(MOUNTED) {
            continue;
        }
        let _ = host.set_attribute(MOUNTED, "");
        mount_place(host);
    }
    // Documentation elements: the same views with their attributes' presets.
    for host in hosts(&doc) {
        if host.has_attribute(MOUNTED) || !crate::dom::is_lab_host(&host) {
            continue;
        }
        let _ = host.set_attribute(MOUNTED, "");
        let _ = host.class_list().add_1("rs-host");
        mount_element(host);
    }
}

/// A shell tab or an iframe's widget.
fn mount_place(host: web_sys::Element) {
    let search = host.get_attribute("data-search").unwrap_or_default();
    let hash = host.get_attribute("data-hash").unwrap_or_default();
    let root = host
        .query_selector(".rs-labroot")
        .ok()
        .flatten()
        .unwrap_or_else(|| host.clone());
    let _ = host.class_list().add_1("rs-lab-ready");
    if host.has_attribute("data-redsim-lab-minimal") {
        match Minimal::from_params(&search, &hash) {
            Minimal::Scenario => {
                let props = LibraryProps {
                    preset: ScenarioPreset::from_url(&search, &hash),
                    embedded: true,
                    shareable: false,
                    active: true,
                };
                crate::handover::mount::<Library>(root, props);
            }
            Minimal::Lesson => {
                let props = LessonsProps {
                    preset: LessonPreset::from_url(&search, &hash),
                    embedded: true,
                    shareable: false,
                };
                crate::handover::mount::<Lessons>(root, props);
            }
            Minimal::Topology => {
                let props = TopoProps {
                    preset: TopoPreset::from_url(&search, &hash),
                    shareable: false,
                    active: true,
                };
                crate::handover::mount::<TopologyTab>(root, props);
            }
            Minimal::Console => {}
        }
        return;
    }
    let Some(tab) = host.get_attribute("data-redsim-lab-tab") else {
        return;
    };
    let props = LabTabProps {
        tab: tab.into(),
        search: search.into(),
        hash: hash.into(),
    };
    crate::handover::mount::<LabTab>(root, props);
}

/// A documentation element.
fn mount_element(host: web_sys::Element) {
    if let Some(id) = host.get_attribute("data-redsim-scenario") {
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
        crate::handover::mount::<Library>(host, props);
    } else if let Some(chapter) = host.get_attribute("data-redsim-lesson") {
        let props = LessonsProps {
            preset: LessonPreset::from_attrs(
                &chapter,
                host.get_attribute("data-redsim-step").as_deref(),
            ),
            embedded: true,
            shareable: false,
        };
        crate::handover::mount::<Lessons>(host, props);
    } else if host.has_attribute("data-redsim-topology") {
        let props = TopoProps {
            preset: TopoPreset::from_attrs(
                host.get_attribute("data-seed").as_deref(),
                host.get_attribute("data-params").as_deref(),
            ),
            shareable: false,
            active: true,
        };
        crate::handover::mount::<TopologyTab>(host, props);
    }
}

#[derive(Properties, PartialEq, Clone)]
pub struct LabTabProps {
    /// The shell's name for the tab (`scenarios`, `cluster`, `topology`, `lessons`).
    pub tab: AttrValue,
    /// The page's first query string and fragment.
    pub search: AttrValue,
    pub hash: AttrValue,
}

/// One of the shell's lab tabs. The shell lives in the other module, so
/// whether the tab is shown comes from the page: the body's
/// `data-redsim-tab`, announced by a [`TAB_EVENT`] on every change.
#[component]
pub fn LabTab(props: &LabTabProps) -> Html {
    let shown = use_state(shown_tab);
    {
        let shown = shown.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                gloo::events::EventListener::new(&w, TAB_EVENT, move |_| shown.set(shown_tab()))
            });
            move || drop(listener)
        });
    }
    let presets = use_memo((props.search.clone(), props.hash.clone()), |(s, h)| {
        Rc::new(LabPresets::from_url(s, h))
    });
    let on = shown.as_deref() == Some(props.tab.as_str());
    match props.tab.as_str() {
        "scenarios" => html! {
            <Library preset={ presets.scenario.clone() } shareable=true active={ on } />
        },
        "cluster" => html! {
            <SlotMap active={ on } preset={ presets.cluster.clone() } shareable=true />
        },
        "topology" => html! {
            <TopologyTab preset={ presets.topology.clone() } shareable=true active={ on } />
        },
        "lessons" => html! {
            <Lessons preset={ presets.lesson.clone() } shareable={ on } />
        },
        _ => html! {},
    }
}

/// What a page link says to the lab tabs.
#[derive(Default)]
pub struct LabPresets {
    pub scenario: ScenarioPreset,
    /// The Topology tab's link settings (`?tab=topology&…`).
    pub topology: TopoPreset,
    /// The Lessons tab's chapter and step (`?tab=lessons&lesson=…&step=…`).
    pub lesson: LessonPreset,
    /// The Cluster tab's session (`?tab=cluster#c=…`, unpacked).
    pub cluster: Option<String>,
}

impl LabPresets {
    pub fn from_url(search: &str, hash: &str) -> LabPresets {
        let tab = parse_query(search.trim_start_matches('?'))
            .into_iter()
            .chain(parse_query(hash.trim_start_matches('#')))
            .filter(|(k, _)| k == "tab")
            .map(|(_, v)| v)
            .next_back();
        // A topology link's options are not scenario parameters.
        let topology_link = tab.as_deref() == Some("topology");
        LabPresets {
            scenario: if topology_link {
                ScenarioPreset::default()
            } else {
                ScenarioPreset::from_url(search, hash)
            },
            topology: if topology_link {
                TopoPreset::from_url(search, hash)
            } else {
                TopoPreset::default()
            },
            lesson: LessonPreset::from_url(search, hash),
            cluster: parse_query(hash.trim_start_matches('#'))
                .into_iter()
                .find(|(k, _)| k == "c")
                .and_then(|(_, v)| redsim_engine::proto::link::unpack(&v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topology_link_is_not_read_as_scenario_parameters() {
        let p = LabPresets::from_url("?tab=topology&seed=3&do=100:kill.0", "");
        assert!(p.scenario.id.is_none() && p.scenario.params.is_empty());
        assert!(!p.topology.pairs.is_empty());
        let s = LabPresets::from_url("?scenario=stampede&seed=2", "");
        assert_eq!(s.scenario.id.as_deref(), Some("stampede"));
        assert!(s.topology.pairs.is_empty());
    }
}
