//! Atomicity on one Redis: GET+SET increments lose updates where INCR does not; a pipeline interleaves with other clients while MULTI/EXEC and Lua do not; EXEC has no rollback; WATCH with a retry loop survives a conflicting write.

use super::*;

pub const INCR_VS_GET_SET: Scenario = Scenario::new("incr-vs-get-set", ivg_run);

fn ivg_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("incr-vs-get-set", seed, p);
    let clients = p.count("clients").max(1) as usize;
    let n = p.count("increments").max(1) as usize;
    let think = p_ms(p, "think");
    let lat = Lat::new(around(2 * MS), around(2 * MS));
    let mut sim = Sim::new(seed, lat);
    sim.log_execs = true;
    let names: Vec<String> = (0..clients)
        .map(|i| format!("client {}", (b'A' + (i % 26) as u8) as char))
        .collect();
    // Actors 0..clients do GET+SET, the next `clients` INCR.
    for name in &names {
        let a = sim.actor(name, "client", Some(0));
        let t = sim.uniform(0, MS);
        sim.start(a, t);
    }
    for name in &names {
        let a = sim.actor(&format!("{name} (INCR)"), "client", None);
        let t = sim.uniform(0, MS);
        sim.start(a, t);
    }
    let mut done = vec![0usize; 2 * clients];
    let mut phase = vec![0u8; 2 * clients];
    let mut first_lost: Option<Micros> = None;
    let mut scanned = 0;
    let mut cur: i64 = 0;
    let mut lost_at: Vec<(Micros, usize, i64)> = Vec::new();
    let end = 60 * SEC;
    while let Some((a, got)) = sim.next(end) {
        // Replay new executions in order to find overwritten increments.
        while let Some(e) = sim.execs.get(scanned) {
            scanned += 1;
            if e.args.first().is_some_and(|c| c == "SET")
                && e.args.get(1).is_some_and(|k| k == "ctr:getset")
            {
                let v: i64 = e.args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
                if v <= cur {
                    lost_at.push((e.at, e.actor, v));
                    first_lost.get_or_insert(e.at);
                }
                cur = cur.max(v);
            }
        }
        let getset = a < clients;
        // Draw the GET+SET clients until just after the first lost update.
        if getset && first_lost.is_some_and(|t| sim.now() > t + 3 * (think + MS)) {
            sim.actors[a].group = None;
        }
        let act = if getset {
            match (phase[a], got) {
                (0, _) => {
                    phase[a] = 1;
                    Act::Cmd(cmd(&["GET", "ctr:getset"]))
                }
                (1, Got::Reply(r)) => {
                    let v = match r {
                        Frame::Bulk(b) => String::from_utf8_lossy(&b).parse::<i64>().unwrap_or(0),
                        _ => 0,
                    };
                    sim.actors[a].carry = (v + 1).to_string();
                    phase[a] = 2;
                    let d = sim.uniform(0, 2 * think);
                    Act::Pause(
                        d,
                        if d >= MS / 2 {
                            format!("work {:.1} ms", ms(d))
                        } else {
                            String::new()
                        },
                    )
                }
                (2, _) => {
                    phase[a] = 3;
                    let v = std::mem::take(&mut sim.actors[a].carry);
                    Act::Cmd(cmd(&["SET", "ctr:getset", &v]))
                }
                _ => {
                    done[a] += 1;
                    if done[a] < n {
                        phase[a] = 1;
                        Act::Cmd(cmd(&["GET", "ctr:getset"]))
                    } else {
                        Act::Done
                    }
                }
            }
        } else {
            match phase[a] {
                0 => {
                    phase[a] = 1;
                    Act::Cmd(cmd(&["INCR", "ctr:incr"]))
                }
                _ => {
                    done[a] += 1;
                    if done[a] < n {
                        // The same app time between increments as the other counter.
                        let d = sim.uniform(0, 2 * think);
                        phase[a] = 0;
                        Act::Pause(d, String::new())
                    } else {
                        Act::Done
                    }
                }
            }
        };
        sim.act(a, act);
    }
    let t_end = sim.now();
    sim.finish(t_end);
    let read = |sim: &mut Sim, k: &str| -> i64 {
        match sim.redis.exec(t_end, "auditor", &["GET", k]) {
            Frame::Bulk(b) => String::from_utf8_lossy(&b).parse().unwrap_or(0),
            _ => 0,
        }
    };
    let expected = (clients * n) as i64;
    let gs = read(&mut sim, "ctr:getset");
    let inc = read(&mut sim, "ctr:incr");
    let lost = expected - gs;
    out.metric("expected", expected as f64, "increments");
    out.metric("GET+SET final", gs as f64, "");
    out.metric("INCR final", inc as f64, "");
    out.metric("lost updates (GET+SET)", lost as f64, "increments");
    out.metric("lost updates (INCR)", (expected - inc) as f64, "increments");
    out.metric(
        "lost share (GET+SET)",
        100.0 * lost as f64 / expected as f64,
        "%",
    );
    out.check(
        "INCR loses no update",
        inc == expected,
        format!("INCR counter {inc} of {expected}"),
    );
    out.check(
        "GET+SET loses updates when clients overlap",
        lost > 0,
        format!("GET+SET counter {gs} of {expected}: {lost} lost"),
    );
    out.charts.push(
        Chart::bars("Final counter", "value", &["expected", "GET+SET", "INCR"]).with(Series::new(
            "value",
            vec![(0.0, expected as f64), (1.0, gs as f64), (2.0, inc as f64)],
        )),
    );
    if let Some(&(at, who, v)) = lost_at.first() {
        let name = sim.actors[who].name.clone();
        sim.mark(0, at, "redis", "bad", format!("{name} SETs {v}, computed from what it read earlier, but another client has already set {} since: that client's increment is lost", cur_before(&sim, at)));
    }
    out.diagram = sim.take_diagram(0);
    out.duration_us = t_end;
    out.note(format!(
        "{clients} clients × {n} increments: GET+SET ended at {gs} ({lost} lost), INCR at {inc}."
    ));
    out
}

/// The counter's value just before the SET at `at` (the highest SET before it).
fn cur_before(sim: &Sim, at: Micros) -> i64 {
    sim.execs
        .iter()
        .filter(|e| e.at < at && e.args.first().is_some_and(|c| c == "SET"))
        .filter_map(|e| e.args.get(2).and_then(|s| s.parse::<i64>().ok()))
        .max()
        .unwrap_or(0)
}

// ---------------------------------------------------------------- pipeline-multi-lua

pub const PIPELINE_MULTI_LUA: Scenario = Scenario::new("pipeline-multi-lua", pml_run);

/// Moves ARGV[1] from KEYS[1] to KEYS[2] in one step.
const TRANSFER: &str = "redis.call('DECRBY', KEYS[1], ARGV[1])
redis.call('INCRBY', KEYS[2], ARGV[1])
return 1";

/// The phases of client A.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Pipeline,
    Multi,
    NoRollback,
    Lua,
    Watch,
    Done,
}

fn pml_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("pipeline-multi-lua", seed, p);
    let gap = p_ms(p, "pipeline_gap");
    let poll = p_ms(p, "poll_every").max(50);
    let think = p_ms(p, "think").max(100);
    let lat = Lat::new(around(2 * MS), around(2 * MS));
    let mut sim = Sim::new(seed, lat);
    sim.log_execs = true;
    for (k, v) in [("acct:a", "100"), ("acct:b", "100"), ("name", "alice")] {
        sim.redis.exec(0, "setup", &["SET", k, v]);
    }
    let a = sim.actor("client A", "client", Some(0));
    let b = sim.actor("client B (reader)", "client", Some(0));
    let c = sim.actor("client C", "client", Some(0));
    let starts = [
        (Phase::Pipeline, 10 * MS),
        (Phase::Multi, 30 * MS),
        (Phase::NoRollback, 50 * MS),
        (Phase::Lua, 70 * MS),
        (Phase::Watch, 90 * MS),
    ];
    sim.start(a, starts[0].1);
    // B reads while A runs the three transfers it can observe.
    let windows: Vec<(Micros, Micros)> = [0usize, 1, 3]
        .iter()
        .map(|&i| (starts[i].1, starts[i].1 + 5 * gap + 2 * MS))
        .collect();
    sim.start(b, windows[0].0);
    let mut phase = Phase::Pipeline;
    let mut step = 0u8;
    let mut window = 0usize;
    let mut polls: Vec<(Micros, i64, Phase)> = Vec::new();
    let mut exec_replies: Vec<(Phase, Frame)> = Vec::new();
    let mut watch_attempts = 0;
    let mut aborted = 0;
    let mut before_watch: i64 = 0;
    let mut c_started = false;
    let mut c_done = false;
    let end = 200 * MS;
    while let Some((who, got)) = sim.next(end) {
        let now = sim.now();
        if who == b {
            if let Got::Reply(Frame::Array(v)) = &got {
                let sum: i64 = v
                    .iter()
                    .map(|f| match f {
                        Frame::Bulk(b) => String::from_utf8_lossy(b).parse::<i64>().unwrap_or(0),
                        _ => 0,
                    })
                    .sum();
                let at = sim
                    .execs
                    .iter()
                    .rev()
                    .find(|e| e.actor == b)
                    .map_or(now, |e| e.at);
                polls.push((
                    at,
                    sum,
                    [Phase::Pipeline, Phase::Multi, Phase::Lua][window.min(2)],
                ));
            }
            let (_, w_end) = windows[window];
            if now < w_end {
                let d = sim.uniform(poll / 2, poll * 3 / 2);
                if matches!(got, Got::Woke) {
                    sim.act(b, Act::Cmd(cmd(&["MGET", "acct:a", "acct:b"])));
                } else {
                    sim.act(b, Act::Pause(d, String::new()));
                }
            } else if window + 1 < windows.len() {
                window += 1;
                let next = windows[window].0;
                sim.act(b, Act::Pause(next - now, String::new()));
            }
            continue;
        }
        if who == c {
            if !c_done {
                c_done = true;
                sim.act(c, Act::Cmd(cmd(&["INCRBY", "acct:a", "1"])));
            }
            continue;
        }
        // Client A.
        let act = match (phase, step, got) {
            (Phase::Pipeline, 0, _) => Act::Pipe(
                vec![
                    cmd(&["DECRBY", "acct:a", "30"]),
                    cmd(&["INCRBY", "acct:b", "30"]),
                ],
                gap,
            ),
            (Phase::Multi, 0, _) => Act::Pipe(
                vec![
                    cmd(&["MULTI"]),
                    cmd(&["DECRBY", "acct:a", "30"]),
                    cmd(&["INCRBY", "acct:b", "30"]),
                    cmd(&["EXEC"]),
                ],
                gap,
            ),
            (Phase::NoRollback, 0, _) => Act::Pipe(
                vec![
                    cmd(&["MULTI"]),
                    cmd(&["DECRBY", "acct:a", "10"]),
                    cmd(&["INCR", "name"]),
                    cmd(&["INCRBY", "acct:b", "10"]),
                    cmd(&["EXEC"]),
                ],
                gap,
            ),
            (Phase::Lua, 0, _) => Act::Cmd(cmd(&["EVAL", TRANSFER, "2", "acct:a", "acct:b", "20"])),
            (Phase::Watch, 0, _) => {
                watch_attempts += 1;
                if !c_started {
                    // C's write comes while A holds its WATCH.
                    c_started = true;
                    let t = now + sim.uniform(MS, think.max(2 * MS));
                    sim.start(c, t);
                }
                Act::Pipe(vec![cmd(&["WATCH", "acct:a"]), cmd(&["GET", "acct:a"])], 0)
            }
            (Phase::Watch, 1, Got::Replies(r)) => {
                let v = match r.get(1) {
                    Some(Frame::Bulk(b)) => String::from_utf8_lossy(b).parse::<i64>().unwrap_or(0),
                    _ => 0,
                };
                if watch_attempts == 1 {
                    before_watch = v;
                }
                sim.actors[a].carry = (v + 5).to_string();
                let d = sim.uniform(think / 2, think * 3 / 2);
                Act::Pause(d, format!("compute {:.1} ms", ms(d)))
            }
            (Phase::Watch, 2, _) => {
                let v = std::mem::take(&mut sim.actors[a].carry);
                Act::Pipe(
                    vec![cmd(&["MULTI"]), cmd(&["SET", "acct:a", &v]), cmd(&["EXEC"])],
                    gap,
                )
            }
            (Phase::Watch, 3, Got::Replies(r)) => {
                let ex = r.last().cloned().unwrap_or(Frame::Null);
                exec_replies.push((Phase::Watch, ex.clone()));
                if matches!(ex, Frame::NullArray | Frame::Null) && watch_attempts < 10 {
                    aborted += 1;
                    step = 0;
                    sim.act(a, Act::Pause(MS / 2, "retry".into()));
                    continue;
                }
                phase = Phase::Done;
                Act::Done
            }
            (Phase::Watch, _, _) => Act::Done,
            (ph, 1, g) => {
                let last = match g {
                    Got::Replies(r) => r.last().cloned().unwrap_or(Frame::Null),
                    Got::Reply(r) => r,
                    _ => Frame::Null,
                };
                exec_replies.push((ph, last));
                let i = starts.iter().position(|s| s.0 == ph).unwrap_or(0) + 1;
                let (next, at) = starts.get(i).copied().unwrap_or((Phase::Done, now));
                phase = next;
                step = 0;
                sim.act(a, Act::Pause(at.saturating_sub(now), String::new()));
                continue;
            }
            _ => Act::Done,
        };
        // A retry's pause resumes at step 0 again; other resumes move on.
        if matches!(act, Act::Done) && phase != Phase::Done {
            // Nothing to do for this resume.
        }
        step += 1;
        sim.act(a, act);
    }
    sim.finish(end);
    // What happened, from the engine's replies.
    let torn = |ph: Phase| polls.iter().filter(|x| x.2 == ph && x.1 != 200).count();
    let polls_in = |ph: Phase| polls.iter().filter(|x| x.2 == ph).count();
    // B's reads that Redis ran between A's MULTI and EXEC.
    let execs_of = |name: &str| -> Vec<Micros> {
        sim.execs
            .iter()
            .filter(|e| e.actor == a && e.args.first().is_some_and(|c| c == name))
            .map(|e| e.at)
            .collect()
    };
    let multis = execs_of("MULTI");
    let execs = execs_of("EXEC");
    let inside = match (multis.first(), execs.first()) {
        (Some(&m), Some(&e)) => polls.iter().filter(|x| x.0 > m && x.0 < e).count(),
        _ => 0,
    };
    let no_rb = exec_replies
        .iter()
        .find(|x| x.0 == Phase::NoRollback)
        .map(|x| x.1.clone());
    let (nr_error, nr_applied) = match &no_rb {
        Some(Frame::Array(items)) => (
            items.get(1).is_some_and(Frame::is_error),
            items.len() == 3 && !items[0].is_error() && !items[2].is_error(),
        ),
        _ => (false, false),
    };
    let final_a = match sim.redis.exec(end, "auditor", &["GET", "acct:a"]) {
        Frame::Bulk(b) => String::from_utf8_lossy(&b).parse::<i64>().unwrap_or(0),
        _ => 0,
    };
    // C added 1 after A's first read; A's successful retry wrote (its read + 5).
    let watch_ok = aborted >= 1 && final_a == before_watch + 1 + 5;
    out.metric(
        "torn reads (pipeline)",
        torn(Phase::Pipeline) as f64,
        "reads",
    );
    out.metric(
        "torn reads (MULTI/EXEC)",
        torn(Phase::Multi) as f64,
        "reads",
    );
    out.metric("torn reads (Lua)", torn(Phase::Lua) as f64, "reads");
    out.metric("reads between MULTI and EXEC", inside as f64, "reads");
    out.metric("WATCH attempts", watch_attempts as f64, "attempts");
    out.check(
        "a pipeline's commands interleave with another client's: B saw a torn total",
        torn(Phase::Pipeline) > 0,
        format!(
            "{} of {} reads during the pipeline saw a total other than 200",
            torn(Phase::Pipeline),
            polls_in(Phase::Pipeline)
        ),
    );
    out.check(
        "MULTI/EXEC and Lua run as one step: no torn total, though B's reads arrived between MULTI and EXEC",
        torn(Phase::Multi) == 0 && torn(Phase::Lua) == 0 && inside > 0,
        format!("{} and {} torn reads; {inside} of B's reads ran between MULTI and EXEC", torn(Phase::Multi), torn(Phase::Lua)),
    );
    out.check(
        "EXEC has no rollback: INCR on a string fails inside it and the other commands still apply",
        nr_error && nr_applied,
        format!(
            "EXEC replied {}",
            no_rb.as_ref().map_or("nothing".to_string(), |f| short(
                &reply_text(f).replace('\n', " ")
            ))
        ),
    );
    out.check(
        "WATCH aborts the EXEC after C's write and the retry succeeds without losing C's update",
        watch_ok,
        format!("{aborted} aborted, {watch_attempts} attempts; acct:a {before_watch} → {final_a} (expected {})", before_watch + 6),
    );
    // Marks at the moments that matter.
    if let Some(x) = polls.iter().find(|x| x.2 == Phase::Pipeline && x.1 != 200) {
        sim.mark(
            0,
            x.0,
            "redis",
            "bad",
            format!(
                "B's MGET runs between the pipeline's DECRBY and INCRBY: the total reads {}",
                x.1
            ),
        );
    }
    if let Some(&e) = execs.first() {
        sim.mark(
            0,
            e,
            "redis",
            "good",
            "EXEC runs the queued DECRBY and INCRBY back to back: no read sees the money in flight"
                .to_string(),
        );
    }
    if let Some(&e) = execs.get(1) {
        sim.mark(0, e, "redis", "bad", "INCR name fails inside EXEC (not an integer), yet the DECRBY and INCRBY around it are applied: no rollback".to_string());
    }
    if let Some(e) = sim
        .execs
        .iter()
        .find(|e| e.actor == a && e.args.first().is_some_and(|c| c == "EVAL"))
    {
        let t = e.at;
        sim.mark(
            0,
            t,
            "redis",
            "good",
            "the script's DECRBY and INCRBY run as one command".to_string(),
        );
    }
    if let Some(e) = sim.execs.iter().find(|e| e.actor == c) {
        let t = e.at;
        sim.mark(
            0,
            t,
            "redis",
            "info",
            "C changes acct:a while A holds its WATCH".to_string(),
        );
    }
    let watch_execs: Vec<(Micros, bool)> = sim
        .execs
        .iter()
        .filter(|e| {
            e.actor == a && e.at >= starts[4].1 && e.args.first().is_some_and(|c| c == "EXEC")
        })
        .map(|e| (e.at, matches!(e.reply, Frame::NullArray | Frame::Null)))
        .collect();
    for (t, nil) in watch_execs {
        if nil {
            sim.mark(
                0,
                t,
                "redis",
                "info",
                "EXEC returns nil: the watched key changed, nothing was applied; A retries"
                    .to_string(),
            );
        } else {
            sim.mark(
                0,
                t,
                "redis",
                "good",
                "the retry's EXEC applies: A's update is based on C's value".to_string(),
            );
        }
    }
    let series = |ph: Phase| -> Vec<(f64, f64)> {
        polls
            .iter()
            .filter(|x| x.2 == ph)
            .map(|x| (ms(x.0), x.1 as f64))
            .collect()
    };
    out.charts.push(
        Chart::line("Total B read (acct:a + acct:b)", "time (ms)", "total")
            .with(Series::new("pipeline", series(Phase::Pipeline)))
            .with(Series::new("MULTI/EXEC", series(Phase::Multi)))
            .with(Series::new("Lua", series(Phase::Lua))),
    );
    out.diagram = sim.take_diagram(0);
    out.duration_us = end;
    out.note(format!(
        "B read a wrong total {} times during the pipeline, {} during MULTI/EXEC ({inside} reads ran between its MULTI and EXEC) and {} during the script.",
        torn(Phase::Pipeline),
        torn(Phase::Multi),
        torn(Phase::Lua)
    ));
    out.note(format!(
        "A's WATCH transaction took {watch_attempts} attempts; acct:a ended at {final_a}."
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::super::passes;
    use super::*;
    use crate::testing::run as with;

    #[test]
    fn incr_vs_get_set() {
        passes(&INCR_VS_GET_SET);
        let o = with(&INCR_VS_GET_SET, 1, &[]);
        assert_eq!(o.metric_value("lost updates (INCR)"), Some(0.0));
        let lost = o.metric_value("lost updates (GET+SET)").unwrap();
        assert!(lost > 10.0 && lost < 200.0, "{lost}");
        // One client alone loses nothing, so the GET+SET claim fails.
        let o = with(&INCR_VS_GET_SET, 1, &[("clients", "1")]);
        assert_eq!(o.metric_value("lost updates (GET+SET)"), Some(0.0));
        assert!(!o.passed());
    }

    #[test]
    fn pipeline_multi_lua() {
        passes(&PIPELINE_MULTI_LUA);
        let o = with(&PIPELINE_MULTI_LUA, 1, &[]);
        assert!(o.metric_value("reads between MULTI and EXEC").unwrap() > 0.0);
        assert!(o.metric_value("WATCH attempts").unwrap() >= 2.0);
        // Back-to-back commands with slow reads: the pipeline's gap closes.
        let o = with(
            &PIPELINE_MULTI_LUA,
            1,
            &[("pipeline_gap", "0"), ("poll_every", "5")],
        );
        assert_eq!(o.metric_value("torn reads (pipeline)"), Some(0.0));
    }
}
