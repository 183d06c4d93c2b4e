//! Keyspace notifications (notify.c's `notifyKeyspaceEvent`): an event on a key published to `__keyspace@<db>__:<key>` and `__keyevent@<db>__:<event>` as `notify-keyspace-events` enables them.
//!
//! Commands call [`Server::notify`] right after their effect, in the order
//! Redis' source calls `notifyKeyspaceEvent`, so a subscriber reads the
//! same sequence; the server's own deletions (expiry, eviction) and key
//! creation (`dbAdd`'s `new`) call it from `Server`. Notifications are
//! local to the node, as in Redis (a cluster does not spread them).
//! Messages go through [`super::publish`]: RESP2 and RESP3 subscribers,
//! patterns, and the running client's own copy held until its reply.

use crate::server::keyspace_events::{KEYEVENT, KEYSPACE};
use crate::server::trace::Actor;
use crate::server::Server;

/// The client id that no client has, for notifications the server raises
/// on its own (active expiry, eviction in cron): nothing is held back.
const NO_CLIENT: u64 = u64::MAX;

impl Server {
    /// `notifyKeyspaceEvent(class, event, key, db)`: nothing unless
    /// `class` is enabled; then the keyspace channel (message: the event)
    /// before the keyevent channel (message: the key), each if enabled.
    #[inline]
    pub(crate) fn notify(&mut self, class: u32, event: &str, key: &[u8], db: usize) {
        if self.config.notify_keyspace_events & class != 0 {
            self.notify_enabled(event, key, db);
        }
    }

    #[cold]
    fn notify_enabled(&mut self, event: &str, key: &[u8], db: usize) {
        let flags = self.config.notify_keyspace_events;
        let current = match self.actor {
            Actor::Client(id) => id,
            Actor::Server => NO_CLIENT,
        };
        if flags & KEYSPACE != 0 {
            let mut chan = format!("__keyspace@{db}__:").into_bytes();
            chan.extend_from_slice(key);
            super::publish(self, current, &chan, event.as_bytes(), false);
        }
        if flags & KEYEVENT != 0 {
            let chan = format!("__keyevent@{db}__:{event}");
            super::publish(self, current, chan.as_bytes(), key, false);
        }
    }
}
