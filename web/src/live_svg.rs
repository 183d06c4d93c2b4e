//! A drawing kept on the page from one tick to the next: each new drawing is cut into its top-level parts (`redsim_viz::parts`), the parts that went are removed, the new ones inserted in place and the others left alone, so the browser parses and styles only what changed.
//!
//! The Topology tab redraws its graph and timelines 20 times a second while
//! it plays. Put in whole, each drawing's thousand elements were parsed,
//! styled and laid out again at every tick, and the tab played at 42
//! frames/s. The host element is left empty by Yew, so Yew never touches
//! what is drawn here.

use std::ops::Range;

use redsim_viz::parts::{attributes, plan, split, Parts};
use web_sys::Element;

/// The drawing in one host element, as it was last shown.
#[derive(Default)]
pub struct LiveSvg {
    drawn: Option<Drawn>,
}

struct Drawn {
    svg: Element,
    /// The drawing's markup, kept whole: its root tag and parts are ranges
    /// of it, so a tick copies one string rather than a thousand.
    markup: String,
    open: Range<usize>,
    parts: Vec<Range<usize>>,
    /// The element each part became, in order.
    els: Vec<Element>,
}

impl LiveSvg {
    /// Shows `markup` in `host`, changing only what differs from the
    /// drawing shown there last; a host that holds something else (a
    /// fresh one, or markup this cannot cut) gets the drawing whole.
    pub fn show(&mut self, host: &Element, markup: &str) {
        let Some(p) = split(markup) else {
            self.drawn = None;
            host.set_inner_html(markup);
            return;
        };
        let ours = self.drawn.as_ref().is_some_and(|d| {
            host.child_element_count() == 1 && host.first_element_child().as_ref() == Some(&d.svg)
        });
        let patched = ours && self.drawn.as_mut().is_some_and(|d| d.patch(markup, &p));
        if !patched {
            self.drawn = whole(host, markup, &p);
        }
    }
}

impl Drawn {
    /// Turns the drawing into `p`: the root's changed attributes set, the
    /// parts no longer drawn removed, the new ones inserted where they go.
    /// `false` if the page's copy no longer matches (then it is redrawn).
    fn patch(&mut self, markup: &str, p: &Parts) -> bool {
        let was_open = &self.markup[self.open.clone()];
        if was_open != p.open {
            let (was, now) = (attributes(was_open), attributes(p.open));
            for (name, value) in &now {
                if !was.iter().any(|(n, v)| n == name && v == value) {
                    let _ = self.svg.set_attribute(name, value);
                }
            }
            for (name, _) in &was {
                if !now.iter().any(|(n, _)| n == name) {
                    let _ = self.svg.remove_attribute(name);
                }
            }
        }
        let keep = {
            let old: Vec<&str> = self.parts.iter().map(|r| &self.markup[r.clone()]).collect();
            plan(&old, &p.parts)
        };
        let mut kept = vec![false; self.els.len()];
        for &i in keep.iter().flatten() {
            kept[i] = true;
        }
        for (el, _) in self.els.iter().zip(&kept).filter(|(_, k)| !**k) {
            el.remove();
        }
        let mut els: Vec<Option<Element>> = keep
            .iter()
            .map(|k| k.map(|i| self.els[i].clone()))
            .collect();
        let mut j = 0;
        while j < els.len() {
            if els[j].is_some() {
                j += 1;
                continue;
            }
            // A run of new parts, inserted with one parse before the next
            // kept part (or at the end), then found as its elements.
            let start = j;
            while j < els.len() && els[j].is_none() {
                j += 1;
            }
            let markup = p.parts[start..j].concat();
            let mut last = match els.get(j).cloned().flatten() {
                Some(next) => {
                    if next.insert_adjacent_html("beforebegin", &markup).is_err() {
                        return false;
                    }
                    next.previous_element_sibling()
                }
                None => {
                    if self.svg.insert_adjacent_html("beforeend", &markup).is_err() {
                        return false;
                    }
                    self.svg.last_element_child()
                }
            };
            for slot in els[start..j].iter_mut().rev() {
                let Some(el) = last else {
                    return false;
                };
                last = el.previous_element_sibling();
                *slot = Some(el);
            }
        }
        if self.svg.child_element_count() as usize != els.len() {
            return false;
        }
        let Some(els) = els.into_iter().collect::<Option<Vec<_>>>() else {
            return false;
        };
        self.els = els;
        (self.open, self.parts) = ranges(markup, p);
        self.markup = markup.to_string();
        true
    }
}

/// Puts the drawing in whole and reads back its parts' elements; `None`
/// (the drawing shown, but not kept for patching) if they do not match.
fn whole(host: &Element, markup: &str, p: &Parts) -> Option<Drawn> {
    host.set_inner_html(markup);
    let svg = host.first_element_child()?;
    let children = svg.children();
    let els: Vec<Element> = (0..children.length())
        .filter_map(|i| children.item(i))
        .collect();
    (els.len() == p.parts.len()).then(|| {
        let (open, parts) = ranges(markup, p);
        Drawn {
            svg,
            markup: markup.to_string(),
            open,
            parts,
            els,
        }
    })
}

/// Where `p`'s root tag and parts lie in `markup`, which they were cut from.
fn ranges(markup: &str, p: &Parts) -> (Range<usize>, Vec<Range<usize>>) {
    let at = |s: &str| {
        let start = s.as_ptr() as usize - markup.as_ptr() as usize;
        start..start + s.len()
    };
    (at(p.open), p.parts.iter().map(|s| at(s)).collect())
}
