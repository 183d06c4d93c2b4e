//! The scenario catalogue: every scenario's id and run function, in the order the library shows them; descriptions come from the lessons' data files.

use crate::outcome::Outcome;
use crate::params::Params;
use crate::scenario::{Scenario, ScenarioInfo};
use crate::scenarios::{availability, caching, cluster, consistency, coordination, memory};

/// Every scenario, in catalogue order. Add new ones here, and their
/// description to the lesson's `scenarios.json`.
pub(crate) const SCENARIOS: &[Scenario] = &[
    caching::HIT_RATE_LATENCY,
    caching::CACHE_HURTS,
    caching::STAMPEDE,
    caching::AVALANCHE,
    caching::AVALANCHE_CAUSES,
    caching::CACHE_WARMING,
    caching::HOT_KEY_L1,
    caching::L1_PUBSUB_INVALIDATION,
    caching::CLIENT_SIDE_CACHING,
    caching::CONNECTION_POOL,
    caching::PIPELINING,
    caching::REDIS_OUTAGE,
    consistency::DELETE_BEFORE_UPDATE,
    consistency::UPDATE_THEN_DELETE,
    consistency::OVERWRITE_VS_DELETE,
    consistency::DOUBLE_DELETE,
    consistency::VERSIONED_WRITES,
    consistency::PENETRATION,
    consistency::NEGATIVE_CACHING_EXTRAS,
    consistency::INCR_VS_GET_SET,
    consistency::PIPELINE_MULTI_LUA,
    consistency::SET_THEN_EXPIRE,
    coordination::DISTRIBUTED_LOCK,
    coordination::LOCK_WITHOUT_TTL,
    coordination::REDLOCK,
    coordination::REDLOCK_NO_FENCING,
    coordination::RATE_LIMITS,
    coordination::QUEUES,
    coordination::PUBSUB_VS_STREAMS,
    coordination::SLOW_SUBSCRIBER,
    coordination::STREAMS_AT_LEAST_ONCE,
    coordination::WRITE_BEHIND_COUNTERS,
    coordination::SCAN_VS_KEYS,
    memory::LRU_APPROXIMATION,
    memory::LRU_VS_LFU_SCAN,
    memory::VOLATILE_OOM,
    memory::DEL_VS_UNLINK,
    memory::BIG_KEYS,
    memory::EXPIRY_AVALANCHE,
    memory::SEED_NUMBERS,
    memory::SERIALIZATION_COST,
    availability::FAILOVER,
    availability::REPLICATION_TOPOLOGY,
    availability::PERSISTENCE_LOSS,
    availability::LONG_SCRIPT,
    cluster::CLUSTER_HOT_KEY,
    cluster::CLUSTER_HASH_TAGS,
    cluster::CLUSTER_FAILOVER,
];

/// Info for every scenario, in catalogue order.
pub fn catalog() -> Vec<ScenarioInfo> {
    SCENARIOS.iter().map(|s| s.info().clone()).collect()
}

/// The scenario with this id.
pub fn find(id: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.id == id)
}

/// Runs scenario `id` with `seed` and parameter overrides (name, text).
pub fn run(id: &str, seed: u64, overrides: &[(String, String)]) -> Result<Outcome, String> {
    let s = find(id).ok_or_else(|| {
        let ids: Vec<&str> = SCENARIOS.iter().map(|s| s.id).collect();
        format!("unknown scenario '{id}' (known: {})", ids.join(", "))
    })?;
    let info = s.info();
    let params = Params::resolve(&info.params, overrides)?;
    let mut out = (s.run)(&params, seed);
    out.id = info.id.to_string();
    out.seed = seed;
    out.params = params.values().clone();
    Ok(out)
}

/// [`run`] with overrides as string slices, as tests and examples write them.
pub fn run_with(id: &str, seed: u64, overrides: &[(&str, &str)]) -> Result<Outcome, String> {
    let owned: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    run(id, seed, &owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique() {
        for (i, a) in SCENARIOS.iter().enumerate() {
            assert!(
                SCENARIOS[i + 1..].iter().all(|b| b.id != a.id),
                "duplicate id {}",
                a.id
            );
        }
    }

    #[test]
    fn unknown_scenarios_are_reported() {
        assert!(run("no-such", 1, &[])
            .unwrap_err()
            .starts_with("unknown scenario 'no-such'"));
    }
}
