//! Versioned writes: a Lua compare-and-set that only lets a newer version into the cache, and versioned keys (schema prefix plus an entity version key) where one INCR invalidates every derived key at once.

use super::*;
use crate::seeds;
use redsim_engine::rng::Pick;

pub const VERSIONED_WRITES: Scenario = Scenario::new("versioned-writes", vw_run);

/// Sets the hash only when the version passed is newer than the cached one.
/// KEYS[1] the cache key; ARGV: version, value, TTL in ms.
const SET_IF_NEWER: &str = "local cached = tonumber(redis.call('HGET', KEYS[1], 'ver') or '0')
if tonumber(ARGV[1]) <= cached then
  return 0
end
redis.call('HSET', KEYS[1], 'ver', ARGV[1], 'val', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1";

fn vw_run(p: &Params, seed: u64) -> Outcome {
    let mut out = Outcome::new("versioned-writes", seed, p);
    let trials = p.count("trials").max(1) as usize;
    let show = p.choice("show");
    let (mut race, lua_rejected) = vw_race(seed, trials, p_ms(p, "app_jitter"));
    let (mut keys, vk) = vw_keys(seeds::salted(seed, seeds::VERSIONED_KEYS), p);
    let pct = |n: usize| 100.0 * n as f64 / trials as f64;
    out.metric("plain SET: ended stale", pct(race.stale[0]), "%");
    out.metric("Lua compare: ended stale", pct(race.stale[1]), "%");
    out.metric(
        "older writes refused by the script",
        lua_rejected as f64,
        "writes",
    );
    out.metric(
        "stale reads after the version bump",
        vk.stale_after as f64,
        "reads",
    );
    out.metric("derived keys invalidated", vk.invalidated as f64, "keys");
    out.metric(
        "commands to invalidate",
        vk.invalidate_cmds as f64,
        "commands",
    );
    out.metric("old keys left to expire", vk.left as f64, "keys");
    out.metric("format mismatches", vk.mismatches as f64, "reads");
    out.check(
        "plain SET keeps the older value in some reordered trials; the version-compare script never does",
        race.stale[0] > 0 && race.stale[1] == 0 && lua_rejected > 0,
        format!("plain SET: {} of {trials} ended stale; Lua: {} ended stale, {lua_rejected} older writes refused", race.stale[0], race.stale[1]),
    );
    out.check(
        "after the version bump no reader gets the old row, from any of the derived keys",
        vk.bumped && vk.stale_after == 0 && vk.reads_after > 0,
        format!(
            "{} reads after the bump, {} stale; one INCR made {} keys unreachable",
            vk.reads_after, vk.stale_after, vk.invalidated
        ),
    );
    out.check(
        "during the deploy old and new code never read each other's format",
        vk.mismatches == 0,
        format!(
            "{} reads got a value in another schema's format",
            vk.mismatches
        ),
    );
    out.charts.push(
        Chart::bars(
            "Trials ending with the older value cached",
            "trials",
            &["plain SET", "Lua version compare"],
        )
        .with(Series::new(
            "ended stale",
            vec![(0.0, race.stale[0] as f64), (1.0, race.stale[1] as f64)],
        ))
        .with(Series::new(
            "cache writes reordered",
            vec![
                (0.0, race.reordered[0] as f64),
                (1.0, race.reordered[1] as f64),
            ],
        )),
    );
    out.charts.push(
        Chart::line("Derived-key reads", "time (s)", "reads per 10 ms")
            .with(Series::new("hits", vk.hits))
            .with(Series::new("misses (DB loads)", vk.misses)),
    );
    out.diagram = match show {
        0 | 1 => {
            let v = usize::from(show == 0);
            race.first[v].clone().and_then(|(g, at, name)| {
                if v == 1 {
                    race.sim.mark(g, at, "redis", "good", format!("{name}'s write arrives last but carries the older version: the script compares and refuses it, the newer value stays"));
                } else {
                    race.sim.mark(g, at, "redis", "bad", format!("{name}'s SET arrives last and overwrites the newer value with the older one"));
                }
                race.sim.take_diagram(g)
            })
        }
        _ => {
            if let Some(at) = vk.bump_at {
                keys.mark(0, at, "redis", "good", format!("one INCR of the version key: all {} derived keys of the entity become unreachable, readers build v{} names and load the new row", vk.invalidated, vk.new_version));
            }
            if let Some(at) = vk.deploy_at {
                keys.mark(
                    0,
                    at,
                    "redis",
                    "info",
                    "rolling deploy: new pods read and write under the next schema prefix"
                        .to_string(),
                );
            }
            keys.take_diagram(0)
        }
    };
    out.duration_us = race.sim.now();
    out.note(format!(
        "Two-writer races: plain SET ended stale in {} of {trials}, the script in {} ({lua_rejected} late older writes refused).",
        race.stale[0], race.stale[1]
    ));
    out.note(format!(
        "Versioned keys: {} command invalidated {} derived keys; {} reads after it, {} stale; {} old keys wait for their TTL.",
        vk.invalidate_cmds, vk.invalidated, vk.reads_after, vk.stale_after, vk.left
    ));
    out
}

struct Race {
    sim: Sim,
    /// [plain, lua]
    stale: [usize; 2],
    reordered: [usize; 2],
    /// The first reordered trial per variant: its group, the late write and its writer.
    first: [Option<(usize, Micros, String)>; 2],
}

/// Two writers per trial, UPDATE then a cache write: plain SET on
/// `plain:{i}`, the version-compare script on `lua:{i}`.
fn vw_race(seed: u64, trials: usize, jitter: Micros) -> (Race, usize) {
    let lat = Lat::new(around(3 * MS), around(10 * MS));
    let mut sim = Sim::new(seed, lat);
    sim.log_execs = true;
    let spacing = 100 * MS;
    let who = writer_trials(
        &mut sim,
        trials,
        spacing,
        ["plain", "lua"],
        5 * MS,
        80 * MS,
        false,
    );
    let end = trials as Micros * spacing + 100 * MS;
    // Per key: (version, writer) of each commit.
    let mut commit_order: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    let mut stale = [0usize; 2];
    let mut rejected = 0;
    while let Some((a, step, got)) = sim.next_step(end) {
        let (key, value, role) = who[a].clone();
        let lua = key.starts_with("lua:");
        let act = match (role, step, got) {
            (0 | 1, 0, _) => Act::Write(key, value),
            (0 | 1, 1, Got::Row(Some(row))) => {
                commit_order
                    .entry(key)
                    .or_default()
                    .push((row.version, value));
                sim.actors[a].carry = row.version.to_string();
                sim.app_work(jitter)
            }
            (0 | 1, 2, Got::Woke) => {
                let ver = std::mem::take(&mut sim.actors[a].carry);
                if lua {
                    Act::Cmd(cmd(&[
                        "EVAL",
                        SET_IF_NEWER,
                        "1",
                        &key,
                        &ver,
                        &value,
                        "60000",
                    ]))
                } else {
                    Act::Cmd(cmd(&["SET", &key, &value, "PX", "60000"]))
                }
            }
            (0 | 1, 3, Got::Reply(Frame::Integer(0))) => {
                rejected += 1;
                Act::Done
            }
            (2, 0, _) if lua => Act::Cmd(cmd(&["HGET", &key, "val"])),
            (2, 0, _) => Act::Cmd(cmd(&["GET", &key])),
            (2, 1, Got::Reply(Frame::Bulk(v))) => {
                stale[usize::from(lua)] += usize::from(!sim.is_latest(&key, &v));
                Act::Done
            }
            _ => Act::Done,
        };
        sim.act(a, act);
    }
    sim.finish(end);
    let mut reordered = [0usize; 2];
    let mut first: [Option<(usize, Micros, String)>; 2] = [None, None];
    let by_key = sim.writer_execs();
    for (v, variant) in ["plain", "lua"].iter().enumerate() {
        for i in 0..trials {
            let key = format!("{variant}:{i}");
            let writes = by_key.get(&key).cloned().unwrap_or_default();
            let mut commits = commit_order.get(&key).cloned().unwrap_or_default();
            commits.sort();
            if writes.len() == 2
                && commits.len() == 2
                && !writes[0].1.ends_with(commits[0].1.as_str())
            {
                reordered[v] += 1;
                if first[v].is_none() {
                    first[v] = Some((v * trials + i, writes[1].0, writes[1].1.clone()));
                }
            }
        }
    }
    (
        Race {
            sim,
            stale,
            reordered,
            first,
        },
        rejected,
    )
}

/// What the versioned-keys part measured.
struct VersionedKeys {
    bumped: bool,
    bump_at: Option<Micros>,
    deploy_at: Option<Micros>,
    new_version: i64,
    invalidated: usize,
    invalidate_cmds: usize,
    reads_after: usize,
    stale_after: usize,
    left: usize,
    mismatches: usize,
    hits: Vec<(f64, f64)>,
    misses: Vec<(f64, f64)>,
}

/// One entity with `views` derived keys, readers going through its version
/// key, a writer that UPDATEs then INCRs it, and a rolling deploy that
/// moves new pods to the next schema.
fn vw_keys(seed: u64, p: &Params) -> (Sim, VersionedKeys) {
    let views = p.count("views").max(1) as usize;
    let bump = p.choice("invalidate") == 0;
    let prefix = p.on("schema_prefix");
    let lat = Lat::new(around(4 * MS), around(15 * MS));
    let mut sim = Sim::new(seed, lat);
    sim.log_execs = true;
    let entity = "user:42";
    let ver_key = "user:42:ver";
    sim.seed_row(entity, "r1");
    let write_at = 150 * MS;
    let deploy_at = 260 * MS;
    let end = 400 * MS;
    let w = sim.actor("writer", "client", Some(0));
    sim.rec(0).lane("writer", "client");
    sim.start(w, write_at);
    let mut t = 0;
    let mut n = 0;
    while t < end {
        t += sim.uniform(MS, 3 * MS);
        n += 1;
        let a = sim.actor(&format!("reader {n}"), "client", None);
        sim.start(a, t);
    }
    // Per reader: the schema its pod runs, the view it wants, the version read.
    let mut state: Vec<(u32, usize, String, Micros)> =
        vec![(3, 0, String::new(), 0); sim.actors.len()];
    let (mut bump_at, mut new_version, mut drawn) = (None, 0i64, (0, 0, 0));
    let (mut reads_after, mut stale_after, mut mismatches) = (0, 0, 0);
    let mut hits = BTreeMap::<u64, f64>::new();
    let mut misses = BTreeMap::<u64, f64>::new();
    while let Some((a, step, got)) = sim.next_step(end) {
        let now = sim.now();
        if a == w {
            let act = match step {
                0 => Act::Write(entity.into(), "r2".into()),
                1 if bump => Act::Cmd(cmd(&["INCR", ver_key])),
                2 if bump => {
                    if let Got::Reply(Frame::Integer(v)) = got {
                        new_version = v;
                    }
                    bump_at = sim.execs.iter().rev().find(|e| e.actor == w).map(|e| e.at);
                    Act::Done
                }
                _ => Act::Done,
            };
            sim.act(w, act);
            continue;
        }
        let schema = if now >= deploy_at && sim.rng().bool() {
            4
        } else {
            3
        };
        let act = match (step, got) {
            (0, _) => {
                let view = sim.rng().pick(0..views);
                state[a] = (schema, view, String::new(), now);
                // Draw two readers just before the write, three after the
                // bump and one new-schema reader after the deploy.
                let draw = match bump_at {
                    None => {
                        now + 4 * MS >= write_at && drawn.0 < 2 && {
                            drawn.0 += 1;
                            true
                        }
                    }
                    Some(_) if now < deploy_at => {
                        drawn.1 < 3 && {
                            drawn.1 += 1;
                            true
                        }
                    }
                    Some(_) => {
                        schema == 4 && drawn.2 < 1 && {
                            drawn.2 += 1;
                            true
                        }
                    }
                };
                if draw {
                    sim.actors[a].group = Some(0);
                }
                Act::Cmd(cmd(&["GET", ver_key]))
            }
            (1, Got::Reply(r)) => {
                let ver = match r {
                    Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
                    _ => "0".to_string(),
                };
                let (s, view, _, t0) = state[a].clone();
                let key = if prefix {
                    format!("s{s}:uview:42:v{ver}:{view}")
                } else {
                    format!("uview:42:v{ver}:{view}")
                };
                state[a] = (s, view, key.clone(), t0);
                Act::Cmd(cmd(&["GET", &key]))
            }
            (2, Got::Reply(Frame::Bulk(v))) => {
                *hits.entry(now / (10 * MS)).or_default() += 1.0;
                let (s, _, _, t0) = state[a];
                let text = String::from_utf8_lossy(&v).into_owned();
                vk_judge(
                    &text,
                    s,
                    t0,
                    bump_at,
                    &mut reads_after,
                    &mut stale_after,
                    &mut mismatches,
                );
                Act::Done
            }
            (2, _) => {
                *misses.entry(now / (10 * MS)).or_default() += 1.0;
                Act::Read(entity.into())
            }
            (3, Got::Row(Some(row))) => {
                let (s, view, key, t0) = state[a].clone();
                let value = format!("fmt{s}|view{view}|{}", row.value);
                vk_judge(
                    &value,
                    s,
                    t0,
                    bump_at,
                    &mut reads_after,
                    &mut stale_after,
                    &mut mismatches,
                );
                Act::Cmd(cmd(&["SET", &key, &value, "PX", "30000"]))
            }
            _ => Act::Done,
        };
        sim.act(a, act);
    }
    sim.finish(end);
    // Keys of the old version still held (unreachable, waiting for their TTL).
    let old = format!("v{}:", new_version.max(1) - 1);
    let keep = |k: &str| k.contains("uview") && bump && k.contains(old.as_str());
    let left = if sim.redis.is_remote() {
        // A real server lists its keys with KEYS (the run's database is its own).
        match sim.redis.exec(end, "auditor", &["KEYS", "*uview*"]) {
            Frame::Array(ks) => ks
                .iter()
                .filter_map(|f| match f {
                    Frame::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
                    _ => None,
                })
                .filter(|k| keep(k))
                .count(),
            _ => 0,
        }
    } else {
        let snapshot = sim.redis.engine().keys_snapshot(0, 100_000);
        snapshot.iter().filter(|k| keep(&k.key)).count()
    };
    let series = |m: &BTreeMap<u64, f64>| -> Vec<(f64, f64)> {
        (0..end / (10 * MS))
            .map(|w| (secs(w * 10 * MS), m.get(&w).copied().unwrap_or(0.0)))
            .collect()
    };
    let vk = VersionedKeys {
        bumped: bump_at.is_some(),
        bump_at,
        deploy_at: Some(deploy_at),
        new_version,
        invalidated: if bump { left } else { 0 },
        invalidate_cmds: usize::from(bump),
        reads_after,
        stale_after,
        left,
        mismatches,
        hits: series(&hits),
        misses: series(&misses),
    };
    (sim, vk)
}

/// Scores one read: stale if the reader started after the version bump
/// landed and still got the old row; a mismatch if the value's format is
/// not the reader's schema.
fn vk_judge(
    value: &str,
    schema: u32,
    started: Micros,
    bump_at: Option<Micros>,
    reads_after: &mut usize,
    stale_after: &mut usize,
    mismatches: &mut usize,
) {
    if !value.starts_with(&format!("fmt{schema}|")) {
        *mismatches += 1;
    }
    // Without a bump the writer's commit is the reference point.
    if bump_at.is_some_and(|b| started > b) || (bump_at.is_none() && started > 200 * MS) {
        *reads_after += 1;
        if value.ends_with("|r1") {
            *stale_after += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::passes;
    use super::*;
    use crate::testing::run as with;

    #[test]
    fn versioned_writes() {
        passes(&VERSIONED_WRITES);
        for show in ["plain-set", "versioned-keys"] {
            let o = with(&VERSIONED_WRITES, 2, &[("show", show)]);
            assert!(o.passed() && o.diagram.is_some(), "{show}");
        }
        let o = with(&VERSIONED_WRITES, 1, &[]);
        assert!(o.metric_value("derived keys invalidated").unwrap() >= 10.0);
        assert_eq!(o.metric_value("commands to invalidate"), Some(1.0));
        // Without the bump, derived keys keep serving the old row.
        let o = with(&VERSIONED_WRITES, 1, &[("invalidate", "none")]);
        assert!(
            o.metric_value("stale reads after the version bump")
                .unwrap()
                > 0.0
        );
        assert!(!o.passed());
        // Without the schema prefix, old and new pods read each other's format.
        let o = with(&VERSIONED_WRITES, 1, &[("schema_prefix", "off")]);
        assert!(o.metric_value("format mismatches").unwrap() > 0.0);
    }
}
