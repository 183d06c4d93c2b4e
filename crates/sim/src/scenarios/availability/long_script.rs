//! A long Lua script against everyone else: Redis serves no one while it runs, answers BUSY past `busy-reply-threshold` until the script ends or SCRIPT KILL stops it, and work split into short scripts never gets there.
//!
//! The engine does the timing (`script::busy`): a script costs virtual
//! time by its interpreter steps, the main thread is held up to the
//! threshold, and from then on every other command gets BUSY. The scenario
//! only sends the commands and reads the replies and the clock.

use crate::kernel::{Dist, Kernel, Latencies, Micros, Redis, MS};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::proto::resp::Frame;

pub const LONG_SCRIPT: Scenario = Scenario::new("long-script", long_run);

/// When the job sends its work.
const START: Micros = 200 * MS;
/// How long the readers go on after the work should be done.
const TAIL: Micros = 300 * MS;
/// One-way network delay between clients and Redis.
const NET: Dist = Dist::jittered(100, 50);
/// A loop whose length sets the script's running time; it writes first
/// when asked (which makes it unkillable).
const BODY: &str = "local n = 0 for i = 1, tonumber(ARGV[1]) do n = n + i end return n";
const BODY_WRITES: &str =
    "redis.call('SET', 'job:started', '1') local n = 0 for i = 1, tonumber(ARGV[1]) do n = n + i end return n";
/// Bins of the charts.
const BIN: Micros = 10 * MS;

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// Reader `c` sends a GET.
    Send(usize),
    /// A GET reaches Redis: reader, send time.
    Arrive(usize, Micros),
    /// The job's next script reaches Redis.
    Script,
    /// The admin's SCRIPT KILL reaches Redis.
    Kill,
}

/// What one way of doing the work came to.
#[derive(Default)]
struct Run {
    lat: Latencies,
    /// BUSY replies to readers, by send time.
    busy_at: Vec<Micros>,
    /// The first and last instant a reader got BUSY.
    busy_from: Option<Micros>,
    busy_to: Micros,
    /// When the job had its last reply, and whether it was an error.
    done_at: Micros,
    job_error: Option<String>,
    /// The admin's reply to SCRIPT KILL.
    kill_reply: Option<String>,
}

/// Loop iterations per millisecond of script time, measured on a scratch
/// engine so it follows the engine's step costs.
fn iterations_per_ms(seed: u64) -> f64 {
    let mut r = Redis::new(seed, &[]);
    let n = 20_000u64;
    let t0 = r.engine().now_us();
    r.exec(0, "calibrate", &["EVAL", BODY, "0", &n.to_string()]);
    let took = r.engine().now_us().saturating_sub(t0).max(1);
    n as f64 * 1000.0 / took as f64
}

/// One way of doing the work: in `chunks` scripts, one after the other,
/// with the admin's SCRIPT KILL `kill_at` ms after the start (0: none).
fn variant(
    seed: u64,
    p: &Params,
    chunks: u64,
    kill_at: u64,
    diagram: bool,
    k: &mut Kernel<Ev>,
) -> Run {
    let threshold = p.count("threshold").max(1);
    let script_ms = p.count("script-ms").max(1);
    let rate = p.get("rate").max(1.0);
    let clients = p.count("clients").max(1) as usize;
    let body = if p.on("writes") { BODY_WRITES } else { BODY };
    let per_ms = iterations_per_ms(seed);
    let iterations = ((script_ms as f64 * per_ms) / chunks as f64)
        .round()
        .max(1.0) as u64;
    let threshold_s = threshold.to_string();
    let mut r = Redis::new(seed, &[("busy-reply-threshold", &threshold_s)]);
    for i in 0..100 {
        r.exec(0, "loader", &["SET", &format!("k:{i}"), "v"]);
    }
    let job = r.connect("job");
    let period = ((clients as f64 * 1e6 / rate) as Micros).max(1);
    for c in 0..clients {
        let phase = k.rng.u64(0..period);
        k.at(phase, Ev::Send(c));
    }
    let job_net = NET.sample(&mut k.rng);
    k.at(START + job_net, Ev::Script);
    if kill_at > 0 {
        k.at(START + kill_at * MS, Ev::Kill);
    }
    let (mut reader, mut job_lane, mut admin, mut redis) = (0, 0, 0, 0);
    if diagram {
        reader = k.rec.lane("reader 0", "client");
        job_lane = k.rec.lane("job", "client");
        if kill_at > 0 {
            admin = k.rec.lane("admin", "client");
        }
        redis = k.rec.lane("redis", "redis");
    }
    let end = START + script_ms * MS + TAIL;
    let mut run = Run::default();
    let mut sent_scripts = 0u64;
    // The script in flight: when it reached Redis, and when Redis would free up.
    let mut in_flight: Option<Micros> = None;
    let mut shown = 0usize;
    while let Some(ev) = k.next(end) {
        let now = k.now();
        match ev {
            Ev::Send(c) => {
                let d = NET.sample(&mut k.rng);
                k.after(d, Ev::Arrive(c, now));
                k.after(period, Ev::Send(c));
            }
            Ev::Arrive(c, sent) => {
                let key = format!("k:{}", k.rng.u32(0..100));
                let reply = r.exec(now, &format!("reader{c}"), &["GET", &key]);
                // A GET queued behind the script runs when Redis looks up.
                let done = r.engine().now_us().max(now);
                let back = done + NET.sample(&mut k.rng);
                run.lat.record(sent, back - sent);
                let busy = matches!(&reply, Frame::Error(e) if e.starts_with("BUSY"));
                if busy {
                    run.busy_at.push(sent);
                    run.busy_from.get_or_insert(done);
                    run.busy_to = done;
                }
                let near = in_flight.is_some() || (sent + 5 * MS >= START && sent < START + MS);
                if diagram && c == 0 && near && shown < 14 {
                    shown += 1;
                    k.rec.msg(sent, now, reader, redis, format!("GET {key}"));
                    let ms = (back - sent) as f64 / MS as f64;
                    let label = if busy {
                        format!("BUSY after {ms:.0} ms")
                    } else {
                        format!("\"v\" after {ms:.1} ms")
                    };
                    let m = k.rec.msg(done, back, redis, reader, label);
                    if busy {
                        m.failed();
                    }
                }
            }
            Ev::Script => {
                sent_scripts += 1;
                let args: Vec<Vec<u8>> = ["EVAL", body, "0", &iterations.to_string()]
                    .iter()
                    .map(|a| a.as_bytes().to_vec())
                    .collect();
                let start = r.engine().now_us().max(now);
                let reply = r.submit(now, job, &args);
                if diagram && sent_scripts <= 3 {
                    k.rec.msg(
                        now - job_net,
                        now,
                        job_lane,
                        redis,
                        format!("EVAL <loop of {iterations}>"),
                    );
                }
                match reply {
                    Some(f) => {
                        // Within the threshold: the reply leaves when it ends.
                        let done = r.engine().now_us().max(start);
                        job_reply(&mut run, &f, done);
                        if diagram && sent_scripts <= 3 {
                            k.rec
                                .local(start, done, redis, "runs the script; serves no one else");
                        }
                        if sent_scripts < chunks {
                            k.at(done + 2 * job_net, Ev::Script);
                        }
                    }
                    None => {
                        in_flight = Some(start);
                        let at = start + threshold * MS;
                        if diagram {
                            k.rec
                                .local(start, at, redis, "runs the script; serves no one else");
                            k.rec.mark(
                                at,
                                redis,
                                "bad",
                                format!(
                                    "busy-reply-threshold ({threshold} ms) passed: the script goes on, and every other client now gets BUSY."
                                ),
                            );
                        }
                    }
                }
            }
            Ev::Kill => {
                let reply = r.exec(now, "admin", &["SCRIPT", "KILL"]);
                let done = r.engine().now_us().max(now);
                let text = match &reply {
                    Frame::Error(e) => e.split(' ').next().unwrap_or("").to_string(),
                    _ => "OK".to_string(),
                };
                if diagram {
                    k.rec.msg(now - job_net, now, admin, redis, "SCRIPT KILL");
                    let m = k.rec.msg(done, done + job_net, redis, admin, text.clone());
                    if text != "OK" {
                        m.failed();
                    }
                }
                run.kill_reply = Some(text);
            }
        }
        for (id, f) in r.take_unblocked(now) {
            if id == job {
                let done = r.engine().now_us();
                job_reply(&mut run, &f, done);
                if diagram {
                    let label = match &f {
                        Frame::Error(_) => "killed".to_string(),
                        _ => "script's reply".to_string(),
                    };
                    let from = in_flight.unwrap_or(done);
                    k.rec.local(
                        from + threshold * MS,
                        done,
                        redis,
                        "still running: BUSY to others",
                    );
                    let m = k.rec.msg(done, done + job_net, redis, job_lane, label);
                    if matches!(f, Frame::Error(_)) {
                        m.failed();
                    }
                }
                in_flight = None;
            }
        }
    }
    run
}

fn job_reply(run: &mut Run, f: &Frame, done: Micros) {
    run.done_at = done;
    if let Frame::Error(e) = f {
        run.job_error = Some(e.clone());
    }
}

/// BUSY replies per bin, by send time.
fn busy_series(name: &str, at: &[Micros], end: Micros) -> Series {
    let bins = (end / BIN + 1) as usize;
    let mut counts = vec![0.0; bins];
    for &t in at {
        counts[(t / BIN) as usize] += 1.0;
    }
    let points = counts
        .into_iter()
        .enumerate()
        .map(|(i, n)| ((i as u64 * BIN) as f64 / 1e6, n))
        .collect();
    Series::new(name, points)
}

fn long_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("long-script", seed, p);
    let threshold = p.count("threshold").max(1);
    let script_ms = p.count("script-ms").max(1);
    let chunks = p.count("chunks").max(1);
    let mut k1: Kernel<Ev> = Kernel::new(seed);
    let one = variant(seed, p, 1, p.count("kill-at"), true, &mut k1);
    let mut k2: Kernel<Ev> = Kernel::new(seed);
    let split = variant(seed, p, chunks, 0, false, &mut k2);
    let end = START + script_ms * MS + TAIL;
    out.duration_us = end;
    let ms = |us: Micros| (us as f64 / 10.0).round() / 100.0;
    for (name, r) in [("one script", &one), ("split", &split)] {
        out.metric(
            &format!("BUSY replies, {name}"),
            r.busy_at.len() as f64,
            "replies",
        );
        out.metric(&format!("max latency, {name}"), ms(r.lat.max()), "ms");
        out.metric(
            &format!("p99 latency, {name}"),
            ms(r.lat.quantile(0.99)),
            "ms",
        );
        out.metric(
            &format!("work done after, {name}"),
            ms(r.done_at.saturating_sub(START)),
            "ms",
        );
    }
    let window = one
        .busy_from
        .map_or(0, |from| one.busy_to.saturating_sub(from));
    out.metric("BUSY window, one script", ms(window), "ms");
    out.charts.push(
        Chart::line(
            "BUSY replies per 10 ms (by send time)",
            "time (s)",
            "replies",
        )
        .with(busy_series("one script", &one.busy_at, end))
        .with(busy_series("split", &split.busy_at, end)),
    );
    out.charts.push(
        Chart::line("Worst GET latency per 10 ms", "time (s)", "latency (ms)")
            .with(one.lat.quantile_series("one script", 1.0, BIN))
            .with(split.lat.quantile_series("split", 1.0, BIN)),
    );
    out.diagram = Some(k1.rec.take_diagram());

    let over = script_ms > threshold;
    let first_busy = one.busy_from.map_or(0, |t| t.saturating_sub(START));
    if over {
        out.check(
            "A script past busy-reply-threshold holds everyone up to the threshold, then they get BUSY.",
            !one.busy_at.is_empty() && first_busy + 2 * MS >= threshold * MS,
            format!(
                "{} BUSY replies, the first {:.1} ms after the script started (threshold {threshold} ms)",
                one.busy_at.len(),
                ms(first_busy)
            ),
        );
    } else {
        out.check(
            "A script within busy-reply-threshold only delays the others, without BUSY.",
            one.busy_at.is_empty(),
            format!("{} BUSY replies", one.busy_at.len()),
        );
    }
    let chunk_ms = script_ms as f64 / chunks as f64;
    out.check(
        "Split into scripts shorter than the threshold, no one gets BUSY and the worst wait is about one script.",
        split.busy_at.is_empty() && (split.lat.max() as f64) < (chunk_ms + 3.0) * MS as f64,
        format!(
            "{} BUSY replies; worst GET {:.1} ms with scripts of {chunk_ms:.1} ms",
            split.busy_at.len(),
            ms(split.lat.max())
        ),
    );
    let kill_at = p.count("kill-at");
    if kill_at > 0 && over && kill_at < script_ms {
        if p.on("writes") {
            out.check(
                "SCRIPT KILL cannot stop a script that has written: UNKILLABLE, and BUSY lasts until it ends.",
                one.kill_reply.as_deref() == Some("UNKILLABLE") && one.job_error.is_none(),
                format!(
                    "SCRIPT KILL answered {}; the script ended {:.0} ms after it started",
                    one.kill_reply.as_deref().unwrap_or("nothing"),
                    ms(one.done_at.saturating_sub(START))
                ),
            );
        } else {
            let stopped = one.done_at.saturating_sub(START) <= (kill_at + 2) * MS;
            out.check(
                "SCRIPT KILL stops a script that has not written: BUSY ends, and its caller gets an error.",
                one.kill_reply.as_deref() == Some("OK") && one.job_error.is_some() && stopped,
                format!(
                    "SCRIPT KILL answered {}; the job got {}",
                    one.kill_reply.as_deref().unwrap_or("nothing"),
                    one.job_error.as_deref().unwrap_or("its result")
                ),
            );
        }
    }
    out.note(format!(
        "One script of {script_ms} ms with busy-reply-threshold {threshold} ms: {} GETs got BUSY over {:.0} ms, and the worst GET waited {:.1} ms.",
        one.busy_at.len(),
        ms(window),
        ms(one.lat.max())
    ));
    out.note(format!(
        "Split into {chunks} scripts of {chunk_ms:.1} ms, the worst GET waited {:.1} ms and none got BUSY.",
        ms(split.lat.max())
    ));
    if one.job_error.is_some() {
        out.note("The job's script was killed: its caller got \"Script killed by user with SCRIPT KILL...\".");
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::testing::{all_pass, failed, metric as m, run};

    #[test]
    fn a_long_script_makes_everyone_busy_and_splitting_it_does_not() {
        for o in all_pass("long-script", &[]) {
            assert!(m(&o, "BUSY replies, one script") > 50.0, "{:?}", o.metrics);
            assert_eq!(m(&o, "BUSY replies, split"), 0.0);
            // Busy from the threshold until the script's end.
            let window = m(&o, "BUSY window, one script");
            assert!((350.0..=420.0).contains(&window), "{window}");
            assert!(m(&o, "max latency, one script") >= 199.0);
            assert!(m(&o, "max latency, split") < 35.0);
            let d = o.diagram.as_ref().unwrap();
            assert!(d.marks.iter().any(|mk| mk.tone == "bad"));
        }
    }

    #[test]
    fn the_split_check_fails_without_splitting() {
        let o = run("long-script", 1, &[("chunks", "1")]);
        assert!(failed(&o, "Split into scripts"));
    }

    #[test]
    fn script_kill_stops_a_reader_but_not_a_writer() {
        let o = run("long-script", 1, &[("kill-at", "300")]);
        assert!(o.passed(), "{:?}", o.checks);
        assert!(m(&o, "work done after, one script") <= 302.0);
        let o = run("long-script", 1, &[("kill-at", "300"), ("writes", "on")]);
        assert!(o.passed(), "{:?}", o.checks);
        assert!(m(&o, "work done after, one script") >= 599.0);
    }
}
