//! A lock without a TTL: its holder dies and the key stays, so every other worker is refused until an operator deletes it; with PX the lock frees itself when the TTL runs out.

use super::{ms, short, UNLOCK_LUA};
use crate::kernel::{Dist, Kernel, Link, Micros, Redis, MS};
use crate::outcome::{Chart, Diagram, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::proto::resp::Frame;

pub const LOCK_WITHOUT_TTL: Scenario = Scenario::new("lock-without-ttl", lock_ttl_run);

/// Positions in the `variant` choices (the lesson's scenarios.json).
const V_NO_TTL: usize = 0;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Acquire,
    Release,
}

enum WEv {
    Try(usize),
    Arrive(usize, Op, u64),
    Reply(usize, Op, u64, Frame),
    WorkDone(usize, u64),
    Operator,
}

struct Worker {
    lane: usize,
    name: String,
    job: u64,
    token: String,
    dead: bool,
}

#[derive(Default)]
struct TtlRun {
    jobs: u64,
    refused: u64,
    /// When the holder died, and when a live worker next took the lock.
    died_at: Option<Micros>,
    next_acquire: Option<Micros>,
    /// Whether the operator's DEL removed the dead holder's lock.
    operator_freed: bool,
    /// Jobs finished by then, over time (s, jobs).
    done: Vec<(f64, f64)>,
    end: Micros,
    diagram: Option<Diagram>,
}

impl TtlRun {
    /// How long the resource sat locked by a dead holder (to the run's end if never freed).
    fn unavailable(&self) -> Micros {
        match self.died_at {
            Some(d) => self.next_acquire.unwrap_or(self.end).saturating_sub(d),
            None => 0,
        }
    }
}

fn lock_ttl_once(p: &Params, seed: u64, variant: usize) -> TtlRun {
    let ttl = p.count("ttl_ms").max(1) * MS;
    let work = p.count("work_ms").max(1) * MS;
    let n = p.count("workers").clamp(2, 5) as usize;
    let crash_at = p.count("crash_at_ms") * MS;
    let operator = p.count("operator_ms") * MS;
    let end = p.count("duration_ms") * MS;
    let with_ttl = variant != V_NO_TTL;

    let mut k: Kernel<WEv> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    let link = Link::new(Dist::jittered(400, 200));
    let names = ["A", "B", "C", "D", "E"];
    let mut ws: Vec<Worker> = (0..n)
        .map(|i| Worker {
            lane: k.rec.lane(&format!("worker {}", names[i]), "client"),
            name: names[i].to_string(),
            job: 0,
            token: String::new(),
            dead: false,
        })
        .collect();
    let rl = k.rec.lane("redis", "redis");
    let op_lane = k.rec.lane("operator", "client");
    for i in 0..n {
        k.at(i as Micros * 3 * MS, WEv::Try(i));
    }
    let mut run = TtlRun::default();
    let mut dead_token = String::new();
    let mut refusal_marked = false;
    // Draw the story around the crash and around the lock coming free.
    let free_guess = |died: Micros| died + if with_ttl { ttl } else { operator };
    let drawn = |now: Micros, died: Option<Micros>| match died {
        None => now + 60 * MS >= crash_at,
        Some(d) => {
            now <= d + 60 * MS
                || (now + 60 * MS >= free_guess(d) && now <= free_guess(d) + 120 * MS)
        }
    };

    while let Some(ev) = k.next(end) {
        let now = k.now();
        let draw = drawn(now, run.died_at);
        match ev {
            WEv::Try(w) => {
                if ws[w].dead {
                    continue;
                }
                ws[w].job += 1;
                ws[w].token = format!("{}:{}", ws[w].name, ws[w].job);
                let d = link.delay(&mut k.rng).unwrap_or(0);
                if draw {
                    let label = if with_ttl {
                        format!("SET lock {} NX PX {}", ws[w].token, ttl / MS)
                    } else {
                        format!("SET lock {} NX", ws[w].token)
                    };
                    k.rec.msg(now, now + d, ws[w].lane, rl, label);
                }
                k.after(d, WEv::Arrive(w, Op::Acquire, ws[w].job));
            }
            WEv::Arrive(w, op, job) => {
                let token = ws[w].token.clone();
                let who = ws[w].name.clone();
                let ttl_s = (ttl / MS).to_string();
                let reply = match op {
                    Op::Acquire if with_ttl => {
                        redis.exec(now, &who, &["SET", "lock", &token, "NX", "PX", &ttl_s])
                    }
                    Op::Acquire => redis.exec(now, &who, &["SET", "lock", &token, "NX"]),
                    Op::Release => {
                        redis.exec(now, &who, &["EVAL", UNLOCK_LUA, "1", "lock", &token])
                    }
                };
                let d = link.delay(&mut k.rng).unwrap_or(0);
                let refused = op == Op::Acquire && !matches!(reply, Frame::Simple(_));
                if draw {
                    let sent = k.rec.msg(now, now + d, rl, ws[w].lane, short(&reply));
                    if refused {
                        sent.failed();
                    }
                }
                k.after(d, WEv::Reply(w, op, job, reply));
            }
            WEv::Reply(w, op, job, reply) => {
                if ws[w].dead || job != ws[w].job {
                    continue;
                }
                match op {
                    Op::Acquire if matches!(reply, Frame::Simple(_)) => {
                        if run.died_at.is_some() && run.next_acquire.is_none() {
                            run.next_acquire = Some(now);
                            let waited = now - run.died_at.unwrap_or(now);
                            let text = format!(
                                "Worker {} gets the lock {:.0} ms after its holder died",
                                ws[w].name,
                                ms(waited)
                            );
                            k.rec.mark(now, ws[w].lane, "good", text);
                        }
                        if draw {
                            k.rec.local(now, now + work, ws[w].lane, "job");
                        }
                        k.after(work, WEv::WorkDone(w, job));
                    }
                    Op::Acquire => {
                        run.refused += 1;
                        if run.died_at.is_some() && !refusal_marked {
                            refusal_marked = true;
                            let text = format!("Worker {}'s SET NX is refused: the dead worker's key is still there", ws[w].name);
                            k.rec.mark(now, ws[w].lane, "bad", text);
                        }
                        let retry = 15 * MS + k.rng.u64(0..=10 * MS);
                        k.after(retry, WEv::Try(w));
                    }
                    Op::Release => {
                        let think = 5 * MS + k.rng.u64(0..=10 * MS);
                        k.after(think, WEv::Try(w));
                    }
                }
            }
            WEv::WorkDone(w, job) => {
                if job != ws[w].job {
                    continue;
                }
                if run.died_at.is_none() && now >= crash_at {
                    // The holder dies before it can release: the key stays.
                    ws[w].dead = true;
                    run.died_at = Some(now);
                    dead_token = ws[w].token.clone();
                    k.rec
                        .local(now, now, ws[w].lane, "killed before its release");
                    let text = if with_ttl {
                        format!(
                            "Worker {} dies holding the lock; the key still has its PX TTL",
                            ws[w].name
                        )
                    } else {
                        format!("Worker {} dies holding a lock with no TTL: nothing will ever remove it", ws[w].name)
                    };
                    k.rec
                        .mark(now, ws[w].lane, if with_ttl { "info" } else { "bad" }, text);
                    k.after(operator, WEv::Operator);
                    continue;
                }
                run.jobs += 1;
                run.done.push((now as f64 / 1e6, run.jobs as f64));
                let d = link.delay(&mut k.rng).unwrap_or(0);
                if draw {
                    k.rec.msg(now, now + d, ws[w].lane, rl, "EVAL unlock");
                }
                k.after(d, WEv::Arrive(w, Op::Release, job));
            }
            WEv::Operator => {
                // The on-call operator finds the stuck lock and deletes it, if it is still the dead holder's.
                let reply = redis.exec(
                    now,
                    "operator",
                    &["EVAL", UNLOCK_LUA, "1", "lock", &dead_token],
                );
                if matches!(reply, Frame::Integer(1)) {
                    run.operator_freed = true;
                    k.rec.msg(now, now, op_lane, rl, "DEL lock (by hand)");
                    let text = format!(
                        "An operator deletes the lock by hand, {:.0} ms after its holder died",
                        ms(operator)
                    );
                    k.rec.mark(now, op_lane, "info", text);
                }
            }
        }
    }
    k.finish_at(end);
    run.end = end;
    run.done.insert(0, (0.0, 0.0));
    run.done.push((end as f64 / 1e6, run.jobs as f64));
    run.diagram = Some(k.rec.take_diagram());
    run
}

fn lock_ttl_run(p: &Params, seed: u64) -> Outcome {
    let variants = LOCK_WITHOUT_TTL.info().choices("variant");
    let variant = p.choice("variant").min(variants.len() - 1);
    let run = lock_ttl_once(p, seed, variant);
    let other = lock_ttl_once(p, seed, 1 - variant.min(1));
    let ttl = p.count("ttl_ms") * MS;
    let operator = p.count("operator_ms") * MS;
    let what = variants[variant];
    let gap = run.unavailable();
    let mut out = Outcome::new("lock-without-ttl", seed, p);
    out.duration_us = run.end;
    out.metric("resource unavailable after the crash", ms(gap), "ms")
        .metric("jobs done", run.jobs as f64, "jobs")
        .metric("lock attempts refused", run.refused as f64, "attempts")
        .metric(
            &format!("jobs done with {}", variants[1 - variant.min(1)]),
            other.jobs as f64,
            "jobs",
        );
    let died = run.died_at.is_some();
    if variant == V_NO_TTL {
        let left = run.end.saturating_sub(run.died_at.unwrap_or(run.end));
        out.check(
            "no-ttl: the dead holder's lock stays until an operator deletes it, and nobody works meanwhile",
            died && gap >= operator.min(left) && (run.next_acquire.is_none() || run.operator_freed),
            format!(
                "unavailable for {:.0} ms; the operator came after {:.0} ms{}",
                ms(gap),
                ms(operator),
                if run.operator_freed { " and deleted it" } else { "" }
            ),
        );
    } else {
        out.check(
            &format!("{what}: the lock frees itself within its TTL, with no one's help"),
            died && run.next_acquire.is_some() && gap <= ttl + 40 * MS && !run.operator_freed,
            format!(
                "unavailable for {:.0} ms with a {:.0} ms TTL",
                ms(gap),
                ms(ttl)
            ),
        );
    }
    let names = [variants[variant], variants[1 - variant.min(1)]];
    out.charts.push(
        Chart::line("Jobs done", "time (s)", "jobs")
            .with(Series::new(names[0], run.done.clone()))
            .with(Series::new(names[1], other.done.clone())),
    );
    out.note(format!(
        "{what}: the holder died at {:.0} ms; the resource was locked by a dead worker for {:.0} ms, {} attempts were refused, {} jobs done (against {} with {}).",
        ms(run.died_at.unwrap_or(0)),
        ms(gap),
        run.refused,
        run.jobs,
        other.jobs,
        names[1]
    ));
    out.diagram = run.diagram;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_choices, metric, pass_for, run as with};

    #[test]
    fn a_lock_without_ttl_outlives_its_holder_and_px_does_not() {
        for o in pass_for(1..=3, &LOCK_WITHOUT_TTL, &[]) {
            assert!(metric(&o, "resource unavailable after the crash") >= 2000.0);
            assert!(metric(&o, "jobs done") < metric(&o, "jobs done with px"));
        }
        for o in pass_for(1..=3, &LOCK_WITHOUT_TTL, &[("variant", "px")]) {
            let gap = metric(&o, "resource unavailable after the crash");
            assert!(gap > 0.0 && gap <= 540.0, "{gap}");
        }
        // A TTL longer than the operator takes: the operator frees it first.
        let o = with(
            &LOCK_WITHOUT_TTL,
            1,
            &[("variant", "px"), ("ttl_ms", "5000")],
        );
        assert!(!o.passed());
    }

    #[test]
    fn choices_match_the_description() {
        assert_choices("lock-without-ttl", "variant", "no-ttl px");
    }
}
