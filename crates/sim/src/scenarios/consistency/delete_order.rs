//! The order of a cache-aside write: deleting the cache before the UPDATE lets a reader put the old row back for a whole TTL; updating first leaves a narrower window that a paused reader can still hit.

use super::*;
use crate::seeds;

pub const DELETE_BEFORE_UPDATE: Scenario = Scenario::new("delete-before-update", dbu_run);

fn dbu_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("delete-before-update", seed, p);
    let ttl = p_ms(p, "ttl").max(MS);
    let lat = Lat::new(around(p_ms(p, "db_read")), around(p_ms(p, "db_write")));
    let every = p_ms(p, "reader_every").max(100);
    let mut sim = Sim::new(seed, lat);
    let key = "user:42";
    sim.seed_row(key, "v1");
    let ttl_s = (ttl / MS).to_string();
    sim.redis
        .exec(0, "setup", &["SET", key, "v1", "PX", &ttl_s]);
    sim.log_execs = true;
    sim.track(key);
    let write_at = 50 * MS;
    let end = write_at + ttl + 300 * MS;
    // Writer: DEL, then UPDATE.
    let w = sim.actor("writer", "client", Some(0));
    sim.rec(0).lane("writer", "client");
    sim.start(w, write_at);
    // Readers with exponential-ish gaps (uniform 0..2×mean).
    let mut t = 0;
    let mut readers = 0usize;
    while t < end {
        t += sim.uniform(1, 2 * every);
        readers += 1;
        let a = sim.actor(&format!("reader {readers}"), "client", None);
        sim.start(a, t);
    }
    // Drawn: a few readers from just before the delete, the first one
    // after the commit, and the first miss after the stale value expired.
    let record_from = write_at.saturating_sub(every);
    let mut drawn = 0;
    let mut drawn_after_commit = false;
    let mut phase = vec![0u8; sim.actors.len()];
    let mut served: Vec<(f64, f64)> = Vec::new();
    let mut first_after_expiry: Option<usize> = None;
    let mut commit_at = 0;
    let mut del_at = 0;
    while let Some((a, got)) = sim.next(end) {
        let now = sim.now();
        if a == w {
            match got {
                Got::Start => sim.act(w, Act::Cmd(cmd(&["DEL", key]))),
                Got::Reply(_) => {
                    del_at = now;
                    sim.act(w, Act::Write(key.into(), "v2".into()))
                }
                _ => {
                    commit_at = now;
                    sim.act(w, Act::Done)
                }
            }
            continue;
        }
        match (phase[a], got) {
            (0, Got::Start) => {
                let expired = commit_at > 0 && sim.peek(key).0.is_none();
                let draw = if expired && first_after_expiry.is_none() {
                    first_after_expiry = Some(a);
                    true
                } else if commit_at > 0 {
                    !std::mem::replace(&mut drawn_after_commit, true)
                } else {
                    now >= record_from && drawn < 7
                };
                if draw {
                    drawn += 1;
                    sim.actors[a].group = Some(0);
                }
                phase[a] = 1;
                sim.act(a, Act::Cmd(cmd(&["GET", key])));
            }
            (1, Got::Reply(Frame::Bulk(v))) => {
                served.push((secs(now), version_of(&v)));
                sim.act(a, Act::Done);
            }
            (1, Got::Reply(_)) => {
                phase[a] = 2;
                sim.act(a, Act::Read(key.into()));
            }
            (2, Got::Row(Some(row))) => {
                served.push((secs(now), row.version as f64));
                phase[a] = 3;
                sim.act(a, Act::Cmd(cmd(&["SET", key, &row.value, "PX", &ttl_s])));
            }
            (3, Got::Reply(_)) => sim.act(a, Act::Done),
            _ => sim.act(a, Act::Done),
        }
    }
    sim.finish(end);
    let tr = sim.track_of(key);
    let window = tr.total();
    let landed = tr.landed.first().copied();
    let expired = tr.spans.first().map(|s| s.1);
    // The SET whose v1 was in the cache when the UPDATE committed.
    let stale_setter = sim
        .execs
        .iter()
        .rev()
        .find(|e| e.at <= commit_at && e.args.first().is_some_and(|c| c == "SET"))
        .filter(|e| e.at > del_at && e.args.get(2).is_some_and(|v| v == "v1"))
        .map(|e| (e.actor, e.at));
    if let (Some(_), Some((r, at))) = (landed, stale_setter) {
        let name = sim.actors[r].name.clone();
        sim.mark(
            0,
            at,
            "redis",
            "bad",
            format!("{name} missed after the DEL, read v1 from the DB before the UPDATE committed, and its SET puts v1 back with a fresh {} ms TTL: once v2 commits, readers keep getting v1", ms(ttl)),
        );
    }
    if let Some(e) = expired {
        sim.mark(
            0,
            e,
            "redis",
            "info",
            "the stale v1 expires (its TTL ran out); the next miss loads v2".to_string(),
        );
    }
    if commit_at > 0 {
        sim.mark(
            0,
            commit_at,
            "db",
            "info",
            "the UPDATE commits v2".to_string(),
        );
    }
    let served_stale = served.iter().filter(|(_, v)| *v < 2.0).count();
    let served_after_commit = served
        .iter()
        .filter(|(t, v)| *t > secs(commit_at) && *v < 2.0)
        .count();
    out.metric("stale window", ms(window), "ms");
    out.metric("TTL", ms(ttl), "ms");
    out.metric(
        "stale reads after commit",
        served_after_commit as f64,
        "reads",
    );
    out.metric("readers", readers as f64, "reads");
    out.check(
        "a reader re-cached the old value after the writer's DEL",
        landed.is_some() && stale_setter.is_some(),
        match stale_setter {
            Some((r, at)) => format!(
                "{} wrote v1 at {:.1} ms; DEL at {:.1} ms, commit at {:.1} ms",
                sim.actors[r].name,
                ms(at),
                ms(del_at),
                ms(commit_at)
            ),
            None => format!(
                "no reader loaded v1 between the DEL ({:.1} ms) and the commit ({:.1} ms)",
                ms(del_at),
                ms(commit_at)
            ),
        },
    );
    out.check(
        "the stale value stays until its TTL (stale window ≥ 90% of the TTL)",
        window as f64 >= 0.9 * ttl as f64,
        format!(
            "stale for {:.1} ms with a TTL of {:.0} ms",
            ms(window),
            ms(ttl)
        ),
    );
    show_race(&mut out, &mut sim, served, commit_at, end);
    out.note(format!(
        "The writer's DEL landed at {:.1} ms and the UPDATE committed at {:.1} ms.",
        ms(del_at),
        ms(commit_at)
    ));
    out.note(format!(
        "The cache held the old v1 for {:.0} ms of a {:.0} ms TTL; {served_after_commit} reads after the commit still got v1 ({served_stale} v1 answers in all).",
        ms(window),
        ms(ttl)
    ));
    out
}

// ---------------------------------------------------------------- update-then-delete

pub const UPDATE_THEN_DELETE: Scenario = Scenario::new("update-then-delete", utd_run);

/// Results of a batch of update-then-delete trials.
struct UtdBatch {
    stale: Vec<usize>,
    durations: Vec<Micros>,
    sim: Sim,
}

/// Runs `trials` writer/reader pairs; the reader pauses `pause` between
/// its SELECT and its SET.
fn utd_batch(seed: u64, trials: usize, pause: Dist, write: Micros, ttl: Micros) -> UtdBatch {
    let lat = Lat::new(around(4 * MS), around(write));
    let mut sim = Sim::new(seed, lat);
    let spacing = 30 * MS;
    let ttl_s = (ttl / MS).to_string();
    let mut roles = Vec::new();
    for i in 0..trials {
        let key = format!("item:{i}");
        sim.seed_row(&key, "v1");
        sim.track(&key);
        let t0 = i as Micros * spacing;
        let w = sim.actor("writer", "client", Some(i));
        let r = sim.actor("reader", "client", Some(i));
        let (dw, dr) = (sim.uniform(0, 10 * MS), sim.uniform(0, 10 * MS));
        sim.start(w, t0 + dw);
        sim.start(r, t0 + dr);
        roles.push((key.clone(), true));
        roles.push((key, false));
    }
    let end = trials as Micros * spacing + 400 * MS;
    let mut phase = vec![0u8; sim.actors.len()];
    while let Some((a, got)) = sim.next(end) {
        let (key, writer) = roles[a].clone();
        let step = phase[a];
        phase[a] += 1;
        let act = match (writer, step, got) {
            (true, 0, _) => Act::Write(key, "v2".into()),
            (true, 1, _) => Act::Cmd(cmd(&["DEL", &key])),
            (false, 0, _) => Act::Cmd(cmd(&["GET", &key])),
            (false, 1, Got::Reply(Frame::Null)) => Act::Read(key),
            (false, 2, Got::Row(Some(row))) => {
                let d = pause.sample(sim.rng());
                let label = if d >= MS {
                    format!("GC pause {:.0} ms holding {}", ms(d), row.value)
                } else {
                    String::new()
                };
                sim.actors[a].carry = row.value;
                Act::Pause(d, label)
            }
            (false, 3, Got::Woke) => {
                let v = std::mem::take(&mut sim.actors[a].carry);
                Act::Cmd(cmd(&["SET", &key, &v, "PX", &ttl_s]))
            }
            _ => Act::Done,
        };
        sim.act(a, act);
    }
    sim.finish(end);
    let mut stale = Vec::new();
    let mut durations = Vec::new();
    for i in 0..trials {
        let tr = sim.track_of(&format!("item:{i}"));
        if tr.total() > 5 * MS {
            stale.push(i);
            durations.push(tr.total());
        }
    }
    UtdBatch {
        stale,
        durations,
        sim,
    }
}

fn utd_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("update-then-delete", seed, p);
    let delay = p_ms(p, "reader_delay");
    let chance = p.get("pause_chance") / 100.0;
    let write = p_ms(p, "db_write").max(MS);
    let ttl = p_ms(p, "ttl").max(MS);
    let trials = p.count("trials").max(1) as usize;
    let pause = Dist {
        base: 0,
        jitter: 300,
        tail_p: chance,
        tail: delay,
    };
    let mut b = utd_batch(seed, trials, pause, write, ttl);
    let frac = b.stale.len() as f64 / trials as f64;
    let mean_dur = if b.durations.is_empty() {
        0.0
    } else {
        b.durations.iter().sum::<Micros>() as f64 / b.durations.len() as f64
    };
    // The sweep: every reader pauses exactly `d`.
    let sweep_trials = 60;
    let delays: Vec<Micros> = [0, 5, 10, 15, 20, 25, 30, 40, 60, 100]
        .iter()
        .map(|&d| d * write / 20)
        .collect();
    let mut pts = Vec::new();
    for (i, &d) in delays.iter().enumerate() {
        let s = utd_batch(
            seeds::nth(seed, 1000 + i as u64),
            sweep_trials,
            Dist::fixed(d),
            write,
            ttl,
        );
        pts.push((ms(d), 100.0 * s.stale.len() as f64 / sweep_trials as f64));
    }
    let at_zero = pts.first().map_or(0.0, |p| p.1);
    let at_max = pts.last().map_or(0.0, |p| p.1);
    out.metric("stale trials", 100.0 * frac, "%");
    out.metric("stale count", b.stale.len() as f64, "trials");
    out.metric("mean stale duration", mean_dur / MS as f64, "ms");
    out.metric("stale with no delay", at_zero, "%");
    out.metric("stale with a long delay", at_max, "%");
    out.check(
        "the window is rare but real: some trials end stale, under 25%",
        frac > 0.0 && frac < 0.25,
        format!(
            "{} of {trials} trials ({:.1}%) cached the old value",
            b.stale.len(),
            100.0 * frac
        ),
    );
    out.check(
        "a stale value lives until its TTL (mean ≥ 90% of it)",
        !b.durations.is_empty() && mean_dur >= 0.9 * ttl as f64,
        format!(
            "mean stale duration {:.0} ms, TTL {:.0} ms",
            mean_dur / MS as f64,
            ms(ttl)
        ),
    );
    out.check(
        "the reader's delay opens the window: ≤ 5% stale with no delay, ≥ 80% with a delay far past the UPDATE",
        at_zero <= 5.0 && at_max >= 80.0,
        format!("{at_zero:.0}% at 0 ms, {at_max:.0}% at {:.0} ms", delays.last().map_or(0.0, |d| ms(*d))),
    );
    out.charts.push(
        Chart::line(
            "Stale trials vs reader delay",
            "reader delay (ms)",
            "% of trials stale",
        )
        .with(Series::new("every reader paused", pts)),
    );
    if let Some(&i) = b.stale.first() {
        let key = format!("item:{i}");
        let tr = b.sim.track_of(&key);
        if let Some(&at) = tr.landed.first() {
            b.sim.mark(i, at, "redis", "bad", format!("the paused reader's SET lands after the writer's DEL: the cache holds v1 while the DB has v2, for the rest of the {} ms TTL", ms(ttl)));
        }
        out.diagram = b.sim.take_diagram(i);
        out.note(format!("Trial {i} is drawn: its reader paused after reading v1 and wrote it back after the DEL."));
    }
    out.duration_us = b.sim.now();
    out.note(format!(
        "{} of {trials} trials ({:.1}%) ended with the old value cached, each for about {:.0} ms.",
        b.stale.len(),
        100.0 * frac,
        mean_dur / MS as f64
    ));
    out.note(format!("With every reader paused: {at_zero:.0}% stale at no delay, {at_max:.0}% at a delay of {:.0} ms.", delays.last().map_or(0.0, |d| ms(*d))));
    out
}

#[cfg(test)]
mod tests {
    use super::super::passes;
    use super::*;
    use crate::testing::run;

    #[test]
    fn delete_before_update() {
        passes(&DELETE_BEFORE_UPDATE);
        let o = run(&DELETE_BEFORE_UPDATE, 1, &[]);
        let w = o.metric_value("stale window").unwrap();
        assert!((1800.0..=2100.0).contains(&w), "window {w}");
        assert!(o.metric_value("stale reads after commit").unwrap() > 100.0);
        let d = o.diagram.unwrap();
        assert!(d.marks.iter().any(|m| m.tone == "bad"));
        assert!(d.steps.len() < 200, "{} steps", d.steps.len());
        // An UPDATE much faster than a SELECT closes the window.
        let o = run(
            &DELETE_BEFORE_UPDATE,
            1,
            &[("db_write", "1"), ("db_read", "40")],
        );
        assert!(!o.passed());
    }

    #[test]
    fn update_then_delete() {
        passes(&UPDATE_THEN_DELETE);
        let o = run(&UPDATE_THEN_DELETE, 2, &[]);
        let f = o.metric_value("stale trials").unwrap();
        assert!(f > 1.0 && f < 20.0, "{f}");
        // No pause: the window closes.
        let o = run(&UPDATE_THEN_DELETE, 2, &[("pause_chance", "0")]);
        assert_eq!(o.metric_value("stale count"), Some(0.0));
        assert!(!o.passed());
    }
}
