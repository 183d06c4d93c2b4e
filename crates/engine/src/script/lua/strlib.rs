//! Lua 5.1's string library (lstrlib.c semantics): `sub`, `rep`, `byte`, `format` with C conversions, and Lua patterns for `find`, `match`, `gmatch` and `gsub`.

use super::ast::LStr;
use super::auxlib::{check_int, check_num, check_str, new_lib, opt_int};
use super::number::{c_int, c_long, cstr, fmt_num, Spec};
use super::value::{first, Function, Native, Table, Value, Vm, R};

/// The `string` table.
pub fn library() -> Table {
    let mut t = new_lib(&[
        ("len", len),
        ("sub", sub),
        ("upper", |it, a, _| {
            let s = check_str(it, &a, 1)?;
            Ok(vec![Value::str(s.to_ascii_uppercase())])
        }),
        ("lower", |it, a, _| {
            let s = check_str(it, &a, 1)?;
            Ok(vec![Value::str(s.to_ascii_lowercase())])
        }),
        ("rep", rep),
        ("reverse", |it, a, _| {
            let s = check_str(it, &a, 1)?;
            Ok(vec![Value::str(
                s.iter().rev().copied().collect::<Vec<u8>>(),
            )])
        }),
        ("byte", byte),
        ("char", char_),
        ("format", format),
        ("find", |it, a, _| find_aux(it, a, true)),
        ("match", |it, a, _| find_aux(it, a, false)),
        ("gmatch", gmatch),
        ("gsub", gsub),
        ("dump", dump),
    ]);
    t.set_str("gfind", Native::value("gfind", gmatch));
    t
}

/// The header `luaU_dump` writes for this build of Lua 5.1 (64-bit,
/// little-endian, double numbers).
const DUMP_HEADER: &[u8] = b"\x1bLua\x51\x00\x01\x04\x08\x04\x08\x00";

/// `string.dump`. This interpreter has no bytecode, so a Lua function dumps
/// as the binary chunk header alone; nothing can load it back, just as Redis
/// 7.2's `loadstring` refuses every binary chunk. Natives cannot be dumped.
fn dump(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    match args.first() {
        Some(Value::Func(f)) => match &**f {
            Function::Lua { .. } => Ok(vec![Value::str(DUMP_HEADER)]),
            Function::Native(_) => Err(it.rt_error("unable to dump given function")),
        },
        v => Err(it.arg_error(
            1,
            &format!("function expected, got {}", super::auxlib::type_name_of(v)),
        )),
    }
}

/// `posrelat`: a negative position counts from the end; 0 if before the start.
fn posrelat(pos: i64, len: usize) -> i64 {
    let p = if pos < 0 { pos + len as i64 + 1 } else { pos };
    p.max(0)
}

fn len(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let s = check_str(it, &a, 1)?;
    Ok(vec![Value::Num(s.len() as f64)])
}

fn sub(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let s = check_str(it, &a, 1)?;
    let l = s.len();
    let mut i = posrelat(check_int(it, &a, 2)?, l);
    let mut j = posrelat(opt_int(it, &a, 3, -1)?, l);
    if i < 1 {
        i = 1;
    }
    if j > l as i64 {
        j = l as i64;
    }
    if i <= j {
        Ok(vec![Value::str(&s[i as usize - 1..j as usize])])
    } else {
        Ok(vec![Value::str("")])
    }
}

fn rep(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let s = check_str(it, &a, 1)?;
    let n = check_int(it, &a, 2)?;
    if n <= 0 || s.is_empty() {
        return Ok(vec![Value::str("")]);
    }
    let total = s.len() as u64 * n as u64;
    // Charged before allocating, so a huge repeat fails on the budget, not on memory.
    it.burn(total / 64)?;
    Ok(vec![Value::str(s.repeat(n as usize))])
}

fn byte(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let s = check_str(it, &a, 1)?;
    let l = s.len();
    let i = posrelat(opt_int(it, &a, 2, 1)?, l);
    let j = posrelat(opt_int(it, &a, 3, i)?, l);
    let i = i.max(1);
    let j = j.min(l as i64);
    if i > j {
        return Ok(Vec::new());
    }
    if j - i >= 8000 {
        return Err(it.rt_error("string slice too long"));
    }
    Ok(s[i as usize - 1..j as usize]
        .iter()
        .map(|&b| Value::Num(b as f64))
        .collect())
}

fn char_(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let mut out = Vec::with_capacity(a.len());
    for i in 1..=a.len() {
        let c = check_int(it, &a, i)?;
        if !(0..=255).contains(&c) {
            return Err(it.arg_error(i, "invalid value"));
        }
        out.push(c as u8);
    }
    Ok(vec![Value::str(out)])
}

/// `string.format`: C's conversions with Lua 5.1's limits (two-digit width
/// and precision, at most five flags) and `%q`.
fn format(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let fmt = check_str(it, &a, 1)?;
    let mut out = Vec::new();
    let mut arg = 1;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        // Flags, width and precision as `scanformat` reads them.
        let mut spec = Spec::default();
        let start = i;
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if i - start >= 6 {
            return Err(it.rt_error("invalid format (repeated flags)"));
        }
        let digits = |i: &mut usize| {
            let mut n = 0usize;
            for _ in 0..2 {
                match fmt.get(*i) {
                    Some(d) if d.is_ascii_digit() => {
                        n = n * 10 + (d - b'0') as usize;
                        *i += 1;
                    }
                    _ => break,
                }
            }
            n
        };
        spec.width = digits(&mut i);
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            spec.prec = Some(digits(&mut i));
        }
        if fmt.get(i).is_some_and(|d| d.is_ascii_digit()) {
            return Err(it.rt_error("invalid format (width or precision too long)"));
        }
        let conv = fmt.get(i).copied().unwrap_or(0);
        i += 1;
        arg += 1;
        if arg > a.len() {
            return Err(it.arg_error(arg, "no value"));
        }
        match conv {
            b'c' => {
                let n = check_num(it, &a, arg)?;
                out.extend(spec.text(&[c_int(n) as u8]));
            }
            b'd' | b'i' => {
                let n = check_num(it, &a, arg)?;
                out.extend_from_slice(spec.int(c_long(n)).as_bytes());
            }
            b'o' | b'u' | b'x' | b'X' => {
                let n = check_num(it, &a, arg)?;
                out.extend_from_slice(spec.unsigned(c_long(n) as u64, conv).as_bytes());
            }
            b'e' | b'E' | b'f' | b'g' | b'G' => {
                let n = check_num(it, &a, arg)?;
                out.extend_from_slice(spec.float(n, conv).as_bytes());
            }
            b'q' => {
                let s = check_str(it, &a, arg)?;
                quote(&s, &mut out);
            }
            b's' => {
                let s = check_str(it, &a, arg)?;
                if spec.prec.is_none() && s.len() >= 100 {
                    // Lua 5.1 keeps a long string whole (no `sprintf`).
                    out.extend_from_slice(&s);
                } else {
                    let mut body = cstr(&s);
                    if let Some(p) = spec.prec {
                        body = &body[..body.len().min(p)];
                    }
                    out.extend(spec.text(body));
                }
            }
            other => {
                let shown = if other == 0 {
                    String::new()
                } else {
                    (other as char).to_string()
                };
                return Err(it.rt_error(&format!("invalid option '%{shown}' to 'format'")));
            }
        }
        it.burn(out.len() as u64 / 256)?;
    }
    Ok(vec![Value::str(out)])
}

/// `%q`: a Lua string literal that reads back as the same bytes.
fn quote(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &c in s {
        match c {
            b'"' | b'\\' | b'\n' => {
                out.push(b'\\');
                out.push(c);
            }
            b'\r' => out.extend_from_slice(b"\\r"),
            0 => out.extend_from_slice(b"\\000"),
            c => out.push(c),
        }
    }
    out.push(b'"');
}

// ---------------------------------------------------------------------------
// Patterns.

const MAX_CAPTURES: usize = 32;
const CAP_UNFINISHED: isize = -1;
const CAP_POSITION: isize = -2;
/// Recursion bound of the matcher (real Lua 5.1 has none and can crash).
const MAX_MATCH_DEPTH: usize = 200;

struct Matcher<'a> {
    src: &'a [u8],
    pat: &'a [u8],
    level: usize,
    capture: [(usize, isize); MAX_CAPTURES],
    depth: usize,
    steps: u64,
}

type M<T> = Result<T, String>;

fn class_matches(c: u8, cl: u8) -> bool {
    let res = match cl.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c.is_ascii_control(),
        b'd' => c.is_ascii_digit(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return cl == c,
    };
    if cl.is_ascii_uppercase() {
        !res
    } else {
        res
    }
}

impl<'a> Matcher<'a> {
    fn new(src: &'a [u8], pat: &'a [u8]) -> Self {
        Matcher {
            src,
            pat,
            level: 0,
            capture: [(0, 0); MAX_CAPTURES],
            depth: 0,
            steps: 0,
        }
    }

    fn pat_at(&self, p: usize) -> u8 {
        self.pat.get(p).copied().unwrap_or(0)
    }

    /// Index just past the single-char class at `p`.
    fn class_end(&self, mut p: usize) -> M<usize> {
        let c = self.pat_at(p);
        p += 1;
        if c == b'%' {
            if p >= self.pat.len() {
                return Err("malformed pattern (ends with '%')".into());
            }
            return Ok(p + 1);
        }
        if c == b'[' {
            if self.pat_at(p) == b'^' {
                p += 1;
            }
            loop {
                if p >= self.pat.len() {
                    return Err("malformed pattern (missing ']')".into());
                }
                let c = self.pat[p];
                p += 1;
                if c == b'%' && p < self.pat.len() {
                    p += 1;
                }
                if self.pat_at(p) == b']' {
                    break;
                }
            }
            return Ok(p + 1);
        }
        Ok(p)
    }

    /// `matchbracketclass`: `p` at `[`, `ec` at the closing `]`.
    fn bracket(&self, c: u8, mut p: usize, ec: usize) -> bool {
        let mut sig = true;
        if self.pat_at(p + 1) == b'^' {
            sig = false;
            p += 1;
        }
        p += 1;
        while p < ec {
            if self.pat[p] == b'%' {
                p += 1;
                if class_matches(c, self.pat_at(p)) {
                    return sig;
                }
            } else if self.pat_at(p + 1) == b'-' && p + 2 < ec {
                if self.pat[p] <= c && c <= self.pat[p + 2] {
                    return sig;
                }
                p += 2;
            } else if self.pat[p] == c {
                return sig;
            }
            p += 1;
        }
        !sig
    }

    fn single(&self, s: usize, p: usize, ep: usize) -> bool {
        let Some(&c) = self.src.get(s) else {
            return false;
        };
        match self.pat_at(p) {
            b'.' => true,
            b'%' => class_matches(c, self.pat_at(p + 1)),
            b'[' => self.bracket(c, p, ep - 1),
            pc => pc == c,
        }
    }

    fn do_match(&mut self, s: usize, p: usize) -> M<Option<usize>> {
        self.depth += 1;
        if self.depth > MAX_MATCH_DEPTH {
            return Err("pattern too complex".into());
        }
        let r = self.match_inner(s, p);
        self.depth -= 1;
        r
    }

    fn match_inner(&mut self, mut s: usize, mut p: usize) -> M<Option<usize>> {
        loop {
            self.steps += 1;
            if p >= self.pat.len() {
                return Ok(Some(s));
            }
            match self.pat[p] {
                b'(' => {
                    return if self.pat_at(p + 1) == b')' {
                        self.start_capture(s, p + 2, CAP_POSITION)
                    } else {
                        self.start_capture(s, p + 1, CAP_UNFINISHED)
                    };
                }
                b')' => return self.end_capture(s, p + 1),
                b'%' if self.pat_at(p + 1) == b'b' => match self.balance(s, p + 2)? {
                    Some(e) => {
                        s = e;
                        p += 4;
                        continue;
                    }
                    None => return Ok(None),
                },
                b'%' if self.pat_at(p + 1) == b'f' => {
                    p += 2;
                    if self.pat_at(p) != b'[' {
                        return Err("missing '[' after '%f' in pattern".into());
                    }
                    let ep = self.class_end(p)?;
                    let prev = if s == 0 { 0 } else { self.src[s - 1] };
                    let cur = self.src.get(s).copied().unwrap_or(0);
                    if !self.bracket(prev, p, ep - 1) && self.bracket(cur, p, ep - 1) {
                        p = ep;
                        continue;
                    }
                    return Ok(None);
                }
                b'%' if self.pat_at(p + 1).is_ascii_digit() => {
                    match self.match_capture(s, self.pat_at(p + 1))? {
                        Some(e) => {
                            s = e;
                            p += 2;
                            continue;
                        }
                        None => return Ok(None),
                    }
                }
                b'$' if p + 1 == self.pat.len() => {
                    return Ok((s == self.src.len()).then_some(s));
                }
                _ => {
                    let ep = self.class_end(p)?;
                    let m = self.single(s, p, ep);
                    match self.pat_at(ep) {
                        b'?' if ep < self.pat.len() => {
                            if m {
                                if let Some(r) = self.do_match(s + 1, ep + 1)? {
                                    return Ok(Some(r));
                                }
                            }
                            p = ep + 1;
                        }
                        b'*' if ep < self.pat.len() => return self.max_expand(s, p, ep),
                        b'+' if ep < self.pat.len() => {
                            return if m {
                                self.max_expand(s + 1, p, ep)
                            } else {
                                Ok(None)
                            };
                        }
                        b'-' if ep < self.pat.len() => return self.min_expand(s, p, ep),
                        _ => {
                            if !m {
                                return Ok(None);
                            }
                            s += 1;
                            p = ep;
                        }
                    }
                }
            }
        }
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> M<Option<usize>> {
        let mut i = 0;
        while self.single(s + i, p, ep) {
            i += 1;
        }
        loop {
            self.steps += 1;
            if let Some(r) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(r));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> M<Option<usize>> {
        loop {
            self.steps += 1;
            if let Some(r) = self.do_match(s, ep + 1)? {
                return Ok(Some(r));
            }
            if self.single(s, p, ep) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: isize) -> M<Option<usize>> {
        if self.level >= MAX_CAPTURES {
            return Err("too many captures".into());
        }
        self.capture[self.level] = (s, what);
        self.level += 1;
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.level -= 1;
        }
        Ok(r)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> M<Option<usize>> {
        let Some(l) = (0..self.level)
            .rev()
            .find(|&l| self.capture[l].1 == CAP_UNFINISHED)
        else {
            return Err("invalid pattern capture".into());
        };
        self.capture[l].1 = (s - self.capture[l].0) as isize;
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.capture[l].1 = CAP_UNFINISHED;
        }
        Ok(r)
    }

    fn balance(&self, s: usize, p: usize) -> M<Option<usize>> {
        if p + 1 >= self.pat.len() {
            return Err("unbalanced pattern".into());
        }
        if self.src.get(s) != Some(&self.pat[p]) {
            return Ok(None);
        }
        let (b, e) = (self.pat[p], self.pat[p + 1]);
        let mut cont = 1;
        let mut i = s + 1;
        while i < self.src.len() {
            let c = self.src[i];
            if c == e {
                cont -= 1;
                if cont == 0 {
                    return Ok(Some(i + 1));
                }
            } else if c == b {
                cont += 1;
            }
            i += 1;
        }
        Ok(None)
    }

    fn match_capture(&self, s: usize, l: u8) -> M<Option<usize>> {
        let l = (l as isize) - (b'1' as isize);
        if l < 0 || l as usize >= self.level || self.capture[l as usize].1 == CAP_UNFINISHED {
            return Err("invalid capture index".into());
        }
        let (start, len) = self.capture[l as usize];
        let len = len.max(0) as usize;
        if self.src.len() - s >= len && self.src[start..start + len] == self.src[s..s + len] {
            Ok(Some(s + len))
        } else {
            Ok(None)
        }
    }

    /// Capture `i` of a match `s..e` (the whole match when there are none).
    fn get_capture(&self, i: usize, s: usize, e: usize) -> M<Value> {
        if i >= self.level {
            if i == 0 {
                return Ok(Value::str(&self.src[s..e]));
            }
            return Err("invalid capture index".into());
        }
        let (start, len) = self.capture[i];
        match len {
            CAP_UNFINISHED => Err("unfinished capture".into()),
            CAP_POSITION => Ok(Value::Num((start + 1) as f64)),
            l => Ok(Value::str(&self.src[start..start + l as usize])),
        }
    }

    fn captures(&self, s: usize, e: usize, whole_if_none: bool) -> M<Vec<Value>> {
        let n = if self.level == 0 && whole_if_none {
            1
        } else {
            self.level
        };
        (0..n).map(|i| self.get_capture(i, s, e)).collect()
    }
}

const SPECIALS: &[u8] = b"^$*+?.([%-";

fn find_aux(it: &mut dyn Vm, a: Vec<Value>, find: bool) -> R<Vec<Value>> {
    let s = check_str(it, &a, 1)?;
    let p = check_str(it, &a, 2)?;
    let ls = s.len();
    let mut init = posrelat(opt_int(it, &a, 3, 1)?, ls) - 1;
    if init < 0 {
        init = 0;
    } else if init as usize > ls {
        init = ls as i64;
    }
    let init = init as usize;
    let pat = cstr(&p);
    let plain = a.get(3).is_some_and(|v| v.truthy());
    if find && (plain || !pat.iter().any(|c| SPECIALS.contains(c))) {
        // The plain search uses the whole pattern, NULs included.
        let pat = &p[..];
        let found = if pat.is_empty() {
            Some(init)
        } else {
            s[init..]
                .windows(pat.len())
                .position(|w| w == pat)
                .map(|i| i + init)
        };
        return Ok(match found {
            Some(i) => vec![
                Value::Num((i + 1) as f64),
                Value::Num((i + pat.len()) as f64),
            ],
            None => vec![Value::Nil],
        });
    }
    let (anchor, pat) = match pat.first() {
        Some(b'^') => (true, &pat[1..]),
        _ => (false, pat),
    };
    let mut m = Matcher::new(&s, pat);
    let mut s1 = init;
    loop {
        m.level = 0;
        let r = m.do_match(s1, 0).map_err(|e| it.rt_error(&e))?;
        it.burn(m.steps / 16)?;
        m.steps = 0;
        if let Some(e) = r {
            if find {
                let mut out = vec![Value::Num((s1 + 1) as f64), Value::Num(e as f64)];
                out.extend(m.captures(s1, e, false).map_err(|e| it.rt_error(&e))?);
                return Ok(out);
            }
            return m.captures(s1, e, true).map_err(|e| it.rt_error(&e));
        }
        s1 += 1;
        if anchor || s1 > ls {
            break;
        }
    }
    Ok(vec![Value::Nil])
}

fn gmatch(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let s = check_str(it, &a, 1)?;
    let p = check_str(it, &a, 2)?;
    Ok(vec![Native::with_state(
        "gmatch_aux",
        gmatch_aux,
        vec![Value::Str(s), Value::Str(p), Value::Num(0.0)],
    )])
}

fn gmatch_aux(it: &mut dyn Vm, _: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    let (s, p, pos) = {
        let st = me.state.borrow();
        let get = |i: usize| match st.get(i) {
            Some(Value::Str(s)) => s.clone(),
            _ => LStr::from(&b""[..]),
        };
        let pos = match st.get(2) {
            Some(Value::Num(n)) => *n as usize,
            _ => 0,
        };
        (get(0), get(1), pos)
    };
    let pat = cstr(&p);
    let mut m = Matcher::new(&s, pat);
    let mut src = pos;
    while src <= s.len() {
        m.level = 0;
        let r = m.do_match(src, 0).map_err(|e| it.rt_error(&e))?;
        it.burn(m.steps / 16 + 1)?;
        m.steps = 0;
        if let Some(e) = r {
            let next = if e == src { e + 1 } else { e };
            if let Some(slot) = me.state.borrow_mut().get_mut(2) {
                *slot = Value::Num(next as f64);
            }
            return m.captures(src, e, true).map_err(|e| it.rt_error(&e));
        }
        src += 1;
    }
    if let Some(slot) = me.state.borrow_mut().get_mut(2) {
        *slot = Value::Num((s.len() + 1) as f64);
    }
    Ok(Vec::new())
}

fn gsub(it: &mut dyn Vm, a: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let s = check_str(it, &a, 1)?;
    let p = check_str(it, &a, 2)?;
    let repl = a.get(2).cloned().unwrap_or_default();
    if !matches!(
        repl,
        Value::Num(_) | Value::Str(_) | Value::Table(_) | Value::Func(_)
    ) {
        return Err(it.arg_error(3, "string/function/table expected"));
    }
    let max_n = opt_int(it, &a, 4, s.len() as i64 + 1)?;
    let pat = cstr(&p);
    let (anchor, pat) = match pat.first() {
        Some(b'^') => (true, &pat[1..]),
        _ => (false, pat),
    };
    let mut m = Matcher::new(&s, pat);
    let mut out = Vec::new();
    let mut src = 0usize;
    let mut n = 0i64;
    while n < max_n {
        m.level = 0;
        let r = m.do_match(src, 0).map_err(|e| it.rt_error(&e))?;
        it.burn(m.steps / 16 + 1)?;
        m.steps = 0;
        if let Some(e) = r {
            n += 1;
            add_value(it, &m, src, e, &repl, &mut out)?;
        }
        match r {
            Some(e) if e > src => src = e,
            _ if src < s.len() => {
                out.push(s[src]);
                src += 1;
            }
            _ => break,
        }
        if anchor {
            break;
        }
    }
    out.extend_from_slice(&s[src.min(s.len())..]);
    Ok(vec![Value::str(out), Value::Num(n as f64)])
}

fn add_value(
    it: &mut dyn Vm,
    m: &Matcher,
    s: usize,
    e: usize,
    repl: &Value,
    out: &mut Vec<u8>,
) -> R<()> {
    let value = match repl {
        Value::Str(_) | Value::Num(_) => {
            let r = repl.to_str().unwrap_or_default();
            let mut i = 0;
            while i < r.len() {
                let c = r[i];
                i += 1;
                if c != b'%' {
                    out.push(c);
                    continue;
                }
                let Some(&d) = r.get(i) else {
                    // A trailing `%` adds the C string's terminator, as Lua 5.1 does.
                    out.push(0);
                    break;
                };
                i += 1;
                if !d.is_ascii_digit() {
                    out.push(d);
                } else if d == b'0' {
                    out.extend_from_slice(&m.src[s..e]);
                } else {
                    let v = m
                        .get_capture((d - b'1') as usize, s, e)
                        .map_err(|e| it.rt_error(&e))?;
                    out.extend_from_slice(&v.to_str().unwrap_or_default());
                }
            }
            it.burn(out.len() as u64 / 1024)?;
            return Ok(());
        }
        Value::Table(_) => {
            let k = m.get_capture(0, s, e).map_err(|e| it.rt_error(&e))?;
            it.get_index(repl, &k)?
        }
        _ => {
            let caps = m.captures(s, e, true).map_err(|e| it.rt_error(&e))?;
            first(it.call(repl, caps)?)
        }
    };
    match &value {
        Value::Nil | Value::Bool(false) => out.extend_from_slice(&m.src[s..e]),
        Value::Str(v) => out.extend_from_slice(v),
        Value::Num(n) => out.extend_from_slice(fmt_num(*n).as_bytes()),
        other => {
            return Err(it.rt_error(&format!(
                "invalid replacement value (a {})",
                other.type_name()
            )))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(s: &str, p: &str) -> Option<(usize, usize)> {
        let mut m = Matcher::new(s.as_bytes(), p.as_bytes());
        (0..=s.len()).find_map(|i| {
            m.level = 0;
            m.do_match(i, 0).unwrap().map(|e| (i, e))
        })
    }

    #[test]
    fn patterns() {
        assert_eq!(find("hello world", "o w"), Some((4, 7)));
        assert_eq!(find("key:123", "%d+"), Some((4, 7)));
        assert_eq!(find("aaa", "a-"), Some((0, 0)));
        assert_eq!(find("f(a(b)c)", "%b()"), Some((1, 8)));
        assert_eq!(find("THE (quick) fox", "%f[%a]%a+"), Some((0, 3)));
        assert_eq!(find("x = 10", "[%a_][%w_]*"), Some((0, 1)));
        assert_eq!(find("abc", "[^a]"), Some((1, 2)));
        assert_eq!(find("a]b", "[]]"), Some((1, 2)));
        assert_eq!(find("abab", "(ab)%1"), Some((0, 4)));
        let mut m = Matcher::new(b"x", b"[a");
        assert_eq!(
            m.do_match(0, 0),
            Err("malformed pattern (missing ']')".into())
        );
    }
}
