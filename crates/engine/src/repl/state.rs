//! A node's replication state (`server.master_repl_offset`, the backlog, `server.slaves`, the role and link): the stream's unit (`ReplOp`), what PSYNC answers, and what was written since the last propagation.

use crate::keyspace::object::Obj;
use crate::rng::Pick;
use std::collections::VecDeque;

/// One unit of the replication stream: the effect of a command on one key
/// (or a flush), with the stream offsets it spans.
#[derive(Clone, Debug)]
pub struct ReplOp {
    /// Offset of the stream before and after this op (bytes).
    pub start: u64,
    pub end: u64,
    pub db: usize,
    pub effect: Effect,
    /// What the master ran, for timelines (`SET k v`, `DEL k (expired)`).
    pub label: String,
}

/// What a replica does with an op.
#[derive(Clone, Debug)]
pub enum Effect {
    /// The key now holds this object, with this TTL (absolute Unix ms).
    Put {
        key: Vec<u8>,
        obj: Obj,
        expire_ms: Option<i64>,
    },
    /// The key is gone (deleted, expired or evicted on the master).
    Del { key: Vec<u8> },
    /// FLUSHDB (`Some(db)`) or FLUSHALL.
    Flush { db: Option<usize> },
    /// The key was written; only its offsets are kept. A server whose
    /// replicas are on sockets sends them Redis' commands (`wire`), never
    /// serves a partial resync from its backlog and never replays its AOF
    /// records, so copying the value there would only hold memory: a big
    /// collection written often would fill them with copies of itself.
    Counted { key: Vec<u8> },
}

/// The link from a replica to its master, as INFO replication shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkState {
    /// Configured, not connected (`master_link_status:down`, state connect).
    Connect,
    /// Connected and receiving the snapshot of a full sync.
    Sync,
    /// Streaming.
    Connected,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    Master,
    Replica {
        host: String,
        port: u16,
        state: LinkState,
        /// Unix ms when a connected link went down, for
        /// `master_link_down_since_seconds` (`repl_down_since`); `None`
        /// while this replica has not lost a link it had, when Redis shows -1.
        down_since_ms: Option<i64>,
        /// Unix ms of the last data or ping from the master.
        last_io_ms: i64,
    },
}

/// A replica as its master knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaLink {
    /// `ip:port` the replica announced; the driver's name for it.
    pub addr: String,
    /// The last offset it acknowledged (`REPLCONF ACK`).
    pub ack_offset: u64,
    /// Unix ms of that acknowledgement: `lag` is measured from it.
    pub last_ack_ms: i64,
    pub online: bool,
}

/// A key touched by the running command, or a flush, in order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Dirty {
    Key(usize, Vec<u8>),
    Flush(Option<usize>),
}

/// Replication state of one server (`server.master*`, `server.repl_*`).
#[derive(Clone, Debug)]
pub struct Repl {
    pub role: Role,
    /// The history this server's offsets belong to.
    pub replid: String,
    /// The previous history, accepted for a partial resync after a failover.
    pub replid2: String,
    /// Last offset of `replid2`'s history (-1 when none).
    pub second_offset: i64,
    /// `master_repl_offset`: bytes of stream produced (master) or applied (replica).
    pub offset: u64,
    pub replicas: Vec<ReplicaLink>,
    pub(super) backlog: VecDeque<ReplOp>,
    /// Bytes of stream the backlog holds (`repl_backlog_histlen`).
    pub(super) backlog_histlen: u64,
    /// True once a replica attached: from then on writes are captured (Redis
    /// creates the backlog with the first replica and keeps it).
    capturing: bool,
    /// True once a replica attached: ops go to the backlog and the outbox.
    pub(super) streaming: bool,
    pub(super) dirty: Vec<Dirty>,
    outbox: Vec<ReplOp>,
    /// The database the stream last selected (a `SELECT` is counted on change).
    pub(super) selected: Option<usize>,
    /// Full and partial resyncs served, and partial ones refused (INFO stats).
    pub sync_full: u64,
    pub sync_partial_ok: u64,
    pub sync_partial_err: u64,
    /// True while a replica applies the master's stream: the master's
    /// commands may touch expired keys (they are the ones that delete them).
    pub applying: bool,
    /// A WAIT blocked: the driver should ask replicas for an ACK now
    /// (`replicationRequestAckFromSlaves`).
    pub ack_requested: bool,
    /// Replicas on sockets (a native server's SYNC and PSYNC).
    pub sockets: Sockets,
    /// The stream as Redis' commands, for the socket replicas.
    pub wire: super::wire::Wire,
}

impl Repl {
    /// A master with no replicas. Its replication ID is derived from the
    /// seed (not drawn from the server's RNG, whose sequence other features
    /// consume).
    pub fn new(seed: u64) -> Repl {
        let mut rng = fastrand::Rng::with_seed(seed ^ 0x7265_706c_6964);
        Repl {
            role: Role::Master,
            replid: new_replid(&mut rng),
            replid2: "0".repeat(40),
            second_offset: -1,
            offset: 0,
            replicas: Vec::new(),
            backlog: VecDeque::new(),
            backlog_histlen: 0,
            capturing: false,
            streaming: false,
            dirty: Vec::new(),
            outbox: Vec::new(),
            selected: None,
            sync_full: 0,
            sync_partial_ok: 0,
            sync_partial_err: 0,
            applying: false,
            ack_requested: false,
            sockets: Default::default(),
            wire: Default::default(),
        }
    }

    pub fn is_replica(&self) -> bool {
        matches!(self.role, Role::Replica { .. })
    }

    /// A replica whose link to its master is streaming
    /// (`repl_state == REPL_STATE_CONNECTED`).
    pub fn link_up(&self) -> bool {
        matches!(
            self.role,
            Role::Replica {
                state: LinkState::Connected,
                ..
            }
        )
    }

    /// `shouldPropagate` for the socket stream: a master with a replica on
    /// a socket keeps Redis' commands for it.
    pub fn refresh_wire(&mut self) {
        let on = !self.is_replica() && !self.sockets.links.is_empty();
        self.wire.set_on(on);
    }

    /// True while writes are captured for the stream.
    pub fn capturing(&self) -> bool {
        self.capturing
    }

    /// Starts capturing for the stream (a replica attached, or this server
    /// became a master that may get some).
    pub fn start_capturing(&mut self) {
        self.capturing = true;
        self.streaming = true;
    }

    /// Starts capturing for persistence only (AOF records, `save` rules'
    /// change count); the stream and its offsets stay off.
    pub fn capture_for_persistence(&mut self) {
        self.capturing = true;
    }

    /// `signalModifiedKey`'s companion: remembers a key the command touched.
    pub fn note_key(&mut self, db: usize, key: &[u8]) {
        if self.capturing {
            self.dirty.push(Dirty::Key(db, key.to_vec()));
        }
    }

    /// Remembers a FLUSHDB/FLUSHALL.
    pub fn note_flush(&mut self, db: Option<usize>) {
        if self.capturing {
            self.dirty.push(Dirty::Flush(db));
        }
    }

    /// Ops produced since the last call, for the driver to carry to replicas.
    pub fn take_outbox(&mut self) -> Vec<ReplOp> {
        std::mem::take(&mut self.outbox)
    }

    /// First offset still in the backlog (`repl_backlog_first_byte_offset`).
    pub fn backlog_first_offset(&self) -> u64 {
        self.offset - self.backlog_histlen + 1
    }

    pub fn backlog_histlen(&self) -> u64 {
        self.backlog_histlen
    }

    /// Replicas whose acknowledged offset reached `offset` (WAIT's count).
    pub fn acked(&self, offset: u64) -> usize {
        self.replicas
            .iter()
            .filter(|r| r.online && r.ack_offset >= offset)
            .count()
    }

    /// `refreshGoodSlavesCount`: online replicas whose last ack is at most
    /// `max_lag_s` seconds old.
    pub fn good_replicas(&self, now_ms: i64, max_lag_s: i64) -> usize {
        self.replicas
            .iter()
            .filter(|r| r.online && (now_ms - r.last_ack_ms) / 1000 <= max_lag_s)
            .count()
    }

    /// Appends `op` to the backlog and, when `send`, to the outbox for replicas.
    pub(super) fn record(&mut self, op: ReplOp, backlog_size: u64, send: bool) {
        if !self.streaming {
            // Captured for persistence only: no replica, no backlog (and
            // the offset stays 0, as on a Redis that never had one).
            self.offset = op.start;
            return;
        }
        self.backlog_histlen += op.end - op.start;
        self.backlog.push_back(op.clone());
        // Drop whole ops from the front while the backlog holds more bytes
        // than its size (Redis trims by blocks; the window is the same).
        while self.backlog_histlen > backlog_size.max(1) {
            match self.backlog.pop_front() {
                Some(old) => self.backlog_histlen -= old.end - old.start,
                None => break,
            }
        }
        if send {
            self.outbox.push(op);
        }
    }
}

/// A 40-hex-digit replication ID from the seeded RNG.
pub(super) fn new_replid(rng: &mut fastrand::Rng) -> String {
    (0..40)
        .map(|_| char::from(b"0123456789abcdef"[rng.pick(..16)]))
        .collect()
}

/// Length of a command's RESP encoding (`*N` header and bulk strings).
pub fn resp_len(args: &[&[u8]]) -> u64 {
    let digits = |n: usize| n.to_string().len() as u64;
    let mut n = 1 + digits(args.len()) + 2;
    for a in args {
        n += 1 + digits(a.len()) + 2 + a.len() as u64 + 2;
    }
    n
}

/// What a master answers to `PSYNC replid offset`.
#[derive(Clone, Debug)]
pub enum Sync {
    /// `+CONTINUE`: the ops after the replica's offset.
    Partial(Vec<ReplOp>),
    /// `+FULLRESYNC replid offset`: a snapshot of every key (as ops), then the stream.
    Full {
        replid: String,
        offset: u64,
        snapshot: Vec<ReplOp>,
    },
}

/// The socket replicas of a server and what is due to them.
#[derive(Clone, Debug, Default)]
pub struct Sockets {
    /// Set by a driver with sockets (the native server); elsewhere SYNC and
    /// PSYNC answer with an error, since no connection could carry the stream.
    pub allowed: bool,
    pub links: Vec<Link>,
    /// Bytes for replicas' connections, in order, until the driver takes them.
    pub out: Vec<(crate::server::client::ClientId, Vec<u8>)>,
}

/// One replica connection.
#[derive(Clone, Debug)]
pub struct Link {
    pub client: crate::server::client::ClientId,
    /// Its name in INFO and ROLE (`ip:listening-port`).
    pub addr: String,
    /// The database the wire's commands apply to.
    pub(super) selected: Option<usize>,
    /// Wire offset: the offset announced at the sync plus every byte sent since.
    pub(super) wire: u64,
    /// (wire offset, engine offset) where each op sent ends, oldest first.
    pub(super) marks: VecDeque<(u64, u64)>,
    /// The engine offset of the last op sent, and of the last one acknowledged.
    pub(super) engine: u64,
    pub(super) acked: u64,
    pub(super) last_sent_ms: i64,
}
