//! The race diagram during playback: drawn once per run and width (`redsim_viz::diagram_svg_live`), then moved to each cursor by the few attributes that change, so a tick costs no parse and no layout of the whole drawing.
//!
//! Redrawn as a new string at every 40 ms tick, a diagram of some 500
//! elements was parsed and laid out again each time, and frames were
//! dropped while a scenario played. Here the markup stays the same string
//! (Yew leaves equal raw markup alone), and [`LiveDiagram::apply`] sets
//! `opacity` on what lies after the cursor, the dash on messages in flight,
//! and the cursor's line and tag, only where they differ from the last
//! tick. `redsim_viz`'s tests hold that this gives the drawing
//! `diagram_svg_fit` makes at the same cursor.

use std::cell::RefCell;
use std::rc::Rc;

use redsim_sim::Outcome;
use redsim_viz::svg::px;
use redsim_viz::{diagram_cursor, in_flight, is_future, FUTURE_OPACITY, IN_FLIGHT_DASH};
use wasm_bindgen::JsCast;
use web_sys::Element;
use yew::{AttrValue, Html};

/// One element of the drawing that the cursor dims, and its message line
/// (a step between two lanes) that it dashes while in flight.
struct Dimmable {
    el: Element,
    at_us: u64,
    msg: Option<(u64, Element)>,
    dim: bool,
    dashed: bool,
}

/// The cursor's group and its line, tag and time.
struct Cursor {
    group: Element,
    line: Element,
    tag: Element,
    time: Element,
}

/// The drawing read back from the page: what the last [`LiveDiagram::apply`]
/// found and set.
struct Drawn {
    svg: Element,
    items: Vec<Dimmable>,
    cursor: Option<Cursor>,
    /// The cursor last applied (`None`: the whole run shown).
    at: Option<u64>,
}

/// The live diagram of a library: its markup, kept while the run and the
/// width stay, and the page's copy of it.
#[derive(Default)]
pub struct LiveDiagram {
    markup: RefCell<Option<(Rc<Outcome>, u64, AttrValue)>>,
    drawn: Option<Drawn>,
}

impl LiveDiagram {
    /// The diagram's markup for `o` at `width`, made once for the pair.
    pub fn markup(&self, o: &Rc<Outcome>, width: f64) -> Option<Html> {
        let d = o.diagram.as_ref()?;
        let mut m = self.markup.borrow_mut();
        let fresh = m
            .as_ref()
            .is_some_and(|(run, w, _)| Rc::ptr_eq(run, o) && *w == width.to_bits());
        if !fresh {
            let svg = redsim_viz::diagram_svg_live(d, width);
            *m = Some((o.clone(), width.to_bits(), AttrValue::from(svg)));
        }
        m.as_ref()
            .map(|(_, _, svg)| Html::from_html_unchecked(svg.clone()))
    }

    /// Moves the drawing inside `boxed` (the diagram's box) to `cursor`:
    /// only the attributes whose state changed since the last call, all of
    /// them when the page put in a new drawing.
    pub fn apply(&mut self, boxed: &Element, o: &Outcome, cursor: Option<u64>, width: f64) {
        let (Some(d), Some(svg)) = (o.diagram.as_ref(), boxed.first_element_child()) else {
            self.drawn = None;
            return;
        };
        if self.drawn.as_ref().is_none_or(|dr| dr.svg != svg) {
            self.drawn = Some(read(svg));
        }
        let Some(dr) = self.drawn.as_mut() else {
            return;
        };
        if dr.at == cursor {
            return;
        }
        dr.at = cursor;
        for it in &mut dr.items {
            let dim = cursor.is_some_and(|c| is_future(it.at_us, c));
            if dim != it.dim {
                it.dim = dim;
                let _ = if dim {
                    it.el.set_attribute("opacity", FUTURE_OPACITY)
                } else {
                    it.el.remove_attribute("opacity")
                };
            }
            if let Some((until, line)) = &it.msg {
                let dashed = cursor.is_some_and(|c| in_flight(it.at_us, *until, c));
                if dashed != it.dashed {
                    it.dashed = dashed;
                    let _ = if dashed {
                        line.set_attribute("stroke-dasharray", IN_FLIGHT_DASH)
                    } else {
                        line.remove_attribute("stroke-dasharray")
                    };
                }
            }
        }
        let Some(cur) = &dr.cursor else {
            return;
        };
        let Some(c) = cursor else {
            let _ = cur.group.set_attribute("display", "none");
            return;
        };
        let m = diagram_cursor(d, c, width);
        let y = px(m.y);
        let _ = cur.line.set_attribute("y1", &y);
        let _ = cur.line.set_attribute("y2", &y);
        let _ = cur.tag.set_attribute("y", &px(m.y - 8.0));
        let _ = cur.tag.set_attribute("width", &px(m.tag_w));
        let _ = cur.time.set_attribute("y", &px(m.y + 3.5));
        cur.time.set_text_content(Some(&m.label));
        let _ = cur.group.remove_attribute("display");
    }
}

/// The dimmable elements and the cursor of a drawing just put in the page,
/// drawn with no cursor (nothing dimmed or dashed).
fn read(svg: Element) -> Drawn {
    let num = |el: &Element, name: &str| el.get_attribute(name)?.parse::<u64>().ok();
    let mut items = Vec::new();
    if let Ok(list) = svg.query_selector_all("[data-at]") {
        for i in 0..list.length() {
            let Some(el) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
                continue;
            };
            let Some(at_us) = num(&el, "data-at") else {
                continue;
            };
            let msg = num(&el, "data-until")
                .and_then(|u| Some((u, el.query_selector(".rsv-msg").ok()??)));
            items.push(Dimmable {
                el,
                at_us,
                msg,
                dim: false,
                dashed: false,
            });
        }
    }
    let pick = |g: &Element, sel: &str| g.query_selector(sel).ok().flatten();
    let cursor = pick(&svg, ".rsv-cursor-g").and_then(|group| {
        Some(Cursor {
            line: pick(&group, ".rsv-cursor")?,
            tag: pick(&group, ".rsv-cursor-tag")?,
            time: pick(&group, ".rsv-cursor-time")?,
            group,
        })
    });
    Drawn {
        svg,
        items,
        cursor,
        at: None,
    }
}
