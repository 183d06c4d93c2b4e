//! Protected mode against a real redis-server: bound to every interface with no password, a client from outside the loopback interface gets Redis' DENIED error and is disconnected; a password or `protected-mode no` lets it in. Also the engine's decision for a client marked remote or local.

use redsim_engine::Engine;
use redsim_tests::{non_loopback_ip, Conn, Frame, RedisServer, RedsimServer};

/// What a client from `ip` gets for PING: the reply, or `None` when the
/// connection closed without one.
fn ping_from(ip: std::net::IpAddr, port: u16) -> Option<Frame> {
    Conn::connect_to(ip, port).try_cmd(&["PING"])
}

#[test]
fn remote_clients_are_refused_without_a_password() {
    let ip = non_loopback_ip().expect("this machine has an address outside loopback");
    let opts = ["--bind", "0.0.0.0", "--protected-mode", "yes"];
    let redis = RedisServer::start(&opts);
    let sim = RedsimServer::start(&opts);
    let ports = [redis.port, sim.port];

    // 7.0 words point 4 "Setup a an"; 7.2 (redsim) "Set up an".
    let refused: Vec<Option<Frame>> = ports
        .iter()
        .map(|&p| match ping_from(ip, p) {
            Some(Frame::Error(e)) => Some(Frame::Error(e.replace("Setup a an", "Set up an"))),
            other => other,
        })
        .collect();
    let Some(Frame::Error(e)) = &refused[0] else {
        panic!("Redis' reply to a remote client: {:?}", refused[0]);
    };
    assert!(
        e.starts_with("DENIED Redis is running in protected mode"),
        "{e}"
    );
    assert_eq!(refused[0], refused[1]);
    // The connection is closed after the error.
    let mut c = Conn::connect_to(ip, sim.port);
    assert!(matches!(c.try_cmd(&["PING"]), Some(Frame::Error(_))));
    assert!(c.is_closed());

    // Loopback clients are served, and may set a password...
    for &p in &ports {
        let mut local = Conn::connect(p);
        assert_eq!(local.cmd(&["PING"]), Frame::Simple("PONG".into()));
        assert_eq!(
            local.cmd(&["CONFIG", "SET", "requirepass", "pw"]),
            Frame::ok()
        );
    }
    // ...after which remote clients are accepted and must authenticate.
    for &p in &ports {
        let mut remote = Conn::connect_to(ip, p);
        assert_eq!(
            remote.cmd(&["PING"]),
            Frame::err("NOAUTH Authentication required.")
        );
        assert_eq!(remote.cmd(&["AUTH", "pw"]), Frame::ok());
        assert_eq!(remote.cmd(&["PING"]), Frame::Simple("PONG".into()));
    }
    // Without a password but with protected mode off, they are accepted too.
    for &p in &ports {
        let mut local = Conn::connect(p);
        assert_eq!(local.cmd(&["AUTH", "pw"]), Frame::ok());
        assert_eq!(
            local.cmd(&["CONFIG", "SET", "requirepass", ""]),
            Frame::ok()
        );
        assert!(matches!(ping_from(ip, p), Some(Frame::Error(_))));
        assert_eq!(
            local.cmd(&["CONFIG", "SET", "protected-mode", "no"]),
            Frame::ok()
        );
        assert_eq!(ping_from(ip, p), Some(Frame::Simple("PONG".into())));
    }
}

#[test]
fn the_engine_decides_by_the_client_being_local() {
    let mut e = Engine::new(1);
    assert_eq!(e.protected_mode_refusal(true), None);
    let denied = e.protected_mode_refusal(false).expect("remote refused");
    assert!(denied.starts_with("DENIED Redis is running in protected mode"));
    assert!(denied.ends_with("the server to start accepting connections from the outside."));
    e.config_set("requirepass", "x").unwrap();
    assert_eq!(e.protected_mode_refusal(false), None);
    e.config_set("requirepass", "").unwrap();
    assert!(e.protected_mode_refusal(false).is_some());
    e.config_set("protected-mode", "no").unwrap();
    assert_eq!(e.protected_mode_refusal(false), None);
}

/// `--requirepass` on the command line: new connections must authenticate.
#[test]
fn requirepass_on_the_command_line() {
    let sim = RedsimServer::start(&["--requirepass", "pw"]);
    let mut c = sim.conn();
    assert_eq!(
        c.cmd(&["GET", "k"]),
        Frame::err("NOAUTH Authentication required.")
    );
    assert_eq!(
        c.cmd(&["AUTH", "nope"]),
        Frame::err("WRONGPASS invalid username-password pair or user is disabled.")
    );
    assert_eq!(c.cmd(&["AUTH", "pw"]), Frame::ok());
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "requirepass"]),
        Frame::Array(vec![Frame::bulk("requirepass"), Frame::bulk("pw")])
    );
}
