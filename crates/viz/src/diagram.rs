//! The race diagram: one vertical lane per actor, time flowing down, messages as arrows (errors in red), local actions as boxes, marks highlighted with their sentence, and a playback cursor that dims the future; laid out to the width it is given.
//!
//! Time runs down in *rows*, one per distinct instant, rather than to scale:
//! a race is a handful of events microseconds apart around a long quiet
//! wait, and a linear axis would squash the interesting part into one pixel.
//! Every row carries its virtual time on the left, so the spacing never
//! hides how far apart two events really were.
//!
//! The drawing never gets wider than the width asked for: lanes share what
//! is left after the time column, mark callouts sit in a column on the
//! right when there is room and under their row otherwise, and every label
//! is placed where it collides with no other (above or below its arrow,
//! either side of its action), shortened with an ellipsis when it must be
//! (the step's `<title>` keeps the whole text as a tooltip).

use std::fmt::Write;

use redsim_sim::{Diagram, Step};

use crate::svg::{self, esc, px, GREEN, GREY, INK, RED};

/// Width drawn when the caller has no box to fit (files, `redsim run --svg`).
pub const DEFAULT_WIDTH: f64 = 960.0;
/// Narrowest layout: below this the drawing overflows rather than squash.
const MIN_WIDTH: f64 = 260.0;
/// Height of the lane headers (taller when names stand upright in narrow lanes).
const HEAD: f64 = 52.0;
/// Lanes narrower than this get their names upright.
const LANE_UPRIGHT: f64 = 64.0;
/// Longest upright name, px.
const UPRIGHT_MAX: f64 = 104.0;
const ROW: f64 = 32.0;
/// Widest a lane gets; a narrow diagram in a wide box stays compact.
const LANE_MAX: f64 = 160.0;
/// Narrowest lane beside a callout column; below it callouts go under their row.
const LANE_SIDE_MIN: f64 = 104.0;
const LANE_MIN: f64 = 16.0;
const NOTE_MAX: f64 = 300.0;
const NOTE_MIN: f64 = 230.0;
const NOTE_LINE: f64 = 14.0;
const LABEL_SIZE: f64 = 11.0;
/// Half the room an arrow's label has at least, px.
const ARROW_ROOM: f64 = 50.0;
/// Room kept between two labels.
const GAP: f64 = 3.0;
/// Opacity of everything after the cursor.
pub const FUTURE_OPACITY: &str = "0.16";
/// A message's stroke while it is in flight at the cursor.
pub const IN_FLIGHT_DASH: &str = "5 3";

/// Whatever happens at `at_us` is dimmed with the cursor at `cursor_us`.
pub fn is_future(at_us: u64, cursor_us: u64) -> bool {
    at_us > cursor_us
}

/// A message sent at `at_us` and received at `until_us` is on its way with
/// the cursor at `cursor_us` (drawn dashed).
pub fn in_flight(at_us: u64, until_us: u64, cursor_us: u64) -> bool {
    at_us <= cursor_us && cursor_us < until_us
}

/// Fill and stroke of a lane header by the actor's kind.
fn kind_colours(kind: &str) -> (&'static str, &'static str, &'static str) {
    match kind {
        "client" | "pod" | "app" | "user" => ("#e7f1ff", "#1f6fd1", "client"),
        "redis" | "primary" | "replica" | "cache" => ("#fdecea", RED, "redis"),
        "db" | "database" => ("#ebfbee", GREEN, "db"),
        "lock" | "sentinel" | "coordinator" => ("#f3e8fd", "#9c36b5", "coord"),
        _ => ("#f1f3f5", GREY, "other"),
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

/// Advance of one character in ems, generous for the widest common UI
/// font (DejaVu Sans), so a label measured here is never wider on screen.
fn char_em(c: char) -> f64 {
    match c {
        'm' | 'M' | 'W' | '@' | '%' => 1.0,
        'w' => 0.84,
        'i' | 'l' | 'j' | 'I' | 'J' | '\'' | '|' => 0.3,
        'f' | 't' | 'r' => 0.43,
        ' ' | '.' | ',' | ':' | ';' | '!' => 0.35,
        '-' | '(' | ')' | '[' | ']' | '/' | '\\' => 0.41,
        's' | 'c' | 'z' => 0.57,
        'a'..='z' | '0'..='9' | '_' | '"' | '*' | '?' => 0.66,
        'A'..='Z' => 0.8,
        '=' | '+' | '<' | '>' | '#' | '~' | '^' | '{' | '}' | '&' => 0.86,
        c if c.is_ascii() => 0.66,
        _ => 1.0,
    }
}

/// Estimated width of `text` at `size` px (bold a little wider).
pub fn label_width(text: &str, size: f64, bold: bool) -> f64 {
    let em: f64 = text.chars().map(char_em).sum();
    em * size * if bold { 1.12 } else { 1.0 }
}

/// `text` shortened with an ellipsis to fit `width` px at `size`.
fn fit(text: &str, width: f64, size: f64, bold: bool) -> String {
    if label_width(text, size, bold) <= width {
        return text.to_string();
    }
    let mut n = text.chars().count();
    while n > 1 {
        n -= 1;
        let s = svg::clip(text, n);
        if label_width(&s, size, bold) <= width {
            return s;
        }
    }
    String::new()
}

/// Lines of at most `width` px, words kept whole unless one alone is too wide.
fn wrap_px(text: &str, width: f64, size: f64) -> Vec<String> {
    let chars = (width / (size * 0.66)).floor().max(4.0) as usize;
    svg::wrap(text, chars)
        .into_iter()
        .map(|l| fit(&l, width, size, false))
        .collect()
}

/// A box in drawing coordinates.
#[derive(Clone, Copy, Debug)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn hits(&self, o: &Rect) -> bool {
        self.x0 < o.x1 + GAP && o.x0 < self.x1 + GAP && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// The box of a text of width `w` with its baseline at `y`.
    fn text(x0: f64, w: f64, y: f64, size: f64) -> Rect {
        Rect {
            x0,
            y0: y - 0.96 * size,
            x1: x0 + w,
            y1: y + 0.27 * size,
        }
    }
}

/// One mark's callout.
struct Note {
    x: f64,
    top: f64,
    w: f64,
    h: f64,
    lines: Vec<String>,
}

/// Where everything goes for one width.
struct Layout {
    width: f64,
    height: f64,
    /// Height of the lane headers.
    head: f64,
    /// Lane names stand upright (the lanes are narrow).
    upright: bool,
    /// Width of the time column (labels right-aligned in it).
    tw: f64,
    /// Font size of the row times.
    time_size: f64,
    lw: f64,
    lanes: usize,
    /// Callouts in a column on the right (else under their row).
    side: bool,
    /// Right edge labels may reach.
    right: f64,
    times: Vec<u64>,
    rows: Vec<f64>,
    notes: Vec<Note>,
}

impl Layout {
    fn new(d: &Diagram, width: f64) -> Layout {
        let width = width.max(MIN_WIDTH);
        let lanes = d.lanes.len().max(1);
        let times = event_times(d);
        let time_w = |size: f64| {
            times
                .iter()
                .map(|&t| label_width(&svg::time_exact(t), size, false))
                .fold(30.0, f64::max)
        };
        // Many lanes in a narrow box: the time column gives up a little.
        let crowded = (width - time_w(10.0) - 26.0) / (lanes as f64) < 24.0;
        let time_size = if crowded { 9.0 } else { 10.0 };
        let tw = time_w(time_size) + if crowded { 12.0 } else { 18.0 };
        // Lanes widen (up to 300 px) for arrow labels that would not fit.
        let lane_max = d
            .steps
            .iter()
            .filter(|s| s.from != s.to)
            .map(|s| {
                let span = s.from.abs_diff(s.to).max(1) as f64;
                (label_width(&s.label, LABEL_SIZE, false) + 24.0) / span
            })
            .fold(LANE_MAX, f64::max)
            .min(300.0);
        let note_side = (width * 0.3).clamp(NOTE_MIN, NOTE_MAX);
        let side_lw = (width - tw - note_side - 26.0) / lanes as f64;
        let side = !d.marks.is_empty() && side_lw >= LANE_SIDE_MIN;
        let (lw, note_x, note_w) = if d.marks.is_empty() {
            ((width - tw - 10.0) / lanes as f64, 0.0, 0.0)
        } else if side {
            let lw = side_lw.min(lane_max);
            (lw, tw + lw * lanes as f64 + 18.0, note_side)
        } else {
            let lw = (width - tw - 4.0) / lanes as f64;
            (lw, 8.0, 0.0)
        };
        let lw = lw.clamp(LANE_MIN, lane_max);
        let upright =
            lw < LANE_UPRIGHT && d.lanes.iter().any(|l| head_lines(&l.name, lw).is_none());
        let head = if upright {
            d.lanes
                .iter()
                .map(|l| label_width(&l.name, 11.0, true))
                .fold(30.0, f64::max)
                .min(UPRIGHT_MAX)
                + 30.0
        } else {
            HEAD
        };
        let lanes_end = tw + lw * lanes as f64;
        // Inline callouts span the drawing, at least the lanes' width.
        let note_w = if side || d.marks.is_empty() {
            note_w
        } else {
            (lanes_end.max(width.min(560.0)) - 16.0).max(120.0)
        };
        let width = if d.marks.is_empty() {
            lanes_end + 10.0
        } else if side {
            note_x + note_w + 8.0
        } else {
            (note_x + note_w + 8.0).max(lanes_end + 4.0)
        };
        let row_of = |t: u64| times.partition_point(|&x| x < t);
        let mut rows = Vec::with_capacity(times.len());
        let mut notes: Vec<Note> = Vec::with_capacity(d.marks.len());
        let text_w = note_w - 16.0;
        let note_of = |m: &redsim_sim::Mark, x: f64, top: f64| {
            let lines = wrap_px(&m.text, text_w, LABEL_SIZE);
            let h = 24.0 + lines.len() as f64 * NOTE_LINE;
            Note {
                x,
                top,
                w: note_w,
                h,
                lines,
            }
        };
        let mut bottom = head + 22.0;
        if side {
            let mut free_y = head;
            rows.extend((0..times.len()).map(|i| head + 22.0 + i as f64 * ROW));
            for m in &d.marks {
                let top = (rows[row_of(m.at_us).min(rows.len() - 1)] - 12.0).max(free_y);
                let n = note_of(m, note_x, top);
                free_y = top + n.h + 8.0;
                notes.push(n);
            }
            bottom = bottom.max(free_y);
        } else {
            // Marks in row order, each callout right under its row.
            let mut order: Vec<usize> = (0..d.marks.len()).collect();
            redsim_engine::sort::sort_by_key(&mut order, |&k| d.marks[k].at_us);
            let mut slots: Vec<Option<Note>> = (0..d.marks.len()).map(|_| None).collect();
            let mut next = order.iter().peekable();
            let mut y = head + 22.0;
            for i in 0..times.len() {
                rows.push(y);
                let mut below = y + 16.0;
                let mut any = false;
                while let Some(&&k) = next.peek() {
                    if row_of(d.marks[k].at_us) != i {
                        break;
                    }
                    next.next();
                    let n = note_of(&d.marks[k], note_x, below);
                    below += n.h + 6.0;
                    slots[k] = Some(n);
                    any = true;
                }
                y = if any { below + 22.0 } else { y + ROW };
            }
            notes.extend(slots.into_iter().flatten());
        }
        if let Some(&last) = rows.last() {
            bottom = bottom.max(last + ROW);
        }
        for n in &notes {
            bottom = bottom.max(n.top + n.h + 8.0);
        }
        let right = if side { note_x - 6.0 } else { width - 4.0 };
        Layout {
            width,
            height: bottom.max(head + 60.0),
            head,
            upright,
            tw,
            time_size,
            lw,
            lanes: d.lanes.len(),
            side,
            right,
            times,
            rows,
            notes,
        }
    }

    fn lane_x(&self, i: usize) -> f64 {
        self.tw + self.lw * (i as f64 + 0.5)
    }

    fn lanes_end(&self) -> f64 {
        self.tw + self.lw * self.lanes as f64
    }

    fn y_of(&self, t: u64) -> f64 {
        let i = self.times.partition_point(|&x| x < t);
        self.rows
            .get(i.min(self.rows.len().saturating_sub(1)))
            .copied()
            .unwrap_or(self.head + 22.0)
    }

    /// [`Layout::new`] at `width`, or at the default width when it is not a
    /// number (a box not measured yet).
    fn fit(d: &Diagram, width: f64) -> Layout {
        Layout::new(
            d,
            if width.is_finite() {
                width
            } else {
                DEFAULT_WIDTH
            },
        )
    }

    /// Where the cursor line goes: on a row at an event's instant, in
    /// between rows proportionally to time otherwise.
    fn cursor_y(&self, c: u64) -> f64 {
        let p = self.times.partition_point(|&t| t <= c);
        if p == 0 {
            return self.head + 4.0;
        }
        if p == self.times.len() {
            return self.rows[p - 1] + ROW / 2.0;
        }
        let (a, b) = (self.times[p - 1], self.times[p]);
        let frac = (c - a) as f64 / (b - a).max(1) as f64;
        self.rows[p - 1] + frac * (self.rows[p] - self.rows[p - 1])
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
    redsim_engine::sort::sort(&mut t);
    t.dedup();
    t
}

/// A step's label where it fits: (x, baseline, anchor, text).
type Placed = (f64, f64, &'static str, String);

/// Boxes already used, and the search for a free one.
struct Placer {
    taken: Vec<Rect>,
}

impl Placer {
    fn free(&self, r: &Rect) -> bool {
        !self.taken.iter().any(|t| t.hits(r))
    }

    /// Takes the first free candidate box.
    fn take(&mut self, r: Rect) -> bool {
        if self.free(&r) {
            self.taken.push(r);
            true
        } else {
            false
        }
    }

    /// An arrow's label: above the arrow's middle, else below it, centred
    /// or against either end, shortened until one of those is free.
    fn arrow(
        &mut self,
        label: &str,
        span: (f64, f64),
        ya: f64,
        yb: f64,
        bounds: (f64, f64),
    ) -> Option<Placed> {
        let (xa, xb) = span;
        let (mut lo, mut hi) = (xa.min(xb) + 9.0, xa.max(xb) - 9.0);
        // A short arrow's label may reach past its ends, centred on it.
        let c = (xa + xb) / 2.0;
        if hi - lo < 2.0 * ARROW_ROOM {
            lo = (c - ARROW_ROOM).max(bounds.0);
            hi = (c + ARROW_ROOM).min(bounds.1);
        }
        let mid = (ya + yb) / 2.0;
        for text in shortenings(label, hi - lo) {
            let w = label_width(&text, LABEL_SIZE, false);
            for base in [mid - 5.0, mid + 13.0] {
                let c = (lo + hi) / 2.0;
                for (x0, x, anchor) in [
                    (c - w / 2.0, c, "middle"),
                    (lo, lo, "start"),
                    (hi - w, hi, "end"),
                ] {
                    if self.take(Rect::text(x0, w, base, LABEL_SIZE)) {
                        return Some((x, base, anchor, text));
                    }
                }
            }
        }
        None
    }

    /// A local action's label: right of its box, else left of it.
    fn local(&mut self, label: &str, x: f64, y: f64, left: f64, right: f64) -> Option<Placed> {
        let base = y + 4.0;
        for text in shortenings(label, (right - x - 12.0).max(x - 12.0 - left)) {
            let w = label_width(&text, LABEL_SIZE, false);
            if x + 12.0 + w <= right && self.take(Rect::text(x + 12.0, w, base, LABEL_SIZE)) {
                return Some((x + 12.0, base, "start", text));
            }
            if x - 12.0 - w >= left && self.take(Rect::text(x - 12.0 - w, w, base, LABEL_SIZE)) {
                return Some((x - 12.0, base, "end", text));
            }
        }
        None
    }
}

/// `label` whole (if it fits `room`), then ever shorter with an ellipsis,
/// down to three characters.
fn shortenings(label: &str, room: f64) -> Vec<String> {
    let mut out = Vec::new();
    let first = fit(label, room, LABEL_SIZE, false);
    let mut n = first.chars().count();
    if n == 0 {
        return out;
    }
    out.push(first.clone());
    while n > 4 {
        n = (n * 4 / 5).max(4);
        let s = svg::clip(label, n);
        if out.last() != Some(&s) {
            out.push(s);
        }
    }
    out
}

/// Where [`diagram_svg_fit`] draws the cursor line at `cursor_us` for this
/// width (px from the top), so a page can scroll it into view.
pub fn diagram_cursor_y(d: &Diagram, cursor_us: u64, width: f64) -> f64 {
    Layout::fit(d, width).cursor_y(cursor_us)
}

/// The playback cursor as [`diagram_svg_fit`] draws it: its line's `y` in
/// the drawing, and the tag that names the instant with its width.
#[derive(Debug, Clone, PartialEq)]
pub struct DiagramCursor {
    pub y: f64,
    pub label: String,
    pub tag_w: f64,
}

/// Where and how [`diagram_svg_fit`] draws the cursor at `cursor_us` for
/// this width, for a page that moves it over [`diagram_svg_live`].
pub fn diagram_cursor(d: &Diagram, cursor_us: u64, width: f64) -> DiagramCursor {
    let lay = Layout::fit(d, width);
    cursor_mark(&lay, cursor_us)
}

fn cursor_mark(lay: &Layout, c: u64) -> DiagramCursor {
    let label = svg::time_exact(c);
    DiagramCursor {
        y: lay.cursor_y(c),
        tag_w: label_width(&label, 10.0, false) + 8.0,
        label,
    }
}

/// Draws `d` at the default width; see [`diagram_svg_fit`].
pub fn diagram_svg(d: &Diagram, cursor_us: Option<u64>) -> String {
    diagram_svg_fit(d, cursor_us, DEFAULT_WIDTH)
}

/// Draws `d` no wider than `width` px (down to a floor of 260). With
/// `cursor_us`, steps and marks after the cursor are dimmed, messages in
/// flight are dashed, and a line shows where the cursor is.
pub fn diagram_svg_fit(d: &Diagram, cursor_us: Option<u64>, width: f64) -> String {
    draw(d, cursor_us, width, false)
}

/// [`diagram_svg_fit`] with no cursor, for a page that plays it back by
/// itself: every dimmable element carries `data-at` (its instant), every
/// message `data-until`, and a hidden `rsv-cursor-g` group waits to be moved
/// to [`diagram_cursor`]'s place. Setting [`FUTURE_OPACITY`] on the
/// elements [`is_future`] names, [`IN_FLIGHT_DASH`] on the `rsv-msg` of
/// those [`in_flight`] names, and showing the group gives the drawing
/// [`diagram_svg_fit`] makes at that cursor; the string stays the same all
/// through playback, so the page parses and lays it out once rather than
/// at every tick.
pub fn diagram_svg_live(d: &Diagram, width: f64) -> String {
    draw(d, None, width, true)
}

fn draw(d: &Diagram, cursor_us: Option<u64>, width: f64, live: bool) -> String {
    let lay = Layout::fit(d, width);
    let lanes = d.lanes.len();
    let (width, height) = (lay.width, lay.height);
    let mut out = String::new();
    svg::open(&mut out, width, height, "rsv-diagram", "Race diagram");
    out.push_str(
        "<defs>\
         <marker id=\"rsv-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path class=\"rsv-arrowhead\" d=\"M0 0L10 5L0 10z\" fill=\"#495057\"/></marker>\
         <marker id=\"rsv-arrow-err\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path class=\"rsv-arrowhead-err\" d=\"M0 0L10 5L0 10z\" fill=\"#d8362b\"/></marker>\
         </defs>",
    );
    svg::rect(
        &mut out,
        0.0,
        0.0,
        width,
        height,
        "class=\"rsv-bg\" fill=\"#fff\"",
    );
    if lanes == 0 {
        svg::text(
            &mut out,
            16.0,
            30.0,
            "start",
            &format!("class=\"rsv-empty\" fill=\"{GREY}\""),
            "no actors recorded",
        );
        out.push_str("</svg>");
        return out;
    }
    // Each dimmable element's instant, and its opacity at the cursor.
    let dim = |t: u64| {
        if cursor_us.is_some_and(|c| is_future(t, c)) {
            format!(" data-at=\"{t}\" opacity=\"{FUTURE_OPACITY}\"")
        } else {
            format!(" data-at=\"{t}\"")
        }
    };

    // Bands behind marked moments, so the eye finds them first.
    for m in &d.marks {
        let (fill, _) = tone_colours(&m.tone);
        let y = lay.y_of(m.at_us);
        let _ = write!(out, "<g class=\"rsv-band rsv-band-{}\">", esc(&m.tone));
        svg::rect(
            &mut out,
            lay.tw - 4.0,
            y - ROW / 2.0 + 5.0,
            lay.lw * lanes as f64 + 8.0,
            ROW - 10.0,
            &format!("fill=\"{fill}\"{}", dim(m.at_us)),
        );
        out.push_str("</g>");
    }
    lane_heads(&mut out, d, &lay);
    // The time of every row.
    for (i, &t) in lay.times.iter().enumerate() {
        let _ = write!(out, "<g class=\"rsv-row\"{}>", dim(t));
        svg::text(
            &mut out,
            lay.tw - 6.0,
            lay.rows[i] + 4.0,
            "end",
            &format!(
                "class=\"rsv-label rsv-time\" fill=\"{GREY}\" font-size=\"{}\"",
                lay.time_size
            ),
            &svg::time_exact(t),
        );
        out.push_str("</g>");
    }
    let labels = place_labels(d, &lay);
    for (s, label) in d.steps.iter().zip(labels) {
        if s.from >= lanes || s.to >= lanes {
            continue;
        }
        step(&mut out, s, &lay, label, cursor_us, &dim(s.at_us));
    }
    for (m, n) in d.marks.iter().zip(&lay.notes) {
        note(&mut out, m, n, &lay, &dim(m.at_us));
    }
    match cursor_us {
        Some(c) => cursor_group(&mut out, &lay, Some(&cursor_mark(&lay, c))),
        None if live => cursor_group(&mut out, &lay, None),
        None => {}
    }
    out.push_str("</svg>");
    out
}

/// The cursor's line across the lanes and its tag naming the instant, in a
/// `rsv-cursor-g` group; without `at`, the group hidden (`display="none"`)
/// for a page to show and move (see [`diagram_svg_live`]).
fn cursor_group(out: &mut String, lay: &Layout, at: Option<&DiagramCursor>) {
    let hidden = DiagramCursor {
        y: lay.head,
        label: String::new(),
        tag_w: 8.0,
    };
    let m = at.unwrap_or(&hidden);
    out.push_str(if at.is_some() {
        "<g class=\"rsv-cursor-g\">"
    } else {
        "<g class=\"rsv-cursor-g\" display=\"none\">"
    });
    svg::line(
        out,
        4.0,
        m.y,
        lay.lanes_end(),
        m.y,
        &format!("class=\"rsv-cursor\" stroke=\"{INK}\" stroke-width=\"1.2\""),
    );
    svg::rect(
        out,
        2.0,
        m.y - 8.0,
        m.tag_w,
        15.0,
        &format!("class=\"rsv-cursor-tag\" fill=\"{INK}\" rx=\"3\""),
    );
    svg::text(
        out,
        6.0,
        m.y + 3.5,
        "start",
        "class=\"rsv-cursor-time\" fill=\"#fff\" font-size=\"10\"",
        &m.label,
    );
    out.push_str("</g>");
}

/// Room for a name in a lane header, px.
fn head_room(lw: f64) -> f64 {
    lw - 2.0 * head_pad(lw) - 6.0
}

fn head_pad(lw: f64) -> f64 {
    if lw < 100.0 {
        3.0
    } else {
        10.0
    }
}

/// A lane's name in its header: one line at 12 px, or two at 11 px, or
/// `None` when it fits neither way.
fn head_lines(name: &str, lw: f64) -> Option<Vec<String>> {
    let room = head_room(lw);
    if label_width(name, 12.0, true) <= room {
        return Some(vec![name.to_string()]);
    }
    let chars = (room / (11.0 * 0.66 * 1.12)).floor().max(1.0) as usize;
    let lines = svg::wrap(name, chars);
    (lines.len() == 2 && lines.iter().all(|l| label_width(l, 11.0, true) <= room)).then_some(lines)
}

/// Lane headers and lifelines.
fn lane_heads(out: &mut String, d: &Diagram, lay: &Layout) {
    let (lw, head) = (lay.lw, lay.head);
    for (i, lane) in d.lanes.iter().enumerate() {
        let x = lay.lane_x(i);
        let (fill, stroke, class) = kind_colours(&lane.kind);
        svg::line(
            out,
            x,
            head - 8.0,
            x,
            lay.height - 6.0,
            "class=\"rsv-lifeline\" stroke=\"#ced4da\" stroke-dasharray=\"4 4\"",
        );
        let _ = write!(
            out,
            "<g class=\"rsv-lane rsv-lane-{class}\" data-lane=\"{i}\"><title>{} ({})</title>",
            esc(&lane.name),
            esc(&lane.kind)
        );
        let pad = head_pad(lw);
        svg::rect(
            out,
            x - lw / 2.0 + pad,
            8.0,
            lw - 2.0 * pad,
            head - 16.0,
            &format!("class=\"rsv-lane-box\" fill=\"{fill}\" stroke=\"{stroke}\" rx=\"6\""),
        );
        if lay.upright {
            // Read bottom to top, its kind in the tooltip.
            let name = fit(&lane.name, head - 26.0, 11.0, true);
            let (tx, ty) = (x + 4.0, head - 13.0);
            let _ = write!(
                out,
                "<text class=\"rsv-label rsv-lane-name\" x=\"{}\" y=\"{}\" transform=\"rotate(-90 {} {})\" text-anchor=\"start\" font-weight=\"600\" font-size=\"11\" fill=\"{INK}\">{}</text>",
                px(tx),
                px(ty),
                px(tx),
                px(ty),
                esc(&name)
            );
        } else if let Some(lines) = head_lines(&lane.name, lw).filter(|l| l.len() == 2) {
            // Two lines of name; the kind is in the tooltip and the colour.
            for (k, l) in lines.iter().enumerate() {
                svg::text(
                    out,
                    x,
                    22.0 + 14.0 * k as f64,
                    "middle",
                    &format!("class=\"rsv-label rsv-lane-name\" font-weight=\"600\" font-size=\"11\" fill=\"{INK}\""),
                    l,
                );
            }
        } else {
            let room = head_room(lw);
            svg::text(
                out,
                x,
                26.0,
                "middle",
                &format!("class=\"rsv-label rsv-lane-name\" font-weight=\"600\" fill=\"{INK}\""),
                &fit(&lane.name, room, 12.0, true),
            );
            svg::text(
                out,
                x,
                40.0,
                "middle",
                &format!("class=\"rsv-label rsv-lane-kind\" fill=\"{GREY}\" font-size=\"10\""),
                &fit(&lane.kind, room, 10.0, false),
            );
        }
        out.push_str("</g>");
    }
}

/// Every step's label, placed so none collides with another label, a
/// callout, an action box or a mark.
fn place_labels(d: &Diagram, lay: &Layout) -> Vec<Option<Placed>> {
    let lanes = d.lanes.len();
    let mut p = Placer { taken: Vec::new() };
    for n in &lay.notes {
        p.taken.push(Rect {
            x0: n.x - 2.0,
            y0: n.top - 2.0,
            x1: n.x + n.w + 2.0,
            y1: n.top + n.h + 2.0,
        });
    }
    for m in d.marks.iter().filter(|m| m.lane < lanes) {
        let (x, y) = (lay.lane_x(m.lane), lay.y_of(m.at_us));
        p.taken.push(Rect {
            x0: x - 8.0,
            y0: y - 8.0,
            x1: x + 8.0,
            y1: y + 8.0,
        });
    }
    for s in d.steps.iter().filter(|s| s.from < lanes && s.to < lanes) {
        let (ya, yb) = (lay.y_of(s.at_us), lay.y_of(s.until_us.max(s.at_us)));
        let (xa, xb) = (lay.lane_x(s.from), lay.lane_x(s.to));
        if s.from == s.to {
            p.taken.push(Rect {
                x0: xa - 7.0,
                y0: ya - 7.0,
                x1: xa + 7.0,
                y1: yb + 7.0,
            });
        } else if ya == yb {
            // A level arrow: labels of actions beside it keep off its line.
            p.taken.push(Rect {
                x0: xa.min(xb),
                y0: ya - 0.5,
                x1: xa.max(xb),
                y1: ya + 0.5,
            });
        }
    }
    let right = lay.right.max(lay.lanes_end());
    d.steps
        .iter()
        .map(|s| {
            if s.from >= lanes || s.to >= lanes || s.label.is_empty() {
                return None;
            }
            let (ya, yb) = (lay.y_of(s.at_us), lay.y_of(s.until_us.max(s.at_us)));
            if s.from == s.to {
                p.local(&s.label, lay.lane_x(s.from), ya, lay.tw + 2.0, right)
            } else {
                let span = (lay.lane_x(s.from), lay.lane_x(s.to));
                p.arrow(&s.label, span, ya, yb, (lay.tw + 2.0, right))
            }
        })
        .collect()
}

/// A mark: its dot on the lane, a leader to its callout, and the callout.
fn note(out: &mut String, m: &redsim_sim::Mark, n: &Note, lay: &Layout, dim: &str) {
    let (fill, stroke) = tone_colours(&m.tone);
    let y = lay.y_of(m.at_us);
    let _ = write!(out, "<g class=\"rsv-mark rsv-mark-{}\"{dim}>", esc(&m.tone));
    if m.lane < lay.lanes {
        let x = lay.lane_x(m.lane);
        let (ex, ey) = if lay.side {
            (n.x, n.top + 11.0)
        } else {
            (x, n.top)
        };
        svg::line(
            out,
            x,
            y,
            ex,
            ey,
            &format!("class=\"rsv-leader\" stroke=\"{stroke}\" stroke-dasharray=\"2 3\""),
        );
        let _ = write!(
            out,
            "<circle class=\"rsv-dot\" cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"{stroke}\" stroke=\"#fff\" stroke-width=\"2\"/>",
            px(x),
            px(y)
        );
    }
    svg::rect(
        out,
        n.x,
        n.top,
        n.w,
        n.h,
        &format!("class=\"rsv-note\" fill=\"{fill}\" stroke=\"{stroke}\" rx=\"5\""),
    );
    let tone_word = match m.tone.as_str() {
        "bad" => "✗ ",
        "good" => "✓ ",
        _ => "",
    };
    svg::text(
        out,
        n.x + 8.0,
        n.top + 15.0,
        "start",
        &format!(
            "class=\"rsv-label rsv-note-title\" fill=\"{stroke}\" font-weight=\"600\" font-size=\"11\""
        ),
        &format!("{tone_word}at {}", svg::time_exact(m.at_us)),
    );
    for (k, l) in n.lines.iter().enumerate() {
        svg::text(
            out,
            n.x + 8.0,
            n.top + 31.0 + k as f64 * NOTE_LINE,
            "start",
            &format!("class=\"rsv-label rsv-note-text\" fill=\"{INK}\" font-size=\"11\""),
            l,
        );
    }
    out.push_str("</g>");
}

fn step(
    out: &mut String,
    s: &Step,
    lay: &Layout,
    label: Option<Placed>,
    cursor_us: Option<u64>,
    dim: &str,
) {
    let colour = if s.error { RED } else { "#495057" };
    let (ya, yb) = (lay.y_of(s.at_us), lay.y_of(s.until_us.max(s.at_us)));
    let in_flight = cursor_us.is_some_and(|c| in_flight(s.at_us, s.until_us, c));
    let _ = write!(
        out,
        "<g class=\"rsv-step{}\"",
        if s.error { " rsv-error" } else { "" }
    );
    if s.from != s.to {
        let _ = write!(out, " data-until=\"{}\"", s.until_us);
    }
    let _ = write!(out, "{dim}>");
    if s.from == s.to {
        // A local action: a box on the lane as long as it lasts.
        let x = lay.lane_x(s.from);
        svg::rect(
            out,
            x - 7.0,
            ya - 7.0,
            14.0,
            (yb - ya) + 14.0,
            &format!("class=\"rsv-action\" fill=\"#fff\" stroke=\"{colour}\" rx=\"3\""),
        );
    } else {
        let (xa, xb) = (lay.lane_x(s.from), lay.lane_x(s.to));
        let marker = if s.error {
            "rsv-arrow-err"
        } else {
            "rsv-arrow"
        };
        let dash = if in_flight {
            format!(" stroke-dasharray=\"{IN_FLIGHT_DASH}\"")
        } else {
            String::new()
        };
        svg::line(
            out,
            xa,
            ya,
            xb,
            yb,
            &format!(
                "class=\"rsv-msg\" stroke=\"{colour}\" stroke-width=\"1.4\" marker-end=\"url(#{marker})\"{dash}"
            ),
        );
    }
    if let Some((x, y, anchor, text)) = label {
        svg::text(
            out,
            x,
            y,
            anchor,
            &format!("class=\"rsv-label rsv-step-label\" fill=\"{colour}\" font-size=\"11\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\""),
            &text,
        );
    }
    let _ = write!(out, "<title>{}</title></g>", esc(&s.label));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text box the drawing has at `width`, by the same estimates.
    fn boxes(d: &Diagram, width: f64) -> (Layout, Vec<(String, Rect)>) {
        let lay = Layout::new(d, width);
        let mut b = Vec::new();
        for (i, &t) in lay.times.iter().enumerate() {
            let s = svg::time_exact(t);
            let w = label_width(&s, lay.time_size, false);
            assert!(lay.tw - 6.0 - w >= 0.0, "{s} inside");
            let y = lay.rows[i] + 4.0;
            b.push((s, Rect::text(lay.tw - 6.0 - w, w, y, lay.time_size)));
        }
        for (i, l) in d.lanes.iter().enumerate() {
            let x = lay.lane_x(i);
            if lay.upright {
                let w = label_width(&l.name, 11.0, true).min(lay.head - 26.0);
                let (tx, ty) = (x + 4.0, lay.head - 13.0);
                let r = Rect {
                    x0: tx - 0.96 * 11.0,
                    y0: ty - w,
                    x1: tx + 0.27 * 11.0,
                    y1: ty,
                };
                b.push((l.name.clone(), r));
            } else if let Some(lines) = head_lines(&l.name, lay.lw).filter(|l| l.len() == 2) {
                for (k, line) in lines.iter().enumerate() {
                    let w = label_width(line, 11.0, true);
                    let y = 22.0 + 14.0 * k as f64;
                    b.push((line.clone(), Rect::text(x - w / 2.0, w, y, 11.0)));
                }
            } else {
                let name = fit(&l.name, head_room(lay.lw), 12.0, true);
                let w = label_width(&name, 12.0, true);
                b.push((name, Rect::text(x - w / 2.0, w, 26.0, 12.0)));
            }
        }
        for (s, p) in d.steps.iter().zip(place_labels(d, &lay)) {
            let Some((x, y, anchor, text)) = p else {
                continue;
            };
            let w = label_width(&text, LABEL_SIZE, false);
            let x0 = match anchor {
                "middle" => x - w / 2.0,
                "end" => x - w,
                _ => x,
            };
            assert!(x0 >= lay.tw && x0 + w <= lay.width, "{} inside", s.label);
            b.push((text, Rect::text(x0, w, y, LABEL_SIZE)));
        }
        for n in &lay.notes {
            for (k, l) in n.lines.iter().enumerate() {
                let w = label_width(l, LABEL_SIZE, false);
                assert!(w <= n.w - 16.0, "note line {l} fits its callout");
                let y = n.top + 31.0 + k as f64 * NOTE_LINE;
                b.push((l.clone(), Rect::text(n.x + 8.0, w, y, LABEL_SIZE)));
            }
        }
        (lay, b)
    }

    /// What a page does to [`diagram_svg_live`]'s drawing at cursor `c`,
    /// done to its text: opacity after each future `data-at`, the dash on an
    /// in-flight message's line, the cursor group shown at its place.
    fn played_at(live: &str, lay: &Layout, c: u64) -> String {
        let mut out = String::new();
        let mut dash_next = false;
        for (i, tag) in live.split('<').enumerate() {
            if i > 0 {
                out.push('<');
            }
            let num = |name: &str| {
                let k = tag.find(name)? + name.len();
                tag[k..].split('"').next()?.parse::<u64>().ok()
            };
            let mut tag = tag.to_string();
            if let Some(at) = num(" data-at=\"") {
                let name = " data-at=\"";
                let end = tag.find(name).unwrap() + name.len() + at.to_string().len() + 1;
                if is_future(at, c) {
                    tag.insert_str(end, &format!(" opacity=\"{FUTURE_OPACITY}\""));
                }
                if let Some(until) = num(" data-until=\"") {
                    dash_next = in_flight(at, until, c);
                }
            }
            if dash_next && tag.starts_with("line ") && tag.contains("class=\"rsv-msg\"") {
                let end = tag.rfind("/>").unwrap();
                tag.insert_str(end, &format!(" stroke-dasharray=\"{IN_FLIGHT_DASH}\""));
                dash_next = false;
            }
            out.push_str(&tag);
        }
        let mut hidden = String::new();
        cursor_group(&mut hidden, lay, None);
        let mut shown = String::new();
        cursor_group(&mut shown, lay, Some(&cursor_mark(lay, c)));
        out.replacen(&hidden, &shown, 1)
    }

    /// A page that plays [`diagram_svg_live`]'s drawing back by its
    /// attributes shows what [`diagram_svg_fit`] draws, at some 40 cursors:
    /// on events, just after them, and both ends.
    fn live_drawing_plays_back(d: &Diagram, id: &str) {
        let width = 600.0;
        let live = diagram_svg_live(d, width);
        assert_eq!(live.matches("rsv-cursor-g").count(), 1);
        let lay = Layout::new(d, width);
        let times = event_times(d);
        let mut cursors = vec![0, u64::MAX];
        let every = (times.len() / 20).max(1);
        cursors.extend(times.iter().step_by(every).flat_map(|&t| [t, t + 1]));
        for c in cursors {
            let (played, drawn) = (
                played_at(&live, &lay, c),
                diagram_svg_fit(d, Some(c), width),
            );
            let at = played
                .bytes()
                .zip(drawn.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(played.len().min(drawn.len()));
            assert!(
                played == drawn,
                "{id} at {c}: {:?} against {:?}",
                &played[at.saturating_sub(80)..(at + 80).min(played.len())],
                &drawn[at.saturating_sub(80)..(at + 80).min(drawn.len())]
            );
        }
    }

    #[test]
    fn every_scenario_fits_wide_and_narrow_boxes_and_plays_back_live() {
        let mut drawn = 0;
        for info in redsim_sim::catalog() {
            let o = redsim_sim::run(info.id, 1, &[]).unwrap();
            let Some(d) = &o.diagram else { continue };
            drawn += 1;
            live_drawing_plays_back(d, info.id);
            for width in [954.0, 600.0, 330.0, 286.0] {
                let (lay, b) = boxes(d, width);
                assert!(lay.width <= width, "{} at {width}: {}", info.id, lay.width);
                for n in &lay.notes {
                    assert!(
                        n.x >= 0.0 && n.x + n.w <= lay.width && n.top + n.h <= lay.height,
                        "{} at {width}: a callout outside",
                        info.id
                    );
                }
                for (i, (ta, a)) in b.iter().enumerate() {
                    for (tb, c) in &b[i + 1..] {
                        let overlap = a.x0 < c.x1 && c.x0 < a.x1 && a.y0 < c.y1 && c.y0 < a.y1;
                        assert!(!overlap, "{} at {width}: {ta:?} and {tb:?}", info.id);
                    }
                }
            }
        }
        assert!(drawn >= 5, "the library has race diagrams");
    }

    #[test]
    fn long_labels_are_shortened_to_their_room_and_keep_a_tooltip() {
        let d = Diagram {
            lanes: vec![
                redsim_sim::Lane {
                    name: "a client with a very long name".into(),
                    kind: "client".into(),
                },
                redsim_sim::Lane {
                    name: "redis".into(),
                    kind: "redis".into(),
                },
            ],
            steps: vec![Step {
                at_us: 0,
                until_us: 10,
                from: 0,
                to: 1,
                label: "SET a-key-with-a-long-name a-value-that-goes-on-and-on".into(),
                error: false,
            }],
            marks: vec![],
        };
        let s = diagram_svg_fit(&d, None, 300.0);
        assert!(s.contains("width=\"") && s.contains('…'));
        assert!(s.contains("<title>SET a-key-with-a-long-name a-value-that-goes-on-and-on</title>"));
        let w: f64 = s
            .split("width=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .and_then(|v| v.parse().ok())
            .unwrap();
        assert!(w <= 300.0, "{w}");
    }
}
