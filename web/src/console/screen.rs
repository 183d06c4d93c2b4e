//! The console's scrollback: typed commands after their prompt, replies as redis-cli prints them, the console's own notes, and HELP laid out as redis-cli lays it out.
//!
//! Lines are only ever appended (or the screen cleared, or another client's
//! screen shown), so [`Scrollback::show`] appends the new ones and redraws
//! only when the lines shown are not a prefix of the new ones.

use std::rc::Rc;

use web_sys::Element;

use super::help::HelpOut;
use super::session::Line;
use crate::ui::El;

/// The lines drawn in the screen's body, before its input area.
pub struct Scrollback {
    body: Element,
    shown: Rc<Vec<Line>>,
    nodes: Vec<Element>,
}

impl Scrollback {
    pub fn new(body: Element) -> Scrollback {
        Scrollback {
            body,
            shown: Rc::default(),
            nodes: Vec::new(),
        }
    }

    /// Shows `lines`, inserted before `anchor` (the input area's first node).
    pub fn show(&mut self, lines: &Rc<Vec<Line>>, anchor: &Element) {
        if Rc::ptr_eq(&self.shown, lines) {
            return;
        }
        let old = self.shown.len();
        if lines.len() < old || lines[..old] != self.shown[..] {
            for n in self.nodes.drain(..) {
                n.remove();
            }
        }
        for l in &lines[self.nodes.len()..] {
            let node = line(l).el();
            let _ = self.body.insert_before(&node, Some(anchor));
            self.nodes.push(node);
        }
        self.shown = lines.clone();
    }
}

fn line(l: &Line) -> El {
    match l {
        Line::Input { prompt, text } => El::new("div")
            .cls("rs-line rs-in")
            .child(El::new("span").cls("rs-prompt").text(prompt))
            .text(" ")
            .child(El::new("span").cls("rs-cmd").text(text)),
        Line::Reply { text, error } => El::new("div")
            .cls(if *error {
                "rs-line rs-out rs-err"
            } else {
                "rs-line rs-out"
            })
            .text(text),
        Line::Note(text) => El::new("div").cls("rs-line rs-note").text(text),
        Line::Help(h) => help_view(h),
    }
}

/// HELP output laid out as redis-cli prints it (name bold, arguments grey,
/// labels yellow).
fn help_view(h: &HelpOut) -> El {
    match h {
        HelpOut::Usage { groups } => {
            let groups: Vec<String> = groups.iter().map(|g| format!("@{g}")).collect();
            El::new("div").cls("rs-line rs-help").text(&format!(
                concat!(
                    "redsim {} (Redis {} semantics, in your browser)\n",
                    "To get help about Redis commands type:\n",
                    "      \"help @<group>\" to get a list of commands in <group>\n",
                    "      \"help <command>\" for help on <command>\n",
                    "      \"clear\" to clear the screen\n",
                    "      \"inspect <key>\" to draw a key's structure in the inspector\n\n",
                    "Groups: {}\n",
                    "Keys: Up/Down for history, Tab completes a command name, Ctrl+L clears, Ctrl+C cancels a blocking command.\n",
                    "Clients: \"+ client\" opens another connection with its own console (BLPOP in one, LPUSH in another)."
                ),
                env!("CARGO_PKG_VERSION"),
                redsim_engine::REDIS_VERSION,
                groups.join(" ")
            ))
        }
        HelpOut::Entries {
            entries,
            show_group,
        } => {
            let label = |e: El, name: &str, value: &str| {
                e.text("  ")
                    .child(El::new("span").cls("rs-yellow").text(name))
                    .text(&format!(" {value}\n"))
            };
            El::new("div")
                .cls("rs-line rs-help")
                .children(entries.iter().map(|e| {
                    let entry = El::new("div")
                        .cls("rs-help-entry")
                        .text("\n  ")
                        .child(El::new("b").cls("rs-help-name").text(&e.name))
                        .text(" ")
                        .child(El::new("span").cls("rs-grey").text(&e.params))
                        .text("\n");
                    let entry = label(entry, "summary:", &e.summary);
                    let entry = label(entry, "since:", &e.since);
                    if *show_group {
                        label(entry, "group:", &e.group)
                    } else {
                        entry
                    }
                }))
                .text("\n")
        }
        HelpOut::NoMatch(what) => El::new("div").cls("rs-line rs-note").text(&format!(
            "No help for '{what}'. Try HELP @string, or HELP for the list of groups."
        )),
    }
}
