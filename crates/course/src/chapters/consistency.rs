//! Chapter 5: cache/DB consistency races — delete after the write, idempotent DEL, the stale window bounded by the TTL, delayed double delete and its limit, SET XX and negative caching.

use super::at_most;
use crate::{Chapter, Step};

pub fn chapter() -> Chapter {
    Chapter {
        id: "consistency",
        title: "Cache and database consistency",
        summary: "Two systems, no transaction between them: every invalidation scheme has a race, \
                  and the TTL is the upper bound on how long a stale copy can live.",
        steps: vec![
            Step::read_run(
                "invalidate",
                "Update the database, then delete the cache",
                "The usual write path: update the row in the database, then DEL the cached copy, \
                 so the next reader misses and reloads the new row.",
                &["SET user:1 v1 EX 60", "DEL user:1", "GET user:1"],
            )
            .hints(&["Run the three commands: the fill, the invalidation, the miss."])
            .why("Deleting rather than writing the new value leaves the rebuild to a reader, which reads the database after the update."),
            Step::predict(
                "del-twice",
                "Deleting twice",
                "A retry sends the invalidation again. What does the second DEL answer?",
                "DEL user:1",
                &["(integer) 1", "(integer) 0", "(error) ERR no such key"],
                1,
            )
            .setup(&["SET user:1 v1 EX 60", "DEL user:1"])
            .hints(&["DEL counts the keys it removed."])
            .why("DEL is idempotent: deleting a missing key is not an error, it removes 0 keys. Invalidations can be retried safely."),
            Step::scenario(
                "bound-by-ttl",
                "The TTL bounds the lie",
                "Delete-then-update: a reader slips in between, reads the old row and caches it \
                 after the writer's DEL. The stale copy lives until its TTL.",
                "delete-before-update",
                &[("ttl", "2000")],
                "Change a parameter so the stale window is at most 600 ms.",
                |o| at_most(o, "stale window", 600.0),
                &[("ttl", "500")],
                &[&[("reader_every", "20")], &[("ttl", "1000")]],
            )
            .hints(&["What removes a stale copy nobody deletes?"])
            .why("Whatever the race, the stale value disappears when its TTL runs out: choose the TTL from how stale you may be, not from how long you would like to cache."),
            Step::scenario(
                "double-delete",
                "Delayed double delete and its limit",
                "A second DEL some time after the write removes a value a slow reader cached in \
                 between — if the reader was faster than the delay.",
                "double-delete",
                &[("case", "short-delay")],
                "Here a reader pauses 900 ms but the second delete comes after 500 ms. Make the stale window at most 1 s.",
                |o| at_most(o, "stale window", 1000.0),
                &[("delay", "1000")],
                &[&[("delay", "800")], &[("reader_every", "100")]],
            )
            .hints(&["The second DEL must come after the slowest reader has written."])
            .why("A delayed double delete only works if the delay exceeds the slowest reader's pause, which nobody can promise; the TTL remains the real bound."),
            Step::predict(
                "set-xx",
                "Overwrite only what is cached",
                "Writing the new value into the cache can resurrect a key a reader never asked for. \
                 SET XX writes only if the key exists. user:1 is not cached.",
                "SET user:1 v2 XX",
                &["OK", "(nil)", "(integer) 0"],
                1,
            )
            .hints(&["XX is the opposite of NX."])
            .why("XX sets nothing when the key is missing and answers nil; the cache is only refreshed where it already holds a copy."),
            Step::doing(
                "negative-cache",
                "Cache a miss, briefly",
                "Requests for ids that do not exist all reach the database (penetration). Store a \
                 miss marker for user:404 — but a short-lived one, or an id created later stays \
                 invisible.",
                "user:404 exists and expires within 60 s.",
                |s| {
                    if !s.exists("user:404") {
                        return Err("user:404 is not cached".into());
                    }
                    s.expect_ttl("user:404", 0, 60_000)
                },
                &["SET user:404 \"\" EX 30"],
                &[&["SET user:404 none"], &["SET user:404 none EX 3600"]],
            )
            .hints(&["Any value works as a marker; the TTL is what matters.", "SET user:404 \"\" EX 30"])
            .why("A negative entry with a short TTL absorbs repeated misses; without one, an id created later would read as missing forever."),
            Step::doing(
                "version-bump",
                "Invalidate many keys with one write",
                "Derived keys include a version (user:1:v3:profile, user:1:v3:feed). Bump the \
                 version so readers build new keys and the old ones simply expire.",
                "user:1:ver is 4.",
                |s| s.expect_value("user:1:ver", "4"),
                &["INCR user:1:ver"],
                &[&["DEL user:1:v3:profile"], &["SET user:1:ver 3"]],
            )
            .setup(&["SET user:1:ver 3", "SET user:1:v3:profile p EX 600", "SET user:1:v3:feed f EX 600"])
            .hints(&["One atomic command adds one to a number stored as a string."])
            .why("INCR is atomic, so concurrent bumps never lose one; every reader now looks for v4 keys, and the v3 ones expire by their TTL."),
            Step::scenario(
                "negative-extras",
                "A miss marker hides a new entity",
                "Reads of unknown ids cache a not-found marker. Then some of those ids are created.",
                "negative-caching-extras",
                &[("variant", "marker-only")],
                "Make sure no existing entity is answered as not found.",
                |o| at_most(o, "not-found answers for existing entities", 0.0),
                &[("variant", "create-deletes-marker")],
                &[&[("marker_ttl", "500")], &[("new_ids", "5")]],
            )
            .hints(&["The marker lives until its TTL unless someone removes it.", "Whoever creates the entity knows its id."])
            .why("The create deletes the marker, so the next read loads the new row instead of a cached not-found."),
        ],
    }
}
