//! `rdbSaveObjectType` + `rdbSaveObject`: a value as DUMP's body, byte for byte as Redis 7.2 writes it.

use super::*;
use crate::keyspace::object::{RString, Value};
use crate::keyspace::types::list::List;
use crate::keyspace::types::set::Member;
use crate::keyspace::types::zset::ZSet;
use crate::num::double::{d2string, double2ll};
use crate::persist::packed::{intset, listpack};
use crate::persist::payload::{put_binary_double, put_int_string, put_len, put_raw_string};

/// The type byte and the value's encoding. `compress` is `rdbcompression`.
pub fn save(v: &Value, compress: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let s = |out: &mut Vec<u8>, b: &[u8]| put_raw_string(out, b, compress);
    match v {
        Value::String(RString::Int(n)) => {
            out.push(TYPE_STRING);
            put_int_string(&mut out, *n);
        }
        Value::String(RString::Emb(b) | RString::Raw(b)) => {
            out.push(TYPE_STRING);
            s(&mut out, b);
        }
        Value::List(l) => {
            out.push(TYPE_LIST_QUICKLIST_2);
            save_list(&mut out, l, compress);
        }
        Value::Set(set) => {
            if let Some((vals, width)) = set.intset() {
                out.push(TYPE_SET_INTSET);
                s(&mut out, &intset::write_width(vals, width));
            } else if let Some(members) = set.listpack() {
                out.push(TYPE_SET_LISTPACK);
                s(
                    &mut out,
                    &listpack::from_strs(members.iter().map(|m| &m[..])),
                );
            } else {
                out.push(TYPE_SET);
                put_len(&mut out, set.len() as u64);
                for m in set.iter() {
                    match m {
                        Member::Str(b) => s(&mut out, b),
                        Member::Int(n) => s(&mut out, n.to_string().as_bytes()),
                    }
                }
            }
        }
        Value::ZSet(z) => match &**z {
            ZSet::Listpack(_) => {
                out.push(TYPE_ZSET_LISTPACK);
                let mut w = listpack::Writer::new();
                for (m, score) in z.entries() {
                    w.str(m);
                    // `zzlInsertAt`: the score as an integer if it is one.
                    match double2ll(score) {
                        Some(i) => w.int(i),
                        None => w.str(d2string(score).as_bytes()),
                    }
                }
                s(&mut out, &w.finish());
            }
            ZSet::Skiplist(_) => {
                out.push(TYPE_ZSET_2);
                put_len(&mut out, z.len() as u64);
                // From the tail: loading then inserts at the head each time.
                for (m, score) in z.entries().into_iter().rev() {
                    s(&mut out, m);
                    put_binary_double(&mut out, score);
                }
            }
        },
        Value::Hash(h) => {
            if let Some(pairs) = h.listpack() {
                out.push(TYPE_HASH_LISTPACK);
                let mut w = listpack::Writer::new();
                for (f, x) in pairs {
                    w.str(f);
                    w.str(x);
                }
                s(&mut out, &w.finish());
            } else {
                out.push(TYPE_HASH);
                put_len(&mut out, h.len() as u64);
                for (f, x) in h.iter() {
                    s(&mut out, f);
                    s(&mut out, x);
                }
            }
        }
        Value::Stream(st) => {
            out.push(TYPE_STREAM_LISTPACKS_3);
            stream::save(&mut out, st, compress);
        }
    }
    out
}

/// A quicklist node by node; a listpack as a quicklist of one packed node.
fn save_list(out: &mut Vec<u8>, l: &List, compress: bool) {
    put_len(out, l.node_count() as u64);
    for (plain, items) in l.dump_nodes() {
        if plain {
            put_len(out, CONTAINER_PLAIN);
            let e = items.front().map_or(&[][..], |e| &e[..]);
            put_raw_string(out, e, compress);
        } else {
            put_len(out, CONTAINER_PACKED);
            let lp = listpack::from_strs(items.iter().map(|e| &e[..]));
            put_raw_string(out, &lp, compress);
        }
    }
}
