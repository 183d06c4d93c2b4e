//! The scenario catalogue: every scenario's info and run function, in the order the library shows them.

use super::{Outcome, Params, Scenario, ScenarioInfo};

/// Every scenario, in catalogue order. Add new ones here.
const SCENARIOS: &[Scenario] = &[
    super::scenarios::caching::HIT_RATE_LATENCY,
    super::scenarios::caching::CACHE_HURTS,
    super::scenarios::caching::STAMPEDE,
    super::scenarios::caching::AVALANCHE,
    super::scenarios::caching::HOT_KEY_L1,
    super::scenarios::caching::CONNECTION_POOL,
    super::scenarios::consistency::DELETE_BEFORE_UPDATE,
    super::scenarios::consistency::UPDATE_THEN_DELETE,
    super::scenarios::consistency::OVERWRITE_VS_DELETE,
    super::scenarios::consistency::DOUBLE_DELETE,
    super::scenarios::consistency::VERSIONED_WRITES,
    super::scenarios::consistency::PENETRATION,
    super::scenarios::consistency::INCR_VS_GET_SET,
    super::scenarios::consistency::PIPELINE_MULTI_LUA,
    super::scenarios::coordination::DISTRIBUTED_LOCK,
    super::scenarios::coordination::REDLOCK,
    super::scenarios::coordination::RATE_LIMITS,
    super::scenarios::coordination::QUEUES,
    super::scenarios::coordination::PUBSUB_VS_STREAMS,
    super::scenarios::coordination::WRITE_BEHIND_COUNTERS,
    super::scenarios::coordination::SCAN_VS_KEYS,
    super::scenarios::memory::LRU_APPROXIMATION,
    super::scenarios::memory::LRU_VS_LFU_SCAN,
    super::scenarios::memory::VOLATILE_OOM,
    super::scenarios::memory::DEL_VS_UNLINK,
    super::scenarios::memory::EXPIRY_AVALANCHE,
    super::scenarios::availability::FAILOVER,
    super::scenarios::availability::REPLICATION_TOPOLOGY,
    super::scenarios::availability::PERSISTENCE_LOSS,
    super::scenarios::cluster::CLUSTER_HOT_KEY,
    super::scenarios::cluster::CLUSTER_HASH_TAGS,
    super::scenarios::cluster::CLUSTER_FAILOVER,
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
