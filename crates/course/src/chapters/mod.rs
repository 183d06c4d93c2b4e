//! The chapters, one module each, in the seeds' order, and the small helpers their checks share.

mod cache_aside;
mod cluster;
mod consistency;
mod eviction;
mod locks;
mod queues;
mod replication;
mod stampede;
mod tracking;
mod transactions;
mod ttl;

use redsim_sim::Outcome;

use crate::Chapter;

/// Every chapter, in order.
pub fn all() -> Vec<Chapter> {
    vec![
        cache_aside::chapter(),
        ttl::chapter(),
        eviction::chapter(),
        stampede::chapter(),
        consistency::chapter(),
        locks::chapter(),
        queues::chapter(),
        transactions::chapter(),
        replication::chapter(),
        cluster::chapter(),
        tracking::chapter(),
    ]
}

/// The first metric whose name starts with `prefix` (some names carry the
/// chosen variant after the prefix). A missing one is an authoring mistake
/// `prove` reports.
pub(crate) fn metric(o: &Outcome, prefix: &str) -> Result<f64, String> {
    o.metrics
        .iter()
        .find(|m| m.name.starts_with(prefix))
        .map(|m| m.value)
        .ok_or_else(|| format!("the run has no metric '{prefix}'"))
}

/// `Err` unless metric `prefix` is at most `max`.
pub(crate) fn at_most(o: &Outcome, prefix: &str, max: f64) -> Result<(), String> {
    let v = metric(o, prefix)?;
    if v <= max {
        Ok(())
    } else {
        Err(format!(
            "{prefix}: {} — it should be at most {}",
            redsim_sim::params::fmt_num(v),
            redsim_sim::params::fmt_num(max)
        ))
    }
}

/// `Err` naming the first failing check unless every check of the run passes.
pub(crate) fn checks_pass(o: &Outcome) -> Result<(), String> {
    match o.checks.iter().find(|c| !c.passed) {
        None => Ok(()),
        Some(c) => Err(format!("not yet: {} ({})", c.claim, c.detail)),
    }
}

/// `Err` unless metric `prefix` is at least `min`.
pub(crate) fn at_least(o: &Outcome, prefix: &str, min: f64) -> Result<(), String> {
    let v = metric(o, prefix)?;
    if v >= min {
        Ok(())
    } else {
        Err(format!(
            "{prefix}: {} — it should be at least {}",
            redsim_sim::params::fmt_num(v),
            redsim_sim::params::fmt_num(min)
        ))
    }
}

/// `n` writes of `prefix:i` with a `size`-byte value, as session lines: a
/// fill that pushes memory past `maxmemory`.
pub(crate) fn fill(prefix: &str, n: usize, size: usize) -> Vec<String> {
    let value = "x".repeat(size);
    (0..n)
        .map(|i| format!("SET {prefix}:{i} {value}"))
        .collect()
}
