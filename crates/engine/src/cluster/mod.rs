//! Redis Cluster in the engine: CRC16 key slots, one node's view of the cluster (nodes, slot owners, migrating/importing slots, health) as `cluster.c` keeps it. Several engines joined into a simulated cluster are redsim-sim's `cluster`.
//!
//! A cluster-enabled [`crate::server::Server`] holds a [`ClusterState`]: the
//! nodes it knows, who owns each of the 16384 slots, the slots it is
//! migrating or importing, and the `cluster_state` Redis computes in
//! `clusterUpdateState`. There is no cluster bus: a lone node knows only
//! itself (as a fresh `redis-server --cluster-enabled yes` does), and the
//! simulated cluster in [`sim`] plays the gossip by copying slot claims
//! between the views of its nodes.

pub mod link;

use crate::ordmap::OrdMap;
use crate::rng::Pick;

/// Hash slots in a cluster (`CLUSTER_SLOTS`).
pub const SLOTS: usize = 16384;

/// `CLUSTER_WRITABLE_DELAY`: a master that starts failed waits this long
/// (from the first state update) before it may turn the state OK.
const WRITABLE_DELAY_MS: i64 = 2000;
/// Bounds of the rejoin delay after a node was in a minority partition.
const MIN_REJOIN_DELAY_MS: i64 = 500;
const MAX_REJOIN_DELAY_MS: i64 = 5000;

/// The CRC16 lookup table: CCITT polynomial 0x1021, MSB first, built at
/// compile time so the slot of a key costs one table step per byte.
const CRC16_TABLE: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = (i as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// CRC16 as Redis Cluster uses it (XMODEM: polynomial 0x1021, initial 0,
/// no reflection, no final xor). `crc16(b"123456789") == 0x31C3`.
pub fn crc16(data: &[u8]) -> u16 {
    data.iter().fold(0u16, |crc, &b| {
        (crc << 8) ^ CRC16_TABLE[((crc >> 8) as u8 ^ b) as usize]
    })
}

/// `keyHashSlot`: the slot of `key`. If the key has a `{` followed later by
/// a `}` with at least one byte between them, only the bytes between the
/// first `{` and the first `}` after it are hashed (a hash tag); an empty
/// tag `{}` or an unclosed `{` hashes the whole key.
pub fn key_hash_slot(key: &[u8]) -> u16 {
    let whole = || crc16(key) & 0x3FFF;
    let Some(open) = key.iter().position(|&b| b == b'{') else {
        return whole();
    };
    let tag = &key[open + 1..];
    match tag.iter().position(|&b| b == b'}') {
        Some(len) if len > 0 => crc16(&tag[..len]) & 0x3FFF,
        _ => whole(),
    }
}

/// A node as another node sees it (`clusterNode`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// 40 lower-case hex characters.
    pub id: String,
    /// The shard's id (7.2's `shard_id`): a master's own, shared by its replicas.
    pub shard_id: String,
    /// Empty until the node learns its address from a peer, as in Redis.
    pub ip: String,
    pub port: u16,
    /// The cluster bus port (`port + 10000` by default).
    pub cport: u16,
    /// For a replica, the index of its master in the node list.
    pub replica_of: Option<usize>,
    /// The epoch under which this node's slot claims are ranked.
    pub config_epoch: u64,
    /// Flagged FAIL: a majority of masters agreed it is unreachable.
    pub failed: bool,
    /// Flagged PFAIL (`fail?`): this node alone has had no answer from it
    /// for `cluster-node-timeout`.
    pub pfail: bool,
    /// Unix ms of the ping still waiting for its pong (0: none), and of the
    /// last pong, as `CLUSTER NODES` prints them.
    pub ping_sent_ms: i64,
    pub pong_ms: i64,
    /// Failure reports about this node: `(reporting master, unix ms)`.
    pub fail_reports: Vec<(usize, i64)>,
    /// Unix ms it was flagged FAIL (for `CLUSTER_FAIL_UNDO_TIME_MULT`).
    pub fail_time_ms: i64,
    /// Unix ms this node last voted for a replica of this master.
    pub voted_ms: i64,
}

/// `CLUSTER FAILOVER`'s variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManualFailover {
    /// Waits for the master to pause and the offsets to match.
    Coordinated,
    /// No agreement with the master, still an election.
    Force,
    /// No election: a new epoch without consensus.
    Takeover,
}

/// Why a command cannot run here (`CLUSTER_REDIR_*`), and the reply it gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Redirect {
    /// Keys in different slots.
    CrossSlot,
    /// Several keys of a slot being migrated, some here and some not.
    Unstable,
    /// The cluster is down.
    Down,
    /// The cluster is down and the command writes (`cluster-allow-reads-when-down`).
    DownReadOnly,
    /// The key's slot has no owner.
    Unbound,
    /// Another node owns the slot: `(slot, node index)`.
    Moved(u16, usize),
    /// The key was migrated already: ask the importing node.
    Ask(u16, usize),
}

impl Redirect {
    /// The error line `clusterRedirectClient` sends, given the node list for addresses.
    pub fn message(&self, nodes: &[Node]) -> String {
        let addr = |n: usize| {
            nodes
                .get(n)
                .map(|n| format!("{}:{}", n.ip, n.port))
                .unwrap_or_default()
        };
        match self {
            Redirect::CrossSlot => "CROSSSLOT Keys in request don't hash to the same slot".into(),
            Redirect::Unstable => "TRYAGAIN Multiple keys request during rehashing of slot".into(),
            Redirect::Down => "CLUSTERDOWN The cluster is down".into(),
            Redirect::DownReadOnly => {
                "CLUSTERDOWN The cluster is down and only accepts read commands".into()
            }
            Redirect::Unbound => "CLUSTERDOWN Hash slot not served".into(),
            Redirect::Moved(slot, n) => format!("MOVED {slot} {}", addr(*n)),
            Redirect::Ask(slot, n) => format!("ASK {slot} {}", addr(*n)),
        }
    }
}

/// One node's view of the cluster (`clusterState`), plus the per-client
/// cluster flags (ASKING, READONLY) kept here so clients need no new field.
#[derive(Clone, Debug)]
pub struct ClusterState {
    /// Every known node, this one included; output order is this order.
    pub nodes: Vec<Node>,
    /// This node's index in `nodes`.
    pub myself: usize,
    /// The owner of each slot, as an index into `nodes`.
    pub slots: Vec<Option<u16>>,
    /// Slots this node is handing to another (`migrating_slots_to`).
    pub migrating: OrdMap<u16, usize>,
    /// Slots this node is receiving (`importing_slots_from`).
    pub importing: OrdMap<u16, usize>,
    pub current_epoch: u64,
    /// `cluster_state:ok`.
    pub ok: bool,
    /// `cluster_size`: masters serving at least one slot (1 until the first real update, as in Redis).
    pub size: usize,
    /// Virtual ms of the first state update (`first_call_time`).
    first_update_ms: Option<i64>,
    /// Last virtual ms the node found itself in a minority (`among_minority_time`).
    among_minority_ms: i64,
    /// Clients that sent ASKING, and whether a command has used it since
    /// (it is dropped when the one after that arrives outside MULTI).
    pub asking: crate::idmap::IdMap<bool>,
    /// Clients that sent READONLY.
    pub readonly: crate::idmap::IdSet,
    /// Clients whose commands are never redirected (`mustObeyClient`: a master's link).
    pub obey: crate::idmap::IdSet,
    /// Keyed commands served here, per slot: the heat map's input.
    pub slot_hits: OrdMap<u16, u64>,
    /// Redirections and cluster errors answered.
    pub redirects_sent: u64,
    /// Set by every topology change: until then an OK state is still OK,
    /// so the per-command check skips the 16384-slot scan.
    pub dirty: bool,
    /// The coverage and timeout settings the state was last computed with.
    checked_with: (bool, i64),
    /// The last epoch this master voted in (`lastVoteEpoch`).
    pub last_vote_epoch: u64,
    /// A `CLUSTER FAILOVER` accepted on this replica and its deadline
    /// (unix ms, `mf_end`); the cluster's cron carries it out.
    pub manual_failover: Option<(ManualFailover, i64)>,
    /// Keys of database 0 per slot in creation order, for GETKEYSINSLOT's
    /// newest-first order (Redis' per-slot key lists); deleted keys are
    /// skipped when read and pruned when the slot's key is created again.
    pub slot_keys: OrdMap<u16, Vec<Vec<u8>>>,
}

/// 40 hex characters from `rng` (`getRandomHexChars`).
pub fn random_node_id(rng: &mut fastrand::Rng) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    (0..40).map(|_| HEX[rng.pick(..16)] as char).collect()
}

impl ClusterState {
    /// A fresh node that knows only itself and owns no slot. Its id comes
    /// from its own generator seeded from `seed`, so enabling cluster mode
    /// leaves the server's RNG stream untouched.
    pub fn new(seed: u64, port: u16) -> ClusterState {
        let mut rng = fastrand::Rng::with_seed(seed ^ 0xC105_7E6D_5EED_0001);
        let id = random_node_id(&mut rng);
        let shard_id = random_node_id(&mut rng);
        ClusterState {
            nodes: vec![Node {
                id,
                shard_id,
                ip: String::new(),
                port,
                cport: port.wrapping_add(10000),
                replica_of: None,
                config_epoch: 0,
                failed: false,
                pfail: false,
                ping_sent_ms: 0,
                pong_ms: 0,
                fail_reports: Vec::new(),
                fail_time_ms: 0,
                voted_ms: 0,
            }],
            myself: 0,
            slots: vec![None; SLOTS],
            migrating: OrdMap::new(),
            importing: OrdMap::new(),
            current_epoch: 0,
            ok: false,
            size: 1,
            first_update_ms: None,
            among_minority_ms: 0,
            asking: crate::idmap::IdMap::new(),
            readonly: crate::idmap::IdSet::new(),
            obey: crate::idmap::IdSet::new(),
            slot_hits: OrdMap::new(),
            redirects_sent: 0,
            slot_keys: OrdMap::new(),
            last_vote_epoch: 0,
            manual_failover: None,
            dirty: true,
            checked_with: (true, 0),
        }
    }

    /// Records a key created in database 0 (`slotToKeyAddEntry`).
    pub fn key_added(&mut self, key: &[u8]) {
        let list = self.slot_keys.entry(key_hash_slot(key)).or_default();
        list.retain(|k| k.as_slice() != key);
        list.push(key.to_vec());
    }

    /// This node.
    pub fn me(&self) -> &Node {
        &self.nodes[self.myself]
    }

    /// True if this node is a master.
    pub fn is_master(&self) -> bool {
        self.me().replica_of.is_none()
    }

    /// The index of the node called `id` (exact, case-sensitive as `clusterLookupNode`).
    pub fn lookup_node(&self, id: &[u8]) -> Option<usize> {
        self.nodes.iter().position(|n| n.id.as_bytes() == id)
    }

    /// Slots owned by node `n`.
    pub fn slot_count(&self, n: usize) -> usize {
        self.slots.iter().filter(|o| **o == Some(n as u16)).count()
    }

    /// The owner of `slot`.
    pub fn owner(&self, slot: u16) -> Option<usize> {
        self.slots
            .get(slot as usize)
            .copied()
            .flatten()
            .map(usize::from)
    }

    /// `(start, end)` runs of consecutive slots owned by node `n`.
    pub fn slot_ranges(&self, n: usize) -> Vec<(u16, u16)> {
        let mut out = Vec::new();
        let mut start: Option<usize> = None;
        for s in 0..=SLOTS {
            let mine = s < SLOTS && self.slots[s] == Some(n as u16);
            match (mine, start) {
                (true, None) => start = Some(s),
                (false, Some(b)) => {
                    out.push((b as u16, (s - 1) as u16));
                    start = None;
                }
                _ => {}
            }
        }
        out
    }

    /// `(start, end, owner)` runs over the whole slot space, in slot order
    /// (`clusterGenNodesSlotsInfo`, `CLUSTER SLOTS`).
    pub fn slot_runs(&self) -> Vec<(u16, u16, usize)> {
        let mut out: Vec<(u16, u16, usize)> = Vec::new();
        for (s, owner) in self.slots.iter().enumerate() {
            let Some(o) = owner else { continue };
            match out.last_mut() {
                Some(last) if last.2 == *o as usize && last.1 as usize + 1 == s => {
                    last.1 = s as u16
                }
                _ => out.push((s as u16, s as u16, *o as usize)),
            }
        }
        out
    }

    /// The replicas of node `n`, in node order.
    pub fn replicas_of(&self, n: usize) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| self.nodes[i].replica_of == Some(n))
            .collect()
    }

    /// `clusterUpdateState`, run when the topology changes and lazily when
    /// the state is read (Redis runs it from its cron every 100 ms while
    /// failed; between topology changes the lazy result is the same).
    /// `boot_ms` is when the node started: Redis' first update comes with
    /// its first event-loop iteration, which starts the writable delay.
    pub fn update_state(
        &mut self,
        now_ms: i64,
        boot_ms: i64,
        require_full_coverage: bool,
        node_timeout_ms: i64,
    ) {
        // Nothing turns an OK state into a failed one but a change.
        let settings = (require_full_coverage, node_timeout_ms);
        if self.ok && !self.dirty && self.checked_with == settings {
            return;
        }
        self.dirty = false;
        self.checked_with = settings;
        let first = *self.first_update_ms.get_or_insert(boot_ms);
        if self.is_master() && !self.ok && now_ms - first < WRITABLE_DELAY_MS {
            return;
        }
        let mut ok = true;
        if require_full_coverage
            && self
                .slots
                .iter()
                .any(|o| o.is_none_or(|n| self.nodes[n as usize].failed))
        {
            ok = false;
        }
        let mut counts = vec![0usize; self.nodes.len()];
        for o in self.slots.iter().flatten() {
            counts[*o as usize] += 1;
        }
        let serving: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].replica_of.is_none() && counts[i] > 0)
            .collect();
        self.size = serving.len();
        let reachable = serving
            .iter()
            .filter(|&&i| !self.nodes[i].failed && !self.nodes[i].pfail)
            .count();
        if reachable < self.size / 2 + 1 {
            ok = false;
            self.among_minority_ms = now_ms;
        }
        if ok != self.ok {
            let rejoin = node_timeout_ms.clamp(MIN_REJOIN_DELAY_MS, MAX_REJOIN_DELAY_MS);
            if ok && self.is_master() && now_ms - self.among_minority_ms < rejoin {
                return;
            }
            self.ok = ok;
        }
    }

    /// `clusterBumpConfigEpochWithoutConsensus`: takes a new epoch unless
    /// this node's is already the unique highest; true if it bumped.
    pub fn bump_epoch(&mut self) -> bool {
        let max = self
            .nodes
            .iter()
            .map(|n| n.config_epoch)
            .max()
            .unwrap_or(0)
            .max(self.current_epoch);
        let me = self.myself;
        if self.nodes[me].config_epoch == 0 || self.nodes[me].config_epoch != max {
            self.current_epoch += 1;
            self.nodes[me].config_epoch = self.current_epoch;
            true
        } else {
            false
        }
    }

    /// One `CLUSTER NODES` line for node `n` (`clusterGenNodeDescription`).
    pub fn node_line(&self, n: usize) -> String {
        let node = &self.nodes[n];
        let mut flags = Vec::new();
        if n == self.myself {
            flags.push("myself");
        }
        flags.push(if node.replica_of.is_some() {
            "slave"
        } else {
            "master"
        });
        if node.pfail {
            flags.push("fail?");
        }
        if node.failed {
            flags.push("fail");
        }
        let master = node
            .replica_of
            .and_then(|m| self.nodes.get(m))
            .map_or("-".to_string(), |m| m.id.clone());
        // A replica reports its master's epoch.
        let epoch = node
            .replica_of
            .and_then(|m| self.nodes.get(m))
            .map_or(node.config_epoch, |m| m.config_epoch);
        let link = if n == self.myself || !(node.failed || node.pfail) {
            "connected"
        } else {
            "disconnected"
        };
        let mut line = format!(
            "{} {}:{}@{} {} {} {} {} {} {}",
            node.id,
            node.ip,
            node.port,
            node.cport,
            flags.join(","),
            master,
            node.ping_sent_ms,
            node.pong_ms,
            epoch,
            link
        );
        for (a, b) in self.slot_ranges(n) {
            if a == b {
                line.push_str(&format!(" {a}"));
            } else {
                line.push_str(&format!(" {a}-{b}"));
            }
        }
        if n == self.myself {
            for s in 0..SLOTS as u16 {
                if let Some(&to) = self.migrating.get(&s) {
                    line.push_str(&format!(" [{s}->-{}]", self.nodes[to].id));
                } else if let Some(&from) = self.importing.get(&s) {
                    line.push_str(&format!(" [{s}-<-{}]", self.nodes[from].id));
                }
            }
        }
        line
    }

    /// The whole `CLUSTER NODES` text, one line per node, each ending in `\n`.
    pub fn nodes_text(&self) -> String {
        let mut out = String::new();
        for n in 0..self.nodes.len() {
            out.push_str(&self.node_line(n));
            out.push('\n');
        }
        out
    }

    /// `CLUSTER INFO`'s text (`genClusterInfoString`). There is no bus, so
    /// no message is ever sent or received.
    pub fn info_text(&self) -> String {
        // One pass, as Redis counts: a FAIL owner's slot is not also PFAIL.
        let (mut assigned, mut failed, mut pfail) = (0, 0, 0);
        for &n in self.slots.iter().flatten() {
            let node = &self.nodes[n as usize];
            assigned += 1;
            if node.failed {
                failed += 1;
            } else if node.pfail {
                pfail += 1;
            }
        }
        let my_epoch = match self.me().replica_of {
            Some(m) => self.nodes[m].config_epoch,
            None => self.me().config_epoch,
        };
        format!(
            "cluster_state:{}\r\ncluster_slots_assigned:{assigned}\r\ncluster_slots_ok:{}\r\n\
             cluster_slots_pfail:{pfail}\r\ncluster_slots_fail:{failed}\r\ncluster_known_nodes:{}\r\n\
             cluster_size:{}\r\ncluster_current_epoch:{}\r\ncluster_my_epoch:{my_epoch}\r\n\
             cluster_stats_messages_sent:0\r\ncluster_stats_messages_received:0\r\n\
             total_cluster_links_buffer_limit_exceeded:0\r\n",
            if self.ok { "ok" } else { "fail" },
            assigned - failed - pfail,
            self.nodes.len(),
            self.size,
            self.current_epoch,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc16_check_value() {
        assert_eq!(crc16(b"123456789"), 0x31C3);
        assert_eq!(crc16(b""), 0);
    }

    #[test]
    fn hash_tags() {
        assert_eq!(key_hash_slot(b"foo"), 12182);
        assert_eq!(
            key_hash_slot(b"{user1000}.following"),
            key_hash_slot(b"user1000")
        );
        assert_eq!(key_hash_slot(b"foo{}{bar}"), crc16(b"foo{}{bar}") & 0x3FFF);
        assert_eq!(key_hash_slot(b"foo{{bar}}zap"), key_hash_slot(b"{bar"));
        assert_eq!(key_hash_slot(b"foo{bar}{zap}"), key_hash_slot(b"bar"));
        assert_eq!(key_hash_slot(b"{"), crc16(b"{") & 0x3FFF);
        assert_eq!(key_hash_slot(b"a{b"), crc16(b"a{b") & 0x3FFF);
    }

    #[test]
    fn slot_runs_and_ranges() {
        let mut c = ClusterState::new(1, 7000);
        for s in [0u16, 1, 2, 5, 16383] {
            c.slots[s as usize] = Some(0);
        }
        assert_eq!(c.slot_ranges(0), vec![(0, 2), (5, 5), (16383, 16383)]);
        assert_eq!(c.slot_runs(), vec![(0, 2, 0), (5, 5, 0), (16383, 16383, 0)]);
        assert!(c.node_line(0).ends_with("connected 0-2 5 16383"));
    }

    #[test]
    fn state_waits_for_the_writable_and_rejoin_delays() {
        let mut c = ClusterState::new(1, 7000);
        c.update_state(0, 0, true, 15000);
        assert!(!c.ok);
        assert_eq!(c.size, 1, "untouched during the writable delay");
        c.update_state(2500, 0, true, 15000);
        assert_eq!(c.size, 0);
        c.slots.iter_mut().for_each(|s| *s = Some(0));
        c.update_state(2600, 0, true, 15000);
        assert!(!c.ok, "rejoin delay after being in a minority");
        c.update_state(2500 + 5000, 0, true, 15000);
        assert!(c.ok);
        c.slots[7] = None;
        c.update_state(7600, 0, true, 15000);
        assert!(c.ok, "an unmarked change is not looked at");
        c.dirty = true;
        c.update_state(7600, 0, true, 15000);
        assert!(!c.ok, "an unassigned slot fails the cluster at once");
        c.update_state(7700, 0, false, 15000);
        assert!(c.ok, "not without full coverage");
    }
}
