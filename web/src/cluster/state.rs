//! The Cluster view's state: a small simulated cluster (three masters with a replica each, real engines) with something to look at, the key typed, and the slot migration or failover playing, stepped on the sim clock.
//!
//! Every button, console line and animation step is an [`Action`] for
//! [`SlotMapState::apply`], tested natively; the component draws the
//! canvas and keeps the animation timer running while [`SlotMapState::busy`].

use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_sim::cluster::{BusWhat, Cluster, SimOptions};
use redsim_sim::zipf::Zipf;

const MASTERS: usize = 3;
/// Masters and their replicas.
pub const NODES: usize = 2 * MASTERS;
/// `cluster-node-timeout` of the view's cluster, shorter than Redis' 15 s
/// default so a failover plays in seconds.
const NODE_TIMEOUT_MS: i64 = 5000;
/// Animation period, ms (migration and failover steps).
pub const STEP_MS: u32 = 80;
/// Virtual time per animation step while a failover plays (4× real time).
const FAILOVER_STEP_US: u64 = 4 * STEP_MS as u64 * 1000;
/// How long a failover may play before the view says nobody took over.
const GIVE_UP_AFTER_US: u64 = 6 * NODE_TIMEOUT_MS as u64 * 1000;
/// Keys moved per migration step.
const KEYS_PER_STEP: usize = 8;
const DEFAULT_KEY: &str = "user:{42}:cart";
/// Virtual time the built cluster runs before it is shown, so its
/// replicas have every key (the links take 100 µs).
const REPLICATE_US: u64 = 50_000;
/// Virtual time that passes after each console command.
const COMMAND_GAP_US: u64 = 1_000;

pub use super::action::Action;

/// A failover playing: the node killed and where its bus events start.
struct Failover {
    killed: usize,
    first_event: usize,
    started_us: u64,
}

/// A slot migration in progress.
pub struct Migration {
    pub slot: u16,
    pub from: usize,
    pub to: usize,
    pub total: usize,
    pub moved: usize,
    /// The longest single MIGRATE (µs of virtual time both nodes were busy).
    worst_us: u64,
}

pub struct SlotMapState {
    pub cluster: Option<Cluster>,
    pub key: String,
    pub migration: Option<Migration>,
    failover: Option<Failover>,
    pub status: String,
    /// What was done, for the Share link and the address bar.
    pub log: super::log::Log,
    /// The cluster console (`redis-cli -c`).
    pub console: super::console::ClusterConsole,
    /// The slot under the pointer, or last tapped.
    pub pointed: Option<u16>,
}

/// A cluster with something to look at: users under per-user tags, one
/// tenant's orders under a single tag (one busy slot) with a 256 KB
/// catalogue, and Zipf-distributed reads for heat.
pub fn build_cluster() -> Cluster {
    let mut opts = SimOptions::new(1, MASTERS);
    opts.replicas_per_master = 1;
    opts.config.cluster_node_timeout = NODE_TIMEOUT_MS;
    let mut cluster = Cluster::new(opts);
    let mut client = cluster.client();
    client.refresh(&mut cluster, 0);
    let mut run = |cluster: &mut Cluster, parts: &[&[u8]]| {
        let args: Vec<Vec<u8>> = parts.iter().map(|p| p.to_vec()).collect();
        client.run(cluster, &args);
    };
    for i in 0..600 {
        run(
            &mut cluster,
            &[b"SET", format!("user:{{{i}}}:cart").as_bytes(), b"[]"],
        );
    }
    for i in 0..200 {
        run(
            &mut cluster,
            &[b"SET", format!("{{tenant:42}}:order:{i}").as_bytes(), b"o"],
        );
    }
    run(
        &mut cluster,
        &[b"SET", b"{tenant:42}:catalog", &vec![b'c'; 256 * 1024]],
    );
    if let Some(zipf) = Zipf::new(600, 1.0) {
        let mut rng = fastrand::Rng::with_seed(1);
        for _ in 0..1500 {
            let u = zipf.sample(&mut rng) - 1;
            run(
                &mut cluster,
                &[b"GET", format!("user:{{{u}}}:cart").as_bytes()],
            );
        }
    }
    // Everything was sent at one instant: let the replication links carry
    // it, so a replica promoted later has the keys (nothing is in flight).
    cluster.advance_by(REPLICATE_US);
    cluster
}

/// Keys plus keyed commands per slot, over every node.
pub fn slot_heat(cluster: &Cluster) -> Vec<u64> {
    let mut heat = vec![0u64; SLOTS];
    for i in 0..cluster.nodes.len() {
        for (&s, &k) in &cluster.keys_per_slot(i) {
            heat[s as usize] += k as u64;
        }
        for (&s, &h) in cluster.slot_hits(i) {
            heat[s as usize] += h;
        }
    }
    heat
}

/// The bytes of `key` hashed for its slot, as `keyHashSlot` picks them:
/// `Some((start, end))` of the tag, or `None` when the whole key is hashed.
pub fn tag_span(key: &str) -> Option<(usize, usize)> {
    let open = key.find('{')?;
    let len = key[open + 1..].find('}')?;
    (len > 0).then_some((open + 1, open + 1 + len))
}

/// `slot`'s owner, as the map shows it, is down: nobody serves the slot
/// until a replica is promoted.
pub fn slot_down(cluster: &Cluster, slot: u16) -> bool {
    cluster
        .view(observer(cluster))
        .owner(slot)
        .is_some_and(|o| cluster.nodes[o].down)
}

/// The first live node: whose view of the slots the map shows.
pub fn observer(cluster: &Cluster) -> usize {
    (0..cluster.nodes.len())
        .find(|&i| !cluster.nodes[i].down)
        .unwrap_or(0)
}

/// Most animation steps a link may replay (a failover takes well under 200).
const MAX_TICKS: u32 = 20_000;

/// A view at the state a log's `text` leads to; unknown lines are skipped
/// and at most [`MAX_TICKS`] steps run, so no link can hang the page.
pub fn replay(text: &str) -> SlotMapState {
    let mut st = SlotMapState::default();
    st.show();
    let mut ticks = 0u32;
    for line in text.lines() {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "key" => st.apply(Action::Key(rest.to_string())),
            "migrate" => st.apply(Action::Migrate),
            "kill" => st.apply(Action::Kill),
            "restart" => st.apply(Action::Restart),
            "cmd" => st.apply(Action::Command(rest.to_string())),
            "ticks" => {
                let n: u32 = rest.trim().parse().unwrap_or(0);
                for _ in 0..n.min(MAX_TICKS - ticks) {
                    st.apply(Action::Tick);
                }
                ticks = ticks.saturating_add(n).min(MAX_TICKS);
            }
            _ => {}
        }
    }
    st
}

impl Default for SlotMapState {
    fn default() -> SlotMapState {
        SlotMapState {
            cluster: None,
            key: DEFAULT_KEY.to_string(),
            migration: None,
            failover: None,
            status: String::new(),
            log: Default::default(),
            console: Default::default(),
            pointed: None,
        }
    }
}

impl SlotMapState {
    /// Builds the cluster the first time the view is shown.
    pub fn show(&mut self) {
        if self.cluster.is_none() {
            self.cluster = Some(build_cluster());
        }
    }

    /// A migration or failover is playing: the animation timer runs.
    pub fn busy(&self) -> bool {
        self.migration.is_some() || self.failover.is_some()
    }

    pub fn apply(&mut self, a: Action) {
        self.log.record(&a);
        match a {
            Action::Key(k) => self.key = k,
            Action::Migrate => self.start_migration(),
            Action::Kill => self.start_failover(),
            Action::Restart => self.restart_dead(),
            Action::Tick if self.failover.is_some() => self.failover_step(),
            Action::Tick => self.step(),
            Action::Command(line) => {
                if let Some(c) = self.cluster.as_mut() {
                    self.console.run(c, &line);
                    // A typed command is a while apart from the next action:
                    // its writes reach the replicas meanwhile.
                    c.advance_by(COMMAND_GAP_US);
                }
            }
            Action::Point(slot) => self.pointed = slot.filter(|&s| (s as usize) < SLOTS),
        }
    }

    /// What the map says about `slot`: its owner (and whether it is down),
    /// its keys, and a migration under way.
    pub fn slot_readout(&self, slot: u16) -> String {
        let Some(c) = self.cluster.as_ref() else {
            return format!("slot {slot}");
        };
        let keys = |n: usize| match c.nodes[n].engine.keys_in_slot(slot).len() {
            1 => "1 key".to_string(),
            k => format!("{k} keys"),
        };
        let Some(o) = c.view(observer(c)).owner(slot) else {
            return format!("slot {slot}: no owner");
        };
        let mut text = format!("slot {slot}: node {o} ({}), {}", c.nodes[o].addr, keys(o));
        if slot_down(c, slot) {
            text.push_str(", owner down: unavailable until a replica takes over");
        }
        if let Some(m) = self.migration.as_ref().filter(|m| m.slot == slot) {
            text.push_str(&format!(
                ", migrating to node {} ({} there)",
                m.to,
                keys(m.to)
            ));
        }
        text
    }

    /// Starts migrating the typed key's slot (or the busiest one) to the next master.
    fn start_migration(&mut self) {
        let Some(cluster) = self.cluster.as_mut() else {
            return;
        };
        if self.migration.is_some() || self.failover.is_some() {
            return;
        }
        let slot = if self.key.is_empty() {
            let heat = slot_heat(cluster);
            (0..SLOTS).max_by_key(|&s| heat[s]).unwrap_or(0) as u16
        } else {
            key_hash_slot(self.key.as_bytes())
        };
        let view = cluster.view(observer(cluster));
        let Some(from) = view.owner(slot) else {
            return;
        };
        // The next master serving slots after the owner.
        let to = (1..NODES)
            .map(|d| (from + d) % NODES)
            .find(|&n| view.nodes[n].replica_of.is_none() && view.slot_count(n) > 0)
            .unwrap_or(from);
        let total: usize = cluster.keys_per_slot(from).get(&slot).copied().unwrap_or(0);
        match cluster.begin_migration(slot, to) {
            Ok(_) => {
                self.status = format!(
                    "Migrating slot {slot} from node {from} to node {to}: 0 of {total} keys moved."
                );
                self.migration = Some(Migration {
                    slot,
                    from,
                    to,
                    total,
                    moved: 0,
                    worst_us: 0,
                });
            }
            Err(e) => self.status = format!("Cannot migrate slot {slot}: {e:?}"),
        }
    }

    /// Kills the master owning the typed key's slot (or node 0's first slot):
    /// the bus then finds out on the sim clock, step by step.
    fn start_failover(&mut self) {
        let Some(cluster) = self.cluster.as_mut() else {
            return;
        };
        if self.failover.is_some() || self.migration.is_some() {
            return;
        }
        let slot = key_hash_slot(self.key.as_bytes());
        let Some(killed) = cluster.view(observer(cluster)).owner(slot) else {
            return;
        };
        let first_event = cluster.events.len();
        cluster.kill_node(killed);
        self.status = format!(
            "Node {killed} (127.0.0.1:{}) is down. The others ping it and wait cluster-node-timeout ({} s).",
            7000 + killed,
            NODE_TIMEOUT_MS / 1000
        );
        self.failover = Some(Failover {
            killed,
            first_event,
            started_us: cluster.now_us(),
        });
    }

    /// One failover step: the sim clock moves on and the status tells the
    /// latest phase; it ends when a replica took the slots.
    fn failover_step(&mut self) {
        let (Some(cluster), Some(f)) = (self.cluster.as_mut(), self.failover.as_ref()) else {
            return;
        };
        cluster.advance_by(FAILOVER_STEP_US);
        let at = |us: u64| (us - f.started_us) as f64 / 1e6;
        let events = &cluster.events[f.first_event..];
        let pfail = events
            .iter()
            .filter(|e| matches!(e.what, BusWhat::Pfail { of } if of == f.killed))
            .count();
        let mut status = format!(
            "{:.1} s after node {} died: ",
            at(cluster.now_us()),
            f.killed
        );
        let mut done = false;
        match events.iter().rev().find(|e| {
            matches!(
                e.what,
                BusWhat::Fail { .. }
                    | BusWhat::ElectionScheduled { .. }
                    | BusWhat::VoteRequested { .. }
                    | BusWhat::Promoted { .. }
            )
        }) {
            Some(e) => match e.what {
                BusWhat::Promoted { epoch, votes } => {
                    done = true;
                    let slots = cluster.view(e.node).slot_count(e.node);
                    status = format!(
                        "Node {} was promoted {:.1} s after node {} died ({votes} votes, configEpoch {epoch}) and now owns its {slots} slots.",
                        e.node,
                        at(e.at_us),
                        f.killed
                    );
                }
                BusWhat::VoteRequested { epoch } => {
                    status.push_str(&format!(
                        "node {} asks the masters for votes (epoch {epoch}).",
                        e.node
                    ));
                }
                BusWhat::ElectionScheduled { rank, delay_ms } => {
                    status.push_str(&format!(
                        "FAIL; replica node {} starts its election in {delay_ms} ms (rank {rank}). Every slot answers CLUSTERDOWN meanwhile.",
                        e.node
                    ));
                }
                _ => status
                    .push_str("a majority of masters agree: FAIL. Every slot answers CLUSTERDOWN."),
            },
            None if pfail > 0 => status.push_str(&format!(
                "{pfail} node(s) flag it PFAIL (fail?): no pong for the node timeout."
            )),
            None => status.push_str("pings go unanswered."),
        }
        // No replica left to take over: the slots stay down.
        if !done && cluster.now_us() - f.started_us > GIVE_UP_AFTER_US {
            done = true;
            status = format!(
                "No replica took over node {}'s slots: they stay unserved (CLUSTERDOWN with full coverage) until it comes back.",
                f.killed
            );
        }
        self.status = status;
        if done {
            self.failover = None;
        }
    }

    /// Brings every dead node back: a master whose slots were taken over
    /// rejoins as a replica of the winner (gossip, then a resync).
    fn restart_dead(&mut self) {
        let Some(cluster) = self.cluster.as_mut() else {
            return;
        };
        if self.failover.is_some() {
            return;
        }
        let dead: Vec<usize> = (0..cluster.nodes.len())
            .filter(|&i| cluster.nodes[i].down)
            .collect();
        for &i in &dead {
            cluster.restart_node(i);
        }
        // A few cron steps: the others hear from it and clear its flags.
        cluster.advance_by(1_000_000);
        let view = cluster.view(observer(cluster));
        let back: Vec<String> = dead
            .iter()
            .map(|&i| match view.nodes[i].replica_of {
                Some(m) => format!("node {i} is back as a replica of node {m}"),
                None => format!("node {i} is back as a master"),
            })
            .collect();
        self.status = format!("{}.", back.join("; "));
    }

    /// One animation step: a few MIGRATEs, or the end of the migration.
    fn step(&mut self) {
        let (Some(cluster), Some(m)) = (self.cluster.as_mut(), self.migration.as_mut()) else {
            return;
        };
        let batch = cluster.migrate_keys(m.slot, KEYS_PER_STEP);
        if batch.is_empty() {
            let _ = cluster.finish_migration(m.slot);
            self.status = format!(
                "Slot {} now belongs to node {}: {} keys moved; the longest MIGRATE kept both nodes busy {:.2} ms.",
                m.slot,
                m.to,
                m.moved,
                m.worst_us as f64 / 1000.0
            );
            self.migration = None;
            return;
        }
        m.moved += batch.len();
        for k in &batch {
            m.worst_us = m.worst_us.max(k.end_us - k.start_us);
        }
        self.status = format!(
            "Migrating slot {} from node {} to node {}: {} of {} keys moved (ASK for moved keys until it ends).",
            m.slot, m.from, m.to, m.moved, m.total
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_span_follows_key_hash_slot() {
        assert_eq!(tag_span("user:{42}:cart"), Some((6, 8)));
        assert_eq!(tag_span("{}x"), None);
        assert_eq!(tag_span("a{b"), None);
        assert_eq!(tag_span("plain"), None);
        let key = "user:{42}:cart";
        let (a, b) = tag_span(key).unwrap();
        assert_eq!(
            key_hash_slot(key.as_bytes()),
            key_hash_slot(&key.as_bytes()[a..b])
        );
    }

    #[test]
    fn a_migration_moves_every_key_of_the_slot_then_ends() {
        let mut st = SlotMapState::default();
        st.show();
        let slot = key_hash_slot(b"{tenant:42}:order:1");
        st.apply(Action::Key("{tenant:42}:order:1".into()));
        st.apply(Action::Migrate);
        let m = st.migration.as_ref().expect("migrating");
        let (from, to, total) = (m.from, m.to, m.total);
        assert_eq!(m.slot, slot);
        assert!(total > 200 && from != to);
        assert!(st.busy());
        st.apply(Action::Kill);
        assert!(st.failover.is_none(), "one animation at a time");
        let mut steps = 0;
        while st.busy() && steps < 100 {
            st.apply(Action::Tick);
            steps += 1;
        }
        assert!(!st.busy(), "done in {steps} steps");
        let c = st.cluster.as_ref().unwrap();
        assert_eq!(c.view(observer(c)).owner(slot), Some(to));
        assert!(
            st.status.starts_with(&format!(
                "Slot {slot} now belongs to node {to}: {total} keys moved"
            )),
            "{}",
            st.status
        );
    }

    #[test]
    fn a_killed_master_is_replaced_by_its_replica_and_comes_back_as_one() {
        let mut st = SlotMapState::default();
        st.show();
        st.apply(Action::Kill);
        assert!(st.busy());
        assert!(st.status.contains("is down"), "{}", st.status);
        let mut steps = 0;
        while st.busy() && steps < 500 {
            st.apply(Action::Tick);
            steps += 1;
        }
        assert!(st.status.contains("was promoted"), "{}", st.status);
        st.apply(Action::Restart);
        assert!(
            st.status.contains("is back as a replica of node"),
            "{}",
            st.status
        );
    }

    #[test]
    fn a_replayed_log_reaches_the_same_view() {
        let mut st = SlotMapState::default();
        st.show();
        for a in [
            Action::Key("user:{7}".into()),
            Action::Key("{tenant:42}:order:1".into()),
            Action::Migrate,
        ] {
            st.apply(a);
        }
        while st.busy() {
            st.apply(Action::Tick);
        }
        st.apply(Action::Kill);
        for _ in 0..30 {
            st.apply(Action::Tick);
        }
        let text = st.log.text();
        assert!(
            text.starts_with("key {tenant:42}:order:1\nmigrate\nticks "),
            "{text}"
        );
        let again = replay(&text);
        assert_eq!(again.status, st.status);
        assert_eq!(again.log, st.log);
        let (a, b) = (
            again.cluster.as_ref().unwrap(),
            st.cluster.as_ref().unwrap(),
        );
        assert_eq!(a.now_us(), b.now_us());
        assert_eq!(
            (0..a.nodes.len())
                .map(|i| a.nodes[i].down)
                .collect::<Vec<_>>(),
            (0..b.nodes.len())
                .map(|i| b.nodes[i].down)
                .collect::<Vec<_>>()
        );
        let view = |c: &redsim_sim::cluster::Cluster| {
            let v = c.view(observer(c));
            (0..a.nodes.len())
                .map(|n| v.slot_count(n))
                .collect::<Vec<_>>()
        };
        assert_eq!(view(a), view(b));
        // The link carries it packed; hostile text is harmless.
        assert!(super::super::log::link("/p/", &st.log).starts_with("/p/?tab=cluster#c="));
        assert_eq!(
            super::super::log::link("/p/", &super::super::log::Log::default()),
            "/p/?tab=cluster"
        );
        let junk = replay("ticks 99999999999\nbogus\nkey \nticks -3\n");
        assert!(!junk.busy());
    }

    #[test]
    fn the_console_shows_redirects_and_its_commands_replay() {
        let mut st = SlotMapState::default();
        st.show();
        let user = key_hash_slot(b"user:{42}:cart");
        st.apply(Action::Command("GET user:{42}:cart".into()));
        let lines: Vec<&str> = st.console.lines.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            lines,
            [
                "127.0.0.1:7000> GET user:{42}:cart",
                &format!("-> MOVED {user} 127.0.0.1:7001"),
                "\"[]\""
            ]
        );
        assert_eq!(st.console.prompt(st.cluster.as_ref()), "127.0.0.1:7001>");
        st.apply(Action::Key("{tenant:42}:x".into()));
        st.apply(Action::Migrate);
        st.apply(Action::Tick);
        st.apply(Action::Command("GET {tenant:42}:gone".into()));
        let slot = key_hash_slot(b"{tenant:42}");
        let tail: Vec<&str> = st.console.lines[3..]
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        assert_eq!(
            tail,
            [
                "127.0.0.1:7001> GET {tenant:42}:gone",
                &format!("-> MOVED {slot} 127.0.0.1:7002"),
                &format!("-> ASK {slot} 127.0.0.1:7000"),
                "(nil)"
            ]
        );
        // The pointer is not logged; the commands are, between the ticks.
        st.apply(Action::Point(Some(slot)));
        assert!(
            st.slot_readout(slot).contains("migrating to node 0"),
            "{}",
            st.slot_readout(slot)
        );
        let text = st.log.text();
        assert!(
            text.contains("migrate\nticks 1\ncmd GET {tenant:42}:gone\n"),
            "{text}"
        );
        let again = replay(&text);
        assert_eq!(again.console.lines, st.console.lines);
        assert_eq!(again.pointed, None);
    }

    #[test]
    fn the_readout_names_owner_keys_and_a_dead_owner() {
        let mut st = SlotMapState::default();
        st.show();
        let user = key_hash_slot(b"user:{42}:cart");
        assert_eq!(
            st.slot_readout(user),
            format!("slot {user}: node 1 (127.0.0.1:7001), 1 key")
        );
        st.apply(Action::Key("user:{42}:cart".into()));
        st.apply(Action::Kill);
        let c = st.cluster.as_ref().unwrap();
        assert!(slot_down(c, user) && !slot_down(c, 0));
        assert!(st.slot_readout(user).contains("owner down"));
        while st.busy() {
            st.apply(Action::Tick);
        }
        let c = st.cluster.as_ref().unwrap();
        assert!(!slot_down(c, user), "the promoted replica serves it");
        // With the key, which had reached the replica before its master died.
        assert_eq!(
            st.slot_readout(user),
            format!("slot {user}: node 4 (127.0.0.1:7004), 1 key")
        );
        st.apply(Action::Point(Some(20_000)));
        assert_eq!(st.pointed, None, "no such slot");
    }
}
