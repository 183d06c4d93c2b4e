//! Redis 7's active expire cycle (`activeExpireCycle` in expire.c): slow cycles from the cron, fast cycles before sleeping, sampling keys with a TTL through a scan cursor.
//!
//! The older rule redis.io's EXPIRE page still describes ("test 20 random
//! keys with an expire, delete the expired ones, repeat if more than 25%
//! were expired") is Redis 5's: `dictGetRandomKey` picks, so the same key can
//! be drawn twice and a sparse table costs many probes. Redis 6.0 replaced it:
//! the cycle walks the expires table's buckets with a cursor kept per
//! database (in index order in 6.x and 7.0; through `dictScan`'s
//! reverse-binary cursor since 7.2, which is what we follow), so every key is
//! visited once per pass; it repeats on a database while more than 10%
//! (`ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE`) of the keys sampled in a loop were
//! expired, and stops on a CPU time budget checked every 16 loops. The
//! `active-expire-effort` setting (1..=10) scales keys per loop, budgets and
//! that threshold. Both rules make expired keys that nobody reads cost
//! memory for a while: the modern one bounds it to about 10% of the keys
//! with a TTL instead of 25%.
//!
//! Redis measures that budget with the wall clock. Here the elapsed time is a
//! model: each sampled key costs [`SAMPLE_COST_NS`] and each reclaimed key
//! [`EXPIRE_COST_NS`] more, so the cycle stops after the same amount of work
//! on every run.

pub mod state;

use crate::server::trace::{Event, ExpireHow};
use crate::server::Server;

/// `ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP`.
pub const KEYS_PER_LOOP: u64 = 20;
/// `ACTIVE_EXPIRE_CYCLE_FAST_DURATION`, microseconds.
pub const FAST_DURATION_US: u64 = 1000;
/// `ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC`: share of CPU a slow cycle may use.
pub const SLOW_TIME_PERC: u64 = 25;
/// `ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE`: percent of expired keys among the sampled that stops the repeat.
pub const ACCEPTABLE_STALE: u64 = 10;
/// `CRON_DBS_PER_CALL`.
pub const DBS_PER_CALL: usize = 16;
/// Modelled cost of examining one key with a TTL.
pub const SAMPLE_COST_NS: u64 = 100;
/// Modelled extra cost of deleting one expired key.
pub const EXPIRE_COST_NS: u64 = 400;

/// Which cycle: the cron's slow one or `beforeSleep`'s fast one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleKind {
    Slow,
    Fast,
}

/// What one call of the cycle did, for tests and tools (Redis keeps only
/// the running stats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CycleReport {
    /// False when a fast cycle was not due and did nothing.
    pub ran: bool,
    /// Keys with a TTL examined.
    pub sampled: u64,
    /// Keys found expired and deleted.
    pub expired: u64,
    /// Sampling loops (`iteration` in Redis), over all databases.
    pub loops: u64,
    /// Modelled time spent, nanoseconds.
    pub elapsed_ns: u64,
    /// The budget, microseconds.
    pub timelimit_us: u64,
    /// Stopped on the time budget (`timelimit_exit`).
    pub timelimit_exit: bool,
}

/// Runs one active expire cycle and reports its time (its own and the
/// synchronous freeing it did) to the latency monitor as `expire-cycle`.
pub fn active_expire_cycle(srv: &mut Server, kind: CycleKind) -> CycleReport {
    // A CLIENT PAUSE holds expiry: keys past their time stay until it ends.
    if srv.paused_now() {
        return CycleReport::default();
    }
    let stall_before = srv.lazyfree.stall_ns;
    let report = expire_cycle(srv, kind);
    let ns = report.elapsed_ns + srv.lazyfree.stall_ns.saturating_sub(stall_before);
    let (threshold, now_s) = (srv.config.latency_monitor_threshold, srv.now_ms() / 1000);
    srv.observe
        .latency_sample(threshold, "expire-cycle", now_s, ns / 1_000_000);
    report
}

fn expire_cycle(srv: &mut Server, kind: CycleKind) -> CycleReport {
    // Only masters expire keys; replicas wait for the master's DELs.
    // DEBUG SET-ACTIVE-EXPIRE 0 stops the cycle (lazy expiry goes on).
    if srv.repl.is_replica() || !srv.debug.active_expire {
        return CycleReport::default();
    }
    let effort = srv.config.active_expire_effort.saturating_sub(1) as u64;
    let keys_per_loop = KEYS_PER_LOOP + KEYS_PER_LOOP / 4 * effort;
    let fast_duration = FAST_DURATION_US + FAST_DURATION_US / 4 * effort;
    let slow_time_perc = SLOW_TIME_PERC + 2 * effort;
    let acceptable_stale = ACCEPTABLE_STALE - effort;
    let start_us = srv.clock.now_us();

    if kind == CycleKind::Fast {
        // Redis compares the stale *fraction* (0..1) with a *percentage*
        // here, so in practice only a time-limited previous cycle triggers a
        // fast one. We keep that behaviour.
        if !srv.expire_state.timelimit_exit
            && srv.stats.expired_stale_perc < acceptable_stale as f64
        {
            return CycleReport::default();
        }
        if srv
            .expire_state
            .last_fast_cycle_us
            .is_some_and(|last| start_us < last + fast_duration * 2)
        {
            return CycleReport::default();
        }
        srv.expire_state.last_fast_cycle_us = Some(start_us);
    }

    let dbnum = srv.dbs.len();
    let mut dbs_per_call = DBS_PER_CALL;
    if dbs_per_call > dbnum || srv.expire_state.timelimit_exit {
        dbs_per_call = dbnum;
    }
    let hz = srv.config.hz.clamp(1, 500) as u64;
    let mut timelimit_us = (slow_time_perc * 1_000_000 / hz / 100).max(1);
    if kind == CycleKind::Fast {
        timelimit_us = fast_duration;
    }
    srv.expire_state.timelimit_exit = false;

    let mut elapsed_ns: u64 = 0;
    let mut iteration: u64 = 0;
    let mut total_sampled = 0;
    let mut total_expired = 0;
    let now = srv.now_ms();
    let mut j = 0;
    while j < dbs_per_call && !srv.expire_state.timelimit_exit {
        let dbi = srv.expire_state.current_db % dbnum;
        srv.expire_state.current_db += 1;
        loop {
            iteration += 1;
            let db = &mut srv.dbs[dbi];
            let mut num = db.expires.len() as u64;
            if num == 0 {
                db.avg_ttl = 0;
                break;
            }
            let slots = db.expires.buckets() as u64;
            // Under 1% full, sampling is too costly: wait for the resize.
            if slots > crate::keyspace::dict::INITIAL_SIZE as u64 && num * 100 / slots < 1 {
                break;
            }
            num = num.min(keys_per_loop);
            let max_buckets = num * 20;
            let mut checked_buckets = 0;
            let (mut sampled, mut expired, mut ttl_sum, mut ttl_samples) = (0u64, 0u64, 0i64, 0i64);
            let mut batch: Vec<(Box<[u8]>, i64)> = Vec::new();
            let mut free_extra_ns = 0;
            while sampled < num && checked_buckets < max_buckets {
                batch.clear();
                let db = &mut srv.dbs[dbi];
                db.expires_cursor = db
                    .expires
                    .scan(db.expires_cursor, |k, &when| batch.push((k.into(), when)));
                checked_buckets += 1;
                for (key, when) in batch.drain(..) {
                    let ttl = when - now;
                    if now > when {
                        // A value freed synchronously (lazyfree-lazy-expire
                        // off) takes time beyond a small key's, which
                        // `EXPIRE_COST_NS` covers; Redis' budget sees it.
                        let free_ns = srv.delete_expired(dbi, &key, ExpireHow::Active);
                        free_extra_ns += free_ns.saturating_sub(crate::lazyfree::FREE_COST_NS);
                        expired += 1;
                    }
                    if ttl > 0 {
                        ttl_sum += ttl;
                        ttl_samples += 1;
                    }
                    sampled += 1;
                }
            }
            elapsed_ns += sampled * SAMPLE_COST_NS + expired * EXPIRE_COST_NS + free_extra_ns;
            total_expired += expired;
            total_sampled += sampled;
            if ttl_samples > 0 {
                let db = &mut srv.dbs[dbi];
                let avg = ttl_sum / ttl_samples;
                if db.avg_ttl == 0 {
                    db.avg_ttl = avg;
                }
                db.avg_ttl = (db.avg_ttl / 50) * 49 + avg / 50;
            }
            if iteration & 0xf == 0 && elapsed_ns / 1000 > timelimit_us {
                srv.expire_state.timelimit_exit = true;
                srv.stats.expired_time_cap_reached_count += 1;
                break;
            }
            if !(sampled == 0 || expired * 100 / sampled > acceptable_stale) {
                break;
            }
        }
        j += 1;
    }
    srv.stats.expire_cycle_time_used_ns += elapsed_ns;
    let current = if total_sampled > 0 {
        total_expired as f64 / total_sampled as f64
    } else {
        0.0
    };
    srv.stats.expired_stale_perc = current * 0.05 + srv.stats.expired_stale_perc * 0.95;
    if total_sampled > 0 {
        srv.emit(Event::ExpireCycle {
            fast: kind == CycleKind::Fast,
            sampled: total_sampled,
            expired: total_expired,
        });
    }
    CycleReport {
        ran: true,
        sampled: total_sampled,
        expired: total_expired,
        loops: iteration,
        elapsed_ns,
        timelimit_us,
        timelimit_exit: srv.expire_state.timelimit_exit,
    }
}

#[cfg(test)]
mod tests;
