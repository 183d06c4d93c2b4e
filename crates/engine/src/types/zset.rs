//! Sorted set values: a listpack while small, else a skiplist with spans beside a member-to-score dictionary.

/// A sorted set in one of its two encodings.
#[derive(Clone, Debug, PartialEq)]
pub enum ZSet {
    /// (member, score) pairs ordered by score then member.
    Listpack(Vec<(Vec<u8>, f64)>),
}

impl ZSet {
    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        match self {
            ZSet::Listpack(_) => "listpack",
        }
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        match self {
            ZSet::Listpack(v) => v.len(),
        }
    }

    /// True when empty (Redis deletes empty sorted sets).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the value's allocations, as Redis' allocator would count them.
    /// Placeholder estimate, O(n): the owner of this type replaces it with a
    /// counter maintained on every change (it runs on each write).
    pub fn mem_size(&self) -> usize {
        match self {
            ZSet::Listpack(v) => {
                crate::memory::alloc_size(7 + v.iter().map(|(m, _)| m.len() + 12).sum::<usize>())
            }
        }
    }
}
