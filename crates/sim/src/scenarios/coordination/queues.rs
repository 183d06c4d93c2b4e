//! Job queues on lists and sorted sets (what a worker crash loses, what a naive claim runs twice), and Pub/Sub against streams (what a disconnect, a crash and trimming lose).
//!
//! Workers block for real: `BRPOP`/`BLMOVE` go through [`Redis::submit`],
//! and a blocked worker's reply is produced by Redis (the engine, or a real
//! server under `--against`) when a producer's `LPUSH` serves it, collected
//! with [`Redis::take_unblocked`] and sent back over the link. Pub/Sub
//! messages reach subscribers the same way.
//! A crash closes the worker's connection (Redis unblocks it) and drops
//! whatever reply was on its way.

use super::{bulk, int, short};
use crate::kernel::{Dist, Kernel, Link, Micros, Redis, MS};
use crate::outcome::Outcome;
use crate::outcome::{Chart, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::engine::ClientId;
use redsim_engine::proto::resp::Frame;
use std::collections::BTreeMap;

fn args(a: &[impl AsRef<str>]) -> Vec<Vec<u8>> {
    a.iter().map(|s| s.as_ref().as_bytes().to_vec()).collect()
}

/// A command as a worker sends it over its link.
fn cmd(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// Worker `w`'s processing list (BLMOVE's destination) and heartbeat key.
fn worker_keys(w: usize) -> (String, String) {
    (format!("processing:w{}", w + 1), format!("hb:w{}", w + 1))
}

/// Worker `w`'s heartbeat: a key that expires `hb_ms` after the last beat.
fn beat(redis: &mut Redis, at: Micros, beats: ClientId, w: usize, hb_ms: u64) {
    let (_, hb) = worker_keys(w);
    redis.execute(
        at,
        beats,
        &args(&["SET", &hb, "1", "PX", &hb_ms.to_string()]),
    );
}

/// The reaper's script for worker `w`: `unconditional` on the worker's own
/// restart, else only once its heartbeat is gone.
fn reap_cmd(w: usize, unconditional: bool) -> Vec<String> {
    let (list, hb) = worker_keys(w);
    let flag = if unconditional { "1" } else { "0" };
    cmd(&["EVAL", REAP_LUA, "3", &list, &hb, "queue", flag])
}

/// The elements of an array reply as text.
fn texts(f: &Frame) -> Vec<String> {
    match f {
        Frame::Array(v) | Frame::Set(v) | Frame::Push(v) => v.iter().filter_map(bulk).collect(),
        _ => Vec::new(),
    }
}

pub const QUEUES: Scenario = Scenario::new("queues", queues_run);

/// Moves everything a dead worker had taken back to the queue, if its heartbeat is gone (or unconditionally with ARGV[1] = 1, on its own restart).
const REAP_LUA: &str = "if ARGV[1] == '1' or redis.call('EXISTS', KEYS[2]) == 0 then local n = 0 while redis.call('LMOVE', KEYS[1], KEYS[3], 'RIGHT', 'RIGHT') do n = n + 1 end return n end return 0";
/// Claims due delayed jobs in one step: nobody else can see them between the read and the removal.
const CLAIM_LUA: &str = "local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2]) if #ids > 0 then redis.call('ZREM', KEYS[1], unpack(ids)) end return ids";

#[derive(Clone, Debug)]
enum QEv {
    Produce(u64),
    /// A worker's command reaches Redis.
    Arrive(usize, u64, Vec<String>),
    /// A reply reaches a worker incarnation.
    Reply(usize, u64, Frame),
    Done(usize, u64, String),
    Restart(usize),
    Reap,
    Poll(usize),
    /// A worker's heartbeat thread refreshes its key.
    Beat(usize),
}

struct Worker {
    lane: usize,
    client: ClientId,
    /// Bumped by a crash, so replies to a dead incarnation are dropped.
    life: u64,
    alive: bool,
    busy_with: Option<String>,
    /// When this worker's previous command reaches Redis: one TCP connection delivers in order.
    last_arrival: Micros,
}

#[derive(Default)]
struct QResult {
    lost: u64,
    duplicates: u64,
    completed: u64,
    reaped: u64,
    diagram: Option<crate::outcome::Diagram>,
}

impl QResult {
    fn tally(&self) -> String {
        format!("{} lost, {} run twice", self.lost, self.duplicates)
    }
}

fn queues_once(p: &Params, seed: u64, design: usize, record: bool) -> QResult {
    let jobs = p.count("jobs").max(1);
    let work = p.count("work_ms").max(1) * MS;
    let crash_at = p.count("crash_at_ms") * MS;
    let poll = p.count("poll_ms").max(1) * MS;
    let delayed = design >= 2;
    let restart_after = 500 * MS;
    let hb_ms = 300;
    let end = jobs * 10 * MS + 2_000 * MS;

    let mut k: Kernel<QEv> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    let link = Link::new(Dist::jittered(400, 200));
    let prod_lane = k.rec.lane("producer", "client");
    let mut ws: Vec<Worker> = (0..3)
        .map(|i| {
            let lane = k.rec.lane(&format!("worker {}", i + 1), "client");
            Worker {
                lane,
                client: redis.connect(&format!("w{}", i + 1)),
                life: 0,
                alive: true,
                busy_with: None,
                last_arrival: 0,
            }
        })
        .collect();
    let rl = k.rec.lane("redis", "redis");
    let reaper_lane = if design == 1 {
        k.rec.lane("reaper", "client")
    } else {
        rl
    };
    k.rec.step_cap = if record { 160 } else { 1 };
    let reaper = redis.connect("reaper");
    let producer = redis.connect("producer");
    // The workers' heartbeat threads have their own connection: a worker's
    // own is blocked in BLMOVE most of the time.
    let beats = redis.connect("heartbeats");
    let mut runs: BTreeMap<String, u64> = BTreeMap::new();
    let mut crash_pending = !delayed;
    let mut res = QResult::default();

    k.at(0, QEv::Produce(0));
    for (w, _) in ws.iter().enumerate() {
        if delayed {
            k.at(poll, QEv::Poll(w));
        } else {
            k.at(MS, QEv::Done(w, 0, String::new()));
        }
    }
    if design == 1 {
        k.at(100 * MS, QEv::Reap);
        for w in 0..ws.len() {
            k.at(0, QEv::Beat(w));
        }
    }
    let blocking_cmd = |w: usize| -> Vec<String> {
        if design == 0 {
            cmd(&["BRPOP", "queue", "0"])
        } else {
            cmd(&["BLMOVE", "queue", &worker_keys(w).0, "RIGHT", "LEFT", "0"])
        }
    };

    while let Some(ev) = k.next(end) {
        let now = k.now();
        match ev {
            QEv::Produce(i) => {
                let job = format!("job:{i}");
                let r = if delayed {
                    let due = (now / MS + 50 + k.rng.u64(0..=250)).to_string();
                    k.rec
                        .msg(now, now, prod_lane, rl, format!("ZADD delayed {due} {job}"));
                    redis.submit(now, producer, &args(&["ZADD", "delayed", &due, &job]))
                } else {
                    k.rec
                        .msg(now, now, prod_lane, rl, format!("LPUSH queue {job}"));
                    redis.submit(now, producer, &args(&["LPUSH", "queue", &job]))
                };
                debug_assert!(r.is_some_and(|f| !f.is_error()));
                deliver(&mut k, &link, &mut redis, &ws, rl);
                if i + 1 < jobs {
                    let gap = 5 * MS + k.rng.u64(0..=10 * MS);
                    k.after(gap, QEv::Produce(i + 1));
                }
            }
            QEv::Arrive(w, life, cmd) => {
                if life != ws[w].life {
                    continue;
                }
                let r = redis.submit(now, ws[w].client, &args(&cmd));
                if let Some(f) = r {
                    let d = link.delay(&mut k.rng).unwrap_or(0);
                    k.rec.msg(now, now + d, rl, ws[w].lane, short(&f));
                    k.after(d, QEv::Reply(w, life, f));
                } else {
                    k.rec.local(
                        now,
                        now,
                        rl,
                        format!("worker {} blocks on the empty queue", w + 1),
                    );
                }
                deliver(&mut k, &link, &mut redis, &ws, rl);
            }
            QEv::Reply(w, life, f) => {
                if life != ws[w].life || !ws[w].alive {
                    continue;
                }
                if delayed {
                    // A poll's reply: the due jobs this worker believes it claimed.
                    let ids = texts(&f);
                    if design == 2 && !ids.is_empty() {
                        // Naive: remove them in a second command; run them whatever ZREM says.
                        let mut cmd = vec!["ZREM".to_string(), "delayed".into()];
                        cmd.extend(ids.iter().cloned());
                        send(&mut k, &link, &mut ws[w], w, rl, cmd);
                    }
                    if matches!(f, Frame::Array(_)) {
                        let mut t = 0;
                        for id in ids {
                            t += work / 5;
                            k.after(t, QEv::Done(w, life, id));
                        }
                    }
                    continue;
                }
                let job = match (&f, design) {
                    (Frame::Array(v), 0) => v.get(1).and_then(bulk),
                    (Frame::Bulk(_), 1) => bulk(&f),
                    _ => None,
                };
                let Some(job) = job else {
                    continue;
                };
                if crash_pending && now >= crash_at && w == 0 {
                    crash_pending = false;
                    ws[w].alive = false;
                    ws[w].life += 1;
                    redis.disconnect(now, ws[w].client);
                    k.rec.local(
                        now,
                        now + restart_after,
                        ws[w].lane,
                        format!("crashes holding {job}"),
                    );
                    k.rec.mark(now, ws[w].lane, if design == 0 { "bad" } else { "info" }, if design == 0 {
                        format!("Worker 1 dies with {job}: BRPOP already removed it from Redis, so no copy is left anywhere.")
                    } else {
                        format!("Worker 1 dies with {job}; a copy waits in processing:w1 until the reaper returns it.")
                    });
                    k.after(restart_after, QEv::Restart(w));
                    continue;
                }
                ws[w].busy_with = Some(job.clone());
                let j = work / 2;
                let t = work - j + k.rng.u64(0..=2 * j);
                k.after(t, QEv::Done(w, life, job));
            }
            QEv::Done(w, life, job) => {
                if life != ws[w].life || !ws[w].alive {
                    continue;
                }
                if !job.is_empty() {
                    *runs.entry(job.clone()).or_default() += 1;
                    if runs[&job] == 2 {
                        k.rec.mark(now, ws[w].lane, "bad", format!("Worker {} runs {job} a second time: two workers read it before either removed it.", w + 1));
                    }
                }
                ws[w].busy_with = None;
                if delayed {
                    continue;
                }
                if design == 1 && !job.is_empty() {
                    let lrem = cmd(&["LREM", &worker_keys(w).0, "1", &job]);
                    send(&mut k, &link, &mut ws[w], w, rl, lrem);
                }
                send(&mut k, &link, &mut ws[w], w, rl, blocking_cmd(w));
            }
            QEv::Restart(w) => {
                ws[w].alive = true;
                ws[w].client = redis.connect(&format!("w{}", w + 1));
                if design == 1 {
                    // The heartbeat starts with the worker, before it takes any job.
                    beat(&mut redis, now, beats, w, hb_ms);
                }
                k.rec.local(now, now, ws[w].lane, "restarts");
                if design == 1 {
                    send(&mut k, &link, &mut ws[w], w, rl, reap_cmd(w, true));
                }
                send(&mut k, &link, &mut ws[w], w, rl, blocking_cmd(w));
            }
            QEv::Reap => {
                for w in 0..ws.len() {
                    let (list, _) = worker_keys(w);
                    let r = redis.submit(now, reaper, &args(&reap_cmd(w, false)));
                    let n = r.as_ref().map_or(0, int);
                    if n > 0 {
                        res.reaped += n as u64;
                        k.rec.msg(
                            now,
                            now,
                            reaper_lane,
                            rl,
                            format!("reap {list}: {n} back to queue"),
                        );
                        k.rec.mark(now, reaper_lane, "good", format!("Worker {}'s heartbeat expired: the reaper moves its {n} unfinished job(s) back to the queue.", w + 1));
                    }
                }
                deliver(&mut k, &link, &mut redis, &ws, rl);
                k.after(100 * MS, QEv::Reap);
            }
            QEv::Beat(w) => {
                if ws[w].alive {
                    // Not drawn: heartbeats would crowd the diagram.
                    beat(&mut redis, now, beats, w, hb_ms);
                }
                k.after(100 * MS, QEv::Beat(w));
            }
            QEv::Poll(w) => {
                let now_ms = (now / MS).to_string();
                let poll_cmd = if design == 2 {
                    cmd(&[
                        "ZRANGEBYSCORE",
                        "delayed",
                        "-inf",
                        &now_ms,
                        "LIMIT",
                        "0",
                        "10",
                    ])
                } else {
                    cmd(&["EVAL", CLAIM_LUA, "1", "delayed", &now_ms, "10"])
                };
                send(&mut k, &link, &mut ws[w], w, rl, poll_cmd);
                // Workers poll on the clock's tick, as cron-style schedulers do.
                let next = (now / poll + 1) * poll + k.rng.u64(0..=2 * MS);
                k.at(next, QEv::Poll(w));
            }
        }
    }
    let all: Vec<String> = (0..jobs).map(|i| format!("job:{i}")).collect();
    res.lost = all.iter().filter(|j| !runs.contains_key(*j)).count() as u64;
    res.duplicates = runs.values().map(|&n| n.saturating_sub(1)).sum();
    res.completed = runs.len() as u64;
    if record {
        res.diagram = Some(k.rec.take_diagram());
    }
    res
}

/// Sends a worker's command over its link.
fn send(k: &mut Kernel<QEv>, link: &Link, w: &mut Worker, i: usize, rl: usize, cmd: Vec<String>) {
    let now = k.now();
    let at = (now + link.delay(&mut k.rng).unwrap_or(0)).max(w.last_arrival);
    w.last_arrival = at;
    let d = at - now;
    let label = if cmd.first().is_some_and(|c| c == "EVAL") {
        "EVAL (script)".to_string()
    } else {
        cmd.join(" ")
    };
    k.rec.msg(now, now + d, w.lane, rl, label);
    k.after(d, QEv::Arrive(i, w.life, cmd));
}

/// Hands replies the engine produced for blocked workers back over the link.
fn deliver(k: &mut Kernel<QEv>, link: &Link, redis: &mut Redis, ws: &[Worker], rl: usize) {
    for (id, f) in redis.take_unblocked(k.now()) {
        if let Some(w) = ws.iter().position(|w| w.client == id && w.alive) {
            let now = k.now();
            let d = link.delay(&mut k.rng).unwrap_or(0);
            k.rec.msg(
                now,
                now + d,
                rl,
                ws[w].lane,
                format!("unblocked: {}", short(&f)),
            );
            k.after(d, QEv::Reply(w, ws[w].life, f));
        }
    }
}

fn queues_run(p: &Params, seed: u64) -> Outcome {
    let designs = QUEUES.info().choices("show");
    let show = p.choice("show").min(designs.len() - 1);
    let mut rs: Vec<QResult> = (0..designs.len())
        .map(|d| queues_once(p, seed, d, d == show))
        .collect();
    let jobs = p.count("jobs").max(1);
    let mut out = Outcome::new("queues", seed, p);
    out.duration_us = jobs * 10 * MS + 2_000 * MS;
    for (i, d) in designs.iter().enumerate() {
        out.metric(&format!("{d}: jobs lost"), rs[i].lost as f64, "jobs");
        out.metric(
            &format!("{d}: jobs run twice"),
            rs[i].duplicates as f64,
            "jobs",
        );
    }
    out.metric(
        "blmove: jobs returned by the reaper",
        rs[1].reaped as f64,
        "jobs",
    );
    out.check(
        "LPUSH/BRPOP: the crashed worker's job is lost",
        rs[0].lost >= 1,
        format!("{} of {jobs} jobs never ran", rs[0].lost),
    );
    out.check(
        "BLMOVE + processing list + reaper: every job runs, none twice",
        rs[1].lost == 0 && rs[1].duplicates == 0 && rs[1].completed == jobs,
        format!("{}, {} reaped", rs[1].tally(), rs[1].reaped),
    );
    out.check(
        "Naive ZRANGEBYSCORE + ZREM claim: some delayed job runs twice",
        rs[2].duplicates >= 1,
        format!("{} duplicate runs", rs[2].duplicates),
    );
    out.check(
        "Lua claim: every delayed job runs exactly once",
        rs[3].lost == 0 && rs[3].duplicates == 0,
        rs[3].tally(),
    );
    let lost = rs.iter().map(|r| r.lost as f64);
    let twice = rs.iter().map(|r| r.duplicates as f64);
    out.charts.push(
        Chart::bars("Lost and duplicated jobs per design", "jobs", designs)
            .with(Series::per_category("lost", lost))
            .with(Series::per_category("run twice", twice)),
    );
    out.note(format!(
        "BRPOP lost {} job(s) to the crash; BLMOVE lost {} (the reaper returned {}).",
        rs[0].lost, rs[1].lost, rs[1].reaped
    ));
    out.note(format!(
        "Delayed jobs: the naive claim ran {} job(s) twice, the Lua claim {}.",
        rs[2].duplicates, rs[3].duplicates
    ));
    out.diagram = rs[show].diagram.take();
    out
}

// ---------------------------------------------------------------- pubsub-vs-streams

pub const PUBSUB_VS_STREAMS: Scenario = Scenario::new("pubsub-vs-streams", ps_run);

#[derive(Clone, Debug)]
enum PEv {
    Produce(u64),
    Disconnect,
    Reconnect,
    GroupPoll(usize),
    Claim,
    ReadPoll,
    /// A frame reaches a consumer lane (pub/sub message or stream reply).
    Got(usize, Frame),
}

fn ps_run(p: &Params, seed: u64) -> Outcome {
    let events = p.count("events").max(1);
    let away = p.count("away_ms") * MS;
    let maxlen = p.count("maxlen").max(1).to_string();
    let reader_gap = (1_000_000.0 / p.get("reader_per_s").max(1.0)) as Micros;
    let disc_at = 600 * MS;
    let crash_at = 500 * MS;
    let end = events * 10 * MS + 1_500 * MS;

    let mut k: Kernel<PEv> = Kernel::new(seed);
    let mut r = Redis::new(seed, &[]);
    let link = Link::new(Dist::jittered(400, 200));
    let prod_lane = k.rec.lane("producer", "client");
    let rl = k.rec.lane("redis", "redis");
    let sub_lane = k.rec.lane("subscriber", "client");
    let c_lanes = [
        k.rec.lane("consumer c1", "client"),
        k.rec.lane("consumer c2", "client"),
    ];
    let reader_lane = k.rec.lane("lagging reader", "client");
    k.rec.step_cap = 200;
    let producer = r.connect("producer");
    let mut sub = r.connect("subscriber");
    let cons = [r.connect("c1"), r.connect("c2")];
    let reader = r.connect("reader");
    let first = r.submit(0, sub, &args(&["SUBSCRIBE", "events"]));
    debug_assert!(first.is_some());
    let g = r.execute(
        0,
        cons[0],
        &args(&["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]),
    );
    debug_assert!(!g.is_error(), "{g:?}");
    let _ = r.take_unblocked(0);

    let mut sub_connected = true;
    let mut zero_receivers = 0u64;
    let mut sub_seen: Vec<bool> = vec![false; events as usize];
    let mut group_done: Vec<bool> = vec![false; events as usize];
    let mut reader_last = "0-0".to_string();
    let mut reader_seq: i64 = -1;
    let mut reader_skipped = 0u64;
    let mut reader_read = 0u64;
    let mut c1_alive = true;
    let mut claimed = 0u64;
    let mut gap_marked = false;

    k.at(0, PEv::Produce(0));
    k.at(disc_at, PEv::Disconnect);
    k.at(50 * MS, PEv::GroupPoll(0));
    k.at(75 * MS, PEv::GroupPoll(1));
    k.at(200 * MS, PEv::Claim);
    k.at(reader_gap, PEv::ReadPoll);

    // Sequence numbers in an XREAD/XREADGROUP/XAUTOCLAIM reply's entries.
    fn entry_seqs(f: &Frame) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        let mut visit_entries = |entries: &Frame| {
            if let Frame::Array(es) = entries {
                for en in es {
                    if let Frame::Array(pair) = en {
                        let id = pair.first().and_then(bulk).unwrap_or_default();
                        let seq = match pair.get(1) {
                            Some(Frame::Array(fv)) => fv
                                .get(1)
                                .and_then(bulk)
                                .and_then(|s| s.parse().ok())
                                .unwrap_or(-1),
                            _ => -1,
                        };
                        out.push((id, seq));
                    }
                }
            }
        };
        match f {
            // XREAD/XREADGROUP: [[key, entries]]
            Frame::Array(streams)
                if streams
                    .first()
                    .is_some_and(|s| matches!(s, Frame::Array(_))) =>
            {
                for s in streams {
                    if let Frame::Array(kv) = s {
                        if let Some(en) = kv.get(1) {
                            visit_entries(en);
                        }
                    }
                }
            }
            // XAUTOCLAIM: [next, entries, deleted]
            Frame::Array(parts) if parts.len() == 3 => {
                if let Some(en) = parts.get(1) {
                    visit_entries(en);
                }
            }
            _ => {}
        }
        out
    }

    while let Some(ev) = k.next(end) {
        let now = k.now();
        r.sync(now);
        match ev {
            PEv::Produce(i) => {
                let seq = i.to_string();
                let n = int(&r.execute(now, producer, &args(&["PUBLISH", "events", &seq])));
                if n == 0 {
                    zero_receivers += 1;
                    if zero_receivers == 1 {
                        k.rec.mark(now, rl, "bad", format!("PUBLISH {seq} reaches 0 subscribers: the subscriber is reconnecting, and Pub/Sub keeps no copy."));
                    }
                }
                let x = r.execute(
                    now,
                    producer,
                    &args(&["XADD", "s", "MAXLEN", "~", &maxlen, "*", "seq", &seq]),
                );
                debug_assert!(!x.is_error(), "{x:?}");
                if i < 12 || n == 0 && zero_receivers <= 3 {
                    k.rec.msg(
                        now,
                        now,
                        prod_lane,
                        rl,
                        format!("PUBLISH events {seq} → {n}; XADD s seq {seq}"),
                    );
                }
                for (id, f) in r.take_unblocked(now) {
                    if id == sub && sub_connected {
                        let d = link.delay(&mut k.rng).unwrap_or(0);
                        k.after(d, PEv::Got(0, f));
                    }
                }
                if i + 1 < events {
                    let gap = 7 * MS + k.rng.u64(0..=6 * MS);
                    k.after(gap, PEv::Produce(i + 1));
                }
            }
            PEv::Disconnect => {
                if away == 0 {
                    continue;
                }
                r.disconnect(now, sub);
                sub_connected = false;
                k.rec.local(
                    now,
                    now + away,
                    sub_lane,
                    format!("connection lost for {} ms", away / MS),
                );
                k.at(now + away, PEv::Reconnect);
            }
            PEv::Reconnect => {
                sub = r.connect("subscriber");
                let _ = r.submit(now, sub, &args(&["SUBSCRIBE", "events"]));
                let _ = r.take_unblocked(now);
                sub_connected = true;
                k.rec
                    .msg(now, now, sub_lane, rl, "reconnect, SUBSCRIBE events");
            }
            PEv::GroupPoll(c) => {
                if c == 0 && !c1_alive {
                    continue;
                }
                let name = if c == 0 { "c1" } else { "c2" };
                let f = r.execute(
                    now,
                    cons[c],
                    &args(&[
                        "XREADGROUP",
                        "GROUP",
                        "g",
                        name,
                        "COUNT",
                        "10",
                        "STREAMS",
                        "s",
                        ">",
                    ]),
                );
                let d = link.delay(&mut k.rng).unwrap_or(0);
                k.after(d, PEv::Got(1 + c, f));
                k.after(50 * MS, PEv::GroupPoll(c));
            }
            PEv::Claim => {
                let f = r.execute(
                    now,
                    cons[1],
                    &args(&["XAUTOCLAIM", "s", "g", "c2", "300", "0-0", "COUNT", "100"]),
                );
                let got = entry_seqs(&f);
                if !got.is_empty() {
                    claimed += got.len() as u64;
                    k.rec.msg(
                        now,
                        now,
                        c_lanes[1],
                        rl,
                        format!("XAUTOCLAIM s g c2 300 → {} entries", got.len()),
                    );
                    k.rec.mark(now, c_lanes[1], "good", format!("c2 claims {} entries c1 read but never acknowledged: the PEL kept them.", got.len()));
                }
                let d = link.delay(&mut k.rng).unwrap_or(0);
                k.after(d, PEv::Got(2, f));
                k.after(200 * MS, PEv::Claim);
            }
            PEv::ReadPoll => {
                let f = r.execute(
                    now,
                    reader,
                    &args(&["XREAD", "COUNT", "1", "STREAMS", "s", &reader_last]),
                );
                let d = link.delay(&mut k.rng).unwrap_or(0);
                k.after(d, PEv::Got(3, f));
                k.after(reader_gap, PEv::ReadPoll);
            }
            PEv::Got(who, f) => match who {
                0 => {
                    if let Frame::Array(v) | Frame::Push(v) = &f {
                        if v.first().and_then(bulk).as_deref() == Some("message") {
                            if let Some(seq) = v
                                .get(2)
                                .and_then(bulk)
                                .and_then(|s| s.parse::<usize>().ok())
                            {
                                if let Some(x) = sub_seen.get_mut(seq) {
                                    *x = true;
                                }
                            }
                        }
                    }
                }
                1 | 2 => {
                    let c = who - 1;
                    let seqs = entry_seqs(&f);
                    if seqs.is_empty() {
                        continue;
                    }
                    if c == 0 && c1_alive && now >= crash_at {
                        c1_alive = false;
                        k.rec.local(
                            now,
                            now,
                            c_lanes[0],
                            format!("crashes holding {} unacknowledged entries", seqs.len()),
                        );
                        k.rec.mark(now, c_lanes[0], "info", "c1 dies after XREADGROUP handed it a batch: the entries stay pending in its PEL.");
                        continue;
                    }
                    let mut ids = vec!["XACK".to_string(), "s".into(), "g".into()];
                    for (id, seq) in &seqs {
                        if let Some(x) = usize::try_from(*seq)
                            .ok()
                            .and_then(|s| group_done.get_mut(s))
                        {
                            *x = true;
                        }
                        ids.push(id.clone());
                    }
                    let a: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
                    let _ = r.execute(now, cons[c], &args(&a));
                }
                _ => {
                    for (id, seq) in entry_seqs(&f) {
                        reader_read += 1;
                        if seq > reader_seq + 1 {
                            let skipped = (seq - reader_seq - 1) as u64;
                            reader_skipped += skipped;
                            if !gap_marked {
                                gap_marked = true;
                                k.rec.msg(
                                    now,
                                    now,
                                    rl,
                                    reader_lane,
                                    format!("XREAD → seq {seq} (expected {})", reader_seq + 1),
                                );
                                k.rec.mark(now, reader_lane, "bad", format!("The reader expected seq {} but gets {seq}: MAXLEN ~ {maxlen} trimmed {skipped} entries it never read.", reader_seq + 1));
                            }
                        }
                        reader_seq = seq;
                        reader_last = id;
                    }
                }
            },
        }
    }
    let sub_lost = sub_seen.iter().filter(|s| !**s).count() as u64;
    let group_lost = group_done.iter().filter(|s| !**s).count() as u64;
    let xlen = int(&r.exec(end, "observer", &["XLEN", "s"]));

    let mut out = Outcome::new("pubsub-vs-streams", seed, p);
    out.duration_us = end;
    out.metric("pub/sub: messages lost", sub_lost as f64, "messages")
        .metric(
            "PUBLISH replies of 0 receivers",
            zero_receivers as f64,
            "messages",
        )
        .metric("consumer group: entries lost", group_lost as f64, "entries")
        .metric("entries recovered by XAUTOCLAIM", claimed as f64, "entries")
        .metric(
            "lagging reader: entries trimmed before it read them",
            reader_skipped as f64,
            "entries",
        )
        .metric(
            "lagging reader: entries read",
            reader_read as f64,
            "entries",
        )
        .metric("stream length at the end", xlen as f64, "entries");
    out.check(
        "Pub/Sub loses exactly the messages published while the subscriber was away",
        away == 0 || sub_lost > 0 && sub_lost == zero_receivers,
        format!("{sub_lost} lost, {zero_receivers} PUBLISH replies of 0"),
    );
    out.check(
        "The consumer group loses nothing: XAUTOCLAIM recovers the crashed consumer's pending entries",
        group_lost == 0 && claimed > 0,
        format!("{group_lost} lost, {claimed} claimed"),
    );
    out.check(
        "MAXLEN ~ trimming drops entries the lagging reader never read",
        reader_skipped > 0,
        format!("{reader_skipped} skipped after reading {reader_read}"),
    );
    out.charts.push(
        Chart::bars(
            "Events lost per delivery model",
            "events",
            &[
                "pub/sub (disconnect)",
                "group + XAUTOCLAIM (crash)",
                "XREAD + MAXLEN ~ (lag)",
            ],
        )
        .with(Series::new(
            "lost",
            vec![
                (0.0, sub_lost as f64),
                (1.0, group_lost as f64),
                (2.0, reader_skipped as f64),
            ],
        )),
    );
    out.note(format!(
        "{events} events: the subscriber missed {sub_lost} during its {} ms away; the group lost {group_lost} ({claimed} reclaimed); the lagging reader lost {reader_skipped} to trimming.",
        away / MS
    ));
    out.diagram = Some(k.rec.take_diagram());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{all_pass, metric, run as run_with};

    #[test]
    fn queues_defaults_pass_for_three_seeds() {
        for o in all_pass(&QUEUES, &[]) {
            assert!(metric(&o, "brpop: jobs lost") >= 1.0);
            assert_eq!(metric(&o, "blmove: jobs lost"), 0.0);
            assert!(metric(&o, "blmove: jobs returned by the reaper") >= 1.0);
            assert!(metric(&o, "delayed-naive: jobs run twice") >= 1.0);
            assert_eq!(metric(&o, "delayed-lua: jobs run twice"), 0.0);
        }
    }

    #[test]
    fn workers_really_block_on_the_engine() {
        // Workers outnumber the jobs early on: the diagram shows them parked.
        let o = run_with(&QUEUES, 1, &[("show", "brpop")]);
        let d = o.diagram.expect("diagram");
        assert!(d
            .steps
            .iter()
            .any(|s| s.label.contains("blocks on the empty queue")));
        assert!(d.steps.iter().any(|s| s.label.starts_with("unblocked:")));
    }

    #[test]
    fn pubsub_vs_streams_defaults_pass_for_three_seeds() {
        for o in all_pass(&PUBSUB_VS_STREAMS, &[]) {
            // About one event per 10 ms is published while the subscriber is away for 400 ms.
            let lost = metric(&o, "pub/sub: messages lost");
            assert!((25.0..=60.0).contains(&lost), "lost {lost}");
            assert_eq!(metric(&o, "consumer group: entries lost"), 0.0);
            assert!(metric(&o, "lagging reader: entries trimmed before it read them") > 0.0);
        }
        // A subscriber that stays connected loses nothing; a reader as fast as the producer neither.
        let o = run_with(
            &PUBSUB_VS_STREAMS,
            1,
            &[("away_ms", "0"), ("reader_per_s", "200")],
        );
        assert_eq!(metric(&o, "pub/sub: messages lost"), 0.0);
        assert_eq!(
            metric(&o, "lagging reader: entries trimmed before it read them"),
            0.0
        );
        assert!(!o.passed(), "the trimming check fails without lag");
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices("queues", "show", "brpop blmove delayed-naive delayed-lua");
    }
}
