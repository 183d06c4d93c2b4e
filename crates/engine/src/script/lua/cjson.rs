//! `cjson`: JSON encoding and decoding as Redis' lua-cjson 2.1.0 does it (`%.14g` numbers, escaped `/`, sparse-array and depth checks, lenient numbers on decode, its error messages), with `cjson.null`.

use super::number::{fmt_g, fmt_num};
use super::value::{LuaError, Native, NativeFn, Table, Value, Vm, R};
use config::Config;

mod config;

/// The `cjson` table, with lua-cjson's configuration functions. `cjson.new`
/// is not provided. Settings last for the run (each run builds its globals
/// anew; Redis keeps them in its long-lived Lua state until SCRIPT FLUSH).
pub fn library() -> Table {
    let mut null = Table::new();
    null.userdata_null = true;
    let null = Table::value(null);
    // Every native shares `cjson.null` (JSON nulls decode to it) and the settings.
    let state = vec![null.clone(), Table::value(config::defaults())];
    let mut t = Table::new();
    let natives: [(&'static str, NativeFn); 9] = [
        ("encode", encode),
        ("decode", decode),
        ("encode_sparse_array", config::encode_sparse_array),
        ("encode_max_depth", config::encode_max_depth),
        ("decode_max_depth", config::decode_max_depth),
        ("encode_number_precision", config::encode_number_precision),
        ("encode_keep_buffer", config::encode_keep_buffer),
        ("encode_invalid_numbers", config::encode_invalid_numbers),
        ("decode_invalid_numbers", config::decode_invalid_numbers),
    ];
    for (name, f) in natives {
        t.set_str(name, Native::with_state(name, f, state.clone()));
    }
    t.set_str("_NAME", Value::str("cjson"));
    t.set_str("_VERSION", Value::str("2.1.0"));
    t.set_str("null", null);
    t
}

fn encode(it: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    if args.len() != 1 {
        return Err(it.arg_error(1, "expected 1 argument"));
    }
    let cfg = Config::of(me);
    let mut out = Vec::new();
    encode_value(it, &cfg, &args[0], 0, &mut out)?;
    Ok(vec![Value::str(out)])
}

fn cannot(it: &dyn Vm, v: &Value, reason: &str) -> LuaError {
    it.rt_error(&format!("Cannot serialise {}: {reason}", v.type_name()))
}

fn encode_value(
    it: &mut dyn Vm,
    cfg: &Config,
    v: &Value,
    depth: usize,
    out: &mut Vec<u8>,
) -> R<()> {
    it.burn(1)?;
    match v {
        Value::Str(s) => encode_string(s, out),
        Value::Num(n) => encode_number(it, cfg, v, *n, out)?,
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Nil => out.extend_from_slice(b"null"),
        Value::Table(t) if t.borrow().userdata_null => out.extend_from_slice(b"null"),
        Value::Table(t) => {
            let depth = depth + 1;
            if depth as i64 > cfg.encode_max_depth {
                return Err(it.rt_error(&format!("Cannot serialise, excessive nesting ({depth})")));
            }
            let entries = t.borrow().entries();
            match array_length(it, cfg, v, &entries)? {
                Some(len) if len > 0 => {
                    out.push(b'[');
                    for i in 1..=len {
                        if i > 1 {
                            out.push(b',');
                        }
                        let item = t.borrow().get_int(i);
                        encode_value(it, cfg, &item, depth, out)?;
                    }
                    out.push(b']');
                }
                _ => {
                    out.push(b'{');
                    for (i, (k, val)) in entries.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        match k {
                            Value::Num(n) => {
                                out.push(b'"');
                                encode_number(it, cfg, k, *n, out)?;
                                out.push(b'"');
                            }
                            Value::Str(s) => encode_string(s, out),
                            other => {
                                return Err(cannot(
                                    it,
                                    other,
                                    "table key must be a number or string",
                                ))
                            }
                        }
                        out.push(b':');
                        encode_value(it, cfg, val, depth, out)?;
                    }
                    out.push(b'}');
                }
            }
        }
        other => return Err(cannot(it, other, "type not supported")),
    }
    Ok(())
}

/// `lua_array_length`: the largest key if every key is an integer >= 1,
/// `None` for an object; an excessively sparse array is an error, or an
/// object if `encode_sparse_array` converts.
fn array_length(
    it: &dyn Vm,
    cfg: &Config,
    t: &Value,
    entries: &[(Value, Value)],
) -> R<Option<usize>> {
    let mut max = 0.0f64;
    let mut items = 0.0f64;
    for (k, _) in entries {
        match k {
            Value::Num(n) if *n != 0.0 && n.floor() == *n && *n >= 1.0 => {
                max = max.max(*n);
                items += 1.0;
            }
            _ => return Ok(None),
        }
    }
    let ratio = cfg.sparse_ratio as f64;
    if ratio > 0.0 && max > items * ratio && max > cfg.sparse_safe as f64 {
        if cfg.sparse_convert {
            return Ok(None);
        }
        return Err(cannot(it, t, "excessively sparse array"));
    }
    Ok(Some(max as usize))
}

/// `json_append_number`: NaN and Inf as `encode_invalid_numbers` says
/// (an error, C's spelling, or null), others `%.<precision>g`.
fn encode_number(it: &dyn Vm, cfg: &Config, v: &Value, n: f64, out: &mut Vec<u8>) -> R<()> {
    if !n.is_finite() {
        let text: &[u8] = match cfg.encode_invalid {
            0 => return Err(cannot(it, v, "must not be NaN or Inf")),
            1 if n.is_nan() => b"nan",
            1 if n > 0.0 => b"inf",
            1 => b"-inf",
            _ => b"null",
        };
        out.extend_from_slice(text);
        return Ok(());
    }
    if cfg.precision == 14 {
        out.extend_from_slice(fmt_num(n).as_bytes());
    } else {
        out.extend_from_slice(fmt_g(n, cfg.precision as usize, false, false).as_bytes());
    }
    Ok(())
}

/// `json_append_string`: lua-cjson's escapes (`/` too); bytes >= 0x80 as they are.
fn encode_string(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &c in s {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'/' => out.extend_from_slice(b"\\/"),
            8 => out.extend_from_slice(b"\\b"),
            9 => out.extend_from_slice(b"\\t"),
            10 => out.extend_from_slice(b"\\n"),
            12 => out.extend_from_slice(b"\\f"),
            13 => out.extend_from_slice(b"\\r"),
            c if c < 0x20 || c == 0x7f => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            c => out.push(c),
        }
    }
    out.push(b'"');
}

// ---------------------------------------------------------------------------
// Decoding.

/// A token as lua-cjson names it in messages.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    ObjBegin,
    ObjEnd,
    ArrBegin,
    ArrEnd,
    Str(Vec<u8>),
    Num(f64),
    Bool(bool),
    Null,
    Colon,
    Comma,
    End,
    Error(&'static str),
}

impl Tok {
    fn name(&self) -> &'static str {
        match self {
            Tok::ObjBegin => "T_OBJ_BEGIN",
            Tok::ObjEnd => "T_OBJ_END",
            Tok::ArrBegin => "T_ARR_BEGIN",
            Tok::ArrEnd => "T_ARR_END",
            Tok::Str(_) => "T_STRING",
            Tok::Num(_) => "T_NUMBER",
            Tok::Bool(_) => "T_BOOLEAN",
            Tok::Null => "T_NULL",
            Tok::Colon => "T_COLON",
            Tok::Comma => "T_COMMA",
            Tok::End => "T_END",
            Tok::Error(e) => e,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
    null: Value,
    /// `decode_max_depth`.
    max_depth: i64,
    /// `decode_invalid_numbers`: strtod's extra forms (hex, inf, nan, `+1`, `01`) are read.
    lenient: bool,
}

impl Parser<'_> {
    /// The next token and the index it starts at (or where its error is).
    fn next(&mut self) -> (Tok, usize) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(&c) = self.s.get(self.pos) else {
            return (Tok::End, start);
        };
        let single = match c {
            b'{' => Some(Tok::ObjBegin),
            b'}' => Some(Tok::ObjEnd),
            b'[' => Some(Tok::ArrBegin),
            b']' => Some(Tok::ArrEnd),
            b':' => Some(Tok::Colon),
            b',' => Some(Tok::Comma),
            _ => None,
        };
        if let Some(t) = single {
            self.pos += 1;
            return (t, start);
        }
        if c == b'"' {
            return self.string(start);
        }
        let number = c == b'-' || c.is_ascii_digit();
        if number && !self.lenient && self.lenient_number() {
            return (Tok::Error("invalid number"), self.pos);
        }
        if number || (self.lenient && self.lenient_number()) {
            let r = crate::num::double::strtod(&self.s[self.pos..]);
            if r.len == 0 {
                return (Tok::Error("invalid number"), self.pos);
            }
            self.pos += r.len;
            return (Tok::Num(r.value), start);
        }
        for (word, tok) in [
            (&b"true"[..], Tok::Bool(true)),
            (b"false", Tok::Bool(false)),
            (b"null", Tok::Null),
        ] {
            if self.s[self.pos..].starts_with(word) {
                self.pos += word.len();
                return (tok, start);
            }
        }
        (Tok::Error("invalid token"), start)
    }

    /// `json_is_invalid_number`: the forms strict JSON refuses but lua-cjson
    /// reads by default.
    fn lenient_number(&self) -> bool {
        let mut p = &self.s[self.pos..];
        if p.first() == Some(&b'+') {
            return true;
        }
        if p.first() == Some(&b'-') {
            p = &p[1..];
        }
        match p.first() {
            Some(b'0') => p
                .get(1)
                .is_some_and(|c| (c | 0x20) == b'x' || c.is_ascii_digit()),
            _ => {
                let lower: Vec<u8> = p.iter().take(3).map(|c| c.to_ascii_lowercase()).collect();
                lower == b"inf" || lower == b"nan"
            }
        }
    }

    fn string(&mut self, start: usize) -> (Tok, usize) {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.s.get(self.pos) else {
                return (Tok::Error("unexpected end of string"), self.pos);
            };
            if c == 0 {
                return (Tok::Error("unexpected end of string"), self.pos);
            }
            if c == b'"' {
                self.pos += 1;
                return (Tok::Str(out), start);
            }
            if c != b'\\' {
                out.push(c);
                self.pos += 1;
                continue;
            }
            let e = self.s.get(self.pos + 1).copied().unwrap_or(0);
            let mapped = match e {
                b'"' => b'"',
                b'\\' => b'\\',
                b'/' => b'/',
                b'b' => 8,
                b'f' => 12,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'u' => {
                    match self.unicode_escape() {
                        Some(cp) => {
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(cp.encode_utf8(&mut buf).as_bytes());
                        }
                        None => return (Tok::Error("invalid unicode escape code"), self.pos),
                    }
                    continue;
                }
                _ => return (Tok::Error("invalid escape code"), self.pos),
            };
            out.push(mapped);
            self.pos += 2;
        }
    }

    /// `\uXXXX` (a surrogate pair takes two); the position moves past it.
    fn unicode_escape(&mut self) -> Option<char> {
        let hex = |s: &[u8], at: usize| -> Option<u32> {
            let h = s.get(at..at + 4)?;
            u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
        };
        let hi = hex(self.s, self.pos + 2)?;
        let mut len = 6;
        let cp = match hi {
            0xd800..=0xdbff => {
                if self.s.get(self.pos + 6..self.pos + 8) != Some(b"\\u") {
                    return None;
                }
                let lo = hex(self.s, self.pos + 8)?;
                if !(0xdc00..=0xdfff).contains(&lo) {
                    return None;
                }
                len = 12;
                0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
            }
            0xdc00..=0xdfff => return None,
            cp => cp,
        };
        self.pos += len;
        char::from_u32(cp)
    }

    fn value(&mut self, it: &mut dyn Vm, tok: Tok, at: usize) -> R<Value> {
        it.burn(1)?;
        Ok(match tok {
            Tok::Str(s) => Value::str(s),
            Tok::Num(n) => Value::Num(n),
            Tok::Bool(b) => Value::Bool(b),
            Tok::Null => self.null.clone(),
            Tok::ObjBegin => self.object(it)?,
            Tok::ArrBegin => self.array(it)?,
            other => return Err(expected(it, "value", &other, at)),
        })
    }

    fn descend(&mut self, it: &dyn Vm) -> R<()> {
        self.depth += 1;
        if self.depth as i64 > self.max_depth {
            return Err(it.rt_error(&format!(
                "Found too many nested data structures ({}) at character {}",
                self.depth, self.pos
            )));
        }
        Ok(())
    }

    /// The members of an object or array whose opening token was just
    /// read: `member` reads one from its first token; commas separate them
    /// until `end`.
    fn members(
        &mut self,
        it: &mut dyn Vm,
        end: Tok,
        what: &str,
        mut member: impl FnMut(&mut Self, &mut dyn Vm, Tok, usize) -> R<()>,
    ) -> R<()> {
        self.descend(it)?;
        let (mut tok, mut at) = self.next();
        if tok != end {
            loop {
                member(self, it, tok, at)?;
                let (sep, sat) = self.next();
                if sep == end {
                    break;
                }
                if sep != Tok::Comma {
                    return Err(expected(it, what, &sep, sat));
                }
                (tok, at) = self.next();
            }
        }
        self.depth -= 1;
        Ok(())
    }

    fn object(&mut self, it: &mut dyn Vm) -> R<Value> {
        let mut t = Table::new();
        self.members(it, Tok::ObjEnd, "comma or object end", |p, it, tok, at| {
            let Tok::Str(key) = tok else {
                return Err(expected(it, "object key string", &tok, at));
            };
            let (colon, cat) = p.next();
            if colon != Tok::Colon {
                return Err(expected(it, "colon", &colon, cat));
            }
            let (vt, vat) = p.next();
            let v = p.value(it, vt, vat)?;
            let _ = t.set(Value::str(key), v);
            Ok(())
        })?;
        Ok(Table::value(t))
    }

    fn array(&mut self, it: &mut dyn Vm) -> R<Value> {
        let mut items = Vec::new();
        self.members(it, Tok::ArrEnd, "comma or array end", |p, it, tok, at| {
            items.push(p.value(it, tok, at)?);
            Ok(())
        })?;
        Ok(Table::value(Table::from_array(items)))
    }
}

/// `json_throw_parse_error`.
fn expected(it: &dyn Vm, what: &str, found: &Tok, at: usize) -> LuaError {
    it.rt_error(&format!(
        "Expected {what} but found {} at character {}",
        found.name(),
        at + 1
    ))
}

fn decode(it: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    if args.len() != 1 {
        return Err(it.arg_error(1, "expected 1 argument"));
    }
    let Some(s) = args[0].to_str() else {
        let got = args[0].type_name();
        return Err(it.arg_error(1, &format!("string expected, got {got}")));
    };
    it.burn(s.len() as u64 / 64)?;
    let null = me.state.borrow().first().cloned().unwrap_or_default();
    let cfg = Config::of(me);
    // lua-cjson reads a C string: a NUL ends the text.
    let text = super::number::cstr(&s);
    let mut p = Parser {
        s: text,
        pos: 0,
        depth: 0,
        null,
        max_depth: cfg.decode_max_depth,
        lenient: cfg.decode_invalid,
    };
    let (tok, at) = p.next();
    let v = p.value(it, tok, at)?;
    let (end, eat) = p.next();
    if end != Tok::End {
        return Err(expected(it, "the end", &end, eat));
    }
    Ok(vec![v])
}
