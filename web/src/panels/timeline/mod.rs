//! The timeline: used memory against maxmemory with the count of expired-but-unreclaimed keys, commands (coloured by client), the time blocked clients waited, expirations (lazy and active marked apart), deletions and evictions (click one for its pool) on the virtual time axis, built incrementally from the engine's trace and drawn as SVG.
//!
//! The trace is the only history the UI reads: [`Timeline::ingest`] takes the
//! events after the last sequence number it saw (`Trace::since`), so each
//! refresh costs only what happened since the previous one. This module is
//! the model; `panel` and `marks` draw it.

mod axis;
mod marks;
mod panel;

use std::collections::VecDeque;
use std::rc::Rc;

use redsim_engine::server::trace::{
    Actor, Candidate, DeleteCause, Event, ExpireHow, Trace, UnblockHow,
};

use crate::panels::clients::label_num;
pub use axis::Zoom;
pub use panel::{timeline_frame, TimelinePanel, TimelineProps};

/// Marks kept per lane (commands, expirations, deletions and evictions,
/// clock steps); a lane's older ones are dropped, so a burst of evictions
/// cannot push the commands out (the trace itself is bounded too).
pub const MAX_MARKS: usize = 5000;
/// Waits kept.
pub const MAX_WAITS: usize = 500;
/// How far back a reply looks for the command it answers.
const PAIR_WINDOW: usize = 256;

/// What a mark shows.
#[derive(Clone, Debug, PartialEq)]
pub enum MarkKind {
    Command {
        text: String,
        reply: Option<String>,
        error: bool,
        /// The engine's client id, which pairs the reply with its command.
        client: u64,
        /// The console's client number, when the client is one of its tabs.
        who: Option<usize>,
    },
    Expired {
        key: String,
        how: ExpireHow,
    },
    Deleted {
        key: String,
        cause: DeleteCause,
    },
    Flushed {
        keys: u64,
    },
    /// A key evicted for maxmemory, with the pool it came from and the
    /// samples taken for it (empty for random and exact policies).
    Evicted {
        key: String,
        policy: String,
        pool: Rc<Vec<Candidate>>,
        sampled: Rc<Vec<Candidate>>,
    },
    /// A step of the clock buttons.
    Step {
        by_us: u64,
    },
}

/// One mark at a virtual instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub at_us: u64,
    pub kind: MarkKind,
}

/// A blocked client's wait, from its blocking command to its reply.
#[derive(Clone, Debug, PartialEq)]
pub struct Wait {
    pub client: u64,
    pub who: Option<usize>,
    pub keys: Vec<String>,
    /// Held by CLIENT PAUSE rather than waiting for data.
    pub paused: bool,
    pub from_us: u64,
    /// `None` while it still waits.
    pub until_us: Option<u64>,
    pub how: Option<UnblockHow>,
}

/// The timeline's model.
#[derive(Default)]
pub struct Timeline {
    next_seq: u64,
    pub marks: Rc<VecDeque<Mark>>,
    pub waits: Rc<VecDeque<Wait>>,
    /// Console client number of each engine client seen connecting.
    who: redsim_engine::idmap::IdMap<usize>,
    /// `(at_us, used, maxmemory)` from the cron's memory samples.
    pub memory: Rc<VecDeque<(u64, u64, u64)>>,
    /// `(at_us, keys)`: how many keys were expired but not yet reclaimed.
    pub pending: Rc<Vec<(u64, u64)>>,
}

/// Memory samples kept.
const MAX_SAMPLES: usize = 4000;

/// A reply's command: the latest one of the same client still without a reply.
fn pending_command<'a>(
    marks: impl Iterator<Item = &'a mut Mark>,
    client: u64,
) -> Option<&'a mut Mark> {
    marks.take(PAIR_WINDOW).find(
        |m| matches!(&m.kind, MarkKind::Command { reply: None, client: c, .. } if *c == client),
    )
}

impl Timeline {
    /// Recomputes the expired-but-unreclaimed series from the whole trace
    /// (it depends on every TTL ever set); call after `ingest` changed marks.
    pub fn update_pending(&mut self, trace: &Trace, unix_base_us: u64, now_us: u64) {
        let series = redsim_engine::server::trace::pending_expired_series(
            trace.events(),
            unix_base_us,
            now_us,
        );
        if *self.pending != series {
            self.pending = Rc::new(series);
        }
    }

    /// Reads the trace events after the last one seen; true if marks changed.
    ///
    /// New marks are gathered apart first: most refreshes bring only events
    /// the timeline does not draw (active expire cycles), and the shared
    /// mark list is copied only when something is added to it.
    pub fn ingest(&mut self, trace: &Trace) -> bool {
        if trace.next_seq() == self.next_seq {
            return false;
        }
        let mut fresh: Vec<Mark> = Vec::new();
        let mut late_replies = Vec::new();
        let mut waits_changed = false;
        for ev in trace.since(self.next_seq) {
            let client = match ev.actor {
                Actor::Client(id) => id,
                Actor::Server => 0,
            };
            let kind = match &ev.event {
                Event::Connected { name } => {
                    if let Some(n) = label_num(name) {
                        self.who.insert(client, n);
                    }
                    continue;
                }
                Event::Command { args, .. } => MarkKind::Command {
                    text: args.join(" "),
                    reply: None,
                    error: false,
                    client,
                    who: self.who.get(&client).copied(),
                },
                Event::Reply { text, error } => {
                    match pending_command(fresh.iter_mut().rev(), client) {
                        Some(m) => {
                            attach_reply(m, text, *error);
                        }
                        None => late_replies.push((client, text.clone(), *error)),
                    }
                    continue;
                }
                Event::Blocked { keys, paused, .. } => {
                    let waits = Rc::make_mut(&mut self.waits);
                    waits.push_back(Wait {
                        client,
                        who: self.who.get(&client).copied(),
                        keys: keys.clone(),
                        paused: *paused,
                        from_us: ev.at_us,
                        until_us: None,
                        how: None,
                    });
                    while waits.len() > MAX_WAITS {
                        waits.pop_front();
                    }
                    waits_changed = true;
                    continue;
                }
                Event::Unblocked { how, .. } => {
                    let waits = Rc::make_mut(&mut self.waits);
                    if let Some(w) = waits
                        .iter_mut()
                        .rev()
                        .find(|w| w.client == client && w.until_us.is_none())
                    {
                        w.until_us = Some(ev.at_us);
                        w.how = Some(*how);
                        waits_changed = true;
                    }
                    continue;
                }
                Event::Expired { key, how, .. } => MarkKind::Expired {
                    key: key.clone(),
                    how: *how,
                },
                Event::Deleted { key, cause, .. } => MarkKind::Deleted {
                    key: key.clone(),
                    cause: *cause,
                },
                Event::Flushed { keys, .. } => MarkKind::Flushed { keys: *keys },
                Event::Evicted {
                    key,
                    policy,
                    pool,
                    sampled,
                    ..
                } => MarkKind::Evicted {
                    key: key.clone(),
                    policy: policy.clone(),
                    pool: Rc::new(pool.clone()),
                    sampled: Rc::new(sampled.clone()),
                },
                Event::Memory {
                    used, maxmemory, ..
                } => {
                    let m = Rc::make_mut(&mut self.memory);
                    m.push_back((ev.at_us, *used, *maxmemory));
                    while m.len() > MAX_SAMPLES {
                        m.pop_front();
                    }
                    waits_changed = true;
                    continue;
                }
                Event::ClockAdvanced { by_us } => MarkKind::Step { by_us: *by_us },
                _ => continue,
            };
            fresh.push(Mark {
                at_us: ev.at_us,
                kind,
            });
        }
        self.next_seq = trace.next_seq();
        if fresh.is_empty() && late_replies.is_empty() {
            return waits_changed;
        }
        let marks = Rc::make_mut(&mut self.marks);
        let mut changed = waits_changed || !fresh.is_empty();
        for (client, text, error) in late_replies {
            if let Some(m) = pending_command(marks.iter_mut().rev(), client) {
                changed |= attach_reply(m, &text, error);
            }
        }
        marks.extend(fresh);
        cap_lanes(marks);
        changed
    }
}

/// The lane a mark is drawn in, for the per-lane cap.
fn lane(m: &Mark) -> usize {
    match m.kind {
        MarkKind::Command { .. } => 0,
        MarkKind::Expired { .. } => 1,
        MarkKind::Deleted { .. } | MarkKind::Flushed { .. } | MarkKind::Evicted { .. } => 2,
        MarkKind::Step { .. } => 3,
    }
}

/// Drops the oldest marks of every lane holding more than [`MAX_MARKS`],
/// in one pass.
fn cap_lanes(marks: &mut VecDeque<Mark>) {
    let mut excess = [0usize; 4];
    for m in marks.iter() {
        excess[lane(m)] += 1;
    }
    if excess.iter().all(|&n| n <= MAX_MARKS) {
        return;
    }
    for e in &mut excess {
        *e = e.saturating_sub(MAX_MARKS);
    }
    marks.retain(|m| {
        let l = lane(m);
        if excess[l] > 0 {
            excess[l] -= 1;
            false
        } else {
            true
        }
    });
}

/// Gives a command mark the reply that followed it; false if `m` is not a
/// command still waiting for one.
fn attach_reply(m: &mut Mark, text: &str, error: bool) -> bool {
    match &mut m.kind {
        MarkKind::Command {
            reply: reply @ None,
            error: e,
            ..
        } => {
            *reply = Some(text.to_string());
            *e = error;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(args: &[&str]) -> Event {
        Event::Command {
            db: 0,
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn reply(text: &str) -> Event {
        Event::Reply {
            text: text.into(),
            error: false,
        }
    }

    #[test]
    fn ingest_reads_only_new_events_and_pairs_replies() {
        let mut trace = Trace::new(100);
        let mut tl = Timeline::default();
        assert!(!tl.ingest(&trace));
        trace.push(0, Actor::Client(1), command(&["GET", "a"]));
        trace.push(0, Actor::Client(1), reply("(nil)"));
        assert!(tl.ingest(&trace));
        assert!(!tl.ingest(&trace));
        trace.push(
            2_100_000,
            Actor::Server,
            Event::Expired {
                db: 0,
                key: "a".into(),
                how: ExpireHow::Active,
            },
        );
        trace.push(
            2_100_000,
            Actor::Server,
            Event::ExpireCycle {
                fast: false,
                sampled: 1,
                expired: 1,
            },
        );
        assert!(tl.ingest(&trace));
        let marks: Vec<&Mark> = tl.marks.iter().collect();
        assert_eq!(marks.len(), 2);
        assert_eq!(
            marks[0].kind,
            MarkKind::Command {
                text: "GET a".into(),
                reply: Some("(nil)".into()),
                error: false,
                client: 1,
                who: None,
            }
        );
        assert_eq!(marks[1].at_us, 2_100_000);
        assert!(matches!(
            marks[1].kind,
            MarkKind::Expired {
                how: ExpireHow::Active,
                ..
            }
        ));
    }

    #[test]
    fn undrawn_events_leave_the_marks_untouched_and_late_replies_attach() {
        let mut trace = Trace::new(100);
        let mut tl = Timeline::default();
        trace.push(5, Actor::Client(1), command(&["PING"]));
        assert!(tl.ingest(&trace));
        let shared = tl.marks.clone();
        trace.push(
            6,
            Actor::Server,
            Event::ExpireCycle {
                fast: false,
                sampled: 3,
                expired: 0,
            },
        );
        assert!(!tl.ingest(&trace));
        assert!(Rc::ptr_eq(&shared, &tl.marks), "no copy for undrawn events");
        trace.push(7, Actor::Client(1), reply("PONG"));
        assert!(tl.ingest(&trace));
        assert_eq!(
            tl.marks[0].kind,
            MarkKind::Command {
                text: "PING".into(),
                reply: Some("PONG".into()),
                error: false,
                client: 1,
                who: None,
            }
        );
        // The copy held by the view is not changed behind its back.
        assert!(matches!(
            shared[0].kind,
            MarkKind::Command { reply: None, .. }
        ));
    }

    #[test]
    fn replies_pair_by_client_and_waits_span_blocked_time() {
        let mut trace = Trace::new(100);
        let mut tl = Timeline::default();
        for (id, name) in [(1, "client 1"), (2, "client 2")] {
            trace.push(0, Actor::Client(id), Event::Connected { name: name.into() });
        }
        trace.push(10, Actor::Client(1), command(&["BLPOP", "q", "0"]));
        trace.push(
            10,
            Actor::Client(1),
            Event::Blocked {
                db: 0,
                keys: vec!["q".into()],
                deadline_us: None,
                paused: false,
            },
        );
        assert!(tl.ingest(&trace));
        assert_eq!(tl.waits.len(), 1);
        assert_eq!(tl.waits[0].until_us, None);
        assert_eq!(tl.waits[0].who, Some(1));
        // Client 2 pushes: its reply, then client 1 is served and replies.
        trace.push(3_000_000, Actor::Client(2), command(&["LPUSH", "q", "a"]));
        trace.push(3_000_000, Actor::Client(2), reply("(integer) 1"));
        trace.push(
            3_000_000,
            Actor::Client(1),
            Event::Unblocked {
                how: UnblockHow::Served,
                key: Some("q".into()),
            },
        );
        trace.push(3_000_000, Actor::Client(1), reply("1) \"q\"\n2) \"a\""));
        assert!(tl.ingest(&trace));
        let replies: Vec<(String, Option<String>, Option<usize>)> = tl
            .marks
            .iter()
            .map(|m| match &m.kind {
                MarkKind::Command {
                    text, reply, who, ..
                } => (text.clone(), reply.clone(), *who),
                k => panic!("{k:?}"),
            })
            .collect();
        assert_eq!(
            replies,
            vec![
                (
                    "BLPOP q 0".to_string(),
                    Some("1) \"q\"\n2) \"a\"".to_string()),
                    Some(1)
                ),
                (
                    "LPUSH q a".to_string(),
                    Some("(integer) 1".to_string()),
                    Some(2)
                ),
            ]
        );
        assert_eq!(tl.waits[0].until_us, Some(3_000_000));
        assert_eq!(tl.waits[0].how, Some(UnblockHow::Served));
    }

    #[test]
    fn ingest_survives_a_trace_that_dropped_events() {
        let mut trace = Trace::new(3);
        let mut tl = Timeline::default();
        for i in 0..10 {
            trace.push(i, Actor::Server, Event::ClockAdvanced { by_us: 1 });
        }
        assert!(tl.ingest(&trace));
        assert_eq!(tl.marks.len(), 3);
        assert_eq!(tl.marks[0].at_us, 7);
    }
}
