//! Differential tests of the HyperLogLog commands (PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST): replies and the stored HLL bytes must be identical to a real redis-server's, in sparse and dense form, for sets of up to 200,000 elements, merges, corrupt values and other `hll-sparse-max-bytes` limits.
//!
//! The reference is Debian's Redis 7.0.15. Its hyperloglog.c differs from
//! 7.2's in how much memory a growing sparse HLL reserves (7.2 reserves
//! greedily up to `hll-sparse-max-bytes`), which changes no byte of the
//! value and no reply. Like Redis 7.2.10 and later it carries the
//! CVE-2025-32023 fix, which makes any sparse run past the last register
//! corrupt (7.2.4 only checked `VAL` runs), and redsim follows the fix: the
//! corruption fuzz below depends on it. Any other difference is a bug.

use redsim_tests::{args, assert_command_group, Differ, Frame, Pair, RedisServer, Rng};

/// GET of `key` on both, which must be byte-identical; returns the bytes.
fn value(p: &mut Pair, key: &str) -> Vec<u8> {
    match p.check_args(&args(&["GET", key])) {
        Frame::Bulk(b) => b,
        other => panic!("GET {key}: {other:?}"),
    }
}

/// PFADD of elements `from..to` named `{tag}{i}`, in batches of 1000.
fn add_range(p: &mut Pair, key: &str, tag: &str, from: usize, to: usize) {
    let mut i = from;
    while i < to {
        let end = (i + 1000).min(to);
        let mut a = args(&["PFADD", key]);
        a.extend((i..end).map(|j| format!("{tag}{j}").into_bytes()));
        p.check_args(&a);
        i = end;
    }
}

const ENCODING: usize = 4;

const COMMANDS: &str = r#"
PFADD h
PFADD h
GET h
PFCOUNT h
GET h
PFADD h a b c
PFADD h a
PFADD h c b
GET h
PFCOUNT h
GET h
PFCOUNT h
PFADD h "" "\x00" "\xff\xfe"
PFCOUNT h
PFADD n
PFCOUNT n
PFCOUNT missing
PFCOUNT missing missing2
PFCOUNT h missing
PFCOUNT missing h h
PFADD "" x
PFCOUNT ""
OBJECT ENCODING h
SET s notanhll
PFADD s a
PFCOUNT s
PFCOUNT h s
PFCOUNT s h
PFCOUNT missing s
PFMERGE s h
PFMERGE h s
PFMERGE h missing s
PFMERGE d h missing
GET d
PFCOUNT d
PFMERGE d2
GET d2
PFCOUNT d2
PFMERGE d
SET i 12345
PFADD i a
PFCOUNT i
PFMERGE d i
SET short HYLL
PFADD short a
PFCOUNT short
SET badenc "HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"
PFCOUNT badenc
PFADD badenc x
SET badmagic "HYLX\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"
PFCOUNT badmagic
SET shortdense "HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"
PFCOUNT shortdense
PFADD shortdense a
SET cached "HYLL\x01\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00"
OBJECT ENCODING cached
PFCOUNT cached
OBJECT ENCODING cached
PFADD cached a
PFCOUNT cached
SET stale "HYLL\x01\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x80"
PFCOUNT stale
PFADD stale a
PFCOUNT stale x
PFMERGE stale
SET emb "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff"
OBJECT ENCODING emb
PFCOUNT emb
OBJECT ENCODING emb
GET emb
SET emb2 "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"
PFADD emb2
OBJECT ENCODING emb2
PFADD tail a b c d e f g
APPEND tail hello
PFCOUNT tail
PFADD tail x y z
PFCOUNT tail x
PFMERGE tail
PFMERGE m2 tail
GET tail
PFDEBUG ENCODING tail
PFDEBUG DECODE tail
PFDEBUG GETREG tail
PFDEBUG TODENSE tail
SET split "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xfe"
PFCOUNT split
PFADD split a
SET over "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff\x00"
PFCOUNT over
PFADD over a b c
GET over
PFDEBUG ENCODING h
PFDEBUG DECODE h
PFDEBUG GETREG missing
PFDEBUG DECODE missing
PFDEBUG foo missing
PFDEBUG foo h
PFDEBUG "decode\x00x" h
PFDEBUG "bad\x00x" h
PFDEBUG GETREG s
PFDEBUG ENCODING i
PFDEBUG TODENSE h
PFDEBUG DECODE h
PFDEBUG ENCODING h
PFDEBUG TODENSE h
GET h
PFCOUNT h
PFADD h a
PFADD h brand-new
PFCOUNT h
GET h
PFDEBUG GETREG h
PFDEBUG GETREG d
PFDEBUG ENCODING d
PFDEBUG
PFDEBUG GETREG
PFDEBUG GETREG h extra
PFADD
PFCOUNT
PFMERGE
PFSELFTEST x
"#;

/// SETs `key` to the raw bytes `value` on both servers (replies compared).
fn set_raw(p: &mut Pair, key: &str, value: Vec<u8>) {
    let mut set = args(&["SET", key]);
    set.push(value);
    p.check_args(&set);
}

#[test]
fn commands_errors_and_corrupt_values() {
    let mut p = Pair::start(&[]);
    let n = p.corpus(COMMANDS);
    assert!(n > 120, "compared {n} commands");
    // A value copied from real Redis behaves the same in redsim: the cached
    // cardinality, and more elements added to it.
    let v = value(&mut p, "h");
    set_raw(&mut p, "copy", v);
    p.corpus("PFCOUNT copy\nPFADD copy q r s\nPFCOUNT copy\nGET copy");
}

/// Keys of other types get the usual WRONGTYPE, not the HLL one.
#[test]
fn other_types_are_wrongtype() {
    let mut p = Pair::start(&[]);
    p.corpus(
        r#"
        HSET h f v
        SADD st m
        PFADD h a
        PFADD h
        PFCOUNT h
        PFCOUNT st h
        PFCOUNT missing st
        PFMERGE h
        PFMERGE d st
        PFMERGE h missing
        EXISTS d
        PFDEBUG GETREG h
        PFDEBUG foo st
        PFADD good a
        PFMERGE good st
        PFCOUNT good h
        "#,
    );
}

/// Keyspace hits and misses count the lookups Redis makes (PFCOUNT and
/// PFMERGE read every source; PFADD and PFDEBUG look up for writing).
#[test]
fn keyspace_hits_and_misses_match() {
    let mut p = Pair::start(&[]);
    p.corpus(COMMANDS);
    p.assert_same_stats();
}

#[test]
fn pfselftest_passes() {
    let mut p = Pair::start(&[]);
    assert_eq!(p.check("PFSELFTEST"), Frame::ok());
}

/// Every register at the largest value a hash can give (Q+1 = 51) makes the
/// estimator divide by zero: Redis' `llroundl` overflow is kept.
#[test]
fn saturated_dense_hll() {
    let mut p = Pair::start(&[]);
    let mut regs = vec![0u8; 12288];
    for i in 0..16384 {
        let (byte, fb) = (i * 6 / 8, (i * 6) & 7);
        regs[byte] |= (51u32 << fb) as u8;
        if byte + 1 < regs.len() {
            regs[byte + 1] |= (51u32 >> (8 - fb)) as u8;
        }
    }
    let mut v = b"HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80".to_vec();
    v.extend_from_slice(&regs);
    set_raw(&mut p, "sat", v);
    p.corpus("PFCOUNT sat\nPFCOUNT sat\nGET sat\nPFADD sat x\nPFCOUNT sat missing");
}

/// One HLL growing to 200,000 elements: the count and the exact bytes after
/// each step, through the sparse form, the promotion and the dense form.
#[test]
fn cardinalities_up_to_200k_byte_for_byte() {
    let mut p = Pair::start(&[]);
    let steps = [
        0usize, 1, 2, 3, 5, 8, 13, 21, 50, 100, 200, 300, 500, 800, 1000, 1300, 1600, 2000, 2500,
        3000, 4000, 6000, 10_000, 20_000, 50_000, 100_000, 150_000, 200_000,
    ];
    let mut added = 0;
    let mut sparse_seen = false;
    let mut dense_seen = false;
    for &n in &steps {
        add_range(&mut p, "grow", "e", added, n);
        added = n;
        if n == 0 {
            p.check("PFCOUNT grow");
            continue;
        }
        let Frame::Integer(count) = p.check("PFCOUNT grow") else {
            panic!("PFCOUNT replies an integer");
        };
        let v = value(&mut p, "grow");
        match v[ENCODING] {
            1 => sparse_seen = true,
            0 => {
                dense_seen = true;
                assert_eq!(v.len(), 12304);
            }
            e => panic!("encoding byte {e}"),
        }
        p.check("PFDEBUG ENCODING grow");
        if n >= 1000 {
            let err = (count - n as i64).abs() as f64 / n as f64;
            assert!(err < 0.05, "{n} elements counted as {count}");
        }
    }
    assert!(sparse_seen && dense_seen, "both encodings were compared");
    p.check("PFDEBUG GETREG grow");
}

/// Many independent sets of random sizes, counted alone and together.
#[test]
fn random_sets_count_and_bytes_match() {
    let mut p = Pair::start(&[]);
    let mut rng = Rng(0x4811_5eed);
    for set in 0..40 {
        let n = match rng.below(4) {
            0 => rng.below(50),
            1 => rng.below(1000),
            2 => rng.below(5000),
            _ => rng.below(30_000),
        };
        let key = format!("r{set}");
        add_range(&mut p, &key, &format!("{set}:"), 0, n);
        p.check(&format!("PFCOUNT {key}"));
        value(&mut p, &key);
        if set % 5 == 4 {
            p.check(&format!("PFCOUNT r{} r{} r{}", set, set - 1, set - 4));
        }
    }
}

/// PFMERGE keeps the destination sparse unless a source is dense, counts
/// the destination as a source, and writes the same bytes as Redis.
#[test]
fn pfmerge_sparse_dense_and_existing_destinations() {
    let mut p = Pair::start(&[]);
    add_range(&mut p, "s1", "a", 0, 100);
    add_range(&mut p, "s2", "a", 50, 400);
    add_range(&mut p, "s3", "b", 0, 900);
    add_range(&mut p, "big", "c", 0, 20_000);
    p.corpus(
        r#"
        PFMERGE m1 s1 s2
        GET m1
        PFDEBUG ENCODING m1
        PFCOUNT m1
        PFCOUNT s1 s2
        PFMERGE m1 s3
        GET m1
        PFCOUNT m1
        PFMERGE m1
        GET m1
        PFMERGE m2 s1 big
        PFDEBUG ENCODING m2
        GET m2
        PFCOUNT m2
        PFCOUNT s1 big
        PFMERGE s1 big
        PFDEBUG ENCODING s1
        GET s1
        PFMERGE big s2 s3 missing
        GET big
        PFCOUNT big
        PFCOUNT big s1 s2 s3 m1 m2 missing
        PFMERGE m3 s2 s3 s2
        GET m3
        PFMERGE m4 m3 m1
        GET m4
        PFCOUNT m4
        SET t v EX 100
        PFMERGE t2 s2
        TTL t2
        "#,
    );
    // A destination with a TTL keeps it; merging many sparse sources can
    // outgrow the sparse limit and promote.
    p.corpus("PFADD ttl x\nEXPIRE ttl 100\nPFMERGE ttl s2\nTTL ttl");
    let mut merge = args(&["PFMERGE", "wide"]);
    for i in 0..6 {
        let key = format!("w{i}");
        add_range(&mut p, &key, &format!("w{i}-"), 0, 600);
        merge.push(key.into_bytes());
    }
    p.check_args(&merge);
    p.corpus("PFDEBUG ENCODING wide\nGET wide\nPFCOUNT wide\nPFCOUNT w0 w1 w2 w3 w4 w5");
}

/// Other sparse limits, including 0 (every split promotes) and one larger
/// than a dense HLL (only a register above 32 promotes).
#[test]
fn hll_sparse_max_bytes_limits() {
    let mut p = Pair::start(&["--hll-sparse-max-bytes", "200"]);
    p.check("CONFIG GET hll-sparse-max-bytes");
    for (limit, n) in [
        ("200", 150),
        ("0", 3),
        ("1", 5),
        ("64", 40),
        ("20000", 9000),
    ] {
        p.check(&format!("CONFIG SET hll-sparse-max-bytes {limit}"));
        let key = format!("lim{limit}");
        for step in [1, n / 4, n / 2, n] {
            add_range(&mut p, &key, "x", 0, step);
            value(&mut p, &key);
            p.check(&format!("PFDEBUG ENCODING {key}"));
        }
        p.check(&format!("PFCOUNT {key}"));
    }
    p.corpus(
        r#"
        CONFIG SET hll-sparse-max-bytes 1kb
        CONFIG GET hll-sparse-max-bytes
        CONFIG SET hll-sparse-max-bytes -1
        CONFIG SET hll-sparse-max-bytes abc
        CONFIG SET hll-sparse-max-bytes 9223372036854775807
        CONFIG SET hll-sparse-max-bytes 9223372036854775808
        CONFIG GET hll-sparse-max-bytes
        "#,
    );
}

/// Random corruption of sparse and dense values, as Redis' own fuzz test
/// does it: every command on the result replies as Redis does (usually an
/// INVALIDOBJ or WRONGTYPE error), and leaves the same bytes.
#[test]
fn corrupted_hlls_are_detected_identically() {
    let mut p = Pair::start(&[]);
    let mut rng = Rng(0xc022_0b7e);
    for round in 0..300 {
        p.check("DEL hll");
        let n = rng.below(3000);
        if n > 0 {
            add_range(&mut p, "hll", &format!("{round}."), 0, n);
        } else {
            p.check("PFADD hll");
        }
        for _ in 0..5 {
            let len = value(&mut p, "hll").len();
            // Mostly the opcodes, sometimes the header.
            let pos = if rng.below(8) == 0 {
                rng.below(16)
            } else {
                rng.below(len)
            };
            let byte = vec![(rng.next_u64() & 0xff) as u8];
            let mut a = args(&["SETRANGE", "hll", &pos.to_string()]);
            a.push(byte);
            p.check_args(&a);
            if rng.below(2) == 0 {
                break;
            }
        }
        p.check("PFCOUNT hll");
        match rng.below(4) {
            0 => {
                p.check("PFADD hll x y z");
            }
            1 => {
                p.check("PFMERGE hll");
            }
            2 => {
                p.check("PFCOUNT hll missing");
            }
            _ => {
                p.check("PFDEBUG DECODE hll");
            }
        }
        p.check("PFCOUNT hll");
        value(&mut p, "hll");
    }
}

/// Who is signalled: EXEC of a transaction watching the key fails exactly
/// when Redis' command signalled a modification.
#[test]
fn watch_sees_exactly_the_writes_redis_signals() {
    let scenarios: &[(&str, &str)] = &[
        ("PFADD w a", "PFADD w a"),
        ("PFADD w a", "PFADD w zz"),
        ("DEL w", "PFADD w"),
        ("PFADD w a", "PFCOUNT w"),
        ("PFCOUNT w", "PFCOUNT w"),
        ("PFADD w a", "PFCOUNT w missing"),
        ("PFADD w a", "PFMERGE w"),
        ("PFADD w a", "PFMERGE x w"),
        ("PFADD w a", "PFDEBUG TODENSE w"),
        ("PFADD w b", "PFDEBUG GETREG w"),
        ("PFADD w c", "PFDEBUG ENCODING w"),
        ("SET w notanhll", "PFADD w a"),
    ];
    let mut d = Differ::start(2, &[]);
    d.watch_scenarios("w", &["DEL w", "PFADD w seed"], scenarios);
    assert_eq!(d.compared, scenarios.len() * 9);
}

/// The command table entries agree with what Redis' `COMMAND INFO` reports.
#[test]
fn command_table_matches_command_info() {
    let redis = RedisServer::start(&[]);
    assert_command_group(&mut redis.conn(), "hyperloglog", 5, &[]);
}
