//! The inspector's views checked against what the engine stores: encodings, gauges, structures and conversion notes.

use super::*;
use crate::keyspace::object::{Obj, RString, Value};
use crate::Engine;

fn engine() -> (Engine, crate::ClientId) {
    let mut e = Engine::new(7);
    let c = e.connect("t");
    (e, c)
}

/// A fresh engine after `setup`.
fn engine_with(setup: &str) -> (Engine, crate::ClientId) {
    let (mut e, c) = engine();
    run(&mut e, c, setup);
    (e, c)
}

fn view(e: &Engine, key: &str) -> KeyView {
    e.inspect(0, key.as_bytes()).expect("key exists")
}

fn run(e: &mut Engine, c: crate::ClientId, line: &str) {
    let r = e.execute_line(c, line);
    assert!(!r.is_error(), "{line}: {r:?}");
}

/// Views of `key` before and after `line` runs.
fn around(e: &mut Engine, c: crate::ClientId, key: &str, line: &str) -> (KeyView, KeyView) {
    let before = view(e, key);
    run(e, c, line);
    (before, view(e, key))
}

/// How `key` converted when `change` followed `setup` on a fresh engine.
fn converted(setup: &str, key: &str, change: &str) -> Conversion {
    let (mut e, c) = engine_with(setup);
    let (before, after) = around(&mut e, c, key, change);
    conversion(&before, &after).expect("a conversion")
}

#[test]
fn missing_keys_and_other_dbs_have_no_view() {
    let (mut e, c) = engine();
    assert!(e.inspect(0, b"nope").is_none());
    run(&mut e, c, "SET k v");
    assert!(e.inspect(1, b"k").is_none());
    assert!(e.inspect(99, b"k").is_none());
}

#[test]
fn strings_show_encoding_length_and_preview() {
    let (mut e, c) = engine_with("SET n 12345");
    let v = view(&e, "n");
    assert_eq!((v.kind, v.encoding, v.len), ("string", "int", 5));
    assert!(v.gauges.is_empty());
    assert_eq!(
        v.body,
        Body::String {
            preview: "12345".into(),
            truncated: false
        }
    );
    run(&mut e, c, "SET s hello EX 10");
    let v = view(&e, "s");
    assert_eq!((v.encoding, v.len, v.ttl_ms), ("embstr", 5, Some(10_000)));
    assert_eq!(v.gauges[0].limit, 44);
    assert_eq!(v.gauges[0].value, Some(5));
    let long = "x".repeat(600);
    run(&mut e, c, &format!("SET r {long}"));
    let v = view(&e, "r");
    assert_eq!((v.encoding, v.len), ("raw", 600));
    assert!(v.gauges[0].exceeded());
    match v.body {
        Body::String { preview, truncated } => {
            assert!(truncated);
            assert_eq!(preview.chars().count(), STRING_CHARS + 1);
            assert!(preview.ends_with('…'));
        }
        b => panic!("{b:?}"),
    }
    assert!(v.mem_bytes > 600);
}

#[test]
fn inspecting_has_no_side_effects() {
    let (mut e, _) = engine_with("SET k v");
    e.advance_to(5_000_000);
    let lru = e.server().dbs[0].lru(b"k").unwrap();
    let stats = (
        e.server().stats.keyspace_hits,
        e.server().stats.keyspace_misses,
    );
    // Logically expired, not reclaimed yet: shown with its negative TTL.
    let past = e.server().now_ms() - 50;
    e.server_mut().dbs[0].set_expire(b"k", past);
    let v = view(&e, "k");
    assert_eq!(v.ttl_ms, Some(-50));
    assert!(e.inspect(0, b"missing").is_none());
    assert_eq!(e.server().dbs[0].lru(b"k").unwrap(), lru);
    assert_eq!(
        (
            e.server().stats.keyspace_hits,
            e.server().stats.keyspace_misses
        ),
        stats
    );
    assert_eq!(e.server().dbs[0].len(), 1, "not reclaimed by inspecting");
}

#[test]
fn hll_registers_histogram_and_promotion() {
    let (mut e, c) = engine_with("PFADD h a b c d e");
    let v = view(&e, "h");
    assert_eq!((v.kind, v.encoding), ("string", "raw"));
    let Body::Hll(h) = &v.body else {
        panic!("{:?}", v.body)
    };
    assert!(!h.dense);
    assert_eq!(h.histogram.len(), 64);
    assert_eq!(h.histogram.iter().sum::<u64>(), 16384);
    assert_eq!(h.histogram[0], 16384 - 5);
    assert_eq!(h.estimate, Some(5));
    // PFADD leaves the cache stale; PFCOUNT fills it.
    assert_eq!(h.cached, None);
    run(&mut e, c, "PFCOUNT h");
    let Body::Hll(h) = view(&e, "h").body else {
        panic!()
    };
    assert_eq!(h.cached, Some(5));
    // Sparse → dense past hll-sparse-max-bytes.
    run(&mut e, c, "CONFIG SET hll-sparse-max-bytes 40");
    let mut line = String::from("PFADD h");
    for i in 0..40 {
        line.push_str(&format!(" x{i}"));
    }
    let (before, after) = around(&mut e, c, "h", &line);
    let Body::Hll(h) = &after.body else { panic!() };
    assert!(h.dense);
    assert_eq!(h.bytes, crate::keyspace::types::hll::DENSE_SIZE);
    let conv = conversion(&before, &after).expect("promotion seen");
    assert_eq!((conv.from, conv.to), ("sparse", "dense"));
    assert_eq!(
        conv.describe(Some("PFADD")),
        format!(
            "converted from sparse to dense by PFADD: the sparse form outgrew hll-sparse-max-bytes 40 (it was {} bytes)",
            before.gauges[0].value.unwrap()
        )
    );
    // No conversion between two dense views.
    assert_eq!(conversion(&after, &after), None);
}

#[test]
fn hll_promotion_by_a_large_register() {
    let (mut e, _) = engine_with("PFADD h a");
    let before = view(&e, "h");
    // Register 0 set to 33, past what a sparse VAL opcode holds.
    let mut bytes = crate::keyspace::types::hll::new_sparse();
    crate::keyspace::types::hll::set_register(&mut bytes, 0, 33, 3000).unwrap();
    e.server_mut().dbs[0].insert(b"h", Obj::string(RString::plain(bytes)), 0);
    let after = view(&e, "h");
    let conv = conversion(&before, &after).expect("promotion");
    assert_eq!(
        conv.reasons,
        vec!["largest register 33 > sparse register maximum 32".to_string()]
    );
}

#[test]
fn corrupt_hll_like_strings_are_shown_without_registers() {
    let (mut e, c) = engine();
    // A valid header with a truncated sparse body.
    run(
        &mut e,
        c,
        "SET h \"HYLL\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\"",
    );
    let v = view(&e, "h");
    let Body::Hll(h) = &v.body else {
        panic!("{:?}", v.body)
    };
    assert!(h.histogram.is_empty());
    assert_eq!(h.estimate, None);
    // Not an HLL at all.
    run(&mut e, c, "SET s HYLLX");
    assert!(matches!(view(&e, "s").body, Body::String { .. }));
}

#[test]
fn hash_gauges_and_conversion_by_entries() {
    let (mut e, c) = engine_with("CONFIG SET hash-max-listpack-entries 128");
    for i in 0..128 {
        run(&mut e, c, &format!("HSET h f{i} v{i}"));
    }
    let before = view(&e, "h");
    assert_eq!((before.encoding, before.len), ("listpack", 128));
    assert_eq!(before.gauges[0].param, "hash-max-listpack-entries");
    assert_eq!(
        (before.gauges[0].value, before.gauges[0].limit),
        (Some(128), 128)
    );
    assert_eq!(before.gauges[1].value, Some(4)); // "f100", "v127"
    let Body::Hash { fields } = &before.body else {
        panic!()
    };
    assert_eq!(fields.items.len(), PREVIEW_ITEMS);
    assert_eq!(fields.more, 128 - PREVIEW_ITEMS);
    assert_eq!(fields.items[0], ("f0".to_string(), "v0".to_string()));
    run(&mut e, c, "HSET h f128 v128");
    let after = view(&e, "h");
    assert_eq!(after.encoding, "hashtable");
    let conv = conversion(&before, &after).expect("conversion");
    assert_eq!(
        conv.describe(Some("HSET")),
        "converted from listpack to hashtable by HSET: 129 fields > hash-max-listpack-entries 128"
    );
    let Body::Hash { fields } = &after.body else {
        panic!()
    };
    assert_eq!(fields.items.len(), PREVIEW_ITEMS);
    assert_eq!(fields.more, 129 - PREVIEW_ITEMS);
    // Same encoding: nothing to say.
    assert_eq!(conversion(&after, &after), None);
}

#[test]
fn hash_conversion_by_value_length() {
    let conv = converted("HSET h a 1", "h", &format!("HSET h b {}", "v".repeat(70)));
    assert_eq!((conv.from, conv.to), ("listpack", "hashtable"));
    let why = "longest field or value of 70 bytes > hash-max-listpack-value 64";
    assert_eq!(conv.reasons, [why]);
}

#[test]
fn set_encodings_and_their_conversions() {
    let (mut e, c) = engine_with("SADD s 1 2 3");
    let ints = view(&e, "s");
    assert_eq!(ints.encoding, "intset");
    let Body::Set { members, all_ints } = &ints.body else {
        panic!()
    };
    assert_eq!(members.items, vec!["1", "2", "3"]);
    assert_eq!(*all_ints, Some(true));
    run(&mut e, c, "SADD s x");
    let lp = view(&e, "s");
    assert_eq!(lp.encoding, "listpack");
    let conv = conversion(&ints, &lp).unwrap();
    assert_eq!(
        conv.describe(Some("SADD")),
        "converted from intset to listpack by SADD: a member that is not an integer"
    );
    let mut line = String::from("SADD s");
    for i in 0..130 {
        line.push_str(&format!(" m{i}"));
    }
    run(&mut e, c, &line);
    let ht = view(&e, "s");
    assert_eq!(ht.encoding, "hashtable");
    assert_eq!(
        conversion(&lp, &ht).unwrap().reasons,
        vec!["134 members > set-max-listpack-entries 128".to_string()]
    );
    let Body::Set { members, all_ints } = &ht.body else {
        panic!()
    };
    assert_eq!(members.items.len(), PREVIEW_ITEMS);
    assert_eq!(*all_ints, Some(false));
    // An intset past set-max-intset-entries goes straight to a table.
    run(&mut e, c, "CONFIG SET set-max-intset-entries 4");
    run(&mut e, c, "SADD i 1 2 3 4");
    let (before, after) = around(&mut e, c, "i", "SADD i 5");
    assert_eq!(
        conversion(&before, &after).unwrap().describe(None),
        "converted from intset to hashtable: 5 members > set-max-intset-entries 4"
    );
}

#[test]
fn list_nodes_and_conversions_both_ways() {
    let (mut e, c) = engine_with("RPUSH l a b c");
    let small = view(&e, "l");
    assert_eq!(small.encoding, "listpack");
    let Body::List(l) = &small.body else { panic!() };
    assert_eq!(l.node_count, 1);
    assert_eq!(l.nodes[0].entries, 3);
    assert_eq!(
        (l.fill, l.node_max_bytes, l.node_max_entries),
        (-2, 8192, None)
    );
    assert_eq!(l.items.items, vec!["a", "b", "c"]);
    assert_eq!(small.gauges[0].value, Some(l.nodes[0].bytes as u64));
    let big = "x".repeat(1000);
    let mut line = String::from("RPUSH l");
    for _ in 0..20 {
        line.push(' ');
        line.push_str(&big);
    }
    run(&mut e, c, &line);
    let q = view(&e, "l");
    assert_eq!(q.encoding, "quicklist");
    let Body::List(ql) = &q.body else { panic!() };
    assert!(ql.node_count >= 3, "{ql:?}");
    assert_eq!(ql.nodes.iter().map(|n| n.entries).sum::<usize>(), 23);
    assert!(ql.nodes.iter().all(|n| n.bytes <= 8192));
    let conv = conversion(&small, &q).unwrap();
    assert_eq!((conv.from, conv.to), ("listpack", "quicklist"));
    assert_eq!(conv.reasons.len(), 1, "{conv:?}");
    assert!(
        conv.reasons[0].starts_with("size of ")
            && conv.reasons[0].ends_with(" bytes > list-max-listpack-size 8192"),
        "{conv:?}"
    );
    run(&mut e, c, "LTRIM l 0 1");
    let back = view(&e, "l");
    assert_eq!(back.encoding, "listpack");
    assert_eq!(
        conversion(&q, &back).unwrap().reasons,
        vec!["down to one node within half the node limit (4096 bytes)".to_string()]
    );
}

#[test]
fn list_with_a_count_fill_has_an_entries_gauge() {
    let (mut e, c) = engine_with("CONFIG SET list-max-listpack-size 4");
    run(&mut e, c, "RPUSH l 1 2 3 4");
    let v = view(&e, "l");
    assert_eq!(v.gauges.len(), 2);
    assert_eq!((v.gauges[1].value, v.gauges[1].limit), (Some(4), 4));
    run(&mut e, c, "RPUSH l 5 6 7 8 9");
    let after = view(&e, "l");
    let Body::List(l) = &after.body else { panic!() };
    assert_eq!(l.node_max_entries, Some(4));
    assert_eq!(
        l.nodes.iter().map(|n| n.entries).collect::<Vec<_>>(),
        vec![4, 4, 1]
    );
    assert!(conversion(&v, &after).unwrap().reasons[0]
        .starts_with("9 entries > list-max-listpack-size 4"));
}

#[test]
fn zset_listpack_then_skiplist_picture() {
    let (mut e, c) = engine();
    for i in 0..128 {
        run(&mut e, c, &format!("ZADD z {} m{i:03}", i as f64 * 1.5));
    }
    let lp = view(&e, "z");
    assert_eq!(lp.encoding, "listpack");
    let Body::ZSet(z) = &lp.body else { panic!() };
    assert!(z.skiplist.is_none());
    assert_eq!(z.entries.items[1], ("m001".to_string(), "1.5".to_string()));
    assert_eq!(z.entries.more, 128 - PREVIEW_ITEMS);
    run(&mut e, c, "ZADD z 1000 m128");
    let sl = view(&e, "z");
    assert_eq!(sl.encoding, "skiplist");
    assert_eq!(
        conversion(&lp, &sl).unwrap().describe(Some("ZADD")),
        "converted from listpack to skiplist by ZADD: 129 members > zset-max-listpack-entries 128"
    );
    let Body::ZSet(z) = &sl.body else { panic!() };
    let s = z.skiplist.as_ref().expect("skiplist view");
    assert_eq!(s.nodes.len(), SKIPLIST_NODES);
    assert_eq!(s.hidden, 129 - SKIPLIST_NODES);
    assert_eq!(s.tail_rank, 129);
    assert_eq!(s.header.len(), s.levels);
    assert_eq!(s.nodes[0].rank, 1);
    assert_eq!(s.nodes[0].member, "m000");
    assert_eq!(s.nodes[3].score, "4.5");
    // Level 0 links each node to the next; every link lands on rank + span.
    for n in &s.nodes {
        assert_eq!(n.levels[0].span, 1);
        for l in &n.levels {
            if let Some(f) = l.forward {
                assert_eq!(f, n.rank + l.span);
            }
        }
    }
    assert!(s.nodes.iter().all(|n| n.levels.len() <= s.levels));
    assert!(z.entries.items.is_empty());
}

#[test]
fn zset_conversion_by_member_length() {
    let conv = converted("ZADD z 1 a", "z", &format!("ZADD z 2 {}", "m".repeat(65)));
    assert_eq!(
        conv.reasons,
        ["longest member of 65 bytes > zset-max-listpack-value 64"]
    );
    assert_eq!((conv.from, conv.to), ("listpack", "skiplist"));
}

#[test]
fn large_collections_are_not_scanned() {
    let (mut e, c) = engine();
    let mut line = String::from("SADD s");
    for i in 0..(MEASURE_MAX + 10) {
        line.push_str(&format!(" m{i}"));
    }
    run(&mut e, c, &line);
    let v = view(&e, "s");
    assert_eq!(v.gauges[2].value, None);
    let Body::Set { members, all_ints } = &v.body else {
        panic!()
    };
    assert_eq!(*all_ints, None);
    assert_eq!(members.items.len(), PREVIEW_ITEMS);
    assert_eq!(members.more, MEASURE_MAX + 10 - PREVIEW_ITEMS);
}

#[test]
fn type_changes_and_string_rewrites_are_no_conversion() {
    let (mut e, c) = engine_with("SET k 1");
    let a = view(&e, "k");
    run(&mut e, c, "APPEND k x");
    let b = view(&e, "k");
    assert_eq!(b.encoding, "raw");
    assert_eq!(conversion(&a, &b), None);
    run(&mut e, c, "DEL k");
    run(&mut e, c, "RPUSH k a");
    assert_eq!(conversion(&b, &view(&e, "k")), None);
}

#[test]
fn streams_show_entries_nodes_groups_and_pels() {
    use crate::keyspace::types::stream::{NodeLimits, Stream, StreamId};
    let (mut e, _) = engine();
    let lim = NodeLimits {
        max_bytes: 4096,
        max_entries: 3,
    };
    let mut st = Stream::new();
    let mut ids = Vec::new();
    for i in 1..=40u64 {
        let pairs = [b"temp".to_vec(), i.to_string().into_bytes()];
        let id = st
            .log_mut()
            .append(&pairs, Some((StreamId::new(1000 + i, 0), true)), 0, lim)
            .unwrap();
        ids.push(id);
    }
    assert_eq!(st.log_mut().xdel(&[ids[1]]), 1);
    assert!(st.groups_mut().create(b"workers", StreamId::MIN, 0));
    st.groups_mut().with_mut(b"workers", |g| {
        g.create_consumer(b"alice", 0);
        g.create_consumer(b"bob", 0);
        g.deliver(ids[0], b"alice", 0);
        g.deliver(ids[2], b"bob", 0);
        g.deliver(ids[3], b"alice", 0);
        g.last_id = ids[3];
        g.entries_read = 4;
    });
    e.server_mut().dbs[0].insert(
        b"s",
        Obj {
            value: Value::Stream(Box::new(st)),
        },
        0,
    );
    let v = view(&e, "s");
    assert_eq!((v.kind, v.encoding, v.len), ("stream", "stream", 39));
    assert!(v.gauges.is_empty());
    let Body::Stream(s) = &v.body else {
        panic!("{:?}", v.body)
    };
    assert_eq!(s.entries.items.len(), PREVIEW_ITEMS);
    assert_eq!(s.entries.more, 39 - PREVIEW_ITEMS);
    assert_eq!(s.entries.items.last().unwrap().id, "1040-0");
    assert_eq!(s.entries.items[0].id, "1009-0");
    assert_eq!(
        s.entries.items[0].fields,
        vec![("temp".to_string(), "9".to_string())]
    );
    assert_eq!(
        (s.first_id.as_str(), s.last_id.as_str()),
        ("1001-0", "1040-0")
    );
    assert_eq!(s.entries_added, 40);
    assert_eq!(s.max_deleted_id, "1002-0");
    // Three entries per node: 14 nodes, the first with a tombstone.
    assert_eq!(s.node_count, 14);
    assert_eq!((s.nodes[0].live, s.nodes[0].deleted), (2, 1));
    assert_eq!(s.nodes[0].master_id, "1001-0");
    assert_eq!(s.nodes[13].live, 1);
    assert_eq!(
        s.node_max_entries, 100,
        "the config's, not the test's limits"
    );
    assert_eq!(s.group_count, 1);
    let g = &s.groups[0];
    assert_eq!(
        (
            g.name.as_str(),
            g.last_delivered.as_str(),
            g.entries_read,
            g.pending
        ),
        ("workers", "1004-0", 4, 3)
    );
    assert_eq!(g.consumers.len(), 2);
    assert_eq!(g.consumers[0].name, "alice");
    assert_eq!(g.consumers[0].pending.items, vec!["1001-0", "1004-0"]);
    assert_eq!(g.consumers[1].pending.items, vec!["1003-0"]);
    assert_eq!(conversion(&v, &v), None);
    let json = serde_json::to_string(&v).unwrap();
    assert!(json.contains("\"type\":\"stream\""), "{json}");
}

#[test]
fn views_serialise() {
    let (mut e, c) = engine_with("ZADD z 1 a 2 b");
    let mut line = String::from("ZADD big");
    for i in 0..200 {
        line.push_str(&format!(" {i} m{i}"));
    }
    run(&mut e, c, &line);
    for k in ["z", "big"] {
        let json = serde_json::to_string(&view(&e, k)).unwrap();
        assert!(json.contains("\"type\":\"zset\""), "{json}");
    }
}
