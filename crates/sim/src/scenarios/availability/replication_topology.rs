//! The replication-topology scenario: canned fault scripts (kill the master, partition it, pause replicas' links, cut the power) played on the interactive topology, with the acknowledged writes each loses, the resyncs, and what WAIT, min-replicas-to-write or appendfsync change.

use crate::kernel::{MS, SEC};
use crate::outcome::{Chart, Outcome, Series, Strip, StripRow};
use crate::params::Params;
use crate::replication::sentinel::TICK_US;
use crate::scenario::Scenario;
use crate::topology::{
    addr, Control, NodeEventKind, TopoOption, TopoOptions, Topology, WriteRecord, FSYNC_MODES,
};

pub const REPLICATION_TOPOLOGY: Scenario = Scenario::new("replication-topology", topo_run);

/// Positions in the `script` choices (the lesson's scenarios.json); 3 is
/// power-loss.
const KILL: usize = 0;
const PARTITION: usize = 1;
const PAUSE: usize = 2;

/// The topology options the scenario exposes, in the order its form lists
/// them; names, defaults and ranges come from the options' table.
const TOPOLOGY_PARAMS: &[&str] = &[
    "appendfsync",
    "wait",
    "replicas",
    "writes_per_sec",
    "link_latency_ms",
    "down_after_ms",
];

/// The canned control script for `which`, and how long to run.
fn canned(which: usize) -> (Vec<(u64, Control)>, u64) {
    let kill = |power_loss| Control::Kill {
        node: 0,
        power_loss,
    };
    match which {
        KILL => (
            vec![
                (4 * SEC, kill(false)),
                (14 * SEC, Control::Restart { node: 0 }),
            ],
            26 * SEC,
        ),
        PARTITION => (
            vec![
                (4 * SEC, Control::Partition { node: 0 }),
                (14 * SEC, Control::Heal { node: 0 }),
            ],
            26 * SEC,
        ),
        PAUSE => (
            vec![
                (3 * SEC, Control::PauseLink { replica: 1 }),
                (4 * SEC, Control::ResumeLink { replica: 1 }),
                (6 * SEC, Control::PauseLink { replica: 2 }),
                (16 * SEC, Control::ResumeLink { replica: 2 }),
            ],
            20 * SEC,
        ),
        _ => (
            vec![
                (4_700_000, kill(true)),
                (5_200_000, Control::Restart { node: 0 }),
            ],
            8 * SEC,
        ),
    }
}

fn topo_options(p: &Params, seed: u64, which: usize) -> TopoOptions {
    let mut o = TopoOptions {
        seed,
        sentinels: 3,
        quorum: 2,
        // A small backlog and larger values, so a pause outgrows it in seconds.
        repl_backlog_size: if which == PAUSE { 32 * 1024 } else { 1 << 20 },
        value_bytes: if which == PAUSE { 100 } else { 16 },
        ..TopoOptions::default()
    };
    for &name in TOPOLOGY_PARAMS {
        if let Some(opt) = TopoOption::by_param(name) {
            opt.set_param(&mut o, p.get(name));
        }
    }
    if which == PAUSE {
        // The pause script needs a second replica to pause for long.
        o.replicas = o.replicas.max(2);
    }
    o
}

fn topo_run(p: &Params, seed: u64) -> Outcome {
    let scripts = REPLICATION_TOPOLOGY.info().choices("script");
    let which = p.choice("script").min(scripts.len() - 1);
    let opts = topo_options(p, seed, which);
    let (script, until) = canned(which);
    let (t, lag) = play(&opts, &script, until);
    let mut out = Outcome::new("replication-topology", seed, p);
    out.duration_us = until;
    let v = t.view();
    let fault = script[0].0;
    out.metric("acknowledged writes", v.acked as f64, "writes");
    out.metric("refused writes", v.refused as f64, "writes");
    out.metric("acknowledged then lost", v.lost as f64, "writes");
    let gap = unavailability(&t, fault);
    out.metric(
        "longest gap between acknowledged writes",
        gap as f64 / MS as f64,
        "ms",
    );
    let (full, partial) = syncs(&t);
    out.metric("full resyncs", full as f64, "");
    out.metric("partial resyncs", partial as f64, "");
    consistency_check(&mut out, &t);
    match which {
        KILL => {
            let waited = TopoOptions {
                wait: opts.replicas as i64,
                ..opts.clone()
            };
            let w = play(&waited, &script, until).0.view();
            out.check(
                "WAIT for every replica: no acknowledged write is lost in the failover",
                w.lost == 0,
                format!(
                    "{} lost with WAIT {} ({} acknowledged); {} lost here",
                    w.lost, opts.replicas, w.acked, v.lost
                ),
            );
            out.check(
                "the client cannot write from the crash until the sentinels switch masters (at least down-after)",
                gap >= opts.down_after_ms * MS,
                format!("{} ms without an acknowledged write; down-after {} ms", gap / MS, opts.down_after_ms),
            );
        }
        PARTITION => {
            let plain = TopoOptions {
                wait: 0,
                ..opts.clone()
            };
            let guarded = TopoOptions {
                wait: 0,
                min_replicas_to_write: 1,
                min_replicas_max_lag: 2,
                ..opts.clone()
            };
            let a = play(&plain, &script, until).0.view();
            let b = play(&guarded, &script, until).0.view();
            out.check(
                "writes the isolated master acknowledged are lost when the partition heals; min-replicas-to-write 1 (max lag 2 s) bounds them",
                a.lost > 0 && b.lost < a.lost,
                format!("no WAIT: {} lost; with min-replicas-to-write: {}", a.lost, b.lost),
            );
        }
        PAUSE => {
            let expected = pause_expectations(&t, &script);
            let ok = expected.iter().all(|(_, want, got)| Some(*want) == *got);
            out.check(
                "a replica resyncs partially when the backlog still holds its offset, fully when it does not",
                ok && expected.iter().any(|(_, f, _)| *f) && expected.iter().any(|(_, f, _)| !*f),
                expected
                    .iter()
                    .map(|(r, want, got)| {
                        format!(
                            "replica {r}: backlog says {}, saw {}",
                            if *want { "full" } else { "partial" },
                            match got {
                                Some(true) => "full",
                                Some(false) => "partial",
                                None => "none",
                            }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            );
        }
        _ => {
            let mut lost = Vec::new();
            for mode in FSYNC_MODES {
                let o = TopoOptions {
                    appendfsync: mode.to_string(),
                    wait: 0,
                    ..opts.clone()
                };
                lost.push(play(&o, &script, until).0.view().lost);
            }
            out.charts.push(
                Chart::bars(
                    "Acknowledged writes lost to a power loss, by appendfsync",
                    "writes",
                    FSYNC_MODES,
                )
                .with(Series::per_category("lost", lost.iter().map(|&l| l as f64))),
            );
            let per_sec = opts.writes_per_sec;
            out.check(
                "after a power loss appendfsync always loses nothing acknowledged, everysec about a second, no and RDB-only far more",
                lost[0] == 0 && (lost[1] as f64) <= per_sec * 2.0 + 2.0 && lost[2] > lost[1] && lost[3] > lost[1],
                format!("always {}, everysec {}, no {}, off {}", lost[0], lost[1], lost[2], lost[3]),
            );
        }
    }
    out.charts.push(
        Chart::line(
            "Replica lag: bytes behind its master",
            "virtual time (s)",
            "bytes",
        )
        .with_all(lag),
    );
    out.strips.push(write_strip(&t, fault));
    out.diagram = Some(diagram(&t));
    out.note(format!(
        "{} writes sent, {} acknowledged, {} refused, {} acknowledged and later lost; the client ends on node {} ({}).",
        v.writes, v.acked, v.refused, v.lost, v.client_master, addr(v.client_master)
    ));
    out
}

/// Replays `script` to `until`, sampling each replica's lag every 100 ms.
fn play(opts: &TopoOptions, script: &[(u64, Control)], until: u64) -> (Topology, Vec<Series>) {
    let mut t = Topology::new(opts.clone());
    let n = t.node_count();
    let mut lag: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
    let mut next = 0;
    let mut now = 0;
    while now <= until {
        while next < script.len() && script[next].0 <= now {
            t.advance_to(script[next].0);
            let _ = t.control(script[next].1.clone());
            next += 1;
        }
        t.advance_to(now);
        for l in t.view().links {
            lag[l.to].push((now as f64 / SEC as f64, l.behind_bytes as f64));
        }
        now += TICK_US;
    }
    let series = lag
        .into_iter()
        .enumerate()
        .filter(|(_, pts)| !pts.is_empty())
        .map(|(i, pts)| Series::new(&format!("node {i}"), pts))
        .collect();
    (t, series)
}

/// The longest stretch after `from` without an acknowledged write.
fn unavailability(t: &Topology, from: u64) -> u64 {
    let mut last = from;
    let mut worst = 0;
    for w in t.writes() {
        if let Some(a) = w.acked_us {
            if a >= from {
                worst = worst.max(a - last);
                last = a;
            }
        }
    }
    worst.max(t.now_us().saturating_sub(last))
}

fn syncs(t: &Topology) -> (u64, u64) {
    let mut full = 0;
    let mut partial = 0;
    for e in t.events() {
        match e.kind {
            NodeEventKind::FullSync => full += 1,
            NodeEventKind::PartialSync => partial += 1,
            _ => {}
        }
    }
    (full, partial)
}

/// For each paused replica: whether the stream it missed outgrew the
/// backlog (so a full resync is due), and whether its resync was full.
fn pause_expectations(t: &Topology, script: &[(u64, Control)]) -> Vec<(usize, bool, Option<bool>)> {
    let mut out = Vec::new();
    for (at, c) in script {
        let Control::PauseLink { replica } = c else {
            continue;
        };
        let sync = t
            .syncs()
            .iter()
            .find(|s| s.replica == *replica && s.at_us > *at);
        let want_full = sync.is_some_and(|s| {
            s.master_offset.saturating_sub(s.replica_offset) > t.options().repl_backlog_size
        });
        out.push((*replica, want_full, sync.map(|s| s.full)));
    }
    out
}

/// Every acknowledged write is either held by the client's master or marked lost.
fn consistency_check(out: &mut Outcome, t: &Topology) {
    let v = t.view();
    let m = v.client_master;
    let bad = t
        .writes()
        .iter()
        .filter(|w| w.acked_us.is_some())
        .filter(|w| t.holds(m, w.id) == w.lost_us.is_some())
        .count();
    out.check(
        "every acknowledged write is either on the client's final master or marked lost",
        bad == 0 && v.nodes[m].alive,
        format!("{bad} writes contradict their marking (final master node {m})"),
    );
}

const STRIP_LEGEND: &[&str] = &[
    "refused",
    "acknowledged",
    "acknowledged, then lost",
    "absent",
    "held",
];

/// One cell per write from 2 s before the first control: the client's
/// verdict, then which nodes hold each write at the end.
fn write_strip(t: &Topology, fault: u64) -> Strip {
    let ws: Vec<&WriteRecord> = t
        .writes()
        .iter()
        .filter(|w| w.sent_us + 2 * SEC >= fault)
        .take(800)
        .collect();
    let mut rows = vec![StripRow {
        label: "client".into(),
        cells: ws
            .iter()
            .map(|w| match (w.acked_us, w.lost_us) {
                (None, _) => 0,
                (Some(_), None) => 1,
                (Some(_), Some(_)) => 2,
            })
            .collect(),
    }];
    for (i, n) in t.view().nodes.iter().enumerate() {
        rows.push(StripRow {
            label: format!("node {i}{}", if n.alive { "" } else { " (down)" }),
            cells: ws
                .iter()
                .map(|w| if t.holds(i, w.id) { 4 } else { 3 })
                .collect(),
        });
    }
    Strip {
        title: "Each write from 2 s before the first fault: the client's verdict, and which nodes hold it at the end".into(),
        legend: STRIP_LEGEND.iter().map(|s| s.to_string()).collect(),
        rows,
    }
}

/// The race diagram: a lane per node, the client and the sentinels.
fn diagram(t: &Topology) -> crate::outcome::Diagram {
    let mut rec = crate::kernel::Recorder {
        step_cap: 240,
        ..Default::default()
    };
    let client = rec.lane("client", "client");
    let n = t.node_count();
    let lanes: Vec<usize> = (0..n)
        .map(|i| rec.lane(&format!("node {i} {}", addr(i)), "redis"))
        .collect();
    let sent = rec.lane("sentinels", "sentinel");
    let mut refused_streak = false;
    let mut lost_ids = std::collections::BTreeSet::new();
    for e in t.events() {
        if let NodeEventKind::Lost { ids } = &e.kind {
            lost_ids.extend(ids.iter().copied());
        }
    }
    let step = MS * 5;
    for e in t.events() {
        let (at, lane) = (e.at_us, lanes[e.node]);
        match &e.kind {
            NodeEventKind::Acked { id } => {
                refused_streak = false;
                if lost_ids.contains(id) && lost_ids.range(..id).count() < 12 {
                    rec.msg(
                        at,
                        at + step,
                        client,
                        lane,
                        format!("SET w:{id} → OK (later lost)"),
                    );
                }
            }
            NodeEventKind::Refused { id, error } => {
                if !refused_streak {
                    rec.msg(at, at + step, client, lane, format!("w:{id}: {error}"))
                        .failed();
                }
                refused_streak = true;
            }
            NodeEventKind::Crash { power_loss } => rec.local(
                at,
                at + step,
                lane,
                if *power_loss {
                    "power loss"
                } else {
                    "process killed"
                },
            ),
            NodeEventKind::Restart { lost_writes } => {
                rec.local(at, at + step, lane, "restart from its files");
                let tone = if *lost_writes > 0 { "bad" } else { "good" };
                rec.mark(
                    at,
                    lane,
                    tone,
                    format!("Restarted missing {lost_writes} writes it had acknowledged."),
                );
            }
            NodeEventKind::Partitioned => rec.local(at, at + step, lane, "partitioned"),
            NodeEventKind::Healed => rec.local(at, at + step, lane, "partition heals"),
            NodeEventKind::LinkPaused => rec.local(at, at + step, lane, "link paused"),
            NodeEventKind::LinkResumed => rec.local(at, at + step, lane, "link resumed"),
            NodeEventKind::Appendfsync { mode } => {
                rec.local(at, at + step, lane, format!("appendfsync {mode}"))
            }
            NodeEventKind::Sdown { sentinel } => rec.local(
                at,
                at + step,
                sent,
                format!("sentinel {sentinel} +sdown node {}", e.node),
            ),
            NodeEventKind::Odown { sentinel, agree } => rec.mark(
                at,
                sent,
                "info",
                format!(
                    "sentinel {sentinel}: +odown node {} ({agree} agree)",
                    e.node
                ),
            ),
            NodeEventKind::TryFailover { sentinel, epoch } => rec.local(
                at,
                at + step,
                sent,
                format!("sentinel {sentinel} +try-failover epoch {epoch}"),
            ),
            NodeEventKind::Elected { sentinel, epoch } => rec.local(
                at,
                at + step,
                sent,
                format!("sentinel {sentinel} elected leader of epoch {epoch}"),
            ),
            NodeEventKind::ElectionFailed { sentinel, epoch } => rec.mark(
                at,
                sent,
                "info",
                format!("sentinel {sentinel}: no majority in epoch {epoch}"),
            ),
            NodeEventKind::NoGoodReplica { sentinel } => rec.mark(
                at,
                sent,
                "bad",
                format!("sentinel {sentinel}: no replica fit for promotion"),
            ),
            NodeEventKind::Promoted => {
                rec.msg(at, at + step, sent, lane, "REPLICAOF NO ONE");
            }
            NodeEventKind::Repointed { to } => {
                rec.msg(
                    at,
                    at + step,
                    sent,
                    lane,
                    format!("REPLICAOF {}", addr(*to)),
                );
            }
            NodeEventKind::SwitchMaster { epoch } => {
                rec.msg(
                    at,
                    at + step,
                    sent,
                    client,
                    format!("+switch-master {} (epoch {epoch})", addr(e.node)),
                );
            }
            NodeEventKind::ClientSwitched => rec.local(
                at,
                at + step,
                client,
                format!("writes go to node {}", e.node),
            ),
            NodeEventKind::FullSync | NodeEventKind::PartialSync => {
                let full = e.kind == NodeEventKind::FullSync;
                let master = t
                    .syncs()
                    .iter()
                    .find(|s| s.at_us == at && s.replica == e.node)
                    .map_or(e.node, |s| s.master);
                let label = if full {
                    "full resync (RDB)"
                } else {
                    "partial resync (backlog)"
                };
                rec.msg(at.saturating_sub(step), at, lanes[master], lane, label);
                if full {
                    rec.mark(at, lane, "info", "Full resync: the master's backlog no longer holds this replica's offset (or the history changed), so it loads a snapshot of the whole dataset.");
                } else {
                    rec.mark(
                        at,
                        lane,
                        "good",
                        "Partial resync: the backlog still holds everything this replica missed.",
                    );
                }
            }
            NodeEventKind::LinkDown => rec.local(at, at + step, lane, "link to master down"),
            NodeEventKind::Lost { ids } => rec.mark(
                at,
                lane,
                "bad",
                format!(
                    "{} acknowledged writes are not on the client's master (w:{}…w:{})",
                    ids.len(),
                    ids.first().copied().unwrap_or(0),
                    ids.last().copied().unwrap_or(0)
                ),
            ),
            NodeEventKind::SnapshotStart => rec.local(at, at + step, lane, "BGSAVE fork"),
            NodeEventKind::Write { .. }
            | NodeEventKind::Arrived { .. }
            | NodeEventKind::Ack { .. }
            | NodeEventKind::Fsync { .. }
            | NodeEventKind::SnapshotEnd { .. } => {}
        }
    }
    rec.take_diagram()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::all_pass;

    #[test]
    fn every_canned_script_passes_its_checks() {
        for &script in REPLICATION_TOPOLOGY.info().choices("script") {
            for out in all_pass("replication-topology", &[("script", script)]) {
                assert!(out.checks.len() >= 2, "{script}");
                let d = out.diagram.as_ref().unwrap();
                assert!(!d.marks.is_empty() && !d.steps.is_empty(), "{script}");
                assert_eq!(out.strips[0].rows.len(), 4, "client + 3 nodes");
            }
        }
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices(
            "replication-topology",
            "script",
            "kill-master partition-master pause-replica power-loss",
        );
        crate::testing::assert_choices(
            "replication-topology",
            "appendfsync",
            &crate::topology::FSYNC_MODES.join(" "),
        );
    }
}
