//! The playground page's shell: the tabs (console, scenario library, cluster slot map, replication topology, lessons), the tab shown, and the light/dark theme button. Every view stays mounted while hidden, so switching tabs loses nothing.
//!
//! The shell belongs to the console module; the four lab tabs are places
//! beside it ([`build_lab_places`]) that the lab module fills (`lab.rs`),
//! requested the first time one is shown.

use std::rc::Rc;

use yew::prelude::*;

use crate::console::{Widget, WidgetProps};
use crate::dom::{announce_tab, load_lab};

#[derive(Properties, PartialEq, Clone)]
pub struct PageProps {
    pub widget: WidgetProps,
    /// The page's query string and fragment as loaded: they name the tab,
    /// and the lab tabs read their presets from them.
    pub search: AttrValue,
    pub hash: AttrValue,
}

/// The page's tabs, in their order on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageTab {
    Console,
    Scenarios,
    Cluster,
    Topology,
    Lessons,
}

impl PageTab {
    /// The tab a link opens: `?tab=` if it names one, else Scenarios when
    /// the link names a scenario, else the console.
    pub fn from_link(tab: Option<&str>, scenario: bool) -> PageTab {
        match tab.map(str::trim) {
            Some("console") => PageTab::Console,
            Some("scenarios") => PageTab::Scenarios,
            Some("cluster") => PageTab::Cluster,
            Some("topology") => PageTab::Topology,
            Some("lessons") => PageTab::Lessons,
            _ if scenario => PageTab::Scenarios,
            _ => PageTab::Console,
        }
    }
}

impl PageTab {
    /// The tab's name in links (`?tab=`).
    pub fn name(self) -> &'static str {
        match self {
            PageTab::Console => "console",
            PageTab::Scenarios => "scenarios",
            PageTab::Cluster => "cluster",
            PageTab::Topology => "topology",
            PageTab::Lessons => "lessons",
        }
    }

    /// The tab a page URL's query string (`?a=b&...`, with or without the
    /// `?`) shows, as [`PageTab::from_link`] reads it.
    pub fn from_query(search: &str) -> PageTab {
        PageTab::from_url(search, "")
    }

    /// The tab a page URL shows: the query's and the fragment's `tab` (the
    /// fragment's wins) and `scenario`.
    pub fn from_url(search: &str, hash: &str) -> PageTab {
        let pairs: Vec<(String, String)> = crate::url::parse_query(search.trim_start_matches('?'))
            .into_iter()
            .chain(crate::url::parse_query(hash.trim_start_matches('#')))
            .collect();
        let tab = pairs.iter().rev().find(|(n, _)| n == "tab");
        let scenario = pairs.iter().any(|(n, _)| n == "scenario");
        PageTab::from_link(tab.map(|(_, v)| v.as_str()), scenario)
    }

    /// Whether the lab module draws the tab.
    pub fn is_lab(self) -> bool {
        self != PageTab::Console
    }
}

/// Records a tab chosen by the user as a new history entry (`?tab=<name>`),
/// so the address names the view and Back returns to the previous one.
fn push_tab(tab: PageTab) {
    let Some(w) = web_sys::window() else {
        return;
    };
    let here = w.location().search().unwrap_or_default();
    if PageTab::from_query(&here) == tab {
        return;
    }
    if let Ok(h) = w.history() {
        let url = format!("?tab={}", tab.name());
        let _ = h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// Where the reader's theme choice is kept (`assets/redsim.js` reads it
/// at start, before the wasm, and otherwise follows the system's theme).
const THEME_KEY: &str = "redsim-theme";

/// True if the page shows the dark theme: `data-theme="dark"` on `<html>`,
/// which `assets/redsim.js` sets at start and this module's button changes.
fn dark_now() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|e| e.get_attribute("data-theme"))
        .is_some_and(|t| t == "dark")
}

/// Shows the dark (or light) theme and remembers the choice.
fn set_dark(dark: bool) {
    let theme = if dark { "dark" } else { "light" };
    let Some(w) = web_sys::window() else {
        return;
    };
    if let Some(e) = w.document().and_then(|d| d.document_element()) {
        let _ = e.set_attribute("data-theme", theme);
    }
    if let Some(store) = w.local_storage().ok().flatten() {
        let _ = store.set_item(THEME_KEY, theme);
    }
}

/// The theme button: a toggle (`aria-pressed`) for the dark theme. The
/// choice is stored, so a reload (and every page of the site) keeps it;
/// when the system theme changes and nothing was chosen, `redsim.js`
/// switches the page and tells the button with a `redsim-theme` event.
/// Its state lives in [`Page`] (`dark`, kept by [`use_dark_theme`]): a
/// component of its own cost the console module its lifecycle code.
fn theme_toggle(dark: &UseStateHandle<bool>) -> Html {
    let onclick = {
        let dark = dark.clone();
        Callback::from(move |_: MouseEvent| {
            let next = !*dark;
            set_dark(next);
            dark.set(next);
        })
    };
    html! {
        <button type="button" class="rs-btn rs-theme-toggle" data-action="theme"
                aria-pressed={ dark.to_string() } aria-label="Dark theme"
                title={ if **dark { "Dark theme on: switch to the light theme" } else { "Switch to the dark theme" } }
                { onclick }>
            <span class="rs-theme-icon" aria-hidden="true">{ if **dark { "☾" } else { "☀" } }</span>
            <span class="rs-theme-text">{ "Dark theme" }</span>
        </button>
    }
}

/// Whether the dark theme is on, following the `redsim-theme` event.
#[hook]
fn use_dark_theme() -> UseStateHandle<bool> {
    let dark = use_state(dark_now);
    {
        let dark = dark.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                gloo::events::EventListener::new(&w, "redsim-theme", move |_| dark.set(dark_now()))
            });
            move || drop(listener)
        });
    }
    dark
}

/// What the page shows: the tab selected. A reducer, so every way of
/// changing it (the tab buttons now, links later) goes through one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageState {
    pub tab: PageTab,
}

/// A change of the page.
pub enum PageAction {
    Show(PageTab),
}

impl Reducible for PageState {
    type Action = PageAction;

    fn reduce(self: Rc<Self>, action: PageAction) -> Rc<Self> {
        match action {
            PageAction::Show(tab) if tab == self.tab => self,
            PageAction::Show(tab) => Rc::new(PageState { tab }),
        }
    }
}

#[component]
pub fn Page(props: &PageProps) -> Html {
    let page = use_reducer(|| PageState {
        tab: PageTab::from_url(&props.search, &props.hash),
    });
    let dark = use_dark_theme();
    let on = |t: PageTab| page.tab == t;
    // The page around the app (its "Things to try" box is about the
    // console) and the lab's views read the tab shown from the body's
    // `data-redsim-tab`; the first lab tab shown brings the lab module.
    use_effect_with(page.tab, |tab| {
        announce_tab(tab.name());
        show_lab_place(*tab);
        if tab.is_lab() {
            load_lab();
        }
    });
    // Back and Forward move between the tabs the user opened.
    {
        let dispatch = page.dispatcher();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                gloo::events::EventListener::new(&w, "popstate", move |_| {
                    let search = web_sys::window()
                        .and_then(|w| w.location().search().ok())
                        .unwrap_or_default();
                    dispatch.dispatch(PageAction::Show(PageTab::from_query(&search)));
                })
            });
            move || drop(listener)
        });
    }
    let button = |t: PageTab, action: &'static str, label: &'static str| {
        let dispatch = page.dispatcher();
        html! {
            <button class={ classes!("rs-pagetab", on(t).then_some("rs-on")) } role="tab"
                    aria-selected={ on(t).to_string() } data-action={ action }
                    onclick={ Callback::from(move |_: MouseEvent| {
                        push_tab(t);
                        dispatch.dispatch(PageAction::Show(t));
                    }) }>{ label }</button>
        }
    };
    html! {
        <>
            <div class="rs-pagebar">
                <div class="rs-pagetabs" role="tablist" aria-label="Playground views">
                    { button(PageTab::Console, "tab-console", "Console") }
                    { button(PageTab::Scenarios, "tab-scenarios", "Scenarios") }
                    { button(PageTab::Cluster, "tab-cluster", "Cluster") }
                    { button(PageTab::Topology, "tab-topology", "Topology") }
                    { button(PageTab::Lessons, "tab-lessons", "Lessons") }
                </div>
                { theme_toggle(&dark) }
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Console) }>
                <Widget ..props.widget.clone() />
            </div>
        </>
    }
}

/// The lab tabs' places, built beside the shell's own root inside `host`
/// (`#redsim`). They are plain elements, outside the console module's Yew
/// tree on purpose: each Yew instance delegates events from its root and
/// tags elements with listener ids of its own, so a lab tree nested inside
/// the console's would have its clicks read as the console's. Each holds a
/// note while the lab loads and the root the lab mounts into (the note is
/// hidden once it has, by `.rs-lab-ready`); the page's first URL rides along
/// for the lab's presets.
pub fn build_lab_places(
    doc: &web_sys::Document,
    host: &web_sys::Element,
    search: &str,
    hash: &str,
) {
    for tab in [
        PageTab::Scenarios,
        PageTab::Cluster,
        PageTab::Topology,
        PageTab::Lessons,
    ] {
        let Ok(place) = doc.create_element("div") else {
            return;
        };
        place.set_class_name("rs-pageview rs-labslot");
        let _ = place.set_attribute("data-redsim-lab-tab", tab.name());
        let _ = place.set_attribute("data-search", search);
        let _ = place.set_attribute("data-hash", hash);
        let _ = place.set_attribute("hidden", "");
        if let (Ok(note), Ok(root)) = (doc.create_element("p"), doc.create_element("div")) {
            note.set_class_name("rs-loading rs-lab-loading");
            let _ = note.set_attribute("role", "status");
            note.set_text_content(Some("Loading the lab…"));
            root.set_class_name("rs-labroot");
            let _ = place.append_child(&note);
            let _ = place.append_child(&root);
        }
        let _ = host.append_child(&place);
    }
}

/// Shows the lab place of `tab` and hides the others.
fn show_lab_place(tab: PageTab) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for place in crate::dom::lab_places(&doc) {
        if let Some(name) = place.get_attribute("data-redsim-lab-tab") {
            let _ = if name == tab.name() {
                place.remove_attribute("hidden")
            } else {
                place.set_attribute("hidden", "")
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_links_pick_the_page_tab() {
        assert!(PageTab::from_link(Some("topology"), true) == PageTab::Topology);
        assert!(PageTab::from_link(Some("cluster"), false) == PageTab::Cluster);
        assert!(PageTab::from_link(Some("lessons"), false) == PageTab::Lessons);
        assert!(PageTab::from_link(None, true) == PageTab::Scenarios);
        assert!(PageTab::from_link(Some("nonsense"), false) == PageTab::Console);
    }

    #[test]
    fn a_query_string_names_its_tab_and_names_round_trip() {
        assert!(PageTab::from_query("?tab=cluster&seed=3") == PageTab::Cluster);
        assert!(PageTab::from_query("scenario=stampede") == PageTab::Scenarios);
        assert!(PageTab::from_query("") == PageTab::Console);
        assert!(PageTab::from_url("?seed=1", "#tab=lessons") == PageTab::Lessons);
        assert!(!PageTab::Console.is_lab() && PageTab::Cluster.is_lab());
        for t in [
            PageTab::Console,
            PageTab::Scenarios,
            PageTab::Cluster,
            PageTab::Topology,
            PageTab::Lessons,
        ] {
            assert!(PageTab::from_query(&format!("?tab={}", t.name())) == t);
        }
    }

    #[test]
    fn showing_the_same_tab_keeps_the_state() {
        let s = Rc::new(PageState {
            tab: PageTab::Console,
        });
        let same = s.clone().reduce(PageAction::Show(PageTab::Console));
        assert!(Rc::ptr_eq(&s, &same));
        assert_eq!(
            s.reduce(PageAction::Show(PageTab::Cluster)).tab,
            PageTab::Cluster
        );
    }
}
