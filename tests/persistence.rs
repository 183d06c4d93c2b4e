//! Persistence: simulated RDB and AOF files survive (or not) a crash as Redis' would, and the commands and INFO fields answer as a real redis-server's do.

use redsim_engine::persist::Crash;
use redsim_engine::{Engine, Frame};
use redsim_tests::Pair;

fn node(config: &[&str]) -> (Engine, u64) {
    let mut e = Engine::new(7);
    let c = e.connect("t");
    for line in config {
        assert_eq!(e.execute_line(c, line), Frame::ok(), "{line}");
    }
    (e, c)
}

/// Writes `n` keys, one every 10 ms of virtual time.
fn write(e: &mut Engine, c: u64, from: u64, n: u64) {
    for i in from..from + n {
        let t = e.now_us() + 10_000;
        e.advance_to(t);
        assert_eq!(e.execute_line(c, &format!("SET k{i} {i}")), Frame::ok());
        e.before_sleep();
    }
}

fn count(e: &mut Engine) -> i64 {
    let c = e.connect("count");
    match e.execute_line(c, "DBSIZE") {
        Frame::Integer(n) => n,
        other => panic!("{other:?}"),
    }
}

#[test]
fn appendfsync_always_survives_a_power_loss_everysec_loses_under_a_second() {
    let (mut e, c) = node(&["CONFIG SET appendonly yes", "CONFIG SET appendfsync always"]);
    write(&mut e, c, 0, 250);
    assert_eq!(count(&mut e.crash_restart(Crash::PowerLoss)), 250);

    let (mut e, c) = node(&[
        "CONFIG SET appendonly yes",
        "CONFIG SET appendfsync everysec",
    ]);
    write(&mut e, c, 0, 250); // 2.5 s
    let kept = count(&mut e.crash_restart(Crash::PowerLoss));
    assert!((150..250).contains(&kept), "everysec kept {kept} of 250");
    // The process dying alone loses nothing: the records were written.
    assert_eq!(count(&mut e.crash_restart(Crash::Process)), 250);
}

#[test]
fn rdb_keeps_the_keyspace_as_of_the_last_fork() {
    let (mut e, c) = node(&["CONFIG SET save \"1 1\""]);
    write(&mut e, c, 0, 150); // 1.5 s: a BGSAVE forked at the 1 s cron
    let info = e.execute_line(c, "INFO persistence");
    let Frame::Verbatim(_, text) = info else {
        panic!()
    };
    let text = String::from_utf8_lossy(&text).into_owned();
    assert!(text.contains("rdb_saves:1"), "{text}");
    let kept = count(&mut e.crash_restart(Crash::Process));
    assert!((90..=110).contains(&kept), "the snapshot held {kept} keys");
    assert_eq!(e.execute_line(c, "SAVE"), Frame::ok());
    assert_eq!(count(&mut e.crash_restart(Crash::PowerLoss)), 150);
}

#[test]
fn keys_that_expired_while_down_are_not_loaded() {
    let (mut e, c) = node(&["CONFIG SET appendonly yes", "CONFIG SET appendfsync always"]);
    e.execute_line(c, "SET short v PX 100");
    e.execute_line(c, "SET long v EX 100");
    e.advance_to(e.now_us() + 200_000);
    let mut r = e.crash_restart(Crash::PowerLoss);
    let rc = r.connect("r");
    assert_eq!(r.execute_line(rc, "EXISTS short long"), Frame::Integer(1));
    assert!(matches!(r.execute_line(rc, "TTL long"), Frame::Integer(t) if (98..=100).contains(&t)));
}

#[test]
fn commands_and_config_answer_as_redis() {
    // The real server's BGSAVE writes dump.rdb, into its own directory.
    let mut p = Pair::start_with(&[], &[]);
    p.corpus(
        "CONFIG SET appendfsync sometimes
CONFIG SET save \"3600\"
CONFIG SET save \"x 1\"
CONFIG SET appendfsync everysec
CONFIG GET appendfsync
CONFIG SET save \"3600 1 300 100\"
CONFIG GET save
CONFIG SET save \"\"
BGSAVE now
BGSAVE SCHEDULE extra
SET a 1",
    );
    // BGSAVE's reply (Redis forks; we model the child), LASTSAVE's type.
    let (r, s) = p.both("BGSAVE");
    assert_eq!(r, s);
    let (r, s) = p.both("LASTSAVE");
    assert!(matches!((r, s), (Frame::Integer(_), Frame::Integer(_))));
    // INFO persistence has Redis' fields (7.0.15 is the reference here).
    let fields = |f: Frame| -> Vec<String> {
        let (Frame::Verbatim(_, b) | Frame::Bulk(b)) = f else {
            panic!()
        };
        String::from_utf8_lossy(&b)
            .lines()
            .filter_map(|l| l.split_once(':').map(|(k, _)| k.to_string()))
            .collect()
    };
    let (r, s) = p.both("INFO persistence");
    let (real, ours) = (fields(r), fields(s));
    for f in &ours {
        assert!(real.contains(f), "INFO persistence field {f} is not Redis'");
    }
    for f in [
        "rdb_changes_since_last_save",
        "rdb_bgsave_in_progress",
        "rdb_last_cow_size",
        "aof_enabled",
    ] {
        assert!(ours.iter().any(|x| x == f), "missing {f}");
    }
}
