//! The Lua 5.1 lexer (llex.c's rules): tokens with their line and source text, long brackets, escapes, and Lua's "near '...'" error messages.

use super::ast::{LStr, CHUNK};

/// A token. Names, strings and numbers carry their value; every other
/// token is a keyword or an operator.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Name(LStr),
    Str(LStr),
    Num(f64),
    And,
    Break,
    Do,
    Else,
    Elseif,
    End,
    False,
    For,
    Function,
    If,
    In,
    Local,
    Nil,
    Not,
    Or,
    Repeat,
    Return,
    Then,
    True,
    Until,
    While,
    /// `..`
    Concat,
    /// `...`
    Dots,
    /// `==`
    Eq,
    /// `>=`
    Ge,
    /// `<=`
    Le,
    /// `~=`
    Ne,
    /// Any one-character token: `+ - * / % ^ # < > = ( ) { } [ ] ; : , .`
    Char(u8),
    Eof,
}

const KEYWORDS: &[(&str, Tok)] = &[
    ("and", Tok::And),
    ("break", Tok::Break),
    ("do", Tok::Do),
    ("else", Tok::Else),
    ("elseif", Tok::Elseif),
    ("end", Tok::End),
    ("false", Tok::False),
    ("for", Tok::For),
    ("function", Tok::Function),
    ("if", Tok::If),
    ("in", Tok::In),
    ("local", Tok::Local),
    ("nil", Tok::Nil),
    ("not", Tok::Not),
    ("or", Tok::Or),
    ("repeat", Tok::Repeat),
    ("return", Tok::Return),
    ("then", Tok::Then),
    ("true", Tok::True),
    ("until", Tok::Until),
    ("while", Tok::While),
];

impl Tok {
    /// `luaX_token2str` for tokens without source text of their own.
    pub fn text(&self) -> String {
        match self {
            Tok::Concat => "..".into(),
            Tok::Dots => "...".into(),
            Tok::Eq => "==".into(),
            Tok::Ge => ">=".into(),
            Tok::Le => "<=".into(),
            Tok::Ne => "~=".into(),
            Tok::Eof => "<eof>".into(),
            Tok::Char(c) if c.is_ascii_control() => format!("char({c})"),
            Tok::Char(c) => (*c as char).to_string(),
            Tok::Name(n) | Tok::Str(n) => String::from_utf8_lossy(n).into_owned(),
            Tok::Num(n) => super::number::fmt_num(*n),
            kw => KEYWORDS
                .iter()
                .find(|(_, t)| t == kw)
                .map(|(s, _)| s.to_string())
                .unwrap_or_default(),
        }
    }
}

/// A token with where it was read: its line and its bytes in the source
/// (what Lua quotes after "near" for names, strings and numbers).
#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
    pub start: usize,
    pub end: usize,
}

/// Splits a script into tokens.
pub struct Lexer<'s> {
    src: &'s [u8],
    pos: usize,
    pub line: u32,
    /// The chunk name messages start with (`user_script`, `user_function`).
    pub chunk: &'static str,
}

impl<'s> Lexer<'s> {
    pub fn new(src: &'s [u8]) -> Lexer<'s> {
        Lexer {
            src,
            pos: 0,
            line: 1,
            chunk: CHUNK,
        }
    }

    fn cur(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn peek(&self, off: usize) -> Option<u8> {
        self.src.get(self.pos + off).copied()
    }

    /// `inclinenumber`: `\n`, `\r`, `\n\r` and `\r\n` each end one line.
    fn newline(&mut self) -> Result<(), String> {
        let old = self.cur();
        self.pos += 1;
        if matches!(self.cur(), Some(c @ (b'\n' | b'\r')) if Some(c) != old) {
            self.pos += 1;
        }
        self.line += 1;
        if self.line >= i32::MAX as u32 - 2 {
            return Err(self.error_at("chunk has too many lines", None));
        }
        Ok(())
    }

    /// `luaX_lexerror`: "user_script:LINE: msg near 'token'".
    pub fn error_at(&self, msg: &str, near: Option<&str>) -> String {
        match near {
            Some(n) => format!("{}:{}: {msg} near '{n}'", self.chunk, self.line),
            None => format!("{}:{}: {msg}", self.chunk, self.line),
        }
    }

    fn error_near_text(&self, msg: &str, start: usize) -> String {
        let end = self.pos.min(self.src.len());
        let text = String::from_utf8_lossy(&self.src[start..end]).into_owned();
        self.error_at(msg, Some(&text))
    }

    /// Lua quotes the string read so far (escapes already applied), with its quote.
    fn error_near_buf(&self, msg: &str, quote: u8, buf: &[u8]) -> String {
        let mut text = vec![quote];
        text.extend_from_slice(buf);
        self.error_at(msg, Some(&String::from_utf8_lossy(&text)))
    }

    /// The next token.
    pub fn next_token(&mut self) -> Result<Token, String> {
        loop {
            let Some(c) = self.cur() else {
                return Ok(self.tok(Tok::Eof, self.pos));
            };
            let start = self.pos;
            match c {
                b'\n' | b'\r' => self.newline()?,
                b'-' => {
                    if self.peek(1) != Some(b'-') {
                        self.pos += 1;
                        return Ok(self.tok(Tok::Char(b'-'), start));
                    }
                    self.pos += 2;
                    if self.cur() == Some(b'[') {
                        if let Some(level) = self.long_bracket_level() {
                            self.long_string(level, start, true)?;
                            continue;
                        }
                    }
                    while let Some(c) = self.cur() {
                        if c == b'\n' || c == b'\r' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                b'[' => {
                    if let Some(level) = self.long_bracket_level() {
                        let s = self.long_string(level, start, false)?;
                        return Ok(self.tok(Tok::Str(s), start));
                    }
                    if self.peek(1) == Some(b'=') {
                        // `[=` without a second `[`: Lua 5.1's error.
                        let mut p = self.pos + 1;
                        while self.src.get(p) == Some(&b'=') {
                            p += 1;
                        }
                        self.pos = p;
                        return Err(self.error_near_text("invalid long string delimiter", start));
                    }
                    self.pos += 1;
                    return Ok(self.tok(Tok::Char(b'['), start));
                }
                b'=' => return Ok(self.two(b'=', Tok::Eq, Tok::Char(b'='), start)),
                b'<' => return Ok(self.two(b'=', Tok::Le, Tok::Char(b'<'), start)),
                b'>' => return Ok(self.two(b'=', Tok::Ge, Tok::Char(b'>'), start)),
                b'~' => return Ok(self.two(b'=', Tok::Ne, Tok::Char(b'~'), start)),
                b'"' | b'\'' => {
                    let s = self.string(c)?;
                    return Ok(self.tok(Tok::Str(s), start));
                }
                b'.' => {
                    if self.peek(1) == Some(b'.') {
                        if self.peek(2) == Some(b'.') {
                            self.pos += 3;
                            return Ok(self.tok(Tok::Dots, start));
                        }
                        self.pos += 2;
                        return Ok(self.tok(Tok::Concat, start));
                    }
                    if self.peek(1).is_some_and(|d| d.is_ascii_digit()) {
                        return self.number(start);
                    }
                    self.pos += 1;
                    return Ok(self.tok(Tok::Char(b'.'), start));
                }
                b' ' | b'\t' | 0x0b | 0x0c => self.pos += 1,
                c if c.is_ascii_digit() => return self.number(start),
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    while self
                        .cur()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                    {
                        self.pos += 1;
                    }
                    let word = &self.src[start..self.pos];
                    let tok = KEYWORDS
                        .iter()
                        .find(|(k, _)| k.as_bytes() == word)
                        .map(|(_, t)| t.clone())
                        .unwrap_or_else(|| Tok::Name(word.into()));
                    return Ok(self.tok(tok, start));
                }
                c => {
                    self.pos += 1;
                    return Ok(self.tok(Tok::Char(c), start));
                }
            }
        }
    }

    fn tok(&self, tok: Tok, start: usize) -> Token {
        Token {
            tok,
            line: self.line,
            start,
            end: self.pos,
        }
    }

    fn two(&mut self, second: u8, both: Tok, one: Tok, start: usize) -> Token {
        self.pos += 1;
        if self.cur() == Some(second) {
            self.pos += 1;
            return self.tok(both, start);
        }
        self.tok(one, start)
    }

    /// At `[`: the level of a long bracket `[==[` if one opens here.
    fn long_bracket_level(&self) -> Option<usize> {
        let mut p = self.pos + 1;
        while self.src.get(p) == Some(&b'=') {
            p += 1;
        }
        (self.src.get(p) == Some(&b'[')).then_some(p - self.pos - 1)
    }

    /// `read_long_string`: from `[==[` to the matching `]==]`; a first
    /// newline is skipped.
    fn long_string(&mut self, level: usize, start: usize, comment: bool) -> Result<LStr, String> {
        self.pos += level + 2;
        if matches!(self.cur(), Some(b'\n' | b'\r')) {
            self.newline()?;
        }
        let mut out = Vec::new();
        loop {
            let Some(c) = self.cur() else {
                let what = if comment {
                    "unfinished long comment"
                } else {
                    "unfinished long string"
                };
                return Err(self.error_at(what, Some("<eof>")));
            };
            match c {
                b']' => {
                    let mut p = self.pos + 1;
                    while self.src.get(p) == Some(&b'=') {
                        p += 1;
                    }
                    if p - self.pos - 1 == level && self.src.get(p) == Some(&b']') {
                        self.pos = p + 1;
                        let _ = start;
                        return Ok(out.into());
                    }
                    out.push(c);
                    self.pos += 1;
                }
                b'[' if level == 0 && self.peek(1) == Some(b'[') => {
                    // Lua 5.1 (LUA_COMPAT_LSTR 1) refuses `[[` inside `[[...]]`.
                    self.pos += 1;
                    return Err(self.error_at("nesting of [[...]] is deprecated", Some("[")));
                }
                b'\n' | b'\r' => {
                    out.push(b'\n');
                    self.newline()?;
                }
                _ => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `read_string`: a quoted string with Lua 5.1's escapes.
    fn string(&mut self, quote: u8) -> Result<LStr, String> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.cur() else {
                return Err(self.error_at("unfinished string", Some("<eof>")));
            };
            match c {
                b'\n' | b'\r' => {
                    return Err(self.error_near_buf("unfinished string", quote, &out));
                }
                b'\\' => {
                    self.pos += 1;
                    let Some(e) = self.cur() else {
                        // The loop reports the end of input next.
                        continue;
                    };
                    match e {
                        b'a' => out.push(7),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'v' => out.push(11),
                        b'\n' | b'\r' => {
                            out.push(b'\n');
                            self.newline()?;
                            continue;
                        }
                        d if d.is_ascii_digit() => {
                            let mut n: u32 = 0;
                            let mut i = 0;
                            while i < 3 && self.cur().is_some_and(|d| d.is_ascii_digit()) {
                                n = n * 10 + (self.src[self.pos] - b'0') as u32;
                                self.pos += 1;
                                i += 1;
                            }
                            if n > 255 {
                                return Err(self.error_near_buf(
                                    "escape sequence too large",
                                    quote,
                                    &out,
                                ));
                            }
                            out.push(n as u8);
                            continue;
                        }
                        other => out.push(other),
                    }
                    self.pos += 1;
                }
                c if c == quote => {
                    self.pos += 1;
                    return Ok(out.into());
                }
                c => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `read_numeral`: digits, dots, an exponent with its sign, then any
    /// run of letters, digits and `_`; the whole text must convert.
    fn number(&mut self, start: usize) -> Result<Token, String> {
        while self.cur().is_some_and(|c| c.is_ascii_digit() || c == b'.') {
            self.pos += 1;
        }
        if matches!(self.cur(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.cur(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
        }
        while self
            .cur()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.pos += 1;
        }
        let text = &self.src[start..self.pos];
        match super::number::str2d(text) {
            Some(n) => Ok(self.tok(Tok::Num(n), start)),
            None => Err(self.error_near_text("malformed number", start)),
        }
    }

    /// The source text of a token, as error messages quote it.
    pub fn text_of(&self, t: &Token) -> String {
        match t.tok {
            Tok::Name(_) | Tok::Str(_) | Tok::Num(_) => {
                String::from_utf8_lossy(&self.src[t.start..t.end.min(self.src.len())]).into_owned()
            }
            _ => t.tok.text(),
        }
    }
}
