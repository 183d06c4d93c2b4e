//! Writer-side races: two writers overwriting the cache versus deleting it, and the delayed double delete with the four ways it falls short.

use super::*;

pub const OVERWRITE_VS_DELETE: Scenario = Scenario::new("overwrite-vs-delete", ovd_run);

fn ovd_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("overwrite-vs-delete", seed, p);
    let trials = p.count("trials").max(1) as usize;
    let jitter = p_ms(p, "app_jitter");
    let spread = p_ms(p, "start_spread");
    let show_delete = p.choice("show") == 1;
    let lat = Lat::new(around(3 * MS), around(p_ms(p, "db_write").max(MS)));
    let mut sim = Sim::new(seed, lat);
    sim.log_execs = true;
    let spacing = 200 * MS;
    let ttl = "60000";
    let who = writer_trials(
        &mut sim,
        trials,
        spacing,
        ["ow", "del"],
        spread,
        spread + 120 * MS,
        true,
    );
    let end = trials as Micros * spacing + 200 * MS;
    // Per key: (version, writer) of each commit.
    let mut commits: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    let mut stale_at_end = [0usize; 2];
    let mut reader_stale = [0usize; 2];
    while let Some((a, step, got)) = sim.next_step(end) {
        let (key, value, role) = who[a].clone();
        let overwrite = key.starts_with("ow:");
        let act = match (role, step, got) {
            (0 | 1, 0, _) => Act::Write(key, value),
            (0 | 1, 1, Got::Row(row)) => {
                let version = row.map_or(0, |r| r.version);
                commits
                    .entry(key.clone())
                    .or_default()
                    .push((version, value));
                sim.app_work(jitter)
            }
            (0 | 1, 2, Got::Woke) if overwrite => Act::Cmd(cmd(&["SET", &key, &value, "PX", ttl])),
            (0 | 1, 2, Got::Woke) => Act::Cmd(cmd(&["DEL", &key])),
            (2, 0, _) => {
                // The reader arrives once both writers are done: what it gets
                // is what the race left behind.
                let open = sim.tracks.get(&key).is_some_and(|t| t.open.is_some());
                stale_at_end[usize::from(!overwrite)] += usize::from(open);
                Act::Cmd(cmd(&["GET", &key]))
            }
            (2, 1, Got::Reply(Frame::Bulk(v))) => {
                if !sim.is_latest(&key, &v) {
                    reader_stale[usize::from(!overwrite)] += 1;
                }
                Act::Done
            }
            (2, 1, Got::Reply(_)) => Act::Read(key),
            (2, 2, Got::Row(Some(row))) => Act::Cmd(cmd(&["SET", &key, &row.value, "PX", ttl])),
            _ => Act::Done,
        };
        sim.act(a, act);
    }
    sim.finish(end);
    // Reordered: the cache writes ran in the opposite order to the commits.
    let mut reordered = [0usize; 2];
    let mut first = [None, None];
    let by_key = sim.writer_execs();
    for (v, variant) in ["ow", "del"].iter().enumerate() {
        for i in 0..trials {
            let key = format!("{variant}:{i}");
            let order: Vec<&str> = by_key
                .get(&key)
                .map(|w| {
                    w.iter()
                        .map(|(_, n)| if n.ends_with('A') { "A" } else { "B" })
                        .collect()
                })
                .unwrap_or_default();
            let mut c = commits.get(&key).cloned().unwrap_or_default();
            c.sort();
            let c: Vec<&str> = c.iter().map(|x| x.1.as_str()).collect();
            if order.len() == 2 && c.len() == 2 && order[0] != c[0] {
                reordered[v] += 1;
                if first[v].is_none() {
                    first[v] = Some(i);
                }
            }
        }
    }
    let pct = |n: usize| 100.0 * n as f64 / trials as f64;
    out.metric("overwrite: ended stale", pct(stale_at_end[0]), "%");
    out.metric("delete: ended stale", pct(stale_at_end[1]), "%");
    out.metric("cache writes reordered", pct(reordered[0]), "%");
    out.metric("overwrite: stale reads", reader_stale[0] as f64, "reads");
    out.metric("delete: stale reads", reader_stale[1] as f64, "reads");
    out.check(
        "overwriting leaves the older value in some trials",
        stale_at_end[0] > 0,
        format!(
            "{} of {trials} SET trials ended with the older value; {} of their readers got it",
            stale_at_end[0], reader_stale[0]
        ),
    );
    out.check(
        "deleting never leaves the older value, though its DELs reorder too",
        stale_at_end[1] == 0 && reader_stale[1] == 0 && reordered[1] > 0,
        format!(
            "{} of {trials} DEL trials ended stale; their DELs reordered in {}",
            stale_at_end[1], reordered[1]
        ),
    );
    out.charts.push(
        Chart::bars(
            "Trials ending with the older value cached",
            "trials",
            &["overwrite (SET)", "delete (DEL)"],
        )
        .with(Series::new(
            "ended stale",
            vec![(0.0, stale_at_end[0] as f64), (1.0, stale_at_end[1] as f64)],
        ))
        .with(Series::new(
            "cache writes reordered",
            vec![(0.0, reordered[0] as f64), (1.0, reordered[1] as f64)],
        )),
    );
    let v = usize::from(show_delete);
    if let Some(i) = first[v] {
        let key = format!("{}:{i}", if show_delete { "del" } else { "ow" });
        let g = v * trials + i;
        let late = by_key.get(&key).and_then(|w| w.get(1).cloned());
        if let Some((at, name)) = late {
            if show_delete {
                sim.mark(g, at, "redis", "good", format!("{name}'s DEL lands last although it committed first: harmless, the key is empty either way and the next reader loads the latest row"));
            } else {
                sim.mark(g, at, "redis", "bad", format!("{name}'s SET lands last although it committed first: the cache now holds the older value while the DB has the newer one, until the TTL"));
            }
        }
        out.diagram = sim.take_diagram(g);
        out.note(format!(
            "Trial {i} is drawn ({}).",
            if show_delete { "delete" } else { "overwrite" }
        ));
    }
    out.duration_us = end;
    out.note(format!(
        "Cache writes landed out of commit order in {} of {trials} trials; with SET {} ended stale, with DEL none did ({}).",
        reordered[0], stale_at_end[0], stale_at_end[1]
    ));
    out
}

// ---------------------------------------------------------------- double-delete

pub const DOUBLE_DELETE: Scenario = Scenario::new("double-delete", dd_run);

fn dd_run(p: &Params, seed: u64) -> Outcome {
    let cases = DOUBLE_DELETE.info().choices("case");
    let mut out = Outcome::new("double-delete", seed, p);
    let case = p.choice("case").min(cases.len() - 1);
    let name = cases[case];
    let delay = p_ms(p, "delay");
    let pause = if case == 1 {
        p_ms(p, "long_pause")
    } else {
        p_ms(p, "reader_pause")
    };
    let ttl = p_ms(p, "ttl").max(MS);
    let every = p_ms(p, "reader_every").max(MS);
    let lat = Lat::new(around(4 * MS), around(25 * MS));
    let mut sim = Sim::new(seed, lat);
    sim.log_execs = true;
    let replica = case == 3;
    if replica {
        let lag = p_ms(p, "replica_lag");
        sim.replica.lag = Dist::jittered(lag, lag / 10);
    }
    let key = "user:42";
    sim.seed_row(key, "v1");
    sim.track(key);
    let ttl_s = (ttl / MS).to_string();
    let write_at = 100 * MS;
    let end = write_at + delay + pause.max(p_ms(p, "replica_lag")) + ttl + 300 * MS;
    let w = sim.actor("writer", "client", Some(0));
    sim.start(w, write_at);
    let slow = (case <= 2).then(|| {
        let s = sim.actor("slow reader", "client", Some(0));
        sim.start(s, write_at - 3 * MS);
        s
    });
    let mut t = write_at + MS;
    while t < end {
        let a = sim.actor("readers", "client", None);
        sim.start(a, t);
        t += every;
    }
    let (mut commit_at, mut del1, mut del2, mut del2_reply) = (0, 0, 0, -1i64);
    let mut served: Vec<(f64, f64)> = Vec::new();
    let mut reads_after_del2 = 0;
    // Set once a reader has refilled the cache after the second DEL.
    let mut refilled = false;
    let mut drawn_after = 0;
    while let Some((a, step, got)) = sim.next_step(end) {
        let now = sim.now();
        let act = if a == w {
            match (step, got) {
                (0, _) => Act::Write(key.into(), "v2".into()),
                (1, _) => {
                    commit_at = now;
                    Act::Cmd(cmd(&["DEL", key]))
                }
                (2, _) => {
                    del1 = now;
                    Act::Pause(delay, format!("wait {:.0} ms", ms(delay)))
                }
                (3, _) => {
                    if case == 2 {
                        sim.actors[w].cut = true;
                    }
                    Act::Cmd(cmd(&["DEL", key]))
                }
                (4, g) => {
                    del2 = now;
                    if let Got::Reply(Frame::Integer(n)) = g {
                        del2_reply = n;
                    }
                    Act::Done
                }
                _ => Act::Done,
            }
        } else if Some(a) == slow {
            match (step, got) {
                (0, _) => Act::Cmd(cmd(&["GET", key])),
                (1, Got::Reply(Frame::Null)) => Act::Read(key.into()),
                (2, Got::Row(Some(row))) => {
                    sim.actors[a].carry = row.value;
                    Act::Pause(pause, format!("GC pause {:.0} ms", ms(pause)))
                }
                (3, _) => {
                    let v = std::mem::take(&mut sim.actors[a].carry);
                    Act::Cmd(cmd(&["SET", key, &v, "PX", &ttl_s]))
                }
                _ => Act::Done,
            }
        } else {
            match (step, got) {
                (0, _) => {
                    // Draw readers up to a few after the second DEL, and the
                    // first one after a stale value expired.
                    let stale_open = sim.tracks.get(key).is_some_and(|t| t.open.is_some());
                    let draw = if del2 == 0 {
                        true
                    } else if drawn_after < 3 {
                        drawn_after += 1;
                        true
                    } else {
                        drawn_after == 3 && !stale_open && sim.peek(key).0.is_none() && {
                            drawn_after += 1;
                            true
                        }
                    };
                    if draw {
                        sim.actors[a].group = Some(0);
                    }
                    Act::Cmd(cmd(&["GET", key]))
                }
                (1, Got::Reply(Frame::Bulk(v))) => {
                    served.push((secs(now), version_of(&v)));
                    Act::Done
                }
                (1, _) => {
                    if del2 > 0 && !refilled {
                        reads_after_del2 += 1;
                    }
                    if replica {
                        Act::ReadReplica(key.into())
                    } else {
                        Act::Read(key.into())
                    }
                }
                (2, Got::Row(Some(row))) => {
                    served.push((secs(now), row.version as f64));
                    Act::Cmd(cmd(&["SET", key, &row.value, "PX", &ttl_s]))
                }
                (3, _) => {
                    refilled |= del2 > 0;
                    Act::Done
                }
                _ => Act::Done,
            }
        };
        sim.act(a, act);
    }
    sim.finish(end);
    let tr = sim.track_of(key);
    let window = tr.total();
    // Where stale spans began and ended, relative to the second DEL's execution.
    let del2_exec = sim
        .execs
        .iter()
        .filter(|e| e.actor == w)
        .nth(1)
        .map(|e| e.at);
    let stale_after_del2 = tr
        .spans
        .iter()
        .any(|&(s, e)| e - s > MS && del2_exec.is_none_or(|d| e > d + MS));
    let stale_before = tr
        .spans
        .iter()
        .any(|&(s, _)| s > del1 && del2_exec.is_some_and(|d| s < d));
    let stale_sets: Vec<(Micros, usize)> = sim
        .execs
        .iter()
        .filter(|e| {
            e.args.first().is_some_and(|c| c == "SET")
                && e.args.get(2).is_some_and(|v| v == "v1")
                && e.at > del1
        })
        .map(|e| (e.at, e.actor))
        .collect();
    out.metric("stale window", ms(window), "ms");
    out.metric("delay", ms(delay), "ms");
    out.metric("DB reads", sim.db.reads as f64, "queries");
    let stale_reads = served
        .iter()
        .filter(|(t, v)| *t > secs(commit_at) && *v < 2.0)
        .count();
    out.metric("stale reads", stale_reads as f64, "reads");
    let wasted = if del2_reply == 1 && !stale_before && !stale_after_del2 {
        reads_after_del2
    } else {
        0
    };
    out.metric("wasted DB reads", wasted as f64, "queries");
    // Marks.
    if let Some(&(at, who)) = stale_sets
        .first()
        .filter(|(t, _)| del2_exec.is_none_or(|d| *t < d))
    {
        let n = sim.actors[who].name.clone();
        let why = if replica {
            "it loaded v1 from the replica, which has not applied the commit yet"
        } else {
            "it read v1 before the commit and paused"
        };
        sim.mark(
            0,
            at,
            "redis",
            "bad",
            format!("{n} SETs v1 after the first DEL: {why}; the cache is stale"),
        );
    }
    if let Some(d) = del2_exec {
        if stale_before && !stale_after_del2 {
            sim.mark(
                0,
                d,
                "redis",
                "good",
                "the second DEL removes the stale v1: the next miss loads v2".to_string(),
            );
        } else if wasted > 0 {
            sim.mark(0, d, "redis", "bad", "the second DEL evicts a fresh v2: the next reader misses and pays a DB read for nothing".to_string());
        } else if stale_after_del2 {
            sim.mark(0, d, "redis", "info", "the second DEL runs, but the stale v1 is written again (or still to come) after it".to_string());
        }
    } else if case == 2 {
        sim.mark(0, del1 + delay, "writer", "bad", "the second DEL is lost (dropped message, crashed pod, in-memory timer gone): nothing removes the stale v1".to_string());
    }
    if let Some(&(at, who)) = stale_sets
        .iter()
        .find(|(t, _)| del2_exec.is_some_and(|d| *t > d))
    {
        let n = sim.actors[who].name.clone();
        sim.mark(
            0,
            at,
            "redis",
            "bad",
            format!("{n} writes v1 after the second DEL: it stays until the TTL"),
        );
    }
    let (claim, passed, detail) = match case {
        0 => (
            "the second DEL clears the slow reader's stale value: stale no longer than the delay",
            stale_before && !stale_after_del2 && window <= delay + 10 * MS,
            format!("stale {:.0} ms (delay {:.0} ms), nothing stale after the second DEL: {}", ms(window), ms(delay), !stale_after_del2),
        ),
        1 => (
            "a reader pausing longer than the delay writes v1 after the second DEL: stale until its TTL",
            stale_after_del2 && window as f64 >= 0.9 * ttl as f64,
            format!("pause {:.0} ms > delay {:.0} ms; stale {:.0} ms of a {:.0} ms TTL", ms(pause), ms(delay), ms(window), ms(ttl)),
        ),
        2 => (
            "with the second DEL lost, the stale value stays until its TTL",
            del2_exec.is_none() && window as f64 >= 0.9 * ttl as f64,
            format!("second DEL executed: {}; stale {:.0} ms of a {:.0} ms TTL", del2_exec.is_some(), ms(window), ms(ttl)),
        ),
        3 => (
            "readers on a replica lagging past the delay re-cache v1 after the second DEL",
            stale_after_del2 && window as f64 >= 0.9 * ttl as f64,
            format!("lag {:.0} ms, delay {:.0} ms; stale {:.0} ms", p.get("replica_lag"), ms(delay), ms(window)),
        ),
        _ => (
            "with no race to fix, the second DEL evicts a fresh value and costs a DB read",
            wasted >= 1 && !stale_before && !stale_after_del2,
            format!("second DEL removed {del2_reply} key(s); {wasted} DB read(s) followed; stale {:.0} ms", ms(window)),
        ),
    };
    out.check(claim, passed, detail);
    show_race(&mut out, &mut sim, served, commit_at, end);
    out.note(format!(
        "Case {name}: commit at {:.0} ms, first DEL at {:.0} ms, second DEL {}.",
        ms(commit_at),
        ms(del1),
        match del2_exec {
            Some(d) => format!("at {:.0} ms", ms(d)),
            None => "lost".to_string(),
        }
    ));
    out.note(format!("The cache was stale for {:.0} ms in all ({stale_reads} reads got v1 after the commit); {wasted} DB read(s) were wasted.", ms(window)));
    let _ = del2;
    out
}

#[cfg(test)]
mod tests {
    use super::super::passes;
    use super::*;
    use crate::testing::{all_pass, run as with};

    #[test]
    fn overwrite_vs_delete() {
        passes(&OVERWRITE_VS_DELETE);
        let o = with(&OVERWRITE_VS_DELETE, 1, &[("show", "delete")]);
        assert!(o.passed());
        assert!(o
            .diagram
            .as_ref()
            .unwrap()
            .marks
            .iter()
            .any(|m| m.tone == "good"));
        let s = o.metric_value("overwrite: ended stale").unwrap();
        assert!(s > 2.0 && s < 60.0, "{s}");
        // No app work and writers far apart: nothing reorders, SET looks safe.
        let o = with(
            &OVERWRITE_VS_DELETE,
            1,
            &[("app_jitter", "0"), ("start_spread", "100")],
        );
        assert_eq!(o.metric_value("overwrite: ended stale"), Some(0.0));
        assert!(!o.passed());
    }

    #[test]
    fn double_delete_cases() {
        for &case in DOUBLE_DELETE.info().choices("case") {
            for o in all_pass(&DOUBLE_DELETE, &[("case", case)]) {
                assert!(o.diagram.is_some());
            }
        }
        let o = with(&DOUBLE_DELETE, 1, &[]);
        let w = o.metric_value("stale window").unwrap();
        assert!(w > 100.0 && w <= 500.0, "{w}");
        // The helping case fails once the delay is shorter than the pause.
        let o = with(&DOUBLE_DELETE, 1, &[("delay", "100")]);
        assert!(!o.passed());
        let o = with(&DOUBLE_DELETE, 1, &[("case", "wasted-miss")]);
        assert!(o.metric_value("wasted DB reads").unwrap() >= 1.0);
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices(
            "double-delete",
            "case",
            "helps short-delay lost-delete replica-lag wasted-miss",
        );
    }
}
