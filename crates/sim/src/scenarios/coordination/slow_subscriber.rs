//! A slow Pub/Sub subscriber: its output buffer grows until `client-output-buffer-limit pubsub` closes it, and every message queued for it, or sent while it reconnects, is lost; a fast subscriber, no limit, or a stream read at the same pace lose nothing.
//!
//! One publisher sends numbered messages at Poisson instants on one
//! channel. Two subscribers listen: a fast one that reads everything as it
//! arrives, and a slow one whose driver holds its output and reads a fixed
//! number of bytes every 10 ms ([`redsim_engine::Engine::hold_output`]), so
//! what it has not read stays in its output buffer on the server, counted
//! in Redis' 16 KB blocks. Once the buffer passes the hard limit (or stays
//! above the soft limit for longer than soft_seconds) the engine closes the
//! connection and drops the buffer; the subscriber reconnects after
//! `reconnect_ms` and subscribes again. The same load is also run with the
//! limits off and as a stream (XADD, and XREAD by the slow reader at the
//! same byte rate), for the comparisons.

use crate::kernel::{Micros, Recorder, Redis, MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use crate::seeds;
use redsim_engine::engine::ClientId;
use redsim_engine::proto::resp::Frame;

pub const SLOW_SUBSCRIBER: Scenario = Scenario::new("slow-subscriber", slow_run);

/// What one run may publish: the slowest reader (no limit) keeps most of
/// it in memory, and the browser re-runs the scenario on every change.
const MAX_TRAFFIC: f64 = 96.0 * 1024.0 * 1024.0;
const MAX_MESSAGES: f64 = 100_000.0;

/// How often the slow reader reads, and the charts sample.
const TICK: Micros = 10 * MS;
const SAMPLE: Micros = 250 * MS;
const MB: f64 = 1024.0 * 1024.0;

/// What one run is given.
#[derive(Clone)]
struct Load {
    rate: f64,
    size: usize,
    /// The slow reader's pace, bytes per second.
    read_bps: f64,
    /// `client-output-buffer-limit`'s pubsub class: hard, soft, seconds.
    limits: (u64, u64, u64),
    duration: Micros,
    reconnect: Micros,
}

/// Pub/Sub, or the same messages through a stream.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    PubSub,
    Stream,
}

/// What one run measured.
#[derive(Default)]
struct Run {
    published: u64,
    fast_got: u64,
    slow_got: u64,
    /// Messages PUBLISH counted as sent to the slow subscriber that it never read.
    dropped_in_buffer: u64,
    /// Messages published while it was not subscribed.
    missed_away: u64,
    /// (instant, omem then) of each closure.
    closures: Vec<(Micros, u64)>,
    /// When the buffer first reached the soft limit.
    soft_at: Option<Micros>,
    peak_omem: u64,
    /// (seconds, MB) of the slow subscriber's buffer (or stream backlog).
    buffer: Vec<(f64, f64)>,
    /// (seconds, messages) read by the slow reader, cumulative.
    slow_curve: Vec<(f64, f64)>,
    published_curve: Vec<(f64, f64)>,
    /// Entries the stream reader was behind at the end.
    lag_end: u64,
    /// The longest run of sequence numbers the slow subscriber never saw.
    biggest_gap: u64,
    /// The last run of sequence numbers it never saw (first, last).
    last_gap: Option<(u64, u64)>,
    diagram: Option<crate::outcome::Diagram>,
}

/// The message body: its sequence number, padded to `size` bytes.
fn body(seq: u64, size: usize) -> Vec<u8> {
    let mut b = format!("seq:{seq}:").into_bytes();
    b.resize(size.max(b.len()), b'.');
    b
}

/// The sequence number in a message frame (or a stream entry's field).
fn seq_of(payload: &[u8]) -> Option<u64> {
    let s = payload.strip_prefix(b"seq:")?;
    let end = s.iter().position(|&c| c == b':')?;
    std::str::from_utf8(&s[..end]).ok()?.parse().ok()
}

fn args(a: &[&[u8]]) -> Vec<Vec<u8>> {
    a.iter().map(|s| s.to_vec()).collect()
}

/// Counts a message the slow reader read, keeping track of gaps.
fn saw(r: &mut Run, last: &mut Option<u64>, seq: u64) {
    let gap = seq.saturating_sub(last.map_or(1, |l| l + 1));
    r.biggest_gap = r.biggest_gap.max(gap);
    if gap > 0 {
        r.last_gap = Some((seq - gap, seq - 1));
    }
    *last = Some(seq);
    r.slow_got += 1;
}

fn run_once(seed: u64, load: &Load, via: Via, record: bool) -> Run {
    let (hard, soft, secs) = load.limits;
    let limits = format!("pubsub {hard} {soft} {secs}");
    let mut redis = Redis::new(seed, &[("client-output-buffer-limit", &limits)]);
    let mut rng = fastrand::Rng::with_seed(seeds::nth(seed, 1));
    let mut rec = Recorder {
        step_cap: if record { 60 } else { 1 },
        ..Default::default()
    };
    let lp = rec.lane("publisher", "client");
    let lr = rec.lane("redis", "redis");
    let lf = rec.lane("fast subscriber", "client");
    let ls = rec.lane(
        if via == Via::Stream {
            "stream reader"
        } else {
            "slow subscriber"
        },
        "client",
    );
    let mut r = Run::default();
    let publisher = redis.connect("publisher");
    let fast = redis.connect("fast");
    let mut slow: Option<ClientId> = None;
    let mut back_at: Option<Micros> = Some(0);
    let mut last_seen: Option<u64> = None;
    let mut stream_last = b"0-0".to_vec();
    // Bytes of reading the slow reader may still spend (its socket's pace).
    let mut credit = 0.0f64;
    // What one message is on the wire (`*3`, `message`, `events`, the body):
    // the stream reader reads entries at the same pace in messages.
    let entry_bytes = (34 + load.size.to_string().len() + load.size) as f64;
    if via == Via::PubSub {
        redis.execute(0, fast, &args(&[b"SUBSCRIBE", b"events"]));
    }
    let gap = |rng: &mut fastrand::Rng| {
        let g = -(1.0 - rng.f64()).ln() / load.rate * SEC as f64;
        (g as Micros).max(1)
    };
    let mut next_pub = gap(&mut rng);
    let mut next_tick = TICK;
    let mut next_sample = 0;
    let mut marked_soft = false;
    // After a closure: the first sequence number the subscriber missed.
    let mut gap_from = 0u64;
    loop {
        let now = next_pub.min(next_tick);
        if now > load.duration {
            break;
        }
        if let Some(t) = back_at.filter(|&t| t <= now) {
            back_at = None;
            let id = redis.connect("slow");
            if via == Via::PubSub {
                redis.execute(t.max(1), id, &args(&[b"SUBSCRIBE", b"events"]));
                redis.engine_mut().hold_output(id, true);
            }
            if t > 0 {
                rec.msg(now, now, ls, lr, "reconnect, SUBSCRIBE events");
            }
            slow = Some(id);
        }
        if now == next_pub {
            r.published += 1;
            let seq = r.published;
            // A stream entry carries only the number: what it shows (no
            // loss) does not depend on the payload, which would only cost memory.
            let msg = match via {
                Via::PubSub => body(seq, load.size),
                Via::Stream => body(seq, 0),
            };
            let reply = match via {
                Via::PubSub => redis.execute(now, publisher, &args(&[b"PUBLISH", b"events", &msg])),
                Via::Stream => redis.execute(
                    now,
                    publisher,
                    &args(&[b"XADD", b"events", b"*", b"seq", &msg]),
                ),
            };
            if via == Via::PubSub {
                let receivers = match reply {
                    Frame::Integer(n) => n,
                    _ => 0,
                };
                if receivers < 2 {
                    r.missed_away += 1;
                }
                if seq <= 2 {
                    rec.msg(now, now, lp, lr, format!("PUBLISH events seq:{seq}"));
                    rec.msg(
                        now,
                        now,
                        lr,
                        lp,
                        format!("{receivers} (receivers, not readers)"),
                    );
                }
                for (id, _) in redis.take_unblocked(now) {
                    if id == fast {
                        r.fast_got += 1;
                        if seq <= 2 {
                            rec.msg(now, now, lr, lf, format!("message seq:{seq}"));
                            rec.local(
                                now,
                                now,
                                lr,
                                format!("seq:{seq} queued in the slow subscriber's output buffer"),
                            );
                        }
                    }
                }
                for (id, info) in redis.engine_mut().take_output_closures() {
                    if Some(id) == slow {
                        r.closures.push((now, info.omem));
                        redis.engine_mut().take_killed();
                        slow = None;
                        back_at = Some(now + load.reconnect);
                        let why = if hard > 0 && info.omem >= hard {
                            "over the hard limit".to_string()
                        } else {
                            format!("over the soft limit for more than {secs} s")
                        };
                        rec.mark(
                            now,
                            ls,
                            "bad",
                            format!(
                                "Closed by client-output-buffer-limit: omem {:.1} MB, {why}; {} queued messages dropped. PUBLISH had counted each as delivered.",
                                info.omem as f64 / MB,
                                (info.pending as f64 / entry_bytes).round()
                            ),
                        );
                        rec.local(now, now, lr, "close the slow subscriber (freeClientAsync)");
                        rec.msg(now, now, lr, ls, "connection closed").failed();
                        gap_from = last_seen.map_or(1, |l| l + 1);
                    }
                }
            }
            next_pub = now + gap(&mut rng);
        } else {
            next_tick = now + TICK;
            credit += load.read_bps * TICK as f64 / SEC as f64;
            match (via, slow) {
                (Via::PubSub, Some(id)) => {
                    let want = credit.floor() as usize;
                    let e = redis.engine_mut();
                    let before = e.output_info(id).pending as usize;
                    let frames = e.read_output(id, want);
                    credit -= want.min(before) as f64;
                    if before < want {
                        credit = 0.0;
                    }
                    let first_read = r.slow_got == 0;
                    for f in frames {
                        if let Frame::Push(v) | Frame::Array(v) = &f {
                            if let Some(Frame::Bulk(p)) = v.get(2) {
                                if let Some(s) = seq_of(p) {
                                    saw(&mut r, &mut last_seen, s);
                                }
                            }
                        }
                    }
                    if first_read && r.slow_got > 0 {
                        rec.msg(
                            now,
                            now,
                            lr,
                            ls,
                            format!(
                                "reads {} messages (up to seq:{})",
                                r.slow_got,
                                last_seen.unwrap_or(0)
                            ),
                        );
                    }
                    if gap_from > 0 && last_seen.is_some_and(|l| l >= gap_from) {
                        if let Some((from, to)) = r.last_gap.filter(|g| g.0 == gap_from) {
                            rec.msg(now, now, lr, ls, format!("message seq:{}", to + 1));
                            rec.mark(
                                now,
                                ls,
                                "bad",
                                format!(
                                    "The first message it reads after reconnecting is seq:{}: seq {from} to {to} never arrive, and nothing says so but the gap.",
                                    to + 1
                                ),
                            );
                        }
                        gap_from = 0;
                    }
                    let info = redis.engine_mut().output_info(id);
                    r.peak_omem = r.peak_omem.max(info.omem);
                    if soft > 0 && info.omem >= soft && r.soft_at.is_none() {
                        r.soft_at = Some(now);
                    }
                    if !marked_soft && soft > 0 && info.omem >= soft {
                        marked_soft = true;
                        rec.mark(
                            now,
                            lr,
                            "info",
                            format!(
                                "The slow subscriber's buffer passes the soft limit ({:.0} MB).",
                                soft as f64 / MB
                            ),
                        );
                    }
                }
                (Via::Stream, Some(id)) => {
                    let n = (credit / entry_bytes).floor() as u64;
                    if n > 0 {
                        let count = n.to_string();
                        let reply = redis.execute(
                            now,
                            id,
                            &args(&[
                                b"XREAD",
                                b"COUNT",
                                count.as_bytes(),
                                b"STREAMS",
                                b"events",
                                &stream_last,
                            ]),
                        );
                        let got = stream_entries(&reply);
                        credit -= got.len() as f64 * entry_bytes;
                        if (got.len() as u64) < n {
                            credit = 0.0;
                        }
                        for (id, s) in got {
                            stream_last = id;
                            saw(&mut r, &mut last_seen, s);
                        }
                    }
                }
                _ => {
                    credit = 0.0;
                }
            }
            // A cron tick may have closed it (the soft limit's clock).
            if via == Via::PubSub {
                redis.sync(now);
                for (id, info) in redis.engine_mut().take_output_closures() {
                    if Some(id) == slow {
                        r.closures.push((now, info.omem));
                        redis.engine_mut().take_killed();
                        slow = None;
                        back_at = Some(now + load.reconnect);
                        rec.mark(
                            now,
                            ls,
                            "bad",
                            format!(
                                "Closed by the cron: omem {:.1} MB stayed over the soft limit for more than {secs} s.",
                                info.omem as f64 / MB
                            ),
                        );
                    }
                }
            }
        }
        if now >= next_sample {
            next_sample += SAMPLE;
            let t = now as f64 / SEC as f64;
            let held = match (via, slow) {
                (Via::PubSub, Some(id)) => redis.engine().output_info(id).omem as f64,
                (Via::Stream, _) => (r.published - r.slow_got) as f64 * entry_bytes,
                _ => 0.0,
            };
            r.buffer.push((t, held / MB));
            r.slow_curve.push((t, r.slow_got as f64));
            r.published_curve.push((t, r.published as f64));
        }
    }
    if via == Via::PubSub {
        // Whatever is still queued at the end is not lost: it is on its way.
        if let Some(id) = slow {
            for f in redis.engine_mut().read_output(id, usize::MAX) {
                if let Frame::Push(v) | Frame::Array(v) = &f {
                    if let Some(Frame::Bulk(p)) = v.get(2) {
                        if let Some(s) = seq_of(p) {
                            saw(&mut r, &mut last_seen, s);
                        }
                    }
                }
            }
        }
        let delivered = r.published - r.missed_away;
        r.dropped_in_buffer = delivered.saturating_sub(r.slow_got);
    } else {
        r.lag_end = r.published - r.slow_got;
    }
    if record {
        r.diagram = Some(rec.take_diagram());
    }
    r
}

/// (ID, sequence number) of every entry in an XREAD reply.
fn stream_entries(reply: &Frame) -> Vec<(Vec<u8>, u64)> {
    let mut out = Vec::new();
    let streams = match reply {
        Frame::Array(v) => v.clone(),
        Frame::Map(m) => m.iter().map(|(_, v)| v.clone()).collect(),
        _ => return out,
    };
    for s in streams {
        let entries = match &s {
            Frame::Array(pair) if pair.len() == 2 => pair[1].clone(),
            other => other.clone(),
        };
        if let Frame::Array(es) = entries {
            for e in es {
                if let Frame::Array(parts) = &e {
                    if let (Some(Frame::Bulk(id)), Some(Frame::Array(fields))) =
                        (parts.first(), parts.get(1))
                    {
                        if let Some(Frame::Bulk(p)) = fields.get(1) {
                            if let Some(seq) = seq_of(p) {
                                out.push((id.clone(), seq));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn slow_run(p: &Params, seed: u64) -> Outcome {
    let mb = |name: &str| (p.get(name) * MB) as u64;
    let rate = p.get("rate").max(1.0);
    let size = p.count("size").max(16) as usize;
    let wire = (34 + size.to_string().len() + size) as f64;
    let asked = p.count("duration_s").max(1) as f64;
    let fits = (MAX_TRAFFIC / (rate * wire))
        .min(MAX_MESSAGES / rate)
        .max(0.1);
    let load = Load {
        rate,
        size,
        read_bps: p.get("read_kb_s") * 1024.0,
        limits: (mb("hard_mb"), mb("soft_mb"), p.count("soft_s")),
        duration: (asked.min(fits) * SEC as f64) as Micros,
        reconnect: p.count("reconnect_ms") * MS,
    };
    let mut main = run_once(seed, &load, Via::PubSub, true);
    let unlimited = run_once(
        seed,
        &Load {
            limits: (0, 0, 0),
            ..load.clone()
        },
        Via::PubSub,
        false,
    );
    let stream = run_once(seed, &load, Via::Stream, false);
    let lost = main.published - main.slow_got;
    let in_mb = load.rate * wire / MB;

    let mut out = Outcome::new("slow-subscriber", seed, p);
    out.duration_us = load.duration;
    let first = main.closures.first().copied();
    out.metric("messages published", main.published as f64, "messages")
        .metric("fast subscriber received", main.fast_got as f64, "messages")
        .metric("slow subscriber received", main.slow_got as f64, "messages")
        .metric("slow subscriber lost", lost as f64, "messages")
        .metric(
            "lost from its dropped buffer (PUBLISH counted them)",
            main.dropped_in_buffer as f64,
            "messages",
        )
        .metric(
            "lost while it reconnected",
            main.missed_away as f64,
            "messages",
        )
        .metric(
            "disconnections by the output buffer limit",
            main.closures.len() as f64,
            "closures",
        )
        .metric(
            "time to the first disconnection",
            first.map_or(0.0, |(t, _)| t as f64 / SEC as f64),
            "s",
        )
        .metric(
            "peak output buffer",
            main.peak_omem.max(first.map_or(0, |c| c.1)) as f64 / MB,
            "MB",
        )
        .metric(
            "incoming vs read rate",
            in_mb / (load.read_bps / MB).max(1e-9),
            "×",
        )
        .metric(
            "no limit: peak output buffer",
            unlimited.peak_omem as f64 / MB,
            "MB",
        )
        .metric(
            "stream reader: entries behind at the end",
            stream.lag_end as f64,
            "entries",
        );
    out.check(
        "A subscriber that reads slower than messages arrive is disconnected by client-output-buffer-limit",
        !main.closures.is_empty(),
        match first {
            Some((t, omem)) => format!(
                "closed at {:.1} s with {:.1} MB queued ({} closures)",
                t as f64 / SEC as f64,
                omem as f64 / MB,
                main.closures.len()
            ),
            None => format!(
                "never closed; its buffer peaked at {:.1} MB",
                main.peak_omem as f64 / MB
            ),
        },
    );
    out.check(
        "It loses messages silently: those queued in its dropped buffer (PUBLISH had counted them as sent) and those sent while it reconnected",
        main.dropped_in_buffer > 0 && main.missed_away > 0,
        format!(
            "{} dropped from the buffer, {} sent while away, {} at most in one gap",
            main.dropped_in_buffer, main.missed_away, main.biggest_gap
        ),
    );
    out.check(
        "The fast subscriber on the same channel receives every message",
        main.fast_got == main.published,
        format!("{} of {}", main.fast_got, main.published),
    );
    out.check(
        "With the limit switched off nothing is lost, but the server holds the backlog in the buffer",
        unlimited.slow_got == unlimited.published
            && unlimited.closures.is_empty()
            && unlimited.peak_omem > main.peak_omem.max(first.map_or(0, |c| c.1)),
        format!(
            "{} of {} received; buffer peaked at {:.1} MB",
            unlimited.slow_got,
            unlimited.published,
            unlimited.peak_omem as f64 / MB
        ),
    );
    out.check(
        "A stream read at the same pace loses nothing: the backlog waits in the stream",
        stream.slow_got + stream.lag_end == stream.published && stream.biggest_gap == 0,
        format!(
            "{} read, {} still to read, no gap in sequence numbers",
            stream.slow_got, stream.lag_end
        ),
    );
    let limit_line = |name: &str, v: u64| {
        Series::new(
            name,
            vec![
                (0.0, v as f64 / MB),
                (load.duration as f64 / SEC as f64, v as f64 / MB),
            ],
        )
    };
    let mut buf_chart = Chart::line(
        "The slow subscriber's output buffer (omem)",
        "time (s)",
        "MB",
    )
    .with(Series::new("omem, limits as set", main.buffer.clone()))
    .with(Series::new("omem, no limit", unlimited.buffer.clone()))
    .with(Series::new(
        "stream backlog (entries × message size)",
        stream.buffer.clone(),
    ));
    if load.limits.0 > 0 {
        buf_chart = buf_chart.with(limit_line("hard limit", load.limits.0));
    }
    if load.limits.1 > 0 {
        buf_chart = buf_chart.with(limit_line("soft limit", load.limits.1));
    }
    out.charts.push(buf_chart);
    out.charts.push(
        Chart::line("Messages read", "time (s)", "messages")
            .with(Series::new("published", main.published_curve.clone()))
            .with(Series::new("slow subscriber", main.slow_curve.clone()))
            .with(Series::new("stream reader", stream.slow_curve.clone())),
    );
    out.note(format!(
        "Messages arrive at {:.2} MB/s and the slow subscriber reads {:.2} MB/s: its buffer grows by {:.2} MB/s.",
        in_mb,
        load.read_bps / MB,
        (in_mb - load.read_bps / MB).max(0.0)
    ));
    if asked > fits {
        out.note(format!(
            "Simulated time cut to {fits:.1} s: a run publishes at most {} MB and {} messages.",
            MAX_TRAFFIC / MB,
            MAX_MESSAGES
        ));
    }
    if let Some(t) = main.soft_at {
        out.note(format!(
            "It passed the soft limit at {:.1} s.",
            t as f64 / SEC as f64
        ));
    }
    out.note(format!(
        "{lost} of {} messages never reached it; PUBLISH answered 2 receivers for {} of them. Nothing tells the publisher or the subscriber which ones: only gaps in the sequence numbers the messages carry.",
        main.published, main.dropped_in_buffer
    ));
    out.note(
        "Sharded Pub/Sub (SSUBSCRIBE/SPUBLISH) in a cluster spreads channels over the shards that own their slots, so each shard carries part of the traffic; a subscriber's connection to one shard still has its own output buffer and the same limit, so a slow reader of a busy shard channel is cut off the same way. Not simulated here.",
    );
    out.diagram = main.diagram.take();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{all_pass, failed, metric, run};

    #[test]
    fn slow_subscriber_defaults_pass_for_three_seeds() {
        for o in all_pass(&SLOW_SUBSCRIBER, &[]) {
            assert!(metric(&o, "slow subscriber lost") > 1000.0);
            let t = metric(&o, "time to the first disconnection");
            // 2 MB/s in, 1 MB/s out: about 32 s to the 32 MB hard limit.
            assert!((25.0..40.0).contains(&t), "{t}");
            assert!(metric(&o, "peak output buffer") >= 32.0);
        }
    }

    #[test]
    fn switching_the_protection_off_or_reading_fast_enough_refutes_the_loss() {
        let off = run(&SLOW_SUBSCRIBER, 1, &[("hard_mb", "0"), ("soft_mb", "0")]);
        assert!(failed(&off, "A subscriber that reads slower"));
        assert!(failed(&off, "It loses messages"));
        assert_eq!(metric(&off, "slow subscriber lost"), 0.0);
        let fast = run(&SLOW_SUBSCRIBER, 1, &[("read_kb_s", "4096")]);
        assert!(failed(&fast, "A subscriber that reads slower"));
        assert_eq!(metric(&fast, "slow subscriber lost"), 0.0);
        let raised = run(&SLOW_SUBSCRIBER, 1, &[("hard_mb", "256"), ("soft_mb", "0")]);
        assert_eq!(metric(&raised, "slow subscriber lost"), 0.0);
    }

    #[test]
    fn the_soft_limit_alone_closes_after_its_seconds() {
        let o = run(
            &SLOW_SUBSCRIBER,
            2,
            &[("hard_mb", "0"), ("soft_mb", "4"), ("soft_s", "5")],
        );
        let t = metric(&o, "time to the first disconnection");
        // 1 MB/s of growth reaches 4 MB after about 4 s; closed 5-6 s later.
        assert!((8.0..12.0).contains(&t), "{t}");
    }

    #[test]
    fn the_largest_loads_are_cut_to_a_bounded_run() {
        let o = run(
            &SLOW_SUBSCRIBER,
            1,
            &[("size", "65536"), ("rate", "5000"), ("duration_s", "300")],
        );
        assert!(metric(&o, "messages published") * 65536.0 <= MAX_TRAFFIC * 1.05);
        assert!(o.notes.iter().any(|n| n.starts_with("Simulated time cut")));
        let o = run(
            &SLOW_SUBSCRIBER,
            1,
            &[("size", "64"), ("rate", "5000"), ("duration_s", "300")],
        );
        assert!(metric(&o, "messages published") <= MAX_MESSAGES * 1.05);
    }

    #[test]
    fn runs_are_deterministic() {
        let a = serde_json::to_string(&run(&SLOW_SUBSCRIBER, 9, &[])).unwrap();
        let b = serde_json::to_string(&run(&SLOW_SUBSCRIBER, 9, &[])).unwrap();
        assert_eq!(a, b);
    }
}
