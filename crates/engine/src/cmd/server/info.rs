//! INFO: the sections Redsim can fill honestly, in Redis' order and format, and the cron's memory bookkeeping they read (peak, samples for views).

use std::fmt::Write as _;

use crate::cmd::table::Ctx;
use crate::num::print::fixed;
use crate::proto::resp::Frame;
use crate::server::trace::Event;
use crate::server::Server;

/// The sections INFO without arguments (or `default`) shows, in Redis'
/// list; those we do not produce are simply absent from the output.
const DEFAULT_SECTIONS: &[&str] = &[
    "server",
    "clients",
    "memory",
    "persistence",
    "stats",
    "replication",
    "cpu",
    "module_list",
    "errorstats",
    "cluster",
    "keyspace",
];

pub(super) fn info(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let text = info_string(ctx.srv, &args[1..]);
    Frame::Verbatim(*b"txt", text.into_bytes())
}

/// `genInfoSectionDict` + `genRedisInfoString`: the INFO text for the
/// requested section names (any case; `default`, `all`, `everything`).
pub fn info_string(srv: &mut Server, requested: &[Vec<u8>]) -> String {
    srv.lazyfree_drain();
    let mut all = false;
    let mut wanted: Vec<String> = Vec::new();
    if requested.is_empty() {
        wanted.extend(DEFAULT_SECTIONS.iter().map(|s| s.to_string()));
    }
    for r in requested {
        let name = String::from_utf8_lossy(r).to_ascii_lowercase();
        match name.as_str() {
            "default" => wanted.extend(DEFAULT_SECTIONS.iter().map(|s| s.to_string())),
            "all" | "everything" => all = true,
            _ => wanted.push(name),
        }
    }
    let want = |s: &str| all || wanted.iter().any(|w| w == s);
    let mut out = String::new();
    let section = |out: &mut String, title: &str, body: String| {
        if !out.is_empty() {
            out.push_str("\r\n");
        }
        let _ = write!(out, "# {title}\r\n{body}");
    };
    if want("server") {
        section(&mut out, "Server", info_server(srv));
    }
    if want("clients") {
        section(&mut out, "Clients", info_clients(srv));
    }
    if want("memory") {
        section(&mut out, "Memory", info_memory(srv));
    }
    if want("persistence") {
        section(&mut out, "Persistence", crate::persist::info(srv));
    }
    if want("stats") {
        section(&mut out, "Stats", info_stats(srv));
    }
    if want("replication") {
        section(&mut out, "Replication", crate::repl::info(srv));
    }
    if want("cpu") {
        section(&mut out, "CPU", info_cpu(srv));
    }
    if want("commandstats") {
        section(&mut out, "Commandstats", info_commandstats(srv));
    }
    if want("errorstats") {
        section(&mut out, "Errorstats", info_errorstats(srv));
    }
    if want("latencystats") {
        section(&mut out, "Latencystats", info_latencystats(srv));
    }
    if want("cluster") {
        let enabled = u8::from(srv.config.cluster_enabled);
        section(
            &mut out,
            "Cluster",
            format!("cluster_enabled:{enabled}\r\n"),
        );
    }
    if want("keyspace") {
        section(&mut out, "Keyspace", info_keyspace(srv));
    }
    out
}

/// Appends `name:value\r\n`.
fn field(out: &mut String, name: &str, value: impl std::fmt::Display) {
    let _ = write!(out, "{name}:{value}\r\n");
}

/// A 40-hex-digit run id derived from the seed, so runs replay identically.
fn run_id(seed: u64) -> String {
    (0u8..3)
        .map(|i| format!("{:016x}", crate::keyspace::dict::hash_bytes(seed, &[i])))
        .collect::<String>()[..40]
        .to_string()
}

fn info_server(srv: &Server) -> String {
    let mut o = String::new();
    let uptime = srv.clock.now_us() / 1_000_000;
    let hz = srv.config.hz.clamp(1, 500);
    field(&mut o, "redis_version", crate::REDIS_VERSION);
    field(&mut o, "redsim_version", env!("CARGO_PKG_VERSION"));
    field(&mut o, "redis_git_sha1", "00000000");
    field(&mut o, "redis_git_dirty", 0);
    let mode = if srv.config.cluster_enabled {
        "cluster"
    } else {
        "standalone"
    };
    field(&mut o, "redis_mode", mode);
    field(&mut o, "arch_bits", usize::BITS);
    field(&mut o, "process_supervised", "no");
    field(&mut o, "run_id", run_id(srv.seed));
    field(&mut o, "tcp_port", srv.config.port);
    field(&mut o, "server_time_usec", srv.clock.unix_us());
    field(&mut o, "uptime_in_seconds", uptime);
    field(&mut o, "uptime_in_days", uptime / (3600 * 24));
    // No dynamic-hz: the running frequency is the configured one.
    field(&mut o, "hz", hz);
    field(&mut o, "configured_hz", hz);
    field(&mut o, "lru_clock", srv.lruclock);
    field(&mut o, "config_file", &srv.config_file);
    field(&mut o, "io_threads_active", 0);
    let _ = write!(
        o,
        "listener0:name=tcp,bind={},port={}\r\n",
        srv.config.bind, srv.config.port
    );
    o
}

fn info_clients(srv: &Server) -> String {
    let mut o = String::new();
    field(&mut o, "connected_clients", srv.connected_clients);
    field(&mut o, "cluster_connections", 0);
    let b = &srv.blocking;
    field(&mut o, "blocked_clients", b.blocked_clients());
    field(&mut o, "tracking_clients", srv.tracking.tracking_clients());
    field(
        &mut o,
        "clients_in_timeout_table",
        b.clients_in_timeout_table(),
    );
    field(&mut o, "total_blocking_keys", b.blocking_keys());
    field(
        &mut o,
        "total_blocking_keys_on_nokey",
        b.blocking_keys_on_nokey(),
    );
    o
}

/// `bytesToHuman`: B under 1K, then two decimals with K, M, G, T, P.
pub fn bytes_to_human(n: u64) -> String {
    const UNITS: &[&str] = &["K", "M", "G", "T", "P"];
    if n < 1024 {
        return format!("{n}B");
    }
    let mut scale = 1024f64;
    for unit in UNITS {
        if (n as f64) < scale * 1024.0 {
            return format!("{}{unit}", fixed(n as f64 / scale, 2));
        }
        scale *= 1024.0;
    }
    format!("{n}B")
}

/// The parts of `used_memory` that are not data: the start-up baseline and
/// the hash tables' entries and buckets (`getMemoryOverheadData`).
/// The scripting fields of INFO memory, in Redis 7.2's order. The counts
/// are real. The sizes are 0: no Lua VM lives between runs here (each run
/// builds its own), and the script cache and libraries are outside the
/// memory model, as MEMORY STATS' `lua.caches` and `functions.caches` say.
fn script_memory(o: &mut String, srv: &Server) {
    let functions = &srv.scripts.functions;
    field(o, "used_memory_lua", 0);
    field(o, "used_memory_vm_eval", 0);
    field(o, "used_memory_lua_human", bytes_to_human(0));
    field(o, "used_memory_scripts_eval", 0);
    field(o, "number_of_cached_scripts", srv.scripts.cached());
    field(o, "number_of_functions", functions.function_count());
    field(o, "number_of_libraries", functions.library_count());
    field(o, "used_memory_vm_functions", 0);
    field(o, "used_memory_vm_total", 0);
    field(o, "used_memory_vm_total_human", bytes_to_human(0));
    field(o, "used_memory_functions", 0);
    field(o, "used_memory_scripts", 0);
    field(o, "used_memory_scripts_human", bytes_to_human(0));
}

fn memory_overhead(srv: &Server) -> u64 {
    const PTR: u64 = 8;
    let tables: u64 = srv
        .dbs
        .iter()
        .filter(|d| !d.is_empty())
        .map(|d| {
            let keys = d.dict.len() as u64;
            let main = keys * crate::keyspace::memory::DICT_ENTRY as u64
                + d.dict.buckets() as u64 * PTR
                + keys * crate::keyspace::memory::ROBJ as u64;
            let expires = d.expires.len() as u64 * crate::keyspace::memory::DICT_ENTRY as u64
                + d.expires.buckets() as u64 * PTR;
            main + expires
        })
        .sum();
    crate::keyspace::memory::BASELINE_USED_MEMORY + tables
}

/// `cronUpdateMemoryStats`' peak tracking, run by every cron tick.
pub fn cron_update_memory_stats(srv: &mut Server) {
    let used = srv.used_memory();
    if used > srv.stats.peak_memory {
        srv.stats.peak_memory = used;
    }
}

/// The cron's bookkeeping for views: retires finished lazy-free jobs and,
/// with the trace on, records a memory sample when anything in it changed
/// since the last one (a timeline draws memory from these).
pub fn cron_memory_sample(srv: &mut Server) {
    srv.lazyfree_drain();
    if srv.trace.enabled() {
        let used = srv.used_memory();
        let keys = srv.dbs.iter().map(|d| d.dict.len() as u64).sum();
        let expires = srv.dbs.iter().map(|d| d.expires.len() as u64).sum();
        let sample = [used, srv.config.maxmemory, keys, expires];
        if srv.memory_sample != Some(sample) {
            srv.memory_sample = Some(sample);
            srv.emit(Event::Memory {
                used,
                maxmemory: sample[1],
                keys,
                expires,
            });
        }
    }
}

fn info_memory(srv: &mut Server) -> String {
    // INFO refreshes the peak too, so it never shows below the current use.
    cron_update_memory_stats(srv);
    let used = srv.used_memory();
    let peak = srv.stats.peak_memory;
    let startup = crate::keyspace::memory::BASELINE_USED_MEMORY;
    let overhead = memory_overhead(srv).min(used);
    let dataset = used - overhead;
    let net = if used > startup { used - startup } else { 1 };
    let mut o = String::new();
    field(&mut o, "used_memory", used);
    field(&mut o, "used_memory_human", bytes_to_human(used));
    field(&mut o, "used_memory_peak", peak);
    field(&mut o, "used_memory_peak_human", bytes_to_human(peak));
    // Redis computes both percentages in single precision.
    let peak_perc = used as f32 * 100.0 / peak as f32;
    field(
        &mut o,
        "used_memory_peak_perc",
        format!("{}%", fixed(peak_perc as f64, 2)),
    );
    field(&mut o, "used_memory_overhead", overhead);
    field(&mut o, "used_memory_startup", startup);
    field(&mut o, "used_memory_dataset", dataset);
    let dataset_perc = dataset as f32 * 100.0 / net as f32;
    field(
        &mut o,
        "used_memory_dataset_perc",
        format!("{}%", fixed(dataset_perc as f64, 2)),
    );
    script_memory(&mut o, srv);
    field(&mut o, "maxmemory", srv.config.maxmemory);
    field(
        &mut o,
        "maxmemory_human",
        bytes_to_human(srv.config.maxmemory),
    );
    field(
        &mut o,
        "maxmemory_policy",
        srv.config.maxmemory_policy.name(),
    );
    // Redsim's own: the page's cap (0: none).
    field(&mut o, "redsim_memory_budget", srv.config.memory_budget);
    field(
        &mut o,
        "redsim_memory_budget_human",
        bytes_to_human(srv.config.memory_budget),
    );
    // `freeMemoryGetNotCountedMemory`: replica output and AOF buffers,
    // which `used_memory` here never includes, so eviction sees it all.
    field(&mut o, "mem_not_counted_for_evict", 0);
    field(
        &mut o,
        "lazyfree_pending_objects",
        srv.lazyfree_pending_objects(),
    );
    field(&mut o, "lazyfreed_objects", srv.lazyfreed_objects());
    o
}

fn info_stats(srv: &Server) -> String {
    let s = &srv.stats;
    let mut o = String::new();
    field(
        &mut o,
        "total_connections_received",
        s.total_connections_received,
    );
    field(
        &mut o,
        "total_commands_processed",
        s.total_commands_processed,
    );
    // Resyncs served: full, and partial ones accepted or refused.
    field(&mut o, "sync_full", srv.repl.sync_full);
    field(&mut o, "sync_partial_ok", srv.repl.sync_partial_ok);
    field(&mut o, "sync_partial_err", srv.repl.sync_partial_err);
    field(&mut o, "expired_keys", s.expired_keys);
    field(
        &mut o,
        "expired_stale_perc",
        fixed(s.expired_stale_perc * 100.0, 2),
    );
    field(
        &mut o,
        "expired_time_cap_reached_count",
        s.expired_time_cap_reached_count,
    );
    field(
        &mut o,
        "expire_cycle_cpu_milliseconds",
        s.expire_cycle_time_used_ns / 1_000_000,
    );
    field(&mut o, "evicted_keys", s.evicted_keys);
    field(&mut o, "keyspace_hits", s.keyspace_hits);
    field(&mut o, "keyspace_misses", s.keyspace_misses);
    // No MIGRATE connections are ever cached: the engine opens no sockets.
    field(&mut o, "migrate_cached_sockets", 0);
    let t = &srv.tracking;
    field(&mut o, "tracking_total_keys", t.total_keys());
    field(&mut o, "tracking_total_items", t.total_items());
    field(&mut o, "tracking_total_prefixes", t.total_prefixes());
    field(&mut o, "total_error_replies", s.total_error_replies);
    let acl = &srv.acl;
    field(&mut o, "acl_access_denied_auth", acl.auth_failures);
    field(&mut o, "acl_access_denied_cmd", acl.denied_cmd);
    field(&mut o, "acl_access_denied_key", acl.denied_key);
    field(&mut o, "acl_access_denied_channel", acl.denied_channel);
    // Redsim's own: commands refused before running (unknown, arity, OOM).
    // Redis reports these per command, in INFO commandstats.
    field(&mut o, "redsim_refused_commands", s.rejected_calls);
    o
}

/// `cmdstat_<name>` lines for every command called, rejected or failed,
/// in table order (Redis walks its command dict, in no set order).
fn info_commandstats(srv: &Server) -> String {
    let mut o = String::new();
    for (parent, cmd) in crate::cmd::every_command() {
        let Some(st) = srv.stats.commands.get(&(cmd as *const _ as usize)) else {
            continue;
        };
        let name = crate::cmd::table::full_name(parent, cmd);
        let per_call = if st.calls == 0 {
            0.0
        } else {
            st.usec as f64 / st.calls as f64
        };
        let _ = write!(
            o,
            "cmdstat_{name}:calls={},usec={},usec_per_call={},rejected_calls={},failed_calls={}\r\n",
            st.calls,
            st.usec,
            fixed(per_call, 2),
            st.rejected_calls,
            st.failed_calls
        );
    }
    o
}

/// The main thread's CPU time: the virtual time it was kept busy (there is
/// no kernel here, so no system time, and no forked children).
fn info_cpu(srv: &Server) -> String {
    let busy = srv.observe.busy_us;
    let secs = format!("{}.{:06}", busy / 1_000_000, busy % 1_000_000);
    let mut o = String::new();
    field(&mut o, "used_cpu_sys", "0.000000");
    field(&mut o, "used_cpu_user", &secs);
    field(&mut o, "used_cpu_sys_children", "0.000000");
    field(&mut o, "used_cpu_user_children", "0.000000");
    field(&mut o, "used_cpu_sys_main_thread", "0.000000");
    field(&mut o, "used_cpu_user_main_thread", &secs);
    o
}

/// `latency_percentiles_usec_<cmd>:p50=...,p99=...` for every command with
/// a histogram, at `latency-tracking-info-percentiles`.
fn info_latencystats(srv: &Server) -> String {
    let mut o = String::new();
    let pcts = &srv.config.latency_tracking_info_percentiles;
    for (parent, cmd) in crate::cmd::every_command() {
        let Some(st) = srv.stats.commands.get(&(cmd as *const _ as usize)) else {
            continue;
        };
        if st.latency.count == 0 {
            continue;
        }
        let name = crate::cmd::table::full_name(parent, cmd);
        let parts: Vec<String> = pcts
            .iter()
            .map(|p| {
                let label = crate::num::trim_fixed(fixed(*p, 6));
                format!("p{label}={}", fixed(st.latency.percentile_us(*p), 3))
            })
            .collect();
        let _ = write!(o, "latency_percentiles_usec_{name}:{}\r\n", parts.join(","));
    }
    o
}

/// `errorstat_<CODE>:count=N` per error code replied.
fn info_errorstats(srv: &Server) -> String {
    let mut o = String::new();
    for (code, n) in &srv.stats.errors {
        let _ = write!(o, "errorstat_{code}:count={n}\r\n");
    }
    o
}

fn info_keyspace(srv: &Server) -> String {
    let mut o = String::new();
    for (i, d) in srv.dbs.iter().enumerate() {
        let (keys, expires) = (d.dict.len(), d.expires.len());
        if keys > 0 || expires > 0 {
            let _ = write!(
                o,
                "db{i}:keys={keys},expires={expires},avg_ttl={}\r\n",
                d.avg_ttl
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_as_redis() {
        let sizes = [1023, 1024, 865_000, 3 << 20, 5 << 30];
        assert_eq!(
            sizes.map(bytes_to_human),
            ["1023B", "1.00K", "844.73K", "3.00M", "5.00G"]
        );
    }
}
