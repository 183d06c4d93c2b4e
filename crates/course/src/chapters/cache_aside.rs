//! Chapter 1: cache-aside and the hit rate — a miss is a nil reply, the application fills the cache with a TTL, and the hit rate (not Redis' speed) decides the mean latency.

use super::{at_most, checks_pass};
use crate::{Chapter, Step};

pub fn chapter() -> Chapter {
    Chapter {
        id: "cache-aside",
        title: "Cache-aside and hit rate",
        summary: "The application reads the cache first, goes to the database on a miss and stores \
                  what it read with a TTL. How often it hits decides what the cache is worth.",
        steps: vec![
            Step::read_run(
                "miss-then-fill",
                "A miss, then a fill",
                "Cache-aside keeps the database as the source of truth and Redis as a disposable \
                 copy. The reader asks Redis first; on a miss it reads the database and stores the \
                 row with a TTL, so the next reader hits. Run the three commands: a miss, the fill, \
                 a hit.",
                &["GET product:42", "SET product:42 lamp EX 60", "GET product:42"],
            )
            .hints(&["Type each command in the console and press Enter."])
            .why("The first GET finds nothing, SET stores the copy for 60 s, the second GET is served from memory."),
            Step::predict(
                "miss-is-nil",
                "What does a miss look like?",
                "Nothing was ever stored under product:42. What does GET reply?",
                "GET product:42",
                &["(nil)", "\"\"", "(error) ERR no such key"],
                0,
            )
            .hints(&["A missing key is not an error in Redis."])
            .why("A miss is a nil reply, not an error and not an empty string. Client libraries \
                  surface it as a special value (go-redis returns redis.Nil); code must treat it as \
                  'go to the database', not as a failure."),
            Step::doing(
                "fill-with-ttl",
                "Fill with a TTL",
                "A cached copy must never live forever: the TTL bounds how stale it can get and \
                 lets the cache heal by itself.",
                "Store user:7 = alice with a TTL of more than 50 and at most 60 seconds.",
                |s| {
                    s.expect_value("user:7", "alice")?;
                    s.expect_ttl("user:7", 50_000, 60_000)
                },
                &["SET user:7 alice EX 60"],
                &[&["SET user:7 alice"], &["SET user:7 bob EX 60"], &["SET user:7 alice EX 600"]],
            )
            .hints(&[
                "SET takes the TTL as an option: EX for seconds, PX for milliseconds.",
                "SET user:7 alice EX 60",
            ])
            .why("SET with EX writes the value and its TTL in one atomic command; a separate EXPIRE \
                  could be lost if the client died in between."),
            Step::predict(
                "zero-ttl",
                "A TTL of zero",
                "Someone computes the TTL and it comes out as 0. What does Redis answer?",
                "SET product:42 lamp EX 0",
                &["OK", "(error) ERR invalid expire time in 'set' command", "(nil)"],
                1,
            )
            .hints(&["Redis does not treat 0 as 'expire now' for SET."])
            .why("SET refuses a zero or negative EX/PX with an error, so a bug in TTL arithmetic \
                  shows up as a failed write, not as a key that vanishes at once."),
            Step::read_run(
                "hit-counters",
                "Redis counts hits and misses",
                "Every read lookup counts as a keyspace hit or miss in INFO stats. Run a hit and a \
                 miss, then read keyspace_hits and keyspace_misses.",
                &["SET page:1 html EX 60", "GET page:1", "GET page:2", "INFO stats"],
            )
            .hints(&["Run the four commands; look for keyspace_hits in the INFO output."])
            .why("hit rate = keyspace_hits / (keyspace_hits + keyspace_misses). It is a per-server \
                  total since start or CONFIG RESETSTAT, so compare two readings, not one."),
            Step::doing(
                "hit-rate-75",
                "Make the hit rate exactly 75%",
                "The key page:1 is cached. Produce exactly three hits and one miss, so INFO \
                 stats shows a hit rate of 75%.",
                "keyspace_hits = 3 and keyspace_misses = 1.",
                |s| {
                    let (h, m) = (s.stats().keyspace_hits, s.stats().keyspace_misses);
                    if (h, m) == (3, 1) {
                        Ok(())
                    } else {
                        Err(format!("keyspace_hits is {h} and keyspace_misses is {m}"))
                    }
                },
                &["GET page:1", "GET page:1", "GET page:1", "GET page:404"],
                &[&["GET page:1", "GET page:1", "GET page:1", "GET page:1"], &["GET page:404", "GET page:1"]],
            )
            .setup(&["SET page:1 html EX 60"])
            .hints(&["A GET of a key that exists is a hit; of one that does not, a miss.", "Three GETs of page:1, one of a missing key."])
            .why("Reads of existing keys count as hits, reads of missing keys as misses; writes count as neither."),
            Step::scenario(
                "hit-rate-latency",
                "The hit rate decides the latency",
                "With a 0.3 ms cache and a 20 ms database, mean latency is about \
                 hit × 0.3 + (1 − hit) × 20 ms: the misses dominate. Run the scenario.",
                "hit-rate-latency",
                &[("hit_pct", "90")],
                "Change a parameter so the measured mean latency at hit_pct drops below 1 ms.",
                |o| at_most(o, "mean latency at hit_pct (measured)", 1.0),
                &[("hit_pct", "99")],
                &[&[("hit_pct", "95")], &[("l_hit_ms", "0.05")]],
            )
            .hints(&[
                "Making Redis faster (l_hit_ms) barely moves the mean: the 10% misses cost 2 ms on their own.",
                "Raise hit_pct: from 90% to 99% cuts the misses tenfold.",
            ])
            .why("Going from 90% to 99% hits removes nine misses in ten, and the mean latency falls \
                  by about five times; speeding up the cache itself changes almost nothing."),
            Step::scenario(
                "outage",
                "When Redis goes down",
                "Redis is unreachable for 1.5 s. The service treats every error as a miss and reads the database instead (fail open).",
                "redis-outage",
                &[("guard", "fail-open")],
                "Keep the database within its limit while Redis is down.",
                checks_pass,
                &[("guard", "semaphore")],
                &[&[("outage_s", "1")], &[("db_ms", "5")]],
            )
            .hints(&["The database can serve only so many queries at once.", "Bound the fallback: a semaphore, a circuit breaker, or failing closed."])
            .why("Failing open turns a Redis outage into a database outage; a semaphore or breaker sheds the excess instead."),
            Step::scenario(
                "warming",
                "A cold start",
                "A new cluster starts empty and traffic arrives at once: every read misses.",
                "cache-warming",
                &[("warm", "cold")],
                "Make every check pass: a low database peak and a good early hit ratio.",
                checks_pass,
                &[("warm", "throttled")],
                &[&[("warm", "unthrottled")], &[("rate", "2000")]],
            )
            .hints(&["Load the hot keys before the traffic comes.", "Loading them all at once overloads the database by itself."])
            .why("Warming at a throttled rate fills the cache without a spike of its own, so the first requests hit."),
            Step::scenario(
                "go-pool",
                "A Go service's connection pool",
                "go-redis sizes its pool at 10 connections per GOMAXPROCS by default (pool_size 0). This service runs on one processor.",
                "connection-pool",
                &[("gomaxprocs", "1")],
                "Make the pool carry the load with no pool timeout.",
                |o| at_most(o, "pool timeouts", 0.0),
                &[("gomaxprocs", "10")],
                &[&[("pool_timeout_ms", "150")], &[("deadline_ms", "50")]],
            )
            .hints(&["Waiting longer does not add connections.", "The default pool grows with GOMAXPROCS; pool_size sets it directly."])
            .why("Each connection carries about one command per round trip; the pool's size, not its timeout, sets the throughput."),
        ],
    }
}
