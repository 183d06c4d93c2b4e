//! `TestServer` from a real client (redis-rs): both clocks, added latency, killed connections, a paused server, refused connections, maxclients, bad parameters and seeded determinism.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use redis::{Commands, Connection, RedisResult};
use redsim_testing::{Clock, TestServer};

fn connect(server: &TestServer) -> Connection {
    redis::Client::open(server.url())
        .expect("a valid URL")
        .get_connection()
        .expect("a connection")
}

fn named(server: &TestServer, name: &str) -> Connection {
    let mut c = connect(server);
    let _: () = redis::cmd("CLIENT")
        .arg("SETNAME")
        .arg(name)
        .query(&mut c)
        .unwrap();
    c
}

fn dbsize(server: &TestServer) -> u64 {
    server.inspect(|e| e.dbsize(0) as u64)
}

#[test]
fn a_manual_clock_moves_only_when_told() {
    let server = TestServer::builder().clock(Clock::Manual).start();
    let mut c = connect(&server);
    let _: () = c.set_ex("session", "ann", 10).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        c.ttl::<_, i64>("session").unwrap(),
        10,
        "no wall time passes"
    );
    server.advance(Duration::from_secs(9));
    assert_eq!(
        c.get::<_, Option<String>>("session").unwrap().as_deref(),
        Some("ann")
    );
    assert_eq!(c.ttl::<_, i64>("session").unwrap(), 1);
    // Past the TTL the active expire cycle reclaims the key with no
    // command touching it.
    server.advance(Duration::from_secs(2));
    assert_eq!(dbsize(&server), 0);
    assert_eq!(c.get::<_, Option<String>>("session").unwrap(), None);
}

#[test]
fn on_the_wall_clock_keys_expire_by_themselves() {
    let server = TestServer::start();
    let mut c = connect(&server);
    let _: () = redis::cmd("SET")
        .arg("k")
        .arg("v")
        .arg("PX")
        .arg(100)
        .query(&mut c)
        .unwrap();
    assert_eq!(dbsize(&server), 1);
    let deadline = Instant::now() + Duration::from_secs(10);
    while dbsize(&server) > 0 {
        assert!(Instant::now() < deadline, "the key never expired by itself");
        std::thread::sleep(Duration::from_millis(20));
    }
    // advance() works on the wall clock too: it adds to it.
    let _: () = c.set_ex("later", 1, 3600).unwrap();
    server.advance(Duration::from_secs(3601));
    assert!(!c.exists::<_, bool>("later").unwrap());
}

#[test]
fn latency_delays_replies_without_holding_up_others() {
    let server = TestServer::start();
    let mut slow = named(&server, "slow");
    let mut fast = named(&server, "fast");
    server.set_client_latency("slow", Duration::from_millis(800));
    let url = server.url();
    let slow_thread = std::thread::spawn(move || {
        let t = Instant::now();
        let _: String = redis::cmd("PING").query(&mut slow).unwrap();
        (t.elapsed(), Instant::now())
    });
    std::thread::sleep(Duration::from_millis(50));
    let _: String = redis::cmd("PING").query(&mut fast).unwrap();
    let fast_done = Instant::now();
    let (slow_took, slow_done) = slow_thread.join().unwrap();
    assert!(slow_took >= Duration::from_millis(800), "{slow_took:?}");
    assert!(
        fast_done < slow_done,
        "the fast client waited for the slow one"
    );
    // Server-wide latency applies to every client.
    server.set_client_latency("slow", Duration::ZERO);
    server.set_latency(Duration::from_millis(300));
    let mut other = redis::Client::open(url).unwrap().get_connection().unwrap();
    let t = Instant::now();
    let _: String = redis::cmd("PING").query(&mut other).unwrap();
    assert!(t.elapsed() >= Duration::from_millis(300));
}

#[test]
fn a_killed_client_loses_its_connection_and_others_keep_theirs() {
    let server = TestServer::start();
    let mut victim = named(&server, "victim");
    let mut bystander = named(&server, "bystander");
    assert_eq!(server.kill_client("victim"), 1);
    assert_eq!(server.kill_client("nobody"), 0);
    let r: RedisResult<String> = redis::cmd("PING").query(&mut victim);
    assert!(r.is_err(), "{r:?}");
    let pong: String = redis::cmd("PING").query(&mut bystander).unwrap();
    assert_eq!(pong, "PONG");
}

#[test]
fn a_paused_server_answers_nothing_until_the_pause_ends() {
    let server = TestServer::start();
    let mut c = connect(&server);
    server.pause(Duration::from_millis(400));
    let t = Instant::now();
    let _: String = redis::cmd("PING").query(&mut c).unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn refused_connections_and_maxclients() {
    let server = TestServer::builder().config("maxclients", "2").start();
    let mut first = connect(&server);
    server.refuse_connections(true);
    let client = redis::Client::open(server.url()).unwrap();
    let refused = client
        .get_connection()
        .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c));
    assert!(refused.is_err(), "{refused:?}");
    server.refuse_connections(false);
    let _second = connect(&server);
    // A third connection is one too many: Redis' error, then closed. Read
    // on a bare socket, as a client library may report only the close.
    let mut third = std::net::TcpStream::connect(server.addr()).unwrap();
    third.write_all(b"PING\r\n").unwrap();
    let mut reply = String::new();
    third.read_to_string(&mut reply).unwrap();
    assert_eq!(reply, "-ERR max number of clients reached\r\n");
    let maxclients: Vec<String> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("maxclients")
        .query(&mut first)
        .unwrap();
    assert_eq!(maxclients, ["maxclients", "2"]);
}

#[test]
fn bad_parameters_are_refused_with_redis_words() {
    let err = TestServer::builder()
        .config("maxmemory-policy", "sometimes")
        .try_start()
        .err()
        .expect("a bad policy");
    assert!(err.contains("maxmemory-policy"), "{err}");
    assert!(TestServer::builder()
        .config("no-such-thing", "1")
        .try_start()
        .is_err());
}

#[test]
fn the_same_seed_gives_the_same_random_picks() {
    let picks = |seed: u64| -> Vec<String> {
        let server = TestServer::builder().seed(seed).start();
        let mut c = connect(&server);
        let members: Vec<i32> = (0..200).collect();
        let _: () = c.sadd("s", members).unwrap();
        redis::cmd("SPOP").arg("s").arg(10).query(&mut c).unwrap()
    };
    assert_eq!(picks(7), picks(7));
    assert_ne!(picks(7), picks(8));
}

/// The redis.conf a real server will use starts a test's server too: its
/// lines apply (but the test's free port), the builder's parameters override
/// them, and CONFIG REWRITE writes the running values back into it.
#[test]
fn a_config_file_starts_the_server_and_config_rewrite_updates_it() {
    let dir = std::env::temp_dir().join(format!("redsim-testing-conf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let conf = dir.join("redis.conf");
    std::fs::write(
        &conf,
        "# production settings\nport 6379\nmaxmemory 1mb\nmaxmemory-policy allkeys-lru\nhz 10\n",
    )
    .unwrap();
    let server = TestServer::builder()
        .config_file(&conf)
        .config("hz", "50")
        .start();
    assert_ne!(server.port(), 6379, "the test's own free port");
    let mut c = connect(&server);
    let get = |c: &mut Connection, name: &str| -> String {
        let kv: Vec<String> = redis::cmd("CONFIG").arg("GET").arg(name).query(c).unwrap();
        kv[1].clone()
    };
    assert_eq!(get(&mut c, "maxmemory"), "1048576");
    assert_eq!(get(&mut c, "maxmemory-policy"), "allkeys-lru");
    assert_eq!(get(&mut c, "hz"), "50", "the builder's parameter wins");
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("volatile-ttl")
        .query(&mut c)
        .unwrap();
    let _: () = redis::cmd("CONFIG").arg("REWRITE").query(&mut c).unwrap();
    let text = std::fs::read_to_string(&conf).unwrap();
    assert!(text.starts_with("# production settings\n"), "{text}");
    assert!(text.contains("\nmaxmemory-policy volatile-ttl\n"), "{text}");
    assert!(text.contains("\nmaxmemory 1mb\n"), "{text}");
    let bad = TestServer::builder()
        .config_file(dir.join("missing.conf"))
        .try_start();
    assert!(
        bad.err()
            .is_some_and(|e| e.contains("can't open config file")),
        "a missing file is an error"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
