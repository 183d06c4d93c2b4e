//! Coordination scenarios (issue 5), part one: a single-Redis distributed lock in six variants and Redlock over five masters, with race diagrams; shared helpers for the other `coord_*` files.
//!
//! Every client here is a small state machine driven by kernel events:
//! commands travel a [`Link`], run on a real engine at their arrival
//! instant (`SET NX PX`, `EVAL`, `INCR`...) and the reply travels back. A
//! paused client (a GC pause, a stalled thread) is modelled by deferring
//! all of its own events until the pause ends, so the lock keeps expiring
//! on the server while the client sleeps, exactly the hazard the lessons
//! are about. "Holding" is what a client *believes*: from the acquire
//! reply until it starts releasing (or learns it lost the lock); two
//! believed holders at once is the failure the diagrams mark.

use super::kernel::{reply_text, Dist, Kernel, Link, Micros, Redis, MS};
use super::outcome::{Chart, Series};
use super::{Outcome, ParamSpec, Params, Scenario, ScenarioInfo};
use redsim_engine::proto::resp::Frame;

/// Microseconds as milliseconds, for metrics.
pub(crate) fn ms(us: Micros) -> f64 {
    us as f64 / MS as f64
}

/// An integer reply's value (0 for anything else).
pub(crate) fn int(f: &Frame) -> i64 {
    match f {
        Frame::Integer(n) => *n,
        _ => 0,
    }
}

/// A bulk reply's text, if it is one.
pub(crate) fn bulk(f: &Frame) -> Option<String> {
    match f {
        Frame::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    }
}

/// A reply shortened for a diagram label.
pub(crate) fn short(f: &Frame) -> String {
    let t = reply_text(f);
    if t.chars().count() > 40 {
        let mut s: String = t.chars().take(37).collect();
        s.push_str("...");
        s
    } else {
        t
    }
}

/// Time during which at least two of `ivals` (owner, from, to) overlap,
/// and the instants where a second owner joined (time, the one already
/// holding, the newcomer), in time order.
pub(crate) fn overlaps(ivals: &[(usize, Micros, Micros)]) -> (Micros, Vec<(Micros, usize, usize)>) {
    let mut edges: Vec<(Micros, bool, usize)> = Vec::new();
    for &(who, a, b) in ivals {
        if b > a {
            edges.push((a, true, who));
            edges.push((b, false, who));
        }
    }
    // Ends before starts at the same instant: a hand-over is not an overlap.
    edges.sort_by_key(|e| (e.0, e.1));
    let mut holding: Vec<usize> = Vec::new();
    let mut total = 0;
    let mut since = 0;
    let mut joins = Vec::new();
    for (t, start, who) in edges {
        if start {
            if holding.len() == 1 {
                since = t;
                joins.push((t, holding[0], who));
            }
            holding.push(who);
        } else {
            if holding.len() == 2 {
                total += t - since;
            }
            if let Some(i) = holding.iter().position(|&h| h == who) {
                holding.remove(i);
            }
        }
    }
    (total, joins)
}

// ---------------------------------------------------------------------------
// 11. distributed-lock
// ---------------------------------------------------------------------------

pub const DISTRIBUTED_LOCK: Scenario = Scenario {
    info: lock_info,
    run: lock_run,
};

const LOCK_VARIANTS: &[&str] = &[
    "no-token",
    "get-then-del",
    "lua-unlock",
    "gc-pause",
    "watchdog",
    "fencing",
];
const V_NO_TOKEN: usize = 0;
const V_GET_DEL: usize = 1;
const V_LUA: usize = 2;
const V_GC: usize = 3;
const V_WATCHDOG: usize = 4;
const V_FENCING: usize = 5;

/// Compare-and-delete: the only safe unlock for a lock with a TTL.
const UNLOCK_LUA: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
/// Compare-and-extend, the watchdog's renewal.
const RENEW_LUA: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
/// Acquire and take the next fencing token in one step.
const ACQUIRE_FENCED_LUA: &str = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) else return 0 end";

fn lock_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "distributed-lock",
        group: "coordination",
        title: "Distributed lock on one Redis: tokens, Lua unlock, pauses, watchdog, fencing",
        claim: "SET NX PX gives mutual exclusion only while holders finish within the TTL; a token with a Lua unlock stops holders deleting each other's locks, a watchdog covers slow work, and only a fencing token stops a paused holder's stale write.",
        look_for: "Client A takes the lock first and is then stalled once (a GC pause of pause_ms): late in its job, or, in get-then-del and lua-unlock, between deciding to unlock and unlocking. Watch the lock expire on Redis while A sleeps, B take it, and the red mark where two clients both believe they hold it. With fencing, the resource remembers the highest token it saw and turns A's late write away; with the watchdog, A's renewals keep a job three TTLs long safe, but a pause stops the renewal thread too, so it only covers pauses shorter than the TTL left when they begin.",
        params: vec![
            ParamSpec::choice("variant", V_FENCING, LOCK_VARIANTS, "How the lock is taken, renewed and released, and where A's stall hits"),
            ParamSpec::num("ttl_ms", 100.0, (20.0, 1000.0, 10.0), "ms", "The lock's PX expiry"),
            ParamSpec::num("work_ms", 60.0, (5.0, 500.0, 5.0), "ms", "How long a holder works between its begin and commit writes"),
            ParamSpec::num("pause_ms", 80.0, (0.0, 2000.0, 10.0), "ms", "The one stall that hits client A in its first job"),
            ParamSpec::num("clients", 3.0, (2.0, 5.0, 1.0), "", "Clients competing for the lock"),
            ParamSpec::num("duration_ms", 1000.0, (200.0, 5000.0, 100.0), "ms", "Virtual time simulated"),
        ],
    }
}

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
    let variant = p.choice("variant").min(LOCK_VARIANTS.len() - 1);
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
        if let Some(c) = owner {
            if now < cl[c].frozen_until {
                let t = cl[c].frozen_until;
                k.at(t, ev);
                continue;
            }
        }
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
                            .err(now, now + d, redis_lane, cl[c].lane, short(&reply));
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
                            let d = link.delay(&mut k.rng).unwrap_or(0);
                            if rec {
                                k.rec.msg(
                                    now,
                                    now + d,
                                    cl[c].lane,
                                    res_lane,
                                    format!("begin (token {})", token_label(variant, &cl[c])),
                                );
                            }
                            k.after(d, LEv::ResArrive(c, WKind::Begin, job, cl[c].fence));
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
                let d = link.delay(&mut k.rng).unwrap_or(0);
                if rec {
                    k.rec.msg(
                        now,
                        now + d,
                        cl[c].lane,
                        res_lane,
                        format!("commit (token {})", token_label(variant, &cl[c])),
                    );
                }
                k.after(d, LEv::ResArrive(c, WKind::Commit, job, cl[c].fence));
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
                        k.rec.err(now, now + d, res_lane, cl[c].lane, label);
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
                let token = cl[c].token.clone();
                match variant {
                    V_NO_TOKEN => send(
                        &mut k,
                        &link,
                        &cl[c],
                        c,
                        LOp::Del,
                        "DEL lock".into(),
                        rec.then_some(redis_lane),
                    ),
                    V_GET_DEL => send(
                        &mut k,
                        &link,
                        &cl[c],
                        c,
                        LOp::Get,
                        "GET lock".into(),
                        rec.then_some(redis_lane),
                    ),
                    _ => send(
                        &mut k,
                        &link,
                        &cl[c],
                        c,
                        LOp::Unlock,
                        format!("EVAL unlock if GET = {token}"),
                        rec.then_some(redis_lane),
                    ),
                }
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
    // Whoever still believes it holds at the end holds until the end.
    for (i, c) in cl.iter().enumerate() {
        if let Some(s) = c.holding_since {
            ivals.push((i, s, duration));
        }
    }
    let (overlap, joins) = overlaps(&ivals);
    for &(t, a, b) in joins.iter().take(3) {
        k.rec.mark(
            t,
            cl[b].lane,
            "bad",
            format!(
                "Two holders: {} gets the lock while {} still believes it holds it.",
                cl[b].name, cl[a].name
            ),
        );
    }

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
    let mut chart = Chart::line(
        "Who believes it holds the lock",
        "virtual time (s)",
        "holding (1 = yes)",
    );
    chart.series = series;
    out.charts.push(chart);

    out.note(format!(
        "{}: {:.1} ms with two believed holders, {} stale writes accepted, {} rejected, {} jobs done in {} ms.",
        LOCK_VARIANTS[variant], ms(overlap), st.stale_accepted, st.stale_rejected, st.jobs, duration / MS
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

// ---------------------------------------------------------------------------
// 12. redlock
// ---------------------------------------------------------------------------

pub const REDLOCK: Scenario = Scenario {
    info: redlock_info,
    run: redlock_run,
};

const REDLOCK_FAULTS: &[&str] = &["clock-jump", "client-pause"];
const MASTERS: usize = 5;
const QUORUM: usize = MASTERS / 2 + 1;

fn redlock_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "redlock",
        group: "coordination",
        title: "Redlock over five masters: a clock jump or a pause gives two holders",
        claim: "Redlock's quorum of independent masters survives a master failing, but its safety rests on timing: a master whose clock jumps forward, or a client paused past its validity, lets a second client take the lock while the first still holds it.",
        look_for: "Each client sends SET NX PX to all five masters at once and holds the lock if at least three agree, for a validity of TTL minus the time the round took minus a clock-drift allowance (1% of the TTL plus 2 ms). The run is played twice with the same seed: clean, and with the fault. In clock-jump, A cannot reach M4 and M5 and B cannot reach M1 and M2 (a partition, as in Kleppmann's example); M3's clock then jumps forward, A's key there expires early, and B wins M3, M4, M5 while A is still working. In client-pause, A is paused after checking its validity and writes after every key has expired and B has the lock.",
        params: vec![
            ParamSpec::choice("fault", 0, REDLOCK_FAULTS, "What goes wrong in the fault run"),
            ParamSpec::num("ttl_ms", 1000.0, (100.0, 10000.0, 100.0), "ms", "The key's PX expiry on every master"),
            ParamSpec::num("work_ms", 600.0, (10.0, 5000.0, 10.0), "ms", "How long A works while holding the lock"),
            ParamSpec::num("jump_ms", 2000.0, (0.0, 60000.0, 100.0), "ms", "How far M3's clock jumps forward (clock-jump)"),
            ParamSpec::num("pause_ms", 1500.0, (0.0, 10000.0, 100.0), "ms", "How long A is paused before its write (client-pause)"),
        ],
    }
}

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
    diagram: super::Diagram,
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
    let mut cl = [
        RClient {
            lane: k.rec.lane("client A", "client"),
            name: "A",
            attempt: 0,
            started: 0,
            oks: 0,
            answered: 0,
            decided: false,
            holding_since: None,
            validity_end: 0,
            frozen_until: 0,
            done: false,
        },
        RClient {
            lane: k.rec.lane("client B", "client"),
            name: "B",
            attempt: 0,
            started: 0,
            oks: 0,
            answered: 0,
            decided: false,
            holding_since: None,
            validity_end: 0,
            frozen_until: 0,
            done: false,
        },
    ];
    let mut masters: Vec<Redis> = (0..MASTERS)
        .map(|m| Redis::new(seed.wrapping_add(m as u64 + 1), &[]))
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
        if let Some(c) = owner {
            if now < cl[c].frozen_until {
                let t = cl[c].frozen_until;
                k.at(t, ev);
                continue;
            }
        }
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
                        k.rec.err(
                            now,
                            now + instance_timeout,
                            cl[c].lane,
                            lane,
                            "SET (no route)",
                        );
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
                let e = &mut masters[2].engine;
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
    for (i, c) in cl.iter().enumerate() {
        if let Some(s) = c.holding_since {
            ivals.push((i, s, end));
        }
    }
    let (overlap, joins) = overlaps(&ivals);
    for &(t, a, b) in joins.iter().take(2) {
        k.rec.mark(
            t,
            cl[b].lane,
            "bad",
            format!(
                "Two holders: {} reaches a quorum while {} still holds the lock.",
                cl[b].name, cl[a].name
            ),
        );
    }
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
    let fault = p.choice("fault").min(REDLOCK_FAULTS.len() - 1);
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
            REDLOCK_FAULTS[fault]
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
        Chart::bars(
            "Time with two holders",
            "ms",
            &["clean", REDLOCK_FAULTS[fault]],
        )
        .with(Series::new(
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
        REDLOCK_FAULTS[fault],
        bad.b_acquired_at.map_or("no time".into(), |t| format!("{:.0} ms", ms(t))),
        ms(bad.a_validity),
        ms(bad.overlap)
    ));
    out.diagram = Some(bad.diagram);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Runs a scenario with overrides, through the catalogue's resolver.
    pub(crate) fn run_with(s: &Scenario, seed: u64, set: &[(&str, &str)]) -> Outcome {
        crate::run_with((s.info)().id, seed, set).expect("params")
    }

    pub(crate) fn metric(o: &Outcome, name: &str) -> f64 {
        o.metric_value(name)
            .unwrap_or_else(|| panic!("no metric {name}: {:?}", o.metrics))
    }

    #[test]
    fn overlaps_count_time_with_two_holders() {
        let (t, joins) = overlaps(&[(0, 0, 100), (1, 50, 150), (2, 150, 200)]);
        assert_eq!(t, 50);
        assert_eq!(joins, vec![(50, 0, 1)]);
        // A hand-over at the same instant is not an overlap.
        assert_eq!(overlaps(&[(0, 0, 10), (1, 10, 20)]).0, 0);
    }

    #[test]
    fn distributed_lock_defaults_pass_for_three_seeds() {
        for seed in 1..=3 {
            let o = run_with(&DISTRIBUTED_LOCK, seed, &[]);
            assert!(o.passed(), "seed {seed}: {:?}", o.checks);
            // Fencing: the pause still makes two holders, and the stale write is turned away.
            assert!(metric(&o, "overlapping-holder time") > 0.0, "seed {seed}");
            assert!(metric(&o, "stale writes rejected") >= 1.0, "seed {seed}");
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
    fn redlock_clean_runs_are_safe_and_faults_give_two_holders() {
        for seed in 1..=3 {
            for f in REDLOCK_FAULTS {
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
}
