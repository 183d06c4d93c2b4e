//! CONFIG parameters: their defaults, bounds and parsing, with Redis 7.2's error messages.

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

/// Every tunable the engine reads. Field docs give the Redis parameter.
#[derive(Clone, Debug)]
pub struct Config {
    /// `hz`: server cron frequency as set; the cron clamps it to 1..=500.
    pub hz: u32,
    /// `maxmemory` in bytes; 0 means no limit.
    pub maxmemory: u64,
    /// `maxmemory-policy`.
    pub maxmemory_policy: Policy,
    /// `maxmemory-samples`.
    pub maxmemory_samples: u32,
    /// `maxmemory-eviction-tenacity`, 0..=100: how long one command may spend evicting.
    pub maxmemory_eviction_tenacity: u32,
    /// `lfu-log-factor`.
    pub lfu_log_factor: u32,
    /// `lfu-decay-time`, in minutes.
    pub lfu_decay_time: u32,
    /// `active-expire-effort`, 1..=10.
    pub active_expire_effort: u32,
    /// `list-max-listpack-size` (alias `list-max-ziplist-size`): a list
    /// node's limit, in entries if positive, else -1..-5 for 4..64 KB.
    pub list_max_listpack_size: i32,
    /// `list-compress-depth`: quicklist nodes kept uncompressed at each end
    /// (0: none compressed). Accepted and reported; compression itself
    /// changes no reply, so it is not modelled.
    pub list_compress_depth: i32,
    /// `databases` (immutable).
    pub databases: u32,
    /// `proto-max-bulk-len`.
    pub proto_max_bulk_len: i64,
    /// `hll-sparse-max-bytes`: longest sparse HyperLogLog before it turns dense.
    pub hll_sparse_max_bytes: u64,
    /// `zset-max-listpack-entries` (alias `zset-max-ziplist-entries`).
    pub zset_max_listpack_entries: u64,
    /// `zset-max-listpack-value` (alias `zset-max-ziplist-value`), a memory value.
    pub zset_max_listpack_value: u64,
    /// `port`, reported by the native server (immutable here).
    pub port: u16,
    /// `bind`, reported by the native server (immutable here).
    pub bind: String,
    /// `hash-max-listpack-entries` (alias `hash-max-ziplist-entries`).
    pub hash_max_listpack_entries: u64,
    /// `hash-max-listpack-value` (alias `hash-max-ziplist-value`), a memory value.
    pub hash_max_listpack_value: u64,
    /// `set-max-intset-entries`.
    pub set_max_intset_entries: u64,
    /// `set-max-listpack-entries`.
    pub set_max_listpack_entries: u64,
    /// `set-max-listpack-value`.
    pub set_max_listpack_value: u64,
    /// `stream-node-max-bytes`, a memory value: a stream node (listpack)
    /// takes no more entries once this big (0: no limit but 1 GB).
    pub stream_node_max_bytes: u64,
    /// `stream-node-max-entries`: entries (live and deleted) per stream node (0: no limit).
    pub stream_node_max_entries: u64,
    /// `busy-reply-threshold` (alias `lua-time-limit`), in ms: also sets
    /// a script's step budget (`script::budget_for`).
    pub busy_reply_threshold: i64,
    /// `lazyfree-lazy-eviction`: evicted values go to the lazy-free thread.
    pub lazyfree_lazy_eviction: bool,
    /// `lazyfree-lazy-expire`: expired values go to the lazy-free thread.
    pub lazyfree_lazy_expire: bool,
    /// `lazyfree-lazy-server-del`: values the server deletes or overwrites
    /// as a side effect (RENAME, SET over a key, emptied collections) too.
    pub lazyfree_lazy_server_del: bool,
    /// `lazyfree-lazy-user-del`: DEL behaves like UNLINK.
    pub lazyfree_lazy_user_del: bool,
    /// `lazyfree-lazy-user-flush`: FLUSHALL/FLUSHDB without SYNC or ASYNC free in the background.
    pub lazyfree_lazy_user_flush: bool,
    /// `appendonly`: keep an AOF (simulated files, see `persist.rs`).
    pub appendonly: bool,
    /// `appendfsync`: when the AOF reaches the disk.
    pub appendfsync: crate::persist::Fsync,
    /// `save`: BGSAVE after `seconds` if at least `changes` writes happened.
    /// Empty by default here (Redis' default is `3600 1 300 100 60 10000`)
    /// so a playground or test does no background work it did not ask for.
    pub save: Vec<(i64, i64)>,
    /// `auto-aof-rewrite-percentage`: rewrite when the AOF grew this much over its base (0: never).
    pub auto_aof_rewrite_percentage: u64,
    /// `auto-aof-rewrite-min-size`: no automatic rewrite below this many bytes.
    pub auto_aof_rewrite_min_size: u64,
    /// `repl-backlog-size`, in bytes: how much stream a master keeps for partial resyncs.
    pub repl_backlog_size: u64,
    /// `min-replicas-to-write`: refuse writes with fewer good replicas (0: off).
    pub min_replicas_to_write: i64,
    /// `min-replicas-max-lag`, in seconds: a good replica acked this recently.
    pub min_replicas_max_lag: i64,
    /// `replica-read-only`: replicas refuse client writes.
    pub replica_read_only: bool,
    /// `replica-ignore-maxmemory`: replicas never evict (the master's DELs do it).
    pub replica_ignore_maxmemory: bool,
    /// `replica-priority`: lower is preferred in a failover; 0 never.
    pub replica_priority: i64,
    /// `cluster-enabled` (immutable): the server is a cluster node.
    pub cluster_enabled: bool,
    /// `cluster-require-full-coverage`: an unowned slot takes the whole cluster down.
    pub cluster_require_full_coverage: bool,
    /// `cluster-node-timeout`, in ms (also bounds the rejoin delay).
    pub cluster_node_timeout: i64,
    /// `cluster-allow-reads-when-down`: serve reads while the cluster is down.
    pub cluster_allow_reads_when_down: bool,
    /// `cluster-config-file` (immutable): accepted and reported; Redsim writes no nodes.conf.
    pub cluster_config_file: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hz: 10,
            maxmemory: 0,
            maxmemory_policy: Policy::NoEviction,
            maxmemory_samples: 5,
            maxmemory_eviction_tenacity: 10,
            lfu_log_factor: 10,
            lfu_decay_time: 1,
            active_expire_effort: 1,
            list_max_listpack_size: -2,
            list_compress_depth: 0,
            databases: 16,
            proto_max_bulk_len: crate::proto::resp::PROTO_MAX_BULK_LEN,
            hll_sparse_max_bytes: 3000,
            zset_max_listpack_entries: 128,
            zset_max_listpack_value: 64,
            port: 6379,
            bind: "127.0.0.1".into(),
            // Redis' built-in defaults (redis.conf says the same): 512 fields
            // for hashes, 128 members for listpack sets.
            hash_max_listpack_entries: 512,
            hash_max_listpack_value: 64,
            set_max_intset_entries: 512,
            set_max_listpack_entries: 128,
            set_max_listpack_value: 64,
            stream_node_max_bytes: 4096,
            stream_node_max_entries: 100,
            busy_reply_threshold: 5000,
            // Redis 7.2's defaults: every lazy path off.
            lazyfree_lazy_eviction: false,
            lazyfree_lazy_expire: false,
            lazyfree_lazy_server_del: false,
            lazyfree_lazy_user_del: false,
            lazyfree_lazy_user_flush: false,
            appendonly: false,
            appendfsync: crate::persist::Fsync::Everysec,
            save: Vec::new(),
            auto_aof_rewrite_percentage: 100,
            auto_aof_rewrite_min_size: 64 << 20,
            repl_backlog_size: 1024 * 1024,
            min_replicas_to_write: 0,
            min_replicas_max_lag: 10,
            replica_read_only: true,
            replica_ignore_maxmemory: true,
            replica_priority: 100,
            cluster_enabled: false,
            cluster_require_full_coverage: true,
            cluster_node_timeout: 15000,
            cluster_allow_reads_when_down: false,
            cluster_config_file: "nodes.conf".into(),
        }
    }
}

/// A parameter's name, whether CONFIG SET may change it, and its accessors.
pub struct Param {
    pub name: &'static str,
    pub mutable: bool,
    pub get: fn(&Config) -> String,
    pub set: fn(&mut Config, &str) -> Result<(), String>,
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

/// `memtoull`: leading digits, then nothing or a unit among b, k, kb, m,
/// mb, g, gb (k = 1000, kb = 1024; any case). Redis' quirks are kept: no
/// digits reads as 0 (`CONFIG SET maxmemory ""` and `kb` are accepted),
/// 128 digits or more are refused, a number past u64 saturates (`strtoull`)
/// and the unit multiplication wraps.
pub fn parse_memory(v: &str) -> Option<u64> {
    let b = v.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let unit = v[digits..].to_ascii_lowercase();
    let mul: u64 = match unit.as_str() {
        "" | "b" => 1,
        "k" => 1000,
        "kb" => 1024,
        "m" => 1000 * 1000,
        "mb" => 1024 * 1024,
        "g" => 1000 * 1000 * 1000,
        "gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    if digits >= 128 {
        return None;
    }
    let val = b[..digits].iter().fold(0u64, |acc, &d| {
        acc.saturating_mul(10).saturating_add((d - b'0') as u64)
    });
    Some(val.wrapping_mul(mul))
}

const INT_MAX: i64 = i32::MAX as i64;
/// `INT_MIN`, the lower bound of signed `int` parameters.
const INT_MIN: i64 = i32::MIN as i64;

/// The parameters that exist so far, each backed by behaviour in the engine.
pub static PARAMS: &[Param] = &[
    Param {
        name: "hz",
        mutable: true,
        get: |c| c.hz.to_string(),
        // `updateHZ`: any value in range is accepted, then capped to 1..=500,
        // and CONFIG GET shows the capped value.
        set: |c, v| {
            c.hz = int_in(v, 0, INT_MAX)?.clamp(1, 500) as u32;
            Ok(())
        },
    },
    Param {
        name: "maxmemory",
        mutable: true,
        get: |c| c.maxmemory.to_string(),
        set: |c, v| {
            c.maxmemory = parse_memory(v).ok_or("argument must be a memory value")?;
            Ok(())
        },
    },
    Param {
        name: "maxmemory-policy",
        mutable: true,
        get: |c| c.maxmemory_policy.name().to_string(),
        set: |c, v| {
            let v = v.to_ascii_lowercase();
            c.maxmemory_policy = POLICIES
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
                })?;
            Ok(())
        },
    },
    Param {
        name: "maxmemory-samples",
        mutable: true,
        get: |c| c.maxmemory_samples.to_string(),
        // Redis 7.2 accepts up to INT_MAX (and then puts that many pointers
        // on its stack): eviction must not preallocate by this number.
        set: |c, v| {
            c.maxmemory_samples = int_in(v, 1, INT_MAX)? as u32;
            Ok(())
        },
    },
    Param {
        name: "maxmemory-eviction-tenacity",
        mutable: true,
        get: |c| c.maxmemory_eviction_tenacity.to_string(),
        set: |c, v| {
            c.maxmemory_eviction_tenacity = int_in(v, 0, 100)? as u32;
            Ok(())
        },
    },
    Param {
        name: "lfu-log-factor",
        mutable: true,
        get: |c| c.lfu_log_factor.to_string(),
        set: |c, v| {
            c.lfu_log_factor = int_in(v, 0, INT_MAX)? as u32;
            Ok(())
        },
    },
    Param {
        name: "lfu-decay-time",
        mutable: true,
        get: |c| c.lfu_decay_time.to_string(),
        set: |c, v| {
            c.lfu_decay_time = int_in(v, 0, INT_MAX)? as u32;
            Ok(())
        },
    },
    Param {
        name: "active-expire-effort",
        mutable: true,
        get: |c| c.active_expire_effort.to_string(),
        set: |c, v| {
            c.active_expire_effort = int_in(v, 1, 10)? as u32;
            Ok(())
        },
    },
    Param {
        name: "list-max-listpack-size",
        mutable: true,
        get: |c| c.list_max_listpack_size.to_string(),
        set: |c, v| {
            c.list_max_listpack_size = int_in(v, INT_MIN, INT_MAX)? as i32;
            Ok(())
        },
    },
    Param {
        name: "list-max-ziplist-size",
        mutable: true,
        get: |c| c.list_max_listpack_size.to_string(),
        set: |c, v| {
            c.list_max_listpack_size = int_in(v, INT_MIN, INT_MAX)? as i32;
            Ok(())
        },
    },
    Param {
        name: "list-compress-depth",
        mutable: true,
        get: |c| c.list_compress_depth.to_string(),
        set: |c, v| {
            c.list_compress_depth = int_in(v, 0, INT_MAX)? as i32;
            Ok(())
        },
    },
    Param {
        name: "databases",
        mutable: false,
        get: |c| c.databases.to_string(),
        set: |c, v| {
            c.databases = int_in(v, 1, INT_MAX)? as u32;
            Ok(())
        },
    },
    Param {
        name: "proto-max-bulk-len",
        mutable: true,
        get: |c| c.proto_max_bulk_len.to_string(),
        set: |c, v| {
            let n = parse_memory(v).ok_or("argument must be a memory value")?;
            if n < 1024 * 1024 || n > i64::MAX as u64 {
                return Err(format!(
                    "argument must be between {} and {} inclusive",
                    1024 * 1024,
                    i64::MAX
                ));
            }
            c.proto_max_bulk_len = n as i64;
            Ok(())
        },
    },
    Param {
        name: "hll-sparse-max-bytes",
        mutable: true,
        get: |c| c.hll_sparse_max_bytes.to_string(),
        // A `size_t` memory value bounded 0..=LONG_MAX.
        set: |c, v| {
            let n = parse_memory(v).ok_or("argument must be a memory value")?;
            if n > i64::MAX as u64 {
                return Err(format!(
                    "argument must be between 0 and {} inclusive",
                    i64::MAX
                ));
            }
            c.hll_sparse_max_bytes = n;
            Ok(())
        },
    },
    // Sorted-set encoding thresholds: `size_t` configs bounded to LONG_MAX,
    // each alias a parameter of its own as Redis registers them.
    Param {
        name: "zset-max-listpack-entries",
        mutable: true,
        get: |c| c.zset_max_listpack_entries.to_string(),
        set: |c, v| {
            c.zset_max_listpack_entries = size_t(v)?;
            Ok(())
        },
    },
    Param {
        name: "zset-max-ziplist-entries",
        mutable: true,
        get: |c| c.zset_max_listpack_entries.to_string(),
        set: |c, v| {
            c.zset_max_listpack_entries = size_t(v)?;
            Ok(())
        },
    },
    Param {
        name: "zset-max-listpack-value",
        mutable: true,
        get: |c| c.zset_max_listpack_value.to_string(),
        set: |c, v| {
            c.zset_max_listpack_value = size_t_memory(v)?;
            Ok(())
        },
    },
    Param {
        name: "zset-max-ziplist-value",
        mutable: true,
        get: |c| c.zset_max_listpack_value.to_string(),
        set: |c, v| {
            c.zset_max_listpack_value = size_t_memory(v)?;
            Ok(())
        },
    },
    Param {
        name: "port",
        mutable: false,
        get: |c| c.port.to_string(),
        set: |c, v| {
            c.port = int_in(v, 0, 65535)? as u16;
            Ok(())
        },
    },
    Param {
        name: "bind",
        mutable: false,
        get: |c| c.bind.clone(),
        set: |c, v| {
            c.bind = v.to_string();
            Ok(())
        },
    },
    // Encoding thresholds of hashes and sets. Redis registers each alias as
    // a parameter of its own: CONFIG GET with a pattern lists both names.
    Param {
        name: "hash-max-listpack-entries",
        mutable: true,
        get: |c| c.hash_max_listpack_entries.to_string(),
        set: |c, v| {
            c.hash_max_listpack_entries = size_t(v)?;
            Ok(())
        },
    },
    Param {
        name: "hash-max-ziplist-entries",
        mutable: true,
        get: |c| c.hash_max_listpack_entries.to_string(),
        set: |c, v| {
            c.hash_max_listpack_entries = size_t(v)?;
            Ok(())
        },
    },
    Param {
        name: "hash-max-listpack-value",
        mutable: true,
        get: |c| c.hash_max_listpack_value.to_string(),
        set: |c, v| {
            c.hash_max_listpack_value = size_t_memory(v)?;
            Ok(())
        },
    },
    Param {
        name: "hash-max-ziplist-value",
        mutable: true,
        get: |c| c.hash_max_listpack_value.to_string(),
        set: |c, v| {
            c.hash_max_listpack_value = size_t_memory(v)?;
            Ok(())
        },
    },
    Param {
        name: "set-max-intset-entries",
        mutable: true,
        get: |c| c.set_max_intset_entries.to_string(),
        set: |c, v| {
            c.set_max_intset_entries = size_t(v)?;
            Ok(())
        },
    },
    Param {
        name: "set-max-listpack-entries",
        mutable: true,
        get: |c| c.set_max_listpack_entries.to_string(),
        set: |c, v| {
            c.set_max_listpack_entries = size_t(v)?;
            Ok(())
        },
    },
    Param {
        name: "set-max-listpack-value",
        mutable: true,
        get: |c| c.set_max_listpack_value.to_string(),
        set: |c, v| {
            c.set_max_listpack_value = size_t(v)?;
            Ok(())
        },
    },
    // Stream node limits: a `size_t` memory value and a `long long`.
    Param {
        name: "stream-node-max-bytes",
        mutable: true,
        get: |c| c.stream_node_max_bytes.to_string(),
        set: |c, v| {
            c.stream_node_max_bytes = size_t_memory(v)?;
            Ok(())
        },
    },
    Param {
        name: "stream-node-max-entries",
        mutable: true,
        get: |c| c.stream_node_max_entries.to_string(),
        set: |c, v| {
            c.stream_node_max_entries = int_in(v, 0, i64::MAX)? as u64;
            Ok(())
        },
    },
    // How long a script may run before Redis answers BUSY; here it is the
    // step budget after which a script is stopped.
    Param {
        name: "busy-reply-threshold",
        mutable: true,
        get: |c| c.busy_reply_threshold.to_string(),
        set: |c, v| {
            c.busy_reply_threshold = int_in(v, 0, i64::MAX)?;
            Ok(())
        },
    },
    Param {
        name: "lua-time-limit",
        mutable: true,
        get: |c| c.busy_reply_threshold.to_string(),
        set: |c, v| {
            c.busy_reply_threshold = int_in(v, 0, i64::MAX)?;
            Ok(())
        },
    },
    Param {
        name: "cluster-enabled",
        mutable: false,
        get: |c| yes_or_no(c.cluster_enabled),
        set: |c, v| {
            c.cluster_enabled = parse_bool(v)?;
            Ok(())
        },
    },
    Param {
        name: "cluster-require-full-coverage",
        mutable: true,
        get: |c| yes_or_no(c.cluster_require_full_coverage),
        set: |c, v| {
            c.cluster_require_full_coverage = parse_bool(v)?;
            Ok(())
        },
    },
    Param {
        name: "cluster-allow-reads-when-down",
        mutable: true,
        get: |c| yes_or_no(c.cluster_allow_reads_when_down),
        set: |c, v| {
            c.cluster_allow_reads_when_down = parse_bool(v)?;
            Ok(())
        },
    },
    Param {
        name: "cluster-node-timeout",
        mutable: true,
        get: |c| c.cluster_node_timeout.to_string(),
        set: |c, v| {
            c.cluster_node_timeout = int_in(v, 0, i64::MAX)?;
            Ok(())
        },
    },
    Param {
        name: "cluster-config-file",
        mutable: false,
        get: |c| c.cluster_config_file.clone(),
        set: |c, v| {
            c.cluster_config_file = v.to_string();
            Ok(())
        },
    },
    // Lazy freeing (lazyfree.rs): which deletions hand big values to the
    // background thread.
    Param {
        name: "lazyfree-lazy-eviction",
        mutable: true,
        get: |c| yes_or_no(c.lazyfree_lazy_eviction),
        set: |c, v| {
            c.lazyfree_lazy_eviction = parse_bool(v)?;
            Ok(())
        },
    },
    Param {
        name: "lazyfree-lazy-expire",
        mutable: true,
        get: |c| yes_or_no(c.lazyfree_lazy_expire),
        set: |c, v| {
            c.lazyfree_lazy_expire = parse_bool(v)?;
            Ok(())
        },
    },
    Param {
        name: "lazyfree-lazy-server-del",
        mutable: true,
        get: |c| yes_or_no(c.lazyfree_lazy_server_del),
        set: |c, v| {
            c.lazyfree_lazy_server_del = parse_bool(v)?;
            Ok(())
        },
    },
    Param {
        name: "lazyfree-lazy-user-del",
        mutable: true,
        get: |c| yes_or_no(c.lazyfree_lazy_user_del),
        set: |c, v| {
            c.lazyfree_lazy_user_del = parse_bool(v)?;
            Ok(())
        },
    },
    Param {
        name: "lazyfree-lazy-user-flush",
        mutable: true,
        get: |c| yes_or_no(c.lazyfree_lazy_user_flush),
        set: |c, v| {
            c.lazyfree_lazy_user_flush = parse_bool(v)?;
            Ok(())
        },
    },
    // Persistence is simulated in memory (persist.rs): no files are written.
    Param {
        name: "save",
        mutable: true,
        get: |c| {
            c.save
                .iter()
                .map(|(s, n)| format!("{s} {n}"))
                .collect::<Vec<_>>()
                .join(" ")
        },
        set: |c, v| {
            c.save = crate::persist::parse_save(v)?;
            Ok(())
        },
    },
    Param {
        name: "appendfsync",
        mutable: true,
        get: |c| c.appendfsync.name().to_string(),
        set: |c, v| {
            c.appendfsync = crate::persist::Fsync::parse(v)
                .ok_or("argument(s) must be one of the following: everysec, always, no")?;
            Ok(())
        },
    },
    Param {
        name: "auto-aof-rewrite-percentage",
        mutable: true,
        get: |c| c.auto_aof_rewrite_percentage.to_string(),
        set: |c, v| {
            c.auto_aof_rewrite_percentage = int_in(v, 0, INT_MAX)? as u64;
            Ok(())
        },
    },
    Param {
        name: "auto-aof-rewrite-min-size",
        mutable: true,
        get: |c| c.auto_aof_rewrite_min_size.to_string(),
        set: |c, v| {
            c.auto_aof_rewrite_min_size =
                parse_memory(v).ok_or("argument must be a memory value")?;
            Ok(())
        },
    },
    Param {
        name: "repl-backlog-size",
        mutable: true,
        get: |c| c.repl_backlog_size.to_string(),
        // `createSizeTConfig(..., 1, LLONG_MAX, ..., MEMORY_CONFIG)`.
        set: |c, v| {
            let n = parse_memory(v).ok_or("argument must be a memory value")?;
            if n < 1 || n > i64::MAX as u64 {
                return Err("argument must be between 1 and 9223372036854775807 inclusive".into());
            }
            c.repl_backlog_size = n;
            Ok(())
        },
    },
    Param {
        name: "min-replicas-to-write",
        mutable: true,
        get: |c| c.min_replicas_to_write.to_string(),
        set: |c, v| {
            c.min_replicas_to_write = int_in(v, 0, INT_MAX)?;
            Ok(())
        },
    },
    Param {
        name: "min-replicas-max-lag",
        mutable: true,
        get: |c| c.min_replicas_max_lag.to_string(),
        set: |c, v| {
            c.min_replicas_max_lag = int_in(v, 0, INT_MAX)?;
            Ok(())
        },
    },
    Param {
        name: "replica-read-only",
        mutable: true,
        get: |c| yes_no(c.replica_read_only),
        set: |c, v| {
            c.replica_read_only = parse_bool(v)?;
            Ok(())
        },
    },
    Param {
        name: "replica-ignore-maxmemory",
        mutable: true,
        get: |c| yes_no(c.replica_ignore_maxmemory),
        set: |c, v| {
            c.replica_ignore_maxmemory = parse_bool(v)?;
            Ok(())
        },
    },
    Param {
        name: "replica-priority",
        mutable: true,
        get: |c| c.replica_priority.to_string(),
        set: |c, v| {
            c.replica_priority = int_in(v, 0, INT_MAX)?;
            Ok(())
        },
    },
    Param {
        name: "appendonly",
        mutable: true,
        get: |c| yes_no(c.appendonly),
        set: |c, v| {
            c.appendonly = parse_bool(v)?;
            Ok(())
        },
    },
];

/// A boolean parameter as CONFIG GET shows it.
fn yes_or_no(b: bool) -> String {
    if b { "yes" } else { "no" }.into()
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

/// A boolean parameter's value as CONFIG GET shows it.
fn yes_no(b: bool) -> String {
    yes_or_no(b)
}

/// A `size_t` parameter with `INTEGER_CONFIG` parsing, bounded 0..=LONG_MAX.
fn size_t(v: &str) -> Result<u64, String> {
    Ok(int_in(v, 0, i64::MAX)? as u64)
}

/// A `size_t` parameter with `MEMORY_CONFIG` parsing (`64`, `1kb`), bounded 0..=LONG_MAX.
fn size_t_memory(v: &str) -> Result<u64, String> {
    let n = parse_memory(v).ok_or("argument must be a memory value")?;
    if n > i64::MAX as u64 {
        return Err(format!(
            "argument must be between 0 and {} inclusive",
            i64::MAX
        ));
    }
    Ok(n)
}

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
    fn memory_units() {
        assert_eq!(parse_memory("100mb"), Some(100 << 20));
        assert_eq!(parse_memory("1k"), Some(1000));
        assert_eq!(parse_memory("1KB"), Some(1024));
        assert_eq!(parse_memory("12"), Some(12));
        assert_eq!(parse_memory("-1"), None);
        assert_eq!(parse_memory("1.5mb"), None);
        assert_eq!(parse_memory("1 mb"), None);
        // Redis' `memtoull` reads no digits as 0.
        assert_eq!(parse_memory(""), Some(0));
        assert_eq!(parse_memory("mb"), Some(0));
        assert_eq!(parse_memory(&"9".repeat(30)), Some(u64::MAX));
        assert_eq!(parse_memory(&"1".repeat(128)), None);
    }
}
