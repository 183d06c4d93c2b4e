//! Set values in Redis 7.2's three encodings (t_set.c): an intset while every member is an integer, a listpack while small, a hashtable otherwise, with the conversions `setTypeAddAux` makes and memory counted as Redis allocates it.
//!
//! The intset keeps its integer width (2, 4 or 8 bytes), which only ever
//! grows, as Redis' does. The listpack keeps insertion order; members that
//! read as canonical integers are the ones a listpack would store as
//! integers, and all of Redis' decisions about them depend only on their
//! bytes, so the model stores bytes.

use crate::keyspace::dict::Dict;
use crate::keyspace::memory::{
    alloc_size, dict_table_size, listpack_entry_size, sds_size, LISTPACK_EMPTY,
    LISTPACK_MAX_SAFETY_SIZE,
};
use crate::keyspace::types::hash::bucket_order;
use crate::proto::resp::parse_i64;
use crate::rng::Pick;

/// What a set's encoding depends on, taken from the config when a command runs.
#[derive(Clone, Copy, Debug)]
pub struct SetLimits {
    /// `set-max-intset-entries`.
    pub max_intset_entries: u64,
    /// `set-max-listpack-entries`.
    pub max_listpack_entries: u64,
    /// `set-max-listpack-value`.
    pub max_listpack_value: u64,
    /// Seed of the tables conversions create (Redis has one hash seed per process).
    pub dict_seed: u64,
}

impl SetLimits {
    /// `intsetMaxEntries`: the configured limit, capped at 2^30.
    fn intset_max(&self) -> u64 {
        self.max_intset_entries.min(1 << 30)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Repr {
    /// Sorted integers stored `width` bytes each.
    Intset { vals: Vec<i64>, width: usize },
    /// Members in insertion order.
    Listpack(Vec<Vec<u8>>),
    /// Members as keys.
    Table(Dict<()>),
}

/// A set in one of its three encodings, with a running byte count so that
/// its memory is known in O(1) on every write.
#[derive(Clone, Debug, PartialEq)]
pub struct Set {
    repr: Repr,
    /// Listpack: its `lpBytes`. Table: the sds allocations of the members. Intset: unused.
    bytes: usize,
}

/// One member as an iteration yields it: integers from an intset (and
/// integer-looking listpack entries) or bytes, as `setTypeNext` does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Member<'a> {
    Int(i64),
    Str(&'a [u8]),
}

impl Member<'_> {
    /// The member's bytes.
    pub fn to_vec(self) -> Vec<u8> {
        match self {
            Member::Int(n) => n.to_string().into_bytes(),
            Member::Str(s) => s.to_vec(),
        }
    }
}

/// `_intsetValueEncoding`: bytes per element an intset needs for `v`.
fn int_width(v: i64) -> usize {
    if i32::try_from(v).is_err() {
        8
    } else if i16::try_from(v).is_err() {
        4
    } else {
        2
    }
}

/// `sdigits10`: characters of `v` in decimal, sign included.
fn digits(v: i64) -> usize {
    let mut n = v.unsigned_abs();
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d + usize::from(v < 0)
}

/// Allocated `dictEntryNoValue`s of a set table with `n` members in `m`
/// buckets. A 7.2 set stores a member straight in an empty bucket and
/// allocates a 16-byte entry only for the others in the chain, so the
/// count is `n` minus the non-empty buckets, `m(1 - e^(-n/m))` on average;
/// `e^-x` is taken as its [2/2] Padé approximant in integers, to stay
/// identical on every platform.
fn chained_entries(n: usize, m: usize) -> usize {
    if n == 0 || m == 0 {
        return 0;
    }
    let (n, m) = (n as u128, m as u128);
    let nonempty = 12 * n * m * m / (12 * m * m + 6 * n * m + n * n);
    (n - nonempty.min(n)) as usize
}

impl Set {
    /// DEBUG HTSTATS-KEY's text for a hashtable-encoded set.
    pub fn table_stats(&self, full: bool) -> Option<String> {
        match &self.repr {
            Repr::Table(d) => Some(d.stats_text(full)),
            _ => None,
        }
    }

    /// `createIntsetObject`.
    pub fn new_intset() -> Set {
        Set {
            repr: Repr::Intset {
                vals: Vec::new(),
                width: 2,
            },
            bytes: 0,
        }
    }

    /// `createSetListpackObject`.
    pub fn new_listpack() -> Set {
        Set {
            repr: Repr::Listpack(Vec::new()),
            bytes: LISTPACK_EMPTY,
        }
    }

    /// `createSetObject`: an empty table.
    pub fn new_table(lim: &SetLimits) -> Set {
        Set {
            repr: Repr::Table(Dict::new(lim.dict_seed)),
            bytes: 0,
        }
    }

    /// `setTypeCreate`: the encoding a new set starts with, given its first
    /// member and how many members are about to be added.
    pub fn create(first: &[u8], size_hint: u64, lim: &SetLimits) -> Set {
        if parse_i64(first).is_some() && size_hint <= lim.max_intset_entries {
            Set::new_intset()
        } else if size_hint <= lim.max_listpack_entries {
            Set::new_listpack()
        } else {
            Set::new_table(lim)
        }
    }

    /// RESTORE of an intset blob: its values (sorted, distinct) at its width.
    pub fn from_intset(vals: Vec<i64>, width: usize) -> Set {
        Set {
            repr: Repr::Intset { vals, width },
            bytes: 0,
        }
    }

    /// RESTORE of a listpack blob: its members (distinct) in their order.
    pub fn from_listpack(members: Vec<Vec<u8>>) -> Set {
        let bytes = LISTPACK_EMPTY
            + members
                .iter()
                .map(|m| listpack_entry_size(m))
                .sum::<usize>();
        Set {
            repr: Repr::Listpack(members),
            bytes,
        }
    }

    /// The intset's values and width, if intset-encoded (DUMP).
    pub fn intset(&self) -> Option<(&[i64], usize)> {
        match &self.repr {
            Repr::Intset { vals, width } => Some((vals, *width)),
            _ => None,
        }
    }

    /// `setTypeConvert(o, OBJ_ENCODING_HT)`.
    pub fn to_table(&mut self, lim: &SetLimits) {
        if !matches!(self.repr, Repr::Table(_)) {
            self.convert_to_table(lim);
        }
    }

    /// OBJECT ENCODING's name.
    pub fn encoding(&self) -> &'static str {
        match self.repr {
            Repr::Intset { .. } => "intset",
            Repr::Listpack(_) => "listpack",
            Repr::Table(_) => "hashtable",
        }
    }

    /// True while intset-encoded.
    pub fn is_intset(&self) -> bool {
        matches!(self.repr, Repr::Intset { .. })
    }

    /// True while listpack-encoded.
    pub fn is_listpack(&self) -> bool {
        matches!(self.repr, Repr::Listpack(_))
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Intset { vals, .. } => vals.len(),
            Repr::Listpack(v) => v.len(),
            Repr::Table(d) => d.len(),
        }
    }

    /// True when empty (Redis deletes empty sets).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the value's allocations as Redis' allocator counts them, in
    /// O(1): the intset or listpack blob's size class, or the dict with its
    /// bucket array, chained entries and member sds strings.
    pub fn mem_size(&self) -> usize {
        match &self.repr {
            Repr::Intset { vals, width } => alloc_size(8 + vals.len() * width),
            Repr::Listpack(_) => alloc_size(self.bytes),
            Repr::Table(d) => dict_table_size(d.buckets(), self.chained_entry_bytes(), self.bytes),
        }
    }

    /// Bytes of the chained `dictEntryNoValue`s of a table (0 for other
    /// encodings). Added for MEMORY USAGE, which counts `sizeof(dictEntry)`
    /// per member instead (see `Obj::memory_usage`).
    pub fn chained_entry_bytes(&self) -> usize {
        match &self.repr {
            Repr::Table(d) => chained_entries(d.len(), d.buckets()) * alloc_size(16),
            _ => 0,
        }
    }

    /// `setTypeIsMember`.
    pub fn contains(&self, m: &[u8]) -> bool {
        match &self.repr {
            Repr::Intset { vals, .. } => {
                parse_i64(m).is_some_and(|n| vals.binary_search(&n).is_ok())
            }
            Repr::Listpack(v) => v.iter().any(|x| x.as_slice() == m),
            Repr::Table(d) => d.contains(m),
        }
    }

    /// `setTypeMaybeConvert`: a table at once if `size_hint` members are
    /// coming and the current encoding could not hold them.
    pub fn maybe_convert(&mut self, size_hint: u64, lim: &SetLimits) {
        let too_many = match self.repr {
            Repr::Listpack(_) => size_hint > lim.max_listpack_entries,
            Repr::Intset { .. } => size_hint > lim.max_intset_entries,
            Repr::Table(_) => false,
        };
        if too_many {
            self.convert_to_table(lim);
        }
    }

    /// `setTypeAddAux`: adds `m`; true if it was not a member. An intset
    /// takes integers until it passes `set-max-intset-entries`; a string
    /// turns it into a listpack if the set (each member counted at the
    /// width of its longest integer) stays within the listpack limits, else
    /// into a table. A listpack takes members while it has fewer than
    /// `set-max-listpack-entries` and the member fits `set-max-listpack-value`.
    pub fn add(&mut self, m: &[u8], lim: &SetLimits) -> bool {
        match &mut self.repr {
            Repr::Table(d) => {
                if d.contains(m) {
                    return false;
                }
                d.insert(m, ());
                self.bytes += sds_size(m.len());
                true
            }
            Repr::Listpack(v) => {
                if v.iter().any(|x| x.as_slice() == m) {
                    return false;
                }
                if (v.len() as u64) < lim.max_listpack_entries
                    && m.len() as u64 <= lim.max_listpack_value
                    && self.bytes + m.len() <= LISTPACK_MAX_SAFETY_SIZE
                {
                    self.bytes += listpack_entry_size(m);
                    v.push(m.to_vec());
                } else {
                    self.convert_to_table(lim);
                    self.add(m, lim);
                }
                true
            }
            Repr::Intset { vals, width } => {
                if let Some(n) = parse_i64(m) {
                    let Err(at) = vals.binary_search(&n) else {
                        return false;
                    };
                    vals.insert(at, n);
                    *width = (*width).max(int_width(n));
                    if vals.len() as u64 > lim.intset_max() {
                        self.convert_to_table(lim);
                    }
                    return true;
                }
                let (min, max) = (vals.first().copied(), vals.last().copied());
                let (longest, estimate) = match (min, max) {
                    (Some(lo), Some(hi)) => {
                        let per = |v: i64| listpack_entry_size(v.to_string().as_bytes());
                        (
                            digits(lo).max(digits(hi)),
                            per(lo).max(per(hi)) * vals.len(),
                        )
                    }
                    _ => (0, 0),
                };
                if (vals.len() as u64) < lim.max_listpack_entries
                    && m.len() as u64 <= lim.max_listpack_value
                    && longest as u64 <= lim.max_listpack_value
                    && estimate + m.len() <= LISTPACK_MAX_SAFETY_SIZE
                {
                    self.convert_intset_to_listpack();
                } else {
                    self.convert_to_table(lim);
                }
                self.add(m, lim)
            }
        }
    }

    /// `setTypeRemove`: true if `m` was a member. A table shrinks at once
    /// when sparse, as Redis checks after every delete.
    pub fn remove(&mut self, m: &[u8]) -> bool {
        match &mut self.repr {
            Repr::Intset { vals, .. } => {
                match parse_i64(m).and_then(|n| vals.binary_search(&n).ok()) {
                    Some(i) => {
                        vals.remove(i);
                        true
                    }
                    None => false,
                }
            }
            Repr::Listpack(v) => match v.iter().position(|x| x.as_slice() == m) {
                Some(i) => {
                    let gone = v.remove(i);
                    self.bytes -= listpack_entry_size(&gone);
                    true
                }
                None => false,
            },
            Repr::Table(d) => match d.remove(m) {
                Some((k, ())) => {
                    self.bytes -= sds_size(k.len());
                    d.shrink_if_needed();
                    true
                }
                None => false,
            },
        }
    }

    /// Every member in the encoding's order: ascending for an intset,
    /// insertion order for a listpack, bucket order for a table.
    pub fn iter(&self) -> Box<dyn Iterator<Item = Member<'_>> + '_> {
        match &self.repr {
            Repr::Intset { vals, .. } => Box::new(vals.iter().map(|&n| Member::Int(n))),
            Repr::Listpack(v) => Box::new(v.iter().map(|x| match parse_i64(x) {
                Some(n) => Member::Int(n),
                None => Member::Str(x),
            })),
            Repr::Table(d) => Box::new(
                bucket_order(d)
                    .into_iter()
                    .filter_map(|k| d.get_entry(&k).map(|(k, _)| Member::Str(k))),
            ),
        }
    }

    /// Every member's bytes, in the encoding's order.
    pub fn members(&self) -> Vec<Vec<u8>> {
        self.iter().map(Member::to_vec).collect()
    }

    /// The listpack's members, if listpack-encoded.
    pub fn listpack(&self) -> Option<&[Vec<u8>]> {
        match &self.repr {
            Repr::Listpack(v) => Some(v),
            _ => None,
        }
    }

    /// `setTypeRandomElement`: uniform from an intset or listpack,
    /// `dictGetFairRandomKey` from a table. `None` only when empty.
    pub fn random(&self, rng: &mut fastrand::Rng) -> Option<Member<'_>> {
        match &self.repr {
            Repr::Intset { vals, .. } if !vals.is_empty() => {
                Some(Member::Int(vals[rng.pick(..vals.len())]))
            }
            Repr::Listpack(v) if !v.is_empty() => Some(Member::Str(&v[rng.pick(..v.len())])),
            Repr::Table(d) => d.fair_random_entry(rng).map(|(k, _)| Member::Str(k)),
            _ => None,
        }
    }

    /// `setTypePopRandom`: removes and returns a random member.
    pub fn pop_random(&mut self, rng: &mut fastrand::Rng) -> Option<Vec<u8>> {
        let m = self.random(rng)?.to_vec();
        self.remove(&m);
        Some(m)
    }

    /// Removes the listpack entries at `indices` (ascending), as
    /// `lpBatchDelete` does; nothing for other encodings.
    pub fn remove_listpack_indices(&mut self, indices: &[usize]) {
        let Repr::Listpack(v) = &mut self.repr else {
            return;
        };
        let mut next = indices.iter().peekable();
        let mut i = 0;
        let mut freed = 0;
        v.retain(|x| {
            let drop = next.peek().is_some_and(|&&at| at == i);
            if drop {
                next.next();
                freed += listpack_entry_size(x);
            }
            i += 1;
            !drop
        });
        self.bytes -= freed;
    }

    /// One `dictScan` step over a table (other encodings have no cursor:
    /// callers return them whole). Returns the next cursor, 0 at the end.
    pub fn scan_table(&self, cursor: u64, mut visit: impl FnMut(&[u8])) -> u64 {
        match &self.repr {
            Repr::Table(d) => d.scan(cursor, |k, _| visit(k)),
            _ => 0,
        }
    }

    /// `maybeConvertToIntset`: an intset if every member is an integer and
    /// there are no more than the intset may hold (the caller knows they
    /// are all integers).
    pub fn maybe_convert_to_intset(&mut self, lim: &SetLimits) {
        if self.is_intset() || self.len() as u64 > lim.intset_max() {
            return;
        }
        let mut vals: Vec<i64> = Vec::with_capacity(self.len());
        for m in self.iter() {
            match m {
                Member::Int(n) => vals.push(n),
                Member::Str(s) => match parse_i64(s) {
                    Some(n) => vals.push(n),
                    None => return,
                },
            }
        }
        crate::sort::sort(&mut vals);
        vals.dedup();
        let width = vals.iter().map(|&n| int_width(n)).max().unwrap_or(2);
        self.repr = Repr::Intset { vals, width };
        self.bytes = 0;
    }

    /// `setTypeConvert(…, OBJ_ENCODING_HT)`: every member into a table, in
    /// the current order.
    fn convert_to_table(&mut self, lim: &SetLimits) {
        if matches!(self.repr, Repr::Table(_)) {
            return;
        }
        let mut d = Dict::new(lim.dict_seed);
        let mut bytes = 0;
        for m in self.members() {
            bytes += sds_size(m.len());
            d.insert(&m, ());
        }
        self.repr = Repr::Table(d);
        self.bytes = bytes;
    }

    /// `setTypeConvert(…, OBJ_ENCODING_LISTPACK)` from an intset: the
    /// integers in ascending order.
    fn convert_intset_to_listpack(&mut self) {
        let members = self.members();
        let bytes = LISTPACK_EMPTY
            + members
                .iter()
                .map(|m| listpack_entry_size(m))
                .sum::<usize>();
        self.repr = Repr::Listpack(members);
        self.bytes = bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIM: SetLimits = SetLimits {
        max_intset_entries: 5,
        max_listpack_entries: 4,
        max_listpack_value: 6,
        dict_seed: 3,
    };

    fn recount(s: &Set) -> usize {
        match &s.repr {
            Repr::Intset { .. } => 0,
            Repr::Listpack(v) => {
                LISTPACK_EMPTY + v.iter().map(|m| listpack_entry_size(m)).sum::<usize>()
            }
            Repr::Table(d) => d.iter().map(|(k, _)| sds_size(k.len())).sum(),
        }
    }

    fn add_all(s: &mut Set, ms: &[&str]) {
        for m in ms {
            s.add(m.as_bytes(), &LIM);
            assert_eq!(s.bytes, recount(s));
        }
    }

    #[test]
    fn intset_grows_width_and_overflows_to_a_table() {
        let mut s = Set::create(b"5", 1, &LIM);
        add_all(&mut s, &["5", "-3", "40000"]);
        assert_eq!(s.encoding(), "intset");
        assert_eq!(
            s.members(),
            [b"-3".to_vec(), b"5".to_vec(), b"40000".to_vec()]
        );
        assert_eq!(s.mem_size(), alloc_size(8 + 3 * 4));
        s.remove(b"40000");
        assert_eq!(
            s.mem_size(),
            alloc_size(8 + 2 * 4),
            "the width never shrinks"
        );
        add_all(&mut s, &["1", "2", "3"]);
        assert_eq!(s.encoding(), "intset", "five members fit");
        add_all(&mut s, &["4"]);
        assert_eq!(s.encoding(), "hashtable", "six do not");
    }

    #[test]
    fn a_string_turns_a_small_intset_into_a_listpack() {
        let mut s = Set::create(b"3", 1, &LIM);
        add_all(&mut s, &["3", "1", "abc"]);
        assert_eq!(s.encoding(), "listpack");
        assert_eq!(s.members(), [b"1".to_vec(), b"3".to_vec(), b"abc".to_vec()]);
        add_all(&mut s, &["x"]);
        assert_eq!(s.encoding(), "listpack", "four members fit");
        add_all(&mut s, &["y"]);
        assert_eq!(s.encoding(), "hashtable");
        // An intset whose longest integer is too long for a listpack value.
        let mut s = Set::create(b"1234567", 1, &LIM);
        add_all(&mut s, &["1234567", "a"]);
        assert_eq!(s.encoding(), "hashtable");
        // Or with as many members as a listpack may hold.
        let mut s = Set::create(b"1", 1, &LIM);
        add_all(&mut s, &["1", "2", "3", "4", "a"]);
        assert_eq!(s.encoding(), "hashtable");
    }

    #[test]
    fn listpack_limits_and_removal() {
        let mut s = Set::create(b"a", 1, &LIM);
        add_all(&mut s, &["a", "b", "1"]);
        assert_eq!(s.encoding(), "listpack");
        assert!(!s.add(b"a", &LIM));
        assert!(s.remove(b"a"));
        assert!(s.contains(b"1") && !s.contains(b"a"));
        assert_eq!(s.bytes, recount(&s));
        add_all(&mut s, &["toolong"]);
        assert_eq!(s.encoding(), "hashtable", "7 bytes > 6");
        assert_eq!(Set::create(b"a", 5, &LIM).encoding(), "hashtable");
        assert_eq!(Set::create(b"1", 5, &LIM).encoding(), "intset");
        assert_eq!(Set::create(b"1", 6, &LIM).encoding(), "hashtable");
    }

    #[test]
    fn back_to_intset_and_batch_delete() {
        let mut s = Set::new_listpack();
        add_all(&mut s, &["7", "70000", "-1"]);
        s.remove_listpack_indices(&[0, 2]);
        assert_eq!(s.members(), [b"70000".to_vec()]);
        assert_eq!(s.bytes, recount(&s));
        s.maybe_convert_to_intset(&LIM);
        assert_eq!(s.encoding(), "intset");
        assert_eq!(s.mem_size(), alloc_size(8 + 4));
    }

    #[test]
    fn table_memory_is_counted_in_constant_time() {
        let mut s = Set::new_table(&LIM);
        for i in 0..1000 {
            s.add(format!("member:{i}").as_bytes(), &LIM);
        }
        assert_eq!(s.bytes, recount(&s));
        let full = s.mem_size();
        for i in 0..990 {
            s.remove(format!("member:{i}").as_bytes());
        }
        assert!(s.mem_size() < full / 20, "{} vs {full}", s.mem_size());
        assert_eq!(chained_entries(0, 4), 0);
        // One member per bucket on average leaves about 37% chained.
        let c = chained_entries(1000, 1000);
        assert!((360..=375).contains(&c), "{c}");
    }
}
