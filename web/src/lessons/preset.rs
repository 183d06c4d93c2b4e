//! What a link or a documentation element asks the Lessons tab to show: `?tab=lessons&lesson=<chapter>&step=<n>`, or `[data-redsim-lesson="<chapter>"]` with an optional `data-redsim-step="<n>"`.

use crate::url::parse_query;

/// The chapter (by id) and 1-based step to open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LessonPreset {
    pub chapter: Option<String>,
    pub step: Option<usize>,
}

impl LessonPreset {
    /// Reads `lesson` and `step` from a query string and fragment (the
    /// fragment wins, as for the other tabs' links).
    pub fn from_url(search: &str, hash: &str) -> LessonPreset {
        let mut p = LessonPreset::default();
        for part in [search.trim_start_matches('?'), hash.trim_start_matches('#')] {
            for (k, v) in parse_query(part) {
                match k.as_str() {
                    "lesson" => p.chapter = Some(v.trim().to_string()).filter(|s| !s.is_empty()),
                    "step" => p.step = v.trim().parse().ok().or(p.step),
                    _ => {}
                }
            }
        }
        p
    }

    /// Reads a `data-redsim-lesson` element's attributes.
    pub fn from_attrs(chapter: &str, step: Option<&str>) -> LessonPreset {
        LessonPreset {
            chapter: Some(chapter.trim().to_string()).filter(|s| !s.is_empty()),
            step: step.and_then(|s| s.trim().parse().ok()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_attributes_name_a_chapter_and_step() {
        let p = LessonPreset::from_url("?tab=lessons&lesson=locks&step=3", "");
        assert_eq!(p.chapter.as_deref(), Some("locks"));
        assert_eq!(p.step, Some(3));
        let p = LessonPreset::from_url("?lesson=locks&step=3", "#step=5");
        assert_eq!(p.step, Some(5));
        assert_eq!(
            LessonPreset::from_url("?tab=console", ""),
            LessonPreset::default()
        );
        let p = LessonPreset::from_attrs(" ttl-expiry ", Some("x"));
        assert_eq!(p.chapter.as_deref(), Some("ttl-expiry"));
        assert_eq!(p.step, None);
    }
}
