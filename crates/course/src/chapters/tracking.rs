//! Chapter 11: client-side caching — CLIENT TRACKING tells a client which of its local copies a write made stale, in default mode (the keys it read) or BCAST (every key under a prefix); an L1 kept by TTL alone serves old values for up to the TTL, and a client must flush its L1 when its connection comes back.

use super::{at_most, metric};
use crate::{Chapter, Step};

pub fn chapter() -> Chapter {
    Chapter {
        id: "tracking",
        title: "Client-side caching with CLIENT TRACKING",
        summary: "An in-process L1 cache in front of Redis is only as fresh as what tells it \
                  about writes: a TTL, or the server itself through CLIENT TRACKING, which \
                  pushes an invalidation for each key a client cached when someone writes it.",
        steps: vec![
            Step::read_run(
                "tracking-on",
                "Ask the server to track what you read",
                "With CLIENT TRACKING ON the server remembers each key this connection reads; \
                 when any client writes one, it sends this connection an invalidation for it \
                 (a RESP3 push, or a message on __redis__:invalidate to a redirect client).",
                &["CLIENT TRACKING ON", "GET user:1", "CLIENT TRACKINGINFO"],
            )
            .hints(&["Run the three commands in order."])
            .why("TRACKINGINFO shows the mode (flags on), where invalidations go (redirect) and any BCAST prefixes."),
            Step::predict(
                "getredir",
                "Where do invalidations go?",
                "Tracking is on for this connection, with no REDIRECT.",
                "CLIENT GETREDIR",
                &["(integer) -1", "(integer) 0", "(integer) 2"],
                1,
            )
            .setup(&["CLIENT TRACKING ON"])
            .hints(&["-1 means tracking is off."])
            .why("0: invalidations come on this connection itself, as RESP3 pushes. With REDIRECT <id> a RESP2 client names another connection, subscribed to __redis__:invalidate, to receive them."),
            Step::predict(
                "optin",
                "Caching on demand",
                "Tracking is off. The client asks to cache the next read.",
                "CLIENT CACHING yes",
                &[
                    "OK",
                    "(error) ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled",
                ],
                1,
            )
            .hints(&["CLIENT CACHING only tunes OPTIN and OPTOUT modes."])
            .why("In OPTIN mode the server tracks only reads right after CLIENT CACHING yes, so a client can cache a few hot keys without the server remembering every read."),
            Step::predict(
                "overlap",
                "Broadcasting prefixes",
                "BCAST mode sends an invalidation for every write under a prefix, read or not. The client asks for two prefixes at once.",
                "CLIENT TRACKING ON BCAST PREFIX user: PREFIX user:admin:",
                &[
                    "OK",
                    "(error) ERR Prefix 'user:' overlaps with another provided prefix 'user:admin:'. Prefixes for a single client must not overlap.",
                ],
                1,
            )
            .hints(&["Every key under user:admin: is also under user:."])
            .why("One write would be reported twice, so Redis refuses overlapping prefixes for one client."),
            Step::doing(
                "bcast",
                "Hear about a whole prefix",
                "Make this connection hear about every write to a key under item:, without reading any of them first.",
                "a client tracks in BCAST mode",
                |s| {
                    let list = s.reply(&["CLIENT", "LIST"]);
                    let bcast = list
                        .lines()
                        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("flags=")))
                        .any(|f| f.contains('t') && f.contains('B'));
                    if bcast {
                        Ok(())
                    } else {
                        Err("no client tracks in broadcasting mode (CLIENT LIST shows no flags=tB)".into())
                    }
                },
                &["CLIENT TRACKING ON BCAST PREFIX item:"],
                &[&["CLIENT TRACKING ON"], &["GET item:1"]],
            )
            .hints(&["CLIENT TRACKING ON with BCAST and PREFIX."])
            .why("BCAST keeps no per-key table on the server: it matches each written key against the prefixes, so it costs the server nothing per read and sends more invalidations."),
            Step::scenario(
                "ttl-only",
                "An L1 kept fresh by its TTL",
                "Four pods cache reads in an L1 that drops entries after 500 ms; a writer updates keys 20 times a second.",
                "client-side-caching",
                &[("mode", "ttl-only")],
                "Make the longest staleness of a read under 5 ms.",
                |o| at_most(o, "longest staleness", 5.0),
                &[("mode", "tracking")],
                &[&[("l1-ttl-ms", "50")], &[("writes-per-s", "1")]],
            )
            .hints(&[
                "A shorter TTL shrinks the window, but never below the TTL itself.",
                "Let the server say when an entry is stale.",
            ])
            .why("With tracking an entry lives until it is written, and a read is stale only while the invalidation is on its way: well under a millisecond here."),
            Step::scenario(
                "reconnect",
                "What a disconnection loses",
                "Pod 1's connection drops for a while; invalidations sent meanwhile are never replayed.",
                "client-side-caching",
                &[("mode", "tracking"), ("flush-on-reconnect", "off")],
                "Make pod 1 serve no stale read after it reconnects.",
                |o| {
                    let n = metric(o, "stale reads on pod 1 after reconnecting")?;
                    if n == 0.0 {
                        Ok(())
                    } else {
                        Err(format!("pod 1 served {n} stale reads after reconnecting"))
                    }
                },
                &[("flush-on-reconnect", "on")],
                &[&[("mode", "bcast")], &[("mode", "ttl-only")]],
            )
            .hints(&["The server forgets what a closed connection tracked."])
            .why("A client must empty its L1 (and not trust it) while its tracking connection is down: nothing tells it what changed meanwhile."),
            Step::scenario(
                "pubsub-l1",
                "L1 invalidation over Pub/Sub",
                "Pods drop L1 entries when an invalidation is published. Pod 1's connection drops for a second and misses some.",
                "l1-pubsub-invalidation",
                &[("variant", "pubsub")],
                "Make sure no pod serves a write it missed after reconnecting.",
                |o| at_most(o, "stale reads of missed writes after reconnection", 0.0),
                &[("variant", "pubsub-flush-on-reconnect")],
                &[&[("disconnect_ms", "500")], &[("l1_ttl_ms", "1000")]],
            )
            .hints(&["Pub/Sub keeps nothing for a subscriber that is away."])
            .why("Flushing the L1 on reconnect throws away whatever a missed message would have invalidated."),
        ],
    }
}
