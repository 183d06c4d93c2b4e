//! The URL side of a console session: the commands, seed and clock mode read from `?cmd=…&seed=…` (or the `#` fragment) on load, the Share link that replays them, and the Share popover that offers it.
//!
//! Links are read and written in plain Rust (see `crate::url`) rather than
//! through the browser's `URLSearchParams`, so the rules are unit-tested
//! natively and the same code serves `data-*` attributes on documentation
//! pages.

use redsim_sim::params::parse_seed;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::url::{encode_component, parse_query};

/// What a page URL (or a widget's attributes) asks a widget to start with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preset {
    /// Engine seed; `None` means the default.
    pub seed: Option<u64>,
    /// Commands to run on load, in order, as if typed.
    pub commands: Vec<String>,
    /// Start with the clock paused instead of following wall time.
    pub paused: bool,
    /// Unix time (seconds) of virtual instant 0; `None` means "now", so TIME
    /// and EXPIREAT see today's date. A shared link pins it for an exact replay.
    pub t0: Option<u64>,
}

impl Preset {
    /// Reads a query string (`?a=b&…`, leading `?` optional) and a fragment
    /// (`#a=b&…`): both use the same keys, the fragment's commands run after
    /// the query's, and a seed or clock given in the fragment wins.
    pub fn from_url(search: &str, hash: &str) -> Preset {
        let mut p = Preset::default();
        for part in [search.trim_start_matches('?'), hash.trim_start_matches('#')] {
            for (k, v) in parse_query(part) {
                match k.as_str() {
                    "cmd" | "command" if !v.trim().is_empty() => p.commands.push(v),
                    "seed" => p.seed = parse_seed(&v).or(p.seed),
                    "clock" => p.paused = v.eq_ignore_ascii_case("paused"),
                    "t0" => p.t0 = v.trim().parse().ok().or(p.t0),
                    _ => {}
                }
            }
        }
        p
    }

    /// Reads a widget's `data-seed`, `data-commands` (one command per line)
    /// and `data-clock` attributes.
    pub fn from_attrs(seed: Option<&str>, commands: Option<&str>, clock: Option<&str>) -> Preset {
        Preset {
            seed: seed.and_then(parse_seed),
            commands: commands
                .map(|c| {
                    c.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default(),
            paused: clock.is_some_and(|c| c.trim().eq_ignore_ascii_case("paused")),
            t0: None,
        }
    }
}

/// The link that replays `commands` with `seed` on the page at `base` (the
/// page URL without query or fragment).
pub fn share_link(base: &str, seed: u64, t0: u64, paused: bool, commands: &[String]) -> String {
    let mut url = format!("{base}?seed={seed}&t0={t0}");
    if paused {
        url.push_str("&clock=paused");
    }
    for c in commands {
        url.push_str("&cmd=");
        url.push_str(&encode_component(c));
    }
    url
}

/// The Share popover.
pub struct ShareState {
    pub link: String,
    /// `None` while the clipboard write is pending.
    pub copied: Option<bool>,
}

/// The link (selected when focused), whether it was copied, and a close button.
pub fn share_popover(s: &ShareState, on_close: Callback<MouseEvent>) -> Html {
    html! {
        <div class="rs-share">
            <input class="rs-share-link" readonly=true value={ s.link.clone() }
                   onfocus={ Callback::from(|e: FocusEvent| {
                       let i: HtmlInputElement = e.target_unchecked_into();
                       i.select();
                   }) } />
            <span class="rs-share-status">{ match s.copied {
                Some(true) => "Link copied to the clipboard.",
                Some(false) => "Copy the link above (the clipboard is not available here).",
                None => "Copying…",
            } }</span>
            <button class="rs-btn rs-ghost-btn" aria-label="Close" onclick={ on_close }>{ "✕" }</button>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_commands_in_order_from_query_then_fragment() {
        let p = Preset::from_url(
            "?cmd=SET%20a%201&cmd=GET+a&seed=7",
            "#cmd=TTL%20a&clock=paused",
        );
        assert_eq!(p.commands, vec!["SET a 1", "GET a", "TTL a"]);
        assert_eq!(p.seed, Some(7));
        assert!(p.paused);
    }

    #[test]
    fn bad_escapes_and_empty_commands_are_harmless() {
        let p = Preset::from_url("cmd=GET%2&cmd=&cmd=%zz&seed=x", "");
        assert_eq!(p.commands, vec!["GET%2", "%zz"]);
        assert_eq!(p.seed, None);
    }

    #[test]
    fn share_link_round_trips() {
        let cmds = vec![
            "SET \"a b\" 'x&y=z' EX 5".to_string(),
            "GET \"a b\"".to_string(),
            "ECHO 100%+€".to_string(),
        ];
        let link = share_link("http://h/docs/play/", 0xfeed, 1_767_225_600, true, &cmds);
        let (base, query) = link.split_once('?').unwrap();
        assert_eq!(base, "http://h/docs/play/");
        assert!(!query.contains(' ') && !query.contains('"'));
        let p = Preset::from_url(query, "");
        assert_eq!(p.commands, cmds);
        assert_eq!(p.seed, Some(0xfeed));
        assert_eq!(p.t0, Some(1_767_225_600));
        assert!(p.paused);
    }

    #[test]
    fn attributes_take_one_command_per_line() {
        let p = Preset::from_attrs(
            Some("0x10"),
            Some("\n  SET a 1\n\n GET a \n"),
            Some("paused"),
        );
        assert_eq!(p.seed, Some(16));
        assert_eq!(p.commands, vec!["SET a 1", "GET a"]);
        assert!(p.paused);
        assert_eq!(Preset::from_attrs(None, None, None), Preset::default());
    }
}
