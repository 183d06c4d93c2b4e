//! MEMORY: USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE and HELP, answering from the engine's model of Redis' allocations.
//!
//! MEMORY USAGE follows Redis 7.2's formula (`objectComputeSize` + the key's
//! sds + `sizeof(dictEntry)`), but ours is exact whatever `SAMPLES` says:
//! collections keep running byte counters, so there is nothing to sample.
//! Redis estimates nested values from 5 sampled elements by default, so the
//! two agree exactly only with `SAMPLES 0` (see tests/memory_fidelity.rs).

use super::args::{is, NOT_INTEGER, SYNTAX};
use super::replies::help_reply;
use super::table::{commands, container, Command, Ctx};
use crate::proto::resp::{parse_i64, Frame};

pub(super) static COMMANDS: &[Command] = commands! { group: "server";
    "memory" => container, arity: -2, flags: [], acl: [SLOW], since: "4.0.0",
        syntax: "MEMORY <USAGE | STATS | DOCTOR | MALLOC-STATS | PURGE | HELP> [key [SAMPLES count]]", summary: "Reports how much memory keys and the server use, in Redis' allocator terms.", subcommands: MEMORY_SUBCOMMANDS;
};

/// MEMORY's subcommands, as Redis 7.2's command table declares them.
static MEMORY_SUBCOMMANDS: &[Command] = commands! { group: "server";
    heavy "doctor" => doctor, arity: 2, flags: [], acl: [SLOW], since: "4.0.0",
        syntax: "MEMORY DOCTOR", summary: "Outputs a memory problems report.";
    "help" => help, arity: 2, flags: [LOADING, STALE], acl: [SLOW], since: "4.0.0",
        syntax: "MEMORY HELP", summary: "Lists MEMORY's subcommands.";
    heavy "malloc-stats" => malloc_stats, arity: 2, flags: [], acl: [SLOW], since: "4.0.0",
        syntax: "MEMORY MALLOC-STATS", summary: "Replies with the allocator's internal statistics (none here).";
    "purge" => purge, arity: 2, flags: [], acl: [SLOW], since: "4.0.0",
        syntax: "MEMORY PURGE", summary: "Asks the allocator to release dirty pages (nothing to do here).";
    heavy "stats" => stats, arity: 2, flags: [], acl: [SLOW], since: "4.0.0",
        syntax: "MEMORY STATS", summary: "Replies with the server's memory usage breakdown.";
    "usage" => usage, arity: -3, flags: [READONLY], keys: (2, 2, 1), acl: [READ, SLOW], since: "4.0.0",
        syntax: "MEMORY USAGE key [SAMPLES count]", summary: "Estimates the bytes a key and its value take.";
};

fn help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(args, &crate::cmd::doctext::help("memory"))
}

/// MEMORY USAGE: no expiry check, no touch, no stats (Redis looks the key
/// up with `dictFind`), so a logically expired key still answers.
fn usage(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let mut j = 3;
    while j < args.len() {
        if is(&args[j], "samples") && j + 1 < args.len() {
            match parse_i64(&args[j + 1]) {
                None => return Frame::err(NOT_INTEGER),
                Some(n) if n < 0 => return Frame::err(SYNTAX),
                // Any count gives the exact figure: see the module doc.
                Some(_) => {}
            }
            j += 2;
        } else {
            return Frame::err(SYNTAX);
        }
    }
    let db = ctx.db();
    match ctx.srv.dbs[db].get(&args[2]) {
        None => Frame::Null,
        Some(obj) => Frame::Integer(obj.memory_usage(&args[2]) as i64),
    }
}

/// `getMemoryOverheadData`'s figures for the engine's model. There is no
/// replication, AOF or cluster, and client buffers are not modelled, so
/// those report 0; the allocator figures equal the allocated bytes (no
/// fragmentation is modelled).
fn stats(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let srv = &mut *ctx.srv;
    super::server::cron_update_memory_stats(srv);
    let used = srv.used_memory();
    let peak = srv.stats.peak_memory.max(used);
    let startup = crate::keyspace::memory::BASELINE_USED_MEMORY;
    let int = |n: u64| Frame::Integer(n as i64);
    let mut m: Vec<(Frame, Frame)> = vec![
        (Frame::bulk("peak.allocated"), int(peak)),
        (Frame::bulk("total.allocated"), int(used)),
        (Frame::bulk("startup.allocated"), int(startup)),
    ];
    for name in [
        "replication.backlog",
        "clients.slaves",
        "clients.normal",
        "cluster.links",
        "aof.buffer",
        "lua.caches",
        "functions.caches",
    ] {
        m.push((Frame::bulk(name), int(0)));
    }
    let mut overhead = startup;
    let mut keys = 0u64;
    for (i, d) in srv.dbs.iter().enumerate() {
        if d.is_empty() {
            continue;
        }
        let (main, expires) = d.overhead();
        overhead += main + expires;
        keys += d.len() as u64;
        m.push((
            Frame::bulk(format!("db.{i}")),
            Frame::Map(vec![
                (Frame::bulk("overhead.hashtable.main"), int(main)),
                (Frame::bulk("overhead.hashtable.expires"), int(expires)),
                (Frame::bulk("overhead.hashtable.slot-to-keys"), int(0)),
            ]),
        ));
    }
    let overhead = overhead.min(used);
    let dataset = used - overhead;
    let net = used.saturating_sub(startup);
    let bytes_per_key = net.checked_div(keys).unwrap_or(0);
    // Redis divides in single precision, as INFO does.
    let dataset_perc = dataset as f32 * 100.0 / net.max(1) as f32;
    let peak_perc = used as f32 * 100.0 / peak.max(1) as f32;
    m.extend([
        (Frame::bulk("overhead.total"), int(overhead)),
        (Frame::bulk("keys.count"), int(keys)),
        (Frame::bulk("keys.bytes-per-key"), int(bytes_per_key)),
        (Frame::bulk("dataset.bytes"), int(dataset)),
        (
            Frame::bulk("dataset.percentage"),
            Frame::Double(dataset_perc as f64),
        ),
        (
            Frame::bulk("peak.percentage"),
            Frame::Double(peak_perc as f64),
        ),
        (Frame::bulk("allocator.allocated"), int(used)),
        (Frame::bulk("allocator.active"), int(used)),
        (Frame::bulk("allocator.resident"), int(used)),
        (
            Frame::bulk("allocator-fragmentation.ratio"),
            Frame::Double(1.0),
        ),
        (Frame::bulk("allocator-fragmentation.bytes"), int(0)),
        (Frame::bulk("allocator-rss.ratio"), Frame::Double(1.0)),
        (Frame::bulk("allocator-rss.bytes"), int(0)),
        (Frame::bulk("rss-overhead.ratio"), Frame::Double(1.0)),
        (Frame::bulk("rss-overhead.bytes"), int(0)),
        (Frame::bulk("fragmentation"), Frame::Double(1.0)),
        (Frame::bulk("fragmentation.bytes"), int(0)),
    ]);
    Frame::Map(m)
}

/// `getMemoryDoctorReport`, for the conditions the model can have: an
/// almost empty instance, a past peak above 150% of current use, or none.
/// (Fragmentation, RSS and buffers are not modelled.)
fn doctor(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let srv = &mut *ctx.srv;
    super::server::cron_update_memory_stats(srv);
    let used = srv.used_memory();
    let peak = srv.stats.peak_memory.max(used);
    let many_scripts = false;
    let text = if used < 5 * 1024 * 1024 {
        "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n".to_string()
    } else if peak as f32 / used as f32 > 1.5 && !many_scripts {
        "Sam, I detected a few issues in this Redis instance memory implants:\n\n * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\nI'm here to keep you safe, Sam. I want to help you.\n".to_string()
    } else {
        "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n".to_string()
    };
    Frame::Verbatim(*b"txt", text.into_bytes())
}

/// Redis built without jemalloc answers with this line; the model has no
/// allocator arenas to report.
fn malloc_stats(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::bulk("Stats not supported for the current allocator")
}

/// `jemalloc_purge` is a no-op returning success without jemalloc.
fn purge(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::ok()
}

#[cfg(test)]
mod tests {
    use crate::cmd::testing::{engine, replies, run};
    use crate::Frame;

    #[test]
    fn usage_formula_and_errors() {
        let (mut e, c) = engine(1);
        let syntax = Frame::err("ERR syntax error");
        let script: &[(&[&str], Frame)] = &[
            (&["SET", "k", "hello"], Frame::ok()),
            // embstr: robj + sdshdr8 + 5 + NUL = 25 -> 32; key sds 3+1+1 -> 8; dictEntry 24.
            (&["MEMORY", "USAGE", "k"], Frame::Integer(64)),
            (
                &["MEMORY", "USAGE", "k", "SAMPLES", "0"],
                Frame::Integer(64),
            ),
            (&["MEMORY", "USAGE", "nokey"], Frame::Null),
            (&["MEMORY", "USAGE", "k", "SAMPLES", "-1"], syntax.clone()),
            (
                &["MEMORY", "USAGE", "k", "SAMPLES", "x"],
                Frame::err("ERR value is not an integer or out of range"),
            ),
            (&["MEMORY", "USAGE", "k", "SAMPLES"], syntax),
            (&["MEMORY", "PURGE"], Frame::ok()),
        ];
        replies(&mut e, c, script);
    }

    /// DOCTOR and STATS run in the full engine only (a light build sends
    /// them there).
    #[test]
    fn doctor_and_stats() {
        let (mut e, c) = engine(1);
        run(&mut e, c, &["SET", "k", "hello"]);
        let Frame::Verbatim(_, doc) = run(&mut e, c, &["MEMORY", "DOCTOR"]) else {
            panic!("DOCTOR answers verbatim text");
        };
        assert!(doc.starts_with(b"Hi Sam, this instance is empty"));
        let Frame::Map(stats) = run(&mut e, c, &["MEMORY", "STATS"]) else {
            panic!("STATS answers a map");
        };
        let keys = stats
            .iter()
            .find(|(k, _)| *k == Frame::bulk("keys.count"))
            .map(|(_, v)| v.clone());
        assert_eq!(keys, Some(Frame::Integer(1)));
        assert!(stats.iter().any(|(k, _)| *k == Frame::bulk("db.0")));
    }
}
