//! Plain DOM building for the console page's own views (the page shell, the console widget and its keyspace panel), which draw without Yew.
//!
//! Why not Yew here: those views are the whole first frame of a console
//! page, and everything that frame runs is compiled before the first reply
//! (issue 17). A page that drew them with Yew spent about 20 ms more before
//! its first reply on a 2-core machine: the framework's code in the first
//! wasm part, compiled lazily as it ran, then its scheduler and diffing. The
//! views are small and change in few places, so each keeps the elements it
//! changes and sets them directly. Yew still draws what only shows later
//! (the timeline's chart, the key inspector, the lab).

use wasm_bindgen::JsCast;
use web_sys::{Document, Element};

thread_local! {
    static DOC: Option<Document> = web_sys::window().and_then(|w| w.document());
}

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// An element being built.
pub struct El(pub Element);

impl El {
    /// A new HTML element.
    pub fn new(tag: &str) -> El {
        El(make(|d| d.create_element(tag).ok()))
    }

    /// A new SVG element.
    pub fn svg(tag: &str) -> El {
        El(make(|d| d.create_element_ns(Some(SVG_NS), tag).ok()))
    }

    pub fn cls(self, class: &str) -> El {
        self.0.set_class_name(class);
        self
    }

    pub fn attr(self, name: &str, value: &str) -> El {
        let _ = self.0.set_attribute(name, value);
        self
    }

    /// Appends text (never parsed as markup).
    pub fn text(self, text: &str) -> El {
        let _ = self.0.append_with_str_1(text);
        self
    }

    pub fn child(self, child: El) -> El {
        let _ = self.0.append_child(&child.0);
        self
    }

    pub fn children(self, children: impl IntoIterator<Item = El>) -> El {
        for c in children {
            let _ = self.0.append_child(&c.0);
        }
        self
    }

    /// Sets the content from markup this crate wrote (never user text).
    pub fn markup(self, markup: &str) -> El {
        self.0.set_inner_html(markup);
        self
    }

    pub fn el(self) -> Element {
        self.0
    }
}

/// An element from the page's document; a detached placeholder where
/// there is none (the views then draw nothing visible).
fn make(f: impl FnOnce(&Document) -> Option<Element>) -> Element {
    // Views are only built for hosts found in a document, so the fallback
    // is never shown.
    DOC.with(|d| d.as_ref().and_then(f))
        .unwrap_or_else(|| js_sys::Object::new().unchecked_into())
}

/// Replaces `parent`'s children with `children`.
pub fn replace(parent: &Element, children: impl IntoIterator<Item = El>) {
    parent.set_text_content(None);
    for c in children {
        let _ = parent.append_child(&c.0);
    }
}

/// Sets `el`'s text if it differs (an unchanged text is not written, so
/// the page is not restyled for nothing).
pub fn set_text(el: &Element, text: &str) {
    if el.text_content().as_deref() != Some(text) {
        el.set_text_content(Some(text));
    }
}

/// Adds or removes one class.
pub fn toggle(el: &Element, class: &str, on: bool) {
    let _ = el.class_list().toggle_with_force(class, on);
}

/// The nearest element from an event's target up that matches `selector`,
/// within `root`.
pub fn closest(e: &web_sys::Event, selector: &str, root: &Element) -> Option<Element> {
    let target = e.target()?.dyn_into::<Element>().ok()?;
    let found = target.closest(selector).ok()??;
    root.contains(Some(&found)).then_some(found)
}

/// An SVG bar filled to `pct` percent (see `crate::dom::bar`, its Yew twin
/// for the lab's views): its width is a presentation attribute, which a
/// strict Content-Security-Policy allows where an inline style is dropped.
pub fn bar(class: &str, pct: f64) -> El {
    El::svg("svg")
        .attr("class", "rs-bar-svg")
        .attr("viewBox", "0 0 100 1")
        .attr("preserveAspectRatio", "none")
        .attr("aria-hidden", "true")
        .child(
            El::svg("rect")
                .attr("class", class)
                .attr("width", &bar_width(pct))
                .attr("height", "1"),
        )
}

/// The width of a bar's rectangle filled to `pct` percent, in its
/// `0 0 100 1` view box: clamped, and zero for a value that is no number.
pub fn bar_width(pct: f64) -> String {
    let w = if pct.is_finite() {
        pct.clamp(0.0, 100.0)
    } else {
        0.0
    };
    crate::fmt::fixed(w, 1)
}

#[cfg(test)]
mod tests {
    use super::bar_width;

    #[test]
    fn a_bar_is_clamped_to_its_box_and_never_nan() {
        assert_eq!(bar_width(42.0), "42.0");
        assert_eq!(bar_width(-5.0), "0.0");
        assert_eq!(bar_width(250.0), "100.0");
        assert_eq!(bar_width(f64::NAN), "0.0");
        assert_eq!(bar_width(f64::INFINITY), "0.0");
    }
}
