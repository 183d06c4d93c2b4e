//! The failover scenario: a master, two replicas on lagging links, three sentinels that vote, and the acknowledged writes a failover throws away.
//!
//! The nodes are real engines joined by the shared replication links
//! ([`crate::replication::link`]); the sentinels are
//! [`crate::replication::sentinel::Sentinels`] (SDOWN after `down-after-milliseconds`,
//! ODOWN at `quorum`, a leader elected by majority in a new epoch, the
//! replica with the best priority and offset promoted, the other repointed,
//! an old master converted to a replica once it is seen again). They run on
//! the majority side: an isolated master is cut off from all of them. A
//! crashed master's unsent stream (still in its socket buffers) dies with it.

use crate::kernel::{Dist, Kernel, Micros, MS};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::replication::link::{LinkMsg, ReplLinks};
use crate::replication::net::NetView;
use crate::replication::sentinel::{Order, SentinelConfig, SentinelEvent, Sentinels, TICK_US};
use crate::scenario::Scenario;
use crate::seeds;
use redsim_engine::{ClientId, Engine, Frame, Options};

pub const FAILOVER: Scenario = Scenario::new("failover-lost-writes", failover_run);

/// Positions in the `mode` choices (the lesson's scenarios.json).
const WAIT_ALL: usize = 1;
const WAIT_ONE: usize = 2;
const SPLIT: usize = 3;
const SPLIT_MIN_REPLICAS: usize = 4;
/// Async writes, each fenced by a token from `INCR fence` on the same Redis.
const FENCING: usize = 5;

/// Node indices.
const M: usize = 0;
const ADDRS: [&str; 3] = ["10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"];

#[derive(Clone, Debug)]
enum Ev {
    /// The client sends its next write to whoever it believes is master.
    Write,
    /// The stream and acks on the replication links.
    Link(LinkMsg),
    /// Replicas' periodic REPLCONF ACK.
    AckTick,
    /// A WAIT gave up.
    WaitTimeout,
    Fault,
    Heal,
    /// The sentinels' timer.
    SentinelTick,
}

impl From<LinkMsg> for Ev {
    fn from(m: LinkMsg) -> Ev {
        Ev::Link(m)
    }
}

struct World {
    nodes: Vec<Engine>,
    /// The application's connection to each node.
    conns: Vec<ClientId>,
    /// An operator's connection to each node, for setup and for counting
    /// (the application's may be blocked in WAIT).
    admin: Vec<ClientId>,
    /// The replication link into each node: latency and the master it follows.
    links: ReplLinks,
    alive: Vec<bool>,
    /// Node isolated from everyone but its own clients.
    isolated: Option<usize>,
    /// The node the client writes to.
    client_target: usize,
    /// WAIT's numreplicas in the WAIT modes.
    wait_n: i64,
    /// Writes the client was told succeeded: (value, node that said OK).
    acked: Vec<(u64, usize)>,
    refused: u64,
    next_value: u64,
    /// Fencing mode: the highest token handed out, and tokens handed out twice.
    max_token: i64,
    reissued: u64,
    waiting: bool,
    failed_over_at: Option<Micros>,
    promoted: Option<usize>,
}

fn failover_run(p: &Params, seed: u64) -> Outcome {
    let modes = FAILOVER.info().choices("mode");
    let mode = p.choice("mode");
    let mut out = Outcome::new("failover-lost-writes", seed, p);
    let mut per_mode = Vec::new();
    let mut fencing_reissued = 0;
    for i in 0..modes.len() {
        let (lost, acked, reissued, o) = simulate(p, seed, i, i == mode);
        per_mode.push((lost, acked));
        if i == FENCING {
            fencing_reissued = reissued;
        }
        if let Some(o) = o {
            out = o;
        }
    }
    let (lost, acked) = per_mode[mode];
    out.metric("acknowledged writes", acked as f64, "writes");
    out.metric("acknowledged then lost", lost as f64, "writes");
    out.charts.push(
        Chart::bars("Acknowledged writes lost, by mode", "writes", modes).with(
            Series::per_category("lost", per_mode.iter().map(|&(l, _)| l as f64)),
        ),
    );
    let (async_lost, _) = per_mode[0];
    let (wait_lost, _) = per_mode[WAIT_ALL];
    let (wait1_lost, _) = per_mode[WAIT_ONE];
    let (sb_lost, _) = per_mode[SPLIT];
    let (sbm_lost, _) = per_mode[SPLIT_MIN_REPLICAS];
    out.check(
        "an asynchronous failover loses at least one acknowledged write",
        async_lost >= 1,
        format!("{async_lost} acknowledged writes missing on the promoted replica"),
    );
    out.check(
        "WAIT for every replica loses none",
        wait_lost == 0,
        format!("{wait_lost} lost with WAIT 2"),
    );
    out.check(
        "a fencing counter kept on the failed-over Redis rolls back: tokens are handed out twice",
        fencing_reissued >= 1,
        format!("{fencing_reissued} tokens reissued after the failover"),
    );
    out.check(
        "WAIT 1 does not close the window when another replica is promoted",
        wait1_lost >= 1,
        format!("{wait1_lost} writes acknowledged by WAIT 1 missing on the promoted replica"),
    );
    out.check(
        "an isolated master's writes are discarded when it rejoins, and min-replicas-to-write limits them",
        sb_lost > 0 && sbm_lost < sb_lost,
        format!("split brain lost {sb_lost}; with min-replicas-to-write 1 / max-lag 1 s: {sbm_lost}"),
    );
    out
}

/// Runs one mode; returns (lost, acknowledged, the full outcome when `record`).
fn simulate(p: &Params, seed: u64, mode: usize, record: bool) -> (u64, u64, u64, Option<Outcome>) {
    let split = mode == SPLIT || mode == SPLIT_MIN_REPLICAS;
    let mut k: Kernel<Ev> = Kernel::new(seed);
    let lat = (p.get("repl_latency_ms") * MS as f64) as Micros;
    let link = Dist::jittered(lat, lat / 2);
    let mut nodes = Vec::new();
    let mut conns = Vec::new();
    let mut admins = Vec::new();
    for i in 0..3u64 {
        let mut o = Options::new(seeds::node(seed, i as usize));
        o.trace_capacity = 0;
        let mut e = Engine::with_options(o);
        let c = e.connect("client");
        conns.push(c);
        admins.push(e.connect("admin"));
        nodes.push(e);
    }
    let latencies = if mode == WAIT_ONE {
        // One fast replica and one slow one.
        [
            link,
            Dist::jittered(lat / 4, lat / 8),
            Dist::jittered(lat * 2, lat),
        ]
    } else {
        [link; 3]
    };
    let mut w = World {
        nodes,
        conns,
        admin: admins,
        links: ReplLinks::new(ADDRS.iter().zip(latencies).map(|(a, l)| (a.to_string(), l))),
        alive: vec![true; 3],
        isolated: None,
        client_target: M,
        wait_n: if mode == WAIT_ALL { 2 } else { 1 },
        acked: Vec::new(),
        refused: 0,
        next_value: 0,
        max_token: 0,
        reissued: 0,
        waiting: false,
        failed_over_at: None,
        promoted: None,
    };
    if mode == SPLIT_MIN_REPLICAS {
        admin(&mut w, M, "CONFIG SET min-replicas-to-write 1");
        admin(&mut w, M, "CONFIG SET min-replicas-max-lag 1");
    }
    if mode == WAIT_ONE {
        // The trap: the fast replica is configured as the less preferred one.
        admin(&mut w, 1, "CONFIG SET replica-priority 200");
    }
    for r in 1..3 {
        admin(&mut w, r, "REPLICAOF 10.0.0.1 6379");
        w.links.attach(&mut w.nodes, r, M, 0);
    }
    let lanes = [
        "client",
        "master 10.0.0.1",
        "replica 10.0.0.2",
        "replica 10.0.0.3",
        "sentinels",
    ];
    for (i, l) in lanes.iter().enumerate() {
        k.rec.lane(
            l,
            if i == 0 {
                "client"
            } else if i == 4 {
                "sentinel"
            } else {
                "redis"
            },
        );
    }
    k.rec.step_cap = 160;
    let fault_at = (p.get("fault_at_ms") * MS as f64) as Micros;
    let heal_after = (p.get("heal_after_ms") * MS as f64) as Micros;
    let every = (p.get("write_every_ms") * MS as f64) as Micros;
    let down_after = (p.get("down_after_ms") * MS as f64) as Micros;
    let quorum = (p.count("quorum") as usize).clamp(1, 3);
    // Room for the election and, after a heal, the 8 s before Sentinel
    // converts the old master.
    let end = fault_at + down_after + heal_after + 10_000 * MS;
    let mut sentinels = Sentinels::new(
        SentinelConfig {
            count: 3,
            quorum,
            down_after_us: down_after,
            failover_timeout_us: 180_000 * MS,
        },
        M,
        seed,
    );
    k.at(0, Ev::Write);
    k.at(1000 * MS, Ev::AckTick);
    k.at(fault_at, Ev::Fault);
    if split {
        k.at(fault_at + heal_after, Ev::Heal);
    }
    k.at(TICK_US, Ev::SentinelTick);
    let mut lost_marked = false;
    while let Some(ev) = k.next(end) {
        let now = k.now();
        // Every node's clock follows virtual time (cron, TTLs, WAIT timeouts, replica lag).
        for n in &mut w.nodes {
            n.advance_to(now);
        }
        match ev {
            Ev::Write => {
                if w.waiting {
                    continue;
                }
                let t = w.client_target;
                let reachable = w.alive[t];
                if !reachable {
                    // The client retries against whoever Sentinel names next.
                    k.after(every.max(50 * MS), Ev::Write);
                    continue;
                }
                w.next_value += 1;
                let v = w.next_value;
                if mode == FENCING {
                    // The lock service's token comes from the same Redis.
                    if let Frame::Integer(token) = exec(&mut w, t, "INCR fence") {
                        if token <= w.max_token {
                            w.reissued += 1;
                            if w.reissued == 1 {
                                k.rec.mark(
                                    now,
                                    t + 1,
                                    "bad",
                                    format!("INCR fence answers {token} again: the counter lost its last increments in the failover, so a resource that trusts tokens accepts a second holder with an old number (the highest seen was {})", w.max_token),
                                );
                            }
                        }
                        w.max_token = w.max_token.max(token);
                    }
                }
                let reply2 = exec(&mut w, t, &format!("SET w:{v} {v}"));
                ship(&mut k, &mut w, t);
                if reply2.is_error() {
                    w.refused += 1;
                    if record {
                        k.rec
                            .msg(
                                now,
                                now + 200,
                                0,
                                t + 1,
                                format!(
                                    "write {v}: {}",
                                    redsim_engine::proto::clifmt::format_reply(&reply2)
                                ),
                            )
                            .failed();
                    }
                    k.after(every, Ev::Write);
                    continue;
                }
                if mode == WAIT_ALL || mode == WAIT_ONE {
                    let id = w.conns[t];
                    match w.nodes[t].submit_line(id, &format!("WAIT {} 200", w.wait_n)) {
                        Some(Frame::Integer(n)) if n >= w.wait_n => w.acked.push((v, t)),
                        Some(_) => {}
                        None => {
                            w.waiting = true;
                            if w.nodes[t].take_ack_request() {
                                for r in 1..3 {
                                    let off = w.nodes[r].repl().offset;
                                    send_ack(&mut k, &mut w, r, off);
                                }
                            }
                            k.after(200 * MS, Ev::WaitTimeout);
                        }
                    }
                } else {
                    w.acked.push((v, t));
                    if record && v.is_multiple_of(20) {
                        k.rec
                            .msg(now, now + 200, 0, t + 1, format!("SET w:{v} → OK"));
                    }
                }
                if !w.waiting {
                    k.after(every, Ev::Write);
                }
            }
            Ev::Link(LinkMsg::Stream { from, to, gen, ops }) => {
                // A dead master's stream still in its buffers or on the
                // wire is lost with the connection.
                if !w.alive[to] || !w.alive[from] {
                    continue;
                }
                let Some((before, off)) = w.links.receive(&mut w.nodes, to, gen, &ops) else {
                    continue;
                };
                if (mode == WAIT_ALL || mode == WAIT_ONE) && off > before {
                    send_ack(&mut k, &mut w, to, off);
                }
                ship(&mut k, &mut w, to);
            }
            Ev::Link(LinkMsg::Ack { from, gen, offset }) => {
                let Some(m) = w.links.ack_target(from, gen) else {
                    continue;
                };
                if !w.alive[m] {
                    continue;
                }
                w.links.ack(&mut w.nodes, m, from, offset);
                for (_, f) in w.nodes[m].take_unblocked() {
                    if let Frame::Integer(n) = f {
                        if w.waiting {
                            w.waiting = false;
                            if n >= w.wait_n {
                                w.acked.push((w.next_value, m));
                            }
                            k.after(every, Ev::Write);
                        }
                    }
                }
            }
            // GETACK travels only in the topology: here a WAIT asks the replicas directly.
            Ev::Link(LinkMsg::GetAck { .. } | LinkMsg::Connected { .. }) => continue,
            Ev::AckTick => {
                for r in 0..3 {
                    if w.links.master(r).is_some() && w.alive[r] {
                        let off = w.nodes[r].repl().offset;
                        send_ack(&mut k, &mut w, r, off);
                    }
                }
                k.after(1000 * MS, Ev::AckTick);
            }
            Ev::WaitTimeout => {
                let t = w.client_target;
                if !w.alive[t] {
                    // The WAIT's connection died with the node: no reply.
                    w.waiting = false;
                    k.after(every, Ev::Write);
                    continue;
                }
                w.nodes[t].advance_to(now + MS);
                for (_, f) in w.nodes[t].take_unblocked() {
                    if let (Frame::Integer(n), true) = (f, w.waiting) {
                        w.waiting = false;
                        if n >= w.wait_n {
                            w.acked.push((w.next_value, t));
                        }
                        k.after(every, Ev::Write);
                    }
                }
                if w.waiting && !w.alive[t] {
                    w.waiting = false;
                    k.after(every, Ev::Write);
                }
            }
            Ev::Fault => {
                if split {
                    w.isolated = Some(M);
                    k.rec.local(now, now + 20 * MS, 1, "partition: master cut off from replicas and sentinels, not from its client");
                    k.rec.mark(
                        now,
                        1,
                        "info",
                        "The master is isolated but alive: its client keeps writing to it.",
                    );
                } else {
                    w.alive[M] = false;
                    k.rec.local(now, now + 20 * MS, 1, "crash");
                    let on_wire = w.nodes[M]
                        .repl()
                        .offset
                        .saturating_sub(w.nodes[1].repl().offset.max(w.nodes[2].repl().offset));
                    k.rec.mark(now, 1, "bad", format!("The master dies with {on_wire} bytes of acknowledged stream no replica has applied."));
                }
            }
            Ev::Heal => {
                w.isolated = None;
                k.rec.local(now, now + 20 * MS, 1, "partition heals");
                // The client can reach the sentinels again and learns the new master.
                if let Some(newm) = w.promoted {
                    if w.client_target == M {
                        w.client_target = newm;
                    }
                }
            }
            Ev::SentinelTick => {
                let mut orders = Vec::new();
                let mut evs = Vec::new();
                sentinels.tick(now, &sentinel_net(&w, now), &mut orders, &mut evs);
                for ev in evs {
                    if record {
                        draw_sentinel_event(&mut k, &ev, quorum);
                    }
                }
                for Order::ReplicaOf { node, to } in orders {
                    match to {
                        None => {
                            admin(&mut w, node, "REPLICAOF NO ONE");
                            w.links.drop_link(node, now);
                            w.promoted = Some(node);
                            w.failed_over_at = Some(now);
                            k.rec
                                .msg(now, now + 5 * MS, 4, node + 1, "REPLICAOF NO ONE");
                        }
                        Some(m) => {
                            admin(&mut w, node, &format!("REPLICAOF {} 6379", &ADDRS[m][..8]));
                            let full = w.links.attach(&mut w.nodes, node, m, now).full;
                            k.rec.msg(
                                now,
                                now + 5 * MS,
                                4,
                                node + 1,
                                format!(
                                    "REPLICAOF {} ({})",
                                    ADDRS[m],
                                    if full { "full resync" } else { "partial" }
                                ),
                            );
                            if node == M {
                                k.rec.mark(now + 5 * MS, 1, "bad", "The old master rejoins as a replica: a full resync replaces its data, and every write its clients made during the partition is gone.");
                            }
                        }
                    }
                }
                if !split {
                    if let Some(m) = w.promoted {
                        if w.client_target != m && sentinels.s.iter().any(|x| x.master == m) {
                            w.client_target = m;
                        }
                    }
                }
                k.after(TICK_US, Ev::SentinelTick);
            }
        }
        if record && !lost_marked && w.promoted.is_some() {
            lost_marked = true;
            let b = w.promoted.unwrap_or(1);
            let missing = missing_writes(&mut w, b);
            if missing > 0 {
                k.rec.mark(now, b + 1, "bad", format!("The promoted replica lacks {missing} writes the client was told succeeded."));
            } else {
                k.rec.mark(
                    now,
                    b + 1,
                    "good",
                    "The promoted replica holds every acknowledged write.",
                );
            }
        }
    }
    // Lost: acknowledged writes the final master does not hold.
    let final_master = w.promoted.unwrap_or(M);
    let lost = missing_writes(&mut w, final_master);
    let acked = w.acked.len() as u64;
    if !record {
        return (lost, acked, w.reissued, None);
    }
    let mut out = Outcome::new("failover-lost-writes", seed, p);
    out.duration_us = k.now();
    if let Some(t) = w.failed_over_at {
        out.metric(
            "failover after the fault",
            (t.saturating_sub(fault_at)) as f64 / MS as f64,
            "ms",
        );
    }
    out.metric("writes refused", w.refused as f64, "writes");
    out.note(format!(
        "{} writes acknowledged, {lost} of them missing on the final master (node {}).",
        acked, ADDRS[final_master]
    ));
    out.diagram = Some(k.rec.take_diagram());
    if mode == FENCING {
        out.metric(
            "fencing tokens handed out twice",
            w.reissued as f64,
            "tokens",
        );
    }
    (lost, acked, w.reissued, Some(out))
}

/// Acknowledged writes missing from `node`.
fn missing_writes(w: &mut World, node: usize) -> u64 {
    let acked: Vec<u64> = w.acked.iter().map(|(v, _)| *v).collect();
    acked
        .into_iter()
        .filter(|v| admin(w, node, &format!("EXISTS w:{v}")) != Frame::Integer(1))
        .count() as u64
}

/// Runs `line` on `node` from the application's connection.
fn exec(w: &mut World, node: usize, line: &str) -> Frame {
    let c = w.conns[node];
    w.nodes[node].execute_line(c, line)
}

/// Runs `line` on `node` from the operator's connection (setup, REPLICAOF, counting).
fn admin(w: &mut World, node: usize, line: &str) -> Frame {
    let c = w.admin[node];
    w.nodes[node].execute_line(c, line)
}

/// Sends what node `from` produced to its replicas over the links: nothing
/// leaves a dead or isolated node, nothing reaches an isolated one.
fn ship(k: &mut Kernel<Ev>, w: &mut World, from: usize) {
    let now = k.now();
    let (alive, isolated) = (&w.alive, w.isolated);
    w.links.ship(k, &mut w.nodes, from, now, |to| {
        alive[from] && isolated != Some(from) && isolated != Some(to)
    });
}

/// Replica `node` acknowledges `offset`, unless a partition cuts it from its master.
fn send_ack(k: &mut Kernel<Ev>, w: &mut World, node: usize, offset: u64) {
    let Some(m) = w.links.master(node) else {
        return;
    };
    if w.isolated == Some(m) || w.isolated == Some(node) {
        return;
    }
    let now = k.now();
    w.links.send_ack(k, node, now, offset);
}

/// Draws what the sentinels did on their lane (4).
fn draw_sentinel_event(k: &mut Kernel<Ev>, ev: &SentinelEvent, quorum: usize) {
    let now = k.now();
    match ev {
        SentinelEvent::Sdown { sentinel, .. } => k.rec.local(
            now,
            now + 5 * MS,
            4,
            format!("sentinel {} +sdown master", sentinel + 1),
        ),
        SentinelEvent::Odown { sentinel, agree, .. } => k.rec.mark(
            now,
            4,
            "info",
            format!(
                "+odown: {agree} of 3 sentinels agree (quorum {quorum}); sentinel {} will ask for votes",
                sentinel + 1
            ),
        ),
        SentinelEvent::Elected {
            sentinel,
            epoch,
            votes,
        } => k.rec.local(
            now,
            now + 5 * MS,
            4,
            format!(
                "sentinel {} elected leader of epoch {epoch} with {votes} votes",
                sentinel + 1
            ),
        ),
        SentinelEvent::SwitchMaster { to, .. } => {
k.rec.msg(
            now,
            now + 6 * MS,
            4,
            0,
            format!("+switch-master {}", ADDRS[*to]),
        );
}
        _ => {}
    }
}

/// The scenario's network as sentinels see it: they all sit on the
/// majority side, so a dead or isolated node is out of their reach. Run
/// IDs are the addresses, so ties order like them.
fn sentinel_net(w: &World, now: Micros) -> NetView<'_> {
    let mut net = NetView::new(false);
    for (n, e) in w.nodes.iter().enumerate() {
        let follows = w.links.master(n);
        net.node(
            e,
            &w.links,
            now,
            w.alive[n],
            w.isolated == Some(n),
            follows,
            ADDRS[n],
        );
    }
    net
}

#[cfg(test)]
mod tests {
    use crate::testing::{all_pass, metric, run};

    #[test]
    fn async_loses_writes_wait_does_not_and_split_brain_discards() {
        for out in all_pass("failover-lost-writes", &[]) {
            assert!(out.diagram.as_ref().is_some_and(|d| !d.marks.is_empty()));
        }
    }

    #[test]
    fn a_fast_link_narrows_the_loss() {
        let o = |lat: &str| {
            let out = run("failover-lost-writes", 1, &[("repl_latency_ms", lat)]);
            metric(&out, "acknowledged then lost")
        };
        assert!(o("2") <= o("100"), "less lag, fewer lost writes");
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices(
            "failover-lost-writes",
            "mode",
            "async wait wait-one split-brain split-brain-min-replicas fencing",
        );
    }
}
