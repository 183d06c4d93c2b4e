//! Bitmap commands: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and BITFIELD_RO (bitops.c), over string values.
//!
//! Bit 0 is the most significant bit of the first byte. A write makes the
//! string `raw` and zero-pads it to the farthest bit touched, as
//! `lookupStringForBitCommand` does; an `int`-encoded string is read as its
//! decimal digits. Redis' argument checks run in its order: some commands
//! look the key up before parsing their ranges (BITCOUNT of a missing key
//! is 0 whatever follows), some parse first. WATCH is signalled only where
//! Redis signals: SETBIT when the string grew or the bit changed, BITFIELD
//! when a write changed something, so a BITFIELD whose writes all fail
//! under `OVERFLOW FAIL` creates the key without touching watchers.

use super::args::{arg_i64, cstr, either, opt_choice, opt_is, NOT_INTEGER, SYNTAX};
use super::strings::unshare;
use super::table::{commands, Command, Ctx};
use super::typed::{written, WRONGTYPE};
use crate::keyspace::object::{Obj, RString, Value};
use crate::proto::resp::{parse_i64, Frame};
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;
use crate::server::Server;

pub(super) static COMMANDS: &[Command] = commands! { group: "bitmap";
    "setbit" => setbit, arity: 4, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [WRITE, BITMAP, SLOW], since: "2.2.0",
        syntax: "SETBIT key offset value", summary: "Sets or clears the bit at an offset of a string, zero-padding it; replies with the bit's previous value.";
    "getbit" => getbit, arity: 3, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, BITMAP, FAST], since: "2.2.0",
        syntax: "GETBIT key offset", summary: "Replies with the bit at an offset (0 past the end).";
    "bitcount" => bitcount, arity: -2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, BITMAP, SLOW], since: "2.6.0",
        syntax: "BITCOUNT key [start end [BYTE | BIT]]", summary: "Counts the set bits of a string, or of a byte or bit range (negative indexes count from the end).";
    "bitpos" => bitpos, arity: -3, flags: [READONLY], keys: (1, 1, 1), acl: [READ, BITMAP, SLOW], since: "2.8.7",
        syntax: "BITPOS key bit [start [end [BYTE | BIT]]]", summary: "Replies with the position of the first set or clear bit, optionally within a range.";
    "bitop" => bitop, arity: -4, flags: [WRITE, DENYOOM], keys: (2, -1, 1), acl: [WRITE, BITMAP, SLOW], since: "2.6.0",
        syntax: "BITOP <AND | OR | XOR | NOT> destkey key [key ...]", summary: "Stores the bitwise AND, OR, XOR or NOT of strings; replies with the result's length (an empty result deletes the destination).";
    heavy "bitfield" => bitfield, arity: -2, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [WRITE, BITMAP, SLOW], since: "3.2.0",
        syntax: "BITFIELD key [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> ...]", summary: "Reads, sets and increments signed and unsigned integers of any width at any bit offset of a string.";
    heavy "bitfield_ro" => bitfield_ro, arity: -2, flags: [READONLY, FAST], keys: (1, 1, 1), acl: [READ, BITMAP, FAST], since: "6.0.0",
        syntax: "BITFIELD_RO key [GET encoding offset [GET encoding offset ...]]", summary: "Reads integers at bit offsets of a string (the read-only BITFIELD).";
};

const BAD_OFFSET: &str = "ERR bit offset is not an integer or out of range";
const BAD_BIT: &str = "ERR bit is not an integer or out of range";
const BAD_TYPE: &str =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";

/// `getBitOffsetFromArgument`: a bit offset below `proto-max-bulk-len`
/// bytes; with `hash_bits` > 0 (BITFIELD), `#n` means `n * hash_bits`
/// (multiplied with C's wrap-around).
fn bit_offset(srv: &Server, arg: &[u8], hash_bits: u32) -> Result<u64, Frame> {
    let (digits, hash) = match arg.first() {
        Some(b'#') if hash_bits > 0 => (&arg[1..], true),
        _ => (arg, false),
    };
    let mut n = parse_i64(digits).ok_or_else(|| Frame::err(BAD_OFFSET))?;
    if hash {
        n = n.wrapping_mul(hash_bits as i64);
    }
    if n < 0 || (n >> 3) >= srv.config.proto_max_bulk_len {
        return Err(Frame::err(BAD_OFFSET));
    }
    Ok(n as u64)
}

/// Runs `f` on the bytes of the string at `key` (`lookupKeyRead` and
/// `checkType`); `None` if the key is missing.
fn read_bytes<R>(
    ctx: &mut Ctx,
    key: &[u8],
    f: impl FnOnce(&[u8]) -> R,
) -> Result<Option<R>, Frame> {
    Ok(ctx.read::<RString>(key)?.map(|s| match s {
        RString::Int(n) => f(n.to_string().as_bytes()),
        RString::Emb(b) | RString::Raw(b) => f(b),
    }))
}

/// `lookupStringForBitCommand`: makes the string at `key` `raw` and long
/// enough to address bit `maxbit`, creating it if missing. Returns Redis'
/// `dirty`: whether the key was created or grew. Nothing is signalled here.
fn string_for_bit_write(ctx: &mut Ctx, key: &[u8], maxbit: u64) -> Result<bool, Frame> {
    let db = ctx.db();
    // An address space too small for the string (wasm32 with a large
    // proto-max-bulk-len) cannot hold it: Redis would run out of memory.
    let need = usize::try_from(maxbit >> 3)
        .ok()
        .and_then(|b| b.checked_add(1))
        .ok_or_else(|| Frame::err(BAD_OFFSET))?;
    let exists = ctx.write_exists::<RString>(key)?;
    // The page's memory budget, checked before the allocation that could
    // kill it (`None`: no budget).
    let room = ctx.srv.budget_room();
    let oom = || Frame::err(crate::server::BUDGET_OOM);
    if !exists {
        if room.is_some_and(|r| need as u64 > r) {
            return Err(oom());
        }
        let mut b = Vec::new();
        b.try_reserve_exact(need)
            .map_err(|_| Frame::err(BAD_OFFSET))?;
        b.resize(need, 0);
        let lru = ctx.srv.new_lru();
        ctx.srv.dbs[db].insert(
            key,
            Obj {
                value: Value::String(RString::Raw(b)),
            },
            lru,
        );
        // `dbAdd`'s event.
        ctx.srv.notify(ev::NEW, "new", key, db);
        return Ok(true);
    }
    let grown = ctx.srv.dbs[db].with_mut(key, |obj| -> Result<bool, Frame> {
        let b = unshare(obj).ok_or_else(|| Frame::err(BAD_OFFSET))?;
        if b.len() >= need {
            return Ok(false);
        }
        if room.is_some_and(|r| (need - b.len()) as u64 > r) {
            return Err(oom());
        }
        b.try_reserve_exact(need - b.len())
            .map_err(|_| Frame::err(BAD_OFFSET))?;
        b.resize(need, 0);
        Ok(true)
    });
    grown.unwrap_or_else(|| Err(Frame::err(BAD_OFFSET)))
}

/// The byte of `p` holding bit `offset`, if within the string.
fn byte_at(p: &[u8], offset: u64) -> u8 {
    usize::try_from(offset >> 3)
        .ok()
        .and_then(|i| p.get(i).copied())
        .unwrap_or(0)
}

fn setbit(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let key = &args[1];
    let offset = match bit_offset(ctx.srv, &args[2], 0) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let on = match parse_i64(&args[3]) {
        Some(v) if v & !1 == 0 => v as u8,
        _ => return Frame::err(BAD_BIT),
    };
    let dirty = match string_for_bit_write(ctx, key, offset) {
        Ok(d) => d,
        Err(e) => return e,
    };
    let db = ctx.db();
    let shift = 7 - (offset & 7) as u8;
    let old = ctx.srv.dbs[db]
        .with_mut(key, |obj| {
            let b = unshare(obj)?;
            let byte = b.get_mut(usize::try_from(offset >> 3).ok()?)?;
            let old = (*byte >> shift) & 1;
            *byte = (*byte & !(1 << shift)) | (on << shift);
            Some(old)
        })
        .flatten()
        .unwrap_or(0);
    if dirty || old != on {
        written(ctx.srv, db, key, true);
        ctx.notify(ev::STRING, "setbit", key);
    }
    Frame::Integer(old as i64)
}

fn getbit(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let offset = match bit_offset(ctx.srv, &args[2], 0) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let shift = 7 - (offset & 7);
    match read_bytes(ctx, &args[1], |p| (byte_at(p, offset) >> shift) & 1) {
        Ok(bit) => Frame::Integer(bit.unwrap_or(0) as i64),
        Err(e) => e,
    }
}

/// BIT or BYTE (`strcasecmp`), else a syntax error.
fn unit_is_bit(arg: &[u8]) -> Result<bool, Frame> {
    either(arg, "byte", "bit")
}

/// A range resolved to bytes, with masks of the out-of-range bits of its
/// first and last byte (bit ranges only). `None` if empty.
struct ByteRange {
    start: usize,
    end: usize,
    first_mask: u8,
    last_mask: u8,
}

impl ByteRange {
    /// Every byte of `p`; `None` for an empty string.
    fn whole(p: &[u8]) -> Option<ByteRange> {
        (!p.is_empty()).then(|| ByteRange {
            start: 0,
            end: p.len() - 1,
            first_mask: 0,
            last_mask: 0,
        })
    }
}

/// Redis' range arithmetic shared by BITCOUNT and BITPOS: negative indexes
/// from the end, clamping, then bit indexes turned into bytes and edge masks.
fn resolve_range(len: usize, mut start: i64, mut end: i64, is_bit: bool) -> Option<ByteRange> {
    let mut total = len as i64;
    if is_bit {
        total <<= 3;
    }
    if start < 0 {
        start = start.saturating_add(total);
    }
    if end < 0 {
        end = end.saturating_add(total);
    }
    start = start.max(0);
    end = end.max(0);
    if end >= total {
        end = total - 1;
    }
    let (mut first_mask, mut last_mask) = (0u8, 0u8);
    if is_bit && start <= end {
        first_mask = !((1u16 << (8 - (start & 7))) - 1) as u8;
        last_mask = ((1u16 << (7 - (end & 7))) - 1) as u8;
        start >>= 3;
        end >>= 3;
    }
    // 0 <= start <= end < len once non-empty.
    (start <= end).then_some(ByteRange {
        start: start as usize,
        end: end as usize,
        first_mask,
        last_mask,
    })
}

fn bitcount(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let argc = args.len();
    let count = |p: &[u8]| -> Result<i64, Frame> {
        let range = match argc {
            2 => ByteRange::whole(p),
            4 | 5 => {
                let start = arg_i64(&args[2])?;
                let end = arg_i64(&args[3])?;
                if start < 0 && end < 0 && start > end {
                    return Ok(0);
                }
                let is_bit = match args.get(4) {
                    Some(unit) => unit_is_bit(unit)?,
                    None => false,
                };
                resolve_range(p.len(), start, end, is_bit)
            }
            _ => return Err(Frame::err(SYNTAX)),
        };
        let Some(r) = range else {
            return Ok(0);
        };
        let bytes = p.get(r.start..=r.end).unwrap_or(&[]);
        let mut n: i64 = bytes.iter().map(|b| b.count_ones() as i64).sum();
        n -= (byte_at(p, (r.start as u64) << 3) & r.first_mask).count_ones() as i64;
        n -= (byte_at(p, (r.end as u64) << 3) & r.last_mask).count_ones() as i64;
        Ok(n)
    };
    match read_bytes(ctx, &args[1], count) {
        Ok(None) => Frame::Integer(0),
        Ok(Some(Ok(n))) => Frame::Integer(n),
        Ok(Some(Err(e))) | Err(e) => e,
    }
}

/// `redisBitpos`: the first bit equal to `bit` in `s`; for a clear bit the
/// string is taken as zero-padded (so `8 * len` when every bit is set), for
/// a set bit -1 when there is none.
fn first_bit(s: &[u8], bit: bool) -> i64 {
    for (i, &b) in s.iter().enumerate() {
        let x = if bit { b } else { !b };
        if x != 0 {
            return i as i64 * 8 + x.leading_zeros() as i64;
        }
    }
    if bit {
        -1
    } else {
        s.len() as i64 * 8
    }
}

fn bitpos(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let bit = match arg_i64(&args[2]) {
        Ok(b @ (0 | 1)) => b == 1,
        Ok(_) => return Frame::err("ERR The bit argument must be 1 or 0."),
        Err(e) => return e,
    };
    let argc = args.len();
    let find = |p: &[u8]| -> Result<i64, Frame> {
        let mut end_given = false;
        let range = match argc {
            3 => ByteRange::whole(p),
            4..=6 => {
                let start = arg_i64(&args[3])?;
                let is_bit = match args.get(5) {
                    Some(unit) => unit_is_bit(unit)?,
                    None => false,
                };
                let end = match args.get(4) {
                    Some(e) => {
                        end_given = true;
                        arg_i64(e)?
                    }
                    None => i64::MAX,
                };
                resolve_range(p.len(), start, end, is_bit)
            }
            _ => return Err(Frame::err(SYNTAX)),
        };
        let Some(r) = range else {
            return Ok(-1);
        };
        Ok(bitpos_in(p, r, bit, end_given))
    };
    match read_bytes(ctx, &args[1], find) {
        // A missing key is an endless run of clear bits.
        Ok(None) => Frame::Integer(if bit { -1 } else { 0 }),
        Ok(Some(Ok(n))) => Frame::Integer(n),
        Ok(Some(Err(e))) | Err(e) => e,
    }
}

/// The search of `bitposCommand` over a non-empty byte range: the masked
/// first byte, the whole middle bytes, then the masked last byte, with its
/// rule that a clear bit found just past an explicit end means none.
fn bitpos_in(p: &[u8], r: ByteRange, bit: bool, end_given: bool) -> i64 {
    let mask_in = |b: u8, mask: u8| if bit { b & !mask } else { b | mask };
    let mut start = r.start;
    let mut bytes = r.end - r.start + 1;
    let byte = |i: usize| p.get(i).copied().unwrap_or(0);
    let pos = 'found: {
        if r.first_mask != 0 {
            let mut c = mask_in(byte(start), r.first_mask);
            if r.last_mask != 0 && bytes == 1 {
                c = mask_in(c, r.last_mask);
            }
            let pos = first_bit(&[c], bit);
            if bytes == 1 || (pos != -1 && pos != 8) {
                break 'found pos;
            }
            start += 1;
            bytes -= 1;
        }
        let cur = bytes - usize::from(r.last_mask != 0);
        if cur > 0 {
            let pos = first_bit(p.get(start..start + cur).unwrap_or(&[]), bit);
            if bytes == cur || (pos != -1 && pos != (cur as i64) << 3) {
                break 'found pos;
            }
            start += cur;
            bytes -= cur;
        }
        first_bit(&[mask_in(byte(r.end), r.last_mask)], bit)
    };
    if end_given && !bit && pos == (bytes as i64) << 3 {
        return -1;
    }
    if pos == -1 {
        -1
    } else {
        pos + ((start as i64) << 3)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum BitOp {
    And,
    Or,
    Xor,
    Not,
}

fn bitop(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let op = match cstr(&args[1]).to_ascii_lowercase().as_slice() {
        b"and" => BitOp::And,
        b"or" => BitOp::Or,
        b"xor" => BitOp::Xor,
        b"not" => BitOp::Not,
        _ => return Frame::err(SYNTAX),
    };
    if op == BitOp::Not && args.len() != 4 {
        return Frame::err("ERR BITOP NOT must be called with a single source key.");
    }
    let mut sources: Vec<Vec<u8>> = Vec::with_capacity(args.len() - 3);
    for key in &args[3..] {
        match read_bytes(ctx, key, |p| p.to_vec()) {
            Ok(v) => sources.push(v.unwrap_or_default()),
            Err(e) => return e,
        }
    }
    let maxlen = sources.iter().map(Vec::len).max().unwrap_or(0);
    let byte = |s: &Vec<u8>, j: usize| s.get(j).copied().unwrap_or(0);
    let db = ctx.db();
    let dest = &args[2];
    if maxlen == 0 {
        if ctx.srv.delete(db, dest, DeleteCause::Del) {
            ctx.notify(ev::GENERIC, "del", dest);
        }
        return Frame::Integer(0);
    }
    let mut res = Vec::with_capacity(maxlen);
    for j in 0..maxlen {
        let mut out = sources.first().map_or(0, |s| byte(s, j));
        if op == BitOp::Not {
            out = !out;
        }
        for s in sources.iter().skip(1) {
            match op {
                BitOp::And => out &= byte(s, j),
                BitOp::Or => out |= byte(s, j),
                BitOp::Xor => out ^= byte(s, j),
                BitOp::Not => {}
            }
        }
        res.push(out);
    }
    // `setKey`, which looks the destination up for writing first.
    ctx.srv.lookup_write(db, dest);
    ctx.srv
        .set_key(db, dest, Value::String(RString::Raw(res)), false);
    ctx.notify(ev::STRING, "set", dest);
    Frame::Integer(maxlen as i64)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Overflow {
    Wrap,
    Sat,
    Fail,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FieldOp {
    Get,
    Set,
    IncrBy,
}

/// One parsed BITFIELD operation.
struct Field {
    op: FieldOp,
    offset: u64,
    value: i64,
    overflow: Overflow,
    bits: u32,
    signed: bool,
}

/// `getBitfieldTypeFromArgument`: `i1`..`i64` or `u1`..`u63`; the width is
/// read as a C string after the sign letter.
fn field_type(arg: &[u8]) -> Result<(bool, u32), Frame> {
    let signed = match arg.first() {
        Some(b'i') => true,
        Some(b'u') => false,
        _ => return Err(Frame::err(BAD_TYPE)),
    };
    let max = if signed { 64 } else { 63 };
    match parse_i64(cstr(&arg[1..])) {
        Some(bits) if (1..=max).contains(&bits) => Ok((signed, bits as u32)),
        _ => Err(Frame::err(BAD_TYPE)),
    }
}

/// `getUnsignedBitfield`, zero past the end of `p`.
fn get_unsigned(p: &[u8], offset: u64, bits: u32) -> u64 {
    let mut v = 0u64;
    for j in 0..bits as u64 {
        let o = offset + j;
        let bit = (byte_at(p, o) >> (7 - (o & 7))) & 1;
        v = (v << 1) | bit as u64;
    }
    v
}

/// `getSignedBitfield`: the unsigned read, sign-extended.
fn get_signed(p: &[u8], offset: u64, bits: u32) -> i64 {
    let mut v = get_unsigned(p, offset, bits) as i64;
    if bits < 64 && v & (1i64 << (bits - 1)) != 0 {
        v |= -1i64 << bits;
    }
    v
}

/// `setUnsignedBitfield`: the low `bits` bits of `value`, most significant first.
fn set_bits(p: &mut [u8], offset: u64, bits: u32, value: u64) {
    for j in 0..bits as u64 {
        let o = offset + j;
        let bit = ((value >> (bits as u64 - 1 - j)) & 1) as u8;
        let shift = 7 - (o & 7) as u8;
        if let Some(b) = usize::try_from(o >> 3).ok().and_then(|i| p.get_mut(i)) {
            *b = (*b & !(1 << shift)) | (bit << shift);
        }
    }
}

/// `checkSignedBitfieldOverflow`: 0, 1 (over) or -1 (under), and the value
/// to store instead under WRAP or SAT. Redis' arithmetic is kept, quirks
/// included: it computes `max - value` in unsigned arithmetic, so SET of a
/// value within 127 of `i64::MIN` into a narrower field counts as overflow
/// (SAT stores the maximum).
fn check_signed(value: i64, incr: i64, bits: u32, ow: Overflow) -> (i32, i64) {
    let max: i64 = if bits == 64 {
        i64::MAX
    } else {
        (1i64 << (bits - 1)) - 1
    };
    let min = -max - 1;
    let maxincr = (max as u64).wrapping_sub(value as u64) as i64;
    let minincr = min.wrapping_sub(value);
    let wrap = || {
        let c = (value as u64).wrapping_add(incr as u64);
        let c = if bits < 64 {
            let mask = u64::MAX << bits;
            if c & (1u64 << (bits - 1)) != 0 {
                c | mask
            } else {
                c & !mask
            }
        } else {
            c
        };
        c as i64
    };
    if value > max || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr) {
        (1, if ow == Overflow::Sat { max } else { wrap() })
    } else if value < min
        || (bits != 64 && incr < minincr)
        || (value < 0 && incr < 0 && incr < minincr)
    {
        (-1, if ow == Overflow::Sat { min } else { wrap() })
    } else {
        (0, 0)
    }
}

/// `checkUnsignedBitfieldOverflow`, like [`check_signed`] for `u1`..`u63`.
fn check_unsigned(value: u64, incr: i64, bits: u32, ow: Overflow) -> (i32, u64) {
    let max: u64 = (1u64 << bits) - 1;
    let maxincr = max.wrapping_sub(value) as i64;
    let minincr = value.wrapping_neg() as i64;
    let wrap = || value.wrapping_add(incr as u64) & !(u64::MAX << bits);
    if value > max || (incr > 0 && incr > maxincr) {
        (1, if ow == Overflow::Sat { max } else { wrap() })
    } else if incr < 0 && incr < minincr {
        (-1, if ow == Overflow::Sat { 0 } else { wrap() })
    } else {
        (0, 0)
    }
}

/// Runs one write operation on the string's bytes: its reply (nil when it
/// overflows under FAIL) and whether it changed the stored field.
fn field_write(p: &mut [u8], f: &Field) -> (Frame, bool) {
    // SET checks the new value as an increment of 0 to itself.
    let incr = f.op == FieldOp::IncrBy;
    let (overflow, old, new) = if f.signed {
        let old = get_signed(p, f.offset, f.bits);
        let (base, by) = if incr { (old, f.value) } else { (f.value, 0) };
        let (o, lim) = check_signed(base, by, f.bits, f.overflow);
        let new = if o != 0 { lim } else { base.wrapping_add(by) };
        (o, old as u64, new as u64)
    } else {
        let old = get_unsigned(p, f.offset, f.bits);
        let (base, by) = if incr {
            (old, f.value)
        } else {
            (f.value as u64, 0)
        };
        let (o, lim) = check_unsigned(base, by, f.bits, f.overflow);
        let new = if o != 0 {
            lim
        } else {
            base.wrapping_add(by as u64)
        };
        (o, old, new)
    };
    // INCRBY replies with the new value, SET with the old one.
    let reply = if incr { new } else { old } as i64;
    if overflow != 0 && f.overflow == Overflow::Fail {
        return (Frame::Null, false);
    }
    set_bits(p, f.offset, f.bits, new);
    (Frame::Integer(reply), old != new)
}

/// A GET operation's value, reading zeroes past the end of the string.
fn field_get(p: &[u8], f: &Field) -> Frame {
    if f.signed {
        Frame::Integer(get_signed(p, f.offset, f.bits))
    } else {
        Frame::Integer(get_unsigned(p, f.offset, f.bits) as i64)
    }
}

/// Parses BITFIELD's operations in Redis' order of checks: the operation
/// word and its argument count, the type, the offset, then the value.
fn parse_fields(srv: &Server, args: &[Vec<u8>]) -> Result<Vec<Field>, Frame> {
    let mut fields = Vec::new();
    let mut overflow = Overflow::Wrap;
    let mut j = 2;
    while j < args.len() {
        let remaining = args.len() - j - 1;
        let word = &args[j];
        let op = if opt_is(word, "get") && remaining >= 2 {
            FieldOp::Get
        } else if opt_is(word, "set") && remaining >= 3 {
            FieldOp::Set
        } else if opt_is(word, "incrby") && remaining >= 3 {
            FieldOp::IncrBy
        } else if opt_is(word, "overflow") && remaining >= 1 {
            let kinds = [
                ("wrap", Overflow::Wrap),
                ("sat", Overflow::Sat),
                ("fail", Overflow::Fail),
            ];
            overflow = opt_choice(&args[j + 1], &kinds)
                .ok_or_else(|| Frame::err("ERR Invalid OVERFLOW type specified"))?;
            j += 2;
            continue;
        } else {
            return Err(Frame::err(SYNTAX));
        };
        let (signed, bits) = field_type(&args[j + 1])?;
        let offset = bit_offset(srv, &args[j + 2], bits)?;
        let value = if op == FieldOp::Get {
            0
        } else {
            parse_i64(&args[j + 3]).ok_or_else(|| Frame::err(NOT_INTEGER))?
        };
        fields.push(Field {
            op,
            offset,
            value,
            overflow,
            bits,
            signed,
        });
        j += if op == FieldOp::Get { 3 } else { 4 };
    }
    Ok(fields)
}

fn bitfield(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    bitfield_generic(ctx, args, false)
}

fn bitfield_ro(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    bitfield_generic(ctx, args, true)
}

/// `bitfieldGeneric`: all operations are parsed before any runs.
fn bitfield_generic(ctx: &mut Ctx, args: &[Vec<u8>], read_only: bool) -> Frame {
    let fields = match parse_fields(ctx.srv, args) {
        Ok(f) => f,
        Err(e) => return e,
    };
    let key = &args[1];
    let writes: Vec<&Field> = fields.iter().filter(|f| f.op != FieldOp::Get).collect();
    if writes.is_empty() {
        let replies = read_bytes(ctx, key, |p| {
            fields.iter().map(|f| field_get(p, f)).collect::<Vec<_>>()
        });
        return match replies {
            Ok(Some(r)) => Frame::Array(r),
            Ok(None) => Frame::Array(fields.iter().map(|f| field_get(&[], f)).collect()),
            Err(e) => e,
        };
    }
    if read_only {
        return Frame::err("ERR BITFIELD_RO only supports the GET subcommand");
    }
    let highest = writes
        .iter()
        .map(|f| f.offset + f.bits as u64 - 1)
        .max()
        .unwrap_or(0);
    let dirty = match string_for_bit_write(ctx, key, highest) {
        Ok(d) => d,
        Err(e) => return e,
    };
    let db = ctx.db();
    let outcome = ctx.srv.dbs[db].with_mut(key, |obj| {
        let p = unshare(obj)?;
        let mut changes = 0;
        let replies = fields
            .iter()
            .map(|f| match f.op {
                FieldOp::Get => field_get(p, f),
                _ => {
                    let (reply, changed) = field_write(p, f);
                    // A fresh or grown string counts every stored write.
                    if changed || (dirty && !matches!(reply, Frame::Null)) {
                        changes += 1;
                    }
                    reply
                }
            })
            .collect::<Vec<_>>();
        Some((replies, changes))
    });
    let Some(Some((replies, changes))) = outcome else {
        return Frame::err(WRONGTYPE);
    };
    if changes > 0 || dirty {
        written(ctx.srv, db, key, changes > 0);
        // `server.dirty += changes`.
        crate::persist::adjust_changes(ctx.srv, changes as i64 - 1);
    }
    if changes > 0 {
        ctx.notify(ev::STRING, "setbit", key);
    }
    Frame::Array(replies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bit_pads_clear_bits_and_reports_missing_set_bits() {
        assert_eq!(first_bit(&[0xff, 0xf0], true), 0);
        assert_eq!(first_bit(&[0x00, 0x10], true), 11);
        assert_eq!(first_bit(&[0x00, 0x00], true), -1);
        assert_eq!(first_bit(&[0xff, 0xff], false), 16);
        assert_eq!(first_bit(&[0xff, 0xfe], false), 15);
    }

    #[test]
    fn signed_overflow_follows_redis_arithmetic() {
        assert_eq!(check_signed(127, 1, 8, Overflow::Wrap), (1, -128));
        assert_eq!(check_signed(127, 1, 8, Overflow::Sat), (1, 127));
        assert_eq!(check_signed(-128, -1, 8, Overflow::Sat), (-1, -128));
        assert_eq!(check_signed(-128, -1, 8, Overflow::Wrap), (-1, 127));
        assert_eq!(check_signed(i64::MAX, 1, 64, Overflow::Wrap), (1, i64::MIN));
        assert_eq!(check_signed(5, 3, 64, Overflow::Wrap), (0, 0));
        // Redis' unsigned `max - value` wraps for values near i64::MIN.
        assert_eq!(check_signed(i64::MIN, 0, 8, Overflow::Sat), (1, 127));
        assert_eq!(check_unsigned(255, 1, 8, Overflow::Wrap), (1, 0));
        assert_eq!(check_unsigned(0, -1, 8, Overflow::Sat), (-1, 0));
        assert_eq!(check_unsigned(u64::MAX, 0, 8, Overflow::Wrap), (1, 255));
    }

    #[test]
    fn fields_round_trip_at_unaligned_offsets() {
        let mut p = vec![0u8; 16];
        set_bits(&mut p, 7, 5, 23);
        assert_eq!(&p[..2], &[0b0000_0001, 0b0111_0000]);
        assert_eq!(get_unsigned(&p, 7, 5), 23);
        set_bits(&mut p, 13, 64, (-5i64) as u64);
        assert_eq!(get_signed(&p, 13, 64), -5);
        assert_eq!(get_signed(&p, 13, 3), -1);
    }
}
