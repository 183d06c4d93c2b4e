//! The keyspace panel: the selected database's keys with type, encoding and a TTL bar counting down; keys that are logically expired but not yet reclaimed are shown apart. Clicking a key opens it in the inspector.
//!
//! The engine reports only the TTL left. For the bar we also need the TTL the
//! key started with, so the panel remembers, per key, the TTL it last saw and
//! when: if the new TTL is not the old one minus the virtual time elapsed,
//! the TTL was set again (EXPIRE, SET … EX) and the bar restarts full.

use std::collections::HashMap;
use std::rc::Rc;

use redsim_engine::{Engine, KeyInfo};
use yew::prelude::*;

use crate::fmt::fmt_ttl;

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

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    pub rows: Rc<Vec<Row>>,
    pub count: usize,
    pub db: usize,
    /// The filter and how many keys match it.
    #[prop_or_default]
    pub pattern: String,
    #[prop_or_default]
    pub matched: usize,
    /// Called with the filter as it is typed; `None`: no filter box.
    #[prop_or_default]
    pub on_filter: Option<Callback<String>>,
    /// The key open in the inspector, highlighted.
    #[prop_or_default]
    pub selected: Option<String>,
    /// Called with a key's name when it is clicked.
    pub on_select: Callback<String>,
}

/// The panel. Re-renders only when a row changed (every tick while a TTL runs).
#[component]
pub fn KeyspacePanel(props: &PanelProps) -> Html {
    let shown = props.rows.len();
    let filtered = !props.pattern.is_empty();
    let listed = if filtered { props.matched } else { props.count };
    let filter = props.on_filter.clone().map(|on_filter| {
        let oninput = Callback::from(move |e: InputEvent| on_filter.emit(crate::dom::input_value(&e)));
        html! {
            <input class="rs-key-filter" type="search" placeholder="filter: user:*" aria-label="Filter keys by pattern"
                   value={ props.pattern.clone() } {oninput} spellcheck="false" autocomplete="off" />
        }
    });
    html! {
        <section class="rs-panel rs-keys" aria-label="Keyspace">
            <header class="rs-panel-head">
                <h3>{ "Keyspace" }</h3>
                <span class="rs-muted">
                    { format!("db{} · {} key{}", props.db, props.count, if props.count == 1 { "" } else { "s" }) }
                    if filtered { { format!(" · {} match", props.matched) } }
                    if shown < listed { { format!(" · first {shown} shown") } }
                </span>
                { for filter }
            </header>
            if props.rows.is_empty() && filtered {
                <p class="rs-empty">{ format!("No key matches {}.", props.pattern) }</p>
            } else if props.rows.is_empty() {
                <p class="rs-empty">{ "No keys. Try " }<code>{ "SET greeting hello EX 5" }</code></p>
            } else {
                <ul class="rs-keylist" role="group" aria-label="Keys">
                    { for props.rows.iter().map(|r| row(r, props.selected.as_deref() == Some(r.info.key.as_str()), &props.on_select)) }
                </ul>
            }
        </section>
    }
}

fn row(r: &Row, selected: bool, on_select: &Callback<String>) -> Html {
    let k = &r.info;
    let ttl = match (k.ttl_ms, r.total_ms) {
        (Some(ttl), _) if k.expired_pending => html! {
            <span class="rs-ttl rs-ttl-expired" title="Logically expired: still in memory until a lookup (lazy) or the active expire cycle reclaims it">
                <span class="rs-bar">{ crate::dom::bar("rs-bar-fill", 0.0) }</span>
                <span class="rs-ttl-text">{ format!("expired {} ago · not reclaimed yet", fmt_ttl(-ttl)) }</span>
            </span>
        },
        (Some(ttl), Some(total)) => {
            let pct = (ttl as f64 / total as f64 * 100.0).clamp(0.0, 100.0);
            let urgent = if ttl < 3000 {
                "rs-bar-fill rs-urgent"
            } else {
                "rs-bar-fill"
            };
            html! {
                <span class="rs-ttl" title={ format!("TTL {ttl} ms of {total} ms") }>
                    <span class="rs-bar">{ crate::dom::bar(urgent, pct) }</span>
                    <span class="rs-ttl-text">{ fmt_ttl(ttl) }</span>
                </span>
            }
        }
        _ => html! { <span class="rs-ttl rs-ttl-none" title="No expire set">{ "no TTL" }</span> },
    };
    let key = k.key.clone();
    let onclick = on_select.reform(move |_: MouseEvent| key.clone());
    let key = k.key.clone();
    let select = on_select.clone();
    let onkeydown = Callback::from(move |e: KeyboardEvent| {
        if e.key() == "Enter" || e.key() == " " {
            e.prevent_default();
            select.emit(key.clone());
        }
    });
    html! {
        <li class={ classes!("rs-key", k.expired_pending.then_some("rs-key-expired"), selected.then_some("rs-key-sel")) }
            data-key={ k.key.clone() } role="button" tabindex="0" aria-pressed={ selected.to_string() }
            title={ format!("Inspect {}", k.key) } {onclick} {onkeydown}>
            <span class="rs-keyname" title={ k.key.clone() }>{ &k.key }</span>
            <span class={ format!("rs-type rs-type-{}", k.kind) }>{ k.kind }</span>
            <span class="rs-enc">{ k.encoding }</span>
            { ttl }
        </li>
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
