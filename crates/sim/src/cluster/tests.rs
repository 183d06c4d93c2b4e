//! The cluster simulation's own tests: failure detection, elections, manual failovers, rejoining, determinism.

use super::*;
use redsim_engine::cluster::key_hash_slot;

/// `masters` masters with `replicas` replicas each, a `timeout_ms` node timeout.
fn cluster(seed: u64, masters: usize, replicas: usize, timeout_ms: i64) -> Cluster {
    let mut o = SimOptions::new(seed, masters);
    o.replicas_per_master = replicas;
    o.config.cluster_node_timeout = timeout_ms;
    Cluster::new(o)
}

/// Advances in cron steps until `done` holds or `limit_us` passes.
fn run_until(c: &mut Cluster, limit_us: u64, done: impl Fn(&Cluster) -> bool) -> bool {
    let end = c.now_us() + limit_us;
    while c.now_us() < end {
        if done(c) {
            return true;
        }
        c.advance_by(CRON_US);
    }
    done(c)
}

fn first(c: &Cluster, f: impl Fn(&BusWhat) -> bool) -> Option<&BusEvent> {
    c.events.iter().find(|e| f(&e.what))
}

/// `(node, value)` for every bus event `pick` takes a value from, in order.
fn events_of<T>(c: &Cluster, pick: impl Fn(&BusWhat) -> Option<T>) -> Vec<(usize, T)> {
    c.events
        .iter()
        .filter_map(|e| pick(&e.what).map(|t| (e.node, t)))
        .collect()
}

fn promoted(c: &Cluster) -> Option<usize> {
    first(c, |w| matches!(w, BusWhat::Promoted { .. })).map(|e| e.node)
}

/// A key owned by master `m` at creation.
fn key_of(m: usize, masters: usize, tag: &str) -> String {
    let (a, b) = even_ranges(masters)[m];
    (0..)
        .map(|i| format!("{tag}{i}"))
        .find(|k| (a..=b).contains(&key_hash_slot(k.as_bytes())))
        .expect("a key in the range")
}

fn line(c: &mut Cluster, node: usize, l: &str) -> Frame {
    let args = redsim_engine::proto::resp::split_args(l.as_bytes()).expect("args");
    c.send(node, 1, &args).reply
}

#[test]
fn pfail_comes_before_fail_and_then_the_replica_takes_over() {
    let mut c = cluster(3, 3, 1, 2000);
    let t0 = c.now_us();
    c.kill_node(0);
    let pfail = run_until(&mut c, 10_000_000, |c| c.view(1).nodes[0].pfail);
    assert!(pfail, "node 1 never suspected node 0");
    let t_pfail = c.now_us() - t0;
    // A pending ping must be older than the node timeout.
    assert!(t_pfail > 2_000_000, "PFAIL after {t_pfail} µs");
    let text = c.view(1).nodes_text();
    assert!(text.contains(" master,fail? - "), "{text}");
    assert!(text.contains(" disconnected 0-5460"), "{text}");
    let info = c.view(1).info_text();
    assert!(info.contains("cluster_slots_pfail:5461\r\n"), "{info}");
    assert!(
        info.starts_with("cluster_state:ok"),
        "PFAIL alone keeps the state"
    );
    assert!(run_until(&mut c, 10_000_000, |c| c.view(1).nodes[0].failed));
    let fail = first(&c, |w| matches!(w, BusWhat::Fail { of: 0, .. })).expect("FAIL");
    let first_pfail = first(&c, |w| matches!(w, BusWhat::Pfail { of: 0 })).expect("PFAIL");
    assert!(first_pfail.at_us < fail.at_us);
    assert!(matches!(fail.what, BusWhat::Fail { reports, .. } if reports >= 2));
    let text = c.view(2).nodes_text();
    assert!(text.contains(" master,fail - "), "{text}");
    assert!(run_until(&mut c, 10_000_000, |c| promoted(c).is_some()));
    assert_eq!(promoted(&c), Some(3));
    let scheduled = first(&c, |w| matches!(w, BusWhat::ElectionScheduled { .. })).unwrap();
    let BusWhat::ElectionScheduled { rank, delay_ms } = scheduled.what else {
        unreachable!()
    };
    assert_eq!(rank, 0);
    assert!((500..1000).contains(&delay_ms), "{delay_ms}");
    c.advance_by(1_000_000);
    for i in 1..6 {
        assert_eq!(c.view(i).owner(0), Some(3), "node {i}'s view");
        assert!(c.view(i).ok, "node {i} is OK again");
    }
    let me = c.view(3).nodes_text();
    assert!(
        me.contains(" myself,master - 0 0 4 connected 0-5460"),
        "{me}"
    );
}

#[test]
fn fail_needs_a_majority_of_masters() {
    // Five masters: three dead leave two reporters, short of three.
    let mut c = cluster(5, 5, 0, 1000);
    for i in 0..3 {
        c.kill_node(i);
    }
    run_until(&mut c, 20_000_000, |_| false);
    assert!(first(&c, |w| matches!(w, BusWhat::Fail { .. })).is_none());
    assert!(c.view(3).nodes[0].pfail && !c.view(3).nodes[0].failed);
    assert!(c.view(4).nodes_text().contains(" master,fail? - "));
    assert!(!c.view(3).ok, "a minority partition is down");
    // Two dead of five: three masters agree.
    let mut c = cluster(5, 5, 0, 1000);
    c.kill_node(0);
    c.kill_node(1);
    assert!(run_until(&mut c, 20_000_000, |c| c.view(4).nodes[0].failed
        && c.view(4).nodes[1].failed));
}

#[test]
fn the_replica_with_the_larger_offset_is_elected_first() {
    let mut c = cluster(7, 3, 2, 1000);
    // Replicas of master 0 are nodes 3 and 6; 6's link is cut first.
    assert_eq!(c.view(0).replicas_of(0), vec![3, 6]);
    let key = key_of(0, 3, "r");
    assert_eq!(line(&mut c, 0, &format!("SET {key} a")), Frame::ok());
    c.advance_by(10_000);
    c.links.drop_link(6, c.now_us());
    assert_eq!(line(&mut c, 0, &format!("SET {key} b")), Frame::ok());
    c.advance_by(10_000);
    assert!(c.nodes[3].engine.repl().offset > c.nodes[6].engine.repl().offset);
    c.kill_node(0);
    assert!(run_until(&mut c, 20_000_000, |c| promoted(c).is_some()));
    assert_eq!(promoted(&c), Some(3));
    let ranks = events_of(&c, |w| match w {
        BusWhat::ElectionScheduled { rank, .. } => Some(*rank),
        _ => None,
    });
    assert!(
        ranks.contains(&(3, 0)) && ranks.contains(&(6, 1)),
        "{ranks:?}"
    );
    // The other replica follows the winner and catches up.
    c.advance_by(1_000_000);
    assert_eq!(c.view(6).me().replica_of, Some(3));
    assert!(c
        .events
        .iter()
        .any(|e| e.node == 6 && matches!(e.what, BusWhat::Synced { master: 3, .. })));
    assert_eq!(
        c.nodes[6].engine.repl().offset,
        c.nodes[3].engine.repl().offset
    );
}

#[test]
fn no_failover_without_a_majority_of_masters() {
    let mut c = cluster(11, 3, 1, 1000);
    // Both flagged FAIL at once; one master is left to vote.
    c.fail_node(0);
    c.fail_node(1);
    run_until(&mut c, 30_000_000, |_| false);
    assert!(promoted(&c).is_none());
    let expired = c
        .events
        .iter()
        .filter(|e| matches!(e.what, BusWhat::ElectionExpired { votes: 1, .. }))
        .count();
    assert!(expired >= 2, "{:?}", c.events);
    assert!(!c.view(2).ok);
    // Votes are one per master per epoch: no master voted twice.
    let mut votes = events_of(&c, |w| match w {
        BusWhat::Voted { epoch, .. } => Some(*epoch),
        _ => None,
    });
    let n = votes.len();
    votes.dedup();
    assert_eq!(votes.len(), n);
}

/// Writes to master 0 every 2 ms over a 150 ms replication link, with
/// `CLUSTER FAILOVER <how>` sent to its replica midway: the acknowledged
/// writes the new master lacks, and the cluster.
fn manual_failover_run(how: &str) -> (usize, Cluster) {
    let mut o = SimOptions::new(13, 3);
    o.replicas_per_master = 1;
    o.repl_link_us = 150_000;
    let mut c = Cluster::new(o);
    let mut client = c.client();
    let mut acked = Vec::new();
    let tag = key_of(0, 3, "m");
    for i in 0..400 {
        if i == 200 {
            // Writes are on the link when it is asked.
            let r = c.admin(3, &format!("CLUSTER FAILOVER {how}"));
            assert_eq!(r, Frame::ok());
        }
        let key = format!("{{{tag}}}:{i}");
        let out = client.run_line(&mut c, &format!("SET {key} {i}"));
        if out.reply == Frame::ok() {
            acked.push(key);
        }
        c.set_now(c.now_us() + 2_000);
    }
    c.advance_by(1_000_000);
    assert_eq!(promoted(&c), Some(3), "{how}");
    assert_eq!(acked.len(), 400, "every write succeeded (after MOVED)");
    let missing = acked
        .iter()
        .filter(|k| !c.nodes[3].engine.holds_key(0, k.as_bytes()))
        .count();
    assert!(client.stats.moved >= 1);
    (missing, c)
}

#[test]
fn manual_failover_loses_no_write() {
    let (missing, c) = manual_failover_run("");
    assert_eq!(missing, 0);
    // The old master follows, with the same data.
    assert_eq!(c.view(0).me().replica_of, Some(3));
    assert_eq!(
        c.nodes[0].engine.repl().offset,
        c.nodes[3].engine.repl().offset
    );
    assert!(c.view(0).nodes_text().contains("myself,slave"));
    // FORCE does not wait for the offsets: what was on the link is lost.
    let (missing, _) = manual_failover_run("FORCE");
    assert!(missing > 10, "{missing} writes lost");
}

#[test]
fn manual_failover_checks_and_variants() {
    let mut c = cluster(17, 3, 1, 2000);
    assert_eq!(
        c.admin(0, "CLUSTER FAILOVER"),
        Frame::err("ERR You should send CLUSTER FAILOVER to a replica")
    );
    assert_eq!(
        c.admin(3, "CLUSTER FAILOVER now"),
        Frame::err("ERR syntax error")
    );
    c.fail_node(1);
    assert_eq!(
        c.admin(4, "CLUSTER FAILOVER"),
        Frame::err("ERR Master is down or failed, please use CLUSTER FAILOVER FORCE")
    );
    assert_eq!(c.admin(4, "CLUSTER FAILOVER FORCE"), Frame::ok());
    assert!(run_until(&mut c, 1_000_000, |c| promoted(c) == Some(4)));
    // TAKEOVER: no votes, a new epoch at once.
    let before = c.events.len();
    assert_eq!(c.admin(5, "CLUSTER FAILOVER TAKEOVER"), Frame::ok());
    assert_eq!(c.view(5).me().replica_of, None);
    assert_eq!(c.view(0).owner(16383), Some(5));
    assert_eq!(c.view(2).me().replica_of, Some(5));
    assert!(!c.events[before..]
        .iter()
        .any(|e| matches!(e.what, BusWhat::Voted { .. })));
}

#[test]
fn the_old_master_rejoins_as_a_replica_and_loses_unreplicated_writes() {
    let mut c = cluster(19, 3, 1, 1000);
    let key = key_of(0, 3, "x");
    assert_eq!(line(&mut c, 0, &format!("SET {key} 1")), Frame::ok());
    // Acknowledged, then the master dies before the stream arrives.
    c.kill_node(0);
    assert!(run_until(&mut c, 20_000_000, |c| promoted(c).is_some()));
    assert_eq!(line(&mut c, 3, &format!("GET {key}")), Frame::Null);
    c.restart_node(0);
    c.advance_by(3_000_000);
    assert_eq!(c.view(0).me().replica_of, Some(3));
    assert!(c.events.iter().any(|e| e.node == 0
        && e.what
            == BusWhat::Synced {
                master: 3,
                full: true
            }));
    assert!(!c.nodes[0].engine.holds_key(0, key.as_bytes()));
    for i in 1..6 {
        assert!(!c.view(i).nodes[0].failed, "node {i} cleared FAIL");
    }
}

/// Everything observable about one failover run.
fn failover_run(seed: u64) -> String {
    let mut c = cluster(seed, 3, 1, 1000);
    let mut client = c.client();
    let mut out = String::new();
    for i in 0..300 {
        if i == 50 {
            c.kill_node(1);
        }
        let o = client.run_line(&mut c, &format!("INCR k{}", i % 40));
        out.push_str(&format!("{:?} {}\n", o.reply, o.node));
        c.advance_by(50_000);
    }
    for e in &c.events {
        out.push_str(&format!("{e:?}\n"));
    }
    for i in 0..c.nodes.len() {
        out.push_str(&c.view(i).nodes_text());
    }
    out
}

#[test]
fn failover_is_deterministic() {
    let a = failover_run(5);
    assert_eq!(a, failover_run(5));
    assert!(a.contains("Promoted"));
    assert_ne!(a, failover_run(6));
}

#[test]
fn even_ranges_match_redis_cli() {
    assert_eq!(
        even_ranges(3),
        vec![(0, 5460), (5461, 10922), (10923, 16383)]
    );
    assert_eq!(even_ranges(1), vec![(0, 16383)]);
}

#[test]
fn a_cli_client_shows_moved_then_ask_during_a_migration() {
    let mut c = cluster(1, 3, 0, 15_000);
    let key = key_of(2, 3, "k");
    let slot = key_hash_slot(key.as_bytes());
    let mut cli = c.cli_client(0);
    let out = cli.run_line(&mut c, &format!("SET {key} v"));
    assert_eq!(out.reply, Frame::ok());
    assert_eq!(
        out.hops,
        vec![Hop {
            line: format!("MOVED {slot} 127.0.0.1:7002"),
            to: 2
        }]
    );
    assert_eq!((out.node, cli.connected), (2, Some(2)));
    // Connected to node 2 now, as redis-cli -c stays: no redirect.
    let out = cli.run_line(&mut c, &format!("GET {key}"));
    assert_eq!((out.reply, out.hops.len()), (Frame::bulk(b"v"), 0));
    // The slot migrates to node 1, its key moves first: ASK from node 2.
    c.begin_migration(slot, 1).expect("migrating");
    assert_eq!(c.migrate_keys(slot, 10).len(), 1);
    let mut cli = c.cli_client(0);
    let out = cli.run_line(&mut c, &format!("GET {key}"));
    let lines: Vec<&str> = out.hops.iter().map(|h| h.line.as_str()).collect();
    assert_eq!(
        lines,
        [
            format!("MOVED {slot} 127.0.0.1:7002"),
            format!("ASK {slot} 127.0.0.1:7001")
        ]
    );
    assert_eq!((out.reply, out.node), (Frame::bulk(b"v"), 1));
    assert_eq!(cli.stats.refreshes, 0, "redis-cli loads no slot map");
    // A node that is down: the next command goes to a live one.
    c.kill_node(1);
    let out = cli.run_line(&mut c, "PING");
    assert!(out.reply.is_error());
    assert_eq!(cli.connected, Some(2));
    let out = cli.run_line(&mut c, "PING");
    assert_eq!(out.reply, Frame::Simple("PONG".into()));
}
