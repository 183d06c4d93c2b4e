//! `rdbLoadObjectType` + `rdbLoadObject`: a DUMP body back into a value, for every type Redis 7.2 reads, with the encoding Redis would give it.
//!
//! Everything decoded is validated (Redis does so with
//! `sanitize-dump-payload yes`; here it is always done, since the
//! collections are rebuilt element by element anyway): sizes, duplicates,
//! NaN scores, empty collections. Any failure is `None`, RESTORE's
//! "Bad data format".

use super::*;
use crate::keyspace::object::{RString, Value};
use crate::keyspace::types::hash::{Hash, HashLimits};
use crate::keyspace::types::list::List;
use crate::keyspace::types::set::{Set, SetLimits};
use crate::keyspace::types::zset::{Limits as ZLimits, ZSet};
use crate::num::double::string2d;
use crate::persist::packed::{intset, listpack, ziplist, zipmap, Elem};
use crate::persist::payload::Reader;

/// The configuration a loaded value's encoding depends on.
pub struct LoadCfg<'a> {
    /// `list-max-listpack-size`.
    pub list_fill: i32,
    pub hash: HashLimits,
    pub set: SetLimits,
    pub zset: ZLimits,
    /// For the skiplists' levels and dict seeds.
    pub rng: &'a mut fastrand::Rng,
}

/// A body (type byte, then the value) as a value; `None` if malformed or
/// not a type this server reads (modules).
pub fn load(body: &[u8], cfg: &mut LoadCfg) -> Option<Value> {
    let mut r = Reader::new(body);
    let ty = r.byte()?;
    let v = match ty {
        TYPE_STRING => Value::String(RString::from_bytes(&r.string()?)),
        TYPE_LIST => {
            let n = r.count()?;
            let elems: Vec<Vec<u8>> = (0..n).map(|_| r.string()).collect::<Option<_>>()?;
            nonempty(elems.len())?;
            Value::List(Box::new(List::from_pushes(elems, cfg.list_fill)))
        }
        TYPE_LIST_QUICKLIST | TYPE_LIST_QUICKLIST_2 => {
            let n = r.count()?;
            let mut nodes = Vec::with_capacity(n);
            for _ in 0..n {
                let container = if ty == TYPE_LIST_QUICKLIST_2 {
                    r.length()?
                } else {
                    CONTAINER_PACKED
                };
                let data = r.string()?;
                if data.is_empty() {
                    return None;
                }
                let node = match container {
                    CONTAINER_PLAIN => (true, vec![data]),
                    CONTAINER_PACKED if ty == TYPE_LIST_QUICKLIST_2 => {
                        (false, listpack::read_strs(&data)?)
                    }
                    CONTAINER_PACKED => (false, strs(ziplist::read(&data)?)),
                    _ => return None,
                };
                nodes.push(node);
            }
            let l = List::from_nodes(nodes, cfg.list_fill);
            nonempty(l.len())?;
            Value::List(Box::new(l))
        }
        TYPE_LIST_ZIPLIST => {
            let items = strs(ziplist::read(&r.string()?)?);
            nonempty(items.len())?;
            Value::List(Box::new(List::from_nodes(
                vec![(false, items)],
                cfg.list_fill,
            )))
        }
        TYPE_SET => Value::Set(Box::new(load_set(&mut r, cfg)?)),
        TYPE_SET_INTSET => {
            let blob = r.string()?;
            let vals = intset::read(&blob)?;
            let width = u32::from_le_bytes(blob[..4].try_into().ok()?) as usize;
            let n = vals.len() as u64;
            let mut s = Set::from_intset(vals, width);
            if n > cfg.set.max_intset_entries.min(1 << 30) {
                s.to_table(&cfg.set);
            }
            Value::Set(Box::new(s))
        }
        TYPE_SET_LISTPACK => {
            let members = listpack::read_strs(&r.string()?)?;
            nonempty(members.len())?;
            distinct(members.iter().map(|m| &m[..]))?;
            let n = members.len() as u64;
            let mut s = Set::from_listpack(members);
            if n > cfg.set.max_listpack_entries {
                s.to_table(&cfg.set);
            }
            Value::Set(Box::new(s))
        }
        TYPE_ZSET | TYPE_ZSET_2 => {
            let n = r.count()?;
            nonempty(n)?;
            let mut pairs = Vec::with_capacity(n);
            for _ in 0..n {
                let m = r.string()?;
                let score = if ty == TYPE_ZSET_2 {
                    r.binary_double()?
                } else {
                    r.text_double()?
                };
                if score.is_nan() {
                    return None;
                }
                pairs.push((m, score));
            }
            Value::ZSet(Box::new(zset_from_pairs(pairs, true, cfg)?))
        }
        TYPE_ZSET_ZIPLIST | TYPE_ZSET_LISTPACK => {
            let blob = r.string()?;
            let elems = if ty == TYPE_ZSET_LISTPACK {
                listpack::read(&blob)?
            } else {
                ziplist::read(&blob)?
            };
            if elems.len() % 2 != 0 {
                return None;
            }
            let mut pairs = Vec::with_capacity(elems.len() / 2);
            let mut it = elems.into_iter();
            while let (Some(m), Some(s)) = (it.next(), it.next()) {
                let score = match s {
                    Elem::Int(v) => v as f64,
                    Elem::Str(t) => string2d(&t)?,
                };
                if score.is_nan() {
                    return None;
                }
                pairs.push((m.into_bytes(), score));
            }
            nonempty(pairs.len())?;
            Value::ZSet(Box::new(zset_from_pairs(pairs, false, cfg)?))
        }
        TYPE_HASH => {
            let n = r.count()?;
            nonempty(n)?;
            let mut h = Hash::new();
            if n as u64 > cfg.hash.max_listpack_entries {
                h.to_table(&cfg.hash);
            }
            for _ in 0..n {
                let f = r.string()?;
                let v = r.string()?;
                if h.set(&f, &v, &cfg.hash) {
                    return None;
                }
            }
            Value::Hash(Box::new(h))
        }
        TYPE_HASH_ZIPLIST | TYPE_HASH_LISTPACK | TYPE_HASH_ZIPMAP => {
            let blob = r.string()?;
            let pairs: Vec<(Vec<u8>, Vec<u8>)> = if ty == TYPE_HASH_ZIPMAP {
                zipmap::read(&blob)?
            } else {
                let elems = if ty == TYPE_HASH_LISTPACK {
                    listpack::read(&blob)?
                } else {
                    ziplist::read(&blob)?
                };
                if elems.len() % 2 != 0 {
                    return None;
                }
                let mut it = elems.into_iter();
                let mut v = Vec::new();
                while let (Some(f), Some(x)) = (it.next(), it.next()) {
                    v.push((f.into_bytes(), x.into_bytes()));
                }
                v
            };
            nonempty(pairs.len())?;
            distinct(pairs.iter().map(|(f, _)| &f[..]))?;
            // A zipmap's longest field or value also decides (zipmaps
            // predate the value limit being checked on load).
            let too_long = ty == TYPE_HASH_ZIPMAP
                && pairs
                    .iter()
                    .any(|(f, v)| f.len().max(v.len()) as u64 > cfg.hash.max_listpack_value);
            let n = pairs.len() as u64;
            let mut h = Hash::from_listpack(pairs);
            if n > cfg.hash.max_listpack_entries || too_long {
                h.to_table(&cfg.hash);
            }
            Value::Hash(Box::new(h))
        }
        TYPE_STREAM_LISTPACKS | TYPE_STREAM_LISTPACKS_2 | TYPE_STREAM_LISTPACKS_3 => {
            Value::Stream(Box::new(stream::load(&mut r, ty)?))
        }
        _ => return None,
    };
    Some(v)
}

fn strs(elems: Vec<Elem>) -> Vec<Vec<u8>> {
    elems.into_iter().map(Elem::into_bytes).collect()
}

/// Redis refuses empty collections ("empty keys").
fn nonempty(n: usize) -> Option<()> {
    (n > 0).then_some(())
}

/// Fails on a repeated member or field.
fn distinct<'a>(items: impl Iterator<Item = &'a [u8]>) -> Option<()> {
    let mut seen = crate::ordmap::OrdSet::new();
    for i in items {
        if !seen.insert(i) {
            return None;
        }
    }
    Some(())
}

/// `RDB_TYPE_SET`: an intset while members are integers and few enough,
/// then a listpack or a table as SADD would convert it.
fn load_set(r: &mut Reader, cfg: &mut LoadCfg) -> Option<Set> {
    let n = r.count()?;
    nonempty(n)?;
    let mut s = if n as u64 > cfg.set.max_intset_entries.min(1 << 30) {
        Set::new_table(&cfg.set)
    } else {
        Set::new_intset()
    };
    for _ in 0..n {
        let m = r.string()?;
        if !s.add(&m, &cfg.set) {
            return None;
        }
    }
    Some(s)
}

/// A sorted set of loaded pairs: from a skiplist payload, a listpack if
/// it fits both limits (`zsetConvert` after loading); from a listpack
/// payload, a listpack unless it has too many entries.
fn zset_from_pairs(
    pairs: Vec<(Vec<u8>, f64)>,
    from_skiplist: bool,
    cfg: &mut LoadCfg,
) -> Option<ZSet> {
    distinct(pairs.iter().map(|(m, _)| &m[..]))?;
    let maxlen = pairs.iter().map(|(m, _)| m.len()).max().unwrap_or(0);
    let fits = pairs.len() <= cfg.zset.entries && (!from_skiplist || maxlen <= cfg.zset.value);
    let mut pairs = pairs;
    // In order first, so that each insert lands at the end.
    crate::sort::sort_by(&mut pairs, |a, b| {
        a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0))
    });
    let mut z = ZSet::from_listpack(pairs);
    if !fits {
        z.convert_to_skiplist(cfg.rng);
    }
    Some(z)
}
