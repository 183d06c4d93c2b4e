//! A sorted set's skiplist drawn as SVG: levels as rows (level 0 at the bottom), the header then the nodes in rank order as columns, each forward link an arrow labelled with its span, for the browser's key inspector.
//!
//! The layout is a pure function of the engine's `SkipView` (tested
//! natively); the drawing turns it into markup.

use std::fmt::Write;

use redsim_engine::inspect::SkipView;

use super::{f1, titled};
use crate::svg::esc;

/// Column pitch, px.
pub const COL_W: f64 = 52.0;
/// Width of a level box.
pub const BOX_W: f64 = 26.0;
const BOX_H: f64 = 16.0;
/// Row pitch (one row per level).
pub const ROW_H: f64 = 24.0;
const PAD: f64 = 10.0;
/// Room under the boxes for member and score.
const LABEL_H: f64 = 40.0;
/// Characters of a member drawn under its node.
const MEMBER_CHARS: usize = 7;

/// What a column of the picture is.
#[derive(Clone, Debug, PartialEq)]
pub enum ColKind {
    Header,
    Node {
        rank: usize,
        member: String,
        score: String,
        tail: bool,
    },
    /// Nodes not drawn; links past the last drawn node end here.
    More {
        hidden: usize,
        tail_rank: usize,
    },
    /// NULL: where the last link of each level ends.
    Nil,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SkipCol {
    pub x: f64,
    /// Level boxes drawn (0 for More and Nil).
    pub levels: usize,
    pub kind: ColKind,
}

/// A forward link at one level.
#[derive(Clone, Debug, PartialEq)]
pub struct SkipArrow {
    pub level: usize,
    pub x1: f64,
    pub x2: f64,
    pub y: f64,
    pub span: usize,
    /// Rank pointed to; `None` for NULL.
    pub target: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SkipLayout {
    pub width: f64,
    pub height: f64,
    pub levels: usize,
    pub cols: Vec<SkipCol>,
    pub arrows: Vec<SkipArrow>,
}

impl SkipLayout {
    /// Centre line of level `i` (level 0 is the bottom row).
    pub fn row_y(&self, i: usize) -> f64 {
        row_y(self.levels, i)
    }

    /// Top of the member/score labels.
    pub fn label_y(&self) -> f64 {
        PAD + self.levels as f64 * ROW_H + 4.0
    }
}

fn row_y(levels: usize, i: usize) -> f64 {
    PAD + (levels.saturating_sub(1).saturating_sub(i)) as f64 * ROW_H + BOX_H / 2.0
}

fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// Lays out the skiplist: levels as rows (level 0 at the bottom), the
/// header then the nodes in rank order as columns, a "more" column when
/// nodes are hidden, and NULL last. Every level of every drawn node gets
/// one arrow, to the column of the rank it points to, to "more" when that
/// rank is not drawn, or to NULL.
pub fn skiplist_layout(s: &SkipView) -> SkipLayout {
    let levels = s
        .levels
        .max(s.header.len())
        .max(s.nodes.iter().map(|n| n.levels.len()).max().unwrap_or(0))
        .max(1);
    let x_of = |col: usize| PAD + col as f64 * COL_W;
    let mut cols = vec![SkipCol {
        x: x_of(0),
        levels: s.header.len(),
        kind: ColKind::Header,
    }];
    for n in &s.nodes {
        cols.push(SkipCol {
            x: x_of(cols.len()),
            levels: n.levels.len(),
            kind: ColKind::Node {
                rank: n.rank,
                member: n.member.clone(),
                score: n.score.clone(),
                tail: n.rank == s.tail_rank,
            },
        });
    }
    let more_col = (s.hidden > 0).then(|| {
        cols.push(SkipCol {
            x: x_of(cols.len()),
            levels: 0,
            kind: ColKind::More {
                hidden: s.hidden,
                tail_rank: s.tail_rank,
            },
        });
        cols.len() - 1
    });
    let nil_col = cols.len();
    cols.push(SkipCol {
        x: x_of(nil_col),
        levels: 0,
        kind: ColKind::Nil,
    });
    let last_drawn = s.nodes.last().map_or(0, |n| n.rank);
    let mut arrows = Vec::new();
    let sources =
        std::iter::once((0usize, &s.header)).chain(s.nodes.iter().map(|n| (n.rank, &n.levels)));
    for (col, (_rank, links)) in sources.enumerate() {
        for (level, l) in links.iter().enumerate() {
            let to_col = match l.forward {
                // Ranks of drawn nodes are their column numbers.
                Some(r) if r <= last_drawn => r,
                Some(_) => more_col.unwrap_or(nil_col),
                None => nil_col,
            };
            arrows.push(SkipArrow {
                level,
                x1: x_of(col) + BOX_W,
                x2: x_of(to_col) - 3.0,
                y: row_y(levels, level),
                span: l.span,
                target: l.forward,
            });
        }
    }
    SkipLayout {
        width: x_of(cols.len() - 1) + BOX_W + PAD,
        height: PAD + levels as f64 * ROW_H + LABEL_H,
        levels,
        cols,
        arrows,
    }
}

/// The skiplist as an `<svg class="rs-sl">` (the page scrolls it sideways).
pub fn skiplist_svg(s: &SkipView) -> String {
    let lay = skiplist_layout(s);
    let mut out = String::with_capacity(8192);
    let _ = write!(
        out,
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"Skiplist with {} levels; the first {} nodes drawn\" class=\"rs-sl\"><g transform=\"translate(16,0)\">",
        f1(lay.width + 16.0),
        f1(lay.height),
        lay.levels,
        s.nodes.len()
    );
    for a in &lay.arrows {
        arrow(&mut out, a);
    }
    for c in &lay.cols {
        column(&mut out, &lay, c);
    }
    out.push_str("</g>");
    for i in 0..lay.levels {
        let _ = write!(
            out,
            "<text x=\"2\" y=\"{}\" class=\"rs-sl-lvl\">L{}</text>",
            f1(lay.row_y(i) + 4.0),
            i + 1
        );
    }
    out.push_str("</svg>");
    out
}

/// A forward link: a line with an arrowhead, and its span above it unless
/// a level-0 link is too short for a label.
fn arrow(out: &mut String, a: &SkipArrow) {
    let to = a.target.map_or("NULL".to_string(), |r| format!("rank {r}"));
    let class = if a.level == 0 {
        "rs-sl-link rs-sl-l0"
    } else {
        "rs-sl-link"
    };
    titled(
        out,
        "g",
        &format!("class=\"{class}\""),
        &format!("level {}: → {to}, span {}", a.level + 1, a.span),
    );
    let _ = write!(
        out,
        "<path d=\"M{},{} L{},{} M{},{} L{},{} L{},{}Z\"/>",
        f1(a.x1),
        f1(a.y),
        f1(a.x2 - 5.0),
        f1(a.y),
        f1(a.x2 - 6.0),
        f1(a.y - 3.5),
        f1(a.x2),
        f1(a.y),
        f1(a.x2 - 6.0),
        f1(a.y + 3.5)
    );
    let short = a.x2 - a.x1 < 40.0;
    if !short || a.level > 0 {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            f1((a.x1 + a.x2) / 2.0),
            f1(a.y - 4.0),
            a.span
        );
    }
    out.push_str("</g>");
}

/// A centred label under the boxes, `dy` below the top of the labels.
fn label(out: &mut String, class: &str, x: f64, y: f64, text: &str) {
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"{class}\">{}</text>",
        f1(x),
        f1(y),
        esc(text)
    );
}

/// A column: its level boxes and labels.
fn column(out: &mut String, lay: &SkipLayout, c: &SkipCol) {
    let top = lay.row_y(lay.levels - 1) - BOX_H / 2.0;
    let bottom = lay.row_y(0) + BOX_H / 2.0;
    let label_y = lay.label_y();
    let mid = c.x + BOX_W / 2.0;
    let boxes = |out: &mut String| {
        for i in 0..c.levels {
            let _ = write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" class=\"rs-sl-box\"/>",
                f1(c.x),
                f1(lay.row_y(i) - BOX_H / 2.0),
                f1(BOX_W),
                f1(BOX_H)
            );
        }
    };
    match &c.kind {
        ColKind::Header => {
            titled(
                out,
                "g",
                "class=\"rs-sl-col rs-sl-header\"",
                &format!("header: {} levels in use", c.levels),
            );
            boxes(out);
            label(out, "rs-sl-member", mid, label_y + 10.0, "header");
        }
        ColKind::Node {
            rank,
            member,
            score,
            tail,
        } => {
            let class = if *tail {
                "rs-sl-col rs-sl-tail"
            } else {
                "rs-sl-col"
            };
            titled(
                out,
                "g",
                &format!("data-rank=\"{rank}\" class=\"{class}\""),
                &format!(
                    "rank {rank}: {member} (score {score}), {} level{}",
                    c.levels,
                    if c.levels == 1 { "" } else { "s" }
                ),
            );
            boxes(out);
            label(
                out,
                "rs-sl-member",
                mid,
                label_y + 10.0,
                &cut(member, MEMBER_CHARS),
            );
            label(
                out,
                "rs-sl-score",
                mid,
                label_y + 22.0,
                &cut(score, MEMBER_CHARS),
            );
            if *tail {
                label(out, "rs-sl-tag", mid, label_y + 34.0, "tail");
            }
        }
        ColKind::More { hidden, tail_rank } => {
            titled(
                out,
                "g",
                "class=\"rs-sl-col rs-sl-more\"",
                &format!("{hidden} more nodes not drawn; the tail is rank {tail_rank}"),
            );
            let _ = write!(
                out,
                "<line x1=\"{m}\" x2=\"{m}\" y1=\"{}\" y2=\"{}\"/>",
                f1(top),
                f1(bottom),
                m = f1(mid)
            );
            label(
                out,
                "rs-sl-member",
                mid,
                label_y + 10.0,
                &format!("+{hidden}"),
            );
            label(out, "rs-sl-score", mid, label_y + 22.0, "more");
            label(
                out,
                "rs-sl-tag",
                mid,
                label_y + 34.0,
                &format!("tail #{tail_rank}"),
            );
        }
        ColKind::Nil => {
            titled(
                out,
                "g",
                "class=\"rs-sl-col rs-sl-nil\"",
                "NULL: the end of every level",
            );
            let _ = write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"6\" height=\"{}\" rx=\"2\"/>",
                f1(c.x),
                f1(top),
                f1(bottom - top)
            );
            label(out, "rs-sl-member", c.x + 3.0, label_y + 10.0, "NULL");
        }
    }
    out.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_engine::inspect::{self, Body};
    use redsim_engine::Engine;

    fn engine_with(lines: &[&str]) -> Engine {
        let mut e = Engine::new(5);
        let c = e.connect("t");
        for l in lines {
            e.execute_line(c, l);
        }
        e
    }

    fn zset_view_of(e: &Engine, key: &str) -> SkipView {
        match e.inspect(0, key.as_bytes()).unwrap().body {
            Body::ZSet(z) => z.skiplist.expect("skiplist"),
            b => panic!("{b:?}"),
        }
    }

    /// A skiplist even with few members (no listpack first).
    fn small_skiplist(zadd: &str) -> SkipView {
        let e = engine_with(&["CONFIG SET zset-max-listpack-entries 0", zadd]);
        zset_view_of(&e, "z")
    }

    #[test]
    fn skiplist_layout_puts_one_arrow_per_level_to_the_right_column() {
        let mut line = String::from("ZADD z");
        for i in 0..200 {
            line.push_str(&format!(" {i} m{i}"));
        }
        let e = engine_with(&[&line]);
        let s = zset_view_of(&e, "z");
        let lay = skiplist_layout(&s);
        // Header, 32 nodes, "more", NULL.
        assert_eq!(lay.cols.len(), 1 + inspect::SKIPLIST_NODES + 2);
        assert!(matches!(lay.cols[0].kind, ColKind::Header));
        assert!(matches!(
            lay.cols[33].kind,
            ColKind::More {
                hidden: 168,
                tail_rank: 200
            }
        ));
        assert!(matches!(lay.cols[34].kind, ColKind::Nil));
        let links: usize = s.header.len() + s.nodes.iter().map(|n| n.levels.len()).sum::<usize>();
        assert_eq!(lay.arrows.len(), links);
        assert_eq!(lay.levels, s.levels);
        for a in &lay.arrows {
            assert!(a.x2 > a.x1, "{a:?}");
            assert_eq!(a.y, lay.row_y(a.level));
            let end_col = match a.target {
                Some(r) if r <= 32 => r,
                Some(_) => 33,
                None => 34,
            };
            assert_eq!(a.x2, lay.cols[end_col].x - 3.0, "{a:?}");
        }
        // Level 0: node k points at k + 1 with span 1.
        let l0: Vec<&SkipArrow> = lay.arrows.iter().filter(|a| a.level == 0).collect();
        assert_eq!(l0.len(), 33);
        assert!(l0.iter().all(|a| a.span == 1));
        // Rows: level 0 at the bottom.
        assert!(lay.row_y(0) > lay.row_y(1));
        assert!(lay.label_y() > lay.row_y(0));
        assert_eq!(lay.width, lay.cols[34].x + BOX_W + PAD);
        // Box counts follow node heights.
        for (c, n) in lay.cols[1..33].iter().zip(&s.nodes) {
            assert_eq!(c.levels, n.levels.len());
        }
    }

    #[test]
    fn small_skiplists_end_at_null_and_mark_the_tail() {
        let s = small_skiplist("ZADD z 1 a 2 b 3 c");
        let lay = skiplist_layout(&s);
        assert_eq!(lay.cols.len(), 5, "header, 3 nodes, NULL");
        assert!(
            matches!(&lay.cols[3].kind, ColKind::Node { rank: 3, tail: true, member, .. } if member == "c")
        );
        assert!(
            matches!(&lay.cols[1].kind, ColKind::Node { tail: false, score, .. } if score == "1")
        );
        let nil_x = lay.cols[4].x - 3.0;
        // Every level's last link ends at NULL, the header's included.
        for level in 0..lay.levels {
            let last = lay
                .arrows
                .iter()
                .filter(|a| a.level == level)
                .max_by(|a, b| a.x1.total_cmp(&b.x1))
                .unwrap();
            assert_eq!(last.target, None);
            assert_eq!(last.x2, nil_x);
        }
    }

    #[test]
    fn the_drawing_has_a_column_per_node_and_a_group_per_link() {
        let s = small_skiplist("ZADD z 1 a 2 b 3 <c&d>");
        let svg = skiplist_svg(&s);
        let lay = skiplist_layout(&s);
        assert!(
            svg.starts_with("<svg ") && svg.contains("class=\"rs-sl\">") && svg.ends_with("</svg>")
        );
        assert_eq!(svg.matches("class=\"rs-sl-col").count(), lay.cols.len());
        assert_eq!(svg.matches("class=\"rs-sl-link").count(), lay.arrows.len());
        assert!(svg.contains("data-rank=\"3\""));
        assert!(svg.contains("&lt;c&amp;d&gt;"), "members are escaped");
    }
}
