//! CONFIG parameters: each declared once (field, default, Redis names, mutability, how its text is read and shown), with Redis 7.2's bounds and error messages.
//!
//! The [`config!`] declaration below generates the [`Config`] struct, its
//! defaults and [`PARAMS`], the table CONFIG GET/SET and the command line
//! read, so a parameter cannot be added to one and forgotten in another.
//! Redis registers an alias (`hash-max-ziplist-entries`) as a parameter of
//! its own; here it is one more name on the same declaration.

pub use super::memunits::parse_memory;

/// `maxmemory-policy`. The `*-lrm` policies are Redis 8.6's (evict by last write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    NoEviction,
    AllKeysLru,
    AllKeysLfu,
    AllKeysRandom,
    VolatileLru,
    VolatileLfu,
    VolatileRandom,
    VolatileTtl,
    /// Redis 8.6: approximated LRM (least recently *modified*) over all keys.
    AllKeysLrm,
    /// Redis 8.6: approximated LRM over keys with a TTL.
    VolatileLrm,
    /// Redsim only, not a Redis policy: evicts the true least recently used
    /// key (exact access order), the baseline the approximation is measured against.
    ExactLru,
    /// Redsim only, not a Redis policy: evicts the key with the fewest
    /// accesses (exact counts, no decay; ties to the least recent).
    ExactLfu,
}

/// How many of `POLICIES` Redis 7.2 knows (and its error message lists).
const REDIS_72_POLICIES: usize = 8;

/// Policy names in the order Redis' error message lists them.
const POLICIES: &[(&str, Policy)] = &[
    ("volatile-lru", Policy::VolatileLru),
    ("volatile-lfu", Policy::VolatileLfu),
    ("volatile-random", Policy::VolatileRandom),
    ("volatile-ttl", Policy::VolatileTtl),
    ("allkeys-lru", Policy::AllKeysLru),
    ("allkeys-lfu", Policy::AllKeysLfu),
    ("allkeys-random", Policy::AllKeysRandom),
    ("noeviction", Policy::NoEviction),
    // Redis 8.6 adds these two (7.2 refuses them). The CONFIG SET error
    // lists only the first `REDIS_72_POLICIES` names, byte for byte 7.2's
    // message; 8.6's message would name these too (its order is not
    // verified: no 8.6 source is at hand).
    ("volatile-lrm", Policy::VolatileLrm),
    ("allkeys-lrm", Policy::AllKeysLrm),
    // Redsim-only reference policies (see `Policy::ExactLru`).
    ("exact-lru", Policy::ExactLru),
    ("exact-lfu", Policy::ExactLfu),
];

impl Policy {
    /// True for the LFU policies, which turn the `lru` field into a frequency counter.
    pub fn is_lfu(self) -> bool {
        matches!(self, Policy::AllKeysLfu | Policy::VolatileLfu)
    }

    /// True for the 8.6 LRM policies: the `lru` field holds the LRU clock
    /// of the last write, and reads leave it alone.
    pub fn is_lrm(self) -> bool {
        matches!(self, Policy::AllKeysLrm | Policy::VolatileLrm)
    }

    /// True for the redsim-only exact reference policies.
    pub fn is_exact(self) -> bool {
        matches!(self, Policy::ExactLru | Policy::ExactLfu)
    }

    /// The policy's config name.
    pub fn name(self) -> &'static str {
        POLICIES
            .iter()
            .find(|(_, p)| *p == self)
            .map(|(n, _)| *n)
            .expect("every policy is listed")
    }
}

/// A parameter's name, whether CONFIG SET may change it, and its accessors.
pub struct Param {
    pub name: &'static str,
    pub mutable: bool,
    pub get: fn(&Config) -> String,
    pub set: fn(&mut Config, &str) -> Result<(), String>,
}

/// Declares every parameter once: `field: type = default => [names] mutable|immutable kind(args);`.
/// The kinds: `int(min, max)` (`string2ll` within bounds, cast to the field's
/// type), `size_t()` (an integer in 0..=LONG_MAX), `memory()` (`memtoull`),
/// `memory_in(min, max)`, `bool()` (yes/no), `text()`, `with(parse, show)`, and
/// `update(update, show)` for a value CONFIG SET changes in part.
macro_rules! config {
    ($(
        $(#[doc = $doc:literal])*
        $field:ident: $ty:ty = $default:expr => [$($name:literal),+] $mutable:ident $kind:ident $args:tt;
    )*) => {
        /// Every tunable the engine reads. Field docs give the Redis parameter.
        #[derive(Clone, Debug)]
        pub struct Config {
            $($(#[doc = $doc])* pub $field: $ty,)*
        }

        impl Default for Config {
            fn default() -> Self {
                Config { $($field: $default,)* }
            }
        }

        /// Every parameter by every name Redis knows it by, in CONFIG GET's order.
        pub static PARAMS: &[Param] = &[$($(
            Param {
                name: $name,
                mutable: config!(@mutable $mutable),
                get: |c| config!(@show $kind, &c.$field, $args),
                set: |c, v| config!(@set $kind, c.$field, $ty, v, $args),
            },
        )+)*];
    };
    (@set update, $f:expr, $ty:ty, $v:ident, ($update:expr, $show:expr)) => { ($update)(&mut $f, $v) };
    (@set $kind:ident, $f:expr, $ty:ty, $v:ident, $args:tt) => {{
        $f = config!(@parse $kind, $ty, $v, $args)?;
        Ok(())
    }};
    (@mutable mutable) => { true };
    (@mutable immutable) => { false };
    (@parse int, $ty:ty, $v:ident, ($min:expr, $max:expr)) => { int_in($v, $min, $max).map(|n| n as $ty) };
    (@parse size_t, $ty:ty, $v:ident, ()) => { int_in($v, 0, i64::MAX).map(|n| n as u64) };
    (@parse memory, $ty:ty, $v:ident, ()) => { parse_memory($v).ok_or_else(not_memory) };
    (@parse memory_in, $ty:ty, $v:ident, ($min:expr, $max:expr)) => { memory_in($v, $min, $max).map(|n| n as $ty) };
    (@parse bool, $ty:ty, $v:ident, ()) => { parse_bool($v) };
    (@parse text, $ty:ty, $v:ident, ()) => { Ok::<String, String>($v.to_string()) };
    (@parse with, $ty:ty, $v:ident, ($parse:expr, $show:expr)) => { ($parse)($v) };
    (@show bool, $x:expr, ()) => { if *$x { "yes" } else { "no" }.to_string() };
    (@show text, $x:expr, ()) => { $x.clone() };
    (@show with, $x:expr, ($parse:expr, $show:expr)) => { ($show)($x) };
    (@show update, $x:expr, ($update:expr, $show:expr)) => { ($show)($x) };
    (@show $kind:ident, $x:expr, $args:tt) => { $x.to_string() };
}

/// `INT_MAX`, the upper bound of signed `int` parameters.
const INT_MAX: i64 = i32::MAX as i64;
/// `INT_MIN`, the lower bound of signed `int` parameters.
const INT_MIN: i64 = i32::MIN as i64;
/// `LONG_MAX`, the upper bound of `size_t` and `long long` parameters.
const LONG_MAX: i64 = i64::MAX;
/// `UINT_MAX`, the upper bound of `unsigned int` parameters.
const UINT_MAX: i64 = u32::MAX as i64;

config! {
    /// `hz`: server cron frequency as set; the cron clamps it to 1..=500.
    /// `updateHZ`: any value in range is accepted, then capped, and CONFIG
    /// GET shows the capped value.
    hz: u32 = 10 => ["hz"] mutable with(
        |v| Ok::<u32, String>(int_in(v, 0, INT_MAX)?.clamp(1, 500) as u32),
        |x: &u32| x.to_string()
    );
    /// `maxmemory` in bytes; 0 means no limit.
    maxmemory: u64 = 0 => ["maxmemory"] mutable memory();
    /// Redsim's own hard cap on used memory (0: none, as natively). A browser
    /// tab has a few GB at most and a wasm allocation failure kills the page,
    /// so the page sets one: a write that would pass it is refused with OOM
    /// instead of evicting, whatever the policy.
    memory_budget: u64 = 0 => ["redsim-memory-budget"] mutable memory();
    /// Redsim's own switch for the CPU cost model (`crate::cost`): on, a
    /// command keeps the main thread busy for its modelled running time
    /// (HGETALL of a million fields for 0.65 s) and other clients wait.
    cpu_model: bool = true => ["redsim-cpu-model"] mutable bool();
    /// `maxmemory-policy`.
    maxmemory_policy: Policy = Policy::NoEviction => ["maxmemory-policy"] mutable with(
        parse_policy,
        |p: &Policy| p.name().to_string()
    );
    /// `maxmemory-samples`. Redis 7.2 accepts up to INT_MAX (and then puts
    /// that many pointers on its stack): eviction must not preallocate by it.
    maxmemory_samples: u32 = 5 => ["maxmemory-samples"] mutable int(1, INT_MAX);
    /// `maxmemory-eviction-tenacity`, 0..=100: how long one command may spend evicting.
    maxmemory_eviction_tenacity: u32 = 10 => ["maxmemory-eviction-tenacity"] mutable int(0, 100);
    /// `lfu-log-factor`.
    lfu_log_factor: u32 = 10 => ["lfu-log-factor"] mutable int(0, INT_MAX);
    /// `lfu-decay-time`, in minutes.
    lfu_decay_time: u32 = 1 => ["lfu-decay-time"] mutable int(0, INT_MAX);
    /// `active-expire-effort`, 1..=10.
    active_expire_effort: u32 = 1 => ["active-expire-effort"] mutable int(1, 10);
    /// `list-max-listpack-size` (alias `list-max-ziplist-size`): a list
    /// node's limit, in entries if positive, else -1..-5 for 4..64 KB.
    list_max_listpack_size: i32 = -2 => ["list-max-listpack-size", "list-max-ziplist-size"] mutable int(INT_MIN, INT_MAX);
    /// `list-compress-depth`: quicklist nodes kept uncompressed at each end
    /// (0: none compressed). Accepted and reported; compression itself
    /// changes no reply, so it is not modelled.
    list_compress_depth: i32 = 0 => ["list-compress-depth"] mutable int(0, INT_MAX);
    /// `tracking-table-max-keys`: keys the client-side caching table may
    /// hold before random ones are invalidated (0: no limit).
    tracking_table_max_keys: u64 = 1_000_000 => ["tracking-table-max-keys"] mutable size_t();
    /// `databases` (immutable).
    databases: u32 = 16 => ["databases"] immutable int(1, INT_MAX);
    /// `client-query-buffer-limit`: the request parser's per-client buffer
    /// limit in Redis; here requests are parsed whole, under
    /// `proto-max-bulk-len`, so the value is kept for CONFIG only.
    client_query_buffer_limit: u64 = 1 << 30 => ["client-query-buffer-limit"] mutable memory_in(1024 * 1024, LONG_MAX);
    /// `repl-ping-replica-period` (alias `repl-ping-slave-period`), seconds
    /// between a master's PINGs to its replicas; the simulated links carry
    /// offsets without them, so it is kept for CONFIG only.
    repl_ping_replica_period: i64 = 10 => ["repl-ping-replica-period", "repl-ping-slave-period"] mutable int(1, INT_MAX);
    /// `aof-use-rdb-preamble`: rewrites here always start with an RDB
    /// preamble (Redis' default); `no` is kept for CONFIG only.
    aof_use_rdb_preamble: bool = true => ["aof-use-rdb-preamble"] mutable bool();
    /// `rdb-key-save-delay`: a test knob slowing Redis' RDB child per key;
    /// the modelled child's duration ignores it.
    rdb_key_save_delay: i64 = 0 => ["rdb-key-save-delay"] mutable int(INT_MIN, INT_MAX);
    /// `proto-max-bulk-len`.
    proto_max_bulk_len: i64 = crate::proto::resp::PROTO_MAX_BULK_LEN => ["proto-max-bulk-len"] mutable memory_in(1024 * 1024, LONG_MAX);
    /// `hll-sparse-max-bytes`: longest sparse HyperLogLog before it turns dense.
    hll_sparse_max_bytes: u64 = 3000 => ["hll-sparse-max-bytes"] mutable memory_in(0, LONG_MAX);
    /// `zset-max-listpack-entries` (alias `zset-max-ziplist-entries`).
    zset_max_listpack_entries: u64 = 128 => ["zset-max-listpack-entries", "zset-max-ziplist-entries"] mutable size_t();
    /// `zset-max-listpack-value` (alias `zset-max-ziplist-value`), a memory value.
    zset_max_listpack_value: u64 = 64 => ["zset-max-listpack-value", "zset-max-ziplist-value"] mutable memory_in(0, LONG_MAX);
    /// `port`, reported by the native server (immutable here).
    port: u16 = 6379 => ["port"] immutable int(0, 65535);
    /// `enable-debug-command`: DEBUG is refused (`no`, Redis' default),
    /// allowed (`yes`) or allowed from loopback clients only (`local`).
    enable_debug_command: String = "no".into() => ["enable-debug-command"] immutable with(
        parse_protection,
        |s: &String| s.clone()
    );
    /// `enable-module-command`: MODULE LOAD, LOADEX and UNLOAD alike (no
    /// module can load here, whatever it says).
    enable_module_command: String = "no".into() => ["enable-module-command"] immutable with(
        parse_protection,
        |s: &String| s.clone()
    );
    /// `notify-keyspace-events`: the `NOTIFY_*` classes published as
    /// keyspace notifications (none by default), read and shown as notify.c does.
    notify_keyspace_events: u32 = 0 => ["notify-keyspace-events"] mutable with(
        super::keyspace_events::parse,
        super::keyspace_events::show
    );
    /// `requirepass`: the default user's one password (empty: none); each
    /// CONFIG SET replaces the user's passwords (`updateRequirePass`).
    requirepass: String = String::new() => ["requirepass"] mutable text();
    /// `protected-mode`: with the default user passwordless, only loopback
    /// clients are accepted (the native server asks the engine on accept).
    protected_mode: bool = true => ["protected-mode"] mutable bool();
    /// `aclfile`: where ACL LOAD and SAVE read and write users.
    aclfile: String = String::new() => ["aclfile"] immutable text();
    /// `acllog-max-len`: entries ACL LOG keeps.
    acllog_max_len: u64 = 128 => ["acllog-max-len"] mutable size_t();
    /// `acl-pubsub-default`: channels a new user starts with.
    acl_pubsub_default: String = "resetchannels".into() => ["acl-pubsub-default"] mutable with(
        parse_pubsub_default,
        |s: &String| s.clone()
    );
    /// `bind`, reported by the native server (immutable here).
    bind: String = "127.0.0.1".into() => ["bind"] immutable text();
    /// `maxclients`: a connection past this many is told "ERR max number of
    /// clients reached" and closed (by the native server, which owns sockets).
    maxclients: u32 = 10000 => ["maxclients"] mutable int(1, UINT_MAX);
    /// `hash-max-listpack-entries` (alias `hash-max-ziplist-entries`);
    /// Redis' built-in default (redis.conf says the same).
    hash_max_listpack_entries: u64 = 512 => ["hash-max-listpack-entries", "hash-max-ziplist-entries"] mutable size_t();
    /// `hash-max-listpack-value` (alias `hash-max-ziplist-value`), a memory value.
    hash_max_listpack_value: u64 = 64 => ["hash-max-listpack-value", "hash-max-ziplist-value"] mutable memory_in(0, LONG_MAX);
    /// `set-max-intset-entries`.
    set_max_intset_entries: u64 = 512 => ["set-max-intset-entries"] mutable size_t();
    /// `set-max-listpack-entries`.
    set_max_listpack_entries: u64 = 128 => ["set-max-listpack-entries"] mutable size_t();
    /// `set-max-listpack-value`.
    set_max_listpack_value: u64 = 64 => ["set-max-listpack-value"] mutable size_t();
    /// `stream-node-max-bytes`, a memory value: a stream node (listpack)
    /// takes no more entries once this big (0: no limit but 1 GB).
    stream_node_max_bytes: u64 = 4096 => ["stream-node-max-bytes"] mutable memory_in(0, LONG_MAX);
    /// `stream-node-max-entries`: entries (live and deleted) per stream node (0: no limit).
    stream_node_max_entries: u64 = 100 => ["stream-node-max-entries"] mutable int(0, LONG_MAX);
    /// `busy-reply-threshold` (alias `lua-time-limit`), in ms: how long a
    /// script may run before Redis answers BUSY (`script::busy`).
    busy_reply_threshold: i64 = 5000 => ["busy-reply-threshold", "lua-time-limit"] mutable int(0, LONG_MAX);
    /// `slowlog-log-slower-than`, µs of (virtual) busy time; -1 turns the
    /// slow log off, 0 logs every command.
    slowlog_log_slower_than: i64 = 10000 => ["slowlog-log-slower-than"] mutable int(-1, LONG_MAX);
    /// `slowlog-max-len`: entries the slow log keeps.
    slowlog_max_len: u64 = 128 => ["slowlog-max-len"] mutable int(0, LONG_MAX);
    /// `latency-monitor-threshold`, ms: events at least this long are
    /// recorded by the latency monitor (0: off).
    latency_monitor_threshold: i64 = 0 => ["latency-monitor-threshold"] mutable int(0, LONG_MAX);
    /// `latency-tracking`: per-command latency histograms.
    latency_tracking: bool = true => ["latency-tracking"] mutable bool();
    /// `latency-tracking-info-percentiles`: what INFO latencystats reports.
    latency_tracking_info_percentiles: Vec<f64> = vec![50.0, 99.0, 99.9] => ["latency-tracking-info-percentiles"] mutable with(
        parse_percentiles,
        |p: &Vec<f64>| p.iter().map(|v| crate::num::trim_fixed(crate::num::print::fixed(*v, 6))).collect::<Vec<_>>().join(" ")
    );
    /// `cluster-enabled` (immutable): the server is a cluster node.
    cluster_enabled: bool = false => ["cluster-enabled"] immutable bool();
    /// `cluster-require-full-coverage`: an unowned slot takes the whole cluster down.
    cluster_require_full_coverage: bool = true => ["cluster-require-full-coverage"] mutable bool();
    /// `cluster-allow-reads-when-down`: serve reads while the cluster is down.
    cluster_allow_reads_when_down: bool = false => ["cluster-allow-reads-when-down"] mutable bool();
    /// `cluster-node-timeout`, in ms (also bounds the rejoin delay).
    cluster_node_timeout: i64 = 15000 => ["cluster-node-timeout"] mutable int(0, LONG_MAX);
    /// `cluster-config-file` (immutable): accepted and reported; Redsim writes no nodes.conf.
    cluster_config_file: String = "nodes.conf".into() => ["cluster-config-file"] immutable text();
    /// `lazyfree-lazy-eviction`: evicted values go to the lazy-free thread.
    /// Redis 7.2's defaults: every lazy path off.
    lazyfree_lazy_eviction: bool = false => ["lazyfree-lazy-eviction"] mutable bool();
    /// `lazyfree-lazy-expire`: expired values go to the lazy-free thread.
    lazyfree_lazy_expire: bool = false => ["lazyfree-lazy-expire"] mutable bool();
    /// `lazyfree-lazy-server-del`: values the server deletes or overwrites
    /// as a side effect (RENAME, SET over a key, emptied collections) too.
    lazyfree_lazy_server_del: bool = false => ["lazyfree-lazy-server-del"] mutable bool();
    /// `lazyfree-lazy-user-del`: DEL behaves like UNLINK.
    lazyfree_lazy_user_del: bool = false => ["lazyfree-lazy-user-del"] mutable bool();
    /// `lazyfree-lazy-user-flush`: FLUSHALL/FLUSHDB without SYNC or ASYNC free in the background.
    lazyfree_lazy_user_flush: bool = false => ["lazyfree-lazy-user-flush"] mutable bool();
    /// `save`: BGSAVE after `seconds` if at least `changes` writes happened.
    /// Empty by default here (Redis' default is `3600 1 300 100 60 10000`)
    /// so a playground or test does no background work it did not ask for.
    save: Vec<(i64, i64)> = Vec::new() => ["save"] mutable with(
        parse_save,
        |rules: &Vec<(i64, i64)>| {
            let pairs: Vec<String> = rules.iter().map(|(s, n)| format!("{s} {n}")).collect();
            pairs.join(" ")
        }
    );
    /// `appendfsync`: when the AOF reaches the disk.
    appendfsync: Fsync = Fsync::Everysec => ["appendfsync"] mutable with(
        |v| Fsync::parse(v).ok_or("argument(s) must be one of the following: everysec, always, no"),
        |f: &Fsync| f.name().to_string()
    );
    /// `auto-aof-rewrite-percentage`: rewrite when the AOF grew this much over its base (0: never).
    auto_aof_rewrite_percentage: u64 = 100 => ["auto-aof-rewrite-percentage"] mutable int(0, INT_MAX);
    /// `auto-aof-rewrite-min-size`: no automatic rewrite below this many bytes.
    auto_aof_rewrite_min_size: u64 = 64 << 20 => ["auto-aof-rewrite-min-size"] mutable memory();
    /// `repl-backlog-size`, in bytes: how much stream a master keeps for
    /// partial resyncs (`createSizeTConfig(..., 1, LLONG_MAX, ..., MEMORY_CONFIG)`).
    repl_backlog_size: u64 = 1024 * 1024 => ["repl-backlog-size"] mutable memory_in(1, LONG_MAX);
    /// `min-replicas-to-write`: refuse writes with fewer good replicas (0: off).
    min_replicas_to_write: i64 = 0 => ["min-replicas-to-write"] mutable int(0, INT_MAX);
    /// `min-replicas-max-lag`, in seconds: a good replica acked this recently.
    min_replicas_max_lag: i64 = 10 => ["min-replicas-max-lag"] mutable int(0, INT_MAX);
    /// `replica-read-only`: replicas refuse client writes.
    replica_read_only: bool = true => ["replica-read-only"] mutable bool();
    /// `replica-ignore-maxmemory`: replicas never evict (the master's DELs do it).
    replica_ignore_maxmemory: bool = true => ["replica-ignore-maxmemory"] mutable bool();
    /// `replica-priority`: lower is preferred in a failover; 0 never.
    replica_priority: i64 = 100 => ["replica-priority"] mutable int(0, INT_MAX);
    /// `rdbcompression`: strings over 20 bytes in RDB files and DUMP
    /// payloads are LZF-compressed when that saves space.
    rdbcompression: bool = true => ["rdbcompression"] mutable bool();
    /// `sanitize-dump-payload` (`no`, `yes`, `clients`): how deeply Redis
    /// checks a RESTORE payload. Redsim decodes every payload fully (it
    /// rebuilds each value element by element), so it always validates as
    /// `yes` does; the setting is kept for CONFIG's sake.
    sanitize_dump_payload: String = "no".into() => ["sanitize-dump-payload"] mutable with(
        |v: &str| {
            let v = v.to_ascii_lowercase();
            match v.as_str() {
                "no" | "yes" | "clients" => Ok(v),
                _ => Err("argument(s) must be one of the following: no, yes, clients"),
            }
        },
        |s: &String| s.clone()
    );
    /// `client-output-buffer-limit`: per class (normal, replica, pubsub),
    /// the output buffer size that closes a client at once (hard) or after
    /// staying above it for soft_seconds (soft); see `output/`.
    client_output_buffer_limit: super::obuf_limits::ObufLimits = Default::default() => ["client-output-buffer-limit"] mutable update(
        super::obuf_limits::update,
        super::obuf_limits::show
    );
    /// `appendonly`: keep an AOF (simulated files, see `persist.rs`).
    appendonly: bool = false => ["appendonly"] mutable bool();
}

/// `latency-tracking-info-percentiles`: numbers in 0..=100 separated by
/// spaces (an empty string: none).
fn parse_percentiles(v: &str) -> Result<Vec<f64>, String> {
    v.split_ascii_whitespace()
        .map(|w| {
            let p = crate::num::double::string2d(w.as_bytes())
                .ok_or("Invalid latency-tracking-info-percentiles parameters")?;
            if !(0.0..=100.0).contains(&p) {
                return Err(
                    "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]",
                );
            }
            Ok(p)
        })
        .collect::<Result<Vec<f64>, &str>>()
        .map_err(str::to_string)
}

/// `maxmemory-policy` by name (any case), or Redis 7.2's error listing its policies.
fn parse_policy(v: &str) -> Result<Policy, String> {
    let v = v.to_ascii_lowercase();
    POLICIES
        .iter()
        .find(|(n, _)| *n == v)
        .map(|(_, p)| *p)
        .ok_or_else(|| {
            let names: Vec<&str> = POLICIES
                .iter()
                .take(REDIS_72_POLICIES)
                .map(|(n, _)| *n)
                .collect();
            format!(
                "argument(s) must be one of the following: {}",
                names.join(", ")
            )
        })
}

/// An integer parameter as Redis parses it (`string2ll`: no sign but `-`, no
/// leading zeros or spaces), checked against its bounds.
fn int_in(v: &str, min: i64, max: i64) -> Result<i64, String> {
    let n = crate::proto::resp::parse_i64(v.as_bytes())
        .ok_or_else(|| "argument couldn't be parsed into an integer".to_string())?;
    if n < min || n > max {
        return Err(format!(
            "argument must be between {min} and {max} inclusive"
        ));
    }
    Ok(n)
}

fn not_memory() -> String {
    "argument must be a memory value".into()
}

/// A `MEMORY_CONFIG` parameter (`64`, `1kb`) checked against its bounds.
fn memory_in(v: &str, min: i64, max: i64) -> Result<u64, String> {
    let n = parse_memory(v).ok_or_else(not_memory)?;
    if n < min as u64 || n > max as u64 {
        return Err(format!(
            "argument must be between {min} and {max} inclusive"
        ));
    }
    Ok(n)
}

/// `yesnotoi` for a `BOOL_CONFIG`: `yes` or `no` in any case, else Redis' error.
fn parse_bool(v: &str) -> Result<bool, String> {
    if v.eq_ignore_ascii_case("yes") {
        Ok(true)
    } else if v.eq_ignore_ascii_case("no") {
        Ok(false)
    } else {
        Err("argument must be 'yes' or 'no'".into())
    }
}

/// Parses `save`: pairs of "seconds changes", or "" for none.
pub fn parse_save(v: &str) -> Result<Vec<(i64, i64)>, String> {
    let parts: Vec<&str> = v.split_whitespace().collect();
    if !parts.len().is_multiple_of(2) {
        return Err("Invalid save parameters".into());
    }
    parts
        .chunks(2)
        .map(|p| {
            let s = crate::proto::resp::parse_i64(p[0].as_bytes()).filter(|n| *n >= 1);
            let c = crate::proto::resp::parse_i64(p[1].as_bytes()).filter(|n| *n >= 0);
            match (s, c) {
                (Some(s), Some(c)) => Ok((s, c)),
                _ => Err("Invalid save parameters".to_string()),
            }
        })
        .collect()
}

/// `acl_pubsub_default_enum`.
fn parse_pubsub_default(v: &str) -> Result<String, String> {
    match v.to_ascii_lowercase().as_str() {
        s @ ("allchannels" | "resetchannels") => Ok(s.to_string()),
        _ => Err("argument(s) must be one of the following: allchannels, resetchannels".into()),
    }
}

/// `protected_action_enum`: the values of `enable-debug-command`.
fn parse_protection(v: &str) -> Result<String, String> {
    match v.to_ascii_lowercase().as_str() {
        s @ ("no" | "yes" | "local") => Ok(s.to_string()),
        _ => Err("argument(s) must be one of the following: no, yes, local".into()),
    }
}

/// `appendfsync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fsync {
    Always,
    Everysec,
    No,
}

impl Fsync {
    /// The name CONFIG GET shows.
    pub fn name(self) -> &'static str {
        match self {
            Fsync::Always => "always",
            Fsync::Everysec => "everysec",
            Fsync::No => "no",
        }
    }

    /// The setting named `v`, in any case.
    pub fn parse(v: &str) -> Option<Fsync> {
        match v.to_ascii_lowercase().as_str() {
            "always" => Some(Fsync::Always),
            "everysec" => Some(Fsync::Everysec),
            "no" => Some(Fsync::No),
            _ => None,
        }
    }
}

/// `HIDDEN_CONFIG`: test knobs CONFIG GET shows by exact name only, never
/// for a pattern.
pub const HIDDEN: &[&str] = &["rdb-key-save-delay"];

/// The parameter called `name` (case-insensitive).
pub fn param(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

impl Config {
    /// Sets a parameter at start-up (command line), where immutable ones are allowed.
    pub fn set_initial(&mut self, name: &str, value: &str) -> Result<(), String> {
        let p = param(name)
            .ok_or_else(|| format!("Bad directive or wrong number of arguments: '{name}'"))?;
        (p.set)(self, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_parse_as_string2ll_and_hz_is_capped() {
        let mut c = Config::default();
        let hz = param("HZ").expect("hz");
        for bad in ["010", "+5", " 5", "5 ", "", "1e3", "-0"] {
            assert_eq!(
                (hz.set)(&mut c, bad),
                Err("argument couldn't be parsed into an integer".to_string()),
                "{bad:?}"
            );
        }
        assert_eq!((hz.set)(&mut c, "0"), Ok(()));
        assert_eq!((hz.get)(&c), "1");
        assert_eq!((hz.set)(&mut c, "2147483647"), Ok(()));
        assert_eq!((hz.get)(&c), "500");
        assert!((hz.set)(&mut c, "2147483648").is_err());
        let save = param("save").expect("save");
        assert_eq!((save.get)(&c), "");
        assert!(c.set_initial("save", "3600 1 300 100").is_ok());
        assert_eq!((save.get)(&c), "3600 1 300 100");
        assert!(c.set_initial("save", "3600").is_err());
        assert!(c.set_initial("appendonly", "maybe").is_err());
    }

    /// CONFIG GET * lists every declared name once, and each value read
    /// back through CONFIG SET is accepted and unchanged (the declaration's
    /// parse and show agree).
    #[test]
    fn config_get_lists_every_parameter_and_values_round_trip() {
        let mut e = crate::Engine::new(1);
        let c = e.connect("c");
        e.execute_line(c, "HELLO 3");
        let crate::Frame::Map(all) = e.execute_line(c, "CONFIG GET *") else {
            panic!("CONFIG GET * is a map in RESP3")
        };
        let mut listed: Vec<String> = all
            .iter()
            .map(|(k, _)| match k {
                crate::Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
                other => panic!("{other:?}"),
            })
            .collect();
        crate::sort::sort(&mut listed);
        // Hidden parameters answer by exact name only.
        let mut declared: Vec<String> = PARAMS
            .iter()
            .filter(|p| !HIDDEN.contains(&p.name))
            .map(|p| p.name.to_string())
            .collect();
        crate::sort::sort(&mut declared);
        let before = declared.len();
        declared.dedup();
        assert_eq!(declared.len(), before, "a name is declared twice");
        assert_eq!(listed, declared);
        for p in PARAMS.iter().filter(|p| p.mutable) {
            let value = (p.get)(e.config());
            let reply = e.execute(
                c,
                &[
                    b"CONFIG".to_vec(),
                    b"SET".to_vec(),
                    p.name.as_bytes().to_vec(),
                    value.clone().into_bytes(),
                ],
            );
            assert_eq!(reply, crate::Frame::ok(), "{} {value:?}", p.name);
            assert_eq!((p.get)(e.config()), value, "{}", p.name);
        }
    }

    #[test]
    fn save_rules_parse_as_redis_reads_them() {
        assert_eq!(parse_save(""), Ok(vec![]));
        assert_eq!(
            parse_save("3600 1 300 100"),
            Ok(vec![(3600, 1), (300, 100)])
        );
        assert!(parse_save("3600").is_err());
        assert!(parse_save("x 1").is_err());
        assert!(parse_save("0 1").is_err());
    }
}
