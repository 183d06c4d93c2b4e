//! The trace: plain-data events stamped with virtual time and actor. It is the one thing the UI and the scenario runner read.

use serde::Serialize;
use std::collections::VecDeque;

/// Bytes as text for display (invalid UTF-8 replaced).
pub fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Who caused an event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    /// A connected client, by id.
    Client(u64),
    /// The server itself: cron, active expiry, eviction.
    Server,
}

/// How an expired key was reclaimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpireHow {
    /// Found expired when a command touched it.
    Lazy,
    /// Found by the active expire cycle's sampling.
    Active,
}

/// Why a key was deleted (other than by expiry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeleteCause {
    Del,
    Unlink,
    Getdel,
    Rename,
    Flush,
    /// EXPIRE & co. given a time not in the future: Redis deletes the key at
    /// once (and replicates a DEL), without counting it as expired.
    Expire,
}

/// Why a blocked client stopped waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnblockHow {
    /// A key it waits on received data; its command is run again.
    Served,
    /// Its timeout passed: it got the null reply.
    Timeout,
    /// The connection closed while it waited.
    Disconnected,
    /// Its script, past `busy-reply-threshold`, ended or was killed.
    ScriptEnded,
    /// The CLIENT PAUSE that held it ended; its command runs now.
    Unpaused,
}

/// Which Pub/Sub namespace a subscription belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PubSubKind {
    /// SUBSCRIBE: an exact channel name.
    Channel,
    /// PSUBSCRIBE: a glob pattern over channel names.
    Pattern,
    /// SSUBSCRIBE: a shard channel (SPUBLISH reaches only these).
    Shard,
}

/// A key considered for eviction and its score (idle ms for LRU,
/// 255 minus the decayed counter for LFU, inverted expire time for volatile-ttl).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub db: u32,
    pub key: String,
    pub score: u64,
}

/// One client a published message reached.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Delivery {
    pub client: u64,
    /// The pattern that matched, for a `pmessage`; none for a channel subscription.
    pub pattern: Option<String>,
}

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Persistence work: an AOF fsync (`records` made durable), a BGSAVE
    /// starting (`records`: changes it covers) or finishing (`records`: its
    /// copy-on-write bytes), an AOF rewrite.
    Persisted {
        what: String,
        records: u64,
    },
    Connected {
        name: String,
    },
    Disconnected,
    /// A command as received; arguments lossily decoded for display.
    Command {
        db: u32,
        args: Vec<String>,
    },
    /// The reply, as redis-cli would print it (capped in length).
    Reply {
        text: String,
        error: bool,
    },
    /// A key was written (created or overwritten) by a command.
    Written {
        db: u32,
        key: String,
    },
    Expired {
        db: u32,
        key: String,
        how: ExpireHow,
    },
    Deleted {
        db: u32,
        key: String,
        cause: DeleteCause,
    },
    /// A key evicted to get under `maxmemory`, and the policy that chose it.
    Evicted {
        db: u32,
        key: String,
        policy: String,
        /// The eviction pool it was picked from (ascending score; the victim
        /// is the best live one from the right); empty for random and exact policies.
        pool: Vec<Candidate>,
        /// Keys sampled (`maxmemory-samples` per database per round) while
        /// filling the pool for this eviction, with their scores.
        sampled: Vec<Candidate>,
    },
    /// A FLUSHDB (`db` set) or FLUSHALL.
    Flushed {
        db: Option<u32>,
        keys: u64,
    },
    /// One run of the active expire cycle.
    ExpireCycle {
        fast: bool,
        sampled: u64,
        expired: u64,
    },
    /// A value left the keyspace and was freed: at once (`lazy` false: the
    /// main thread was busy for `cost_us`, which every client waits out) or
    /// handed to the background thread (`lazy`), which has freed it at the
    /// virtual instant `done_us`. `key` is none for a whole flushed
    /// database (`db` none: FLUSHALL), whose `objects` are its keys.
    /// `effort` is Redis' `lazyfreeGetFreeEffort`.
    Freed {
        db: Option<u32>,
        key: Option<String>,
        objects: u64,
        effort: u64,
        lazy: bool,
        cost_us: u64,
        done_us: u64,
    },
    /// The background thread finished freeing `objects` (one value, or a
    /// flushed database's keys); `pending_objects` are still queued.
    LazyFreed {
        objects: u64,
        effort: u64,
        pending_objects: u64,
    },
    /// A key's TTL was set (`at_ms`, absolute Unix ms) or removed (`None`:
    /// PERSIST, or an overwrite that drops it). With the reclaiming events
    /// (Expired, Deleted, Evicted, Flushed) this tells which keys are
    /// logically expired but still in memory ([`pending_expired`]).
    TtlSet {
        db: u32,
        key: String,
        at_ms: Option<i64>,
    },
    /// A memory sample taken by the cron when something changed since the
    /// last one: `used_memory`, `maxmemory`, keys and keys with a TTL over
    /// all databases.
    Memory {
        used: u64,
        maxmemory: u64,
        keys: u64,
        expires: u64,
    },
    /// Virtual time was moved forward explicitly.
    ClockAdvanced {
        by_us: u64,
    },
    /// The client's command blocked (BLPOP & co.) waiting for data on one
    /// of `keys`, until the virtual instant `deadline_us` if it has a timeout;
    /// or, `paused`, CLIENT PAUSE holds it until the pause ends.
    Blocked {
        db: u32,
        keys: Vec<String>,
        deadline_us: Option<u64>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        paused: bool,
    },
    /// A blocked client stopped waiting: served because `key` got data (its
    /// command then runs again and replies), or timed out, or went away.
    Unblocked {
        how: UnblockHow,
        key: Option<String>,
    },
    /// The client subscribed to `name` (a subscription it did not have);
    /// `count` is what the confirmation reports.
    Subscribed {
        kind: PubSubKind,
        name: String,
        count: u64,
    },
    /// The client stopped listening to `name`: by command, or because its
    /// connection closed (`disconnected`), after which nothing published
    /// reaches it: a client that reconnects has missed what came meanwhile.
    Unsubscribed {
        kind: PubSubKind,
        name: String,
        count: u64,
        disconnected: bool,
    },
    /// PUBLISH or SPUBLISH (`shard`): the message and every client it
    /// reached, in delivery order (a client subscribed both to the channel
    /// and to a matching pattern appears once for each, as Redis counts it).
    Published {
        channel: String,
        message: String,
        shard: bool,
        receivers: Vec<Delivery>,
    },
}

/// An event with its stamp. `seq` is global and never reused, so readers
/// can ask for what came after the last event they saw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceEvent {
    pub seq: u64,
    pub at_us: u64,
    pub actor: Actor,
    #[serde(flatten)]
    pub event: Event,
}

/// A bounded log of events; the oldest are dropped once `capacity` is reached.
#[derive(Clone, Debug, Serialize)]
pub struct Trace {
    events: VecDeque<TraceEvent>,
    capacity: usize,
    next_seq: u64,
}

impl Trace {
    /// A trace keeping at most `capacity` events; 0 turns recording off.
    pub fn new(capacity: usize) -> Trace {
        Trace {
            events: VecDeque::new(),
            capacity,
            next_seq: 0,
        }
    }

    /// How many events it keeps.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// True when events are recorded; callers skip building costly events otherwise.
    pub fn enabled(&self) -> bool {
        self.capacity > 0
    }

    /// Changes the capacity, dropping the oldest events if needed.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity;
        while self.events.len() > capacity {
            self.events.pop_front();
        }
    }

    /// Records an event.
    pub fn push(&mut self, at_us: u64, actor: Actor, event: Event) {
        if self.capacity == 0 {
            return;
        }
        if self.events.len() == self.capacity {
            self.events.pop_front();
        }
        self.events.push_back(TraceEvent {
            seq: self.next_seq,
            at_us,
            actor,
            event,
        });
        self.next_seq += 1;
    }

    /// All retained events, oldest first.
    pub fn events(&self) -> impl Iterator<Item = &TraceEvent> {
        self.events.iter()
    }

    /// Retained events with `seq >= from`.
    pub fn since(&self, from: u64) -> impl Iterator<Item = &TraceEvent> {
        let skip = match self.events.front() {
            Some(first) if from > first.seq => (from - first.seq) as usize,
            _ => 0,
        };
        self.events.iter().skip(skip)
    }

    /// Number of retained events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when nothing is retained.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Sequence number the next event will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Forgets every event (sequence numbers keep counting).
    pub fn clear(&mut self) {
        self.events.clear();
    }
}

/// Keys logically expired at `now_ms` (Unix ms) but not reclaimed yet, as
/// the events tell: `(db, key, at_ms)`, sorted. A key counts once the clock
/// is strictly past its expiry (`keyIsExpired`) until an Expired, Deleted,
/// Evicted or Flushed event removes it. Keys whose TTL was set before the
/// oldest retained event are unknown to it.
pub fn pending_expired<'a>(
    events: impl IntoIterator<Item = &'a TraceEvent>,
    now_ms: i64,
) -> Vec<(u32, String, i64)> {
    let mut ttls = crate::ordmap::OrdMap::new();
    for ev in events {
        apply_ttl_event(&mut ttls, &ev.event);
    }
    ttls.into_iter()
        .filter(|(_, at)| now_ms > *at)
        .map(|((db, key), at)| (db, key, at))
        .collect()
}

/// How many keys are expired but unreclaimed over time, for a timeline:
/// `(at_us, count)` points (virtual µs) at every change, up to `until_us`.
/// `unix_base_us` is the Unix time of virtual instant 0 (the engine's
/// `clock.unix_us() - clock.now_us()`), to place absolute expiries.
pub fn pending_expired_series<'a>(
    events: impl IntoIterator<Item = &'a TraceEvent>,
    unix_base_us: u64,
    until_us: u64,
) -> Vec<(u64, u64)> {
    use crate::ordmap::{OrdMap, OrdSet};
    // The virtual µs from which a key expiring at `at_ms` is expired.
    let cross = |at_ms: i64| -> u64 {
        let unix = (at_ms.max(-1) + 1) as u64 * 1000;
        unix.saturating_sub(unix_base_us)
    };
    let mut ttls: OrdMap<(u32, String), i64> = OrdMap::new();
    let mut upcoming: OrdSet<(u64, u32, String)> = OrdSet::new();
    let mut count: u64 = 0;
    let mut out: Vec<(u64, u64)> = Vec::new();
    let push = |out: &mut Vec<(u64, u64)>, at: u64, count: u64| match out.last_mut() {
        Some(last) if last.0 == at => last.1 = count,
        Some(last) if last.1 == count => {}
        _ => out.push((at, count)),
    };
    let cross_until = |t: u64,
                       upcoming: &mut OrdSet<(u64, u32, String)>,
                       count: &mut u64,
                       out: &mut Vec<(u64, u64)>| {
        while let Some(first) = upcoming.first() {
            if first.0 > t {
                break;
            }
            let at = first.0;
            upcoming.pop_first();
            *count += 1;
            push(out, at, *count);
        }
    };
    for ev in events {
        cross_until(ev.at_us, &mut upcoming, &mut count, &mut out);
        let changes: Vec<((u32, String), Option<i64>)> = match &ev.event {
            Event::TtlSet { db, key, at_ms } => vec![((*db, key.clone()), *at_ms)],
            Event::Expired { db, key, .. }
            | Event::Deleted { db, key, .. }
            | Event::Evicted { db, key, .. } => vec![((*db, key.clone()), None)],
            Event::Flushed { db, .. } => ttls
                .keys()
                .filter(|(d, _)| db.is_none_or(|x| x == *d))
                .map(|k| (k.clone(), None))
                .collect(),
            _ => continue,
        };
        for (k, new) in changes {
            let old = ttls.get(&k).copied();
            if old == new {
                continue;
            }
            if let Some(at) = old {
                // Not upcoming any more: it had crossed, and counted.
                if !upcoming.remove(&(cross(at), k.0, k.1.clone())) {
                    count -= 1;
                }
                ttls.remove(&k);
            }
            if let Some(at) = new {
                upcoming.insert((cross(at), k.0, k.1.clone()));
                ttls.insert(k, at);
            }
        }
        cross_until(ev.at_us, &mut upcoming, &mut count, &mut out);
        push(&mut out, ev.at_us, count);
    }
    cross_until(until_us, &mut upcoming, &mut count, &mut out);
    out
}

/// Applies one event to a map of keys with a TTL.
fn apply_ttl_event(ttls: &mut crate::ordmap::OrdMap<(u32, String), i64>, event: &Event) {
    match event {
        Event::TtlSet { db, key, at_ms } => match at_ms {
            Some(at) => {
                ttls.insert((*db, key.clone()), *at);
            }
            None => {
                ttls.remove(&(*db, key.clone()));
            }
        },
        Event::Expired { db, key, .. }
        | Event::Deleted { db, key, .. }
        | Event::Evicted { db, key, .. } => {
            ttls.remove(&(*db, key.clone()));
        }
        Event::Flushed { db, .. } => match db {
            Some(d) => ttls.retain(|(k, _), _| k != d),
            None => ttls.clear(),
        },
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(at_us: u64, event: Event) -> TraceEvent {
        TraceEvent {
            seq: at_us,
            at_us,
            actor: Actor::Server,
            event,
        }
    }

    fn ttl(at_us: u64, db: u32, key: &str, at_ms: Option<i64>) -> TraceEvent {
        ev(
            at_us,
            Event::TtlSet {
                db,
                key: key.into(),
                at_ms,
            },
        )
    }

    #[test]
    fn pending_keys_follow_ttl_changes_and_every_way_of_reclaiming() {
        // Unix base 0: virtual µs are Unix µs.
        let events = vec![
            ttl(0, 0, "a", Some(10)),
            ttl(0, 0, "b", Some(20)),
            ttl(0, 1, "c", Some(30)),
            ttl(0, 0, "d", Some(40)),
            // `b` gets a later TTL before it expires: it crosses at 51 ms.
            ttl(5_000, 0, "b", Some(50)),
            ev(
                45_000,
                Event::Evicted {
                    db: 0,
                    key: "d".into(),
                    policy: "allkeys-lru".into(),
                    pool: Vec::new(),
                    sampled: Vec::new(),
                },
            ),
            ev(
                60_000,
                Event::Flushed {
                    db: Some(1),
                    keys: 1,
                },
            ),
        ];
        // Strictly past the expiry, as keyIsExpired.
        assert!(pending_expired(&events[..5], 10).is_empty());
        let at = |v: Vec<(u32, String, i64)>| v.into_iter().map(|(_, k, _)| k).collect::<Vec<_>>();
        assert_eq!(at(pending_expired(&events[..5], 41)), ["a", "d", "c"]);
        assert_eq!(at(pending_expired(&events, 100)), ["a", "b"]);
        let series = pending_expired_series(&events, 0, 100_000);
        assert_eq!(
            series,
            vec![
                (0, 0),
                (11_000, 1), // a
                (31_000, 2), // c
                (41_000, 3), // d
                (45_000, 2), // d evicted
                (51_000, 3), // b, at its new time
                (60_000, 2), // db 1 flushed: c
            ]
        );
        // FLUSHALL clears everything; a persisted key never counts.
        let mut more = events.clone();
        more.push(ttl(70_000, 0, "e", Some(80)));
        more.push(ttl(75_000, 0, "e", None));
        more.push(ev(90_000, Event::Flushed { db: None, keys: 3 }));
        let series = pending_expired_series(&more, 0, 100_000);
        assert_eq!(series.last(), Some(&(90_000, 0)));
        assert!(series.iter().all(|&(_, n)| n <= 3));
    }
}
