//! Chapter 8: transactions, pipelines and Lua — MULTI queues, EXEC applies with no rollback, WATCH aborts on a concurrent write, scripts run atomically, and pipelining saves round trips but is not atomic.

use super::{at_most, metric};
use crate::{Chapter, Step};

pub fn chapter() -> Chapter {
    Chapter {
        id: "transactions",
        title: "Transactions, pipelines and Lua",
        summary: "MULTI/EXEC runs commands together without rollback, WATCH adds optimistic \
                  locking, a Lua script reads and writes atomically, and a pipeline only saves \
                  round trips.",
        steps: vec![
            Step::read_run(
                "multi-exec",
                "A transaction",
                "MULTI starts queueing; each command answers QUEUED; EXEC runs them all, with no \
                 other client's command in between.",
                &["MULTI", "INCR c", "INCR c", "EXEC"],
            )
            .hints(&["Run the four commands in order."])
            .why("EXEC returns one reply per queued command; nothing ran before EXEC."),
            Step::predict(
                "queued",
                "Inside MULTI",
                "A transaction is open. What does INCR answer now?",
                "INCR c",
                &["(integer) 1", "QUEUED", "OK"],
                1,
            )
            .setup(&["MULTI"])
            .hints(&["Nothing runs until EXEC."])
            .why("QUEUED: the command was checked for syntax and stored; its real reply comes in EXEC's array."),
            Step::predict(
                "no-rollback",
                "An error inside EXEC",
                "s holds a word, not a number. The transaction INCRs s, then sets t.",
                "EXEC",
                &[
                    "(error) EXECABORT Transaction discarded because of previous errors.",
                    "1) (error) ERR value is not an integer or out of range\n2) OK",
                    "(nil)",
                ],
                1,
            )
            .setup(&["SET s hello", "MULTI", "INCR s", "SET t 1"])
            .hints(&["INCR s is valid syntax; it fails only when it runs."])
            .why("Runtime errors do not roll back: INCR fails, SET t still runs. Only errors found while queueing (unknown command, wrong arity) discard the whole transaction."),
            Step::predict(
                "watch",
                "WATCH and a concurrent write",
                "You WATCH balance, client 2 changes it, then you run MULTI, SET and EXEC.",
                "EXEC",
                &["1) OK", "(nil)", "(error) ERR balance changed"],
                1,
            )
            .setup(&["SET balance 100", "WATCH balance", "@2 SET balance 50", "MULTI", "SET balance 90"])
            .hints(&["WATCH makes EXEC conditional."])
            .why("EXEC returns a null reply and runs nothing when a watched key changed: the client retries with fresh values (optimistic locking)."),
            Step::doing(
                "transfer",
                "Transfer atomically",
                "Move 10 from acct:a to acct:b so that no client ever sees the money in neither or both.",
                "acct:a is 90 and acct:b is 10.",
                |s| {
                    s.expect_value("acct:a", "90")?;
                    s.expect_value("acct:b", "10")
                },
                &["MULTI", "DECRBY acct:a 10", "INCRBY acct:b 10", "EXEC"],
                &[&["DECRBY acct:a 10"], &["MULTI", "DECRBY acct:a 10", "INCRBY acct:b 10", "DISCARD"]],
            )
            .setup(&["SET acct:a 100", "SET acct:b 0"])
            .hints(&["Wrap both changes in MULTI ... EXEC (or one EVAL)."])
            .why("Both changes run as one unit; a script doing both would be just as atomic."),
            Step::doing(
                "counter-script",
                "A counter that gets its TTL on creation",
                "INCR then EXPIRE as two commands leaves an immortal counter if the client dies in \
                 between. Do both in one script: increment hits, and give it a 60 s TTL when it is new.",
                "hits is 1 and expires within 60 s.",
                |s| {
                    s.expect_value("hits", "1")?;
                    s.expect_ttl("hits", 0, 60_000)
                },
                &["EVAL \"local v = redis.call('INCR', KEYS[1]) if v == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return v\" 1 hits 60"],
                &[&["INCR hits"], &["EVAL \"return redis.call('INCR', KEYS[1])\" 1 hits"]],
            )
            .hints(&["EVAL \"script\" 1 hits 60: KEYS[1] is hits, ARGV[1] is 60.", "In the script: INCR, and if the result is 1, EXPIRE."])
            .why("A script runs atomically: no crash or other client can come between the INCR and the EXPIRE."),
            Step::predict(
                "lua-nil",
                "A missing key in Lua",
                "The script returns GET of a key that does not exist.",
                "EVAL \"return redis.call('GET', KEYS[1])\" 1 nosuch",
                &["(nil)", "\"false\"", "(integer) 0"],
                0,
            )
            .hints(&["Redis' nil becomes Lua's false, and false goes back as nil."])
            .why("A nil reply turns into false in Lua and back into a nil reply; test for it with 'if not v'."),
            Step::scenario(
                "long-script",
                "A long script blocks everyone",
                "A job runs a 600 ms Lua loop while readers send GETs. Redis serves no one while a \
                 script runs, and past busy-reply-threshold (200 ms here) it answers BUSY. The \
                 split run does the same work in one script only.",
                "long-script",
                &[("chunks", "1")],
                "Make the split run's worst GET wait at most 25 ms, with no BUSY reply.",
                |o| {
                    let busy = metric(o, "BUSY replies, split")?;
                    if busy > 0.0 {
                        return Err(format!("{busy} GETs got BUSY"));
                    }
                    at_most(o, "max latency, split", 25.0)
                },
                &[("chunks", "30")],
                &[&[("threshold", "5000")], &[("chunks", "2")]],
            )
            .hints(&[
                "Raising the threshold removes BUSY, but everyone still waits for the whole script.",
                "Cut the work into scripts shorter than the wait you accept.",
            ])
            .why("A script holds Redis' only thread from start to end; short scripts let other commands run in between, which is how SCAN-style batching keeps latency low."),
            Step::scenario(
                "set-then-expire",
                "SET, then EXPIRE",
                "400 requests each SET a key and then EXPIRE it; 10% of the clients crash in between.",
                "set-then-expire",
                &[("variant", "two-commands")],
                "Choose a variant that leaves no key without a TTL.",
                |o| {
                    let n = metric(o, "keys left without a TTL")?;
                    if n == 0.0 {
                        Ok(())
                    } else {
                        Err(format!("{n} keys were left without a TTL"))
                    }
                },
                &[("variant", "set-ex")],
                &[&[("variant", "incr-then-expire")], &[("ttl", "100")]],
            )
            .hints(&["Put the TTL in the same command as the write, or in one script."])
            .why("SET ... EX (or a script) writes the value and the TTL atomically, so no crash can separate them."),
            Step::scenario(
                "pipelining",
                "Pipelining saves round trips",
                "100 GETs one by one pay 100 round trips. Here the batch size is 1.",
                "pipelining",
                &[("batch", "1")],
                "Make the pipelined run take at most 5 ms.",
                |o| at_most(o, "pipelined", 5.0),
                &[("batch", "100")],
                &[&[("batch", "2")], &[("service_us", "0.5")]],
            )
            .hints(&["The round trip, not Redis' work, is what costs here."])
            .why("A pipeline sends many commands before reading the replies: one round trip per batch. It is not atomic: other clients' commands may run in between."),
        ],
    }
}
