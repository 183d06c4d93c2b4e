//! The discrete-event kernel scenarios are built on: a virtual clock with an ordered event queue, a seeded RNG, latency distributions, a database with a concurrency limit, network links, Redis nodes, and recorders for diagrams and metrics.
//!
//! A scenario defines its own event enum and a loop that pops events in time
//! order (ties broken by scheduling order, so runs are deterministic) and
//! reacts by scheduling more. Operations take virtual time: a request to
//! Redis travels a link, runs on the engine at its arrival instant and
//! travels back, so interleavings between actors come out of the timing,
//! not from a script.

use super::outcome::{Diagram, Lane, Mark, Series, Step};
use crate::against::{self, Backend};
use redsim_engine::keyspace::object::Value;
use redsim_engine::{ClientId, Engine, Frame, Options};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

pub use crate::time::{Micros, MS, SEC};

struct Pending<E> {
    at: Micros,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Pending<E> {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl<E> Eq for Pending<E> {}
impl<E> PartialOrd for Pending<E> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Pending<E> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

/// Sequence numbers of [`Queue::push`] start here, above every timer's,
/// so a timer comes first at its instant.
const EVENT_SEQ: u64 = 1 << 63;

/// The ordered event queue: events come out by time, ties in the order
/// they were scheduled (FIFO), except that a timer ([`Queue::timer`]) comes
/// before the other events of its instant, as a periodic cron runs before
/// the messages that arrive in the same tick. It keeps no clock: a host
/// with clocks of its own (the cluster bus) uses it directly; scenarios
/// use it through [`Kernel`].
pub struct Queue<E> {
    heap: BinaryHeap<Reverse<Pending<E>>>,
    seq: u64,
    timers: u64,
}

impl<E> Default for Queue<E> {
    fn default() -> Self {
        Queue {
            heap: BinaryHeap::new(),
            seq: EVENT_SEQ,
            timers: 0,
        }
    }
}

impl<E> Queue<E> {
    /// Schedules `ev` at `at`, after everything already scheduled then.
    pub fn push(&mut self, at: Micros, ev: E) {
        self.seq += 1;
        let seq = self.seq;
        self.heap.push(Reverse(Pending { at, seq, ev }));
    }

    /// Schedules a timer: at `at` it comes before the events [`Queue::push`] scheduled.
    #[inline]
    pub fn timer(&mut self, at: Micros, ev: E) {
        self.timers += 1;
        let seq = self.timers;
        self.heap.push(Reverse(Pending { at, seq, ev }));
    }

    /// The instant of the next event.
    #[inline]
    pub fn peek_at(&self) -> Option<Micros> {
        self.heap.peek().map(|Reverse(p)| p.at)
    }

    /// The next event and its instant, if it is due by `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Micros) -> Option<(Micros, E)> {
        if self.peek_at()? > until {
            return None;
        }
        let Reverse(p) = self.heap.pop()?;
        Some((p.at, p.ev))
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// The event queue, clock, RNG and recorder of one run.
pub struct Kernel<E> {
    now: Micros,
    queue: Queue<E>,
    pub rng: fastrand::Rng,
    pub rec: Recorder,
}

impl<E> Kernel<E> {
    pub fn new(seed: u64) -> Kernel<E> {
        Kernel {
            now: 0,
            queue: Queue::default(),
            rng: fastrand::Rng::with_seed(seed),
            rec: Recorder::default(),
        }
    }

    /// The current virtual time.
    pub fn now(&self) -> Micros {
        self.now
    }

    /// Schedules `ev` at `at` (never in the past: an event for an earlier
    /// instant happens now).
    #[inline]
    pub fn at(&mut self, at: Micros, ev: E) {
        self.queue.push(at.max(self.now), ev);
    }

    /// Schedules `ev` after `delay`.
    pub fn after(&mut self, delay: Micros, ev: E) {
        self.at(self.now.saturating_add(delay), ev);
    }

    /// The next event, moving the clock to it; none once the queue is empty
    /// or the next event lies beyond `until`.
    #[inline]
    pub fn next(&mut self, until: Micros) -> Option<E> {
        let Reverse(p) = self.queue.heap.peek()?;
        if p.at > until {
            return None;
        }
        let Reverse(p) = self.queue.heap.pop()?;
        self.now = p.at;
        Some(p.ev)
    }

    /// Moves the clock to `t` when nothing is scheduled before it (the end of a run).
    pub fn finish_at(&mut self, t: Micros) {
        self.now = self.now.max(t);
    }

    /// Events still waiting.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// When the next event is due, if any.
    pub fn peek_at(&self) -> Option<Micros> {
        self.queue.peek_at()
    }
}

/// A latency distribution: `base` plus uniform jitter, plus a rare tail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dist {
    pub base: Micros,
    pub jitter: Micros,
    /// Probability of adding `tail` (a slow query, a retransmit).
    pub tail_p: f64,
    pub tail: Micros,
}

impl Dist {
    pub const fn fixed(us: Micros) -> Dist {
        Dist {
            base: us,
            jitter: 0,
            tail_p: 0.0,
            tail: 0,
        }
    }

    pub const fn jittered(base: Micros, jitter: Micros) -> Dist {
        Dist {
            base,
            jitter,
            tail_p: 0.0,
            tail: 0,
        }
    }

    #[inline]
    pub fn sample(&self, rng: &mut fastrand::Rng) -> Micros {
        let mut t = self.base;
        if self.jitter > 0 {
            t += rng.u64(0..=self.jitter);
        }
        if self.tail_p > 0.0 && rng.f64() < self.tail_p {
            t += self.tail;
        }
        t
    }

    /// The mean, for predictions to compare with what a run measures.
    pub fn mean(&self) -> f64 {
        self.base as f64 + self.jitter as f64 / 2.0 + self.tail_p * self.tail as f64
    }
}

/// A network link between two actors. A paused or cut link delivers nothing.
#[derive(Clone, Debug)]
pub struct Link {
    pub latency: Dist,
    pub cut: bool,
}

impl Link {
    pub fn new(latency: Dist) -> Link {
        Link {
            latency,
            cut: false,
        }
    }

    /// One-way delay of a message sent now, or none if the link is cut.
    #[inline]
    pub fn delay(&self, rng: &mut fastrand::Rng) -> Option<Micros> {
        (!self.cut).then(|| self.latency.sample(rng))
    }
}

/// A database: rows with versions, `limit` queries served at once in
/// arrival order, the rest queued, so overload shows as rising latency.
///
/// Timing and state are separate on purpose: [`Database::reserve`] says
/// when a query starts and ends; the scenario schedules an event at the end
/// and reads or writes rows there, so a read sees exactly the writes that
/// committed before it finished.
#[derive(Clone, Debug)]
pub struct Database {
    pub read: Dist,
    pub write: Dist,
    pub limit: usize,
    /// When each of the `limit` slots becomes free.
    slots: Vec<Micros>,
    pub rows: BTreeMap<String, Row>,
    /// Queries served, and how many were in flight at most.
    pub queries: u64,
    pub reads: u64,
    pub writes: u64,
    in_flight: Vec<Micros>,
    pub peak_concurrency: usize,
    /// Fails every query while set (a DB outage), as an error reply.
    pub down: bool,
}

/// A row: value and a version bumped by every write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub value: String,
    pub version: u64,
}

impl Database {
    pub fn new(read: Dist, write: Dist, limit: usize) -> Database {
        Database {
            read,
            write,
            limit: limit.max(1),
            slots: vec![0; limit.max(1)],
            rows: BTreeMap::new(),
            queries: 0,
            reads: 0,
            writes: 0,
            in_flight: Vec::new(),
            peak_concurrency: 0,
            down: false,
        }
    }

    /// Books a query arriving at `now`: it waits for a free slot, then runs
    /// for a sampled service time. Returns (start, end).
    pub fn reserve(
        &mut self,
        now: Micros,
        write: bool,
        rng: &mut fastrand::Rng,
    ) -> (Micros, Micros) {
        let service = if write { self.write } else { self.read }.sample(rng);
        let (i, free) = self
            .slots
            .iter()
            .enumerate()
            .min_by_key(|(_, t)| **t)
            .map(|(i, t)| (i, *t))
            .unwrap_or((0, now));
        let start = free.max(now);
        let end = start + service;
        if let Some(s) = self.slots.get_mut(i) {
            *s = end;
        }
        self.queries += 1;
        if write {
            self.writes += 1;
        } else {
            self.reads += 1;
        }
        self.in_flight.retain(|&e| e > now);
        self.in_flight.push(end);
        self.peak_concurrency = self.peak_concurrency.max(self.in_flight.len());
        (start, end)
    }

    /// Queries booked and not finished at `now` (running or queued).
    pub fn concurrency(&self, now: Micros) -> usize {
        self.in_flight.iter().filter(|&&e| e > now).count()
    }

    pub fn get(&self, key: &str) -> Option<&Row> {
        self.rows.get(key)
    }

    /// Commits a write, returning the row's new version.
    pub fn put(&mut self, key: &str, value: &str) -> u64 {
        let row = self.rows.entry(key.to_string()).or_insert(Row {
            value: String::new(),
            version: 0,
        });
        row.value = value.to_string();
        row.version += 1;
        row.version
    }
}

/// A Redis node in a scenario: an engine whose clock follows the kernel's,
/// or, inside [`against::with_backend`], a backend such as a real server.
pub struct Redis {
    node: Node,
    clients: BTreeMap<String, ClientId>,
    /// The last connection id handed out on a backend.
    next_id: ClientId,
    pub commands: u64,
}

// The in-process engine is the common case and stays inline; a remote
// node is rare and pays for its box.
#[allow(clippy::large_enum_variant)]
enum Node {
    Local(Engine),
    Remote(Box<dyn Backend>),
}

/// Why [`Redis::engine`] panics on a remote node: the scenario reads engine
/// internals and its description must say it cannot run against a server.
const ENGINE_ONLY: &str =
    "this scenario reads engine internals, which a remote server cannot answer: \
     its description must say why it does not run --against";

impl Redis {
    /// A node with tracing off (scenarios record what they need) and the
    /// given `CONFIG SET`s applied.
    pub fn new(seed: u64, config: &[(&str, &str)]) -> Redis {
        let node = match against::next_backend() {
            Some(b) => Node::Remote(b),
            None => {
                let mut opts = Options::new(seed);
                opts.trace_capacity = 0;
                Node::Local(Engine::with_options(opts))
            }
        };
        let mut r = Redis {
            node,
            clients: BTreeMap::new(),
            next_id: 0,
            commands: 0,
        };
        for (k, v) in config {
            let reply = r.exec(0, "setup", &["CONFIG", "SET", k, v]);
            debug_assert!(!reply.is_error(), "CONFIG SET {k} {v}: {reply:?}");
        }
        r
    }

    /// Whether commands go to a backend rather than an in-process engine.
    pub fn is_remote(&self) -> bool {
        matches!(self.node, Node::Remote(_))
    }

    /// The in-process engine, for views and drivers a server's replies
    /// cannot give. Panics on a remote node.
    pub fn engine(&self) -> &Engine {
        match &self.node {
            Node::Local(e) => e,
            Node::Remote(_) => panic!("{ENGINE_ONLY}"),
        }
    }

    /// [`Redis::engine`], mutably.
    pub fn engine_mut(&mut self) -> &mut Engine {
        match &mut self.node {
            Node::Local(e) => e,
            Node::Remote(_) => panic!("{ENGINE_ONLY}"),
        }
    }

    /// Runs a command from connection `who` at virtual time `at` (the
    /// engine's clock is moved there first, running its cron on the way).
    #[inline]
    pub fn exec(&mut self, at: Micros, who: &str, args: &[&str]) -> Frame {
        let bytes: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        self.exec_bytes(at, who, &bytes)
    }

    pub fn exec_bytes(&mut self, at: Micros, who: &str, args: &[Vec<u8>]) -> Frame {
        let id = match self.clients.get(who) {
            Some(id) => *id,
            None => {
                let id = self.connect(who);
                self.clients.insert(who.to_string(), id);
                id
            }
        };
        self.execute(at, id, args)
    }

    /// Opens a connection for a client named `who` (one that blocks,
    /// subscribes or is closed by a crash) and returns its id.
    pub fn connect(&mut self, who: &str) -> ClientId {
        match &mut self.node {
            Node::Local(e) => e.connect(who),
            Node::Remote(b) => {
                self.next_id += 1;
                b.connect(self.next_id, who);
                self.next_id
            }
        }
    }

    /// Moves an in-process engine's clock to `at` (never back), running its
    /// cron on the way; a backend keeps its own time.
    pub fn sync(&mut self, at: Micros) {
        if let Node::Local(e) = &mut self.node {
            if at > e.now_us() {
                e.advance_to(at);
            }
        }
    }

    /// Runs a command on connection `id` at `at` (the engine's clock moved
    /// there first); a blocking command answers as on timeout.
    pub fn execute(&mut self, at: Micros, id: ClientId, args: &[Vec<u8>]) -> Frame {
        self.commands += 1;
        match &mut self.node {
            Node::Local(e) => {
                if at > e.now_us() {
                    e.advance_to(at);
                }
                e.execute(id, args)
            }
            Node::Remote(b) => b.execute(at, id, args),
        }
    }

    /// Runs a command on connection `id` at `at`; `None` when the client
    /// blocks, and its reply comes later from [`Redis::take_unblocked`].
    pub fn submit(&mut self, at: Micros, id: ClientId, args: &[Vec<u8>]) -> Option<Frame> {
        self.commands += 1;
        match &mut self.node {
            Node::Local(e) => {
                if at > e.now_us() {
                    e.advance_to(at);
                }
                e.submit(id, args)
            }
            Node::Remote(b) => b.submit(at, id, args),
        }
    }

    /// Replies for blocked clients the last commands served, and messages
    /// pushed to subscribers, by connection.
    pub fn take_unblocked(&mut self, at: Micros) -> Vec<(ClientId, Frame)> {
        match &mut self.node {
            Node::Local(e) => e.take_unblocked(),
            Node::Remote(b) => b.take_unblocked(at),
        }
    }

    /// What the server does once its event loop has run a batch of
    /// commands (`beforeSleep`): among others, it sends the BCAST
    /// invalidations collected since. A server does this by itself after
    /// every command; an in-process engine only when told (or on its cron
    /// ticks), so scenarios that need it prompt call this after a write.
    pub fn before_sleep(&mut self, at: Micros) {
        match &mut self.node {
            Node::Local(e) => {
                if at > e.now_us() {
                    e.advance_to(at);
                }
                e.before_sleep();
            }
            Node::Remote(b) => b.before_sleep(at),
        }
    }

    /// Closes connection `id`; a client blocked on it stops waiting.
    pub fn disconnect(&mut self, at: Micros, id: ClientId) {
        match &mut self.node {
            Node::Local(e) => e.disconnect(id),
            Node::Remote(b) => b.disconnect(at, id),
        }
    }

    /// The string cached under `key` at `at` and the instant it expires,
    /// for trackers: read without side effects from an engine, and with GET
    /// and PTTL from connection `observer` on a backend. Another type reads
    /// as `<type>`.
    pub fn peek_string(&mut self, at: Micros, key: &str) -> (Option<String>, Option<Micros>) {
        let (value, exp) = match &self.node {
            Node::Local(e) => {
                let Some(value) = e.peek(0, key.as_bytes()) else {
                    return (None, None);
                };
                let exp = e.ttl_ms(0, key.as_bytes()).map(|left_ms| {
                    let left_us = left_ms.saturating_mul(1000);
                    (e.now_us() as i64).saturating_add(left_us).max(0) as Micros
                });
                let text = match value {
                    Value::String(s) => String::from_utf8_lossy(&s.to_bytes()).into_owned(),
                    other => format!("<{}>", other.type_name()),
                };
                (text, exp)
            }
            Node::Remote(_) => {
                let text = match self.exec(at, "observer", &["GET", key]) {
                    Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
                    Frame::Error(_) => match self.exec(at, "observer", &["TYPE", key]) {
                        Frame::Simple(t) => format!("<{t}>"),
                        _ => "<?>".to_string(),
                    },
                    _ => return (None, None),
                };
                let exp = match self.exec(at, "observer", &["PTTL", key]) {
                    Frame::Integer(ms) if ms >= 0 => Some(at + ms as Micros * MS),
                    _ => None,
                };
                (text, exp)
            }
        };
        if exp.is_some_and(|x| x <= at) {
            return (None, None);
        }
        (Some(value), exp)
    }
}

/// A reply's text for diagrams and checks: bulk and status as text, nil as "(nil)".
pub fn reply_text(f: &Frame) -> String {
    redsim_engine::proto::clifmt::format_reply(f)
}

/// The step [`Recorder::msg`] just drew (none when the cap dropped it).
pub struct Sent<'a>(Option<&'a mut Step>);

impl Sent<'_> {
    /// Draws the message as failed or refused.
    pub fn failed(self) {
        if let Some(step) = self.0 {
            step.error = true;
        }
    }
}

/// Records what views draw: a race diagram (capped, so huge runs stay
/// drawable), plus time series.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub diagram: Diagram,
    /// Steps beyond this many are counted but not kept.
    pub step_cap: usize,
    pub dropped_steps: u64,
}

impl Recorder {
    /// Adds a lane, returning its index.
    pub fn lane(&mut self, name: &str, kind: &str) -> usize {
        if let Some(i) = self.diagram.lanes.iter().position(|l| l.name == name) {
            return i;
        }
        self.diagram.lanes.push(Lane {
            name: name.to_string(),
            kind: kind.to_string(),
        });
        self.diagram.lanes.len() - 1
    }

    /// A message from one lane to another, sent at `at` and received at
    /// `until`; [`Sent::failed`] marks it failed or refused.
    pub fn msg(
        &mut self,
        at: Micros,
        until: Micros,
        from: usize,
        to: usize,
        label: impl Into<String>,
    ) -> Sent<'_> {
        let cap = if self.step_cap == 0 {
            400
        } else {
            self.step_cap
        };
        if self.diagram.steps.len() >= cap {
            self.dropped_steps += 1;
            return Sent(None);
        }
        self.diagram.steps.push(Step {
            at_us: at,
            until_us: until.max(at),
            from,
            to,
            label: label.into(),
            error: false,
        });
        Sent(self.diagram.steps.last_mut())
    }

    /// Something an actor does by itself (a pause, a crash, a decision).
    pub fn local(&mut self, at: Micros, until: Micros, lane: usize, label: impl Into<String>) {
        self.msg(at, until, lane, lane, label);
    }

    /// Marks the moment something goes wrong (`bad`), a fix works (`good`), or a note (`info`).
    pub fn mark(&mut self, at: Micros, lane: usize, tone: &str, text: impl Into<String>) {
        self.diagram.marks.push(Mark {
            at_us: at,
            lane,
            text: text.into(),
            tone: tone.to_string(),
        });
    }

    /// The diagram, sorted by time for playback.
    pub fn take_diagram(&mut self) -> Diagram {
        let mut d = std::mem::take(&mut self.diagram);
        d.steps.sort_by_key(|s| s.at_us);
        d.marks.sort_by_key(|m| m.at_us);
        d
    }
}

/// Counts per fixed window of virtual time, for rates (QPS) and hit ratios.
#[derive(Clone, Debug)]
pub struct Meter {
    pub window: Micros,
    buckets: BTreeMap<u64, (f64, f64)>,
}

impl Meter {
    pub fn new(window: Micros) -> Meter {
        Meter {
            window: window.max(1),
            buckets: BTreeMap::new(),
        }
    }

    /// Counts `n` events at `t` (the numerator of a ratio).
    #[inline]
    pub fn add(&mut self, t: Micros, n: f64) {
        self.buckets.entry(t / self.window).or_default().0 += n;
    }

    /// Counts one trial at `t`, a hit or not, for ratio series.
    #[inline]
    pub fn trial(&mut self, t: Micros, hit: bool) {
        let b = self.buckets.entry(t / self.window).or_default();
        b.1 += 1.0;
        if hit {
            b.0 += 1.0;
        }
    }

    /// Events per second in each window from 0 to `end`, x in seconds.
    pub fn rate(&self, name: &str, end: Micros) -> Series {
        let per_sec = SEC as f64 / self.window as f64;
        let n = end.div_ceil(self.window);
        let pts = (0..n)
            .map(|w| {
                let v = self.buckets.get(&w).map_or(0.0, |b| b.0);
                ((w * self.window) as f64 / SEC as f64, v * per_sec)
            })
            .collect();
        Series::new(name, pts)
    }

    /// Numerator over trials per window, as a percentage, skipping empty windows.
    pub fn ratio(&self, name: &str) -> Series {
        let pts = self
            .buckets
            .iter()
            .filter(|(_, b)| b.1 > 0.0)
            .map(|(w, b)| ((w * self.window) as f64 / SEC as f64, 100.0 * b.0 / b.1))
            .collect();
        Series::new(name, pts)
    }

    /// Total of the numerator.
    pub fn total(&self) -> f64 {
        self.buckets.values().map(|b| b.0).sum()
    }

    /// Total trials.
    pub fn trials(&self) -> f64 {
        self.buckets.values().map(|b| b.1).sum()
    }
}

/// Latency samples, for percentiles overall and per window.
#[derive(Clone, Debug, Default)]
pub struct Latencies {
    samples: Vec<(Micros, Micros)>,
}

impl Latencies {
    /// A request that started at `start` and took `took`.
    #[inline]
    pub fn record(&mut self, start: Micros, took: Micros) {
        self.samples.push((start, took));
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The q-quantile (0..=1) in µs by the nearest-rank method; 0 when empty.
    pub fn quantile(&self, q: f64) -> Micros {
        let mut v: Vec<Micros> = self.samples.iter().map(|s| s.1).collect();
        quantile_of(&mut v, q)
    }

    pub fn mean(&self) -> f64 {
        if self.samples.is_empty() {
            return 0.0;
        }
        self.samples.iter().map(|s| s.1 as f64).sum::<f64>() / self.samples.len() as f64
    }

    pub fn max(&self) -> Micros {
        self.samples.iter().map(|s| s.1).max().unwrap_or(0)
    }

    /// The q-quantile per window in ms, x in seconds, skipping empty windows.
    pub fn quantile_series(&self, name: &str, q: f64, window: Micros) -> Series {
        let mut by: BTreeMap<u64, Vec<Micros>> = BTreeMap::new();
        for &(s, t) in &self.samples {
            by.entry(s / window.max(1)).or_default().push(t);
        }
        let pts = by
            .into_iter()
            .map(|(w, mut v)| {
                (
                    (w * window) as f64 / SEC as f64,
                    quantile_of(&mut v, q) as f64 / MS as f64,
                )
            })
            .collect();
        Series::new(name, pts)
    }
}

fn quantile_of(v: &mut [Micros], q: f64) -> Micros {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    let rank = ((q.clamp(0.0, 1.0) * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_in_time_then_schedule_order() {
        let mut k: Kernel<&str> = Kernel::new(1);
        k.at(20, "c");
        k.at(10, "a");
        k.at(10, "b");
        let mut seen = Vec::new();
        while let Some(e) = k.next(u64::MAX) {
            seen.push((k.now(), e));
            if e == "a" {
                k.after(0, "a2");
            }
        }
        assert_eq!(seen, vec![(10, "a"), (10, "b"), (10, "a2"), (20, "c")]);
    }

    #[test]
    fn timers_come_first_at_their_instant() {
        let mut q: Queue<&str> = Queue::default();
        q.push(10, "message");
        q.push(5, "early");
        q.timer(10, "cron");
        q.push(10, "later message");
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(u64::MAX)).collect();
        assert_eq!(
            order,
            vec![
                (5, "early"),
                (10, "cron"),
                (10, "message"),
                (10, "later message")
            ]
        );
        assert!(q.is_empty());
    }

    #[test]
    fn next_stops_at_the_horizon() {
        let mut k: Kernel<u8> = Kernel::new(1);
        k.at(5, 1);
        k.at(50, 2);
        assert_eq!(k.next(10), Some(1));
        assert_eq!(k.next(10), None);
        assert_eq!(k.pending(), 1);
    }

    #[test]
    fn a_saturated_database_queues() {
        let mut rng = fastrand::Rng::with_seed(1);
        let mut db = Database::new(Dist::fixed(10 * MS), Dist::fixed(10 * MS), 2);
        let ends: Vec<Micros> = (0..5).map(|_| db.reserve(0, false, &mut rng).1).collect();
        assert_eq!(ends, vec![10 * MS, 10 * MS, 20 * MS, 20 * MS, 30 * MS]);
        assert_eq!(db.peak_concurrency, 5);
        assert_eq!(db.concurrency(15 * MS), 3);
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let mut l = Latencies::default();
        for i in 1..=100 {
            l.record(0, i);
        }
        assert_eq!((l.quantile(0.5), l.quantile(0.99), l.max()), (50, 99, 100));
    }

    #[test]
    fn meters_give_rates_and_ratios() {
        let mut m = Meter::new(SEC);
        m.trial(0, true);
        m.trial(10, false);
        m.trial(SEC + 1, true);
        assert_eq!(m.ratio("h").points, vec![(0.0, 50.0), (1.0, 100.0)]);
        let mut q = Meter::new(SEC / 2);
        q.add(0, 3.0);
        assert_eq!(q.rate("qps", SEC).points, vec![(0.0, 6.0), (0.5, 0.0)]);
    }

    #[test]
    fn redis_nodes_follow_the_kernel_clock() {
        let mut r = Redis::new(1, &[]);
        r.exec(0, "a", &["SET", "k", "v", "PX", "100"]);
        assert_eq!(reply_text(&r.exec(50 * MS, "a", &["GET", "k"])), "\"v\"");
        assert_eq!(reply_text(&r.exec(150 * MS, "b", &["GET", "k"])), "(nil)");
    }
}
