//! The inspector's body for each type: a string's bytes, a hash's or sorted set's pairs, a set's members, a list's quicklist nodes, a stream's nodes, entries and consumer groups, a skiplist or a HyperLogLog picture.

use redsim_engine::inspect::{Body, KeyView, ListView, Preview, StreamView, ZSetView};
use yew::prelude::*;

use super::hll::hll_view;
use crate::dom::raw_html;
use crate::fmt::fmt_bytes;

fn more(n: usize) -> Html {
    html! {
        if n > 0 { <li class="rs-more">{ format!("+ {n} more") }</li> }
    }
}

pub fn body(v: &KeyView) -> Html {
    match &v.body {
        Body::String { preview, truncated } => html! {
            <>
                <div class="rs-sub">{ match v.encoding {
                    "int" => "int: stored as a 64-bit integer inside the object, no string allocated.",
                    "embstr" => "embstr: the bytes live in the same allocation as the object header (up to 44 bytes).",
                    _ => "raw: a separately allocated string (longer than 44 bytes, or modified in place by APPEND/SETRANGE).",
                } }</div>
                <pre class="rs-strval">{ preview }{ if *truncated { " (cut)" } else { "" } }</pre>
            </>
        },
        Body::Hll(h) => hll_view(h),
        Body::List(l) => list_view(l, v.encoding),
        Body::Hash { fields } => html! {
            <>
                <div class="rs-sub">{ if v.encoding == "listpack" {
                    "listpack: fields and values packed one after the other in one block, in insertion order."
                } else {
                    "hashtable: a dict of field → value (it never converts back to a listpack)."
                } }</div>
                { pairs_table(fields, "field", "value") }
            </>
        },
        Body::Set { members, all_ints } => html! {
            <>
                <div class="rs-sub">{ match v.encoding {
                    "intset" => "intset: sorted integers in one array; a non-integer member converts it.",
                    "listpack" => "listpack: members packed in insertion order.",
                    _ => "hashtable: members as dict keys.",
                } }{ match all_ints { Some(true) if v.encoding != "intset" => " All members are integers.", _ => "" } }</div>
                <ul class="rs-chipsrow">
                    { for members.items.iter().map(|m| html! { <li class="rs-elem">{ m }</li> }) }
                    { more(members.more) }
                </ul>
            </>
        },
        Body::ZSet(z) => zset_view(z, v),
        Body::Stream(s) => stream_view(s),
        Body::Other => html! {
            <div class="rs-sub">{ format!("No picture for {} values yet.", v.kind) }</div>
        },
    }
}

fn pairs_table(p: &Preview<(String, String)>, a: &str, b: &str) -> Html {
    html! {
        <table class="rs-pairs">
            <thead><tr><th>{ a.to_string() }</th><th>{ b.to_string() }</th></tr></thead>
            <tbody>
                { for p.items.iter().map(|(x, y)| html! { <tr><td>{ x }</td><td>{ y }</td></tr> }) }
                if p.more > 0 {
                    <tr class="rs-more"><td colspan="2">{ format!("+ {} more", p.more) }</td></tr>
                }
            </tbody>
        </table>
    }
}

fn list_view(l: &ListView, encoding: &str) -> Html {
    let limit = match l.node_max_entries {
        Some(n) => format!("{n} entries (and {} B)", l.node_max_bytes),
        None => fmt_bytes(l.node_max_bytes),
    };
    let intro = if encoding == "listpack" {
        format!("listpack: one block of packed entries; becomes a quicklist past {limit} (list-max-listpack-size {}).", l.fill)
    } else {
        format!(
            "quicklist: a doubly linked list of {} listpack node{}, each up to {limit} (fill {}); back to a listpack once one node holds half of that.",
            l.node_count,
            if l.node_count == 1 { "" } else { "s" },
            l.fill
        )
    };
    let nodes = l.nodes.iter().enumerate().map(|(i, n)| {
        let pct = match l.node_max_entries {
            Some(max) if max > 0 => (n.entries as f64 / max as f64).max(n.bytes as f64 / l.node_max_bytes as f64),
            _ => n.bytes as f64 / l.node_max_bytes.max(1) as f64,
        };
        html! {
            <>
                if i > 0 { <li class="rs-qn-link" aria-hidden="true">{ "⇄" }</li> }
                <li class={ classes!("rs-qn", n.plain.then_some("rs-qn-plain")) }
                    title={ format!("node {}: {} entr{}, {} bytes{}", i + 1, n.entries, if n.entries == 1 { "y" } else { "ies" }, n.bytes, if n.plain { " (plain: one large element)" } else { "" }) }>
                    <span class="rs-qn-count">{ n.entries }</span>
                    <span class="rs-qn-label">{ if n.plain { "plain" } else { "entries" } }</span>
                    <span class="rs-qn-bar">{ crate::dom::bar("rs-qn-fill", pct * 100.0) }</span>
                    <span class="rs-qn-bytes">{ fmt_bytes(n.bytes) }</span>
                </li>
            </>
        }
    });
    html! {
        <>
            <div class="rs-sub">{ intro }</div>
            <ol class="rs-qnodes" aria-label="List nodes">
                { for nodes }
                if l.node_count > l.nodes.len() {
                    <li class="rs-more">{ format!("+ {} more nodes", l.node_count - l.nodes.len()) }</li>
                }
            </ol>
            <ol class="rs-chipsrow" start="0">
                { for l.items.items.iter().map(|m| html! { <li class="rs-elem">{ m }</li> }) }
                { more(l.items.more) }
            </ol>
        </>
    }
}

fn stream_view(s: &StreamView) -> Html {
    let limit = |n: u64, unit: &str| {
        if n == 0 {
            "unlimited".to_string()
        } else {
            format!("{n}{unit}")
        }
    };
    let nodes = s.nodes.iter().map(|n| {
        let pct = if s.node_max_entries > 0 {
            (n.live + n.deleted) as f64 / s.node_max_entries as f64 * 100.0
        } else {
            0.0
        };
        html! {
            <li class="rs-qn rs-sn" title={ format!("node {}: {} live, {} deleted, {} bytes", n.master_id, n.live, n.deleted, n.bytes) }>
                <span class="rs-qn-count">{ n.live }</span>
                <span class="rs-qn-label">{ if n.deleted > 0 { format!("live · {} deleted", n.deleted) } else { "live".to_string() } }</span>
                <span class="rs-qn-bar">{ crate::dom::bar("rs-qn-fill", pct) }</span>
                <span class="rs-qn-bytes">{ n.master_id.clone() }</span>
            </li>
        }
    });
    let entries = s.entries.items.iter().map(|e| {
        let fields = e
            .fields
            .iter()
            .map(|(f, v)| format!("{f}={v}"))
            .collect::<Vec<_>>()
            .join("  ");
        html! { <tr data-id={ e.id.clone() }><td class="rs-sid">{ &e.id }</td><td>{ fields }</td></tr> }
    });
    let groups = s.groups.iter().map(|g| {
        html! {
            <li class="rs-group" data-group={ g.name.clone() }>
                <div class="rs-group-head">
                    <span class="rs-group-name">{ &g.name }</span>
                    <span class="rs-muted">{ "last-delivered-id" }</span><span class="rs-sid rs-group-last">{ &g.last_delivered }</span>
                    <span class="rs-muted">{ format!("entries-read {} · {} pending", if g.entries_read < 0 { "?".to_string() } else { g.entries_read.to_string() }, g.pending) }</span>
                </div>
                <ul class="rs-consumers">
                    { for g.consumers.iter().map(|c| html! {
                        <li class="rs-consumer" data-consumer={ c.name.clone() }>
                            <span class="rs-consumer-name">{ &c.name }</span>
                            <span class="rs-muted">{ "PEL" }</span>
                            if c.pending.items.is_empty() {
                                <span class="rs-muted">{ "empty" }</span>
                            }
                            { for c.pending.items.iter().map(|id| html! { <span class="rs-elem rs-sid">{ id }</span> }) }
                            if c.pending.more > 0 { <span class="rs-more">{ format!("+ {} more", c.pending.more) }</span> }
                        </li>
                    }) }
                    if g.consumer_count > g.consumers.len() {
                        <li class="rs-more">{ format!("+ {} more consumers", g.consumer_count - g.consumers.len()) }</li>
                    }
                </ul>
            </li>
        }
    });
    html! {
        <>
            <div class="rs-sub">{ format!(
                "stream: entries in listpack nodes of up to {} entries or {} (stream-node-max-entries / -bytes), indexed by a radix tree on each node's first ID. Deleted entries stay as tombstones until their node empties.",
                limit(s.node_max_entries, ""),
                limit(s.node_max_bytes, " bytes")
            ) }</div>
            <dl class="rs-facts rs-facts-row">
                <dt>{ "first / last ID" }</dt><dd>{ format!("{} … {}", s.first_id, s.last_id) }</dd>
                <dt>{ "entries added" }</dt><dd>{ s.entries_added }</dd>
                <dt>{ "max deleted ID" }</dt><dd>{ &s.max_deleted_id }</dd>
            </dl>
            <ol class="rs-qnodes" aria-label="Stream nodes">
                { for nodes }
                if s.node_count > s.nodes.len() {
                    <li class="rs-more">{ format!("+ {} more nodes", s.node_count - s.nodes.len()) }</li>
                }
            </ol>
            <table class="rs-pairs rs-stream-entries">
                <thead><tr><th>{ "ID" }</th><th>{ "fields" }</th></tr></thead>
                <tbody>
                    if s.entries.more > 0 {
                        <tr class="rs-more"><td colspan="2">{ format!("{} older entries", s.entries.more) }</td></tr>
                    }
                    { for entries }
                </tbody>
            </table>
            if !s.groups.is_empty() {
                <ul class="rs-groups" aria-label="Consumer groups">
                    { for groups }
                    if s.group_count > s.groups.len() {
                        <li class="rs-more">{ format!("+ {} more groups", s.group_count - s.groups.len()) }</li>
                    }
                </ul>
            }
        </>
    }
}

fn zset_view(z: &ZSetView, v: &KeyView) -> Html {
    match &z.skiplist {
        Some(s) => html! {
            <>
                <div class="rs-sub">{ format!(
                    "skiplist: {} levels in use. Each node has a random height; a link at level k jumps over as many nodes as its label (its span), so ranks are found in O(log n). A dict maps members to scores beside it.{}",
                    s.levels,
                    if s.hidden > 0 { format!(" First {} of {} nodes drawn.", s.nodes.len(), v.len) } else { String::new() }
                ) }</div>
                <div class="rs-sl-scroll" tabindex="0" role="group" aria-label="Skiplist picture (scrolls sideways)">{ raw_html(redsim_viz::inspect::skiplist_svg(s)) }</div>
            </>
        },
        None => html! {
            <>
                <div class="rs-sub">{ "listpack: member, score, member, score… sorted by score, in one block." }</div>
                { pairs_table(&z.entries, "member", "score") }
            </>
        },
    }
}
