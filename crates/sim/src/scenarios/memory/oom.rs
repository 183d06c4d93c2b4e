//! volatile-* policies running out of candidates: once no key with a TTL is left, writes fail with Redis' OOM error while allkeys-lru keeps accepting them.

use super::{maxmemory_for, OOM_ERROR};
use crate::kernel::{Micros, Redis, MS};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::proto::resp::Frame;

pub const VOLATILE_OOM: Scenario = Scenario::new("volatile-oom", oom_run);

const VOLATILE_POLICIES: [&str; 4] = [
    "volatile-lru",
    "volatile-lfu",
    "volatile-ttl",
    "volatile-random",
];

struct OomRun {
    accepted: u64,
    ooms: u64,
    /// Write number of the first OOM, and volatile keys left just before it.
    first_oom: Option<(u64, usize)>,
    /// Every OOM's text was Redis' exact error.
    exact_text: bool,
    evicted: u64,
    volatile_evicted: u64,
    used: Vec<(f64, f64)>,
    volatile_left: Vec<(f64, f64)>,
}

fn oom_policy(seed: u64, policy: &str, maxmemory: u64, p: &Params) -> OomRun {
    let mm = maxmemory.to_string();
    let mut r = Redis::new(seed, &[("maxmemory", &mm), ("maxmemory-policy", policy)]);
    let capacity = p.count("capacity") as usize;
    let preload = (capacity as f64 * p.get("preload") / 100.0).round() as usize;
    let volatile = (preload as f64 * p.get("volatile") / 100.0).round() as usize;
    let value = "v".repeat(100);
    // Volatile keys are spread through the preload (every n-th key).
    let every = preload
        .checked_div(volatile)
        .map_or(usize::MAX, |e| e.max(1));
    let mut ttl_keys = Vec::new();
    for i in 0..preload {
        let key = format!("key:{i}");
        if i % every == 0 && ttl_keys.len() < volatile {
            r.exec(0, "app", &["SET", &key, &value, "EX", "3600"]);
            ttl_keys.push(key);
        } else {
            r.exec(0, "app", &["SET", &key, &value]);
        }
    }
    let mut run = OomRun {
        accepted: 0,
        ooms: 0,
        first_oom: None,
        exact_text: true,
        evicted: 0,
        volatile_evicted: 0,
        used: Vec::new(),
        volatile_left: Vec::new(),
    };
    let writes = p.count("writes");
    let mut t: Micros = 0;
    for w in 1..=writes {
        t += MS;
        let left = r.engine().expires_count(0);
        let key = format!("new:{w}");
        match r.exec(t, "app", &["SET", &key, &value]) {
            Frame::Error(e) => {
                run.ooms += 1;
                run.exact_text &= e == OOM_ERROR;
                if run.first_oom.is_none() {
                    run.first_oom = Some((w, left));
                }
            }
            _ => run.accepted += 1,
        }
        let e = r.engine();
        run.used.push((w as f64, e.used_memory() as f64 / 1024.0));
        run.volatile_left
            .push((w as f64, e.expires_count(0) as f64));
    }
    let e = r.engine();
    run.evicted = e.stats().evicted_keys;
    run.volatile_evicted = ttl_keys
        .iter()
        .filter(|k| !e.holds_key(0, k.as_bytes()))
        .count() as u64;
    run
}

fn oom_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("volatile-oom", seed, p);
    let policy = VOLATILE_POLICIES
        .get(p.choice("policy"))
        .copied()
        .unwrap_or("volatile-lru");
    let capacity = p.count("capacity") as usize;
    let value = "v".repeat(100);
    let maxmemory = maxmemory_for(seed, capacity, |r, i| {
        r.exec(0, "setup", &["SET", &format!("key:{i}"), &value]);
    });
    let vol = oom_policy(seed, policy, maxmemory, p);
    let all = oom_policy(seed, "allkeys-lru", maxmemory, p);
    let writes = p.count("writes");
    out.duration_us = writes * MS;
    out.metric(
        &format!("writes accepted, {policy}"),
        vol.accepted as f64,
        "writes",
    );
    out.metric(&format!("OOM errors, {policy}"), vol.ooms as f64, "errors");
    out.metric("volatile keys evicted", vol.volatile_evicted as f64, "keys");
    out.metric(
        "writes accepted, allkeys-lru",
        all.accepted as f64,
        "writes",
    );
    out.metric("OOM errors, allkeys-lru", all.ooms as f64, "errors");
    if let Some((w, _)) = vol.first_oom {
        out.metric("first OOM at write", w as f64, "");
    }
    let limit_kb = maxmemory as f64 / 1024.0;
    out.charts.push(
        Chart::line("used_memory over the writes", "write #", "KiB")
            .with(Series::new(
                &format!("used_memory, {policy}"),
                vol.used.clone(),
            ))
            .with(Series::new("used_memory, allkeys-lru", all.used.clone()))
            .with(Series::new(
                "maxmemory",
                vec![(0.0, limit_kb), (writes as f64, limit_kb)],
            )),
    );
    out.charts.push(
        Chart::line("Keys with a TTL left", "write #", "keys")
            .with(Series::new(policy, vol.volatile_left.clone()))
            .with(Series::new("allkeys-lru", all.volatile_left.clone())),
    );
    let started_when_empty = vol.first_oom.is_some_and(|(_, left)| left == 0);
    out.check(
        &format!("Under {policy}, writes fail with OOM only once no key with a TTL is left."),
        vol.ooms > 0 && started_when_empty && vol.exact_text,
        match vol.first_oom {
            Some((w, left)) => format!(
                "first OOM at write {w} with {left} keys with a TTL left; {} OOM errors, exact text: {}",
                vol.ooms, vol.exact_text
            ),
            None => "no OOM error at all".to_string(),
        },
    );
    out.check(
        "allkeys-lru never refuses a write.",
        all.ooms == 0,
        format!("{} OOM errors, {} keys evicted", all.ooms, all.evicted),
    );
    out.note(format!(
        "{policy} accepted {} of {writes} writes and evicted {} keys with a TTL, then answered \"{OOM_ERROR}\" {} times.",
        vol.accepted, vol.volatile_evicted, vol.ooms
    ));
    out.note(format!(
        "allkeys-lru accepted all {} writes by evicting {} keys, with or without a TTL.",
        all.accepted, all.evicted
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{all_pass, failed, metric as m, run};

    #[test]
    fn volatile_policies_refuse_writes_once_no_ttl_key_is_left() {
        for policy in VOLATILE_POLICIES {
            for o in all_pass("volatile-oom", &[("policy", policy)]) {
                assert_eq!(m(&o, "volatile keys evicted"), 80.0, "{policy}");
                let ooms = m(&o, &format!("OOM errors, {policy}"));
                assert!(ooms > 100.0, "{policy}: {ooms}");
                assert_eq!(m(&o, "OOM errors, allkeys-lru"), 0.0);
                assert_eq!(m(&o, "writes accepted, allkeys-lru"), 500.0);
            }
        }
        // Every preloaded key has a TTL: enough candidates, no OOM, so the
        // OOM claim does not hold in this run.
        let o = run("volatile-oom", 1, &[("volatile", "100")]);
        assert_eq!(m(&o, "OOM errors, volatile-lru"), 0.0);
        assert!(failed(&o, "Under volatile-lru"));
    }

    #[test]
    fn the_oom_text_is_redis_own() {
        let mut r = Redis::new(
            1,
            &[("maxmemory", "1"), ("maxmemory-policy", "volatile-lru")],
        );
        match r.exec(0, "a", &["SET", "k", "v"]) {
            Frame::Error(e) => assert_eq!(e, OOM_ERROR),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn choices_match_the_description() {
        crate::testing::assert_choices(
            "volatile-oom",
            "policy",
            &super::VOLATILE_POLICIES.join(" "),
        );
    }
}
