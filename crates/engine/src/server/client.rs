//! Per-connection state that commands can see: selected database, protocol, name, open transaction, subscriptions.

/// Identifies a connected client.
pub type ClientId = u64;

/// What Redis keeps per connection that commands can see.
#[derive(Clone, Debug)]
pub struct Client {
    pub id: ClientId,
    /// Selected database.
    pub db: usize,
    /// Protocol version: 2 or 3 (HELLO).
    pub resp: u8,
    /// CLIENT SETNAME.
    pub name: Option<String>,
    /// Virtual time of connection, µs.
    pub created_us: u64,
    /// Virtual time of the last command, µs.
    pub last_interaction_us: u64,
    /// Set by QUIT: the driver closes the connection after replying.
    pub close_after_reply: bool,
    /// Open transaction (after MULTI).
    pub multi: Option<MultiState>,
    /// Pub/Sub channels, patterns and shard channels it listens to.
    pub subs: crate::pubsub::Subscriptions,
    /// The replication offset after its last write (`c->woff`): what WAIT waits for.
    pub repl_woff: u64,
}

/// What a client in MULTI has queued (`multiState`).
#[derive(Clone, Debug, Default)]
pub struct MultiState {
    /// Queued commands, validated at queue time and resolved again at EXEC.
    pub queued: Vec<Vec<Vec<u8>>>,
    /// A command was rejected while queueing (`CLIENT_DIRTY_EXEC`): EXEC aborts.
    pub dirty_exec: bool,
}
