//! SLOWLOG, LATENCY and MONITOR, and the bookkeeping `call` does after each command for them (slow log entry, latency sample and histogram, MONITOR lines).
//!
//! Durations are the virtual time a command kept the main thread busy
//! (see [`crate::observe`]).

use std::fmt::Write as _;

use crate::cmd::args::arg_i64;
use crate::cmd::replies::help_reply;
use crate::cmd::table::{commands, full_name, Command, Ctx, Flags};
use crate::observe::{sparkline, Histogram, Observe};
use crate::proto::resp::Frame;
use crate::server::client::Client;
use crate::server::Server;

pub(super) static SLOWLOG_SUBCOMMANDS: &[Command] = commands! { heavy; group: "server";
    "get" => slowlog_get, arity: -2, flags: [ADMIN, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.2.12",
        syntax: "SLOWLOG GET [count]", summary: "Returns the slow log's entries.";
    "len" => slowlog_len, arity: 2, flags: [ADMIN, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.2.12",
        syntax: "SLOWLOG LEN", summary: "Returns the number of entries in the slow log.";
    "reset" => slowlog_reset, arity: 2, flags: [ADMIN, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.2.12",
        syntax: "SLOWLOG RESET", summary: "Clears all entries from the slow log.";
    "help" => slowlog_help, arity: 2, flags: [LOADING, STALE], acl: [SLOW], since: "6.2.0",
        syntax: "SLOWLOG HELP", summary: "Show helpful text about the different subcommands";
};

pub(super) static LATENCY_SUBCOMMANDS: &[Command] = commands! { heavy; group: "server";
    "latest" => latency_latest, arity: 2, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.8.13",
        syntax: "LATENCY LATEST", summary: "Returns the latest latency samples for all events.";
    "history" => latency_history, arity: 3, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.8.13",
        syntax: "LATENCY HISTORY event", summary: "Returns timestamp-latency samples for an event.";
    "reset" => latency_reset, arity: -2, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.8.13",
        syntax: "LATENCY RESET [event [event ...]]", summary: "Resets the latency data for one or more events.";
    "graph" => latency_graph, arity: 3, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.8.13",
        syntax: "LATENCY GRAPH event", summary: "Returns a latency graph for an event.";
    "doctor" => latency_doctor, arity: 2, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "2.8.13",
        syntax: "LATENCY DOCTOR", summary: "Returns a human-readable latency analysis report.";
    "histogram" => latency_histogram, arity: -2, flags: [ADMIN, NOSCRIPT, LOADING, STALE], acl: [ADMIN, SLOW, DANGEROUS], since: "7.0.0",
        syntax: "LATENCY HISTOGRAM [command [command ...]]", summary: "Returns the cumulative distribution of latencies of a subset or all commands.";
    "help" => latency_help, arity: 2, flags: [LOADING, STALE], acl: [SLOW], since: "2.8.13",
        syntax: "LATENCY HELP", summary: "Returns helpful text about the different subcommands.";
};

/// After `call` ran `cmd` for `client` in `dur_ns` of busy time: its
/// commandstats call and time, its histogram, the latency monitor's
/// sample, the slow log.
pub(crate) fn record_call(
    srv: &mut Server,
    client: &Client,
    cmd: &'static Command,
    args: &[Vec<u8>],
    dur_ns: u64,
) {
    let dur_us = dur_ns / 1000;
    let tracking = srv.config.latency_tracking;
    let stat = srv.stats.command(cmd as *const Command as usize);
    stat.calls += 1;
    stat.usec += dur_us;
    if tracking {
        stat.latency.record(dur_ns);
    }
    let now_s = srv.now_ms() / 1000;
    let event = if cmd.flags.contains(Flags::FAST) {
        "fast-command"
    } else {
        "command"
    };
    let threshold = srv.config.latency_monitor_threshold;
    srv.observe
        .latency_sample(threshold, event, now_s, dur_us / 1000);
    // EXEC is `CMD_SKIP_SLOWLOG`: the commands it ran are logged instead.
    let (slower_than, max_len) = (
        srv.config.slowlog_log_slower_than,
        srv.config.slowlog_max_len,
    );
    if cmd.name == "exec" || !Observe::slowlog_logs(slower_than, max_len, dur_us) {
        return;
    }
    let peer = srv
        .client_list
        .get(&client.id)
        .map(|e| e.addr.clone())
        .unwrap_or_default();
    let shown = srv.observe.shown(args);
    srv.observe.slowlog_push(
        slower_than,
        max_len,
        now_s,
        dur_us,
        &shown,
        &peer,
        client.name.as_deref().unwrap_or(""),
    );
}

/// `replicationFeedMonitors`: every MONITOR client hears the command as
/// `+<unix time> [<db> <addr>] "arg" ...` (`lua` for a script's commands).
/// Commands flagged `skip_monitor` or `admin` are not shown, except the
/// script runners (EVAL, EVALSHA, FCALL and their `_RO` forms), which show
/// themselves before they run (`before`) so the script's commands follow
/// them; one that is then refused (a write function under FCALL_RO) has
/// still been shown, as in Redis.
pub(crate) fn feed_monitors(
    srv: &mut Server,
    client: &Client,
    cmd: &Command,
    args: &[Vec<u8>],
    before: bool,
) {
    if srv.monitors.is_empty() {
        return;
    }
    let eval = matches!(
        cmd.name,
        "eval" | "evalsha" | "eval_ro" | "evalsha_ro" | "fcall" | "fcall_ro"
    );
    let hidden = cmd.flags.contains(Flags::SKIP_MONITOR) || cmd.flags.contains(Flags::ADMIN);
    if before != eval || (!eval && hidden) {
        return;
    }
    let from_script = srv.in_script;
    let us = srv.clock.unix_us();
    let mut line = format!("{}.{:06} ", us / 1_000_000, us % 1_000_000);
    if from_script {
        let _ = write!(line, "[{} lua] ", client.db);
    } else {
        let addr = srv
            .client_list
            .get(&client.id)
            .map(|e| e.addr.as_str())
            .unwrap_or("");
        let _ = write!(line, "[{} {}] ", client.db, addr);
    }
    for (j, a) in srv.observe.shown(args).iter().enumerate() {
        if j > 0 {
            line.push(' ');
        }
        line.push_str(&crate::proto::clifmt::quote(a));
    }
    for &m in &srv.monitors.clone() {
        crate::output::deliver(srv, m, Frame::simple(line.clone()));
    }
}

/// MONITOR: from now on this client hears every command the server runs.
pub(super) fn monitor(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if ctx.srv.blocking.deny || ctx.srv.blocking.depth > 1 {
        return Frame::err("ERR MONITOR isn't allowed for DENY BLOCKING client");
    }
    let id = ctx.client.id;
    if !ctx.srv.monitors.contains(&id) {
        ctx.srv.monitors.push(id);
    }
    Frame::ok()
}

fn slowlog_get(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let len = ctx.srv.observe.slowlog.len();
    let mut count = 10usize;
    if let Some(a) = args.get(2) {
        match arg_i64(a) {
            Ok(-1) => count = len,
            Ok(n) if n >= 0 => count = n as usize,
            _ => return Frame::err("ERR count should be greater than or equal to -1"),
        }
    }
    Frame::Array(
        ctx.srv
            .observe
            .slowlog
            .iter()
            .take(count.min(len))
            .map(|e| {
                Frame::Array(vec![
                    Frame::Integer(e.id as i64),
                    Frame::Integer(e.time),
                    Frame::Integer(e.duration_us as i64),
                    Frame::Array(e.args.iter().map(Frame::bulk).collect()),
                    Frame::bulk(e.peer.as_bytes()),
                    Frame::bulk(e.name.as_bytes()),
                ])
            })
            .collect(),
    )
}

fn slowlog_len(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Integer(ctx.srv.observe.slowlog.len() as i64)
}

fn slowlog_reset(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    ctx.srv.observe.slowlog.clear();
    Frame::ok()
}

fn slowlog_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(
        args,
        &[
            "GET [<count>]",
            "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
            "    Entries are made of:",
            "    id, timestamp, time in microseconds, arguments array, client IP and port,",
            "    client name",
            "LEN",
            "    Return the length of the slowlog.",
            "RESET",
            "    Reset the slowlog.",
        ],
    )
}

fn latency_latest(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Array(
        ctx.srv
            .observe
            .events
            .iter()
            .map(|(name, ts)| {
                let (t, ms) = ts.samples.back().copied().unwrap_or((0, 0));
                Frame::Array(vec![
                    Frame::bulk(name.as_bytes()),
                    Frame::Integer(t),
                    Frame::Integer(ms as i64),
                    Frame::Integer(ts.max as i64),
                ])
            })
            .collect(),
    )
}

fn latency_history(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let name = String::from_utf8_lossy(&args[2]);
    let Some(ts) = ctx.srv.observe.events.get(name.as_ref()) else {
        return Frame::Array(vec![]);
    };
    Frame::Array(
        ts.samples
            .iter()
            .map(|&(t, ms)| Frame::Array(vec![Frame::Integer(t), Frame::Integer(ms as i64)]))
            .collect(),
    )
}

fn latency_reset(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let events = &mut ctx.srv.observe.events;
    if args.len() == 2 {
        let n = events.len();
        events.clear();
        return Frame::Integer(n as i64);
    }
    let n = args[2..]
        .iter()
        .filter(|a| events.remove(String::from_utf8_lossy(a).as_ref()).is_some())
        .count();
    Frame::Integer(n as i64)
}

/// "3s", "2m", "1h", "4d": how long ago, as the graph labels its columns.
fn ago(elapsed: i64) -> String {
    match elapsed {
        e if e < 60 => format!("{e}s"),
        e if e < 3600 => format!("{}m", e / 60),
        e if e < 86400 => format!("{}h", e / 3600),
        e => format!("{}d", e / 86400),
    }
}

fn latency_graph(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let name = String::from_utf8_lossy(&args[2]).into_owned();
    let now_s = ctx.srv.now_ms() / 1000;
    let Some(ts) = ctx.srv.observe.events.get(&name) else {
        return Frame::err(format!("ERR No samples available for event '{name}'"));
    };
    let samples: Vec<(u64, String)> = ts
        .samples
        .iter()
        .map(|&(t, ms)| (ms, ago(now_s - t)))
        .collect();
    let high = samples.iter().map(|s| s.0).max().unwrap_or(0);
    let low = samples.iter().map(|s| s.0).min().unwrap_or(0);
    let mut out = format!(
        "{name} - high {high} ms, low {low} ms (all time high {} ms)\n",
        ts.max
    );
    out.push_str(&"-".repeat(sparkline::COLUMNS));
    out.push('\n');
    out.push_str(&sparkline::render(&samples));
    Frame::Verbatim(*b"txt", out.into_bytes())
}

/// LATENCY DOCTOR: per event, its spikes, average and worst, then what to
/// look at. Redis' advice is long; this one names the usual suspects.
fn latency_doctor(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    let events = &ctx.srv.observe.events;
    let text = if events.is_empty() {
        "Dave, no latency spike was observed during the lifetime of this Redis instance, \
         not in the slightest bit. I honestly think you ought to sleep tonight.\n"
            .to_string()
    } else {
        let mut o = String::from(
            "Dave, I have observed latency spikes in this Redis instance. \
             You don't mind talking about it, do you Dave?\n\n",
        );
        for (i, (name, ts)) in events.iter().enumerate() {
            let n = ts.samples.len() as u64;
            let avg = ts.samples.iter().map(|s| s.1).sum::<u64>() / n.max(1);
            let _ = writeln!(
                o,
                "{}. {name}: {n} latency spikes (average {avg}ms). Worst all time event {}ms.",
                i + 1,
                ts.max
            );
        }
        o.push_str(
            "\nI have a few advices for you:\n\n\
             - Check the slow log (SLOWLOG GET): commands over big collections \
             (KEYS, HGETALL, LRANGE 0 -1, SMEMBERS) block every other client.\n\
             - Deleting big values synchronously blocks too: prefer UNLINK and the \
             lazyfree-lazy-* options.\n",
        );
        o
    };
    Frame::Verbatim(*b"txt", text.into_bytes())
}

/// One command's `calls` and `histogram_usec` (`fillCommandCDF`).
fn command_cdf(h: &Histogram) -> Frame {
    let mut cum = 0;
    let mut pairs = Vec::new();
    for (b, n) in h.buckets.iter().enumerate() {
        cum += n;
        if *n > 0 {
            pairs.push((
                Frame::Integer(Histogram::bucket_us(b) as i64),
                Frame::Integer(cum as i64),
            ));
        }
    }
    Frame::Map(vec![
        (Frame::bulk("calls"), Frame::Integer(h.count as i64)),
        (Frame::bulk("histogram_usec"), Frame::Map(pairs)),
    ])
}

fn latency_histogram(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let stats = &ctx.srv.stats.commands;
    let entry = |parent: Option<&Command>, cmd: &Command| {
        stats
            .get(&(cmd as *const Command as usize))
            .filter(|s| s.latency.count > 0)
            .map(|s| (Frame::bulk(full_name(parent, cmd)), command_cdf(&s.latency)))
    };
    let mut out = Vec::new();
    if args.len() == 2 {
        for (parent, cmd) in ctx.reg.every_command() {
            out.extend(entry(parent, cmd));
        }
    } else {
        for name in &args[2..] {
            let Some((parent, cmd)) = ctx.reg.lookup_full_name(name) else {
                continue;
            };
            out.extend(entry(parent, cmd));
            for sub in cmd.subcommands {
                out.extend(entry(Some(cmd), sub));
            }
        }
    }
    Frame::Map(out)
}

fn latency_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(
        args,
        &[
            "DOCTOR",
            "    Return a human readable latency analysis report.",
            "GRAPH <event>",
            "    Return an ASCII latency graph for the <event> class.",
            "HISTORY <event>",
            "    Return time-latency samples for the <event> class.",
            "LATEST",
            "    Return the latest latency samples for all events.",
            "RESET [<event> ...]",
            "    Reset latency data of one or more <event> classes.",
            "    (default: reset all data for all event classes)",
            "HISTOGRAM [COMMAND ...]",
            "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
            "    If no commands are specified then all histograms are replied.",
        ],
    )
}
