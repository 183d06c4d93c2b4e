//! Chapter 10: Cluster slots, hash tags and hot keys — CRC16 slots, hash tags that keep related keys together, CROSSSLOT for multi-key commands across slots, a tenant tag's imbalance and a hot key spread over copies.

use redsim_engine::cluster::key_hash_slot;

use super::at_most;
use crate::{Chapter, Step};

/// Cluster mode with every slot on this one node, so keyed commands run
/// and CROSSSLOT is checked as on a real cluster. A master that just
/// started stays down for two seconds (Redis' writable delay), hence the
/// wait.
const ONE_NODE: &[&str] = &["CLUSTER ADDSLOTSRANGE 0 16383", "# sleep 3000"];

pub fn chapter() -> Chapter {
    Chapter {
        id: "cluster",
        title: "Cluster slots, hash tags and hot keys",
        summary: "A cluster splits keys over 16384 slots by CRC16. Hash tags keep related keys in \
                  one slot for multi-key commands, at the risk of piling load on one node.",
        steps: vec![
            Step::read_run(
                "keyslot",
                "Which slot is a key in?",
                "A key's slot is CRC16(key) mod 16384. If the key contains {…} with something \
                 inside, only that part is hashed: the hash tag.",
                &["CLUSTER KEYSLOT user:1", "CLUSTER KEYSLOT {user:1}:cart", "CLUSTER KEYSLOT {user:1}:orders"],
            )
            .config(&[("cluster-enabled", "yes")])
            .hints(&["Run the three commands and compare the numbers."])
            .why("Both tagged keys hash only 'user:1', so they land in user:1's slot and on the same node."),
            Step::predict(
                "slot-of-foo",
                "The slot of foo",
                "What slot does the key foo map to?",
                "CLUSTER KEYSLOT foo",
                &["(integer) 12182", "(integer) 0", "(integer) 16384"],
                0,
            )
            .config(&[("cluster-enabled", "yes")])
            .hints(&["Slots run from 0 to 16383."])
            .why("CRC16('foo') mod 16384 is 12182; every client computes the same and sends the command to the slot's owner."),
            Step::predict(
                "empty-tag",
                "An empty hash tag",
                "If the braces hold nothing, is there a hash tag? The key is {}user:1.",
                "CLUSTER KEYSLOT {}user:1",
                &[
                    &format!("(integer) {}", key_hash_slot(b"{}user:1")),
                    &format!("(integer) {}", key_hash_slot(b"user:1")),
                    "(integer) 0",
                ],
                0,
            )
            .config(&[("cluster-enabled", "yes")])
            .hints(&["Only a non-empty {…} is a tag."])
            .why("An empty tag does not count: the whole key, braces included, is hashed."),
            Step::predict(
                "crossslot",
                "A multi-key command across slots",
                "In a cluster, MSET of two keys in different slots:",
                "MSET user:1:name ann user:2:name bob",
                &[
                    "OK",
                    "(error) CROSSSLOT Keys in request don't hash to the same slot",
                    "(error) MOVED 1 127.0.0.1:7001",
                ],
                1,
            )
            .config(&[("cluster-enabled", "yes")])
            .setup(ONE_NODE)
            .hints(&["Even on one node, a cluster refuses multi-key commands across slots."])
            .why("Multi-key commands, transactions and scripts must touch one slot: CROSSSLOT is the error, even when both slots live on the same node."),
            Step::doing(
                "same-slot",
                "Keep a user's keys together",
                "Store user 42's cart and orders with one MSET. The keys must contain 'cart' and \
                 'orders' and '42'.",
                "A key with 'cart' and one with 'orders', both naming 42, exist in the same slot.",
                |s| {
                    let keys = s.keys("*42*");
                    let cart = keys.iter().find(|k| k.contains("cart"));
                    let orders = keys.iter().find(|k| k.contains("orders"));
                    match (cart, orders) {
                        (Some(c), Some(o)) if key_hash_slot(c.as_bytes()) == key_hash_slot(o.as_bytes()) => Ok(()),
                        (Some(c), Some(o)) => Err(format!("{c} and {o} are in different slots")),
                        _ => Err("there is no cart and orders key for user 42".into()),
                    }
                },
                &["MSET {user:42}:cart c {user:42}:orders o"],
                &[&["MSET user:42:cart c user:42:orders o"], &["SET user:42:cart c"]],
            )
            .config(&[("cluster-enabled", "yes")])
            .setup(ONE_NODE)
            .hints(&["Without a tag MSET is refused with CROSSSLOT.", "Put {user:42} in both names."])
            .why("A hash tag makes both keys hash the same part, so MSET, MULTI and scripts may use them together."),
            Step::scenario(
                "tenant-tag",
                "One tenant in one slot",
                "Tagging every key with its tenant keeps a tenant's keys together, and piles a big \
                 tenant on one node: moving its slot moves all of it.",
                "cluster-hash-tags",
                &[("layout", "tenant-tag")],
                "Change the layout so moving the slot moves at most 10 keys.",
                |o| at_most(o, "keys moved with the slot", 10.0),
                &[("layout", "entity-tag")],
                &[&[("keys", "300")], &[("tenant_share", "0.05")]],
            )
            .hints(&["Tag by something smaller than the tenant."])
            .why("Per-entity tags keep only what must be together in one slot, so keys spread evenly and a slot move is small."),
            Step::scenario(
                "hot-copies",
                "Spread a hot key over copies",
                "One hot key sends most of the traffic to one master. Reading one of N suffixed \
                 copies (hot:1 … hot:N) spreads it over the slots.",
                "cluster-hot-key",
                &[("mitigation", "suffixed-copies"), ("copies", "2")],
                "Change a parameter so the hottest node serves under 40% of the commands with copies.",
                |o| at_most(o, "hottest node share (suffixed-copies)", 39.99),
                &[("copies", "16")],
                &[&[("copies", "3")], &[("write_every", "5000")]],
            )
            .hints(&["More copies, more slots to spread over."])
            .why("Each copy is its own key in its own slot; reads pick one at random, so more copies spread the load over more masters, at the cost of one write per copy."),
        ],
    }
}
