//! The one list of every command's family, and lookup in it by name: the table packed into an open-addressed array of names folded into integers, so finding a command is a multiply, a shift and one comparison, whatever the case the client typed.

use std::sync::OnceLock;

use super::table::Command;

/// Every family's entries, in table order (the order COMMAND replies in).
/// Families declare their entries in their own modules; this is the one
/// list everything else reads, through [`Registry`](super::table::Registry).
/// It holds the families' statics themselves, read when used, so every
/// reader sees the same entries at the same addresses (lookup and the
/// dispatcher tell a container from its subcommand by address).
pub(super) static FAMILIES: &[&&[Command]] = &[
    &super::connection::COMMANDS,
    &super::strings::COMMANDS,
    &super::lcs::COMMANDS,
    &super::keys::COMMANDS,
    &super::keys_move::COMMANDS,
    &super::dump::COMMANDS,
    &super::migrate::COMMANDS,
    &super::sort::COMMANDS,
    &super::hash::COMMANDS,
    &super::set::COMMANDS,
    &super::list::COMMANDS,
    &super::blocking::COMMANDS,
    &super::multi::COMMANDS,
    &super::pubsub::COMMANDS,
    &super::ttl::COMMANDS,
    &super::zset::COMMANDS,
    &super::geo::COMMANDS,
    &super::stream::COMMANDS,
    &super::script::COMMANDS,
    &super::function::COMMANDS,
    &super::debug::COMMANDS,
    &super::server::COMMANDS,
    &super::server::DIAGNOSTICS,
    &super::memory::COMMANDS,
    &super::hll::COMMANDS,
    &super::bitmap::COMMANDS,
    &super::cluster::COMMANDS,
    &super::repl::COMMANDS,
    &super::persist::COMMANDS,
    &super::acl::COMMANDS,
    &super::module::COMMANDS,
];

/// Longest command name the packed table holds: a name and its length
/// pack into one `u128`, so a lookup is a multiply, a shift and one integer
/// comparison (this runs for every command). Longer names (a few rare
/// commands) go through a hash table.
const MAX_NAME: usize = 15;

/// `name` lower-cased into 15 bytes with its length in the top byte; `None`
/// if it is empty or too long to pack.
#[inline]
fn pack_name(name: &[u8]) -> Option<u128> {
    let n = name.len();
    if n == 0 || n > MAX_NAME {
        return None;
    }
    // Two little-endian words, zero-padded, lower-cased eight bytes at a time.
    let (lo, hi) = if n >= 8 {
        let lo = u64::from_le_bytes(name[..8].try_into().expect("8 bytes"));
        let hi = if n > 8 {
            crate::keyspace::dict::tail_le(&name[8..])
        } else {
            0
        };
        (lo, hi)
    } else {
        (crate::keyspace::dict::tail_le(name), 0)
    };
    Some((n as u128) << 120 | (ascii_lower8(hi) as u128) << 64 | ascii_lower8(lo) as u128)
}

/// `to_ascii_lowercase` on each byte of a word (SWAR): bytes `A`..=`Z`
/// gain 0x20, every other byte (zero padding, non-ASCII) is left alone.
#[inline]
fn ascii_lower8(x: u64) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let low7 = x & !HIGH;
    // Each byte's high bit: its low 7 bits are >= 'A', and > 'Z'.
    let ge_a = low7.wrapping_add(ONES * (0x80 - b'A' as u64));
    let gt_z = low7.wrapping_add(ONES * (0x80 - b'Z' as u64 - 1));
    let upper = ge_a & !gt_z & !x & HIGH;
    x | (upper >> 2)
}

/// Slot of a packed name in a table of `1 << bits` slots.
fn name_slot(packed: u128, bits: u32) -> usize {
    let folded = (packed as u64) ^ ((packed >> 64) as u64).rotate_left(29);
    (folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
}

/// The command table as an open-addressed array of packed names (0: empty
/// slot, which no packed name is since its length byte is non-zero), and
/// the names too long to pack.
struct NameTable {
    bits: u32,
    slots: Vec<(u128, Option<&'static Command>)>,
    long: crate::keyspace::dict::Dict<&'static Command>,
}

impl NameTable {
    fn build() -> NameTable {
        let n = FAMILIES.iter().map(|f| f.len()).sum::<usize>();
        // At most a quarter full: probes are short.
        let bits = (n * 4).next_power_of_two().trailing_zeros();
        let mut slots = vec![(0u128, None); 1 << bits];
        let mut long = crate::keyspace::dict::Dict::new(0x5eed_c0de);
        for c in FAMILIES.iter().flat_map(|f| f.iter()) {
            let Some(packed) = pack_name(c.name.as_bytes()) else {
                long.insert(c.name.as_bytes(), c);
                continue;
            };
            let mut i = name_slot(packed, bits);
            while slots[i].1.is_some() {
                i = (i + 1) & (slots.len() - 1);
            }
            slots[i] = (packed, Some(c));
        }
        NameTable { bits, slots, long }
    }

    fn get(&self, name: &[u8]) -> Option<&'static Command> {
        let Some(packed) = pack_name(name) else {
            // Lower-case into a stack buffer (no command name is longer).
            let mut buf = [0u8; 32];
            let lower = buf.get_mut(..name.len())?;
            lower.copy_from_slice(name);
            lower.make_ascii_lowercase();
            return self.long.get(lower).copied();
        };
        let mut i = name_slot(packed, self.bits);
        loop {
            match self.slots[i] {
                (p, found @ Some(_)) if p == packed => return found,
                (_, None) => return None,
                _ => i = (i + 1) & (self.slots.len() - 1),
            }
        }
    }
}

/// The command called `name` (any case).
pub fn lookup(name: &[u8]) -> Option<&'static Command> {
    static TABLE: OnceLock<NameTable> = OnceLock::new();
    TABLE.get_or_init(NameTable::build).get(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::dispatch::REGISTRY;
    use crate::rng::Pick;

    #[test]
    fn names_are_unique_and_lowercase() {
        let mut seen = std::collections::BTreeSet::new();
        for c in REGISTRY.all() {
            assert_eq!(c.name, c.name.to_ascii_lowercase());
            assert!(seen.insert(c.name), "duplicate command {}", c.name);
            assert!(!c.syntax().is_empty(), "{} has no syntax line", c.name);
        }
    }
    #[test]
    fn lookup_finds_every_command_in_any_case_and_nothing_else() {
        for c in REGISTRY.all() {
            assert!(std::ptr::eq(lookup(c.name.as_bytes()).unwrap(), c));
            let upper = c.name.to_ascii_uppercase();
            assert!(std::ptr::eq(lookup(upper.as_bytes()).unwrap(), c));
        }
        // A trailing NUL, a prefix, an extension, the empty name and an
        // overlong one are all unknown.
        assert!(lookup(b"get\0").is_none());
        assert!(lookup(b"ge").is_none());
        assert!(lookup(b"gett").is_none());
        assert!(lookup(b"").is_none());
        assert!(lookup(b"getgetgetgetgetget").is_none());
        assert!(lookup(&[b'a'; 40]).is_none());
        assert!(lookup(&[0xc7, b'e', b't']).is_none());
    }

    #[test]
    fn packing_lower_cases_like_to_ascii_lowercase() {
        let naive = |name: &[u8]| {
            let mut packed = (name.len() as u128) << 120;
            for (i, b) in name.iter().enumerate() {
                packed |= (b.to_ascii_lowercase() as u128) << (8 * i);
            }
            packed
        };
        let mut rng = fastrand::Rng::with_seed(4);
        for _ in 0..20_000 {
            let len = rng.pick(1..=MAX_NAME);
            let name: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            assert_eq!(pack_name(&name), Some(naive(&name)), "{name:?}");
        }
        for b in 0..=255u8 {
            assert_eq!(pack_name(&[b]), Some(naive(&[b])), "byte {b}");
        }
    }
}
