//! Stream values (t_stream.c): entries in listpack nodes under a radix tree keyed by each node's master ID, split where Redis splits them, with tombstones, consumer groups and their pending entries lists, and an O(1) memory counter.
//!
//! ## The node model
//!
//! Redis keeps a stream as a rax (radix tree) whose keys are 128-bit big
//! endian IDs, each pointing at a listpack "node" that holds a run of
//! consecutive entries. Which entries share a node is observable: `MAXLEN ~`
//! and `MINID ~` trimming only ever drop whole nodes, so XLEN after an
//! approximate trim depends on the boundaries, and XINFO STREAM reports the
//! number of rax keys and rax nodes. The model here keeps exactly the parts
//! of that layout that decide those answers:
//!
//! - nodes are keyed by their master ID (the first ID ever added to them)
//!   and hold their entries in order, tombstones included, with the live
//!   and deleted counters of the master entry;
//! - each node tracks its `lpBytes` exactly, element by element, with the
//!   listpack encoding sizes of every integer and string Redis writes
//!   (master fields, flags, ID deltas, the same-fields compression, the
//!   `lp-count` back pointers, counters rewritten in place). A new node is
//!   started, as in `streamAppendItem`, when the tail node's bytes plus the
//!   new fields' lengths reach `stream-node-max-bytes` or its live plus
//!   deleted entries reach `stream-node-max-entries`;
//! - `streamTrim` is followed step by step: whole nodes go while they can,
//!   `~` stops at the first node that cannot go whole, the `LIMIT` (100 ×
//!   `stream-node-max-entries` by default) caps the work, and an exact trim
//!   marks entries of the first remaining node as deleted;
//! - XDEL marks an entry deleted and frees its node when it was the node's
//!   last live entry (`streamIteratorRemoveEntry`);
//! - the rax itself is simulated node for node ([`rax::Rax`]: the same
//!   splits on insert and the same clean-up and recompression on removal
//!   as rax.c), so `radix-tree-nodes` is Redis' count.
//!
//! With those rules, XLEN after `~` trims and the XINFO STREAM counters are
//! Redis' for any sequence of commands. Memory follows the same model:
//! listpack allocations with Redis' preallocation and shrink-to-fit, and
//! the raxes of the stream, its groups, their PELs and consumers simulated
//! node for node (for MEMORY USAGE, whose formula counts rax nodes).

use std::collections::{BTreeMap, BTreeSet};

use crate::keyspace::memory::{alloc_size, listpack_entry_size, sds_size};

/// A stream entry ID: milliseconds and a sequence number, ordered as a pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId {
    pub ms: u64,
    pub seq: u64,
}

impl StreamId {
    /// `0-0`.
    pub const MIN: StreamId = StreamId { ms: 0, seq: 0 };
    /// The largest ID, which also stands for `+` and XREADGROUP's `>`.
    pub const MAX: StreamId = StreamId {
        ms: u64::MAX,
        seq: u64::MAX,
    };

    /// The ID `ms-seq`.
    pub const fn new(ms: u64, seq: u64) -> StreamId {
        StreamId { ms, seq }
    }

    /// `streamIncrID`: the successor, or `None` past the last ID (where
    /// Redis wraps to 0-0 and reports an error).
    pub fn incr(self) -> Option<StreamId> {
        if self.seq == u64::MAX {
            if self.ms == u64::MAX {
                None
            } else {
                Some(StreamId::new(self.ms + 1, 0))
            }
        } else {
            Some(StreamId::new(self.ms, self.seq + 1))
        }
    }

    /// `streamDecrID`: the predecessor, or `None` before 0-0.
    pub fn decr(self) -> Option<StreamId> {
        if self.seq == 0 {
            if self.ms == 0 {
                None
            } else {
                Some(StreamId::new(self.ms - 1, u64::MAX))
            }
        } else {
            Some(StreamId::new(self.ms, self.seq - 1))
        }
    }

    /// True for 0-0.
    pub fn is_zero(self) -> bool {
        self == StreamId::MIN
    }

    /// The rax key: 128 bits, big endian, so byte order is ID order.
    fn encode(self) -> [u8; 16] {
        let mut k = [0u8; 16];
        k[..8].copy_from_slice(&self.ms.to_be_bytes());
        k[8..].copy_from_slice(&self.seq.to_be_bytes());
        k
    }
}

impl std::fmt::Display for StreamId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.ms, self.seq)
    }
}

/// `stream-node-max-bytes` and `stream-node-max-entries`, read from the
/// config when an entry is added.
#[derive(Clone, Copy, Debug)]
pub struct NodeLimits {
    pub max_bytes: u64,
    pub max_entries: u64,
}

/// `STREAM_LISTPACK_MAX_SIZE`: no node may grow past 1 GB.
const LISTPACK_MAX_SIZE: u64 = 1 << 30;
/// `STREAM_LISTPACK_MAX_PRE_ALLOCATE`: what a new node allocates up front.
const MAX_PRE_ALLOCATE: u64 = 4096;
/// A listpack's header (total bytes, element count) and end byte.
const LP_OVERHEAD: usize = 7;
/// `sizeof(stream)`: rax pointer, length, three IDs, entries added, groups pointer.
const STREAM_STRUCT: usize = 80;
/// `sizeof(rax)`: head pointer and two counters.
const RAX_STRUCT: usize = 24;
/// `sizeof(streamCG)`: last ID, entries read, two rax pointers.
const CG_STRUCT: usize = 40;
/// `sizeof(streamConsumer)`: two times, name and PEL pointers.
const CONSUMER_STRUCT: usize = 32;
/// `sizeof(streamNACK)`: delivery time, count, consumer pointer.
const NACK_STRUCT: usize = 24;

/// Bytes a listpack integer element takes: encoding plus back length.
fn lp_int(v: i64) -> usize {
    match v {
        0..=127 => 2,
        -4096..=4095 => 3,
        -32_768..=32_767 => 4,
        -8_388_608..=8_388_607 => 5,
        -2_147_483_648..=2_147_483_647 => 6,
        _ => 10,
    }
}

/// Bytes a listpack string element takes (integer-looking strings are
/// stored as integers, as `lpAppend` does).
fn lp_str(s: &[u8]) -> usize {
    listpack_entry_size(s)
}

/// One entry: its ID and field-value pairs, or a tombstone left by XDEL or
/// an exact trim.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: StreamId,
    pub fields: Vec<(Vec<u8>, Vec<u8>)>,
    deleted: bool,
}

/// One listpack node of the rax.
#[derive(Clone, Debug, PartialEq)]
struct Node {
    /// The master entry's field names (those of the first entry added).
    master_fields: Vec<Vec<u8>>,
    /// Entries in ID order, tombstones included.
    entries: Vec<Entry>,
    /// The master entry's "count" (live entries).
    live: u64,
    /// The master entry's "deleted" counter.
    deleted: u64,
    /// `lpBytes`.
    bytes: usize,
    /// The allocation holding the listpack.
    alloc: usize,
}

impl Node {
    /// Rewrites the live and deleted counters in place, keeping `bytes` right.
    fn set_counters(&mut self, live: u64, deleted: u64) {
        let before = lp_int(self.live as i64) + lp_int(self.deleted as i64);
        let after = lp_int(live as i64) + lp_int(deleted as i64);
        self.bytes = self.bytes + after - before;
        self.live = live;
        self.deleted = deleted;
    }

    /// The last entry's ID, tombstone or not (`lpGetEdgeStreamID(lp, 0)`).
    fn last_id(&self) -> StreamId {
        self.entries.last().map_or(StreamId::MIN, |e| e.id)
    }
}

/// Why an entry could not be added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppendError {
    /// The ID is not greater than the stream's last ID (`EDOM`).
    IdTooSmall,
    /// The fields and values add up to more than a node may hold (`ERANGE`).
    TooLarge,
}

/// A trimming strategy (`TRIM_STRATEGY_MAXLEN` / `_MINID`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trim {
    MaxLen(u64),
    MinId(StreamId),
}

/// The entries of a stream and everything about them except the consumer
/// groups: nodes, rax shape, length, edge IDs and counters.
#[derive(Clone, Debug, PartialEq)]
pub struct Log {
    nodes: BTreeMap<StreamId, Node>,
    rax: rax::Rax,
    length: u64,
    last_id: StreamId,
    first_id: StreamId,
    max_deleted_entry_id: StreamId,
    entries_added: u64,
    /// Node allocations plus the rax.
    mem: usize,
}

impl Default for Log {
    fn default() -> Self {
        Log::new()
    }
}

impl Log {
    /// `streamNew`.
    pub fn new() -> Log {
        let rax = rax::Rax::new();
        let mem = alloc_size(RAX_STRUCT) + rax.bytes();
        Log {
            nodes: BTreeMap::new(),
            rax,
            length: 0,
            last_id: StreamId::MIN,
            first_id: StreamId::MIN,
            max_deleted_entry_id: StreamId::MIN,
            entries_added: 0,
            mem,
        }
    }

    /// Live entries (XLEN).
    pub fn len(&self) -> u64 {
        self.length
    }

    /// True when no live entry is left (the key stays: streams are not
    /// deleted when emptied).
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// The last ID ever generated or set (`last-generated-id`).
    pub fn last_id(&self) -> StreamId {
        self.last_id
    }

    /// The first live entry's ID as recorded (`recorded-first-entry-id`).
    pub fn first_id(&self) -> StreamId {
        self.first_id
    }

    /// The largest ID ever deleted by XDEL (`max-deleted-entry-id`).
    pub fn max_deleted_entry_id(&self) -> StreamId {
        self.max_deleted_entry_id
    }

    /// Entries ever added (`entries-added`).
    pub fn entries_added(&self) -> u64 {
        self.entries_added
    }

    /// XSETID's assignments.
    pub fn set_last_id(&mut self, id: StreamId) {
        self.last_id = id;
    }

    /// XSETID ENTRIESADDED.
    pub fn set_entries_added(&mut self, n: u64) {
        self.entries_added = n;
    }

    /// XSETID MAXDELETEDID.
    pub fn set_max_deleted_entry_id(&mut self, id: StreamId) {
        self.max_deleted_entry_id = id;
    }

    /// Listpack nodes (`radix-tree-keys`).
    pub fn rax_keys(&self) -> u64 {
        self.rax.numele()
    }

    /// Radix tree nodes (`radix-tree-nodes`).
    pub fn rax_nodes(&self) -> u64 {
        self.rax.numnodes()
    }

    /// `streamNextID`: `now_ms` if it is past the last ID's time, else
    /// the last ID plus one (the clock never makes IDs go backwards).
    pub fn next_auto_id(&self, now_ms: u64) -> StreamId {
        if now_ms > self.last_id.ms {
            StreamId::new(now_ms, 0)
        } else {
            self.last_id.incr().unwrap_or(StreamId::MIN)
        }
    }

    /// `streamAppendItem`: adds an entry of `pairs` (field, value, ...)
    /// under an explicit ID (`use_id` with whether its sequence was given;
    /// `ms-*` leaves it to the stream) or an automatic one from `now_ms`.
    pub fn append(
        &mut self,
        pairs: &[Vec<u8>],
        use_id: Option<(StreamId, bool)>,
        now_ms: u64,
        lim: NodeLimits,
    ) -> Result<StreamId, AppendError> {
        let id = match use_id {
            Some((id, true)) => id,
            Some((id, false)) => {
                if self.last_id.ms == id.ms {
                    if self.last_id.seq == u64::MAX {
                        return Err(AppendError::IdTooSmall);
                    }
                    StreamId::new(id.ms, self.last_id.seq + 1)
                } else {
                    id
                }
            }
            None => self.next_auto_id(now_ms),
        };
        if id <= self.last_id {
            return Err(AppendError::IdTooSmall);
        }
        let totelelen: u64 = pairs.iter().map(|p| p.len() as u64).sum();
        if totelelen > LISTPACK_MAX_SIZE {
            return Err(AppendError::TooLarge);
        }
        let fields: Vec<(Vec<u8>, Vec<u8>)> = pairs
            .chunks_exact(2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect();
        let max_bytes = match lim.max_bytes {
            0 => LISTPACK_MAX_SIZE,
            n => n.min(LISTPACK_MAX_SIZE),
        };
        let mut tail = self.nodes.iter_mut().next_back().map(|(k, n)| (*k, n));
        if let Some((_, node)) = &mut tail {
            let full = node.bytes as u64 + totelelen >= max_bytes
                || (lim.max_entries != 0 && node.live + node.deleted >= lim.max_entries);
            if full {
                // `lpShrinkToFit` before the node is left behind.
                let fit = alloc_size(node.bytes);
                if fit < node.alloc {
                    self.mem = self.mem - node.alloc + fit;
                    node.alloc = fit;
                }
                tail = None;
            }
        }
        match tail {
            Some((master, node)) => {
                let same = node.master_fields.len() == fields.len()
                    && node
                        .master_fields
                        .iter()
                        .zip(&fields)
                        .all(|(m, f)| *m == f.0);
                let before = node.alloc;
                node.set_counters(node.live + 1, node.deleted);
                node.bytes += entry_bytes(id, master, &fields, same);
                if node.bytes > node.alloc {
                    node.alloc = alloc_size(node.bytes);
                }
                node.entries.push(Entry {
                    id,
                    fields,
                    deleted: false,
                });
                self.mem = self.mem + node.alloc - before;
            }
            None => {
                let prealloc = match lim.max_bytes {
                    n if n > 0 && n < MAX_PRE_ALLOCATE => n,
                    _ => MAX_PRE_ALLOCATE,
                } as usize;
                let mut bytes = LP_OVERHEAD
                    + lp_int(1)
                    + lp_int(0)
                    + lp_int(fields.len() as i64)
                    + fields.iter().map(|(f, _)| lp_str(f)).sum::<usize>()
                    + lp_int(0);
                bytes += entry_bytes(id, id, &fields, true);
                let alloc = alloc_size(prealloc.max(LP_OVERHEAD)).max(alloc_size(bytes));
                let node = Node {
                    master_fields: fields.iter().map(|(f, _)| f.clone()).collect(),
                    entries: vec![Entry {
                        id,
                        fields,
                        deleted: false,
                    }],
                    live: 1,
                    deleted: 0,
                    bytes,
                    alloc,
                };
                self.mem += alloc;
                self.nodes.insert(id, node);
                self.rax_insert(id);
            }
        }
        self.length += 1;
        self.entries_added += 1;
        self.last_id = id;
        if self.length == 1 {
            self.first_id = id;
        }
        Ok(id)
    }

    fn rax_insert(&mut self, id: StreamId) {
        let before = self.rax.bytes();
        self.rax.insert(&id.encode());
        self.mem = self.mem + self.rax.bytes() - before;
    }

    /// Frees the node keyed `master` (raxRemove + lpFree).
    fn remove_node(&mut self, master: StreamId) -> Option<Node> {
        let node = self.nodes.remove(&master)?;
        self.mem -= node.alloc;
        let before = self.rax.bytes();
        self.rax.remove(&master.encode());
        self.mem = self.mem + self.rax.bytes() - before;
        Some(node)
    }

    /// `streamTrim`: removes entries from the head by `strategy`, whole
    /// nodes only if `approx`, at most `limit` entries unless 0 (the limit
    /// is checked before each whole node). Returns how many went.
    pub fn trim(&mut self, strategy: Trim, approx: bool, limit: i64) -> i64 {
        let mut deleted: i64 = 0;
        let mut cursor = StreamId::MIN;
        while let Some((&master, node)) = self.nodes.range(cursor..).next() {
            if let Trim::MaxLen(max) = strategy {
                if self.length <= max {
                    break;
                }
            }
            let entries = node.live as i64;
            if limit != 0 && deleted.saturating_add(entries) > limit {
                break;
            }
            let remove_node = match strategy {
                Trim::MaxLen(max) => self.length - node.live >= max,
                Trim::MinId(min) => node.last_id() < min,
            };
            if remove_node {
                let n = self.remove_node(master).map_or(0, |n| n.live);
                self.length -= n;
                deleted += n as i64;
                cursor = master;
                continue;
            }
            if approx {
                break;
            }
            let Some(node) = self.nodes.get_mut(&master) else {
                break;
            };
            let mut from_node: u64 = 0;
            for e in node.entries.iter_mut() {
                let stop = match strategy {
                    Trim::MaxLen(max) => self.length <= max,
                    Trim::MinId(min) => e.id >= min,
                };
                if stop {
                    break;
                }
                if !e.deleted {
                    e.deleted = true;
                    from_node += 1;
                    self.length -= 1;
                }
            }
            deleted += from_node as i64;
            let (live, dead) = (node.live - from_node, node.deleted + from_node);
            node.set_counters(live, dead);
            if node.bytes > node.alloc {
                self.mem = self.mem - node.alloc + alloc_size(node.bytes);
                node.alloc = alloc_size(node.bytes);
            }
            break;
        }
        if self.length == 0 {
            self.first_id = StreamId::MIN;
        } else if deleted > 0 {
            self.first_id = self.edge_id(true, true);
        }
        deleted
    }

    /// The node that would hold `id`: the last one keyed at or before it.
    fn node_of(&self, id: StreamId) -> Option<(StreamId, &Node)> {
        self.nodes.range(..=id).next_back().map(|(k, n)| (*k, n))
    }

    /// `streamDeleteItem`: marks the live entry `id` deleted, freeing its
    /// node if it was the node's last live entry. False if there is none.
    pub fn delete(&mut self, id: StreamId) -> bool {
        let Some((master, node)) = self.node_of(id) else {
            return false;
        };
        let Ok(pos) = node.entries.binary_search_by(|e| e.id.cmp(&id)) else {
            return false;
        };
        if node.entries[pos].deleted {
            return false;
        }
        if node.live == 1 {
            self.remove_node(master);
        } else if let Some(node) = self.nodes.get_mut(&master) {
            node.entries[pos].deleted = true;
            let (live, dead) = (node.live - 1, node.deleted + 1);
            node.set_counters(live, dead);
            if node.bytes > node.alloc {
                self.mem = self.mem - node.alloc + alloc_size(node.bytes);
                node.alloc = alloc_size(node.bytes);
            }
        }
        self.length -= 1;
        true
    }

    /// XDEL's whole effect: deletes the IDs in order, keeps the maximal
    /// deleted ID and the first ID, and returns how many were deleted.
    pub fn xdel(&mut self, ids: &[StreamId]) -> u64 {
        let mut deleted = 0;
        let mut first_entry = false;
        for &id in ids {
            if self.delete(id) {
                if id == self.first_id {
                    first_entry = true;
                }
                if id > self.max_deleted_entry_id {
                    self.max_deleted_entry_id = id;
                }
                deleted += 1;
            }
        }
        if deleted > 0 {
            if self.length == 0 {
                self.first_id = StreamId::MIN;
            } else if first_entry {
                self.first_id = self.edge_id(true, true);
            }
        }
        deleted
    }

    /// Live entries with `start <= id <= end`, in ID order.
    pub fn range(&self, start: StreamId, end: StreamId) -> impl Iterator<Item = &Entry> + '_ {
        let from = self.node_of(start).map_or(StreamId::MIN, |(k, _)| k);
        self.nodes
            .range(from..)
            .flat_map(|(_, n)| n.entries.iter())
            .skip_while(move |e| e.id < start)
            .take_while(move |e| e.id <= end)
            .filter(|e| !e.deleted)
    }

    /// Live entries with `start <= id <= end`, from `end` down.
    pub fn range_rev(&self, start: StreamId, end: StreamId) -> impl Iterator<Item = &Entry> + '_ {
        self.nodes
            .range(..=end)
            .rev()
            .flat_map(|(_, n)| n.entries.iter().rev())
            .skip_while(move |e| e.id > end)
            .take_while(move |e| e.id >= start)
            .filter(|e| !e.deleted)
    }

    /// The live entry `id` (`streamEntryExists`).
    pub fn get(&self, id: StreamId) -> Option<&Entry> {
        let (_, node) = self.node_of(id)?;
        let pos = node.entries.binary_search_by(|e| e.id.cmp(&id)).ok()?;
        let e = &node.entries[pos];
        (!e.deleted).then_some(e)
    }

    /// `streamGetEdgeID`: the first (or last) entry's ID, tombstones
    /// skipped if asked; MAX (or MIN) when there is none.
    pub fn edge_id(&self, first: bool, skip_tombstones: bool) -> StreamId {
        let mut all = self.nodes.values().flat_map(|n| n.entries.iter());
        let found = if first {
            all.find(|e| !skip_tombstones || !e.deleted)
        } else {
            self.nodes
                .values()
                .rev()
                .flat_map(|n| n.entries.iter().rev())
                .find(|e| !skip_tombstones || !e.deleted)
        };
        match found {
            Some(e) => e.id,
            None if first => StreamId::MAX,
            None => StreamId::MIN,
        }
    }

    /// `streamLastValidID`: the last live entry's ID.
    pub fn last_valid_id(&self) -> Option<StreamId> {
        self.nodes
            .values()
            .rev()
            .flat_map(|n| n.entries.iter().rev())
            .find(|e| !e.deleted)
            .map(|e| e.id)
    }

    /// `streamRangeHasTombstones`: could an XDEL'd entry lie in the range
    /// (`None` ends are open)? Judged from the maximal deleted ID alone.
    pub fn range_has_tombstones(&self, start: Option<StreamId>, end: Option<StreamId>) -> bool {
        if self.length == 0 || self.max_deleted_entry_id.is_zero() {
            return false;
        }
        if self.first_id > self.max_deleted_entry_id {
            return false;
        }
        let start = start.unwrap_or(StreamId::MIN);
        let end = end.unwrap_or(StreamId::MAX);
        start <= self.max_deleted_entry_id && self.max_deleted_entry_id <= end
    }

    /// `streamEstimateDistanceFromFirstEverEntry`: the logical read counter
    /// of `id`, or -1 when it cannot be known.
    pub fn estimate_distance(&self, id: StreamId) -> i64 {
        if self.entries_added == 0 {
            return 0;
        }
        if self.length == 0 && id <= self.last_id {
            return self.entries_added as i64;
        }
        if id == self.last_id {
            return self.entries_added as i64;
        } else if id > self.last_id {
            return -1;
        }
        if self.max_deleted_entry_id.is_zero() || self.max_deleted_entry_id < self.first_id {
            if id < self.first_id {
                return self.entries_added.wrapping_sub(self.length) as i64;
            } else if id == self.first_id {
                return self.entries_added.wrapping_sub(self.length).wrapping_add(1) as i64;
            }
        }
        -1
    }

    /// Bytes of the rax and its listpacks.
    pub fn mem_size(&self) -> usize {
        self.mem
    }

    /// Every node as (master ID, live, deleted, lpBytes), for tests and views.
    pub fn node_layout(&self) -> Vec<(StreamId, u64, u64, usize)> {
        self.nodes
            .iter()
            .map(|(k, n)| (*k, n.live, n.deleted, n.bytes))
            .collect()
    }
}

/// The listpack bytes of one entry appended to a node keyed `master`:
/// flags, the two ID deltas (wrapping, as C's unsigned subtraction stored
/// in a signed element), the fields unless they are the master's, the
/// values, and the `lp-count` that lets Redis walk back over it.
fn entry_bytes(id: StreamId, master: StreamId, fields: &[(Vec<u8>, Vec<u8>)], same: bool) -> usize {
    let flags = if same { 2 } else { 0 };
    let mut b = lp_int(flags)
        + lp_int(id.ms.wrapping_sub(master.ms) as i64)
        + lp_int(id.seq.wrapping_sub(master.seq) as i64);
    let n = fields.len() as i64;
    let mut lp_count = n + 3;
    if !same {
        b += lp_int(n);
        b += fields.iter().map(|(f, _)| lp_str(f)).sum::<usize>();
        lp_count += n + 1;
    }
    b += fields.iter().map(|(_, v)| lp_str(v)).sum::<usize>();
    b + lp_int(lp_count)
}

/// A pending entry (`streamNACK`): delivered, not yet acknowledged.
#[derive(Clone, Debug, PartialEq)]
pub struct Nack {
    /// Unix ms of the last delivery.
    pub delivery_time: i64,
    pub delivery_count: u64,
    /// The consumer it was last delivered to.
    pub consumer: Vec<u8>,
}

/// A consumer of a group.
#[derive(Clone, Debug, PartialEq)]
pub struct Consumer {
    /// Last attempted read or claim (Unix ms).
    pub seen_time: i64,
    /// Last successful read or claim (Unix ms), -1 if never (7.2).
    pub active_time: i64,
    pel: BTreeSet<StreamId>,
    /// The shape of the consumer's PEL rax, for memory figures.
    pel_rax: rax::Rax,
}

impl Consumer {
    /// IDs pending for this consumer, in order.
    pub fn pel(&self) -> &BTreeSet<StreamId> {
        &self.pel
    }

    /// Allocated bytes: struct, name, PEL rax.
    fn mem(&self, name: &[u8]) -> usize {
        alloc_size(CONSUMER_STRUCT)
            + sds_size(name.len())
            + alloc_size(RAX_STRUCT)
            + self.pel_rax.bytes()
    }

    fn add(&mut self, id: StreamId) {
        if self.pel.insert(id) {
            self.pel_rax.insert(&id.encode());
        }
    }

    fn remove(&mut self, id: StreamId) {
        if self.pel.remove(&id) {
            self.pel_rax.remove(&id.encode());
        }
    }
}

/// `streamRadixTreeMemoryUsage`: what MEMORY USAGE counts for a rax of
/// stream IDs (an element's ID, and a flat 244 bytes per node).
fn rax_usage(r: &rax::Rax) -> usize {
    r.numele() as usize * 16 + r.numnodes() as usize * (4 + 8 * 30)
}

/// A consumer group (`streamCG`).
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub last_id: StreamId,
    /// The group's logical read counter; -1 when unknown.
    pub entries_read: i64,
    pel: BTreeMap<StreamId, Nack>,
    consumers: BTreeMap<Vec<u8>, Consumer>,
    /// The shapes of the PEL and consumers raxes, for memory figures.
    pel_rax: rax::Rax,
    consumers_rax: rax::Rax,
    /// Allocated bytes of all consumers, kept as they change.
    consumers_mem: usize,
}

impl Group {
    fn new(last_id: StreamId, entries_read: i64) -> Group {
        Group {
            last_id,
            entries_read,
            pel: BTreeMap::new(),
            consumers: BTreeMap::new(),
            pel_rax: rax::Rax::new(),
            consumers_rax: rax::Rax::new(),
            consumers_mem: 0,
        }
    }

    /// Allocated bytes, in O(1): struct, the two raxes, the NACKs, the consumers.
    fn mem(&self) -> usize {
        alloc_size(CG_STRUCT)
            + 2 * alloc_size(RAX_STRUCT)
            + self.pel_rax.bytes()
            + self.consumers_rax.bytes()
            + self.pel.len() * alloc_size(NACK_STRUCT)
            + self.consumers_mem
    }

    /// What `objectComputeSize` counts for the group.
    fn compute_size(&self) -> usize {
        let consumers: usize = self
            .consumers
            .iter()
            .map(|(name, c)| CONSUMER_STRUCT + name.len() + rax_usage(&c.pel_rax))
            .sum();
        CG_STRUCT + rax_usage(&self.pel_rax) + NACK_STRUCT * self.pel.len() + consumers
    }

    /// The group's pending entries, by ID.
    pub fn pel(&self) -> &BTreeMap<StreamId, Nack> {
        &self.pel
    }

    /// The consumers, by name (rax order: bytewise).
    pub fn consumers(&self) -> &BTreeMap<Vec<u8>, Consumer> {
        &self.consumers
    }

    /// The consumer `name`.
    pub fn consumer(&self, name: &[u8]) -> Option<&Consumer> {
        self.consumers.get(name)
    }

    /// The consumer `name`, to update its times.
    pub fn consumer_mut(&mut self, name: &[u8]) -> Option<&mut Consumer> {
        self.consumers.get_mut(name)
    }

    /// Changes the consumer `name`'s PEL, keeping the memory total right.
    fn with_consumer(&mut self, name: &[u8], f: impl FnOnce(&mut Consumer)) {
        if let Some(c) = self.consumers.get_mut(name) {
            let before = c.mem(name);
            f(c);
            self.consumers_mem = self.consumers_mem + c.mem(name) - before;
        }
    }

    /// `streamCreateConsumer`: false if it exists already.
    pub fn create_consumer(&mut self, name: &[u8], now: i64) -> bool {
        if self.consumers.contains_key(name) {
            return false;
        }
        let c = Consumer {
            seen_time: now,
            active_time: -1,
            pel: BTreeSet::new(),
            pel_rax: rax::Rax::new(),
        };
        self.consumers_mem += c.mem(name);
        self.consumers.insert(name.to_vec(), c);
        self.consumers_rax.insert(name);
        true
    }

    /// `streamDelConsumer`: drops the consumer and its pending entries;
    /// returns how many it had, or `None` if it does not exist.
    pub fn delete_consumer(&mut self, name: &[u8]) -> Option<usize> {
        let c = self.consumers.remove(name)?;
        self.consumers_mem -= c.mem(name);
        self.consumers_rax.remove(name);
        for id in &c.pel {
            if self.pel.remove(id).is_some() {
                self.pel_rax.remove(&id.encode());
            }
        }
        Some(c.pel.len())
    }

    /// Delivery of `id` to `consumer` by XREADGROUP (`streamReplyWithRange`
    /// with a group): a new pending entry, or an existing one (after XGROUP
    /// SETID moved the group back) handed to this consumer with its count
    /// reset to 1. The consumer must exist.
    pub fn deliver(&mut self, id: StreamId, consumer: &[u8], now: i64) {
        let old = match self.pel.get_mut(&id) {
            Some(nack) => {
                nack.delivery_time = now;
                nack.delivery_count = 1;
                Some(std::mem::replace(&mut nack.consumer, consumer.to_vec()))
            }
            None => {
                self.pel.insert(
                    id,
                    Nack {
                        delivery_time: now,
                        delivery_count: 1,
                        consumer: consumer.to_vec(),
                    },
                );
                self.pel_rax.insert(&id.encode());
                None
            }
        };
        if let Some(old) = old {
            self.with_consumer(&old, |c| c.remove(id));
        }
        self.with_consumer(consumer, |c| c.add(id));
    }

    /// A history read served `id` again: new delivery time, one more delivery.
    pub fn redeliver(&mut self, id: StreamId, now: i64) {
        if let Some(nack) = self.pel.get_mut(&id) {
            nack.delivery_time = now;
            nack.delivery_count = nack.delivery_count.wrapping_add(1);
        }
    }

    /// XACK of one ID (also how XCLAIM drops entries no longer in the
    /// stream): true if it was pending.
    pub fn ack(&mut self, id: StreamId) -> bool {
        let Some(nack) = self.pel.remove(&id) else {
            return false;
        };
        self.pel_rax.remove(&id.encode());
        self.with_consumer(&nack.consumer, |c| c.remove(id));
        true
    }

    /// Creates a pending entry owned by nobody yet (XCLAIM FORCE); the
    /// caller claims it right after.
    pub fn force_pending(&mut self, id: StreamId, now: i64) {
        if self.pel.contains_key(&id) {
            return;
        }
        self.pel.insert(
            id,
            Nack {
                delivery_time: now,
                delivery_count: 1,
                consumer: Vec::new(),
            },
        );
        self.pel_rax.insert(&id.encode());
    }

    /// Moves pending `id` to `consumer` (XCLAIM / XAUTOCLAIM) with a new
    /// delivery time and, if given, delivery count; else the count grows
    /// by one unless `keep_count`. The consumer must exist.
    pub fn claim(
        &mut self,
        id: StreamId,
        consumer: &[u8],
        delivery_time: i64,
        retrycount: Option<u64>,
        keep_count: bool,
    ) {
        let Some(nack) = self.pel.get_mut(&id) else {
            return;
        };
        let old = (nack.consumer != consumer)
            .then(|| std::mem::replace(&mut nack.consumer, consumer.to_vec()));
        nack.delivery_time = delivery_time;
        match retrycount {
            Some(n) => nack.delivery_count = n,
            None if !keep_count => nack.delivery_count = nack.delivery_count.wrapping_add(1),
            None => {}
        }
        if let Some(old) = old {
            self.with_consumer(&old, |c| c.remove(id));
        }
        self.with_consumer(consumer, |c| c.add(id));
    }
}

/// The consumer groups of a stream, with their running memory total.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Groups {
    map: BTreeMap<Vec<u8>, Group>,
    /// The shape of `s->cgroups`, created with the first group and never
    /// freed (`None` before).
    rax: Option<rax::Rax>,
    mem: usize,
}

impl Groups {
    /// The group `name`.
    pub fn get(&self, name: &[u8]) -> Option<&Group> {
        self.map.get(name)
    }

    /// Groups by name (rax order).
    pub fn iter(&self) -> impl Iterator<Item = (&Vec<u8>, &Group)> {
        self.map.iter()
    }

    /// Number of groups.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when there is no group.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Runs `f` on the cgroups rax (created if needed), keeping `mem` right.
    fn with_rax(&mut self, f: impl FnOnce(&mut rax::Rax)) {
        let r = self.rax.get_or_insert_with(|| {
            let r = rax::Rax::new();
            self.mem += alloc_size(RAX_STRUCT) + r.bytes();
            r
        });
        let before = r.bytes();
        f(r);
        self.mem = self.mem + r.bytes() - before;
    }

    /// `streamCreateCG`: false if the name is taken.
    pub fn create(&mut self, name: &[u8], last_id: StreamId, entries_read: i64) -> bool {
        self.with_rax(|_| {});
        if self.map.contains_key(name) {
            return false;
        }
        let g = Group::new(last_id, entries_read);
        self.mem += g.mem();
        self.map.insert(name.to_vec(), g);
        self.with_rax(|r| {
            r.insert(name);
        });
        true
    }

    /// XGROUP DESTROY: true if it existed.
    pub fn destroy(&mut self, name: &[u8]) -> bool {
        match self.map.remove(name) {
            Some(g) => {
                self.mem -= g.mem();
                self.with_rax(|r| {
                    r.remove(name);
                });
                true
            }
            None => false,
        }
    }

    /// Runs `f` on the group `name`, keeping the memory total right.
    pub fn with_mut<R>(&mut self, name: &[u8], f: impl FnOnce(&mut Group) -> R) -> Option<R> {
        let g = self.map.get_mut(name)?;
        let before = g.mem();
        let r = f(g);
        self.mem = self.mem + g.mem() - before;
        Some(r)
    }

    /// Allocated bytes of every group and the groups' rax.
    pub fn mem_size(&self) -> usize {
        self.mem
    }
}

/// A stream: its entries and its consumer groups.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stream {
    log: Log,
    groups: Groups,
}

impl Stream {
    /// `createStreamObject`: an empty stream.
    pub fn new() -> Stream {
        Stream::default()
    }

    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        "stream"
    }

    /// The entries.
    pub fn log(&self) -> &Log {
        &self.log
    }

    /// The entries, to change them.
    pub fn log_mut(&mut self) -> &mut Log {
        &mut self.log
    }

    /// The consumer groups.
    pub fn groups(&self) -> &Groups {
        &self.groups
    }

    /// The consumer groups, to change them.
    pub fn groups_mut(&mut self) -> &mut Groups {
        &mut self.groups
    }

    /// The entries (to read) and the groups (to change) at once, for
    /// deliveries that walk one and update the other.
    pub fn parts_mut(&mut self) -> (&Log, &mut Groups) {
        (&self.log, &mut self.groups)
    }

    /// Bytes of the value's allocations, in O(1).
    pub fn mem_size(&self) -> usize {
        alloc_size(STREAM_STRUCT) + self.log.mem_size() + self.groups.mem_size()
    }

    /// What MEMORY USAGE counts for the value (`objectComputeSize` with
    /// every node sampled, as `SAMPLES 0` asks): the object and stream
    /// structs, Redis' flat estimate for each rax (16 bytes an element,
    /// 244 a node), every listpack's allocation, and for each group its
    /// struct, PEL rax, NACKs and consumers (struct, name, PEL rax).
    pub fn object_compute_size(&self) -> usize {
        let log = &self.log;
        let nodes: usize = log.nodes.values().map(|n| n.alloc).sum();
        let groups: usize = self.groups.map.values().map(Group::compute_size).sum();
        16 + STREAM_STRUCT + rax_usage(&log.rax) + nodes + groups
    }
}

/// A node-for-node simulation of Redis' rax (rax.c) for keys of one fixed
/// length, kept for its node count (XINFO's `radix-tree-nodes`) and size.
pub(crate) mod rax {
    use crate::keyspace::memory::alloc_size;

    const PTR: usize = 8;

    /// A rax node: compressed (a run of bytes leading to one child) or
    /// not (one byte per child, sorted).
    #[derive(Clone, Debug, PartialEq, Default)]
    struct RNode {
        key: bool,
        compr: bool,
        chars: Vec<u8>,
        children: Vec<usize>,
    }

    impl RNode {
        /// `raxNodeCurrentLength`, with a value pointer on key nodes.
        fn len(&self) -> usize {
            let size = self.chars.len();
            let pad = (PTR - ((size + 4) % PTR)) & (PTR - 1);
            let ptrs = if self.compr { PTR } else { PTR * size };
            4 + size + pad + ptrs + if self.key { PTR } else { 0 }
        }

        fn size(&self) -> usize {
            self.chars.len()
        }

        /// Neither a key nor a branch: a link in a chain that can be compressed.
        fn is_chain(&self) -> bool {
            !self.key && (self.compr || self.size() == 1)
        }
    }

    /// The tree: nodes in an arena, with rax.c's counters.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Rax {
        nodes: Vec<RNode>,
        free: Vec<usize>,
        head: usize,
        numele: u64,
        numnodes: u64,
        bytes: usize,
    }

    impl Rax {
        /// `raxNew`: an empty head node.
        pub fn new() -> Rax {
            let head = RNode::default();
            let bytes = alloc_size(head.len());
            Rax {
                nodes: vec![head],
                free: Vec::new(),
                head: 0,
                numele: 0,
                numnodes: 1,
                bytes,
            }
        }

        pub fn numele(&self) -> u64 {
            self.numele
        }

        pub fn numnodes(&self) -> u64 {
            self.numnodes
        }

        /// Bytes of all nodes as allocated.
        pub fn bytes(&self) -> usize {
            self.bytes
        }

        fn alloc(&mut self, n: RNode) -> usize {
            self.bytes += alloc_size(n.len());
            match self.free.pop() {
                Some(i) => {
                    self.nodes[i] = n;
                    i
                }
                None => {
                    self.nodes.push(n);
                    self.nodes.len() - 1
                }
            }
        }

        fn release(&mut self, i: usize) {
            self.bytes -= alloc_size(self.nodes[i].len());
            self.nodes[i] = RNode::default();
            self.free.push(i);
        }

        fn edit(&mut self, i: usize, f: impl FnOnce(&mut RNode)) {
            let before = alloc_size(self.nodes[i].len());
            f(&mut self.nodes[i]);
            self.bytes = self.bytes - before + alloc_size(self.nodes[i].len());
        }

        fn last_child(&self, i: usize) -> usize {
            *self.nodes[i].children.last().unwrap_or(&i)
        }

        /// `raxLowWalk`: (chars matched, stop node, split position in a
        /// compressed stop node, parents from the head down).
        fn walk(&self, s: &[u8]) -> (usize, usize, usize, Vec<usize>) {
            let mut h = self.head;
            let (mut i, mut j) = (0, 0);
            let mut stack = Vec::new();
            while self.nodes[h].size() > 0 && i < s.len() {
                let n = &self.nodes[h];
                if n.compr {
                    j = 0;
                    while j < n.size() && i < s.len() {
                        if n.chars[j] != s[i] {
                            break;
                        }
                        j += 1;
                        i += 1;
                    }
                    if j != n.size() {
                        break;
                    }
                } else {
                    match n.chars.iter().position(|&c| c == s[i]) {
                        Some(p) => j = p,
                        None => break,
                    }
                    i += 1;
                }
                stack.push(h);
                let slot = if n.compr { 0 } else { j };
                h = n.children[slot];
                j = 0;
            }
            let split = if self.nodes[h].compr { j } else { 0 };
            (i, h, split, stack)
        }

        /// Points `parent`'s link to `old` at `new` (or the head).
        fn relink(&mut self, parent: Option<usize>, old: usize, new: usize) {
            match parent {
                None => self.head = new,
                Some(p) => {
                    if let Some(slot) = self.nodes[p].children.iter_mut().find(|c| **c == old) {
                        *slot = new;
                    }
                }
            }
        }

        /// `raxInsert`: false if the key was there.
        pub fn insert(&mut self, s: &[u8]) -> bool {
            let (mut i, mut h, j, _) = self.walk(s);
            let len = s.len();
            if i == len && (!self.nodes[h].compr || j == 0) {
                if self.nodes[h].key {
                    return false;
                }
                self.edit(h, |n| n.key = true);
                self.numele += 1;
                return true;
            }
            if self.nodes[h].compr && i != len {
                // ALGO 1: split the compressed node at the mismatch.
                let old = self.nodes[h].clone();
                let next = old.children[0];
                let postfixlen = old.size() - j - 1;
                let postfix = if postfixlen > 0 {
                    self.numnodes += 1;
                    self.alloc(RNode {
                        key: false,
                        compr: postfixlen > 1,
                        chars: old.chars[j + 1..].to_vec(),
                        children: vec![next],
                    })
                } else {
                    next
                };
                let split = RNode {
                    key: j == 0 && old.key,
                    compr: false,
                    chars: vec![old.chars[j]],
                    children: vec![postfix],
                };
                if j == 0 {
                    self.edit(h, |n| *n = split);
                } else {
                    let sidx = self.alloc(split);
                    self.edit(h, |n| {
                        *n = RNode {
                            key: old.key,
                            compr: j > 1,
                            chars: old.chars[..j].to_vec(),
                            children: vec![sidx],
                        }
                    });
                    self.numnodes += 1;
                    h = sidx;
                }
            } else if self.nodes[h].compr && i == len {
                // ALGO 2: the key ends inside a compressed node.
                let old = self.nodes[h].clone();
                let postfix = self.alloc(RNode {
                    key: true,
                    compr: old.size() - j > 1,
                    chars: old.chars[j..].to_vec(),
                    children: old.children.clone(),
                });
                self.numnodes += 1;
                self.edit(h, |n| {
                    *n = RNode {
                        key: old.key,
                        compr: j > 1,
                        chars: old.chars[..j].to_vec(),
                        children: vec![postfix],
                    }
                });
                self.numele += 1;
                return true;
            }
            while i < len {
                let child = self.alloc(RNode::default());
                if self.nodes[h].size() == 0 && len - i > 1 {
                    let rest = s[i..].to_vec();
                    self.edit(h, |n| {
                        n.compr = true;
                        n.chars = rest;
                        n.children = vec![child];
                    });
                    i = len;
                } else {
                    let c = s[i];
                    self.edit(h, |n| {
                        let pos = n.chars.iter().position(|&x| x > c).unwrap_or(n.size());
                        n.chars.insert(pos, c);
                        n.children.insert(pos, child);
                    });
                    i += 1;
                }
                self.numnodes += 1;
                h = child;
            }
            if !self.nodes[h].key {
                self.numele += 1;
            }
            self.edit(h, |n| n.key = true);
            true
        }

        /// `raxRemove`: false if the key was not there.
        pub fn remove(&mut self, s: &[u8]) -> bool {
            let (i, mut h, split, mut stack) = self.walk(s);
            if i != s.len() || (self.nodes[h].compr && split != 0) || !self.nodes[h].key {
                return false;
            }
            self.edit(h, |n| n.key = false);
            self.numele -= 1;
            let mut trycompress = false;
            if self.nodes[h].size() == 0 {
                let mut child = None;
                while h != self.head {
                    child = Some(h);
                    self.release(h);
                    self.numnodes -= 1;
                    let Some(p) = stack.pop() else {
                        break;
                    };
                    h = p;
                    if self.nodes[h].key || (!self.nodes[h].compr && self.nodes[h].size() != 1) {
                        break;
                    }
                }
                if let Some(c) = child {
                    self.edit(h, |n| {
                        if n.compr {
                            n.compr = false;
                            n.chars.clear();
                            n.children.clear();
                        } else if let Some(pos) = n.children.iter().position(|&x| x == c) {
                            n.chars.remove(pos);
                            n.children.remove(pos);
                        }
                    });
                    if self.nodes[h].size() == 1 && !self.nodes[h].key {
                        trycompress = true;
                    }
                }
            } else if self.nodes[h].size() == 1 {
                trycompress = true;
            }
            if !trycompress {
                return true;
            }
            // Go up to the highest node of the chain, then merge the chain
            // below it into one compressed node.
            let parent = loop {
                match stack.pop() {
                    Some(p) if self.nodes[p].is_chain() => h = p,
                    other => break other,
                }
            };
            let start = h;
            let mut nodes = 1;
            let mut x = h;
            while self.nodes[x].size() != 0 {
                x = self.last_child(x);
                if !self.nodes[x].is_chain() {
                    break;
                }
                nodes += 1;
            }
            if nodes == 1 {
                return true;
            }
            let mut chars = Vec::new();
            let mut chain = Vec::new();
            let mut x = start;
            while self.nodes[x].size() != 0 {
                chars.extend_from_slice(&self.nodes[x].chars);
                chain.push(x);
                x = self.last_child(x);
                if !self.nodes[x].is_chain() {
                    break;
                }
            }
            let new = self.alloc(RNode {
                key: false,
                compr: true,
                chars,
                children: vec![x],
            });
            self.numnodes += 1;
            for c in chain {
                self.release(c);
                self.numnodes -= 1;
            }
            self.relink(parent, start, new);
            true
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn key(ms: u64, seq: u64) -> Vec<u8> {
            let mut k = ms.to_be_bytes().to_vec();
            k.extend_from_slice(&seq.to_be_bytes());
            k
        }

        #[test]
        fn counts_follow_splits_and_merges() {
            let mut r = Rax::new();
            assert_eq!((r.numele(), r.numnodes()), (0, 1));
            assert!(r.insert(&key(1, 0)));
            // head compressed over 16 bytes -> leaf
            assert_eq!(r.numnodes(), 2);
            assert!(r.insert(&key(1, 100)));
            // split at the last byte: "15 bytes" -> branch -> two leaves
            assert_eq!(r.numnodes(), 4);
            assert!(!r.insert(&key(1, 100)));
            assert!(r.insert(&key(2, 0)));
            // split at byte 7: prefix, branch, postfix chain, leaf...
            assert_eq!(r.numele(), 3);
            let grown = r.numnodes();
            assert!(r.remove(&key(2, 0)));
            assert_eq!(r.numnodes(), 4, "recompressed after removal (was {grown})");
            assert!(r.remove(&key(1, 0)));
            assert_eq!(r.numnodes(), 2, "back to one chain and a leaf");
            assert!(r.remove(&key(1, 100)));
            assert_eq!((r.numele(), r.numnodes()), (0, 1));
            assert_eq!(r.bytes(), alloc_size(RNode::default().len()));
            assert!(!r.remove(&key(1, 100)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIM: NodeLimits = NodeLimits {
        max_bytes: 4096,
        max_entries: 100,
    };

    fn pairs(f: &str, v: &str) -> Vec<Vec<u8>> {
        vec![f.as_bytes().to_vec(), v.as_bytes().to_vec()]
    }

    fn filled(n: u64) -> Log {
        let mut l = Log::new();
        for i in 1..=n {
            l.append(&pairs("f", "v"), Some((StreamId::new(i, 0), true)), 0, LIM)
                .expect("increasing ids");
        }
        l
    }

    #[test]
    fn nodes_split_every_hundred_entries() {
        let l = filled(250);
        let layout = l.node_layout();
        assert_eq!(layout.len(), 3);
        assert_eq!(
            layout.iter().map(|n| n.1).collect::<Vec<_>>(),
            vec![100, 100, 50]
        );
        assert_eq!(l.rax_keys(), 3);
    }

    #[test]
    fn node_bytes_match_listpack_encoding() {
        let mut l = Log::new();
        l.append(&pairs("f", "v"), Some((StreamId::new(5, 0), true)), 0, LIM)
            .expect("first");
        // header 7 + count 2 + deleted 2 + numfields 2 + "f" 3 + zero 2,
        // entry: flags 2 + ms 2 + seq 2 + "v" 3 + lp-count 2 (a one-byte
        // string takes a header byte, itself and a back-length byte).
        assert_eq!(l.node_layout()[0].3, 7 + 2 + 2 + 2 + 3 + 2 + 11);
        l.append(&pairs("g", "w"), Some((StreamId::new(6, 0), true)), 0, LIM)
            .expect("second");
        // Different fields: numfields and the field name are stored too.
        assert_eq!(l.node_layout()[0].3, 29 + 2 + 2 + 2 + 2 + 3 + 3 + 2);
    }

    #[test]
    fn byte_limit_starts_new_nodes() {
        let mut l = Log::new();
        let big = "x".repeat(1000);
        for i in 1..=10 {
            l.append(&pairs("f", &big), Some((StreamId::new(i, 0), true)), 0, LIM)
                .expect("increasing");
        }
        let layout = l.node_layout();
        assert!(layout.iter().all(|n| n.3 < 4096 + 1010));
        assert_eq!(layout.iter().map(|n| n.1).sum::<u64>(), 10);
        assert_eq!(layout[0].1, 4, "the fifth entry would pass 4096 bytes");
    }

    #[test]
    fn approximate_trim_drops_whole_nodes() {
        let mut l = filled(250);
        assert_eq!(l.trim(Trim::MaxLen(120), true, 10_000), 100);
        assert_eq!(l.len(), 150);
        assert_eq!(l.trim(Trim::MaxLen(120), false, 0), 30);
        assert_eq!(l.len(), 120);
        assert_eq!(l.first_id(), StreamId::new(131, 0));
        assert_eq!(l.trim(Trim::MinId(StreamId::new(201, 0)), true, 10_000), 70);
        assert_eq!(l.len(), 50);
    }

    #[test]
    fn deleting_the_last_live_entry_frees_the_node() {
        let mut l = filled(3);
        assert_eq!(l.xdel(&[StreamId::new(1, 0), StreamId::new(9, 0)]), 1);
        assert_eq!(l.first_id(), StreamId::new(2, 0));
        assert_eq!(l.max_deleted_entry_id(), StreamId::new(1, 0));
        assert_eq!(l.xdel(&[StreamId::new(2, 0), StreamId::new(3, 0)]), 2);
        assert_eq!(l.rax_keys(), 0);
        assert_eq!(l.first_id(), StreamId::MIN);
        assert_eq!(l.last_id(), StreamId::new(3, 0));
    }

    #[test]
    fn memory_counter_returns_to_empty() {
        let mut l = Log::new();
        let empty = l.mem_size();
        for i in 1..=300 {
            l.append(&pairs("f", "v"), Some((StreamId::new(i, 0), true)), 0, LIM)
                .expect("increasing");
        }
        assert!(l.mem_size() > empty);
        l.trim(Trim::MaxLen(0), false, 0);
        assert_eq!(l.mem_size(), empty);
    }
}
