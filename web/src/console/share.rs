//! The URL side of a console session: the commands, pauses, seed and clock mode read on load (the session packed in `#s=…`, or `?cmd=…&seed=…` of older links), the Share link that replays them to the same virtual instant, and the Share popover that offers it.
//!
//! Links are read and written in plain Rust (see `crate::url`) rather than
//! through the browser's `URLSearchParams`, so the rules are unit-tested
//! natively and the same code serves `data-*` attributes on documentation
//! pages.

use redsim_sim::params::parse_seed;

use crate::ui::El;
use crate::url::parse_query;

/// What a page URL (or a widget's attributes) asks a widget to start with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preset {
    /// Engine seed; `None` means the default.
    pub seed: Option<u64>,
    /// Commands to run on load, in order, as if typed; a `# sleep <ms>`
    /// line lets that much virtual time pass.
    pub commands: Vec<String>,
    /// Start with the clock paused instead of following wall time.
    pub paused: bool,
    /// Unix time (seconds) of virtual instant 0; `None` means "now", so TIME
    /// and EXPIREAT see today's date. A shared link pins it for an exact replay.
    pub t0: Option<u64>,
    /// The commands were typed in this page before (a session handed over
    /// to the full engine): they join the input history again.
    pub typed: bool,
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
                    // A damaged packed session is ignored: the page opens empty.
                    "s" => {
                        if let Some(text) = crate::links::unpacked(&v) {
                            p.commands.extend(session_lines(&text));
                        }
                    }
                    // The session as plain text: a handover, or a browser
                    // that could not compress.
                    "session" => p.commands.extend(session_lines(&v)),
                    "seed" => p.seed = parse_seed(&v).or(p.seed),
                    "clock" => p.paused = v.eq_ignore_ascii_case("paused"),
                    "t0" => p.t0 = v.trim().parse().ok().or(p.t0),
                    _ => {}
                }
            }
        }
        p
    }

    /// Reads a link as [`share_link`] writes it (any base before the `?`).
    pub fn from_link(link: &str) -> Preset {
        let (before, hash) = link.split_once('#').unwrap_or((link, ""));
        let search = before.split_once('?').map_or("", |(_, q)| q);
        Preset {
            typed: true,
            ..Preset::from_url(search, hash)
        }
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
            typed: false,
        }
    }
}

/// The lines of session text a console runs: commands and `# sleep`
/// lines, without blank lines and other comments.
fn session_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && (!l.starts_with('#') || sleep_ms(l).is_some()))
        .map(String::from)
}

/// The milliseconds of a `# sleep <ms>` line.
pub fn sleep_ms(line: &str) -> Option<u64> {
    let rest = line.trim().strip_prefix('#')?.trim_start();
    let ms = rest.strip_prefix("sleep")?;
    if !ms.starts_with(char::is_whitespace) {
        return None;
    }
    ms.trim().parse().ok()
}

/// The link that replays `session` (commands and `# sleep` lines, see
/// `redsim_engine::proto::session`) with `seed` on the page at `base` (the
/// page URL without query or fragment), in the fragment: `packed` (the
/// session as `crate::links::pack` made it) as `s=`, or without it the
/// text itself as `session=`, several times longer.
pub fn share_link(
    base: &str,
    seed: u64,
    t0: u64,
    paused: bool,
    session: &str,
    packed: Option<&str>,
) -> String {
    let mut url = format!("{base}?seed={seed}&t0={t0}");
    if paused {
        url.push_str("&clock=paused");
    }
    if !session.is_empty() {
        match packed {
            Some(packed) => {
                url.push_str("#s=");
                url.push_str(packed);
            }
            None => {
                url.push_str("#session=");
                url.push_str(&crate::url::encode_component(session));
            }
        }
    }
    url
}

/// The Share popover.
#[derive(Clone, Debug, PartialEq)]
pub struct ShareState {
    pub link: String,
    /// `None` while the clipboard write is pending.
    pub copied: Option<bool>,
}

/// The link (selected when focused, by the widget), whether it was copied,
/// and a close button (`close-share`).
pub fn share_popover(s: &ShareState) -> El {
    El::new("div")
        .cls("rs-share")
        .child(
            El::new("input")
                .cls("rs-share-link")
                .attr("readonly", "")
                .attr("value", &s.link),
        )
        .child(El::new("span").cls("rs-share-status").text(match s.copied {
            Some(true) => "Link copied to the clipboard.",
            Some(false) => "Copy the link above (the clipboard is not available here).",
            None => "Copying…",
        }))
        .child(
            El::new("button")
                .cls("rs-btn rs-ghost-btn")
                .attr("aria-label", "Close")
                .attr("data-action", "close-share")
                .text("✕"),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_engine::proto::link::pack;

    /// What the light console hands over is what the full one starts with.
    #[test]
    fn a_link_reads_back_as_the_session_it_packs() {
        let session = "SET a 1\n# sleep 1500\n@2 EVAL \"return 1\" 0\n# sleep 3\n";
        let packed = pack(session);
        for (paused, base, packed) in [
            (true, "", Some(packed.as_str())),
            (false, "https://x.example/redsim/index.html", None),
        ] {
            let link = share_link(base, 42, 1_700_000_000, paused, session, packed);
            let p = Preset::from_link(&link);
            assert_eq!(p.seed, Some(42));
            assert_eq!(p.t0, Some(1_700_000_000));
            assert_eq!(p.paused, paused);
            assert_eq!(
                p.commands,
                vec![
                    "SET a 1",
                    "# sleep 1500",
                    "@2 EVAL \"return 1\" 0",
                    "# sleep 3"
                ]
            );
            assert!(p.typed);
        }
        assert_eq!(Preset::from_link("").commands, Vec::<String>::new());
    }

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
            "# sleep 1500".to_string(),
            "@2 GET \"a b\"".to_string(),
            "ECHO 100%+€".to_string(),
        ];
        let text: String = cmds.iter().map(|c| format!("{c}\n")).collect();
        let packed = pack(&text);
        for packed in [Some(packed.as_str()), None] {
            let link = share_link(
                "http://h/docs/play/",
                0xfeed,
                1_767_225_600,
                true,
                &text,
                packed,
            );
            let (base, rest) = link.split_once('?').unwrap();
            let (query, hash) = rest.split_once('#').unwrap();
            assert_eq!(base, "http://h/docs/play/");
            assert!(!rest.contains(' ') && !rest.contains('"'));
            assert_eq!(rest.contains('%'), packed.is_none(), "{rest}");
            let p = Preset::from_url(query, hash);
            assert_eq!(p.commands, cmds);
            assert_eq!(p.seed, Some(0xfeed));
            assert_eq!(p.t0, Some(1_767_225_600));
            assert!(p.paused);
        }
        // A damaged fragment opens an empty console.
        assert!(Preset::from_url("?seed=1", "#s=%%%").commands.is_empty());
    }

    #[test]
    fn links_stay_short() {
        // `n` commands of a typical session, with a pause after every third.
        let session = |n: usize| -> String {
            let mut out = String::new();
            for i in 0..n {
                out.push_str(&match i % 3 {
                    0 => format!("SET session:{i} \"user {i}\" EX 1800\n"),
                    1 => format!("HSET user:{i} name u{i} visits {i}\n"),
                    _ => format!("TTL session:{}\n# sleep {}\n", i - 2, 250 * (i % 7 + 1)),
                });
            }
            out
        };
        for (n, max) in [(10, 300), (100, 2000)] {
            let text = session(n);
            let link = share_link(
                "https://redsim.dev/",
                42,
                1_767_225_600,
                true,
                &text,
                Some(&pack(&text)),
            );
            println!("{n} commands: a {}-character link", link.len());
            assert!(link.len() < max, "{n} commands: {} characters", link.len());
        }
    }

    #[test]
    fn sleep_lines() {
        assert_eq!(sleep_ms("# sleep 250"), Some(250));
        assert_eq!(sleep_ms("  #sleep 3 "), Some(3));
        assert_eq!(sleep_ms("# sleepy 3"), None);
        assert_eq!(sleep_ms("# a comment"), None);
        assert_eq!(sleep_ms("SET a 1"), None);
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
