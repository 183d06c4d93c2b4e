//! Connection pools: exhaustion under a slow dependency, blocking commands that hold connections, and retried INCRs that count twice.

use super::{ms, run_world, us};
use crate::kernel::{reply_text, Dist, Kernel, Latencies, Meter, Micros, Redis, MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::world::{Config, KeyDist, LoadGen, Warm};
use redsim_engine::{ClientId, Frame};
use std::collections::BTreeMap;

pub const CONNECTION_POOL: Scenario = Scenario::new("connection-pool", connection_pool_run);

fn connection_pool_run(p: &Params, seed: u64) -> Outcome {
    match p.choice("case") {
        0 => pool_exhaustion(p, seed),
        1 => pool_blocking(p, seed),
        _ => retry_incr(p, seed),
    }
}

/// The pool's size: `pool_size`, or go-redis' default when it is 0 (10
/// connections per GOMAXPROCS, `PoolSize: 10 * runtime.GOMAXPROCS(0)`).
fn pool_size(p: &Params) -> u64 {
    match p.count("pool_size") {
        0 => 10 * p.count("gomaxprocs").max(1),
        n => n,
    }
}

/// How long a request waits for a connection: go-redis' `PoolTimeout`,
/// cut short by the request's context deadline when it has one.
fn wait_limit(p: &Params) -> u64 {
    let pool = us(p.get("pool_timeout_ms")).max(1);
    match us(p.get("deadline_ms")) {
        0 => pool,
        d => pool.min(d),
    }
}

fn exhaustion_cfg(p: &Params) -> Config {
    let dur = 1500 * MS;
    Config {
        pods: 1,
        duration: dur,
        window: 50 * MS,
        // A slow round trip (1 ms each way: a busy Redis, big values) so
        // one connection carries at most ~500 commands/s.
        net: Dist::jittered(900, 200),
        pool_size: pool_size(p) as usize,
        pool_timeout: wait_limit(p),
        warm: Some(Warm {
            keys: 100,
            at: 0,
            span: 0,
            ttl: 0,
        }),
        loads: vec![
            LoadGen::new(
                p.get("rate") / 4.0,
                KeyDist::Uniform(100),
                1.0,
                MS,
                500 * MS,
            ),
            LoadGen::new(p.get("rate"), KeyDist::Uniform(100), 1.0, 500 * MS, SEC),
            LoadGen::new(p.get("rate") / 4.0, KeyDist::Uniform(100), 1.0, SEC, dur),
        ],
        ..Config::default()
    }
}

fn pool_exhaustion(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("connection-pool", seed, p);
    let w = run_world(exhaustion_cfg(p), seed);
    let end = w.cfg.duration;
    let stats = w.pods.first().map(|pd| pd.pool.stats).unwrap_or_default();
    let size = pool_size(p);
    let capacity = size as f64 * SEC as f64 / (2.0 * w.cfg.net.mean());
    o.metric("pool capacity", capacity, "cmd/s");
    o.metric("waited for a connection", stats.waited as f64, "");
    o.metric("pool timeouts", stats.timeouts as f64, "");
    o.metric("peak queue", stats.peak_queue as f64, "");
    o.metric("p99 latency", ms(w.m.reads.quantile(0.99) as f64), "ms");
    o.metric("max latency", ms(w.m.reads.max() as f64), "ms");
    let overloaded = p.get("rate") > capacity;
    o.check(
        "Beyond the pool's capacity requests first wait, then fail with a pool timeout",
        !overloaded || (stats.waited > 0 && stats.timeouts > 0 && w.m.reads.max() >= wait_limit(p)),
        format!(
            "{} req/s against ~{capacity:.0} cmd/s: {} waited, {} timed out, longest {:.0} ms",
            p.get("rate"),
            stats.waited,
            stats.timeouts,
            ms(w.m.reads.max() as f64)
        ),
    );
    o.charts.push(
        Chart::line("Client latency", "s", "ms")
            .with(w.m.reads.quantile_series("p99", 0.99, 50 * MS))
            .with(w.m.reads.quantile_series("p50", 0.5, 50 * MS)),
    );
    o.charts.push(
        Chart::line("Pool timeouts per second", "s", "1/s").with(w.m.errors.rate("timeouts", end)),
    );
    o.duration_us = end;
    o.note(format!(
        "{size} connections carry ~{capacity:.0} commands/s; at {} req/s the queue peaked at {} and {} requests gave up after {} ms (the pool timeout, or the context deadline if shorter).",
        p.get("rate"),
        stats.peak_queue,
        stats.timeouts,
        wait_limit(p) / MS
    ));
    o
}

/// A small loop of its own: one pod's pool shared by GET traffic and BLPOP
/// workers, on a real engine whose blocked clients answer through
/// `take_unblocked`.
#[derive(Clone, Debug)]
enum PEv {
    Get,
    /// A GET holding a connection arrives at Redis / its reply comes back.
    GetAt(u64),
    GetBack(u64),
    /// Worker `i` wants a connection for BLPOP.
    Worker(usize),
    BlpopAt(usize),
    WorkerBack(usize, bool),
    Push,
    /// A blocked BLPOP may have timed out.
    Tick,
    Timeout(u64),
}

struct PoolSim {
    size: usize,
    in_use: usize,
    /// Waiting GETs: (id, arrived).
    queue: std::collections::VecDeque<(u64, Micros)>,
    /// Workers waiting for a connection (the shared-pool variant).
    worker_queue: std::collections::VecDeque<usize>,
    timeouts: u64,
    waited: u64,
    lat: Latencies,
    errors: Meter,
}

impl PoolSim {
    fn take(&mut self) -> bool {
        if self.in_use < self.size {
            self.in_use += 1;
            true
        } else {
            false
        }
    }
}

fn blocking_world(p: &Params, seed: u64, shared: bool) -> (PoolSim, u64) {
    let dur = SEC;
    // The exhaustion case's slow round trip: ~500 commands/s per connection.
    let net = Dist::jittered(900, 200);
    let mut k: Kernel<PEv> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    let blockers = p.count("blockers") as usize;
    let workers: Vec<ClientId> = (0..blockers)
        .map(|i| redis.connect(&format!("worker{}", i + 1)))
        .collect();
    let app = redis.connect("app");
    redis.exec(0, "setup", &["SET", "k", "v"]);
    let mut s = PoolSim {
        size: pool_size(p) as usize,
        in_use: 0,
        queue: Default::default(),
        worker_queue: Default::default(),
        timeouts: 0,
        waited: 0,
        lat: Latencies::default(),
        errors: Meter::new(50 * MS),
    };
    // Half the overload traffic: the whole pool carries it, two connections do not.
    let rate = p.get("rate") / 2.0;
    let gen = LoadGen::new(rate, KeyDist::One(0), 1.0, 0, dur);
    let g0 = gen.gap(&mut k.rng);
    k.at(g0, PEv::Get);
    for i in 0..blockers {
        k.at(10 * MS + i as u64 * MS, PEv::Worker(i));
    }
    k.at(200 * MS, PEv::Push);
    k.at(0, PEv::Tick);
    let timeout = wait_limit(p);
    let mut next_id = 0u64;
    let mut pushes = 0u64;
    let mut start: BTreeMap<u64, Micros> = BTreeMap::new();
    // Frees a connection: a waiting GET (FIFO) gets it first, then a worker.
    fn free(s: &mut PoolSim, k: &mut Kernel<PEv>, net: &Dist) -> Option<usize> {
        if let Some((id, _)) = s.queue.pop_front() {
            let d = net.sample(&mut k.rng);
            k.after(d, PEv::GetAt(id));
            return None;
        }
        if let Some(w) = s.worker_queue.pop_front() {
            return Some(w);
        }
        s.in_use = s.in_use.saturating_sub(1);
        None
    }
    let deliver = |redis: &mut Redis, k: &mut Kernel<PEv>, workers: &[ClientId]| {
        for (c, f) in redis.take_unblocked(k.now()) {
            if let Some(i) = workers.iter().position(|w| *w == c) {
                let got = !matches!(f, Frame::Null | Frame::NullArray);
                let d = net.sample(&mut k.rng);
                k.after(d, PEv::WorkerBack(i, got));
            }
        }
    };
    while let Some(ev) = k.next(dur) {
        let now = k.now();
        match ev {
            PEv::Get => {
                let g = gen.gap(&mut k.rng);
                k.after(g, PEv::Get);
                next_id += 1;
                start.insert(next_id, now);
                if s.take() {
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::GetAt(next_id));
                } else {
                    s.waited += 1;
                    s.queue.push_back((next_id, now));
                    k.after(timeout, PEv::Timeout(next_id));
                }
            }
            PEv::Timeout(id) => {
                if let Some(i) = s.queue.iter().position(|x| x.0 == id) {
                    s.queue.remove(i);
                    s.timeouts += 1;
                    s.errors.add(now, 1.0);
                    if let Some(t0) = start.remove(&id) {
                        s.lat.record(t0, now - t0);
                    }
                }
            }
            PEv::GetAt(id) => {
                redis.execute(now, app, &[b"GET".to_vec(), b"k".to_vec()]);
                deliver(&mut redis, &mut k, &workers);
                let d = net.sample(&mut k.rng);
                k.after(d, PEv::GetBack(id));
            }
            PEv::GetBack(id) => {
                if let Some(t0) = start.remove(&id) {
                    s.lat.record(t0, now - t0);
                }
                if let Some(w) = free(&mut s, &mut k, &net) {
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::BlpopAt(w));
                }
            }
            PEv::Worker(i) => {
                if !shared {
                    // Its own client: a dedicated connection.
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::BlpopAt(i));
                } else if s.take() {
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::BlpopAt(i));
                } else {
                    s.worker_queue.push_back(i);
                }
            }
            PEv::BlpopAt(i) => {
                redis.sync(now);
                let Some(&c) = workers.get(i) else { continue };
                let args: Vec<Vec<u8>> = ["BLPOP", "jobs", "1"]
                    .iter()
                    .map(|a| a.as_bytes().to_vec())
                    .collect();
                if let Some(f) = redis.submit(now, c, &args) {
                    let got = !matches!(f, Frame::Null | Frame::NullArray);
                    let d = net.sample(&mut k.rng);
                    k.after(d, PEv::WorkerBack(i, got));
                }
            }
            PEv::WorkerBack(i, got) => {
                if shared {
                    if let Some(w) = free(&mut s, &mut k, &net) {
                        let d = net.sample(&mut k.rng);
                        k.after(d, PEv::BlpopAt(w));
                    }
                }
                // Process the job (if any), then wait again.
                let work = if got { 5 * MS } else { 0 };
                k.after(work, PEv::Worker(i));
            }
            PEv::Push => {
                pushes += 1;
                redis.execute(
                    now,
                    app,
                    &[b"RPUSH".to_vec(), b"jobs".to_vec(), b"j".to_vec()],
                );
                deliver(&mut redis, &mut k, &workers);
                k.after(200 * MS, PEv::Push);
            }
            PEv::Tick => {
                redis.sync(now);
                deliver(&mut redis, &mut k, &workers);
                k.after(10 * MS, PEv::Tick);
            }
        }
    }
    (s, pushes)
}

fn pool_blocking(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("connection-pool", seed, p);
    let (sh, _) = blocking_world(p, seed, true);
    let (own, _) = blocking_world(p, seed, false);
    let blockers = p.count("blockers");
    let size = pool_size(p);
    let p99 = |s: &PoolSim| ms(s.lat.quantile(0.99) as f64);
    o.metric("GET p99, BLPOP on the shared pool", p99(&sh), "ms");
    o.metric("GET p99, BLPOP on its own client", p99(&own), "ms");
    o.metric("pool waits (shared)", sh.waited as f64, "");
    o.metric("pool timeouts (shared)", sh.timeouts as f64, "");
    o.metric("pool waits (own client)", own.waited as f64, "");
    o.check(
        &format!("{blockers} BLPOP workers on a {size}-connection pool hold their connections: the same GET traffic waits longer than with a separate client"),
        sh.waited > own.waited && p99(&sh) > p99(&own),
        format!(
            "shared: {} waits, {} timeouts, p99 {:.1} ms; own client: {} waits, p99 {:.1} ms",
            sh.waited,
            sh.timeouts,
            p99(&sh),
            own.waited,
            p99(&own)
        ),
    );
    o.charts.push(
        Chart::line("GET latency p99", "s", "ms")
            .with(
                sh.lat
                    .quantile_series("BLPOP on the shared pool", 0.99, 50 * MS),
            )
            .with(
                own.lat
                    .quantile_series("BLPOP on its own client", 0.99, 50 * MS),
            ),
    );
    o.charts.push(
        Chart::bars("Pool waits", "requests", &["shared pool", "own client"])
            .with(Series::new(
                "waited",
                vec![(0.0, sh.waited as f64), (1.0, own.waited as f64)],
            ))
            .with(Series::new(
                "timed out",
                vec![(0.0, sh.timeouts as f64), (1.0, own.timeouts as f64)],
            )),
    );
    o.duration_us = SEC;
    o.note(format!(
        "{blockers} workers waiting in BLPOP kept {blockers} of {size} connections busy, leaving {} for GETs: p99 {:.1} ms vs {:.1} ms with a separate client.",
        size.saturating_sub(blockers),
        p99(&sh),
        p99(&own)
    ));
    o
}

/// One increment's attempts against a reply path that stalls for a while:
/// replies to commands run during the stall arrive only when it ends.
fn retry_incr_run(
    p: &Params,
    seed: u64,
    idempotent: bool,
    draw: bool,
) -> (u64, u64, u64, Kernel<()>) {
    let mut k: Kernel<()> = Kernel::new(seed);
    let mut redis = Redis::new(seed, &[]);
    let retries = p.count("retries");
    let read_timeout = 100 * MS;
    let backoff = 8 * MS;
    let (stall_from, stall_to) = (100 * MS, 250 * MS);
    let net = Dist::jittered(200, 100);
    let (cl, rl) = if draw {
        (k.rec.lane("client", "client"), k.rec.lane("redis", "redis"))
    } else {
        (0, 1)
    };
    let script = "if redis.call('SET', KEYS[2], '1', 'NX', 'PX', '60000') then return redis.call('INCR', KEYS[1]) else return tonumber(redis.call('GET', KEYS[1])) end";
    let mut t: Micros = 0;
    let increments = 10u64;
    let mut executed = 0u64;
    let mut failed = 0u64;
    let mut marked = false;
    for n in 0..increments {
        let idem = format!("idem:{n}");
        let mut ok = false;
        for attempt in 0..=retries {
            let send = t;
            let at = send + net.sample(&mut k.rng);
            let args: Vec<&str> = if idempotent {
                vec!["EVAL", script, "2", "counter", &idem]
            } else {
                vec!["INCR", "counter"]
            };
            let reply = redis.exec(at, "app", &args);
            let before = executed;
            if let Frame::Integer(v) = reply {
                executed = v as u64;
            }
            let mut back = at + net.sample(&mut k.rng);
            if (stall_from..stall_to).contains(&at) {
                back = back.max(stall_to);
            }
            if draw && attempt > 0 && !marked {
                marked = true;
                if executed > before {
                    k.rec.mark(at, rl, "bad", "The retry ran INCR again: the first one had already counted, only its reply was late.");
                } else {
                    k.rec.mark(at, rl, "good", "The retry carries the same request key: the script sees it and does not count again.");
                }
            }
            let label = if idempotent {
                "EVAL incr-once"
            } else {
                "INCR counter"
            };
            if draw {
                k.rec
                    .msg(send, at, cl, rl, format!("{label} (try {})", attempt + 1));
            }
            if back - send <= read_timeout {
                if draw {
                    k.rec.msg(at, back, rl, cl, reply_text(&reply));
                }
                t = back;
                ok = true;
                break;
            }
            // The client gives up on the reply; Redis already ran the command.
            if draw {
                k.rec
                    .msg(at, back, rl, cl, format!("{} (late)", reply_text(&reply)))
                    .failed();
                k.rec
                    .local(send + read_timeout, send + read_timeout, cl, "read timeout");
            }
            t = send + read_timeout + backoff;
        }
        if !ok {
            failed += 1;
        }
        t += 20 * MS;
    }
    let counter = match redis.exec(t, "app", &["GET", "counter"]) {
        Frame::Bulk(b) => String::from_utf8_lossy(&b).parse().unwrap_or(0),
        _ => 0,
    };
    (increments, counter, failed, k)
}

fn retry_incr(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("connection-pool", seed, p);
    let idem = p.on("idempotent");
    let (n, plain, failed, _) = retry_incr_run(p, seed, false, false);
    let (_, fixed, _, _) = retry_incr_run(p, seed, true, false);
    let (_, _, _, mut k) = retry_incr_run(p, seed, idem, true);
    o.metric("increments requested", n as f64, "");
    o.metric("counter with plain INCR retried", plain as f64, "");
    o.metric("counter with an idempotent increment", fixed as f64, "");
    o.metric("increments the client saw fail", failed as f64, "");
    let retries = p.count("retries");
    if idem {
        o.check(
            "With a per-request key checked in a script, retries count once",
            fixed == n,
            format!("{n} increments, counter {fixed} (plain INCR with the same retries: {plain})"),
        );
    } else {
        o.check(
            "A retried INCR after a read timeout counts twice: the first one ran, its reply was only late",
            retries == 0 || plain > n,
            format!("{n} increments, counter {plain} after {retries} allowed retries (idempotent variant: {fixed})"),
        );
    }
    o.charts.push(
        Chart::bars(
            "Counter after the increments",
            "value",
            &["requested", "plain INCR", "idempotent"],
        )
        .with(Series::new(
            "count",
            vec![(0.0, n as f64), (1.0, plain as f64), (2.0, fixed as f64)],
        )),
    );
    o.diagram = Some(k.rec.take_diagram());
    o.duration_us = SEC;
    o.note(format!(
        "The reply path stalled 150 ms; the client's 100 ms read timeout fired and it retried: {n} increments left the counter at {plain} (at {fixed} with the idempotent script)."
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use crate::testing::{metric as m, run};

    #[test]
    fn connection_pool_cases() {
        for case in ["exhaustion", "blocking", "retry-incr"] {
            all_pass("connection-pool", &[("case", case)]);
        }
        all_pass(
            "connection-pool",
            &[("case", "retry-incr"), ("idempotent", "on")],
        );
        let o = run("connection-pool", 1, &[("case", "retry-incr")]);
        assert!(m(&o, "counter with plain INCR retried") > m(&o, "increments requested"));
        assert_eq!(
            m(&o, "counter with an idempotent increment"),
            m(&o, "increments requested")
        );
        let d = o.diagram.as_ref().unwrap();
        assert!(d.marks.iter().any(|mk| mk.tone == "bad"));
        // A big enough pool never waits.
        let o = run("connection-pool", 1, &[("pool_size", "100")]);
        assert_eq!(m(&o, "pool timeouts"), 0.0);
        // go-redis' default pool grows with GOMAXPROCS: 10 per processor.
        let o = run("connection-pool", 1, &[("gomaxprocs", "10")]);
        assert_eq!(m(&o, "pool timeouts"), 0.0);
        assert!(m(&run("connection-pool", 1, &[]), "pool timeouts") > 0.0);
        // A context deadline shorter than PoolTimeout ends the wait first.
        let slow = run("connection-pool", 1, &[("pool_timeout_ms", "1000")]);
        let capped = run(
            "connection-pool",
            1,
            &[("pool_timeout_ms", "1000"), ("deadline_ms", "50")],
        );
        assert!(m(&capped, "max latency") < 60.0, "{:?}", capped.metrics);
        assert!(m(&slow, "max latency") > m(&capped, "max latency"));
    }
}
