//! The slot map drawn on one `<canvas>` of 128×128 cells rather than 16384 DOM nodes: each cell one slot, coloured by its owner and shaded by heat, greyed and hatched while its owner is down, the migrating slot split between its two owners, the typed key's and the pointed slot marked.
//!
//! The canvas fills its container's width, its backing store in device
//! pixels (`devicePixelRatio`) and every cell edge on a whole pixel, so
//! it stays crisp at any size. A redraw is a few thousand `fillRect`s
//! (runs of equal cells are merged), cheap enough for every animation step.

use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_sim::cluster_lessons::heat_level;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::state::{observer, slot_heat, SlotMapState, NODES};

/// Cells per canvas row (and rows: the map is square).
pub const COLS: usize = 128;
/// Owner colours (r, g, b): masters, then the replicas that may take over.
pub const COLOURS: [(u8, u8, u8); NODES] = [
    (216, 54, 43),
    (43, 108, 216),
    (42, 157, 92),
    (232, 139, 25),
    (126, 63, 191),
    (22, 160, 170),
];
/// A slot whose owner is down: greyed, then hatched.
const DOWN_FILL: &str = "#e2e2e2";
const DOWN_HATCH: &str = "#8a8a8a";

fn colour(owner: Option<usize>, level: u8) -> String {
    let Some((r, g, b)) = owner.and_then(|o| COLOURS.get(o)) else {
        return "#bbb".into();
    };
    let alpha = 0.22 + 0.195 * level as f64;
    format!("rgba({r},{g},{b},{alpha:.2})")
}

/// Where cell edge `i` (0..=COLS) falls on a side of `len` device pixels:
/// whole pixels, so every cell is crisp at any width.
pub fn edge(i: usize, len: f64) -> f64 {
    (i as f64 * len / COLS as f64).round()
}

/// The slot under a point `(x, y)` of a canvas shown `w` × `h` CSS px.
pub fn slot_at(x: f64, y: f64, w: f64, h: f64) -> Option<u16> {
    if w <= 0.0 || h <= 0.0 || x < 0.0 || y < 0.0 || x >= w || y >= h {
        return None;
    }
    let col = (x / w * COLS as f64) as usize;
    let row = (y / h * (SLOTS / COLS) as f64) as usize;
    Some((row.min(SLOTS / COLS - 1) * COLS + col.min(COLS - 1)) as u16)
}

/// The device-pixel rectangle of `slot` on a `w` × `h` canvas.
fn cell(slot: usize, w: f64, h: f64) -> (f64, f64, f64, f64) {
    let (col, row) = (slot % COLS, slot / COLS);
    let (x, y) = (edge(col, w), edge(row, h));
    (x, y, edge(col + 1, w) - x, edge(row + 1, h) - y)
}

/// Draws `st` on `canvas`, whose backing store is `dpr` device pixels per CSS pixel.
pub fn draw(st: &SlotMapState, canvas: &HtmlCanvasElement, dpr: f64) {
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
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    let view = cluster.view(observer(cluster));
    let heat = slot_heat(cluster);
    let max = heat.iter().copied().max().unwrap_or(0);
    // The page's theme: the panel colour under the cells, the ink for marks.
    let bg = css_var(canvas, "--rs-panel").unwrap_or_else(|| "#fff".into());
    let ink = css_var(canvas, "--rs-ink").unwrap_or_else(|| "#111".into());
    ctx.set_fill_style_str(&bg);
    ctx.fill_rect(0.0, 0.0, w, h);
    let down: Vec<bool> = cluster.nodes.iter().map(|n| n.down).collect();
    let is_down = |s: usize| {
        view.owner(s as u16)
            .is_some_and(|o| down.get(o).copied().unwrap_or(false))
    };
    // Runs of equal style along each row become one rectangle; the runs
    // whose owner is down are kept for the hatching.
    let style_of = |s: usize| {
        if is_down(s) {
            DOWN_FILL.to_string()
        } else {
            colour(view.owner(s as u16), heat_level(heat[s], max))
        }
    };
    let mut down_runs = Vec::new();
    for row in 0..SLOTS / COLS {
        let (y0, y1) = (edge(row, h), edge(row + 1, h));
        let mut col = 0;
        while col < COLS {
            let s = row * COLS + col;
            let style = style_of(s);
            let mut end = col + 1;
            while end < COLS && style_of(row * COLS + end) == style {
                end += 1;
            }
            let (x0, x1) = (edge(col, w), edge(end, w));
            ctx.set_fill_style_str(&style);
            ctx.fill_rect(x0, y0, x1 - x0, y1 - y0);
            if style == DOWN_FILL {
                down_runs.push((x0, y0, x1 - x0, y1 - y0));
            }
            col = end;
        }
    }
    if !down_runs.is_empty() {
        hatch(&ctx, &down_runs, w, h, dpr);
    }
    if let Some(m) = &st.migration {
        // The migrating cell: source and target colours in proportion.
        let (x, y, cw, ch) = cell(m.slot as usize, w, h);
        let done = m.moved as f64 / m.total.max(1) as f64;
        ctx.set_fill_style_str(&colour(Some(m.from), 4));
        ctx.fill_rect(x, y, cw, ch);
        ctx.set_fill_style_str(&colour(Some(m.to), 4));
        ctx.fill_rect(x, y, (cw * done).round(), ch);
        ctx.set_stroke_style_str(&colour(Some(m.to), 4));
        ctx.set_line_width(2.0 * dpr);
        let g = 3.0 * dpr;
        ctx.stroke_rect(x - g, y - g, cw + 2.0 * g, ch + 2.0 * g);
    }
    if !st.key.is_empty() {
        let (x, y, cw, ch) = cell(key_hash_slot(st.key.as_bytes()) as usize, w, h);
        ctx.set_fill_style_str(&ink);
        ctx.set_global_alpha(0.35);
        let t = dpr.round().max(1.0);
        ctx.fill_rect((x + cw / 2.0).floor(), 0.0, t, h);
        ctx.fill_rect(0.0, (y + ch / 2.0).floor(), w, t);
        ctx.set_global_alpha(1.0);
        ctx.set_stroke_style_str(&ink);
        ctx.set_line_width(2.0 * dpr);
        let g = 2.0 * dpr;
        ctx.stroke_rect(x - g, y - g, cw + 2.0 * g, ch + 2.0 * g);
    }
    if let Some(p) = st.pointed {
        let (x, y, cw, ch) = cell(p as usize, w, h);
        ctx.set_stroke_style_str(&bg);
        ctx.set_line_width(3.0 * dpr);
        let g = 2.5 * dpr;
        ctx.stroke_rect(x - g, y - g, cw + 2.0 * g, ch + 2.0 * g);
        ctx.set_stroke_style_str(&ink);
        ctx.set_line_width(1.5 * dpr);
        ctx.stroke_rect(x - g, y - g, cw + 2.0 * g, ch + 2.0 * g);
    }
}

/// The value of CSS custom property `name` on `el` (the theme's colours),
/// through `getComputedStyle`; `None` if unset.
fn css_var(el: &HtmlCanvasElement, name: &str) -> Option<String> {
    use js_sys::{Function, Reflect};
    let win = web_sys::window()?;
    let get: Function = Reflect::get(&win, &"getComputedStyle".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let style = get.call1(&win, el).ok()?;
    let value: Function = Reflect::get(&style, &"getPropertyValue".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let v = value.call1(&style, &name.into()).ok()?.as_string()?;
    let v = v.trim();
    (!v.is_empty()).then(|| v.to_string())
}

/// Diagonal lines over the given rectangles only (a clip), one every few
/// pixels: the slots nobody serves.
fn hatch(ctx: &CanvasRenderingContext2d, runs: &[(f64, f64, f64, f64)], w: f64, h: f64, dpr: f64) {
    ctx.save();
    ctx.begin_path();
    for &(x, y, rw, rh) in runs {
        ctx.rect(x, y, rw, rh);
    }
    ctx.clip();
    ctx.begin_path();
    let step = (5.0 * dpr).max(4.0);
    let mut d = -h;
    while d < w {
        ctx.move_to(d, h);
        ctx.line_to(d + h, 0.0);
        d += step;
    }
    ctx.set_stroke_style_str(DOWN_HATCH);
    ctx.set_line_width(dpr.max(1.0));
    ctx.stroke();
    ctx.restore();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_have_whole_pixel_edges_and_points_find_their_slot() {
        assert_eq!((edge(0, 700.0), edge(128, 700.0)), (0.0, 700.0));
        assert_eq!(edge(1, 700.0), 5.0);
        assert_eq!(slot_at(0.0, 0.0, 350.0, 350.0), Some(0));
        assert_eq!(slot_at(349.9, 349.9, 350.0, 350.0), Some(16383));
        assert_eq!(
            slot_at(350.0 * 5.5 / 128.0, 350.0 * 2.5 / 128.0, 350.0, 350.0),
            Some(2 * 128 + 5)
        );
        assert_eq!(slot_at(-1.0, 3.0, 350.0, 350.0), None);
        assert_eq!(slot_at(3.0, 3.0, 0.0, 0.0), None);
    }
}
