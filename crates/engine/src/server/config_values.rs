//! CONFIG values as config.c reads and shows them: the enums' names (`configEnum`), C's `strtoll`, memory and percent values, and the special parameters' parsers, for the declarations in `config.rs`.

use super::memunits::parse_memory;

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

/// A `configEnum`: names in Redis' order (its error lists them so) with
/// their values. Two names may share a value (`oom-score-adj`'s `yes` and
/// `relative`): the first is the one shown (`configEnumGetName`).
pub type Choices = &'static [(&'static str, u32)];

/// `protected_action_enum`: `enable-debug-command`, `enable-module-command`
/// and `enable-protected-configs`.
pub(super) const PROTECTION: Choices = &[("no", 0), ("yes", 1), ("local", 2)];
/// `acl_pubsub_default_enum`.
pub(super) const ACL_PUBSUB_DEFAULT: Choices = &[("allchannels", 1), ("resetchannels", 0)];
/// `sanitize_dump_payload_enum`.
pub(super) const SANITIZE_DUMP_PAYLOAD: Choices = &[("no", 0), ("yes", 1), ("clients", 2)];
/// `supervised_mode_enum`.
pub(super) const SUPERVISED: Choices = &[("upstart", 3), ("systemd", 2), ("auto", 1), ("no", 0)];
/// `syslog_facility_enum`.
pub(super) const SYSLOG_FACILITY: Choices = &[
    ("user", 0),
    ("local0", 1),
    ("local1", 2),
    ("local2", 3),
    ("local3", 4),
    ("local4", 5),
    ("local5", 6),
    ("local6", 7),
    ("local7", 8),
];
/// `loglevel_enum`.
pub(super) const LOGLEVEL: Choices = &[
    ("debug", 0),
    ("verbose", 1),
    ("notice", 2),
    ("warning", 3),
    ("nothing", 4),
];
/// `repl_diskless_load_enum`.
pub(super) const REPL_DISKLESS_LOAD: Choices =
    &[("disabled", 0), ("on-empty-db", 1), ("swapdb", 2)];
/// `tls_auth_clients_enum`.
pub(super) const TLS_AUTH_CLIENTS: Choices = &[("no", 0), ("yes", 1), ("optional", 2)];
/// `oom_score_adj_enum`: `yes` is `relative`, and shown as `yes`.
pub(super) const OOM_SCORE_ADJ: Choices =
    &[("no", 0), ("yes", 1), ("relative", 1), ("absolute", 2)];
/// `cluster_preferred_endpoint_type_enum`.
pub(super) const CLUSTER_PREFERRED_ENDPOINT_TYPE: Choices =
    &[("ip", 0), ("hostname", 1), ("unknown-endpoint", 2)];
/// `propagation_error_behavior_enum`.
pub(super) const PROPAGATION_ERROR_BEHAVIOR: Choices =
    &[("ignore", 0), ("panic", 1), ("panic-on-replicas", 2)];
/// `shutdown_on_sig_enum`: SHUTDOWN's flags as bits (`SHUTDOWN_SAVE`...).
pub const SHUTDOWN_ON_SIG: Choices = &[
    ("default", 0),
    ("save", 1),
    ("nosave", 2),
    ("now", 4),
    ("force", 8),
];

/// `enumConfigSet`'s error, naming every choice in order.
pub(super) fn one_of<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    format!(
        "argument(s) must be one of the following: {}",
        names.join(", ")
    )
}

/// A one-word enum by name (any case), kept as the name CONFIG GET shows.
pub(super) fn choose(v: &str, choices: Choices) -> Result<String, String> {
    let value = choices
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(v))
        .map(|c| c.1)
        .ok_or_else(|| one_of(choices.iter().map(|c| c.0)))?;
    let shown = choices.iter().find(|c| c.1 == value).map_or("", |c| c.0);
    Ok(shown.to_string())
}

/// `sdssplitlen(value, " ")`, how CONFIG SET splits the value of a
/// `MULTI_ARG_CONFIG`: at each single space (two in a row make an empty
/// argument), and an empty value into none.
pub(super) fn multi_args(v: &str) -> Vec<&str> {
    if v.is_empty() {
        Vec::new()
    } else {
        v.split(' ').collect()
    }
}

/// C's `strtoll(s, &end, radix)` when the caller then requires `*end ==
/// '\0'`: leading white space and a sign are allowed and the digits must
/// run to the end; a string without digits reads as 0 only when it is
/// empty (`end` stays at its start). The flag is `ERANGE` (the value is
/// then saturated).
pub(super) fn strtoll(s: &str, radix: u32) -> Option<(i64, bool)> {
    let b = s.as_bytes();
    let mut i = b
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .count();
    let neg = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let digits = &s[i..];
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return s.is_empty().then_some((0, false));
    }
    let mut n: i64 = 0;
    for d in digits.chars().filter_map(|c| c.to_digit(radix)) {
        let next = n.checked_mul(radix as i64).and_then(|n| match neg {
            true => n.checked_sub(d as i64),
            false => n.checked_add(d as i64),
        });
        match next {
            Some(m) => n = m,
            None => return Some((if neg { i64::MIN } else { i64::MAX }, true)),
        }
    }
    Some((n, false))
}

/// `latency-tracking-info-percentiles`: numbers in 0..=100, one per
/// argument of a `MULTI_ARG_CONFIG` (an empty value: none).
pub(super) fn parse_percentiles(v: &str) -> Result<Vec<f64>, String> {
    multi_args(v)
        .into_iter()
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
pub(super) fn parse_policy(v: &str) -> Result<Policy, String> {
    let v = v.to_ascii_lowercase();
    POLICIES
        .iter()
        .find(|(n, _)| *n == v)
        .map(|(_, p)| *p)
        .ok_or_else(|| one_of(POLICIES.iter().take(REDIS_72_POLICIES).map(|(n, _)| *n)))
}

/// An integer parameter as Redis parses it (`string2ll`: no sign but `-`, no
/// leading zeros or spaces), checked against its bounds.
pub(super) fn int_in(v: &str, min: i64, max: i64) -> Result<i64, String> {
    let n = crate::proto::resp::parse_i64(v.as_bytes())
        .ok_or_else(|| "argument couldn't be parsed into an integer".to_string())?;
    if n < min || n > max {
        return Err(format!(
            "argument must be between {min} and {max} inclusive"
        ));
    }
    Ok(n)
}

pub(super) fn not_memory() -> String {
    "argument must be a memory value".into()
}

/// A `MEMORY_CONFIG` parameter (`64`, `1kb`) checked against its bounds.
pub(super) fn memory_in(v: &str, min: i64, max: i64) -> Result<u64, String> {
    let n = parse_memory(v).ok_or_else(not_memory)?;
    if n < min as u64 || n > max as u64 {
        return Err(format!(
            "argument must be between {min} and {max} inclusive"
        ));
    }
    Ok(n)
}

/// `maxmemory-clients`, a `MEMORY_CONFIG | PERCENT_CONFIG` ssize_t: a
/// memory value, else `N%` stored as -N. A memory value past `SSIZE_MAX`
/// wraps negative in Redis' ssize_t and reads as a percentage: kept.
pub(super) fn parse_memory_or_percent(v: &str) -> Result<i64, String> {
    let n = match parse_memory(v) {
        Some(bytes) => bytes as i64,
        None => match v
            .strip_suffix('%')
            .filter(|d| !d.is_empty())
            .and_then(|d| crate::proto::resp::parse_i64(d.as_bytes()))
        {
            Some(p) if p >= 0 => -p,
            _ => return Err("argument must be a memory or percent value".into()),
        },
    };
    if n < -100 {
        return Err("percentage argument must be less or equal to 100".into());
    }
    Ok(n)
}

/// `numericConfigGet` for a `PERCENT_CONFIG`: `N%` for a percentage, else bytes.
pub(super) fn show_memory_or_percent(n: &i64) -> String {
    match *n < 0 {
        true => format!("{}%", -n),
        false => n.to_string(),
    }
}

/// `unixsocketperm`, an `OCTAL_CONFIG` unsigned int: `strtoll(v, 8)`
/// without overflow, then 0..=0777 (a negative number is a huge unsigned
/// one), its bounds printed in octal.
pub(super) fn parse_unixsocketperm(v: &str) -> Result<u32, String> {
    let Some((n, false)) = strtoll(v, 8) else {
        return Err("argument couldn't be parsed as an octal number".into());
    };
    if n as u64 > 0o777 {
        return Err("argument must be between 0 and 777 inclusive".into());
    }
    Ok(n as u32)
}

/// `shutdown-on-sigint` and `-sigterm`, `MULTI_ARG_CONFIG` enums: each
/// argument a flag of [`SHUTDOWN_ON_SIG`], OR-ed, but not both `save` and
/// `nosave` (`isValidShutdownOnSigFlags`).
pub(super) fn parse_shutdown_flags(v: &str) -> Result<u32, String> {
    let args = multi_args(v);
    let unknown = || one_of(SHUTDOWN_ON_SIG.iter().map(|c| c.0));
    if args.is_empty() {
        return Err(unknown());
    }
    let mut flags = 0;
    for a in args {
        let (_, bit) = SHUTDOWN_ON_SIG
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(a))
            .ok_or_else(unknown)?;
        flags |= bit;
    }
    if flags & 1 != 0 && flags & 2 != 0 {
        return Err("shutdown options SAVE and NOSAVE can't be used simultaneously".into());
    }
    Ok(flags)
}

/// `configEnumGetName` for bit flags: the name whose value is exactly the
/// flags, else every flag set, in the enum's order.
pub(super) fn show_shutdown_flags(flags: &u32) -> String {
    if let Some((n, _)) = SHUTDOWN_ON_SIG.iter().find(|c| c.1 == *flags) {
        return n.to_string();
    }
    let names: Vec<&str> = SHUTDOWN_ON_SIG
        .iter()
        .filter(|c| c.1 != 0 && flags & c.1 == c.1)
        .map(|c| c.0)
        .collect();
    names.join(" ")
}

/// `oom-score-adj-values`: exactly three arguments, each `strtoll` to the
/// end and in -2000..=2000.
pub(super) fn parse_oom_score_adj_values(v: &str) -> Result<[i32; 3], String> {
    let args = multi_args(v);
    if args.len() != 3 {
        return Err("wrong number of arguments".into());
    }
    let mut values = [0; 3];
    for (slot, a) in values.iter_mut().zip(args) {
        match strtoll(a, 10) {
            Some((n, _)) if (-2000..=2000).contains(&n) => *slot = n as i32,
            _ => {
                return Err(
                    "Invalid oom-score-adj-values, elements must be between -2000 and 2000.".into(),
                )
            }
        }
    }
    Ok(values)
}

/// `replicaof`: `host port` (the port `strtol` to the end, 0..=65535, shown
/// as a number) or `no one`, which clears it.
pub(super) fn parse_replicaof(v: &str) -> Result<String, String> {
    let [host, port] = multi_args(v)[..] else {
        return Err("wrong number of arguments".into());
    };
    if host.eq_ignore_ascii_case("no") && port.eq_ignore_ascii_case("one") {
        return Ok(String::new());
    }
    match strtoll(port, 10) {
        Some((p, _)) if (0..=65535).contains(&p) => Ok(format!("{host} {p}")),
        _ => Err("Invalid master port".into()),
    }
}

/// `pathIsBaseName`: no `/` or `\`.
pub(super) fn is_base_name(v: &str) -> bool {
    !v.contains(['/', '\\'])
}

/// `yesnotoi` for a `BOOL_CONFIG`: `yes` or `no` in any case, else Redis' error.
pub(super) fn parse_bool(v: &str) -> Result<bool, String> {
    if v.eq_ignore_ascii_case("yes") {
        Ok(true)
    } else if v.eq_ignore_ascii_case("no") {
        Ok(false)
    } else {
        Err("argument must be 'yes' or 'no'".into())
    }
}

/// Parses `save`: pairs of "seconds changes", or "" for none, as
/// `setConfigSaveOption` reads its arguments (`strtoll` to the end, seconds
/// at least 1, changes at least 0 and then kept in an `int`).
pub fn parse_save(v: &str) -> Result<Vec<(i64, i64)>, String> {
    let args = multi_args(v);
    if !args.len().is_multiple_of(2) {
        return Err("Invalid save parameters".into());
    }
    args.chunks(2)
        .map(|p| {
            let s = strtoll(p[0], 10).map(|r| r.0).filter(|n| *n >= 1);
            let c = strtoll(p[1], 10).map(|r| r.0).filter(|n| *n >= 0);
            match (s, c) {
                (Some(s), Some(c)) => Ok((s, c as i32 as i64)),
                _ => Err("Invalid save parameters".to_string()),
            }
        })
        .collect()
}

/// `setConfigBindOption`: at most `CONFIG_BINDADDR_MAX` (16) addresses, one
/// empty argument meaning none; the words are kept as given.
pub(super) fn parse_bind(v: &str) -> Result<String, String> {
    let words = multi_args(v);
    if words.len() > 16 {
        return Err("Too many bind addresses specified.".into());
    }
    Ok(words.join(" "))
}
