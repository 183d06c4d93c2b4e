//! Differential tests of Pub/Sub against a real redis-server with several connections: confirmations, messages as subscribers read them, PUBLISH counts, PUBSUB introspection, RESP2's subscribed context, RESP3 pushes, MULTI, shard channels, and a subscriber that disconnects and misses messages (also checked in the engine's trace).

use std::time::{Duration, Instant};

use redsim_engine::server::trace::{Delivery, Event, PubSubKind};
use redsim_engine::Engine;
use redsim_tests::{
    assert_help, command_info, commands_in_acl_category, commands_in_group, encode_request,
    is_redis_7_0, Conn, Differ, Frame,
};

fn bulk(s: &str) -> Frame {
    Frame::bulk(s)
}

/// What a subscriber reads as an array of bulk strings (a message,
/// `[message, channel, payload]`, or `[pmessage, pattern, channel,
/// payload]`): an array in RESP2, a push in RESP3.
fn msg(resp3: bool, parts: &[&str]) -> Frame {
    let items = parts.iter().map(|p| bulk(p)).collect();
    if resp3 {
        Frame::Push(items)
    } else {
        Frame::Array(items)
    }
}

/// `[word, name, count]` as RESP2 shows a confirmation or RESP3 a push.
fn conf(resp3: bool, word: &str, name: Option<&str>, count: i64) -> Frame {
    let items = vec![
        bulk(word),
        name.map_or(Frame::Null, bulk),
        Frame::Integer(count),
    ];
    if resp3 {
        Frame::Push(items)
    } else {
        Frame::Array(items)
    }
}

/// Switches connection `i` of both servers to RESP `version`. HELLO's
/// reply names the server and its version: not compared.
fn hello(d: &mut Differ, i: usize, version: &str) {
    d.redis[i].cmd(&["HELLO", version]);
    d.sim[i].cmd(&["HELLO", version]);
}

/// Asserts that the next frame on connection `i` of both servers (RESP2)
/// is the array of `parts`, a message.
fn next_is(d: &mut Differ, i: usize, parts: &[&str]) {
    assert_eq!(d.recv(i), msg(false, parts));
}

/// Sends `line` on connection `i` of both servers and asserts that the
/// reply is its command's first confirmation, for `name` with `count`.
fn check_conf(d: &mut Differ, resp3: bool, i: usize, line: &str, name: Option<&str>, count: i64) {
    let word = line
        .split(' ')
        .next()
        .expect("a command")
        .to_ascii_lowercase();
    assert_eq!(d.check(i, line), conf(resp3, &word, name, count), "{line}");
}

/// Unsubscribing from everything confirms each name in the order the
/// server's table happens to hold them, which differs between Redis
/// processes: compare the names as sets and the counts in order (they
/// always go down by one to zero, whichever name comes first).
fn unsubscribe_all_both(d: &mut Differ, i: usize, line: &str, n: usize) {
    let mut sides = Vec::new();
    for side in 0..2 {
        let conn = if side == 0 {
            &mut d.redis[i]
        } else {
            &mut d.sim[i]
        };
        let args: Vec<&[u8]> = line.split(' ').map(str::as_bytes).collect();
        conn.send_raw(&encode_request(&args));
        let mut names = Vec::new();
        let mut counts = Vec::new();
        for _ in 0..n {
            let Some(Frame::Array(items)) = conn.read_frame() else {
                panic!("a confirmation array");
            };
            let [word, name, count] = items.as_slice() else {
                panic!("three items: {items:?}");
            };
            assert_eq!(
                *word,
                bulk(&line.split(' ').next().unwrap().to_ascii_lowercase())
            );
            names.push(format!("{name:?}"));
            counts.push(count.clone());
        }
        names.sort();
        sides.push((names, counts));
    }
    assert_eq!(sides[1], sides[0], "`{line}` on connection {i}");
    // Each confirmation counts one subscription fewer.
    for pair in sides[0].1.windows(2) {
        let (Frame::Integer(a), Frame::Integer(b)) = (&pair[0], &pair[1]) else {
            panic!("integer counts: {pair:?}");
        };
        assert_eq!(*b, a - 1);
    }
}

/// Sends `line` on connection `i` of both servers and compares the array
/// replies as sets: PUBSUB CHANNELS lists a hash table in Redis, sorted
/// names here.
fn check_unordered(d: &mut Differ, i: usize, line: &str) {
    let args: Vec<&str> = line.split_whitespace().collect();
    let (mut want, mut got) = (d.redis[i].cmd(&args), d.sim[i].cmd(&args));
    for f in [&mut want, &mut got] {
        if let Frame::Array(items) = f {
            items.sort_by_key(|i| format!("{i:?}"));
        }
    }
    assert_eq!(got, want, "`{line}` on connection {i}");
    d.compared += 1;
}

/// Polls until `PUBSUB NUMSUB channel` is `n` on one server (a closed
/// connection is noticed asynchronously).
fn wait_numsub(conn: &mut Conn, channel: &str, n: i64) {
    let start = Instant::now();
    loop {
        let r = conn.cmd(&["PUBSUB", "NUMSUB", channel]);
        if r == Frame::Array(vec![bulk(channel), Frame::Integer(n)]) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "NUMSUB {channel} stuck at {r:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The port a connection's server listens on.
fn port_of(conn: &mut Conn) -> u16 {
    match conn.cmd(&["CONFIG", "GET", "port"]) {
        Frame::Array(items) => match items.get(1) {
            Some(Frame::Bulk(p)) => String::from_utf8_lossy(p).parse().expect("a port"),
            other => panic!("no port: {other:?}"),
        },
        other => panic!("CONFIG GET port: {other:?}"),
    }
}

#[test]
fn confirmations_messages_and_counts() {
    let mut d = Differ::start(4, &[]);
    // Connection 0 publishes; 1 listens to channels, 2 and 3 to one pattern each.
    check_conf(&mut d, false, 1, "SUBSCRIBE news sport", Some("news"), 1);
    assert_eq!(d.recv(1), conf(false, "subscribe", Some("sport"), 2));
    // Subscribing again confirms without counting twice.
    check_conf(&mut d, false, 1, "SUBSCRIBE news", Some("news"), 2);
    d.check(2, "PSUBSCRIBE n*");
    d.check(3, "PSUBSCRIBE h?llo");
    assert_eq!(d.check(0, "PUBLISH news hello"), Frame::Integer(2));
    next_is(&mut d, 1, &["message", "news", "hello"]);
    next_is(&mut d, 2, &["pmessage", "n*", "news", "hello"]);
    assert_eq!(d.check(0, "PUBLISH sport goal"), Frame::Integer(1));
    d.recv(1);
    assert_eq!(d.check(0, "PUBLISH nobody x"), Frame::Integer(1));
    d.recv(2);
    assert_eq!(d.check(0, "PUBLISH other x"), Frame::Integer(0));
    d.check(0, "PUBLISH hallo 1");
    d.check(0, "PUBLISH hxllo 2");
    d.recv(3);
    d.recv(3);
    // Binary-safe message, empty message and channel.
    d.check(0, "PUBLISH news \"a\\x00b\\r\\n\"");
    d.recv(1);
    d.recv(2);
    check_conf(&mut d, false, 1, "SUBSCRIBE \"\"", Some(""), 3);
    assert_eq!(d.check(0, "PUBLISH \"\" \"\""), Frame::Integer(1));
    d.recv(1);
    // A client subscribed to the channel and to a matching pattern counts
    // twice and gets the message, then the pmessage.
    d.check(2, "SUBSCRIBE news");
    assert_eq!(d.check(0, "PUBLISH news twice"), Frame::Integer(3));
    d.recv(1);
    next_is(&mut d, 2, &["message", "news", "twice"]);
    next_is(&mut d, 2, &["pmessage", "n*", "news", "twice"]);
    // Introspection (the channel list's order is the server's: sorted here).
    d.check(0, "PUBSUB NUMSUB news sport nothing");
    d.check(0, "PUBSUB NUMSUB");
    d.check(0, "PUBSUB NUMPAT");
    d.check(0, "pubsub numpat");
    for pattern in ["", "s*", "n?ws", "[ns]*", "zzz"] {
        check_unordered(&mut d, 0, &format!("PUBSUB CHANNELS {pattern}"));
    }
    // Unsubscribing: named, then the rest at once, then nothing left.
    check_conf(
        &mut d,
        false,
        1,
        "UNSUBSCRIBE sport nosuch",
        Some("sport"),
        2,
    );
    assert_eq!(d.recv(1), conf(false, "unsubscribe", Some("nosuch"), 2));
    unsubscribe_all_both(&mut d, 1, "UNSUBSCRIBE", 2);
    check_conf(&mut d, false, 1, "UNSUBSCRIBE", None, 0);
    check_conf(&mut d, false, 1, "PUNSUBSCRIBE", None, 0);
    // Out of subscribed mode: normal commands again.
    d.check(1, "SET k v");
    assert_eq!(d.check(0, "PUBLISH news after"), Frame::Integer(2));
    d.recv(2);
    d.recv(2);
    // Patterns and channels together count for both kinds of confirmation.
    d.check(2, "PSUBSCRIBE x y");
    d.recv(2);
    d.check(2, "PUNSUBSCRIBE n*");
    unsubscribe_all_both(&mut d, 2, "PUNSUBSCRIBE", 2);
    d.check(2, "UNSUBSCRIBE news");
    d.check(0, "PUBSUB NUMPAT");
    check_unordered(&mut d, 0, "PUBSUB CHANNELS");
    assert!(d.compared > 40);
}

#[test]
fn errors_and_help() {
    let mut d = Differ::start(1, &[]);
    d.script(
        "
        0 SUBSCRIBE
        0 PSUBSCRIBE
        0 SSUBSCRIBE
        0 PUBLISH a
        0 PUBLISH a b c
        0 SPUBLISH a
        0 PUBSUB
        0 PUBSUB NOSUCH
        0 PUBSUB NUMPAT extra
        0 PUBSUB CHANNELS a b
        0 pubsub channels a b
        0 PUBSUB SHARDCHANNELS a b
        0 PUBSUB HELP extra
        0 UNSUBSCRIBE
        0 PUNSUBSCRIBE
        0 SUNSUBSCRIBE
        0 PUNSUBSCRIBE notsubscribed
        0 PUBSUB SHARDNUMSUB a
        0 PUBSUB SHARDCHANNELS
        0 COMMAND INFO subscribe psubscribe unsubscribe punsubscribe publish
        0 COMMAND GETKEYS publish a b
        0 COMMAND INFO pubsub|channels pubsub|numsub pubsub|numpat pubsub|help
        0 COMMAND INFO pubsub|shardchannels pubsub|shardnumsub
        ",
    );
    // Every command of the group, and of the ACL category (subcommands
    // included), as Redis lists them: 9 commands, PUBSUB's 6 subcommands.
    let (r, s) = (&mut d.redis[0], &mut d.sim[0]);
    assert_eq!(
        commands_in_group(s, "pubsub"),
        commands_in_group(r, "pubsub")
    );
    assert_eq!(commands_in_group(s, "pubsub"), 9);
    assert_eq!(
        commands_in_acl_category(s, "pubsub"),
        commands_in_acl_category(r, "pubsub")
    );
    // The shard forms' key range (a `not_key` spec in Redis, whose key
    // specs the table does not carry).
    for name in ["ssubscribe", "sunsubscribe", "spublish"] {
        assert_eq!(
            command_info(s, name)[..7],
            command_info(r, name)[..7],
            "{name}"
        );
    }
    let v70 = is_redis_7_0(&mut d.redis[0]);
    for line in [["PUBSUB", "HELP"], ["pubsub", "help"]] {
        let (want, got) = (d.redis[0].cmd(&line), d.sim[0].cmd(&line));
        assert_help(&line.join(" "), want, got, v70);
    }
}

#[test]
fn resp2_subscribed_context() {
    let mut d = Differ::start(2, &[]);
    d.script(
        "
        0 PING
        0 PING hi
        0 SUBSCRIBE a
        0 PING
        0 PING hi
        0 PING a b
        0 GET k
        0 CONFIG GET port
        0 HELLO 3
        0 MULTI
        0 EXEC
        0 NOSUCHCOMMAND
        0 GET
        0 PSUBSCRIBE p*
        0 PUNSUBSCRIBE p*
        0 SSUBSCRIBE s
        0 UNSUBSCRIBE a
        # Still subscribed to a shard channel.
        0 GET k
        0 SUNSUBSCRIBE s
        0 GET k
        0 PING
        ",
    );
    // QUIT is allowed, and closes.
    d.check(1, "SUBSCRIBE a");
    d.check(1, "QUIT");
    assert!(d.redis[1].is_closed() && d.sim[1].is_closed());
}

#[test]
fn resp3_pushes_and_normal_commands() {
    let mut d = Differ::start(3, &[]);
    for i in 1..3 {
        hello(&mut d, i, "3");
    }
    check_conf(&mut d, true, 1, "SUBSCRIBE a b", Some("a"), 1);
    assert_eq!(d.recv(1), conf(true, "subscribe", Some("b"), 2));
    d.check(2, "PSUBSCRIBE *");
    // A subscribed RESP3 client runs anything.
    d.check(1, "SET k v");
    d.check(1, "GET k");
    d.check(1, "PING");
    assert_eq!(d.check(0, "PUBLISH a m1"), Frame::Integer(2));
    assert_eq!(d.recv(1), msg(true, &["message", "a", "m1"]));
    assert_eq!(d.recv(2), msg(true, &["pmessage", "*", "a", "m1"]));
    d.check(0, "PUBLISH b m2");
    d.recv(1);
    d.recv(2);
    d.check(1, "INCR n");
    check_conf(&mut d, true, 1, "UNSUBSCRIBE b", Some("b"), 1);
    // Back to RESP2 while subscribed: the context applies again.
    hello(&mut d, 1, "2");
    d.check(1, "GET k");
    d.check(1, "PING");
    unsubscribe_all_both(&mut d, 1, "UNSUBSCRIBE", 1);
    d.check(1, "GET k");
}

/// Redis 7.2 sends a client the messages it publishes to itself after the
/// PUBLISH reply (`pending_push_messages`); 7.0, the reference server
/// here, sends them before. The frames are compared as a set with Redis,
/// and the order is checked against 7.2's rule.
#[test]
fn own_messages_follow_the_reply_as_in_7_2() {
    let mut d = Differ::start(1, &[]);
    hello(&mut d, 0, "3");
    d.check(0, "SUBSCRIBE me");
    let pushed = msg(true, &["message", "me", "hi"]);
    // The PUBLISH reply and the message, in the order they come.
    let publish_to_self = |c: &mut Conn| -> Vec<Frame> {
        c.send_raw(&encode_request(&[&b"PUBLISH"[..], b"me", b"hi"]));
        vec![c.read_frame().unwrap(), c.read_frame().unwrap()]
    };
    let r = publish_to_self(&mut d.redis[0]);
    let s = publish_to_self(&mut d.sim[0]);
    assert_eq!(r, vec![pushed.clone(), Frame::Integer(1)], "7.0's order");
    assert_eq!(s, vec![Frame::Integer(1), pushed.clone()], "7.2's order");
    // Inside MULTI the message follows the whole EXEC reply in 7.2.
    d.check(0, "MULTI");
    d.check(0, "PUBLISH me hi");
    d.check(0, "PING");
    let exec = d.sim[0].cmd(&["EXEC"]);
    assert_eq!(
        exec,
        Frame::Array(vec![Frame::Integer(1), Frame::Simple("PONG".into())])
    );
    assert_eq!(d.sim[0].read_frame(), Some(pushed.clone()));
    // Redis 7.0 writes the push inside the EXEC array.
    let exec = d.redis[0].cmd(&["EXEC"]);
    assert_eq!(
        exec,
        Frame::Array(vec![pushed, Frame::Integer(1)]),
        "7.0 lays the push inside EXEC's array"
    );
    assert_eq!(d.redis[0].read_frame(), Some(Frame::Simple("PONG".into())));
    d.check(0, "PING");
}

#[test]
fn subscribing_inside_multi() {
    let mut d = Differ::start(2, &[]);
    // The confirmations are written inline: EXEC's array of two holds both
    // of SUBSCRIBE's, and the PING reply (RESP2 subscribed form) follows it.
    d.script(
        "
        0 MULTI
        0 SUBSCRIBE a b
        0 PING
        0 EXEC
        ",
    );
    next_is(&mut d, 0, &["pong", ""]);
    d.check(1, "PUBLISH a x");
    d.recv(0);
    // SSUBSCRIBE has no MULTI exception.
    d.script(
        "
        1 MULTI
        1 SSUBSCRIBE s
        1 PUBSUB SHARDNUMSUB s
        1 EXEC
        1 PUBSUB SHARDNUMSUB s
        1 MULTI
        1 UNSUBSCRIBE
        1 SET k 1
        1 EXEC
        ",
    );
    // RESP3: pushes inside the EXEC reply.
    hello(&mut d, 1, "3");
    d.script(
        "
        1 MULTI
        1 PSUBSCRIBE p1 p2
        1 SET k 2
        1 EXEC
        ",
    );
    d.recv(1);
}

#[test]
fn pipelined_subscription_traffic_is_byte_identical() {
    let mut d = Differ::start(2, &[]);
    let mut batch = Vec::new();
    for cmd in [
        &["SUBSCRIBE", "a", "b"][..],
        &["PING"],
        &["PSUBSCRIBE", "x*"],
        &["GET", "k"],
        &["UNSUBSCRIBE", "b", "a"],
        &["PUNSUBSCRIBE", "x*"],
        &["PING"],
        &["SET", "k", "v"],
    ] {
        let args: Vec<&[u8]> = cmd.iter().map(|s| s.as_bytes()).collect();
        batch.extend(encode_request(&args));
    }
    d.redis[0].send_raw(&batch);
    d.sim[0].send_raw(&batch);
    for _ in 0..10 {
        d.recv(0);
    }
    d.check(0, "GET k");
}

#[test]
fn a_subscriber_that_disconnects_misses_messages() {
    let mut d = Differ::start(2, &[]);
    d.check(1, "SUBSCRIBE news");
    assert_eq!(d.check(0, "PUBLISH news 1"), Frame::Integer(1));
    d.recv(1);
    // The subscriber goes away; the servers notice the closed socket.
    let ports = (port_of(&mut d.redis[0]), port_of(&mut d.sim[0]));
    drop(std::mem::replace(&mut d.redis[1], Conn::connect(ports.0)));
    drop(std::mem::replace(&mut d.sim[1], Conn::connect(ports.1)));
    wait_numsub(&mut d.redis[0], "news", 0);
    wait_numsub(&mut d.sim[0], "news", 0);
    assert_eq!(d.check(0, "PUBLISH news 2"), Frame::Integer(0));
    // Back (a new connection): only what is published from now on.
    d.check(1, "SUBSCRIBE news");
    assert_eq!(d.check(0, "PUBLISH news 3"), Frame::Integer(1));
    next_is(&mut d, 1, &["message", "news", "3"]);
    d.check(1, "PING");
}

#[test]
fn shard_channels_standalone() {
    let mut d = Differ::start(3, &[]);
    check_conf(&mut d, false, 1, "SSUBSCRIBE s1 s2", Some("s1"), 1);
    d.recv(1);
    // Shard subscriptions are counted apart from the others.
    d.check(1, "SUBSCRIBE s1");
    d.check(1, "PSUBSCRIBE *");
    d.check(2, "PSUBSCRIBE s*");
    // SPUBLISH reaches shard subscribers only; PUBLISH never reaches them.
    assert_eq!(d.check(0, "SPUBLISH s1 hi"), Frame::Integer(1));
    next_is(&mut d, 1, &["smessage", "s1", "hi"]);
    assert_eq!(d.check(0, "PUBLISH s1 yo"), Frame::Integer(3));
    d.recv(1);
    d.recv(1);
    d.recv(2);
    check_unordered(&mut d, 0, "PUBSUB SHARDCHANNELS");
    d.check(0, "PUBSUB SHARDCHANNELS *2");
    d.check(0, "PUBSUB SHARDNUMSUB s1 s2 s3");
    d.check(0, "PUBSUB NUMSUB s1");
    check_unordered(&mut d, 0, "PUBSUB CHANNELS");
    d.check(1, "SUNSUBSCRIBE s2 s9");
    d.recv(1);
    unsubscribe_all_both(&mut d, 1, "SUNSUBSCRIBE", 1);
    d.check(1, "SUNSUBSCRIBE");
    assert_eq!(d.check(0, "SPUBLISH s1 gone"), Frame::Integer(0));
    // Still subscribed to a channel and a pattern: still in context.
    d.check(1, "GET k");
    d.check(1, "UNSUBSCRIBE s1");
    d.check(1, "PUNSUBSCRIBE *");
    d.check(1, "GET k");
    d.check(0, "PUBSUB SHARDCHANNELS");
}

/// The engine's trace shows every delivery, so a UI can draw that a
/// subscriber that went away missed what was published meanwhile.
#[test]
fn the_trace_shows_a_missed_message() {
    let mut e = Engine::new(7);
    let publisher = e.connect("publisher");
    let sub = e.connect("subscriber");
    for line in ["SUBSCRIBE news", "PSUBSCRIBE n*"] {
        e.execute_line(sub, line);
    }
    // How many receive each message: the channel and the pattern, nobody
    // once the subscriber is gone, then its new connection alone.
    let publish = |e: &mut Engine, n: &str| e.execute_line(publisher, &format!("PUBLISH news {n}"));
    assert_eq!(publish(&mut e, "1"), Frame::Integer(2));
    e.disconnect(sub);
    assert_eq!(publish(&mut e, "2"), Frame::Integer(0));
    let back = e.connect("subscriber");
    e.execute_line(back, "SUBSCRIBE news");
    assert_eq!(publish(&mut e, "3"), Frame::Integer(1));
    // Frames for the subscribers, in order; nothing for the gone one after it left.
    let out = e.take_unblocked();
    let sent = |m: &str| msg(true, &["message", "news", m]);
    let psent = |m: &str| msg(true, &["pmessage", "n*", "news", m]);
    assert_eq!(
        out,
        vec![(sub, sent("1")), (sub, psent("1")), (back, sent("3"))]
    );

    let events: Vec<(Option<u64>, Event)> = e
        .trace()
        .events()
        .filter(|t| {
            matches!(
                t.event,
                Event::Subscribed { .. }
                    | Event::Unsubscribed { .. }
                    | Event::Published { .. }
                    | Event::Disconnected
            )
        })
        .map(|t| {
            let who = match t.actor {
                redsim_engine::server::trace::Actor::Client(id) => Some(id),
                redsim_engine::server::trace::Actor::Server => None,
            };
            (who, t.event.clone())
        })
        .collect();
    let published = |m: &str, receivers: Vec<Delivery>| Event::Published {
        channel: "news".into(),
        message: m.into(),
        shard: false,
        receivers,
    };
    let to = |client, pattern: Option<&str>| Delivery {
        client,
        pattern: pattern.map(String::from),
    };
    assert_eq!(
        events,
        vec![
            (
                Some(sub),
                Event::Subscribed {
                    kind: PubSubKind::Channel,
                    name: "news".into(),
                    count: 1
                }
            ),
            (
                Some(sub),
                Event::Subscribed {
                    kind: PubSubKind::Pattern,
                    name: "n*".into(),
                    count: 2
                }
            ),
            (
                Some(publisher),
                published("1", vec![to(sub, None), to(sub, Some("n*"))])
            ),
            (
                Some(sub),
                Event::Unsubscribed {
                    kind: PubSubKind::Channel,
                    name: "news".into(),
                    count: 1,
                    disconnected: true
                }
            ),
            (
                Some(sub),
                Event::Unsubscribed {
                    kind: PubSubKind::Pattern,
                    name: "n*".into(),
                    count: 0,
                    disconnected: true
                }
            ),
            (Some(sub), Event::Disconnected),
            (Some(publisher), published("2", vec![])),
            (
                Some(back),
                Event::Subscribed {
                    kind: PubSubKind::Channel,
                    name: "news".into(),
                    count: 1
                }
            ),
            (Some(publisher), published("3", vec![to(back, None)])),
        ]
    );
}

/// Scripts may publish (PUBLISH is not `noscript`) but not subscribe;
/// read-only scripts may not publish (`may_replicate`).
#[test]
fn scripts_publish_but_cannot_subscribe() {
    let mut d = Differ::start(2, &[]);
    d.check(1, "SUBSCRIBE ch");
    d.script(
        r#"
        0 EVAL "return redis.call('subscribe','x')" 0
        0 EVAL "return redis.pcall('psubscribe','x')" 0
        0 EVAL "return redis.call('ssubscribe','x')" 0
        0 EVAL "return redis.call('unsubscribe')" 0
        0 EVAL "return redis.call('spublish','s','m')" 0
        0 EVAL "return redis.call('pubsub','numsub','ch')" 0
        0 EVAL_RO "return redis.call('publish','ch','ro')" 0
        0 EVAL "return redis.call('publish','ch','from lua')" 0
        "#,
    );
    next_is(&mut d, 1, &["message", "ch", "from lua"]);
    d.check(1, "PING");
}
