//! The trace: plain-data events stamped with virtual time and actor. It is the one thing the UI and the scenario runner read.

use serde::Serialize;
use std::collections::VecDeque;

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
    /// Virtual time was moved forward explicitly.
    ClockAdvanced {
        by_us: u64,
    },
    /// The client's command blocked (BLPOP & co.) waiting for data on one
    /// of `keys`, until the virtual instant `deadline_us` if it has a timeout.
    Blocked {
        db: u32,
        keys: Vec<String>,
        deadline_us: Option<u64>,
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
