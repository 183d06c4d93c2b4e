//! COMMAND DOCS: each command's summary, version, group and arguments, the arguments parsed back out of its syntax line, shaped as Redis replies them so that redis-cli can build its hints.

use crate::cmd::table::{full_name, Command, Ctx};
use crate::proto::resp::Frame;

/// COMMAND DOCS: summary, since, group, arguments (derived from the syntax
/// line) and subcommands, shaped as Redis replies them so that redis-cli
/// can build its hints.
pub(super) fn command_docs(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let names = &ctx.srv.renames;
    let pick: Vec<(Option<&Command>, &Command)> = if args.len() == 2 {
        ctx.reg
            .all()
            .filter(|c| names.called(c))
            .map(|c| (None, c))
            .collect()
    } else {
        args[2..]
            .iter()
            .filter_map(|n| names.lookup_full_name(ctx.reg.lookup, n))
            .collect()
    };
    Frame::Map(
        pick.into_iter()
            .map(|(parent, cmd)| (Frame::bulk(full_name(parent, cmd)), docs_frame(parent, cmd)))
            .collect(),
    )
}

fn docs_frame(parent: Option<&Command>, cmd: &Command) -> Frame {
    let mut m = vec![
        (Frame::bulk("summary"), Frame::bulk(cmd.summary())),
        (Frame::bulk("since"), Frame::bulk(cmd.since)),
        (Frame::bulk("group"), Frame::bulk(cmd.group)),
    ];
    let skip = if parent.is_some() { 2 } else { 1 };
    let arguments = syntax_args(cmd.syntax(), skip);
    if !arguments.is_empty() && cmd.subcommands.is_empty() {
        m.push((
            Frame::bulk("arguments"),
            Frame::Array(arguments.iter().map(DocArg::frame).collect()),
        ));
    }
    if !cmd.subcommands.is_empty() {
        m.push((
            Frame::bulk("subcommands"),
            Frame::Map(
                cmd.subcommands
                    .iter()
                    .map(|s| {
                        (
                            Frame::bulk(full_name(Some(cmd), s)),
                            docs_frame(Some(cmd), s),
                        )
                    })
                    .collect(),
            ),
        ));
    }
    Frame::Map(m)
}

/// One argument of COMMAND DOCS, parsed back out of a syntax line.
#[derive(Clone, Debug, PartialEq)]
pub struct DocArg {
    pub name: String,
    /// `key`, `string`, `integer`, `unix-time`, `pattern`, `pure-token`, `oneof` or `block`.
    pub kind: &'static str,
    pub token: Option<String>,
    pub optional: bool,
    pub multiple: bool,
    pub args: Vec<DocArg>,
}

impl DocArg {
    fn leaf(word: &str, token: Option<&str>) -> DocArg {
        let kind = if token.is_some() && word == token.unwrap_or("").to_ascii_lowercase() {
            "pure-token"
        } else if word.contains("key") || word == "destination" || word == "source" {
            "key"
        } else if word.starts_with("unix-time") {
            "unix-time"
        } else if word == "pattern" {
            "pattern"
        } else if matches!(
            word,
            "seconds"
                | "milliseconds"
                | "count"
                | "index"
                | "increment"
                | "decrement"
                | "offset"
                | "start"
                | "end"
                | "cursor"
                | "protover"
                | "client-id"
        ) {
            "integer"
        } else {
            "string"
        };
        DocArg {
            name: word.to_string(),
            kind,
            token: token.map(str::to_string),
            optional: false,
            multiple: false,
            args: Vec::new(),
        }
    }

    /// A `block` or `oneof` of `args`, named after them.
    fn nested(kind: &'static str, args: Vec<DocArg>) -> DocArg {
        DocArg {
            name: args
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join("-"),
            kind,
            token: None,
            optional: false,
            multiple: false,
            args,
        }
    }

    /// `addReplyCommandArgList`'s map for one argument.
    fn frame(&self) -> Frame {
        let mut m = vec![
            (Frame::bulk("name"), Frame::bulk(&self.name)),
            (Frame::bulk("type"), Frame::bulk(self.kind)),
        ];
        let nested = matches!(self.kind, "oneof" | "block");
        if !nested {
            m.push((Frame::bulk("display_text"), Frame::bulk(&self.name)));
        }
        if let Some(t) = &self.token {
            m.push((Frame::bulk("token"), Frame::bulk(t)));
        }
        let mut flags = Vec::new();
        if self.optional {
            flags.push(Frame::Simple("optional".into()));
        }
        if self.multiple {
            flags.push(Frame::Simple("multiple".into()));
        }
        if !flags.is_empty() {
            m.push((Frame::bulk("flags"), Frame::Set(flags)));
        }
        if nested {
            m.push((
                Frame::bulk("arguments"),
                Frame::Array(self.args.iter().map(DocArg::frame).collect()),
            ));
        }
        Frame::Map(m)
    }
}

/// Splits a syntax line into words and the marks `[ ] ( ) | ...`.
fn syntax_tokens(syntax: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            out.push(std::mem::take(word));
        }
    };
    for ch in syntax.chars() {
        match ch {
            '[' | ']' | '(' | ')' | '|' => {
                flush(&mut word, &mut out);
                out.push(ch.to_string());
            }
            c if c.is_whitespace() => flush(&mut word, &mut out),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The arguments a syntax line such as `EXPIRE key seconds [NX | XX | GT | LT]`
/// describes, after its first `skip` words (the command's name). Upper-case
/// words are tokens (with the next lower-case word as their value), `[...]`
/// is optional, `a | b` one of, `x [x ...]` and `x ...` repeat.
pub fn syntax_args(syntax: &str, skip: usize) -> Vec<DocArg> {
    let toks = syntax_tokens(syntax);
    let mut i = skip.min(toks.len());
    let alts = parse_alts(&toks, &mut i, 0);
    group(alts)
        .map(|g| {
            if g.kind == "block" && !g.optional {
                g.args
            } else {
                vec![g]
            }
        })
        .unwrap_or_default()
}

/// Alternatives separated by `|`, up to a closing mark or the end.
fn parse_alts(toks: &[String], i: &mut usize, depth: u32) -> Vec<Vec<DocArg>> {
    let mut alts = vec![parse_seq(toks, i, depth)];
    while toks.get(*i).is_some_and(|t| t == "|") {
        *i += 1;
        alts.push(parse_seq(toks, i, depth));
    }
    alts
}

/// A run of arguments until `|`, `]`, `)` or the end.
fn parse_seq(toks: &[String], i: &mut usize, depth: u32) -> Vec<DocArg> {
    let mut seq: Vec<DocArg> = Vec::new();
    while let Some(t) = toks.get(*i) {
        match t.as_str() {
            "|" | "]" | ")" => break,
            "[" | "(" if depth < 8 => {
                let close = if t == "[" { "]" } else { ")" };
                let optional = t == "[";
                *i += 1;
                let alts = parse_alts(toks, i, depth + 1);
                if toks.get(*i).is_some_and(|t| t == close) {
                    *i += 1;
                }
                // `x [x ...]`: the previous argument repeats.
                let repeats_prev = optional
                    && alts.len() == 1
                    && alts[0].len() == 1
                    && alts[0][0].multiple
                    && seq.last().is_some_and(|p| p.name == alts[0][0].name);
                if repeats_prev {
                    if let Some(p) = seq.last_mut() {
                        p.multiple = true;
                    }
                    continue;
                }
                if let Some(mut g) = group(alts) {
                    g.optional |= optional;
                    seq.push(g);
                }
            }
            "..." => {
                if let Some(p) = seq.last_mut() {
                    p.multiple = true;
                }
                *i += 1;
            }
            w => {
                *i += 1;
                let is_token = w.chars().any(|c| c.is_ascii_uppercase())
                    && !w.chars().any(|c| c.is_ascii_lowercase());
                if is_token {
                    let value = toks
                        .get(*i)
                        .filter(|n| n.chars().next().is_some_and(|c| c.is_ascii_lowercase()));
                    match value {
                        Some(v) => {
                            *i += 1;
                            seq.push(DocArg::leaf(v, Some(w)));
                        }
                        None => seq.push(DocArg::leaf(&w.to_ascii_lowercase(), Some(w))),
                    }
                } else if !w.starts_with('<') {
                    seq.push(DocArg::leaf(w, None));
                }
            }
        }
    }
    seq
}

/// One argument for a group: itself if alone, a block for a run, a oneof for alternatives.
fn group(mut alts: Vec<Vec<DocArg>>) -> Option<DocArg> {
    alts.retain(|a| !a.is_empty());
    let mut members: Vec<DocArg> = alts
        .into_iter()
        .map(|mut seq| {
            if seq.len() == 1 {
                seq.remove(0)
            } else {
                DocArg::nested("block", seq)
            }
        })
        .collect();
    match members.len() {
        0 => None,
        1 => members.pop(),
        _ => Some(DocArg::nested("oneof", members)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::dispatch::REGISTRY;

    #[test]
    fn syntax_lines_become_doc_arguments() {
        let args = syntax_args("EXPIRE key seconds [NX | XX | GT | LT]", 1);
        assert_eq!(args.len(), 3);
        assert_eq!((args[0].name.as_str(), args[0].kind), ("key", "key"));
        assert_eq!(
            (args[1].name.as_str(), args[1].kind),
            ("seconds", "integer")
        );
        assert_eq!(args[2].kind, "oneof");
        assert!(args[2].optional);
        let tokens: Vec<_> = args[2].args.iter().map(|a| a.token.clone()).collect();
        assert_eq!(
            tokens,
            ["NX", "XX", "GT", "LT"].map(|t| Some(t.to_string()))
        );

        let del = syntax_args("DEL key [key ...]", 1);
        assert_eq!(del.len(), 1);
        assert!(del[0].multiple && !del[0].optional);

        let info = syntax_args("INFO [section [section ...]]", 1);
        assert_eq!(info.len(), 1);
        assert!(info[0].multiple && info[0].optional);

        let get = syntax_args("CONFIG GET parameter [parameter ...]", 2);
        assert_eq!(get.len(), 1);
        assert_eq!(get[0].name, "parameter");

        let hello = syntax_args(
            "HELLO [protover [AUTH username password] [SETNAME clientname]]",
            1,
        );
        assert_eq!(hello.len(), 1);
        assert_eq!(hello[0].kind, "block");
        assert!(hello[0].optional);
        assert_eq!(hello[0].args[1].kind, "block");
        assert_eq!(hello[0].args[2].token.as_deref(), Some("SETNAME"));

        assert!(syntax_args("DBSIZE", 1).is_empty());
        // Never panics, whatever the line.
        for s in ["[", "]", "X [a | ] ...", "A (B | [C", "| | ...", ""] {
            let _ = syntax_args(s, 1);
        }
    }

    #[test]
    fn every_table_syntax_line_gives_well_formed_docs() {
        for (parent, cmd) in REGISTRY.every_command() {
            let f = docs_frame(parent, cmd);
            assert!(matches!(f, Frame::Map(_)), "{}", cmd.name);
        }
    }
}
