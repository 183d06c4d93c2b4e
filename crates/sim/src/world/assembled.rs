//! The assembled caching world: pods (each with an L1, a singleflight group and a pool) reading through one Redis node to a database, with every pattern of [`super::patterns`] at work on the kernel's clock.

use super::load::key_name;
use super::patterns::{
    jittered_ttl, rebuild_lock_args, refresh_at, xfetch_should_refresh, Stamped, WriteOrder,
};
use super::pod::{L1Cache, Pool};
use super::setup::{Config, Metrics, Protection};
use super::singleflight::{FlightId, Joined, SimGroup};
use crate::kernel::{reply_text, Database, Kernel, Micros, Redis, MS};
use crate::seeds;
use redsim_engine::rng::Pick;
use redsim_engine::Frame;
use std::collections::BTreeMap;

/// A pod: an application instance with its own L1, singleflight group and pool.
#[derive(Clone, Debug)]
pub struct Pod {
    pub name: String,
    pub l1: Option<L1Cache>,
    pub group: SimGroup<ReqId>,
    pub pool: Pool<ReqId>,
}

pub type ReqId = u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    /// A background refresh (no client waits).
    Refresh,
    /// A fire-and-forget command.
    Detached,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Get,
    SetLock,
    Set,
    Del,
    Other,
}

#[derive(Clone, Debug)]
struct Req {
    pod: usize,
    key: String,
    kind: Kind,
    start: Micros,
    flight: Option<FlightId>,
    judged: bool,
    lock: bool,
    db_start: Micros,
    /// The value loaded or to write back.
    value: String,
    /// The command to send once a pool connection is free.
    pending: Option<(Step, Vec<String>)>,
    draw: bool,
}

/// The world's events.
#[derive(Clone, Debug)]
pub enum Ev {
    Arrive(usize),
    Warm(u64),
    AtRedis(ReqId, u8, Vec<String>),
    Reply(ReqId, u8, Frame),
    DbDone(ReqId),
    Retry(ReqId),
    /// A singleflight follower's own deadline.
    FlightDeadline(ReqId, FlightId),
    PoolTimeout(ReqId),
    Failover,
}

fn step_code(s: Step) -> u8 {
    s as u8
}

fn step_of(c: u8) -> Step {
    match c {
        0 => Step::Get,
        1 => Step::SetLock,
        2 => Step::Set,
        3 => Step::Del,
        _ => Step::Other,
    }
}

/// The assembled caching world.
pub struct World {
    pub cfg: Config,
    pub k: Kernel<Ev>,
    pub nodes: Vec<Redis>,
    pub active: usize,
    pub db: Database,
    pub pods: Vec<Pod>,
    pub m: Metrics,
    reqs: BTreeMap<ReqId, Req>,
    next_req: ReqId,
    /// Commit time of every version of every key (index = version − 1).
    commits: BTreeMap<String, Vec<Micros>>,
    /// Diagram lanes: per pod (if drawn), Redis, the database.
    lanes: Option<(Vec<Option<usize>>, usize, usize)>,
}

impl World {
    pub fn new(cfg: Config, seed: u64) -> World {
        let mut k = Kernel::new(seed);
        let mut nodes = vec![Redis::new(seed, &[])];
        if cfg.failover_at.is_some() {
            nodes.push(Redis::new(seeds::salted(seed, seeds::STANDBY_NODE), &[]));
        }
        let pods = (0..cfg.pods.max(1))
            .map(|i| Pod {
                name: format!("pod{}", i + 1),
                l1: cfg.l1.map(|(c, t)| L1Cache::new(c, t)),
                group: SimGroup::new(),
                pool: Pool::new(cfg.pool_size, cfg.pool_timeout),
            })
            .collect();
        for (i, l) in cfg.loads.iter().enumerate() {
            let first = l.from + l.gap(&mut k.rng);
            k.at(first, Ev::Arrive(i));
        }
        if let Some(w) = &cfg.warm {
            for i in 0..w.keys {
                k.at(w.at + w.span * i / w.keys.max(1), Ev::Warm(i));
            }
        }
        if let Some(t) = cfg.failover_at {
            k.at(t, Ev::Failover);
        }
        k.rec.step_cap = 120;
        let lanes = (!cfg.diagram_pods.is_empty()).then(|| {
            let mut p: Vec<Option<usize>> = vec![None; cfg.pods.max(1)];
            for &i in &cfg.diagram_pods {
                if let Some(slot) = p.get_mut(i) {
                    *slot = Some(k.rec.lane(&format!("pod{}", i + 1), "pod"));
                }
            }
            let r = k.rec.lane("redis", "redis");
            let d = k.rec.lane("db", "db");
            (p, r, d)
        });
        World {
            db: Database::new(cfg.db_read, cfg.db_write, cfg.db_limit),
            m: Metrics::new(cfg.window),
            cfg,
            k,
            nodes,
            active: 0,
            pods,
            reqs: BTreeMap::new(),
            next_req: 0,
            commits: BTreeMap::new(),
            lanes,
        }
    }

    /// Runs every event up to the configured duration.
    pub fn run(&mut self) {
        let end = self.cfg.duration;
        while let Some(ev) = self.k.next(end) {
            self.handle(ev);
        }
        self.k.finish_at(end);
    }

    pub fn metrics(&self) -> &Metrics {
        &self.m
    }

    /// Database reads and writes booked so far.
    pub fn db_queries(&self) -> u64 {
        self.db.queries
    }

    /// Requests still in progress (waiting for the database, a lock...).
    pub fn in_progress(&self) -> usize {
        self.reqs
            .values()
            .filter(|r| matches!(r.kind, Kind::Read | Kind::Write))
            .count()
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Arrive(i) => self.arrive(i),
            Ev::Warm(i) => self.warm(i),
            Ev::AtRedis(id, s, args) => self.at_redis(id, step_of(s), args),
            Ev::Reply(id, s, f) => self.on_reply(id, step_of(s), f),
            Ev::DbDone(id) => self.db_done(id),
            Ev::Retry(id) => self.send(id, Step::Get, vec!["GET".into(), self.key_of(id)]),
            Ev::FlightDeadline(id, f) => self.flight_deadline(id, f),
            Ev::PoolTimeout(id) => self.pool_timeout(id),
            Ev::Failover => {
                self.active = self.nodes.len().saturating_sub(1);
                if let Some((_, r, _)) = self.lanes {
                    let now = self.k.now();
                    self.k
                        .rec
                        .mark(now, r, "bad", "failover: an empty replica takes over");
                }
            }
        }
    }

    fn key_of(&self, id: ReqId) -> String {
        self.reqs
            .get(&id)
            .map(|r| r.key.clone())
            .unwrap_or_default()
    }

    fn version_value(&self, key: &str) -> (String, u64) {
        let v = self.db.get(key).map_or(0, |r| r.version);
        (format!("v{v}"), v)
    }

    /// The string stored in Redis for a freshly loaded `value`.
    fn cache_value(&self, value: &str, delta: Micros, ttl: Micros) -> String {
        let now = self.k.now();
        match self.cfg.protection {
            Protection::XFetch => Stamped {
                value: value.to_string(),
                delta,
                deadline: now + ttl,
            }
            .encode(),
            Protection::LogicalExpiry => Stamped {
                value: value.to_string(),
                delta,
                deadline: now + ttl,
            }
            .encode(),
            Protection::RefreshAhead => Stamped {
                value: value.to_string(),
                delta,
                deadline: refresh_at(now, ttl, self.cfg.refresh_frac),
            }
            .encode(),
            _ => value.to_string(),
        }
    }

    /// SET arguments storing `stored` for `key` with the configured TTL
    /// (none under logical expiry: the deadline lives in the value).
    fn set_args(&self, key: &str, stored: &str, ttl: Micros) -> Vec<String> {
        let mut a = vec!["SET".into(), key.to_string(), stored.to_string()];
        if self.cfg.protection != Protection::LogicalExpiry && ttl > 0 {
            a.push("PX".into());
            a.push((ttl / MS).max(1).to_string());
        }
        a
    }

    fn warm(&mut self, i: u64) {
        let Some(w) = self.cfg.warm.clone() else {
            return;
        };
        let key = key_name(i);
        let ttl = if w.ttl > 0 {
            jittered_ttl(w.ttl, self.cfg.ttl_jitter, &mut self.k.rng)
        } else {
            0
        };
        let (value, _) = self.version_value(&key);
        let delta = self.cfg.db_read.mean() as Micros;
        let stored = self.cache_value(&value, delta, ttl);
        let args = self.set_args(&key, &stored, ttl);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let now = self.k.now();
        if let Some(n) = self.nodes.get_mut(self.active) {
            n.exec(now, "warmup", &refs);
        }
    }

    fn new_req(&mut self, pod: usize, key: String, kind: Kind) -> ReqId {
        self.next_req += 1;
        let now = self.k.now();
        let draw = self
            .lanes
            .as_ref()
            .is_some_and(|(p, _, _)| p.get(pod).is_some_and(|l| l.is_some()))
            && now >= self.cfg.diagram_from
            && now < self.cfg.diagram_from + self.cfg.diagram_span;
        self.reqs.insert(
            self.next_req,
            Req {
                pod,
                key,
                kind,
                start: now,
                flight: None,
                judged: false,
                lock: false,
                db_start: 0,
                value: String::new(),
                pending: None,
                draw,
            },
        );
        self.next_req
    }

    fn arrive(&mut self, i: usize) {
        let now = self.k.now();
        let Some(load) = self.cfg.loads.get_mut(i) else {
            return;
        };
        if now >= load.until {
            return;
        }
        let op = load.op(&mut self.k.rng);
        let gap = load.gap(&mut self.k.rng);
        self.k.after(gap, Ev::Arrive(i));
        let pod = self.k.rng.pick(0..self.pods.len());
        if op.write {
            let id = self.new_req(pod, op.key, Kind::Write);
            self.start_write(id);
        } else {
            let id = self.new_req(pod, op.key, Kind::Read);
            self.start_read(id);
        }
    }

    fn start_read(&mut self, id: ReqId) {
        let Some(r) = self.reqs.get(&id) else { return };
        let (pod, key) = (r.pod, r.key.clone());
        if !self.cfg.cache {
            self.db_query(id, false);
            return;
        }
        let now = self.k.now();
        let l1 = self
            .pods
            .get_mut(pod)
            .and_then(|p| p.l1.as_mut())
            .and_then(|l| l.get(now, &key));
        if let Some(v) = l1 {
            self.m.l1_hits += 1;
            self.m.hits.trial(now, true);
            if let Some(r) = self.reqs.get_mut(&id) {
                r.judged = true;
            }
            self.finish_read(id, &v);
            return;
        }
        self.send(id, Step::Get, vec!["GET".into(), key]);
    }

    fn start_write(&mut self, id: ReqId) {
        let key = self.key_of(id);
        if let Some(p) = self.reqs.get(&id).and_then(|r| self.pods.get_mut(r.pod)) {
            if let Some(l) = p.l1.as_mut() {
                l.invalidate(&key);
            }
        }
        if self.cfg.cache && self.cfg.write_order == WriteOrder::DeleteThenDb {
            self.send(id, Step::Del, vec!["DEL".into(), key]);
        } else {
            self.db_query(id, true);
        }
    }

    /// Takes a pool connection for `id` and sends `args`, or queues.
    fn send(&mut self, id: ReqId, step: Step, args: Vec<String>) {
        let Some(r) = self.reqs.get_mut(&id) else {
            return;
        };
        let pod = r.pod;
        let Some(p) = self.pods.get_mut(pod) else {
            return;
        };
        if p.pool.acquire(id) {
            self.transmit(id, step, args);
        } else {
            r.pending = Some((step, args));
            let t = p.pool.timeout;
            self.k.after(t, Ev::PoolTimeout(id));
        }
    }

    fn transmit(&mut self, id: ReqId, step: Step, args: Vec<String>) {
        let now = self.k.now();
        let d = self.cfg.net.sample(&mut self.k.rng);
        self.draw_msg(id, now, now + d, true, || args.join(" "));
        self.k.after(d, Ev::AtRedis(id, step_code(step), args));
    }

    fn pool_timeout(&mut self, id: ReqId) {
        let Some(r) = self.reqs.get(&id) else { return };
        let pod = r.pod;
        let timed_out = self.pods.get_mut(pod).is_some_and(|p| p.pool.time_out(&id));
        if timed_out {
            self.m.pool_timeouts += 1;
            self.m.errors.add(self.k.now(), 1.0);
            // The request fails: count it as served (an error) and drop it.
            let now = self.k.now();
            if let Some(r) = self.reqs.remove(&id) {
                if r.kind == Kind::Read {
                    self.m.reads.record(r.start, now - r.start);
                }
            }
        }
    }

    fn at_redis(&mut self, id: ReqId, step: Step, args: Vec<String>) {
        let now = self.k.now();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let who = self
            .reqs
            .get(&id)
            .and_then(|r| self.pods.get(r.pod))
            .map_or("", |p| p.name.as_str());
        let reply = match self.nodes.get_mut(self.active) {
            Some(n) => n.exec(now, who, &refs),
            None => Frame::err("ERR no node"),
        };
        self.m.redis.add(now, 1.0);
        let d = self.cfg.net.sample(&mut self.k.rng);
        self.draw_msg(id, now, now + d, false, || reply_text(&reply));
        self.k.after(d, Ev::Reply(id, step_code(step), reply));
    }

    fn on_reply(&mut self, id: ReqId, step: Step, f: Frame) {
        // Release the connection; the next waiter sends its command.
        if let Some(pod) = self.reqs.get(&id).map(|r| r.pod) {
            let next = self.pods.get_mut(pod).and_then(|p| p.pool.release());
            if let Some(w) = next {
                if let Some((s, a)) = self.reqs.get_mut(&w).and_then(|r| r.pending.take()) {
                    self.transmit(w, s, a);
                }
            }
        }
        let Some(kind) = self.reqs.get(&id).map(|r| r.kind) else {
            return;
        };
        match (kind, step) {
            (Kind::Detached, _) => {
                self.reqs.remove(&id);
            }
            (Kind::Read, Step::Get) => self.on_get(id, f),
            (Kind::Read | Kind::Refresh, Step::SetLock) => {
                if f.is_error() || matches!(f, Frame::Null | Frame::NullArray) {
                    if kind == Kind::Refresh {
                        // Someone else refreshes: this pod's flight ends.
                        self.end_refresh(id);
                    } else {
                        self.m.lock_polls += 1;
                        let s = self.cfg.lock_sleep;
                        let now = self.k.now();
                        self.draw_local(id, now, now + s, "lock taken: sleep, retry");
                        self.k.after(s, Ev::Retry(id));
                    }
                } else {
                    if let Some(r) = self.reqs.get_mut(&id) {
                        r.lock = true;
                    }
                    self.db_query(id, false);
                }
            }
            (Kind::Read | Kind::Refresh, Step::Set) => self.after_set(id),
            (Kind::Write, Step::Del) => {
                if self.cfg.write_order == WriteOrder::DeleteThenDb {
                    self.db_query(id, true);
                } else {
                    self.finish_write(id);
                }
            }
            _ => {}
        }
    }

    fn on_get(&mut self, id: ReqId, f: Frame) {
        let now = self.k.now();
        let first = self.reqs.get(&id).is_some_and(|r| !r.judged);
        if let Some(r) = self.reqs.get_mut(&id) {
            r.judged = true;
        }
        let value = match &f {
            Frame::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        };
        let Some(stored) = value else {
            self.m.misses.add(now, 1.0);
            if first {
                self.m.hits.trial(now, false);
            }
            self.on_miss(id);
            return;
        };
        if first {
            self.m.hits.trial(now, true);
        }
        let (key, pod) = match self.reqs.get(&id) {
            Some(r) => (r.key.clone(), r.pod),
            None => return,
        };
        let mut value = stored.clone();
        if self.cfg.protection.stamped() {
            if let Some(s) = Stamped::decode(&stored) {
                value = s.value.clone();
                let refresh = match self.cfg.protection {
                    Protection::XFetch => xfetch_should_refresh(
                        now,
                        s.delta,
                        s.deadline,
                        self.cfg.beta,
                        &mut self.k.rng,
                    ),
                    _ => now >= s.deadline,
                };
                if refresh && self.cfg.protection == Protection::LogicalExpiry {
                    self.m.served_stale += 1;
                }
                if refresh {
                    self.start_refresh(pod, &key);
                }
            }
        }
        if let Some(l) = self.pods.get_mut(pod).and_then(|p| p.l1.as_mut()) {
            l.put(now, &key, &value);
        }
        self.finish_read(id, &value);
    }

    fn on_miss(&mut self, id: ReqId) {
        let Some(r) = self.reqs.get(&id) else { return };
        let (pod, key) = (r.pod, r.key.clone());
        match self.cfg.protection {
            Protection::Lock => {
                let token = format!("t{id}");
                let args = rebuild_lock_args(&key, &token, self.cfg.lock_ttl);
                self.send(id, Step::SetLock, args);
            }
            Protection::Singleflight => {
                let j = match self.pods.get_mut(pod) {
                    Some(p) => p.group.join(&key, id),
                    None => return,
                };
                if let Some(r) = self.reqs.get_mut(&id) {
                    r.flight = Some(j.flight());
                }
                match j {
                    Joined::Leader(_) => self.db_query(id, false),
                    Joined::Follower(f) => {
                        let now = self.k.now();
                        self.draw_local(id, now, now, "joins the flight");
                        if let Some(d) = self.cfg.flight_deadline {
                            self.k.after(d, Ev::FlightDeadline(id, f));
                        }
                    }
                }
            }
            _ => self.db_query(id, false),
        }
    }

    /// A follower's deadline passed: if the flight has not landed it stops
    /// waiting and fails (DoChan's `ctx.Done()` branch).
    fn flight_deadline(&mut self, id: ReqId, f: FlightId) {
        let Some(pod) = self.reqs.get(&id).map(|r| r.pod) else {
            return;
        };
        let left = self
            .pods
            .get_mut(pod)
            .is_some_and(|p| p.group.abandon(f, &id));
        if left {
            let now = self.k.now();
            self.m.gave_up += 1;
            self.m.errors.add(now, 1.0);
            self.draw_local(id, now, now, "deadline: gives up");
            if let Some(r) = self.reqs.remove(&id) {
                self.m.reads.record(r.start, now - r.start);
            }
        }
    }

    /// A background refresh of `key` by `pod`, one at a time per pod (its
    /// singleflight group); logical expiry and refresh-ahead also take the
    /// rebuild lock so one pod in the fleet reloads.
    fn start_refresh(&mut self, pod: usize, key: &str) {
        let fkey = format!("refresh:{key}");
        if self.pods.get(pod).is_none_or(|p| p.group.in_flight(&fkey)) {
            return;
        }
        let id = self.new_req(pod, key.to_string(), Kind::Refresh);
        let j = match self.pods.get_mut(pod) {
            Some(p) => p.group.join(&fkey, id),
            None => return,
        };
        if let Some(r) = self.reqs.get_mut(&id) {
            r.flight = Some(j.flight());
        }
        self.m.background_refreshes += 1;
        if self.cfg.protection == Protection::XFetch {
            self.db_query(id, false);
        } else {
            let args = rebuild_lock_args(key, &format!("t{id}"), self.cfg.lock_ttl);
            self.send(id, Step::SetLock, args);
        }
    }

    fn end_refresh(&mut self, id: ReqId) {
        if let Some(r) = self.reqs.remove(&id) {
            if let (Some(f), Some(p)) = (r.flight, self.pods.get_mut(r.pod)) {
                p.group.finish(f, true);
            }
        }
    }

    fn db_query(&mut self, id: ReqId, write: bool) {
        let now = self.k.now();
        let (_, end) = self.db.reserve(now, write, &mut self.k.rng);
        self.m.db.add(now, 1.0);
        if self.m.first_db_at.is_none() {
            self.m.first_db_at = Some(now);
            self.m.first_db_pod = self.reqs.get(&id).map_or(0, |r| r.pod);
        }
        let c = self.db.concurrency(now);
        let w = now / self.cfg.window.max(1);
        let e = self.m.db_concurrency.entry(w).or_insert(0);
        *e = (*e).max(c);
        if let Some(r) = self.reqs.get_mut(&id) {
            r.db_start = now;
        }
        self.draw_db(id, now, end, if write { "UPDATE" } else { "SELECT" });
        self.k.at(end, Ev::DbDone(id));
    }

    fn db_done(&mut self, id: ReqId) {
        let now = self.k.now();
        let Some(r) = self.reqs.get(&id) else { return };
        let (kind, key, pod) = (r.kind, r.key.clone(), r.pod);
        if kind == Kind::Write {
            let v = self.db.put(&key, "x");
            let times = self.commits.entry(key.clone()).or_default();
            while times.len() < v as usize {
                times.push(now);
            }
            if self.cfg.cache && self.cfg.write_order == WriteOrder::DbThenDelete {
                self.send(id, Step::Del, vec!["DEL".into(), key]);
            } else {
                self.finish_write(id);
            }
            return;
        }
        // A read's load (its own, a flight's, or a refresh).
        let (value, _) = self.version_value(&key);
        let delta = now - r.db_start;
        if !self.cfg.cache {
            self.finish_read(id, &value);
            return;
        }
        let ttl = jittered_ttl(self.cfg.ttl, self.cfg.ttl_jitter, &mut self.k.rng);
        let stored = self.cache_value(&value, delta, ttl);
        let args = self.set_args(&key, &stored, ttl);
        if let Some(r) = self.reqs.get_mut(&id) {
            r.value = value.clone();
        }
        if let Some(l) = self.pods.get_mut(pod).and_then(|p| p.l1.as_mut()) {
            l.put(now, &key, &value);
        }
        let waits_for_set = kind == Kind::Refresh
            || self.cfg.set_before_reply
            || self
                .reqs
                .get(&id)
                .is_some_and(|r| r.flight.is_some() || r.lock);
        if waits_for_set {
            self.send(id, Step::Set, args);
        } else {
            let d = self.new_req(pod, key, Kind::Detached);
            self.send(d, Step::Other, args);
            self.finish_read(id, &value);
        }
    }

    fn after_set(&mut self, id: ReqId) {
        let Some(r) = self.reqs.get(&id) else { return };
        let (kind, pod, key, value, lock, flight) = (
            r.kind,
            r.pod,
            r.key.clone(),
            r.value.clone(),
            r.lock,
            r.flight,
        );
        if lock {
            let d = self.new_req(pod, key.clone(), Kind::Detached);
            self.send(d, Step::Other, vec!["DEL".into(), format!("lock:{key}")]);
        }
        if kind == Kind::Refresh {
            self.end_refresh(id);
            return;
        }
        if let (Some(f), Some(p)) = (flight, self.pods.get_mut(pod)) {
            let landed = p.group.finish(f, true);
            for w in landed.waiters {
                self.finish_read(w, &value);
            }
        }
        self.finish_read(id, &value);
    }

    fn finish_read(&mut self, id: ReqId, value: &str) {
        let now = self.k.now();
        let Some(r) = self.reqs.remove(&id) else {
            return;
        };
        self.m.reads.record(r.start, now - r.start);
        // Staleness: the value's version against what the database holds.
        let served: u64 = value.trim_start_matches('v').parse().unwrap_or(0);
        if let Some(times) = self.commits.get(&r.key) {
            if (served as usize) < times.len() {
                self.m.stale_reads += 1;
                if let Some(t) = times.get(served as usize) {
                    self.m.max_stale_age = self.m.max_stale_age.max(now.saturating_sub(*t));
                }
            }
        }
    }

    fn finish_write(&mut self, id: ReqId) {
        let now = self.k.now();
        if let Some(r) = self.reqs.remove(&id) {
            self.m.writes.record(r.start, now - r.start);
        }
    }

    // -------------------------------------------------------- diagram

    /// The diagram lane of `id`'s pod, when `id` is drawn.
    fn drawn(&self, id: ReqId) -> Option<usize> {
        let (pods, _, _) = self.lanes.as_ref()?;
        let r = self.reqs.get(&id).filter(|r| r.draw)?;
        pods.get(r.pod).copied().flatten()
    }

    /// Draws a message if `id` is drawn; `label` runs only then, as most requests of a run
    /// fall outside the diagram's window and formatting every command showed in profiles.
    fn draw_msg(
        &mut self,
        id: ReqId,
        at: Micros,
        until: Micros,
        out: bool,
        label: impl FnOnce() -> String,
    ) {
        let (Some(p), Some(&(_, redis, _))) = (self.drawn(id), self.lanes.as_ref()) else {
            return;
        };
        let label = label();
        if out {
            self.k.rec.msg(at, until, p, redis, label);
        } else {
            self.k.rec.msg(at, until, redis, p, label);
        }
    }

    fn draw_db(&mut self, id: ReqId, at: Micros, until: Micros, what: &str) {
        let (Some(p), Some(&(_, _, db))) = (self.drawn(id), self.lanes.as_ref()) else {
            return;
        };
        let key = self.key_of(id);
        self.k.rec.msg(at, until, p, db, format!("{what} {key}"));
    }

    fn draw_local(&mut self, id: ReqId, at: Micros, until: Micros, what: &str) {
        if let Some(p) = self.drawn(id) {
            self.k.rec.local(at, until, p, what.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{KeyDist, LoadGen};

    #[test]
    fn a_small_world_reads_through_the_cache() {
        let cfg = Config {
            pods: 2,
            duration: 500 * MS,
            loads: vec![LoadGen::new(2000.0, KeyDist::Uniform(20), 1.0, 0, 500 * MS)],
            ..Config::default()
        };
        let mut w = World::new(cfg, 1);
        w.run();
        let m = w.metrics();
        assert!(m.reads.len() > 800);
        assert!(m.hit_ratio() > 0.9, "{}", m.hit_ratio());
        // Each of the 20 keys misses at least once; concurrent misses of one key add a few.
        assert!((20..120).contains(&w.db_queries()), "{}", w.db_queries());
    }
}
