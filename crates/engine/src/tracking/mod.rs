//! Client-side caching (tracking.c): the keys each tracking client read, the BCAST prefixes, and the invalidation messages a write, an expiry, an eviction or a flush sends them.
//!
//! The key table is global, not per database, as in Redis: a key read in
//! database 0 is invalidated by a write to the same name in database 3.
//! An entry goes once its invalidation is sent; ids of clients that left
//! or turned tracking off stay in it until then (Redis cleans up lazily).
//!
//! Delivery follows `sendTrackingMessage`: a RESP3 client gets a push
//! `["invalidate", [key...]]` (a null for a flush); with `REDIRECT id` the
//! target gets it instead, as a push if it speaks RESP3, or as a Pub/Sub
//! `message` on `__redis__:invalidate` if it is a subscribed RESP2
//! connection; a gone target sets the broken-redirect flag and sends the
//! client `["tracking-redir-broken", id]` (RESP3 only). A RESP2 client
//! without redirection gets nothing. What is due to the client running a
//! command waits for its reply (7.2's `tracking_pending_keys` and
//! `pending_push_messages`; 7.0 did the same for keys): it goes into the
//! queue Pub/Sub uses for the messages a client publishes to itself, after
//! them. What is due to it before its command runs (evictions and the
//! table limit in `processCommand`) precedes the reply: drivers take it
//! with `Engine::take_before_reply`.
//!
//! BCAST keys are collected per prefix and sent from `before_sleep`
//! (`trackingBroadcastInvalidationMessages`): one message per prefix with
//! every key modified since, in byte order; a NOLOOP client's copy leaves
//! out the keys it changed last itself.

pub mod state;
#[cfg(test)]
mod tests;

use crate::proto::resp::Frame;
use crate::rng::Pick;
use crate::server::client::ClientId;
use crate::server::Server;
use state::ClientTracking;

/// The channel a subscribed RESP2 redirection target hears invalidations on.
pub const CHANNEL: &str = "__redis__:invalidate";

/// The options of CLIENT TRACKING ON besides REDIRECT and PREFIX.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mode {
    pub bcast: bool,
    pub optin: bool,
    pub optout: bool,
    pub noloop: bool,
}

/// What an invalidation carries: the keys, or a null for "everything" (a flush).
#[derive(Clone, Debug)]
enum Payload {
    Keys(Vec<Vec<u8>>),
    Null,
}

/// `enableTracking`: turns tracking on for `id` (or changes its mode,
/// which the caller has checked may change). The CACHING flag survives,
/// as Redis only resets the mode flags; BCAST prefixes add to the ones the
/// client has, and BCAST without any means the empty prefix.
pub fn enable(srv: &mut Server, id: ClientId, redirect: i64, mode: Mode, prefixes: &[Vec<u8>]) {
    let t = srv.tracking.clients.get_or_default(id);
    t.broken_redir = false;
    t.redirect = redirect;
    t.bcast = mode.bcast;
    t.optin = mode.optin;
    t.optout = mode.optout;
    t.noloop = mode.noloop;
    if mode.bcast {
        let empty = [Vec::new()];
        let list = if prefixes.is_empty() {
            &empty[..]
        } else {
            prefixes
        };
        for p in list {
            let bs = srv.tracking.prefixes.entry(p.clone()).or_default();
            if bs.clients.insert(id) {
                if let Some(t) = srv.tracking.clients.get_mut(&id) {
                    t.prefixes.insert(p.clone());
                }
            }
        }
    }
}

/// `disableTracking`: leaves its prefixes (dropping a prefix nobody else
/// follows) and clears its mode. Its ids in the key table stay until
/// those keys are invalidated.
pub fn disable(srv: &mut Server, id: ClientId) {
    let Some(t) = srv.tracking.clients.remove(&id) else {
        return;
    };
    for p in &t.prefixes {
        if let Some(bs) = srv.tracking.prefixes.get_mut(p) {
            bs.clients.remove(&id);
            if bs.clients.is_empty() {
                srv.tracking.prefixes.remove(p);
            }
        }
    }
}

/// `trackingRememberKeys`: after a read-only command run on behalf of
/// `tracking` (a default-mode tracking client), remembers that it may
/// cache `keys`, unless OPTIN without CACHING yes or OPTOUT with CACHING no.
pub fn remember_keys<'a>(
    srv: &mut Server,
    tracking: ClientId,
    keys: impl IntoIterator<Item = &'a [u8]>,
) {
    let Some(t) = srv.tracking.clients.get(&tracking) else {
        return;
    };
    if (t.optin && !t.caching) || (t.optout && t.caching) {
        return;
    }
    let slot = tracking.swap_bytes();
    for k in keys {
        let ids = match srv.tracking.table.get_mut(k) {
            Some(ids) => ids,
            None => srv.tracking.table.entry(k.to_vec()).or_default(),
        };
        if ids.insert(slot) {
            srv.tracking.total_items += 1;
        }
    }
}

/// What `Server`'s write paths call (as methods, so the server's core
/// does not import this module: the subsystem sits below `Server`).
impl Server {
    /// A write to `key` (every write path goes through `touch_key`).
    pub(crate) fn tracking_invalidate(&mut self, key: &[u8], by_client: bool) {
        invalidate_key(self, key, by_client, true);
    }

    /// A FLUSHDB, FLUSHALL or full sync emptied databases.
    pub(crate) fn tracking_flush(&mut self) {
        on_flush(self);
    }
}

/// `trackingInvalidateKey`: `key` changed. Notes it for the BCAST
/// prefixes it matches (when `bcast`), then tells every default-mode
/// client that read it, and forgets them. `by_client` is false for
/// expiry and eviction (no client modified it, as far as NOLOOP goes).
pub fn invalidate_key(srv: &mut Server, key: &[u8], by_client: bool, bcast: bool) {
    let cur = srv.tracking.current;
    if bcast && !srv.tracking.prefixes.is_empty() {
        let modifier = cur.filter(|_| by_client && srv.tracking.in_script == 0);
        for (p, bs) in srv.tracking.prefixes.iter_mut() {
            if key.starts_with(p) {
                bs.keys.insert(key.to_vec(), modifier);
            }
        }
    }
    let Some(ids) = srv.tracking.table.remove(key) else {
        return;
    };
    srv.tracking.total_items -= ids.len() as u64;
    for slot in ids {
        let id = slot.swap_bytes();
        let Some(t) = srv.tracking.clients.get(&id) else {
            continue;
        };
        if t.bcast || (t.noloop && cur == Some(id)) {
            continue;
        }
        if cur == Some(id) && srv.tracking.nesting > 0 {
            srv.tracking.pending.push(Some(key.to_vec()));
        } else {
            send(srv, id, Payload::Keys(vec![key.to_vec()]));
        }
    }
}

/// `trackingInvalidateKeysOnFlush`: every tracking client (BCAST and
/// NOLOOP ones too) is told that everything is invalid, and the key table
/// is emptied.
pub fn on_flush(srv: &mut Server) {
    let ids: Vec<ClientId> = srv.tracking.clients.keys().copied().collect();
    for id in ids {
        if srv.tracking.current == Some(id) {
            srv.tracking.pending.push(None);
        } else {
            send(srv, id, Payload::Null);
        }
    }
    srv.tracking.table.clear();
    srv.tracking.total_items = 0;
}

/// After a top-level command of `id` (`afterCommand` and `resetClient`):
/// sends what became due to it, after its reply, and drops the CACHING
/// flag unless the command was a CLIENT one or the client is in MULTI.
pub fn after_command(srv: &mut Server, id: ClientId, keep_caching: bool) {
    if !srv.tracking.pending.is_empty() {
        let pending = std::mem::take(&mut srv.tracking.pending);
        // Still inside the command as far as delivery goes: its frames
        // follow the reply and the messages it published to itself.
        srv.tracking.nesting += 1;
        for p in pending {
            let payload = match p {
                Some(k) => Payload::Keys(vec![k]),
                None => Payload::Null,
            };
            send(srv, id, payload);
        }
        srv.tracking.nesting -= 1;
    }
    if !keep_caching {
        if let Some(t) = srv.tracking.clients.get_mut(&id) {
            t.caching = false;
        }
    }
}

/// `trackingBroadcastInvalidationMessages`, from `before_sleep`: per
/// prefix, the keys modified since last time go to its clients.
pub fn broadcast(srv: &mut Server) {
    if srv.tracking.clients.is_empty() || srv.tracking.prefixes.is_empty() {
        return;
    }
    let mut due: Vec<(ClientId, Vec<Vec<u8>>)> = Vec::new();
    for bs in srv.tracking.prefixes.values_mut() {
        let keys = std::mem::take(&mut bs.keys);
        if keys.is_empty() {
            continue;
        }
        for &c in &bs.clients {
            let noloop = srv.tracking.clients.get(&c).is_some_and(|t| t.noloop);
            let list: Vec<Vec<u8>> = keys
                .iter()
                .filter(|(_, by)| !noloop || **by != Some(c))
                .map(|(k, _)| k.clone())
                .collect();
            if !list.is_empty() {
                due.push((c, list));
            }
        }
    }
    for (c, keys) in due {
        send(srv, c, Payload::Keys(keys));
    }
}

/// `trackingLimitUsedSlots`: over `tracking-table-max-keys`, random keys
/// are dropped from the table with an invalidation, up to an effort that
/// grows each time a call ends still over the limit. Redis walks its rax
/// at random; here a key is drawn uniformly with the seeded RNG.
pub fn limit_used_slots(srv: &mut Server) {
    let max = srv.config.tracking_table_max_keys;
    if max == 0 {
        return;
    }
    let max = max as usize;
    if srv.tracking.table.len() <= max {
        srv.tracking.timeout_counter = 0;
        return;
    }
    let mut effort = 100 * (srv.tracking.timeout_counter as u64 + 1);
    while effort > 0 {
        effort -= 1;
        let n = srv.tracking.table.len();
        if n == 0 {
            break;
        }
        let i = srv.rng.pick(..n);
        let Some(key) = srv.tracking.table.keys().nth(i).cloned() else {
            break;
        };
        invalidate_key(srv, &key, false, false);
        if srv.tracking.table.len() <= max {
            srv.tracking.timeout_counter = 0;
            return;
        }
    }
    srv.tracking.timeout_counter += 1;
}

/// A client left (`freeClient`) or ran RESET: tracking goes with it.
pub fn disconnected(srv: &mut Server, id: ClientId) {
    disable(srv, id);
}

/// `sendTrackingMessage`: delivers one invalidation for tracking client
/// `id`, to it or to its redirection target.
fn send(srv: &mut Server, id: ClientId, payload: Payload) {
    let (redirect, own_resp) = (
        srv.tracking.clients.get(&id).map_or(0, |t| t.redirect),
        conn(srv, id).map_or(2, |c| c.0),
    );
    let mut target = id;
    if redirect != 0 {
        let to = redirect as ClientId;
        if redirect < 0 || conn(srv, to).is_none() {
            if let Some(t) = srv.tracking.clients.get_mut(&id) {
                t.broken_redir = true;
            }
            if own_resp > 2 {
                let f = Frame::Push(vec![
                    Frame::bulk("tracking-redir-broken"),
                    Frame::Integer(redirect),
                ]);
                deliver(srv, id, f);
            }
            return;
        }
        target = to;
    }
    let Some((resp, subscribed)) = conn(srv, target) else {
        return;
    };
    let value = match payload {
        Payload::Keys(keys) => Frame::Array(keys.into_iter().map(Frame::Bulk).collect()),
        // `shared.null[c->resp]` of the tracking client. A RESP3 client
        // redirecting to a RESP2 one makes Redis write RESP3's `_` there;
        // the driver encodes this null for the receiving connection instead.
        Payload::Null => Frame::Null,
    };
    let frame = if resp > 2 {
        Frame::Push(vec![Frame::bulk("invalidate"), value])
    } else if target != id && subscribed {
        Frame::Push(vec![Frame::bulk("message"), Frame::bulk(CHANNEL), value])
    } else {
        return;
    };
    deliver(srv, target, frame);
}

/// A connection's protocol and whether it is subscribed (`CLIENT_PUBSUB`),
/// or `None` if it is gone.
fn conn(srv: &Server, id: ClientId) -> Option<(u8, bool)> {
    srv.client_list.get(&id).map(|e| (e.resp, e.subscribed()))
}

/// Hands `frame` to `to`: after the reply if `to` is running a command
/// (7.2's `pending_push_messages`), before it if `to`'s command has not
/// started yet (an eviction in `processCommand`), else at once.
fn deliver(srv: &mut Server, to: ClientId, frame: Frame) {
    if srv.tracking.current != Some(to) {
        crate::output::deliver(srv, to, frame);
    } else if srv.tracking.nesting > 0 {
        srv.pubsub.defer_own(to, frame);
    } else {
        srv.tracking.before_reply.push((to, frame));
    }
}

/// Frames a driver did not take ahead of their reply go out with the
/// rest, so none is lost.
pub fn flush_before_reply(srv: &mut Server) {
    for (id, f) in std::mem::take(&mut srv.tracking.before_reply) {
        crate::output::deliver(srv, id, f);
    }
}

/// The flags CLIENT TRACKINGINFO lists, in Redis' order.
pub fn info_flags(t: Option<&ClientTracking>) -> Vec<&'static str> {
    let Some(t) = t else {
        return vec!["off"];
    };
    let mut f = vec!["on"];
    if t.bcast {
        f.push("bcast");
    }
    if t.optin {
        f.push("optin");
        if t.caching {
            f.push("caching-yes");
        }
    }
    if t.optout {
        f.push("optout");
        if t.caching {
            f.push("caching-no");
        }
    }
    if t.noloop {
        f.push("noloop");
    }
    if t.broken_redir {
        f.push("broken_redirect");
    }
    f
}
