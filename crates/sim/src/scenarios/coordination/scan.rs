//! SCAN against KEYS: one KEYS over a large keyspace blocks every other client for its whole run; SCAN's cursor spreads the same work in small steps.
//!
//! Commands run one at a time in arrival order, each busy for what the
//! engine's CPU cost model (`redsim_engine::cost`) charges it: KEYS pays for
//! every key it examines and every key it replies, SCAN for its step's
//! keys only. The scenario keeps its own queue of arrivals so that the
//! diagram shows who waits; the busy times are the engine's.

use super::{bulk, ms, short};
use crate::kernel::{Dist, Kernel, Latencies, Link, Micros, Redis, MS, SEC};
use crate::outcome::Outcome;
use crate::outcome::{Chart, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::proto::resp::Frame;

pub const SCAN_VS_KEYS: Scenario = Scenario::new("scan-vs-keys", sk_run);

enum SEv {
    Get(u64),
    Admin,
    /// A command reaches the server (client, args as text, sent at).
    Arrive(usize, Vec<String>, Micros),
    /// The server is free: it runs the next queued command.
    Run,
    /// The reply reaches the client.
    Reply(usize, Frame, Micros),
}

struct SkRun {
    lat: Latencies,
    admin_took: Micros,
    admin_calls: u64,
    keys_listed: u64,
    longest_busy: Micros,
    diagram: Option<crate::outcome::Diagram>,
}

fn populate(redis: &mut Redis, n: u64) {
    let mut i = 0;
    while i < n {
        let mut a: Vec<Vec<u8>> = vec![b"MSET".to_vec()];
        for j in i..(i + 1_000).min(n) {
            a.push(format!("user:{j}").into_bytes());
            a.push(b"v".to_vec());
        }
        let r = redis.exec_bytes(0, "loader", &a);
        debug_assert!(!r.is_error());
        i += 1_000;
    }
}

/// One run of the workload from virtual time `t0` on a populated node
/// (both runs share it: they only read).
fn sk_once(p: &Params, seed: u64, use_scan: bool, redis: &mut Redis, t0: Micros) -> SkRun {
    let n = p.count("keys").max(1);
    let count = p.count("count").max(1).to_string();
    let rate = p.get("rate").max(1.0);
    let admin_at = t0 + 100 * MS;
    let mut k: Kernel<SEv> = Kernel::new(seed);
    let link = Link::new(Dist::jittered(200, 100));
    let lanes = [
        k.rec.lane("client 1", "client"),
        k.rec.lane("client 2", "client"),
    ];
    let admin = k.rec.lane("admin job", "client");
    let rl = k.rec.lane("redis", "redis");
    k.rec.step_cap = 90;
    let mut queue: std::collections::VecDeque<(usize, Vec<String>, Micros)> = Default::default();
    let mut busy = false;
    let mut lat = Latencies::default();
    let mut admin_done: Option<Micros> = None;
    let mut admin_calls = 0;
    let mut keys_listed = 0;
    let mut longest_busy = 0;
    k.at(t0, SEv::Get(0));
    k.at(admin_at, SEv::Admin);
    let rec_window = |t: Micros| t + 2 * MS >= admin_at && t <= admin_at + 30 * MS;
    // Client 0 and 1 send GETs; index 2 is the admin job.
    while let Some(ev) = k.next(u64::MAX) {
        let now = k.now();
        match ev {
            SEv::Get(i) => {
                if admin_done.is_some_and(|d| now > d + 100 * MS) {
                    continue;
                }
                let c = (i % 2) as usize;
                let key = format!("user:{}", k.rng.u64(0..n));
                let d = link.delay(&mut k.rng).unwrap_or(0);
                if rec_window(now) {
                    k.rec.msg(now, now + d, lanes[c], rl, format!("GET {key}"));
                }
                k.after(d, SEv::Arrive(c, vec!["GET".into(), key], now));
                let gap = (-(1.0 - k.rng.f64()).ln() / rate * SEC as f64) as Micros;
                k.after(gap.max(1), SEv::Get(i + 1));
            }
            SEv::Admin => {
                let cmd: Vec<String> = if use_scan {
                    vec!["SCAN".into(), "0".into(), "COUNT".into(), count.clone()]
                } else {
                    vec!["KEYS".into(), "*".into()]
                };
                let d = link.delay(&mut k.rng).unwrap_or(0);
                k.rec.msg(now, now + d, admin, rl, cmd.join(" "));
                k.after(d, SEv::Arrive(2, cmd, now));
            }
            SEv::Arrive(c, cmd, sent) => {
                // Single-threaded: commands wait in arrival order for whatever runs now.
                queue.push_back((c, cmd, sent));
                if !busy {
                    busy = true;
                    k.after(0, SEv::Run);
                }
            }
            SEv::Run => {
                let Some((c, cmd, sent)) = queue.pop_front() else {
                    busy = false;
                    continue;
                };
                let a: Vec<&str> = cmd.iter().map(|s| s.as_str()).collect();
                let who = if c == 2 { "admin" } else { "client" };
                // The engine runs it when it is free and its clock moves by
                // the command's modelled cost.
                let start = redis.engine().now_us().max(now);
                let r = redis.exec(now, who, &a);
                let cost = redis.engine().now_us().max(start) - start;
                let replied = match (a.first().copied(), &r) {
                    (Some("KEYS"), Frame::Array(v)) => v.len() as u64,
                    (Some("SCAN"), Frame::Array(v)) => match v.get(1) {
                        Some(Frame::Array(ks)) => ks.len() as u64,
                        _ => 0,
                    },
                    _ => 0,
                };
                if c == 2 {
                    keys_listed += replied;
                }
                let finish = now + cost.max(1);
                longest_busy = longest_busy.max(cost);
                k.at(finish, SEv::Run);
                if c == 2 && (a.first() == Some(&"KEYS") || admin_calls < 2) {
                    k.rec.local(
                        now,
                        finish,
                        rl,
                        format!(
                            "{} busy {:.1} ms",
                            a.first().copied().unwrap_or(""),
                            ms(cost)
                        ),
                    );
                }
                let d = link.delay(&mut k.rng).unwrap_or(0);
                if c == 2 {
                    admin_calls += 1;
                }
                k.at(finish + d, SEv::Reply(c, r, sent));
            }
            SEv::Reply(c, r, sent) => {
                if c == 2 {
                    let next = match &r {
                        Frame::Array(v) if use_scan => {
                            v.first().and_then(bulk).filter(|cur| cur != "0")
                        }
                        _ => None,
                    };
                    match next {
                        Some(cursor) => {
                            let d = link.delay(&mut k.rng).unwrap_or(0);
                            k.after(
                                d,
                                SEv::Arrive(
                                    2,
                                    vec!["SCAN".into(), cursor, "COUNT".into(), count.clone()],
                                    sent,
                                ),
                            );
                        }
                        None => {
                            admin_done = Some(now);
                            k.rec
                                .msg(now, now, rl, admin, format!("done: {keys_listed} keys"));
                        }
                    }
                } else {
                    let took = now - sent;
                    lat.record(sent - t0, took);
                    if rec_window(sent) {
                        if took > 5 * MS {
                            k.rec
                                .msg(
                                    now,
                                    now,
                                    rl,
                                    lanes[c],
                                    format!("{} after {:.0} ms", short(&r), ms(took)),
                                )
                                .failed();
                        } else {
                            k.rec.msg(now, now, rl, lanes[c], short(&r));
                        }
                    }
                }
            }
        }
        // Stop once the admin job is done and the clients have had 100 ms more.
        if admin_done.is_some_and(|d| now > d + 100 * MS) || now > 600 * SEC {
            break;
        }
    }
    let admin_took = admin_done.map_or(0, |d| d - admin_at);
    if !use_scan {
        k.rec.mark(admin_at + MS, rl, "bad", format!("KEYS * holds the only thread for {:.0} ms: every GET sent meanwhile waits for all of it.", ms(longest_busy)));
    } else {
        k.rec.mark(
            admin_at + MS,
            rl,
            "good",
            format!(
                "Each SCAN step holds the thread for about {:.2} ms; GETs run in between.",
                ms(longest_busy)
            ),
        );
    }
    SkRun {
        lat,
        admin_took,
        admin_calls,
        keys_listed,
        longest_busy,
        diagram: Some(k.rec.take_diagram()),
    }
}

fn sk_run(p: &Params, seed: u64) -> Outcome {
    let n = p.count("keys").max(1);
    let mut redis = Redis::new(seed, &[]);
    populate(&mut redis, n);
    let keys = sk_once(p, seed, false, &mut redis, 0);
    let t0 = redis.engine().now_us() + SEC;
    let scan = sk_once(p, seed, true, &mut redis, t0);
    let mut out = Outcome::new("scan-vs-keys", seed, p);
    out.duration_us = keys.admin_took.max(scan.admin_took) + 300 * MS;
    let p99k = keys.lat.quantile(0.99);
    let p99s = scan.lat.quantile(0.99);
    out.metric("KEYS: other clients' p99", ms(p99k), "ms")
        .metric("KEYS: other clients' max", ms(keys.lat.max()), "ms")
        .metric("SCAN: other clients' p99", ms(p99s), "ms")
        .metric("SCAN: other clients' max", ms(scan.lat.max()), "ms")
        .metric("KEYS: one command's busy time", ms(keys.longest_busy), "ms")
        .metric(
            "SCAN: longest step's busy time",
            ms(scan.longest_busy),
            "ms",
        )
        .metric("KEYS: admin job took", ms(keys.admin_took), "ms")
        .metric("SCAN: admin job took", ms(scan.admin_took), "ms")
        .metric("SCAN calls", scan.admin_calls as f64, "calls");
    out.check(
        "KEYS stalls other clients for about its whole run",
        keys.lat.max() * 10 >= keys.longest_busy * 9 && keys.keys_listed == n,
        format!(
            "max GET latency {:.1} ms, KEYS busy {:.1} ms, {} keys listed",
            ms(keys.lat.max()),
            ms(keys.longest_busy),
            keys.keys_listed
        ),
    );
    out.check(
        "SCAN lists every key while other clients' worst latency stays under a tenth of KEYS' stall",
        scan.keys_listed >= n && scan.lat.max() * 10 < keys.longest_busy,
        format!("{} keys listed (SCAN may repeat some), max GET latency {:.2} ms", scan.keys_listed, ms(scan.lat.max())),
    );
    let window = 10 * MS;
    out.charts.push(
        Chart::line(
            "Other clients' worst latency per 10 ms",
            "virtual time (s)",
            "ms",
        )
        .with(scan_series("KEYS *", &keys.lat, window))
        .with(scan_series("SCAN", &scan.lat, window)),
    );
    out.charts.push(
        Chart::bars("Other clients' latency", "ms", &["p99", "max"])
            .with(Series::new(
                "KEYS *",
                vec![(0.0, ms(p99k)), (1.0, ms(keys.lat.max()))],
            ))
            .with(Series::new(
                "SCAN",
                vec![(0.0, ms(p99s)), (1.0, ms(scan.lat.max()))],
            )),
    );
    out.note(format!(
        "{n} keys: KEYS * held the thread {:.0} ms (GET max {:.0} ms); SCAN COUNT {} took {} calls over {:.0} ms with GET max {:.2} ms.",
        ms(keys.longest_busy), ms(keys.lat.max()), p.count("count"), scan.admin_calls, ms(scan.admin_took), ms(scan.lat.max())
    ));
    out.diagram = keys.diagram;
    out
}

fn scan_series(name: &str, l: &Latencies, window: Micros) -> Series {
    l.quantile_series(name, 1.0, window)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{all_pass, metric, run as run_with};

    #[test]
    fn scan_vs_keys_defaults_pass_for_three_seeds() {
        for o in all_pass(&SCAN_VS_KEYS, &[("keys", "20000")]) {
            // The engine's cost model: 20k keys examined (0.2 µs) and
            // replied (0.325 µs and their bytes).
            let busy = metric(&o, "KEYS: one command's busy time");
            assert!((10.0..=11.5).contains(&busy), "busy {busy}");
            assert!(metric(&o, "KEYS: other clients' max") >= busy * 0.9);
            assert!(metric(&o, "SCAN: other clients' max") < 2.0);
            assert!(metric(&o, "SCAN: admin job took") > metric(&o, "KEYS: admin job took"));
        }
    }

    #[test]
    fn scan_vs_keys_runs_at_its_default_keyspace() {
        let o = run_with(&SCAN_VS_KEYS, 7, &[]);
        assert!(o.passed(), "{:?}", o.checks);
        // 50 000 keys × 0.53 µs: the GETs behind it wait about 27 ms.
        assert!(metric(&o, "KEYS: other clients' max") > 25.0);
    }
}
