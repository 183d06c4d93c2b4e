//! CONFIG parameters: each declared once (field, default, Redis names, mutability, how its text is read and shown), with Redis 7.2's bounds and error messages.
//!
//! The [`config!`] declaration below generates the [`Config`] struct, its
//! defaults and [`PARAMS`], the table CONFIG GET/SET and the command line
//! read, so a parameter cannot be added to one and forgotten in another.
//! Redis registers an alias (`hash-max-ziplist-entries`) as a parameter of
//! its own; here it is one more name on the same declaration.
//!
//! Every parameter of Redis 7.2.6's `static_configs[]` is here (but the two
//! of a `LOG_REQ_RES` build), with its names, default, bounds and errors, so
//! CONFIG GET * lists what Redis lists. Many tune what Redsim does not model
//! (threads, logs, TLS, files on disk): those are accepted and reported, kept
//! for CONFIG only, and their field's doc says so.

pub use super::memunits::parse_memory;

/// A parameter's name, whether CONFIG SET may change it, and its accessors.
pub struct Param {
    pub name: &'static str,
    /// The parameter this name is another name of (`slave-read-only` for
    /// `replica-read-only`); `None` for the name CONFIG REWRITE writes.
    pub alias_of: Option<&'static str>,
    /// How redis.conf writes its value (CONFIG REWRITE).
    pub kind: Kind,
    pub mutable: bool,
    /// `HIDDEN_CONFIG`: a test knob CONFIG GET shows for its exact name,
    /// never for a pattern.
    pub hidden: bool,
    /// `PROTECTED_CONFIG`: CONFIG SET changes it only where
    /// `enable-protected-configs` allows (a path Redis would write files to).
    pub protected: bool,
    pub get: fn(&Config) -> String,
    pub set: fn(&mut Config, &str) -> Result<(), String>,
}

/// What a parameter's value is, where redis.conf writes it differently
/// from CONFIG GET: sizes with units, strings quoted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Memory,
    Text,
    Other,
}

/// Declares every parameter once: `field: type = default => [names] access kind(args);`.
///
/// `access` is `mutable`, `immutable` (start-up only), `hidden` (mutable,
/// `HIDDEN_CONFIG`) or `protected` (mutable, `PROTECTED_CONFIG`): in Redis
/// 7.2's table both flags only ever come with `MODIFIABLE_CONFIG`.
/// The kinds: `int(min, max)` (`string2ll` within bounds, cast to the
/// field's type), `size_t()` (an integer in 0..=LONG_MAX), `memory()`
/// (`memtoull`), `memory_in(min, max)`, `bool()` (yes/no), `text()`,
/// `text(check)` (refused when `check(&config, value)` says why),
/// `choice(CHOICES)` (a one-word enum), `with(parse, show)`, and
/// `update(update, show)` for a value CONFIG SET changes in part.
macro_rules! config {
    ($(
        $(#[doc = $doc:literal])*
        $field:ident: $ty:ty = $default:expr => [$name:literal $(, $alias:literal)*] $access:ident $kind:ident $args:tt;
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
        pub static PARAMS: &[Param] = &[$(
            config!(@param $name, None, $field, $ty, $access, $kind, $args),
            $(config!(@param $alias, Some($name), $field, $ty, $access, $kind, $args),)*
        )*];
    };
    (@param $name:literal, $alias_of:expr, $field:ident, $ty:ty, $access:ident, $kind:ident, $args:tt) => {
        Param {
            name: $name,
            alias_of: $alias_of,
            kind: config!(@kind $kind),
            mutable: config!(@mutable $access),
            hidden: config!(@hidden $access),
            protected: config!(@protected $access),
            get: |c| config!(@show $kind, &c.$field, $args),
            set: |c, v| config!(@set $kind, c, $field, $ty, v, $args),
        }
    };
    (@kind memory) => { Kind::Memory };
    (@kind memory_in) => { Kind::Memory };
    (@kind text) => { Kind::Text };
    (@kind $kind:ident) => { Kind::Other };
    (@mutable mutable) => { true };
    (@mutable immutable) => { false };
    (@mutable hidden) => { true };
    (@mutable protected) => { true };
    (@hidden hidden) => { true };
    (@hidden $access:ident) => { false };
    (@protected protected) => { true };
    (@protected $access:ident) => { false };
    (@set update, $c:ident, $field:ident, $ty:ty, $v:ident, ($update:expr, $show:expr)) => {
        ($update)(&mut $c.$field, $v)
    };
    (@set text, $c:ident, $field:ident, $ty:ty, $v:ident, ($check:expr)) => {{
        ($check)(&*$c, $v)?;
        $c.$field = $v.to_string();
        Ok(())
    }};
    (@set $kind:ident, $c:ident, $field:ident, $ty:ty, $v:ident, $args:tt) => {{
        $c.$field = config!(@parse $kind, $ty, $v, $args)?;
        Ok(())
    }};
    (@parse int, $ty:ty, $v:ident, ($min:expr, $max:expr)) => { int_in($v, $min, $max).map(|n| n as $ty) };
    (@parse size_t, $ty:ty, $v:ident, ()) => { int_in($v, 0, i64::MAX).map(|n| n as u64) };
    (@parse memory, $ty:ty, $v:ident, ()) => { parse_memory($v).ok_or_else(not_memory) };
    (@parse memory_in, $ty:ty, $v:ident, ($min:expr, $max:expr)) => { memory_in($v, $min, $max).map(|n| n as $ty) };
    (@parse bool, $ty:ty, $v:ident, ()) => { parse_bool($v) };
    (@parse text, $ty:ty, $v:ident, ()) => { Ok::<String, String>($v.to_string()) };
    (@parse choice, $ty:ty, $v:ident, ($choices:expr)) => { choose($v, $choices) };
    (@parse with, $ty:ty, $v:ident, ($parse:expr, $show:expr)) => { ($parse)($v) };
    (@show bool, $x:expr, ()) => { if *$x { "yes" } else { "no" }.to_string() };
    (@show text, $x:expr, $args:tt) => { $x.clone() };
    (@show choice, $x:expr, $args:tt) => { $x.clone() };
    (@show with, $x:expr, ($parse:expr, $show:expr)) => { ($show)($x) };
    (@show update, $x:expr, ($update:expr, $show:expr)) => { ($show)($x) };
    (@show $kind:ident, $x:expr, $args:tt) => { $x.to_string() };
}

/// `INT_MAX`, the upper bound of signed `int` parameters.
const INT_MAX: i64 = i32::MAX as i64;
/// `INT_MIN`, the lower bound of signed `int` parameters.
const INT_MIN: i64 = i32::MIN as i64;
/// `LONG_MAX` (= `LLONG_MAX` on 64 bits), the upper bound of `size_t` and `long long` parameters.
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
    /// `rdb-key-save-delay` (hidden): a test knob slowing Redis' RDB child
    /// per key; the modelled child's duration ignores it.
    rdb_key_save_delay: i64 = 0 => ["rdb-key-save-delay"] hidden int(INT_MIN, INT_MAX);
    /// `proto-max-bulk-len`.
    proto_max_bulk_len: i64 = crate::proto::resp::PROTO_MAX_BULK_LEN => ["proto-max-bulk-len"] mutable memory_in(1024 * 1024, LONG_MAX);
    /// `hll-sparse-max-bytes`: longest sparse HyperLogLog before it turns dense.
    hll_sparse_max_bytes: u64 = 3000 => ["hll-sparse-max-bytes"] mutable memory_in(0, LONG_MAX);
    /// `zset-max-listpack-entries` (alias `zset-max-ziplist-entries`).
    zset_max_listpack_entries: u64 = 128 => ["zset-max-listpack-entries", "zset-max-ziplist-entries"] mutable size_t();
    /// `zset-max-listpack-value` (alias `zset-max-ziplist-value`), a memory value.
    zset_max_listpack_value: u64 = 64 => ["zset-max-listpack-value", "zset-max-ziplist-value"] mutable memory_in(0, LONG_MAX);
    /// `port`: the TCP port. CONFIG SET moves the driver's listener
    /// (`server::listener`, Redis' `changeListener`) once every value of the
    /// command has parsed; a port it cannot listen on fails the command and
    /// restores every parameter it set.
    port: u16 = 6379 => ["port"] mutable int(0, 65535);
    /// `enable-debug-command`: DEBUG is refused (`no`, Redis' default),
    /// allowed (`yes`) or allowed from loopback clients only (`local`).
    enable_debug_command: String = "no".into() => ["enable-debug-command"] immutable choice(PROTECTION);
    /// `enable-module-command`: MODULE LOAD, LOADEX and UNLOAD alike (no
    /// module can load here, whatever it says).
    enable_module_command: String = "no".into() => ["enable-module-command"] immutable choice(PROTECTION);
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
    acl_pubsub_default: String = "resetchannels".into() => ["acl-pubsub-default"] mutable choice(ACL_PUBSUB_DEFAULT);
    /// `bind`: the addresses the driver's listener serves (`*` and `::*` for
    /// any, `-` before one that may be missing; none: no TCP). CONFIG SET
    /// moves the listener (`applyBind`), as it does for `port`.
    bind: String = "127.0.0.1".into() => ["bind"] mutable with(parse_bind, |s: &String| s.clone());
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
    auto_aof_rewrite_min_size: u64 = 64 << 20 => ["auto-aof-rewrite-min-size"] mutable memory_in(0, LONG_MAX);
    /// `repl-backlog-size`, in bytes: how much stream a master keeps for
    /// partial resyncs (`createSizeTConfig(..., 1, LLONG_MAX, ..., MEMORY_CONFIG)`).
    repl_backlog_size: u64 = 1024 * 1024 => ["repl-backlog-size"] mutable memory_in(1, LONG_MAX);
    /// `min-replicas-to-write`: refuse writes with fewer good replicas (0: off).
    min_replicas_to_write: i64 = 0 => ["min-replicas-to-write", "min-slaves-to-write"] mutable int(0, INT_MAX);
    /// `min-replicas-max-lag`, in seconds: a good replica acked this recently.
    min_replicas_max_lag: i64 = 10 => ["min-replicas-max-lag", "min-slaves-max-lag"] mutable int(0, INT_MAX);
    /// `replica-read-only`: replicas refuse client writes.
    replica_read_only: bool = true => ["replica-read-only", "slave-read-only"] mutable bool();
    /// `replica-ignore-maxmemory`: replicas never evict (the master's DELs do it).
    replica_ignore_maxmemory: bool = true => ["replica-ignore-maxmemory", "slave-ignore-maxmemory"] mutable bool();
    /// `replica-priority`: lower is preferred in a failover; 0 never.
    replica_priority: i64 = 100 => ["replica-priority", "slave-priority"] mutable int(0, INT_MAX);
    /// `rdbcompression`: strings over 20 bytes in RDB files and DUMP
    /// payloads are LZF-compressed when that saves space.
    rdbcompression: bool = true => ["rdbcompression"] mutable bool();
    /// `sanitize-dump-payload` (`no`, `yes`, `clients`): how deeply Redis
    /// checks a RESTORE payload. Redsim decodes every payload fully (it
    /// rebuilds each value element by element), so it always validates as
    /// `yes` does; the setting is kept for CONFIG's sake.
    sanitize_dump_payload: String = "no".into() => ["sanitize-dump-payload"] mutable choice(SANITIZE_DUMP_PAYLOAD);
    /// `client-output-buffer-limit`: per class (normal, replica, pubsub),
    /// the output buffer size that closes a client at once (hard) or after
    /// staying above it for soft_seconds (soft); see `output/`.
    client_output_buffer_limit: super::obuf_limits::ObufLimits = Default::default() => ["client-output-buffer-limit"] mutable update(
        super::obuf_limits::update,
        super::obuf_limits::show
    );
    /// `appendonly`: keep an AOF (simulated files, see `persist.rs`).
    appendonly: bool = false => ["appendonly"] mutable bool();

    // The rest of Redis 7.2.6's table, in its order. Most tune what Redsim
    // does not model (threads, logging, TLS, files on disk, the cluster
    // bus...): accepted and reported, for CONFIG only.

    /// `rdbchecksum` (immutable): RDB files end with a CRC64. Accepted and reported.
    rdbchecksum: bool = true => ["rdbchecksum"] immutable bool();
    /// `daemonize` (immutable): fork into the background. Accepted and reported.
    daemonize: bool = false => ["daemonize"] immutable bool();
    /// `io-threads-do-reads` (immutable): I/O threads also read and parse requests. Accepted and reported.
    io_threads_do_reads: bool = false => ["io-threads-do-reads"] immutable bool();
    /// `always-show-logo` (immutable): the ASCII logo in every log. Accepted and reported.
    always_show_logo: bool = false => ["always-show-logo"] immutable bool();
    /// `rdb-del-sync-files`: delete the RDB file a sync wrote, without persistence. Accepted and reported.
    rdb_del_sync_files: bool = false => ["rdb-del-sync-files"] mutable bool();
    /// `activerehashing`: the cron helps rehashing along. Accepted and reported: tables here rehash at once.
    activerehashing: bool = true => ["activerehashing"] mutable bool();
    /// `stop-writes-on-bgsave-error`: refuse writes after a failed BGSAVE (none fails here). Accepted and reported.
    stop_writes_on_bgsave_error: bool = true => ["stop-writes-on-bgsave-error"] mutable bool();
    /// `set-proc-title` (immutable): rewrite the process title. Accepted and reported.
    set_proc_title: bool = true => ["set-proc-title"] immutable bool();
    /// `dynamic-hz`: raise the cron frequency with many clients. Accepted and reported: the cron runs at `hz`.
    dynamic_hz: bool = true => ["dynamic-hz"] mutable bool();
    /// `repl-disable-tcp-nodelay`: batch the replication stream (Nagle). Accepted and reported.
    repl_disable_tcp_nodelay: bool = false => ["repl-disable-tcp-nodelay"] mutable bool();
    /// `repl-diskless-sync`: a full sync streams the RDB to replicas, not through a file. Accepted and reported.
    repl_diskless_sync: bool = true => ["repl-diskless-sync"] mutable bool();
    /// `aof-rewrite-incremental-fsync`: fsync the rewritten AOF every 4 MB. Accepted and reported.
    aof_rewrite_incremental_fsync: bool = true => ["aof-rewrite-incremental-fsync"] mutable bool();
    /// `no-appendfsync-on-rewrite`: skip AOF fsyncs while a child saves or rewrites. Accepted and reported.
    no_appendfsync_on_rewrite: bool = false => ["no-appendfsync-on-rewrite"] mutable bool();
    /// `rdb-save-incremental-fsync`: fsync the RDB being saved every 4 MB. Accepted and reported.
    rdb_save_incremental_fsync: bool = true => ["rdb-save-incremental-fsync"] mutable bool();
    /// `aof-load-truncated`: start from an AOF whose last command is cut short. Accepted and reported.
    aof_load_truncated: bool = true => ["aof-load-truncated"] mutable bool();
    /// `aof-timestamp-enabled`: timestamp annotations in the AOF. Accepted and reported.
    aof_timestamp_enabled: bool = false => ["aof-timestamp-enabled"] mutable bool();
    /// `cluster-replica-no-failover` (alias `cluster-slave-no-failover`): no automatic failover. Accepted and reported.
    cluster_replica_no_failover: bool = false => ["cluster-replica-no-failover", "cluster-slave-no-failover"] mutable bool();
    /// `replica-lazy-flush` (alias `slave-lazy-flush`): flush for a full sync in the background. Accepted and reported.
    replica_lazy_flush: bool = false => ["replica-lazy-flush", "slave-lazy-flush"] mutable bool();
    /// `replica-serve-stale-data` (alias `slave-serve-stale-data`): answer while the link is down. Accepted and reported.
    replica_serve_stale_data: bool = true => ["replica-serve-stale-data", "slave-serve-stale-data"] mutable bool();
    /// `jemalloc-bg-thread`: jemalloc purges in a thread of its own. Accepted and reported.
    jemalloc_bg_thread: bool = true => ["jemalloc-bg-thread"] mutable bool();
    /// `activedefrag`: active defragmentation. Accepted and reported (`yes` too, as Redis built with its jemalloc).
    activedefrag: bool = false => ["activedefrag"] mutable bool();
    /// `syslog-enabled` (immutable): log to syslog. Accepted and reported.
    syslog_enabled: bool = false => ["syslog-enabled"] immutable bool();
    /// `cluster-allow-pubsubshard-when-down`: shard channels work while the cluster is down. Accepted and reported.
    cluster_allow_pubsubshard_when_down: bool = true => ["cluster-allow-pubsubshard-when-down"] mutable bool();
    /// `crash-log-enabled`: a crash report in the log. Accepted and reported.
    crash_log_enabled: bool = true => ["crash-log-enabled"] mutable bool();
    /// `crash-memcheck-enabled`: a memory test after a crash. Accepted and reported.
    crash_memcheck_enabled: bool = true => ["crash-memcheck-enabled"] mutable bool();
    /// `use-exit-on-panic` (hidden): exit, not abort, on a panic (for tests). Accepted and reported.
    use_exit_on_panic: bool = false => ["use-exit-on-panic"] hidden bool();
    /// `disable-thp` (immutable): turn transparent huge pages off for the process. Accepted and reported.
    disable_thp: bool = true => ["disable-thp"] immutable bool();
    /// `cluster-allow-replica-migration`: replicas move to orphaned masters. Accepted and reported.
    cluster_allow_replica_migration: bool = true => ["cluster-allow-replica-migration"] mutable bool();
    /// `replica-announced`: a replica shows in its master's INFO for Sentinel. Accepted and reported.
    replica_announced: bool = true => ["replica-announced"] mutable bool();
    /// `aof-disable-auto-gc` (hidden): keep old AOF files after a rewrite (for tests). Accepted and reported.
    aof_disable_auto_gc: bool = false => ["aof-disable-auto-gc"] hidden bool();
    /// `replica-ignore-disk-write-errors`: go on after a failed disk write. Accepted and reported.
    replica_ignore_disk_write_errors: bool = false => ["replica-ignore-disk-write-errors"] mutable bool();

    /// `unixsocket` (immutable): a Unix socket to listen on too. Accepted and reported (TCP only here).
    unixsocket: String = String::new() => ["unixsocket"] immutable text();
    /// `pidfile` (immutable): where the process id is written. Accepted and reported.
    pidfile: String = String::new() => ["pidfile"] immutable text();
    /// `replica-announce-ip` (alias `slave-announce-ip`): the address given to the master. Accepted and reported.
    replica_announce_ip: String = String::new() => ["replica-announce-ip", "slave-announce-ip"] mutable text();
    /// `masteruser`: the user a replica authenticates as. Accepted and reported (links do not authenticate).
    masteruser: String = String::new() => ["masteruser"] mutable text();
    /// `cluster-announce-ip`: the address a node gives the cluster bus. Accepted and reported.
    cluster_announce_ip: String = String::new() => ["cluster-announce-ip"] mutable text();
    /// `cluster-announce-hostname`: a node's hostname for clients (checked). Accepted and reported.
    cluster_announce_hostname: String = String::new() => ["cluster-announce-hostname"] mutable text(check_hostname);
    /// `cluster-announce-human-nodename`: a node's name for logs (checked). Accepted and reported.
    cluster_announce_human_nodename: String = String::new() => ["cluster-announce-human-nodename"] mutable text(check_nodename);
    /// `syslog-ident` (immutable): the syslog identity. Accepted and reported.
    syslog_ident: String = "redis".into() => ["syslog-ident"] immutable text();
    /// `dbfilename` (protected): the RDB file's name, without a path. Accepted and reported.
    dbfilename: String = "dump.rdb".into() => ["dbfilename"] protected text(check_dbfilename);
    /// `appendfilename` (immutable): the AOF files' base name. Accepted and reported.
    appendfilename: String = "appendonly.aof".into() => ["appendfilename"] immutable text(check_appendfilename);
    /// `appenddirname` (immutable): the AOF files' directory. Accepted and reported.
    appenddirname: String = "appendonlydir".into() => ["appenddirname"] immutable text(check_appenddirname);
    /// `server_cpulist` (immutable): CPU affinity of the main and I/O threads. Accepted and reported.
    server_cpulist: String = String::new() => ["server_cpulist"] immutable text();
    /// `bio_cpulist` (immutable): CPU affinity of the background threads. Accepted and reported.
    bio_cpulist: String = String::new() => ["bio_cpulist"] immutable text();
    /// `aof_rewrite_cpulist` (immutable): CPU affinity of the AOF rewrite child. Accepted and reported.
    aof_rewrite_cpulist: String = String::new() => ["aof_rewrite_cpulist"] immutable text();
    /// `bgsave_cpulist` (immutable): CPU affinity of the BGSAVE child. Accepted and reported.
    bgsave_cpulist: String = String::new() => ["bgsave_cpulist"] immutable text();
    /// `ignore-warnings`: start-up warnings not to print. Accepted and reported.
    ignore_warnings: String = String::new() => ["ignore-warnings"] mutable text();
    /// `proc-title-template`: the process title (checked: known `{variables}`, not blank). Accepted and reported.
    proc_title_template: String = "{title} {listen-addr} {server-mode}".into() => ["proc-title-template"] mutable text(check_proc_title);
    /// `bind-source-addr`: the source address of outgoing connections. Accepted and reported.
    bind_source_addr: String = String::new() => ["bind-source-addr"] mutable text();
    /// `logfile` (immutable): the log file (empty: standard output), where
    /// `redsim server` writes its log.
    logfile: String = String::new() => ["logfile"] immutable text();
    /// `locale-collate`: SORT ... ALPHA's collation (`strcoll`). Accepted and reported: strings compare
    /// byte by byte (the C locale), and any name is accepted where Redis refuses one its system
    /// lacks ("Invalid locale name").
    locale_collate: String = String::new() => ["locale-collate"] mutable text();
    /// `masterauth`: the password a replica authenticates with. Accepted and reported.
    masterauth: String = String::new() => ["masterauth"] mutable text();

    /// `supervised` (immutable): talk to upstart or systemd. Accepted and reported.
    supervised: String = "no".into() => ["supervised"] immutable choice(SUPERVISED);
    /// `syslog-facility` (immutable). Accepted and reported.
    syslog_facility: String = "local0".into() => ["syslog-facility"] immutable choice(SYSLOG_FACILITY);
    /// `repl-diskless-load`: how a replica loads a full sync's RDB. Accepted and reported.
    repl_diskless_load: String = "disabled".into() => ["repl-diskless-load"] mutable choice(REPL_DISKLESS_LOAD);
    /// `loglevel`: the least level the server log keeps (DEBUG LOG,
    /// `redis.log`; see `server/log.rs`).
    loglevel: String = "notice".into() => ["loglevel"] mutable choice(LOGLEVEL);
    /// `oom-score-adj`: set the Linux OOM killer's score from `oom-score-adj-values`. Accepted and reported.
    oom_score_adj: String = "no".into() => ["oom-score-adj"] mutable choice(OOM_SCORE_ADJ);
    /// `enable-protected-configs` (immutable): CONFIG SET of `dir` and `dbfilename` is refused
    /// (`no`, Redis' default), allowed (`yes`) or allowed from loopback clients only (`local`).
    enable_protected_configs: String = "no".into() => ["enable-protected-configs"] immutable choice(PROTECTION);
    /// `cluster-preferred-endpoint-type`: what redirections name a node by. Accepted and reported.
    cluster_preferred_endpoint_type: String = "ip".into() => ["cluster-preferred-endpoint-type"] mutable choice(CLUSTER_PREFERRED_ENDPOINT_TYPE);
    /// `propagation-error-behavior`: a replica's answer to a failing replicated command. Accepted and reported.
    propagation_error_behavior: String = "ignore".into() => ["propagation-error-behavior"] mutable choice(PROPAGATION_ERROR_BEHAVIOR);
    /// `shutdown-on-sigint`: SHUTDOWN's flags on SIGINT, bits of `SHUTDOWN_ON_SIG`. Accepted and reported.
    shutdown_on_sigint: u32 = 0 => ["shutdown-on-sigint"] mutable with(parse_shutdown_flags, show_shutdown_flags);
    /// `shutdown-on-sigterm`: the same for SIGTERM. Accepted and reported.
    shutdown_on_sigterm: u32 = 0 => ["shutdown-on-sigterm"] mutable with(parse_shutdown_flags, show_shutdown_flags);

    /// `io-threads` (immutable). Accepted and reported: one thread here.
    io_threads: i32 = 1 => ["io-threads"] immutable int(1, 128);
    /// `cluster-replica-validity-factor` (alias `cluster-slave-validity-factor`). Accepted and reported.
    cluster_replica_validity_factor: i32 = 10 => ["cluster-replica-validity-factor", "cluster-slave-validity-factor"] mutable int(0, INT_MAX);
    /// `tcp-keepalive`, seconds (0: off). Accepted and reported.
    tcp_keepalive: i32 = 300 => ["tcp-keepalive"] mutable int(0, INT_MAX);
    /// `cluster-migration-barrier`: replicas a master keeps before one may migrate. Accepted and reported.
    cluster_migration_barrier: i32 = 1 => ["cluster-migration-barrier"] mutable int(0, INT_MAX);
    /// `active-defrag-cycle-min`, % CPU. Accepted and reported.
    active_defrag_cycle_min: i32 = 1 => ["active-defrag-cycle-min"] mutable int(1, 99);
    /// `active-defrag-cycle-max`, % CPU. Accepted and reported.
    active_defrag_cycle_max: i32 = 25 => ["active-defrag-cycle-max"] mutable int(1, 99);
    /// `active-defrag-threshold-lower`, % fragmentation. Accepted and reported.
    active_defrag_threshold_lower: i32 = 10 => ["active-defrag-threshold-lower"] mutable int(0, 1000);
    /// `active-defrag-threshold-upper`, % fragmentation. Accepted and reported.
    active_defrag_threshold_upper: i32 = 100 => ["active-defrag-threshold-upper"] mutable int(0, 1000);
    /// `repl-diskless-sync-delay`, seconds a diskless sync waits for replicas. Accepted and reported.
    repl_diskless_sync_delay: i32 = 5 => ["repl-diskless-sync-delay"] mutable int(0, INT_MAX);
    /// `timeout`: the cron closes a client idle more than this many seconds (0: never; `server::idle`).
    timeout: i64 = 0 => ["timeout"] mutable int(0, INT_MAX);
    /// `replica-announce-port` (alias `slave-announce-port`). Accepted and reported.
    replica_announce_port: u16 = 0 => ["replica-announce-port", "slave-announce-port"] mutable int(0, 65535);
    /// `tcp-backlog` (immutable): the listen backlog. Accepted and reported.
    tcp_backlog: i32 = 511 => ["tcp-backlog"] immutable int(0, INT_MAX);
    /// `cluster-port` (immutable): the cluster bus port (0: port + 10000). Accepted and reported.
    cluster_port: u16 = 0 => ["cluster-port"] immutable int(0, 65535);
    /// `cluster-announce-bus-port`. Accepted and reported.
    cluster_announce_bus_port: u16 = 0 => ["cluster-announce-bus-port"] mutable int(0, 65535);
    /// `cluster-announce-port`. Accepted and reported.
    cluster_announce_port: u16 = 0 => ["cluster-announce-port"] mutable int(0, 65535);
    /// `cluster-announce-tls-port`. Accepted and reported.
    cluster_announce_tls_port: u16 = 0 => ["cluster-announce-tls-port"] mutable int(0, 65535);
    /// `repl-timeout`, seconds before a silent replication link is dropped. Accepted and reported.
    repl_timeout: i32 = 60 => ["repl-timeout"] mutable int(1, INT_MAX);
    /// `key-load-delay` (hidden): a test knob slowing loading per key. Accepted and reported.
    key_load_delay: i32 = 0 => ["key-load-delay"] hidden int(INT_MIN, INT_MAX);
    /// `watchdog-period` (hidden), ms: the software watchdog (0: off). Accepted and reported.
    watchdog_period: i32 = 0 => ["watchdog-period"] hidden int(0, INT_MAX);
    /// `shutdown-timeout`, seconds SHUTDOWN waits for replicas to catch up. Accepted and reported.
    shutdown_timeout: i32 = 10 => ["shutdown-timeout"] mutable int(0, INT_MAX);
    /// `repl-diskless-sync-max-replicas`: a diskless sync starts once this many wait. Accepted and reported.
    repl_diskless_sync_max_replicas: i32 = 0 => ["repl-diskless-sync-max-replicas"] mutable int(0, INT_MAX);
    /// `unixsocketperm` (immutable): the socket's mode, read and shown in octal. Accepted and reported.
    unixsocketperm: u32 = 0 => ["unixsocketperm"] immutable with(parse_unixsocketperm, |p: &u32| format!("{p:o}"));
    /// `socket-mark-id` (immutable): SO_MARK of listening sockets. Accepted and reported.
    socket_mark_id: u32 = 0 => ["socket-mark-id"] immutable int(0, UINT_MAX);
    /// `active-defrag-max-scan-fields`. Accepted and reported.
    active_defrag_max_scan_fields: u64 = 1000 => ["active-defrag-max-scan-fields"] mutable int(1, LONG_MAX);
    /// `cluster-ping-interval` (hidden), ms. Accepted and reported.
    cluster_ping_interval: i64 = 0 => ["cluster-ping-interval"] hidden int(0, LONG_MAX);
    /// `cluster-link-sendbuf-limit`, bytes a cluster bus link may queue (0: no limit). Accepted and reported.
    cluster_link_sendbuf_limit: u64 = 0 => ["cluster-link-sendbuf-limit"] mutable memory();
    /// `active-defrag-ignore-bytes`. Accepted and reported.
    active_defrag_ignore_bytes: u64 = 100 << 20 => ["active-defrag-ignore-bytes"] mutable memory_in(1, LONG_MAX);
    /// `maxmemory-clients`: client eviction's limit, in bytes or as `N%` of `maxmemory` (stored as -N;
    /// 0: none). Accepted and reported: client eviction is not modelled.
    maxmemory_clients: i64 = 0 => ["maxmemory-clients"] mutable with(parse_memory_or_percent, show_memory_or_percent);
    /// `repl-backlog-ttl`, seconds a master without replicas keeps its backlog. Accepted and reported.
    repl_backlog_ttl: i64 = 3600 => ["repl-backlog-ttl"] mutable int(0, LONG_MAX);
    /// `loading-process-events-interval-bytes` (hidden): loading's event period. Accepted and reported.
    loading_process_events_interval_bytes: i64 = 2 << 20 => ["loading-process-events-interval-bytes"] hidden int(1024, INT_MAX);

    /// `tls-port` (0: none). Redsim has no TLS: CONFIG SET fails to apply a new one, as Redis
    /// does when it cannot load a certificate, and so does a change of the TLS parameters that
    /// `applyTlsCfg` applies while TLS is on (`tls-port`, `tls-replication` or `tls-cluster`).
    tls_port: u16 = 0 => ["tls-port"] mutable int(0, 65535);
    /// `tls-session-cache-size` (see `tls_port`).
    tls_session_cache_size: i32 = 20 * 1024 => ["tls-session-cache-size"] mutable int(0, INT_MAX);
    /// `tls-session-cache-timeout`, seconds (see `tls_port`).
    tls_session_cache_timeout: i32 = 300 => ["tls-session-cache-timeout"] mutable int(0, INT_MAX);
    /// `tls-cluster`: TLS on the cluster bus (see `tls_port`).
    tls_cluster: bool = false => ["tls-cluster"] mutable bool();
    /// `tls-replication`: TLS on replication links (see `tls_port`).
    tls_replication: bool = false => ["tls-replication"] mutable bool();
    /// `tls-auth-clients`: whether clients need a certificate. Accepted and reported.
    tls_auth_clients: String = "yes".into() => ["tls-auth-clients"] mutable choice(TLS_AUTH_CLIENTS);
    /// `tls-prefer-server-ciphers` (see `tls_port`).
    tls_prefer_server_ciphers: bool = false => ["tls-prefer-server-ciphers"] mutable bool();
    /// `tls-session-caching` (see `tls_port`).
    tls_session_caching: bool = true => ["tls-session-caching"] mutable bool();
    /// `tls-cert-file` (see `tls_port`).
    tls_cert_file: String = String::new() => ["tls-cert-file"] mutable text();
    /// `tls-key-file` (see `tls_port`).
    tls_key_file: String = String::new() => ["tls-key-file"] mutable text();
    /// `tls-key-file-pass` (see `tls_port`).
    tls_key_file_pass: String = String::new() => ["tls-key-file-pass"] mutable text();
    /// `tls-client-cert-file` (see `tls_port`).
    tls_client_cert_file: String = String::new() => ["tls-client-cert-file"] mutable text();
    /// `tls-client-key-file` (see `tls_port`).
    tls_client_key_file: String = String::new() => ["tls-client-key-file"] mutable text();
    /// `tls-client-key-file-pass` (see `tls_port`).
    tls_client_key_file_pass: String = String::new() => ["tls-client-key-file-pass"] mutable text();
    /// `tls-dh-params-file` (see `tls_port`).
    tls_dh_params_file: String = String::new() => ["tls-dh-params-file"] mutable text();
    /// `tls-ca-cert-file` (see `tls_port`).
    tls_ca_cert_file: String = String::new() => ["tls-ca-cert-file"] mutable text();
    /// `tls-ca-cert-dir` (see `tls_port`).
    tls_ca_cert_dir: String = String::new() => ["tls-ca-cert-dir"] mutable text();
    /// `tls-protocols` (see `tls_port`).
    tls_protocols: String = String::new() => ["tls-protocols"] mutable text();
    /// `tls-ciphers` (see `tls_port`).
    tls_ciphers: String = String::new() => ["tls-ciphers"] mutable text();
    /// `tls-ciphersuites` (see `tls_port`).
    tls_ciphersuites: String = String::new() => ["tls-ciphersuites"] mutable text();

    /// `dir` (protected): the working directory, which `redsim server` starts at its own. CONFIG
    /// SET changes only what is reported (Redis `chdir`s, so a missing path fails there): RDB
    /// and AOF files are simulated, and `aclfile` is read as given.
    dir: String = "/".into() => ["dir"] protected text();
    /// `oom-score-adj-values`: OOM scores of a master, a replica and a child. Accepted and reported.
    oom_score_adj_values: [i32; 3] = [0, 200, 800] => ["oom-score-adj-values"] mutable with(
        parse_oom_score_adj_values,
        |v: &[i32; 3]| format!("{} {} {}", v[0], v[1], v[2])
    );
    /// `replicaof` (alias `slaveof`; immutable): the master as `host port`, or empty (`no one`).
    replicaof: String = String::new() => ["replicaof", "slaveof"] immutable with(parse_replicaof, |s: &String| s.clone());
}

use super::config_values::*;
pub use super::config_values::{parse_save, Choices, Policy, SHUTDOWN_ON_SIG};

/// `isValidDBfilename`.
fn check_dbfilename(_: &Config, v: &str) -> Result<(), &'static str> {
    match is_base_name(v) {
        true => Ok(()),
        false => Err("dbfilename can't be a path, just a filename"),
    }
}

/// `isValidAOFfilename`.
fn check_appendfilename(_: &Config, v: &str) -> Result<(), &'static str> {
    match (v.is_empty(), is_base_name(v)) {
        (true, _) => Err("appendfilename can't be empty"),
        (false, false) => Err("appendfilename can't be a path, just a filename"),
        _ => Ok(()),
    }
}

/// `isValidAOFdirname`.
fn check_appenddirname(_: &Config, v: &str) -> Result<(), &'static str> {
    match (v.is_empty(), is_base_name(v)) {
        (true, _) => Err("appenddirname can't be empty"),
        (false, false) => Err("appenddirname can't be a path, just a dirname"),
        _ => Ok(()),
    }
}

/// `isValidAnnouncedHostname`: shorter than `NET_HOST_STR_LEN` (256),
/// letters, digits, `-` and `.` only.
fn check_hostname(_: &Config, v: &str) -> Result<(), &'static str> {
    if v.len() >= 256 {
        return Err("Hostnames must be less than 256 characters");
    }
    match v
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'.')
    {
        true => Ok(()),
        false => Err("Hostnames may only contain alphanumeric characters, hyphens or dots"),
    }
}

/// `isValidAuxString`: none of the bytes cluster.c keeps for its own syntax.
fn check_nodename(_: &Config, v: &str) -> Result<(), &'static str> {
    match v.bytes().any(|c| b"!#$%&()*+:;<>?@[]^{|}~\0".contains(&c)) {
        true => Err("Announced human node name contained invalid character"),
        false => Ok(()),
    }
}

/// `validateProcTitleTemplate`: every `{variable}` known (`{{` is a brace)
/// and the expansion with an empty title not blank once spaces are trimmed.
/// Only blankness matters, so variables that never expand empty count as one
/// character.
fn check_proc_title(c: &Config, v: &str) -> Result<(), &'static str> {
    const INVALID: &str = "template format is invalid or contains unknown variables";
    let mut out = String::new();
    let mut rest = v;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        if after.is_empty() {
            return Err(INVALID);
        }
        if let Some(r) = after.strip_prefix('{') {
            out.push('{');
            rest = r;
            continue;
        }
        let close = after.find('}').ok_or(INVALID)?;
        out.push_str(match &after[..close] {
            "title" => "",
            "listen-addr" | "config-file" | "port" | "tls-port" => "x",
            "server-mode" if c.cluster_enabled => "[cluster]",
            "server-mode" => "",
            "unixsocket" => &c.unixsocket,
            _ => return Err(INVALID),
        });
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    match out.trim_matches(' ').is_empty() {
        true => Err(INVALID),
        false => Ok(()),
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

/// `MULTI_ARG_CONFIG`: parameters whose value is several words, which a
/// command line (`--save 3600 1 300 100`) gives as separate arguments.
pub const MULTI_ARG: &[&str] = &[
    "bind",
    "save",
    "client-output-buffer-limit",
    "oom-score-adj-values",
    "shutdown-on-sigint",
    "shutdown-on-sigterm",
    "replicaof",
    "slaveof",
    "latency-tracking-info-percentiles",
];

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
        // `strtoll` to the end on single-space arguments, as config.c reads them.
        assert_eq!(parse_save("+60 1"), Ok(vec![(60, 1)]));
        assert!(
            parse_save("60  1").is_err(),
            "two spaces make an empty third argument"
        );
        assert!(parse_save("60 1x").is_err());
    }

    /// `strtoll` as config.c calls it: white space and a sign first, digits
    /// to the end, nothing but an empty string without digits.
    #[test]
    fn strtoll_reads_as_c_does() {
        assert_eq!(strtoll("", 10), Some((0, false)));
        assert_eq!(strtoll(" \t-12", 10), Some((-12, false)));
        assert_eq!(strtoll("+0777", 8), Some((511, false)));
        for bad in [" ", "-", "12 ", "8", "0x1"] {
            assert_eq!(strtoll(bad, 8), None, "{bad:?}");
        }
        assert_eq!(strtoll("99999999999999999999", 10), Some((i64::MAX, true)));
        assert_eq!(strtoll("-99999999999999999999", 10), Some((i64::MIN, true)));
    }
}
