//! The topology's own tests: failovers, partitions, resyncs, power loss, priorities, controls and replays.

use super::*;

fn kinds(t: &Topology, node: usize) -> Vec<&NodeEventKind> {
    t.events()
        .iter()
        .filter(|e| e.node == node)
        .map(|e| &e.kind)
        .collect()
}

#[test]
fn killing_the_master_fails_over_and_the_client_follows() {
    let mut t = Topology::new(TopoOptions::default());
    t.advance_to(5 * SEC);
    assert_eq!(t.view().client_master, 0);
    t.control(Control::Kill {
        node: 0,
        power_loss: false,
    })
    .unwrap();
    t.advance_to(15 * SEC);
    let v = t.view();
    assert_ne!(v.client_master, 0);
    assert_eq!(v.nodes[v.client_master].role, "master");
    assert!(kinds(&t, v.client_master).contains(&&NodeEventKind::Promoted));
    assert!(v.failover.is_none());
    let last = v.last_failover.unwrap();
    assert!(
        last.contains(&format!("from node 0 to node {}", v.client_master)),
        "{last}"
    );
    assert!(v.acked > 0 && v.refused > 0);
    // The other replica follows the new master.
    let other = 3 - v.client_master;
    assert_eq!(v.nodes[other].master_of, Some(v.client_master));
    // Writes are refused only between the crash and the switch.
    let first_ok_after = t
        .writes()
        .iter()
        .find(|w| w.sent_us > 5 * SEC && w.acked_us.is_some())
        .unwrap();
    assert!(
        first_ok_after.sent_us >= 5 * SEC + 2 * SEC,
        "down-after is 2 s"
    );
    assert!(first_ok_after.sent_us < 5 * SEC + 6 * SEC);
}

fn session() -> (TopoOptions, Vec<(u64, Control)>) {
    let o = TopoOptions {
        seed: 7,
        ..TopoOptions::default()
    };
    let script = vec![
        (0, Control::SetWriteRate(40.0)),
        (1_500_000, Control::SetWriteRate(60.0)),
        (1_500_000, Control::SetWait(1)),
        (3_000_000, Control::PauseLink { replica: 2 }),
        (3_700_000, Control::ResumeLink { replica: 2 }),
        (3_900_000, Control::SetWait(0)),
        (4_000_000, Control::Partition { node: 0 }),
        (9_000_000, Control::Heal { node: 0 }),
        (9_000_000, Control::SetWriteRate(80.0)),
        (
            12_000_000,
            Control::Kill {
                node: 1,
                power_loss: true,
            },
        ),
        (14_250_000, Control::Restart { node: 1 }),
        (
            15_000_000,
            Control::SetAppendfsync {
                node: 2,
                mode: "always".into(),
            },
        ),
    ];
    (o, script)
}

#[test]
fn same_seed_and_script_give_the_same_events_and_replay_reproduces_the_state() {
    let (o, script) = session();
    // Live: uneven steps, as animation frames would be.
    let mut live = Topology::new(o.clone());
    let mut t = 0;
    let mut next = script.iter().peekable();
    while t < 20 * SEC {
        t += 16_667;
        while let Some((at, c)) = next.peek() {
            if *at > t {
                break;
            }
            // Controls at one instant come without a step between
            // them, as two clicks on a paused clock do.
            if *at > live.now_us() {
                live.advance_to(*at);
            }
            live.control(c.clone()).unwrap();
            next.next();
        }
        live.advance_to(t);
    }
    assert_eq!(live.script(), &script[..]);
    let again = Topology::replay(o.clone(), live.script(), live.now_us());
    let json = |t: &Topology| serde_json::to_string(&(t.view(), t.events(), t.writes())).unwrap();
    assert_eq!(json(&live), json(&again));
    let other = Topology::replay(TopoOptions { seed: 8, ..o }, &script, live.now_us());
    assert_ne!(json(&live), json(&other), "the seed matters");
    assert!(live.view().lost > 0, "the healed partition lost writes");
}

#[test]
fn a_short_pause_resyncs_partially_a_long_one_fully() {
    let o = TopoOptions {
        repl_backlog_size: 16 * 1024,
        value_bytes: 100,
        writes_per_sec: 100.0,
        ..TopoOptions::default()
    };
    // About 13 KB of stream a second: 0.5 s fits in 16 KB, 5 s does not.
    let script = [
        (SEC, Control::PauseLink { replica: 1 }),
        (1_500_000, Control::ResumeLink { replica: 1 }),
        (2 * SEC, Control::PauseLink { replica: 2 }),
        (7 * SEC, Control::ResumeLink { replica: 2 }),
    ];
    let t = Topology::replay(o, &script, 8 * SEC);
    let syncs = |n| {
        t.events()
            .iter()
            .filter(|e| e.node == n && e.at_us > SEC)
            .filter_map(|e| match e.kind {
                NodeEventKind::FullSync => Some("full"),
                NodeEventKind::PartialSync => Some("partial"),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(syncs(1), ["partial"]);
    assert_eq!(syncs(2), ["full"]);
    let v = t.view();
    assert!(
        v.links.iter().all(|l| l.behind_bytes < 2_000),
        "{:?}",
        v.links
    );
}

fn power_loss(mode: &str) -> (u64, u64) {
    let o = TopoOptions {
        appendfsync: mode.into(),
        save: "".into(),
        down_after_ms: 5_000,
        ..TopoOptions::default()
    };
    let script = [
        (
            3_500_000,
            Control::Kill {
                node: 0,
                power_loss: true,
            },
        ),
        (4 * SEC, Control::Restart { node: 0 }),
    ];
    let t = Topology::replay(o, &script, 6 * SEC);
    let v = t.view();
    assert_eq!(v.client_master, 0, "{mode}: restarted before any failover");
    let restart_lost = t
        .events()
        .iter()
        .find_map(|e| match e.kind {
            NodeEventKind::Restart { lost_writes } => Some(lost_writes),
            _ => None,
        })
        .unwrap();
    assert_eq!(restart_lost, v.lost, "{mode}");
    (v.lost, v.acked)
}

#[test]
fn power_loss_with_appendfsync_always_loses_nothing_acknowledged() {
    let (always, acked) = power_loss("always");
    assert_eq!(always, 0);
    assert!(acked > 150);
    let (everysec, _) = power_loss("everysec");
    assert!(
        (1..=60).contains(&everysec),
        "about the last second: {everysec}"
    );
    let (no, _) = power_loss("no");
    let (off, _) = power_loss("off");
    assert!(no > everysec && off > everysec, "{no} {off}");
}

#[test]
fn replica_priority_beats_offset_in_the_election() {
    let o = TopoOptions {
        replicas: 3,
        priorities: vec![100, 100, 50, 0],
        ..TopoOptions::default()
    };
    let t = Topology::replay(
        o,
        &[(
            2 * SEC,
            Control::Kill {
                node: 0,
                power_loss: false,
            },
        )],
        10 * SEC,
    );
    assert_eq!(t.view().client_master, 2);
}

#[test]
fn a_partitioned_master_keeps_its_client_until_the_heal_unless_min_replicas_stops_it() {
    let run = |min: i64| {
        let o = TopoOptions {
            min_replicas_to_write: min,
            min_replicas_max_lag: 2,
            ..TopoOptions::default()
        };
        let script = [
            (2 * SEC, Control::Partition { node: 0 }),
            (12 * SEC, Control::Heal { node: 0 }),
        ];
        let t = Topology::replay(o, &script, 25 * SEC);
        let v = t.view();
        assert_ne!(v.client_master, 0);
        // The old master was converted to a replica of the new one.
        assert_eq!(v.nodes[0].master_of, Some(v.client_master));
        assert_eq!(v.nodes[0].link_status, "up");
        v.lost
    };
    let plain = run(0);
    let guarded = run(1);
    assert!(
        plain > 300,
        "ten seconds of writes to the isolated master: {plain}"
    );
    assert!(guarded < plain / 3, "{guarded} vs {plain}");
}

#[test]
fn controls_round_trip_as_tokens_and_bad_ones_are_refused() {
    let all = [
        Control::Kill {
            node: 0,
            power_loss: false,
        },
        Control::Kill {
            node: 3,
            power_loss: true,
        },
        Control::Restart { node: 1 },
        Control::Partition { node: 1 },
        Control::Heal { node: 1 },
        Control::PauseLink { replica: 2 },
        Control::ResumeLink { replica: 2 },
        Control::SetAppendfsync {
            node: 0,
            mode: "off".into(),
        },
        Control::Failover,
        Control::SetWait(2),
        Control::SetWriteRate(200.0),
        Control::SetWriteRate(0.25),
    ];
    for c in all {
        let tok = c.token();
        assert!(tok.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.'));
        assert_eq!(Control::parse(&tok), Ok(c), "{tok}");
    }
    assert_eq!(
        Control::Kill {
            node: 0,
            power_loss: true
        }
        .token(),
        "kill.0.power"
    );
    for bad in [
        "",
        "kill",
        "kill.x",
        "fsync.0.sometimes",
        "rate.-1",
        "rate.inf",
        "failover.1",
        "wait.a",
        "part.1.2",
    ] {
        assert!(Control::parse(bad).is_err(), "{bad}");
    }
    let mut t = Topology::new(TopoOptions::default());
    assert!(t.control(Control::Restart { node: 0 }).is_err());
    assert!(t.control(Control::Heal { node: 1 }).is_err());
    assert!(t
        .control(Control::Kill {
            node: 9,
            power_loss: false
        })
        .is_err());
    assert!(t.control(Control::SetWait(-1)).is_err());
    assert!(t.script().is_empty(), "refused controls are not logged");
}

#[test]
fn a_forced_failover_promotes_a_replica_while_the_master_lives() {
    let mut t = Topology::new(TopoOptions::default());
    t.advance_to(2 * SEC);
    t.control(Control::Failover).unwrap();
    assert!(t.control(Control::Failover).unwrap_err().contains("INPROG"));
    t.advance_to(15 * SEC);
    let v = t.view();
    assert_ne!(v.client_master, 0);
    // The old master, alive, is converted to a replica (after 8 s).
    assert_eq!(v.nodes[0].role, "replica");
    assert_eq!(v.nodes[0].master_of, Some(v.client_master));
}

#[test]
fn events_and_writes_stay_bounded() {
    let o = TopoOptions {
        writes_per_sec: 1_000.0,
        ..TopoOptions::default()
    };
    let mut t = Topology::new(o);
    t.advance_to(20 * SEC);
    assert!(t.events().len() <= 2 * EVENTS_CAP);
    assert!(t.events().windows(2).all(|w| w[0].at_us <= w[1].at_us));
    assert!(t.view().acked > 19_000);
}

#[test]
fn wait_one_is_not_enough_when_sentinel_promotes_the_slow_replica() {
    let run = |seed, wait| {
        let o = TopoOptions {
            seed,
            wait,
            writes_per_sec: 100.0,
            // Node 1 is fast but less preferred; node 2 is slow.
            latencies_ms: vec![20.0, 2.0, 80.0],
            priorities: vec![100, 200, 100],
            ..TopoOptions::default()
        };
        let kill = Control::Kill {
            node: 0,
            power_loss: false,
        };
        let t = Topology::replay(o, &[(3 * SEC, kill)], 10 * SEC);
        let v = t.view();
        assert_eq!(v.client_master, 2, "priority beats offset");
        // Link latencies belong to the replica: 2 ms plus half the jitter's 1 ms.
        let into1 = v.links.iter().find(|l| l.to == 1).unwrap();
        assert_eq!((into1.from, into1.latency_ms), (2, 2.5));
        v.lost
    };
    let one: u64 = (1..=3).map(|s| run(s, 1)).sum();
    let all: u64 = (1..=3).map(|s| run(s, 2)).sum();
    assert!(
        one > 0,
        "WAIT 1 answered by the fast replica, then it was not promoted"
    );
    assert_eq!(all, 0);
}
