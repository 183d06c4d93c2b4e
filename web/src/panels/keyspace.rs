//! The keyspace panel: the selected database's keys with type, encoding and a TTL bar counting down; keys that are logically expired but not yet reclaimed are shown apart. Clicking a key opens it in the inspector.
//!
//! The engine reports only the TTL left. For the bar we also need the TTL the
//! key started with, so the panel remembers, per key, the TTL it last saw and
//! when: if the new TTL is not the old one minus the virtual time elapsed,
//! the TTL was set again (EXPIRE, SET … EX) and the bar restarts full.

use std::collections::HashMap;
use std::rc::Rc;

use redsim_engine::{Engine, KeyInfo};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};

use crate::fmt::fmt_ttl;
use crate::ui::{bar, set_text, El};

/// Most keys the panel lists; the header says how many there are in all.
pub const LIMIT: usize = 200;

/// One row of the panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub info: KeyInfo,
    /// The TTL the bar is measured against, ms.
    pub total_ms: Option<i64>,
}

/// The panel's model, refreshed from `keys_snapshot` after every change.
#[derive(Default)]
pub struct Keyspace {
    /// Per key: (bar total, last TTL seen, virtual ms when seen).
    seen: HashMap<String, (i64, i64, i64)>,
    pub rows: Rc<Vec<Row>>,
    /// Keys in the database (the panel may list fewer).
    pub count: usize,
    pub db: usize,
    /// The glob the list is filtered by (empty: every key).
    pub pattern: String,
    /// Keys matching `pattern` in all.
    pub matched: usize,
}

impl Keyspace {
    /// Re-reads database `db` of `engine`.
    pub fn refresh(&mut self, engine: &Engine, db: usize) {
        let now_ms = engine.unix_ms();
        let pattern = if self.pattern.is_empty() {
            "*"
        } else {
            &self.pattern
        };
        let (snapshot, matched) = engine.keys_matching(db, pattern.as_bytes(), LIMIT);
        let rows = self.rows_from(snapshot, now_ms);
        self.matched = matched;
        self.count = engine.dbsize(db);
        self.db = db;
        if *self.rows != rows {
            self.rows = Rc::new(rows);
        }
    }

    /// Turns a snapshot into rows, updating the remembered TTLs.
    fn rows_from(&mut self, snapshot: Vec<KeyInfo>, now_ms: i64) -> Vec<Row> {
        let mut seen = HashMap::with_capacity(snapshot.len());
        let rows = snapshot
            .into_iter()
            .map(|info| {
                let total_ms = info.ttl_ms.map(|ttl| {
                    let total = match self.seen.get(&info.key) {
                        Some(&(total, last, at)) if ttl == last - (now_ms - at) => total,
                        _ => ttl.max(1),
                    };
                    seen.insert(info.key.clone(), (total, ttl, now_ms));
                    total
                });
                Row { info, total_ms }
            })
            .collect();
        self.seen = seen;
        rows
    }
}

/// What the panel shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PanelView {
    pub rows: Rc<Vec<Row>>,
    pub count: usize,
    pub db: usize,
    pub pattern: String,
    pub matched: usize,
    /// The key the inspector shows, if it is in this database.
    pub selected: Option<String>,
}

/// The keyspace panel's elements. The filter box stays while the list
/// changes (it keeps its focus and caret); rows are patched in place while
/// the same keys are listed, so a row keeps its focus as its TTL counts
/// down. Clicks and keys are read by the widget: a row's `data-key`, the
/// filter's `input` events.
pub struct KeyspacePanel {
    pub root: Element,
    summary: Element,
    filter: HtmlInputElement,
    /// The list, or the line saying there is none, after the header.
    content: Option<Element>,
    list: Option<Element>,
    rows: Vec<(Row, bool, Element)>,
    shown: Option<PanelView>,
}

impl KeyspacePanel {
    /// `label`: its accessible name (see [`crate::console::panel_name`]).
    pub fn new(label: &str) -> KeyspacePanel {
        let summary = El::new("span").cls("rs-muted").el();
        let filter = El::new("input")
            .cls("rs-key-filter")
            .attr("type", "search")
            .attr("placeholder", "filter: user:*")
            .attr("aria-label", "Filter keys by pattern")
            .attr("spellcheck", "false")
            .attr("autocomplete", "off")
            .el();
        let root = El::new("section")
            .cls("rs-panel rs-keys")
            .attr("aria-label", label)
            .child(
                El::new("header")
                    .cls("rs-panel-head")
                    .child(El::new("h3").text("Keyspace"))
                    .child(El(summary.clone()))
                    .child(El(filter.clone())),
            )
            .el();
        KeyspacePanel {
            root,
            summary,
            filter: filter.unchecked_into(),
            content: None,
            list: None,
            rows: Vec::new(),
            shown: None,
        }
    }

    pub fn show(&mut self, v: &PanelView) {
        if self.shown.as_ref() == Some(v) {
            return;
        }
        let shown = v.rows.len();
        let filtered = !v.pattern.is_empty();
        let listed = if filtered { v.matched } else { v.count };
        let mut summary = format!(
            "db{} · {} key{}",
            v.db,
            v.count,
            if v.count == 1 { "" } else { "s" }
        );
        if filtered {
            summary.push_str(&format!(" · {} match", v.matched));
        }
        if shown < listed {
            summary.push_str(&format!(" · first {shown} shown"));
        }
        set_text(&self.summary, &summary);
        if self.filter.value() != v.pattern {
            self.filter.set_value(&v.pattern);
        }
        if v.rows.is_empty() {
            self.list = None;
            self.rows.clear();
            let empty = if filtered {
                El::new("p")
                    .cls("rs-empty")
                    .text(&format!("No key matches {}.", v.pattern))
            } else {
                El::new("p")
                    .cls("rs-empty")
                    .text("No keys. Try ")
                    .child(El::new("code").text("SET greeting hello EX 5"))
            };
            self.set_content(empty.el());
        } else {
            self.show_rows(&v.rows, v.selected.as_deref());
        }
        self.shown = Some(v.clone());
    }

    fn show_rows(&mut self, rows: &[Row], selected: Option<&str>) {
        let same_keys = self.list.is_some()
            && self.rows.len() == rows.len()
            && self
                .rows
                .iter()
                .zip(rows)
                .all(|((r, _, _), n)| r.info.key == n.info.key);
        if same_keys {
            for ((old, was, el), new) in self.rows.iter_mut().zip(rows) {
                let sel = selected == Some(new.info.key.as_str());
                if *old != *new || *was != sel {
                    patch_row(el, new, sel);
                    *old = new.clone();
                    *was = sel;
                }
            }
            return;
        }
        // Plain boxes, not a list: each row is a button, a role a list
        // item may not take.
        let list = El::new("div")
            .cls("rs-keylist")
            .attr("role", "group")
            .attr("aria-label", "Keys")
            .el();
        self.rows = rows
            .iter()
            .map(|r| {
                let sel = selected == Some(r.info.key.as_str());
                let el = row(r, sel);
                let _ = list.append_child(&el);
                (r.clone(), sel, el)
            })
            .collect();
        self.set_content(list.clone());
        self.list = Some(list);
    }

    fn set_content(&mut self, new: Element) {
        match self.content.replace(new.clone()) {
            Some(old) => {
                let _ = self.root.replace_child(&new, &old);
            }
            None => {
                let _ = self.root.append_child(&new);
            }
        }
    }
}

fn row_class(r: &Row, selected: bool) -> String {
    let mut class = String::from("rs-key");
    if r.info.expired_pending {
        class.push_str(" rs-key-expired");
    }
    if selected {
        class.push_str(" rs-key-sel");
    }
    class
}

fn row(r: &Row, selected: bool) -> Element {
    let k = &r.info;
    El::new("div")
        .cls(&row_class(r, selected))
        .attr("data-key", &k.key)
        .attr("role", "button")
        .attr("tabindex", "0")
        .attr("aria-pressed", if selected { "true" } else { "false" })
        .attr("title", &format!("Inspect {}", k.key))
        .child(
            El::new("span")
                .cls("rs-keyname")
                .attr("title", &k.key)
                .text(&k.key),
        )
        .child(
            El::new("span")
                .cls(&format!("rs-type rs-type-{}", k.kind))
                .text(k.kind),
        )
        .child(El::new("span").cls("rs-enc").text(k.encoding))
        .child(ttl(r))
        .el()
}

/// Brings a drawn row up to `r` (same key).
fn patch_row(el: &Element, r: &Row, selected: bool) {
    el.set_class_name(&row_class(r, selected));
    let _ = el.set_attribute("aria-pressed", if selected { "true" } else { "false" });
    let children = el.children();
    if let (Some(kind), Some(enc)) = (children.item(1), children.item(2)) {
        kind.set_class_name(&format!("rs-type rs-type-{}", r.info.kind));
        set_text(&kind, r.info.kind);
        set_text(&enc, r.info.encoding);
    }
    if let Some(old) = children.item(3) {
        let _ = el.replace_child(&ttl(r).el(), &old);
    }
}

fn ttl(r: &Row) -> El {
    let k = &r.info;
    match (k.ttl_ms, r.total_ms) {
        (Some(ttl), _) if k.expired_pending => El::new("span")
            .cls("rs-ttl rs-ttl-expired")
            .attr(
                "title",
                "Logically expired: still in memory until a lookup (lazy) or the active expire cycle reclaims it",
            )
            .child(El::new("span").cls("rs-bar").child(bar("rs-bar-fill", 0.0)))
            .child(
                El::new("span")
                    .cls("rs-ttl-text")
                    .text(&format!("expired {} ago · not reclaimed yet", fmt_ttl(-ttl))),
            ),
        (Some(ttl), Some(total)) => {
            let pct = (ttl as f64 / total as f64 * 100.0).clamp(0.0, 100.0);
            let fill = if ttl < 3000 {
                "rs-bar-fill rs-urgent"
            } else {
                "rs-bar-fill"
            };
            El::new("span")
                .cls("rs-ttl")
                .attr("title", &format!("TTL {ttl} ms of {total} ms"))
                .child(El::new("span").cls("rs-bar").child(bar(fill, pct)))
                .child(El::new("span").cls("rs-ttl-text").text(&fmt_ttl(ttl)))
        }
        _ => El::new("span")
            .cls("rs-ttl rs-ttl-none")
            .attr("title", "No expire set")
            .text("no TTL"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(key: &str, ttl_ms: Option<i64>) -> KeyInfo {
        KeyInfo {
            key: key.into(),
            kind: "string",
            encoding: "embstr",
            ttl_ms,
            expired_pending: ttl_ms.is_some_and(|t| t < 0),
        }
    }

    #[test]
    fn bar_total_is_kept_while_the_ttl_counts_down_and_reset_when_it_is_set_again() {
        let mut ks = Keyspace::default();
        let r = ks.rows_from(vec![info("a", Some(5000)), info("b", None)], 1000);
        assert_eq!(r[0].total_ms, Some(5000));
        assert_eq!(r[1].total_ms, None);
        // 1.5 s later: same expire, counting down.
        let r = ks.rows_from(vec![info("a", Some(3500))], 2500);
        assert_eq!(r[0].total_ms, Some(5000));
        // EXPIRE a 100 at the same instant: a new total.
        let r = ks.rows_from(vec![info("a", Some(100_000))], 2500);
        assert_eq!(r[0].total_ms, Some(100_000));
        // A shorter TTL set again is detected too.
        let r = ks.rows_from(vec![info("a", Some(2000))], 3000);
        assert_eq!(r[0].total_ms, Some(2000));
    }

    #[test]
    fn forgotten_keys_start_afresh() {
        let mut ks = Keyspace::default();
        ks.rows_from(vec![info("a", Some(5000))], 0);
        ks.rows_from(vec![], 1000);
        let r = ks.rows_from(vec![info("a", Some(3000))], 2000);
        assert_eq!(r[0].total_ms, Some(3000));
    }

    #[test]
    fn a_filter_finds_keys_beyond_the_first_page() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        for i in 0..500 {
            e.execute_line(c, &format!("SET k{i:03} v"));
        }
        e.execute_line(c, "SET user:ann 1");
        e.execute_line(c, "SET user:bob 2");
        let mut ks = Keyspace::default();
        ks.refresh(&e, 0);
        assert_eq!((ks.rows.len(), ks.count), (LIMIT, 502));
        assert!(ks.rows.iter().all(|r| !r.info.key.starts_with("user:")));
        ks.pattern = "user:*".into();
        ks.refresh(&e, 0);
        let names: Vec<&str> = ks.rows.iter().map(|r| r.info.key.as_str()).collect();
        assert_eq!(names, ["user:ann", "user:bob"]);
        assert_eq!((ks.matched, ks.count), (2, 502));
        ks.pattern = "k4[5-9]?".into();
        ks.refresh(&e, 0);
        assert_eq!(ks.matched, 50);
    }

    #[test]
    fn refresh_reads_the_engine() {
        let mut e = Engine::new(1);
        let mut ks = Keyspace::default();
        ks.refresh(&e, 0);
        assert_eq!(ks.count, 0);
        assert!(ks.rows.is_empty());
        let c = e.connect("t");
        e.execute_line(c, "SET a 1");
        e.execute_line(c, "SET b 2 PX 1500");
        ks.refresh(&e, 0);
        assert_eq!(ks.count, 2);
        assert_eq!(ks.rows[0].info.key, "a");
        assert_eq!(ks.rows[0].total_ms, None);
        assert_eq!(ks.rows[1].info.ttl_ms, Some(1500));
        assert_eq!(ks.rows[1].total_ms, Some(1500));
        e.advance_by(1_000_000);
        ks.refresh(&e, 0);
        assert_eq!(ks.rows[1].info.ttl_ms, Some(500));
        assert_eq!(ks.rows[1].total_ms, Some(1500));
        ks.refresh(&e, 1);
        assert_eq!((ks.count, ks.db, ks.rows.len()), (0, 1, 0));
    }
}
