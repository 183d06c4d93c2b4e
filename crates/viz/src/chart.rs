//! Line and bar charts of an Outcome's `Chart`: axes with round ticks, a legend, axis labels with units, and an optional playback cursor.

use std::fmt::Write;

use redsim_sim::{Chart, ChartKind};

use crate::svg::{self, esc, px, GREY, INK, PALETTE};

/// Size of one chart.
pub const WIDTH: f64 = 640.0;
pub const HEIGHT: f64 = 280.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 18.0;
const TOP: f64 = 46.0;
const BOTTOM: f64 = 46.0;

/// Draws `chart`. For a line chart, `cursor_x` (in the chart's x unit,
/// virtual seconds for time series) draws the playback position as a
/// vertical line and greys out what lies after it.
pub fn chart_svg(chart: &Chart, cursor_x: Option<f64>) -> String {
    let mut out = String::new();
    svg::open(&mut out, WIDTH, HEIGHT, "rsv-chart", &summary(chart));
    svg::rect(&mut out, 0.0, 0.0, WIDTH, HEIGHT, "fill=\"#fff\"");
    svg::text(
        &mut out,
        LEFT - 50.0,
        18.0,
        "start",
        &format!("font-weight=\"600\" font-size=\"13\" fill=\"{INK}\""),
        &chart.title,
    );
    legend(&mut out, chart);
    let points = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|p| p.0.is_finite() && p.1.is_finite());
    if points.clone().next().is_none() {
        frame(&mut out);
        svg::text(
            &mut out,
            LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
            TOP + (HEIGHT - TOP - BOTTOM) / 2.0,
            "middle",
            &format!("fill=\"{GREY}\""),
            "no data",
        );
        out.push_str("</svg>");
        return out;
    }
    match chart.kind {
        ChartKind::Line => line_body(&mut out, chart, cursor_x),
        ChartKind::Bar => bar_body(&mut out, chart),
    }
    out.push_str("</svg>");
    out
}

/// The chart in words, for a screen reader (the svg's accessible name):
/// its title, axes, and each series' range, or each bar's value.
pub fn summary(chart: &Chart) -> String {
    let mut s = format!("{}.", chart.title);
    let finite = |p: &&(f64, f64)| p.0.is_finite() && p.1.is_finite();
    match chart.kind {
        ChartKind::Line => {
            let _ = write!(s, " {} against {}.", chart.y_label, chart.x_label);
            for series in &chart.series {
                let pts: Vec<&(f64, f64)> = series.points.iter().filter(finite).collect();
                let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
                    let _ = write!(s, " {}: no data.", series.name);
                    continue;
                };
                let lo = pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
                let hi = pts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
                let _ = write!(
                    s,
                    " {}: from {} to {} over {} to {}, lowest {}, highest {}.",
                    series.name,
                    num(first.1),
                    num(last.1),
                    num(first.0),
                    num(last.0),
                    num(lo),
                    num(hi)
                );
            }
        }
        ChartKind::Bar => {
            let _ = write!(s, " {}.", chart.y_label);
            for series in &chart.series {
                let bars: Vec<String> = series
                    .points
                    .iter()
                    .filter(finite)
                    .map(|p| {
                        let name = chart
                            .categories
                            .get(p.0 as usize)
                            .map_or_else(|| num(p.0), Clone::clone);
                        format!("{name} {}", num(p.1))
                    })
                    .collect();
                let _ = write!(s, " {}: {}.", series.name, bars.join(", "));
            }
        }
    }
    s
}

/// A value for the summary: whole numbers plainly, others to 3 significant digits.
fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{v:.digits$}")
    }
}

/// Plot area bounds: (x0, y0, x1, y1) with y0 at the top.
fn area() -> (f64, f64, f64, f64) {
    (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)
}

fn frame(out: &mut String) {
    let (x0, y0, x1, y1) = area();
    svg::line(out, x0, y1, x1, y1, &format!("stroke=\"{GREY}\""));
    svg::line(out, x0, y0, x0, y1, &format!("stroke=\"{GREY}\""));
}

/// The x axis' name, centred under the plot area.
fn x_label(out: &mut String, label: &str) {
    let (x0, _, x1, _) = area();
    svg::text(
        out,
        (x0 + x1) / 2.0,
        HEIGHT - 8.0,
        "middle",
        &format!("fill=\"{INK}\" font-size=\"11\""),
        label,
    );
}

/// Names and colours of the series, right-aligned on the title row.
fn legend(out: &mut String, chart: &Chart) {
    let widths: Vec<f64> = chart
        .series
        .iter()
        .map(|s| 16.0 + svg::text_width(&s.name, 11.0) + 12.0)
        .collect();
    let total: f64 = widths.iter().sum();
    // Too wide for one row beside the title: start at the left on row two.
    let (mut x, y) = if total > WIDTH / 2.0 {
        (LEFT - 50.0, 34.0)
    } else {
        (WIDTH - RIGHT - total, 18.0)
    };
    out.push_str("<g class=\"rsv-legend\" font-size=\"11\">");
    for (i, (s, w)) in chart.series.iter().zip(&widths).enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        svg::rect(
            out,
            x,
            y - 8.0,
            11.0,
            8.0,
            &format!("fill=\"{colour}\" rx=\"1.5\""),
        );
        svg::text(
            out,
            x + 15.0,
            y,
            "start",
            &format!("fill=\"{INK}\""),
            &s.name,
        );
        x += w;
    }
    out.push_str("</g>");
}

/// Horizontal grid lines with the y tick labels, and the rotated y label.
fn y_axis(out: &mut String, ticks: &[f64], y_of: &dyn Fn(f64) -> f64, label: &str) {
    let (x0, _, x1, y1) = area();
    for &t in ticks {
        let y = y_of(t);
        svg::line(out, x0, y, x1, y, "stroke=\"#e9ecef\"");
        svg::text(
            out,
            x0 - 6.0,
            y + 4.0,
            "end",
            &format!("fill=\"{GREY}\" font-size=\"11\""),
            &svg::num(t),
        );
    }
    let mid = (TOP + y1) / 2.0;
    let _ = write!(
        out,
        "<text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\" fill=\"{INK}\" font-size=\"11\">{}</text>",
        px(mid),
        esc(label)
    );
}

fn line_body(out: &mut String, chart: &Chart, cursor_x: Option<f64>) {
    let (x0, y0, x1, y1) = area();
    let finite = |p: &&(f64, f64)| p.0.is_finite() && p.1.is_finite();
    let all: Vec<(f64, f64)> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().filter(finite).copied())
        .collect();
    let (mut xmin, mut xmax) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    if xmax - xmin < 1e-12 {
        xmin -= 1.0;
        xmax += 1.0;
    }
    let ymin = all.iter().fold(0f64, |a, p| a.min(p.1));
    let ymax = all.iter().fold(0f64, |a, p| a.max(p.1));
    let yt = svg::nice_ticks(ymin, ymax, 5);
    let (ylo, yhi) = (yt[0], yt[yt.len() - 1]);
    let x_of = |x: f64| x0 + (x - xmin) / (xmax - xmin) * (x1 - x0);
    let y_of = |y: f64| y1 - (y - ylo) / (yhi - ylo) * (y1 - y0);
    y_axis(out, &yt, &y_of, &chart.y_label);
    // X ticks inside the data range only: the line starts where data starts.
    for t in svg::nice_ticks(xmin, xmax, 6) {
        if t < xmin - 1e-9 || t > xmax + 1e-9 {
            continue;
        }
        let x = x_of(t);
        svg::line(out, x, y1, x, y1 + 4.0, &format!("stroke=\"{GREY}\""));
        svg::text(
            out,
            x,
            y1 + 16.0,
            "middle",
            &format!("fill=\"{GREY}\" font-size=\"11\""),
            &svg::num(t),
        );
    }
    frame(out);
    x_label(out, &chart.x_label);
    for (i, s) in chart.series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let pts: Vec<&(f64, f64)> = s.points.iter().filter(finite).collect();
        let _ = write!(
            out,
            "<g class=\"rsv-series\" data-series=\"{}\">",
            esc(&s.name)
        );
        if pts.len() == 1 {
            let _ = write!(
                out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{colour}\"/>",
                px(x_of(pts[0].0)),
                px(y_of(pts[0].1))
            );
        } else if !pts.is_empty() {
            let coords: Vec<String> = pts
                .iter()
                .map(|p| format!("{},{}", px(x_of(p.0)), px(y_of(p.1))))
                .collect();
            let _ = write!(
                out,
                "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.8\" stroke-linejoin=\"round\" points=\"{}\"/>",
                coords.join(" ")
            );
        }
        out.push_str("</g>");
    }
    if let Some(c) = cursor_x.filter(|c| c.is_finite()) {
        let c = c.clamp(xmin, xmax);
        let x = x_of(c);
        // Veil over the future, then the cursor line itself.
        svg::rect(
            out,
            x,
            y0,
            x1 - x,
            y1 - y0,
            "class=\"rsv-future\" fill=\"#fff\" fill-opacity=\"0.6\"",
        );
        svg::line(
            out,
            x,
            y0 - 4.0,
            x,
            y1,
            &format!("class=\"rsv-cursor\" stroke=\"{INK}\" stroke-width=\"1.2\""),
        );
        svg::text(
            out,
            x,
            y0 - 7.0,
            "middle",
            &format!("fill=\"{INK}\" font-size=\"10\""),
            &svg::num(c),
        );
    }
}

fn bar_body(out: &mut String, chart: &Chart) {
    let (x0, y0, x1, y1) = area();
    // A category per index in `categories`, or per distinct x when unnamed.
    let n_cat = if chart.categories.is_empty() {
        chart
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| p.0.is_finite())
            .map(|p| p.0.round().max(0.0) as usize + 1)
            .max()
            .unwrap_or(1)
            .min(200)
    } else {
        chart.categories.len()
    };
    let (ymin, ymax) = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|p| p.1.is_finite())
        .fold((0f64, 0f64), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    let yt = svg::nice_ticks(ymin, ymax, 5);
    let (ylo, yhi) = (yt[0], yt[yt.len() - 1]);
    let y_of = |y: f64| y1 - (y - ylo) / (yhi - ylo) * (y1 - y0);
    y_axis(out, &yt, &y_of, &chart.y_label);
    frame(out);
    let slot = (x1 - x0) / n_cat as f64;
    let n_series = chart.series.len().max(1) as f64;
    let bar_w = (slot * 0.8 / n_series).min(60.0);
    let group_w = bar_w * n_series;
    for c in 0..n_cat {
        let cx = x0 + slot * (c as f64 + 0.5);
        let name = chart
            .categories
            .get(c)
            .cloned()
            .unwrap_or_else(|| c.to_string());
        let max_chars = ((slot / 6.5) as usize).max(3);
        svg::text(
            out,
            cx,
            y1 + 16.0,
            "middle",
            &format!("fill=\"{INK}\" font-size=\"11\""),
            &svg::clip(&name, max_chars),
        );
    }
    if !chart.x_label.is_empty() {
        x_label(out, &chart.x_label);
    }
    let zero = y_of(0f64.clamp(ylo, yhi));
    for (i, s) in chart.series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let _ = write!(
            out,
            "<g class=\"rsv-series\" data-series=\"{}\">",
            esc(&s.name)
        );
        for &(x, y) in &s.points {
            if !x.is_finite() || !y.is_finite() || x < -0.5 {
                continue;
            }
            let c = x.round() as usize;
            if c >= n_cat {
                continue;
            }
            let bx = x0 + slot * (c as f64 + 0.5) - group_w / 2.0 + bar_w * i as f64;
            let by = y_of(y);
            let (top, h) = if by < zero {
                (by, zero - by)
            } else {
                (zero, by - zero)
            };
            svg::rect(
                out,
                bx,
                top,
                bar_w - 1.0,
                h.max(0.5),
                &format!("fill=\"{colour}\""),
            );
            if bar_w >= 16.0 {
                svg::text(
                    out,
                    bx + bar_w / 2.0,
                    top - 3.0,
                    "middle",
                    &format!("fill=\"{INK}\" font-size=\"10\""),
                    &svg::num(y),
                );
            }
        }
        out.push_str("</g>");
    }
}
