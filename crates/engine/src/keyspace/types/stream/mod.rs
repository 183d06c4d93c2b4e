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

mod groups;
mod id;
mod log;
pub(crate) mod rax;

pub use groups::{Consumer, Group, Groups, Nack};
pub use id::StreamId;
use log::STREAM_STRUCT;
pub use log::{AppendError, Entry, Log, LogMeta, NodeDump, NodeLimits, Trim};

use crate::keyspace::memory::alloc_size;

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

    /// A stream of `log` and `groups` (RESTORE).
    pub fn from_parts(log: Log, groups: Groups) -> Stream {
        Stream { log, groups }
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
        16 + STREAM_STRUCT + self.log.compute_size() + self.groups.compute_size()
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
