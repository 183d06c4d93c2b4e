//! The view's plain data: the key, its encoding and the gauges that decide it, and one structure per type, all strings and numbers so a UI needs nothing from the engine's types.

use serde::Serialize;

use crate::keyspace::types::skiplist::LinkView;

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
