//! Random stream command sequences on both servers, compared reply by reply.

use super::*;
use redsim_tests::seeded_tests;

pub(crate) const KEYS: &[&str] = &["s1", "s2", "s3", "str"];
pub(crate) const GROUPS_R: &[&str] = &["g1", "g2"];
pub(crate) const CONSUMERS: &[&str] = &["c1", "c2", "c3"];

/// The random generator and a clock for IDs: `t` only grows, so most
/// XADDs succeed on every key, while IDs referred to by other commands
/// fall around recent ones.
pub(crate) struct Gen {
    rng: Rng,
    t: u64,
}

impl Gen {
    /// A key: mostly the first two streams, sometimes a string.
    pub(crate) fn key(&mut self) -> String {
        match self.rng.below(100) {
            0..=44 => "s1",
            45..=79 => "s2",
            80..=91 => "s3",
            _ => "str",
        }
        .to_string()
    }

    /// A recent ID (or just after the last one).
    pub(crate) fn recent(&mut self) -> String {
        let back = self.rng.below(25) as u64;
        let ms = (self.t + 2).saturating_sub(back);
        if self.rng.one_in(4) {
            format!("{ms}")
        } else {
            format!("{ms}-{}", self.rng.below(3))
        }
    }

    /// A trimming strategy (XADD, XTRIM): `MINID` and a recent ID, or
    /// `MAXLEN` and a length below `max_len`, sometimes with `~` or `=`.
    pub(crate) fn trim_strategy(&mut self, cmd: &mut Vec<String>, max_len: usize) {
        let minid = self.rng.one_in(2);
        cmd.push(if minid { "MINID" } else { "MAXLEN" }.into());
        if self.rng.one_in(2) {
            cmd.push(self.rng.pick(&["~", "="]).into());
        }
        let threshold = if minid {
            self.recent()
        } else {
            self.rng.below(max_len).to_string()
        };
        cmd.push(threshold);
    }

    /// Where a group starts (XGROUP CREATE, SETID): `$`, `0` or a recent ID.
    pub(crate) fn group_start(&mut self) -> String {
        match self.rng.below(3) {
            0 => "$".into(),
            1 => "0".into(),
            _ => self.recent(),
        }
    }

    /// Adds `ENTRIESREAD n` to `cmd` once in `one_in` times.
    pub(crate) fn maybe_entries_read(&mut self, cmd: &mut Vec<String>, one_in: usize) {
        if self.rng.one_in(one_in) {
            cmd.extend(["ENTRIESREAD".into(), self.rng.below(10).to_string()]);
        }
    }

    /// A range end: `-`, `+`, recent IDs, exclusive ones, garbage.
    pub(crate) fn range_end(&mut self) -> String {
        match self.rng.below(10) {
            0 => "-".into(),
            1 => "+".into(),
            2 => "x".into(),
            3 => format!("({}", self.recent()),
            _ => self.recent(),
        }
    }
}

/// One random command. Consumers are created first where 7.0 and 7.2
/// differ in creating them (XREADGROUP, XCLAIM, XAUTOCLAIM).
pub(crate) fn random_command(gen: &mut Gen) -> Vec<Vec<String>> {
    let key = gen.key();
    let g = gen.rng.pick(GROUPS_R).to_string();
    let c = gen.rng.pick(CONSUMERS).to_string();
    let v = |items: &[&str]| -> Vec<String> { items.iter().map(|s| s.to_string()).collect() };
    let create = v(&["XGROUP", "CREATECONSUMER", &key, &g, &c]);
    match gen.rng.below(36) {
        0..=9 => {
            let mut cmd = v(&["XADD", &key]);
            if gen.rng.one_in(8) {
                cmd.push("NOMKSTREAM".into());
            }
            if gen.rng.one_in(6) {
                gen.trim_strategy(&mut cmd, 12);
                if cmd.iter().any(|a| a == "~") && gen.rng.one_in(3) {
                    cmd.extend(["LIMIT".into(), gen.rng.below(5).to_string()]);
                }
            }
            gen.t += gen.rng.below(2) as u64;
            let t = gen.t;
            cmd.push(match gen.rng.below(10) {
                0 | 1 => format!("{t}-*"),
                2 => format!("{t}"),
                3 => gen.recent(),
                _ => format!("{t}-{}", gen.rng.below(3)),
            });
            for _ in 0..1 + gen.rng.below(2) {
                cmd.push(gen.rng.pick(&["f", "g", "h"]).into());
                cmd.push(
                    gen.rng
                        .pick(&["1", "v", "long-value-long-value", ""])
                        .into(),
                );
            }
            vec![cmd]
        }
        10 | 11 => {
            let mut cmd = v(&[gen.rng.pick(&["XRANGE", "XREVRANGE"]), &key]);
            let (a, b) = (gen.range_end(), gen.range_end());
            cmd.extend([a, b]);
            if gen.rng.one_in(2) {
                cmd.extend(["COUNT".into(), gen.rng.pick(&["0", "1", "2", "-1"]).into()]);
            }
            vec![cmd]
        }
        12 => vec![v(&["XLEN", &key])],
        13 => {
            let mut cmd = v(&["XDEL", &key]);
            for _ in 0..1 + gen.rng.below(3) {
                cmd.push(gen.recent());
            }
            vec![cmd]
        }
        14 => {
            let mut cmd = v(&["XTRIM", &key]);
            gen.trim_strategy(&mut cmd, 10);
            vec![cmd]
        }
        15 | 16 => {
            let mut cmd = v(&["XREAD"]);
            if gen.rng.one_in(2) {
                cmd.extend(["COUNT".into(), gen.rng.below(3).to_string()]);
            }
            cmd.push("STREAMS".into());
            let k2 = gen.key();
            cmd.extend([key, k2]);
            for _ in 0..2 {
                let id = match gen.rng.below(3) {
                    0 => "$".into(),
                    _ => gen.recent(),
                };
                cmd.push(id);
            }
            vec![cmd]
        }
        17..=21 => {
            let mut cmd = v(&["XREADGROUP", "GROUP", &g, &c]);
            if gen.rng.one_in(2) {
                cmd.extend(["COUNT".into(), gen.rng.below(4).to_string()]);
            }
            if gen.rng.one_in(5) {
                cmd.push("NOACK".into());
            }
            cmd.extend(["STREAMS".into(), key]);
            let id = match gen.rng.below(4) {
                0 => gen.recent(),
                1 => "0".into(),
                _ => ">".into(),
            };
            cmd.push(id);
            vec![create, cmd]
        }
        22 | 23 => {
            let mut cmd = v(&["XACK", &key, &g]);
            for _ in 0..1 + gen.rng.below(3) {
                cmd.push(gen.recent());
            }
            vec![cmd]
        }
        24 | 25 => {
            if gen.rng.one_in(2) {
                return vec![v(&["XPENDING", &key, &g])];
            }
            let mut cmd = v(&["XPENDING", &key, &g]);
            if gen.rng.one_in(4) {
                cmd.extend(["IDLE".into(), gen.rng.pick(&["0", "100000000"]).into()]);
            }
            let (a, b) = (gen.range_end(), gen.range_end());
            cmd.extend([a, b, gen.rng.below(5).to_string()]);
            if gen.rng.one_in(2) {
                cmd.push(c.clone());
            }
            vec![cmd]
        }
        26 => {
            let mut cmd = v(&["XCLAIM", &key, &g, &c, gen.rng.pick(&["0", "100000000"])]);
            for _ in 0..1 + gen.rng.below(3) {
                cmd.push(gen.recent());
            }
            for opt in ["FORCE", "JUSTID"] {
                if gen.rng.one_in(3) {
                    cmd.push(opt.into());
                }
            }
            if gen.rng.one_in(4) {
                cmd.extend(["RETRYCOUNT".into(), gen.rng.below(5).to_string()]);
            }
            if gen.rng.one_in(5) {
                let id = gen.recent();
                cmd.extend(["LASTID".into(), id]);
            }
            vec![create, cmd]
        }
        27 => {
            let start = gen.range_end();
            let mut cmd = v(&[
                "XAUTOCLAIM",
                &key,
                &g,
                &c,
                gen.rng.pick(&["0", "100000000"]),
                &start,
            ]);
            if gen.rng.one_in(2) {
                cmd.extend(["COUNT".into(), (1 + gen.rng.below(4)).to_string()]);
            }
            if gen.rng.one_in(3) {
                cmd.push("JUSTID".into());
            }
            vec![create, cmd]
        }
        28 | 29 => {
            let mut cmd = v(&["XGROUP", "CREATE", &key, &g]);
            cmd.push(gen.group_start());
            if gen.rng.one_in(2) {
                cmd.push("MKSTREAM".into());
            }
            gen.maybe_entries_read(&mut cmd, 4);
            vec![cmd]
        }
        30 => {
            let mut cmd = v(&["XGROUP", "SETID", &key, &g]);
            cmd.push(gen.group_start());
            gen.maybe_entries_read(&mut cmd, 3);
            vec![cmd]
        }
        31 => vec![match gen.rng.below(4) {
            0 => v(&["XGROUP", "DESTROY", &key, &g]),
            1 => v(&["XGROUP", "DELCONSUMER", &key, &g, &c]),
            _ => v(&["XGROUP", "CREATECONSUMER", &key, &g, &c]),
        }],
        32 => vec![match gen.rng.below(4) {
            0 => v(&["XINFO", "STREAM", &key, "FULL"]),
            1 => v(&["XINFO", "GROUPS", &key]),
            2 => v(&["XINFO", "CONSUMERS", &key, &g]),
            _ => v(&["XINFO", "STREAM", &key]),
        }],
        33 => {
            // Rare: moves the last ID ahead (and the generator's clock).
            if !gen.rng.one_in(4) {
                return vec![v(&["XINFO", "STREAM", &key])];
            }
            gen.t += 1 + gen.rng.below(3) as u64;
            let mut cmd = v(&["XSETID", &key, &gen.t.to_string()]);
            if gen.rng.one_in(3) {
                cmd.extend(["ENTRIESADDED".into(), gen.rng.below(60).to_string()]);
            }
            if gen.rng.one_in(3) {
                let id = gen.recent();
                cmd.extend(["MAXDELETEDID".into(), id]);
            }
            vec![cmd]
        }
        // String commands: a stream turned into a string stays one until
        // deleted, so deletions are the more frequent.
        34 => vec![match gen.rng.below(8) {
            0 if gen.rng.one_in(2) => v(&["SET", &key, "v"]),
            1 => v(&["SET", "str", "v"]),
            2..=4 => v(&["DEL", &key]),
            5 => v(&["TYPE", &key]),
            _ => v(&["GET", &key]),
        }],
        _ => vec![v(&["EXISTS", &key])],
    }
}

/// Thousands of random commands on both servers, replies compared with
/// times reduced to their shape. XSETID below the maximal deleted ID (a
/// 7.2-only error) is not sent.
pub(crate) fn random_stream(seed: u64, resp3: bool, steps: usize, extra: &[&str]) {
    eprintln!("random stream: seed {seed:#x}, resp3 {resp3}, {extra:?}");
    let mut p = Streams::start(extra);
    if resp3 {
        p.hello3();
    }
    let mut gen = Gen {
        rng: Rng(seed),
        t: 1,
    };
    let trace = std::env::var_os("REDSIM_STREAM_TRACE").is_some();
    let mut skipped = 0;
    let mut sent = 0;
    let mut outcomes = [0usize; 3];
    let mut errors: std::collections::BTreeMap<String, usize> = Default::default();
    let mut served = 0;
    while sent < steps {
        for cmd in random_command(&mut gen) {
            sent += 1;
            if trace {
                eprintln!("{}", cmd.join(" "));
            }
            if cmd[0] == "XSETID" && below_max_deleted(&mut p, &cmd) {
                skipped += 1;
                continue;
            }
            let args: Vec<Vec<u8>> = cmd.iter().map(|s| s.clone().into_bytes()).collect();
            let reply = p.check_with(&args, None);
            let kind = match &reply {
                Frame::Error(_) => 0,
                Frame::Null | Frame::NullArray => 1,
                Frame::Array(v) if v.is_empty() => 1,
                _ => 2,
            };
            outcomes[kind] += 1;
            if kind == 0 {
                let e = format!("{} {}", cmd[0], format_reply(&reply));
                *errors
                    .entry(e.chars().take(60).collect::<String>())
                    .or_insert(0) += 1;
            }
            if cmd[0] == "XREADGROUP" && kind == 2 {
                served += 1;
            }
        }
    }
    eprintln!("errors, empty, data: {outcomes:?}; XREADGROUP served {served}");
    if trace {
        eprintln!("{errors:#?}");
    }
    // The stream must mostly do real work, not bounce off errors.
    assert!(
        outcomes[2] > steps / 4 && served > steps / 50,
        "{outcomes:?} {served}"
    );
    assert!(
        p.compared > steps * 9 / 10,
        "{} of {steps} compared ({skipped} skipped)",
        p.compared
    );
    for key in KEYS {
        p.check(&format!("TYPE {key}"));
        p.check(&format!("XRANGE {key} - +"));
        p.check(&format!("XINFO GROUPS {key}"));
    }
}

/// True if XSETID `cmd` would set an ID below the stream's maximal deleted
/// ID, which 7.2 refuses and 7.0 accepts.
pub(crate) fn below_max_deleted(p: &mut Streams, cmd: &[String]) -> bool {
    let info = p.sim_only(&format!("XINFO STREAM {}", cmd[1]));
    let text = format_reply(&info);
    let Some(pos) = text.find("max-deleted-entry-id") else {
        return false;
    };
    let rest = &text[pos..];
    let Some(id) = rest.split('"').nth(2) else {
        return false;
    };
    let parse = |s: &str| -> (u64, u64) {
        let (a, b) = s.split_once('-').unwrap_or((s, "0"));
        (a.parse().unwrap_or(0), b.parse().unwrap_or(0))
    };
    parse(&cmd[2]) < parse(id)
}

seeded_tests! { "REDSIM_STREAM", random_stream =>
    random_commands_resp2: 0x57_0001, (false, 3000, &[]);
    random_commands_resp3_small_nodes: 0x57_0002, (true, 2500, &["--stream-node-max-entries", "3"]);
}
