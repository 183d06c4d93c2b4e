//! A stream's entries: listpack nodes keyed by their master ID under a simulated rax, split and trimmed where Redis splits and trims them, with exact `lpBytes` accounting.

use crate::ordmap::OrdMap;

use crate::keyspace::memory::{
    alloc_size, listpack_entry_size, listpack_int_encoding, listpack_with_backlen, LISTPACK_EMPTY,
};

use super::id::StreamId;
use super::rax::{self, rax_usage};

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
/// `sizeof(stream)`: rax pointer, length, three IDs, entries added, groups pointer.
pub(super) const STREAM_STRUCT: usize = 80;
/// `sizeof(rax)`: head pointer and two counters.
pub(super) const RAX_STRUCT: usize = 24;
/// `sizeof(streamCG)`: last ID, entries read, two rax pointers.
pub(super) const CG_STRUCT: usize = 40;
/// `sizeof(streamConsumer)`: two times, name and PEL pointers.
pub(super) const CONSUMER_STRUCT: usize = 32;
/// `sizeof(streamNACK)`: delivery time, count, consumer pointer.
pub(super) const NACK_STRUCT: usize = 24;

/// Bytes a listpack integer element takes: encoding plus back length.
fn lp_int(v: i64) -> usize {
    listpack_with_backlen(listpack_int_encoding(v))
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
    nodes: OrdMap<StreamId, Node>,
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
    /// What MEMORY USAGE counts for the entries: every listpack's
    /// allocation and Redis' flat estimate of the rax above them.
    pub(super) fn compute_size(&self) -> usize {
        let nodes: usize = self.nodes.values().map(|n| n.alloc).sum();
        nodes + rax_usage(&self.rax)
    }

    /// `streamNew`.
    pub fn new() -> Log {
        let rax = rax::Rax::new();
        let mem = alloc_size(RAX_STRUCT) + rax.bytes();
        Log {
            nodes: OrdMap::new(),
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
                let mut bytes = LISTPACK_EMPTY
                    + lp_int(1)
                    + lp_int(0)
                    + lp_int(fields.len() as i64)
                    + fields
                        .iter()
                        .map(|(f, _)| listpack_entry_size(f))
                        .sum::<usize>()
                    + lp_int(0);
                bytes += entry_bytes(id, id, &fields, true);
                let alloc = alloc_size(prealloc.max(LISTPACK_EMPTY)).max(alloc_size(bytes));
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
        self.entries_added = self.entries_added.wrapping_add(1);
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

/// One node as DUMP writes it and RESTORE rebuilds it: the master ID (the
/// rax key), the master entry's fields and counters, and every entry,
/// tombstones included.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeDump {
    pub master: StreamId,
    pub master_fields: Vec<Vec<u8>>,
    pub live: u64,
    pub deleted: u64,
    pub entries: Vec<Entry>,
}

/// A stream's metadata as DUMP carries it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogMeta {
    pub length: u64,
    pub last_id: StreamId,
    pub first_id: StreamId,
    pub max_deleted_entry_id: StreamId,
    pub entries_added: u64,
}

impl Entry {
    /// An entry as loaded, tombstone or not.
    pub fn loaded(id: StreamId, fields: Vec<(Vec<u8>, Vec<u8>)>, deleted: bool) -> Entry {
        Entry {
            id,
            fields,
            deleted,
        }
    }

    /// True for a tombstone (`STREAM_ITEM_FLAG_DELETED`).
    pub fn is_deleted(&self) -> bool {
        self.deleted
    }
}

impl Log {
    /// The nodes in rax order, for DUMP.
    pub fn dump_nodes(&self) -> Vec<NodeDump> {
        self.nodes
            .iter()
            .map(|(k, n)| NodeDump {
                master: *k,
                master_fields: n.master_fields.clone(),
                live: n.live,
                deleted: n.deleted,
                entries: n.entries.clone(),
            })
            .collect()
    }

    /// The metadata DUMP writes after the nodes.
    pub fn meta(&self) -> LogMeta {
        LogMeta {
            length: self.length,
            last_id: self.last_id,
            first_id: self.first_id,
            max_deleted_entry_id: self.max_deleted_entry_id,
            entries_added: self.entries_added,
        }
    }

    /// A log of loaded nodes (in ascending master order, validated by the
    /// caller), each listpack of `bytes` allocated at its exact size as
    /// `rdbGenericLoadStringObject` allocates it.
    pub fn from_dump(nodes: Vec<(NodeDump, usize)>, meta: LogMeta) -> Log {
        let mut log = Log::new();
        for (n, bytes) in nodes {
            let alloc = alloc_size(bytes);
            log.mem += alloc;
            log.nodes.insert(
                n.master,
                Node {
                    master_fields: n.master_fields,
                    entries: n.entries,
                    live: n.live,
                    deleted: n.deleted,
                    bytes,
                    alloc,
                },
            );
            log.rax_insert(n.master);
        }
        log.length = meta.length;
        log.last_id = meta.last_id;
        log.first_id = meta.first_id;
        log.max_deleted_entry_id = meta.max_deleted_entry_id;
        log.entries_added = meta.entries_added;
        log
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
        b += fields
            .iter()
            .map(|(f, _)| listpack_entry_size(f))
            .sum::<usize>();
        lp_count += n + 1;
    }
    b += fields
        .iter()
        .map(|(_, v)| listpack_entry_size(v))
        .sum::<usize>();
    b + lp_int(lp_count)
}
