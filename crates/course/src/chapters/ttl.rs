//! Chapter 2: TTL, lazy and active expiry — what TTL and PTTL answer, what resets a TTL, and how an expired key is never served but is reclaimed lazily or by the active cycle.

use redsim_engine::server::trace::ExpireHow;

use super::{at_least, checks_pass};
use crate::{Chapter, Step};

pub fn chapter() -> Chapter {
    Chapter {
        id: "ttl-expiry",
        title: "TTL, lazy and active expiry",
        summary: "A TTL bounds how long a copy may lie. Expired keys are never served; Redis \
                  reclaims them when touched (lazy) and by a sampling cycle (active).",
        steps: vec![
            Step::read_run(
                "ttl-counts-down",
                "Watch a TTL count down",
                "TTL answers in seconds, PTTL in milliseconds. The console's clock is virtual: \
                 '# sleep 1000' lets one second pass. Run the lines and watch the TTL fall.",
                &["SET session:1 data EX 30", "TTL session:1", "PTTL session:1", "# sleep 1000", "TTL session:1"],
            )
            .hints(&["Type '# sleep 1000' as a line of its own to move the clock."])
            .why("After one virtual second TTL says 29: the deadline is an absolute instant, the TTL is what is left of it."),
            Step::predict(
                "ttl-missing",
                "TTL of a key that does not exist",
                "What does TTL answer for a key that is not there?",
                "TTL nosuch",
                &["(integer) -2", "(integer) -1", "(integer) 0", "(nil)"],
                0,
            )
            .hints(&["TTL has two negative answers: one for 'no key', one for 'no TTL'."])
            .why("-2 means the key does not exist; -1 means it exists without a TTL."),
            Step::predict(
                "ttl-persistent",
                "TTL of a key without one",
                "config:flags was stored with a plain SET. What does TTL answer?",
                "TTL config:flags",
                &["(integer) -2", "(integer) -1", "(integer) 0"],
                1,
            )
            .setup(&["SET config:flags on"])
            .hints(&["The key exists; it just never expires."])
            .why("-1: the key exists and has no TTL. A cache key in that state is a leak waiting to happen."),
            Step::doing(
                "expire-in-30",
                "Make session:1 expire in exactly 30 s",
                "session:1 was stored without a TTL. Give it one.",
                "session:1 keeps its value and its PTTL is more than 29 000 and at most 30 000 ms.",
                |s| {
                    s.expect_value("session:1", "data")?;
                    s.expect_ttl("session:1", 29_000, 30_000)
                },
                &["EXPIRE session:1 30"],
                &[&["EXPIRE session:1 300"], &["PEXPIRE session:1 3000"], &["SET session:1 other EX 30"]],
            )
            .setup(&["SET session:1 data"])
            .hints(&["EXPIRE takes seconds, PEXPIRE milliseconds.", "EXPIRE session:1 30"])
            .why("EXPIRE sets a relative TTL on an existing key; SET ... EX 30 with the same value would do as well."),
            Step::predict(
                "set-clears-ttl",
                "Does overwriting keep the TTL?",
                "k had a 100 s TTL, then a plain SET replaced its value. What does TTL say now?",
                "TTL k",
                &["(integer) 100", "(integer) -1", "(integer) -2"],
                1,
            )
            .setup(&["SET k v EX 100", "SET k v2"])
            .hints(&["SET replaces the whole key, TTL included, unless told otherwise."])
            .why("A plain SET discards the old TTL: the key now lives forever. KEEPTTL (Redis 6.0+) keeps it."),
            Step::doing(
                "keepttl",
                "Change a value, keep its TTL",
                "session:2 expires in 100 s. Store 'new' in it without touching its expiry.",
                "session:2 holds 'new' and still expires within 90–100 s.",
                |s| {
                    s.expect_value("session:2", "new")?;
                    s.expect_ttl("session:2", 90_000, 100_000)
                },
                &["SET session:2 new KEEPTTL"],
                &[&["SET session:2 new"], &["SET session:2 new EX 1000"]],
            )
            .setup(&["SET session:2 old EX 100"])
            .hints(&["SET has an option that keeps the TTL.", "SET session:2 new KEEPTTL"])
            .why("KEEPTTL keeps the key's deadline; without it the write would make the key persistent."),
            Step::predict(
                "expired-is-gone",
                "An expired key is never served",
                "k was written with a 100 ms TTL and 200 ms have passed. Does it exist?",
                "EXISTS k",
                &["(integer) 0", "(integer) 1"],
                0,
            )
            .setup(&["SET k v PX 100", "# sleep 200"])
            .hints(&["Whether or not memory was reclaimed yet, a client never sees an expired key."])
            .why("Every lookup checks the deadline first (lazy expiry), so an expired key reads as missing even before the active cycle frees it."),
            Step::doing(
                "lazy-expiry",
                "Catch an expiry in the act",
                "k expires 100 ms from now. The active cycle runs with the cron, every 100 ms at \
                 the default hz 10, and reclaims expired keys it samples; a command that touches an \
                 expired key first reclaims it on the spot. Make k be reclaimed lazily.",
                "The trace shows k expired lazily (found by a command), not by the active cycle.",
                |s| match s.expired().into_iter().find(|(k, _)| k == "k") {
                    Some((_, ExpireHow::Lazy)) => Ok(()),
                    Some((_, ExpireHow::Active)) => {
                        Err("the active cycle reclaimed k before any command touched it".into())
                    }
                    None => Err("k has not expired (or nothing has touched it since)".into()),
                },
                &["# sleep 150", "GET k"],
                &[&["# sleep 1000", "GET k"], &["GET k"], &["DEL k"]],
            )
            .setup(&["SET k v PX 100"])
            .hints(&[
                "Let time pass past the deadline ('# sleep <ms>'), but not past the next cron tick.",
                "# sleep 150, then GET k.",
            ])
            .why("Between its deadline and the next active cycle an expired key still sits in memory; the first command that touches it deletes it (lazy expiry) and answers as if it were never there."),
            Step::doing(
                "count-an-expiry",
                "Make Redis count an expiry",
                "INFO stats' expired_keys counts keys reclaimed after their TTL, lazily or by the active cycle.",
                "expired_keys is at least 1.",
                |s| {
                    let n = s.stats().expired_keys;
                    if n >= 1 {
                        Ok(())
                    } else {
                        Err("expired_keys is still 0: no key has expired yet".into())
                    }
                },
                &["SET t v PX 10", "# sleep 200", "GET t"],
                &[&["SET t v EX 100", "# sleep 200", "GET t"], &["SET t v PX 10", "DEL t"]],
            )
            .hints(&["Write a key with a short TTL, then let time pass with '# sleep <ms>'.", "A DEL is not an expiry."])
            .why("Only keys removed because their TTL passed count; DEL and overwrites do not."),
            Step::scenario(
                "jitter",
                "Jitter spreads expirations",
                "1000 keys written at once with the same TTL all expire in the same instant, and \
                 the database sees every miss at once. Here jitter is 0%.",
                "expiry-avalanche",
                &[("jitter", "0")],
                "Change a parameter so the busiest 100 ms sees at least 5× fewer expirations than without jitter.",
                |o| at_least(o, "peak expirations ratio", 5.0),
                &[("jitter", "10")],
                &[&[("keys", "2000")]],
            )
            .hints(&["Spread the TTLs: jitter gives each key TTL × (1 ± jitter%)."])
            .why("With ±10% jitter the same keys expire over two seconds instead of one tick, and the database load spike flattens."),
            Step::scenario(
                "prefix-change",
                "A deploy that changes the key prefix",
                "A deploy switches every pod to a new key prefix at once: the cache is empty for the new keys.",
                "avalanche-causes",
                &[("rollout", "switch")],
                "Keep the database within its limit through the deploy.",
                checks_pass,
                &[("rollout", "gradual")],
                &[&[("ramp_s", "4")], &[("keys", "4000")]],
            )
            .hints(&["Change the prefix for a few pods at a time, or read the old prefix as well."])
            .why("A gradual rollout (or a dual read of the old prefix) spreads the misses over time instead of all at once."),
        ],
    }
}
