//! Replication: the stream's offsets against a real master/replica pair of redis-servers, and the engine's replicas, WAIT, min-replicas, resyncs and promotion on the virtual clock.

use redsim_engine::repl::Sync;
use redsim_engine::{ClientId, Engine, Frame};
use redsim_tests::{eventually, Conn, RedisServer};
use std::time::Duration;

fn cmd(e: &mut Engine, c: ClientId, line: &str) -> Frame {
    e.execute_line(c, line)
}

fn info_field(text: &str, name: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .map(|v| v.trim().to_string())
}

fn info(e: &mut Engine, c: ClientId) -> String {
    match cmd(e, c, "INFO replication") {
        Frame::Verbatim(_, b) | Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
        other => panic!("INFO gave {other:?}"),
    }
}

fn conn_info(c: &mut Conn) -> String {
    match c.cmd(&["INFO", "replication"]) {
        Frame::Verbatim(_, b) | Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
        other => panic!("INFO gave {other:?}"),
    }
}

/// A master and a replica wired by hand: ops flow when `sync` is called.
struct Pair {
    master: Engine,
    replica: Engine,
    m: ClientId,
    r: ClientId,
}

impl Pair {
    fn new() -> Pair {
        let mut master = Engine::new(1);
        let mut replica = Engine::new(2);
        let m = master.connect("m");
        let r = replica.connect("r");
        assert_eq!(
            cmd(&mut replica, r, "REPLICAOF 127.0.0.1 6379"),
            Frame::ok()
        );
        let (id, off) = replica.psync_request();
        let s = master.psync("127.0.0.1:6380", &id, off);
        assert!(
            matches!(s, Sync::Full { .. }),
            "a new replica takes a full sync"
        );
        replica.finish_sync(&s);
        Pair {
            master,
            replica,
            m,
            r,
        }
    }

    /// A second replica of the same master, fully synced, at `127.0.0.1:6381`.
    fn second_replica(&mut self) -> (Engine, ClientId) {
        let mut r2 = Engine::new(3);
        let c2 = r2.connect("r2");
        cmd(&mut r2, c2, "REPLICAOF 127.0.0.1 6379");
        let (id, off) = r2.psync_request();
        let s = self.master.psync("127.0.0.1:6381", &id, off);
        r2.finish_sync(&s);
        (r2, c2)
    }

    /// A second replica ([`Pair::second_replica`]) after a first write,
    /// `SET a 1`, that both replicas applied: where the failover tests start.
    fn second_replica_in_step(&mut self) -> (Engine, ClientId) {
        let (mut r2, c2) = self.second_replica();
        cmd(&mut self.master, self.m, "SET a 1");
        let ops = self.master.take_repl_stream();
        self.replica.apply_repl(&ops);
        r2.apply_repl(&ops);
        (r2, c2)
    }

    /// Runs `line` on the master.
    fn on_master(&mut self, line: &str) -> Frame {
        cmd(&mut self.master, self.m, line)
    }

    /// Runs `line` on the replica.
    fn on_replica(&mut self, line: &str) -> Frame {
        cmd(&mut self.replica, self.r, line)
    }

    fn sync(&mut self) {
        let ops = self.master.take_repl_stream();
        self.replica.apply_repl(&ops);
    }

    fn ack(&mut self) {
        let off = self.replica.repl().offset;
        self.master.replica_ack("127.0.0.1:6380", off);
    }

    fn advance(&mut self, ms: u64) {
        let t = self.master.now_us() + ms * 1000;
        self.master.advance_to(t);
        self.replica.advance_to(t);
    }
}

#[test]
fn writes_reach_the_replica_only_when_the_stream_is_delivered() {
    let mut p = Pair::new();
    for line in ["SET a 1", "HSET h f v"] {
        p.on_master(line);
    }
    assert_eq!(
        p.on_replica("GET a"),
        Frame::Null,
        "nothing delivered yet: a stale read"
    );
    p.sync();
    assert_eq!(p.on_replica("GET a"), Frame::bulk("1"));
    assert_eq!(p.on_replica("HGET h f"), Frame::bulk("v"));
    assert_eq!(p.replica.repl().offset, p.master.repl().offset);
    let err = p.on_replica("SET a 2");
    assert_eq!(
        err,
        Frame::err("READONLY You can't write against a read only replica.")
    );
    // MULTI with a write is refused at EXEC, as Redis checks the queue's flags.
    p.on_replica("MULTI");
    p.on_replica("GET a");
    p.on_replica("INCR a");
    let exec = p.on_replica("EXEC");
    assert!(exec.is_error(), "{exec:?}");
}

#[test]
fn replicas_do_not_expire_keys_but_report_them_missing_until_the_masters_del() {
    let mut p = Pair::new();
    p.on_master("SET k v PX 100");
    p.sync();
    // Time passes; whatever the master reclaims has not reached the replica yet.
    p.advance(500);
    assert_eq!(p.on_replica("GET k"), Frame::Null, "logically expired");
    assert_eq!(p.on_replica("TTL k"), Frame::Integer(-2));
    assert_eq!(p.on_replica("DBSIZE"), Frame::Integer(1), "but still held");
    // The master's expiry (active, or lazy on this GET) propagates a DEL, which reclaims it.
    assert_eq!(p.on_master("GET k"), Frame::Null);
    p.sync();
    assert_eq!(p.on_replica("DBSIZE"), Frame::Integer(0));
}

#[test]
fn wait_counts_acknowledgements_and_rolls_nothing_back() {
    let mut p = Pair::new();
    p.on_master("SET a 1");
    assert_eq!(
        p.master.submit_line(p.m, "WAIT 1 1000"),
        None,
        "blocks until an ack"
    );
    assert!(p.master.take_ack_request(), "WAIT asks replicas for an ACK");
    p.sync();
    p.ack();
    assert_eq!(p.master.take_unblocked(), vec![(p.m, Frame::Integer(1))]);
    // Two replicas wanted, one acks: the timeout answers 1; the write stays.
    p.on_master("SET a 2");
    assert_eq!(p.master.submit_line(p.m, "WAIT 2 100"), None);
    p.sync();
    p.ack();
    assert!(p.master.take_unblocked().is_empty());
    p.advance(150);
    assert_eq!(p.master.take_unblocked(), vec![(p.m, Frame::Integer(1))]);
    assert_eq!(p.on_master("GET a"), Frame::bulk("2"));
    // Errors as Redis gives them.
    assert_eq!(
        p.on_master("WAIT x 0"),
        Frame::err("ERR value is not an integer or out of range")
    );
    assert_eq!(
        p.on_master("WAIT 1 -1"),
        Frame::err("ERR timeout is negative")
    );
    assert!(
        matches!(p.on_replica("WAIT 0 0"), Frame::Error(e) if e.starts_with("ERR WAIT cannot be used with replica instances"))
    );
}

#[test]
fn min_replicas_to_write_refuses_writes_without_fresh_acks() {
    let mut p = Pair::new();
    for line in [
        "CONFIG SET min-replicas-to-write 1",
        "CONFIG SET min-replicas-max-lag 2",
    ] {
        p.on_master(line);
    }
    assert_eq!(
        p.on_master("SET a 1"),
        Frame::ok(),
        "the replica acked at sync"
    );
    p.advance(3500);
    assert_eq!(
        p.on_master("SET a 2"),
        Frame::err("NOREPLICAS Not enough good replicas to write.")
    );
    assert_eq!(p.on_master("GET a"), Frame::bulk("1"), "reads still served");
    p.sync();
    p.ack();
    assert_eq!(p.on_master("SET a 3"), Frame::ok());
}

#[test]
fn a_short_disconnect_resyncs_partially_and_a_long_one_fully() {
    let mut p = Pair::new();
    p.on_master("SET a 1");
    p.sync();
    p.replica.master_link_down();
    let _lost = p.master.take_repl_stream(); // in flight when the link dropped
    for i in 0..10 {
        p.on_master(&format!("SET k{i} {i}"));
    }
    let (id, off) = p.replica.psync_request();
    let s = p.master.psync("127.0.0.1:6380", &id, off);
    let Sync::Partial(ops) = &s else {
        panic!("expected +CONTINUE, got {s:?}")
    };
    assert_eq!(ops.len(), 10);
    p.replica.finish_sync(&s);
    assert_eq!(p.replica.repl().offset, p.master.repl().offset);
    assert_eq!(p.on_replica("GET k9"), Frame::bulk("9"));

    // A backlog smaller than what was missed forces a full sync. CONFIG SET
    // raises a backlog below 16 KB to 16 KB, as Redis' resize does: 20 KB is missed.
    p.on_master("CONFIG SET repl-backlog-size 200");
    assert_eq!(
        p.on_master("CONFIG GET repl-backlog-size"),
        Frame::Map(vec![(
            Frame::bulk("repl-backlog-size"),
            Frame::bulk("16384")
        )])
    );
    p.replica.master_link_down();
    let _ = p.master.take_repl_stream();
    let big = "v".repeat(1000);
    for i in 0..20 {
        p.on_master(&format!("SET x{i} {big}{i}"));
    }
    let (id, off) = p.replica.psync_request();
    let s = p.master.psync("127.0.0.1:6380", &id, off);
    assert!(
        matches!(s, Sync::Full { .. }),
        "backlog overwritten: full resync"
    );
    p.replica.finish_sync(&s);
    assert_eq!(p.on_replica("GET x19"), Frame::bulk(format!("{big}19")));
    assert_eq!(p.on_replica("DBSIZE"), p.on_master("DBSIZE"));
}

#[test]
fn a_promoted_replica_keeps_the_old_history_for_the_other_replicas() {
    let mut p = Pair::new();
    let (mut r2, c2) = p.second_replica_in_step();
    // An acknowledged-by-nobody write that only the master saw:
    p.on_master("SET lost yes");
    // Failover: the first replica is promoted, the second follows it.
    assert_eq!(p.on_replica("REPLICAOF NO ONE"), Frame::ok());
    let role = p.on_replica("ROLE");
    assert!(
        matches!(&role, Frame::Array(v) if v[0] == Frame::bulk("master")),
        "{role:?}"
    );
    cmd(&mut r2, c2, "REPLICAOF 127.0.0.1 6380");
    let (id, off) = r2.psync_request();
    let s = p.replica.psync("127.0.0.1:6381", &id, off);
    assert!(
        matches!(s, Sync::Partial(_)),
        "PSYNC2: the old replid continues"
    );
    r2.finish_sync(&s);
    assert_eq!(cmd(&mut r2, c2, "GET a"), Frame::bulk("1"));
    assert_eq!(
        cmd(&mut r2, c2, "GET lost"),
        Frame::Null,
        "the write only the old master had is gone"
    );
    let i = info(&mut p.replica, p.r);
    assert_eq!(info_field(&i, "role").as_deref(), Some("master"));
    assert_eq!(info_field(&i, "connected_slaves").as_deref(), Some("1"));
}

#[test]
fn offsets_grow_by_the_commands_resp_length_as_on_a_real_master() {
    // The replica loads its full sync through an RDB file, each server in
    // a directory of its own (RedisServer::start).
    let args = ["--repl-ping-replica-period", "3600"];
    let master = RedisServer::start(&args);
    let replica = RedisServer::start(&args);
    let mut mc = master.conn();
    let mut rc = replica.conn();
    rc.cmd(&["REPLICAOF", "127.0.0.1", &master.port.to_string()]);
    eventually("the replica to sync", Duration::from_secs(20), || {
        info_field(&conn_info(&mut rc), "master_link_status").as_deref() == Some("up")
    });
    let mut sim = Pair::new();
    let script = [
        "SET a 1",
        "SET b hello",
        "INCR counter",
        "HSET h f1 v1 f2 v2",
        "LPUSH l x y z",
        "SADD s m1 m2",
        "DEL a",
        "SELECT 3",
        "SET in3 v",
        "SELECT 0",
        "SET back 0",
        "MSET m1 1 m2 2",
    ];
    let offset = |c: &mut Conn| -> i64 {
        info_field(&conn_info(c), "master_repl_offset")
            .and_then(|v| v.parse().ok())
            .unwrap()
    };
    let sim_offset = |p: &mut Pair| p.master.repl().offset as i64;
    let (r0, s0) = (offset(&mut mc), sim_offset(&mut sim));
    let mut real = Vec::new();
    let mut ours = Vec::new();
    for line in script {
        let parts: Vec<&str> = line.split(' ').collect();
        let a = mc.cmd(&parts);
        let b = cmd(&mut sim.master, sim.m, line);
        assert_eq!(a, b, "{line}");
        sim.master.take_repl_stream();
        real.push(offset(&mut mc) - r0);
        ours.push(sim_offset(&mut sim) - s0);
    }
    // Redis' first write of a connection's database also sends a SELECT;
    // both count it once, then only on a change of database.
    assert_eq!(ours, real, "offset after each command: redsim vs redis");
    // ROLE and INFO's shape on a real replica and ours.
    eventually("the replica to catch up", Duration::from_secs(20), || {
        info_field(&conn_info(&mut rc), "slave_repl_offset")
            == info_field(&conn_info(&mut mc), "master_repl_offset")
    });
    let real_role = rc.cmd(&["ROLE"]);
    let Frame::Array(rv) = &real_role else {
        panic!("{real_role:?}")
    };
    assert_eq!(rv[0], Frame::bulk("slave"));
    assert_eq!(rv[3], Frame::bulk("connected"));
    let our_role = cmd(&mut sim.replica, sim.r, "ROLE");
    let Frame::Array(ov) = &our_role else {
        panic!("{our_role:?}")
    };
    assert_eq!((ov.len(), &ov[0], &ov[3]), (rv.len(), &rv[0], &rv[3]));
    // A write and WAIT on a replica, a bad port and bad WAIT arguments on
    // a master: the same answers.
    let refusals = [
        (true, "SET x 1"),
        (true, "WAIT 0 0"),
        (false, "REPLICAOF 127.0.0.1 70000"),
        (false, "WAIT 1 -5"),
        (false, "WAIT 1 abc"),
    ];
    for (on_replica, line) in refusals {
        let parts: Vec<&str> = line.split(' ').collect();
        let (real, ours) = if on_replica {
            (rc.cmd(&parts), cmd(&mut sim.replica, sim.r, line))
        } else {
            (mc.cmd(&parts), cmd(&mut sim.master, sim.m, line))
        };
        assert_eq!(real, ours, "{line}");
    }
    // second_repl_offset is not compared: 7.0.15 reports 1 on a master
    // that never changed history, where 7.2's code path leaves -1.
    let fields = ["role", "connected_slaves", "repl_backlog_active"];
    let (mi, si) = (conn_info(&mut mc), info(&mut sim.master, sim.m));
    for f in fields {
        assert_eq!(
            info_field(&mi, f),
            info_field(&si, f),
            "INFO replication {f}"
        );
    }
}

#[test]
fn a_replica_with_aof_keeps_what_it_applied_across_a_crash() {
    use redsim_engine::persist::Crash;
    let mut p = Pair::new();
    p.on_replica("CONFIG SET appendfsync always");
    assert_eq!(p.on_replica("CONFIG SET appendonly yes"), Frame::ok());
    p.on_master("SET before 1");
    p.sync();
    let rewrites = |e: &mut Engine, c| match cmd(e, c, "INFO persistence") {
        Frame::Verbatim(_, b) | Frame::Bulk(b) => {
            info_field(&String::from_utf8_lossy(&b), "aof_rewrites").unwrap()
        }
        other => panic!("INFO gave {other:?}"),
    };
    let before = rewrites(&mut p.replica, p.r);
    // A full sync after AOF is on: the replica's AOF restarts from the data it loaded.
    let (id, off) = p.replica.psync_request();
    let s = p.master.psync("127.0.0.1:6380", "?", off);
    assert!(
        matches!(s, Sync::Full { .. }),
        "{id}: a full sync was forced"
    );
    p.replica.finish_sync(&s);
    p.on_master("SET after 2");
    p.on_master("DEL before");
    p.sync();
    let after = rewrites(&mut p.replica, p.r);
    assert_eq!(
        after.parse::<u64>().unwrap(),
        before.parse::<u64>().unwrap() + 1,
        "the full sync rewrote the AOF"
    );
    let mut restarted = p.replica.crash_restart(Crash::PowerLoss);
    let c = restarted.connect("after-crash");
    assert_eq!(cmd(&mut restarted, c, "GET after"), Frame::bulk("2"));
    assert_eq!(cmd(&mut restarted, c, "EXISTS before"), Frame::Integer(0));
}

#[test]
fn a_promoted_replica_serves_a_lagging_replica_from_its_own_backlog() {
    let mut p = Pair::new();
    let (mut r2, c2) = p.second_replica_in_step();
    // Only the first replica receives the next writes before the master dies.
    p.on_master("SET b 2");
    p.on_master("INCR n");
    let second = p.master.take_repl_stream();
    p.replica.apply_repl(&second);
    assert_eq!(p.on_replica("REPLICAOF NO ONE"), Frame::ok());
    cmd(&mut r2, c2, "REPLICAOF 127.0.0.1 6380");
    let (id, off) = r2.psync_request();
    let s = p.replica.psync("127.0.0.1:6381", &id, off);
    // Redis keeps a backlog on every synced replica, so the promoted one
    // sends the lagging replica just the bytes it missed.
    match &s {
        Sync::Partial(ops) => assert_eq!(ops.len(), second.len(), "{ops:?}"),
        Sync::Full { .. } => panic!("a full sync where the backlog had the missing ops"),
    }
    r2.finish_sync(&s);
    assert_eq!(cmd(&mut r2, c2, "GET b"), Frame::bulk("2"));
    assert_eq!(cmd(&mut r2, c2, "GET n"), Frame::bulk("1"));
    assert_eq!(r2.repl().offset, p.replica.repl().offset);
}

/// COPY, MOVE and SWAPDB reach a replica as their effects: after the
/// stream is delivered, every database reads the same on both, TTLs too.
#[test]
fn copy_move_and_swapdb_reach_the_replica() {
    let mut p = Pair::new();
    for line in [
        "SET s v EX 1000",
        "RPUSH l a b",
        "COPY s s2",
        "COPY l l2 DB 3",
        "MOVE s 1",
        "SELECT 2",
        "SET only2 x",
        "SWAPDB 2 4",
        "SWAPDB 0 1",
        "SWAPDB 5 6",
        "SELECT 0",
    ] {
        assert!(!p.on_master(line).is_error(), "{line}");
    }
    p.sync();
    for db in 0..7 {
        let select = format!("SELECT {db}");
        p.on_master(&select);
        p.on_replica(&select);
        let sorted = |f: Frame| match f {
            Frame::Array(mut v) => {
                v.sort_by_key(|k| format!("{k:?}"));
                v
            }
            other => panic!("KEYS: {other:?}"),
        };
        assert_eq!(
            sorted(p.on_master("KEYS *")),
            sorted(p.on_replica("KEYS *")),
            "db {db}"
        );
        for line in ["DBSIZE", "TTL s", "TTL s2", "LRANGE l2 0 -1", "GET only2"] {
            assert_eq!(p.on_master(line), p.on_replica(line), "db {db}: {line}");
        }
    }
    p.on_master("SELECT 1");
    assert_eq!(
        p.on_master("DBSIZE"),
        Frame::Integer(2),
        "l and s2, swapped in"
    );
    assert_eq!(p.replica.repl().offset, p.master.repl().offset);
}

#[test]
fn restore_reaches_the_replica_with_its_expiry() {
    let mut p = Pair::new();
    p.on_master("RPUSH src a b c");
    let Frame::Bulk(payload) = p.on_master("DUMP src") else {
        panic!("DUMP gave no payload");
    };
    let restore = |ttl: &str, extra: &[&str]| {
        let mut a: Vec<Vec<u8>> = vec![b"RESTORE".to_vec(), b"dst".to_vec(), ttl.into()];
        a.push(payload.clone());
        a.extend(extra.iter().map(|s| s.as_bytes().to_vec()));
        a
    };
    let m = p.m;
    assert_eq!(p.master.execute(m, &restore("100000", &[])), Frame::ok());
    p.sync();
    assert_eq!(
        p.on_replica("LRANGE dst 0 -1"),
        Frame::Array(vec![Frame::bulk("a"), Frame::bulk("b"), Frame::bulk("c")])
    );
    assert_eq!(
        p.on_replica("PEXPIRETIME dst"),
        p.on_master("PEXPIRETIME dst")
    );
    assert_eq!(p.on_replica("OBJECT ENCODING dst"), Frame::bulk("listpack"));
    // An expiry already past with REPLACE deletes the key, there and here.
    assert_eq!(
        p.master.execute(m, &restore("1", &["ABSTTL", "REPLACE"])),
        Frame::ok()
    );
    p.sync();
    assert_eq!(p.on_master("EXISTS dst"), Frame::Integer(0));
    assert_eq!(p.on_replica("EXISTS dst"), Frame::Integer(0));
    assert_eq!(p.replica.repl().offset, p.master.repl().offset);
}

/// `master_link_down_since_seconds` is -1 until a link that was up is lost,
/// as Redis shows it for a replica whose master never answered; then it
/// counts the seconds since, through a change of master.
#[test]
fn link_down_since_is_minus_one_until_a_link_that_was_up_is_lost() {
    let field = "master_link_down_since_seconds";
    let redis = RedisServer::start(&[]);
    let mut rc = redis.conn();
    rc.cmd(&["REPLICAOF", "127.0.0.1", "1"]);
    let want = info_field(&conn_info(&mut rc), field);
    assert_eq!(want.as_deref(), Some("-1"), "redis-server's answer");
    let mut e = Engine::new(1);
    let c = e.connect("c");
    assert_eq!(cmd(&mut e, c, "REPLICAOF 127.0.0.1 1"), Frame::ok());
    e.advance_to(e.now_us() + 5_000_000);
    assert_eq!(info_field(&info(&mut e, c), field), want);

    let mut p = Pair::new();
    assert_eq!(
        info_field(&info(&mut p.replica, p.r), field),
        None,
        "link up"
    );
    p.replica.master_link_down();
    p.advance(3_000);
    assert_eq!(
        info_field(&info(&mut p.replica, p.r), field).as_deref(),
        Some("3")
    );
    p.on_replica("REPLICAOF 127.0.0.1 6390");
    p.advance(1_000);
    assert_eq!(
        info_field(&info(&mut p.replica, p.r), field).as_deref(),
        Some("4")
    );
}
