//! Sub-seeds: every seed a run derives from its own, named and defined once, so each derivation keeps its exact value and no two uses collide by accident.
//!
//! A scenario gets one seed. The engines, the extra runs of a comparison
//! and the independent random streams it needs (a second picker, the
//! sentinels' clocks) each take a seed derived here.

/// The engine seed of node `i` of a replicated world (a master and its replicas).
pub fn node(seed: u64, i: usize) -> u64 {
    seed.wrapping_mul(31).wrapping_add(i as u64)
}

/// The engine seed of node `i` of the simulated cluster.
pub fn cluster_node(seed: u64, i: usize) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(i as u64)
}

/// The seed of the `k`-th of several runs or servers side by side
/// (`nth(seed, 0)` is `seed` itself).
pub fn nth(seed: u64, k: u64) -> u64 {
    seed.wrapping_add(k)
}

/// The seed of a random stream kept apart from the run's main one, told
/// apart by its `salt` (one of the constants below, or a trial number).
pub fn salted(seed: u64, salt: u64) -> u64 {
    seed ^ salt
}

/// The cluster bus: ping targets, election delays.
pub const CLUSTER_BUS: u64 = 0xB005_C10C_0000_0001;
/// Each sentinel's desynchronising delays.
pub const SENTINELS: u64 = 0x05e4_71e1;
/// The caching world's second Redis node (the one a failover switches to).
pub const STANDBY_NODE: u64 = 1;
/// The Redis node of the consistency races.
pub const RACE_REDIS: u64 = 0x5eed;
/// The cluster hot-key clients' choices (which copy, replica or pod).
pub const HOT_KEY_CHOICES: u64 = 0x5eed_c0de;
/// The readers' key choice while a slot is resharded.
pub const RESHARD_READS: u64 = 0x007e_5a4d;
/// TTL jitter of the expiry avalanche.
pub const TTL_JITTER: u64 = 0x6a09_e667_f3bc_c908;
/// The penetration scenario's request stream.
pub const PENETRATION_REQUESTS: u64 = 0xb100;
/// The L1 invalidation pods' reads and writer (the same in every variant).
pub const L1_WORKLOAD: u64 = 0x11_1a7e;
/// The client-side caching pods' reads and writer (the same in every mode).
pub const CSC_WORKLOAD: u64 = 0xc5c_10ad;
/// The versioned-keys half of the versioned-writes scenario.
pub const VERSIONED_KEYS: u64 = 0x77;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivations_keep_their_values() {
        assert_eq!(node(7, 2), 7 * 31 + 2);
        assert_eq!(cluster_node(7, 2), 7 * 1_000_003 + 2);
        assert_eq!(nth(u64::MAX, 1), 0);
        assert_eq!(salted(1, CLUSTER_BUS), 0xB005_C10C_0000_0000);
    }
}
