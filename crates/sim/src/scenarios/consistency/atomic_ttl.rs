//! SET then EXPIRE as two commands: a client that dies between them leaves a key with no TTL for good; SET with EX, a script, or INCR with EXPIRE NX inside one script leave none.

use super::*;

pub const SET_THEN_EXPIRE: Scenario = Scenario::new("set-then-expire", ste_run);

/// Positions in the `variant` choices (the lesson's scenarios.json).
const V_TWO: usize = 0;
const V_SET_EX: usize = 1;
const V_LUA: usize = 2;
const V_INCR_TWO: usize = 3;
/// SET and PEXPIRE as one command.
const SET_EXPIRE_LUA: &str =
    "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('PEXPIRE', KEYS[1], ARGV[2])";
/// A fixed-window counter: INCR, and a TTL only if the key has none yet.
const INCR_EXPIRE_LUA: &str =
    "local n = redis.call('INCR', KEYS[1]) redis.call('PEXPIRE', KEYS[1], ARGV[1], 'NX') return n";

/// One request, planned before the run so every variant gets the same ones.
struct Req {
    key: String,
    at: Micros,
    /// The client dies right after its first reply.
    dies: bool,
}

/// What one run measured.
#[derive(Default)]
struct SteRun {
    /// Clients that died at the moment a two-command client is exposed:
    /// after the write, before its EXPIRE would have been sent.
    exposed: u64,
    /// Keys left with no TTL at the end (PTTL -1).
    immortal: u64,
    keys: u64,
    refused: u64,
    /// Refusals by a counter whose window should have ended already.
    refused_stuck: u64,
    /// When each key was found without a TTL after a crash.
    immortal_at: Vec<Micros>,
    /// The first exposed request, for the diagram.
    first_exposed: Option<usize>,
    /// When each counter first refused a request after its window should have ended.
    stuck_at: BTreeMap<String, Micros>,
    /// The key of the first exposed request.
    first_key: Option<String>,
    end: Micros,
    diagram: Option<Diagram>,
}

/// One run; `show` names the request whose crash the diagram follows and,
/// for a counter, when that counter first refused a request it should not have.
fn ste_once(p: &Params, seed: u64, show: Option<(usize, Option<Micros>)>) -> SteRun {
    let draw = show.map(|s| s.0);
    let variant = p.choice("variant");
    let counter = variant >= V_INCR_TWO;
    let n = p.count("requests").max(1) as usize;
    let die_p = p.get("crash_pct") / 100.0;
    let ttl = p_ms(p, "ttl").max(MS);
    let users = p.count("users").max(1);
    let limit = p.count("limit").max(1) as i64;
    let gap = 10 * MS;
    let mut sim = Sim::new(seed, Lat::new(around(2 * MS), around(2 * MS)));
    let plan: Vec<Req> = (0..n)
        .map(|i| {
            let user = sim.rng().u64(0..users);
            let jitter = sim.uniform(0, gap);
            let dies = sim.rng().f64() < die_p;
            let key = if counter {
                format!("rl:user{user}")
            } else {
                format!("sess:{i}")
            };
            Req {
                key,
                at: i as Micros * gap + jitter,
                dies,
            }
        })
        .collect();
    let drawn_key = draw.map(|d| plan[d].key.clone());
    // Beside a session that dies, the one before it, which lived; beside
    // a counter, its requests around the crash and around its first wrong refusal.
    let before = draw.and_then(|d| d.checked_sub(1)).filter(|_| !counter);
    let crash_at = draw.map_or(0, |d| plan[d].at);
    let stuck_at = show.and_then(|s| s.1);
    let near = |t: Micros| {
        (t + 150 * MS >= crash_at && t <= crash_at + 100 * MS)
            || stuck_at.is_some_and(|s| t + 100 * MS >= s && t <= s + 60 * MS)
    };
    if draw.is_some() {
        sim.rec(0).lane("client A", "client");
    }
    for (i, r) in plan.iter().enumerate() {
        let shown = draw == Some(i)
            || before == Some(i)
            || (counter && drawn_key.as_ref() == Some(&r.key) && near(r.at));
        let name = if draw == Some(i) {
            "client A"
        } else if before == Some(i) {
            "client B"
        } else {
            "other clients"
        };
        let a = sim.actor(name, "client", shown.then_some(0));
        sim.start(a, r.at);
    }
    let ttl_s = (ttl / MS).to_string();
    let last = plan.iter().map(|r| r.at).max().unwrap_or(0);
    let audit_at = last + 2 * ttl + 50 * MS;
    let auditor = sim.actor("auditor", "client", draw.map(|_| 0));
    sim.start(auditor, audit_at);
    let mut run = SteRun::default();
    let mut stuck_since: BTreeMap<String, Micros> = BTreeMap::new();
    let mut refusal_marked = false;
    while let Some((a, step, got)) = sim.next_step(Micros::MAX) {
        let now = sim.now();
        if a == auditor {
            match (step, drawn_key.as_ref()) {
                (0, Some(k)) => sim.act(a, Act::Cmd(cmd(&["PTTL", k]))),
                (_, Some(k)) => {
                    let left = match got {
                        Got::Reply(Frame::Integer(t)) => t,
                        _ => 0,
                    };
                    let (tone, text) = if left == -1 {
                        ("bad", format!("PTTL {k} is -1, {:.0} ms after the write: it has no TTL and never will", ms(now - plan[draw.unwrap_or(0)].at)))
                    } else {
                        (
                            "good",
                            format!("PTTL {k} is {left}: the key expired on time"),
                        )
                    };
                    sim.mark(0, now, "auditor", tone, text);
                }
                _ => {}
            }
            continue;
        }
        let req = &plan[a];
        let key = req.key.clone();
        let act = match (step, got) {
            (0, _) => Act::Cmd(match variant {
                V_TWO => cmd(&["SET", &key, "data"]),
                V_SET_EX => cmd(&["SET", &key, "data", "PX", &ttl_s]),
                V_LUA => cmd(&["EVAL", SET_EXPIRE_LUA, "1", &key, "data", &ttl_s]),
                V_INCR_TWO => cmd(&["INCR", &key]),
                _ => cmd(&["EVAL", INCR_EXPIRE_LUA, "1", &key, &ttl_s]),
            }),
            (1, Got::Reply(reply)) => {
                let count = match reply {
                    Frame::Integer(c) => c,
                    _ => 0,
                };
                if counter && count > limit {
                    run.refused += 1;
                    if stuck_since.get(&key).is_some_and(|&t| now >= t + ttl) {
                        run.refused_stuck += 1;
                        run.stuck_at.entry(key.clone()).or_insert(now);
                        if drawn_key.as_ref() == Some(&key) && !refusal_marked {
                            refusal_marked = true;
                            sim.mark(0, now, "other clients", "bad", format!("INCR → {count}: refused, though the window ended long ago; the counter never resets"));
                        }
                    }
                }
                // Where a two-command client would now send its EXPIRE.
                let exposed = !counter || count == 1;
                if req.dies {
                    if exposed {
                        run.exposed += 1;
                        if run.first_exposed.is_none() {
                            run.first_exposed = Some(a);
                            run.first_key = Some(key.clone());
                        }
                        let left = match sim.redis.exec(now, "observer", &["PTTL", &key]) {
                            Frame::Integer(t) => t,
                            _ => 0,
                        };
                        if left == -1 {
                            run.immortal_at.push(now);
                            stuck_since.entry(key.clone()).or_insert(now);
                        }
                        if draw == Some(a) {
                            let (tone, text) = if left == -1 {
                                ("bad", format!("Client A dies after its write and before its EXPIRE: {key} has no TTL"))
                            } else {
                                ("good", format!("Client A dies right after its reply, but the TTL came with the write ({left} ms left)"))
                            };
                            sim.mark(0, now, "client A", tone, text);
                        }
                    }
                    sim.note_local(a, now, now, "crash".to_string());
                    Act::Done
                } else if variant == V_TWO || variant == V_INCR_TWO && count == 1 {
                    Act::Cmd(cmd(&["PEXPIRE", &key, &ttl_s]))
                } else {
                    Act::Done
                }
            }
            _ => Act::Done,
        };
        sim.act(a, act);
    }
    let end = sim.now();
    sim.finish(end);
    let keys: std::collections::BTreeSet<&str> = plan.iter().map(|r| r.key.as_str()).collect();
    run.keys = keys.len() as u64;
    for k in keys {
        if matches!(
            sim.redis.exec(end, "observer", &["PTTL", k]),
            Frame::Integer(-1)
        ) {
            run.immortal += 1;
        }
    }
    run.end = end;
    run.diagram = draw.and_then(|_| sim.take_diagram(0));
    run
}

fn ste_run(p: &Params, seed: u64) -> Outcome {
    let variants = SET_THEN_EXPIRE.info().choices("variant");
    let variant = p.choice("variant").min(variants.len() - 1);
    let two_commands = variant == V_TWO || variant == V_INCR_TWO;
    let counter = variant >= V_INCR_TWO;
    // A first pass finds the crash worth drawing; the second draws it.
    let first = ste_once(p, seed, None);
    let draw = first.first_exposed.unwrap_or(0);
    let stuck = first
        .first_key
        .as_ref()
        .and_then(|k| first.stuck_at.get(k).copied());
    let run = ste_once(p, seed, Some((draw, stuck)));
    let mut out = Outcome::new("set-then-expire", seed, p);
    out.duration_us = run.end;
    out.metric("keys left without a TTL", run.immortal as f64, "keys")
        .metric(
            "clients that died after the write",
            run.exposed as f64,
            "clients",
        )
        .metric("keys written", run.keys as f64, "keys");
    if counter {
        out.metric("requests refused", run.refused as f64, "requests")
            .metric(
                "refused by a counter that never reset",
                run.refused_stuck as f64,
                "requests",
            );
    }
    let what = variants[variant];
    if two_commands {
        out.check(
            &format!("{what}: every client that dies between the write and its EXPIRE leaves a key with no TTL"),
            run.exposed > 0 && run.immortal == run.exposed,
            format!(
                "{} clients died there; {} keys have PTTL -1",
                run.exposed, run.immortal
            ),
        );
    } else {
        out.check(
            &format!("{what}: the TTL comes with the write, so no crash leaves a key without one"),
            run.exposed > 0 && run.immortal == 0 && run.refused_stuck == 0,
            format!(
                "{} clients died right after their write; {} keys have PTTL -1",
                run.exposed, run.immortal
            ),
        );
    }
    let mut pts = vec![(0.0, 0.0)];
    for (i, &t) in run.immortal_at.iter().enumerate() {
        pts.push((secs(t), i as f64));
        pts.push((secs(t), i as f64 + 1.0));
    }
    pts.push((secs(run.end), run.immortal_at.len() as f64));
    out.charts
        .push(Chart::line("Keys without a TTL", "time (s)", "keys").with(Series::new(what, pts)));
    out.diagram = run.diagram;
    out.note(format!(
        "{} of {} keys were left without a TTL; {} clients died right after their first reply where a two-command client has not yet sent EXPIRE.",
        run.immortal, run.keys, run.exposed
    ));
    if counter {
        out.note(format!(
            "The counters refused {} requests, {} of them on a counter whose window should have reset long before.",
            run.refused, run.refused_stuck
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::passes;
    use super::*;
    use crate::testing::{assert_choices, metric, pass_for, run as with};

    #[test]
    fn two_commands_leave_immortal_keys_and_atomic_writes_do_not() {
        passes(&SET_THEN_EXPIRE);
        for v in ["two-commands", "incr-then-expire"] {
            for o in pass_for(1..=3, &SET_THEN_EXPIRE, &[("variant", v)]) {
                assert!(metric(&o, "keys left without a TTL") > 0.0, "{v}");
            }
        }
        for v in ["set-ex", "lua", "incr-expire-script"] {
            for o in pass_for(1..=3, &SET_THEN_EXPIRE, &[("variant", v)]) {
                assert_eq!(metric(&o, "keys left without a TTL"), 0.0, "{v}");
            }
        }
        let o = with(&SET_THEN_EXPIRE, 1, &[("variant", "incr-then-expire")]);
        assert!(metric(&o, "refused by a counter that never reset") > 0.0);
        // With no crashes the two-command claim has nothing to show, and fails.
        let o = with(
            &SET_THEN_EXPIRE,
            1,
            &[("variant", "two-commands"), ("crash_pct", "0")],
        );
        assert!(!o.passed());
    }

    #[test]
    fn choices_match_the_description() {
        assert_choices(
            "set-then-expire",
            "variant",
            "two-commands set-ex lua incr-then-expire incr-expire-script",
        );
    }
}
