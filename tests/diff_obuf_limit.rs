//! Differential tests of `client-output-buffer-limit` against a real redis-server: CONFIG SET/GET of the class triples with memory units and Redis' exact errors, and a subscriber closed when one message takes it past its hard limit.

use std::time::Duration;

use redsim_tests::{args, Pair};

#[test]
fn config_set_and_get_as_redis_reads_and_shows_them() {
    let mut p = Pair::start(&[]);
    p.corpus(
        r#"
        CONFIG GET client-output-buffer-limit
        CONFIG SET client-output-buffer-limit "pubsub 32mb 8mb 60"
        CONFIG GET client-output-buffer-limit
        CONFIG SET client-output-buffer-limit "PUBSUB 1gb 512kb 5 replica 1k 2K 0"
        CONFIG GET client-output-buffer-limit
        CONFIG SET client-output-buffer-limit "normal 1 2 3 normal 4 5 +6"
        CONFIG GET client-output-buffer-limit
        CONFIG SET client-output-buffer-limit ""
        CONFIG GET client-output-buffer-limit
        CONFIG SET client-output-buffer-limit "slave 0 0 4294967297"
        CONFIG GET client-output-buffer-limit
        CONFIG SET client-output-buffer-limit "normal   "
        CONFIG GET client-output-buffer-limit
        CONFIG SET client-output-buffer-limit "pubsub 1mb 1mb"
        CONFIG SET client-output-buffer-limit "pubsub  1mb 1mb 0"
        CONFIG SET client-output-buffer-limit "master 0 0 0"
        CONFIG SET client-output-buffer-limit "normal 0 0 0 bogus 0 0 0"
        CONFIG SET client-output-buffer-limit "pubsub 1.5mb 0 0"
        CONFIG SET client-output-buffer-limit "pubsub 0 -1 0"
        CONFIG SET client-output-buffer-limit "pubsub 0 0 -1"
        CONFIG SET client-output-buffer-limit "pubsub 0 0 5s"
        CONFIG SET client-output-buffer-limit "pubsub 0 0 2147483648"
        CONFIG SET client-output-buffer-limit "normal 1 1 1 pubsub 0 0 x"
        CONFIG GET client-output-buffer-limit
        CONFIG SET client-output-buffer-limit "pubsub 1mb 1mb 1" maxmemory bogus
        CONFIG GET client-output-buffer-limit
        CONFIG GET client-output-*
        "#,
    );
}

/// One message bigger than the static buffer puts a subscriber's reply list
/// past a one-byte hard limit: both servers count it as delivered, close
/// the connection, and count it no more.
#[test]
fn a_subscriber_over_the_hard_limit_is_closed() {
    let mut p = Pair::start(&[]);
    p.check("CONFIG SET client-output-buffer-limit \"pubsub 1 0 0\"");
    let (mut r, mut s) = p.new_conns();
    for c in [&mut r, &mut s] {
        c.cmd(&["SUBSCRIBE", "ch"]);
    }
    p.check("PUBLISH ch small");
    assert_eq!(r.read_frame(), s.read_frame());
    let big = "x".repeat(100_000);
    assert_eq!(
        p.check_args(&args(&["PUBLISH", "ch", &big])),
        redsim_engine::Frame::Integer(1)
    );
    for c in [&mut r, &mut s] {
        assert!(c.closes_within(Duration::from_secs(5)), "still open");
    }
    assert_eq!(
        p.check("PUBLISH ch again"),
        redsim_engine::Frame::Integer(0)
    );
}
