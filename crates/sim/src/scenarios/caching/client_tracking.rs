//! Client-side caching with CLIENT TRACKING: pods' L1 caches invalidated by the server itself (default mode or BCAST), against a plain L1 TTL, and the reconnection after which a client that keeps its L1 serves what it missed.
//!
//! Every pod reads Zipf-skewed keys through its [`L1Cache`] in front of one
//! Redis, which holds every key; a writer SETs new versions. In `ttl-only`
//! an L1 entry lives `l1-ttl-ms` and nothing tells a pod about writes. In
//! `tracking` and `bcast` each pod runs the two-connection RESP2 setup of
//! Redis' client-side caching: an invalidation connection that SUBSCRIBEs
//! to `__redis__:invalidate`, and a data connection with CLIENT TRACKING ON
//! REDIRECT to it (BCAST PREFIX `item:` in `bcast`); its entries then live
//! until an invalidation drops them. RESP2 and REDIRECT rather than RESP3
//! pushes because the engine serves both the same way and this setup needs
//! nothing but replies and Pub/Sub messages, so the scenario also runs
//! against a real server. The invalidations are the engine's own
//! (tracking.c's key table and BCAST prefixes), taken from
//! [`Redis::take_unblocked`] and carried to the pod over a link.
//!
//! Pod 1's connections drop at `reconnect-at-ms` and come back
//! `outage-ms` later. Whatever was written meanwhile was reported to nobody
//! on its side, and in default mode the new connection has read nothing
//! yet, so the server does not even know what that L1 holds: later writes
//! to those keys are not reported either. A correct client flushes its L1
//! when it reconnects (and does not trust it while it is down); without
//! that flush pod 1 serves old values until they leave its L1.
//!
//! A stale read is an L1 hit returning a value Redis has already replaced;
//! its staleness is how long ago the replacement happened. Tracking is not
//! linearisable: between a write and its invalidation's arrival a pod can
//! still serve the old value, so reads stale for less than [`GRACE`] are
//! the protocol working, not a missed message.

use super::ms;
use crate::kernel::{Dist, Kernel, Link, Micros, Redis, MS, SEC};
use crate::outcome::{Chart, Diagram, Outcome, Series, Strip, StripRow};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use crate::world::L1Cache;
use crate::zipf::Zipf;
use redsim_engine::engine::ClientId;
use redsim_engine::proto::resp::Frame;
use redsim_engine::rng::Pick;
use std::collections::BTreeMap;

pub const CLIENT_SIDE_CACHING: Scenario = Scenario::new("client-side-caching", csc_run);

/// Positions in the `mode` choices (the lesson's scenarios.json).
const M_TTL: usize = 0;
const M_TRACKING: usize = 1;
const M_BCAST: usize = 2;
const MODES: [&str; 3] = ["ttl-only", "tracking", "bcast"];
const PREFIX: &str = "item:";
/// The channel a RESP2 redirection target hears invalidations on.
const CHANNEL: &str = "__redis__:invalidate";
/// Longer than any invalidation's trip (a write, then the push over a
/// sub-millisecond link): staler reads mean a message was missed.
const GRACE: Micros = 5 * MS;
/// Buckets of the staleness-over-time chart.
const WINDOW: Micros = 100 * MS;
/// The strip shows pod 1's copies of this many hottest keys.
const STRIP_KEYS: usize = 40;

fn key(i: usize) -> String {
    format!("{PREFIX}{i}")
}

fn args(a: &[&str]) -> Vec<Vec<u8>> {
    a.iter().map(|s| s.as_bytes().to_vec()).collect()
}

/// The version a value names (`v7` → 7).
fn version_of(v: &str) -> u64 {
    v.trim_start_matches('v').parse().unwrap_or(0)
}

#[derive(Clone, Debug)]
enum Ev {
    /// A pod's next read.
    Read(usize),
    /// A pod's GET reaches Redis (pod, key, the key's invalidation
    /// generation when asked, the connection's life).
    Get(usize, usize, u64, u64),
    /// The reply reaches the pod (pod, key, generation, life, version).
    Fill(usize, usize, u64, u64, u64),
    /// The writer picks the next key to update.
    Write,
    /// The writer's SET reaches Redis.
    Set(usize),
    /// An invalidation message reaches a pod (pod, life, keys; none = flush everything).
    Inval(usize, u64, Option<Vec<usize>>),
    Drop,
    Reconnect,
}

struct Pod {
    lane: Option<usize>,
    l1: L1Cache,
    data: ClientId,
    inval: Option<ClientId>,
    /// Bumped when the connections drop: replies and messages in flight on them are lost.
    life: u64,
    online: bool,
    /// Per key, bumped by every invalidation, so a reply asked for before
    /// one is not cached: with REDIRECT the reply and the message travel on
    /// different connections and the message can arrive first.
    gen: Vec<u64>,
    /// Keys whose reads wait for the connection to come back.
    waiting: Vec<usize>,
}

/// What one mode's run measured.
#[derive(Default)]
struct CscRun {
    reads: u64,
    l1_hits: u64,
    /// GETs that reached Redis.
    gets: u64,
    writes: u64,
    /// L1 hits serving a value Redis had replaced, of any age.
    stale: u64,
    /// Of those, the ones older than [`GRACE`]: a missed invalidation or a TTL.
    stale_late: u64,
    /// Pod 1's late stale reads after it reconnected.
    stale_after_reconnect: u64,
    /// Longest staleness on pod 1 and on the pods that stayed connected.
    max_age_pod1: Micros,
    max_age_connected: Micros,
    /// Invalidation messages the pods received, and the L1 entries they dropped.
    messages: u64,
    evicted: u64,
    /// Entries pod 1's flush on reconnect dropped.
    flushed: usize,
    /// Reads that waited for pod 1's reconnection.
    waited: u64,
    /// Oldest value served per [`WINDOW`].
    oldest: BTreeMap<u64, Micros>,
    /// Pod 1's copies of the hottest keys at the end (strip legend indices).
    pod1_end: Vec<u8>,
    reconnect_at: Option<Micros>,
    end: Micros,
    diagram: Option<Diagram>,
}

impl CscRun {
    fn max_age(&self) -> Micros {
        self.max_age_pod1.max(self.max_age_connected)
    }

    fn hit_pct(&self) -> f64 {
        100.0 * self.l1_hits as f64 / self.reads.max(1) as f64
    }

    fn gets_per_s(&self) -> f64 {
        self.gets as f64 * SEC as f64 / self.end.max(1) as f64
    }
}

/// What the race diagram shows of a run: one write's invalidation and the
/// pods dropping their copies, pod 1's outage and reconnection, and the
/// first late stale read.
#[derive(Default)]
struct Draw {
    on: bool,
    writer: usize,
    redis: usize,
    /// The key and version of the write whose invalidation is drawn.
    demo: Option<(usize, u64)>,
    /// Per drawn pod: the demo's next read is still to draw.
    demo_read: [bool; 2],
    /// Per drawn pod: the reply to the demo's GET is still to draw.
    demo_get: [bool; 2],
    /// ttl-only, per drawn pod: the demo key's stale reads so far, and the oldest.
    demo_stale: [(u64, Micros); 2],
    outage_write: bool,
    stale: bool,
}

struct Sim<'a> {
    mode: usize,
    flush: bool,
    k: Kernel<Ev>,
    /// Reads and writes come from a stream of their own, so every mode
    /// gets the same ones whatever its messages drew from the kernel's.
    wk: fastrand::Rng,
    zipf: Option<Zipf>,
    r: Redis,
    link: Link,
    writer: ClientId,
    pods: Vec<Pod>,
    /// Per key: the instant each version replaced the previous one in Redis
    /// (version 0, the preloaded value, at 0).
    commits: Vec<Vec<Micros>>,
    run: CscRun,
    draw: Draw,
    p: &'a Params,
}

impl Sim<'_> {
    fn key_choice(&mut self, n: usize) -> usize {
        match &self.zipf {
            Some(z) => (z.sample(&mut self.wk) as usize - 1).min(n - 1),
            None => self.wk.pick(0..n),
        }
    }

    fn delay(&mut self) -> Micros {
        self.link.delay(&mut self.k.rng).unwrap_or(0)
    }

    /// Opens pod `i`'s connections and turns tracking on as its client
    /// library would on every (re)connection.
    fn connect(&mut self, i: usize, now: Micros) {
        let n = i + 1;
        let data = self.r.connect(&format!("pod{n}"));
        let mut inval = None;
        if self.mode != M_TTL {
            let id = self.r.connect(&format!("pod{n}-inval"));
            // A failed backend answers with an error, already reported.
            let cid = match self.r.execute(now, id, &args(&["CLIENT", "ID"])) {
                Frame::Integer(c) => c.to_string(),
                _ => "0".to_string(),
            };
            let first = self.r.submit(now, id, &args(&["SUBSCRIBE", CHANNEL]));
            debug_assert!(first.is_some_and(|f| !f.is_error()));
            let mut cmd = vec!["CLIENT", "TRACKING", "ON", "REDIRECT", cid.as_str()];
            if self.mode == M_BCAST {
                cmd.extend(["BCAST", "PREFIX", PREFIX]);
            }
            let f = self.r.execute(now, data, &args(&cmd));
            debug_assert!(!f.is_error(), "{cmd:?}: {f:?}");
            self.pump(now);
            inval = Some(id);
        }
        let pod = &mut self.pods[i];
        pod.data = data;
        pod.inval = inval;
        pod.online = true;
    }

    /// Hands every invalidation Redis wrote to its pod, over the link.
    fn pump(&mut self, now: Micros) {
        for (id, f) in self.r.take_unblocked(now) {
            let Some(i) = self.pods.iter().position(|p| p.inval == Some(id)) else {
                continue;
            };
            let Some(keys) = invalidated(&f) else {
                continue;
            };
            let d = self.delay();
            if self.draw.on && i < 2 {
                let demo = self.draw.demo.map(|(k, _)| k);
                if let (Some(ks), Some(dk)) = (&keys, demo) {
                    if ks.contains(&dk) && self.draw.demo_read[i] {
                        let lane = self.pods[i].lane.unwrap_or(0);
                        let text = format!("invalidate {}", key(dk));
                        self.k.rec.msg(now, now + d, self.draw.redis, lane, text);
                    }
                }
            }
            let life = self.pods[i].life;
            self.k.after(d, Ev::Inval(i, life, keys));
        }
    }

    /// Pod `i` asks Redis for `key` (or waits for its connection).
    fn ask(&mut self, i: usize, key_i: usize) {
        if !self.pods[i].online {
            self.pods[i].waiting.push(key_i);
            self.run.waited += 1;
            return;
        }
        let d = self.delay();
        let (g, life) = (self.pods[i].gen[key_i], self.pods[i].life);
        self.k.after(d, Ev::Get(i, key_i, g, life));
    }

    fn read(&mut self, i: usize, now: Micros) {
        let n = self.commits.len();
        let key_i = self.key_choice(n);
        self.run.reads += 1;
        let kn = key(key_i);
        // A correct client does not trust its L1 while it cannot hear invalidations.
        let usable = self.pods[i].online || !self.flush;
        let got = if usable {
            self.pods[i].l1.get(now, &kn)
        } else {
            None
        };
        match got {
            Some(v) => {
                self.run.l1_hits += 1;
                let held = version_of(&v);
                let cur = self.commits[key_i].len() as u64 - 1;
                if held < cur {
                    let age = now - self.commits[key_i][held as usize + 1];
                    self.stale_read(i, key_i, held, cur, age, now);
                }
            }
            None => {
                let demo = self.draw.demo.is_some_and(|(k, _)| k == key_i);
                if self.draw.on && i < 2 && demo && std::mem::take(&mut self.draw.demo_read[i]) {
                    self.draw.demo_get[i] = true;
                    let lane = self.pods[i].lane.unwrap_or(0);
                    let (n, oldest) = self.draw.demo_stale[i];
                    if n > 0 {
                        let age = ms(oldest as f64);
                        let text = format!("{n}× old {kn}, ≤ {age:.0} ms stale");
                        self.k.rec.local(now, now, lane, text);
                        if !std::mem::replace(&mut self.draw.stale, true) {
                            let why = format!("Stale until the TTL: nothing told this pod about the write, so it served the old value for {age:.0} ms, until its copy expired and this read went to Redis.");
                            self.k.rec.mark(now, lane, "bad", why);
                        }
                    }
                    let d = self.link.latency.mean() as Micros;
                    let text = format!("GET {kn}");
                    self.k.rec.msg(now, now + d, lane, self.draw.redis, text);
                }
                self.ask(i, key_i);
            }
        }
        let gap = self.p.get("reads-per-s").max(1.0);
        let gap = (SEC as f64 / gap) as Micros;
        let next = gap / 2 + self.wk.u64(0..=gap);
        self.k.after(next, Ev::Read(i));
    }

    fn stale_read(
        &mut self,
        i: usize,
        key_i: usize,
        held: u64,
        cur: u64,
        age: Micros,
        now: Micros,
    ) {
        let run = &mut self.run;
        run.stale += 1;
        let w = run.oldest.entry(now / WINDOW).or_insert(0);
        *w = (*w).max(age);
        if i == 0 {
            run.max_age_pod1 = run.max_age_pod1.max(age);
        } else {
            run.max_age_connected = run.max_age_connected.max(age);
        }
        if age <= GRACE {
            return;
        }
        run.stale_late += 1;
        let after = i == 0 && run.reconnect_at.is_some();
        if after {
            run.stale_after_reconnect += 1;
        }
        let demo = self.draw.demo.is_some_and(|(k, _)| k == key_i);
        if self.draw.on && self.mode == M_TTL {
            // The drawn write's old value, in one step when the copy expires (see `read`).
            if i < 2 && demo && self.draw.demo_read[i] {
                let (n, oldest) = &mut self.draw.demo_stale[i];
                *n += 1;
                *oldest = (*oldest).max(age);
            }
            return;
        }
        // What pod 1 missed while it was away.
        if self.draw.on && after && !std::mem::replace(&mut self.draw.stale, true) {
            let lane = self.pods[i].lane.unwrap_or(0);
            let text = format!("{} v{held} from L1 (Redis: v{cur})", key(key_i));
            self.k.rec.local(now, now, lane, text);
            let why = if self.mode == M_TRACKING {
                format!("Stale read, {:.0} ms old: the write's invalidation went to the dropped connection, and the new one never read this key, so no later write will be reported either.", ms(age as f64))
            } else {
                format!("Stale read, {:.0} ms old: the write's invalidation was broadcast while pod 1 was away; only the key's next write will drop this copy.", ms(age as f64))
            };
            self.k.rec.mark(now, lane, "bad", why);
        }
    }

    fn get(&mut self, i: usize, key_i: usize, gen: u64, life: u64, now: Micros) {
        if self.pods[i].life != life {
            // The connection it was sent on is gone: the client sends it again.
            self.ask(i, key_i);
            return;
        }
        self.run.gets += 1;
        let data = self.pods[i].data;
        let f = self.r.execute(now, data, &args(&["GET", &key(key_i)]));
        // Every key exists; anything else is a failed backend, already reported.
        let Frame::Bulk(b) = f else { return };
        let held = version_of(&String::from_utf8_lossy(&b));
        let d = self.delay();
        if self.draw.on && i < 2 && std::mem::take(&mut self.draw.demo_get[i]) {
            let lane = self.pods[i].lane.unwrap_or(0);
            let text = format!("v{held}");
            self.k.rec.msg(now, now + d, self.draw.redis, lane, text);
        }
        self.k.after(d, Ev::Fill(i, key_i, gen, life, held));
    }

    fn set(&mut self, key_i: usize, now: Micros) {
        self.commits[key_i].push(now);
        let version = self.commits[key_i].len() as u64 - 1;
        let kn = key(key_i);
        let v = format!("v{version}");
        let f = self.r.execute(now, self.writer, &args(&["SET", &kn, &v]));
        debug_assert!(!f.is_error());
        // BCAST messages leave from beforeSleep, right after the command.
        self.r.before_sleep(now);
        self.pump(now);
    }

    fn write(&mut self, now: Micros) {
        let n = self.commits.len();
        let key_i = self.key_choice(n);
        self.run.writes += 1;
        let d = self.delay();
        let version = self.commits[key_i].len() as u64;
        if self.draw.on {
            self.draw_write(key_i, version, now, d);
        }
        self.k.after(d, Ev::Set(key_i));
        let rate = self.p.get("writes-per-s").max(0.1);
        let gap = (SEC as f64 / rate) as Micros;
        let next = gap / 2 + self.wk.u64(0..=gap);
        self.k.after(next, Ev::Write);
    }

    fn draw_write(&mut self, key_i: usize, version: u64, now: Micros, d: Micros) {
        let kn = key(key_i);
        let held_by = |s: &mut Self, i: usize| s.pods[i].l1.get(now, &kn).is_some();
        let text = format!("SET {kn} v{version}");
        if self.draw.demo.is_none() && now >= 300 * MS && held_by(self, 0) && held_by(self, 1) {
            self.draw.demo = Some((key_i, version));
            self.draw.demo_read = [true, true];
            self.k
                .rec
                .msg(now, now + d, self.draw.writer, self.draw.redis, text);
            let why = match self.mode {
                M_TTL => "A write: the pods holding the key are not told, and keep their copies until the L1 TTL.",
                M_TRACKING => "A write to a key both pods read on their tracking connections: Redis invalidates it on their redirect targets and forgets them.",
                _ => "A write under the broadcast prefix: every BCAST client hears of it, whether it holds the key or not.",
            };
            self.k.rec.mark(now + d, self.draw.redis, "info", why);
            return;
        }
        let away = !self.pods[0].online && self.mode != M_TTL;
        if away && !self.draw.outage_write && held_by(self, 0) {
            self.draw.outage_write = true;
            self.k
                .rec
                .msg(now, now + d, self.draw.writer, self.draw.redis, text);
            self.k.rec.mark(now + d, self.draw.redis, "bad", "Written while pod 1 is away: its invalidation goes to the connected pods only, and nothing keeps a copy for pod 1.");
        }
    }

    fn fill(&mut self, i: usize, key_i: usize, gen: u64, life: u64, held: u64, now: Micros) {
        let pod = &mut self.pods[i];
        if pod.life == life && pod.gen[key_i] == gen {
            pod.l1.put(now, &key(key_i), &format!("v{held}"));
        }
    }

    fn inval(&mut self, i: usize, life: u64, keys: Option<Vec<usize>>, now: Micros) {
        if self.pods[i].life != life {
            return;
        }
        self.run.messages += 1;
        let pod = &mut self.pods[i];
        let Some(keys) = keys else {
            self.run.evicted += pod.l1.clear() as u64;
            for g in pod.gen.iter_mut() {
                *g += 1;
            }
            return;
        };
        for &key_i in &keys {
            if key_i >= pod.gen.len() {
                continue;
            }
            pod.gen[key_i] += 1;
            let kn = key(key_i);
            let held = pod.l1.get(now, &kn).is_some();
            if held {
                pod.l1.invalidate(&kn);
                self.run.evicted += 1;
            }
            let demo = self.draw.demo.is_some_and(|(k, _)| k == key_i);
            if self.draw.on && i < 2 && demo && held && self.draw.demo_read[i] {
                let lane = pod.lane.unwrap_or(0);
                self.k
                    .rec
                    .local(now, now, lane, format!("drop {kn} from L1"));
            }
        }
    }

    fn drop_pod1(&mut self, now: Micros) {
        let pod = &mut self.pods[0];
        pod.online = false;
        pod.life += 1;
        let (data, inval) = (pod.data, pod.inval.take());
        self.r.disconnect(now, data);
        if let Some(id) = inval {
            self.r.disconnect(now, id);
        }
        let away = self.p.count("outage-ms") * MS;
        // ttl-only has no invalidations to miss: its drawing stays on the TTL.
        if self.draw.on && self.mode != M_TTL {
            let lane = self.pods[0].lane.unwrap_or(0);
            let text = format!("connections lost for {} ms", away / MS);
            self.k.rec.local(now, now + away, lane, text);
            let why = if self.flush {
                "The connection drops: the client stops trusting its L1 (it cannot hear invalidations) and reads wait for the reconnection."
            } else {
                "The connection drops: the pod keeps serving its L1, deaf to every write until it reconnects."
            };
            self.k.rec.mark(now, lane, "info", why);
        }
        self.k.at(now + away, Ev::Reconnect);
    }

    fn reconnect(&mut self, now: Micros) {
        self.run.reconnect_at = Some(now);
        self.connect(0, now);
        if self.flush {
            let pod = &mut self.pods[0];
            self.run.flushed = pod.l1.clear();
            for g in pod.gen.iter_mut() {
                *g += 1;
            }
        }
        if self.draw.on && self.mode != M_TTL {
            let lane = self.pods[0].lane.unwrap_or(0);
            let text = match self.mode {
                M_TRACKING => "CLIENT TRACKING ON REDIRECT".to_string(),
                _ => format!("CLIENT TRACKING ON REDIRECT BCAST PREFIX {PREFIX}"),
            };
            let d = self.link.latency.mean() as Micros;
            self.k.rec.msg(now, now + d, lane, self.draw.redis, text);
            if self.flush {
                let text = format!("flush L1 ({} entries)", self.run.flushed);
                self.k.rec.local(now, now, lane, text);
                self.k.rec.mark(now, lane, "good", "Flushed on reconnect: whatever it missed is gone from L1, and the next reads fetch fresh values from Redis.");
            } else {
                self.k.rec.mark(now, lane, "bad", "Reconnected with its L1 kept: tracking starts afresh on the new connection, but nothing replays the invalidations sent while it was away.");
            }
        }
        let waiting = std::mem::take(&mut self.pods[0].waiting);
        for key_i in waiting {
            self.ask(0, key_i);
        }
    }
}

/// The keys an invalidation message names (`None` for a flush), or
/// `None` twice over for any other frame (a subscribe confirmation).
fn invalidated(f: &Frame) -> Option<Option<Vec<usize>>> {
    let (Frame::Array(v) | Frame::Push(v)) = f else {
        return None;
    };
    if !matches!(v.first(), Some(Frame::Bulk(b)) if &b[..] == b"message") {
        return None;
    }
    match v.get(2) {
        Some(Frame::Array(keys)) => Some(Some(
            keys.iter()
                .filter_map(|k| match k {
                    Frame::Bulk(b) => std::str::from_utf8(b)
                        .ok()?
                        .strip_prefix(PREFIX)?
                        .parse()
                        .ok(),
                    _ => None,
                })
                .collect(),
        )),
        Some(Frame::Null | Frame::NullArray) => Some(None),
        _ => None,
    }
}

fn csc_once(p: &Params, seed: u64, mode: usize, flush: bool, record: bool) -> CscRun {
    let pods = p.count("pods").clamp(2, 8) as usize;
    let keys = p.count("keys").max(2) as usize;
    let ttl = if mode == M_TTL {
        p.count("l1-ttl-ms").max(1) * MS
    } else {
        Micros::MAX
    };
    let drop_at = p.count("reconnect-at-ms") * MS;
    let away = p.count("outage-ms") * MS;
    let end = (drop_at + away + 1500 * MS).max(2500 * MS);
    let mut k: Kernel<Ev> = Kernel::new(seed);
    let mut draw = Draw {
        on: record,
        ..Draw::default()
    };
    if record {
        draw.writer = k.rec.lane("writer", "client");
        draw.redis = k.rec.lane("redis", "redis");
    }
    let mut r = Redis::new(seed, &[]);
    let writer = r.connect("writer");
    for i in 0..keys {
        r.execute(0, writer, &args(&["SET", &key(i), "v0"]));
    }
    let mut sim = Sim {
        mode,
        flush,
        wk: fastrand::Rng::with_seed(seeds::salted(seed, seeds::CSC_WORKLOAD)),
        zipf: Zipf::new(keys as u64, p.get("zipf-s")),
        r,
        link: Link::new(Dist::jittered(200, 300)),
        writer,
        pods: Vec::new(),
        commits: vec![vec![0]; keys],
        run: CscRun::default(),
        draw,
        p,
        k,
    };
    for i in 0..pods {
        let lane = (record && i < 2).then(|| sim.k.rec.lane(&format!("pod {}", i + 1), "pod"));
        sim.pods.push(Pod {
            lane,
            l1: L1Cache::new(keys, ttl),
            data: 0,
            inval: None,
            life: 0,
            online: false,
            gen: vec![0; keys],
            waiting: Vec::new(),
        });
        sim.connect(i, 0);
        let first = sim.wk.u64(0..MS);
        sim.k.at(first, Ev::Read(i));
    }
    sim.k.at(50 * MS, Ev::Write);
    if drop_at > 0 && away > 0 {
        sim.k.at(drop_at, Ev::Drop);
    }
    while let Some(ev) = sim.k.next(end) {
        let now = sim.k.now();
        sim.r.sync(now);
        match ev {
            Ev::Read(i) => sim.read(i, now),
            Ev::Get(i, key_i, gen, life) => sim.get(i, key_i, gen, life, now),
            Ev::Fill(i, key_i, gen, life, held) => sim.fill(i, key_i, gen, life, held, now),
            Ev::Write => sim.write(now),
            Ev::Set(key_i) => sim.set(key_i, now),
            Ev::Inval(i, life, keys) => sim.inval(i, life, keys, now),
            Ev::Drop => sim.drop_pod1(now),
            Ev::Reconnect => sim.reconnect(now),
        }
    }
    sim.k.finish_at(end);
    let mut run = std::mem::take(&mut sim.run);
    run.end = end;
    let pod1 = &mut sim.pods[0];
    run.pod1_end = (0..keys.min(STRIP_KEYS))
        .map(|i| match pod1.l1.get(end, &key(i)) {
            None => 0,
            Some(v) if version_of(&v) + 1 < sim.commits[i].len() as u64 => 2,
            Some(_) => 1,
        })
        .collect();
    if record {
        run.diagram = Some(sim.k.rec.take_diagram());
    }
    run
}

/// ttl-only: pods serve replaced values for up to the L1 TTL, no longer.
fn stale_until_ttl(run: &CscRun, ttl: Micros) -> bool {
    let age = run.max_age_connected;
    run.stale_late > 0 && age > ttl / 2 && age <= ttl + GRACE
}

/// Every stale read is an invalidation still on its way, on every pod.
fn fresh_within_a_trip(run: &CscRun) -> bool {
    run.messages > 0 && run.max_age() <= GRACE
}

/// The pod that kept its L1 across the reconnection serves what it missed.
fn stale_after_reconnect(run: &CscRun) -> bool {
    run.stale_after_reconnect > 0 && run.max_age_pod1 > GRACE && run.max_age_connected <= GRACE
}

fn csc_run(p: &Params, seed: u64) -> Outcome {
    let mode = p.choice("mode").min(MODES.len() - 1);
    let flush = p.on("flush-on-reconnect");
    let ttl = p.count("l1-ttl-ms").max(1) * MS;
    // Every mode with this flush setting, then every mode with the other.
    let runs: Vec<CscRun> = (0..MODES.len())
        .map(|m| csc_once(p, seed, m, flush, m == mode))
        .collect();
    let other: Vec<CscRun> = (0..MODES.len())
        .map(|m| csc_once(p, seed, m, !flush, false))
        .collect();
    let (on, off) = if flush {
        (&runs, &other)
    } else {
        (&other, &runs)
    };
    let run = &runs[mode];
    let what = MODES[mode];
    let mut out = Outcome::new("client-side-caching", seed, p);
    out.duration_us = run.end;
    out.metric("stale reads", run.stale as f64, "reads")
        .metric(
            "stale reads older than 5 ms",
            run.stale_late as f64,
            "reads",
        )
        .metric(
            "stale reads on pod 1 after reconnecting",
            run.stale_after_reconnect as f64,
            "reads",
        )
        .metric("longest staleness", ms(run.max_age() as f64), "ms")
        .metric(
            "longest staleness, pods that stayed connected",
            ms(run.max_age_connected as f64),
            "ms",
        )
        .metric("Redis GETs per second", run.gets_per_s(), "GETs/s")
        .metric("L1 hit rate", run.hit_pct(), "%")
        .metric(
            "invalidation messages received",
            run.messages as f64,
            "messages",
        )
        .metric(
            "L1 entries dropped by invalidations",
            run.evicted as f64,
            "entries",
        )
        .metric(
            "L1 entries flushed on reconnect",
            run.flushed as f64,
            "entries",
        )
        .metric(
            "reads that waited for pod 1's reconnection",
            run.waited as f64,
            "reads",
        );
    let age = |r: &CscRun| ms(r.max_age() as f64);
    let reconnected = run.reconnect_at.is_some();
    match (mode, flush) {
        (M_TTL, _) => {
            out.check(
                "ttl-only: with no invalidation, pods serve values Redis has replaced, for up to the L1 TTL",
                stale_until_ttl(run, ttl),
                format!(
                    "{} stale reads older than 5 ms, the longest {:.0} ms after the write on the pods that stayed connected (L1 TTL {:.0} ms)",
                    run.stale_late,
                    ms(run.max_age_connected as f64),
                    ms(ttl as f64)
                ),
            );
        }
        (_, true) => {
            out.check(
                &format!("{what}: every stale read is an invalidation still on its way (under 5 ms), on the pod that reconnected too"),
                fresh_within_a_trip(run) && reconnected,
                format!(
                    "{} stale reads, the longest {:.2} ms; {} invalidation messages; pod 1 flushed {} entries on reconnecting",
                    run.stale,
                    age(run),
                    run.messages,
                    run.flushed
                ),
            );
        }
        (_, false) => {
            out.check(
                &format!("{what} without flush-on-reconnect (meant to show the bug): pod 1 keeps serving values whose invalidations it missed"),
                stale_after_reconnect(run),
                format!(
                    "{} stale reads on pod 1 after reconnecting, the longest {:.0} ms old; pods that stayed connected at most {:.2} ms",
                    run.stale_after_reconnect,
                    ms(run.max_age_pod1 as f64),
                    ms(run.max_age_connected as f64)
                ),
            );
        }
    }
    if mode != M_TTL {
        let base = &runs[M_TTL];
        out.check(
            &format!("{what}: entries live until written, so the L1 serves more reads than ttl-only's and Redis gets fewer GETs"),
            run.hit_pct() > base.hit_pct() && run.gets < base.gets,
            format!(
                "L1 hit rate {:.1} % against {:.1} %, {:.0} GETs/s against {:.0}",
                run.hit_pct(),
                base.hit_pct(),
                run.gets_per_s(),
                base.gets_per_s()
            ),
        );
    }
    let flush_name = if flush {
        "flush on reconnect"
    } else {
        "no flush"
    };
    out.charts.push(
        Chart::line(
            "Oldest value served from L1, per 100 ms",
            "time (s)",
            "ms stale",
        )
        .with_all(runs.iter().zip(MODES).map(|(r, m)| {
            let points = (0..r.end.div_ceil(WINDOW))
                .map(|w| {
                    let t = (w * WINDOW) as f64 / SEC as f64;
                    (t, ms(*r.oldest.get(&w).unwrap_or(&0) as f64))
                })
                .collect();
            Series::new(m, points)
        })),
    );
    out.charts.push(
        Chart::bars("Stale reads older than 5 ms", "reads", &MODES).with_all([
            Series::per_category("flush on reconnect", on.iter().map(|r| r.stale_late as f64)),
            Series::per_category("no flush", off.iter().map(|r| r.stale_late as f64)),
        ]),
    );
    out.charts
        .push(
            Chart::bars("Reads reaching Redis", "GETs/s", &MODES).with(Series::per_category(
                "GETs/s",
                runs.iter().map(|r| r.gets_per_s()),
            )),
        );
    out.charts.push(
        Chart::bars("L1 hit rate", "%", &MODES).with(Series::per_category(
            "hit rate",
            runs.iter().map(|r| r.hit_pct()),
        )),
    );
    out.strips.push(Strip {
        title: format!(
            "Pod 1's L1 at the end, the {} hottest keys ({flush_name})",
            run.pod1_end.len()
        ),
        legend: vec!["not cached".into(), "fresh".into(), "stale".into()],
        rows: runs
            .iter()
            .zip(MODES)
            .map(|(r, m)| StripRow {
                label: m.to_string(),
                cells: r.pod1_end.clone(),
            })
            .collect(),
    });
    let pods = p.count("pods").clamp(2, 8);
    let reads = pods as f64 * p.get("reads-per-s");
    out.note(format!(
        "{what}, {flush_name}: {pods} pods read {} keys (Zipf s = {}) at {} reads/s each through an L1; {} writes; pod 1's connections were down from {:.0} ms to {:.0} ms.",
        p.count("keys"),
        p.get("zipf-s"),
        p.get("reads-per-s"),
        run.writes,
        ms((p.count("reconnect-at-ms") * MS) as f64),
        ms(((p.count("reconnect-at-ms") + p.count("outage-ms")) * MS) as f64)
    ));
    out.note(format!(
        "Traffic saved: without an L1 Redis would get {reads:.0} GETs/s; ttl-only sends {:.0} (hit rate {:.1} %), tracking {:.0} ({:.1} %), bcast {:.0} ({:.1} %).",
        runs[M_TTL].gets_per_s(),
        runs[M_TTL].hit_pct(),
        runs[M_TRACKING].gets_per_s(),
        runs[M_TRACKING].hit_pct(),
        runs[M_BCAST].gets_per_s(),
        runs[M_BCAST].hit_pct()
    ));
    out.note(format!(
        "Stale reads older than 5 ms, flush on reconnect / no flush: ttl-only {} / {}, tracking {} / {}, bcast {} / {}; the longest without a flush: {:.0}, {:.0} and {:.0} ms.",
        on[M_TTL].stale_late,
        off[M_TTL].stale_late,
        on[M_TRACKING].stale_late,
        off[M_TRACKING].stale_late,
        on[M_BCAST].stale_late,
        off[M_BCAST].stale_late,
        age(&off[M_TTL]),
        age(&off[M_TRACKING]),
        age(&off[M_BCAST])
    ));
    out.note(format!(
        "Invalidations: tracking sent {} messages (only to pods that read the key since its last invalidation), bcast {} (every write under the prefix to every pod, held or not); they dropped {} and {} L1 entries.",
        runs[M_TRACKING].messages,
        runs[M_BCAST].messages,
        runs[M_TRACKING].evicted,
        runs[M_BCAST].evicted
    ));
    if mode != M_TTL && !flush {
        out.note("Without the flush, default tracking is the worse of the two: the new connection has read none of the keys pod 1 kept, so Redis does not report even later writes to them, and those copies stay stale as long as they stay in the L1. BCAST reports every later write under the prefix, so only keys written during the outage and not since stay stale.");
    }
    out.diagram = runs.into_iter().nth(mode).and_then(|r| r.diagram);
    out
}

#[cfg(test)]
mod tests {
    use super::super::all_pass;
    use super::*;
    use crate::testing::{assert_choices, metric, run as with};

    #[test]
    fn tracking_is_fresh_unless_the_pod_keeps_its_l1_across_a_reconnection() {
        for m in MODES {
            for f in ["on", "off"] {
                all_pass(
                    "client-side-caching",
                    &[("mode", m), ("flush-on-reconnect", f)],
                );
            }
        }
        let p = Params::resolve(&CLIENT_SIDE_CACHING.info().params, &[]).unwrap();
        let ttl = p.count("l1-ttl-ms") * MS;
        for seed in 1..=3 {
            let ttl_only = csc_once(&p, seed, M_TTL, true, false);
            assert!(stale_until_ttl(&ttl_only, ttl) && !fresh_within_a_trip(&ttl_only));
            for m in [M_TRACKING, M_BCAST] {
                let flushed = csc_once(&p, seed, m, true, false);
                let kept = csc_once(&p, seed, m, false, false);
                // Each claim fails on the other setting.
                assert!(fresh_within_a_trip(&flushed) && !stale_after_reconnect(&flushed));
                assert!(stale_after_reconnect(&kept) && !fresh_within_a_trip(&kept));
                assert!(kept.max_age_connected <= GRACE, "seed {seed} mode {m}");
            }
        }
        // With no outage there is nothing to miss: the bug's claim has nothing to show.
        let o = with(
            "client-side-caching",
            1,
            &[("flush-on-reconnect", "off"), ("outage-ms", "0")],
        );
        assert!(!o.passed());
        assert_eq!(metric(&o, "stale reads older than 5 ms"), 0.0);
    }

    #[test]
    fn choices_match_the_description() {
        assert_choices("client-side-caching", "mode", &MODES.join(" "));
    }
}
