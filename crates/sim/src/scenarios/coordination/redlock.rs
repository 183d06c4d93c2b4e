//! Redlock over five masters: a majority within the validity time, and the two faults that still give two holders (a clock jump on one master, a client paused past its validity).

use super::{ms, short, two_holders, unless_paused, Holder, UNLOCK_LUA};
use crate::kernel::{Dist, Kernel, Link, Micros, Redis, MS};
use crate::outcome::Outcome;
use crate::outcome::{Chart, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use redsim_engine::proto::resp::Frame;

pub const REDLOCK: Scenario = Scenario::new("redlock", redlock_run);

const MASTERS: usize = 5;
const QUORUM: usize = MASTERS / 2 + 1;

enum REv {
    Try(usize),
    Arrive(usize, usize, u64, bool),
    Reply(usize, usize, u64, bool, Frame),
    Decide(usize, u64),
    WorkDone(usize, u64),
    Write(usize, u64),
    Jump,
}

struct RClient {
    lane: usize,
    name: &'static str,
    attempt: u64,
    started: Micros,
    oks: usize,
    answered: usize,
    decided: bool,
    holding_since: Option<Micros>,
    validity_end: Micros,
    frozen_until: Micros,
    done: bool,
}

struct RedlockRun {
    overlap: Micros,
    b_acquired_at: Option<Micros>,
    a_validity: Micros,
    stale_writes: u64,
    diagram: crate::outcome::Diagram,
}

fn redlock_once(p: &Params, seed: u64, fault: Option<usize>) -> RedlockRun {
    let ttl = p.count("ttl_ms").max(1) * MS;
    let work = p.count("work_ms") * MS;
    let jump = p.count("jump_ms") * MS;
    let pause = p.count("pause_ms") * MS;
    let drift = ttl / 100 + 2 * MS;
    let instance_timeout = 50 * MS;
    let jump_at = ttl / 5;
    let end = 3 * ttl + work + pause;
    let partition = fault.is_some_and(|f| f == 0) || fault.is_none() && p.choice("fault") == 0;

    let mut k: Kernel<REv> = Kernel::new(seed);
    let mut cl = ["A", "B"].map(|name| RClient {
        lane: k.rec.lane(&format!("client {name}"), "client"),
        name,
        attempt: 0,
        started: 0,
        oks: 0,
        answered: 0,
        decided: false,
        holding_since: None,
        validity_end: 0,
        frozen_until: 0,
        done: false,
    });
    let mut masters: Vec<Redis> = (0..MASTERS)
        .map(|m| Redis::new(seeds::nth(seed, m as u64 + 1), &[]))
        .collect();
    let lanes: Vec<usize> = (0..MASTERS)
        .map(|m| k.rec.lane(&format!("M{}", m + 1), "redis"))
        .collect();
    let link = Link::new(Dist::jittered(500, 500));
    // Which (client, master) pairs cannot talk: A–M4, A–M5, B–M1, B–M2 in the partition.
    let cut = |c: usize, m: usize| partition && ((c == 0 && m >= 3) || (c == 1 && m <= 1));
    let mut ivals: Vec<(usize, Micros, Micros)> = Vec::new();
    let mut b_acquired_at = None;
    let mut a_validity = 0;
    let mut stale_writes = 0;

    k.at(0, REv::Try(0));
    k.at(20 * MS, REv::Try(1));
    if fault == Some(0) {
        k.at(jump_at, REv::Jump);
    }
    while let Some(ev) = k.next(end) {
        let now = k.now();
        let owner = match &ev {
            REv::Try(c)
            | REv::Reply(c, ..)
            | REv::Decide(c, _)
            | REv::WorkDone(c, _)
            | REv::Write(c, _) => Some(*c),
            _ => None,
        };
        let Some(ev) = unless_paused(&mut k, owner.map(|c| cl[c].frozen_until), ev) else {
            continue;
        };
        match ev {
            REv::Try(c) => {
                if cl[c].done {
                    continue;
                }
                let r = &mut cl[c];
                r.attempt += 1;
                r.started = now;
                r.oks = 0;
                r.answered = 0;
                r.decided = false;
                let token = format!("{}:{}", r.name, r.attempt);
                for (m, &lane) in lanes.iter().enumerate() {
                    if cut(c, m) {
                        k.rec
                            .msg(
                                now,
                                now + instance_timeout,
                                cl[c].lane,
                                lane,
                                "SET (no route)",
                            )
                            .failed();
                        continue;
                    }
                    let d = link.delay(&mut k.rng).unwrap_or(0);
                    k.rec.msg(
                        now,
                        now + d,
                        cl[c].lane,
                        lane,
                        format!("SET res {token} NX PX {}", ttl / MS),
                    );
                    k.after(d, REv::Arrive(c, m, cl[c].attempt, true));
                }
                k.after(instance_timeout, REv::Decide(c, cl[c].attempt));
            }
            REv::Arrive(c, m, attempt, acquire) => {
                let token = format!("{}:{attempt}", cl[c].name);
                let ttl_s = (ttl / MS).to_string();
                let reply = if acquire {
                    masters[m].exec(now, cl[c].name, &["SET", "res", &token, "NX", "PX", &ttl_s])
                } else {
                    masters[m].exec(now, cl[c].name, &["EVAL", UNLOCK_LUA, "1", "res", &token])
                };
                let d = link.delay(&mut k.rng).unwrap_or(0);
                k.rec.msg(now, now + d, lanes[m], cl[c].lane, short(&reply));
                k.after(d, REv::Reply(c, m, attempt, acquire, reply));
            }
            REv::Reply(c, _m, attempt, acquire, reply) => {
                if !acquire || attempt != cl[c].attempt || cl[c].decided {
                    continue;
                }
                cl[c].answered += 1;
                if matches!(reply, Frame::Simple(_)) {
                    cl[c].oks += 1;
                }
                let reachable = (0..MASTERS).filter(|&m| !cut(c, m)).count();
                if cl[c].answered == reachable {
                    k.after(0, REv::Decide(c, attempt));
                }
            }
            REv::Decide(c, attempt) => {
                if attempt != cl[c].attempt || cl[c].decided || cl[c].done {
                    continue;
                }
                cl[c].decided = true;
                let elapsed = now - cl[c].started;
                let validity = ttl.saturating_sub(elapsed + drift);
                if cl[c].oks >= QUORUM && validity > 0 {
                    cl[c].holding_since = Some(now);
                    cl[c].validity_end = cl[c].started + validity;
                    k.rec.local(
                        now,
                        cl[c].validity_end,
                        cl[c].lane,
                        format!(
                            "holds: {} of {MASTERS} masters, validity {} ms",
                            cl[c].oks,
                            validity / MS
                        ),
                    );
                    if c == 0 {
                        a_validity = validity;
                    } else {
                        b_acquired_at = Some(now);
                    }
                    let w = if c == 0 { work } else { 100 * MS };
                    k.after(w, REv::WorkDone(c, attempt));
                } else {
                    k.rec.local(
                        now,
                        now,
                        cl[c].lane,
                        format!("only {} of {MASTERS}: release and retry", cl[c].oks),
                    );
                    release(&mut k, &link, &lanes, &cl[c], c, &cut);
                    let j = k.rng.u64(0..=50 * MS);
                    k.after(100 * MS + j, REv::Try(c));
                }
            }
            REv::WorkDone(c, attempt) => {
                // A careful client checks its validity before writing...
                if now >= cl[c].validity_end {
                    k.rec
                        .local(now, now, cl[c].lane, "validity over: give up the write");
                    end_hold(&mut cl[c], &mut ivals, c, now);
                    release(&mut k, &link, &lanes, &cl[c], c, &cut);
                    cl[c].done = true;
                    continue;
                }
                // ...and can still be paused between the check and the write.
                if c == 0 && fault == Some(1) && pause > 0 {
                    cl[c].frozen_until = now + pause;
                    k.rec.local(
                        now,
                        now + pause,
                        cl[c].lane,
                        format!("validity checked, then a {} ms pause", pause / MS),
                    );
                }
                k.after(0, REv::Write(c, attempt));
            }
            REv::Write(c, _attempt) => {
                let other = 1 - c;
                if cl[other].holding_since.is_some() {
                    stale_writes += 1;
                    k.rec.mark(
                        now,
                        cl[c].lane,
                        "bad",
                        format!(
                            "{} writes as lock holder while {} holds the lock too.",
                            cl[c].name, cl[other].name
                        ),
                    );
                }
                end_hold(&mut cl[c], &mut ivals, c, now);
                release(&mut k, &link, &lanes, &cl[c], c, &cut);
                cl[c].done = true;
            }
            REv::Jump => {
                // M3's wall clock leaps forward: its keys' absolute expiry times come early.
                let e = masters[2].engine_mut();
                let base = e.unix_base_us();
                e.set_unix_base_us(base + jump);
                k.rec.local(
                    now,
                    now,
                    lanes[2],
                    format!("clock jumps {} ms forward", jump / MS),
                );
                k.rec.mark(
                    now,
                    lanes[2],
                    "info",
                    "M3's clock jumps forward: A's key there is now past its expiry time.",
                );
            }
        }
    }
    let who: Vec<Holder> = cl
        .iter()
        .map(|c| (c.lane, c.name, c.holding_since))
        .collect();
    let says = ("reaches a quorum", "still holds the lock");
    let overlap = two_holders(&mut k.rec, &mut ivals, &who, end, 2, says);
    RedlockRun {
        overlap,
        b_acquired_at,
        a_validity,
        stale_writes,
        diagram: k.rec.take_diagram(),
    }
}

fn end_hold(c: &mut RClient, ivals: &mut Vec<(usize, Micros, Micros)>, i: usize, now: Micros) {
    if let Some(s) = c.holding_since.take() {
        ivals.push((i, s, now));
    }
}

/// Compare-and-delete on every reachable master.
fn release(
    k: &mut Kernel<REv>,
    link: &Link,
    lanes: &[usize],
    c: &RClient,
    i: usize,
    cut: &dyn Fn(usize, usize) -> bool,
) {
    let now = k.now();
    for (m, &lane) in lanes.iter().enumerate() {
        if cut(i, m) {
            continue;
        }
        let d = link.delay(&mut k.rng).unwrap_or(0);
        k.rec.msg(now, now + d, c.lane, lane, "EVAL unlock");
        k.after(d, REv::Arrive(i, m, c.attempt, false));
    }
}

fn redlock_run(p: &Params, seed: u64) -> Outcome {
    let faults = REDLOCK.info().choices("fault");
    let fault = p.choice("fault").min(faults.len() - 1);
    let clean = redlock_once(p, seed, None);
    let bad = redlock_once(p, seed, Some(fault));
    let ttl = p.count("ttl_ms") * MS;
    let mut out = Outcome::new("redlock", seed, p);
    out.duration_us = 3 * ttl + p.count("work_ms") * MS + p.count("pause_ms") * MS;
    out.metric("overlap, clean run", ms(clean.overlap), "ms")
        .metric("overlap, fault run", ms(bad.overlap), "ms")
        .metric("A's validity", ms(bad.a_validity), "ms")
        .metric(
            "writes while both held, fault run",
            bad.stale_writes as f64,
            "writes",
        );
    out.check(
        "Clean run: the quorum keeps a single holder",
        clean.overlap == 0,
        format!("{:.1} ms with two holders", ms(clean.overlap)),
    );
    out.check(
        &format!(
            "Fault run ({}): two clients hold the lock at once",
            faults[fault]
        ),
        bad.overlap > 0,
        format!(
            "{:.1} ms with two holders; B acquired at {}",
            ms(bad.overlap),
            bad.b_acquired_at
                .map_or("never".into(), |t| format!("{:.0} ms", ms(t)))
        ),
    );
    out.charts.push(
        Chart::bars("Time with two holders", "ms", &["clean", faults[fault]]).with(Series::new(
            "overlap",
            vec![(0.0, ms(clean.overlap)), (1.0, ms(bad.overlap))],
        )),
    );
    out.note(format!(
        "Clean: B got the lock at {}, after A let go; no overlap.",
        clean
            .b_acquired_at
            .map_or("no time".into(), |t| format!("{:.0} ms", ms(t)))
    ));
    out.note(format!(
        "With {}: B got the lock at {} while A held it (validity {:.0} ms): {:.0} ms with two holders.",
        faults[fault],
        bad.b_acquired_at.map_or("no time".into(), |t| format!("{:.0} ms", ms(t))),
        ms(bad.a_validity),
        ms(bad.overlap)
    ));
    out.diagram = Some(bad.diagram);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{metric, run as run_with};

    #[test]
    fn redlock_clean_runs_are_safe_and_faults_give_two_holders() {
        for seed in 1..=3 {
            for &f in REDLOCK.info().choices("fault") {
                let o = run_with(&REDLOCK, seed, &[("fault", f)]);
                assert!(o.passed(), "{f} seed {seed}: {:?}", o.checks);
                assert_eq!(metric(&o, "overlap, clean run"), 0.0);
                assert!(metric(&o, "overlap, fault run") > 0.0);
                let v = metric(&o, "A's validity");
                // TTL 1000 minus the round trip minus drift (1% + 2 ms).
                assert!(v > 980.0 && v < 988.0, "validity {v}");
            }
        }
        // No jump, no second holder: the fault check fails.
        let o = run_with(&REDLOCK, 1, &[("fault", "clock-jump"), ("jump_ms", "0")]);
        assert!(!o.passed());
        // A pause shorter than the validity left does not either.
        let o = run_with(
            &REDLOCK,
            1,
            &[("fault", "client-pause"), ("pause_ms", "100")],
        );
        assert_eq!(metric(&o, "overlap, fault run"), 0.0);
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices("redlock", "fault", "clock-jump client-pause");
    }
}
