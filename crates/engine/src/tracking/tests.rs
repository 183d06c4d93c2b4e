//! White-box tests of client-side caching: the tables, each mode's deliveries and their order, limits and clean-up.

use crate::proto::resp::Frame;
use crate::{ClientId, Engine};

fn inval(keys: &[&str]) -> Frame {
    Frame::Push(vec![
        Frame::bulk("invalidate"),
        Frame::Array(keys.iter().map(Frame::bulk).collect()),
    ])
}

fn message(keys: &[&str]) -> Frame {
    Frame::Push(vec![
        Frame::bulk("message"),
        Frame::bulk(super::CHANNEL),
        Frame::Array(keys.iter().map(Frame::bulk).collect()),
    ])
}

/// A RESP3 client and a second client.
fn two() -> (Engine, ClientId, ClientId) {
    let mut e = Engine::new(1);
    let a = e.connect("a");
    let b = e.connect("b");
    e.execute_line(a, "HELLO 3");
    (e, a, b)
}

fn run(e: &mut Engine, c: ClientId, line: &str) -> Frame {
    e.execute_line(c, line)
}

#[test]
fn a_read_key_is_invalidated_once_when_another_client_writes_it() {
    let (mut e, a, b) = two();
    assert_eq!(run(&mut e, a, "CLIENT TRACKING on"), Frame::ok());
    run(&mut e, a, "GET k");
    run(&mut e, a, "MGET k k2");
    let t = &e.server().tracking;
    assert_eq!((t.total_keys(), t.total_items()), (2, 2));
    run(&mut e, b, "SET k 1");
    assert_eq!(e.take_unblocked(), vec![(a, inval(&["k"]))]);
    // Forgotten once sent: a second write sends nothing.
    run(&mut e, b, "SET k 2");
    assert!(e.take_unblocked().is_empty());
    assert_eq!(e.server().tracking.total_keys(), 1);
    // The table is not per database.
    run(&mut e, b, "SELECT 3");
    run(&mut e, b, "DEL k2");
    assert!(
        e.take_unblocked().is_empty(),
        "DEL of a missing key writes nothing"
    );
    run(&mut e, b, "SET k2 x");
    assert_eq!(e.take_unblocked(), vec![(a, inval(&["k2"]))]);
}

#[test]
fn own_writes_are_invalidated_after_the_reply_unless_noloop() {
    let (mut e, a, _) = two();
    run(&mut e, a, "CLIENT TRACKING on");
    run(&mut e, a, "GET k");
    assert_eq!(run(&mut e, a, "SET k v"), Frame::ok());
    assert_eq!(e.take_unblocked(), vec![(a, inval(&["k"]))]);
    // Inside MULTI the invalidations follow the whole EXEC reply.
    run(&mut e, a, "MGET k j");
    run(&mut e, a, "MULTI");
    run(&mut e, a, "SET k 1");
    run(&mut e, a, "SET j 1");
    let exec = run(&mut e, a, "EXEC");
    assert_eq!(exec, Frame::Array(vec![Frame::ok(), Frame::ok()]));
    assert_eq!(
        e.take_unblocked(),
        vec![(a, inval(&["k"])), (a, inval(&["j"]))]
    );
    run(&mut e, a, "CLIENT TRACKING on NOLOOP");
    run(&mut e, a, "GET k");
    run(&mut e, a, "SET k 2");
    assert!(e.take_unblocked().is_empty());
}

#[test]
fn resp2_without_redirect_hears_nothing_and_redirect_uses_pubsub() {
    let mut e = Engine::new(1);
    let a = e.connect("a");
    let r = e.connect("r");
    run(&mut e, a, "CLIENT TRACKING on");
    run(&mut e, a, "GET k");
    run(&mut e, a, "SET k 1");
    assert!(e.take_unblocked().is_empty());
    // A RESP2 target hears nothing until it subscribes (to anything).
    run(&mut e, a, &format!("CLIENT TRACKING on REDIRECT {r}"));
    run(&mut e, a, "GET k");
    run(&mut e, a, "SET k 2");
    assert!(e.take_unblocked().is_empty());
    run(&mut e, r, "SUBSCRIBE __redis__:invalidate");
    e.take_unblocked();
    run(&mut e, a, "GET k");
    run(&mut e, a, "SET k 3");
    assert_eq!(e.take_unblocked(), vec![(r, message(&["k"]))]);
    assert_eq!(run(&mut e, a, "CLIENT GETREDIR"), Frame::Integer(r as i64));
    // The target leaves: the flag shows, RESP2 gets no push about it.
    e.disconnect(r);
    run(&mut e, a, "GET k");
    run(&mut e, a, "SET k 4");
    assert!(e.take_unblocked().is_empty());
    let list = run(&mut e, a, "CLIENT INFO");
    let Frame::Verbatim(_, text) = list else {
        panic!()
    };
    let text = String::from_utf8_lossy(&text).into_owned();
    assert!(text.contains(" flags=tR "), "{text}");
    assert!(text.contains(&format!(" redir={r} ")), "{text}");
}

#[test]
fn a_broken_redirect_tells_a_resp3_client() {
    let (mut e, a, b) = two();
    run(&mut e, a, &format!("CLIENT TRACKING on REDIRECT {b}"));
    e.disconnect(b);
    run(&mut e, a, "GET k");
    run(&mut e, a, "SET k 1");
    let broken = Frame::Push(vec![
        Frame::bulk("tracking-redir-broken"),
        Frame::Integer(b as i64),
    ]);
    assert_eq!(e.take_unblocked(), vec![(a, broken)]);
    let Frame::Map(info) = run(&mut e, a, "CLIENT TRACKINGINFO") else {
        panic!()
    };
    assert_eq!(
        info[0].1,
        Frame::Set(vec![Frame::bulk("on"), Frame::bulk("broken_redirect")])
    );
}

#[test]
fn optin_tracks_only_after_caching_yes_and_optout_skips_after_caching_no() {
    let (mut e, a, b) = two();
    run(&mut e, a, "CLIENT TRACKING on OPTIN");
    run(&mut e, a, "GET x");
    run(&mut e, a, "CLIENT CACHING yes");
    // CLIENT commands keep the flag for the next one.
    run(&mut e, a, "CLIENT ID");
    run(&mut e, a, "GET y");
    run(&mut e, a, "GET z");
    assert_eq!(e.server().tracking.total_keys(), 1);
    run(&mut e, b, "MSET x 1 y 1 z 1");
    assert_eq!(e.take_unblocked(), vec![(a, inval(&["y"]))]);
    run(&mut e, a, "CLIENT TRACKING off");
    run(&mut e, a, "CLIENT TRACKING on OPTOUT");
    run(&mut e, a, "CLIENT CACHING no");
    run(&mut e, a, "GET x");
    run(&mut e, a, "GET y");
    run(&mut e, b, "MSET x 2 y 2");
    assert_eq!(e.take_unblocked(), vec![(a, inval(&["y"]))]);
}

#[test]
fn bcast_batches_keys_per_prefix_until_before_sleep() {
    let (mut e, a, b) = two();
    let c = e.connect("c");
    e.execute_line(c, "HELLO 3");
    run(
        &mut e,
        a,
        "CLIENT TRACKING on BCAST PREFIX user: PREFIX job:",
    );
    run(&mut e, c, "CLIENT TRACKING on BCAST NOLOOP");
    assert_eq!(e.server().tracking.total_prefixes(), 3);
    // One command's keys, then another's: still one batch at before_sleep.
    let args = |l: &str| {
        l.split(' ')
            .map(|w| w.as_bytes().to_vec())
            .collect::<Vec<_>>()
    };
    e.execute(b, &args("MSET user:2 x other 1 user:1 y"));
    e.execute(c, &args("SET job:1 z"));
    e.execute(c, &args("SET user:3 z"));
    assert!(e.take_unblocked().is_empty());
    e.before_sleep();
    // Prefixes in byte order ("", job:, user:); keys in byte order; c's
    // NOLOOP copy leaves out its own keys.
    assert_eq!(
        e.take_unblocked(),
        vec![
            (c, inval(&["other", "user:1", "user:2"])),
            (a, inval(&["job:1"])),
            (a, inval(&["user:1", "user:2", "user:3"])),
        ]
    );
    let Frame::Map(info) = run(&mut e, a, "CLIENT TRACKINGINFO") else {
        panic!()
    };
    assert_eq!(
        info[2].1,
        Frame::Array(vec![Frame::bulk("job:"), Frame::bulk("user:")])
    );
    e.disconnect(a);
    assert_eq!(e.server().tracking.total_prefixes(), 1);
}

#[test]
fn flush_sends_null_to_every_tracking_client_and_empties_the_table() {
    let (mut e, a, b) = two();
    let c = e.connect("c");
    e.execute_line(c, "HELLO 3");
    run(&mut e, a, "CLIENT TRACKING on");
    run(&mut e, c, "CLIENT TRACKING on BCAST");
    run(&mut e, a, "GET k");
    assert_eq!(run(&mut e, a, "FLUSHALL"), Frame::ok());
    let null = Frame::Push(vec![Frame::bulk("invalidate"), Frame::Null]);
    // The flushing client's own comes after its reply, the others' at once.
    assert_eq!(e.take_unblocked(), vec![(c, null.clone()), (a, null)]);
    assert_eq!(e.server().tracking.total_keys(), 0);
    run(&mut e, b, "SET k v");
    e.before_sleep();
    assert_eq!(e.take_unblocked(), vec![(c, inval(&["k"]))]);
}

#[test]
fn expiry_invalidates_with_no_modifying_client() {
    let (mut e, a, _) = two();
    run(&mut e, a, "CLIENT TRACKING on BCAST NOLOOP");
    run(&mut e, a, "SET k v PX 10");
    e.before_sleep();
    // Its own write is left out...
    assert!(e.take_unblocked().is_empty());
    e.advance_by(200_000);
    // ...but the expiry is nobody's.
    assert_eq!(e.take_unblocked(), vec![(a, inval(&["k"]))]);
}

#[test]
fn the_table_is_kept_under_its_limit_with_invalidations() {
    let (mut e, a, b) = two();
    run(&mut e, a, "CLIENT TRACKING on");
    run(&mut e, a, "MGET k1 k2 k3 k4 k5");
    run(&mut e, b, "CONFIG SET tracking-table-max-keys 2");
    assert!(e.take_unblocked().is_empty());
    run(&mut e, b, "PING");
    assert_eq!(e.server().tracking.total_keys(), 2);
    let sent = e.take_unblocked();
    assert_eq!(sent.len(), 3);
    // The same seed evicts the same keys.
    let (mut e2, a2, b2) = two();
    run(&mut e2, a2, "CLIENT TRACKING on");
    run(&mut e2, a2, "MGET k1 k2 k3 k4 k5");
    run(&mut e2, b2, "CONFIG SET tracking-table-max-keys 2");
    run(&mut e2, b2, "PING");
    assert_eq!(e2.take_unblocked(), sent);
}

#[test]
fn errors_and_counts() {
    let (mut e, a, b) = two();
    let err = |f: Frame| match f {
        Frame::Error(s) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        err(run(&mut e, a, "CLIENT TRACKING on PREFIX x")),
        "ERR PREFIX option requires BCAST mode to be enabled"
    );
    assert_eq!(
        err(run(&mut e, a, "CLIENT TRACKING on REDIRECT 999")),
        "ERR The client ID you want redirect to does not exist"
    );
    assert_eq!(
        err(run(&mut e, a, "CLIENT TRACKING on BCAST PREFIX ab PREFIX a")),
        "ERR Prefix 'ab' overlaps with another provided prefix 'a'. Prefixes for a single client must not overlap."
    );
    assert_eq!(
        run(&mut e, a, "CLIENT TRACKING on BCAST PREFIX ab"),
        Frame::ok()
    );
    assert_eq!(
        err(run(&mut e, a, "CLIENT TRACKING on BCAST PREFIX abc")),
        "ERR Prefix 'abc' overlaps with an existing prefix 'ab'. Prefixes for a single client must not overlap."
    );
    assert!(err(run(&mut e, a, "CLIENT TRACKING on")).starts_with("ERR You can't switch BCAST"));
    assert!(
        err(run(&mut e, b, "CLIENT CACHING yes")).starts_with("ERR CLIENT CACHING can be called")
    );
    let info = |e: &mut Engine| match run(e, b, "INFO") {
        Frame::Verbatim(_, t) => String::from_utf8_lossy(&t).into_owned(),
        Frame::Bulk(t) => String::from_utf8_lossy(&t).into_owned(),
        other => panic!("{other:?}"),
    };
    let text = info(&mut e);
    assert!(text.contains("tracking_clients:1\r\n"), "{text}");
    assert!(text.contains("tracking_total_prefixes:1\r\n"), "{text}");
    run(&mut e, a, "RESET");
    let text = info(&mut e);
    assert!(text.contains("tracking_clients:0\r\n"), "{text}");
    assert!(text.contains("tracking_total_prefixes:0\r\n"), "{text}");
}

/// An eviction before a command runs (`processCommand`) is written ahead
/// of that command's reply; a driver that does not take it still gets it.
#[test]
fn an_eviction_before_the_command_precedes_its_reply() {
    for take in [true, false] {
        let (mut e, a, _) = two();
        run(&mut e, a, "CLIENT TRACKING on");
        let limit = e.used_memory() + 100 * 1024;
        run(&mut e, a, &format!("CONFIG SET maxmemory {limit}"));
        run(&mut e, a, "CONFIG SET maxmemory-policy volatile-random");
        run(&mut e, a, "SETEX volatile-key 10000 x");
        run(&mut e, a, "GET volatile-key");
        run(&mut e, a, "SETBIT big-key 1600000 0");
        assert!(e.take_unblocked().is_empty());
        let args: Vec<Vec<u8>> = ["GETBIT", "big-key", "0"]
            .map(|s| s.as_bytes().to_vec())
            .into();
        assert_eq!(e.execute(a, &args), Frame::Integer(0));
        if take {
            assert_eq!(e.take_before_reply(a), vec![inval(&["volatile-key"])]);
            assert!(e.take_unblocked().is_empty());
        } else {
            // Not taken: it goes out with the rest at `before_sleep`.
            e.before_sleep();
            assert_eq!(e.take_unblocked(), vec![(a, inval(&["volatile-key"]))]);
        }
    }
}
