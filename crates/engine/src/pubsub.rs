//! Pub/Sub's registry and delivery (pubsub.c): which clients listen to which channels, patterns and shard channels, the confirmation and message frames, and the trace of who received what.
//!
//! Redis keeps these tables in hash tables whose iteration order differs
//! from one process to the next. Here the server's tables are sorted maps
//! (PUBSUB CHANNELS lists names in byte order, patterns are tried in byte
//! order when a message is published) and a client's own subscriptions
//! remember the order they were made in (UNSUBSCRIBE without arguments
//! confirms in that order). Any of these orders is one Redis could show.
//! The subscribers of one channel or pattern are served in the order they
//! subscribed, as Redis' per-channel lists are.
//!
//! Frames are RESP3 `Push` frames; the encoder writes them as plain arrays
//! to RESP2 connections, which is exactly what Redis writes.
//!
//! Delivery keeps each connection's frames in the order Redis would write
//! them. A frame for another client goes straight to the engine's outbox,
//! the same queue that carries unblocked clients' replies (so a subscribed
//! RESP3 client that is also blocked sees a message and its unblocking in
//! the order they happened). A frame for the client running the command
//! waits until its reply has been handed out, as Redis 7.2 holds them in
//! `server.pending_push_messages` (7.0 wrote them before the reply): a RESP3
//! client publishing to its own channel gets `:1` and then the message,
//! and inside MULTI the message follows the whole EXEC reply. SUBSCRIBE and
//! friends reply with one confirmation per name: the handler returns the
//! first and leaves the others in the reply tail, sent right after it.

use std::collections::BTreeMap;

use crate::proto::resp::Frame;
use crate::server::client::{Client, ClientId};
use crate::server::trace::{Delivery, Event, PubSubKind};
use crate::server::{lossy, Server};

/// A set of names that remembers the order they were added in.
#[derive(Clone, Debug, Default)]
pub struct NameSet {
    by_name: BTreeMap<Vec<u8>, u64>,
    by_order: BTreeMap<u64, Vec<u8>>,
    next: u64,
}

impl NameSet {
    /// Number of names.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// True if `name` is in the set.
    pub fn contains(&self, name: &[u8]) -> bool {
        self.by_name.contains_key(name)
    }

    /// Adds `name` last; false if it was already there.
    pub fn insert(&mut self, name: &[u8]) -> bool {
        if self.by_name.contains_key(name) {
            return false;
        }
        self.by_name.insert(name.to_vec(), self.next);
        self.by_order.insert(self.next, name.to_vec());
        self.next += 1;
        true
    }

    /// Removes `name`; false if it was not there.
    pub fn remove(&mut self, name: &[u8]) -> bool {
        match self.by_name.remove(name) {
            Some(at) => {
                self.by_order.remove(&at);
                true
            }
            None => false,
        }
    }

    /// The names, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.by_order.values().map(|n| n.as_slice())
    }
}

/// What one client listens to (`c->pubsub_channels`, `c->pubsub_patterns`,
/// `c->pubsubshard_channels`).
#[derive(Clone, Debug, Default)]
pub struct Subscriptions {
    pub channels: NameSet,
    pub patterns: NameSet,
    pub shard: NameSet,
}

impl Subscriptions {
    /// `clientSubscriptionsCount`: channels plus patterns, the number that
    /// SUBSCRIBE and PSUBSCRIBE confirmations report.
    pub fn count(&self) -> usize {
        self.channels.len() + self.patterns.len()
    }

    /// True while subscribed to anything (`CLIENT_PUBSUB`): a RESP2
    /// connection is then limited to the subscription commands.
    pub fn active(&self) -> bool {
        self.count() + self.shard.len() > 0
    }

    /// The count a confirmation of `kind` reports: shard subscriptions are
    /// counted apart from the others.
    pub fn count_for(&self, kind: PubSubKind) -> usize {
        match kind {
            PubSubKind::Shard => self.shard.len(),
            _ => self.count(),
        }
    }

    fn set(&mut self, kind: PubSubKind) -> &mut NameSet {
        match kind {
            PubSubKind::Channel => &mut self.channels,
            PubSubKind::Pattern => &mut self.patterns,
            PubSubKind::Shard => &mut self.shard,
        }
    }
}

/// The server side (`server.pubsub_channels`, `server.pubsub_patterns`,
/// `server.pubsubshard_channels`) and the frames waiting to follow the
/// running command's reply.
#[derive(Debug, Default)]
pub struct PubSub {
    channels: BTreeMap<Vec<u8>, Vec<ClientId>>,
    patterns: BTreeMap<Vec<u8>, Vec<ClientId>>,
    shard: BTreeMap<Vec<u8>, Vec<ClientId>>,
    /// Confirmations after the first of a SUBSCRIBE-like command: part of
    /// its reply, sent right after it.
    reply_tail: Vec<Frame>,
    /// Messages for the client running the command, sent after its reply
    /// (`server.pending_push_messages`).
    pending_own: Vec<(ClientId, Frame)>,
}

impl PubSub {
    fn table(&mut self, kind: PubSubKind) -> &mut BTreeMap<Vec<u8>, Vec<ClientId>> {
        match kind {
            PubSubKind::Channel => &mut self.channels,
            PubSubKind::Pattern => &mut self.patterns,
            PubSubKind::Shard => &mut self.shard,
        }
    }

    fn table_ref(&self, kind: PubSubKind) -> &BTreeMap<Vec<u8>, Vec<ClientId>> {
        match kind {
            PubSubKind::Channel => &self.channels,
            PubSubKind::Pattern => &self.patterns,
            PubSubKind::Shard => &self.shard,
        }
    }

    /// Channels (or shard channels) with at least one subscriber, matching
    /// `pattern` if given, in byte order (PUBSUB CHANNELS / SHARDCHANNELS).
    pub fn active_channels(&self, shard: bool, pattern: Option<&[u8]>) -> Vec<Vec<u8>> {
        let kind = if shard {
            PubSubKind::Shard
        } else {
            PubSubKind::Channel
        };
        self.table_ref(kind)
            .keys()
            .filter(|c| pattern.is_none_or(|p| crate::glob::matches(p, c, false)))
            .cloned()
            .collect()
    }

    /// Subscribers of `channel`, not counting patterns (PUBSUB NUMSUB / SHARDNUMSUB).
    pub fn num_subscribers(&self, shard: bool, channel: &[u8]) -> usize {
        let kind = if shard {
            PubSubKind::Shard
        } else {
            PubSubKind::Channel
        };
        self.table_ref(kind).get(channel).map_or(0, Vec::len)
    }

    /// Distinct patterns someone listens to (PUBSUB NUMPAT).
    pub fn num_patterns(&self) -> usize {
        self.patterns.len()
    }

    /// Channels (or shard channels) with a subscriber (INFO's `pubsub_channels`, `pubsubshard_channels`).
    pub fn num_channels(&self, shard: bool) -> usize {
        if shard {
            self.shard.len()
        } else {
            self.channels.len()
        }
    }

    /// Every subscription as `(kind, name, subscribers in order)`, for display.
    pub fn snapshot(&self) -> Vec<(PubSubKind, String, Vec<ClientId>)> {
        [PubSubKind::Channel, PubSubKind::Pattern, PubSubKind::Shard]
            .into_iter()
            .flat_map(|k| {
                self.table_ref(k)
                    .iter()
                    .map(move |(n, ids)| (k, lossy(n), ids.clone()))
            })
            .collect()
    }

    /// Adds frames that belong to the running command's reply, after it.
    pub fn push_reply_tail(&mut self, frames: impl IntoIterator<Item = Frame>) {
        self.reply_tail.extend(frames);
    }

    /// Takes the frames that follow the reply just produced (EXEC lays a
    /// queued SUBSCRIBE's further confirmations inline, as Redis does).
    pub fn take_reply_tail(&mut self) -> Vec<Frame> {
        std::mem::take(&mut self.reply_tail)
    }
}

/// The word a confirmation starts with.
fn subscribe_word(kind: PubSubKind) -> &'static str {
    match kind {
        PubSubKind::Channel => "subscribe",
        PubSubKind::Pattern => "psubscribe",
        PubSubKind::Shard => "ssubscribe",
    }
}

fn unsubscribe_word(kind: PubSubKind) -> &'static str {
    match kind {
        PubSubKind::Channel => "unsubscribe",
        PubSubKind::Pattern => "punsubscribe",
        PubSubKind::Shard => "sunsubscribe",
    }
}

/// `[subscribe|psubscribe|ssubscribe, name, count]`.
fn confirmation(word: &str, name: Option<&[u8]>, count: usize) -> Frame {
    Frame::Push(vec![
        Frame::bulk(word),
        name.map_or(Frame::Null, Frame::bulk),
        Frame::Integer(count as i64),
    ])
}

/// `pubsubSubscribeChannel` / `pubsubSubscribePattern`: subscribes
/// `client` to `name` unless it already is, and returns the confirmation
/// (sent either way).
pub fn subscribe(srv: &mut Server, client: &mut Client, kind: PubSubKind, name: &[u8]) -> Frame {
    if client.subs.set(kind).insert(name) {
        srv.pubsub
            .table(kind)
            .entry(name.to_vec())
            .or_default()
            .push(client.id);
        let count = client.subs.count_for(kind) as u64;
        srv.emit_with(|| Event::Subscribed {
            kind,
            name: lossy(name),
            count,
        });
    }
    confirmation(
        subscribe_word(kind),
        Some(name),
        client.subs.count_for(kind),
    )
}

/// Removes `client` from the server's list for `name`; the entry goes
/// when its last subscriber does.
fn forget(srv: &mut Server, kind: PubSubKind, name: &[u8], client: ClientId) {
    let table = srv.pubsub.table(kind);
    if let Some(ids) = table.get_mut(name) {
        ids.retain(|&c| c != client);
        if ids.is_empty() {
            table.remove(name);
        }
    }
}

/// `pubsubUnsubscribeChannel` / `pubsubUnsubscribePattern`: the
/// confirmation is sent whether or not the client was subscribed.
pub fn unsubscribe(srv: &mut Server, client: &mut Client, kind: PubSubKind, name: &[u8]) -> Frame {
    drop_one(srv, client, kind, name, false);
    confirmation(
        unsubscribe_word(kind),
        Some(name),
        client.subs.count_for(kind),
    )
}

/// Unsubscribes one name; true if the client had it.
fn drop_one(
    srv: &mut Server,
    client: &mut Client,
    kind: PubSubKind,
    name: &[u8],
    disconnected: bool,
) -> bool {
    if !client.subs.set(kind).remove(name) {
        return false;
    }
    forget(srv, kind, name, client.id);
    let count = client.subs.count_for(kind) as u64;
    srv.emit_with(|| Event::Unsubscribed {
        kind,
        name: lossy(name),
        count,
        disconnected,
    });
    true
}

/// UNSUBSCRIBE / PUNSUBSCRIBE / SUNSUBSCRIBE without arguments: one
/// confirmation per subscription, oldest first, or a single one with a
/// null name when there was none.
pub fn unsubscribe_all(srv: &mut Server, client: &mut Client, kind: PubSubKind) -> Vec<Frame> {
    let names: Vec<Vec<u8>> = client.subs.set(kind).iter().map(<[u8]>::to_vec).collect();
    if names.is_empty() {
        return vec![confirmation(
            unsubscribe_word(kind),
            None,
            client.subs.count_for(kind),
        )];
    }
    names
        .iter()
        .map(|n| unsubscribe(srv, client, kind, n))
        .collect()
}

/// Drops every subscription of a client whose connection closed (`freeClient`).
pub fn disconnected(srv: &mut Server, client: &mut Client) {
    for kind in [PubSubKind::Channel, PubSubKind::Pattern, PubSubKind::Shard] {
        let names: Vec<Vec<u8>> = client.subs.set(kind).iter().map(<[u8]>::to_vec).collect();
        for n in names {
            drop_one(srv, client, kind, &n, true);
        }
    }
}

/// `pubsubPublishMessage`: sends `message` to the subscribers of
/// `channel`, then (unless `shard`) to those of every matching pattern,
/// and returns how many deliveries were made. `current` is the client
/// running the command: its own messages wait for its reply.
pub fn publish(
    srv: &mut Server,
    current: ClientId,
    channel: &[u8],
    message: &[u8],
    shard: bool,
) -> i64 {
    let mut sent: Vec<(ClientId, Option<Vec<u8>>)> = Vec::new();
    let kind = if shard {
        PubSubKind::Shard
    } else {
        PubSubKind::Channel
    };
    if let Some(ids) = srv.pubsub.table_ref(kind).get(channel) {
        sent.extend(ids.iter().map(|&c| (c, None)));
    }
    if !shard {
        for (pattern, ids) in &srv.pubsub.patterns {
            if crate::glob::matches(pattern, channel, false) {
                sent.extend(ids.iter().map(|&c| (c, Some(pattern.clone()))));
            }
        }
    }
    let word = if shard { "smessage" } else { "message" };
    for (id, pattern) in &sent {
        let frame = match pattern {
            None => Frame::Push(vec![
                Frame::bulk(word),
                Frame::bulk(channel),
                Frame::bulk(message),
            ]),
            Some(p) => Frame::Push(vec![
                Frame::bulk("pmessage"),
                Frame::bulk(p),
                Frame::bulk(channel),
                Frame::bulk(message),
            ]),
        };
        if *id == current {
            srv.pubsub.pending_own.push((*id, frame));
        } else {
            srv.blocking.deliver(*id, frame);
        }
    }
    let receivers = sent.len() as i64;
    srv.emit_with(|| Event::Published {
        channel: lossy(channel),
        message: lossy(message),
        shard,
        receivers: sent
            .into_iter()
            .map(|(client, pattern)| Delivery {
                client,
                pattern: pattern.map(|p| lossy(&p)),
            })
            .collect(),
    });
    receivers
}

/// After `client`'s reply has gone to the outbox's reader: the rest of its
/// reply (further confirmations), then the messages it published to itself.
#[inline]
pub fn after_reply(srv: &mut Server, client: ClientId) {
    if srv.pubsub.reply_tail.is_empty() && srv.pubsub.pending_own.is_empty() {
        return;
    }
    deliver_after_reply(srv, client);
}

#[cold]
fn deliver_after_reply(srv: &mut Server, client: ClientId) {
    let tail = srv.pubsub.take_reply_tail();
    for f in tail {
        srv.blocking.deliver(client, f);
    }
    if srv.pubsub.pending_own.is_empty() {
        return;
    }
    let pending = std::mem::take(&mut srv.pubsub.pending_own);
    for (id, f) in pending {
        srv.blocking.deliver(id, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_set_keeps_insertion_order() {
        let mut s = NameSet::default();
        assert!(s.insert(b"b"));
        assert!(s.insert(b"a"));
        assert!(!s.insert(b"b"));
        assert!(s.insert(b"c"));
        assert!(s.remove(b"a"));
        assert!(!s.remove(b"a"));
        assert!(s.insert(b"a"));
        let order: Vec<&[u8]> = s.iter().collect();
        assert_eq!(order, vec![&b"b"[..], b"c", b"a"]);
        assert_eq!(s.len(), 3);
        assert!(s.contains(b"c") && !s.contains(b"d"));
    }

    #[test]
    fn counts_follow_redis() {
        let mut s = Subscriptions::default();
        s.channels.insert(b"a");
        s.patterns.insert(b"a*");
        s.shard.insert(b"s");
        assert_eq!(s.count_for(PubSubKind::Channel), 2);
        assert_eq!(s.count_for(PubSubKind::Pattern), 2);
        assert_eq!(s.count_for(PubSubKind::Shard), 1);
        assert!(s.active());
        s.channels.remove(b"a");
        s.patterns.remove(b"a*");
        assert!(
            s.active(),
            "a shard subscription alone keeps the client subscribed"
        );
        s.shard.remove(b"s");
        assert!(!s.active());
    }
}
