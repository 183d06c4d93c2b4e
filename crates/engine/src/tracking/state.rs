//! Client-side caching's server state (tracking.c's `TrackingTable` and `PrefixTable`, `server.tracking_pending_keys`) and each tracking client's mode.

use crate::ordmap::{OrdMap, OrdSet};

use crate::server::client::ClientId;

/// One tracking client's mode (its `CLIENT_TRACKING*` flags, redirection
/// and BCAST prefixes). A client has a record only while tracking is on:
/// `disableTracking` clears every flag, so TRACKINGINFO then shows `off`.
#[derive(Clone, Debug, Default)]
pub struct ClientTracking {
    /// `REDIRECT id`; 0 when invalidations go to the client itself.
    pub redirect: i64,
    pub bcast: bool,
    pub optin: bool,
    pub optout: bool,
    pub noloop: bool,
    /// `CLIENT CACHING yes|no` was given for the next command.
    pub caching: bool,
    /// The redirection target was gone when a message was due.
    pub broken_redir: bool,
    /// BCAST prefixes, in byte order as the client's rax keeps them.
    pub prefixes: OrdSet<Vec<u8>>,
}

/// One BCAST prefix (`bcastState`): keys modified since the last
/// broadcast, each with the client that changed it last (for NOLOOP), and
/// the clients subscribed to the prefix.
#[derive(Clone, Debug, Default)]
pub struct Bcast {
    pub(super) keys: OrdMap<Vec<u8>, Option<ClientId>>,
    /// Redis keys this rax by client pointer (an order that changes from
    /// one process to the next); connection order is one it could show.
    pub(super) clients: crate::idmap::IdSet,
}

/// What is due to the client running the command once it has its reply
/// (`server.tracking_pending_keys`): a key, or `None` for a flush.
pub(super) type Pending = Option<Vec<u8>>;

/// The tracking tables and the running command's context.
#[derive(Debug, Default)]
pub struct Tracking {
    /// Key → the clients that may cache it. Redis keeps the ids in a rax
    /// of their 8 native (little-endian) bytes, so they are visited in the
    /// order of `id.swap_bytes()`; the set holds them that way.
    pub(super) table: OrdMap<Vec<u8>, crate::idmap::IdSet>,
    /// `TrackingTableTotalItems`: ids summed over every key.
    pub(super) total_items: u64,
    /// Prefix → its BCAST state, in byte order.
    pub(super) prefixes: OrdMap<Vec<u8>, Bcast>,
    /// Clients with tracking on, by id (`server.tracking_clients` is its size).
    pub(super) clients: crate::idmap::IdMap<ClientTracking>,
    pub(super) pending: Vec<Pending>,
    /// Frames for the client whose command is being processed, produced
    /// before it runs (evictions and the table limit in `processCommand`):
    /// Redis writes them ahead of the reply.
    pub(crate) before_reply: Vec<(ClientId, crate::proto::resp::Frame)>,
    /// `trackingLimitUsedSlots`' static: how many calls in a row ended
    /// still over the limit (each one tries harder).
    pub(super) timeout_counter: u32,
    /// The client whose command is being processed (`server.current_client`).
    pub(crate) current: Option<ClientId>,
    /// `call` depth: above 0 the current client is executing a command
    /// (`CLIENT_EXECUTING_COMMAND`), so what is due to it waits for its reply.
    pub(crate) nesting: u32,
    /// Inside a script: the keys it writes have no modifying client for
    /// BCAST's NOLOOP (Redis passes the script's own client).
    pub(crate) in_script: u32,
}

impl Tracking {
    /// True when no key can be invalidated: the write path's fast exit.
    #[inline]
    pub fn idle(&self) -> bool {
        self.table.is_empty() && self.prefixes.is_empty() && self.clients.is_empty()
    }

    /// `server.tracking_clients`.
    pub fn tracking_clients(&self) -> usize {
        self.clients.len()
    }

    /// `trackingGetTotalKeys`.
    pub fn total_keys(&self) -> usize {
        self.table.len()
    }

    /// `trackingGetTotalItems`.
    pub fn total_items(&self) -> u64 {
        self.total_items
    }

    /// `trackingGetTotalPrefixes`.
    pub fn total_prefixes(&self) -> usize {
        self.prefixes.len()
    }

    /// A client's mode, if it has tracking on.
    pub fn client(&self, id: ClientId) -> Option<&ClientTracking> {
        self.clients.get(&id)
    }

    /// A client's mode to change, if it has tracking on.
    pub fn clients_mut(&mut self, id: ClientId) -> Option<&mut ClientTracking> {
        self.clients.get_mut(&id)
    }

    /// True if `id` has tracking on in the default (key table) mode.
    #[inline]
    pub fn tracks_keys(&self, id: ClientId) -> bool {
        self.clients.get(&id).is_some_and(|t| !t.bcast)
    }
}
