//! Iframe mode: `embed.html?minimal=1&…` shows one widget, chosen and preset by the URL, without the page around it, and an "Open in Redsim" link to the same view on the full page (which also works where iframes are blocked).
//!
//! The widget is the same component a documentation element gets (the
//! console module mounts a console; the others are the lab module's, see
//! `lab.rs`): a
//! console (`cmd`, `#s`, `seed`, `clock`), a scenario (`scenario=<id>` and
//! its parameters), a lesson step (`lesson=<chapter>&step=<n>`) or the
//! topology (`tab=topology&…`).

use wasm_bindgen::JsCast;

use crate::console::share::Preset;
use crate::console::WidgetProps;
use crate::url::parse_query;

/// The widget an iframe URL asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Minimal {
    Console,
    Scenario,
    Lesson,
    Topology,
}

impl Minimal {
    /// `None` unless the URL says `minimal=1`; then the widget its other
    /// parameters name, a console by default.
    pub fn from_url(search: &str, hash: &str) -> Option<Minimal> {
        let pairs = url_pairs(search, hash);
        let minimal = pairs.iter().rev().find(|(n, _)| n == "minimal");
        if !matches!(minimal.map(|(_, v)| v.as_str()), Some("1" | "yes" | "true")) {
            return None;
        }
        Some(Minimal::named_by(&pairs))
    }

    /// The widget a URL's parameters name (with `minimal` already dropped,
    /// as the lab module gets them).
    pub fn from_params(search: &str, hash: &str) -> Minimal {
        Minimal::named_by(&url_pairs(search, hash))
    }

    fn named_by(pairs: &[(String, String)]) -> Minimal {
        let has = |k: &str| pairs.iter().any(|(n, _)| n == k);
        let tab = pairs.iter().rev().find(|(n, _)| n == "tab");
        if has("scenario") {
            Minimal::Scenario
        } else if has("lesson") {
            Minimal::Lesson
        } else if tab.map(|(_, v)| v.as_str()) == Some("topology") {
            Minimal::Topology
        } else {
            Minimal::Console
        }
    }
}

/// A query string's and a fragment's pairs, the fragment's last.
fn url_pairs(search: &str, hash: &str) -> Vec<(String, String)> {
    parse_query(search.trim_start_matches('?'))
        .into_iter()
        .chain(parse_query(hash.trim_start_matches('#')))
        .collect()
}

/// A query or fragment (`?`/`#` optional) without its `minimal` pairs: the
/// widget's own parameters, which a scenario would otherwise take for one
/// of its own.
fn without_minimal(part: &str) -> String {
    part.trim_start_matches(['?', '#'])
        .split('&')
        .filter(|p| !p.is_empty() && p.split('=').next() != Some("minimal"))
        .collect::<Vec<_>>()
        .join("&")
}

/// The full page's address for the same view: `index.html` beside the
/// embed page, with the query and fragment minus `minimal`.
pub fn open_link(search: &str, hash: &str) -> String {
    let (query, fragment) = (without_minimal(search), without_minimal(hash));
    let mut url = String::from("index.html");
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query);
    }
    if !fragment.is_empty() {
        url.push('#');
        url.push_str(&fragment);
    }
    url
}

/// Replaces the page's body with the one widget and the link out.
pub fn mount(doc: &web_sys::Document, kind: Minimal, search: &str, hash: &str) {
    let Some(body) = doc.body() else {
        return;
    };
    let link = open_link(search, hash);
    let (search, hash) = (&without_minimal(search), &without_minimal(hash));
    body.set_inner_html("");
    body.set_class_name("rs-page rs-minimal");
    let Ok(host) = doc.create_element("div") else {
        return;
    };
    host.set_class_name("rs-host rs-minimal-host");
    let _ = body.append_child(&host);
    if let Ok(a) = doc.create_element("a") {
        let _ = a.set_attribute("href", &link);
        let _ = a.set_attribute("target", "_blank");
        let _ = a.set_attribute("rel", "noopener");
        a.set_class_name("rs-openlink");
        a.set_text_content(Some("Open in Redsim ↗"));
        let _ = body.append_child(&a);
    }
    let Ok(host) = host.dyn_into::<web_sys::Element>() else {
        return;
    };
    if kind == Minimal::Console {
        let preset = crate::handover::link_for(0)
            .map_or_else(|| Preset::from_url(search, hash), |l| Preset::from_link(&l));
        let props = WidgetProps {
            preset,
            autofocus: false,
            shareable: false,
            host: 0,
        };
        crate::console::mount(&host, props);
        return;
    }
    // The other widgets are the lab module's: leave it their parameters.
    let _ = host.set_attribute("data-redsim-lab-minimal", "");
    let _ = host.set_attribute("data-search", search);
    let _ = host.set_attribute("data-hash", hash);
    crate::dom::load_lab();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_picks_the_widget() {
        assert_eq!(Minimal::from_url("?cmd=PING", ""), None);
        assert_eq!(Minimal::from_url("?minimal=0&cmd=PING", ""), None);
        assert_eq!(
            Minimal::from_url("?minimal=1&cmd=PING", ""),
            Some(Minimal::Console)
        );
        assert_eq!(
            Minimal::from_url("?minimal=1&scenario=stampede&seed=2", ""),
            Some(Minimal::Scenario)
        );
        assert_eq!(
            Minimal::from_url("?lesson=locks&step=2", "#minimal=1"),
            Some(Minimal::Lesson)
        );
        assert_eq!(
            Minimal::from_url("?minimal=1&tab=topology&seed=1", ""),
            Some(Minimal::Topology)
        );
    }

    #[test]
    fn the_lab_reads_the_widget_from_parameters_without_minimal() {
        assert_eq!(
            Minimal::from_params("?lesson=locks&step=2", ""),
            Minimal::Lesson
        );
        assert_eq!(Minimal::from_params("tab=topology", ""), Minimal::Topology);
    }

    #[test]
    fn the_link_out_drops_only_minimal() {
        assert_eq!(
            open_link("?minimal=1&scenario=stampede&seed=2", ""),
            "index.html?scenario=stampede&seed=2"
        );
        assert_eq!(open_link("?minimal=1", "#s=abc"), "index.html#s=abc");
        assert_eq!(open_link("?seed=1", "#minimal=1"), "index.html?seed=1");
        assert_eq!(open_link("", ""), "index.html");
    }
}
