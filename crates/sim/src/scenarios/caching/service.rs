//! A small cache-aside service shared by the outage, avalanche-cause and warm-up lessons: Poisson reads of Zipf-ranked keys, GET/SET on a real Redis over a link, a database with a concurrency limit behind a client deadline, and what guards the database when Redis fails or misses.
//!
//! Unlike the assembled [`crate::world::World`], Redis can be unreachable
//! here (its errors take a round trip), the key prefix can change under
//! load, a bulk import can push the cache through `maxmemory`, and a warmer
//! can load the hot set from the database before traffic arrives.

use crate::kernel::{Database, Dist, Kernel, Latencies, Meter, Micros, Redis};
use crate::outcome::Diagram;
use crate::zipf::Zipf;
use redsim_engine::Frame;
use std::collections::{BTreeMap, VecDeque};

/// What protects the database when a read has to reach it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Guard {
    /// A Redis error is treated as a miss: the read goes to the database.
    FailOpen,
    /// A Redis error fails the read (an error page or a static fallback).
    FailClosed,
    /// At most `permits` database reads at once; the rest fail at once.
    Semaphore,
    /// A circuit breaker on database reads: slow calls open it.
    Breaker,
}

impl Guard {
    pub const NAMES: [&'static str; 4] = ["fail-open", "fail-closed", "semaphore", "breaker"];
    pub const ALL: [Guard; 4] = [
        Guard::FailOpen,
        Guard::FailClosed,
        Guard::Semaphore,
        Guard::Breaker,
    ];
}

/// How a deploy moves reads from the old key prefix to the new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rollout {
    /// Every read uses the new prefix from the deploy on.
    Switch,
    /// The new prefix's share of reads grows linearly over this long.
    Gradual(Micros),
    /// The new prefix, and on its miss the old key, copied over on a hit.
    DualRead,
}

/// A warmer loading keys `0..keys` (hottest first) from the database.
#[derive(Clone, Copy, Debug)]
pub(super) struct Warmup {
    pub from: Micros,
    pub keys: u64,
    /// Keys per second; 0 sends them all at once.
    pub rate: f64,
}

/// A batch job writing `count` values of `bytes` into the cache's node
/// evenly over `[at, at + span)`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Import {
    pub at: Micros,
    pub span: Micros,
    pub count: u64,
    pub bytes: usize,
}

#[derive(Clone, Debug)]
pub(super) struct Setup {
    pub duration: Micros,
    pub window: Micros,
    pub rate: f64,
    pub traffic_from: Micros,
    pub keys: u64,
    pub zipf_s: f64,
    /// Round trip between a pod and Redis.
    pub rtt: Micros,
    pub db: Dist,
    pub db_limit: usize,
    /// A client gives up on a read after this long.
    pub deadline: Micros,
    pub guard: Guard,
    pub permits: usize,
    /// A database call slower than this counts against the breaker.
    pub slow: Micros,
    pub breaker_cooldown: Micros,
    /// Redis is unreachable over `[from, until)`.
    pub redis_down: Option<(Micros, Micros)>,
    /// Every key already cached (under the old prefix) at the start.
    pub preload: bool,
    pub value_bytes: usize,
    pub maxmemory: Option<u64>,
    pub deploy: Option<(Micros, Rollout)>,
    pub import: Option<Import>,
    pub warm: Option<Warmup>,
    /// Latency and errors are also kept for requests starting in this span.
    pub focus: (Micros, Micros),
    /// Draw every `n`-th request starting in `[from, until)`: (from, until, n).
    pub draw: Option<(Micros, Micros, u64)>,
}

/// What a run measured.
pub(super) struct Measured {
    pub lat: Latencies,
    /// Latency of the requests that started inside the focus span.
    pub focus_lat: Latencies,
    pub focus_requests: u64,
    pub focus_errors: u64,
    /// Reads served from the cache (old or new key) per window.
    pub hits: Meter,
    pub db_qps: Meter,
    pub errors: Meter,
    /// Highest database backlog (running or queued) per window.
    pub backlog: BTreeMap<u64, usize>,
    pub db_peak: usize,
    pub db_queries: u64,
    pub timeouts: u64,
    pub rejected: u64,
    pub trips: u64,
    pub evicted: u64,
    /// When the warmer's last key landed in the cache.
    pub warm_done: Option<Micros>,
    pub window: Micros,
    /// Lanes pod, redis, db, when the setup asks for a drawing.
    pub diagram: Option<Diagram>,
}

impl Measured {
    /// Backlog per window as a series (x in seconds).
    pub fn backlog_series(&self, name: &str) -> crate::outcome::Series {
        let w = self.window as f64 / 1e6;
        let pts = self
            .backlog
            .iter()
            .map(|(k, v)| (*k as f64 * w, *v as f64))
            .collect();
        crate::outcome::Series::new(name, pts)
    }

    /// Highest database queries per second in a window starting in `[from, until)`.
    pub fn db_peak_rate(&self, from: Micros, until: Micros) -> f64 {
        peak_in(&self.db_qps.rate("", until), from, until)
    }

    /// Lowest hit ratio (%) in a window starting in `[from, until)`; 100 when none.
    pub fn hit_dip(&self, from: Micros, until: Micros) -> f64 {
        let (a, b) = (from as f64 / 1e6, until as f64 / 1e6);
        self.hits
            .ratio("")
            .points
            .iter()
            .filter(|p| p.0 >= a && p.0 < b)
            .map(|p| p.1)
            .fold(100.0, f64::min)
    }

    /// Hit ratio (%) over the reads that started in `[from, until)`.
    pub fn hit_ratio_in(&self, from: Micros, until: Micros) -> f64 {
        let (a, b) = (from as f64 / 1e6, until as f64 / 1e6);
        let pts = self.hits.ratio("").points;
        let inside: Vec<f64> = pts
            .iter()
            .filter(|p| p.0 >= a && p.0 < b)
            .map(|p| p.1)
            .collect();
        if inside.is_empty() {
            return 0.0;
        }
        inside.iter().sum::<f64>() / inside.len() as f64
    }

    /// The highest backlog in a window starting in `[from, until)`.
    pub fn backlog_peak(&self, from: Micros, until: Micros) -> usize {
        let (a, b) = (from / self.window, until.div_ceil(self.window));
        self.backlog.range(a..b).map(|(_, v)| *v).max().unwrap_or(0)
    }
}

fn peak_in(s: &crate::outcome::Series, from: Micros, until: Micros) -> f64 {
    let (a, b) = (from as f64 / 1e6, until as f64 / 1e6);
    s.points
        .iter()
        .filter(|p| p.0 >= a && p.0 < b)
        .map(|p| p.1)
        .fold(0.0, f64::max)
}

#[derive(Clone, Debug)]
enum Cmd {
    Get,
    /// The old prefix's key, read after the new one missed.
    GetOld(String),
    /// A fire-and-forget SET of the request's key (after a load or a copy).
    Fill(String),
    Warm(u64),
    Import(u64),
}

#[derive(Clone, Debug)]
enum Back {
    Hit,
    /// The old prefix's key was there (a dual read).
    OldHit,
    Miss,
    Down,
}

#[derive(Clone, Debug)]
enum Ev {
    Arrive,
    AtRedis(u64, Cmd),
    Back(u64, Back),
    DbDone(u64, Micros),
    Deadline(u64),
    WarmLoad(u64),
    WarmDone(u64),
}

struct Req {
    key: String,
    draw: bool,
    old: Option<String>,
    start: Micros,
    judged: bool,
}

enum BreakerState {
    Closed,
    Open(Micros),
    /// Letting `left` probes through; `ok` of them came back fast.
    HalfOpen {
        left: usize,
        ok: usize,
    },
}

/// A count-based circuit breaker: over the last 20 calls, half slow opens it.
struct Breaker {
    state: BreakerState,
    recent: VecDeque<bool>,
    probes: usize,
    cooldown: Micros,
    trips: u64,
}

impl Breaker {
    fn allow(&mut self, now: Micros) -> bool {
        if let BreakerState::Open(until) = self.state {
            if now < until {
                return false;
            }
            self.state = BreakerState::HalfOpen {
                left: self.probes,
                ok: 0,
            };
        }
        match &mut self.state {
            BreakerState::Closed => true,
            BreakerState::HalfOpen { left, .. } if *left > 0 => {
                *left -= 1;
                true
            }
            _ => false,
        }
    }

    fn record(&mut self, now: Micros, slow: bool) {
        match &mut self.state {
            BreakerState::Closed => {
                self.recent.push_back(slow);
                if self.recent.len() > 20 {
                    self.recent.pop_front();
                }
                let bad = self.recent.iter().filter(|s| **s).count();
                if self.recent.len() >= 10 && 2 * bad >= self.recent.len() {
                    self.trip(now);
                }
            }
            BreakerState::HalfOpen { ok, .. } => {
                if slow {
                    self.trip(now);
                } else {
                    *ok += 1;
                    if *ok >= self.probes {
                        self.state = BreakerState::Closed;
                        self.recent.clear();
                    }
                }
            }
            BreakerState::Open(_) => {}
        }
    }

    fn trip(&mut self, now: Micros) {
        self.state = BreakerState::Open(now + self.cooldown);
        self.recent.clear();
        self.trips += 1;
    }
}

/// Diagram lanes, in the order they are made.
const POD: usize = 0;
const REDIS: usize = 1;
const DB: usize = 2;

/// The old and new names of key `i`.
fn names(i: u64) -> (String, String) {
    (format!("v1:k{i}"), format!("v2:k{i}"))
}

/// Runs one service from (setup, seed).
pub(super) fn run(s: &Setup, seed: u64) -> Measured {
    let mut k: Kernel<Ev> = Kernel::new(seed);
    let mut config: Vec<(&str, String)> = Vec::new();
    if let Some(mm) = s.maxmemory {
        config.push(("maxmemory", mm.to_string()));
        config.push(("maxmemory-policy", "allkeys-lru".to_string()));
    }
    let refs: Vec<(&str, &str)> = config.iter().map(|(a, b)| (*a, b.as_str())).collect();
    let mut redis = Redis::new(seed, &refs);
    let value = "x".repeat(s.value_bytes.max(1));
    if s.preload {
        for i in 0..s.keys {
            redis.exec(0, "preload", &["SET", &names(i).0, &value]);
        }
    }
    let zipf = Zipf::new(s.keys.max(1), s.zipf_s.max(0.0));
    let mut db = Database::new(s.db, s.db, s.db_limit);
    let mut m = Measured {
        lat: Latencies::default(),
        focus_lat: Latencies::default(),
        focus_requests: 0,
        focus_errors: 0,
        hits: Meter::new(s.window),
        db_qps: Meter::new(s.window),
        errors: Meter::new(s.window),
        backlog: BTreeMap::new(),
        db_peak: 0,
        db_queries: 0,
        timeouts: 0,
        rejected: 0,
        trips: 0,
        evicted: 0,
        warm_done: None,
        window: s.window,
        diagram: None,
    };
    if s.draw.is_some() {
        for (name, kind) in [("pod", "pod"), ("redis", "redis"), ("db", "db")] {
            k.rec.lane(name, kind);
        }
        k.rec.step_cap = 160;
    }
    let mut breaker = Breaker {
        state: BreakerState::Closed,
        recent: VecDeque::new(),
        probes: s.permits.max(1),
        cooldown: s.breaker_cooldown,
        trips: 0,
    };
    let mut in_use = 0usize;
    let mut reqs: BTreeMap<u64, Req> = BTreeMap::new();
    let mut next = 0u64;
    let one_way = s.rtt / 2;
    let down = |t: Micros| s.redis_down.is_some_and(|(a, b)| t >= a && t < b);
    let gap = |rng: &mut fastrand::Rng| {
        let u = 1.0 - rng.f64();
        ((-u.ln() / s.rate.max(1e-9)) * 1e6).max(1.0) as Micros
    };
    let first = s.traffic_from + gap(&mut k.rng);
    k.at(first, Ev::Arrive);
    if let Some(w) = s.warm {
        for i in 0..w.keys {
            let at = if w.rate > 0.0 {
                w.from + (i as f64 * 1e6 / w.rate) as Micros
            } else {
                w.from
            };
            k.at(at, Ev::WarmLoad(i));
        }
    }
    if let Some(im) = s.import {
        for i in 0..im.count {
            k.at(
                im.at + im.span * i / im.count.max(1),
                Ev::AtRedis(0, Cmd::Import(i)),
            );
        }
    }
    let mut warm_left = s.warm.map_or(0, |w| w.keys);
    // Books a database read at `now`, recording the backlog it makes.
    let book = |db: &mut Database, m: &mut Measured, rng: &mut fastrand::Rng, now: Micros| {
        let (_, end) = db.reserve(now, false, rng);
        m.db_qps.add(now, 1.0);
        m.db_queries += 1;
        let c = db.concurrency(now);
        m.db_peak = m.db_peak.max(c);
        let e = m.backlog.entry(now / s.window.max(1)).or_insert(0);
        *e = (*e).max(c);
        end
    };
    // Ends request `id` (if still alive): served or failed.
    let finish =
        |reqs: &mut BTreeMap<u64, Req>, m: &mut Measured, id: u64, now: Micros, ok: bool| {
            let Some(r) = reqs.remove(&id) else { return };
            let took = now - r.start;
            m.lat.record(r.start, took);
            let focus = r.start >= s.focus.0 && r.start < s.focus.1;
            if focus {
                m.focus_lat.record(r.start, took);
                m.focus_requests += 1;
            }
            if !ok {
                m.errors.add(now, 1.0);
                if focus {
                    m.focus_errors += 1;
                }
            }
        };
    while let Some(ev) = k.next(s.duration) {
        let now = k.now();
        match ev {
            Ev::Arrive => {
                let g = gap(&mut k.rng);
                k.after(g, Ev::Arrive);
                let i = zipf.as_ref().map_or(0, |z| z.sample(&mut k.rng) - 1);
                let (old, new) = names(i);
                let (key, old) = match s.deploy {
                    Some((t, _)) if now < t => (old, None),
                    None => (old, None),
                    Some((t, Rollout::Gradual(ramp))) => {
                        let share = (now - t) as f64 / ramp.max(1) as f64;
                        if k.rng.f64() < share {
                            (new, None)
                        } else {
                            (old, None)
                        }
                    }
                    Some((_, Rollout::Switch)) => (new, None),
                    Some((_, Rollout::DualRead)) => (new, Some(old)),
                };
                next += 1;
                let draw = s
                    .draw
                    .is_some_and(|(a, b, n)| now >= a && now < b && next.is_multiple_of(n.max(1)));
                reqs.insert(
                    next,
                    Req {
                        key,
                        old,
                        start: now,
                        judged: false,
                        draw,
                    },
                );
                if draw {
                    let key = reqs.get(&next).map(|r| r.key.clone()).unwrap_or_default();
                    k.rec
                        .msg(now, now + one_way, POD, REDIS, format!("GET {key}"));
                }
                k.after(s.deadline, Ev::Deadline(next));
                k.after(one_way, Ev::AtRedis(next, Cmd::Get));
            }
            Ev::AtRedis(id, cmd) => {
                let drawn = reqs.get(&id).is_some_and(|r| r.draw);
                if down(now) {
                    if matches!(cmd, Cmd::Get | Cmd::GetOld(_)) {
                        if drawn {
                            k.rec
                                .msg(now, now + one_way, REDIS, POD, "connection refused")
                                .failed();
                        }
                        k.after(one_way, Ev::Back(id, Back::Down));
                    }
                    continue;
                }
                match cmd {
                    Cmd::Get | Cmd::GetOld(_) => {
                        let key = match &cmd {
                            Cmd::GetOld(old) => old.clone(),
                            _ => reqs.get(&id).map(|r| r.key.clone()).unwrap_or_default(),
                        };
                        let hit = matches!(redis.exec(now, "app", &["GET", &key]), Frame::Bulk(_));
                        let b = match (hit, &cmd) {
                            (true, Cmd::GetOld(_)) => Back::OldHit,
                            (true, _) => Back::Hit,
                            _ => Back::Miss,
                        };
                        if drawn {
                            let text = if hit { "value" } else { "(nil)" };
                            k.rec.msg(now, now + one_way, REDIS, POD, text);
                        }
                        k.after(one_way, Ev::Back(id, b));
                    }
                    Cmd::Fill(key) => {
                        redis.exec(now, "app", &["SET", &key, &value]);
                    }
                    Cmd::Warm(i) => {
                        redis.exec(now, "warmer", &["SET", &names(i).0, &value]);
                        warm_left = warm_left.saturating_sub(1);
                        if warm_left == 0 {
                            m.warm_done = Some(now);
                        }
                    }
                    Cmd::Import(i) => {
                        let bytes = s.import.map_or(1, |im| im.bytes);
                        let big = "i".repeat(bytes);
                        redis.exec(now, "import", &["SET", &format!("import:{i}"), &big]);
                    }
                }
            }
            Ev::Back(id, b) => {
                let Some(r) = reqs.get_mut(&id) else { continue };
                match b {
                    Back::Hit | Back::OldHit => {
                        if matches!(b, Back::OldHit) {
                            // Copy the old entry to the new prefix.
                            let key = r.key.clone();
                            k.after(one_way, Ev::AtRedis(id, Cmd::Fill(key)));
                        }
                        if !std::mem::replace(&mut r.judged, true) {
                            m.hits.trial(now, true);
                        }
                        finish(&mut reqs, &mut m, id, now, true);
                        continue;
                    }
                    Back::Miss if r.old.is_some() => {
                        // Dual read: the old prefix before the database.
                        let old = r.old.take().unwrap_or_default();
                        if r.draw {
                            k.rec
                                .msg(now, now + one_way, POD, REDIS, format!("GET {old}"));
                        }
                        k.after(one_way, Ev::AtRedis(id, Cmd::GetOld(old)));
                        continue;
                    }
                    _ => {}
                }
                if !std::mem::replace(&mut r.judged, true) {
                    m.hits.trial(now, false);
                }
                let drawn = r.draw;
                if matches!(b, Back::Down) && s.guard == Guard::FailClosed {
                    if drawn {
                        k.rec.msg(now, now, POD, POD, "fails closed").failed();
                    }
                    m.rejected += 1;
                    finish(&mut reqs, &mut m, id, now, false);
                    continue;
                }
                let allowed = match s.guard {
                    Guard::Semaphore if in_use >= s.permits => false,
                    Guard::Semaphore => {
                        in_use += 1;
                        true
                    }
                    Guard::Breaker => breaker.allow(now),
                    _ => true,
                };
                if !allowed {
                    if drawn {
                        let why = if s.guard == Guard::Breaker {
                            "breaker open: fails fast"
                        } else {
                            "no permit: fails fast"
                        };
                        k.rec.msg(now, now, POD, POD, why).failed();
                    }
                    m.rejected += 1;
                    finish(&mut reqs, &mut m, id, now, false);
                    continue;
                }
                let end = book(&mut db, &mut m, &mut k.rng, now);
                if drawn {
                    let key = reqs.get(&id).map(|r| r.key.clone()).unwrap_or_default();
                    k.rec.msg(now, end, POD, DB, format!("SELECT {key}"));
                }
                k.at(end, Ev::DbDone(id, now));
            }
            Ev::DbDone(id, booked) => {
                if s.guard == Guard::Semaphore {
                    in_use = in_use.saturating_sub(1);
                }
                if s.guard == Guard::Breaker {
                    breaker.record(now, now - booked > s.slow);
                }
                if let Some(r) = reqs.get(&id) {
                    if !down(now) {
                        let key = r.key.clone();
                        k.after(one_way, Ev::AtRedis(id, Cmd::Fill(key)));
                    }
                    finish(&mut reqs, &mut m, id, now, true);
                }
            }
            Ev::Deadline(id) => {
                if let Some(r) = reqs.get(&id) {
                    if r.draw {
                        k.rec.msg(now, now, POD, POD, "deadline: gives up").failed();
                    }
                    m.timeouts += 1;
                    finish(&mut reqs, &mut m, id, now, false);
                }
            }
            Ev::WarmLoad(i) => {
                let end = book(&mut db, &mut m, &mut k.rng, now);
                k.at(end, Ev::WarmDone(i));
            }
            Ev::WarmDone(i) => {
                k.after(one_way, Ev::AtRedis(0, Cmd::Warm(i)));
            }
        }
    }
    m.trips = breaker.trips;
    if s.draw.is_some() {
        m.diagram = Some(k.rec.take_diagram());
    }
    if !redis.is_remote() {
        m.evicted = redis.engine().stats().evicted_keys;
    }
    m
}
