//! A compiled Lua function as the interpreter runs it: a tree of statements and expressions whose locals and upvalues the parser already resolved, with constants as plain numbers and strings.

use std::sync::Arc;

/// A Lua string: immutable bytes, cheap to clone. `Arc` so compiled
/// scripts (which hold their constants) can live in the server's cache.
pub type LStr = Arc<[u8]>;

/// The chunk name in messages: Redis loads scripts as `@user_script`.
pub const CHUNK: &str = "user_script";

/// Index of a local variable declaration within its function.
pub type LocalId = u32;

/// Where a local lives at run time: a plain register, or a shared cell
/// when some closure captures it.
#[derive(Clone, Copy, Debug)]
pub enum Slot {
    Reg(u32),
    Cell(u32),
}

/// Where a closure finds an upvalue when it is created.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UpvalDesc {
    /// A local of the enclosing function.
    Local(LocalId),
    /// An upvalue of the enclosing function.
    Upval(u32),
}

/// A compiled function.
#[derive(Debug)]
pub struct FuncProto {
    pub params: Vec<LocalId>,
    pub vararg: bool,
    pub slots: Vec<Slot>,
    pub local_names: Vec<LStr>,
    pub nregs: usize,
    pub ncells: usize,
    pub upvals: Vec<UpvalDesc>,
    pub upval_names: Vec<LStr>,
    pub body: Block,
    pub line: u32,
}

/// Statements, each with the line it starts on.
pub type Block = Vec<(u32, Stat)>;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Concat,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug)]
pub enum Stat {
    /// A function call as a statement.
    Call(Expr),
    Local(Vec<LocalId>, Vec<Expr>),
    /// Targets are `Local`, `Upval`, `Global` or `Index` expressions.
    Assign(Vec<Expr>, Vec<Expr>, u32),
    If(Vec<(Expr, Block)>, Option<Block>),
    While(Expr, Block),
    Repeat(Block, Expr),
    NumFor(Box<NumFor>),
    GenFor(Box<GenFor>),
    Do(Block),
    Return(Vec<Expr>),
    Break,
    LocalFunction(LocalId, Arc<FuncProto>),
}

#[derive(Debug)]
pub struct NumFor {
    pub var: LocalId,
    pub start: Expr,
    pub limit: Expr,
    pub step: Option<Expr>,
    pub body: Block,
    pub line: u32,
}

#[derive(Debug)]
pub struct GenFor {
    pub vars: Vec<LocalId>,
    pub exprs: Vec<Expr>,
    pub body: Block,
    pub line: u32,
}

#[derive(Debug)]
pub struct Call {
    pub func: Expr,
    pub args: Vec<Expr>,
    pub line: u32,
}

#[derive(Debug)]
pub struct MethodCall {
    pub obj: Expr,
    pub name: LStr,
    pub args: Vec<Expr>,
    pub line: u32,
}

#[derive(Debug)]
pub enum Field {
    Pos(Expr),
    Named(Expr, Expr),
}

#[derive(Debug)]
pub enum Expr {
    Nil,
    True,
    False,
    Num(f64),
    Str(LStr),
    Vararg,
    Local(LocalId),
    Upval(u32),
    Global(LStr, u32),
    Index(Box<(Expr, Expr)>, u32),
    Call(Box<Call>),
    Method(Box<MethodCall>),
    Function(Arc<FuncProto>),
    Bin(BinOp, Box<(Expr, Expr)>, u32),
    And(Box<(Expr, Expr)>),
    Or(Box<(Expr, Expr)>),
    Not(Box<Expr>),
    Neg(Box<Expr>, u32),
    Len(Box<Expr>, u32),
    Table(Vec<Field>, u32),
    Paren(Box<Expr>),
}

impl Expr {
    /// True for expressions that can yield several values.
    pub fn is_multi(&self) -> bool {
        matches!(self, Expr::Call(_) | Expr::Method(_) | Expr::Vararg)
    }
}
