//! A client's own subscriptions: channels, patterns and shard channels in the order they were made (UNSUBSCRIBE without arguments confirms in that order).

use crate::ordmap::OrdMap;
use crate::server::trace::PubSubKind;

/// A set of names that remembers the order they were added in.
#[derive(Clone, Debug, Default)]
pub struct NameSet {
    by_name: OrdMap<Vec<u8>, u64>,
    by_order: OrdMap<u64, Vec<u8>>,
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

    /// Channels, patterns and shard channels apart (CLIENT LIST's `sub`,
    /// `psub` and `ssub`).
    pub fn counts(&self) -> [usize; 3] {
        [self.channels.len(), self.patterns.len(), self.shard.len()]
    }

    /// The count a confirmation of `kind` reports: shard subscriptions are
    /// counted apart from the others.
    pub fn count_for(&self, kind: PubSubKind) -> usize {
        match kind {
            PubSubKind::Shard => self.shard.len(),
            _ => self.count(),
        }
    }

    pub(super) fn set(&mut self, kind: PubSubKind) -> &mut NameSet {
        match kind {
            PubSubKind::Channel => &mut self.channels,
            PubSubKind::Pattern => &mut self.patterns,
            PubSubKind::Shard => &mut self.shard,
        }
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
