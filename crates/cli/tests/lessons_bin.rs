//! `redsim lessons` as a user runs it: the listing, the JSON's shape, `--check` proving every step of the course, and bad usage.

mod common;
use common::{fails, redsim, succeeds};

#[test]
fn check_proves_every_step() {
    let out = redsim(&["lessons", "--check"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let steps: usize = redsim_course::all().iter().map(|c| c.steps.len()).sum();
    let ok = text.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(ok, steps, "{text}");
    assert!(!text.contains("FAIL"), "{text}");
    assert!(
        text.contains(&format!("{steps} of {steps} steps proven")),
        "{text}"
    );
}

#[test]
fn json_has_chapters_with_ids_titles_and_steps() {
    let text = succeeds(&["lessons", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let chapters = v.as_array().expect("an array of chapters");
    let course = redsim_course::all();
    assert_eq!(chapters.len(), course.len());
    for (json, ch) in chapters.iter().zip(&course) {
        assert_eq!(json["id"], ch.id);
        assert_eq!(json["title"], ch.title);
        let steps = json["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), ch.steps.len());
        for (js, st) in steps.iter().zip(&ch.steps) {
            assert_eq!(js["id"], st.id);
            assert_eq!(js["kind"], st.kind.name());
            assert!(js["text"].as_str().is_some_and(|t| !t.is_empty()));
            assert!(js["hints"].as_array().is_some_and(|h| !h.is_empty()));
        }
    }
    let kinds: Vec<&str> = chapters
        .iter()
        .flat_map(|c| c["steps"].as_array().unwrap().iter())
        .filter_map(|s| s["kind"].as_str())
        .collect();
    for k in ["read-run", "predict", "do", "scenario"] {
        assert!(kinds.contains(&k), "no {k} step in the JSON");
    }
}

#[test]
fn listing_and_usage() {
    let text = succeeds(&["lessons"]);
    for c in redsim_course::all() {
        assert!(text.contains(c.title), "{} missing:\n{text}", c.title);
    }
    let one = succeeds(&["lessons", "locks"]);
    assert!(one.contains("Locks and fencing") && !one.contains("Cluster slots"));
    assert!(succeeds(&["lessons", "--help"]).contains("--check"));
    fails(&["lessons", "no-such"], 2, "unknown chapter 'no-such'");
    fails(&["lessons", "--yaml"], 2, "unknown option '--yaml'");
}
