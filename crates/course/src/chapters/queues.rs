//! Chapter 7: rate limits and queues — a fixed window with INCR and EXPIRE NX, a sliding log in a sorted set, failing closed, a reliable queue with LMOVE, and a Pub/Sub subscriber too slow for its output buffer limit.

use super::at_most;
use crate::{Chapter, Step};

pub fn chapter() -> Chapter {
    Chapter {
        id: "limits-queues",
        title: "Rate limits and queues",
        summary: "Counters with a TTL make rate limits; lists and sorted sets make queues. The \
                  details decide whether a crash loses a job or a burst slips through.",
        steps: vec![
            Step::read_run(
                "fixed-window",
                "A fixed-window counter",
                "Count requests per user per window: INCR the window's key, and give it a TTL the \
                 first time. EXPIRE NX (Redis 7.0+) sets the TTL only when there is none.",
                &["INCR rl:user:1", "EXPIRE rl:user:1 60 NX", "INCR rl:user:1", "TTL rl:user:1"],
            )
            .hints(&["Run the four commands."])
            .why("The counter resets when its key expires; comparing INCR's reply with the limit decides whether to admit the request."),
            Step::predict(
                "expire-nx",
                "EXPIRE NX on a key with a TTL",
                "The window's key already has a TTL. What does EXPIRE ... NX answer?",
                "EXPIRE rl:user:1 60 NX",
                &["(integer) 1", "(integer) 0", "(error) ERR NX and XX, GT or LT options at the same time are not compatible"],
                1,
            )
            .setup(&["INCR rl:user:1", "EXPIRE rl:user:1 60"])
            .hints(&["NX: only if the key has no expiry."])
            .why("0: the TTL was not changed, so later requests never push the window's end further out."),
            Step::doing(
                "count-three",
                "Count three requests in a 60 s window",
                "Record three requests for user 7 in a window that ends within 60 s.",
                "rl:user:7 is 3 and expires within 60 s.",
                |s| {
                    s.expect_value("rl:user:7", "3")?;
                    s.expect_ttl("rl:user:7", 0, 60_000)
                },
                &["INCR rl:user:7", "EXPIRE rl:user:7 60 NX", "INCR rl:user:7", "INCR rl:user:7"],
                &[&["INCR rl:user:7", "INCR rl:user:7", "INCR rl:user:7"], &["SET rl:user:7 3 EX 600"]],
            )
            .hints(&["INCR three times; don't forget the TTL.", "EXPIRE rl:user:7 60 NX"])
            .why("A counter without a TTL never resets: the user would be limited forever once it passed the limit."),
            Step::predict(
                "sliding-log",
                "A sliding log",
                "The sliding log keeps one sorted-set member per request, scored by its time. Before \
                 counting, it drops what fell out of the window. Requests came at 1000, 2000 and 3000 \
                 ms; the window now starts at 1500.",
                "ZREMRANGEBYSCORE rl:log -inf 1500",
                &["(integer) 1", "(integer) 2", "(integer) 3"],
                0,
            )
            .setup(&["ZADD rl:log 1000 a 2000 b 3000 c"])
            .hints(&["Which scores are at most 1500?"])
            .why("One request (at 1000) falls out; ZCARD then counts the two left. The log is exact at every instant but costs a member per request."),
            Step::scenario(
                "fail-closed",
                "Redis goes away",
                "When Redis is unreachable, a limiter must choose: admit everything (fail open) or \
                 refuse everything (fail closed).",
                "rate-limits",
                &[("on_outage", "fail-open")],
                "Make the limiter admit nothing while Redis is away.",
                |o| at_most(o, "admitted during the outage", 0.0),
                &[("on_outage", "fail-closed")],
                &[&[("burst_rps", "100")], &[("outage_ms", "50")]],
            )
            .hints(&["A choice parameter decides what happens during the outage."])
            .why("Failing closed protects the backend at the price of refusing legitimate requests; failing open keeps serving but drops the limit."),
            Step::doing(
                "reliable-pop",
                "Take a job without losing it",
                "jobs holds j1 (the oldest, at the tail) and j2. Take j1 so that, if your worker \
                 crashes now, the job is still somewhere: in a processing list.",
                "processing holds j1 and jobs holds only j2.",
                |s| {
                    let (p, j) = (s.list("processing"), s.list("jobs"));
                    if p == ["j1"] && j == ["j2"] {
                        Ok(())
                    } else {
                        Err(format!("processing is {p:?} and jobs is {j:?}"))
                    }
                },
                &["LMOVE jobs processing RIGHT LEFT"],
                &[&["RPOP jobs"], &["LMOVE jobs processing LEFT LEFT"]],
            )
            .setup(&["LPUSH jobs j1 j2"])
            .hints(&["One command can pop from one list and push to another.", "LMOVE jobs processing RIGHT LEFT"])
            .why("LMOVE moves the job atomically, so it is always in one of the two lists; after the work, LREM removes it from processing, and a reaper re-queues jobs whose worker died."),
            Step::scenario(
                "slow-subscriber",
                "A subscriber that reads too slowly",
                "Pub/Sub keeps nothing: a message waits only in each subscriber's output buffer on \
                 the server. This subscriber reads 1 MB/s while 2 MB/s arrive, so its buffer grows \
                 until client-output-buffer-limit pubsub (32 MB hard) closes it, and what was queued \
                 is gone.",
                "slow-subscriber",
                &[],
                "Make the slow subscriber lose no message.",
                |o| at_most(o, "slow subscriber lost", 0.0),
                &[("read_kb_s", "4096")],
                &[&[("reconnect_ms", "0")], &[("soft_s", "300")]],
            )
            .hints(&["Reconnecting faster does not bring back the dropped buffer.", "It has to read at least as fast as messages arrive (or the server must hold an unbounded buffer)."])
            .why("A consumer that keeps up never fills its buffer; raising or removing the limit instead trades the loss for server memory. When every message matters, a stream keeps them until they are read."),
            Step::predict(
                "blmove-empty",
                "Blocking on an empty queue",
                "BLMOVE waits for a job, here at most 1 s. The queue is empty and nothing arrives.",
                "BLMOVE jobs processing RIGHT LEFT 1",
                &["(nil)", "(empty array)", "(error) ERR timeout"],
                0,
            )
            .hints(&["A timeout is not an error."])
            .why("After the timeout BLMOVE answers nil, and the worker simply asks again. (The console never blocks; it answers as the timeout would.)"),
            Step::scenario(
                "at-least-once",
                "Streams deliver at least once",
                "Consumers crash after doing the work and before XACK; XAUTOCLAIM hands the message to another consumer.",
                "streams-at-least-once",
                &[("variant", "plain")],
                "Make redelivered messages have no duplicate effect.",
                |o| at_most(o, "duplicate effects", 0.0),
                &[("variant", "idempotent-set")],
                &[&[("crash_pct", "2")], &[("claim_idle_ms", "600")]],
            )
            .hints(&["Redelivery is the guarantee; the consumer must cope with it.", "Remember which message ids were processed."])
            .why("An idempotent consumer (a set of processed ids, or SET NX per id) turns at-least-once delivery into exactly-once effects."),
        ],
    }
}
