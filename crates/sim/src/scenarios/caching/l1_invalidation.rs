//! Per-pod L1 caches kept fresh by Pub/Sub invalidations: connected pods drop a key as soon as its message arrives, a pod whose subscription dropped misses the messages and serves the old value until its L1 TTL, unless it flushes its L1 when it reconnects.
//!
//! Every pod reads a few hot keys through its [`L1Cache`], then Redis (L2),
//! then the database. A writer commits a new version to the database, SETs
//! it in Redis and (except in `ttl-only`) PUBLISHes the key on `inval`.
//! Each pod's subscriber connection is a real client of the node
//! ([`Redis::submit`] for SUBSCRIBE, messages collected with
//! [`Redis::take_unblocked`] and carried over the link), so a message sent
//! while pod 1's connection is down reaches nobody there: Pub/Sub keeps no
//! copy. A stale read is an L1 hit returning a version the database has
//! already replaced; it is "missed" when the write that replaced it was
//! published while the pod was not subscribed.

use super::{db_dist, ms};
use crate::kernel::{Dist, Kernel, Link, Micros, Redis, MS, SEC};
use crate::outcome::{Chart, Diagram, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use crate::world::L1Cache;
use redsim_engine::engine::ClientId;
use redsim_engine::proto::resp::Frame;
use redsim_engine::rng::Pick;
use std::collections::BTreeSet;

pub const L1_PUBSUB_INVALIDATION: Scenario = Scenario::new("l1-pubsub-invalidation", l1_inval_run);

/// Positions in the `variant` choices (the lesson's scenarios.json).
const V_TTL_ONLY: usize = 0;
const V_PUBSUB: usize = 1;
const V_FLUSH: usize = 2;
const VARIANTS: [&str; 3] = ["ttl-only", "pubsub", "pubsub-flush-on-reconnect"];
/// Hot keys every pod reads.
const KEYS: usize = 5;
/// Redis keeps its copy for minutes (the seeds' L2), far longer than a run.
const L2_TTL_MS: &str = "300000";
/// When pod 1's subscriber connection drops.
const DROP_AT: Micros = 1_000 * MS;
/// A connected pod's staleness stays within the invalidation's trip.
const FRESH_WITHIN: Micros = 20 * MS;
const CHANNEL: &str = "inval";

fn key(k: usize) -> String {
    format!("item:{k}")
}

fn args(a: &[&str]) -> Vec<Vec<u8>> {
    a.iter().map(|s| s.as_bytes().to_vec()).collect()
}

#[derive(Clone, Debug)]
enum Ev {
    /// A pod's next read.
    Read(usize),
    /// A pod's GET reaches Redis (pod, key, the key's invalidation generation when asked).
    Get(usize, usize, u64),
    /// A value reaches the pod from L2 or the database (pod, key, generation, version).
    Fill(usize, usize, u64, u64),
    /// The database answers a miss (pod, key, generation).
    DbRead(usize, usize, u64),
    /// The writer commits the next version of a key.
    Write,
    /// The writer's SET (and PUBLISH) reach Redis (key, version).
    Publish(usize, u64),
    /// An invalidation reaches a pod's subscriber connection (pod, connection life, key).
    Inval(usize, u64, usize),
    Drop,
    Reconnect,
}

struct Pod {
    lane: usize,
    l1: L1Cache,
    sub: Option<ClientId>,
    /// Bumped when the connection drops: messages in flight on it are lost.
    life: u64,
    /// Per key, bumped by every invalidation, so a fill asked for before one is not kept.
    gen: [u64; KEYS],
    /// (key, version) written while this pod was not subscribed.
    missed: BTreeSet<(usize, u64)>,
    stale: u64,
    missed_stale: u64,
    missed_after_reconnect: u64,
    max_age: Micros,
    reads: u64,
    /// (key, version, after the reconnection) stale reads already drawn.
    drawn: BTreeSet<(usize, u64, bool)>,
    /// Keys drawn stale whose refill from Redis is not drawn yet.
    stale_keys: BTreeSet<usize>,
}

/// What one variant's run measured.
#[derive(Default)]
struct L1Run {
    /// Stale L1 reads per pod (pod 1 is the one whose connection drops).
    stale: Vec<u64>,
    /// Longest staleness per pod.
    max_age: Vec<Micros>,
    /// Stale reads of versions whose invalidation pod 1 missed.
    missed_stale: u64,
    /// Of those, the ones served after it reconnected.
    missed_after_reconnect: u64,
    missed_messages: u64,
    writes: u64,
    reads: u64,
    l1_hits: u64,
    /// GETs reaching Redis (L2).
    redis_reads: u64,
    db_reads: u64,
    flushed: usize,
    reconnect_at: Option<Micros>,
    end: Micros,
    diagram: Option<Diagram>,
}

impl L1Run {
    /// Longest staleness on the pods that stayed connected.
    fn connected_max_age(&self) -> Micros {
        self.max_age.iter().skip(1).copied().max().unwrap_or(0)
    }

    fn connected_stale(&self) -> u64 {
        self.stale.iter().skip(1).sum()
    }
}

fn l1_once(p: &Params, seed: u64, variant: usize, record: bool) -> L1Run {
    let pods = p.count("pods").clamp(2, 8) as usize;
    let ttl = p.count("l1_ttl_ms").max(1) * MS;
    let away = p.count("disconnect_ms") * MS;
    let read_gap = (SEC as f64 / p.get("reads_per_s").max(1.0)) as Micros;
    let write_gap = (SEC as f64 / p.get("writes_per_s").max(0.1)) as Micros;
    let end = DROP_AT + away + 2 * ttl + 500 * MS;
    let subscribe = variant != V_TTL_ONLY;

    let mut k: Kernel<Ev> = Kernel::new(seed);
    // Reads and writes come from a stream of their own, so every variant
    // gets the same ones whatever its messages drew from the kernel's.
    let mut wk = fastrand::Rng::with_seed(seeds::salted(seed, seeds::L1_WORKLOAD));
    let mut r = Redis::new(seed, &[]);
    let link = Link::new(Dist::jittered(200, 300));
    let db = db_dist(5 * MS);
    let wl = k.rec.lane("writer", "client");
    let rl = k.rec.lane("redis", "redis");
    let writer = r.connect("writer");
    let reader = r.connect("pods");
    let mut ps: Vec<Pod> = (0..pods)
        .map(|i| {
            let lane = k.rec.lane(&format!("pod {}", i + 1), "pod");
            Pod {
                lane,
                l1: L1Cache::new(100, ttl),
                sub: None,
                life: 0,
                gen: [0; KEYS],
                missed: BTreeSet::new(),
                stale: 0,
                missed_stale: 0,
                missed_after_reconnect: 0,
                max_age: 0,
                reads: 0,
                drawn: BTreeSet::new(),
                stale_keys: BTreeSet::new(),
            }
        })
        .collect();
    if subscribe {
        for (i, pod) in ps.iter_mut().enumerate() {
            let id = r.connect(&format!("pod{}-sub", i + 1));
            let first = r.submit(0, id, &args(&["SUBSCRIBE", CHANNEL]));
            debug_assert!(first.is_some());
            pod.sub = Some(id);
        }
        let _ = r.take_unblocked(0);
    }
    // Commit instants per key and version (version 0 is the initial row).
    let mut commits: Vec<Vec<Micros>> = vec![vec![0]; KEYS];
    let mut run = L1Run::default();
    // Marks drawn once per run.
    let mut marked: BTreeSet<&str> = BTreeSet::new();
    // The diagram shows from just before the drop until pod 1's stale
    // copies are gone (ttl-only: until the first copies expire; it has no
    // drop to show).
    let draw_from = if subscribe { DROP_AT - 300 * MS } else { 0 };
    let mut draw_end = if subscribe { end } else { ttl + 300 * MS };
    let in_window = |t: Micros, draw_end: Micros| t >= draw_from && t <= draw_end;

    for i in 0..ps.len() {
        let first = wk.u64(0..read_gap.max(1));
        k.at(first, Ev::Read(i));
    }
    k.at(200 * MS, Ev::Write);
    if away > 0 {
        k.at(DROP_AT, Ev::Drop);
    }

    while let Some(ev) = k.next(end) {
        let now = k.now();
        r.sync(now);
        match ev {
            Ev::Read(i) => {
                let key_i = wk.pick(0..KEYS);
                let kn = key(key_i);
                let pod = &mut ps[i];
                pod.reads += 1;
                run.reads += 1;
                match pod.l1.get(now, &kn) {
                    Some(v) => {
                        run.l1_hits += 1;
                        let held: u64 = v.trim_start_matches('v').parse().unwrap_or(0);
                        let cur = commits[key_i].len() as u64 - 1;
                        if held < cur {
                            let age = now - commits[key_i][held as usize + 1];
                            pod.stale += 1;
                            pod.max_age = pod.max_age.max(age);
                            let missed = pod.missed.contains(&(key_i, held + 1));
                            if missed {
                                pod.missed_stale += 1;
                                if run.reconnect_at.is_some() {
                                    pod.missed_after_reconnect += 1;
                                }
                            }
                            if record
                                && in_window(now, draw_end)
                                && (missed || age > FRESH_WITHIN)
                                && pod.drawn.insert((key_i, held, run.reconnect_at.is_some()))
                            {
                                k.rec.local(
                                    now,
                                    now,
                                    pod.lane,
                                    format!("{kn} v{held}: {:.0} ms stale", ms(age as f64)),
                                );
                                let why = if missed {
                                    "Stale read: the invalidation for this write was sent while this pod was not subscribed, so its L1 keeps the old value until the TTL."
                                } else {
                                    "Stale read: nothing told this pod about the write; its L1 copy lives until its TTL."
                                };
                                if marked.insert("stale") {
                                    k.rec.mark(now, pod.lane, "bad", why);
                                }
                                if missed && run.reconnect_at.is_some() && marked.insert("after") {
                                    k.rec.mark(now, pod.lane, "bad", "Reconnected, still stale: SUBSCRIBE brings no message sent before it, so the copy lives on until its TTL.");
                                }
                                pod.stale_keys.insert(key_i);
                            }
                        }
                    }
                    None => {
                        let d = link.delay(&mut k.rng).unwrap_or(0);
                        k.after(d, Ev::Get(i, key_i, pod.gen[key_i]));
                        if record && in_window(now, draw_end) && pod.stale_keys.remove(&key_i) {
                            k.rec.msg(now, now + d, pod.lane, rl, format!("GET {kn}"));
                            let last = if subscribe {
                                i == 0 && run.reconnect_at.is_some() && pod.stale_keys.is_empty()
                            } else {
                                true
                            };
                            if last && marked.insert("gone") {
                                if subscribe {
                                    draw_end = now + 200 * MS;
                                }
                                k.rec.mark(now, pod.lane, "info", "The stale copy is gone (expired or flushed): the next read goes to Redis and gets the new value.");
                            }
                        }
                    }
                }
                let gap = read_gap / 2 + wk.u64(0..=read_gap);
                k.after(gap, Ev::Read(i));
            }
            Ev::Get(i, key_i, gen) => {
                run.redis_reads += 1;
                let kn = key(key_i);
                let f = r.execute(now, reader, &args(&["GET", &kn]));
                match f {
                    Frame::Bulk(b) => {
                        let held: u64 = String::from_utf8_lossy(&b)
                            .trim_start_matches('v')
                            .parse()
                            .unwrap_or(0);
                        let d = link.delay(&mut k.rng).unwrap_or(0);
                        k.after(d, Ev::Fill(i, key_i, gen, held));
                    }
                    _ => {
                        let d = db.sample(&mut k.rng);
                        k.after(d, Ev::DbRead(i, key_i, gen));
                    }
                }
            }
            Ev::DbRead(i, key_i, gen) => {
                run.db_reads += 1;
                let cur = commits[key_i].len() as u64 - 1;
                // NX: a fill never overwrites the writer's newer SET.
                let v = format!("v{cur}");
                let _ = r.execute(
                    now,
                    reader,
                    &args(&["SET", &key(key_i), &v, "PX", L2_TTL_MS, "NX"]),
                );
                let d = link.delay(&mut k.rng).unwrap_or(0);
                k.after(d, Ev::Fill(i, key_i, gen, cur));
            }
            Ev::Fill(i, key_i, gen, held) => {
                let pod = &mut ps[i];
                if pod.gen[key_i] == gen {
                    pod.l1.put(now, &key(key_i), &format!("v{held}"));
                }
            }
            Ev::Write => {
                let key_i = wk.pick(0..KEYS);
                commits[key_i].push(now);
                run.writes += 1;
                let version = commits[key_i].len() as u64 - 1;
                let d = link.delay(&mut k.rng).unwrap_or(0);
                k.after(d, Ev::Publish(key_i, version));
                let gap = write_gap / 2 + wk.u64(0..=write_gap);
                k.after(gap, Ev::Write);
            }
            Ev::Publish(key_i, version) => {
                let kn = key(key_i);
                let v = format!("v{version}");
                let _ = r.execute(now, writer, &args(&["SET", &kn, &v, "PX", L2_TTL_MS]));
                let draw = record && in_window(now, draw_end);
                if !subscribe {
                    if draw {
                        k.rec.msg(now, now, wl, rl, format!("SET {kn} {v}"));
                    }
                    continue;
                }
                let f = r.execute(now, writer, &args(&["PUBLISH", CHANNEL, &kn]));
                let n = match f {
                    Frame::Integer(n) => n,
                    _ => 0,
                };
                if draw {
                    k.rec.msg(now, now, wl, rl, format!("PUBLISH {kn} → {n}"));
                }
                let mut reached = vec![false; pods];
                for (id, f) in r.take_unblocked(now) {
                    let Some(i) = ps.iter().position(|p| p.sub == Some(id)) else {
                        continue;
                    };
                    if !is_message(&f) {
                        continue;
                    }
                    reached[i] = true;
                    let d = link.delay(&mut k.rng).unwrap_or(0);
                    k.after(d, Ev::Inval(i, ps[i].life, key_i));
                    // Pod 1 and one connected pod, for contrast.
                    if draw && i < 2 {
                        k.rec
                            .msg(now, now + d, rl, ps[i].lane, format!("message {kn}"));
                    }
                }
                for (i, pod) in ps.iter_mut().enumerate() {
                    if reached[i] {
                        continue;
                    }
                    pod.missed.insert((key_i, version));
                    run.missed_messages += 1;
                    if record && run.missed_messages == 1 {
                        k.rec.mark(now, rl, "bad", format!("PUBLISH {CHANNEL} {kn} reaches {n} of {pods} pods: pod {}'s connection is down and Pub/Sub keeps no copy for it.", i + 1));
                    }
                }
            }
            Ev::Inval(i, life, key_i) => {
                let pod = &mut ps[i];
                if pod.life != life {
                    continue;
                }
                let kn = key(key_i);
                pod.l1.invalidate(&kn);
                pod.gen[key_i] += 1;
            }
            Ev::Drop => {
                let pod = &mut ps[0];
                if let Some(id) = pod.sub.take() {
                    r.disconnect(now, id);
                }
                pod.life += 1;
                if record && subscribe {
                    k.rec.local(
                        now,
                        now + away,
                        pod.lane,
                        format!("offline {} ms", away / MS),
                    );
                }
                k.at(now + away, Ev::Reconnect);
            }
            Ev::Reconnect => {
                run.reconnect_at = Some(now);
                let pod = &mut ps[0];
                if subscribe {
                    let id = r.connect("pod1-sub");
                    let _ = r.submit(now, id, &args(&["SUBSCRIBE", CHANNEL]));
                    let _ = r.take_unblocked(now);
                    pod.sub = Some(id);
                }
                if variant == V_FLUSH {
                    run.flushed = pod.l1.clear();
                    for g in pod.gen.iter_mut() {
                        *g += 1;
                    }
                }
                if record && subscribe {
                    let what = match variant {
                        V_FLUSH => format!("SUBSCRIBE, flush {}", run.flushed),
                        V_PUBSUB => "SUBSCRIBE, L1 kept".to_string(),
                        _ => "back (no SUBSCRIBE)".to_string(),
                    };
                    k.rec.msg(now, now, pod.lane, rl, what);
                    if variant == V_FLUSH {
                        k.rec.mark(now, pod.lane, "good", "Flushed on reconnect: whatever it missed is gone from L1, the next reads go to Redis.");
                    }
                }
            }
        }
    }
    k.finish_at(end);
    run.end = end;
    for pod in &ps {
        run.stale.push(pod.stale);
        run.max_age.push(pod.max_age);
    }
    run.missed_stale = ps[0].missed_stale;
    run.missed_after_reconnect = ps[0].missed_after_reconnect;
    if record {
        run.diagram = Some(k.rec.take_diagram());
    }
    run
}

/// A Pub/Sub message (not a subscribe confirmation).
fn is_message(f: &Frame) -> bool {
    match f {
        Frame::Array(v) | Frame::Push(v) => {
            matches!(v.first(), Some(Frame::Bulk(b)) if &b[..] == b"message")
        }
        _ => false,
    }
}

/// ttl-only: every pod serves old values after writes, for up to the L1 TTL.
fn stale_until_ttl(run: &L1Run, ttl: Micros) -> bool {
    let longest = run.max_age.iter().copied().max().unwrap_or(0);
    run.connected_stale() > 0 && longest > ttl / 2 && longest <= ttl + FRESH_WITHIN
}

/// Connected pods hear of every write within a message's trip.
fn connected_fresh(run: &L1Run) -> bool {
    run.connected_max_age() <= FRESH_WITHIN
}

/// pubsub: the pod that was away serves what it missed, for up to its TTL.
fn away_pod_stale(run: &L1Run, ttl: Micros) -> bool {
    run.missed_stale > 0 && run.max_age[0] > FRESH_WITHIN && run.max_age[0] <= ttl + FRESH_WITHIN
}

/// flush-on-reconnect: no read after the reconnection serves a missed write's old value.
fn fresh_after_reconnect(run: &L1Run) -> bool {
    run.reconnect_at.is_some() && run.missed_messages > 0 && run.missed_after_reconnect == 0
}

fn l1_inval_run(p: &Params, seed: u64) -> Outcome {
    let variant = p.choice("variant").min(VARIANTS.len() - 1);
    let ttl = p.count("l1_ttl_ms").max(1) * MS;
    let runs: Vec<L1Run> = (0..VARIANTS.len())
        .map(|v| l1_once(p, seed, v, v == variant))
        .collect();
    let run = &runs[variant];
    let what = VARIANTS[variant];
    let mut out = Outcome::new("l1-pubsub-invalidation", seed, p);
    out.duration_us = run.end;
    for (i, s) in run.stale.iter().enumerate() {
        let name = if i == 0 {
            "stale reads: pod 1 (dropped)".to_string()
        } else {
            format!("stale reads: pod {}", i + 1)
        };
        out.metric(&name, *s as f64, "reads");
    }
    let longest = run.max_age.iter().copied().max().unwrap_or(0);
    out.metric("longest staleness", ms(longest as f64), "ms")
        .metric(
            "longest staleness, connected pods",
            ms(run.connected_max_age() as f64),
            "ms",
        )
        .metric(
            "stale reads of missed writes after reconnection",
            run.missed_after_reconnect as f64,
            "reads",
        )
        .metric(
            "invalidations missed",
            run.missed_messages as f64,
            "messages",
        )
        .metric("Redis reads (L2)", run.redis_reads as f64, "GETs")
        .metric("database reads", run.db_reads as f64, "reads")
        .metric(
            "L1 hit ratio",
            100.0 * run.l1_hits as f64 / run.reads.max(1) as f64,
            "%",
        );
    let t = ms(ttl as f64);
    match variant {
        V_TTL_ONLY => {
            out.check(
                "ttl-only: with no invalidation every pod serves old values after a write, for up to the L1 TTL",
                stale_until_ttl(run, ttl),
                format!(
                    "{} stale reads on the connected pods, the longest {:.0} ms after the write (L1 TTL {t:.0} ms)",
                    run.connected_stale(),
                    ms(longest as f64)
                ),
            );
        }
        V_PUBSUB => {
            out.check(
                "pubsub: connected pods drop a written key within a message's trip",
                connected_fresh(run),
                format!(
                    "longest staleness on connected pods {:.1} ms (limit {:.0} ms)",
                    ms(run.connected_max_age() as f64),
                    ms(FRESH_WITHIN as f64)
                ),
            );
            out.check(
                "pubsub: the pod whose connection dropped misses those messages and serves the old value until its TTL",
                away_pod_stale(run, ttl),
                format!(
                    "{} messages missed, {} stale reads of missed writes ({} after reconnecting), the longest {:.0} ms (L1 TTL {t:.0} ms)",
                    run.missed_messages,
                    run.missed_stale,
                    run.missed_after_reconnect,
                    ms(run.max_age[0] as f64)
                ),
            );
        }
        _ => {
            out.check(
                "pubsub-flush-on-reconnect: connected pods drop a written key within a message's trip",
                connected_fresh(run),
                format!(
                    "longest staleness on connected pods {:.1} ms (limit {:.0} ms)",
                    ms(run.connected_max_age() as f64),
                    ms(FRESH_WITHIN as f64)
                ),
            );
            out.check(
                "pubsub-flush-on-reconnect: after reconnecting, the pod serves no value it missed an invalidation for",
                fresh_after_reconnect(run),
                format!(
                    "{} messages missed, {} stale reads of them after the reconnection ({} before it); the flush dropped {} entries",
                    run.missed_messages,
                    run.missed_after_reconnect,
                    run.missed_stale - run.missed_after_reconnect,
                    run.flushed
                ),
            );
        }
    }
    let pod_names: Vec<String> = (0..run.stale.len())
        .map(|i| format!("pod {}", i + 1))
        .collect();
    let cats: Vec<&str> = pod_names.iter().map(|s| s.as_str()).collect();
    out.charts.push(
        Chart::bars(
            "Stale L1 reads per pod (pod 1's connection drops)",
            "reads",
            &cats,
        )
        .with_all(
            runs.iter()
                .zip(VARIANTS)
                .map(|(r, v)| Series::per_category(v, r.stale.iter().map(|&s| s as f64))),
        ),
    );
    out.charts
        .push(Chart::bars("Longest staleness", "ms", &VARIANTS).with_all([
            Series::per_category(
                "pod 1 (dropped)",
                runs.iter().map(|r| ms(r.max_age[0] as f64)),
            ),
            Series::per_category(
                "connected pods",
                runs.iter().map(|r| ms(r.connected_max_age() as f64)),
            ),
        ]));
    out.charts.push(
        Chart::bars("Reads reaching Redis (L2)", "GETs", &VARIANTS).with(Series::per_category(
            "GETs",
            runs.iter().map(|r| r.redis_reads as f64),
        )),
    );
    let run = &runs[variant];
    out.note(format!(
        "{what}: {} pods read {KEYS} hot keys through a {t:.0} ms L1 and Redis; {} writes; pod 1's subscriber connection was down from {:.0} ms to {:.0} ms.",
        run.stale.len(),
        run.writes,
        ms(DROP_AT as f64),
        ms((DROP_AT + p.count("disconnect_ms") * MS) as f64)
    ));
    out.note(format!(
        "Stale L1 reads per variant (pod 1 first): ttl-only {:?}, pubsub {:?}, flush on reconnect {:?}.",
        runs[V_TTL_ONLY].stale, runs[V_PUBSUB].stale, runs[V_FLUSH].stale
    ));
    out.note(format!(
        "Freshness costs Redis reads: after an invalidation the next read of the key goes to Redis. {} GETs reached Redis with ttl-only, {} with pubsub and {} with the flush (pod 1 refetches its whole L1 at once, reads its expiring copies would have made soon anyway); L1 hit ratio {:.1} % here.",
        runs[V_TTL_ONLY].redis_reads,
        runs[V_PUBSUB].redis_reads,
        runs[V_FLUSH].redis_reads,
        100.0 * run.l1_hits as f64 / run.reads.max(1) as f64
    ));
    if variant != V_TTL_ONLY {
        out.note(format!(
            "Pod 1 missed {} messages; {} of its reads served a value it had missed the invalidation for, {} of them after it had reconnected.",
            run.missed_messages, run.missed_stale, run.missed_after_reconnect
        ));
    }
    out.diagram = runs.into_iter().nth(variant).and_then(|r| r.diagram);
    out
}

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use super::*;
    use crate::testing::{assert_choices, metric, run as with};

    #[test]
    fn a_missed_invalidation_is_stale_until_the_ttl_unless_the_pod_flushes() {
        for v in VARIANTS {
            all_pass("l1-pubsub-invalidation", &[("variant", v)]);
        }
        let p = Params::resolve(&L1_PUBSUB_INVALIDATION.info().params, &[]).unwrap();
        let ttl = p.count("l1_ttl_ms") * MS;
        for seed in 1..=3 {
            let ttl_only = l1_once(&p, seed, V_TTL_ONLY, false);
            let pubsub = l1_once(&p, seed, V_PUBSUB, false);
            let flush = l1_once(&p, seed, V_FLUSH, false);
            // Each claim fails on the variant without its protection.
            assert!(stale_until_ttl(&ttl_only, ttl) && !connected_fresh(&ttl_only));
            assert!(connected_fresh(&pubsub) && away_pod_stale(&pubsub, ttl));
            assert!(pubsub.missed_after_reconnect > 0, "seed {seed}");
            assert!(!fresh_after_reconnect(&pubsub), "seed {seed}");
            assert!(fresh_after_reconnect(&flush) && connected_fresh(&flush));
        }
        // With no disconnect the pubsub claim about the dropped pod has nothing to show, and fails.
        let o = with(
            "l1-pubsub-invalidation",
            1,
            &[("variant", "pubsub"), ("disconnect_ms", "0")],
        );
        assert!(!o.passed());
        assert_eq!(metric(&o, "invalidations missed"), 0.0);
    }

    #[test]
    fn choices_match_the_description() {
        assert_choices("l1-pubsub-invalidation", "variant", &VARIANTS.join(" "));
    }
}
