//! What Redis records about its own speed: the slow log, the latency monitor's events and per-command latency histograms, and the main thread's busy time (INFO cpu).
//!
//! Durations are virtual: the time a command kept the main thread busy on
//! the engine's clock (DEBUG SLEEP, synchronous freeing, modelled work),
//! so the records are as deterministic as the rest of a run. A command the
//! model charges nothing for takes 0 µs, which the slow log logs only at
//! `slowlog-log-slower-than 0`, as Redis would for a sub-microsecond command.

pub mod sparkline;

use crate::ordmap::OrdMap;
use std::collections::VecDeque;

/// `SLOWLOG_ENTRY_MAX_ARGC`: arguments kept per entry.
const SLOWLOG_MAX_ARGC: usize = 32;
/// `SLOWLOG_ENTRY_MAX_STRING`: bytes kept per argument.
const SLOWLOG_MAX_STRING: usize = 128;
/// `LATENCY_TS_LEN`: samples kept per latency event.
pub const LATENCY_TS_LEN: usize = 160;

/// One slow log entry (`slowlogEntry`).
#[derive(Clone, Debug)]
pub struct SlowEntry {
    pub id: u64,
    /// Unix seconds when it was logged.
    pub time: i64,
    pub duration_us: u64,
    pub args: Vec<Vec<u8>>,
    pub peer: String,
    pub name: String,
}

/// One latency event's history (`latencyTimeSeries`).
#[derive(Clone, Debug, Default)]
pub struct LatencySeries {
    /// (unix seconds, ms), oldest first, at most `LATENCY_TS_LEN`.
    pub samples: VecDeque<(i64, u64)>,
    /// All-time maximum, ms.
    pub max: u64,
}

/// A command's latency histogram: counts per power-of-two bucket of
/// nanoseconds, from 1 024 ns up (what HdrHistogram's base-2 log iteration
/// from 1 024 reports).
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    pub buckets: Vec<u64>,
    pub count: u64,
}

impl Histogram {
    /// Records one duration (`updateCommandLatencyHistogram`: at least 1 ns).
    pub fn record(&mut self, ns: u64) {
        let ns = ns.max(1);
        let mut b = 0;
        while (1024u64 << b) <= ns && b < 40 {
            b += 1;
        }
        if self.buckets.len() <= b {
            self.buckets.resize(b + 1, 0);
        }
        self.buckets[b] += 1;
        self.count += 1;
    }

    /// The upper bound, in µs, of bucket `b` (`highest_equivalent_value / 1000`).
    pub fn bucket_us(b: usize) -> u64 {
        ((1024u64 << b) - 1) / 1000
    }

    /// The value at `pct` percent, in µs with fractions, as INFO latencystats
    /// prints it: the upper bound of the bucket holding that rank.
    pub fn percentile_us(&self, pct: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((pct / 100.0) * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (b, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                // The first bucket holds what the model charges nothing
                // for, recorded as 1 ns as Redis clamps it.
                return if b == 0 {
                    0.001
                } else {
                    ((1024u64 << b) - 1) as f64 / 1000.0
                };
            }
        }
        0.0
    }
}

/// The server's records about itself.
#[derive(Clone, Debug, Default)]
pub struct Observe {
    /// Newest first, as SLOWLOG GET lists them.
    pub slowlog: VecDeque<SlowEntry>,
    pub slowlog_next_id: u64,
    /// Latency monitor events by name.
    pub events: OrdMap<String, LatencySeries>,
    /// Main thread busy time so far, µs (INFO cpu).
    pub busy_us: u64,
    /// Arguments of the running command that MONITOR and the slow log show
    /// as `(redacted)` (`redactClientCommandArgument`: passwords, ACL rules).
    pub redacted: Vec<usize>,
}

impl Observe {
    /// The running command's arguments as MONITOR and the slow log show them.
    pub fn shown<'a>(&self, args: &'a [Vec<u8>]) -> std::borrow::Cow<'a, [Vec<u8>]> {
        if self.redacted.is_empty() {
            return std::borrow::Cow::Borrowed(args);
        }
        let mut v = args.to_vec();
        for &i in &self.redacted {
            if let Some(a) = v.get_mut(i) {
                *a = b"(redacted)".to_vec();
            }
        }
        std::borrow::Cow::Owned(v)
    }

    /// Whether a command of `duration_us` makes a slow log entry.
    pub fn slowlog_logs(slower_than: i64, max_len: u64, duration_us: u64) -> bool {
        slower_than >= 0 && max_len > 0 && duration_us as i64 >= slower_than
    }

    /// `slowlogPushEntryIfNeeded`.
    #[allow(clippy::too_many_arguments)]
    pub fn slowlog_push(
        &mut self,
        slower_than: i64,
        max_len: u64,
        time: i64,
        duration_us: u64,
        args: &[Vec<u8>],
        peer: &str,
        name: &str,
    ) {
        if !Observe::slowlog_logs(slower_than, max_len, duration_us) {
            return;
        }
        let argc = args.len().min(SLOWLOG_MAX_ARGC);
        let mut kept = Vec::with_capacity(argc);
        for (j, a) in args.iter().take(argc).enumerate() {
            if argc != args.len() && j == argc - 1 {
                kept.push(format!("... ({} more arguments)", args.len() - argc + 1).into_bytes());
            } else if a.len() > SLOWLOG_MAX_STRING {
                let mut s = a[..SLOWLOG_MAX_STRING].to_vec();
                s.extend_from_slice(
                    format!("... ({} more bytes)", a.len() - SLOWLOG_MAX_STRING).as_bytes(),
                );
                kept.push(s);
            } else {
                kept.push(a.clone());
            }
        }
        self.slowlog.push_front(SlowEntry {
            id: self.slowlog_next_id,
            time,
            duration_us,
            args: kept,
            peer: peer.to_string(),
            name: name.to_string(),
        });
        self.slowlog_next_id += 1;
        self.slowlog.truncate(max_len as usize);
    }

    /// `latencyAddSampleIfNeeded`: records `ms` under `event` when the
    /// monitor is on and it reaches the threshold; one sample per second
    /// (the larger one).
    pub fn latency_sample(&mut self, threshold_ms: i64, event: &str, time: i64, ms: u64) {
        if threshold_ms <= 0 || (ms as i64) < threshold_ms {
            return;
        }
        let ts = self.events.entry(event.to_string()).or_default();
        ts.max = ts.max.max(ms);
        if let Some(last) = ts.samples.back_mut() {
            if last.0 == time {
                last.1 = last.1.max(ms);
                return;
            }
        }
        ts.samples.push_back((time, ms));
        if ts.samples.len() > LATENCY_TS_LEN {
            ts.samples.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slowlog_trims_arguments_and_length() {
        let mut o = Observe::default();
        let args: Vec<Vec<u8>> = (0..40).map(|i| format!("a{i}").into_bytes()).collect();
        o.slowlog_push(0, 2, 1, 5, &args, "127.0.0.1:1", "");
        let e = &o.slowlog[0];
        assert_eq!(e.args.len(), 32);
        assert_eq!(e.args[31], b"... (9 more arguments)");
        let long = vec![vec![b'x'; 130]];
        o.slowlog_push(0, 2, 1, 5, &long, "", "");
        assert!(o.slowlog[0].args[0].ends_with(b"... (2 more bytes)"));
        o.slowlog_push(0, 2, 1, 5, &long, "", "");
        assert_eq!(o.slowlog.len(), 2);
        assert_eq!(o.slowlog[0].id, 2);
        // Below the threshold, or with the log off: nothing.
        o.slowlog_push(10, 2, 1, 5, &long, "", "");
        o.slowlog_push(-1, 2, 1, 50, &long, "", "");
        assert_eq!(o.slowlog[0].id, 2);
    }

    #[test]
    fn latency_keeps_one_sample_per_second() {
        let mut o = Observe::default();
        o.latency_sample(100, "command", 10, 150);
        o.latency_sample(100, "command", 10, 300);
        o.latency_sample(100, "command", 10, 120);
        o.latency_sample(100, "command", 11, 99);
        o.latency_sample(0, "command", 12, 500);
        let ts = &o.events["command"];
        assert_eq!(ts.samples, VecDeque::from(vec![(10, 300)]));
        assert_eq!(ts.max, 300);
    }

    #[test]
    fn histogram_buckets_are_powers_of_two() {
        let mut h = Histogram::default();
        h.record(0);
        h.record(1500);
        h.record(300_000_000);
        assert_eq!(Histogram::bucket_us(0), 1);
        assert_eq!(Histogram::bucket_us(1), 2);
        assert_eq!(h.buckets[0], 1);
        assert_eq!(h.buckets[1], 1);
        assert!(h.percentile_us(100.0) >= 300_000.0);
        assert_eq!(h.percentile_us(10.0), 0.001);
        assert_eq!(h.percentile_us(50.0), 2.047);
    }
}
