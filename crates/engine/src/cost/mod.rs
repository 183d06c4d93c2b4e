//! CPU cost model: how long a command keeps Redis' single thread busy, charged to the virtual clock after the command runs.
//!
//! Redis serves one command at a time, so a command that walks a big
//! collection (HGETALL of a million fields, `KEYS *`, SMEMBERS, LRANGE 0 -1)
//! delays every other client by its running time. Redsim reproduces that
//! without timing itself: `call` (cmd/dispatch.rs) asks [`command_ns`] for the
//! cost of the command that just ran and charges it to the main thread
//! (`Server::charge_main_thread`); the clock moves when the command ends, as
//! for a synchronous free, and SLOWLOG, LATENCY and INFO commandstats report
//! the same figure.
//!
//! # The rule
//!
//! One formula for every command, following the complexity of Redis'
//! command table rather than special cases:
//!
//! ```text
//! cost = CALL_NS                       fixed: dispatch, checks, the reply's header
//!      + ARG_NS     × arguments        parsing and storing each (HSET of 1,000 fields)
//!      + KEY_NS     × key arguments    one dictionary lookup each (MGET, MSET, DEL k1 … kN)
//!      + leaf_ns    × reply elements   every bulk, integer, double… inside an array or map
//!      + BYTE_NS    × reply bytes      copying big values into the reply
//!      + VISIT_NS   × visited          work the reply does not show
//! ```
//!
//! - *Arguments* are all but the command's name: writes that take many
//!   elements (HSET, SADD, RPUSH, ZADD, MSET) pay for each.
//! - *Reply elements* are the leaves of an array, set or map reply:
//!   HGETALL of N fields has 2N, LRANGE 0 -1 of N has N; a single-value
//!   reply (GET's bulk, +OK, an integer) has none beyond [`CALL_NS`].
//!   Producing each element means reaching it in the structure, so the
//!   reply size is what most range and whole-collection commands cost. `leaf_ns` is [`LEAF_NS`] for elements reached through
//!   pointers (a hash table, a skiplist, the keyspace) and
//!   [`PACKED_LEAF_NS`] when the command's first key holds a packed
//!   encoding (listpack, quicklist, intset), whose elements sit side by side.
//! - *Visited* ([`Meter::visited`]) is fed by the few commands whose work
//!   is bigger than their reply: KEYS and SCAN (keys examined,
//!   matched or not), SUNION/SINTER/SDIFF and the sorted-set algebra
//!   (elements of the inputs, the `STORE` forms included), SORT
//!   (N log₂ N comparisons).
//! - EXEC, scripts and functions charge nothing of their own reply: the
//!   commands they ran were charged one by one (the Lua steps themselves
//!   are the script model's business).
//! - Freeing stays lazyfree's (it adds its own cost), DEBUG SLEEP its time.
//!
//! The clock has microsecond resolution and a command's charge below 1 µs
//! is dropped (`Server::settle_stall`): GET costs 0.6 µs here, SET 0.7 µs,
//! HSET of one field 0.8 µs (Redis' commandstats: 0.3-1 µs), so
//! single-key commands still take no virtual time and only real work (a
//! 100-key MGET, a big range, a 1,000-field HSET) moves the clock. `redsim-cpu-model no` turns the model off.
//!
//! # Calibration
//!
//! Measured on redis-server 7.0.15 on the 2-core build machine (SLOWLOG
//! with `slowlog-log-slower-than 0`, median of three runs; INFO
//! commandstats `usec_per_call` for PING and GET over 2,000 calls), beside
//! what this model charges:
//!
//! | command                                   | Redis 7.0.15 | model    |
//! |-------------------------------------------|-------------:|---------:|
//! | PING                                      | 0.34 µs      | 0.2 µs   |
//! | GET (hot key, 7-byte value)               | 0.82 µs      | 0.6 µs   |
//! | MGET of 100 keys (1M-key db)              | 129 µs       | 74 µs    |
//! | MSET of 100 keys                          | 66 µs        | 50 µs    |
//! | HSET of 1,000 fields (hashtable)          | 185 µs       | 201 µs   |
//! | SADD of 1,000 members                     | 180 µs       | 101 µs   |
//! | RPUSH of 1,000 elements                   | 70 µs        | 101 µs   |
//! | GET of a 10 MB string                     | 6-13 ms      | 10 ms    |
//! | HGETALL, 100-field listpack               | 16 µs        | 15 µs    |
//! | HGETALL, 10k-field hashtable              | 2.7 ms       | 6.7 ms   |
//! | HGETALL, 1M-field hashtable               | 649 ms       | 674 ms   |
//! | HKEYS, 1M-field hashtable                 | 593 ms       | 337 ms   |
//! | SMEMBERS, 1M-member hashtable set         | 640 ms       | 338 ms   |
//! | LRANGE 0 -1, 1M-element quicklist         | 80 ms        | 82 ms    |
//! | LRANGE 0 99, 1M-element quicklist         | 18 µs        | 8 µs     |
//! | ZRANGE 0 -1, 1M-member skiplist           | 141 ms       | 338 ms   |
//! | ZRANGE 0 -1 WITHSCORES, 1M skiplist       | 410 ms       | 669 ms   |
//! | ZRANGEBYSCORE, 1,000 of a 1M skiplist     | 129 µs       | 337 µs   |
//! | KEYS * over 1M keys                       | 538 ms       | 535 ms   |
//! | KEYS nomatch* over 1M keys                | 154 ms       | 200 ms   |
//! | SCAN 0 COUNT 1000 (1M keys)               | 1.3 ms       | 0.5 ms   |
//! | SUNION of two 10k sets                    | 15 ms        | 9.5 ms   |
//! | SINTER of two 10k sets                    | 2.8 ms       | 5.1 ms   |
//!
//! The HGETALL, LRANGE, KEYS and GET figures of the model were read back
//! from a `redsim server`'s SLOWLOG.
//!
//! So `KEYS *` over 10M keys holds the thread about 5.4 s, and HGETALL of
//! a million-field hash about 0.67 s. Redis' own per-element cost swings by
//! a factor of 2-4 with cache misses (a 10k hash is four times cheaper
//! per field than a 1M one) and reply formatting (WITHSCORES prints
//! doubles); the model keeps one constant per kind and is within that
//! factor everywhere above and within 5% on the teaching figures (HGETALL
//! and LRANGE 0 -1 of a million, KEYS).

use crate::proto::resp::Frame;

/// Fixed cost of any command: lookup, arity and ACL checks, `call`'s
/// bookkeeping, a single-value reply (PING: 0.34 µs on Redis).
pub const CALL_NS: u64 = 200;
/// One argument after the command's name: parsing it, storing it (HSET of
/// 1,000 fields: 185 µs; RPUSH of 1,000: 70 µs).
pub const ARG_NS: u64 = 100;
/// One key argument: a dictionary lookup (GET: 0.82 µs).
pub const KEY_NS: u64 = 300;
/// One reply element reached through a pointer: a hash-table entry, a
/// skiplist node, a key of the keyspace (HGETALL of 1M fields: 649 ms for
/// 2M elements).
pub const LEAF_NS: u64 = 325;
/// One reply element of a packed encoding (LRANGE 0 -1 of a 1M quicklist:
/// 80 ms).
pub const PACKED_LEAF_NS: u64 = 70;
/// One element examined without being replied (KEYS with a pattern that
/// matches nothing: 154 ms over 1M keys).
pub const VISIT_NS: u64 = 200;
/// One reply byte copied into the client's reply buffer (GET of a 10 MB
/// string: 6-13 ms).
pub const BYTE_NS: u64 = 1;

/// What the running command reports of its work beyond its reply.
#[derive(Debug, Default, Clone, Copy)]
pub struct Meter {
    /// Elements examined that the reply does not show.
    pub visited: u64,
}

/// Elements of `reply` inside arrays, sets and maps (a single-value reply
/// has none), and the bytes of its strings, for [`command_ns`].
pub fn reply_size(reply: &Frame) -> (u64, u64) {
    // Most replies are one value: no walk.
    match reply {
        Frame::Bulk(b) | Frame::Verbatim(_, b) => return (0, b.len() as u64),
        Frame::Array(_) | Frame::Set(_) | Frame::Push(_) | Frame::Map(_) => {}
        Frame::Attribute(_) => {}
        _ => return (0, 0),
    }
    let mut leaves = 0;
    let mut bytes = 0;
    let mut stack = vec![reply];
    while let Some(f) = stack.pop() {
        match f {
            Frame::Array(v) | Frame::Set(v) | Frame::Push(v) => stack.extend(v.iter()),
            Frame::Map(kv) | Frame::Attribute(kv) => {
                for (k, v) in kv {
                    stack.push(k);
                    stack.push(v);
                }
            }
            Frame::Bulk(b) | Frame::Verbatim(_, b) => {
                leaves += 1;
                bytes += b.len() as u64;
            }
            _ => leaves += 1,
        }
    }
    (leaves, bytes)
}

/// What one command did, in the units the model charges.
#[derive(Debug, Default, Clone, Copy)]
pub struct Work {
    /// Arguments after the command's name.
    pub args: u64,
    /// Key arguments.
    pub keys: u64,
    /// Reply elements ([`reply_size`]).
    pub leaves: u64,
    /// Reply bytes.
    pub bytes: u64,
    /// The first key holds a packed encoding.
    pub packed: bool,
    /// Elements examined beyond the reply ([`Meter::visited`]).
    pub visited: u64,
}

/// The modelled CPU time of one command, in ns: see the module doc.
pub fn command_ns(w: Work) -> u64 {
    let leaf = if w.packed { PACKED_LEAF_NS } else { LEAF_NS };
    CALL_NS
        + w.args * ARG_NS
        + w.keys * KEY_NS
        + w.leaves * leaf
        + w.bytes * BYTE_NS
        + w.visited * VISIT_NS
}

/// Whether an encoding (OBJECT ENCODING's name) keeps its elements packed
/// side by side rather than behind pointers.
pub fn packed_encoding(name: &str) -> bool {
    matches!(name, "listpack" | "quicklist" | "intset" | "ziplist")
}

/// N log₂ N, the comparisons of sorting N elements (SORT, for [`Meter`]).
pub fn sort_work(n: u64) -> u64 {
    n * (64 - n.leading_zeros() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_size_counts_elements_and_bytes() {
        let f = Frame::Array(vec![
            Frame::bulk("ab"),
            Frame::Array(vec![Frame::Integer(1), Frame::bulk("xyz")]),
            Frame::Null,
        ]);
        assert_eq!(reply_size(&f), (4, 5));
        assert_eq!(reply_size(&Frame::Array(vec![])), (0, 0));
        // A single value is the command's own result, not an element.
        assert_eq!(reply_size(&Frame::bulk("hello")), (0, 5));
        assert_eq!(reply_size(&Frame::ok()), (0, 0));
    }

    fn ns(args: u64, keys: u64, leaves: u64, bytes: u64, packed: bool, visited: u64) -> u64 {
        command_ns(Work {
            args,
            keys,
            leaves,
            bytes,
            packed,
            visited,
        })
    }

    /// The teaching figures the lessons rely on.
    #[test]
    fn big_commands_take_visible_time_small_ones_none() {
        // GET, SET, HSET of one field: under a microsecond, dropped by the clock.
        assert!(ns(1, 1, 0, 10, false, 0) < 1_000);
        assert!(ns(2, 1, 0, 0, false, 0) < 1_000);
        assert!(ns(3, 1, 0, 0, false, 0) < 1_000);
        // HGETALL of 1M fields: 2M elements, about 0.65 s.
        let hgetall = ns(1, 1, 2_000_000, 24_000_000, false, 0);
        assert!((600_000_000..750_000_000).contains(&hgetall), "{hgetall}");
        // KEYS * over 10M keys: every key examined and replied, about 5 s.
        let keys = ns(1, 0, 10_000_000, 100_000_000, false, 10_000_000);
        assert!((4_500_000_000..6_000_000_000).contains(&keys), "{keys}");
        // LRANGE 0 -1 of a packed 1M list: tens of ms, not hundreds.
        let lrange = ns(3, 1, 1_000_000, 10_000_000, true, 0);
        assert!((50_000_000..120_000_000).contains(&lrange), "{lrange}");
    }

    #[test]
    fn sort_work_is_n_log_n() {
        assert_eq!(sort_work(0), 0);
        assert_eq!(sort_work(1), 1);
        assert_eq!(sort_work(1024), 1024 * 11);
    }
}
