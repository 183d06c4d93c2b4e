//! Singleflight as Go's x/sync/singleflight: a per-pod [`SimGroup`] for the simulated world (Do, DoChan with a caller deadline, Forget, the error path), and a real thread-safe [`Group`] for native Rust users.
//!
//! Both dedupe *concurrent* calls for one key: the first caller (the
//! leader) does the work, callers arriving while it runs wait and receive
//! its result, and the key is released as soon as the leader finishes, so
//! singleflight is not a cache. A group lives in one process: 20 pods with
//! 20 groups still make 20 database calls for one expired key.
//!
//! The simulated group is a plain state machine because in the
//! discrete-event world nobody blocks: a "waiter" is whatever token the
//! scenario needs to resume a request later (a request id). The scenario
//! asks [`SimGroup::join`] whether it leads; a leader runs its load on the
//! virtual clock and calls [`SimGroup::finish`], which hands back the
//! waiters to resume with the shared result (or the shared error: Go turns
//! a panic in the function into an error every waiter sees, so none hangs).
//! A DoChan caller with a deadline schedules its own timeout and calls
//! [`SimGroup::abandon`]; the leader carries on regardless and its result
//! still lands for everyone who kept waiting.
//!
//! [`Group`] is the same contract under real threads: a map under a mutex
//! (held only to look up or insert, never while the function runs) and one
//! condition variable per flight that waiters sleep on. The engine crate
//! must not name a thread API (it compiles to wasm), so [`Group::do_chan`]
//! takes the spawner from the caller; natively that is `thread::spawn` from the standard library.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Identifies one flight (one execution of the function for one key).
pub type FlightId = u64;

/// What [`SimGroup::join`] decided for a caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joined {
    /// No flight for the key: the caller runs the load and must call
    /// [`SimGroup::finish`] with this id.
    Leader(FlightId),
    /// A flight is running: the caller waits for it.
    Follower(FlightId),
}

impl Joined {
    pub fn flight(self) -> FlightId {
        match self {
            Joined::Leader(f) | Joined::Follower(f) => f,
        }
    }
}

#[derive(Clone, Debug)]
struct Flight<W> {
    key: String,
    waiters: Vec<W>,
    /// Callers that joined, including those that gave up since: Go's `dups`.
    dups: u64,
}

/// Counters over a group's life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlightStats {
    /// Calls to `join`.
    pub calls: u64,
    /// Flights started (each is one execution of the load: one DB call).
    pub executions: u64,
    /// Calls that joined an existing flight.
    pub shared: u64,
    /// Waiters that gave up on their own deadline.
    pub abandoned: u64,
    /// Flights finished with an error, which every waiter received.
    pub errors: u64,
    /// Forget calls that detached a running flight.
    pub forgotten: u64,
}

/// What [`SimGroup::finish`] hands back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Landed<W> {
    pub key: String,
    /// Callers still waiting, to resume with the leader's result.
    pub waiters: Vec<W>,
    /// Go's `shared` flag for the leader: someone joined its flight.
    pub shared: bool,
}

/// One pod's singleflight group on the virtual clock. `W` is the scenario's
/// token for a waiting caller (a request id).
#[derive(Clone, Debug)]
pub struct SimGroup<W> {
    /// The flight new callers join, by key.
    current: BTreeMap<String, FlightId>,
    /// Every unfinished flight, current or forgotten.
    flights: BTreeMap<FlightId, Flight<W>>,
    next_id: FlightId,
    pub stats: FlightStats,
}

impl<W> Default for SimGroup<W> {
    fn default() -> Self {
        SimGroup {
            current: BTreeMap::new(),
            flights: BTreeMap::new(),
            next_id: 0,
            stats: FlightStats::default(),
        }
    }
}

impl<W: PartialEq> SimGroup<W> {
    pub fn new() -> SimGroup<W> {
        SimGroup::default()
    }

    /// `Do`/`DoChan`: the caller leads a new flight or waits for the running one.
    /// A follower's `waiter` is kept until the flight lands or it abandons.
    pub fn join(&mut self, key: &str, waiter: W) -> Joined {
        self.stats.calls += 1;
        if let Some(&id) = self.current.get(key) {
            if let Some(f) = self.flights.get_mut(&id) {
                f.dups += 1;
                f.waiters.push(waiter);
                self.stats.shared += 1;
                return Joined::Follower(id);
            }
        }
        self.next_id += 1;
        let id = self.next_id;
        self.current.insert(key.to_string(), id);
        self.flights.insert(
            id,
            Flight {
                key: key.to_string(),
                waiters: Vec::new(),
                dups: 0,
            },
        );
        self.stats.executions += 1;
        Joined::Leader(id)
    }

    /// The leader's load ended (`ok` false for an error or a panic): the
    /// key is released and the waiters still there come back to be resumed
    /// with the same result. Unknown flights give nothing.
    pub fn finish(&mut self, flight: FlightId, ok: bool) -> Landed<W> {
        let Some(f) = self.flights.remove(&flight) else {
            return Landed {
                key: String::new(),
                waiters: Vec::new(),
                shared: false,
            };
        };
        if self.current.get(&f.key) == Some(&flight) {
            self.current.remove(&f.key);
        }
        if !ok {
            self.stats.errors += 1;
        }
        Landed {
            key: f.key,
            waiters: f.waiters,
            shared: f.dups > 0,
        }
    }

    /// A DoChan caller's own deadline passed: it stops waiting (the flight
    /// goes on). True if it was still waiting, false if the result had
    /// already reached it (then the timeout is moot).
    pub fn abandon(&mut self, flight: FlightId, waiter: &W) -> bool {
        let Some(f) = self.flights.get_mut(&flight) else {
            return false;
        };
        let Some(i) = f.waiters.iter().position(|w| w == waiter) else {
            return false;
        };
        f.waiters.remove(i);
        self.stats.abandoned += 1;
        true
    }

    /// `Forget`: the next caller for `key` starts a new flight instead of
    /// joining the running one (which still lands for its own waiters).
    pub fn forget(&mut self, key: &str) {
        if self.current.remove(key).is_some() {
            self.stats.forgotten += 1;
        }
    }

    /// True while a flight that new callers would join runs for `key`.
    pub fn in_flight(&self, key: &str) -> bool {
        self.current.contains_key(key)
    }

    /// Callers waiting on `flight` right now.
    pub fn waiting(&self, flight: FlightId) -> usize {
        self.flights.get(&flight).map_or(0, |f| f.waiters.len())
    }
}

/// The function of a flight panicked; every caller of that flight gets
/// this (the leader's own thread re-raises the panic after waking them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panicked(pub String);

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "singleflight: function panicked: {}", self.0)
    }
}

impl std::error::Error for Panicked {}

/// A flight's result as DoChan delivers it: Go's `Result{Val, Err, Shared}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shared<V> {
    pub val: Result<V, Panicked>,
    pub shared: bool,
}

struct CallState<V> {
    result: Option<Result<V, Panicked>>,
    dups: usize,
    chans: Vec<Sender<Shared<V>>>,
}

struct Call<V> {
    state: Mutex<CallState<V>>,
    done: Condvar,
}

/// A thread-safe singleflight group for native users.
///
/// `K` is ordered rather than hashed because the engine crate avoids
/// std's OS-seeded hashers; values are cloned out to every caller.
pub struct Group<K, V> {
    calls: Mutex<BTreeMap<K, Arc<Call<V>>>>,
}

impl<K: Ord + Clone, V: Clone> Default for Group<K, V> {
    fn default() -> Self {
        Group {
            calls: Mutex::new(BTreeMap::new()),
        }
    }
}

/// Locks ignoring poison: no lock here is held while user code runs, so a
/// poisoned lock can only come from a panic between two of our own lines.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

enum Role<V> {
    Lead(Arc<Call<V>>),
    Wait(Arc<Call<V>>),
}

impl<K: Ord + Clone, V: Clone> Group<K, V> {
    pub fn new() -> Group<K, V> {
        Group::default()
    }

    fn enter(&self, key: &K) -> Role<V> {
        let mut m = lock(&self.calls);
        if let Some(c) = m.get(key) {
            lock(&c.state).dups += 1;
            return Role::Wait(Arc::clone(c));
        }
        // Registered before the map lock is released, so a caller arriving
        // right after finds the flight and waits for it (Go's wg.Add(1)
        // under the mutex).
        let c = Arc::new(Call {
            state: Mutex::new(CallState {
                result: None,
                dups: 0,
                chans: Vec::new(),
            }),
            done: Condvar::new(),
        });
        m.insert(key.clone(), Arc::clone(&c));
        Role::Lead(c)
    }

    /// Runs `f` as the leader: releases the key, stores the result, wakes
    /// every waiter and channel. Returns the result, the shared flag and
    /// the panic payload to re-raise, if any.
    fn run_lead<F: FnOnce() -> V>(
        &self,
        key: &K,
        c: &Arc<Call<V>>,
        f: F,
    ) -> (
        Result<V, Panicked>,
        bool,
        Option<Box<dyn std::any::Any + Send>>,
    ) {
        let (result, payload) = match catch_unwind(AssertUnwindSafe(f)) {
            Ok(v) => (Ok(v), None),
            Err(p) => (Err(Panicked(panic_text(p.as_ref()))), Some(p)),
        };
        {
            let mut m = lock(&self.calls);
            // After a Forget the key may belong to a newer flight: leave it.
            if m.get(key).is_some_and(|cur| Arc::ptr_eq(cur, c)) {
                m.remove(key);
            }
        }
        let mut st = lock(&c.state);
        st.result = Some(result.clone());
        let shared = st.dups > 0;
        for tx in st.chans.drain(..) {
            // A receiver that went away (its caller gave up) is fine.
            let _ = tx.send(Shared {
                val: result.clone(),
                shared,
            });
        }
        drop(st);
        c.done.notify_all();
        (result, shared, payload)
    }

    fn wait(c: &Call<V>) -> Result<V, Panicked> {
        let mut st = lock(&c.state);
        loop {
            if let Some(r) = &st.result {
                return r.clone();
            }
            st = c.done.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// `Do`: runs `f` once for concurrent callers of `key`; returns its
    /// value and whether it was shared. If `f` panics, waiters get
    /// `Err(Panicked)` and the leader's thread re-panics after waking them.
    pub fn do_call<F: FnOnce() -> V>(&self, key: K, f: F) -> (Result<V, Panicked>, bool) {
        match self.enter(&key) {
            Role::Wait(c) => (Self::wait(&c), true),
            Role::Lead(c) => {
                let (r, shared, payload) = self.run_lead(&key, &c, f);
                if let Some(p) = payload {
                    resume_unwind(p);
                }
                (r, shared)
            }
        }
    }

    /// `Forget`: later callers of `key` start a new flight; the running
    /// one still delivers to those already waiting.
    pub fn forget(&self, key: &K) {
        lock(&self.calls).remove(key);
    }

    /// True while a flight for `key` runs (and has not been forgotten).
    pub fn in_flight(&self, key: &K) -> bool {
        lock(&self.calls).contains_key(key)
    }
}

impl<K, V> Group<K, V>
where
    K: Ord + Clone + Send + Sync + 'static,
    V: Clone + Send + 'static,
{
    /// `DoChan`: like [`Group::do_call`] but returns at once with a channel
    /// the result arrives on, so the caller can stop waiting on its own
    /// deadline (`recv_timeout`) while the flight finishes for the others.
    /// A leader's `f` runs on whatever `spawn` starts it with (natively
    /// `|job| { thread::spawn(job); }`); a panic in it is delivered as
    /// `Err(Panicked)` and not re-raised, since no caller would catch it.
    pub fn do_chan<F, S>(self: &Arc<Self>, key: K, f: F, spawn: S) -> Receiver<Shared<V>>
    where
        F: FnOnce() -> V + Send + 'static,
        S: FnOnce(Box<dyn FnOnce() + Send>),
    {
        let (tx, rx) = channel();
        match self.enter(&key) {
            Role::Wait(c) => {
                let mut st = lock(&c.state);
                match &st.result {
                    // Landed between our lookup and now: deliver directly.
                    Some(r) => {
                        let _ = tx.send(Shared {
                            val: r.clone(),
                            shared: true,
                        });
                    }
                    None => st.chans.push(tx),
                }
            }
            Role::Lead(c) => {
                lock(&c.state).chans.push(tx);
                let g = Arc::clone(self);
                spawn(Box::new(move || {
                    let _ = g.run_lead(&key, &c, f);
                }));
            }
        }
        rx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn followers_wait_for_the_leader_and_the_key_is_released() {
        let mut g: SimGroup<u32> = SimGroup::new();
        let a = g.join("k", 1);
        assert!(matches!(a, Joined::Leader(_)));
        assert_eq!(g.join("k", 2), Joined::Follower(a.flight()));
        assert_eq!(g.join("k", 3), Joined::Follower(a.flight()));
        assert!(matches!(g.join("other", 4), Joined::Leader(_)));
        let landed = g.finish(a.flight(), true);
        assert_eq!((landed.waiters, landed.shared), (vec![2, 3], true));
        assert!(!g.in_flight("k"));
        // Not a cache: the next call leads a new flight.
        assert!(matches!(g.join("k", 5), Joined::Leader(_)));
        assert_eq!(g.stats.executions, 3);
        assert_eq!(g.stats.shared, 2);
    }

    #[test]
    fn a_lone_leader_is_not_shared_and_errors_reach_every_waiter() {
        let mut g: SimGroup<u32> = SimGroup::new();
        let a = g.join("k", 1).flight();
        assert!(!g.finish(a, true).shared);
        let b = g.join("k", 1).flight();
        g.join("k", 2);
        let landed = g.finish(b, false);
        assert_eq!(landed.waiters, vec![2]);
        assert_eq!(g.stats.errors, 1);
    }

    #[test]
    fn an_abandoning_caller_leaves_and_the_flight_goes_on() {
        let mut g: SimGroup<u32> = SimGroup::new();
        let f = g.join("k", 1).flight();
        g.join("k", 2);
        g.join("k", 3);
        assert!(g.abandon(f, &2));
        assert!(!g.abandon(f, &2), "already gone");
        assert_eq!(g.waiting(f), 1);
        let landed = g.finish(f, true);
        assert_eq!(landed.waiters, vec![3]);
        // Its dup still counted: the leader's result was shared.
        assert!(landed.shared);
        assert!(!g.abandon(f, &3), "the flight has landed");
    }

    #[test]
    fn forget_starts_a_new_flight_while_the_old_one_finishes() {
        let mut g: SimGroup<u32> = SimGroup::new();
        let old = g.join("k", 1).flight();
        g.join("k", 2);
        g.forget("k");
        let new = g.join("k", 3);
        assert!(matches!(new, Joined::Leader(_)));
        assert_ne!(new.flight(), old);
        g.join("k", 4);
        // The old flight lands for its own waiter only and keeps the new one.
        assert_eq!(g.finish(old, true).waiters, vec![2]);
        assert!(g.in_flight("k"));
        assert_eq!(g.finish(new.flight(), true).waiters, vec![4]);
    }

    #[test]
    fn the_real_group_works_on_one_thread() {
        let g: Group<String, u32> = Group::new();
        let (v, shared) = g.do_call("a".into(), || 7);
        assert_eq!((v, shared), (Ok(7), false));
        assert!(!g.in_flight(&"a".to_string()));
        let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
            g.do_call("p".into(), || -> u32 { panic!("boom") })
        }));
        assert!(r.is_err(), "the leader re-raises the panic");
        assert!(!g.in_flight(&"p".to_string()), "and releases the key");
        let g = Arc::new(g);
        let rx = g.do_chan("c".into(), || 9, |job| job());
        assert_eq!(
            rx.recv(),
            Ok(Shared {
                val: Ok(9),
                shared: false
            })
        );
    }
}
