//! Values stored under keys: the Redis object with its type, encoding and the 24-bit LRU/LFU field.

/// `LRU_BITS`-wide clock maximum (`2^24 - 1`).
pub const LRU_CLOCK_MAX: u32 = (1 << 24) - 1;
/// Milliseconds per LRU clock tick (`LRU_CLOCK_RESOLUTION`).
pub const LRU_CLOCK_RESOLUTION_MS: u64 = 1000;
/// Counter a new key starts with under LFU (`LFU_INIT_VAL`).
pub const LFU_INIT_VAL: u8 = 5;
/// Longest string stored as `embstr` (`OBJ_ENCODING_EMBSTR_SIZE_LIMIT`).
pub const EMBSTR_SIZE_LIMIT: usize = 44;

/// A string value in one of Redis' three encodings. The encoding is part of
/// the value's history (APPEND makes even a short string `raw`), so it is
/// stored, not derived.
#[derive(Clone, Debug, PartialEq)]
pub enum RString {
    /// `int`: a 64-bit integer whose decimal form is the value.
    Int(i64),
    /// `embstr`: a short string allocated with its header.
    Emb(Vec<u8>),
    /// `raw`: a separately allocated string.
    Raw(Vec<u8>),
}

impl RString {
    /// `createStringObject` + `tryObjectEncoding`, as SET and friends store a
    /// value: `int` when it reads back as a canonical integer of at most 20
    /// chars, else `embstr` up to 44 bytes, else `raw`.
    pub fn from_bytes(b: &[u8]) -> RString {
        if b.len() <= 20 {
            if let Some(n) = crate::proto::resp::parse_i64(b) {
                return RString::Int(n);
            }
        }
        RString::plain(b.to_vec())
    }

    /// `createStringObject` without the integer attempt: `embstr` or `raw` by length.
    pub fn plain(b: Vec<u8>) -> RString {
        if b.len() <= EMBSTR_SIZE_LIMIT {
            RString::Emb(b)
        } else {
            RString::Raw(b)
        }
    }

    /// The value's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            RString::Int(n) => n.to_string().into_bytes(),
            RString::Emb(b) | RString::Raw(b) => b.clone(),
        }
    }

    /// Length of the value in bytes (STRLEN).
    pub fn len(&self) -> usize {
        match self {
            RString::Int(n) => n.to_string().len(),
            RString::Emb(b) | RString::Raw(b) => b.len(),
        }
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        match self {
            RString::Int(_) => "int",
            RString::Emb(_) => "embstr",
            RString::Raw(_) => "raw",
        }
    }
}

/// A value of one of Redis' types.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    String(RString),
    /// The collections are boxed so that `Obj`, stored inline in every
    /// keyspace node, stays small: the common string keys then fit a node in
    /// about one cache line instead of paying for the largest collection.
    List(Box<crate::keyspace::types::list::List>),
    Hash(Box<crate::keyspace::types::hash::Hash>),
    Set(Box<crate::keyspace::types::set::Set>),
    ZSet(Box<crate::keyspace::types::zset::ZSet>),
    /// A stream (its nodes, rax and groups) is much larger than the other values.
    Stream(Box<crate::keyspace::types::stream::Stream>),
}

impl Value {
    /// TYPE's name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Hash(_) => "hash",
            Value::Set(_) => "set",
            Value::ZSet(_) => "zset",
            Value::Stream(_) => "stream",
        }
    }

    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        match self {
            Value::String(s) => s.encoding(),
            Value::List(l) => l.encoding(),
            Value::Hash(h) => h.encoding(),
            Value::Set(s) => s.encoding(),
            Value::ZSet(z) => z.encoding(),
            Value::Stream(s) => s.encoding(),
        }
    }
}

/// What a key maps to. Redis' 24-bit `lru` field (the LRU clock or, under
/// an LFU policy, 16 bits of minutes and an 8-bit counter) is not stored
/// here but beside the key's chain link in the keyspace dict ([`crate::keyspace::db::Db::lru`]),
/// so that eviction scores sampled keys without reading their objects.
#[derive(Clone, Debug, PartialEq)]
pub struct Obj {
    pub value: Value,
}

impl Obj {
    /// Bytes of the value object, header included, as Redis' allocator
    /// counts them. O(1): collections keep their own running counters.
    pub fn mem_size(&self) -> usize {
        use crate::keyspace::memory::{alloc_size, sds_size, ROBJ};
        match &self.value {
            Value::String(RString::Int(_)) => alloc_size(ROBJ),
            // robj and sdshdr8 in one allocation.
            Value::String(RString::Emb(b)) => alloc_size(ROBJ + 3 + b.len() + 1),
            Value::String(RString::Raw(b)) => alloc_size(ROBJ) + sds_size(b.len()),
            Value::List(l) => alloc_size(ROBJ) + l.mem_size(),
            Value::Hash(h) => alloc_size(ROBJ) + h.mem_size(),
            Value::Set(s) => alloc_size(ROBJ) + s.mem_size(),
            Value::ZSet(z) => alloc_size(ROBJ) + z.mem_size(),
            Value::Stream(s) => alloc_size(ROBJ) + s.mem_size(),
        }
    }

    /// Everything the key `key` holding this object costs in the keyspace
    /// (dict entry, key sds, value), without its expiry entry.
    pub fn entry_size(&self, key: &[u8]) -> usize {
        use crate::keyspace::memory::{alloc_size, key_size, DICT_ENTRY};
        alloc_size(DICT_ENTRY) + key_size(key) + self.mem_size()
    }

    /// A string object.
    pub fn string(s: RString) -> Obj {
        Obj {
            value: Value::String(s),
        }
    }

    /// MEMORY USAGE's figure (Redis 7.2's `memoryCommand`): the value as
    /// `objectComputeSize` counts it, the key's sds as allocated, and
    /// `sizeof(dictEntry)` unrounded (Redis adds the struct size, not the
    /// allocation, which is why this is 8 bytes under what `used_memory` grows by).
    ///
    /// For hashtable-encoded values `objectComputeSize` likewise adds
    /// `sizeof(dict)` and `sizeof(dictEntry)` per element where the allocator
    /// spends their size classes (64 and 32), and 7.2's sets, which keep most
    /// members in the buckets or in 16-byte entries, are still counted at 24
    /// bytes a member: the figure is corrected from allocated to counted bytes.
    pub fn memory_usage(&self, key: &[u8]) -> usize {
        use crate::keyspace::memory::{alloc_size, key_size, DICT_ENTRY, DICT_STRUCT};
        let entry_slack = alloc_size(DICT_ENTRY) - DICT_ENTRY;
        let dict_slack = alloc_size(DICT_STRUCT) - DICT_STRUCT;
        let value = self.mem_size();
        let value = match &self.value {
            Value::Hash(h) if h.encoding() == "hashtable" => {
                value - dict_slack - entry_slack * h.len()
            }
            Value::ZSet(z) if z.encoding() == "skiplist" => {
                value - dict_slack - entry_slack * z.len()
            }
            Value::Set(s) if s.encoding() == "hashtable" => {
                value - dict_slack - s.chained_entry_bytes() + DICT_ENTRY * s.len()
            }
            // Streams are counted by Redis' own estimate (flat per rax node).
            Value::Stream(s) => s.object_compute_size(),
            _ => value,
        };
        value + key_size(key) + DICT_ENTRY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every keyspace node holds an `Obj` inline; the collections are boxed
    /// so that it stays the size of a string value (a tagged `Vec`), not the
    /// size of the largest collection.
    #[test]
    fn obj_stays_small() {
        assert!(
            std::mem::size_of::<Value>() <= 32,
            "Value is {} bytes",
            std::mem::size_of::<Value>()
        );
        assert!(
            std::mem::size_of::<Obj>() <= 32,
            "Obj is {} bytes",
            std::mem::size_of::<Obj>()
        );
    }
}
