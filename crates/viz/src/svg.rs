//! The small SVG writer every drawing shares: escaping, compact numbers, tick steps, time labels and the palettes.
//!
//! Drawings are built as strings because they travel as strings: the CLI
//! writes them to files and the browser injects them as markup. Everything
//! user- or scenario-provided goes through [`esc`], so a label can never
//! close a tag or open an attribute.

use std::fmt::Write;

use redsim_engine::num::trim_fixed;

/// Series and state colours, chosen to stay apart for colour-blind readers
/// (no red/green pair among the first four).
///
/// Drawings carry their colours as presentation attributes, so a file
/// opened alone looks as on the page's light theme. The page's dark theme
/// repaints each colour a drawing uses with a CSS rule keyed on the
/// attribute (`assets/css/10-tokens.css`, "themed drawings"); the test
/// `every_drawing_colour_has_a_dark_rule` keeps the two lists in step.
pub const PALETTE: &[&str] = &[
    "#1f6fd1", "#e8590c", "#2b8a3e", "#9c36b5", "#c2255c", "#0c8599", "#5c940d", "#845ef7",
];

/// Redsim's red, for errors and `bad` marks.
pub const RED: &str = "#d8362b";
/// For `good` marks.
pub const GREEN: &str = "#2b8a3e";
/// Axes, lifelines and other ink that should recede (dark enough for
/// small text on white: 4.7:1, WCAG AA).
pub const GREY: &str = "#6c757d";
/// Body text.
pub const INK: &str = "#212529";

/// The font stack of every drawing, so standalone files look like the page.
pub const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

/// Escapes text for element content and attribute values (double or single quoted).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML 1.0 at all.
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate: one decimal, no trailing zeros, never NaN or infinite.
pub fn px(v: f64) -> String {
    if !v.is_finite() {
        return "0".to_string();
    }
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// A value for people: up to three significant decimals, thousands as k/M
/// when large, so ticks and bar labels stay short.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let digits = if scaled.abs() >= 100.0 || scaled == scaled.trunc() {
        0
    } else if scaled.abs() >= 10.0 {
        1
    } else if scaled.abs() >= 1.0 {
        2
    } else {
        3
    };
    trim_fixed(format!("{scaled:.digits$}")) + suffix
}

/// A virtual duration or instant in the unit that reads best (µs, ms, s).
pub fn time(us: u64) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        format!("{} ms", num(us as f64 / 1e3))
    } else {
        format!("{} s", num(us as f64 / 1e6))
    }
}

/// An instant to the microsecond, for the rows of a race diagram, where
/// two events 0.2 ms apart must not print the same label.
pub fn time_exact(us: u64) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 10_000_000 {
        format!("{} ms", trim_fixed(format!("{:.3}", us as f64 / 1e3)))
    } else {
        format!("{} s", trim_fixed(format!("{:.6}", us as f64 / 1e6)))
    }
}

/// A measured value for people, in the scenario results of the CLI and the
/// page: integers plainly, others with up to three decimals (`0.125`).
/// Non-finite values come as Rust spells them, for the caller to replace.
pub fn metric(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let t = format!("{v:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Round tick positions covering `lo..=hi` with about `want` steps of 1, 2
/// or 5 times a power of ten. The first tick is at or below `lo`, the last
/// at or above `hi`, so the axis ends on a labelled value.
pub fn nice_ticks(lo: f64, hi: f64, want: usize) -> Vec<f64> {
    let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() {
        (lo.min(hi), lo.max(hi))
    } else {
        (0.0, 1.0)
    };
    if hi - lo < 1e-12 {
        let pad = if lo.abs() > 1e-12 {
            lo.abs() * 0.1
        } else {
            1.0
        };
        lo -= pad;
        hi += pad;
    }
    let raw = (hi - lo) / want.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).floor();
    let last = (hi / step).ceil();
    let n = ((last - first) as usize).min(100);
    (0..=n)
        .map(|i| {
            let v = (first + i as f64) * step;
            // Snap away float noise such as 0.30000000000000004.
            (v / step).round() * step
        })
        .collect()
}

/// Rough width of `text` in pixels at `size`, for layout without a font
/// engine: good enough to keep legends and notes from overlapping.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.58
}

/// Splits `text` into lines of at most `width` characters at spaces (a
/// longer word gets a line of its own).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Shortens `text` to `max` characters with an ellipsis.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// Opens a standalone `<svg>` of the given size with the shared font.
pub fn open(out: &mut String, w: f64, h: f64, class: &str, label: &str) {
    open_at(out, 0.0, w, h, class, label);
}

/// [`open`] for a drawing whose view starts at `x` of its coordinates.
pub fn open_at(out: &mut String, x: f64, w: f64, h: f64, class: &str, label: &str) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{}\" width=\"{}\" height=\"{}\" \
         viewBox=\"{} 0 {} {}\" role=\"img\" aria-label=\"{}\" font-family=\"{}\" font-size=\"12\">",
        esc(class),
        px(w),
        px(h),
        px(x),
        px(w),
        px(h),
        esc(label),
        esc(FONT)
    );
}

/// A `<text>` element; `anchor` is start, middle or end.
pub fn text(out: &mut String, x: f64, y: f64, anchor: &str, extra: &str, content: &str) {
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\"{}{}>{}</text>",
        px(x),
        px(y),
        if extra.is_empty() { "" } else { " " },
        extra,
        esc(content)
    );
}

/// A `<line>` element.
pub fn line(out: &mut String, x1: f64, y1: f64, x2: f64, y2: f64, extra: &str) {
    let _ = write!(
        out,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {extra}/>",
        px(x1),
        px(y1),
        px(x2),
        px(y2)
    );
}

/// A `<rect>` element.
pub fn rect(out: &mut String, x: f64, y: f64, w: f64, h: f64, extra: &str) {
    let _ = write!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {extra}/>",
        px(x),
        px(y),
        px(w.max(0.0)),
        px(h.max(0.0))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_controls() {
        assert_eq!(
            esc("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(esc("a\u{1}b"), "a\u{fffd}b");
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(
            nice_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        let t = nice_ticks(0.13, 0.87, 4);
        assert_eq!(t.first().copied(), Some(0.0));
        assert_eq!(t.last().copied(), Some(1.0));
        assert!(t.iter().all(|v| (v * 5.0 - (v * 5.0).round()).abs() < 1e-9));
        let t = nice_ticks(1234.0, 98765.0, 5);
        assert!(t[0] <= 1234.0 && *t.last().unwrap() >= 98765.0);
        assert_eq!(t[1] - t[0], 20000.0);
        // Degenerate and non-finite ranges still give an axis.
        assert!(nice_ticks(5.0, 5.0, 5).len() >= 2);
        assert!(nice_ticks(f64::NAN, 1.0, 5).len() >= 2);
    }

    #[test]
    fn numbers_and_times_read_well() {
        let nums = [0.0, 12.5, 0.1234, 25000.0, 1_500_000.0, f64::NAN];
        assert_eq!(nums.map(num), ["0", "12.5", "0.123", "25k", "1.5M", "–"]);
        let times = [250, 1_500, 2_000_000];
        assert_eq!(times.map(time), ["250 µs", "1.5 ms", "2 s"]);
        let exact = [305_120, 2_000, 12_000_250];
        assert_eq!(exact.map(time_exact), ["305.12 ms", "2 ms", "12.00025 s"]);
        assert_eq!([1.25, f64::INFINITY].map(px), ["1.3", "0"]);
    }

    /// Every colour literal of the drawings that share this palette (and
    /// white, their background) has its dark-theme rule in the page's CSS,
    /// for fills and strokes alike.
    #[test]
    fn every_drawing_colour_has_a_dark_rule() {
        let css = include_str!("../../../assets/css/10-tokens.css");
        let sources = [
            include_str!("svg.rs"),
            include_str!("chart.rs"),
            include_str!("diagram.rs"),
            include_str!("strip.rs"),
            include_str!("lib.rs"),
        ];
        let mut colours: Vec<String> = Vec::new();
        for src in sources {
            let src = src.split("#[cfg(test)]").next().unwrap_or(src);
            // `"#abc"` literals and `\"#abc\"` inside format strings.
            for (i, _) in src.match_indices("\"#") {
                let rest = &src[i + 2..];
                let len = rest.chars().take_while(char::is_ascii_hexdigit).count();
                if matches!(len, 3 | 6) && rest[len..].starts_with(['"', '\\']) {
                    colours.push(format!("#{}", &rest[..len]));
                }
            }
        }
        redsim_engine::sort::sort(&mut colours);
        colours.dedup();
        assert!(colours.len() >= 15, "found the palette: {colours:?}");
        for c in PALETTE.iter().chain(&[RED, GREEN, GREY, INK, "#fff"]) {
            assert!(colours.iter().any(|k| k == c), "{c} found in the sources");
        }
        for c in &colours {
            for attr in ["fill", "stroke"] {
                let rule = format!("[data-theme=\"dark\"] svg[class^=\"rsv-\"] [{attr}=\"{c}\"]");
                assert!(css.contains(&rule), "no dark-theme rule for {attr}={c}");
            }
        }
    }

    #[test]
    fn wrap_and_clip() {
        assert_eq!(
            wrap("one two three four", 9),
            vec!["one two", "three", "four"]
        );
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
