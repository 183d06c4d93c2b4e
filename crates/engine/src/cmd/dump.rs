//! DUMP and RESTORE (cluster.c's `dumpCommand` and `restoreCommand`): a key's value as Redis' serialized payload, and back.
//!
//! The payload is the RDB encoding of the value ([`crate::persist::rdb`])
//! sealed with the RDB version and a CRC64 ([`crate::persist::payload`]).
//! RESTORE goes through the server's ordinary write paths (`delete`,
//! `set_key`, `set_expire`), so WATCH, client-side caching, the dirty
//! counter and the replication stream see it as they see any write; the
//! stream carries the restored value with its absolute expiry, which is
//! what Redis' rewrite to `RESTORE ... ABSTTL` achieves.

use super::args::arg_i64;
use super::table::{commands, Command, Ctx};
use crate::keyspace::object::LRU_CLOCK_MAX;
use crate::persist::{payload, rdb};
use crate::proto::resp::Frame;
use crate::server::trace::DeleteCause;

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "generic";
    "dump" => dump, arity: 2, flags: [READONLY], keys: (1, 1, 1), acl: [KEYSPACE, READ, SLOW], since: "2.6.0",
        syntax: "DUMP key", summary: "Returns a serialized representation of the value stored at a key.";
    "restore" => restore, arity: -4, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [KEYSPACE, WRITE, SLOW, DANGEROUS], since: "2.6.0",
        syntax: "RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]",
        summary: "Creates a key from the serialized representation of a value.";
    "restore-asking" => restore, arity: -4, flags: [WRITE, DENYOOM, ASKING], keys: (1, 1, 1), acl: [KEYSPACE, WRITE, SLOW, DANGEROUS], group: "server", since: "3.0.0",
        syntax: "RESTORE-ASKING key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]",
        summary: "An internal command for migrating keys in a cluster.";
};

/// `shared.busykeyerr`.
const BUSYKEY: &str = "BUSYKEY Target key name already exists.";

/// `dumpCommand`: a read lookup (hit or miss counted), then the payload.
fn dump(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let compress = ctx.srv.config.rdbcompression;
    let Some(obj) = ctx.srv.lookup_read(ctx.client.db, &args[1]) else {
        return Frame::Null;
    };
    Frame::Bulk(payload::seal(rdb::save(&obj.value, compress)))
}

/// `restoreCommand`: options (IDLETIME and FREQ exclude each other: the
/// second is a syntax error), the existing key (BUSYKEY without REPLACE),
/// the TTL, the payload's footer, then its body. A TTL already past
/// deletes what REPLACE would have replaced and creates nothing.
fn restore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (mut replace, mut absttl) = (false, false);
    let (mut lfu_freq, mut lru_idle) = (-1i64, -1i64);
    let mut j = 4;
    while j < args.len() {
        let more = args.len() - j - 1;
        if super::is(&args[j], "replace") {
            replace = true;
        } else if super::is(&args[j], "absttl") {
            absttl = true;
        } else if super::is(&args[j], "idletime") && more >= 1 && lfu_freq == -1 {
            lru_idle = match arg_i64(&args[j + 1]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            if lru_idle < 0 {
                return Frame::err("ERR Invalid IDLETIME value, must be >= 0");
            }
            j += 1;
        } else if super::is(&args[j], "freq") && more >= 1 && lru_idle == -1 {
            lfu_freq = match arg_i64(&args[j + 1]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            if !(0..=255).contains(&lfu_freq) {
                return Frame::err("ERR Invalid FREQ value, must be >= 0 and <= 255");
            }
            j += 1;
        } else {
            return Frame::err(super::SYNTAX);
        }
        j += 1;
    }
    let db = ctx.client.db;
    let key = &args[1];
    if !replace && ctx.srv.lookup_write(db, key).is_some() {
        return Frame::err(BUSYKEY);
    }
    let mut ttl = match arg_i64(&args[2]) {
        Ok(n) => n,
        Err(e) => return e,
    };
    if ttl < 0 {
        return Frame::err("ERR Invalid TTL value, must be >= 0");
    }
    let Some(body) = payload::open(&args[3], ctx.srv.debug.skip_checksum) else {
        return Frame::err("ERR DUMP payload version or checksum are wrong");
    };
    let value = {
        let srv = &mut *ctx.srv;
        let mut cfg = rdb::LoadCfg {
            list_fill: srv.config.list_max_listpack_size,
            hash: super::hash::limits(srv),
            set: super::set::limits(srv),
            zset: super::zset::limits(&srv.config),
            rng: &mut srv.rng,
        };
        rdb::load(body, &mut cfg)
    };
    let Some(value) = value else {
        return Frame::err("ERR Bad data format");
    };
    let replaced = replace && ctx.srv.delete(db, key, DeleteCause::Del);
    let now = ctx.srv.now_ms();
    if ttl != 0 && !absttl {
        ttl = ttl.wrapping_add(now);
    }
    // `checkAlreadyExpired`: we are always a master that is not loading.
    if ttl != 0 && ttl <= now {
        ctx.notify_restore(key, false, replaced);
        // A key replaced by one already expired is a deletion to replicas.
        let verb: &[u8] = if ctx.srv.config.lazyfree_lazy_server_del {
            b"UNLINK"
        } else {
            b"DEL"
        };
        ctx.propagate_as(&[verb, key]);
        return Frame::ok();
    }
    ctx.srv.set_key(db, key, value, false);
    if ttl != 0 {
        ctx.srv.set_expire(db, key, ttl);
        // Replicas get the absolute time (`ABSTTL` appended, as Redis does).
        if !absttl && ctx.propagating() {
            let at = ttl.to_string();
            let mut argv: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
            argv[2] = at.as_bytes();
            argv.push(b"ABSTTL");
            ctx.propagate_as(&argv);
        }
    }
    ctx.notify_restore(key, true, replaced);
    // `objectSetLRUOrLFU`: FREQ counts under an LFU policy, IDLETIME
    // under any other; the option that does not fit the policy is ignored.
    let srv = &mut *ctx.srv;
    if srv.config.maxmemory_policy.is_lfu() {
        if lfu_freq >= 0 {
            let lru = (srv.lfu_minutes() << 8) | lfu_freq as u32;
            srv.dbs[db].set_lru(key, lru);
        }
    } else if lru_idle >= 0 {
        // Seconds, at the LRU clock's resolution of one second.
        let idle = lru_idle.saturating_mul(1000) / 1000;
        let mut abs = srv.lruclock as i64 - idle;
        if abs < 0 {
            abs += LRU_CLOCK_MAX as i64;
        }
        srv.dbs[db].set_lru(key, (abs as u32) & LRU_CLOCK_MAX);
    }
    Frame::ok()
}

#[cfg(test)]
mod tests {
    use crate::keyspace::object::Value;
    use crate::keyspace::types::stream::{NodeLimits, Stream, StreamId};
    use crate::persist::{payload, rdb};
    use crate::proto::resp::Frame;
    use crate::Engine;

    /// Counters at their limits, which only a payload can set, keep the
    /// stream commands working (Redis' unsigned counters wrap).
    #[test]
    fn restored_counters_at_their_limits_wrap() {
        let mut s = Stream::new();
        let lim = NodeLimits {
            max_bytes: 4096,
            max_entries: 100,
        };
        let pairs = [b"f".to_vec(), b"v".to_vec()];
        s.log_mut()
            .append(&pairs, Some((StreamId::new(1, 0), true)), 0, lim)
            .unwrap();
        s.log_mut().set_entries_added(u64::MAX);
        s.groups_mut().create(b"g", StreamId::MIN, i64::MAX);
        let body = rdb::save(&Value::Stream(Box::new(s)), true);
        let payload = payload::seal(body);
        let mut e = Engine::new(1);
        let c = e.connect("t");
        let args: Vec<Vec<u8>> = vec![b"RESTORE".to_vec(), b"s".to_vec(), b"0".to_vec(), payload];
        assert_eq!(e.execute(c, &args), Frame::ok());
        assert!(!e.execute_line(c, "XADD s 2-0 f v").is_error());
        assert!(!e
            .execute_line(c, "XREADGROUP GROUP g c STREAMS s >")
            .is_error());
        assert!(!e.execute_line(c, "XINFO STREAM s FULL").is_error());
        assert!(!e.execute_line(c, "XINFO GROUPS s").is_error());
    }

    /// Values whose payload was damaged (and resealed, so that the CRC
    /// passes) are refused or restored; a restored one then serves the
    /// commands of its type without a panic.
    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        const SETUP: &[&str] = &[
            "SET str abcabcabcabcabcabcabcabcabcabcabc",
            "RPUSH list a 1 -300 hello 70000 x y z",
            "HSET hash f1 v1 f2 2 f3 long-value-long-value-long-value",
            "SADD ints 1 2 3 40000",
            "SADD strs a b c",
            "ZADD zset 1 a 2.5 b -3 c",
            "XADD stream 1-1 f v g w",
            "XADD stream 2-0 f v2 g w2",
            "XADD stream 3-0 other 1",
            "XDEL stream 2-0",
            "XGROUP CREATE stream grp 0",
            "XREADGROUP GROUP grp alice COUNT 1 STREAMS stream >",
        ];
        const KEYS: &[&str] = &["str", "list", "hash", "ints", "strs", "zset", "stream"];
        const READS: &[&str] = &[
            "GET k",
            "STRLEN k",
            "APPEND k zz",
            "LRANGE k 0 -1",
            "LPUSH k new",
            "LINSERT k BEFORE a q",
            "LPOP k 2",
            "HGETALL k",
            "HSET k f9 v9",
            "HDEL k f1",
            "SMEMBERS k",
            "SADD k 7 q",
            "SREM k 1 a",
            "ZRANGE k 0 -1 WITHSCORES",
            "ZADD k 9 m",
            "ZREM k a",
            "XRANGE k - +",
            "XADD k 9-0 f v",
            "XINFO STREAM k FULL",
            "XPENDING k grp - + 10",
            "XAUTOCLAIM k grp bob 0 0",
            "XREADGROUP GROUP grp bob STREAMS k >",
            "XACK k grp 1-1",
            "XDEL k 3-0",
            "XTRIM k MAXLEN 0",
            "DUMP k",
            "OBJECT ENCODING k",
            "MEMORY USAGE k",
            "DEBUG DIGEST-VALUE k",
        ];

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]

            #[test]
            fn damaged_payloads_never_panic(
                which in 0usize..7,
                flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
            ) {
                let mut o = crate::Options::new(1);
                o.config.enable_debug_command = "yes".into();
                let mut e = Engine::with_options(o);
                let c = e.connect("t");
                for l in SETUP {
                    e.execute_line(c, l);
                }
                let Frame::Bulk(p) = e.execute_line(c, &format!("DUMP {}", KEYS[which])) else {
                    panic!("no payload");
                };
                let mut body = p[..p.len() - 10].to_vec();
                for (i, x) in &flips {
                    let at = i.index(body.len());
                    body[at] ^= x | 1;
                }
                let sealed = payload::seal(body);
                let args: Vec<Vec<u8>> = vec![b"RESTORE".to_vec(), b"k".to_vec(), b"0".to_vec(), sealed];
                let r = e.execute(c, &args);
                if r == Frame::ok() {
                    for l in READS {
                        e.execute_line(c, l);
                    }
                } else {
                    prop_assert_eq!(r, Frame::err("ERR Bad data format"));
                }
            }
        }
    }
}
