//! A replicated topology served with its Sentinels (`TestSentinel`): Redis nodes on their ports, and each sentinel an endpoint of its own that answers SENTINEL, INFO and ROLE from the simulation's sentinel state and publishes its events (`+sdown`, `+switch-master`...) on Pub/Sub, so sentinel-aware clients discover the master and follow a failover.

use std::fmt::Write as _;

use redsim_engine::proto::resp::Frame;
use redsim_engine::{ClientId, Engine, Options};
use redsim_sim::replication::sentinel::SentinelEvent;
use redsim_sim::topology::{Control, TopoOptions, Topology};

/// What sentinels monitor and how: the master's name and the topology.
#[derive(Clone, Debug)]
pub struct SentinelSetup {
    /// The name clients ask for (`mymaster`).
    pub master_name: String,
    pub topology: TopoOptions,
    /// Sentinel `i` listens on this port + `i` (0: free ports).
    pub sentinel_port: u16,
}

/// The Redis nodes (`0..=replicas`) and the sentinel endpoints after them.
pub(crate) struct SentinelHost {
    topo: Topology,
    name: String,
    /// One engine per sentinel endpoint: it keeps the connections, PING,
    /// CLIENT, HELLO and the Pub/Sub that carries the events; SENTINEL,
    /// INFO and ROLE are answered here.
    engines: Vec<Engine>,
    /// The connection each sentinel publishes its events from.
    publisher: Vec<ClientId>,
    addrs: Vec<String>,
    /// Each sentinel's 40-hex-digit id (`SENTINEL MYID`, votes).
    ids: Vec<String>,
    /// The master each sentinel last announced (`+switch-master` names it).
    announced: Vec<usize>,
}

impl SentinelHost {
    /// `node_addrs` for the Redis nodes, `sentinel_addrs` for the sentinels.
    pub fn new(
        setup: SentinelSetup,
        node_addrs: Vec<String>,
        sentinel_addrs: Vec<String>,
        seed: u64,
        unix_base_us: u64,
    ) -> SentinelHost {
        let mut topo = Topology::served(setup.topology, node_addrs);
        let n = topo.node_count();
        for i in 0..n {
            topo.engine_mut(i).set_unix_base_us(unix_base_us);
        }
        let count = topo.sentinels().s.len();
        let mut engines = Vec::with_capacity(count);
        let mut publisher = Vec::with_capacity(count);
        for s in 0..count {
            let mut o = Options::new(seed.wrapping_add(1000 + s as u64));
            o.trace_capacity = 0;
            let mut e = Engine::with_options(o);
            e.set_unix_base_us(unix_base_us);
            publisher.push(e.connect("sentinel-events"));
            engines.push(e);
        }
        let ids = (0..count).map(|s| sentinel_id(seed, s)).collect();
        let mut addrs: Vec<String> = (0..n).map(|i| topo.addr_of(i).to_string()).collect();
        addrs.extend(sentinel_addrs);
        SentinelHost {
            announced: vec![0; count],
            topo,
            name: setup.master_name,
            engines,
            publisher,
            addrs,
            ids,
        }
    }

    pub fn topology(&mut self) -> &mut Topology {
        &mut self.topo
    }

    fn redis_nodes(&self) -> usize {
        self.topo.node_count()
    }

    pub fn nodes(&self) -> usize {
        self.redis_nodes() + self.engines.len()
    }

    pub fn engine(&self, node: usize) -> &Engine {
        match node.checked_sub(self.redis_nodes()) {
            None => self.topo.engine(node),
            Some(s) => &self.engines[s],
        }
    }

    pub fn engine_mut(&mut self, node: usize) -> &mut Engine {
        match node.checked_sub(self.redis_nodes()) {
            None => self.topo.engine_mut(node),
            Some(s) => &mut self.engines[s],
        }
    }

    /// Kills Redis node `node` (false for a sentinel endpoint).
    pub fn kill_node(&mut self, node: usize) -> bool {
        if node >= self.redis_nodes() {
            return false;
        }
        let kill = Control::Kill {
            node,
            power_loss: false,
        };
        let _ = self.topo.control(kill);
        true
    }

    pub fn is_down(&self, node: usize) -> bool {
        node < self.redis_nodes() && !self.topo.is_alive(node)
    }

    pub fn now_us(&self) -> u64 {
        self.topo.now_us()
    }

    /// Everything to `now_us`: the topology's events (sentinel ticks, the
    /// links), the sentinels' own engines, then their events published.
    pub fn advance_to(&mut self, now_us: u64) {
        self.topo.advance_to(now_us);
        for e in &mut self.engines {
            e.advance_to(now_us);
        }
        self.publish_events();
    }

    /// After a command on `node`: a node's writes leave on the links.
    pub fn served(&mut self, node: usize) {
        if node < self.redis_nodes() {
            self.topo.served_command();
        }
        self.publish_events();
    }

    pub fn next_due_us(&self) -> u64 {
        let sentinels = self.engines.iter().map(|e| e.next_cron_us());
        sentinels
            .chain([self.topo.next_event_us()])
            .min()
            .unwrap_or(0)
    }

    /// A sentinel endpoint's own commands; `None`: the engine answers
    /// (PING, CLIENT, HELLO, SUBSCRIBE...). Commands a sentinel does not
    /// have are unknown there, as on a real one.
    pub fn intercept(&mut self, node: usize, args: &[Vec<u8>]) -> Option<Frame> {
        let s = node.checked_sub(self.redis_nodes())?;
        let name = String::from_utf8_lossy(&args[0]).to_ascii_lowercase();
        match name.as_str() {
            "sentinel" => Some(self.sentinel_command(s, args)),
            "info" => Some(Frame::Verbatim(*b"txt", self.info(s).into_bytes())),
            "role" => Some(Frame::Array(vec![
                Frame::Bulk(b"sentinel".to_vec()),
                Frame::Array(vec![Frame::Bulk(self.name.clone().into_bytes())]),
            ])),
            "ping" | "client" | "hello" | "auth" | "command" | "subscribe" | "psubscribe"
            | "unsubscribe" | "punsubscribe" | "publish" | "quit" | "reset" | "echo" => None,
            _ => Some(redsim_engine::cmd::unknown_command(args)),
        }
    }

    fn ip_port(&self, node: usize) -> (String, String) {
        let (ip, port) = self.addrs[node]
            .rsplit_once(':')
            .unwrap_or(("127.0.0.1", "0"));
        (ip.to_string(), port.to_string())
    }

    /// `SENTINEL <subcommand> ...` on sentinel `s`.
    fn sentinel_command(&mut self, s: usize, args: &[Vec<u8>]) -> Frame {
        if args.len() < 2 {
            return Frame::err("ERR wrong number of arguments for 'sentinel' command");
        }
        let sub = String::from_utf8_lossy(&args[1]).to_ascii_lowercase();
        let named = |n: usize| args.len() == n + 2;
        let bad_arity = || {
            Frame::err(format!(
                "ERR wrong number of arguments for 'sentinel|{sub}' command"
            ))
        };
        let is_ours = |i: usize| args.get(i).is_some_and(|a| a == self.name.as_bytes());
        let no_such = || Frame::err("ERR No such master with that name");
        match sub.as_str() {
            "get-master-addr-by-name" => {
                if !named(1) {
                    return bad_arity();
                }
                if !is_ours(2) {
                    return Frame::NullArray;
                }
                let (ip, port) = self.ip_port(self.topo.sentinels().s[s].master);
                Frame::Array(vec![
                    Frame::Bulk(ip.into_bytes()),
                    Frame::Bulk(port.into_bytes()),
                ])
            }
            "masters" => Frame::Array(vec![self.master_state(s)]),
            "master" if !named(1) => bad_arity(),
            "master" if !is_ours(2) => no_such(),
            "master" => self.master_state(s),
            "replicas" | "slaves" if !named(1) => bad_arity(),
            "replicas" | "slaves" if !is_ours(2) => no_such(),
            "replicas" | "slaves" => Frame::Array(self.replica_states(s)),
            "sentinels" if !named(1) => bad_arity(),
            "sentinels" if !is_ours(2) => no_such(),
            "sentinels" => Frame::Array(self.sentinel_states(s)),
            "failover" if !named(1) => bad_arity(),
            "failover" if !is_ours(2) => no_such(),
            "failover" => match self.topo.control(Control::Failover) {
                Ok(()) => {
                    self.publish_events();
                    Frame::ok()
                }
                Err(e) => Frame::err(e.trim_start_matches('-').to_string()),
            },
            "ckquorum" if !named(1) => bad_arity(),
            "ckquorum" if !is_ours(2) => no_such(),
            "ckquorum" => {
                let count = self.engines.len();
                let quorum = self.topo.sentinels().cfg.quorum;
                if count < quorum {
                    Frame::err(format!(
                        "NOQUORUM {count} usable Sentinels. Not enough available Sentinels to reach the specified quorum for this master"
                    ))
                } else {
                    Frame::Simple(
                        format!("OK {count} usable Sentinels. Quorum and failover authorization can be reached")
                            .into(),
                    )
                }
            }
            "myid" => Frame::Bulk(self.ids[s].clone().into_bytes()),
            _ => Frame::err(format!(
                "ERR unknown subcommand '{}'. Try SENTINEL HELP.",
                String::from_utf8_lossy(&args[1])
            )),
        }
    }

    /// Field/value pairs as sentinel.c's `addReplySentinelRedisInstance`
    /// gives them: a map in RESP3, a flat array in RESP2.
    fn fields(pairs: Vec<(&str, String)>) -> Frame {
        Frame::Map(
            pairs
                .into_iter()
                .map(|(k, v)| {
                    (
                        Frame::Bulk(k.as_bytes().to_vec()),
                        Frame::Bulk(v.into_bytes()),
                    )
                })
                .collect(),
        )
    }

    fn master_state(&self, s: usize) -> Frame {
        let st = &self.topo.sentinels().s[s];
        let m = st.master;
        let (ip, port) = self.ip_port(m);
        let mut flags = "master".to_string();
        if st.sdown_since.is_some() {
            flags.push_str(",s_down");
        }
        if st.odown {
            flags.push_str(",o_down");
        }
        let cfg = &self.topo.sentinels().cfg;
        Self::fields(vec![
            ("name", self.name.clone()),
            ("ip", ip),
            ("port", port),
            ("runid", self.topo.run_id(m).to_string()),
            ("flags", flags),
            ("link-pending-commands", "0".into()),
            ("link-refcount", "1".into()),
            ("last-ping-sent", "0".into()),
            ("last-ok-ping-reply", "0".into()),
            ("last-ping-reply", "0".into()),
            (
                "down-after-milliseconds",
                (cfg.down_after_us / 1000).to_string(),
            ),
            ("info-refresh", "0".into()),
            ("role-reported", "master".into()),
            ("role-reported-time", "0".into()),
            ("config-epoch", st.config_epoch.to_string()),
            ("num-slaves", self.replicas_of(m).len().to_string()),
            ("num-other-sentinels", (self.engines.len() - 1).to_string()),
            ("quorum", cfg.quorum.to_string()),
            (
                "failover-timeout",
                (cfg.failover_timeout_us / 1000).to_string(),
            ),
            ("parallel-syncs", "1".into()),
        ])
    }

    /// The nodes other than `m` (sentinels know every replica they were
    /// told of, down or not).
    fn replicas_of(&self, m: usize) -> Vec<usize> {
        (0..self.redis_nodes()).filter(|&n| n != m).collect()
    }

    fn replica_states(&self, s: usize) -> Vec<Frame> {
        let m = self.topo.sentinels().s[s].master;
        let (mip, mport) = self.ip_port(m);
        self.replicas_of(m)
            .into_iter()
            .map(|r| {
                let (ip, port) = self.ip_port(r);
                let alive = self.topo.is_alive(r);
                let e = self.topo.engine(r);
                let replica = e.repl().is_replica();
                let mut flags = if replica { "slave" } else { "master" }.to_string();
                if !alive {
                    flags.push_str(",s_down,disconnected");
                }
                Self::fields(vec![
                    ("name", format!("{ip}:{port}")),
                    ("ip", ip),
                    ("port", port),
                    ("runid", self.topo.run_id(r).to_string()),
                    ("flags", flags),
                    ("link-pending-commands", "0".into()),
                    ("link-refcount", "1".into()),
                    (
                        "role-reported",
                        if replica { "slave" } else { "master" }.into(),
                    ),
                    (
                        "master-link-status",
                        if alive && replica { "ok" } else { "err" }.into(),
                    ),
                    ("master-host", mip.clone()),
                    ("master-port", mport.clone()),
                    ("slave-priority", e.config().replica_priority.to_string()),
                    ("slave-repl-offset", e.repl().offset.to_string()),
                ])
            })
            .collect()
    }

    fn sentinel_states(&self, s: usize) -> Vec<Frame> {
        let first = self.redis_nodes();
        (0..self.engines.len())
            .filter(|&o| o != s)
            .map(|o| {
                let (ip, port) = self.ip_port(first + o);
                Self::fields(vec![
                    ("name", self.ids[o].clone()),
                    ("ip", ip),
                    ("port", port),
                    ("runid", self.ids[o].clone()),
                    ("flags", "sentinel".into()),
                    ("voted-leader", "?".into()),
                    ("voted-leader-epoch", "0".into()),
                ])
            })
            .collect()
    }

    /// INFO on a sentinel: its server line and the Sentinel section.
    fn info(&self, s: usize) -> String {
        let st = &self.topo.sentinels().s[s];
        let (ip, port) = self.ip_port(st.master);
        let (_, own_port) = self.ip_port(self.redis_nodes() + s);
        let status = if st.odown { "odown" } else { "ok" };
        let mut o = String::new();
        let _ = write!(
            o,
            "# Server\r\nredis_version:{}\r\nredis_mode:sentinel\r\ntcp_port:{own_port}\r\n\r\n\
             # Sentinel\r\nsentinel_masters:1\r\nsentinel_tilt:0\r\nsentinel_tilt_since_seconds:-1\r\n\
             sentinel_running_scripts:0\r\nsentinel_scripts_queue_length:0\r\n\
             sentinel_simulate_failure_flags:0\r\n\
             master0:name={},status={status},address={ip}:{port},slaves={},sentinels={}\r\n",
            redsim_engine::REDIS_VERSION,
            self.name,
            self.replicas_of(st.master).len(),
            self.engines.len()
        );
        o
    }

    /// `<type> <name> <ip> <port> [@ <master name> <ip> <port>]` as
    /// sentinel.c's `sentinelEvent` formats an instance, the master being
    /// the one sentinel `s` has announced so far (a replica being promoted
    /// is still a slave of the old master until `+switch-master`).
    fn instance(&self, s: usize, node: usize) -> String {
        let m = self.announced[s];
        let (ip, port) = self.ip_port(node);
        if node == m {
            format!("master {} {ip} {port}", self.name)
        } else {
            let (mip, mport) = self.ip_port(m);
            format!(
                "slave {ip}:{port} {ip} {port} @ {} {mip} {mport}",
                self.name
            )
        }
    }

    fn publish(&mut self, s: usize, channel: &str, message: String) {
        let args = [
            b"PUBLISH".to_vec(),
            channel.as_bytes().to_vec(),
            message.into_bytes(),
        ];
        let _ = self.engines[s].execute(self.publisher[s], &args);
    }

    /// Publishes what the sentinels did on each one's own Pub/Sub, with
    /// the channel names and messages Redis' sentinels use.
    fn publish_events(&mut self) {
        for (_, ev) in self.topo.take_sentinel_events() {
            self.publish_event(ev);
        }
    }

    fn publish_event(&mut self, ev: SentinelEvent) {
        let master_of = |h: &Self, s: usize| h.announced[s];
        match ev {
            SentinelEvent::Sdown { sentinel, node } => {
                let text = self.instance(sentinel, node);
                self.publish(sentinel, "+sdown", text);
            }
            SentinelEvent::SdownCleared { sentinel, node } => {
                let text = self.instance(sentinel, node);
                self.publish(sentinel, "-sdown", text);
            }
            SentinelEvent::Odown {
                sentinel,
                node,
                agree,
            } => {
                let quorum = self.topo.sentinels().cfg.quorum;
                let text = format!("{} #quorum {agree}/{quorum}", self.instance(sentinel, node));
                self.publish(sentinel, "+odown", text);
            }
            SentinelEvent::TryFailover { sentinel, epoch } => {
                self.publish(sentinel, "+new-epoch", epoch.to_string());
                let text = self.instance(sentinel, master_of(self, sentinel));
                self.publish(sentinel, "+try-failover", text);
            }
            SentinelEvent::Vote {
                sentinel,
                for_sentinel,
                epoch,
            } => {
                let text = format!("{} {epoch}", self.ids[for_sentinel]);
                self.publish(sentinel, "+vote-for-leader", text);
            }
            SentinelEvent::Elected { sentinel, .. } => {
                let text = self.instance(sentinel, master_of(self, sentinel));
                self.publish(sentinel, "+elected-leader", text);
            }
            SentinelEvent::ElectionFailed { sentinel, .. } => {
                let text = self.instance(sentinel, master_of(self, sentinel));
                self.publish(sentinel, "-failover-abort-not-elected", text);
            }
            SentinelEvent::NoGoodReplica { sentinel } => {
                let text = self.instance(sentinel, master_of(self, sentinel));
                self.publish(sentinel, "-failover-abort-no-good-slave", text);
            }
            SentinelEvent::Promoted { sentinel, node } => {
                let text = self.instance(sentinel, node);
                self.publish(sentinel, "+selected-slave", text.clone());
                self.publish(sentinel, "+promoted-slave", text);
            }
            SentinelEvent::SwitchMaster {
                sentinel, from, to, ..
            } => {
                let (fip, fport) = self.ip_port(from);
                self.publish(
                    sentinel,
                    "+failover-end",
                    format!("master {} {fip} {fport}", self.name),
                );
                self.switch(sentinel, from, to);
            }
            SentinelEvent::ConfigUpdate {
                sentinel, master, ..
            } => {
                let from = self.announced[sentinel];
                if from != master {
                    let text = self.instance(sentinel, master);
                    self.publish(sentinel, "+config-update-from", text);
                    self.switch(sentinel, from, master);
                }
            }
            SentinelEvent::Repoint { sentinel, node, .. } => {
                let text = self.instance(sentinel, node);
                self.publish(sentinel, "+slave-reconf-sent", text);
            }
            SentinelEvent::ConvertToReplica { sentinel, node, .. } => {
                let text = self.instance(sentinel, node);
                self.publish(sentinel, "+convert-to-slave", text);
            }
        }
    }

    /// `+switch-master <name> <old ip> <old port> <new ip> <new port>`.
    fn switch(&mut self, s: usize, from: usize, to: usize) {
        self.announced[s] = to;
        let (fip, fport) = self.ip_port(from);
        let (tip, tport) = self.ip_port(to);
        let text = format!("{} {fip} {fport} {tip} {tport}", self.name);
        self.publish(s, "+switch-master", text);
    }
}

/// Sentinel `s`'s 40-hex-digit id, from the seed (the same run, the same ids).
fn sentinel_id(seed: u64, s: usize) -> String {
    let hash = redsim_engine::keyspace::dict::hash_bytes;
    (0u8..3)
        .map(|i| format!("{:016x}", hash(seed, &[b's', s as u8, i])))
        .collect::<String>()[..40]
        .to_string()
}
