//! Cache/DB consistency and atomicity races (issue 5), and the small actor runtime they share: actors that send real commands to a Redis node, query a database (primary or lagging replica) and pause, with every interleaving coming out of sampled latencies.
//!
//! An actor is a state machine written by its scenario: the scenario asks
//! the [`Sim`] for the next resumption (`next`), looks at what the actor got
//! (a reply, a row, an error, the end of a pause) and tells it what to do
//! next (`act`). The runtime carries the request over a link, runs it on the
//! engine at its arrival instant (FIFO per connection, as TCP is), and
//! brings the answer back, recording arrows per trial so one interesting
//! trial can be drawn out of hundreds.
//!
//! A tracker compares the cache with the database after every write on
//! either side. Between two writes only expiry can change the cache, and
//! its instant is known, so stale windows are measured exactly, not sampled.

use super::kernel::{reply_text, Database, Dist, Kernel, Micros, Redis, Row, MS, SEC};
use super::Scenario;
use super::{Chart, Diagram, Outcome, ParamSpec, Params, Recorder, ScenarioInfo, Series};
use redsim_engine::keyspace::object::Value;
use redsim_engine::Frame;
use std::collections::BTreeMap;

#[path = "races_atomic.rs"]
mod atomic;
#[path = "races_penetration.rs"]
mod penetration;
#[path = "races_versioned.rs"]
mod versioned;
#[path = "races_writes.rs"]
mod writes;

pub use atomic::{INCR_VS_GET_SET, PIPELINE_MULTI_LUA};
pub use penetration::PENETRATION;
pub use versioned::VERSIONED_WRITES;
pub use writes::{DOUBLE_DELETE, OVERWRITE_VS_DELETE};

/// What an actor does next.
enum Act {
    /// One command to Redis; the reply resumes the actor.
    Cmd(Vec<String>),
    /// Commands written back to back, `gap` apart (a pipeline split over
    /// several packets); each runs when it arrives, so other clients'
    /// commands can land in between. The last reply resumes the actor.
    Pipe(Vec<Vec<String>>, Micros),
    /// A query to the primary database.
    Read(String),
    /// A query to the replica, which applies commits after a lag.
    ReadReplica(String),
    /// An UPDATE on the primary; resumes with the new row (value and version).
    Write(String, String),
    /// The actor stops for a while (GC pause, a sleep, app work).
    Pause(Micros, String),
    /// The actor is finished.
    Done,
}

/// What resumed an actor.
#[derive(Clone, Debug)]
enum Got {
    Start,
    Reply(Frame),
    Replies(Vec<Frame>),
    Row(Option<Row>),
    /// The database answered with an error (outage).
    DbDown,
    /// The message never arrived (dropped, or the sender crashed).
    Lost,
    Woke,
}

#[derive(Clone, Debug)]
enum DbReq {
    Read(String),
    ReadReplica(String),
    Write(String, String),
}

enum Ev {
    Resume(usize, Got),
    Arrive {
        actor: usize,
        args: Vec<String>,
        sent: Micros,
        piped: bool,
    },
    DbArrive {
        actor: usize,
        op: DbReq,
        sent: Micros,
    },
    DbDone {
        actor: usize,
        op: DbReq,
        sent: Micros,
    },
}

struct Actor {
    name: String,
    kind: &'static str,
    conn: String,
    /// Diagram this actor draws into; none for unrecorded background load.
    group: Option<usize>,
    /// Latest arrival on each direction of its connection (TCP keeps order).
    up_fifo: Micros,
    down_fifo: Micros,
    pipe: Vec<Frame>,
    pipe_left: usize,
    /// While set, its messages to Redis are lost.
    cut: bool,
    /// A value the actor carries between steps (what it read, what it will write).
    carry: String,
}

/// A read replica: commits reach it after a sampled lag.
struct Replica {
    lag: Dist,
    applied: Vec<(Micros, String, Row)>,
}

impl Replica {
    /// The newest version of `key` applied by `at`.
    fn read(&self, key: &str, at: Micros) -> Option<Row> {
        self.applied
            .iter()
            .filter(|(t, k, _)| *t <= at && k == key)
            .max_by_key(|(_, _, r)| r.version)
            .map(|(_, _, r)| r.clone())
    }
}

/// Stale spans of one key: intervals where the cache held a value
/// different from the database's.
#[derive(Clone, Debug, Default)]
struct Track {
    /// An open span: since when, and when the cached value expires.
    open: Option<(Micros, Micros)>,
    spans: Vec<(Micros, Micros)>,
    /// When each span began.
    landed: Vec<Micros>,
}

impl Track {
    fn total(&self) -> Micros {
        self.spans.iter().map(|(a, b)| b - a).sum()
    }
}

/// One command as Redis ran it, for scenarios that reason about order.
#[derive(Clone, Debug)]
struct Exec {
    at: Micros,
    actor: usize,
    args: Vec<String>,
    reply: Frame,
}

/// Latencies of a race world.
#[derive(Clone, Copy, Debug)]
struct Lat {
    /// One way, app to Redis.
    redis: Dist,
    /// One way, app to the database.
    db_net: Dist,
    read: Dist,
    write: Dist,
}

impl Lat {
    fn new(read: Dist, write: Dist) -> Lat {
        Lat {
            redis: Dist::jittered(200, 200),
            db_net: Dist::jittered(200, 200),
            read,
            write,
        }
    }
}

/// Actors, a Redis node, a database with a replica, and the trackers.
struct Sim {
    k: Kernel<Ev>,
    redis: Redis,
    db: Database,
    replica: Replica,
    lat: Lat,
    actors: Vec<Actor>,
    recs: BTreeMap<usize, Recorder>,
    log_execs: bool,
    execs: Vec<Exec>,
    tracks: BTreeMap<String, Track>,
    /// GETs that returned a value the database no longer had.
    stale_reads: u64,
}

impl Sim {
    fn new(seed: u64, lat: Lat) -> Sim {
        Sim {
            k: Kernel::new(seed),
            redis: Redis::new(seed ^ 0x5eed, &[]),
            db: Database::new(lat.read, lat.write, 16),
            replica: Replica {
                lag: Dist::fixed(0),
                applied: Vec::new(),
            },
            lat,
            actors: Vec::new(),
            recs: BTreeMap::new(),
            log_execs: false,
            execs: Vec::new(),
            tracks: BTreeMap::new(),
            stale_reads: 0,
        }
    }

    fn now(&self) -> Micros {
        self.k.now()
    }

    fn rng(&mut self) -> &mut fastrand::Rng {
        &mut self.k.rng
    }

    /// A uniform draw in `lo..=hi` µs.
    fn uniform(&mut self, lo: Micros, hi: Micros) -> Micros {
        self.k.rng.u64(lo..=hi.max(lo))
    }

    /// Adds an actor with its own connection, drawing into `group`.
    fn actor(&mut self, name: &str, kind: &'static str, group: Option<usize>) -> usize {
        self.actors.push(Actor {
            name: name.to_string(),
            kind,
            conn: name.to_string(),
            group,
            up_fifo: 0,
            down_fifo: 0,
            pipe: Vec::new(),
            pipe_left: 0,
            cut: false,
            carry: String::new(),
        });
        // Lanes appear in the order actors are created.
        if let Some(g) = group {
            self.rec(g).lane(name, kind);
        }
        self.actors.len() - 1
    }

    fn start(&mut self, a: usize, at: Micros) {
        self.k.at(at, Ev::Resume(a, Got::Start));
    }

    /// A row present from the start, on the primary and the replica.
    fn seed_row(&mut self, key: &str, value: &str) {
        let version = self.db.put(key, value);
        let row = Row {
            value: value.to_string(),
            version,
        };
        self.replica.applied.push((0, key.to_string(), row));
    }

    /// Starts comparing `key`'s cached value with the database.
    fn track(&mut self, key: &str) {
        self.tracks.insert(key.to_string(), Track::default());
        self.observe(key);
    }

    fn rec(&mut self, group: usize) -> &mut Recorder {
        self.recs.entry(group).or_default()
    }

    /// An arrow (or a local step when `to` is `from`) in `group`'s diagram.
    #[allow(clippy::too_many_arguments)]
    fn draw(
        &mut self,
        group: Option<usize>,
        at: Micros,
        until: Micros,
        from: (&str, &str),
        to: (&str, &str),
        label: String,
        error: bool,
    ) {
        let Some(g) = group else { return };
        let r = self.rec(g);
        let f = r.lane(from.0, from.1);
        let t = r.lane(to.0, to.1);
        if error {
            r.err(at, until, f, t, label);
        } else {
            r.msg(at, until, f, t, label);
        }
    }

    /// A mark on lane `lane` (created as a client lane if new).
    fn mark(&mut self, group: usize, at: Micros, lane: &str, tone: &str, text: String) {
        let kind = match lane {
            "redis" => "redis",
            "db" | "replica" => "db",
            _ => "client",
        };
        let r = self.rec(group);
        let l = r.lane(lane, kind);
        r.mark(at, l, tone, text);
    }

    /// A local step on an actor's lane.
    fn note_local(&mut self, a: usize, at: Micros, until: Micros, label: String) {
        let Some(x) = self.actors.get(a) else { return };
        let (g, n, k) = (x.group, x.name.clone(), x.kind);
        self.draw(g, at, until, (&n, k), (&n, k), label, false);
    }

    /// `group`'s diagram with lanes ordered clients, Redis, databases.
    fn take_diagram(&mut self, group: usize) -> Option<Diagram> {
        let mut d = self.recs.remove(&group)?.take_diagram();
        let rank = |k: &str| match k {
            "redis" => 1,
            "db" => 2,
            _ => 0,
        };
        let mut order: Vec<usize> = (0..d.lanes.len()).collect();
        order.sort_by_key(|&i| (rank(&d.lanes[i].kind), i));
        let mut new_of = vec![0; d.lanes.len()];
        for (new, &old) in order.iter().enumerate() {
            new_of[old] = new;
        }
        d.lanes = order.iter().map(|&i| d.lanes[i].clone()).collect();
        for s in &mut d.steps {
            s.from = new_of[s.from];
            s.to = new_of[s.to];
        }
        for m in &mut d.marks {
            m.lane = new_of[m.lane];
        }
        Some(d)
    }

    /// Tells actor `a` what to do next.
    fn act(&mut self, a: usize, act: Act) {
        let now = self.now();
        match act {
            Act::Cmd(args) => self.send(a, args, now, false),
            Act::Pipe(cmds, gap) => {
                if let Some(x) = self.actors.get_mut(a) {
                    x.pipe.clear();
                    x.pipe_left = cmds.len();
                }
                for (i, c) in cmds.into_iter().enumerate() {
                    self.send(a, c, now + i as Micros * gap, true);
                }
            }
            Act::Read(key) => self.ask_db(a, DbReq::Read(key)),
            Act::ReadReplica(key) => self.ask_db(a, DbReq::ReadReplica(key)),
            Act::Write(key, value) => self.ask_db(a, DbReq::Write(key, value)),
            Act::Pause(d, label) => {
                if !label.is_empty() {
                    self.note_local(a, now, now + d, label);
                }
                self.k.after(d, Ev::Resume(a, Got::Woke));
            }
            Act::Done => {}
        }
    }

    fn send(&mut self, a: usize, args: Vec<String>, at: Micros, piped: bool) {
        let d = self.lat.redis.sample(&mut self.k.rng);
        let Some(x) = self.actors.get_mut(a) else {
            return;
        };
        if x.cut {
            let (g, n, k) = (x.group, x.name.clone(), x.kind);
            let label = format!("{} ✗ lost", label_of(&args));
            self.draw(g, at, at + d, (&n, k), ("redis", "redis"), label, true);
            self.k.at(at + d, Ev::Resume(a, Got::Lost));
            return;
        }
        let arrive = (at + d).max(x.up_fifo);
        x.up_fifo = arrive;
        self.k.at(
            arrive,
            Ev::Arrive {
                actor: a,
                args,
                sent: at,
                piped,
            },
        );
    }

    fn ask_db(&mut self, a: usize, op: DbReq) {
        let d = self.lat.db_net.sample(&mut self.k.rng);
        let sent = self.now();
        self.k.after(d, Ev::DbArrive { actor: a, op, sent });
    }

    /// The next actor to resume and why, running the runtime's own events
    /// on the way; none when nothing is left before `until`.
    fn next(&mut self, until: Micros) -> Option<(usize, Got)> {
        loop {
            match self.k.next(until)? {
                Ev::Resume(a, g) => return Some((a, g)),
                Ev::Arrive {
                    actor,
                    args,
                    sent,
                    piped,
                } => self.arrive(actor, args, sent, piped),
                Ev::DbArrive { actor, op, sent } => {
                    let write = matches!(op, DbReq::Write(..));
                    let now = self.now();
                    let (_, end) = self.db.reserve(now, write, &mut self.k.rng);
                    self.k.at(end, Ev::DbDone { actor, op, sent });
                }
                Ev::DbDone { actor, op, sent } => self.db_done(actor, op, sent),
            }
        }
    }

    fn arrive(&mut self, a: usize, args: Vec<String>, sent: Micros, piped: bool) {
        let now = self.now();
        let Some(x) = self.actors.get(a) else { return };
        let (g, n, k, conn) = (x.group, x.name.clone(), x.kind, x.conn.clone());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let reply = self.redis.exec(now, &conn, &refs);
        self.draw(
            g,
            sent,
            now,
            (&n, k),
            ("redis", "redis"),
            label_of(&args),
            false,
        );
        let key = key_of(&args);
        if args.first().is_some_and(|c| c.eq_ignore_ascii_case("GET")) {
            if let (Frame::Bulk(v), Some(key)) = (&reply, &key) {
                if self.tracks.contains_key(key)
                    && self.db.get(key).map(|r| r.value.as_bytes()) != Some(v.as_slice())
                {
                    self.stale_reads += 1;
                }
            }
        }
        if let Some(key) = &key {
            if self.tracks.contains_key(key) {
                self.observe(key);
            }
        }
        let d = self.lat.redis.sample(&mut self.k.rng);
        let Some(x) = self.actors.get_mut(a) else {
            return;
        };
        let back = (now + d).max(x.down_fifo);
        x.down_fifo = back;
        let resume = if piped {
            x.pipe.push(reply.clone());
            x.pipe_left = x.pipe_left.saturating_sub(1);
            (x.pipe_left == 0).then(|| Got::Replies(std::mem::take(&mut x.pipe)))
        } else {
            Some(Got::Reply(reply.clone()))
        };
        let text = short(&reply_text(&reply).replace('\n', " "));
        self.draw(
            g,
            now,
            back,
            ("redis", "redis"),
            (&n, k),
            text,
            reply.is_error(),
        );
        if self.log_execs {
            self.execs.push(Exec {
                at: now,
                actor: a,
                args,
                reply,
            });
        }
        if let Some(got) = resume {
            self.k.at(back, Ev::Resume(a, got));
        }
    }

    fn db_done(&mut self, a: usize, op: DbReq, sent: Micros) {
        let now = self.now();
        let Some(x) = self.actors.get(a) else { return };
        let (g, n, k) = (x.group, x.name.clone(), x.kind);
        let (lane, ask) = match &op {
            DbReq::Read(key) => ("db", format!("SELECT {key}")),
            DbReq::ReadReplica(key) => ("replica", format!("SELECT {key} (replica)")),
            DbReq::Write(key, v) => ("db", format!("UPDATE {key}={v}")),
        };
        let got = if self.db.down {
            Got::DbDown
        } else {
            match op {
                DbReq::Read(key) => Got::Row(self.db.get(&key).cloned()),
                DbReq::ReadReplica(key) => Got::Row(self.replica.read(&key, now)),
                DbReq::Write(key, value) => {
                    let version = self.db.put(&key, &value);
                    let row = Row { value, version };
                    let lag = self.replica.lag.sample(&mut self.k.rng);
                    self.replica
                        .applied
                        .push((now + lag, key.clone(), row.clone()));
                    if self.tracks.contains_key(&key) {
                        self.observe(&key);
                    }
                    Got::Row(Some(row))
                }
            }
        };
        let answer = match &got {
            Got::Row(Some(r)) => format!("{} (v{})", r.value, r.version),
            Got::Row(None) => "no row".to_string(),
            _ => "error: DB unavailable".to_string(),
        };
        let back = now + self.lat.db_net.sample(&mut self.k.rng);
        let err = matches!(got, Got::DbDown);
        self.draw(g, sent, now, (&n, k), (lane, "db"), ask, err);
        self.draw(g, now, back, (lane, "db"), (&n, k), answer, err);
        self.k.at(back, Ev::Resume(a, got));
    }

    /// The string cached under `key` now, and when it expires (µs), read
    /// without side effects.
    fn peek(&self, key: &str) -> (Option<String>, Option<Micros>) {
        let e = &self.redis.engine;
        let Some(value) = e.peek(0, key.as_bytes()) else {
            return (None, None);
        };
        let exp = e.ttl_ms(0, key.as_bytes()).map(|left_ms| {
            let left_us = left_ms.saturating_mul(1000);
            (e.now_us() as i64).saturating_add(left_us).max(0) as Micros
        });
        if exp.is_some_and(|x| x <= self.now()) {
            return (None, None);
        }
        let text = match value {
            Value::String(s) => String::from_utf8_lossy(&s.to_bytes()).into_owned(),
            other => format!("<{}>", other.type_name()),
        };
        (Some(text), exp)
    }

    /// Re-evaluates `key` after a write on either side.
    fn observe(&mut self, key: &str) {
        let now = self.now();
        let (cache, exp) = self.peek(key);
        let db = self.db.get(key).map(|r| r.value.clone());
        let stale = cache.is_some() && cache != db;
        let exp = exp.unwrap_or(Micros::MAX);
        let Some(t) = self.tracks.get_mut(key) else {
            return;
        };
        if let Some((s, e)) = t.open {
            if e <= now {
                t.spans.push((s, e));
                t.open = None;
            } else if !stale {
                t.spans.push((s, now));
                t.open = None;
            } else {
                t.open = Some((s, exp));
                return;
            }
        }
        if stale {
            t.open = Some((now, exp));
            t.landed.push(now);
        }
    }

    /// Closes open stale spans at `end` (or at their expiry if earlier).
    fn finish(&mut self, end: Micros) {
        self.k.finish_at(end);
        for t in self.tracks.values_mut() {
            if let Some((s, e)) = t.open.take() {
                t.spans.push((s, e.min(end).max(s)));
            }
        }
    }

    /// Cache writes by actors named `writer…`, per key, in execution order:
    /// (when, writer). One pass, so trial analyses stay linear.
    fn writer_execs(&self) -> BTreeMap<String, Vec<(Micros, String)>> {
        let mut by: BTreeMap<String, Vec<(Micros, String)>> = BTreeMap::new();
        for e in &self.execs {
            let Some(name) = self.actors.get(e.actor).map(|a| &a.name) else {
                continue;
            };
            if let (true, Some(key)) = (name.starts_with("writer"), key_of(&e.args)) {
                by.entry(key).or_default().push((e.at, name.clone()));
            }
        }
        by
    }

    /// The tracker of `key` (empty if untracked).
    fn track_of(&self, key: &str) -> Track {
        self.tracks.get(key).cloned().unwrap_or_default()
    }
}

/// The key a command is about: KEYS[1] for scripts, else the first argument.
fn key_of(args: &[String]) -> Option<String> {
    let cmd = args.first()?.to_ascii_uppercase();
    let i = if cmd == "EVAL" || cmd == "EVALSHA" {
        3
    } else {
        1
    };
    args.get(i).cloned()
}

/// A command as a diagram label: scripts by their arguments, long values cut.
fn label_of(args: &[String]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if i == 1 && args[0].eq_ignore_ascii_case("EVAL") {
            parts.push("<script>".into());
        } else {
            parts.push(short(a));
        }
    }
    parts.join(" ")
}

fn short(s: &str) -> String {
    if s.chars().count() > 40 {
        let mut t: String = s.chars().take(39).collect();
        t.push('…');
        t
    } else {
        s.to_string()
    }
}

fn cmd(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

/// The version number in a value written as `v{n}` (0 for anything else).
fn version_of(v: &[u8]) -> f64 {
    std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.strip_prefix('v'))
        .and_then(|s| s.split('-').next())
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(0.0)
}

fn ms(us: Micros) -> f64 {
    us as f64 / MS as f64
}

fn secs(us: Micros) -> f64 {
    us as f64 / SEC as f64
}

fn p_ms(p: &Params, name: &str) -> Micros {
    (p.get(name) * MS as f64).round().max(0.0) as Micros
}

// ---------------------------------------------------------------------------
// 5. delete-before-update

pub const DELETE_BEFORE_UPDATE: Scenario = Scenario {
    info: dbu_info,
    run: dbu_run,
};

fn dbu_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "delete-before-update",
        group: "consistency",
        title: "Delete the cache, then update the DB",
        claim: "Deleting the cached value before the UPDATE commits lets a reader miss, load the old row and put it back, where it stays until its TTL expires.",
        look_for: "The writer's DEL lands first; the UPDATE is slower than a SELECT, so a reader that misses in between reads v1 from the DB and SETs it with a fresh TTL. The red mark is where the old value lands: every reader after it is served v1 although the DB holds v2, until the TTL runs out. Make the UPDATE faster than the SELECT and the window shrinks or vanishes.",
        params: vec![
            ParamSpec::num("ttl", 2000.0, (200.0, 10000.0, 100.0), "ms", "TTL readers give the value they cache: the stale window's bound"),
            ParamSpec::num("db_write", 25.0, (1.0, 200.0, 1.0), "ms", "mean time of the UPDATE (jitter ±40%)"),
            ParamSpec::num("db_read", 4.0, (1.0, 100.0, 1.0), "ms", "mean time of a SELECT (jitter ±40%)"),
            ParamSpec::num("reader_every", 4.0, (1.0, 50.0, 1.0), "ms", "mean gap between two readers of the key"),
        ],
    }
}

/// A latency with mean `mean` and ±40% uniform jitter.
fn around(mean: Micros) -> Dist {
    let j = mean * 4 / 5;
    Dist::jittered(mean - j / 2, j)
}

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
    let db_line = vec![
        (0.0, 1.0),
        (secs(commit_at), 1.0),
        (secs(commit_at), 2.0),
        (secs(end), 2.0),
    ];
    out.charts.push(
        Chart::line("Version each reader got", "time (s)", "version")
            .with(Series::new("served", served))
            .with(Series::new("in the DB", db_line)),
    );
    out.diagram = sim.take_diagram(0);
    out.duration_us = end;
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

// ---------------------------------------------------------------------------
// 6. update-then-delete

pub const UPDATE_THEN_DELETE: Scenario = Scenario {
    info: utd_info,
    run: utd_run,
};

fn utd_info() -> ScenarioInfo {
    ScenarioInfo {
        id: "update-then-delete",
        group: "consistency",
        title: "Update the DB, then delete the cache",
        claim: "Updating first and deleting after leaves one rare race: a reader that loaded the old row before the commit and is delayed past the DEL puts the old value back until its TTL.",
        look_for: "Each trial has one writer (UPDATE, then DEL) and one reader that misses, SELECTs and SETs. The race needs the reader's SELECT to finish before the commit and its SET to land after the DEL, so it needs a pause in between longer than the UPDATE: a GC pause that hits a few readers. The sweep chart shows the window opening as the reader's delay grows past the write time.",
        params: vec![
            ParamSpec::num("reader_delay", 60.0, (0.0, 300.0, 5.0), "ms", "pause between the reader's SELECT and its SET when a GC pause hits"),
            ParamSpec::num("pause_chance", 10.0, (0.0, 100.0, 1.0), "%", "chance that a reader is hit by that pause"),
            ParamSpec::num("db_write", 20.0, (1.0, 200.0, 1.0), "ms", "mean time of the UPDATE (jitter ±40%)"),
            ParamSpec::num("ttl", 1000.0, (100.0, 10000.0, 100.0), "ms", "TTL of cached values: how long a stale one lives"),
            ParamSpec::num("trials", 200.0, (20.0, 1000.0, 10.0), "trials", "independent writer/reader pairs, each on its own key"),
        ],
    }
}

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
            seed.wrapping_add(1000 + i as u64),
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
    use super::*;

    fn run(s: &Scenario, seed: u64, set: &[(&str, &str)]) -> Outcome {
        crate::run_with((s.info)().id, seed, set).unwrap()
    }

    pub(super) fn passes(s: &Scenario) {
        for seed in 1..=3 {
            let o = run(s, seed, &[]);
            assert!(o.passed(), "{} seed {seed}: {:#?}", (s.info)().id, o.checks);
            assert!(o.diagram.is_some(), "{} has a diagram", (s.info)().id);
        }
    }

    pub(super) fn with(s: &Scenario, seed: u64, set: &[(&str, &str)]) -> Outcome {
        run(s, seed, set)
    }

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
