//! Where a command line's keys are, and how it uses each: Redis 7.2's key specs (`table.rs`), the getkeys procedures of the commands whose keys depend on their arguments, and the two ways Redis combines them (`getKeysFromCommand` for routing, `getKeysFromCommandWithSpecs` for COMMAND GETKEYS[ANDFLAGS] and the ACL check).

mod table;

use crate::cmd::args::is;
use crate::cmd::table::Command;
use table::KEY_SPECS;

/// Key spec flags (`CMD_KEY_*`), in the order COMMAND replies name them.
pub const RO: u16 = 1;
pub const RW: u16 = 1 << 1;
pub const OW: u16 = 1 << 2;
pub const RM: u16 = 1 << 3;
pub const ACCESS: u16 = 1 << 4;
pub const UPDATE: u16 = 1 << 5;
pub const INSERT: u16 = 1 << 6;
pub const DELETE: u16 = 1 << 7;
pub const NOT_KEY: u16 = 1 << 8;
pub const INCOMPLETE: u16 = 1 << 9;
pub const VARIABLE_FLAGS: u16 = 1 << 10;

const FLAG_NAMES: [&str; 11] = [
    "RO",
    "RW",
    "OW",
    "RM",
    "access",
    "update",
    "insert",
    "delete",
    "not_key",
    "incomplete",
    "variable_flags",
];

/// The names of `flags` as `addReplyFlagsForKeyArgs` lists them.
pub fn flag_names(flags: u16) -> impl Iterator<Item = &'static str> {
    FLAG_NAMES
        .iter()
        .enumerate()
        .filter(move |(i, _)| flags & (1 << i) != 0)
        .map(|(_, n)| *n)
}

/// Where a spec starts looking (`begin_search`).
#[derive(Clone, Copy, Debug)]
pub enum Begin {
    /// At this argument.
    Idx(i32),
    /// After this keyword, searched from this index (backwards if negative).
    Kw(&'static str, i32),
    /// Only the command's getkeys procedure knows.
    UnknownB,
}

/// How a spec finds its keys from where it starts (`find_keys`).
#[derive(Clone, Copy, Debug)]
pub enum Find {
    /// (last key relative to the first, or from the end if negative; step;
    /// limit: with last key -1, only 1/limit of what remains).
    Range(i32, i32, i32),
    /// (index of the key count, first key, step), relative to the start.
    Keynum(i32, i32, i32),
    UnknownF,
}

/// One key spec of a command.
#[derive(Clone, Copy, Debug)]
pub struct KeySpec {
    pub flags: u16,
    pub begin: Begin,
    pub find: Find,
}

/// A command's entry: whether it has a getkeys procedure, and its specs.
pub fn specs_of(full: &str) -> (bool, &'static [KeySpec]) {
    KEY_SPECS
        .binary_search_by(|(n, _, _)| (*n).cmp(full))
        .map(|i| (KEY_SPECS[i].1, KEY_SPECS[i].2))
        .unwrap_or((false, &[]))
}

/// The full name (`parent|sub`) of the command `args` run as `cmd`.
fn full_name_of(cmd: &Command, args: &[Vec<u8>]) -> String {
    match args.first() {
        Some(first) if !first.eq_ignore_ascii_case(cmd.name.as_bytes()) => {
            format!(
                "{}|{}",
                String::from_utf8_lossy(first).to_ascii_lowercase(),
                cmd.name
            )
        }
        _ => cmd.name.to_string(),
    }
}

/// `doesCommandHaveKeys`: a getkeys procedure or a spec that is a key.
pub fn has_keys(full: &str) -> bool {
    let (proc_, specs) = specs_of(full);
    proc_ || specs.iter().any(|s| s.flags & NOT_KEY == 0)
}

/// Whether Redis marks the command `movablekeys`
/// (`populateCommandLegacyRangeSpec`): its key specs cannot all be glued
/// into one plain (first, last, step) range: a keyword or key-count spec, a
/// range with a step other than 1 next to another spec, ranges that do not
/// follow each other, or an incomplete spec.
pub fn is_movable(full: &str) -> bool {
    let (_, specs) = specs_of(full);
    if let [one] = specs {
        if let (Begin::Idx(_), Find::Range(..)) = (one.begin, one.find) {
            return one.flags & INCOMPLETE != 0;
        }
    }
    let mut movable = false;
    let mut found = false;
    let (mut last, mut prev_last): (i32, i32) = (0, 0);
    for s in specs {
        let (Begin::Idx(pos), Find::Range(lastkey, step, _)) = (s.begin, s.find) else {
            movable = true;
            continue;
        };
        if step != 1 || (prev_last != 0 && prev_last != pos - 1) {
            movable = true;
            continue;
        }
        movable |= s.flags & INCOMPLETE != 0;
        found = true;
        let abs = if lastkey >= 0 { lastkey + pos } else { lastkey };
        // C compares them unsigned, so a count from the end wins.
        last = if (abs as u32) > (last as u32) {
            abs
        } else {
            last
        };
        prev_last = last;
    }
    movable || (!specs.is_empty() && !found)
}

/// The positions of the keys in `args` for `cmd` (`getKeysFromCommand`):
/// the getkeys procedure if the command has one, else the legacy
/// `(first, last, step)` range. Bad arguments give no keys: the command
/// itself reports the error.
pub fn key_positions(cmd: &Command, args: &[Vec<u8>]) -> Vec<usize> {
    let full = full_name_of(cmd, args);
    match procedure(&full, args) {
        Some(keys) => keys.into_iter().map(|(pos, _)| pos).collect(),
        None => legacy_keys(cmd, args.len()),
    }
}

/// `getKeysFromCommandWithSpecs` with the default search: the keys with
/// their flags from the specs when they are all reliable, else from the
/// getkeys procedure (whose flags Redis only fills for SET, BITFIELD, SORT
/// and MIGRATE, the others give 0).
pub fn keys_with_flags(cmd: &Command, args: &[Vec<u8>]) -> Vec<(usize, u16)> {
    let full = full_name_of(cmd, args);
    let (_, specs) = specs_of(&full);
    let all = specs.iter().fold(0, |a, s| a | s.flags);
    let any_key = specs.iter().any(|s| s.flags & NOT_KEY == 0);
    if any_key && all & VARIABLE_FLAGS == 0 {
        if let Some(keys) = keys_by_specs(specs, args) {
            return keys;
        }
    }
    procedure(&full, args).unwrap_or_default()
}

/// `getKeysUsingKeySpecs` without partial results or fake keys: `None`
/// when a spec cannot be followed (unknown, incomplete, out of range).
fn keys_by_specs(specs: &[KeySpec], args: &[Vec<u8>]) -> Option<Vec<(usize, u16)>> {
    let argc = args.len() as i64;
    let mut out = Vec::new();
    for spec in specs {
        if spec.flags & NOT_KEY != 0 {
            continue;
        }
        let mut first: i64 = match spec.begin {
            Begin::Idx(pos) => pos as i64,
            Begin::Kw(word, from) => {
                let from = from as i64;
                let start = if from > 0 { from } else { argc + from };
                let end = if from > 0 { argc - 1 } else { 1 };
                let mut i = start;
                let mut found = 0;
                while i != end {
                    if i >= argc || i < 1 {
                        break;
                    }
                    if is(&args[i as usize], word) {
                        found = i + 1;
                        break;
                    }
                    i += if start <= end { 1 } else { -1 };
                }
                if found == 0 {
                    continue;
                }
                found
            }
            Begin::UnknownB => return None,
        };
        let (last, step) = match spec.find {
            Find::Range(lastkey, step, limit) => {
                let (lastkey, limit) = (lastkey as i64, limit as i64);
                let last = if lastkey >= 0 {
                    first + lastkey
                } else if limit == 0 {
                    argc + lastkey
                } else {
                    first + ((argc - first) / limit + lastkey)
                };
                (last, step as i64)
            }
            Find::Keynum(idx, firstkey, step) => {
                if idx as i64 >= argc {
                    return None;
                }
                let at = (first + idx as i64) as usize;
                let n = args.get(at).and_then(|a| crate::proto::resp::parse_i64(a));
                let n = match n {
                    Some(n) if n >= 0 => n,
                    _ => return None,
                };
                first += firstkey as i64;
                (first + n - 1, step as i64)
            }
            Find::UnknownF => return None,
        };
        if last >= argc || last < first || first >= argc {
            return None;
        }
        let mut i = first;
        while i <= last {
            out.push((i as usize, spec.flags));
            i += step.max(1);
        }
        if spec.flags & INCOMPLETE != 0 {
            return None;
        }
    }
    Some(out)
}

/// `getKeysUsingLegacyRangeSpec`.
fn legacy_keys(cmd: &Command, argc: usize) -> Vec<usize> {
    let (first, last, step) = cmd.keys;
    if first <= 0 || step <= 0 {
        return Vec::new();
    }
    let last = if last < 0 { argc as i32 + last } else { last };
    let mut out = Vec::new();
    let mut j = first;
    while j <= last {
        if j as usize >= argc {
            return Vec::new();
        }
        out.push(j as usize);
        j += step;
    }
    out
}

/// The command's getkeys procedure, if it has one (`None` otherwise).
fn procedure(full: &str, args: &[Vec<u8>]) -> Option<Vec<(usize, u16)>> {
    let keys = match full {
        "eval" | "evalsha" | "eval_ro" | "evalsha_ro" | "fcall" | "fcall_ro" => {
            numkeys(args, 0, 2, 3)
        }
        "sintercard" | "zintercard" | "zunion" | "zinter" | "zdiff" | "lmpop" | "zmpop" => {
            numkeys(args, 0, 1, 2)
        }
        "blmpop" | "bzmpop" => numkeys(args, 0, 2, 3),
        "zunionstore" | "zinterstore" | "zdiffstore" => numkeys(args, 1, 2, 3),
        "xread" | "xreadgroup" => xread_keys(args),
        "sort" => sort_keys(args),
        "sort_ro" => vec![(1, RO | ACCESS)],
        "migrate" => migrate_keys(args),
        "georadius" | "georadiusbymember" => crate::cmd::geo::georadius_keys(args)
            .into_iter()
            .map(|p| (p, 0))
            .collect(),
        "set" => {
            let get = args.iter().skip(3).any(|a| is(a, "get"));
            vec![(
                1,
                if get {
                    RW | ACCESS | UPDATE
                } else {
                    OW | UPDATE
                },
            )]
        }
        "bitfield" => vec![(1, bitfield_flags(args))],
        _ => return None,
    };
    Some(keys)
}

/// C's `atoi`: leading blanks, a sign, digits, anything after ignored.
fn atoi(s: &[u8]) -> i64 {
    let s = match s.iter().position(|b| !b" \t\n\r\x0b\x0c".contains(b)) {
        Some(p) => &s[p..],
        None => return 0,
    };
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut n: i64 = 0;
    for &b in digits.iter().take_while(|b| b.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    if neg {
        -n
    } else {
        n
    }
}

/// `genericGetKeys` with a step of 1: `num` keys from `first_at`, the count
/// at `count_at`, then the destination at `store_at` (0: none).
fn numkeys(
    args: &[Vec<u8>],
    store_at: usize,
    count_at: usize,
    first_at: usize,
) -> Vec<(usize, u16)> {
    let Some(count) = args.get(count_at) else {
        return Vec::new();
    };
    let num = atoi(count);
    if num < 1 || num > args.len() as i64 - first_at as i64 {
        return Vec::new();
    }
    let mut keys: Vec<(usize, u16)> = (first_at..first_at + num as usize)
        .map(|p| (p, 0))
        .collect();
    if store_at != 0 {
        keys.push((store_at, 0));
    }
    keys
}

/// `sortGetKeys`: the key, then the last STORE's target (LIMIT's two
/// arguments and BY's and GET's one are skipped).
fn sort_keys(args: &[Vec<u8>]) -> Vec<(usize, u16)> {
    let mut store = None;
    let mut i = 2;
    while i < args.len() {
        let a = &args[i];
        if is(a, "limit") {
            i += 2;
        } else if is(a, "get") || is(a, "by") {
            i += 1;
        } else if is(a, "store") && i + 1 < args.len() {
            store = Some((i + 1, OW | UPDATE));
        }
        i += 1;
    }
    std::iter::once((1, RO | ACCESS)).chain(store).collect()
}

/// `migrateGetKeys`: the key argument, or what follows KEYS when the key
/// argument is empty.
fn migrate_keys(args: &[Vec<u8>]) -> Vec<(usize, u16)> {
    let (mut first, mut num) = (3, 1);
    if args.len() > 6 {
        let mut i = 6;
        while i < args.len() {
            let a = &args[i];
            if is(a, "keys") {
                if !args[3].is_empty() {
                    num = 0;
                } else {
                    first = i + 1;
                    num = args.len() - first;
                }
                break;
            }
            if is(a, "auth") {
                i += 1;
            } else if is(a, "auth2") {
                i += 2;
            }
            i += 1;
        }
    }
    (first..first + num)
        .filter(|&p| p < args.len())
        .map(|p| (p, RW | ACCESS | DELETE))
        .collect()
}

/// `xreadGetKeys`: the first half of what follows STREAMS.
fn xread_keys(args: &[Vec<u8>]) -> Vec<(usize, u16)> {
    let mut i = 1;
    let mut streams = None;
    while i < args.len() {
        let a = &args[i];
        if is(a, "block") || is(a, "count") {
            i += 1;
        } else if is(a, "group") {
            i += 2;
        } else if is(a, "noack") {
        } else if is(a, "streams") {
            streams = Some(i);
            break;
        } else {
            break;
        }
        i += 1;
    }
    let Some(pos) = streams else {
        return Vec::new();
    };
    let num = args.len() - pos - 1;
    if num == 0 || num % 2 == 1 {
        return Vec::new();
    }
    (pos + 1..pos + 1 + num / 2).map(|p| (p, 0)).collect()
}

/// `bitfieldGetKeys`: read-only unless an operation writes (or the line
/// does not parse).
fn bitfield_flags(args: &[Vec<u8>]) -> u16 {
    let mut i = 2;
    while i < args.len() {
        let rem = args.len() - i - 1;
        let a = &args[i];
        if is(a, "get") && rem >= 2 {
            i += 3;
        } else if (is(a, "set") || is(a, "incrby")) && rem >= 3 {
            return RW | ACCESS | UPDATE;
        } else if is(a, "overflow") && rem >= 1 {
            i += 2;
        } else {
            return RW | ACCESS | UPDATE;
        }
    }
    RO | ACCESS
}

#[cfg(test)]
mod tests;
