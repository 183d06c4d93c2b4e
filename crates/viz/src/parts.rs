//! A drawing cut into its root tag and its top-level parts, and which parts of the drawing on screen a page may keep when it shows the next one: how the Topology tab moves its drawings at every tick without parsing them again.
//!
//! A timeline redrawn 20 times a second as one new string had the browser
//! parse, style and lay out its thousand elements at every tick (the tab
//! played at 42 frames/s). Drawn from a fixed origin and scrolled by its
//! `viewBox` (`topology::lanes`), consecutive drawings share most of their
//! parts word for word, so the page (`web/src/live_svg.rs`) removes the
//! parts that went, inserts the new ones and leaves the rest alone.

use std::borrow::Cow;
use std::collections::HashMap;

/// A drawing as its opening `<svg …>` tag and its top-level elements, in
/// order.
#[derive(Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    pub open: &'a str,
    pub parts: Vec<&'a str>,
}

/// Cuts markup made by this crate into [`Parts`]: one `<svg>` root whose
/// attribute values and texts are escaped (so `<` and `>` only open and
/// close tags) and no text between its top-level elements. `None` for
/// anything else (a comment, text at the top level, unbalanced tags): the
/// caller then shows the markup whole.
pub fn split(svg: &str) -> Option<Parts<'_>> {
    if !svg.starts_with("<svg") || !svg.ends_with("</svg>") {
        return None;
    }
    let open_end = svg.find('>')? + 1;
    if svg[..open_end].ends_with("/>") {
        return None;
    }
    let body = svg.get(open_end..svg.len() - "</svg>".len())?;
    let mut parts = Vec::new();
    let mut i = 0;
    while i < body.len() {
        if !body[i..].starts_with('<') {
            return None;
        }
        let start = i;
        let mut depth = 0usize;
        loop {
            let end = i + body[i..].find('>')? + 1;
            let tag = &body[i..end];
            if tag.starts_with("<!") || tag.starts_with("<?") {
                return None;
            }
            if tag.starts_with("</") {
                depth = depth.checked_sub(1)?;
            } else if !tag.ends_with("/>") {
                depth += 1;
            }
            i = end;
            if depth == 0 {
                break;
            }
            // Text inside an element runs to its next tag.
            i += body[i..].find('<')?;
        }
        parts.push(&body[start..i]);
    }
    Some(Parts {
        open: &svg[..open_end],
        parts,
    })
}

/// The attributes of an opening tag, `name="value"` each, values unescaped.
pub fn attributes(open: &str) -> Vec<(&str, Cow<'_, str>)> {
    let inner = open
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim_end_matches('/');
    let mut rest = inner.split_once(char::is_whitespace).map_or("", |p| p.1);
    let mut out = Vec::new();
    while let Some((name, after)) = rest.split_once("=\"") {
        let Some((value, tail)) = after.split_once('"') else {
            break;
        };
        out.push((name.trim(), unescape(value)));
        rest = tail;
    }
    out
}

/// The text `svg::esc` escaped.
fn unescape(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&"),
    )
}

/// For each part of `new`, the part of `old` a page keeps in its place
/// (`Some(index)`, the same markup), or `None` for a part to insert; every
/// other part of `old` is removed. The kept parts are the most that can
/// stay without moving any: a longest common subsequence of the two lists
/// (Hunt and Szymanski's, which costs little when most markups are
/// unique, as a drawing's are).
pub fn plan(old: &[&str], new: &[&str]) -> Vec<Option<usize>> {
    let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, p) in old.iter().enumerate() {
        at.entry(p).or_default().push(i);
    }
    // Pairs (new index, old index, the pair before it in the best run),
    // and `tails[k]`: the pair ending the best run of k + 1 pairs so far,
    // whose old index is the smallest such run can end with.
    let mut pairs: Vec<(usize, usize, Option<usize>)> = Vec::new();
    let mut tails: Vec<usize> = Vec::new();
    for (j, p) in new.iter().enumerate() {
        let Some(olds) = at.get(p) else {
            continue;
        };
        // Highest first, so a part pairs with at most one old part per run.
        for &o in olds.iter().rev() {
            let k = tails.partition_point(|&t| pairs[t].1 < o);
            pairs.push((j, o, k.checked_sub(1).map(|k| tails[k])));
            if k == tails.len() {
                tails.push(pairs.len() - 1);
            } else {
                tails[k] = pairs.len() - 1;
            }
        }
    }
    let mut keep = vec![None; new.len()];
    let mut at_pair = tails.last().copied();
    while let Some(i) = at_pair {
        let (j, o, before) = pairs[i];
        keep[j] = Some(o);
        at_pair = before;
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_a_drawing_into_its_top_level_elements() {
        let svg = "<svg viewBox=\"0 0 10 10\" aria-label=\"a &lt;b&gt;\"><rect x=\"1\"/>\
                   <g class=\"m\"><title>x &amp; y</title><line x1=\"2\"/></g><text>t</text></svg>";
        let p = split(svg).unwrap();
        assert_eq!(
            p.open,
            "<svg viewBox=\"0 0 10 10\" aria-label=\"a &lt;b&gt;\">"
        );
        assert_eq!(
            p.parts,
            [
                "<rect x=\"1\"/>",
                "<g class=\"m\"><title>x &amp; y</title><line x1=\"2\"/></g>",
                "<text>t</text>"
            ]
        );
        assert_eq!(format!("{}{}</svg>", p.open, p.parts.concat()), svg);
        assert_eq!(
            attributes(p.open),
            [
                ("viewBox", Cow::Borrowed("0 0 10 10")),
                ("aria-label", Cow::Borrowed("a <b>"))
            ]
        );
        assert_eq!(split("<svg></svg>").unwrap().parts.len(), 0);
    }

    #[test]
    fn what_it_cannot_cut_is_refused() {
        for bad in [
            "<svg>text<rect/></svg>",
            "<svg><!-- c --><rect/></svg>",
            "<svg><g><rect/></svg>",
            "<svg><g></g></g></svg>",
            "<div></div>",
            "<svg/>",
        ] {
            assert_eq!(split(bad), None, "{bad}");
        }
    }

    /// Applies a plan the way the page does: `old` without its unkept
    /// parts, the new ones inserted in place.
    fn apply(old: &[&str], new: &[&str], keep: &[Option<usize>]) -> Vec<String> {
        let kept: Vec<usize> = keep.iter().flatten().copied().collect();
        assert!(
            kept.windows(2).all(|w| w[0] < w[1]),
            "kept parts never move"
        );
        let mut out = Vec::new();
        for (j, k) in keep.iter().enumerate() {
            match k {
                Some(i) => {
                    assert_eq!(old[*i], new[j], "a part keeps its own markup");
                    out.push(old[*i].to_string());
                }
                None => out.push(new[j].to_string()),
            }
        }
        out
    }

    #[test]
    fn a_window_moving_on_keeps_what_stays_in_it() {
        let old: Vec<String> = (0..20).map(|i| format!("<m{i}/>")).collect();
        let mut new: Vec<String> = old[3..].to_vec();
        new[5] = "<changed/>".into();
        new.extend(["<m20/>".to_string(), "<m21/>".into()]);
        let (o, n): (Vec<&str>, Vec<&str>) = (
            old.iter().map(String::as_str).collect(),
            new.iter().map(String::as_str).collect(),
        );
        let keep = plan(&o, &n);
        assert_eq!(apply(&o, &n, &keep), new);
        assert_eq!(
            keep.iter().flatten().count(),
            16,
            "all but the changed part"
        );
        // A part moved to the front is the one inserted again, not the rest.
        let keep = plan(&["<a/>", "<b/>", "<c/>"], &["<c/>", "<a/>", "<b/>"]);
        assert_eq!(keep, [None, Some(0), Some(1)]);
    }

    /// The length of a longest common subsequence, by the textbook table.
    fn lcs(a: &[&str], b: &[&str]) -> usize {
        let mut t = vec![vec![0; b.len() + 1]; a.len() + 1];
        for i in 0..a.len() {
            for j in 0..b.len() {
                t[i + 1][j + 1] = if a[i] == b[j] {
                    t[i][j] + 1
                } else {
                    t[i][j + 1].max(t[i + 1][j])
                };
            }
        }
        t[a.len()][b.len()]
    }

    /// Random drawings from a small alphabet (so markups repeat): a plan
    /// always rebuilds the new drawing, keeps parts in order, and keeps as
    /// many as any order-keeping plan could.
    #[test]
    fn plans_rebuild_the_new_drawing_and_keep_the_most() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let words = ["<a/>", "<b/>", "<c/>", "<d/>", "<e/>", "<f/>"];
        for _ in 0..3000 {
            let old: Vec<&str> = (0..next(12)).map(|_| words[next(6) as usize]).collect();
            let new: Vec<&str> = (0..next(12)).map(|_| words[next(6) as usize]).collect();
            let keep = plan(&old, &new);
            assert_eq!(apply(&old, &new, &keep), new);
            let kept = keep.iter().flatten().count();
            assert_eq!(kept, lcs(&old, &new), "{old:?} -> {new:?}");
        }
    }
}
