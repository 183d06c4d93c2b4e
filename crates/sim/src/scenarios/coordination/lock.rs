//! A distributed lock on one Redis in six variants: no token, GET-then-DEL, a Lua compare-and-delete, a GC pause, a watchdog that renews, and fencing tokens; two believed holders at once is the failure the diagram marks.

use super::{bulk, int, ms, short, two_holders, unless_paused, Holder, UNLOCK_LUA};
use crate::kernel::{Dist, Kernel, Link, Micros, Redis, MS};
use crate::outcome::Outcome;
use crate::outcome::{Chart, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::proto::resp::Frame;

pub const DISTRIBUTED_LOCK: Scenario = Scenario::new("distributed-lock", lock_run);

/// Positions in the `variant` choices (the lesson's scenarios.json).
const V_NO_TOKEN: usize = 0;
const V_GET_DEL: usize = 1;
const V_LUA: usize = 2;
const V_GC: usize = 3;
const V_WATCHDOG: usize = 4;
const V_FENCING: usize = 5;
/// Compare-and-extend, the watchdog's renewal.
const RENEW_LUA: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
/// Acquire and take the next fencing token in one step.
const ACQUIRE_FENCED_LUA: &str = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) else return 0 end";

#[derive(Clone, Copy, Debug, PartialEq)]
enum LOp {
    Acquire,
    Get,
    Del,
    Unlock,
    Renew,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum WKind {
    Begin,
    Commit,
}

enum LEv {
    Start(usize),
    Arrive(usize, LOp, u64),
    Reply(usize, LOp, u64, Frame),
    Pause(usize, u64),
    WorkDone(usize, u64),
    ResArrive(usize, WKind, u64, i64),
    ResReply(usize, WKind, u64, bool),
    Release(usize, u64),
    SendDel(usize, u64),
    Renew(usize, u64),
}

struct LClient {
    lane: usize,
    name: String,
    /// Job counter; events carry it so stale timers are ignored.
    job: u64,
    token: String,
    fence: i64,
    holding_since: Option<Micros>,
    /// The watchdog learned the lock is gone: abort the job.
    lost: bool,
    frozen_until: Micros,
}

#[derive(Default)]
struct LockStats {
    attempts: u64,
    jobs: u64,
    stale_accepted: u64,
    stale_rejected: u64,
    foreign_deletes: u64,
    refused_unlocks: u64,
    renewals: u64,
    /// TTL left on A's lock when its pause began (watchdog variant).
    ttl_left_at_pause: Option<i64>,
}

fn lock_run(p: &Params, seed: u64) -> Outcome {
    let variants = DISTRIBUTED_LOCK.info().choices("variant");
    let variant = p.choice("variant").min(variants.len() - 1);
    let ttl = p.count("ttl_ms").max(1) * MS;
    let work = p.count("work_ms") * MS;
    let pause = p.count("pause_ms") * MS;
    let n = p.count("clients").clamp(2, 5) as usize;
    let duration = p.count("duration_ms") * MS;
    let retry = 10 * MS;
    let renew_every = ttl / 3;
    // Record the story around A's stall, not the whole run: tens of steps.
    let rec_until = pause + ttl + work + 50 * MS;

    let mut k: Kernel<LEv> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    let link = Link::new(Dist::jittered(400, 200));
    let names = ["A", "B", "C", "D", "E"];
    let mut cl: Vec<LClient> = (0..n)
        .map(|i| LClient {
            lane: k.rec.lane(&format!("client {}", names[i]), "client"),
            name: names[i].to_string(),
            job: 0,
            token: String::new(),
            fence: 0,
            holding_since: None,
            lost: false,
            frozen_until: 0,
        })
        .collect();
    let redis_lane = k.rec.lane("redis", "redis");
    let res_lane = k.rec.lane("resource", "db");
    for i in 0..n {
        k.at(i as u64 * 3 * MS, LEv::Start(i));
    }

    let mut st = LockStats::default();
    let mut ivals: Vec<(usize, Micros, Micros)> = Vec::new();
    let mut last_acquirer: Option<usize> = None;
    let mut max_fence: i64 = 0;
    // Whether client A's first job still has its stall to come.
    let mut fault_pending = pause > 0;
    let unlock_path_fault = variant == V_GET_DEL || variant == V_LUA;

    // Sends `op` from client `c` to Redis, drawn on `draw_to` while recording.
    fn send(
        k: &mut Kernel<LEv>,
        link: &Link,
        c: &LClient,
        c_idx: usize,
        op: LOp,
        label: String,
        draw_to: Option<usize>,
    ) {
        let d = link.delay(&mut k.rng).unwrap_or(0);
        let now = k.now();
        if let Some(lane) = draw_to {
            k.rec.msg(now, now + d, c.lane, lane, label);
        }
        k.after(d, LEv::Arrive(c_idx, op, c.job));
    }

    while let Some(ev) = k.next(duration) {
        let now = k.now();
        let rec = now < rec_until;
        // A stalled client does nothing until its stall ends.
        let owner = match &ev {
            LEv::Start(c)
            | LEv::Reply(c, ..)
            | LEv::WorkDone(c, _)
            | LEv::ResReply(c, ..)
            | LEv::Release(c, _)
            | LEv::SendDel(c, _)
            | LEv::Renew(c, _) => Some(*c),
            _ => None,
        };
        let Some(ev) = unless_paused(&mut k, owner.map(|c| cl[c].frozen_until), ev) else {
            continue;
        };
        match ev {
            LEv::Start(c) => {
                st.attempts += 1;
                cl[c].job += 1;
                cl[c].lost = false;
                cl[c].token = format!("{}:{}", cl[c].name, cl[c].job);
                let label = match variant {
                    V_NO_TOKEN => format!("SET lock 1 NX PX {}", ttl / MS),
                    V_FENCING => format!("EVAL acquire+INCR fence ({})", cl[c].token),
                    _ => format!("SET lock {} NX PX {}", cl[c].token, ttl / MS),
                };
                send(
                    &mut k,
                    &link,
                    &cl[c],
                    c,
                    LOp::Acquire,
                    label,
                    rec.then_some(redis_lane),
                );
            }
            LEv::Arrive(c, op, job) => {
                let ttl_s = (ttl / MS).to_string();
                let token = cl[c].token.clone();
                let who = cl[c].name.clone();
                let reply = match op {
                    LOp::Acquire => match variant {
                        V_NO_TOKEN => {
                            redis.exec(now, &who, &["SET", "lock", "1", "NX", "PX", &ttl_s])
                        }
                        V_FENCING => redis.exec(
                            now,
                            &who,
                            &[
                                "EVAL",
                                ACQUIRE_FENCED_LUA,
                                "2",
                                "lock",
                                "fence",
                                &token,
                                &ttl_s,
                            ],
                        ),
                        _ => redis.exec(now, &who, &["SET", "lock", &token, "NX", "PX", &ttl_s]),
                    },
                    LOp::Get => redis.exec(now, &who, &["GET", "lock"]),
                    LOp::Del => {
                        let held_by = bulk(&redis.exec(now, "observer", &["GET", "lock"]));
                        let r = redis.exec(now, &who, &["DEL", "lock"]);
                        let foreign = match variant {
                            V_NO_TOKEN => last_acquirer != Some(c),
                            _ => held_by.as_deref() != Some(token.as_str()),
                        };
                        if int(&r) == 1 && foreign {
                            st.foreign_deletes += 1;
                            let other = last_acquirer
                                .map(|o| cl[o].name.clone())
                                .unwrap_or_default();
                            k.rec.mark(now, redis_lane, "bad", format!("{who}'s DEL removes {other}'s lock: the key no longer says who owns it, so the next SET NX succeeds while {other} still works."));
                        }
                        r
                    }
                    LOp::Unlock => {
                        let r = redis.exec(now, &who, &["EVAL", UNLOCK_LUA, "1", "lock", &token]);
                        if int(&r) == 0 {
                            st.refused_unlocks += 1;
                            if last_acquirer != Some(c) && last_acquirer.is_some() {
                                let other = last_acquirer
                                    .map(|o| cl[o].name.clone())
                                    .unwrap_or_default();
                                k.rec.mark(now, redis_lane, "good", format!("The Lua unlock compares first: the lock now holds {other}'s token, so {who}'s unlock deletes nothing."));
                            }
                        }
                        r
                    }
                    LOp::Renew => {
                        st.renewals += 1;
                        redis.exec(now, &who, &["EVAL", RENEW_LUA, "1", "lock", &token, &ttl_s])
                    }
                };
                let d = link.delay(&mut k.rng).unwrap_or(0);
                if rec {
                    if reply.is_error() {
                        k.rec
                            .msg(now, now + d, redis_lane, cl[c].lane, short(&reply))
                            .failed();
                    } else {
                        k.rec
                            .msg(now, now + d, redis_lane, cl[c].lane, short(&reply));
                    }
                }
                k.after(d, LEv::Reply(c, op, job, reply));
            }
            LEv::Reply(c, op, job, reply) => {
                if job != cl[c].job {
                    continue;
                }
                match op {
                    LOp::Acquire => {
                        let got = match variant {
                            V_FENCING => int(&reply) > 0,
                            _ => matches!(reply, Frame::Simple(_)),
                        };
                        if got {
                            if variant == V_FENCING {
                                cl[c].fence = int(&reply);
                            }
                            cl[c].holding_since = Some(now);
                            last_acquirer = Some(c);
                            if variant == V_WATCHDOG {
                                k.after(renew_every, LEv::Renew(c, job));
                            }
                            let draw = rec.then_some(res_lane);
                            to_resource(&mut k, &link, draw, variant, &cl[c], c, WKind::Begin, job);
                        } else {
                            let j = k.rng.u64(0..=retry / 2);
                            k.after(retry + j, LEv::Start(c));
                        }
                    }
                    LOp::Get => {
                        if bulk(&reply).as_deref() == Some(cl[c].token.as_str()) {
                            if c == 0 && fault_pending && unlock_path_fault {
                                fault_pending = false;
                                stall(
                                    &mut k,
                                    &mut cl[c],
                                    pause,
                                    "GET says the lock is mine... then a pause before DEL",
                                );
                            }
                            k.after(0, LEv::SendDel(c, job));
                        } else {
                            next_job(&mut k, &mut st, c);
                        }
                    }
                    LOp::Del | LOp::Unlock => next_job(&mut k, &mut st, c),
                    LOp::Renew => {
                        if int(&reply) == 0 && cl[c].holding_since.is_some() {
                            // The watchdog finds the lock gone: stop working, do not write.
                            cl[c].lost = true;
                            if let Some(s) = cl[c].holding_since.take() {
                                ivals.push((c, s, now));
                            }
                            k.rec.mark(now, cl[c].lane, "good", format!("{}'s watchdog finds its token gone and aborts the job before its commit write.", cl[c].name));
                            next_job(&mut k, &mut st, c);
                        }
                    }
                }
            }
            LEv::Pause(c, job) => {
                if job == cl[c].job && cl[c].holding_since.is_some() {
                    if variant == V_WATCHDOG {
                        st.ttl_left_at_pause =
                            Some(int(&redis.exec(now, "observer", &["PTTL", "lock"])));
                    }
                    stall(
                        &mut k,
                        &mut cl[c],
                        pause,
                        "stop-the-world pause while holding the lock",
                    );
                }
            }
            LEv::WorkDone(c, job) => {
                if job != cl[c].job || cl[c].lost || cl[c].holding_since.is_none() {
                    continue;
                }
                let draw = rec.then_some(res_lane);
                to_resource(&mut k, &link, draw, variant, &cl[c], c, WKind::Commit, job);
            }
            LEv::ResArrive(c, kind, job, fence) => {
                // Is the writer the lock's current owner on Redis right now?
                let v = bulk(&redis.exec(now, "observer", &["GET", "lock"]));
                let owner_ok = v.is_some()
                    && last_acquirer == Some(c)
                    && (variant == V_NO_TOKEN || v.as_deref() == Some(cl[c].token.as_str()));
                let accepted = if variant == V_FENCING {
                    if fence < max_fence {
                        false
                    } else {
                        max_fence = fence;
                        true
                    }
                } else {
                    true
                };
                if !owner_ok {
                    let holder = last_acquirer
                        .filter(|&o| o != c)
                        .map(|o| cl[o].name.clone())
                        .unwrap_or_else(|| "nobody".into());
                    if accepted {
                        st.stale_accepted += 1;
                        k.rec.mark(now, res_lane, "bad", format!("The resource accepts {}'s write although {holder} holds the lock now: two writers interleave.", cl[c].name));
                    } else {
                        st.stale_rejected += 1;
                        k.rec.mark(now, res_lane, "good", format!("{}'s token {fence} is below {max_fence}, already seen from a newer holder: the stale write is rejected.", cl[c].name));
                    }
                }
                let d = link.delay(&mut k.rng).unwrap_or(0);
                if rec {
                    let label = if accepted {
                        "ok"
                    } else {
                        "rejected: stale token"
                    };
                    if accepted {
                        k.rec.msg(now, now + d, res_lane, cl[c].lane, label);
                    } else {
                        k.rec
                            .msg(now, now + d, res_lane, cl[c].lane, label)
                            .failed();
                    }
                }
                k.after(d, LEv::ResReply(c, kind, job, accepted));
            }
            LEv::ResReply(c, kind, job, _accepted) => {
                if job != cl[c].job || cl[c].lost {
                    continue;
                }
                match kind {
                    WKind::Begin => {
                        let w = if c == 0 && fault_pending && variant == V_WATCHDOG {
                            3 * ttl
                        } else {
                            let j = work / 4;
                            work - j + k.rng.u64(0..=2 * j)
                        };
                        if c == 0 && fault_pending && !unlock_path_fault {
                            fault_pending = false;
                            // Late in the job (half-way for the watchdog's long job).
                            let at = if variant == V_WATCHDOG {
                                w / 2
                            } else {
                                w * 3 / 4
                            };
                            k.after(at, LEv::Pause(c, job));
                        }
                        k.after(w, LEv::WorkDone(c, job));
                    }
                    WKind::Commit => {
                        if let Some(s) = cl[c].holding_since.take() {
                            ivals.push((c, s, now));
                        }
                        if c == 0 && fault_pending && variant == V_LUA {
                            fault_pending = false;
                            stall(
                                &mut k,
                                &mut cl[c],
                                pause,
                                "a pause just before the unlock is sent",
                            );
                        }
                        k.after(0, LEv::Release(c, job));
                    }
                }
            }
            LEv::Release(c, job) => {
                if job != cl[c].job {
                    continue;
                }
                let (op, label) = match variant {
                    V_NO_TOKEN => (LOp::Del, "DEL lock".to_string()),
                    V_GET_DEL => (LOp::Get, "GET lock".to_string()),
                    _ => (LOp::Unlock, format!("EVAL unlock if GET = {}", cl[c].token)),
                };
                let draw = rec.then_some(redis_lane);
                send(&mut k, &link, &cl[c], c, op, label, draw);
            }
            LEv::SendDel(c, job) => {
                if job == cl[c].job {
                    send(
                        &mut k,
                        &link,
                        &cl[c],
                        c,
                        LOp::Del,
                        "DEL lock".into(),
                        rec.then_some(redis_lane),
                    );
                }
            }
            LEv::Renew(c, job) => {
                if job == cl[c].job && cl[c].holding_since.is_some() && !cl[c].lost {
                    let label = format!("EVAL renew PEXPIRE {}", ttl / MS);
                    send(
                        &mut k,
                        &link,
                        &cl[c],
                        c,
                        LOp::Renew,
                        label,
                        rec.then_some(redis_lane),
                    );
                    k.after(renew_every, LEv::Renew(c, job));
                }
            }
        }
    }
    k.finish_at(duration);
    let who: Vec<Holder> = cl
        .iter()
        .map(|c| (c.lane, c.name.as_str(), c.holding_since))
        .collect();
    let says = ("gets the lock", "still believes it holds it");
    let overlap = two_holders(&mut k.rec, &mut ivals, &who, duration, 3, says);

    let mut out = Outcome::new("distributed-lock", seed, p);
    out.duration_us = duration;
    out.metric("overlapping-holder time", ms(overlap), "ms")
        .metric("stale writes accepted", st.stale_accepted as f64, "writes")
        .metric("stale writes rejected", st.stale_rejected as f64, "writes")
        .metric(
            "locks deleted by a non-owner",
            st.foreign_deletes as f64,
            "deletes",
        )
        .metric("jobs completed", st.jobs as f64, "jobs")
        .metric("acquire attempts", st.attempts as f64, "attempts");
    if variant == V_WATCHDOG {
        out.metric("watchdog renewals", st.renewals as f64, "renewals")
            .metric(
                "watchdog guaranteed pause limit",
                ms(ttl - renew_every),
                "ms",
            );
    }

    out.check(
        "The resource accepts no write from a client that no longer holds the lock",
        st.stale_accepted == 0,
        format!(
            "{} stale writes accepted, {} rejected",
            st.stale_accepted, st.stale_rejected
        ),
    );
    match variant {
        V_WATCHDOG => {
            let left = st.ttl_left_at_pause.unwrap_or(i64::MAX);
            let predicted = (pause / MS) as i64 > left;
            out.check(
                "With a watchdog, two holders appear only when a pause outlasts the TTL left when it began (always safe below TTL minus the renewal interval)",
                (overlap > 0) == predicted,
                format!("pause {} ms, TTL left at its start {} ms, guaranteed limit {:.0} ms, overlap {:.1} ms", pause / MS, left, ms(ttl - renew_every), ms(overlap)),
            );
        }
        V_NO_TOKEN | V_GET_DEL | V_LUA | V_GC => {
            out.check(
                "Never two holders at once",
                overlap == 0,
                format!(
                    "{:.1} ms with two holders, {} locks deleted by a non-owner",
                    ms(overlap),
                    st.foreign_deletes
                ),
            );
        }
        _ => {}
    }

    let mut series: Vec<Series> = Vec::new();
    for (i, c) in cl.iter().enumerate() {
        let mut pts = vec![(0.0, 0.0)];
        let mut mine: Vec<&(usize, Micros, Micros)> = ivals.iter().filter(|v| v.0 == i).collect();
        mine.sort_by_key(|v| v.1);
        for v in mine {
            let (a, b) = (v.1 as f64 / 1e6, v.2 as f64 / 1e6);
            pts.extend([(a, 0.0), (a, 1.0), (b, 1.0), (b, 0.0)]);
        }
        series.push(Series::new(&format!("{} believes it holds", c.name), pts));
    }
    out.charts.push(
        Chart::line(
            "Who believes it holds the lock",
            "virtual time (s)",
            "holding (1 = yes)",
        )
        .with_all(series),
    );

    out.note(format!(
        "{}: {:.1} ms with two believed holders, {} stale writes accepted, {} rejected, {} jobs done in {} ms.",
        variants[variant], ms(overlap), st.stale_accepted, st.stale_rejected, st.jobs, duration / MS
    ));
    if st.foreign_deletes > 0 {
        out.note(format!(
            "{} unlock(s) deleted a lock another client held.",
            st.foreign_deletes
        ));
    }
    if variant == V_WATCHDOG {
        out.note(format!(
            "The watchdog renewed {} times every {:.0} ms; A's pause of {} ms began with {} ms of TTL left.",
            st.renewals,
            ms(renew_every),
            pause / MS,
            st.ttl_left_at_pause.map_or("?".into(), |t| t.to_string())
        ));
    }
    out.diagram = Some(k.rec.take_diagram());
    out
}

fn token_label(variant: usize, c: &LClient) -> String {
    match variant {
        V_FENCING => c.fence.to_string(),
        V_NO_TOKEN => "none".into(),
        _ => c.token.clone(),
    }
}

/// Client `c` (`client`) sends its `kind` write to the resource with its
/// token, drawn on lane `draw` when given.
#[allow(clippy::too_many_arguments)]
fn to_resource(
    k: &mut Kernel<LEv>,
    link: &Link,
    draw: Option<usize>,
    variant: usize,
    client: &LClient,
    c: usize,
    kind: WKind,
    job: u64,
) {
    let d = link.delay(&mut k.rng).unwrap_or(0);
    if let Some(res_lane) = draw {
        let now = k.now();
        let what = match kind {
            WKind::Begin => "begin",
            WKind::Commit => "commit",
        };
        let token = token_label(variant, client);
        k.rec.msg(
            now,
            now + d,
            client.lane,
            res_lane,
            format!("{what} (token {token})"),
        );
    }
    k.after(d, LEv::ResArrive(c, kind, job, client.fence));
}

/// Freezes a client for `d`, drawn as a local step.
fn stall(k: &mut Kernel<LEv>, c: &mut LClient, d: Micros, why: &str) {
    let now = k.now();
    c.frozen_until = now + d;
    k.rec
        .local(now, now + d, c.lane, format!("{} ms: {why}", d / MS));
}

fn next_job(k: &mut Kernel<LEv>, st: &mut LockStats, c: usize) {
    st.jobs += 1;
    let think = 20 * MS + k.rng.u64(0..=20 * MS);
    k.after(think, LEv::Start(c));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{all_pass, metric, run as run_with};

    #[test]
    fn distributed_lock_defaults_pass_for_three_seeds() {
        for o in all_pass(&DISTRIBUTED_LOCK, &[]) {
            // Fencing: the pause still makes two holders, and the stale write is turned away.
            assert!(
                metric(&o, "overlapping-holder time") > 0.0,
                "seed {}",
                o.seed
            );
            assert!(
                metric(&o, "stale writes rejected") >= 1.0,
                "seed {}",
                o.seed
            );
            assert!(o
                .diagram
                .as_ref()
                .is_some_and(|d| d.marks.iter().any(|m| m.tone == "bad")));
        }
    }

    #[test]
    fn unsafe_lock_variants_fail_and_safe_ones_pass() {
        for seed in 1..=3 {
            for v in ["no-token", "get-then-del", "gc-pause"] {
                let o = run_with(&DISTRIBUTED_LOCK, seed, &[("variant", v)]);
                assert!(!o.passed(), "{v} seed {seed} should show the race");
                assert!(
                    metric(&o, "overlapping-holder time") > 0.0,
                    "{v} seed {seed}"
                );
                assert!(
                    metric(&o, "stale writes accepted") >= 1.0,
                    "{v} seed {seed}"
                );
            }
            for v in ["no-token", "get-then-del"] {
                let o = run_with(&DISTRIBUTED_LOCK, seed, &[("variant", v)]);
                assert!(
                    metric(&o, "locks deleted by a non-owner") >= 1.0,
                    "{v} seed {seed}"
                );
            }
            for v in ["lua-unlock", "watchdog"] {
                let o = run_with(&DISTRIBUTED_LOCK, seed, &[("variant", v)]);
                assert!(o.passed(), "{v} seed {seed}: {:?}", o.checks);
                assert_eq!(
                    metric(&o, "overlapping-holder time"),
                    0.0,
                    "{v} seed {seed}"
                );
            }
        }
    }

    #[test]
    fn the_watchdog_cannot_cover_a_pause_longer_than_the_ttl() {
        let o = run_with(
            &DISTRIBUTED_LOCK,
            1,
            &[("variant", "watchdog"), ("pause_ms", "120")],
        );
        assert!(metric(&o, "overlapping-holder time") > 0.0);
        // Its renewal then finds the lock gone and the job is aborted: no stale write.
        assert_eq!(metric(&o, "stale writes accepted"), 0.0);
        assert!(o.passed(), "{:?}", o.checks);
        // A pause that ends as the job does: the commit leaves before the renewal's answer.
        let o = run_with(
            &DISTRIBUTED_LOCK,
            1,
            &[("variant", "watchdog"), ("pause_ms", "150")],
        );
        assert_eq!(metric(&o, "stale writes accepted"), 1.0);
        assert_eq!(metric(&o, "watchdog guaranteed pause limit").round(), 67.0);
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices(
            "distributed-lock",
            "variant",
            "no-token get-then-del lua-unlock gc-pause watchdog fencing",
        );
    }
}
