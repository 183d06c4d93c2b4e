//! The Lua 5.1 parser (lparser.c's grammar and messages): builds the tree of `ast` with locals and upvalues already resolved.

use std::sync::Arc;

use super::ast::{
    BinOp, Block, Call, Expr, Field, FuncProto, GenFor, LStr, LocalId, MethodCall, NumFor, Slot,
    Stat, UpvalDesc, CHUNK,
};
use super::lex::{Lexer, Tok, Token};

/// `LUAI_MAXCCALLS`: nesting limit of the parser (and of C calls).
const MAX_LEVELS: u32 = 200;
/// `LUAI_MAXVARS`: active locals per function.
const MAX_VARS: usize = 200;
/// `LUAI_MAXUPVALUES`.
const MAX_UPVALS: usize = 60;

struct Local {
    name: LStr,
    captured: bool,
}

struct FuncState {
    locals: Vec<Local>,
    active: Vec<LocalId>,
    upvals: Vec<(LStr, UpvalDesc)>,
    vararg: bool,
    /// Active-local count at each open block, and whether it is a loop.
    blocks: Vec<(usize, bool)>,
    line: u32,
}

enum Var {
    Local(LocalId),
    Upval(u32),
    Global,
}

/// Parses `src` as the main chunk of a script; errors are Lua's messages.
pub fn parse_chunk(src: &[u8]) -> Result<Arc<FuncProto>, String> {
    parse_chunk_named(src, CHUNK)
}

/// [`parse_chunk`] under another chunk name (a function library is
/// `user_function` in Redis' messages).
pub fn parse_chunk_named(src: &[u8], chunk: &'static str) -> Result<Arc<FuncProto>, String> {
    let mut lx = Lexer::new(src);
    lx.chunk = chunk;
    let first = lx.next_token()?;
    let mut p = Parser {
        lx,
        t: first,
        ahead: None,
        last_line: 1,
        fs: Vec::new(),
        depth: 0,
    };
    p.open_function(0);
    if let Some(f) = p.fs.last_mut() {
        f.vararg = true;
    }
    let body = p.block()?;
    if p.t.tok != Tok::Eof {
        return Err(p.error_expected("<eof>"));
    }
    Ok(p.close_function(body, Vec::new()))
}

struct Parser<'s> {
    lx: Lexer<'s>,
    t: Token,
    ahead: Option<Token>,
    last_line: u32,
    fs: Vec<FuncState>,
    depth: u32,
}

type R<T> = Result<T, String>;

impl Parser<'_> {
    fn next(&mut self) -> R<()> {
        self.last_line = self.t.line;
        self.t = match self.ahead.take() {
            Some(t) => t,
            None => self.lx.next_token()?,
        };
        Ok(())
    }

    fn peek(&mut self) -> R<&Tok> {
        if self.ahead.is_none() {
            self.ahead = Some(self.lx.next_token()?);
        }
        Ok(&self.ahead.as_ref().expect("just filled").tok)
    }

    fn near(&self) -> String {
        self.lx.text_of(&self.t)
    }

    /// `luaX_syntaxerror`: the message with the current token.
    fn error(&self, msg: &str) -> String {
        format!(
            "{}:{}: {msg} near '{}'",
            self.lx.chunk,
            self.t.line,
            self.near()
        )
    }

    fn error_expected(&self, what: &str) -> String {
        self.error(&format!("'{what}' expected"))
    }

    fn check(&self, tok: &Tok, what: &str) -> R<()> {
        if &self.t.tok != tok {
            return Err(self.error_expected(what));
        }
        Ok(())
    }

    fn check_next(&mut self, tok: &Tok, what: &str) -> R<()> {
        self.check(tok, what)?;
        self.next()
    }

    fn test_next(&mut self, tok: &Tok) -> R<bool> {
        if &self.t.tok == tok {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// `check_match`: the closing token of a construct opened at `line`.
    fn check_match(&mut self, tok: &Tok, what: &str, who: &str, line: u32) -> R<()> {
        if &self.t.tok != tok {
            if line == self.t.line {
                return Err(self.error_expected(what));
            }
            return Err(self.error(&format!(
                "'{what}' expected (to close '{who}' at line {line})"
            )));
        }
        self.next()
    }

    fn name(&mut self) -> R<LStr> {
        match &self.t.tok {
            Tok::Name(n) => {
                let n = n.clone();
                self.next()?;
                Ok(n)
            }
            _ => Err(self.error_expected("<name>")),
        }
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_LEVELS {
            return Err(format!(
                "{}:{}: chunk has too many syntax levels",
                self.lx.chunk, self.lx.line
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn fs(&mut self) -> &mut FuncState {
        self.fs.last_mut().expect("a function is open")
    }

    fn open_function(&mut self, line: u32) {
        self.fs.push(FuncState {
            locals: Vec::new(),
            active: Vec::new(),
            upvals: Vec::new(),
            vararg: false,
            blocks: Vec::new(),
            line,
        });
    }

    fn close_function(&mut self, body: Block, params: Vec<LocalId>) -> Arc<FuncProto> {
        let f = self.fs.pop().expect("a function is open");
        let (mut nregs, mut ncells) = (0, 0);
        let slots = f
            .locals
            .iter()
            .map(|l| {
                if l.captured {
                    ncells += 1;
                    Slot::Cell(ncells as u32 - 1)
                } else {
                    nregs += 1;
                    Slot::Reg(nregs as u32 - 1)
                }
            })
            .collect();
        Arc::new(FuncProto {
            params,
            vararg: f.vararg,
            slots,
            local_names: f.locals.iter().map(|l| l.name.clone()).collect(),
            nregs,
            ncells,
            upval_names: f.upvals.iter().map(|(n, _)| n.clone()).collect(),
            upvals: f.upvals.into_iter().map(|(_, d)| d).collect(),
            body,
            line: f.line,
        })
    }

    /// Declares a local (not yet in scope: see `activate`).
    fn declare(&mut self, name: LStr) -> R<LocalId> {
        let active = self.fs().active.len();
        if active >= MAX_VARS {
            let line = self.fs().line;
            let msg = if line == 0 {
                format!("main function has more than {MAX_VARS} local variables")
            } else {
                format!("function at line {line} has more than {MAX_VARS} local variables")
            };
            return Err(format!("{}:{}: {msg}", self.lx.chunk, self.lx.line));
        }
        let f = self.fs();
        f.locals.push(Local {
            name,
            captured: false,
        });
        Ok(f.locals.len() as LocalId - 1)
    }

    fn activate(&mut self, ids: &[LocalId]) {
        self.fs().active.extend_from_slice(ids);
    }

    fn open_block(&mut self, is_loop: bool) {
        let n = self.fs().active.len();
        self.fs().blocks.push((n, is_loop));
    }

    fn close_block(&mut self) {
        let f = self.fs();
        if let Some((n, _)) = f.blocks.pop() {
            f.active.truncate(n);
        }
    }

    /// Resolves `name` in function `level` (`singlevaraux`).
    fn resolve(&mut self, level: usize, name: &LStr) -> R<Var> {
        let f = &self.fs[level];
        if let Some(&id) = f
            .active
            .iter()
            .rev()
            .find(|&&id| f.locals[id as usize].name == *name)
        {
            return Ok(Var::Local(id));
        }
        if let Some(i) = f.upvals.iter().position(|(n, _)| n == name) {
            return Ok(Var::Upval(i as u32));
        }
        if level == 0 {
            return Ok(Var::Global);
        }
        let desc = match self.resolve(level - 1, name)? {
            Var::Global => return Ok(Var::Global),
            Var::Local(id) => {
                self.fs[level - 1].locals[id as usize].captured = true;
                UpvalDesc::Local(id)
            }
            Var::Upval(i) => UpvalDesc::Upval(i),
        };
        let f = &mut self.fs[level];
        if f.upvals.len() >= MAX_UPVALS {
            let msg = format!(
                "function at line {} has more than {MAX_UPVALS} upvalues",
                f.line
            );
            return Err(format!("{}:{}: {msg}", self.lx.chunk, self.lx.line));
        }
        f.upvals.push((name.clone(), desc));
        Ok(Var::Upval(f.upvals.len() as u32 - 1))
    }

    fn var_expr(&mut self, name: LStr) -> R<Expr> {
        let level = self.fs.len() - 1;
        Ok(match self.resolve(level, &name)? {
            Var::Local(id) => Expr::Local(id),
            Var::Upval(i) => Expr::Upval(i),
            Var::Global => Expr::Global(name, self.last_line),
        })
    }

    fn block_follow(&self) -> bool {
        matches!(
            self.t.tok,
            Tok::Else | Tok::Elseif | Tok::End | Tok::Until | Tok::Eof
        )
    }

    /// `chunk`: statements until a block end; `return` and `break` must be last.
    fn block(&mut self) -> R<Block> {
        self.enter()?;
        let mut out = Vec::new();
        while !self.block_follow() {
            let line = self.t.line;
            let (stat, last) = self.statement()?;
            out.push((line, stat));
            self.test_next(&Tok::Char(b';'))?;
            if last {
                break;
            }
        }
        self.leave();
        Ok(out)
    }

    fn scoped_block(&mut self, is_loop: bool) -> R<Block> {
        self.open_block(is_loop);
        let b = self.block();
        self.close_block();
        b
    }

    fn statement(&mut self) -> R<(Stat, bool)> {
        let line = self.t.line;
        Ok(match self.t.tok {
            Tok::If => (self.if_stat(line)?, false),
            Tok::While => {
                self.next()?;
                let cond = self.expr()?;
                self.check_next(&Tok::Do, "do")?;
                let body = self.scoped_block(true)?;
                self.check_match(&Tok::End, "end", "while", line)?;
                (Stat::While(cond, body), false)
            }
            Tok::Do => {
                self.next()?;
                let body = self.scoped_block(false)?;
                self.check_match(&Tok::End, "end", "do", line)?;
                (Stat::Do(body), false)
            }
            Tok::For => (self.for_stat(line)?, false),
            Tok::Repeat => {
                self.next()?;
                self.open_block(true);
                let body = self.block()?;
                self.check_match(&Tok::Until, "until", "repeat", line)?;
                // The condition sees the body's locals.
                let cond = self.expr()?;
                self.close_block();
                (Stat::Repeat(body, cond), false)
            }
            Tok::Function => {
                self.next()?;
                let n = self.name()?;
                let mut target = self.var_expr(n)?;
                let mut method = false;
                loop {
                    match self.t.tok {
                        Tok::Char(b'.') => target = self.field(target)?,
                        Tok::Char(b':') => {
                            target = self.field(target)?;
                            method = true;
                            break;
                        }
                        _ => break,
                    }
                }
                let f = self.body(method, line)?;
                (
                    Stat::Assign(vec![target], vec![Expr::Function(f)], line),
                    false,
                )
            }
            Tok::Local => {
                self.next()?;
                if self.test_next(&Tok::Function)? {
                    let n = self.name()?;
                    let id = self.declare(n)?;
                    self.activate(&[id]);
                    let f = self.body(false, line)?;
                    (Stat::LocalFunction(id, f), false)
                } else {
                    let mut names = vec![self.name()?];
                    while self.test_next(&Tok::Char(b','))? {
                        names.push(self.name()?);
                    }
                    let exprs = if self.test_next(&Tok::Char(b'='))? {
                        self.expr_list()?
                    } else {
                        Vec::new()
                    };
                    let mut ids = Vec::new();
                    for n in names {
                        ids.push(self.declare(n)?);
                    }
                    self.activate(&ids);
                    (Stat::Local(ids, exprs), false)
                }
            }
            Tok::Return => {
                self.next()?;
                let exprs = if self.block_follow() || self.t.tok == Tok::Char(b';') {
                    Vec::new()
                } else {
                    self.expr_list()?
                };
                (Stat::Return(exprs), true)
            }
            Tok::Break => {
                self.next()?;
                if !self.fs().blocks.iter().any(|(_, l)| *l) {
                    return Err(self.error("no loop to break"));
                }
                (Stat::Break, true)
            }
            _ => (self.expr_stat()?, false),
        })
    }

    fn if_stat(&mut self, line: u32) -> R<Stat> {
        let mut arms = Vec::new();
        let mut else_ = None;
        self.next()?;
        let cond = self.expr()?;
        self.check_next(&Tok::Then, "then")?;
        arms.push((cond, self.scoped_block(false)?));
        loop {
            match self.t.tok {
                Tok::Elseif => {
                    self.next()?;
                    let cond = self.expr()?;
                    self.check_next(&Tok::Then, "then")?;
                    arms.push((cond, self.scoped_block(false)?));
                }
                Tok::Else => {
                    self.next()?;
                    else_ = Some(self.scoped_block(false)?);
                    self.check_match(&Tok::End, "end", "if", line)?;
                    break;
                }
                _ => {
                    self.check_match(&Tok::End, "end", "if", line)?;
                    break;
                }
            }
        }
        Ok(Stat::If(arms, else_))
    }

    fn for_stat(&mut self, line: u32) -> R<Stat> {
        self.next()?;
        let first = self.name()?;
        match self.t.tok {
            Tok::Char(b'=') => {
                self.next()?;
                let start = self.expr()?;
                self.check_next(&Tok::Char(b','), ",")?;
                let limit = self.expr()?;
                let step = if self.test_next(&Tok::Char(b','))? {
                    Some(self.expr()?)
                } else {
                    None
                };
                let (vars, body) = self.for_body(vec![first], line)?;
                Ok(Stat::NumFor(Box::new(NumFor {
                    var: vars[0],
                    start,
                    limit,
                    step,
                    body,
                    line,
                })))
            }
            Tok::Char(b',') | Tok::In => {
                let mut names = vec![first];
                while self.test_next(&Tok::Char(b','))? {
                    names.push(self.name()?);
                }
                self.check_next(&Tok::In, "in")?;
                let exprs = self.expr_list()?;
                let (vars, body) = self.for_body(names, line)?;
                Ok(Stat::GenFor(Box::new(GenFor {
                    vars,
                    exprs,
                    body,
                    line,
                })))
            }
            _ => Err(self.error("'=' or 'in' expected")),
        }
    }

    /// `forbody`: `do` block `end` of a `for` opened at `line`, its control
    /// variables `names` declared in the loop's scope.
    fn for_body(&mut self, names: Vec<LStr>, line: u32) -> R<(Vec<LocalId>, Block)> {
        self.check_next(&Tok::Do, "do")?;
        self.open_block(true);
        let mut vars = Vec::with_capacity(names.len());
        for n in names {
            vars.push(self.declare(n)?);
        }
        self.activate(&vars);
        let body = self.block()?;
        self.close_block();
        self.check_match(&Tok::End, "end", "for", line)?;
        Ok((vars, body))
    }

    /// A call statement or an assignment.
    fn expr_stat(&mut self) -> R<Stat> {
        let e = self.suffixed_expr()?;
        if !matches!(e, Expr::Call(_) | Expr::Method(_)) {
            let mut targets = vec![e];
            loop {
                let last = targets.last().expect("one target at least");
                if !matches!(
                    last,
                    Expr::Local(_) | Expr::Upval(_) | Expr::Global(..) | Expr::Index(..)
                ) {
                    return Err(self.error("syntax error"));
                }
                if self.test_next(&Tok::Char(b','))? {
                    self.enter()?;
                    targets.push(self.suffixed_expr()?);
                    continue;
                }
                break;
            }
            for _ in 1..targets.len() {
                self.leave();
            }
            self.check_next(&Tok::Char(b'='), "=")?;
            let exprs = self.expr_list()?;
            return Ok(Stat::Assign(targets, exprs, self.last_line));
        }
        Ok(Stat::Call(e))
    }

    fn expr_list(&mut self) -> R<Vec<Expr>> {
        let mut out = vec![self.expr()?];
        while self.test_next(&Tok::Char(b','))? {
            out.push(self.expr()?);
        }
        Ok(out)
    }

    fn primary_expr(&mut self) -> R<Expr> {
        match &self.t.tok {
            Tok::Name(n) => {
                let n = n.clone();
                self.next()?;
                self.var_expr(n)
            }
            Tok::Char(b'(') => {
                let line = self.t.line;
                self.next()?;
                let e = self.expr()?;
                self.check_match(&Tok::Char(b')'), ")", "(", line)?;
                // Kept even around a single value: `(x) = 1` is no assignment.
                Ok(Expr::Paren(Box::new(e)))
            }
            _ => Err(self.error("unexpected symbol")),
        }
    }

    fn suffixed_expr(&mut self) -> R<Expr> {
        let line = self.t.line;
        let mut e = self.primary_expr()?;
        loop {
            match self.t.tok {
                Tok::Char(b'.') => e = self.field(e)?,
                Tok::Char(b'[') => {
                    self.next()?;
                    let k = self.expr()?;
                    self.check_next(&Tok::Char(b']'), "]")?;
                    e = Expr::Index(Box::new((e, k)), self.last_line);
                }
                Tok::Char(b':') => {
                    self.next()?;
                    let name = self.name()?;
                    let (args, cl) = self.call_args(line)?;
                    e = Expr::Method(Box::new(MethodCall {
                        obj: e,
                        name,
                        args,
                        line: cl,
                    }));
                }
                Tok::Char(b'(') | Tok::Str(_) | Tok::Char(b'{') => {
                    let (args, cl) = self.call_args(line)?;
                    e = Expr::Call(Box::new(Call {
                        func: e,
                        args,
                        line: cl,
                    }));
                }
                _ => return Ok(e),
            }
        }
    }

    /// `fieldsel`: at `.` or `:`, the name after it as a string index into `e`.
    fn field(&mut self, e: Expr) -> R<Expr> {
        self.next()?;
        let k = self.name()?;
        Ok(Expr::Index(Box::new((e, Expr::Str(k))), self.last_line))
    }

    /// `funcargs`: `(...)`, a table or a string; the call's line.
    fn call_args(&mut self, line: u32) -> R<(Vec<Expr>, u32)> {
        let call_line = self.t.line;
        match &self.t.tok {
            Tok::Char(b'(') => {
                if call_line != self.last_line {
                    return Err(self.error("ambiguous syntax (function call x new statement)"));
                }
                self.next()?;
                let args = if self.t.tok == Tok::Char(b')') {
                    Vec::new()
                } else {
                    self.expr_list()?
                };
                self.check_match(&Tok::Char(b')'), ")", "(", call_line)?;
                let _ = line;
                Ok((args, call_line))
            }
            Tok::Char(b'{') => Ok((vec![self.table()?], call_line)),
            Tok::Str(s) => {
                let s = s.clone();
                self.next()?;
                Ok((vec![Expr::Str(s)], call_line))
            }
            _ => Err(self.error("function arguments expected")),
        }
    }

    fn table(&mut self) -> R<Expr> {
        let line = self.t.line;
        self.check_next(&Tok::Char(b'{'), "{")?;
        let mut fields = Vec::new();
        loop {
            if self.t.tok == Tok::Char(b'}') {
                break;
            }
            let named = match &self.t.tok {
                Tok::Name(n) => Some(n.clone()),
                _ => None,
            };
            let named = match named {
                Some(n) if self.peek()? == &Tok::Char(b'=') => Some(n),
                _ => None,
            };
            match &self.t.tok {
                Tok::Name(_) if named.is_some() => {
                    let k = named.clone().unwrap_or_else(|| b"".as_slice().into());
                    self.next()?;
                    self.next()?;
                    fields.push(Field::Named(Expr::Str(k), self.expr()?));
                }
                Tok::Char(b'[') => {
                    self.next()?;
                    let k = self.expr()?;
                    self.check_next(&Tok::Char(b']'), "]")?;
                    self.check_next(&Tok::Char(b'='), "=")?;
                    fields.push(Field::Named(k, self.expr()?));
                }
                _ => fields.push(Field::Pos(self.expr()?)),
            }
            if !self.test_next(&Tok::Char(b','))? && !self.test_next(&Tok::Char(b';'))? {
                break;
            }
        }
        self.check_match(&Tok::Char(b'}'), "}", "{", line)?;
        Ok(Expr::Table(fields, line))
    }

    /// `body`: parameters and block of a function; `self` first for methods.
    fn body(&mut self, method: bool, line: u32) -> R<Arc<FuncProto>> {
        self.open_function(line);
        self.open_block(false);
        let mut params = Vec::new();
        if method {
            let id = self.declare("self".as_bytes().into())?;
            params.push(id);
        }
        self.check_next(&Tok::Char(b'('), "(")?;
        if self.t.tok != Tok::Char(b')') {
            loop {
                match &self.t.tok {
                    Tok::Name(n) => {
                        let n = n.clone();
                        self.next()?;
                        params.push(self.declare(n)?);
                    }
                    Tok::Dots => {
                        self.next()?;
                        self.fs().vararg = true;
                    }
                    _ => return Err(self.error("<name> or '...' expected")),
                }
                if self.fs().vararg || !self.test_next(&Tok::Char(b','))? {
                    break;
                }
            }
        }
        self.activate(&params.clone());
        self.check_next(&Tok::Char(b')'), ")")?;
        let body = self.block()?;
        self.check_match(&Tok::End, "end", "function", line)?;
        self.close_block();
        Ok(self.close_function(body, params))
    }

    fn simple_expr(&mut self) -> R<Expr> {
        let e = match &self.t.tok {
            Tok::Num(n) => Expr::Num(*n),
            Tok::Str(s) => Expr::Str(s.clone()),
            Tok::Nil => Expr::Nil,
            Tok::True => Expr::True,
            Tok::False => Expr::False,
            Tok::Dots => {
                if !self.fs().vararg {
                    return Err(self.error("cannot use '...' outside a vararg function"));
                }
                Expr::Vararg
            }
            Tok::Char(b'{') => return self.table(),
            Tok::Function => {
                let line = self.t.line;
                self.next()?;
                return Ok(Expr::Function(self.body(false, line)?));
            }
            _ => return self.suffixed_expr(),
        };
        self.next()?;
        Ok(e)
    }

    pub fn expr(&mut self) -> R<Expr> {
        self.sub_expr(0)
    }

    /// `subexpr`: operators by Lua 5.1's priorities (`..` and `^` right-associative).
    fn sub_expr(&mut self, limit: u8) -> R<Expr> {
        self.enter()?;
        let mut e = match self.t.tok {
            Tok::Not => {
                self.next()?;
                Expr::Not(Box::new(self.sub_expr(8)?))
            }
            Tok::Char(b'-') => {
                self.next()?;
                let operand = self.sub_expr(8)?;
                match operand {
                    Expr::Num(n) => Expr::Num(-n),
                    o => Expr::Neg(Box::new(o), self.last_line),
                }
            }
            Tok::Char(b'#') => {
                self.next()?;
                let operand = self.sub_expr(8)?;
                Expr::Len(Box::new(operand), self.last_line)
            }
            _ => self.simple_expr()?,
        };
        loop {
            let (op, left, right) = match self.t.tok {
                Tok::Or => (None, 1, 1),
                Tok::And => (None, 2, 2),
                Tok::Char(b'<') => (Some(BinOp::Lt), 3, 3),
                Tok::Char(b'>') => (Some(BinOp::Gt), 3, 3),
                Tok::Le => (Some(BinOp::Le), 3, 3),
                Tok::Ge => (Some(BinOp::Ge), 3, 3),
                Tok::Ne => (Some(BinOp::Ne), 3, 3),
                Tok::Eq => (Some(BinOp::Eq), 3, 3),
                Tok::Concat => (Some(BinOp::Concat), 5, 4),
                Tok::Char(b'+') => (Some(BinOp::Add), 6, 6),
                Tok::Char(b'-') => (Some(BinOp::Sub), 6, 6),
                Tok::Char(b'*') => (Some(BinOp::Mul), 7, 7),
                Tok::Char(b'/') => (Some(BinOp::Div), 7, 7),
                Tok::Char(b'%') => (Some(BinOp::Mod), 7, 7),
                Tok::Char(b'^') => (Some(BinOp::Pow), 10, 9),
                _ => break,
            };
            if left <= limit {
                break;
            }
            let is_or = self.t.tok == Tok::Or;
            self.next()?;
            let rhs = self.sub_expr(right)?;
            let pair = Box::new((e, rhs));
            e = match op {
                Some(op) => Expr::Bin(op, pair, self.last_line),
                None if is_or => Expr::Or(pair),
                None => Expr::And(pair),
            };
        }
        self.leave();
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> String {
        parse_chunk(src.as_bytes()).expect_err(src)
    }

    #[test]
    fn syntax_errors_read_as_lua_5_1() {
        // Messages checked against redis-server's Lua.
        assert_eq!(
            err("return 1 +"),
            "user_script:1: unexpected symbol near '<eof>'"
        );
        assert_eq!(err("x"), "user_script:1: '=' expected near '<eof>'");
        assert_eq!(
            err("if x then\nreturn 1"),
            "user_script:2: 'end' expected (to close 'if' at line 1) near '<eof>'"
        );
        assert_eq!(
            err("return 'abc"),
            "user_script:1: unfinished string near '<eof>'"
        );
        assert_eq!(
            err("return 'abc\n'"),
            "user_script:1: unfinished string near ''abc'"
        );
        assert_eq!(
            err("local 1 = 2"),
            "user_script:1: '<name>' expected near '1'"
        );
        assert_eq!(err("(x) = 1"), "user_script:1: syntax error near '='");
        assert_eq!(
            err("return 3x"),
            "user_script:1: malformed number near '3x'"
        );
        assert_eq!(err("break"), "user_script:1: no loop to break near '<eof>'");
        assert_eq!(
            err("function f() return ... end"),
            "user_script:1: cannot use '...' outside a vararg function near '...'"
        );
    }

    #[test]
    fn locals_captured_by_closures_become_cells() {
        let f = parse_chunk(b"local a, b = 1, 2 local function g() return a end return g").unwrap();
        assert!(matches!(f.slots[0], Slot::Cell(_)));
        assert!(matches!(f.slots[1], Slot::Reg(_)));
    }
}
