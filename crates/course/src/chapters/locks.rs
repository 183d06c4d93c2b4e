//! Chapter 6: locks and fencing — a token per holder, a Lua compare-and-delete unlock, a watchdog extension, fencing tokens from INCR, and what a lock with no TTL costs.

use super::{at_most, metric};
use crate::{Chapter, Step};

/// Deletes the lock only while it still holds the caller's token.
const UNLOCK: &str = "EVAL \"if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end\" 1 lock:job";

pub fn chapter() -> Chapter {
    Chapter {
        id: "locks",
        title: "Locks and fencing",
        summary: "SET NX PX with a unique token takes a lock; a script releases it only for its \
                  holder; a fencing token protects the resource when a holder's lease runs out.",
        steps: vec![
            Step::read_run(
                "lock-and-unlock",
                "Take and release a lock",
                "Each holder writes its own random token. Unlocking compares the token and deletes \
                 in one Lua script, so nobody deletes someone else's lock.",
                &[
                    "SET lock:job token-a NX PX 30000",
                    "GET lock:job",
                    &format!("{UNLOCK} token-a"),
                ],
            )
            .hints(&["Run the three lines; the last one is one long EVAL."])
            .why("GET then DEL from the client would leave a gap in which the lock can expire and be taken by another; the script runs both atomically."),
            Step::predict(
                "unlock-expired",
                "Unlocking after your lease ran out",
                "You (token-a) took the lock for 100 ms, paused 150 ms, and client 2 (token-b) took \
                 it. Now you run the unlock script with token-a.",
                &format!("{UNLOCK} token-a"),
                &["(integer) 1", "(integer) 0", "(nil)"],
                1,
            )
            .setup(&["SET lock:job token-a NX PX 100", "# sleep 150", "@2 SET lock:job token-b NX PX 30000"])
            .hints(&["Whose token does the lock hold now?"])
            .why("The script sees token-b and deletes nothing: your late unlock cannot free the other holder's lock. A plain DEL would have."),
            Step::doing(
                "watchdog",
                "Extend your lease",
                "A watchdog extends the lock while work goes on. You hold lock:job (token-a) for 5 s; \
                 extend it to 30 s.",
                "lock:job still holds token-a and expires in 29–30 s.",
                |s| {
                    s.expect_value("lock:job", "token-a")?;
                    s.expect_ttl("lock:job", 29_000, 30_000)
                },
                &["EVAL \"if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end\" 1 lock:job token-a 30000"],
                &[&["PEXPIRE lock:job 3000"], &["SET lock:job token-b PX 30000"]],
            )
            .setup(&["SET lock:job token-a NX PX 5000"])
            .hints(&["PEXPIRE sets a TTL in milliseconds; do it only while the lock is yours.", "A script: GET compares the token, then PEXPIRE 30000."])
            .why("Checking the token and extending in one script means you never extend a lock that already passed to someone else."),
            Step::predict(
                "first-token",
                "The first fencing token",
                "Fencing tokens come from a counter only ever increased. The counter does not exist yet.",
                "INCR fence:job",
                &["(integer) 0", "(integer) 1", "(nil)", "(error) ERR no such key"],
                1,
            )
            .hints(&["INCR treats a missing key as 0."])
            .why("INCR creates the key at 0 and adds one, atomically: every holder gets a strictly larger token than the one before."),
            Step::doing(
                "next-token",
                "Issue the next token",
                "The last holder got token 41. Issue the next one.",
                "fence:job is 42.",
                |s| s.expect_value("fence:job", "42"),
                &["INCR fence:job"],
                &[&["GET fence:job"], &["DECR fence:job"]],
            )
            .setup(&["SET fence:job 41"])
            .hints(&["One atomic increment."])
            .why("The storage accepts a write only with a token at least as large as the last it saw, so a holder whose lease expired (token 41) is refused once 42 has written."),
            Step::scenario(
                "fencing",
                "A paused holder writes late",
                "A GC pause longer than the lock's TTL: the lock passes to another client, and the \
                 paused one wakes up and writes.",
                "distributed-lock",
                &[("variant", "gc-pause")],
                "Keep the pause, but make the resource refuse the paused client's late write.",
                |o| {
                    at_most(o, "stale writes accepted", 0.0)?;
                    if metric(o, "stale writes rejected")? >= 1.0 {
                        Ok(())
                    } else {
                        Err("no late write was refused: did the pause still happen?".into())
                    }
                },
                &[("variant", "fencing")],
                &[&[("variant", "lua-unlock")], &[("variant", "watchdog")], &[("pause_ms", "90")]],
            )
            .hints(&["The lock cannot stop a paused client; the resource can.", "Tokens the resource compares."])
            .why("No lock with a TTL survives an arbitrary pause; only a fencing token checked by the resource refuses the late write."),
            Step::scenario(
                "no-ttl",
                "A lock with no TTL",
                "A worker takes a lock without a TTL and crashes; the resource stays locked until an \
                 operator deletes the key.",
                "lock-without-ttl",
                &[("variant", "no-ttl")],
                "Make the resource unavailable for at most 1 s after the crash.",
                |o| at_most(o, "resource unavailable after the crash", 1000.0),
                &[("variant", "px")],
                &[&[("workers", "5")], &[("work_ms", "5")]],
            )
            .hints(&["Who deletes a dead holder's lock?"])
            .why("With PX the lock frees itself within its TTL; without it, a crash holds everyone back until a person notices."),
            Step::scenario(
                "redlock-fencing",
                "Redlock and a paused holder",
                "Client A holds a Redlock, pauses past its validity, and writes to the storage after B has taken the lock.",
                "redlock-no-fencing",
                &[("variant", "redlock")],
                "Make the storage accept no late write.",
                |o| at_most(o, "late writes accepted", 0.0),
                &[("variant", "fencing-token")],
                &[&[("ttl_ms", "1200")], &[("work_ms", "300")]],
            )
            .hints(&["Nothing in A's write says that it is old.", "Give each grant a number that only grows, and let the storage check it."])
            .why("A fencing token from every grant lets the storage refuse a write older than one it already took; Redlock alone cannot."),
        ],
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_zero_stale_write_check_reads_the_metric() {
        let o = redsim_sim::run_with("distributed-lock", 1, &[("variant", "gc-pause")]).unwrap();
        assert!(super::metric(&o, "stale writes accepted").unwrap() >= 1.0);
    }
}
