//! The Topology tab's setup options as URL text: each option set from its `key=value` (checked against its range) and the options that differ from the defaults written back as `&key=value` pairs, so a share link carries only what was changed.

use std::fmt::Write as _;

use redsim_sim::params::parse_seed;
use redsim_sim::topology::TopoOptions;

use crate::url::encode_component;

/// The appendfsync modes, in the order the forms list them.
pub const FSYNC_MODES: [&str; 4] = ["always", "everysec", "no", "off"];

/// Sets option `key` from its URL text. `Ok(false)` means `key` is not an
/// option (other query keys such as `cmd` or `tab` are left alone).
pub fn set_option(o: &mut TopoOptions, key: &str, v: &str) -> Result<bool, String> {
    let v = v.trim();
    let int = |lo: i64, hi: i64| -> Result<i64, String> {
        match v.parse::<i64>() {
            Ok(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(format!("{key} '{v}' is not a whole number in {lo}..={hi}")),
        }
    };
    let real = |lo: f64, hi: f64| -> Result<f64, String> {
        match v.parse::<f64>() {
            Ok(n) if n.is_finite() && (lo..=hi).contains(&n) => Ok(n),
            _ => Err(format!("{key} '{v}' is not a number in {lo}..={hi}")),
        }
    };
    // A comma-separated list, one entry per node (empty: none).
    let list = |v: &str, lo: f64, hi: f64| -> Result<Vec<f64>, String> {
        v.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| match x.parse::<f64>() {
                Ok(n) if n.is_finite() && (lo..=hi).contains(&n) => Ok(n),
                _ => Err(format!("{key} '{v}': '{x}' is not a number in {lo}..={hi}")),
            })
            .collect()
    };
    match key {
        "seed" => o.seed = parse_seed(v).ok_or(format!("seed '{v}' is not a number"))?,
        "replicas" => o.replicas = int(1, 4)? as usize,
        "sentinels" => o.sentinels = int(1, 7)? as usize,
        "quorum" => o.quorum = int(1, 7)? as usize,
        "down" => o.down_after_ms = int(100, 60_000)? as u64,
        "latency" => o.link_latency_ms = real(0.0, 1000.0)?,
        "rate" => o.writes_per_sec = real(0.0, 1000.0)?,
        "wait" => o.wait = int(0, 4)?,
        "minrep" => o.min_replicas_to_write = int(0, 4)?,
        "lats" => o.latencies_ms = list(v, 0.0, 1000.0)?,
        "prio" => {
            o.priorities = list(v, 0.0, 1000.0)?
                .into_iter()
                .map(|p| p as i64)
                .collect()
        }
        "backlog" => o.repl_backlog_size = int(16 * 1024, 64 << 20)? as u64,
        "fotimeout" => o.failover_timeout_ms = int(1000, 600_000)? as u64,
        "fsync" if FSYNC_MODES.contains(&v) => o.appendfsync = v.to_string(),
        "fsync" => return Err(format!("fsync '{v}' is not one of always|everysec|no|off")),
        _ => return Ok(false),
    }
    Ok(true)
}

/// The options that differ from the defaults, as `&key=value` pairs.
pub fn options_query(o: &TopoOptions) -> String {
    let d = TopoOptions::default();
    let mut q = String::new();
    let mut put = |k: &str, v: String, differs: bool| {
        if differs {
            let _ = write!(q, "&{k}={}", encode_component(&v));
        }
    };
    put("replicas", o.replicas.to_string(), o.replicas != d.replicas);
    put(
        "sentinels",
        o.sentinels.to_string(),
        o.sentinels != d.sentinels,
    );
    put("quorum", o.quorum.to_string(), o.quorum != d.quorum);
    put(
        "down",
        o.down_after_ms.to_string(),
        o.down_after_ms != d.down_after_ms,
    );
    put(
        "latency",
        num_text(o.link_latency_ms),
        o.link_latency_ms != d.link_latency_ms,
    );
    put(
        "rate",
        num_text(o.writes_per_sec),
        o.writes_per_sec != d.writes_per_sec,
    );
    put("wait", o.wait.to_string(), o.wait != d.wait);
    put(
        "minrep",
        o.min_replicas_to_write.to_string(),
        o.min_replicas_to_write != d.min_replicas_to_write,
    );
    put(
        "fsync",
        o.appendfsync.clone(),
        o.appendfsync != d.appendfsync,
    );
    put(
        "backlog",
        o.repl_backlog_size.to_string(),
        o.repl_backlog_size != d.repl_backlog_size,
    );
    put(
        "fotimeout",
        o.failover_timeout_ms.to_string(),
        o.failover_timeout_ms != d.failover_timeout_ms,
    );
    let joined = |v: Vec<String>| v.join(",");
    put(
        "lats",
        joined(o.latencies_ms.iter().map(|l| num_text(*l)).collect()),
        o.latencies_ms != d.latencies_ms,
    );
    put(
        "prio",
        joined(o.priorities.iter().map(|p| p.to_string()).collect()),
        o.priorities != d.priorities,
    );
    q
}

fn num_text(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_options_are_written_and_read_back() {
        let o = TopoOptions {
            replicas: 3,
            link_latency_ms: 7.5,
            appendfsync: "no".into(),
            priorities: vec![100, 0],
            ..TopoOptions::default()
        };
        let q = options_query(&o);
        assert_eq!(q, "&replicas=3&latency=7.5&fsync=no&prio=100%2C0");
        let mut back = TopoOptions::default();
        for pair in q.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap();
            let v = crate::url::decode_component(v);
            assert_eq!(set_option(&mut back, k, &v), Ok(true), "{pair}");
        }
        assert_eq!(back, o);
        assert_eq!(options_query(&TopoOptions::default()), "");
    }

    #[test]
    fn bad_values_say_why_and_other_keys_are_left_alone() {
        let mut o = TopoOptions::default();
        assert_eq!(set_option(&mut o, "cmd", "GET a"), Ok(false));
        assert!(set_option(&mut o, "replicas", "9")
            .unwrap_err()
            .contains("replicas '9'"));
        assert!(set_option(&mut o, "fsync", "sometimes")
            .unwrap_err()
            .contains("always|everysec|no|off"));
        assert!(set_option(&mut o, "lats", "20,x")
            .unwrap_err()
            .contains("'x' is not a number"));
        assert_eq!(set_option(&mut o, "seed", "0x10"), Ok(true));
        assert_eq!(o.seed, 16);
        assert_eq!(o.replicas, TopoOptions::default().replicas);
    }
}
