//! DEBUG (debug.c): the subcommands tests, client libraries' suites and lessons use — DIGEST, DIGEST-VALUE, OBJECT, PROTOCOL, ERROR, LOG, POPULATE, RELOAD, LOADAOF, SLEEP, SET-ACTIVE-EXPIRE, PAUSE-CRON, SET-DISABLE-DENY-SCRIPTS, SET-SKIP-CHECKSUM-VALIDATION, QUICKLIST-PACKED-THRESHOLD, LISTPACK, QUICKLIST, STRINGMATCH-TEST, CHANGE-REPL-ID and HELP.
//!
//! SLEEP keeps the main thread busy in virtual time: the clock moves on by
//! the time asked once the command ends, so every other client waits, and
//! the native server, which keeps virtual time on the wall clock, blocks for
//! real. Left out, with Redis' unknown-subcommand error: SEGFAULT, PANIC,
//! allocator and reply-buffer internals.
//!
//! ERROR is how client libraries test their handling of error replies
//! (redis-py's suite makes LOADING, READONLY and OOM errors with it): its
//! text goes out as an error line, and like Redis' raw `addReplySds` it is
//! not counted in INFO errorstats or as a failed call.

use super::args::{is, positive_long_arg};
use super::table::{commands, Command, Ctx};
use crate::keyspace::object::{Obj, Value};
use crate::proto::resp::{parse_i64, Frame};
use crate::server::Lookup;

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "server";
    "debug" => debug, arity: -2, flags: [ADMIN, NOSCRIPT, LOADING, STALE, PROTECTED], acl: [ADMIN, SLOW, DANGEROUS], since: "1.0.0",
        syntax: "DEBUG subcommand [argument ...]", summary: "A container for debugging commands.";
};

fn debug(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let sub = args[1].to_ascii_lowercase();
    let n = args.len();
    match (sub.as_slice(), n) {
        (b"help", 2) => help(),
        (b"digest", 2) => Frame::simple(hex(&digest_all(ctx))),
        (b"digest-value", _) => Frame::Array(
            args[2..]
                .iter()
                .map(|k| {
                    let db = ctx.db();
                    let d = ctx
                        .srv
                        .lookup(db, k, Lookup::READ_NOTOUCH)
                        .map(|o| value_digest(&o.value))
                        .unwrap_or([0; 20]);
                    Frame::simple(hex(&d))
                })
                .collect(),
        ),
        (b"object", 3) => object(ctx, &args[2]),
        (b"protocol", 3) => protocol(ctx, &args[2]),
        (b"reload", _) => reload(&args[2..]),
        (b"loadaof", 2) => Frame::ok(),
        (b"change-repl-id", 2) => Frame::ok(),
        (b"sleep", 3) => {
            // `strtod`: a leading number, anything else reads as 0.
            let secs = crate::num::double::strtod(&args[2]).value;
            if secs.is_finite() && secs > 0.0 {
                ctx.srv.charge_main_thread((secs * 1e9) as u64);
            }
            Frame::ok()
        }
        (b"pause-cron", 3) => {
            ctx.srv.debug.pause_cron = atoi(&args[2]) != 0;
            Frame::ok()
        }
        (b"error", 3) => {
            ctx.srv.stats.raw_error_reply = true;
            // `sdsmapchars(errstr, "\n\r", "  ")`: one line, whatever was sent.
            let text: Vec<u8> = args[2]
                .iter()
                .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b })
                .collect();
            Frame::Error(String::from_utf8_lossy(&text).into_owned())
        }
        (b"log", 3) => {
            let text = crate::server::lossy(&args[2]);
            ctx.srv.log(crate::server::log::Level::Warning, || {
                format!("DEBUG LOG: {text}")
            });
            Frame::ok()
        }
        (b"populate", 3..=5) => populate(ctx, args),
        (b"set-skip-checksum-validation", 3) => {
            ctx.srv.debug.skip_checksum = atoi(&args[2]) != 0;
            Frame::ok()
        }
        (b"set-disable-deny-scripts", 3) => {
            ctx.srv.debug.allow_deny_scripts = atoi(&args[2]) != 0;
            Frame::ok()
        }
        (b"listpack", 3) => encoding_repr(ctx, &args[2], "listpack"),
        (b"htstats-key", 3..) => htstats_key(
            ctx,
            &args[2],
            n >= 4 && args[3].eq_ignore_ascii_case(b"full"),
        ),
        (b"quicklist", 3 | 4) => encoding_repr(ctx, &args[2], "quicklist"),
        (b"stringmatch-test", 2) => Frame::simple("Apparently Redis did not crash: test passed"),
        (b"set-active-expire", 3) => match parse_i64(&args[2]) {
            Some(v) => {
                ctx.srv.debug.active_expire = v != 0;
                Frame::ok()
            }
            None => Frame::err("ERR value is not an integer or out of range"),
        },
        (b"quicklist-packed-threshold", 3) => match std::str::from_utf8(&args[2])
            .ok()
            .and_then(crate::server::config::parse_memory)
        {
            // `quicklistisSetPackedThreshold`: 0 restores the default.
            Some(v) if v <= (1 << 32) - (1 << 20) => {
                ctx.srv.debug.quicklist_packed_threshold = if v == 0 { 1 << 30 } else { v };
                Frame::ok()
            }
            _ => {
                Frame::err("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
            }
        },
        // `addReplySubcommandSyntaxError`: DEBUG's subcommands are not in
        // the command table, so an unknown one and a wrong count read alike.
        _ => super::replies::subcommand_syntax_error(args),
    }
}

/// DEBUG POPULATE count [prefix [size]]: keys `prefix:0` to `prefix:<count-1>`
/// (`key` by default, the name cut at 127 bytes like Redis' buffer) holding
/// `value:<n>`, cut or padded with zero bytes to `size` when one is given.
/// Keys that exist are left as they are. As in Redis the keys are not
/// replicated, not counted as changes toward a save and notified only as
/// `new`; WATCH and client-side caching see them.
fn populate(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let count = match positive_long_arg(&args[2], None) {
        Ok(n) => n as u64,
        Err(e) => return e,
    };
    let size = match args.get(4).map(|a| positive_long_arg(a, None)) {
        Some(Ok(n)) => n as u64,
        Some(Err(e)) => return e,
        None => 0,
    };
    if !room_for(ctx.srv.dbs[ctx.db()].len() as u64, count, size) {
        return Frame::err("ERR OOM in dictTryExpand");
    }
    // A C string: the prefix ends at its first NUL byte.
    let prefix = match args.get(3) {
        Some(p) => p.split(|&b| b == 0).next().unwrap_or_default(),
        None => b"key".as_slice(),
    };
    let db = ctx.db();
    for j in 0..count {
        let mut key = prefix.to_vec();
        key.push(b':');
        key.extend_from_slice(j.to_string().as_bytes());
        key.truncate(127);
        if ctx.srv.lookup_write(db, &key).is_some() {
            continue;
        }
        let mut val = format!("value:{j}").into_bytes();
        if size > 0 {
            val.resize(size as usize, 0);
        }
        let value = Value::String(crate::keyspace::object::RString::from_bytes(&val));
        ctx.srv.add_key_unrecorded(db, &key, value);
    }
    Frame::ok()
}

/// `dictTryExpand` fails when the table for `len + count` keys cannot be
/// allocated. Redsim cannot ask the allocator ahead, so it refuses when the
/// table (a power of two of 8-byte buckets, as Redis sizes it) would pass
/// what the host can give: 256 MiB in a 32-bit (browser) build, 16 GiB
/// natively. The values count too (`count` of `size` bytes): where Redis'
/// allocator would abort the server, Redsim gives that error instead, and
/// a browser tab keeps its session.
fn room_for(len: u64, count: u64, size: u64) -> bool {
    let limit: u64 = if usize::BITS == 32 {
        256 << 20
    } else {
        16 << 30
    };
    len.checked_add(count)
        .and_then(u64::checked_next_power_of_two)
        .and_then(|buckets| buckets.checked_mul(8))
        .and_then(|table| count.checked_mul(size)?.checked_add(table))
        .is_some_and(|bytes| bytes <= limit)
}

/// C's `atoi`: an optional sign and the digits that follow, else 0.
fn atoi(arg: &[u8]) -> i64 {
    let s = String::from_utf8_lossy(arg);
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let end = digits.bytes().take_while(u8::is_ascii_digit).count();
    let v: i64 = digits[..end].parse().unwrap_or(0);
    if neg {
        -v
    } else {
        v
    }
}

/// DEBUG HTSTATS-KEY key [FULL]: the stats of the hash table behind a set,
/// hash or sorted set (`dictGetStats`), as verbatim text.
fn htstats_key(ctx: &mut Ctx, key: &[u8], full: bool) -> Frame {
    use crate::keyspace::object::Value;
    let db = ctx.db();
    let Some(o) = ctx.srv.lookup(db, key, Lookup::READ_NOTOUCH) else {
        return Frame::err("ERR no such key");
    };
    let text = match &o.value {
        Value::Set(s) => s.table_stats(full),
        Value::Hash(h) => h.table_stats(full),
        Value::ZSet(z) => z.table_stats(full),
        _ => None,
    };
    match text {
        Some(t) => Frame::Verbatim(*b"txt", t.into_bytes()),
        None => Frame::err(
            "ERR The value stored at the specified key is not represented using an hash table",
        ),
    }
}

/// DEBUG LISTPACK / QUICKLIST: Redis prints the structure on its stdout
/// and says so; here the inspector draws it, and the reply is Redis'.
fn encoding_repr(ctx: &mut Ctx, key: &[u8], want: &'static str) -> Frame {
    let db = ctx.db();
    let Some(o) = ctx.srv.lookup(db, key, Lookup::READ_NOTOUCH) else {
        return Frame::err("ERR no such key");
    };
    if o.value.encoding() != want {
        return Frame::err(format!("ERR Not a {want} encoded object."));
    }
    match want {
        "listpack" => Frame::simple("Listpack structure printed on stdout"),
        _ => Frame::simple("Quicklist structure printed on stdout"),
    }
}

/// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: the dataset saved to RDB and
/// loaded back is the dataset, so what remains observable is the error
/// for loading over existing data without MERGE.
fn reload(opts: &[Vec<u8>]) -> Frame {
    let (mut merge, mut noflush) = (false, false);
    for o in opts {
        if is(o, "merge") {
            merge = true;
        } else if is(o, "noflush") {
            noflush = true;
        } else if is(o, "nosave") {
        } else {
            return Frame::err(
                "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.",
            );
        }
    }
    if noflush && !merge {
        return Frame::err("ERR Error trying to load the RDB dump, check server logs.");
    }
    Frame::ok()
}

/// DEBUG OBJECT: the fields debug.c prints. `serializedlength` is
/// `rdbSavedObjectLen`: the value's RDB encoding without its type byte.
fn object(ctx: &mut Ctx, key: &[u8]) -> Frame {
    let db = ctx.db();
    let clock = ctx.srv.lruclock;
    let compress = ctx.srv.config.rdbcompression;
    let compress_depth = ctx.srv.config.list_compress_depth;
    // debug.c finds the key in the dict itself: an expired key is still
    // described, and not deleted.
    let Some(o) = ctx.srv.dbs[db].get(key) else {
        return Frame::err("ERR no such key");
    };
    let (enc, len, extra) = describe(o, compress, compress_depth);
    let lru = ctx.srv.dbs[db].lru(key).unwrap_or(0);
    let idle = if clock >= lru {
        clock - lru
    } else {
        clock + (crate::keyspace::object::LRU_CLOCK_MAX - lru)
    };
    Frame::simple(format!(
        "Value at:0x7f5a8c00{:04x} refcount:1 encoding:{enc} serializedlength:{len} lru:{lru} lru_seconds_idle:{idle}{extra}",
        key.len() & 0xffff
    ))
}

fn describe(o: &Obj, compress: bool, compress_depth: i32) -> (&'static str, usize, String) {
    let enc = o.value.encoding();
    let len = crate::persist::rdb::save(&o.value, compress).len() - 1;
    match &o.value {
        Value::List(l) if enc == "quicklist" => (
            enc,
            len,
            format!(
                " ql_nodes:{} ql_avg_node:{:.2} ql_listpack_max:{} ql_compressed:{} ql_uncompressed_size:{}",
                l.node_count(),
                l.len() as f64 / l.node_count().max(1) as f64,
                l.fill(),
                u8::from(compress_depth != 0),
                l.listpack_bytes()
            ),
        ),
        _ => (enc, len, String::new()),
    }
}

/// DEBUG PROTOCOL <type>: one reply of each RESP3 type.
fn protocol(ctx: &mut Ctx, name: &[u8]) -> Frame {
    let resp3 = ctx.client.resp >= 3;
    let ints = || (0..3).map(Frame::Integer).collect::<Vec<_>>();
    match name.to_ascii_lowercase().as_slice() {
        b"string" => Frame::bulk("Hello World"),
        b"integer" => Frame::Integer(12345),
        // debug.c's test value, not π.
        #[allow(clippy::approx_constant)]
        b"double" => Frame::Double(3.141),
        b"bignum" => Frame::BigNumber("1234567999999999999999999999999999999".into()),
        b"null" => Frame::Null,
        b"array" => Frame::Array(ints()),
        b"set" => Frame::Set(ints()),
        b"map" => Frame::Map(
            (0..3)
                .map(|i| (Frame::Integer(i), Frame::Boolean(i == 1)))
                .collect(),
        ),
        // The attribute goes out just ahead of the reply (RESP2 drops it).
        b"attrib" => {
            let attr = Frame::Attribute(vec![(
                Frame::bulk("key-popularity"),
                Frame::Array(vec![Frame::bulk("key:123"), Frame::Integer(90)]),
            )]);
            if resp3 {
                let id = ctx.client.id;
                ctx.srv.tracking.before_reply.push((id, attr));
            }
            Frame::bulk("Some real reply following the attribute")
        }
        b"push" if !resp3 => Frame::err("ERR RESP2 is not supported by this command"),
        b"push" => Frame::bulk("Some real reply following the push reply"),
        b"true" => Frame::Boolean(true),
        b"false" => Frame::Boolean(false),
        b"verbatim" => Frame::Verbatim(*b"txt", b"This is a verbatim\nstring".to_vec()),
        _ => Frame::err(
            "ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false",
        ),
    }
}

/// `xorDigest`: the SHA1 of `data` XORed into `d` (order-free sets).
fn xor_digest(d: &mut [u8; 20], data: &[u8]) {
    let h = sha1_smol::Sha1::from(data).digest().bytes();
    for (a, b) in d.iter_mut().zip(h) {
        *a ^= b;
    }
}

/// `mixDigest`: XOR in, then hash the digest itself (order matters).
fn mix_digest(d: &mut [u8; 20], data: &[u8]) {
    xor_digest(d, data);
    *d = sha1_smol::Sha1::from(&d[..]).digest().bytes();
}

/// `xorObjectDigest`'s value part: equal values give equal digests
/// whatever their encoding or insertion order.
fn value_digest(v: &Value) -> [u8; 20] {
    let mut d = [0u8; 20];
    match v {
        Value::String(s) => mix_digest(&mut d, &s.to_bytes()),
        Value::List(l) => {
            for e in l.iter() {
                mix_digest(&mut d, e);
            }
        }
        Value::Set(s) => {
            for m in s.iter() {
                xor_digest(&mut d, &m.to_vec());
            }
        }
        Value::ZSet(z) => {
            for (m, score) in z.entries() {
                let mut e = [0u8; 20];
                mix_digest(&mut e, m);
                mix_digest(&mut e, crate::num::double::g17(score).as_bytes());
                xor_digest(&mut d, &e);
            }
        }
        Value::Hash(h) => {
            for (f, val) in h.iter() {
                let mut e = [0u8; 20];
                mix_digest(&mut e, f);
                mix_digest(&mut e, val);
                xor_digest(&mut d, &e);
            }
        }
        // Streams digest their whole state (entries, groups, PELs).
        Value::Stream(s) => mix_digest(&mut d, format!("{s:?}").as_bytes()),
    }
    d
}

/// DEBUG DIGEST: every key of every database with its value and expiry,
/// XORed together; all zeros for an empty server.
fn digest_all(ctx: &mut Ctx) -> [u8; 20] {
    let mut out = [0u8; 20];
    for (i, db) in ctx.srv.dbs.iter().enumerate() {
        if db.is_empty() {
            continue;
        }
        mix_digest(&mut out, &(i as u32).to_le_bytes());
        for (key, obj) in db.dict.iter() {
            let mut aux = [0u8; 20];
            mix_digest(&mut aux, key);
            let v = value_digest(&obj.value);
            xor_digest(&mut aux, &v);
            if let Some(at) = db.expire_at(key) {
                xor_digest(&mut aux, format!("!!expire!!{at}").as_bytes());
            }
            xor_digest(&mut out, &aux);
        }
    }
    out
}

fn hex(d: &[u8; 20]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn help() -> Frame {
    let lines = [
        "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANGE-REPL-ID",
        "    Accepted; the replication ID stays as it is.",
        "DIGEST",
        "    Output a hex signature representing the current DB content.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    Output a hex signature of the values of all the specified keys.",
        "ERROR <string>",
        "    Return a Redis protocol error with <string> as message. Useful for clients",
        "    unit tests to simulate Redis errors.",
        "HTSTATS-KEY <key> [full]",
        "    Like HTSTATS but for the hash table stored at <key>'s value.",
        "LISTPACK <key>",
        "    Show low level info about the listpack encoding of <key>.",
        "LOG <message>",
        "    Write <message> to the server log.",
        "LOADAOF",
        "    Flush the AOF buffers on disk and reload the AOF in memory.",
        "OBJECT <key>",
        "    Show low level info about the <key> and associated value.",
        "POPULATE <count> [<prefix>] [<size>]",
        "    Create <count> string keys named key:<num>. If <prefix> is specified then",
        "    it is used instead of the 'key' prefix. These are not propagated to",
        "    replicas. Cluster slots are not respected so keys not belonging to the",
        "    current node can be created in cluster mode.",
        "PROTOCOL <type>",
        "    Reply with a test value of the specified type. <type> can be: string,",
        "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
        "    true, false.",
        "PAUSE-CRON <0|1>",
        "    Stop periodic cron job processing.",
        "QUICKLIST <key> [<0|1>]",
        "    Show low level info about the quicklist encoding of <key>.",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    Sets the threshold for elements to be inserted as plain vs packed nodes",
        "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
        "RELOAD [option ...]",
        "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
        "    * MERGE: Merge the content of the RDB with existing data.",
        "    * NOFLUSH: Do not flush the data before loading.",
        "    * NOSAVE: Do not save the RDB before loading.",
        "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
        "    Enables or disables checksum checks for RDB files and RESTORE's payload.",
        "SET-DISABLE-DENY-SCRIPTS <0|1>",
        "    Allow commands flagged noscript to run from scripts (a test knob).",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "STRINGMATCH-TEST",
        "    Run a fuzz tester against the stringmatchlen() function.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not",
        "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
        "    default.",
        "HELP",
        "    Print this help.",
    ];
    Frame::Array(lines.iter().map(|l| Frame::simple(l.to_string())).collect())
}

#[cfg(test)]
mod tests {
    use crate::proto::resp::Frame;
    use crate::Engine;

    fn line(e: &mut Engine, c: u64, l: &str) -> Frame {
        e.execute_line(c, l)
    }

    /// An engine that allows DEBUG (Redis refuses it by default).
    fn engine() -> Engine {
        let mut o = crate::Options::new(1);
        o.config.enable_debug_command = "yes".into();
        Engine::with_options(o)
    }

    #[test]
    fn digests_ignore_encoding_and_order_but_not_content() {
        let mut e = engine();
        let c = e.connect("t");
        line(&mut e, c, "SADD a 1 2 3");
        line(&mut e, c, "SADD b 3 2 1 x");
        line(&mut e, c, "SREM b x");
        let r = line(&mut e, c, "DEBUG DIGEST-VALUE a b nokey");
        let Frame::Array(d) = r else { panic!("{r:?}") };
        assert_eq!(d[0], d[1], "an intset and a listpack of the same members");
        assert_eq!(d[2], Frame::simple("0".repeat(40)));
        line(&mut e, c, "SADD b 4");
        let Frame::Array(d2) = line(&mut e, c, "DEBUG DIGEST-VALUE a b") else {
            panic!()
        };
        assert_ne!(d2[0], d2[1]);
        let before = line(&mut e, c, "DEBUG DIGEST");
        line(&mut e, c, "EXPIRE a 100");
        assert_ne!(line(&mut e, c, "DEBUG DIGEST"), before, "expiry counts");
        line(&mut e, c, "FLUSHALL");
        assert_eq!(
            line(&mut e, c, "DEBUG DIGEST"),
            Frame::simple("0".repeat(40))
        );
    }

    #[test]
    fn active_expire_can_be_switched_off() {
        let mut e = engine();
        let c = e.connect("t");
        line(&mut e, c, "DEBUG SET-ACTIVE-EXPIRE 0");
        line(&mut e, c, "SET k v PX 10");
        e.advance_by(2_000_000);
        assert_eq!(e.dbsize(0), 1, "no active expiry");
        assert_eq!(line(&mut e, c, "GET k"), Frame::Null, "lazy expiry still");
        line(&mut e, c, "DEBUG SET-ACTIVE-EXPIRE 1");
        line(&mut e, c, "SET k v PX 10");
        e.advance_by(2_000_000);
        assert_eq!(e.dbsize(0), 0);
    }

    #[test]
    fn errors_are_redis_words() {
        let mut plain = Engine::new(1);
        let c = plain.connect("t");
        let Frame::Error(refused) = line(&mut plain, c, "DEBUG HELP") else {
            panic!("DEBUG is refused by default")
        };
        assert!(
            refused.starts_with("ERR DEBUG command not allowed."),
            "{refused}"
        );
        let mut e = engine();
        let c = e.connect("t");
        assert_eq!(
            line(&mut e, c, "DEBUG NOPE"),
            Frame::err(
                "ERR unknown subcommand or wrong number of arguments for 'NOPE'. Try DEBUG HELP."
            )
        );
        assert_eq!(
            line(&mut e, c, "DEBUG POPULATE 1 p 100000000000000"),
            Frame::err("ERR OOM in dictTryExpand"),
            "values that cannot be had are refused, not allocated"
        );
        assert_eq!(
            line(&mut e, c, "DEBUG OBJECT missing"),
            Frame::err("ERR no such key")
        );
        assert_eq!(
            line(&mut e, c, "DEBUG RELOAD NOFLUSH"),
            Frame::err("ERR Error trying to load the RDB dump, check server logs.")
        );
        assert_eq!(line(&mut e, c, "DEBUG RELOAD NOFLUSH MERGE"), Frame::ok());
        assert_eq!(
            line(&mut e, c, "DEBUG QUICKLIST-PACKED-THRESHOLD 5gb"),
            Frame::err("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
        );
        assert_eq!(
            line(&mut e, c, "DEBUG QUICKLIST-PACKED-THRESHOLD 1b"),
            Frame::ok()
        );
        assert_eq!(
            line(&mut e, c, "DEBUG QUICKLIST-PACKED-THRESHOLD 100kb"),
            Frame::ok()
        );
        line(&mut e, c, "SET s hello");
        let Frame::Simple(o) = line(&mut e, c, "DEBUG OBJECT s") else {
            panic!()
        };
        assert!(o.contains("encoding:embstr serializedlength:6 "), "{o}");
    }
}
