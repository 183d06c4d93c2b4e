//! The learner's progress: which steps of which chapter passed, kept as one short text in localStorage (`chapter=step,step;…`), so it survives reloads and a chapter can be reset on its own.

use std::collections::{BTreeMap, BTreeSet};

/// localStorage key of the progress text.
pub const STORAGE_KEY: &str = "redsim-lessons-progress";

/// Steps passed, by chapter id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    done: BTreeMap<String, BTreeSet<String>>,
}

impl Progress {
    /// Reads the stored text; anything unreadable is skipped, never fatal.
    pub fn parse(text: &str) -> Progress {
        let mut p = Progress::default();
        for part in text.split(';') {
            let Some((chapter, steps)) = part.split_once('=') else {
                continue;
            };
            let chapter = chapter.trim();
            if chapter.is_empty() {
                continue;
            }
            for s in steps.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                p.mark(chapter, s);
            }
        }
        p
    }

    /// The text to store.
    pub fn to_text(&self) -> String {
        self.done
            .iter()
            .filter(|(_, s)| !s.is_empty())
            .map(|(c, s)| format!("{c}={}", s.iter().cloned().collect::<Vec<_>>().join(",")))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// Records a passed step; true if it is new.
    pub fn mark(&mut self, chapter: &str, step: &str) -> bool {
        self.done
            .entry(chapter.to_string())
            .or_default()
            .insert(step.to_string())
    }

    pub fn is_done(&self, chapter: &str, step: &str) -> bool {
        self.done.get(chapter).is_some_and(|s| s.contains(step))
    }

    /// How many of `steps` passed.
    pub fn count<'a>(&self, chapter: &str, steps: impl Iterator<Item = &'a str>) -> usize {
        steps.filter(|s| self.is_done(chapter, s)).count()
    }

    /// Forgets one chapter's progress.
    pub fn reset(&mut self, chapter: &str) {
        self.done.remove(chapter);
    }
}

/// The stored progress (empty where there is no storage).
pub fn load() -> Progress {
    storage()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .map(|t| Progress::parse(&t))
        .unwrap_or_default()
}

/// Stores `p` (silently skipped where storage is unavailable or full).
pub fn save(p: &Progress) {
    if let Some(s) = storage() {
        let _ = s.set_item(STORAGE_KEY, &p.to_text());
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_round_trips_and_resets_per_chapter() {
        let mut p = Progress::default();
        assert!(p.mark("ttl", "a"));
        assert!(!p.mark("ttl", "a"));
        p.mark("ttl", "b");
        p.mark("locks", "x");
        let q = Progress::parse(&p.to_text());
        assert_eq!(p, q);
        assert_eq!(q.count("ttl", ["a", "b", "c"].into_iter()), 2);
        let mut r = q.clone();
        r.reset("ttl");
        assert!(!r.is_done("ttl", "a"));
        assert!(r.is_done("locks", "x"));
    }

    #[test]
    fn unreadable_text_is_skipped() {
        let p = Progress::parse("garbage;=x;ttl=a,,b;");
        assert!(p.is_done("ttl", "a") && p.is_done("ttl", "b"));
        assert_eq!(p.to_text(), "ttl=a,b");
    }
}
