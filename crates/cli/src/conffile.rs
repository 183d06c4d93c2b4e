//! redis.conf files for `redsim server <file>`: read as redis-server reads them (`loadServerConfig`), the command line's options after the file, `include` in place, every line numbered as Redis numbers it for its errors.
//!
//! The text read is the file, then a newline, then the command line's
//! options one per line (`--port 7000` becomes `port "7000"`, as Redis
//! quotes them), so an option overrides the file and a bad one is reported
//! at the line Redis would name. `-` as the first or last argument reads
//! the file from standard input. Each line is trimmed, a blank line or one
//! starting with `#` is skipped, and the rest is split as `sdssplitargs`
//! splits (quotes, `\x41` escapes), so `"unbalanced` is refused with
//! Redis' words. `include` reads another file at that point, numbered from
//! its own first line; a pattern in its last path component (`conf.d/*.conf`)
//! includes every match, in name order, and none is no error, as in Redis.

use std::path::{Path, PathBuf};

use redsim_engine::proto::resp::split_args;

/// Where the file comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Stdin,
}

/// One directive: its words (the name lowercased), the line as written,
/// trimmed, and its number in the text it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub argv: Vec<String>,
    pub text: String,
    pub linenum: usize,
}

/// The directives of `source` followed by those of `options` (each line
/// one command-line option), with includes read in place.
pub fn read(source: Option<&Source>, options: &str) -> Result<Vec<Line>, String> {
    let mut config = match source {
        None => String::new(),
        Some(Source::Stdin) => {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .map_err(|e| cannot_open("-", &e))?;
            s
        }
        Some(Source::File(path)) => load(path)?,
    };
    if !options.is_empty() {
        config.push('\n');
        config.push_str(options);
    }
    let mut out = Vec::new();
    lines(&config, &mut out, 0)?;
    Ok(out)
}

/// How deep includes may nest: a file that includes itself stops here
/// instead of recursing until the stack runs out.
const MAX_INCLUDE_DEPTH: usize = 32;

fn lines(config: &str, out: &mut Vec<Line>, depth: usize) -> Result<(), String> {
    for (i, raw) in config.split('\n').enumerate() {
        let linenum = i + 1;
        let text = raw.trim_matches([' ', '\t', '\r', '\n']);
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let Some(words) = split_args(text.as_bytes()) else {
            return Err(fatal(
                linenum,
                text,
                "Unbalanced quotes in configuration line",
            ));
        };
        if words.is_empty() {
            continue;
        }
        let mut argv: Vec<String> = words
            .iter()
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        argv[0] = argv[0].to_ascii_lowercase();
        if argv[0] == "include" && argv.len() == 2 {
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(fatal(linenum, text, "Too many nested includes"));
            }
            for path in matches(&argv[1]) {
                lines(&load(&path)?, out, depth + 1)?;
            }
            continue;
        }
        out.push(Line {
            argv,
            text: text.to_string(),
            linenum,
        });
    }
    Ok(())
}

/// A file's text, or Redis' words for why it cannot be opened.
fn load(path: &Path) -> Result<String, String> {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| cannot_open(&path.display().to_string(), &e))
}

fn cannot_open(path: &str, e: &std::io::Error) -> String {
    let text = crate::oserror::os_error_text(e);
    format!("Fatal error, can't open config file '{path}': {text}")
}

/// The files an `include` names: the path itself, or with a pattern in its
/// last component the directory's entries that match it, sorted.
fn matches(pattern: &str) -> Vec<PathBuf> {
    let path = Path::new(pattern);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let Some(name) = name.filter(|n| n.contains(['*', '?', '['])) else {
        return vec![path.to_path_buf()];
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            // As glob(3): `*` does not match a leading dot.
            (name.starts_with('.') || !n.starts_with('.'))
                && redsim_engine::glob::matches(name.as_bytes(), n.as_bytes(), false)
        })
        .map(|e| dir.join(e.file_name()))
        .collect();
    found.sort();
    found
}

/// redis-server's banner for a configuration line it refuses.
pub fn fatal(linenum: usize, text: &str, reason: &str) -> String {
    format!(
        "\n*** FATAL CONFIG FILE ERROR (redsim {}, Redis {} semantics) ***\n\
         Reading the configuration file, at line {linenum}\n>>> '{text}'\n{reason}",
        env!("CARGO_PKG_VERSION"),
        redsim_engine::REDIS_VERSION,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("redsim-conffile-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn words(lines: &[Line]) -> Vec<(usize, String)> {
        lines
            .iter()
            .map(|l| (l.linenum, l.argv.join("|")))
            .collect()
    }

    #[test]
    fn lines_are_numbered_across_the_file_and_the_options() {
        let d = dir("numbers");
        let f = d.join("r.conf");
        std::fs::write(
            &f,
            "# a comment\n  PORT 6399  \r\n\nsave \"\"\nbind 127.0.0.1 \"::1\"\n",
        )
        .unwrap();
        let got = read(Some(&Source::File(f)), "maxmemory \"10mb\"").unwrap();
        assert_eq!(
            words(&got),
            [
                (2, "port|6399".into()),
                (4, "save|".into()),
                (5, "bind|127.0.0.1|::1".into()),
                (7, "maxmemory|10mb".into())
            ]
        );
        assert_eq!(got[0].text, "PORT 6399");
    }

    #[test]
    fn unbalanced_quotes_are_refused_at_their_line() {
        let d = dir("quotes");
        let f = d.join("r.conf");
        std::fs::write(&f, "port 6399\nsave \"\n").unwrap();
        let e = read(Some(&Source::File(f)), "").unwrap_err();
        assert!(e.contains("Reading the configuration file, at line 2\n>>> 'save \"'\nUnbalanced quotes in configuration line"), "{e}");
    }

    #[test]
    fn includes_are_read_in_place_and_patterns_match_names() {
        let d = dir("include");
        std::fs::create_dir_all(d.join("conf.d")).unwrap();
        std::fs::write(d.join("conf.d/b.conf"), "hz 20\n").unwrap();
        std::fs::write(d.join("conf.d/a.conf"), "\nhz 15\n").unwrap();
        std::fs::write(d.join("conf.d/.hidden.conf"), "hz 99\n").unwrap();
        let main = d.join("main.conf");
        let text = format!(
            "port 1\ninclude {}/conf.d/*.conf\ninclude {}/none-*.conf\nport 2\n",
            d.display(),
            d.display()
        );
        std::fs::write(&main, text).unwrap();
        let got = read(Some(&Source::File(main)), "").unwrap();
        assert_eq!(
            words(&got),
            [
                (1, "port|1".into()),
                (2, "hz|15".into()),
                (1, "hz|20".into()),
                (4, "port|2".into())
            ]
        );
        let missing = d.join("missing.conf");
        std::fs::write(
            d.join("inc.conf"),
            format!("include {}\n", missing.display()),
        )
        .unwrap();
        let e = read(Some(&Source::File(d.join("inc.conf"))), "").unwrap_err();
        assert!(
            e.starts_with("Fatal error, can't open config file '"),
            "{e}"
        );
        assert!(
            e.ends_with("missing.conf': No such file or directory"),
            "{e}"
        );
        // A file that includes itself stops at the nesting limit.
        let me = d.join("me.conf");
        std::fs::write(&me, format!("include {}\n", me.display())).unwrap();
        assert!(read(Some(&Source::File(me)), "")
            .unwrap_err()
            .contains("Too many nested includes"));
    }

    #[test]
    fn options_alone_start_at_the_second_line() {
        let got = read(None, "port \"7000\"\nfoo").unwrap();
        assert_eq!(words(&got), [(2, "port|7000".into()), (3, "foo".into())]);
    }
}
