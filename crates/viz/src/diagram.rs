//! The race diagram: one vertical lane per actor, time flowing down, messages as arrows (errors in red), local actions as boxes, marks highlighted with their sentence, and a playback cursor that dims the future.
//!
//! Time runs down in *rows*, one per distinct instant, rather than to scale:
//! a race is a handful of events microseconds apart around a long quiet
//! wait, and a linear axis would squash the interesting part into one pixel.
//! Every row carries its virtual time on the left, so the spacing never
//! hides how far apart two events really were.

use std::fmt::Write;

use redsim_sim::{Diagram, Step};

use crate::svg::{self, esc, px, GREEN, GREY, INK, RED};

const TIME_W: f64 = 84.0;
const HEAD: f64 = 52.0;
const ROW: f64 = 28.0;
const NOTE_W: f64 = 300.0;
const NOTE_CHARS: usize = 46;
const NOTE_LINE: f64 = 14.0;
/// Opacity of everything after the cursor.
const DIM: &str = "0.16";

/// Width of one lane: narrower when there are many actors.
fn lane_w(lanes: usize) -> f64 {
    if lanes > 6 {
        120.0
    } else {
        160.0
    }
}

/// Fill and stroke of a lane header by the actor's kind.
fn kind_colours(kind: &str) -> (&'static str, &'static str) {
    match kind {
        "client" | "pod" | "app" | "user" => ("#e7f1ff", "#1f6fd1"),
        "redis" | "primary" | "replica" | "cache" => ("#fdecea", RED),
        "db" | "database" => ("#ebfbee", GREEN),
        "lock" | "sentinel" | "coordinator" => ("#f3e8fd", "#9c36b5"),
        _ => ("#f1f3f5", GREY),
    }
}

/// The colour of a mark by tone.
fn tone_colours(tone: &str) -> (&'static str, &'static str) {
    match tone {
        "bad" => ("#fff0ef", RED),
        "good" => ("#ebfbee", GREEN),
        _ => ("#e7f5ff", "#1971c2"),
    }
}

/// Every instant something starts, arrives or is marked, sorted and
/// distinct: the rows of the diagram and the stops of "step to next event".
pub fn event_times(d: &Diagram) -> Vec<u64> {
    let mut t: Vec<u64> = d
        .steps
        .iter()
        .flat_map(|s| [s.at_us, s.until_us.max(s.at_us)])
        .chain(d.marks.iter().map(|m| m.at_us))
        .collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// Draws `d`. With `cursor_us`, steps and marks after the cursor are dimmed,
/// messages in flight are dashed, and a line shows where the cursor is.
pub fn diagram_svg(d: &Diagram, cursor_us: Option<u64>) -> String {
    let lanes = d.lanes.len();
    let lw = lane_w(lanes);
    let times = event_times(d);
    let row_y = |i: usize| HEAD + 22.0 + i as f64 * ROW;
    let y_of = |t: u64| row_y(times.partition_point(|&x| x < t));
    let lane_x = |i: usize| TIME_W + lw * (i as f64 + 0.5);
    let notes_x = TIME_W + lw * lanes as f64 + 18.0;
    let last_y = row_y(times.len().saturating_sub(1));

    // Notes for marks first: their heights decide the drawing's height.
    let mut notes = Vec::new();
    let mut free_y = HEAD;
    for m in &d.marks {
        let lines = svg::wrap(&m.text, NOTE_CHARS);
        let top = (y_of(m.at_us) - 12.0).max(free_y);
        let h = 22.0 + lines.len() as f64 * NOTE_LINE;
        free_y = top + h + 8.0;
        notes.push((top, h, lines));
    }
    let width = if d.marks.is_empty() {
        TIME_W + lw * lanes.max(1) as f64 + 12.0
    } else {
        notes_x + NOTE_W + 10.0
    };
    let height = (last_y + ROW + 8.0).max(free_y + 4.0).max(HEAD + 60.0);

    let mut out = String::new();
    svg::open(&mut out, width, height, "rsv-diagram", "Race diagram");
    out.push_str(
        "<defs>\
         <marker id=\"rsv-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"#495057\"/></marker>\
         <marker id=\"rsv-arrow-err\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"#d8362b\"/></marker>\
         </defs>",
    );
    svg::rect(&mut out, 0.0, 0.0, width, height, "fill=\"#fff\"");
    if lanes == 0 {
        svg::text(
            &mut out,
            16.0,
            30.0,
            "start",
            &format!("fill=\"{GREY}\""),
            "no actors recorded",
        );
        out.push_str("</svg>");
        return out;
    }
    let future = |t: u64| cursor_us.is_some_and(|c| t > c);
    let dim = |t: u64| {
        if future(t) {
            format!(" opacity=\"{DIM}\"")
        } else {
            String::new()
        }
    };

    // Bands behind marked moments, so the eye finds them first.
    for m in &d.marks {
        let (fill, _) = tone_colours(&m.tone);
        let y = y_of(m.at_us);
        svg::rect(
            &mut out,
            TIME_W - 4.0,
            y - ROW / 2.0 + 3.0,
            lw * lanes as f64 + 8.0,
            ROW - 6.0,
            &format!("fill=\"{fill}\"{}", dim(m.at_us)),
        );
    }
    // Lane headers and lifelines.
    for (i, lane) in d.lanes.iter().enumerate() {
        let x = lane_x(i);
        let (fill, stroke) = kind_colours(&lane.kind);
        svg::line(
            &mut out,
            x,
            HEAD - 8.0,
            x,
            height - 6.0,
            "stroke=\"#ced4da\" stroke-dasharray=\"4 4\"",
        );
        let _ = write!(
            out,
            "<g class=\"rsv-lane\" data-lane=\"{i}\"><title>{}</title>",
            esc(&lane.kind)
        );
        svg::rect(
            &mut out,
            x - lw / 2.0 + 10.0,
            8.0,
            lw - 20.0,
            HEAD - 16.0,
            &format!("fill=\"{fill}\" stroke=\"{stroke}\" rx=\"6\""),
        );
        let chars = ((lw - 28.0) / 7.0) as usize;
        svg::text(
            &mut out,
            x,
            26.0,
            "middle",
            &format!("font-weight=\"600\" fill=\"{INK}\""),
            &svg::clip(&lane.name, chars),
        );
        svg::text(
            &mut out,
            x,
            39.0,
            "middle",
            &format!("fill=\"{GREY}\" font-size=\"10\""),
            &svg::clip(&lane.kind, chars),
        );
        out.push_str("</g>");
    }
    // The time of every row.
    for (i, &t) in times.iter().enumerate() {
        let _ = write!(out, "<g{}>", dim(t));
        svg::text(
            &mut out,
            TIME_W - 10.0,
            row_y(i) + 4.0,
            "end",
            &format!("fill=\"{GREY}\" font-size=\"10\""),
            &svg::time_exact(t),
        );
        out.push_str("</g>");
    }
    for s in &d.steps {
        if s.from >= lanes || s.to >= lanes {
            continue;
        }
        step(&mut out, s, &y_of, &lane_x, lw, cursor_us, &dim(s.at_us));
    }
    for (m, (top, h, lines)) in d.marks.iter().zip(&notes) {
        let (fill, stroke) = tone_colours(&m.tone);
        let y = y_of(m.at_us);
        let _ = write!(
            out,
            "<g class=\"rsv-mark rsv-mark-{}\" data-at=\"{}\"{}>",
            esc(&m.tone),
            m.at_us,
            dim(m.at_us)
        );
        if m.lane < lanes {
            let x = lane_x(m.lane);
            svg::line(
                &mut out,
                x,
                y,
                notes_x,
                top + 11.0,
                &format!("stroke=\"{stroke}\" stroke-dasharray=\"2 3\""),
            );
            let _ = write!(
                out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"{stroke}\" stroke=\"#fff\" stroke-width=\"2\"/>",
                px(x),
                px(y)
            );
        }
        svg::rect(
            &mut out,
            notes_x,
            *top,
            NOTE_W,
            *h,
            &format!("fill=\"{fill}\" stroke=\"{stroke}\" rx=\"5\""),
        );
        let tone_word = match m.tone.as_str() {
            "bad" => "✗ ",
            "good" => "✓ ",
            _ => "",
        };
        svg::text(
            &mut out,
            notes_x + 8.0,
            top + 15.0,
            "start",
            &format!("fill=\"{stroke}\" font-weight=\"600\" font-size=\"11\""),
            &format!("{tone_word}at {}", svg::time_exact(m.at_us)),
        );
        for (k, l) in lines.iter().enumerate() {
            svg::text(
                &mut out,
                notes_x + 8.0,
                top + 30.0 + k as f64 * NOTE_LINE,
                "start",
                &format!("fill=\"{INK}\" font-size=\"11\""),
                l,
            );
        }
        out.push_str("</g>");
    }
    if let Some(c) = cursor_us {
        let y = cursor_y(&times, c, &row_y);
        let x1 = TIME_W + lw * lanes as f64;
        svg::line(
            &mut out,
            4.0,
            y,
            x1,
            y,
            &format!("class=\"rsv-cursor\" stroke=\"{INK}\" stroke-width=\"1.2\""),
        );
        let label = svg::time_exact(c);
        svg::rect(
            &mut out,
            2.0,
            y - 8.0,
            svg::text_width(&label, 10.0) + 8.0,
            15.0,
            &format!("fill=\"{INK}\" rx=\"3\""),
        );
        svg::text(
            &mut out,
            6.0,
            y + 3.5,
            "start",
            "fill=\"#fff\" font-size=\"10\"",
            &label,
        );
    }
    out.push_str("</svg>");
    out
}

/// Where the cursor line goes: on a row at an event's instant, in between
/// rows proportionally to time otherwise.
fn cursor_y(times: &[u64], c: u64, row_y: &dyn Fn(usize) -> f64) -> f64 {
    let p = times.partition_point(|&t| t <= c);
    if p == 0 {
        return HEAD + 4.0;
    }
    if p == times.len() {
        return row_y(p - 1) + ROW / 2.0;
    }
    let (a, b) = (times[p - 1], times[p]);
    let frac = (c - a) as f64 / (b - a).max(1) as f64;
    row_y(p - 1) + frac * ROW
}

fn step(
    out: &mut String,
    s: &Step,
    y_of: &dyn Fn(u64) -> f64,
    lane_x: &dyn Fn(usize) -> f64,
    lw: f64,
    cursor_us: Option<u64>,
    dim: &str,
) {
    let colour = if s.error { RED } else { "#495057" };
    let (ya, yb) = (y_of(s.at_us), y_of(s.until_us.max(s.at_us)));
    let in_flight = cursor_us.is_some_and(|c| s.at_us <= c && c < s.until_us);
    let _ = write!(
        out,
        "<g class=\"rsv-step{}\" data-at=\"{}\"{dim}>",
        if s.error { " rsv-error" } else { "" },
        s.at_us
    );
    if s.from == s.to {
        // A local action: a box on the lane as long as it lasts.
        let x = lane_x(s.from);
        let top = ya - 7.0;
        let h = (yb - ya) + 14.0;
        svg::rect(
            out,
            x - 7.0,
            top,
            14.0,
            h,
            &format!("fill=\"#fff\" stroke=\"{colour}\" rx=\"3\""),
        );
        let chars = ((lw - 20.0) / 6.2) as usize;
        svg::text(out, x + 12.0, ya + 4.0, "start", &format!("fill=\"{colour}\" font-size=\"11\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\""), &svg::clip(&s.label, chars));
    } else {
        let (xa, xb) = (lane_x(s.from), lane_x(s.to));
        let marker = if s.error {
            "rsv-arrow-err"
        } else {
            "rsv-arrow"
        };
        let dash = if in_flight {
            " stroke-dasharray=\"5 3\""
        } else {
            ""
        };
        svg::line(
            out,
            xa,
            ya,
            xb,
            yb,
            &format!(
                "stroke=\"{colour}\" stroke-width=\"1.4\" marker-end=\"url(#{marker})\"{dash}"
            ),
        );
        let span = (xb - xa).abs();
        let chars = ((span - 12.0) / 6.2).max(6.0) as usize;
        let (mx, my) = ((xa + xb) / 2.0, (ya + yb) / 2.0 - 5.0);
        svg::text(out, mx, my, "middle", &format!("fill=\"{colour}\" font-size=\"11\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\""), &svg::clip(&s.label, chars));
    }
    let _ = write!(out, "<title>{}</title></g>", esc(&s.label));
}
