//! Every picture Redsim draws, as standalone SVG strings: scenario outcomes (line and bar charts, strips, the race diagram) for `redsim run --svg` and the browser's scenario library, the replication topology (node graph, per-node timelines) for the browser's Topology tab, and a key's structure (skiplist, HyperLogLog registers) for its key inspector.
//!
//! Every function is pure: plain data (an [`Outcome`] part and an optional
//! playback cursor, a topology view, a key view) in, one `<svg>` document
//! out, with all text escaped. Nothing here
//! depends on a DOM, so the same drawing is unit-tested natively, written to
//! files by the CLI and injected as markup by the wasm app, where scrubbing
//! just redraws with a new cursor.

mod chart;
mod diagram;
pub mod inspect;
pub mod parts;
mod strip;
pub mod svg;
pub mod topology;

pub use chart::chart_svg;
pub use diagram::{
    diagram_cursor, diagram_cursor_y, diagram_svg, diagram_svg_fit, diagram_svg_live, event_times,
    in_flight, is_future, DiagramCursor, DEFAULT_WIDTH as DIAGRAM_WIDTH, FUTURE_OPACITY,
    IN_FLIGHT_DASH,
};
pub use strip::{state_colour, strip_svg};

use std::fmt::Write;

use redsim_sim::Outcome;

/// One SVG for a whole outcome, for files: the race diagram if the outcome
/// has one, otherwise every chart and strip stacked top to bottom.
pub fn outcome_svg(o: &Outcome) -> String {
    if let Some(d) = &o.diagram {
        return diagram_svg(d, None);
    }
    let parts: Vec<String> = o
        .charts
        .iter()
        .map(|c| chart_svg(c, None))
        .chain(o.strips.iter().map(strip_svg))
        .collect();
    stack(&parts, &o.id)
}

/// Stacks standalone SVGs vertically into one document (each becomes a
/// nested `<svg>` at its offset).
pub fn stack(parts: &[String], label: &str) -> String {
    let sizes: Vec<(f64, f64)> = parts.iter().map(|p| size_of(p)).collect();
    let width = sizes.iter().map(|s| s.0).fold(320.0, f64::max);
    let height: f64 = sizes.iter().map(|s| s.1 + 12.0).sum::<f64>().max(40.0);
    let mut out = String::new();
    svg::open(&mut out, width, height, "rsv-stack", label);
    if parts.is_empty() {
        svg::text(
            &mut out,
            12.0,
            24.0,
            "start",
            &format!("fill=\"{}\"", svg::GREY),
            "nothing to draw",
        );
    }
    let mut y = 0.0;
    for (p, (_, h)) in parts.iter().zip(&sizes) {
        // `<svg xmlns=… ` → `<svg x="0" y="…" xmlns=… `: the nested document keeps its own viewBox.
        let body = p.strip_prefix("<svg ").unwrap_or(p);
        let _ = write!(out, "<svg x=\"0\" y=\"{}\" {body}", svg::px(y));
        y += h + 12.0;
    }
    out.push_str("</svg>");
    out
}

/// Width and height attributes of an SVG produced here.
fn size_of(svg: &str) -> (f64, f64) {
    let attr = |name: &str| {
        let key = format!(" {name}=\"");
        svg.find(&key)
            .and_then(|i| {
                let rest = &svg[i + key.len()..];
                rest.find('"').and_then(|j| rest[..j].parse::<f64>().ok())
            })
            .unwrap_or(0.0)
    };
    (attr("width"), attr("height"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_sim::{Chart, Diagram, Lane, Mark, Series, Step, Strip};

    /// A minimal well-formedness check: balanced tags, quoted attributes,
    /// no stray `<` or `&` in text. Returns the element names opened.
    fn well_formed(s: &str) -> Vec<String> {
        let mut stack: Vec<String> = Vec::new();
        let mut seen = Vec::new();
        let mut rest = s;
        assert!(
            s.starts_with("<svg "),
            "starts with <svg: {}",
            &s[..s.len().min(40)]
        );
        while let Some(lt) = rest.find('<') {
            check_text(&rest[..lt]);
            let after = &rest[lt..];
            let gt = after.find('>').expect("unterminated tag");
            let tag = &after[1..gt];
            assert!(!tag.contains('<'), "'<' inside tag {tag}");
            assert_eq!(
                tag.matches('"').count() % 2,
                0,
                "unbalanced quotes in {tag}"
            );
            if let Some(name) = tag.strip_prefix('/') {
                let open = stack
                    .pop()
                    .unwrap_or_else(|| panic!("close {name} without open"));
                assert_eq!(open, name, "mismatched close");
            } else {
                let name: String = tag
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                assert!(!name.is_empty(), "empty tag name in <{tag}>");
                seen.push(name.clone());
                if !tag.ends_with('/') {
                    stack.push(name);
                }
            }
            rest = &after[gt + 1..];
            if stack.is_empty() {
                assert!(rest.trim().is_empty(), "content after the root element");
            }
        }
        check_text(rest);
        assert!(stack.is_empty(), "unclosed {stack:?}");
        seen
    }

    fn check_text(t: &str) {
        assert!(!t.contains('>'), "raw '>' in text {t:?}");
        let mut r = t;
        while let Some(i) = r.find('&') {
            let ent = &r[i..];
            let end = ent.find(';').expect("entity without ';'");
            let name = &ent[1..end];
            assert!(
                matches!(name, "amp" | "lt" | "gt" | "quot" | "#39"),
                "unknown entity {name}"
            );
            r = &ent[end..];
        }
    }

    fn demo_diagram() -> Diagram {
        let lane = |n: &str, k: &str| Lane {
            name: n.to_string(),
            kind: k.to_string(),
        };
        let step = |at, until, from, to, label: &str, error| Step {
            at_us: at,
            until_us: until,
            from,
            to,
            label: label.to_string(),
            error,
        };
        Diagram {
            lanes: vec![lane("client A", "client"), lane("redis", "redis"), lane("db <main>", "db")],
            steps: vec![
                step(0, 300, 0, 1, "GET user:1", false),
                step(300, 600, 1, 0, "(nil)", false),
                step(600, 5_600, 0, 2, "SELECT … WHERE id=1", false),
                step(5_600, 5_900, 0, 0, "GC pause", false),
                step(6_000, 6_300, 0, 1, "SET user:1 \"old\" & <stale>", true),
            ],
            marks: vec![
                Mark {
                    at_us: 6_300,
                    lane: 1,
                    text: "The stale value lands after the delete: readers now see 'old' until the TTL ends.".to_string(),
                    tone: "bad".to_string(),
                },
                Mark {
                    at_us: 6_300,
                    lane: 9,
                    text: "An out-of-range lane is drawn as a note only.".to_string(),
                    tone: "info".to_string(),
                },
            ],
        }
    }

    fn demo_chart() -> Chart {
        Chart::line("DB queries per second", "time (s)", "queries/s")
            .with(Series::new(
                "no protection",
                vec![(0.0, 0.0), (1.0, 480.0), (2.0, 12.0)],
            ))
            .with(Series::new(
                "singleflight <1>",
                vec![(0.0, 0.0), (1.0, 1.0), (2.0, 1.0)],
            ))
    }

    #[test]
    fn line_chart_is_well_formed_with_labels_and_legend() {
        let s = chart_svg(&demo_chart(), None);
        let tags = well_formed(&s);
        assert_eq!(tags.iter().filter(|t| *t == "polyline").count(), 2);
        for label in [
            "DB queries per second",
            "time (s)",
            "queries/s",
            "no protection",
            "singleflight &lt;1&gt;",
        ] {
            assert!(s.contains(label), "missing {label}");
        }
        // Nice ticks: 0..500 by 100 on y.
        for t in [">0<", ">100<", ">500<"] {
            assert!(s.contains(t), "missing tick {t}");
        }
        assert!(!s.contains("rsv-cursor"));
        let c = chart_svg(&demo_chart(), Some(1.5));
        well_formed(&c);
        assert!(c.contains("rsv-cursor") && c.contains(">1.5<"));
    }

    /// A screen reader gets the chart in words: each series' range, each
    /// bar's value.
    #[test]
    fn charts_carry_a_text_summary() {
        let s = chart_svg(&demo_chart(), None);
        assert!(s.contains(
            "aria-label=\"DB queries per second. queries/s against time (s). no protection: \
             from 0 to 12 over 0 to 2, lowest 0, highest 480. singleflight &lt;1&gt;: from 0 to 1 \
             over 0 to 2, lowest 0, highest 1.\""
        ));
        let bars = Chart::bars("DB calls", "calls", &["none", "lock"])
            .with(Series::new("calls", vec![(0.0, 950.0), (1.0, 2.5)]));
        assert_eq!(
            crate::chart::summary(&bars),
            "DB calls. calls. calls: none 950, lock 2.50."
        );
    }

    #[test]
    fn bar_chart_draws_one_bar_per_point() {
        let c = Chart::bars(
            "DB calls by protection",
            "calls",
            &["none", "lock", "singleflight"],
        )
        .with(Series::new(
            "calls",
            vec![(0.0, 950.0), (1.0, 3.0), (2.0, 1.0)],
        ));
        let s = chart_svg(&c, None);
        let tags = well_formed(&s);
        // Background + 3 legend swatch/bars: 1 background, 1 swatch, 3 bars.
        assert_eq!(tags.iter().filter(|t| *t == "rect").count(), 5);
        for label in ["none", "lock", "singleflight", "950", "calls"] {
            assert!(s.contains(label), "missing {label}");
        }
    }

    #[test]
    fn empty_and_degenerate_inputs_still_draw() {
        let empty = Chart::line("nothing", "x", "y");
        let s = chart_svg(&empty, Some(3.0));
        well_formed(&s);
        assert!(s.contains("no data"));
        let nan = Chart::line("nan", "x", "y").with(Series::new(
            "s",
            vec![(f64::NAN, 1.0), (2.0, f64::INFINITY)],
        ));
        let s = chart_svg(&nan, None);
        well_formed(&s);
        assert!(!s.contains("NaN") && !s.contains("inf"));
        let one = Chart::line("one", "x", "y").with(Series::new("s", vec![(2.0, 5.0)]));
        assert!(well_formed(&chart_svg(&one, None)).contains(&"circle".to_string()));
        let d = diagram_svg(&Diagram::default(), Some(10));
        well_formed(&d);
        assert!(d.contains("no actors"));
        well_formed(&strip_svg(&Strip {
            title: String::new(),
            legend: vec![],
            rows: vec![],
        }));
        let o = Outcome::default();
        let s = outcome_svg(&o);
        well_formed(&s);
        assert!(s.contains("nothing to draw"));
    }

    #[test]
    fn diagram_has_lanes_arrows_errors_and_marks() {
        let d = demo_diagram();
        let s = diagram_svg(&d, None);
        let tags = well_formed(&s);
        assert!(s.contains("client A") && s.contains("db &lt;main&gt;"));
        assert!(
            s.contains("SET user:1 &quot;old&quot; &amp; &lt;stale&gt;"),
            "escaped label"
        );
        assert!(!s.contains("<stale>"));
        // Four messages drawn as lines with arrowheads, one of them red.
        assert_eq!(s.matches("marker-end=\"url(#rsv-arrow)\"").count(), 3);
        assert_eq!(s.matches("marker-end=\"url(#rsv-arrow-err)\"").count(), 1);
        assert!(s.contains("GC pause"));
        assert!(s.contains("rsv-mark-bad") && s.contains("stale value lands"));
        assert!(s.contains("out-of-range lane"));
        assert_eq!(tags.iter().filter(|t| *t == "circle").count(), 1);
        // Row times are printed.
        assert!(s.contains("5.6 ms") && s.contains("300 µs") && s.contains("5.9 ms"));
        assert!(!s.contains("opacity=\"0.16\""));
    }

    #[test]
    fn cursor_dims_the_future_only() {
        let d = demo_diagram();
        let s = diagram_svg(&d, Some(600));
        well_formed(&s);
        assert!(s.contains("rsv-cursor"));
        // Steps at 0 and 300 are in the past; 600 is "now"; later ones are dimmed.
        let dimmed = s.matches("class=\"rsv-step").filter(|_| true).count();
        assert_eq!(dimmed, 5);
        let future_steps = s
            .split("<g class=\"rsv-step")
            .skip(1)
            .filter(|g| {
                g.split('>')
                    .next()
                    .is_some_and(|head| head.contains("opacity"))
            })
            .count();
        assert_eq!(future_steps, 2);
        // The message sent at 600 is in flight until 5600: dashed.
        assert!(s.contains("stroke-dasharray=\"5 3\""));
        let all = diagram_svg(&d, Some(u64::MAX));
        assert!(!all.contains("opacity=\"0.16\""));
    }

    #[test]
    fn event_times_are_sorted_and_distinct() {
        assert_eq!(
            event_times(&demo_diagram()),
            vec![0, 300, 600, 5_600, 5_900, 6_000, 6_300]
        );
    }

    #[test]
    fn strips_colour_cells_by_state() {
        let st = Strip {
            title: "Keys after eviction".to_string(),
            legend: vec![
                "evicted".to_string(),
                "kept".to_string(),
                "hot & kept".to_string(),
            ],
            rows: vec![
                redsim_sim::outcome::StripRow {
                    label: "allkeys-lru".to_string(),
                    cells: vec![0, 1, 1, 2, 7],
                },
                redsim_sim::outcome::StripRow {
                    label: "random".to_string(),
                    cells: vec![1; 2000],
                },
            ],
        };
        let s = strip_svg(&st);
        well_formed(&s);
        for l in [
            "Keys after eviction",
            "allkeys-lru",
            "random",
            "evicted",
            "hot &amp; kept",
        ] {
            assert!(s.contains(l), "missing {l}");
        }
        assert!(s.contains(state_colour(2)));
        // An unknown state is drawn with a "?" title instead of failing.
        assert!(s.contains("<title>?</title>"));
        // 2000 equal thin cells collapse into one run.
        assert!(s.matches("<rect").count() < 20);
    }

    #[test]
    fn outcome_svg_prefers_the_diagram_then_stacks_charts() {
        let mut o = Outcome::default();
        o.charts.push(demo_chart());
        o.charts
            .push(Chart::bars("b", "n", &["x"]).with(Series::new("n", vec![(0.0, 1.0)])));
        let s = outcome_svg(&o);
        let tags = well_formed(&s);
        assert_eq!(tags.iter().filter(|t| *t == "svg").count(), 3);
        assert!(
            s.contains("y=\"292\""),
            "second chart below the first: {}",
            &s[..300]
        );
        o.diagram = Some(demo_diagram());
        assert!(outcome_svg(&o).contains("rsv-diagram"));
    }
}
