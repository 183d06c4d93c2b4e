//! Hash values: a listpack while small, a hashtable past `hash-max-listpack-entries` / `-value`.

use crate::dict::Dict;

/// A hash in one of its two encodings.
#[derive(Clone, Debug, PartialEq)]
pub enum Hash {
    /// Field/value pairs in insertion order, as a listpack keeps them.
    Listpack(Vec<(Vec<u8>, Vec<u8>)>),
    /// Fields to values.
    Table(Dict<Vec<u8>>),
}

impl Hash {
    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        match self {
            Hash::Listpack(_) => "listpack",
            Hash::Table(_) => "hashtable",
        }
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        match self {
            Hash::Listpack(v) => v.len(),
            Hash::Table(d) => d.len(),
        }
    }

    /// True when empty (Redis deletes empty hashes).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the value's allocations, as Redis' allocator would count them.
    /// Placeholder estimate, O(n): the owner of this type replaces it with a
    /// counter maintained on every change (it runs on each write).
    pub fn mem_size(&self) -> usize {
        match self {
            Hash::Listpack(v) => crate::memory::alloc_size(
                7 + v.iter().map(|(f, x)| f.len() + x.len() + 4).sum::<usize>(),
            ),
            Hash::Table(d) => d
                .iter()
                .map(|(f, x)| {
                    40 + crate::memory::sds_size(f.len()) + crate::memory::sds_size(x.len())
                })
                .sum(),
        }
    }
}
