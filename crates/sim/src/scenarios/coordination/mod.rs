//! Coordination lessons: a distributed lock in six variants, a lock with no TTL, Redlock over five masters and its missing fencing token, rate limits, job queues, pub/sub against streams, a slow subscriber cut off by its output buffer limit and at-least-once delivery, write-behind counters and SCAN against KEYS; and the reply helpers they share.
//!
//! Every client here is a small state machine driven by kernel events:
//! commands travel a [`Link`](crate::kernel::Link), run on a real engine at their arrival
//! instant (`SET NX PX`, `EVAL`, `INCR`...) and the reply travels back. A
//! paused client (a GC pause, a stalled thread) is modelled by deferring
//! all of its own events until the pause ends, so the lock keeps expiring
//! on the server while the client sleeps, exactly the hazard the lessons
//! are about. "Holding" is what a client *believes*: from the acquire
//! reply until it starts releasing (or learns it lost the lock); two
//! believed holders at once is the failure the diagrams mark.

mod lock;
mod lock_ttl;
mod queues;
mod rate_limits;
mod redlock;
mod redlock_fencing;
mod scan;
mod slow_subscriber;
mod streams;
mod write_behind;

pub use lock::DISTRIBUTED_LOCK;
pub use lock_ttl::LOCK_WITHOUT_TTL;
pub use queues::{PUBSUB_VS_STREAMS, QUEUES};
pub use rate_limits::RATE_LIMITS;
pub use redlock::REDLOCK;
pub use redlock_fencing::REDLOCK_NO_FENCING;
pub use scan::SCAN_VS_KEYS;
pub use slow_subscriber::SLOW_SUBSCRIBER;
pub use streams::STREAMS_AT_LEAST_ONCE;
pub use write_behind::WRITE_BEHIND_COUNTERS;

use crate::kernel::{reply_text, Kernel, Micros, Recorder, MS};
use redsim_engine::proto::resp::Frame;

/// Compare-and-delete: the only safe unlock for a lock with a TTL.
const UNLOCK_LUA: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/// Microseconds as milliseconds, for metrics.
fn ms(us: Micros) -> f64 {
    us as f64 / MS as f64
}

/// An integer reply's value (0 for anything else).
fn int(f: &Frame) -> i64 {
    match f {
        Frame::Integer(n) => *n,
        _ => 0,
    }
}

/// A bulk reply's text, if it is one.
fn bulk(f: &Frame) -> Option<String> {
    match f {
        Frame::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    }
}

/// A reply shortened for a diagram label.
fn short(f: &Frame) -> String {
    let t = reply_text(f);
    if t.chars().count() > 40 {
        let mut s: String = t.chars().take(37).collect();
        s.push_str("...");
        s
    } else {
        t
    }
}

/// An event of a client paused until `frozen_until` (if it has one)
/// waits for the pause to end: it is put back for then and `None` is
/// returned; otherwise it is returned to run now.
fn unless_paused<E>(k: &mut Kernel<E>, frozen_until: Option<Micros>, ev: E) -> Option<E> {
    match frozen_until {
        Some(t) if k.now() < t => {
            k.at(t, ev);
            None
        }
        _ => Some(ev),
    }
}

/// A client as the two-holder count sees it: its lane, its name, and
/// since when it believes it holds the lock (if it does at the end).
type Holder<'a> = (usize, &'a str, Option<Micros>);

/// The time two clients believed they held the lock at once, over the
/// holds in `ivals` and those still open at `end` (they last until then);
/// the first `marks` instants a second holder joined are marked bad on its
/// lane: "Two holders: B <joins> while A <holder>."
fn two_holders(
    rec: &mut Recorder,
    ivals: &mut Vec<(usize, Micros, Micros)>,
    who: &[Holder],
    end: Micros,
    marks: usize,
    (joins, holder): (&str, &str),
) -> Micros {
    for (i, &(_, _, since)) in who.iter().enumerate() {
        if let Some(s) = since {
            ivals.push((i, s, end));
        }
    }
    let (overlap, js) = overlaps(ivals);
    for &(t, a, b) in js.iter().take(marks) {
        let text = format!(
            "Two holders: {} {joins} while {} {holder}.",
            who[b].1, who[a].1
        );
        rec.mark(t, who[b].0, "bad", text);
    }
    overlap
}

/// Time during which at least two of `ivals` (owner, from, to) overlap,
/// and the instants where a second owner joined (time, the one already
/// holding, the newcomer), in time order.
fn overlaps(ivals: &[(usize, Micros, Micros)]) -> (Micros, Vec<(Micros, usize, usize)>) {
    let mut edges: Vec<(Micros, bool, usize)> = Vec::new();
    for &(who, a, b) in ivals {
        if b > a {
            edges.push((a, true, who));
            edges.push((b, false, who));
        }
    }
    // Ends before starts at the same instant: a hand-over is not an overlap.
    edges.sort_by_key(|e| (e.0, e.1));
    let mut holding: Vec<usize> = Vec::new();
    let mut total = 0;
    let mut since = 0;
    let mut joins = Vec::new();
    for (t, start, who) in edges {
        if start {
            if holding.len() == 1 {
                since = t;
                joins.push((t, holding[0], who));
            }
            holding.push(who);
        } else {
            if holding.len() == 2 {
                total += t - since;
            }
            if let Some(i) = holding.iter().position(|&h| h == who) {
                holding.remove(i);
            }
        }
    }
    (total, joins)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlaps_count_time_with_two_holders() {
        let (t, joins) = overlaps(&[(0, 0, 100), (1, 50, 150), (2, 150, 200)]);
        assert_eq!(t, 50);
        assert_eq!(joins, vec![(50, 0, 1)]);
        // A hand-over at the same instant is not an overlap.
        assert_eq!(overlaps(&[(0, 0, 10), (1, 10, 20)]).0, 0);
    }
}
