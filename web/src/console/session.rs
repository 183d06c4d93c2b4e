//! One client's console: its screen, prompt input, Up/Down history and blocking state, like one redis-cli window on the shared server; and the `@N` prefix that addresses a client in shared links.
//!
//! A client that sent a blocking command (BLPOP & co.) waits, as redis-cli
//! does: its input is locked until the engine delivers the reply through
//! `take_unblocked` (another client pushed, or the virtual timeout passed),
//! or until Ctrl+C drops the connection. A subscribed client (SUBSCRIBE &
//! co.) keeps its prompt, so it can UNSUBSCRIBE; the messages published to
//! it arrive the same way. This is the model only (no DOM), so its rules
//! are tested natively.

use std::rc::Rc;

use redsim_engine::ClientId;

use super::help::HelpOut;
use super::history::History;
use crate::fmt::fmt_clock;
use crate::panels::clients::label;

/// Console lines kept per client.
pub const MAX_LINES: usize = 1000;
/// Most clients a widget opens, and the `@N` targets a session line may
/// name: one rule with `redsim replay`'s scripts.
pub use redsim_engine::proto::session::{split_target, MAX_CLIENTS};

/// One entry of a console screen.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// A command as typed, after its prompt.
    Input { prompt: String, text: String },
    /// A reply as redis-cli prints it.
    Reply { text: String, error: bool },
    /// Output of the console's own `HELP`.
    Help(HelpOut),
    /// A message from the console itself.
    Note(String),
}

/// A blocking command the client waits on.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// The command line, as typed.
    pub command: String,
    /// Virtual µs at which it times out, if it has a timeout.
    pub deadline_us: Option<u64>,
    /// It is a script past busy-reply-threshold, not a blocking command.
    pub script: bool,
    /// CLIENT PAUSE holds it: it runs once the pause ends.
    pub paused: bool,
}

/// One client's console.
pub struct Session {
    /// 1-based, fixed for the tab's life (a reconnect keeps it).
    pub num: usize,
    pub id: ClientId,
    pub lines: Rc<Vec<Line>>,
    pub input: String,
    pub history: History,
    pub waiting: Option<Waiting>,
    /// Channels, patterns and shard channels the client is subscribed to.
    pub subscriptions: usize,
    /// Replies that arrived while the tab was not shown.
    pub unread: usize,
}

impl Session {
    pub fn new(num: usize, id: ClientId) -> Session {
        Session {
            num,
            id,
            lines: Rc::new(Vec::new()),
            input: String::new(),
            history: History::default(),
            waiting: None,
            subscriptions: 0,
            unread: 0,
        }
    }

    /// The name the client connects with: it labels it in the trace and
    /// the timeline.
    pub fn label(&self) -> String {
        label(self.num)
    }

    pub fn push(&mut self, line: Line) {
        let lines = Rc::make_mut(&mut self.lines);
        lines.push(line);
        if lines.len() > MAX_LINES {
            let extra = lines.len() - MAX_LINES;
            lines.drain(..extra);
        }
    }

    pub fn clear(&mut self) {
        Rc::make_mut(&mut self.lines).clear();
    }

    /// Up: the previous history entry in the input; false if there is none.
    pub fn history_up(&mut self) -> bool {
        self.history.up(&mut self.input)
    }

    /// Down: the next entry, then the draft; false when not browsing.
    pub fn history_down(&mut self) -> bool {
        self.history.down(&mut self.input)
    }
}

/// What redis-cli says in subscribed mode, with the count.
pub fn subscribed_text(n: usize) -> String {
    format!(
        "Reading messages… {n} subscription{} · UNSUBSCRIBE to stop · Ctrl+C disconnects",
        if n == 1 { "" } else { "s" }
    )
}

/// The form of `command` sent by client `num` in a shared link.
pub fn with_target(num: usize, command: &str) -> String {
    if num == 1 {
        command.to_string()
    } else {
        format!("@{num} {command}")
    }
}

/// "waiting for data · times out at 0:00:05.001, in 4.2 s" for a blocked
/// client at virtual `now_us`. Redis times a client out once its deadline
/// is strictly in the past, so a 5 s timeout ends 1 ms after 5 s; the
/// last second is shown in ms so that millisecond is not hidden.
pub fn waiting_text(w: &Waiting, now_us: u64) -> String {
    if w.script {
        return "the script runs past busy-reply-threshold: other clients get BUSY until it \
                ends (SCRIPT KILL from another client stops it if it has not written)"
            .to_string();
    }
    if w.paused {
        return "held by CLIENT PAUSE: it runs once the pause ends (its timeout, or CLIENT \
                UNPAUSE from another client)"
            .to_string();
    }
    match w.deadline_us {
        None => "waiting for data (no timeout)".to_string(),
        Some(d) => {
            // Rounded up: "0 ms" only once the deadline is reached (commands'
            // modelled cost can leave the clock a few µs past a whole ms).
            let left_ms = d.saturating_sub(now_us).div_ceil(1000);
            let left = if left_ms < 1000 {
                format!("{left_ms} ms")
            } else {
                format!("{}.{} s", left_ms / 1000, left_ms % 1000 / 100)
            };
            format!(
                "waiting for data · times out at {}, in {left} of virtual time",
                fmt_clock(d)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_screen_is_bounded() {
        let mut s = Session::new(1, 1);
        for i in 0..MAX_LINES + 5 {
            s.push(Line::Note(i.to_string()));
        }
        assert_eq!(s.lines.len(), MAX_LINES);
        assert_eq!(s.lines[0], Line::Note("5".into()));
        s.clear();
        assert!(s.lines.is_empty());
    }

    #[test]
    fn targets_of_shared_commands() {
        assert_eq!(split_target("@2 LPUSH q a"), (2, "LPUSH q a"));
        assert_eq!(split_target("  @3   BLPOP q 0"), (3, "BLPOP q 0"));
        assert_eq!(split_target("LPUSH q a"), (1, "LPUSH q a"));
        // Not a target: no space, out of range, no number.
        assert_eq!(split_target("@2LPUSH"), (1, "@2LPUSH"));
        assert_eq!(split_target("@0 PING"), (1, "@0 PING"));
        assert_eq!(split_target("@99 PING"), (1, "@99 PING"));
        assert_eq!(split_target("@ PING"), (1, "@ PING"));
        for (n, c) in [(1, "GET a"), (2, "LPUSH q a"), (8, "PING")] {
            assert_eq!(split_target(&with_target(n, c)), (n, c));
        }
    }

    #[test]
    fn labels_and_waiting_text() {
        let s = Session::new(3, 9);
        assert_eq!(s.label(), "client 3");
        assert_eq!(crate::panels::clients::label_num(&s.label()), Some(3));
        let w = Waiting {
            command: "BLPOP q 5".into(),
            deadline_us: Some(5_001_000),
            script: false,
            paused: false,
        };
        assert_eq!(
            waiting_text(&w, 750_000),
            "waiting for data · times out at 0:00:05.001, in 4.2 s of virtual time"
        );
        assert_eq!(
            waiting_text(&w, 5_000_000),
            "waiting for data · times out at 0:00:05.001, in 1 ms of virtual time"
        );
        assert_eq!(
            waiting_text(&w, 9_000_000),
            "waiting for data · times out at 0:00:05.001, in 0 ms of virtual time"
        );
        let script = Waiting {
            command: "EVAL \"while true do end\" 0".into(),
            deadline_us: None,
            script: true,
            paused: false,
        };
        assert!(waiting_text(&script, 0).contains("busy-reply-threshold"));
        let forever = Waiting {
            command: "BLPOP q 0".into(),
            deadline_us: None,
            script: false,
            paused: false,
        };
        assert_eq!(waiting_text(&forever, 0), "waiting for data (no timeout)");
        assert!(subscribed_text(1).starts_with("Reading messages… 1 subscription ·"));
        assert!(subscribed_text(3).starts_with("Reading messages… 3 subscriptions ·"));
    }
}
