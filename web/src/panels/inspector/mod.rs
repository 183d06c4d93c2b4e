//! The key inspector: the selected key's encoding, the thresholds that decide it (as gauges), and its structure drawn as a picture: quicklist nodes, the skiplist's levels and spans, a HyperLogLog's register histogram. It notices when a command changes the encoding and says why.
//!
//! Everything it shows comes from `Engine::inspect`, a plain-data view;
//! redsim-viz draws the skiplist and the register histogram from it, and
//! the gauge states are pure functions tested natively. This module is the
//! model; `panel` draws it.

mod body;
mod hll;
mod panel;

use std::rc::Rc;

use redsim_engine::inspect::{self, KeyView};
use redsim_engine::server::trace::Event;
use redsim_engine::Engine;

pub use panel::{InspectorPanel, InspectorProps};

/// Conversion notes kept per selected key.
const MAX_NOTES: usize = 5;

/// The key being inspected.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub db: usize,
    pub key: String,
}

/// An encoding change noticed between two commands.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvNote {
    /// Trace sequence number when noticed: a stable identity for the UI.
    pub id: u64,
    pub at_us: u64,
    pub text: String,
}

/// The inspector's model.
#[derive(Default)]
pub struct Inspector {
    pub target: Option<Target>,
    pub view: Option<Rc<KeyView>>,
    pub notes: Rc<Vec<ConvNote>>,
    /// Trace position of the last refresh.
    seen_seq: u64,
}

impl Inspector {
    /// Starts inspecting `key` of database `db`.
    pub fn select(&mut self, engine: &Engine, db: usize, key: String) {
        let same = self
            .target
            .as_ref()
            .is_some_and(|t| t.db == db && t.key == key);
        if !same {
            self.target = Some(Target { db, key });
            self.view = None;
            self.notes = Rc::new(Vec::new());
        }
        self.refresh(engine, true);
    }

    pub fn close(&mut self) {
        *self = Inspector::default();
    }

    /// Re-reads the key if anything happened since the last refresh (or
    /// `force`), noting an encoding change and the command that made it;
    /// true if the view or notes changed.
    pub fn refresh(&mut self, engine: &Engine, force: bool) -> bool {
        let Some(t) = &self.target else {
            return false;
        };
        let trace = engine.trace();
        // In real time the cron's expire cycles add events every tick; only
        // events that can change a key (or follow a command) rebuild the view.
        let relevant = trace.since(self.seen_seq).any(|ev| {
            !matches!(
                ev.event,
                Event::ExpireCycle { .. }
                    | Event::ClockAdvanced { .. }
                    | Event::Connected { .. }
                    | Event::Disconnected
            )
        });
        if !force && !relevant {
            self.seen_seq = trace.next_seq();
            return false;
        }
        let by = trace
            .since(self.seen_seq)
            .filter_map(|ev| match &ev.event {
                Event::Command { args, .. } => args.first().map(|a| a.to_ascii_uppercase()),
                _ => None,
            })
            .last();
        self.seen_seq = trace.next_seq();
        let new = engine.inspect(t.db, t.key.as_bytes());
        let mut changed = false;
        if let (Some(old), Some(new)) = (&self.view, &new) {
            if let Some(c) = inspect::conversion(old, new) {
                let notes = Rc::make_mut(&mut self.notes);
                notes.insert(
                    0,
                    ConvNote {
                        id: self.seen_seq,
                        at_us: engine.now_us(),
                        text: c.describe(by.as_deref()),
                    },
                );
                notes.truncate(MAX_NOTES);
                changed = true;
            }
        }
        if self.view.as_deref() != new.as_ref() {
            self.view = new.map(Rc::new);
            changed = true;
        }
        changed
    }

    /// The inspected key's TTL now, ms (read every tick; the view itself
    /// is only rebuilt when something happened).
    pub fn ttl_ms(&self, engine: &Engine) -> Option<i64> {
        let t = self.target.as_ref()?;
        engine.ttl_ms(t.db, t.key.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_notes_conversions_with_the_command_that_made_them() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        e.execute_line(c, "CONFIG SET hash-max-listpack-entries 2");
        e.execute_line(c, "HSET h a 1 b 2");
        let mut ins = Inspector::default();
        ins.select(&e, 0, "h".into());
        assert_eq!(ins.view.as_ref().unwrap().encoding, "listpack");
        assert!(!ins.refresh(&e, false), "nothing happened");
        e.advance_by(3_000_000);
        assert!(!ins.refresh(&e, false), "cron ticks change nothing shown");
        e.execute_line(c, "HGET h a");
        assert!(!ins.refresh(&e, false), "a read changes nothing shown");
        e.execute_line(c, "HSET h c 3");
        assert!(ins.refresh(&e, false));
        assert_eq!(ins.view.as_ref().unwrap().encoding, "hashtable");
        assert_eq!(ins.notes.len(), 1);
        assert_eq!(
            ins.notes[0].text,
            "converted from listpack to hashtable by HSET: 3 fields > hash-max-listpack-entries 2"
        );
        // Deleted, then re-created: no conversion claimed.
        e.execute_line(c, "DEL h");
        assert!(ins.refresh(&e, false));
        assert!(ins.view.is_none());
        e.execute_line(c, "HSET h a 1");
        ins.refresh(&e, false);
        assert_eq!(ins.notes.len(), 1);
        // Selecting another key forgets the notes.
        ins.select(&e, 0, "other".into());
        assert!(ins.notes.is_empty() && ins.view.is_none());
        ins.close();
        assert!(ins.target.is_none());
    }

    #[test]
    fn ttl_is_read_live() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        e.execute_line(c, "SET k v PX 5000");
        let mut ins = Inspector::default();
        ins.select(&e, 0, "k".into());
        assert_eq!(ins.ttl_ms(&e), Some(5000));
        e.advance_by(1_500_000);
        assert_eq!(ins.ttl_ms(&e), Some(3500));
        ins.select(&e, 0, "missing".into());
        assert_eq!(ins.ttl_ms(&e), None);
    }
}
