//! HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST (hyperloglog.c), over string values holding Redis' exact HLL bytes.
//!
//! An HLL is an ordinary string, so every check Redis makes on it is kept:
//! the type, then the header (`isHLLObjectOrReply`), and corruption found
//! while walking sparse opcodes. Any string an HLL command touches becomes
//! `raw` (`dbUnshareStringValue`), even when nothing else changes. Which
//! writes signal WATCH follows Redis too: PFADD only when a register
//! changed, PFCOUNT when it refreshed the cached cardinality, PFMERGE
//! always, PFDEBUG never.

use super::args::cstr;
use super::strings::unshare;
use super::table::{commands, Command, Ctx};
use super::typed::{written, WRONGTYPE};
use crate::keyspace::object::{Obj, RString, Value};
use crate::keyspace::types::hll;
use crate::proto::resp::Frame;
use crate::server::keyspace_events as ev;
use crate::server::lossy;

pub(super) static COMMANDS: &[Command] = commands! { group: "hyperloglog";
    "pfadd" => pfadd, arity: -2, flags: [WRITE, DENYOOM, FAST], keys: (1, 1, 1), acl: [WRITE, HYPERLOGLOG, FAST], since: "2.8.9",
        syntax: "PFADD key [element [element ...]]", summary: "Adds elements to a HyperLogLog key, creating it if missing; replies 1 if an internal register changed.";
    "pfcount" => pfcount, arity: -2, flags: [READONLY, MAY_REPLICATE], keys: (1, -1, 1), acl: [READ, HYPERLOGLOG, SLOW], since: "2.8.9",
        syntax: "PFCOUNT key [key ...]", summary: "Replies with the approximate number of distinct elements added to one HyperLogLog, or to the union of several.";
    "pfmerge" => pfmerge, arity: -2, flags: [WRITE, DENYOOM], keys: (1, -1, 1), acl: [WRITE, HYPERLOGLOG, SLOW], since: "2.8.9",
        syntax: "PFMERGE destkey [sourcekey [sourcekey ...]]", summary: "Merges HyperLogLogs into the destination key (the destination counts as a source).";
    heavy "pfdebug" => pfdebug, arity: 3, flags: [WRITE, DENYOOM, ADMIN], keys: (2, 2, 1), acl: [WRITE, HYPERLOGLOG, ADMIN, SLOW, DANGEROUS], since: "2.8.9",
        syntax: "PFDEBUG <GETREG | DECODE | ENCODING | TODENSE> key", summary: "Internal HyperLogLog debugging: registers, sparse opcodes, encoding, conversion to dense.";
    heavy "pfselftest" => pfselftest, arity: 1, flags: [ADMIN], acl: [HYPERLOGLOG, ADMIN, SLOW, DANGEROUS], since: "2.8.9",
        syntax: "PFSELFTEST", summary: "Runs the HyperLogLog implementation's self-test.";
};

/// The error for a string that is not an HLL (Redis sends it without the
/// usual `ERR` prefix).
pub const NOT_HLL: &str = "WRONGTYPE Key is not a valid HyperLogLog string value.";
/// The error for an HLL whose sparse opcodes do not add up.
pub const CORRUPT: &str = "INVALIDOBJ Corrupted HLL object detected";

/// `isHLLObjectOrReply`: a string (else the usual WRONGTYPE) whose bytes
/// look like an HLL (an `int`-encoded string never does).
fn check_hll(obj: &Obj) -> Result<(), Frame> {
    match &obj.value {
        Value::String(RString::Emb(b) | RString::Raw(b)) if hll::is_valid(b) => Ok(()),
        Value::String(_) => Err(Frame::err(NOT_HLL)),
        _ => Err(Frame::err(WRONGTYPE)),
    }
}

/// The HLL bytes of a checked object.
fn hll_bytes(obj: &Obj) -> &[u8] {
    match &obj.value {
        Value::String(RString::Emb(b) | RString::Raw(b)) => b,
        _ => &[],
    }
}

fn pfadd(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let key = &args[1];
    let sparse_max = ctx.srv.config.hll_sparse_max_bytes;
    let exists = match ctx.srv.lookup_write(db, key) {
        None => false,
        Some(obj) => match check_hll(obj) {
            Ok(()) => true,
            Err(e) => return e,
        },
    };
    if !exists {
        let mut s = hll::new_sparse();
        // A fresh HLL is valid: adding cannot fail.
        let set = args[2..]
            .iter()
            .filter(|ele| matches!(hll::add(&mut s, ele, sparse_max), Ok(true)))
            .count();
        hll::invalidate(&mut s);
        ctx.srv
            .set_key(db, key, Value::String(RString::Raw(s)), false);
        ctx.notify(ev::STRING, "pfadd", key);
        // `server.dirty += updated`: the creation and each register set.
        crate::persist::adjust_changes(ctx.srv, set as i64);
        return Frame::Integer(1);
    }
    let outcome = ctx.srv.dbs[db].with_mut(key, |obj| {
        let Some(s) = unshare(obj) else {
            return (0, false);
        };
        let mut updated = 0;
        for ele in &args[2..] {
            match hll::add(s, ele, sparse_max) {
                Ok(true) => updated += 1,
                Ok(false) => {}
                // Registers set so far stay set, unsignalled, as in Redis.
                Err(_) => return (updated, false),
            }
        }
        if updated > 0 {
            hll::invalidate(s);
        }
        (updated, true)
    });
    let (updated, ok) = outcome.unwrap_or((0, true));
    if updated > 0 {
        written(ctx.srv, db, key, ok);
    }
    if !ok {
        return Frame::err(CORRUPT);
    }
    if updated > 0 {
        ctx.notify(ev::STRING, "pfadd", key);
        crate::persist::adjust_changes(ctx.srv, updated as i64 - 1);
    }
    Frame::Integer((updated > 0) as i64)
}

fn pfcount(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    if args.len() > 2 {
        // The union of several: merge into one byte per register.
        let mut max = [0u8; hll::REGISTERS];
        for key in &args[1..] {
            let Some(obj) = ctx.srv.lookup_read(db, key) else {
                continue;
            };
            if let Err(e) = check_hll(obj) {
                return e;
            }
            if hll::merge_into(&mut max, hll_bytes(obj)).is_err() {
                return Frame::err(CORRUPT);
            }
        }
        return Frame::Integer(hll::count_raw(&max) as i64);
    }
    let key = &args[1];
    match ctx.srv.lookup_read(db, key) {
        None => return Frame::Integer(0),
        Some(obj) => {
            if let Err(e) = check_hll(obj) {
                return e;
            }
        }
    }
    let outcome = ctx.srv.dbs[db].with_mut(key, |obj| {
        let s = unshare(obj).ok_or(hll::Corrupt)?;
        if let Some(card) = hll::cached(s) {
            return Ok((card, false));
        }
        let card = hll::count(s)?;
        hll::set_cached(s, card);
        Ok((card, true))
    });
    match outcome {
        Some(Ok((card, refreshed))) => {
            if refreshed {
                // Refreshing the cache is a write Redis propagates and signals.
                written(ctx.srv, db, key, true);
            }
            Frame::Integer(card as i64)
        }
        Some(Err(hll::Corrupt)) => Frame::err(CORRUPT),
        None => Frame::Integer(0),
    }
}

fn pfmerge(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let sparse_max = ctx.srv.config.hll_sparse_max_bytes;
    let mut max = [0u8; hll::REGISTERS];
    let mut use_dense = false;
    // The destination is the first source.
    for key in &args[1..] {
        let Some(obj) = ctx.srv.lookup_read(db, key) else {
            continue;
        };
        if let Err(e) = check_hll(obj) {
            return e;
        }
        let s = hll_bytes(obj);
        use_dense |= s[4] == hll::DENSE;
        if hll::merge_into(&mut max, s).is_err() {
            return Frame::err(CORRUPT);
        }
    }
    // Writes the merged registers into a destination HLL (sparse unless a
    // source was dense), the way Redis does it: one register at a time.
    let fill = |s: &mut Vec<u8>| -> Result<(), hll::Corrupt> {
        if use_dense {
            hll::sparse_to_dense(s)?;
        }
        for (j, &m) in max.iter().enumerate() {
            if m != 0 {
                let _ = hll::set_register(s, j, m, sparse_max);
            }
        }
        hll::invalidate(s);
        Ok(())
    };
    let dest = &args[1];
    if ctx.srv.lookup_write(db, dest).is_none() {
        let mut s = hll::new_sparse();
        if fill(&mut s).is_err() {
            return Frame::err(CORRUPT);
        }
        ctx.srv
            .set_key(db, dest, Value::String(RString::Raw(s)), false);
        ctx.notify(ev::STRING, "pfadd", dest);
        return Frame::ok();
    }
    let outcome = ctx.srv.dbs[db].with_mut(dest, |obj| match unshare(obj) {
        Some(s) => fill(s),
        None => Err(hll::Corrupt),
    });
    if let Some(Err(_)) = outcome {
        return Frame::err(CORRUPT);
    }
    written(ctx.srv, db, dest, true);
    ctx.notify(ev::STRING, "pfadd", dest);
    Frame::ok()
}

fn pfdebug(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    let key = &args[2];
    match ctx.srv.lookup_write(db, key) {
        None => return Frame::err("ERR The specified key does not exist"),
        Some(obj) => {
            if let Err(e) = check_hll(obj) {
                return e;
            }
        }
    }
    let sub = cstr(&args[1]).to_ascii_lowercase();
    let outcome = ctx.srv.dbs[db].with_mut(key, |obj| {
        let Some(s) = unshare(obj) else {
            return (Frame::err(CORRUPT), false);
        };
        let was_sparse = s[4] == hll::SPARSE;
        let reply = match sub.as_slice() {
            b"getreg" => {
                if hll::sparse_to_dense(s).is_err() {
                    return (Frame::err(CORRUPT), false);
                }
                let regs = &s[hll::HDR_SIZE..];
                Frame::Array(
                    (0..hll::REGISTERS)
                        .map(|i| Frame::Integer(hll::dense_get(regs, i) as i64))
                        .collect(),
                )
            }
            b"decode" => {
                if !was_sparse {
                    return (Frame::err("ERR HLL encoding is not sparse"), false);
                }
                Frame::bulk(hll::decode_sparse(s))
            }
            b"encoding" => Frame::Simple(if was_sparse { "sparse" } else { "dense" }.into()),
            b"todense" => {
                if hll::sparse_to_dense(s).is_err() {
                    return (Frame::err(CORRUPT), false);
                }
                Frame::Integer(was_sparse as i64)
            }
            _ => Frame::err(format!(
                "ERR Unknown PFDEBUG subcommand '{}'",
                lossy(cstr(&args[1]))
            )),
        };
        let converted = was_sparse && s[4] == hll::DENSE;
        (reply, converted)
    });
    let Some((reply, converted)) = outcome else {
        return Frame::err("ERR The specified key does not exist");
    };
    if converted {
        // Redis propagates the new encoding but signals no one.
        written(ctx.srv, db, key, false);
    }
    reply
}

/// PFSELFTEST: the same two checks as Redis (dense registers keep their
/// values without disturbing neighbours; sparse and dense agree and the
/// error stays within six standard errors at each power of ten), with
/// fewer rounds: Redis runs 1000 register rounds and ten million elements,
/// seconds of CPU that would stall a browser tab.
fn pfselftest(ctx: &mut Ctx, _args: &[Vec<u8>]) -> Frame {
    let sparse_max = ctx.srv.config.hll_sparse_max_bytes;
    let rng = &mut ctx.srv.rng;
    let mut regs = vec![0u8; hll::DENSE_SIZE - hll::HDR_SIZE];
    let mut bytes = vec![0u8; hll::REGISTERS];
    for _ in 0..4 {
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = rng.u8(..) & hll::REGISTER_MAX;
            hll::dense_put(&mut regs, i, *b);
        }
        for (i, &b) in bytes.iter().enumerate() {
            let v = hll::dense_get(&regs, i);
            if v != b {
                return Frame::err(format!(
                    "ERR TESTFAILED Register {i} should be {b} but is {v}"
                ));
            }
        }
    }
    let mut dense = hll::new_sparse();
    let _ = hll::sparse_to_dense(&mut dense);
    let mut sparse = hll::new_sparse();
    let relerr = 1.04 / (hll::REGISTERS as f64).sqrt();
    let seed = rng.u64(..);
    let mut checkpoint: u64 = 1;
    for j in 1..=10_000u64 {
        let ele = (j ^ seed).to_le_bytes();
        let _ = hll::add(&mut dense, &ele, sparse_max);
        let _ = hll::add(&mut sparse, &ele, sparse_max);
        if j != checkpoint {
            continue;
        }
        if j < sparse_max / 2 && sparse[4] != hll::SPARSE {
            return Frame::err("ERR TESTFAILED sparse encoding not used");
        }
        let (Ok(d), Ok(s)) = (hll::count(&dense), hll::count(&sparse)) else {
            return Frame::err("ERR TESTFAILED dense/sparse disagree");
        };
        if d != s {
            return Frame::err("ERR TESTFAILED dense/sparse disagree");
        }
        let maxerr = if j == 10 {
            1
        } else {
            (relerr * 6.0 * checkpoint as f64).ceil() as u64
        };
        let abserr = checkpoint.abs_diff(d);
        if abserr > maxerr {
            return Frame::err(format!(
                "ERR TESTFAILED Too big error. card:{checkpoint} abserr:{abserr}"
            ));
        }
        checkpoint *= 10;
    }
    Frame::ok()
}

#[cfg(test)]
mod tests {
    use crate::cmd::testing::{engine, run};
    use crate::Frame;

    /// PFSELFTEST runs in the full engine only, like PFDEBUG.
    #[test]
    fn pfselftest_passes() {
        let (mut e, c) = engine(3);
        assert_eq!(run(&mut e, c, &["PFSELFTEST"]), Frame::ok());
    }

    #[test]
    fn pfadd_creates_a_raw_sparse_hll_with_a_stale_cache() {
        let (mut e, c) = engine(1);
        assert_eq!(run(&mut e, c, &["PFADD", "h", "a"]), Frame::Integer(1));
        assert_eq!(run(&mut e, c, &["PFADD", "h", "a"]), Frame::Integer(0));
        let Frame::Bulk(b) = run(&mut e, c, &["GET", "h"]) else {
            panic!("GET of an HLL is a string");
        };
        assert_eq!(&b[..5], b"HYLL\x01");
        assert_eq!(b[15] & 0x80, 0x80, "cache marked stale");
        assert_eq!(run(&mut e, c, &["PFCOUNT", "h"]), Frame::Integer(1));
        let Frame::Bulk(b) = run(&mut e, c, &["GET", "h"]) else {
            panic!("GET of an HLL is a string");
        };
        assert_eq!(&b[8..16], &1u64.to_le_bytes(), "cache filled");
        assert_eq!(
            run(&mut e, c, &["OBJECT", "ENCODING", "h"]),
            Frame::bulk("raw")
        );
        run(&mut e, c, &["SET", "s", "12"]);
        assert_eq!(
            run(&mut e, c, &["PFADD", "s", "x"]),
            Frame::err(super::NOT_HLL)
        );
    }

    /// PFDEBUG runs in the full engine only (a light build sends it there).
    #[test]
    fn pfdebug_reads_and_converts_the_encoding() {
        let (mut e, c) = engine(1);
        run(&mut e, c, &["PFADD", "h", "a"]);
        assert_eq!(
            run(&mut e, c, &["PFDEBUG", "ENCODING", "h"]),
            Frame::Simple("sparse".into())
        );
        assert_eq!(
            run(&mut e, c, &["PFDEBUG", "TODENSE", "h"]),
            Frame::Integer(1)
        );
        assert_eq!(run(&mut e, c, &["STRLEN", "h"]), Frame::Integer(12304));
    }
}
