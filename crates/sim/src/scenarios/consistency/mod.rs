//! Consistency lessons: cache/DB and atomicity races, and the small actor runtime they share: actors that send real commands to a Redis node, query a database (primary or lagging replica) and pause, with every interleaving coming out of sampled latencies.
//!
//! An actor is a state machine written by its scenario: the scenario asks
//! the `Sim` for the next resumption (`next`), looks at what the actor got
//! (a reply, a row, an error, the end of a pause) and tells it what to do
//! next (`act`). The runtime carries the request over a link, runs it on the
//! engine at its arrival instant (FIFO per connection, as TCP is), and
//! brings the answer back, recording arrows per trial so one interesting
//! trial can be drawn out of hundreds.
//!
//! A tracker compares the cache with the database after every write on
//! either side. Between two writes only expiry can change the cache, and
//! its instant is known, so stale windows are measured exactly, not sampled.

use crate::kernel::Recorder;
use crate::kernel::{reply_text, Database, Dist, Kernel, Micros, Redis, Row, MS, SEC};
use crate::outcome::{Chart, Diagram, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use redsim_engine::Frame;
use std::collections::BTreeMap;

mod atomic;
mod atomic_ttl;
mod delete_order;
mod negative;
mod penetration;
mod versioned;
mod writes;

pub use atomic::{INCR_VS_GET_SET, PIPELINE_MULTI_LUA};
pub use atomic_ttl::SET_THEN_EXPIRE;
pub use delete_order::{DELETE_BEFORE_UPDATE, UPDATE_THEN_DELETE};
pub use negative::NEGATIVE_CACHING_EXTRAS;
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
    /// How many times it was resumed.
    steps: u8,
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
            redis: Redis::new(seeds::salted(seed, seeds::RACE_REDIS), &[]),
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

    /// Whether `v`, read from the cache, is what the database holds for
    /// `key` now (a missing row reads as empty).
    fn is_latest(&self, key: &str, v: &[u8]) -> bool {
        v == self.db.get(key).map_or("", |r| r.value.as_str()).as_bytes()
    }

    /// A writer's own work between its commit and its cache write: a
    /// uniform pause up to `jitter`, labelled when long enough to see.
    fn app_work(&mut self, jitter: Micros) -> Act {
        let d = self.uniform(0, jitter);
        let label = if d >= MS / 2 {
            format!("app work {:.1} ms", ms(d))
        } else {
            String::new()
        };
        Act::Pause(d, label)
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
            steps: 0,
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
        let sent = r.msg(at, until, f, t, label);
        if error {
            sent.failed();
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

    /// [`Sim::next`], with the actor's step: how many times it was
    /// resumed before this one.
    #[inline]
    fn next_step(&mut self, until: Micros) -> Option<(usize, u8, Got)> {
        let (a, got) = self.next(until)?;
        let x = &mut self.actors[a];
        let step = x.steps;
        x.steps += 1;
        Some((a, step, got))
    }

    /// The next actor to resume and why, running the runtime's own events
    /// on the way; none when nothing is left before `until`.
    #[inline]
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
    /// without side effects (on a real server, with GET and PTTL).
    fn peek(&mut self, key: &str) -> (Option<String>, Option<Micros>) {
        let now = self.now();
        self.redis.peek_string(now, key)
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

/// What a one-race scenario plays back: a chart of the version each reader
/// was served (`served`) against the database's (v1 until the commit, v2
/// after), the race diagram, and the run's length.
fn show_race(
    out: &mut Outcome,
    sim: &mut Sim,
    served: Vec<(f64, f64)>,
    commit_at: Micros,
    end: Micros,
) {
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
}

/// Two writers and a reader per trial and variant, on key
/// `<variant>:<trial>` whose row starts as "old" (tracked when `track`):
/// trial `i` starts at `i × spacing`, each writer within `spread` of it
/// (the same offsets for both variants, so they race alike), the reader
/// `reader_at` after it; each trial and variant draws in its own diagram.
/// Returns per actor (key, value, role): roles 0 and 1 are the writers A
/// and B (value their name), 2 the reader.
fn writer_trials(
    sim: &mut Sim,
    trials: usize,
    spacing: Micros,
    variants: [&str; 2],
    spread: Micros,
    reader_at: Micros,
    track: bool,
) -> Vec<(String, String, u8)> {
    let mut who = Vec::new();
    for i in 0..trials {
        let t0 = i as Micros * spacing;
        let (sa, sb) = (sim.uniform(0, spread), sim.uniform(0, spread));
        for (v, variant) in variants.iter().enumerate() {
            let key = format!("{variant}:{i}");
            sim.seed_row(&key, "old");
            if track {
                sim.track(&key);
            }
            let g = Some(v * trials + i);
            let a = sim.actor("writer A", "client", g);
            let b = sim.actor("writer B", "client", g);
            let r = sim.actor("reader", "client", g);
            sim.start(a, t0 + sa);
            sim.start(b, t0 + sb);
            sim.start(r, t0 + reader_at);
            who.push((key.clone(), "A".into(), 0));
            who.push((key.clone(), "B".into(), 1));
            who.push((key, String::new(), 2));
        }
    }
    who
}

/// A latency with mean `mean` and ±40% uniform jitter.
fn around(mean: Micros) -> Dist {
    let j = mean * 4 / 5;
    Dist::jittered(mean - j / 2, j)
}

/// Every claim holds for seeds 1..=3, each run with a race diagram.
#[cfg(test)]
fn passes(s: &Scenario) {
    for o in crate::testing::all_pass(s, &[]) {
        assert!(o.diagram.is_some(), "{} has a diagram", o.id);
    }
}
