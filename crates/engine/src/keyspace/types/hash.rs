//! Hash values: a listpack while small, a hashtable past `hash-max-listpack-entries` / `-value` (t_hash.c), never converted back, with their memory counted as Redis allocates it.
//!
//! The listpack is modelled as a vector of pairs in insertion order, which is
//! the order Redis iterates it in (HGETALL, HSCAN, HRANDFIELD's whole-hash
//! case): that order is observable and matches Redis exactly. The hashtable
//! is our [`Dict`], whose order depends on its hash and so differs from Redis.

use crate::keyspace::dict::Dict;
use crate::keyspace::memory::{
    alloc_size, dict_table_size, listpack_entry_size, sds_size, DICT_ENTRY, LISTPACK_EMPTY,
    LISTPACK_MAX_SAFETY_SIZE,
};
use crate::rng::Pick;

/// What a hash's encoding depends on, taken from the config when a command runs.
#[derive(Clone, Copy, Debug)]
pub struct HashLimits {
    /// `hash-max-listpack-entries`.
    pub max_listpack_entries: u64,
    /// `hash-max-listpack-value`.
    pub max_listpack_value: u64,
    /// Seed of the tables conversions create (Redis has one hash seed per process).
    pub dict_seed: u64,
}

#[derive(Clone, Debug, PartialEq)]
enum Repr {
    /// Field/value pairs in insertion order.
    Listpack(Vec<(Vec<u8>, Vec<u8>)>),
    /// Fields to values.
    Table(Dict<Vec<u8>>),
}

/// A hash in one of its two encodings, with a running byte count so that
/// its memory is known in O(1) on every write.
#[derive(Clone, Debug, PartialEq)]
pub struct Hash {
    repr: Repr,
    /// Listpack: its `lpBytes`. Table: the sds allocations of every field and value.
    bytes: usize,
}

impl Default for Hash {
    fn default() -> Self {
        Hash::new()
    }
}

/// Bytes a pair adds to a listpack.
fn lp_pair(f: &[u8], v: &[u8]) -> usize {
    listpack_entry_size(f) + listpack_entry_size(v)
}

/// Bytes of the two sds strings a pair owns in a hashtable.
fn sds_pair(f: &[u8], v: &[u8]) -> usize {
    sds_size(f.len()) + sds_size(v.len())
}

/// A table's keys bucket by bucket, each chain from its head: the order
/// Redis' dict iterator yields, rather than our storage order.
pub(crate) fn bucket_order<V>(d: &Dict<V>) -> Vec<Vec<u8>> {
    let mut keys = Vec::with_capacity(d.len());
    for b in 0..d.buckets() {
        // A scan step at cursor `b` visits exactly bucket `b`.
        d.scan(b as u64, |k, _| keys.push(k.to_vec()));
    }
    keys
}

impl Hash {
    /// DEBUG HTSTATS-KEY's text for a hashtable-encoded hash.
    pub fn table_stats(&self, full: bool) -> Option<String> {
        match &self.repr {
            Repr::Table(d) => Some(d.stats_text(full)),
            _ => None,
        }
    }

    /// `createHashObject`: an empty listpack.
    pub fn new() -> Hash {
        Hash {
            repr: Repr::Listpack(Vec::new()),
            bytes: LISTPACK_EMPTY,
        }
    }

    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        match self.repr {
            Repr::Listpack(_) => "listpack",
            Repr::Table(_) => "hashtable",
        }
    }

    /// True while listpack-encoded.
    pub fn is_listpack(&self) -> bool {
        matches!(self.repr, Repr::Listpack(_))
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Listpack(v) => v.len(),
            Repr::Table(d) => d.len(),
        }
    }

    /// True when empty (Redis deletes empty hashes).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the value's allocations as Redis' allocator counts them, in
    /// O(1): the listpack's size class, or the dict with its bucket array,
    /// one `dictEntry` per field and the field and value sds strings.
    pub fn mem_size(&self) -> usize {
        match &self.repr {
            Repr::Listpack(_) => alloc_size(self.bytes),
            Repr::Table(d) => {
                dict_table_size(d.buckets(), d.len() * alloc_size(DICT_ENTRY), self.bytes)
            }
        }
    }

    /// The value of `field`.
    pub fn get(&self, field: &[u8]) -> Option<&[u8]> {
        match &self.repr {
            Repr::Listpack(v) => v
                .iter()
                .find(|(f, _)| f.as_slice() == field)
                .map(|(_, x)| x.as_slice()),
            Repr::Table(d) => d.get(field).map(|x| x.as_slice()),
        }
    }

    /// True if `field` is present.
    pub fn contains(&self, field: &[u8]) -> bool {
        self.get(field).is_some()
    }

    /// `hashTypeTryConversion` before a write of `pairs` (fields and values
    /// alternating): a hashtable if more new fields are coming than a
    /// listpack may hold (duplicates counted, as Redis guesses), if any
    /// argument is longer than `hash-max-listpack-value`, or if the listpack
    /// would pass its 1 GB safety limit.
    pub fn try_conversion(&mut self, pairs: &[Vec<u8>], lim: &HashLimits) {
        if !self.is_listpack() {
            return;
        }
        if (pairs.len() / 2) as u64 > lim.max_listpack_entries {
            self.convert(lim);
            return;
        }
        let mut sum = 0usize;
        for a in pairs {
            if a.len() as u64 > lim.max_listpack_value {
                self.convert(lim);
                return;
            }
            sum = sum.saturating_add(a.len());
        }
        if self.bytes.saturating_add(sum) > LISTPACK_MAX_SAFETY_SIZE {
            self.convert(lim);
        }
    }

    /// `hashTypeSet`: sets `field` to `value`; true if the field existed
    /// (an update). A field or value too long for a listpack converts first
    /// (the HINCRBY* path), and a listpack over the entry limit after the
    /// write converts after.
    pub fn set(&mut self, field: &[u8], value: &[u8], lim: &HashLimits) -> bool {
        if self.is_listpack()
            && (field.len() as u64 > lim.max_listpack_value
                || value.len() as u64 > lim.max_listpack_value)
        {
            self.convert(lim);
        }
        match &mut self.repr {
            Repr::Listpack(v) => {
                let update = match v.iter_mut().find(|(f, _)| f.as_slice() == field) {
                    Some((_, old)) => {
                        self.bytes =
                            self.bytes - listpack_entry_size(old) + listpack_entry_size(value);
                        *old = value.to_vec();
                        true
                    }
                    None => {
                        self.bytes += lp_pair(field, value);
                        v.push((field.to_vec(), value.to_vec()));
                        false
                    }
                };
                if self.len() as u64 > lim.max_listpack_entries {
                    self.convert(lim);
                }
                update
            }
            Repr::Table(d) => match d.insert(field, value.to_vec()) {
                Some(old) => {
                    self.bytes = self.bytes - sds_size(old.len()) + sds_size(value.len());
                    true
                }
                None => {
                    self.bytes += sds_pair(field, value);
                    false
                }
            },
        }
    }

    /// `hashTypeDelete`: removes `field`; true if it was there. A table
    /// shrinks at once when sparse, as Redis checks after every delete.
    pub fn delete(&mut self, field: &[u8]) -> bool {
        match &mut self.repr {
            Repr::Listpack(v) => match v.iter().position(|(f, _)| f.as_slice() == field) {
                Some(i) => {
                    let (f, x) = v.remove(i);
                    self.bytes -= lp_pair(&f, &x);
                    true
                }
                None => false,
            },
            Repr::Table(d) => match d.remove(field) {
                Some((f, x)) => {
                    self.bytes -= sds_pair(&f, &x);
                    d.shrink_if_needed();
                    true
                }
                None => false,
            },
        }
    }

    /// Every pair in the encoding's order: insertion order for a listpack,
    /// bucket order for a table (as `dictNext` walks it).
    pub fn iter(&self) -> Box<dyn Iterator<Item = (&[u8], &[u8])> + '_> {
        match &self.repr {
            Repr::Listpack(v) => Box::new(v.iter().map(|(f, x)| (f.as_slice(), x.as_slice()))),
            Repr::Table(d) => Box::new(
                bucket_order(d)
                    .into_iter()
                    .filter_map(|f| d.get_entry(&f))
                    .map(|(f, x)| (f, x.as_slice())),
            ),
        }
    }

    /// The listpack's pairs, if listpack-encoded.
    pub fn listpack(&self) -> Option<&[(Vec<u8>, Vec<u8>)]> {
        match &self.repr {
            Repr::Listpack(v) => Some(v),
            Repr::Table(_) => None,
        }
    }

    /// `hashTypeRandomElement`: a uniform pick from a listpack
    /// (`lpRandomPair`), `dictGetFairRandomKey` from a table.
    pub fn random_pair(&self, rng: &mut fastrand::Rng) -> Option<(&[u8], &[u8])> {
        match &self.repr {
            Repr::Listpack(v) if v.is_empty() => None,
            Repr::Listpack(v) => {
                let (f, x) = &v[rng.pick(..v.len())];
                Some((f, x))
            }
            Repr::Table(d) => d.fair_random_entry(rng).map(|(f, x)| (f, x.as_slice())),
        }
    }

    /// One `dictScan` step over a table (a listpack has no cursor: callers
    /// return it whole). Returns the next cursor, 0 at the end.
    pub fn scan_table(&self, cursor: u64, mut visit: impl FnMut(&[u8], &[u8])) -> u64 {
        match &self.repr {
            Repr::Listpack(_) => 0,
            Repr::Table(d) => d.scan(cursor, |f, x| visit(f, x)),
        }
    }

    /// RESTORE of a listpack blob: its pairs (distinct fields) in order.
    pub fn from_listpack(pairs: Vec<(Vec<u8>, Vec<u8>)>) -> Hash {
        let bytes = LISTPACK_EMPTY + pairs.iter().map(|(f, v)| lp_pair(f, v)).sum::<usize>();
        Hash {
            repr: Repr::Listpack(pairs),
            bytes,
        }
    }

    /// `hashTypeConvert(o, OBJ_ENCODING_HT)`.
    pub fn to_table(&mut self, lim: &HashLimits) {
        self.convert(lim);
    }

    /// `hashTypeConvertListpack`: moves every pair into a table, in listpack order.
    fn convert(&mut self, lim: &HashLimits) {
        let Repr::Listpack(v) = &mut self.repr else {
            return;
        };
        let mut d = Dict::new(lim.dict_seed);
        let mut bytes = 0;
        for (f, x) in v.drain(..) {
            bytes += sds_pair(&f, &x);
            d.insert(&f, x);
        }
        self.repr = Repr::Table(d);
        self.bytes = bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIM: HashLimits = HashLimits {
        max_listpack_entries: 4,
        max_listpack_value: 8,
        dict_seed: 1,
    };

    fn args(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    /// The byte counter equals a recount from scratch.
    fn recount(h: &Hash) -> usize {
        match &h.repr {
            Repr::Listpack(v) => {
                LISTPACK_EMPTY + v.iter().map(|(f, x)| lp_pair(f, x)).sum::<usize>()
            }
            Repr::Table(d) => d.iter().map(|(f, x)| sds_pair(f, x)).sum(),
        }
    }

    #[test]
    fn listpack_keeps_insertion_order_and_converts_past_the_entry_limit() {
        let mut h = Hash::new();
        for (i, f) in ["d", "b", "a", "c"].iter().enumerate() {
            assert!(!h.set(f.as_bytes(), i.to_string().as_bytes(), &LIM));
        }
        assert!(h.set(b"b", b"updated", &LIM), "an update");
        assert_eq!(h.encoding(), "listpack");
        let order: Vec<&[u8]> = h.iter().map(|(f, _)| f).collect();
        assert_eq!(order, [&b"d"[..], b"b", b"a", b"c"]);
        assert_eq!(h.bytes, recount(&h));
        h.set(b"e", b"4", &LIM);
        assert_eq!(h.encoding(), "hashtable", "five fields > 4");
        assert_eq!(h.bytes, recount(&h));
        assert_eq!(h.get(b"b"), Some(&b"updated"[..]));
        for f in ["a", "b", "c", "d"] {
            assert!(h.delete(f.as_bytes()));
        }
        assert_eq!(h.encoding(), "hashtable", "never converted back");
        assert_eq!(h.bytes, recount(&h));
    }

    #[test]
    fn long_fields_or_values_convert() {
        let mut h = Hash::new();
        h.set(b"f", b"12345678", &LIM);
        assert_eq!(h.encoding(), "listpack", "8 bytes is within the limit");
        h.set(b"f", b"123456789", &LIM);
        assert_eq!(h.encoding(), "hashtable");
        let mut h = Hash::new();
        h.try_conversion(&args(&["f", "v", "123456789", "v"]), &LIM);
        assert_eq!(h.encoding(), "hashtable", "checked before the write");
        let mut h = Hash::new();
        h.try_conversion(
            &args(&["f", "v", "f", "v", "f", "v", "f", "v", "f", "v"]),
            &LIM,
        );
        assert_eq!(
            h.encoding(),
            "hashtable",
            "five pairs coming, duplicates or not"
        );
    }

    #[test]
    fn memory_follows_the_encoding() {
        let mut h = Hash::new();
        let empty = h.mem_size();
        h.set(b"field", b"value", &LIM);
        assert_eq!(h.mem_size(), alloc_size(LISTPACK_EMPTY + 7 + 7));
        assert!(h.mem_size() > empty);
        for i in 0..10 {
            h.set(format!("f{i}").as_bytes(), b"v", &LIM);
        }
        let big = h.mem_size();
        for i in 0..10 {
            h.delete(format!("f{i}").as_bytes());
        }
        assert!(h.mem_size() < big);
        assert_eq!(h.bytes, recount(&h));
    }
}
