//! The Cluster view's session as text, for its Share link and the address bar: the key typed and each button, with the animation steps between them, replayed to the same state.
//!
//! Everything the view shows follows from the cluster it builds (always the
//! same) and this sequence, so the link needs no cluster state of its own.
//! Lines: `key <text>`, `migrate`, `kill`, `restart`, `ticks <n>`.

use super::state::{Action, SlotMapState};

/// Most animation steps a link may replay (a failover takes well under 200).
const MAX_TICKS: u32 = 20_000;

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
                Entry::Key(k) => out.push_str(&format!("key {}\n", k.replace(['\r', '\n'], " "))),
                Entry::Migrate => out.push_str("migrate\n"),
                Entry::Kill => out.push_str("kill\n"),
                Entry::Restart => out.push_str("restart\n"),
                Entry::Ticks(n) => out.push_str(&format!("ticks {n}\n")),
            }
        }
        out
    }
}

/// A view at the state `text` leads to; unknown lines are skipped and at
/// most [`MAX_TICKS`] steps run, so no link can hang the page.
pub fn replay(text: &str) -> SlotMapState {
    let mut st = SlotMapState::default();
    st.show();
    let mut ticks = 0u32;
    for line in text.lines() {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "key" => st.apply(Action::Key(rest.to_string())),
            "migrate" => st.apply(Action::Migrate),
            "kill" => st.apply(Action::Kill),
            "restart" => st.apply(Action::Restart),
            "ticks" => {
                let n: u32 = rest.trim().parse().unwrap_or(0);
                for _ in 0..n.min(MAX_TICKS - ticks) {
                    st.apply(Action::Tick);
                }
                ticks = ticks.saturating_add(n).min(MAX_TICKS);
            }
            _ => {}
        }
    }
    st
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replayed_log_reaches_the_same_view() {
        let mut st = SlotMapState::default();
        st.show();
        for a in [
            Action::Key("user:{7}".into()),
            Action::Key("{tenant:42}:order:1".into()),
            Action::Migrate,
        ] {
            st.apply(a);
        }
        while st.busy() {
            st.apply(Action::Tick);
        }
        st.apply(Action::Kill);
        for _ in 0..30 {
            st.apply(Action::Tick);
        }
        let text = st.log.text();
        assert!(
            text.starts_with("key {tenant:42}:order:1\nmigrate\nticks "),
            "{text}"
        );
        let again = replay(&text);
        assert_eq!(again.status, st.status);
        assert_eq!(again.log, st.log);
        let (a, b) = (
            again.cluster.as_ref().unwrap(),
            st.cluster.as_ref().unwrap(),
        );
        assert_eq!(a.now_us(), b.now_us());
        assert_eq!(
            (0..a.nodes.len())
                .map(|i| a.nodes[i].down)
                .collect::<Vec<_>>(),
            (0..b.nodes.len())
                .map(|i| b.nodes[i].down)
                .collect::<Vec<_>>()
        );
        let view = |c: &redsim_sim::cluster::Cluster| {
            let v = c.view(super::super::state::observer(c));
            (0..a.nodes.len())
                .map(|n| v.slot_count(n))
                .collect::<Vec<_>>()
        };
        assert_eq!(view(a), view(b));
        // The link carries it packed; hostile text is harmless.
        assert!(link("/p/", &st.log).starts_with("/p/?tab=cluster#c="));
        assert_eq!(link("/p/", &Log::default()), "/p/?tab=cluster");
        let junk = replay("ticks 99999999999\nbogus\nkey \nticks -3\n");
        assert!(!junk.busy());
    }
}
