//! A cluster-aware client, as redis-py's or Jedis': a slot map loaded from CLUSTER SLOTS, each command sent to its slot's owner, MOVED reloading the map, ASK followed once with ASKING; or, as `redis-cli -c`, connected to one node and moving to wherever a redirect points. Each redirect followed is kept for a console to show.

use super::Cluster;
use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_engine::proto::resp::Frame;

/// What a [`SimClient`] went through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    pub commands: u64,
    pub moved: u64,
    pub ask: u64,
    pub tryagain: u64,
    /// Slot map reloads (CLUSTER SLOTS).
    pub refreshes: u64,
    /// Commands sent to a node that was down.
    pub refused: u64,
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
    /// `redis-cli -c`: the node it is connected to, which every command goes
    /// to first, and which follows each redirect (`None`: slot map routing).
    pub connected: Option<usize>,
}

/// A redirect a command followed: Redis' error line, and the node it named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hop {
    /// `MOVED <slot> <ip:port>` or `ASK <slot> <ip:port>`, as the node replied.
    pub line: String,
    pub to: usize,
}

/// A command's outcome through a [`SimClient`].
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub reply: Frame,
    /// The node that gave the final reply.
    pub node: usize,
    /// MOVED and ASK followed for this command.
    pub redirects: u32,
    /// Those redirects, in order.
    pub hops: Vec<Hop>,
    /// From the first send to the final reply.
    pub latency_us: u64,
}

impl Cluster {
    /// A new cluster-aware client with an empty slot map.
    pub fn client(&mut self) -> SimClient {
        SimClient {
            conn: self.new_client_id(),
            slots: vec![None; SLOTS],
            stats: ClientStats::default(),
            max_redirects: 16,
            connected: None,
        }
    }

    /// A client as `redis-cli -c -p <node's port>`: connected to `node`, it
    /// sends every command there and moves to the node a MOVED or ASK names
    /// (without loading a slot map), so a console shows each redirect.
    pub fn cli_client(&mut self, node: usize) -> SimClient {
        let mut c = self.client();
        c.connected = Some(node.min(self.nodes.len().saturating_sub(1)));
        c
    }
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
            .and_then(|a| redsim_engine::cmd::lookup(a))
            .map(|cmd| {
                let cmd = match args.get(1) {
                    Some(w) if !cmd.subcommands.is_empty() => cmd.subcommand(w).unwrap_or(cmd),
                    _ => cmd,
                };
                redsim_engine::cmd::cluster::key_positions(cmd, args)
            })
            .and_then(|keys| keys.first().map(|&p| key_hash_slot(&args[p])));
        let mut node = match self.connected {
            Some(n) => n,
            None => slot.and_then(|s| self.slots[s as usize]).unwrap_or(0),
        };
        let mut asking = false;
        let mut redirects = 0;
        let mut hops = Vec::new();
        let start = cluster.now_us();
        loop {
            if asking {
                cluster.send(node, self.conn, &[b"ASKING".to_vec()]);
            }
            let sent = cluster.send(node, self.conn, args);
            if self.connected.is_some() && !cluster.nodes[node].down {
                self.connected = Some(node);
            }
            let outcome = |reply: Frame, redirects, hops| Outcome {
                reply,
                node,
                redirects,
                hops,
                latency_us: sent.end_us - start,
            };
            let Frame::Error(msg) = &sent.reply else {
                return outcome(sent.reply, redirects, hops);
            };
            let mut words = msg.split(' ');
            let (kind, slot_word, addr) = (words.next(), words.next(), words.next());
            let target = addr.and_then(|a| cluster.node_at(a));
            let slot_no = slot_word.and_then(|w| w.parse::<usize>().ok());
            match (kind, target, slot_no) {
                (Some("MOVED"), Some(t), Some(s)) if redirects < self.max_redirects as u32 => {
                    self.stats.moved += 1;
                    redirects += 1;
                    hops.push(Hop {
                        line: msg.to_string(),
                        to: t,
                    });
                    if let Some(slot) = self.slots.get_mut(s) {
                        *slot = Some(t);
                    }
                    if self.connected.is_none() {
                        self.refresh(cluster, t);
                    }
                    node = t;
                    asking = false;
                }
                (Some("ASK"), Some(t), Some(_)) if redirects < self.max_redirects as u32 => {
                    self.stats.ask += 1;
                    redirects += 1;
                    hops.push(Hop {
                        line: msg.to_string(),
                        to: t,
                    });
                    node = t;
                    asking = true;
                }
                (Some("TRYAGAIN"), _, _) => {
                    self.stats.tryagain += 1;
                    return outcome(sent.reply.clone(), redirects, hops);
                }
                _ if msg.ends_with("(connection refused)") => {
                    // As redis-py and Jedis do: reload the slot map from
                    // another node, so a failover is found once it happened.
                    // Connected as redis-cli: the next command goes to the
                    // next live node instead.
                    self.stats.refused += 1;
                    let other = (node + 1) % cluster.nodes.len();
                    match self.connected {
                        Some(_) => {
                            let n = cluster.nodes.len();
                            self.connected = (1..n)
                                .map(|d| (node + d) % n)
                                .find(|&i| !cluster.nodes[i].down)
                                .or(Some(node));
                        }
                        None => self.refresh(cluster, other),
                    }
                    return outcome(sent.reply.clone(), redirects, hops);
                }
                _ => return outcome(sent.reply.clone(), redirects, hops),
            }
        }
    }

    /// [`SimClient::run`] for a redis-cli style line.
    pub fn run_line(&mut self, cluster: &mut Cluster, line: &str) -> Outcome {
        let args = redsim_engine::proto::resp::split_args(line.as_bytes()).unwrap_or_default();
        self.run(cluster, &args)
    }
}
