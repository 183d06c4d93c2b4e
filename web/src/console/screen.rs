//! The console's scrollback: typed commands after their prompt, replies as redis-cli prints them, the console's own notes, and HELP laid out as redis-cli lays it out.

use std::rc::Rc;

use yew::prelude::*;

use super::help::HelpOut;
use super::session::Line;

#[derive(Properties)]
pub struct ScreenProps {
    pub lines: Rc<Vec<Line>>,
}

/// Lines are replaced, never edited in place, so pointer equality is enough
/// and a tick does not compare the whole scrollback.
impl PartialEq for ScreenProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.lines, &other.lines)
    }
}

/// The console's scrollback.
#[component]
pub fn Screen(props: &ScreenProps) -> Html {
    props.lines.iter().map(line).collect()
}

fn line(l: &Line) -> Html {
    match l {
        Line::Input { prompt, text } => html! {
            <div class="rs-line rs-in"><span class="rs-prompt">{ prompt }</span>{ " " }<span class="rs-cmd">{ text }</span></div>
        },
        Line::Reply { text, error } => html! {
            <div class={ classes!("rs-line", "rs-out", error.then_some("rs-err")) }>{ text }</div>
        },
        Line::Note(text) => html! { <div class="rs-line rs-note">{ text }</div> },
        Line::Help(h) => help_view(h),
    }
}

/// HELP output laid out as redis-cli prints it (name bold, arguments grey,
/// labels yellow).
fn help_view(h: &HelpOut) -> Html {
    match h {
        HelpOut::Usage { groups } => html! {
            <div class="rs-line rs-help">
                { format!("redsim {} (Redis {} semantics, in your browser)\n", env!("CARGO_PKG_VERSION"), redsim_engine::REDIS_VERSION) }
                { "To get help about Redis commands type:\n" }
                { "      \"help @<group>\" to get a list of commands in <group>\n" }
                { "      \"help <command>\" for help on <command>\n" }
                { "      \"clear\" to clear the screen\n" }
                { "      \"inspect <key>\" to draw a key's structure in the inspector\n\n" }
                { format!("Groups: {}\n", groups.iter().map(|g| format!("@{g}")).collect::<Vec<_>>().join(" ")) }
                { "Keys: Up/Down for history, Tab completes a command name, Ctrl+L clears, Ctrl+C cancels a blocking command.\n" }
                { "Clients: \"+ client\" opens another connection with its own console (BLPOP in one, LPUSH in another)." }
            </div>
        },
        HelpOut::Entries {
            entries,
            show_group,
        } => html! {
            <div class="rs-line rs-help">
                { for entries.iter().map(|e| html! {
                    <div class="rs-help-entry">
                        { "\n  " }<b class="rs-help-name">{ &e.name }</b>{ " " }<span class="rs-grey">{ &e.params }</span>{ "\n" }
                        { "  " }<span class="rs-yellow">{ "summary:" }</span>{ format!(" {}\n", e.summary) }
                        { "  " }<span class="rs-yellow">{ "since:" }</span>{ format!(" {}\n", e.since) }
                        if *show_group {
                            { "  " }<span class="rs-yellow">{ "group:" }</span>{ format!(" {}\n", e.group) }
                        }
                    </div>
                }) }
                { "\n" }
            </div>
        },
        HelpOut::NoMatch(what) => html! {
            <div class="rs-line rs-note">{ format!("No help for '{what}'. Try HELP @string, or HELP for the list of groups.") }</div>
        },
    }
}
