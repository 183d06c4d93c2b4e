//! Differential tests of transactions (MULTI/EXEC/DISCARD/WATCH/UNWATCH) against a real redis-server, with several clients interleaving.

use redsim_tests::Differ;

#[test]
fn queueing_exec_and_discard() {
    let mut d = Differ::start(2, &[]);
    d.script(
        "
        0 EXEC
        0 DISCARD
        0 MULTI
        0 MULTI
        0 SET a 1
        0 INCR a
        0 GET a
        0 EXEC
        0 MULTI
        0 SET b 1
        0 DISCARD
        0 GET b
        0 EXEC
        # Another client's commands are not queued.
        0 MULTI
        0 SET c 1
        1 GET c
        0 EXEC
        1 GET c
        # SELECT inside a transaction applies to the commands after it.
        0 MULTI
        0 SELECT 3
        0 SET k3 v
        0 EXEC
        0 GET k3
        0 SELECT 0
        0 GET k3
        ",
    );
}

#[test]
fn queue_time_errors_abort_and_runtime_errors_do_not_roll_back() {
    let mut d = Differ::start(1, &[]);
    d.script(
        "
        # Unknown command and wrong arity while queueing: EXECABORT.
        0 MULTI
        0 SET x 1
        0 NOSUCHCOMMAND a b
        0 EXEC
        0 GET x
        0 MULTI
        0 SET x 1
        0 GET
        0 EXEC
        0 MULTI
        0 OBJECT nosuchsub
        0 EXEC
        # EXEC itself rejected: aborted with the reason.
        0 MULTI
        0 SET y 1
        0 EXEC extra
        0 GET y
        0 EXEC
        # Runtime errors: the rest still runs, nothing is undone.
        0 SET s hello
        0 MULTI
        0 INCR s
        0 SET t 1
        0 INCRBY t notanumber
        0 INCR t
        0 EXEC
        0 GET t
        # WATCH inside MULTI is refused but does not doom the transaction.
        0 MULTI
        0 WATCH t
        0 INCR t
        0 EXEC
        ",
    );
}

#[test]
fn watch_fails_exec_when_another_client_writes() {
    let mut d = Differ::start(2, &[]);
    d.script(
        "
        0 SET balance 100
        0 WATCH balance
        1 INCRBY balance 5
        0 MULTI
        0 DECRBY balance 10
        0 EXEC
        0 GET balance
        # Unchanged key: the transaction runs.
        0 WATCH balance
        0 MULTI
        0 DECRBY balance 10
        0 EXEC
        # UNWATCH forgets; writes after it do not matter.
        0 WATCH balance
        0 UNWATCH
        1 SET balance 1
        0 MULTI
        0 INCR balance
        0 EXEC
        # Writes by the same client before MULTI count too.
        0 WATCH balance
        0 SET balance 7
        0 MULTI
        0 INCR balance
        0 EXEC
        # Deleting, expiring and renaming count as changes.
        0 WATCH balance
        1 DEL balance
        0 MULTI
        0 PING
        0 EXEC
        0 SET r 1
        0 WATCH r
        1 RENAME r r2
        0 MULTI
        0 PING
        0 EXEC
        0 SET e 1
        0 WATCH e
        1 EXPIRE e 100
        0 MULTI
        0 PING
        0 EXEC
        0 WATCH e
        1 PERSIST e
        0 MULTI
        0 PING
        0 EXEC
        # A watched key that does not exist and is then created.
        0 WATCH nothing
        1 SET nothing here
        0 MULTI
        0 PING
        0 EXEC
        # FLUSHDB touches watched keys that existed.
        0 SET f 1
        0 WATCH f
        1 FLUSHDB
        0 MULTI
        0 PING
        0 EXEC
        # ... but not ones that did not.
        0 WATCH ghost
        1 FLUSHDB
        0 MULTI
        0 PING
        0 EXEC
        # Watching in another database.
        0 SELECT 2
        0 SET d2 1
        0 WATCH d2
        1 SELECT 2
        1 SET d2 2
        0 MULTI
        0 PING
        0 EXEC
        1 SELECT 0
        0 SELECT 0
        ",
    );
}

#[test]
fn watch_sees_expiry_even_before_the_key_is_reclaimed() {
    let mut d = Differ::start(2, &[]);
    d.script(
        "
        0 SET k v PX 150
        0 WATCH k
        sleep 300
        0 MULTI
        0 PING
        0 EXEC
        # Watching a key that already expired: its reclaiming is no change.
        0 SET gone v PX 50
        sleep 150
        0 WATCH gone
        1 GET gone
        0 MULTI
        0 PING
        0 EXEC
        ",
    );
}

#[test]
fn reset_returns_the_connection_to_its_first_state() {
    let mut d = Differ::start(2, &[]);
    d.script(
        "
        0 RESET
        0 RESET extra
        # Database, name, transaction and watches go; keys stay.
        0 SELECT 3
        0 SET k3 v
        0 CLIENT SETNAME worker
        0 WATCH k3
        0 MULTI
        0 SET queued 1
        0 RESET
        0 CLIENT GETNAME
        0 GET k3
        0 EXEC
        0 GET queued
        0 SELECT 3
        0 GET k3
        # A watch dropped by RESET no longer fails a later transaction.
        0 WATCH w
        0 RESET
        1 SET w changed
        0 MULTI
        0 GET w
        0 EXEC
        # Subscriptions go silently; the connection takes commands again.
        0 SUBSCRIBE news
        0 GET k3
        0 RESET
        1 PUBLISH news hello
        0 GET w
        ",
    );
}

/// RESET's switch back to RESP2, on the simulator alone (HELLO's reply
/// names the server's version, which differs from the Redis the test runs).
#[test]
fn reset_switches_back_to_resp2() {
    use redsim_engine::{Engine, Frame};
    let mut e = Engine::new(1);
    let c = e.connect("t");
    e.execute_line(c, "HSET h f v");
    e.execute_line(c, "HELLO 3");
    assert!(matches!(e.execute_line(c, "HGETALL h"), Frame::Map(_)));
    assert_eq!(e.execute_line(c, "RESET"), Frame::Simple("RESET".into()));
    assert_eq!(e.client(c).map(|c| c.resp), Some(2));
}
