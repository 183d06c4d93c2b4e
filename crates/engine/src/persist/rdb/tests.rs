//! Tests of the RDB object encoding: round trips of every type and encoding, the legacy formats older servers wrote, the encodings loaded values take, and corrupt payloads (fuzzed) failing without a panic.

use super::*;
use crate::keyspace::object::{RString, Value};
use crate::keyspace::types::hash::{Hash, HashLimits};
use crate::keyspace::types::list::List;
use crate::keyspace::types::set::{Set, SetLimits};
use crate::keyspace::types::stream::{NodeLimits, Stream, StreamId};
use crate::keyspace::types::zset::{Limits as ZLimits, ZSet};
use crate::persist::packed::{listpack, ziplist};
use crate::persist::payload::{put_len, put_string};
use proptest::prelude::*;

const HASH: HashLimits = HashLimits {
    max_listpack_entries: 128,
    max_listpack_value: 64,
    dict_seed: 1,
};
const SET: SetLimits = SetLimits {
    max_intset_entries: 512,
    max_listpack_entries: 128,
    max_listpack_value: 64,
    dict_seed: 2,
};
const ZSET: ZLimits = ZLimits {
    entries: 128,
    value: 64,
};

fn load_with(body: &[u8], fill: i32) -> Option<Value> {
    let mut rng = fastrand::Rng::with_seed(3);
    let mut cfg = LoadCfg {
        list_fill: fill,
        hash: HASH,
        set: SET,
        zset: ZSET,
        rng: &mut rng,
    };
    load(body, &mut cfg)
}

fn load_body(body: &[u8]) -> Option<Value> {
    load_with(body, -2)
}

fn list_of(items: &[&str]) -> List {
    let mut l = List::new();
    for i in items {
        l.try_convert_append(i.len(), 1, -2);
        l.push(i.as_bytes().to_vec(), false);
    }
    l
}

fn stream_with_groups() -> Stream {
    let mut s = Stream::new();
    let lim = NodeLimits {
        max_bytes: 4096,
        max_entries: 3,
    };
    for i in 1..=8u64 {
        let pairs: Vec<Vec<u8>> = if i % 3 == 0 {
            vec![b"other".to_vec(), i.to_string().into_bytes()]
        } else {
            vec![
                b"f".to_vec(),
                b"v".repeat(i as usize),
                b"g".to_vec(),
                b"12".to_vec(),
            ]
        };
        s.log_mut()
            .append(&pairs, Some((StreamId::new(i, 0), true)), 0, lim)
            .unwrap();
    }
    s.log_mut()
        .xdel(&[StreamId::new(2, 0), StreamId::new(7, 0)]);
    let g = s.groups_mut();
    assert!(g.create(b"grp", StreamId::new(4, 0), 4));
    g.with_mut(b"grp", |g| {
        g.create_consumer(b"alice", 1000);
        g.create_consumer(b"bob", 2000);
        g.deliver(StreamId::new(1, 0), b"alice", 1500);
        g.deliver(StreamId::new(3, 0), b"bob", 2500);
        g.deliver(StreamId::new(4, 0), b"alice", 3500);
    });
    assert!(g.create(b"empty", StreamId::MIN, -1));
    s
}

/// One value of every type and encoding.
fn samples() -> Vec<Value> {
    let mut rng = fastrand::Rng::with_seed(9);
    let mut v = vec![
        Value::String(RString::Int(-5)),
        Value::String(RString::Int(1 << 40)),
        Value::String(RString::from_bytes(b"hello")),
        Value::String(RString::Raw(b"xy".repeat(100))),
        Value::List(Box::new(list_of(&["a", "1", "-70000"]))),
    ];
    let long: Vec<String> = (0..2000).map(|i| format!("item-{i}")).collect();
    let refs: Vec<&str> = long.iter().map(String::as_str).collect();
    v.push(Value::List(Box::new(list_of(&refs))));
    let mut h = Hash::new();
    h.set(b"f", b"1", &HASH);
    h.set(b"g", b"v", &HASH);
    v.push(Value::Hash(Box::new(h.clone())));
    for i in 0..200 {
        h.set(format!("k{i}").as_bytes(), b"x", &HASH);
    }
    v.push(Value::Hash(Box::new(h)));
    for members in [&["1", "2", "-3"][..], &["a", "b"], &["1", "x"]] {
        let mut s = Set::create(members[0].as_bytes(), members.len() as u64, &SET);
        for m in members {
            s.add(m.as_bytes(), &SET);
        }
        v.push(Value::Set(Box::new(s)));
    }
    let mut s = Set::new_table(&SET);
    for i in 0..300 {
        s.add(format!("m{i}").as_bytes(), &SET);
    }
    v.push(Value::Set(Box::new(s)));
    let mut z = ZSet::new_listpack();
    z.push_new(b"a", 1.5, ZSET, &mut rng);
    z.push_new(b"b", -2.0, ZSET, &mut rng);
    v.push(Value::ZSet(Box::new(z)));
    let mut z = ZSet::new_skiplist(&mut rng);
    for i in 0..300 {
        z.push_new(
            format!("m{i}").as_bytes(),
            (i % 17) as f64 / 3.0,
            ZSET,
            &mut rng,
        );
    }
    v.push(Value::ZSet(Box::new(z)));
    v.push(Value::Stream(Box::new(stream_with_groups())));
    v
}

/// A value's content in a canonical order.
fn content(v: &Value) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = match v {
        Value::Hash(h) => h.iter().map(|(f, x)| [f, b"=", x].concat()).collect(),
        Value::Set(s) => s.members(),
        _ => return vec![save(v, false)],
    };
    out.sort();
    out
}

#[test]
fn every_type_round_trips_byte_for_byte() {
    for v in samples() {
        let body = save(&v, true);
        let back = load_body(&body).unwrap_or_else(|| panic!("{} did not load", v.type_name()));
        assert_eq!(back.type_name(), v.type_name());
        assert_eq!(back.encoding(), v.encoding(), "{}", v.type_name());
        assert_eq!(content(&back), content(&v), "{}", v.type_name());
        // A table's order is its insertion history's (chains grow at the
        // head), as in Redis: only other encodings come back byte for byte.
        if v.encoding() != "hashtable" {
            assert_eq!(
                save(&back, true),
                body,
                "{} {}",
                v.type_name(),
                v.encoding()
            );
        }
        // Uncompressed payloads load to the same value.
        let plain = save(&v, false);
        assert_eq!(content(&load_body(&plain).unwrap()), content(&v));
    }
}

#[test]
fn stream_groups_survive() {
    let body = save(&Value::Stream(Box::new(stream_with_groups())), true);
    let Some(Value::Stream(s)) = load_body(&body) else {
        panic!("not a stream");
    };
    assert_eq!(s.log().len(), 6);
    let g = s.groups().get(b"grp").unwrap();
    assert_eq!(g.pel().len(), 3);
    assert_eq!(g.pel()[&StreamId::new(3, 0)].consumer, b"bob".to_vec());
    assert_eq!(g.consumer(b"alice").unwrap().pel().len(), 2);
    assert_eq!(g.entries_read, 4);
    assert_eq!(s.groups().get(b"empty").unwrap().entries_read, -1);
    assert_eq!(
        s.log().node_layout(),
        stream_with_groups().log().node_layout()
    );
}

#[test]
fn legacy_lists_load() {
    let zl = ziplist::write(&[b"a", b"12", b"-1000", b"hello"]);
    let want = ["a", "12", "-1000", "hello"];
    let check = |body: Vec<u8>| {
        let Some(Value::List(l)) = load_body(&body) else {
            panic!("not a list");
        };
        let got: Vec<&[u8]> = l.iter().collect();
        assert_eq!(got, want.iter().map(|s| s.as_bytes()).collect::<Vec<_>>());
        assert_eq!(l.encoding(), "listpack");
    };
    let mut b = vec![TYPE_LIST_ZIPLIST];
    put_string(&mut b, &zl);
    check(b);
    let mut b = vec![TYPE_LIST_QUICKLIST];
    put_len(&mut b, 1);
    put_string(&mut b, &zl);
    check(b);
    let mut b = vec![TYPE_LIST];
    put_len(&mut b, 4);
    for s in want {
        put_string(&mut b, s.as_bytes());
    }
    check(b);
    // A plain list of many elements becomes a quicklist.
    let mut b = vec![TYPE_LIST];
    put_len(&mut b, 1000);
    for i in 0..1000 {
        put_string(&mut b, format!("element number {i}").as_bytes());
    }
    assert_eq!(load_body(&b).unwrap().encoding(), "quicklist");
    // A small quicklist of one node is a listpack under the default fill,
    // and stays a quicklist when the fill allows fewer entries.
    let mut b = vec![TYPE_LIST_QUICKLIST_2];
    put_len(&mut b, 1);
    put_len(&mut b, CONTAINER_PACKED);
    put_string(&mut b, &listpack::from_strs([&b"a"[..], b"b", b"c"]));
    assert_eq!(load_with(&b, -2).unwrap().encoding(), "listpack");
    assert_eq!(load_with(&b, 2).unwrap().encoding(), "quicklist");
}

#[test]
fn legacy_hashes_and_zsets_load() {
    let zl = ziplist::write(&[b"f1", b"v1", b"f2", b"2"]);
    let mut b = vec![TYPE_HASH_ZIPLIST];
    put_string(&mut b, &zl);
    let Some(Value::Hash(h)) = load_body(&b) else {
        panic!("not a hash");
    };
    assert_eq!(h.get(b"f2"), Some(&b"2"[..]));
    assert_eq!(h.encoding(), "listpack");
    let zm = [
        2u8, 2, b'f', b'1', 2, 0, b'v', b'1', 2, b'f', b'2', 1, 3, b'2', 0, 0, 0, 255,
    ];
    let mut b = vec![TYPE_HASH_ZIPMAP];
    put_string(&mut b, &zm);
    let Some(Value::Hash(h)) = load_body(&b) else {
        panic!("not a hash");
    };
    assert_eq!(h.get(b"f1"), Some(&b"v1"[..]));
    assert_eq!(h.get(b"f2"), Some(&b"2"[..]));
    let zl = ziplist::write(&[b"a", b"1", b"b", b"2.5"]);
    let mut b = vec![TYPE_ZSET_ZIPLIST];
    put_string(&mut b, &zl);
    let Some(Value::ZSet(z)) = load_body(&b) else {
        panic!("not a zset");
    };
    assert_eq!(z.score(b"b"), Some(2.5));
    // RDB_TYPE_ZSET: scores as text, with the special lengths for infinities.
    let mut b = vec![TYPE_ZSET];
    put_len(&mut b, 2);
    put_string(&mut b, b"x");
    b.extend_from_slice(&[4, b'1', b'.', b'2', b'5']);
    put_string(&mut b, b"y");
    b.push(255);
    let Some(Value::ZSet(z)) = load_body(&b) else {
        panic!("not a zset");
    };
    assert_eq!(z.score(b"x"), Some(1.25));
    assert_eq!(z.score(b"y"), Some(f64::NEG_INFINITY));
}

#[test]
fn legacy_streams_load() {
    // Format 1: no first ID, tombstone ID or entries-added; no active times.
    let v3 = save(&Value::Stream(Box::new(stream_with_groups())), false);
    let s = stream_with_groups();
    let mut b = vec![TYPE_STREAM_LISTPACKS];
    let nodes = s.log().dump_nodes();
    put_len(&mut b, nodes.len() as u64);
    for n in &nodes {
        let mut id = n.master.ms.to_be_bytes().to_vec();
        id.extend_from_slice(&n.master.seq.to_be_bytes());
        put_string(&mut b, &id);
        put_string(&mut b, &stream::node_listpack(n));
    }
    put_len(&mut b, 6);
    put_len(&mut b, 8);
    put_len(&mut b, 0);
    put_len(&mut b, 1);
    put_string(&mut b, b"g");
    put_len(&mut b, 5);
    put_len(&mut b, 0);
    put_len(&mut b, 1);
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0]);
    b.extend_from_slice(&77i64.to_le_bytes());
    put_len(&mut b, 2);
    put_len(&mut b, 1);
    put_string(&mut b, b"c");
    b.extend_from_slice(&66i64.to_le_bytes());
    put_len(&mut b, 1);
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0]);
    let Some(Value::Stream(st)) = load_body(&b) else {
        panic!("not a stream");
    };
    assert_eq!(st.log().first_id(), StreamId::new(1, 0));
    assert_eq!(st.log().entries_added(), 6);
    let g = st.groups().get(b"g").unwrap();
    let c = g.consumer(b"c").unwrap();
    assert_eq!((c.seen_time, c.active_time), (66, 66));
    assert_eq!(g.pel()[&StreamId::new(3, 0)].delivery_count, 2);
    assert!(load_body(&v3).is_some());
}

#[test]
fn loaded_values_take_redis_encodings() {
    // A listpack hash over the entry limit becomes a table; a long value
    // alone does not convert a listpack payload (only the count is checked).
    let mut w = listpack::Writer::new();
    for i in 0..200 {
        w.str(format!("f{i}").as_bytes());
        w.str(b"v");
    }
    let mut b = vec![TYPE_HASH_LISTPACK];
    put_string(&mut b, &w.finish());
    assert_eq!(load_body(&b).unwrap().encoding(), "hashtable");
    let mut b = vec![TYPE_HASH_LISTPACK];
    put_string(&mut b, &listpack::from_strs([&b"f"[..], &[b'x'; 100][..]]));
    assert_eq!(load_body(&b).unwrap().encoding(), "listpack");
    // RDB_TYPE_HASH with a long value is a table.
    let mut b = vec![TYPE_HASH];
    put_len(&mut b, 1);
    put_string(&mut b, b"f");
    put_string(&mut b, &[b'x'; 100]);
    assert_eq!(load_body(&b).unwrap().encoding(), "hashtable");
    // RDB_TYPE_SET: integers make an intset, strings a listpack.
    for (members, enc) in [(&["1", "2"][..], "intset"), (&["1", "a"], "listpack")] {
        let mut b = vec![TYPE_SET];
        put_len(&mut b, members.len() as u64);
        for m in members {
            put_string(&mut b, m.as_bytes());
        }
        assert_eq!(load_body(&b).unwrap().encoding(), enc);
    }
    // A skiplist payload that fits becomes a listpack.
    let mut b = vec![TYPE_ZSET_2];
    put_len(&mut b, 1);
    put_string(&mut b, b"m");
    b.extend_from_slice(&1.0f64.to_le_bytes());
    assert_eq!(load_body(&b).unwrap().encoding(), "listpack");
}

#[test]
fn malformed_bodies_are_refused() {
    let bad: Vec<Vec<u8>> = vec![
        vec![],
        vec![TYPE_MODULE_2, 1, 2],
        vec![8],
        vec![TYPE_LIST, 0],
        vec![TYPE_SET, 2, 0xc0, 1, 0xc0, 1],
        vec![TYPE_HASH, 2, 1, b'a', 1, b'b', 1, b'a', 1, b'c'],
        vec![TYPE_ZSET_2, 1, 1, b'a', 0, 0, 0, 0, 0, 0, 0xf8, 0x7f],
        vec![TYPE_SET_INTSET, 8, 2, 0, 0, 0, 1, 0, 0, 0, 5, 0],
        vec![TYPE_STRING, 0xc3, 1, 0x7f, 0],
        vec![TYPE_STRING, 0x80, 0xff, 0xff, 0xff, 0xff],
        vec![TYPE_LIST_QUICKLIST_2, 1, 3, 1, b'x'],
        vec![
            TYPE_STREAM_LISTPACKS_3,
            0x81,
            0xff,
            0xff,
            0xff,
            0xff,
            0xff,
            0xff,
            0xff,
            0xff,
        ],
    ];
    for b in bad {
        assert!(load_body(&b).is_none(), "{b:?} loaded");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Flipping, truncating or overwriting bytes of a valid body gives a
    /// value or a refusal, never a panic.
    #[test]
    fn corrupt_bodies_never_panic(
        which in 0usize..14,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let samples = samples();
        let v = &samples[which % samples.len()];
        for compress in [true, false] {
            let mut body = save(v, compress);
            for (i, x) in &flips {
                let at = i.index(body.len());
                body[at] ^= x | 1;
            }
            if truncate {
                body.truncate(cut.index(body.len() + 1));
            }
            if let Some(loaded) = load_body(&body) {
                // Whatever loads must dump again.
                let _ = save(&loaded, true);
            }
        }
    }
}
