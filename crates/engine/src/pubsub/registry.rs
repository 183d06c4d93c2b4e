//! Who listens to what (`server.pubsub_channels` and friends, and each client's own sets): channels, patterns and shard channels in subscription order.

use crate::ordmap::OrdMap;

use crate::proto::resp::Frame;
use crate::server::client::ClientId;
use crate::server::trace::PubSubKind;

/// The server side (`server.pubsub_channels`, `server.pubsub_patterns`,
/// `server.pubsubshard_channels`) and the frames waiting to follow the
/// running command's reply.
#[derive(Debug, Default)]
pub struct PubSub {
    channels: OrdMap<Vec<u8>, Vec<ClientId>>,
    pub(super) patterns: OrdMap<Vec<u8>, Vec<ClientId>>,
    shard: OrdMap<Vec<u8>, Vec<ClientId>>,
    /// Confirmations after the first of a SUBSCRIBE-like command: part of
    /// its reply, sent right after it.
    pub(super) reply_tail: Vec<Frame>,
    /// Messages for the client running the command, sent after its reply
    /// (`server.pending_push_messages`).
    pub(super) pending_own: Vec<(ClientId, Frame)>,
}

impl PubSub {
    pub(super) fn table(&mut self, kind: PubSubKind) -> &mut OrdMap<Vec<u8>, Vec<ClientId>> {
        match kind {
            PubSubKind::Channel => &mut self.channels,
            PubSubKind::Pattern => &mut self.patterns,
            PubSubKind::Shard => &mut self.shard,
        }
    }

    pub(super) fn table_ref(&self, kind: PubSubKind) -> &OrdMap<Vec<u8>, Vec<ClientId>> {
        match kind {
            PubSubKind::Channel => &self.channels,
            PubSubKind::Pattern => &self.patterns,
            PubSubKind::Shard => &self.shard,
        }
    }

    /// What `client` listens to: (is a pattern, name) for its channels,
    /// patterns and shard channels.
    pub fn subscriptions_of(&self, client: ClientId) -> Vec<(bool, Vec<u8>)> {
        let mut out = Vec::new();
        for (pattern, table) in [
            (false, &self.channels),
            (true, &self.patterns),
            (false, &self.shard),
        ] {
            for (name, ids) in table {
                if ids.contains(&client) {
                    out.push((pattern, name.clone()));
                }
            }
        }
        out
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

    /// Adds frames that belong to the running command's reply, after it.
    pub fn push_reply_tail(&mut self, frames: impl IntoIterator<Item = Frame>) {
        self.reply_tail.extend(frames);
    }

    /// Queues a frame for the client running the command, after its reply
    /// and the messages already waiting (`pending_push_messages`).
    pub fn defer_own(&mut self, client: ClientId, frame: Frame) {
        self.pending_own.push((client, frame));
    }

    /// Takes the frames that follow the reply just produced (EXEC lays a
    /// queued SUBSCRIBE's further confirmations inline, as Redis does).
    pub fn take_reply_tail(&mut self) -> Vec<Frame> {
        std::mem::take(&mut self.reply_tail)
    }
}
