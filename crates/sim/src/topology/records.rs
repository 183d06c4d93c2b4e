//! What a topology reports: the client's writes, every resync, each node's timeline of events, and plain data about now for drawing.

pub use crate::replication::sentinel::SentinelView;
use serde::Serialize;

/// One write the client made.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WriteRecord {
    pub id: u64,
    pub sent_us: u64,
    /// When the client was told it succeeded (None: refused or pending).
    pub acked_us: Option<u64>,
    /// The node it was sent to.
    pub node: usize,
    /// When the node the client treats as master stopped holding it.
    pub lost_us: Option<u64>,
    /// Why it was not acknowledged.
    pub error: Option<String>,
}

/// One resync of a replica: PSYNC's outcome and the offsets it bridged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SyncRecord {
    pub at_us: u64,
    pub replica: usize,
    pub master: usize,
    pub full: bool,
    /// The replica's offset when it asked, and its master's.
    pub replica_offset: u64,
    pub master_offset: u64,
}

/// Something that happened on one node, for its timeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeEvent {
    pub at_us: u64,
    pub node: usize,
    pub kind: NodeEventKind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum NodeEventKind {
    /// The client sent write `id` here.
    Write {
        id: u64,
    },
    Acked {
        id: u64,
    },
    Refused {
        id: u64,
        error: String,
    },
    /// Replication stream arrived: the replica's offset after it and how many client writes it carried.
    Arrived {
        offset: u64,
        writes: u64,
    },
    /// The replica acknowledged `offset` to its master.
    Ack {
        offset: u64,
    },
    /// AOF records fsynced.
    Fsync {
        records: u64,
    },
    SnapshotStart,
    SnapshotEnd {
        cow_bytes: u64,
    },
    Crash {
        power_loss: bool,
    },
    /// Back from its files, missing this many writes it had acknowledged.
    Restart {
        lost_writes: u64,
    },
    /// Sentinel `sentinel` considers this master subjectively down.
    Sdown {
        sentinel: usize,
    },
    Odown {
        sentinel: usize,
        agree: usize,
    },
    TryFailover {
        sentinel: usize,
        epoch: u64,
    },
    Elected {
        sentinel: usize,
        epoch: u64,
    },
    ElectionFailed {
        sentinel: usize,
        epoch: u64,
    },
    NoGoodReplica {
        sentinel: usize,
    },
    /// `REPLICAOF NO ONE`.
    Promoted,
    /// `REPLICAOF` node `to`.
    Repointed {
        to: usize,
    },
    /// Sentinels now name this node master (`+switch-master`).
    SwitchMaster {
        epoch: u64,
    },
    /// The client now writes here.
    ClientSwitched,
    FullSync,
    PartialSync,
    LinkDown,
    Partitioned,
    Healed,
    LinkPaused,
    LinkResumed,
    Appendfsync {
        mode: String,
    },
    /// Acknowledged writes this node (the client's master) does not hold.
    Lost {
        ids: Vec<u64>,
    },
}

/// Plain data about the world now, for drawing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TopoView {
    pub now_us: u64,
    pub nodes: Vec<NodeView>,
    pub links: Vec<LinkView>,
    pub sentinels: Vec<SentinelView>,
    /// The node the client writes to.
    pub client_master: usize,
    /// The client is cut off with this node.
    pub client_isolated_with: Option<usize>,
    /// What the sentinels are doing, in words.
    pub failover: Option<String>,
    /// The last completed failover, in words.
    pub last_failover: Option<String>,
    pub writes: u64,
    pub acked: u64,
    pub refused: u64,
    pub lost: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeView {
    pub id: usize,
    pub addr: String,
    /// `master | replica`.
    pub role: String,
    /// The node it replicates from.
    pub master_of: Option<usize>,
    pub alive: bool,
    pub isolated: bool,
    pub offset: u64,
    pub keys: u64,
    /// `always | everysec | no | off`.
    pub appendfsync: String,
    pub aof_records: u64,
    pub aof_fsynced_records: u64,
    pub bgsave_in_progress: bool,
    /// Replicas: `up | down | syncing`; masters: `none`.
    pub link_status: String,
    pub priority: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkView {
    pub from: usize,
    pub to: usize,
    pub latency_ms: f64,
    pub paused: bool,
    /// Stream bytes on the wire towards the replica.
    pub in_flight_bytes: u64,
    /// Master offset minus replica offset.
    pub behind_bytes: u64,
}
