//! Server parameters with effects outside the keyspace, against a real redis-server: `port` and `bind` (a port in use or an address missing fails the whole CONFIG SET with Redis' error and rolls back its other parameters, a free port moves the listener, port 0 stops listening) and `timeout` (idle clients are closed, subscribers, blocked clients and busy ones are not).

use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use redsim_tests::{free_port, Conn, Frame, RedisServer, RedsimServer};

fn text(f: &Frame) -> String {
    match f {
        Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Frame::Simple(s) => s.to_string(),
        Frame::Error(e) => e.clone(),
        other => format!("{other:?}"),
    }
}

fn config_get(c: &mut Conn, name: &str) -> String {
    match c.cmd(&["CONFIG", "GET", name]) {
        Frame::Array(kv) if kv.len() == 2 => text(&kv[1]),
        other => panic!("CONFIG GET {name}: {other:?}"),
    }
}

fn refused(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_err()
}

/// The whole story on one server listening on `port`; what it saw, for the
/// two servers to be compared.
fn story(port: u16) -> Vec<String> {
    let mut seen = Vec::new();
    let mut c = Conn::connect(port);
    let before = (
        config_get(&mut c, "maxmemory"),
        config_get(&mut c, "client-query-buffer-limit"),
    );

    // A port something else listens on: the apply fails, everything rolls back.
    let taken = TcpListener::bind("127.0.0.1:0").expect("a port to occupy");
    let used = taken.local_addr().unwrap().port().to_string();
    let reply = c.cmd(&[
        "CONFIG",
        "SET",
        "maxmemory",
        "10000001",
        "port",
        &used,
        "client-query-buffer-limit",
        "10m",
    ]);
    seen.push(text(&reply));
    let after = (
        config_get(&mut c, "maxmemory"),
        config_get(&mut c, "client-query-buffer-limit"),
    );
    assert_eq!(after, before, "the other parameters rolled back");
    seen.push(config_get(&mut c, "port").replace(&port.to_string(), "<port>"));
    assert_eq!(
        Conn::connect(port).cmd(&["PING"]),
        Frame::Simple("PONG".into()),
        "the old port still listens"
    );
    drop(taken);

    // `bind` moves the listener too, and an address this machine lacks
    // (TEST-NET-1) fails the command and rolls it back.
    seen.push(text(&c.cmd(&["CONFIG", "SET", "bind", "127.0.0.1 -::1"])));
    seen.push(config_get(&mut c, "bind"));
    assert_eq!(
        Conn::connect(port).cmd(&["PING"]),
        Frame::Simple("PONG".into())
    );
    seen.push(text(&c.cmd(&[
        "CONFIG",
        "SET",
        "maxmemory",
        "10000003",
        "bind",
        "127.0.0.1 192.0.2.1",
    ])));
    assert_eq!(
        config_get(&mut c, "maxmemory"),
        before.0,
        "maxmemory rolled back"
    );
    seen.push(config_get(&mut c, "bind"));
    assert_eq!(
        Conn::connect(port).cmd(&["PING"]),
        Frame::Simple("PONG".into())
    );

    // The same value: nothing to apply.
    seen.push(text(&c.cmd(&["CONFIG", "SET", "port", &port.to_string()])));
    assert_eq!(
        Conn::connect(port).cmd(&["PING"]),
        Frame::Simple("PONG".into())
    );

    // A free port: the listener moves there.
    let moved = free_port();
    seen.push(text(&c.cmd(&["CONFIG", "SET", "port", &moved.to_string()])));
    assert!(
        refused(port),
        "the old port refuses new connections once OK is sent"
    );
    assert_eq!(
        c.cmd(&["PING"]),
        Frame::Simple("PONG".into()),
        "an open connection stays"
    );
    let mut d = Conn::connect(moved);
    assert_eq!(
        d.cmd(&["PING"]),
        Frame::Simple("PONG".into()),
        "the new port answers"
    );
    seen.push((config_get(&mut d, "port") == moved.to_string()).to_string());

    // Port 0: no TCP listener at all; connections still open keep working.
    seen.push(text(&d.cmd(&["CONFIG", "SET", "port", "0"])));
    assert!(refused(moved), "port 0 listens nowhere");
    assert_eq!(c.cmd(&["PING"]), Frame::Simple("PONG".into()));
    seen.push(config_get(&mut c, "port"));
    seen
}

#[test]
fn config_set_port_moves_the_listener_or_rolls_back_as_redis_does() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    let expected = story(redis.port);
    assert_eq!(
        expected[0],
        "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs."
    );
    assert_eq!(story(redsim.port), expected);
}

/// `timeout 1` on the server at `port`: which of four clients are still
/// connected 3.5 s later (Redis closes a client once it has been idle more
/// than a second in whole Unix seconds, within its cron's period).
fn idle_story(port: u16) -> Vec<(&'static str, bool)> {
    let mut admin = Conn::connect(port);
    assert_eq!(
        admin.cmd(&["CONFIG", "SET", "timeout", "1"]),
        Frame::Simple("OK".into())
    );
    let mut idle = Conn::connect(port);
    assert_eq!(idle.cmd(&["PING"]), Frame::Simple("PONG".into()));
    let mut subscriber = Conn::connect(port);
    subscriber.cmd(&["SUBSCRIBE", "news"]);
    let mut blocked = Conn::connect(port);
    blocked.send_raw(&redsim_tests::encode_request(&[
        &b"BLPOP"[..],
        b"nothing",
        b"0",
    ]));
    let mut busy = Conn::connect(port);
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(3500) {
        let pong = busy.try_cmd(&["PING"]);
        assert_eq!(
            pong,
            Some(Frame::Simple("PONG".into())),
            "a client sending a command every 250 ms is never idle ({:?} in)",
            start.elapsed()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let seen = vec![
        ("idle", !idle.closes_within(Duration::from_millis(200))),
        (
            "subscriber",
            !subscriber.closes_within(Duration::from_millis(200)),
        ),
        (
            "blocked",
            !blocked.closes_within(Duration::from_millis(200)),
        ),
        ("busy", !busy.closes_within(Duration::from_millis(200))),
    ];
    // The admin connection was idle too.
    assert!(
        admin.try_cmd(&["PING"]).is_none(),
        "the idle admin connection was closed"
    );
    Conn::connect(port).cmd(&["CONFIG", "SET", "timeout", "0"]);
    seen
}

#[test]
fn timeout_closes_idle_clients_as_redis_does() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    let expected = idle_story(redis.port);
    assert_eq!(
        expected,
        vec![
            ("idle", false),
            ("subscriber", true),
            ("blocked", true),
            ("busy", true)
        ]
    );
    assert_eq!(idle_story(redsim.port), expected);
}
