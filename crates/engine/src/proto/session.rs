//! A console session as text, the one format the browser console exports and `redsim replay` reads: one command per line quoted as redis-cli quotes, `@N` to send it from client N, `# sleep <ms>` to let time pass, other `#` lines as comments.
//!
//! A console Share link carries the same text packed in its fragment
//! (`#s=…`, see [`super::link`]); older links carry one `cmd` parameter per
//! line (`?seed=…&cmd=…&cmd=…`). [`Session::from_link`] reads both.

use super::resp::split_args;

/// Most clients a session (and a console widget) opens.
pub const MAX_CLIENTS: usize = 8;

/// One line of a session that does something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A command from client `client` (1-based), with its line number.
    Command {
        line: usize,
        client: usize,
        args: Vec<Vec<u8>>,
    },
    /// `# sleep <ms>`: the time a user waited before the next line.
    Sleep { line: usize, ms: u64 },
}

/// A parsed session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Session {
    pub steps: Vec<Step>,
    /// The seed a Share link pinned, if any.
    pub seed: Option<u64>,
}

impl Session {
    /// Reads session text. Blank lines and comments are skipped; an error
    /// names the first line whose quotes do not balance.
    pub fn parse(text: &str) -> Result<Session, String> {
        let mut steps = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            if let Some(step) = parse_line(i + 1, raw)? {
                steps.push(step);
            }
        }
        Ok(Session { steps, seed: None })
    }

    /// Reads a console Share link (or just its query): each `cmd` parameter
    /// is one line, numbered in order, and a packed `s` holds many; `seed`
    /// is kept.
    pub fn from_link(link: &str) -> Result<Session, String> {
        let query = match link.split_once('?') {
            Some((_, q)) => q,
            None => link,
        };
        let (query, fragment) = query.split_once('#').unwrap_or((query, ""));
        let mut session = Session::default();
        let mut n = 0;
        for part in [query, fragment] {
            for pair in part.split('&').filter(|p| !p.is_empty()) {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                let v = decode_component(v);
                match decode_component(k).as_str() {
                    "cmd" | "command" => {
                        n += 1;
                        if let Some(step) = parse_line(n, &v)? {
                            session.steps.push(step);
                        }
                    }
                    "s" => {
                        let text = super::link::unpack(&v)
                            .ok_or_else(|| "the link's packed session is damaged".to_string())?;
                        for raw in text.lines() {
                            n += 1;
                            if let Some(step) = parse_line(n, raw)? {
                                session.steps.push(step);
                            }
                        }
                    }
                    "seed" => session.seed = parse_u64(&v).or(session.seed),
                    _ => {}
                }
            }
        }
        Ok(session)
    }

    /// The text form: what the console's export button writes.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for step in &self.steps {
            match step {
                Step::Sleep { ms, .. } => out.push_str(&format!("# sleep {ms}\n")),
                Step::Command { client, args, .. } => {
                    if *client != 1 {
                        out.push_str(&format!("@{client} "));
                    }
                    let words: Vec<String> = args.iter().map(|a| quote(a)).collect();
                    out.push_str(&words.join(" "));
                    out.push('\n');
                }
            }
        }
        out
    }
}

/// One line: `None` for blanks and comments.
fn parse_line(line: usize, raw: &str) -> Result<Option<Step>, String> {
    let t = raw.trim();
    if t.is_empty() {
        return Ok(None);
    }
    if let Some(comment) = t.strip_prefix('#') {
        let mut words = comment.split_whitespace();
        if let (Some(w), Some(ms), None) = (words.next(), words.next(), words.next()) {
            if w.eq_ignore_ascii_case("sleep") {
                let ms = ms
                    .parse()
                    .map_err(|_| format!("line {line}: '# sleep {ms}' needs whole milliseconds"))?;
                return Ok(Some(Step::Sleep { line, ms }));
            }
        }
        return Ok(None);
    }
    let (client, command) = split_target(t);
    match split_args(command.as_bytes()) {
        Some(args) if args.is_empty() => Ok(None),
        Some(args) => Ok(Some(Step::Command { line, client, args })),
        None => Err(format!("line {line}: unbalanced quotes in: {t}")),
    }
}

/// `@2 LPUSH q a` → (2, "LPUSH q a"); a line without a valid target is
/// client 1's, whole.
pub fn split_target(line: &str) -> (usize, &str) {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix('@') {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let (num, cmd) = rest.split_at(digits);
        if let Ok(n @ 1..=MAX_CLIENTS) = num.parse::<usize>() {
            if cmd.starts_with(char::is_whitespace) {
                return (n, cmd.trim_start());
            }
        }
    }
    (1, line)
}

/// An argument as redis-cli would need it typed: bare when it is plain,
/// else double-quoted with escapes, so [`split_args`] reads it back.
pub fn quote(arg: &[u8]) -> String {
    let plain = !arg.is_empty()
        && arg
            .iter()
            .all(|&c| c.is_ascii_graphic() && !matches!(c, b'"' | b'\'' | b'\\'));
    if plain {
        return String::from_utf8_lossy(arg).into_owned();
    }
    let mut out = String::from("\"");
    for &c in arg {
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(c as char),
            _ => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push('"');
    out
}

fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Percent-decoding as forms write it (`+` is a space); bad escapes stay.
fn decode_component(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(step: &Step) -> Vec<String> {
        match step {
            Step::Command { args, .. } => args
                .iter()
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect(),
            Step::Sleep { .. } => vec![],
        }
    }

    #[test]
    fn lines_comments_sleeps_and_targets() {
        let s = Session::parse(
            "# a comment\n\nSET k \"a b\"\n  # sleep 250\n@2 BLPOP q 0\n@9 PING\n#sleepy 3\n",
        )
        .unwrap();
        assert_eq!(s.steps.len(), 4);
        assert_eq!(words(&s.steps[0]), ["SET", "k", "a b"]);
        assert_eq!(s.steps[1], Step::Sleep { line: 4, ms: 250 });
        assert!(matches!(
            s.steps[2],
            Step::Command {
                line: 5,
                client: 2,
                ..
            }
        ));
        // @9 is past MAX_CLIENTS: the line is client 1's, whole.
        assert!(matches!(s.steps[3], Step::Command { client: 1, .. }));
        assert_eq!(words(&s.steps[3])[0], "@9");
    }

    #[test]
    fn errors_name_their_line() {
        assert_eq!(
            Session::parse("PING\nSET k \"open\n").unwrap_err(),
            "line 2: unbalanced quotes in: SET k \"open"
        );
        assert!(Session::parse("# sleep soon")
            .unwrap_err()
            .contains("line 1"));
    }

    #[test]
    fn share_links_read_as_sessions() {
        let s = Session::from_link(
            "https://x.test/redsim/?seed=0x10&t0=1&cmd=SET%20k%201&cmd=%402+GET+k#cmd=PING",
        )
        .unwrap();
        assert_eq!(s.seed, Some(16));
        assert_eq!(s.steps.len(), 3);
        assert_eq!(words(&s.steps[0]), ["SET", "k", "1"]);
        assert!(matches!(
            s.steps[1],
            Step::Command {
                line: 2,
                client: 2,
                ..
            }
        ));
        assert_eq!(words(&s.steps[2]), ["PING"]);
    }

    #[test]
    fn packed_links_read_as_sessions() {
        let text = "SET k 1 EX 100\n# sleep 3000\n@2 TTL k\n";
        let link = format!(
            "https://x.test/?seed=7#s={}",
            super::super::link::pack(text)
        );
        let s = Session::from_link(&link).unwrap();
        assert_eq!(s.seed, Some(7));
        assert_eq!(s.steps.len(), 3);
        assert!(matches!(s.steps[1], Step::Sleep { ms: 3000, .. }));
        assert!(matches!(s.steps[2], Step::Command { client: 2, .. }));
        assert!(Session::from_link("?s=garbage!").is_err());
    }

    #[test]
    fn text_round_trips_through_quoting() {
        let text = "SET k \"a \\\"b\\\"\\n\\x00\"\n# sleep 10\n@3 LPUSH q x\nSET e \"\"\n";
        let s = Session::parse(text).unwrap();
        let again = Session::parse(&s.to_text()).unwrap();
        let strip = |s: &Session| -> Vec<(usize, Vec<Vec<u8>>)> {
            s.steps
                .iter()
                .filter_map(|st| match st {
                    Step::Command { client, args, .. } => Some((*client, args.clone())),
                    Step::Sleep { .. } => None,
                })
                .collect()
        };
        assert_eq!(strip(&again), strip(&s));
        assert_eq!(s.to_text(), again.to_text());
    }
}
