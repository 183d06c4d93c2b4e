//! How a topology is built ([`TopoOptions`]), and its options described once ([`OPTIONS`]: URL key, field, accepted range, unit, help) for share links ([`set_option`], [`options_query`]) and for the replication-topology scenario's parameters.

use crate::params::{fmt_num, parse_seed, ParamSpec};
use serde::Serialize;
use std::fmt::Write as _;

/// `appendfsync` modes, and `off` for `appendonly no`.
pub const FSYNC_MODES: &[&str] = &["always", "everysec", "no", "off"];

/// How the world is built.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TopoOptions {
    pub seed: u64,
    /// Replicas of the first master, 1..=4.
    pub replicas: usize,
    /// Sentinels, 1..=7 (3 or 5 in practice).
    pub sentinels: usize,
    /// Sentinels that must agree the master is down (1..=sentinels).
    pub quorum: usize,
    /// `down-after-milliseconds`.
    pub down_after_ms: u64,
    /// `failover-timeout` (Redis' default is 180 s; shorter here so a failed
    /// election is retried while one watches).
    pub failover_timeout_ms: u64,
    /// One-way latency of replication links (plus up to 50% jitter).
    pub link_latency_ms: f64,
    /// Per node: the latency of its link when it is a replica (missing entries: `link_latency_ms`).
    pub latencies_ms: Vec<f64>,
    /// The client's write rate (0: no writes).
    pub writes_per_sec: f64,
    /// `WAIT <wait> <wait_timeout_ms>` after each write (0: no WAIT).
    pub wait: i64,
    pub wait_timeout_ms: i64,
    /// Every node's AOF: `always | everysec | no`, or `off` (`appendonly no`).
    pub appendfsync: String,
    /// Every node's `save` rules (`""`: none).
    pub save: String,
    /// Every node's `min-replicas-to-write` and `min-replicas-max-lag`.
    pub min_replicas_to_write: i64,
    pub min_replicas_max_lag: i64,
    /// Every node's `repl-backlog-size` in bytes.
    pub repl_backlog_size: u64,
    /// Bytes in each written value.
    pub value_bytes: usize,
    /// `replica-priority` per node (missing entries: 100).
    pub priorities: Vec<i64>,
}

impl Default for TopoOptions {
    fn default() -> TopoOptions {
        TopoOptions {
            seed: 1,
            replicas: 2,
            sentinels: 3,
            quorum: 2,
            down_after_ms: 2_000,
            failover_timeout_ms: 10_000,
            link_latency_ms: 20.0,
            latencies_ms: Vec::new(),
            writes_per_sec: 50.0,
            wait: 0,
            wait_timeout_ms: 500,
            appendfsync: "everysec".into(),
            save: "30 100".into(),
            min_replicas_to_write: 0,
            min_replicas_max_lag: 10,
            repl_backlog_size: 1 << 20,
            value_bytes: 16,
            priorities: Vec::new(),
        }
    }
}

impl TopoOptions {
    /// Options off their defaults wherever a link carries them (the seed
    /// aside), so that the tests of every link, here and in the page, can
    /// check that none is lost on the way.
    pub fn all_changed() -> TopoOptions {
        TopoOptions {
            replicas: 4,
            sentinels: 5,
            quorum: 3,
            down_after_ms: 1500,
            failover_timeout_ms: 20_000,
            link_latency_ms: 7.5,
            latencies_ms: vec![20.0, 2.0, 80.0],
            writes_per_sec: 200.0,
            wait: 1,
            appendfsync: "no".into(),
            min_replicas_to_write: 1,
            repl_backlog_size: 65_536,
            priorities: vec![100, 200, 0],
            ..TopoOptions::default()
        }
    }
}

/// Which field of [`TopoOptions`] an option sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Seed,
    Replicas,
    Sentinels,
    Quorum,
    DownAfter,
    LinkLatency,
    WriteRate,
    Wait,
    MinReplicas,
    Appendfsync,
    Backlog,
    FailoverTimeout,
    Latencies,
    Priorities,
}

/// What an option's text may be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// A seed, decimal or `0x` hex.
    Seed,
    /// A number in `lo..=hi` (a whole one when `whole`); forms step by `step`.
    Number {
        lo: f64,
        hi: f64,
        step: f64,
        whole: bool,
    },
    /// Comma-separated numbers in `lo..=hi`, one per node (empty: none).
    PerNode { lo: f64, hi: f64 },
    /// One of these names.
    OneOf(&'static [&'static str]),
}

/// One option: where it lives in a link and in [`TopoOptions`], what it
/// accepts and what it does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TopoOption {
    /// Its key in a share link.
    pub key: &'static str,
    pub field: Field,
    pub range: Range,
    pub unit: &'static str,
    /// One line: what changing it does.
    pub help: &'static str,
    /// The replication-topology scenario's parameter for it, if it has one.
    pub param: Option<&'static str>,
}

const fn whole(lo: f64, hi: f64, step: f64) -> Range {
    Range::Number {
        lo,
        hi,
        step,
        whole: true,
    }
}

const fn real(lo: f64, hi: f64, step: f64) -> Range {
    Range::Number {
        lo,
        hi,
        step,
        whole: false,
    }
}

/// Every option, in the order links list them.
pub const OPTIONS: &[TopoOption] = &[
    TopoOption {
        key: "seed",
        field: Field::Seed,
        range: Range::Seed,
        unit: "",
        help: "every random choice (jitter, timings) comes from the seed",
        param: None,
    },
    TopoOption {
        key: "replicas",
        field: Field::Replicas,
        range: whole(1.0, 4.0, 1.0),
        unit: "",
        help: "replicas of the master",
        param: Some("replicas"),
    },
    TopoOption {
        key: "sentinels",
        field: Field::Sentinels,
        range: whole(1.0, 7.0, 1.0),
        unit: "",
        help: "Sentinel processes",
        param: None,
    },
    TopoOption {
        key: "quorum",
        field: Field::Quorum,
        range: whole(1.0, 7.0, 1.0),
        unit: "",
        help: "sentinels that must agree the master is down (ODOWN)",
        param: None,
    },
    TopoOption {
        key: "down",
        field: Field::DownAfter,
        range: whole(500.0, 10_000.0, 100.0),
        unit: "ms",
        help: "Sentinel's down-after-milliseconds (3 sentinels, quorum 2)",
        param: Some("down_after_ms"),
    },
    TopoOption {
        key: "latency",
        field: Field::LinkLatency,
        range: real(1.0, 500.0, 1.0),
        unit: "ms",
        help: "one-way latency of replication links (plus up to 50% jitter)",
        param: Some("link_latency_ms"),
    },
    TopoOption {
        key: "rate",
        field: Field::WriteRate,
        range: real(5.0, 500.0, 5.0),
        unit: "writes/s",
        help: "the client's write rate",
        param: Some("writes_per_sec"),
    },
    TopoOption {
        key: "wait",
        field: Field::Wait,
        range: whole(0.0, 4.0, 1.0),
        unit: "replicas",
        help: "WAIT for this many replicas after each write (0: no WAIT)",
        param: Some("wait"),
    },
    TopoOption {
        key: "minrep",
        field: Field::MinReplicas,
        range: whole(0.0, 4.0, 1.0),
        unit: "replicas",
        help: "min-replicas-to-write: the master refuses writes with fewer good replicas",
        param: None,
    },
    TopoOption {
        key: "fsync",
        field: Field::Appendfsync,
        range: Range::OneOf(FSYNC_MODES),
        unit: "",
        help: "every node's AOF fsync policy (off: no AOF, RDB snapshots only)",
        param: Some("appendfsync"),
    },
    TopoOption {
        key: "backlog",
        field: Field::Backlog,
        range: whole(16.0 * 1024.0, (64 << 20) as f64, 1024.0),
        unit: "bytes",
        help: "repl-backlog-size: a replica further behind needs a full resync",
        param: None,
    },
    TopoOption {
        key: "fotimeout",
        field: Field::FailoverTimeout,
        range: whole(1000.0, 600_000.0, 1000.0),
        unit: "ms",
        help: "failover-timeout: how long before a failed election is retried",
        param: None,
    },
    TopoOption {
        key: "lats",
        field: Field::Latencies,
        range: Range::PerNode {
            lo: 0.0,
            hi: 1000.0,
        },
        unit: "ms",
        help: "per node, the latency of its link while it is a replica (missing: the link latency)",
        param: None,
    },
    TopoOption {
        key: "prio",
        field: Field::Priorities,
        range: Range::PerNode {
            lo: 0.0,
            hi: 1000.0,
        },
        unit: "",
        help:
            "replica-priority per node (missing: 100); Sentinel never promotes 0 and prefers lower",
        param: None,
    },
];

/// A value read from an option's text.
enum Value {
    Seed(u64),
    Number(f64),
    List(Vec<f64>),
    Name(String),
}

impl TopoOption {
    /// The option with link key `key`.
    pub fn by_key(key: &str) -> Option<&'static TopoOption> {
        OPTIONS.iter().find(|o| o.key == key)
    }

    /// The option the scenario calls `param`.
    pub fn by_param(param: &str) -> Option<&'static TopoOption> {
        OPTIONS.iter().find(|o| o.param == Some(param))
    }

    /// Its text in a link.
    pub fn text(&self, o: &TopoOptions) -> String {
        let list = |v: Vec<f64>| v.into_iter().map(fmt_num).collect::<Vec<_>>().join(",");
        match self.field {
            Field::Seed => o.seed.to_string(),
            Field::Replicas => o.replicas.to_string(),
            Field::Sentinels => o.sentinels.to_string(),
            Field::Quorum => o.quorum.to_string(),
            Field::DownAfter => o.down_after_ms.to_string(),
            Field::LinkLatency => fmt_num(o.link_latency_ms),
            Field::WriteRate => fmt_num(o.writes_per_sec),
            Field::Wait => o.wait.to_string(),
            Field::MinReplicas => o.min_replicas_to_write.to_string(),
            Field::Appendfsync => o.appendfsync.clone(),
            Field::Backlog => o.repl_backlog_size.to_string(),
            Field::FailoverTimeout => o.failover_timeout_ms.to_string(),
            Field::Latencies => list(o.latencies_ms.clone()),
            Field::Priorities => o
                .priorities
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// Reads `v` as this option's range allows, or says why not.
    fn parse(&self, v: &str) -> Result<Value, String> {
        let key = self.key;
        let in_range = |x: &str, lo: f64, hi: f64| {
            x.parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && (lo..=hi).contains(n))
        };
        match self.range {
            Range::Seed => parse_seed(v)
                .map(Value::Seed)
                .ok_or(format!("{key} '{v}' is not a number")),
            Range::Number {
                lo,
                hi,
                whole: true,
                ..
            } => match v.parse::<i64>() {
                Ok(n) if (lo..=hi).contains(&(n as f64)) => Ok(Value::Number(n as f64)),
                _ => Err(format!(
                    "{key} '{v}' is not a whole number in {}..={}",
                    fmt_num(lo),
                    fmt_num(hi)
                )),
            },
            Range::Number { lo, hi, .. } => in_range(v, lo, hi).map(Value::Number).ok_or(format!(
                "{key} '{v}' is not a number in {}..={}",
                fmt_num(lo),
                fmt_num(hi)
            )),
            Range::PerNode { lo, hi } => v
                .split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(|x| {
                    in_range(x, lo, hi).ok_or(format!(
                        "{key} '{v}': '{x}' is not a number in {}..={}",
                        fmt_num(lo),
                        fmt_num(hi)
                    ))
                })
                .collect::<Result<Vec<f64>, String>>()
                .map(Value::List),
            Range::OneOf(names) if names.contains(&v) => Ok(Value::Name(v.to_string())),
            Range::OneOf(names) => Err(format!("{key} '{v}' is not one of {}", names.join("|"))),
        }
    }

    /// Stores a value read by [`TopoOption::parse`] (in range, so the casts keep it).
    fn store(&self, o: &mut TopoOptions, v: Value) {
        let n = |v: &Value| match v {
            Value::Number(n) => *n,
            _ => 0.0,
        };
        match (self.field, v) {
            (Field::Seed, Value::Seed(s)) => o.seed = s,
            (Field::Appendfsync, Value::Name(m)) => o.appendfsync = m,
            (Field::Latencies, Value::List(l)) => o.latencies_ms = l,
            (Field::Priorities, Value::List(l)) => {
                o.priorities = l.into_iter().map(|p| p as i64).collect()
            }
            (Field::Replicas, v) => o.replicas = n(&v) as usize,
            (Field::Sentinels, v) => o.sentinels = n(&v) as usize,
            (Field::Quorum, v) => o.quorum = n(&v) as usize,
            (Field::DownAfter, v) => o.down_after_ms = n(&v) as u64,
            (Field::LinkLatency, v) => o.link_latency_ms = n(&v),
            (Field::WriteRate, v) => o.writes_per_sec = n(&v),
            (Field::Wait, v) => o.wait = n(&v) as i64,
            (Field::MinReplicas, v) => o.min_replicas_to_write = n(&v) as i64,
            (Field::Backlog, v) => o.repl_backlog_size = n(&v) as u64,
            (Field::FailoverTimeout, v) => o.failover_timeout_ms = n(&v) as u64,
            _ => {}
        }
    }

    /// The scenario's parameter for this option: its name, the option's
    /// default, range, unit and help.
    pub fn param_spec(&self) -> Option<ParamSpec> {
        let name = self.param?;
        let d = TopoOptions::default();
        Some(match self.range {
            Range::OneOf(names) => {
                let default = names.iter().position(|n| *n == self.text(&d)).unwrap_or(0);
                ParamSpec::choice(name, default, names, self.help)
            }
            Range::Number { lo, hi, step, .. } => {
                let default = self.text(&d).parse().unwrap_or(lo);
                ParamSpec::num(name, default, (lo, hi, step), self.unit, self.help)
            }
            Range::Seed | Range::PerNode { .. } => return None,
        })
    }

    /// Sets the option from its scenario parameter's value (a choice's
    /// index, a number; whole options round it).
    pub fn set_param(&self, o: &mut TopoOptions, v: f64) {
        let value = match self.range {
            Range::OneOf(names) => {
                Value::Name(names[(v.max(0.0).round() as usize).min(names.len() - 1)].into())
            }
            Range::Number { whole: true, .. } => Value::Number(v.max(0.0).round()),
            _ => Value::Number(v),
        };
        self.store(o, value);
    }
}

/// Sets option `key` from its URL text. `Ok(false)` means `key` is not an
/// option (other query keys such as `cmd` or `tab` are left alone).
pub fn set_option(o: &mut TopoOptions, key: &str, v: &str) -> Result<bool, String> {
    let Some(opt) = TopoOption::by_key(key) else {
        return Ok(false);
    };
    let v = opt.parse(v.trim())?;
    opt.store(o, v);
    Ok(true)
}

/// The options that differ from the defaults, as `&key=value` pairs (the
/// seed is left to the caller, which puts it first).
pub fn options_query(o: &TopoOptions) -> String {
    let d = TopoOptions::default();
    let mut q = String::new();
    for opt in OPTIONS.iter().filter(|opt| opt.field != Field::Seed) {
        let v = opt.text(o);
        if v != opt.text(&d) {
            let _ = write!(q, "&{}={}", opt.key, encode_component(&v));
        }
    }
    q
}

/// Percent-encodes `s` for a URL query value.
fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'~') {
            out.push(c as char);
        } else {
            let _ = write!(out, "%{c:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads a query the way a page does (`+` and `%XX` decoded).
    fn read(q: &str) -> (TopoOptions, Vec<String>) {
        let mut o = TopoOptions::default();
        let mut problems = Vec::new();
        for pair in q.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = v.replace("%2C", ",");
            if let Err(e) = set_option(&mut o, k, &v) {
                problems.push(e);
            }
        }
        (o, problems)
    }

    #[test]
    fn every_option_survives_a_link_and_defaults_stay_out() {
        let all = TopoOptions::all_changed();
        let q = options_query(&all);
        assert!(q.contains("&lats=20%2C2%2C80"), "{q}");
        let (back, problems) = read(&q);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(back, all, "{q}");
        assert_eq!(options_query(&TopoOptions::default()), "");
        let mut o = TopoOptions::default();
        assert_eq!(set_option(&mut o, "seed", "0x10"), Ok(true));
        assert_eq!(o.seed, 16);
        assert_eq!(set_option(&mut o, "tab", "topology"), Ok(false));
    }

    #[test]
    fn bad_values_say_why() {
        let mut o = TopoOptions::default();
        let bad = [
            ("replicas", "9"),
            ("fsync", "sometimes"),
            ("latency", "x"),
            ("lats", "20,x"),
            ("seed", "abc"),
        ];
        assert_eq!(
            bad.map(|(k, v)| set_option(&mut o, k, v).unwrap_err()),
            [
                "replicas '9' is not a whole number in 1..=4",
                "fsync 'sometimes' is not one of always|everysec|no|off",
                "latency 'x' is not a number in 1..=500",
                "lats '20,x': 'x' is not a number in 0..=1000",
                "seed 'abc' is not a number",
            ]
        );
        assert_eq!(o, TopoOptions::default(), "bad values change nothing");
        assert_eq!(set_option(&mut o, "prio", " 100, 200 ,"), Ok(true));
        assert_eq!(o.priorities, vec![100, 200]);
    }

    #[test]
    fn scenario_parameters_come_from_the_table() {
        let p = TopoOption::by_param("writes_per_sec")
            .and_then(TopoOption::param_spec)
            .unwrap();
        assert_eq!(
            (p.default, p.min, p.max, p.step, p.unit),
            (50.0, 5.0, 500.0, 5.0, "writes/s")
        );
        let f = TopoOption::by_key("fsync")
            .and_then(TopoOption::param_spec)
            .unwrap();
        assert_eq!((f.name, f.default), ("appendfsync", 1.0));
        let mut o = TopoOptions::default();
        TopoOption::by_key("fsync").unwrap().set_param(&mut o, 3.0);
        assert_eq!(o.appendfsync, "off");
        TopoOption::by_key("down")
            .unwrap()
            .set_param(&mut o, 2500.4);
        assert_eq!(o.down_after_ms, 2500);
    }
}
