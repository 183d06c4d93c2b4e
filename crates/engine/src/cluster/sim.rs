//! A simulated Redis Cluster: N master engines (and optional replicas) on one virtual clock, each owning slot ranges, with gossip played instantly, slot migration by a modelled MIGRATE that stalls both nodes, node failures, load counters for a heat map, and a cluster-aware client that follows MOVED and ASK.
//!
//! Every node is a full [`Engine`] in cluster mode, so a node answers
//! exactly as the single-node server does: `-MOVED`, `-ASK`, `-TRYAGAIN`,
//! `-CROSSSLOT` and `-CLUSTERDOWN` come from the same `getNodeByQuery`.
//! What the real cluster does over its bus is done here by [`Cluster`]
//! between commands: slot claims spread by config epoch (as
//! `clusterUpdateSlotsConfigWith` does), failure flags reach every view.
//!
//! Time: each node serves one command at a time. A request sent at the
//! cluster's `now` starts when its node is free (`busy_until`), so a big
//! key's MIGRATE, which keeps source and target busy, delays what is sent
//! to either meanwhile; the delay shows in [`Sent::latency_us`].

use std::collections::BTreeMap;

use super::{key_hash_slot, Node, SLOTS};
use crate::config::Config;
use crate::engine::{ClientId, Engine, Options};
use crate::resp::Frame;
use crate::trace::DeleteCause;

/// What a modelled MIGRATE costs: a fixed round trip plus a time per byte
/// of the key's size, spent by both the source (DUMP, send, wait) and the
/// target (RESTORE) since MIGRATE is synchronous.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MigrateCost {
    pub base_us: u64,
    /// Nanoseconds per byte (10 ns: 100 MB/s).
    pub ns_per_byte: u64,
}

impl MigrateCost {
    /// Microseconds to move a key of `bytes`.
    pub fn of(&self, bytes: u64) -> u64 {
        self.base_us + bytes.saturating_mul(self.ns_per_byte) / 1000
    }
}

/// How to build a [`Cluster`].
#[derive(Clone, Debug)]
pub struct SimOptions {
    pub seed: u64,
    pub masters: usize,
    pub replicas_per_master: usize,
    /// Node `i` listens on `127.0.0.1:base_port + i` (bus port + 10000).
    pub base_port: u16,
    /// Configuration every node starts with (`cluster-enabled` is forced on).
    pub config: Config,
    pub migrate: MigrateCost,
    /// Service time of one command on a node, in µs.
    pub command_us: u64,
    /// Replicas apply each successful write their master executes (the
    /// command itself, not its effects: replication proper is elsewhere).
    pub replicate_writes: bool,
}

impl SimOptions {
    /// `masters` masters without replicas, Redis' default configuration.
    pub fn new(seed: u64, masters: usize) -> SimOptions {
        SimOptions {
            seed,
            masters,
            replicas_per_master: 0,
            base_port: 7000,
            config: Config::default(),
            migrate: MigrateCost {
                base_us: 200,
                ns_per_byte: 10,
            },
            command_us: 5,
            replicate_writes: true,
        }
    }
}

/// Per-node counters for a heat map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeLoad {
    /// Commands the node executed.
    pub commands: u64,
    /// Microseconds requests waited for the node to be free.
    pub waited_us: u64,
    /// Microseconds the node spent in MIGRATE (as source or target).
    pub migrating_us: u64,
    pub keys_migrated_out: u64,
    pub keys_migrated_in: u64,
}

/// One node of the simulation.
pub struct SimNode {
    pub engine: Engine,
    /// `127.0.0.1:port`.
    pub addr: String,
    /// When the node is free again, in virtual µs.
    pub busy_until_us: u64,
    /// Down: requests to it fail as a refused connection would.
    pub down: bool,
    pub load: NodeLoad,
    /// The engine connection of each simulated client.
    conns: BTreeMap<u64, ClientId>,
    /// The connection the cluster's own administration uses.
    admin: ClientId,
    /// The replication link's connection (never redirected).
    link: ClientId,
}

/// A reply and when it was served.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    pub reply: Frame,
    pub node: usize,
    /// When the node started on it, and when it answered.
    pub start_us: u64,
    pub end_us: u64,
    /// From sending (the cluster's `now`) to the answer.
    pub latency_us: u64,
}

/// What moving one key cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigratedKey {
    pub key: Vec<u8>,
    pub bytes: u64,
    pub start_us: u64,
    pub end_us: u64,
}

/// The whole simulated cluster.
pub struct Cluster {
    pub nodes: Vec<SimNode>,
    pub opts: SimOptions,
    now_us: u64,
    next_client: u64,
}

/// `127.0.0.1:port` of node `i`.
fn addr_of(opts: &SimOptions, i: usize) -> (String, u16) {
    let port = opts.base_port.wrapping_add(i as u16);
    ("127.0.0.1".to_string(), port)
}

impl Cluster {
    /// Builds the cluster as `redis-cli --cluster create` would: slots split
    /// evenly among the masters, config epochs 1..=masters, replicas
    /// assigned in order, every node knowing every other. Nodes boot at 0;
    /// the cluster is returned at 2 s, once Redis' writable delay has passed
    /// and the state is OK.
    pub fn new(opts: SimOptions) -> Cluster {
        let total = opts.masters * (1 + opts.replicas_per_master);
        let mut nodes = Vec::with_capacity(total);
        let mut config = opts.config.clone();
        config.cluster_enabled = true;
        for i in 0..total {
            let mut c = config.clone();
            let (_, port) = addr_of(&opts, i);
            c.port = port;
            let seed = opts.seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
            let mut o = Options::new(seed);
            o.config = c;
            let mut engine = Engine::with_options(o);
            let admin = engine.connect("cluster-admin");
            let link = engine.connect("replication-link");
            let (ip, port) = addr_of(&opts, i);
            nodes.push(SimNode {
                engine,
                addr: format!("{ip}:{port}"),
                busy_until_us: 0,
                down: false,
                load: NodeLoad::default(),
                conns: BTreeMap::new(),
                admin,
                link,
            });
        }
        // The shared node table: each node's own id, the address it was met at.
        let mut table: Vec<Node> = nodes
            .iter()
            .map(|n| {
                let me = n.engine.server().cluster.as_ref().expect("cluster mode");
                me.me().clone()
            })
            .collect();
        for (i, node) in table.iter_mut().enumerate() {
            let (ip, port) = addr_of(&opts, i);
            node.ip = ip;
            node.port = port;
            node.cport = port.wrapping_add(10000);
            if i < opts.masters {
                node.config_epoch = i as u64 + 1;
            } else {
                node.replica_of = Some((i - opts.masters) % opts.masters.max(1));
            }
        }
        // Replicas share their master's shard id.
        for i in opts.masters..total {
            if let Some(m) = table[i].replica_of {
                table[i].shard_id = table[m].shard_id.clone();
            }
        }
        let ranges = even_ranges(opts.masters);
        for (i, n) in nodes.iter_mut().enumerate() {
            let link = n.link;
            let cl = n
                .engine
                .server_mut()
                .cluster
                .as_mut()
                .expect("cluster mode");
            cl.nodes = table.clone();
            cl.myself = i;
            cl.current_epoch = opts.masters as u64;
            for (m, (a, b)) in ranges.iter().enumerate() {
                for s in *a..=*b {
                    cl.slots[s as usize] = Some(m as u16);
                }
            }
            cl.obey.insert(link);
        }
        let mut cluster = Cluster {
            nodes,
            opts,
            now_us: 0,
            // Above any id a caller of `send` would pick for its own connections.
            next_client: 1 << 32,
        };
        cluster.refresh_states();
        cluster.advance_to(2_000_000);
        cluster
    }

    /// The cluster's virtual time, µs.
    pub fn now_us(&self) -> u64 {
        self.now_us
    }

    /// Moves every node's clock to `t_us` (their crons run on the way).
    pub fn advance_to(&mut self, t_us: u64) {
        self.now_us = self.now_us.max(t_us);
        for n in &mut self.nodes {
            n.engine.advance_to(self.now_us);
        }
        self.refresh_states();
    }

    /// Moves only the cluster's own time (when the next request is sent);
    /// each node's clock catches up when it serves that request. Load
    /// loops sending thousands of requests use it because a full
    /// [`Cluster::advance_to`] re-checks every node's 16384-slot state.
    pub fn set_now(&mut self, t_us: u64) {
        self.now_us = self.now_us.max(t_us);
    }

    /// Moves time forward by `d_us`.
    pub fn advance_by(&mut self, d_us: u64) {
        self.advance_to(self.now_us + d_us);
    }

    /// Brings every node's `cluster_state` up to date.
    fn refresh_states(&mut self) {
        for n in &mut self.nodes {
            if let Some(cl) = n.engine.server_mut().cluster.as_mut() {
                // The cluster's own changes (gossip, failures) bypass the commands.
                cl.dirty = true;
            }
            crate::cmd::cluster::refresh(n.engine.server_mut());
        }
    }

    /// Node `i`'s view of the cluster.
    pub fn view(&self, i: usize) -> &super::ClusterState {
        self.nodes[i]
            .engine
            .server()
            .cluster
            .as_ref()
            .expect("cluster mode")
    }

    fn view_mut(&mut self, i: usize) -> &mut super::ClusterState {
        self.nodes[i]
            .engine
            .server_mut()
            .cluster
            .as_mut()
            .expect("cluster mode")
    }

    /// The node listening on `addr` (`ip:port`).
    pub fn node_at(&self, addr: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.addr == addr)
    }

    /// Node `i`'s id.
    pub fn node_id(&self, i: usize) -> String {
        self.view(i).me().id.clone()
    }

    /// A new simulated connection identity, used by [`SimClient`].
    fn new_client_id(&mut self) -> u64 {
        let id = self.next_client;
        self.next_client += 1;
        id
    }

    /// Sends `args` to node `node` on simulated connection `conn` at the
    /// cluster's `now`: it waits for the node to be free, runs, and the
    /// node is busy for `command_us` more. Cluster gossip runs afterwards
    /// if the command changed the topology.
    pub fn send(&mut self, node: usize, conn: u64, args: &[Vec<u8>]) -> Sent {
        let now = self.now_us;
        let cost = self.opts.command_us;
        let n = &mut self.nodes[node];
        if n.down {
            return Sent {
                reply: Frame::err(format!(
                    "ERR redsim: {} is down (connection refused)",
                    n.addr
                )),
                node,
                start_us: now,
                end_us: now,
                latency_us: 0,
            };
        }
        let cid = match n.conns.get(&conn) {
            Some(&c) => c,
            None => {
                let c = n.engine.connect(&format!("sim-client-{conn}"));
                n.conns.insert(conn, c);
                c
            }
        };
        let start = now.max(n.busy_until_us);
        n.load.waited_us += start - now;
        n.engine.advance_to(start);
        let reply = n.engine.execute(cid, args);
        n.engine.before_sleep();
        n.load.commands += 1;
        let end = start + cost;
        n.busy_until_us = end;
        let topology = args
            .first()
            .is_some_and(|a| a.eq_ignore_ascii_case(b"cluster"));
        if !reply.is_error() && self.opts.replicate_writes {
            self.replicate(node, args);
        }
        if topology {
            self.gossip();
        }
        Sent {
            reply,
            node,
            start_us: start,
            end_us: end,
            latency_us: end - now,
        }
    }

    /// Runs a redis-cli style line on node `node` through its admin connection.
    pub fn admin(&mut self, node: usize, line: &str) -> Frame {
        let args = crate::resp::split_args(line.as_bytes()).unwrap_or_default();
        let conn = self.nodes[node].admin;
        let n = &mut self.nodes[node];
        n.engine.advance_to(self.now_us.max(n.busy_until_us));
        let reply = n.engine.execute(conn, &args);
        if args
            .first()
            .is_some_and(|a| a.eq_ignore_ascii_case(b"cluster"))
        {
            self.gossip();
        }
        reply
    }

    /// The extension point for replication: a master's successful write is
    /// applied by its replicas through their replication link, which is
    /// never redirected (`mustObeyClient`).
    fn replicate(&mut self, node: usize, args: &[Vec<u8>]) {
        let Some(cmd) = args.first().and_then(|a| crate::cmd::lookup(a)) else {
            return;
        };
        if !cmd.has_flag("write") {
            return;
        }
        let replicas = self.view(node).replicas_of(node);
        for r in replicas {
            let rn = &mut self.nodes[r];
            if rn.down {
                continue;
            }
            let link = rn.link;
            rn.engine.advance_to(self.now_us);
            rn.engine.execute(link, args);
        }
    }

    /// The cluster bus, played instantly: every live master's slot claims
    /// reach every other node and win where their config epoch is higher
    /// than the current owner's (`clusterUpdateSlotsConfigWith`), skipping
    /// slots a node is importing. A master left with no slot after losing
    /// some becomes a replica of the winner. Equal epochs between masters
    /// are resolved as `clusterHandleConfigEpochCollision` does.
    pub fn gossip(&mut self) {
        let count = self.nodes.len();
        // Config epoch collisions: the node with the smaller id takes a new epoch.
        loop {
            let mut collided = None;
            'scan: for a in 0..count {
                for b in 0..count {
                    let (va, vb) = (self.view(a), self.view(b));
                    if a != b
                        && va.is_master()
                        && vb.is_master()
                        && va.me().config_epoch == vb.me().config_epoch
                        && va.me().id < vb.me().id
                        && !self.nodes[a].down
                        && !self.nodes[b].down
                    {
                        collided = Some(a);
                        break 'scan;
                    }
                }
            }
            let Some(a) = collided else { break };
            let top = (0..count)
                .map(|i| self.view(i).current_epoch)
                .max()
                .unwrap_or(0);
            let v = self.view_mut(a);
            v.current_epoch = top + 1;
            let me = v.myself;
            v.nodes[me].config_epoch = top + 1;
        }
        for a in 0..count {
            if self.nodes[a].down {
                continue;
            }
            let (me, claims, epoch, replica_of, current) = {
                let v = self.view(a);
                let claims: Vec<u16> = (0..SLOTS as u16)
                    .filter(|&s| v.owner(s) == Some(a))
                    .collect();
                (
                    v.me().clone(),
                    claims,
                    v.me().config_epoch,
                    v.me().replica_of,
                    v.current_epoch,
                )
            };
            for b in 0..count {
                if b == a || self.nodes[b].down {
                    continue;
                }
                let mut lost_keys: Vec<u16> = Vec::new();
                {
                    let v = self.view_mut(b);
                    v.current_epoch = v.current_epoch.max(current);
                    v.nodes[a].config_epoch = epoch;
                    v.nodes[a].replica_of = replica_of;
                    v.nodes[a].failed = me.failed;
                    if replica_of.is_some() {
                        continue;
                    }
                    let mut lost = false;
                    for &s in &claims {
                        if v.importing.contains_key(&s) {
                            continue;
                        }
                        let cur = v.owner(s);
                        if cur == Some(a) {
                            continue;
                        }
                        let wins = cur.is_none_or(|o| v.nodes[o].config_epoch < epoch);
                        if wins {
                            if cur == Some(b) {
                                lost = true;
                                lost_keys.push(s);
                            }
                            v.slots[s as usize] = Some(a as u16);
                        }
                    }
                    if lost && v.is_master() && v.slot_count(b) == 0 {
                        let me_b = v.myself;
                        v.nodes[me_b].replica_of = Some(a);
                    }
                }
                // Keys left in a slot this node lost are deleted (dirty slots).
                for s in lost_keys {
                    let srv = self.nodes[b].engine.server_mut();
                    for k in crate::cmd::cluster::keys_in_slot(srv, s) {
                        srv.delete(0, &k, DeleteCause::Del);
                    }
                }
            }
        }
        self.refresh_states();
    }

    /// Marks node `i` down: it stops answering and every other node flags
    /// it FAIL (as after `cluster-node-timeout` and the failure reports).
    pub fn fail_node(&mut self, i: usize) {
        self.set_failed(i, true);
    }

    /// Brings node `i` back and clears its FAIL flag everywhere.
    pub fn recover_node(&mut self, i: usize) {
        self.set_failed(i, false);
    }

    fn set_failed(&mut self, i: usize, failed: bool) {
        self.nodes[i].down = failed;
        for b in 0..self.nodes.len() {
            if b != i {
                self.view_mut(b).nodes[i].failed = failed;
            }
        }
        self.refresh_states();
    }

    /// Starts moving `slot` to master `to` (`redis-cli --cluster reshard`'s
    /// first steps): SETSLOT IMPORTING on the target, MIGRATING on the source.
    pub fn begin_migration(&mut self, slot: u16, to: usize) -> Result<usize, Frame> {
        let from = self
            .view(to)
            .owner(slot)
            .ok_or_else(|| Frame::err("ERR slot has no owner"))?;
        let (from_id, to_id) = (self.node_id(from), self.node_id(to));
        let r = self.admin(to, &format!("CLUSTER SETSLOT {slot} IMPORTING {from_id}"));
        if r.is_error() {
            return Err(r);
        }
        let r = self.admin(from, &format!("CLUSTER SETSLOT {slot} MIGRATING {to_id}"));
        if r.is_error() {
            return Err(r);
        }
        Ok(from)
    }

    /// Moves up to `count` keys of `slot` from its migrating source to the
    /// importing target, one modelled MIGRATE each, in GETKEYSINSLOT order.
    pub fn migrate_keys(&mut self, slot: u16, count: usize) -> Vec<MigratedKey> {
        let Some((from, to)) = self.migration_of(slot) else {
            return Vec::new();
        };
        let keys = crate::cmd::cluster::keys_in_slot(self.nodes[from].engine.server(), slot);
        keys.into_iter()
            .take(count)
            .filter_map(|k| self.migrate_key(from, to, &k))
            .collect()
    }

    /// `(source, target)` of a slot being migrated.
    pub fn migration_of(&self, slot: u16) -> Option<(usize, usize)> {
        (0..self.nodes.len()).find_map(|i| self.view(i).migrating.get(&slot).map(|&to| (i, to)))
    }

    /// The modelled MIGRATE of one key: from the moment both nodes are
    /// free, both are busy for the key's transfer time; the key leaves the
    /// source and lands on the target (TTL kept) when it ends.
    pub fn migrate_key(&mut self, from: usize, to: usize, key: &[u8]) -> Option<MigratedKey> {
        let start = self
            .now_us
            .max(self.nodes[from].busy_until_us)
            .max(self.nodes[to].busy_until_us);
        for i in [from, to] {
            self.nodes[i].engine.advance_to(start);
        }
        let (value, ttl, bytes) = {
            let srv = self.nodes[from].engine.server_mut();
            if srv.expire_if_needed(0, key) {
                return None;
            }
            let obj = srv.dbs[0].get(key)?;
            let bytes = crate::memory::usage(key, obj) as u64;
            (obj.value.clone(), srv.dbs[0].expire_at(key), bytes)
        };
        let end = start + self.opts.migrate.of(bytes);
        for i in [from, to] {
            let n = &mut self.nodes[i];
            n.busy_until_us = end;
            n.load.migrating_us += end - start;
            n.engine.advance_to(end);
        }
        self.nodes[from]
            .engine
            .server_mut()
            .delete(0, key, DeleteCause::Del);
        let dst = self.nodes[to].engine.server_mut();
        dst.set_key(0, key, value, false);
        if let Some(when) = ttl {
            dst.set_expire(0, key, when);
        }
        self.nodes[from].load.keys_migrated_out += 1;
        self.nodes[to].load.keys_migrated_in += 1;
        Some(MigratedKey {
            key: key.to_vec(),
            bytes,
            start_us: start,
            end_us: end,
        })
    }

    /// Ends a slot's migration as `redis-cli` does: SETSLOT NODE on the
    /// target (which takes a new epoch), then the source, then every other
    /// master; gossip spreads the new owner.
    pub fn finish_migration(&mut self, slot: u16) -> Result<(), Frame> {
        let Some((from, to)) = self.migration_of(slot) else {
            return Err(Frame::err("ERR slot is not being migrated"));
        };
        let to_id = self.node_id(to);
        let line = format!("CLUSTER SETSLOT {slot} NODE {to_id}");
        for i in [to, from] {
            let r = self.admin(i, &line);
            if r.is_error() {
                return Err(r);
            }
        }
        for i in 0..self.opts.masters {
            if i != to && i != from && !self.nodes[i].down {
                self.admin(i, &line);
            }
        }
        Ok(())
    }

    /// Moves a whole slot to master `to`; returns what each key cost.
    pub fn migrate_slot(&mut self, slot: u16, to: usize) -> Result<Vec<MigratedKey>, Frame> {
        self.begin_migration(slot, to)?;
        let mut moved = Vec::new();
        loop {
            let batch = self.migrate_keys(slot, 10);
            if batch.is_empty() {
                break;
            }
            moved.extend(batch);
        }
        self.finish_migration(slot)?;
        Ok(moved)
    }

    /// Keys per slot on node `i` (database 0), for a heat map.
    pub fn keys_per_slot(&self, i: usize) -> BTreeMap<u16, usize> {
        let mut out = BTreeMap::new();
        for (k, _) in self.nodes[i].engine.server().dbs[0].dict.iter() {
            *out.entry(key_hash_slot(k)).or_insert(0) += 1;
        }
        out
    }

    /// Keyed commands served per slot on node `i`.
    pub fn slot_hits(&self, i: usize) -> &BTreeMap<u16, u64> {
        &self.view(i).slot_hits
    }

    /// A new cluster-aware client with an empty slot map.
    pub fn client(&mut self) -> SimClient {
        SimClient {
            conn: self.new_client_id(),
            slots: vec![None; SLOTS],
            stats: ClientStats::default(),
            max_redirects: 16,
        }
    }
}

/// `redis-cli --cluster create`'s split of the slots among `masters`.
pub fn even_ranges(masters: usize) -> Vec<(u16, u16)> {
    if masters == 0 {
        return Vec::new();
    }
    let per = SLOTS as f64 / masters as f64;
    let mut out = Vec::with_capacity(masters);
    let mut first = 0usize;
    let mut cursor = 0f64;
    for m in 0..masters {
        let mut last = (cursor + per - 1.0).round() as usize;
        if last >= SLOTS || m == masters - 1 {
            last = SLOTS - 1;
        }
        out.push((first as u16, last as u16));
        first = last + 1;
        cursor += per;
    }
    out
}

/// What a [`SimClient`] went through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    pub commands: u64,
    pub moved: u64,
    pub ask: u64,
    pub tryagain: u64,
    /// Slot map reloads (CLUSTER SLOTS).
    pub refreshes: u64,
}

/// A cluster-aware client, as redis-py's or Jedis': it caches the slot map
/// from CLUSTER SLOTS, sends each command to the slot's owner, reloads the
/// map on MOVED and follows ASK with ASKING once.
pub struct SimClient {
    conn: u64,
    /// Owner of each slot as last learned.
    pub slots: Vec<Option<usize>>,
    pub stats: ClientStats,
    pub max_redirects: usize,
}

/// A command's outcome through a [`SimClient`].
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub reply: Frame,
    /// The node that gave the final reply.
    pub node: usize,
    /// MOVED and ASK followed for this command.
    pub redirects: u32,
    /// From the first send to the final reply.
    pub latency_us: u64,
}

impl SimClient {
    /// Loads the slot map from node `from` (CLUSTER SLOTS).
    pub fn refresh(&mut self, cluster: &mut Cluster, from: usize) {
        self.stats.refreshes += 1;
        let sent = cluster.send(from, self.conn, &[b"CLUSTER".to_vec(), b"SLOTS".to_vec()]);
        let Frame::Array(ranges) = sent.reply else {
            return;
        };
        self.slots.iter_mut().for_each(|s| *s = None);
        for r in ranges {
            let Frame::Array(parts) = r else { continue };
            let (Some(Frame::Integer(a)), Some(Frame::Integer(b)), Some(Frame::Array(master))) =
                (parts.first(), parts.get(1), parts.get(2))
            else {
                continue;
            };
            let (Some(Frame::Bulk(ip)), Some(Frame::Integer(port))) =
                (master.first(), master.get(1))
            else {
                continue;
            };
            let addr = format!("{}:{port}", String::from_utf8_lossy(ip));
            let Some(node) = cluster.node_at(&addr) else {
                continue;
            };
            for s in (*a).max(0)..=(*b).min(SLOTS as i64 - 1) {
                self.slots[s as usize] = Some(node);
            }
        }
    }

    /// Runs one command: to the owner of its first key's slot (node 0 for
    /// keyless commands or unknown slots), following redirections.
    pub fn run(&mut self, cluster: &mut Cluster, args: &[Vec<u8>]) -> Outcome {
        self.stats.commands += 1;
        let slot = args
            .first()
            .and_then(|a| crate::cmd::lookup(a))
            .map(|cmd| {
                let cmd = match args.get(1) {
                    Some(w) if !cmd.subcommands.is_empty() => cmd.subcommand(w).unwrap_or(cmd),
                    _ => cmd,
                };
                crate::cmd::cluster::key_positions(cmd, args)
            })
            .and_then(|keys| keys.first().map(|&p| key_hash_slot(&args[p])));
        let mut node = slot.and_then(|s| self.slots[s as usize]).unwrap_or(0);
        let mut asking = false;
        let mut redirects = 0;
        let start = cluster.now_us();
        loop {
            if asking {
                cluster.send(node, self.conn, &[b"ASKING".to_vec()]);
            }
            let sent = cluster.send(node, self.conn, args);
            let outcome = |reply: Frame, redirects| Outcome {
                reply,
                node,
                redirects,
                latency_us: sent.end_us - start,
            };
            let Frame::Error(msg) = &sent.reply else {
                return outcome(sent.reply, redirects);
            };
            let mut words = msg.split(' ');
            let (kind, slot_word, addr) = (words.next(), words.next(), words.next());
            let target = addr.and_then(|a| cluster.node_at(a));
            let slot_no = slot_word.and_then(|w| w.parse::<usize>().ok());
            match (kind, target, slot_no) {
                (Some("MOVED"), Some(t), Some(s)) if redirects < self.max_redirects as u32 => {
                    self.stats.moved += 1;
                    redirects += 1;
                    if let Some(slot) = self.slots.get_mut(s) {
                        *slot = Some(t);
                    }
                    self.refresh(cluster, t);
                    node = t;
                    asking = false;
                }
                (Some("ASK"), Some(t), Some(_)) if redirects < self.max_redirects as u32 => {
                    self.stats.ask += 1;
                    redirects += 1;
                    node = t;
                    asking = true;
                }
                (Some("TRYAGAIN"), _, _) => {
                    self.stats.tryagain += 1;
                    return outcome(sent.reply.clone(), redirects);
                }
                _ => return outcome(sent.reply.clone(), redirects),
            }
        }
    }

    /// [`SimClient::run`] for a redis-cli style line.
    pub fn run_line(&mut self, cluster: &mut Cluster, line: &str) -> Outcome {
        let args = crate::resp::split_args(line.as_bytes()).unwrap_or_default();
        self.run(cluster, &args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_ranges_match_redis_cli() {
        assert_eq!(
            even_ranges(3),
            vec![(0, 5460), (5461, 10922), (10923, 16383)]
        );
        assert_eq!(even_ranges(1), vec![(0, 16383)]);
    }
}
