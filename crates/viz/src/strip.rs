//! Strips: one row of cells per `StripRow`, each cell coloured by its legend state, with the legend underneath.

use std::fmt::Write;

use redsim_sim::Strip;

use crate::svg::{self, esc, INK, PALETTE};

pub const WIDTH: f64 = 640.0;
const LABEL_W: f64 = 120.0;
const ROW_H: f64 = 18.0;
const ROW_GAP: f64 = 6.0;
const TOP: f64 = 28.0;

/// The colour of legend state `i`.
pub fn state_colour(i: usize) -> &'static str {
    // The first state reads as "nothing special": a neutral grey.
    if i == 0 {
        "#ced4da"
    } else {
        PALETTE[(i - 1) % PALETTE.len()]
    }
}

/// Draws `strip`. Cells narrower than a few pixels touch (no gap), so a
/// thousand keys still fit in one row.
pub fn strip_svg(strip: &Strip) -> String {
    let rows = strip.rows.len();
    let legend_y = TOP + rows as f64 * (ROW_H + ROW_GAP) + 10.0;
    let height = legend_y + 20.0;
    let mut out = String::new();
    svg::open(&mut out, WIDTH, height, "rsv-strip", &strip.title);
    svg::rect(&mut out, 0.0, 0.0, WIDTH, height, "fill=\"#fff\"");
    svg::text(
        &mut out,
        8.0,
        18.0,
        "start",
        &format!("font-weight=\"600\" font-size=\"13\" fill=\"{INK}\""),
        &strip.title,
    );
    let avail = WIDTH - LABEL_W - 10.0;
    for (r, row) in strip.rows.iter().enumerate() {
        let y = TOP + r as f64 * (ROW_H + ROW_GAP);
        svg::text(
            &mut out,
            LABEL_W - 8.0,
            y + 13.0,
            "end",
            &format!("fill=\"{INK}\" font-size=\"11\""),
            &svg::clip(&row.label, 18),
        );
        let n = row.cells.len().max(1) as f64;
        let cw = (avail / n).min(24.0);
        let gap = if cw >= 5.0 { 1.0 } else { 0.0 };
        let _ = write!(
            out,
            "<g class=\"rsv-strip-row\" data-row=\"{}\">",
            esc(&row.label)
        );
        // Runs of equal cells become one rectangle: far fewer elements for big strips.
        let mut i = 0;
        while i < row.cells.len() {
            let state = row.cells[i];
            let mut j = i + 1;
            if gap == 0.0 {
                while j < row.cells.len() && row.cells[j] == state {
                    j += 1;
                }
            }
            let name = strip.legend.get(state as usize).map_or("?", String::as_str);
            let _ = write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>",
                svg::px(LABEL_W + i as f64 * cw),
                svg::px(y),
                svg::px(((j - i) as f64 * cw - gap).max(0.5)),
                svg::px(ROW_H),
                state_colour(state as usize),
                esc(name)
            );
            i = j;
        }
        out.push_str("</g>");
    }
    let mut x = LABEL_W;
    out.push_str("<g class=\"rsv-legend\" font-size=\"11\">");
    for (i, name) in strip.legend.iter().enumerate() {
        svg::rect(
            &mut out,
            x,
            legend_y - 9.0,
            11.0,
            11.0,
            &format!("fill=\"{}\" rx=\"2\"", state_colour(i)),
        );
        svg::text(
            &mut out,
            x + 15.0,
            legend_y,
            "start",
            &format!("fill=\"{INK}\""),
            name,
        );
        x += 15.0 + svg::text_width(name, 11.0) + 14.0;
    }
    out.push_str("</g></svg>");
    out
}
