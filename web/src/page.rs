//! The playground page's shell: the tabs (console, scenario library, cluster slot map, replication topology, lessons), the tab shown, and the light/dark theme button. Every view stays mounted while hidden, so switching tabs loses nothing.

use std::rc::Rc;

use yew::prelude::*;

use crate::cluster::SlotMap;
use crate::console::{Widget, WidgetProps};
use crate::lessons::{LessonPreset, Lessons};
use crate::scenarios::{Library, ScenarioPreset};
use crate::topology::{TopoPreset, TopologyTab};

#[derive(Properties, PartialEq, Clone)]
pub struct PageProps {
    pub widget: WidgetProps,
    pub scenario: ScenarioPreset,
    /// The Topology tab's link settings (`?tab=topology&…`).
    pub topology: TopoPreset,
    /// The Lessons tab's chapter and step (`?tab=lessons&lesson=…&step=…`).
    pub lesson: LessonPreset,
    /// The Cluster tab's session (`?tab=cluster#c=…`, unpacked).
    pub cluster: Option<String>,
    /// The tab named by `?tab=` (console, scenarios, cluster, topology, lessons).
    pub tab: Option<String>,
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
        let pairs = crate::url::parse_query(search.trim_start_matches('?'));
        let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        PageTab::from_link(get("tab"), get("scenario").is_some())
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
#[component]
pub fn ThemeToggle() -> Html {
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
                title={ if *dark { "Dark theme on: switch to the light theme" } else { "Switch to the dark theme" } }
                { onclick }>
            <span class="rs-theme-icon" aria-hidden="true">{ if *dark { "☾" } else { "☀" } }</span>
            <span class="rs-theme-text">{ "Dark theme" }</span>
        </button>
    }
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
        tab: PageTab::from_link(props.tab.as_deref(), props.scenario.id.is_some()),
    });
    let on = |t: PageTab| page.tab == t;
    // The page around the app (its "Things to try" box is about the
    // console) reads the tab shown from the body's `data-redsim-tab`.
    use_effect_with(page.tab, |tab| {
        let name = tab.name();
        if let Some(body) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body())
        {
            let _ = body.set_attribute("data-redsim-tab", name);
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
                <ThemeToggle />
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Console) }>
                <Widget ..props.widget.clone() />
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Scenarios) }>
                <Library preset={ props.scenario.clone() } shareable=true active={ on(PageTab::Scenarios) } />
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Cluster) }>
                <SlotMap active={ on(PageTab::Cluster) } preset={ props.cluster.clone() } shareable=true />
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Topology) }>
                <TopologyTab preset={ props.topology.clone() } shareable=true active={ on(PageTab::Topology) } />
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Lessons) }>
                <Lessons preset={ props.lesson.clone() } shareable={ on(PageTab::Lessons) } />
            </div>
        </>
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
