//! The Cluster view's session as text, for its Share link and the address bar: the key typed and each button, with the animation steps between them, replayed to the same state.
//!
//! Everything the view shows follows from the cluster it builds (always the
//! same) and this sequence, so the link needs no cluster state of its own.
//! Lines: `key <text>`, `migrate`, `kill`, `restart`, `ticks <n>`, `cmd <console line>`;
//! `SlotMapState::replay` reads them back.

use super::action::Action;

/// The actions so far, consecutive ticks and key edits merged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Log {
    entries: Vec<Entry>,
}

#[derive(Clone, Debug, PartialEq)]
enum Entry {
    Key(String),
    Migrate,
    Kill,
    Restart,
    Ticks(u32),
    Command(String),
}

impl Log {
    /// Notes `a`, just applied.
    pub fn record(&mut self, a: &Action) {
        match (a, self.entries.last_mut()) {
            (Action::Key(k), Some(Entry::Key(last))) => *last = k.clone(),
            (Action::Key(k), _) => self.entries.push(Entry::Key(k.clone())),
            (Action::Tick, Some(Entry::Ticks(n))) => *n += 1,
            (Action::Tick, _) => self.entries.push(Entry::Ticks(1)),
            (Action::Migrate, _) => self.entries.push(Entry::Migrate),
            (Action::Kill, _) => self.entries.push(Entry::Kill),
            (Action::Restart, _) => self.entries.push(Entry::Restart),
            (Action::Command(c), _) => self.entries.push(Entry::Command(one_line(c))),
            (Action::Point(_), _) => {}
        }
    }

    /// Nothing was done yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The text form, one line per entry.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            match e {
                Entry::Key(k) => out.push_str(&format!("key {}\n", one_line(k))),
                Entry::Migrate => out.push_str("migrate\n"),
                Entry::Kill => out.push_str("kill\n"),
                Entry::Restart => out.push_str("restart\n"),
                Entry::Ticks(n) => out.push_str(&format!("ticks {n}\n")),
                Entry::Command(c) => out.push_str(&format!("cmd {c}\n")),
            }
        }
        out
    }
}

fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// The link that reopens the view as it is, on the page at `base`.
pub fn link(base: &str, log: &Log) -> String {
    let mut url = format!("{base}?tab=cluster");
    if !log.is_empty() {
        url.push_str("#c=");
        url.push_str(&redsim_engine::proto::link::pack(&log.text()));
    }
    url
}
