//! The scenario catalogue: every scenario's info and run function, in the order the library shows them.

use super::{Outcome, Params, Scenario, ScenarioInfo};

/// Every scenario, in catalogue order. Add new ones here.
const SCENARIOS: &[Scenario] = &[
    super::load::HIT_RATE_LATENCY,
    super::load::CACHE_HURTS,
    super::load::STAMPEDE,
    super::load::AVALANCHE,
    super::load::HOT_KEY_L1,
    super::load::CONNECTION_POOL,
    super::races::DELETE_BEFORE_UPDATE,
    super::races::UPDATE_THEN_DELETE,
    super::races::OVERWRITE_VS_DELETE,
    super::races::DOUBLE_DELETE,
    super::races::VERSIONED_WRITES,
    super::races::PENETRATION,
    super::races::INCR_VS_GET_SET,
    super::races::PIPELINE_MULTI_LUA,
    super::coord::DISTRIBUTED_LOCK,
    super::coord::REDLOCK,
    super::coord_rate::RATE_LIMITS,
    super::coord_queue::QUEUES,
    super::coord_queue::PUBSUB_VS_STREAMS,
    super::coord_ops::WRITE_BEHIND_COUNTERS,
    super::coord_ops::SCAN_VS_KEYS,
    super::memory::LRU_APPROXIMATION,
    super::memory::LRU_VS_LFU_SCAN,
    super::memory::VOLATILE_OOM,
    super::memory::DEL_VS_UNLINK,
    super::memory::EXPIRY_AVALANCHE,
    super::failover::FAILOVER,
    super::topology::REPLICATION_TOPOLOGY,
    super::persistence::PERSISTENCE_LOSS,
    super::cluster_lessons::CLUSTER_HOT_KEY,
    super::cluster_lessons::CLUSTER_HASH_TAGS,
    super::cluster_failover::CLUSTER_FAILOVER,
];

/// Info for every scenario, in catalogue order.
pub fn catalog() -> Vec<ScenarioInfo> {
    SCENARIOS.iter().map(|s| (s.info)()).collect()
}

/// The scenario with this id.
pub fn find(id: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| (s.info)().id == id)
}

/// Runs scenario `id` with `seed` and parameter overrides (name, text).
pub fn run(id: &str, seed: u64, overrides: &[(String, String)]) -> Result<Outcome, String> {
    let s = find(id).ok_or_else(|| {
        let ids: Vec<&str> = SCENARIOS.iter().map(|s| (s.info)().id).collect();
        format!("unknown scenario '{id}' (known: {})", ids.join(", "))
    })?;
    let info = (s.info)();
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
    fn ids_are_unique_and_params_resolve_to_defaults() {
        let infos = catalog();
        for (i, a) in infos.iter().enumerate() {
            assert!(
                infos[i + 1..].iter().all(|b| b.id != a.id),
                "duplicate id {}",
                a.id
            );
            assert!(Params::resolve(&a.params, &[]).is_ok());
            for p in &a.params {
                assert!(
                    p.min <= p.default && p.default <= p.max,
                    "{}.{}",
                    a.id,
                    p.name
                );
                assert!(!p.help.is_empty(), "{}.{} needs a help line", a.id, p.name);
            }
        }
    }

    #[test]
    fn unknown_scenarios_are_reported() {
        assert!(run("no-such", 1, &[])
            .unwrap_err()
            .starts_with("unknown scenario 'no-such'"));
    }
}
