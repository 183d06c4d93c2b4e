//! A plain-data view of one key for inspectors (the playground's key inspector): its encoding, the thresholds that decide it, and its structure (quicklist nodes, skiplist levels and spans, HyperLogLog registers, stream nodes and consumer groups), plus the note explaining an encoding change seen between two views.
//!
//! The view is built from the engine's internals without side effects: no
//! lazy expiry, no keyspace hits, no LRU touch, so inspecting a key never
//! changes what a later command sees. It holds strings and numbers only
//! (serde-serialisable), so a UI needs nothing from `types`.
//!
//! Work is bounded whatever the key's size: element previews stop at
//! [`PREVIEW_ITEMS`], the skiplist picture at [`SKIPLIST_NODES`], quicklist
//! nodes at [`LIST_NODES`], and the longest-element measure (needed only
//! near the listpack limits) is skipped past [`MEASURE_MAX`] elements.

use serde::Serialize;

use crate::keyspace::object::{Obj, RString, Value, EMBSTR_SIZE_LIMIT};
use crate::keyspace::types::skiplist::LinkView;
use crate::num::double::d2string;
use crate::server::config::Config;
use crate::server::lossy;

/// Elements listed in a preview.
pub const PREVIEW_ITEMS: usize = 32;
/// Characters of an element shown before it is cut with `…`.
pub const PREVIEW_CHARS: usize = 64;
/// Characters of a string value shown.
pub const STRING_CHARS: usize = 512;
/// Skiplist nodes drawn (after the header).
pub const SKIPLIST_NODES: usize = 32;
/// Quicklist (and stream) nodes listed.
pub const LIST_NODES: usize = 64;
/// Consumer groups listed, and consumers per group.
pub const STREAM_GROUPS: usize = 16;
/// Field-value pairs shown per stream entry.
pub const STREAM_FIELDS: usize = 8;
/// Collections larger than this are not scanned for their longest element.
pub const MEASURE_MAX: usize = 4096;

/// One key as an inspector shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyView {
    pub key: String,
    pub db: usize,
    /// TYPE's name.
    pub kind: &'static str,
    /// OBJECT ENCODING's name.
    pub encoding: &'static str,
    /// Elements of a collection; bytes of a string.
    pub len: usize,
    /// Bytes of the value as the allocator counts them.
    pub mem_bytes: usize,
    /// Milliseconds left, if the key has a TTL (≤ 0: expired, not yet reclaimed).
    pub ttl_ms: Option<i64>,
    /// The thresholds that convert this value to another encoding.
    pub gauges: Vec<Gauge>,
    pub body: Body,
}

/// What a gauge measures, for wording.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Entries,
    Bytes,
    /// A HyperLogLog register value.
    Register,
}

/// A measure against the limit past which the value leaves encoding
/// `from` for `to`: conversion happens when `value > limit` while the
/// value is `from`-encoded.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gauge {
    /// The config parameter holding the limit (or the built-in limit's name).
    pub param: &'static str,
    /// What is measured, e.g. "fields" or "longest field or value".
    pub what: &'static str,
    pub unit: Unit,
    /// `None` when not measured (a large table is not scanned).
    pub value: Option<u64>,
    pub limit: u64,
    pub from: &'static str,
    pub to: &'static str,
}

impl Gauge {
    /// True when the value is over the limit.
    pub fn exceeded(&self) -> bool {
        self.value.is_some_and(|v| v > self.limit)
    }
}

/// An element preview: at most [`PREVIEW_ITEMS`] items, and how many are not shown.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Preview<T> {
    pub items: Vec<T>,
    pub more: usize,
}

/// The structure of one value.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Body {
    String {
        /// The value, lossily decoded and cut at [`STRING_CHARS`].
        preview: String,
        truncated: bool,
    },
    /// A string holding a valid HyperLogLog.
    Hll(HllView),
    List(ListView),
    Hash {
        fields: Preview<(String, String)>,
    },
    Set {
        members: Preview<String>,
        /// Every member is a canonical integer (what an intset needs);
        /// `None` when not measured.
        all_ints: Option<bool>,
    },
    #[serde(rename = "zset")]
    ZSet(ZSetView),
    Stream(StreamView),
    /// A value kind without a dedicated view: the header (type, encoding,
    /// size, memory) is all an inspector shows. New `Value` kinds land
    /// here until [`KeyView::of`] gets an arm for them.
    Other,
}

/// A HyperLogLog's header and registers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HllView {
    pub dense: bool,
    /// Bytes of the whole string, header included.
    pub bytes: usize,
    /// The cached cardinality, `None` when marked stale (PFCOUNT recomputes it).
    pub cached: Option<u64>,
    /// The cardinality PFCOUNT would return now; `None` if the registers are corrupt.
    pub estimate: Option<u64>,
    /// How many of the 16384 registers hold each value 0..=63; empty if corrupt.
    pub histogram: Vec<u64>,
    /// Largest register value.
    pub max_register: u8,
}

/// A list's nodes (one for a listpack) and its first elements.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ListView {
    /// The first [`LIST_NODES`] nodes, head first.
    pub nodes: Vec<ListNode>,
    pub node_count: usize,
    /// The fill the nodes are limited by: the quicklist's own, or the
    /// config's for a listpack.
    pub fill: i32,
    /// Bytes a node may hold under `fill`.
    pub node_max_bytes: usize,
    /// Entries a node may hold, when `fill` counts entries.
    pub node_max_entries: Option<u64>,
    pub items: Preview<String>,
}

/// One quicklist node.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ListNode {
    pub entries: usize,
    pub bytes: usize,
    /// A large element stored alone, outside any listpack.
    pub plain: bool,
}

/// A sorted set: its listpack pairs, or its skiplist.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ZSetView {
    /// Listpack: (member, score) in order.
    pub entries: Preview<(String, String)>,
    pub skiplist: Option<SkipView>,
}

/// The head of a skiplist: the header's links and the first
/// [`SKIPLIST_NODES`] nodes with theirs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkipView {
    /// Levels in use (`zsl->level`): the header's height.
    pub levels: usize,
    pub header: Vec<LinkView>,
    pub nodes: Vec<SkipNode>,
    /// Nodes after the drawn ones.
    pub hidden: usize,
    /// Rank of the tail node (the length).
    pub tail_rank: usize,
}

/// One skiplist node.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkipNode {
    /// 1-based rank.
    pub rank: usize,
    pub member: String,
    /// As ZSCORE prints it.
    pub score: String,
    /// Level 0 first; a forward link names the rank it points to.
    pub levels: Vec<LinkView>,
}

/// A stream: its newest entries, its listpack nodes and its consumer groups.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StreamView {
    /// The newest [`PREVIEW_ITEMS`] live entries, oldest first; `more`
    /// counts the older ones not shown.
    pub entries: Preview<StreamEntry>,
    pub first_id: String,
    pub last_id: String,
    /// Entries ever added (XADD's counter, never decreasing).
    pub entries_added: u64,
    /// The largest ID deleted by XDEL or a trim (`0-0` if none).
    pub max_deleted_id: String,
    /// The first [`LIST_NODES`] nodes, oldest first.
    pub nodes: Vec<StreamNode>,
    pub node_count: usize,
    /// `stream-node-max-entries` and `-bytes` (0: not limited).
    pub node_max_entries: u64,
    pub node_max_bytes: u64,
    /// The first [`STREAM_GROUPS`] groups by name.
    pub groups: Vec<GroupView>,
    pub group_count: usize,
}

/// One stream entry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StreamEntry {
    pub id: String,
    /// The first [`STREAM_FIELDS`] field-value pairs.
    pub fields: Vec<(String, String)>,
}

/// One listpack node of a stream, keyed by its master ID.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StreamNode {
    pub master_id: String,
    pub live: u64,
    /// Tombstones: entries deleted but still in the listpack.
    pub deleted: u64,
    pub bytes: usize,
}

/// A consumer group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupView {
    pub name: String,
    /// `last-delivered-id`.
    pub last_delivered: String,
    /// `entries-read`, -1 when unknown.
    pub entries_read: i64,
    /// Entries delivered and not acknowledged (the group's PEL).
    pub pending: usize,
    /// The first [`STREAM_GROUPS`] consumers by name.
    pub consumers: Vec<ConsumerView>,
    pub consumer_count: usize,
}

/// A consumer and its pending entries list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConsumerView {
    pub name: String,
    /// The first [`PREVIEW_ITEMS`] pending IDs, in order.
    pub pending: Preview<String>,
}

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

    fn hash(&mut self, h: &crate::keyspace::types::hash::Hash, cfg: &Config) {
        self.len = h.len();
        let to = ("listpack", "hashtable");
        self.gauges.push(gauge(
            "hash-max-listpack-entries",
            "fields",
            Unit::Entries,
            Some(self.len as u64),
            cfg.hash_max_listpack_entries,
            to,
        ));
        self.gauges.push(gauge(
            "hash-max-listpack-value",
            "longest field or value",
            Unit::Bytes,
            longest(self.len, h.iter().map(|(f, v)| f.len().max(v.len()))),
            cfg.hash_max_listpack_value,
            to,
        ));
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
        let to = ("listpack", "hashtable");
        self.gauges.push(gauge(
            "set-max-listpack-entries",
            "members",
            Unit::Entries,
            Some(self.len as u64),
            cfg.set_max_listpack_entries,
            to,
        ));
        let longest_member = if s.is_intset() {
            // An integer's decimal form: at most 20 bytes.
            Some(s.iter().map(|m| m.to_vec().len()).max().unwrap_or(0) as u64)
        } else {
            longest(self.len, s.iter().map(|m| m.to_vec().len()))
        };
        self.gauges.push(gauge(
            "set-max-listpack-value",
            "longest member",
            Unit::Bytes,
            longest_member,
            cfg.set_max_listpack_value,
            to,
        ));
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
        let to = ("listpack", "skiplist");
        self.gauges.push(gauge(
            "zset-max-listpack-entries",
            "members",
            Unit::Entries,
            Some(self.len as u64),
            cfg.zset_max_listpack_entries,
            to,
        ));
        let longest_member = (self.len <= MEASURE_MAX)
            .then(|| z.entries().iter().map(|(m, _)| m.len()).max().unwrap_or(0) as u64);
        self.gauges.push(gauge(
            "zset-max-listpack-value",
            "longest member",
            Unit::Bytes,
            longest_member,
            cfg.zset_max_listpack_value,
            to,
        ));
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

/// An encoding change between two views of the same key, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Conversion {
    pub from: &'static str,
    pub to: &'static str,
    /// The limits the new value is past, worded for a reader; empty when
    /// no gauge explains the change (a STORE command's new value, 7.2's
    /// HSET sizing by argument count).
    pub reasons: Vec<String>,
}

impl Conversion {
    /// "converted to hashtable by HSET: 129 fields > hash-max-listpack-entries 128".
    pub fn describe(&self, by: Option<&str>) -> String {
        let mut s = format!("converted from {} to {}", self.from, self.to);
        if let Some(by) = by {
            s.push_str(" by ");
            s.push_str(by);
        }
        if !self.reasons.is_empty() {
            s.push_str(": ");
            s.push_str(&self.reasons.join("; "));
        }
        s
    }
}

/// A gauge's measure as a reason: "129 fields > hash-max-listpack-entries 128".
fn reason(g: &Gauge, value: u64) -> String {
    let measured = match g.unit {
        Unit::Entries => format!("{value} {}", g.what),
        Unit::Bytes => format!("{} of {value} bytes", g.what),
        Unit::Register => format!("{} {value}", g.what),
    };
    format!("{measured} > {} {}", g.param, g.limit)
}

/// What changed between `before` and `after` (views of the same key taken
/// around a command) if its collection encoding did. Strings are left
/// out: every string write builds a new object, so their encoding
/// changing is no conversion.
pub fn conversion(before: &KeyView, after: &KeyView) -> Option<Conversion> {
    if before.kind != after.kind || before.encoding == after.encoding || after.kind == "string" {
        // An HLL's sparse → dense promotion is the one string conversion.
        let hll = |v: &KeyView| match &v.body {
            Body::Hll(h) => Some(h.dense),
            _ => None,
        };
        return match (hll(before), hll(after)) {
            (Some(false), Some(true)) => Some(hll_promotion(before, after)),
            _ => None,
        };
    }
    let mut reasons = Vec::new();
    if before.encoding == "intset" {
        if let Body::Set {
            all_ints: Some(false),
            ..
        } = after.body
        {
            reasons.push("a member that is not an integer".to_string());
        }
    }
    if before.encoding == "quicklist" && after.encoding == "listpack" {
        if let Body::List(l) = &after.body {
            reasons.push(format!(
                "down to one node within half the node limit ({} bytes{})",
                l.node_max_bytes / 2,
                l.node_max_entries
                    .map(|n| format!(", {} entries", n / 2))
                    .unwrap_or_default()
            ));
        }
    }
    for g in &after.gauges {
        if g.to != after.encoding || !(g.from == before.encoding || before.encoding == "intset") {
            continue;
        }
        if let Some(v) = g.value.filter(|&v| v > g.limit) {
            reasons.push(reason(g, v));
        }
    }
    Some(Conversion {
        from: before.encoding,
        to: after.encoding,
        reasons,
    })
}

/// PFADD's promotion of a sparse HLL: a register past what a sparse
/// opcode holds, or the sparse form growing past `hll-sparse-max-bytes`.
fn hll_promotion(before: &KeyView, after: &KeyView) -> Conversion {
    let mut reasons = Vec::new();
    let find = |v: &KeyView, unit: Unit| v.gauges.iter().find(|g| g.unit == unit).cloned();
    if let Some(g) = find(after, Unit::Register).filter(|g| g.exceeded()) {
        reasons.push(reason(&g, g.value.unwrap_or(0)));
    } else if let (Some(b), Some(a)) = (find(before, Unit::Bytes), find(after, Unit::Bytes)) {
        reasons.push(format!(
            "the sparse form outgrew {} {} (it was {} bytes)",
            a.param,
            a.limit,
            b.value.unwrap_or(0)
        ));
    }
    Conversion {
        from: "sparse",
        to: "dense",
        reasons,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Engine;

    fn engine() -> (Engine, crate::ClientId) {
        let mut e = Engine::new(7);
        let c = e.connect("t");
        (e, c)
    }

    fn view(e: &Engine, key: &str) -> KeyView {
        e.inspect(0, key.as_bytes()).expect("key exists")
    }

    fn run(e: &mut Engine, c: crate::ClientId, line: &str) {
        let r = e.execute_line(c, line);
        assert!(!r.is_error(), "{line}: {r:?}");
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
        let (mut e, c) = engine();
        run(&mut e, c, "SET n 12345");
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
        let (mut e, c) = engine();
        run(&mut e, c, "SET k v");
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
        let (mut e, c) = engine();
        run(&mut e, c, "PFADD h a b c d e");
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
        let before = view(&e, "h");
        let mut line = String::from("PFADD h");
        for i in 0..40 {
            line.push_str(&format!(" x{i}"));
        }
        run(&mut e, c, &line);
        let after = view(&e, "h");
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
        let (mut e, c) = engine();
        run(&mut e, c, "PFADD h a");
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
        let (mut e, c) = engine();
        run(&mut e, c, "CONFIG SET hash-max-listpack-entries 128");
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
        let (mut e, c) = engine();
        run(&mut e, c, "HSET h a 1");
        let before = view(&e, "h");
        run(&mut e, c, &format!("HSET h b {}", "v".repeat(70)));
        let after = view(&e, "h");
        assert_eq!(
            conversion(&before, &after).unwrap().reasons,
            vec!["longest field or value of 70 bytes > hash-max-listpack-value 64".to_string()]
        );
    }

    #[test]
    fn set_encodings_and_their_conversions() {
        let (mut e, c) = engine();
        run(&mut e, c, "SADD s 1 2 3");
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
        let before = view(&e, "i");
        run(&mut e, c, "SADD i 5");
        let after = view(&e, "i");
        assert_eq!(
            conversion(&before, &after).unwrap().describe(None),
            "converted from intset to hashtable: 5 members > set-max-intset-entries 4"
        );
    }

    #[test]
    fn list_nodes_and_conversions_both_ways() {
        let (mut e, c) = engine();
        run(&mut e, c, "RPUSH l a b c");
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
        let (mut e, c) = engine();
        run(&mut e, c, "CONFIG SET list-max-listpack-size 4");
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
        let (mut e, c) = engine();
        run(&mut e, c, "ZADD z 1 a");
        let before = view(&e, "z");
        run(&mut e, c, &format!("ZADD z 2 {}", "m".repeat(65)));
        let after = view(&e, "z");
        assert_eq!(
            conversion(&before, &after).unwrap().reasons,
            vec!["longest member of 65 bytes > zset-max-listpack-value 64".to_string()]
        );
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
        let (mut e, c) = engine();
        run(&mut e, c, "SET k 1");
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
        let (mut e, c) = engine();
        run(&mut e, c, "ZADD z 1 a 2 b");
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
}
