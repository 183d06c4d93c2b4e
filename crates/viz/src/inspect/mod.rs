//! Pictures of a key's structure for the browser's key inspector, from the engine's plain `inspect` views: a sorted set's skiplist and a HyperLogLog's register histogram.
//!
//! Their coordinates are written with one decimal (`{:.1}`) and `class`
//! comes last in each element, as the page has always drawn them (they
//! were Yew markup), not with [`crate::svg::px`].

mod hll;
mod skiplist;

pub use hll::{hll_bars, hll_svg, Bar};
pub use skiplist::{skiplist_layout, skiplist_svg, ColKind, SkipArrow, SkipCol, SkipLayout};

use std::fmt::Write;

use crate::svg::esc;

/// A coordinate with one decimal.
fn f1(v: f64) -> String {
    redsim_engine::num::print::fixed(v, 1)
}

/// Opens `<tag {attrs}>` with a `<title>` (the hover text) as its first child.
fn titled(out: &mut String, tag: &str, attrs: &str, title: &str) {
    let _ = write!(out, "<{tag} {attrs}><title>{}</title>", esc(title));
}
