//! A Lua 5.1 interpreter written for Redsim: lexer, parser, tree-walking interpreter with a step budget, and the libraries Redis loads (base, string, table, math, bit, cjson, cmsgpack).
//!
//! # Why our own interpreter
//!
//! The engine must build for `wasm32-unknown-unknown` without a C toolchain
//! and stay deterministic. `piccolo` 0.3 (the pure-Rust candidate) does not
//! build there without enabling JavaScript entropy (its tables hash with a
//! randomly seeded `ahash`, which also makes `pairs` order change between
//! runs), follows Lua 5.4 (integer subtype, `//`, `3.0` printing), lacks
//! `tonumber`, `string.format`/`find`/`gsub`/`match` and `table.insert`/
//! `concat`/`remove`/`sort`, and adds about 500 KB to the page. This one is
//! Lua 5.1 (what Redis embeds): doubles only, `%.14g` printing, 5.1's
//! grammar and error messages, a step budget, and nothing random but
//! `math.random` on Redis' own `redisLrand48`.
//!
//! # Layout, from the ground up
//!
//! - [`number`]: Lua's number text (`%.14g`, `lua_str2number`, C `printf`).
//! - [`ast`]: a compiled function; [`lex`] and [`parse`] build it from source.
//! - [`value`]: values and tables, native functions, and [`value::Vm`], all
//!   a native may ask of the interpreter; [`host`]: what a script reaches
//!   outside (the server), which the scripting commands implement.
//! - [`interp`]: runs a compiled function and implements `Vm`.
//! - The libraries stand on `value` alone, never on `interp`: [`auxlib`]
//!   (argument checks) under [`baselib`], [`strlib`], [`tablib`],
//!   [`mathlib`], [`bitlib`], [`cjson`] and [`cmsgpack`].
//!
//! Nothing here knows Redis' commands; which globals a script gets, and
//! the `redis` table, are the scripting layer's (`script::env`, `script::api`).

pub mod ast;
pub mod auxlib;
pub mod baselib;
pub mod bitlib;
pub mod cjson;
pub mod cmsgpack;
pub mod host;
pub mod interp;
pub mod lex;
pub mod mathlib;
pub mod number;
pub mod parse;
pub mod strlib;
pub mod tablib;
pub mod value;
