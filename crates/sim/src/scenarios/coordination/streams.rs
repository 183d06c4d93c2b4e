//! Streams deliver at least once: a consumer that dies after its side effect and before XACK has the entry claimed again (XAUTOCLAIM) and applied twice, unless the effect is made idempotent by the entry's ID (a processed set, or SET NX per ID).

use super::{bulk, int, short};
use crate::kernel::{Dist, Kernel, Link, Micros, Redis, MS};
use crate::outcome::{Chart, Diagram, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::proto::resp::Frame;

pub const STREAMS_AT_LEAST_ONCE: Scenario = Scenario::new("streams-at-least-once", streams_run);

/// Positions in the `variant` choices (the lesson's scenarios.json).
const V_PLAIN: usize = 0;
const V_SET: usize = 1;
/// Applies the effect only if the entry's ID is new to the processed set.
const EFFECT_SET_LUA: &str = "if redis.call('SADD', KEYS[1], ARGV[1]) == 1 then redis.call('INCRBY', KEYS[2], ARGV[2]) return 1 end return 0";
/// Applies the effect only if no marker for the entry's ID exists yet.
const EFFECT_SETNX_LUA: &str = "if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then redis.call('INCRBY', KEYS[2], ARGV[1]) return 1 end return 0";
/// Consumers c1..c3, then the reaper.
const CONSUMERS: usize = 3;
const REAPER: usize = CONSUMERS;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Read,
    Claim,
    Effect,
    Ack,
}

/// An entry a consumer is working on: ID and sequence number.
type Entry = (String, u64);

enum SEv {
    Produce(u64),
    Poll(usize, u64),
    Arrive(usize, u64, Op, Vec<String>, Micros),
    Reply(usize, u64, Op, Frame, (Micros, Micros)),
    Worked(usize, u64),
    Restart(usize),
}

struct Consumer {
    name: String,
    lane: usize,
    /// Bumped by a crash, so a dead incarnation's events are dropped.
    life: u64,
    alive: bool,
    entry: Option<Entry>,
}

#[derive(Default)]
struct StreamsRun {
    /// Effects applied per message, by sequence number.
    applied: Vec<u32>,
    crashes: u64,
    redeliveries: u64,
    skipped: u64,
    balance: i64,
    expected: i64,
    pending: i64,
    dedup_records: i64,
    first_crash: Option<u64>,
    end: Micros,
    diagram: Option<Diagram>,
}

impl StreamsRun {
    fn duplicates(&self) -> u64 {
        self.applied
            .iter()
            .map(|&n| u64::from(n.saturating_sub(1)))
            .sum()
    }

    fn lost(&self) -> u64 {
        self.applied.iter().filter(|&&n| n == 0).count() as u64
    }
}

/// The amount message `seq` credits.
fn amount(seq: u64) -> i64 {
    (seq % 9 + 1) as i64
}

/// The (ID, seq) pairs of an XREADGROUP or XAUTOCLAIM reply.
fn entries(f: &Frame) -> Vec<Entry> {
    let list = match f {
        // XAUTOCLAIM: [next, entries, deleted]
        Frame::Array(parts) if parts.len() == 3 && bulk(&parts[0]).is_some() => parts.get(1),
        // XREADGROUP: [[key, entries]]
        Frame::Array(streams) => match streams.first() {
            Some(Frame::Array(kv)) => kv.get(1),
            _ => None,
        },
        _ => None,
    };
    let Some(Frame::Array(es)) = list else {
        return Vec::new();
    };
    es.iter()
        .filter_map(|e| match e {
            Frame::Array(pair) => {
                let id = pair.first().and_then(bulk)?;
                let seq = match pair.get(1) {
                    Some(Frame::Array(fv)) => fv.get(1).and_then(bulk)?.parse().ok()?,
                    _ => return None,
                };
                Some((id, seq))
            }
            _ => None,
        })
        .collect()
}

fn streams_once(p: &Params, seed: u64, show: Option<u64>) -> StreamsRun {
    let variant = p.choice("variant");
    let messages = p.count("messages").max(1);
    let die_p = p.get("crash_pct") / 100.0;
    let work = p.count("work_ms") * MS;
    let idle = p.count("claim_idle_ms").max(1);
    let restart = 200 * MS;
    let poll = 20 * MS;
    let reap_every = 100 * MS;
    let dedup_ttl = (60 * 1000).to_string();
    let end = messages * 10 * MS + idle * MS + 1_500 * MS;

    let mut k: Kernel<SEv> = Kernel::new(seed);
    let mut r = Redis::new(seed, &[]);
    let link = Link::new(Dist::jittered(400, 200));
    let prod_lane = k.rec.lane("producer", "client");
    let mut cs: Vec<Consumer> = (0..=CONSUMERS)
        .map(|i| {
            let name = if i == REAPER {
                "reaper".to_string()
            } else {
                format!("c{}", i + 1)
            };
            Consumer {
                lane: k.rec.lane(&name, "client"),
                name,
                life: 0,
                alive: true,
                entry: None,
            }
        })
        .collect();
    let rl = k.rec.lane("redis", "redis");
    let g = r.exec(
        0,
        "setup",
        &["XGROUP", "CREATE", "orders", "workers", "$", "MKSTREAM"],
    );
    debug_assert!(!g.is_error(), "{g:?}");
    // Only the story of the message `show` (and the two before it) is drawn.
    let shown = |seq: u64| show.is_some_and(|s| seq <= s && seq + 2 >= s);
    let mut run = StreamsRun {
        applied: vec![0; messages as usize],
        ..StreamsRun::default()
    };
    k.at(0, SEv::Produce(0));
    for c in 0..=CONSUMERS {
        k.at(5 * MS + c as Micros * 7 * MS, SEv::Poll(c, 0));
    }

    fn send(k: &mut Kernel<SEv>, link: &Link, c: &Consumer, i: usize, op: Op, args: Vec<String>) {
        let d = link.delay(&mut k.rng).unwrap_or(0);
        let now = k.now();
        k.after(d, SEv::Arrive(i, c.life, op, args, now));
    }

    while let Some(ev) = k.next(end) {
        let now = k.now();
        match ev {
            SEv::Produce(seq) => {
                let s = seq.to_string();
                let amt = amount(seq).to_string();
                let _ = r.exec(
                    now,
                    "producer",
                    &["XADD", "orders", "*", "seq", &s, "amount", &amt],
                );
                if shown(seq) {
                    k.rec
                        .msg(now, now, prod_lane, rl, format!("XADD orders seq {s}"));
                }
                if seq + 1 < messages {
                    let gap = 7 * MS + k.rng.u64(0..=6 * MS);
                    k.after(gap, SEv::Produce(seq + 1));
                }
            }
            SEv::Poll(c, life) => {
                if life != cs[c].life || !cs[c].alive || cs[c].entry.is_some() {
                    continue;
                }
                let name = cs[c].name.clone();
                let (op, args) = if c == REAPER {
                    let idle_s = idle.to_string();
                    let a = ["XAUTOCLAIM", "orders", "workers", "reaper", &idle_s, "0-0"];
                    (Op::Claim, a.iter().map(|s| s.to_string()).collect())
                } else {
                    let a = [
                        "XREADGROUP",
                        "GROUP",
                        "workers",
                        &name,
                        "COUNT",
                        "1",
                        "STREAMS",
                        "orders",
                        ">",
                    ];
                    (Op::Read, a.iter().map(|s| s.to_string()).collect())
                };
                let mut args: Vec<String> = args;
                if op == Op::Claim {
                    args.extend(["COUNT".to_string(), "1".to_string()]);
                }
                send(&mut k, &link, &cs[c], c, op, args);
            }
            SEv::Arrive(c, life, op, args, sent) => {
                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                let name = cs[c].name.clone();
                let reply = r.exec(now, &name, &refs);
                let d = link.delay(&mut k.rng).unwrap_or(0);
                k.after(d, SEv::Reply(c, life, op, reply, (sent, now)));
            }
            SEv::Reply(c, life, op, reply, (sent, ran)) => {
                if life != cs[c].life {
                    continue;
                }
                let lane = cs[c].lane;
                let current = cs[c].entry.clone();
                match op {
                    Op::Read | Op::Claim => {
                        let got = entries(&reply).into_iter().next();
                        let Some((id, seq)) = got else {
                            let wait = if c == REAPER { reap_every } else { poll };
                            k.after(wait, SEv::Poll(c, life));
                            continue;
                        };
                        if shown(seq) {
                            let ask = if op == Op::Read {
                                "XREADGROUP workers > COUNT 1".to_string()
                            } else {
                                format!("XAUTOCLAIM workers min-idle {idle}")
                            };
                            k.rec.msg(sent, ran, lane, rl, ask);
                            k.rec.msg(ran, now, rl, lane, format!("seq {seq} ({id})"));
                        }
                        if op == Op::Claim {
                            run.redeliveries += 1;
                            if show == Some(seq) {
                                k.rec.mark(now, lane, "info", format!("seq {seq} sat unacknowledged for {idle} ms: the reaper claims it and runs it again"));
                            }
                        }
                        cs[c].entry = Some((id, seq));
                        if shown(seq) && work > 0 {
                            k.rec.local(now, now + work, lane, "process");
                        }
                        k.after(work, SEv::Worked(c, life));
                    }
                    Op::Effect => {
                        let Some((id, seq)) = current else { continue };
                        let applied = match variant {
                            V_PLAIN => !reply.is_error(),
                            _ => int(&reply) == 1,
                        };
                        if let Some(n) = run.applied.get_mut(seq as usize) {
                            if applied {
                                *n += 1;
                            }
                        }
                        if !applied {
                            run.skipped += 1;
                        }
                        if shown(seq) {
                            k.rec.msg(ran, now, rl, lane, short(&reply));
                            let twice = run.applied.get(seq as usize).is_some_and(|&n| n > 1);
                            if twice {
                                k.rec.mark(now, lane, "bad", format!("seq {seq}'s effect is applied a second time: the first run's XACK never happened"));
                            } else if !applied {
                                k.rec.mark(now, lane, "good", format!("seq {seq}'s ID was already recorded: the duplicate is skipped"));
                            }
                        }
                        // A consumer may die after its effect and before its XACK.
                        if c != REAPER && k.rng.f64() < die_p {
                            run.crashes += 1;
                            run.first_crash.get_or_insert(seq);
                            let x = &mut cs[c];
                            x.life += 1;
                            x.alive = false;
                            x.entry = None;
                            if shown(seq) {
                                k.rec
                                    .local(now, now + restart, lane, "crash before XACK, restart");
                                k.rec.mark(now, lane, "info", format!("{} dies after applying seq {seq} but before XACK: the entry stays in its pending list", cs[c].name));
                            }
                            k.after(restart, SEv::Restart(c));
                            continue;
                        }
                        let a = ["XACK", "orders", "workers", &id];
                        if shown(seq) {
                            k.rec.msg(now, now, lane, rl, format!("XACK {id}"));
                        }
                        send(
                            &mut k,
                            &link,
                            &cs[c],
                            c,
                            Op::Ack,
                            a.iter().map(|s| s.to_string()).collect(),
                        );
                    }
                    Op::Ack => {
                        cs[c].entry = None;
                        k.after(0, SEv::Poll(c, life));
                    }
                }
            }
            SEv::Worked(c, life) => {
                if life != cs[c].life {
                    continue;
                }
                let Some((id, seq)) = cs[c].entry.clone() else {
                    continue;
                };
                let amt = amount(seq).to_string();
                let args: Vec<String> = match variant {
                    V_PLAIN => vec!["INCRBY".into(), "balance".into(), amt],
                    V_SET => vec![
                        "EVAL".into(),
                        EFFECT_SET_LUA.into(),
                        "2".into(),
                        "processed".into(),
                        "balance".into(),
                        id.clone(),
                        amt,
                    ],
                    _ => vec![
                        "EVAL".into(),
                        EFFECT_SETNX_LUA.into(),
                        "2".into(),
                        format!("done:{id}"),
                        "balance".into(),
                        amt,
                        dedup_ttl.clone(),
                    ],
                };
                if shown(seq) {
                    let label = match variant {
                        V_PLAIN => format!("INCRBY balance {}", amount(seq)),
                        V_SET => format!("EVAL SADD processed {id} → INCRBY"),
                        _ => format!("EVAL SET done:{id} NX → INCRBY"),
                    };
                    k.rec.msg(now, now, cs[c].lane, rl, label);
                }
                send(&mut k, &link, &cs[c], c, Op::Effect, args);
            }
            SEv::Restart(c) => {
                cs[c].alive = true;
                let life = cs[c].life;
                k.after(0, SEv::Poll(c, life));
            }
        }
    }
    k.finish_at(end);
    run.end = end;
    run.expected = (0..messages).map(amount).sum();
    run.balance = match r.exec(end, "observer", &["GET", "balance"]) {
        Frame::Bulk(b) => String::from_utf8_lossy(&b).parse().unwrap_or(0),
        _ => 0,
    };
    run.pending = match r.exec(end, "observer", &["XPENDING", "orders", "workers"]) {
        Frame::Array(v) => v.first().map_or(0, int),
        _ => 0,
    };
    run.dedup_records = match variant {
        V_PLAIN => 0,
        V_SET => int(&r.exec(end, "observer", &["SCARD", "processed"])),
        // Every key but the stream and the balance is a marker.
        _ => int(&r.exec(end, "observer", &["DBSIZE"])) - 2,
    };
    if show.is_some() {
        run.diagram = Some(k.rec.take_diagram());
    }
    run
}

fn streams_run(p: &Params, seed: u64) -> Outcome {
    let variants = STREAMS_AT_LEAST_ONCE.info().choices("variant");
    let variant = p.choice("variant").min(variants.len() - 1);
    // A first pass finds the first crash; the second draws its story.
    let first = streams_once(p, seed, None);
    let run = streams_once(p, seed, Some(first.first_crash.unwrap_or(0)));
    let (dups, lost) = (run.duplicates(), run.lost());
    let what = variants[variant];
    let mut out = Outcome::new("streams-at-least-once", seed, p);
    out.duration_us = run.end;
    out.metric("duplicate effects", dups as f64, "effects")
        .metric("messages lost", lost as f64, "messages")
        .metric(
            "redeliveries (XAUTOCLAIM)",
            run.redeliveries as f64,
            "entries",
        )
        .metric(
            "consumer crashes before XACK",
            run.crashes as f64,
            "crashes",
        )
        .metric("duplicates skipped by ID", run.skipped as f64, "effects")
        .metric(
            "balance over the true total",
            (run.balance - run.expected) as f64,
            "",
        )
        .metric("dedup records kept", run.dedup_records as f64, "records");
    out.check(
        "No message is lost: every entry's effect is applied and nothing is left pending",
        lost == 0 && run.pending == 0,
        format!("{lost} never applied, {} still pending", run.pending),
    );
    if variant == V_PLAIN {
        out.check(
            "plain: every consumer that dies between its effect and XACK has the entry redelivered and applied twice",
            run.crashes > 0 && dups == run.crashes && run.balance > run.expected,
            format!(
                "{} crashes, {} redeliveries, {dups} effects applied twice; balance {} for a true {}",
                run.crashes, run.redeliveries, run.balance, run.expected
            ),
        );
    } else {
        out.check(
            &format!("{what}: redelivered entries are recognised by their ID, so no effect is applied twice"),
            run.redeliveries > 0 && dups == 0 && run.balance == run.expected,
            format!(
                "{} redeliveries, {} skipped, {dups} applied twice; balance {} for a true {}",
                run.redeliveries, run.skipped, run.balance, run.expected
            ),
        );
    }
    let count = |f: &dyn Fn(u32) -> bool| run.applied.iter().filter(|&&n| f(n)).count() as f64;
    out.charts.push(
        Chart::bars(
            "Times each message's effect was applied",
            "messages",
            &["never", "once", "twice or more"],
        )
        .with(Series::per_category(
            what,
            [count(&|n| n == 0), count(&|n| n == 1), count(&|n| n >= 2)],
        )),
    );
    out.note(format!(
        "{} messages: {} consumer crashes between effect and XACK, {} entries claimed again by the reaper, {dups} effects applied twice, {lost} lost.",
        run.applied.len(),
        run.crashes,
        run.redeliveries
    ));
    if variant != V_PLAIN {
        out.note(format!(
            "The check and the effect run in one script: done apart, a crash between them would lose the effect or apply it twice. {} dedup records are kept{}.",
            run.dedup_records,
            if variant == V_SET { " and the set only grows" } else { ", each expiring after 60 s" }
        ));
    }
    out.diagram = run.diagram;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_choices, metric, pass_for, run as with};

    #[test]
    fn plain_consumers_apply_twice_and_idempotent_ones_do_not() {
        for o in pass_for(1..=3, &STREAMS_AT_LEAST_ONCE, &[]) {
            assert!(metric(&o, "duplicate effects") > 0.0);
            assert_eq!(metric(&o, "messages lost"), 0.0);
            assert!(o.diagram.is_some());
        }
        for v in ["idempotent-set", "idempotent-setnx"] {
            for o in pass_for(1..=3, &STREAMS_AT_LEAST_ONCE, &[("variant", v)]) {
                assert_eq!(metric(&o, "duplicate effects"), 0.0, "{v}");
                assert!(metric(&o, "duplicates skipped by ID") > 0.0, "{v}");
            }
        }
        // No crash, no redelivery: the plain claim has nothing to show.
        let o = with(&STREAMS_AT_LEAST_ONCE, 1, &[("crash_pct", "0")]);
        assert_eq!(metric(&o, "duplicate effects"), 0.0);
        assert!(!o.passed());
    }

    #[test]
    fn choices_match_the_description() {
        assert_choices(
            "streams-at-least-once",
            "variant",
            "plain idempotent-set idempotent-setnx",
        );
    }
}
