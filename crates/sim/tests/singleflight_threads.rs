//! The real singleflight `Group` under real threads: one execution for concurrent callers, panics reaching every waiter, DoChan deadlines, Forget, and different keys running in parallel.

use redsim_sim::singleflight::{Group, Panicked};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

fn spawn(job: Box<dyn FnOnce() + Send>) {
    thread::spawn(job);
}

/// Spins until `flag` is set, giving up after 10 s so a bug fails instead of hanging.
fn wait_for(flag: &AtomicBool) {
    for _ in 0..10_000 {
        if flag.load(Ordering::SeqCst) {
            return;
        }
        thread::sleep(Duration::from_millis(1));
    }
    panic!("flag never set");
}

/// A thread calling `do_call(key)` with a function that raises `started`,
/// waits for `release`, then lands with `land()`: a flight the test holds
/// open until it lets it go.
fn held_flight<K, V>(
    g: &Arc<Group<K, V>>,
    key: K,
    started: &Arc<AtomicBool>,
    release: &Arc<AtomicBool>,
    land: impl FnOnce() -> V + Send + 'static,
) -> thread::JoinHandle<(Result<V, Panicked>, bool)>
where
    K: Ord + Clone + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    let (g, started, release) = (Arc::clone(g), Arc::clone(started), Arc::clone(release));
    thread::spawn(move || {
        g.do_call(key, || {
            started.store(true, Ordering::SeqCst);
            wait_for(&release);
            land()
        })
    })
}

#[test]
fn concurrent_callers_share_one_execution() {
    const N: usize = 16;
    let g: Arc<Group<String, u64>> = Arc::new(Group::new());
    let runs = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(AtomicBool::new(false));
    let entered = Arc::new(Barrier::new(N + 1));
    let handles: Vec<_> = (0..N)
        .map(|_| {
            let (g, runs, release, entered) = (
                Arc::clone(&g),
                Arc::clone(&runs),
                Arc::clone(&release),
                Arc::clone(&entered),
            );
            thread::spawn(move || {
                entered.wait();
                g.do_call("user:1".to_string(), || {
                    runs.fetch_add(1, Ordering::SeqCst);
                    wait_for(&release);
                    42
                })
            })
        })
        .collect();
    entered.wait();
    // Every thread is past the barrier; give them time to reach the group.
    thread::sleep(Duration::from_millis(200));
    release.store(true, Ordering::SeqCst);
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(runs.load(Ordering::SeqCst), 1, "one execution for all");
    assert!(results.iter().all(|(v, _)| *v == Ok(42)));
    assert!(
        results.iter().all(|(_, shared)| *shared),
        "the leader's result was shared with everyone, the leader included"
    );
    assert!(!g.in_flight(&"user:1".to_string()));
}

#[test]
fn a_panic_reaches_every_waiter_and_no_one_hangs() {
    let g: Arc<Group<&'static str, u64>> = Arc::new(Group::new());
    let started = Arc::new(AtomicBool::new(false));
    let release = Arc::new(AtomicBool::new(false));
    let leader = held_flight(&g, "k", &started, &release, || panic!("db driver exploded"));
    wait_for(&started);
    let waiters: Vec<_> = (0..4)
        .map(|_| {
            let g = Arc::clone(&g);
            thread::spawn(move || g.do_call("k", || 0))
        })
        .collect();
    thread::sleep(Duration::from_millis(100));
    release.store(true, Ordering::SeqCst);
    assert!(leader.join().is_err(), "the leader's thread re-panics");
    for w in waiters {
        let (v, shared) = w.join().unwrap();
        assert_eq!(v, Err(Panicked("db driver exploded".into())));
        assert!(shared);
    }
    // The key is free again and works.
    assert_eq!(g.do_call("k", || 5), (Ok(5), false));
}

#[test]
fn do_chan_callers_give_up_on_their_deadline_while_the_flight_lands() {
    let g: Arc<Group<&'static str, &'static str>> = Arc::new(Group::new());
    let release = Arc::new(AtomicBool::new(false));
    let r = Arc::clone(&release);
    let first = g.do_chan(
        "k",
        move || {
            wait_for(&r);
            "value"
        },
        spawn,
    );
    let impatient = g.do_chan("k", || "never runs", spawn);
    assert_eq!(
        impatient.recv_timeout(Duration::from_millis(30)),
        Err(RecvTimeoutError::Timeout),
        "its deadline passes first"
    );
    drop(impatient);
    let patient = g.do_chan("k", || "never runs", spawn);
    release.store(true, Ordering::SeqCst);
    let a = first.recv_timeout(Duration::from_secs(10)).unwrap();
    let b = patient.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!((a.val, a.shared), (Ok("value"), true));
    assert_eq!((b.val, b.shared), (Ok("value"), true));
}

#[test]
fn forget_lets_the_next_caller_start_a_new_flight() {
    let g: Arc<Group<&'static str, u32>> = Arc::new(Group::new());
    let started = Arc::new(AtomicBool::new(false));
    let release = Arc::new(AtomicBool::new(false));
    let stuck = held_flight(&g, "k", &started, &release, || 1);
    wait_for(&started);
    assert!(g.in_flight(&"k"));
    g.forget(&"k");
    // Without Forget this would join the stuck flight and wait for it.
    assert_eq!(g.do_call("k", || 2), (Ok(2), false));
    release.store(true, Ordering::SeqCst);
    assert_eq!(stuck.join().unwrap(), (Ok(1), false));
}

#[test]
fn different_keys_do_not_wait_for_each_other() {
    let g: Arc<Group<u8, u8>> = Arc::new(Group::new());
    // Each function waits for the other to start: if the group serialised
    // different keys (one mutex around the call), this would never finish.
    let a_in = Arc::new(AtomicBool::new(false));
    let b_in = Arc::new(AtomicBool::new(false));
    let ta = held_flight(&g, 1, &a_in, &b_in, || 1);
    let tb = held_flight(&g, 2, &b_in, &a_in, || 2);
    assert_eq!(ta.join().unwrap(), (Ok(1), false));
    assert_eq!(tb.join().unwrap(), (Ok(2), false));
}
