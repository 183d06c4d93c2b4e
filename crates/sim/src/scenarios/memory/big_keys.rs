//! Big keys: reading a huge collection whole (HGETALL, LRANGE 0 -1, SMEMBERS) holds Redis' only thread and every other client waits; split into parts, the same read never blocks anyone for long, and the memory spreads over a cluster's nodes.
//!
//! The stall is the engine's CPU cost model (`redsim_engine::cost`): a
//! command's reply elements cost virtual time, so the engine's clock jumps
//! by the read's running time and a GET that arrives meanwhile runs after
//! it. The scenario only schedules clients and reads the clock. The
//! `--bigkeys`/`--memkeys` table is a SCAN over the keyspace with TYPE,
//! the type's length command and MEMORY USAGE, as redis-cli does it; the
//! cluster's memory per node sums MEMORY USAGE over the keys whose slot
//! (CRC16) falls in each of three even slot ranges, the layout
//! `redis-cli --cluster create` gives three masters.

use crate::kernel::{Dist, Kernel, Latencies, Micros, Redis, MS, SEC};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::proto::resp::Frame;

pub const BIG_KEYS: Scenario = Scenario::new("big-keys", bk_run);

/// When the application reads the whole object, after the load; how long
/// the readers run after that.
const READ_AT: Micros = 200 * MS;
const RUN_FOR: Micros = 1200 * MS;
/// One-way network delay between clients and Redis.
const NET: Dist = Dist::jittered(100, 50);
/// Background keys: strings, small hashes, lists and sets of other users.
const BG_STRINGS: u64 = 2_000;
const BG_COLLECTIONS: u64 = 200;
/// Masters of the cluster the memory is shown on.
const NODES: usize = 3;

/// The collection's type, its write and its whole-read command.
#[derive(Clone, Copy)]
enum Kind {
    Hash,
    List,
    Set,
}

impl Kind {
    fn of(p: &Params) -> Kind {
        match p.choice("type") {
            1 => Kind::List,
            2 => Kind::Set,
            _ => Kind::Hash,
        }
    }

    fn read(self, key: &str) -> Vec<String> {
        let v: &[&str] = match self {
            Kind::Hash => &["HGETALL", key],
            Kind::List => &["LRANGE", key, "0", "-1"],
            Kind::Set => &["SMEMBERS", key],
        };
        v.iter().map(|s| s.to_string()).collect()
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Hash => "HGETALL",
            Kind::List => "LRANGE 0 -1",
            Kind::Set => "SMEMBERS",
        }
    }

    /// Writes elements `from..to` to `key`, 1,000 per command.
    fn fill(self, r: &mut Redis, key: &str, from: u64, to: u64) {
        let mut next = from;
        while next < to {
            let n = (to - next).min(1_000);
            let mut a: Vec<Vec<u8>> = vec![
                match self {
                    Kind::Hash => b"HSET".to_vec(),
                    Kind::List => b"RPUSH".to_vec(),
                    Kind::Set => b"SADD".to_vec(),
                },
                key.as_bytes().to_vec(),
            ];
            for i in next..next + n {
                a.push(format!("item:{i}").into_bytes());
                if let Kind::Hash = self {
                    a.push(format!("value:{i}").into_bytes());
                }
            }
            r.exec_bytes(0, "loader", &a);
            next += n;
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// Reader `c` sends a GET.
    Send(usize),
    /// A GET reaches Redis: reader, send time.
    Arrive(usize, Micros),
    /// The application's read of part `i` reaches Redis.
    Read(u64),
}

/// One run: the object stored whole (`parts` 1) or split.
struct Run {
    lat: Latencies,
    /// The longest busy time of one of the application's reads.
    busy: Micros,
    /// From the first read sent to the last reply.
    whole_read: Micros,
    /// Largest node's memory over the mean of the three.
    skew: f64,
    node_bytes: [u64; NODES],
    scan: BigKeys,
}

/// What a `--bigkeys`/`--memkeys` pass found.
#[derive(Default)]
struct BigKeys {
    /// Per type: (name, key, size in the type's unit).
    biggest: Vec<(&'static str, String, u64)>,
    /// The key with the most bytes (MEMORY USAGE) and them.
    memkey: (String, u64),
    keys: u64,
    /// The longest busy time of one SCAN step.
    step: Micros,
}

fn load(r: &mut Redis, kind: Kind, fields: u64, parts: u64) {
    for i in 0..BG_STRINGS {
        r.exec(0, "loader", &["SET", &format!("user:{i}"), &"x".repeat(40)]);
    }
    for i in 0..BG_COLLECTIONS {
        let s = i.to_string();
        r.exec(
            0,
            "loader",
            &["HSET", &format!("session:{s}"), "a", "1", "b", "2"],
        );
        r.exec(0, "loader", &["RPUSH", &format!("feed:{s}"), "1", "2", "3"]);
        r.exec(0, "loader", &["SADD", &format!("tags:{s}"), "x", "y"]);
    }
    for part in 0..parts {
        let (from, to) = (fields * part / parts, fields * (part + 1) / parts);
        kind.fill(r, &part_key(parts, part), from, to);
    }
}

/// The key of part `i`: `obj` when whole, `obj:part:<i>` when split (no
/// hash tag, so the parts spread over the cluster).
fn part_key(parts: u64, i: u64) -> String {
    if parts == 1 {
        "obj".to_string()
    } else {
        format!("obj:part:{i}")
    }
}

fn variant(seed: u64, p: &Params, parts: u64, diagram: bool, k: &mut Kernel<Ev>) -> Run {
    let kind = Kind::of(p);
    let fields = p.count("fields").max(1);
    let parts = parts.clamp(1, fields);
    let rate = p.get("rate").max(1.0);
    let clients = p.count("clients").max(1) as usize;
    let mut r = Redis::new(seed, &[]);
    load(&mut r, kind, fields, parts);
    // Loading kept the engine busy: the run starts once it is done.
    let t0 = r.engine().now_us();
    let period = ((clients as f64 * SEC as f64 / rate) as Micros).max(1);
    for c in 0..clients {
        let phase = k.rng.u64(0..period);
        k.at(t0 + phase, Ev::Send(c));
    }
    let read_at = t0 + READ_AT;
    let first = read_at + NET.sample(&mut k.rng);
    k.at(first, Ev::Read(0));
    let lanes = diagram.then(|| {
        (
            k.rec.lane("reader 0", "client"),
            k.rec.lane("app", "client"),
            k.rec.lane("redis", "redis"),
        )
    });
    k.rec.step_cap = 40;
    let mut lat = Latencies::default();
    let (mut busy, mut last_reply) = (0, read_at);
    let window = read_at.saturating_sub(2 * MS)..read_at + 3 * MS;
    while let Some(ev) = k.next(t0 + RUN_FOR) {
        let now = k.now();
        match ev {
            Ev::Send(c) => {
                let d = NET.sample(&mut k.rng);
                k.after(d, Ev::Arrive(c, now));
                k.after(period, Ev::Send(c));
            }
            Ev::Arrive(c, sent) => {
                let key = format!("user:{}", k.rng.u64(0..BG_STRINGS));
                r.exec(now, &format!("reader{c}"), &["GET", &key]);
                // The engine's clock is past `now` while a read runs: this
                // GET ran when it ended.
                let done = r.engine().now_us().max(now);
                let back = done + NET.sample(&mut k.rng);
                lat.record(sent - t0, back - sent);
                if let Some((reader, _, redis)) = lanes.filter(|_| c == 0 && window.contains(&sent))
                {
                    k.rec.msg(sent, now, reader, redis, format!("GET {key}"));
                    let took = (back - sent) as f64 / MS as f64;
                    k.rec.msg(
                        done,
                        back,
                        redis,
                        reader,
                        format!("\"x…\" after {took:.1} ms"),
                    );
                }
            }
            Ev::Read(i) => {
                let key = part_key(parts, i);
                let cmd = kind.read(&key);
                let a: Vec<&str> = cmd.iter().map(|s| s.as_str()).collect();
                let start = r.engine().now_us().max(now);
                r.exec(now, "app", &a);
                let done = r.engine().now_us().max(start);
                busy = busy.max(done - start);
                let back = done + NET.sample(&mut k.rng);
                last_reply = back;
                if let Some((_, app, redis)) = lanes.filter(|_| i < 2) {
                    k.rec
                        .msg(now.saturating_sub(100), now, app, redis, a.join(" "));
                    k.rec.local(
                        start,
                        done,
                        redis,
                        format!(
                            "{} busy {:.1} ms",
                            kind.name(),
                            (done - start) as f64 / MS as f64
                        ),
                    );
                    k.rec.msg(
                        done,
                        back,
                        redis,
                        app,
                        format!("{} elements", fields / parts),
                    );
                }
                if i + 1 < parts {
                    // The next part is asked for when this one's reply is in.
                    let next = back + NET.sample(&mut k.rng);
                    k.at(next, Ev::Read(i + 1));
                }
            }
        }
    }
    if let Some((_, _, redis)) = lanes {
        let text = if parts == 1 {
            format!("{} of one {fields}-element key holds the only thread {:.0} ms: every GET that arrives meanwhile waits for all of it.", kind.name(), busy as f64 / MS as f64)
        } else {
            format!(
                "Each of the {parts} parts holds the thread {:.2} ms; GETs run in between.",
                busy as f64 / MS as f64
            )
        };
        k.rec.mark(
            read_at,
            redis,
            if parts == 1 { "bad" } else { "good" },
            text,
        );
    }
    let node_bytes = node_memory(&mut r, t0 + RUN_FOR);
    let mean = node_bytes.iter().sum::<u64>() as f64 / NODES as f64;
    let skew = *node_bytes.iter().max().unwrap_or(&0) as f64 / mean.max(1.0);
    let scan = bigkeys(&mut r, t0 + RUN_FOR);
    Run {
        lat,
        busy,
        whole_read: last_reply - read_at,
        skew,
        node_bytes,
        scan,
    }
}

/// Every key's MEMORY USAGE summed by the master owning its slot.
fn node_memory(r: &mut Redis, at: Micros) -> [u64; NODES] {
    let mut by = [0u64; NODES];
    for key in scan_keys(r, at, &mut 0) {
        let slot = redsim_engine::cluster::key_hash_slot(key.as_bytes()) as usize;
        let node = (slot * NODES / 16_384).min(NODES - 1);
        by[node] += int(&r.exec(at, "ops", &["MEMORY", "USAGE", &key])).max(0) as u64;
    }
    by
}

/// Every key, by SCAN COUNT 100; `step` gets the longest step's busy time.
fn scan_keys(r: &mut Redis, at: Micros, step: &mut Micros) -> Vec<String> {
    let mut keys = Vec::new();
    let mut cursor = "0".to_string();
    loop {
        let before = r.engine().now_us().max(at);
        let reply = r.exec(at, "ops", &["SCAN", &cursor, "COUNT", "100"]);
        *step = (*step).max(r.engine().now_us().max(before) - before);
        let Frame::Array(parts) = reply else { break };
        if let Some(Frame::Array(page)) = parts.get(1) {
            keys.extend(page.iter().filter_map(|f| match f {
                Frame::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
                _ => None,
            }));
        }
        match parts.first() {
            Some(Frame::Bulk(c)) if c.as_slice() != b"0" => {
                cursor = String::from_utf8_lossy(c).into_owned();
            }
            _ => break,
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

/// `redis-cli --bigkeys` and `--memkeys`: the biggest key of each type by
/// its length (bytes for strings, elements for collections) and the
/// biggest by MEMORY USAGE, found by SCAN, never by reading a value.
fn bigkeys(r: &mut Redis, at: Micros) -> BigKeys {
    let mut out = BigKeys::default();
    let keys = scan_keys(r, at, &mut out.step);
    out.keys = keys.len() as u64;
    for key in keys {
        let Frame::Simple(t) = r.exec(at, "ops", &["TYPE", &key]) else {
            continue;
        };
        let (ty, len_cmd): (&'static str, &str) = match t.as_ref() {
            "string" => ("string", "STRLEN"),
            "list" => ("list", "LLEN"),
            "hash" => ("hash", "HLEN"),
            "set" => ("set", "SCARD"),
            "zset" => ("zset", "ZCARD"),
            _ => continue,
        };
        let len = int(&r.exec(at, "ops", &[len_cmd, &key])).max(0) as u64;
        match out.biggest.iter_mut().find(|b| b.0 == ty) {
            Some(b) if b.2 >= len => {}
            Some(b) => *b = (ty, key.clone(), len),
            None => out.biggest.push((ty, key.clone(), len)),
        }
        let bytes = int(&r.exec(at, "ops", &["MEMORY", "USAGE", &key])).max(0) as u64;
        if bytes > out.memkey.1 {
            out.memkey = (key, bytes);
        }
    }
    out.biggest.sort_by_key(|b| b.0);
    out
}

fn int(f: &Frame) -> i64 {
    match f {
        Frame::Integer(n) => *n,
        _ => -1,
    }
}

fn bk_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("big-keys", seed, p);
    let kind = Kind::of(p);
    let fields = p.count("fields").max(1);
    let parts = p.count("parts").max(1);
    let mut kb: Kernel<Ev> = Kernel::new(seed);
    let big = variant(seed, p, 1, true, &mut kb);
    let mut ks: Kernel<Ev> = Kernel::new(seed);
    let split = variant(seed, p, parts, false, &mut ks);
    out.duration_us = RUN_FOR;
    let ms = |us: Micros| (us as f64 / 10.0).round() / 100.0;
    for (name, r) in [("one key", &big), ("split", &split)] {
        out.metric(&format!("{name}: read busy time"), ms(r.busy), "ms");
        out.metric(
            &format!("{name}: other clients' p99"),
            ms(r.lat.quantile(0.99)),
            "ms",
        );
        out.metric(
            &format!("{name}: other clients' max"),
            ms(r.lat.max()),
            "ms",
        );
        out.metric(&format!("{name}: whole read took"), ms(r.whole_read), "ms");
        out.metric(
            &format!("{name}: biggest node / mean"),
            (r.skew * 100.0).round() / 100.0,
            "×",
        );
    }
    for (ty, key, len) in &big.scan.biggest {
        let unit = if *ty == "string" { "bytes" } else { "elements" };
        out.metric(&format!("--bigkeys: biggest {ty}"), *len as f64, unit);
        out.note(format!(
            "--bigkeys: biggest {ty} is '{key}' with {len} {unit}."
        ));
    }
    out.metric("--memkeys: biggest key", big.scan.memkey.1 as f64, "bytes");
    out.metric("--bigkeys: longest SCAN step", ms(big.scan.step), "ms");
    out.metric("--bigkeys: keys scanned", big.scan.keys as f64, "keys");
    out.note(format!(
        "--memkeys: '{}' takes {} bytes (MEMORY USAGE); the scan visited {} keys, its longest SCAN step kept Redis busy {:.3} ms.",
        big.scan.memkey.0, big.scan.memkey.1, big.scan.keys, big.scan.step as f64 / MS as f64
    ));
    out.check(
        &format!(
            "{} of one big key stalls every other client for about its running time",
            kind.name()
        ),
        big.lat.max() * 10 >= big.busy * 9 && big.busy >= 5 * MS,
        format!(
            "read busy {:.1} ms, worst GET {:.1} ms",
            ms(big.busy),
            ms(big.lat.max())
        ),
    );
    out.check(
        "Split into parts, the same read keeps every other client's worst latency under a tenth of that stall",
        split.lat.max() * 10 < big.busy,
        format!("{parts} parts: worst GET {:.2} ms against a {:.1} ms stall", ms(split.lat.max()), ms(big.busy)),
    );
    out.check(
        "The big key makes its cluster node hold far more memory than the others; the parts spread evenly",
        big.skew >= 1.5 && split.skew < 1.25,
        format!("biggest node / mean: {:.2} whole, {:.2} split", big.skew, split.skew),
    );
    let found = big
        .scan
        .biggest
        .iter()
        .any(|(_, k, len)| k == "obj" && *len == fields)
        && big.scan.memkey.0 == "obj";
    out.check(
        "--bigkeys and --memkeys find the big key without blocking (each SCAN step well under a millisecond)",
        found && big.scan.step < MS,
        format!("biggest by bytes '{}', longest step {:.3} ms", big.scan.memkey.0, ms(big.scan.step)),
    );
    out.charts.push(
        Chart::line(
            "Other clients' worst latency per 10 ms",
            "time (s)",
            "latency (ms)",
        )
        .with(big.lat.quantile_series("one key", 1.0, 10 * MS))
        .with(
            split
                .lat
                .quantile_series(&format!("{parts} parts"), 1.0, 10 * MS),
        ),
    );
    let summary = |l: &Latencies| {
        vec![
            (0.0, ms(l.quantile(0.5))),
            (1.0, ms(l.quantile(0.99))),
            (2.0, ms(l.max())),
        ]
    };
    out.charts.push(
        Chart::bars("Latency other clients see", "ms", &["p50", "p99", "max"])
            .with(Series::new("one key", summary(&big.lat)))
            .with(Series::new(&format!("{parts} parts"), summary(&split.lat))),
    );
    let mb = |b: u64| (b as f64 / 1e4).round() / 100.0;
    out.charts.push(
        Chart::bars(
            "Memory per cluster master",
            "MB",
            &["node 1", "node 2", "node 3"],
        )
        .with(Series::per_category(
            "one key",
            big.node_bytes.iter().map(|&b| mb(b)),
        ))
        .with(Series::per_category(
            &format!("{parts} parts"),
            split.node_bytes.iter().map(|&b| mb(b)),
        )),
    );
    out.diagram = Some(kb.rec.take_diagram());
    out.note(format!(
        "{} of {fields} elements in one key kept Redis busy {:.1} ms; split into {parts} parts, each read took {:.2} ms and the worst GET {:.2} ms (the whole object still took {:.1} ms to read, in {parts} round trips).",
        kind.name(), ms(big.busy), ms(split.busy), ms(split.lat.max()), ms(split.whole_read)
    ));
    out
}

#[cfg(test)]
mod tests {
    use crate::testing::{all_pass, failed, metric as m, run};

    #[test]
    fn a_big_key_stalls_readers_and_splitting_fixes_it() {
        for o in all_pass("big-keys", &[]) {
            let busy = m(&o, "one key: read busy time");
            assert!(busy > 50.0, "HGETALL busy {busy} ms");
            assert!(m(&o, "one key: other clients' max") >= busy * 0.9);
            assert!(m(&o, "split: other clients' max") < busy / 10.0);
            assert!(m(&o, "one key: biggest node / mean") > 1.5);
            assert_eq!(m(&o, "--bigkeys: biggest hash"), 100_000.0);
            assert!(m(&o, "--bigkeys: biggest list") < 10.0);
            let d = o.diagram.as_ref().unwrap();
            assert!(d.marks.iter().any(|mk| mk.tone == "bad"));
        }
    }

    #[test]
    fn without_splitting_the_claims_fail() {
        let o = run("big-keys", 1, &[("parts", "1")]);
        assert!(failed(&o, "Split into parts"));
        assert!(failed(&o, "The big key makes"));
    }

    #[test]
    fn lists_and_sets_stall_too() {
        for ty in ["list", "set"] {
            let o = run("big-keys", 2, &[("type", ty)]);
            crate::testing::assert_passed(&o);
            let biggest = format!("--bigkeys: biggest {ty}");
            assert_eq!(m(&o, &biggest), 100_000.0, "{ty}");
        }
    }
}
