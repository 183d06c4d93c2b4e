//! The tree-walking Lua 5.1 interpreter: evaluation with Lua's coercions, metatables and runtime error messages, a step budget, and a call-depth limit.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use super::ast::{
    BinOp, Block, Call, Expr, Field, FuncProto, GenFor, LStr, MethodCall, NumFor, Slot, Stat,
    UpvalDesc, CHUNK,
};
use super::host::Host;
use super::number::{fix_nan, fmt_num};
use super::value::{first, Cell, Function, LuaError, Table, TableRef, Value, Vm, R};

/// Lua calls nested deeper than this fail with "stack overflow". Real Lua
/// allows about 16000 Lua-to-Lua levels; this interpreter recurses on the
/// native stack (1 MB in the browser), about 2 KB per level in a release
/// build and 6 KB in a debug one, so it stops much earlier.
pub const MAX_DEPTH: usize = 120;

/// `MAXTAGLOOP`: chained `__index`/`__newindex` lookups before giving up.
const MAX_TAG_LOOP: usize = 100;

enum Flow {
    Normal,
    Break,
    Return(Vec<Value>),
}

struct Activation<'p> {
    proto: &'p FuncProto,
    regs: Vec<Value>,
    cells: Vec<Option<Cell>>,
    varargs: Vec<Value>,
    upvals: &'p [Cell],
}

/// One script run: the host, the globals, the budget and where execution is.
pub struct Interp<'h> {
    host: &'h mut dyn Host,
    /// Steps left before [`LuaError::Budget`].
    fuel: u64,
    /// The current line of the innermost Lua function (for error positions).
    pub line: u32,
    /// Lines of the callers of the active Lua functions (`error(msg, 2)`).
    call_lines: Vec<u32>,
    /// For each active call, whether it is a Lua function (else native):
    /// error positions depend on who raised the error.
    frames: Vec<bool>,
    globals: TableRef,
    /// The `string` table: strings index it (`s:upper()`).
    string_lib: TableRef,
    /// The name the current native function was called by, for "bad argument" errors.
    fname: Option<(&'static str, LStr)>,
    /// Per-run identities of tables and functions for `tostring`.
    ids: crate::ordmap::OrdMap<usize, u64>,
    /// The chunk name in error positions (`user_script`, `user_function`).
    chunk: &'static str,
}

impl<'h> Interp<'h> {
    /// Steps left in the budget.
    pub fn fuel_left(&self) -> u64 {
        self.fuel
    }

    pub fn new(host: &'h mut dyn Host, fuel: u64, globals: TableRef, string_lib: TableRef) -> Self {
        Interp {
            host,
            fuel,
            line: 0,
            call_lines: Vec::new(),
            frames: Vec::new(),
            globals,
            string_lib,
            fname: None,
            ids: Default::default(),
            chunk: CHUNK,
        }
    }

    /// Names the chunk in error positions (a function library is `user_function`).
    pub fn set_chunk(&mut self, chunk: &'static str) {
        self.chunk = chunk;
    }

    /// A stable identity for a table or function within this run (heap
    /// addresses would make `tostring({})` differ between runs).
    fn object_id(&mut self, v: &Value) -> u64 {
        let next = 0x5580_0000 + 0x40 * self.ids.len() as u64;
        *self.ids.entry(v.addr()).or_insert(next)
    }

    fn error_at(&self, positioned: bool, msg: &str) -> LuaError {
        if positioned {
            LuaError::Value(Value::str(format!("{}:{}: {msg}", self.chunk, self.line)))
        } else {
            LuaError::Value(Value::str(msg))
        }
    }

    fn call_value(
        &mut self,
        f: &Value,
        args: Vec<Value>,
        name: Option<(&'static str, LStr)>,
        desc: &str,
    ) -> R<Vec<Value>> {
        self.burn(1)?;
        match f {
            Value::Func(rc) => match &**rc {
                // The caller's line comes back after a return; after an
                // error it stays where the error was raised, as Redis
                // reports it ("on @user_script:LINE.").
                Function::Lua { proto, upvals } => {
                    let line = self.line;
                    let r = self.call_lua(proto, upvals, args)?;
                    self.line = line;
                    Ok(r)
                }
                Function::Native(n) => {
                    let saved = std::mem::replace(&mut self.fname, name);
                    let line = self.line;
                    self.frames.push(false);
                    let r = (n.f)(self, args, n);
                    self.frames.pop();
                    self.fname = saved;
                    if r.is_ok() {
                        self.line = line;
                    }
                    r
                }
            },
            other => {
                let h = self.metamethod(other, "__call");
                if h.is_nil() {
                    return Err(self.type_error("call", desc, other));
                }
                let mut full = Vec::with_capacity(args.len() + 1);
                full.push(other.clone());
                full.extend(args);
                self.call_value(&h, full, None, desc)
            }
        }
    }

    fn call_lua(
        &mut self,
        proto: &Arc<FuncProto>,
        upvals: &[Cell],
        mut args: Vec<Value>,
    ) -> R<Vec<Value>> {
        if self.call_lines.len() >= MAX_DEPTH {
            return Err(self.rt_error("stack overflow"));
        }
        let mut fr = Activation {
            proto,
            regs: vec![Value::Nil; proto.nregs],
            cells: vec![None; proto.ncells],
            varargs: Vec::new(),
            upvals,
        };
        let np = proto.params.len();
        if proto.vararg && args.len() > np {
            fr.varargs = args.split_off(np);
        }
        let mut it = args.into_iter();
        for &id in &proto.params {
            let v = it.next().unwrap_or_default();
            declare(&mut fr, id, v);
        }
        self.call_lines.push(self.line);
        self.frames.push(true);
        self.line = proto.line;
        let r = self.exec_block(&mut fr, &proto.body);
        self.frames.pop();
        self.call_lines.pop();
        match r? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Vec::new()),
        }
    }

    /// Runs a compiled chunk as the main function, with no arguments.
    pub fn run_main(&mut self, proto: &Arc<FuncProto>) -> R<Vec<Value>> {
        let f = Value::Func(Rc::new(Function::Lua {
            proto: proto.clone(),
            upvals: Vec::new(),
        }));
        self.call(&f, Vec::new())
    }

    fn exec_block(&mut self, f: &mut Activation, block: &Block) -> R<Flow> {
        for (line, s) in block {
            self.burn(1)?;
            self.line = *line;
            match self.exec(f, s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, f: &mut Activation, s: &Stat) -> R<Flow> {
        match s {
            Stat::Call(e) => {
                self.eval_multi(f, e)?;
            }
            Stat::Local(ids, exprs) => self.exec_local(f, ids, exprs)?,
            Stat::Assign(targets, exprs, line) => self.assign(f, targets, exprs, *line)?,
            Stat::If(arms, else_) => return self.exec_if(f, arms, else_.as_ref()),
            Stat::Return(exprs) => return Ok(Flow::Return(self.eval_list(f, exprs)?)),
            Stat::Break => return Ok(Flow::Break),
            _ => return self.exec_other(f, s),
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_local(&mut self, f: &mut Activation, ids: &[u32], exprs: &[Expr]) -> R<()> {
        if let ([id], [e]) = (ids, exprs) {
            let v = self.eval(f, e)?;
            declare(f, *id, v);
            return Ok(());
        }
        let vals = self.eval_n(f, exprs, ids.len())?;
        for (&id, v) in ids.iter().zip(vals) {
            declare(f, id, v);
        }
        Ok(())
    }

    #[inline(never)]
    fn exec_if(
        &mut self,
        f: &mut Activation,
        arms: &[(Expr, Block)],
        else_: Option<&Block>,
    ) -> R<Flow> {
        for (cond, body) in arms {
            if self.eval(f, cond)?.truthy() {
                return self.exec_block(f, body);
            }
        }
        match else_ {
            Some(b) => self.exec_block(f, b),
            None => Ok(Flow::Normal),
        }
    }

    #[inline(never)]
    fn exec_other(&mut self, f: &mut Activation, s: &Stat) -> R<Flow> {
        match s {
            Stat::LocalFunction(id, proto) => {
                declare(f, *id, Value::Nil);
                let c = self.closure(f, proto);
                set_local(f, *id, c);
            }
            Stat::While(cond, body) => loop {
                self.burn(1)?;
                if !self.eval(f, cond)?.truthy() {
                    break;
                }
                match self.exec_block(f, body)? {
                    Flow::Break => break,
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Normal => {}
                }
            },
            Stat::Repeat(body, cond) => loop {
                self.burn(1)?;
                match self.exec_block(f, body)? {
                    Flow::Break => break,
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Normal => {}
                }
                if self.eval(f, cond)?.truthy() {
                    break;
                }
            },
            Stat::NumFor(nf) => return self.exec_numfor(f, nf),
            Stat::GenFor(gf) => return self.exec_genfor(f, gf),
            Stat::Do(b) => return self.exec_block(f, b),
            other => return self.exec(f, other),
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_numfor(&mut self, f: &mut Activation, nf: &NumFor) -> R<Flow> {
        let start = self.eval(f, &nf.start)?;
        let limit = self.eval(f, &nf.limit)?;
        let step = match &nf.step {
            Some(e) => self.eval(f, e)?,
            None => Value::Num(1.0),
        };
        self.line = nf.line;
        let Some(mut i) = start.to_num() else {
            return Err(self.rt_error("'for' initial value must be a number"));
        };
        let Some(limit) = limit.to_num() else {
            return Err(self.rt_error("'for' limit must be a number"));
        };
        let Some(step) = step.to_num() else {
            return Err(self.rt_error("'for' step must be a number"));
        };
        while if step > 0.0 { i <= limit } else { i >= limit } {
            self.burn(1)?;
            declare(f, nf.var, Value::Num(i));
            match self.exec_block(f, &nf.body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Normal => {}
            }
            i += step;
        }
        Ok(Flow::Normal)
    }

    #[inline(never)]
    fn exec_genfor(&mut self, f: &mut Activation, gf: &GenFor) -> R<Flow> {
        let mut init = self.eval_n(f, &gf.exprs, 3)?.into_iter();
        let func = init.next().unwrap_or_default();
        let state = init.next().unwrap_or_default();
        let mut control = init.next().unwrap_or_default();
        loop {
            self.burn(1)?;
            self.line = gf.line;
            let mut rs = self
                .call_value(&func, vec![state.clone(), control.clone()], None, "")?
                .into_iter();
            let head = rs.next().unwrap_or_default();
            if head.is_nil() {
                break;
            }
            control = head.clone();
            let mut vals = std::iter::once(head).chain(rs);
            for &id in &gf.vars {
                declare(f, id, vals.next().unwrap_or_default());
            }
            match self.exec_block(f, &gf.body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Normal => {}
            }
        }
        Ok(Flow::Normal)
    }

    /// Multiple assignment: targets' tables and keys, then values, then the
    /// stores from right to left, as Lua 5.1 orders them.
    fn assign(&mut self, f: &mut Activation, targets: &[Expr], exprs: &[Expr], line: u32) -> R<()> {
        if targets.len() == 1 && exprs.len() == 1 {
            // The common case: no temporaries.
            if let Expr::Index(pair, iline) = &targets[0] {
                let obj = self.eval(f, &pair.0)?;
                let key = self.eval(f, &pair.1)?;
                let v = self.eval(f, &exprs[0])?;
                self.line = *iline;
                return self.set_index(&obj, key, v, &pair.0, f);
            }
            let v = self.eval(f, &exprs[0])?;
            return self.store(f, &targets[0], v, line);
        }
        let mut places = Vec::with_capacity(targets.len());
        for t in targets {
            places.push(match t {
                Expr::Index(pair, _) => Some((self.eval(f, &pair.0)?, self.eval(f, &pair.1)?)),
                _ => None,
            });
        }
        let vals = self.eval_n(f, exprs, targets.len())?;
        for ((t, place), v) in targets.iter().zip(places).zip(vals).rev() {
            match (t, place) {
                (Expr::Index(pair, iline), Some((obj, key))) => {
                    self.line = *iline;
                    self.set_index(&obj, key, v, &pair.0, f)?;
                }
                _ => self.store(f, t, v, line)?,
            }
        }
        Ok(())
    }

    fn store(&mut self, f: &mut Activation, target: &Expr, v: Value, line: u32) -> R<()> {
        match target {
            Expr::Local(id) => set_local(f, *id, v),
            Expr::Upval(i) => {
                if let Some(c) = f.upvals.get(*i as usize) {
                    *c.borrow_mut() = v;
                }
            }
            Expr::Global(name, _) => {
                self.line = line;
                let g = Value::Table(self.globals.clone());
                self.set_index(&g, Value::Str(name.clone()), v, target, f)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn closure(&mut self, f: &Activation, proto: &Arc<FuncProto>) -> Value {
        let upvals = proto
            .upvals
            .iter()
            .map(|d| match *d {
                UpvalDesc::Local(id) => match f.proto.slots.get(id as usize) {
                    Some(Slot::Cell(c)) => f.cells[*c as usize]
                        .clone()
                        .unwrap_or_else(|| Rc::new(RefCell::new(Value::Nil))),
                    _ => Rc::new(RefCell::new(Value::Nil)),
                },
                UpvalDesc::Upval(i) => f
                    .upvals
                    .get(i as usize)
                    .cloned()
                    .unwrap_or_else(|| Rc::new(RefCell::new(Value::Nil))),
            })
            .collect();
        Value::Func(Rc::new(Function::Lua {
            proto: proto.clone(),
            upvals,
        }))
    }

    /// Values of an expression list, the last one expanded.
    fn eval_list(&mut self, f: &mut Activation, exprs: &[Expr]) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(exprs.len());
        for (i, e) in exprs.iter().enumerate() {
            if i + 1 == exprs.len() && e.is_multi() {
                out.extend(self.eval_multi(f, e)?);
            } else {
                out.push(self.eval(f, e)?);
            }
        }
        Ok(out)
    }

    /// An expression list adjusted to exactly `n` values.
    fn eval_n(&mut self, f: &mut Activation, exprs: &[Expr], n: usize) -> R<Vec<Value>> {
        let mut v = self.eval_list(f, exprs)?;
        v.resize(n, Value::Nil);
        Ok(v)
    }

    /// Every value of a call or `...`; one value for anything else.
    fn eval_multi(&mut self, f: &mut Activation, e: &Expr) -> R<Vec<Value>> {
        match e {
            Expr::Vararg => Ok(f.varargs.clone()),
            Expr::Call(c) => self.eval_call(f, c),
            Expr::Method(m) => self.eval_method(f, m),
            other => Ok(vec![self.eval(f, other)?]),
        }
    }

    #[inline(never)]
    fn eval_call(&mut self, f: &mut Activation, c: &Call) -> R<Vec<Value>> {
        let func = self.eval(f, &c.func)?;
        let args = self.eval_list(f, &c.args)?;
        self.line = c.line;
        if let Value::Func(rc) = &func {
            if let Function::Lua { proto, upvals } = &**rc {
                // The common case, without building names for messages.
                self.burn(1)?;
                let line = self.line;
                let r = self.call_lua(proto, upvals, args)?;
                self.line = line;
                return Ok(r);
            }
        }
        let name = call_name(f, &c.func);
        let desc = self.describe(f, &c.func);
        self.call_value(&func, args, name, &desc)
    }

    #[inline(never)]
    fn eval_method(&mut self, f: &mut Activation, m: &MethodCall) -> R<Vec<Value>> {
        let obj = self.eval(f, &m.obj)?;
        self.line = m.line;
        let func = self.index(&obj, &Value::Str(m.name.clone()), &m.obj, f)?;
        let mut args = Vec::with_capacity(m.args.len() + 1);
        args.push(obj);
        args.extend(self.eval_list(f, &m.args)?);
        self.line = m.line;
        let desc = format!("method '{}'", String::from_utf8_lossy(&m.name));
        self.call_value(&func, args, Some(("method", m.name.clone())), &desc)
    }

    /// One value of an expression. Kept small: every Lua call recurses
    /// through here, so each non-trivial case lives in its own function
    /// (in a debug build a big `match` makes every level pay for all arms).
    fn eval(&mut self, f: &mut Activation, e: &Expr) -> R<Value> {
        Ok(match e {
            Expr::Nil => Value::Nil,
            Expr::True => Value::Bool(true),
            Expr::False => Value::Bool(false),
            Expr::Num(n) => Value::Num(*n),
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::Local(id) => get_local(f, *id),
            Expr::Bin(op, pair, line) => return self.eval_bin(f, *op, pair, *line),
            Expr::Call(_) | Expr::Method(_) => return self.eval_first(f, e),
            Expr::Paren(inner) => return self.eval(f, inner),
            Expr::And(pair) => return self.eval_and_or(f, pair, true),
            Expr::Or(pair) => return self.eval_and_or(f, pair, false),
            _ => return self.eval_other(f, e),
        })
    }

    #[inline(never)]
    fn eval_first(&mut self, f: &mut Activation, e: &Expr) -> R<Value> {
        Ok(first(self.eval_multi(f, e)?))
    }

    #[inline(never)]
    fn eval_and_or(&mut self, f: &mut Activation, pair: &(Expr, Expr), and: bool) -> R<Value> {
        let a = self.eval(f, &pair.0)?;
        if a.truthy() == and {
            self.eval(f, &pair.1)
        } else {
            Ok(a)
        }
    }

    #[inline(never)]
    fn eval_bin(
        &mut self,
        f: &mut Activation,
        op: BinOp,
        pair: &(Expr, Expr),
        line: u32,
    ) -> R<Value> {
        use BinOp::*;
        let a = self.eval(f, &pair.0)?;
        let b = self.eval(f, &pair.1)?;
        if let (Value::Num(x), Value::Num(y)) = (&a, &b) {
            let (x, y) = (*x, *y);
            return Ok(match op {
                Add | Sub | Mul | Div | Mod | Pow => Value::Num(arith_num(op, x, y)),
                Eq => Value::Bool(x == y),
                Ne => Value::Bool(x != y),
                Lt => Value::Bool(x < y),
                Le => Value::Bool(x <= y),
                Gt => Value::Bool(x > y),
                Ge => Value::Bool(x >= y),
                Concat => {
                    let mut s = fmt_num(x).into_bytes();
                    s.extend_from_slice(fmt_num(y).as_bytes());
                    Value::str(s)
                }
            });
        }
        self.line = line;
        match op {
            Add | Sub | Mul | Div | Mod | Pow => self.arith(f, op, a, b, pair),
            Concat => self.concat(f, a, b, pair),
            Eq => Ok(Value::Bool(self.equals(&a, &b)?)),
            Ne => Ok(Value::Bool(!self.equals(&a, &b)?)),
            Lt => Ok(Value::Bool(self.less(&a, &b, false)?)),
            Le => Ok(Value::Bool(self.less(&a, &b, true)?)),
            Gt => Ok(Value::Bool(self.less(&b, &a, false)?)),
            Ge => Ok(Value::Bool(self.less(&b, &a, true)?)),
        }
    }

    #[inline(never)]
    fn eval_other(&mut self, f: &mut Activation, e: &Expr) -> R<Value> {
        Ok(match e {
            Expr::Vararg => f.varargs.first().cloned().unwrap_or_default(),
            Expr::Upval(i) => f
                .upvals
                .get(*i as usize)
                .map(|c| c.borrow().clone())
                .unwrap_or_default(),
            Expr::Global(name, line) => {
                let v = self.globals.borrow().get(&Value::Str(name.clone()));
                if !v.is_nil() {
                    return Ok(v);
                }
                self.line = *line;
                let g = Value::Table(self.globals.clone());
                self.index(&g, &Value::Str(name.clone()), e, f)?
            }
            Expr::Index(pair, line) => {
                let obj = self.eval(f, &pair.0)?;
                let key = self.eval(f, &pair.1)?;
                self.line = *line;
                self.index(&obj, &key, &pair.0, f)?
            }
            Expr::Function(p) => self.closure(f, p),
            Expr::Not(inner) => Value::Bool(!self.eval(f, inner)?.truthy()),
            Expr::Neg(inner, line) => {
                let v = self.eval(f, inner)?;
                if let Some(n) = v.to_num() {
                    return Ok(Value::Num(-n));
                }
                self.line = *line;
                let h = self.metamethod(&v, "__unm");
                if !h.is_nil() {
                    return Ok(first(self.call(&h, vec![v.clone(), v])?));
                }
                let desc = self.describe(f, inner);
                return Err(self.type_error("perform arithmetic on", &desc, &v));
            }
            Expr::Len(inner, line) => {
                let v = self.eval(f, inner)?;
                match &v {
                    Value::Str(s) => Value::Num(s.len() as f64),
                    Value::Table(t) => Value::Num(t.borrow().border() as f64),
                    _ => {
                        self.line = *line;
                        let desc = self.describe(f, inner);
                        return Err(self.type_error("get length of", &desc, &v));
                    }
                }
            }
            Expr::Table(fields, line) => {
                self.line = *line;
                self.table(f, fields)?
            }
            other => return self.eval(f, other),
        })
    }

    fn table(&mut self, f: &mut Activation, fields: &[Field]) -> R<Value> {
        let mut t = Table::new();
        let mut positional = Vec::new();
        for (i, field) in fields.iter().enumerate() {
            match field {
                Field::Pos(e) if i + 1 == fields.len() && e.is_multi() => {
                    positional.extend(self.eval_multi(f, e)?);
                }
                Field::Pos(e) => positional.push(self.eval(f, e)?),
                Field::Named(k, v) => {
                    let k = self.eval(f, k)?;
                    let v = self.eval(f, v)?;
                    if let Err(m) = t.set(k, v) {
                        return Err(self.rt_error(m));
                    }
                }
            }
        }
        self.burn(positional.len() as u64 / 16)?;
        t.set_list(positional);
        Ok(Table::value(t))
    }

    fn arith(
        &mut self,
        f: &mut Activation,
        op: BinOp,
        a: Value,
        b: Value,
        exprs: &(Expr, Expr),
    ) -> R<Value> {
        if let (Some(x), Some(y)) = (a.to_num(), b.to_num()) {
            return Ok(Value::Num(arith_num(op, x, y)));
        }
        let event = match op {
            BinOp::Add => "__add",
            BinOp::Sub => "__sub",
            BinOp::Mul => "__mul",
            BinOp::Div => "__div",
            BinOp::Mod => "__mod",
            _ => "__pow",
        };
        if let Some(v) = self.call_bin_tm(&a, &b, event)? {
            return Ok(v);
        }
        let (bad, e) = if a.to_num().is_none() {
            (&a, &exprs.0)
        } else {
            (&b, &exprs.1)
        };
        let desc = self.describe(f, e);
        Err(self.type_error("perform arithmetic on", &desc, bad))
    }

    fn concat(&mut self, f: &mut Activation, a: Value, b: Value, exprs: &(Expr, Expr)) -> R<Value> {
        if let (Some(x), Some(y)) = (a.to_str(), b.to_str()) {
            self.burn((x.len() + y.len()) as u64 / 64)?;
            let mut s = Vec::with_capacity(x.len() + y.len());
            s.extend_from_slice(&x);
            s.extend_from_slice(&y);
            return Ok(Value::str(s));
        }
        if let Some(v) = self.call_bin_tm(&a, &b, "__concat")? {
            return Ok(v);
        }
        let (bad, e) = if matches!(a, Value::Str(_) | Value::Num(_)) {
            (&b, &exprs.1)
        } else {
            (&a, &exprs.0)
        };
        let desc = self.describe(f, e);
        Err(self.type_error("concatenate", &desc, bad))
    }

    /// `call_binTM`: the first operand's `event` metamethod, else the
    /// second's, called with both; `None` when neither has one.
    fn call_bin_tm(&mut self, a: &Value, b: &Value, event: &str) -> R<Option<Value>> {
        let mut h = self.metamethod(a, event);
        if h.is_nil() {
            h = self.metamethod(b, event);
        }
        if h.is_nil() {
            return Ok(None);
        }
        Ok(Some(first(self.call(&h, vec![a.clone(), b.clone()])?)))
    }

    /// `==` with `__eq` for two tables sharing the metamethod.
    fn equals(&mut self, a: &Value, b: &Value) -> R<bool> {
        if a.raw_eq(b) {
            return Ok(true);
        }
        if let (Value::Table(_), Value::Table(_)) = (a, b) {
            let h1 = self.metamethod(a, "__eq");
            let h2 = self.metamethod(b, "__eq");
            if !h1.is_nil() && h1.raw_eq(&h2) {
                return Ok(first(self.call(&h1, vec![a.clone(), b.clone()])?).truthy());
            }
        }
        Ok(false)
    }

    /// The metatable entry `event` of a value (strings share the string library's).
    fn metamethod(&self, v: &Value, event: &str) -> Value {
        match v {
            Value::Table(t) => match &t.borrow().meta {
                Some(m) => m.borrow().get_str(event),
                None => Value::Nil,
            },
            Value::Str(_) if event == "__index" => Value::Table(self.string_lib.clone()),
            _ => Value::Nil,
        }
    }

    /// `t[k]` with `__index`.
    fn index(&mut self, obj: &Value, key: &Value, e: &Expr, f: &Activation) -> R<Value> {
        let mut o = obj.clone();
        for _ in 0..MAX_TAG_LOOP {
            let h = match &o {
                Value::Table(t) => {
                    let tb = t.borrow();
                    let v = tb.get(key);
                    if !v.is_nil() {
                        return Ok(v);
                    }
                    match &tb.meta {
                        Some(m) => m.borrow().get_str("__index"),
                        None => return Ok(Value::Nil),
                    }
                }
                Value::Str(_) => Value::Table(self.string_lib.clone()),
                other => return Err(self.index_error(obj, other, e, f)),
            };
            if h.is_nil() {
                return Ok(Value::Nil);
            }
            if let Value::Func(_) = h {
                return Ok(first(self.call(&h, vec![o, key.clone()])?));
            }
            o = h;
        }
        Err(self.vm_error("loop in gettable"))
    }

    /// "attempt to index ..." for a value met in an `__index` or
    /// `__newindex` chain: named after its variable only if it is the
    /// indexed value itself.
    fn index_error(&self, obj: &Value, bad: &Value, e: &Expr, f: &Activation) -> LuaError {
        let desc = if bad.raw_eq(obj) {
            self.describe(f, e)
        } else {
            String::new()
        };
        self.type_error("index", &desc, bad)
    }

    /// `t[k] = v` with `__newindex` and Redis' read-only tables.
    fn set_index(&mut self, obj: &Value, key: Value, v: Value, e: &Expr, f: &Activation) -> R<()> {
        let mut o = obj.clone();
        for _ in 0..MAX_TAG_LOOP {
            let h = match &o {
                Value::Table(t) => {
                    let mut tb = t.borrow_mut();
                    if tb.readonly {
                        drop(tb);
                        return Err(self.vm_error("Attempt to modify a readonly table"));
                    }
                    let h = match &tb.meta {
                        Some(m) => m.borrow().get_str("__newindex"),
                        None => Value::Nil,
                    };
                    if h.is_nil() || !tb.get(&key).is_nil() {
                        return match tb.set(key, v) {
                            Ok(()) => Ok(()),
                            Err(m) => {
                                drop(tb);
                                Err(self.vm_error(m))
                            }
                        };
                    }
                    h
                }
                other => return Err(self.index_error(obj, other, e, f)),
            };
            if let Value::Func(_) = h {
                self.call(&h, vec![o, key, v])?;
                return Ok(());
            }
            o = h;
        }
        Err(self.vm_error("loop in settable"))
    }

    /// "attempt to OP local 'x' (a nil value)" or "attempt to OP a nil value".
    fn type_error(&self, op: &str, desc: &str, v: &Value) -> LuaError {
        if desc.is_empty() {
            self.vm_error(&format!("attempt to {op} a {} value", v.type_name()))
        } else {
            self.vm_error(&format!(
                "attempt to {op} {desc} (a {} value)",
                v.type_name()
            ))
        }
    }

    /// How Lua names the variable an operand came from (`getobjname`).
    fn describe(&self, f: &Activation, e: &Expr) -> String {
        let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        match e {
            Expr::Paren(inner) => self.describe(f, inner),
            Expr::Local(id) => match f.proto.local_names.get(*id as usize) {
                Some(n) => format!("local '{}'", s(n)),
                None => String::new(),
            },
            Expr::Upval(i) => match f.proto.upval_names.get(*i as usize) {
                Some(n) => format!("upvalue '{}'", s(n)),
                None => String::new(),
            },
            Expr::Global(n, _) => format!("global '{}'", s(n)),
            Expr::Index(pair, _) => match &pair.1 {
                Expr::Str(k) => format!("field '{}'", s(k)),
                _ => String::new(),
            },
            _ => String::new(),
        }
    }
}

impl Vm for Interp<'_> {
    fn rt_error(&self, msg: &str) -> LuaError {
        let n = self.frames.len();
        let lua_near = n == 0 || self.frames[n - 1] || (n >= 2 && self.frames[n - 2]);
        self.error_at(lua_near, msg)
    }

    fn vm_error(&self, msg: &str) -> LuaError {
        let lua_now = self.frames.last().copied().unwrap_or(true);
        self.error_at(lua_now, msg)
    }

    fn arg_error(&self, n: usize, msg: &str) -> LuaError {
        let (kind, name) = match &self.fname {
            Some((k, n)) => (*k, String::from_utf8_lossy(n).into_owned()),
            None => ("", "?".to_string()),
        };
        if kind == "method" {
            if n == 1 {
                return self.rt_error(&format!("calling '{name}' on bad self ({})", msg));
            }
            return self.rt_error(&format!("bad argument #{} to '{name}' ({})", n - 1, msg));
        }
        self.rt_error(&format!("bad argument #{n} to '{name}' ({})", msg))
    }

    fn where_(&self, level: usize) -> String {
        let n = self.frames.len();
        let Some(idx) = n.checked_sub(1 + level) else {
            return String::new();
        };
        if !self.frames[idx] {
            return String::new();
        }
        // Which Lua frame this is: the innermost one is at `self.line`;
        // an outer one is where it called the next Lua frame.
        let j = self.frames[..idx].iter().filter(|&&l| l).count();
        let m = self.frames.iter().filter(|&&l| l).count();
        let line = if j + 1 == m {
            self.line
        } else {
            self.call_lines.get(j + 1).copied().unwrap_or(self.line)
        };
        format!("{}:{line}: ", self.chunk)
    }

    fn burn(&mut self, n: u64) -> R<()> {
        if self.fuel < n {
            self.fuel = 0;
            return Err(LuaError::Budget);
        }
        self.fuel -= n;
        Ok(())
    }

    fn call(&mut self, f: &Value, args: Vec<Value>) -> R<Vec<Value>> {
        self.call_value(f, args, None, "")
    }

    fn less(&mut self, a: &Value, b: &Value, or_equal: bool) -> R<bool> {
        match (a, b) {
            (Value::Num(x), Value::Num(y)) => return Ok(if or_equal { x <= y } else { x < y }),
            (Value::Str(x), Value::Str(y)) => {
                return Ok(if or_equal { x <= y } else { x < y });
            }
            _ => {}
        }
        if a.type_name() == b.type_name() {
            let event = if or_equal { "__le" } else { "__lt" };
            let h1 = self.metamethod(a, event);
            let h2 = self.metamethod(b, event);
            if !h1.is_nil() && h1.raw_eq(&h2) {
                return Ok(first(self.call(&h1, vec![a.clone(), b.clone()])?).truthy());
            }
            if or_equal {
                let h1 = self.metamethod(a, "__lt");
                let h2 = self.metamethod(b, "__lt");
                if !h1.is_nil() && h1.raw_eq(&h2) {
                    return Ok(!first(self.call(&h1, vec![b.clone(), a.clone()])?).truthy());
                }
            }
        }
        let (t1, t2) = (a.type_name(), b.type_name());
        if t1 == t2 {
            Err(self.vm_error(&format!("attempt to compare two {t1} values")))
        } else {
            Err(self.vm_error(&format!("attempt to compare {t1} with {t2}")))
        }
    }

    fn get_index(&mut self, obj: &Value, key: &Value) -> R<Value> {
        let fr = Activation {
            proto: &EMPTY_PROTO,
            regs: Vec::new(),
            cells: Vec::new(),
            varargs: Vec::new(),
            upvals: &[],
        };
        self.index(obj, key, &Expr::Nil, &fr)
    }

    /// Tables and functions get a per-run address, so output replays exactly.
    fn tostring(&mut self, v: &Value) -> R<Vec<u8>> {
        let h = self.metamethod(v, "__tostring");
        if !h.is_nil() {
            let r = first(self.call(&h, vec![v.clone()])?);
            return match r.to_str() {
                Some(s) if matches!(r, Value::Str(_)) => Ok(s.to_vec()),
                _ => Err(self.rt_error("'__tostring' must return a string")),
            };
        }
        Ok(match v {
            Value::Nil => b"nil".to_vec(),
            Value::Bool(b) => {
                if *b {
                    b"true".to_vec()
                } else {
                    b"false".to_vec()
                }
            }
            Value::Num(n) => fmt_num(*n).into_bytes(),
            Value::Str(s) => s.to_vec(),
            Value::Table(t) if t.borrow().userdata_null => b"userdata: (nil)".to_vec(),
            Value::Table(_) => format!("table: 0x{:08x}", self.object_id(v)).into_bytes(),
            Value::Func(_) => format!("function: 0x{:08x}", self.object_id(v)).into_bytes(),
        })
    }

    fn string_lib(&self) -> TableRef {
        self.string_lib.clone()
    }

    fn host(&mut self) -> &mut dyn Host {
        self.host
    }
}

/// The name a function was called by, for native "bad argument" errors.
fn call_name(f: &Activation, e: &Expr) -> Option<(&'static str, LStr)> {
    match e {
        Expr::Global(n, _) => Some(("global", n.clone())),
        Expr::Local(id) => f
            .proto
            .local_names
            .get(*id as usize)
            .map(|n| ("local", n.clone())),
        Expr::Upval(i) => f
            .proto
            .upval_names
            .get(*i as usize)
            .map(|n| ("upvalue", n.clone())),
        Expr::Index(pair, _) => match &pair.1 {
            Expr::Str(k) => Some(("field", k.clone())),
            _ => None,
        },
        _ => None,
    }
}

static EMPTY_PROTO: FuncProto = FuncProto {
    params: Vec::new(),
    vararg: false,
    slots: Vec::new(),
    local_names: Vec::new(),
    nregs: 0,
    ncells: 0,
    upvals: Vec::new(),
    upval_names: Vec::new(),
    body: Vec::new(),
    line: 0,
};

/// Lua 5.1's `%`: `a - floor(a/b)*b`.
fn lua_mod(a: f64, b: f64) -> f64 {
    fix_nan(a - (a / b).floor() * b, a, b)
}

/// An arithmetic operator on two numbers.
#[inline(always)]
fn arith_num(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Add => fix_nan(x + y, x, y),
        BinOp::Sub => fix_nan(x - y, x, y),
        BinOp::Mul => fix_nan(x * y, x, y),
        BinOp::Div => fix_nan(x / y, x, y),
        BinOp::Mod => lua_mod(x, y),
        _ => fix_nan(x.powf(y), x, y),
    }
}

fn get_local(f: &Activation, id: u32) -> Value {
    match f.proto.slots.get(id as usize) {
        Some(Slot::Reg(r)) => f.regs[*r as usize].clone(),
        Some(Slot::Cell(c)) => f.cells[*c as usize]
            .as_ref()
            .map(|c| c.borrow().clone())
            .unwrap_or_default(),
        None => Value::Nil,
    }
}

fn set_local(f: &mut Activation, id: u32, v: Value) {
    match f.proto.slots.get(id as usize) {
        Some(Slot::Reg(r)) => f.regs[*r as usize] = v,
        Some(Slot::Cell(c)) => match &f.cells[*c as usize] {
            Some(cell) => *cell.borrow_mut() = v,
            None => f.cells[*c as usize] = Some(Rc::new(RefCell::new(v))),
        },
        None => {}
    }
}

/// A new variable: a captured one gets a fresh cell, so closures made in
/// different loop iterations see different variables.
fn declare(f: &mut Activation, id: u32, v: Value) {
    match f.proto.slots.get(id as usize) {
        Some(Slot::Reg(r)) => f.regs[*r as usize] = v,
        Some(Slot::Cell(c)) => f.cells[*c as usize] = Some(Rc::new(RefCell::new(v))),
        None => {}
    }
}
