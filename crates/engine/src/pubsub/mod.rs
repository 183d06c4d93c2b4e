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

pub mod notify;
pub mod registry;
pub mod subscriptions;

use crate::proto::resp::Frame;
use crate::server::client::{Client, ClientId};
use crate::server::trace::{Delivery, Event, PubSubKind};
use crate::server::{lossy, Server};

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
            crate::output::deliver(srv, *id, frame);
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
        crate::output::deliver(srv, client, f);
    }
    if srv.pubsub.pending_own.is_empty() {
        return;
    }
    let pending = std::mem::take(&mut srv.pubsub.pending_own);
    for (id, f) in pending {
        crate::output::deliver(srv, id, f);
    }
}
