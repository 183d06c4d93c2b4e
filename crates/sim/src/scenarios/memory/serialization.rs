//! One object stored three ways (a JSON blob, hash fields, a compact binary blob): memory by MEMORY USAGE, bytes on the wire for a full read, a partial read and a one-field update, and what read-modify-write of a blob does to concurrent updates.

use crate::kernel::{Kernel, Micros, Redis};
use crate::outcome::{Chart, Outcome, Series};
use crate::params::Params;
use crate::scenario::Scenario;
use redsim_engine::proto::resp::{encode_request, Frame};

pub const SERIALIZATION_COST: Scenario = Scenario::new("serialization-cost", serialization_run);

const FORMATS: [&str; 3] = ["JSON string", "hash fields", "binary string"];
/// Objects stored per format; memory is their mean.
const OBJECTS: u64 = 50;
/// Round trip of the concurrent updaters.
const RTT: Micros = 300;

/// Field `i`'s name and object `id`'s value for it (`visits` is field 0, a number).
fn field(i: usize) -> String {
    if i == 0 {
        "visits".to_string()
    } else {
        format!("field{i}")
    }
}

fn value(id: u64, i: usize, len: usize) -> String {
    if i == 0 {
        return "7".to_string();
    }
    let base = format!("{id}-{i}-");
    base.chars().cycle().take(len.max(1)).collect()
}

fn to_json(vals: &[String]) -> String {
    let parts: Vec<String> = vals
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if i == 0 {
                format!("\"{}\":{v}", field(i))
            } else {
                format!("\"{}\":\"{v}\"", field(i))
            }
        })
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// The `visits` number in a JSON blob of ours.
fn json_visits(s: &str) -> i64 {
    let Some(at) = s.find("\"visits\":") else {
        return 0;
    };
    let rest = &s[at + 9..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    rest[..end].parse().unwrap_or(0)
}

fn with_json_visits(s: &str, v: i64) -> String {
    let old = json_visits(s);
    s.replacen(&format!("\"visits\":{old}"), &format!("\"visits\":{v}"), 1)
}

/// Fields by position, no names: a one-byte length (or 0xFF and two bytes) and the bytes.
fn to_binary(vals: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in vals {
        let b = v.as_bytes();
        if b.len() < 0xFF {
            out.push(b.len() as u8);
        } else {
            out.push(0xFF);
            out.extend_from_slice(&(b.len() as u16).to_le_bytes());
        }
        out.extend_from_slice(b);
    }
    out
}

fn reply_bytes(f: &Frame) -> u64 {
    let mut out = Vec::new();
    f.encode(2, &mut out);
    out.len() as u64
}

fn usage(r: &mut Redis, key: &str) -> u64 {
    match r.exec(0, "probe", &["MEMORY", "USAGE", key, "SAMPLES", "0"]) {
        Frame::Integer(n) => n.max(0) as u64,
        _ => 0,
    }
}

/// Bytes both ways of one command.
fn wire(r: &mut Redis, args: &[Vec<u8>]) -> (u64, Frame) {
    let req = encode_request(args).len() as u64;
    let reply = r.exec_bytes(0, "app", args);
    (req + reply_bytes(&reply), reply)
}

fn args(a: &[&str]) -> Vec<Vec<u8>> {
    a.iter().map(|s| s.as_bytes().to_vec()).collect()
}

struct Costs {
    memory: [f64; 3],
    full_read: [u64; 3],
    partial_read: [u64; 3],
    update: [u64; 3],
    update_trips: [u64; 3],
    encoding: String,
}

fn costs(seed: u64, fields: usize, len: usize) -> Costs {
    let mut r = Redis::new(seed, &[]);
    let mut memory = [0.0; 3];
    for id in 0..OBJECTS {
        let vals: Vec<String> = (0..fields).map(|i| value(id, i, len)).collect();
        r.exec(0, "app", &["SET", &format!("json:{id}"), &to_json(&vals)]);
        let mut h = args(&["HSET", &format!("hash:{id}")]);
        for (i, v) in vals.iter().enumerate() {
            h.push(field(i).into_bytes());
            h.push(v.clone().into_bytes());
        }
        r.exec_bytes(0, "app", &h);
        let bin = vec![
            b"SET".to_vec(),
            format!("bin:{id}").into_bytes(),
            to_binary(&vals),
        ];
        r.exec_bytes(0, "app", &bin);
        for (k, prefix) in ["json", "hash", "bin"].iter().enumerate() {
            memory[k] += usage(&mut r, &format!("{prefix}:{id}")) as f64 / OBJECTS as f64;
        }
    }
    let encoding = match r.exec(0, "probe", &["OBJECT", "ENCODING", "hash:0"]) {
        Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
        _ => String::new(),
    };
    let few: Vec<String> = (0..3.min(fields)).map(field).collect();
    let (jr, jv) = wire(&mut r, &args(&["GET", "json:0"]));
    let (hr, _) = wire(&mut r, &args(&["HGETALL", "hash:0"]));
    let (br, bv) = wire(&mut r, &args(&["GET", "bin:0"]));
    let mut hm = args(&["HMGET", "hash:0"]);
    hm.extend(few.iter().map(|f| f.as_bytes().to_vec()));
    let (hp, _) = wire(&mut r, &hm);
    // Update one field: the blobs are read, changed and written back whole.
    let blob = match &jv {
        Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        _ => String::new(),
    };
    let new_json = with_json_visits(&blob, json_visits(&blob) + 1);
    let (js, _) = wire(&mut r, &args(&["SET", "json:0", &new_json]));
    let (hu, _) = wire(&mut r, &args(&["HINCRBY", "hash:0", "visits", "1"]));
    let bin_len = match &bv {
        Frame::Bulk(b) => b.len(),
        _ => 0,
    };
    let new_bin = vec![b"SET".to_vec(), b"bin:0".to_vec(), vec![b'x'; bin_len]];
    let (bs, _) = wire(&mut r, &new_bin);
    Costs {
        memory,
        full_read: [jr, hr, br],
        partial_read: [jr, hp, br],
        update: [jr + js, hu, br + bs],
        update_trips: [2, 1, 2],
        encoding,
    }
}

/// Two clients each add 1 to `visits` `n` times at once: by GET + SET of
/// the JSON blob (`rewrite`) or by HINCRBY. Returns the final count above
/// the start.
fn concurrent(seed: u64, fields: usize, len: usize, n: u64, rewrite: bool) -> i64 {
    let mut k: Kernel<(usize, u8, String)> = Kernel::new(seed);
    let mut r = Redis::new(seed, &[]);
    let vals: Vec<String> = (0..fields).map(|i| value(0, i, len)).collect();
    r.exec(0, "setup", &["SET", "json", &to_json(&vals)]);
    r.exec(0, "setup", &["HSET", "hash", "visits", "7"]);
    let mut left = [n, n];
    k.at(0, (0, 0, String::new()));
    k.at(RTT / 3, (1, 0, String::new()));
    while let Some((c, phase, carry)) = k.next(u64::MAX) {
        let now = k.now();
        let who = format!("client{c}");
        let half = RTT / 2 + k.rng.u64(0..=RTT / 10);
        match (rewrite, phase) {
            (false, _) => {
                r.exec(now + half, &who, &["HINCRBY", "hash", "visits", "1"]);
                left[c] -= 1;
                if left[c] > 0 {
                    k.at(now + RTT, (c, 0, String::new()));
                }
            }
            (true, 0) => {
                let got = match r.exec(now + half, &who, &["GET", "json"]) {
                    Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
                    _ => String::new(),
                };
                let next = with_json_visits(&got, json_visits(&got) + 1);
                k.at(now + RTT, (c, 1, next));
            }
            (true, _) => {
                r.exec(now + half, &who, &["SET", "json", &carry]);
                left[c] -= 1;
                if left[c] > 0 {
                    k.at(now + RTT, (c, 0, String::new()));
                }
            }
        }
    }
    let end = k.now() + RTT;
    let fin = if rewrite {
        match r.exec(end, "audit", &["GET", "json"]) {
            Frame::Bulk(b) => json_visits(&String::from_utf8_lossy(&b)),
            _ => 0,
        }
    } else {
        match r.exec(end, "audit", &["HGET", "hash", "visits"]) {
            Frame::Bulk(b) => String::from_utf8_lossy(&b).parse().unwrap_or(0),
            _ => 0,
        }
    };
    fin - 7
}

fn serialization_run(p: &Params, seed: u64) -> Outcome {
    let mut o = Outcome::new("serialization-cost", seed, p);
    let fields = p.count("fields").max(1) as usize;
    let len = p.count("value_len").max(1) as usize;
    let c = costs(seed, fields, len);
    let n = 50;
    let rewrite = p.choice("update") == 1;
    let lost_blob = 2 * n as i64 - concurrent(seed, fields, len, n, true);
    let lost_hash = 2 * n as i64 - concurrent(seed, fields, len, n, false);
    for (i, f) in FORMATS.iter().enumerate() {
        o.metric(&format!("memory, {f}"), c.memory[i].round(), "bytes");
    }
    for (i, f) in FORMATS.iter().enumerate() {
        o.metric(
            &format!("one-field update on the wire, {f}"),
            c.update[i] as f64,
            "bytes",
        );
    }
    o.metric("3-field read, HMGET", c.partial_read[1] as f64, "bytes");
    o.metric(
        "3-field read, GET of the JSON",
        c.partial_read[0] as f64,
        "bytes",
    );
    o.metric("increments lost, blob rewrite", lost_blob as f64, "");
    o.metric("increments lost, HINCRBY", lost_hash as f64, "");
    let [json, hash, bin] = c.memory;
    o.check(
        "A compact binary encoding takes the least memory: no field names, no quotes",
        bin < json && bin < hash,
        format!(
            "{bin:.0} bytes binary, {json:.0} JSON, {hash:.0} hash ({})",
            c.encoding
        ),
    );
    let listpack = c.encoding == "listpack";
    o.check(
        "As a listpack the hash costs about what the JSON blob does (at most 1.25×); as a hashtable it costs more",
        if listpack { hash <= 1.25 * json } else { hash > json },
        format!("hash {hash:.0} bytes ({}) vs JSON {json:.0}", c.encoding),
    );
    let (mine, lost, trips) = if rewrite {
        (c.update[0], lost_blob, c.update_trips[0])
    } else {
        (c.update[1], lost_hash, c.update_trips[1])
    };
    let how = if rewrite {
        "rewriting the JSON blob"
    } else {
        "HINCRBY on one field"
    };
    o.check(
        &format!("Updated by {how}, one field costs one small command and no concurrent update is lost"),
        trips == 1 && lost == 0 && mine * 4 <= c.update[0].max(1) * 2,
        format!(
            "{mine} bytes in {trips} round trip(s) (blob rewrite: {} bytes in 2); {lost} of {} concurrent increments lost",
            c.update[0],
            2 * n
        ),
    );
    let cats = FORMATS;
    o.charts.push(
        Chart::bars("Memory per object (MEMORY USAGE)", "bytes", &cats)
            .with(Series::per_category("memory", c.memory)),
    );
    o.charts.push(
        Chart::bars("Bytes on the wire", "bytes", &cats)
            .with(Series::per_category(
                "full read",
                c.full_read.map(|x| x as f64),
            ))
            .with(Series::per_category(
                "3 fields",
                c.partial_read.map(|x| x as f64),
            ))
            .with(Series::per_category(
                "one-field update",
                c.update.map(|x| x as f64),
            )),
    );
    o.charts.push(
        Chart::bars(
            "Concurrent increments lost (2 clients × 50)",
            "increments",
            &["GET + SET of the blob", "HINCRBY"],
        )
        .with(Series::per_category(
            "lost",
            [lost_blob as f64, lost_hash as f64],
        )),
    );
    o.duration_us = (2 * n + 2) * RTT;
    o.note(format!(
        "{fields} fields of {len} bytes: {json:.0} bytes as JSON, {hash:.0} as a hash ({}), {bin:.0} as a positional binary blob.",
        c.encoding
    ));
    o.note(format!(
        "Changing one field of a blob means reading and writing it whole: {} bytes over two round trips, against {} bytes for HINCRBY; reading three fields is {} bytes with HMGET and {} with GET.",
        c.update[0], c.update[1], c.partial_read[1], c.partial_read[0]
    ));
    o.note(format!(
        "Two clients adding 50 each by GET and SET of the blob lost {lost_blob} increments: each wrote back a copy the other had already changed. HINCRBY lost {lost_hash}."
    ));
    o
}

#[cfg(test)]
mod tests {
    use crate::testing::{all_pass, failed, run};

    #[test]
    fn hash_fields_update_cheaply_and_safely() {
        all_pass("serialization-cost", &[]);
        all_pass("serialization-cost", &[("fields", "600")]);
        for seed in 1..=3 {
            let o = run("serialization-cost", seed, &[("update", "blob-rewrite")]);
            assert!(failed(&o, "Updated by rewriting"), "seed {seed}");
        }
    }

    #[test]
    fn blobs_round_trip() {
        let vals: Vec<String> = (0..4).map(|i| super::value(1, i, 5)).collect();
        let j = super::to_json(&vals);
        assert_eq!(super::json_visits(&j), 7);
        assert_eq!(super::json_visits(&super::with_json_visits(&j, 12)), 12);
    }
}
