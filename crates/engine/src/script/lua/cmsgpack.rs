//! `cmsgpack`: MessagePack as Redis' bundled lua-cmsgpack 0.4.0 writes and reads it (Lua 5.1 build: integral doubles pack as ints, others as float or double, tables as arrays only when keyed 1..n, nesting cut at 16 levels).

use super::auxlib::{check_int, check_str, opt_int};
use super::value::{LuaError, Native, Table, Value, Vm, R};

/// `LUACMSGPACK_MAX_NESTING`: a table this deep packs as nil, which is
/// how circular references end.
const MAX_NESTING: usize = 16;
/// `LUAI_MAXCSTACK`: the Lua stack a C function may fill. Unpacking
/// checks it for every value it pushes, so it bounds both the values one
/// call returns and how deep nested containers may go.
const MAX_C_STACK: usize = 8000;

/// The `cmsgpack` table (registered read-only with the other globals).
pub fn library() -> Table {
    let mut t = Table::new();
    t.set_str("pack", Native::value("pack", pack));
    t.set_str("unpack", Native::value("unpack", unpack));
    t.set_str("unpack_one", Native::value("unpack_one", unpack_one));
    t.set_str("unpack_limit", Native::value("unpack_limit", unpack_limit));
    t.set_str("_NAME", Value::str("cmsgpack"));
    t.set_str("_VERSION", Value::str("lua-cmsgpack 0.4.0"));
    t.set_str(
        "_COPYRIGHT",
        Value::str("Copyright (C) 2012, Salvatore Sanfilippo"),
    );
    t.set_str(
        "_DESCRIPTION",
        Value::str("MessagePack C implementation for Lua"),
    );
    t
}

/// `cmsgpack.pack(...)`: every argument packed, one after the other.
fn pack(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    if args.is_empty() {
        return Err(it.arg_error(0, "MessagePack pack needs input."));
    }
    let mut out = Vec::new();
    for v in &args {
        encode(it, v, 0, &mut out)?;
    }
    Ok(vec![Value::str(out)])
}

/// `mp_encode_lua_type`.
fn encode(it: &mut dyn Vm, v: &Value, level: usize, out: &mut Vec<u8>) -> R<()> {
    it.burn(1)?;
    match v {
        Value::Str(s) => encode_bytes(s, out),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::Num(n) => encode_number(*n, out),
        Value::Table(t) if !t.borrow().userdata_null && level < MAX_NESTING => {
            let entries = t.borrow().entries();
            if is_array(&entries) {
                // `lua_objlen` and `lua_gettable`: the border, read with metamethods.
                let len = t.borrow().border();
                encode_header(len, 0x90, 0xdc, 0xdd, out);
                for i in 1..=len {
                    let item = it.get_index(v, &Value::Num(i as f64))?;
                    encode(it, &item, level + 1, out)?;
                }
            } else {
                encode_header(entries.len(), 0x80, 0xde, 0xdf, out);
                for (k, val) in &entries {
                    encode(it, k, level + 1, out)?;
                    encode(it, val, level + 1, out)?;
                }
            }
        }
        // nil, functions, `cjson.null` (a userdata), and tables too deep.
        _ => out.push(0xc0),
    }
    Ok(())
}

/// `table_is_an_array`: every key a number that is a positive C `int`,
/// and as many keys as the largest (so none is missing). An empty table
/// is an (empty) array.
fn is_array(entries: &[(Value, Value)]) -> bool {
    let mut max = 0f64;
    for (k, _) in entries {
        match k {
            Value::Num(n) if *n > 0.0 && *n <= i32::MAX as f64 && n.fract() == 0.0 => {
                max = max.max(*n);
            }
            _ => return false,
        }
    }
    max == entries.len() as f64
}

/// `mp_encode_lua_number`: a double that a C `int64_t` holds exactly packs
/// as the smallest int; any other as a float when a C `float` holds it
/// exactly, else as a double.
fn encode_number(n: f64, out: &mut Vec<u8>) {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if n.is_finite() && n.fract() == 0.0 && (-TWO_63..TWO_63).contains(&n) {
        encode_int(n as i64, out);
    } else if (n as f32) as f64 == n {
        out.push(0xca);
        out.extend_from_slice(&(n as f32).to_be_bytes());
    } else {
        out.push(0xcb);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

/// `mp_encode_int`: fixnums, then the narrowest signed or unsigned width.
fn encode_int(n: i64, out: &mut Vec<u8>) {
    if n >= 0 {
        match n {
            0..=127 => out.push(n as u8),
            128..=0xff => out.extend_from_slice(&[0xcc, n as u8]),
            0x100..=0xffff => {
                out.push(0xcd);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            0x1_0000..=0xffff_ffff => {
                out.push(0xce);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
            _ => {
                out.push(0xcf);
                out.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
    } else if n >= -32 {
        out.push(n as i8 as u8);
    } else if n >= -128 {
        out.extend_from_slice(&[0xd0, n as i8 as u8]);
    } else if n >= -32768 {
        out.push(0xd1);
        out.extend_from_slice(&(n as i16).to_be_bytes());
    } else if n >= -2_147_483_648 {
        out.push(0xd2);
        out.extend_from_slice(&(n as i32).to_be_bytes());
    } else {
        out.push(0xd3);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

/// `mp_encode_bytes`: fixraw, then str 8/16/32 (lua-cmsgpack writes every
/// string as a MessagePack str, never bin).
fn encode_bytes(s: &[u8], out: &mut Vec<u8>) {
    let len = s.len();
    if len < 32 {
        out.push(0xa0 | len as u8);
    } else if len <= 0xff {
        out.extend_from_slice(&[0xd9, len as u8]);
    } else if len <= 0xffff {
        out.push(0xda);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0xdb);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    }
    out.extend_from_slice(s);
}

/// `mp_encode_array` / `mp_encode_map`: the fix form up to 15, then 16 or 32 bits.
fn encode_header(n: usize, fix: u8, w16: u8, w32: u8, out: &mut Vec<u8>) {
    if n <= 15 {
        out.push(fix | n as u8);
    } else if n <= 0xffff {
        out.push(w16);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(w32);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

/// `cmsgpack.unpack(s)`: every value in `s`.
fn unpack(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let stack = args.len().max(1);
    unpack_full(it, &args, stack, 0, 0)
}

/// `cmsgpack.unpack_one(s [, offset])`: the next offset (-1 at the end) and one value.
fn unpack_one(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let offset = opt_int(it, &args, 2, 0)?;
    unpack_full(it, &args[..args.len().min(1)], 1, 1, offset)
}

/// `cmsgpack.unpack_limit(s, limit [, offset])`: the next offset and up to `limit` values.
fn unpack_limit(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let limit = check_int(it, &args, 2)?;
    let offset = opt_int(it, &args, 3, 0)?;
    unpack_full(it, &args[..args.len().min(1)], 1, limit, offset)
}

/// `mp_unpack_full`: a limit and offset of 0 decode everything and return
/// no offset; otherwise the offset after the last value comes first.
/// `stack` is how many of the native's arguments stay on the Lua stack.
fn unpack_full(
    it: &mut dyn Vm,
    args: &[Value],
    stack: usize,
    limit: i64,
    offset: i64,
) -> R<Vec<Value>> {
    let s = check_str(it, args, 1)?;
    let len = s.len();
    let decode_all = limit == 0 && offset == 0;
    if offset < 0 || limit < 0 {
        // Redis prints the input's length where it means the limit.
        return Err(it.rt_error(&format!(
            "Invalid request to unpack with offset of {} and limit of {}.",
            offset as i32, len as i32
        )));
    }
    if offset as u64 > len as u64 {
        return Err(it.rt_error(&format!(
            "Start offset {} greater than input length {}.",
            offset as i32, len as i32
        )));
    }
    let limit = if decode_all { i32::MAX as i64 } else { limit };
    let mut cur = Cursor {
        s: &s,
        pos: offset as usize,
    };
    let mut out = Vec::new();
    while cur.pos < len && (out.len() as i64) < limit {
        let v = decode(it, &mut cur, stack + out.len()).map_err(|e| match e {
            Stop::Eof => it.rt_error("Missing bytes in input."),
            Stop::BadFormat => it.rt_error("Bad data format in input."),
            Stop::Lua(e) => e,
        })?;
        out.push(v);
    }
    if !decode_all {
        let next = if cur.pos == len { -1.0 } else { cur.pos as f64 };
        out.insert(0, Value::Num(next));
    }
    Ok(out)
}

/// Why decoding stopped: the cursor's two errors, or a Lua error.
enum Stop {
    Eof,
    BadFormat,
    Lua(LuaError),
}

impl From<LuaError> for Stop {
    fn from(e: LuaError) -> Stop {
        Stop::Lua(e)
    }
}

/// `mp_cur`: the input and how far it has been read.
struct Cursor<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    /// `mp_cur_need` then consume: the next `n` bytes, or EOF.
    fn take(&mut self, n: usize) -> Result<&[u8], Stop> {
        if self.s.len() - self.pos < n {
            return Err(Stop::Eof);
        }
        let b = &self.s[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }

    fn be(&mut self, n: usize) -> Result<u64, Stop> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, b| (acc << 8) | *b as u64))
    }
}

/// A container being filled while its items are decoded.
enum Open {
    /// `mp_decode_to_lua_array`: items keyed 1..len; on the Lua stack, the
    /// table and the next index.
    Array { t: Table, len: usize, next: usize },
    /// `mp_decode_to_lua_hash`: pairs set with `lua_settable` (a nil or NaN
    /// key is Lua's error); on the stack, the table and a pending key.
    Map {
        t: Table,
        left: usize,
        key: Option<Value>,
    },
}

impl Open {
    /// Lua stack slots this container holds while its next item is decoded.
    fn slots(&self) -> usize {
        match self {
            Open::Array { .. } => 2,
            Open::Map { key, .. } => 1 + key.is_some() as usize,
        }
    }
}

/// `mp_decode_to_lua_type`: one value, containers included. Decoded with
/// an explicit stack of open containers, so deep input cannot overflow
/// ours; the Lua stack Redis would use (`stack` slots below the value) is
/// bounded as `luaL_checkstack` bounds it.
fn decode(it: &mut dyn Vm, c: &mut Cursor, stack: usize) -> Result<Value, Stop> {
    let mut open: Vec<Open> = Vec::new();
    let mut height = stack;
    loop {
        let item = decode_one(it, c, height)?;
        let mut done = match item {
            Item::Value(v) => v,
            Item::Array(len) => {
                // lua_newtable, then luaL_checkstack for the index.
                if height + 2 > MAX_C_STACK {
                    return Err(Stop::Lua(
                        it.rt_error("stack overflow (in function mp_decode_to_lua_array)"),
                    ));
                }
                let o = Open::Array {
                    t: Table::new(),
                    len,
                    next: 1,
                };
                height += o.slots();
                open.push(o);
                if len > 0 {
                    continue;
                }
                close(&mut open, &mut height)
            }
            Item::Map(left) => {
                let o = Open::Map {
                    t: Table::new(),
                    left,
                    key: None,
                };
                height += o.slots();
                open.push(o);
                if left > 0 {
                    continue;
                }
                close(&mut open, &mut height)
            }
        };
        // Hand the finished value to its container; a container that is
        // then full is itself finished.
        loop {
            let Some(top) = open.last_mut() else {
                return Ok(done);
            };
            let full = match top {
                Open::Array { t, len, next } => {
                    t.set_int(*next, done);
                    *next += 1;
                    *next > *len
                }
                Open::Map { t, left, key } => match key.take() {
                    None => {
                        *key = Some(done);
                        height += 1;
                        false
                    }
                    Some(k) => {
                        height -= 1;
                        t.set(k, done).map_err(|m| Stop::Lua(it.vm_error(m)))?;
                        *left -= 1;
                        *left == 0
                    }
                },
            };
            if !full {
                break;
            }
            done = close(&mut open, &mut height);
        }
    }
}

/// Pops the innermost container, finished, as a value.
fn close(open: &mut Vec<Open>, height: &mut usize) -> Value {
    let o = open.pop().expect("a container is open");
    *height -= o.slots();
    match o {
        Open::Array { t, .. } | Open::Map { t, .. } => Table::value(t),
    }
}

/// What one tag (and its payload, for scalars) decodes to.
enum Item {
    Value(Value),
    Array(usize),
    Map(usize),
}

/// One value's tag at `c`: a scalar whole, or a container's length.
fn decode_one(it: &mut dyn Vm, c: &mut Cursor, stack: usize) -> Result<Item, Stop> {
    if c.pos >= c.s.len() {
        return Err(Stop::Eof);
    }
    if stack + 1 > MAX_C_STACK {
        return Err(Stop::Lua(it.rt_error(
            "stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)",
        )));
    }
    it.burn(1)?;
    let tag = c.s[c.pos];
    // The fixed-size forms need their whole length before anything is read.
    let v = match tag {
        0xcc => Value::Num(c.take(2)?[1] as f64),
        0xd0 => Value::Num(c.take(2)?[1] as i8 as f64),
        0xcd => Value::Num(u16::from_be_bytes(fixed(c, 3)?) as f64),
        0xd1 => Value::Num(i16::from_be_bytes(fixed(c, 3)?) as f64),
        0xce => Value::Num(u32::from_be_bytes(fixed(c, 5)?) as f64),
        0xd2 => Value::Num(i32::from_be_bytes(fixed(c, 5)?) as f64),
        // lua_pushunsigned is lua_pushinteger on 64-bit builds: above
        // 2^63 the value wraps negative.
        0xcf => Value::Num(i64::from_be_bytes(fixed(c, 9)?) as f64),
        0xd3 => Value::Num(i64::from_be_bytes(fixed(c, 9)?) as f64),
        0xc0 => {
            c.pos += 1;
            Value::Nil
        }
        0xc2 | 0xc3 => {
            c.pos += 1;
            Value::Bool(tag == 0xc3)
        }
        0xca => Value::Num(f32::from_be_bytes(fixed(c, 5)?) as f64),
        0xcb => Value::Num(f64::from_be_bytes(fixed(c, 9)?)),
        0xd9..=0xdb => {
            let width = match tag {
                0xd9 => 1,
                0xda => 2,
                _ => 4,
            };
            if c.s.len() - c.pos < 1 + width {
                return Err(Stop::Eof);
            }
            c.pos += 1;
            let len = c.be(width)? as usize;
            Value::str(c.take(len)?)
        }
        0xdc..=0xdf => {
            let width = if tag == 0xdc || tag == 0xde { 2 } else { 4 };
            if c.s.len() - c.pos < 1 + width {
                return Err(Stop::Eof);
            }
            c.pos += 1;
            let len = c.be(width)? as usize;
            return Ok(if tag <= 0xdd {
                Item::Array(len)
            } else {
                Item::Map(len)
            });
        }
        _ if tag & 0x80 == 0 => {
            c.pos += 1;
            Value::Num(tag as f64)
        }
        _ if tag & 0xe0 == 0xe0 => {
            c.pos += 1;
            Value::Num(tag as i8 as f64)
        }
        _ if tag & 0xe0 == 0xa0 => Value::str(&c.take(1 + (tag & 0x1f) as usize)?[1..]),
        _ if tag & 0xf0 == 0x90 => {
            c.pos += 1;
            return Ok(Item::Array((tag & 0xf) as usize));
        }
        _ if tag & 0xf0 == 0x80 => {
            c.pos += 1;
            return Ok(Item::Map((tag & 0xf) as usize));
        }
        _ => return Err(Stop::BadFormat),
    };
    Ok(Item::Value(v))
}

/// A tag byte and `N - 1` bytes after it, as an array for `from_be_bytes`.
fn fixed<const M: usize>(c: &mut Cursor, n: usize) -> Result<[u8; M], Stop> {
    let b = c.take(n)?;
    let mut a = [0u8; M];
    a.copy_from_slice(&b[1..]);
    Ok(a)
}
