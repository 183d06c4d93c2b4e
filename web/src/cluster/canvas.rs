//! The slot map drawn on one `<canvas>` of 128×128 cells rather than 16384 DOM nodes: each cell one slot, coloured by its owner and shaded by heat, the migrating slot split between its two owners, the typed key's slot marked.
//!
//! A redraw is a few thousand `fillRect`s (runs of equal cells are merged),
//! cheap enough to repeat on every migration step.

use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_sim::cluster_lessons::heat_level;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::state::{observer, slot_heat, SlotMapState, NODES};

/// Cells per canvas row, and their size in CSS pixels.
pub const COLS: usize = 128;
pub const CELL: f64 = 4.0;
/// Owner colours (r, g, b): masters, then the replicas that may take over.
pub const COLOURS: [(u8, u8, u8); NODES] = [
    (216, 54, 43),
    (43, 108, 216),
    (42, 157, 92),
    (232, 139, 25),
    (126, 63, 191),
    (22, 160, 170),
];

fn colour(owner: Option<usize>, level: u8) -> String {
    let Some((r, g, b)) = owner.and_then(|o| COLOURS.get(o)) else {
        return "#bbb".into();
    };
    let alpha = 0.22 + 0.195 * level as f64;
    format!("rgba({r},{g},{b},{alpha:.2})")
}

fn cell_xy(slot: usize) -> (f64, f64) {
    ((slot % COLS) as f64 * CELL, (slot / COLS) as f64 * CELL)
}

/// Draws `st` on `canvas`.
pub fn draw(st: &SlotMapState, canvas: &HtmlCanvasElement) {
    let Some(cluster) = st.cluster.as_ref() else {
        return;
    };
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let view = cluster.view(observer(cluster));
    let heat = slot_heat(cluster);
    let max = heat.iter().copied().max().unwrap_or(0);
    ctx.set_fill_style_str("#fff");
    ctx.fill_rect(0.0, 0.0, canvas.width() as f64, canvas.height() as f64);
    // Runs of equal style along each row become one rectangle.
    let style_of = |s: usize| colour(view.owner(s as u16), heat_level(heat[s], max));
    for row in 0..SLOTS / COLS {
        let mut col = 0;
        while col < COLS {
            let s = row * COLS + col;
            let style = style_of(s);
            let mut end = col + 1;
            while end < COLS && style_of(row * COLS + end) == style {
                end += 1;
            }
            ctx.set_fill_style_str(&style);
            ctx.fill_rect(
                col as f64 * CELL,
                row as f64 * CELL,
                (end - col) as f64 * CELL,
                CELL,
            );
            col = end;
        }
    }
    if let Some(m) = &st.migration {
        // The migrating cell: source and target colours in proportion.
        let (x, y) = cell_xy(m.slot as usize);
        let done = m.moved as f64 / m.total.max(1) as f64;
        ctx.set_fill_style_str(&colour(Some(m.from), 4));
        ctx.fill_rect(x, y, CELL, CELL);
        ctx.set_fill_style_str(&colour(Some(m.to), 4));
        ctx.fill_rect(x, y, CELL * done, CELL);
        ctx.set_stroke_style_str(&colour(Some(m.to), 4));
        ctx.set_line_width(2.0);
        ctx.stroke_rect(x - 3.0, y - 3.0, CELL + 6.0, CELL + 6.0);
    }
    if !st.key.is_empty() {
        let (x, y) = cell_xy(key_hash_slot(st.key.as_bytes()) as usize);
        ctx.set_stroke_style_str("rgba(0,0,0,0.35)");
        ctx.set_line_width(1.0);
        ctx.stroke_rect(x + CELL / 2.0 - 0.5, 0.0, 1.0, canvas.height() as f64);
        ctx.stroke_rect(0.0, y + CELL / 2.0 - 0.5, canvas.width() as f64, 1.0);
        ctx.set_stroke_style_str("#111");
        ctx.set_line_width(2.0);
        ctx.stroke_rect(x - 2.0, y - 2.0, CELL + 4.0, CELL + 4.0);
    }
}
