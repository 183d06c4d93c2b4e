//! Building a key's view from the stored object: previews, gauges against the encoding limits, and each type's structure (quicklist nodes, skiplist levels, HyperLogLog registers, stream nodes and groups), within bounded work.

use crate::keyspace::object::{Obj, RString, Value, EMBSTR_SIZE_LIMIT};
use crate::num::double::d2string;
use crate::server::config::Config;
use crate::server::lossy;

use super::view::*;

/// A value's bytes for display, cut at `max` characters; true if cut.
fn show(b: &[u8], max: usize) -> (String, bool) {
    let s = lossy(b);
    match s.char_indices().nth(max) {
        Some((at, _)) => (format!("{}…", &s[..at]), true),
        None => (s, false),
    }
}

fn item(b: &[u8]) -> String {
    show(b, PREVIEW_CHARS).0
}

fn preview<T>(items: Vec<T>, len: usize) -> Preview<T> {
    let more = len.saturating_sub(items.len());
    Preview { items, more }
}

fn gauge(
    param: &'static str,
    what: &'static str,
    unit: Unit,
    value: Option<u64>,
    limit: u64,
    (from, to): (&'static str, &'static str),
) -> Gauge {
    Gauge {
        param,
        what,
        unit,
        value,
        limit,
        from,
        to,
    }
}

/// The longest of `lens`, if the collection is small enough to scan.
fn longest(len: usize, lens: impl Iterator<Item = usize>) -> Option<u64> {
    (len <= MEASURE_MAX).then(|| lens.max().unwrap_or(0) as u64)
}

impl KeyView {
    /// The view of `obj`, stored under `key` in database `db`, under `cfg`.
    pub fn of(db: usize, key: &[u8], obj: &Obj, ttl_ms: Option<i64>, cfg: &Config) -> KeyView {
        let v = &obj.value;
        let mut view = KeyView {
            key: lossy(key),
            db,
            kind: v.type_name(),
            encoding: v.encoding(),
            len: 0,
            mem_bytes: obj.mem_size(),
            ttl_ms,
            gauges: Vec::new(),
            body: Body::Other,
        };
        // Values without an arm keep `Body::Other`: a new kind compiles
        // here before it gets a view of its own.
        #[allow(unreachable_patterns)]
        match v {
            Value::String(s) => view.string(s, cfg),
            Value::List(l) => view.list(l, cfg),
            Value::Hash(h) => view.hash(h, cfg),
            Value::Set(s) => view.set(s, cfg),
            Value::ZSet(z) => view.zset(z, cfg),
            Value::Stream(st) => view.stream(st, cfg),
            _ => {}
        }
        view
    }

    fn string(&mut self, s: &RString, cfg: &Config) {
        self.len = s.len();
        let bytes = s.to_bytes();
        if crate::keyspace::types::hll::is_valid(&bytes) {
            self.hll(&bytes, cfg);
            return;
        }
        if !matches!(s, RString::Int(_)) {
            self.gauges.push(gauge(
                "embstr size limit",
                "length",
                Unit::Bytes,
                Some(self.len as u64),
                EMBSTR_SIZE_LIMIT as u64,
                ("embstr", "raw"),
            ));
        }
        let (preview, truncated) = show(&bytes, STRING_CHARS);
        self.body = Body::String { preview, truncated };
    }

    fn hll(&mut self, s: &[u8], cfg: &Config) {
        let dense = s.get(4) == Some(&crate::keyspace::types::hll::DENSE);
        let histogram = crate::keyspace::types::hll::histogram(s)
            .map(|h| h.to_vec())
            .ok();
        let max_register = histogram
            .as_ref()
            .and_then(|h| h.iter().rposition(|&n| n > 0))
            .unwrap_or(0) as u8;
        let sparse_dense = ("sparse", "dense");
        self.gauges.push(gauge(
            "hll-sparse-max-bytes",
            "sparse size",
            Unit::Bytes,
            (!dense).then_some(s.len() as u64),
            cfg.hll_sparse_max_bytes,
            sparse_dense,
        ));
        self.gauges.push(gauge(
            "sparse register maximum",
            "largest register",
            Unit::Register,
            Some(max_register as u64),
            crate::keyspace::types::hll::SPARSE_VAL_MAX_VALUE as u64,
            sparse_dense,
        ));
        self.body = Body::Hll(HllView {
            dense,
            bytes: s.len(),
            cached: crate::keyspace::types::hll::cached(s),
            estimate: histogram
                .is_some()
                .then(|| crate::keyspace::types::hll::count(s).ok())
                .flatten(),
            histogram: histogram.unwrap_or_default(),
            max_register,
        });
    }

    fn list(&mut self, l: &crate::keyspace::types::list::List, cfg: &Config) {
        use crate::keyspace::types::list::convert_limits;
        self.len = l.len();
        let fill = if l.is_quicklist() {
            l.fill()
        } else {
            cfg.list_max_listpack_size
        };
        let (max_bytes, max_entries) = convert_limits(fill);
        let to = ("listpack", "quicklist");
        // For a quicklist: what its nodes hold together, which is what
        // outgrew the single listpack it was.
        self.gauges.push(gauge(
            "list-max-listpack-size",
            "size",
            Unit::Bytes,
            Some(l.listpack_bytes() as u64),
            max_bytes as u64,
            to,
        ));
        if let Some(n) = max_entries {
            self.gauges.push(gauge(
                "list-max-listpack-size",
                "entries",
                Unit::Entries,
                Some(self.len as u64),
                n,
                to,
            ));
        }
        let items = l.iter().take(PREVIEW_ITEMS).map(item).collect();
        self.body = Body::List(ListView {
            nodes: l
                .node_shapes(LIST_NODES)
                .into_iter()
                .map(|n| ListNode {
                    entries: n.entries,
                    bytes: n.bytes,
                    plain: n.plain,
                })
                .collect(),
            node_count: l.node_count(),
            fill,
            node_max_bytes: max_bytes,
            node_max_entries: max_entries,
            items: preview(items, self.len),
        });
    }

    /// The two limits past which a small listpack becomes `big`:
    /// `*-max-listpack-entries` over the length (counting `what[0]`) and
    /// `*-max-listpack-value` over the longest element, if measured.
    fn listpack_limits(
        &mut self,
        params: [&'static str; 2],
        what: [&'static str; 2],
        limits: [u64; 2],
        longest: Option<u64>,
        big: &'static str,
    ) {
        let to = ("listpack", big);
        let entries = Some(self.len as u64);
        self.gauges.push(gauge(
            params[0],
            what[0],
            Unit::Entries,
            entries,
            limits[0],
            to,
        ));
        self.gauges.push(gauge(
            params[1],
            what[1],
            Unit::Bytes,
            longest,
            limits[1],
            to,
        ));
    }

    fn hash(&mut self, h: &crate::keyspace::types::hash::Hash, cfg: &Config) {
        self.len = h.len();
        self.listpack_limits(
            ["hash-max-listpack-entries", "hash-max-listpack-value"],
            ["fields", "longest field or value"],
            [cfg.hash_max_listpack_entries, cfg.hash_max_listpack_value],
            longest(self.len, h.iter().map(|(f, v)| f.len().max(v.len()))),
            "hashtable",
        );
        let mut items = Vec::new();
        match h.listpack() {
            Some(pairs) => items.extend(
                pairs
                    .iter()
                    .take(PREVIEW_ITEMS)
                    .map(|(f, v)| (item(f), item(v))),
            ),
            None => {
                let mut cursor = 0;
                loop {
                    cursor = h.scan_table(cursor, |f, v| items.push((item(f), item(v))));
                    if cursor == 0 || items.len() >= PREVIEW_ITEMS {
                        break;
                    }
                }
                items.truncate(PREVIEW_ITEMS);
            }
        }
        self.body = Body::Hash {
            fields: preview(items, self.len),
        };
    }

    fn set(&mut self, s: &crate::keyspace::types::set::Set, cfg: &Config) {
        use crate::keyspace::types::set::Member;
        self.len = s.len();
        let small = self.len <= MEASURE_MAX;
        self.gauges.push(gauge(
            "set-max-intset-entries",
            "members",
            Unit::Entries,
            Some(self.len as u64),
            cfg.set_max_intset_entries.min(1 << 30),
            ("intset", "hashtable"),
        ));
        let longest_member = if s.is_intset() {
            // An integer's decimal form: at most 20 bytes.
            Some(s.iter().map(|m| m.to_vec().len()).max().unwrap_or(0) as u64)
        } else {
            longest(self.len, s.iter().map(|m| m.to_vec().len()))
        };
        self.listpack_limits(
            ["set-max-listpack-entries", "set-max-listpack-value"],
            ["members", "longest member"],
            [cfg.set_max_listpack_entries, cfg.set_max_listpack_value],
            longest_member,
            "hashtable",
        );
        let all_ints = if s.is_intset() {
            Some(true)
        } else {
            small.then(|| {
                s.iter().all(|m| match m {
                    Member::Int(_) => true,
                    Member::Str(b) => crate::proto::resp::parse_i64(b).is_some(),
                })
            })
        };
        let mut items = Vec::new();
        match s.listpack() {
            Some(v) => items.extend(v.iter().take(PREVIEW_ITEMS).map(|m| item(m))),
            None if s.is_intset() => {
                items.extend(s.iter().take(PREVIEW_ITEMS).map(|m| item(&m.to_vec())))
            }
            None => {
                let mut cursor = 0;
                loop {
                    cursor = s.scan_table(cursor, |m| items.push(item(m)));
                    if cursor == 0 || items.len() >= PREVIEW_ITEMS {
                        break;
                    }
                }
                items.truncate(PREVIEW_ITEMS);
            }
        }
        self.body = Body::Set {
            members: preview(items, self.len),
            all_ints,
        };
    }

    fn zset(&mut self, z: &crate::keyspace::types::zset::ZSet, cfg: &Config) {
        self.len = z.len();
        let longest_member = (self.len <= MEASURE_MAX)
            .then(|| z.entries().iter().map(|(m, _)| m.len()).max().unwrap_or(0) as u64);
        self.listpack_limits(
            ["zset-max-listpack-entries", "zset-max-listpack-value"],
            ["members", "longest member"],
            [cfg.zset_max_listpack_entries, cfg.zset_max_listpack_value],
            longest_member,
            "skiplist",
        );
        let skiplist = z.inspect_first(SKIPLIST_NODES).map(|(nodes, levels)| {
            let mut nodes = nodes.into_iter();
            let header = nodes.next().map(|h| h.levels).unwrap_or_default();
            let nodes: Vec<SkipNode> = nodes
                .map(|n| SkipNode {
                    rank: n.rank,
                    member: item(&n.member),
                    score: d2string(n.score),
                    levels: n.levels,
                })
                .collect();
            SkipView {
                levels,
                header,
                hidden: self.len - nodes.len(),
                nodes,
                tail_rank: self.len,
            }
        });
        let entries = if skiplist.is_some() {
            Preview::default()
        } else {
            let items = z
                .range_by_rank(0, PREVIEW_ITEMS.saturating_sub(1), false)
                .into_iter()
                .map(|(m, s)| (item(&m), d2string(s)))
                .collect();
            preview(items, self.len)
        };
        self.body = Body::ZSet(ZSetView { entries, skiplist });
    }
}

impl KeyView {
    fn stream(&mut self, st: &crate::keyspace::types::stream::Stream, cfg: &Config) {
        use crate::keyspace::types::stream::StreamId;
        let log = st.log();
        self.len = log.len() as usize;
        let mut newest: Vec<StreamEntry> = log
            .range_rev(StreamId::MIN, StreamId::MAX)
            .take(PREVIEW_ITEMS)
            .map(|e| StreamEntry {
                id: e.id.to_string(),
                fields: e
                    .fields
                    .iter()
                    .take(STREAM_FIELDS)
                    .map(|(f, v)| (item(f), item(v)))
                    .collect(),
            })
            .collect();
        newest.reverse();
        let layout = log.node_layout();
        let groups = st.groups();
        self.body = Body::Stream(StreamView {
            entries: preview(newest, self.len),
            first_id: log.first_id().to_string(),
            last_id: log.last_id().to_string(),
            entries_added: log.entries_added(),
            max_deleted_id: log.max_deleted_entry_id().to_string(),
            node_count: layout.len(),
            nodes: layout
                .into_iter()
                .take(LIST_NODES)
                .map(|(id, live, deleted, bytes)| StreamNode {
                    master_id: id.to_string(),
                    live,
                    deleted,
                    bytes,
                })
                .collect(),
            node_max_entries: cfg.stream_node_max_entries,
            node_max_bytes: cfg.stream_node_max_bytes,
            group_count: groups.len(),
            groups: groups
                .iter()
                .take(STREAM_GROUPS)
                .map(|(name, g)| GroupView {
                    name: item(name),
                    last_delivered: g.last_id.to_string(),
                    entries_read: g.entries_read,
                    pending: g.pel().len(),
                    consumer_count: g.consumers().len(),
                    consumers: g
                        .consumers()
                        .iter()
                        .take(STREAM_GROUPS)
                        .map(|(cname, c)| ConsumerView {
                            name: item(cname),
                            pending: preview(
                                c.pel()
                                    .iter()
                                    .take(PREVIEW_ITEMS)
                                    .map(|id| id.to_string())
                                    .collect(),
                                c.pel().len(),
                            ),
                        })
                        .collect(),
                })
                .collect(),
        });
    }
}
