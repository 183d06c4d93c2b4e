//! Chapter 3: memory and eviction — maxmemory's units, the default noeviction and its OOM error, approximated LRU by sampling, and LFU keeping a frequently read key through a fill.

use super::{checks_pass, fill, metric};
use crate::{Chapter, Step};

pub fn chapter() -> Chapter {
    Chapter {
        id: "eviction",
        title: "Memory and eviction",
        summary: "When maxmemory is reached Redis evicts by policy, or refuses writes. Its LRU and \
                  LFU are approximations built from small samples.",
        steps: vec![
            Step::read_run(
                "read-the-limits",
                "Read the memory settings",
                "maxmemory caps the dataset (0 means no cap); maxmemory-policy says what happens \
                 at the cap; maxmemory-samples how many keys each eviction looks at.",
                &["CONFIG GET maxmemory*", "INFO memory"],
            )
            .hints(&["CONFIG GET takes a glob pattern."])
            .why("On a cache, set maxmemory below the machine's memory and pick an eviction policy; the defaults (no cap, noeviction) suit a database, not a cache."),
            Step::predict(
                "default-policy",
                "The default policy",
                "What policy does Redis 7.2 start with?",
                "CONFIG GET maxmemory-policy",
                &[
                    "1) \"maxmemory-policy\"\n2) \"noeviction\"",
                    "1) \"maxmemory-policy\"\n2) \"allkeys-lru\"",
                    "1) \"maxmemory-policy\"\n2) \"volatile-lru\"",
                ],
                0,
            )
            .hints(&["The default never drops data on its own."])
            .why("noeviction: at the cap, writes fail instead of keys disappearing. A cache must choose an eviction policy explicitly."),
            Step::predict(
                "oom",
                "A write at the cap under noeviction",
                "maxmemory is set to 1 byte, far below what the server uses, and the policy is noeviction. What does a SET get?",
                "SET k v",
                &[
                    "OK",
                    "(error) OOM command not allowed when used memory > 'maxmemory'.",
                    "(nil)",
                ],
                1,
            )
            .setup(&["CONFIG SET maxmemory 1"])
            .hints(&["noeviction has nothing to evict, so the write itself is refused."])
            .why("Under noeviction a write that may grow memory past maxmemory fails with OOM; reads and DEL still work."),
            Step::doing(
                "units",
                "100 megabytes",
                "Redis reads memory sizes with units: 1m is 1 000 000 bytes, 1mb is 1 048 576.",
                "maxmemory is 100 MiB (104 857 600 bytes).",
                |s| {
                    let m = s.config().maxmemory;
                    if m == 104_857_600 {
                        Ok(())
                    } else {
                        Err(format!("maxmemory is {m} bytes"))
                    }
                },
                &["CONFIG SET maxmemory 100mb"],
                &[&["CONFIG SET maxmemory 100m"], &["CONFIG SET maxmemory 100000000"]],
            )
            .hints(&["The 'b' matters: mb is a power of two, m a power of ten."])
            .why("'100mb' is 100 × 1024 × 1024 bytes; '100m' would be 100 000 000."),
            Step::predict(
                "samples",
                "How many keys does eviction sample?",
                "Redis does not keep a true LRU list: each eviction samples a few keys. How many by default?",
                "CONFIG GET maxmemory-samples",
                &[
                    "1) \"maxmemory-samples\"\n2) \"5\"",
                    "1) \"maxmemory-samples\"\n2) \"16\"",
                    "1) \"maxmemory-samples\"\n2) \"100\"",
                ],
                0,
            )
            .hints(&["It is small; the eviction pool of 16 candidates carries good picks over between rounds."])
            .why("5 samples per round, plus a pool of the best 16 candidates kept across rounds, come close to true LRU at a fraction of its memory; 10 samples come closer at more CPU."),
            Step::predict(
                "freq-needs-lfu",
                "Access frequency needs an LFU policy",
                "Under the default policy, what does OBJECT FREQ say?",
                "OBJECT FREQ k",
                &[
                    "(integer) 0",
                    "(error) ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.",
                    "(integer) 5",
                ],
                1,
            )
            .setup(&["SET k v"])
            .hints(&["The per-key field holds either LRU time or LFU counter, not both."])
            .why("Each key's 24-bit field stores the LRU clock or, under an LFU policy, a logarithmic counter and a decay time; OBJECT FREQ needs the latter."),
            Step::doing(
                "hot-survives",
                "Keep the hot key through a fill",
                "maxmemory is set a little above the current use. Choose the policy; then hot \
                 will be read 100 times and, 5 s later, 600 new keys written once each.",
                "After the fill, keys were evicted and hot is still there.",
                |s| {
                    let evicted = s.evicted();
                    if evicted.is_empty() {
                        return Err("nothing was evicted: the fill was refused or fit".into());
                    }
                    if let Some(i) = evicted.iter().position(|k| k == "hot") {
                        let policy = s.config().maxmemory_policy.name();
                        return Err(format!(
                            "{policy} evicted hot, as eviction number {} of {}",
                            i + 1,
                            evicted.len()
                        ));
                    }
                    if !s.exists("hot") {
                        return Err("hot is gone".into());
                    }
                    Ok(())
                },
                &["CONFIG SET maxmemory-policy allkeys-lfu"],
                &[
                    &["CONFIG SET maxmemory-policy allkeys-lru"],
                    &["CONFIG SET maxmemory-policy noeviction"],
                    &["CONFIG SET maxmemory-policy volatile-lru"],
                ],
            )
            .setup(&["CONFIG SET maxmemory 900000"])
            .after({
                let mut s = vec!["SET hot value".to_string()];
                s.extend((0..100).map(|_| "GET hot".to_string()));
                s.push("# sleep 5000".into());
                s.extend(fill("fill", 600, 100));
                s
            })
            .hints(&[
                "The fill keys are newer than hot's last read: recency alone evicts hot.",
                "Frequency remembers the 100 reads: try an LFU policy.",
            ])
            .why("allkeys-lfu ranks by a decaying access counter, so a key read often survives a burst of one-off writes; allkeys-lru ranks by last access and sees hot as the oldest; noeviction and volatile-* (no key has a TTL) refuse the fill."),
            Step::scenario(
                "volatile-oom",
                "volatile-* needs keys with a TTL",
                "Under volatile-lru only keys with a TTL can be evicted. Here 10% of the preloaded keys have one, and writes start failing with OOM.",
                "volatile-oom",
                &[("volatile", "10")],
                "Change a parameter so that no write fails with OOM under the volatile policy.",
                |o| {
                    let errors = metric(o, "OOM errors, volatile")?;
                    if errors == 0.0 {
                        Ok(())
                    } else {
                        Err(format!("{errors} writes failed with OOM"))
                    }
                },
                &[("volatile", "100")],
                &[&[("policy", "volatile-ttl")], &[("volatile", "20")]],
            )
            .hints(&["Which keys may a volatile policy evict?", "Give every preloaded key a TTL."])
            .why("volatile-* evicts only keys that have a TTL; once none is left it behaves like noeviction. With every key volatile, eviction always finds a victim."),
            Step::scenario(
                "big-keys",
                "A big key stalls everyone",
                "An app reads a 100,000-field hash whole with HGETALL while other clients send GETs.",
                "big-keys",
                &[("parts", "1")],
                "Make every check pass: no other client waits long, and memory spreads over the cluster.",
                checks_pass,
                &[("parts", "100")],
                &[&[("parts", "2")], &[("type", "list")]],
            )
            .hints(&["One command on a big collection holds Redis' only thread for all of it.", "Split the key into many smaller keys."])
            .why("Split into parts, each read is short and lands on a different slot, so no client waits behind it and no node holds all of it."),
            Step::scenario(
                "serialization",
                "Serialising an object",
                "A user object is stored as one JSON blob and a single field changes often.",
                "serialization-cost",
                &[("update", "blob-rewrite")],
                "Make every check pass.",
                checks_pass,
                &[("update", "hash-field")],
                &[&[("fields", "10")], &[("value_len", "20")]],
            )
            .hints(&["Rewriting the whole blob for one field costs bytes on the wire and in memory churn."])
            .why("A hash updates one field with HSET; a blob must be read, decoded, changed and written back whole."),
        ],
    }
}
