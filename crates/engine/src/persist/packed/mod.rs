//! Redis' in-memory blobs as DUMP carries them: listpack, intset, and the legacy ziplist and zipmap (read only), each written byte for byte as Redis lays it out and read with full validation.
//!
//! Readers never trust a length: every entry is bounds-checked, header
//! counts and sizes must agree with the entries found, and a failure is
//! `None` (RESTORE's "Bad data format"), never a panic.

pub mod intset;
pub mod listpack;
pub mod ziplist;
pub mod zipmap;

/// One element of a packed blob: Redis stores integer-looking strings as integers.
#[derive(Clone, Debug, PartialEq)]
pub enum Elem {
    Int(i64),
    Str(Vec<u8>),
}

impl Elem {
    /// The element as the string Redis hands back.
    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            Elem::Int(v) => v.to_string().into_bytes(),
            Elem::Str(s) => s,
        }
    }
}
