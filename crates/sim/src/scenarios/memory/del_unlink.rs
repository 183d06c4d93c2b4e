//! DEL against UNLINK on a big hash: the synchronous free stalls every client queued behind it; the lazy one frees in the background.

use crate::kernel::{Dist, Kernel, Latencies, Micros, Redis, MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;

pub const DEL_VS_UNLINK: Scenario = Scenario::new("del-vs-unlink", del_run);

/// When the admin deletes the hash, and how long the readers run.
const DEL_AT: Micros = 500 * MS;
const DEL_RUN_END: Micros = 1500 * MS;
/// One-way network delay between clients and Redis.
const DEL_NET: Dist = Dist::jittered(100, 50);

#[derive(Clone, Copy, Debug)]
enum DelEv {
    /// Reader `c` sends a GET.
    Send(usize),
    /// A GET reaches Redis: reader, send time.
    Arrive(usize, Micros),
    /// The admin's delete reaches Redis.
    Delete,
}

struct DelRun {
    lat: Latencies,
    /// How long the delete command kept Redis busy (µs), as its reply time shows.
    busy: Micros,
}

fn del_variant(seed: u64, cmd: &str, p: &Params, diagram: bool, k: &mut Kernel<DelEv>) -> DelRun {
    let fields = p.count("fields").max(1);
    let rate = p.get("rate").max(1.0);
    let clients = p.count("clients").max(1) as usize;
    let mut config: Vec<(&str, &str)> = Vec::new();
    if p.on("lazy-user-del") {
        config.push(("lazyfree-lazy-user-del", "yes"));
    }
    let mut r = Redis::new(seed, &config);
    // The big hash, 1000 fields per HSET (one allocation per argument).
    let mut next = 0u64;
    while next < fields {
        let n = (fields - next).min(1000);
        let mut args: Vec<Vec<u8>> = Vec::with_capacity(2 + 2 * n as usize);
        args.push(b"HSET".to_vec());
        args.push(b"big".to_vec());
        for f in next..next + n {
            args.push(format!("field:{f}").into_bytes());
            args.push(b"value".to_vec());
        }
        r.exec_bytes(0, "loader", &args);
        next += n;
    }
    for i in 0..100 {
        r.exec(0, "loader", &["SET", &format!("k:{i}"), "v"]);
    }
    // Loading kept the engine busy (its CPU cost): the run starts after it.
    let t0 = r.engine().now_us();
    let period = ((clients as f64 * SEC as f64 / rate) as Micros).max(1);
    for c in 0..clients {
        let phase = k.rng.u64(0..period);
        k.at(t0 + phase, DelEv::Send(c));
    }
    let admin_net = DEL_NET.sample(&mut k.rng);
    k.at(t0 + DEL_AT + admin_net, DelEv::Delete);
    let (reader, admin, redis) = if diagram {
        (
            k.rec.lane("reader 0", "client"),
            k.rec.lane("admin", "client"),
            k.rec.lane("redis", "redis"),
        )
    } else {
        (0, 0, 0)
    };
    // The diagram shows reader 0 from a little before the delete until
    // its first reply after the stall.
    let mut shown_after = false;
    let mut run = DelRun {
        lat: Latencies::default(),
        busy: 0,
    };
    // When the delete's reply left: the first GET sent after it closes the diagram.
    let mut freed_at: Option<Micros> = None;
    while let Some(ev) = k.next(t0 + DEL_RUN_END) {
        let now = k.now();
        match ev {
            DelEv::Send(c) => {
                let d = DEL_NET.sample(&mut k.rng);
                k.after(d, DelEv::Arrive(c, now));
                k.after(period, DelEv::Send(c));
            }
            DelEv::Arrive(c, sent) => {
                let key = format!("k:{}", k.rng.u32(0..100));
                r.exec(now, &format!("reader{c}"), &["GET", &key]);
                // A stall (the free, a command's CPU cost) moves the
                // engine's clock: a GET queued behind it runs when it ends.
                let done = r.engine().now_us().max(now);
                let back = done + DEL_NET.sample(&mut k.rng);
                run.lat.record(sent - t0, back - sent);
                let window = (t0 + DEL_AT).saturating_sub(3 * MS)..t0 + DEL_AT + 4 * MS;
                let show = diagram
                    && c == 0
                    && (window.contains(&sent)
                        || (freed_at.is_some_and(|d| sent >= d) && !shown_after));
                if show {
                    if !window.contains(&sent) {
                        shown_after = true;
                    }
                    k.rec.msg(sent, now, reader, redis, format!("GET {key}"));
                    let ms = (back - sent) as f64 / MS as f64;
                    k.rec
                        .msg(done, back, redis, reader, format!("\"v\" after {ms:.1} ms"));
                }
            }
            DelEv::Delete => {
                let start = r.engine().now_us().max(now);
                r.exec(now, "admin", &[cmd, "big"]);
                let done = r.engine().now_us().max(start);
                run.busy = done - start;
                freed_at = Some(done);
                if diagram {
                    k.rec
                        .msg(t0 + DEL_AT, now, admin, redis, format!("{cmd} big"));
                    if run.busy > 0 {
                        k.rec
                            .local(start, done, redis, format!("frees {fields} fields"));
                        k.rec.mark(
                            start,
                            redis,
                            "bad",
                            format!(
                                "{cmd} frees the hash on the main thread: for {:.1} ms no other command runs, and every GET that arrives waits.",
                                run.busy as f64 / MS as f64
                            ),
                        );
                    } else {
                        k.rec.mark(
                            start,
                            redis,
                            "good",
                            format!("{cmd} only unlinks the key; the fields are freed in the background."),
                        );
                    }
                    k.rec
                        .msg(done, done + admin_net, redis, admin, "(integer) 1");
                }
            }
        }
    }
    run
}

fn del_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("del-vs-unlink", seed, p);
    let mut kd: Kernel<DelEv> = Kernel::new(seed);
    let del = del_variant(seed, "DEL", p, true, &mut kd);
    let mut ku: Kernel<DelEv> = Kernel::new(seed);
    let unlink = del_variant(seed, "UNLINK", p, false, &mut ku);
    out.duration_us = DEL_RUN_END;
    let ms = |us: Micros| (us as f64 / 10.0).round() / 100.0;
    for (name, r) in [("DEL", &del), ("UNLINK", &unlink)] {
        out.metric(
            &format!("p50 latency, {name}"),
            ms(r.lat.quantile(0.5)),
            "ms",
        );
        out.metric(
            &format!("p99 latency, {name}"),
            ms(r.lat.quantile(0.99)),
            "ms",
        );
        out.metric(&format!("max latency, {name}"), ms(r.lat.max()), "ms");
        out.metric(&format!("{name} kept Redis busy"), ms(r.busy), "ms");
    }
    out.charts.push(
        Chart::line(
            "Worst GET latency per 10 ms (other clients)",
            "time (s)",
            "latency (ms)",
        )
        .with(del.lat.quantile_series("DEL", 1.0, 10 * MS))
        .with(unlink.lat.quantile_series("UNLINK", 1.0, 10 * MS)),
    );
    let summary = |l: &Latencies| {
        vec![
            (0.0, ms(l.quantile(0.5))),
            (1.0, ms(l.quantile(0.99))),
            (2.0, ms(l.max())),
        ]
    };
    out.charts.push(
        Chart::bars("Latency other clients see", "ms", &["p50", "p99", "max"])
            .with(Series::new("DEL", summary(&del.lat)))
            .with(Series::new("UNLINK", summary(&unlink.lat))),
    );
    out.diagram = Some(kd.rec.take_diagram());
    let (dmax, umax) = (del.lat.max(), unlink.lat.max());
    if p.on("lazy-user-del") {
        out.check(
            "With lazyfree-lazy-user-del yes, DEL is as harmless as UNLINK.",
            dmax <= 2 * umax + MS,
            format!(
                "worst GET latency: {:.2} ms after DEL, {:.2} ms after UNLINK",
                dmax as f64 / MS as f64,
                umax as f64 / MS as f64
            ),
        );
    } else {
        out.check(
            "DEL of a big hash stalls other clients; UNLINK does not.",
            dmax >= 10 * umax && umax < 5 * MS,
            format!(
                "worst GET latency: {:.2} ms after DEL, {:.2} ms after UNLINK",
                dmax as f64 / MS as f64,
                umax as f64 / MS as f64
            ),
        );
    }
    out.note(format!(
        "DEL kept Redis busy for {:.1} ms freeing {} fields; the worst GET meanwhile took {:.1} ms.",
        del.busy as f64 / MS as f64,
        p.count("fields"),
        dmax as f64 / MS as f64
    ));
    out.note(format!(
        "After UNLINK the worst GET took {:.2} ms.",
        umax as f64 / MS as f64
    ));
    out
}

#[cfg(test)]
mod tests {

    use crate::testing::{all_pass, assert_passed as passes, metric as m, run};

    #[test]
    fn del_stalls_readers_and_unlink_does_not() {
        for o in all_pass("del-vs-unlink", &[("fields", "100000")]) {
            let busy = m(&o, "DEL kept Redis busy");
            assert!(busy > 5.0, "DEL busy {busy} ms");
            // The GET that arrived first after the delete waited nearly all of it.
            assert!(m(&o, "max latency, DEL") >= busy - 1.0, "{:?}", o.metrics);
            assert_eq!(m(&o, "UNLINK kept Redis busy"), 0.0);
            assert!(m(&o, "max latency, UNLINK") < 1.0);
            assert!(m(&o, "p50 latency, DEL") < 1.0);
            let d = o.diagram.as_ref().unwrap();
            assert!(d.marks.iter().any(|mk| mk.tone == "bad"));
            assert!(d.steps.len() < 60, "{} steps", d.steps.len());
        }
        let o = run(
            "del-vs-unlink",
            1,
            &[("fields", "100000"), ("lazy-user-del", "on")],
        );
        passes(&o);
        assert_eq!(m(&o, "DEL kept Redis busy"), 0.0);
    }
}
