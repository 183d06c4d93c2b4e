//! The playground page's shell: the tabs (console, scenario library, cluster slot map, replication topology, lessons), the tab shown, and the light/dark theme button. Every view stays mounted while hidden, so switching tabs loses nothing.
//!
//! The shell belongs to the console module; the four lab tabs are places
//! beside it ([`build_lab_places`]) that the lab module fills (`lab.rs`),
//! requested the first time one is shown.

use std::cell::Cell;
use std::rc::Rc;

use gloo::events::EventListener;
use web_sys::Element;

use crate::console::WidgetProps;
use crate::dom::{announce_tab, load_lab};
use crate::ui::{set_text, toggle, El};

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
fn theme_toggle() -> Element {
    El::new("button")
        .attr("type", "button")
        .cls("rs-btn rs-theme-toggle")
        .attr("data-action", "theme")
        .attr("aria-label", "Dark theme")
        .child(
            El::new("span")
                .cls("rs-theme-icon")
                .attr("aria-hidden", "true"),
        )
        .child(El::new("span").cls("rs-theme-text").text("Dark theme"))
        .el()
}

/// Shows on the theme button whether the dark theme is on.
fn show_theme(button: &Element, dark: bool) {
    let _ = button.set_attribute("aria-pressed", if dark { "true" } else { "false" });
    let _ = button.set_attribute(
        "title",
        if dark {
            "Dark theme on: switch to the light theme"
        } else {
            "Switch to the dark theme"
        },
    );
    if let Some(icon) = button.first_element_child() {
        set_text(&icon, if dark { "☾" } else { "☀" });
    }
}

/// The tabs, with their `data-action` and label.
const TABS: [(PageTab, &str, &str); 5] = [
    (PageTab::Console, "tab-console", "Console"),
    (PageTab::Scenarios, "tab-scenarios", "Scenarios"),
    (PageTab::Cluster, "tab-cluster", "Cluster"),
    (PageTab::Topology, "tab-topology", "Topology"),
    (PageTab::Lessons, "tab-lessons", "Lessons"),
];

/// The shell's elements and the tab it shows.
struct Shell {
    tab: Cell<Option<PageTab>>,
    buttons: Vec<(PageTab, Element)>,
    view: Element,
    theme: Element,
}

impl Shell {
    /// Shows `tab`: every way of changing it (the tab buttons, Back and
    /// Forward) goes through here. The page around the app (its "Things to
    /// try" box is about the console) and the lab's views read the tab
    /// shown from the body's `data-redsim-tab`; the first lab tab shown
    /// brings the lab module.
    fn show(&self, tab: PageTab) {
        let before = self.tab.replace(Some(tab));
        if before == Some(tab) {
            return;
        }
        for (t, b) in &self.buttons {
            toggle(b, "rs-on", *t == tab);
            let _ = b.set_attribute("aria-selected", if *t == tab { "true" } else { "false" });
        }
        let _ = if tab == PageTab::Console {
            self.view.remove_attribute("hidden")
        } else {
            self.view.set_attribute("hidden", "")
        };
        // The first tab shown is told by the body alone: no lab view can
        // listen yet (in every start, the lab's views mount after the shell).
        announce_tab(tab.name(), before.is_some());
        show_lab_place(tab);
        if tab.is_lab() {
            load_lab();
        }
    }
}

/// Draws the playground page's shell into `root` (the tab bar, the theme
/// button, and the console's view with its widget), showing the tab the
/// page's URL names.
pub fn mount(root: &Element, widget: WidgetProps, search: &str, hash: &str) {
    let buttons: Vec<(PageTab, Element)> = TABS
        .iter()
        .map(|&(t, action, label)| {
            let b = El::new("button")
                .cls("rs-pagetab")
                .attr("role", "tab")
                .attr("id", &tab_id(t))
                .attr("aria-controls", &view_id(t))
                .attr("aria-selected", "false")
                .attr("data-action", action)
                .text(label)
                .el();
            (t, b)
        })
        .collect();
    let theme = theme_toggle();
    show_theme(&theme, dark_now());
    // The console's view: its heading, then the widget (which clears its
    // own host).
    let widget_host = El::new("div").el();
    let view = tab_panel(El::new("div").cls("rs-pageview"), PageTab::Console)
        .child(El(widget_host.clone()))
        .el();
    let bar = El::new("div")
        .cls("rs-pagebar")
        .child(
            El::new("div")
                .cls("rs-pagetabs")
                .attr("role", "tablist")
                .attr("aria-label", "Playground views")
                .children(buttons.iter().map(|(_, b)| El(b.clone()))),
        )
        .child(El(theme.clone()))
        .el();
    let _ = root.append_child(&bar);
    let _ = root.append_child(&view);
    let shell = Rc::new(Shell {
        tab: Cell::new(None),
        buttons,
        view: view.clone(),
        theme,
    });
    shell.show(PageTab::from_url(search, hash));
    crate::console::mount(&widget_host, widget);
    let listeners = listen(&bar, &shell);
    crate::handover::keep(Box::new(move || drop(listeners)));
}

/// The shell's listeners: its buttons, Back and Forward, and the theme
/// changed elsewhere (the system's, or another toggle on the page).
fn listen(bar: &Element, shell: &Rc<Shell>) -> Vec<EventListener> {
    let Some(window) = web_sys::window() else {
        return Vec::new();
    };
    let on_bar = {
        let (shell, bar2) = (shell.clone(), bar.clone());
        EventListener::new(bar, "click", move |e| {
            if crate::panic::is_dead() {
                return;
            }
            let Some(b) = crate::ui::closest(e, "[data-action]", &bar2) else {
                return;
            };
            let action = b.get_attribute("data-action").unwrap_or_default();
            if action == "theme" {
                let dark = !dark_now();
                set_dark(dark);
                show_theme(&shell.theme, dark);
            } else if let Some(&(t, _, _)) = TABS.iter().find(|(_, a, _)| *a == action) {
                push_tab(t);
                shell.show(t);
            }
        })
    };
    let on_back = {
        let shell = shell.clone();
        EventListener::new(&window, "popstate", move |_| {
            let search = web_sys::window()
                .and_then(|w| w.location().search().ok())
                .unwrap_or_default();
            shell.show(PageTab::from_query(&search));
        })
    };
    let on_theme = {
        let shell = shell.clone();
        EventListener::new(&window, "redsim-theme", move |_| {
            show_theme(&shell.theme, dark_now())
        })
    };
    vec![on_bar, on_back, on_theme]
}

/// The id of `tab`'s button, which labels its view.
fn tab_id(tab: PageTab) -> String {
    format!("rs-tab-{}", tab.name())
}

/// The id of `tab`'s view, which its button controls.
fn view_id(tab: PageTab) -> String {
    format!("rs-view-{}", tab.name())
}

/// `view` as `tab`'s panel: labelled by its tab's button, and headed by the
/// tab's name for screen readers (`.rs-vh`), so that the headings inside a
/// view (the keyspace's, a scenario group's) sit under a second level, as
/// they do under a documentation page's sections.
fn tab_panel(view: El, tab: PageTab) -> El {
    let label = TABS
        .iter()
        .find(|(t, _, _)| *t == tab)
        .map_or("", |(_, _, label)| *label);
    view.attr("id", &view_id(tab))
        .attr("role", "tabpanel")
        .attr("aria-labelledby", &tab_id(tab))
        .child(El::new("h2").cls("rs-vh").text(label))
}

/// The lab tabs' places, built beside the shell's own root inside `host`
/// (`#redsim`). They are beside the shell, not in it, on purpose: each Yew
/// instance (the lab's) delegates events from its root, and the shell
/// reads clicks from its own bar only. Each holds a
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
        let place = tab_panel(El::new("div").cls("rs-pageview rs-labslot"), tab).el();
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
}
