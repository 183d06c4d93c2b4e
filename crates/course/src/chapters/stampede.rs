//! Chapter 4: the stampede and its protections — a rebuild lock with SET NX PX, per-pod singleflight, early refresh that avoids the miss, and jittered TTLs against an avalanche.

use super::{at_most, metric};
use crate::{Chapter, Step};

pub fn chapter() -> Chapter {
    Chapter {
        id: "stampede",
        title: "Stampede and its protections",
        summary: "When a hot key expires, every request that misses goes to the database at once. \
                  A lock, singleflight or an early refresh collapses or avoids those misses.",
        steps: vec![
            Step::read_run(
                "rebuild-lock",
                "A rebuild lock",
                "The first request that misses takes a short lock with SET NX PX and rebuilds the \
                 value; the others see the lock is taken and wait or serve something stale. Run \
                 two attempts to take the same lock.",
                &[
                    "SET lock:product:42 token-1 NX PX 5000",
                    "SET lock:product:42 token-2 NX PX 5000",
                    "GET lock:product:42",
                ],
            )
            .hints(&["Run the three lines in order."])
            .why("NX makes the SET succeed only for the first caller; PX bounds how long a crashed rebuilder can hold everyone up."),
            Step::predict(
                "second-nx",
                "The second taker",
                "token-1 holds the lock. What does the second SET NX get?",
                "SET lock:product:42 token-2 NX PX 5000",
                &["OK", "(nil)", "(integer) 0", "(error) ERR key exists"],
                1,
            )
            .setup(&["SET lock:product:42 token-1 NX PX 5000"])
            .hints(&["SET NX that does not set anything answers with a null, not an error."])
            .why("A nil reply means 'not set': the lock is someone else's. SETNX, the old command, answers 0 instead."),
            Step::doing(
                "take-lock",
                "Take the lock safely",
                "Take lock:product:42 for yourself (value me) so that it frees itself if you crash, \
                 and only if nobody holds it.",
                "lock:product:42 holds 'me' and expires within 5 s.",
                |s| {
                    s.expect_value("lock:product:42", "me")?;
                    s.expect_ttl("lock:product:42", 0, 5_000)
                },
                &["SET lock:product:42 me NX PX 5000"],
                &[&["SET lock:product:42 me NX"], &["SETNX lock:product:42 me"], &["SET lock:product:42 me PX 60000"]],
            )
            .hints(&["One SET can carry both NX and PX.", "SET lock:product:42 me NX PX 5000"])
            .why("One command takes the lock and sets its TTL atomically; SETNX then EXPIRE leaves a lock without a TTL if the client dies in between."),
            Step::predict(
                "lock-frees-itself",
                "A crashed holder's lock",
                "The holder took the lock with PX 100 and died. 150 ms later another request tries.",
                "SET lock:product:42 token-2 NX PX 100",
                &["OK", "(nil)"],
                0,
            )
            .setup(&["SET lock:product:42 token-1 NX PX 100", "# sleep 150"])
            .hints(&["What happened to the lock after 100 ms?"])
            .why("The lock expired with its TTL, so the next request takes it: nobody waits on a dead process."),
            Step::scenario(
                "one-db-call",
                "One database call for the whole herd",
                "20 pods serve 5000 requests/s; the hot key expires and the database takes 40 ms \
                 to rebuild it. Without protection every miss goes to the database.",
                "stampede",
                &[("protection", "none")],
                "Choose a protection that lets only one request reach the database.",
                |o| at_most(o, "DB calls", 1.0),
                &[("protection", "lock")],
                &[&[("protection", "singleflight")], &[("pods", "1")]],
            )
            .hints(&[
                "singleflight collapses concurrent misses inside one process only.",
                "A lock in Redis is shared by all pods.",
            ])
            .why("A rebuild lock in Redis admits one caller across all pods; singleflight admits one per pod, so 20 pods still make 20 calls."),
            Step::scenario(
                "no-miss",
                "Avoid the miss altogether",
                "A lock makes the others wait and poll. Refreshing before expiry serves every \
                 request from the cache.",
                "stampede",
                &[("protection", "lock")],
                "Choose a protection under which no GET misses.",
                |o| {
                    let misses = metric(o, "GET misses")?;
                    if misses == 0.0 {
                        Ok(())
                    } else {
                        Err(format!("{misses} GETs missed"))
                    }
                },
                &[("protection", "xfetch")],
                &[&[("protection", "singleflight")], &[("lock_sleep_ms", "5")]],
            )
            .hints(&["Some protections refresh the value before it expires."])
            .why("XFetch recomputes early with a probability that grows as expiry nears, logical expiry serves the old value while one worker rebuilds, refresh-ahead renews in the background: the key never goes missing."),
            Step::doing(
                "jitter-ttls",
                "Jitter the TTLs",
                "Keys written together with the same TTL expire together: an avalanche. Store \
                 k1, k2 and k3 with TTLs between 50 and 60 s, each at least 2 s apart from the others.",
                "k1, k2 and k3 expire within 50–60 s, pairwise at least 2 s apart.",
                |s| {
                    let mut t = Vec::new();
                    for k in ["k1", "k2", "k3"] {
                        s.expect_ttl(k, 50_000, 60_000)?;
                        t.push(s.ttl_ms(k).unwrap_or(0));
                    }
                    t.sort_unstable();
                    if t[1] - t[0] >= 2_000 && t[2] - t[1] >= 2_000 {
                        Ok(())
                    } else {
                        Err(format!("the TTLs are {t:?} ms: too close together"))
                    }
                },
                &["SET k1 v EX 51", "SET k2 v EX 55", "SET k3 v EX 59"],
                &[&["SET k1 v EX 60", "SET k2 v EX 60", "SET k3 v EX 60"], &["SET k1 v EX 51", "SET k2 v EX 55"]],
            )
            .hints(&["Give each key its own EX between 51 and 60."])
            .why("Random jitter of ±10% spreads expirations over a window instead of one instant, so the database sees a trickle of misses."),
        ],
    }
}
