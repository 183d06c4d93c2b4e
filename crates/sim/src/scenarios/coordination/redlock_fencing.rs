//! Redlock hands out no fencing token: a client paused past its validity writes after the next holder, and the storage takes the stale write; a token from an INCR counter, checked by the storage, turns it away.

use super::{ms, short, unless_paused, UNLOCK_LUA};
use crate::kernel::{Dist, Kernel, Link, Micros, Redis, MS};
use crate::outcome::{Chart, Diagram, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use redsim_engine::proto::resp::Frame;

pub const REDLOCK_NO_FENCING: Scenario = Scenario::new("redlock-no-fencing", rf_run);

const MASTERS: usize = 5;
const QUORUM: usize = MASTERS / 2 + 1;
/// Position of the fenced variant in the `variant` choices.
const V_FENCED: usize = 1;

enum FEv {
    Try(usize),
    Arrive(usize, usize, u64, bool),
    Reply(usize, u64, Frame),
    Decide(usize, u64),
    Fenced(usize, i64),
    WorkDone(usize),
    Write(usize),
    Stored(usize),
}

struct FClient {
    lane: usize,
    name: &'static str,
    attempt: u64,
    started: Micros,
    oks: usize,
    answered: usize,
    decided: bool,
    validity_end: Micros,
    token: i64,
    frozen_until: Micros,
    done: bool,
}

#[derive(Default)]
struct FRun {
    /// Writes that reached the storage after the writer's validity ended.
    late_accepted: u64,
    late_rejected: u64,
    /// What the storage holds at the end, and who wrote last in time.
    stored: String,
    b_acquired_at: Option<Micros>,
    a_validity: Micros,
    end: Micros,
    diagram: Option<Diagram>,
}

fn rf_once(p: &Params, seed: u64, fenced: bool) -> FRun {
    let ttl = p.count("ttl_ms").max(1) * MS;
    let work = p.count("work_ms") * MS;
    let pause = p.count("pause_ms") * MS;
    let drift = ttl / 100 + 2 * MS;
    let timeout = 50 * MS;
    let end = 3 * ttl + work + pause;

    let mut k: Kernel<FEv> = Kernel::new(seed);
    let mut cl = ["A", "B"].map(|name| FClient {
        lane: k.rec.lane(&format!("client {name}"), "client"),
        name,
        attempt: 0,
        started: 0,
        oks: 0,
        answered: 0,
        decided: false,
        validity_end: 0,
        token: 0,
        frozen_until: 0,
        done: false,
    });
    let mut masters: Vec<Redis> = (0..MASTERS)
        .map(|m| Redis::new(seeds::nth(seed, m as u64 + 1), &[]))
        .collect();
    let lanes: Vec<usize> = (0..MASTERS)
        .map(|m| k.rec.lane(&format!("M{}", m + 1), "redis"))
        .collect();
    let mut counter = Redis::new(seeds::nth(seed, MASTERS as u64 + 1), &[]);
    let counter_lane = fenced.then(|| k.rec.lane("token counter", "redis"));
    let store_lane = k.rec.lane("storage", "db");
    let link = Link::new(Dist::jittered(500, 500));
    let mut run = FRun::default();
    let mut highest: i64 = 0;

    k.at(0, FEv::Try(0));
    k.at(ttl / 2, FEv::Try(1));
    while let Some(ev) = k.next(end) {
        let now = k.now();
        let owner = match &ev {
            FEv::Try(c)
            | FEv::Reply(c, ..)
            | FEv::Decide(c, _)
            | FEv::Fenced(c, _)
            | FEv::WorkDone(c)
            | FEv::Write(c) => Some(*c),
            _ => None,
        };
        let Some(ev) = unless_paused(&mut k, owner.map(|c| cl[c].frozen_until), ev) else {
            continue;
        };
        match ev {
            FEv::Try(c) => {
                if cl[c].done {
                    continue;
                }
                let r = &mut cl[c];
                r.attempt += 1;
                r.started = now;
                r.oks = 0;
                r.answered = 0;
                r.decided = false;
                for (m, &lane) in lanes.iter().enumerate() {
                    let d = link.delay(&mut k.rng).unwrap_or(0);
                    let label = format!("SET res {}:{} NX PX {}", r.name, r.attempt, ttl / MS);
                    k.rec.msg(now, now + d, r.lane, lane, label);
                    k.after(d, FEv::Arrive(c, m, r.attempt, true));
                }
                k.after(timeout, FEv::Decide(c, cl[c].attempt));
            }
            FEv::Arrive(c, m, attempt, acquire) => {
                let token = format!("{}:{attempt}", cl[c].name);
                let ttl_s = (ttl / MS).to_string();
                let reply = if acquire {
                    masters[m].exec(now, cl[c].name, &["SET", "res", &token, "NX", "PX", &ttl_s])
                } else {
                    masters[m].exec(now, cl[c].name, &["EVAL", UNLOCK_LUA, "1", "res", &token])
                };
                if acquire {
                    let d = link.delay(&mut k.rng).unwrap_or(0);
                    k.rec.msg(now, now + d, lanes[m], cl[c].lane, short(&reply));
                    k.after(d, FEv::Reply(c, attempt, reply));
                }
            }
            FEv::Reply(c, attempt, reply) => {
                if attempt != cl[c].attempt || cl[c].decided {
                    continue;
                }
                cl[c].answered += 1;
                if matches!(reply, Frame::Simple(_)) {
                    cl[c].oks += 1;
                }
                if cl[c].answered == MASTERS {
                    k.after(0, FEv::Decide(c, attempt));
                }
            }
            FEv::Decide(c, attempt) => {
                if attempt != cl[c].attempt || cl[c].decided || cl[c].done {
                    continue;
                }
                cl[c].decided = true;
                let validity = ttl.saturating_sub(now - cl[c].started + drift);
                if cl[c].oks >= QUORUM && validity > 0 {
                    cl[c].validity_end = cl[c].started + validity;
                    let label = format!(
                        "holds {} of {MASTERS}, valid {} ms",
                        cl[c].oks,
                        validity / MS
                    );
                    k.rec.local(now, cl[c].validity_end, cl[c].lane, label);
                    if c == 0 {
                        run.a_validity = validity;
                    } else {
                        run.b_acquired_at = Some(now);
                        k.rec.mark(
                            now,
                            cl[c].lane,
                            "info",
                            "B reaches a quorum: A's keys have expired on the masters",
                        );
                    }
                    match counter_lane {
                        Some(lane) => {
                            // The token comes from one counter every holder asks.
                            let t = match counter.exec(now, cl[c].name, &["INCR", "fence"]) {
                                Frame::Integer(t) => t,
                                _ => 0,
                            };
                            let d = link.delay(&mut k.rng).unwrap_or(0);
                            k.rec.msg(now, now + d, cl[c].lane, lane, "INCR fence");
                            k.rec.msg(
                                now + d,
                                now + 2 * d,
                                lane,
                                cl[c].lane,
                                format!("(integer) {t}"),
                            );
                            k.after(2 * d, FEv::Fenced(c, t));
                        }
                        None => k.after(0, FEv::Fenced(c, 0)),
                    }
                } else {
                    k.rec.local(
                        now,
                        now,
                        cl[c].lane,
                        format!("only {} of {MASTERS}: retry", cl[c].oks),
                    );
                    let j = k.rng.u64(0..=50 * MS);
                    k.after(ttl / 4 + j, FEv::Try(c));
                }
            }
            FEv::Fenced(c, t) => {
                cl[c].token = t;
                let w = if c == 0 { work } else { work.min(100 * MS) };
                k.after(w, FEv::WorkDone(c));
            }
            FEv::WorkDone(c) => {
                if now >= cl[c].validity_end {
                    k.rec.local(now, now, cl[c].lane, "validity over: no write");
                    cl[c].done = true;
                    continue;
                }
                if c == 0 && pause > 0 {
                    // Checked its validity, then stopped by a pause before the write.
                    cl[c].frozen_until = now + pause;
                    let label = format!("validity checked, then a {} ms pause", pause / MS);
                    k.rec.local(now, now + pause, cl[c].lane, label);
                }
                k.after(0, FEv::Write(c));
            }
            FEv::Write(c) => {
                let d = link.delay(&mut k.rng).unwrap_or(0);
                let label = if fenced {
                    format!("write {} (token {})", cl[c].name, cl[c].token)
                } else {
                    format!("write {}", cl[c].name)
                };
                k.rec.msg(now, now + d, cl[c].lane, store_lane, label);
                k.after(d, FEv::Stored(c));
            }
            FEv::Stored(c) => {
                let late = now >= cl[c].validity_end;
                let accepted = !fenced || cl[c].token >= highest;
                if accepted {
                    highest = highest.max(cl[c].token);
                    run.stored = cl[c].name.to_string();
                }
                let d = link.delay(&mut k.rng).unwrap_or(0);
                let text = if accepted {
                    "ok"
                } else {
                    "rejected: older token"
                };
                let sent = k.rec.msg(now, now + d, store_lane, cl[c].lane, text);
                if !accepted {
                    sent.failed();
                }
                if late && accepted {
                    run.late_accepted += 1;
                    let text = format!("{}'s write lands after its lock expired and after B's: the storage cannot tell", cl[c].name);
                    k.rec.mark(now, store_lane, "bad", text);
                } else if late {
                    run.late_rejected += 1;
                    let text = format!("{}'s token {} is older than {highest}: the storage refuses the stale write", cl[c].name, cl[c].token);
                    k.rec.mark(now, store_lane, "good", text);
                }
                // Release: compare-and-delete on every master.
                for (m, &lane) in lanes.iter().enumerate() {
                    let d = link.delay(&mut k.rng).unwrap_or(0);
                    k.rec
                        .msg(now + d, now + 2 * d, cl[c].lane, lane, "EVAL unlock");
                    k.at(now + 2 * d, FEv::Arrive(c, m, cl[c].attempt, false));
                }
                cl[c].done = true;
            }
        }
    }
    k.finish_at(end);
    run.end = end;
    run.diagram = Some(k.rec.take_diagram());
    run
}

fn rf_run(p: &Params, seed: u64) -> Outcome {
    let variants = REDLOCK_NO_FENCING.info().choices("variant");
    let variant = p.choice("variant").min(variants.len() - 1);
    let fenced = variant == V_FENCED;
    let run = rf_once(p, seed, fenced);
    let other = rf_once(p, seed, !fenced);
    let what = variants[variant];
    let mut out = Outcome::new("redlock-no-fencing", seed, p);
    out.duration_us = run.end;
    out.metric("late writes accepted", run.late_accepted as f64, "writes")
        .metric("late writes rejected", run.late_rejected as f64, "writes")
        .metric("A's validity", ms(run.a_validity), "ms")
        .metric("B acquired at", run.b_acquired_at.map_or(0.0, ms), "ms");
    if fenced {
        out.check(
            "fencing-token: the storage rejects the paused client's write, whose token is older than B's",
            run.late_rejected > 0 && run.late_accepted == 0 && run.stored == "B",
            format!(
                "{} late writes rejected, {} accepted; the storage holds {}'s value",
                run.late_rejected, run.late_accepted, run.stored
            ),
        );
    } else {
        out.check(
            "redlock: the paused client's write lands after B's and the storage keeps it",
            run.late_accepted > 0 && run.stored == "A",
            format!(
                "{} late writes accepted; the storage holds {}'s value",
                run.late_accepted, run.stored
            ),
        );
    }
    let (n, f) = if fenced {
        (&other, &run)
    } else {
        (&run, &other)
    };
    out.charts.push(
        Chart::bars("A's late write", "writes", &["accepted", "rejected"])
            .with(Series::per_category(
                variants[0],
                [n.late_accepted as f64, n.late_rejected as f64],
            ))
            .with(Series::per_category(
                variants[1],
                [f.late_accepted as f64, f.late_rejected as f64],
            )),
    );
    out.note(format!(
        "{what}: A held the lock for {:.0} ms of validity, B got it at {}, and A's write after its pause was {}.",
        ms(run.a_validity),
        run.b_acquired_at.map_or("no time".into(), |t| format!("{:.0} ms", ms(t))),
        if run.late_accepted > 0 { "accepted" } else if run.late_rejected > 0 { "rejected" } else { "not late" }
    ));
    out.note("The five masters share nothing, so no number they hand out grows from one holder to the next: the token here comes from a single counter, which is exactly the single point Redlock set out to avoid; a consensus store's revision gives one without that trade.");
    out.diagram = run.diagram;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_choices, metric, pass_for, run as with};

    #[test]
    fn a_paused_holder_writes_late_unless_fenced() {
        for o in pass_for(1..=3, &REDLOCK_NO_FENCING, &[]) {
            assert_eq!(metric(&o, "late writes accepted"), 1.0);
        }
        for o in pass_for(1..=3, &REDLOCK_NO_FENCING, &[("variant", "fencing-token")]) {
            assert_eq!(metric(&o, "late writes rejected"), 1.0);
        }
        // A pause shorter than the validity left: no late write, the claim fails.
        let o = with(&REDLOCK_NO_FENCING, 1, &[("pause_ms", "100")]);
        assert_eq!(metric(&o, "late writes accepted"), 0.0);
        assert!(!o.passed());
    }

    #[test]
    fn choices_match_the_description() {
        assert_choices("redlock-no-fencing", "variant", "redlock fencing-token");
    }
}
