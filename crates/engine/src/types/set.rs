//! Set values: an intset of integers, a listpack while small (7.2), or a hashtable.

use crate::dict::Dict;

/// A set in one of its three encodings.
#[derive(Clone, Debug, PartialEq)]
pub enum Set {
    /// Sorted integers (`set-max-intset-entries`).
    Intset(Vec<i64>),
    /// Small sets of strings in insertion order (`set-max-listpack-entries` / `-value`).
    Listpack(Vec<Vec<u8>>),
    /// Members as keys.
    Table(Dict<()>),
}

impl Set {
    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        match self {
            Set::Intset(_) => "intset",
            Set::Listpack(_) => "listpack",
            Set::Table(_) => "hashtable",
        }
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        match self {
            Set::Intset(v) => v.len(),
            Set::Listpack(v) => v.len(),
            Set::Table(d) => d.len(),
        }
    }

    /// True when empty (Redis deletes empty sets).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the value's allocations, as Redis' allocator would count them.
    /// Placeholder estimate, O(n): the owner of this type replaces it with a
    /// counter maintained on every change (it runs on each write).
    pub fn mem_size(&self) -> usize {
        match self {
            Set::Intset(v) => crate::memory::alloc_size(8 + 8 * v.len()),
            Set::Listpack(v) => {
                crate::memory::alloc_size(7 + v.iter().map(|m| m.len() + 2).sum::<usize>())
            }
            Set::Table(d) => d
                .iter()
                .map(|(m, _)| 32 + crate::memory::sds_size(m.len()))
                .sum(),
        }
    }
}
