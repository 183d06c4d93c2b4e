//! WAITAOF on a redsim server (Redis 7.2's command; the 7.0 reference has none): its argument errors, the refusals without an AOF and on a replica, the reply at once when the AOF is fsynced (`appendfsync always`), the wait for the once-a-second fsync (`everysec`), and the timeout when replicas are asked for.

use redsim_engine::proto::resp::Frame;
use redsim_tests::RedsimServer;
use std::time::{Duration, Instant};

fn pair(a: i64, b: i64) -> Frame {
    Frame::Array(vec![Frame::Integer(a), Frame::Integer(b)])
}

#[test]
fn errors_and_refusals() {
    let s = RedsimServer::start(&[]);
    let mut c = s.conn();
    let cases = [
        (
            ["WAITAOF", "2", "0", "0"],
            "ERR value is out of range, value must between 0 and 1",
        ),
        (
            ["WAITAOF", "x", "0", "0"],
            "ERR value is not an integer or out of range",
        ),
        (
            ["WAITAOF", "0", "-1", "0"],
            "ERR value is out of range, must be positive",
        ),
        (["WAITAOF", "0", "0", "-1"], "ERR timeout is negative"),
        (
            ["WAITAOF", "0", "0", "x"],
            "ERR timeout is not an integer or out of range",
        ),
        (
            ["WAITAOF", "1", "0", "0"],
            "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.",
        ),
    ];
    for (args, err) in cases {
        assert_eq!(c.cmd(&args), Frame::err(err), "{args:?}");
    }
    assert_eq!(c.cmd(&["WAITAOF", "0", "0", "0"]), pair(0, 0));
    assert_eq!(
        c.cmd(&["WAITAOF", "1"]),
        Frame::err("ERR wrong number of arguments for 'waitaof' command")
    );
    // A replica refuses it whatever the arguments.
    c.cmd(&["REPLICAOF", "127.0.0.1", "1"]);
    assert_eq!(
        c.cmd(&["WAITAOF", "0", "0", "0"]),
        Frame::err("ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated.")
    );
}

#[test]
fn answers_once_the_aof_is_fsynced() {
    let s = RedsimServer::start(&["--appendonly", "yes", "--appendfsync", "always"]);
    let mut c = s.conn();
    assert_eq!(c.cmd(&["SET", "k", "v"]), Frame::ok());
    assert_eq!(c.cmd(&["WAITAOF", "1", "0", "0"]), pair(1, 0));
    // No replica acknowledges an AOF: a timeout answers what there is.
    let t = Instant::now();
    assert_eq!(c.cmd(&["WAITAOF", "1", "1", "100"]), pair(1, 0));
    assert!(t.elapsed() >= Duration::from_millis(90));
    // In a transaction it never blocks.
    c.cmd(&["MULTI"]);
    c.cmd(&["WAITAOF", "0", "1", "0"]);
    assert_eq!(c.cmd(&["EXEC"]), Frame::Array(vec![pair(1, 0)]));
}

#[test]
fn everysec_waits_for_the_next_fsync() {
    let s = RedsimServer::start(&["--appendonly", "yes", "--appendfsync", "everysec"]);
    let mut c = s.conn();
    let mut fsynced_at_once = 0;
    for i in 0..5 {
        c.cmd(&["SET", "k", &i.to_string()]);
        // Blocks (no timeout) until the once-a-second fsync covers the SET.
        let t = Instant::now();
        assert_eq!(c.cmd(&["WAITAOF", "1", "0", "0"]), pair(1, 0));
        assert!(t.elapsed() < Duration::from_millis(2500));
        if t.elapsed() < Duration::from_millis(5) {
            fsynced_at_once += 1;
        }
    }
    assert!(fsynced_at_once < 5, "every WAITAOF answered at once");
}
